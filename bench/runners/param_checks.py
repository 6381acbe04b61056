"""Checks of a parameter set beyond each field's range (:mod:`bench.runners.param_ranges`):
raw library values as a TOML file holds them (finite numbers), a learning-rate schedule that
stays above a library's floor in every round, and what needs the data (rows a library samples).
The parameter set is :class:`bench.runners.params.Params` (read by attribute here: this module
sits below it)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from bench.errors import ConfigError
from bench.runners.libraries import LIBRARIES

#: The deepest nesting of arrays and tables in a raw value (as the TOML reader's limit).
MAX_RAW_NESTING = 100


def check_raw_value(value: Any, where: str, depth: int = 0) -> None:
    """A raw library value is one a TOML file holds and reads back as itself: a string, a
    number, a boolean, or an array (a list or tuple) or table of them. ``None`` (no TOML value:
    the Python packages drop it, so it would mean "not set" here and nothing in the recorded
    config), a set, ``Decimal``, bytes or a date are refused, naming the key; so are nan and
    inf, as numbers or as text the libraries read as such (``"nan"``, ``"inf"``, ``"1e400"``), and
    a text holding NUL."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"{where}: expected a finite number; got {value!r}: the libraries read "
                          "nan and inf as numbers without a check of their own, and no parameter "
                          "documents them")
    if isinstance(value, str) and _non_finite_text(value):  # "nan" read as the number nan
        raise ConfigError(f"{where}: expected a finite number; got {value!r}, text the libraries "
                          "read as a number that is not finite (C's strtod), and no parameter "
                          "documents nan or inf")
    if isinstance(value, str) and "\x00" in value:
        raise ConfigError(f"{where}: {value!r} holds a NUL character; expected text without one "
                          "(the libraries read parameters as C strings, which end at NUL: the "
                          "rest would be dropped, in LightGBM every parameter after it too)")
    if isinstance(value, bool | int | float | str):
        return
    if depth >= MAX_RAW_NESTING:
        raise ConfigError(f"{where}: arrays or tables nested more than {MAX_RAW_NESTING} deep; "
                          "expected a library parameter's few levels")
    if isinstance(value, list | tuple):
        for item in value:
            check_raw_value(item, where, depth + 1)
        return
    if isinstance(value, Mapping) and all(isinstance(k, str) for k in value):
        for k, item in value.items():
            check_raw_value(item, f"{where}.{k}", depth + 1)
        return
    raise ConfigError(f"{where}: expected a string, number or boolean (or an array or table of "
                      f"them), as a TOML file holds; got {value!r} (a {type(value).__name__})"
                      + (": leave the key out to keep the library's default" if value is None
                         else ""))


def lowest_rate(p: Any) -> float:
    """The smallest learning rate of any round of ``p``'s schedule
    (:meth:`Params.learning_rate_at` of the last round; the rate itself without a decay)."""
    if p.learning_rate_decay <= 0:
        return float(p.learning_rate)
    return float(p.learning_rate_at(p.n_trees - 1))


def check_schedule_floor(p: Any, floor: float, why: str, where: str = "") -> None:
    """A ConfigError naming ``learning_rate_min`` when a decaying rate would go below ``floor``
    in some round (the rate itself is checked by its range), or when the floor is above the
    rate itself: every round of a decaying schedule then trained at the floor while the run
    recorded ``learning_rate``, and without a decay no round used the floor at all."""
    if p.learning_rate_min > p.learning_rate:
        raise ConfigError(f"{where}learning_rate_min = {p.learning_rate_min!r} is above "
                          f"learning_rate = {p.learning_rate!r}: round i trains at "
                          "max(learning_rate_min, learning_rate - learning_rate_decay * i), so "
                          "the floor would replace the rate; expected learning_rate_min <= "
                          "learning_rate (the rate of round 0)")
    low = lowest_rate(p)
    if p.learning_rate_decay > 0 and p.learning_rate >= floor and low < floor:
        raise ConfigError(f"{where}learning_rate_min: the rate would decay to {low!r} by round "
                          f"{p.n_trees} (learning_rate = {p.learning_rate!r}, "
                          f"learning_rate_decay = {p.learning_rate_decay!r}, learning_rate_min = "
                          f"{p.learning_rate_min!r}); expected a floor of at least {floor!r} "
                          f"({why})")


def check_rows(p: Any, library: str, n_rows: int, *, split: str = "train") -> None:
    """What needs the data: LightGBM bags ``int(subsample * rows)`` rows and fails with none
    (``Check failed: (num_data) > (0)``, ``src/io/dataset.cpp``); CatBoost draws each row with
    probability ``subsample`` and fails when a draw holds none ("Too few sampling units",
    ``catboost/private/libs/algo/tensor_search_helpers.cpp``), nearly sure over many rounds when
    ``subsample * rows < 1``."""
    lib = LIBRARIES.get(library)
    if lib is not None and lib.samples_rows and p.subsample < 1 and int(p.subsample * n_rows) < 1:
        raise ConfigError(f"subsample = {p.subsample!r}: {lib.title} would sample no row of the "
                          f"{n_rows} rows of the {split} split; expected subsample >= "
                          f"{1 / max(n_rows, 1):.3g} (or 1: no sampling)")


def _non_finite_text(text: str) -> bool:
    """Whether ``text`` reads as a number that is not finite (``"nan"``, ``" -Infinity"``,
    ``"1e400"``): LightGBM and XGBoost parse a parameter's text with C's strtod."""
    try:
        return not math.isfinite(float(text))
    except ValueError:
        return False
