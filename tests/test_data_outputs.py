"""Outputs never clobber inputs, and an output path that cannot be written is exit 2, not a traceback."""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path

import pytest

from bench import cli, examples
from bench.data.outputs import check_output_dir, check_output_file, same_file
from bench.errors import ConfigError

QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 1\n"
RUN = "1 Q0 a 1 0.5 x\n1 Q0 b 2 0.4 x\n2 Q0 c 1 0.9 x\n"


def _trec(tmp_path: Path) -> tuple[Path, Path]:
    q, r = tmp_path / "q.txt", tmp_path / "r.txt"
    q.write_text(QRELS)
    r.write_text(RUN)
    return q, r


def _run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = cli.main(argv)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return status, err


def test_per_query_equal_to_the_data_file_is_refused_and_the_data_kept(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "d.txt"
    data.write_bytes(examples.DATA.read_bytes())
    status, err = _run_cli(["evaluate", "--data", str(data), "--scores", str(examples.SCORES),
                            "--per-query", str(data)], capsys)
    assert status == 2
    assert f"error: --per-query {str(data)!r} is the input --data" in err
    assert data.read_bytes() == examples.DATA.read_bytes()


def test_per_query_that_is_a_hard_link_or_symlink_of_an_input_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    q, r = _trec(tmp_path)
    hard = tmp_path / "hard.csv"
    os.link(r, hard)
    soft = tmp_path / "soft.csv"
    soft.symlink_to(q)
    for out, name in ((hard, "--run"), (soft, "--qrels")):
        status, err = _run_cli(["evaluate", "--qrels", str(q), "--run", str(r), "--per-query",
                                str(out)], capsys)
        assert status == 2
        assert f"is the same file as the input {name}" in err
    assert r.read_text() == RUN
    assert q.read_text() == QRELS


def test_per_query_naming_a_directory_or_a_path_under_a_file_is_a_clear_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    q, r = _trec(tmp_path)
    status, err = _run_cli(["evaluate", "--qrels", str(q), "--run", str(r), "--per-query",
                            str(tmp_path)], capsys)
    assert status == 2
    assert "is a directory: expected a file name" in err
    status, err = _run_cli(["evaluate", "--qrels", str(q), "--run", str(r), "--per-query",
                            str(q / "pq.csv")], capsys)
    assert status == 2
    assert f"{str(q)!r} is a file, not a folder" in err


def test_per_query_over_an_existing_output_file_replaces_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    q, r = _trec(tmp_path)
    out = tmp_path / "pq.csv"
    out.write_text("old\n")
    status, _ = _run_cli(["evaluate", "--qrels", str(q), "--run", str(r), "--metrics", "ndcg@10",
                          "--per-query", str(out), "--format", "csv"], capsys)
    assert status == 0
    # query 1: the relevant 'a' ranked first; query 2: 'c' alone -> ndcg@10 = 1 for both
    assert out.read_text().splitlines() == ["qid,ndcg@10", "1,1.0", "2,1.0"]


def test_report_out_that_is_a_file_is_refused(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "results"
    f.write_text("not a folder\n")
    status, err = _run_cli(["report", "--out", str(f)], capsys)
    assert status == 2
    assert f"error: --out {str(f)!r} is an existing file: expected a folder" in err


def test_output_checks_in_python_name_the_option_and_the_input(tmp_path: Path) -> None:
    inp = tmp_path / "in.txt"
    inp.write_text("x\n")
    with pytest.raises(ConfigError, match=r"^--x '.*in\.txt' is the input --in '.*in\.txt'"):
        check_output_file(inp, option="--x", inputs=[("--in", inp), ("--none", None)])
    assert same_file(inp, inp)
    assert not same_file(inp, tmp_path / "missing")
    assert check_output_file(tmp_path / "new" / "f.csv", option="--x") == tmp_path / "new" / "f.csv"
    assert check_output_dir(tmp_path / "a" / "b", option="--out") == tmp_path / "a" / "b"
    with pytest.raises(ConfigError, match=r"--out '.*in\.txt' is the input --config"):
        check_output_dir(inp, option="--out", inputs=[("--config", inp)])


def test_an_os_error_reaching_the_cli_is_one_line_with_the_path_and_exit_2(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from bench.commands import report

    def full_disk(args: object) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "/results/leaderboard.md")

    monkeypatch.setattr(report, "run", full_disk)
    status, err = _run_cli(["report"], capsys)
    assert status == 2
    # /results does not exist here: the free space of the nearest existing folder (/) is given
    assert re.match(r"error: /results/leaderboard\.md: No space left on device \([\d,]+ MB free "
                    r"on that file system; free some space", err)


def test_a_reader_that_stops_early_ends_the_command_quietly(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``ltrbench ... --format json | head``: the pipe breaks while ltrbench writes; that is
    the reader's choice, not an error: status 0 (as ``head`` users expect), nothing on stderr."""
    from bench.commands import report

    def broken(args: object) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(report, "run", broken)
    monkeypatch.setattr(os, "dup2", lambda *a: None)  # keep pytest's captured stdout
    status, err = _run_cli(["report"], capsys)
    assert status == 0
    assert err == ""


def test_help_texts_show_no_docstring_markup() -> None:
    """``ltrbench run --help`` printed ``results/runs/<run-id>/`` with its rST quotes."""
    import argparse

    texts: list[str] = []

    def walk(parser: argparse.ArgumentParser) -> None:
        texts.append(parser.format_help())
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    walk(sub)

    walk(cli.build_parser())
    assert len(texts) > 10
    assert [t.splitlines()[0] for t in texts if "``" in t or ":mod:`" in t or ":func:`" in t] == []


def test_every_command_shows_examples_that_the_parser_accepts() -> None:
    """Each command's --help ends with example command lines; every one parses to that
    command (argparse exits on an unknown option or a missing argument)."""
    import argparse
    import shlex

    root = cli.build_parser()
    leaves: list[tuple[list[str], argparse.ArgumentParser]] = []

    def walk(parser: argparse.ArgumentParser, path: list[str]) -> None:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs and path:
            leaves.append((path, parser))
        for action in subs:
            for name, sub in action.choices.items():
                walk(sub, [*path, name])

    walk(root, [])
    assert len(leaves) >= 20  # run, evaluate, ..., datasets list/info/fetch/verify, perf *
    missing = [" ".join(p) for p, parser in leaves if "examples:" not in (parser.epilog or "")]
    assert missing == []
    for path, parser in leaves:
        lines = [ln.strip() for ln in (parser.epilog or "").splitlines()[1:] if ln.strip()]
        assert lines, path
        argvs = [shlex.split(line) for line in lines]
        assert any(a[1:1 + len(path)] == path for a in argvs), (path, lines)  # shows itself
        for argv in argvs:
            assert argv[0] == "ltrbench"
            assert callable(root.parse_args(argv[1:]).func)
