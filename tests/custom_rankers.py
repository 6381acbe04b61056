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
