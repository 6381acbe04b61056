"""Hostile ``ltrbench report`` cases, round 9 (issue 19 items 4 and 7): new instances.

Classes (earlier rounds: ``tests/test_hostile_report*.py``, ``..._round8_report*.py``,
``tests/test_report_tuning_hostile.py``):

* ``tuned outputs`` (found here): ``report --tuned TUNE --out OUT`` wrote its files into the
  tune folder when ``OUT`` was the tune folder or lay inside it, into a run folder given to
  ``--runs``, among the run folders, and -- when the tune folder was ``OUT/tuned-<dataset>/``,
  the sub-folder the report writes -- replaced the tune's ``trials.csv`` and removed its
  ``best_so_far.png`` (the report's set owns those names there; ``--no-plots`` draws none).
  Now each is refused before anything is written, every file of the tune and the runs intact.
* ``look-alike names`` (found here): two datasets whose names differ only in Unicode
  normalisation (``café`` composed and decomposed) or by an invisible character (a zero-width
  space) made two tables, two selection lines and two headings that read the same. Now a name
  that is not what it looks like is followed by its escaped spelling (``café (cafe\\u0301)``);
  a plain name is shown as it is.
"""

from __future__ import annotations

import hashlib
import shutil
import sys
import unicodedata
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import cli, refused
from test_report_leaderboard import write_run
from tuning_fixture import make_runs

FAST = ("--bootstrap", "50", "--permutations", "100", "--no-progress", "--no-plots")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("tuned")
    default, tuned, folder = make_runs(base)
    (folder / "best_so_far.png").write_bytes(b"\x89PNG the tune's own figure")
    return {"base": base, "default": default, "tuned": tuned, "tune": folder}


def _digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


Where = Callable[[Path, dict[str, Path]], tuple[Path, Path]]  # (tune folder, --out)

WHERE: list[tuple[str, Where, tuple[str, ...]]] = [
    ("out-is-the-tune-folder", lambda t, w: (t / "tune", t / "tune"), ("--tuned", "is the input")),
    ("out-inside-the-tune-folder", lambda t, w: (t / "tune", t / "tune" / "best"),
     ("--tuned", "lies inside")),
    ("tune-folder-is-out-tuned-dataset", lambda t, w: (t / "x" / "tuned-tiny", t / "x"),
     ("tuned-tiny", "--tuned")),
    ("out-is-a-run-folder", lambda t, w: (t / "tune", w["default"]), ("--runs", "is the input")),
    ("out-holds-the-run-folders", lambda t, w: (t / "tune", w["default"].parent),
     ("run directories",)),
]


@pytest.mark.parametrize(("where", "words"), [c[1:] for c in WHERE], ids=[c[0] for c in WHERE])
def test_a_tuned_report_over_its_inputs_is_refused_and_they_stay_intact(
        world: dict[str, Path], tmp_path: Path, where: Where, words: tuple[str, ...]) -> None:
    tune, out = where(tmp_path, world)
    shutil.copytree(world["tune"], tune)
    runs = world["default"].parent
    before = {"tune": _digest(tune), "runs": _digest(runs)}
    res = cli(tmp_path, "report", "--tuned", str(tune), "--runs", str(world["default"]),
              str(world["tuned"]), "--out", str(out), *FAST)
    assert refused(res, "--out", *words) is None, res.err
    assert _digest(tune) == before["tune"]
    assert _digest(runs) == before["runs"]


def test_a_tuned_report_beside_the_tune_folder_is_written(world: dict[str, Path],
                                                          tmp_path: Path) -> None:
    """``OUT/tuned-tiny/t``: the tune folder is below the sub-folder the report writes, in a
    folder of its own that the report does not touch."""
    tune = tmp_path / "y" / "tuned-tiny" / "t"
    shutil.copytree(world["tune"], tune)
    before = _digest(tune)
    res = cli(tmp_path, "report", "--tuned", str(tune), "--runs", str(world["default"]),
              str(world["tuned"]), "--out", str(tmp_path / "y"), *FAST)
    assert res.status == 0, res.err
    assert (tmp_path / "y" / "leaderboard-tuned-tiny.md").is_file()
    assert _digest(tune) == before


# ------------------------------------------------------------------------ look-alike names


NFC = unicodedata.normalize("NFC", "café")
NFD = unicodedata.normalize("NFD", "café")


@pytest.mark.parametrize(("odd", "spelled"), [(NFD, "cafe\\u0301"), ("caf\u200be", "caf\\u200be")],
                         ids=["decomposed", "zero-width-space"])
def test_two_datasets_that_look_alike_are_told_apart(tmp_path: Path, odd: str,
                                                     spelled: str) -> None:
    runs = tmp_path / "runs"
    write_run(runs, "a", dataset=NFC if odd == NFD else "cafe")
    write_run(runs, "b", dataset=odd, seed=1)
    res = cli(tmp_path, "report", "--runs", str(runs), "--out", "rep", *FAST)
    assert res.status == 0, res.err
    said = res.err + res.out
    assert f"({spelled}): 1 run(s) found; using b" in said, said
    assert f"({spelled}): 3 models from run b" in said, said
    md = (tmp_path / "rep" / "leaderboard.md").read_text(encoding="utf-8")
    assert f"({spelled.replace(chr(92), chr(92) * 2)})" in md or f"({spelled})" in md, md[:800]


def test_a_plain_name_is_shown_as_it_is(tmp_path: Path) -> None:
    write_run(tmp_path / "runs", "a", dataset=NFC)
    res = cli(tmp_path, "report", "--runs", str(tmp_path / "runs"), "--out", "rep", *FAST)
    assert res.status == 0, res.err
    assert f"{NFC}: 1 run(s) found" in res.err + res.out
    assert "\\u" not in res.err + res.out


# ------------------------------------------------------------------------ other versions


def test_a_metrics_table_without_its_profile_column_says_so(tmp_path: Path) -> None:
    """A ``metrics.csv`` of another layout (no ``profile`` column, so NDCG's blank-query rows
    repeat their cell): before, "the run was merged or edited by hand"."""
    import pandas as pd

    write_run(tmp_path / "runs", "a")
    table = tmp_path / "runs" / "a" / "metrics.csv"
    pd.read_csv(table).drop(columns=["profile"]).to_csv(table, index=False)
    res = cli(tmp_path, "report", "--runs", "runs", "--out", "rep", *FAST)
    assert refused(res, "metrics.csv", "no 'profile' column", "ltrbench version") is None, res.err
