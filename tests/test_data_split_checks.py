"""Split checks: each finding on a dataset built to have it, none on a clean one."""

from __future__ import annotations

import numpy as np
import pytest

from bench.data.letor import LetorData, LetorSplits
from bench.data.split_checks import check_splits


def _data(X: np.ndarray, y: np.ndarray, qid: np.ndarray, item: np.ndarray | None = None,
          name: str = "d") -> LetorData:
    offsets = np.r_[0, np.flatnonzero(np.diff(qid)) + 1, qid.shape[0]].astype(np.int64)
    return LetorData(X=X.astype(np.float32), y=y.astype(np.float64), qid=qid, offsets=offsets,
                     feature_names=tuple(f"f{j}" for j in range(X.shape[1])), item=item,
                     source=name)


def _clean(seed: int, rows: int = 40) -> LetorData:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(rows, 3))
    y = np.tile([0, 1, 2, 0], rows // 4)
    qid = np.repeat(np.arange(rows // 4) + 100 * seed, 4)
    return _data(X, y, qid, item=np.arange(rows) + 1000 * seed)


def test_clean_splits_have_no_finding() -> None:
    assert check_splits(LetorSplits("d", _clean(1), _clean(2), _clean(3))) == []


def test_training_rows_repeated_in_test_are_counted() -> None:
    train, test = _clean(1), _clean(3)
    X = test.X.copy()
    X[[0, 5, 9]] = train.X[[2, 7, 11]]
    y = test.y.copy()
    y[[0, 5, 9]] = train.y[[2, 7, 11]]
    y[9] = train.y[11] + 1  # same features, other label: not a repeated row
    leaky = _data(X, y, test.qid, test.item)
    found = [(f.code, f.splits, f.count, f.level) for f in
             check_splits(LetorSplits("d", train, _clean(2), leaky)) if f.code == "leak_rows"]
    # rows 2 (label 2) and 7 (label 0) of train: one relevant repeat, one label-0 repeat
    assert found == [("leak_rows", ("train", "test"), 1, "warning"),
                     ("leak_rows", ("train", "test"), 1, "note")]


def test_a_query_document_pair_in_train_and_vali_is_counted() -> None:
    train, vali = _clean(1), _clean(2)
    qid, item = vali.qid.copy(), vali.item.copy()  # type: ignore[union-attr]
    qid[:4], item[:4] = train.qid[:4], train.item[:4]  # type: ignore[index]
    shared = _data(vali.X, vali.y, qid, item)
    found = [f for f in check_splits(LetorSplits("d", train, shared, _clean(3)))
             if f.code == "leak_documents"]
    # rows 0-3 of a query carry labels 0, 1, 2, 0: two relevant pairs, two label-0 ones
    assert [(f.splits, f.count, f.level) for f in found] == [(("train", "vali"), 2, "warning"),
                                                            (("train", "vali"), 2, "note")]


def test_all_zero_labels_constant_features_and_a_label_shift_are_reported() -> None:
    t = _clean(1)
    X = t.X.copy()
    X[:, 1] = 7.0
    zero_train = _data(X, np.zeros(t.n_rows), t.qid, t.item)
    codes = {f.code: f for f in check_splits(LetorSplits("d", zero_train, _clean(2), _clean(3)))}
    assert codes["no_relevant"].splits == ("train",)
    assert codes["constant_features"].count == 1
    assert "f1" in codes["constant_features"].message
    # train: all 0; test: 1/2 zeros -> total variation 0.5, not above the threshold
    assert "label_shift" not in codes


def test_a_label_shift_beyond_half_the_mass_is_reported() -> None:
    t, test = _clean(1), _clean(3)
    shifted = _data(test.X, np.full(test.n_rows, 4.0), test.qid, test.item)
    found = {f.code for f in check_splits(LetorSplits("d", t, _clean(2), shifted))}
    assert "label_shift" in found  # train has no label 4 at all: distance 1.0


@pytest.mark.parametrize("strict", [False, True])
def test_a_run_warns_or_with_strict_refuses_before_training(strict: bool, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from bench.benchmark.config import RunConfig
    from bench.benchmark.pipeline import SplitWarning, run_benchmark
    from bench.errors import DataError

    t = _clean(1)
    splits = LetorSplits("d", _data(t.X, np.zeros(t.n_rows), t.qid, t.item), _clean(2), _clean(3))
    config = RunConfig(dataset="d", models=("random",), seeds=(0,), strict=strict,
                       crosscheck=False)
    if strict:
        with pytest.raises(DataError, match=r"\[no_relevant\]"):
            run_benchmark(config, splits=splits, out_dir=tmp_path, progress=False)
        assert not (tmp_path / "runs").exists()  # refused before any run directory
    else:
        with pytest.warns(SplitWarning, match="no_relevant"):
            run_dir = run_benchmark(config, splits=splits, out_dir=tmp_path, progress=False)
        import json

        manifest = json.loads((run_dir / "manifest.json").read_text())
        assert [f["code"] for f in manifest["split_checks"]] == ["no_relevant"]


def test_row_hashes_find_exactly_the_rows_pandas_and_tuple_equality_find() -> None:
    """The compiled row hash against two oracles: pandas' hash_pandas_object and exact tuples."""
    import pandas as pd

    from bench.data.split_checks import row_hashes

    rng = np.random.default_rng(4)
    a = rng.integers(0, 3, size=(300, 4)).astype(np.float64)  # few values: many true repeats
    b = rng.integers(0, 3, size=(200, 4)).astype(np.float64)
    b[:20] = a[:20]
    b[20, :] = -0.0  # -0.0 equals 0.0
    a[20, :] = 0.0
    ya, yb = rng.integers(0, 2, 300).astype(np.float64), rng.integers(0, 2, 200).astype(np.float64)
    yb[:21] = ya[:21]
    da, db = _data(a, ya, np.repeat(np.arange(75), 4)), _data(b, yb, np.repeat(np.arange(50), 4))
    got = np.isin(row_hashes(db), row_hashes(da))

    def pandas_hash(X: np.ndarray, y: np.ndarray) -> np.ndarray:
        frame = pd.DataFrame(X.astype(np.float32) + np.float32(0.0))  # -0 -> +0
        frame["label"] = y
        return pd.util.hash_pandas_object(frame, index=False).to_numpy()

    exact = {(*tuple(r), v) for r, v in zip(da.X.tolist(), ya.tolist(), strict=True)}
    want = np.array([(*tuple(r), v) in exact for r, v in zip(db.X.tolist(), yb.tolist(),
                                                              strict=True)])
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, np.isin(pandas_hash(b, yb), pandas_hash(a, ya)))
    assert 21 <= want.sum() < 200  # planted repeats found, and not everything matches
