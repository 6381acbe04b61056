"""Hostile ``ltrbench perf`` options (issue 19): every count, size and list is checked when the
command line is parsed, before any data are generated, and ``--out`` is never an input.

Before: ``perf runners --rows 0`` / ``--rows -5`` / ``--repeat 0``, ``perf loader --rows 0``,
``perf evaluator --queries 0`` and ``--docs-per-query 0`` ran (a default, or nothing) and
exited 0; ``perf dask --workers 0`` raised ZeroDivisionError, ``--workers x`` ValueError,
``perf evaluator --queries -1`` NumPy's ValueError, ``perf runners --trees 0`` and
``--threads -1`` a CalledProcessError of the child process; ``--libraries nolib`` was accepted.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from bench import cli

#: (argv after ``perf``, words of the error, class before)
CASES = [
    (["runners", "--rows", "0"], ("--rows", "from 1"), "silent accept"),
    (["runners", "--rows", "-5"], ("--rows", "'-5'"), "silent accept"),
    (["runners", "--rows", "99999999999999999999"], ("--rows",), "silent accept"),
    (["runners", "--repeat", "0"], ("--repeat",), "silent accept"),
    (["runners", "--trees", "0"], ("--trees",), "traceback"),
    (["runners", "--threads", "-1"], ("--threads",), "traceback"),
    (["runners", "--libraries", "nolib"], ("--libraries", "nolib", "lightgbm"), "silent accept"),
    (["runners", "--libraries", "lightgbm,lightgbm"], ("--libraries", "twice"), "silent accept"),
    (["loader", "--rows", "0"], ("--rows",), "silent accept"),
    (["loader", "--repeat", "0"], ("--repeat",), "silent accept"),
    (["dask", "--workers", "0"], ("--workers",), "traceback"),
    (["dask", "--workers", "x"], ("--workers", "'x'"), "traceback"),
    (["dask", "--workers", "1,,2"], ("--workers",), "silent accept"),
    (["evaluator", "--queries", "0"], ("--queries",), "silent accept"),
    (["evaluator", "--queries", "-1"], ("--queries",), "traceback"),
    (["evaluator", "--docs-per-query", "0"], ("--docs-per-query",), "silent accept"),
    (["evaluator", "--repeat", "0"], ("--repeat",), "silent accept"),
    (["adapters", "--ratings", "0"], ("--ratings",), "silent accept"),
    (["dask-convert", "--workers", "0"], ("--workers",), "silent accept"),
    (["dask-convert", "--trees", "-1"], ("--trees", "from 0"), "silent accept"),
    (["gpu", "--rows", "0"], ("--rows",), "silent accept"),
    (["startup", "--repeat", "0"], ("--repeat",), "silent accept"),
    (["scale", "--n-trees", "0"], ("--n-trees",), "silent accept"),
    (["scale", "--limit-gb", "nan"], ("--limit-gb",), "silent accept"),
    (["scale", "--limit-gb", "-1"], ("--limit-gb",), "silent accept"),
    (["evaluator", "--seed", "-1"], ("--seed",), "traceback"),
]


@pytest.fixture
def no_benchmark(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any benchmark that starts is a failure: every case must be refused before."""
    from bench.commands.perf import _BENCHMARKS

    def refuse(_args: object) -> int:
        raise AssertionError("the benchmark started")

    for module_name, _ in _BENCHMARKS.values():
        monkeypatch.setattr(importlib.import_module(module_name), "run", refuse)


@pytest.mark.parametrize(("argv", "words", "klass"), CASES,
                         ids=[" ".join(c[0]) for c in CASES])
def test_a_perf_option_out_of_range_is_refused_before_any_work(
        no_benchmark: None, capsys: pytest.CaptureFixture[str], argv: list[str],
        words: tuple[str, ...], klass: str) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(["perf", *argv])
    err = capsys.readouterr().err
    assert info.value.code == 2
    line = err.strip().splitlines()[-1]
    assert "error: argument" in line
    for w in words:
        assert w in line, (w, line)


def test_perf_out_over_an_input_is_refused(no_benchmark: None, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """``perf startup --qrels q.txt --out q.txt`` would replace the qrels with the table."""
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 d1 1\n")
    status = cli.main(["perf", "startup", "--qrels", str(qrels), "--run", str(qrels),
                       "--out", str(qrels)])
    assert status == 2
    assert "--out" in capsys.readouterr().err
    assert qrels.read_text() == "1 0 d1 1\n"


def test_the_documented_perf_examples_still_parse() -> None:
    from bench.commands.perf import _EXAMPLES

    parser = cli.build_parser()
    for lines in _EXAMPLES.values():
        for line in lines:
            parser.parse_args(line.split()[1:])
