"""Item metadata by item code: release years and genre sets.

Metadata is not a rating, so reading it leaks nothing about targets. Items of the ``items``
frame that have no rating are ignored; rated items missing from the frame have no year and no
genres. ``genres`` may be tuples of strings (the loaders' form) or ``|``-separated strings;
MovieLens' ``(no genres listed)`` and empty strings mean no genre.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import NDArray

NO_GENRES = "(no genres listed)"


@dataclass(frozen=True, eq=False)
class ItemGenres:
    """Genre sets as CSR over item codes: ``genre[indptr[i]:indptr[i + 1]]`` are item i's."""

    indptr: NDArray[np.int64]
    genre: NDArray[np.int64]
    names: tuple[str, ...]

    @property
    def n_genres(self) -> int:
        return len(self.names)


def _codes(items: pd.DataFrame, item_ids: NDArray[np.int64]) -> NDArray[np.int64]:
    codes: NDArray[np.int64] = pd.Index(item_ids).get_indexer(
        pd.to_numeric(items["item"], errors="coerce")
    )
    return codes


def item_years(items: pd.DataFrame | None, item_ids: NDArray[np.int64]) -> NDArray[np.float64] | None:
    """Release year per item code (NaN where unknown); ``None`` without a ``year`` column. A
    ``year`` column of dates (release dates, ``datetime64``) gives their UTC calendar years
    (their nanoseconds were read as years)."""
    if items is None or "year" not in items.columns or "item" not in items.columns:
        return None
    codes = _codes(items, item_ids)
    col = items["year"]
    if col.dtype.kind == "M" or isinstance(col.dtype, pd.DatetimeTZDtype):  # release dates
        col = (col.dt.tz_convert("UTC") if getattr(col.dt, "tz", None) is not None else col).dt.year
    years = pd.to_numeric(col, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    out = np.full(item_ids.shape[0], np.nan)
    ok = codes >= 0
    out[codes[ok]] = years[ok]
    return out if np.isfinite(out).any() else None


def item_genres(items: pd.DataFrame | None, item_ids: NDArray[np.int64]) -> ItemGenres | None:
    """Genre sets per item code; ``None`` when no rated item has a genre."""
    if items is None or "genres" not in items.columns or "item" not in items.columns:
        return None
    codes = _codes(items, item_ids)
    ok = codes >= 0
    g = items["genres"][ok].map(_as_tuple)
    g.index = codes[ok]
    flat = g.explode().dropna()
    flat = flat[(flat != "") & (flat != NO_GENRES)]
    if flat.empty:
        return None
    names = tuple(sorted(set(flat.tolist())))
    gid = pd.Index(names).get_indexer(flat.to_numpy())
    pairs = np.unique(flat.index.to_numpy(dtype=np.int64) * len(names) + gid)
    owner, genre = np.divmod(pairs, len(names))
    indptr = np.zeros(item_ids.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(owner, minlength=item_ids.shape[0]), out=indptr[1:])
    return ItemGenres(indptr=indptr, genre=genre.astype(np.int64), names=names)


def _as_tuple(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(x.strip() for x in value.split("|") if x.strip())
    if isinstance(value, list | tuple | np.ndarray):
        return tuple(str(x) for x in value)
    return ()


def calendar_year(timestamp: int) -> int:
    """The UTC calendar year (proleptic Gregorian) of a Unix timestamp, of any year the
    readers' +-10^12 seconds reach: NumPy's calendar, where :mod:`datetime` stops at the years
    1..9999 (seconds of 1e11 and more are what milliseconds of 1973..2001 read as)."""
    year = np.datetime64(int(timestamp), "s").astype("datetime64[Y]").astype(np.int64)
    return int(year) + 1970
