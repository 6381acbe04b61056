"""``ltrbench perf adapters``: ratings -> LETOR conversion at ML-25M size.

Generates a synthetic MovieLens-like table (default 25M ratings, 162k users, 59k items, the
size of MovieLens 25M) with :func:`bench.datasets.synthetic.generate_ratings`, converts it with
:func:`bench.adapters.ratings_to_letor` (default configuration: every default feature group)
and prints the time of every stage (wall clock and process CPU, all threads), ratings per
second of the conversion, and peak resident memory (of the conversion alone: the kernel's
high-water mark is reset after generation, on Linux). Targets: >= 1M ratings/s and < 8 GB.

A first call in a fresh environment also compiles the kernels (cached afterwards); run it a
second time for the steady-state figure, or use ``--repeat``.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import time

from bench.machine import cpu_model

TARGET_RATINGS_PER_S = 1_000_000
TARGET_PEAK_GB = 8.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ratings", type=int, default=25_000_000, help="ratings to generate")
    parser.add_argument("--users", type=int, default=162_000, help="users")
    parser.add_argument("--items", type=int, default=59_000, help="items")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=1, help="conversions to time (default 1)")
    parser.add_argument("--features", default="default",
                        help="'default', 'all' (adds ALS) or comma-separated feature groups")
    parser.add_argument("--out", metavar="FILE.md",
                        help="also write the figures as Markdown (e.g. results/perf/adapters.md)")


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from bench.adapters import AdapterConfig, ratings_to_letor
    from bench.adapters.config import FEATURE_GROUPS
    from bench.datasets.synthetic import generate_ratings
    from bench.streams import fit_table

    console = Console()
    if args.features == "default":
        config = AdapterConfig(seed=args.seed)
    elif args.features == "all":
        config = AdapterConfig(seed=args.seed, feature_groups=FEATURE_GROUPS)
    else:
        config = AdapterConfig(seed=args.seed, feature_groups=tuple(
            g.strip() for g in args.features.split(",") if g.strip()))
    console.print(f"ltrbench perf adapters: {args.ratings:,} ratings, {args.users:,} users, "
                  f"{args.items:,} items; {os.cpu_count()} CPUs ({cpu_model()}); "
                  f"feature groups {', '.join(config.feature_groups)}")
    t0 = time.perf_counter()
    ratings = generate_ratings(n_users=args.users, n_items=args.items, n_ratings=args.ratings,
                               seed=args.seed)
    gen_s = time.perf_counter() - t0
    console.print(f"generated in {gen_s:.1f} s (peak RSS so far {_peak_gb():.2f} GB)")
    ok = True
    records: list[dict[str, object]] = []
    for rep in range(max(1, args.repeat)):
        _reset_peak()
        ru0 = resource.getrusage(resource.RUSAGE_SELF)
        t0 = time.perf_counter()
        splits = ratings_to_letor(ratings, config)
        wall = time.perf_counter() - t0
        ru1 = resource.getrusage(resource.RUSAGE_SELF)
        peak = _peak_gb()
        rate = ratings.n_ratings / wall
        table = Table(title=f"conversion {rep + 1}: stages")
        table.add_column("stage")
        table.add_column("wall s", justify="right")
        table.add_column("cpu s", justify="right")
        cpu = splits.meta.get("timings_cpu_s", {})
        timings = splits.meta["timings_s"]
        assert isinstance(cpu, dict)  # see ratings_to_letor
        assert isinstance(timings, dict)
        for stage, sec in timings.items():
            c = cpu.get(stage)
            table.add_row(stage, f"{sec:.2f}", "" if c is None else f"{c:.2f}")
        fit_table(console, table, whole_cells=True)  # 'fit:grou…' at COLUMNS=20
        console.print(table)
        rows = sum(d.n_rows for d in splits.splits().values())
        console.print(
            f"conversion: {wall:.1f} s wall (user {ru1.ru_utime - ru0.ru_utime:.1f} s, "
            f"system {ru1.ru_stime - ru0.ru_stime:.1f} s), {rate / 1e6:.2f}M ratings/s "
            f"(target >= {TARGET_RATINGS_PER_S / 1e6:.0f}M), peak RSS {peak:.2f} GB "
            f"(target < {TARGET_PEAK_GB:.0f} GB); {rows:,} rows x "
            f"{splits.train.n_features} features; generation + conversion "
            f"{ratings.n_ratings / (gen_s + wall) / 1e6:.2f}M ratings/s"
        )
        ok = ok and rate >= TARGET_RATINGS_PER_S and peak < TARGET_PEAK_GB
        records.append({
            "wall": wall, "user": ru1.ru_utime - ru0.ru_utime, "system": ru1.ru_stime - ru0.ru_stime,
            "rate": rate, "peak": peak, "rows": rows, "features": splits.train.n_features,
            "stages": dict(timings),
        })
        del splits
    console.print("targets met" if ok else "targets NOT met on this run (see the figures above)")
    if args.out:
        from bench.data.atomic import write_text

        write_text(args.out, _markdown(args, config.feature_groups, gen_s, records, ok))
        console.print(f"wrote {args.out}")
    return 0


def _markdown(args: argparse.Namespace, groups: tuple[str, ...], gen_s: float,
              records: list[dict[str, object]], ok: bool) -> str:
    """The figures of one ``perf adapters`` invocation as a Markdown page."""
    lines = [
        "# Ratings -> LETOR adapter: speed and memory",
        "",
        f"`ltrbench perf adapters --ratings {args.ratings} --users {args.users} "
        f"--items {args.items} --repeat {args.repeat}`: a synthetic MovieLens-like table of "
        f"{args.ratings:,} ratings ({args.users:,} users, {args.items:,} items), converted with "
        f"the default adapter configuration (feature groups: {', '.join(groups)}).",
        f"Machine: {cpu_model()} ({platform.machine()}), {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}, {platform.platform()}.",
        "",
        f"Generation: {gen_s:.1f} s (not part of the conversion figures).",
        "",
        "| conversion | wall s | user s | system s | ratings/s | peak RSS GB | output |",
        "|---:|---:|---:|---:|---:|---:|---|",
    ]
    for i, r in enumerate(records, start=1):
        lines.append(
            f"| {i} | {r['wall']:.1f} | {r['user']:.1f} | {r['system']:.1f} | "
            f"{float(r['rate']) / 1e6:.2f}M | {r['peak']:.2f} | "  # type: ignore[arg-type]
            f"{r['rows']:,} rows x {r['features']} features |"
        )
    stages: dict[str, float] = records[-1]["stages"] if records else {}  # type: ignore[assignment]
    lines += ["", "Stages of the last conversion (wall seconds):", "",
              "| stage | wall s |", "|---|---:|"]
    lines += [f"| {k} | {v:.2f} |" for k, v in stages.items()]
    lines += [
        "",
        f"Targets (issue 3): >= {TARGET_RATINGS_PER_S / 1e6:.0f}M ratings/s end to end and "
        f"< {TARGET_PEAK_GB:.0f} GB peak: **{'met' if ok else 'not met'}** on this run.",
        "The first conversion in a fresh environment also compiles the numba kernels (cached "
        "afterwards).",
        "",
    ]
    return "\n".join(lines)


def _reset_peak() -> None:
    """Reset the kernel's peak-RSS mark of this process (Linux; ignored elsewhere)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        pass


def _peak_gb() -> float:
    """Peak resident set size in GB (VmHWM on Linux, else ``ru_maxrss``)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024 / 1e9
    except OSError:
        pass
    scale = 1 if platform.system() == "Darwin" else 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 1e9
