"""ir_measures (terrierteam/ir_measures) test/test_pytrec_eval.py: each measure through the
pytrec_eval provider, per query (``iter_calc``) and aggregated (``calc_aggregate``: a sum for the
counts, a mean otherwise), on small TREC qrels and runs. ir_measures names are evaluated as
written under ``trec_eval-c`` (ir_measures scores a qrels query without a run line 0).
"""

from __future__ import annotations

from peer_harvest import Case

REPO = "terrierteam/ir_measures"
PATH = "test/test_pytrec_eval.py"


def _parse(qrels: str, run: str) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]]:
    q: dict[str, dict[str, float]] = {}
    for line in qrels.strip().splitlines():
        qid, _, doc, rel = line.split()
        q.setdefault(qid, {})[doc] = float(rel)
    r: dict[str, dict[str, float]] = {}
    for line in run.strip().splitlines():
        qid, _, doc, _rank, score, _tag = line.split()
        r.setdefault(qid, {})[doc] = float(score)
    return q, r


RUN_A = """
0 0 D0 1 0.8 run
0 0 D2 2 0.7 run
0 0 D1 3 0.3 run
0 0 D3 4 0.4 run
0 0 D4 5 0.1 run
1 0 D1 1 0.8 run
1 0 D3 2 0.7 run
1 0 D4 3 0.3 run
1 0 D2 4 0.4 run
"""
RUN_B = RUN_A.replace("1 0 D3 2 0.7 run\n1 0 D4 3 0.3 run", "1 0 D4 2 0.7 run\n1 0 D3 3 0.3 run")
QRELS_NUMRET = "0 0 D0 0\n0 0 D1 1\n0 0 D2 1\n0 0 D3 2\n0 0 D4 0\n1 0 D0 1\n1 0 D3 2\n1 0 D5 2"
QRELS_NUMREL = QRELS_NUMRET.replace("1 0 D5 2", "1 0 D5 0")
QRELS_SET = "0 0 D0 0\n0 0 D1 1\n0 0 D2 2\n0 0 D3 2\n0 0 D4 0\n1 0 D0 1\n1 0 D3 2\n1 0 D5 0"
QRELS_IPREC = QRELS_SET.replace("0 0 D0 0", "0 0 D0 1")
QRELS_INFAP = ("0 0 D0 1\n0 0 D1 -1\n0 0 D2 0\n0 0 D3 2\n0 0 D4 0\n"
               "1 0 D0 1\n1 0 D3 2\n1 0 D4 -1\n1 0 D5 0")

#: (test, qrels, run, measure, per-query values, aggregate, tolerance)
TABLE: list[tuple[str, str, str, str, tuple[float, float], float, float]] = [
    ("test_NumRet", QRELS_NUMRET, RUN_A, "NumRet", (5, 4), 9, 0.0),
    ("test_NumRet", QRELS_NUMRET, RUN_A, "NumRet(rel=1)", (3, 1), 4, 0.0),
    ("test_NumRet", QRELS_NUMRET, RUN_A, "NumRet(rel=2)", (1, 1), 2, 0.0),
    ("test_NumRet", QRELS_NUMRET, RUN_A, "NumRet(rel=3)", (0, 0), 0, 0.0),
    ("test_NumRel", QRELS_NUMREL, RUN_A, "NumRel", (3, 2), 5, 0.0),
    ("test_Success", QRELS_SET, RUN_B, "Success@2", (1, 0), 0.5, 0.0),
    ("test_Success", QRELS_SET, RUN_B, "Success(rel=2)@2", (1, 0), 0.5, 0.0),
    ("test_Success", QRELS_SET, RUN_B, "Success(rel=3)@2", (0, 0), 0, 0.0),
    ("test_SetP", QRELS_SET, RUN_B, "SetP(rel=1)", (0.6, 0.25), 0.425, 1e-12),
    ("test_SetP", QRELS_SET, RUN_B, "SetP(rel=2)", (0.4, 0.25), 0.325, 1e-12),
    ("test_SetP", QRELS_SET, RUN_B, "SetP(rel=3)", (0, 0), 0, 0.0),
    ("test_SetR", QRELS_SET, RUN_B, "SetR(rel=1)", (1.0, 0.5), 0.75, 1e-12),
    ("test_SetR", QRELS_SET, RUN_B, "SetR(rel=2)", (1.0, 1.0), 1.0, 1e-12),
    ("test_SetR", QRELS_SET, RUN_B, "SetR(rel=3)", (0, 0), 0, 0.0),
    ("test_IPrec", QRELS_IPREC, RUN_B, "IPrec@0.25", (1.0, 0.25), 0.625, 1e-12),
    ("test_IPrec", QRELS_IPREC, RUN_B, "IPrec@0.5", (1.0, 0.25), 0.625, 1e-12),
    ("test_IPrec", QRELS_IPREC, RUN_B, "IPrec@0.75", (1.0, 0.0), 0.5, 1e-12),
    ("test_IPrec", QRELS_IPREC, RUN_B, "IPrec(rel=2)@0.1", (0.6666666, 0.25), 0.4583, 5e-5),
    ("test_IPrec", QRELS_IPREC, RUN_B, "IPrec(rel=2)@0.25", (0.6666666, 0.25), 0.4583, 5e-5),
    ("test_IPrec", QRELS_IPREC, RUN_B, "IPrec(rel=2)@0.5", (0.6666666, 0.25), 0.4583, 5e-5),
    ("test_IPrec", QRELS_IPREC, RUN_B, "IPrec(rel=2)@0.75", (0.6666666, 0.25), 0.4583, 5e-5),
    ("test_infAP", QRELS_INFAP, RUN_B, "AP", (0.8333, 0.125), 0.47916666666666663, 5e-5),
    ("test_infAP", QRELS_INFAP, RUN_B, "infAP", (0.8333, 0.1875), 0.510416, 5e-5),
    ("test_infAP", QRELS_INFAP, RUN_B, "AP(rel=2)", (0.33333, 0.25), 0.2917, 5e-5),
    ("test_infAP", QRELS_INFAP, RUN_B, "infAP(rel=2)", (0.33333, 0.375), 0.3542, 5e-5),
]


def _cases() -> list[Case]:
    out = []
    for test, qrels_text, run_text, measure, per_query, aggregate, tol in TABLE:
        qrels, run = _parse(qrels_text, run_text)
        common = {"qrels": qrels, "run": run, "tol": tol}
        out.append(Case("ir_measures", REPO, PATH, f"TestPytrecEval.{test}[iter_calc]", measure,
                        "trec_eval-c", per_query=tuple(float(v) for v in per_query),
                        **common))  # type: ignore[arg-type]
        out.append(Case("ir_measures", REPO, PATH, f"TestPytrecEval.{test}[calc_aggregate]",
                        measure, "trec_eval-c", mean=float(aggregate),
                        **common))  # type: ignore[arg-type]
    return out


CASES: list[Case] = [
    *_cases(),
    *(Case("ir_measures", REPO, PATH, f"TestPytrecEval.test_NumQ[{how}]", "NumQ", "trec_eval-c",
           qrels=_parse(QRELS_NUMRET, RUN_A)[0], run=_parse(QRELS_NUMRET, RUN_A)[1], tol=0.0,
           **value)
      for how, value in (("iter_calc", {"per_query": (1.0, 1.0)}),
                         ("calc_aggregate", {"mean": 2.0}))),
]
