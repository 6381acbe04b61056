"""Each named profile against the real tool, on random data with ties, blank queries,
single-document queries and cutoffs larger than the list (agreement to 1e-9).

The oracles are the libraries themselves: LightGBM's and XGBoost's built-in metrics evaluated on
given scores (LightGBM: scores as ``init_score`` and a booster with 0 trees; XGBoost: scores as
``base_margin`` and ``xgb.train(num_boost_round=0)``), scikit-learn's ``ndcg_score`` /
``dcg_score``, pytrec_eval (trec_eval 9.0.8), ranx, and CatBoost's ``eval_metric``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from metrics_oracles import random_queries

from bench.crosscheck.providers import (
    CatBoostMetrics,
    LightGBMMetrics,
    XGBoostMetrics,
    pytrec_eval_per_query,
    ranx_metrics,
    trec_dicts,
)
from bench.data.groups import offsets_from_sizes
from bench.metrics import evaluate, get_profile

TOL = 1e-9


def _data(seed: int, *, n_queries: int = 150, max_size: int = 25, levels: int | None = 5,
          binary: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    y, s, g = random_queries(np.random.default_rng(seed), n_queries, max_size=max_size,
                             score_levels=levels, binary=binary)
    assert (g == 1).any()
    assert (g > 10).any()
    return y, s, g


def _blank_count(y: np.ndarray, g: np.ndarray) -> int:
    starts = np.r_[0, np.cumsum(g)[:-1]]
    return int(np.sum(np.maximum.reduceat(y, starts) == 0))


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "row-weights"])
def test_lightgbm_profile_equals_lightgbm_builtin_ndcg_and_map(weighted: bool) -> None:
    pytest.importorskip("lightgbm")
    y, s, g = _data(11)
    assert _blank_count(y, g) > 0
    # LightGBM stores weights as float32: give both sides the same float32 values
    w = np.random.default_rng(3).uniform(0.2, 3, len(y)).astype(np.float32) if weighted else None
    names = [f"{m}@{k}" for m in ("ndcg", "map") for k in (1, 3, 5, 10, 50)]
    provider = LightGBMMetrics(y, s, offsets_from_sizes(g, len(y)), names, weights=w)
    assert provider.booster.num_trees() == 0
    theirs = provider()
    ours = evaluate(y, s, group=g, metrics=list(theirs), profile="lightgbm",
                    weights=None if w is None else w.astype(np.float64)).metrics
    assert set(theirs) == {f"{m}@{k}" for m in ("ndcg", "map") for k in (1, 3, 5, 10, 50)}
    for name, value in theirs.items():
        assert ours[name] == pytest.approx(value, abs=TOL), name


def _xgb_eval(y: np.ndarray, s: np.ndarray, g: np.ndarray, metrics: list[str],
              weights: np.ndarray | None = None) -> dict[str, float]:
    pytest.importorskip("xgboost")
    return XGBoostMetrics(y, s, offsets_from_sizes(g, len(y)), metrics, weights=weights)()


def _ours_xgb(name: str, y: np.ndarray, s: np.ndarray, g: np.ndarray,
              weights: np.ndarray | None) -> float:
    profile = "xgboost-" if name.endswith("-") else "xgboost"
    metric = name.rstrip("-").replace("pre", "p")
    return evaluate(y, s, group=g, metrics=metric, profile=profile, weights=weights).metrics[metric]


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "group-weights"])
def test_xgboost_profiles_equal_xgboost_builtin_ndcg(weighted: bool) -> None:
    y, s, g = _data(12)
    w = np.random.default_rng(4).uniform(0.5, 2, len(g)).astype(np.float32) if weighted else None
    names = ["ndcg@1", "ndcg@3", "ndcg@10", "ndcg@50", "ndcg", "ndcg@3-", "ndcg@50-", "ndcg-"]
    theirs = _xgb_eval(y, s, g, names, w)
    assert set(theirs) == set(names)
    wq = None if w is None else w.astype(np.float64)
    for name, value in theirs.items():
        assert _ours_xgb(name, y, s, g, wq) == pytest.approx(value, abs=TOL), name


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "group-weights"])
def test_xgboost_profiles_equal_xgboost_builtin_map_and_pre(weighted: bool) -> None:
    y, s, g = _data(13, binary=True)
    w = np.random.default_rng(5).uniform(0.5, 2, len(g)).astype(np.float32) if weighted else None
    names = ["map@1", "map@3", "map@50", "map", "map@3-", "map-", "pre@1", "pre@3", "pre@50", "pre"]
    theirs = _xgb_eval(y, s, g, names, w)
    wq = None if w is None else w.astype(np.float64)
    for name, value in theirs.items():
        assert _ours_xgb(name, y, s, g, wq) == pytest.approx(value, abs=TOL), name


def test_xgboost_profile_ties_scores_equal_in_float32() -> None:
    """XGBoost keeps predictions in float32: 1.0 and 1.0 + 1e-9 tie and keep row order, so the
    relevant second row loses; in float64 (LightGBM) it wins."""
    y = np.array([0.0, 1.0, 0.0, 1.0])
    s = np.array([1.0, 1.0 + 1e-9, 0.5, 0.5 + 1e-9])
    theirs = _xgb_eval(y, s, np.array([2, 2]), ["ndcg@1"])
    ours = evaluate(y, s, group=[2, 2], metrics="ndcg@1", profile="xgboost").metrics["ndcg@1"]
    assert theirs["ndcg@1"] == ours == 0.0
    assert evaluate(y, s, group=[2, 2], metrics="ndcg@1", profile="lightgbm").metrics["ndcg@1"] == 1.0


def _padded(y: np.ndarray, s: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Queries as rows of a 2-D array; padding has label 0 and a score below every real one
    (sklearn rejects -inf), so it neither ties with a document nor adds gain."""
    width = int(g.max())
    yt = np.zeros((len(g), width))
    ys = np.full((len(g), width), s.min() - 10.0)
    start = 0
    for q, size in enumerate(g):
        yt[q, :size] = y[start:start + size]
        ys[q, :size] = s[start:start + size]
        start += size
    return yt, ys


@pytest.mark.parametrize("k", [1, 3, 10, 50, None])
def test_sklearn_profile_equals_ndcg_score_and_dcg_score(k: int | None) -> None:
    from sklearn.metrics import dcg_score, ndcg_score

    y, s, g = _data(14, levels=4)
    yt, ys = _padded(y, s, g)
    qw = np.random.default_rng(6).uniform(0.5, 2, len(g))
    suffix = "" if k is None else f"@{k}"
    ours = evaluate(y, s, group=g, metrics=f"ndcg{suffix}", profile="sklearn", weights=qw)
    assert ours.metrics[f"ndcg{suffix}"] == pytest.approx(ndcg_score(yt, ys, k=k, sample_weight=qw), abs=TOL)
    ours_dcg = evaluate(y, s, group=g, metrics=f"dcg{suffix}", profile="sklearn")
    assert ours_dcg.metrics[f"dcg{suffix}"] == pytest.approx(dcg_score(yt, ys, k=k), abs=TOL)


def test_sklearn_profile_accepts_real_valued_labels_like_ndcg_score() -> None:
    from sklearn.metrics import ndcg_score

    rng = np.random.default_rng(15)
    y, s, g = _data(15, levels=3)
    y = y * rng.uniform(0.5, 1.5, len(y))
    yt, ys = _padded(y, s, g)
    ours = evaluate(y, s, group=g, metrics="ndcg@5", profile="sklearn")
    assert ours.diagnostics.backend == "numpy"
    assert ours.metrics["ndcg@5"] == pytest.approx(ndcg_score(yt, ys, k=5), abs=TOL)


_TREC_PAIRS = {
    "ndcg": "ndcg", "ndcg_cut_1": "ndcg@1", "ndcg_cut_3": "ndcg@3", "ndcg_cut_10": "ndcg@10",
    "ndcg_cut_50": "ndcg@50", "map": "map", "map_cut_3": "map@3", "map_cut_50": "map@50",
    "P_1": "p@1", "P_3": "p@3", "P_50": "p@50", "recall_3": "recall@3", "recall_50": "recall@50",
    "recip_rank": "mrr",
}


def test_trec_eval_profile_equals_pytrec_eval_per_query() -> None:
    """Ties broken by docno descending, scores in float32 (1e-9 apart ties), linear gain."""
    pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(16)
    y, s, g = _data(16)
    s = s + rng.choice([0.0, 1e-9], size=len(s))
    qid = np.repeat(np.arange(len(g)), g)
    docno = np.array([f"d{rng.integers(0, 10**6)}-{i}" for i in range(len(y))])
    qrels, run = trec_dicts(y, s, qid, docno)
    measures = {"ndcg", "ndcg_cut.1,3,10,50", "map", "map_cut.3,50", "P.1,3,50", "recall.3,50",
                "recip_rank"}
    theirs = pytrec_eval_per_query(qrels, run, measures)
    ours = evaluate(y, s, qid=qid, docno=docno, metrics=list(_TREC_PAIRS.values()),
                    profile="trec_eval", per_query=True)
    assert ours.diagnostics.n_queries_with_ties_in_topk > 0
    table = ours.per_query
    assert table is not None
    for trec_name, name in _TREC_PAIRS.items():
        per_q = np.array([theirs[f"q{q}"][trec_name] for q in range(len(g))])
        np.testing.assert_allclose(table[name].to_numpy(), per_q, rtol=0, atol=TOL, err_msg=name)
        assert ours.metrics[name] == pytest.approx(per_q.mean(), abs=TOL)


def test_ranx_profile_equals_ranx() -> None:
    """ranx sorts with a numba quicksort: ties keep insertion order only in short lists, so the
    data ties scores only in queries of at most 12 documents (continuous scores elsewhere)."""
    pytest.importorskip("ranx")
    rng = np.random.default_rng(17)
    y, s, g = _data(17, max_size=30, levels=3)
    long_q = np.repeat(g > 12, g)
    s = np.where(long_q, rng.normal(size=len(s)), s)
    qid = np.repeat(np.arange(len(g)), g)
    qrels, run = trec_dicts(y, s, qid)
    names = {"ndcg@3": "ndcg@3", "ndcg@50": "ndcg@50", "map@5": "map@5", "map@50": "map@50",
             "precision@3": "p@3", "precision@50": "p@50", "recall@5": "recall@5", "mrr": "mrr",
             "mrr@3": "mrr@3", "hit_rate@2": "hits@2"}
    theirs = ranx_metrics(qrels, run, list(names))
    ours = evaluate(y, s, qid=qid, metrics=list(names.values()), profile="ranx")
    assert ours.diagnostics.n_queries_with_ties_in_topk > 0
    assert ours.diagnostics.n_blank > 0
    for theirs_name, name in names.items():
        assert ours.metrics[name] == pytest.approx(float(theirs[theirs_name]), abs=TOL), name


_CB_NAMES = [f"{m}@{k}" for m in ("ndcg", "map") for k in (1, 3, 5, 10, 50)]


@pytest.mark.parametrize("gain", ["exp2", "linear"])
def test_catboost_profile_equals_catboost_builtin_ndcg_and_map(gain: str) -> None:
    """CatBoost's own NDCG:top=k;type=Exp|Base and MAP:top=k (catboost.utils.eval_metric) on data
    with ties, blank queries, single-document queries and k > n."""
    pytest.importorskip("catboost")
    y, s, g = _data(18)
    assert _blank_count(y, g) > 0
    theirs = CatBoostMetrics(y, s, offsets_from_sizes(g, len(y)), _CB_NAMES, label_gain=gain)()
    profile = replace(get_profile("catboost"), gain=gain)
    ours = evaluate(y, s, group=g, metrics=_CB_NAMES, profile=profile)
    assert ours.diagnostics.n_queries_with_ties_in_topk > 0
    for name, value in theirs.items():
        assert ours.metrics[name] == pytest.approx(value, abs=TOL), name


def test_catboost_profile_weighted_ndcg_equals_catboost_group_weights() -> None:
    """CatBoost weights every query's NDCG by its group weight, blank queries (NDCG 1) too.
    CatBoost stores weights as float32: both sides get the same float32 values."""
    pytest.importorskip("catboost")
    y, s, g = _data(19)
    w = np.random.default_rng(7).uniform(0.5, 2, len(g)).astype(np.float32).astype(np.float64)
    names = ["ndcg@3", "ndcg@10"]
    theirs = CatBoostMetrics(y, s, offsets_from_sizes(g, len(y)), names, weights=w)()
    ours = evaluate(y, s, group=g, metrics=names, profile="catboost", weights=w).metrics
    for name in names:
        assert ours[name] == pytest.approx(theirs[name], abs=TOL), name


def test_catboost_conventions_by_hand() -> None:
    """Three queries: blank (NDCG 1, AP 0); labels [1, 0, 2] with the first two tied (the lower
    label goes first); labels [0, 1] tied. Linear gain (CatBoost's default type=Base), k = 2:
    NDCG = (1 + (1/log2 3) / (2 + 1/log2 3) + 1/log2 3) / 3; MAP@2 = (0 + (1/2)/2 + (1/2)/1) / 3."""
    pytest.importorskip("catboost")
    y = np.array([0.0, 0, 0, 1, 0, 2, 0, 1])
    s = np.array([1.0, 1, 1, 0.5, 0.5, 0.2, 3, 3])
    g = np.array([3, 3, 2])
    d = 1 / np.log2(3)
    ndcg = (1 + d / (2 + d) + d) / 3
    ap = (0 + 0.25 + 0.5) / 3
    theirs = CatBoostMetrics(y, s, offsets_from_sizes(g, len(y)), ["ndcg@2", "map@2"],
                             label_gain="linear")()
    ours = evaluate(y, s, group=g, metrics=["ndcg@2", "map@2"],
                    profile=replace(get_profile("catboost"), gain="linear")).metrics
    assert theirs["ndcg@2"] == pytest.approx(ndcg, abs=1e-12)
    assert theirs["map@2"] == pytest.approx(ap, abs=1e-12)
    assert ours["ndcg@2"] == pytest.approx(ndcg, abs=1e-12)
    assert ours["map@2"] == pytest.approx(ap, abs=1e-12)


def test_empty_by_family_is_checked() -> None:
    from bench.errors import ConfigError
    from bench.metrics.profiles import Profile

    assert get_profile("catboost").empty_for("map") == 0.0
    assert get_profile("catboost").empty_for("ndcg") == 1.0
    with pytest.raises(ConfigError, match="empty_by_family"):
        Profile(name="x", empty=1.0, empty_by_family=(("p", 0.0),))
    with pytest.raises(ConfigError, match="empty_by_family"):
        Profile(name="x", empty=None, empty_by_family=(("map", 0.0),))
