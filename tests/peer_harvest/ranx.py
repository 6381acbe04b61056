"""ranx (AmenRa/ranx) tests/unit/ranx: metrics_test.py (numba-level metrics on ``[doc, rel]``
arrays, the run already in ranked order), metrics/f1_test.py, bpref_test.py and
rank_biased_precision_test.py (``Qrels`` / ``Run`` dicts).

The ranked arrays are re-expressed as runs with decreasing scores; a run array that repeats a
document (``[[1, 1], [1, 1], [1, 1], ...]`` in ``test_reciprocal_rank``) keeps its first occurrence,
as a ranx ``Run`` dict can hold a document once. Where a test asserts that the mean equals the
mean of its own per-query calls, the expected value is that mean by hand arithmetic. ranx's
``hits@k`` is a count of relevant documents in the top k: ``k * P@k`` (``scale``).
"""

from __future__ import annotations

import math

from peer_harvest import Case, ranked

REPO = "AmenRa/ranx"
METRICS = "tests/unit/ranx/metrics_test.py"
F1 = "tests/unit/ranx/metrics/f1_test.py"
BPREF = "tests/unit/ranx/metrics/bpref_test.py"
RBP = "tests/unit/ranx/metrics/rank_biased_precision_test.py"


def _qrels(*rows: dict[int, float]) -> dict[str, dict[str, float]]:
    return {f"q{i}": {str(d): float(r) for d, r in row.items()} for i, row in enumerate(rows)}


def _run(*rows: list[int]) -> dict[str, dict[str, float]]:
    out = {}
    for i, row in enumerate(rows):
        seen = list(dict.fromkeys(row))  # first occurrence of a repeated document
        out[f"q{i}"] = ranked(seen)
    return out


def _case(path: str, test: str, metric: str, qrels: dict[str, dict[str, float]],
          run: dict[str, dict[str, float]], *, mean: float | None = None,
          per_query: tuple[float, ...] | None = None, profile: str = "ranx",
          tol: float = 1e-8, scale: float = 1.0, note: str = "") -> Case:
    return Case("ranx", REPO, path, test, metric, profile, qrels=qrels, run=run, mean=mean,
                per_query=per_query, tol=tol, scale=scale, note=note)


def _binary(*ids: int) -> dict[int, float]:
    return {i: 1.0 for i in ids}


_P_RUN = [4, 5, 6, 2, 1, 7, 3]
_P_QRELS = _qrels(_binary(1, 2, 3), _binary(4, 5, 6, 7), _binary(8, 9))
_P_RUNS = _run(_P_RUN, _P_RUN, _P_RUN)
_R_QRELS = _qrels(_binary(1, 2, 3), _binary(1, 2))
_R_RUN = [2, 4, 3, 1, 5, 6, 7]
_G_QRELS = _qrels({2: 5, 4: 4, 5: 3, 10: 2})
_G_RUNS = ([1, 2, 3, 4, 5], [10, 5, 2, 4, 3], [1, 3, 6, 7, 8])
L = math.log2
_JARVELIN = ((5 / L(3) + 4 / L(5) + 3 / L(6)),
             (2 / L(2) + 3 / L(3) + 5 / L(4) + 4 / L(5)), 0.0)
_IDCG = 5 / L(2) + 4 / L(3) + 3 / L(4) + 2 / L(5)
_BURGES = ((31 / L(3) + 15 / L(5) + 7 / L(6)), (3 / L(2) + 7 / L(3) + 31 / L(4) + 15 / L(5)), 0.0)
_IDCG_B = 31 / L(2) + 15 / L(3) + 7 / L(4) + 3 / L(5)


def _graded() -> list[Case]:
    out = []
    for j, run in enumerate(_G_RUNS):
        runs = _run(run)
        out.append(_case(METRICS, f"test_dcg_jarvelin[y_pred_{j + 1}]", "dcg@10", _G_QRELS, runs,
                         per_query=(_JARVELIN[j],)))
        out.append(_case(METRICS, f"test_ndcg_jarvelin[y_pred_{j + 1}]", "ndcg@10", _G_QRELS,
                         runs, per_query=(_JARVELIN[j] / _IDCG,)))
        out.append(_case(METRICS, f"test_dcg_burges[y_pred_{j + 1}]", "dcg@10", _G_QRELS, runs,
                         per_query=(_BURGES[j],), profile="ranx-burges"))
        out.append(_case(METRICS, f"test_ndcg_burges[y_pred_{j + 1}]", "ndcg@10", _G_QRELS,
                         runs, per_query=(_BURGES[j] / _IDCG_B,), profile="ranx-burges"))
    return out


_F_QRELS = {
    "q1": {"d2": 1.0, "d5": 1.0, "d1": 0.0, "d4": 0.0},
    "q2": {"d2": 1.0, "d5": 1.0, "d1": 0.0, "d6": 0.0},
    "q3": {"d2": 1.0, "d5": 1.0, "d7": 1.0, "d1": 0.0, "d6": 0.0, "d8": 0.0},
    "q4": {"d2": 1.0, "d4": 1.0, "d6": 1.0, "d9": 1.0, "d1": 0.0, "d3": 0.0, "d7": 0.0,
           "d8": 0.0},
}
_F_RUN = {
    "q1": ranked(["d1", "d2", "d3", "d4"]),
    "q2": ranked(["d1", "d2", "d3", "d4", "d5", "d6"]),
    "q3": ranked(["d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8"]),
    "q4": ranked(["d1", "d12", "d3", "d14", "d16", "d7", "d8"]),
}
_B_RUN = dict(_F_RUN, q4=ranked(["d1", "d2", "d3", "d4", "d6", "d7", "d8"]))


def _f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r)


_RBP_QRELS = {"q1": {f"d{i}": 1.0 for i in (1, 2, 6, 11, 17)}}
_RBP_RUN = {"q1": {f"d{i}": float(21 - i) for i in range(1, 21)}}

CASES: list[Case] = [
    _case(METRICS, "test_hits", "p@5", _qrels(_binary(1, 4, 5, 6), _binary(1, 4, 6)),
          _run([1, 2, 3, 4, 5, 7], [1, 2, 4, 3, 5, 7]), mean=2.5, scale=5.0,
          note="ranx hits@5 (a count) = 5 * P@5"),
    _case(METRICS, "test_hit_rate", "hit_rate@5", _qrels(_binary(9, 6, 8), _binary(1, 2, 4)),
          _run([1, 2, 3, 4, 5, 7], [1, 2, 4, 3, 5, 7]), mean=0.5),
    _case(METRICS, "test_precision", "p@5", _P_QRELS, _P_RUNS, mean=(2 / 5 + 3 / 5 + 0) / 3),
    _case(METRICS, "test_average_precision", "map@7", _P_QRELS, _P_RUNS,
          mean=((1 / 4 + 2 / 5 + 3 / 7) / 3 + (1 + 1 + 1 + 4 / 6) / 4 + 0) / 3),
    _case(METRICS, "test_reciprocal_rank_single", "mrr@5", _qrels(_binary(3)),
          _run([2, 3, 1, 4, 5]), per_query=(0.5,)),
    _case(METRICS, "test_reciprocal_rank_single_no_match", "mrr@5", _qrels(_binary(3)),
          _run([2, 1, 4, 5]), per_query=(0.0,)),
    _case(METRICS, "test_reciprocal_rank", "mrr@5", _qrels(_binary(3), _binary(1), _binary(3)),
          _run([2, 3, 1, 4, 5], [1, 2, 3, 4, 5], [1, 1, 1, 4, 5]), mean=0.5),
    _case(METRICS, "test_r_precision_single", "rprec", _qrels(_binary(1, 2, 3)), _run(_R_RUN),
          per_query=(2 / 3,)),
    _case(METRICS, "test_r_precision", "rprec", _R_QRELS, _run(_R_RUN, _R_RUN),
          mean=(2 / 3 + 1 / 2) / 2),
    _case(METRICS, "test_recall_single", "recall@2", _qrels(_binary(1, 2, 3)), _run(_R_RUN),
          per_query=(1 / 3,)),
    _case(METRICS, "test_recall", "recall@2", _R_QRELS, _run(_R_RUN, _R_RUN),
          mean=(1 / 3 + 1 / 2) / 2),
    *_graded(),
    _case(F1, "test_f1", "f1", _F_QRELS, _F_RUN,
          per_query=(_f1(1 / 4, 1 / 2), _f1(2 / 6, 1.0), _f1(3 / 8, 1.0), 0.0),
          note="the test asserts f1 = 2PR/(P+R) of ranx's own precision and recall over the "
          "whole run: hand arithmetic"),
    _case(BPREF, "test_bpref", "bpref", _F_QRELS, _B_RUN,
          per_query=(1 / 2 * (1 - 1 / 2), 1 / 2 * ((1 - 1 / 2) + (1 - 1 / 2)),
                     1 / 3 * ((1 - 1 / 3) + (1 - 1 / 3) + (1 - 2 / 3)),
                     1 / 4 * ((1 - 1 / 4) + (1 - 2 / 4) + (1 - 2 / 4)))),
    _case(RBP, "test_rank_biased_precision[0.5]", "rbp(0.5)", _RBP_QRELS, _RBP_RUN,
          per_query=(0.7661,), tol=5e-5),
    _case(RBP, "test_rank_biased_precision[0.8]", "rbp(0.8)", _RBP_QRELS, _RBP_RUN,
          per_query=(0.4526,), tol=5e-5),
    _case(RBP, "test_rank_biased_precision[0.95]", "rbp(0.95)", _RBP_QRELS, _RBP_RUN,
          per_query=(0.1881,), tol=5e-5),
]
