"""Rankers of tests/test_hostile_round15_grandmaster_rankers.py (a module the runs import by name):
a Kaggle grandmaster's wrappers, ensembles and odd outputs."""

from __future__ import annotations

import time
from typing import Any, ClassVar

import numpy as np
from custom_rankers import FirstFeature


class Noop(FirstFeature):
    """Scores = the first feature; fit does nothing (its time is the call's alone)."""


class Sleepy(Noop):
    """fit sleeps ``fit_sleep`` s, each predict ``predict_sleep`` s; records its own fit time."""

    inner: ClassVar[list[float]] = []

    def __init__(self, fit_sleep: float = 0.0, predict_sleep: float = 0.0) -> None:
        self.fit_sleep, self.predict_sleep = fit_sleep, predict_sleep

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        time.sleep(self.fit_sleep)
        Sleepy.inner.append(time.perf_counter() - t0)
        return self

    def predict(self, X: Any) -> Any:
        time.sleep(self.predict_sleep)
        return np.asarray(X[:, 0], dtype=np.float64)


class Out(Noop):
    """predict returns the output ``kind`` names (the scores of the first feature, made odd)."""

    def __init__(self, kind: str = "const") -> None:
        self.kind = kind

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        self.n_train = len(X)
        self.group = np.asarray(group)
        return self

    def predict(self, X: Any) -> Any:
        n, first, k = len(X), np.asarray(X[:, 0], dtype=np.float64), self.kind
        if k == "const":
            return np.full(n, 0.5)
        if k == "f16":
            return np.asarray(X[:, 0], dtype=np.float16)
        if k == "f32":
            return np.asarray(X[:, 0], dtype=np.float32)
        if k == "tuple_with_leaves":
            return first, np.zeros(n, dtype=np.int32)
        if k == "row":
            return first.reshape(1, n)
        if k == "decimal":
            from decimal import Decimal

            return [Decimal(float(v)) for v in first]
        if k == "record":
            return np.rec.fromarrays([first], names="score")
        if k == "timedelta":
            return np.arange(n).astype("m8[s]")
        if k == "bool_list":
            return [bool(v > 0) for v in first]
        if k == "nullable_missing":
            import pandas as pd

            return pd.array([None, *first[1:].tolist()], dtype="Float64")
        if k == "arrow":
            import pyarrow as pa

            return pa.array(first)
        if k == "train_length":  # scores cached from fit: the training split's length
            return np.zeros(self.n_train) + np.arange(self.n_train)
        if k == "view_of_input":
            return X[:, 0]
        if k == "all_but_one_query_tied":
            out = np.zeros(n)
            out[:2] = [1.0, 0.0]
            return out
        raise AssertionError(k)


class PerQuery(Noop):
    """A query-level score: each query's rows get its first row's first feature (every query tied
    within, queries different)."""

    def __init__(self) -> None:
        self.sizes: list[int] = []

    def predict(self, X: Any) -> Any:
        per = 5  # the toy splits' queries have 5 rows
        first = np.asarray(X[::per, 0], dtype=np.float64)
        return np.repeat(first, per)


class Spy(Noop):
    """Records what it is given (class-level, read by the tests)."""

    got: ClassVar[dict[str, Any]] = {}

    def fit(self, X: Any, y: Any, *, group: Any, eval_set: Any = None,
            eval_group: Any = None) -> Any:
        chain, a = [], X
        while isinstance(a, np.ndarray):
            chain.append(a.shape[0])
            a = a.base
        Spy.got = {"X": X, "y": y, "group": group, "eval_set": eval_set, "eval_group": eval_group,
                   "chain": chain, "predicted": []}
        return self

    def predict(self, X: Any) -> Any:
        Spy.got["predicted"].append((X.shape[0], X.flags.writeable, X.copy()))
        return np.asarray(X[:, 0], dtype=np.float64)


class Ensemble:
    """The mean of an LGBMRanker and an XGBRanker, each with its own threads and the seed."""

    def __init__(self, seed: int = 0, n_estimators: int = 3) -> None:
        import lightgbm
        import xgboost

        self.models = [
            lightgbm.LGBMRanker(n_estimators=n_estimators, random_state=seed, n_jobs=1,
                                min_child_samples=1, verbose=-1),
            xgboost.XGBRanker(n_estimators=n_estimators, random_state=seed, n_jobs=1),
        ]

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        for m in self.models:
            m.fit(X, y, group=group)
        return self

    def predict(self, X: Any) -> Any:
        return np.mean([m.predict(X) for m in self.models], axis=0)


class EarlyStopped:
    """An LGBMRanker with its own early stopping on the evaluation set it is handed."""

    def __init__(self, seed: int = 0) -> None:
        import lightgbm

        self.model = lightgbm.LGBMRanker(n_estimators=30, learning_rate=0.3, random_state=seed,
                                         n_jobs=1, min_child_samples=1, verbose=-1)

    def fit(self, X: Any, y: Any, *, group: Any, eval_set: Any, eval_group: Any) -> Any:
        import lightgbm

        self.model.fit(X, y, group=group, eval_set=eval_set, eval_group=eval_group,
                       eval_at=[3], callbacks=[lightgbm.early_stopping(2, verbose=False)])
        return self

    def predict(self, X: Any) -> Any:
        return self.model.predict(X, raw_score=True)


class Positions(Noop):
    """Returns the rank positions (1 = best) of the first feature within each 5-row query."""

    def predict(self, X: Any) -> Any:
        first = np.asarray(X[:, 0], dtype=np.float64).reshape(-1, 5)
        order = np.argsort(-first, axis=1, kind="stable")
        ranks = np.empty_like(order)
        np.put_along_axis(ranks, order, np.arange(1, 6)[None, :].repeat(len(first), 0), axis=1)
        return ranks.reshape(-1)


_POOL: Any = None


class Pooled(Noop):
    """Fits two halves in a module-level thread pool that it never shuts down (kept between seeds)."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        global _POOL
        from concurrent.futures import ThreadPoolExecutor

        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=2)
        parts = list(_POOL.map(lambda a: float(np.asarray(a, dtype=np.float64).sum()),
                               [X[: len(X) // 2], X[len(X) // 2:]]))
        self.total = sum(parts)
        return self


class Builder:
    """A factory as a classmethod / a callable instance."""

    @classmethod
    def create(cls, seed: int = 0) -> Noop:
        return Noop()

    def __call__(self, seed: int = 0) -> Noop:
        return Noop()


BUILD = Builder()

