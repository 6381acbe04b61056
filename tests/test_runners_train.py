"""Training runners: validation-only selection, the LightGBM acceptance check, baselines, builtin metrics."""

from __future__ import annotations

import functools
import itertools

import lightgbm as lgb
import numpy as np
import pytest
import xgboost as xgb
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.crosscheck.providers import builtin_metric, builtin_metrics
from bench.data.letor import LetorData, LetorSplits
from bench.data.svmlight import read_svmlight
from bench.errors import ConfigError, DataError
from bench.runners.baselines import ALSParams, run_als, run_popularity, run_random
from bench.runners.dispatch import run_model
from bench.runners.gbdt import train_gbdt
from bench.runners.lightgbm import fit_lightgbm
from bench.runners.params import Params
from bench.runners.resources import measure
from bench.runners.result import NotApplicable, Selection, best_iteration_from_log

SMALL = Params(n_trees=15, num_leaves=7, min_data_in_leaf=5, early_stopping_rounds=5, n_threads=1)

run_lightgbm = functools.partial(train_gbdt, "lightgbm", model="lightgbm-lambdarank", objective="lambdarank")
run_xgboost = functools.partial(train_gbdt, "xgboost", model="xgboost-ndcg", objective="ndcg")


def make_data(n_queries: int, per: int, *, seed: int, n_features: int = 6, ids: bool = False,
              source: str = "") -> LetorData:
    """Labels 0..3 driven by the first two features plus noise; optional user/item ids."""
    rng = np.random.default_rng(seed)
    n = n_queries * per
    X = rng.normal(size=(n, n_features))
    latent = X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.7, size=n)
    y = np.digitize(latent, [-0.5, 0.5, 1.5]).astype(float)
    qid = np.repeat(np.arange(n_queries) + seed * 1000, per)
    user = qid.copy() if ids else None
    item = rng.integers(0, 40, n) if ids else None
    return LetorData.build(X, y, qid=qid, user=user, item=item, source=source)


@pytest.fixture(scope="module")
def splits() -> LetorSplits:
    return LetorSplits(
        name="toy",
        train=make_data(30, 12, seed=1, ids=True, source="train"),
        vali=make_data(15, 10, seed=2, ids=True, source="vali"),
        test=make_data(13, 10, seed=3, ids=True, source="test"),
    )


# --- selection on validation only -------------------------------------------------------------


def test_early_stopping_on_the_test_split_is_refused_by_the_config():
    from bench.benchmark.config import RunConfig

    with pytest.raises(ConfigError, match="validation split only"):
        RunConfig(early_stopping_split="test")


def test_the_chosen_iteration_reads_the_validation_rows_of_the_log_only():
    import pandas as pd

    log = pd.DataFrame({"iteration": [1, 2, 1, 2], "split": ["test", "test", "vali", "vali"],
                        "metric": ["ndcg@10"] * 4, "value": [0.1, 0.9, 0.5, 0.4]})
    assert best_iteration_from_log(log, "ndcg@10") == 1
    with pytest.raises(ConfigError, match="no 'ndcg@10' on 'vali'"):
        best_iteration_from_log(log[log.split == "test"], "ndcg@10")


def test_a_dataset_whose_validation_split_is_its_test_split_is_refused(splits):
    same = LetorSplits(name="leaky", train=splits.train, vali=splits.test, test=splits.test)
    with pytest.raises(ConfigError, match="validation split is the test split"):
        run_lightgbm(same, SMALL)
    copy = LetorSplits(name="leaky-copy", train=splits.train,
                       vali=LetorData.build(splits.test.X.copy(), splits.test.y.copy(),
                                            qid=splits.test.qid.copy()),
                       test=splits.test)
    with pytest.raises(ConfigError, match="validation split is the test split"):
        run_xgboost(copy, SMALL)


def test_the_test_split_never_reaches_lightgbm_training(splits, monkeypatch):
    seen = []
    real_train = lgb.train

    def spy(params, train_set, *args, **kwargs):
        seen.append(train_set.data)
        seen.extend(v.data for v in kwargs.get("valid_sets") or [])
        return real_train(params, train_set, *args, **kwargs)

    monkeypatch.setattr(lgb, "train", spy)
    run_lightgbm(splits, SMALL)
    assert len(seen) == 3  # train, and train + vali as evaluation sets
    assert not any(np.shares_memory(a, splits.test.X) or a.shape == splits.test.X.shape for a in seen)
    assert any(a is splits.vali.X for a in seen)


def test_the_test_split_never_reaches_xgboost_training(splits, monkeypatch):
    seen = []
    real_train = xgb.train

    def spy(params, dtrain, *args, **kwargs):
        seen.append(dtrain.num_row())
        seen.extend(d.num_row() for d, _ in kwargs.get("evals") or [])
        return real_train(params, dtrain, *args, **kwargs)

    monkeypatch.setattr(xgb, "train", spy)
    run_xgboost(splits, SMALL)
    assert seen == [splits.train.n_rows, splits.train.n_rows, splits.vali.n_rows]


@pytest.mark.parametrize("runner", [run_lightgbm, run_xgboost])
def test_scores_use_the_first_best_validation_iteration(splits, runner):
    r = runner(splits, SMALL.with_overrides(n_trees=30, early_stopping_rounds=30))
    log = r.evallog
    vali = log[(log.split == "vali") & (log.metric == "ndcg@10")].sort_values("iteration")
    assert r.best_iteration == int(vali.iteration.iloc[int(np.argmax(vali.value.to_numpy()))])
    assert r.notes["library_best_iteration"] == r.best_iteration
    # the library's logged validation NDCG at the chosen iteration is the NDCG of the saved scores
    logged = float(vali[vali.iteration == r.best_iteration].value.iloc[0])
    recomputed = builtin_metric(r.library, splits.vali.y, r.scores["vali"], splits.vali.offsets, "ndcg@10")
    assert recomputed == pytest.approx(logged, abs=1e-6)
    assert set(log.split) == {"train", "vali"}


def test_early_stopping_ends_training_after_the_patience(splits):
    r = run_lightgbm(splits, SMALL.with_overrides(n_trees=200, early_stopping_rounds=3))
    assert r.n_trees == r.best_iteration + 3 or r.n_trees == 200


@pytest.mark.parametrize("runner", [run_lightgbm, run_xgboost])
def test_same_seed_gives_bit_identical_scores(splits, runner):
    p = SMALL.with_overrides(subsample=0.7, colsample=0.8)
    a, b = runner(splits, p), runner(splits, p)
    for split in ("vali", "test"):
        assert np.array_equal(a.scores[split], b.scores[split])
    c = runner(splits, p.with_overrides(seed=1))
    assert not np.array_equal(a.scores["test"], c.scores["test"])


@pytest.mark.parametrize(
    "model",
    ["lightgbm-lambdarank", "lightgbm-xendcg", "lightgbm-regression", "xgboost-ndcg",
     "xgboost-pairwise", "xgboost-map", "xgboost-regression"],
)
def test_every_gbdt_model_trains_and_scores_both_splits(splits, model):
    r = run_model(model, splits, SMALL, seed=0)
    assert r.model == model
    assert r.scores["vali"].shape == (splits.vali.n_rows,)
    assert r.scores["test"].shape == (splits.test.n_rows,)
    assert r.scores["test"].dtype == np.float64
    assert 1 <= r.best_iteration <= r.n_trees <= SMALL.n_trees
    assert r.fit_s > 0
    if model == "xgboost-map":
        assert "binarized" in r.notes["train_labels"]


def test_labels_outside_the_gain_table_are_refused(splits):
    bad_train = LetorData.build(splits.train.X, np.where(splits.train.y > 2, 31.0, splits.train.y),
                                qid=splits.train.qid, source="bad.txt")
    bad = LetorSplits(name="bad", train=bad_train, vali=splits.vali, test=splits.test)
    with pytest.raises(DataError, match=r"bad.txt, row \d+: .*integer relevance labels in 0..30"):
        run_lightgbm(bad, SMALL)


def test_learning_rate_schedule_reaches_xgboost(splits):
    """Decayed-rate training equals a hand-written loop that sets eta before every round."""
    from bench.runners.params import xgboost_params
    from bench.runners.xgboost import dmatrix, fit_xgboost

    p = SMALL.with_overrides(n_trees=4, early_stopping_rounds=10, learning_rate=0.3,
                             learning_rate_decay=0.1, learning_rate_min=0.05)
    booster, _, _ = fit_xgboost(splits.train, splits.vali, p, log_train=False)
    dtrain = dmatrix(splits.train)
    manual = xgb.Booster(xgboost_params(p, "ndcg"), [dtrain])
    for i in range(4):
        manual.set_param("eta", max(0.05, 0.3 - 0.1 * i))
        manual.update(dtrain, i)
    dtest = dmatrix(splits.test)
    assert np.array_equal(booster.predict(dtest), manual.predict(dtest))


def test_learning_rate_schedule_reaches_lightgbm(splits):
    p = SMALL.with_overrides(n_trees=4, early_stopping_rounds=10, learning_rate=0.3,
                             learning_rate_decay=0.1, learning_rate_min=0.05)
    booster, _, _ = fit_lightgbm(splits.train, splits.vali, p, log_train=False)
    shrinkage = [float(line.split("=")[1]) for line in booster.model_to_string().splitlines()
                 if line.startswith("shrinkage=")]
    assert shrinkage == pytest.approx([0.3, 0.2, 0.1, 0.05])


# --- LightGBM's own acceptance check -------------------------------------------------------------


def _lightgbm_example(shared_data):
    d = shared_data / "lightgbm-lambdarank"
    train = read_svmlight(d / "rank.train")
    test = read_svmlight(d / "rank.test", n_features=train.n_features)
    return train, test


LGB_TEST_PARAMS = Params(n_trees=50, learning_rate=0.1, learning_rate_decay=0.01,
                         learning_rate_min=0.01, early_stopping_rounds=10, n_threads=2)


@pytest.mark.filterwarnings("ignore:The argument 'eval_set' is deprecated")
def test_lightgbm_own_lambdarank_check_passes_as_published(shared_data):
    """LightGBM's tests/python_package_test/test_sklearn.py::test_lambdarank, as it is written:
    LGBMRanker(n_estimators=50), eval set rank.test, eval_at [1, 3], early_stopping(10),
    learning rate max(0.01, 0.1 - 0.01 i). (That test stops early on rank.test itself.)"""
    train, test = _lightgbm_example(shared_data)
    gbm = lgb.LGBMRanker(n_estimators=50, verbose=-1, n_jobs=2)
    gbm.fit(train.X, train.y, group=train.group_sizes, eval_set=[(test.X, test.y)],
            eval_group=[test.group_sizes], eval_at=[1, 3],
            callbacks=[lgb.early_stopping(10, verbose=False),
                       lgb.reset_parameter(learning_rate=lambda i: max(0.01, 0.1 - 0.01 * i))])
    assert gbm.best_iteration_ <= 24
    assert gbm.best_score_["valid_0"]["ndcg@1"] > 0.5674
    assert gbm.best_score_["valid_0"]["ndcg@3"] > 0.578


def test_our_runner_passes_the_same_check_with_the_same_eval_set(shared_data):
    """Our runner with the same settings, rank.test in the role the library's test gives it."""
    train, test = _lightgbm_example(shared_data)
    _, _, r = fit_lightgbm(train, test, LGB_TEST_PARAMS, eval_at=(1, 3), selection=Selection(3))
    at_best = r.evallog[(r.evallog.split == "vali") & (r.evallog.iteration == r.best_iteration)]
    values = dict(zip(at_best.metric, at_best.value, strict=True))
    assert r.best_iteration <= 24
    assert values["ndcg@1"] > 0.5674
    assert values["ndcg@3"] > 0.578


def test_lightgbm_thresholds_hold_with_validation_selection_on_untouched_test(shared_data):
    """The honest version: validation carved from rank.train (bench.datasets.resolve), rank.test
    evaluated once at the validation-selected iteration; LightGBM's thresholds still hold."""
    resolve = pytest.importorskip("bench.datasets.resolve")
    splits = resolve.load_dataset("lightgbm-lambdarank", data_dir=str(shared_data))
    r = run_lightgbm(splits, LGB_TEST_PARAMS, eval_at=(1, 3), select_metric="ndcg@3")
    got = builtin_metrics("lightgbm", splits.test.y, r.scores["test"], splits.test.offsets,
                          ["ndcg@1", "ndcg@3"])
    assert r.best_iteration <= 24
    assert got["ndcg@1"] > 0.5674
    assert got["ndcg@3"] > 0.578


# --- baselines ------------------------------------------------------------------------------------


def _recsys_splits() -> LetorSplits:
    # item 7 is relevant (label >= 1) for three train users, item 3 for two; item 9 for none
    train = LetorData.build(
        np.zeros((8, 1)), [1, 0, 2, 1, 0, 1, 1, 0], qid=[0, 0, 1, 1, 2, 2, 3, 3],
        user=[0, 0, 1, 1, 2, 2, 3, 3], item=[7, 9, 7, 3, 9, 7, 3, 9],
    )
    vali = LetorData.build(np.zeros((3, 1)), [1, 0, 0], qid=[4, 4, 4], user=[4, 4, 4], item=[7, 3, 9])
    test = LetorData.build(np.zeros((4, 1)), [0, 1, 0, 1], qid=[5, 5, 6, 6], user=[5, 5, 6, 6],
                           item=[3, 7, 42, 9])
    return LetorSplits(name="recsys", train=train, vali=vali, test=test)


def test_popularity_counts_relevant_train_rows_per_item():
    r = run_popularity(_recsys_splits())
    assert r.scores["vali"].tolist() == [3.0, 2.0, 0.0]  # item 7: 3, item 3: 2, item 9: 0
    assert r.scores["test"].tolist() == [2.0, 3.0, 0.0, 0.0]  # unseen item 42 scores 0


def test_popularity_uses_a_popularity_feature_without_item_ids(splits):
    def with_feature(d):
        return LetorData.build(d.X[:, :2], d.y, qid=d.qid, feature_names=["item_popularity", "x"])

    s = LetorSplits(name="f", train=with_feature(splits.train), vali=with_feature(splits.vali),
                    test=with_feature(splits.test))
    r = run_popularity(s)
    assert np.array_equal(r.scores["test"], s.test.X[:, 0].astype(np.float64))


def test_popularity_and_als_are_not_applicable_without_ids(splits):
    plain = LetorSplits(name="plain", train=make_data(5, 4, seed=7), vali=make_data(3, 4, seed=8),
                        test=make_data(3, 4, seed=9))
    with pytest.raises(NotApplicable, match="item ids"):
        run_popularity(plain)
    with pytest.raises(NotApplicable, match="user and item ids"):
        run_als(plain)


def test_random_scores_are_seeded_and_differ_between_seeds(splits):
    a, b, c = run_random(splits, 0), run_random(splits, 0), run_random(splits, 1)
    assert np.array_equal(a.scores["test"], b.scores["test"])
    assert not np.array_equal(a.scores["test"], c.scores["test"])
    expected = np.random.default_rng([0, 1]).random(splits.test.n_rows)
    assert np.array_equal(a.scores["test"], expected)


def test_als_ranks_the_items_of_a_users_block_first():
    """Two user blocks that each like their own items (a rank-2 preference matrix); with 2
    factors, every item of the user's block, seen or held out, must score above every item of
    the other block."""
    rng = np.random.default_rng(0)
    users, items, labels = [], [], []
    for u in range(40):
        block = u % 2
        own = [i for i in range(20) if i % 2 == block]
        for i in rng.choice(own, size=7, replace=False):
            users.append(u)
            items.append(int(i))
            labels.append(1.0)
        for i in rng.choice([i for i in range(20) if i % 2 != block], size=3, replace=False):
            users.append(u)
            items.append(int(i))
            labels.append(0.0)
    order = np.argsort(users, kind="stable")
    u, it, y = np.array(users)[order], np.array(items)[order], np.array(labels)[order]
    train = LetorData.build(np.zeros((len(u), 1)), y, qid=u, user=u, item=it)
    ev_users = np.repeat(np.arange(40), 20)
    ev_items = np.tile(np.arange(20), 40)
    ev = LetorData.build(np.zeros((800, 1)), (ev_items % 2 == ev_users % 2).astype(float),
                         qid=ev_users, user=ev_users, item=ev_items)
    r = run_als(LetorSplits(name="blocks", train=train, vali=ev, test=ev), seed=0,
                params=ALSParams(factors=2, iterations=20))
    s = r.scores["test"].reshape(40, 20)
    own = (np.arange(20)[None, :] % 2) == (np.arange(40)[:, None] % 2)
    assert (np.where(own, s, np.inf).min(axis=1) > np.where(own, -np.inf, s).max(axis=1)).all()


def test_als_scores_unseen_users_zero():
    r = run_als(_recsys_splits(), params=ALSParams(factors=2, iterations=3))
    assert (r.scores["test"] == 0.0).all()  # users 5 and 6 have no train rows
    assert r.notes["rows_scored_0_unseen_user_or_item"]["test"] == 4


def test_als_kernels_are_loaded_before_the_fit_clock_starts(monkeypatch):
    """numba's first call (compiling, or loading its cache) is paid before ``measure`` starts:
    a fresh checkout's first ALS fit was 2.58 s against 0.05 s for the next seeds."""
    import contextlib

    import bench.adapters.als as als
    import bench.runners.baselines as baselines

    events: list[str] = []
    real_fit, real_measure = als.fit_als, baselines.measure

    def fit(*args, **kwargs):
        events.append("kernels")
        return real_fit(*args, **kwargs)

    @contextlib.contextmanager
    def clock():
        events.append("clock")
        with real_measure() as m:
            yield m

    monkeypatch.setattr(als, "fit_als", fit)
    monkeypatch.setattr(baselines, "measure", clock)
    baselines._warm_kernels.cache_clear()
    run_als(_recsys_splits(), params=ALSParams(factors=2, iterations=1))
    run_als(_recsys_splits(), seed=1, params=ALSParams(factors=2, iterations=1))
    assert events[:3] == ["kernels", "clock", "kernels"]  # warm-up, then the timed fit
    assert events.count("kernels") == 3  # once per process, not once per fit


# --- builtin metrics ----------------------------------------------------------------------------


def _slow_library_ndcg(y, s, offsets, k, *, float32=False):
    """Library convention, written out: stable sort by score (ties keep row order), gain 2^l-1,
    discount 1/log2(rank+1), IDCG from the query's labels, all-zero query scores 1, mean over queries."""
    vals = []
    for a, b in itertools.pairwise(offsets):
        yy = np.asarray(y[a:b], dtype=float)
        ss = np.asarray(s[a:b], dtype=np.float32 if float32 else np.float64)
        order = sorted(range(b - a), key=lambda i: -ss[i])  # sorted() is stable
        gains = [2.0 ** yy[i] - 1 for i in order][:k]
        ideal = sorted((2.0 ** v - 1 for v in yy), reverse=True)[:k]
        dcg = sum(g / np.log2(r + 2) for r, g in enumerate(gains))
        idcg = sum(g / np.log2(r + 2) for r, g in enumerate(ideal))
        vals.append(1.0 if idcg == 0 else dcg / idcg)
    return float(np.mean(vals))


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 8), min_size=1, max_size=6),
    data=st.data(),
    k=st.sampled_from([1, 3, 5, 10]),
)
def test_builtin_ndcg_matches_the_written_out_library_convention(sizes, data, k):
    n = sum(sizes)
    y = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=float)
    # few distinct score values, so ties are common
    s = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=n, max_size=n)))
    offsets = np.r_[0, np.cumsum(sizes)]
    assert builtin_metric("lightgbm", y, s, offsets, f"ndcg@{k}") == pytest.approx(
        _slow_library_ndcg(y, s, offsets, k), abs=1e-12)
    assert builtin_metric("xgboost", y, s, offsets, f"ndcg@{k}") == pytest.approx(
        _slow_library_ndcg(y, s, offsets, k, float32=True), abs=1e-6)


def test_xgboost_builtin_sees_float32_ties():
    y = [0, 1]
    s = [1.0 + 1e-9, 1.0]  # distinct in float64, equal in float32: row order decides for XGBoost
    assert builtin_metric("lightgbm", y, s, [0, 2], "ndcg@1") == 0.0
    assert builtin_metric("xgboost", y, s, [0, 2], "ndcg@1") == 0.0
    s2 = [1.0, 1.0 + 1e-9]
    assert builtin_metric("lightgbm", y, s2, [0, 2], "ndcg@1") == 1.0
    assert builtin_metric("xgboost", y, s2, [0, 2], "ndcg@1") == 0.0  # float32 tie, row 0 first


def test_builtin_map_and_minus_variants_by_hand():
    # one query, labels by rank [1,0,0,1,1]: LightGBM map@5 = (1 + 2/4 + 3/5) / 3 = 0.7
    y = [1, 0, 0, 1, 1]
    s = [5, 4, 3, 2, 1]
    assert builtin_metric("lightgbm", y, s, [0, 5], "map@5") == pytest.approx(0.7)
    assert builtin_metric("xgboost", y, s, [0, 5], "map@5") == pytest.approx(0.7)
    assert builtin_metric("xgboost", y, s, [0, 5], "p@2") == pytest.approx(0.5)
    blank = builtin_metrics("xgboost", [0, 0], [1, 2], [0, 2], ["ndcg@2", "ndcg@2-"])
    assert blank == {"ndcg@2": 1.0, "ndcg@2-": 0.0}


def test_builtin_rejects_unknown_metrics_and_nonbinary_map():
    with pytest.raises(ConfigError, match="valid: ndcg@k, map@k"):
        builtin_metric("lightgbm", [0, 1], [1, 2], [0, 2], "mrr")
    with pytest.raises(DataError, match="binary labels"):
        builtin_metric("xgboost", [0, 2], [1, 2], [0, 2], "map@2")
    with pytest.raises(ConfigError, match="unknown library 'nosuch'; valid: lightgbm, xgboost, "
                                          "catboost"):
        builtin_metric("nosuch", [0, 1], [1, 2], [0, 2], "ndcg@2")


# --- resources ------------------------------------------------------------------------------------


def test_peak_memory_sees_a_large_temporary_allocation():
    with measure() as m:
        a = np.ones(40_000_000)  # 305 MiB
        del a
    assert m.peak_rss_mb > 250
    assert m.seconds > 0


def test_xgboost_quantile_matrices_train_the_model_a_dmatrix_trains() -> None:
    """The runner builds QuantileDMatrix (no CSR copy); the eval log and predictions must be those
    of the plain DMatrix that a user's own xgb.train would use."""
    import numpy as np
    import xgboost as xgb

    from bench.datasets.catalogue import get_card
    from bench.datasets.letor_shapes import generate_split, shape_of
    from bench.runners.params import Params, xgboost_params
    from bench.runners.xgboost import dmatrix, quantile_dmatrix

    shape = shape_of(get_card("synthetic-mslr30k"))
    tr = generate_split(shape, "train", scale=0.004, seed=5)
    va = generate_split(shape, "vali", scale=0.004, seed=5)
    lib = xgboost_params(Params(n_trees=12, num_leaves=15, n_threads=1, max_bin=63), "ndcg",
                         eval_at=(10,))
    out = []
    for quantile in (False, True):
        if quantile:
            dt = quantile_dmatrix(tr, max_bin=63)
            dv = quantile_dmatrix(va, max_bin=63, ref=dt)
        else:
            dt, dv = dmatrix(tr), dmatrix(va)
        log: dict = {}
        booster = xgb.train(dict(lib), dt, 12, evals=[(dv, "vali")], evals_result=log,
                            verbose_eval=False)
        out.append((log["vali"]["ndcg@10"], booster.predict(dmatrix(va), output_margin=True)))
    assert out[0][0] == out[1][0]
    np.testing.assert_array_equal(out[0][1], out[1][1])


def test_a_ranking_label_error_prints_the_number_not_numpys_repr() -> None:
    import numpy as np

    from bench.data.letor import LetorData
    from bench.errors import DataError
    from bench.runners.result import check_ranking_labels

    data = LetorData.build(X=np.zeros((2, 1)), y=np.array([1.0, 40.0]), qid=np.array([1, 1]))
    with pytest.raises(DataError) as info:
        check_ranking_labels(data, "train", what="LightGBM objective 'lambdarank'")
    assert "train label 40.0 is not" in str(info.value)
    assert "np.float64" not in str(info.value)
