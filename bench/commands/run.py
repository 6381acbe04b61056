"""``ltrbench run``: train, evaluate and cross-check every model × seed; write
``results/local/runs/<run-id>/`` (``--out DIR``: ``DIR/runs/<run-id>/``).

With no arguments it runs the embedded ``synthetic`` dataset with the default models and seeds.
Options override the config file (``--config FILE.toml``, or the name of a config shipped in
``bench/benchmark/configs``, e.g. ``experiments-mslr30k``). Exit status: 0, or 1 when the
cross-check finds a mismatch that no convention explains; bad input exits 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bench.commands.progress_option import add_no_progress, progress_wanted
from bench.commands.run_options import add_config_arguments, config_from_args
from bench.commands.text import examples, plain, shell_option
from bench.engines import engine_names
from bench.runs.layout import RUN_INTO, RUN_SEALED, run_inputs, run_writes
from bench.streams import verdict

if TYPE_CHECKING:
    from bench.benchmark.config import RunConfig


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "run",
        help="train and evaluate LightGBM/XGBoost/CatBoost rankers and baselines over seeds",
        description=plain(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=examples(
            "ltrbench run",
            "ltrbench run --dataset ml-latest-small --models lightgbm,xgboost,catboost --seeds 0,1,2",
            "ltrbench run --config ohsumed --quick --format json",
            "ltrbench run --dataset ohsumed --folds all --models lightgbm,xgboost --quick",
        ),
    )
    add_config_arguments(p)
    p.add_argument("--out", default=None, metavar="DIR",
                   help="results folder; the run goes to DIR/runs/<run-id>/ (default: results/local, "
                        "which git ignores; results/ holds the committed runs; with --resume "
                        "RUN_DIR: the folder that run lies in)")
    p.add_argument("--resume", nargs="?", const=True, default=False, metavar="RUN_DIR",
                   help="continue the latest unfinished run of this config, or RUN_DIR "
                   "(with its own config.toml)")
    p.add_argument("--folds", metavar="all|1,3,5",
                   help="run each of these folds of a LETOR dataset (Fold1..Fold5/, or built "
                        "from S1..S5.txt by the published rotation) and write the fold table: "
                        "per-fold values, mean ± std over folds, intervals and paired tests over "
                        "all test queries together (DIR/folds/)")
    p.add_argument("--permute-check", action="store_true",
                   help="also re-evaluate every model with rows permuted inside queries "
                   "(writes permute.csv in the run directory)")
    p.add_argument("--strict", action="store_true",
                   help="refuse to train when a split check finds a problem (train rows repeated "
                        "in test, no relevant label, a label shift, every feature constant, "
                        "one document a query, features unseen in train; see "
                        "bench.data.split_checks); without it they are warnings in the output "
                        "and the manifest")
    p.add_argument("--permute-retrain", action="store_true",
                   help="with --permute-check: also retrain the GBDT models on permuted rows")
    p.add_argument("--timing", choices=("inprocess", "isolated"),
                   help="time each fit in this process (default) or each (model, seed) in a fresh "
                   "process, so the libraries' thread pools never share one")
    p.add_argument("--timing-repeats", metavar="N",
                   help="fit each (model, seed) N times; fit time = median, with its range")
    p.add_argument("--device", choices=("cpu", "cuda"),
                   help="train the GBDTs on the CPU (default) or an NVIDIA GPU (XGBoost "
                        "device=cuda, LightGBM device_type=cuda); checked before any data are "
                        "loaded: no GPU or a library without CUDA is an error naming what to "
                        "install, never a silent CPU run")
    p.add_argument("--engine", choices=engine_names(),
                   help="where the GBDTs train: this process (default) or a Dask cluster")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="with --engine dask: an existing scheduler (tcp://host:8786); default: a "
                   "local cluster on 127.0.0.1")
    p.add_argument("--workers", metavar="N",
                   help="with --engine dask and no --scheduler: local worker processes (2)")
    p.add_argument("--no-crosscheck", action="store_true", help="skip the cross-check")
    add_no_progress(p)
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from bench.benchmark.pipeline import results_folder, run_benchmark
    from bench.benchmark.summary import summarize_run, summary_text
    from bench.data.outputs import check_output_dir

    if args.out is not None and not args.out.strip():
        from bench.errors import ConfigError

        raise ConfigError("--out: an empty folder name; give a folder (--out . for this one)")
    resume = args.resume
    if isinstance(resume, str):
        resume = Path(resume)
    typed, args.out = args.out, results_folder(args.out, resume)  # a run's manifest read
    if isinstance(resume, Path) and args.config is None:
        args.config = _own_config(resume)
    shown = typed if typed is not None and Path(typed) == args.out else args.out  # as typed
    from bench.datasets.sealed import SEALED_DATASETS, dataset_folders
    from bench.runs.naming import crosscheck_folders

    named = () if getattr(args, "no_crosscheck", False) else crosscheck_folders(*(
        p for o, p in run_inputs(args) if o in RUN_SEALED))  # <out>/<dataset>/crosscheck.*
    check_output_dir(shown, option="--out", inputs=[*run_inputs(args), *dataset_folders(
        getattr(args, "data_dir", None), around=shown, into=(*RUN_INTO, *named))],
        writes=run_writes(args), into=RUN_INTO, sealed=(*RUN_SEALED, *SEALED_DATASETS))
    folds = _folds(args)
    config = config_from_args(args)
    if folds is not None:
        return _run_folds(args, config, folds)
    from bench.benchmark.progress import plain_lines

    progress = progress_wanted(args)
    run_dir = run_benchmark(
        config,
        out_dir=args.out,
        resume=resume,
        progress=progress,
        lines=plain_lines(progress, "run"),  # a CI log: one line per model and seed
    )
    summary = summarize_run(run_dir)
    cc = summary.get("crosscheck")
    status = verdict(1 if cc is not None and cc.get("ok") is False else 0)  # '| head' keeps it
    if args.format == "json":
        json.dump(summary, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        from bench.report.story import story

        sys.stdout.write(summary_text(summary))
        sys.stdout.write(story(run_dir))
        sys.stdout.write(f"next: ltrbench report {shell_option('--out', args.out)}  "
                         f"(leaderboard with intervals and plots in {args.out}/)\n")
    return status


def _own_config(run_dir: Path) -> str:
    """The ``config.toml`` a resumed run directory was started with (``--resume RUN_DIR``
    without ``--config``); one that is missing or not a regular file is refused by name:
    comparing the default options with the run's recorded hash said only "its config differs"."""
    from bench.errors import ConfigError

    own = run_dir / "config.toml"
    if not own.is_file():
        what = "missing" if not os.path.lexists(own) else "not a regular file"
        raise ConfigError(f"--resume {run_dir}: its config.toml is {what} ({own}): the run's "
                          "own configuration is gone (the run directory was changed outside "
                          "ltrbench); give it with --config FILE, or start a new run")
    return str(own)


def _folds(args: argparse.Namespace) -> tuple[int, ...] | None:
    """``--folds`` parsed at the door (``None`` without it); refused with ``--resume``."""
    if args.folds is None:
        return None
    from bench.datasets.folds import parse_folds
    from bench.errors import ConfigError

    if args.resume is not True and args.resume:  # --resume RUN_DIR: one run, not five
        raise ConfigError("--folds with --resume RUN_DIR: each fold is a run of its own; give "
                          "--resume alone to go on with each fold's latest run of this config "
                          "under --out (a fold done is used again), or RUN_DIR without --folds")
    return parse_folds(args.folds)


def _run_folds(args: argparse.Namespace, config: RunConfig, folds: tuple[int, ...]) -> int:
    """Each fold as a run, then the fold table of the primary metric on the terminal."""
    from bench.benchmark.folds import run_folds
    from bench.benchmark.summary import summarize_run
    from bench.report.folds import render_fold_markdown

    result = run_folds(config, folds, out_dir=args.out, resume=args.resume is True,
                       progress=progress_wanted(args))
    summaries = [summarize_run(r) for r in result.runs]
    failed = [s for s in summaries if (s.get("crosscheck") or {}).get("ok") is False]
    status = verdict(1 if failed else 0)  # '| head' keeps it
    if args.format == "json":
        from bench.data.jsonio import read_json_object

        doc = read_json_object(result.json, "the fold table as 'run --folds' writes it")
        json.dump({**doc, "fold_runs": summaries}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        primary = next((t for t in result.tables if t.metric == config.select_metric),
                       result.tables[0])
        sys.stdout.write(render_fold_markdown(primary))
        skipped = {f"{key.rsplit('-seed', 1)[0]} {why}" for sm in summaries
                   for key, why in sm["status"].items() if str(why).startswith("skipped")}
        for line in sorted(skipped):  # a model left out of every fold is said, as run says it
            sys.stdout.write(f"{line}\n")
        for run in result.runs:
            sys.stdout.write(f"fold run: {run}\n")
        sys.stdout.write(f"fold tables (every metric): {result.markdown} and {result.json.name}\n")
    return status
