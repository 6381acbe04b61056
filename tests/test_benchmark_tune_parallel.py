"""``ltrbench tune --engine dask`` (issue 22, item 4): trials side by side with the same budget
(exactly N trials per model over every worker, CPU seconds summed over the workers), pinned
threads, the study in the same storage, ``--resume`` after a kill, the summary's words, and a
default Dask tune that listens on loopback only.

Most tests run the parallel loop over :class:`FakePool`, an in-process pool that holds every
call until it is asked what finished and then runs them in a shuffled order (so several trials
are in flight, and they finish out of order); one Dask cluster (a module fixture) runs the
real pool: a tune, a killed worker, the sockets read from ``/proc/net/tcp*`` as
``tests/test_dask_loopback.py`` does.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hostile_kit import letor_folder

from bench.benchmark.config import RunConfig
from bench.benchmark.pipeline import load_splits
from bench.benchmark.study import TrialTask, counted, open_study
from bench.benchmark.tune_parallel import RemoteTrial, trial_on_worker
from bench.benchmark.tune_run import TuneRequest, plan_tune, tune_loaded
from bench.errors import ConfigError
from bench.runners.params import Params

SMALL = Params(n_trees=5, num_leaves=3, min_data_in_leaf=1, early_stopping_rounds=3,
               n_threads=1)


class FakePool:
    """A trial pool in this process: calls wait until :meth:`finished`, which runs them in a
    shuffled order; ``fail`` keys are returned as a dead worker's error."""

    def __init__(self, workers: int, seed: int = 0, fail: frozenset[int] = frozenset(),
                 result: Callable[[Any], Any] | None = None) -> None:
        self.workers = workers
        self.calls: dict[int, tuple[Callable[..., Any], tuple[Any, ...]]] = {}
        self.most_in_flight = 0
        self.fail = fail
        self.result = result
        self._next = 0
        self._rng = random.Random(seed)

    def share(self, value: Any) -> Any:
        return value

    def submit(self, fn: Callable[..., Any], *args: Any) -> int:
        key, self._next = self._next, self._next + 1
        self.calls[key] = (fn, args)
        self.most_in_flight = max(self.most_in_flight, len(self.calls))
        return key

    def finished(self, timeout: float) -> list[tuple[int, Any, BaseException | None]]:
        keys = list(self.calls)
        self._rng.shuffle(keys)
        out: list[tuple[int, Any, BaseException | None]] = []
        for key in keys[: self._rng.randint(1, len(keys))] if keys else []:
            fn, args = self.calls.pop(key)
            if key in self.fail:
                out.append((key, None, RuntimeError("KilledWorker: the worker died")))
            else:
                out.append((key, self.result(args[1]) if self.result else fn(*args), None))
        return out

    def record(self) -> dict[str, Any]:
        return {"workers": self.workers}


def _cpu_result(job: RemoteTrial) -> dict[str, Any]:
    return {"state": "COMPLETE", "value": 0.5 + job.number / 100,
            "attrs": {"cpu_s": 1.0, "wall_s": 1.0, "best_iteration": 1}}


def _plan(tmp_path: Path, models: tuple[str, ...] = ("lightgbm-lambdarank",),
          workers: int = 3, **request: Any) -> Any:
    data = letor_folder(tmp_path / "letor")
    config = RunConfig(dataset=str(data), models=models, params=SMALL, engine="dask",
                       workers=workers)
    fields: dict[str, Any] = {"budget_trials": "5", "out": str(tmp_path / "res")}
    return plan_tune(TuneRequest(**{**fields, **request}), lambda: config), data


def test_every_model_gets_exactly_its_trials_with_several_in_flight(tmp_path: Path) -> None:
    plan, data = _plan(tmp_path, models=("lightgbm-lambdarank", "xgboost-ndcg"))
    pool = FakePool(plan.workers, result=_cpu_result)
    outcome = tune_loaded(plan, load_splits(str(data)), pool=pool)
    assert pool.most_in_flight == 3  # the workers were all busy at once
    table = pd.read_csv(outcome.folder / "trials.csv")
    assert table.groupby("model").size().to_dict() == {"lightgbm-lambdarank": 5,
                                                       "xgboost-ndcg": 5}
    assert not table.duplicated(["model", "trial"]).any()  # no trial counted twice
    assert sorted(table[table["model"] == "xgboost-ndcg"]["trial"]) == [0, 1, 2, 3, 4]
    summary = outcome.summary
    assert (summary["engine"], summary["workers"], summary["threads_per_trial"]) == ("dask", 3, 1)
    assert summary["deterministic"] is False
    assert "trials one at a time are deterministic" in summary["determinism"]
    assert {m["trials_run"] for m in summary["models"].values()} == {5}
    assert json.loads((outcome.folder / "summary.json").read_text())["engine"] == "dask"
    assert json.loads((outcome.folder / "plan.json").read_text())["workers"] == 3


def test_every_library_trains_with_one_pinned_thread_count(tmp_path: Path) -> None:
    data = letor_folder(tmp_path / "letor")
    models = ("lightgbm-lambdarank", "xgboost-ndcg", "catboost-yetirank")

    def bases(threads: str | None, n_threads: int) -> set[int]:
        config = RunConfig(dataset=str(data), models=models, engine="dask",
                           params=Params(n_threads=n_threads),
                           model_params={"xgboost-ndcg": {"n_threads": 4}})
        plan = plan_tune(TuneRequest(budget_trials="2", out=str(tmp_path / "r"),
                                     threads=threads), lambda: config)
        return {p.n_threads for p in plan.bases.values()}

    assert bases(None, 2) == {1}  # not given: 1 per trial, every library
    assert bases("3", 3) == {3}
    with pytest.raises(ConfigError, match=r"--threads 0 .*--threads N >= 1"):
        bases("0", 0)


def test_a_cpu_budget_is_summed_over_the_workers(tmp_path: Path) -> None:
    plan, data = _plan(tmp_path, budget_trials=None, budget_cpu_s=4.5, workers=2)
    pool = FakePool(2, result=_cpu_result)
    outcome = tune_loaded(plan, load_splits(str(data)), pool=pool)
    table = pd.read_csv(outcome.folder / "trials.csv")
    # 1 CPU second a trial: no trial starts once 4.5 s are spent; those running then finish
    assert table["cpu_s"].sum() >= 4.5
    assert len(table) <= 5 + (pool.workers - 1)
    assert outcome.summary["models"]["lightgbm-lambdarank"]["cpu_s"] == len(table)


def test_a_trial_whose_worker_died_fails_with_the_reason_and_counts(tmp_path: Path) -> None:
    plan, data = _plan(tmp_path, workers=2)
    outcome = tune_loaded(plan, load_splits(str(data)), pool=FakePool(2, fail=frozenset({1}),
                                                                         result=_cpu_result))
    table = pd.read_csv(outcome.folder / "trials.csv")
    assert len(table) == 5
    assert table["state"].tolist().count("FAIL") == 1
    import optuna

    study = optuna.load_study(study_name="letor:lightgbm-lambdarank",
                              storage=f"sqlite:///{outcome.folder / 'study.db'}")
    (failed,) = [t for t in study.trials if t.state.name == "FAIL"]
    assert "the worker running it failed" in failed.user_attrs["error"]
    assert "KilledWorker" in failed.user_attrs["error"]


def test_a_resumed_parallel_tune_reruns_the_trials_a_kill_left_running(tmp_path: Path) -> None:
    plan, data = _plan(tmp_path, workers=2)
    splits = load_splits(str(data))
    folder = tune_loaded(plan, splits, pool=FakePool(2, result=_cpu_result)).folder
    (folder / "complete").unlink()
    # as a kill leaves it: two trials asked (RUNNING) and never told, and a budget of 7
    import optuna

    study = optuna.load_study(study_name="letor:lightgbm-lambdarank",
                              storage=f"sqlite:///{folder / 'study.db'}")
    study.ask()
    study.ask()
    plan_json = json.loads((folder / "plan.json").read_text())
    plan_json["budget"]["amount"] = 7
    (folder / "plan.json").write_text(json.dumps(plan_json))
    plan2, _ = _plan(tmp_path, workers=2, budget_trials="7", resume=str(folder))
    outcome = tune_loaded(plan2, splits, pool=FakePool(2, result=_cpu_result))
    table = pd.read_csv(folder / "trials.csv")
    assert len(table) == 7  # the two interrupted ones are not counted, and were run again
    assert sorted(table["trial"]) == [0, 1, 2, 3, 4, 7, 8]
    states = {t.number: (t.state.name, t.user_attrs.get("interrupted"))
              for t in optuna.load_study(study_name="letor:lightgbm-lambdarank",
                                         storage=f"sqlite:///{folder / 'study.db'}").trials}
    assert states[5] == states[6] == ("FAIL", True)
    assert outcome.summary["models"]["lightgbm-lambdarank"]["trials_run"] == 7


def test_a_grid_on_parallel_workers_tries_each_point_once(tmp_path: Path) -> None:
    plan, data = _plan(tmp_path, workers=3, budget_trials=None, grid="num_leaves=3,5,7,9")
    outcome = tune_loaded(plan, load_splits(str(data)), pool=FakePool(3, result=_cpu_result))
    table = pd.read_csv(outcome.folder / "trials.csv")
    assert sorted(json.loads(p)["num_leaves"] for p in table["params"]) == [3, 5, 7, 9]


def _worker_task(tmp_path: Path) -> tuple[Any, Any, TrialTask]:
    """The plan, its first model and that model's trial task (no search space), as a worker
    receives it."""
    plan, data = _plan(tmp_path)
    splits = load_splits(str(data))
    spec = plan.specs[0]
    return plan, spec, TrialTask(spec=spec, space=(), base=plan.bases[spec.name],
                                 profile=plan.profile, selection=plan.selection,
                                 eval_at=plan.config.eval_at, parts=((splits.train, splits.vali),))


def test_a_worker_trial_scores_as_a_trial_here_and_reports_to_the_pruner(tmp_path: Path) -> None:
    """The worker's value is the reference evaluator's (as one at a time), its curve is in the
    study's storage (the pruner reads it there), and its threads are the parameters'."""
    import optuna

    from bench.benchmark.study import run_trial

    plan, spec, task = _worker_task(tmp_path)
    url = f"sqlite:///{tmp_path / 's.db'}"
    study, _ = open_study(url, "s", "median", resume=False)
    trial = study.ask()
    job = RemoteTrial(storage=url, study="s", trial_id=trial._trial_id, number=trial.number,
                      pruner="median", params=plan.bases[spec.name])
    out = trial_on_worker(task, job)
    assert out["state"] == "COMPLETE"
    assert out["value"] == run_trial(study.ask(), task)
    assert out["attrs"]["cpu_s"] > 0
    assert out["attrs"]["best_iteration"] >= 1
    reported = study._storage.get_trial(trial._trial_id).intermediate_values
    assert reported
    assert sorted(reported) == list(range(1, len(reported) + 1))
    assert len(counted(study)) == 0  # the worker tells nothing: this process does
    assert study._storage.get_trial(trial._trial_id).state == optuna.trial.TrialState.RUNNING


def test_a_workers_first_trial_is_not_charged_for_the_first_call_costs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The library's import and the evaluator's first call (numba loading its kernels: seconds)
    are paid once per worker process before a trial's clocks start, as one at a time the tune's
    own process pays them before its first trial (bench.benchmark.study.warm_up)."""
    import bench.benchmark.tune_parallel as parallel

    burned = 1.0  # CPU seconds a stand-in first call costs; the toy trial itself takes ~0.05

    def costly_warm_up(tasks: Any) -> None:
        calls.append([t.spec.library for t in tasks])
        start = time.process_time()
        while time.process_time() - start < burned:
            pass

    calls: list[list[str]] = []
    monkeypatch.setattr(parallel, "warm_up", costly_warm_up)
    monkeypatch.setattr(parallel, "_WARMED", set())
    plan, spec, task = _worker_task(tmp_path)
    url = f"sqlite:///{tmp_path / 's.db'}"
    study, _ = open_study(url, "s", "none", resume=False)
    outs = []
    for _ in range(2):
        trial = study.ask()
        outs.append(trial_on_worker(task, RemoteTrial(
            storage=url, study="s", trial_id=trial._trial_id, number=trial.number,
            pruner="none", params=plan.bases[spec.name])))
    assert calls == [[spec.library]]  # once per worker process, before the first trial
    assert [o["state"] for o in outs] == ["COMPLETE", "COMPLETE"]
    assert all(0 < o["attrs"]["cpu_s"] < burned for o in outs), outs


@pytest.mark.parametrize(("changes", "words"), [
    ({"workers": 0}, ("workers",)),
    ({"workers": 10_000}, ("workers",)),
    ({"scheduler": "tcp://127.0.0.1:8786"}, ("scheduler", "local cluster")),
])
def test_a_parallel_tune_that_cannot_run_is_refused_before_any_data(
        tmp_path: Path, changes: dict[str, Any], words: tuple[str, ...]) -> None:
    data = letor_folder(tmp_path / "letor")

    def plan() -> Any:
        config = RunConfig(dataset=str(data), models=("lightgbm-lambdarank",), params=SMALL,
                           **{"engine": "dask", **changes})
        return plan_tune(TuneRequest(budget_trials="2", out=str(tmp_path / "res")), lambda: config)

    with pytest.raises(ConfigError) as err:
        plan()
    assert all(w in str(err.value) for w in words), str(err.value)


# --- the real Dask pool: one local cluster, one test (so that pytest-xdist starts one) ------

def _die_once(marker: str) -> int:
    if not os.path.exists(marker):
        Path(marker).write_text("died once\n")
        os._exit(1)
    return os.getpid()


def test_a_dask_tune_runs_its_budget_on_loopback_only_and_outlives_a_killed_worker(
        tmp_path: Path) -> None:
    """A default Dask trial pool (``engines/dask_trials.py``, opened by the engine record):
    a tune of 4 trials on 2 workers, every socket of this process tree on 127.0.0.0/8 while it
    runs (``/proc/net/tcp*``), and a call whose worker dies is run again on a worker."""
    pytest.importorskip("distributed")
    if not Path("/proc/net/tcp").is_file():
        pytest.skip("needs Linux /proc")
    from test_dask_loopback import Listeners, _loopback

    from bench.engines import ClusterOptions, get_engine

    plan, data = _plan(tmp_path, workers=2, budget_trials="4")
    splits = load_splits(str(data))
    with Listeners() as seen, get_engine("dask").open_trials(ClusterOptions(workers=2)) as pool:
        outcome = tune_loaded(plan, splits, pool=pool)
        assert pool.record()["workers"] == 2
        key = pool.submit(_die_once, str(tmp_path / "marker"))
        done: list[Any] = []
        for _ in range(600):
            done += pool.finished(1.0)
            if done:
                break
    table = pd.read_csv(outcome.folder / "trials.csv")
    assert table.groupby("model").size().to_dict() == {"lightgbm-lambdarank": 4}
    assert set(table["state"]) <= {"COMPLETE", "PRUNED"}
    assert (table["cpu_s"] > 0).all()
    assert outcome.summary["threads_per_trial"] == 1
    assert [(k, e) for k, _, e in done] == [(key, None)]  # run again, not failed
    assert (tmp_path / "marker").exists()  # (it did die once)
    assert seen.seen, "the sampler saw no listener at all"
    outside = sorted(a for a in seen.seen if not _loopback(a))
    assert not outside, f"listeners outside 127.0.0.0/8: {outside}"
