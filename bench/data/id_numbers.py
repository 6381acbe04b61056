"""Ids a ratings table's reader numbers: numbers by exact decimal value, texts by their text.

:mod:`bench.data.tabular` keeps a column of whole numbers within int64 as it is; any other id
column (text ids such as e-mails, UUIDs or ASINs, or numbers a float64 or int64 cannot carry,
``1e20``) is numbered 0, 1, ... here, in the sorted order of the ids' keys (every number before
every text, numbers by exact value, texts by code point), so the numbers, and with them the
adapters' ties in time broken by item number, never depend on the order of the table's rows.
A cell that spells a number keeps its exact decimal value as its key (``7``, ``07`` and
``7.0`` are one id); ``external_id`` is the first spelling of each id. The Dask reader numbers
with the same functions (:mod:`bench.data.dask_ids`).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from pathlib import Path

import numpy as np
import pandas as pd

from bench.data.inputs import INT64_MAX
from bench.errors import DataError

#: A numeric id spelling: a plain decimal number, or an infinity.
_NUMBER_ID = re.compile(r"[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity)",
                        re.IGNORECASE)


def _numbered(keys: list[object], shown: list[str], role: str) -> tuple[np.ndarray, pd.DataFrame]:
    """Ids numbered 0, 1, ... in the sorted order of their keys (numbers by exact value, then
    texts by code point: :func:`_key_order`), so the numbers, and the adapters' ties in time
    broken by item number, do not depend on the order of the table's rows (a table sorted by
    item and the same table sorted by user are one table); ``external_id`` is the first
    spelling of each key."""
    codes, uniques = pd.factorize(pd.Series(keys, dtype=object), sort=False)
    first = np.unique(codes, return_index=True)[1]
    order = sorted(range(len(uniques)), key=lambda k: _key_order(uniques[k]))
    rank = np.empty(len(uniques), dtype=np.int64)
    rank[np.asarray(order, dtype=np.int64)] = np.arange(len(uniques), dtype=np.int64)
    mapping = pd.DataFrame({role: np.arange(len(uniques), dtype=np.int64),
                            "external_id": np.asarray([shown[first[k]] for k in order],
                                                      dtype=object)})
    return rank[codes], mapping


def _key_order(key: object) -> tuple[int, Decimal | str]:
    """A key of :func:`_exact_key` (or ``("text", cell)``) as a sort key: every number before
    every text, numbers by exact value, texts by code point."""
    if isinstance(key, tuple) and key and key[0] == "text":
        return (1, str(key[1]))
    if key == 0:
        return (0, Decimal(0))
    if isinstance(key, str):  # "inf" / "-inf"
        return (0, Decimal("-Infinity" if key.startswith("-") else "Infinity"))
    assert isinstance(key, tuple)
    sign, digits, exponent = key
    return (0, Decimal((sign, tuple(int(d) for d in digits), exponent)))


def _by_value(cells: list[str], p: Path, name: str, where,  # type: ignore[no-untyped-def]
              role: str) -> tuple[np.ndarray, pd.DataFrame | None]:
    """Numeric ids compared by exact decimal value (``1``, ``1.0`` and ``+1`` are one id;
    ``1e20``, ``2e20`` and ``inf`` three): kept as int64 when every one is a whole number within
    int64, else numbered. A fractional value is refused; a cell that is no number makes the
    column text ids."""
    keys: list[object] = []
    for i, cell in enumerate(cells):
        key = _exact_key(cell) if _NUMBER_ID.fullmatch(cell) else None
        if key is None:  # not a number: text ids beside numbers
            return _mixed_keys(cells, role)
        if isinstance(key, tuple) and key[2] < 0:
            raise DataError(f"id {cell!r} is not an integer", path=p, column=name, **where(i))
        keys.append(key)
    whole = [_as_int64(k) for k in keys]
    if all(w is not None for w in whole):
        return np.asarray(whole, dtype=np.int64), None
    return _numbered(keys, cells, role)


def _mixed_keys(cells: list[str], role: str) -> tuple[np.ndarray, pd.DataFrame]:
    """Text ids beside numeric ones, numbered: a cell that spells a number keeps its exact
    decimal value as its key (``7``, ``07`` and ``7.0`` one id, as in a column of numbers only:
    a text id elsewhere in the column must not split them), any other cell its text."""
    uniq = pd.unique(pd.Series(cells, dtype=object))
    key_of = {u: _exact_key(u) if _NUMBER_ID.fullmatch(u) else None for u in uniq}
    keys = [("text", c) if key_of[c] is None else key_of[c] for c in cells]
    return _numbered(keys, cells, role)


def _as_int64(key: object) -> int | None:
    """The integer an exact key (:func:`_exact_key`) spells, if it is within int64."""
    if key == 0:
        return 0
    if not isinstance(key, tuple) or key[2] > 19:
        return None
    value = int(key[1]) * 10 ** key[2] * (-1 if key[0] else 1)
    return value if -(2**63) <= value <= INT64_MAX else None


def _exact_key(cell: str) -> object:
    """One key per exact decimal value: (sign, digits without trailing zeros, exponent), ``0``,
    or the signed infinity; no context arithmetic, so no rounding at any length."""
    try:
        d = Decimal(cell)
    except InvalidOperation:
        return None
    if d.is_infinite():
        return "-inf" if d.is_signed() else "inf"
    if d.is_zero():
        return 0
    sign, digits, exponent = d.as_tuple()
    text = "".join(map(str, digits))
    stripped = text.rstrip("0")
    return (sign, stripped, int(exponent) + len(text) - len(stripped))
