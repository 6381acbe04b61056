"""More of ltrbench's process that a custom ranker may change, put back (or named) after each of
its calls by :func:`bench.runners.custom_process.isolated_process` (round 10b):

* the standard-library modules ltrbench's own code calls (:data:`STDLIB_GUARDED`): a ranker
  that replaces ``time.perf_counter`` (as ``freezegun`` does with ``time.time``) made every later
  fit time 0 s, ``json.dumps = ...`` wrote every later manifest as ``{}``, ``os.replace = ...``
  made every later atomic write a no-op, ``warnings.showwarning = ...`` silenced every later
  warning; their functions and classes join the guarded packages;
* the blocked-signal mask (``signal.pthread_sigmask``): a ranker that blocked SIGINT and SIGTERM
  left a run that Ctrl-C could no longer stop;
* the import system: a finder the ranker put in front of the standard ones
  (``sys.meta_path.insert(0, finder)``) would serve every later import of a library, and a
  stand-in module under a guarded package's name (``sys.modules["catboost"] =
  types.ModuleType("catboost")``, or ``None``, which makes the import fail) would be the
  library every later model of the run trains with; both are removed and named. A finder
  appended after the standard ones (``six`` appends its own on import) is kept;
* threads the ranker started and left running are named (they cannot be stopped; a write into
  the data from one is caught by :func:`bench.runners.custom_checks.verify_unchanged`).
"""

from __future__ import annotations

import signal
import sys
import threading
import types
from typing import Any

#: Standard-library modules ltrbench calls for its timings, files, digests, manifests and
#: warnings (``time``, ``os``/``posixpath``, ``shutil``, ``tempfile``, ``pathlib``, ``json``,
#: ``hashlib``, ``warnings``, ``datetime``, ``random``, ``csv``, ``tomllib``, ``io``).
STDLIB_GUARDED = frozenset({"time", "os", "posixpath", "shutil", "tempfile", "pathlib", "json",
                            "hashlib", "warnings", "datetime", "random", "csv", "tomllib", "io"})


def signal_mask_state() -> dict[str, tuple[Any, Any]]:
    """``{what: (value now, how to put it back)}`` for the blocked-signal mask (main thread only,
    where ``pthread_sigmask`` exists)."""
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() \
            is not threading.main_thread():
        return {}
    return {"the blocked signals (signal.pthread_sigmask)": (
        signal.pthread_sigmask(signal.SIG_BLOCK, []),
        lambda mask: signal.pthread_sigmask(signal.SIG_SETMASK, mask))}


class ImportState:
    """The import finders, the module names and the threads before a ranker's call."""

    def __init__(self, guarded: frozenset[str]) -> None:
        self.guarded = guarded
        self.finders = list(sys.meta_path)
        self.modules = set(sys.modules)
        self.threads = set(threading.enumerate())

    def restore(self) -> list[str]:
        """Put the import system back (see the module docstring); what had changed."""
        changed = self._finders()
        fakes = sorted(name for name in set(sys.modules) - self.modules
                       if name.partition(".")[0] in self.guarded
                       and not _imported(sys.modules.get(name)))
        for name in fakes:
            sys.modules.pop(name, None)
        if fakes:
            changed.append(f"stand-in modules it put in sys.modules, removed "
                           f"({', '.join(fakes[:5])})")
        left = sorted(t.name for t in threading.enumerate()
                      if t not in self.threads and t.is_alive())
        if left:
            changed.append(f"threads it started are still running ({', '.join(left[:5])}); "
                           f"not stopped")
        return changed

    def _finders(self) -> list[str]:
        now = list(sys.meta_path)
        if now == self.finders:
            return []
        ids = {id(f) for f in self.finders}
        last = max((i for i, f in enumerate(now) if id(f) in ids), default=-1)
        appended = [f for f in now[last + 1:] if id(f) not in ids]
        sys.meta_path[:] = [*self.finders, *appended]
        return ["the import finders (sys.meta_path) it changed: put back"
                + (f", {len(appended)} appended kept" if appended else "")]


def _imported(module: Any) -> bool:
    """Whether ``module`` came from the import system (a module with a ``__spec__``), not a
    stand-in put in ``sys.modules`` by hand (``types.ModuleType(...)``, ``None``, any object)."""
    return isinstance(module, types.ModuleType) and getattr(module, "__spec__", None) is not None
