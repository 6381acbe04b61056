"""Round 9 of the hostile catalogue (issue 19), ids given to ``evaluate`` as Python lists: a bool
among numbers is refused, as a bool array is (NumPy made ``[True, True, 1, 1]`` the integers
``[1, 1, 1, 1]``: one query where the caller gave two kinds of id, exit 0)."""

from __future__ import annotations

import pytest

from bench.errors import DataError
from bench.metrics import evaluate

LABELS, SCORES = [1, 0, 1, 0], [0.9, 0.1, 0.2, 0.8]


@pytest.mark.parametrize(("qid", "row"), [([True, True, 1, 1], 1), ((1, 1, 2.0, False), 4),
                                          ([0, 0, True, True], 3)])
def test_a_bool_among_numeric_query_ids_is_refused_naming_its_row(qid: object, row: int) -> None:
    with pytest.raises(DataError, match=rf"row {row}: query id (True|False) is a bool"):
        evaluate(LABELS, SCORES, qid=qid, metrics="ndcg@10")


def test_numeric_query_ids_without_bools_still_evaluate() -> None:
    """Two queries by hand: q1 ranks its relevant document first (NDCG 1); q2 ranks it second of
    two, NDCG = (1/log2 3) / 1 = 0.6309."""
    r = evaluate(LABELS, SCORES, qid=[1, 1, 2, 2], metrics="ndcg@10", per_query=True)
    assert list(r.per_query["ndcg@10"]) == pytest.approx([1.0, 0.6309297535714575])
