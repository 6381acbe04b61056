"""``ltrbench perf dask-convert``: ``convert --engine dask`` on a ratings table larger than the
memory its workers are given.

A generated ratings table (default 50M ratings of 100,000 users on 30,000 items: long-tailed
item popularity, half-star ratings) is written shard by shard as Parquet files -- each shard
holds its own users, so this process never holds more than one shard -- then converted on a
loopback LocalCluster whose workers have a memory limit below the table's own size as a
DataFrame (32 bytes per rating; default one worker of 1 GB), so Dask must spill blocks to
disk to finish. Then, on a second cluster without the memory limit and without the data ever reaching this
process,
XGBoost is trained on the converted shards (:func:`bench.runners.dask_gbdt.train_dask`) and
evaluated on the test shards (:func:`bench.metrics.distributed.evaluate_frame`). Reported: the
table's size, the limit, wall time per step, the peak resident memory of each worker process
(``getrusage`` in the worker) and of this process, the rows written, the fit and the test
NDCG@10. Generating the table is not timed. Other load on the machine is shown by the load
average at the start and the end.
"""

from __future__ import annotations

import argparse
import platform
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.machine import cpu_model, load_average, peak_rss_kib, usable_cpus


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``ltrbench perf dask-convert``."""
    parser.add_argument("--ratings", type=int, default=50_000_000, help="ratings (50000000)")
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--items", type=int, default=30_000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--memory-limit", default="1GB", help="per converting worker (1GB)")
    parser.add_argument("--rows-per-block", type=int, default=500_000)
    parser.add_argument("--trees", type=int, default=20,
                        help="XGBoost trees trained on the converted shards (0: no training)")
    parser.add_argument("--features", default="user,item,svd,similarity",
                        help="feature groups (the synthetic table has no genres or tags)")
    parser.add_argument("--out", metavar="FILE.md", help="also write the figures as Markdown")


def _worker_peak_mb(client: Any) -> dict[str, float]:
    """Each worker's own peak RSS (``bench.machine.peak_rss_kib`` run in the worker), MB."""
    return {w: kib / 1024.0 for w, kib in client.run(peak_rss_kib).items()}


def check_inputs(args: argparse.Namespace) -> None:
    """``--memory-limit`` and ``--features`` read, before the ratings are generated (a bad one
    failed after minutes of generation). Called by ``ltrbench perf`` before :func:`run`."""
    from bench.adapters.config import AdapterConfig
    from bench.adapters.distributed import check_distributable
    from bench.engines.dask_engine import check_memory_limit

    check_memory_limit(args.memory_limit)
    check_distributable(AdapterConfig(feature_groups=tuple(
        x.strip() for x in args.features.split(","))))


def run(args: argparse.Namespace) -> int:
    """Generate, write the shards, convert on the limited cluster, report."""
    from bench.adapters.config import AdapterConfig
    from bench.adapters.distributed import convert_distributed
    from bench.data.dask_cluster import cluster
    from bench.data.dask_ratings import read_ratings_frame

    work = Path(tempfile.mkdtemp(prefix="ltrbench-perf-convert-"))
    load0 = load_average()
    try:
        print(f"generating {args.ratings:,} ratings as Parquet shards (not timed)", flush=True)
        shards = work / "ratings"
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(1) as pool:  # not in this process
            n_rows = pool.apply(write_ratings_shards, (shards,),
                                {"n_ratings": args.ratings, "n_users": args.users,
                                 "n_items": args.items})
        in_memory = n_rows * 32
        print(f"  {n_rows:,} ratings written")
        csv_bytes = sum(f.stat().st_size for f in shards.glob("*.parquet"))
        config = AdapterConfig(feature_groups=tuple(args.features.split(",")))
        def say(msg: str) -> None:
            print(f"  {msg} (this process's peak RSS so far {peak_rss_kib() / 1024:,.0f} MB)",
                  flush=True)

        t0 = time.perf_counter()
        with cluster(workers=args.workers, memory_limit=args.memory_limit) as client:
            summary = convert_distributed(read_ratings_frame(shards), work / "letor", config,
                                          client, rows_per_block=args.rows_per_block,
                                          progress=say)
            wall = time.perf_counter() - t0
            peaks = _worker_peak_mb(client)
            limits = summary["engine"]["cluster"]["memory_limit_bytes"]  # type: ignore[index]
        trained: dict[str, Any] = {}
        peaks_after: dict[str, float] = {}
        if args.trees:  # on a fresh cluster without the conversion's memory limit
            with cluster(workers=args.workers) as client:
                trained = _train_and_evaluate(client, work / "letor", args.trees)
                peaks_after = _worker_peak_mb(client)
        parts: Any = summary["partitions"]
        rows = {k: v["rows"] for k, v in parts.items()}
        text = _render(args, n_rows, in_memory, csv_bytes, wall, peaks, limits, rows, summary,
                       load0, load_average(), trained, peaks_after)
        print(text)
        if args.out:  # atomically, as every perf --out: a fault keeps the earlier figures
            from bench.data.atomic import write_text

            write_text(args.out, text)
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


def write_ratings_shards(folder: Path, *, n_ratings: int, n_users: int, n_items: int,
                         shard_users: int = 4000, seed: int = 0) -> int:
    """Write about ``n_ratings`` ratings as ``ratings-NNN.parquet`` shards of ``shard_users``
    users each (users ``0..n_users-1``; per-user activity log-normal; items drawn with weight
    ``1 / (rank + 10)^0.8`` without repeats per user; half-star ratings; increasing times).
    Returns the rows written. Holds one shard at a time."""
    import numpy as np
    import pandas as pd

    folder.mkdir(parents=True)
    rng = np.random.default_rng(seed)
    activity = rng.lognormal(0.0, 0.8, n_users)
    per_user = np.maximum(20, np.round(activity / activity.sum() * n_ratings)).astype(np.int64)
    per_user = np.minimum(per_user, n_items // 2)
    weight = 1.0 / (np.arange(n_items) + 10.0) ** 0.8
    cum = np.cumsum(weight / weight.sum())
    stars = np.arange(1, 11) / 2.0
    star_p = np.array([1, 3, 2, 7, 5, 20, 13, 26, 8, 15], dtype=float)
    written = 0
    for k, u0 in enumerate(range(0, n_users, shard_users)):
        users = np.arange(u0, min(n_users, u0 + shard_users))
        want = per_user[users]
        user = np.repeat(users, (want * 1.3).astype(np.int64) + 5)
        item = np.minimum(np.searchsorted(cum, rng.random(user.shape[0])), n_items - 1)
        key = np.unique(user * n_items + item)  # distinct (user, item) pairs, sorted
        user, item = key // n_items, key % n_items
        rank = np.arange(user.shape[0]) - np.searchsorted(user, user)
        keep = rank < want[user - u0]
        user, item = user[keep], item[keep]
        n = user.shape[0]
        frame = pd.DataFrame({
            "userId": user, "movieId": item + 1,
            "rating": rng.choice(stars, n, p=star_p / star_p.sum()),
            "timestamp": 1_000_000_000 + rng.integers(0, 300_000_000, n)})
        frame.to_parquet(folder / f"ratings-{k:03d}.parquet", index=False,
                         row_group_size=250_000)
        written += n
    return written


def _train_and_evaluate(client: Any, letor: Path, trees: int) -> dict[str, Any]:
    """XGBoost on the converted shards, and its test NDCG@10, all on the cluster."""
    from bench.data.query_shards import read_query_shards
    from bench.metrics.distributed import evaluate_frame
    from bench.runners.dask_gbdt import predict_frame, train_dask
    from bench.runners.params import Params

    train, vali, test = (read_query_shards(letor / s) for s in ("train", "vali", "test"))
    params = Params(n_trees=trees, num_leaves=31, learning_rate=0.1,
                    early_stopping_rounds=trees + 1, seed=0)
    t0 = time.perf_counter()
    fit = train_dask("xgboost", client, train, vali, params, objective="ndcg")
    fit_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    result = evaluate_frame(predict_frame(fit, test), metrics="ndcg@10", profile="xgboost")
    return {"fit_s": fit_s, "eval_s": time.perf_counter() - t0,
            "ndcg": result.metrics["ndcg@10"], "best": fit.best_iteration}


def _render(args: argparse.Namespace, n_rows: int, in_memory: int, csv_bytes: int, wall: float,
            peaks: dict[str, float], limits: list[int], rows: dict[str, int],
            summary: dict[str, Any], load0: str, load1: str, trained: dict[str, Any],
            peaks_after: dict[str, float]) -> str:
    mb = 1e6
    lines = [
        "# `convert --engine dask` on a ratings table larger than its workers' memory",
        "",
        f"Machine: {cpu_model()}, {usable_cpus()} usable CPUs, Python {platform.python_version()}; "
        f"load average (1, 5, 15 min, tasks) at start {load0}, at end {load1}.",
        "Command: `ltrbench perf dask-convert " + " ".join(
            f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items()
            if k in ("ratings", "users", "items", "workers", "memory_limit", "rows_per_block",
                     "features")) + "`",
        "",
        "| | |",
        "|---|---|",
        f"| ratings | {n_rows:,} ({summary['split_meta']['ratings']['users']:,} users, "
        f"{summary['split_meta']['ratings']['items']:,} items) |",
        f"| table as Parquet shards | {csv_bytes / mb:,.0f} MB |",
        f"| table in memory (4 columns x 8 bytes) | {in_memory / mb:,.0f} MB |",
        f"| workers x memory limit | {len(limits)} x {limits[0] / mb:,.0f} MB "
        f"({sum(limits) / mb:,.0f} MB together) |",
        f"| user blocks | {summary['engine']['user_blocks']} |",
        f"| wall time (cluster start to summary) | {wall:,.1f} s |",
        *[f"| peak RSS of converting worker {w.rsplit(':', 1)[-1]} | {p:,.0f} MB |"
          for w, p in sorted(peaks.items())],
        *[f"| {k} rows written | {v:,} |" for k, v in rows.items()],
        f"| features | {len(summary['feature_names'])} |",
        *([f"| XGBoost on the shards: fit ({args.trees} trees, 31 leaves) | "
           f"{trained['fit_s']:,.1f} s |",
           f"| test NDCG@10 (evaluated on the cluster, profile xgboost) | {trained['ndcg']:.4f} |",
           f"| test evaluation incl. prediction | {trained['eval_s']:,.1f} s |",
           *[f"| peak RSS of training worker {w.rsplit(':', 1)[-1]} (no memory limit) | "
             f"{p:,.0f} MB |" for w, p in sorted(peaks_after.items())]] if trained else []),
        f"| peak RSS of this process (orchestrating; the table is generated in a child) | "
        f"{peak_rss_kib() / 1024:,.0f} MB |",
        "",
        "Steps:",
        "",
        *[f"- {k}: {v:,.1f} s" for k, v in summary.get("timings_s", {}).items()],
    ]
    return "\n".join(lines) + "\n"


__all__ = ["add_arguments", "check_inputs", "run"]
