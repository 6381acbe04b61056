"""``ltrbench perf scale``: a whole benchmark run at a published dataset size, step by step.

What a user pays to benchmark LambdaMART on an MSLR-WEB30K-sized fold on this machine, each step
in a fresh process so that its peak resident memory is its own (``wait4``'s ``ru_maxrss``):

1. **generate** the LETOR text folder once (``synthetic-mslr30k`` by default, written by
   :func:`bench.datasets.letor_shapes.ensure_letor_shape` into the data directory; skipped when
   it is there already, and never counted);
2. **cold load**: :func:`bench.datasets.resolve.load_dataset` with this folder's cache entries
   removed first (hash the sources, parse, write the entries) -- the first run's price;
3. **warm load**: the same call again (hash, check and map the entries) -- every later run's;
4. **run**: ``ltrbench run --config CONFIG --dataset DATASET`` (by default the
   ``experiments-mslr30k`` config: LightGBM's ``docs/Experiments.rst`` settings, 500 trees of
   255 leaves, both libraries, one seed), whose own ``timings.csv`` gives each library's fit and
   predict seconds, its CPU seconds, the machine's other load and the ``contended`` flag.

Before the run the dataset's memory estimate (:mod:`bench.datasets.memory`) is printed beside
the measured peaks, so ``RUN_FACTOR`` is checked against a real run. With ``--out`` everything
is written as Markdown (``results/perf/scale.md``), with the CPU model and the load averages at
the start and end. Target (issue 13): peak RSS of the run <= ``--limit-gb`` (8 GB).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.data.jsonio import read_json_object
from bench.errors import LtrbenchError
from bench.machine import cpu_model, load_average

DEFAULT_DATASET = "synthetic-mslr30k"
DEFAULT_CONFIG = "experiments-mslr30k"
LIMIT_GB = 8.0

_LOAD_CHILD = """
import json, sys, time
from bench.datasets.resolve import load_dataset
t = time.perf_counter()
s = load_dataset(sys.argv[1], data_dir=sys.argv[2], cache=True, progress=None)
secs = time.perf_counter() - t
print(json.dumps({"seconds": secs, "rows": {k: int(v.X.shape[0]) for k, v in s.splits().items()},
                  "features": int(s.train.X.shape[1])}))
"""

_GENERATE_CHILD = """
import json, sys, time
from bench.datasets.catalogue import generation_options, get_card, parse_spec
from bench.datasets.letor_shapes import ensure_letor_shape
name, option = parse_spec(sys.argv[1])
scale, seed = generation_options(sys.argv[1])
t = time.perf_counter()
folder = ensure_letor_shape(get_card(name), scale=scale, seed=seed, data_dir=sys.argv[2])
print(json.dumps({"folder": str(folder), "seconds": time.perf_counter() - t}))
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``ltrbench perf scale``."""
    parser.add_argument("--dataset", default=DEFAULT_DATASET,
                        help=f"a generated LETOR shape, NAME[:SCALE] (default {DEFAULT_DATASET})")
    parser.add_argument("--config", default=DEFAULT_CONFIG,
                        help=f"the run config (default {DEFAULT_CONFIG})")
    parser.add_argument("--n-trees", type=int, default=None, help="override the config's trees")
    parser.add_argument("--data-dir", default=None,
                        help="where the folder is generated and cached (default: the data dir)")
    parser.add_argument("--results", default=None,
                        help="where the run is written (default: a temporary folder, removed)")
    parser.add_argument("--limit-gb", type=float, default=LIMIT_GB,
                        help=f"peak RSS target in GB (default {LIMIT_GB:g})")
    parser.add_argument("--out", metavar="FILE.md", help="also write the figures as Markdown")


@dataclass
class Step:
    """One measured step: wall seconds and the peak RSS of its process (bytes)."""

    name: str
    seconds: float
    peak_rss: int
    detail: str = ""


@dataclass
class Report:
    dataset: str
    config: str
    folder: str = ""
    text_bytes: int = 0
    estimate: str = ""
    estimate_bytes: int = 0
    steps: list[Step] = field(default_factory=list)
    fits: list[dict[str, str]] = field(default_factory=list)
    test_ndcg: dict[str, float] = field(default_factory=dict)
    load: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    run_status: int = 0


def check_inputs(args: argparse.Namespace) -> None:
    """The dataset is a generated LETOR shape at a valid scale, before minutes of generation
    and loading (it failed in the child process: a traceback). Called by ``ltrbench perf``
    before :func:`run` (which also reads ``--config`` there)."""
    from bench.datasets.catalogue import generation_options, get_card, parse_spec
    from bench.datasets.letor_shapes import check_scale, shape_of

    scale, _ = generation_options(args.dataset)
    check_scale(shape_of(get_card(parse_spec(args.dataset)[0])), scale, args.dataset)
    _check_places(args)


def _check_places(args: argparse.Namespace) -> None:
    """``--results`` as ``run --out`` is checked, and the data directory the stand-in is
    generated in, before the generation: ``--results ~/letor`` was refused by the child run
    only after minutes of generating and loading, and a ``--data-dir`` inside a dataset's
    folder got the generated folder and the parse cache among its files."""
    from bench.data.dataset_marks import refuse_dataset_data_dir
    from bench.data.outputs import check_output_dir
    from bench.datasets.fetch import primary_data_dir
    from bench.datasets.sealed import SEALED_DATASETS, dataset_folders

    refuse_dataset_data_dir(primary_data_dir(args.data_dir))
    if args.results is not None:
        check_output_dir(args.results, option="--results", inputs=[
            ("--config", args.config), *dataset_folders(args.data_dir, around=args.results,
                                                         into=("runs",))],
            into=("runs",), sealed=SEALED_DATASETS)


def run(args: argparse.Namespace) -> int:
    """Run the steps; prints the Markdown report (and writes ``--out``). Exit 1 if the run failed."""
    from bench.datasets.fetch import primary_data_dir

    data_dir = str(primary_data_dir(args.data_dir))
    own = args.results is None
    results = Path(tempfile.mkdtemp(prefix="ltrbench-scale-")) if own else Path(args.results)
    try:
        report = measure(args.dataset, args.config, data_dir=data_dir, results=results,
                         n_trees=args.n_trees)
    finally:
        if own:
            shutil.rmtree(results, ignore_errors=True)
    text = render(report, limit_gb=args.limit_gb)
    print(text)
    if args.out:
        from bench.data.atomic import write_text

        write_text(args.out, text)
        print(f"wrote {args.out}")
    return 0 if report.run_status == 0 else 1


def measure(dataset: str, config: str, *, data_dir: str, results: Path,
            n_trees: int | None = None) -> Report:
    """Generate (if needed), load cold, load warm and run, each in a fresh process."""
    from bench.data.letor_cache import entry_path, sha256_files
    from bench.datasets.memory import estimate_letor

    report = Report(dataset=dataset, config=config, load=[load_average()])
    gen = _child_json([sys.executable, "-c", _GENERATE_CHILD, dataset, data_dir], "generate")
    folder = Path(str(gen["folder"]))
    report.folder = str(folder)
    report.notes.append(f"LETOR text folder generated (or found from an earlier run) in "
                        f"{gen['seconds']:.0f} s; generation is not part of any step below")
    files = sorted(p for p in folder.rglob("*.txt"))
    report.text_bytes = sum(p.stat().st_size for p in files)
    est = estimate_letor(files)
    report.estimate_bytes = est.run_bytes
    report.estimate = (f"{est.rows:,} rows x {est.columns} columns estimated from a sample: "
                       f"{est.feature_bytes / 1e9:.2f} GB of float32 features, "
                       f"{est.run_bytes / 1e9:.2f} GB for a run")

    cache = Path(data_dir) / "cache"
    for digest in sha256_files(files):
        entry = entry_path(cache, digest)
        if entry.exists():
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    for name in ("cold load (hash + parse + write cache)", "warm load (hash + check + map cache)"):
        out, rss, _ = _child([sys.executable, "-c", _LOAD_CHILD, dataset, data_dir], name)
        info = json.loads(out.strip().splitlines()[-1])
        rows = info["rows"]
        report.steps.append(Step(name, float(info["seconds"]), rss,
                                 f"{sum(rows.values()):,} rows ({', '.join(f'{k} {v:,}' for k, v in rows.items())}) x "
                                 f"{info['features']} features"))

    results.mkdir(parents=True, exist_ok=True)
    before = set((results / "runs").glob("*")) if (results / "runs").exists() else set()
    argv = [sys.executable, "-m", "bench", "run", "--config", config, "--dataset", dataset,
            "--data-dir", data_dir, "--out", str(results)]
    if n_trees is not None:
        argv += ["--n-trees", str(n_trees)]
    t = time.perf_counter()
    _, rss, status = _child(argv, "run", capture=False)
    wall = time.perf_counter() - t
    report.run_status = status
    made = sorted(set((results / "runs").glob("*")) - before)
    report.steps.append(Step(f"ltrbench run --config {config}", wall, rss,
                             f"exit {status}; run directory {made[-1].name if made else '(none)'}"))
    if made:
        _read_run(made[-1], report)
    report.load.append(load_average())
    return report


def _read_run(run_dir: Path, report: Report) -> None:
    with open(run_dir / "timings.csv", newline="") as fh:
        report.fits = list(csv.DictReader(fh))
    from bench.data.toml import read_toml

    profile = str(read_toml(run_dir / "config.toml").get("profile", "ltrbench"))
    with open(run_dir / "metrics.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            # the run's profile only (a split with blank queries adds <profile>-blank0/-blank1 rows)
            if row["split"] == "test" and row["metric"] == "ndcg@10" and row["profile"] == profile:
                report.test_ndcg[row["model"]] = float(row["value"])
    manifest = read_json_object(run_dir / "manifest.json", "the run's manifest.json")
    timing = manifest.get("timing", {})
    report.notes.append(f"threads: library {timing.get('library_threads')}, numba "
                        f"{timing.get('numba_threads')}, timing mode {timing.get('mode')}; "
                        f"cross-check: {_crosscheck(manifest.get('crosscheck'))}")


def _crosscheck(record: object) -> str:
    if not isinstance(record, dict):
        return "not run"
    if record.get("ok"):
        return "OK (every built-in metric equals the reference under its library's profile)"
    return f"FAILED: {'; '.join(map(str, record.get('errors', [])))}"


def _child(argv: list[str], what: str, *, capture: bool = True) -> tuple[str, int, int]:
    """Run ``argv``; (stdout, peak RSS in bytes, exit status). Progress goes to the terminal."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE if capture else None, text=True)
    out = proc.stdout.read() if capture and proc.stdout is not None else ""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if capture and proc.returncode != 0:
        raise LtrbenchError(f"perf scale: the {what} step failed (exit {proc.returncode}); "
                            "its own message is printed above")
    return out, int(usage.ru_maxrss) * 1024, proc.returncode


def _child_json(argv: list[str], what: str) -> dict[str, str | float]:
    out, _, _ = _child(argv, what)
    result: dict[str, str | float] = json.loads(out.strip().splitlines()[-1])
    return result


def render(report: Report, *, limit_gb: float = LIMIT_GB) -> str:
    """Markdown: steps with seconds and peak RSS, fits per library, memory estimate vs measured."""
    run_peak = max((s.peak_rss for s in report.steps), default=0)
    lines = [
        f"# A benchmark run at full size: `{report.dataset}` with `--config {report.config}`",
        "",
        f"Folder: `{report.folder}` ({report.text_bytes / 1e9:.2f} GB of LETOR text).",
        f"Machine: {cpu_model()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"{platform.platform()}.",
        f"Load average (1, 5, 15 min; runnable/all tasks) at the start: {report.load[0]}; at "
        f"the end: {report.load[-1]}.",
        "",
        "| step | seconds | peak RSS GB | detail |",
        "|---|---:|---:|---|",
    ]
    for s in report.steps:
        lines.append(f"| {s.name} | {s.seconds:.1f} | {s.peak_rss / 1e9:.2f} | {s.detail} |")
    if report.fits:
        lines += ["", "| model | fit s | fit CPU s | predict s | trees (best) | peak RSS during "
                  "fit GB | other load | contended | test NDCG@10 |",
                  "|---|---:|---:|---:|---:|---:|---:|---|---:|"]
        for f in report.fits:
            other = f.get("other_load") or ""
            ndcg = report.test_ndcg.get(f["model"])
            lines.append(
                f"| {f['model']} | {float(f['fit_s']):.2f} | {float(f['fit_cpu_s']):.2f} | "
                f"{float(f['predict_s']):.2f} | {_int(f['n_trees'])} ({_int(f['best_iteration'])}) | "
                f"{float(f['peak_rss_mb']) * 1024 * 1024 / 1e9:.2f} | "
                f"{'' if other == '' else f'{float(other):.0%}'} | {f['contended']} | "
                f"{'' if ndcg is None else f'{ndcg:.4f}'} |")
    verdict = "met" if run_peak <= limit_gb * 1e9 else "NOT met"
    lines += ["", f"Peak RSS of any step: {run_peak / 1e9:.2f} GB (target <= {limit_gb:g} GB: "
              f"{verdict}). Memory estimate before loading ({report.estimate}); measured peak / "
              f"estimate = {run_peak / max(report.estimate_bytes, 1):.2f}.", "", "## Notes", ""]
    lines += [f"- {n}" for n in report.notes]
    lines += ["- each step is its own process; peak RSS is its `ru_maxrss` (the run's includes "
              "loading, both fits, prediction, evaluation and the cross-check); 'peak RSS during "
              "fit' is the run's own measurement around each fit (bench.runners.resources).",
              "- 'other load' is the CPU time of other processes (and steal) as a share of the "
              "machine during the fit, from /proc/stat; above 15% the fit is flagged contended."]
    return "\n".join(lines) + "\n"


def _int(value: str) -> str:
    return "" if value in ("", "nan") else str(int(float(value)))


def main(argv: list[str] | None = None) -> int:  # pragma: no cover - convenience entry
    parser = argparse.ArgumentParser(prog="ltrbench perf scale")
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())


__all__ = ["add_arguments", "check_inputs", "measure", "render", "run"]
