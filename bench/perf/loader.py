"""``ltrbench perf loader``: reading LETOR text -- sklearn's loader, the compiled parser, the cache.

One run writes the generated ``synthetic-mslr30k`` fold (:mod:`bench.datasets.letor_shapes`:
``Fold1/{train,vali,test}.txt``, 136 features printed as MSLR prints them, labels 0-4, the
published queries and rows per split scaled to ``--rows`` in all; ``--mslr-fold`` for the exact
2,270,296 / 747,218 / 753,611 rows) into ``--dir`` (default: a temporary folder, removed
afterwards), or takes an existing LETOR folder (``--data``), and times, in turns (A, B, C, D,
A, B, ...) so that a busy machine slows every reader alike:

* **sklearn**: ``load_svmlight_files(query_id=True)`` + ``toarray()`` -- what
  ``read_svmlight_files`` did before the compiled parser. It appends each line's qid with
  ``np.append`` (a copy of the whole qid array per line), so its time grows with the square of
  a file's rows: at MSLR-WEB30K size it takes about an hour; ``--sklearn-repeat 0`` skips it;
* **parser, no cache**: :func:`bench.data.svmlight.read_svmlight_files` (parse only);
* **cold cache**: :func:`bench.data.folders.read_letor_folder` with an empty cache folder
  (hashes the sources, parses, writes the entries);
* **warm cache**: the same again on the entries just written (hashes the sources, checks and
  maps the entries) -- what every later run of the same fold pays.

It prints seconds (best and median of ``--repeat`` turns), MB/s of source text, ratios against
sklearn measured in the same run, the peak RSS increase of each reader (first turn), the CPU
model and load average, and with ``--out`` writes it all as Markdown. The source files are in
the OS page cache for every reader (each was just written or read). The numba kernels are
compiled (or loaded from numba's cache) by a warm-up read before any timing.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np

from bench.datasets.catalogue import get_card
from bench.datasets.letor_shapes import LetorShape, shape_of, write_letor_shape
from bench.machine import cpu_model, load_average
from bench.perf.timing import frozen_heap

SPLITS = ("train", "vali", "test")
SKLEARN = "sklearn load_svmlight_files + toarray"
NO_CACHE = "parser, no cache: read_svmlight_files"
COLD = "read_letor_folder, cold cache (hash + parse + write entries)"
WARM = "read_letor_folder, warm cache (hash + check + map entries)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``ltrbench perf loader``."""
    parser.add_argument("--rows", type=int, default=300_000,
                        help="rows of the generated fold, all splits together (300000: ~320 MB)")
    parser.add_argument("--mslr-fold", action="store_true",
                        help="generate MSLR-WEB30K Fold1's exact row counts (~3.7 GB of text)")
    parser.add_argument("--data", metavar="DIR", help="time this LETOR folder instead")
    parser.add_argument("--dir", metavar="DIR",
                        help="where to generate the fold and the cache (default: a temporary "
                             "folder, removed afterwards)")
    parser.add_argument("--repeat", type=int, default=3, help="turns (best and median reported)")
    parser.add_argument("--sklearn-repeat", type=int, default=None,
                        help="turns that include sklearn (default: all; 0 skips it)")
    parser.add_argument("--threads", type=int, default=None, help="parser threads (all CPUs)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", metavar="FILE.md", help="also write the figures as Markdown")


@dataclass
class Report:
    source: str
    files: dict[str, int]
    rows: int
    n_features: int
    seconds: dict[str, list[float]] = field(default_factory=dict)
    peak_rss: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    load: list[str] = field(default_factory=list)

    @property
    def total_bytes(self) -> int:
        return sum(self.files.values())


@frozen_heap()
def check_inputs(args: argparse.Namespace) -> None:
    """``--dir``, before anything is generated: an output folder (not a file, device or FIFO,
    not the ``--data`` folder nor inside it), whose ``fold/`` (written over, without
    ``--data``) is no dataset already there and which holds no ``cache-*`` entries (removed
    after each turn): ``--dir ~/work`` wrote the generated fold over the user's
    ``~/work/fold``, and ``--dir /dev/null`` said only ``/dev/null: File exists``."""
    if args.dir is None:
        return
    from bench.data.outputs import check_output_dir
    from bench.datasets.sealed import SEALED_DATASETS, dataset_folders
    from bench.errors import ConfigError

    into = () if args.data else ("fold",)
    check_output_dir(args.dir, option="--dir", inputs=[
        ("--data", args.data), *dataset_folders(around=args.dir, into=into)], into=into,
        sealed=("--data", *SEALED_DATASETS))
    taken = sorted(p.name for p in Path(args.dir).glob("cache-*"))
    if taken:
        raise ConfigError(f"--dir {args.dir!r} holds {', '.join(taken)}, which the benchmark "
                          "removes after each turn: choose an empty or new folder")


def run(args: argparse.Namespace) -> int:
    """Run the benchmark; prints the table (and writes ``--out``)."""
    text = benchmark(
        rows=args.rows, mslr_fold=args.mslr_fold, data=args.data, workdir=args.dir,
        repeat=args.repeat, sklearn_repeat=args.sklearn_repeat, threads=args.threads,
        seed=args.seed)
    print(text)
    if args.out:
        from bench.data.atomic import write_text

        write_text(args.out, text)
        print(f"wrote {args.out}")
    return 0


def benchmark(*, rows: int = 300_000, mslr_fold: bool = False, data: str | None = None,
              workdir: str | None = None, repeat: int = 3, sklearn_repeat: int | None = None,
              threads: int | None = None, seed: int = 0) -> str:
    """Generate (or take) a fold, time the readers in turns; returns the Markdown report."""
    own = workdir is None
    work = Path(tempfile.mkdtemp(prefix="ltrbench-loader-")) if own else Path(str(workdir))
    work.mkdir(parents=True, exist_ok=True)
    try:
        folder = Path(data) if data else work / "fold"
        if not data:
            shape = mslr_shape()
            scale = 1.0 if mslr_fold else rows / sum(shape.rows.values())
            t = time.perf_counter()
            write_letor_shape(shape, folder, scale=scale, seed=seed)
            gen_note = (f"synthetic-mslr30k at scale {scale:.4g}, seed {seed}, generated in "
                        f"{time.perf_counter() - t:.0f} s")
        else:
            gen_note = "existing folder"
        report = _time_readers(folder, work, repeat, sklearn_repeat, threads)
        report.notes.insert(0, gen_note)
        return render(report)
    finally:
        if own:
            shutil.rmtree(work, ignore_errors=True)


def mslr_shape() -> LetorShape:
    """The ``synthetic-mslr30k`` shape (MSLR-WEB30K Fold1's published sizes), from its card."""
    return shape_of(get_card("synthetic-mslr30k"))


def _time_readers(folder: Path, work: Path, repeat: int, sklearn_repeat: int | None,
                  threads: int | None) -> Report:
    from bench.data.folders import find_split_files, read_letor_folder
    from bench.data.svmlight import read_svmlight_files

    files = find_split_files(folder)
    paths = [files[s] for s in SPLITS if files[s] is not None]
    _warm_up(work)
    load0 = load_average()
    first = read_letor_folder(folder)  # also brings the sources into the page cache
    report = Report(source=str(folder), files={p.name: p.stat().st_size for p in paths},  # type: ignore[union-attr]
                    rows=sum(d.n_rows for d in first.splits().values()),
                    n_features=first.train.n_features, load=[load0])
    arrays = sum(d.X.nbytes + d.y.nbytes + d.qid.nbytes for d in first.splits().values())
    report.notes.append(f"final arrays (X float32, y float64, qid int64): {arrays / 1e9:.2f} GB")
    del first
    sk_turns = repeat if sklearn_repeat is None else sklearn_repeat
    for turn in range(max(1, repeat)):
        cache = work / f"cache-{turn}"
        shutil.rmtree(cache, ignore_errors=True)
        readers: list[tuple[str, Callable[[], object]]] = []
        if turn < sk_turns:
            readers.append((SKLEARN, lambda: _sklearn(paths)))  # type: ignore[arg-type]
        readers += [
            (NO_CACHE, lambda: read_svmlight_files(paths, threads=threads)),  # type: ignore[arg-type]
            (COLD, partial(read_letor_folder, folder, cache_dir=cache)),
            (WARM, partial(read_letor_folder, folder, cache_dir=cache)),
        ]
        for name, fn in readers:
            seconds, peak = _measure(fn, with_peak=turn == 0)
            report.seconds.setdefault(name, []).append(seconds)
            if peak is not None:
                report.peak_rss[name] = peak
            print(f"turn {turn + 1}: {name}: {seconds:.2f} s "
                  f"({report.total_bytes / seconds / 1e6:.0f} MB/s)", flush=True)
        shutil.rmtree(cache, ignore_errors=True)
    report.notes.append(_warm_breakdown(folder, paths, work, threads))  # type: ignore[arg-type]
    report.load.append(load_average())
    return report


def _sklearn(paths: list[Path]) -> list[np.ndarray]:
    from sklearn.datasets import load_svmlight_files

    loaded = load_svmlight_files([str(p) for p in paths], query_id=True, dtype=np.float32,
                                 zero_based=False)
    return [np.asarray(loaded[3 * k].toarray(), dtype=np.float32) for k in range(len(paths))]


@frozen_heap()
def _measure(fn: Callable[[], object], *, with_peak: bool) -> tuple[float, float | None]:
    """(seconds, peak RSS increase in bytes or None) of one call (:func:`bench.runners.resources.measure`)."""
    from bench.runners.resources import PEAK_RSS_METHOD, measure

    gc.collect()
    with measure() as m:
        out = fn()
    del out
    exact = with_peak and PEAK_RSS_METHOD.startswith("VmHWM")
    return m.seconds, (m.peak_rss_mb * 1024.0 * 1024.0 if exact else None)


def _warm_breakdown(folder: Path, paths: list[Path], work: Path, threads: int | None) -> str:
    from bench.data.folders import read_letor_folder
    from bench.data.letor_cache import load_entry, sha256_files

    cache = work / "cache-breakdown"
    read_letor_folder(folder, cache_dir=cache)
    t = time.perf_counter()
    sums = sha256_files(paths, threads=threads)
    hashing = time.perf_counter() - t
    t = time.perf_counter()
    entries = [load_entry(cache, s, p, threads=threads) for s, p in zip(sums, paths, strict=True)]
    checking = time.perf_counter() - t
    cached = sum(e.X.nbytes + e.y.nbytes for e in entries if e is not None)
    del entries
    shutil.rmtree(cache, ignore_errors=True)
    return (f"warm-cache breakdown: sha256 of the sources {hashing:.2f} s "
            f"({sum(p.stat().st_size for p in paths) / hashing / 1e9:.2f} GB/s, one file per "
            f"thread), CRC-32 check + map of the entries {checking:.2f} s "
            f"({cached / checking / 1e9:.2f} GB/s)")


def _warm_up(work: Path) -> None:
    from bench.data.svmlight_parse import parse_svmlight

    f = work / "warm-up.txt"
    f.write_text("1 qid:1 1:0.5 2:3\n0 qid:1 1:1e-3 2:1.00000000000000000001\n")
    parse_svmlight(f)
    f.unlink()


def render(report: Report) -> str:
    """Markdown: the timing table, ratios against sklearn, memory, machine and notes."""
    mb = report.total_bytes / 1e6
    sk = report.seconds.get(SKLEARN)
    lines = [
        "# LETOR text loading: sklearn vs the compiled parser vs the cache",
        "",
        f"Fold: `{report.source}` -- {', '.join(f'{k} {v / 1e6:.0f} MB' for k, v in report.files.items())}"
        f" ({mb:.0f} MB of text, {report.rows:,} rows x {report.n_features} features).",
        f"Machine: {cpu_model()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"{platform.platform()}.",
        f"Load average (1, 5, 15 min; runnable/all tasks) at the start: {report.load[0]}; "
        f"at the end: {report.load[-1]}.",
        "",
        "| reader | best s | median s | turns | MB/s (best) | x sklearn (best) | peak RSS + GB |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, times in report.seconds.items():
        best, med = min(times), statistics.median(times)
        ratio = f"{min(sk) / best:.1f}x faster" if sk and name != SKLEARN else ""
        peak = report.peak_rss.get(name)
        lines.append(f"| {name} | {best:.2f} | {med:.2f} | {len(times)} | {mb / best:.0f} | "
                     f"{ratio} | {'' if peak is None else f'{peak / 1e9:.2f}'} |")
    if not sk:
        lines += ["", "sklearn was not timed in this run (`--sklearn-repeat 0`): with "
                  "`query_id=True` it copies the whole qid array once per line, so its time "
                  "grows with the square of a file's rows."]
    lines += ["", "Targets (issue 13): parser >= 150 MB/s; warm cache <= 5 s for an "
              "MSLR-WEB30K-sized Fold1.", "", "## Notes", ""]
    lines += [f"- {n}" for n in report.notes]
    lines += ["- peak RSS + is the resident-set high-water mark over the process's size before "
              "the call (first turn); the warm cache maps its entries copy-on-write, so its pages "
              "are file pages shared with the OS page cache."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:  # pragma: no cover - convenience entry
    parser = argparse.ArgumentParser(prog="ltrbench perf loader")
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())


__all__ = ["add_arguments", "benchmark", "mslr_shape", "render", "run"]
