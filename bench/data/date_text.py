"""Text dates of a ratings table's timestamp column, read one way whatever the row.

``pandas.to_datetime(..., format="mixed")`` guesses each cell's form on its own: in one column
``01/02/2020`` became 2 January (month first) and ``13/02/2020`` 13 February (day first, as no
month 13 exists), so a day-first export (most of Europe) had its dates silently reordered and a
temporal split put later ratings in the history. Here a cell is read as ISO 8601 when it is
one (``2020-01-02``, ``2020-01-02T10:00:00+02:00``, ``2020/01/02``: year first, one reading);
any other cell is read month first and day first, and a cell whose two readings differ is
refused as ambiguous, naming both readings and asking for ISO 8601. A cell that is no date at
all is refused as before. The one rule of every ratings reader: the local reader
(:func:`bench.data.tabular.timestamp_cells`) and Dask partitions (:mod:`bench.data.dask_cells`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def text_dates(col: pd.Series) -> tuple[pd.Series, int | None, str | None]:
    """``col``'s text cells as UTC dates, and the position and reason of the first cell that is
    no date or an ambiguous one (``None, None`` when every cell is a date read one way)."""
    cells = col.astype(str).str.strip().reset_index(drop=True)
    parsed = pd.to_datetime(cells, utc=True, errors="coerce", format="ISO8601")
    other = parsed.isna().to_numpy(dtype=bool)
    problems: list[tuple[int, str]] = []
    if other.any():
        rest = cells[other]
        month = pd.to_datetime(rest, utc=True, errors="coerce", format="mixed")
        day = pd.to_datetime(rest, utc=True, errors="coerce", format="mixed", dayfirst=True)
        none = month.isna().to_numpy(dtype=bool)
        if none.any():
            i = int(rest.index[np.flatnonzero(none)[0]])
            problems.append((i, f"timestamp {cells[i]!r} is neither seconds since the epoch "
                                "nor a date/time"))
        differ = ~none & (month != day).to_numpy(dtype=bool)
        if differ.any():
            k = int(np.flatnonzero(differ)[0])
            i = int(rest.index[k])
            problems.append((i, ambiguous_message(cells[i], month.iloc[k], day.iloc[k])))
        parsed = parsed.copy()
        parsed[other] = month
    if problems:
        i, why = min(problems)
        return parsed, i, why
    return parsed, None, None


def ambiguous_message(cell: str, month: pd.Timestamp, day: pd.Timestamp) -> str:
    """The refusal of a date whose month-first and day-first readings differ."""
    return (f"date {cell!r} is ambiguous: {month:%Y-%m-%d} read month first, {day:%Y-%m-%d} "
            "read day first (pandas guesses each cell apart, so 01/02 and 13/02 of one column "
            "would be read in different orders); write dates as ISO 8601 (YYYY-MM-DD, e.g. "
            f"{day:%Y-%m-%d}) or as seconds since the epoch")


__all__ = ["ambiguous_message", "text_dates"]
