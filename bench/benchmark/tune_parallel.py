"""Trials of ``ltrbench tune`` side by side (``--engine dask --workers N``): this process asks
the study for each trial and tells it the result; the engine's trial pool
(:class:`bench.engines.table.TrialPool`, for Dask :mod:`bench.engines.dask_trials`) trains and
scores the trials, one per worker at a time.

- **Equal budgets.** Only this process asks for trials, so a trial budget is exact: a trial is
  started only while ``finished + running < N`` (failed and pruned trials count, as one at a
  time; a trial a kill interrupted does not). A CPU-second budget is the sum over every worker
  of the finished trials' CPU seconds (each measured in the worker process that ran it, with
  ``time.process_time``); no trial starts once it is spent, and the trials already running
  finish and count (one at a time, the trial that crosses the budget counts as well).
- **Pinned threads.** Every trial trains with the same thread count for every library
  (``n_threads`` of its parameters: 1 unless ``--threads`` says otherwise), and a worker runs
  one trial at a time, so CPU seconds stay comparable between libraries and with a tune run
  one trial at a time.
- **Pruning.** A worker reports the library's validation curve to the study's storage and asks
  the pruner there (:func:`trial_on_worker`), as a trial run in this process does; the storage
  is the same database (SQLite with a lock timeout: :func:`bench.benchmark.study.open_storage`).
- **Not deterministic.** TPE samples each trial from the trials finished when it is asked for;
  which those are depends on the workers' timing, so two parallel tunes of one seed may sample
  other parameters (the summary says so). Trials run one at a time are deterministic and a
  resumed study reaches the same best trial (:mod:`bench.benchmark.study`).
- **Kills.** A worker that dies under a trial: Dask runs the trial again on another worker, and
  when it cannot, the trial is failed with the reason. This process killed: the trials left
  running are failed and marked ``interrupted`` by ``--resume`` (not counted) and run again.
"""

from __future__ import annotations

import contextlib
import functools
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from bench.benchmark.study import (
    StudyOptions,
    TrialTask,
    _check_failures,
    _reporter,
    counted,
    grid_size,
    make_pruner,
    open_storage,
    sample_params,
    score_params,
    trial_sampler,
    warm_up,
)
from bench.engines.table import TrialPool
from bench.runners.params import Params

#: Seconds between two looks at the running trials (progress lines come as trials finish).
POLL_S = 0.5
#: What the summary says of parallel trials.
NOT_DETERMINISTIC = ("trials ran in parallel: TPE samples each one from the trials finished "
                     "when it starts, which depends on the workers' timing, so a rerun with the "
                     "same seed may sample other parameters (trials one at a time are "
                     "deterministic)")


@dataclass(frozen=True)
class RemoteTrial:
    """What a worker needs to run one trial: where the study lives (to report its curve to the
    pruner), the trial's id and number, and its parameters (sampled and checked here)."""

    storage: str
    study: str
    trial_id: int
    number: int
    pruner: str
    params: Params


def run_parallel(study: Any, task: TrialTask, options: StudyOptions, pool: TrialPool,
                 storage_url: str, on_trial: Callable[[Any], None] | None = None) -> None:
    """Run trials of ``task`` into ``study`` on ``pool``, at most ``pool.workers`` at once,
    until the budget is spent (or a grid is exhausted); ``on_trial(study)`` after each."""
    shared = pool.share(task)
    size = grid_size(task.space) if options.sampler == "grid" else None
    running: dict[int, Any] = {}
    while True:
        done = counted(study)
        _check_failures(task, done)
        cpu = sum(float(t.user_attrs.get("cpu_s", 0.0)) for t in done)
        while len(running) < pool.workers:
            started = len(done) + len(running)
            if options.budget.spent(started, cpu) or (size is not None and started >= size):
                break
            trial, params = _ask(study, task, options, started)
            if params is None:
                if on_trial is not None:
                    on_trial(study)
                done = counted(study)
                continue
            job = RemoteTrial(storage=storage_url, study=study.study_name,
                              trial_id=trial._trial_id, number=trial.number,
                              pruner=options.pruner, params=params)
            running[pool.submit(trial_on_worker, shared, job)] = trial
        if not running:
            return
        for key, result, error in pool.finished(POLL_S):
            _tell(study, running.pop(key), result, error)
            if on_trial is not None:
                on_trial(study)


def _ask(study: Any, task: TrialTask, options: StudyOptions,
         started: int) -> tuple[Any, Params | None]:
    """A new trial and its parameters, sampled here; parameters ``None`` when the sampled combination is one the library refuses (the trial is told failed, with
    the reason, and counts as one at a time)."""
    import optuna

    study.sampler = trial_sampler(options, task.space, started)
    trial = study.ask()
    try:
        return trial, sample_params(trial, task)
    except Exception as exc:
        trial.set_user_attr("error", f"{type(exc).__name__}: {exc}".splitlines()[0][:500])
        trial.set_user_attr("cpu_s", 0.0)
        trial.set_user_attr("wall_s", 0.0)
        study.tell(trial, state=optuna.trial.TrialState.FAIL)
        return trial, None


def _tell(study: Any, trial: Any, result: dict[str, Any] | None,
          error: BaseException | None) -> None:
    """Record a trial's outcome: its attributes (CPU and wall seconds, best iteration, error),
    then its state and value."""
    import optuna

    if error is not None or result is None:
        first = (str(error).strip().splitlines() or [""])[0][:300]
        result = {"state": "FAIL", "attrs": {
            "error": f"the worker running it failed ({type(error).__name__}: {first})",
            "cpu_s": 0.0, "wall_s": 0.0}}
    for key, value in result["attrs"].items():
        trial.set_user_attr(key, value)
    # told outside Optuna's optimize loop: the grid sampler's after_trial would call
    # study.stop() once the grid is done, which Optuna refuses there; the next ask makes the
    # sampler anew, and no other sampler keeps state in after_trial
    study.sampler = optuna.samplers.RandomSampler()
    state = result["state"]
    if state == "COMPLETE":
        study.tell(trial, float(result["value"]))
    else:
        study.tell(trial, state=getattr(optuna.trial.TrialState, state))


def trial_on_worker(task: TrialTask, job: RemoteTrial) -> dict[str, Any]:
    """One trial in a worker: ``job.params`` trained and scored on ``task``'s parts with the
    library's threads pinned to ``job.params.n_threads``; ``{"state", "value", "attrs"}`` (a
    failure is a state with its message, never an exception: the pool's errors are the
    engine's own)."""
    import optuna

    attrs: dict[str, Any] = {}
    out: dict[str, Any] = {"state": "COMPLETE", "value": math.nan}
    cpu0, wall0 = time.process_time(), time.perf_counter()
    try:
        # what only a process's first trial would pay (the library's import, the reference
        # evaluator's first call: numba loading its kernels) and the study opened, before the
        # clocks start: a worker's first trial is not charged for them, as one at a time the
        # tune's own process pays them before its first trial (bench.benchmark.study.warm_up)
        _warm_once(task)
        reporter = None if job.pruner == "none" else _remote_reporter(job)
        cpu0, wall0 = time.process_time(), time.perf_counter()
        with _pinned_threads(job.params.n_threads):
            out["value"] = score_params(task, job.params, reporter, attrs.__setitem__)
    except optuna.TrialPruned:
        out["state"] = "PRUNED"
    except Exception as exc:
        out["state"] = "FAIL"
        attrs["error"] = f"{type(exc).__name__}: {exc}".splitlines()[0][:500]
    attrs["cpu_s"] = time.process_time() - cpu0
    attrs["wall_s"] = time.perf_counter() - wall0
    return {**out, "attrs": attrs}


#: What this worker process has paid its first-call costs for: (library, metric, profile).
_WARMED: set[tuple[str, str, str]] = set()


def _warm_once(task: TrialTask) -> None:
    key = (task.spec.library, task.selection.metric, task.profile.name)
    if key not in _WARMED:
        warm_up([task])
        _WARMED.add(key)


def _remote_reporter(job: RemoteTrial) -> Callable[[int], Any]:
    """The pruning hook factory of a trial run in a worker: the trial of the study's storage."""
    import optuna

    study = optuna.load_study(study_name=job.study, storage=_storage(job.storage),
                              pruner=make_pruner(job.pruner))
    trial = optuna.trial.Trial(study, job.trial_id)
    return lambda offset: _reporter(trial, offset=offset)


@functools.lru_cache(maxsize=4)
def _storage(url: str) -> Any:
    """One storage per URL in a worker process (opened once, for every trial it runs)."""
    return open_storage(url)


@contextlib.contextmanager
def _pinned_threads(n: int) -> Iterator[None]:
    """The process's OpenMP and BLAS pools limited to ``n`` threads while a trial runs (the
    libraries take ``n_threads`` themselves; this holds the rest, e.g. NumPy's BLAS)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - a dependency of scikit-learn
        yield
        return
    with threadpool_limits(limits=max(1, int(n))):
        yield


__all__ = ["NOT_DETERMINISTIC", "POLL_S", "RemoteTrial", "run_parallel", "trial_on_worker"]
