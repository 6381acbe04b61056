"""Runs are ordered by the instant they finished, not by the text of their times."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.errors import DataError
from bench.runs.search import find_runs


def _run(root: Path, name: str, finished: str) -> None:
    d = root / name
    d.mkdir(parents=True)
    (d / "metrics.csv").write_text("dataset,model,seed,split,metric,value\n")
    (d / "manifest.json").write_text(json.dumps({"run_id": name, "finished": finished}))


def test_runs_with_other_time_zone_offsets_are_ordered_by_the_instant(tmp_path: Path) -> None:
    # 2026-01-02T00:00+05:00 is 2026-01-01T19:00Z: an hour BEFORE 2026-01-01T20:00Z,
    # although its text sorts after it.
    _run(tmp_path, "a", "2026-01-02T00:00:00+05:00")
    _run(tmp_path, "b", "2026-01-01T20:00:00+00:00")
    assert [r.run_id for r in find_runs(tmp_path)] == ["a", "b"]


def test_a_time_without_an_offset_is_read_as_utc(tmp_path: Path) -> None:
    _run(tmp_path, "a", "2026-01-01T21:00:00")
    _run(tmp_path, "b", "2026-01-01T20:30:00+00:00")
    assert [r.run_id for r in find_runs(tmp_path)] == ["b", "a"]


def test_a_finish_time_that_is_not_a_time_names_the_manifest(tmp_path: Path) -> None:
    _run(tmp_path, "a", "yesterday")
    _run(tmp_path, "b", "2026-01-01T20:30:00+00:00")
    with pytest.raises(DataError, match=r"manifest\.json.*'finished' is 'yesterday'"):
        find_runs(tmp_path)
