"""Timing you can trust: CPU time, the machine's other load during a fit, and the contention flag."""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np
import pytest

from bench.runners import resources
from bench.runners.resources import CONTENTION_THRESHOLD, Measurement, measure


def _fit() -> None:
    """About a second of real training on one thread."""
    lgb = pytest.importorskip("lightgbm")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20_000, 20))
    y = (X[:, 0] + rng.normal(size=20_000) > 0).astype(float)
    ds = lgb.Dataset(X, y, params={"verbosity": -1})
    lgb.train({"objective": "binary", "num_threads": 1, "verbosity": -1, "num_leaves": 63},
              ds, num_boost_round=60)


def test_the_flag_follows_other_processes_share_of_the_machine(monkeypatch):
    """Counters stepped by hand: 2 CPUs, a 1 s block using 1 CPU-second itself."""
    readings = iter([(100.0, 0.0), (100.0 + 1.0 + 0.6, 0.0)])
    monkeypatch.setattr(resources, "machine_cpu_seconds", lambda: next(readings))
    monkeypatch.setattr(resources.os, "cpu_count", lambda: 2)
    clock = iter([0.0, 1.0])
    cpu = iter([0.0, 1.0])
    monkeypatch.setattr(resources.time, "perf_counter", lambda: next(clock))
    monkeypatch.setattr(resources.time, "process_time", lambda: next(cpu))
    with measure() as m:
        pass
    assert m.other_cpu_s == pytest.approx(0.6)
    assert m.other_load == pytest.approx(0.3)  # 0.6 CPU-s of 2 CPU-s
    assert m.contended


def test_a_block_is_not_contended_below_the_threshold_or_without_counters():
    quiet = Measurement(seconds=1.0, cpu_s=1.0, other_cpu_s=0.1, steal_s=0.0, cpus=2)
    assert quiet.other_load == pytest.approx(0.05)
    assert not quiet.contended
    stolen = Measurement(seconds=1.0, cpu_s=1.0, other_cpu_s=0.0, steal_s=0.5, cpus=2)
    assert stolen.contended
    unknown = Measurement(seconds=1.0, cpu_s=1.0, other_cpu_s=None, steal_s=None, cpus=2)
    assert unknown.other_load is None
    assert not unknown.contended
    assert CONTENTION_THRESHOLD < 0.5  # one busy core of two must be flagged


@pytest.mark.slow
def test_a_busy_loop_beside_a_fit_is_flagged():
    if resources.machine_cpu_seconds() is None:
        pytest.skip("no /proc/stat on this platform")
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        time.sleep(0.3)
        with measure() as m:
            _fit()
    finally:
        for p in loops:
            p.kill()
            p.wait()
    assert m.other_load is not None
    assert m.other_load > CONTENTION_THRESHOLD
    assert m.contended


@pytest.mark.slow
def test_an_idle_fit_is_not_flagged():
    """On a machine nothing else uses (as in CI), at least one of three fits is clean."""
    if resources.machine_cpu_seconds() is None:
        pytest.skip("no /proc/stat on this platform")
    seen = []
    for _ in range(3):
        with measure() as m:
            _fit()
        seen.append(m.other_load)
        if not m.contended:
            break
    assert not m.contended, f"other load in every attempt: {seen}"
    assert m.cpu_s > 0.5 * m.seconds  # the fit itself kept a CPU busy
