"""The ``ltrbench`` command line: a thin layer over the library API.

Each sub-command lives in :mod:`bench.commands` as a module with a ``register(subparsers)``
function that adds its parser and sets ``func`` (``args -> exit status``). Errors that
ltrbench raises on purpose (:class:`bench.errors.LtrbenchError`) are printed as one line,
``error: ...``, with exit status 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from bench import __version__
from bench.errors import LtrbenchError

# Sub-command modules, in the order `ltrbench --help` lists them.
COMMAND_MODULES: tuple[str, ...] = (
    "bench.commands.run",
    "bench.commands.evaluate",
    "bench.commands.crosscheck",
    "bench.commands.report",
    "bench.commands.reproduce",
    "bench.commands.tune",
    "bench.commands.convert",
    "bench.commands.datasets",
    "bench.commands.perf",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ltrbench",
        description="Learning-to-rank benchmark: LightGBM and XGBoost LambdaMART on LETOR and "
        "ratings data, with a convention-explicit reference evaluator.",
    )
    parser.add_argument("--version", action="version", version=f"ltrbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        module = importlib.import_module(name)
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except LtrbenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; files already written are complete (use --resume to go on)",
              file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
