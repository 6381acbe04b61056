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
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench.benchmark.config import CONFIG_DIR, RunConfig, parse_seeds
from bench.benchmark.config_schema import TOP_SPECS, cli_int
from bench.benchmark.scoring import expand_metrics
from bench.commands.text import examples, plain
from bench.data.outputs import check_output_dir
from bench.errors import ConfigError
from bench.runners.params import param_spec
from bench.runners.registry import expand_models
from bench.runs.layout import RUN_INTO, RUN_SEALED, run_inputs, run_writes


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
    p.add_argument("--permute-check", action="store_true",
                   help="also re-evaluate every model with rows permuted inside queries "
                   "(writes permute.csv in the run directory)")
    p.add_argument("--strict", action="store_true",
                   help="refuse to train when a split check finds a problem (train rows repeated "
                        "in test, no relevant label, a label shift, constant features; see "
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
    p.add_argument("--engine", choices=("local", "dask"),
                   help="where the GBDTs train: this process (default) or a Dask cluster")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="with --engine dask: an existing scheduler (tcp://host:8786); default: a "
                   "local cluster on 127.0.0.1")
    p.add_argument("--workers", metavar="N",
                   help="with --engine dask and no --scheduler: local worker processes (2)")
    p.add_argument("--no-crosscheck", action="store_true", help="skip the cross-check")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=main)


def add_config_arguments(p: argparse.ArgumentParser) -> None:
    """The options shared by ``run`` and ``tune`` that build a RunConfig."""
    p.add_argument("--config", metavar="FILE.toml|NAME",
                   help="a run config (TOML), or the name of a shipped one: "
                   + ", ".join(sorted(x.stem.replace("_", "-") for x in CONFIG_DIR.glob("*.toml"))))
    p.add_argument("--dataset", metavar="NAME|PATH", help="catalogue name or path (default: synthetic)")
    p.add_argument("--models", metavar="M1,M2", help="comma-separated models or aliases "
                   "(lightgbm, xgboost, baselines, gbdt, all)")
    p.add_argument("--seeds", metavar="0,1,2", help="seeds (list or range 0-4)")
    p.add_argument("--metrics", metavar="LIST", help="reference metrics, e.g. ndcg@1,3,5,10,mrr")
    p.add_argument("--profile", help="reference-evaluator profile of metrics.csv (default ltrbench)")
    p.add_argument("--quick", action="store_true",
                   help="fewer, smaller trees (n_trees<=20, num_leaves<=15, patience 5)")
    p.add_argument("--n-trees", metavar="N", help="override params.n_trees")
    p.add_argument("--threads", metavar="N", help="override params.n_threads (0 = all cores)")
    p.add_argument("--data-dir", metavar="DIR", help="where catalogue datasets are looked up")
    p.add_argument("--no-cache", action="store_true",
                   help="parse LETOR text files again instead of reading <data dir>/cache")


def resolve_config_path(value: str) -> Path:
    """A config path, or a shipped config by name (``experiments-mslr30k``)."""
    p = Path(value)
    if p.is_file():
        return p
    a_path = p.suffix.lower() == ".toml" or "/" in value or value in (".", "..")
    if a_path and p.exists():  # a folder, a device, a FIFO named as the config file
        kind = "is a directory" if p.is_dir() else "is not a regular file"
        raise ConfigError(f"--config {value}: {kind}; expected a TOML file")
    shipped = CONFIG_DIR / f"{value.replace('-', '_')}.toml"
    if shipped.is_file():
        return shipped
    names = sorted(x.stem.replace("_", "-") for x in CONFIG_DIR.glob("*.toml"))
    raise ConfigError(f"no config file {value!r}; shipped configs: {', '.join(names)}")


def config_from_args(args: argparse.Namespace) -> RunConfig:
    """The RunConfig of ``--config`` (or the defaults) with the command-line overrides applied.

    Each option goes through the config's schema (:mod:`bench.benchmark.config_schema`), its
    error naming the option: ``--seeds 1.5`` is refused as ``seeds = [1.5]`` is in a file.
    """
    config = RunConfig.load(resolve_config_path(args.config)) if args.config else RunConfig()
    return _with_options(config, args)


def _with_options(config: RunConfig, args: argparse.Namespace) -> RunConfig:
    changes: dict[str, Any] = {}
    if args.dataset is not None:
        changes["dataset"] = args.dataset
    if args.models is not None:  # '' is refused (no models), not the default
        changes["models"] = expand_models(args.models, config.custom_refs)
    if args.seeds is not None:
        changes["seeds"] = parse_seeds(args.seeds, where="--seeds")
    if args.metrics is not None:
        changes["metrics"] = expand_metrics(args.metrics)
    if args.profile is not None:
        changes["profile"] = args.profile
    if args.quick:
        changes["quick"] = True
    if args.data_dir is not None:
        changes["data_dir"] = args.data_dir
    if getattr(args, "no_cache", False):
        changes["cache"] = False
    params = config.params
    for option, key in (("--n-trees", "n_trees"), ("--threads", "n_threads")):
        value = cli_int(getattr(args, key.replace("n_threads", "threads")), param_spec(key), option)
        if value is not None:
            params = params.with_overrides(**{key: value})
    changes["params"] = params
    for flag in ("permute_check", "permute_retrain", "strict"):
        if getattr(args, flag, False):
            changes[flag] = True
    if getattr(args, "timing", None):
        changes["timing"] = args.timing
    for key in ("timing_repeats", "workers"):
        value = cli_int(getattr(args, key, None), TOP_SPECS[key], f"--{key.replace('_', '-')}")
        if value is not None:
            changes[key] = value
    for key in ("engine", "scheduler", "device"):
        if getattr(args, key, None) is not None:
            changes[key] = getattr(args, key)
    if getattr(args, "no_crosscheck", False):
        changes["crosscheck"] = False
    return replace(config, **changes)


def main(args: argparse.Namespace) -> int:
    from bench.benchmark.pipeline import results_folder, run_benchmark
    from bench.benchmark.summary import summarize_run, summary_text

    resume = args.resume
    if isinstance(resume, str):
        run_dir = Path(resume)
        if args.config is None and (run_dir / "config.toml").is_file():
            args.config = str(run_dir / "config.toml")
        resume = run_dir
    args.out = results_folder(args.out, resume)
    check_output_dir(args.out, option="--out", inputs=run_inputs(args), writes=run_writes(args),
                     into=RUN_INTO, sealed=RUN_SEALED)
    config = config_from_args(args)
    run_dir = run_benchmark(
        config,
        out_dir=args.out,
        resume=resume,
        progress=not args.no_progress and args.format == "text",
    )
    summary = summarize_run(run_dir)
    if args.format == "json":
        json.dump(summary, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        from bench.report.story import story

        sys.stdout.write(summary_text(summary))
        sys.stdout.write(story(run_dir))
        sys.stdout.write(f"next: ltrbench report --out {args.out}  (leaderboard with intervals "
                         f"and plots in {args.out}/)\n")
    cc = summary.get("crosscheck")
    return 1 if cc is not None and cc.get("ok") is False else 0
