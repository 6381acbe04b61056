"""ranx objects with widened document-id arrays (bench.crosscheck.ranx_objects): the same ids,
values and per-query numbers as ranx's own constructors, checked against pytrec_eval."""

from __future__ import annotations

import math

import pytest

from bench.crosscheck import ranx_objects

ranx = pytest.importorskip("ranx")
pytrec_eval = pytest.importorskip("pytrec_eval")

# Ids of many lengths up to the first width (64 characters), non-ASCII, a digit-only one. (An id
# past it, 65 characters, takes the next width, 128: the same code, but one more numba compile of
# ranx's builders, about 30 s of a core, which the CI's warm-up does not cover.)
LONG = "d" * 63
QRELS = {"q1": {"a": 1, "bb": 2, LONG: 1, "é文": 0}, "q2": {"7": 2, "x" * 64: 1}}
RUN = {"q1": {"a": 0.3, "bb": 0.9, "zz": 0.5, LONG: 0.1}, "q2": {"7": 0.2, "x" * 64: 0.8, "q": 0.1}}


def test_widths_are_64_times_a_power_of_two_that_holds_the_longest_id() -> None:
    assert [ranx_objects.id_width(n) for n in (0, 1, 64, 65, 128, 129)] == [64, 64, 64, 128,
                                                                            128, 256]


def test_widened_qrels_and_run_hold_exactly_the_given_ids_and_values() -> None:
    assert ranx_objects.qrels(QRELS).to_dict() == QRELS
    assert ranx_objects.run(RUN).to_dict() == RUN


def test_widened_objects_give_pytrec_eval_numbers_per_query() -> None:
    r = ranx_objects.run(RUN)
    ranx.evaluate(ranx_objects.qrels(QRELS), r, ["ndcg@10", "map", "mrr"], make_comparable=True)
    theirs = pytrec_eval.RelevanceEvaluator(QRELS, {"ndcg_cut.10", "map", "recip_rank"}).evaluate(RUN)
    for q in QRELS:
        for mine, trec in (("ndcg@10", "ndcg_cut_10"), ("map", "map"), ("mrr", "recip_rank")):
            assert math.isclose(r.scores[mine][q], theirs[q][trec], rel_tol=1e-12), (q, mine)


def test_an_input_without_document_ids_is_left_to_ranx_itself() -> None:
    with pytest.raises(ValueError, match="empty"):
        ranx.Qrels({})  # what ranx says: no longest id
    with pytest.raises(ValueError, match="empty"):
        ranx_objects.qrels({})


def test_the_test_sessions_own_ranx_objects_keep_their_ids() -> None:
    """The session fixture (tests/conftest.py) widens ranx's builder for the tests' oracle calls."""
    assert ranx.Qrels(QRELS).to_dict() == QRELS
    assert ranx.Run(RUN).to_dict() == RUN
