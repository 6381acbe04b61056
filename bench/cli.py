"""The ``ltrbench`` command line: a thin layer over the library API.

Each sub-command lives in :mod:`bench.commands` as a module with a ``register(subparsers)``
function that adds its parser and sets ``func`` (``args -> exit status``). Errors that
ltrbench raises on purpose (:class:`bench.errors.LtrbenchError`) are printed as one line,
``error: ...``, with exit status 2; so are operating-system errors that reach this level (a full
disk, a permission lost while running): ``error: PATH: reason``.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import importlib
import os
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
    "bench.commands.metrics",
    "bench.commands.perf",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ltrbench",
        description="Learning-to-rank benchmark: LambdaMART in LightGBM, XGBoost and CatBoost (and "
        "your own rankers) on LETOR and "
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
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly, as cat does
        with contextlib.suppress(OSError):  # no second error when Python flushes at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, the status of a tool killed by the broken pipe
    except OSError as exc:  # a full disk, a file made unreadable mid-run: never a traceback
        print(f"error: {os_error_text(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; files already written are complete (use --resume to go on)",
              file=sys.stderr)
        return 130


def os_error_text(exc: OSError) -> str:
    """``path: reason`` of an operating-system error (both paths of a rename), for one line."""
    where = " -> ".join(str(f) for f in (exc.filename, exc.filename2) if f is not None)
    reason = exc.strerror or str(exc)
    hint = ""
    if exc.errno == errno.ENOSPC:
        hint = f" ({_free_space(exc.filename)}free some space and run again; files already " \
               "written are complete)"
    return f"{where}: {reason}{hint}" if where else f"{reason}{hint}"


def _free_space(filename: object) -> str:
    """``"N MB free on that file system; "`` for the folder of ``filename``, if it can be read."""
    import shutil
    from pathlib import Path

    if filename is None:
        return ""
    p = Path(str(filename))
    for folder in (p, *p.parents):
        if folder.is_dir():
            try:
                return f"{shutil.disk_usage(folder).free / 1e6:,.0f} MB free on that file system; "
            except OSError:
                return ""
    return ""


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
