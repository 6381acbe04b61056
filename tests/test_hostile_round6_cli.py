"""Round 6 of the hostile catalogue on the command line (issue 19; the newest surfaces of
issue 21 and leftovers of round 5).

1. **An option given twice**: ``run`` and ``report`` warned and used the last value, ``evaluate``
   refused (even the same value twice). One rule now for every command
   (:func:`bench.cli.once_per_option`): a second, different value is a usage error naming both;
   the same value twice is accepted.
2. **Per-query CSV cells a spreadsheet runs as formulas**: ``evaluate --per-query`` wrote query
   ids (``=1+2``, ``@SUM(A1)``) and run names (``+cmd``) as they were; now each gets a leading
   ``'`` (OWASP), a plain number (``-7``) is kept.
3. **Folds**: ``--dataset PATH:Fold2 --folds 1`` ran Fold1 and dropped Fold2 in silence; a
   one-fold table printed ``± nan``.
4. **Names**: ``--name " x"`` and ``--name "x "`` were datasets apart from ``x`` that every table
   prints alike; ``--name MQ:Fold3`` passed a plain run off as fold 3 of MQ; two datasets given
   one ``--name`` were reported as an older and a newer run of one dataset.
5. **Plots**: a table of no rows over a run with values ended in a matplotlib ``ValueError``.
7. **A damaged fold document** (``<out>/folds/*.json``) under ``report --html``: JSON that does
   not parse, a list, a text where a number goes: tracebacks (``JSONDecodeError``,
   ``AttributeError``, ``ValueError``); now an error naming the file and the place.
8. **A fold table that cannot be written** (``<out>/folds`` a file, ``<stem>.md`` a folder):
   ``error: .../folds: File exists`` after every fold had trained; now refused before the first.
6. **The run's closing words**: a test split of blank queries only (no relevant document) was
   "random -inf" and "verdict: best ndcg@10 is random (-inf)".

:data:`CLASSES` maps each test to its class for the closing counts.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from hostile_kit import cli, letor_folder, letor_split

CLASSES = {
    "test_a_second_different_value_is_refused_by_every_command": "silent accept",
    "test_the_same_value_twice_is_accepted": "silent accept",
    "test_per_query_cells_that_start_a_formula_are_neutralised": "silent accept",
    "test_a_fold_named_in_the_dataset_and_folds_is_refused": "silently wrong",
    "test_a_one_fold_table_says_there_is_no_std": "unclear error",
    "test_a_name_with_spaces_or_a_fold_suffix_is_refused": "silent accept",
    "test_two_datasets_under_one_name_are_said_in_the_report": "silent accept",
    "test_plots_of_a_table_with_no_rows_are_no_traceback": "traceback",
    "test_a_run_of_blank_queries_only_prints_no_number": "silently wrong",
    "test_a_damaged_fold_document_is_a_clear_error_in_the_html_report": "traceback",
    "test_a_fold_table_that_cannot_be_written_is_refused_before_training": "unclear error",
}

QUICK = ("--models", "random", "--seeds", "0", "--no-crosscheck", "--metrics", "ndcg@10")


@pytest.mark.parametrize("argv", [  # each with an input that is not there: fails fast if parsed
    ("run", "--dataset", "nowhere", "--out", "a", "--out", "b"),
    ("run", "--dataset", "nowhere", "--timing", "inprocess", "--timing", "isolated"),
    ("run", "--dataset", "nowhere", "--name", "a", "--name", "b"),
    ("run", "--dataset", "nowhere", "--seeds", "0", "--seeds", "1"),
    ("report", "--runs", "none", "--metrics", "ndcg@10", "--metrics", "map"),
    ("evaluate", "--qrels", "q", "--qrels", "r"),
    ("convert", "--ratings", "a.csv", "--ratings", "b.csv"),
    ("datasets", "list", "--format", "json", "--format", "table"),
    ("reproduce", "--tolerance", "1e-9", "--tolerance", "1e-6"),
    ("crosscheck", "--dataset", "nowhere", "--profile", "lightgbm", "--profile", "xgboost"),
])
def test_a_second_different_value_is_refused_by_every_command(tmp_path: Path,
                                                              argv: tuple[str, ...]) -> None:
    res = cli(tmp_path, *argv)
    assert res.status == 2, res.err
    assert "given twice" in res.err or "given after" in res.err, res.err
    assert "give it once" in res.err, res.err
    assert "Traceback" not in res.err
    assert not (tmp_path / "a").exists()
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize("argv", [
    ("datasets", "list", "--format", "json", "--format=json"),
    ("evaluate", "--profile", "ranx", "--profile", "ranx", "--help"),
])
def test_the_same_value_twice_is_accepted(tmp_path: Path, argv: tuple[str, ...]) -> None:
    res = cli(tmp_path, *argv)
    assert res.status == 0, res.err
    assert "given twice" not in res.err


def test_per_query_cells_that_start_a_formula_are_neutralised(tmp_path: Path) -> None:
    ids = ["=1+2", "@SUM(A1)", "+1", "-7", "-1+2", "\uff1dcmd", "q"]
    (tmp_path / "q.txt").write_text("".join(f"{q} 0 d{i} 1\n{q} 0 e{i} 0\n"
                                            for i, q in enumerate(ids)))
    run = "".join(f"{q} Q0 d{i} 1 2 t\n{q} Q0 e{i} 2 1 t\n" for i, q in enumerate(ids))
    (tmp_path / "r.txt").write_text(run)
    (tmp_path / "s.txt").write_text(run)
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics", "ndcg@2",
              "--per-query", "one.csv")
    assert res.status == 0, res.err
    got = {row["qid"] for row in csv.DictReader(io.StringIO((tmp_path / "one.csv").read_text()))}
    assert got == {"'=1+2", "'@SUM(A1)", "+1", "-7", "'-1+2", "'\uff1dcmd", "q"}, got
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "@x=r.txt", "--run",
              "+cmd=s.txt", "--metrics", "ndcg@2", "--per-query", "two.csv")
    assert res.status == 0, res.err
    head = (tmp_path / "two.csv").read_text().splitlines()[0].split(",")
    assert "'@x" in head, head
    assert "'+cmd" in head, head


def _parts_root(folder: Path) -> Path:
    folder.mkdir()
    for i in range(1, 6):
        (folder / f"S{i}.txt").write_bytes(letor_split(4, 100 * i, i))
    return folder


def test_a_fold_named_in_the_dataset_and_folds_is_refused(tmp_path: Path) -> None:
    root = _parts_root(tmp_path / "root")
    res = cli(tmp_path, "run", "--dataset", f"{root}:Fold2", "--folds", "1", *QUICK,
              "--out", "o")
    assert res.status == 2, res.err
    assert "names one fold (Fold2)" in res.err, res.err
    assert not (tmp_path / "o" / "runs").exists()


def test_a_one_fold_table_says_there_is_no_std(tmp_path: Path) -> None:
    root = _parts_root(tmp_path / "root")
    res = cli(tmp_path, "run", "--dataset", str(root), "--folds", "3", *QUICK, "--out", "o")
    assert res.status == 0, res.err
    table = next((tmp_path / "o" / "folds").glob("*.md")).read_text()
    assert "nan" not in table, table
    assert "(one fold: no std)" in table, table


@pytest.mark.parametrize(("name", "words"), [
    (" x", "begins or ends with a space"), ("x ", "begins or ends with a space"),
    ("MQ:Fold3", "ends as ltrbench names a dataset's fold"),
    ("MQ:fold12", "ends as ltrbench names a dataset's fold"),
])
def test_a_name_with_spaces_or_a_fold_suffix_is_refused(tmp_path: Path, name: str,
                                                        words: str) -> None:
    data = letor_folder(tmp_path / "d")
    res = cli(tmp_path, "run", "--dataset", str(data), "--name", name, *QUICK, "--out", "o")
    assert res.status == 2, res.err
    assert f"--name: {name!r}" in res.err, res.err
    assert words in res.err, res.err
    assert "Traceback" not in res.err


def test_two_datasets_under_one_name_are_said_in_the_report(tmp_path: Path) -> None:
    a, b = letor_folder(tmp_path / "A"), letor_folder(tmp_path / "B")
    for data in (a, b):
        res = cli(tmp_path, "run", "--dataset", str(data), "--name", "same", *QUICK,
                  "--out", "o")
        assert res.status == 0, res.err
    res = cli(tmp_path, "report", "--out", "o", "--no-plots", "--bootstrap", "20",
              "--permutations", "20", "--metrics", "ndcg@10")
    assert res.status == 0, res.err
    line = next(ln for ln in res.err.splitlines() if ln.startswith("report: same:"))
    assert "ANOTHER DATASET under this name" in line, line
    assert str(a) in line, line
    assert str(b) in line, line


def test_plots_of_a_table_with_no_rows_are_no_traceback(tmp_path: Path) -> None:
    from test_report_plots_many_models import _run

    from bench.report import plots

    run, table = _run(tmp_path, 3, ("random",))
    table["rows"] = []
    assert plots.plot_files(table, run, tmp_path / "plots") == []


def test_a_run_of_blank_queries_only_prints_no_number(tmp_path: Path) -> None:
    data = letor_folder(tmp_path / "blank")
    lines = (data / "test.txt").read_text().splitlines()
    (data / "test.txt").write_text("".join("0" + ln[1:] + "\n" for ln in lines))
    res = cli(tmp_path, "run", "--dataset", str(data), *QUICK, "--out", "o")
    assert res.status == 0, res.err
    assert "inf" not in res.out, res.out
    assert "verdict: none; no model has a ndcg@10 value" in res.out, res.out


BAD_FOLD_DOCS = {
    "cut.json": (b'{"tables": [', "not a fold document (JSON)"),
    "latin1.json": ('{"dataset": "caf\u00e9"}'.encode("latin-1"), "not a fold document"),
    "list.json": (b"[1, 2]", "the document: expected an object"),
    "rows.json": (b'{"tables": [{"rows": 5}]}', "tables[0]: expected"),
    "text.json": (b'{"tables": [{"folds": ["Fold1"], "rows": [{"model": "m", "per_fold": '
                  b'["0.5"], "mean": 0.5}]}]}', "tables[0].rows[0] value 1: expected a number"),
    "mean.json": (b'{"tables": [{"rows": [{"model": "m", "mean": "high"}]}]}',
                  "tables[0].rows[0].mean: expected a number"),
}


def test_a_damaged_fold_document_is_a_clear_error_in_the_html_report(tmp_path: Path) -> None:
    data = letor_folder(tmp_path / "d")
    assert cli(tmp_path, "run", "--dataset", str(data), *QUICK, "--out", "o").status == 0
    folds = tmp_path / "o" / "folds"
    folds.mkdir()
    for name, (body, words) in BAD_FOLD_DOCS.items():
        for old in folds.iterdir():
            old.unlink()
        (folds / name).write_bytes(body)
        res = cli(tmp_path, "report", "--out", "o", "--html", "--no-plots", "--bootstrap", "20",
                  "--permutations", "20", "--metrics", "ndcg@10")
        assert res.status == 2, (name, res.err)
        assert "Traceback" not in res.err, (name, res.err)
        last = res.err.strip().splitlines()[-1]
        assert name in last, (name, last)
        assert words in last, (name, last)


@pytest.mark.parametrize("shape", ["folds-is-a-file", "table-is-a-folder"])
def test_a_fold_table_that_cannot_be_written_is_refused_before_training(tmp_path: Path,
                                                                        shape: str) -> None:
    root = _parts_root(tmp_path / "root")
    (tmp_path / "o").mkdir()
    if shape == "folds-is-a-file":
        (tmp_path / "o" / "folds").write_text("a file")
    else:
        (tmp_path / "o" / "folds" / "root-folds1.md").mkdir(parents=True)
    res = cli(tmp_path, "run", "--dataset", str(root), "--folds", "1", *QUICK, "--out", "o")
    assert res.status == 2, res.err
    assert "--out" in res.err, res.err
    assert "root-folds1.md" in res.err, res.err
    assert not (tmp_path / "o" / "runs").exists()
