"""Round 7 of the hostile catalogue: ``ltrbench crosscheck --evaluators`` on the user's own data
(issue 23's command, never attacked before).

1. **ir_measures' ranx provider failed on every input**: under pandas 3 a text column is ``str``,
   ranx 0.3.21's ``Qrels.from_df`` asserts ``dtype == object``, so each of the 8
   ``ir_measures[ranx]`` rows was ``failed`` (the command exited 1 on any user file, the
   committed ``results/definitions/evaluators.md`` says so) and nothing compared them. Now the
   provider is called with pandas' object columns and its rows agree per query, or fail for a
   reason of the tool's own (a qrels query without a run line: ranx's "Qrels and Run query ids
   do not match", which ir_measures does not avoid).
2. **A tool asked for by name that is not installed**: ``--tools torchmetrics`` without
   torchmetrics printed a table of ``skipped`` rows and exited 0, as if the check had passed.
   Now the command refuses (exit 2, one line naming the tool and how to install it).
3. **An output that cannot be written**: ``<out>/definitions/evaluators.json`` a folder failed
   after every tool had run, naming a temporary file (``.set-.../evaluators.json -> ...: Is a
   directory``); a link there to the user's qrels was replaced in silence. Both are refused now
   before the first tool runs, by the rules every output of ltrbench follows
   (:func:`bench.data.outputs.check_output_file`).
4. Guards on the user's data (each kept right): a qrels file of CR-only line ends, query ids
   beyond 2^64, one query, a qrels without a relevant document, NaN scores (refused naming the
   line), an output folder that holds an input (refused before any work).

:data:`CLASSES` maps each test to its class for the closing counts.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile_kit import cli, refused

from bench.crosscheck.evaluator_table import EvaluatorRow
from bench.crosscheck.evaluator_tools import Tool, ir_measures_values
from bench.crosscheck.evaluators import crosscheck_evaluators
from bench.errors import ConfigError

CLASSES = {
    "test_ir_measures_ranx_provider_gives_values_under_pandas_3": "unclear error",
    "test_ir_measures_ranx_rows_agree_on_a_user_run": "unclear error",
    "test_a_tool_named_but_not_installed_is_refused": "silent accept",
    "test_a_tool_named_but_not_installed_is_one_line_on_the_command_line": "silent accept",
    "test_hostile_user_files_agree_or_are_refused": "traceback",
    "test_an_output_folder_holding_an_input_is_refused_before_any_work": "input destroyed",
    "test_an_output_file_that_cannot_be_written_is_refused_before_any_work": "unclear error",
}

QRELS = "1 0 d1 2\n1 0 d2 0\n1 0 d3 1\n2 0 e1 1\n2 0 e2 0\n"
RUN = ("1 Q0 d1 1 3.0 r\n1 Q0 d2 2 2.0 r\n1 Q0 d3 3 1.0 r\n1 Q0 dX 4 0.5 r\n"
       "2 Q0 e2 1 2.0 r\n2 Q0 e1 2 1.0 r\n")


def test_ir_measures_ranx_provider_gives_values_under_pandas_3() -> None:
    pytest.importorskip("ir_measures")
    pytest.importorskip("ranx")
    values = ir_measures_values({"1": {"d1": 1, "d2": 0}}, {"1": {"d1": 1.0, "d2": 2.0}},
                                [("ranx", "nDCG@10"), ("ranx", "RR")])
    # d2 (not relevant) first, d1 second: nDCG = (1 / log2 3) / 1, RR = 1/2
    assert values["ranx:nDCG@10"]["1"] == pytest.approx(0.6309297535714575, abs=1e-12)
    assert values["ranx:RR"]["1"] == 0.5


def test_ir_measures_ranx_rows_agree_on_a_user_run(tmp_path: Path) -> None:
    pytest.importorskip("ir_measures")
    pytest.importorskip("ranx")
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r.txt").write_text(RUN)
    res = cli(tmp_path, "crosscheck", "--evaluators", "--qrels", "q.txt", "--trec-run", "r.txt",
              "--tools", "ir_measures", "--out", "out")
    assert res.status == 0, res.err[-2000:]
    ranx_rows = [ln for ln in res.out.splitlines() if ln.startswith("| ir_measures[ranx]")]
    assert len(ranx_rows) == 8, ranx_rows
    assert all(ln.endswith("| agrees |") for ln in ranx_rows), ranx_rows


def _absent_tool() -> Tool:
    return Tool("absent", "h19a_no_such_module_anywhere", "h19a-no-such-dist",
                "bench.crosscheck.evaluator_tools:pytrec_eval_values", "pip install absent")


def test_a_tool_named_but_not_installed_is_refused() -> None:
    row = EvaluatorRow("absent", "ndcg", "ndcg", "trec_eval")
    with pytest.raises(ConfigError, match=r"absent \(pip install absent\)"):
        crosscheck_evaluators(tools=[_absent_tool()], rows=[row], only=["absent"])
    # not named: its rows are skipped with the reason, as before
    result = crosscheck_evaluators(tools=[_absent_tool()], rows=[row])
    assert [r.status for r in result.rows] == ["skipped"]
    assert "not installed" in result.rows[0].note


def test_a_tool_named_but_not_installed_is_one_line_on_the_command_line(tmp_path: Path) -> None:
    missing = next((name for name, module in (("torchmetrics", "torchmetrics"),
                                               ("tf-ranking", "tensorflow_ranking"),
                                               ("allrank", "allrank"))
                    if not _importable(module)), None)
    if missing is None:
        pytest.skip("every optional evaluation tool is installed here")
    res = cli(tmp_path, "crosscheck", "--evaluators", "--tools", f"pytrec_eval,{missing}",
              "--out", "out")
    assert refused(res, missing, "not installed") is None, res
    assert not (tmp_path / "out").exists()


def _importable(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


HOSTILE = {  # name: (qrels bytes, run bytes, expected: "ok" or words of the error)
    "CR-only line ends": (b"1 0 d1 1\r1 0 d2 0\r", b"1 Q0 d1 1 1.0 r\r1 Q0 d2 2 0.5 r\r", "ok"),
    "query ids beyond 2^64": (b"99999999999999999999999 0 d1 1\n99999999999999999999999 0 d2 0\n",
                              b"99999999999999999999999 Q0 d1 1 1.0 r\n"
                              b"99999999999999999999999 Q0 d2 2 2.0 r\n", "ok"),
    "one query, one document": (b"1 0 d1 1\n", b"1 Q0 d1 1 1.0 r\n", "ok"),
    "NaN score": (b"1 0 d1 1\n", b"1 Q0 d1 1 nan r\n", "r.txt:1"),
    "empty run": (b"1 0 d1 1\n", b"", "empty run file"),
    "swapped files": (b"1 Q0 d1 1 1.0 r\n", b"1 0 d1 1\n", "q.txt:1"),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_user_files_agree_or_are_refused(case: str, tmp_path: Path) -> None:
    qrels, run, expected = HOSTILE[case]
    (tmp_path / "q.txt").write_bytes(qrels)
    (tmp_path / "r.txt").write_bytes(run)
    res = cli(tmp_path, "crosscheck", "--evaluators", "--qrels", "q.txt", "--trec-run", "r.txt",
              "--tools", "pytrec_eval", "--out", "out")
    if expected == "ok":
        assert res.status == 0, (case, res.err[-1500:])
        assert "| pytrec_eval |" in res.out
        assert "with a convention difference: 0, with a defect: 0, failed: 0" in res.out
    else:
        assert refused(res, expected) is None, (case, res)


def test_an_output_folder_holding_an_input_is_refused_before_any_work(tmp_path: Path) -> None:
    (tmp_path / "out" / "definitions").mkdir(parents=True)
    (tmp_path / "out" / "definitions" / "evaluators.md").write_text(QRELS)
    (tmp_path / "r.txt").write_text(RUN)
    res = cli(tmp_path, "crosscheck", "--evaluators", "--qrels", "out/definitions/evaluators.md",
              "--trec-run", "r.txt", "--tools", "pytrec_eval", "--out", "out")
    assert refused(res, "destroy the input") is None, res
    assert (tmp_path / "out" / "definitions" / "evaluators.md").read_text() == QRELS


@pytest.mark.parametrize("shape", ["folder", "link to an input"])
def test_an_output_file_that_cannot_be_written_is_refused_before_any_work(tmp_path: Path,
                                                                          shape: str) -> None:
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r.txt").write_text(RUN)
    target = tmp_path / "out" / "definitions" / "evaluators.json"
    target.parent.mkdir(parents=True)
    if shape == "folder":
        target.mkdir()
        words: tuple[str, ...] = ("evaluators.json is a folder",)
    else:
        target.symlink_to(tmp_path / "q.txt")
        words = ("evaluators.json", "the input --qrels")
    res = cli(tmp_path, "crosscheck", "--evaluators", "--qrels", "q.txt", "--trec-run", "r.txt",
              "--tools", "pytrec_eval", "--out", "out")
    assert refused(res, *words) is None, res
    assert "pytrec_eval" not in res.err  # before the first tool ran
    assert (tmp_path / "q.txt").read_text() == QRELS
