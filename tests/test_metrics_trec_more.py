"""Issue 23's trec_eval measures on TREC qrels and runs (``evaluate_trec``) against pytrec_eval
(trec_eval 9.0.8) per query, ir_measures 0.4.3 (NumRet, NumRel, NumRet(rel=1), SetAP, IPrec,
infAP) and the slow oracle: num_ret, num_rel, num_rel_ret, set_map, gm_map, infAP, Rprec_mult,
iprec_at_recall, R-precision with the run cut at k (trec_eval ``-M k``), fall-out and the RBP
residual (unjudged documents). The random qrels/runs hold tied scores, unjudged retrieved
documents, negative judgments, judged documents that were not retrieved, qrels queries without
a run line and queries without a relevant judgment.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from metrics_oracles import trec_oracle
from test_metrics_trec_measures import _random_trec, _write

from bench.metrics import parse_metrics
from bench.metrics.trec import evaluate_trec

TOL = 1e-9
_COUNTS = {"num_ret": "num_ret", "num_rel": "num_rel", "num_rel_ret": "num_rel_ret",
           "set_map": "set_map", "gm_map": "gm_map", "infAP": "infAP"}
_REALS = [f"Rprec_mult_{x:.2f}" for x in (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)] + \
    [f"iprec_at_recall_{x:.2f}" for x in np.linspace(0.0, 1.0, 11)]


@pytest.mark.parametrize("backend", ["numba", "numpy", "python"])
def test_counts_set_map_gm_map_rprec_mult_iprec_equal_pytrec_eval_per_query(
        tmp_path: Path, backend: str) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    for seed in range(3):
        qrels, run = _random_trec(seed)
        theirs = pytrec_eval.RelevanceEvaluator(
            qrels, {*_COUNTS, "Rprec_mult", "iprec_at_recall"}).evaluate(run)
        names = [*_COUNTS.values(), "Rprec_mult", "iprec_at_recall"]
        ours = evaluate_trec(*_write(tmp_path, qrels, run), metrics=names, profile="trec_eval",
                             per_query=True, backend=backend)
        t = ours.per_query
        assert t is not None
        t = t.set_index("qid")
        assert sorted(t.index) == sorted(theirs)
        for trec_name in [*_COUNTS, *_REALS]:
            per_q = np.array([theirs[q][trec_name] for q in t.index])
            np.testing.assert_allclose(t[trec_name].to_numpy(), per_q, rtol=0, atol=TOL,
                                       err_msg=f"{seed} {trec_name}")
            mean = ours.metrics[trec_name]
            if trec_name.startswith("num_"):  # trec_eval's all line sums the counts
                assert mean == pytest.approx(per_q.sum(), abs=TOL)
            elif trec_name == "gm_map":  # exp of the mean of the logarithms (te_calc_avg_meas_s_gm)
                assert mean == pytest.approx(math.exp(per_q.mean()), abs=TOL)
            else:
                assert mean == pytest.approx(per_q.mean(), abs=TOL)


def test_ir_measures_names_equal_ir_measures_aggregates(tmp_path: Path) -> None:
    """On qrels whose queries all have a run line: ir_measures fills 0 for a qrels query
    without one (providers/base.py:18-27), also in NumRel, where trec_eval -c (the profile of
    an ir_measures name) counts the query's relevant judgments: see the next test."""
    ir_measures = pytest.importorskip("ir_measures")
    names = ["NumRet", "NumRel", "NumRet(rel=1)", "NumRelRet", "SetAP", "IPrec@0.1", "IPrec@0.5",
             "IPrec@1.0", "NumRet(rel=2)", "SetAP(rel=2)", "infAP", "infAP(rel=2)"]
    for seed in range(3):
        qrels, run = _random_trec(seed)
        qrels = {q: j for q, j in qrels.items() if q in run}
        theirs = ir_measures.calc_aggregate([ir_measures.parse_measure(n) for n in names],
                                            qrels, run)
        ours = evaluate_trec(*_write(tmp_path, qrels, run), metrics=names)
        for n in names:
            assert ours.metrics[n] == pytest.approx(theirs[ir_measures.parse_measure(n)],
                                                    abs=TOL), n


def test_num_rel_counts_the_judgments_of_a_qrels_query_without_a_run_line(tmp_path: Path) -> None:
    """trec_eval -c evaluates such a query against an empty ranking (num_rel = its relevant
    judgments, num_ret = 0); ir_measures 0.4.3 scores it 0 in every measure, NumRel too."""
    qp, rp = _write(tmp_path, {"1": {"a": 1, "b": 1}, "2": {"c": 1, "d": 0}}, {"1": {"a": 1.0}})
    r = evaluate_trec(qp, rp, metrics="num_rel num_ret num_rel_ret", profile="trec_eval-c")
    assert (r.metrics["num_rel"], r.metrics["num_ret"], r.metrics["num_rel_ret"]) == (3, 1, 1)
    ir_measures = pytest.importorskip("ir_measures")
    theirs = ir_measures.calc_aggregate([ir_measures.NumRel], {"1": {"a": 1, "b": 1},
                                        "2": {"c": 1, "d": 0}}, {"1": {"a": 1.0}})
    assert theirs[ir_measures.NumRel] == 2  # the difference this module's docstring names


def _cut(run: dict[str, dict[str, float]], k: int) -> dict[str, dict[str, float]]:
    """The run's top k per query in trec_eval's order (score as float32 descending, document id
    descending): what trec_eval -M k keeps."""
    out = {}
    for q, docs in run.items():
        ranked = sorted(docs, key=lambda d: (float(np.float32(docs[d])), d), reverse=True)
        out[q] = {d: docs[d] for d in ranked[:k]}
    return out


@pytest.mark.parametrize("k", [1, 2, 5])
def test_rprec_at_k_equals_pytrec_eval_rprec_on_the_run_cut_at_k(tmp_path: Path, k: int) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    for seed in range(3):
        qrels, run = _random_trec(seed)
        theirs = pytrec_eval.RelevanceEvaluator(qrels, {"Rprec"}).evaluate(_cut(run, k))
        ours = evaluate_trec(*_write(tmp_path, qrels, run), metrics=[f"rprec@{k}"],
                             profile="trec_eval", per_query=True).per_query
        assert ours is not None
        t = ours.set_index("qid")
        np.testing.assert_allclose(t[f"rprec@{k}"].to_numpy(),
                                   [theirs[q]["Rprec"] for q in t.index], rtol=0, atol=TOL)


def test_fallout_rbp_residual_and_ncrr_on_trec_input_equal_the_slow_oracle(tmp_path: Path) -> None:
    metrics = ("fallout@3 fallout rbp_residual(0.5)@4 rbp_residual rbp(0.7)@5 ncrr@3 f1@4 "
               "rprec@3 rprec_mult(0.5) iprec_at_recall(0.3) num_rel set_map")
    for profile in ("trec_eval", "trec_eval-c", "ranx"):
        for seed in range(2):
            qrels, run = _random_trec(seed, n_q=25)
            ours = evaluate_trec(*_write(tmp_path, qrels, run), metrics=metrics, profile=profile,
                                 per_query=True)
            _means, per_q = trec_oracle(qrels, run, metrics, profile)
            t = ours.per_query
            assert t is not None
            t = t.set_index("qid")
            for spec in parse_metrics(metrics):
                want = np.array([per_q[spec.name][q] for q in t.index])
                np.testing.assert_allclose(t[spec.name].to_numpy(), want, rtol=0, atol=TOL,
                                           err_msg=f"{profile} {seed} {spec.name}")


def test_infap_tells_a_pooled_unjudged_document_from_one_outside_the_pool(tmp_path: Path) -> None:
    """m_infAP.c: a negative judgment (in the pool, unjudged) counts in the estimate of the
    precision above a relevant document, a document without a judgment does not. Ranking
    a (0), b, c (1) of R = 2 (e relevant, not retrieved): at c, j = 2, a = 0, n = 1, u = 1 if b
    is pooled: 1/3 + (2/3) ((0 + 1 + u) / 2) (eps / (1 + 2 eps)), divided by R."""
    eps = 1e-5
    run = {"1": {"a": 5.0, "b": 4.0, "c": 3.0}}
    for u, judgments in ((1, {"a": 0, "b": -1, "c": 1, "e": 1}), (0, {"a": 0, "c": 1, "e": 1})):
        qp, rp = _write(tmp_path, {"1": judgments}, run)
        r = evaluate_trec(qp, rp, metrics="infAP", profile="trec_eval")
        want = (1 / 3 + (2 / 3) * ((1 + u) / 2) * (eps / (1 + 2 * eps))) / 2
        assert r.metrics["infAP"] == pytest.approx(want, abs=1e-15)


def test_the_rbp_residual_counts_unjudged_documents_by_hand(tmp_path: Path) -> None:
    """Moffat & Zobel 2008, section 5: an unjudged document at rank 2 of 3, p = 0.5: RBP 0.5
    (rank 1 relevant), residual 0.5 * 0.5 (rank 2 unjudged) + 0.5^3 (below rank 3)."""
    qp, rp = _write(tmp_path, {"1": {"a": 1, "c": 0}}, {"1": {"a": 3.0, "b": 2.0, "c": 1.0}})
    r = evaluate_trec(qp, rp, metrics="rbp(0.5) rbp_residual(0.5) fallout@2", profile="trec_eval")
    assert r.metrics["rbp(0.5)"] == pytest.approx(0.5)
    assert r.metrics["rbp_residual(0.5)"] == pytest.approx(0.25 + 0.125)
    assert r.metrics["fallout@2"] == 0.0  # the unjudged b is not a non-relevant document


def test_auc_of_a_trec_run_counts_unjudged_documents_as_non_relevant_unless_judged_only(
        tmp_path: Path) -> None:
    """sklearn roc_auc_score sees the label array of the ranked list, where an unjudged document
    is a 0; trec_eval's -J (``judged_only``) leaves it out, and then only the judged documents
    pair up. A relevant judged document that was not retrieved is in neither."""
    from dataclasses import replace

    from sklearn.metrics import roc_auc_score

    from bench.metrics import get_profile

    qrels = {"101": {"a": 0, "b": 3, "c": 0, "d": 2, "e": 2, "x": 1}}
    run = {"101": {"a": 0.4, "b": 0.6, "c": 0.8, "d": 0.0, "e": 0.2, "u": 0.5}}
    qp, rp = _write(tmp_path, qrels, run)
    docs = list(run["101"])
    labels = [qrels["101"].get(d, 0) > 0 for d in docs]
    scores = [run["101"][d] for d in docs]
    whole = evaluate_trec(qp, rp, metrics="auc", profile="trec_eval")
    assert whole.metrics["auc"] == pytest.approx(roc_auc_score(labels, scores), abs=1e-15)
    judged = [i for i, d in enumerate(docs) if d in qrels["101"]]
    only = evaluate_trec(qp, rp, metrics="auc",
                         profile=replace(get_profile("trec_eval"), judged_only=True))
    assert only.metrics["auc"] == pytest.approx(
        roc_auc_score([labels[i] for i in judged], [scores[i] for i in judged]), abs=1e-15)
    assert whole.metrics["auc"] == pytest.approx(2 / 9)
    assert only.metrics["auc"] == pytest.approx(1 / 6)
