"""Round 14 (the lead's cases): a report never replaces a file of the user's that happens to
bear a report's name, and the Dask trainer's start (tests/test_engines_dask_trainer.py has
the stand-in cluster cases)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hostile_kit import cli, letor_folder, refused


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished random-baseline run (results folder ``res``), made once for the module."""
    tmp = tmp_path_factory.mktemp("finished")
    letor_folder(tmp / "letor")
    res = cli(tmp, "run", "--dataset", "./letor", "--quick", "--no-cache", "--no-progress",
              "--no-crosscheck", "--seeds", "0", "--models", "random", "--out", "res")
    assert res.status == 0, res.err
    return tmp


@pytest.fixture
def world(finished: Path, tmp_path: Path) -> Path:
    shutil.copytree(finished, tmp_path, dirs_exist_ok=True)
    return tmp_path


USERS_OWN = {
    "leaderboard.md": b"# My team's leaderboard\n\nHand-written notes, months of work.\n",
    "leaderboard.csv": b"model,ndcg\nmine,0.9\n",
    "leaderboard.json": b'{"mine": 0.9}\n',
    "leaderboard.tex": b"\\begin{tabular}{ll}mine & 0.9\\end{tabular}\n",
}


@pytest.mark.parametrize("name", list(USERS_OWN))
def test_a_users_own_file_of_a_reports_name_is_refused_and_kept(world: Path, name: str) -> None:
    out = world / "board"
    out.mkdir()
    (out / name).write_bytes(USERS_OWN[name])
    res = cli(world, "report", "--runs", "res/runs", "--out", "board", "--no-plots",
              "--no-progress")
    assert refused(res, name, "no ltrbench report wrote") is None, res.err
    assert (out / name).read_bytes() == USERS_OWN[name]
    assert sorted(p.name for p in out.iterdir()) == [name]  # nothing else written beside it


def test_a_users_own_html_page_is_refused_with_html_and_left_alone_without(world: Path) -> None:
    out = world / "board"
    out.mkdir()
    page = b"<!DOCTYPE html><html><body>our dashboard</body></html>\n"
    (out / "leaderboard.html").write_bytes(page)
    res = cli(world, "report", "--runs", "res/runs", "--out", "board", "--no-plots",
              "--no-progress", "--html")
    assert refused(res, "leaderboard.html") is None, res.err
    assert not (out / "leaderboard.md").exists()  # refused before any file was written
    res = cli(world, "report", "--runs", "res/runs", "--out", "board", "--no-plots",
              "--no-progress")
    assert res.status == 0, res.err
    assert (out / "leaderboard.html").read_bytes() == page
    assert (out / "leaderboard.md").read_text(encoding="utf-8").startswith(
        "# ltrbench leaderboard")


def test_a_report_written_before_the_listing_existed_is_replaced(world: Path) -> None:
    """A folder an older ltrbench filled (no ``.ltrbench-report.json``): its files read as a
    report's, so a new report replaces them."""
    res = cli(world, "report", "--runs", "res/runs", "--out", "board", "--no-plots",
              "--no-progress", "--html")
    assert res.status == 0, res.err
    (world / "board" / ".ltrbench-report.json").unlink()
    md = world / "board" / "leaderboard.md"
    md.write_text(md.read_text(encoding="utf-8") + "\nan older report's last line\n",
                  encoding="utf-8")
    res = cli(world, "report", "--runs", "res/runs", "--out", "board", "--no-plots",
              "--no-progress", "--html")
    assert res.status == 0, res.err
    assert "an older report's last line" not in md.read_text(encoding="utf-8")


def test_a_link_named_like_a_report_file_is_refused_and_its_target_kept(world: Path) -> None:
    out = world / "board"
    out.mkdir()
    (world / "thesis.md").write_text("# ltrbench leaderboard\nmy thesis\n", encoding="utf-8")
    (out / "leaderboard.md").symlink_to(world / "thesis.md")
    res = cli(world, "report", "--runs", "res/runs", "--out", "board", "--no-plots",
              "--no-progress")
    assert refused(res, "leaderboard.md") is None, res.err
    assert (world / "thesis.md").read_text(encoding="utf-8") == "# ltrbench leaderboard\nmy thesis\n"


@pytest.mark.parametrize("name", ["a/b", "c/b", "a\\b", "Fold/1"])
def test_a_dataset_name_holding_a_path_separator_is_refused_before_any_run(
        world: Path, name: str) -> None:
    """Folders and fold tables are named after the text after the last separator: ``--name
    a/b`` and ``--name c/b`` wrote one fold table, ``b-folds1``, the second over the first."""
    res = cli(world, "run", "--dataset", "./letor", "--quick", "--no-progress", "--seeds", "0",
              "--models", "random", "--name", name, "--out", "named")
    assert refused(res, "--name", repr(name), "not a path") is None, res.err
    assert not (world / "named").exists()
    (world / "n.toml").write_text(f"name = {name!r}\n", encoding="utf-8")
    res = cli(world, "run", "--config", "n.toml", "--dataset", "./letor", "--quick",
              "--no-progress", "--seeds", "0", "--models", "random", "--out", "named")
    assert refused(res, "n.toml", "name", "not a path") is None, res.err
