"""``ltrbench perf dask``: what the Dask engine costs against one process, on the same data.

On the generated ``synthetic-mslr30k`` shape (default 1,000,000 training rows; validation and
test in MSLR-WEB30K Fold1's proportions; 136 features) each library is trained

* **local**: in this process through the local runner (:func:`bench.runners.gbdt.train_gbdt`),
  every core;
* **dask W**: on a loopback LocalCluster of ``W`` worker processes (``--workers 1,2``), the
  cores divided among them, through :func:`bench.runners.dask_gbdt.train_dask` over query-aligned
  shards (written once; not timed),

with the same parameters (``--trees`` trees of ``--leaves`` leaves, patience larger than the
tree count, so every variant grows every tree). For each it reports the fit's wall time, the
test evaluation time (the reference evaluator in this process vs partition by partition on the
cluster, which includes predicting on the workers), the peak resident memory of this process
and of each worker, and the test NDCG@10 (the quality difference the engine makes: bins and
sketches are built per worker). The variants run one after the other in turns (``--repeat``),
with the machine's load average at the start and end.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench.datasets.catalogue import get_card
from bench.datasets.letor_shapes import generate_split, shape_of
from bench.machine import cpu_model, load_average, peak_rss_kib, usable_cpus
from bench.runners.libraries import dask_libraries, get_library


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``ltrbench perf dask``."""
    parser.add_argument("--rows", type=int, default=1_000_000, help="training rows (1000000)")
    parser.add_argument("--trees", type=int, default=50)
    parser.add_argument("--leaves", type=int, default=31)
    parser.add_argument("--workers", default="1,2", help="worker counts of the Dask variants")
    parser.add_argument("--libraries", default=None,
                        help="comma-separated libraries (default: every library with a Dask "
                        "trainer, bench.runners.libraries.dask_libraries)")
    parser.add_argument("--repeat", type=int, default=1, help="turns (median reported)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", metavar="FILE.md", help="also write the figures as Markdown")


def _maxrss_mb() -> float:
    return peak_rss_kib() / 1024.0


def run(args: argparse.Namespace) -> int:
    """Generate the data, run the variants in turns, print (and write ``--out``) the figures."""
    from bench.data.letor import LetorSplits
    from bench.data.query_shards import write_query_shards
    from bench.metrics import evaluate
    from bench.runners.params import Params

    libraries = _libraries(args.libraries)
    worker_counts = [int(x) for x in str(args.workers).split(",") if x.strip()]
    shape = shape_of(get_card("synthetic-mslr30k"))
    scale = args.rows / shape.rows["train"]
    work = Path(tempfile.mkdtemp(prefix="ltrbench-perf-dask-"))
    load = [load_average()]
    try:
        t0 = time.perf_counter()
        parts = {s: generate_split(shape, s, scale=scale, seed=args.seed) for s in ("train", "vali", "test")}
        splits = LetorSplits(name="perf-dask", train=parts["train"], vali=parts["vali"], test=parts["test"])
        for name, data in parts.items():
            write_query_shards(data, work / name, rows_per_shard=max(1, data.n_rows // 8))
        print(f"synthetic-mslr30k: {parts['train'].n_rows:,} training rows, "
              f"{parts['test'].n_rows:,} test rows; data and shards in "
              f"{time.perf_counter() - t0:.0f} s; {cpu_model()}", flush=True)
        params = Params(n_trees=args.trees, num_leaves=args.leaves, learning_rate=0.1,
                        early_stopping_rounds=args.trees + 1, seed=args.seed)
        evaluate(parts["test"].y, parts["test"].y, qid=parts["test"].qid, metrics="ndcg@10")
        rows: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for _ in range(max(1, args.repeat)):
            for library in libraries:
                rec = _local(library, splits, params)
                rows.setdefault((library, "local"), []).append(rec)
                _say(library, "local", rec)
                for w in worker_counts:
                    rec = _dask(library, work, params, w)
                    rows.setdefault((library, f"dask {w}"), []).append(rec)
                    _say(library, f"dask {w}", rec)
        load.append(load_average())
    finally:
        shutil.rmtree(work, ignore_errors=True)
    text = render(args, rows, load, parts_rows=(parts["train"].n_rows, parts["test"].n_rows))
    print(text)
    if args.out:
        from bench.data.atomic import write_text

        write_text(args.out, text)
        print(f"wrote {args.out}")
    return 0


def _libraries(option: str | None) -> list[str]:
    """The ``--libraries`` named (each a declared library), else those with a Dask trainer."""
    if option is None:
        return list(dask_libraries())
    return [get_library(x.strip()).name for x in option.split(",") if x.strip()]


def _say(library: str, variant: str, rec: dict[str, Any]) -> None:
    print(f"{library:8s} {variant:8s} fit {rec['fit_s']:8.2f} s, eval {rec['eval_s']:6.2f} s, "
          f"NDCG@10 {rec['ndcg']:.4f}", flush=True)


def _local(library: str, splits: Any, params: Any) -> dict[str, Any]:
    from bench.metrics import evaluate
    from bench.runners.gbdt import train_gbdt

    p = replace(params, n_threads=usable_cpus())
    lib = get_library(library)
    result = train_gbdt(library, splits, p, model=lib.model("perf"), objective=lib.lambdamart,
                        eval_at=(10,), select_metric="ndcg@10", log_train=False)
    t0 = time.perf_counter()
    ndcg = evaluate(splits.test.y, result.scores["test"], qid=splits.test.qid,
                    metrics="ndcg@10").metrics["ndcg@10"]
    eval_s = time.perf_counter() - t0
    return {"fit_s": result.fit_s, "eval_s": eval_s, "ndcg": float(ndcg),
            "client_mb": _maxrss_mb(), "workers_mb": []}


def _dask(library: str, work: Path, params: Any, workers: int) -> dict[str, Any]:
    from bench.data.dask_cluster import cluster
    from bench.data.query_shards import read_query_shards
    from bench.metrics.distributed import evaluate_frame
    from bench.runners.dask_gbdt import predict_frame, train_dask

    threads = max(1, usable_cpus() // workers)
    objective = get_library(library).lambdamart
    with cluster(workers=workers, threads=threads) as client:
        frames = {s: read_query_shards(work / s).persist() for s in ("train", "vali", "test")}
        fit = train_dask(library, client, frames["train"], frames["vali"], params,
                         objective=objective, select_metric="ndcg@10", eval_at=(10,))
        t0 = time.perf_counter()
        scored = predict_frame(fit, frames["test"]).persist()
        ndcg = evaluate_frame(scored, metrics="ndcg@10").metrics["ndcg@10"]
        eval_s = time.perf_counter() - t0
        workers_mb = sorted(v / 1024.0 for v in client.run(peak_rss_kib).values())
    return {"fit_s": fit.fit_s, "eval_s": eval_s, "ndcg": float(ndcg), "client_mb": _maxrss_mb(),
            "workers_mb": workers_mb}



def render(args: argparse.Namespace, rows: dict[tuple[str, str], list[dict[str, Any]]],
           load: list[str], *, parts_rows: tuple[int, int]) -> str:
    """The Markdown report."""
    lines = [
        "# ltrbench perf dask: one process vs a Dask LocalCluster",
        "",
        f"Machine: {cpu_model()}, {os.cpu_count()} CPUs, Python {platform.python_version()}. "
        f"Load average (1, 5, 15 min; runnable/all tasks) at the start: {load[0]}; at the end: "
        f"{load[-1]}. Data: synthetic-mslr30k, {parts_rows[0]:,} training rows, "
        f"{parts_rows[1]:,} test rows, 136 features; {args.trees} trees of {args.leaves} "
        f"leaves, every tree grown; {args.repeat} turn(s), median shown. Dask: W worker "
        f"processes x (CPUs / W) threads on 127.0.0.1, data persisted on the workers first.",
        "",
        "| library | engine | fit s | vs local | test eval s | peak RSS MB: this process | "
        "workers | NDCG@10 (test) | Δ vs local |",
        "|---|---|---:|---:|---:|---:|---|---:|---:|",
    ]
    for (library, variant), recs in rows.items():
        fit = statistics.median(r["fit_s"] for r in recs)
        local = statistics.median(r["fit_s"] for r in rows[(library, "local")])
        ev = statistics.median(r["eval_s"] for r in recs)
        ndcg = recs[-1]["ndcg"]
        base = rows[(library, "local")][-1]["ndcg"]
        workers = ", ".join(f"{m:.0f}" for m in recs[-1]["workers_mb"]) or "-"
        lines.append(f"| {library} | {variant} | {fit:.2f} | {fit / local:.2f}x | {ev:.2f} | "
                     f"{recs[-1]['client_mb']:.0f} | {workers} | {ndcg:.4f} | {ndcg - base:+.4f} |")
    lines += ["", "Peak RSS of this process is its high-water mark so far (it holds the data of "
              "every variant: generation, the local fits); a worker's is its own process's.",
              "Test evaluation: local = the reference evaluator on scores already in memory; "
              "dask = predicting on the workers plus the distributed evaluator."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:  # pragma: no cover - convenience entry
    parser = argparse.ArgumentParser(prog="ltrbench perf dask")
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())


__all__ = ["add_arguments", "render", "run"]
