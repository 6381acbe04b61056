"""LetorData <-> Parquet: column layout, round trips, foreign files, errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.data.letor import LetorData
from bench.data.parquet import read_parquet, write_parquet
from bench.errors import DataError


def _data(**kw: object) -> LetorData:
    X = np.array([[0.5, 1.0], [2.0, -3.0], [4.0, 5.5], [0.0, 0.25]], dtype=np.float32)
    return LetorData.build(X, [2, 0, 1, 0], qid=[7, 7, 3, 3], **kw)  # type: ignore[arg-type]


def _assert_same(a: LetorData, b: LetorData) -> None:
    assert np.array_equal(a.X, b.X)
    assert a.X.dtype == b.X.dtype == np.float32
    assert np.array_equal(a.y, b.y)
    assert np.array_equal(a.qid, b.qid)
    assert np.array_equal(a.offsets, b.offsets)
    assert a.feature_names == b.feature_names
    for name in ("user", "item"):
        va, vb = getattr(a, name), getattr(b, name)
        assert (va is None and vb is None) or np.array_equal(va, vb)


def test_columns_are_qid_label_user_item_then_named_features(tmp_path: Path) -> None:
    d = _data(feature_names=("bm25", "pagerank"), user=[1, 1, 2, 2], item=[10, 11, 10, 12])
    f = write_parquet(d, tmp_path / "train.parquet")
    table = pq.read_table(f)
    assert table.column_names == ["qid", "label", "user", "item", "bm25", "pagerank"]
    assert table.schema.field("bm25").type == pa.float32()
    assert table.column("label").to_pylist() == [2.0, 0.0, 1.0, 0.0]


def test_round_trip_with_user_and_item(tmp_path: Path) -> None:
    d = _data(user=[1, 1, 2, 2], item=[10, 11, 10, 12])
    _assert_same(d, read_parquet(write_parquet(d, tmp_path / "x.parquet")))


def test_round_trip_without_user_and_item_writes_null_columns(tmp_path: Path) -> None:
    d = _data()
    f = write_parquet(d, tmp_path / "x.parquet")
    assert pq.read_table(f).column("user").null_count == 4
    back = read_parquet(f)
    assert back.user is None
    assert back.item is None
    _assert_same(d, back)


def test_feature_names_that_clash_with_reserved_columns_are_kept(tmp_path: Path) -> None:
    d = _data(feature_names=("qid", "qid"))
    back = read_parquet(write_parquet(d, tmp_path / "x.parquet"))
    assert back.feature_names == ("qid", "qid")
    _assert_same(d, back)


def test_meta_and_source_survive(tmp_path: Path) -> None:
    d = _data()
    object.__setattr__(d, "meta", {"split": "train", "n": np.int64(3)})
    back = read_parquet(write_parquet(d, tmp_path / "x.parquet"))
    assert back.meta == {"split": "train", "n": 3}


def test_write_is_atomic_and_leaves_no_temporary_files(tmp_path: Path) -> None:
    write_parquet(_data(), tmp_path / "x.parquet")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.parquet"]


def test_foreign_parquet_uses_every_other_numeric_column_as_a_feature(tmp_path: Path) -> None:
    f = tmp_path / "foreign.parquet"
    pq.write_table(pa.table({"qid": [1, 1, 2], "label": [1, 0, 2], "doc": ["a", "b", "c"],
                             "f_a": [0.5, 1.5, 2.5], "f_b": [1, 2, 3]}), f)
    d = read_parquet(f)
    assert d.feature_names == ("f_a", "f_b")
    assert d.X.tolist() == [[0.5, 1.0], [1.5, 2.0], [2.5, 3.0]]
    assert d.offsets.tolist() == [0, 2, 3]


def test_missing_label_column_is_an_error_naming_it(tmp_path: Path) -> None:
    f = tmp_path / "nolabel.parquet"
    pq.write_table(pa.table({"qid": [1], "f1": [0.5]}), f)
    with pytest.raises(DataError, match="column 'label'"):
        read_parquet(f)


def test_non_contiguous_qid_in_parquet_names_the_row(tmp_path: Path) -> None:
    f = tmp_path / "shuffled.parquet"
    pq.write_table(pa.table({"qid": [1, 2, 1], "label": [0.0, 1.0, 0.0], "f1": [1.0, 2, 3]}), f)
    with pytest.raises(DataError, match=r"row 3: query id 1 reappears"):
        read_parquet(f)


def test_null_feature_value_names_row_and_column(tmp_path: Path) -> None:
    f = tmp_path / "nulls.parquet"
    pq.write_table(pa.table({"qid": [1, 1], "label": [0.0, 1.0], "f1": [1.0, None]}), f)
    with pytest.raises(DataError, match=r"row 2, column 'f1'"):
        read_parquet(f)


def test_not_a_parquet_file_is_a_data_error(tmp_path: Path) -> None:
    f = tmp_path / "text.parquet"
    f.write_text("hello")
    with pytest.raises(DataError, match="not a readable Parquet file"):
        read_parquet(f)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    sizes=st.lists(st.integers(1, 5), min_size=1, max_size=6),
    d=st.integers(0, 5),
    seed=st.integers(0, 2**31),
    with_ids=st.booleans(),
)
def test_round_trip_is_exact_for_random_data(
    tmp_path: Path, sizes: list[int], d: int, seed: int, with_ids: bool
) -> None:
    rng = np.random.default_rng(seed)
    n = sum(sizes)
    X = rng.standard_normal((n, d)).astype(np.float32)
    X[rng.random((n, d)) < 0.1] = np.nan
    qid = np.repeat(rng.permutation(1000)[: len(sizes)], sizes)
    ids = {"user": qid, "item": rng.integers(0, 10**12, n)} if with_ids else {}
    data = LetorData.build(X, rng.integers(0, 5, n), qid=qid, **ids)  # type: ignore[arg-type]
    back = read_parquet(write_parquet(data, tmp_path / "r.parquet"))
    assert np.array_equal(back.X, data.X, equal_nan=True)
    assert np.array_equal(back.y, data.y)
    assert np.array_equal(back.offsets, data.offsets)
    assert back.feature_names == data.feature_names
    assert (back.item is None) == (not with_ids)
