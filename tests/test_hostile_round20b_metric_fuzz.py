"""Round 20b, persona F: a metrics researcher fuzzing the reference evaluator's newest families
(bench/metrics/families.py, more_families.py) against independent implementations: pytrec_eval
(trec_eval 9.0.8), ranx, scikit-learn; and, where no installed tool computes a family (RBP, its
residual, ERR, NCRR, fall-out, ARP, OPA), against hand arithmetic from the original papers.

Each test names its class in a comment: silently wrong number / traceback / unclear error.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bench.errors import ConfigError, DataError
from bench.metrics import evaluate, evaluate_trec, parse_metrics
from bench.metrics.families import metric_header

pytrec_eval = pytest.importorskip("pytrec_eval")

FAST = settings(max_examples=10, deadline=None, derandomize=True,
                suppress_health_check=list(HealthCheck))


def _trec(qrels: Any, run: Any, metrics: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate_trec(qrels, run, metrics=metrics, per_query=True)


def _pq(res: Any) -> pd.DataFrame:
    return res.per_query.set_index("qid")


@st.composite
def _collection(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    """1-3 queries of 1-6 documents: graded labels, judged zeros, negative judgments (trec_eval:
    judged non-relevant), unjudged documents (run only), judged documents the run misses, tied
    scores (few distinct values)."""
    qrels: dict[str, Any] = {}
    run: dict[str, Any] = {}
    for qi in range(draw(st.integers(1, 3))):
        n = draw(st.integers(1, 6))
        docs = [f"d{j}" for j in range(n)]
        labels = draw(st.lists(st.sampled_from([0, 0, 1, 2, 3, -1, None]), min_size=n, max_size=n))
        judged = {d: lab for d, lab in zip(docs, labels, strict=True) if lab is not None}
        if not judged or max(judged.values()) < 0:
            # a query judged only negatively is undefined behaviour in pytrec_eval's trec_eval
            # (form_res_rels' level array): it printed num_ret 0 for two retrieved documents,
            # gm_map 0 or log(1e-5) by call, and crashed the interpreter; no oracle there
            judged[docs[0]] = 0
        qrels[f"q{qi}"] = judged
        scores = draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 0.25, 3.0, None]), min_size=n,
                               max_size=n))
        ranked = {d: s for d, s in zip(docs, scores, strict=True) if s is not None}
        run[f"q{qi}"] = ranked or {docs[-1]: 1.0}
    return qrels, run


# trec_eval's names whose per-query value pytrec_eval reports under the same key; P_200 and
# ndcg_cut_200 are cutoffs far beyond every list (k > n).
_TREC_NAMES = ("set_map gm_map Rprec_mult_0.20 Rprec_mult_2.00 iprec_at_recall_0.00 "
               "iprec_at_recall_0.50 iprec_at_recall_1.00 num_ret num_rel num_rel_ret infAP "
               "set_F set_P set_recall bpref Rprec P_200 ndcg_cut_200 success_5 recip_rank")
_PTE = {"set_map", "gm_map", "Rprec_mult", "iprec_at_recall", "num_ret", "num_rel",
        "num_rel_ret", "infAP", "set_F", "set_P", "set_recall", "bpref", "Rprec", "P",
        "ndcg_cut", "success", "recip_rank"}


# silently wrong number: every trec_eval family of issue 23 per query against trec_eval itself
@FAST
@given(_collection())
def test_trec_eval_families_equal_pytrec_eval_per_query_on_random_runs(col: tuple[Any, Any]) -> None:
    qrels, run = col
    names = _TREC_NAMES.split()
    ref = pytrec_eval.RelevanceEvaluator(qrels, _PTE).evaluate(run)
    got = _pq(_trec(qrels, run, " ".join(names)))
    for name in names:
        for q, vals in ref.items():
            assert got.loc[q, name] == pytest.approx(vals[name], abs=1e-12), (name, q, qrels, run)


# silently wrong number: the means, trec_eval's aggregation (sum for counts, geometric for gm_map)
def test_gm_map_mean_is_exp_of_mean_log_and_counts_are_summed() -> None:
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1, "d": 1}, "q3": {"e": 0}}
    run = {"q1": {"a": 0.2, "b": 0.9}, "q2": {"c": 0.5, "x": 0.7}, "q3": {"e": 1.0}}
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"gm_map", "num_ret", "num_rel_ret"}).evaluate(run)
    res = _trec(qrels, run, "gm_map num_ret num_rel_ret")
    logs = [ref[q]["gm_map"] for q in ref]
    assert res.metrics["gm_map"] == pytest.approx(math.exp(sum(logs) / 3), abs=1e-12)
    assert res.metrics["num_ret"] == 5.0
    assert res.metrics["num_rel_ret"] == 2.0


# silently wrong number: a judged query without a relevant document is log(1e-5), as trec_eval
def test_gm_map_of_a_query_without_relevant_documents_is_trec_evals_floor() -> None:
    qrels = {"q": {"a": 0}}
    run = {"q": {"a": 2.0, "b": 0.3}}
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"gm_map"}).evaluate(run)
    assert _pq(_trec(qrels, run, "gm_map")).loc["q", "gm_map"] == pytest.approx(
        ref["q"]["gm_map"], abs=1e-12) == math.log(1e-5)


# silently wrong number: Rprec_mult with x R + 0.9 crossing an integer (floor, m_Rprec_mult.c)
def test_rprec_mult_at_a_fractional_multiple_floors_like_trec_eval() -> None:
    qrels = {"q": {"a": 1, "b": 1, "c": 1, "d": 0, "e": 1, "f": 1}}
    run = {"q": {"a": 6.0, "d": 5.0, "b": 4.0, "x": 3.0, "c": 2.0, "e": 1.0}}
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"Rprec_mult"}).evaluate(run)["q"]
    got = _pq(_trec(qrels, run, "Rprec_mult_0.20 Rprec_mult_0.60 Rprec_mult_2.00"))
    for name in ("Rprec_mult_0.20", "Rprec_mult_0.60", "Rprec_mult_2.00"):
        assert got.loc["q", name] == pytest.approx(ref[name], abs=1e-12)
    # R = 5, x = 0.6: c = floor(3.9) = 3, top 3 hold a, b: 2/3 (hand)
    assert got.loc["q", "Rprec_mult_0.60"] == pytest.approx(2 / 3, abs=1e-12)


# silently wrong number: RBP, Moffat & Zobel TOIS 2008 eq. 6: (1 - p) sum rel_i p^(i-1)
def test_rbp_is_moffat_zobel_eq_6_by_hand() -> None:
    qrels = {"q": {"a": 1, "b": 0, "c": 2}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    got = _pq(_trec(qrels, run, "rbp(0.5)@3 rbp(0.5)@2 rbp(0.9)"))
    assert got.loc["q", "rbp(0.5)@3"] == pytest.approx(0.5 * (1 + 0.25), abs=1e-15)
    assert got.loc["q", "rbp(0.5)@2"] == pytest.approx(0.5, abs=1e-15)
    assert got.loc["q", "rbp(0.9)"] == pytest.approx(0.1 * (1 + 0.81), abs=1e-15)


# silently wrong number: the default persistence is 0.8 (ir_measures RBP p=0.8)
def test_rbp_without_a_persistence_uses_p_0_8() -> None:
    qrels = {"q": {"a": 0, "b": 1}}
    run = {"q": {"a": 3.0, "b": 2.0}}
    got = _pq(_trec(qrels, run, "rbp@5"))
    assert got.loc["q", "rbp@5"] == pytest.approx(0.2 * 0.8, abs=1e-15)


# silently wrong number: RBP's residual, Moffat & Zobel section 5: unjudged ranks + p^k'
def test_rbp_residual_counts_unjudged_ranks_and_the_tail_below_k() -> None:
    qrels = {"q": {"a": 1, "c": 0}}
    run = {"q": {"a": 4.0, "x": 3.0, "c": 2.0, "y": 1.0}}  # x, y unjudged
    got = _pq(_trec(qrels, run, "rbp_residual(0.5)@3 rbp_residual(0.5)@10"))
    assert got.loc["q", "rbp_residual(0.5)@3"] == pytest.approx(0.5 * 0.5 + 0.125, abs=1e-15)
    # @10 beyond n = 4: unjudged ranks 2 and 4 (p^1, p^3) then p^4
    assert got.loc["q", "rbp_residual(0.5)@10"] == pytest.approx(
        0.5 * (0.5 + 0.125) + 0.0625, abs=1e-15)


# unclear error: a persistence outside (0, 1) is refused, naming the bound
@pytest.mark.parametrize("name", ["rbp(1)@3", "rbp(0)@3", "rbp(-0.5)", "rbp(1.5)@2"])
def test_rbp_persistence_outside_the_open_interval_is_a_config_error(name: str) -> None:
    with pytest.raises(ConfigError, match=r"rbp"):
        _trec({"q": {"a": 1}}, {"q": {"a": 1.0}}, name)


# silently wrong number: ERR (Chapelle et al., CIKM 2009) with trec_eval/gdeval's max grade 4
def test_err_is_chapelle_cascade_with_gain_over_2_to_the_4() -> None:
    qrels = {"q": {"a": 1, "b": 0, "c": 2}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    r1, r3 = 1 / 16, 3 / 16
    want = r1 / 1 + (1 - r1) * r3 / 3
    got = _pq(_trec(qrels, run, "err@3 ERR@3"))
    assert got.loc["q", "err@3"] == pytest.approx(want, abs=1e-15)
    assert got.loc["q", "ERR@3"] == pytest.approx(want, abs=1e-15)


# silently wrong number: ERR of a one-document query whose document has the top grade
def test_err_of_a_single_document_of_grade_4_is_15_over_16() -> None:
    got = _pq(_trec({"q": {"a": 4}}, {"q": {"a": 1.0}}, "err@10"))
    assert got.loc["q", "err@10"] == pytest.approx(15 / 16, abs=1e-15)


# silently wrong number: NCRR (cornac metrics/ranking.py NCRR): CRR / H(min(R, k'))
def test_ncrr_by_hand_with_more_relevant_documents_than_the_cutoff() -> None:
    qrels = {"q": {"a": 1, "b": 0, "c": 1, "d": 1, "e": 1}}
    run = {"q": {"b": 5.0, "a": 4.0, "c": 3.0, "d": 2.0, "e": 1.0}}
    got = _pq(_trec(qrels, run, "ncrr@2 ncrr@10"))
    assert got.loc["q", "ncrr@2"] == pytest.approx((1 / 2) / (1 + 1 / 2), abs=1e-15)
    crr = 1 / 2 + 1 / 3 + 1 / 4 + 1 / 5
    assert got.loc["q", "ncrr@10"] == pytest.approx(crr / (1 + 1 / 2 + 1 / 3 + 1 / 4), abs=1e-15)


# silently wrong number: fall-out: judged non-relevant retrieved in the top k / all judged
# non-relevant (unjudged documents are not non-relevant)
def test_fallout_counts_only_judged_non_relevant_documents() -> None:
    qrels = {"q": {"a": 1, "b": 0, "c": 0, "d": 0}}
    run = {"q": {"x": 5.0, "b": 4.0, "a": 3.0, "c": 2.0}}
    got = _pq(_trec(qrels, run, "fallout@2 fallout@4 fall_out@10"))
    assert got.loc["q", "fallout@2"] == pytest.approx(1 / 3, abs=1e-15)
    assert got.loc["q", "fallout@4"] == pytest.approx(2 / 3, abs=1e-15)
    assert got.loc["q", "fall_out@10"] == pytest.approx(2 / 3, abs=1e-15)


# silently wrong number: F1@k = 2 P R / (P + R) with P = hits / k (ranx metrics f1: its precision
# divides by k even past the list's end); by hand, not by ranx (its numba start costs seconds)
def test_f1_on_a_query_with_fewer_documents_than_k_divides_precision_by_k() -> None:
    qrels = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"d": 1, "e": 1}}
    run = {"q1": {"a": 0.3, "b": 0.9, "c": 0.1, "x": 0.5}, "q2": {"d": 0.8}}
    got = _pq(_trec(qrels, run, "ranx:f1@3"))
    p1, r1 = 1 / 3, 1 / 2  # q1: top 3 b, x, a
    p2, r2 = 1 / 3, 1 / 2  # q2: d alone, k = 3
    assert got.loc["q1", "ranx:f1@3"] == pytest.approx(2 * p1 * r1 / (p1 + r1), abs=1e-12)
    assert got.loc["q2", "ranx:f1@3"] == pytest.approx(2 * p2 * r2 / (p2 + r2), abs=1e-12)


# silently wrong number: AUC of a query equals sklearn roc_auc_score, ties counting 1/2
@FAST
@given(st.lists(st.tuples(st.integers(0, 2), st.sampled_from([0.1, 0.2, 0.3, 0.9])),
                min_size=2, max_size=8))
def test_auc_equals_sklearn_roc_auc_with_tied_scores(rows: list[Any]) -> None:
    from sklearn.metrics import roc_auc_score
    labels = np.array([r[0] for r in rows], dtype=float)
    scores = np.array([r[1] for r in rows])
    binary = (labels >= 1).astype(int)
    res = evaluate(labels, scores, group=[len(rows)], metrics="auc", per_query=True,
                   profile="trec_eval")
    assume(binary.min() != binary.max())  # one class: blank, the case after next
    assert _pq(res)["auc"].iloc[0] == pytest.approx(roc_auc_score(binary, scores), abs=1e-12)


# silently wrong number: GAUC weighs by documents and leaves out one-class queries
def test_gauc_weighs_queries_by_documents_and_skips_one_class_queries() -> None:
    from sklearn.metrics import roc_auc_score
    labels = [1, 0, 0, 1, 1, 0, 0, 1, 0]
    scores = [0.9, 0.1, 0.5, 0.2, 0.3, 0.4, 0.7, 0.2, 0.6]
    res = evaluate(labels, scores, group=[5, 2, 2], metrics="gauc")
    a1 = roc_auc_score([1, 0, 0, 1, 1], [0.9, 0.1, 0.5, 0.2, 0.3])
    a3 = roc_auc_score([1, 0], [0.2, 0.6])
    assert res.metrics["gauc"] == pytest.approx((5 * a1 + 2 * a3) / 7, abs=1e-12)


# silently wrong number: AUC of a one-class query is blank (0/0, the profile's empty value),
# never a number counted as measured
def test_auc_of_a_query_of_one_class_is_blank_and_counted_blank() -> None:
    res = evaluate([1, 1, 0, 1], [0.3, 0.2, 0.5, 0.9], group=[2, 2], metrics="auc",
                   profile="ltrbench", per_query=True)
    assert _pq(res)["auc"].iloc[1] == pytest.approx(1.0, abs=1e-12)
    assert res.diagnostics.blank_by_metric["auc"] == 1


# silently wrong number: sklearn ndcg_score with tied scores (tie-averaged DCG)
@FAST
@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from([0.1, 0.2, 0.5, 0.9])),
                min_size=2, max_size=7), st.integers(1, 9))
def test_sklearn_profile_ndcg_equals_ndcg_score_with_ties(rows: list[Any], k: int) -> None:
    from sklearn.metrics import ndcg_score
    labels = np.array([r[0] for r in rows], dtype=float)
    scores = np.array([r[1] for r in rows])
    assume(labels.sum() > 0)  # no relevant document: sklearn's own 0/0
    res = evaluate(labels, scores, group=[len(rows)], metrics=f"ndcg@{k}", profile="sklearn")
    want = ndcg_score(labels[None, :], scores[None, :], k=k)
    assert res.metrics[f"ndcg@{k}"] == pytest.approx(want, abs=1e-12)


# silently wrong number: sklearn average_precision_score with ties (ap_ties="threshold")
@FAST
@given(st.lists(st.tuples(st.integers(0, 1), st.sampled_from([0.1, 0.2, 0.5, 0.9])),
                min_size=2, max_size=8))
def test_sklearn_profile_map_equals_average_precision_score_with_ties(rows: list[Any]) -> None:
    from sklearn.metrics import average_precision_score
    labels = np.array([r[0] for r in rows], dtype=float)
    scores = np.array([r[1] for r in rows])
    assume(labels.sum() > 0)  # no relevant document: sklearn's own 0/0
    res = evaluate(labels, scores, group=[len(rows)], metrics="map", profile="sklearn")
    assert res.metrics["map"] == pytest.approx(average_precision_score(labels, scores), abs=1e-12)


# silently wrong number: ARP (pytorchltr arp.py): sum rank * label / sum label
def test_arp_by_hand_with_graded_labels() -> None:
    res = evaluate([0, 2, 1], [0.9, 0.5, 0.1], group=[3], metrics="arp")
    assert res.metrics["arp"] == pytest.approx((2 * 2 + 3 * 1) / 3, abs=1e-15)


# silently wrong number: OPA (TF-Ranking OPAMetric): pairs of different labels ranked right
def test_opa_by_hand_with_graded_labels() -> None:
    res = evaluate([0, 2, 1, 0], [0.9, 0.5, 0.1, 0.05], group=[4], metrics="opa")
    # pairs with y_i > y_j: (2,0a) wrong, (2,1) right, (2,0d) right, (1,0a) wrong, (1,0d) right
    assert res.metrics["opa"] == pytest.approx(3 / 5, abs=1e-15)


# silently wrong number: iprec_at_recall(x) in ltrbench's spelling = trec_eval's
def test_iprec_at_recall_in_ltrbench_spelling_equals_trec_eval_name() -> None:
    qrels = {"q": {"a": 1, "b": 0, "c": 1, "d": 1}}
    run = {"q": {"b": 4.0, "a": 3.0, "x": 2.0, "c": 1.0}}
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall"}).evaluate(run)["q"]
    got = _pq(_trec(qrels, run, "iprec_at_recall(0.3) iprec(0.7)"))
    assert got.loc["q", "iprec_at_recall(0.3)"] == pytest.approx(
        ref["iprec_at_recall_0.30"], abs=1e-12)
    assert got.loc["q", "iprec(0.7)"] == pytest.approx(ref["iprec_at_recall_0.70"], abs=1e-12)


# unclear error: a recall level beyond 1 or a non-positive multiple is refused
@pytest.mark.parametrize("name", ["iprec_at_recall(1.5)", "iprec_at_recall(-0.1)",
                                  "rprec_mult(0)", "rprec_mult(-1)"])
def test_parameters_outside_their_range_are_config_errors(name: str) -> None:
    with pytest.raises(ConfigError, match=name.partition("(")[0]):
        parse_metrics(name)


# unclear error: a family that takes no cutoff given one
@pytest.mark.parametrize("name", ["gm_map@5", "auc@3", "set_map@2", "infap@10", "num_ret@5"])
def test_a_cutoff_on_a_whole_list_family_is_refused(name: str) -> None:
    with pytest.raises(ConfigError):
        parse_metrics(name)


_ROUND_TRIP = ("dcg@3 ndcg@3 map@3 mrr@3 p@3 recall@3 err@3 hits@3 rprec@3 rprec bpref set_p "
               "set_recall set_f num_q num_ret num_rel num_rel_ret set_map gm_map f1@3 fallout@3 "
               "rprec_mult(2) rprec_mult(0.2) iprec_at_recall(0.1) rbp(0.95)@10 rbp@10 rbp "
               "rbp_residual(0.5)@3 ncrr@3 infap auc gauc alpha_ndcg(0.5)@5 alpha_dcg@5 "
               "nerr_ia@5 precision_ia@5 arp opa rmse mae")


# silently wrong number: every printed header parses back to the same family, k and parameter
@pytest.mark.parametrize("spec", parse_metrics(_ROUND_TRIP), ids=lambda s: s.name)
def test_printed_header_parses_back_to_the_same_metric(spec: object) -> None:
    back = parse_metrics(metric_header(spec.name))  # type: ignore[attr-defined]
    assert len(back) == 1
    got = (back[0].family, back[0].k, back[0].param)
    assert got == (spec.family, spec.k, spec.param)  # type: ignore[attr-defined]


# silently wrong number: a duplicated document in a run frame is refused, not counted twice
def test_a_run_frame_with_a_duplicate_document_is_refused() -> None:
    qrels = pd.DataFrame({"qid": ["q", "q"], "docno": ["a", "b"], "rel": [1, 0]})
    run = pd.DataFrame({"qid": ["q", "q", "q"], "docno": ["a", "a", "b"],
                        "score": [3.0, 2.0, 1.0]})
    with pytest.raises(DataError, match="a"):
        _trec(qrels, run, "num_ret num_rel_ret set_map")


# silently wrong number: a cutoff far beyond every list for RBP and NCRR equals the whole list
def test_rbp_and_ncrr_at_a_cutoff_beyond_the_list_equal_the_whole_list() -> None:
    qrels = {"q": {"a": 1, "b": 0, "c": 1}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    got = _pq(_trec(qrels, run, "rbp(0.6)@1000 rbp(0.6) ncrr@1000 ncrr"))
    assert got.loc["q", "rbp(0.6)@1000"] == got.loc["q", "rbp(0.6)"]
    assert got.loc["q", "ncrr@1000"] == got.loc["q", "ncrr"]
    assert got.loc["q", "rbp(0.6)"] == pytest.approx(0.4 * (1 + 0.36), abs=1e-15)


def _subtopic_files(tmp_path: object) -> tuple[str, str]:
    """q: subtopic 1 covered by a and b, subtopic 2 by b and c, subtopic 3 with no relevant
    document (d judged 0); the run ranks a, c, b."""
    qrels = tmp_path / "sub.qrels"  # type: ignore[operator]
    run = tmp_path / "sub.run"  # type: ignore[operator]
    qrels.write_text("q 1 a 1\nq 1 b 1\nq 2 b 1\nq 2 c 1\nq 3 d 0\n")
    run.write_text("q Q0 a 1 3 t\nq Q0 c 2 2 t\nq Q0 b 3 1 t\n")
    return str(qrels), str(run)


# silently wrong number: alpha-nDCG / alpha-DCG / nERR-IA (Clarke et al., SIGIR 2008; ndeval's
# greedy ideal b, a, c) and P-IA by hand, at alpha 0.5, 0 (no decay) and 1 (first cover only)
def test_diversity_families_by_hand_from_clarke_2008(tmp_path: object) -> None:
    qrels, run = _subtopic_files(tmp_path)
    names = ("alpha_dcg@3 alpha_ndcg@3 nerr_ia@3 precision_ia@3 precision_ia@5 "
             "alpha_ndcg(0)@3 alpha_ndcg(1)@3")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = evaluate_trec(qrels, run, metrics=names).metrics
    l3 = math.log2(3)
    run_dcg = 1 + 1 / l3 + (0.5 + 0.5) / 2
    ideal = 2 + 0.5 / l3 + 0.5 / 2
    assert got["alpha_dcg@3"] == pytest.approx(run_dcg, abs=1e-12)
    assert got["alpha_ndcg@3"] == pytest.approx(run_dcg / ideal, abs=1e-12)
    assert got["nerr_ia@3"] == pytest.approx((1 + 1 / 2 + 1 / 3) / (2 + 0.5 / 2 + 0.5 / 3),
                                             abs=1e-12)
    assert got["precision_ia@3"] == pytest.approx(4 / (3 * 2), abs=1e-12)
    assert got["precision_ia@5"] == pytest.approx(4 / (5 * 2), abs=1e-12)  # trec_eval: D = k
    assert got["alpha_ndcg(0)@3"] == pytest.approx((1 + 1 / l3 + 2 / 2) / (2 + 1 / l3 + 1 / 2),
                                                   abs=1e-12)
    assert got["alpha_ndcg(1)@3"] == pytest.approx((1 + 1 / l3) / 2, abs=1e-12)


# silently wrong number: ir_measures' spellings give the same numbers as ltrbench's
def test_diversity_ir_measures_spellings_equal_ltrbench_spellings(tmp_path: object) -> None:
    qrels, run = _subtopic_files(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = evaluate_trec(qrels, run, metrics="alpha_nDCG@3 nERR_IA@3 P_IA@3 alpha_ndcg@3 "
                                                "nerr_ia@3 precision_ia@3").metrics
    assert got["alpha_nDCG@3"] == pytest.approx(got["alpha_ndcg@3"], abs=1e-12)
    assert got["nERR_IA@3"] == pytest.approx(got["nerr_ia@3"], abs=1e-12)
    assert got["P_IA@3"] == pytest.approx(got["precision_ia@3"], abs=1e-12)


# unclear error: a diversity metric on plain qrels says what file it needs
def test_a_diversity_metric_on_plain_qrels_names_the_subtopic_format() -> None:
    with pytest.raises(ConfigError, match="subtopic"):
        _trec({"q": {"a": 1}}, {"q": {"a": 1.0}}, "alpha_ndcg@5")


# silently wrong number: every name `ltrbench metrics list` prints for
# issue 23's families evaluates to a bench error or
# a finite number, never a traceback (on a two-query collection)
def test_every_listed_metric_name_evaluates_or_refuses_cleanly() -> None:
    import json

    from bench.metrics.names_listing import listing_json
    qrels = {"q1": {"a": 2, "b": 0, "c": 1, "z": 1}, "q2": {"a": 0, "b": 1}}
    run = {"q1": {"a": 1.0, "b": 2.0, "c": 2.5, "x": 0.5}, "q2": {"a": 1.0, "b": 0.5}}
    from bench.metrics.more_families import more_families
    newest = set(more_families())  # issue 23's families, in every grammar the list prints
    for row in json.loads(listing_json())["names"]:
        if row["family"] not in newest:
            continue
        try:
            res = _trec(qrels, run, row["name"])
        except (ConfigError, DataError):
            continue
        assert all(math.isfinite(v) for v in res.metrics.values()), row


# silently wrong number: gm_map's blank query follows the profile: left out under empty=None
# (ltrbench), log 1 where a blank scores 1 (lightgbm), log(1e-5) where it scores 0 (trec_eval);
# q0's AP under ties="average" is the mean over its two tied orders
def test_gm_map_blank_query_follows_each_profiles_empty_value() -> None:
    labels, scores, group = [1, 0, 2, 0, 0, 1, 1], [0.5, 0.5, 0.1, 0.3, 0.2, 0.9, 0.9], [3, 2, 2]
    got = {p: evaluate(labels, scores, group=group, metrics="gm_map", profile=p).metrics["gm_map"]
           for p in ("ltrbench", "lightgbm", "trec_eval")}
    ap_q0 = ((1 + 2 / 3) / 2 + (1 / 2 + 2 / 3) / 2) / 2  # tied orders (0, 1) and (1, 0)
    assert got["ltrbench"] == pytest.approx(math.sqrt(ap_q0 * 1.0), abs=1e-12)
    assert got["lightgbm"] == pytest.approx((5 / 6) ** (1 / 3), abs=1e-12)  # rank 1 tied: lightgbm
    # trec_eval: docno descending puts row 1 (non-relevant) first: AP (1/2 + 2/3) / 2
    assert got["trec_eval"] == pytest.approx(((7 / 12) * 1e-5 * 1.0) ** (1 / 3), abs=1e-12)


# silently wrong number: RBP and NCRR of tied scores under ties="average" are the mean over orders
def test_rbp_and_ncrr_with_tied_scores_average_over_the_tied_orders() -> None:
    res = evaluate([1, 0, 2], [0.5, 0.5, 0.1], group=[3], metrics="rbp(0.5)@2 ncrr@2",
                   profile="ltrbench")
    assert res.metrics["rbp(0.5)@2"] == pytest.approx((0.5 + 0.25) / 2, abs=1e-15)
    assert res.metrics["ncrr@2"] == pytest.approx(((1 + 1 / 2) / 2) / (1 + 1 / 2), abs=1e-15)
