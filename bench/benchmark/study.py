"""The tuning engine of ``ltrbench tune``: one Optuna study per (dataset, model), the same budget
for every model, pruning on the early-stopping curve, scored by the reference evaluator.

Optuna does the search (samplers, pruners, storage); this module keeps the ranking-specific
parts:

- **A trial** (:func:`run_trial`) samples the model's :class:`~bench.benchmark.search_space.Dimension`
  values, trains the library's ``fit`` (the contract of :mod:`bench.runners.gbdt`) on each
  ``(training, held-out)`` part of :attr:`TrialTask.parts` (the training and validation splits,
  or ``--cv K`` query folds of the training split) with early stopping on the held-out part,
  predicts the held-out part at the best iteration and scores it with the reference evaluator
  (:func:`bench.metrics.evaluate`) under the run's profile at the selection metric: the trial's
  value is the mean over the parts. The test split is not among the inputs: a
  :class:`TrialTask` holds no test data (``tests/test_benchmark_tune_engine.py`` hands the
  loader a test split that raises on any access).
- **Pruning**: the library's own validation value of the selection metric at each boosting
  round is reported to the trial (``trial.report(value, step)``, the step the 1-based round, plus
  ``(fold - 1) x n_trees`` under ``--cv``) through the runners' ``on_iteration`` hook
  (:data:`bench.runners.iteration.IterationHook`); when the pruner says so,
  ``optuna.TrialPruned`` raised by the hook ends the fit and leaves it unchanged.
- **The budget** (:class:`Budget`) is the same for every model: a number of trials, or CPU
  seconds (``time.process_time`` over the trial: every thread of this process). A trial is
  counted when it finished (complete, pruned or failed); a trial killed while running
  (``kill -9``) is marked failed and ``interrupted`` on ``--resume`` and not counted.
- **Reproducible resume**: before each trial the sampler is made anew with a seed drawn from
  ``(seed, number of counted trials)`` (:func:`sampler_seed`), so its state is a function of the
  study's history alone; with trials run one at a time a resumed study samples what the
  uninterrupted one would have (TPE and random sampling see only finished trials). The grid
  sampler keeps the run's seed (:func:`trial_sampler`: it deals its shuffled points by trial
  number). Trials side by side (``--engine dask``): :mod:`bench.benchmark.tune_parallel`.
- **Storage**: an Optuna RDB URL; a SQLite file is checked first and opened with a lock timeout
  (:func:`open_storage`, :func:`check_sqlite_url`), so that several processes may write it.
"""

from __future__ import annotations

import math
import os
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench.benchmark.search_space import overrides
from bench.data.compressed import HEAD, signature_of
from bench.data.folder_names import windows_path
from bench.data.letor import LetorData
from bench.errors import (
    ConfigError,
    LtrbenchError,
    choice_hint,
    home_expanded,
    spelled_choice,
)
from bench.metrics.profile import Profile
from bench.runners.gbdt import library_module
from bench.runners.iteration import IterationHook
from bench.runners.params import Params, check_for_library, check_rows
from bench.runners.registry import ModelSpec
from bench.runners.result import Selection
from bench.runners.search_dimension import Dimension

#: ``--sampler`` choices (Optuna's TPE, random and grid samplers).
SAMPLERS = ("tpe", "random", "grid")
#: ``--pruner`` choices: none, Optuna's MedianPruner, its SuccessiveHalvingPruner.
PRUNERS = ("none", "median", "halving")
#: Consecutive failed trials after which a model's study stops with the last error.
MAX_FAILURES_IN_A_ROW = 3


@dataclass(frozen=True)
class Budget:
    """The budget of every model's study: ``kind`` ``trials`` (a count) or ``cpu_s`` (CPU
    seconds of this process over the model's trials)."""

    kind: str
    amount: float

    def __post_init__(self) -> None:
        if self.kind not in ("trials", "cpu_s"):
            raise ConfigError(f"budget kind {self.kind!r}; valid: trials, cpu_s")
        if not (math.isfinite(self.amount) and self.amount > 0):
            option = "--budget-trials" if self.kind == "trials" else "--budget-cpu-s"
            raise ConfigError(f"{option}: expected a finite number > 0; got {self.amount!r}")

    def spent(self, n_trials: int, cpu_s: float) -> bool:
        """Whether a study with ``n_trials`` counted trials and ``cpu_s`` CPU seconds is done."""
        return n_trials >= self.amount if self.kind == "trials" else cpu_s >= self.amount

    def as_dict(self) -> dict[str, Any]:
        """``{"kind": ..., "amount": ...}`` (``summary.json``)."""
        return {"kind": self.kind, "amount": int(self.amount) if self.kind == "trials" else self.amount}


@dataclass(frozen=True)
class StudyOptions:
    """How every model's study searches: sampler, pruner, seed, budget."""

    sampler: str = "tpe"
    pruner: str = "median"
    seed: int = 0
    budget: Budget = Budget("trials", 20)

    def __post_init__(self) -> None:  # 'TPE' is tpe, said once: the one rule of a choice
        for key, valid in (("sampler", SAMPLERS), ("pruner", PRUNERS)):
            value = spelled_choice(getattr(self, key), valid, f"--{key}")
            if value not in valid:
                raise ConfigError(f"--{key} {value!r}; {choice_hint(value, valid)}"
                                  f"valid: {', '.join(valid)}")
            object.__setattr__(self, key, value)


@dataclass(frozen=True)
class TrialTask:
    """What one model's trials need, resolved: the model, its space, the parameters the sampled
    values go over, the run's profile and selection, and the ``(training, held-out)`` parts
    (never the test split)."""

    spec: ModelSpec
    space: tuple[Dimension, ...]
    base: Params
    profile: Profile
    selection: Selection
    eval_at: tuple[int, ...]
    parts: tuple[tuple[LetorData, LetorData], ...]


def sampler_seed(seed: int, n_done: int) -> int:
    """The sampler's seed before the trial that follows ``n_done`` counted trials. The model is
    not part of it: trial ``n`` of every model draws from the same stream (common random
    numbers), so the libraries' random start-up trials set their shared parameters alike."""
    return int(np.random.SeedSequence([seed, n_done]).generate_state(1)[0])


def trial_sampler(options: StudyOptions, space: Sequence[Dimension], n_done: int) -> Any:
    """The sampler of the trial after ``n_done`` counted ones: seeded anew from ``(seed,
    n_done)`` (:func:`sampler_seed`), except the grid sampler, always seeded with ``seed``: it
    deals its shuffled grid by trial number (Optuna's ``GridSampler`` shuffles the points with
    its seed and gives trial ``n`` point ``n``), so a seed per trial would deal one point to
    several trials and skip others. Its state is the study's trials, so a resume deals alike."""
    seed = options.seed if options.sampler == "grid" else sampler_seed(options.seed, n_done)
    return make_sampler(options.sampler, seed, space)


def make_sampler(name: str, seed: int, space: Sequence[Dimension]) -> Any:
    """Optuna's sampler ``name`` seeded with ``seed``; ``grid`` needs a space of choices only."""
    import optuna

    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed)
    if name == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    ranged = [d.name for d in space if d.kind != "categorical"]
    if ranged:
        raise ConfigError(f"--sampler grid needs a grid of values (--grid \"name=v1,v2;...\"); "
                          f"the space has ranges: {', '.join(ranged)}")
    return optuna.samplers.GridSampler({d.name: list(d.choices) for d in space}, seed=seed)


def make_pruner(name: str) -> Any:
    """Optuna's pruner ``name`` (:data:`PRUNERS`): the median rule after 5 trials and 10
    rounds, or successive halving with its defaults."""
    import optuna

    if name == "median":
        return optuna.pruners.MedianPruner(n_startup_trials=5, n_warmup_steps=10)
    if name == "halving":
        return optuna.pruners.SuccessiveHalvingPruner()
    return optuna.pruners.NopPruner()


def grid_size(space: Sequence[Dimension]) -> int | None:
    """How many points a grid of ``space`` has (``None`` unless every dimension is a choice)."""
    if any(d.kind != "categorical" for d in space):
        return None
    return math.prod(len(d.choices) for d in space)


#: Seconds a SQLite writer waits for another one's lock (the trials of ``--engine dask`` write
#: their intermediate values while this process writes the finished ones).
SQLITE_TIMEOUT_S = 120.0


def open_storage(storage_url: str) -> Any:
    """Optuna's storage of ``storage_url`` (an SQLAlchemy database URL), or a one-line error.
    A SQLite file is checked first (:func:`check_sqlite_url`) and opened with a lock timeout of
    :data:`SQLITE_TIMEOUT_S`, so that several processes may write it at once (SQLite serialises
    the writers; Optuna's ``RDBStorage`` keeps each write one short transaction)."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.ERROR)  # the tune's own lines say what happens
    kwargs: dict[str, Any] = {}
    if storage_url.split(":", 1)[0].split("+", 1)[0].lower() == "sqlite":
        check_sqlite_url(storage_url)
        kwargs["engine_kwargs"] = {"connect_args": {"timeout": SQLITE_TIMEOUT_S}}
    try:
        return optuna.storages.RDBStorage(storage_url, **kwargs)
    except Exception as exc:  # SQLAlchemy's and Optuna's errors, said in one line
        raise ConfigError(f"--storage {storage_url!r}: Optuna cannot open it: "
                          f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None


def sqlite_home(storage_url: str) -> str:
    """``storage_url`` with the leading ``~`` of a ``sqlite:///~/study.db`` path read as the home
    folder, as :func:`check_sqlite_url` reads it and as a shell reads ``--out ~/x``: SQLAlchemy
    opens ``~/study.db`` from the working folder (a folder named ``~``), so the file checked
    against the inputs and the file Optuna opened were two. Other URLs are returned as given."""
    head, sep, path = storage_url.partition(":///")
    if not sep or head.split("+", 1)[0].lower() != "sqlite" or not path.startswith("~"):
        return storage_url
    return f"{head}:///{home_expanded(path, f'--storage {storage_url!r}')}"


#: The first bytes of every SQLite 3 database (https://www.sqlite.org/fileformat.html, 1.3.1).
SQLITE_HEADER = b"SQLite format 3\x00"


def check_sqlite_url(storage_url: str) -> Path:
    """The file of a ``sqlite:///PATH`` URL, refused in one line unless tune can keep its study
    there: an in-memory database (lost when tune ends, so never resumable), a folder that does
    not exist or cannot be written, a path that is a folder or a device, or a file that is not a
    SQLite database (SQLite would say "file is not a database" only at the first query)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    where = f"--storage {storage_url!r}"
    try:
        url = make_url(storage_url)
    except (ArgumentError, ValueError) as exc:
        raise ConfigError(f"{where}: not a database URL ({exc})") from None
    database = url.database
    if url.query:  # SQLAlchemy ignores them with a warning (mode=ro: a tune writes all the same)
        raise ConfigError(f"{where}: query arguments ({', '.join(sorted(url.query))}) are "
                          "refused: tune opens the file itself, to read and write (lock timeout "
                          f"{SQLITE_TIMEOUT_S:g} s); give sqlite:///PATH")
    if not database or database == ":memory:" or database.startswith("file::memory:"):
        raise ConfigError(f"{where}: an in-memory database is lost when tune ends (no --resume, "
                          "no report); give a file: sqlite:///PATH/study.db")
    path = Path(database).expanduser()
    if path.is_symlink() and not path.exists():  # SQLite would make the study at its target
        raise ConfigError(f"{where}: {path} is a symbolic link to {os.readlink(path)!r}, which "
                          "does not resolve (a missing target or a link loop); SQLite would "
                          "create the study where it points: give the database file itself")
    if windows_path(database) and not path.exists():  # 'C:\\studies\\s.db': one name, here
        raise ConfigError(f"{where}: '{database}' is a Windows path (a drive letter, or a "
                          "backslash: part of a name here, not a folder separator); give the "
                          "file's path on this machine, folders separated by '/'")
    if path.exists() and not path.is_file():
        kind = "a folder" if path.is_dir() else "not a regular file"
        raise ConfigError(f"{where}: {path} is {kind}; expected a SQLite database file")
    folder = path.parent
    if not folder.is_dir():
        raise ConfigError(f"{where}: no folder {folder} for the database file")
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise ConfigError(f"{where}: {path if path.exists() else folder} is not writable")
    if path.exists() and path.stat().st_size:
        with path.open("rb") as fh:
            head = fh.read(HEAD)
        if not head.startswith(SQLITE_HEADER):
            known = signature_of(head)  # a study.db.gz renamed: named as every reader names it
            said = f"it is {known[0]}" if known else f"its first bytes are {head[:16]!r}"
            raise ConfigError(f"{where}: {path} is not a SQLite database ({said}); give a new "
                              "file or an Optuna study database")
        tables = _sqlite_tables(path, where)
        if tables and not {"studies", "version_info"} <= tables:
            shown = ", ".join(sorted(tables)[:5])
            raise ConfigError(f"{where}: {path} is not an Optuna storage (its tables: {shown}); "
                              "Optuna would add its own tables to it: give a new file")
    return path


def _sqlite_tables(path: Path, where: str) -> set[str]:
    """The table names of the SQLite database ``path``, read without writing to it, unless a
    killed writer left a hot journal: then SQLite must roll it back before anything can be
    read ("attempt to write a readonly database" in read-only mode), as the next writer would,
    and the names are read through an ordinary connection (found: a tune killed by ``kill -9``
    could not be resumed)."""
    import sqlite3
    from urllib.parse import quote

    query = "select name from sqlite_master where type = 'table'"
    for uri in (f"file:{quote(str(path.resolve()))}?mode=ro", f"file:{quote(str(path.resolve()))}"):
        try:  # a lock waited for as long as Optuna's own connections wait
            con = sqlite3.connect(uri, uri=True, timeout=SQLITE_TIMEOUT_S)
            try:
                return {str(r[0]) for r in con.execute(query)}
            finally:
                con.close()
        except sqlite3.OperationalError as exc:
            if "readonly" in str(exc) and uri.endswith("?mode=ro"):
                continue
            if "locked" in str(exc):
                raise ConfigError(f"{where}: {path} is locked by another process (a tune still "
                                  f"running on it?) after {SQLITE_TIMEOUT_S:g} s of waiting; "
                                  "let it finish or stop it, then run again") from None
            raise ConfigError(f"{where}: {path} cannot be read as a SQLite database ({exc})") \
                from None
        except sqlite3.Error as exc:
            raise ConfigError(f"{where}: {path} cannot be read as a SQLite database ({exc})") \
                from None
    raise AssertionError("unreachable: the ordinary connection returns or raises")


def open_study(storage_url: str, study_name: str, pruner: str, *, resume: bool) -> tuple[Any, Any]:
    """``(study, storage)``: the study ``study_name`` in the Optuna storage ``storage_url``,
    maximising. A new tune refuses a study that already exists (``--resume`` continues it); a
    resumed one marks the trials a killed process left running as failed and ``interrupted``
    (so no other process may be running the same study when it is resumed)."""
    import optuna

    storage = open_storage(storage_url)
    names = set(optuna.get_all_study_names(storage))  # not summaries: they sort trial values
    if study_name in names and not resume:
        raise ConfigError(f"study {study_name!r} already exists in {storage_url}; continue it with "
                          "--resume, or tune into another --out / --storage")
    study = optuna.create_study(study_name=study_name, storage=storage, direction="maximize",
                                pruner=make_pruner(pruner), load_if_exists=True)
    for t in study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,)):
        if t.value is None or not math.isfinite(t.value):  # a database changed outside Optuna
            raise ConfigError(f"--storage {storage_url!r}: trial {t.number} of study "
                              f"{study_name!r} is COMPLETE without a finite value ({t.value!r}); "
                              "the database was changed outside Optuna: start a new tune")
    for t in study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.RUNNING,)):
        storage.set_trial_user_attr(t._trial_id, "interrupted", True)
        storage.set_trial_state_values(t._trial_id, optuna.trial.TrialState.FAIL)
    return study, storage


def counted(study: Any) -> list[Any]:
    """The study's finished trials the budget counts (not those a kill interrupted), in order."""
    import optuna

    done = (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.PRUNED,
            optuna.trial.TrialState.FAIL)
    return [t for t in study.get_trials(deepcopy=False, states=done)
            if not t.user_attrs.get("interrupted")]


def run_study(study: Any, task: TrialTask, options: StudyOptions,
              on_trial: Callable[[Any], None] | None = None) -> None:
    """Run trials of ``task`` into ``study`` one at a time until the budget is spent (or a grid
    is exhausted); ``on_trial(study)`` after each (tables, progress)."""
    size = grid_size(task.space) if options.sampler == "grid" else None
    while True:
        done = counted(study)
        cpu = sum(float(t.user_attrs.get("cpu_s", 0.0)) for t in done)
        if options.budget.spent(len(done), cpu) or (size is not None and len(done) >= size):
            return
        _check_failures(task, done)
        study.sampler = trial_sampler(options, task.space, len(done))
        study.optimize(lambda trial: timed_trial(trial, task), n_trials=1, catch=(Exception,),
                       gc_after_trial=False)
        if on_trial is not None:
            on_trial(study)


def _check_failures(task: TrialTask, done: Sequence[Any]) -> None:
    """Stop a model whose last :data:`MAX_FAILURES_IN_A_ROW` trials all failed, with the error."""
    last = done[-MAX_FAILURES_IN_A_ROW:]
    if len(last) == MAX_FAILURES_IN_A_ROW and all(t.state.name == "FAIL" for t in last):
        raise ConfigError(f"{task.spec.name}: {MAX_FAILURES_IN_A_ROW} trials in a row failed; "
                          f"the last: {last[-1].user_attrs.get('error', 'no message')}")


def refuse_no_best(study: Any, model: str, where: Path) -> None:
    """A ConfigError when none of ``study``'s counted trials completed (every one failed or was
    pruned, fewer than :data:`MAX_FAILURES_IN_A_ROW` failures in a row): there is no best, and
    a ``best.toml`` of the defaults under "run them" would pass for a tuned model. Before, such
    a tune exited 0 and the trials' error was said nowhere. ``where``: the trials table."""
    done = counted(study)
    if any(t.state.name == "COMPLETE" for t in done):
        return
    failed = [t for t in done if t.state.name == "FAIL"]
    pruned = len(done) - len(failed)
    last = (f"; the last error: {failed[-1].user_attrs.get('error', 'no message')}"
            if failed else "; every one was pruned (--pruner none keeps them)")
    raise ConfigError(f"{model}: no complete trial in its {len(done)} ({len(failed)} failed, "
                      f"{pruned} pruned){last}; there is no best to write (no best.toml): "
                      f"the trials are in {where}")


def timed_trial(trial: Any, task: TrialTask) -> float:
    """:func:`run_trial` with its CPU and wall seconds (and an error's message) recorded as the
    trial's user attributes ``cpu_s``, ``wall_s`` (``error``)."""
    import optuna

    cpu0, wall0 = time.process_time(), time.perf_counter()
    try:
        return run_trial(trial, task)
    except optuna.TrialPruned:
        raise
    except Exception as exc:
        trial.set_user_attr("error", f"{type(exc).__name__}: {exc}".splitlines()[0][:500])
        raise
    finally:
        trial.set_user_attr("cpu_s", time.process_time() - cpu0)
        trial.set_user_attr("wall_s", time.perf_counter() - wall0)


def warm_up(tasks: Sequence[TrialTask]) -> None:
    """Pay, before any trial's clock starts, what only the first trial of a process would pay:
    each tuned library's import and the reference evaluator's first call (numba loading or
    compiling its kernels). Before, the first model's first trial was charged for it (found:
    19 CPU s against 0.9 s of the same trial run second), so under ``--budget-cpu-s`` the
    first model of ``--models`` got a smaller budget than the others."""
    for task in tasks:
        library_module(task.spec.library)
        held = task.parts[0][1]
        with warnings.catch_warnings():  # constant scores: the warm-up's ties are nobody's
            warnings.simplefilter("ignore")
            reference_value(held, np.zeros(held.n_rows), task.selection.metric, task.profile)


def run_trial(trial: Any, task: TrialTask) -> float:
    """One trial: the sampled parameters trained on every part of ``task`` and scored by the
    reference evaluator on its held-out queries (see the module docstring); the mean."""
    params = sample_params(trial, task)
    return score_params(task, params, lambda offset: _reporter(trial, offset=offset),
                        trial.set_user_attr)


def sample_params(trial: Any, task: TrialTask) -> Params:
    """The trial's sampled values of ``task``'s space over its base parameters, checked against
    the library (a combination it refuses fails the trial, naming the values)."""
    sampled = {d.name: d.suggest(trial) for d in task.space}
    try:
        params = task.base.with_overrides(**overrides(sampled))
        check_for_library(params, task.spec.library, task.spec.objective)
    except ConfigError as exc:
        raise ConfigError(f"{task.spec.name} trial {trial.number} ({sampled}): {exc}") from None
    return params


def score_params(task: TrialTask, params: Params,
                 reporter: Callable[[int], IterationHook] | None,
                 record: Callable[[str, Any], None]) -> float:
    """``params`` trained on every part of ``task`` and scored (the mean over the parts);
    ``reporter(offset)`` is the pruning hook of the part starting at step ``offset``, ``record``
    stores the trial's ``best_iteration`` (and ``fold_values`` under ``--cv``)."""
    values, iterations = [], []
    for i, (train, held) in enumerate(task.parts):
        check_rows(params, task.spec.library, train.n_rows)
        hook = None if reporter is None else reporter(i * params.n_trees)
        value, best = fit_and_score(task, params, train, held, hook)
        values.append(value)
        iterations.append(best)
    record("best_iteration", round(float(np.mean(iterations))))
    if len(values) > 1:
        record("fold_values", values)
    return float(np.mean(values))


def _reporter(trial: Any, *, offset: int) -> IterationHook:
    """The ``on_iteration`` hook of one fit: report, and raise ``TrialPruned`` when told to."""
    import optuna

    def hook(iteration: int, value: float) -> None:
        trial.report(float(value), offset + int(iteration))
        if trial.should_prune():
            raise optuna.TrialPruned(f"pruned at round {iteration} ({value:.6f})")

    return hook


def fit_and_score(task: TrialTask, params: Params, train: LetorData, held: LetorData,
                  hook: IterationHook | None = None) -> tuple[float, int]:
    """``(reference value, best iteration)`` of ``params`` trained on ``train`` with early
    stopping on ``held``: the selection metric under the task's profile of the held-out scores
    at the best iteration."""
    module = library_module(task.spec.library)
    booster, lib_params, res = module.fit(
        train, held, params, objective=task.spec.objective, eval_at=task.eval_at,
        selection=task.selection, log_train=False, on_iteration=hook)
    best = int(res.best_iteration or 0)
    scores = np.asarray(module.predict(booster, held, best, lib_params), dtype=np.float64)
    return reference_value(held, scores, task.selection.metric, task.profile), best


def reference_value(data: LetorData, scores: np.ndarray, metric: str, profile: Profile) -> float:
    """The reference evaluator's ``metric`` of ``scores`` on ``data`` under ``profile``."""
    from bench.metrics import evaluate

    try:
        result = evaluate(data.y, scores, qid=data.qid, metrics=(metric,), profile=profile)
    except LtrbenchError as exc:
        raise ConfigError(f"scoring the held-out queries: {exc}") from None
    return float(result.metrics[metric])
