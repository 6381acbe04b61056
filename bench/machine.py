"""Facts about the machine a process runs on: its CPU model and the CPUs it may use.

The one place every layer asks (the parser's and the evaluator's thread pools, manifests, perf
reports), so that "how many threads" and "which CPU" are answered the same way everywhere.
"""

from __future__ import annotations

import contextlib
import os
import platform
import resource
import sys
from pathlib import Path


def usable_cpus(threads: int | None = None) -> int:
    """``threads`` when given (at least 1), else the CPUs this process may run on
    (``os.sched_getaffinity``, else ``os.cpu_count``)."""
    if threads is not None:
        return max(1, int(threads))
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``), else :func:`platform.processor`, else "unknown"."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def load_average() -> str:
    """The 1, 5 and 15 minute load averages and runnable/all tasks (``/proc/loadavg``), else
    :func:`os.getloadavg`'s three numbers, else "unknown" -- for the header of every perf report."""
    with contextlib.suppress(OSError):
        return " ".join(Path("/proc/loadavg").read_text().split()[:4])
    with contextlib.suppress(OSError, AttributeError):
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    return "unknown"


def peak_rss_kib() -> int:
    """This process's resident-set high-water mark in KiB (``getrusage``'s ``ru_maxrss``: KiB on
    Linux, bytes on macOS). Dask workers are asked for theirs with ``client.run(peak_rss_kib)``."""
    r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(r // 1024) if sys.platform == "darwin" else int(r)
