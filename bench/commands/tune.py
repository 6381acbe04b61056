"""``ltrbench tune``: group-aware cross-validated grid or random search for one GBDT model.

Folds never split a query; selection uses the held-out folds of the training split only (see
:mod:`bench.benchmark.tune`). Writes ``<out>/tune/<dataset>-<model>-<time>/`` with ``folds.csv``,
``summary.csv`` and ``best.toml`` (a run config with the winning parameters as
``[model_params.<model>]``, ready for ``ltrbench run --config``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from dataclasses import replace
from typing import Any

from bench.benchmark.progress import progress_steps
from bench.commands.run_options import add_config_arguments, config_from_args
from bench.commands.text import examples, plain
from bench.errors import ConfigError
from bench.runs.layout import LOCAL_RESULTS, run_inputs
from bench.runs.naming import dataset_slug


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


def _one_model(args: argparse.Namespace) -> str:
    """The model ``--model`` names (an alias such as ``lightgbm`` names its model); ``--models``
    (a run's option) is refused rather than ignored, so that no other model is tuned."""
    from bench.runners.registry import GBDT_LIBRARIES, expand_models, get_model

    if args.models:
        hint = f": use --model {args.models}" if args.model is None else ""
        raise ConfigError(f"--models {args.models!r}: tune takes one model with --model (--models "
                          f"is for ltrbench run){hint}")
    model = args.model or "lightgbm-lambdarank"
    named = expand_models((model,))
    if len(named) != 1:
        raise ConfigError(f"tune takes one model; {model!r} names {len(named)}: "
                          f"{', '.join(named)}")
    if get_model(named[0]).library not in GBDT_LIBRARIES:
        raise ConfigError(f"--model {model}: only GBDT models (LightGBM, XGBoost, CatBoost) are "
                          "tuned; it has no parameters to tune")
    return named[0]


def _search_options(args: argparse.Namespace) -> dict[str, Any]:
    """``--random``, ``--folds`` and ``--seed`` checked as integers in range (``--random 0`` is
    not the full grid); ``args.folds`` / ``args.seed`` become integers."""
    from bench.benchmark.config_schema import SEED, cli_int
    from bench.data.toml import Spec

    n_iter = cli_int(args.random, Spec("--random", int, 1, 1_000_000), "--random")
    args.folds = cli_int(args.folds, Spec("--folds", int, 2, 10_000), "--folds")
    args.seed = cli_int(args.seed, SEED, "--seed")
    return {"search": "grid" if n_iter is None else "random", "n_iter": n_iter or 0,
            "seed": args.seed}


def main(args: argparse.Namespace) -> int:
    from bench.benchmark.pipeline import load_splits
    from bench.benchmark.tune import (
        candidates,
        check_candidates,
        check_tune_out,
        parse_space,
        tune,
        write_tune_folder,
    )
    from bench.runners.device import check_device

    check_tune_out(args.out, run_inputs(args))  # never into the dataset folder, as run
    args.model = _one_model(args)
    search = _search_options(args)
    config = config_from_args(args)
    if args.model not in config.models:
        config = replace(config, models=(args.model,))
    config = config.resolved()
    space = parse_space(args.grid)
    base = config.params_for(args.model, args.seed)
    check_candidates(args.model, candidates(space, **search), base)  # before any data are read
    check_device(config.device, {config.model_spec(args.model).library})
    with progress_steps(not args.no_progress and args.format == "text") as step:
        splits = load_splits(config.dataset, data_dir=config.data_dir, cache=config.cache,
                             progress=lambda text: step(f"loading {text}", 0, 0))
        result = tune(
            splits,
            args.model,
            space,
            base=base,
            **search,
            n_folds=args.folds,
            select_metric=config.select_metric,
            eval_at=config.eval_at,
            use=args.use,
            progress=step,
        )
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    best = replace(
        config,
        models=(args.model,),
        model_params={**config.model_params,
                      args.model: {**config.model_params.get(args.model, {}), **result.best_params}},
    )
    folder = write_tune_folder(args.out, f"{dataset_slug(splits.name)}-{args.model}-{stamp}", {
        "folds.csv": result.folds.to_csv(index=False),
        "summary.csv": result.summary.to_csv(index=False),
        "best.toml": best.to_toml(
            header=f"ltrbench tune: best of {len(result.summary)} candidates by "
            f"{result.selection(config.profile)} ({result.best_score:.6f})")})
    doc = {**result.as_dict(), "run_profile": config.profile, "dataset": splits.name, "folder": str(folder),
           "best_config": str(folder / "best.toml")}
    if args.format == "json":
        json.dump(doc, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    print(f"{args.model} on {splits.name}: {len(result.summary)} candidates x {args.folds} query folds")
    for r in result.summary.head(10).itertuples():
        std = "" if r.std != r.std else f" ± {r.std:.4f}"
        print(f"  {r.mean:.4f}{std}  best iteration {r.best_iteration:.0f}  {r.params}")
    print(f"best: {json.dumps(result.best_params)}  ({result.select_metric} {result.best_score:.4f})")
    print(f"scores: {result.selection(config.profile)}")
    print(f"run it: ltrbench run --config {folder / 'best.toml'}")
    return 0
