"""Search spaces of ``ltrbench tune``, declared as data: one
:class:`~bench.runners.search_dimension.Dimension` per parameter, one tuple of them per GBDT
library in its :class:`~bench.runners.libraries.Library` record (``space``; gathered here in
:data:`SPACES`), overridable from a TOML file (``--space``).

A dimension is named by ltrbench's parameter name (a field of
:class:`~bench.runners.params.Params`, checked against
:data:`~bench.runners.params.PARAM_SPECS`), so that one name means the same thing in every
library (``num_leaves`` is LightGBM's ``num_leaves``, XGBoost's ``max_leaves`` under
``grow_policy=lossguide``, CatBoost's ``max_leaves`` under ``Lossguide``:
:data:`bench.runners.params.PARITY`), or by ``<library>.<key>`` for a raw parameter the library
alone has (XGBoost's ``lambdarank_pair_method``, CatBoost's ``random_strength``).

Ranges come from each library's documentation and the LTR tuning literature: LightGBM
``docs/Parameters-Tuning.rst`` (num_leaves, min_data_in_leaf, bagging/feature fraction, lambda_l1/l2,
min_gain_to_split), XGBoost ``doc/parameter.rst`` and ``doc/tutorials/learning_to_rank.rst``
(``lambdarank_pair_method``: ``topk`` or ``mean``, ``lambdarank_num_pair_per_sample``), CatBoost
``parameter-tuning.md`` (``l2_leaf_reg``, ``random_strength``; ``max_leaves`` at most 64 for
Lossguide) and the log-uniform rate and regularisation ranges of Grinsztajn et al. (NeurIPS
2022, Table 4). ``label_gain`` is not tuned: it changes the gain of the libraries' own NDCG,
the early-stopping curve the pruner watches. YetiRank's ``permutations`` is a parameter of the
loss string, which ltrbench owns (the model name), so it is not in CatBoost's space.

TOML override (``--space FILE``): one table per library (or per model, which wins), which
replaces that library's whole space::

    [lightgbm]
    num_leaves = {low = 7, high = 63, log = true}
    learning_rate = {low = 0.02, high = 0.2, log = true}
    [xgboost]
    learning_rate = {low = 0.02, high = 0.2, log = true}
    "xgboost.lambdarank_pair_method" = {choices = ["topk", "mean"]}

Every error names the file and the key: an unknown parameter (the closest name), a parameter set
once for the run (``device``, ``seed``, ``n_threads``), a value of the wrong type, an empty
range (``low >= high``, no choices), a log range with ``low <= 0``, a bound the parameter's
range refuses.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

from bench.benchmark.config_text import check_rendered
from bench.data.toml import read_toml, unknown_key
from bench.errors import ConfigError
from bench.runners.libraries import LIBRARIES
from bench.runners.params import Params, param_spec
from bench.runners.raw_keys import raw_library_of, shared_name_of
from bench.runners.search_dimension import Dimension

#: Params fields a search may vary: not the raw library tables, the seed (``--seed``), the
#: thread count or the device (set once for a run).
TUNABLE = tuple(f.name for f in fields(Params)
                if f.name not in ("raw", "seed", "n_threads", "device"))
#: Not tuned, with the option that sets each instead.
NOT_TUNED = {"device": "the config's device key (device = \"cuda\")", "seed": "--seed",
             "n_threads": "--threads"}


#: The declared space of each GBDT library (ltrbench names; ``<library>.<key>`` raw ones): each
#: :class:`~bench.runners.libraries.Library` record's ``space``.
SPACES: dict[str, tuple[Dimension, ...]] = {name: lib.space for name, lib in LIBRARIES.items()
                                            if lib.space}


def default_space(library: str, objective: str | None = None) -> tuple[Dimension, ...]:
    """The declared space of ``library`` (a GBDT library of :data:`SPACES`), less what a model
    of ``objective`` does not read (:meth:`~bench.runners.libraries.Library.ignored`: LightGBM's
    rank_xendcg samples no pairs, so its tune does not search ``truncation_level``)."""
    if library not in SPACES:
        raise ConfigError(f"no declared search space for library {library!r}; give one in "
                          f"--space FILE as a [{library}] table")
    ignored = LIBRARIES[library].ignored(objective)
    return tuple(d for d in SPACES[library] if d.name not in ignored)


def grid_space(grid: Mapping[str, list[Any]]) -> tuple[Dimension, ...]:
    """The dimensions of a checked ``--grid`` (every value a choice, in order)."""
    return tuple(Dimension(name, "categorical", choices=tuple(values))
                 for name, values in grid.items())


#: The largest ``--space`` file read (a search space is a few lines; a bigger file is a mistake).
MAX_SPACE_BYTES = 1 << 20
#: The most choices of one dimension (a grid of them is checked point by point before any fit).
MAX_CHOICES = 10_000


def load_space_file(path: str | Path, libraries: Mapping[str, str]) -> dict[str, tuple[Dimension, ...]]:
    """The spaces of ``--space FILE`` for the tuned models (``libraries``: model -> library):
    model -> its dimensions, for the models whose library or name has a table (a model's table
    wins over its library's). A table naming neither a tuned model nor a library is refused, and
    so is a file none of whose tables applies to a tuned model (it would change nothing)."""
    p = Path(path)
    if not p.exists() and not p.is_symlink():
        raise ConfigError(f"--space {path}: no such file (expected a TOML file of search spaces)")
    if p.is_file() and p.stat().st_size > MAX_SPACE_BYTES:
        raise ConfigError(f"--space {path}: {p.stat().st_size:,} bytes; a search space file is at "
                          f"most {MAX_SPACE_BYTES:,} bytes")
    try:
        doc = read_toml(path)
        check_rendered(doc)  # a choice "{{ method }}" would be tried as a value
    except ConfigError as exc:
        msg = str(exc)
        raise ConfigError(f"--space {msg if msg.startswith(str(path)) else f'{path}: {msg}'}") \
            from None
    _check_tables(path, doc, libraries)
    out: dict[str, tuple[Dimension, ...]] = {}
    for model, library in libraries.items():
        found = model if model in doc else library if library in doc else None
        if found is not None:
            out[model] = parse_dimensions(doc[found], library, where=f"{path}: [{found}] ")
    return out


def _check_tables(path: str | Path, doc: Mapping[str, Any], libraries: Mapping[str, str]) -> None:
    """Every table of a ``--space`` file applies to a tuned model (``libraries``: model ->
    library): a table of a library that is not tuned, of a model that is not tuned, or of a
    library whose tuned models all have their own table would change nothing, and is refused
    (not ignored) so that the file says what the tune searched."""
    from bench.runners.registry import models

    tuned = ", ".join(libraries)
    if not doc:
        wanted = ", ".join(f"[{m}] or [{lib}]" for m, lib in libraries.items())
        raise ConfigError(f"{path}: no table: nothing for the tuned models; give {wanted}")
    for key, value in doc.items():
        if (key in LIBRARIES and key not in libraries.values()) or (
                key not in LIBRARIES and key in models() and key not in libraries):
            raise ConfigError(f"{path}: [{key}]: {key} is not tuned (tuned: {tuned}); remove the "
                              f"table, or tune it (--models)")
        if key not in LIBRARIES and key not in libraries:
            known = [*LIBRARIES, *libraries]
            raise ConfigError(f"{path}: {unknown_key('', key, known, noun='table').args[0]}")
        if not isinstance(value, Mapping):
            raise ConfigError(f"{path}: {key}: expected a table of parameters; got {value!r}")
        if key in LIBRARIES and all(m in doc for m, lib in libraries.items() if lib == key):
            own = ", ".join(f"[{m}]" for m, lib in libraries.items() if lib == key)
            raise ConfigError(f"{path}: [{key}]: not used: {own} replaces it for every tuned "
                              f"{key} model; remove one of the tables")


def parse_dimensions(values: Mapping[str, Any], library: str, *, where: str = "") -> tuple[Dimension, ...]:
    """The dimensions of one TOML table (see the module docstring), each checked."""
    if not values:
        raise ConfigError(f"{where}no parameters: an empty search space")
    return tuple(parse_dimension(name, spec, library, where=where) for name, spec in values.items())


def parse_dimension(name: str, spec: Any, library: str, *, where: str = "") -> Dimension:
    """One dimension ``name = {low, high, log}`` or ``{choices = [...]}``, checked."""
    at = f"{where}{name}"
    raw = _raw_key(name, library, at)
    if not isinstance(spec, Mapping):
        raise ConfigError(f"{at}: expected a table {{low = .., high = .., log = ..}} or "
                          f"{{choices = [..]}}; got {spec!r}")
    extra = set(spec) - {"low", "high", "log", "choices"}
    if extra:
        raise ConfigError(f"{at}: unknown key {sorted(extra)[0]!r}; valid: low, high, log, choices")
    if "choices" in spec:
        if set(spec) - {"choices"}:
            raise ConfigError(f"{at}: give either choices or low/high, not both")
        return _choices(name, spec["choices"], raw, at)
    if "low" not in spec or "high" not in spec:
        raise ConfigError(f"{at}: a range needs both low and high")
    low, high, log = spec["low"], spec["high"], spec.get("log", False)
    if not isinstance(log, bool):
        raise ConfigError(f"{at}.log: expected true or false; got {log!r}")
    kind = _range_kind(name, low, high, raw, at)
    if not low < high:
        raise ConfigError(f"{at}: empty range: low = {low!r} must be below high = {high!r} "
                          "(a fixed value goes in [model_params], not in the search space)")
    if log and low <= 0:
        raise ConfigError(f"{at}: a log range needs low > 0; got low = {low!r}")
    if not raw:
        for bound in (low, high):
            param_spec(name).check(int(bound) if kind == "int" else float(bound), at)
    return Dimension(name, kind, low, high, log)


def _raw_key(name: str, library: str, at: str) -> bool:
    """Whether ``name`` is a raw ``<library>.<key>``; else it must be a tunable Params field."""
    lib, dot, key = name.partition(".")
    if dot:
        if lib != library or not key:
            raise ConfigError(f"{at}: a raw parameter of this table is named {library}.<key>")
        return True
    if name in NOT_TUNED:
        raise ConfigError(f"{at}: cannot tune {name!r}: it is set once for the run, with "
                          f"{NOT_TUNED[name]}")
    if name not in TUNABLE:
        where = at[: -len(name)]
        own = library if library in LIBRARIES else None
        said = shared_name_of(name, own, where, TUNABLE)
        owner = None if said else raw_library_of(name, own)
        if owner is not None:  # 'extra_trees' was "did you mean 'n_trees'?"
            title = LIBRARIES[owner].title
            raise ConfigError(f"{at}: a raw {title} parameter; name it \"{owner}.{name}\" in a "
                              f"table of {title} ([{owner}] or one of its models)")
        said = said or unknown_key(where, name, TUNABLE, noun="parameter").args[0]
        raise ConfigError(f"cannot tune {name!r}: {said}")
    return False


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _range_kind(name: str, low: Any, high: Any, raw: bool, at: str) -> str:
    """``int`` or ``float``: the parameter's type (a raw one: int when both bounds are)."""
    for label, bound in (("low", low), ("high", high)):
        if not _number(bound):
            raise ConfigError(f"{at}.{label}: expected a finite number; got {bound!r}")
    if raw:
        return "int" if isinstance(low, int) and isinstance(high, int) else "float"
    kind = param_spec(name).kind
    if kind is int:
        for label, bound in (("low", low), ("high", high)):
            if not isinstance(bound, int):
                raise ConfigError(f"{at}.{label}: {name} is an integer; got {bound!r}")
        return "int"
    if kind is float:
        return "float"
    raise ConfigError(f"{at}: {name} takes {param_spec(name).expected()}: give choices = [...]")


def _choices(name: str, values: Any, raw: bool, at: str) -> Dimension:
    if not isinstance(values, list) or not values:
        raise ConfigError(f"{at}.choices: expected a non-empty list of values; got {values!r}")
    if len(values) > MAX_CHOICES:
        raise ConfigError(f"{at}.choices: {len(values):,} values; at most {MAX_CHOICES:,} (a "
                          "range, {low = .., high = ..}, samples between two bounds)")
    for v in values:
        if not isinstance(v, str | int | float | bool) or (isinstance(v, float) and not math.isfinite(v)):
            raise ConfigError(f"{at}.choices: {v!r} is not a string, number or boolean")
    given = list(values)
    if not raw:  # 'Linear' is linear (said once): 'linear' and 'Linear' repeat one value
        checked = [param_spec(name).check(v, f"{at}.choices") for v in values]
        values = [c if isinstance(v, str) else v for v, c in zip(values, checked, strict=True)]
    # 1 and 1.0 are one learning rate (never true and 1: a boolean is not a number here)
    keys = {(bool, v) if isinstance(v, bool) else (float, v) if isinstance(v, int | float)
            else (type(v), v) for v in values}
    if len(keys) != len(values):
        raise ConfigError(f"{at}.choices: a value repeats: {given!r}")
    return Dimension(name, "categorical", choices=tuple(values))


def overrides(sampled: Mapping[str, Any]) -> dict[str, Any]:
    """Keyword arguments of :meth:`~bench.runners.params.Params.with_overrides` for sampled
    values: raw ``<library>.<key>`` values gathered into that library's table."""
    out: dict[str, Any] = {}
    for name, value in sampled.items():
        lib, dot, key = name.partition(".")
        if dot:
            out.setdefault(lib, {})[key] = value
        else:
            out[name] = value
    return out


def space_table(spaces: Mapping[str, tuple[Dimension, ...]]) -> dict[str, dict[str, Any]]:
    """model -> {parameter: its TOML shape}: the spaces as recorded (``plan.json``)."""
    return {model: {d.name: d.as_dict() for d in dims} for model, dims in spaces.items()}


def within_quick(spaces: Mapping[str, tuple[Dimension, ...]], library: Mapping[str, str],
                 source: str) -> dict[str, tuple[Dimension, ...]]:
    """The spaces of a ``--quick`` tune, under quick mode's caps
    (:mod:`bench.benchmark.quick`: ``num_leaves`` <= 15, ...), as ``run --quick``
    trains: a declared dimension (``num_leaves`` 7..255) is narrowed to the cap; a value above
    the cap that the user gave (``--grid num_leaves=31,63``, a ``--space`` file) is refused, as
    ``run --quick --n-trees 100`` is.
    Before, a trial trained ``num_leaves = 200`` under ``--quick`` and the ``best.toml`` it
    wrote (``quick = true``) trained 15 leaves when run. ``library``: model -> its library."""
    from bench.benchmark.quick import QUICK_LIMITS, refuse_above_cap

    out: dict[str, tuple[Dimension, ...]] = {}
    for model, dims in spaces.items():
        kept = []
        for d in dims:
            cap = QUICK_LIMITS.get(d.name)
            values = d.choices if d.kind == "categorical" else (d.low, d.high)
            if cap is None or all(not isinstance(v, int | float) or v <= cap for v in values):
                kept.append(d)
            elif d in SPACES.get(library[model], ()) and d.low <= cap:
                kept.append(Dimension(d.name, d.kind, d.low, cap, d.log))
            else:
                big = max(v for v in values if isinstance(v, int | float))
                refuse_above_cap(f"{source} {d.name} = {big!r}", d.name, big,
                                 trained="what a run of the tuned config trains")
        out[model] = tuple(kept)
    return out
