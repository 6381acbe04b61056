"""The harvest's transcription checked against the tools themselves where they install here
(ranx, ir_measures, pytrec_eval): each ranx case's qrels and run through ``ranx.evaluate`` and each
ir_measures case through its pytrec_eval provider must give the number the peer's test expects,
so a case that agrees with ltrbench cannot hide a mistranscribed input. Skips where the tool is
missing.
"""

from __future__ import annotations

import math

import pytest
from peer_harvest import Case
from peer_harvest.all_cases import ALL_CASES

#: ltrbench name (family@k) -> ranx's, per profile; ranx's bpref and rbp are left out (ranx
#: 0.3's bpref breaks on a query without a relevant document: crosscheck --evaluators).
RANX_NAMES = {
    ("ranx", "dcg"): "dcg", ("ranx", "ndcg"): "ndcg", ("ranx-burges", "dcg"): "dcg_burges",
    ("ranx-burges", "ndcg"): "ndcg_burges", ("ranx", "p"): "precision", ("ranx", "map"): "map",
    ("ranx", "mrr"): "mrr", ("ranx", "rprec"): "r-precision", ("ranx", "recall"): "recall",
    ("ranx", "hit_rate"): "hit_rate", ("ranx", "f1"): "f1",
}


def _ranx_name(case: Case) -> str | None:
    family, _, k = case.metric.partition("@")
    name = RANX_NAMES.get((case.profile, family))
    if name is None:
        return None
    if case.scale != 1.0:  # ranx hits@k, a count: k * P@k
        return f"hits@{k}"
    return f"{name}@{k}" if k else name


RANX_CASES = [c for c in ALL_CASES if c.project == "ranx" and c.qrels and _ranx_name(c)]
IR_CASES = [c for c in ALL_CASES if c.project == "ir_measures" and c.qrels]


@pytest.mark.parametrize("case", RANX_CASES, ids=[c.name for c in RANX_CASES])
def test_ranx_itself_gives_the_number_its_test_expects(case: Case) -> None:
    ranx = pytest.importorskip("ranx")
    assert case.qrels is not None
    assert case.run is not None
    name = _ranx_name(case)
    qrels = {q: {d: int(r) for d, r in docs.items()} for q, docs in case.qrels.items()}
    out = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(dict(case.run)), name,
                        return_mean=case.per_query is None, make_comparable=True)
    if case.per_query is None:
        assert math.isclose(float(out), case.mean or 0.0, abs_tol=case.tol), name
    else:
        got = [float(v) for v in out]
        assert got == pytest.approx(list(case.per_query), abs=case.tol), name


@pytest.mark.parametrize("case", IR_CASES, ids=[c.name for c in IR_CASES])
def test_ir_measures_itself_gives_the_number_its_test_expects(case: Case) -> None:
    ir_measures = pytest.importorskip("ir_measures")
    assert case.qrels is not None
    assert case.run is not None
    measure = ir_measures.parse_measure(case.metric)
    qrels = {q: {d: int(r) for d, r in docs.items()} for q, docs in case.qrels.items()}
    provider = ir_measures.providers.PytrecEvalProvider()
    if case.per_query is None:
        got = provider.calc_aggregate([measure], qrels, dict(case.run))[measure]
        assert math.isclose(got, case.mean or 0.0, abs_tol=case.tol)
    else:
        rows = sorted(provider.iter_calc([measure], qrels, dict(case.run)),
                      key=lambda m: m.query_id)
        assert [m.value for m in rows] == pytest.approx(list(case.per_query), abs=case.tol)


PYTREC_CASES = [c for c in ALL_CASES if c.project == "pytrec_eval"]


@pytest.mark.parametrize("case", PYTREC_CASES, ids=[c.name for c in PYTREC_CASES])
def test_pytrec_eval_itself_gives_the_number_its_test_expects(case: Case) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    assert case.qrels is not None
    assert case.run is not None
    assert case.per_query is not None
    qrels = {q: {d: int(r) for d, r in docs.items()} for q, docs in case.qrels.items()}
    measure = case.metric.replace("ndcg_cut_", "ndcg_cut.")
    got = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(dict(case.run))
    assert [v[case.metric] for _, v in sorted(got.items())] == pytest.approx(
        list(case.per_query), abs=case.tol)
