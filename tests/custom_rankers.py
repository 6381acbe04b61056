"""Rankers a user might write, for the tests of ``bench.runners.custom`` (named in configs as
``"custom_rankers:<name>"``: pytest puts this folder on ``sys.path``)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np


class LinearRanker:
    """Ridge regression of the labels on the features, fitted on a seeded 80% of the training
    rows (so that each seed gives another model). Records what each ``fit`` received."""

    #: One entry per fit: the shapes and groups ltrbench passed (read by the tests).
    calls: ClassVar[list[dict[str, Any]]] = []

    def __init__(self, alpha: float = 1.0, seed: int = 0) -> None:
        self.alpha = alpha
        self.seed = seed
        self.coef_: np.ndarray | None = None

    def fit(self, X: np.ndarray, y: np.ndarray, *, group: np.ndarray,
            eval_set: list[tuple[np.ndarray, np.ndarray]] | None = None,
            eval_group: list[np.ndarray] | None = None) -> LinearRanker:
        LinearRanker.calls.append({
            "seed": self.seed, "X": X.shape, "group": np.asarray(group).copy(),
            "eval_X": None if eval_set is None else eval_set[0][0].shape,
            "eval_y": None if eval_set is None else np.asarray(eval_set[0][1]).copy(),
            "eval_group": None if eval_group is None else np.asarray(eval_group[0]).copy(),
        })
        rng = np.random.default_rng(self.seed)
        keep = rng.random(X.shape[0]) < 0.8
        A = np.hstack([X[keep].astype(np.float64), np.ones((int(keep.sum()), 1))])
        self.coef_ = np.linalg.solve(A.T @ A + self.alpha * np.eye(A.shape[1]), A.T @ y[keep])
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        assert self.coef_ is not None
        return np.asarray(X, dtype=np.float64) @ self.coef_[:-1] + self.coef_[-1]


def make_linear(alpha: float = 1.0, seed: int = 0) -> LinearRanker:
    """A factory function for :class:`LinearRanker`."""
    return LinearRanker(alpha=alpha, seed=seed)


class PlainRanker:
    """The smallest ranker: ``fit(X, y, group)`` only, no seed; scores = the first feature."""

    def fit(self, X: np.ndarray, y: np.ndarray, group: np.ndarray) -> None:
        self.n_groups = len(group)

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.asarray(X[:, 0], dtype=np.float64)


class FailingRanker(LinearRanker):
    """A ranker whose fit raises."""

    def fit(self, X: np.ndarray, y: np.ndarray, *, group: np.ndarray, **kwargs: Any) -> LinearRanker:
        raise ValueError("the user's fit broke")


class NoPredict:
    """Has ``fit`` and no ``predict``."""

    def fit(self, X: np.ndarray, y: np.ndarray, *, group: np.ndarray) -> None:
        pass


class NoGroups:
    """A ``fit`` that takes no query groups."""

    def fit(self, X: np.ndarray, y: np.ndarray) -> None:
        pass

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.zeros(X.shape[0])


NOT_CALLABLE = 42


# --- hostile rankers (tests/test_hostile_rankers.py) ---------------------------------------------


class FirstFeature:
    """Scores = the first feature; ``fit`` does nothing. The base of the hostile rankers below."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        return self

    def predict(self, X: Any) -> Any:
        return np.asarray(X[:, 0], dtype=np.float64)


class ZeroesX(FirstFeature):
    """``fit`` overwrites the training features in place."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        X[:] = 0.0
        return self


class ScalesX(FirstFeature):
    """``fit`` scales the training features in place (``*=``)."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        X *= 2.0
        return self


class ZeroesY(FirstFeature):
    """``fit`` overwrites the training labels in place."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        y[:] = 0.0
        return self


class ShufflesY(FirstFeature):
    """``fit`` shuffles the training labels in place (``np.random.shuffle``)."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        np.random.default_rng(0).shuffle(y)
        return self


class ZeroesGroup(FirstFeature):
    """``fit`` overwrites the group sizes it was given."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        group[:] = 1
        return self


class ZeroesQid:
    """A ``qid``-style ``fit`` that overwrites the query numbers it was given."""

    def fit(self, X: Any, y: Any, *, qid: Any) -> Any:
        qid[:] = 0
        return self

    def predict(self, X: Any) -> Any:
        return np.asarray(X[:, 0], dtype=np.float64)


class ZeroesEvalSet(FirstFeature):
    """``fit`` overwrites the validation features and labels of ``eval_set``."""

    def fit(self, X: Any, y: Any, *, group: Any, eval_set: Any = None, **kwargs: Any) -> Any:
        eval_set[0][0][:] = 0.0
        return self


class ZeroesEvalY(FirstFeature):
    """``fit`` overwrites the validation labels of ``eval_set``."""

    def fit(self, X: Any, y: Any, *, group: Any, eval_set: Any = None, **kwargs: Any) -> Any:
        eval_set[0][1][:] = 0.0
        return self


class ZeroesInPredict(FirstFeature):
    """``predict`` overwrites the features it scores (validation, then test)."""

    def predict(self, X: Any) -> Any:
        scores = np.asarray(X[:, 0], dtype=np.float64)
        X[:] = 0.0
        return scores


class FlipsFlag(FirstFeature):
    """``fit`` sets ``X.flags.writeable = True`` and then writes."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        X.flags.writeable = True
        X[:] = 0.0
        return self


class FlipsBaseFlag(FirstFeature):
    """``fit`` makes the array under the view writeable (``X.base``) and writes through it."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        target = X
        while isinstance(target, np.ndarray) and not target.flags.writeable:
            base = target.base
            if not isinstance(base, np.ndarray):
                break
            target = base
        target.flags.writeable = True
        target[...] = 0
        return self


class KeepsAndLaterZeroes(FirstFeature):
    """``fit`` keeps the training arrays; ``predict`` writes into them."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        self.kept = (X, y)
        return self

    def predict(self, X: Any) -> Any:
        self.kept[1][:] = 0.0
        return np.asarray(X[:, 0], dtype=np.float64)


class AppendsToParams:
    """The factory's list parameter is appended to (shared state across seeds if not copied)."""

    def __init__(self, layers: list[int] | None = None, seed: int = 0) -> None:
        assert layers is not None
        layers.append(seed)
        self.layers = layers

    def fit(self, X: Any, y: Any, *, group: Any) -> Any:
        return self

    def predict(self, X: Any) -> Any:
        return np.full(X.shape[0], float(len(self.layers)))


class Returns(FirstFeature):
    """``predict`` returns ``Returns.make(X)``: set by the tests (an output of some other shape)."""

    make: ClassVar[Any] = None

    def predict(self, X: Any) -> Any:
        return type(self).make(X)


class ReusesBuffer(FirstFeature):
    """``predict`` fills and returns one buffer it reuses across calls (vali then test)."""

    def predict(self, X: Any) -> Any:
        n = X.shape[0]
        if getattr(self, "buffer", None) is None or self.buffer.shape[0] != n:
            self.buffer = np.empty(n)
        self.buffer[:] = X[:, 0]
        self.__class__.last = self.buffer
        return self.buffer


class ExitsInFit(FirstFeature):
    """``fit`` calls ``sys.exit(0)``."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        raise SystemExit(0)


class ExitsInPredict(FirstFeature):
    """``predict`` calls ``sys.exit(3)``."""

    def predict(self, X: Any) -> Any:
        raise SystemExit(3)


class RaisesInPredict(FirstFeature):
    """``predict`` raises."""

    def predict(self, X: Any) -> Any:
        raise RuntimeError("the user's predict broke")


class FitReturnsOther(FirstFeature):
    """``fit`` returns a dict (a history), not the ranker."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        return {"loss": [1.0, 0.5]}


def returns_class(seed: int = 0) -> Any:
    """A factory that returns the class instead of an instance."""
    return FirstFeature


def returns_none(seed: int = 0) -> Any:
    """A factory that returns nothing."""
    return None


def raises_factory(seed: int = 0) -> Any:
    """A factory that raises."""
    raise RuntimeError("factory broke")
