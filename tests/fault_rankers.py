"""Hostile rankers of ``tests/test_hostile_rankers_faults.py`` (named in configs as
``"fault_rankers:<name>"``; pytest puts this folder on ``sys.path``).

Each one attacks the process a custom ranker runs in rather than its own arrays: the global
random state, the working directory, the environment, ``sys.stdout``, the signal handlers, the
umask, threads and finalisers left behind, a ``fit`` that never runs its body.
"""

from __future__ import annotations

import os
import random
import signal
import sys
import threading
import time
from typing import Any, ClassVar

import numpy as np


class Base:
    """Scores = the first feature; ``fit`` does nothing."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        return self

    def predict(self, X: Any) -> Any:
        return np.asarray(X[:, 0], dtype=np.float64)


class Gives(Base):
    """``predict`` returns ``Gives.make(X)`` (set by the tests)."""

    make: ClassVar[Any] = None

    def predict(self, X: Any) -> Any:
        return type(self).make(X)


class FitNotCallable(Base):
    """``fit`` is an attribute, not a method."""

    fit = 5  # type: ignore[assignment]


def returns_function(seed: int = 0) -> Any:
    """A factory that returns a plain function (callable, no fit or predict)."""
    return lambda X: X


def returns_module(seed: int = 0) -> Any:
    """A factory that returns a module that happens to have no fit/predict."""
    return np


class GeneratorFit(Base):
    """``fit`` is a generator function: calling it runs none of its body."""

    fitted: ClassVar[bool] = False

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        type(self).fitted = True
        yield self


class AsyncFit(Base):
    """``fit`` is a coroutine function: calling it runs none of its body."""

    async def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        return self


class PredictNotCallable(Base):
    """``predict`` is a list."""

    predict: ClassVar[Any] = [1.0]


class SeedsGlobalNumpy(Base):
    """``fit`` reseeds NumPy's and Python's global generators and draws from them."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        np.random.seed(12345)  # noqa: NPY002 - the global state is the point
        random.seed(12345)
        np.random.random(10)  # noqa: NPY002
        return self


class ChangesDirectory(Base):
    """``fit`` changes the working directory to the filesystem root."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        os.chdir(os.sep)
        return self


class SetsEnvironment(Base):
    """``fit`` sets thread and data variables of the environment (and removes PATH's siblings)."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        os.environ["OMP_NUM_THREADS"] = "1"
        os.environ["LTRBENCH_DATA_DIR"] = "/nonexistent-ltrbench"
        os.environ["HOSTILE_RANKER_WAS_HERE"] = "1"
        return self


class ReplacesStdout(Base):
    """``fit`` replaces ``sys.stdout`` by a sink of its own and never puts it back."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        import io

        sys.stdout = io.StringIO()
        return self


class PrintsALot(Base):
    """``fit`` and ``predict`` print many lines to stdout (Python's and the file descriptor)."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        for i in range(2000):
            print(f"iteration {i} loss {1.0 / (i + 1):.6f}")
        sys.stdout.flush()
        os.write(1, b"native library chatter on fd 1\n")
        return self

    def predict(self, X: Any) -> Any:
        print("{ not json")
        return np.asarray(X[:, 0], dtype=np.float64)


class IgnoresSigint(Base):
    """``fit`` makes Ctrl-C do nothing for the rest of the process."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        return self


class SetsUmask(Base):
    """``fit`` sets the umask so that every later file is created unreadable (mode 000)."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        os.umask(0o777)
        return self


class ThreadWritesLater(Base):
    """``fit`` starts a thread that waits until the run's arrays are writeable again (after the
    custom model) and then zeroes the training labels and features through the view it kept."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        def later() -> None:
            for _ in range(4000):  # up to 40 s: until the flags are restored
                try:
                    y.flags.writeable = True
                    X.flags.writeable = True
                    break
                except ValueError:
                    time.sleep(0.01)
            else:
                return
            y[:] = 0.0
            X[:] = 0.0

        threading.Thread(target=later, daemon=True).start()
        return self


class ThreadRaises(Base):
    """``fit`` starts a thread that writes into the read-only ``X`` (and so raises in the thread)."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        def write() -> None:
            X[:] = 0.0

        t = threading.Thread(target=write)
        t.start()
        t.join()
        return self


class FinaliserWrites(Base):
    """Keeps the training labels; its ``__del__`` (after the custom model, when the ranker is
    dropped) makes them writeable again and zeroes them."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        self.kept = y
        return self

    def __del__(self) -> None:
        kept = getattr(self, "kept", None)
        if kept is None:
            return
        try:
            kept.flags.writeable = True
            kept[:] = 0.0
        except ValueError:
            pass


class RaisesKeyboardInterrupt(Base):
    """``fit`` raises KeyboardInterrupt itself."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt


class RaisesBaseException(Base):
    """``fit`` raises a BaseException that is neither Exception nor SystemExit."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        raise GeneratorExit("odd")


class RaisesRecursion(Base):
    """``predict`` recurses without end."""

    def predict(self, X: Any) -> Any:
        return self.predict(X)


class RaisesMemoryError(Base):
    """``fit`` runs out of memory."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        raise MemoryError()


class Slow(Base):
    """``fit`` sleeps (a slow ranker to interrupt), unless ``$FAULT_RANKER_FAST`` is set."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        if not os.environ.get("FAULT_RANKER_FAST"):
            marker = os.environ.get("FAULT_RANKER_MARKER")
            if marker:
                open(marker, "w").close()
            time.sleep(120)
        return self


class CrashesUnlessFixed(Base):
    """``fit`` raises unless ``$FAULT_RANKER_FIXED`` is set (a crash, then a resume)."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        if not os.environ.get("FAULT_RANKER_FIXED"):
            raise RuntimeError("out of memory on the GPU")
        return self


class DeletesRunFile(Base):
    """``fit`` deletes ``$FAULT_RANKER_DELETE`` (a run file, vanishing mid-run)."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        import glob

        for path in glob.glob(os.environ["FAULT_RANKER_DELETE"]):
            if os.path.isdir(path):
                import shutil

                shutil.rmtree(path)
            else:
                os.unlink(path)
        return self


class NeedsArgument(Base):
    """A class whose ``__init__`` needs an argument the config does not give."""

    def __init__(self, depth: int, seed: int = 0) -> None:
        self.depth = depth


class RaisesMultiLine(Base):
    """``fit`` raises an error whose message spans several lines (as native libraries' do)."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        raise RuntimeError("CUDA error\n  at kernel.cu:12\n\n  out of memory")


def multi_line_factory(seed: int = 0) -> Any:
    """A factory that raises a multi-line error."""
    raise ValueError("first line\nsecond line")
