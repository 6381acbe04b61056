"""TF-Ranking (tensorflow/ranking) tensorflow_ranking/python/keras/metrics_test.py (read at
053cdcd): the Keras metrics on dense ``[batch, list]`` inputs and ragged ones (lists of different
lengths, re-expressed as queries of those lengths), profile ``tf-ranking``.

Weights: a per-list weight is a query weight. TF-Ranking turns per-example weights into a list
weight, the mean weight of the list's relevant examples (``_example_weights_to_list_weights``,
a list without one takes the mean of the others); a case is harvested with those list weights
as query weights only where the metric's per-list value does not depend on the per-example
weights otherwise (P, R, MRR, hits: the list weight is all they do; NDCG/MAP where the test's
lists make the weighted value the unweighted one). The other per-example-weight assertions (DCG
and NDCG gains scaled per document, MAP@k divided by weighted relevance) are a TF-Ranking
convention the profile does not model ("per-example weights: not modelled") and are not
harvested. ARP and OPA are pooled (``list_weight="denominator"``: the per-list weight is the
ratio's denominator) and OPA counts a pair of equal scores wrong (``pair_ties="wrong"``); their
per-example-weight assertions (``item_weights``, ragged ``weights``) are not harvested either.
alpha-DCG and Precision-IA take TF-Ranking's [list, doc, subtopic] labels as
``evaluate(subtopics=...)`` rows (``extra["subtopics"]``).
"""

from __future__ import annotations

import math

from peer_harvest import Case, lists

REPO = "tensorflow/ranking"
PATH = "tensorflow_ranking/python/keras/metrics_test.py"

S = lists((1, 3, 2), (1, 2, 3), (3, 1, 2))
LB = lists((0, 0, 1), (0, 1, 2), (0, 1, 0))
MRW = (3.0, 5.5, 8.0)  # mean_relevant_weights of the test's per-example weights
RS = lists((1, 2, 0), (1, 2), (3, 4, 2, 1))  # ragged scores
RL = lists((1, 0, 0), (0, 2), (2, 0, 1, 0))  # ragged labels
RH = lists((1, 2, 0), (1, 2), (1, 4, 2, 3))  # ragged scores of the hits test
RW = (2.0, 1.0, 3.0)  # ragged per-example weights as list weights
Z = lists((0, 0, 0), (0, 1, 2))  # zero-relevance first list
S3 = lists((1, 3, 2), (1, 3, 2), (1, 2, 3))
L3Z = lists((0, 0, 0), (0, 0, 1), (0, 1, 2))
W3Z = (4.25, 3.0, 5.5)  # (3 + 5.5) / 2, 3, 5.5


def _dcg(label: float, rank: int, weight: float = 1.0) -> float:
    return float(weight * (2.0**label - 1.0) / math.log2(rank + 1.0))


def _c(test: str, metric: str, labels: tuple[tuple[float, ...], ...],
       scores: tuple[tuple[float, ...], ...], mean: float,
       weights: tuple[float, ...] | None = None) -> Case:
    name = test if "." in test else f"MetricsTest.{test}"
    return Case("tf_ranking", REPO, PATH, name, metric, "tf-ranking", labels=labels, scores=scores, weights=weights, mean=mean, tol=5e-6)


def _mrr() -> list[Case]:
    t = "test_mean_reciprocal_rank"
    one = [(0, "mrr", 1 / 2), (0, "mrr@1", 0.0), (0, "mrr@2", 1 / 2), (1, "mrr", 1.0),
           (1, "mrr@1", 1.0), (1, "mrr@6", 1.0), (2, "mrr", 1 / 3), (2, "mrr@1", 0.0),
           (2, "mrr@2", 0.0), (2, "mrr@3", 1 / 3)]
    out = [_c(t, m, (LB[i],), (S[i],), v) for i, m, v in one]
    out += [
        _c(t, "mrr", LB[:2], S[:2], (0.5 + 1.0) / 2),
        _c(t, "mrr", LB[:2], S[:2], (3 * 0.5 + 5.5 * 1.0) / (3 + 5.5), weights=MRW[:2]),
        _c(t, "mrr", LB, S, (1 / 2 + 1 + 1 / 3) / 3),
        _c(t, "mrr@1", LB, S, (0 + 1 + 0) / 3),
        _c(t, "mrr@2", LB, S, (1 / 2 + 1 + 0) / 3),
        _c(t, "mrr", LB, S, (3 / 2 + 5.5 + 8 / 3) / sum(MRW), weights=MRW),
        _c(t, "mrr@1", LB, S, 5.5 / sum(MRW), weights=MRW),
        _c("test_mean_reciprocal_rank_with_ragged_inputs", "mrr", RL, RS, (1 / 2 + 1 + 1 / 2) / 3),
        _c("test_mean_reciprocal_rank_with_ragged_inputs", "mrr", RL, RS,
           (1 / 2 * 2 + 1 + 1 / 2 * 3) / 6, weights=RW),
    ]
    return out


def _hits() -> list[Case]:
    t = "test_hits"
    one = [(0, "hits", 1.0), (0, "hits@1", 0.0), (0, "hits@2", 1.0), (1, "hits", 1.0),
           (1, "hits@1", 1.0), (1, "hits@2", 1.0), (2, "hits", 1.0), (2, "hits@1", 0.0),
           (2, "hits@2", 0.0), (2, "hits@3", 1.0)]
    out = [_c(t, m, (LB[i],), (S[i],), v) for i, m, v in one]
    out += [
        _c(t, "hits@1", LB[:2], S[:2], 0.5),
        _c(t, "hits@1", LB[:2], S[:2], 5.5 / 8.5, weights=MRW[:2]),
        _c(t, "hits@1", LB, S, 1 / 3),
        _c(t, "hits@2", LB, S, 2 / 3),
        _c(t, "hits@3", LB, S, 1.0),
        _c(t, "hits@1", LB, S, 5.5 / sum(MRW), weights=MRW),
    ]
    r = "test_hits_with_ragged_inputs"
    out += [_c(r, "hits@1", RL, RH, 1 / 3), _c(r, "hits@2", RL, RH, 2 / 3),
            _c(r, "hits@3", RL, RH, 1.0), _c(r, "hits@1", RL, RH, 1 / 6, weights=RW),
            _c(r, "hits@2", RL, RH, 3 / 6, weights=RW), _c(r, "hits@3", RL, RH, 1.0, weights=RW)]
    return out


def _precision_recall() -> list[Case]:
    w2 = (3.0, 5.5)
    return [
        _c("test_precision", "p", LB[:1], S[:1], 1 / 3),
        _c("test_precision", "p@1", LB[:1], S[:1], 0.0),
        _c("test_precision", "p", LB[:2], S[:2], (1 / 3 + 2 / 3) / 2),
        _c("test_precision_with_zero_relevance", "p", Z[:1], S[:1], 0.0),
        _c("test_precision_with_zero_relevance", "p", Z, S[:2], (0 + 2 / 3) / 2),
        _c("test_precision_weights_with_zero_relevance", "p@2", L3Z, S3,
           (0.5 * 3 + 1.0 * 5.5) / sum(W3Z), weights=W3Z),
        _c("test_precision_with_weights", "p", LB[:2], S[:2], (1 / 3 * 3 + 2 / 3 * 5.5) / 8.5,
           weights=w2),
        _c("test_precision_with_weights", "p@2", LB[:2], S[:2], (1 / 2 * 3 + 1 * 5.5) / 8.5,
           weights=w2),
        _c("test_precision_with_weights", "p", LB[:2], S[:2], (1 / 3 + 2 / 3 * 2) / 3,
           weights=(1.0, 2.0)),
        _c("test_precision_with_ragged_inputs", "p", RL, RS, (1 / 3 + 1 / 2 + 2 / 4) / 3),
        _c("test_precision_with_ragged_inputs", "p", RL, RS, (2 / 3 + 1 / 2 + 3 * 2 / 4) / 6,
           weights=RW),
        _c("test_recall", "recall", LB[:1], S[:1], 1.0),
        _c("test_recall", "recall@1", LB[:1], S[:1], 0.0),
        _c("test_recall", "recall@2", LB[:2], S[:2], 1.0),
        _c("test_recall_with_zero_relevance", "recall", Z[:1], S[:1], 0.0),
        _c("test_recall_with_zero_relevance", "recall", Z, S[:2], 0.5),
        _c("test_recall_weights_with_zero_relevance", "recall@1", L3Z, S3,
           (0.5 * 5.5) / sum(W3Z), weights=W3Z),
        _c("test_recall_with_ragged_inputs", "recall@2", RL, RS, (1 + 1 + 1 / 2) / 3),
        _c("test_recall_with_ragged_inputs", "recall@2", RL, RS, (2 + 1 + 3 / 2) / 6,
           weights=RW),
    ]


_NDCG0 = _dcg(1, 2) / _dcg(1, 1)
_DCG0 = _dcg(1, 2)
_DCG1 = _dcg(2, 1) + _dcg(1, 2)
_R2 = (_dcg(2, 2) + _dcg(1, 3)) / (_dcg(2, 1) + _dcg(1, 2))


def _map_ndcg_dcg() -> list[Case]:
    m = "test_mean_average_precision"
    n = "test_normalized_discounted_cumulative_gain"
    return [
        _c(m, "map", LB[:1], S[:1], 0.5),
        _c(m, "map@1", LB[:1], S[:1], 0.0),
        _c(m, "map@2", LB[:1], S[:1], 0.5),
        _c(m, "map", LB[:2], S[:2], (0.5 + 1.0) / 2),
        _c(m, "map@1", LB[:2], S[:2], (0.0 + 0.5) / 2),
        _c(m + "_with_weights", "map", LB[:2], S[:2], (0.5 * 3 + 1.0 * 5.5) / 8.5,
           weights=(3.0, 5.5)),
        _c(m + "_with_weights", "map", LB[:2], S[:2], (0.5 + 1.0 * 2) / 3, weights=(1.0, 2.0)),
        _c(m + "_with_ragged_inputs", "map", RL, RS, (1 / 2 + 1 + (1 / 2 + 2 / 3) / 2) / 3),
        _c(n, "ndcg", LB[:1], S[:1], _NDCG0),
        _c(n, "ndcg", LB[:2], S[:2], (_NDCG0 + 1.0) / 2),
        _c("test_restored_normalized_discounted_cumulative_gain", "ndcg", LB[:2], S[:2],
           (_NDCG0 + 1.0) / 2),
        _c(n + "_with_zero_relevance", "ndcg", Z, S[:2], 0.5),
        _c(n + "_with_weights", "ndcg", LB[:2], S[:2], (_NDCG0 + 2 * 1.0) / 3,
           weights=(1.0, 2.0)),
        _c(n + "_with_weights_zero_relevance", "ndcg", Z, S[:2], 0.5, weights=(5.75, 5.75)),
        _c(n + "_with_ragged_inputs", "ndcg", RL, RS, (1 / math.log2(3) + 1 + _R2) / 3),
        _c("test_discounted_cumulative_gain", "dcg", LB[:1], S[:1], _DCG0),
        _c("test_discounted_cumulative_gain", "dcg", LB[:2], S[:2], (_DCG0 + _DCG1) / 2),
        _c("test_restored_discounted_cumulative_gain", "dcg", LB[:2], S[:2],
           (_DCG0 + _DCG1) / 2),
        _c("test_discounted_cumulative_gain_with_ragged_inputs", "dcg", RL, RS,
           (_dcg(1, 2) + _dcg(2, 1) + _dcg(2, 2) + _dcg(1, 3)) / 3),
    ]


def _d(test: str, metric: str, subtopics: tuple[tuple[tuple[float, ...], ...], ...],
       scores: tuple[tuple[float, ...], ...], mean: float,
       weights: tuple[float, ...] | None = None) -> Case:
    """A diversity case: per list, per document its subtopic labels (TF-Ranking's [list, doc,
    subtopic] array), as ``evaluate(subtopics=...)`` rows; ``labels`` mark a relevant row."""
    rows = tuple(row for lst in subtopics for row in lst)
    labels = tuple(tuple(float(max(row) >= 1) for row in lst) for lst in subtopics)
    return Case("tf_ranking", REPO, PATH, f"MetricsTest.{test}", metric, "tf-ranking",
                labels=labels, scores=scores, weights=weights, mean=mean, tol=5e-6,
                extra={"subtopics": rows})


def _alpha(label: tuple[float, ...], cum: tuple[float, ...], rank: int) -> float:
    """The test's _alpha_dcg addend (alpha 0.5, weight 1): sum l 0.5^c / log2(rank + 1)."""
    return sum(v * 0.5**c for v, c in zip(label, cum, strict=True)) / math.log2(rank + 1.0)


S2 = S[:2]
SUB_A = (((0.0, 0.0), (0.0, 1.0), (0.0, 1.0)), ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0)))
SUB_P = (((0.0, 0.0), (0.0, 0.0), (1.0, 0.0)), SUB_A[1])
SUB_0 = (((0.0, 0.0), (0.0, 0.0), (0.0, 0.0)), SUB_A[1])
_A1 = _alpha((0, 1), (0, 0), 1) + _alpha((0, 1), (0, 1), 2) + _alpha((0, 0), (0, 2), 3)
_A2 = _alpha((1, 1), (0, 0), 1) + _alpha((1, 0), (1, 1), 2) + _alpha((0, 0), (2, 1), 3)


def _diversity() -> list[Case]:
    """alpha-DCG and Precision-IA (metrics_test.py MetricsTest): subtopic labels; list weights
    as query weights (per-list weights, or the per-example ones where the per-list value does
    not depend on them: Precision-IA)."""
    a, r, p = ("test_alpha_discounted_cumulative_gain",
               "test_restored_alpha_discounted_cumulative_gain", "test_precision_ia")
    return [
        _d(a, "alpha_dcg", SUB_A[:1], S2[:1], _A1), _d(a, "alpha_dcg", SUB_A, S2, (_A1 + _A2) / 2),
        _d(r, "alpha_dcg", SUB_A[:1], S2[:1], _A1), _d(r, "alpha_dcg", SUB_A, S2, (_A1 + _A2) / 2),
        _d(a + "_with_zero_relevance", "alpha_dcg", SUB_0, S2, (0 + _A2) / 2),
        _d(a + "_with_weights", "alpha_dcg", SUB_A, S2, (_A1 + 2 * _A2) / 3, weights=(1.0, 2.0)),
        _d(p, "precision_ia", SUB_P[:1], S2[:1], 1 / 3),
        _d(p, "precision_ia@1", SUB_P[:1], S2[:1], 0.0),
        _d(p, "precision_ia", SUB_P, S2, (1 / 3 + 3 / 6) / 2),
        _d(p + "_with_zero_relevance", "precision_ia", SUB_0[:1], S2[:1], 0.0),
        _d(p + "_with_zero_relevance", "precision_ia", SUB_0, S2, (0 + 3 / 6) / 2),
        _d(p + "_with_weights", "precision_ia", SUB_P, S2, (1 / 3 * 3 + 3 / 6 * 5.5) / 8.5,
           weights=MRW[:2]),
        _d(p + "_with_weights", "precision_ia@2", SUB_P, S2, (1 / 2 * 3 + 3 / 4 * 5.5) / 8.5,
           weights=MRW[:2]),
        _d(p + "_with_weights", "precision_ia", SUB_P, S2, (1 / 3 * 1 + 3 / 6 * 2) / 3,
           weights=(1.0, 2.0)),
        _d(p + "_weights_with_zero_relevance", "precision_ia@2",
           (SUB_0[0], SUB_P[0], SUB_P[1]), S3, (0 * 4.25 + 1 / 2 * 3 + 3 / 4 * 5.5) / sum(W3Z),
           weights=W3Z),
    ]


_NO_FAMILY = {
    "alpha_dcg": "alpha-DCG with per-example weights: every assertion of this test weighs "
                 "documents (TF-Ranking AlphaDCGMetric divides sum(w * gain * discount) by the "
                 "list weight, metrics_impl.py:814-822) or gives every list weight 0, and "
                 "ltrbench takes one weight per query (refusing weights that add up to 0)",
}
_GAP_TESTS = (
    ("test_alpha_discounted_cumulative_gain_with_weights_zero_relevance", "alpha_dcg"),
)

OPA_S = lists((1, 3, 2), (1, 2, 3))
OPA_L = lists((-1, 0, 1), (0, 1, 2))  # -1: padding (utils.is_label_valid), dropped


def _pairs() -> list[Case]:
    """OPA (test_ordered_pair_accuracy*) and ARP (test_average_relevance_position)."""
    t = "test_ordered_pair_accuracy"
    return [
        _c(t, "opa", OPA_L[:1], OPA_S[:1], 0.0),  # its one pair (label 1 over 0) is reversed
        _c(t, "opa", OPA_L[1:], OPA_S[1:], 1.0),
        _c(t, "opa", OPA_L, OPA_S, (0.0 + 3.0) / (1.0 + 3.0)),
        _c(t, "opa", OPA_L, OPA_S, (0.0 + 3.0 * 2.0) / (1.0 + 3.0 * 2.0), weights=(1.0, 2.0)),
        _c(t + "_with_ragged_inputs", "opa", RL, RS, (1.0 + 1.0 + 3.0) / (2.0 + 1.0 + 5.0)),
        _c("test_average_relevance_position", "arp", LB[:1], S[:1], 2.0),
        _c("test_average_relevance_position", "arp", LB[:2], S[:2],
           (1.0 * 2.0 + 2.0 * 1.0 + 1.0 * 2.0) / 4.0),
    ]


CASES: list[Case] = [
    *_mrr(), *_hits(), *_precision_recall(), *_map_ndcg_dcg(), *_diversity(), *_pairs(),
    _c("GetMetricsTest.test_get_single_metric", "mrr", LB, S, (1 / 2 + 1 + 1 / 3) / 3),
    _c("GetMetricsTest.test_get_single_metric", "mrr@2", LB, S, (1 / 2 + 1 + 0) / 3),
    *(Case("tf_ranking", REPO, PATH, f"MetricsTest.{test}", metric, "tf-ranking",
           inexpressible=_NO_FAMILY[metric]) for test, metric in _GAP_TESTS),
]
