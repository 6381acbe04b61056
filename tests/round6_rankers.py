"""Custom rankers of the round-6 hostile catalogue (``tests/test_hostile_round6_rankers.py``):
rankers that patch methods of library classes, and rankers that never finish."""

from __future__ import annotations

import contextlib
import time
from typing import Any

import numpy as np
from round5_rankers import Base


class PatchesBoosterPredict(Base):
    """``lightgbm.Booster.predict`` reversed: every later LightGBM model would rank upside down."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        import lightgbm

        real = lightgbm.Booster.predict
        lightgbm.Booster.predict = lambda self, *a, **k: -real(self, *a, **k)  # type: ignore[method-assign]
        return self


class PatchesDataFrameMethod(Base):
    """``pandas.DataFrame.sort_values`` replaced by one that ignores its arguments."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        import pandas as pd

        pd.DataFrame.sort_values = lambda self, *a, **k: self  # type: ignore[assignment,method-assign]
        return self


class PatchesAProperty(Base):
    """A property of a pandas class replaced (``DataFrame.shape``)."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        import pandas as pd

        pd.DataFrame.shape = property(lambda self: (0, 0))  # type: ignore[assignment,method-assign]
        return self


class PatchesAClassMethod(Base):
    """A class method of a pandas class replaced (``DataFrame.from_records``)."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        import pandas as pd

        pd.DataFrame.from_records = classmethod(lambda cls, *a, **k: None)  # type: ignore[assignment,method-assign]
        return self


class ShadowsAnInheritedMethod(Base):
    """A method added to a subclass that shadows its base's (``LGBMRanker.predict`` is
    ``LGBMModel.predict``): a new key of the class, not a replaced one."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        import lightgbm

        lightgbm.LGBMRanker.predict = lambda self, X, **k: np.zeros(len(X))  # type: ignore[method-assign]
        return self


class DeletesAMethod(Base):
    """A method removed from a class of ltrbench (``LetorData.__post_init__``'s checks gone)."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        from bench.data.letor import LetorData

        if "__post_init__" in vars(LetorData):
            del LetorData.__post_init__
        return self


def _spin(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


class SpinsInFit(Base):
    """``fit`` loops for a minute (pure Python)."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        _spin(60)
        return self


class SleepsInFit(Base):
    """``fit`` sleeps for a minute (a blocking system call)."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        time.sleep(60)
        return self


class SwallowsEverything(Base):
    """``fit`` catches every exception (``except BaseException``) and goes on looping, twice."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        for _ in range(3):
            with contextlib.suppress(BaseException):  # the attack: swallow the stop
                _spin(20)
        return self


class SpinsInPredict(Base):
    """``predict`` loops for a minute."""

    def predict(self, X: Any) -> Any:
        _spin(60)
        return super().predict(X)


class AlarmInFit(Base):
    """``fit`` cancels every interval timer (``signal.setitimer(0)``) and then loops."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        import signal

        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        _spin(60)
        return self


def slow_factory(seed: int = 0) -> Base:
    """A factory that loops for a minute before it returns a ranker."""
    _spin(60)
    return Base(seed)


class FastEnough(Base):
    """``fit`` takes 0.2 s: well inside its limit, however busy the machine."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        time.sleep(0.2)
        return self


