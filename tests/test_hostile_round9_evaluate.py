"""Round 9 of the hostile catalogue: ``ltrbench evaluate`` and ``evaluate_trec`` on edge values
(issue 19, "silently wrong numbers"), new instances beyond round 8, each against pytrec_eval,
ir_measures or pyndeval (ndeval). All of these were right before this round; they are kept as
guards of the classes an attacker who read the round-8 tests would try next:

* score ties that sort differently as text and as numbers (docnos ``10`` and ``9``), ``1e5``
  beside ``100000``, ``-0.0`` beside ``0.0`` (trec_eval: equal scores, document id descending);
* a query whose every judgment is negative or 0, cutoffs past every list, every family at
  ``k = 1``;
* ERR when every grade is equal or 0 (gdeval's fixed maximum grade 4), alpha-nDCG at alpha 0
  and 1 and on a query without a covered subtopic, a gain table with a negative gain (refused);
* ``--relevance-level 1.5`` (relevant: label >= 1.5, ir_measures' ``rel=2``), NaN and inf
  scores and a document retrieved twice (refused naming the line);
* every profile's JSON and CSV: no NaN / Infinity token, the metrics in the order asked.

:data:`CLASSES` maps each test to its class for the closing counts.
"""

from __future__ import annotations

import csv
import io
import json
import math
import warnings
from pathlib import Path

import pytest
from hostile_kit import api_refused, call, cli, refused

from bench.metrics import PROFILES, evaluate_trec

pytrec_eval = pytest.importorskip("pytrec_eval")
ir_measures = pytest.importorskip("ir_measures")

CLASSES = {
    "test_ties_that_sort_differently_as_text_and_number": "silently wrong",
    "test_a_query_without_a_relevant_document": "silently wrong",
    "test_every_family_at_k_one_and_past_every_list": "silently wrong",
    "test_err_with_equal_or_zero_grades_is_gdevals": "silently wrong",
    "test_alpha_ndcg_at_the_ends_of_alpha_is_ndevals": "silently wrong",
    "test_a_negative_gain_is_refused": "silent accept",
    "test_a_fractional_relevance_level_is_the_next_whole_grade": "silently wrong",
    "test_unusable_scores_and_repeated_documents_are_refused_naming_the_line": "unclear error",
    "test_every_profile_writes_plain_numbers_in_the_order_asked": "silently wrong",
}

Qrels = dict[str, dict[str, int]]
Run = dict[str, dict[str, float]]


def _files(folder: Path, qrels: Qrels, run: dict[str, dict[str, str]]) -> tuple[str, str]:
    """TREC files; the run's scores written as given (text), ranks in the given order."""
    (folder / "q").write_text("".join(f"{q} 0 {d} {r}\n" for q, docs in qrels.items()
                                      for d, r in docs.items()))
    (folder / "r").write_text("".join(f"{q} Q0 {d} {i} {s} t\n" for q, docs in run.items()
                                      for i, (d, s) in enumerate(docs.items(), 1)))
    return str(folder / "q"), str(folder / "r")


def _pytrec(qrels: Qrels, run: Run, measures: list[str]) -> dict[str, dict[str, float]]:
    """pytrec_eval per query: ``{measure: {qid: value}}`` for ``P.5`` style names."""
    res = pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)
    return {m: {q: v[m.replace(".", "_")] for q, v in res.items()} for m in measures}


def _ours(q: str, r: str, metrics: list[str], **kw: object) -> dict[str, dict[str, float]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = evaluate_trec(q, r, metrics=metrics, per_query=True, **kw)  # type: ignore[arg-type]
    assert res.per_query is not None
    table = res.per_query.set_index("qid")
    return {m: {str(k): float(v) for k, v in table[m].items()} for m in metrics}


@pytest.mark.parametrize(("scores", "first"), [
    ({"10": "1.0", "9": "1.0"}, "9"),          # as text '9' > '10': trec_eval ranks 9 first
    ({"a": "1e5", "b": "100000"}, "b"),         # one number in two spellings: a tie
    ({"a": "0.0", "b": "-0.0"}, "b"),           # -0.0 == 0.0: a tie
    ({"a": "1e-320", "b": "0"}, "b"),           # trec_eval's float32 score: 0, a tie
    ({"a": "1e-30", "b": "0"}, "a"),            # in float32 range: no tie
])
def test_ties_that_sort_differently_as_text_and_number(tmp_path: Path, scores: dict[str, str],
                                                       first: str) -> None:
    docs = list(scores)
    qrels = {"1": {first: 1, next(d for d in docs if d != first): 0}}
    q, r = _files(tmp_path, qrels, {"1": scores})
    run = {"1": {d: float(s) for d, s in scores.items()}}
    want = _pytrec(qrels, run, ["P.1", "recip_rank", "ndcg_cut.1"])
    got = _ours(q, r, ["P_1", "recip_rank", "ndcg_cut_1"])
    assert want["P.1"] == {"1": 1.0}
    assert got["P_1"] == want["P.1"]
    assert got["recip_rank"] == want["recip_rank"]
    assert got["ndcg_cut_1"] == pytest.approx(want["ndcg_cut.1"], abs=1e-15)


def test_a_query_without_a_relevant_document(tmp_path: Path) -> None:
    qrels = {"1": {"a": -1, "b": -2, "c": 0}, "2": {"x": 1, "y": 0}, "3": {"p": 0}}
    run = {"1": {"a": "0.5", "b": "0.4", "c": "0.1"}, "2": {"x": "1", "y": "0.2"},
           "3": {"p": "1"}}
    q, r = _files(tmp_path, qrels, run)
    floats = {k: {d: float(s) for d, s in v.items()} for k, v in run.items()}
    names = {"ndcg_cut.10": "ndcg_cut_10", "map": "map", "recip_rank": "recip_rank",
             "bpref": "bpref", "P.5": "P_5", "Rprec": "Rprec", "ndcg": "ndcg"}
    want = _pytrec(qrels, floats, list(names))
    got = _ours(q, r, list(names.values()))
    for theirs, mine in names.items():
        assert got[mine] == pytest.approx(want[theirs], abs=1e-15), mine
    # ir_measures (trec_eval -c) on the same queries
    ir = ir_measures.calc_aggregate([ir_measures.parse_measure("nDCG@10"),
                                     ir_measures.parse_measure("AP")], qrels, floats)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mine_ir = evaluate_trec(q, r, metrics=["nDCG@10", "AP"]).metrics
    assert mine_ir["nDCG@10"] == pytest.approx(ir[ir_measures.parse_measure("nDCG@10")], abs=1e-15)
    assert mine_ir["AP"] == pytest.approx(ir[ir_measures.parse_measure("AP")], abs=1e-15)


def test_every_family_at_k_one_and_past_every_list(tmp_path: Path) -> None:
    qrels = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"d": 0, "e": 0}, "3": {"f": 1, "g": 1}}
    run = {"1": {"b": "0.9", "a": "0.4", "c": "0.1"}, "2": {"d": "0.3"}, "3": {"f": "1"}}
    q, r = _files(tmp_path, qrels, run)
    floats = {k: {d: float(s) for d, s in v.items()} for k, v in run.items()}
    names = {"P.1": "P_1", "ndcg_cut.1": "ndcg_cut_1", "map_cut.1": "map_cut_1",
             "recall.1": "recall_1", "success.1": "success_1", "P.1000": "P_1000",
             "ndcg_cut.1000": "ndcg_cut_1000", "recall.1000": "recall_1000",
             "map_cut.1000": "map_cut_1000"}
    want = _pytrec(qrels, floats, list(names))
    got = _ours(q, r, list(names.values()))
    for theirs, mine in names.items():
        assert got[mine] == pytest.approx(want[theirs], abs=1e-15), mine
    ir_names = ["P@1", "nDCG@1", "AP@1", "R@1", "RR@1", "Success@1", "nDCG@2147483647"]
    ir = ir_measures.calc_aggregate([ir_measures.parse_measure(n) for n in ir_names], qrels,
                                    floats)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mine_ir = evaluate_trec(q, r, metrics=ir_names).metrics
    for n in ir_names:
        assert mine_ir[n] == pytest.approx(ir[ir_measures.parse_measure(n)], abs=1e-15), n


@pytest.mark.parametrize("grades", [(3, 3, 3), (0, 0, 0), (1, 1, 0), (4, 4, 4)])
def test_err_with_equal_or_zero_grades_is_gdevals(tmp_path: Path,
                                                  grades: tuple[int, int, int]) -> None:
    """ir_measures' ERR (gdeval.pl, 5 decimals, maximum grade 4: R = (2^g - 1) / 16)."""
    qrels = {"1": dict(zip("abc", grades, strict=True))}
    run = {"1": {"c": "3", "b": "2", "a": "1"}}
    q, r = _files(tmp_path, qrels, run)
    m = ir_measures.parse_measure("ERR@2")
    want = ir_measures.calc_aggregate([m], qrels, {"1": {"c": 3.0, "b": 2.0, "a": 1.0}})[m]
    got = _ours(q, r, ["ERR@2"])["ERR@2"]["1"]
    assert got == pytest.approx(want, abs=5e-6 + 1e-12)
    p = [(2 ** g - 1) / 16 for g in (grades[2], grades[1])]
    assert got == pytest.approx(p[0] + (1 - p[0]) * p[1] / 2, abs=1e-15)  # by hand


@pytest.mark.parametrize("alpha", [0.0, 1.0])
def test_alpha_ndcg_at_the_ends_of_alpha_is_ndevals(tmp_path: Path, alpha: float) -> None:
    pyndeval = pytest.importorskip("pyndeval")
    lines = [("1", "1", "a", 1), ("1", "1", "b", 1), ("1", "2", "b", 1), ("2", "1", "x", 0),
             ("2", "2", "y", 0), ("3", "1", "z", 1)]
    run = [("1", "a", 2.0), ("1", "b", 1.0), ("2", "x", 1.0), ("2", "y", 0.5), ("3", "w", 1.0)]
    (tmp_path / "q").write_text("".join(f"{q} {s} {d} {j}\n" for q, s, d, j in lines))
    (tmp_path / "r").write_text("".join(f"{q} Q0 {d} {i} {s!r} t\n"
                                        for i, (q, d, s) in enumerate(run, 1)))
    want = pyndeval.ndeval([pyndeval.SubtopicQrel(*x) for x in lines],
                           [pyndeval.ScoredDoc(*x) for x in run], ["alpha-nDCG@5"], alpha=alpha)
    name = f"alpha_ndcg({alpha})@5"
    got = _ours(str(tmp_path / "q"), str(tmp_path / "r"), [name])[name]
    assert set(got) == set(want)
    for q, v in want.items():
        assert got[q] == pytest.approx(v["alpha-nDCG@5"], abs=1e-15), q
    assert got["2"] == 0.0  # no covered subtopic: 0, as ndeval


def test_a_negative_gain_is_refused(tmp_path: Path) -> None:
    q, r = _files(tmp_path, {"1": {"a": 2, "b": 1}}, {"1": {"a": "1", "b": "2"}})
    _, exc = call(lambda: evaluate_trec(q, r, metrics="nDCG(gains={0:0,1:-1,2:3})@10"))
    assert api_refused(exc, "gains") is None


def test_a_fractional_relevance_level_is_refused_and_a_whole_one_is_ir_measures_rel(
        tmp_path: Path) -> None:
    """Round 22: ``1.5`` is 1 to trec_eval's ``-l`` (atol) and 2 as ``label >= 1.5``; refused,
    naming both readings. The whole level equals ir_measures' ``rel=``."""
    qrels = {"1": {"a": 1, "b": 2, "c": 3}, "2": {"x": 1}}
    q, r = _files(tmp_path, qrels, {"1": {"a": "3", "b": "2", "c": "1"}, "2": {"x": "1"}})
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--profile", "trec_eval-c",
              "--relevance-level", "1.5", "--metrics", "P_5,map", "--format", "csv")
    assert res.status == 2, res.err
    assert "1.5" in res.err, res.err
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--profile", "trec_eval-c",
              "--relevance-level", "2", "--metrics", "P_5,map", "--format", "csv")
    assert res.status == 0, res.err
    got = {row["metric"]: float(row["value"]) for row in csv.DictReader(io.StringIO(res.out))}
    run = {"1": {"a": 3.0, "b": 2.0, "c": 1.0}, "2": {"x": 1.0}}
    ms = [ir_measures.parse_measure("P(rel=2)@5"), ir_measures.parse_measure("AP(rel=2)")]
    want = ir_measures.calc_aggregate(ms, qrels, run)
    assert got["P_5"] == pytest.approx(want[ms[0]], abs=1e-15)
    assert got["map"] == pytest.approx(want[ms[1]], abs=1e-15)


@pytest.mark.parametrize(("line", "words"), [
    ("1 Q0 a 1 nan t\n", ("r:1", "score")), ("1 Q0 a 1 -inf t\n", ("r:1", "score")),
    ("1 Q0 a 1 1 t\n1 Q0 a 2 0.5 t\n", ("r:2", "duplicate")),
    ("1 Q0 a 1 0x1p3 t\n", ("r:1", "score")), ("1 Q0 a 1 1_000 t\n", ("r:1", "score")),
])
def test_unusable_scores_and_repeated_documents_are_refused_naming_the_line(
        tmp_path: Path, line: str, words: tuple[str, ...]) -> None:
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text(line)
    res = cli(tmp_path, "evaluate", "--qrels", "q", "--run", "r", "--metrics", "P_1")
    assert refused(res, *words) is None, res.err


def test_every_profile_writes_plain_numbers_in_the_order_asked(tmp_path: Path) -> None:
    """A query without a relevant document is NaN or left out under some profiles: JSON has
    no NaN / Infinity token (null), CSV no 'nan'; the keys are the spellings asked, in order."""
    q, r = _files(tmp_path, {"1": {"a": 0, "b": 0}, "2": {"c": 1, "d": 0}},
                  {"1": {"a": "1", "b": "0.5"}, "2": {"c": "1", "d": "0.5"}})
    order = ["recip_rank", "nDCG@2", "map", "P@2", "ndcg@2"]
    bad = []
    for profile in PROFILES:
        res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--profile", profile,
                  "--metrics", "ndcg@2,map,mrr,err@2,p@2", "--format", "json")
        if res.status != 0:
            if refused(res) is not None:
                bad.append(f"{profile}: {refused(res)}")
            continue
        if "NaN" in res.out or "Infinity" in res.out:
            bad.append(f"{profile}: a NaN / Infinity token")
        doc = json.loads(res.out)
        if list(doc["metrics"]) != ["ndcg@2", "map", "mrr", "err@2", "p@2"]:
            bad.append(f"{profile}: order {list(doc['metrics'])}")
        if any(isinstance(v, float) and not math.isfinite(v) for v in doc["metrics"].values()):
            bad.append(f"{profile}: {doc['metrics']}")
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--metrics", ",".join(order),
              "--format", "csv")
    assert [row["metric"] for row in csv.DictReader(io.StringIO(res.out))] == order
    assert "nan" not in res.out.lower()
    assert bad == []
