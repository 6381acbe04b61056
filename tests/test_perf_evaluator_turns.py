"""``ltrbench perf evaluator`` in turns: what runs between the timed calls, the thread settings in
effect where they are set, and the figures the report must carry (wait policy, threads,
medians). No timing is asserted: every check is on the order of calls or on counters."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bench import machine
from bench.perf import evaluator, timing


def test_openmp_wait_policy_says_the_variables_that_are_set(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in machine.OPENMP_WAIT_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    assert "unset" in machine.openmp_wait_policy()
    assert "300,000" in machine.openmp_wait_policy()  # libgomp/env.c, initialize_env
    monkeypatch.setenv("OMP_WAIT_POLICY", "passive")
    monkeypatch.setenv("KMP_BLOCKTIME", "0")
    assert machine.openmp_wait_policy() == "OMP_WAIT_POLICY=passive, KMP_BLOCKTIME=0"


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs /proc/self/task (Linux)")
def test_thread_run_seconds_lists_every_live_thread() -> None:
    started, stop = threading.Event(), threading.Event()
    ids: list[int] = []

    def park() -> None:
        ids.append(threading.get_native_id())
        started.set()
        stop.wait()

    t = threading.Thread(target=park)
    t.start()
    started.wait()
    try:
        seen = machine.thread_run_seconds()
    finally:
        stop.set()
        t.join()
    assert threading.get_native_id() in seen
    assert ids[0] in seen
    assert all(v >= 0 for v in seen.values())


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs /proc/self/task (Linux)")
def test_measure_counts_the_work_of_a_thread_older_than_the_call() -> None:
    """An older thread that works while the call waits (as an OpenMP team spinning after its
    parallel region) is counted in ``others``; the caller's own work is not."""
    go, done, stop = threading.Event(), threading.Event(), threading.Event()

    def spin() -> None:  # works once asked, then stays alive (as a team's thread does)
        go.wait()
        x = 0
        for i in range(3_000_000):
            x += i
        done.set()
        stop.wait()

    t = threading.Thread(target=spin)
    t.start()
    try:
        sample, out = timing.measure(lambda: (go.set(), done.wait(), "result")[-1])
    finally:
        go.set()
        stop.set()
        t.join()
    assert out == "result"
    assert sample.others > 0
    alone, _ = timing.measure(lambda: sum(range(3_000_000)))
    assert alone.others < sample.others


#: The calls the fakes below receive, in order.
EVENTS: list[tuple[Any, ...]] = []


class _FakeLightGBM:
    """Stands for :class:`bench.crosscheck.providers.LightGBMMetrics`: records construction,
    thread changes and calls."""

    def __init__(self, labels: np.ndarray, scores: np.ndarray, offsets: np.ndarray,
                 metrics: list[str], *, n_threads: int) -> None:
        self.metrics = metrics
        EVENTS.append(("build", len(metrics), n_threads))

    def set_threads(self, n_threads: int) -> None:
        EVENTS.append(("set_threads", n_threads))

    def __call__(self) -> dict[str, float]:
        EVENTS.append(("lgb",))
        return {m: 0.5 for m in self.metrics}


class _Result:
    def __init__(self) -> None:
        self.metrics = {"ndcg@10": 0.5}


def _fake_evaluate(*args: Any, **kwargs: Any) -> _Result:
    EVENTS.append(("ours", kwargs.get("threads"), kwargs.get("profile")))
    return _Result()


def test_turns_rebuild_the_booster_once_before_the_warm_up_never_between_timed_calls(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The fix: a booster rebuild (hundreds of MB freed and allocated at full size, excluded from
    LightGBM's time) ran right before each timed reference call and made it pay for the fresh
    pages; now each thread setting is made once, then one untimed call of each side, then the
    timed turns, each reference call with the thread count of its LightGBM turn."""
    pytest.importorskip("lightgbm")
    import bench.crosscheck.providers as providers
    import bench.metrics as metrics

    monkeypatch.setattr(providers, "LightGBMMetrics", _FakeLightGBM)
    monkeypatch.setattr(metrics, "evaluate", _fake_evaluate)
    monkeypatch.setattr(evaluator, "usable_cpus", lambda threads=None: 2)
    EVENTS.clear()
    labels, scores, sizes = evaluator.generate(20, 40, seed=0)
    report = evaluator.Report(n_queries=20, n_docs=int(labels.shape[0]))
    evaluator._lightgbm(report, labels, scores, sizes, repeat=3)
    ev = EVENTS
    rebuild = ev.index(("set_threads", 1))
    assert ev[0] == ("build", 1, 2)
    # 2 threads: warm-up pair, then 3 timed turns, with no rebuild among them
    assert ev[1:rebuild] == [("ours", None, None), ("lgb",)] * 4
    # 1 thread: one rebuild, warm-up pair, 3 timed turns, every reference call on 1 thread
    assert ev[rebuild + 1:rebuild + 9] == [("ours", 1, None), ("lgb",)] * 4
    assert ev[rebuild + 9] == ("set_threads", 2)  # back to all cores, after the turns
    assert [e for e in ev if e[0] == "set_threads"] == [("set_threads", 1), ("set_threads", 2)]
    names = [r.name for r in report.rows]
    assert names[:4] == [evaluator.LGB_MT, evaluator.OURS_MT, evaluator.LGB_1T, evaluator.OURS_1T]
    assert any(n.startswith("reference in turns with LightGBM (2 threads): median ") for n in report.notes)
    assert any(n.startswith("reference in turns with LightGBM (1 thread): median ") for n in report.notes)
