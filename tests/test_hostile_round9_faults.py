"""Hostile faults, round 9 (issue 19, the "faults" class): new instances.

* ``stopped after training`` (found here): a run stopped (Ctrl-C, SIGTERM) during the
  cross-check that follows training was already marked finished: the report took it as a
  complete run (its manifest without the cross-check's record), and ``run --resume``, told to go
  on, found no unfinished run and trained a new one from scratch. Now ``finished`` is written
  after the checks; ``--resume`` reopens the run, trains nothing again and runs the cross-check.
* ``full disk`` (held): a full disk while a run writes a table of its pair, or while ``report``
  draws its plots -- one line naming the file or folder, files already written complete, the
  earlier report's set whole; ``--resume`` then finishes the run in the same folder.

Earlier rounds: ``tests/test_hostile_round7_faults.py``, ``..._round8_faults.py``,
``tests/test_hostile_rankers_faults.py``.
"""

from __future__ import annotations

import errno
import json
import os
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import cli, letor_folder, refused
from test_report_leaderboard import write_run

RUN = ("run", "--dataset", "./letor", "--quick", "--no-cache", "--no-progress", "--seeds", "0",
       "--out", "res", "--models", "random,lightgbm")


def _runs(tmp: Path) -> list[Path]:
    return sorted((tmp / "res" / "runs").iterdir())


def _manifest(run: Path) -> dict[str, Any]:
    return dict(json.loads((run / "manifest.json").read_text(encoding="utf-8")))


def test_a_run_stopped_in_the_cross_check_is_unfinished_and_resume_finishes_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import bench.crosscheck as crosscheck

    letor_folder(tmp_path / "letor")
    real = crosscheck.crosscheck_run

    def stopped(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(crosscheck, "crosscheck_run", stopped)
    first = cli(tmp_path, *RUN)
    assert first.status == 130, first.err
    [run] = _runs(tmp_path)
    assert not _manifest(run).get("finished")  # before: finished, without the cross-check
    metrics = (run / "metrics.csv").read_bytes()
    monkeypatch.setattr(crosscheck, "crosscheck_run", real)
    again = cli(tmp_path, *RUN, "--resume")
    assert again.status == 0, again.err
    assert _runs(tmp_path) == [run]  # before: a second run, every model trained again
    done = _manifest(run)
    assert done.get("finished")
    assert done.get("resumed")
    assert "crosscheck" in done
    assert (run / "metrics.csv").read_bytes() == metrics  # nothing trained again


def test_a_full_disk_while_a_run_writes_a_table_names_it_and_resume_finishes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    letor_folder(tmp_path / "letor")
    real = pd.DataFrame.to_csv
    calls = {"n": 0}

    def full(self: pd.DataFrame, *args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 6:  # a table of the second pair
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "to_csv", full)
    res = cli(tmp_path, *RUN, "--no-crosscheck")
    assert refused(res, "res/runs/", ".csv", "No space left on device") is None, res.err
    monkeypatch.setattr(pd.DataFrame, "to_csv", real)
    again = cli(tmp_path, *RUN, "--no-crosscheck", "--resume")
    assert again.status == 0, again.err
    [run] = _runs(tmp_path)
    metrics = pd.read_csv(run / "metrics.csv")
    assert sorted(metrics["model"].unique()) == ["lightgbm-lambdarank", "random"]


def test_a_full_disk_while_report_draws_names_the_folder_and_keeps_the_earlier_report(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import matplotlib.figure

    write_run(tmp_path / "runs", "a")
    fast = ("--no-progress", "--bootstrap", "50", "--permutations", "100")
    assert cli(tmp_path, "report", "--runs", "runs", "--out", "rep", *fast).status == 0
    earlier = {p: p.read_bytes() for p in (tmp_path / "rep").rglob("*") if p.is_file()}

    def full(*args: Any, **kwargs: Any) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", full)
    res = cli(tmp_path, "report", "--runs", "runs", "--out", "rep", "--seed", "1", *fast)
    assert refused(res, "rep/toy_set", "No space left on device") is None, res.err
    now = {p: p.read_bytes() for p in (tmp_path / "rep").rglob("*") if p.is_file()}
    assert now == earlier
