"""Hostile cases, round 5 (issue 19): the report's outputs and damaged runs.

* ``leaderboard.csv``: a model or dataset name that starts like a formula (``=``, ``+``, ``-``,
  ``@``, tab, carriage return) is not run by a spreadsheet (OWASP "CSV Injection": a leading
  ``'``); numbers keep their sign; ``leaderboard.json`` keeps every name as written.
* ``leaderboard.tex``: LaTeX ligatures (``--``, ``''``) do not turn a name into another, ``"``
  prints as itself, every table has its own ``\\label`` (two non-ASCII dataset names, two runs of
  one dataset under ``--all``), and a name beyond Latin-1 says which engine compiles the file.
* :func:`bench.runs.naming.dataset_slug`: two names never share a folder silently, and a long
  name still makes a run folder that can be created.
* Damaged runs: a header with a column twice, ``metrics.csv`` or ``manifest.json`` that is a
  folder or FIFO, a manifest nested too deep or empty (``{}``), a seed beyond int64, a run that a
  process is writing now: each one line naming the file (exit 2), never a table or a traceback.

:data:`CLASSES` maps each case to its class for the closing counts.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from pathlib import Path

import pandas as pd
import pytest
from test_report_leaderboard import write_run

from bench import cli
from bench.report.latex import tex_escape
from bench.runs.lock import writer_lock
from bench.runs.naming import dataset_slug, new_run_dir

FAST = ["--bootstrap", "20", "--permutations", "20", "--no-progress"]

CLASSES = {
    "test_csv_cells_that_start_a_formula_are_neutralised": "silent accept",
    "test_json_keeps_the_names_the_csv_neutralises": "silently wrong",
    "test_latex_ligatures_do_not_change_a_name": "silently wrong",
    "test_latex_double_quote_prints_as_itself": "silently wrong",
    "test_two_non_ascii_datasets_get_two_latex_labels": "silently wrong",
    "test_two_tables_of_one_dataset_get_two_latex_labels": "silently wrong",
    "test_a_name_beyond_latin1_says_which_engine_compiles_the_tex": "unclear error",
    "test_two_dataset_names_never_share_a_slug": "silently wrong",
    "test_a_plain_name_keeps_its_slug": "silently wrong",
    "test_a_very_long_dataset_name_makes_a_run_folder": "traceback",
    "test_two_non_ascii_datasets_get_plot_folders_named_apart": "silently wrong",
    "test_a_header_with_a_column_twice_is_named": "unclear error",
    "test_a_metrics_table_that_is_not_a_file_is_named": "unclear error",
    "test_a_manifest_that_is_not_a_file_is_named_not_ignored": "silent accept",
    "test_a_manifest_nested_too_deep_is_one_clear_line": "traceback",
    "test_an_empty_manifest_is_an_unfinished_run": "silent accept",
    "test_a_seed_beyond_int64_is_named_as_written": "unclear error",
    "test_a_run_being_written_is_refused_naming_the_writer": "silent accept",
    "test_a_glyph_the_plot_font_lacks_is_one_warning_per_plot": "unclear error",
    "test_names_printed_by_report_cannot_drive_the_terminal": "silent accept",
    "test_a_plot_folder_that_is_a_link_is_refused": "input destroyed",
    "test_a_plot_folder_that_is_a_file_is_refused": "unclear error",
    "test_bidi_overrides_in_names_do_not_reach_the_documents": "silent accept",
}


def _report(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = cli.main(["report", *FAST, *argv])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return status, captured.out, captured.err


def _relabel(run: Path) -> None:
    """Give models whose name has no library prefix (``-3``) the library ``custom``."""
    for name in ("metrics.csv", "timings.csv"):
        frame = pd.read_csv(run / name, keep_default_na=False, dtype=str)
        frame.loc[frame["library"].str.strip() == "", "library"] = "custom"
        frame.to_csv(run / name, index=False)


FORMULA_MODELS = {'=HYPERLINK("http://x","y")': 0.1, "+1+2": 0.0, "@SUM(A1)": -0.05,
                  "-3": 0.02, "\tcmd": 0.01}
FORMULA_DATASET = "=cmd|' /C calc'!A0"


@pytest.fixture
def formula_board(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    out = tmp_path / "res"
    run = write_run(out / "runs", "20260101-000000-a", dataset=FORMULA_DATASET,
                    models=FORMULA_MODELS)
    _relabel(run)
    status, _, err = _report(["--out", str(out), "--no-plots"], capsys)
    assert status == 0, err
    return out


# ------------------------------------------------------------------------------------------
# leaderboard.csv
# ------------------------------------------------------------------------------------------


def test_csv_cells_that_start_a_formula_are_neutralised(formula_board: Path) -> None:
    """OWASP: a cell starting with = + - @ tab CR is a formula in Excel / LibreOffice."""
    rows = list(csv.DictReader(io.StringIO((formula_board / "leaderboard.csv").read_text())))
    assert len(rows) == len(FORMULA_MODELS)
    for row in rows:
        for col in ("dataset", "model", "library"):
            assert not row[col].startswith(("=", "+", "-", "@", "\t", "\r")), (col, row[col])
    assert {r["model"] for r in rows} == {"'" + m for m in FORMULA_MODELS}
    assert {r["dataset"] for r in rows} == {"'" + FORMULA_DATASET}
    # numbers are not names: a number column keeps its value (and its sign when negative)
    assert all(float(r["ndcg@10_mean"]) > 0 for r in rows)


def test_json_keeps_the_names_the_csv_neutralises(formula_board: Path) -> None:
    doc = json.loads((formula_board / "leaderboard.json").read_text())
    assert {r["model"] for t in doc["tables"] for r in t["rows"]} == set(FORMULA_MODELS)
    assert doc["tables"][0]["dataset"] == FORMULA_DATASET


# ------------------------------------------------------------------------------------------
# leaderboard.tex
# ------------------------------------------------------------------------------------------


def test_latex_ligatures_do_not_change_a_name() -> None:
    """``--`` prints an en dash, ``''`` a closing quote, ``!``` an inverted mark: a name with
    them printed as another name."""
    assert tex_escape("lgbm--v2") == "lgbm-{}-v2"
    assert tex_escape("a---b") == "a-{}-{}-b"
    assert tex_escape("it''s") == "it'{}'s"
    assert tex_escape("``q") == r"\textasciigrave{}\textasciigrave{}q"  # each prints a `
    assert tex_escape("wow!`") == r"wow!\textasciigrave{}"
    assert tex_escape("lightgbm-lambdarank") == "lightgbm-lambdarank"


def test_latex_double_quote_prints_as_itself() -> None:
    """In the default OT1 encoding ``"`` prints a closing double quote."""
    assert tex_escape('a"b') == r"a\textquotedbl{}b"


def _labels(tex: str) -> list[str]:
    return re.findall(r"\\label\{([^}]*)\}", tex)


def test_two_non_ascii_datasets_get_two_latex_labels(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Before: both were ``tab:ltrbench-dataset`` (LaTeX: "multiply defined"; every ``\\ref``
    to the first table pointed at the second)."""
    out = tmp_path / "res"
    write_run(out / "runs", "20260101-000000-a", dataset="データ")
    write_run(out / "runs", "20260101-000000-b", dataset="数据集")
    status, _, err = _report(["--out", str(out), "--no-plots"], capsys)
    assert status == 0, err
    labels = _labels((out / "leaderboard.tex").read_text())
    assert len(labels) == 2, labels
    assert len(set(labels)) == 2, labels


def test_two_tables_of_one_dataset_get_two_latex_labels(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "res"
    write_run(out / "runs", "20260101-000000-a")
    write_run(out / "runs", "20260102-000000-b", finished="2026-01-02T00:00:00+00:00")
    status, _, err = _report(["--out", str(out), "--no-plots", "--all"], capsys)
    assert status == 0, err
    labels = _labels((out / "leaderboard.tex").read_text())
    assert len(labels) == 2, labels
    assert len(set(labels)) == 2, labels


def test_a_name_beyond_latin1_says_which_engine_compiles_the_tex(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """pdfLaTeX stops at 数 ("Unicode character not set up for use with LaTeX"): the file says
    so and which engines print it; a Latin-1 name (``é``) needs no note."""
    out = tmp_path / "res"
    write_run(out / "runs", "20260101-000000-a", dataset="données",
              models={"lightgbm-lambdarank": 0.1, "数据": 0.0})
    status, _, err = _report(["--out", str(out), "--no-plots"], capsys)
    assert status == 0, err
    head = (out / "leaderboard.tex").read_text().splitlines()[:3]
    note = [ln for ln in head if "XeLaTeX" in ln]
    assert note, head
    assert note[0].startswith("%"), head
    assert "数" in note[0], head
    assert "é" not in note[0], head
    write_run(out / "runs", "20260102-000000-b", dataset="données", models={"a-b": 0.1},
              finished="2026-01-02T00:00:00+00:00")
    status, _, err = _report(["--out", str(out), "--no-plots"], capsys)
    assert status == 0, err
    assert "XeLaTeX" not in (out / "leaderboard.tex").read_text()


# ------------------------------------------------------------------------------------------
# dataset slugs
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("a", "b"), [
    ("データ", "数据集"), ("a b", "a-b"), ("données", "donnees"), ("x?y", "x-y"),
    ("", "dataset-" + "0" * 8), ("..", "dataset"),
])
def test_two_dataset_names_never_share_a_slug(a: str, b: str) -> None:
    """Before: ``データ`` and ``数据集`` were both ``dataset``: ``crosscheck`` wrote both reports
    into ``dataset/``, and ``--dataset データ`` matched a run of ``数据集``."""
    assert dataset_slug(a) != dataset_slug(b)
    for name in (a, b):
        assert re.fullmatch(r"[A-Za-z0-9._-]+", dataset_slug(name)), name


@pytest.mark.parametrize(("name", "slug"), [
    ("/data/letor/OHSUMED/", "OHSUMED"), ("ml-latest-small", "ml-latest-small"),
    ("MQ2008", "MQ2008"), ("synthetic", "synthetic"), ("", "dataset"),
])
def test_a_plain_name_keeps_its_slug(name: str, slug: str) -> None:
    assert dataset_slug(name) == slug


def test_a_very_long_dataset_name_makes_a_run_folder(tmp_path: Path) -> None:
    """Before: a 300-character name made a 330-character folder name (``File name too
    long``)."""
    folder = new_run_dir(tmp_path, "x" * 300, "0" * 64)
    assert folder.is_dir()
    assert len(folder.name) < 200
    assert dataset_slug("x" * 300) != dataset_slug("x" * 301)


def test_two_non_ascii_datasets_get_plot_folders_named_apart(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "res"
    write_run(out / "runs", "20260101-000000-a", dataset="データ")
    write_run(out / "runs", "20260101-000000-b", dataset="数据集")
    status, _, err = _report(["--out", str(out)], capsys)
    assert status == 0, err
    folders = sorted(p.parent.name for p in out.glob("*/ndcg_at_k.png"))
    assert len(set(folders)) == 2, folders


# ------------------------------------------------------------------------------------------
# damaged runs
# ------------------------------------------------------------------------------------------


def _damaged(tmp_path: Path) -> tuple[Path, Path]:
    out = tmp_path / "res"
    return out, write_run(out / "runs", "20260101-000000-a")


def _one_line_error(status: int, err: str, *words: str) -> None:
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: "), err
    for w in words:
        assert w in lines[0], (w, err)


def test_a_header_with_a_column_twice_is_named(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Before: pandas renamed the second to ``value.1`` and the error blamed line 3 for 'a
    second row'."""
    out, run = _damaged(tmp_path)
    text = (run / "metrics.csv").read_text()
    (run / "metrics.csv").write_text(text.replace(",profile\n", ",value\n", 1))
    status, _, err = _report(["--out", str(out), "--no-plots"], capsys)
    _one_line_error(status, err, "metrics.csv:1", "'value'", "more than once")


@pytest.mark.parametrize("kind", ["folder", "fifo", "device"])
def test_a_metrics_table_that_is_not_a_file_is_named(tmp_path: Path, kind: str,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Before: "no finished run directory with a metrics.csv found" (the run passed over)."""
    out, run = _damaged(tmp_path)
    table = run / "metrics.csv"
    table.unlink()
    {"folder": table.mkdir, "fifo": lambda: os.mkfifo(table),
     "device": lambda: table.symlink_to("/dev/zero")}[kind]()
    status, _, err = _report(["--out", str(out), "--no-plots"], capsys)
    _one_line_error(status, err, "metrics.csv", "not a regular file")


@pytest.mark.parametrize("kind", ["folder", "fifo"])
def test_a_manifest_that_is_not_a_file_is_named_not_ignored(
        tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: read as no manifest at all, so the run counted as finished."""
    out, run = _damaged(tmp_path)
    manifest = run / "manifest.json"
    manifest.unlink()
    manifest.mkdir() if kind == "folder" else os.mkfifo(manifest)
    status, _, err = _report(["--out", str(out), "--no-plots"], capsys)
    _one_line_error(status, err, "manifest.json", "not a regular file")


def test_a_manifest_nested_too_deep_is_one_clear_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: ``RecursionError`` escaped as a traceback."""
    out, run = _damaged(tmp_path)
    (run / "manifest.json").write_text("[" * 100_000 + "]" * 100_000)
    status, _, err = _report(["--out", str(out), "--no-plots"], capsys)
    _one_line_error(status, err, "manifest.json", "not valid JSON")


def test_an_empty_manifest_is_an_unfinished_run(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A manifest without a finish time is an unfinished run, ``{}`` included (before: counted
    as a run with no manifest, i.e. finished, and used as "newest finished run")."""
    out, run = _damaged(tmp_path)
    (run / "manifest.json").write_text("{}")
    status, _, err = _report(["--out", str(out), "--no-plots"], capsys)
    _one_line_error(status, err, "unfinished", "--include-unfinished")


def test_a_seed_beyond_int64_is_named_as_written(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Before: ``seed -9223372036854775808 is not one of the run's seeds`` (wrapped)."""
    out, run = _damaged(tmp_path)
    text = (run / "metrics.csv").read_text()
    (run / "metrics.csv").write_text(text.replace(",0,test,", ",99999999999999999999999,test,",
                                                  1))
    status, _, err = _report(["--out", str(out), "--no-plots"], capsys)
    _one_line_error(status, err, "metrics.csv:2", "'seed'", "99999999999999999999999")
    assert "-9223372036854775808" not in err


@pytest.mark.parametrize("named", [True, False])
def test_a_run_being_written_is_refused_naming_the_writer(
        tmp_path: Path, named: bool, capsys: pytest.CaptureFixture[str]) -> None:
    """A run whose writer lock is held (``run --resume`` of it in progress) is not reported:
    its tables may hold part of a model's seeds."""
    out, run = _damaged(tmp_path)
    with writer_lock(run):
        status, _, err = _report(["--out", str(out), "--no-plots",
                                  *(["--runs", str(run)] if named else [])], capsys)
    _one_line_error(status, err, run.name, "being written now", f"pid {os.getpid()}")
    status, _, err = _report(["--out", str(out), "--no-plots"], capsys)
    assert status == 0, err  # the lock released: reported as before


def test_a_glyph_the_plot_font_lacks_is_one_warning_per_plot(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: matplotlib's ``Glyph 25968 (\\N{CJK UNIFIED IDEOGRAPH-6570}) missing`` once per
    character per draw (15 lines for one name), naming no plot."""
    import warnings

    out = tmp_path / "res"
    write_run(out / "runs", "20260101-000000-a", dataset="数据集")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        status, _, err = _report(["--out", str(out)], capsys)
    assert status == 0, err
    texts = [str(w.message) for w in caught]
    assert not [t for t in texts if t.startswith("Glyph ")], texts
    said = [t for t in texts if "has no glyph" in t]
    assert len(said) <= 3, said  # one per plot at most (none where a font has them)
    for text in said:
        assert ".png" in text, text
        assert ".set-" not in text, text
        assert "数" in text, text


def test_names_printed_by_report_cannot_drive_the_terminal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: a run id or model name holding ESC sequences (colour, window title), a line end
    (a forged ``report:`` line) or a bidirectional override reached the terminal raw."""
    out = tmp_path / "res"
    run_id = "20260101-000000-a\x1b[31mRED\nforged\u202e"
    write_run(out / "runs", run_id, models={"m\x1b]0;title\x07": 0.1, "lightgbm-x": 0.0})
    status, stdout, err = _report(["--out", str(out), "--no-plots"], capsys)
    assert status == 0, err
    for text in (stdout, err):
        assert not re.search("[\x1b\x07\u202e]", text), text
        assert all(ln.startswith(("report: ", "wrote ", "toy_set: ", "warning: "))
                   for ln in text.splitlines()), text
    assert "\\x1b[31mRED\\nforged\\u202e" in err
    assert "m\\x1b]0;title\\x07" in stdout


@pytest.mark.parametrize("target", ["run", "elsewhere"])
def test_a_plot_folder_that_is_a_link_is_refused(tmp_path: Path, target: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Before: ``res/toy_set`` linked to the run directory got the three PNGs written among the
    run's files (an input), or into any folder it pointed to, exit 0."""
    out, run = _damaged(tmp_path)
    elsewhere = tmp_path / "mine"
    elsewhere.mkdir()
    (out / "toy_set").symlink_to(run if target == "run" else elsewhere)
    before = sorted(p.name for p in run.iterdir())
    status, _, err = _report(["--out", str(out)], capsys)
    _one_line_error(status, err, "toy_set", "symbolic link")
    assert sorted(p.name for p in run.iterdir()) == before
    assert not list(elsewhere.iterdir())
    status, _, err = _report(["--out", str(out), "--no-plots"], capsys)
    assert status == 0, err


def test_a_plot_folder_that_is_a_file_is_refused(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = _damaged(tmp_path)
    (out / "toy_set").write_text("my notes\n")
    status, _, err = _report(["--out", str(out)], capsys)
    _one_line_error(status, err, "toy_set", "not a folder")
    assert (out / "toy_set").read_text() == "my notes\n"


def test_bidi_overrides_in_names_do_not_reach_the_documents(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """U+202E (right-to-left override) in a model name reorders what a reader of
    leaderboard.md / .tex sees after it ("Trojan Source"); before, it was kept."""
    out = tmp_path / "res"
    write_run(out / "runs", "20260101-000000-a",
              models={"lightgbm-\u202egnp.exe": 0.1, "a\u2066bc": 0.0})
    status, _, err = _report(["--out", str(out), "--no-plots"], capsys)
    assert status == 0, err
    for name in ("leaderboard.md", "leaderboard.tex"):
        text = (out / name).read_text()
        assert not re.search("[\u202a-\u202e\u2066-\u2069\u0085]", text), name
    doc = json.loads((out / "leaderboard.json").read_text())
    assert "lightgbm-\u202egnp.exe" in {r["model"] for r in doc["tables"][0]["rows"]}


def test_a_next_line_character_in_a_runs_table_is_refused_naming_file_and_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A model name holding U+0085 (NEL: ``str.splitlines`` ends a line there, a CSV reader
    does not) in a run's ``metrics.csv`` is a damaged table, named with its line (round 23: no
    name ltrbench writes holds one; before, the table was read and the character dropped)."""
    out = tmp_path / "res"
    write_run(out / "runs", "20260101-000000-a", models={"a\u0085c": 0.0, "b": 0.1})
    status, _, err = _report(["--out", str(out), "--no-plots"], capsys)
    assert status == 2, err
    assert all(w in err for w in ("metrics.csv:", "U+0085", "damaged")), err
    assert not (out / "leaderboard.md").exists()


def test_a_manifest_holding_a_key_twice_is_named(tmp_path: Path) -> None:
    """json keeps the last of a key given twice, in silence; a run's manifest with a key twice
    is damaged (written by hand or cut and rejoined) and is named as such."""
    from bench.errors import DataError
    from bench.runs.manifest import read_manifest

    (tmp_path / "manifest.json").write_text('{"finished": null, "finished": "2026-01-01"}')
    with pytest.raises(DataError, match=r"manifest\.json.*the key 'finished' appears twice"):
        read_manifest(tmp_path)
