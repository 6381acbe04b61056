"""pytrec_eval (cvangysel/pytrec_eval) tests/pytrec_eval_tests.py, a project of the first
harvest: ``test_ndcg`` and ``test_ndcg_cut`` on a two-query qrels where the run scores only q1
(q2's run is empty, so trec_eval without ``-c`` leaves it out). Profile ``trec_eval``; the names
are trec_eval's own (``ndcg``, ``ndcg_cut_3``).
"""

from __future__ import annotations

from peer_harvest import Case

REPO = "cvangysel/pytrec_eval"
PATH = "tests/pytrec_eval_tests.py"
QRELS = {"q1": {"d1": 0.0, "d2": 1.0, "d3": 0.0}, "q2": {"d2": 1.0, "d3": 1.0}}
RANK3 = {"q1": {"d1": 1.0, "d2": 0.0, "d3": 1.5}}  # d2 (relevant) at rank 3
RANK1 = {"q1": {"d1": 1.0, "d2": 2.0, "d3": 1.5}}  # d2 at rank 1
RANK2 = {"q1": {"d1": 4.0, "d2": 2.0, "d3": 1.5}}  # d2 at rank 2


def _c(test: str, metric: str, run: dict[str, dict[str, float]], value: float) -> Case:
    return Case("pytrec_eval", REPO, PATH, f"PyTrecEvalUnitTest.{test}", metric, "trec_eval",
                qrels=QRELS, run=run, per_query=(value,), tol=5e-8)


CASES: list[Case] = [
    _c("test_ndcg", "ndcg", RANK3, 0.5),
    _c("test_ndcg", "ndcg", RANK1, 1.0),
    _c("test_ndcg", "ndcg", RANK1, 1.0),
    _c("test_ndcg", "ndcg", RANK2, 0.6309297535714575),
    _c("test_ndcg", "ndcg", RANK1, 1.0),
    _c("test_ndcg", "ndcg", RANK2, 0.6309297535714575),
    _c("test_ndcg_cut", "ndcg_cut_3", RANK3, 0.5),
    _c("test_ndcg_cut", "ndcg_cut_1", RANK1, 1.0),
    _c("test_ndcg_cut", "ndcg_cut_3", RANK3, 0.5),
    _c("test_ndcg_cut", "ndcg_cut_2", RANK3, 0.0),
    _c("test_ndcg_cut", "ndcg_cut_1", RANK3, 0.0),
    _c("test_ndcg_cut", "ndcg_cut_1000", RANK3, 0.5),
]
