"""A generic ratings / interactions table (CSV, TSV or Parquet) -> :class:`~bench.data.ratings.Ratings`.

``load_ratings_table(path, user=, item=, rating=, timestamp=)`` maps the file's columns onto
``user, item, rating, timestamp``:

- ``rating=None`` means implicit feedback: every interaction gets rating 1.0 and
  ``Ratings.implicit`` is true;
- ``timestamp=None`` gives timestamp 0; a numeric timestamp must be integral (seconds since the
  Unix epoch); a text timestamp is parsed as a date/time (UTC) and converted to seconds;
- integer ids are kept; other ids (strings such as ``"u17"``, ASINs) are numbered 0, 1, ... in
  sorted order (numbers by value, then texts; never by row order), and the mapping is returned
  as ``Ratings.users`` / ``Ratings.items``
  (columns ``user`` / ``item`` and ``external_id``); ids written as decimals are compared by
  their exact value as written (``1``, ``1.0`` and ``1e0`` are one id, kept as 1), and a column
  holding one a float64 or int64 cannot carry (``1e20``, ``inf``) is numbered, so ``1e20`` and
  ``2e20`` stay two ids (a float64 cast to int64 made them one); a fractional id is an error;
- ``duplicates`` says what to do with a (user, item) pair that occurs more than once:
  ``"error"`` (default) stops with the first repeated line; ``"last"`` keeps the latest
  interaction (largest timestamp; the later line on ties); ``"mean"`` averages the ratings and
  keeps the latest timestamp.

An id cell spelled as a missing value (``NA``, ``nan``, ``null``, ...) or holding a NUL byte or a
byte-order mark is an error (:mod:`bench.data.inputs`); so is a bytes id (a Parquet binary
column: refused as on frames and dicts, ids compare as text), a line whose field count differs
from the first line's (pandas would silently drop its extra fields) and a column name the header
(or the Parquet schema) holds twice.

Columns are named as in the header; integer positions (0-based) mean the file has no header.
The separator is taken from ``sep``, else from the extension (``.csv`` comma, ``.tsv``/``.tab``
tab), else guessed from the first line (tab, comma, semicolon, ``|``, ``::``); it is literal
text (``..`` or ``$$`` is not a regular expression, as pandas would read it). Every bad value is
a :class:`~bench.errors.DataError` naming the file, line (CSV; row for Parquet), column and value.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from bench.data.cell_text import nonfinite_message
from bench.data.compressed import HEAD, refuse_compressed, unreadable_parquet
from bench.data.date_text import text_dates
from bench.data.delimited import (
    REPEATED_HEADER,
    check_column_once,
    check_field_counts,
    header_fields,
    header_names,
    refuse_separator_line,
)
from bench.data.id_cells import ASCII_BLANKS as ASCII_BLANKS
from bench.data.id_cells import scalar_ids as _scalar_ids
from bench.data.id_cells import text_id_cells as _text_ids
from bench.data.id_numbers import (  # re-exported: the Dask reader numbers with them (dask_ids)
    _NUMBER_ID as _NUMBER_ID,
)
from bench.data.id_numbers import _by_value as _by_value
from bench.data.id_numbers import _mixed_keys as _mixed_keys
from bench.data.inputs import (
    DUMP_NULL,
    INT64_MAX,
    MISSING_SPELLINGS,
    bom_length,
    check_input_file,
    comma_hint,
    dos_eof_hint,
    is_plain_float,
    parse_float,
    space_hint,
    stray_character,
    text_lines,
)
from bench.data.ratings import Ratings, datetime_seconds, refuse_mixed_units, refuse_rounded_seconds
from bench.data.sub_second import warn_merged_instants
from bench.errors import ConfigError, DataError

PathLike = str | os.PathLike[str]
Column = str | int
DUPLICATES = ("error", "last", "mean")
_PARQUET = (".parquet", ".pq")
#: Largest magnitude of a numeric timestamp (seconds): beyond it int64 nanosecond dates and
#: date arithmetic overflow (10^20 used to wrap to a negative date).
MAX_SECONDS = 1e12
#: Cells of a rating or time column that spell a NULL (``\\N``, ``NULL``, ``NA``; not ``nan``,
#: which the number grammar names): refused as missing values.
_NULL_WORDS = frozenset(c for c in MISSING_SPELLINGS  # '#N/A': a spreadsheet's cell (sheet_cells)
                        if not {"nan", "ind"} & {c.lower()[-3:]} and c[:1] != "#")


def load_ratings_table(
    path: PathLike,
    *,
    user: Column,
    item: Column,
    rating: Column | None = None,
    timestamp: Column | None = None,
    sep: str | None = None,
    duplicates: str = "error",
) -> Ratings:
    """Load a CSV / TSV / Parquet interactions table (see the module docstring)."""
    from bench.data.hashing import sha256_file

    if not isinstance(duplicates, str) or duplicates not in DUPLICATES:
        raise ConfigError(f"duplicates={duplicates!r}; valid: {', '.join(DUPLICATES)}")
    check_columns(user=user, item=item, rating=rating, timestamp=timestamp)
    if sep is not None and (not isinstance(sep, str) or not sep):
        raise ConfigError(f"sep={sep!r}: expected the column separator as a non-empty string "
                          "(e.g. ',' or '\\t'), or None to take it from the extension")
    p = check_input_file(path, expected="a ratings table (CSV, TSV or Parquet)")
    if p.stat().st_size == 0:
        raise DataError("empty file", path=p)
    if p.suffix.lower() not in _PARQUET:
        with open(p, "rb") as fh:  # UTF-16/32, compressed, Parquet refused (pandas skips a BOM)
            bom_length(fh.read(HEAD), p)
    wanted = {"user": user, "item": item, "rating": rating, "timestamp": timestamp}
    cols = {k: v for k, v in wanted.items() if v is not None}
    positional = [isinstance(v, int) and not isinstance(v, bool) for v in cols.values()]
    if any(positional) and not all(positional):
        raise ConfigError("give every column by name (file with a header) or every column by "
                          "position (file without one), not a mix")
    header = not any(positional)
    is_parquet = p.suffix.lower() in _PARQUET
    raw = _read_parquet(p, cols) if is_parquet else _read_text(p, cols, sep, header)
    # locate a data row: CSV line number (header counts; blank lines and quoted line ends
    # too: bench.data.delimited.check_field_counts), or Parquet row number
    lines = raw.attrs.get("lines")
    if lines is None:
        lines = np.arange(2 if header else 1, raw.shape[0] + (2 if header else 1), dtype=np.int64)

    def where(i: int) -> dict[str, object]:
        return {"row": i + 1} if is_parquet else {"line": int(lines[i])}

    n = raw.shape[0]
    if n == 0:
        raise DataError("no data rows", path=p)
    def texts(role: str) -> pd.Series | None:  # an id column's cells as written (text files)
        if is_parquet:
            return None
        return _read_text(p, {role: cols[role]}, sep, header, as_text=True)[cols[role]]

    users, user_map = _ids(raw[cols["user"]], p, str(cols["user"]), where, "user",
                           lambda: texts("user"))
    items, item_map = _ids(raw[cols["item"]], p, str(cols["item"]), where, "item",
                           lambda: texts("item"))
    if rating is None:
        ratings = np.ones(n, dtype=np.float64)
    else:
        ratings = number_cells(raw[cols["rating"]], p, str(rating), where, lambda: texts("rating"))
    if timestamp is None:
        stamps = np.zeros(n, dtype=np.int64)
    else:
        stamps = timestamp_cells(raw[cols["timestamp"]], p, str(timestamp), where)
        warn_merged_instants(users, stamps, raw[cols["timestamp"]], shown=raw[cols["user"]],
                               path=p, column=str(timestamp), where=where)
    frame = pd.DataFrame({"user": users, "item": items, "rating": ratings, "timestamp": stamps})
    frame = _resolve_duplicates(frame, duplicates, p, where, raw, cols)
    rows = frame.index.to_numpy(dtype=np.int64)  # the raw row of each kept rating
    places = ("row", rows + 1) if is_parquet else ("line", lines[rows])
    return Ratings(
        frame=frame.reset_index(drop=True),
        items=item_map,
        users=user_map,
        source=str(p),
        sha256={p.name: sha256_file(p)},
        implicit=rating is None,
        places=places,
    )


def check_columns(**roles: object) -> None:
    """Each role's column is a name (``str``) or a 0-based position (``int >= 0``, not a bool),
    ``user`` and ``item`` are given, and no two roles name the same column (``user="id",
    item="id"`` would make every user an item of itself): a :class:`ConfigError` naming the
    roles."""
    for role, c in roles.items():
        if c is None and role in ("user", "item"):
            raise ConfigError(f"{role}=None: the {role} column is required (a name in the "
                              "header, or a 0-based position for a file without one)")
        if c is not None and (isinstance(c, bool) or not isinstance(c, str | int)
                              or (isinstance(c, int) and c < 0) or c == ""):
            raise ConfigError(f"{role}={c!r}: expected a column name (a non-empty str) or a "
                              "0-based position (an int >= 0)")
    seen: dict[object, str] = {}
    for role, c in roles.items():
        if c is not None and (other := seen.setdefault(c, role)) != role:
            raise ConfigError(f"{other}={c!r} and {role}={c!r} name the same column: expected "
                              "one column per role")


def _read_parquet(p: Path, cols: dict[str, Column]) -> pd.DataFrame:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from bench.data.parquet import refuse_letor_split

    try:
        schema = pq.read_schema(p)
    except (pa.ArrowInvalid, OSError) as exc:
        raise DataError(unreadable_parquet(p, exc), path=p) from exc
    refuse_letor_split(schema, p)  # a conversion's own split given back as ratings
    from bench.data.shard_listing import index_names

    present = schema.names  # and a range index pandas' metadata alone holds (1, 2, 3)
    names, resolved = present + sorted(index_names(schema) - set(present)), []
    for role, c in cols.items():
        name = names[c] if isinstance(c, int) and c < len(names) else c
        if name not in names:
            raise DataError(f"{role} column not in the file; columns are {names}", path=p,
                            column=str(c))
        check_column_once(names, role, str(name), p, line=None)  # Parquet allows it
        cols[role] = name
        resolved.append(name)
    try:
        # INT96 dates (Spark, Hive, Impala) in microseconds: as nanoseconds 2300 became 1715
        frame = pq.read_table(p, columns=[c for c in dict.fromkeys(resolved) if c in present],
                              coerce_int96_timestamp_unit="us").to_pandas()
    except (pa.ArrowException, OSError) as exc:  # a damaged row group, an unreadable type
        raise DataError(unreadable_parquet(p, exc), path=p) from exc
    # a column a pandas job wrote as its index (set_index("user").to_parquet): pandas'
    # metadata makes it the frame's index again, a column here (a KeyError 'user' before)
    return frame.reset_index() if set(frame.index.names) & set(resolved) else frame


def _read_text(p: Path, cols: dict[str, Column], sep: str | None, header: bool,
               as_text: bool = False) -> pd.DataFrame:
    sep = sep or guess_sep(p)
    first = _first_line(p)
    stray = stray_character(first.encode("utf-8", "replace"))
    if stray is not None:  # UTF-16 without a mark, a joined file: bench.data.inputs' rule
        raise DataError(stray, path=p, line=1)
    refuse_separator_line(first, p)
    if header:
        names = header_names(first, sep)  # a quoted name may hold the separator
        for role, c in cols.items():
            if c not in names:
                raise DataError(f"{role} column {c!r} is not in the header; columns are {names}"
                                f"{_separator_hint(first, sep, names)}", path=p, line=1,
                                column=str(c))
            check_column_once(names, role, str(c), p)  # pandas would rename the other
        # by position: pandas keeps a header's blanks (" user " is not "user"), the check above not
        usecols = sorted({names.index(str(c)) for c in cols.values()})
    else:
        width = len(_split(first, sep))
        for role, c in cols.items():
            assert isinstance(c, int)
            if c >= width:
                raise DataError(f"{role} column {c} is beyond the {width} columns of line 1",
                                path=p, line=1)
        usecols = sorted({int(c) for c in cols.values()})
    lines = None  # the file line of each record (header first), when not i + 1
    if not as_text:  # pandas' C parser drops the extra fields of a line when usecols is given
        lines = check_field_counts(p, sep, names if header else None)
    try:
        frame = pd.read_csv(  # a separator is literal text: pandas reads a longer one as a regex
            p,
            sep=sep if len(sep) == 1 else re.escape(sep),
            header=0 if header else None,
            usecols=usecols,
            keep_default_na=False,
            dtype=str if as_text else None,
            engine="python" if len(sep) > 1 else "c",
            skipinitialspace=True,
            compression=None,  # bytes as they are: compressed ones were refused (bom_length),
        )  # and a text file named .gz / .xz / .zip would be handed to a decompressor
    except (ValueError, pd.errors.ParserError) as exc:
        if isinstance(exc, UnicodeDecodeError):  # name the line (bench.data.inputs' reader)
            for _ in text_lines(p, expected="a ratings table (CSV, TSV or Parquet)", plain=False):
                pass
        raise DataError(f"could not parse with separator {sep!r}: {exc}", path=p) from exc
    if header:
        frame.columns = [names[i] for i in usecols]
        if not as_text:
            _refuse_repeated_header(frame, p, lines)
    if lines is not None:
        frame.attrs["lines"] = lines[int(header):]  # each data row's file line
    return frame


def _separator_hint(first: str, sep: str, names: list[str]) -> str:
    """What a header that does not hold the columns may be: a header of one field that holds
    another separator (a ``;`` export read with commas)."""
    if len(names) == 1:
        other = next((c for c in ("\t", "::", ";", "|", ",") if c != sep and c in first), None)
        if other is not None:
            return (f"; the line holds {other!r}, not {sep!r}: give the separator, "
                    f"'ltrbench convert --sep {other!r}' (sep={other!r} in Python; 'ltrbench "
                    "run --dataset' reads a .csv table with ',' and a .tsv with tabs, or the "
                    "folder convert writes)")
    return ""


def _refuse_repeated_header(frame: pd.DataFrame, p: Path, lines: np.ndarray | None) -> None:
    """A data line equal to the header (files exported with their headers and joined) is
    refused naming its line: its cells would otherwise be a user ``user`` who rated an item
    ``item`` (text ids, implicit feedback) or a rating that is no number."""
    if any(frame[name].dtype.kind != "O" and not pd.api.types.is_string_dtype(frame[name].dtype)
           for name in frame.columns):
        return  # a column of numbers holds no header name (checked first: no text pass)
    same = np.ones(frame.shape[0], dtype=bool)
    for name in frame.columns:
        same &= frame[name].astype(str).str.strip().eq(str(name)).to_numpy(dtype=bool)
    if same.any():
        raise DataError(REPEATED_HEADER, path=p,
                        line=int(np.flatnonzero(same)[0]) + 2 if lines is None
                        else int(lines[np.flatnonzero(same)[0] + 1]))


def _first_line(p: Path) -> str:
    with open(p, encoding="utf-8", errors="replace") as fh:
        return fh.readline().rstrip("\r\n").lstrip("\ufeff")


def _split(line: str, sep: str) -> list[str]:
    return header_fields(line, sep)


def guess_sep(p: Path) -> str:
    """The column separator of a ratings text file: from the extension (``.csv`` comma,
    ``.tsv``/``.tab`` tab), else the first of tab, ``::``, comma, semicolon, ``|`` on the
    first line; the rule of both engines (:mod:`bench.data.dask_ratings`)."""
    suffix = p.suffix.lower()
    if suffix == ".csv":
        return ","
    if suffix in (".tsv", ".tab"):
        return "\t"
    with open(p, "rb") as fh:  # part-0.csv.gz: said compressed, not "cannot tell the separator"
        refuse_compressed(fh.read(HEAD), p)  # (or a separator guessed in its bytes, by chance)
    line = _first_line(p)
    for cand in ("\t", "::", ",", ";", "|"):
        if cand in line:
            return cand
    raise DataError("cannot tell the column separator from the first line; pass sep=", path=p,
                    line=1)


def _ids(col: pd.Series, p: Path, name: str, where, role: str,  # type: ignore[no-untyped-def]
         texts: Callable[[], pd.Series | None]) -> tuple[np.ndarray, pd.DataFrame | None]:
    """An id column as int64 ids, and the mapping of numbered ids (``None``: ids kept).

    Integer ids within int64 are kept. Ids written as decimals (``10.0``, ``1e20``, ``inf``) are
    read again as written and compared by exact decimal value (:func:`_by_value`): whole
    numbers within int64 are kept as those integers (``1``, ``1.0`` and ``1e0`` are one id);
    if any is beyond (``1e20``, ``inf``), the column is numbered, so ``1e20`` and ``2e20`` stay
    two ids (a float64 would make them one int64); a fractional id is refused. Parquet float
    columns hold float64 values, compared as such. Any other text column is numbered by its
    text (ids compare as text, :mod:`bench.data.inputs`).
    """
    _scalar_ids(col, p, name, where)  # first: bytes that are no UTF-8 cannot become text
    _no_missing(col, p, name, where)
    _text_ids(col, p, name, where)
    if col.dtype.kind == "i" or (col.dtype.kind == "u" and (col.shape[0] == 0
                                                         or int(col.max()) <= INT64_MAX)):
        return col.to_numpy(np.int64), None
    if col.dtype.kind == "f":
        written = texts()  # the cells as written: a float64 may have merged two of them
        values = col.to_numpy(np.float64)
        if written is not None and _exact_whole(values, written.astype(str).str.strip()):
            return values.astype(np.int64), None
        cells = [repr(float(v)) for v in values] if written is None \
            else written.astype(str).str.strip().tolist()
        return _by_value(cells, p, name, where, role)
    text = col.astype(str).str.strip(ASCII_BLANKS)  # a no-break space is part of the id, as in TREC
    if text.str.fullmatch(r"[-+]?[0-9]{1,18}").all():
        return text.astype(np.int64).to_numpy(), None
    if text.str.fullmatch(_NUMBER_ID.pattern, case=False).all():  # Parquet decimals: by value,
        return _by_value(text.tolist(), p, name, where, role)  # 1.5 refused as in a CSV, Dask
    return _mixed_keys(text.tolist(), role)


def _exact_whole(values: np.ndarray, texts: pd.Series) -> bool:
    """Whether every float is a whole number below 2^53 parsed from at most 15 characters
    without an exponent: a
    decimal of at most 15 significant digits is told apart from every other by its float64
    (DBL_DIG = 15), and a fractional one of them cannot round to a whole float64 there, so these
    values are the exact ids as written (the vectorised fast path of :func:`_by_value`)."""
    finite = np.isfinite(values)
    return bool(finite.all() and (values == np.round(values)).all()
                and (np.abs(values) < float(2**53)).all() and (texts.str.len() <= 15).all()
                and not texts.str.contains("[eE]").any())  # 1e-400 underflows to a whole 0.0


def number_cells(col: pd.Series, p: Path | None, name: str, where,  # type: ignore[no-untyped-def]
                 written: Callable[[], pd.Series | None] | None = None) -> np.ndarray:
    """A rating column as float64 under the data files' grammar (text cells plain decimal
    numbers, :func:`bench.data.inputs.is_plain_float`; every value finite); the first bad cell
    is a DataError naming ``p``, ``where(i)`` (its line or row), the column and ``written()``'s
    cell. The rule of every ratings reader: here, and Dask partitions (``dask_cells``)."""
    _no_missing(col, p, name, where, spelled=True)
    if col.dtype.kind not in "iuf":  # text cells: the strict grammar of bench.data.inputs
        for i, cell in enumerate(col.astype(str).str.strip(ASCII_BLANKS).tolist()):
            if not is_plain_float(cell):
                parse_float(cell, what="value", path=p, column=name, **where(i))
    values: np.ndarray = pd.to_numeric(col, errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(values)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise DataError(nonfinite_message(col.iloc[i], written, i), path=p, column=name, **where(i))
    return values


def timestamp_cells(col: pd.Series, p: Path | None, name: str, where) -> np.ndarray:  # type: ignore[no-untyped-def]
    """A timestamp column as int64 seconds: dates as they are, a column of numbers whole
    seconds within +-:data:`MAX_SECONDS` in one unit, else text dates parsed (UTC); a date
    beside a number is refused. The one grammar of every ratings reader: here, and Dask
    partitions (:mod:`bench.data.dask_cells`)."""
    _no_missing(col, p, name, where, spelled=True)
    if col.dtype.kind == "M" or isinstance(col.dtype, pd.DatetimeTZDtype):
        seconds = datetime_seconds(col)
        far = np.flatnonzero(~(np.abs(seconds) < MAX_SECONDS))  # the numeric rule's range
        if far.shape[0]:
            i = int(far[0])
            raise DataError(f"timestamp {col.iloc[i]} is {seconds[i]} seconds from 1970: "
                            "expected a date within +-10^12 seconds (about 31,700 years)",
                            path=p, column=name, **where(i))
        return seconds
    if col.dtype.kind in "mb":  # a duration (microseconds in Parquet) or a bool: no time
        raise DataError(f"timestamp {_show(col.iloc[0])!r} is a {col.dtype} value, not a point "
                        "in time: expected seconds since the epoch or a date/time", path=p,
                        column=name, **where(0))
    refuse_rounded_seconds(col.to_numpy(), path=p, column=name, where=where)  # float32
    numeric = pd.to_numeric(col, errors="coerce")
    if numeric.notna().any():  # a numeric column: every cell must be a number of seconds
        if not numeric.notna().all():
            i = int(np.flatnonzero(numeric.isna().to_numpy())[0])
            cell = str(col.iloc[i])
            raise DataError(f"timestamp {_show(col.iloc[i])!r} is not a number of seconds since "
                            "the epoch, as the other cells of the column are"
                            f"{comma_hint(cell)}{dos_eof_hint(cell)}{space_hint(cell)}",
                            path=p, column=name,
                            **where(i))
        values: np.ndarray = numeric.to_numpy(dtype=np.float64)
        frac = (values != np.floor(values)) | ~(np.abs(values) < MAX_SECONDS)
        if frac.any():
            i = int(np.flatnonzero(frac)[0])
            raise DataError(timestamp_message(col.iloc[i]), path=p, column=name, **where(i))
        refuse_mixed_units(values, path=p, column=name, where=where)
        return values.astype(np.int64)
    seconds, bad, why = text_dates(col)  # ISO 8601, or one reading (bench.data.date_text)
    if bad is not None:
        raise DataError(str(why), path=p, column=name, **where(bad))
    return seconds


def timestamp_message(value: object) -> str:
    """The refusal of a numeric timestamp that is not whole or not within +-:data:`MAX_SECONDS`
    (the rule of every ratings reader: local here, Dask :mod:`bench.data.dask_ratings`), with
    the unit it may be in (a date of 1973..2286 in milli-, micro- or nanoseconds)."""
    unit = epoch_unit(value)
    return (f"timestamp {_show(value)!r} is not a whole number of seconds within +-10^12 "
            "(about 31,700 years either side of 1970)"
            + (f"; {unit[0]} since the epoch? divide the column by {unit[1]}" if unit else ""))


def epoch_unit(value: object) -> tuple[str, str] | None:
    """The unit a timestamp beyond the seconds' range is a date of 1973..2286 in, if any."""
    try:
        v = abs(float(value))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    for low, unit, factor in ((1e11, "milliseconds", "1000"), (1e14, "microseconds", "1000000"),
                              (1e17, "nanoseconds", "1000000000")):
        if low <= v < low * 100:
            return unit, factor
    return None


def _show(value: object) -> object:
    """A cell as the user wrote it (numpy scalars as plain Python numbers)."""
    return value.item() if isinstance(value, np.generic) else value


def _no_missing(col: pd.Series, p: Path | None, name: str, where,  # type: ignore[no-untyped-def]
                spelled: bool = False) -> None:
    """An empty or null cell is refused as a missing value; with ``spelled``, so is a text cell
    that spells one (``NULL``, ``\\N`` of a database dump, ``NA``: :data:`_NULL_WORDS`),
    named as such rather than as "no number" (ids say it in their own words: id_cells)."""
    missing = col.isna().to_numpy(dtype=bool, copy=True)
    text = col.dtype == object or pd.api.types.is_string_dtype(col.dtype)
    if text:
        cells = col.astype(str).str.strip()
        missing |= cells.eq("").to_numpy(dtype=bool)
    if missing.any():
        i = int(np.flatnonzero(missing)[0])
        raise DataError("missing value", path=p, column=name, **where(i))
    if spelled and text and (null := cells.isin(_NULL_WORDS).to_numpy(dtype=bool)).any():
        i = int(np.flatnonzero(null)[0])
        source = ("a database dump's NULL (MySQL, PostgreSQL COPY)" if cells.iloc[i] == DUMP_NULL
                  else "a SQL client's or pandas' spelling of NULL")
        raise DataError(f"missing value {cells.iloc[i]!r} ({source}): expected a value in every "
                        "row; drop or fill the rows with no value before the export", path=p,
                        column=name, **where(i))


def _resolve_duplicates(frame: pd.DataFrame, how: str, p: Path, where, raw: pd.DataFrame,  # type: ignore[no-untyped-def]
                        cols: dict[str, Column]) -> pd.DataFrame:
    dup = frame.duplicated(subset=["user", "item"], keep="first").to_numpy()
    if not dup.any():
        return frame
    if how == "error":
        i = int(np.flatnonzero(dup)[0])
        u, it = raw[cols["user"]].iloc[i], raw[cols["item"]].iloc[i]
        raise DataError(
            f"duplicate (user={u}, item={it}) pair ({int(dup.sum())} repeated rows in all); "
            "pass duplicates='last' (keep the latest) or 'mean' (average the ratings)",
            path=p,
            **where(i),
        )
    if how == "last":
        order = np.argsort(frame["timestamp"].to_numpy(), kind="stable")
        kept = frame.iloc[order].drop_duplicates(subset=["user", "item"], keep="last")
        return kept.sort_index()
    grouped = frame.assign(first_row=frame.index).groupby(["user", "item"], sort=False)
    out = grouped.agg(rating=("rating", "mean"), timestamp=("timestamp", "max"),
                      first_row=("first_row", "min")).reset_index()
    return out.set_index("first_row")[["user", "item", "rating", "timestamp"]]
