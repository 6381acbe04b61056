"""Dates finer than a second that whole seconds would tie: one user's order lost, said.

A ratings table's dates become whole seconds since the epoch, floored
(:func:`bench.data.ratings.datetime_seconds`, the one time unit of the adapters). Two ratings of
one user at different instants of one second (``12:01:00.100`` and ``12:01:00.900``, common in
an event log exported at millisecond resolution) then tie: the temporal split and the recency
features order them by item id instead of by time (the documented rule for tied times) and
``--duplicates last`` keeps the later line, so the later rating can land in an earlier
partition. :func:`warn_merged_instants` says so (:class:`TiedInstantsWarning`), naming how many
ratings are tied that way, the first user, both places and the two times. Sub-second parts
that tie no two ratings of one user are floored without a word, as documented. (Integer
milliseconds are no way out: the readers take them only before 2001,
:data:`bench.data.tabular.MAX_SECONDS`.)
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from bench.errors import DataError


class TiedInstantsWarning(UserWarning):
    """Ratings of one user at different instants of one second, tied as whole seconds."""


#: A text date with a fraction of a second (``12:01:00.900``, ``12:01:00,9``).
_FRACTION = re.compile(r"\d:\d\d[.,]\d")


def instants(col: pd.Series) -> np.ndarray | None:
    """The column's dates as int64 nanoseconds since the epoch (UTC) where any cell has a part
    finer than a second, else ``None`` (nothing that flooring could tie): a date column, or
    text dates written with a fraction of a second (ISO 8601)."""
    if zoned(col):
        col = col.dt.tz_convert("UTC").dt.tz_localize(None)
    elif col.dtype.kind != "M":
        if col.dtype.kind not in "OUS" and str(col.dtype) not in ("string", "large_string"):
            return None
        text = col.astype(str)
        marks = text.str.contains(".", regex=False) | text.str.contains(",", regex=False)
        if not marks.any() or not text[marks].str.contains(_FRACTION).any():  # cheap test first
            return None
        try:
            col = pd.to_datetime(text, utc=True, format="ISO8601").dt.tz_localize(None)
        except (ValueError, TypeError, OverflowError):
            return None  # the date reader's own grammar names what it cannot read
    try:
        ns = col.to_numpy().astype("datetime64[ns]").astype(np.int64)
    except (ValueError, OverflowError):  # dates beyond int64 nanoseconds (after 2262)
        return None
    return ns if bool((ns % 1_000_000_000 != 0).any()) else None


def zoned(col: pd.Series) -> bool:
    """Whether ``col`` holds dates with a time zone: ``datetime64[ns, UTC]`` or a pyarrow
    ``timestamp[ms, tz=...]`` column (``pd.read_parquet(..., dtype_backend="pyarrow")``), which
    NumPy can only read once converted to UTC without the zone (else "no explicit
    representation of timezones" is warned at the user)."""
    if isinstance(col.dtype, pd.DatetimeTZDtype):
        return True
    arrow = getattr(col.dtype, "pyarrow_dtype", None)
    return col.dtype.kind == "M" and getattr(arrow, "tz", None) is not None


def warn_merged_instants(users: np.ndarray, seconds: np.ndarray, col: pd.Series, *,
                         shown: pd.Series | None = None, path: object = None,
                         column: str = "timestamp",
                         where: Callable[[int], dict[str, Any]] | None = None) -> None:
    """Warn of ratings of one user (``users``) whose dates in ``col`` differ but fall into
    one whole second (``seconds``, as the reader floored them); ``shown``: the user ids as
    written (for the message); ``where(i)`` places row ``i`` (``{"line": 7}``; default its
    1-based row)."""
    ns = instants(col)
    if ns is None:
        return
    place: Callable[[int], dict[str, Any]] = (
        where if where is not None else (lambda i: {"row": i + 1}))
    frame = pd.DataFrame({"u": users, "s": seconds, "ns": ns})
    spread = frame.groupby(["u", "s"], sort=False)["ns"].transform("nunique")
    tied = np.flatnonzero(spread.to_numpy() > 1)
    if not tied.shape[0]:
        return
    first = int(tied[0])
    same = frame.index[(frame["u"] == frame["u"].iat[first]) & (frame["s"] == frame["s"].iat[first])
                       & (frame["ns"] != frame["ns"].iat[first])]
    other = int(same[0])
    at = ", ".join(f"{k} {v}" for k, v in place(other).items())
    user = (shown if shown is not None else pd.Series(users)).iloc[first]
    user = user.item() if isinstance(user, np.generic) else user
    warnings.warn(str(DataError(
        f"{tied.shape[0]} ratings share a second with a rating of their user at another "
        f"instant (user {user!r}: {col.iloc[first]} here and {col.iloc[other]} at {at}): "
        "dates are read as whole seconds (the adapters' time unit), so these tie: the "
        "temporal split and the history features order them by item id and --duplicates last "
        "keeps the later line, not the later time; round the times to seconds yourself to "
        "choose that order knowingly",
        path=None if path is None else str(path), column=column, **place(first))),
        TiedInstantsWarning, stacklevel=2)
