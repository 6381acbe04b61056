"""``bench.benchmark.run`` checks what ``ltrbench run`` checks at the door: an ``out_dir`` that is
a file or the dataset folder, ``splits`` that are not splits, ``progress`` that is not a bool.
Before: a ``NotADirectoryError`` traceback, run files written into the dataset folder, an
``AttributeError`` traceback, and ``progress="no"`` read as true."""

from __future__ import annotations

from pathlib import Path

import pytest

import bench.benchmark as bb
from bench.errors import ConfigError


@pytest.fixture
def letor(tmp_path: Path) -> Path:
    folder = tmp_path / "ds"
    folder.mkdir()
    for split, base in (("train", 0), ("vali", 10), ("test", 20)):
        lines = [f"{(q + d) % 3} qid:{base + q} 1:{d / 7:.3f} 2:{q / 5:.3f}"
                 for q in range(1, 5) for d in range(4)]
        (folder / f"{split}.txt").write_text("\n".join(lines) + "\n")
    return folder


def test_an_out_dir_that_is_a_file_is_refused(letor: Path, tmp_path: Path) -> None:
    f = tmp_path / "afile"
    f.write_text("x")
    with pytest.raises(ConfigError, match="is an existing file"):
        bb.run(str(letor), models="random", seeds=[0], out_dir=f)
    assert f.read_text() == "x"


def test_an_out_dir_that_is_the_dataset_folder_is_refused_and_left_untouched(letor: Path) -> None:
    before = sorted(p.name for p in letor.iterdir())
    with pytest.raises(ConfigError, match="is the input folder dataset"):
        bb.run(str(letor), models="random", seeds=[0], out_dir=letor)
    assert sorted(p.name for p in letor.iterdir()) == before


@pytest.mark.parametrize(("kw", "expected"), [
    ({"splits": {"train": 1}}, "splits: expected a bench.data.LetorSplits"),
    ({"progress": "no"}, "progress: expected True or False"),
])
def test_arguments_of_the_wrong_type_are_refused(letor: Path, kw: dict, expected: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(ConfigError, match=expected):
        bb.run(str(letor), models="random", seeds=[0], **kw)


def test_a_good_call_still_runs(letor: Path, tmp_path: Path) -> None:
    result = bb.run(str(letor), models="random", seeds=[0], out_dir=tmp_path / "out")
    assert result.run_dir.parent == tmp_path / "out" / "runs"
