"""Timing you can trust: CPU time, the machine's other load during a fit, and the contention flag."""

from __future__ import annotations

import os
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
    monkeypatch.setattr(resources, "_wall_clock", lambda: next(clock))
    monkeypatch.setattr(resources, "_cpu_clock", lambda: next(cpu))
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


def test_a_fit_that_is_all_the_machine_s_busy_time_is_not_flagged(monkeypatch):
    """Recorded counters of an idle machine: the machine's busy time grew by exactly the block's
    own CPU time (1.9 CPU-s of a 1 s block on 2 CPUs), so there is no other load to flag."""
    readings = iter([(500.0, 3.0), (500.0 + 1.9, 3.0)])
    monkeypatch.setattr(resources, "machine_cpu_seconds", lambda: next(readings))
    monkeypatch.setattr(resources.os, "cpu_count", lambda: 2)
    clock, cpu = iter([10.0, 11.0]), iter([4.0, 5.9])
    monkeypatch.setattr(resources, "_wall_clock", lambda: next(clock))
    monkeypatch.setattr(resources, "_cpu_clock", lambda: next(cpu))
    with measure() as m:
        pass
    assert m.cpu_s == pytest.approx(1.9)
    assert m.other_cpu_s == pytest.approx(0.0)
    assert m.steal_s == pytest.approx(0.0)
    assert not m.contended


def test_the_counters_resolution_and_steal_decide_the_flag_on_recorded_values():
    # other load just above the threshold but below the counters' resolution: not flagged
    tiny = Measurement(seconds=0.1, cpu_s=0.1, other_cpu_s=0.04, steal_s=0.0, cpus=1)
    assert tiny.other_load == pytest.approx(0.4)
    assert not tiny.contended
    # the same share over a longer block: flagged
    assert Measurement(seconds=1.0, cpu_s=1.0, other_cpu_s=0.4, steal_s=0.0, cpus=1).contended
    # steal just at / above its threshold
    assert not Measurement(seconds=1.0, other_cpu_s=0.0, steal_s=0.2, cpus=2).contended
    assert Measurement(seconds=1.0, other_cpu_s=0.0, steal_s=0.21, cpus=2).contended


def _background_load(seconds: float = 0.5) -> float:
    """Other processes' share of the machine while this process sleeps (from /proc/stat)."""
    with measure() as m:
        time.sleep(seconds)
    return (m.other_cpu_s or 0.0) / (m.seconds * m.cpus)


def _busy_loops() -> int:
    """One busy loop per usable CPU, so that the others' share is far above the threshold on a
    machine of any size (two loops on 64 CPUs would be 3 %)."""
    try:
        return max(2, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(2, os.cpu_count() or 2)


@pytest.mark.slow
def test_a_busy_loop_beside_a_fit_is_flagged():
    if resources.machine_cpu_seconds() is None:
        pytest.skip("no /proc/stat on this platform")
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
             for _ in range(_busy_loops())]
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
    """On a quiet machine a fit is not flagged: its own CPU time is not counted as other load.

    Whether the machine is quiet is measured first (other processes' share while this one
    sleeps, before and after each fit); a fit whose surroundings were busy says nothing, and
    when no attempt had quiet surroundings the test is skipped with the load it saw (the flag's
    arithmetic is tested on recorded counters above, whatever else runs)."""
    if resources.machine_cpu_seconds() is None:
        pytest.skip("no /proc/stat on this platform")
    quiet_limit = CONTENTION_THRESHOLD / 3
    busy_seen, flagged = [], []
    for _ in range(3):
        before = _background_load()
        with measure() as m:
            _fit()
        after = _background_load()
        if max(before, after) > quiet_limit:
            busy_seen.append(round(max(before, after), 3))
            continue
        if not m.contended:
            assert m.cpu_s > 0.5 * m.seconds  # the fit itself kept a CPU busy
            return
        flagged.append(round(m.other_load or 0.0, 3))
    if not flagged:
        pytest.skip(f"the machine is busy with other work (other processes' share "
                    f"{busy_seen} > {quiet_limit:.2f}): an idle fit cannot be measured here")
    pytest.fail(f"fits on a quiet machine were flagged: other load {flagged}")
