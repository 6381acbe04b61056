"""Wall time, CPU time, the machine's other load, and peak memory of a block of code.

**Other load.** A time measured on a shared machine is only as good as the machine was idle.
:func:`measure` reads the machine-wide CPU counters of ``/proc/stat`` (busy and steal time of all
CPUs, proc(5)) before and after the block and subtracts this process's own CPU time
(:func:`time.process_time`, all its threads): what is left is CPU time that other processes (or
the hypervisor, as steal) took while the block ran. ``other_load`` is that time as a fraction of
the machine's capacity over the block (``wall x CPUs``); a block with ``other_load`` above
:data:`CONTENTION_THRESHOLD` (or steal above :data:`STEAL_THRESHOLD`) is ``contended``: its wall
time says more about the neighbours than about the code. Where ``/proc/stat`` is absent the load
is unknown (``None``) and nothing is flagged; so is it where the counters cannot be this
block's: a counter that went backwards (another boot, a wrapped counter), or this process using
more CPU than the machine had over the block (more than ``wall x CPUs``, beyond the counters'
resolution). A clock that goes backwards (a negative wall or CPU time) is an error, never a
recorded time.

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
import math
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bench.errors import LtrbenchError
from bench.machine import peak_rss_kib

_STATUS = Path("/proc/self/status")
_PROC_STAT = Path("/proc/stat")
#: A block is contended when other processes used more than this fraction of the machine's CPU
#: capacity while it ran (and at least :data:`MIN_OTHER_CPU_S` seconds of CPU in all).
CONTENTION_THRESHOLD = 0.15
#: ... or when the hypervisor stole more than this fraction of it.
STEAL_THRESHOLD = 0.10
#: Below this much other CPU time the counters' resolution (one clock tick per CPU) decides.
MIN_OTHER_CPU_S = 0.05
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


def machine_cpu_seconds() -> tuple[float, float] | None:
    """``(busy, steal)`` CPU seconds of all CPUs since boot (``/proc/stat``), or ``None``.

    Busy = user + nice + system + irq + softirq (guest time is inside user), in clock ticks of
    ``os.sysconf("SC_CLK_TCK")``.
    """
    try:
        first = _PROC_STAT.read_text().split("\n", 1)[0].split()
        ticks = [int(v) for v in first[1:9]] + [0] * max(0, 9 - len(first))
        hz = float(os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = ticks[:8]
    return (user + nice + system + irq + softirq) / hz, steal / hz


@dataclass
class Measurement:
    """Filled in when the ``measure()`` block ends.

    ``seconds``: wall time; ``cpu_s``: this process's CPU time (all threads); ``other_cpu_s`` and
    ``steal_s``: CPU time other processes and the hypervisor took meanwhile (``None`` when
    unknown); ``cpus``: the machine's CPU count.
    """

    seconds: float = 0.0
    peak_rss_mb: float = 0.0
    cpu_s: float = 0.0
    other_cpu_s: float | None = None
    steal_s: float | None = None
    cpus: int = 1

    def _share(self, cpu_s: float | None) -> float | None:
        """``cpu_s`` as a fraction of the machine's capacity over the block; ``None`` where the
        wall time is not a positive number or the CPU count is unknown (0)."""
        if cpu_s is None or not self.seconds > 0 or not self.cpus > 0 or math.isnan(cpu_s):
            return None
        return cpu_s / (self.seconds * self.cpus)

    @property
    def other_load(self) -> float | None:
        """Other processes' CPU time as a fraction of the machine's capacity during the block."""
        return self._share(self.other_cpu_s)

    @property
    def steal_load(self) -> float | None:
        """Steal time as a fraction of the machine's capacity during the block."""
        return self._share(self.steal_s)

    @property
    def contended(self) -> bool:
        """True when other load or steal exceeded its threshold (see the module docstring)."""
        load, steal = self.other_load, self.steal_load
        busy = (
            load is not None
            and self.other_cpu_s is not None
            and self.other_cpu_s >= MIN_OTHER_CPU_S
            and load > CONTENTION_THRESHOLD
        )
        return bool(busy or (steal is not None and steal > STEAL_THRESHOLD))


def _check_clocks(out: Measurement) -> None:
    """A negative wall or CPU time is a clock that went backwards: an error, not a fit time."""
    for what, clock, value in (("wall", "time.perf_counter", out.seconds),
                               ("CPU", "time.process_time", out.cpu_s)):
        if not value >= 0:
            raise LtrbenchError(
                f"the {what} clock ({clock}) went backwards during a timed block ({value:.6g} s): "
                "no time was recorded; this clock must be monotonic (a patched or broken clock?)")


def _other_load(out: Measurement, machine0: tuple[float, float] | None,
                machine1: tuple[float, float] | None) -> None:
    """``other_cpu_s`` / ``steal_s`` from the machine's counters before and after the block;
    left ``None`` (unknown) where the counters cannot be this block's (module docstring)."""
    if machine0 is None or machine1 is None:
        return
    busy, steal = machine1[0] - machine0[0], machine1[1] - machine0[1]
    slack = MIN_OTHER_CPU_S * out.cpus  # a clock tick per CPU at each end, and some
    if out.cpu_s > out.seconds * out.cpus + slack:
        return
    if busy >= 0:
        out.other_cpu_s = max(0.0, busy - out.cpu_s)
    if steal >= 0:
        out.steal_s = steal


#: The clocks as they were when ltrbench was imported: a ranker that replaces
#: ``time.perf_counter`` inside ``fit`` (put back and named in its notes by the custom runner)
#: does not time its own fit.
_wall_clock = time.perf_counter
_cpu_clock = time.process_time


@contextlib.contextmanager
def measure() -> Iterator[Measurement]:
    """Time a block (wall: ``time.perf_counter``; CPU: ``time.process_time``), measure the other
    load on the machine meanwhile, and record the block's peak RSS growth in MiB."""
    out = Measurement(cpus=os.cpu_count() or 1)
    if _RESETTABLE:
        with open(_CLEAR_REFS, "w") as fh:
            fh.write("5")
        start_kib = _read_status_kib("VmRSS") or 0
    else:
        start_kib = peak_rss_kib()
    machine0 = machine_cpu_seconds()
    c0 = _cpu_clock()
    t0 = _wall_clock()
    try:
        yield out
    finally:
        out.seconds = _wall_clock() - t0
        out.cpu_s = _cpu_clock() - c0
        _check_clocks(out)
        _other_load(out, machine0, machine_cpu_seconds())
        peak_kib = (_read_status_kib("VmHWM") or 0) if _RESETTABLE else peak_rss_kib()
        out.peak_rss_mb = max(0, peak_kib - start_kib) / 1024.0
