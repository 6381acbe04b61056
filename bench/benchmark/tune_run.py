"""``ltrbench tune`` as one call: the request resolved once into a :class:`TunePlan`, then run.

The command (:mod:`bench.commands.tune`) parses its options into a :class:`TuneRequest` and calls
:func:`tune_command`. :func:`plan_tune` checks and resolves everything before any data are read,
in this order (so that errors come as they always did): the output folder
(:func:`~bench.benchmark.tune.check_tune_out`), the one model (its
:class:`~bench.runners.registry.ModelSpec`, looked up once), ``--random`` / ``--folds`` /
``--seed`` as integers, the run config (validated once, by ``make_config``, then narrowed to
the one model with :meth:`~bench.benchmark.config.RunConfig.for_model`; ``best.toml`` adds the
winning parameters with :meth:`~bench.benchmark.config.RunConfig.with_model_params`), the
search space, every candidate
(:func:`~bench.benchmark.tune.check_candidates`) and the device. The plan holds typed values
only (the ``ModelSpec``, the run's ``Profile``, the selection cutoff as a
:class:`~bench.runners.result.Selection`, the checked candidates); :func:`run_tune` loads the
splits, searches (:func:`~bench.benchmark.tune.search_candidates`) and writes the tune folder,
and nothing below it looks a name up again.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.benchmark.config import RunConfig
from bench.benchmark.tune import (
    TuneResult,
    candidates,
    check_candidates,
    check_tune_out,
    parse_space,
    search_candidates,
    write_tune_folder,
)
from bench.errors import ConfigError
from bench.metrics.profile import Profile
from bench.runners.params import Params
from bench.runners.registry import ModelSpec
from bench.runners.result import Selection
from bench.runs.layout import LOCAL_RESULTS
from bench.runs.naming import dataset_slug

#: The model tuned when ``--model`` is not given.
DEFAULT_TUNE_MODEL = "lightgbm-lambdarank"


@dataclass(frozen=True)
class TuneRequest:
    """What the command line asks, as written (``random``, ``folds``, ``seed`` still text)."""

    grid: str
    model: str | None = None
    #: ``--models`` (a run's option): refused, so that no other model is tuned
    models: str | None = None
    random: str | None = None
    folds: str = "3"
    seed: str = "0"
    use: str = "train"
    out: str = LOCAL_RESULTS
    #: the ``(option, path)`` inputs the output folder must stay clear of
    inputs: list[tuple[str, str | None]] = field(default_factory=list)


@dataclass(frozen=True)
class TunePlan:
    """A tune resolved once: every value typed and checked before any data are read."""

    config: RunConfig
    spec: ModelSpec
    #: the run's profile (``config.profile`` keeps the name as written, which the texts show)
    profile: Profile
    selection: Selection
    space: dict[str, list[Any]]
    cands: list[dict[str, Any]]
    base: Params
    search: str
    n_iter: int
    n_folds: int
    seed: int
    use: str
    out: Path


@dataclass(frozen=True)
class TuneOutcome:
    """A finished tune: its plan, its result, the dataset's name and the folder written."""

    plan: TunePlan
    result: TuneResult
    dataset: str
    folder: Path

    def as_dict(self) -> dict[str, Any]:
        """JSON shape of ``ltrbench tune --format json``."""
        return {**self.result.as_dict(), "run_profile": self.plan.config.profile,
                "dataset": self.dataset, "folder": str(self.folder),
                "best_config": str(self.folder / "best.toml")}


def one_model(model: str | None, models: str | None) -> ModelSpec:
    """The :class:`ModelSpec` of the model ``--model`` names (an alias such as ``lightgbm`` names
    its model); ``--models`` (a run's option) is refused rather than ignored, so that no other
    model is tuned."""
    from bench.runners.registry import GBDT_LIBRARIES, expand_models

    if models:
        hint = f": use --model {models}" if model is None else ""
        raise ConfigError(f"--models {models!r}: tune takes one model with --model (--models "
                          f"is for ltrbench run){hint}")
    model = model or DEFAULT_TUNE_MODEL
    named = expand_models((model,))  # looked up once: the spec comes with the name
    if len(named) != 1:
        raise ConfigError(f"tune takes one model; {model!r} names {len(named)}: "
                          f"{', '.join(named)}")
    spec = named.specs[0]
    if spec.library not in GBDT_LIBRARIES:
        raise ConfigError(f"--model {model}: only GBDT models (LightGBM, XGBoost, CatBoost) are "
                          "tuned; it has no parameters to tune")
    return spec


def search_options(request: TuneRequest) -> tuple[str, int, int, int]:
    """``(search, n_iter, n_folds, seed)``: ``--random``, ``--folds`` and ``--seed`` checked as
    integers in range (``--random 0`` is not the full grid)."""
    from bench.benchmark.config_schema import SEED, cli_int
    from bench.data.toml import Spec

    n_iter = cli_int(request.random, Spec("--random", int, 1, 1_000_000), "--random")
    n_folds = cli_int(request.folds, Spec("--folds", int, 2, 10_000), "--folds")
    seed = cli_int(request.seed, SEED, "--seed")
    if n_folds is None or seed is None:  # the options have defaults: only a direct caller
        raise ConfigError("--folds and --seed need a value")
    return ("grid" if n_iter is None else "random"), n_iter or 0, n_folds, seed


def plan_tune(request: TuneRequest, make_config: Callable[[], RunConfig]) -> TunePlan:
    """Resolve ``request`` once (see the module docstring); ``make_config`` builds the run config
    (from ``--config`` and the options), called after the model and search options are checked."""
    from bench.runners.device import check_device

    out = check_tune_out(request.out, request.inputs)  # never into the dataset folder, as run
    spec = one_model(request.model, request.models)
    search, n_iter, n_folds, seed = search_options(request)
    config = make_config().for_model(spec).resolved()  # validated once, by make_config
    space = parse_space(request.grid)
    base = config.params_for(spec.name, seed)
    cands = candidates(space, search=search, n_iter=n_iter, seed=seed)
    check_candidates(spec, cands, base)  # before any data are read
    check_device(config.device, {spec.library})
    return TunePlan(config=config, spec=spec, profile=config.profile_value,
                    selection=Selection(config.selection_k), space=space, cands=cands, base=base,
                    search=search, n_iter=n_iter, n_folds=n_folds, seed=seed, use=request.use,
                    out=out)


def _portable_dataset(text: str) -> str:
    """A dataset path as an absolute path (``best.toml`` read from another folder finds the same
    data; relative paths in a config are read from the current folder); a catalogue name as
    it is."""
    from bench.datasets.resolve import resolve_spec

    spec = resolve_spec(text)
    if spec.path is None:
        return text
    return str(spec.path.resolve()) + (f":{spec.option}" if spec.option else "")


def run_tune(plan: TunePlan, *, show_progress: bool) -> TuneOutcome:
    """Load the splits, search the plan's candidates, and write ``<out>/tune/<dataset>-<model>-
    <time>/`` (``folds.csv``, ``summary.csv``, ``best.toml``)."""
    from bench.benchmark.pipeline import load_splits
    from bench.benchmark.progress import progress_steps

    config, model = plan.config, plan.spec.name
    with progress_steps(show_progress) as step:
        splits = load_splits(config.dataset, data_dir=config.data_dir, cache=config.cache,
                             progress=lambda text: step(f"loading {text}", 0, 0))
        result = search_candidates(splits, plan.spec, plan.cands, base=plan.base,
                                   n_folds=plan.n_folds, seed=plan.seed, selection=plan.selection,
                                   eval_at=config.eval_at, use=plan.use, progress=step)
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    best = config.with_model_params(plan.spec, result.best_params)  # not validated again
    best = best._unchecked(dataset=_portable_dataset(config.dataset))  # same data, any folder
    folder = write_tune_folder(plan.out, f"{dataset_slug(splits.name)}-{model}-{stamp}", {
        "folds.csv": result.folds.to_csv(index=False),
        "summary.csv": result.summary.to_csv(index=False),
        "best.toml": best.to_toml(
            header=f"ltrbench tune: best of {len(result.summary)} candidates by "
            f"{result.selection(config.profile)} ({result.best_score:.6f})")})
    return TuneOutcome(plan=plan, result=result, dataset=splits.name, folder=folder)


def tune_command(request: TuneRequest, make_config: Callable[[], RunConfig], *,
                 show_progress: bool) -> TuneOutcome:
    """``ltrbench tune``: :func:`plan_tune` then :func:`run_tune`."""
    return run_tune(plan_tune(request, make_config), show_progress=show_progress)
