"""``ltrbench perf evaluator|adapters|runners|loader|scale|dask|dask-convert|gpu``: speed and memory benchmarks against peers in one run.

Each benchmark lives in :mod:`bench.perf` as a module with ``add_arguments(parser)`` and
``run(args) -> int``; targets are met as printed ratios, never in timed unit tests.
"""

from __future__ import annotations

import argparse
import importlib

_BENCHMARKS = {
    "evaluator": ("bench.perf.evaluator", "reference evaluator vs LightGBM, XGBoost, pytrec_eval, ranx"),
    "adapters": ("bench.perf.adapters", "ratings -> LETOR conversion at ML-25M size"),
    "runners": ("bench.perf.runners", "a bare library fit vs the same fit through ltrbench"),
    "loader": ("bench.perf.loader", "SVMlight/LETOR loading: sklearn vs the compiled parser vs the cache"),
    "dask": ("bench.perf.dask", "one process vs a Dask LocalCluster: fit, evaluation, memory, quality"),
    "dask-convert": ("bench.perf.dask_convert", "convert --engine dask on a table larger than its workers' memory"),
    "gpu": ("bench.perf.gpu", "CPU vs GPU fit per library at an MSLR-like shape (needs an NVIDIA GPU)"),
    "scale": ("bench.perf.scale", "a full-size run step by step: cold load, warm load, fits, peak memory"),
}


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("perf", help="speed/memory benchmarks with ratios against peers")
    inner = parser.add_subparsers(dest="benchmark", metavar="BENCHMARK", required=True)
    for name, (module_name, help_text) in _BENCHMARKS.items():
        p = inner.add_parser(name, help=help_text)
        module = importlib.import_module(module_name)
        module.add_arguments(p)
        p.set_defaults(func=module.run)
