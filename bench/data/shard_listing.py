"""A folder of shards as it was checked, checked again when the cluster reads it.

The Dask engine checks its input files before the cluster starts (footers, types, FIFOs,
folders: :func:`bench.data.query_shards.shard_columns`, :func:`bench.data.dask_ratings.
read_ratings_frame`), then starts the cluster (seconds, on a busy machine longer) and only then
reads. A shared folder may change in between (another job rewriting it, a clean-up): a shard
removed then was no longer listed by the read, and the evaluation gave a number over the other
shards with exit 0; a file replaced by a FIFO blocked the read for ever. So the read takes the
files that were checked, and :func:`still_as_checked` runs right before it: every checked file
is still a readable regular file, and the folder's listing is the checked one.

:func:`parquet_parts` names the file of each partition of a frame the caller read with
``dd.read_parquet`` (a hive folder), so a partition's error names its file there too;
:func:`read_files` reads files whose pandas metadata makes a wanted column an index level
(:func:`indexed_columns`), which Dask's reader mis-reads.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.data.inputs import check_input_file
from bench.errors import DataError

PathLike = str | os.PathLike[str]


def still_as_checked(files: Sequence[PathLike], *, expected: str,
                     folder: PathLike | None = None, pattern: str = "",
                     listed: Sequence[PathLike] | None = None) -> list[Path]:
    """``files`` once each is still a readable regular file (``expected`` says what it should
    be) and the files listed now are exactly ``files``: ``folder``'s ``pattern`` files, or
    ``listed`` (the caller's own listing, made again); a :class:`DataError` naming the first
    file removed, added or changed in kind since the check otherwise."""
    checked = [Path(f) for f in files]
    if folder is not None:
        listed = sorted(Path(folder).glob(pattern))
    if listed is not None:
        now = [Path(f) for f in listed]
        was = set(map(str, checked))
        gone = next((f for f in checked if str(f) not in set(map(str, now))), None)
        new = next((g for g in now if str(g) not in was), None)
        if gone is not None or new is not None:
            how = "was removed" if gone is not None else "was added"
            raise DataError(f"{how} after the folder was checked and before it was read "
                            f"({len(checked)} shard(s) checked, {len(now)} there now): the "
                            "folder changed while the command ran; run it again once the "
                            "folder is complete", path=gone if gone is not None else new)
    for f in checked:
        check_input_file(f, expected=f"{expected} (as when the folder was checked)")
    return checked


def parquet_parts(ddf: Any) -> list[str] | None:
    """The file of each partition of a frame read by ``dd.read_parquet`` (a hive folder, a
    list of files), when every partition is one whole file; None otherwise (best effort: Dask's
    plan of the read, which another Dask release may spell differently)."""
    try:
        reads = [n for n in ddf.expr.walk() if type(n).__name__.startswith("ReadParquet")]
        if len(reads) != 1:
            return None
        paths = [str(part["piece"][0]) for part in reads[0]._plan["parts"]]
    except Exception:  # not a Parquet read, or another Dask release: no names
        return None
    return paths if len(set(paths)) == len(paths) else None


def index_names(schema: Any) -> set[str]:
    """The names of the index levels a Parquet ``schema``'s pandas metadata records: a column
    (``set_index("qid")``) or, for consecutive integers, a range held in the metadata alone."""
    found = set()
    for c in (schema.pandas_metadata or {}).get("index_columns", []):
        name = c if isinstance(c, str) else c.get("name") if isinstance(c, dict) else None
        if isinstance(name, str):
            found.add(name)
    return found


def indexed_columns(files: Sequence[PathLike], columns: list[str] | None) -> bool:
    """Whether a file's pandas metadata names a wanted column as a level of its index
    (``set_index("qid").to_parquet``): Dask's reader then fails ("['qid'] not in index"), or
    drops the index when not all its levels are read, for some files and not others."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    for f in files if columns else ():
        try:
            if index_names(pq.read_schema(f)) & set(columns or []):
                return True
        except (OSError, ValueError, pa.ArrowException):
            continue  # named by the read itself
    return False


def read_files(files: Sequence[PathLike], columns: list[str]) -> Any:
    """A Dask frame of one partition per Parquet file, read by pyarrow, ``columns`` only, a
    column the file's pandas metadata makes an index level a column again (for the files of
    which :func:`indexed_columns` is true)."""
    import dask.dataframe as dd
    import pyarrow.parquet as pq

    schema = pq.read_schema(files[0])
    meta = _as_columns(schema.empty_table(), columns)
    with _values_as_read():
        return dd.from_map(read_file_columns, [str(f) for f in files], columns=columns,
                           meta=meta, enforce_metadata=False)


def read_row_groups(files: Sequence[PathLike], columns: list[str]) -> Any:
    """A Dask frame of one partition per row group of the Parquet ``files`` (as
    ``dd.read_parquet(..., split_row_groups=True)`` splits them), read by pyarrow as
    :func:`read_files` reads a file: no pandas deprecation warning raised inside Dask's own
    reader (``reset_index(inplace=True)``) is made ltrbench's error by ``-W error``."""
    import dask.dataframe as dd
    import pyarrow.parquet as pq

    parts = [(str(f), i) for f in files for i in range(max(pq.ParquetFile(f).num_row_groups, 1))]
    meta = _as_columns(pq.read_schema(files[0]).empty_table(), columns)
    with _values_as_read():
        return dd.from_map(read_row_group, parts, columns=columns, meta=meta,
                           enforce_metadata=False)


def _values_as_read() -> Any:
    """Dask's ``dataframe.convert-string`` off while a frame is built: it would make an object
    column's values (a ``Decimal`` id, bytes) text before the id rule sees them, as
    ``dd.read_parquet`` leaves them."""
    import dask

    return dask.config.set({"dataframe.convert-string": False})


def read_row_group(part: tuple[str, int], columns: list[str]) -> Any:
    """Row group ``part[1]`` of file ``part[0]``, ``columns`` only, as a frame (a file of no
    row group: its empty table)."""
    import pyarrow.parquet as pq

    path, i = part
    pf = pq.ParquetFile(path)
    names = [c for c in columns if c in pf.schema_arrow.names]
    table = pf.read_row_group(i, columns=names) if pf.num_row_groups else \
        pf.schema_arrow.empty_table().select(names)
    return _as_columns(table.replace_schema_metadata(pf.schema_arrow.metadata), columns)


def read_file_columns(path: str, columns: list[str]) -> Any:
    """``columns`` of one Parquet file as a frame (a range index of pandas' metadata too)."""
    import pyarrow.parquet as pq

    names = pq.read_schema(path).names
    return _as_columns(pq.read_table(path, columns=[c for c in columns if c in names]), columns)


def _as_columns(table: Any, columns: list[str]) -> Any:
    """``table`` as a frame of ``columns``: a column of pandas' index a column again, a range
    index that pandas' metadata alone holds (``start``, ``step``) made a column of integers."""
    import numpy as np

    frame = table.select([c for c in columns if c in table.column_names]).to_pandas(
        ignore_metadata=True)
    for c in (table.schema.pandas_metadata or {}).get("index_columns", []):
        if isinstance(c, dict) and c.get("kind") == "range" and c.get("name") in columns \
                and c["name"] not in frame.columns:
            frame[c["name"]] = np.arange(len(frame), dtype=np.int64) * int(c.get("step", 1)) \
                + int(c.get("start", 0))
    return frame[columns].reset_index(drop=True)


__all__ = ["index_names", "indexed_columns", "parquet_parts", "read_file_columns", "read_files",
           "read_row_group", "read_row_groups", "still_as_checked"]
