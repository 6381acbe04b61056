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
  appended after the standard ones (``six`` appends its own on import) is kept; the module
  search path likewise: a folder put in front of ``sys.path`` (``sys.path.insert(0, ...)``)
  would shadow every library imported later (a ``scipy`` of its own), so it is taken out and
  named, a folder appended at the end is kept, and the working directory that
  :func:`bench.runners.user_import.import_user_module` puts first for a factory's module stays;
* threads the ranker started and left running are named (they cannot be stopped; a write into
  the data from one is caught by :func:`bench.runners.custom_checks.verify_unchanged`).
"""

from __future__ import annotations

import contextlib
import ctypes
import decimal
import logging
import os
import signal
import sys
import threading
import time
import tracemalloc
import types
import warnings
from typing import Any

from bench.runners.user_import import SEARCHED

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
        self.path = list(sys.path)
        self.modules = set(sys.modules)
        self.threads = set(threading.enumerate())

    def restore(self) -> list[str]:
        """Put the import system back (see the module docstring); what had changed."""
        changed = self._finders() + self._search_path()
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


    def _search_path(self) -> list[str]:
        """``sys.path`` as before the call, with the folders appended after its last entry kept
        and those ltrbench put first for a factory's module (:data:`SEARCHED`)."""
        now = list(sys.path)
        if now == self.path:
            return []
        before = set(self.path)
        last = max((i for i, p in enumerate(now) if p in before), default=-1)
        appended = [p for p in now[last + 1:] if p not in before]
        ours = [p for p in now if p in SEARCHED and p not in before]
        sys.path[:] = [*ours, *self.path, *appended]
        return ["the module search path (sys.path) it changed: put back"
                + (f", {len(appended)} appended kept" if appended else "")]


def _imported(module: Any) -> bool:
    """Whether ``module`` came from the import system (a module with a ``__spec__``), not a
    stand-in put in ``sys.modules`` by hand (``types.ModuleType(...)``, ``None``, any object)."""
    return isinstance(module, types.ModuleType) and getattr(module, "__spec__", None) is not None


def loader_and_thread_state() -> dict[str, tuple[Any, Any]]:
    """``{what: (value now, how to put it back)}`` of settings of later threads and later
    imports (:func:`bench.runners.custom_process.isolated_process` compares and puts back):
    the trace and profile functions new threads start with (``threading.settrace``, a
    ``threading.setprofile`` hook), their stack size (``threading.stack_size``: Dask's and the
    libraries' threads), memory tracing (``tracemalloc``), the flags ``dlopen`` loads extension modules with
    (``sys.setdlopenflags``), and the blocked-signal mask (:func:`signal_mask_state`)."""
    out: dict[str, tuple[Any, Any]] = {
        "the thread stack size (threading.stack_size)": (threading.stack_size(),
                                                         threading.stack_size),
        "memory tracing (tracemalloc.start: every later allocation traced, every later fit "
        "time slower)": (tracemalloc.is_tracing(),
                         lambda on: tracemalloc.start() if on else tracemalloc.stop()),
        **signal_mask_state(),
    }
    if hasattr(threading, "gettrace"):  # Python 3.10+
        out["the trace function of new threads (threading.settrace)"] = (
            threading.gettrace(), threading.settrace)
        out["the profile function of new threads (threading.setprofile)"] = (
            threading.getprofile(), threading.setprofile)
    if hasattr(sys, "getdlopenflags"):
        out["the dlopen flags of later imports (sys.setdlopenflags)"] = (
            sys.getdlopenflags(), sys.setdlopenflags)
    return {**out, **numeric_state()}


def numeric_state() -> dict[str, tuple[Any, Any]]:
    """``{what: (value now, how to put it back)}`` of NumPy's error callback and buffer size,
    the ``decimal`` context, ``sys.argv`` and ``sys.stdin``: a ranker's ``np.seterrcall``,
    ``np.setbufsize(16)``, ``decimal.getcontext().prec = 3`` or training script's ``sys.argv``
    stayed for every later model and for the rest of the process (round 23)."""
    import numpy as np

    ctx = decimal.getcontext()
    settings = (ctx.prec, ctx.rounding, ctx.Emin, ctx.Emax, ctx.capitals, ctx.clamp,
                tuple(sorted(t.__name__ for t, on in ctx.traps.items() if on)))
    return {
        "NumPy's error callback (np.seterrcall)": (np.geterrcall(), np.seterrcall),
        "NumPy's buffer size (np.setbufsize)": (np.getbufsize(), np.setbufsize),
        "the decimal context (decimal.getcontext: precision, rounding, traps)": (
            settings, _set_decimal),
        "the command line (sys.argv)": ((sys.argv, tuple(sys.argv)), _set_argv),
        "the standard input (sys.stdin)": (sys.stdin, lambda f: setattr(sys, "stdin", f)),
    }


def _set_decimal(settings: tuple[Any, ...]) -> None:
    prec, rounding, emin, emax, capitals, clamp, traps = settings
    decimal.setcontext(decimal.Context(
        prec=prec, rounding=rounding, Emin=emin, Emax=emax, capitals=capitals, clamp=clamp,
        traps=[getattr(decimal, name) for name in traps]))


def _set_argv(saved: tuple[list[str], tuple[str, ...]]) -> None:
    argv, items = saved
    argv[:] = items
    sys.argv = argv


class LibraryState:
    """Global settings of the libraries a later model trains with, and the time zone: put
    back last (after ``os.environ`` and the C environment, which ``time.tzset`` reads). A
    ranker's ``time.tzset()`` under its own ``TZ`` left every later local time of the process
    in that zone once ``TZ`` was put back; ``lightgbm.register_logger``,
    ``xgboost.set_config(verbosity=3)`` and ``sklearn.set_config(assume_finite=True)`` stayed
    for every later model of the run. A library the ranker imported itself is put back to its
    defaults where they are known (LightGBM's logger, XGBoost's configuration)."""

    def __init__(self) -> None:
        self.zone = _zone()
        self.lightgbm = _lightgbm_logger()
        self.xgboost = _library_config("xgboost")
        self.sklearn = _library_config("sklearn")

    def restore(self) -> list[str]:
        changed = []
        if _zone() != self.zone:
            time.tzset()
            changed.append("the time zone (time.tzset)")
        logger = _lightgbm_logger()
        if logger is not None and logger != self.lightgbm and (
                self.lightgbm is not None or _registered(logger)):
            basic: Any = sys.modules["lightgbm.basic"]
            basic._LOGGER, basic._INFO_METHOD_NAME, basic._WARNING_METHOD_NAME = (
                self.lightgbm or (basic._DummyLogger(), "info", "warning"))
            changed.append("LightGBM's logger (lightgbm.register_logger)")
        pairs: tuple[tuple[str, dict[str, Any] | None, dict[str, Any] | None], ...] = (
            ("xgboost", self.xgboost, _XGBOOST_DEFAULTS), ("sklearn", self.sklearn, None))
        for name, then, default in pairs:
            now = _library_config(name)
            config = then if then is not None else default
            if now is not None and config is not None and any(
                    now.get(k) != v for k, v in config.items()):
                with contextlib.suppress(Exception):
                    sys.modules[name].set_config(**config)
                changed.append(f"{name}'s global configuration ({name}.set_config)")
        return changed


#: ``xgboost.get_config()`` of a fresh import (XGBoost 2 and 3).
_XGBOOST_DEFAULTS: dict[str, Any] = {"verbosity": 1, "use_rmm": False}


def _zone() -> tuple[Any, ...]:
    return (time.tzname, time.timezone, time.altzone, time.daylight)


def _lightgbm_logger() -> tuple[Any, ...] | None:
    basic = sys.modules.get("lightgbm.basic")
    if basic is None or not hasattr(basic, "_LOGGER"):
        return None
    return (basic._LOGGER, getattr(basic, "_INFO_METHOD_NAME", "info"),
            getattr(basic, "_WARNING_METHOD_NAME", "warning"))


def _registered(logger: tuple[Any, ...]) -> bool:
    """Whether LightGBM's logger is one registered after its import (not its own dummy)."""
    return type(logger[0]).__name__ != "_DummyLogger" or logger[1:] != ("info", "warning")


def _library_config(name: str) -> dict[str, Any] | None:
    """``name.get_config()`` when ``name`` is imported and has one, else ``None``."""
    get = getattr(sys.modules.get(name), "get_config", None)
    if get is None:
        return None
    try:
        return dict(get())
    except Exception:  # a half-imported or broken module: nothing to compare
        return None


class LoggingState:
    """The ``logging`` configuration of the process: ``logging.disable``'s level, the logger
    class, and the level, handlers, filters, ``propagate`` and ``disabled`` flag of the root
    logger and of every logger that existed before the ranker's call (one it creates is its
    own). A ranker's ``logging.basicConfig(level=DEBUG)`` printed every later library log
    line; its ``logging.disable(CRITICAL)`` silenced every later one."""

    def __init__(self) -> None:
        manager = logging.root.manager
        self.disable = manager.disable
        self.logger_class = logging.getLoggerClass()
        self.loggers = {name: _logger_state(lg) for name, lg in _loggers().items()}

    def restore(self) -> list[str]:
        """Put the configuration back; what had changed, in words (empty when nothing)."""
        what: list[str] = []
        if logging.root.manager.disable != self.disable:
            logging.disable(self.disable)
            what.append("logging.disable")
        if logging.getLoggerClass() is not self.logger_class:
            logging.setLoggerClass(self.logger_class)
            what.append("the logger class")
        now = _loggers()
        for name, then in self.loggers.items():
            lg = now.get(name)
            if lg is not None and _logger_state(lg) != then:
                lg.setLevel(then[0])
                lg.handlers[:], lg.filters[:] = then[1], then[2]
                lg.propagate, lg.disabled = then[3], then[4]
                what.append(f"logger {name or 'root'}")
        if not what:
            return []
        more = f" and {len(what) - 5} more" if len(what) > 5 else ""
        return [f"the logging configuration ({', '.join(what[:5])}{more})"]


def _loggers() -> dict[str, logging.Logger]:
    found = {name: lg for name, lg in list(logging.root.manager.loggerDict.items())
             if isinstance(lg, logging.Logger)}
    return {"": logging.root, **found}


def _logger_state(lg: logging.Logger) -> tuple[Any, ...]:
    return lg.level, list(lg.handlers), list(lg.filters), lg.propagate, lg.disabled


class CEnvironState:
    """The C environment (``environ``: what ``getenv`` in a library and every child process
    read). ``os.putenv`` and ``os.unsetenv`` change it without ``os.environ``, so the
    comparison of ``os.environ`` missed them; read through ``ctypes`` where the C library
    exports ``environ`` (POSIX), else nothing is taken."""

    def __init__(self) -> None:
        self.then = c_environ()

    def restore(self) -> list[str]:
        """Put it back after ``os.environ`` was (a key of ``os.environ`` is left to it)."""
        now = c_environ()
        if self.then is None or now is None or now == self.then:
            return []
        keys = sorted({k for k in now if k not in self.then}
                      | {k for k, v in self.then.items() if now.get(k) != v})
        for key in keys:
            with contextlib.suppress(OSError, ValueError):
                if key in self.then:
                    os.putenv(key, self.then[key])
                else:
                    os.unsetenv(key)
        shown = ", ".join(k.decode("utf-8", "replace") for k in keys[:5])
        return [f"the C environment (os.putenv / os.unsetenv: {shown})"]


def c_environ() -> dict[bytes, bytes] | None:
    """The C library's ``environ`` as ``{name: value}`` bytes; ``None`` where it cannot be
    read (no ``environ`` symbol: Windows)."""
    try:
        env = ctypes.POINTER(ctypes.c_char_p).in_dll(ctypes.CDLL(None), "environ")
    except (OSError, ValueError, AttributeError, TypeError):
        return None
    out: dict[bytes, bytes] = {}
    i = 0
    while (entry := env[i]) is not None:
        key, _, value = entry.partition(b"=")
        out.setdefault(key, value)
        i += 1
    return out


def pandas_options() -> dict[str, Any]:
    """Every registered pandas option's value (``{}`` before pandas is imported), put back by
    :func:`bench.runners.custom_process.isolated_process`: a ranker's
    ``pd.set_option("future.infer_string", True)`` would change how later inputs are read."""
    pandas = sys.modules.get("pandas")
    registered = getattr(getattr(getattr(pandas, "_config", None), "config", None),
                         "_registered_options", None)
    if pandas is None or not isinstance(registered, dict):
        return {}
    config = pandas._config.config
    deprecated = getattr(config, "_deprecated_options", {})
    get_root = getattr(config, "_get_root", None)
    if callable(get_root) and isinstance(deprecated, dict):
        # a deprecated option read through get_option warns, and the warning machinery rebinds
        # module globals (pandas' find_stack_level, a __warningregistry__): the guard then saw
        # a change after every call and took its slow path; read where the value lives instead
        return {k: _stored(get_root, k) if k in deprecated else pandas.get_option(k)
                for k in registered}
    with warnings.catch_warnings():  # a deprecated option warns when read
        warnings.simplefilter("ignore")
        return {k: pandas.get_option(k) for k in registered}


def _stored(get_root: Any, key: str) -> Any:
    root, leaf = get_root(key)
    return root[leaf]


def set_pandas_options(values: dict[str, Any]) -> None:
    pandas = sys.modules.get("pandas")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k, v in values.items():
            with contextlib.suppress(Exception):
                if pandas.get_option(k) != v:  # type: ignore[union-attr]
                    pandas.set_option(k, v)  # type: ignore[union-attr]
