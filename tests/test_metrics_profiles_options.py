"""Golden tests of the profile options of issue 23: trec_eval ``-M`` (``run_depth``), ``-J``
(``judged_only``), the relevance level (``rel_level``: trec_eval ``-l`` keeps gains, ranx
``rel_lvl`` zeroes them), per query, ties and blank queries included.

Golden values come from pytrec_eval (trec_eval 9.0.8: ``relevance_level``,
``judged_docs_only_flag``; ``-M`` as the run cut beforehand in trec_eval's own order, score as
float32 descending then document id descending, ``form_res_rels.c``) and ranx 0.3.21
(``rel_lvl`` spelled ``-lN``), never from ltrbench.
"""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np
import pytest

from bench.metrics import evaluate, evaluate_trec, get_profile

pytrec_eval = pytest.importorskip("pytrec_eval")

# Query 1: ties straddling rank 2 and 3 (b, c, d at 0.8), an unjudged document (e) at the top,
# a judged relevant document never retrieved (z). Query 2: only unjudged and negative-judged
# documents retrieved. Query 3: blank (no relevant judgment). Query 4: fewer documents than N.
QRELS = {
    "1": {"a": 1, "b": 0, "c": 2, "d": 1, "z": 1},
    "2": {"x": 1, "y": -1},
    "3": {"m": 0, "n": 0},
    "4": {"p": 2, "q": 1},
}
RUN = {
    "1": {"a": 0.9, "b": 0.8, "c": 0.8, "d": 0.8, "e": 0.95, "f": 0.1},
    "2": {"u": 0.9, "y": 0.8},
    "3": {"m": 0.1, "n": 0.5, "o": 0.7},
    "4": {"q": 0.3},
}
MEASURES = ("map", "ndcg", "P_2", "P_5", "recip_rank", "ndcg_cut_3", "recall_5", "bpref",
            "Rprec", "map_cut_2")


def _pytrec(qrels: dict, run: dict, **kw: object) -> dict[str, dict[str, float]]:
    ev = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES), **kw)
    return ev.evaluate(run)


def _ours(profile: object, run: dict = RUN, qrels: dict = QRELS) -> dict[str, dict[str, float]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pq = evaluate_trec(qrels, run, metrics=list(MEASURES), profile=profile,
                           per_query=True).per_query
    return {str(r["qid"]): {m: float(r[m]) for m in MEASURES} for _, r in pq.iterrows()}


def _cut(run: dict, depth: int) -> dict:
    """The run cut beforehand in trec_eval's order: float32 score desc, then docno desc."""
    out = {}
    for q, docs in run.items():
        ranked = sorted(docs.items(), key=lambda kv: kv[0], reverse=True)
        ranked = sorted(ranked, key=lambda kv: -float(np.float32(kv[1])))
        out[q] = dict(ranked[:depth])
    return out


def _same(ours: dict, theirs: dict) -> None:
    assert set(ours) == set(theirs)
    for q in theirs:
        for m in MEASURES:
            assert ours[q][m] == pytest.approx(theirs[q][m], abs=1e-12), (q, m)


@pytest.mark.parametrize("depth", [1, 2, 3, 4, 100])
def test_run_depth_equals_trec_eval_on_the_run_cut_beforehand(depth: int) -> None:
    prof = replace(get_profile("trec_eval"), run_depth=depth)
    _same(_ours(prof), _pytrec(QRELS, _cut(RUN, depth)))


def test_run_depth_changes_values_where_the_cut_bites() -> None:
    full = _ours(get_profile("trec_eval"))
    cut = _ours(replace(get_profile("trec_eval"), run_depth=2))
    assert cut["1"]["map"] != full["1"]["map"]
    assert cut["1"]["P_5"] == pytest.approx(1 / 5)  # e (unjudged), a: one hit in the top 2


def test_judged_only_equals_trec_eval_minus_J() -> None:
    prof = replace(get_profile("trec_eval"), judged_only=True)
    _same(_ours(prof), _pytrec(QRELS, RUN, judged_docs_only_flag=True))


def test_judged_only_leaves_a_query_without_judged_documents_at_zero() -> None:
    ours = _ours(replace(get_profile("trec_eval"), judged_only=True))
    assert ours["2"]["map"] == 0.0
    assert ours["2"]["ndcg"] == 0.0


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_run_depth_then_judged_only_as_trec_eval_minus_M_minus_J(depth: int) -> None:
    prof = replace(get_profile("trec_eval"), run_depth=depth, judged_only=True)
    _same(_ours(prof), _pytrec(QRELS, _cut(RUN, depth), judged_docs_only_flag=True))


@pytest.mark.parametrize("level", [1, 2])
def test_relevance_level_keeps_gains_as_trec_eval_minus_l(level: int) -> None:
    prof = replace(get_profile("trec_eval"), relevance_threshold=float(level))
    _same(_ours(prof), _pytrec(QRELS, RUN, relevance_level=level))


def test_trec_eval_profile_with_rel_level_zero_is_not_trec_eval() -> None:
    """Guard: zeroing the gains below level 2 changes trec_eval's NDCG of query 1 (label 1
    documents lose their gain), so the keep/zero switch is what makes the -l2 test pass."""
    keep = _ours(replace(get_profile("trec_eval"), relevance_threshold=2.0))
    zero = _ours(replace(get_profile("trec_eval"), relevance_threshold=2.0, rel_level="zero"))
    assert keep["1"]["ndcg"] != zero["1"]["ndcg"]


def test_issue_example_ranx_level_two_is_0_6309_and_trec_eval_0_8597() -> None:
    ranx = pytest.importorskip("ranx")
    qrels, run = {"1": {"a": 1, "b": 2}}, {"1": {"a": 2.0, "b": 1.0}}
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), ["ndcg@2", "ndcg@2-l2"])
    two = replace(get_profile("ranx"), relevance_threshold=2.0)
    keep = replace(two, rel_level="keep")
    ours_ranx = evaluate_trec(qrels, run, metrics=["ndcg@2"], profile=two).metrics["ndcg@2"]
    ours_keep = evaluate_trec(qrels, run, metrics=["ndcg@2"], profile=keep).metrics["ndcg@2"]
    assert ours_ranx == pytest.approx(float(theirs["ndcg@2-l2"]), abs=1e-12)
    assert ours_ranx == pytest.approx(0.6309297535714575, abs=1e-12)
    assert ours_keep == pytest.approx(0.8597186998521972, abs=1e-12)
    assert evaluate_trec(qrels, run, metrics=["ndcg@2"], profile="ranx").metrics["ndcg@2"] \
        == pytest.approx(float(theirs["ndcg@2"]), abs=1e-12)


@pytest.mark.parametrize("level", [1, 2, 3])
def test_ranx_rel_level_zeroes_gains_per_query(level: int) -> None:
    ranx = pytest.importorskip("ranx")
    qrels = {"1": {"a": 1, "b": 2, "c": 3, "z": 2}, "2": {"x": 1, "y": 1}, "3": {"m": 3}}
    run = {"1": {"a": 0.9, "b": 0.5, "c": 0.3, "d": 0.2}, "2": {"x": 0.4, "y": 0.8, "w": 0.9},
           "3": {"m": 0.1, "n": 0.2}}
    names = [f"ndcg@3-l{level}", f"ndcg_burges@3-l{level}", f"map-l{level}",
             f"precision@2-l{level}", f"recall@3-l{level}", f"mrr-l{level}"]
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), names, return_mean=False)
    ours_names = ["ndcg@3", "map", "p@2", "recall@3", "mrr"]
    prof = replace(get_profile("ranx"), relevance_threshold=float(level))
    pq = evaluate_trec(qrels, run, metrics=ours_names, profile=prof, per_query=True).per_query
    burges = evaluate_trec(qrels, run, metrics=["ndcg@3"], per_query=True, profile=replace(
        get_profile("ranx-burges"), relevance_threshold=float(level))).per_query
    pairs = dict(zip(ours_names, [names[0], names[2], names[3], names[4], names[5]], strict=True))
    for ours, theirs_name in pairs.items():
        np.testing.assert_allclose(pq[ours].to_numpy(), theirs[theirs_name], atol=1e-12,
                                   err_msg=ours)
    np.testing.assert_allclose(burges["ndcg@3"].to_numpy(), theirs[names[1]], atol=1e-12)


def test_run_depth_on_labelled_rows_equals_cutting_the_lists_first() -> None:
    """Array input: the top N of each query (stable ties: row order) and nothing else."""
    labels = [2, 0, 1, 1, 0, 0, 1, 1]
    scores = [0.5, 0.9, 0.5, 0.1, 0.3, 0.3, 0.3, 0.2]
    prof = replace(get_profile("lightgbm"), run_depth=2)
    got = evaluate(labels, scores, group=[4, 4], metrics=["ndcg", "map", "p@5"], profile=prof,
                   per_query=True).per_query
    # query 1 ranked: 0.9 (0), 0.5 row0 (2), 0.5 row2 (1), 0.1 (1) -> top 2: labels 0, 2
    # query 2 ranked: rows 4, 5, 6 tie at 0.3 (row order), 0.2 -> top 2: labels 0, 0
    want = evaluate([0, 2, 0, 0], [2.0, 1.0, 2.0, 1.0], group=[2, 2], metrics=["ndcg", "map",
                    "p@5"], profile="lightgbm", per_query=True).per_query
    for m in ("ndcg", "map", "p@5"):
        np.testing.assert_allclose(got[m].to_numpy(), want[m].to_numpy(), atol=0, err_msg=m)


def test_run_depth_under_averaged_ties_is_exact_when_no_tie_straddles_the_cut() -> None:
    prof = replace(get_profile("ltrbench"), run_depth=2)
    got = evaluate([1, 1, 0, 2], [0.5, 0.5, 0.1, 0.0], group=[4], metrics=["ndcg"], profile=prof)
    want = evaluate([1, 1], [0.5, 0.5], group=[2], metrics=["ndcg"])
    assert got.metrics["ndcg"] == want.metrics["ndcg"] == 1.0


def test_run_depth_on_arrays_keeps_a_cut_judged_row_in_r_as_trec_eval_m_does() -> None:
    """Found by round 7: under trec_eval with run_depth=1 (-M 1), two relevant documents scored
    0.9 and 0.5 gave map 1.0 as arrays (the cut row left R) and 0.5 as qrels and run. trec_eval
    keeps every judgment of the topic in R (form_res_rels.c counts rel_levels before the cut):
    AP = (1/1) / R = 1/2, recall@5 = 1/2, P@5 = 1/5, Rprec = 1/2 (hand arithmetic), on both
    paths."""
    prof = replace(get_profile("trec_eval"), run_depth=1)
    names = "map recall@5 P@5 Rprec"
    arrays = evaluate([1, 1], [0.9, 0.5], group=[2], metrics=names, profile=prof).metrics
    trec = evaluate_trec({"q": {"a": 1, "b": 1}}, {"q": {"a": 0.9, "b": 0.5}}, metrics=names,
                         profile=prof).metrics
    expected = {"map": 0.5, "recall@5": 0.5, "P@5": 0.2, "Rprec": 0.5}
    assert arrays == pytest.approx(expected, abs=1e-15)
    assert trec == pytest.approx(expected, abs=1e-15)
