"""User code isolated from ltrbench's process: whatever a custom ranker changes there is put back
after each of its calls (build, fit, predict; the import of its module too) and named.

The ranker runs in ltrbench's process (:mod:`bench.runners.custom`), so :func:`isolated_process`
takes the process state before each call and puts it back afterwards, noting in the model's
status file what had changed: the working directory (the run writes to relative paths), the
environment variables, NumPy's and Python's global random generators (a resumed run then gives
the numbers of an uninterrupted one), NumPy's floating-point error handling (``np.seterr``) and
print options, pandas' options, the CPUs the process may use (``os.sched_setaffinity``),
Python's limit on integer digits, the warning filters, ``sys.stdout`` / ``sys.stderr``, ``sys.excepthook``, a
trace or profile function, the recursion limit, the thread switch interval, the garbage
collector's state, the C locale (C number parsers read ``1,5`` under a German one), the
processor's flush-to-zero modes (FTZ/DAZ, which a ``-ffast-math`` library turns on: scores
below 2^-1022 would tie with 0; :func:`bench.data.subnormal.clear_flush_modes`), the signal
handlers (``SIGINT``: Ctrl-C must still stop the run; ``SIGTERM``, ``SIGHUP``, ``SIGALRM``,
``SIGCHLD``, ``SIGPIPE``), an interval timer it left running (``signal.alarm``: its ``SIGALRM``
would end the run later), the soft resource limits (open files, file size, CPU time, memory),
the umask (later files must stay readable), modules it swapped in ``sys.modules``, and the
functions of NumPy, pandas, SciPy, ltrbench, the GBDT libraries and the built-ins that it
replaced (``np.argsort = ...`` would reverse every later ranking), and the methods, properties
and class or static methods of those packages' classes that it replaced, removed or added
(``lightgbm.Booster.predict = ...``, ``pandas.DataFrame.sort_values = ...``: the run's own
models and evaluation call them). What it prints to standard output (Python's or file
descriptor 1) goes to standard error, so ``--format json`` stays one JSON document on stdout
(:mod:`bench.runners.custom_streams`; closing it leaves ltrbench's standard error open). An exception in a thread it
started is one line on stderr naming the model, not a traceback.

Two ways out of the process are closed: ``os._exit(status)`` during a call raises
:class:`ProcessExit` (a ``SystemExit``) instead, which the caller reports as the ranker's failure
(exit status 0 would call an unfinished run a success); and a process the ranker forks
(``os.fork()``) that returns from the ranker's call is ended there, before it writes a second
copy of every later model's rows into the run directory.
"""

from __future__ import annotations

import contextlib
import gc
import locale
import operator
import os
import random
import signal
import sys
import threading
import time
import warnings
import weakref
from collections.abc import Iterator, Mapping
from typing import Any, NoReturn

import numpy as np

from bench.data.subnormal import clear_flush_modes, flushes_subnormals
from bench.runners.custom_atexit import exit_handlers
from bench.runners.custom_code import ConstantTables, FunctionBodies
from bench.runners.custom_state import (
    STDLIB_GUARDED,
    CEnvironState,
    ImportState,
    LibraryState,
    LoggingState,
    loader_and_thread_state,
    pandas_options,
    set_pandas_options,
)
from bench.runners.custom_streams import one_line, stdout_to_stderr
from bench.runners.libraries import LIBRARIES


@contextlib.contextmanager
def isolated_process(where: str, restored: list[str] | None = None) -> Iterator[list[str]]:
    """Run the block (a custom ranker's code) with the process state put back afterwards (see
    the module docstring); each thing put back is named, on the way out, in ``restored`` (a new
    list when not given), which is yielded."""
    restored = [] if restored is None else restored
    saved = _ProcessState.take()
    hook = threading.excepthook
    real_exit = os._exit

    def exit_guard(status: int) -> NoReturn:  # os._exit would end the run with no word
        if os.getpid() != saved.pid:  # a process the ranker forked: let it go
            real_exit(status)
        raise ProcessExit(status)

    def thread_failed(args: Any) -> None:
        text = f"{args.exc_type.__name__}: {one_line(args.exc_value)}"
        print(f"warning: {where}: a thread it started raised {text}", file=sys.stderr)
        restored.append(f"a thread it started raised {text}")

    threading.excepthook = thread_failed
    os._exit = exit_guard
    try:
        with stdout_to_stderr(restored), exit_handlers(restored):
            yield restored
    finally:
        if os.getpid() != saved.pid:  # a fork's child came back from the ranker's call
            _leave_forked_child(where)
        threading.excepthook = hook
        os._exit = real_exit
        restored.extend(saved.restore())


class ProcessExit(SystemExit):
    """``os._exit(status)`` called by a ranker in ltrbench's process: raised instead of ending
    the process (whose exit status 0 would report an unfinished run as a success)."""


def _leave_forked_child(where: str) -> NoReturn:
    """End a process the ranker forked (``os.fork()``) that returned from the ranker's call: it
    holds a copy of the whole run, and going on would write every later model's rows into the
    run directory a second time, beside the parent's."""
    with contextlib.suppress(Exception):
        os.write(2, (f"warning: {where}: a process it forked (pid {os.getpid()}) returned into "
                     "ltrbench; ended it (only the process that started the run goes on)\n")
                 .encode("utf-8", "replace"))
    os._exit(70)  # EX_SOFTWARE


class _ProcessState:
    """What a custom ranker may change in ltrbench's process, taken before it runs."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.cwd = os.getcwd()
        self.sys_modules = dict(sys.modules)
        self.patched = _library_functions()
        self.classes = _library_classes()
        self.bodies = FunctionBodies([((n, id(m)), ns) for n, m, ns in self.patched]
                                     + [(cls, ns) for _, cls, ns in self.classes])
        self.tables = ConstantTables([(n, ns) for n, _, ns in self.patched])
        self.environ = dict(os.environ)
        self.np_random = np.random.get_state()  # noqa: NPY002 - the global state a ranker may change
        self.py_random = random.getstate()
        self.np_err = np.geterr()
        self.warnings = list(warnings.filters)
        self.streams = (sys.stdout, sys.stderr)
        self.main = threading.current_thread() is threading.main_thread()
        self.sigint = signal.getsignal(signal.SIGINT) if self.main else None
        self.umask = os.umask(0o022)
        os.umask(self.umask)
        self.interpreter = _interpreter_state()
        self.handlers = {sig: signal.getsignal(sig) for sig in _SIGNALS} if self.main else {}
        self.timer = signal.getitimer(signal.ITIMER_REAL)
        self.limits = _soft_limits()
        # custom_state's records, each put back by its restore(); the C environment after
        # os.environ (restored after it)
        self.more = (ImportState(_GUARDED_PACKAGES), LoggingState(), CEnvironState(),
                     LibraryState())

    @classmethod
    def take(cls) -> _ProcessState:
        return cls()

    def restore(self) -> list[str]:
        """Put everything back; the names of what had changed."""
        changed: list[str] = []
        try:
            now = os.getcwd()
        except OSError:  # it moved into a folder and removed it ("." still reads as a folder)
            now = "a folder it removed"
        if now != self.cwd:
            changed.append(f"the working directory ({now})")
            with contextlib.suppress(OSError):
                os.chdir(self.cwd)
        if dict(os.environ) != self.environ:
            keys = sorted(set(os.environ) ^ set(self.environ)
                          | {k for k in self.environ if os.environ.get(k) != self.environ[k]})
            changed.append(f"environment variables ({', '.join(keys)})")
            os.environ.clear()
            os.environ.update(self.environ)
        if not _same_np_state(np.random.get_state(), self.np_random):  # noqa: NPY002
            np.random.set_state(self.np_random)  # noqa: NPY002
            changed.append("NumPy's global random state")
        if random.getstate() != self.py_random:
            random.setstate(self.py_random)
            changed.append("Python's global random state")
        if np.geterr() != self.np_err:
            np.seterr(**self.np_err)
            changed.append("NumPy's floating-point error handling (np.seterr)")
        if list(warnings.filters) != self.warnings:
            warnings.filters[:] = self.warnings  # type: ignore[index]
            changed.append("the warning filters")
        if (sys.stdout, sys.stderr) != self.streams:
            sys.stdout, sys.stderr = self.streams
            changed.append("sys.stdout / sys.stderr")
        if self.main and signal.getsignal(signal.SIGINT) != self.sigint:
            signal.signal(signal.SIGINT, self.sigint)
            changed.append("the Ctrl-C (SIGINT) handler")
        changed.extend(self._restore_interpreter())
        if (mask := os.umask(self.umask)) != self.umask:
            changed.append(f"the umask ({mask:03o})")
        swapped = [k for k, m in self.sys_modules.items() if sys.modules.get(k) is not m]
        if swapped:
            sys.modules.update({k: self.sys_modules[k] for k in swapped})
            changed.append(f"sys.modules ({', '.join(sorted(swapped)[:5])})")
        changed.extend(_put_back_functions(self.patched))
        changed.extend(_put_back_classes(self.classes))
        changed.extend(self.bodies.restore())
        changed.extend(self.tables.restore(sys.modules))
        for more in self.more:
            changed.extend(more.restore())
        return changed

    def _restore_interpreter(self) -> list[str]:
        """The rest of the module docstring's list: interpreter settings, signal handlers, an
        interval timer, soft resource limits."""
        changed = [what for what, (value, put_back) in _interpreter_state().items()
                   if value != self.interpreter[what][0]
                   and _done(put_back, self.interpreter[what][0])]
        for sig, handler in self.handlers.items():
            if signal.getsignal(sig) != handler and handler is not None:
                signal.signal(sig, handler)
                changed.append(f"the {signal.Signals(sig).name} handler")
        if self.timer == (0.0, 0.0) and signal.getitimer(signal.ITIMER_REAL) != (0.0, 0.0):
            signal.setitimer(signal.ITIMER_REAL, 0)  # a signal.alarm left running: cancelled
            changed.append("an alarm it set (signal.alarm / setitimer), cancelled")
        for name, (res, soft) in _soft_limits().items():
            if soft != self.limits[name][1]:
                with contextlib.suppress(ValueError, OSError):  # a hard limit it lowered stays
                    import resource

                    resource.setrlimit(res, (self.limits[name][1], resource.getrlimit(res)[1]))
                changed.append(f"the soft limit {name}")
        return changed


def _done(put_back: Any, value: Any) -> bool:
    """Call ``put_back(value)``; ``True`` (for the list of what changed)."""
    with contextlib.suppress(Exception):
        put_back(value)
    return True


#: Signals whose handlers are put back (SIGINT has its own line in the notes).
_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP", "SIGALRM", "SIGCHLD",
                                                    "SIGPIPE", "SIGUSR1", "SIGUSR2")
                 if hasattr(signal, name))


def _interpreter_state() -> dict[str, tuple[Any, Any]]:
    """``{what: (value now, how to put a value back)}`` of the interpreter's settings."""
    return {
        "the recursion limit": (sys.getrecursionlimit(), sys.setrecursionlimit),
        "the thread switch interval": (sys.getswitchinterval(), sys.setswitchinterval),
        "the garbage collector (gc.enable / gc.disable)": (
            gc.isenabled(), lambda on: gc.enable() if on else gc.disable()),
        "the garbage collector's thresholds": (gc.get_threshold(),
                                               lambda t: gc.set_threshold(*t)),
        "a trace function (sys.settrace)": (sys.gettrace(), sys.settrace),
        "a profile function (sys.setprofile)": (sys.getprofile(), sys.setprofile),
        "sys.excepthook": (sys.excepthook, lambda h: setattr(sys, "excepthook", h)),
        "the C locale (locale.setlocale)": (locale.setlocale(locale.LC_ALL),
                                            lambda v: locale.setlocale(locale.LC_ALL, v)),
        "NumPy's print options": (np.get_printoptions(), lambda o: np.set_printoptions(**o)),
        "the processor's flush-to-zero modes (FTZ/DAZ: a library built with -ffast-math)": (
            flushes_subnormals(), lambda on: on or clear_flush_modes()),
        "pandas' options (pd.set_option)": (pandas_options(), set_pandas_options),
        **({"the CPUs the process may use (os.sched_setaffinity)": (
            os.sched_getaffinity(0), lambda cpus: os.sched_setaffinity(0, cpus))}
           if hasattr(os, "sched_setaffinity") else {}),
        **({"the limit on integer digits (sys.set_int_max_str_digits)": (
            sys.get_int_max_str_digits(), sys.set_int_max_str_digits)}
           if hasattr(sys, "get_int_max_str_digits") else {}),
        **loader_and_thread_state(),
    }


def _soft_limits() -> dict[str, tuple[int, int]]:
    """``{name: (resource, soft limit)}`` of the limits a ranker could lower for the run after it
    (open files, file size, CPU seconds, address space); empty where ``resource`` is missing."""
    try:
        import resource
    except ImportError:  # Windows
        return {}
    names = ("RLIMIT_NOFILE", "RLIMIT_FSIZE", "RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_DATA")
    return {n: (getattr(resource, n), resource.getrlimit(getattr(resource, n))[0])
            for n in names if hasattr(resource, n)}


#: Top-level packages whose module-level functions and classes a ranker must not replace
#: (``np.argsort = ...`` would reverse every later ranking): NumPy, pandas, SciPy, ltrbench,
#: the GBDT libraries, the built-ins, ``math`` and the standard library ltrbench calls
#: (:data:`bench.runners.custom_state.STDLIB_GUARDED`). Checked by identity after each call, put
#: back and named (about 20 ms for 35,000 functions); the methods of their classes too
#: (:func:`_library_classes`).
#: numba is left out: its dispatchers and registries rebind their own module globals as they
#: compile, which a ranker using numba triggers legitimately.
_GUARDED_PACKAGES = frozenset({"numpy", "pandas", "scipy", "bench", "builtins", "math",
                               "operator", *STDLIB_GUARDED,
                               *(lib.import_name for lib in LIBRARIES.values())})


def _library_functions() -> list[tuple[str, Any, dict[str, Any]]]:
    """``(module name, module, a copy of its namespace)`` of the loaded modules of
    :data:`_GUARDED_PACKAGES`; only the callables in it are guarded (:func:`_put_back_functions`).
    The copy is one C-level ``dict.copy()`` per module: the callables are picked out at put-back time,
    among the names that changed, not in every snapshot."""
    return [(name, module, namespace.copy()) for name, module in list(sys.modules.items())
            if name.partition(".")[0] in _GUARDED_PACKAGES
            and isinstance(namespace := getattr(module, "__dict__", None), dict)]


def _put_back_functions(taken: list[tuple[str, Any, dict[str, Any]]]) -> list[str]:
    """Put back every function of :func:`_library_functions` that was replaced or removed;
    what was, by name (``numpy.argsort replaced``)."""
    changed = []
    for name, module, namespace_then in taken:
        namespace = module.__dict__
        if _unchanged(namespace, namespace_then):
            continue
        for key, value in namespace_then.items():
            if namespace.get(key, _MISSING) is not value and callable(value):
                namespace[key] = value
                changed.append(f"{name}.{key}")
    if not changed:
        return []
    more = f" and {len(changed) - 5} more" if len(changed) > 5 else ""
    return [f"library functions it replaced ({', '.join(changed[:5])}{more})"]


_MISSING = object()


def _unchanged(now: Mapping[str, Any], then: dict[str, Any]) -> bool:
    """Whether a namespace holds the same names in the same order, each bound to the very same
    object as when ``then`` was copied: the common case, checked at C speed (list equality and
    ``map(operator.is_)``) before any name is looked at one by one."""
    return len(now) == len(then) and list(now) == list(then) \
        and all(map(operator.is_, now.values(), then.values()))

#: ``type.__flags__`` bit of a type whose attributes cannot be set (``Py_TPFLAGS_IMMUTABLETYPE``,
#: CPython ``Include/object.h``): ``numpy.ndarray``, ``int``; nothing to guard there.
_IMMUTABLE_TYPE = 1 << 8


def _is_method(value: Any) -> bool:
    return callable(value) or isinstance(value, (classmethod, staticmethod, property))


#: The mutable classes each guarded module defines, found once per module object and namespace
#: size (a module that grows is searched again): finding them is a walk over every name of every
#: module (about 60 ms), taking their attributes is one ``copy()`` each.
_CLASSES_OF: dict[str, tuple[Any, int, list[type]]] = {}


def _classes_of(name: str, module: Any) -> list[type]:
    namespace = getattr(module, "__dict__", {})
    known = _CLASSES_OF.get(name)
    if known is not None and known[0] is module and known[1] == len(namespace):
        return known[2]
    classes = [value for value in list(namespace.values())
               if isinstance(value, type) and value.__module__ == name
               and not value.__flags__ & _IMMUTABLE_TYPE]
    _CLASSES_OF[name] = (module, len(namespace), classes)
    return classes


def _library_classes() -> list[tuple[str, type, dict[str, Any]]]:
    """``(module name, class, a copy of its attributes)`` of the mutable classes defined in the
    loaded modules of :data:`_GUARDED_PACKAGES` (about 1,800 classes and 15,000 methods): the
    methods, properties, class and static methods among them are guarded, the things that change
    behaviour (:func:`_put_back_classes`)."""
    return [(name, cls, cls.__dict__.copy())  # the mapping proxy's C copy: 3x dict(vars(cls))
            for name, module in list(sys.modules.items())
            if name.partition(".")[0] in _GUARDED_PACKAGES
            for cls in _classes_of(name, module)]


def _put_back_classes(taken: list[tuple[str, type, dict[str, Any]]]) -> list[str]:
    """Put back every method of :func:`_library_classes` that was replaced or removed, remove one
    that was added (it would shadow a base class's); what was, by name."""
    changed = []
    for module, cls, attributes in taken:
        now = vars(cls)
        if _unchanged(now, attributes):
            continue
        name = f"{module}.{cls.__qualname__}"
        for key, value in attributes.items():
            if (current := now.get(key, _MISSING)) is not value and (
                    _is_method(value) or _is_method(current)):
                with contextlib.suppress(AttributeError, TypeError):
                    setattr(cls, key, value)
                changed.append(f"{name}.{key}")
        for key in now.keys() - attributes.keys():
            if _is_method(now[key]):
                with contextlib.suppress(AttributeError, TypeError):
                    delattr(cls, key)
                changed.append(f"{name}.{key} (added)")
    if not changed:
        return []
    more = f" and {len(changed) - 5} more" if len(changed) > 5 else ""
    return [f"methods of library classes it replaced ({', '.join(changed[:5])}{more})"]


def _same_np_state(a: Any, b: Any) -> bool:
    return bool(a[0] == b[0] and np.array_equal(a[1], b[1]) and a[2:] == b[2:])


#: Classes of the rankers built so far -> how errors name their model (see :func:`watch_finaliser`).
_FINALISED: weakref.WeakKeyDictionary[type, str] = weakref.WeakKeyDictionary()
_previous_hook: list[Any] = []


def watch_finaliser(ranker: object, where: str) -> None:
    """Report an exception raised by ``ranker``'s finaliser (``__del__``, run whenever the
    ranker is dropped, long after its calls) as one line naming ``where`` on stderr, instead of
    Python's ``Exception ignored in ... Traceback`` block. Installs a ``sys.unraisablehook``
    once, which hands every other unraisable exception to the hook it replaced."""
    if type(ranker).__module__ == "builtins":  # a function or a dict is no class of the user's
        return
    _FINALISED[type(ranker)] = where
    if sys.unraisablehook is not _unraisable:
        _previous_hook[:] = [sys.unraisablehook]
        sys.unraisablehook = _unraisable


def _unraisable(unraisable: Any) -> None:
    obj = unraisable.object
    where = next((w for t, w in list(_FINALISED.items())
                  if obj is getattr(t, "__del__", None) or isinstance(obj, t)), None)
    if where is None:
        (_previous_hook[0] if _previous_hook else sys.__unraisablehook__)(unraisable)
        return
    exc = unraisable.exc_value
    print(f"warning: {where}: its finaliser (__del__) raised {type(exc).__name__}: "
          f"{one_line(exc)} (ignored)", file=sys.stderr)


#: How long one call of a user's ranker (its factory, ``fit``, each ``predict``) may run unless
#: its table says otherwise (``timeout = SECONDS`` in ``[custom_models.<name>]``): one hour,
#: four times the longest built-in fit measured here (LightGBM on MSLR-WEB30K, 857 s).
DEFAULT_TIMEOUT_S = 3600.0


#: The repeat interval of the time limit's timer (again every second past the limit); a timer
#: with another interval when the call returns was set or cancelled by the ranker.
_REPEAT = 1.0


class RankerTimeout(BaseException):
    """Raised inside a user's ranker whose call ran past its time limit (a ``BaseException``,
    so that a ranker's ``except Exception`` does not swallow it; one that swallows it anyway is
    stopped again every second, and is failed when it returns)."""


@contextlib.contextmanager
def time_limit(seconds: float, changed: list[str] | None = None) -> Iterator[threading.Event]:
    """Stop the block (a user's ranker's call) after ``seconds``: yields an event that is set
    once the limit has passed; the caller fails the call when it is set, however the block ended.

    A watchdog thread raises :class:`RankerTimeout` in the calling thread
    (``PyThreadState_SetAsyncExc``, CPython ``Python/pystate.c``: delivered between two
    bytecodes), again every second while the block goes on; in the main thread an interval
    timer's ``SIGALRM`` also interrupts a blocking system call (``time.sleep``: PEP 475 retries it
    unless the handler raises). A call that stays inside native code (a C extension's loop) is
    stopped when it returns to Python. Nothing is left pending once the block is over; an
    interval timer or ``SIGALRM`` handler the block set or cancelled is put back and named in
    ``changed`` (as :func:`isolated_process` names it).
    """
    import ctypes

    expired, done, lock = threading.Event(), threading.Event(), threading.Lock()
    target = threading.get_ident()
    main = threading.current_thread() is threading.main_thread()

    def fire() -> None:
        if done.wait(seconds):
            return
        while True:
            with lock:
                if done.is_set():
                    return
                expired.set()
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(target),
                                                           ctypes.py_object(RankerTimeout))
            if done.wait(1.0):
                return

    def alarm(signum: int, frame: Any) -> None:
        if not done.is_set():
            expired.set()
            raise RankerTimeout

    handler, timer, start = None, (0.0, 0.0), time.monotonic()
    if main:
        handler = signal.signal(signal.SIGALRM, alarm)
        timer = signal.setitimer(signal.ITIMER_REAL, seconds, _REPEAT)
    watchdog = threading.Thread(target=fire, name="ltrbench-ranker-time-limit", daemon=True)
    watchdog.start()

    def stop() -> None:
        with lock:
            done.set()
            if expired.is_set():  # an exception not yet delivered: cleared
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(target), None)

    try:
        yield expired
    finally:
        while not done.is_set():  # a RankerTimeout delivered here, before done: stop again
            with contextlib.suppress(RankerTimeout):
                stop()
        if main:
            left = max(timer[0] - (time.monotonic() - start), 1e-6) if timer[0] else 0.0
            if signal.setitimer(signal.ITIMER_REAL, left, timer[1])[1] != _REPEAT \
                    and changed is not None:  # an outer timer (pytest-timeout) runs on as before
                changed.append("an alarm it set (signal.alarm / setitimer), cancelled")
            back = handler if handler is not None else signal.SIG_DFL  # None: set outside Python
            if signal.signal(signal.SIGALRM, back) is not alarm and changed is not None:
                changed.append("the SIGALRM handler")
        watchdog.join()
