"""RecBole (RUCAIBox/RecBole) tests/metrics: top-k, rank (GAUC) and loss metrics.

``test_topk_metrics.py`` gives, per user, the hit flags of the top 3 items (``pos_idx``) and the
size of the user's ground truth (``pos_len``); re-expressed as a run of the three ranked items and
qrels holding the hits plus unretrieved relevant items up to ``pos_len``. ``test_rank_metrics.py``
gives GAUC from each user's list length, positives and the sum of their ranks (rank 1 = top);
re-expressed as a list with the positives at ranks of that sum.
"""

from __future__ import annotations

import math

from peer_harvest import Case, lists, ranked, relevant

REPO = "RUCAIBox/RecBole"
TOPK = "tests/metrics/test_topk_metrics.py"
RANK = "tests/metrics/test_rank_metrics.py"
LOSS = "tests/metrics/test_loss_metrics.py"

POS_IDX = ((0, 0, 0), (1, 1, 1), (1, 0, 1), (0, 0, 1))
POS_LEN = (1, 3, 4, 2)


def _topk_inputs() -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]]:
    qrels: dict[str, dict[str, float]] = {}
    run: dict[str, dict[str, float]] = {}
    for u, (hits, n_pos) in enumerate(zip(POS_IDX, POS_LEN, strict=True)):
        docs = [f"d{j}" for j in range(3)]
        run[f"u{u}"] = ranked(docs)
        found = [d for d, h in zip(docs, hits, strict=True) if h]
        qrels[f"u{u}"] = relevant(found + [f"x{m}" for m in range(n_pos - len(found))])
    return qrels, run


L = math.log2
EXPECTED: dict[str, tuple[tuple[float, float, float], ...]] = {
    "hits": ((0, 0, 0), (1, 1, 1), (1, 1, 1), (0, 0, 1)),
    "ndcg": ((0, 0, 0), (1, 1, 1),
             (1, (1 / L(2)) / (1 / L(2) + 1 / L(3)),
              (1 / L(2) + 1 / L(4)) / (1 / L(2) + 1 / L(3) + 1 / L(4))),
             (0, 0, (1 / L(4)) / (1 / L(2) + 1 / L(3)))),
    "mrr": ((0, 0, 0), (1, 1, 1), (1, 1, 1), (0, 0, 1 / 3)),
    "map": ((0, 0, 0), (1, 1, 1), (1, 1 / 2, (1 / 3) * (1 + 2 / 3)), (0, 0, (1 / 3) * (1 / 2))),
    "recall": ((0, 0, 0), (1 / 3, 2 / 3, 1), (1 / 4, 1 / 4, 2 / 4), (0, 0, 1 / 2)),
    "p": ((0, 0, 0), (1, 1, 1), (1, 1 / 2, 2 / 3), (0, 0, 1 / 3)),
}
TEST_OF = {"hits": "test_hit", "ndcg": "test_ndcg", "mrr": "test_mrr", "map": "test_map",
           "recall": "test_recall", "p": "test_precision"}


def _topk_cases() -> list[Case]:
    qrels, run = _topk_inputs()
    out = []
    for family, rows in EXPECTED.items():
        for j, k in enumerate((1, 2, 3)):
            out.append(Case(
                "recbole", REPO, TOPK, f"TestTopKMetrics.{TEST_OF[family]}", f"{family}@{k}",
                "recbole", qrels=qrels, run=run, per_query=tuple(row[j] for row in rows),
                tol=1e-12))
    return out


def _ranks_with_sum(n: int, p: int, total: int) -> tuple[float, ...]:
    """Labels of a list of ``n`` whose ``p`` positives sit at ranks summing to ``total``."""
    ranks = list(range(1, p + 1))
    i = p - 1
    while sum(ranks) < total:  # push the lowest-placed positive down, one rank at a time
        limit = n - (p - 1 - i)
        if ranks[i] < limit:
            ranks[i] += 1
        else:
            i -= 1
    return tuple(1.0 if r in ranks else 0.0 for r in range(1, n + 1))


def _descending_like(labels: tuple[tuple[float, ...], ...]) -> tuple[tuple[float, ...], ...]:
    """Scores ranking each list in row order."""
    return tuple(tuple(float(len(r) - i) for i in range(len(r))) for r in labels)


def _gauc_cases() -> list[Case]:
    out = []
    users0 = ((2, 1, 1), (3, 2, 4), (5, 3, 9))
    labels0 = lists(*(_ranks_with_sum(n, p, s) for n, p, s in users0))
    expect0 = (1 * ((2 - 0 / 2 - 1 / 1) / (2 - 1)) + 2 * ((3 - 1 / 2 - 4 / 2) / (3 - 2))
               + 3 * ((5 - 2 / 2 - 9 / 3) / (5 - 3))) / (1 + 2 + 3)
    out.append(Case("recbole", REPO, RANK, "TestRankMetrics.test_gauc[case0]", "gauc", "recbole",
                    labels=labels0, scores=_descending_like(labels0), mean=expect0, tol=1e-12,
                    note="RecBole's GAUC (evaluator/metrics.py GAUC.metric_info) weighs each "
                    "user's AUC by its positives (pos_len = 1, 2, 3): the recbole profile's "
                    "gauc_weight='relevant'"))
    # case 1: a user of 3 with its positive last, one without positives, one of positives only
    labels1 = lists((0, 0, 1), (0, 0, 0, 0, 0, 0), (1, 1, 1, 1))
    out.append(Case("recbole", REPO, RANK, "TestRankMetrics.test_gauc[case1]", "gauc", "recbole",
                    labels=labels1, scores=_descending_like(labels1),
                    mean=(3 - 0 - 3 / 1) / (3 - 1), tol=1e-12,
                    note="users of one class are left out (RecBole: pos_len 0 or all positive)"))
    return out


PREDS = ((0.1, 0.9, 0.2, 0.3), (0.7, 0.5, 0.6, 0.2))
TRUES = ((1, 0, 1, 1), (0, 1, 1, 0))


def _loss_cases() -> list[Case]:
    out = []
    for case, (auc, rmse, mae) in enumerate((
            (0.0, math.sqrt((0.9**2 + 0.9**2 + 0.8**2 + 0.7**2) / 4), (0.9 + 0.9 + 0.8 + 0.7) / 4),
            (2 / (2 * 2), math.sqrt((0.7**2 + 0.5**2 + 0.4**2 + 0.2**2) / 4),
             (0.7 + 0.5 + 0.4 + 0.2) / 4))):
        args = {"labels": lists(TRUES[case]), "scores": lists(PREDS[case])}
        out.append(Case("recbole", REPO, LOSS, f"TestLossMetrics.test_auc[case{case}]", "auc",
                        "recbole", mean=auc, tol=1e-12, **args))  # type: ignore[arg-type]
        out.append(Case("recbole", REPO, LOSS, f"TestLossMetrics.test_rmse[case{case}]", "rmse",
                        "recbole", mean=rmse, tol=1e-12, **args))  # type: ignore[arg-type]
        out.append(Case("recbole", REPO, LOSS, f"TestLossMetrics.test_mae[case{case}]", "mae",
                        "recbole", mean=mae, tol=1e-12, **args))  # type: ignore[arg-type]
        out.append(Case("recbole", REPO, LOSS, f"TestLossMetrics.test_logloss[case{case}]",
                        "logloss", "recbole", out_of_scope="log loss of predicted "
                        "probabilities: a pointwise classification loss, not a ranking metric",
                        **args))  # type: ignore[arg-type]
    for test in ("test_itemcoverage", "test_averagepopularity", "test_giniindex",
                 "test_shannonentropy", "test_tailpercentage"):
        out.append(Case("recbole", REPO, TOPK, f"TestTopKMetrics.{test}", test[5:], "recbole",
                        out_of_scope="a property of the recommended items over all users "
                        "(item ids, popularity counts), not of relevance labels"))
    return out


CASES: list[Case] = [*_topk_cases(), *_gauc_cases(), *_loss_cases()]
