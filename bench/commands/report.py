"""``ltrbench report [--runs DIR|ID ...] [--all] [--out results/]``: leaderboards and plots.

Writes ``<out>/leaderboard.{md,csv,json,tex}`` (one table per dataset, from the newest finished
run holding it, or from the runs named; ``--all``: one per run) and the plots
``<out>/<dataset>/*.png`` as one set, removing the earlier report's files that are no longer
part of it; it says on stderr which run it used for each dataset and which it skipped. See
:mod:`bench.report.select` and :mod:`bench.report.leaderboard`.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from bench.benchmark.progress import progress_steps
from bench.commands.progress_option import add_no_progress, progress_wanted
from bench.commands.text import ascii_int, examples, terminal_line
from bench.data.outputs import check_output_dir
from bench.metrics.families import DEFAULT_METRICS, PRIMARY_METRIC, refuse_no_quality
from bench.report.build import LeaderboardOptions
from bench.report.leaderboard import write_leaderboard
from bench.runs.layout import LOCAL_RESULTS, PUBLISHED_RESULTS


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "report",
        help="leaderboards (md, csv, json, tex) and plots from run directories",
        description="Turn run directories into leaderboard.{md,csv,json,tex} and plots (in "
                    f"{LOCAL_RESULTS}/ unless --out or --publish).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=examples(
            "ltrbench report",
            "ltrbench report --runs results/local/runs --metrics ndcg@10,map@10 --no-plots",
            "ltrbench report --runs results/local/runs/20260101-120000-mslr-web10k-ab12cd --all",
            "ltrbench report --publish",
            "ltrbench report --tuned results/local/tune/NAME --runs DEFAULT_RUN TUNED_RUN --html",
        ),
    )
    parser.add_argument(
        "--runs",
        nargs="+",
        metavar="DIR",
        help="the runs to report: run directories or run ids (under <out>/runs), each used "
             "as named; or folders of runs, where the newest finished run of each dataset is "
             "used (default: <out>/runs). The runs found, used and skipped are listed",
    )
    parser.add_argument("--all", action="store_true", dest="every",
                        help="one table per run instead of one per dataset")
    parser.add_argument("--out", default=None,
                        help=f"output folder (default: {LOCAL_RESULTS}, which git ignores; with "
                             f"--publish: {PUBLISHED_RESULTS})")
    parser.add_argument("--publish", action="store_true",
                        help=f"write the committed leaderboards in {PUBLISHED_RESULTS}/ from the "
                             f"runs in {PUBLISHED_RESULTS}/runs (maintainers; without it the "
                             "committed files are never touched)")
    parser.add_argument(
        "--metrics",
        default=",".join(DEFAULT_METRICS),
        help="comma-separated metric columns (default: %(default)s)",
    )
    parser.add_argument("--primary", default=None,
                        help=f"metric of the paired tests (default: {PRIMARY_METRIC}, or the first "
                        "of --metrics when they leave it out)")
    parser.add_argument("--bootstrap", type=ascii_int, default=1000, help="bootstrap resamples")
    parser.add_argument(
        "--permutations", type=ascii_int, default=10_000, help="randomization-test sign flips"
    )
    parser.add_argument("--seed", type=ascii_int, default=0, help="seed of the resampling")
    parser.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    parser.add_argument("--html", action="store_true",
                        help="also write leaderboard.html: one self-contained page (no network) "
                             "with the tables, cross-checks, a per-query drill-down, plots, "
                             "folds and manifests")
    parser.add_argument("--drill", default=None, metavar="A,B",
                        help="with --html: the two models of the per-query drill-down "
                             "(default: the best and the runner-up)")
    parser.add_argument("--include-unfinished", action="store_true",
                        help="also use runs whose manifest has no finish time (killed, failed or "
                             "still running); their tables say so. Default: skip them")
    parser.add_argument(
        "--format", choices=("table", "json"), default="table",
        help="print the written paths (table) or the leaderboard document (json)",
    )
    add_no_progress(parser)
    parser.add_argument(
        "--tuned", default=None, metavar="TUNE_DIR",
        help="the tuned leaderboard of a tune folder (DIR/tune/<name>/): two runs of its "
             "dataset, the defaults and 'ltrbench run --config TUNE_DIR/best.toml' (same splits "
             "and seeds; --runs DEFAULT TUNED, else the newest of each in <out>/runs), joined "
             "per query into one table of default and tuned rows; "
             "writes leaderboard-tuned-<dataset>.{md,csv,json,tex} and tuned-<dataset>/ (the "
             "best-so-far figure, parameter importances, the trials table)")
    parser.set_defaults(func=run)


def _metrics_and_primary(args: argparse.Namespace) -> tuple[tuple[str, ...], str | None]:
    """``--metrics`` and ``--primary`` as the runs' canonical names (``NDCG@10`` is ``ndcg@10``;
    an unknown name or another tool's spelling is refused before any run is read), and the
    resampling options in range."""
    from bench.benchmark.scoring import expand_metrics, run_metrics
    from bench.errors import ConfigError
    from bench.report.build import MOST_BOOTSTRAP, MOST_PERMUTATIONS

    for option, key, most in (("--bootstrap", "bootstrap", MOST_BOOTSTRAP),
                              ("--permutations", "permutations", MOST_PERMUTATIONS)):
        value = getattr(args, key)
        if not 1 <= value <= most:
            raise ConfigError(f"{option} {value}: expected an integer from 1 to {most:,}")
    if not 0 <= args.seed < 2**32:
        raise ConfigError(f"--seed {args.seed}: expected an integer from 0 to {2**32 - 1}")
    metrics = run_metrics(str(args.metrics), "--metrics")  # 'hit@3' is 'hits@3': said
    if args.primary is None:  # the default: ndcg@10, or what the runs hold (said in the notes)
        return metrics, None
    primary = expand_metrics(str(args.primary))
    if len(primary) != 1:
        raise ConfigError(f"--primary {args.primary}: expected one metric, got {len(primary)}")
    refuse_no_quality(primary[0], str(args.primary), "--primary")  # RBP's residual, Judged@k
    return metrics, primary[0]


def _drill_names(text: str) -> tuple[str, str]:
    """``--drill A,B`` split: two different, non-empty model names, else a one-line error."""
    from bench.errors import ConfigError

    names = [s.strip() for s in text.split(",")]
    if len(names) != 2 or not all(names) or names[0] == names[1]:
        raise ConfigError(f"--drill {text!r}: expected two different model names, A,B")
    return names[0], names[1]


def _drill_pair(text: str | None, doc: dict[str, Any]) -> tuple[str, str] | None:
    """``--drill A,B``: two models of the report, else a one-line error naming the models."""
    from bench.errors import ConfigError

    if text is None:
        return None
    names = _drill_names(text)
    known = {str(r["model"]) for t in doc["tables"] for r in t["rows"]}
    missing = [n for n in names if n not in known]
    if missing:
        raise ConfigError(f"--drill: {', '.join(missing)} not in the report; models: "
                          f"{', '.join(sorted(known))}")
    return names


def _write_html(args: argparse.Namespace, out: Path, doc: dict[str, Any]) -> Path:
    """``leaderboard.html`` beside the other files, with the fold tables of ``out/folds/``."""
    from bench.report.folds import fold_docs_with_notes
    from bench.report.html import write_html

    folds = fold_docs_with_notes(out / "folds")  # a fold run gone or changed since: said
    for note in (n for d in folds for n in d["notes"]):
        print(terminal_line(f"report: {note}"), file=sys.stderr)
    return write_html(doc, out / "leaderboard.html", pair=_drill_pair(args.drill, doc),
                      folds=folds)


def run(args: argparse.Namespace) -> int:
    """``ltrbench report``; an error quoting ``--primary`` or ``--metrics`` quotes the names as
    typed (``Fallout@10``, not the canonical ``fallout@10`` the runs are read with)."""
    from bench.errors import LtrbenchError

    try:
        return _report(args)
    except LtrbenchError as exc:
        text = str(exc)
        for option, typed in (("--primary", args.primary), ("--metrics", args.metrics)):
            start = text.find(f"{option} ")
            if typed is None or start < 0 or ":" not in text[start:]:
                continue
            end = text.index(":", start)
            quoted = text[start:end]  # "--metrics fallout@10, ndcg@3"
            for name in str(typed).split(","):
                canonical = _canonical(name)
                if canonical is not None and canonical != name.strip():
                    quoted = re.sub(rf"(?<=[ ,]){re.escape(canonical)}(?=,|$)", name.strip(),
                                    quoted)
            text = text[:start] + quoted + text[end:]
        if text != str(exc):
            exc.args = (text, *exc.args[1:])
        raise


def _canonical(typed: str) -> str | None:
    from bench.benchmark.scoring import expand_metrics
    from bench.errors import LtrbenchError

    try:
        names = expand_metrics(str(typed).strip())
    except LtrbenchError:
        return None
    return names[0] if len(names) == 1 else None


def _report(args: argparse.Namespace) -> int:
    if args.drill is not None:  # said before any statistics are computed
        from bench.errors import ConfigError

        if not args.html:
            raise ConfigError("--drill chooses the drill-down of the HTML page: add --html")
        _drill_names(args.drill)
    if args.out is None:
        args.out = PUBLISHED_RESULTS if args.publish else LOCAL_RESULTS
    if not str(args.out).strip():
        from bench.errors import ConfigError

        raise ConfigError("--out '': empty; expected a folder (default: "
                          f"{LOCAL_RESULTS})")
    from bench.datasets.sealed import SEALED_DATASETS, dataset_folders

    out = check_output_dir(args.out, option="--out", inputs=[
        *(("--runs", r) for r in args.runs or ()), *dataset_folders(around=args.out),
        *((("--tuned", args.tuned),) if args.tuned is not None else ())],
        sealed=SEALED_DATASETS)
    runs = args.runs or [out / "runs"]
    if args.html:  # said before any statistics, as the other files' owners are
        from bench.report.leaderboard import earlier_report_files, refuse_foreign_files

        refuse_foreign_files(out, earlier_report_files(out), ("leaderboard.html",))
    metrics, primary = _metrics_and_primary(args)
    if args.tuned is not None:
        return _run_tuned(args, out, metrics, primary)
    options = LeaderboardOptions(
        metrics=metrics,
        primary=primary,
        bootstrap_resamples=args.bootstrap,
        randomization_resamples=args.permutations,
        seed=args.seed,
    )
    with progress_steps(progress_wanted(args)) as step:
        written = write_leaderboard(runs, args.out if Path(args.out) == out else out,  # as typed
                                    options=options, plots=not args.no_plots,
                                    include_unfinished=args.include_unfinished, progress=step,
                                    every=args.every, runs_root=out / "runs")
    for line in written["selection"].lines():
        print(terminal_line(f"report: {line}"), file=sys.stderr)
    for run_dir in written["skipped"]:
        print(terminal_line(f"report: skipped unfinished run {run_dir.path} (no finish time in "
                            "its manifest; --include-unfinished to use it)"), file=sys.stderr)
    for path in written["removed"]:
        print(terminal_line(f"report: removed {path} (written by an earlier report, not part "
                            "of this one)"), file=sys.stderr)
    doc = written["document"]
    # --format json too: it wrote no page (the earlier report's page removed), exit 0
    html = _write_html(args, out, doc) if args.html else None
    if args.format == "json":
        json.dump(doc, sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
        return 0
    from bench.data.look_alike import shown_name

    for table, chosen in zip(doc["tables"], doc["selection"], strict=True):
        print(terminal_line(
            f"{shown_name(table['dataset'])}: {len(table['rows'])} models from run {table['run_id']} "
            f"(profile {table['profile']}, best {table['best_model']}; {chosen['why']}; "
            f"{len(chosen['skipped'])} other run(s) of this dataset skipped)"
        ))
    for key in ("md", "csv", "json", "tex"):
        print(terminal_line(f"wrote {written[key]}"))
    if html is not None:
        print(terminal_line(f"wrote {html}"))
    for p in written["plots"]:
        print(terminal_line(f"wrote {p}"))
    return 0


def _run_dir(given: str, out: Path) -> Path:
    """A ``--runs`` value of ``--tuned``: a run folder as given, else a run id under
    ``<out>/runs``; a file, or a name found in neither place, is a ConfigError naming both."""
    from bench.errors import ConfigError

    here, there = Path(given), out / "runs" / given
    for place in (here, there):
        if place.is_dir():
            return place
    if here.exists() or there.exists():
        raise ConfigError(f"--runs {given}: {here if here.exists() else there} is a file, not a "
                          "run directory (runs/<id>/ with metrics.csv and config.toml)")
    raise ConfigError(f"--runs {given}: no run directory there nor at {there}")


def _run_tuned(args: argparse.Namespace, out: Path, metrics: tuple[str, ...], primary: str | None) -> int:
    """``--tuned TUNE_DIR --runs DEFAULT TUNED``: the tuned report
    (:func:`bench.report.tuning_report.write_tuned_report`)."""
    from bench.errors import ConfigError
    from bench.report.tuning_report import write_tuned_report

    if args.every or args.drill is not None:
        raise ConfigError("--tuned makes one table of default and tuned rows: --all and --drill "
                          "do not apply")
    if args.runs is not None and len(args.runs) != 2:
        raise ConfigError(f"--tuned TUNE_DIR with --runs: expected two runs, DEFAULT_RUN "
                          f"TUNED_RUN (the defaults and 'ltrbench run --config "
                          f"TUNE_DIR/best.toml', same dataset, splits and seeds), got "
                          f"{len(args.runs)}")
    from bench.report.tuning_report import find_pair

    runs = ([_run_dir(str(r), out) for r in args.runs]
            if args.runs is not None else find_pair(args.tuned, out / "runs"))
    options = LeaderboardOptions(metrics=metrics, primary=primary,
                                 bootstrap_resamples=args.bootstrap,
                                 randomization_resamples=args.permutations, seed=args.seed)
    written = write_tuned_report(args.tuned, list(runs), out, options=options,
                                 plots=not args.no_plots, html=args.html)
    doc = written["document"]
    if args.format == "json":
        json.dump(doc, sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
        return 0
    for r in doc["tuned"][0]["versus_default"]:
        p = r["p_randomization_holm"]
        print(terminal_line(f"{r['model']}: {r['metric']} default {r['default']:.4f} -> tuned "
                            f"{r['tuned']:.4f} (Holm p {'n/a' if p is None else f'{p:.3g}'})"
                            if r["default"] is not None and r["tuned"] is not None
                            else f"{r['model']}: no paired values"))
    for note in doc["tuned"][0]["notes"]:
        print(terminal_line(f"report: {note}"), file=sys.stderr)
    for path in written["files"]:
        print(terminal_line(f"wrote {path}"))
    return 0
