"""Hostile ``ltrbench report`` cases, third round (issue 19): names that are Markdown, HTML or
LaTeX, tied rows, plot folders that collide or land on the runs folder, ``--out`` inside or
equal to what the report reads. Earlier rounds: ``test_hostile_report.py``,
``test_report_damaged_runs.py``.

Every case states the right behaviour: a name shown as itself (escaped, one table cell, no
HTML), a number never attributed to another row, an output never among the inputs (a clear
error, exit 2, one line). :data:`CLASSES` maps each case to its class for the closing counts.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from test_report_leaderboard import write_run

from bench import cli
from bench.report.latex import tex_escape

FAST = ["--bootstrap", "20", "--permutations", "20", "--no-progress"]

#: case -> class (silently wrong / silent accept / traceback / unclear error / input destroyed)
CLASSES = {
    "test_a_model_name_with_a_pipe_stays_in_one_markdown_cell": "silently wrong",
    "test_html_in_a_model_or_dataset_name_is_shown_as_text": "silent accept",
    "test_a_dataset_name_cannot_close_the_table_comment": "silent accept",
    "test_a_model_name_with_a_newline_stays_on_its_row": "silently wrong",
    "test_backticks_in_a_run_id_do_not_open_a_code_span": "silent accept",
    "test_latex_escapes_every_special_character": "silent accept",
    "test_tied_rows_are_all_bold_and_the_best_row_is_bold": "silently wrong",
    "test_two_datasets_of_one_run_with_one_slug_get_two_plot_folders": "silently wrong",
    "test_a_dataset_named_runs_does_not_write_plots_into_the_runs_folder": "silent accept",
    "test_a_dataset_named_like_a_leaderboard_file_gets_its_own_folder": "unclear error",
    "test_out_inside_a_run_directory_is_refused": "input destroyed",
    "test_out_that_is_a_run_directory_is_refused": "input destroyed",
    "test_out_that_holds_the_run_directories_is_refused": "silent accept",
    "test_a_very_long_dataset_name_gets_a_plot_folder_that_can_be_created": "unclear error",
    "test_an_empty_out_or_runs_is_refused_not_read_as_the_working_directory": "silent accept",
    "test_the_newest_run_is_chosen_by_the_instant_not_the_text_of_its_time": "silently wrong",
    "test_a_finish_time_that_is_not_a_time_is_one_clear_line": "silent accept",
    "test_an_unfinished_run_used_with_include_unfinished_is_not_called_finished":
        "unclear error",
    "test_a_model_name_with_dollars_is_plotted_as_written_not_as_mathtext": "traceback",
}


def _report(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        status = cli.main(["report", *FAST, *argv])
    except SystemExit as exc:  # argparse's usage errors (exit 2, one "error:" line)
        status = int(exc.code or 0)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return status, captured.out, captured.err


def _table_rows(md: str, first_cell: str) -> list[str]:
    return [ln for ln in md.splitlines() if ln.startswith(f"| {first_cell}")]


def _cells(line: str) -> list[str]:
    """The cells of a GFM table row (an escaped ``\\|`` is not a separator)."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


# ------------------------------------------------------------------------------------------
# names shown as themselves
# ------------------------------------------------------------------------------------------


def test_a_model_name_with_a_pipe_stays_in_one_markdown_cell(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: ``| light|gbm | ...`` split the row into one cell too many, every number one
    column to the right of its header."""
    out = tmp_path / "res"
    write_run(out / "runs", "20260101-000000-a", models={"light|gbm": 0.1, "random": -0.2})
    assert _report(["--out", str(out), "--no-plots"], capsys)[0] == 0
    md = (out / "leaderboard.md").read_text()
    header = next(ln for ln in md.splitlines() if ln.startswith("| Model |"))
    row = next(ln for ln in md.splitlines() if ln.startswith("| light"))
    assert len(_cells(row)) == len(_cells(header))
    assert _cells(row)[0] == r"light\|gbm"


def test_html_in_a_model_or_dataset_name_is_shown_as_text(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "res"
    write_run(out / "runs", "20260101-000000-a", dataset="<b>set</b>",
              models={"<script>alert(1)</script>": 0.1, "random": -0.2})
    assert _report(["--out", str(out), "--no-plots"], capsys)[0] == 0
    md = (out / "leaderboard.md").read_text()
    assert "<script>" not in md
    assert "<b>" not in md
    assert "&lt;script>alert(1)&lt;/script>" in md
    assert "## &lt;b>set&lt;/b>" in md


def test_a_dataset_name_cannot_close_the_table_comment(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The ``<!-- ltrbench-table dataset="..." -->`` line: a name holding ``-->`` ended the
    comment early and printed the rest as Markdown."""
    out = tmp_path / "res"
    write_run(out / "runs", "20260101-000000-a", dataset="x --> <img src=y>")
    assert _report(["--out", str(out), "--no-plots"], capsys)[0] == 0
    md = (out / "leaderboard.md").read_text()
    line = next(ln for ln in md.splitlines() if ln.startswith("<!-- ltrbench-table"))
    assert line.count("-->") == 1
    assert line.endswith("-->")
    body = line[len("<!-- ltrbench-table dataset="):].split(" run_id=")[0]
    assert json.loads(body) == "x --> <img src=y>"
    assert "<img" not in md


def test_a_model_name_with_a_newline_stays_on_its_row(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "res"
    write_run(out / "runs", "20260101-000000-a", models={"two\nlines": 0.1, "random": -0.2})
    assert _report(["--out", str(out), "--no-plots"], capsys)[0] == 0
    md = (out / "leaderboard.md").read_text()
    rows = _table_rows(md, "two")
    assert rows, md
    assert all(len(_cells(r)) > 2 for r in rows)
    tex = (out / "leaderboard.tex").read_text()
    assert "two\nlines" not in tex


def test_backticks_in_a_run_id_do_not_open_a_code_span(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "res"
    write_run(out / "runs", "20260101-000000-`a|b`")
    assert _report(["--out", str(out), "--no-plots"], capsys)[0] == 0
    md = (out / "leaderboard.md").read_text()
    run_line = next(ln for ln in md.splitlines() if ln.startswith("Run "))
    assert "`20260101-000000-`a|b``" not in run_line
    assert r"\`a\|b\`" in run_line


def test_latex_escapes_every_special_character() -> None:
    """``<``, ``>`` and ``|`` print as other glyphs in LaTeX's default font encoding (¡, ¿,
    —); a newline ends a table row's text early."""
    assert tex_escape("a<b>c|d") == r"a\textless{}b\textgreater{}c\textbar{}d"
    assert tex_escape("x_y%&$#{}~^\\") == (r"x\_y\%\&\$\#\{\}\textasciitilde{}"
                                            r"\textasciicircum{}\textbackslash{}")
    assert "\n" not in tex_escape("two\nlines\r")


# ------------------------------------------------------------------------------------------
# numbers attributed to the right row
# ------------------------------------------------------------------------------------------


def test_tied_rows_are_all_bold_and_the_best_row_is_bold(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two models with the same values: before, the table named ``a-x`` best and bolded only
    ``b-x`` in every column (the tie broken by the larger name)."""
    out = tmp_path / "res"
    run = write_run(out / "runs", "20260101-000000-a", models={"a-x": 0.0, "b-x": 0.0})
    pq = pd.read_parquet(run / "per_query.parquet")
    pq.loc[pq["model"] == "b-x", "value"] = pq.loc[pq["model"] == "a-x", "value"].to_numpy()
    pq.to_parquet(run / "per_query.parquet")
    m = pd.read_csv(run / "metrics.csv")
    m.loc[m["model"] == "b-x", "value"] = m.loc[m["model"] == "a-x", "value"].to_numpy()
    m.to_csv(run / "metrics.csv", index=False)
    assert _report(["--out", str(out), "--no-plots"], capsys)[0] == 0
    md = (out / "leaderboard.md").read_text()
    for name in ("a-x", "b-x"):
        row = next(ln for ln in md.splitlines() if ln.startswith(f"| {name} |"))
        assert _cells(row)[4].startswith("**"), row  # NDCG@10
    tex = (out / "leaderboard.tex").read_text()
    assert tex.count(r"\mathbf") == 2 * 8


# ------------------------------------------------------------------------------------------
# plot folders
# ------------------------------------------------------------------------------------------


def _two_dataset_run(root: Path, run_id: str, names: tuple[str, str]) -> Path:
    """One run holding two datasets (a run of ``a/OHSUMED`` and ``b/OHSUMED``)."""
    first = write_run(root / "tmp1", run_id, dataset=names[0])
    second = write_run(root / "tmp2", run_id, dataset=names[1])
    for name in ("metrics.csv", "timings.csv"):
        pd.concat([pd.read_csv(first / name), pd.read_csv(second / name)]).to_csv(
            first / name, index=False)
    pd.concat([pd.read_parquet(first / "per_query.parquet"),
               pd.read_parquet(second / "per_query.parquet")]).to_parquet(
        first / "per_query.parquet")
    target = root / "res" / "runs" / run_id
    target.parent.mkdir(parents=True)
    first.rename(target)
    return target


def test_two_datasets_of_one_run_with_one_slug_get_two_plot_folders(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: both tables wrote ``OHSUMED@<run>/`` and the second's plots replaced the
    first's without a word."""
    _two_dataset_run(tmp_path, "20260101-000000-a", ("/a/OHSUMED", "/b/OHSUMED"))
    out = tmp_path / "res"
    status, _, err = _report(["--out", str(out)], capsys)
    assert status == 0, err
    folders = sorted(p.parent.name for p in out.glob("*/ndcg_at_k.png"))
    assert len(folders) == 2, folders
    assert len(set(folders)) == 2, folders


def test_a_dataset_named_runs_does_not_write_plots_into_the_runs_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "res"
    write_run(out / "runs", "20260101-000000-a", dataset="runs")
    status, _, err = _report(["--out", str(out)], capsys)
    assert status == 0, err
    assert not (out / "runs" / "ndcg_at_k.png").exists()
    assert len(list(out.glob("*/ndcg_at_k.png"))) == 1


def test_a_dataset_named_like_a_leaderboard_file_gets_its_own_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "res"
    write_run(out / "runs", "20260101-000000-a", dataset="leaderboard.md")
    status, _, err = _report(["--out", str(out)], capsys)
    assert status == 0, err
    assert (out / "leaderboard.md").is_file()
    assert len(list(out.glob("*/ndcg_at_k.png"))) == 1


# ------------------------------------------------------------------------------------------
# --out among the inputs
# ------------------------------------------------------------------------------------------


def test_out_inside_a_run_directory_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "res"
    run = write_run(root / "runs", "20260101-000000-a")
    before = sorted(p.name for p in run.iterdir())
    status, _, err = _report(["--out", str(run / "report"), "--runs", str(root / "runs")], capsys)
    assert status == 2
    assert "--out" in err
    assert "20260101-000000-a" in err
    assert sorted(p.name for p in run.iterdir()) == before


def test_out_that_is_a_run_directory_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "res"
    run = write_run(root / "runs", "20260101-000000-a")
    before = sorted(p.name for p in run.iterdir())
    status, _, err = _report(["--out", str(run), "--runs", str(run)], capsys)
    assert status == 2
    assert "--out" in err
    assert "20260101-000000-a" in err
    assert sorted(p.name for p in run.iterdir()) == before


def test_out_that_holds_the_run_directories_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--out results/local/runs --runs results/local/runs``: the leaderboard files and plot
    folders would sit among the run directories."""
    runs = tmp_path / "res" / "runs"
    write_run(runs, "20260101-000000-a")
    status, _, err = _report(["--out", str(runs), "--runs", str(runs)], capsys)
    assert status == 2
    assert "--out" in err
    assert "run director" in err
    assert not (runs / "leaderboard.md").exists()


def test_a_very_long_dataset_name_gets_a_plot_folder_that_can_be_created(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: ``error: ...dddd...: File name too long`` (exit 2, the reason not said)."""
    out = tmp_path / "res"
    write_run(out / "runs", "20260101-000000-a", dataset="d" * 300,
              models={"m" * 500: 0.1, "random": 0.0})
    status, _, err = _report(["--out", str(out)], capsys)
    assert status == 0, err
    (folder,) = [p.parent for p in out.glob("*/ndcg_at_k.png")]
    assert len(folder.name) <= 100


@pytest.mark.parametrize("option", ["--out", "--runs"])
def test_an_empty_out_or_runs_is_refused_not_read_as_the_working_directory(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        option: str) -> None:
    """``--out ''`` wrote the report into the working directory, ``--runs ''`` read it."""
    out = tmp_path / "res"
    write_run(out / "runs", "20260101-000000-a")
    monkeypatch.chdir(out)
    argv = ["--runs", str(out / "runs"), "--out", ""] if option == "--out" else [
        "--out", str(out), "--runs", ""]
    status, _, err = _report([*argv, "--no-plots"], capsys)
    assert status == 2
    assert f"{option}: an empty value" in err
    assert not (out / "leaderboard.md").exists()


# ------------------------------------------------------------------------------------------
# which run is newest: instants, not text
# ------------------------------------------------------------------------------------------


def test_the_newest_run_is_chosen_by_the_instant_not_the_text_of_its_time(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``2026-01-02T00:00:00+05:00`` is 2026-01-01 19:00 UTC, an hour before the other run;
    before, the text comparison used it as the newest."""
    out = tmp_path / "res"
    write_run(out / "runs", "20260101-000000-east", finished="2026-01-02T00:00:00+05:00")
    write_run(out / "runs", "20260101-000000-west", finished="2026-01-01T20:00:00+00:00",
              models={"random": 0.0})
    status, _, err = _report(["--out", str(out), "--no-plots"], capsys)
    assert status == 0, err
    assert "using 20260101-000000-west" in err


def test_a_finish_time_that_is_not_a_time_is_one_clear_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "res"
    write_run(out / "runs", "20260101-000000-a", finished="yesterday")
    write_run(out / "runs", "20260101-000000-b")
    status, _, err = _report(["--out", str(out), "--no-plots"], capsys)
    assert status == 2
    assert "manifest.json" in err
    assert "'yesterday'" in err


def test_an_unfinished_run_used_with_include_unfinished_is_not_called_finished(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: ``using <run> (newest finished run, dated ...)`` for a run that never finished."""
    out = tmp_path / "res"
    run = write_run(out / "runs", "20260101-000000-a")
    (run / "manifest.json").write_text(json.dumps(
        {"finished": None, "started": "2026-01-01T00:00:00+00:00", "seeds": [0, 1, 2]}))
    status, _, err = _report(["--out", str(out), "--no-plots", "--include-unfinished"], capsys)
    assert status == 0, err
    line = next(ln for ln in err.splitlines() if "using 20260101-000000-a" in ln)
    assert "finished run" not in line
    assert "unfinished" in line
    assert "started 2026-01-01" in line


def test_a_model_name_with_dollars_is_plotted_as_written_not_as_mathtext(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: ``m$\\frac{$x`` as a legend label was parsed as Matplotlib mathtext: ValueError
    (a traceback), and ``a$b$c`` drawn as an italic b."""
    out = tmp_path / "res"
    write_run(out / "runs", "20260101-000000-a",
              models={"m$\\frac{$x": 0.1, "a$b$c": 0.0, "random": -0.1})
    status, _, err = _report(["--out", str(out)], capsys)
    assert status == 0, err
    assert (out / "toy_set" / "ndcg_at_k.png").is_file()
    assert (out / "toy_set" / "quality_vs_fit_time.png").is_file()
