"""Exit handlers a custom ranker registers in ltrbench's process (``atexit.register``).

A handler registered during a ranker's call would run when ltrbench exits, after the run was
judged: ``atexit.register(os._exit, 0)`` printed a traceback at exit (``os._exit`` is guarded
during the call, :func:`bench.runners.custom_process.isolated_process`) and could have turned a
failed run's exit status into 0; ``atexit.register(shutil.rmtree, "results")`` would remove the
results once written. While the ranker runs, ``atexit.register`` records what the ranker's own
code registers (a call made from a file outside the standard library and the installed packages:
a library the ranker imports keeps its own handlers), and :func:`exit_handlers` unregisters
those afterwards and names them. A registration through a reference to the real ``register``
kept from before the ranker ran cannot be removed; it is counted and named.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import sysconfig
from collections.abc import Callable, Iterator
from typing import Any

_REAL_REGISTER = atexit.register
#: Where the standard library and the installed packages live: a registration made from a file
#: there is a library's (kept).
_LIBRARY_ROOTS = tuple(sorted({os.path.realpath(p) + os.sep for k, p in sysconfig.get_paths().items()
                               if k in ("stdlib", "platstdlib", "purelib", "platlib")}))
#: Per call under way: the ranker's own handlers, and how many registrations went through.
_recording: list[tuple[list[Callable[..., Any]], list[int]]] = []


def _count() -> int:
    """How many exit handlers are registered (CPython's ``atexit._ncallbacks``; -1 unknown)."""
    count = getattr(atexit, "_ncallbacks", None)
    return int(count()) if callable(count) else -1


def _register(func: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Callable[..., Any]:
    """``atexit.register`` while a ranker runs: registers, and records the ranker's own."""
    out = _REAL_REGISTER(func, *args, **kwargs)
    caller = os.path.realpath(sys._getframe(1).f_code.co_filename)
    for _, seen in _recording:  # every call under way (nested ones too) saw it
        seen[0] += 1
    if _recording and not caller.startswith(_LIBRARY_ROOTS):
        _recording[-1][0].append(func)
    return out


@contextlib.contextmanager
def exit_handlers(restored: list[str]) -> Iterator[None]:
    """Run the block with the ranker's exit handlers recorded; afterwards unregister them and
    name them in ``restored``."""
    added: list[Callable[..., Any]] = []
    seen = [0]
    before = _count()
    _recording.append((added, seen))
    atexit.register = _register
    try:
        yield
    finally:
        _recording.pop()
        if not _recording:
            atexit.register = _REAL_REGISTER
        unseen = _count() - before - seen[0] if before >= 0 else 0
        for func in added:
            atexit.unregister(func)
        if added:
            names = ", ".join(dict.fromkeys(getattr(f, "__qualname__", repr(f)) for f in added))
            restored.append(f"the exit handler(s) it registered (atexit.register: {names}), "
                            "removed")
        if unseen > 0:  # a reference to the real register kept from before: said, not removed
            restored.append(f"{unseen} exit handler(s) registered out of ltrbench's sight (a "
                            "reference to atexit.register kept from before): they run when "
                            "ltrbench exits")
