"""Rankers of tests/test_hostile_round14_rankers.py (a module the runs import by name)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np


class First:
    """Scores = the first feature."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        return self

    def predict(self, X: Any) -> Any:
        return np.asarray(X[:, 0], dtype=np.float64)


class Slotted:
    __slots__ = ("w",)

    def fit(self, X: Any, y: Any, group: Any) -> None:
        self.w = np.linalg.lstsq(np.asarray(X, dtype=np.float64), y, rcond=None)[0]

    def predict(self, X: Any) -> Any:
        return np.asarray(X, dtype=np.float64) @ self.w


class Seen:
    """Records what fit got (class-level, read by the test)."""

    got: ClassVar[dict[str, Any]] = {}

    def predict(self, X: Any) -> Any:
        return np.asarray(X[:, 0], dtype=np.float64)


class WeightThenGroup(Seen):
    def fit(self, X: Any, y: Any, sample_weight: Any = None, group: Any = None) -> Any:
        Seen.got = {"sample_weight": sample_weight, "group": np.array(group)}
        return self


class ByQid(Seen):
    def fit(self, X: Any, y: Any, qid: Any) -> Any:
        Seen.got = {"qid": np.array(qid)}
        return self


class AllKwargs(Seen):
    def fit(self, X: Any, y: Any, **kwargs: Any) -> Any:
        Seen.got = dict(kwargs)
        return self


class PositionalOnlyGroup(Seen):
    def fit(self, X: Any, y: Any, group: Any, /) -> Any:
        Seen.got = {"group": np.array(group)}
        return self


class NeedsWeight(Seen):
    def fit(self, X: Any, y: Any, sample_weight: Any, group: Any) -> Any:
        return self


class PredictNeedsMore(First):
    def predict(self, X: Any, group: Any) -> Any:  # type: ignore[override]
        return np.asarray(X[:, 0], dtype=np.float64)


class Doubled(First):
    def predict(self, X: Any) -> Any:
        return 2.0 * np.asarray(X[:, 0], dtype=np.float64) + 1.0


class BecomesDoubled(First):
    """fit turns the ranker into a :class:`Doubled`: its predict is Doubled's."""

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        self.__class__ = Doubled
        return self


class NoMethods:
    pass


class BecomesNothing(First):
    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        self.__class__ = NoMethods
        return self


class RanksInBatch(First):
    """Scores = the rank of the first feature within the batch predicted."""

    def predict(self, X: Any) -> Any:
        return np.argsort(np.argsort(np.asarray(X[:, 0]))).astype(np.float64)


class ShortOnSecondCall(First):
    def __init__(self) -> None:
        self.calls = 0

    def predict(self, X: Any) -> Any:
        self.calls += 1
        scores = np.asarray(X[:, 0], dtype=np.float64)
        return scores if self.calls == 1 else scores[:-1]


class Interrupted(KeyboardInterrupt):
    pass


class RaisesInterruptSubclass(First):
    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        raise Interrupted()


class ExitsZero(First):
    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        raise SystemExit(0)


class Seeded:
    """Scores = first feature + noise from its seed."""

    def __init__(self, seed: int = 0, scale: float = 0.1) -> None:
        self.seed, self.scale = seed, scale

    def fit(self, X: Any, y: Any, *, group: Any, **kwargs: Any) -> Any:
        self.rng = np.random.default_rng(self.seed)
        return self

    def predict(self, X: Any) -> Any:
        return np.asarray(X[:, 0], dtype=np.float64) + self.scale * self.rng.normal(size=len(X))


def make_pipeline() -> Any:
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline as mp
    from sklearn.preprocessing import StandardScaler

    return mp(StandardScaler(), Ridge())


class KeywordOnlyX(Seen):
    def fit(self, *, X: Any, y: Any, group: Any) -> Any:
        return self


class RequiresEvalSet(Seen):
    def fit(self, X: Any, y: Any, group: Any, *, eval_set: Any, eval_group: Any) -> Any:
        Seen.got = {"eval_set": eval_set, "eval_group": eval_group}
        return self
