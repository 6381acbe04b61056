"""The tables of a checked :class:`~bench.benchmark.config.RunConfig` made read-only.

A ``RunConfig`` is frozen, but its ``model_params`` and ``custom_models`` are tables: a user's
``config.model_params["lightgbm-lambdarank"]["num_leaves"] = 0`` after the checks ran would reach
the trainer unchecked (the promise is one check, at the door). :class:`ReadOnlyTable` is a
``dict`` (it compares, prints, pickles, copies and is written to TOML and JSON as one) whose
every change is a :class:`~bench.errors.ConfigError` that says what to do instead:
``dataclasses.replace(config, model_params={...})``, which checks the new value.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, NoReturn

from bench.data.frozen import frozen
from bench.data.frozen import thawed as plain
from bench.errors import ConfigError


class ReadOnlyTable(dict[str, Any]):
    """A table of a checked config (``where`` names it in the error a change raises)."""

    where: str = "model_params"

    def _refuse(self, *_: Any, **__: Any) -> NoReturn:
        raise ConfigError(f"{self.where}: the tables of a checked RunConfig are read-only (a "
                          "change would skip the checks); make a new config with "
                          f"dataclasses.replace(config, {self.where.split('[')[0]}={{...}}), "
                          "which checks it")

    __setitem__ = __delitem__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse
    __ior__ = _refuse

    def __reduce__(self) -> tuple[Any, ...]:  # copy, deepcopy, pickle: a new table, no setitem
        return (read_only, (dict(self), self.where))


def read_only(table: Mapping[str, Any], where: str, *, nested: bool = True) -> ReadOnlyTable:
    """``table`` as a :class:`ReadOnlyTable` named ``where``; its nested tables too, unless
    ``nested`` is false (a custom model's ``params``: the factory gets a plain copy)."""
    out = ReadOnlyTable({k: read_only(v, f"{where}[{k!r}]") if nested and isinstance(v, dict)
                         else _advised(v, f"{where}[{k!r}]") if nested and isinstance(v, list)
                         else v for k, v in table.items()})
    out.where = where
    return out


def _advised(value: list[Any], where: str) -> Any:
    """A list of a table (a raw library value, ``ignored_features = [2]``) read-only at every
    depth, its error saying what :class:`ReadOnlyTable` says."""
    return frozen(value, where, f"make a new config with dataclasses.replace(config, "
                                f"{where.split('[')[0]}={{...}}), which checks it")


def frozen_models(models: Mapping[str, Any]) -> ReadOnlyTable:
    """A config's ``custom_models`` read-only, and each model's ``params`` at their top level
    (``config.custom_models["mine"].params["alpha"] = 5`` would reach the factory unchecked)."""
    out = {}
    for name, model in models.items():
        out[name] = copy.copy(model)  # the caller's own CustomModel left as it was
        object.__setattr__(out[name], "params", read_only(
            model.params, f"custom_models[{name!r}].params", nested=False))
    return read_only(out, "custom_models", nested=False)


def thawed(table: Mapping[str, Any]) -> dict[str, Any]:
    """``table`` as plain dicts and lists at every depth (what ``to_dict`` hands out: the
    caller's to change)."""
    return plain(table)  # type: ignore[no-any-return]
