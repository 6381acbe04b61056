"""What the end of ``ltrbench run`` says: the models ranked with intervals, a one-line verdict,
the LambdaMART head-to-head, the cross-check, and the next command.

The numbers are the leaderboard's own (:func:`bench.report.build.build_table`, the defaults of
``ltrbench report``): mean over seeds, a 95% percentile-bootstrap CI over queries of the
seed-averaged per-query values, and Holm-corrected paired randomization tests against the best
row. The head-to-head compares the LambdaMART model of each GBDT library in the run (the
registry's ``LAMBDAMART`` models; for CatBoost, YetiRank when its LambdaMart is not in the run)
pair by pair with a paired randomization test on the same per-query values (uncorrected: it is one planned comparison per pair, not a search; with several pairs each line says so).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.errors import LtrbenchError
from bench.metrics.families import best_is_lowest
from bench.report.build import (
    DEFAULT_OPTIONS,
    LeaderboardOptions,
    build_table,
    filter_dataset,
)
from bench.report.seed_values import per_query_matrix
from bench.report.stats import ALPHA, fmt_p, randomization_test
from bench.runners.registry import LAMBDAMART
from bench.runs.reader import RunDir

#: The LambdaMART-like model of each library, in order of preference (CatBoost's own LambdaMart
#: loss, else YetiRank, its recommended ranking loss).
_LAMBDAMART_BY_LIBRARY = tuple((m, "catboost-yetirank") if m == "catboost-lambdamart" else (m,)
                               for m in LAMBDAMART)


def story(run_dir: str | Path) -> str:
    """The closing text of a run (module docstring); empty when the run has no test metrics."""
    run = RunDir(Path(run_dir))
    datasets = run.datasets()
    if not datasets:
        return ""
    try:
        table = build_table(run, datasets[0], options=_options(run))
    except (LtrbenchError, KeyError, ValueError, OSError):  # a run without what a table needs
        return ""
    primary = table["primary_metric"]
    rows = rows_best_first(table["rows"], primary)
    lines = [f"ranked by {table['split']} {primary} ({_queries(table, rows[0], primary)}; 95% CI "
             f"over queries; p: paired randomization test vs the best, Holm-corrected)"]
    width = max(len(r["model"]) for r in rows)
    for r in rows:
        m = r["metrics"][primary]
        ci = (f"[{m['ci_low']:.4f}, {m['ci_high']:.4f}]" if m.get("ci_low") is not None
              else "")
        vs = r["vs_best"]
        if vs is not None:
            p = f"p {fmt_p(vs['p_randomization_holm'], 3, 'g')}"
        elif not math.isfinite(_mean(r, primary)):  # every query blank: never "best"
            p = "no value"
        else:
            p = "best" if r is rows[0] else "not tested"
        lines.append(f"  {r['model']:<{width}}  {_shown(r, primary):>6}  {ci:<18}  {p}")
    lines.append(verdict(rows, primary))
    lines += head_to_head(run, table)
    return "\n".join(lines) + "\n"


def _options(run: RunDir) -> LeaderboardOptions:
    """The leaderboard defaults, or, for a run of other metrics (``run --metrics P@10,map``),
    those metrics with the first as the primary one."""
    names = [str(m) for m in pd.unique(run.table("metrics.csv")["metric"].astype(str))]
    if DEFAULT_OPTIONS.named_primary() in names:
        return DEFAULT_OPTIONS
    return replace(DEFAULT_OPTIONS, metrics=tuple(names), primary=names[0])


def _queries(table: dict[str, Any], best: dict[str, Any], primary: str) -> str:
    """How many queries the intervals and tests use: the blank queries (no relevant document)
    have no value under the run's profile and are not among them."""
    used = best["metrics"][primary].get("n_queries")
    blank = table.get("blank_queries") or 0
    if used is None or not blank:
        return f"{table['n_queries']} queries"
    return f"{used} of {table['n_queries']} queries; {blank} blank, without a value"


def rows_best_first(rows: list[dict[str, Any]], metric: str) -> list[dict[str, Any]]:
    """Leaderboard rows, best mean of ``metric`` first (the highest; the lowest for ARP, a rank:
    :func:`bench.metrics.families.best_is_lowest`), rows without a mean last; a stable sort, so
    tied rows keep the table's order. The one order every verdict, page and table reads."""
    sign = 1.0 if best_is_lowest(metric) else -1.0

    def key(row: dict[str, Any]) -> tuple[int, float]:
        mean = (row["metrics"].get(metric) or {}).get("mean")
        return (1, 0.0) if mean is None or mean != mean else (0, sign * float(mean))

    return sorted(rows, key=key)


def verdict(rows: list[dict[str, Any]], primary: str) -> str:
    """``best: X; not distinguishable from it: Y, Z`` (Holm-corrected p >= ALPHA); a row without
    a paired test (no per-query values) is named as not tested, never counted as worse."""
    best = rows[0]
    if not math.isfinite(_mean(best, primary)):  # every query blank: no model has a value
        return (f"verdict: none; no model has a {primary} value (every query blank under the "
                "run's profile, or the metric not computed)")
    p = {r["model"]: (r["vs_best"] or {}).get("p_randomization_holm") for r in rows[1:]}
    ties = [m for m, v in p.items() if v is not None and v == v and v >= ALPHA]
    untested = [m for m, v in p.items() if v is None or v != v]
    text = f"verdict: best {primary} is {best['model']} ({_mean(best, primary):.4f}" + (
        ", the lowest: lower is better)" if best_is_lowest(primary) else ")")
    if ties:
        text += f"; not distinguishable from it (p >= {ALPHA}): {', '.join(ties)}"
    if untested:  # no paired test (no per-query values): never counted as worse
        text += (f"; not tested against it (no per-query values, so no paired test; by the "
                 f"mean alone): {', '.join(untested)}")
    if ties or untested or len(rows) < 2:
        return text
    return text + f"; every other model is worse (p < {ALPHA})"


def table_verdict(rows: list[dict[str, Any]], primary: str) -> str:
    """The verdict as a leaderboard prints it (Markdown, HTML): capitalised, naming the tests
    only when at least one row was tested against the best."""
    said = verdict(rows, primary).replace("verdict: ", "Verdict: ", 1)
    tested = any((r["vs_best"] or {}).get("p_randomization_holm") is not None for r in rows[1:])
    return said + (" (Holm-corrected paired randomization tests)." if tested else ".")


def head_to_head(run: RunDir, table: dict[str, Any]) -> list[str]:
    """One line per pair of LambdaMART models in the run: the mean difference and its p."""
    in_run = {r["model"] for r in table["rows"]}
    present = [next(m for m in choices if m in in_run) for choices in _LAMBDAMART_BY_LIBRARY
               if any(m in in_run for m in choices)]
    if len(present) < 2:
        return []
    primary, split = table["primary_metric"], table["split"]
    pq = filter_dataset(run.table("per_query.parquet"), table["dataset"])
    mat, _ = per_query_matrix(pq[pq["split"].astype(str) == split], primary, present)
    rows = dict(zip(present, mat, strict=True))  # per-query values averaged over seeds
    out = []
    pairs = list(itertools.combinations(present, 2))
    # several pairs are several tests at 0.05 each: said, as the leaderboard says "Holm"
    said = f", not corrected for the {len(pairs)} pairs" if len(pairs) > 1 else ""
    for a, b in pairs:
        diffs = rows[a] - rows[b]
        p = float(np.asarray(randomization_test(diffs, seed=DEFAULT_OPTIONS.seed)).ravel()[0])
        d = float(np.nanmean(diffs))
        out.append(f"head to head: {a} - {b} = {d:+.4f} {primary} (paired randomization "
                   f"p {fmt_p(p, 3, 'g')}{said}"
                   f"{', a real difference' if p < ALPHA else ', no clear winner'})")
    return out


def _shown(row: dict[str, Any], metric: str) -> str:
    """The mean as printed: four decimals, ``–`` where there is none (``-inf`` is only the
    sorting key of a row without a value, never a number to print)."""
    value = _mean(row, metric)
    return f"{value:.4f}" if math.isfinite(value) else "–"


def _mean(row: dict[str, Any], metric: str) -> float:
    value = row["metrics"].get(metric, {}).get("mean")
    return float(value) if value is not None else float("-inf")
