"""The out-of-core adapter (``convert --engine dask``) equals the single-process adapter.

The oracle everywhere is the single-process code on the whole table (itself tested against
hand arithmetic, scikit-learn and SciPy in the other adapter tests): the pieces the Dask path
is made of are each compared with it, then the whole conversion of ml-latest-small, bit for
bit, under three splits and both negative samplers; and the leakage test runs on this path.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.linalg import LinearOperator

from bench.adapters import AdapterConfig, ratings_to_letor
from bench.adapters.history import accumulate_stats, exact_partials, history_of
from bench.adapters.negatives import QUERY_BLOCK, sample_candidates
from bench.adapters.splits import split_ratings
from bench.adapters.svd import add_transposed_product, truncated_svd, truncated_svd_operator
from bench.adapters.table import build_table
from bench.data.letor import LetorSplits
from bench.datasets.synthetic import generate_ratings
from bench.errors import ConfigError, DataError

# ------------------------------------------------------------------ the pieces, no cluster


def _table(seed: int = 3) -> Any:
    return build_table(generate_ratings(n_users=700, n_items=900, n_ratings=30_000,
                                        seed=seed).frame)


@pytest.mark.parametrize("rule", ["random", "kfold"])
def test_a_user_slice_gets_the_roles_the_whole_table_gives_it(rule: str) -> None:
    t = _table()
    cfg = AdapterConfig(split=rule, target_size=2, min_history=3)
    whole = split_ratings(t, cfg).role
    for a, b in [(0, 100), (100, 433), (433, t.n_users)]:
        r0, r1 = int(t.indptr[a]), int(t.indptr[b])
        piece = build_table(pd.DataFrame({
            "user": t.user_ids[t.user[r0:r1]], "item": t.item_ids[t.item[r0:r1]],
            "rating": t.rating[r0:r1], "timestamp": t.timestamp[r0:r1]}))
        got = split_ratings(piece, cfg, rows_before=r0, users_before=a,
                            users_total=t.n_users).role
        np.testing.assert_array_equal(got, whole[r0:r1])


def test_negatives_of_later_users_alone_equal_the_whole_tables() -> None:
    t = _table()
    role = split_ratings(t, AdapterConfig(target_size=2, min_history=3)).role
    whole = sample_candidates(t, role, 1, negatives=20, sampling="uniform", item_weight=None,
                              seed=5)
    first_user = int(whole.user[whole.offsets[QUERY_BLOCK]])  # a later chunk's first user
    keep = t.user >= first_user
    later = sample_candidates(t, np.where(keep, role, 0).astype(np.int8), 1, negatives=20,
                              sampling="uniform", item_weight=None, seed=5)
    a = int(whole.offsets[QUERY_BLOCK])
    np.testing.assert_array_equal(later.item, whole.item[a:])
    np.testing.assert_array_equal(later.user, whole.user[a:])


def test_item_statistics_accumulated_piece_by_piece_equal_the_whole() -> None:
    t = _table()
    h = history_of(t, split_ratings(t, AdapterConfig(target_size=2, min_history=3)))
    rng = np.random.default_rng(0)
    h_rating = h.rating + rng.random(h.n) / 7.0  # non-grid values: the order of additions shows
    whole = accumulate_stats(None, t.n_items, h.item, h_rating, h.timestamp)
    state = None
    for a, b in [(0, 1000), (1000, 1001), (1001, 9000), (9000, h.n)]:
        state = accumulate_stats(state, t.n_items, h.item[a:b], h_rating[a:b], h.timestamp[a:b])
    assert state is not None
    for f in ("count", "total", "squares", "first", "last"):
        np.testing.assert_array_equal(getattr(state, f), getattr(whole, f))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=0, max_size=60),
       st.integers(0, 60))
def test_exact_partials_of_pieces_sum_to_fsum_of_the_whole(values: list[float], cut: int) -> None:
    x = np.asarray(values, dtype=np.float64)
    parts = np.concatenate([exact_partials(x[:cut]), exact_partials(x[cut:])])
    assert math.fsum(parts.tolist()) == math.fsum(values)


def _blocked_operator(A: sp.csr_matrix, bounds: list[int]) -> LinearOperator:
    blocks = [A[a:b] for a, b in itertools.pairwise(bounds)]

    def mm(X: np.ndarray) -> np.ndarray:
        return np.vstack([blk @ np.asarray(X) for blk in blocks])

    def rmm(X: np.ndarray) -> np.ndarray:
        X = np.ascontiguousarray(X)
        Y = np.zeros((A.shape[1], X.shape[1]), dtype=np.float32)
        for (a, b), blk in zip(itertools.pairwise(bounds), blocks, strict=True):
            add_transposed_product(blk.indptr, blk.indices, blk.data, X[a:b], Y)
        return Y

    return LinearOperator(A.shape, matvec=lambda v: mm(v.reshape(-1, 1)).ravel(),
                          rmatvec=lambda v: rmm(v.reshape(-1, 1)).ravel(), matmat=mm,
                          rmatmat=rmm, dtype=np.float32)


@pytest.mark.parametrize(("shape", "k"), [((300, 900), 8), ((900, 300), 8), ((20, 400), 32),
                                     ((400, 20), 32)])
def test_svd_over_row_blocks_equals_scikit_learns_on_the_whole_matrix(shape: tuple[int, int],
                                                                       k: int) -> None:
    rng = np.random.default_rng(1)
    A = sp.random(*shape, density=0.05, format="csr", random_state=2, dtype=np.float32)
    A.data = (rng.integers(1, 11, A.nnz) / 2).astype(np.float32)
    m = shape[0]
    op = _blocked_operator(A, [0, m // 5, m // 2, m])
    np.testing.assert_array_equal((A.T @ np.ones((m, 3), np.float32)),
                                  op.T @ np.ones((m, 3), np.float32))
    want, got = truncated_svd(A, k, seed=4), truncated_svd_operator(op, k, seed=4)
    np.testing.assert_array_equal(got.s, want.s)
    np.testing.assert_array_equal(got.U, want.U)
    np.testing.assert_array_equal(got.V, want.V)


# --------------------------------------------------------------------- the whole conversion

pytest.importorskip("distributed")
pytest.importorskip("dask.dataframe")

from bench.adapters.distributed import convert_distributed  # noqa: E402
from bench.data.dask_cluster import cluster  # noqa: E402
from bench.data.dask_ratings import read_ratings_frame  # noqa: E402
from bench.data.movielens import load_movielens  # noqa: E402
from bench.data.ratings import Ratings  # noqa: E402


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with cluster(workers=2, threads=1, memory_limit="2GB") as c:
        yield c


def _read_shards(folder: Path, names: tuple[str, ...]) -> pd.DataFrame:
    files = sorted(folder.glob("part-*.parquet"))
    assert files, f"no shards in {folder}"
    df = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
    assert list(df.columns[4:]) == list(names)
    return df


def _assert_equal(local: LetorSplits, out: Path) -> None:
    for name, d in local.splits().items():
        df = _read_shards(out / name, d.feature_names)
        np.testing.assert_array_equal(df[list(d.feature_names)].to_numpy(np.float32), d.X)
        np.testing.assert_array_equal(df["label"].to_numpy(), d.y)
        np.testing.assert_array_equal(df["qid"].to_numpy(), d.qid)
        np.testing.assert_array_equal(df["item"].to_numpy(), d.item)


@pytest.mark.parametrize("config", [
    AdapterConfig(),
    AdapterConfig(split="random", target_size=0.1, negative_sampling="popularity"),
    AdapterConfig(split="kfold", labels="binary", seed=7),
], ids=["temporal-uniform", "random-popularity", "kfold-binary"])
def test_dask_conversion_of_ml_latest_small_equals_the_local_adapter_bit_for_bit(
        client: Any, shared_data: Path, tmp_path: Path, config: AdapterConfig) -> None:
    path = shared_data / "ml-latest-small"
    local = ratings_to_letor(load_movielens(path), config)
    summary = convert_distributed(read_ratings_frame(path), tmp_path, config, client,
                                  rows_per_block=25_000)
    _assert_equal(local, tmp_path)
    engine = summary["engine"]
    assert isinstance(engine, dict)
    assert engine["user_blocks"] >= 4
    parts = summary["partitions"]
    assert isinstance(parts, dict)
    assert parts["test"]["queries"] == local.test.n_queries
    assert parts["test"]["rows"] == local.test.n_rows
    assert summary["feature_names"] == list(local.train.feature_names)


def _write_csv(r: Ratings, path: Path) -> Path:
    r.frame.to_csv(path, index=False)
    return path


def test_changing_every_target_rating_leaves_every_dask_feature_unchanged(
        client: Any, tmp_path: Path) -> None:
    """The leakage test (tests/test_adapters_leakage.py) on the Dask path: features read the
    history only, so new values for all target ratings move labels, never features."""
    r = generate_ratings(n_users=60, n_items=500, n_ratings=4000, seed=11)
    cfg = AdapterConfig(target_size=2, min_history=3, negatives=15, svd_factors=6,
                        similarity_history=5)
    frame = r.frame.reset_index(drop=True)
    table = build_table(frame)
    role = split_ratings(table, cfg).role
    # rows of the frame that are targets: match (user, item) pairs
    tgt = pd.DataFrame({"user": table.user_ids[table.user[role > 0]],
                        "item": table.item_ids[table.item[role > 0]], "t": True})
    is_tgt = frame.merge(tgt, on=["user", "item"], how="left")["t"].fillna(False).to_numpy()
    changed = frame.copy()
    # 0.5-5 stars reversed onto 0.5-5 (a rating above 5 is refused by the graded labels)
    changed.loc[is_tgt, "rating"] = 5.5 - changed.loc[is_tgt, "rating"]
    outs = []
    for k, f in enumerate((frame, changed)):
        src = _write_csv(Ratings(frame=f), tmp_path / f"r{k}.csv")
        convert_distributed(read_ratings_frame(src), tmp_path / f"out{k}", cfg, client,
                            rows_per_block=1500)
        outs.append(tmp_path / f"out{k}")
    moved = 0
    for name in ("train", "vali", "test"):
        a = pd.concat([pd.read_parquet(p) for p in sorted((outs[0] / name).glob("*.parquet"))])
        b = pd.concat([pd.read_parquet(p) for p in sorted((outs[1] / name).glob("*.parquet"))])
        feats = list(a.columns[4:])
        np.testing.assert_array_equal(a[feats].to_numpy(), b[feats].to_numpy())
        np.testing.assert_array_equal(a["qid"].to_numpy(), b["qid"].to_numpy())
        moved += int((a["label"].to_numpy() != b["label"].to_numpy()).sum())
    assert moved > 0  # the change reached the labels: the test could have failed


def test_a_value_that_is_not_a_number_names_the_file_and_the_value(client: Any,
                                                                   tmp_path: Path) -> None:
    src = tmp_path / "r.csv"
    src.write_text("user,item,rating,timestamp\n1,2,4.0,10\n1,3,abc,11\n")
    with pytest.raises(DataError, match=r"r\.csv.*'abc'"):
        convert_distributed(read_ratings_frame(src), tmp_path / "o", AdapterConfig(), client)


def test_a_fractional_user_id_names_the_file_the_column_and_the_value(client: Any,
                                                                      tmp_path: Path) -> None:
    src = tmp_path / "r.csv"
    src.write_text("user,item,rating,timestamp\n1,2,4.0,10\n1.5,3,3.0,11\n")
    with pytest.raises(DataError, match=r"r\.csv.*column 'user'.*1\.5.*whole number"):
        convert_distributed(read_ratings_frame(src), tmp_path / "o", AdapterConfig(), client)


def test_a_repeated_user_item_pair_is_refused_naming_it(client: Any, tmp_path: Path) -> None:
    frame = generate_ratings(n_users=30, n_items=200, n_ratings=1500, seed=2).frame
    frame = pd.concat([frame, frame.iloc[[7]]], ignore_index=True)
    src = tmp_path / "x.csv"
    frame.to_csv(src, index=False)
    u, i = int(frame.iloc[7]["user"]), int(frame.iloc[7]["item"])
    with pytest.raises(DataError, match=rf"duplicate \(user={u}, item={i}\)"):
        convert_distributed(read_ratings_frame(src), tmp_path / "o", AdapterConfig(), client)


def test_settings_the_dask_engine_does_not_run_are_refused_before_any_work(tmp_path: Path) -> None:
    from bench.adapters.distributed import check_distributable

    with pytest.raises(ConfigError, match="als"):
        check_distributable(AdapterConfig(feature_groups=("user", "als")))
    with pytest.raises(ConfigError, match="time-cuts"):
        check_distributable(AdapterConfig(split="time-cut"))
    check_distributable(replace(AdapterConfig(split="time-cut"), time_cuts=(1, 2, 3)))


def test_converting_into_a_folder_with_earlier_shards_is_refused(client: Any, tmp_path: Path) -> None:
    (tmp_path / "train").mkdir()
    (tmp_path / "train" / "part-00000.parquet").write_bytes(b"old")
    src = tmp_path / "r.csv"
    generate_ratings(n_users=30, n_items=200, n_ratings=1500, seed=2).frame.to_csv(src, index=False)
    with pytest.raises(DataError, match="earlier conversion"):
        convert_distributed(read_ratings_frame(src), tmp_path, AdapterConfig(), client)


def test_a_partition_with_no_relevant_row_is_refused_and_nothing_is_written(
        client: Any, tmp_path: Path) -> None:
    """As the local adapter does (``bench.adapters.pipeline``): a binary threshold above every
    rating grades every target 0, and every metric of such a partition would be 0 or blank.
    Before, the Dask engine wrote the shards and a summary."""
    src = tmp_path / "x.csv"
    generate_ratings(n_users=30, n_items=200, n_ratings=1500, seed=2).frame.to_csv(src,
                                                                                  index=False)
    out = tmp_path / "o"
    config = AdapterConfig(labels="binary", binary_threshold=6.0)
    with pytest.raises(DataError, match=r"partition has no relevant row: labels='binary'"):
        convert_distributed(read_ratings_frame(src), out, config, client)
    assert not list(out.rglob("*.parquet"))  # no shard of the refused conversion anywhere
