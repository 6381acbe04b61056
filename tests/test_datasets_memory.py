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


def test_the_estimate_of_real_letor_files_is_their_parsed_rows_and_columns(shared_data: Path,
                                                                          monkeypatch) -> None:
    """The estimate reads a sample of 64 KiB (a fraction of OHSUMED's files): its rows are
    within 10 % of the parsed file's, its columns exact (the parser: tests/test_data_svmlight_oracle
    holds it equal to scikit-learn's reader on these files)."""
    import bench.datasets.memory as memory
    from bench.data.svmlight import read_svmlight

    files = sorted((shared_data / "letor3-OHSUMED-QueryLevelNorm").glob("S[0-9].txt"))
    files += [shared_data / "lightgbm-lambdarank" / "rank.train"]
    files = [f for f in files if f.is_file()]
    if not files:
        pytest.skip(f"no LETOR files under {shared_data}")
    monkeypatch.setattr(memory, "SAMPLE_BYTES", 64 << 10)
    for f in files:
        parsed = read_svmlight(f)
        est = estimate_letor([f])
        assert est.columns == parsed.X.shape[1], f
        assert abs(est.rows - parsed.n_rows) / parsed.n_rows < 0.10, (f, est.rows, parsed.n_rows)


@pytest.mark.parametrize("end", [b"\r", b"\r\n"])
def test_cr_line_ends_count_as_lines_in_the_estimate(tmp_path: Path, end: bytes) -> None:
    f = tmp_path / "train.txt"
    f.write_bytes(end.join(b"%d qid:%d 1:0.5 3:1 7:2" % (i % 3, i // 4) for i in range(40)) + end)
    est = estimate_letor([f])
    assert (est.rows, est.columns) == (40, 7)


def test_an_index_beyond_the_limit_in_the_sample_names_its_line(tmp_path: Path) -> None:
    f = tmp_path / "train.txt"
    f.write_text("1 qid:1 1:0.5 2:1\n0 qid:1 1:0.1 20000000:3\n")
    with pytest.raises(DataError, match=r"train\.txt:2: feature index 20000000 is beyond the "
                                         r"limit of 10,000,000 features"):
        estimate_letor([f])
