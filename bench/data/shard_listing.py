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
:func:`pandas_index_levels` the columns to read beside the wanted ones where a pandas job wrote
a wanted column as a level of its index (Dask's reader drops an index it does not read whole).
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


def pandas_index_levels(files: list[Path], columns: list[str] | None) -> list[str]:
    """The other levels of a pandas index that holds a wanted column (``set_index(["qid",
    "doc"])``): Dask's reader drops the whole index unless every level is read, the wanted
    column with it. A shard without such a level is refused, naming it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not columns:
        return []
    levels: dict[Path, list[str]] = {}
    names: dict[Path, list[str]] = {}
    for f in files:
        try:
            schema = pq.read_schema(f)
        except (OSError, ValueError, pa.ArrowException):
            continue  # named by the read itself
        index = [c for c in (schema.pandas_metadata or {}).get("index_columns", [])
                 if isinstance(c, str)]
        levels[f], names[f] = index, schema.names
    extra = list(dict.fromkeys(c for index in levels.values() if set(index) & set(columns)
                               for c in index if c not in columns))
    for f, have in names.items():
        if lacking := [c for c in extra if c not in have]:
            raise DataError(f"no column {lacking[0]!r}, which other shards' pandas index holds "
                            f"beside {', '.join(c for c in columns if c not in lacking)}: "
                            "expected the shards of one table (write each with the same "
                            "index, or with index=False)", path=f)
    return extra


def select_columns(part: Any, columns: list[str]) -> Any:
    """``part[columns]``: one partition's wanted columns, the other index levels dropped."""
    return part[columns]


__all__ = ["pandas_index_levels", "parquet_parts", "select_columns", "still_as_checked"]
