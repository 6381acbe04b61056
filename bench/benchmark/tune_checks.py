"""What ``ltrbench tune`` checks and says about a search space before any data are read
(:func:`bench.benchmark.tune_run.plan_tune` calls these): each space's values against the tuned
model's library and objective (:func:`check_space_for`), against what the config fixes for that
model (:func:`refuse_fixed`), the grid sampler's limits (:func:`grid_size_or_refuse`) and the
budget beside the grid (:func:`grid_budget_note`), and whose seed a trial uses
(:func:`say_seed_precedence`)."""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Mapping

from bench.benchmark.config import RunConfig
from bench.benchmark.search_space import overrides
from bench.benchmark.study import Budget, grid_size
from bench.errors import ConfigError
from bench.runners.param_ranges import param_spec
from bench.runners.params import Params, check_for_library
from bench.runners.raw_keys import refuse_ignored
from bench.runners.registry import ModelSpec
from bench.runners.search_dimension import Dimension

#: The largest grid whose every point is checked before any data are read.
MAX_CHECKED_POINTS = 10_000
#: The most grid points checked whole when the space holds raw library parameters (each is a
#: toy fit of the library); beyond, each raw value is probed on its own.
MAX_PROBED_POINTS = 64
#: The largest grid the grid sampler searches (Optuna's ``GridSampler`` lists every point).
MAX_GRID = 1_000_000


def check_space_for(spec: ModelSpec, base: Params, space: tuple[Dimension, ...]) -> None:
    """``space``'s values over ``base`` against what ``spec``'s library accepts, before any data
    are read: every point of a grid (up to :data:`MAX_CHECKED_POINTS`; beyond, and for ranges,
    each choice and both ends of each range one at a time)."""
    for dim in space:
        if "." in dim.name and not dim.name.startswith(f"{spec.library}."):
            raise ConfigError(f"{spec.name}: {dim.name} is not a {spec.library} parameter")
    try:  # a value the model does not read: every trial the same model
        refuse_ignored(spec.library, [d.name for d in space], "", spec.objective)
    except ConfigError as exc:
        raise ConfigError(f"search space of {spec.name}: {exc}") from None
    size = grid_size(space)
    # a raw <library>.<key> value is the library's to judge: each point with one trains a toy
    # tree (bench.runners.param_probe), so fewer whole points are tried
    limit = MAX_PROBED_POINTS if any("." in d.name for d in space) else MAX_CHECKED_POINTS
    if size is not None and size <= limit:
        names = [d.name for d in space]
        points = [dict(zip(names, p, strict=True))
                  for p in itertools.product(*(d.choices for d in space))]
    else:
        points = [{d.name: int(v) if d.kind == "int" else v}
                  for d in space for v in (d.choices if d.kind == "categorical" else (d.low, d.high))]
    for point in points:
        shown = ", ".join(f"{k} = {v!r}" for k, v in point.items())
        try:
            check_for_library(base.with_overrides(**overrides(point)), spec.library,
                              spec.objective)
        except ConfigError as exc:
            raise ConfigError(f"search space of {spec.name}: {shown}: {exc}") from None


def refuse_fixed(config: RunConfig, spaces: Mapping[str, tuple[Dimension, ...]],
                 source: str) -> None:
    """A ConfigError when a searched parameter is one the config fixes for that model
    (``[model_params.<model>]``, a raw ``<library>.<key>`` in its library table): each trial
    would replace the file's value without a word."""
    for model, dims in spaces.items():
        fixed = config.model_params.get(model, {})
        for d in dims:
            lib, dot, key = d.name.partition(".")
            table = fixed.get(lib) if dot else fixed
            if isinstance(table, Mapping) and (key if dot else d.name) in table:
                raise ConfigError(
                    f"{source} searches {d.name} for {model}, which the config fixes: "
                    f"[model_params.{model}] {d.name} = {table[key if dot else d.name]!r}; "
                    "remove one of the two (a search space without it, or the fixed value)")


def say_seed_precedence(config: RunConfig, seed: int) -> None:
    """Tune's one seed is ``--seed`` (the sampler's, the folds' and every trial's model's); a
    config's ``seeds`` are ``ltrbench run``'s (``best.toml`` keeps them). A config whose seeds
    are not the default ``[0, 1, 2]`` and differ from ``[seed]`` is told so (a ``ConfigWarning``):
    ``seeds = [7]`` beside ``--seed 3`` tuned with 3 without a word before."""
    from bench.benchmark.pipeline import ConfigWarning

    tables = [("[params]", config.params.seed)] if config.params.seed != 0 else []
    tables += [(f"[model_params.{m}]", t["seed"]) for m, t in config.model_params.items()
               if "seed" in t]
    for where, value in tables:  # as ltrbench run says it (RunConfig.unused)
        warnings.warn(f"{where} seed = {value!r}: not used; tune trains every trial with --seed "
                      f"{seed} (set the seed there)", ConfigWarning, stacklevel=2)
    if config.seeds not in (RunConfig.seeds, (seed,)):
        warnings.warn(f"tune trains every trial with --seed {seed} (the sampler, the folds, the "
                      f"models); the config's seeds {list(config.seeds)} are not used by tune "
                      "(best.toml keeps them for ltrbench run)", ConfigWarning, stacklevel=2)


def grid_size_or_refuse(space: tuple[Dimension, ...], model: str) -> int:
    """The grid's size; a space with ranges cannot be a grid (``--sampler grid`` needs ``--grid``),
    nor one of more than :data:`MAX_GRID` points (Optuna's grid sampler lists every point)."""
    size = grid_size(space)
    if size is None:
        raise ConfigError(f"--sampler grid: the space of {model} has ranges; give the grid's "
                          "values with --grid \"name=v1,v2;...\"")
    if size > MAX_GRID:
        raise ConfigError(f"--grid: {size:,} combinations are more than the grid sampler lists "
                          f"({MAX_GRID:,}); sample them with --sampler random or tpe and a "
                          "--budget-trials, or give fewer values")
    return size


def bound_notes(best: Mapping[str, object] | None, space: tuple[Dimension, ...]) -> list[str]:
    """The searched ranges whose best value lies at an end (an integer range's end itself; a
    float range's outer 1%, on the log scale when the range is log-uniform): the best point
    may lie beyond the range searched, so "best" is the best of a space cut too short."""
    out = []
    for d in space:
        value = (best or {}).get(d.name)
        if d.kind == "categorical" or not isinstance(value, int | float) or d.high <= d.low:
            continue
        if d.kind == "int":
            end = "lower" if value <= d.low else "upper" if value >= d.high else None
        else:
            f = (math.log(value / d.low) / math.log(d.high / d.low) if d.log
                 else (value - d.low) / (d.high - d.low))
            end = "lower" if f <= 0.01 else "upper" if f >= 0.99 else None
        if end is not None and not _own_limit(d, end):
            out.append(f"best {d.name} = {value!r} is at the {end} end of its range "
                       f"[{d.low:g}, {d.high:g}]: the best value may lie beyond it; widen the "
                       "range (--space FILE) to know")
    return out


def _own_limit(d: Dimension, end: str) -> bool:
    """Whether the range's ``end`` is the parameter's own limit (subsample and colsample <= 1,
    min_split_gain >= 0): nothing lies beyond it, and "widen the range" was advice no library
    takes (best colsample = 0.9989 of [0.5, 1])."""
    try:
        spec = param_spec(d.name)
    except KeyError:
        return False  # a library's own parameter (catboost.random_strength): no shared limit
    if end == "upper":
        return spec.hi is not None and d.high >= spec.hi
    return spec.lo is not None and d.low <= spec.lo


def grid_budget_note(budget: Budget, grid: int | None, given: str | None) -> None:
    """A ``ConfigWarning`` when ``--budget-trials`` (``given``, as written) and the ``--grid``
    of ``grid`` points differ: below, the grid sampler tries that many points of its own
    (seeded) choosing and "best" is the best of those, not of the grid; above, the grid's
    size bounds the trials (the sampler stops when every point is tried)."""
    from bench.benchmark.pipeline import ConfigWarning

    if grid is None or given is None or budget.kind != "trials" or budget.amount == grid:
        return
    if budget.amount < grid:
        said = (f"tries {int(budget.amount):,} of the grid's {grid:,} points (chosen by the "
                "seeded grid sampler), so the best is the best of those, not of the grid; "
                "leave --budget-trials out to try every point")
    else:
        said = (f"is more than the grid's {grid:,} points: {grid:,} trials are run (the grid "
                "sampler stops when every point is tried)")
    warnings.warn(f"--budget-trials {given} {said}", ConfigWarning, stacklevel=3)
