"""A conversion's files are one set: a new conversion replaces all of them or none."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from bench.adapters import AdapterConfig, convert
from bench.data.atomic import replace_file_set
from bench.datasets.synthetic import generate_ratings

CFG = AdapterConfig(negatives=5, feature_groups=("user", "item"), target_size=2, min_history=2)


def _ratings(seed: int):  # type: ignore[no-untyped-def]
    return generate_ratings(n_users=30, n_items=200, n_ratings=1200, seed=seed)


def test_a_text_only_conversion_removes_the_earlier_conversions_parquet_files(tmp_path: Path) -> None:
    convert(_ratings(1), tmp_path, CFG)
    assert (tmp_path / "train.parquet").is_file()
    convert(_ratings(2), tmp_path, CFG, parquet=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "summary.json", "test.txt", "test.txt.query", "train.txt", "train.txt.query",
        "vali.txt", "vali.txt.query"]


def test_a_conversion_that_fails_midway_leaves_the_earlier_set_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    convert(_ratings(1), tmp_path, CFG)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    conv = importlib.import_module("bench.adapters.convert")  # the package exports the function

    calls = {"n": 0}
    real = conv.write_svmlight

    def failing(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 3:  # train and vali written, test fails
            raise OSError(28, "No space left on device")
        return real(*args, **kwargs)

    monkeypatch.setattr(conv, "write_svmlight", failing)
    with pytest.raises(OSError, match="No space"):
        convert(_ratings(2), tmp_path, CFG)
    after = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert after == before  # no new train beside the old test, no temporary folder left


def test_a_killed_writers_temporary_folder_is_cleaned_by_the_next_writer(tmp_path: Path) -> None:
    orphan = tmp_path / ".set-999999999-abc.tmp"  # no such process
    orphan.mkdir()
    (orphan / "train.txt").write_text("half")
    with replace_file_set(tmp_path, ["train.txt"]) as tmp:
        (tmp / "train.txt").write_text("new")
    assert not orphan.exists()
    assert (tmp_path / "train.txt").read_text() == "new"


def test_a_killed_writers_temporary_file_is_removed_by_the_next_write(tmp_path: Path) -> None:
    from bench.data.atomic import write_text

    orphan = tmp_path / ".leaderboard.md.999999999-x1y2.tmp"  # its writer is gone
    orphan.write_text("half")
    mine = tmp_path / f".leaderboard.md.{__import__('os').getpid()}-live.tmp"  # a live writer's
    mine.write_text("in progress")
    write_text(tmp_path / "leaderboard.md", "new")
    assert not orphan.exists()
    assert mine.exists()
    assert (tmp_path / "leaderboard.md").read_text() == "new"


def test_convert_on_a_terminal_says_each_stage_and_in_a_script_only_the_summary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    from bench import cli

    argv = ["convert", "--ratings", "synthetic", "--synthetic-users", "30",
            "--synthetic-items", "200", "--synthetic-ratings", "1200", "--features", "user",
            "--target-size", "2", "--min-history", "2", "--negatives", "5"]
    assert cli.main([*argv, "--out", str(tmp_path / "a")]) == 0
    assert capsys.readouterr().err == ""  # not a terminal: no progress lines
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert cli.main([*argv, "--out", str(tmp_path / "b")]) == 0
    stages = [line.split(": ", 1)[1].rsplit(" (", 1)[0]
              for line in capsys.readouterr().err.splitlines()]
    assert stages[:3] == ["reading synthetic", "table", "split"]
    assert "features (test)" in stages
    assert stages[-1] == "writing the files"
