"""Ratings too large for one process: a Dask DataFrame of ``user, item, rating, timestamp``.

:func:`read_ratings_frame` reads, without loading them into the client:

* a MovieLens CSV folder (``ratings.csv`` with ``userId,movieId,rating,timestamp``; the small
  ``movies.csv`` and ``tags.csv`` beside it are read into memory as side tables);
* a CSV/TSV file, a glob of them (``ratings-*.csv``) or a folder of ``*.csv`` shards, with a
  header; columns by name (``--user`` ...) or the usual names (``user``/``userId``/``user_id``,
  ``item``/``movieId``/``item_id``, ``rating``, ``timestamp``);
* a Parquet file or a folder of ``*.parquet`` shards, columns as for CSV (any other data file
  in a folder, ``x.CSV``, ``x.csv.gz``, a hive sub-folder, is refused: it would not be read).
Without a rating column every row is an implicit rating of 1; without a timestamp column all
timestamps are 0. Every shard's header (CSV) or footer (Parquet) is checked before Dask reads
any (every column there, of a type the ratings can hold; one format per table), and every
partition when it is computed: CSV ids and timestamps are read as their text and must spell a
whole number within int64 by exact decimal value (``7``, ``7.0``, ``1e3``; not ``1.5`` nor
``1.0000000000000000001``, which a float64 would read as 1) -- the rule of the local reader
(:mod:`bench.data.tabular`); a timestamp column of text dates (CSV, or Parquet strings) is read
as the local reader reads it, and CSV and Parquet text ratings are held to its number grammar
(:mod:`bench.data.dask_cells`); Parquet integer ids are kept exactly (uint64 ids above int64
beside signed ids in another shard numbered by value, as locally), float ids must be whole and
below 2^53; ratings finite and within +-2^53. The local reader's other rules hold too, from
:mod:`bench.data.inputs` and :mod:`bench.data.delimited` (one owner each): a CSV file is UTF-8
(UTF-16/32 and a stray character in the header refused), every line has the header's field
count (``dd.read_csv(usecols=...)`` drops extra fields silently; checked per file before Dask
reads any), a column named twice is refused (CSV header, Parquet schema), and a text id spelled
as a missing value (``NA``, ``nan``, ``null``) or holding a stray character (NUL, an inner
byte-order mark, VT/FF/NEL/U+2028) is named as such. A bad value is a
:class:`~bench.errors.DataError` naming the file, the line (CSV) or row (Parquet), the column
and the value."""

from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.data.compressed import unreadable_parquet
from bench.data.dask_backend import on_pandas
from bench.data.dask_cells import (
    date_line_problem,
    decimals_as_numbers,
    is_date_text,
    rating_values,
    text_seconds,
)
from bench.data.dask_cells import rating_problem as rating_problem
from bench.data.dask_cluster import require_dask
from bench.data.dask_headers import check_csv_text, csv_header, refuse_data_line
from bench.data.dask_ids import (
    ID_ROLES,
    id_codes,
    one_family,
    whole_number,
    whole_texts,
    with_codes,
)
from bench.data.dask_movielens import MovieLensGrammar
from bench.data.dask_qids import beyond_int64
from bench.data.dask_units import PATH_COLUMN as _PATH
from bench.data.dask_units import check_seconds, one_unit_across, refuse_far_int96, tag_stamps
from bench.data.folder_names import missing_note
from bench.data.inputs import check_input_file
from bench.data.query_shards import warn_many_small
from bench.data.ratings_columns import check_guess
from bench.data.shard_listing import index_names, indexed_columns, read_files, read_row_groups
from bench.data.shard_strays import folder_shards
from bench.data.tabular import check_columns, guess_sep
from bench.errors import ConfigError, DataError

PathLike = str | os.PathLike[str]

@dataclass(frozen=True, eq=False)
class RatingsFrame:
    """A ratings table as a Dask DataFrame (``user``, ``item`` int64, ``rating`` float64,
    ``timestamp`` int64) with the side tables of :class:`~bench.data.ratings.Ratings`."""

    frame: Any
    items: pd.DataFrame | None = None
    tags: pd.DataFrame | None = None
    source: str = ""
    files: list[Path] = field(default_factory=list)
    implicit: bool = False
    sep: str | None = None
    columns: dict[str, str | None] = field(default_factory=dict)
    numbered: tuple[str, ...] = ID_ROLES  # id roles read as ids (text numbered), not numbers
    codes: Any = None  # the lazy numbering of text ids (dask_ids.id_codes), for dask_places

    def locate(self, exc: BaseException) -> DataError:
        """The CSV parser's refusal ``exc`` as a DataError naming the file, the line and the
        column of the first bad value (a scan of the files; the error path only)."""
        if self.sep is not None:
            for f in self.files:
                found = bad_line(f, self.sep, self.columns, self.numbered)
                if found is not None:
                    return found
        return parse_error(exc, self.source or None)

    def sha256(self) -> dict[str, str]:
        """Digest of every file read (streamed)."""
        from bench.data.hashing import sha256_file
        return {f.name: sha256_file(f) for f in self.files}


@on_pandas
def read_ratings_frame(path: PathLike, *, user: str | None = None, item: str | None = None,
                       rating: str | None = None, timestamp: str | None = None,
                       sep: str | None = None, blocksize: str | int = "16MB") -> RatingsFrame:
    """The ratings at ``path`` as a :class:`RatingsFrame` (see the module docstring)."""
    require_dask()
    import dask.dataframe as dd

    p = Path(path)
    files, items, tags, side = _ratings_files(p, path)
    for f in files:  # a FIFO named r.csv blocked the first read for ever; a folder, a dead link
        check_input_file(f, expected="a ratings file (CSV, TSV or Parquet)")
    warn_many_small(files, path)  # thousands of tiny shards: minutes of scheduling, said
    parquet = files[0].suffix == ".parquet"
    other = next((f for f in files if (f.suffix == ".parquet") != parquet), None)
    if other is not None:
        raise DataError(f"expected {'Parquet' if parquet else 'CSV/TSV'} files like "
                        f"{files[0].name} (one table in one format)", path=other)
    if parquet:
        names = _parquet_columns(files[0])
    else:
        sep = sep or guess_sep(files[0])  # the local reader's guess (r.dat: '::')
        names = csv_header(files[0], sep)
        refuse_data_line(names, sep, (user, item), files[0])  # no header: said, not guessed
    cols = {"user": _column(names, "user", user, files[0]),
            "item": _column(names, "item", item, files[0]),
            "rating": _column(names, "rating", rating, files[0], required=False),
            "timestamp": _column(names, "timestamp", timestamp, files[0], required=False)}
    check_columns(**cols)  # one column for two roles: refused, as the local reader refuses it
    if (user, item, rating, timestamp) == (None,) * 4:  # a guess: the rule of run --dataset
        check_guess(names, cols, p, how="name the columns: --user COL --item COL --rating COL "
                                          "--timestamp COL (omit --rating for implicit feedback)")
    use = list(dict.fromkeys(c for c in cols.values() if c is not None))
    wide_columns = _check_shards(files, parquet, sep, cols)
    if parquet:
        # escaped: fsspec expands a path as a pattern (a folder named data[1] read no file)
        # a column a pandas job wrote as its index (set_index("user")): Dask mis-reads it
        # (read by pyarrow: Dask's reader raised pandas' deprecation warnings, -W error's exit)
        raw = read_files(files, use) if indexed_columns(files, use) else read_row_groups(
            files, use)
        raw = raw.assign(**{_PATH: str(files[0]) if len(files) == 1 else "Parquet shards"})
    else:
        # every column as its text: ids and timestamps checked whole and exact in _typed
        # (1.0000000000000000001 != 1), ratings under the local number grammar (pandas' float
        # parser read 'True' as 1.0); a MovieLens file's ratings as its local reader reads them
        movielens = p / "ratings.csv" in files
        text = {c for r, c in cols.items() if c and (r != "rating" or not movielens)}
        try:  # a separator of several characters is literal text, as in the header check (pandas
            # reads it as a regular expression): the local reader's rule (bench.data.tabular)
            literal = re.escape(sep) if sep is not None and len(sep) > 1 else sep
            raw = dd.read_csv([glob.escape(str(f)) for f in files], sep=literal, usecols=use,
                              blocksize=blocksize,
                              dtype={c: object if c in text else "float64" for c in use},
                              include_path_column=_PATH, encoding="utf-8-sig",
                              skipinitialspace=True,  # 'user, item': as the local reader
                              compression=None)  # text named .xz is text: as the local reader
        except (ValueError, TypeError) as exc:  # the first block is parsed to learn the dtypes
            if is_parse_error(exc):
                raise bad_line(files[0], sep or ",", cols, () if p / "ratings.csv" in files
                               else ID_ROLES) or parse_error(exc, files[0]) from None
            raise
    # partitions as computed: Dask fuses small shards read for a few columns (dask-expr
    # FusedParquetIO), across files; then a bad value is placed by a scan of the shards
    paths = _parquet_partition_files(files, raw.optimize().npartitions) if parquet else None
    scan = [str(f) for f in files] if parquet and paths is None and len(files) > 1 else None
    movielens = p / "ratings.csv" in files
    typed = MovieLensGrammar(_typed) if movielens else _typed  # as locally
    wide = tuple(r for r in ID_ROLES if cols[r] in wide_columns)
    codes = None if movielens else id_codes(raw, cols, wide)  # text ids numbered, as locally
    frame = raw.map_partitions(with_codes, codes, typed, bad_line, cols,
                               None if parquet else sep, paths, scan, meta=_META)
    if cols["timestamp"] is not None and (len(files) > 1 or raw.npartitions > 1 or side):
        frame = one_unit_across(frame, files, cols, sep, _typed, blocksize, tag_stamps(side, tags))
    return RatingsFrame(frame=frame, items=items, tags=tags,
                        source=str(p if p.is_dir() or len(files) > 1 else files[0]),
                        files=[*files, *side], implicit=cols["rating"] is None,
                        sep=None if parquet else sep, columns=cols,
                        numbered=() if movielens else ID_ROLES, codes=codes)


def ratings_files(path: PathLike) -> list[Path]:
    """The ratings files ``path`` names (a file, a glob, a folder of shards, a MovieLens
    folder's ``ratings.csv``), as :func:`read_ratings_frame` lists them."""
    return _ratings_files(Path(path), path)[0]


def _ratings_files(p: Path, path: PathLike) -> tuple[list[Path], pd.DataFrame | None,
                                                    pd.DataFrame | None, list[Path]]:
    """The ratings files ``path`` names, and a MovieLens folder's side tables (items, tags,
    their files)."""
    if p.is_dir() and (p / "ratings.csv").is_file():
        from bench.data.movielens import read_side_tables

        items, tags, side = read_side_tables(p)
        return [p / "ratings.csv"], items, tags, side
    legacy = next((n for n in ("ratings.dat", "u.data") if (p / n).is_file()), None)
    if p.is_dir() and legacy is not None:  # ml-1m / ml-10m / ml-100k: not shards
        raise DataError(f"a MovieLens folder of {legacy}: the Dask engine reads MovieLens' CSV "
                        "layout (ratings.csv) and folders of *.parquet / *.csv shards; convert "
                        "this folder with --engine local", path=p)
    if p.is_dir():
        return folder_shards(p, ("parquet", "csv", "tsv"), what="ratings shards",
                             expected="a MovieLens folder (ratings.csv) or a folder of "
                                      "*.parquet / *.csv shards"), None, None, []
    if os.path.lexists(p):  # a FIFO or a device too: refused below, named. Before a pattern:
        return [p], None, None, []  # a file named r[1].csv is itself, not the pattern of r1.csv
    if any(ch in str(path) for ch in "*?["):
        files = [Path(f) for f in sorted(glob.glob(str(path)))]
        if not files:
            raise DataError("no file matches this pattern", path=str(path))
        return files, None, None, []
    raise DataError(f"no such file or folder{missing_note(p)}", path=p)


#: Float64 ids (Parquet float columns) are exact whole numbers only below 2^53.
_EXACT = float(2**53)
_INT64_MAX = 2**63 - 1
_WHOLE = ("a whole number (ids and timestamps are integers within int64, and a float "
          "column's below 2^53)")
_BYTES = ("integers (a bytes id has no one text: every engine refuses it, --engine local "
          "too)")
_META = pd.DataFrame({"user": pd.Series([], dtype="int64"), "item": pd.Series([], dtype="int64"),
                      "rating": pd.Series([], dtype="float64"),
                      "timestamp": pd.Series([], dtype="int64")})


def parse_error(exc: BaseException, where: PathLike | str | None) -> DataError:
    """The CSV parser's own message (the deepest ``ValueError`` in what Dask raised, which
    quotes the bad value; else the innermost cause) as a DataError naming ``where``."""
    chain: list[BaseException] = [exc]
    while (nxt := chain[-1].__cause__ or chain[-1].__context__) is not None and len(chain) < 20:
        chain.append(nxt)
    values = [e for e in chain if isinstance(e, ValueError)
              and not str(e).startswith("An error occurred")]
    cause = values[-1] if values else chain[-1]
    return DataError(f"cannot read the ratings as numbers: {cause}", path=where)


def is_parse_error(exc: BaseException) -> bool:
    """Whether ``exc`` (or what it wraps) is the CSV parser refusing a value."""
    e: BaseException | None = exc
    for _ in range(20):
        if e is None:
            return False
        if "could not convert" in str(e) or "Unable to parse" in str(e) \
                or "read_csv" in str(e) or type(e).__module__.startswith("pandas.errors"):
            return True
        e = e.__cause__ or e.__context__
    return False


def bad_line(path: Path, sep: str, cols: dict[str, str | None],
             numbered: tuple[str, ...] = ()) -> DataError | None:
    """A DataError naming ``path``, the line (1-based, the header is line 1), the column and the
    value of the first bad value of a ratings CSV (ids and timestamps whole numbers, ratings
    finite numbers), or None. Read again with :mod:`csv` on the error path only, so that a
    partition's refusal names the user's line (:mod:`bench.data.inputs`)."""
    import csv

    from bench.data.inputs import id_cell_problem, parse_float, stray_character
    from bench.data.tabular import MAX_SECONDS, timestamp_message

    ids = {cols[r] for r in ("user", "item") if cols.get(r)}
    whole = {cols[r] for r in ("user", "item", "timestamp") if cols.get(r) and r not in numbered}
    wanted = {c for c in cols.values() if c}
    numbers, first_date = False, None  # a date beside a number: the date is named, as locally
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            lines = (ln.replace(sep, "\x1f") for ln in fh) if len(sep) > 1 else fh
            reader = csv.reader(lines, delimiter="\x1f" if len(sep) > 1 else sep)
            header = [h.strip() for h in next(reader, [])]
            index = {c: header.index(c) for c in wanted if c in header}
            for row in reader:
                if not row:
                    continue
                for c, i in index.items():
                    cell = row[i] if i < len(row) else ""
                    why = id_cell_problem(cell) if c in ids else \
                        stray_character(cell.encode("utf-8", "replace"))
                    v = cell.strip(" \t")
                    stamp = c == cols.get("timestamp")
                    if why is None and stamp and c in whole and is_date_text(v):  # local rule
                        why = date_line_problem(v, numbers)
                        first_date = first_date or (reader.line_num, v)
                    elif why is None and c in whole:
                        n = whole_number(v)
                        numbers = numbers or (stamp and n is not None)
                        why = f"value {v!r} is not {_WHOLE}" if n is None else \
                            timestamp_message(v) if stamp and not abs(n) < MAX_SECONDS else \
                            date_line_problem(first_date[1], True) if stamp and first_date \
                            else None
                        if why is not None and stamp and first_date and n is not None \
                                and abs(n) < MAX_SECONDS:  # a date before this number: its line
                            return DataError(why, path=path, line=first_date[0], column=c)
                    elif why is None and c not in ids:  # a number's grammar, then its range
                        try:
                            why = rating_problem(parse_float(v, what="value"))
                        except DataError as exc:
                            why = exc.reason
                    if why is not None:
                        return DataError(why, path=path, line=reader.line_num, column=c)
    except (OSError, UnicodeDecodeError, csv.Error):
        return None
    return None


def _parquet_partition_files(files: list[Path], npartitions: int) -> list[tuple[str, int]] | None:
    """The file and first row (0-based, in that file) of each partition of Parquet files read
    one partition per row group (in file order), so that a partition's bad value names its own
    file and row; None if the count differs."""
    import pyarrow.parquet as pq

    out: list[tuple[str, int]] = []
    try:
        for f in files:
            meta = pq.ParquetFile(f).metadata
            first = 0
            for g in range(max(1, meta.num_row_groups)):
                out.append((str(f), first))
                first += meta.row_group(g).num_rows if g < meta.num_row_groups else 0
    except (OSError, ValueError):
        return None
    return out if len(out) == npartitions else None


def _typed(part: pd.DataFrame, cols: dict[str, str | None], sep: str | None = None,
           paths: list[tuple[str, int]] | None = None, scan: list[str] | None = None,
           partition_info: dict[str, Any] | None = None) -> pd.DataFrame:
    """One partition in the ratings dtypes; a bad value is a DataError naming file, line (CSV)
    or row (Parquet: the partition's own file and the row in it, from ``paths`` and Dask's
    ``partition_info``) and column."""
    where = str(part[_PATH].iloc[0]) if part.shape[0] and _PATH in part.columns else None
    first_row: int | None = None
    if paths is not None and partition_info is not None \
            and 0 <= int(partition_info.get("number", -1)) < len(paths):
        where, first_row = paths[int(partition_info["number"])]
    if sep is not None and where is not None:
        try:
            return _typed(part, cols)
        except DataError as exc:
            raise bad_line(Path(where), sep, cols) or exc from None
    if scan:
        try:
            return _typed(part, cols)
        except DataError as exc:
            use = list(dict.fromkeys(c for c in cols.values() if c is not None))
            for f in scan:  # the first shard that holds a bad value, with its row
                try:
                    _typed(pd.read_parquet(f, columns=use), cols, None, [(f, 0)], None,
                           {"number": 0})
                except DataError as found:
                    raise found from None
            raise exc from None

    def row(k: int) -> int | None:
        return None if first_row is None else first_row + k + 1

    part = decimals_as_numbers(part, cols["timestamp"])  # Parquet decimals: as locally

    out = {}
    for name in ("user", "item", "timestamp"):
        src = cols[name]
        if src is None:
            out[name] = np.zeros(part.shape[0], dtype=np.int64)
            continue
        kind = part[src].dtype.kind
        if kind == "i" or (kind == "u" and (part.shape[0] == 0
                                            or int(part[src].max()) <= _INT64_MAX)):
            out[name] = part[src].to_numpy(np.int64)  # Parquet integers: kept exactly
            if name == "timestamp":  # the local rule: seconds within +-10^12
                check_seconds(out[name], part[src], where, row, src)
            continue
        if kind in "fu":
            v = part[src].to_numpy(dtype=np.float64, na_value=np.nan)
            # a float64 is a whole number exactly only below 2^53 (beyond, 2^53 and 2^53 + 1,
            # or 1e20 and 2e20, would become one id)
            bad = ~np.isfinite(v) | (v != np.round(v)) | (np.abs(v) >= _EXACT)
            k = int(np.flatnonzero(bad)[0]) if bad.any() else -1
            values = v.astype(np.int64) if k < 0 else v
        else:  # CSV text, read as written
            values, k = whole_texts(part[src])
            if k >= 0 and name == "timestamp" and is_date_text(part[src].iloc[k]):
                values, k = text_seconds(part[src], where, row, src), -1  # dates, as locally
        if k >= 0:
            cell = part[src].iloc[k]
            what = "a timestamp" if name == "timestamp" else f"a {name} id"
            bad_id = f"missing value (null): expected {what} on every row" if pd.isna(cell) \
                else f"value {_shown(cell)} is not {_WHOLE}"
            raise DataError(bad_id, path=where, row=row(k), column=src)
        if name == "timestamp":  # the local rule: seconds within +-10^12
            check_seconds(values, part[src], where, row, src)
        out[name] = values
    src = cols["rating"]
    out["rating"] = np.ones(part.shape[0], dtype=np.float64) if src is None \
        else rating_values(part[src], where, row, src)  # the local grammar (bench.data.dask_cells)
    return pd.DataFrame(out, columns=["user", "item", "rating", "timestamp"],
                        index=part.index)


def _shown(value: object) -> str:
    return repr(value.item() if isinstance(value, np.generic) else value)


def _column(names: list[str], role: str, given: str | None, path: Path, *,
            required: bool = True) -> str | None:
    if given is not None:
        if given not in names:
            raise DataError(f"no column {given!r} for the {role}s; the columns are "
                            f"{', '.join(names)}", path=path)
        return given
    from bench.data.ratings_columns import ROLE_NAMES, pick

    found = pick(names, ROLE_NAMES[role], path)  # the names of every path, exactly, then case
    if found is None and required:
        raise ConfigError(f"{path}: no {role} column among {', '.join(names)}; name it with "
                          f"--{role} (one of the usual names: {', '.join(ROLE_NAMES[role])})")
    return found



def _check_shards(files: list[Path], parquet: bool, sep: str | None,
                  cols: dict[str, str | None]) -> set[str]:
    """Every shard's header (CSV/TSV: names and text) or footer (Parquet: columns and types,
    one kind per column across shards), before Dask reads any; returns the id columns of uint64
    ids above int64 (Parquet), which :func:`bench.data.dask_ids.id_codes` numbers by value."""
    kinds: dict[str, tuple[str, Path, object]] = {}
    wide: set[str] = set()
    for f in files:
        if parquet:
            _parquet_columns(f, cols, kinds, wide)
        else:
            csv_header(f, sep or ",", cols)
            check_csv_text(f, sep or ",")
    return wide

def _parquet_columns(path: Path, cols: dict[str, str | None] | None = None,
                     seen: dict[str, tuple[str, Path, object]] | None = None,
                     wide: set[str] | None = None) -> list[str]:
    """The column names of a Parquet shard (its footer only); with ``cols``, a DataError naming
    the file and column when one is absent or of a type the ratings cannot hold (ids integers,
    floats or text -- text numbered as the local reader numbers it, :mod:`bench.data.dask_ids`
    --, timestamps integers or floats, ratings numbers), or when an id column is text in one
    shard and numbers in another (``seen``: the first shard's kind of each column; the shards
    are one table); ``wide`` gets the id columns of uint64 ids above int64."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        schema = pq.read_schema(path)
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise DataError(unreadable_parquet(path, exc), path=path) from None
    from bench.data.delimited import check_column_once
    from bench.data.parquet import refuse_letor_split

    refuse_letor_split(schema, path)  # a conversion's own split given back as ratings

    ranged = index_names(schema) - set(schema.names)  # pandas: 1, 2, 3 as a range index
    names = list(schema.names) + sorted(ranged)
    for role, c in (cols or {}).items():
        if c is None:
            continue
        check_column_once(names, role, c, path, line=None)
        if c not in names:
            raise DataError(f"no column {c!r} (the {role}s); its columns are "
                            f"{', '.join(names[:12])} (every shard of a table has its columns)",
                            path=path, column=c)
        kind = pa.int64() if c in ranged else schema.field(c).type
        if pa.types.is_dictionary(kind):
            kind = kind.value_type
        # text: ids numbered, dates and ratings read under the local grammar (dask_cells)
        text = pa.types.is_string(kind) or pa.types.is_large_string(kind)
        when = role == "timestamp" and (pa.types.is_timestamp(kind) or pa.types.is_date(kind))
        numeric = pa.types.is_integer(kind) or pa.types.is_floating(kind)
        decimal = role in ("rating", "timestamp") and pa.types.is_decimal(kind)  # as locally
        if wide is not None and role in ID_ROLES and pa.types.is_uint64(kind) \
                and beyond_int64(path, c):  # numbered by value (dask_ids.id_codes), as locally
            wide.add(c)
        if when:  # Dask reads INT96 dates as nanoseconds: wrapped beyond 1677-2262
            refuse_far_int96(path, c)
        if seen is not None and (text or when or numeric or decimal):
            one_family(seen, c, "text" if text else "dates" if when else "decimals" if decimal
                       else "numbers", path, kind)
        if not (text or when or numeric or decimal):  # a bool neither:
            raw = pa.types.is_binary(kind) or pa.types.is_large_binary(kind) \
                or pa.types.is_fixed_size_binary(kind)  # bytes: no one text (tabular's rule)
            raise DataError(f"column of type {kind}: expected "  # the local reader refuses it
                            f"{'numbers (a bool is not a rating)' if role == 'rating' else _BYTES if raw else _WHOLE}",
                            path=path, column=c)
    return names
