"""Silent accepts of ``ltrbench report``, round 9b (issue 19 item 7): new instances.

Classes (earlier rounds: ``tests/test_hostile_report*.py``, ``..._round8_report*.py``,
``..._round9_report.py``):

* ``unknown columns`` (found here): a run's ``metrics.csv`` with a column ltrbench does not write
  (``value_std``, ``note``) was used without a word. It is still read (the known columns hold
  the numbers), and now the table's note and a one-line warning on stderr name the file and the
  column.
* ``other versions`` (found here): runs written by another ltrbench version (the manifest's
  ``ltrbench_version``) were mixed in one leaderboard without a word. Now the table's note and a
  warning on stderr name the run and its version; a run of this version, or one whose manifest
  records none, says nothing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import cli
from test_report_leaderboard import write_run

FAST = ("--bootstrap", "50", "--permutations", "100", "--no-progress", "--no-plots")


def _report(tmp_path: Path, *runs: Path) -> tuple[int | None, str, dict[str, object]]:
    res = cli(tmp_path, "report", "--runs", *map(str, runs), "--out", str(tmp_path / "out"),
              *FAST)
    doc = json.loads((tmp_path / "out" / "leaderboard.json").read_text()) \
        if res.status == 0 else {}
    return res.status, res.err, doc


def _notes(doc: dict[str, object]) -> list[str]:
    tables = doc["tables"]
    assert isinstance(tables, list)
    return [n for t in tables for n in t["notes"]]


@pytest.mark.parametrize("column", ["value_std", "note"])
def test_an_unknown_metrics_column_is_named_in_the_note_and_on_stderr(
        tmp_path: Path, column: str) -> None:
    run = write_run(tmp_path / "runs", "20260101-000000-toy")
    m = pd.read_csv(run / "metrics.csv")
    m[column] = 0.5
    m.to_csv(run / "metrics.csv", index=False)
    status, err, doc = _report(tmp_path, run)
    assert status == 0, err
    said = [n for n in _notes(doc) if repr(column) in n]
    assert said, _notes(doc)
    assert all(w in said[0] for w in ("metrics.csv", "does not write")), said
    assert all(w in err for w in (repr(column), "metrics.csv")), err
    md = (tmp_path / "out" / "leaderboard.md").read_text()
    assert column in md


def test_a_run_of_another_ltrbench_version_is_named_with_its_version(tmp_path: Path) -> None:
    from bench import __version__

    old = write_run(tmp_path / "runs", "20260101-000000-toy")
    new = write_run(tmp_path / "runs", "20260102-000000-other", dataset="other_set")
    for run, version in ((old, "0.0.1-old"), (new, __version__)):
        manifest = json.loads((run / "manifest.json").read_text())
        (run / "manifest.json").write_text(json.dumps({**manifest, "ltrbench_version": version}))
    status, err, doc = _report(tmp_path, old, new)
    assert status == 0, err
    notes = _notes(doc)
    said = [n for n in notes if "0.0.1-old" in n]
    assert len(said) == 1, notes
    assert all(w in said[0] for w in ("20260101-000000-toy", __version__)), said
    assert not any("20260102-000000-other" in n and "ltrbench" in n for n in notes), notes
    assert all(w in err for w in ("0.0.1-old", "20260101-000000-toy")), err


def test_a_run_of_this_version_or_of_none_recorded_says_nothing(tmp_path: Path) -> None:
    run = write_run(tmp_path / "runs", "20260101-000000-toy")
    status, err, doc = _report(tmp_path, run)
    assert status == 0, err
    assert not any(("ltrbench" in n and "version" in n) or "does not write" in n
                   for n in _notes(doc)), _notes(doc)
