"""Round 9 of the hostile catalogue (issue 19): test folds that share a query are refused for a
catalogue dataset too, not only for a folder given by path.

Before: ``ltrbench run --dataset mq2007 --folds all`` over a local MQ2007 copy whose
``Fold2/test.txt`` repeats a query of ``Fold1/test.txt`` trained every fold and pooled that
query twice in the fold table (the check ran only on the path branch of the fold plan).
"""

from __future__ import annotations

from pathlib import Path

from hostile_kit import cli


def _line(qid: int, label: int) -> str:
    return f"{label} qid:{qid} " + " ".join(f"{j}:{0.1 * j:.1f}" for j in range(1, 47)) + "\n"


def _fold(folder: Path, test_qids: tuple[int, ...]) -> None:
    folder.mkdir(parents=True)
    for split, qids in (("train", (101, 102)), ("vali", (201,)), ("test", test_qids)):
        (folder / f"{split}.txt").write_text(
            "".join(_line(q, y) for q in qids for y in (0, 1)), encoding="utf-8")


def test_a_catalogue_datasets_test_folds_sharing_a_query_are_refused_before_training(
        tmp_path: Path) -> None:
    root = tmp_path / "data" / "MQ2007"
    _fold(root / "Fold1", (301, 302))
    _fold(root / "Fold2", (303, 302))  # query 302 tested in both folds
    res = cli(tmp_path, "run", "--dataset", "mq2007", "--folds", "1,2", "--data-dir",
              str(tmp_path / "data"), "--models", "random", "--quick", "--no-progress",
              "--out", "res")
    assert res.status == 2, res.err
    line = res.err.strip().splitlines()[0]
    assert "302" in line
    assert "Fold1" in line
    assert "Fold2" in line
    assert not (tmp_path / "res" / "runs").exists()
