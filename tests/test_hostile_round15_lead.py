"""Round 15, the lead's own cases: a folder of LightGBM's example layout beside another split set
(left by round 15b, which made a text set beside a Parquet set one conversion's or refused)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hostile_kit import cli, letor_split, refused, snapshot

RUN = ("--models", "random", "--quick", "--no-progress", "--no-cache", "--seeds", "0")


def _lightgbm_example(folder: Path) -> Path:
    """LightGBM's ``examples/lambdarank`` layout in miniature: ``rank.train`` / ``rank.test``
    (SVMlight without ``qid:``) and their ``.query`` group sizes."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    for name, n_queries in (("rank.train", 12), ("rank.test", 4)):
        lines = [f"{int(rng.integers(0, 3))} 1:{rng.random():.4f} 2:{rng.random():.4f}"
                 for _ in range(n_queries * 5)]
        (folder / name).write_text("\n".join(lines) + "\n")
        (folder / f"{name}.query").write_text("5\n" * n_queries)
    return folder


def test_the_lightgbm_example_alone_still_reads(tmp_path: Path) -> None:
    _lightgbm_example(tmp_path / "ex")
    res = cli(tmp_path, "run", "--dataset", "./ex", *RUN, "--out", "res")
    assert res.status == 0, res.err


@pytest.mark.parametrize("other", ["parquet", "letor-flat", "letor-fold"])
def test_the_lightgbm_example_beside_another_split_set_is_refused_naming_both(
        tmp_path: Path, other: str) -> None:
    """The example's files were read and the other set ignored without a word."""
    ex = _lightgbm_example(tmp_path / "ex")
    if other == "parquet":
        for s in ("train", "vali", "test"):
            (ex / f"{s}.parquet").write_bytes(b"PAR1")  # never read: the refusal comes first
        named = "train.parquet"
    else:
        where = ex / "Fold1" if other == "letor-fold" else ex
        where.mkdir(exist_ok=True)
        for i, s in enumerate(("train", "vali", "test")):
            (where / f"{s}.txt").write_bytes(letor_split(3, 100 * i, i))
        named = "Fold1/train.txt" if other == "letor-fold" else "train.txt"
    before = snapshot(ex)
    res = cli(tmp_path, "run", "--dataset", "./ex", *RUN, "--out", "res")
    assert refused(res, "rank.train", named, "two split sets") is None, res.err
    assert snapshot(ex) == before
    assert not (tmp_path / "res").exists() or not any((tmp_path / "res").rglob("metrics.csv"))
