"""Which keys a raw library table (``[params.<library>]``, ``<library>.<key>`` in a search space)
may hold: not one that ltrbench sets itself (the library record's
:attr:`~bench.runners.libraries.Library.owned`: the objective, the metric, the seed, the
threads, the device), and not one that is the library's name, or an alias, of a parameter that
an ltrbench field already sets (:attr:`~bench.runners.libraries.Library.shadowed`).
``[params.lightgbm] num_iterations = 5`` beside ``n_trees = 300`` trained 5 trees
(``lightgbm.train`` lets ``num_iterations`` in ``params`` win over ``num_boost_round``,
``python-package/lightgbm/engine.py``) and recorded 300; ``max_leaves = 5`` beside
``num_leaves = 31`` is one LightGBM parameter given twice (LightGBM keeps one and logs that it
ignores the other, ``src/io/config.cpp`` ``KeyAliasTransform``); ``[params.xgboost] eta``
beside ``learning_rate``: one value recorded, another trained.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from bench.errors import ConfigError
from bench.runners.libraries import LIBRARIES, load


def shadowed_field(library: str, key: str) -> str | None:
    """The ltrbench field that ``key`` of ``library`` sets too (by its name or, through the
    library's own alias list, an alias of it), or None.

    Names match exactly, as in the libraries: LightGBM keeps a key as written (``KV2Map`` in
    ``src/io/config.cpp`` trims it, no case folding; ``Num_Leaves`` is an "Unknown
    parameter"), XGBoost's and CatBoost's parameter names are case-sensitive too (``ETA`` is a
    parameter XGBoost does not use). A key in another case is left to the library's probe
    (:mod:`bench.runners.param_probe`), which refuses it as unknown with the closest name."""
    table = dict(LIBRARIES[library].shadowed)
    return table.get(_main_name(library, key)) or table.get(key)


def inert_reason(library: str, key: str) -> str | None:
    """Why ``key`` (or the parameter it is an alias of) does nothing when ``library`` trains as
    ltrbench trains it (:attr:`~bench.runners.libraries.Library.inert`), or None."""
    main = _main_name(library, key)
    return next((why for group, why in LIBRARIES[library].inert if main in group or key in group),
                None)


def _main_name(library: str, key: str) -> str:
    """The main name of ``key`` in ``library``'s own alias list
    (:attr:`~bench.runners.libraries.Library.names`); ``key`` itself without one."""
    lib = LIBRARIES[library]
    if lib.names is None:
        return key
    names: Callable[[], dict[str, str]] = load(lib.names)
    return names().get(key, key)


def check_raw_keys(library: str, keys: Iterable[str], where: str = "") -> None:
    """Refuse a raw key of ``library`` that ltrbench sets itself or that an ltrbench field sets,
    naming the key and where to set it instead; and two names of one parameter (a LightGBM
    alias beside its main name: ``extra_tree`` and ``extra_trees``), of which LightGBM keeps
    one in silence (``KeyAliasTransform``, ``src/io/config.cpp``: a warning that
    ``verbosity = -1`` hides)."""
    lib = LIBRARIES[library]
    keys = list(keys)
    _refuse_aliases_together(library, keys, where)
    for key in keys:
        setting = next((what for names, what in lib.owned if key in names), None)  # exact
        if setting is not None:
            raise ConfigError(f"{where}{library} {key}: ltrbench sets it itself, from "
                              f"{setting}; a raw table may not replace it (the run would "
                              "record one model and train another)")
        why = inert_reason(library, key)
        if why is not None:
            raise ConfigError(f"{where}{library} {key}: {why}, so the model would train as "
                              "without it; leave it out")
        field = shadowed_field(library, key)
        if field is not None:
            raise ConfigError(f"{where}{library} {key}: {lib.title}'s name for ltrbench's "
                              f"{field}; set {field} (in [params] or [model_params.<model>]) "
                              f"instead: a raw {key} beside it would train one value and "
                              "record another")


def refuse_ignored(library: str, keys: Iterable[str], where: str = "",
                   objective: str | None = None) -> None:
    """Refuse a shared parameter that ``library`` has no counterpart of, or that the model's
    ``objective`` does not read (:meth:`~bench.runners.libraries.Library.ignored`), in a table
    of one of its models: ``[model_params.catboost-yetirank] l1 = 5`` or
    ``[model_params.lightgbm-xendcg] truncation_level = 5`` trained as without it, exit 0;
    so did another library's raw table (``[model_params.lightgbm-lambdarank.xgboost]``)."""
    lib = LIBRARIES[library]
    ignored = lib.ignored(objective)
    for key in keys:
        if key in LIBRARIES and key != library:
            raise ConfigError(f"{where}{key}: a raw {key} table in a {lib.title} model's table; "
                              f"{key} never reads it there: put it in [params.{key}] or the "
                              f"table of a {key} model ([model_params.<model>.{key}])")
        if key in ignored:
            raise ConfigError(f"{where}{key}: {ignored[key]}, so the model would train as "
                              f"without it; leave it out of this {lib.title} model's table "
                              "(the parity table: bench.runners.params.PARITY)")


def _refuse_aliases_together(library: str, keys: list[str], where: str) -> None:
    lib = LIBRARIES[library]
    if lib.names is None:
        return
    names: dict[str, str] = load(lib.names)()
    seen: dict[str, str] = {}
    for key in keys:
        main = names.get(key)
        if main is None:
            continue
        if main in seen:
            raise ConfigError(f"{where}{library} {seen[main]} and {key}: two names of one "
                              f"{lib.title} parameter ({main}); {lib.title} would keep one of "
                              "the values without a word: give it once")
        seen[main] = key


def unused_shared(keys: Iterable[str], models: Iterable[tuple[str, str]]) -> list[str]:
    """Of the shared parameters ``keys`` a run's ``[params]`` sets, those that none of the run's
    GBDT ``models`` (``(library, objective)`` pairs) reads
    (:meth:`~bench.runners.libraries.Library.ignored`), in words: ``[params] l1 = 5`` in a
    CatBoost-only run, ``truncation_level`` in a run of lightgbm-xendcg, trained without it."""
    pairs = sorted({(lib, obj) for lib, obj in models if lib in LIBRARIES})
    ignored = [LIBRARIES[lib].ignored(obj) for lib, obj in pairs]
    out = []
    for key in keys:
        whys = [table.get(key) for table in ignored]
        if pairs and all(whys):
            said = "; ".join(dict.fromkeys(map(str, whys)))
            out.append(f"[params] {key}: not used by this run's models ({said})")
    return out


def unmatched(library: str, raw: Mapping[str, Any]) -> list[str]:
    """Sentences for the raw keys of ``library`` (by name or alias) whose value changes what a
    row of the parity table matches (:attr:`~bench.runners.libraries.Library.unmatched`):
    ``[params.xgboost] lambdarank_pair_method = "mean"`` makes ``truncation_level`` a count of
    pairs sampled per document, ``[params.catboost] sampling_unit = "Group"`` samples whole
    queries. Trained as given (the escape hatch), and said: the run warns and the model's notes
    keep them. A value equal to the matched one says nothing."""
    lib = LIBRARIES.get(library)
    if lib is None or not lib.unmatched:
        return []
    out = []
    for key, value in raw.items():
        main = _main_name(library, key)
        for name, matched, row in lib.unmatched:
            if name == main and _differs(value, matched):
                out.append(f"{library} {key} = {value!r}: the parity table's {row} row matches "
                           f"the libraries with {name} = {matched!r}; this {lib.title} model "
                           f"trains unmatched there (its {row} no longer means what it means "
                           "for the other libraries)")
    return out


def _differs(value: Any, matched: Any) -> bool:
    """Whether a raw ``value`` is not the ``matched`` one as the library reads it (``1`` and
    ``"true"`` are a true boolean, ``1`` is ``1.0``)."""
    if isinstance(matched, bool):
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value) != float(matched)
        return str(value).lower() != str(matched).lower()
    if isinstance(matched, float):
        try:  # LightGBM and XGBoost read "1" as 1
            return isinstance(value, bool) or float(value) != matched
        except (TypeError, ValueError):
            return True
    return bool(value != matched)


def library_spelling(key: str, where: str, library: str | None = None,
                     valid: Iterable[str] = ()) -> ConfigError | None:
    """The error for ``key``, not one of ltrbench's shared parameters, in ``[params]`` or a
    model's table ``where`` (of ``library``'s model) when it is a library's own spelling:
    the name of an ltrbench field (``[model_params.lightgbm-lambdarank] bagging_fraction``
    is LightGBM's ``subsample``; it was "did you mean 'learning_rate_min'?"), a key ltrbench
    sets itself (``objective``), or a LightGBM parameter with no shared counterpart
    (``extra_trees`` was "did you mean 'n_trees'?"), which goes in a raw table. None for any
    other key (a typo of a shared name keeps its closest name). ``valid``: the shared names, listed
    after a library's name of one of them, as after any unknown key."""
    if where.strip() == "[params]" and _model_name(key):  # a model's table one level too high
        return ConfigError(f"[params] {key}: a model, not a parameter: its own values go in "
                           f"[model_params.{key}] (from Python: model_params={{\"{key}\": "
                           "{...}}); [params] holds the values every model shares")
    order = sorted(LIBRARIES, key=lambda lib: lib != library)  # the model's library first
    said = shared_name_of(key, library, where, valid)
    if said is not None:
        return ConfigError(said)
    for lib in order:
        setting = next((what for names, what in LIBRARIES[lib].owned if key in names), None)
        if setting is not None:
            return ConfigError(f"{where}{key}: {LIBRARIES[lib].title}'s {key}, which ltrbench "
                               f"sets itself, from {setting}; leave it out")
    owner = raw_library_of(key, library)
    if owner is not None:
        title = LIBRARIES[owner].title
        if library is None:
            table = f"[params.{owner}] (every {title} model) or [model_params.<model>.{owner}]"
        elif library == owner:
            table = f"[{where.strip()[1:-1]}.{owner}]"
        else:
            return ConfigError(f"{where}{key}: a {title} parameter, not one of ltrbench's shared "
                               f"ones, in this {LIBRARIES[library].title} model's table ({title} "
                               f"never reads it there); a raw {LIBRARIES[library].title} "
                               f"parameter goes in [{where.strip()[1:-1]}.{library}]")
        return ConfigError(f"{where}{key}: a {title} parameter, not one of ltrbench's shared "
                           f"ones: write it in the raw table {table}")
    return None


def _model_name(key: str) -> bool:
    """Whether ``key`` is a built-in model's name (``lightgbm-lambdarank``)."""
    from bench.runners.registry import models

    return key in models()


def raw_library_of(key: str, library: str | None = None) -> str | None:
    """The library (``library`` first) whose own parameter list, aliases included, holds
    ``key`` (LightGBM's ``extra_trees``); None where none does or no list is known."""
    for lib in sorted(LIBRARIES, key=lambda lib: lib != library):
        names = LIBRARIES[lib].names
        if names is not None and key in load(names)():
            return lib
    return None


def shared_name_of(key: str, library: str | None, where: str, valid: Iterable[str]) -> str | None:
    """``unknown parameter WHERE KEY; did you mean 'FIELD'? ...`` when ``key`` is a library's
    name (or alias) of the ltrbench field FIELD (``library``'s own names first: ``eta`` is
    XGBoost's learning_rate, ``border_count`` CatBoost's max_bin), else None. The config
    tables, tune's ``--grid`` and a ``--space`` file say it alike."""
    fields: dict[str, list[str]] = {}
    for lib in sorted(LIBRARIES, key=lambda lib: lib != library):
        field = shadowed_field(lib, key)
        if field is not None:
            fields.setdefault(field, []).append(LIBRARIES[lib].title)
    if not fields:
        return None
    field, titles = next(iter(fields.items()))
    owners = _and([f"{title}'s" for title in titles])
    return (f"unknown parameter {where}{key}; did you mean '{field}'? ({key} is {owners} "
            f"name for ltrbench's {field}: write {field} here; ltrbench passes it to each library "
            f"under that library's own name); valid: {', '.join(sorted(valid))}")


def _and(titles: list[str]) -> str:
    return titles[0] if len(titles) == 1 else f"{', '.join(titles[:-1])} and {titles[-1]}"
