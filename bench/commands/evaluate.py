"""``ltrbench evaluate``: ranking metrics of a scores file or a TREC run, under a named convention.

Three inputs::

    ltrbench evaluate --data FILE [--query FILE.query] --scores FILE [options]
    ltrbench evaluate --qrels FILE --run FILE [--run [NAME=]FILE ...] [options]
    ltrbench evaluate --engine dask --data SHARDS_DIR [--score-column score] [--scheduler ADDRESS]

``--data`` is an SVMlight/LETOR file (``label qid:Q index:value ... # comment``; without ``qid:``
the group sizes come from ``--query`` or ``FILE.query``). ``--scores`` holds one score per line in
the data file's row order, as ``lightgbm``/``xgboost`` ``predict`` write them. Output: a table
(default), JSON ``{"profile", "n_queries", "metrics", "metric_profiles", "diagnostics"}``, or CSV
``metric,value,profile``; ``--per-query OUT.csv`` also writes one row per query (``OUT.json``:
the same rows as JSON records, ids exactly as read). Metrics are
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
import dataclasses
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.commands.text import ascii_float, ascii_int, examples, plain, terminal_line
from bench.engines import DEFAULT_ENGINE, ENGINES, ClusterOptions, engine_names, get_engine
from bench.errors import ConfigError, DataError
from bench.metrics import PROFILES, evaluate_trec, get_profile, parse_metrics
from bench.metrics.families import EVALUATE_METRICS
from bench.metrics.missing import warnings_as_lines
from bench.metrics.profiles import DEFAULT_PROFILE, Profile
from bench.report.evaluation_render import print_comparison, print_evaluation

if TYPE_CHECKING:
    import pandas as pd

    from bench.metrics import EvaluationResult


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
    """The options of ``ltrbench evaluate``. An option of one value given twice with two
    values is an error (the rule of every command: :func:`bench.cli.once_per_option`);
    ``--metrics`` given twice computes the names of both."""
    src = p.add_argument_group("input (either --data and --scores, or --qrels and --run)")
    src.add_argument("--data", metavar="FILE",
                     help="SVMlight/LETOR file with labels and qid:")
    src.add_argument("--query", metavar="FILE",
                     help="group sizes for a --data file without qid: "
                     "(default: FILE.query beside it)")
    src.add_argument("--scores", metavar="FILE",
                     help="one score per line, in --data row order")
    src.add_argument("--qrels", metavar="FILE",
                     help="TREC qrels 'qid iter docno rel'")
    src.add_argument("--run", metavar="[NAME=]FILE", action="append",
                     help="TREC run 'qid Q0 docno rank score tag'; repeat to compare runs")
    p.add_argument("--metrics", nargs="+", action="extend", default=None, metavar="NAME",
                   help=f"metric names, e.g. 'ndcg@1,3,5,10 map@10 mrr' (default: {EVALUATE_METRICS})")
    p.add_argument("--profile", default=None, metavar="NAME",
                   help=f"convention: {', '.join(PROFILES)} (default: ltrbench; trec_eval for "
                   "--qrels/--run)")
    p.add_argument("--missing", choices=("drop", "zero"), default=None,
                   help="with several --run: a qrels query a run has no line for is dropped from "
                   "every run and metric (drop) or scored 0 (zero, as trec_eval -c); default: "
                   "the profile's own rule")
    opt = p.add_argument_group("profile options (trec_eval's -M, -J, -l)")
    opt.add_argument("--run-depth", type=ascii_int, default=None, metavar="N",
                     help="only the top N documents of each query's ranking count (trec_eval "
                     "-M N; the profile's run_depth). With --qrels/--run a cut judged document "
                     "still counts in R; with --data the cut rows leave the list, R and the "
                     "ideal ranking too, as cutting the file first would")
    opt.add_argument("--judged-only", action="store_true",
                     help="with --qrels/--run: unjudged documents leave the ranking first "
                     "(trec_eval -J; the profile's judged_only)")
    opt.add_argument("--relevance-level", type=_level, default=None, metavar="L",
                     help="relevant = label >= L (trec_eval -l L keeps lower labels' gains, "
                     "ranx's rel_lvl zeroes them: the profile's rel_level says which)")
    p.add_argument("--per-query", metavar="OUT.csv",
                   help="also write per-query values to this CSV (a path ending in .json: "
                   "JSON records, query ids exactly as read)")
    p.add_argument("--format", choices=("table", "json", "csv"), default="table")
    eng = p.add_argument_group("engine")
    eng.add_argument("--engine", choices=engine_names(), default=DEFAULT_ENGINE,
                     help="local (this process) or dask (--data is a folder of Parquet shards)")
    eng.add_argument("--score-column", default=None, metavar="NAME",
                     help="with --engine dask: the shards' score column (default: score)")
    eng.add_argument("--scheduler", metavar="ADDRESS",
                     help="with --engine dask: an existing scheduler (tcp://host:8786); default: "
                     "a local cluster on 127.0.0.1")
    eng.add_argument("--workers", type=ascii_int, default=None,
                     help="with --engine dask and no --scheduler: local worker processes (2)")
    p.add_argument("--sort-by-qid", action="store_true",
                   help="accept a --data file whose queries are not contiguous (rows are grouped "
                   "by qid, keeping their order within a query)")


@warnings_as_lines()  # qrels queries without a run line: one 'warning:' line on stderr
def run(args: argparse.Namespace) -> int:
    """Run ``ltrbench evaluate``; returns the exit status."""
    specs = parse_metrics(args.metrics if args.metrics is not None else [EVALUATE_METRICS],
                          repeated="refuse")
    if args.per_query is not None:  # before any work: never after it, never over an input
        if args.per_query.strip() == "-":  # not a file named '-' in the working folder
            raise ConfigError("--per-query - : standard output carries the summary; give the "
                              "per-query CSV a file path (e.g. --per-query per_query.csv)")
        _per_query_format(args.per_query)
        from bench.data.outputs import check_output_file
        from bench.datasets.sealed import dataset_folders

        sidecar = None
        if args.data and args.query is None:  # the SVMlight reader only for a data file
            from bench.data.svmlight import query_sidecar

            sidecar = query_sidecar(args.data)
        check_output_file(args.per_query, option="--per-query", inputs=[
            ("--data", args.data), ("--scores", args.scores), ("--qrels", args.qrels),
            *[("--run", path) for _, path in run_names(args.run or [])],
            ("--query", sidecar if args.query is None else args.query),
            *dataset_folders(around=Path(args.per_query).parent)])
    names = [s.key for s in specs]
    engine = get_engine(args.engine)
    if engine.evaluator is not None:  # the engine evaluates a folder of shards
        if args.data is None or any(v is not None for v in (
                args.scores, args.qrels, args.run, args.query, args.missing)) or \
                _option_changes(args) or args.sort_by_qid:  # shards are never regrouped
            raise ConfigError(f"--engine {engine.name} takes --data SHARDS_DIR (Parquet shards "
                              "with qid, label and --score-column) and no --scores/--qrels/"
                              "--run/--query/--missing/--run-depth/--judged-only/"
                              "--relevance-level/--sort-by-qid (shards hold whole queries, "
                              "each query's rows together: bench.data.query_shards."
                              "align_queries regroups a frame)")
        profile = get_profile(_shards_profile(specs) if args.profile is None else args.profile)
        if args.score_column is not None and not args.score_column.strip():
            raise ConfigError("--score-column '' names no column: give the shards' score "
                              "column (default: score)")
        args.score_column = "score" if args.score_column is None else args.score_column
        if args.scheduler is not None and args.workers is not None:
            raise ConfigError(f"--workers starts a local cluster; with --scheduler "
                              f"{args.scheduler} that cluster's own workers run: leave --workers out")
        args.workers = 2 if args.workers is None else args.workers
        result = engine.evaluate(args.data, score_column=args.score_column, metrics=names,
                                 profile=profile.name, per_query=args.per_query is not None,
                                 options=ClusterOptions(scheduler=args.scheduler,
                                                        workers=args.workers))
        _write_per_query(result, args.per_query)
        print_evaluation(result, args.format)
        return 0
    _refuse_unused(args, engine.name)
    trec = args.qrels is not None or args.run is not None
    arrays = args.data is not None or args.scores is not None
    if trec == arrays or (trec and (args.qrels is None or args.run is None)) or (
        arrays and (args.data is None or args.scores is None)
    ):
        raise ConfigError("give either --data FILE --scores FILE, or --qrels FILE --run FILE")
    per_query = args.per_query is not None
    _refuse_unreached(specs, args)
    if trec and len(args.run) > 1:
        return _compare(args, names)
    if args.missing is not None:
        raise ConfigError("--missing chooses the queries of a comparison of several --run; for "
                          "one run pick the profile (trec_eval-c scores a qrels query without a "
                          "run line 0)")
    given = _profile_with_options(args, trec)
    if trec:
        result = evaluate_trec(args.qrels, run_names(args.run)[0][1], metrics=names,
                               profile=given, per_query=per_query)
    else:
        from bench.metrics.scored_file import evaluate_scored_file

        result = evaluate_scored_file(args.data, args.scores, metrics=names, profile=given,
                                      query_path=args.query, sort_by_qid=args.sort_by_qid,
                                      per_query=per_query)
    _write_per_query(result, args.per_query)
    print_evaluation(result, args.format)
    return 0


def _shards_profile(specs: list[Any]) -> str:
    """The profile of an ``--engine dask`` call without ``--profile``: the one profile its
    names carry (``ndcg_cut_10,P_5``: trec_eval, as the local engine computes them), else the
    default; names of several profiles are refused here (the engine evaluates one per call:
    the local engine would give each its own, a default imposed on them would be refused as
    "given for this call", which the user did not give)."""
    own = {s.profile for s in specs}
    if len(own) == 1:
        return own.pop() or DEFAULT_PROFILE
    shown = ", ".join(f"{s.key}: {s.profile or DEFAULT_PROFILE}" for s in specs)
    raise ConfigError(f"--engine dask evaluates one profile per call, and --metrics names "
                      f"several ({shown}): give --profile (with names of that profile), or "
                      "evaluate them in one call per profile")


def _level(text: str) -> float:
    """``--relevance-level``: a finite number above 0 (``nan`` or ``inf`` would make every
    document irrelevant without a word: ``label >= nan`` is false; below 0 trec_eval counts a
    retrieved document without a judgment, its RELVALUE_NONPOOL -1 (``form_res_rels.c``), as
    relevant, which ltrbench's labels >= 0 cannot say; 0 makes every judged document relevant,
    a label 0 too, and pytrec_eval and ir_measures refuse it: the rule of the profile field,
    :func:`bench.metrics.validate.check_threshold`). A fraction is refused: trec_eval's ``-l``
    reads ``2.5`` as 2 (``atol``), ir_measures' ``rel=`` and pytrec_eval's
    ``relevance_level`` take whole numbers only, and ``label >= 2.5`` would be grade 3: no
    reading agrees with every tool. An ``argparse`` ``type=``."""
    value = ascii_float(text, beyond_float=True)  # '1e309': this message, naming the text
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected a finite number > 0 (a label: relevant = "
                                          f"label >= L; pytrec_eval and ir_measures refuse "
                                          f"0 and below); got {text!r}")
    if not value.is_integer():
        low, high = math.floor(value), math.ceil(value)
        give = f"{low} or {high}" if low >= 1 else f"{high}"
        raise argparse.ArgumentTypeError(
            f"expected a whole number (a grade: relevant = label >= L); got {text!r}, which "
            f"trec_eval -l reads as {low} and label >= {text} as {high}: give {give}")
    return value


def _option_changes(args: argparse.Namespace) -> dict[str, Any]:
    """The profile fields that --run-depth, --judged-only and --relevance-level set."""
    changes: dict[str, Any] = {}
    if args.run_depth is not None:
        changes["run_depth"] = args.run_depth
    if args.judged_only:
        changes["judged_only"] = True
    if args.relevance_level is not None:
        changes["relevance_threshold"] = args.relevance_level
    return changes


def _refuse_unreached(specs: list[Any], args: argparse.Namespace) -> None:
    """The options --run-depth, --judged-only and --relevance-level change the call's profile;
    a typed ``PROFILE:NAME`` is computed under that profile as registered, so they do not reach
    it (``ranx:ndcg@5`` beside ``--relevance-level 2`` printed ranx's level-1 value, exit 0).
    Every metric so typed: the options change nothing, refused; some: said once, naming
    them (the profile column names each metric's profile)."""
    from bench.metrics.qualified import spec_profile

    option = {"run_depth": "--run-depth", "judged_only": "--judged-only",
              "relevance_threshold": "--relevance-level"}
    changes = _option_changes(args)
    given = [option[k] + ("" if v is True else f" {v:g}") for k, v in changes.items()]
    typed = [s.key for s in specs if s.explicit and s.profile is not None and any(
        getattr(spec_profile(s, get_profile(s.profile)), k) != v for k, v in changes.items())]
    if not given or not typed:
        return
    text = (f"{', '.join(given)} {'does' if len(given) == 1 else 'do'} not reach "
            f"{', '.join(typed)}: a typed "
            "PROFILE:NAME is computed under that profile as registered; for the option's value "
            "write the name without 'PROFILE:' and give --profile PROFILE")
    if len(typed) == len(specs):
        raise ConfigError(f"{text} (no metric is left for the option to change)")
    print(f"warning: {text} (the profile column names each metric's profile)", file=sys.stderr)


def _profile_with_options(args: argparse.Namespace, trec: bool) -> Profile | None:
    """``--profile`` (default: trec_eval for --qrels/--run, else ltrbench) with the options
    applied as fields, named ``PROFILE+field=value``; ``None`` without --profile and options
    (peer names keep their tools' profiles). The fields are checked by :class:`Profile`."""
    changes = _option_changes(args)
    if args.judged_only and not trec:
        raise ConfigError("--judged-only (trec_eval -J) drops unjudged documents of a --run; "
                          "every row of a --data file is judged: give --qrels/--run")
    if args.profile is None and not changes:
        return None
    base = get_profile(("trec_eval" if trec else DEFAULT_PROFILE) if args.profile is None
                       else args.profile)  # '' is no profile: refused by name, not the default
    if not changes:
        return base
    label = ",".join(f"{k}={v!r}" for k, v in changes.items())
    return dataclasses.replace(base, name=f"{base.name}+{label}", **changes)


def _refuse_unused(args: argparse.Namespace, engine: str) -> None:
    """An option the in-process engine would ignore is an error, never silently dropped."""
    unused = [o for o, v in (("--score-column", args.score_column), ("--scheduler", args.scheduler),
                             ("--workers", args.workers)) if v is not None]
    if unused:
        shards = " / ".join(e.name for e in ENGINES.values() if e.evaluator is not None)
        raise ConfigError(f"{', '.join(unused)} apply to --engine {shards} only (Parquet "
                          f"shards); the {engine} engine reads --data/--scores or --qrels/--run")
    if args.qrels is not None or args.run is not None:
        extra = [o for o, v in (("--query", args.query), ("--sort-by-qid", args.sort_by_qid))
                 if v]
        if extra:
            raise ConfigError(f"{', '.join(extra)} apply to a --data file; TREC files name "
                              "their queries on every line")


#: Name endings that say another format than the per-query file's CSV (JSON for ``.json``):
#: pandas, Excel or gzip would open the text as that format and fail or misread it.
_NOT_CSV = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz", ".zst": "zstd", ".zip": "zip",
            ".parquet": "Parquet", ".pq": "Parquet", ".feather": "Feather", ".arrow": "Arrow",
            ".xlsx": "Excel", ".xls": "Excel", ".ods": "OpenDocument", ".tsv": "tab-separated",
            ".pkl": "pickle", ".pickle": "pickle", ".h5": "HDF5", ".hdf5": "HDF5",
            ".npy": "NumPy", ".npz": "NumPy", ".md": "Markdown", ".tex": "LaTeX",
            ".html": "HTML", ".jsonl": "JSON lines", ".ndjson": "JSON lines", ".yaml": "YAML",
            ".yml": "YAML", ".xml": "XML"}


def _per_query_format(path: str) -> None:
    """``--per-query pq.csv.gz`` / ``pq.parquet`` / ``pq.xlsx`` wrote CSV text under a name
    that says another format: refused before any work, naming the formats it writes."""
    suffix = Path(path).suffix.lower()
    if suffix in _NOT_CSV:
        raise ConfigError(f"--per-query {path!r}: the name ends in {suffix!r} ({_NOT_CSV[suffix]}), "
                          "but the per-query file is CSV text (JSON for a name ending in "
                          ".json): name it .csv or .json")


def _write_per_query(result: EvaluationResult, path: str | None) -> None:
    if path is None:
        return
    assert result.per_query is not None
    write_per_query(result.per_query, path)


def write_per_query(frame: pd.DataFrame, path: str) -> None:
    """``--per-query PATH``: JSON when ``PATH`` ends in ``.json`` (a list of records, one per
    row; query ids and names exactly as read, NaN as ``null``; integer ids are JSON numbers
    unless one lies beyond 2**53 - 1, which JSON readers that hold numbers as doubles cannot
    tell from its neighbour: then every id is its text), else CSV, whose text cells that
    a spreadsheet would run as formulas get a leading ``'``
    (:func:`bench.data.csv_cells.formula_safe`). Two query ids that the CSV would write alike
    (``=1`` and ``'=1``) are a :class:`DataError` before anything is written: the file could
    not tell them apart; the JSON file keeps them apart."""
    import json

    from bench.data.atomic import atomic_path
    from bench.data.csv_cells import formula_safe_frame, same_cell

    if path.lower().endswith(".json"):
        rows = [{k: (None if isinstance(v, float) and not math.isfinite(v) else v)
                 for k, v in row.items()} for row in frame.to_dict(orient="records")]
        if any(isinstance(r["qid"], int) and abs(r["qid"]) > 2**53 - 1 for r in rows):
            for r in rows:  # RFC 8259 §6: beyond 2**53 - 1 a JavaScript reader merges 2**53
                r["qid"] = str(r["qid"])  # and 2**53 + 1: every id as its text, one type
        with atomic_path(path) as tmp:
            Path(tmp).write_text(json.dumps(rows, indent=1, allow_nan=False) + "\n",
                                 encoding="utf-8")
        return
    if (two := same_cell(str(q) for q in frame["qid"])) is not None:
        first, qid, cell = two
        raise DataError(f"query ids {first!r} and {qid!r} would both be written "
                        f"{cell!r} in the CSV (a cell that starts a spreadsheet formula gets "
                        f"a leading \"'\"), which could not tell them apart: write "
                        f"--per-query FILE.json (ids kept exactly)", path=path)
    with atomic_path(path) as tmp:
        formula_safe_frame(frame).to_csv(tmp, index=False)


def _is_file(spec: str) -> bool:
    """Whether ``spec`` names an existing file; a value no file can be named (a part over
    ``NAME_MAX``: ``--run <300 letters>=r.txt``, a NUL byte) names none, where ``is_file``
    raised ``File name too long`` naming no option."""
    try:
        return Path(spec).is_file()
    except (OSError, ValueError):
        return False


def run_names(specs: list[str]) -> list[tuple[str, str]]:
    """``(name, path)`` of each ``--run``: ``NAME=PATH``, or a path named by its file stem.

    A value that is an existing file is a path even if it contains ``=``. Stems that collide get
    ``-2``, ``-3``, ... in order, skipping a name that is another run's own stem (``A.run``,
    ``A.txt``, ``A-2.run``: ``A``, ``A-3``, ``A-2``, so ``A-2`` is the file of that name); two explicit names that are equal are an error, and so is a
    file's stem that another ``--run`` gives as its explicit name (``--run b=r.txt --run b.txt``
    would print ``b`` for r.txt beside ``b-2`` for b.txt).
    """
    pairs: list[tuple[str, str, bool]] = []
    for spec in specs:
        name, sep, path = spec.partition("=")
        whole = _is_file(spec)
        if sep and not whole and not (name.strip() and path):
            # --run =r.txt, --run a=, --run ' '=r.txt: read as a file named '=r.txt' before
            raise ConfigError(f"--run {spec!r}: NAME=FILE needs a name before '=' and a file "
                              "after it (or give the file alone: its stem names the run)")
        if sep and name and path and not whole:
            pairs.append((name, path, True))
        else:
            pairs.append((Path(spec).stem or spec, spec, False))
    explicit = [n for n, _, given in pairs if given]
    if len(set(explicit)) != len(explicit):
        dup = next(n for n in explicit if explicit.count(n) > 1)
        raise ConfigError(f"--run name {dup!r} is given twice: names must differ")
    taken = set(explicit)
    clash = next(((n, p) for n, p, given in pairs if not given and n in taken), None)
    if clash is not None:
        named = next(p for n, p, given in pairs if given and n == clash[0])
        raise ConfigError(f"--run {clash[1]} would be named {clash[0]!r}, the name --run "
                          f"{clash[0]}={named} gives another file; label it: --run NAME={clash[1]}")
    out = []
    own = {n for n, _, _ in pairs}  # a made-up name never takes another run's own (A-2.run)
    for name, path, given in pairs:
        final = name
        k = 2
        while not given and (final in taken or (final != name and final in own)):
            final = f"{name}-{k}"
            k += 1
        taken.add(final)
        out.append((final, path))
    return out


def _compare(args: argparse.Namespace, names: list[str]) -> int:
    from bench.report.compare_runs import compare_runs

    pairs = run_names(args.run)
    runs = dict(pairs)
    profile = _profile_with_options(args, True)
    result = compare_runs(args.qrels, runs, metrics=names, profile=profile, missing=args.missing)
    _say_shared_stems(args.run, pairs)  # after the checks: an error stands alone
    if args.per_query is not None:
        write_per_query(result.per_query_frame(), args.per_query)
    print_comparison(result, args.format)
    return 0


def _say_shared_stems(specs: list[str], pairs: list[tuple[str, str]]) -> None:
    """A note naming the file of each run named by a file stem that another run shares
    (``x/run.txt`` and ``y/run.txt`` print as ``run`` and ``run-2``: no table said which file
    ``run-2`` was)."""
    stems = [Path(path).stem or path if spec == path else None
             for spec, (_, path) in zip(specs, pairs, strict=True)]
    shared = [(name, path) for stem, (name, path) in zip(stems, pairs, strict=True)
              if stem is not None and stems.count(stem) > 1]
    if shared:
        print(terminal_line("note: runs named by a file stem they share: " + ", ".join(
            f"{name} = {path}" for name, path in shared) + " (name them: --run NAME=FILE)"),
            file=sys.stderr)
