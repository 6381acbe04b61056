"""The memory estimate made before a dataset is loaded, and the refusal when it will not fit."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bench.datasets.memory import RUN_FACTOR, Estimate, check_fits, estimate_letor
from bench.errors import DataError


def _letor(path: Path, rows: int, features: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    with open(path, "w") as fh:
        for r in range(rows):
            feats = " ".join(f"{j + 1}:{rng.integers(0, 50)}" for j in range(features))
            fh.write(f"{rng.integers(0, 5)} qid:{r // 20} {feats}\n")


def test_the_estimate_counts_rows_and_columns_of_a_file_larger_than_its_sample(tmp_path, monkeypatch):
    import bench.datasets.memory as memory

    f = tmp_path / "train.txt"
    _letor(f, 3000, 46)
    monkeypatch.setattr(memory, "SAMPLE_BYTES", 64 << 10)  # sample a fraction of the file
    assert f.stat().st_size > 4 * memory.SAMPLE_BYTES
    est = estimate_letor([f])
    assert est.columns == 46
    assert abs(est.rows - 3000) / 3000 < 0.05
    assert est.feature_bytes == est.rows * 46 * 4


def test_a_dataset_that_will_not_fit_is_refused_with_both_figures_and_advice():
    est = Estimate(rows=2_270_296, columns=136, feature_bytes=2_270_296 * 136 * 4)
    with pytest.raises(DataError) as info:
        check_fits(est, what="synthetic-mslr30k", available=1 << 30)
    msg = str(info.value)
    assert "2,270,296 rows x 136 features" in msg
    assert f"{est.feature_bytes * RUN_FACTOR / (1 << 30):.1f} GiB" in msg
    assert "1.0 GiB is available" in msg
    assert "smaller scale" in msg
    check_fits(est, what="fits", available=est.run_bytes)  # exactly enough: accepted


def test_loading_a_letor_folder_that_will_not_fit_stops_before_reading(tmp_path, monkeypatch):
    import bench.datasets.memory as memory
    from bench.datasets.resolve import load_dataset

    fold = tmp_path / "big" / "Fold1"
    fold.mkdir(parents=True)
    for split in ("train", "vali", "test"):
        _letor(fold / f"{split}.txt", 200, 10)
    monkeypatch.setattr(memory, "available_bytes", lambda: 1024)  # 1 KiB free
    with pytest.raises(DataError, match="is available"):
        load_dataset(str(tmp_path / "big"))
    monkeypatch.setattr(memory, "available_bytes", lambda: 1 << 34)
    assert load_dataset(str(tmp_path / "big")).train.n_rows == 200
