"""allRank (allegro/allRank) tests/losses/test_ndcg.py and test_mrr.py, read at HEAD c884756
(release 1.4.3). Slates of ``y_pred`` / ``y_true`` with ``-1`` (``PADDED_Y_VALUE``) marking padding,
one row per slate; ``ats=None`` is the whole slate, the mrr wrapper's default ``ats=[10]``.

allRank's own ``test_ndcg_zero_when_no_relevant`` asserts 0 for a slate without a relevant item,
but its ``ndcg`` has returned ``filler_value=1.0`` there since commit 79b5d32 (2021-03-30, release
1.4.1): the test fails against the code it ships with. The case is replayed under
``allrank@1.4.0`` (the releases it was written for), and the code's value under ``allrank``.
"""

from __future__ import annotations

import math

from peer_harvest import Case, lists

REPO = "allegro/allRank"
NDCG = "tests/losses/test_ndcg.py"
MRR = "tests/losses/test_mrr.py"
PAD = -1.0


def _ndcg(test: str, metric: str, y_pred: tuple[float, ...], y_true: tuple[float, ...],
          value: float, profile: str = "allrank", note: str = "") -> Case:
    return Case("allrank", REPO, NDCG, test, metric, profile, labels=lists(y_true),
                scores=lists(y_pred), per_query=(value,), tol=1e-7, note=note)


def _mrr(test: str, metric: str, y_pred: tuple[tuple[float, ...], ...],
         y_true: tuple[tuple[float, ...], ...], values: tuple[float, ...]) -> Case:
    return Case("allrank", REPO, MRR, test, metric, "allrank", labels=lists(*y_true),
                scores=lists(*y_pred), per_query=values, tol=0.0)


L3 = 1 / math.log2(3)

CASES: list[Case] = [
    _ndcg("test_ndcg_simple_1", "ndcg", (0.5, 0.2), (1.0, 0.0), 1.0),
    _ndcg("test_ndcg_simple_2", "ndcg", (0.5, 0.2), (0.0, 1.0), L3),
    _ndcg("test_ndcg_zero_when_no_relevant", "ndcg", (0.5, 0.2), (0.0, 0.0), 0.0,
          profile="allrank@1.4.0", note="the test's number (0) is the releases <= 1.4.0; "
          "allRank >= 1.4.1 returns filler_value = 1.0 and fails this test"),
    _ndcg("test_ndcg_zero_when_no_relevant[code]", "ndcg", (0.5, 0.2), (0.0, 0.0), 1.0,
          note="what allrank/models/metrics.py ndcg returns at HEAD (filler_value=1.0)"),
    _ndcg("test_ndcg_for_multiple_ats", "ndcg@1", (0.5, 0.2, 0.1), (1.0, 0.0, 1.0), 1.0),
    _ndcg("test_ndcg_for_multiple_ats", "ndcg@2", (0.5, 0.2, 0.1), (1.0, 0.0, 1.0),
          1.0 / (1.0 + L3)),
    _ndcg("test_ndcg_with_padded_input", "ndcg", (0.5, 0.2, 1.0), (1.0, 0.0, PAD), 1.0),
    _ndcg("test_ndcg_with_padded_input_2", "ndcg", (0.5, 0.2, 1.0), (0.0, 1.0, PAD), L3),
    _mrr("test_mrr_simple_1", "mrr@10", ((0.5, 0.2),), ((1.0, 0.0),), (1.0,)),
    _mrr("test_mrr_simple_no_ats", "mrr", ((0.5, 0.2),), ((1.0, 0.0),), (1.0,)),
    _mrr("test_mrr_simple_2", "mrr@10", ((0.5, 0.2),), ((0.0, 1.0),), (0.5,)),
    _mrr("test_mrr_multiple_slates", "mrr@10", ((0.2, 0.5), (0.5, 0.2)),
         ((0.0, 1.0), (0.0, 1.0)), (1.0, 0.5)),
    _mrr("test_mrr_multiple_ats", "mrr@1", ((0.5, 0.2),), ((0.0, 1.0),), (0.0,)),
    _mrr("test_mrr_multiple_ats", "mrr@2", ((0.5, 0.2),), ((0.0, 1.0),), (0.5,)),
    _mrr("test_mrr_multiple_slates_multiple_ats", "mrr@1", ((0.2, 0.5), (0.5, 0.2)),
         ((0.0, 1.0), (0.0, 1.0)), (1.0, 0.0)),
    _mrr("test_mrr_multiple_slates_multiple_ats", "mrr@2", ((0.2, 0.5), (0.5, 0.2)),
         ((0.0, 1.0), (0.0, 1.0)), (1.0, 0.5)),
    _mrr("test_mrr_zero_when_no_relevant", "mrr@10", ((0.5, 0.2),), ((0.0, 0.0),), (0.0,)),
    _mrr("test_mrr_with_padded_input", "mrr@10", ((0.5, 0.2, 1.0),), ((1.0, 0.0, PAD),), (1.0,)),
    _mrr("test_mrr_with_padded_input_2", "mrr@10", ((0.5, 0.2, 1.0),), ((0.0, 1.0, PAD),),
         (0.5,)),
]
