"""Query-aligned data for Dask: Parquet shards of whole queries, and the check that a frame is so.

Distributed LambdaMART is only LambdaMART if every query lies inside one partition: a query cut
in two loses the pairs between its halves (XGBoost with ``allow_group_split=True``) or fails
(LightGBM: "Sum of query counts differs from the length of #data"), and a per-query metric on
half a query is a different number. So ltrbench's Dask engine reads data only as

* **shards**: a folder of ``part-NNNNN.parquet`` files (:func:`write_query_shards`), each holding
  whole queries with their rows contiguous, in the layout of :mod:`bench.data.parquet` (``qid``,
  ``label``, ``user``, ``item``, then float32 features) -- one Dask partition per file;

and checks every frame before use (:func:`check_query_aligned`): inside a partition each query's
rows are contiguous, and no query id appears in two partitions. A frame that fails is either
refused (the error names the query id and the partitions) or re-partitioned with
:func:`align_queries` (a shuffle on ``qid``: Dask's ``set_index``, each query lands in one
partition; rows keep their order inside a query only if the input was sorted by ``qid``, which
the check reports).
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.data.compressed import unreadable_parquet
from bench.data.dask_backend import on_pandas
from bench.data.dask_qids import refuse_wrapped_ids
from bench.data.groups import offsets_from_qid
from bench.data.input_ids import text_ids
from bench.data.letor import LetorData
from bench.data.parquet import write_parquet
from bench.data.query_align import align_queries
from bench.data.shard_strays import stray_data, stray_error
from bench.errors import DataError

PathLike = str | os.PathLike[str]
SHARD_GLOB = "part-*.parquet"


def write_query_shards(data: LetorData, folder: PathLike, *, rows_per_shard: int = 1_000_000,
                       compression: str = "zstd") -> list[Path]:
    """Write ``data`` as Parquet shards of whole queries, about ``rows_per_shard`` rows each.

    A shard ends at the first query boundary at or after ``rows_per_shard`` rows (so a query
    larger than that is one shard on its own). Returns the files in order. A folder that already
    holds shards, or other data a reader of the shards would refuse (a crashed write's
    ``part-00003.parquet.tmp``, a hive sub-folder), is refused before anything is written; a
    write that fails or is interrupted removes the shards it wrote.
    """
    if rows_per_shard < 1:
        raise DataError(f"rows_per_shard must be >= 1; got {rows_per_shard}")
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    stale = sorted(out.glob(SHARD_GLOB))
    if stale:
        raise DataError(f"{out}: already holds {len(stale)} shard(s) ({stale[0].name}, ...); "
                        "write into an empty folder")
    if (stray := stray_data(out, [])) is not None:  # a crashed write's part-00003.parquet.tmp
        raise stray_error(stray, f"the shards written here would be read as the folder's "
                          f"{SHARD_GLOB} files, and this beside them refused")
    starts = data.offsets[:-1]
    files: list[Path] = []
    first = 0
    try:
        while first < data.n_queries:
            limit = int(starts[first]) + rows_per_shard
            last = int(np.searchsorted(data.offsets, limit, side="left"))
            last = min(max(last, first + 1), data.n_queries)
            part = data.take_queries(np.arange(first, last))
            files.append(write_parquet(part, out / f"part-{len(files):05d}.parquet",
                                       compression=compression))
            first = last
    except BaseException:  # a full disk, Ctrl-C: no first shards left that a reader takes whole
        for done in files:
            done.unlink(missing_ok=True)
        raise
    return files


def shards_of(data: LetorData, folder: PathLike, *, rows_per_shard: int) -> list[Path]:
    """The shards of ``data`` in ``folder``: those already there when they hold exactly its rows
    (query ids and labels, in order: a resumed run reuses them), else written anew.

    Shards are written into a sibling ``.partial`` folder renamed into place when complete, so
    an interrupted write leaves no folder that looks whole; shards that do not hold ``data``
    (a write interrupted before this rule, another split) are removed and written again --
    never trained on (a folder holding the first shard only once trained on a part of the
    split)."""
    import shutil

    out = Path(folder)
    if out.is_dir() and any(out.glob(SHARD_GLOB)):
        if _holds(out, data):
            return sorted(out.glob(SHARD_GLOB))
        shutil.rmtree(out)
    partial = out.with_name(out.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    write_query_shards(data, partial, rows_per_shard=rows_per_shard)
    partial.rename(out)
    return sorted(out.glob(SHARD_GLOB))


def check_shards_agree(file: Path, folder: Path, data: LetorData) -> None:
    """A :class:`DataError` naming both when ``folder`` holds query shards (a Dask conversion's
    ``train/``) that do not hold the rows of ``data``, read from ``file`` beside it
    (``train.parquet``): two copies of a split that disagree would let the local and the Dask
    engine train on different data; nothing is said when ``folder`` holds no shards."""
    if folder.is_dir() and any(folder.glob(SHARD_GLOB)) and not _holds(folder, data):
        raise DataError(f"disagrees with the Parquet shards in {folder} (other rows, query ids "
                        f"or labels): keep one copy of the {folder.name} split, or convert again "
                        "into an empty folder", path=file)


def _holds(folder: Path, data: LetorData) -> bool:
    """Whether the shards of ``folder`` hold ``data``'s rows: row count, query ids and labels."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        files = sorted(folder.glob(SHARD_GLOB))
        if sum(pq.ParquetFile(f).metadata.num_rows for f in files) != data.n_rows:
            return False
        table = pa.concat_tables([pq.read_table(f, columns=["qid", "label"]) for f in files])
        qid = table.column("qid").to_numpy()
        label = table.column("label").to_numpy()
    except (OSError, ValueError, KeyError, pa.ArrowException):
        return False
    return bool(np.array_equal(qid, np.asarray(data.qid))
                and np.array_equal(label, np.asarray(data.y, dtype=np.float64)))


class ManyShardsWarning(UserWarning):
    """Thousands of small shards: one Dask task each, so minutes of scheduling overhead."""


#: Above this many shards of :data:`SMALL_SHARD_BYTES` on average, :func:`warn_many_small` warns.
MANY_SHARDS = 2000
SMALL_SHARD_BYTES = 1 << 20


def warn_many_small(files: list[Path], folder: PathLike) -> bool:
    """Warn (:class:`ManyShardsWarning`) when ``files`` are more than :data:`MANY_SHARDS` shards
    of under :data:`SMALL_SHARD_BYTES` on average: each shard is a Dask task of its own in each
    pass over the data (the query check, then the work), measured at about 25 ms per task on a
    busy two-core machine -- 10^4 shards of two rows took 9 minutes to evaluate. Says how many,
    their mean size and how to write fewer. Returns whether it warned."""
    import warnings

    if len(files) <= MANY_SHARDS:
        return False
    size = sum(f.stat().st_size for f in files) / len(files)
    if size >= SMALL_SHARD_BYTES:
        return False
    warnings.warn(f"{folder}: {len(files)} shards of {size / 1024:.1f} KiB on average; each is a "
                  "Dask task of its own in every pass over the data, so this takes minutes of "
                  "scheduling alone: write fewer, larger shards (bench.data.query_shards."
                  "write_query_shards, rows_per_shard)", ManyShardsWarning, stacklevel=3)
    return True


@on_pandas
def read_query_shards(folder: PathLike, *, columns: list[str] | None = None,
                      files: list[Path] | None = None) -> Any:
    """The shards of ``folder`` as a Dask DataFrame, one partition per file, in file order (any
    other data file or data sub-folder there is refused, naming it, as :func:`shard_columns`
    does: its rows would be left out);
    ``files``: those :func:`shard_columns` checked, found unchanged (a shard removed since the
    check was no longer listed here: a number over the others, exit 0)."""
    from bench.data.dask_cluster import require_dask
    from bench.data.shard_listing import still_as_checked

    require_dask()
    import dask.dataframe as dd

    if files is not None:
        files = still_as_checked(files, expected="a Parquet shard (a regular file)",
                                 folder=folder, pattern=SHARD_GLOB)
    if files is None:
        files = _listed_shards(Path(folder))
    if not files:
        raise DataError(f"{folder}: no Parquet shards ({SHARD_GLOB}); write them with "
                        "ltrbench convert --shards or bench.data.query_shards.write_query_shards")
    from bench.data.inputs import check_input_file

    for f in files:  # a FIFO named like a shard would block the read for ever
        check_input_file(f, expected="a Parquet shard (a regular file)")
    warn_many_small(files, folder)
    from bench.data.shard_listing import read_files

    if columns:  # read by pyarrow, one partition per file: a column pandas' metadata made an
        return read_files(files, columns)  # index (Dask: "['qid'] not in index") a column again,
    # and no pandas deprecation warning of Dask's own reader (reset_index(inplace=True)) made
    # ltrbench's error under -W error
    # escaped: fsspec expands a path as a pattern (a folder named data[1] read no file)
    return dd.read_parquet([glob.escape(str(f)) for f in files], columns=columns,
                           split_row_groups=False, aggregate_files=False)


def _listed_shards(folder: Path) -> list[Path]:
    """The ``part-*.parquet`` files of ``folder``, sorted; other data there (another case or
    format, a hive or nested sub-folder, a writer's unfinished file) refused, naming it."""
    files = sorted(folder.glob(SHARD_GLOB))
    if folder.is_dir() and (stray := stray_data(folder, files)) is not None:
        raise stray_error(stray, f"only {SHARD_GLOB} files of the folder itself are read")
    return files


def shard_columns(folder: PathLike, required: list[str]) -> list[Path]:
    """The shard files of ``folder``, each checked before Dask reads any (the input discipline
    of :mod:`bench.data.inputs`: a partition's problem names its file).

    :class:`DataError` naming the file when there are no shards, when one is not a readable
    Parquet file, lacks a ``required`` column or holds it twice, holds a ``qid`` of another kind than the first
    shard (integers of any width, text, floats: a qid that is an integer in one shard and text
    in another would compare as different ids; shards are one table), a ``label`` that is not
    numeric (a bool neither, as :func:`bench.metrics.evaluate` refuses it), or a score (any other ``required`` column) that is not a number -- booleans
    included, as :func:`bench.metrics.evaluate` refuses them -- or an integer beyond 2^53 that a
    float64 cannot hold (it would tie with its neighbours; the row is named). Only the footers
    are read, and an integer score column only when its statistics reach past 2^53.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    from bench.data.delimited import check_column_once
    from bench.data.inputs import check_input_file
    from bench.data.shard_listing import index_names

    p = Path(folder)
    if not p.is_dir():
        raise DataError("expected a folder of Parquet shards (part-*.parquet)", path=p)
    files = _listed_shards(p)
    if not files:
        raise DataError(f"no Parquet shards ({SHARD_GLOB}) in this folder", path=p)
    first: dict[str, tuple[str, object]] = {}
    qid_kinds: list[tuple[Path, Any]] = []
    for f in files:
        # a FIFO named part-00001.parquet blocked read_schema for ever; a folder, a broken link
        check_input_file(f, expected="a Parquet shard (a regular file)")
        try:
            meta = pq.read_metadata(f)
            schema = meta.schema.to_arrow_schema()
        except (OSError, ValueError, pa.ArrowException) as exc:
            raise DataError(f"{unreadable_parquet(f, exc)}; expected a shard written by "
                            "ltrbench convert --shards or write_query_shards", path=f) from None
        ranged = index_names(schema) - set(schema.names)  # pandas: 1, 2, 3 as a range index
        names = schema.names + sorted(ranged)
        missing = [c for c in required if c not in names]
        if missing:
            shown = ", ".join(map(repr, names[:12])) or "none"  # 'score ' visible
            raise DataError(f"no column {', '.join(map(repr, missing))}; its columns are "
                            f"{shown}{' ...' if len(names) > 12 else ''}{_hive_key(f, missing)}",
                            path=f)
        for c in required:
            check_column_once(names, "the " + c, c, f, line=None)
            if twins := [n for n in names if n != c and n.casefold() == c.casefold()]:
                raise DataError(f"columns {c!r} and {twins[0]!r} could each be the {c} column "
                                "(names differing only in case are ambiguous, as to the local "
                                "engine): rename or drop one", path=f, column=c)
            kind = pa.int64() if c in ranged else schema.field(c).type
            if pa.types.is_dictionary(kind):
                kind = kind.value_type
            if pa.types.is_null(kind) and meta.num_rows == 0:
                continue  # an empty frame written by pandas: no values, so no type to check
            if c == "qid":
                family = _id_family(kind)
                qid_kinds.append((f, kind))
                if family is None:
                    raise DataError(f"column of type {kind}: expected query ids that are "
                                    "integers or text (or floats)", path=f, column=c)
                seen = first.setdefault(c, (family, kind))
                if {seen[0], family} == {"integers", "text"}:
                    continue  # one rule with a frame's [1, "b"]: integers among text are text
                if seen[0] != family:
                    raise DataError(f"column of type {kind}, but {seen[1]} in {files[0].name}: "
                                    "the shards of a folder are one table, whose query ids "
                                    f"cannot be {seen[0]} in one shard and {family} in another "
                                    "(write every shard's qid with one type)", path=f, column=c)
                continue
            if c not in ranged:
                _check_values(f, c, kind)
    refuse_wrapped_ids(qid_kinds, "qid")  # uint64 beyond 2^63 beside signed: one int64 id
    return files


def _check_values(f: Path, c: str, kind: Any) -> None:
    """A shard's label or score column of Arrow type ``kind``: numbers, as
    :func:`bench.metrics.evaluate` reads them (not a bool, text or a decimal); an integer score
    exact in a float64."""
    import pyarrow as pa

    numeric = pa.types.is_integer(kind) or pa.types.is_floating(kind)
    if pa.types.is_decimal(kind):  # Spark's DecimalType: a number, but not read as one here
        raise DataError(f"column of type {kind}: expected numbers of an integer or float type "
                        "(a decimal column is not read as one, as by the local engine): cast "
                        "the column to float64 where it is written (Spark: .cast('double'), "
                        "pandas: .astype('float64'))", path=f, column=c)
    if c == "label" and not numeric:  # bench.metrics.evaluate refuses a bool label too
        why = ("a bool is not a number here: write the labels as integers if 1/0 is "
               "meant") if pa.types.is_boolean(kind) else "text or other values are not parsed"
        raise DataError(f"column of type {kind}: expected numbers ({why})", path=f, column=c)
    if c != "label" and not numeric:
        raise DataError(f"column of type {kind}: expected numbers (integers or floats)",
                        path=f, column=c)
    if c != "label" and pa.types.is_integer(kind):
        _exact_scores(f, c)


def _hive_key(f: Path, missing: list[str]) -> str:
    """The hint for a column ``missing`` from shard ``f`` that a folder above it names as a hive
    partition (``qid=1/part-0.parquet``: Hive, Spark and pyarrow write the key into the folder
    name, not into the file), else ''."""
    keys = [d for d in f.resolve().parent.parts if d.split("=", 1)[0] in missing and "=" in d]
    if not keys:
        return ""
    return (f" (the folder name {keys[-1]!r} holds it: a hive partition column is not written into "
            "the files; in Python give the hive root to dask.dataframe.read_parquet and "
            "evaluate_frame, or write the column into the shards)")


def _id_family(kind: Any) -> str | None:
    """What a qid column's Arrow type compares as: integers of every width are one family, text
    of every layout (``string``, ``large_string``, ``string_view``) another; floats, decimals and
    times their own type; None for a type that holds no id (a list, a struct, a map, a null
    column: a list or struct id used to end in ``TypeError: unhashable type``)."""
    import pyarrow as pa

    if pa.types.is_integer(kind):
        return "integers"
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) \
            or (hasattr(pa.types, "is_string_view") and pa.types.is_string_view(kind)):
        return "text"
    if pa.types.is_nested(kind) or pa.types.is_null(kind) or pa.types.is_union(kind):
        return None
    return str(kind)  # floats, decimals, bytes, times (a bool: refused per row by the checks)


def _exact_scores(path: Path, column: str) -> None:
    """Refuse an integer score column of ``path`` holding a value a float64 cannot hold
    (:func:`bench.data.inputs.first_inexact_integer`); the footer's statistics spare the read
    when every row group's values lie within 2^53."""
    import pyarrow.parquet as pq

    from bench.data.inputs import TWO53, first_inexact_integer, inexact_message

    meta = pq.ParquetFile(path).metadata
    j = meta.schema.to_arrow_schema().get_field_index(column)
    within = j >= 0 and all(
        (st := meta.row_group(g).column(j).statistics) is not None and st.has_min_max
        and abs(int(st.min)) <= TWO53 and abs(int(st.max)) <= TWO53
        for g in range(meta.num_row_groups))
    if within:
        return
    values = pq.read_table(path, columns=[column]).column(column).to_numpy()
    bad = first_inexact_integer(values)
    if bad >= 0:
        raise DataError(inexact_message("score", values[bad]), path=path, row=bad + 1,
                        column=column)


def unreadable_shard(files: list[str] | None, columns: list[str] | None,
                     exc: BaseException, where: str, *,
                     expected: str = "a shard written by ltrbench convert --shards or "
                                     "write_query_shards") -> DataError:
    """The DataError for a read that failed inside Dask (``exc``: a damaged page behind a good
    footer, a file changed since its footer was read): the first of ``files`` that pyarrow
    cannot read (the error path only), else ``where`` with the reader's own message."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    for f in files or []:
        try:
            pq.read_table(f, columns=columns)
        except (OSError, ValueError, pa.ArrowException) as bad:
            return DataError(f"{unreadable_parquet(f, bad)}; expected {expected}", path=f)
    return DataError(f"cannot read the shards ({type(exc).__name__}: {reason})", path=where)


def partition_files(ddf: Any, where: str) -> list[str] | None:
    """The shard file of each partition of ``ddf`` when ``where`` is a folder of shards read by
    :func:`read_query_shards` (one partition per file, in file order), else None."""
    p = Path(where)
    files = sorted(p.glob(SHARD_GLOB)) if p.is_dir() else []
    if files and len(files) == ddf.npartitions:
        return [str(f) for f in files]
    from bench.data.shard_listing import parquet_parts

    read = parquet_parts(ddf)  # a frame the caller read: dd.read_parquet(hive_root)
    return read if read is not None and len(read) == ddf.npartitions else None



def partition_name(files: list[str] | None, where: str, index: int) -> str:
    """How an error names partition ``index``: its shard file, else ``where: partition i``."""
    return files[index] if files is not None and index < len(files) else \
        f"{where}: partition {index}"


def partition_queries(q: pd.Series) -> pd.DataFrame:
    """One row for a partition's query-id column: its query ids in order, its row count, and
    the first row (1-based, within the partition) where a query's rows are not contiguous (0 if
    none) -- :func:`bench.data.groups.offsets_from_qid`'s check, reported instead of raised --
    or, negated, the first row whose query id is missing."""
    values = q.to_numpy()
    missing = np.flatnonzero(pd.isna(q).to_numpy())
    if missing.shape[0]:  # (NaN ids are never equal: every row would be a query of its own)
        return pd.DataFrame({"qids": [values[:0]], "rows": [int(values.shape[0])],
                             "broken_row": [-int(missing[0]) - 1], "bad_id": [""]})
    try:  # the local rule first: 1 and "1" one query; a tuple, bytes, " 1" no id (named)
        values = text_ids(values) if values.dtype.kind in "OU" else values
    except DataError as exc:
        return pd.DataFrame({"qids": [values[:0]], "rows": [int(values.shape[0])],
                             "broken_row": [int(exc.row or 1)], "bad_id": [exc.reason]})
    try:
        _, qids = offsets_from_qid(values)
        broken = 0
    except DataError as exc:
        qids, broken = values[:0], int(exc.row or 1)
    return pd.DataFrame({"qids": [qids], "rows": [int(values.shape[0])], "broken_row": [broken],
                         "bad_id": [""]})


def partition_queries_of(frame: pd.DataFrame, qid: str) -> pd.DataFrame:
    return partition_queries(frame[qid])


@dataclass(frozen=True)
class QueryLayout:
    """Rows and queries of each partition of a query-aligned frame (partition order)."""

    rows: list[int]
    queries: list[int]


def query_layout(ddf: Any, *, qid: str = "qid", where: str = "data") -> QueryLayout:
    """Check that every query of ``ddf`` lies inside one partition with its rows contiguous, and
    return the rows and queries per partition; :class:`DataError` otherwise, naming the query id
    and the partitions it appears in (0-based), or the row (1-based, within the partition) where
    a query reappears.

    The check maps over whole partitions of ``ddf`` on purpose: selecting the ``qid`` column
    first would let Dask fuse small Parquet partitions into fewer (found here: the layout then
    no longer matched the frame's partitions), and a query cut between two partitions that were
    fused would pass. So a frame whose columns are costly to compute (a prediction) is computed
    by the check too: persist it first."""
    meta = pd.DataFrame({"qids": pd.Series([], dtype=object), "rows": pd.Series([], dtype="int64"),
                         "broken_row": pd.Series([], dtype="int64"),
                         "bad_id": pd.Series([], dtype=object)})
    import pyarrow as pa

    files = partition_files(ddf, where)
    try:
        table = ddf.map_partitions(partition_queries_of, qid, meta=meta).compute()
    except (OSError, pa.ArrowException) as exc:  # a damaged page: name its shard
        raise unreadable_shard(files, list(ddf.columns), exc, where) from None
    return checked_layout(table, files, qid, where)


def checked_layout(table: pd.DataFrame, files: list[str] | None, qid: str,
                   where: str) -> QueryLayout:
    """:func:`query_layout`'s checks on ``table``: one row per partition, in order, of
    :func:`partition_queries` (computed by :func:`query_layout`, or beside the evaluation of the
    same partitions, :func:`bench.metrics.distributed.evaluate_frame`: one read of each)."""
    for part, (broken, bad) in enumerate(zip(table["broken_row"], table["bad_id"], strict=True)):
        if bad:
            raise DataError(f"{partition_name(files, where, part)}, row {broken}, column {qid!r}: "
                            f"{bad}")
        if broken < 0:
            raise DataError(f"{partition_name(files, where, part)}, row {-broken}, column "
                            f"{qid!r}: missing query id (null): expected an id on every row")
        if broken:
            raise DataError(f"{partition_name(files, where, part)}, row {broken}: a query's rows "
                            f"are not contiguous (its qid appeared earlier in the partition); sort "
                            f"by {qid} or re-partition with align_queries")
    lists = list(table["qids"])
    if lists:
        text = any(x.dtype.kind in "OUS" for x in lists)  # ids compare as text (bench.data.inputs)
        every = np.concatenate([x.astype(str) for x in lists] if text else lists)
        part_of = np.repeat(np.arange(len(lists)), [len(x) for x in lists])
        order = np.argsort(every, kind="stable")
        ranked = every[order]
        dup = np.flatnonzero(ranked[1:] == ranked[:-1])
        if dup.shape[0]:
            i = int(dup[0])
            key = ranked[i].item() if hasattr(ranked[i], "item") else ranked[i]
            a, b = int(part_of[order[i]]), int(part_of[order[i + 1]])
            shown = "" if files is None else f" ({files[a]} and {files[b]})"
            raise DataError(f"{where}: query {qid}={key} lies in partitions {a} and {b}{shown}; every "
                            "query must be inside one partition (re-partition with "
                            "align_queries, or write shards of whole queries)")
    return QueryLayout(rows=[int(r) for r in table["rows"]], queries=[len(x) for x in lists])


def check_query_aligned(ddf: Any, *, qid: str = "qid", where: str = "data") -> list[int]:
    """:func:`query_layout`'s check; returns the row count of each partition."""
    return query_layout(ddf, qid=qid, where=where).rows


__all__ = ["MANY_SHARDS", "SHARD_GLOB", "ManyShardsWarning", "QueryLayout", "align_queries",
           "check_query_aligned", "check_shards_agree", "checked_layout", "partition_files",
           "partition_name", "partition_queries", "partition_queries_of", "query_layout",
           "read_query_shards", "shard_columns", "shards_of", "unreadable_shard",
           "warn_many_small", "write_query_shards"]
