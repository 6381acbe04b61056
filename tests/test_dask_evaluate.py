"""The reference evaluator on Dask equals the single-process evaluator, and refuses split queries.

Runs on a 2-worker LocalCluster bound to 127.0.0.1 (as the engine's default). The oracle is
:func:`bench.metrics.evaluate` on the same rows in one process: every mean, every blank-policy
mean and every diagnostic must be equal (ranking metrics bit for bit: the same per-query values
reach the same reductions; rmse/mae to 1e-12).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("distributed")
pytest.importorskip("dask.dataframe")

import itertools

import dask.dataframe as dd

from bench.data.dask_cluster import cluster, describe
from bench.data.letor import LetorData
from bench.data.query_shards import (
    align_queries,
    check_query_aligned,
    read_query_shards,
    write_query_shards,
)
from bench.errors import DataError
from bench.metrics import evaluate
from bench.metrics.distributed import evaluate_frame

pytestmark = pytest.mark.slow

METRICS = "ndcg@1,3,5,10 ndcg map@10 map mrr p@10 recall@10 err@10 rmse mae"
PROFILES = ("ltrbench", "lightgbm", "xgboost", "trec_eval", "sklearn")


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with cluster(workers=2, threads=1, memory_limit="2GB") as c:
        yield c


def _frame(labels: np.ndarray, scores: np.ndarray, qid: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame({"qid": qid, "label": labels, "score": scores})


def _cut_at_queries(df: pd.DataFrame, n_parts: int) -> Any:
    """A Dask frame whose partitions end at query boundaries (about n_parts of them)."""
    q = df["qid"].to_numpy()
    starts = np.flatnonzero(np.concatenate([[True], q[1:] != q[:-1]]))
    picks = starts[np.linspace(0, starts.shape[0], n_parts, endpoint=False).astype(int)]
    divisions = [*picks.tolist(), len(df)]
    pieces = [df.iloc[a:b] for a, b in itertools.pairwise(divisions)]
    return dd.from_map(lambda p: p, pieces, meta=df.iloc[:0])


def _random_data(seed: int, n_queries: int = 400) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 30, n_queries)
    qid = np.repeat(rng.permutation(10 * n_queries)[:n_queries], sizes)
    labels = rng.integers(0, 5, qid.shape[0]).astype(np.float64)
    blank = np.isin(qid, np.unique(qid)[::7])  # every 7th query has no relevant document
    labels[blank] = 0.0
    scores = np.round(rng.normal(size=qid.shape[0]), 1)  # one decimal: many ties
    return _frame(labels, scores, qid)


def _assert_same(local: Any, dist: Any, metrics: list[str]) -> None:
    for name in metrics:
        a, b = local.metrics[name], dist.metrics[name]
        if name in ("rmse", "mae"):
            assert b == pytest.approx(a, rel=1e-12, abs=1e-12), name
        else:
            assert (a == b) or (np.isnan(a) and np.isnan(b)), (name, a, b)
    ld, dd_ = local.diagnostics.as_dict(), dist.diagnostics.as_dict()
    ld.pop("backend")
    dd_.pop("backend")
    assert ld == dd_


def test_distributed_evaluation_equals_local_on_random_data_with_blank_queries_and_ties(client: Any) -> None:
    df = _random_data(0)
    ddf = _cut_at_queries(df, 5)
    assert ddf.npartitions == 5
    for profile in PROFILES:
        # XGBoost refuses graded labels for map and p (so does its profile)
        metrics = METRICS.replace(" map@10 map", "").replace(" p@10", "") if profile == "xgboost" else METRICS
        local = evaluate(df["label"], df["score"], qid=df["qid"], metrics=metrics, profile=profile,
                         per_query=True)
        dist = evaluate_frame(ddf, metrics=metrics, profile=profile, per_query=True)
        assert local.diagnostics.n_blank > 0
        assert local.diagnostics.n_queries_with_ties_in_topk > 0
        _assert_same(local, dist, list(local.metrics))
        pd.testing.assert_frame_equal(local.per_query, dist.per_query)


def test_distributed_evaluation_equals_local_on_ohsumed_via_query_shards(
        client: Any, shared_data: Path, tmp_path: Path) -> None:
    from bench.data.svmlight import read_svmlight

    data = read_svmlight(shared_data / "letor3-OHSUMED-QueryLevelNorm" / "Fold1" / "test.txt")
    files = write_query_shards(data, tmp_path / "shards", rows_per_shard=800)
    assert len(files) > 2
    ddf = read_query_shards(tmp_path / "shards")
    assert ddf.npartitions == len(files)
    scores = data.X[:, 0].astype(np.float64) - 0.5 * data.X[:, 10]
    ddf = ddf.assign(score=ddf.map_partitions(
        lambda p: p["f1"].astype("float64") - 0.5 * p["f11"].astype("float64"), meta=("score", "f8")))
    metrics = "ndcg@1,3,5,10 map mrr p@10"
    for profile in ("ltrbench", "lightgbm", "trec_eval"):
        local = evaluate(data.y, scores, qid=data.qid, metrics=metrics, profile=profile)
        dist = evaluate_frame(ddf, metrics=metrics, profile=profile)
        _assert_same(local, dist, list(local.metrics))
        assert dist.n_queries == data.n_queries


def test_bad_values_in_a_partition_name_the_partition_and_its_row(client: Any) -> None:
    df = _random_data(5, n_queries=60)
    ddf = _cut_at_queries(df, 3)
    with pytest.raises(DataError, match=r"partition \d+, row \d+, column 'label': label [2-4]\.0: profile 'xgboost'"):
        evaluate_frame(ddf, metrics="map", profile="xgboost")


def test_a_query_split_across_partitions_is_refused_with_its_id(client: Any) -> None:
    df = _random_data(1, n_queries=40)
    q = df["qid"].to_numpy()
    split_at = int(np.flatnonzero(q[1:] == q[:-1])[5]) + 1  # inside a query
    ddf = dd.from_map(lambda p: p, [df.iloc[:split_at], df.iloc[split_at:]], meta=df.iloc[:0])
    with pytest.raises(DataError, match=rf"query qid={q[split_at]} lies in partitions 0 and 1"):
        check_query_aligned(ddf)
    with pytest.raises(DataError, match="lies in partitions 0 and 1"):
        evaluate_frame(ddf, metrics="ndcg@10")


def test_non_contiguous_query_rows_inside_a_partition_are_refused_with_the_row(client: Any) -> None:
    df = _frame(np.array([1.0, 0, 2, 1]), np.array([0.1, 0.2, 0.3, 0.4]), np.array([7, 8, 8, 7]))
    ddf = dd.from_pandas(df, npartitions=1)
    with pytest.raises(DataError, match="partition 0, row 4: a query's rows are not contiguous"):
        check_query_aligned(ddf)


def test_align_queries_repairs_a_split_frame_and_the_metrics_match(client: Any) -> None:
    df = _random_data(2, n_queries=200).sort_values("qid", kind="stable").reset_index(drop=True)
    ddf = dd.from_pandas(df, npartitions=4, sort=False)
    with pytest.raises(DataError):
        check_query_aligned(ddf)
    fixed = align_queries(ddf, npartitions=3)
    rows = check_query_aligned(fixed)
    assert sum(rows) == len(df)
    local = evaluate(df["label"], df["score"], qid=df["qid"], metrics="ndcg@10 map mrr")
    dist = evaluate_frame(fixed, metrics="ndcg@10 map mrr", checked=True)
    _assert_same(local, dist, ["ndcg@10", "map", "mrr"])


def test_shards_hold_whole_queries_and_round_trip_the_rows(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    sizes = rng.integers(1, 9, 50)
    qid = np.repeat(np.arange(50) * 3 + 1, sizes)
    data = LetorData.build(rng.normal(size=(qid.shape[0], 4)).astype(np.float32),
                           rng.integers(0, 3, qid.shape[0]).astype(np.float64), qid=qid)
    files = write_query_shards(data, tmp_path / "s", rows_per_shard=20)
    from bench.data.parquet import read_parquet

    parts = [read_parquet(f) for f in files]
    assert all(p.n_rows >= 20 for p in parts[:-1])
    assert sum(p.n_queries for p in parts) == data.n_queries
    np.testing.assert_array_equal(np.concatenate([p.X for p in parts]), data.X)
    np.testing.assert_array_equal(np.concatenate([p.qid for p in parts]), data.qid)
    with pytest.raises(DataError, match="already holds"):
        write_query_shards(data, tmp_path / "s")


def test_random_tie_order_on_partitions_is_the_local_one(client: Any) -> None:
    # was refused; each query's draw is its own (seed and place in the query), so the
    # partitioned numbers are the local ones, per query (round 23)
    from dataclasses import replace

    from bench.metrics import get_profile

    df = _random_data(4, n_queries=20)
    prof = replace(get_profile("ltrbench"), name="r", ties="random", tie_seed=5)
    local = evaluate(df["label"], df["score"], qid=df["qid"], metrics=METRICS, profile=prof,
                     per_query=True)
    dist = evaluate_frame(_cut_at_queries(df, 2), metrics=METRICS, profile=prof, per_query=True)
    _assert_same(local, dist, list(local.metrics))
    pd.testing.assert_frame_equal(local.per_query, dist.per_query)


def test_the_local_cluster_listens_on_loopback_and_is_described(client: Any) -> None:
    info = describe(client)
    assert info["workers"] == 2
    assert info["threads"] == [1, 1]
    assert info["scheduler"].startswith("tcp://127.0.0.1:")
    assert all(a.startswith("tcp://127.0.0.1:") for a in info["worker_addresses"])


def _write_score_shards(df: pd.DataFrame, folder: Path, n_parts: int) -> None:
    folder.mkdir()
    q = df["qid"].to_numpy()
    starts = np.flatnonzero(np.concatenate([[True], q[1:] != q[:-1]]))
    cuts = [*starts[np.linspace(0, starts.shape[0], n_parts, endpoint=False).astype(int)].tolist(), len(df)]
    for i in range(n_parts):
        df.iloc[cuts[i]:cuts[i + 1]].to_parquet(folder / f"part-{i:05d}.parquet", index=False)


def test_cli_evaluate_on_dask_prints_the_local_engines_numbers(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from bench.cli import main

    df = _random_data(6, n_queries=150)
    _write_score_shards(df, tmp_path / "shards", 3)
    argv = ["evaluate", "--data", str(tmp_path / "shards"), "--metrics", "ndcg@10", "map", "mrr",
            "--format", "json"]
    assert main([*argv, "--engine", "dask", "--workers", "2"]) == 0
    out = json.loads(capsys.readouterr().out)
    local = evaluate(df["label"], df["score"], qid=df["qid"], metrics="ndcg@10 map mrr")
    assert out["metrics"] == local.metrics
    assert out["diagnostics"]["n_blank"] == local.diagnostics.n_blank > 0
    assert out["n_queries"] == 150


def test_cli_evaluate_on_dask_names_the_shard_without_a_score_column(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from bench.cli import main

    df = _random_data(7, n_queries=10).rename(columns={"score": "prediction"})
    _write_score_shards(df, tmp_path / "shards", 2)
    assert main(["evaluate", "--engine", "dask", "--data", str(tmp_path / "shards")]) == 2
    err = capsys.readouterr().err
    assert "part-00000.parquet: no column 'score'; its columns are 'qid', 'label', 'prediction'" in err
    assert main(["evaluate", "--engine", "dask", "--data", str(tmp_path / "nothing")]) == 2
    assert "expected a folder of Parquet shards" in capsys.readouterr().err


def test_two_local_clusters_at_once_start_without_port_warnings() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with cluster(workers=1) as a, cluster(workers=1) as b:
            assert describe(a)["scheduler"] != describe(b)["scheduler"]
            for c in (a, b):
                port = c.cluster.scheduler.http_server.port
                assert c.cluster.scheduler.http_server.address == "127.0.0.1"
                assert port != 8787


def test_the_session_runs_in_a_loopback_only_network_namespace_when_it_can() -> None:
    import os

    state = os.environ.get("LTRBENCH_TEST_NETNS")
    if state != "1":
        pytest.skip(f"no loopback-only network namespace on this platform ({state}); the "
                    "clusters bind Dask's sockets to 127.0.0.1 instead")
    import socket

    # (the interfaces of this process's namespace; /sys/class/net shows the host's)
    assert [name for _, name in socket.if_nameindex()] == ["lo"]
