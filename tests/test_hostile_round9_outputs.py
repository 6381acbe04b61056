"""Hostile outputs, round 9 (issue 19 item 4): new instances of "outputs never over inputs".

* ``crosscheck`` (found here): ``ltrbench crosscheck --dataset DIR --out DIR`` (also spelled
  ``./DIR/``, ``/proc/self/cwd/DIR`` or absolute) exited 0 after training a run *inside the
  dataset folder* (``DIR/runs/<id>/``) and writing ``DIR/<dataset>/crosscheck.{md,json}``
  there; ``run --out DIR`` refused the same folder. Now refused before any work, as ``run``'s.
* ``aliases`` (held): an output reached through a symbolic-link working directory and ``..``
  (the kernel resolves ``..`` from the real folder, not the link's parent) or through
  ``/proc/self/cwd`` is the input it names: ``evaluate --per-query`` and ``run --out`` refuse.

Every refusal: exit 2, one line naming the option, the inputs byte-identical.
Earlier rounds: ``tests/test_hostile_outputs.py``, ``..._round7_outputs.py``,
``..._round8_outputs.py``, ``tests/test_hostile_round9_report.py`` (``report --tuned``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import QRELS, RUN, cli, letor_folder, refused, snapshot, untouched


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize("out", ["letor", "./letor/", "/proc/self/cwd/letor", "{abs}"],
                         ids=["name", "dotted", "proc-self-cwd", "absolute"])
def test_crosscheck_out_that_is_the_dataset_folder_is_refused_before_training(
        tmp_path: Path, out: str) -> None:
    letor_folder(tmp_path / "letor")
    before, listing = snapshot(tmp_path / "letor"), _files(tmp_path / "letor")
    res = cli(tmp_path, "crosscheck", "--dataset", "letor", "--quick", "--models", "lightgbm",
              "--out", out.format(abs=tmp_path / "letor"))
    assert refused(res, "--out", "input folder --dataset") is None, res.err
    assert untouched(before, tmp_path / "letor") is None
    assert _files(tmp_path / "letor") == listing  # no runs/ folder made inside it


def test_crosscheck_out_whose_runs_folder_holds_the_dataset_is_refused(tmp_path: Path) -> None:
    """``--dataset res/runs/letor --out res``: the run would be created beside the dataset."""
    letor_folder(tmp_path / "res" / "runs" / "letor")
    before = snapshot(tmp_path / "res")
    res = cli(tmp_path, "crosscheck", "--dataset", "res/runs/letor", "--quick", "--models",
              "lightgbm", "--out", "res")
    assert refused(res, "--out", "res/runs") is None, res.err
    assert untouched(before, tmp_path / "res") is None


@pytest.fixture
def linked(tmp_path: Path) -> Path:
    """``real/{q.txt, r.txt, letor/}`` and ``link`` -> ``real/sub`` (the working directory)."""
    (tmp_path / "real" / "sub").mkdir(parents=True)
    (tmp_path / "real" / "q.txt").write_bytes(QRELS)
    (tmp_path / "real" / "r.txt").write_bytes(RUN)
    letor_folder(tmp_path / "real" / "letor")
    (tmp_path / "link").symlink_to(tmp_path / "real" / "sub")
    return tmp_path


@pytest.mark.parametrize("out", ["../q.txt", "../r.txt", "/proc/self/cwd/../q.txt"],
                         ids=["dotdot-qrels", "dotdot-run", "proc-self-cwd"])
def test_per_query_through_a_linked_working_directory_onto_an_input_is_refused(
        linked: Path, out: str) -> None:
    before = snapshot(linked / "real")
    res = cli(linked / "link", "evaluate", "--qrels", "../q.txt", "--run", "../r.txt",
              "--per-query", out)
    assert refused(res, "--per-query", "input") is None, res.err
    assert untouched(before, linked / "real") is None


@pytest.mark.parametrize("out", ["../letor", "/proc/self/cwd/../letor"],
                         ids=["dotdot", "proc-self-cwd"])
def test_run_out_through_a_linked_working_directory_onto_the_dataset_is_refused(
        linked: Path, out: str) -> None:
    before = snapshot(linked / "real")
    res = cli(linked / "link", "run", "--dataset", "../letor", "--quick", "--no-progress",
              "--seeds", "0", "--models", "random", "--out", out)
    assert refused(res, "--out", "input folder") is None, res.err
    assert untouched(before, linked / "real") is None
