"""``ltrbench crosscheck``: each library's built-in NDCG against the reference evaluator.

``ltrbench crosscheck --dataset NAME|PATH [--models ...] [--quick] [--run DIR] --format json|table``

Reuses ``--run DIR`` when given, else the most recent run of the dataset under ``<out>/runs``
(or ``--runs-dir``) that trained the requested models, else trains them first
(:func:`bench.benchmark.pipeline.run_benchmark`). Writes ``<out>/<dataset>/crosscheck.{md,json}``
and prints the JSON document (``--format json``, shape in :mod:`bench.crosscheck.result`) or the
Markdown report. Exit status 0 when every check agrees and every gap is explained, 1 otherwise,
2 on bad input.

``ltrbench crosscheck --versions lightgbm==3.3.5,4.7.0 xgboost==1.7.6,2.1.4,3.2.0``: which
profile reproduces each release's built-in ndcg@k / map@k (each release in its own cached
virtual environment, ``--cache-dir``; ``LIBRARY==installed`` uses the current interpreter).
Writes ``<out>/definitions/versions.{md,json}``, prints the Markdown (``--format table`` or
``markdown``) or the JSON; progress goes to stderr. Exit status 0 when every release ran and
every metric is reproduced by a profile, 1 otherwise, 2 on bad input. This is the command
``ltrbench crosscheck-versions`` (:mod:`bench.commands.versions`), kept under its old spelling.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from bench.commands import versions
from bench.commands.run_options import add_config_arguments, config_from_args
from bench.commands.text import examples, plain
from bench.metrics.families import PRIMARY_METRIC
from bench.runs.layout import LOCAL_RESULTS


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "crosscheck",
        help="compare LightGBM/XGBoost/CatBoost built-in ndcg@k with the reference evaluator",
        description=plain(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=examples(
            "ltrbench crosscheck",
            "ltrbench crosscheck --dataset ml-latest-small --models lightgbm,catboost --quick",
            "ltrbench crosscheck --run results/runs/ohsumed-20261123T013851Z-188f9011",
            "ltrbench crosscheck --versions lightgbm==3.3.5,4.7.0 xgboost==1.7.6,2.1.4,3.2.0",
        ),
    )
    add_config_arguments(p)
    p.add_argument("--run", metavar="DIR", help="cross-check this run directory (no training)")
    p.add_argument("--runs-dir", metavar="DIR",
                   help="where to look for a run to reuse (default: <out>/runs)")
    p.add_argument("--out", default=LOCAL_RESULTS, metavar="DIR",
                   help="results folder: DIR/<dataset>/crosscheck.{md,json} (default: results/local)")
    p.add_argument("--metric", default=PRIMARY_METRIC,
                   help=f"metric to cross-check (default: {PRIMARY_METRIC})")
    p.add_argument("--retrain", action="store_true", help="train even if a matching run exists")
    p.add_argument("--format", choices=("table", "markdown", "json"), default="table",
                   help="table and markdown both print the Markdown report")
    p.add_argument("--versions", nargs="+", metavar="LIBRARY==V1,V2",
                   help="which profile each release of LightGBM/XGBoost matches, e.g. "
                   "xgboost==1.7.6,2.1.4 lightgbm==installed (no dataset, no training)")
    versions.add_cache_argument(p)
    p.set_defaults(func=main)


def _trainer(args: argparse.Namespace) -> Callable[[tuple[str, ...]], Path]:
    """How the cross-check trains a run when it has none: the run's options with ``models``."""

    def train(models: tuple[str, ...]) -> Path:
        from bench.benchmark.pipeline import run_benchmark

        config = replace(config_from_args(args, models=models), crosscheck=False)
        return run_benchmark(config, out_dir=args.out, progress=args.format == "table")

    return train


def main(args: argparse.Namespace) -> int:
    """Run ``ltrbench crosscheck``; ``--versions`` runs ``ltrbench crosscheck-versions``."""
    if args.versions is not None:
        return versions.main(args)
    from bench.crosscheck.find import CrosscheckRequest, crosscheck_request
    from bench.crosscheck.render import render_markdown

    request = CrosscheckRequest(out=args.out, run=args.run, runs_dir=args.runs_dir,
                                dataset=args.dataset, models=args.models, metric=args.metric,
                                retrain=args.retrain)
    say = (lambda line: print(line, file=sys.stderr)) if args.format == "table" else None
    outcome = crosscheck_request(request, train=_trainer(args), say=say)
    result, files = outcome.result, outcome.files
    if args.format == "json":
        sys.stdout.write(result.to_json())
    else:
        sys.stdout.write(render_markdown(result))
        print(f"wrote {files['md']} and {files['json']}")
    return 0 if result.ok else 1
