"""LETOR folders, LightGBM's example folder and the validation carve-out, on real shared data."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from bench.data.folders import (
    carve_validation,
    detect_layout,
    find_split_files,
    read_folder,
    read_letor_folder,
    read_lightgbm_dir,
)
from bench.data.letor import LetorData
from bench.data.parquet import write_parquet
from bench.data.svmlight import read_svmlight
from bench.errors import DataError


def _write(p: Path, text: str) -> Path:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


def test_fold_folder_reads_three_files_with_a_shared_feature_count(tmp_path: Path) -> None:
    _write(tmp_path / "Fold1" / "train.txt", "2 qid:1 1:1 5:2\n0 qid:1 2:1\n1 qid:2 1:3\n")
    _write(tmp_path / "Fold1" / "vali.txt", "1 qid:3 1:1\n0 qid:3 2:2\n")
    _write(tmp_path / "Fold1" / "test.txt", "0 qid:4 3:1\n")
    s = read_letor_folder(tmp_path, name="toy")
    assert s.name == "toy"
    assert [s.train.n_features, s.vali.n_features, s.test.n_features] == [5, 5, 5]
    assert s.train.query_ids.tolist() == [1, 2]
    assert s.meta["fold"] == "Fold1"
    assert s.meta["validation"] == {"rule": "file", "file": str(tmp_path / "Fold1" / "vali.txt")}
    assert set(s.inputs) == {str(tmp_path / "Fold1" / f) for f in ("train.txt", "vali.txt",
                                                                     "test.txt")}


def test_flat_folder_with_valid_txt(tmp_path: Path) -> None:
    _write(tmp_path / "train.txt", "1 qid:1 1:1\n0 qid:1 1:2\n")
    _write(tmp_path / "valid.txt", "1 qid:2 1:1\n")
    _write(tmp_path / "test.txt", "1 qid:3 1:1\n")
    assert detect_layout(tmp_path) == "letor"
    files = find_split_files(tmp_path)
    assert files["vali"] == tmp_path / "valid.txt"
    assert read_folder(tmp_path).vali.query_ids.tolist() == [2]


def test_yahoo_style_names_are_found_and_ambiguity_is_an_error(tmp_path: Path) -> None:
    for split in ("train", "valid", "test"):
        _write(tmp_path / f"set1.{split}.txt", f"1 qid:1 1:1\n0 qid:1 1:{len(split)}\n")
    assert find_split_files(tmp_path)["vali"] == tmp_path / "set1.valid.txt"
    _write(tmp_path / "set2.train.txt", "1 qid:1 1:1\n")
    with pytest.raises(DataError, match="several train files"):
        find_split_files(tmp_path)
    explicit = {"train": "set1.train.txt", "vali": "set1.valid.txt", "test": "set1.test.txt"}
    assert find_split_files(tmp_path, splits=explicit)["train"] == tmp_path / "set1.train.txt"


def test_folder_without_vali_carves_validation_from_train_by_query(tmp_path: Path) -> None:
    lines = "".join(f"{q % 3} qid:{q} 1:{q}\n{(q + 1) % 2} qid:{q} 2:{q}\n" for q in range(10))
    _write(tmp_path / "full" / "train.txt", lines)
    _write(tmp_path / "full" / "test.txt", "1 qid:99 1:1\n")
    s = read_letor_folder(tmp_path / "full")
    rule = s.meta["validation"]
    assert rule["n_vali_queries"] == 2
    assert rule["seed"] == 0
    assert sorted(s.train.query_ids.tolist() + s.vali.query_ids.tolist()) == list(range(10))
    assert s.vali.query_ids.tolist() == rule["vali_query_ids"]


def test_missing_split_files_are_an_error(tmp_path: Path) -> None:
    _write(tmp_path / "train.txt", "1 qid:1 1:1\n")
    with pytest.raises(DataError, match="no LETOR split files"):
        read_letor_folder(tmp_path)
    assert detect_layout(tmp_path) is None


def test_parquet_folder_round_trip(tmp_path: Path) -> None:
    parts = {}
    for i, split in enumerate(("train", "vali", "test")):
        parts[split] = LetorData.build(np.full((2, 3), i, dtype=np.float32), [1, 0],
                                       qid=[i, i], feature_names=("a", "b", "c"))
        write_parquet(parts[split], tmp_path / f"{split}.parquet")
    assert detect_layout(tmp_path) == "parquet"
    s = read_folder(tmp_path)
    assert s.test.X.tolist() == parts["test"].X.tolist()
    assert s.train.feature_names == ("a", "b", "c")


def _slow_take(data: LetorData, groups: list[int]) -> list[int]:
    rows = []
    for g in groups:
        rows.extend(range(data.offsets[g], data.offsets[g + 1]))
    return rows


def test_carve_validation_is_deterministic_disjoint_and_complete() -> None:
    sizes = [3, 1, 4, 1, 5, 9, 2, 6]
    qid = np.repeat(np.arange(100, 108), sizes)
    data = LetorData.build(np.arange(qid.size, dtype=np.float32)[:, None], np.zeros(qid.size),
                           qid=qid)
    train, vali, rule = carve_validation(data, fraction=0.25, seed=7)
    _train2, vali2, _ = carve_validation(data, fraction=0.25, seed=7)
    assert vali.query_ids.tolist() == vali2.query_ids.tolist()
    expected_vali = sorted(np.random.default_rng(7).permutation(8)[:2].tolist())
    assert vali.X[:, 0].astype(int).tolist() == _slow_take(data, expected_vali)
    assert set(train.query_ids) | set(vali.query_ids) == set(qid)
    assert not set(train.query_ids) & set(vali.query_ids)
    assert train.n_rows + vali.n_rows == data.n_rows
    assert rule["n_vali_queries"] == 2


def test_carve_validation_needs_two_queries() -> None:
    one = LetorData.build(np.zeros((2, 1)), [1, 0], qid=[1, 1])
    with pytest.raises(DataError, match="need at least 2"):
        carve_validation(one)


# --------------------------------------------------------------------------- real shared data


@pytest.fixture
def ohsumed(shared_data: Path) -> Path:
    d = shared_data / "letor3-OHSUMED-QueryLevelNorm"
    if not d.is_dir():
        pytest.skip(f"{d} is absent")
    return d


@pytest.fixture
def lgb_example(shared_data: Path) -> Path:
    d = shared_data / "lightgbm-lambdarank"
    if not d.is_dir():
        pytest.skip(f"{d} is absent")
    return d


def test_ohsumed_fold1_sizes_match_its_source_notes(ohsumed: Path) -> None:
    s = read_letor_folder(ohsumed, name="ohsumed")
    assert (s.train.n_rows, s.vali.n_rows, s.test.n_rows) == (9_219, 3_538, 3_383)
    assert (s.train.n_queries, s.vali.n_queries, s.test.n_queries) == (63, 21, 22)
    assert s.train.n_features == s.test.n_features == 45
    total = s.train.n_rows + s.vali.n_rows + s.test.n_rows
    assert total == 16_140
    assert s.train.n_queries + s.vali.n_queries + s.test.n_queries == 106
    assert set(np.unique(s.train.y)) == {0.0, 1.0, 2.0}


def test_ohsumed_fold1_train_is_s1_s2_s3_and_vali_test_are_s4_s5(ohsumed: Path) -> None:
    s = read_letor_folder(ohsumed)
    parts = [read_svmlight(ohsumed / f"S{i}.txt", n_features=45) for i in range(1, 6)]
    assert np.array_equal(s.train.X, np.vstack([p.X for p in parts[:3]]))
    assert np.array_equal(s.train.y, np.concatenate([p.y for p in parts[:3]]))
    assert np.array_equal(s.train.qid, np.concatenate([p.qid for p in parts[:3]]))
    assert np.array_equal(s.vali.X, parts[3].X)
    assert np.array_equal(s.vali.qid, parts[3].qid)
    assert np.array_equal(s.test.X, parts[4].X)
    assert np.array_equal(s.test.y, parts[4].y)


def test_ohsumed_inputs_hash_like_the_manifest(ohsumed: Path) -> None:
    s = read_letor_folder(ohsumed)
    for path, digest in s.inputs.items():
        assert hashlib.sha256(Path(path).read_bytes()).hexdigest() == digest
    manifest = dict(reversed(line.split()) for line in
                    (ohsumed.parent / "MANIFEST.sha256").read_text().splitlines())
    assert s.inputs[str(ohsumed / "Fold1" / "train.txt")] == \
        manifest["./letor3-OHSUMED-QueryLevelNorm/Fold1/train.txt"]


def test_lightgbm_example_matches_lightgbm_own_reader(lgb_example: Path) -> None:
    lgb = pytest.importorskip("lightgbm")
    s = read_lightgbm_dir(lgb_example)
    assert s.test.n_rows == 768
    assert s.test.n_queries == 50
    assert s.train.n_rows + s.vali.n_rows == 3_005
    assert s.train.n_queries + s.vali.n_queries == 201
    assert s.train.n_features == s.test.n_features == 300
    # LightGBM reads rank.test and its .query sidecar itself: same groups and labels
    ds = lgb.Dataset(str(lgb_example / "rank.test"), params={"verbose": -1}).construct()
    assert ds.get_field("group").tolist() == s.test.offsets.tolist()
    assert ds.get_label().astype(float).tolist() == s.test.y.tolist()


def test_lightgbm_example_validation_is_carved_from_train_only(lgb_example: Path) -> None:
    s = read_lightgbm_dir(lgb_example)
    full = read_svmlight(lgb_example / "rank.train", n_features=300)
    rule = s.meta["validation"]
    assert rule["n_vali_queries"] == 40
    assert rule["fraction"] == 0.2
    assert rule["seed"] == 0
    vali_groups = rule["vali_query_ids"]  # query ids are the group positions in rank.train
    assert np.array_equal(s.vali.X, full.take_queries(vali_groups).X)
    train_groups = sorted(set(range(201)) - set(vali_groups))
    assert np.array_equal(s.train.y, full.take_queries(train_groups).y)
    assert sorted(s.inputs) == sorted(str(lgb_example / f) for f in (
        "rank.train", "rank.train.query", "rank.test", "rank.test.query"))
    assert detect_layout(lgb_example) == "lightgbm"
