"""``--no-progress``: one option, one help text and one rule for every long command.

``run``, ``tune``, ``report``, ``reproduce``, ``convert``, ``crosscheck``,
``crosscheck-versions`` and ``datasets fetch`` draw a progress bar on a terminal, or write
progress lines on standard error; ``--no-progress`` turns both off (``convert`` and
``crosscheck`` took no such option while the others did, so one script line could not quiet
them all). Progress is also off for output meant for another program (``--format json``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

HELP = "no progress bar or progress lines on standard error"
#: The formats a person reads, with progress on standard error beside them.
HUMAN_FORMATS = ("text", "table", "markdown")


def add_no_progress(p: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """Add ``--no-progress`` to a long command's parser."""
    p.add_argument("--no-progress", action="store_true", help=HELP)


def progress_wanted(args: argparse.Namespace) -> bool:
    """Whether progress is shown: not with ``--no-progress``, nor beside ``--format json``."""
    fmt = getattr(args, "format", None)
    return not getattr(args, "no_progress", False) and (fmt is None or fmt in HUMAN_FORMATS)


def progress_lines(args: argparse.Namespace) -> Callable[[str], None] | None:
    """A printer of one progress line on standard error (flushed), or ``None`` when progress
    is not wanted (:func:`progress_wanted`)."""
    if not progress_wanted(args):
        return None
    return lambda line: print(line, file=sys.stderr, flush=True)
