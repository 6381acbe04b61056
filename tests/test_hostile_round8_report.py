"""Hostile ``ltrbench report`` cases, round 8 (issue 19 item 7): new instances.

Classes (earlier rounds: ``tests/test_hostile_report.py``, ``..._report_cli.py``,
``tests/test_report_tuning_hostile.py``):

* ``damaged``: a ``metrics.csv`` value spelled ``nan``/``NaN``/empty/``-inf``/``1e400``/hex/
  ``1_0``, the header repeated as a row, a column named twice, ``Value`` for ``value``, the file
  in UTF-16, a row given twice -- exit 2, one line naming the file (and line, column where there
  is one); a byte-order mark, CRLF or CR-only line ends, blank lines at the end or quoted
  fields -- the same leaderboard as the clean file (the numbers of ``metrics.csv`` itself).
* ``races``: a run folder deleted between the listing and the reading (found here: "missing run
  file (expected metrics.csv ...)", as if the run were damaged; now "the run directory is
  gone ... run the command again").
* ``killed tune``: ``report --tuned`` on a tune killed mid-way (found here: "best.toml: not
  found; a tune folder holds best.toml" / "trials.csv not found", as if the folder were not a
  tune's; now the message says the tune did not finish and how to resume it).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from test_report_leaderboard import write_run
from tuning_fixture import make_tune_folder

from bench import cli
from bench.report import select

FAST = ["--bootstrap", "50", "--permutations", "100", "--no-progress", "--no-plots"]


def _report(out: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    status = cli.main(["report", "--out", str(out), *FAST, *extra])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return status, err


def _cell(row: int, value: str) -> Callable[[Path], None]:
    """Set the ``value`` cell (7th field) of line ``row + 1``."""
    def edit(p: Path) -> None:
        lines = p.read_text().splitlines(keepends=True)
        cells = lines[row].rstrip("\n").split(",")
        cells[6] = value
        lines[row] = ",".join(cells) + "\n"
        p.write_text("".join(lines))
    return edit


def _lines(fn: Callable[[list[str]], list[str]]) -> Callable[[Path], None]:
    def edit(p: Path) -> None:
        p.write_text("".join(fn(p.read_text().splitlines(keepends=True))))
    return edit


def _bytes(fn: Callable[[bytes], bytes]) -> Callable[[Path], None]:
    def edit(p: Path) -> None:
        p.write_bytes(fn(p.read_bytes()))
    return edit


def _two_values(lines: list[str]) -> list[str]:
    return [lines[0].rstrip("\n") + ",value\n", *(ln.rstrip("\n") + ",0.5\n" for ln in lines[1:])]


DAMAGED: list[tuple[str, Callable[[Path], None], tuple[str, ...]]] = [
    ("nan", _cell(1, "nan"), ("metrics.csv", "'value'", "nan")),
    ("NaN", _cell(1, "NaN"), ("metrics.csv", "'value'", "nan")),
    ("empty", _cell(1, ""), ("metrics.csv", "'value'")),
    ("minus-inf", _cell(1, "-inf"), ("metrics.csv:2", "'value'", "finite")),
    ("overflows-to-inf", _cell(1, "1e400"), ("metrics.csv:2", "'value'", "finite")),
    ("hex-float", _cell(1, "0x1p-2"), ("metrics.csv:2", "'value'", "'0x1p-2'")),
    ("underscore-digits", _cell(1, "1_0"), ("metrics.csv:2", "'value'", "'1_0'")),
    ("header-repeated-as-a-row", _lines(lambda ls: [ls[0], *ls]), ("metrics.csv:2",)),
    ("a-column-named-twice", _lines(_two_values), ("metrics.csv:1", "'value'", "more than once")),
    ("header-in-another-case", _bytes(lambda b: b.replace(b"value", b"Value", 1)),
     ("metrics.csv", "missing column(s) value")),
    ("utf-16", _bytes(lambda b: b.decode().encode("utf-16")), ("metrics.csv", "cannot read")),
    ("a-row-given-twice", _lines(lambda ls: [*ls, ls[1]]), ("metrics.csv:", "second row")),
]


@pytest.mark.parametrize(("edit", "words"), [(e, w) for _, e, w in DAMAGED],
                         ids=[n for n, _, _ in DAMAGED])
def test_a_damaged_metrics_csv_is_one_line_naming_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: Callable[[Path], None],
        words: tuple[str, ...]) -> None:
    out = tmp_path / "res"
    edit(write_run(out / "runs", "20260101-000000-a") / "metrics.csv")
    status, err = _report(out, capsys)
    assert status == 2
    assert err.startswith("error: "), err
    assert err.count("\n") == 1, err
    for w in words:
        assert w in err, (w, err)


SAME: list[tuple[str, Callable[[Path], None]]] = [
    ("byte-order-mark", _bytes(lambda b: b"\xef\xbb\xbf" + b)),
    ("crlf", _bytes(lambda b: b.replace(b"\n", b"\r\n"))),
    ("cr-only", _bytes(lambda b: b.replace(b"\n", b"\r"))),
    ("blank-lines-at-the-end", _lines(lambda ls: [*ls, "\n", "\n"])),
    ("quoted-fields", _lines(lambda ls: [ls[0], *('"' + ln.rstrip("\n").replace(",", '","') +
                                                  '"\n' for ln in ls[1:])])),
]


def _table(out: Path) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = json.loads((out / "leaderboard.json").read_text())[
        "tables"][0]["rows"]
    return rows


@pytest.mark.parametrize("edit", [e for _, e in SAME], ids=[n for n, _ in SAME])
def test_a_metrics_csv_in_another_text_form_gives_the_same_leaderboard(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: Callable[[Path], None]) -> None:
    clean, other = tmp_path / "clean", tmp_path / "other"
    write_run(clean / "runs", "20260101-000000-a")
    edit(write_run(other / "runs", "20260101-000000-a") / "metrics.csv")
    assert _report(clean, capsys)[0] == 0
    assert _report(other, capsys)[0] == 0
    assert _table(other) == _table(clean)


@pytest.mark.parametrize("which", ["older", "newest"])
def test_a_run_folder_removed_after_the_listing_is_one_line_saying_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        which: str) -> None:
    out = tmp_path / "res"
    old = write_run(out / "runs", "20260101-000000-a", finished="2026-01-01T00:00:00+00:00")
    new = write_run(out / "runs", "20260102-000000-b", finished="2026-01-02T00:00:00+00:00")
    listed = select.find_runs

    def find_then_remove(root: str | Path) -> list[object]:
        runs: list[object] = list(listed(root))
        shutil.rmtree(old if which == "older" else new)
        return runs

    monkeypatch.setattr(select, "find_runs", find_then_remove)
    status, err = _report(out, capsys)
    assert status == 2
    assert err.count("\n") == 1, err
    gone = (old if which == "older" else new).name
    for word in (gone, "the run directory is gone", "again"):
        assert word in err, (word, err)


def _killed(folder: Path, *, trials: bool) -> Path:
    """A tune folder as a kill leaves it: no ``complete``, ``best.toml``, ``summary.json``,
    ``best/``; the trials table only once a trial has ended."""
    make_tune_folder(folder, ("xgboost-ndcg",), n_trials=4)
    (folder / "plan.json").write_text('{"models": ["xgboost-ndcg"]}\n')
    for name in ("complete", "best.toml", "summary.json"):
        (folder / name).unlink(missing_ok=True)
    shutil.rmtree(folder / "best", ignore_errors=True)
    if not trials:
        for name in ("trials.csv", "trials.parquet"):
            (folder / name).unlink(missing_ok=True)
    return folder


@pytest.mark.parametrize("trials", [True, False], ids=["after-a-trial", "before-any-trial"])
@pytest.mark.parametrize("named", [True, False], ids=["runs-named", "runs-found"])
def test_report_tuned_on_a_killed_tune_says_it_did_not_finish_and_how_to_resume(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], trials: bool, named: bool) -> None:
    out = tmp_path / "res"
    tune = _killed(out / "tune" / "t", trials=trials)
    runs = [str(write_run(out / "runs", f"2026010{k}-000000-{k}")) for k in (1, 2)]
    named_runs = ["--runs", *runs] if named else []
    status, err = _report(out, capsys, "--tuned", str(tune), *named_runs)
    assert status == 2
    assert err.startswith("error: "), err
    assert err.count("\n") == 1, err
    assert "did not finish" in err, err
    assert f"ltrbench tune --resume {tune}" in err, err
