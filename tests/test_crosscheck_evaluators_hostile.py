"""Hostile cases of ``ltrbench crosscheck --evaluators``: missing and empty files, a library that
raises, returns NaN, a string, other queries or nothing, or kills its worker, empty input and
contradictory options. Each ends in a clear error (exit 2) or a row that says what happened,
never a traceback or a silently wrong verdict."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bench.crosscheck.evaluator_render import evaluators_json, render_evaluators
from bench.crosscheck.evaluator_table import EvaluatorInput, EvaluatorRow
from bench.crosscheck.evaluator_tools import Tool
from bench.crosscheck.evaluators import (
    EvaluatorsResult,
    crosscheck_evaluators,
    letor_input,
    trec_input,
)
from bench.errors import ConfigError, DataError

REPO = Path(__file__).resolve().parents[1]
CASE = EvaluatorInput("case", {"1": {"a": 1, "b": 0}, "2": {"c": 2, "d": 0}},
                      {"1": {"a": 0.9, "b": 0.5}, "2": {"c": 0.2, "d": 0.4}})

FAKES = '''
import math, os

def raises(qrels, run, measures):
    raise RuntimeError("boom inside the tool")

def nan(qrels, run, measures):
    return {m: {q: math.nan for q in run} for _, m in measures}

def text(qrels, run, measures):
    return {m: {q: "0.5" for q in run} for _, m in measures}

def others(qrels, run, measures):
    return {m: {"zzz": 0.5} for _, m in measures}

def refuses(qrels, run, measures):
    return {m: {q: None for q in run} for _, m in measures}

def nothing(qrels, run, measures):
    return {}

def dies(qrels, run, measures):
    os._exit(3)
'''


@pytest.fixture
def fakes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A module of fake tools importable here and in a worker process."""
    (tmp_path / "h23x_fake_tools.py").write_text(FAKES)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    return "h23x_fake_tools"


def _run(fn: str, module: str, isolate: bool) -> tuple[EvaluatorsResult, str]:
    tool = Tool("fake", "json", "pytest", f"{module}:{fn}")
    row = EvaluatorRow("fake", "m", "ndcg@10", "trec_eval")
    result = crosscheck_evaluators([CASE], tools=[tool], rows=[row], isolate=isolate)
    (res,) = result.rows
    render_evaluators(result)
    json.loads(evaluators_json(result))  # NaN never reaches the JSON
    return result, res.status


@pytest.mark.parametrize("isolate", [False, True])
def test_a_tool_that_raises_fails_its_row_with_the_message(fakes: str, isolate: bool) -> None:
    result, status = _run("raises", fakes, isolate)
    assert status == "failed"
    assert "boom inside the tool" in result.rows[0].note
    assert not result.ok


def test_a_tool_that_returns_nan_is_a_disagreement_not_a_crash(fakes: str) -> None:
    result, status = _run("nan", fakes, False)
    assert status == "compared"
    row = result.rows[0]
    assert row.agreeing == 0
    assert row.disagreements
    assert all(d.kind == "defect" for d in row.disagreements)


def test_a_tool_that_returns_text_fails_its_row(fakes: str) -> None:
    result, status = _run("text", fakes, True)
    assert status == "failed"
    assert "not a number" in result.rows[0].note


def test_a_tool_that_answers_for_other_queries_disagrees(fakes: str) -> None:
    result, _ = _run("others", fakes, False)
    row = result.rows[0]
    assert row.agreeing == 0
    assert sum(len(d.queries) for d in row.disagreements) == 3


def test_a_tool_that_refuses_every_query_is_counted_as_refusing(fakes: str) -> None:
    result, status = _run("refuses", fakes, False)
    row = result.rows[0]
    assert status == "compared"
    assert row.refused == 2
    assert not row.disagreements


def test_a_tool_that_returns_no_values_fails_its_row(fakes: str) -> None:
    result, status = _run("nothing", fakes, False)
    assert status == "failed"
    assert "no per-query values" in result.rows[0].note


def test_a_tool_that_kills_its_worker_fails_its_row(fakes: str) -> None:
    result, status = _run("dies", fakes, True)
    assert status == "failed"
    assert "worker process died" in result.rows[0].note


def test_empty_input_list_is_refused() -> None:
    with pytest.raises(DataError, match="nothing to cross-check"):
        crosscheck_evaluators([])


def test_unknown_or_empty_tool_list_is_refused() -> None:
    with pytest.raises(ConfigError, match="valid: pytrec_eval"):
        crosscheck_evaluators(only=["trec_eval"])
    with pytest.raises(ConfigError, match="valid"):
        crosscheck_evaluators(only=[])


def test_missing_and_empty_and_swapped_files(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no such file"):
        trec_input(tmp_path / "none.qrels", tmp_path / "none.run")
    empty = tmp_path / "empty.qrels"
    empty.write_text("")
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 0.5 t\n")
    with pytest.raises(DataError, match="empty qrels"):
        trec_input(empty, run)
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 a 1\n")
    with pytest.raises(DataError, match="swapped"):
        trec_input(run, qrels)


def test_letor_input_refuses_fractional_labels_and_short_scores(tmp_path: Path) -> None:
    data = tmp_path / "d.txt"
    data.write_text("0.5 qid:1 1:0.1\n1 qid:1 1:0.2\n")
    scores = tmp_path / "s.txt"
    scores.write_text("0.1\n0.2\n")
    with pytest.raises(DataError, match="whole number"):
        letor_input(data, scores)
    data.write_text("0 qid:1 1:0.1\n1 qid:1 1:0.2\n")
    scores.write_text("0.1\n")
    with pytest.raises(DataError):
        letor_input(data, scores)
    scores.write_text("0.1\n0.3\n")
    inp = letor_input(data, scores)
    assert inp.qrels == {"1": {"d1": 0, "d2": 1}}
    assert inp.run == {"1": {"d1": 0.1, "d2": 0.3}}


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bench", "crosscheck", *args],
                          capture_output=True, text=True, cwd=REPO, check=False)


@pytest.mark.parametrize(("args", "words"), [
    (("--evaluators", "--qrels", "nowhere.qrels", "--trec-run", "nowhere.run"), "no such file"),
    (("--evaluators", "--qrels", "x"), "missing --trec-run"),
    (("--evaluators", "--scores", "x"), "missing --data"),
    (("--qrels", "x", "--trec-run", "y"), "add --evaluators"),
    (("--evaluators", "--versions", "xgboost==installed"), "one at a time"),
    (("--evaluators", "--dataset", "ohsumed"), "does not use --dataset"),
    (("--evaluators", "--tools", "nope"), "unknown evaluation tool"),
])
def test_cli_bad_input_exits_2_with_one_line(args: tuple[str, ...], words: str) -> None:
    proc = _cli(*args)
    assert proc.returncode == 2, proc.stderr
    assert words in proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_cli_qrels_and_data_together_are_refused(tmp_path: Path) -> None:
    proc = _cli("--evaluators", "--qrels", "a", "--trec-run", "b", "--data", "c", "--scores", "d")
    assert proc.returncode == 2
    assert "not both" in proc.stderr


def test_cli_on_user_trec_files(tmp_path: Path) -> None:
    qrels = tmp_path / "q.txt"
    qrels.write_text(textwrap.dedent("""\
        1 0 a 1
        1 0 b 0
        2 0 c 2
        """))
    run = tmp_path / "r.txt"
    run.write_text("1 Q0 a 1 0.9 t\n1 Q0 b 2 0.5 t\n2 Q0 c 1 0.3 t\n")
    pytest.importorskip("pytrec_eval")
    proc = _cli("--evaluators", "--qrels", str(qrels), "--trec-run", str(run), "--tools",
                "pytrec_eval", "--out", str(tmp_path / "out"), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["inputs"][0]["queries"] == 2
    assert all(r["status"] == "compared" and r["agreeing"] == 2 for r in doc["rows"])
