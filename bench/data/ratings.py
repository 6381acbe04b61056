"""``Ratings``: a validated user-item interaction table.

The frame has one row per (user, item) interaction with columns ``user`` (int64), ``item``
(int64), ``rating`` (float64; 1.0 for implicit feedback) and ``timestamp`` (int64 seconds since
the Unix epoch; 0 when the source has none). Optional side tables carry item metadata
(``items``: ``item``, ``title``, ``genres`` as a tuple of strings, ...), user metadata
(``users``) and tags (``tags``: ``user``, ``item``, ``tag``, ``timestamp``). ``source`` and
``sha256`` (file name -> digest) record where the data came from, for run manifests.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from bench.data.arrow_tables import is_named_table, table_frame
from bench.data.checks import check_ratings_pairs
from bench.data.python_args import type_name
from bench.data.sub_second import warn_merged_instants, zoned
from bench.errors import ConfigError, DataError

RATING_COLUMNS = ("user", "item", "rating", "timestamp")
#: The bound on a rating's magnitude, 2^53, refused from 2^53 on (2^53 + 1 reads as 2^53):
#: beyond it a float64 holds no longer every integer (two play counts would merge), and the history features (means, variances: sums of squares over
#: a user's ratings) overflow to inf/NaN long before 1.8e308 (1e308 squared).
MAX_RATING = float(2**53)


@dataclass(frozen=True, eq=False)
class Ratings:
    """A validated ratings table (see the module docstring for the columns)."""

    frame: pd.DataFrame
    items: pd.DataFrame | None = None
    users: pd.DataFrame | None = None
    tags: pd.DataFrame | None = None
    source: str = ""
    sha256: dict[str, str] = field(default_factory=dict)
    implicit: bool = False
    #: Where each frame row was read: ``(kind, numbers)``, e.g. ``("line", lines)`` of a CSV
    #: file (the header counts) or ``("row", rows)`` of a Parquet file; ``None``: the frame's
    #: own rows, numbered from 1.
    places: tuple[str, np.ndarray] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "frame", ratings_frame(self.frame))
        validate_ratings_frame(self.frame, source=self.source)
        if self.tags is not None:  # held to the ratings' rules (tags_frame)
            object.__setattr__(self, "tags", tags_frame(
                self.tags, self.frame["timestamp"].to_numpy(), source=self.source))

    def where(self, i: int) -> dict[str, int]:
        """Where frame row ``i`` (0-based) was read, for an error: ``{"line": 7}`` of a CSV
        file, ``{"row": 7}`` of a Parquet file or of the frame itself."""
        if self.places is None:
            return {"row": i + 1}
        kind, numbers = self.places
        return {kind: int(numbers[i])}

    @property
    def n_ratings(self) -> int:
        return int(self.frame.shape[0])

    @property
    def n_users(self) -> int:
        return int(self.frame["user"].nunique())

    @property
    def n_items(self) -> int:
        return int(self.frame["item"].nunique())

    def summary(self) -> dict[str, object]:
        r = self.frame["rating"]
        return {
            "source": self.source,
            "ratings": self.n_ratings,
            "users": self.n_users,
            "items": self.n_items,
            "implicit": self.implicit,
            "rating_min": float(r.min()) if len(r) else None,
            "rating_max": float(r.max()) if len(r) else None,
            "density": self.n_ratings / max(1, self.n_users * self.n_items),
        }


def ratings_frame(obj: object) -> pd.DataFrame:
    """``obj`` as the pandas DataFrame a :class:`Ratings` holds: a DataFrame as it is; a
    pyarrow ``Table`` / ``RecordBatch`` through ``to_pandas()`` and a one-dimensional NumPy
    structured array through ``pandas.DataFrame`` (conversions that keep every value, so the
    checks of :func:`validate_ratings_frame` see the same numbers); anything else (a polars
    DataFrame, a dict, a list) is a :class:`~bench.errors.ConfigError` naming its type and the
    type expected."""
    if isinstance(obj, pd.DataFrame):
        return _whole_float_ids(_timestamps_in_seconds(obj))
    if is_named_table(obj):  # a pyarrow Table's nulls and dates kept
        return _whole_float_ids(_timestamps_in_seconds(table_frame(obj)))
    how = (" (convert it with .to_pandas())" if callable(getattr(obj, "to_pandas", None))
           else " (e.g. pandas.DataFrame(...))")
    raise ConfigError(f"ratings: got a {type_name(obj)}: expected a pandas DataFrame with "
                      f"columns {', '.join(RATING_COLUMNS)}{how}")


def _whole_float_ids(frame: pd.DataFrame) -> pd.DataFrame:
    """``user`` / ``item`` columns of floats read as a ratings file's are (the one id rule,
    :func:`bench.data.tabular._ids`): whole numbers a float64 holds exactly (below 2^53) are
    those integer ids (``1.0`` is id 1, as in a CSV or Parquet file); a fractional id, a
    missing one (NaN) or a whole float at or beyond 2^53 (where two ids may have become one
    float) is refused at its row."""
    fixed = {}
    for col in ("user", "item"):
        if list(frame.columns).count(col) != 1 or frame[col].dtype.kind != "f":
            continue
        values = frame[col].to_numpy(dtype=np.float64)
        bad = np.flatnonzero(~np.isfinite(values) | (values != np.round(values))
                             | ~(np.abs(values) < 2.0**53))
        if bad.shape[0]:
            v = float(values[bad[0]])
            why = ("missing value (NaN)" if np.isnan(v) else f"id {v!r} is not an integer"
                   if not np.isfinite(v) or v != round(v) else f"id {v!r} is at or beyond "
                   "2^53, where a float64 holds whole numbers no longer exactly (two ids may "
                   "be one float): give the ids as integers or text")
            raise DataError(why, row=int(bad[0]) + 1, column=col)
        fixed[col] = values.astype(np.int64)
    return frame.assign(**fixed) if fixed else frame


def _timestamps_in_seconds(frame: pd.DataFrame) -> pd.DataFrame:
    """A ``timestamp`` column of dates (``datetime64``, with or without a time zone) as whole
    seconds since the epoch, UTC, floored: what a ratings file's dates become
    (:mod:`bench.data.tabular`), so a frame and a file of the same ratings agree. A missing
    date (``NaT``) is refused at its row."""
    if "timestamp" not in frame.columns or list(frame.columns).count("timestamp") != 1:
        return frame  # absent or twice: validate_ratings_frame says so
    col = frame["timestamp"]
    if not (col.dtype.kind == "M" or isinstance(col.dtype, pd.DatetimeTZDtype)):
        return frame
    if col.isna().any():
        bad = int(np.flatnonzero(col.isna().to_numpy())[0])
        raise DataError("missing date (NaT)", row=bad + 1, column="timestamp")
    seconds = datetime_seconds(col)
    if list(frame.columns).count("user") == 1:  # one user's order within a second kept
        warn_merged_instants(frame["user"].to_numpy(), seconds, col)
    return frame.assign(timestamp=seconds)


def datetime_seconds(s: pd.Series) -> np.ndarray:
    """Whole seconds since the epoch (UTC; floored, so 1969-12-31 23:59:59.5 is -1) at the
    column's own resolution: a Parquet date of microseconds beyond 2262 (past int64
    nanoseconds) is no overflow. The one rule of dates as seconds: frames (here), ratings
    files (:mod:`bench.data.tabular`) and Dask partitions (:mod:`bench.data.dask_ids`)."""
    if zoned(s):  # a pyarrow timestamp with a zone too
        s = s.dt.tz_convert("UTC").dt.tz_localize(None)
    seconds: np.ndarray = s.to_numpy().astype("datetime64[s]").astype(np.int64)
    return seconds


def as_ratings(obj: object) -> Ratings:
    """What the adapters take as ratings: a :class:`Ratings` as it is, a table
    :func:`ratings_frame` accepts wrapped as ``Ratings(frame)`` (checked there); anything else
    is a :class:`~bench.errors.ConfigError` naming its type."""
    if isinstance(obj, Ratings):
        return obj
    return Ratings(ratings_frame(obj))


def validate_ratings_frame(frame: pd.DataFrame, *, source: str = "") -> None:
    """Check columns, dtypes, missing values and duplicate (user, item) pairs.

    Raises :class:`DataError` naming the source, the column or the first offending row
    (numbered from 1, the frame's first row being row 1) and what was expected.
    """
    where = source or None
    missing = [c for c in RATING_COLUMNS if c not in frame.columns]
    if missing:
        levels = [c for c in missing if c in frame.index.names]
        hint = (f" ({', '.join(map(repr, levels))} is an index level: frame.reset_index() makes "
                "it a column)" if levels else "")
        if isinstance(frame.columns, pd.MultiIndex):
            hint += (f" (the columns are a MultiIndex of {frame.columns.nlevels} levels, e.g. "
                     f"{frame.columns[0]!r}: flatten them to one name each)")
        else:
            hint += _renames(frame, missing)
        raise DataError(
            f"missing column(s) {missing}; a ratings table needs {list(RATING_COLUMNS)}{hint}",
            path=where,
        )
    if frame.shape[0] == 0:  # before the dtype checks: an empty column's dtype says nothing
        raise DataError("no rows: a ratings table needs at least one rating", path=where)
    twice = next((c for c in RATING_COLUMNS if list(frame.columns).count(c) > 1), None)
    if twice is not None:  # frame[c] would be a frame: which one is meant cannot be told
        raise DataError(f"appears {list(frame.columns).count(twice)} times: expected one column "
                        "of that name", path=where, column=twice)
    for col, kinds in (("user", "iu"), ("item", "iu"), ("rating", "fiu"), ("timestamp", "iu")):
        dtype = frame[col].dtype
        # Int64 / UInt64 / Float64 / pyarrow columns with <NA>: named missing, not NaN
        if (dtype.kind in "iu" or not isinstance(dtype, np.dtype)) and frame[col].isna().any():
            bad = int(np.flatnonzero(frame[col].isna().to_numpy())[0])
            raise DataError("missing value (<NA>)", path=where, row=bad + 1, column=col)
        big = frame[col].to_numpy() > np.uint64(2**63 - 1) if dtype.kind == "u" else None
        if big is not None and col != "rating" and big.any():  # (pandas' max() of it wraps)
            bad = int(np.argmax(big))
            raise DataError(f"value {int(frame[col].iloc[bad])} is beyond int64 (it would wrap "
                            "to a negative number): expected integers within +-2^63",
                            path=where, row=bad + 1, column=col)
        if dtype.kind not in kinds:
            raise DataError(f"has dtype {dtype}, expected "
                            f"{'integer' if kinds == 'iu' else 'numeric'}"
                            f"{_dtype_hint(frame[col], col)}", path=where, column=col)
        values = frame[col].to_numpy()
        if dtype.kind == "f" and not np.all(np.isfinite(values)):
            bad = int(np.flatnonzero(~np.isfinite(values))[0])
            raise DataError(f"value {float(values[bad])!r} is not a finite number", path=where,
                            row=bad + 1, column=col)
    stamps = frame["timestamp"].to_numpy(dtype=np.float64)
    far = np.flatnonzero(~(np.abs(stamps) < 1e12))  # bench.data.tabular.MAX_SECONDS: every reader
    if far.shape[0]:
        raise DataError(f"timestamp {int(frame['timestamp'].iloc[far[0]])} is not within +-10^12 "
                        "seconds of 1970 (about 31,700 years): expected seconds since the epoch",
                        path=where, row=int(far[0]) + 1, column="timestamp")
    refuse_mixed_units(stamps, path=where, column="timestamp", where=lambda i: {"row": i + 1})
    rating = frame["rating"].to_numpy(dtype=np.float64)
    huge = np.flatnonzero(np.abs(rating) >= MAX_RATING)  # 2^53 + 1 reads as 2^53
    if huge.shape[0]:
        raise DataError(f"rating {float(rating[huge[0]])!r} is at or beyond +-2^53 (9.0e15): "
                        "expected ratings a float64 holds exactly, whose squares the history "
                        "features can sum",
                        path=where, row=int(huge[0]) + 1, column="rating")
    check_ratings_pairs(frame["user"].to_numpy(), frame["item"].to_numpy(), path=where)


def _dtype_hint(values: pd.Series, col: str) -> str:
    """What to do with a ratings column of the wrong dtype: Decimals (a pyarrow ``decimal128``
    column, or Decimal objects) and whole numbers held as floats are converted by the caller,
    who knows whether the conversion is exact; text or categorical ids are numbered."""
    if values.dtype == object and (hint := _object_hint(values, col)) is not None:
        return hint
    arrow = getattr(values.dtype, "pyarrow_dtype", None)
    if arrow is not None:
        import pyarrow as pa

        decimal = pa.types.is_decimal(arrow)
    else:
        first = values.iloc[0] if values.dtype == object and len(values) else None
        decimal = type(first).__name__ == "Decimal"
    if decimal:
        to = "float64" if col == "rating" else "int64"
        return (f" (Decimal values: a Decimal may hold more digits than the float64 it would be "
                f"read as; convert with frame[{col!r}].astype({to!r}) if that is meant)")
    if values.dtype.kind == "f" and col != "rating":
        return (f" (whole numbers held as floats? convert with frame[{col!r}].astype('int64') "
                "once they are checked whole)")
    if col in ("rating", "timestamp") and (values.dtype == object
                                           or pd.api.types.is_string_dtype(values.dtype)):
        return _text_number_hint(values, col)
    if col in ("user", "item") and values.dtype.kind not in "fcmMb":
        return ("; text or categorical ids: a ratings file's are numbered by "
                "bench.data.tabular.load_ratings_table (a frame's are not: map them to "
                "integers, e.g. frame[col].astype('category').cat.codes, and keep the map)")
    return ""


def _object_hint(values: pd.Series, col: str) -> str | None:
    """What to do with an object column that holds no text: plain numbers (``astype``), dates
    as Python objects (``pd.to_datetime``: a datetime64 column is read as seconds), Decimals or
    Fractions (converted by the caller, who knows whether it is exact); ``None`` for text."""
    to = "float64" if col == "rating" else "int64"
    odd = next((v for v in values.tolist() if isinstance(v, bool | np.bool_)
                or not isinstance(v, int | float | np.integer | np.floating)), None)
    if odd is None:
        return (f" (numbers held as Python objects: convert with frame[{col!r}].astype({to!r}) "
                "once they are checked)")
    if isinstance(odd, dt.date):  # a datetime and a pandas Timestamp too
        return (f" (dates held as Python objects: convert with pd.to_datetime(frame[{col!r}]); "
                "a datetime64 column is read as whole seconds since the epoch)")
    kind = type(odd).__name__
    if kind in ("Decimal", "Fraction"):
        return (f" ({kind} values: a {kind} may hold more digits than the float64 it would be "
                f"read as; convert with frame[{col!r}].astype({to!r}) if that is meant)")
    return None


def _text_number_hint(values: pd.Series, col: str) -> str:
    """Where a text column of numbers (``pd.read_csv(sep=";")`` of a German export leaves
    ``3,5`` as text) first holds a cell that is no plain number, and what it likely is; never
    converted here (``3,5`` may be 3.5 or 35)."""
    from bench.data.inputs import comma_hint, is_plain_float

    cells = values.astype(str).str.strip(" \t")
    plain = cells.map(is_plain_float).to_numpy(dtype=bool)
    if plain.all():
        return (f" (text that spells numbers: convert with pd.to_numeric(frame[{col!r}]) once "
                "checked)")
    i = int(np.flatnonzero(~plain)[0])
    return (f" (row {i + 1} holds the text {cells.iloc[i]!r}{comma_hint(cells.iloc[i])}; "
            f"read the file with pd.read_csv(..., decimal=',') if that is its decimal mark, "
            f"or convert with pd.to_numeric(frame[{col!r}]))")


def _renames(frame: pd.DataFrame, missing: list[str]) -> str:
    """The rename that gives ``frame`` the ``missing`` columns, where its own columns are other
    spellings of them (``userId``, ``user_id``; case ignored: the one list of every path,
    :mod:`bench.data.ratings_columns`), else the columns it has."""
    from bench.data.ratings_columns import spelled_as

    mapping = {}
    for need in missing:
        have = [c for c in frame.columns if spelled_as(c, need)]
        if len(have) == 1:
            mapping[str(have[0])] = need
    if mapping:
        return f"; rename them: frame.rename(columns={mapping!r})"
    return f"; the frame's columns are {[str(c) for c in frame.columns][:12]}"


#: Timestamp magnitudes of the one-unit rule (:func:`refuse_mixed_units`): seconds of
#: 1973..2286, and milliseconds of any date after 1973 (as seconds, after the year 5138).
SECONDS = (1e8, 1e10)
MILLISECONDS = 1e11


class TimeUnitWarning(UserWarning):
    """Timestamps read as seconds that look like milliseconds (:func:`seconds_unit_note`)."""


def seconds_unit_note(first: int, last: int) -> str | None:
    """The note for a ratings table whose timestamps (``first`` .. ``last``) reach 10^11
    seconds (after the year 5138), else ``None``: milliseconds of 1973..2001 read alone are
    within the readers' +-10^12 and one unit, so they are taken as seconds; the order, hence
    the splits, is right, but every time feature is measured in the wrong unit."""
    far = max(abs(int(first)), abs(int(last)))
    if far < MILLISECONDS:
        return None
    return (f"timestamps reach {far} seconds from 1970, beyond the years -1199 to 5138: "
            "milliseconds? "
            "They are read as seconds: the time order (and the splits) is right, but recency "
            "and item age in days are 1000 times too large and the release age in years is "
            "measured from a year thousands of years away; divide the timestamps by 1000")


def mixed_units_message(big: int, seconds: int, place: str) -> str:
    """The one text of seconds beside milliseconds, in one file, across files or across Dask
    shards (:func:`refuse_mixed_units`, :func:`refuse_mixed_units_across`,
    :func:`bench.data.dask_units.one_unit_across`); ``place``: where ``seconds`` is."""
    return (f"timestamp {big} is at least 10 times beyond {seconds} ({place}): milliseconds "
            "beside seconds? expected one unit, seconds since the epoch")


def refuse_mixed_units(values: np.ndarray, *, path: object, column: str,
                       where: Callable[[int], dict[str, object]]) -> None:
    """Refuse a timestamp column with seconds beside milliseconds (the rule of every ratings
    reader: :mod:`bench.data.tabular`, :mod:`bench.data.movielens`).

    Seconds of 1973..2286 (``[1e8, 1e10)``) beside values of ``1e11`` and more (milliseconds of
    any date after 1973; as seconds, after the year 5138), or the same magnitudes before 1970
    (negative values), are two units in one column: a
    temporal split would put every millisecond rating after every other one. Refused at the
    first large value (``where(i)``: its ``line`` or ``row``), naming a seconds value's place.
    """
    size = np.abs(values)  # before 1970 too: -978300760000 ms beside 978300760 s
    big = np.flatnonzero(size >= MILLISECONDS)
    secs = np.flatnonzero((size >= SECONDS[0]) & (size < SECONDS[1]))
    if big.shape[0] and secs.shape[0]:
        i, j = int(big[0]), int(secs[0])
        place = ", ".join(f"{k} {v}" for k, v in where(j).items()) or "in the same file"
        raise DataError(mixed_units_message(int(values[i]), int(values[j]), place),
                        path=None if path is None else str(path), column=column,
                        **where(i))  # type: ignore[arg-type]


def refuse_rounded_seconds(cells: np.ndarray, *, path: object, column: str,
                           where: Callable[[int], dict[str, object]]) -> None:
    """Refuse a float32 timestamp column (a warehouse ``FLOAT``) beyond 2^24 seconds
    (1970-07-14): a float32 holds whole seconds exactly only below, so the export rounded
    1600000001 to 1600000000 and 1600000200 to 1600000256 (steps of 128 s in 2020), reordering
    a user's ratings without a trace in the file. The rule of every ratings reader (local and
    Dask partitions)."""
    if cells.dtype != np.float32:
        return
    far = np.flatnonzero(np.abs(cells) >= 2.0**24)
    if far.shape[0]:
        i = int(far[0])
        raise DataError(f"timestamp {float(cells[i]):.0f} is in a float32 column, which holds "
                        "whole seconds exactly only below 2^24 (16777216, 1970-07-14): beyond, "
                        f"its values were rounded to steps of {float(np.spacing(cells[i])):.0f} s "
                        "when written; write the column as int64 seconds (or float64)",
                        path=None if path is None else str(path), column=column,
                        **where(i))  # type: ignore[arg-type]


def refuse_mixed_units_across(files: list[tuple[object, np.ndarray]]) -> None:
    """Refuse seconds in one file of a call beside milliseconds in another (the rule of
    :func:`refuse_mixed_units` over files read together: MovieLens ``ratings.csv`` and
    ``tags.csv``). A tag's timestamp is compared with its author's first target rating
    (:mod:`bench.adapters.tags`): tags in milliseconds beside ratings in seconds would all be
    "future" (no tag feature), tags in seconds beside ratings in milliseconds all "history"
    (tags written after the target rating leak into the features). ``files``: ``(path,
    timestamps)``; the message names both files and each value's row (from 1)."""
    big = [(p, np.flatnonzero(np.abs(v) >= MILLISECONDS)) for p, v in files]
    secs = [(p, np.flatnonzero((np.abs(v) >= SECONDS[0]) & (np.abs(v) < SECONDS[1])))
            for p, v in files]
    at = {str(p): v for p, v in files}
    b = next(((p, int(i[0])) for p, i in big if i.shape[0]), None)
    s = next(((p, int(i[0])) for p, i in secs if i.shape[0]), None)
    if b is not None and s is not None:
        (bp, i), (sp, j) = b, s
        raise DataError(mixed_units_message(int(at[str(bp)][i]), int(at[str(sp)][j]),
                                            f"{sp}, row {j + 1}"),
                        path=str(bp), row=i + 1, column="timestamp")


TAG_COLUMNS = ("user", "item", "tag", "timestamp")


def tags_frame(tags: object, ratings_seconds: np.ndarray, *,
               source: str = "") -> pd.DataFrame | None:
    """``tags`` held to the ratings' rules, its dates as seconds; ``None`` stays ``None``.
    ``ratings_seconds``: the ratings' timestamps, for the one-unit rule.

    A tag application counts as history only when written before its author's cut
    (:mod:`bench.adapters.tags`), so its time is read as the ratings' is: a date column
    (``datetime64``, with or without a zone) as whole UTC seconds, floored; numbers as seconds
    within +-10^12, in the ratings' unit (milliseconds beside the ratings' seconds would make
    every tag "future", seconds beside milliseconds every tag history). A missing id or time, a
    text id, text dates, and a table without ``user`` / ``item`` columns are refused at their
    row or column: a tag silently dropped or kept changes the tag features. A table without a
    ``timestamp`` column is kept here; the splits that cut in time refuse it
    (:func:`bench.adapters.tags.history_tags`), ``random`` reads it."""
    if tags is None:
        return None
    if is_named_table(tags):
        tags = table_frame(tags)
    if not isinstance(tags, pd.DataFrame):
        raise ConfigError(f"tags: got a {type_name(tags)}: expected a pandas DataFrame with "
                          f"columns {', '.join(TAG_COLUMNS)}")
    where = f"{source} (tags)" if source else "tags"
    missing = [c for c in ("user", "item") if c not in tags.columns]
    if missing:
        from bench.data.ratings_columns import spelled_as

        have = {str(c): need for need in missing for c in tags.columns if spelled_as(c, need)}
        hint = (f"; rename them: tags.rename(columns={have!r})" if have else
                f"; its columns are {[str(c) for c in tags.columns][:12]}")
        raise DataError(f"missing column(s) {missing}; a tags table needs "
                        f"{list(TAG_COLUMNS)}{hint}", path=where)
    for name in ("user", "item"):
        _tag_ids(tags[name], where, name)
    if "timestamp" not in tags.columns or tags.empty:
        return tags
    seconds = _tag_seconds(tags["timestamp"], where)
    refuse_mixed_units_across([(source or "ratings", np.asarray(ratings_seconds, np.float64)),
                               (where, seconds)])
    if tags["timestamp"].dtype.kind == "M" or isinstance(tags["timestamp"].dtype,
                                                          pd.DatetimeTZDtype):
        return tags.assign(timestamp=seconds.astype(np.int64))
    return tags


def _tag_ids(col: pd.Series, where: str, name: str) -> None:
    """Refuse a missing or non-numeric tag id at its row (it could match no rated id)."""
    values = pd.to_numeric(col, errors="coerce") if col.dtype.kind != "b" else col * np.nan
    bad = np.flatnonzero(pd.isna(values).to_numpy())
    if bad.shape[0]:
        i = int(bad[0])
        cell = col.iloc[i]
        what = ("missing value" if pd.api.types.is_scalar(cell) and pd.isna(cell)
                else f"{cell!r} is no number")
        raise DataError(f"{what}: expected the ratings' integer ids", path=where, row=i + 1,
                        column=name)


def _tag_seconds(col: pd.Series, where: str) -> np.ndarray:
    """The tags' times as float64 seconds since the epoch (dates floored to whole seconds)."""
    if col.dtype.kind == "M" or isinstance(col.dtype, pd.DatetimeTZDtype):
        if col.isna().any():
            i = int(np.flatnonzero(col.isna().to_numpy())[0])
            raise DataError("missing date (NaT)", path=where, row=i + 1, column="timestamp")
        seconds: np.ndarray = datetime_seconds(col).astype(np.float64)
        return seconds
    if col.dtype.kind not in "iuf":  # numbers held as objects are numbers; text, dates, bools not
        numbers = pd.to_numeric(col, errors="coerce") if col.dtype.kind != "b" else col * np.nan
        text = np.flatnonzero((pd.isna(numbers) & col.notna()).to_numpy())
        if text.shape[0]:
            i = int(text[0])
            raise DataError(f"{col.iloc[i]!r} ({type(col.iloc[i]).__name__}) is no number of "
                            "seconds: expected seconds since the epoch, or dates as a datetime64 "
                            "column (text dates: pd.to_datetime(tags['timestamp'], utc=True))",
                            path=where, row=i + 1, column="timestamp")
        col = numbers
    if col.dtype == np.float32:  # a warehouse FLOAT: rounded to 128 s steps in 2020
        refuse_rounded_seconds(col.to_numpy(), path=where, column="timestamp",
                               where=lambda i: {"row": i + 1})
    values: np.ndarray = col.to_numpy(dtype=np.float64, na_value=np.nan)
    bad = np.flatnonzero(~(np.abs(values) < 1e12))  # bench.data.tabular.MAX_SECONDS
    if bad.shape[0]:
        i = int(bad[0])
        what = ("missing time" if np.isnan(values[i]) else
                f"{float(values[i]):.0f} is not within +-10^12 seconds of 1970 (milliseconds?)")
        raise DataError(f"{what}: expected seconds since the epoch, as the ratings'",
                        path=where, row=i + 1, column="timestamp")
    return values
