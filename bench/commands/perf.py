"""``ltrbench perf evaluator|adapters|runners|loader|scale|dask|dask-convert|gpu|startup``: speed and memory benchmarks against peers in one run.

Each benchmark lives in :mod:`bench.perf` as a module with ``add_arguments(parser)`` and
``run(args) -> int``; targets are met as printed ratios, never in timed unit tests.
"""

from __future__ import annotations

import argparse
import importlib

from bench.commands.text import examples

_BENCHMARKS = {
    "evaluator": ("bench.perf.evaluator", "reference evaluator vs LightGBM, XGBoost, pytrec_eval, ranx"),
    "adapters": ("bench.perf.adapters", "ratings -> LETOR conversion at ML-25M size"),
    "runners": ("bench.perf.runners", "a bare library fit vs the same fit through ltrbench"),
    "loader": ("bench.perf.loader", "SVMlight/LETOR loading: sklearn vs the compiled parser vs the cache"),
    "dask": ("bench.perf.dask", "one process vs a Dask LocalCluster: fit, evaluation, memory, quality"),
    "dask-convert": ("bench.perf.dask_convert", "convert --engine dask on a table larger than its workers' memory"),
    "gpu": ("bench.perf.gpu", "CPU vs GPU fit per library at an MSLR-like shape (needs an NVIDIA GPU)"),
    "scale": ("bench.perf.scale", "a full-size run step by step: cold load, warm load, fits, peak memory"),
    "startup": ("bench.perf.startup", "CLI start-up: --help and evaluate of a TREC pair vs a bare pytrec_eval script"),
}

#: Example command lines of each benchmark (``--help`` shows them; a test parses every one).
_EXAMPLES: dict[str, tuple[str, ...]] = {
    "evaluator": ("ltrbench perf evaluator --queries 100000 --out results/perf/evaluator.md",),
    "adapters": ("ltrbench perf adapters --ratings 1000000 --users 10000 --items 5000",),
    "runners": ("ltrbench perf runners --rows 200000 --libraries lightgbm,xgboost --repeat 3",),
    "loader": ("ltrbench perf loader --rows 300000", "ltrbench perf loader --data ~/data/MSLR-WEB30K/Fold1"),
    "dask": ("ltrbench perf dask --rows 1000000 --workers 1,2",),
    "dask-convert": ("ltrbench perf dask-convert --ratings 10000000 --memory-limit 1GB",),
    "gpu": ("ltrbench perf gpu --rows 2000000 --trees 500",),
    "scale": ("ltrbench perf scale --n-trees 100",),
    "startup": ("ltrbench perf startup --repeat 7",
                "ltrbench perf startup --qrels qrels.txt --run run.txt"),
}


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("perf", help="speed/memory benchmarks with ratios against peers")
    inner = parser.add_subparsers(dest="benchmark", metavar="BENCHMARK", required=True)
    for name, (module_name, help_text) in _BENCHMARKS.items():
        p = inner.add_parser(name, help=help_text, description=help_text,
                             formatter_class=argparse.RawDescriptionHelpFormatter,
                             epilog=examples(*_EXAMPLES[name]))
        module = importlib.import_module(module_name)
        module.add_arguments(p)
        p.set_defaults(func=module.run)
