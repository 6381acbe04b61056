"""The heartbeat of a long fit (issue 21 item 6): the progress line shows "iteration i/n,
<metric> on vali <v>" through the runners' per-iteration hook, at most once per period of the
clock (a fake clock here: no timing), and nothing at all when progress is off."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator

import numpy as np
import pytest

from bench.benchmark import pipeline, progress
from bench.benchmark.config import RunConfig
from bench.benchmark.progress import heartbeat, progress_bar
from bench.data.letor import LetorData, LetorSplits
from bench.runners.params import Params

SMALL = Params(n_trees=8, num_leaves=5, min_data_in_leaf=3, early_stopping_rounds=8, n_threads=1)


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_heartbeat_shows_at_most_one_line_per_period_of_the_clock() -> None:
    shown: list[str] = []
    clock = FakeClock()
    beat = heartbeat(lambda text, n: shown.append(f"{text}|{n}"), "m seed 0: training", total=500,
                     metric="ndcg@10", every=2.0, clock=clock)
    for t, i in [(100.5, 1), (101.9, 2), (102.0, 3), (103.0, 4), (103.99, 5), (104.0, 6), (110.0, 7)]:
        clock.now = t
        beat(i, 0.5 + i / 100)
    assert shown == [
        "m seed 0: training: iteration 3/500, ndcg@10 on vali 0.5300|0",
        "m seed 0: training: iteration 6/500, ndcg@10 on vali 0.5600|0",
        "m seed 0: training: iteration 7/500, ndcg@10 on vali 0.5700|0",
    ]


def test_a_round_without_a_validation_value_shows_the_round_without_nan() -> None:
    """LightGBM on Dask relays the round number only (its value is NaN): the line names the
    round and leaves the metric out instead of printing "nan"."""
    shown: list[str] = []
    clock = FakeClock()
    beat = heartbeat(lambda text, n: shown.append(text), "m", total=9, metric="ndcg@10",
                     every=1.0, clock=clock)
    clock.now += 2.0
    beat(4, float("nan"))
    assert shown == ["m: iteration 4/9"]


def test_a_fit_shorter_than_the_period_shows_no_heartbeat() -> None:
    shown: list[str] = []
    clock = FakeClock()
    beat = heartbeat(lambda text, n: shown.append(text), "m", total=5, metric="ndcg@3", clock=clock)
    for i in range(1, 6):
        clock.now += 0.1
        beat(i, 0.1)
    assert shown == []


def test_with_progress_off_the_heartbeat_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    clock = FakeClock()
    with progress_bar(False, 1) as advance:
        beat = heartbeat(advance, "m", total=3, metric="ndcg@10", every=0.0, clock=clock)
        for i in (1, 2, 3):
            clock.now += 5
            beat(i, 0.5)
    assert capsys.readouterr() == ("", "")


def _part(seed: int) -> LetorData:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(80, 4))
    y = (X[:, 0] > 0.3).astype(float) + (X[:, 1] > 1.0)
    return LetorData.build(X, y, qid=np.repeat(np.arange(8) + 10 * seed, 10), source=f"p{seed}")


def test_an_in_process_run_shows_the_heartbeat_of_each_gbdt_fit(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    shown: list[str] = []

    @contextlib.contextmanager
    def recording(enabled: bool, total: int) -> Iterator[progress.Advance]:
        yield lambda text, n: shown.append(text)

    monkeypatch.setattr(pipeline, "progress_bar", recording)
    monkeypatch.setattr(progress, "HEARTBEAT_S", 0.0)  # every round: the clock plays no part
    splits = LetorSplits(name="toy", train=_part(1), vali=_part(2), test=_part(3),
                         inputs={"toy.txt": "0" * 64})
    config = RunConfig(dataset="toy", models=("lightgbm-lambdarank", "xgboost-ndcg", "random"),
                       seeds=(0,), params=SMALL, crosscheck=False)
    pipeline.run_benchmark(config, out_dir=tmp_path, progress=True, splits=splits)
    beats = [t for t in shown if "iteration" in t]
    for model in ("lightgbm-lambdarank", "xgboost-ndcg"):
        mine = [t for t in beats if t.startswith(f"{model} seed 0: iteration ")]
        assert [re.search(r"iteration (\d+)/8,", t).group(1) for t in mine] == [  # type: ignore[union-attr]
            str(i) for i in range(1, 9)]
        assert all(re.search(r", ndcg@10 on vali 0\.\d{4}$", t) for t in mine)
    assert not [t for t in beats if t.startswith("random")]


def test_the_isolated_child_sends_its_iterations_to_the_parent_s_hook(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from bench.benchmark import isolated
    from bench.runners.registry import get_model
    from bench.runners.result import Selection

    monkeypatch.setattr(isolated, "_SEND_EVERY_S", 0.0)  # every round: no clock in the test
    splits = LetorSplits(name="toy", train=_part(1), vali=_part(2), test=_part(3))
    trainer = isolated.IsolatedTrainer(splits, tmp_path / "iso")
    seen: list[tuple[int, float]] = []
    config = RunConfig(dataset="toy", models=("lightgbm-lambdarank",), seeds=(0,), params=SMALL)
    result = trainer(get_model("lightgbm-lambdarank"), splits, SMALL, seed=0, eval_at=(10,),
                     selection=Selection(10), log_train=False, als=config.als,
                     on_iteration=lambda i, v: seen.append((i, v)))
    log = result.evallog[(result.evallog.split == "vali") & (result.evallog.metric == "ndcg@10")]
    assert [i for i, _ in seen] == list(range(1, 9))
    assert [v for _, v in seen] == log.sort_values("iteration").value.tolist()

    class Stop(Exception):
        pass

    def stop(i: int, v: float) -> None:
        raise Stop

    with pytest.raises(Stop):  # the parent's hook ends the child too
        trainer(get_model("lightgbm-lambdarank"), splits, SMALL, seed=0, eval_at=(10,),
                selection=Selection(10), log_train=False, als=config.als, on_iteration=stop)
    trainer.close()
