"""``ltrbench perf gpu``: CPU vs GPU fit time per library at an MSLR-like shape, and what the
GPU changes in the model.

On the generated ``synthetic-mslr30k`` shape (default 2,000,000 training rows, 136 features;
validation and test in MSLR-WEB30K Fold1's proportions) each library is trained with the same
parameters (default 500 trees of 255 leaves, every tree grown) on the CPU (every core) and on
the GPU (XGBoost ``device="cuda"``, LightGBM ``device_type="cuda"``), in turns (``--repeat``):
fit wall time, time per tree, the speed-up, and the test NDCG@10 of both models (reference
evaluator, profile ``ltrbench``) with their difference. The device, driver and builds are
written at the top (:func:`bench.runners.device.describe_devices`).

Without a GPU, or with a library built without CUDA, it stops before generating anything with
the error of :func:`bench.runners.device.check_device` (exit 2): a CPU-only figure is never
printed as a GPU one.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from dataclasses import replace
from typing import Any

from bench.machine import cpu_model, load_average, usable_cpus
from bench.runners.libraries import LIBRARIES as RECORDS
from bench.runners.libraries import get_library

#: The libraries timed by default: those whose record says they train on CUDA
#: (:attr:`bench.runners.libraries.Library.devices`).
LIBRARIES: tuple[str, ...] = tuple(lib.name for lib in RECORDS.values() if "cuda" in lib.devices)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``ltrbench perf gpu``."""
    parser.add_argument("--rows", type=int, default=2_000_000, help="training rows (2000000)")
    parser.add_argument("--trees", type=int, default=500)
    parser.add_argument("--leaves", type=int, default=255)
    parser.add_argument("--libraries", default=",".join(LIBRARIES))
    parser.add_argument("--repeat", type=int, default=1, help="turns (median reported)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", metavar="FILE.md", help="also write the figures as Markdown")


def run(args: argparse.Namespace) -> int:
    """Check the device, generate the data, fit CPU and GPU in turns, print (and write)."""
    from bench.data.letor import LetorSplits
    from bench.datasets.catalogue import get_card
    from bench.datasets.letor_shapes import generate_split, shape_of
    from bench.runners.device import check_device, describe_devices
    from bench.runners.params import Params

    libraries = [x.strip() for x in args.libraries.split(",") if x.strip()]
    check_device("cuda", set(libraries))  # before anything: no GPU is an error, not a CPU row
    device = describe_devices("cuda", set(libraries))
    shape = shape_of(get_card("synthetic-mslr30k"))
    scale = args.rows / shape.rows["train"]
    load = [load_average()]
    parts = {s: generate_split(shape, s, scale=scale, seed=args.seed)
             for s in ("train", "vali", "test")}
    splits = LetorSplits(name="perf-gpu", train=parts["train"], vali=parts["vali"],
                         test=parts["test"])
    params = Params(n_trees=args.trees, num_leaves=args.leaves, learning_rate=0.1,
                    early_stopping_rounds=args.trees + 1, seed=args.seed,
                    n_threads=usable_cpus())
    rows: dict[tuple[str, str], list[dict[str, float]]] = {}
    for _ in range(max(1, args.repeat)):
        for library in libraries:
            for dev in ("cpu", "cuda"):
                rec = _fit(library, splits, replace(params, device=dev))
                rows.setdefault((library, dev), []).append(rec)
                print(f"{library:8s} {dev:4s} fit {rec['fit_s']:8.2f} s, "
                      f"{1000 * rec['per_tree_s']:7.1f} ms/tree, NDCG@10 {rec['ndcg']:.4f}",
                      flush=True)
    load.append(load_average())
    text = render(args, rows, device, load, parts["train"].n_rows)
    print(text)
    if args.out:
        from bench.data.atomic import write_text

        write_text(args.out, text)
    return 0


def _fit(library: str, splits: Any, params: Any) -> dict[str, float]:
    from bench.metrics import evaluate
    from bench.runners.gbdt import train_gbdt

    lib = get_library(library)
    t0 = time.perf_counter()
    result = train_gbdt(library, splits, params, model=lib.model("perf"), objective=lib.lambdamart,
                        eval_at=(10,), select_metric="ndcg@10", log_train=False)
    wall = time.perf_counter() - t0
    ndcg = evaluate(splits.test.y, result.scores["test"], qid=splits.test.qid,
                    metrics="ndcg@10").metrics["ndcg@10"]
    return {"fit_s": float(result.fit_s), "wall_s": wall,
            "per_tree_s": float(result.fit_s) / params.n_trees, "ndcg": float(ndcg)}


def render(args: argparse.Namespace, rows: dict[tuple[str, str], list[dict[str, float]]],
           device: dict[str, Any], load: list[str], train_rows: int) -> str:
    """The Markdown report: a row per (library, device), the speed-up and the NDCG change."""
    lines = [
        "# ltrbench perf gpu: CPU vs GPU fit",
        "",
        f"Machine: {cpu_model()}, {usable_cpus()} CPUs, Python {platform.python_version()}; "
        f"GPU: {', '.join(device.get('gpus') or ['?'])}, driver {device.get('driver')}, CUDA "
        f"builds {device.get('cuda_builds')}. Load average at the start {load[0]}, at the end "
        f"{load[-1]}.",
        f"Data: synthetic-mslr30k, {train_rows:,} training rows x 136 features; {args.trees} "
        f"trees of {args.leaves} leaves, every tree grown; {args.repeat} turn(s), median shown.",
        "",
        "| library | device | fit s | ms / tree | speed-up | NDCG@10 (test) | Δ vs CPU |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for library in dict.fromkeys(k[0] for k in rows):
        cpu = statistics.median(r["fit_s"] for r in rows[(library, "cpu")])
        cpu_ndcg = statistics.median(r["ndcg"] for r in rows[(library, "cpu")])
        for dev in ("cpu", "cuda"):
            recs = rows[(library, dev)]
            fit = statistics.median(r["fit_s"] for r in recs)
            ndcg = statistics.median(r["ndcg"] for r in recs)
            lines.append(f"| {library} | {dev} | {fit:.2f} | {1000 * fit / args.trees:.1f} | "
                         f"{cpu / fit:.2f}x | {ndcg:.4f} | {ndcg - cpu_ndcg:+.4f} |")
    return "\n".join(lines) + "\n"


__all__ = ["add_arguments", "render", "run"]
