"""``ltrbench crosscheck --evaluators``: the evaluation libraries per query against ltrbench's
profiles, a convention named by its field, a defect shrunk to its reproducer (ranx's bpref)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench.crosscheck.evaluator_explain import ddmin
from bench.crosscheck.evaluator_table import TABLE, EvaluatorInput, EvaluatorRow, row_gap
from bench.crosscheck.evaluator_tools import Tool
from bench.crosscheck.evaluators import crosscheck_evaluators

REPO = Path(__file__).resolve().parents[1]

#: ranx 0.3.21 bpref: a query with a relevant document beside a query without one.
BLANK_BESIDE = EvaluatorInput(
    "blank_beside",
    {"1": {"a": 1, "b": 0}, "2": {"c": 0}, "3": {"d": 2, "e": 0, "f": 1}},
    {"1": {"a": 0.9, "b": 0.5}, "2": {"c": 0.3}, "3": {"d": 0.9, "e": 0.5, "f": 0.4}},
)


def test_ddmin_finds_a_one_minimal_subset() -> None:
    """Zeller's ddmin keeps exactly the items the test needs."""
    assert ddmin(list(range(20)), lambda xs: 3 in xs and 17 in xs) == [3, 17]
    assert ddmin(list(range(9)), lambda xs: 5 in xs) == [5]


def test_rows_of_missing_profiles_are_skipped_with_a_note() -> None:
    """A row names its profile and metric by name; a row whose profile or metric does not
    exist is skipped with a note naming it (the msmarco and auc rows were, before they existed)."""
    msmarco = [r for r in TABLE if r.profile == "msmarco"]
    assert msmarco
    assert row_gap(msmarco[0]) is None  # the profile exists now
    gap = row_gap(EvaluatorRow("ir_measures", "RR@10", "mrr@10", "no-such-profile"))
    assert gap is not None
    assert "no-such-profile" in gap
    assert row_gap(EvaluatorRow("sklearn", "roc_auc_score", "no_such_metric", "sklearn")) is not None
    assert row_gap(EvaluatorRow("ranx", "ndcg@10", "ndcg@10", "ranx")) is None


def test_ranx_bpref_defect_is_reported_with_its_reproducer() -> None:
    """ranx 0.3.21's bpref scores 0 a query that has a relevant document when another query of
    the input has none (a division by zero in its numba parallel loop): reported as a defect
    that needs the other query, with a two-query reproducer."""
    pytest.importorskip("ranx")
    rows = [r for r in TABLE if r.tool == "ranx" and r.measure == "bpref"]
    result = crosscheck_evaluators([BLANK_BESIDE], rows=rows, only=["ranx"])
    (row,) = result.rows
    assert row.status == "compared"
    if not row.disagreements:
        pytest.skip("this ranx computes bpref right (fixed after 0.3.21)")
    defects = row.defects
    assert defects, [d.reason for d in row.disagreements]
    context = [d for d in defects if d.context]
    assert context
    assert "depends on the other queries" in context[0].reason
    rep = context[0].reproducer
    assert rep is not None
    assert len(rep.run) == 2  # the query and one query without a relevant document
    blank = [q for q in rep.qrels if q != rep.query]
    assert all(v <= 0 for q in blank for v in rep.qrels[q].values())
    assert rep.tool_value == 0.0
    assert rep.ltrbench_value is not None
    assert rep.ltrbench_value > 0
    assert not result.ok


def test_a_convention_difference_is_named_with_its_field() -> None:
    """pytrec_eval's ndcg_cut_10 claimed by the ``trec_eval`` profile with exp2 gain: the
    disagreement is the convention ``gain='linear'``, not a defect."""
    pytest.importorskip("pytrec_eval")
    from dataclasses import replace

    from bench.metrics.profiles import PROFILES

    PROFILES["trec_eval_exp2_probe"] = replace(PROFILES["trec_eval"], name="trec_eval_exp2_probe",
                                               gain="exp2", max_label=31)
    try:
        row = EvaluatorRow("pytrec_eval", "ndcg_cut_10", "ndcg@10", "trec_eval_exp2_probe")
        result = crosscheck_evaluators([BLANK_BESIDE], rows=[row], only=["pytrec_eval"],
                                       isolate=False)
    finally:
        del PROFILES["trec_eval_exp2_probe"]
    (res,) = result.rows
    assert [d.kind for d in res.disagreements] == ["convention"]
    assert res.disagreements[0].fields == {"gain": "linear"}
    assert "gain='linear'" in res.disagreements[0].reason
    assert result.ok


def test_ties_of_the_tools_own_order_are_a_convention() -> None:
    """scikit-learn ``ignore_ties=True`` orders equal scores by NumPy's argsort: a tied query
    whose value lies between the pessimistic and optimistic orders is the tool's tie order."""
    pytest.importorskip("sklearn")
    tied = EvaluatorInput("tied", {"1": {"a": 0, "b": 1, "c": 0, "d": 2}},
                          {"1": {"a": 0.5, "b": 0.5, "c": 0.5, "d": 0.1}})
    row = EvaluatorRow("sklearn", "ndcg_score(k=10, ignore_ties=True)", "ndcg@10", "sklearn")
    result = crosscheck_evaluators([tied], rows=[row], only=["sklearn"], isolate=False)
    (res,) = result.rows
    assert [d.kind for d in res.disagreements] == ["convention"]
    assert "ties" in res.disagreements[0].fields


def test_installed_tools_agree_on_the_probe_cases_where_no_defect_is_known() -> None:
    """pytrec_eval under ``trec_eval``: every probe query agrees (one worker process)."""
    pytest.importorskip("pytrec_eval")
    rows = [r for r in TABLE if r.tool == "pytrec_eval"]
    result = crosscheck_evaluators(rows=rows, only=["pytrec_eval"])
    assert all(r.status == "compared" and not r.disagreements for r in result.rows)
    assert sum(r.n_queries for r in result.rows) > 0
    assert result.ok


def test_a_missing_tool_is_skipped_cleanly() -> None:
    """A library that is not installed: its rows are skipped, with the install hint."""
    ghost = Tool("ghost", "no_such_module_h23x", "no-such-dist", "x:y", "pip install ghost")
    rows = [EvaluatorRow("ghost", "m", "ndcg@10", "ltrbench")]
    result = crosscheck_evaluators(tools=[ghost], rows=rows)
    assert result.versions == {"ghost": None}
    assert result.rows[0].status == "skipped"
    assert "not installed" in result.rows[0].note
    assert "pip install ghost" in result.rows[0].note
    assert result.ok


def test_cli_writes_evaluators_md(tmp_path: Path) -> None:
    """The command writes ``<out>/definitions/evaluators.{md,json}`` and says where."""
    pytest.importorskip("pytrec_eval")
    proc = subprocess.run(
        [sys.executable, "-m", "bench", "crosscheck", "--evaluators", "--tools", "pytrec_eval",
         "--out", str(tmp_path)], capture_output=True, text=True, cwd=REPO, check=False)
    assert proc.returncode == 0, proc.stderr
    md = (tmp_path / "definitions" / "evaluators.md").read_text()
    assert "| pytrec_eval | `ndcg_cut_10` | `ndcg@10` | `trec_eval` |" in md
    assert (tmp_path / "definitions" / "evaluators.json").exists()
    assert "wrote" in proc.stdout


def test_committed_evaluators_md_names_the_ranx_bpref_defect() -> None:
    """results/definitions/evaluators.md, generated by the command, carries the defect."""
    text = (REPO / "results" / "definitions" / "evaluators.md").read_text()
    assert "ltrbench crosscheck --evaluators" in text
    bpref = [line for line in text.splitlines() if line.startswith("| ranx | `bpref`")]
    assert bpref
    assert "defect" in bpref[0]
