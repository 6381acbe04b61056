"""The models a run can name, and what each one is.

Names are fixed by the run-directory contract (``status/<model>-seed<k>.json``, the ``model``
column of every table): ``<library>-<objective>`` for each objective of each GBDT library
declared in :mod:`bench.runners.libraries` (trained by its module through
:mod:`bench.runners.gbdt`); ``popularity``, ``random`` and ``als`` are the baselines of
:mod:`bench.runners.baselines`. A run may also name its own models (``[custom_models.<name>]``,
:mod:`bench.runners.custom`): their library is ``custom`` and their names may not collide with
these.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from bench.data.folder_names import windows_device
from bench.errors import (
    ConfigError,
    did_you_mean,
    refuse_empty_items,
    refuse_foreign_space,
    spelled_choice,
)
from bench.runners.libraries import LIBRARIES, gbdt_libraries

#: The GBDT libraries declared at import (:data:`bench.runners.libraries.LIBRARIES`, their one
#: owner; code that must see a library declared later calls :func:`gbdt_libraries`).
GBDT_LIBRARIES: tuple[str, ...] = gbdt_libraries()
#: The library of a user's model (:mod:`bench.runners.custom`): no built-in metric ltrbench knows.
CUSTOM_LIBRARY = "custom"
#: A custom model's name: a file-name-safe word (it names ``status/<model>-seed<k>.json``).
_CUSTOM_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass(frozen=True)
class ModelSpec:
    """What a model name means: library, objective, and a one-line description."""

    name: str
    library: str  # a GBDT library (bench.runners.libraries), "baseline" or "custom"
    objective: str  # ltrbench objective name (an Objective of its library), or the baseline's name
    description: str

    @property
    def is_gbdt(self) -> bool:
        return self.library in LIBRARIES


_BASELINE_MODELS: tuple[ModelSpec, ...] = (
    ModelSpec("popularity", "baseline", "popularity",
              "item popularity among relevant train rows (recommender data only)"),
    ModelSpec("random", "baseline", "random", "uniform random scores (seeded)"),
    ModelSpec("als", "baseline", "als",
              "implicit-feedback ALS, Hu, Koren & Volinsky 2008 (recommender data only)"),
)


#: The ``--models`` groups of :func:`aliases` besides the library names.
_GROUPS = ("baselines", "gbdt", "all")
_LIBRARY_NAME = re.compile(r"[a-z][a-z0-9_]*")


def check_libraries() -> None:
    """The declared library records (:data:`~bench.runners.libraries.LIBRARIES`, read now) name
    models that a run can tell apart, else a ConfigError naming the record: each stored under
    its own name, a name without '-' that is no baseline, group or library kind, an ``alias``
    and a ``lambdamart`` among its objectives."""
    for key, lib in LIBRARIES.items():
        where = f"GBDT library record {key!r}"
        if getattr(lib, "name", None) != key:
            raise ConfigError(f"{where} holds {getattr(lib, 'name', lib)!r}: a Library record is "
                              "stored under its own name")
        if not isinstance(key, str) or not _LIBRARY_NAME.fullmatch(key):
            raise ConfigError(f"{where}: a library name is lower-case ASCII letters, digits and "
                              "'_', with no '-' (a model is <library>-<objective>, and a run "
                              "folder without records is read by the prefix before the first '-')")
        taken = (*BASELINES, *_GROUPS, CUSTOM_LIBRARY, "baseline")
        if key in taken:
            raise ConfigError(f"{where}: {key!r} is the name of a baseline model, a --models group "
                              f"or a library kind ({', '.join(taken)}); choose another")
        objectives = [o.name for o in lib.objectives]
        for field_name in ("alias", "lambdamart"):
            if getattr(lib, field_name) not in objectives:
                raise ConfigError(f"{where}: its {field_name} {getattr(lib, field_name)!r} is none "
                                  f"of its objectives ({', '.join(objectives)})")


def models() -> dict[str, ModelSpec]:
    """Every built-in model by name: each declared library's objectives (``<library>-<objective>``,
    in declaration order), then the baselines."""
    check_libraries()
    gbdt = {lib.model(o.name): ModelSpec(lib.model(o.name), lib.name, o.name, o.description)
            for lib in LIBRARIES.values() for o in lib.objectives}
    return {**gbdt, **{m.name: m for m in _BASELINE_MODELS}}


def lambdamart_models() -> tuple[str, ...]:
    """The LambdaMART model of each GBDT library: what is compared head to head and
    cross-checked, and the GBDTs of the default run (:attr:`Library.lambdamart`)."""
    return tuple(lib.model(lib.lambdamart) for lib in LIBRARIES.values())


#: The baselines, in the order runs list them.
BASELINES: tuple[str, ...] = tuple(m.name for m in _BASELINE_MODELS)


def aliases() -> dict[str, tuple[str, ...]]:
    """Short aliases accepted by ``--models``: a library name expands to its
    :attr:`Library.alias` model; ``baselines``, ``gbdt`` and ``all``."""
    known = models()
    return {
        **{lib.name: (lib.model(lib.alias),) for lib in LIBRARIES.values()},
        "baselines": BASELINES,
        "gbdt": tuple(n for n, m in known.items() if m.is_gbdt),
        "all": tuple(known),
    }


#: The models, LambdaMART models and aliases declared at import (listings; lookups call the
#: functions above, which read the declarations at call time).
MODELS: dict[str, ModelSpec] = models()
LAMBDAMART: tuple[str, ...] = lambdamart_models()
ALIASES: dict[str, tuple[str, ...]] = aliases()


class ModelNames(tuple[str, ...]):
    """Model names resolved once: a tuple of the names (what a config, its TOML and the tables
    hold) that carries each name's :class:`ModelSpec` (:attr:`specs`), so that whoever is handed
    it looks nothing up again (:func:`expand_models` makes it; ``RunConfig.models`` keeps it).

    It compares, prints and is written as the plain tuple of names; a copy, a pickle and
    :func:`dataclasses.replace` of the config that holds it keep the specs.
    """

    specs: tuple[ModelSpec, ...]

    def __new__(cls, specs: Iterable[ModelSpec]) -> ModelNames:
        specs = tuple(specs)
        new = super().__new__(cls, (s.name for s in specs))
        new.specs = specs
        return new

    def __reduce__(self) -> tuple[Any, ...]:
        return (ModelNames, (self.specs,))

    def by_name(self) -> dict[str, ModelSpec]:
        """Name -> :class:`ModelSpec`, in order."""
        return {s.name: s for s in self.specs}


#: Models of ``ltrbench run`` with no arguments (the baselines skip themselves on non-recommender
#: data; ``bench.benchmark.config.DEFAULT_MODELS``), resolved at import as the listings above.
DEFAULT_MODELS = ModelNames(MODELS[m] for m in (*LAMBDAMART, *BASELINES))


def custom_spec(name: str, factory: str) -> ModelSpec:
    """The :class:`ModelSpec` of the run's custom model ``name`` built by ``factory`` (its
    ``[custom_models.<name>]`` declaration, :mod:`bench.runners.custom`): library
    :data:`CUSTOM_LIBRARY`. Made from the declaration the run holds; nothing is looked up."""
    return ModelSpec(name, CUSTOM_LIBRARY, CUSTOM_LIBRARY, f"user model {factory}")


def get_model(name: str, custom: Mapping[str, str] | None = None) -> ModelSpec:
    """The :class:`ModelSpec` of ``name``; a ConfigError lists the valid names.

    ``custom`` maps the run's custom model names to their factory references
    (:mod:`bench.runners.custom`); such a model's library is :data:`CUSTOM_LIBRARY`.
    """
    if custom and name in custom:
        return custom_spec(name, custom[name])
    known = models()
    try:
        return known[name]
    except (KeyError, TypeError):
        mine = f"; custom: {', '.join(custom)}" if custom else ""
        names = aliases()
        odd = [f"U+{ord(c):04X}" for c in dict.fromkeys(str(name)) if not (c.isascii() and
                                                                          c.isprintable())]
        shown = f"{name!r} (written {name!a}: model names are ASCII; it holds {', '.join(odd)})" if odd \
            else repr(name)  # 'café' in two Unicode forms would print alike
        raise ConfigError(
            f"unknown model {shown}; {_factory_hint(name)}"
            f"{did_you_mean(str(name), [*known, *names, *(custom or ())])}"
            f"valid: {', '.join(known)} "
            f"(aliases: {', '.join(names)}){mine}"
        ) from None


def _factory_hint(name: object) -> str:
    """What to do with a ``"package.module:attribute"`` given as a model name (``--models
    mypkg.rankers:MyRanker``): it was "unknown model", as if it were a misspelt built-in."""
    module, colon, attribute = str(name).partition(":")
    if not colon or not all(p.isidentifier() for p in (*module.split("."), attribute)):
        return ""
    return (f"it is a factory reference, not a model name: declare it in the config "
            f"([custom_models.mine] factory = \"{name}\", then models = [..., \"mine\"]; from "
            f"Python custom_models={{\"mine\": \"{name}\"}}) and name the model; ")


def check_custom_name(name: str) -> None:
    """Refuse a custom model name that collides with a built-in model or alias, or that is not
    safe in a file name. A name like ``lightgbm-mine`` is fine: the run records its library
    (``custom``) and readers take it from there (:func:`bench.runs.models.model_libraries`)."""
    if not isinstance(name, str) or not _CUSTOM_NAME.fullmatch(name):
        raise ConfigError(f"custom model name {name!r}: use ASCII letters and digits, '.', '_' and '-', "
                          "starting with a letter or digit")
    if name in models() or name in aliases():
        raise ConfigError(f"custom model name {name!r} is a built-in model or alias; choose "
                          "another name")
    if windows_device(name):  # status/CON-seed0.json, best/nul.x.toml: a device on Windows
        raise ConfigError(f"custom model name {name!r} is a device name on Windows (CON, PRN, "
                          "AUX, NUL, COM1-9, LPT1-9, before the first '.'): its files could not "
                          "be copied there; choose another name")


def expand_models(names: list[str] | tuple[str, ...] | str,
                  custom: Mapping[str, str] | None = None, *,
                  known: Mapping[str, ModelSpec] | None = None) -> ModelNames:
    """Model names from a list or comma-separated string, aliases expanded, order kept, no
    repeats, each resolved once: the :class:`ModelNames` carry every name's :class:`ModelSpec`.

    The same name written twice is refused (as a repeated seed is); an alias and a model it
    covers (``lightgbm``, ``lightgbm-lambdarank``) give that model once.

    Names of ``custom`` (the run's custom models, see :func:`get_model`) are accepted as they are.
    A name of ``known`` (specs this run resolved already, e.g. a config file's models under
    ``--models``) takes its spec from there instead of a second look-up.
    """
    if isinstance(names, str):
        refuse_empty_items(names.split(","), names, "model name")
    for raw in [names] if isinstance(names, str) else names:  # 'lightgbm\u00a0': not stripped
        refuse_foreign_space(str(raw), "models", "model names")
    items = names.split(",") if isinstance(names, str) else list(names)
    table = aliases()
    out: dict[str, ModelSpec] = {}
    written: set[str] = set()
    for raw in items:
        name = raw.strip()  # ' xgboost-ndcg' in a list, 'LightGBM': as spelled, said once
        if name and not (custom and name in custom):
            name = str(spelled_choice(name if isinstance(names, str) else raw,
                                      [*models(), *table], "models")).strip()
        if not name:
            continue
        if name in written:  # as seeds and cutoffs: a repeat is a slip, never two rows
            raise ConfigError(f"model {name!r} named twice; name each model once (an alias "
                              "that covers a named model, lightgbm with lightgbm-lambdarank, "
                              "is fine)")
        written.add(name)
        for expanded in table.get(name, (name,)):
            if expanded not in out:
                out[expanded] = (known[expanded] if known and expanded in known
                                 else get_model(expanded, custom))
    if not out:
        raise ConfigError(f"no models given; valid: {', '.join(models())}")
    return ModelNames(out.values())


def canonical_models(names: Iterable[str], custom: Mapping[str, str] | None = None) -> ModelNames:
    """Model names given as they are to be used (``RunConfig(models=(...))``), looked up once
    each: an unknown or repeated name is refused with :func:`expand_models`'s error, an alias
    (``lightgbm``) as not canonical."""
    if isinstance(names, str):
        raise ConfigError(f"models: expected a tuple of model names; got the string {names!r} "
                          "(RunConfig.from_dict takes a comma-separated string)")
    names = tuple(names)
    try:
        specs = {m: get_model(m, custom) for m in names}
    except (ConfigError, TypeError):
        specs = {}
    if len(specs) == len(names):
        return ModelNames(specs.values())
    expanded = expand_models(names, custom)  # the registry's own error: unknown, repeated
    if tuple(expanded) != names:
        raise ConfigError(f"models must be registered names, without repeats; got {list(names)}")
    return expanded


def _registered() -> dict[str, ModelSpec]:
    """:func:`models`, for :func:`run_models`, whose argument shadows the name."""
    return models()


def run_models(models: Iterable[str], custom: Mapping[str, str]) -> ModelNames:
    """A run's ``models`` resolved, each name once: :class:`ModelNames` (resolved at the door by
    :func:`expand_models`, or carried by a config) are taken as they come, a custom model's spec
    made from ``custom`` (its declaration); plain names go through :func:`canonical_models`. A
    custom model that ``custom`` does not declare (any more) is refused as unknown, and so is a
    :class:`ModelSpec` built by hand that is not the registry's own (``lightgbm-lambdarank``
    with library ``xgboost`` would train XGBoost under LightGBM's name)."""
    if isinstance(models, ModelNames) and len(set(models)) == len(models) and all(
            s.library != CUSTOM_LIBRARY or s.name in custom for s in models.specs):
        known = _registered()
        for s in models.specs:  # a spec built by hand: the registry's own, or refused
            if s.name not in custom and known.get(s.name) != s:
                raise ConfigError(f"models: {s!r} is not the registered spec of {s.name!r} "
                                  f"({known[s.name]!r})" if s.name in known else
                                  f"models: {s!r} names no registered model; pass model names "
                                  "(a ModelNames from expand_models, or plain text)")
        return ModelNames(custom_spec(s.name, custom[s.name]) if s.name in custom else s
                          for s in models.specs)
    return canonical_models(models, custom)


def table_model(name: str) -> ModelSpec:
    """The spec of a model a table names (``[model_params.<name>]``): a built-in model's own
    name; an alias is refused with the model(s) it stands for."""
    expands = aliases().get(name)
    if expands is not None:
        raise ConfigError(f"{name!r} is an alias of {', '.join(expands)}; name the model "
                          f"itself ([model_params.{expands[0]}])")
    return get_model(name)
