"""Wall time and peak memory of a block of code.

Peak memory is the growth of the process's resident set size (RSS) during the block, in MiB:
``peak RSS during the block - RSS when it started``. It counts what the libraries allocate in
C++ (binned datasets, histograms, trees), which ``tracemalloc`` cannot see.

Method, recorded in every run manifest (:data:`PEAK_RSS_METHOD`):

* Linux: write ``5`` to ``/proc/self/clear_refs``, which resets the kernel's high-water mark
  ``VmHWM`` to the current RSS (proc(5), Linux >= 4.0), then read ``VmHWM`` from
  ``/proc/self/status`` afterwards. Exact per block.
* elsewhere: ``resource.getrusage(RUSAGE_SELF).ru_maxrss`` before and after. This high-water
  mark cannot be reset, so the growth is a lower bound (0 when an earlier block peaked higher).
"""

from __future__ import annotations

import contextlib
import re
import resource
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")


def _read_status_kib(key: str) -> int | None:
    try:
        text = _STATUS.read_text()
    except OSError:
        return None
    m = re.search(rf"^{key}:\s+(\d+)\s+kB", text, re.MULTILINE)
    return int(m.group(1)) if m else None


def _can_reset_hwm() -> bool:
    try:
        with open(_CLEAR_REFS, "w") as fh:
            fh.write("5")
    except OSError:
        return False
    return _read_status_kib("VmHWM") is not None


_RESETTABLE = _can_reset_hwm()

PEAK_RSS_METHOD = (
    "VmHWM growth after reset via /proc/self/clear_refs (exact)"
    if _RESETTABLE
    else "resource.getrusage ru_maxrss growth (lower bound)"
)


def _maxrss_kib() -> int:
    r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(r // 1024) if sys.platform == "darwin" else int(r)  # bytes on macOS, KiB on Linux


@dataclass
class Measurement:
    """Filled in when the ``measure()`` block ends."""

    seconds: float = 0.0
    peak_rss_mb: float = 0.0


@contextlib.contextmanager
def measure() -> Iterator[Measurement]:
    """Time a block (``time.perf_counter``) and record its peak RSS growth in MiB."""
    out = Measurement()
    if _RESETTABLE:
        with open(_CLEAR_REFS, "w") as fh:
            fh.write("5")
        start_kib = _read_status_kib("VmRSS") or 0
    else:
        start_kib = _maxrss_kib()
    t0 = time.perf_counter()
    try:
        yield out
    finally:
        out.seconds = time.perf_counter() - t0
        peak_kib = (_read_status_kib("VmHWM") or 0) if _RESETTABLE else _maxrss_kib()
        out.peak_rss_mb = max(0, peak_kib - start_kib) / 1024.0
