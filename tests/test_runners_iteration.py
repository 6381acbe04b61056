"""The per-iteration hook of the GBDT runners (bench/runners/iteration.py): each library calls it
once per boosting round, 1..n in order, with the validation value of the selection metric that
the library's own eval log holds; an exception it raises ends the fit and leaves train_gbdt
unchanged (the same object), with no result made."""

from __future__ import annotations

import numpy as np
import pytest

from bench.data.letor import LetorData, LetorSplits
from bench.runners.gbdt import train_gbdt
from bench.runners.params import Params
from bench.runners.result import Selection

#: (library, model, objective): one ranking objective per library.
LIBRARIES = [
    ("lightgbm", "lightgbm-lambdarank", "lambdarank"),
    ("xgboost", "xgboost-ndcg", "ndcg"),
    ("catboost", "catboost-yetirank", "yetirank"),
]
SMALL = Params(n_trees=12, num_leaves=7, min_data_in_leaf=5, early_stopping_rounds=4, n_threads=1)
#: Early stopping ends these fits long before their last tree.
STOPS_EARLY = Params(n_trees=300, num_leaves=7, min_data_in_leaf=5, early_stopping_rounds=2, n_threads=1)


def _data(n_queries: int, per: int, *, seed: int) -> LetorData:
    rng = np.random.default_rng(seed)
    n = n_queries * per
    X = rng.normal(size=(n, 5))
    y = np.digitize(X[:, 0] + rng.normal(scale=0.8, size=n), [-0.5, 0.5, 1.5]).astype(float)
    return LetorData.build(X, y, qid=np.repeat(np.arange(n_queries) + 1000 * seed, per))


@pytest.fixture(scope="module")
def splits() -> LetorSplits:
    return LetorSplits(name="toy", train=_data(24, 10, seed=1), vali=_data(12, 8, seed=2),
                       test=_data(10, 8, seed=3))


class Stop(Exception):
    """The test's own exception: it must come out of train_gbdt as it went in."""


@pytest.mark.parametrize(("library", "model", "objective"), LIBRARIES)
@pytest.mark.parametrize(("k", "params"), [(10, SMALL), (3, STOPS_EARLY)])
def test_the_hook_sees_every_round_in_order_with_the_library_s_logged_value(splits, library, model, objective,
                                                                            k, params):
    seen: list[tuple[int, float]] = []
    result = train_gbdt(library, splits, params, model=model, objective=objective, eval_at=(3, 10),
                        selection=Selection(k), on_iteration=lambda i, v: seen.append((i, v)))
    log = result.evallog
    vali = log[(log.split == "vali") & (log.metric == f"ndcg@{k}")].sort_values("iteration")
    assert [i for i, _ in seen] == list(range(1, len(seen) + 1))
    assert len(seen) == result.n_trees == len(vali)
    assert [v for _, v in seen] == pytest.approx(vali.value.tolist(), rel=0, abs=0)
    if params is STOPS_EARLY:  # the round that stopped training is seen too
        assert result.n_trees is not None
        assert result.n_trees < params.n_trees


@pytest.mark.parametrize(("library", "model", "objective"), LIBRARIES)
def test_an_exception_from_the_hook_stops_the_fit_and_propagates_unchanged(splits, library, model, objective):
    raised = Stop("pruned at 3")
    seen: list[int] = []

    def hook(i: int, v: float) -> None:
        seen.append(i)
        if i == 3:
            raise raised

    with pytest.raises(Stop) as caught:
        train_gbdt(library, splits, SMALL, model=model, objective=objective, on_iteration=hook)
    assert caught.value is raised
    assert seen == [1, 2, 3]


@pytest.mark.parametrize(("library", "model", "objective"), LIBRARIES[:1])
def test_a_keyboard_interrupt_from_the_hook_propagates_too(splits, library, model, objective):
    def hook(i: int, v: float) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train_gbdt(library, splits, SMALL, model=model, objective=objective, on_iteration=hook)


def test_catboost_keeps_the_hook_s_exception_not_its_own_wrapper(splits):
    """CatBoost wraps a callback's exception in a CatBoostError; the runner re-raises the hook's."""
    class Interrupt(BaseException):
        pass

    def hook(i: int, v: float) -> None:
        raise Interrupt

    with pytest.raises(Interrupt):
        train_gbdt("catboost", splits, SMALL, model="catboost-yetirank", objective="yetirank",
                   on_iteration=hook)


def test_without_a_hook_the_fit_is_the_one_with_a_hook_that_does_nothing(splits):
    quiet = train_gbdt("lightgbm", splits, SMALL, model="lightgbm-lambdarank", objective="lambdarank")
    hooked = train_gbdt("lightgbm", splits, SMALL, model="lightgbm-lambdarank", objective="lambdarank",
                        on_iteration=lambda i, v: None)
    assert np.array_equal(quiet.scores["test"], hooked.scores["test"])
    assert quiet.best_iteration == hooked.best_iteration
