"""Text dates of a ratings table's timestamp column, read one way whatever the row or the day.

``pandas.to_datetime(..., format="mixed")`` guesses each cell's form on its own: in one column
``01/02/2020`` became 2 January (month first) and ``13/02/2020`` 13 February (day first, as no
month 13 exists), so a day-first export (most of Europe) had its dates silently reordered and a
temporal split put later ratings in the history; a time without a date (``10:30``, a Parquet
``time64`` column) became that time *today*, a different number on every run. Here a cell is
read as ISO 8601 when it is one (``2020-01-02``, ``2020-01-02T10:00:00+02:00``, ``2020/01/02``:
year first, one reading); any other cell is read month first and day first, and refused when the
two readings differ (ambiguous) or when it lacks a year, month or day (the reading would depend
on the day it is made). A cell that is no date at all is refused as before. The one rule of
every ratings reader: the local reader (:func:`bench.data.tabular.timestamp_cells`) and Dask
partitions (:mod:`bench.data.dask_cells`).
"""

from __future__ import annotations

import datetime as dt
import re

import numpy as np
import pandas as pd

#: Two defaults with every date field different: a field a cell lacks shows as a difference.
_DEFAULTS = (dt.datetime(2001, 1, 1), dt.datetime(2002, 2, 2))
#: A date written year first (``2024-03-10 10:00:00 UTC``, BigQuery's export): one reading,
#: year, month, day (dateutil's ``dayfirst`` read it as year, day, month: 2024-10-03).
_YEAR_FIRST = re.compile(r"[0-9]{4}([-/.])[0-9]{1,2}\1[0-9]{1,2}(?![0-9])")
#: A zone written after a time as letters (``EST``, ``CEST``, ``America/Los_Angeles``).
_ZONE_WORD = re.compile(r"[0-9]:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?\s*"
                        r"([A-Z]{2,5}|[A-Z][A-Za-z]+/[A-Za-z_/+-]+)$")


def text_dates(col: pd.Series) -> tuple[np.ndarray, int | None, str | None]:
    """``col``'s text cells as whole seconds since the epoch (UTC, floored), and the position
    and reason of the first cell that is no date, an ambiguous one or one without a full date
    (``None, None`` when every cell is a date read one way)."""
    from bench.data.ratings import datetime_seconds

    cells = col.astype(str).str.strip().reset_index(drop=True)
    iso = pd.to_datetime(cells, utc=True, errors="coerce", format="ISO8601")
    other = iso.isna().to_numpy(dtype=bool)
    seconds = np.zeros(cells.shape[0], dtype=np.int64)
    if not other.all():
        seconds[~other] = datetime_seconds(iso[~other])
    if not other.any():
        return seconds, None, None
    rest = cells[other]
    month = pd.to_datetime(rest, utc=True, errors="coerce", format="mixed")
    none = month.isna().to_numpy(dtype=bool)
    if none.any():
        i = int(rest.index[np.flatnonzero(none)[0]])
        return seconds, i, _no_date(str(cells[i]))
    for i in rest.index:  # in row order: the first cell read two ways is refused
        why = _two_readings(str(cells[i]))
        if why is not None:
            return seconds, int(i), why
    seconds[other] = datetime_seconds(month)
    return seconds, None, None


def _two_readings(cell: str) -> str | None:
    """Why ``cell`` (a date pandas reads, not ISO 8601) is refused, or None: a field it lacks
    (filled from the day of the run) or a day and month that can be read either way."""
    from dateutil import parser

    try:
        a, b = (parser.parse(cell, default=d) for d in _DEFAULTS)
        day = parser.parse(cell, default=_DEFAULTS[0], dayfirst=True)
    except (ValueError, OverflowError):  # pandas read it its own way: its reading stands
        return None
    if _YEAR_FIRST.match(cell):  # year, month, day: read one way (pandas' reading stands)
        return None
    if (a.year, a.month, a.day) != (b.year, b.month, b.day):
        return (f"timestamp {cell!r} holds no full date (year, month and day): the missing part "
                "would be taken from the day of the run; expected a date/time such as "
                "2020-01-31T10:30:00Z, or seconds since the epoch")
    if (a.year, a.month, a.day) != (day.year, day.month, day.day):
        return ambiguous_message(cell, a, day)
    return None


def _no_date(cell: str) -> str:
    """Why a cell pandas cannot read as a date is refused: a zone named by letters (an
    abbreviation such as ``EST`` or ``IST`` names no one offset; a zone name gives no offset
    without a zone database, and a wall time there is two instants in a repeated DST hour),
    else no date at all."""
    zone = _ZONE_WORD.search(cell)
    if zone is not None and zone.group(1).upper() not in ("UTC", "GMT", "Z"):
        return (f"timestamp {cell!r}: the time zone {zone.group(1)!r} is a name, not an "
                "offset (an abbreviation such as EST or IST means different offsets in different "
                "places); expected the offset written out (2024-03-10T10:00:00-05:00), UTC or Z")
    return f"timestamp {cell!r} is neither seconds since the epoch nor a date/time"


def ambiguous_message(cell: str, month: dt.datetime, day: dt.datetime) -> str:
    """The refusal of a date whose month-first and day-first readings differ."""
    return (f"date {cell!r} is ambiguous: {month:%Y-%m-%d} read month first, {day:%Y-%m-%d} "
            "read day first (pandas guesses each cell apart, so 01/02 and 13/02 of one column "
            "would be read in different orders); write dates as ISO 8601 (YYYY-MM-DD, e.g. "
            f"{day:%Y-%m-%d}) or as seconds since the epoch")


__all__ = ["ambiguous_message", "text_dates"]
