"""Round 8: a LETOR root whose fold test files repeat each other.

LETOR's five test folds are disjoint sets of queries; a fold table pools them. Before, a
``Fold2/test.txt`` that was a copy of (or a link to) ``Fold1/test.txt`` was trained and pooled:
the same queries counted twice in the fold table's mean and tests, without a word.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from bench.benchmark.folds import fold_datasets
from bench.cli import main
from bench.errors import DataError


def _split(first_qid: int) -> str:
    return "".join(f"{(d + q) % 3} qid:{first_qid + q} 1:{d / 10:.1f} 2:{q / 10:.1f}\n"
                   for q in range(4) for d in range(3))


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "letor"
    for k in range(1, 4):
        fold = root / f"Fold{k}"
        fold.mkdir(parents=True)
        (fold / "train.txt").write_text(_split(100 * k + 50), encoding="utf-8")
        (fold / "vali.txt").write_text(_split(100 * k + 70), encoding="utf-8")
        (fold / "test.txt").write_text(_split(100 * k), encoding="utf-8")
    return root


def test_distinct_test_folds_are_accepted(tmp_path: Path) -> None:
    root = _root(tmp_path)
    assert fold_datasets(str(root), [1, 2, 3]) == [f"{root}:Fold{k}" for k in (1, 2, 3)]


@pytest.mark.parametrize("how", ["copy", "hard link", "symlink"])
def test_a_test_fold_that_repeats_another_is_refused_naming_both(tmp_path: Path, how: str) -> None:
    root = _root(tmp_path)
    first, third = root / "Fold1" / "test.txt", root / "Fold3" / "test.txt"
    third.unlink()
    {"copy": lambda: shutil.copyfile(first, third), "hard link": lambda: os.link(first, third),
     "symlink": lambda: third.symlink_to(first)}[how]()
    with pytest.raises(DataError, match=r"Fold3 .* same bytes as Fold1's") as caught:
        fold_datasets(str(root), [1, 2, 3])
    assert str(first) in str(caught.value)
    assert fold_datasets(str(root), [1, 2]) == [f"{root}:Fold1", f"{root}:Fold2"]  # not picked


def test_the_command_refuses_it_in_one_line_before_training(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _root(tmp_path)
    shutil.copyfile(root / "Fold2" / "test.txt", root / "Fold1" / "test.txt")
    out = tmp_path / "out"
    assert main(["run", "--dataset", str(root), "--folds", "1,2,3", "--models", "random",
                 "--seeds", "0", "--quick", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "Fold2" in err
    assert "Fold1" in err
    assert not (out / "runs").exists()  # refused before the first fold trained
