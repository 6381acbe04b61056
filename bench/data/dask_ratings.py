"""Ratings too large for one process: a Dask DataFrame of ``user, item, rating, timestamp``.

:func:`read_ratings_frame` reads, without loading them into the client:

* a MovieLens CSV folder (``ratings.csv`` with ``userId,movieId,rating,timestamp``; the small
  ``movies.csv`` and ``tags.csv`` beside it are read into memory as side tables);
* a CSV/TSV file, a glob of them (``ratings-*.csv``) or a folder of ``*.csv`` shards, with a
  header; columns by name (``--user`` ...) or the usual names (``user``/``userId``/``user_id``,
  ``item``/``movieId``/``item_id``, ``rating``, ``timestamp``);
* a Parquet file or a folder of ``*.parquet`` shards, columns as for CSV.

Without a rating column every row is an implicit rating of 1; without a timestamp column all
timestamps are 0. Every partition is checked when it is computed (ids whole numbers, ratings
finite): a bad value is a :class:`~bench.errors.DataError` naming the file, the column and the
value.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.errors import ConfigError, DataError

PathLike = str | os.PathLike[str]

_ALIASES = {
    "user": ("user", "userId", "user_id", "userid"),
    "item": ("item", "movieId", "item_id", "itemid", "movie_id"),
    "rating": ("rating", "score", "value"),
    "timestamp": ("timestamp", "time", "ts"),
}
_PATH = "__ltrbench_path__"


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

    def locate(self, exc: BaseException) -> DataError:
        """The CSV parser's refusal ``exc`` as a DataError naming the file, the line and the
        column of the first bad value (a scan of the files; the error path only)."""
        if self.sep is not None:
            for f in self.files:
                found = bad_line(f, self.sep, self.columns)
                if found is not None:
                    return found
        return parse_error(exc, self.source or None)

    def sha256(self) -> dict[str, str]:
        """Digest of every file read (streamed)."""
        from bench.data.hashing import sha256_file

        return {f.name: sha256_file(f) for f in self.files}


def read_ratings_frame(path: PathLike, *, user: str | None = None, item: str | None = None,
                       rating: str | None = None, timestamp: str | None = None,
                       sep: str | None = None, blocksize: str | int = "16MB") -> RatingsFrame:
    """The ratings at ``path`` as a :class:`RatingsFrame` (see the module docstring)."""
    from bench.data.dask_cluster import require_dask

    require_dask()
    import dask.dataframe as dd

    p = Path(path)
    items = tags = None
    side: list[Path] = []
    if p.is_dir() and (p / "ratings.csv").is_file():
        from bench.data.movielens import read_side_tables

        items, tags, side = read_side_tables(p)
        files = [p / "ratings.csv"]
    elif p.is_dir():
        files = sorted(p.glob("*.parquet")) or sorted(p.glob("*.csv")) or sorted(p.glob("*.tsv"))
        if not files:
            raise DataError("expected a MovieLens folder (ratings.csv) or a folder of *.parquet "
                            "/ *.csv shards", path=p)
    elif any(ch in str(path) for ch in "*?["):
        files = [Path(f) for f in sorted(glob.glob(str(path)))]
        if not files:
            raise DataError("no file matches this pattern", path=str(path))
    elif p.is_file():
        files = [p]
    else:
        raise DataError("no such file or folder", path=p)
    parquet = files[0].suffix == ".parquet"
    if parquet:
        names = _parquet_columns(files[0])
    else:
        sep = sep or ("\t" if files[0].suffix == ".tsv" else ",")
        names = _csv_header(files[0], sep)
    cols = {"user": _column(names, "user", user, files[0]),
            "item": _column(names, "item", item, files[0]),
            "rating": _column(names, "rating", rating, files[0], required=False),
            "timestamp": _column(names, "timestamp", timestamp, files[0], required=False)}
    use = [c for c in cols.values() if c is not None]
    if parquet:
        raw = dd.read_parquet([str(f) for f in files], columns=use, split_row_groups=True)
        raw = raw.assign(**{_PATH: str(files[0]) if len(files) == 1 else "Parquet shards"})
    else:
        try:
            raw = dd.read_csv([str(f) for f in files], sep=sep, usecols=use,
                              blocksize=blocksize, dtype={c: "float64" for c in use},
                              include_path_column=_PATH, encoding="utf-8-sig")
        except (ValueError, TypeError) as exc:  # the first block is parsed to learn the dtypes
            if is_parse_error(exc):
                raise bad_line(files[0], sep or ",", cols) or parse_error(exc, files[0]) from None
            raise
    paths = _parquet_partition_files(files, raw.npartitions) if parquet else None
    frame = raw.map_partitions(_typed, cols, None if parquet else sep, paths, meta=_META)
    source = str(p if p.is_dir() or len(files) > 1 else files[0])
    return RatingsFrame(frame=frame, items=items, tags=tags, source=source,
                        files=[*files, *side], implicit=cols["rating"] is None,
                        sep=None if parquet else sep, columns=cols)


#: Ids and timestamps of CSV shards are read as float64, exact for whole numbers below 2^53.
_EXACT = float(2**53)
_WHOLE = ("a whole number of magnitude below 2^53 (ids and timestamps are integers, read as float64 by the "
          "Dask engine; larger or text ids: use --engine local)")
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


def bad_line(path: Path, sep: str, cols: dict[str, str | None]) -> DataError | None:
    """A DataError naming ``path``, the line (1-based, the header is line 1), the column and the
    value of the first bad value of a ratings CSV (ids and timestamps whole numbers, ratings
    finite numbers), or None. Read again with :mod:`csv` on the error path only, so that a
    partition's refusal names the user's line (:mod:`bench.data.inputs`)."""
    import csv
    import math
    import re

    whole = {cols[r] for r in ("user", "item", "timestamp") if cols.get(r)}
    wanted = {c for c in cols.values() if c}
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
                    v = row[i].strip() if i < len(row) else ""
                    try:
                        x = float(v)
                    except ValueError:
                        x = math.nan
                    if c in whole and re.fullmatch(r"[+-]?[0-9]+", v):
                        x = float(v) if abs(int(v)) < _EXACT else math.inf  # exact, as text
                    if not math.isfinite(x) or (c in whole and (x != round(x) or abs(x) >= _EXACT)):
                        what = _WHOLE if c in whole else "a finite number"
                        return DataError(f"value {v!r} is not {what}", path=path,
                                         line=reader.line_num, column=c)
    except (OSError, UnicodeDecodeError, csv.Error):
        return None
    return None


def _parquet_partition_files(files: list[Path], npartitions: int) -> list[str] | None:
    """The file of each partition of Parquet files read one partition per row group (in file
    order), so that a partition's bad value names its own file; None if the count differs."""
    import pyarrow.parquet as pq

    try:
        out = [str(f) for f in files for _ in range(max(1, pq.ParquetFile(f).num_row_groups))]
    except (OSError, ValueError):
        return None
    return out if len(out) == npartitions else None


def _typed(part: pd.DataFrame, cols: dict[str, str | None], sep: str | None = None,
           paths: list[str] | None = None,
           partition_info: dict[str, Any] | None = None) -> pd.DataFrame:
    """One partition in the ratings dtypes; a bad value is a DataError naming file, line (CSV)
    and column (Parquet: the partition's own file, from ``paths`` and Dask's
    ``partition_info``)."""
    where = str(part[_PATH].iloc[0]) if part.shape[0] and _PATH in part.columns else None
    if paths is not None and partition_info is not None \
            and 0 <= int(partition_info.get("number", -1)) < len(paths):
        where = paths[int(partition_info["number"])]
    if sep is not None and where is not None:
        try:
            return _typed(part, cols)
        except DataError as exc:
            raise bad_line(Path(where), sep, cols) or exc from None
    out = {}
    for name in ("user", "item", "timestamp"):
        src = cols[name]
        if src is None:
            out[name] = np.zeros(part.shape[0], dtype=np.int64)
            continue
        if part[src].dtype.kind == "i":  # Parquet int64: kept exactly
            out[name] = part[src].to_numpy(np.int64)
            continue
        v = pd.to_numeric(part[src], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        # read as float64: a whole number is exact only below 2^53 (beyond, 2^53 and 2^53 + 1,
        # or 1e20 and 2e20 written as floats, would become one id)
        bad = ~np.isfinite(v) | (v != np.round(v)) | (np.abs(v) >= _EXACT)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise DataError(f"value {part[src].iloc[k]!r} is not {_WHOLE}", path=where, column=src)
        out[name] = v.astype(np.int64)
    src = cols["rating"]
    if src is None:
        out["rating"] = np.ones(part.shape[0], dtype=np.float64)
    else:
        r = pd.to_numeric(part[src], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        if not np.isfinite(r).all():
            k = int(np.flatnonzero(~np.isfinite(r))[0])
            raise DataError(f"value {part[src].iloc[k]!r} is not a finite number", path=where,
                            column=src)
        out["rating"] = r
    return pd.DataFrame(out, columns=["user", "item", "rating", "timestamp"],
                        index=part.index)


def _column(names: list[str], role: str, given: str | None, path: Path, *,
            required: bool = True) -> str | None:
    if given is not None:
        if given not in names:
            raise DataError(f"no column {given!r} for the {role}s; the columns are "
                            f"{', '.join(names)}", path=path)
        return given
    for alias in _ALIASES[role]:
        if alias in names:
            return alias
    if required:
        raise ConfigError(f"{path}: no {role} column among {', '.join(names)}; name it with "
                          f"--{role} (one of the usual names: {', '.join(_ALIASES[role])})")
    return None


def _csv_header(path: Path, sep: str) -> list[str]:
    try:
        with open(path, encoding="utf-8-sig") as f:
            first = f.readline().rstrip("\r\n")
    except OSError as exc:
        raise DataError(f"cannot read ({exc.strerror})", path=path) from None
    if not first:
        raise DataError("empty file: expected a header line naming the columns", path=path, line=1)
    return [c.strip() for c in first.split(sep)]


def _parquet_columns(path: Path) -> list[str]:
    import pyarrow.parquet as pq

    try:
        return list(pq.read_schema(path).names)
    except (OSError, ValueError) as exc:
        raise DataError(f"not a readable Parquet file ({exc})", path=path) from None
