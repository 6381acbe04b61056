"""pytorch-ignite (pytorch/ignite) ignite.metrics.rec_sys, read at HEAD de08e79 (2026-08):
tests/ignite/metrics/rec_sys/test_ndcg.py, test_hitrate_metric.py and the ``testcode`` /
``testoutput`` examples of ignite/metrics/rec_sys/ndcg.py and hitrate.py (run by ignite's doc
tests). Batches ``(y_pred, y)`` of one row per user. Profiles: ``ignite`` (``NDCG`` /
``HitRate`` defaults: gain 2^y - 1, ``ignore_zero_hits=True``), ``ignite-zero-hits``
(``ignore_zero_hits=False``), ``ignite-linear`` (``gain_function='linear_rank'``).

``test_ndcg.py`` takes its expected numbers from ranx (``ranx_ndcg``: ``ndcg_burges@k`` or
``ndcg@k`` on qrels of the labels >= the threshold); they are the numbers ranx 0.3 gives for
those inputs (computed here with the installed ranx, and by hand where noted). ``testoutput``
values printed with an ellipsis (``0.38...``) are matched to their printed digits.
"""

from __future__ import annotations

from peer_harvest import Case, lists

REPO = "pytorch/ignite"
NDCG_T = "tests/ignite/metrics/rec_sys/test_ndcg.py"
HIT_T = "tests/ignite/metrics/rec_sys/test_hitrate_metric.py"
NDCG_D = "ignite/metrics/rec_sys/ndcg.py"
HIT_D = "ignite/metrics/rec_sys/hitrate.py"

P2 = lists((4.0, 2.0, 3.0, 1.0), (1.0, 2.0, 3.0, 4.0))
T2 = lists((0, 0, 1, 1), (0, 0, 0, 0))
PT = lists((0.7, 0.7, 0.7, 0.5, 0.5), (0.9, 0.9, 0.6, 0.6, 0.3), (0.8, 0.8, 0.5, 0.1, 0.1))
TT = lists((3, 2, 1, 1, 0), (4, 3, 2, 1, 0), (1, 1, 0, 0, 0))
# test_compute's expected (ranx ndcg_burges@k over the users with a relevant item / all users)
NDCG_IGNORE = {1: 0.0, 2: 0.38685280723454163, 4: 0.6509209298071326}
NDCG_ALL = {1: 0.0, 2: 0.19342640361727081, 4: 0.3254604649035663}


def _c(path: str, test: str, metric: str, profile: str, labels: tuple[tuple[float, ...], ...],
       scores: tuple[tuple[float, ...], ...], mean: float, tol: float = 1e-5) -> Case:
    return Case("ignite", REPO, path, test, metric, profile, labels=labels, scores=scores,
                mean=mean, tol=tol)


def _cases() -> list[Case]:
    out = []
    for k in (1, 2, 4):
        out.append(_c(NDCG_T, "test_compute[ignore_zero_hits=True]", f"ndcg@{k}", "ignite", T2,
                      P2, NDCG_IGNORE[k]))
        out.append(_c(NDCG_T, "test_compute[ignore_zero_hits=False]", f"ndcg@{k}",
                      "ignite-zero-hits", T2, P2, NDCG_ALL[k]))
        out.append(_c(HIT_T, "test_compute[ignore_zero_hits=True]", f"hits@{k}", "ignite", T2, P2,
                      {1: 0.0, 2: 1.0, 4: 1.0}[k]))
        out.append(_c(HIT_T, "test_compute[ignore_zero_hits=False]", f"hits@{k}",
                      "ignite-zero-hits", T2, P2, {1: 0.0, 2: 0.5, 4: 0.5}[k]))
    for k, lo in ((1, 0.0), (2, 0.38), (3, 0.38), (4, 0.65)):
        out.append(_c(NDCG_D, "doctest:NDCG[1]", f"ndcg@{k}", "ignite", T2, P2, lo + 0.005 if lo else 0.0,
                      tol=0.005 if lo else 1e-9))
    for k, lo in ((1, 0.0), (2, 0.19), (3, 0.19), (4, 0.32)):
        out.append(_c(NDCG_D, "doctest:NDCG[2]", f"ndcg@{k}", "ignite-zero-hits", T2, P2,
                      lo + 0.005 if lo else 0.0, tol=0.005 if lo else 1e-9))
    for k, v in ((1, 0.0), (2, 1.0), (3, 1.0), (4, 1.0)):
        out.append(_c(HIT_D, "doctest:HitRate[1]", f"hits@{k}", "ignite", T2, P2, v))
    for k, v in ((1, 0.0), (2, 0.5), (3, 0.5), (4, 0.5)):
        out.append(_c(HIT_D, "doctest:HitRate[2]", f"hits@{k}", "ignite-zero-hits", T2, P2, v))
    out.append(_c(HIT_D, "doctest:HitRate[3]", "hits@2", "ignite", lists((0, 0, 1, 0)),
                  lists((4.0, 2.0, 3.0, 1.0)), 1.0))
    out.append(_c(HIT_T, "test_int_top_k", "hits@2", "ignite", lists((0, 0, 1, 0)),
                  lists((4.0, 2.0, 3.0, 1.0)), 1.0))
    for k in (2, 3, 5):  # ranx gives 1.0 for every user: rows already in label order in ties
        out.append(_c(NDCG_T, "test_compute_vs_ranx_with_ties[ignore_zero_hits=True]",
                      f"ndcg@{k}", "ignite", TT, PT, 1.0))
        out.append(_c(NDCG_T, "test_compute_vs_ranx_with_ties[ignore_zero_hits=False]",
                      f"ndcg@{k}", "ignite-zero-hits", TT, PT, 1.0))
        out.append(_c(NDCG_T, "test_compute_vs_ranx_linear_gain", f"ndcg@{k}", "ignite-linear",
                      TT[:2], PT[:2], 1.0))
    out += [
        _c(NDCG_T, "test_perfect_prediction", "ndcg@1", "ignite", lists((3, 1, 2, 0)),
           lists((5.0, 3.0, 4.0, 1.0)), 1.0),
        _c(NDCG_T, "test_perfect_prediction", "ndcg@3", "ignite", lists((3, 1, 2, 0)),
           lists((5.0, 3.0, 4.0, 1.0)), 1.0),
        _c(NDCG_T, "test_multiple_batches", "ndcg@3", "ignite-zero-hits",
           lists((3, 2, 1), (3, 2, 1)), lists((3.0, 2.0, 1.0), (1.0, 2.0, 3.0)),
           (1.0 + 0.6806060567602009) / 2),
        _c(NDCG_T, "test_all_zeros_relevance", "ndcg@2", "ignite-zero-hits", lists((0, 0, 0)),
           lists((5.0, 3.0, 4.0)), 0.0),
        Case("ignite", REPO, NDCG_T, "test_graded_relevance_threshold", "ndcg@3", "ignite",
             labels=lists((3, 0, 2)), scores=lists((0.9, 0.3, 0.7)), mean=1.0, tol=1e-5,
             note="relevance_threshold=2.0 zeroes the label 1 (y_for_dcg = where(y >= 2, y, "
             "0)): re-expressed as label 0, since relevance_threshold is a profile field and "
             "the case may not override it"),
    ]
    return out


CASES: list[Case] = _cases()
