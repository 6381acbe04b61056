"""Round 10 of the hostile catalogue: ``ltrbench evaluate`` / ``crosscheck`` / metric names and
profiles, through the command line and the Python API (issue 19), new instances beyond round 9:

* **The relevance level 0** (``--relevance-level 0``, ``Profile.relevance_threshold = 0``) was
  accepted: every judged document relevant, a label 0 too (``map`` 1.0 whatever the order).
  pytrec_eval refuses it ("Argument relevance_level should be positive."), ir_measures too
  (``AP(rel=0)``); now refused on the command line and on every API path. A level between 0 and
  1 stays the level 1 on whole labels (pytrec_eval's ``relevance_level=1``). The diversity
  paths (alpha-nDCG, nERR-IA) did not check the level at all: NaN gave 0.0 for every query,
  ``"1"`` a NumPy traceback.
* **Empty option values**: ``--profile ''`` computed under the default profile (the API says
  "unknown profile ''"); ``--engine dask --query ''`` was dropped without a word.
* **ir_measures' spelling with a leading-zero cutoff** (``nDCG@05``, ``AP@05``, ``RR@010``):
  ltrbench read it as its own name under the call's profile (``nDCG@05`` 0.79 under trec_eval
  where ``nDCG@5`` is 0.53 under trec_eval-c), and ``Judged@05`` was an unknown name; now each
  is the ir_measures measure it spells (as ``ndcg_cut_05`` is trec_eval's ``ndcg_cut_5``).
* **Per-query files**: the ids ``=1`` and ``'=1`` were both written ``'=1`` in the CSV (a
  spreadsheet formula guard), a file that cannot tell them apart; ``--per-query out.json``
  wrote CSV into a ``.json`` file. Now the CSV refuses ids it would write alike, and a
  ``.json`` path gets JSON records with the ids exactly as read.
* **Messages**: torchmetrics' refusal of graded labels for ``map``/``p`` said "as XGBoost
  does"; ``--tools RANX`` gave no "did you mean"; a result's label used as ``PROFILE:NAME``
  (``trec_eval+relevance_threshold=2.0:map``) was an "unknown metric"; a gain of ``1e308``
  was spelled with its 309 digits in the metric's name (and every error naming it); trec_eval's
  measure sets (``all_trec``: "did you mean fall_out?") and ir_measures' parameters after the
  cutoff (``nDCG@10(gains=...)``) were unknown names followed by every name; ``10inf`` printed
  Python's "SyntaxWarning: invalid decimal literal" as a line before the error.
* **crosscheck --metric** (``NDCG@10``, ``ndcg@05``, ``''``) was checked only after a run was
  found or trained, per model ("no NDCG@10 in evallog.csv"); now at the door.
* **Round-9 leftovers**: ``crosscheck --evaluators`` read the qrels file twice; the "all
  differences equal: no t statistic" rule lived twice in ``bench/report/stats.py``; the
  evaluator worker's ir_measures[ranx] rows built ranx objects without the id widening of
  :mod:`bench.crosscheck.ranx_objects` (a numba compile per new id width).

:data:`CLASSES` maps each test to its class for the closing counts.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hostile_kit import api_refused, call, cli, refused
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.metrics import evaluate, evaluate_trec, get_profile

pytrec_eval = pytest.importorskip("pytrec_eval")
ir_measures = pytest.importorskip("ir_measures")

CLASSES = {
    "test_a_relevance_level_of_zero_or_below_is_refused_on_the_command_line": "silent accept",
    "test_a_relevance_threshold_of_zero_is_refused_on_every_api_path": "silent accept",
    "test_a_relevance_level_between_zero_and_one_is_level_one": "silently wrong",
    "test_an_empty_profile_is_refused_on_the_command_line": "silent accept",
    "test_an_empty_option_value_is_not_dropped_by_the_shards_engine": "silent accept",
    "test_an_ir_measures_spelling_with_a_leading_zero_cutoff_is_that_measure": "silently wrong",
    "test_leading_zero_cutoffs_of_ltrbench_and_trec_eval_names_still_read": "silently wrong",
    "test_per_query_ids_a_csv_writes_alike_are_refused": "silently wrong",
    "test_a_json_per_query_file_is_json_with_ids_exactly_as_read": "silently wrong",
    "test_the_binary_label_refusal_names_the_profiles_own_tool": "unclear error",
    "test_an_unknown_tool_in_another_case_gets_a_did_you_mean": "unclear error",
    "test_crosscheck_evaluators_reads_the_qrels_file_once": "leftover",
    "test_the_degenerate_t_rule_has_one_owner": "leftover",
    "test_ir_measures_ranx_provider_gets_widened_id_arrays": "leftover",
    "test_a_results_label_as_a_qualifier_says_what_it_is": "unclear error",
    "test_a_huge_gain_is_spelled_as_a_float_in_the_canonical_name": "unclear error",
    "test_crosscheck_metric_is_checked_before_any_run_is_read_or_trained": "silent accept",
    "test_a_trec_eval_measure_set_is_refused_naming_the_form": "unclear error",
    "test_ir_measures_parameters_after_the_cutoff_are_refused_naming_the_order": "unclear error",
    "test_the_diversity_paths_check_the_relevance_level_too": "silently wrong",
    "test_pythons_own_parser_warnings_are_no_line_of_the_error": "unclear error",
    "test_a_name_of_grammar_fragments_parses_or_is_refused_without_a_warning": "unclear error",
}

QRELS = {"1": {"a": 2, "b": 0, "c": 1}, "2": {"x": 1, "y": 0}, "3": {"m": 1}}
RUN = {"1": {"a": 3.0, "b": 2.0, "c": 1.0}, "2": {"y": 2.0, "x": 1.0}}


def _files(folder: Path, qrels: dict[str, dict[str, int]] = QRELS,
           run: dict[str, dict[str, float]] = RUN, name: str = "r") -> tuple[str, str]:
    (folder / "q").write_text("".join(f"{q} 0 {d} {r}\n" for q, docs in qrels.items()
                                      for d, r in docs.items()))
    (folder / name).write_text("".join(f"{q} Q0 {d} {i} {s} t\n" for q, docs in run.items()
                                       for i, (d, s) in enumerate(docs.items(), 1)))
    return str(folder / "q"), str(folder / name)


def _csv(out: str) -> dict[str, float]:
    return {row["metric"]: float(row["value"]) for row in csv.DictReader(io.StringIO(out))}


# -- the relevance level -------------------------------------------------------------------

def test_pytrec_eval_refuses_a_relevance_level_of_zero() -> None:
    """The oracle's own rule (guard: the refusal below follows it)."""
    with pytest.raises(TypeError, match="relevance_level should be positive"):
        pytrec_eval.RelevanceEvaluator(QRELS, {"map"}, relevance_level=0)


@pytest.mark.parametrize("level", ["0", "0.0", "-0", "0e0", "-1"])
def test_a_relevance_level_of_zero_or_below_is_refused_on_the_command_line(
        tmp_path: Path, level: str) -> None:
    q, r = _files(tmp_path)
    _files(tmp_path, name="r2")
    for runs in (["--run", r], ["--run", r, "--run", f"b={r}2"]):
        res = cli(tmp_path, "evaluate", "--qrels", q, *runs, "--metrics", "map,P_5",
                  f"--relevance-level={level}", "--format", "csv")
        assert refused(res, "--relevance-level", "> 0") is None, (level, res)


@pytest.mark.parametrize("level", [0, 0.0, -0.0, -1.0])
def test_a_relevance_threshold_of_zero_is_refused_on_every_api_path(tmp_path: Path,
                                                                     level: float) -> None:
    from bench.report.compare_runs import compare_runs

    q, r = _files(tmp_path)
    for base in ("trec_eval", "ranx", "ltrbench"):
        prof = dataclasses.replace(get_profile(base), relevance_threshold=level)
        for fn in (
                lambda p=prof: evaluate([2, 0, 1], [3, 2, 1], group=[3], metrics="map", profile=p),
                lambda p=prof: evaluate_trec(q, r, metrics=["map", "p@5"], profile=p),
                lambda p=prof: compare_runs(q, {"a": r, "b": RUN}, metrics=["map"], profile=p)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _, exc = call(fn)
            assert api_refused(exc, "relevance_threshold", "above 0") is None, (base, level, exc)


def test_a_relevance_level_between_zero_and_one_is_refused_and_one_is_level_one(
        tmp_path: Path) -> None:
    """Round 22: ``0.5`` is 0 to trec_eval's ``-l`` (every judged document relevant) and 1 as
    ``label >= 0.5``: refused, naming 1; level 1 is pytrec_eval's."""
    q, r = _files(tmp_path)
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--metrics", "map,P_5",
              "--relevance-level", "0.5", "--format", "csv")
    assert res.status == 2, res.err
    assert "give 1" in res.err, res.err
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--metrics", "map,P_5",
              "--relevance-level", "1", "--format", "csv")
    assert res.status == 0, res.err
    per = pytrec_eval.RelevanceEvaluator(QRELS, {"map", "P_5"}, relevance_level=1).evaluate(RUN)
    got = _csv(res.out)
    for name in ("map", "P_5"):
        assert got[name] == pytest.approx(np.mean([v[name] for v in per.values()]), abs=1e-15)


# -- empty option values -----------------------------------------------------------------

@pytest.mark.parametrize("runs", [1, 2])
def test_an_empty_profile_is_refused_on_the_command_line(tmp_path: Path, runs: int) -> None:
    q, r = _files(tmp_path)
    _files(tmp_path, name="r2")
    extra = ["--run", f"b={r}2"] if runs == 2 else []
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, *extra, "--metrics", "map",
              "--profile", "")
    assert refused(res, "--profile", "an empty value") is None, res


@pytest.mark.parametrize("option", ["--query", "--scores", "--profile", "--score-column"])
def test_an_empty_option_value_is_not_dropped_by_the_shards_engine(tmp_path: Path,
                                                                   option: str) -> None:
    res = cli(tmp_path, "evaluate", "--engine", "dask", "--data", "no-such-shards",
              option, "", "--metrics", "ndcg@10")
    # one rule for every option: an empty value is refused before its type reads it
    assert refused(res, option, "an empty value") is None, res


# -- names --------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "fixed"), [
    ("nDCG@05", "nDCG@5"), ("AP@05", "AP@5"), ("RR@010", "RR@10"),
    ("P(rel=2)@05", "P(rel=2)@5"), ("Judged@05", "Judged@5"), ("Success@01", "Success@1"),
])
def test_an_ir_measures_spelling_with_a_leading_zero_cutoff_is_that_measure(
        tmp_path: Path, name: str, fixed: str) -> None:
    """``nDCG@05`` was ltrbench's ndcg@5 under the call's profile (trec_eval: query 3, without
    a run line, left out) beside ir_measures' ``nDCG@5`` (scored 0): now both are ir_measures'
    measure, ir_measures' number (ir_measures itself refuses the spelling: it reads names as
    Python)."""
    with pytest.raises(ValueError, match="problem parsing"):  # ir_measures refuses it
        ir_measures.parse_measure(name)
    q, r = _files(tmp_path)
    measure = ir_measures.parse_measure(fixed)
    want = ir_measures.calc_aggregate([measure], QRELS, RUN)[measure]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = evaluate_trec(q, r, metrics=[name, fixed])
    assert res[name] == pytest.approx(want, abs=1e-15), (res.metrics, want)
    assert res.metric_profiles[name] == res.metric_profiles[fixed]
    cl = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--metrics", name, "--format", "csv")
    assert cl.status == 0, cl.err
    assert _csv(cl.out)[name] == pytest.approx(want, abs=1e-15)


def test_leading_zero_cutoffs_of_ltrbench_and_trec_eval_names_still_read(tmp_path: Path) -> None:
    """Guard: ltrbench's ``ndcg@05`` and trec_eval's ``P_05`` (trec_eval reads the parameter
    with atol) are ndcg@5 and P_5 under trec_eval, as pytrec_eval computes them."""
    q, r = _files(tmp_path)
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--metrics", "ndcg@05,P_05",
              "--format", "csv")
    assert res.status == 0, res.err
    per = pytrec_eval.RelevanceEvaluator(QRELS, {"ndcg_cut_5", "P_5"}).evaluate(RUN)
    got = _csv(res.out)
    assert got["ndcg@05"] == pytest.approx(np.mean([v["ndcg_cut_5"] for v in per.values()]),
                                           abs=1e-15)
    assert got["P_05"] == pytest.approx(np.mean([v["P_5"] for v in per.values()]), abs=1e-15)


# -- per-query files ----------------------------------------------------------------------

_IDS = {"=1": {"a": 1, "b": 0}, "'=1": {"c": 1, "d": 0}, "+x": {"e": 0, "f": 1}}
_IDS_RUN = {"=1": {"a": 2.0, "b": 1.0}, "'=1": {"d": 2.0, "c": 1.0}, "+x": {"e": 2.0, "f": 1.0}}


@pytest.mark.parametrize("runs", [1, 2])
def test_per_query_ids_a_csv_writes_alike_are_refused(tmp_path: Path, runs: int) -> None:
    q, r = _files(tmp_path, _IDS, _IDS_RUN)
    _files(tmp_path, _IDS, _IDS_RUN, name="r2")
    extra = ["--run", f"b={r}2"] if runs == 2 else []
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, *extra, "--metrics", "map",
              "--per-query", "out.csv")
    assert refused(res, "out.csv", "'=1", ".json") is None, res
    assert not (tmp_path / "out.csv").exists()


@pytest.mark.parametrize("runs", [1, 2])
def test_a_json_per_query_file_is_json_with_ids_exactly_as_read(tmp_path: Path,
                                                               runs: int) -> None:
    q, r = _files(tmp_path, _IDS, _IDS_RUN)
    _files(tmp_path, _IDS, _IDS_RUN, name="r2")
    extra = ["--run", f"b={r}2"] if runs == 2 else []
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, *extra, "--metrics", "map",
              "--per-query", "out.json")
    assert res.status == 0, res.err
    rows = json.loads((tmp_path / "out.json").read_text())
    want = {"=1": 1.0, "'=1": 0.5, "+x": 0.5}  # AP by hand: rank 1 relevant, rank 2 relevant
    column = "r" if runs == 2 else "map"
    assert {row["qid"]: row[column] for row in rows} == want


# -- messages -----------------------------------------------------------------------------

def test_the_binary_label_refusal_names_the_profiles_own_tool(tmp_path: Path) -> None:
    q, r = _files(tmp_path)
    _, exc = call(lambda: evaluate_trec(q, r, metrics=["map"], profile="torchmetrics"))
    assert api_refused(exc, "torchmetrics", "binary") is None, exc
    assert "as XGBoost does" not in str(exc), exc


def test_an_unknown_tool_in_another_case_gets_a_did_you_mean(tmp_path: Path) -> None:
    q, r = _files(tmp_path)
    res = cli(tmp_path, "crosscheck", "--evaluators", "--qrels", q, "--trec-run", r,
              "--tools", "RANX", "--out", str(tmp_path / "out"))
    assert refused(res, "'RANX'", "did you mean 'ranx'") is None, res


# -- round-9 leftovers --------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["ordinary", "subtopic", "subtopic judged twice"])
def test_crosscheck_evaluators_reads_the_qrels_file_once(tmp_path: Path, kind: str,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import bench.data.trec as trec
    from bench.crosscheck.evaluators import trec_input

    lines = {"ordinary": "1 0 a 2\n1 0 b 0\n2 0 x 1\n",
             "subtopic": "1 1 a 1\n1 2 b 1\n2 1 x 1\n",
             "subtopic judged twice": "1 1 a 1\n1 2 a 1\n2 1 x 1\n"}[kind]
    (tmp_path / "q").write_text(lines)
    (tmp_path / "r").write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n2 Q0 x 1 1 t\n")
    reads: list[str] = []
    original = trec._lines

    def counted(path: Any) -> Any:
        reads.append(Path(path).name)
        return original(path)

    monkeypatch.setattr(trec, "_lines", counted)
    got = trec_input(tmp_path / "q", tmp_path / "r")
    assert reads.count("q") == 1, reads
    assert got.qrels == {"ordinary": {"1": {"a": 2, "b": 0}, "2": {"x": 1}},
                         "subtopic": {"1": {"a": 1, "b": 1}, "2": {"x": 1}},
                         "subtopic judged twice": {}}[kind]
    assert (got.subtopics is None) == (kind == "ordinary")
    assert got.run == {"1": {"a": 2.0, "b": 1.0}, "2": {"x": 1.0}}


def test_the_degenerate_t_rule_has_one_owner(monkeypatch: pytest.MonkeyPatch) -> None:
    """``paired_t_test`` and ``constant_differences`` read one rule: a changed rule changes
    both (here: no row is degenerate, so the t-test answers and no row is named)."""
    from bench.report import stats

    a = np.array([[0.5, 0.7, 0.9]])
    b = a - 0.25
    assert math.isnan(float(stats.paired_t_test(a, b)[0]))
    assert stats.constant_differences(a, b) == [(0, 3, 0.25)]

    def never(dd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        none = np.zeros(dd.shape[0], dtype=bool)
        return none, none

    monkeypatch.setattr(stats, "_degenerate", never, raising=False)
    assert stats.constant_differences(a, b) == []
    assert not math.isnan(float(stats.paired_t_test(a, b + np.array([0.0, 1e-9, 0.0]))[0]))


def test_ir_measures_ranx_provider_gets_widened_id_arrays(monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker's ir_measures[ranx] rows build ranx objects through ranx's own constructors:
    their id arrays reach ranx's numba builder at the width of
    :func:`bench.crosscheck.ranx_objects.id_width` (64), not at the ids' own width (numba
    compiles once per width, 30-40 s)."""
    pytest.importorskip("ranx")
    from ranx.data_structures import qrels as ranx_qrels
    from ranx.data_structures import run as ranx_run

    from bench.crosscheck.evaluator_tools import ir_measures_values

    seen: list[str] = []

    class Stop(Exception):
        pass

    def spy(q_ids: Any, doc_ids: Any, scores: Any) -> Any:
        seen.extend(str(np.asarray(a).dtype) for a in doc_ids)
        raise Stop  # nothing compiled: the width is all this test needs

    for module in (ranx_qrels, ranx_run):  # the session's widening removed: the worker has none
        monkeypatch.setattr(module, "create_and_sort", spy)
    with pytest.raises(Stop):
        ir_measures_values({"1": {"a": 1, "bb": 0}}, {"1": {"a": 1.0, "bb": 0.5}},
                           [("ranx", "nDCG@10")])
    assert seen, "ranx's builder was not reached"
    assert set(seen) == {"<U64"}, seen
    assert ranx_qrels.create_and_sort is spy  # put back after the call


def test_a_results_label_as_a_qualifier_says_what_it_is(tmp_path: Path) -> None:
    """``trec_eval+relevance_threshold=2.0:map`` (a column label of ``evaluate``, pasted back
    as ``PROFILE:NAME``) was an "unknown metric" followed by every name; now the message of
    ``--profile`` with that label: how to ask for the override."""
    q, r = _files(tmp_path)
    for name in ("trec_eval+relevance_threshold=2.0:map", "trec_eval-c+judged:P_5"):
        _, exc = call(lambda n=name: evaluate_trec(q, r, metrics=[n]))
        assert api_refused(exc, "label of a metric", "P(rel=2)@5") is None, (name, exc)
        assert "valid names" not in str(exc)


def test_a_huge_gain_is_spelled_as_a_float_in_the_canonical_name() -> None:
    """``nDCG(gains={0:0,1:1e308})@10``'s canonical name held the 309 digits of 1e308 (and every
    error naming the metric printed them); now ``1e+308``, which parses back to the same name."""
    from bench.metrics import parse_metrics

    spec = parse_metrics(["nDCG(gains={0:0,1:1e308})@10"])[0]
    assert spec.name == "nDCG(gains={1:1e+308})@10", spec.name
    assert parse_metrics([spec.name])[0].name == spec.name
    assert parse_metrics(["nDCG(gains={0:0,1:3.0,2:2.5})@10"])[0].name == \
        "nDCG(gains={1:3,2:2.5})@10"


@pytest.mark.parametrize("metric", ["NDCG@10", "ndcg@05", "ndcg_cut_10", "", "ndcg@0"])
def test_crosscheck_metric_is_checked_before_any_run_is_read_or_trained(tmp_path: Path,
                                                                        metric: str) -> None:
    """``crosscheck --metric NDCG@10`` looked for a run (or trained one) first and then noted
    "no NDCG@10 in evallog.csv" per model (the eval log keys ``ndcg@10``); now refused at the
    door, naming each library's metric names."""
    res = cli(tmp_path, "crosscheck", "--run", str(tmp_path / "no-such-run"), "--metric", metric,
              "--out", str(tmp_path / "out"))
    words = ("an empty value",) if metric == "" else (repr(metric), "ndcg@k")
    assert refused(res, "--metric", *words) is None, res


@pytest.mark.parametrize("name", ["all_trec", "official", "set", "ALL_TREC"])
def test_a_trec_eval_measure_set_is_refused_naming_the_form(tmp_path: Path, name: str) -> None:
    """trec_eval's ``-m all_trec`` (pytrec_eval takes ``{'all_trec'}`` too) was an unknown
    metric with "did you mean fall_out?"; now the form is named."""
    q, r = _files(tmp_path)
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--metrics", f"map,{name}")
    assert refused(res, "trec_eval measure set", "one by one") is None, res
    assert "fall_out" not in res.err


@pytest.mark.parametrize(("name", "right"), [("nDCG@10(gains={0:0,1:1})", "nDCG(gains={0:0,1:1})@10"),
                                             ("P@5(rel=2)", "P(rel=2)@5")])
def test_ir_measures_parameters_after_the_cutoff_are_refused_naming_the_order(
        tmp_path: Path, name: str, right: str) -> None:
    q, r = _files(tmp_path)
    _, exc = call(lambda: evaluate_trec(q, r, metrics=[name]))
    assert api_refused(exc, "before its cutoff", right) is None, exc
    assert "valid names" not in str(exc)


@pytest.mark.parametrize("level", [math.nan, 0.0, "1", None])
def test_the_diversity_paths_check_the_relevance_level_too(tmp_path: Path, level: Any) -> None:
    """alpha-nDCG and nERR-IA (subtopic qrels, or per-row subtopic labels) read the relevance
    level without the label checks: NaN gave 0.0 for every query, ``"1"`` a NumPy
    ``UFuncTypeError``. The level is now checked where every evaluation path groups its
    metrics by profile (:func:`bench.metrics.qualified.groups`)."""
    (tmp_path / "qs").write_text("1 1 a 1\n1 2 b 1\n1 1 c 0\n2 1 x 1\n")
    (tmp_path / "rs").write_text("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n2 Q0 x 1 1 t\n")
    def prof() -> Any:  # refused when made (round 20) or where the paths group the metrics
        return dataclasses.replace(get_profile("trec_eval"), relevance_threshold=level)

    for fn in (lambda: evaluate_trec(str(tmp_path / "qs"), str(tmp_path / "rs"),
                                     metrics=["alpha_ndcg@5", "nerr_ia@5"], profile=prof()),
               lambda: evaluate([1, 0, 1], [3, 2, 1], group=[3], metrics=["alpha_ndcg@3"],
                                subtopics=[[1, 0], [0, 0], [0, 1]], profile=prof())):
        _, exc = call(fn)
        assert api_refused(exc, "relevance_threshold") is None, (level, exc)


@pytest.mark.parametrize("name", ["10inf", "P@5and", "nDCG(rel=1if 1 else 2)@5"])
def test_pythons_own_parser_warnings_are_no_line_of_the_error(tmp_path: Path, name: str) -> None:
    """ir_measures names are read as Python (``ast.parse``), whose tokenizer warns on
    ``10inf`` ("SyntaxWarning: invalid decimal literal"): the command printed that warning as
    a line of its own before the error."""
    q, r = _files(tmp_path)
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--metrics", name)
    assert refused(res, repr(name)) is None, res
    assert "SyntaxWarning" not in res.err, res.err
    assert len(res.err.strip().splitlines()) == 1, res.err


_FRAGMENTS = ["ndcg", "nDCG", "P", "AP", "RR", "map", "rbp", "Judged", "SetF", "err", "ERR",
              "trec_eval", "ranx", "@", "(", ")", "=", "rel", "gains", "{", "}", ":", ",", ".",
              "_", "0", "1", "5", "10", "05", "-", "+", "e", "inf", "nan", " ", "True", "cut",
              "all_trec", "\uff10", "\u200b"]


@given(st.lists(st.sampled_from(_FRAGMENTS), min_size=1, max_size=6).map("".join))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_name_of_grammar_fragments_parses_or_is_refused_without_a_warning(text: str) -> None:
    """Names built of the grammars' own pieces: a list of specs whose canonical names parse
    back to themselves, or ltrbench's own error, and never a Python warning on the way."""
    from bench.errors import LtrbenchError
    from bench.metrics import parse_metrics

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            specs = parse_metrics([text])
        except LtrbenchError:
            specs = []
    assert not seen, (text, [str(w.message) for w in seen])
    for spec in specs:
        assert parse_metrics([spec.name])[0].name == spec.name, (text, spec.name)
