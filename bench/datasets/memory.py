"""How much memory a dataset will need, estimated before it is loaded.

A LETOR text file is sampled (its first :data:`SAMPLE_BYTES`): its data rows per byte give the
row count of the whole file, its largest feature index the column count. The estimate of a run is

    float32 features (rows x columns x 4 bytes)  x  :data:`RUN_FACTOR`

where the factor covers what a benchmark run holds at its peak: the matrices themselves, the
parser's arrays while a file is read, one library's binned copy of the training split (LightGBM's
``Dataset`` or XGBoost's quantile ``DMatrix``: about one byte per value, plus its own buffers),
and the scores and per-query tables. ``results/perf/scale.md`` compares it with the peak RSS of a
full-size run. Against it stands the memory the kernel says is
available (``MemAvailable`` of ``/proc/meminfo``); a dataset that will not fit is refused with a
message saying how much it needs and what to do, instead of the process being killed mid-run.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.data.inputs import check_input_file
from bench.data.svmlight_parse import MAX_FEATURE_INDEX
from bench.data.svmlight_scan import (
    C_MAX_INDEX,
    C_MAX_LINE,
    C_ROWS,
    COUNT_SIZE,
    count_chunk,
)
from bench.errors import DataError

SAMPLE_BYTES = 4 << 20
#: Peak memory of a run as a multiple of its float32 feature matrices (see the module docstring).
#: Measured: 2.0 for a whole ``experiments-mslr30k`` run on the full synthetic-mslr30k fold
#: (4.13 GB peak over 2.05 GB of features; results/perf/scale.md); 2.5 leaves a margin.
RUN_FACTOR = 2.5
GIB = float(1 << 30)
#: A feature mark ``N:`` after a blank, as written (for the message of one line).
_INDEX = re.compile(rb"\s(\d+):")


@dataclass(frozen=True)
class Estimate:
    """Rows and columns of the files, and the bytes a run on them will need at its peak."""

    rows: int
    columns: int
    feature_bytes: int

    @property
    def run_bytes(self) -> int:
        return int(self.feature_bytes * RUN_FACTOR)


def estimate_letor(paths: Iterable[str | os.PathLike[str]]) -> Estimate:
    """Rows, columns and memory of LETOR / SVMlight text files, from a sample of each: the
    parser's own count pass (:func:`bench.data.svmlight_scan.count_chunk`: data rows, and the
    largest last index of a line, which is the line's largest in a file the parser reads) over
    the sample, its rows scaled by the file's size. (It counted lines and collected every
    ``N:`` of the sample as a Python integer: 200 ms for a 4 MiB sample of a 220-feature file,
    three times longer than parsing the whole 11 MB file.)"""
    rows = 0
    columns = 0
    for path in paths:
        p = check_input_file(path, expected="an SVMlight/LETOR file")
        size = p.stat().st_size
        with open(p, "rb") as fh:
            sample = fh.read(SAMPLE_BYTES)
        if not sample:
            continue
        if len(sample) < size:  # drop the partial last line of the sample
            sample = sample[: sample.rfind(b"\n") + 1] or sample
        sampled = len(sample)
        if b"\r" in sample:  # CR-only line ends are line ends, as the parser reads them
            sample = sample.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        buf = np.frombuffer(bytearray(sample), dtype=np.uint8)
        out = np.zeros(COUNT_SIZE, dtype=np.int64)
        count_chunk(buf, buf.shape[0], out)
        data_rows, largest = max(1, int(out[C_ROWS])), int(out[C_MAX_INDEX])
        rows += round(data_rows * size / sampled)
        if largest > MAX_FEATURE_INDEX:  # name the line and the index as written
            line = int(out[C_MAX_LINE])
            text = sample.split(b"\n", line)[line - 1].split(b"#", 1)[0]
            written = max(_INDEX.findall(text), key=lambda m: (len(m.lstrip(b"0")), m.lstrip(b"0")),
                          default=str(largest).encode())
            raise DataError(
                f"feature index {written.decode()} is beyond the limit of {MAX_FEATURE_INDEX:,} "
                "features (the dense matrix would not be usable); expected indices 1..number of "
                "features", path=p, line=line)
        columns = max(columns, largest)
    return Estimate(rows=rows, columns=columns, feature_bytes=rows * columns * 4)


def available_bytes() -> int | None:
    """``MemAvailable`` of ``/proc/meminfo`` in bytes, or ``None`` where there is no such file."""
    try:
        text = Path("/proc/meminfo").read_text()
    except OSError:
        return None
    m = re.search(r"^MemAvailable:\s+(\d+)\s+kB", text, re.MULTILINE)
    return int(m.group(1)) * 1024 if m else None


def check_fits(estimate: Estimate, *, what: str, available: int | None = None) -> None:
    """Refuse a dataset whose run would need more memory than is available (a :class:`DataError`
    naming both figures and what to do); nothing is checked where the available memory is unknown."""
    free = available_bytes() if available is None else available
    if free is None or estimate.run_bytes <= free:
        return
    raise DataError(
        f"{what}: about {estimate.rows:,} rows x {estimate.columns} features; a run needs about "
        f"{estimate.run_bytes / GIB:.1f} GiB at its peak ({estimate.feature_bytes / GIB:.1f} GiB of "
        f"float32 features x {RUN_FACTOR}) but {free / GIB:.1f} GiB is available. Use a smaller "
        "dataset (for a generated one, a smaller scale such as synthetic-mslr30k:0.1), free memory, "
        "or a machine (or cluster) with more"
    )
