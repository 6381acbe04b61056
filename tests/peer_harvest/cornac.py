"""cornac (PreferredAI/cornac) tests/cornac/metrics/test_ranking.py.

cornac's ranking metrics take ``gt_pos`` (a 0/1 vector over items) and ``pd_rank`` (item indices,
best first; ``k=-1``: the whole list). Re-expressed as qrels (the positive items) and a run (the
ranked items, decreasing scores), so items the list does not rank still count in the ideal DCG and
in recall. AUC takes scores over all items, positives ``gt_pos`` and negatives ``gt_neg``
(default: the other items); an item that is neither is left out of the list.
"""

from __future__ import annotations

import math

from peer_harvest import Case, lists, ranked, relevant

REPO = "PreferredAI/cornac"
PATH = "tests/cornac/metrics/test_ranking.py"


def _case(test: str, metric: str, gt: tuple[int, ...], rec: tuple[int, ...], expected: float,
          tol: float = 1e-12) -> Case:
    qrels = {"u": relevant([i for i, g in enumerate(gt) if g])}
    return Case("cornac", REPO, PATH, test, metric, "cornac", qrels=qrels,
                run={"u": ranked(list(rec))}, mean=expected, tol=tol)


CASES: list[Case] = [
    _case("TestRanking.test_ndcg", "ndcg", (1,), (0,), 1.0),
    _case("TestRanking.test_ndcg", "ndcg", (1, 0, 1), (0, 2, 1), 1.0),
    _case("TestRanking.test_ndcg", "ndcg@2", (0, 0, 1), (1, 2, 0), 0.63, tol=0.005),
    _case("TestRanking.test_ncrr", "ncrr", (1,), (0,), 1.0),
    _case("TestRanking.test_ncrr", "ncrr", (1, 0, 1), (0, 2, 1), 1.0),
    _case("TestRanking.test_ncrr", "ncrr", (1, 0, 1), (1, 2, 0), (1 / 3 + 1 / 2) / (1 + 1 / 2)),
    _case("TestRanking.test_ncrr", "ncrr@2", (0, 0, 1), (1, 2, 0), 0.5),
    _case("TestRanking.test_mrr", "mrr", (1,), (0,), 1.0),
    _case("TestRanking.test_mrr", "mrr", (1, 0, 1), (0, 2, 1), 1.0),
    _case("TestRanking.test_mrr", "mrr", (1, 0, 1), (1, 2, 0), 1 / 2),
    _case("TestRanking.test_precision", "p", (1,), (0,), 1.0),
    _case("TestRanking.test_precision", "p", (1, 0, 1), (0, 2, 1), 2 / 3),
    _case("TestRanking.test_precision", "p", (0, 0, 1), (1, 2, 0), 1 / 3),
    _case("TestRanking.test_precision", "p@2", (0, 0, 1), (1, 2, 0), 0.5),
    _case("TestRanking.test_recall", "recall", (1,), (0,), 1.0),
    _case("TestRanking.test_recall", "recall", (1, 0, 1), (0, 2, 1), 1.0),
    _case("TestRanking.test_recall", "recall", (0, 0, 1), (1, 2, 0), 1.0),
    _case("TestRanking.test_recall", "recall@2", (0, 0, 1), (1, 2, 0), 1.0),
    _case("TestRanking.test_f_measure", "f1", (1,), (0,), 1.0),
    _case("TestRanking.test_f_measure", "f1", (1, 0, 1), (0, 2, 1), 4 / 5),
    _case("TestRanking.test_f_measure", "f1", (0, 0, 1), (1, 2, 0), 1 / 2),
    _case("TestRanking.test_f_measure", "f1@2", (0, 0, 1), (1, 2, 0), 2 / 3),
    _case("TestRanking.test_f_measure", "f1@2", (1, 0, 0), (1, 2), 0.0),
    Case("cornac", REPO, PATH, "TestRanking.test_auc", "auc", "cornac",
         labels=lists((0, 0, 1, 1)), scores=lists((0.1, 0.4, 0.35, 0.8)), mean=0.75, tol=1e-12),
    Case("cornac", REPO, PATH, "TestRanking.test_auc", "auc", "cornac",
         labels=lists((0, 1, 0, 1)), scores=lists((0.1, 0.4, 0.35, 0.8)), mean=1.0, tol=1e-12),
    Case("cornac", REPO, PATH, "TestRanking.test_auc", "auc", "cornac",
         labels=lists((0, 0, 1)), scores=lists((0.1, 0.4, 0.35)), mean=0.5, tol=1e-12,
         note="gt_pos (0, 0, 1, 0), gt_neg (1, 1, 0, 0): the fourth item (0.8) is neither "
         "positive nor negative, so it is in no pair: left out of the list"),
]

assert math.isclose(CASES[2].mean or 0.0, 0.63)
