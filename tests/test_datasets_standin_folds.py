"""The stand-ins (synthetic-mslr30k, synthetic-yahoo, synthetic-istella) have five folds too
(issue 21 item 1): their queries pooled and cut into five parts S1..S5 once, in the data
directory, and each fold built by the published rotation (bench/datasets/folds.py) through the
parsed-file cache. Every query is in exactly one test fold; the MSLR shape's fold 1 is its own
single split, row for row."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bench.benchmark.folds import fold_datasets
from bench.datasets.folds import part_bounds, rotation
from bench.datasets.resolve import load_dataset, resolve_spec
from bench.errors import ConfigError


def _folds(spec: str, data_dir: Path) -> list:  # type: ignore[type-arg]
    return [load_dataset(resolve_spec(f"{spec}:Fold{k}"), data_dir=data_dir) for k in range(1, 6)]


@pytest.mark.parametrize("spec", ["synthetic-mslr30k:0.002", "synthetic-istella:0.0008,seed=2",
                                  "synthetic-yahoo:0.003"])
def test_the_five_test_folds_partition_the_queries_of_a_stand_in(tmp_path: Path, spec: str) -> None:
    folds = _folds(spec, tmp_path)
    plain = load_dataset(resolve_spec(spec), data_dir=tmp_path)
    every = np.unique(np.concatenate([plain.train.qid, plain.vali.qid, plain.test.qid]))
    tests = [np.unique(f.test.qid) for f in folds]
    pooled = np.concatenate(tests)
    assert len(pooled) == len(np.unique(pooled))  # no query in two test folds
    assert np.array_equal(np.sort(pooled), every)  # and every query in one
    bounds = part_bounds(len(every))
    for k, f in enumerate(folds, start=1):
        plan = rotation(k)
        assert f.name == f"{spec}:Fold{k}"
        assert f.meta["parts"] == {"train": [f"S{i}" for i in plan.train], "vali": f"S{plan.vali}",
                                   "test": f"S{plan.test}"}
        assert len(np.unique(f.test.qid)) == bounds[plan.test] - bounds[plan.test - 1]
        in_fold = np.concatenate([np.unique(f.train.qid), np.unique(f.vali.qid), tests[k - 1]])
        assert np.array_equal(np.sort(in_fold), every)  # train, vali, test: every query once


def test_the_mslr_stand_in_s_fold_1_is_its_single_split_row_for_row(tmp_path: Path) -> None:
    plain = load_dataset(resolve_spec("synthetic-mslr30k:0.002"), data_dir=tmp_path)
    fold1 = load_dataset(resolve_spec("synthetic-mslr30k:0.002:Fold1"), data_dir=tmp_path)
    for split in ("train", "vali", "test"):
        a, b = getattr(plain, split), getattr(fold1, split)
        assert np.array_equal(a.X, b.X)
        assert np.array_equal(a.y, b.y)
        assert np.array_equal(a.qid, b.qid)


def test_the_parts_are_written_once_and_read_through_the_cache(tmp_path: Path) -> None:
    _folds("synthetic-mslr30k:0.002", tmp_path)
    (folder,) = [p for p in tmp_path.iterdir() if p.name.startswith("synthetic-mslr30k-")]
    parts = sorted(p.name for p in (folder / "folds").iterdir())
    assert parts == ["S1.txt", "S2.txt", "S3.txt", "S4.txt", "S5.txt"]
    stamp = [(folder / "folds" / p).stat().st_mtime_ns for p in parts]
    cached = sorted(p.name for p in (tmp_path / "cache").rglob("*") if p.is_file())
    _folds("synthetic-mslr30k:0.002", tmp_path)  # again: nothing rewritten, nothing parsed anew
    assert [(folder / "folds" / p).stat().st_mtime_ns for p in parts] == stamp
    assert sorted(p.name for p in (tmp_path / "cache").rglob("*") if p.is_file()) == cached
    assert not [p for p in folder.iterdir() if p.name.startswith(".folds")]  # no staging left


def test_folds_all_on_a_stand_in_names_its_five_fold_datasets() -> None:
    assert fold_datasets("synthetic-mslr30k:0.01", (1, 2, 3, 4, 5)) == [
        f"synthetic-mslr30k:0.01:Fold{k}" for k in range(1, 6)]


@pytest.mark.parametrize("spec", ["synthetic-mslr30k:Fold6", "synthetic-mslr30k:0.01:Fold0"])
def test_a_fold_outside_1_to_5_of_a_stand_in_is_refused(spec: str) -> None:
    with pytest.raises(ConfigError, match=r"Fold1 \.\. .*Fold5"):
        resolve_spec(spec)
