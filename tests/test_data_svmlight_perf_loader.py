"""``ltrbench perf loader`` plumbing: the fold it times (the generated synthetic-mslr30k shape) is
what sklearn reads, and a tiny benchmark run reports every reader (no timing is asserted:
targets are shown as ratios)."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from sklearn.datasets import load_svmlight_file

from bench.data.svmlight import read_svmlight
from bench.perf import loader


def test_mslr_like_file_is_dense_136_features_and_reads_as_sklearn_reads_it(tmp_path: Path) -> None:
    from bench.datasets.letor_shapes import write_letor_shape

    shape = loader.mslr_shape()
    f = write_letor_shape(shape, tmp_path, scale=700 / sum(shape.rows.values()), seed=3)["train"]
    first = f.read_text().splitlines()[0].split()
    assert first[1].startswith("qid:")
    assert [t.split(":")[0] for t in first[2:]] == [str(j) for j in range(1, 137)]
    data = read_svmlight(f)
    X, y, q = load_svmlight_file(str(f), query_id=True, dtype=np.float32, zero_based=False)
    assert data.X.tobytes() == X.toarray().astype(np.float32).tobytes()
    assert data.y.tobytes() == y.tobytes()
    assert data.qid.tolist() == q.tolist()
    assert set(np.unique(y).tolist()) <= {0.0, 1.0, 2.0, 3.0, 4.0}
    assert (data.X < 0).any()  # the signed "LMIR-like" features
    assert data.n_queries >= 3


def test_tiny_benchmark_reports_every_reader_with_ratios_against_sklearn(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    loader.add_arguments(parser)
    out = tmp_path / "loader.md"
    args = parser.parse_args(["--rows", "600", "--repeat", "2", "--dir", str(tmp_path / "w"),
                              "--out", str(out)])
    assert loader.run(args) == 0
    text = out.read_text()
    for name in (loader.SKLEARN, loader.NO_CACHE, loader.COLD, loader.WARM):
        assert f"| {name} |" in text
    assert text.count("x faster") == 3
    assert "warm-cache breakdown" in text
    assert "Load average" in text
    fold = tmp_path / "w" / "fold" / "Fold1"
    lines = {s: len((fold / f"{s}.txt").read_text().splitlines()) for s in ("train", "vali", "test")}
    assert sum(lines.values()) == 600  # --rows, split in MSLR-WEB30K Fold1's proportions
    assert lines["train"] > lines["vali"] + lines["test"]
    files = sorted(p.name for p in (tmp_path / "w" / "fold" / "Fold1").iterdir())
    assert files == ["test.txt", "train.txt", "vali.txt"]
