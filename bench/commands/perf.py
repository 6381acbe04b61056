"""``ltrbench perf evaluator|ranked|adapters|runners|loader|scale|dask|dask-convert|gpu|startup``: speed and memory benchmarks against peers in one run.

Each benchmark lives in :mod:`bench.perf` as a module with ``add_arguments(parser)`` and
``run(args) -> int``; targets are met as printed ratios, never in timed unit tests.
"""

from __future__ import annotations

import argparse
import importlib
import math
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from bench.commands.text import ascii_int, examples

_BENCHMARKS = {
    "evaluator": ("bench.perf.evaluator", "reference evaluator vs LightGBM, XGBoost, pytrec_eval, ranx"),
    "ranked": ("bench.perf.ranked", "the ranked components: compiled twins vs their NumPy pass, in turns"),
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
    "ranked": ("ltrbench perf ranked --queries 100000 --ties docno_desc",),
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


#: The range of every whole-number option of the benchmarks (by destination), checked when
#: the command line is parsed, before any data are generated: ``--rows 0`` or ``--repeat 0``
#: measured nothing (or a default) without a word, ``--workers 0`` divided by zero,
#: ``--trees 0`` and ``--threads -1`` failed in a child process, ``--queries -1`` in NumPy.
_RANGES: dict[str, tuple[int, int]] = {
    "rows": (1, 10**9), "queries": (1, 10**9), "peer_queries": (1, 10**9),
    "docs_per_query": (1, 100_000), "ratings": (1, 10**10), "users": (1, 10**9),
    "items": (1, 10**9), "rows_per_block": (1, 10**9), "repeat": (1, 1_000),
    "sklearn_repeat": (1, 1_000), "trees": (1, 1_000_000), "n_trees": (1, 1_000_000),
    "leaves": (2, 131_072), "threads": (0, 65_536), "workers": (1, 1_024),
    "seed": (0, 2**32 - 1),
}
#: Per-benchmark exceptions: dask-convert's ``--trees 0`` trains nothing, on purpose.
_OWN_RANGES: dict[tuple[str, str], tuple[int, int]] = {("dask-convert", "trees"): (0, 1_000_000)}


def _whole(least: int, most: int) -> Callable[[str], int]:
    def parse(text: str) -> int:  # ASCII digits (ascii_int): int() took '٥', '５', '1_000'
        try:
            value: int | None = ascii_int(text)
        except argparse.ArgumentTypeError:
            value = None
        if value is None or not least <= value <= most:
            raise argparse.ArgumentTypeError(
                f"expected a whole number from {least:,} to {most:,}; got {text!r}")
        return value
    return parse


def _listed(valid: tuple[str, ...] | None, least: int = 1, most: int = 1_024) -> Callable[[str], str]:
    """A comma-separated list: names out of ``valid``, or (``valid`` None) whole numbers."""
    def parse(text: str) -> str:
        items = [x.strip() for x in text.split(",")]
        if not text.strip() or "" in items:
            raise argparse.ArgumentTypeError(f"expected a comma-separated list; got {text!r}")
        if valid is None:
            for x in items:
                _whole(least, most)(x)
        elif unknown := [x for x in items if x not in valid]:
            raise argparse.ArgumentTypeError(
                f"unknown {', '.join(map(repr, unknown))}; valid: {', '.join(valid)}")
        if len(set(items)) != len(items):
            raise argparse.ArgumentTypeError(f"{text!r} names an entry twice")
        return text
    return parse


def _check_ranges(name: str, parser: argparse.ArgumentParser, module: ModuleType) -> None:
    """Give each numeric or list option of benchmark ``name`` its checked type (see
    :data:`_RANGES`)."""
    for action in parser._actions:
        dest = action.dest
        if dest == "workers" and action.type is None:  # dask: a list of worker counts
            action.type = _listed(None)
        elif dest == "libraries" and hasattr(module, "LIBRARIES"):
            action.type = _listed(tuple(module.LIBRARIES))
        elif action.type is int and (name, dest) in _OWN_RANGES:
            action.type = _whole(*_OWN_RANGES[(name, dest)])
        elif action.type is int and dest in _RANGES:
            action.type = _whole(*_RANGES[dest])
        elif action.type is float:
            action.type = _positive_float


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a finite number > 0; got {text!r}")
    return value


def _out_apart(module: ModuleType) -> Callable[[argparse.Namespace], int]:
    """The benchmark's ``run`` once its named inputs are checked (the module's own
    ``check_inputs(args)``, where it has one: a dataset, a size; and a ``--config``, read as
    ``run`` reads it; all before anything is generated, loaded or timed) and ``--out FILE.md`` is neither an input of the benchmark (``--qrels``,
    ``--run``, ``--data``, ``--config``, ``--baseline``), a folder, a device nor a FIFO."""
    def checked(args: argparse.Namespace) -> int:
        if check_inputs := getattr(module, "check_inputs", None):
            check_inputs(args)
        if isinstance(getattr(args, "config", None), str):  # a run config, read as run reads it
            from bench.benchmark.config import RunConfig
            from bench.commands.run_options import resolve_config_path

            RunConfig.load(resolve_config_path(args.config))
        if getattr(args, "out", None):
            from bench.data.outputs import check_output_file
            from bench.datasets.sealed import dataset_folders

            inputs = [(f"--{k}", getattr(args, k, None))
                      for k in ("qrels", "run", "data", "config", "baseline")]
            check_output_file(args.out, option="--out", inputs=[
                *((k, v) for k, v in inputs if isinstance(v, str)),
                *dataset_folders(around=Path(args.out).parent)])
        status: int = module.run(args)
        return status
    return checked


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("perf", help="speed/memory benchmarks with ratios against peers")
    inner = parser.add_subparsers(dest="benchmark", metavar="BENCHMARK", required=True)
    for name, (module_name, help_text) in _BENCHMARKS.items():
        p = inner.add_parser(name, help=help_text, description=help_text,
                             formatter_class=argparse.RawDescriptionHelpFormatter,
                             epilog=examples(*_EXAMPLES[name]))
        module = importlib.import_module(module_name)
        module.add_arguments(p)
        _check_ranges(name, p, module)
        p.set_defaults(func=_out_apart(module))
