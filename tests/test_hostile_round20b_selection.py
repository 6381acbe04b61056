"""Round 20b (E): a reviewer auditing that ltrbench selects on the validation split only.

Every place a choice is made is fed data where validation and test disagree on purpose (a
feature that ranks perfectly on validation and backwards on test, a model better on one split
and worse on the other), so a choice made on test shows up as another iteration, another trial,
another "best" row. Oracles: hand arithmetic, LightGBM's own per-round NDCG log, the rule
"the best of an error metric is its lowest". Classes: silently wrong number (SWN), silent
accept (SA), unclear error (UE). Found here and fixed: a leaderboard, fold table or run
comparison whose primary metric was ``rmse`` or ``mae`` named the model with the *largest*
error "best" and tested every other row against it; the tuned leaderboard put the highest
ARP/RMSE/MAE first; a NaN on the validation curve was chosen as the best iteration
(``np.argmax`` returns a NaN's position), and an all-NaN curve chose iteration 1.
"""

from __future__ import annotations

import math
import warnings
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest

from bench.data.letor import LetorData, LetorSplits
from bench.errors import LtrbenchError
from bench.metrics.families import best_is_lowest
from bench.runners.result import SELECTION_SPLIT, best_iteration_from_log

PER = 4  # documents per query: one relevant (label 1), three not


def _part(n_queries: int, first: int, flip: bool) -> LetorData:
    """``n_queries`` queries of 4 rows; f0 ranks perfectly everywhere, f1 perfectly on this
    split unless ``flip`` (then backwards), f2 the opposite of f1; f3 noise."""
    rng = np.random.default_rng(first)
    n = n_queries * PER
    y = (np.arange(n) % PER == 0).astype(float)
    X = rng.normal(size=(n, 4))
    X[:, 0] = y
    X[:, 1] = -y if flip else y
    X[:, 2] = y if flip else -y
    return LetorData.build(X, y, qid=np.repeat(np.arange(n_queries) + first, PER),
                           source=f"part{first}")


def _splits() -> LetorSplits:
    return LetorSplits(name="disagree", train=_part(6, 100, False), vali=_part(4, 200, False),
                       test=_part(5, 300, True), inputs={})


SEEN: dict[str, Any] = {}


class BySeed:
    """Seed 0 scores by f1 (perfect on validation, backwards on test), seed 1 by f2 (the
    opposite): a "best seed" picked on either split would show as 1.0 instead of the mean over
    seeds. Seed 1 is the model better on test and worse on validation."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def fit(self, X: Any, y: Any, *, group: Any, eval_set: Any = None,
            eval_group: Any = None) -> Any:
        return self

    def predict(self, X: Any) -> Any:
        return np.asarray(X[:, 1 if self.seed == 0 else 2], dtype=np.float64) * 1.0


class Spy(BySeed):
    """Always f1; records what fit and predict are handed (seed 0)."""

    def fit(self, X: Any, y: Any, *, group: Any, eval_set: Any = None,
            eval_group: Any = None) -> Spy:
        if self.seed == 0:
            SEEN.update(X=np.array(X), y=np.array(y), group=np.array(group),
                        eval_X=[np.array(e[0]) for e in eval_set],
                        eval_y=[np.array(e[1]) for e in eval_set],
                        eval_group=[np.array(g) for g in eval_group], predicted=[])
        return self

    def predict(self, X: Any) -> Any:
        if self.seed == 0:
            SEEN["predicted"].append(np.array(X))
        return np.asarray(X[:, 1], dtype=np.float64) * 1.0


METRICS = ["ndcg@10", "rmse", "mae"]


@pytest.fixture(scope="module")
def run() -> Any:
    import bench.benchmark

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bench.benchmark.run("disagree", models=["f1", "byseed"], seeds=[0, 1],
                                   custom_models={"f1": Spy, "byseed": BySeed},
                                   splits=_splits(), crosscheck=False, metrics=METRICS)


def _value(run: Any, model: str, split: str, metric: str, seed: int = 0) -> float:
    m = run.metrics
    sub = m[(m["model"] == model) & (m["split"] == split) & (m["metric"] == metric)
            & (m["seed"] == seed)]
    assert len(sub) == 1, sub
    return float(sub["value"].iloc[0])


# Hand values: one relevant document of four. Scores f1 on test: the relevant row scores -1,
# the others 0 (three-way tie above it) -> it ranks 4th whatever the tie order among 0s:
# NDCG@10 = 1/log2(5), RR = 1/4. RMSE of f1 on test: (-1 - 1)^2 = 4 on the relevant row,
# 0 on the others -> sqrt(4 / 4) = 1; MAE = 2 / 4 = 0.5.
NDCG_BACKWARDS = 1.0 / math.log2(5)


# --- what the custom ranker is handed (SA: a test row reaching fit) -------------------------

def test_custom_eval_set_is_the_validation_matrix_row_for_row(run: Any) -> None:
    np.testing.assert_array_equal(SEEN["eval_X"][0], _splits().vali.X.astype(np.float32))


def test_custom_eval_set_labels_are_the_validation_labels(run: Any) -> None:
    np.testing.assert_array_equal(SEEN["eval_y"][0], _splits().vali.y)


def test_custom_eval_group_is_the_validation_query_sizes(run: Any) -> None:
    assert SEEN["eval_group"][0].tolist() == [PER] * 4


def test_custom_fit_gets_the_training_rows_only(run: Any) -> None:
    assert SEEN["X"].shape == (6 * PER, 4)
    assert SEEN["group"].tolist() == [PER] * 6
    np.testing.assert_array_equal(SEEN["X"], _splits().train.X.astype(np.float32))


def test_custom_eval_set_holds_no_test_row(run: Any) -> None:
    test = {tuple(r) for r in _splits().test.X.astype(np.float32).tolist()}
    assert not any(tuple(r) in test for r in SEEN["eval_X"][0].tolist())


def test_custom_predict_sees_validation_then_test_once_each(run: Any) -> None:
    shapes = [p.shape[0] for p in SEEN["predicted"]]
    assert sorted(shapes) == [4 * PER, 5 * PER], shapes


# --- the printed numbers are those of their own split (SWN) ---------------------------------

@pytest.mark.parametrize(("seed", "split", "want"), [
    (0, "vali", 1.0), (0, "test", NDCG_BACKWARDS), (1, "vali", NDCG_BACKWARDS), (1, "test", 1.0),
])
def test_ndcg_is_computed_on_its_own_split_rows(run: Any, seed: int, split: str,
                                                want: float) -> None:
    assert _value(run, "byseed", split, "ndcg@10", seed) == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize(("seed", "split", "rmse", "mae"), [
    (0, "test", 1.0, 0.5), (1, "test", 0.0, 0.0)])
def test_pointwise_errors_are_computed_on_their_own_split(run: Any, seed: int, split: str,
                                                          rmse: float, mae: float) -> None:
    assert _value(run, "byseed", split, "rmse", seed) == pytest.approx(rmse, abs=1e-12)
    assert _value(run, "byseed", split, "mae", seed) == pytest.approx(mae, abs=1e-12)


def test_per_query_rows_of_a_split_hold_that_splits_queries_only(run: Any) -> None:
    pq = run.per_query()
    sp = _splits()
    for split, data in (("vali", sp.vali), ("test", sp.test)):
        got = set(pq.loc[pq["split"] == split, "qid"].astype(int))
        assert got == set(np.unique(data.qid).tolist()), (split, got)


def test_to_frame_vali_and_test_are_not_swapped(run: Any) -> None:
    v, t = run.to_frame("vali"), run.to_frame("test")
    assert v.loc["f1", ("ndcg@10", "mean")] == pytest.approx(1.0)
    assert t.loc["f1", ("ndcg@10", "mean")] == pytest.approx(NDCG_BACKWARDS)
    assert v.loc["f1", ("ndcg@10", "std")] == 0.0


# --- seeds: every seed counts, none is picked (SWN) -----------------------------------------

def test_leaderboard_shows_the_mean_over_seeds_not_the_best_seed(run: Any) -> None:
    board = run.leaderboard(primary="ndcg@10", metrics=METRICS)
    assert board.loc["byseed", "ndcg@10"] == pytest.approx((NDCG_BACKWARDS + 1.0) / 2, abs=1e-12)


# --- the leaderboard's "best" (SWN) ---------------------------------------------------------

def test_leaderboard_best_by_ndcg_is_the_model_best_on_test(run: Any) -> None:
    board = run.leaderboard(primary="ndcg@10", metrics=METRICS)
    assert board.index.tolist() == ["byseed", "f1"]  # f1: perfect on vali, backwards on test


@pytest.mark.parametrize("metric", ["rmse", "mae"])
def test_leaderboard_best_by_an_error_metric_is_its_lowest(run: Any, metric: str) -> None:
    board = run.leaderboard(primary=metric, metrics=METRICS)
    # test errors: f1 rmse 1, mae 0.5 (both seeds); byseed the mean of (1, 0) and (0.5, 0)
    assert board.index.tolist() == ["byseed", "f1"], board[[metric]]
    assert board.loc["byseed", metric] == pytest.approx(0.5 if metric == "rmse" else 0.25)


@pytest.mark.parametrize("metric", ["rmse", "mae"])
def test_leaderboard_tests_the_other_rows_against_the_lowest_error(run: Any, metric: str) -> None:
    board = run.leaderboard(primary=metric, metrics=METRICS)
    best = board.index[0]
    assert pd.isna(board.loc[best, "p_randomization_holm"])
    assert board.loc[best, metric] == board[metric].min()


@pytest.mark.parametrize(("metric", "lowest"), [("rmse", True), ("mae", True), ("ndcg@10", False)])
def test_best_is_lowest_for_errors_and_ranks(metric: str, lowest: bool) -> None:
    assert best_is_lowest(metric) is lowest


@pytest.mark.parametrize("metric", ["mae"])
def test_report_pages_order_an_error_metric_lowest_first(metric: str) -> None:
    from bench.report.story import rows_best_first

    rows = [{"model": m, "metrics": {metric: {"mean": v}}} for m, v in (("a", 0.9), ("b", 0.1))]
    assert [r["model"] for r in rows_best_first(rows, metric)] == ["b", "a"]


# --- the iteration early stopping chooses (SWN) ---------------------------------------------

def _log(rows: list[tuple[int, str, float]], metric: str = "ndcg@10") -> pd.DataFrame:
    return pd.DataFrame([(i, s, metric, v) for i, s, v in rows],
                        columns=["iteration", "split", "metric", "value"])


def test_best_iteration_reads_validation_not_a_higher_test_row() -> None:
    log = _log([(1, "vali", 0.5), (2, "vali", 0.7), (3, "vali", 0.6),
                (1, "test", 0.1), (3, "test", 0.99), (3, "train", 1.0)])
    assert best_iteration_from_log(log, "ndcg@10") == 2


def test_best_iteration_is_the_first_of_tied_validation_maxima() -> None:
    log = _log([(1, "vali", 0.5), (2, "vali", 0.7), (3, "vali", 0.7), (4, "vali", 0.7)])
    assert best_iteration_from_log(log, "ndcg@10") == 2


def test_best_iteration_of_an_unsorted_log_is_by_iteration_not_row_order() -> None:
    log = _log([(4, "vali", 0.7), (2, "vali", 0.7), (3, "vali", 0.1), (1, "vali", 0.2)])
    assert best_iteration_from_log(log, "ndcg@10") == 2


def test_best_iteration_ignores_another_metric_that_peaks_elsewhere() -> None:
    log = pd.concat([_log([(1, "vali", 0.9), (2, "vali", 0.1)], "ndcg@1"),
                     _log([(1, "vali", 0.1), (2, "vali", 0.9)], "ndcg@10")])
    assert best_iteration_from_log(log, "ndcg@10") == 2


def test_best_iteration_never_lands_on_a_nan_validation_value() -> None:
    log = _log([(1, "vali", 0.5), (2, "vali", math.nan), (3, "vali", 0.6), (4, "vali", 0.4)])
    assert best_iteration_from_log(log, "ndcg@10") == 3  # np.argmax took the NaN: 2


def test_best_iteration_of_an_all_nan_validation_curve_is_refused_not_iteration_one() -> None:
    log = _log([(1, "vali", math.nan), (2, "vali", math.nan), (1, "train", 0.9)])
    with pytest.raises(LtrbenchError, match="NaN"):
        best_iteration_from_log(log, "ndcg@10")


def test_best_iteration_without_validation_rows_is_refused_naming_the_split() -> None:
    log = _log([(1, "test", 0.5), (2, "train", 0.9)])
    with pytest.raises(LtrbenchError, match=SELECTION_SPLIT):
        best_iteration_from_log(log, "ndcg@10")


def _gbdt_splits() -> LetorSplits:
    """Training labels follow f0 + f1; validation labels f0, test labels f1 (the trees that
    learn f1 help on test only)."""
    rng = np.random.default_rng(7)

    def part(nq: int, first: int, which: str) -> LetorData:
        n = nq * 8
        X = rng.normal(size=(n, 3))
        base = {"train": X[:, 0] + X[:, 1], "vali": X[:, 0], "test": X[:, 1]}[which]
        y = np.digitize(base + rng.normal(scale=0.3, size=n), [0.0, 1.0]).astype(float)
        return LetorData.build(X, y, qid=np.repeat(np.arange(nq) + first, 8), source=which)

    return LetorSplits(name="g", train=part(40, 0, "train"), vali=part(12, 1000, "vali"),
                       test=part(12, 2000, "test"), inputs={})


def _stop_rule(curve: np.ndarray, patience: int) -> tuple[int, int]:
    """(best iteration, trees grown), 1-based, of "stop after ``patience`` rounds without a
    strict improvement; the best is the first maximum" applied by hand to a validation curve."""
    best, best_i = -math.inf, -1
    for i, v in enumerate(curve):
        if v > best:
            best, best_i = v, i
        elif i - best_i >= patience:
            return best_i + 1, i + 1
    return best_i + 1, len(curve)


@pytest.fixture(scope="module")
def lgb_fit() -> tuple[Any, np.ndarray, np.ndarray]:
    """ltrbench's LightGBM fit on the disagreeing splits, and LightGBM's own NDCG@10 per round
    on validation and test for the same parameters (deterministic), 25 rounds."""
    import lightgbm as lgb

    from bench.runners.gbdt import train_gbdt
    from bench.runners.params import Params

    sp = _gbdt_splits()
    params = Params(n_trees=25, early_stopping_rounds=3, min_data_in_leaf=5, n_threads=1)
    res = train_gbdt("lightgbm", sp, params, model="lgb", objective="lambdarank")
    lp = {k: v for k, v in res.library_params.items() if k != "num_iterations"}
    lp.update(metric="ndcg", eval_at=[10], verbosity=-1)
    logged: dict[str, Any] = {}
    lgb.train(lp, lgb.Dataset(sp.train.X, sp.train.y, group=[8] * 40), num_boost_round=25,
              valid_sets=[lgb.Dataset(sp.vali.X, sp.vali.y, group=[8] * 12),
                          lgb.Dataset(sp.test.X, sp.test.y, group=[8] * 12)],
              valid_names=["vali", "test"], callbacks=[lgb.record_evaluation(logged)])
    return res, np.asarray(logged["vali"]["ndcg@10"]), np.asarray(logged["test"]["ndcg@10"])


def test_lightgbm_best_iteration_is_the_validation_choice_not_the_test_one(lgb_fit: Any) -> None:
    res, vali, test = lgb_fit
    best, _ = _stop_rule(vali, 3)
    assert _stop_rule(test, 3)[0] != best  # the data disagree as meant
    assert res.best_iteration == best


def test_lightgbm_stops_after_patience_rounds_without_a_validation_gain(lgb_fit: Any) -> None:
    res, vali, _ = lgb_fit
    assert res.n_trees == _stop_rule(vali, 3)[1]


def test_lightgbm_logged_validation_curve_is_its_own_ndcg(lgb_fit: Any) -> None:
    res, vali, _ = lgb_fit
    log = res.evallog
    got = log[(log["split"] == "vali") & (log["metric"] == "ndcg@10")].sort_values("iteration")
    np.testing.assert_allclose(got["value"].to_numpy(), vali[:len(got)], rtol=0, atol=1e-12)
    assert set(log["split"]) <= {"train", "vali"}  # no test curve to choose from


def test_lightgbm_test_scores_are_those_of_the_chosen_iteration(lgb_fit: Any) -> None:
    res, _vali, test = lgb_fit
    from bench.metrics import evaluate

    sp = _gbdt_splits()
    got = evaluate(sp.test.y, res.scores["test"], qid=sp.test.qid, metrics=("ndcg@10",),
                   profile="lightgbm").metrics["ndcg@10"]
    assert got == pytest.approx(test[res.best_iteration - 1], abs=1e-9)


def test_xgboost_best_iteration_is_the_first_validation_maximum_of_its_own_log() -> None:
    import xgboost as xgb

    from bench.runners.gbdt import train_gbdt
    from bench.runners.params import Params

    sp = _gbdt_splits()
    params = Params(n_trees=20, early_stopping_rounds=20, min_data_in_leaf=5, n_threads=1)
    res = train_gbdt("xgboost", sp, params, model="xgb", objective="ndcg")
    xp = dict(res.library_params)
    xp["eval_metric"] = "ndcg@10"
    rounds = int(xp.pop("num_boost_round", 20))
    mats = [xgb.DMatrix(d.X, d.y, qid=d.qid) for d in (sp.train, sp.vali, sp.test)]
    logged: dict[str, Any] = {}
    xgb.train(xp, mats[0], num_boost_round=rounds, evals=[(mats[1], "vali"), (mats[2], "test")],
              evals_result=logged, verbose_eval=False)
    vali = np.asarray(logged["vali"]["ndcg@10"])
    test = np.asarray(logged["test"]["ndcg@10"])
    assert int(np.argmax(test)) != int(np.argmax(vali))
    assert res.best_iteration == int(np.argmax(vali)) + 1


# --- tuning: the trial chosen, what best records (SWN) --------------------------------------

def _trials(values: list[tuple[str, float, float]]) -> pd.DataFrame:
    return pd.DataFrame([{"model": "m", "library": "lightgbm", "trial": i, "state": s,
                          "value": v, "metric": "ndcg@10", "profile": "ltrbench", "cpu_s": 1.0,
                          "wall_s": 1.0, "cum_cpu_s": float(i + 1), "best_so_far": math.nan,
                          "best_iteration": it, "params": f'{{"num_leaves": {i + 2}}}'}
                         for i, (s, v, it) in enumerate(values)])


def test_tune_best_trial_is_the_first_complete_maximum() -> None:
    from bench.benchmark.tune_out import model_summary

    t = _trials([("COMPLETE", 0.4, 3.0), ("COMPLETE", 0.6, 7.0), ("COMPLETE", 0.6, 9.0),
                 ("PRUNED", math.nan, math.nan)])
    out = model_summary(SimpleNamespace(study_name="s"), t, {})
    assert (out["best_trial"], out["best_value"], out["best_iteration"]) == (1, 0.6, 7)
    assert out["best_params"] == {"num_leaves": 3}


def test_tune_best_never_picks_a_failed_or_pruned_trial() -> None:
    from bench.benchmark.tune_out import model_summary

    t = _trials([("FAIL", math.nan, math.nan), ("COMPLETE", 0.2, 4.0),
                 ("PRUNED", math.nan, math.nan)])
    out = model_summary(SimpleNamespace(study_name="s"), t, {})
    assert (out["best_trial"], out["pruned"], out["failed"]) == (1, 1, 1)


# --- converted ratings: users split by fold share no query (SA) -----------------------------

def test_kfold_ratings_split_keeps_every_user_in_one_partition() -> None:
    from bench.adapters import AdapterConfig, ratings_to_letor
    from bench.data.ratings import Ratings

    rng = np.random.default_rng(3)
    rows = [(u, int(i), float(rng.integers(1, 11)) / 2, 1000 * u + k)
            for u in range(1, 16) for k, i in enumerate(rng.choice(60, 8, replace=False) + 1)]
    frame = pd.DataFrame(rows, columns=["user", "item", "rating", "timestamp"])
    cfg = AdapterConfig(split="kfold", n_folds=5, fold=0, min_history=2, negatives=3,
                        svd_factors=2, similarity_history=2, feature_groups=("user", "item"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = ratings_to_letor(Ratings(frame), cfg)
    users = {k: set(np.unique(d.user).tolist()) for k, d in out.splits().items()}
    assert not users["train"] & users["test"]
    assert not users["vali"] & users["test"]
    assert not users["train"] & users["vali"]


# --- baselines learn from training rows only (SWN) ------------------------------------------

def _rec_splits(test_labels: np.ndarray | None = None) -> LetorSplits:
    """Users 1..4 x items 10..13 in every split; item 13 is relevant only in test."""
    def part(labels: np.ndarray, which: str) -> LetorData:
        user = np.repeat(np.arange(1, 5), 4)
        item = np.tile(np.arange(10, 14), 4)
        X = np.zeros((16, 1))
        return LetorData.build(X, labels, qid=user, user=user, item=item, source=which)

    train = np.tile([2.0, 1.0, 0.0, 0.0], 4)
    train[4:8] = [0.0, 1.0, 0.0, 0.0]  # item 10 relevant for 3 users, item 11 for 4
    vali = np.tile([0.0, 1.0, 1.0, 0.0], 4)
    test = np.tile([0.0, 0.0, 0.0, 3.0], 4) if test_labels is None else test_labels
    return LetorSplits(name="rec", train=part(train, "train"), vali=part(vali, "vali"),
                       test=part(test, "test"), inputs={})


def test_popularity_counts_relevant_training_rows_only() -> None:
    from bench.runners.baselines import run_popularity

    res = run_popularity(_rec_splits())
    # by hand from the training labels: item 10 -> 3, 11 -> 4, 12 -> 0, 13 -> 0 (relevant in
    # validation and test only)
    assert res.scores["test"][:4].tolist() == [3.0, 4.0, 0.0, 0.0]
    assert res.scores["vali"][:4].tolist() == [3.0, 4.0, 0.0, 0.0]



# --- the tuned leaderboard's order (SWN) -----------------------------------------------------

@pytest.mark.parametrize(("metric", "first"), [("ndcg@10", "hi"), ("rmse", "lo"), ("arp", "lo")])
def test_tuned_board_puts_the_best_mean_first(metric: str, first: str) -> None:
    from bench.report.table import MetricCell, Row
    from bench.report.tuning_board import _order

    rows = [Row(model=m, library="x", seeds=[0], metrics={metric: MetricCell(mean=v, std=None)})
            for m, v in (("hi", 0.9), ("lo", 0.1))]
    rows.sort(key=lambda r: _order(r, metric))
    assert rows[0].model == first


# --- CatBoost's chosen iteration (SWN) -------------------------------------------------------

def test_catboost_best_iteration_is_its_own_and_the_first_validation_maximum() -> None:
    from bench.runners.gbdt import train_gbdt
    from bench.runners.params import Params

    res = train_gbdt("catboost", _gbdt_splits(), Params(n_trees=30, early_stopping_rounds=30,
                                                         n_threads=1),
                     model="cb", objective="yetirank")
    log = res.evallog
    vali = log[(log["split"] == "vali") & (log["metric"] == "ndcg@10")].sort_values("iteration")
    assert res.best_iteration == int(np.argmax(vali["value"].to_numpy())) + 1
    assert res.best_iteration == res.notes["library_best_iteration"]  # CatBoost's own choice
    assert res.best_iteration < res.n_trees  # the validation peak is not the last tree here


# --- a validation split carved from train takes no test query (SA) --------------------------

def test_carved_validation_is_whole_training_queries_chosen_by_the_seeded_permutation() -> None:
    from bench.data.folders import carve_validation

    train = _part(10, 500, False)
    tr, va, _rule = carve_validation(train, fraction=0.2, seed=0)
    want = sorted(500 + np.random.default_rng(0).permutation(10)[:2])  # round(0.2 * 10) = 2
    assert sorted(np.unique(va.qid).tolist()) == want
    assert not set(np.unique(va.qid).tolist()) & set(np.unique(tr.qid).tolist())
    assert tr.n_rows + va.n_rows == train.n_rows
    assert va.n_rows == 2 * PER


# --- tune's data: train (+ vali) only, whole queries per fold (SA) --------------------------

def test_tuning_data_train_plus_vali_keeps_a_shared_query_number_as_two_queries() -> None:
    from bench.benchmark.tune import tuning_data

    train, vali = _part(6, 100, False), _part(4, 102, False)  # qids 100..105 and 102..105
    both = tuning_data(train, vali, "train+vali")
    assert both.n_queries == 10
    assert both.n_rows == 10 * PER
    test_rows = {tuple(r) for r in _splits().test.X.tolist()}
    assert not any(tuple(r) in test_rows for r in both.X.tolist())


def test_tuning_data_of_the_test_split_is_refused_in_words() -> None:
    from bench.benchmark.tune import tuning_data

    with pytest.raises(LtrbenchError, match="never test"):
        tuning_data(_part(6, 100, False), _part(4, 200, False), "test")


def test_cv_query_folds_hold_each_query_out_exactly_once() -> None:
    from bench.benchmark.tune import query_folds

    folds = query_folds(11, 3, seed=5)
    held = np.concatenate([h for _, h in folds])
    assert sorted(held.tolist()) == list(range(11))
    for tr, h in folds:
        assert not set(tr.tolist()) & set(h.tolist())
        assert len(tr) + len(h) == 11


def test_lightgbm_selects_on_the_asked_cutoff_of_the_validation_curve() -> None:
    import lightgbm as lgb

    from bench.runners.gbdt import train_gbdt
    from bench.runners.params import Params

    sp = _gbdt_splits()
    params = Params(n_trees=15, early_stopping_rounds=15, min_data_in_leaf=5, n_threads=1)
    res = train_gbdt("lightgbm", sp, params, model="lgb", objective="lambdarank",
                     select_metric="ndcg@3")
    lp = {k: v for k, v in res.library_params.items() if k != "num_iterations"}
    lp.update(metric="ndcg", eval_at=[3], verbosity=-1)
    logged: dict[str, Any] = {}
    lgb.train(lp, lgb.Dataset(sp.train.X, sp.train.y, group=[8] * 40), num_boost_round=15,
              valid_sets=[lgb.Dataset(sp.vali.X, sp.vali.y, group=[8] * 12)],
              valid_names=["vali"], callbacks=[lgb.record_evaluation(logged)])
    assert res.best_iteration == int(np.argmax(logged["vali"]["ndcg@3"])) + 1


@pytest.mark.parametrize(("library", "objective"), [("xgboost", "ndcg"), ("catboost", "yetirank")])
def test_a_library_selects_on_the_asked_cutoff_as_its_own_early_stopping_does(
        library: str, objective: str) -> None:
    from bench.runners.gbdt import train_gbdt
    from bench.runners.params import Params

    res = train_gbdt(library, _gbdt_splits(), Params(n_trees=30, early_stopping_rounds=30,
                                                     n_threads=1, min_data_in_leaf=5),
                     model="m", objective=objective, select_metric="ndcg@3")
    log = res.evallog

    def first_max(metric: str) -> int:
        v = log[(log["split"] == "vali") & (log["metric"] == metric)].sort_values("iteration")
        return int(np.argmax(v["value"].to_numpy())) + 1

    assert first_max("ndcg@3") != first_max("ndcg@10")  # the cutoffs disagree here
    assert res.best_iteration == first_max("ndcg@3") == res.notes["library_best_iteration"]
