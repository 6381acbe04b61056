"""``ltrbench tune``: one Optuna study per model, the same budget for every model.

Each trial trains the model with sampled parameters (TPE by default, seeded; random or grid
with --sampler), prunes on the early-stopping curve (--pruner), and is scored by the reference
evaluator under the run's profile on the validation split (or on --cv K query folds of the
training split); the test split is never read. Writes ``<out>/tune/<dataset>-<time>/``:
``plan.json``, ``study.db`` (SQLite, one study per model), ``trials.csv`` / ``trials.parquet``
(as it goes), then ``best/<model>.toml``, ``best.toml`` (run configs with the best parameters,
ready for ``ltrbench run --config`` from any folder: their dataset path is relative to their own
folder, ``paths_relative_to = "config file"``), ``summary.json`` and ``complete``; ``plan.json``
and ``summary.json`` say what the options changed over ``--config FILE``. ``--resume``
continues a killed tune. ``--engine dask --workers N`` runs N trials at once on a local
loopback-only Dask cluster, each pinned to --threads threads (1 by default), with the same
budget (trials in total, or CPU seconds summed over the workers); parallel TPE is not
deterministic (one trial at a time is). The command parses; the tune is resolved once and run by
:func:`bench.benchmark.tune_run.tune_command`.
"""

from __future__ import annotations

import argparse
import json
import sys

from bench.commands.progress_option import add_no_progress, progress_wanted
from bench.commands.run_options import add_config_arguments, config_from_args
from bench.commands.text import ascii_float, examples, plain, shell_option
from bench.engines import engine_names
from bench.runs.layout import LOCAL_RESULTS, run_inputs


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "tune",
        help="tune GBDT models on Optuna with one budget (scored by the reference evaluator)",
        description=plain(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=examples(
            "ltrbench tune --dataset lightgbm-lambdarank --models lightgbm,xgboost "
            "--budget-trials 50",
            "ltrbench tune --models catboost --budget-cpu-s 600 --cv 5",
            'ltrbench tune --model lightgbm --grid "num_leaves=15,31,63;learning_rate=0.05,0.1"',
            "ltrbench tune --models lightgbm,xgboost --budget-trials 40 --engine dask --workers 4",
        ),
    )
    add_config_arguments(p)
    p.add_argument("--model", help="one model to tune (the same as --models with one name)")
    p.add_argument("--budget-trials", metavar="N", help="trials per model (default 20, or the "
                   "size of --grid)")
    p.add_argument("--budget-cpu-s", metavar="S", type=ascii_float,
                   help="CPU seconds per model instead of a number of trials")
    p.add_argument("--sampler", choices=("tpe", "random", "grid"),
                   help="Optuna sampler (default tpe; grid with --grid)")
    p.add_argument("--pruner", choices=("none", "median", "halving"), default="median",
                   help="prune on the early-stopping curve (default median)")
    p.add_argument("--grid", metavar="SPACE",
                   help='a grid instead of the declared spaces, e.g. "num_leaves=15,31;'
                   'learning_rate=0.05,0.1"')
    p.add_argument("--space", metavar="FILE.toml", dest="space_file",
                   help="search spaces: one [<library>] or [<model>] table each")
    p.add_argument("--folds", dest="letor_folds", metavar="K", help=argparse.SUPPRESS)
    p.add_argument("--cv", dest="cv", metavar="K",
                   help="score on K query folds of the training split (default: the "
                   "validation split)")
    p.add_argument("--use", choices=("train", "train+vali"), default="train",
                   help="which splits --cv folds are made from (never test)")
    p.add_argument("--seed", default="0", help="seed of the sampler, the folds and the models")
    p.add_argument("--storage", metavar="URL", help="an Optuna storage URL (default: study.db "
                   "in the tune folder)")
    p.add_argument("--resume", nargs="?", const="", metavar="FOLDER",
                   help="continue a killed tune (default: the newest unfinished one)")
    p.add_argument("--engine", choices=engine_names(),
                   help="where trials run: one at a time in this process (default) or side by "
                   "side on a local Dask cluster")
    p.add_argument("--workers", metavar="N",
                   help="with --engine dask: trials at once, one per local worker process (2)")
    p.add_argument("--out", default=LOCAL_RESULTS, metavar="DIR")
    p.add_argument("--format", choices=("text", "json"), default="text")
    add_no_progress(p)
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from bench.benchmark.tune_run import DEFAULT_TUNE_MODEL, TuneRequest, tune_command
    from bench.errors import ConfigError

    if args.letor_folds is not None:
        raise ConfigError(f"--folds {args.letor_folds}: tune searches on one split (--folds picks "
                          "LETOR folds in ltrbench run); K query folds of the training split: --cv K")
    if args.seeds is not None:  # tune has one seed: which would win was not said
        raise ConfigError(f"--seeds {args.seeds!r}: tune trains every trial with one seed, --seed "
                          f"S (default 0; the sampler's and the folds' too); --seeds is for "
                          "ltrbench run")
    if args.model is not None and args.models is not None:
        raise ConfigError(f"--model {args.model} and --models {args.models}: give one")
    if args.model is not None and "," in args.model:
        raise ConfigError(f"unknown model {args.model!r}: --model takes one model (several: "
                          "--models M1,M2)")
    if args.models is None:
        args.models = args.model if args.model is not None or args.config else DEFAULT_TUNE_MODEL
    request = TuneRequest(grid=args.grid, model=args.model, space_file=args.space_file,
                          budget_trials=args.budget_trials, budget_cpu_s=args.budget_cpu_s,
                          sampler=args.sampler, pruner=args.pruner, cv=args.cv, seed=args.seed,
                          use=args.use, storage=args.storage, resume=args.resume, out=args.out,
                          inputs=run_inputs(args), threads=args.threads)
    outcome = tune_command(request, lambda: config_from_args(args),
                           show_progress=progress_wanted(args))
    summary = outcome.summary
    if args.format == "json":
        json.dump(summary, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    models = summary["models"]
    first = next(iter(models.values()))
    print(f"{summary['dataset']}: {len(models)} model{'s' if len(models) != 1 else ''}, "
          f"budget {first['budget']['amount']} {first['budget']['kind'].replace('_', ' ')} each, "
          f"sampler {first['sampler']} (seed {first['seed']}), pruner {first['pruner']}")
    if summary["workers"] > 1:
        print(f"engine {summary['engine']}: {summary['workers']} trials at once, "
              f"{summary['threads_per_trial']} thread(s) each; parallel TPE is not "
              "deterministic (trials one at a time are)")
    print(f"scores: {summary['metric']} by the reference evaluator under profile "
          f"{summary['profile']!r}, on the {summary['scored_on']}")
    for name, m in models.items():
        best = "no complete trial" if m["best_value"] is None else \
            f"best {m['best_value']:.4f} (trial {m['best_trial']}) {json.dumps(m['best_params'])}"
        print(f"  {name}: {m['trials_run']} trials ({m['complete']} complete, {m['pruned']} "
              f"pruned, {m['failed']} failed), {m['cpu_s']:.1f} CPU s; {best}")
        for note in m.get("at_bounds", ()):
            print(f"    note: {note}")
    print(f"run them: ltrbench run {shell_option('--config', outcome.folder / 'best.toml')}")
    return 0
