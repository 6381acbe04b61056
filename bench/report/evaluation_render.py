"""``ltrbench evaluate``'s output: one evaluation, or a comparison of runs, as a table, JSON or CSV.

Moved here from ``bench/commands/evaluate.py`` (commands parse and print; rendering is the
report layer's). The table is rich's (imported when a table is printed, so JSON and CSV output
load no terminal library); every cell taken from the data is escaped (a query id or run name
holding ``[bold]`` is printed as written).
"""

from __future__ import annotations

import csv
import io
import json
import math
import sys
from typing import TYPE_CHECKING

from bench.data.csv_cells import spelled

if TYPE_CHECKING:
    from rich.console import Console

    from bench.metrics.result import EvaluationResult
    from bench.report.compare_runs import RunComparison


def print_evaluation(result: EvaluationResult, fmt: str) -> None:
    """Print ``result`` on stdout: ``json`` (:meth:`EvaluationResult.as_dict`), ``csv``
    (``metric,value,profile``, NaN as an empty cell) or ``table`` (with the diagnostics)."""
    if fmt == "json":
        print(json.dumps(result.as_dict(), indent=2))
        return
    if fmt == "csv":
        text = io.StringIO()
        out = csv.writer(text, lineterminator="\n")  # names may hold commas: P(rel=2,...)
        out.writerow(["metric", "value", "profile"])
        for k, v in result.metrics.items():
            out.writerow([k, "" if math.isnan(v) else repr(float(v)), result.profile_of(k)])
        sys.stdout.write(spelled(text.getvalue()))
        return
    from rich.markup import escape
    from rich.table import Table

    from bench.metrics.diagnostics import blank_counts
    from bench.streams import whole_word_console

    d = result.diagnostics
    table = Table(title=f"profile {result.profile.name}: {d.n_queries} queries, "
                  f"{d.n_documents} documents")
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_column("profile")
    counts = {k: result.metric_n_queries.get(k, d.n_queries) for k in result.metrics}
    several = len(set(counts.values())) > 1  # profiles that score different queries
    if several:
        table.add_column("queries", justify="right")
    blanks = d.n_blank > 0 or any(d.blank_by_metric.values())
    if blanks:
        table.add_column("blank excluded", justify="right")
        table.add_column("blank = 0", justify="right")
        table.add_column("blank = 1", justify="right")
    for k, v in result.metrics.items():
        row = [escape(k), _fmt(v), escape(result.profile_of(k))]
        if several:
            row.append(str(counts[k]))
        if blanks:
            row += [_fmt(m.get(k)) for m in (d.mean_blank_excluded, d.mean_blank_as_0,
                                             d.mean_blank_as_1)]
        table.add_row(*row)
    console = whole_word_console(table, whole_cells=True)
    console.print(table)
    ties = "whole list" if d.ties_k is None else f"top {d.ties_k}"
    console.print(
        f"blank queries (no relevant document): {blank_counts(d, result.profile.relevance_threshold)}; "
        f"single-document queries: {d.n_single_document}; "
        f"queries with tied scores in the {ties}: {d.n_queries_with_ties_in_topk}",
        markup=False,
    )


def _fmt(v: float | None) -> str:
    if v is None:
        return "-"
    return "nan" if math.isnan(v) else f"{v:.6f}"


def print_comparison(result: RunComparison, fmt: str) -> None:
    """Print a comparison of runs on stdout: ``json`` (:meth:`RunComparison.as_dict`), ``csv``
    (one row per run) or ``table`` (means, intervals and Holm-corrected p-values, never cut to
    the terminal's width, then the query rule and the queries dropped)."""
    if fmt == "json":
        print(json.dumps(result.as_dict(), indent=2))
        return
    if fmt == "csv":
        from bench.data.csv_cells import formula_safe_frame  # a run named '=...' is no formula

        sys.stdout.write(spelled(formula_safe_frame(result.to_frame()).to_csv(index=False)))
        return
    from rich.markup import escape
    from rich.table import Table

    from bench.report.stats import confidence_percent
    from bench.streams import whole_word_console

    table = Table(title=f"profile {result.profile}: {len(result.names)} runs, "
                  f"{result.qids.shape[0]} common queries")
    table.add_column("run")
    for m in result.metrics:
        table.add_column(escape(f"{m} [{result.metric_profiles[m]}]"), justify="right")
        table.add_column(f"{confidence_percent(result.confidence)}% CI", justify="right")
    table.add_column("p rand. Holm", justify="right")
    table.add_column("p t Holm", justify="right")
    v = result.versus
    for i, name in enumerate(result.names):
        cells = []
        for m in result.metrics:
            cells += [f"{result.mean[m][i]:.4f}",
                      f"{result.ci_low[m][i]:.4f}-{result.ci_high[m][i]:.4f}"]
        top = "best (tie)" if result.tied_with_best else "best"  # equal means: no win
        tests = [top, top] if i == v.best else [_p(v.p_randomization_holm[i]),
                                                _p(v.p_t_holm[i])]
        table.add_row(escape(name), *cells, *tests)
    console = whole_word_console(table, whole_cells=True)
    console.print(table)
    _print_queries(console, result)


def _print_queries(console: Console, result: RunComparison) -> None:
    """The query rule, the queries dropped from every run, each run's left-out queries."""
    say = console.print
    say(f"queries: {result.query_rule}", markup=False)
    n_drop = len(result.dropped)
    if n_drop:
        say(f"  {n_drop} {'query' if n_drop == 1 else 'queries'} dropped from every run "
            f"and metric: {result.dropped_text()}", markup=False)
    for name in result.names:
        if result.left_out[name]:
            lost = result.left_out[name]
            shown = result.dropped_text(lost)
            say(f"  run {name}: {len(lost)} of its {result.evaluated[name]} evaluated "
                f"queries left out: {shown}", markup=False)
    for m, ids in result.no_value.items():  # blank in some run: left out for every run
        say(f"  {m}: {len(ids)} without a value in some run, left out for every run: "
            f"{result.dropped_text(ids)}", markup=False)
    say(f"statistics: {result.statistics()}; unadjusted p-values: --format csv/json",
        markup=False)


def _p(v: float) -> str:
    """Four significant digits, never rounded up to 0.05 (:func:`bench.report.stats.fmt_p`)."""
    from bench.report.stats import fmt_p

    return "-" if math.isnan(v) else fmt_p(v, 4, "g")
