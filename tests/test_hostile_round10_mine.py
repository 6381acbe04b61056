"""Round 10 of the hostile catalogue: the merger's own cases (runs, ratings shards, folds).

Each case failed on main before round 10 (measured: the file run against ``edfacef``), unless it
is marked as a guard.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from bench.runs.search import DamagedRunWarning, latest_unfinished

HASH = "ab12" * 4


def _run(root: Path, name: str, **fields: object) -> Path:
    d = root / name
    d.mkdir(parents=True)
    doc = {"config_hash": HASH, "run_id": name, "started": f"2026-11-26T10:00:0{name[-1]}",
           "finished": None, **fields}
    (d / "manifest.json").write_text(json.dumps(doc), encoding="utf-8")
    return d


def test_resume_search_passes_over_a_run_whose_finished_field_is_a_number(tmp_path: Path) -> None:
    """``"finished": 5`` is neither a time nor null: the run was counted as finished, so
    ``--resume`` quietly started a new run; it is now passed over with a warning naming the
    field, and an intact unfinished run beside it is still the one found."""
    _run(tmp_path, "run-2", finished=5)
    with pytest.warns(DamagedRunWarning, match=r"'finished' holds 5; expected a time"):
        assert latest_unfinished(tmp_path, HASH) is None
    good = _run(tmp_path, "run-1")
    with pytest.warns(DamagedRunWarning, match="run-2"):
        assert latest_unfinished(tmp_path, HASH) == good


def test_resume_search_checks_only_the_runs_of_its_own_config(tmp_path: Path) -> None:
    """Guard: a run of another config with odd fields is not this search's business (no
    warning), and an intact unfinished run is found."""
    other = _run(tmp_path, "run-3", seeds="1")
    doc = json.loads((other / "manifest.json").read_text(encoding="utf-8"))
    doc["config_hash"] = "ffff"
    (other / "manifest.json").write_text(json.dumps(doc), encoding="utf-8")
    good = _run(tmp_path, "run-1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert latest_unfinished(tmp_path, HASH) == good



def test_a_dask_duplicate_pair_under_text_ids_is_said_as_a_duplicate(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """With text user ids (numbered as the local reader numbers them), the search for the pair's
    lines read the shard's raw cells as numbers and failed on ``u1``: the user got "value 'u1'
    is not a whole number" for a well-formed id. The block's duplicate error now stands (it
    names the pair by its number; the local reader names ``u1`` and the line)."""
    pytest.importorskip("dask.dataframe")
    from bench import cli

    (tmp_path / "r.csv").write_text("u,i,r,t\nu1,1,4,100\nu2,2,3,101\nu1,1,5,102\n",
                                    encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(tmp_path)
        status = cli.main(["convert", "--ratings", "r.csv", "--user", "u", "--item", "i",
                           "--rating", "r", "--timestamp", "t", "--out", "o", "--engine", "dask",
                           "--negatives", "1"])
    err = capsys.readouterr().err
    assert status == 2
    assert "duplicate (user=" in err, err
    assert "not a whole number" not in err, err
    assert not (tmp_path / "o" / "train.txt").exists()
