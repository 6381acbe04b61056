"""One timestamp unit for a Dask ratings table: within a partition and across shards.

The local readers refuse a timestamp column with seconds beside milliseconds
(:func:`bench.data.ratings.refuse_mixed_units`): a temporal split would put every millisecond
rating after every other one. :func:`check_seconds` applies that rule (and the +-10^12 s range
of :mod:`bench.data.tabular`) to one partition; :func:`one_unit_across` applies it across the
partitions of a table (one shard in seconds beside another in milliseconds, or two blocks of one
large CSV file): a second read of the timestamp column only, one small summary per partition,
and every partition of the table made to wait for their check -- a lazy step, so the table is
still read where it is computed, and nothing is loaded into the client. A MovieLens folder's
``tags.csv`` (read into memory) is held to the ratings' unit in the same check
(:func:`tag_stamps`), the rule of :func:`bench.data.ratings.refuse_mixed_units_across`.
"""

from __future__ import annotations

import glob
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.data.ratings import MILLISECONDS, SECONDS, mixed_units_message
from bench.errors import DataError

#: The column Dask's ``include_path_column`` adds to a ratings table: each row's shard file.
PATH_COLUMN = "__ltrbench_path__"
_PATH = PATH_COLUMN


def check_seconds(values: np.ndarray, cells: pd.Series, where: str | None,
                  row: Any, column: str) -> None:
    """A DataError (:func:`bench.data.tabular.timestamp_message`) for the first timestamp not
    within +-:data:`bench.data.tabular.MAX_SECONDS`, the local reader's rule, and for seconds
    beside milliseconds within one partition (:func:`bench.data.ratings.refuse_mixed_units`;
    across partitions: :func:`one_unit_across`)."""
    from bench.data.ratings import refuse_mixed_units, refuse_rounded_seconds
    from bench.data.tabular import MAX_SECONDS, timestamp_message

    refuse_rounded_seconds(cells.to_numpy(), path=where, column=column,  # a float32 column
                           where=lambda i: {} if row(i) is None else {"row": row(i)})

    far = np.flatnonzero(~(np.abs(values.astype(np.float64)) < MAX_SECONDS))
    if far.shape[0]:
        k = int(far[0])
        cell = cells.iloc[k]
        raise DataError(timestamp_message(cell.item() if isinstance(cell, np.generic) else cell),
                        path=where, row=row(k), column=column)
    refuse_mixed_units(values.astype(np.float64), path=where, column=column,
                       where=lambda i: {} if row(i) is None else {"row": row(i)})


def _facts(part: pd.DataFrame, column: str, sep: str | None,
           paths: list[tuple[str, int]] | None, typed: Callable[..., pd.DataFrame],
           partition_info: dict[str, Any] | None = None) -> pd.DataFrame:
    """The partition's first seconds value and first milliseconds value, each with its file and
    row (a row of a Parquet shard or of a CSV file read as one block; none for a block of a
    larger CSV file, whose rows are not numbered)."""
    cols = {"user": None, "item": None, "rating": None, "timestamp": column}
    values = typed(part, cols, sep, paths, None, partition_info)["timestamp"].to_numpy(np.float64)
    where = str(part[_PATH].iloc[0]) if part.shape[0] and _PATH in part.columns else ""
    first = -1
    if paths is not None and partition_info is not None \
            and 0 <= int(partition_info.get("number", -1)) < len(paths):
        where, first = paths[int(partition_info["number"])]
    out: dict[str, list[Any]] = {"kind": [], "value": [], "file": [], "row": []}
    size = np.abs(values)  # before 1970 too, as the local rule (bench.data.ratings)
    dated = _dated(part[column]) if part[column].dtype.kind == "O" else np.zeros(len(part), bool)
    for kind, hits in (("s", np.flatnonzero((size >= SECONDS[0]) & (size < SECONDS[1]))),
                       ("ms", np.flatnonzero(size >= MILLISECONDS)),
                       ("date", np.flatnonzero(dated)), ("number", np.flatnonzero(~dated))):
        if hits.shape[0]:
            k = int(hits[0])
            out["kind"].append(kind)
            out["value"].append(int(values[k]))
            out["file"].append(where)
            out["row"].append(first + k + 1 if first >= 0 else -1)
    return pd.DataFrame(out)


def _dated(cells: pd.Series) -> np.ndarray:
    """Which text cells are dates (no number; a missing cell is neither)."""
    text = cells.astype(object)
    numbers = pd.to_numeric(text.where(text.isna(), text.astype(str).str.strip()),
                            errors="coerce")
    dated: np.ndarray = (text.notna() & numbers.isna()).to_numpy(dtype=bool)
    return dated


def _parquet_facts(path: str, column: str) -> pd.DataFrame:
    """:func:`_facts` of one Parquet shard, its timestamp column read alone (a value that is no
    timestamp is the typed table's to refuse, with its row)."""
    from bench.data.shard_listing import read_file_columns

    cells = read_file_columns(path, [column])[column]  # a range index of pandas' too
    values = pd.to_numeric(cells, errors="coerce").to_numpy(np.float64, na_value=np.nan)
    return _facts(pd.DataFrame({"t": values}), "t", None, [(path, 0)], _as_is, {"number": 0})


def _as_is(part: pd.DataFrame, cols: dict[str, str | None], *args: Any) -> pd.DataFrame:
    return part.rename(columns={cols["timestamp"]: "timestamp"})


def _refuse_across(facts: list[pd.DataFrame], column: str) -> bool:
    """DataError when one partition holds seconds and another milliseconds; True otherwise."""
    every = pd.concat(facts, ignore_index=True) if facts else pd.DataFrame()
    if every.empty:
        return True
    dates, numbers = every[every["kind"] == "date"], every[every["kind"] == "number"]
    if not dates.empty and not numbers.empty:  # the local rule: a date beside a number
        d, n = dates.iloc[0], numbers.iloc[0]
        place = str(n["file"]) + (f", row {int(n['row'])}" if n["row"] >= 0 else "")
        raise DataError(f"a date, where the column holds seconds since the epoch ({place}): "
                        "expected one kind of timestamp in every shard, dates or numbers",
                        path=str(d["file"]) or None,
                        row=int(d["row"]) if d["row"] >= 0 else None, column=column)
    secs, big = every[every["kind"] == "s"], every[every["kind"] == "ms"]
    if secs.empty or big.empty:
        return True
    s, m = secs.iloc[0], big.iloc[0]
    place = str(s["file"]) + (f", row {int(s['row'])}" if s["row"] >= 0 else "")
    raise DataError(mixed_units_message(int(m["value"]), int(s["value"]), place),
                    path=str(m["file"]) or None,
                    row=int(m["row"]) if m["row"] >= 0 else None, column=column)


def tag_stamps(side: list[Path], tags: pd.DataFrame | None) -> list[tuple[str, pd.Series]]:
    """``(tags.csv, its timestamps)`` when a MovieLens folder has tags (``side``: the side
    files read): held to the ratings' unit by :func:`one_unit_across`, as
    :func:`bench.data.ratings.refuse_mixed_units_across` holds them in the local reader."""
    return [(str(f), tags["timestamp"]) for f in side if f.name == "tags.csv"
            and tags is not None and "timestamp" in tags.columns]


def _gate(part: pd.DataFrame, checked: bool) -> pd.DataFrame:
    return part


def one_unit_across(frame: Any, files: list[Path], cols: dict[str, str | None],
                    sep: str | None, typed: Callable[..., pd.DataFrame], blocksize: str | int,
                    beside: list[tuple[str, pd.Series]] | None = None) -> Any:
    """``frame`` (the typed ratings of ``files``) whose partitions wait for a check that no partition holds seconds while another holds
    milliseconds: a :class:`~bench.errors.DataError` naming both values, the files and (Parquet)
    rows, as :func:`bench.data.ratings.refuse_mixed_units` names them in one file. ``beside``:
    ``(path, timestamps)`` of side tables read with the ratings (MovieLens ``tags.csv``), held
    to the same unit, as :func:`bench.data.ratings.refuse_mixed_units_across` holds them in the
    local reader (rows from 1)."""
    import dask
    import dask.dataframe as dd

    column = cols["timestamp"]
    assert column is not None
    if sep is None:  # one task per shard (Dask would fuse the shards of one small column)
        facts = [dask.delayed(_parquet_facts)(str(f), column) for f in files]
    else:  # CSV blocks are not fused, and carry their file's name
        stamps = dd.read_csv([glob.escape(str(f)) for f in files], sep=sep, usecols=[column],
                             blocksize=blocksize, dtype={column: object},
                             include_path_column=_PATH, encoding="utf-8-sig",
                             skipinitialspace=True, compression=None)  # as dask_ratings reads
        meta = pd.DataFrame({"kind": pd.Series([], dtype=object),
                             "value": pd.Series([], dtype="int64"),
                             "file": pd.Series([], dtype=object),
                             "row": pd.Series([], dtype="int64")})
        # one block per file (the usual case): its rows are numbered, as the local readers do
        whole = [(str(f), 0) for f in files] if stamps.npartitions == len(files) else None
        facts = stamps.map_partitions(_facts, column, sep, whole, typed, meta=meta).to_delayed()
    side = [_facts(pd.DataFrame({"t": pd.to_numeric(v, errors="coerce").to_numpy(np.float64)}),
                   "t", None, [(path, 0)], _as_is, {"number": 0}) for path, v in beside or []]
    checked = dask.delayed(_refuse_across)([*facts, *side], column)
    return frame.map_partitions(_gate, checked, meta=frame._meta)


def refuse_far_int96(path: Path, column: str) -> None:
    """A DataError naming the shard, row and column of the first INT96 date (Spark, Hive and
    Impala exports) outside 1677-2262: Dask reads INT96 as nanoseconds, which wrap there without
    a word (2300-01-01 became 1715-06-13), where the local reader reads them in microseconds
    (:mod:`bench.data.tabular`). Other date types are read at their own unit."""
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(path)
    leaves = [meta.schema.column(i) for i in range(len(meta.schema))]
    if not any(leaf.path == column and leaf.physical_type == "INT96" for leaf in leaves):
        return
    dates = pq.read_table(path, columns=[column], coerce_int96_timestamp_unit="us").column(0)
    us = dates.to_numpy(zero_copy_only=False).astype("datetime64[us]")
    ints = us.astype(np.int64)
    far = ~np.isnat(us) & ((ints < -(2**63) // 1000) | (ints > (2**63 - 1) // 1000))
    if far.any():
        k = int(np.flatnonzero(far)[0])
        raise DataError(f"date {us[k]} is an INT96 value outside 1677-2262: Dask reads INT96 "
                        "dates as nanoseconds, which wrap there; convert with --engine local, "
                        "or write the column as timestamp[us]", path=path, row=k + 1,
                        column=column)


__all__ = ["MILLISECONDS", "PATH_COLUMN", "SECONDS", "check_seconds", "one_unit_across",
           "refuse_far_int96", "tag_stamps"]
