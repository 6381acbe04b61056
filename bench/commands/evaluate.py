"""``ltrbench evaluate``: ranking metrics of a scores file or a TREC run, under a named convention.

Three inputs::

    ltrbench evaluate --data FILE [--query FILE.query] --scores FILE [options]
    ltrbench evaluate --qrels FILE --run FILE [--run [NAME=]FILE ...] [options]
    ltrbench evaluate --engine dask --data SHARDS_DIR [--score-column score] [--scheduler ADDRESS]

``--data`` is an SVMlight/LETOR file (``label qid:Q index:value ... # comment``; without ``qid:``
the group sizes come from ``--query`` or ``FILE.query``). ``--scores`` holds one score per line in
the data file's row order, as ``lightgbm``/``xgboost`` ``predict`` write them. Output: a table
(default), JSON ``{"profile", "n_queries", "metrics", "metric_profiles", "diagnostics"}``, or CSV
``metric,value,profile``; ``--per-query OUT.csv`` also writes one row per query. Metrics are
keyed by their spelling on the command line, and every metric names the profile it was computed
under: ``--profile`` applies to every name (a trec_eval name under trec_eval-c is trec_eval -c's;
a name of another tool's family is refused, ``PROFILE:NAME`` asks for it), and without
``--profile`` a trec_eval or ir_measures name keeps its tool's profile.

With several ``--run`` options the runs are compared (:mod:`bench.report.compare_runs`): per
run the mean of each metric with a 95% bootstrap interval over queries, and for the first metric
paired tests (randomization and t, Holm-corrected) of every run against the best one, on one
query set for every metric and every run: the queries all of them were evaluated on (``--missing
drop``, the default under trec_eval) or every judged qrels query, a run without a line for it
scoring 0 (``--missing zero``, the default under trec_eval-c); the dropped queries are counted and
named. A run is named by its file stem (``-2``, ``-3`` appended when stems
collide) or by ``--run NAME=FILE``. ``--format csv`` prints one row per run; ``--per-query``
writes ``qid,metric,profile`` and one column per run.

With ``--engine dask`` the data are a folder of query-aligned Parquet shards
(:mod:`bench.data.query_shards`: ``qid``, ``label`` and a score column, each file whole queries)
evaluated partition by partition on a Dask cluster (a loopback-only local one unless
``--scheduler`` names one); the numbers are those of the local engine on the same rows
(:mod:`bench.metrics.distributed`), so data larger than one process's memory can be evaluated.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from bench.commands.text import examples, plain
from bench.data.atomic import atomic_path
from bench.data.inputs import check_input_file, parse_float, refuse_decimal_ties, text_lines
from bench.data.outputs import check_output_file
from bench.data.svmlight import line_of_data_row, query_sidecar, read_svmlight
from bench.errors import ConfigError, DataError
from bench.metrics import (
    PROFILES,
    EvaluationResult,
    evaluate,
    evaluate_trec,
    get_profile,
    parse_metrics,
)
from bench.metrics.families import EVALUATE_METRICS
from bench.metrics.missing import warnings_as_lines
from bench.metrics.profiles import DEFAULT_PROFILE, Profile


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``evaluate`` sub-command."""
    p = sub.add_parser(
        "evaluate",
        help="ranking metrics of a scores file or TREC run under a named convention",
        description=plain(__doc__.split("\n\n")[0]) if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=examples(
            "ltrbench evaluate --data bench/examples/example.svmlight "
            "--scores bench/examples/example.scores --profile lightgbm",
            "ltrbench evaluate --qrels qrels.txt --run run.txt --metrics ndcg_cut_10 P_5 map",
            "ltrbench evaluate --qrels qrels.txt --run bm25=bm25.run --run dense=dense.run "
            "--metrics ndcg@10 map",
        ),
    )
    add_arguments(p)
    p.set_defaults(func=run)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``ltrbench evaluate``."""
    src = p.add_argument_group("input (either --data and --scores, or --qrels and --run)")
    src.add_argument("--data", metavar="FILE", help="SVMlight/LETOR file with labels and qid:")
    src.add_argument("--query", metavar="FILE", help="group sizes for a --data file without qid: "
                     "(default: FILE.query beside it)")
    src.add_argument("--scores", metavar="FILE", help="one score per line, in --data row order")
    src.add_argument("--qrels", metavar="FILE", help="TREC qrels 'qid iter docno rel'")
    src.add_argument("--run", metavar="[NAME=]FILE", action="append",
                     help="TREC run 'qid Q0 docno rank score tag'; repeat to compare runs")
    p.add_argument("--metrics", nargs="+", default=[EVALUATE_METRICS], metavar="NAME",
                   help=f"metric names, e.g. 'ndcg@1,3,5,10 map@10 mrr' (default: {EVALUATE_METRICS})")
    p.add_argument("--profile", default=None, metavar="NAME",
                   help=f"convention: {', '.join(PROFILES)} (default: ltrbench; trec_eval for "
                   "--qrels/--run)")
    p.add_argument("--missing", choices=("drop", "zero"), default=None,
                   help="with several --run: a qrels query a run has no line for is dropped from "
                   "every run and metric (drop) or scored 0 (zero, as trec_eval -c); default: "
                   "the profile's own rule")
    p.add_argument("--per-query", metavar="OUT.csv", help="also write per-query values to this CSV")
    p.add_argument("--format", choices=("table", "json", "csv"), default="table")
    eng = p.add_argument_group("engine")
    eng.add_argument("--engine", choices=("local", "dask"), default="local",
                     help="local (this process) or dask (--data is a folder of Parquet shards)")
    eng.add_argument("--score-column", default=None, metavar="NAME",
                     help="with --engine dask: the shards' score column (default: score)")
    eng.add_argument("--scheduler", metavar="ADDRESS",
                     help="with --engine dask: an existing scheduler (tcp://host:8786); default: "
                     "a local cluster on 127.0.0.1")
    eng.add_argument("--workers", type=int, default=None,
                     help="with --engine dask and no --scheduler: local worker processes (2)")
    p.add_argument("--sort-by-qid", action="store_true",
                   help="accept a --data file whose queries are not contiguous (rows are grouped "
                   "by qid, keeping their order within a query)")


@warnings_as_lines()  # qrels queries without a run line: one 'warning:' line on stderr
def run(args: argparse.Namespace) -> int:
    """Run ``ltrbench evaluate``; returns the exit status."""
    specs = parse_metrics(args.metrics)
    if args.per_query is not None:  # before any work: never after it, never over an input
        sidecar = query_sidecar(args.data) if args.data and args.query is None else None
        check_output_file(args.per_query, option="--per-query", inputs=[
            ("--data", args.data), ("--scores", args.scores), ("--qrels", args.qrels),
            *[("--run", path) for _, path in run_names(args.run or [])],
            ("--query", args.query or sidecar)])
    names = [s.key for s in specs]
    if args.engine == "dask":
        if args.data is None or args.scores or args.qrels or args.run or args.query or \
                args.missing:
            raise ConfigError("--engine dask takes --data SHARDS_DIR (Parquet shards with qid, "
                              "label and --score-column) and no --scores/--qrels/--run/--query/"
                              "--missing")
        profile = get_profile(args.profile or DEFAULT_PROFILE)
        args.score_column = args.score_column or "score"
        args.workers = 2 if args.workers is None else args.workers
        result = _evaluate_shards(args, names, profile.name, args.per_query is not None)
        _write_per_query(result, args.per_query)
        _print(result, args.format)
        return 0
    _refuse_unused(args)
    trec = args.qrels is not None or args.run is not None
    arrays = args.data is not None or args.scores is not None
    if trec == arrays or (trec and (args.qrels is None or args.run is None)) or (
        arrays and (args.data is None or args.scores is None)
    ):
        raise ConfigError("give either --data FILE --scores FILE, or --qrels FILE --run FILE")
    per_query = args.per_query is not None
    if trec and len(args.run) > 1:
        return _compare(args, names)
    if args.missing is not None:
        raise ConfigError("--missing chooses the queries of a comparison of several --run; for "
                          "one run pick the profile (trec_eval-c scores a qrels query without a "
                          "run line 0)")
    given = None if args.profile is None else get_profile(args.profile)
    if trec:
        result = evaluate_trec(args.qrels, run_names(args.run)[0][1], metrics=names,
                               profile=given, per_query=per_query)
    else:
        result = _evaluate_files(args, names, given, per_query)
    _write_per_query(result, args.per_query)
    _print(result, args.format)
    return 0


def _refuse_unused(args: argparse.Namespace) -> None:
    """An option the local engine would ignore is an error, never silently dropped."""
    unused = [o for o, v in (("--score-column", args.score_column), ("--scheduler", args.scheduler),
                             ("--workers", args.workers)) if v is not None]
    if unused:
        raise ConfigError(f"{', '.join(unused)} apply to --engine dask only (Parquet shards); "
                          "the local engine reads --data/--scores or --qrels/--run")
    if args.qrels is not None or args.run is not None:
        extra = [o for o, v in (("--query", args.query), ("--sort-by-qid", args.sort_by_qid))
                 if v]
        if extra:
            raise ConfigError(f"{', '.join(extra)} apply to a --data file; TREC files name "
                              "their queries on every line")


def _write_per_query(result: EvaluationResult, path: str | None) -> None:
    if path is None:
        return
    assert result.per_query is not None
    with atomic_path(path) as tmp:
        result.per_query.to_csv(tmp, index=False)


def _evaluate_shards(
    args: argparse.Namespace, names: list[str], profile: str, per_query: bool
) -> EvaluationResult:
    from bench.data.dask_cluster import cluster
    from bench.data.query_shards import read_query_shards, shard_columns
    from bench.metrics.distributed import evaluate_frame

    columns = ["qid", "label", args.score_column]
    shard_columns(args.data, columns)
    with cluster(args.scheduler, workers=args.workers):
        ddf = read_query_shards(args.data, columns=columns)
        return evaluate_frame(ddf, score=args.score_column, metrics=names, profile=profile,
                              per_query=per_query, where=str(args.data))


def read_scores(path: str | Path, n_rows: int,
                qid: NDArray[np.generic] | None = None) -> NDArray[np.float64]:
    """One finite float per line; a malformed line or the wrong count is a :class:`DataError`.

    Read through :mod:`bench.data.inputs` (a UTF-8 byte-order mark skipped, UTF-16 refused)
    and parsed strictly: ``0_4``, ``0x1p3``, ``nan``, ``inf`` are errors naming the line.
    """
    p = check_input_file(path, expected="a scores file (one number per line)")
    lines = [(lineno, raw.strip()) for lineno, raw in text_lines(p)]
    while lines and not lines[-1][1]:
        lines.pop()
    if not lines:
        raise DataError("empty scores file: expected one score per line", path=p)
    blank = next((lineno for lineno, text in lines if not text), None)
    if blank is not None:
        raise DataError("expected one number per line, got an empty line", path=p, line=blank)
    values = np.fromiter((parse_float(text, what="score", path=p, line=lineno)
                          for lineno, text in lines), dtype=np.float64, count=len(lines))
    if values.shape[0] != n_rows:
        raise DataError(
            f"{values.shape[0]} scores but the data file has {n_rows} rows: give one score per "
            "data row, in the same order",
            path=p,
        )
    if qid is not None:  # distinct decimals of one query tied as float64 (bench.data.inputs)
        refuse_decimal_ties(qid, values, [t.decode() for _, t in lines],
                            lines=[n for n, _ in lines], path=p)
    return values


def _evaluate_files(
    args: argparse.Namespace, names: list[str], profile: Profile | None, per_query: bool
) -> EvaluationResult:
    # labels and queries only: the features are checked, never held (a file with index 2e9
    # once made this build a 1.5 TiB matrix)
    data = read_svmlight(args.data, query_path=args.query, sort_by_qid=args.sort_by_qid,
                         features=False)
    order = data.meta.get("file_order")  # set only when --sort-by-qid moved rows
    qid_of_line = np.asarray(data.qid)
    if order is not None:  # scores are in file order; data.qid in sorted order
        qid_of_line = np.empty_like(qid_of_line)
        qid_of_line[np.asarray(order)] = np.asarray(data.qid)
    scores = read_scores(args.scores, data.n_rows, qid_of_line)
    if order is not None:
        scores = scores[np.asarray(order)]
    try:
        return evaluate(data.y, scores, qid=data.qid, metrics=names, profile=profile,
                        per_query=per_query)
    except DataError as exc:
        if exc.row is None:
            raise
        # The evaluator numbers rows from 1 in the order it was given (sorted, with
        # --sort-by-qid); name the data row and line of the file instead.
        row = exc.row if order is None else int(np.asarray(order)[exc.row - 1]) + 1
        raise DataError(exc.reason, path=args.data, line=line_of_data_row(args.data, row),
                        row=row) from exc


def _print(result: EvaluationResult, fmt: str) -> None:
    if fmt == "json":
        print(json.dumps(result.as_dict(), indent=2))
        return
    if fmt == "csv":
        out = csv.writer(sys.stdout, lineterminator="\n")  # names may hold commas: P(rel=2,...)
        out.writerow(["metric", "value", "profile"])
        for k, v in result.metrics.items():
            out.writerow([k, "" if math.isnan(v) else repr(float(v)), result.profile_of(k)])
        return
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

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
    blanks = d.n_blank > 0
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
    console = Console()
    console.print(table)
    ties = "whole list" if d.ties_k is None else f"top {d.ties_k}"
    console.print(
        f"blank queries (no relevant document): {d.n_blank} ({d.blank_policy}); "
        f"single-document queries: {d.n_single_document}; "
        f"queries with tied scores in the {ties}: {d.n_queries_with_ties_in_topk}",
        markup=False,
    )


def _fmt(v: float | None) -> str:
    if v is None:
        return "-"
    return "nan" if math.isnan(v) else f"{v:.6f}"


def run_names(specs: list[str]) -> list[tuple[str, str]]:
    """``(name, path)`` of each ``--run``: ``NAME=PATH``, or a path named by its file stem.

    A value that is an existing file is a path even if it contains ``=``. Stems that collide get
    ``-2``, ``-3``, ... in order; two explicit names that are equal are an error.
    """
    pairs: list[tuple[str, str, bool]] = []
    for spec in specs:
        name, sep, path = spec.partition("=")
        if sep and name and path and not Path(spec).is_file():
            pairs.append((name, path, True))
        else:
            pairs.append((Path(spec).stem or spec, spec, False))
    explicit = [n for n, _, given in pairs if given]
    if len(set(explicit)) != len(explicit):
        dup = next(n for n in explicit if explicit.count(n) > 1)
        raise ConfigError(f"--run name {dup!r} is given twice: names must differ")
    taken = set(explicit)
    out = []
    for name, path, given in pairs:
        final = name
        k = 2
        while not given and final in taken:
            final = f"{name}-{k}"
            k += 1
        taken.add(final)
        out.append((final, path))
    return out


def _compare(args: argparse.Namespace, names: list[str]) -> int:
    from bench.report.compare_runs import compare_runs

    runs = dict(run_names(args.run))
    profile = None if args.profile is None else get_profile(args.profile)
    result = compare_runs(args.qrels, runs, metrics=names, profile=profile, missing=args.missing)
    if args.per_query is not None:
        with atomic_path(args.per_query) as tmp:
            result.per_query_frame().to_csv(tmp, index=False)
    if args.format == "json":
        print(json.dumps(result.as_dict(), indent=2))
        return 0
    if args.format == "csv":
        sys.stdout.write(result.to_frame().to_csv(index=False))
        return 0
    from rich.console import Console
    from rich.markup import escape
    from rich.measure import Measurement
    from rich.table import Table

    table = Table(title=f"profile {result.profile}: {len(result.names)} runs, "
                  f"{result.qids.shape[0]} common queries")
    table.add_column("run")
    for m in result.metrics:
        table.add_column(escape(f"{m} [{result.metric_profiles[m]}]"), justify="right")
        table.add_column(f"{result.confidence:.0%} CI", justify="right")
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
    console = Console()
    # never cut a number: widen the console to the table (a narrow or piped terminal is 80 wide)
    need = Measurement.get(console, console.options.update(width=1000), table).maximum
    console.width = max(console.width, need)
    console.print(table)
    console.print(f"queries: {result.query_rule}", markup=False)
    n_drop = len(result.dropped)
    if n_drop:
        console.print(f"  {n_drop} {'query' if n_drop == 1 else 'queries'} dropped from every run "
                      f"and metric: {result.dropped_text()}", markup=False)
    for name in result.names:
        if result.left_out[name]:
            lost = result.left_out[name]
            shown = result.dropped_text(lost)
            console.print(f"  run {name}: {len(lost)} of its {result.evaluated[name]} evaluated "
                          f"queries left out: {shown}", markup=False)
    for m, ids in result.no_value.items():  # blank in some run: left out for every run
        console.print(f"  {m}: {len(ids)} without a value in some run, left out for every run: "
                      f"{result.dropped_text(ids)}", markup=False)
    console.print(f"statistics: {result.statistics()}; unadjusted p-values: --format csv/json",
                  markup=False)
    return 0


def _p(v: float) -> str:
    return "-" if math.isnan(v) else f"{v:.4g}"
