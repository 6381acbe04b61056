"""How a benchmark times a call: alone or in turns with a peer (:func:`measure`, :func:`in_turns`),
each after a full collection over a frozen heap (:func:`frozen_heap`).

A benchmark calls ``gc.collect()`` before each timed call, so that no collection of an earlier
call's garbage falls inside the next one's time. A full collection visits every tracked object of
the process: in a process that has loaded the test suite, Dask and three GBDT libraries that is
0.3-0.9 s per collection on a busy machine, most of a small benchmark's wall time (the three perf
test files took 60-89 s with them and 31-40 s with :func:`frozen_heap`, in turns, load 8-10).

:func:`frozen_heap` collects once, then moves every object alive into the permanent generation
(:func:`gc.freeze`, Python 3.7+) until the block ends: the collections inside it visit only what
the benchmark allocated since, and still free all of it. What the timed calls measure is
unchanged (the objects alive before the benchmark are not garbage, and a collection never ran
inside a timed call); the automatic collections that do run inside them also scan less, as they
would in a fresh ``ltrbench`` process. Objects alive at the start that become garbage inside the
block are freed after it (:func:`gc.unfreeze`).
"""

from __future__ import annotations

import contextlib
import gc
import math
import resource
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from bench.machine import thread_run_seconds

_depth = 0


@contextlib.contextmanager
def frozen_heap() -> Iterator[None]:
    """Run the block (or, as a decorator, each call) with the objects alive at its start frozen
    (see the module docstring); nested blocks freeze once, at the outermost."""
    global _depth
    if _depth == 0:
        gc.collect()
        gc.freeze()
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0:
            gc.unfreeze()


@dataclass(frozen=True)
class Sample:
    """One timed call: wall seconds, the process's system CPU seconds (page faults: zeroing the
    fresh pages), and the run seconds of the threads that existed before the call other than the
    caller's (an OpenMP team still spinning, or any other library's threads)."""

    wall: float
    system: float
    others: float


def measure(fn: Callable[[], object]) -> tuple[Sample, object]:
    """``fn()`` timed as a :class:`Sample`, and its result."""
    me = threading.get_native_id()
    before = {t: s for t, s in thread_run_seconds().items() if t != me}
    sys0 = resource.getrusage(resource.RUSAGE_SELF).ru_stime
    t = time.perf_counter()
    out = fn()
    wall = time.perf_counter() - t
    system = resource.getrusage(resource.RUSAGE_SELF).ru_stime - sys0
    after = thread_run_seconds()
    others = sum(after[k] - v for k, v in before.items() if k in after)
    return Sample(wall, system, others), out


@frozen_heap()
def in_turns(first: Callable[[], object], second: Callable[[], object],
             repeat: int) -> tuple[list[Sample], list[Sample], object]:
    """``first`` and ``second`` timed alternately ``repeat`` times after one untimed warm-up call of
    each (which absorbs what building them left behind); the last result of ``second``."""
    first()
    out = second()
    a: list[Sample] = []
    b: list[Sample] = []
    for _ in range(max(1, repeat)):
        for samples, fn in ((a, first), (b, second)):
            gc.collect()
            sample, result = measure(fn)
            samples.append(sample)
            if fn is second:
                out = result
    return a, b, out


def describe(samples: list[Sample]) -> str:
    """The median wall time, system CPU and other threads' run time of ``samples``."""
    wall, system, others = np.median([[x.wall, x.system, x.others] for x in samples], axis=0)
    return (f"median {wall:.3f} s, system CPU {system:.3f} s, older threads ran {1e3 * others:.1f} ms "
            "inside each call (median)")


def ratio(numerator: float, denominator: float) -> float | None:
    """``numerator / denominator`` of two times, or ``None`` where it means nothing: a time that
    is missing (NaN), infinite or negative, or a denominator of 0 s (a timer too coarse for
    the call, a call that did nothing). A report prints "undefined" for ``None``, never
    ``inf``, ``nan`` nor a target met."""
    if not (math.isfinite(numerator) and math.isfinite(denominator)):
        return None
    return numerator / denominator if numerator >= 0 and denominator > 0 else None
