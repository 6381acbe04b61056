"""Helpers of the round-9 hostile files (``tests/test_hostile_round9_*.py``).

:func:`count_forked` prints a file's counts with each case in a forked child, so that a case
that crashes the interpreter (a library's segfault: ``n_threads = 100000`` before round 9)
counts as one failure instead of ending the count.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


def _one(case: Any, problem: Callable[[Any, Path], str | None]) -> str | None:
    """``problem(case, folder)`` in a forked child; a child killed by a signal is a problem."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run the case, write its problem, leave without cleanup
        os.close(read)
        try:
            with tempfile.TemporaryDirectory() as d:
                said = problem(case, Path(d)) or ""
        except BaseException as exc:  # the count must go on
            said = f"{type(exc).__name__}: {exc}"
        os.write(write, said.encode()[:4000])
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as f:
        text = f.read().decode(errors="replace")
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return f"the process died of signal {os.WTERMSIG(status)}"
    return text or None


def count_forked(cases: Sequence[Any], problem: Callable[[Any, Path], str | None]) -> int:
    """Run every case (each has a ``name``) in a forked child; print the failing ones and the
    count; return the number that failed."""
    failed = 0
    for case in cases:
        said = _one(case, problem)
        if said is not None:
            failed += 1
            print(f"FAIL {case.name}: {said[:240]}")
    print(f"{failed} of {len(cases)} cases failed")
    return failed
