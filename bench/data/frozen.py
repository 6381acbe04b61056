"""Checked values made read-only at every depth, and plain copies of them.

A value checked at the door (a custom ranker's ``params``, a raw library table, a config's
``model_params``) holds lists and tables; left mutable, a caller's ``params["layers"].append(5)``
after the checks would reach the trainer unchecked, change the config hash, or make the record
disagree with what was trained. :func:`frozen` copies such a value into :class:`FrozenDict` and
:class:`FrozenList` (a ``dict`` and a ``list``: they compare, print, pickle, copy and are written
to TOML and JSON as one), whose every change is a :class:`~bench.errors.ConfigError` saying what
to do instead; a tuple becomes a list, as a TOML file records it. :func:`thawed` gives the
plain, mutable copy that code may change (what a factory gets, what ``to_dict`` hands out).
A value nested deeper than :data:`MAX_NESTING` or holding itself is refused by name, not left
to a RecursionError.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NoReturn

from bench.errors import ConfigError

#: The deepest nesting of lists and tables a checked value may have (a TOML file's reader
#: refuses deeper ones too: :data:`bench.data.toml.MAX_NESTING`).
MAX_NESTING = 100


class _Frozen:
    """What both read-only types share: the name of the value and what to do instead."""

    where: str = "value"
    advice: str = ""

    def _refuse(self, *_: Any, **__: Any) -> NoReturn:
        raise ConfigError(f"{self.where}: checked values are read-only at every depth (a change "
                          f"would skip the checks and the record){'; ' + self.advice if self.advice else ''}")


class FrozenList(_Frozen, list[Any]):
    """A read-only list (see the module docstring)."""

    def __init__(self, items: Iterable[Any] = (), where: str = "value", advice: str = "") -> None:
        list.__init__(self, items)
        self.where, self.advice = where, advice

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _Frozen._refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _Frozen._refuse

    def __reduce__(self) -> tuple[Any, ...]:  # copy, deepcopy, pickle: rebuilt, no append
        return (FrozenList, (list(self), self.where, self.advice))


class FrozenDict(_Frozen, dict[str, Any]):
    """A read-only table (see the module docstring)."""

    def __init__(self, items: Any = (), where: str = "value", advice: str = "") -> None:
        dict.__init__(self, items)
        self.where, self.advice = where, advice

    __setitem__ = __delitem__ = __ior__ = _Frozen._refuse
    clear = pop = popitem = setdefault = update = _Frozen._refuse

    def __reduce__(self) -> tuple[Any, ...]:  # copy, deepcopy, pickle: rebuilt, no setitem
        return (FrozenDict, (dict(self), self.where, self.advice))


def frozen(value: Any, where: str, advice: str = "") -> Any:
    """``value`` copied read-only at every depth (lists and tuples as :class:`FrozenList`,
    mappings as :class:`FrozenDict`, each named ``where[...]`` in its error); a ConfigError
    naming ``where`` for a value nested deeper than :data:`MAX_NESTING` or holding itself."""
    return _frozen(value, where, advice, set(), 0)


def check_nesting(value: Any, where: str) -> None:
    """A ConfigError naming ``where`` when ``value`` (lists, tuples, mappings) is nested deeper
    than :data:`MAX_NESTING` or holds itself; checked before code that recurses into it."""
    _walk(value, where, set(), 0)


def _walk(value: Any, where: str, path: set[int], depth: int) -> None:
    if not isinstance(value, list | tuple | Mapping):
        return
    _enter(value, where, path, depth)
    try:
        for k, v in (value.items() if isinstance(value, Mapping) else enumerate(value)):
            _walk(v, f"{where}[{k!r}]" if isinstance(value, Mapping) else where, path, depth + 1)
    finally:
        path.discard(id(value))


def _enter(value: Any, where: str, path: set[int], depth: int) -> None:
    if id(value) in path:
        raise ConfigError(f"{where}: holds itself (a list or table inside itself); expected "
                          "values a config file can write")
    if depth >= MAX_NESTING:
        raise ConfigError(f"{where}: lists or tables nested more than {MAX_NESTING} deep; "
                          "expected a config's few levels")
    path.add(id(value))


def _frozen(value: Any, where: str, advice: str, path: set[int], depth: int) -> Any:
    if not isinstance(value, list | tuple | Mapping):
        return value
    _enter(value, where, path, depth)
    try:
        if isinstance(value, Mapping):
            return FrozenDict({k: _frozen(v, f"{where}[{k!r}]", advice, path, depth + 1)
                               for k, v in value.items()}, where, advice)
        return FrozenList([_frozen(v, where, advice, path, depth + 1) for v in value],
                          where, advice)
    finally:
        path.discard(id(value))


def thawed(value: Any) -> Any:
    """``value`` as plain dicts and lists at every depth (a tuple as a list): a new copy the
    caller may change."""
    if isinstance(value, Mapping):
        return {k: thawed(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [thawed(v) for v in value]
    return value
