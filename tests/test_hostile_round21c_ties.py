"""Round 21c, persona `ties`: a numerical analyst checking ties and floating-point precision.

Every case names its class of issue 19 in its id (``wrong`` = silently wrong number,
``accept`` = silent accept, ``unclear`` = unclear error). Golden values come from hand
enumeration of every tie order (``_brute``), or from the libraries themselves: LightGBM's
``eval_train`` on ``init_score``, XGBoost's ``eval`` on ``base_margin`` with zero trees,
``catboost.utils.eval_metric``, scikit-learn's ``ndcg_score`` / ``average_precision_score`` /
``roc_auc_score`` and pytrec_eval. Scores that differ in float64 but not in float32, -0.0,
subnormals, ±1e308, integers beyond 2^24, float16/float32 labels that are no integers.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from bench.errors import LtrbenchError
from bench.metrics import evaluate, get_profile


def _ev(y: Any, s: Any, metric: str, profile: Any = "ltrbench", **kw: Any) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = evaluate(y, s, qid=["q"] * len(y), metrics=metric, profile=profile, **kw)
    return float(res.metrics[metric])


# ------------------------------------------------------------------------------------------
# Averaged ties (default profile): the mean over every order of the tied documents, by hand
# ------------------------------------------------------------------------------------------

Y = [1, 0, 2, 1, 0]
S = [0.5, 0.5, 0.5, 0.2, 0.2]   # two tied groups: 3! * 2! = 12 orders


def _orders(y: list[int], s: list[float]) -> list[list[int]]:
    out = []
    for p in itertools.permutations(range(len(y))):
        if all(s[p[i]] >= s[p[i + 1]] for i in range(len(p) - 1)):
            out.append([y[i] for i in p])
    return out


def _dcg(o: list[int], k: int) -> float:
    return sum((2**lab - 1) / math.log2(i + 2) for i, lab in enumerate(o[:k]))


def _err(o: list[int], k: int) -> float:
    r, t = 1.0, 0.0
    for i, lab in enumerate(o[:k]):
        g = (2**lab - 1) / 16
        t += r * g / (i + 1)
        r *= 1 - g
    return t


def _ap(o: list[int], k: int) -> float:
    rel = sum(lab > 0 for lab in o)
    hits, tot = 0, 0.0
    for i, lab in enumerate(o[:k]):
        if lab > 0:
            hits += 1
            tot += hits / (i + 1)
    return tot / min(rel, k)


def _rr(o: list[int]) -> float:
    return next((1 / (i + 1) for i, lab in enumerate(o) if lab > 0), 0.0)


def _bpref(o: list[int]) -> float:
    rel, non = sum(lab > 0 for lab in o), sum(lab == 0 for lab in o)
    seen, tot = 0, 0.0
    for lab in o:
        if lab > 0:
            tot += 1 - min(seen, rel) / min(rel, non)
        else:
            seen += 1
    return tot / rel


def _hits(o: list[int], k: int) -> int:
    return sum(lab > 0 for lab in o[:k])


def _f1(o: list[int]) -> float:
    p, r = _hits(o, 2) / 2, _hits(o, 2) / 3
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def _ncrr(o: list[int]) -> float:
    ideal = sorted(o, reverse=True)
    def crr(x: list[int]) -> float:
        return sum((lab > 0) / (i + 1) for i, lab in enumerate(x[:3]))
    return crr(o) / crr(ideal)


HAND: dict[str, Callable[[list[int]], float]] = {
    "ndcg@2": lambda o: _dcg(o, 2) / _dcg(sorted(Y, reverse=True), 2),
    "dcg@2": lambda o: _dcg(o, 2),
    "err@2": lambda o: _err(o, 2),
    "mrr": _rr,
    "map@2": lambda o: _ap(o, 2),
    "map": lambda o: _ap(o, len(o)),
    "p@2": lambda o: _hits(o, 2) / 2,
    "hits@1": lambda o: float(_hits(o, 1) > 0),
    "recall@2": lambda o: _hits(o, 2) / 3,
    "fallout@2": lambda o: (2 - _hits(o, 2)) / 2,
    "rprec": lambda o: _hits(o, 3) / 3,
    "rbp(0.5)@3": lambda o: 0.5 * sum((lab > 0) * 0.5**i for i, lab in enumerate(o[:3])),
    "bpref": _bpref,
    "arp": lambda o: sum(lab * (i + 1) for i, lab in enumerate(o)) / sum(o),
    "ncrr@3": _ncrr,
    "f1@2": _f1,
}


GROUPS = [("ndcg@2", "dcg@2"), ("err@2",), ("mrr",), ("map@2",), ("map",), ("bpref",),
          ("p@2", "recall@2", "fallout@2", "f1@2"), ("hits@1",), ("rprec",), ("rbp(0.5)@3",),
          ("arp",), ("ncrr@3",)]


@pytest.mark.parametrize("metrics", GROUPS, ids="+".join)
def test_wrong__averaged_ties_are_the_mean_over_all_twelve_tie_orders(metrics: tuple[str, ...]
                                                                      ) -> None:
    orders = _orders(Y, S)
    assert len(orders) == 12
    for metric in metrics:
        want = sum(HAND[metric](o) for o in orders) / len(orders)
        assert _ev(Y, S, metric) == pytest.approx(want, abs=1e-12), metric


def test_wrong__precision_ia_averages_a_tied_group_across_the_cut() -> None:
    # subtopic 0 on docs 0, 1 (tied with doc 2), subtopic 1 on doc 3 (last): the top 2 holds
    # 2 * 2/3 of subtopic 0's documents in expectation: (4/3 / 2 + 0) / 2 = 1/3.
    sub = np.array([[1, 0], [1, 0], [0, 0], [0, 1]])
    got = _ev([1, 1, 0, 1], [0.5, 0.5, 0.5, 0.1], "precision_ia@2", subtopics=sub)
    assert got == pytest.approx(1 / 3, abs=1e-12)


def test_unclear__alpha_ndcg_under_averaged_ties_is_refused_naming_the_query() -> None:
    sub = np.array([[1, 0], [1, 0], [0, 0], [0, 1]])
    with pytest.raises(LtrbenchError, match=r"'q'.*tied"):
        _ev([1, 1, 0, 1], [0.5, 0.5, 0.5, 0.1], "alpha_ndcg(0.5)@2", subtopics=sub)


def test_wrong__opa_counts_a_tied_pair_half_by_default_and_wrong_under_tf_ranking() -> None:
    # pairs with different labels: (2,1) tied, (2,0) and (1,0) right
    assert _ev([2, 1, 0], [0.5, 0.5, 0.1], "opa") == pytest.approx(2.5 / 3, abs=1e-12)
    assert _ev([2, 1, 0], [0.5, 0.5, 0.1], "opa", "tf-ranking") == pytest.approx(2 / 3, rel=1e-6)


# ------------------------------------------------------------------------------------------
# The GBDT libraries' own metrics on scores at the edge of float32 / float64
# ------------------------------------------------------------------------------------------

L3 = 1 / math.log2(3)
#: (labels, scores, NDCG@2 of LightGBM, of XGBoost, of CatBoost). By hand: LightGBM compares
#: float64 scores, ties in row order; XGBoost float32 scores, ties in row order; CatBoost float64,
#: ties lower label first. The libraries' own metrics (LightGBM 4.7 ``eval_train`` on
#: ``init_score``, XGBoost 3.2 ``eval`` on ``base_margin``, CatBoost 1.2 ``eval_metric``) print
#: the same numbers (checked here on 2026-11-28); ``test_..._libraries_own_mean`` checks XGBoost
#: and CatBoost live, all cases in one call each.
EDGES: dict[str, tuple[list[int], Any, float, float, float]] = {
    "one_ulp_above_one": ([0, 1, 0], [1.0, 1.0 + 2**-52, 0.5], 1.0, L3, 1.0),
    "1e-9_apart_float32_equal": ([0, 1, 0], [1.0, 1.0 + 1e-9, 0.5], 1.0, L3, 1.0),
    "minus_zero_before_zero": ([1, 0, 0], [-0.0, 0.0, -1.0], 1.0, 1.0, L3),
    "smallest_subnormal_above_zero": ([0, 1, 0], [0.0, 5e-324, -1.0], 1.0, L3, 1.0),
    "float32_subnormals": ([0, 1, 0], [1e-45, 1e-44, -1.0], 1.0, 1.0, 1.0),
    "plus_and_minus_1e308": ([0, 1, 2], [1e308, -1e308, 0.0], *[3 * L3 / (3 + L3)] * 3),
    "1e308_inf_in_float32_above_3e38": ([0, 1, 2], [1e308, 3e38, 0.0], *[L3 / (3 + L3)] * 3),
    "int64_2_24_plus_1": ([0, 1, 0], np.array([2**24, 2**24 + 1, 0], dtype=np.int64),
                          1.0, L3, 1.0),
    "three_float32_equal_scores": ([0, 2, 1, 0], [0.1, 0.1 + 1e-12, 0.1 + 2e-12, 0.0],
                                   (1 + 3 * L3) / (3 + L3), 3 * L3 / (3 + L3),
                                   (1 + 3 * L3) / (3 + L3)),
}
LIBS = ("lightgbm", "xgboost", "catboost")


@pytest.mark.parametrize("case", sorted(EDGES))
def test_wrong__library_profiles_break_edge_ties_as_their_libraries(case: str) -> None:
    y, s, *want = EDGES[case]
    got = [_ev(y, s, "ndcg@2", library) for library in LIBS]
    assert got == pytest.approx(want, abs=1e-12)


def _edge_groups() -> tuple[np.ndarray, np.ndarray, list[int]]:
    ys = [np.asarray(e[0], float) for e in EDGES.values()]
    ss = [np.asarray(e[1], float) for e in EDGES.values()]
    return np.concatenate(ys), np.concatenate(ss), [len(y) for y in ys]


def _own_mean(library: str, y: np.ndarray, s: np.ndarray, sizes: list[int]) -> float:
    if library == "xgboost":
        xgb = pytest.importorskip("xgboost")
        d = xgb.DMatrix(np.zeros((len(y), 1)), label=y, base_margin=s)
        d.set_group(sizes)
        booster = xgb.train({"objective": "rank:ndcg", "eval_metric": "ndcg@2", "nthread": 1,
                             "base_score": 0.0}, d, num_boost_round=0)
        return float(booster.eval(d).split(":")[-1])
    cb = pytest.importorskip("catboost.utils")
    gid = np.repeat(np.arange(len(sizes)), sizes)
    return float(cb.eval_metric(y, s, "NDCG:top=2;type=Exp", group_id=gid)[0])


@pytest.mark.parametrize("library", ["xgboost", "catboost"])  # LightGBM's import: 0.6 s
def test_wrong__library_profile_on_every_edge_query_is_the_libraries_own_mean(library: str
                                                                               ) -> None:
    y, s, sizes = _edge_groups()
    qid = np.repeat(np.arange(len(sizes)), sizes)
    got = evaluate(y, s, qid=qid, metrics="ndcg@2", profile=library).metrics["ndcg@2"]
    assert got == pytest.approx(_own_mean(library, y, s, sizes), abs=1e-12)


# ------------------------------------------------------------------------------------------
# scikit-learn: averaged ties on float labels and float32 scores
# ------------------------------------------------------------------------------------------


def test_wrong__sklearn_profile_takes_half_graded_labels_as_ndcg_score_does() -> None:
    from sklearn.metrics import ndcg_score

    y, s = [0.5, 1.5, 0, 2.25], [0.3, 0.3, 0.9, 0.1]
    assert _ev(y, s, "ndcg@3", "sklearn") == pytest.approx(ndcg_score([y], [s], k=3), abs=1e-12)


def test_wrong__sklearn_map_tells_scores_one_ulp_apart_as_average_precision_does() -> None:
    from sklearn.metrics import average_precision_score

    y, s = [1, 0, 1, 0], [0.5, 0.5 + 2**-53, 0.5 + 2**-52, 0.1]
    assert _ev(y, s, "map", "sklearn") == pytest.approx(average_precision_score(y, s), abs=1e-12)


def test_wrong__sklearn_float32_scores_rank_as_sklearn_reads_them() -> None:
    from sklearn.metrics import average_precision_score, ndcg_score

    y = [1, 0, 1, 0]
    s = np.array([0.5, 0.5000001, 0.5, 0.1], dtype=np.float32)
    assert _ev(y, s, "map", "sklearn") == pytest.approx(average_precision_score(y, s), abs=1e-12)
    assert _ev(y, s, "ndcg@2", "sklearn") == pytest.approx(ndcg_score([y], [s], k=2), abs=1e-12)


def test_wrong__auc_of_a_three_way_tie_is_roc_auc_score() -> None:
    from sklearn.metrics import roc_auc_score

    y, s = [1, 0, 1, 0], [0.5, 0.5, 0.5, 0.1]
    assert _ev(y, s, "auc") == pytest.approx(roc_auc_score(y, s), abs=1e-12)


# ------------------------------------------------------------------------------------------
# Float32 ties in the other profiles (README's profile table)
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("profile", "want"), [
    ("tf-ranking", 0.5),      # float32 scores, averaged ties
    ("pytorchltr", 0.5),      # float32 scores, averaged ties
    ("xgboost@1.7", 1.0),     # float32 scores, row order: the relevant first row wins
    ("trec_eval", 0.0),       # float32 tie broken by document id descending: row "1" first
    ("gdeval", 0.0),          # float64: 1 + 1e-9 is above 1
    ("ranx", 0.0),            # float64
])
def test_wrong__a_float32_only_tie_is_each_profiles_rule(profile: str, want: float) -> None:
    assert _ev([1, 0, 0], [1.0, 1.0 + 1e-9, 0.5], "ndcg@1", profile) == want


# ------------------------------------------------------------------------------------------
# Labels that are almost integers, relevance levels at exact equality
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("profile", ["lightgbm", "xgboost", "catboost", "ltrbench"])
def test_accept__a_label_just_below_an_integer_is_refused_naming_its_row(profile: str) -> None:
    for labels in (np.array([3, 0, 1], np.float32) - np.array([2e-7, 0, 0], np.float32),
                   np.array([2.998, 0, 1], dtype=np.float16)):
        with pytest.raises(LtrbenchError, match=r"row 1.*not an integer"):
            _ev(labels, [0.3, 0.2, 0.1], "ndcg@2", profile)


def test_wrong__float16_integer_labels_are_their_integers() -> None:
    y = np.array([3, 0, 1], dtype=np.float16)
    assert _ev(y, [0.3, 0.1, 0.2], "ndcg@2") == 1.0      # order 3, 1: the ideal
    ideal = 7 + 1 / math.log2(3)
    assert _ev(y, [0.3, 0.2, 0.1], "ndcg@2") == pytest.approx(7 / ideal, abs=1e-12)


def test_wrong__a_relevance_level_equal_to_a_label_counts_it_as_pytrec_eval() -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels = {"q": {"d1": 1, "d2": 2, "d3": 0}}
    run = {"q": {"d1": 0.9, "d2": 0.5, "d3": 0.1}}
    want = pytrec_eval.RelevanceEvaluator(qrels, {"map"}, relevance_level=2).evaluate(run)
    prof = replace(get_profile("trec_eval"), relevance_threshold=2)
    assert _ev([1, 2, 0], [0.9, 0.5, 0.1], "map", prof) == pytest.approx(want["q"]["map"])


def test_wrong__a_fractional_relevance_level_counts_only_labels_at_or_above_it() -> None:
    prof = replace(get_profile("trec_eval"), relevance_threshold=1.5)
    assert _ev([1, 2, 0], [0.9, 0.5, 0.1], "map", prof) == pytest.approx(0.5)


# ------------------------------------------------------------------------------------------
# Pessimistic / optimistic ties: the worst / best tie order, also for lower-is-better metrics
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("metric", ["arp", "fallout@2", "bpref", "ncrr@3", "err@2"])
def test_wrong__pessimistic_and_optimistic_ties_are_the_worst_and_best_orders(metric: str
                                                                                ) -> None:
    values = [HAND[metric](o) for o in _orders(Y, S)]
    lower_is_better = metric in ("arp", "fallout@2")
    worst = max(values) if lower_is_better else min(values)
    best = min(values) if lower_is_better else max(values)
    for ties, want in (("pessimistic", worst), ("optimistic", best)):
        prof = replace(get_profile("ltrbench"), ties=ties)
        assert _ev(Y, S, metric, prof) == pytest.approx(want, abs=1e-12), ties


# ------------------------------------------------------------------------------------------
# torchmetrics: its retrieval functions but NDCG take 0/1 targets
# (torchmetrics/utilities/checks.py ``_check_retrieval_target_and_prediction_types``: a target
# above 1 is a ValueError "`target` must contain `binary` values"; a fraction in [0, 1] passes,
# and then counts as relevant in AP and RR (``target > 0``, ``torch.nonzero``) and as its value
# in P and recall (``target[topk].sum()``)). Only ``retrieval_normalized_dcg`` passes
# ``allow_non_binary_target=True``.
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("metric", ["mrr", "recall@2", "hits@2", "rprec", "fallout@2", "auc"])
def test_accept__torchmetrics_graded_label_in_a_binary_function_is_refused(metric: str) -> None:
    # torchmetrics raises ValueError on target 2; ltrbench printed a number (mrr 1.0)
    with pytest.raises(LtrbenchError, match=r"row 2: label 2\.0.*'torchmetrics'.*0/1"):
        _ev([1, 2, 0], [0.3, 0.2, 0.1], metric, "torchmetrics")


@pytest.mark.parametrize(("metric", "torchmetrics_value"), [
    ("map", 1.0),      # both targets > 0 relevant: (1/1 + 2/2) / 2
    ("p@2", 0.75),     # (0.5 + 1) / 2
    ("mrr", 1.0),      # the first nonzero target is at rank 1
    ("map@1", 1.0),
])
def test_wrong__torchmetrics_fractional_label_is_refused_not_read_below_the_threshold(
        metric: str, torchmetrics_value: float) -> None:
    # ltrbench printed 0.5 for map, p@2 and mrr (0.5 read as not relevant: label < 1); the
    # tool's value or a clear refusal naming the row are both right
    try:
        got: float | str = _ev([0.5, 1, 0], [0.3, 0.2, 0.1], metric, "torchmetrics")
    except LtrbenchError as exc:
        got = str(exc)
    if isinstance(got, str):
        assert "row 1: label 0.5" in got
        assert "0/1" in got
    else:
        assert got == pytest.approx(torchmetrics_value, rel=1e-6)


def test_wrong__torchmetrics_ndcg_keeps_fractional_gains() -> None:
    # retrieval_normalized_dcg allows any target: linear gain 0.5, 1.5 in float32
    got = _ev([0.5, 1.5, 0], [0.3, 0.2, 0.1], "ndcg@2", "torchmetrics")
    want = (0.5 + 1.5 * L3) / (1.5 + 0.5 * L3)
    assert got == pytest.approx(want, rel=1e-6)


def test_accept__xgboost_map_still_refuses_label_2_naming_map_and_p() -> None:
    with pytest.raises(LtrbenchError, match=r"row 2: label 2\.0: profile 'xgboost' computes map "
                                            "and p only on binary"):
        _ev([1, 2, 0], [0.3, 0.2, 0.1], "map", "xgboost")


# ------------------------------------------------------------------------------------------
# LightGBM's query weights are float32 (label_t), a query's the float32 mean of its rows'
# ------------------------------------------------------------------------------------------


def _lightgbm_query_weight(row_weights: list[float]) -> float:
    """``Metadata::CalculateQueryWeights``: ``query_weights_[i] += weights_[j]`` in float32,
    then ``/= count``, by hand."""
    acc = np.float32(0.0)
    for w in row_weights:
        acc = np.float32(acc + np.float32(w))
    return float(np.float32(acc / np.float32(len(row_weights))))


def test_wrong__lightgbm_profile_weighs_a_long_query_by_lightgbms_float32_mean() -> None:
    # query A: 1000 rows of weight 0.1, NDCG@1 = 1; query B: 3 rows of 0.1, NDCG@1 = 0.
    # LightGBM 4.7's eval_train prints 0.49999761580287577 (A weighs 0.09999905); ltrbench
    # printed 0.5 (float64 weights): 2.4e-6 off where README promises the tool's number.
    sizes = [1000, 3]
    y = np.zeros(1003)
    y[0] = y[1001] = 1
    s = np.concatenate([np.linspace(1, 0, 1000), [0.9, 0.8, 0.1]])
    wa, wb = _lightgbm_query_weight([0.1] * 1000), _lightgbm_query_weight([0.1] * 3)
    want = wa / (wa + wb)
    assert want == 0.49999761580287577
    got = evaluate(y, s, qid=np.repeat([0, 1], sizes), metrics="ndcg@1", profile="lightgbm",
                   weights=np.full(1003, 0.1)).metrics["ndcg@1"]
    assert got == pytest.approx(want, abs=1e-15)


def test_wrong__lightgbm_profile_per_query_weights_are_float32_too() -> None:
    # weights 0.1 and 1/3 per query: LightGBM holds them as float32
    y, s = [1, 0, 0, 1], [0.9, 0.1, 0.8, 0.2]      # query 0 NDCG@1 = 1, query 1 = 0
    w = [_lightgbm_query_weight([0.1] * 2), _lightgbm_query_weight([1 / 3] * 2)]
    got = evaluate(y, s, qid=[0, 0, 1, 1], metrics="ndcg@1", profile="lightgbm",
                   weights=[0.1, 1 / 3]).metrics["ndcg@1"]
    assert got == pytest.approx(w[0] / (w[0] + w[1]), abs=1e-15)
    assert got != pytest.approx(0.1 / (0.1 + 1 / 3), abs=1e-10)


def test_wrong__default_profile_keeps_float64_weights() -> None:
    got = evaluate([1, 0, 0, 1], [0.9, 0.1, 0.8, 0.2], qid=[0, 0, 1, 1], metrics="ndcg@1",
                   weights=[0.1, 1 / 3]).metrics["ndcg@1"]
    assert got == pytest.approx(0.1 / (0.1 + 1 / 3), abs=1e-15)


@pytest.mark.parametrize("profile", ["xgboost", "catboost"])
def test_wrong__xgboost_and_catboost_group_weights_are_float32(profile: str) -> None:
    # XGBoost's MetaInfo weights and CatBoost's group weights are float32: their NDCG@1 of two
    # queries (1 and 0) weighted 0.1 and 1/3 is f32(0.1) / (f32(0.1) + f32(1/3)) exactly
    # (XGBoost 3.2 and CatBoost 1.2 print it); ltrbench used the float64 weights (1e-10 off).
    a, b = float(np.float32(0.1)), float(np.float32(1 / 3))
    got = evaluate([1, 0, 0, 1], [0.9, 0.1, 0.8, 0.2], qid=[0, 0, 1, 1], metrics="ndcg@1",
                   profile=profile, weights=[0.1, 1 / 3]).metrics["ndcg@1"]
    assert got == pytest.approx(a / (a + b), abs=1e-16)
