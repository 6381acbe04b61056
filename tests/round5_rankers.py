"""Custom rankers of the round-5 hostile catalogue (``tests/test_hostile_api_round5.py``).

Each is a module-level class or function, so that a config can name it
(``round5_rankers:<name>``); each misbehaves in one way a ranker written in good faith, or an
attacker, might.
"""

from __future__ import annotations

import gc
import inspect
import os
import sys
from typing import Any

import numpy as np


class Base:
    """A ranker that learns nothing: the first feature is its score."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        return self

    def predict(self, X: Any) -> Any:
        return np.asarray(X[:, 0], dtype=np.float64)


class FitIsAPropertyThatRaises:
    """``fit`` is a property whose getter raises: looking it up is user code too."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    @property
    def fit(self) -> Any:
        raise RuntimeError("no fit for you")

    def predict(self, X: Any) -> Any:
        return np.zeros(X.shape[0])


class GetattrRaises:
    """Every attribute lookup the class does not define raises a ``TypeError``."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def __getattr__(self, name: str) -> Any:
        raise TypeError(f"no attribute {name} here")


class GetParamsRaisesBase(Base):
    """``get_params`` raises ``BaseException`` subclasses other than Exception."""

    def get_params(self, deep: bool = True) -> Any:
        raise SystemExit(3)

    def set_params(self, **kw: Any) -> Any:
        return self


class RebindsTheData(Base):
    """Finds the run's ``LetorData`` through the garbage collector and rebinds its ``X`` to a
    changed copy: the arrays the run holds are never written, the data object is."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        from bench.data.letor import LetorData

        for obj in gc.get_referrers(X.base):
            if isinstance(obj, LetorData):
                object.__setattr__(obj, "X", np.zeros_like(obj.X))
        return self


class RebindsThroughTheStack(Base):
    """Walks up the call stack to the run's ``splits`` and replaces the training labels."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        for info in inspect.stack():
            splits = info.frame.f_locals.get("splits")
            if splits is not None and hasattr(splits, "train"):
                object.__setattr__(splits.train, "y", np.zeros_like(splits.train.y))
                break
        return self


class PatchesNumpy(Base):
    """Replaces ``numpy.argsort`` (and ``numpy.lexsort``) in the process: every later ranking
    would be reversed."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        real_argsort, real_lexsort = np.argsort, np.lexsort
        np.argsort = lambda a, *args, **kw: real_argsort(a, *args, **kw)[::-1]  # type: ignore[assignment]
        np.lexsort = lambda keys, *args, **kw: real_lexsort(keys, *args, **kw)[::-1]  # type: ignore[assignment]
        return self


class Forks(Base):
    """``fit`` forks; the child returns from ``fit`` as the parent does, so two processes would
    go on with the run."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        os.fork()
        return self


class ExitsTheProcess(Base):
    """``fit`` ends the process with ``os._exit(0)``: exit status 0, the run unfinished."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        os._exit(0)


class ExtendsSysPath(Base):
    """Puts a folder in front of ``sys.path`` and a fake module in ``sys.modules``."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        sys.path.insert(0, "/nonexistent-round5")
        return self


class CallableFactory:
    """An instance used as a factory (module attribute ``callable_factory``)."""

    def __call__(self, seed: int = 0) -> Base:
        return Base(seed)


callable_factory = CallableFactory()


class NoSeed:
    """A ranker whose factory takes no seed (scikit-learn style checks apply)."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        return self

    def predict(self, X: Any) -> Any:
        return np.asarray(X[:, 0], dtype=np.float64)


class GetParamsExits(NoSeed):
    """``get_params`` calls ``sys.exit`` (not an ``Exception``)."""

    def get_params(self, deep: bool = True) -> Any:
        raise SystemExit(3)

    def set_params(self, **kw: Any) -> Any:
        return self


class SetParamsRaises(NoSeed):
    """Says it takes ``random_state`` but ``set_params`` raises."""

    def get_params(self, deep: bool = True) -> Any:
        return {"random_state": None}

    def set_params(self, **kw: Any) -> Any:
        raise ValueError("read-only parameters")


class SwapsSysModules(Base):
    """Replaces the ``json`` module in ``sys.modules`` with an empty one."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        import types

        sys.modules["json"] = types.ModuleType("json")
        return self


class LowersTheRecursionLimit(Base):
    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        sys.setrecursionlimit(80)
        return self


class DisablesTheCollector(Base):
    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        gc.disable()
        return self


class LeavesAnAlarm(Base):
    """Sets ``signal.alarm``: its SIGALRM would end the run later."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        import signal

        signal.alarm(3600)
        return self


class IgnoresSigterm(Base):
    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        import signal

        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        return self


class LowersOpenFiles(Base):
    """Lowers the soft limit of open files to 16: later files of the run could not be opened."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        import resource

        resource.setrlimit(resource.RLIMIT_NOFILE, (16, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
        return self


class SetsPrintOptions(Base):
    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        np.set_printoptions(precision=1, legacy="1.13")
        return self


class _RaisingSignature:
    """A callable ``fit`` whose ``__signature__`` lookup raises."""

    @property
    def __signature__(self) -> Any:
        raise RuntimeError("no signature here")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return None


class FitSignatureRaises(Base):
    fit = _RaisingSignature()  # type: ignore[assignment]


def _square(v: float) -> float:
    return v * v


class UsesAForkPool(Base):
    """Trains with a ``multiprocessing`` pool of forked workers (which leave by ``os._exit``)."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(2) as pool:
            self.total = sum(pool.map(_square, [float(v) for v in X[:8, 0]]))
        return self


class RaisesInDel(Base):
    """Its finaliser raises once the run drops the ranker."""

    def __del__(self) -> None:
        raise RuntimeError("finaliser failed")


class CompilesWithNumba(Base):
    """Compiles a numba function in ``fit`` (numba changes its own state as it compiles)."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        import numba

        @numba.njit(cache=False)
        def total(a: Any) -> float:
            s = 0.0
            for v in a:
                s += v
            return s

        self.total = total(np.ascontiguousarray(X[:, 0]))
        return self
