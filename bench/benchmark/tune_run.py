"""``ltrbench tune`` as one call: the request resolved once into a :class:`TunePlan`, then run.

The command (:mod:`bench.commands.tune`) parses its options into a :class:`TuneRequest` and calls
:func:`tune_command`. :func:`plan_tune` checks and resolves everything before any data are read:
the output folder (:func:`~bench.benchmark.tune.check_tune_out`), the budget, sampler, pruner,
seed and folds, the run config (validated once, by ``make_config``; its models, each looked up
once, are the tuned ones and must all be GBDT models), the search space of each model
(:mod:`bench.benchmark.search_space`: the declared one, ``--space FILE`` or ``--grid``), each
space's values against the model's library, and the device. :func:`run_tune` loads the splits,
runs one Optuna study per model with the same budget (:mod:`bench.benchmark.study`) and writes
the tune folder as it goes (:mod:`bench.benchmark.tune_out`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bench.benchmark.config import RunConfig
from bench.benchmark.progress import Step
from bench.benchmark.search_space import (
    default_space,
    grid_space,
    load_space_file,
    overrides,
    space_table,
    within_quick,
)
from bench.benchmark.study import (
    Budget,
    StudyOptions,
    TrialTask,
    grid_size,
    open_storage,
    open_study,
    refuse_no_best,
    run_study,
    sqlite_home,
    warm_up,
)
from bench.benchmark.tune import (
    check_tune_out,
    check_tune_storage,
    parse_space,
    query_folds,
    tuning_data,
)
from bench.benchmark.tune_checks import (
    bound_notes,
    check_space_for,
    grid_budget_note,
    grid_size_or_refuse,
    refuse_fixed,
    say_seed_precedence,
)
from bench.benchmark.tune_out import (
    check_resume,
    check_resumed_study,
    model_summary,
    recorded_trials,
    reserve_folder,
    resumable,
    trials_frame,
    write_plan,
    write_results,
    write_trials,
)
from bench.benchmark.tune_parallel import NOT_DETERMINISTIC, run_parallel
from bench.data.letor import LetorData, LetorSplits
from bench.engines.table import TrialPool
from bench.errors import ConfigError
from bench.metrics.profile import Profile
from bench.runners.params import Params
from bench.runners.registry import ModelNames, ModelSpec
from bench.runners.result import Selection
from bench.runners.search_dimension import Dimension
from bench.runs.layout import LOCAL_RESULTS
from bench.runs.lock import writer_lock
from bench.runs.manifest import parts_fingerprint
from bench.runs.naming import dataset_slug
from bench.runs.tune_layout import BEST, COMPLETE, STUDY_DB, TRIALS_CSV

#: The model tuned when neither ``--models`` nor a config names one.
DEFAULT_TUNE_MODEL = "lightgbm-lambdarank"
#: The trial budget when none is given (and no ``--grid`` sets it).
DEFAULT_TRIALS = 20


@dataclass(frozen=True)
class TuneRequest:
    """What the command line asks, as written (numbers still text)."""

    grid: str | None = None
    #: ``--model`` (one model; its name is in the config's models)
    model: str | None = None
    space_file: str | None = None
    budget_trials: str | None = None
    budget_cpu_s: float | None = None
    sampler: str | None = None
    pruner: str = "median"
    cv: str | None = None
    seed: str = "0"
    use: str = "train"
    storage: str | None = None
    #: ``None``: a new tune; ``""``: the newest unfinished one; else its folder
    resume: str | None = None
    out: str = LOCAL_RESULTS
    #: the ``(option, path)`` inputs the output folder must stay clear of
    inputs: list[tuple[str, str | None]] = field(default_factory=list)
    #: ``--threads`` as written (``None``: not given; a parallel tune then pins 1 per trial)
    threads: str | None = None


@dataclass(frozen=True)
class TunePlan:
    """A tune resolved once: every value typed and checked before any data are read."""

    config: RunConfig
    specs: tuple[ModelSpec, ...]
    profile: Profile
    selection: Selection
    spaces: dict[str, tuple[Dimension, ...]]
    bases: dict[str, Params]
    options: StudyOptions
    cv: int | None
    use: str
    storage: str | None
    resume: str | None
    out: Path
    #: where trials run (a row of :data:`bench.engines.table.ENGINES`) and how many at once
    engine: str = "local"
    workers: int = 1


@dataclass(frozen=True)
class TuneOutcome:
    """A finished tune: its plan, its summary (``summary.json``) and the folder written."""

    plan: TunePlan
    summary: dict[str, Any]
    folder: Path

    def as_dict(self) -> dict[str, Any]:
        """JSON shape of ``ltrbench tune --format json`` (the summary)."""
        return self.summary


def tuned_specs(config: RunConfig) -> tuple[ModelSpec, ...]:
    """The config's models (resolved once, when it was made), each a GBDT model."""
    specs = config.models.specs if isinstance(config.models, ModelNames) else \
        tuple(config.model_spec(m) for m in config.models)
    other = [s.name for s in specs if not s.is_gbdt]
    if other:
        raise ConfigError(f"--models: only GBDT models (LightGBM, XGBoost, CatBoost) are tuned; "
                          f"{', '.join(other)} ha{'s' if len(other) == 1 else 've'} no "
                          "parameters to tune")
    return specs


def study_options(request: TuneRequest, grid: int | None) -> StudyOptions:
    """Sampler (``grid`` when ``--grid`` is given and no sampler is named), pruner, seed and the
    budget: ``--budget-trials`` or ``--budget-cpu-s``, not both; else the grid's size, else
    :data:`DEFAULT_TRIALS` trials."""
    from bench.benchmark.config_schema import SEED, cli_int
    from bench.data.toml import Spec

    seed = cli_int(request.seed, SEED, "--seed")
    trials = cli_int(request.budget_trials, Spec("--budget-trials", int, 1, 1_000_000),
                     "--budget-trials")
    if trials is not None and request.budget_cpu_s is not None:
        raise ConfigError("--budget-trials and --budget-cpu-s: give one budget (every model "
                          "gets the same)")
    if request.budget_cpu_s is not None:
        budget = Budget("cpu_s", request.budget_cpu_s)
    else:
        budget = Budget("trials", trials or grid or DEFAULT_TRIALS)
    sampler = request.sampler or ("grid" if request.grid else "tpe")
    return StudyOptions(sampler=sampler, pruner=request.pruner, seed=seed or 0, budget=budget)


def model_spaces(request: TuneRequest, specs: tuple[ModelSpec, ...]) -> dict[str, tuple[Dimension, ...]]:
    """Each model's space: ``--space FILE``'s table for it, else its library's declared one
    (``--grid``, the same grid for every model, is read before)."""
    given = load_space_file(request.space_file, {s.name: s.library for s in specs}) \
        if request.space_file else {}
    return {s.name: given.get(s.name) or default_space(s.library, s.objective) for s in specs}


def plan_tune(request: TuneRequest, make_config: Callable[[], RunConfig]) -> TunePlan:
    """Resolve ``request`` once (see the module docstring); ``make_config`` builds the run config
    (from ``--config`` and the options, the tuned models its ``models``)."""
    from bench.benchmark.config_schema import cli_int
    from bench.data.toml import Spec
    from bench.runners.device import check_device

    out = check_tune_out(request.out, request.inputs)  # never into the dataset folder, as run
    cv = cli_int(request.cv, Spec("--cv", int, 2, 10_000), "--cv")
    if request.use != "train" and cv is None:
        raise ConfigError(f"--use {request.use}: the folds of --cv K are made from it; without "
                          "--cv trials are scored on the validation split")
    if request.grid is not None and request.space_file is not None:
        raise ConfigError("--grid and --space: give one search space")
    grid = grid_space(parse_space(request.grid)) if request.grid is not None else None
    options = study_options(request, None if grid is None else grid_size(grid))
    made = make_config()  # validated once
    say_seed_precedence(made, options.seed)
    if options.sampler == "grid" and grid is not None:
        grid_budget_note(options.budget, grid_size(grid), request.budget_trials)
    raw_threads = made.params.n_threads  # before 0 (every core) is resolved to a count
    config = made.resolved()
    specs = tuned_specs(config)
    if request.model is not None and len(specs) != 1:
        raise ConfigError(f"--model {request.model}: tune takes one model with --model; "
                          f"{request.model!r} names {len(specs)}: {', '.join(config.models)} "
                          "(give several with --models)")
    spaces = {s.name: grid for s in specs} if grid is not None else model_spaces(request, specs)
    source = "--grid" if grid is not None else \
        f"--space {request.space_file}" if request.space_file else "the declared space"
    refuse_fixed(made, spaces, source)
    bases = {s.name: config.params_for(s.name, options.seed) for s in specs}
    for s in specs:
        check_space_for(s, bases[s.name], spaces[s.name])
        if options.sampler == "grid":
            grid_size_or_refuse(spaces[s.name], s.name)
    if config.quick:  # the caps a run of the tuned config trains under
        spaces = within_quick(spaces, {s.name: s.library for s in specs}, source)
    check_device(config.device, {s.library for s in specs})
    workers, threads = parallel_trials(config, request.threads, raw_threads)
    if threads is not None:  # one thread count for every library's trials
        bases = {m: replace(p, n_threads=threads) for m, p in bases.items()}
    storage = None if request.storage is None else sqlite_home(request.storage)  # ~ read once
    if storage is not None:  # never over an input, nor into the dataset folder
        check_tune_storage(storage, [*request.inputs, ("--space", request.space_file)])
        open_storage(storage)  # a URL Optuna cannot open is said before any data are read
    return TunePlan(config=config, specs=specs, profile=config.profile_value,
                    selection=Selection(config.selection_k), spaces=spaces, bases=bases,
                    options=options, cv=cv, use=request.use, storage=storage,
                    resume=request.resume, out=out, engine=config.engine, workers=workers)


def parallel_trials(config: RunConfig, threads_option: str | None,
                    raw_threads: int) -> tuple[int, int | None]:
    """``(trials at once, threads per trial)`` of the config's engine: ``(1, None)`` for one
    trial at a time in this process (the parameters' own thread count), else the engine's
    local cluster of ``workers`` processes with every trial pinned to ``--threads`` (1 when not
    given; 0, every core, would let the trials fight over the cores)."""
    from bench.data.dask_cluster import check_local_cluster, require_dask
    from bench.engines import get_engine

    engine = get_engine(config.engine)
    if engine.trials is None:
        return 1, None
    require_dask()  # its install hint now, not after the data are loaded
    if config.scheduler is not None:
        raise ConfigError(f"scheduler {config.scheduler!r}: tune --engine {engine.name} runs its "
                          "trials on a local cluster of this machine (the study lives in the "
                          "tune folder); leave the scheduler out")
    check_local_cluster(config.workers, 1)
    if threads_option is None:
        return config.workers, 1
    if raw_threads == 0:
        raise ConfigError(f"--threads 0 (every core) with --engine {engine.name}: each of the "
                          f"{config.workers} workers' trials would use every core; give the "
                          "threads of one trial, --threads N >= 1 (default 1)")
    return config.workers, raw_threads


def _portable(config: RunConfig) -> RunConfig:
    """``config`` with its dataset path (and data folder) absolute, for :func:`_best_text`."""
    from bench.datasets.resolve import resolve_spec

    spec = resolve_spec(config.dataset)
    dataset = config.dataset if spec.path is None else \
        str(spec.path.resolve()) + (f":{spec.option}" if spec.option else "")
    data_dir = None if config.data_dir is None else os.path.abspath(config.data_dir)
    return config._unchecked(dataset=dataset, data_dir=data_dir)


def _best_text(config: RunConfig, path: Path, header: str) -> str:
    """The TOML of ``config`` (made :func:`_portable`) written at ``path``: its paths relative
    to ``path``'s folder and ``paths_relative_to = "config file"``, so the file runs from any
    working folder and keeps working when the tune folder and the data move together (a
    catalogue name stays a name)."""
    from bench.datasets.recorded import RELATIVE_TO, config_file_path

    data_dir = None if config.data_dir is None else config_file_path(path, config.data_dir)
    text = config._unchecked(dataset=config_file_path(path, config.dataset),
                             data_dir=data_dir).to_toml(header=header)
    lines = text.splitlines(keepends=True)
    top = next((i for i, line in enumerate(lines) if not line.startswith("#")), len(lines))
    return "".join([*lines[:top], f'{RELATIVE_TO} = "config file"\n', *lines[top:]])


def plan_record(plan: TunePlan, dataset: str) -> dict[str, Any]:
    """``plan.json``: what the tune asked, in plain values (``--resume`` compares them)."""
    return {"dataset": dataset, "models": [s.name for s in plan.specs],
            "budget": plan.options.budget.as_dict(), "sampler": plan.options.sampler,
            "pruner": plan.options.pruner, "seed": plan.options.seed, "cv": plan.cv,
            "use": plan.use, "metric": plan.selection.metric, "profile": plan.config.profile,
            "engine": plan.engine, "workers": plan.workers,
            "space": space_table(plan.spaces), "storage": plan.storage,
            "base_params": {m: p.to_dict() for m, p in plan.bases.items()},
            **_config_file(plan.config)}


def _config_file(config: RunConfig) -> dict[str, Any]:
    """``{"config_file": {"path", "options_over_file"}}``: the ``--config`` file and what the
    command line changed over it (the option wins, as in a run's manifest), else nothing."""
    return {} if config.over_file is None else {"config_file": config.over_file}


def parts_of(plan: TunePlan, train: LetorData, vali: LetorData) -> tuple[tuple[LetorData, LetorData], ...]:
    """The ``(training, held-out)`` parts trials are scored on: the validation split, or the
    ``--cv`` query folds of the training split (with ``--use train+vali`` both)."""
    if plan.cv is None:
        return ((train, vali),)
    data = tuning_data(train, vali, plan.use)
    if data.n_queries < plan.cv:
        raise ConfigError(f"--cv {plan.cv}: {plan.cv} query folds need at least {plan.cv} "
                          f"queries; the tuning data ({plan.use}) have {data.n_queries}")
    return tuple((data.take_queries(tr), data.take_queries(va))
                 for tr, va in query_folds(data.n_queries, plan.cv, plan.options.seed))


def run_tune(plan: TunePlan, *, show_progress: bool) -> TuneOutcome:
    """Load the splits, then :func:`tune_loaded`."""
    from bench.benchmark.pipeline import load_splits
    from bench.benchmark.progress import progress_steps

    config = plan.config
    with progress_steps(show_progress) as step:
        splits = load_splits(config.dataset, data_dir=config.data_dir, cache=config.cache,
                             progress=lambda text: step(f"loading {text}", 0, 0))
        if config.name:  # the display name (--name, name =), as ltrbench run names the data
            splits = dataclasses.replace(splits, name=config.name)
        return tune_loaded(plan, splits, step)


def tune_loaded(plan: TunePlan, splits: LetorSplits, step: Step | None = None, *,
                pool: TrialPool | None = None) -> TuneOutcome:
    """Tune every model of ``plan`` on ``splits`` (its training and validation parts only: the
    test split is never read), writing the folder as it goes (:mod:`bench.benchmark.tune_out`).
    Trials run one at a time in this process, or side by side on the trial pool of the plan's
    engine (:mod:`bench.benchmark.tune_parallel`; ``pool``: one already open)."""
    slug = dataset_slug(splits.name)
    record = {**plan_record(plan, splits.name),  # the data a resumed study must continue on
              "data": parts_fingerprint({"train": splits.train, "vali": splits.vali})}
    parts = parts_of(plan, splits.train, splits.vali)  # checked before any folder is made
    with _tune_folder(plan, slug, record) as (folder, recorded):
        return _tune_into(plan, splits, step, pool, folder, recorded, parts)


@contextlib.contextmanager
def _tune_folder(plan: TunePlan, slug: str,
                 record: dict[str, Any]) -> Iterator[tuple[Path, Any]]:
    """The tune's folder and the trials it holds (``None``: a new folder, its plan written),
    held with the writer lock (:func:`bench.runs.lock.writer_lock`) for as long as the tune
    writes it: two ``tune --resume`` of one study each ran the trials the budget still missed
    into one study and rewrote ``trials.csv`` from its own view; the second is now refused,
    naming the first (pid, host, since when)."""
    if plan.resume is None:
        stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        folder = reserve_folder(plan.out, f"{slug}-{stamp}")
        with writer_lock(folder, "tune"):
            write_plan(folder, record)
            yield folder, None
        return
    folder = resumable(plan.out, plan.resume or None, slug)
    with writer_lock(folder, "tune"):
        if (folder / COMPLETE).exists():  # finished by the writer that held it until now
            raise ConfigError(f"--resume {plan.resume or folder}: {folder} is complete; "
                              "nothing to resume")
        check_resume(folder, record)
        recorded = recorded_trials(folder)
        db = folder / STUDY_DB
        if plan.storage is None and (db.exists() or db.is_symlink()) and not db.is_file():
            raise ConfigError(f"--resume {folder}: {STUDY_DB} is "
                              f"{'a folder' if db.is_dir() else 'not a regular file'}; "
                              "expected the SQLite database of the tune's studies")
        if plan.storage is None and not db.is_file() and not recorded.empty:
            raise ConfigError(f"--resume {folder}: {STUDY_DB} is missing; the trials of "
                              f"{TRIALS_CSV} cannot be continued without it: start a new tune")
        yield folder, recorded


def _tune_into(plan: TunePlan, splits: LetorSplits, step: Step | None, pool: TrialPool | None,
               folder: Path, recorded: Any,
               parts: tuple[tuple[LetorData, LetorData], ...]) -> TuneOutcome:
    """:func:`tune_loaded` in its folder, held (:func:`_tune_folder`)."""
    storage = plan.storage or f"sqlite:///{folder.resolve() / STUDY_DB}"
    frames: dict[str, Any] = {}
    models: dict[str, Any] = {}
    tasks = {spec.name: TrialTask(spec=spec, space=plan.spaces[spec.name],
                                  base=plan.bases[spec.name], profile=plan.profile,
                                  selection=plan.selection, eval_at=plan.config.eval_at,
                                  parts=parts) for spec in plan.specs}
    with _trial_pool(plan, pool) as trials:
        if trials is None:  # one process's first-call costs charged to no model's trials
            warm_up(list(tasks.values()))
        for spec in plan.specs:
            task = tasks[spec.name]
            study, _ = open_study(storage, f"{splits.name}:{spec.name}", plan.options.pruner,
                                  resume=plan.resume is not None)
            if recorded is not None:
                check_resumed_study(folder, study, spec.name, recorded)

            def after(study: Any, spec: ModelSpec = spec) -> None:
                frames[spec.name] = trials_frame(study, spec.name, spec.library,
                                                 plan.selection.metric, plan.config.profile)
                write_trials(folder, list(frames.values()))
                if step is not None:
                    _progress(step, spec.name, frames[spec.name], plan.options.budget)

            after(study)
            if trials is None:
                run_study(study, task, plan.options, after)
            else:
                run_parallel(study, task, plan.options, trials, storage, after)
            refuse_no_best(study, spec.name, folder / TRIALS_CSV)
            entry = model_summary(study, frames[spec.name], _info(plan, spec, folder))
            entry["at_bounds"] = bound_notes(entry["best_params"], plan.spaces[spec.name])
            models[spec.name] = entry
    # The default storage is said as the file of this folder, not as an absolute URL: a
    # committed tune folder reads the same on another machine.
    summary = {"dataset": splits.name, "folder": str(folder), "storage": plan.storage or STUDY_DB,
               "metric": plan.selection.metric, "profile": plan.config.profile,
               "scored_on": "validation split" if plan.cv is None else
               f"{plan.cv} query folds of {plan.use}", **engine_summary(plan),
               **_config_file(plan.config), "models": models}
    _write_best(plan, folder, summary)
    _best_so_far_figure(folder)
    return TuneOutcome(plan=plan, summary=summary, folder=folder)


def _best_so_far_figure(folder: Path) -> None:
    """``best_so_far.png`` in the finished tune folder: every model's best validation score so
    far against trials and CPU seconds (:func:`bench.report.tuning_plots.plot_best_so_far`;
    ``report --tuned`` draws it again with the test values of the best trials)."""
    from bench.report.tuning import read_tune_dir
    from bench.report.tuning_plots import plot_best_so_far
    from bench.runs.tune_layout import BEST_SO_FAR

    plot_best_so_far(read_tune_dir(folder), folder / BEST_SO_FAR)


@contextlib.contextmanager
def _trial_pool(plan: TunePlan, given: TrialPool | None) -> Iterator[TrialPool | None]:
    """``given``, else the trial pool of the plan's engine (its record's ``trials``), else
    ``None``: trials one at a time in this process."""
    from bench.engines import ClusterOptions, get_engine

    engine = get_engine(plan.engine)
    if given is not None or engine.trials is None:
        yield given
        return
    with engine.open_trials(ClusterOptions(workers=plan.workers, threads=1)) as pool:
        yield pool


def engine_summary(plan: TunePlan) -> dict[str, Any]:
    """What ``summary.json`` says of where the trials ran: the engine, its workers, the threads
    of each trial and whether the tune is deterministic."""
    threads = {p.n_threads for p in plan.bases.values()}
    out: dict[str, Any] = {"engine": plan.engine, "workers": plan.workers,
                           "threads_per_trial": threads.pop() if len(threads) == 1 else
                           sorted(threads), "deterministic": plan.workers == 1}
    if plan.workers > 1:
        out["determinism"] = NOT_DETERMINISTIC
    return out


def _info(plan: TunePlan, spec: ModelSpec, folder: Path) -> dict[str, Any]:
    o = plan.options
    return {"model": spec.name, "library": spec.library, "metric": plan.selection.metric,
            "profile": plan.config.profile, "budget": o.budget.as_dict(), "sampler": o.sampler,
            "pruner": o.pruner, "seed": o.seed, "cv": plan.cv,
            "best_config": str(folder / "best" / f"{spec.name}.toml")}


def _progress(step: Step, model: str, frame: Any, budget: Budget) -> None:
    if frame.empty:
        step(f"{model}: starting", 0, int(budget.amount) if budget.kind == "trials" else 0)
        return
    last = frame.iloc[-1]
    shown = "" if last["value"] != last["value"] else f" {last['value']:.4f}"
    step(f"{model}: trial {last['trial']} {last['state'].lower()}{shown}, best "
         f"{last['best_so_far']:.4f}", len(frame),
         int(budget.amount) if budget.kind == "trials" else 0)


def _write_best(plan: TunePlan, folder: Path, summary: dict[str, Any]) -> None:
    """The best configs (one per model, and all models in ``best.toml``) and the summary."""
    config = _portable(plan.config)
    header = (f"ltrbench tune of {summary['dataset']}: best trial by {summary['metric']} under "
              f"profile {summary['profile']!r} (reference evaluator, {summary['scored_on']})")
    configs, best_all = {}, config
    for spec in plan.specs:
        entry = summary["models"][spec.name]
        params = overrides(entry["best_params"] or {})
        one = config.for_model(spec).with_model_params(spec, params)
        value = entry["best_value"]
        configs[spec.name] = _best_text(one, folder / "best" / f"{spec.name}.toml", f"{header}: "
                                        f"{spec.name} {'no complete trial' if value is None else f'{value:.6f}'}")
        best_all = best_all.with_model_params(spec, params)
    write_results(folder, summary, configs, _best_text(best_all, folder / BEST, header))


def tune_command(request: TuneRequest, make_config: Callable[[], RunConfig], *,
                 show_progress: bool) -> TuneOutcome:
    """``ltrbench tune``: :func:`plan_tune` then :func:`run_tune`."""
    return run_tune(plan_tune(request, make_config), show_progress=show_progress)
