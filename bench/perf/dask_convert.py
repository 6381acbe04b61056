"""``ltrbench perf dask-convert``: ``convert --engine dask`` on a ratings table larger than the
memory its workers are given.

A generated MovieLens-like table (:func:`bench.datasets.synthetic.generate_ratings`, default 15M
ratings) is written as CSV shards, then converted on a loopback LocalCluster whose workers have
a memory limit (default one worker of 400 MB, below the table's own size as a DataFrame:
32 bytes per rating), so Dask must spill blocks to disk to finish. Reported: the table's size
(CSV bytes and in-memory bytes), the limit, wall time per step, the peak resident memory of
each worker process (``getrusage`` in the worker) and of this process, and the rows written.
The generation is not timed. Other load on the machine is shown by the load average at the
start and the end.
"""

from __future__ import annotations

import argparse
import platform
import resource
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.machine import cpu_model, load_average, peak_rss_kib, usable_cpus


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``ltrbench perf dask-convert``."""
    parser.add_argument("--ratings", type=int, default=15_000_000, help="ratings (15000000)")
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--memory-limit", default="400MB", help="per worker (400MB)")
    parser.add_argument("--rows-per-block", type=int, default=500_000)
    parser.add_argument("--features", default="user,item,svd,similarity",
                        help="feature groups (the synthetic table has no genres or tags)")
    parser.add_argument("--out", metavar="FILE.md", help="also write the figures as Markdown")


def _worker_peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run(args: argparse.Namespace) -> int:
    """Generate, write the shards, convert on the limited cluster, report."""
    from bench.adapters.config import AdapterConfig
    from bench.adapters.distributed import convert_distributed
    from bench.data.dask_cluster import cluster
    from bench.data.dask_ratings import read_ratings_frame
    from bench.datasets.synthetic import generate_ratings

    work = Path(tempfile.mkdtemp(prefix="ltrbench-perf-convert-"))
    load0 = load_average()
    try:
        print(f"generating {args.ratings:,} ratings (not timed)", flush=True)
        frame = generate_ratings(n_users=args.users, n_items=args.items,
                                 n_ratings=args.ratings, seed=0).frame
        in_memory = int(frame.shape[0]) * 32
        shards = work / "ratings"
        shards.mkdir()
        step = 2_000_000
        for k, a in enumerate(range(0, frame.shape[0], step)):
            frame.iloc[a: a + step].to_csv(shards / f"ratings-{k:03d}.csv", index=False)
        del frame
        csv_bytes = sum(f.stat().st_size for f in shards.glob("*.csv"))
        config = AdapterConfig(feature_groups=tuple(args.features.split(",")))
        def say(msg: str) -> None:
            print(f"  {msg}", flush=True)

        t0 = time.perf_counter()
        with cluster(workers=args.workers, memory_limit=args.memory_limit) as client:
            summary = convert_distributed(read_ratings_frame(shards), work / "letor", config,
                                          client, rows_per_block=args.rows_per_block,
                                          progress=say)
            wall = time.perf_counter() - t0
            peaks = client.run(_worker_peak_mb)
            limits = summary["engine"]["cluster"]["memory_limit_bytes"]  # type: ignore[index]
        parts: Any = summary["partitions"]
        rows = {k: v["rows"] for k, v in parts.items()}
        text = _render(args, in_memory, csv_bytes, wall, peaks, limits, rows, summary,
                       load0, load_average())
        print(text)
        if args.out:
            Path(args.out).write_text(text)
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _render(args: argparse.Namespace, in_memory: int, csv_bytes: int, wall: float,
            peaks: dict[str, float], limits: list[int], rows: dict[str, int],
            summary: dict[str, Any], load0: str,
            load1: str) -> str:
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
        f"| ratings | {args.ratings:,} ({summary['split_meta']['ratings']['users']:,} users, "
        f"{summary['split_meta']['ratings']['items']:,} items) |",
        f"| table as CSV | {csv_bytes / mb:,.0f} MB |",
        f"| table in memory (4 columns x 8 bytes) | {in_memory / mb:,.0f} MB |",
        f"| workers x memory limit | {len(limits)} x {limits[0] / mb:,.0f} MB "
        f"({sum(limits) / mb:,.0f} MB together) |",
        f"| user blocks | {summary['engine']['user_blocks']} |",
        f"| wall time (cluster start to summary) | {wall:,.1f} s |",
        *[f"| peak RSS of worker {w.rsplit(':', 1)[-1]} | {p:,.0f} MB |"
          for w, p in sorted(peaks.items())],
        f"| peak RSS of this process (includes generating the table) | "
        f"{peak_rss_kib() / 1024:,.0f} MB |",
        *[f"| {k} rows written | {v:,} |" for k, v in rows.items()],
        f"| features | {len(summary['feature_names'])} |",
        "",
        "Steps:",
        "",
        *[f"- {k}: {v:,.1f} s" for k, v in summary.get("timings_s", {}).items()],
    ]
    return "\n".join(lines) + "\n"


__all__ = ["add_arguments", "run"]
