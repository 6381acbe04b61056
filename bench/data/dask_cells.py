"""The rating and text timestamp cells of one Dask partition, under the local reader's grammar.

The local reader (:mod:`bench.data.tabular`) holds a rating column to the data files' number
grammar (:func:`~bench.data.tabular.number_cells`: plain decimals, finite) and reads a text
timestamp column of dates as seconds (:func:`~bench.data.tabular.timestamp_cells`). Dask read a
CSV rating with pandas' float parser, which takes ``True`` as 1.0 (a rating read where the local
reader refuses the file), refused a Parquet rating column of text or decimals, and refused CSV
and Parquet text dates ("not a whole number"). Here each partition's cells go through those same
two functions: one grammar on both engines. The plain-number check is vectorised; the local
function is called on the first bad cell, so its words are the refusal.
"""

from __future__ import annotations

import decimal
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from bench.data.inputs import PLAIN_FLOAT
from bench.errors import DataError

#: A plain decimal number (:data:`bench.data.inputs.PLAIN_FLOAT`) between blanks.
_PLAIN = rf"\s*{PLAIN_FLOAT}\s*"


def rating_problem(value: float) -> str | None:
    """Why ``value`` is no rating, or None: not finite, or beyond +-2^53
    (:data:`bench.data.ratings.MAX_RATING`, the local rule: the history features sum squares)."""
    from bench.data.ratings import MAX_RATING

    if not np.isfinite(value):
        return f"value {value!r} is not a finite number"
    if abs(value) >= MAX_RATING:  # 2^53 + 1 reads as 2^53
        return (f"rating {value!r} is at or beyond +-2^53 (9.0e15): expected ratings a float64 "
                "holds exactly, whose squares the history features can sum")
    return None


def _places(where: str | None, row: Callable[[int], int | None]
            ) -> tuple[Path | None, Callable[[int], dict[str, object]]]:
    def at(i: int) -> dict[str, object]:
        r = row(i)
        return {} if r is None else {"row": r}

    return (None if where is None else Path(where)), at


def rating_values(cells: pd.Series, where: str | None, row: Callable[[int], int | None],
                  src: str) -> np.ndarray:
    """A partition's rating column as float64: text (CSV cells, a Parquet string column) and
    decimals under :func:`bench.data.tabular.number_cells`' grammar, then finite and within
    +-2^53; a DataError naming ``where``, the row (``row(k)``) and ``src`` otherwise."""
    if cells.dtype.kind not in "iuf":
        ok = cells.astype(str).str.fullmatch(_PLAIN).to_numpy(dtype=bool, na_value=False)
        if not ok.all():  # the local reader's own words, at the first bad cell
            from bench.data.tabular import number_cells

            path, at = _places(where, row)
            number_cells(cells.reset_index(drop=True), path, src, at)
    from bench.data.ratings import MAX_RATING

    r: np.ndarray = pd.to_numeric(cells, errors="coerce").to_numpy(dtype=np.float64,
                                                                   na_value=np.nan)
    bad = ~np.isfinite(r) | (np.abs(np.nan_to_num(r)) >= MAX_RATING)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        cell = cells.iloc[k]
        why = rating_problem(float(r[k])) if np.isfinite(r[k]) else \
            f"value {cell.item() if isinstance(cell, np.generic) else cell!r} is not a finite number"
        raise DataError(str(why), path=where, row=row(k), column=src)
    return r


def decimals_as_numbers(part: pd.DataFrame, src: str | None) -> pd.DataFrame:
    """``part`` with a column ``src`` of Parquet decimals (``Decimal`` cells, Arrow-backed) as
    float64, as
    the local reader reads them (:func:`bench.data.tabular.timestamp_cells`: the numbers, then
    held whole and within range); any other column as it is."""
    col = part[src] if src is not None and src in part.columns else None
    first = col.dropna().head(1).tolist() if col is not None and col.dtype.kind == "O" else []
    if not (first and isinstance(first[0], decimal.Decimal)):
        return part
    out = part.copy()
    out[src] = pd.to_numeric(col).astype(np.float64)
    return out


def is_date_text(cell: object) -> bool:
    """Whether ``cell`` is text that is no number (a date, or nothing): read by the local
    reader's date rule (:func:`text_seconds`), not as seconds."""
    return isinstance(cell, str) and pd.isna(pd.to_numeric(cell.strip(), errors="coerce"))


def text_seconds(cells: pd.Series, where: str | None, row: Callable[[int], int | None],
                 src: str) -> np.ndarray:
    """A text timestamp column holding a cell that is no number, under
    :func:`bench.data.tabular.timestamp_cells`: dates parsed (UTC) as whole seconds; a cell
    that is no date, or a date beside numbers, refused naming ``where``, the row and ``src``."""
    from bench.data.tabular import timestamp_cells

    path, at = _places(where, row)
    seconds: np.ndarray = timestamp_cells(cells.astype(object).reset_index(drop=True), path,
                                          src, at)
    return seconds


def date_line_problem(cell: str, numbers_seen: bool) -> str | None:
    """Why a CSV timestamp cell that is no number is refused by the local reader, or None
    (a date, in a column of dates so far): the words of
    :func:`bench.data.tabular.timestamp_cells`, for a line-by-line scan."""
    if not cell.strip():
        return "missing value"
    from bench.data.date_text import text_dates

    _, bad, why = text_dates(pd.Series([cell]))  # no date, or an ambiguous one
    if bad is not None:
        return why
    if numbers_seen:
        return (f"timestamp {cell!r} is not a number of seconds since the epoch, as the other "
                "cells of the column are")
    return None


__all__ = ["date_line_problem", "decimals_as_numbers", "is_date_text", "rating_problem", "rating_values",
           "text_seconds"]
