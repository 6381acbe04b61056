"""What a run's config sets and the run does not use, in words
(:meth:`bench.benchmark.config.RunConfig.unused`; the run warns about each, as it goes on):
a ``[params.<library>]`` table without a model of that library, ``[model_params.<model>]`` of a
model not in ``models``, ``[als]`` without ``als``, a custom model that is not in ``models``, a
``[params]`` value none of the run's GBDT libraries has (``l1`` in a CatBoost-only run), and a
value above quick mode's cap (:func:`bench.benchmark.quick.cap_note`). Nothing is dropped
without a word, and a shared config narrowed by ``--models`` stays usable. Said too, though
used: a model's raw key that unmatches a row of the parity table
(:func:`bench.runners.raw_keys.unmatched`)."""

from __future__ import annotations

from typing import Any

from bench.benchmark.quick import QUICK_LIMITS, cap_note
from bench.runners.baselines import ALSParams
from bench.runners.libraries import LIBRARIES, get_library
from bench.runners.params import Params
from bench.runners.raw_keys import unmatched, unused_shared


def unused_settings(config: Any, defaults: Params) -> list[str]:
    """The sentences for a :class:`~bench.benchmark.config.RunConfig` (``config``) whose
    ``[params]`` left alone are ``defaults`` (what a value is compared with)."""
    specs = [s for s in config.__dict__.get("_model_specs", {}).values() if s.is_gbdt]
    libraries = {s.library for s in specs}
    out = []
    for lib, items in config.params.raw:
        if items and lib not in libraries:
            title = LIBRARIES[lib].title if lib in LIBRARIES else lib
            out.append(f"[params.{lib}]: no {title} model in this run; its parameter(s) "
                       f"{', '.join(k for k, _ in items)} are not used")
    out += [f"[model_params.{m}]: {m!r} is not among the models; not used"
            for m in config.model_params if m not in config.models]
    if config.als != ALSParams() and "als" not in config.models:
        out.append("[als]: 'als' is not among the models; not used")
    out += [f"[custom_models.{m}]: {m!r} is not among the models; not trained"
            for m in config.custom_models if m not in config.models]
    if config.device != "cpu" and not specs:  # '--device cuda --models popularity'
        out.append(f"device {config.device!r}: no GBDT model in this run; its models train on "
                   "the CPU")
    said = [f"{text} (models: {', '.join(config.models)})" for text in out]
    base, given = defaults.to_dict(), config.params.to_dict()
    changed = {k: v for k, v in given.items() if v != base.get(k)}
    said += unused_shared(list(changed), [(s.library, s.objective) for s in specs])
    said += _seeds_not_used(config, changed) + _seeds_change_nothing(config, specs)
    said += list(dict.fromkeys(
        f"{s.name}: {text}" for s in specs
        for text in unmatched(s.library, config.params_for(s.name, config.seeds[0])
                              .raw_params(s.library))))
    if config.quick:
        tables = [("[params]", changed),
                  *((f"[model_params.{m}]", t) for m, t in config.model_params.items())]
        said += [note for where, t in tables for k in QUICK_LIMITS
                 if (note := cap_note(f"{where} {k} = {t.get(k)!r}", k, t.get(k)))]
    return said


def _seeds_not_used(config: Any, changed: dict[str, Any]) -> list[str]:
    """A ``seed`` in ``[params]`` (``changed``: its values that differ from the defaults) or in a
    ``[model_params.<model>]`` table: each model trains with each of the run's ``seeds`` instead
    (:meth:`~bench.benchmark.config.RunConfig.params_for`)."""
    tables = [("[params]", changed), *((f"[model_params.{m}]", t)
                                       for m, t in config.model_params.items())]
    return [f"{where} seed = {t['seed']!r}: not used; every model trains with each of the run's "
            f"seeds = {list(config.seeds)} (set the seeds there, or with --seeds)"
            for where, t in tables if isinstance(t, dict) and "seed" in t]


def _seeds_change_nothing(config: Any, specs: list[Any]) -> list[str]:
    """The GBDT models that train one model for every seed of a run of several: their objective
    draws no random number (:meth:`~bench.runners.libraries.Library.seed_free`) and they sample
    no row nor feature (``subsample = colsample = 1``, no raw parameter), so their spread over
    seeds is 0 by construction, not a sign of stability."""
    if len(config.seeds) < 2:
        return []
    same = []
    for spec in specs:
        p = config.params_for(spec.name, config.seeds[0])
        if (get_library(spec.library).seed_free(spec.objective) and p.subsample == 1.0
                and p.colsample == 1.0 and not p.raw_params(spec.library)):
            same.append(spec.name)
    if not same:
        return []
    return [f"seeds = {list(config.seeds)}: {', '.join(same)} train{'s' if len(same) == 1 else ''} "
            "the same model for every seed (subsample = colsample = 1, and the objective draws "
            "no random number), so a spread over these seeds is 0 by construction; set "
            "subsample or colsample below 1 for seeds that differ, or give one seed"]


def seeds_change_no_custom_model(seeds: Any, seedless: list[str]) -> list[str]:
    """The custom models of a run of several ``seeds`` whose factory takes no seed (``seedless``,
    as :func:`bench.runners.custom.check_custom_model` found them): every seed builds the same
    ranker, so their spread over seeds is 0 by construction unless they draw their own random
    numbers (said as :func:`_seeds_change_nothing` says it of a seed-free GBDT model)."""
    if not seedless or len(seeds) < 2:
        return []
    many = len(seedless) > 1
    return [f"seeds = {list(seeds)}: custom model{'s' if many else ''} "
            f"{', '.join(map(repr, seedless))} take{'' if many else 's'} no seed (the factory has "
            "no seed or random_state parameter, and no set_params(random_state=...)), so every "
            "seed trains the same model unless it draws random numbers of its own: a spread over "
            "these seeds of 0 is then by construction, not a sign of stability; give the factory "
            "a seed parameter, or give one seed"]
