"""``ltrbench tune``: group-aware cross-validated grid or random search for one GBDT model.

Folds never split a query; selection uses the held-out folds of the training split only (see
:mod:`bench.benchmark.tune`). Writes ``<out>/tune/<dataset>-<model>-<time>/`` with ``folds.csv``,
``summary.csv`` and ``best.toml`` (a run config with the winning parameters as
``[model_params.<model>]``, ready for ``ltrbench run --config``). The command parses; the
tune is resolved once and run by :func:`bench.benchmark.tune_run.tune_command`.
"""

from __future__ import annotations

import argparse
import json
import sys

from bench.commands.run_options import add_config_arguments, config_from_args
from bench.commands.text import examples, plain
from bench.runs.layout import LOCAL_RESULTS, run_inputs


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "tune",
        help="group-aware cross-validated grid/random search (folds never split a query)",
        description=plain(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=examples(
            'ltrbench tune --model lightgbm --grid "num_leaves=15,31,63;learning_rate=0.05,0.1"',
            'ltrbench tune --model xgboost --dataset ml-latest-small --grid "max_depth=4,6,8" '
            "--random 2 --folds 5",
        ),
    )
    add_config_arguments(p)
    p.add_argument("--model", help="the model to tune (default lightgbm-lambdarank); one "
                   "LightGBM, XGBoost or CatBoost model (--models is for ltrbench run)")
    p.add_argument("--grid", required=True, metavar="SPACE",
                   help='search space, e.g. "num_leaves=15,31,63;learning_rate=0.05,0.1"')
    p.add_argument("--random", metavar="N",
                   help="random search: N distinct combinations of the grid (default: full grid)")
    p.add_argument("--folds", default="3", help="number of query folds (default 3)")
    p.add_argument("--seed", default="0", help="seed of the folds, the search and the models")
    p.add_argument("--use", choices=("train", "train+vali"), default="train",
                   help="which splits the folds are made from (never test)")
    p.add_argument("--out", default=LOCAL_RESULTS, metavar="DIR")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from bench.benchmark.tune_run import TuneRequest, tune_command

    request = TuneRequest(grid=args.grid, model=args.model, models=args.models,
                          random=args.random, folds=args.folds, seed=args.seed, use=args.use,
                          out=args.out, inputs=run_inputs(args))
    outcome = tune_command(request, lambda: config_from_args(args),
                           show_progress=not args.no_progress and args.format == "text")
    result, plan, folder = outcome.result, outcome.plan, outcome.folder
    if args.format == "json":
        json.dump(outcome.as_dict(), sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    print(f"{plan.spec.name} on {outcome.dataset}: {len(result.summary)} candidates x "
          f"{plan.n_folds} query folds")
    for r in result.summary.head(10).itertuples():
        std = "" if r.std != r.std else f" ± {r.std:.4f}"
        print(f"  {r.mean:.4f}{std}  best iteration {r.best_iteration:.0f}  {r.params}")
    print(f"best: {json.dumps(result.best_params)}  ({result.select_metric} {result.best_score:.4f})")
    print(f"scores: {result.selection(plan.config.profile)}")
    print(f"run it: ltrbench run --config {folder / 'best.toml'}")
    return 0
