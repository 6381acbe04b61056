"""torchmetrics (Lightning-AI/torchmetrics) retrieval doctests, read at HEAD dab0333 (2026-08):
the examples of ``src/torchmetrics/functional/retrieval/*.py`` (one query) and of the modules in
``src/torchmetrics/retrieval/*.py`` (queries given by ``indexes``), which torchmetrics' test run
executes as doctests. Its unit tests (``tests/unittests/retrieval``) compare with reference
implementations on random inputs and hold no fixed numbers. Profile ``torchmetrics``; the
printed values are rounded to 4 decimals (tolerance 5e-5).
"""

from __future__ import annotations

from peer_harvest import Case, lists

REPO = "Lightning-AI/torchmetrics"
FUN = "src/torchmetrics/functional/retrieval/"
MOD = "src/torchmetrics/retrieval/"

P1 = lists((0.2, 0.3, 0.5))
T1 = lists((1, 0, 1))
IP = lists((0.2, 0.3, 0.5), (0.1, 0.3, 0.5, 0.2))
IT = lists((0, 0, 1), (0, 1, 0, 1))
HT = lists((1, 0, 0), (0, 1, 0, 1))  # RetrievalHitRate's example targets
CP = lists((0.4, 0.01, 0.5, 0.6), (0.2, 0.3, 0.5))  # the precision-recall curve example
CT = lists((1, 0, 0, 1), (1, 0, 1))


def _c(path: str, test: str, metric: str, labels: tuple[tuple[float, ...], ...],
       scores: tuple[tuple[float, ...], ...], mean: float) -> Case:
    return Case("torchmetrics", REPO, path, f"doctest:{test}", metric, "torchmetrics",
                labels=labels, scores=scores, mean=mean, tol=5e-5)


CASES: list[Case] = [
    _c(FUN + "auroc.py", "retrieval_auroc", "auc", T1, P1, 0.5),
    _c(FUN + "average_precision.py", "retrieval_average_precision", "map", T1, P1, 0.8333),
    _c(FUN + "fall_out.py", "retrieval_fall_out", "fallout@2", T1, P1, 1.0),
    _c(FUN + "hit_rate.py", "retrieval_hit_rate", "hits@2", T1, P1, 1.0),
    _c(FUN + "ndcg.py", "retrieval_normalized_dcg", "ndcg", lists((10, 0, 0, 1, 5)),
       lists((0.1, 0.2, 0.3, 4, 70)), 0.6957),
    _c(FUN + "precision.py", "retrieval_precision", "p@2", T1, P1, 0.5),
    _c(FUN + "r_precision.py", "retrieval_r_precision", "rprec", T1, P1, 0.5),
    _c(FUN + "recall.py", "retrieval_recall", "recall@2", T1, P1, 0.5),
    _c(FUN + "reciprocal_rank.py", "retrieval_reciprocal_rank", "mrr", lists((0, 1, 0)), P1,
       0.5),
    _c(FUN + "precision_recall_curve.py", "retrieval_precision_recall_curve[precisions]",
       "p@1", T1, P1, 1.0),
    _c(FUN + "precision_recall_curve.py", "retrieval_precision_recall_curve[precisions]",
       "p@2", T1, P1, 0.5),
    _c(FUN + "precision_recall_curve.py", "retrieval_precision_recall_curve[recalls]",
       "recall@1", T1, P1, 0.5),
    _c(FUN + "precision_recall_curve.py", "retrieval_precision_recall_curve[recalls]",
       "recall@2", T1, P1, 0.5),
    _c(MOD + "auroc.py", "RetrievalAUROC", "auc", IT, IP, 0.75),
    _c(MOD + "average_precision.py", "RetrievalMAP", "map", IT, IP, 0.7917),
    _c(MOD + "fall_out.py", "RetrievalFallOut", "fallout@2", IT, IP, 0.5),
    _c(MOD + "hit_rate.py", "RetrievalHitRate", "hits@2", HT, IP, 0.5),
    _c(MOD + "ndcg.py", "RetrievalNormalizedDCG", "ndcg", IT, IP, 0.8467),
    _c(MOD + "precision.py", "RetrievalPrecision", "p@2", IT, IP, 0.5),
    _c(MOD + "r_precision.py", "RetrievalRPrecision", "rprec", IT, IP, 0.75),
    _c(MOD + "recall.py", "RetrievalRecall", "recall@2", IT, IP, 0.75),
    _c(MOD + "reciprocal_rank.py", "RetrievalMRR", "mrr", IT, IP, 0.75),
    *(_c(MOD + "precision_recall_curve.py", "RetrievalPrecisionRecallCurve[precisions]",
         f"p@{k}", CT, CP, v) for k, v in ((1, 1.0), (2, 0.5), (3, 0.6667), (4, 0.5))),
    *(_c(MOD + "precision_recall_curve.py", "RetrievalPrecisionRecallCurve[recalls]",
         f"recall@{k}", CT, CP, v) for k, v in ((1, 0.5), (2, 0.5), (3, 1.0), (4, 1.0))),
    Case("torchmetrics", REPO, MOD + "precision_recall_curve.py",
         "doctest:RetrievalRecallAtFixedPrecision", "recall_at_fixed_precision(0.8)",
         "torchmetrics", inexpressible="RetrievalRecallAtFixedPrecision returns the largest "
         "mean recall@k over k whose mean precision@k reaches min_precision, and that k "
         "((0.5, 1) here): a search over cutoffs, not one metric name; ltrbench gives "
         "p@1..4 and recall@1..4 (the curve cases above) but no name selects the k",
         extra={"expected": (0.5, 1)}),
]
