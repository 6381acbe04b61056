"""Hostile custom rankers, round 8: new instances of issue 19's "rankers" class (user code
isolated, item 6).

Found and fixed here: a ``fit`` that closes ``sys.stdout`` closed ltrbench's standard error
(a ranker's standard output is sent there while it runs) and the process died with "lost
sys.stderr"; a ``fit`` that moves into a temporary folder and removes it left the process in
the removed folder (``os.path.isdir(".")`` still holds there) and the next ``predict`` was
blamed for ``FileNotFoundError``; an exception whose ``__str__`` raises escaped as a
traceback; a 10 MB exception message became a 10 MB error line. Beside them, new instances of
the classes earlier rounds covered: ``fit`` raising ``StopIteration`` or ltrbench's own
``ConfigError`` (still the ranker's failure, named), ``fit`` changing the recursion limit,
``sys.excepthook``, ``threading.excepthook``, the garbage collector or an alarm (each put back),
the processor's flush-to-zero modes (FTZ/DAZ, as a ``-ffast-math`` library sets them: left on
before, every later ranking tied subnormal scores with 0; now put back and named),
and ``predict`` returning a read-only array, an ndarray subclass, a lazy Dask array, a chunked
pyarrow array, integers, an (n, 1) column, text in an object array, a nullable boolean Series.

A case returns ``None`` when ltrbench behaved (the scores as float64, the process state put
back, or a :class:`~bench.errors.LtrbenchError` naming the ranker and the call), else one line.
``python tests/test_hostile_round8_rankers.py`` prints the counts.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import toy_splits

NAME = "hostile8"
MODULE = Path(__file__).stem


class Base:
    """Scores = the first feature; ``fit`` runs :meth:`go` (the attack)."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        self.go()
        return self

    def go(self) -> None:
        """Nothing (subclasses attack)."""

    def predict(self, X: Any) -> Any:
        return np.asarray(X[:, 0], dtype=np.float64)


class ClosesStdout(Base):
    def go(self) -> None:
        sys.stdout.close()


class RemovesItsWorkingDirectory(Base):
    def go(self) -> None:
        folder = tempfile.mkdtemp()
        os.chdir(folder)
        os.rmdir(folder)


class _Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no text")


class RaisesUnprintable(Base):
    def go(self) -> None:
        raise _Unprintable()


class RaisesHugeMessage(Base):
    def go(self) -> None:
        raise ValueError("x" * 10_000_000)


class RaisesStopIteration(Base):
    def go(self) -> None:
        raise StopIteration


class RaisesConfigError(Base):
    def go(self) -> None:
        from bench.errors import ConfigError

        raise ConfigError("all is fine")


class LowersRecursionLimit(Base):
    def go(self) -> None:
        sys.setrecursionlimit(120)


class SetsExceptHook(Base):
    def go(self) -> None:
        sys.excepthook = lambda *a: None


class SetsThreadingExceptHook(Base):
    def go(self) -> None:
        threading.excepthook = lambda *a: None


class DisablesGc(Base):
    def go(self) -> None:
        gc.disable()


class SetsAnAlarm(Base):
    def go(self) -> None:
        signal.alarm(300)


_FLUSH_IR = """
declare void @llvm.x86.sse.ldmxcsr(ptr)
declare void @llvm.x86.sse.stmxcsr(ptr)
define void @flush() {
  %p = alloca i32
  call void @llvm.x86.sse.stmxcsr(ptr %p)
  %v = load i32, ptr %p
  %w = or i32 %v, 32832
  store i32 %w, ptr %p
  call void @llvm.x86.sse.ldmxcsr(ptr %p)
  ret void
}"""


def set_flush_to_zero() -> None:
    """What loading a library built with -ffast-math does: FTZ (0x8000) and DAZ (0x40) on."""
    import ctypes

    import llvmlite.binding as llvm

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(_FLUSH_IR),
                                        llvm.Target.from_default_triple().create_target_machine())
    engine.finalize_object()
    ctypes.CFUNCTYPE(None)(engine.get_function_address("flush"))()


class SetsFlushToZero(Base):
    def go(self) -> None:
        set_flush_to_zero()


class Gives(Base):
    """``predict`` returns ``Gives.make(X)``."""

    make: ClassVar[Any] = None

    def predict(self, X: Any) -> Any:
        return type(self).make(X)


def _train(factory: str) -> tuple[Any, BaseException | None]:
    from bench.runners.custom import custom_model, train_custom

    try:
        return train_custom(custom_model(NAME, f"{MODULE}:{factory}"), toy_splits(), seed=0), None
    except Exception as exc:  # judged by the caller
        return None, exc


def _named(exc: BaseException | None, *words: str) -> str | None:
    from bench.errors import LtrbenchError

    if exc is None:
        return f"accepted, expected an error naming {words}"
    if not isinstance(exc, LtrbenchError):
        return f"traceback: {type(exc).__name__}: {str(exc)[:160]}"
    text = str(exc)
    missing = [w for w in (f"'{NAME}'", *words) if w not in text]
    return f"message {text[:200]!r} lacks {missing}" if missing else None


# ------------------------------------------------------------------ process state
def ranker_closing_sys_stdout_leaves_ltrbench_s_stderr_open() -> str | None:
    err = sys.stderr
    _, exc = _train("ClosesStdout")
    if getattr(err, "closed", False):
        return "ltrbench's standard error was closed by the ranker"
    return f"refused: {exc}" if exc is not None else None


def ranker_removing_its_working_directory_is_put_back_where_it_was() -> str | None:
    before = os.getcwd()
    _, exc = _train("RemovesItsWorkingDirectory")
    try:
        now = os.getcwd()
    except OSError:
        os.chdir(before)
        return "the process was left in a removed folder"
    if now != before:
        os.chdir(before)
        return f"working directory {now}, expected {before}"
    return f"refused: {exc}" if exc is not None else None


def ranker_whose_exception_cannot_be_printed_is_a_clear_error() -> str | None:
    return _named(_train("RaisesUnprintable")[1], "fit", "_Unprintable")


def ranker_raising_a_10_mb_message_gives_a_short_error() -> str | None:
    exc = _train("RaisesHugeMessage")[1]
    problem = _named(exc, "fit", "ValueError")
    return problem or (f"a {len(str(exc))}-character error" if len(str(exc)) > 5000 else None)


def ranker_raising_stop_iteration_is_named() -> str | None:
    return _named(_train("RaisesStopIteration")[1], "fit", "StopIteration")


def ranker_raising_ltrbench_s_own_config_error_is_still_its_failure() -> str | None:
    return _named(_train("RaisesConfigError")[1], "fit raised ConfigError")


def _put_back(factory: str, read: Callable[[], Any]) -> str | None:
    before = read()
    _, exc = _train(factory)
    after = read()
    if after != before:
        return f"{factory}: {before!r} became {after!r}"
    return f"refused: {exc}" if exc is not None else None


def ranker_lowering_the_recursion_limit_is_put_back() -> str | None:
    return _put_back("LowersRecursionLimit", sys.getrecursionlimit)


def ranker_setting_sys_excepthook_is_put_back() -> str | None:
    return _put_back("SetsExceptHook", lambda: sys.excepthook)


def ranker_setting_threading_excepthook_is_put_back() -> str | None:
    return _put_back("SetsThreadingExceptHook", lambda: threading.excepthook)


def ranker_disabling_the_garbage_collector_is_put_back() -> str | None:
    return _put_back("DisablesGc", gc.isenabled)


def ranker_setting_an_alarm_has_it_cancelled() -> str | None:
    problem = _put_back("SetsAnAlarm", lambda: signal.getitimer(signal.ITIMER_REAL)[0] > 0)
    signal.alarm(0)
    return problem


def ranker_turning_on_flush_to_zero_is_put_back_and_named() -> str | None:
    import platform

    from bench.data.subnormal import flushes_subnormals
    from bench.runners.custom_process import isolated_process

    if platform.machine().lower() not in ("x86_64", "amd64"):
        return None  # FTZ/DAZ are x86 MXCSR bits
    with isolated_process("test") as said:
        set_flush_to_zero()
    if flushes_subnormals():
        return "the process still flushes subnormal numbers to zero"
    _, exc = _train("SetsFlushToZero")
    if flushes_subnormals():
        return "the process flushes subnormal numbers to zero after the ranker"
    if not any("FTZ" in line for line in said):
        return f"not named: {said}"
    return f"refused: {exc}" if exc is not None else None


# ------------------------------------------------------------------ predict outputs
def _scores(make: Callable[[Any], Any], *refusal: str) -> str | None:
    """``refusal`` empty: the scores must be ``make(X)`` as float64; else a clear error."""
    import importlib

    importlib.import_module(MODULE).Gives.make = staticmethod(make)  # the class the run imports
    result, exc = _train("Gives")
    if refusal:
        return _named(exc, "predict", *refusal)
    if exc is not None:
        return f"refused: {exc}"
    X = toy_splits().test.X
    want = np.asarray(pd.Series(np.asarray(make(X.copy()))).to_numpy(dtype=np.float64))
    got = result.scores["test"]
    return None if got.dtype == np.float64 and np.array_equal(got, want) else f"scores {got[:3]}"


def _read_only(X: Any) -> Any:
    out = np.array(X[:, 0])
    out.setflags(write=False)
    return out


class _Sub(np.ndarray):
    pass


def _dask(X: Any) -> Any:
    import dask.array as da

    return da.from_array(np.array(X[:, 0]), chunks=7)


def _chunked(X: Any) -> Any:
    import pyarrow as pa

    return pa.chunked_array([X[:9, 0], X[9:, 0]])


OUTPUTS: dict[str, Callable[[], str | None]] = {
    "read-only array": lambda: _scores(_read_only),
    "ndarray subclass": lambda: _scores(lambda X: np.array(X[:, 0]).view(_Sub)),
    "lazy dask array": lambda: _scores(_dask),
    "chunked pyarrow array": lambda: _scores(_chunked),
    "int64 scores": lambda: _scores(lambda X: np.round(X[:, 0] * 100).astype(np.int64)),
    "an (n, 1) column": lambda: _scores(lambda X: np.array(X[:, :1]), "shape"),
    "text in an object array": lambda: _scores(
        lambda X: np.asarray(["0.5"] * X.shape[0], dtype=object), "object"),
    "nullable boolean series": lambda: _scores(
        lambda X: pd.Series(X[:, 0] > 0, dtype="boolean"), "bool"),
}

CASES: list[tuple[str, Callable[[], str | None]]] = [
    (fn.__name__, fn) for fn in (
        ranker_closing_sys_stdout_leaves_ltrbench_s_stderr_open,
        ranker_removing_its_working_directory_is_put_back_where_it_was,
        ranker_whose_exception_cannot_be_printed_is_a_clear_error,
        ranker_raising_a_10_mb_message_gives_a_short_error,
        ranker_raising_stop_iteration_is_named,
        ranker_raising_ltrbench_s_own_config_error_is_still_its_failure,
        ranker_lowering_the_recursion_limit_is_put_back,
        ranker_setting_sys_excepthook_is_put_back,
        ranker_setting_threading_excepthook_is_put_back,
        ranker_disabling_the_garbage_collector_is_put_back,
        ranker_setting_an_alarm_has_it_cancelled,
        ranker_turning_on_flush_to_zero_is_put_back_and_named,
    )] + [(f"predict_returns_{k.replace(' ', '_')}", fn) for k, fn in OUTPUTS.items()]


@pytest.mark.parametrize(("name", "fn"), CASES, ids=[n for n, _ in CASES])
def test_hostile_round8_ranker(name: str, fn: Callable[[], str | None]) -> None:
    problem = fn()
    assert problem is None, problem


if __name__ == "__main__":  # counts
    failed = 0
    for name, fn in CASES:
        problem = fn()
        if problem is not None:
            failed += 1
            print(f"FAIL {name}: {problem[:240]}", file=sys.__stderr__)
    print(f"{failed} of {len(CASES)} cases failed", file=sys.__stderr__)
