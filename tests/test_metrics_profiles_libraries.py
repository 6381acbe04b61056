"""Golden tests of the library profiles of issue 23 (``bench/metrics/library_profiles.py``):
``msmarco`` against ir_measures' MS MARCO provider itself, per query; ``tf-ranking``,
``allrank`` and ``torchmetrics`` (not installed here) against hand arithmetic from their source
(``metrics_impl.py``, ``allrank/models/metrics.py``, torchmetrics' functional retrieval
docstrings), ties, blank lists and padding included.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import replace

import numpy as np
import pytest

from bench.errors import DataError
from bench.metrics import PROFILES, evaluate, evaluate_trec, get_profile

L3 = 1 / math.log2(3)  # discount of rank 2
L4 = 1 / math.log2(4)  # discount of rank 3


def test_the_four_library_profiles_are_registered_by_their_tool_names() -> None:
    for name in ("msmarco", "tf-ranking", "allrank", "torchmetrics"):
        assert PROFILES[name].name == name
        assert get_profile(name.upper()) is PROFILES[name]


# --- msmarco: ir_measures' MS MARCO provider (RR@k) ------------------------------------------

MS_QRELS = {
    "1": {"a": 1, "b": 0},          # a (relevant) and b tie with c: ids ascending -> a first
    "2": {"x": 0},                  # blank: no relevant judgment
    "3": {"m": 2},                  # no run line
    "5": {"p": 0, "q": 1},          # q ahead of p only in float64 (1e-9 apart)
    "6": {"r": 1, "s": 2},          # RR(rel=2): r is not relevant at level 2
}
MS_RUN = {
    "1": {"c": 1.0, "b": 1.0, "a": 1.0, "d": 0.5},
    "2": {"x": 0.5, "y": 0.4},
    "4": {"z": 1.0},                # no qrels
    "5": {"p": 0.3, "q": 0.3 + 1e-9},
    "6": {"r": 0.9, "s": 0.8, "t": 0.95},
}


@pytest.mark.parametrize(("cutoff", "rel"), [(10, 1), (1, 1), (2, 1), (10, 2)])
def test_msmarco_equals_ir_measures_msmarco_provider_per_query(cutoff: int, rel: int) -> None:
    ir_measures = pytest.importorskip("ir_measures")
    measure = ir_measures.RR(rel=rel) @ cutoff
    theirs = {m.query_id: m.value for m in
              ir_measures.msmarco.iter_calc([measure], MS_QRELS, MS_RUN)}
    prof = replace(get_profile("msmarco"), relevance_threshold=float(rel))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = evaluate_trec(MS_QRELS, MS_RUN, metrics=[f"mrr@{cutoff}"], profile=prof,
                            per_query=True)
    ours = dict(zip(res.per_query["qid"].astype(str), res.per_query[f"mrr@{cutoff}"],
                    strict=True))
    assert ours.keys() == theirs.keys()
    for q, v in theirs.items():
        assert ours[q] == pytest.approx(v, abs=1e-15), q
    agg = ir_measures.msmarco.calc_aggregate([measure], MS_QRELS, MS_RUN)[measure]
    assert res.metrics[f"mrr@{cutoff}"] == pytest.approx(agg, abs=1e-15)


def test_msmarco_tie_gives_one_where_trec_eval_gives_one_half() -> None:
    """The issue's case: a relevant and a non-relevant document with the same score."""
    qrels, run = {"1": {"a": 1, "b": 0}}, {"1": {"a": 1.0, "b": 1.0}}
    assert evaluate_trec(qrels, run, metrics=["mrr@10"], profile="msmarco").metrics["mrr@10"] == 1.0
    assert evaluate_trec(qrels, run, metrics=["mrr@10"],
                         profile="trec_eval").metrics["mrr@10"] == 0.5


# --- tf-ranking: metrics_impl.py ----------------------------------------------------------------

# A: labels 2, 0, 1 and two padding rows (-1 and -5: any negative label, its score unread)
# B: blank (labels 0 and padding)   C: padding only   D: a tie between a relevant document and not
TF_LABELS = [2, 0, 1, -1, -5, 0, 0, -1, -1, -1, 1, 0]
TF_SCORES = [0.2, 0.9, 0.5, 7.0, float("nan"), 0.3, 0.1, 0.0, float("inf"), 1.0, 0.5, 0.5]
TF_GROUP = [5, 3, 2, 2]


def _tf(metric: str) -> list[float]:
    res = evaluate(TF_LABELS, TF_SCORES, group=TF_GROUP, metrics=[metric], profile="tf-ranking",
                   per_query=True)
    return [float(v) for v in res.per_query[metric]]


def test_tf_ranking_ndcg_ignores_padding_and_scores_blank_and_empty_lists_zero() -> None:
    a = (0 + 1 * L3) / (3 + 1 * L3)       # ranked labels 0, 1, 2; ideal 2, 1 (gain 2^l - 1)
    d = (1.0 + L3 / 1.0) / 2              # D: NDCG@2 over the two tie orders (shuffle_ties)
    assert _tf("ndcg@2") == pytest.approx([a, 0.0, 0.0, d], rel=1e-6)
    assert _tf("ndcg@1")[3] == pytest.approx(0.5, rel=1e-6)
    res = evaluate(TF_LABELS, TF_SCORES, group=TF_GROUP, metrics=["ndcg@2"], profile="tf-ranking")
    assert res.metrics["ndcg@2"] == pytest.approx((a + 0 + 0 + d) / 4, rel=1e-6)  # all 4 count


def test_tf_ranking_precision_divides_by_the_valid_documents_in_the_top_n() -> None:
    # A: top 5 of 3 valid documents holds 2 relevant: 2 / min(5, 3); C: 0 / 0 -> 0 (divide_no_nan)
    assert _tf("p@5") == pytest.approx([2 / 3, 0.0, 0.0, 1 / 2], rel=1e-6)


def test_tf_ranking_map_divides_by_every_relevant_document_whatever_topn() -> None:
    # A ranked relevance 0, 1, 1: topn 2 -> (1/2) / 2 relevant; whole list -> (1/2 + 2/3) / 2
    assert _tf("map@2")[0] == pytest.approx(0.5 / 2, rel=1e-6)
    assert _tf("map")[0] == pytest.approx((0.5 + 2 / 3) / 2, rel=1e-6)
    assert _tf("map")[3] == pytest.approx((1.0 + 0.5) / 2, rel=1e-6)  # D: expected over ties


def test_tf_ranking_mrr_and_recall() -> None:
    assert _tf("mrr") == pytest.approx([0.5, 0.0, 0.0, 0.75], rel=1e-6)
    assert _tf("recall@2") == pytest.approx([0.5, 0.0, 0.0, 1.0], rel=1e-6)


# --- allrank: allrank/models/metrics.py --------------------------------------------------------

AR_LABELS = [2, 0, 1, -1, 0, 0, -1, -1, -1]
AR_SCORES = [0.2, 0.9, 0.5, 3.0, 0.3, 0.1, 0.0, 0.0, float("-inf")]
AR_GROUP = [4, 3, 2]


def test_allrank_ndcg_ignores_minus_one_and_fills_one_without_relevant_items() -> None:
    res = evaluate(AR_LABELS, AR_SCORES, group=AR_GROUP, metrics=["ndcg@2", "ndcg@5"],
                   profile="allrank", per_query=True)
    a2 = (0 + L3) / (3 + L3)
    a5 = (0 + L3 + 3 * L4) / (3 + L3)     # ats clipped to the slate: the whole list
    assert list(res.per_query["ndcg@2"]) == pytest.approx([a2, 1.0, 1.0], abs=1e-12)
    assert list(res.per_query["ndcg@5"]) == pytest.approx([a5, 1.0, 1.0], abs=1e-12)
    assert res.metrics["ndcg@2"] == pytest.approx((a2 + 2) / 3, abs=1e-12)


def test_allrank_refuses_a_negative_label_other_than_minus_one() -> None:
    with pytest.raises(DataError, match=r"row 2.*negative"):
        evaluate([1, -2, 0], [0.1, 0.2, 0.3], group=[3], metrics=["ndcg@2"], profile="allrank")


# --- torchmetrics: functional retrieval docstrings (positive scores) ---------------------------

def test_torchmetrics_docstring_examples() -> None:
    p, t = [0.2, 0.3, 0.5], [1, 0, 1]
    ap = evaluate(t, p, group=[3], metrics=["map"], profile="torchmetrics").metrics["map"]
    assert ap == pytest.approx(0.8333, abs=5e-5)   # retrieval_average_precision -> 0.8333
    prec = evaluate(t, p, group=[3], metrics=["p@2"], profile="torchmetrics").metrics["p@2"]
    assert prec == pytest.approx(0.5, abs=1e-7)    # retrieval_precision(top_k=2) -> 0.5
    rr = evaluate([0, 1, 0], p, group=[3], metrics=["mrr"], profile="torchmetrics").metrics["mrr"]
    assert rr == pytest.approx(0.5, abs=1e-7)      # retrieval_reciprocal_rank -> 0.5
    nd = evaluate([10, 0, 0, 1, 5], [0.1, 0.2, 0.3, 4, 70], group=[5], metrics=["ndcg"],
                  profile="torchmetrics").metrics["ndcg"]
    assert nd == pytest.approx(0.6957, abs=5e-5)   # retrieval_normalized_dcg -> 0.6957


def test_torchmetrics_and_sklearn_agree_on_linear_averaged_ndcg() -> None:
    sk = pytest.importorskip("sklearn.metrics")
    y, s = np.asarray([[3, 2, 0, 1, 1]]), np.asarray([[0.5, 0.5, 0.1, 0.9, 0.2]])
    ours = evaluate(y[0], s[0], group=[5], metrics=["ndcg@3"], profile="torchmetrics")
    assert ours.metrics["ndcg@3"] == pytest.approx(sk.ndcg_score(y, s, k=3), rel=1e-6)


# torchmetrics >= 1.7.4 (#3160): preds <= 0 are no hits in P, AP, RR, recall; NDCG keeps them.
# Ranked by score: 0.5 (0), 0.3 (1), 0.0 (1, not > 0), -0.2 (1) -> filtered hits [0, 1, 0, 0];
# a second query whose relevant documents are all scored <= 0 (not blank: the targets count).
TM_LABELS, TM_SCORES, TM_GROUP = [0, 1, 1, 1, 1, 1], [0.5, -0.2, 0.3, 0.0, -1.0, -2.0], [4, 2]


@pytest.mark.parametrize("backend", ["numba", "python", "numpy"])
def test_torchmetrics_nonpositive_scores_are_no_hits(backend: str) -> None:
    res = evaluate(TM_LABELS, TM_SCORES, group=TM_GROUP, metrics=["p@2", "p@4", "mrr", "map",
                   "recall@4", "ndcg"], profile="torchmetrics", per_query=True, backend=backend)
    pq = res.per_query
    assert list(pq["p@2"]) == pytest.approx([1 / 2, 0.0], abs=1e-7)   # top_k = 2
    assert list(pq["p@4"]) == pytest.approx([1 / 4, 0.0], abs=1e-7)
    assert list(pq["mrr"]) == pytest.approx([1 / 2, 0.0], abs=1e-7)
    assert list(pq["map"]) == pytest.approx([(1 / 2) / 1, 0.0], abs=1e-7)  # mean over hits
    assert list(pq["recall@4"]) == pytest.approx([1 / 3, 0.0], abs=1e-7)  # / target.sum()
    nd = (L3 + L4 + 1 / math.log2(5)) / (1 + L3 + L4)  # ndcg.py: every gain kept
    assert list(pq["ndcg"]) == pytest.approx([nd, 1.0], abs=1e-6)
    assert res.metrics["map"] == pytest.approx(0.25, abs=1e-7)  # both queries count


def test_torchmetrics_before_1_7_4_ranks_nonpositive_scores_as_any_other() -> None:
    old = replace(get_profile("torchmetrics"), nonpositive_scores="rank")
    res = evaluate(TM_LABELS, TM_SCORES, group=TM_GROUP, metrics=["p@4", "recall@4"],
                   profile=old, per_query=True)
    assert list(res.per_query["p@4"]) == pytest.approx([3 / 4, 2 / 4], abs=1e-7)
    assert list(res.per_query["recall@4"]) == pytest.approx([1.0, 1.0], abs=1e-7)


def test_msmarco_is_the_profile_that_ir_measures_rr_at_k_names_carry() -> None:
    """ir_measures' RR@k (bench/metrics/peer_names.py: trec_eval-c with docno_asc ties and
    float64 scores) and the named profile are one set of conventions."""
    from bench.metrics import parse_metrics
    from bench.metrics.qualified import spec_profile

    carried = spec_profile(parse_metrics("RR@10")[0], get_profile("ltrbench"))
    ms = get_profile("msmarco")
    assert replace(carried, name=ms.name, description=ms.description) == ms
