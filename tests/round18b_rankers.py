"""Rankers of an industry team plugged into ltrbench, round 18b (tests/test_hostile_round18b_rankers.py).

Real-world shapes: a scikit-learn Pipeline or GridSearchCV wrapped to take the groups, an
``LGBMRanker`` subclass, rankers whose ``predict`` returns odd containers, rankers that cache
by ``id(X)`` or keep ``X``, and factories that need arguments.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _w(X: Any, y: Any) -> Any:
    A = np.asarray(X, dtype=np.float64)
    return np.linalg.lstsq(A, np.asarray(y, dtype=np.float64), rcond=None)[0]


class Linear:
    """Least squares of the labels on the features: the oracle of the containers below."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def fit(self, X: Any, y: Any, group: Any = None) -> Any:
        self.w = _w(X, y)
        return self

    def scores(self, X: Any) -> Any:
        return np.asarray(X, dtype=np.float64) @ self.w


class PipelineRanker:
    """StandardScaler + Ridge in an sklearn Pipeline; the groups are taken and ignored."""

    def __init__(self, alpha: float = 1.0) -> None:
        self.alpha = alpha

    def fit(self, X: Any, y: Any, group: Any = None) -> Any:
        from sklearn.linear_model import Ridge
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        self.pipe = make_pipeline(StandardScaler(), Ridge(alpha=self.alpha)).fit(X, y)
        return self

    def predict(self, X: Any) -> Any:
        return self.pipe.predict(X)


class SearchRanker:
    """GridSearchCV over Ridge's alpha, grouped folds by query."""

    def __init__(self, alphas: list[float] | None = None) -> None:
        self.alphas = alphas or [0.1, 10.0]

    def fit(self, X: Any, y: Any, group: Any = None) -> Any:
        from sklearn.linear_model import Ridge
        from sklearn.model_selection import GridSearchCV, GroupKFold

        qid = np.repeat(np.arange(len(group)), group)
        self.search = GridSearchCV(Ridge(), {"alpha": self.alphas}, cv=GroupKFold(2))
        self.search.fit(X, y, groups=qid)
        return self

    def predict(self, X: Any) -> Any:
        return self.search.predict(X)


try:
    from lightgbm import LGBMRanker

    class TeamLGBM(LGBMRanker):  # type: ignore[misc]
        """The team's LGBMRanker with one extra parameter of its own, the rest through **kwargs."""

        def __init__(self, gain: float = 1.0, **kwargs: Any) -> None:
            self.gain = gain
            super().__init__(**kwargs)

        def predict(self, X: Any, **kwargs: Any) -> Any:  # type: ignore[override]
            return self.gain * super().predict(X, **kwargs)
except ImportError:  # pragma: no cover
    pass


class IgnoresRandomState(Linear):
    """Takes random_state and ignores it: every seed gives the same model."""

    def __init__(self, random_state: int = 0) -> None:
        self.random_state = random_state

    def predict(self, X: Any) -> Any:
        return self.scores(X)


class NoSeed:
    """Least squares; its factory takes no seed (nor random_state, nor set_params)."""

    def fit(self, X: Any, y: Any, group: Any = None) -> Any:
        self.w = _w(X, y)
        return self

    def predict(self, X: Any) -> Any:
        return np.asarray(X, dtype=np.float64) @ self.w


class FitReturnsFresh(Linear):
    """fit returns a new fitted copy and leaves itself unfitted (a common slip)."""

    def fit(self, X: Any, y: Any, group: Any = None) -> Any:
        other = Linear()
        return other.fit(X, y)

    def predict(self, X: Any) -> Any:
        return self.scores(X)


class Misleading(Linear):
    """``bool``, ``len`` and ``==`` raise (an ensemble whose truth value is ambiguous, as
    NumPy's), it is unhashable, and ``np.asarray(ranker)`` is its three weights' zeros."""

    __hash__ = None  # type: ignore[assignment]

    def __bool__(self) -> bool:
        raise ValueError("the truth value of a ranker is ambiguous")

    def __len__(self) -> int:
        raise TypeError("no len")

    def __eq__(self, other: object) -> bool:
        raise TypeError("no comparison")

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        return np.zeros(3)

    def predict(self, X: Any) -> Any:
        return self.scores(X)


class CachesById(Linear):
    """Memoises predict by ``id(X)`` (a cache a team adds to skip re-scoring the same batch)."""

    def fit(self, X: Any, y: Any, group: Any = None) -> Any:
        self.cache: dict[int, Any] = {}
        return super().fit(X, y)

    def predict(self, X: Any) -> Any:
        key = id(X)
        if key not in self.cache:
            self.cache[key] = self.scores(X)
        return self.cache[key]


class KeepsTrain(Linear):
    """Keeps the training X and scores each row by its nearest training row's label (1-NN)."""

    def fit(self, X: Any, y: Any, group: Any = None) -> Any:
        self.X, self.y = X, y
        return self

    def predict(self, X: Any) -> Any:
        d = ((np.asarray(X)[:, None, :] - np.asarray(self.X)[None, :, :]) ** 2).sum(-1)
        return np.asarray(self.y)[d.argmin(1)] + 0.001 * np.asarray(X)[:, 0]


class PredictReturnsInput(Linear):
    """predict returns X[:, 0], a view of ltrbench's (read-only) input."""

    def predict(self, X: Any) -> Any:
        return X[:, 0]


class NeedsArgs:
    """A factory whose parameters have types: width an int, names a list of str."""

    def __init__(self, width: int, names: list[str], scale: float = 1.0) -> None:
        if not isinstance(width, int) or isinstance(width, bool):
            raise TypeError(f"width must be an int, got {type(width).__name__}")
        self.width, self.names, self.scale = width, names, scale

    def fit(self, X: Any, y: Any, group: Any = None) -> Any:
        self.w = _w(X, y)
        return self

    def predict(self, X: Any) -> Any:
        return self.scale * (np.asarray(X, dtype=np.float64) @ self.w)


def make_pipeline_ranker(alpha: float = 1.0) -> PipelineRanker:
    return PipelineRanker(alpha=alpha)


class ReusesBuffer(Linear):
    """Writes every split's scores into one buffer it keeps and returns it."""

    def predict(self, X: Any) -> Any:
        if getattr(self, "buf", None) is None or len(self.buf) != len(X):
            self.buf = np.empty(len(X))
        self.buf[:] = self.scores(X)
        return self.buf


class SklearnGroups(Linear):
    """scikit-learn's spelling: fit(X, y, groups=None), one query id per row."""

    def fit(self, X: Any, y: Any, groups: Any = None) -> Any:  # type: ignore[override]
        return super().fit(X, y)

    def predict(self, X: Any) -> Any:
        return self.scores(X)
