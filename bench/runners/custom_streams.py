"""The standard streams around a user's ranker and the text of what it raised.

While a custom ranker runs, its standard output (Python's ``sys.stdout`` and file descriptor
1) goes to standard error, so that ``--format json`` stays one JSON document on stdout; the
stream it is given cannot close ltrbench's standard error (:class:`_KeptOpen`). A ranker's
exception is shown on one line (:func:`one_line`), cut when very long, and shown even when
its ``__str__`` raises.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def stdout_to_stderr(changed: list[str] | None = None) -> Iterator[None]:
    """Standard output (Python's and file descriptor 1) to standard error for the block; file
    descriptor 2 put back if the block redirected or closed it (``os.dup2(devnull, 2)`` lost
    every later ``error:`` line), named in ``changed``."""
    with contextlib.ExitStack() as stack:
        saved_fd = None
        with contextlib.suppress(AttributeError, OSError, ValueError):
            sys.stdout.flush()
            sys.stderr.flush()
            out_fd, err_fd = sys.__stdout__.fileno(), sys.__stderr__.fileno()  # type: ignore[union-attr]
            stack.callback(_keep_fd, err_fd, os.dup(err_fd), changed)
            if out_fd != err_fd:
                saved_fd = os.dup(out_fd)
                os.dup2(err_fd, out_fd)
        if saved_fd is not None:
            def back(fd: int = saved_fd, out: int = out_fd) -> None:
                with contextlib.suppress(AttributeError, OSError, ValueError):
                    sys.stdout.flush()
                with contextlib.suppress(OSError):
                    os.dup2(fd, out)
                os.close(fd)
            stack.callback(back)
        stack.enter_context(contextlib.redirect_stdout(_KeptOpen(sys.stderr)))
        yield


def _same_file(a: int, b: int) -> bool:
    try:
        sa, sb = os.fstat(a), os.fstat(b)
    except OSError:
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def _keep_fd(fd: int, saved: int, changed: list[str] | None) -> None:
    """Put ``saved`` (a duplicate taken before) back on ``fd`` when ``fd`` now names another
    file or is closed; close ``saved``."""
    try:
        if not _same_file(fd, saved):
            with contextlib.suppress(OSError):
                os.dup2(saved, fd)
            if changed is not None:
                changed.append(f"file descriptor {fd} (standard error), redirected or closed")
    finally:
        os.close(saved)


class _KeptOpen:
    """``sys.stderr`` as the ranker's ``sys.stdout``: its ``close()`` (a ranker closing what
    it takes for its own standard output) leaves ltrbench's standard error open."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    def close(self) -> None:
        self.flush()


def one_line(text: object) -> str:
    """``text`` on one line (the lines of a multi-line message joined by `` | ``): the command
    line prints an error as one line."""
    try:
        shown = str(text)
    except Exception as exc:  # a ranker's exception whose __str__ raises
        shown = f"(its message could not be shown: str() raised {type(exc).__name__})"
    joined = " | ".join(line.strip() for line in shown.splitlines() if line.strip())
    return joined if len(joined) <= _LONGEST else f"{joined[:_LONGEST]}... ({len(joined)} characters)"


#: The longest message of a ranker's exception shown whole (a 10 MB message is cut).
_LONGEST = 2000
