"""Worked examples from the blog posts ltrbench grew from, recomputed by hand.

Every expected value below is hand arithmetic written out in the test (``1/log2(i+2)``
discounts), never a number read from the evaluator.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from bench.metrics import evaluate


def _d(rank: int) -> float:
    """Discount of 1-based ``rank``: 1/log2(rank + 1)."""
    return 1.0 / math.log2(rank + 1)


def _ranked(labels: list[float], **kwargs: object) -> dict[str, float]:
    """Evaluate labels given in ranked order (scores strictly decreasing), as one query."""
    n = len(labels)
    scores = np.arange(n, 0, -1, dtype=np.float64)
    return evaluate(labels, scores, group=[n], **kwargs).metrics  # type: ignore[arg-type]


def test_linear_gain_dcg_of_2_3_3_1_2_is_6_5972_not_the_posts_6_64() -> None:
    """Relevances [2, 3, 3, 1, 2] in ranked order, linear gain.

    DCG = 2/1 + 3/log2(3) + 3/2 + 1/log2(5) + 2/log2(6) = 2 + 1.8928 + 1.5 + 0.4307 + 0.7737
    = 6.5972. The post prints about 6.64: no convention gives that (exponential gain gives 12.51,
    a natural-log discount 9.52, "rank 1 undiscounted, then 1/log2(rank)" 8.25), so it is an
    arithmetic slip of about 0.04; its NDCG of 0.93 is that slip divided by the right ideal DCG
    (6.64 / 7.1410 = 0.9298). The ideal order [3, 3, 2, 2, 1] gives 7.1410 and NDCG 0.92384.
    """
    rel = [2, 3, 3, 1, 2]
    dcg = 2 * _d(1) + 3 * _d(2) + 3 * _d(3) + 1 * _d(4) + 2 * _d(5)
    idcg = 3 * _d(1) + 3 * _d(2) + 2 * _d(3) + 2 * _d(4) + 1 * _d(5)
    assert dcg == pytest.approx(6.5972, abs=5e-5)
    assert idcg == pytest.approx(7.1410, abs=5e-5)
    m = _ranked(rel, metrics="dcg@5 ndcg@5", profile="sklearn")
    assert m["dcg@5"] == pytest.approx(dcg, abs=1e-12)
    assert m["ndcg@5"] == pytest.approx(dcg / idcg, abs=1e-12)
    assert m["ndcg@5"] == pytest.approx(0.92384, abs=5e-6)
    assert abs(6.64 - m["dcg@5"]) > 0.04  # the post's number is not a rounding of the right one


def test_binary_relevance_at_ranks_1_2_6_7_9_of_10() -> None:
    """DCG = 1 + 1/log2(3) + 1/log2(7) + 1/log2(8) + 1/log2(10) = 2.6215;
    IDCG (five relevant at ranks 1-5) = 2.9485; NDCG = 0.88911."""
    rel = [1, 1, 0, 0, 0, 1, 1, 0, 1, 0]
    dcg = _d(1) + _d(2) + _d(6) + _d(7) + _d(9)
    idcg = sum(_d(r) for r in range(1, 6))
    assert (round(dcg, 4), round(idcg, 4), round(dcg / idcg, 5)) == (2.6215, 2.9485, 0.88911)
    m = _ranked(rel, metrics="dcg@10 ndcg@10")  # binary labels: 2^1 - 1 = 1 = linear gain
    assert m["dcg@10"] == pytest.approx(dcg, abs=1e-12)
    assert m["ndcg@10"] == pytest.approx(dcg / idcg, abs=1e-12)


def test_2_0_3_2_linear_ndcg_is_0_82886_and_the_posts_0_74975_is_the_exp2_value() -> None:
    """[2, 0, 3, 2] in ranked order. Linear gain: DCG = 2 + 0 + 3/2 + 2/log2(5) = 4.36135, ideal
    [3, 2, 2, 0] = 3 + 2/log2(3) + 2/2 = 5.26186, NDCG = 0.82886. The post's code uses the label
    as gain, yet it prints 0.74975: that is the exponential-gain NDCG, (3 + 7/2 + 3/log2(5)) /
    (7 + 3/log2(3) + 3/2) = 7.79203 / 10.39279. The gain convention is the classic confusion this
    tool exists to expose, so both profiles are checked."""
    rel = [2, 0, 3, 2]
    lin_dcg = 2 * _d(1) + 3 * _d(3) + 2 * _d(4)
    lin_idcg = 3 * _d(1) + 2 * _d(2) + 2 * _d(3)
    exp_dcg = 3 * _d(1) + 7 * _d(3) + 3 * _d(4)
    exp_idcg = 7 * _d(1) + 3 * _d(2) + 3 * _d(3)
    assert round(lin_dcg, 5) == 4.36135
    assert round(lin_dcg / lin_idcg, 5) == 0.82886
    assert round(exp_dcg / exp_idcg, 5) == 0.74975
    linear = _ranked(rel, metrics="dcg@4 ndcg@4", profile="sklearn")
    assert linear["dcg@4"] == pytest.approx(lin_dcg, abs=1e-12)
    assert linear["ndcg@4"] == pytest.approx(lin_dcg / lin_idcg, abs=1e-12)
    exp2 = _ranked(rel, metrics="ndcg@4", profile="ltrbench")
    assert exp2["ndcg@4"] == pytest.approx(exp_dcg / exp_idcg, abs=1e-12)


def _ap_case(relevant: set[int], predicted: list[int], k: int) -> float:
    """AP@k of a predicted list of item ids through the evaluator (one query)."""
    labels = [1.0 if item in relevant else 0.0 for item in predicted]
    missing = len(relevant - set(predicted))
    # relevant items never predicted are appended below every prediction, so that R (all
    # relevant items) is what the denominator min(R, k) sees
    labels += [1.0] * missing
    scores = list(range(len(labels), 0, -1))
    return evaluate(labels, scores, group=[len(labels)], metrics=f"map@{k}").metrics[f"map@{k}"]


def test_ap_at_2_of_relevant_1_to_5_for_predicted_6_4_7_1_2_is_0_25() -> None:
    """Top 2 = [6, 4]: only 4 is relevant, at rank 2, precision 1/2; AP@2 = (1/2) / min(5, 2)."""
    assert _ap_case({1, 2, 3, 4, 5}, [6, 4, 7, 1, 2], 2) == pytest.approx((1 / 2) / 2, abs=1e-15)


def test_ap_at_5_of_relevant_1_2_for_predicted_6_4_7_1_2_is_0_325() -> None:
    """Relevant at ranks 4 and 5: (1/4 + 2/5) / min(2, 5) = 0.325."""
    assert _ap_case({1, 2}, [6, 4, 7, 1, 2], 5) == pytest.approx((1 / 4 + 2 / 5) / 2, abs=1e-15)


def test_every_metric_on_one_hand_ranked_query() -> None:
    """Labels by rank [0, 3, 0, 1, 0] (exp2 gains 0, 7, 0, 1, 0), relevant = ranks 2 and 4."""
    m = _ranked([0, 3, 0, 1, 0], metrics="dcg@3 ndcg@3 map@3 map mrr p@3 recall@3 hits@1 hits@2 err@3")
    dcg3 = 7 * _d(2)
    idcg3 = 7 * _d(1) + 1 * _d(2)
    assert m["dcg@3"] == pytest.approx(dcg3, abs=1e-12)
    assert m["ndcg@3"] == pytest.approx(dcg3 / idcg3, abs=1e-12)
    assert m["map@3"] == pytest.approx((1 / 2) / 2, abs=1e-12)  # min(R=2, k=3) = 2
    assert m["map"] == pytest.approx((1 / 2 + 2 / 4) / 2, abs=1e-12)
    assert m["mrr"] == pytest.approx(1 / 2, abs=1e-12)
    assert m["p@3"] == pytest.approx(1 / 3, abs=1e-12)
    assert m["recall@3"] == pytest.approx(1 / 2, abs=1e-12)
    assert (m["hits@1"], m["hits@2"]) == (0.0, 1.0)
    r3 = (2**3 - 1) / 2**4  # ERR stopping probability of grade 3 with g_max = 4
    assert m["err@3"] == pytest.approx(r3 / 2, abs=1e-12)


def test_average_ties_give_the_mean_over_both_orders() -> None:
    """Labels [1, 0] with equal scores: NDCG@1 is 1 in one order and 0 in the other; average
    ties give 0.5 (sklearn's value), LightGBM's stable order keeps the row order and gives 1."""
    r = evaluate([1, 0], [0.5, 0.5], group=[2], metrics="ndcg@1 mrr")
    assert r.metrics == {"ndcg@1": 0.5, "mrr": pytest.approx((1 + 1 / 2) / 2)}
    assert evaluate([0, 1], [0.5, 0.5], group=[2], metrics="ndcg@1", profile="lightgbm").metrics[
        "ndcg@1"
    ] == 0.0
    assert r.diagnostics.n_queries_with_ties_in_topk == 1


def test_letor4_discount_and_short_query_rule() -> None:
    """LETOR 4.0's script on labels by rank [0, 2, 1]: ranks 1-2 undiscounted, rank 3 by
    1/log2(3); gains {0: 0, 1: 1, 2: 3}. NDCG@2 = 3 / (3 + 1) = 0.75, NDCG@3 = (3 + 1/log2(3)) /
    (3 + 1 + 0) = 0.9077; NDCG@4 = 0 because the query has fewer than 4 documents."""
    m = _ranked([0, 2, 1], metrics="ndcg@1,2,3,4", profile="letor4")
    assert m["ndcg@1"] == 0.0
    assert m["ndcg@2"] == pytest.approx(3 / 4, abs=1e-12)
    assert m["ndcg@3"] == pytest.approx((3 + 1 / math.log2(3)) / 4, abs=1e-12)
    assert round(m["ndcg@3"], 4) == 0.9077
    assert m["ndcg@4"] == 0.0


def test_blank_query_policies_in_every_profile() -> None:
    """A query without relevant documents: excluded (ltrbench, mean over the other query only),
    1 (LightGBM, XGBoost), 0 (XGBoost's minus variant, sklearn, trec_eval, ranx, LETOR)."""
    labels = [0, 0, 1, 0]
    scores = [0.3, 0.2, 0.1, 0.9]  # query 2: relevant doc at rank 2 -> NDCG@2 = 1/log2(3)
    v = _d(2)
    expected = {"ltrbench": v, "lightgbm": (1 + v) / 2, "xgboost": (1 + v) / 2,
                "xgboost-": v / 2, "sklearn": v / 2, "trec_eval": v / 2, "ranx": v / 2}
    for profile, want in expected.items():
        r = evaluate(labels, scores, group=[2, 2], metrics="ndcg@2", profile=profile)
        assert r.metrics["ndcg@2"] == pytest.approx(want, abs=1e-12), profile
        assert r.diagnostics.n_blank == 1
    d = evaluate(labels, scores, group=[2, 2], metrics="ndcg@2").diagnostics
    assert d.mean_blank_as_0["ndcg@2"] == pytest.approx(v / 2)
    assert d.mean_blank_as_1["ndcg@2"] == pytest.approx((1 + v) / 2)
