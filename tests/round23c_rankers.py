"""Rankers for ``tests/test_hostile_round23_usercode.py`` (named in specs as
``"round23c_rankers:<name>"``: the test puts this folder on ``sys.path``). Each scores a row by
its first feature (the oracle: ``X[:, 0]``) unless its name says otherwise, and does one odd
thing an ML engineer's own code does."""

from __future__ import annotations

import array
import decimal
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def first(X: Any) -> Any:
    return np.asarray(X[:, 0], dtype=np.float64)


class Base:
    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def fit(self, X: Any, y: Any, *, group: Any) -> Base:
        return self

    def predict(self, X: Any) -> Any:
        return first(X)


def _predicting(fn: Callable[[Any], Any]) -> type[Base]:
    class R(Base):
        def predict(self, X: Any) -> Any:
            return fn(X)
    return R


def _fitting(fn: Callable[[], None]) -> type[Base]:
    class R(Base):
        def fit(self, X: Any, y: Any, *, group: Any) -> Base:
            fn()
            return self
    return R


# ----------------------------------------------------------------- odd things predict returns
MatrixRow = _predicting(lambda X: np.matrix(first(X)))
ComplexScores = _predicting(lambda X: first(X).astype(complex))
Durations = _predicting(lambda X: np.arange(len(X)).astype("timedelta64[s]"))
Structured = _predicting(lambda X: np.array([(v,) for v in first(X)], dtype=[("s", "f8")]))
StdlibArray = _predicting(lambda X: array.array("d", first(X)))
View = _predicting(lambda X: memoryview(first(X).copy()))
HalfOverflow = _predicting(lambda X: (first(X) * 1e5).astype(np.float16))
SignedZeros = _predicting(lambda X: np.where(first(X) > 0, 0.0, -0.0))


def _chunked(X: Any) -> Any:
    import pyarrow as pa

    return pa.chunked_array([first(X)[:3], first(X)[3:]])


Chunked = _predicting(_chunked)


def _exit_text(X: Any) -> Any:
    sys.exit("model not ready")


ExitsWithText = _predicting(_exit_text)


def _generator_exit(X: Any) -> Any:
    raise GeneratorExit


RaisesGeneratorExit = _predicting(_generator_exit)


class Slow(Base):
    def fit(self, X: Any, y: Any, *, group: Any) -> Slow:
        time.sleep(3)
        return self


def returns_lgbm_class(seed: int = 0) -> Any:
    import lightgbm

    return lightgbm.LGBMRanker


# --------------------------------------------------- what fit changes in ltrbench's process
def _errcall() -> None:
    np.seterrcall(lambda *a: None)


def _bufsize() -> None:
    np.setbufsize(16)


def _decimal() -> None:
    decimal.getcontext().prec = 3
    decimal.getcontext().rounding = decimal.ROUND_DOWN


def _argv() -> None:
    sys.argv[:] = ["train.py", "--lr", "9"]


def _stdin() -> None:
    sys.stdin = None  # type: ignore[assignment]


def _tz() -> None:
    os.environ["TZ"] = "Asia/Kolkata"
    time.tzset()


def _lgb_logger() -> None:
    import lightgbm

    class Loud:
        def info(self, msg: str) -> None:
            print("LGB", msg)

        def warning(self, msg: str) -> None:
            print("LGB", msg)

    lightgbm.register_logger(Loud())


def _xgb_config() -> None:
    import xgboost

    xgboost.set_config(verbosity=3)


def _sklearn_config() -> None:
    import sklearn

    sklearn.set_config(assume_finite=True, transform_output="pandas")


SetsErrCall = _fitting(_errcall)
SetsBufSize = _fitting(_bufsize)
SetsDecimal = _fitting(_decimal)
SetsArgv = _fitting(_argv)
ClosesStdin = _fitting(_stdin)
SetsZone = _fitting(_tz)
LightGBMLogger = _fitting(_lgb_logger)
XGBoostConfig = _fitting(_xgb_config)
SklearnConfig = _fitting(_sklearn_config)


def _everything() -> None:
    for change in (_errcall, _bufsize, _decimal, _argv, _stdin, _tz, _lgb_logger, _xgb_config,
                   _sklearn_config):
        change()


ChangesProcess = _fitting(_everything)
