"""``LetorData`` as a Parquet file: one row per (query, document) pair.

Columns, in order: ``qid`` (int64), ``label`` (float64), ``user`` and ``item`` (int64, null for
data that did not come from ratings), then one float32 column per feature. The schema metadata
key ``ltrbench`` holds JSON with the feature names (in column order), the source and the
``meta`` dict, so a round trip gives back the same :class:`~bench.data.letor.LetorData`
(up to ``meta`` entries that JSON cannot represent, which are written as strings).

A Parquet file written by another tool is read too: it needs ``qid`` and ``label`` columns;
``user``/``item`` are optional and every other numeric column is a feature, in file order.
Names are exact (case-sensitive): a missing ``qid``/``label`` is named with the look-alike the
file holds (``'Label'``). A numeric column whose name says it is a query id, document id or
label under another spelling (``QID``, ``Label``, ``query_id``, ``docid``, ``relevance``,
``grade``, ...: :data:`NOT_FEATURE_NAMES`) is refused rather than read as a feature (a second
label among the features leaks the answer into the model; a misspelt ``qid`` would be one).
Columns that are not numbers (a ``docno`` text column, dates, lists) are no features: they are
left out with a warning naming them, never silently.
Writes are atomic (temporary file + rename).
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from bench.data.atomic import atomic_path
from bench.data.compressed import unreadable_parquet
from bench.data.groups import offsets_from_qid
from bench.data.inputs import INT64_MAX, check_input_file
from bench.data.letor import LetorData
from bench.errors import DataError

PathLike = str | os.PathLike[str]

#: Columns that precede the features; a feature may not be stored under one of these names.
RESERVED_COLUMNS = ("qid", "label", "user", "item")
#: Names, compared without case with ``-`` and spaces as ``_``, that a foreign table's numeric
#: column may not hold as a feature (module docstring): the reserved names' case variants and
#: common spellings of a query id, document id and label (those of
#: :mod:`bench.data.trec_objects`' column search and sklearn/LightGBM examples).
NOT_FEATURE_NAMES = {
    **{n: "the query id" for n in ("qid", "query_id", "queryid", "q_id", "query", "topic",
                                   "group", "group_id")},
    **{n: "a document id" for n in ("docno", "doc_id", "docid", "document_id", "doc",
                                    "document")},
    **{n: "the label" for n in ("label", "labels", "rel", "relevance", "judgment", "judgement",
                                "grade", "target")},
    "user": "the user id", "item": "the item id",
}
_META_KEY = b"ltrbench"
_FORMAT = "ltrbench-letor"
_VERSION = 1


def write_parquet(data: LetorData, path: PathLike, *, compression: str = "zstd") -> Path:
    """Write ``data`` to ``path`` as Parquet (see the module docstring for the layout), atomically.

    Feature columns are named by ``data.feature_names`` when those are unique and do not clash
    with :data:`RESERVED_COLUMNS`; otherwise by position (``feature_1``, ...), with the real
    names kept in the metadata either way.
    """
    names = list(data.feature_names)
    if len(set(names)) == len(names) and not set(names) & set(RESERVED_COLUMNS):
        columns = names
    else:
        columns = [f"feature_{j + 1}" for j in range(len(names))]
    n = data.n_rows
    arrays: list[pa.Array] = [
        pa.array(data.qid, type=pa.int64()),
        pa.array(data.y, type=pa.float64()),
        _optional_ids(data.user, n),
        _optional_ids(data.item, n),
    ]
    arrays.extend(pa.array(np.ascontiguousarray(data.X[:, j]), type=pa.float32())
                  for j in range(data.n_features))
    meta = {
        "format": _FORMAT,
        "version": _VERSION,
        "feature_columns": columns,
        "feature_names": names,
        "source": data.source,
        "meta": _jsonable(data.meta),
    }
    schema = pa.schema(
        [pa.field(c, a.type) for c, a in zip([*RESERVED_COLUMNS, *columns], arrays, strict=True)],
        metadata={_META_KEY: json.dumps(meta).encode("utf-8")},
    )
    table = pa.Table.from_arrays(arrays, schema=schema)
    p = Path(path)
    with atomic_path(p) as tmp:
        pq.write_table(table, tmp, compression=compression)
    return p


def _ltrbench_meta(table: pa.Table, p: Path) -> dict[str, Any]:
    """The ``ltrbench`` schema metadata (JSON), checked: a damaged entry names the file."""
    raw = (table.schema.metadata or {}).get(_META_KEY)
    if not raw:
        return {}
    try:
        meta = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise DataError(f"damaged ltrbench metadata (not JSON: {exc})", path=p) from None
    if not isinstance(meta, dict):
        raise DataError("damaged ltrbench metadata (not a JSON object)", path=p)
    if meta.get("format") == _FORMAT:
        version = meta.get("version")
        if version is not None and (not isinstance(version, int) or isinstance(version, bool)
                                    or version > _VERSION):
            raise DataError(f"written as ltrbench LETOR Parquet version {version!r}; this "
                            f"ltrbench reads version {_VERSION} (a newer ltrbench wrote it: "
                            "convert again, or upgrade)", path=p)
        for key in ("feature_columns", "feature_names"):
            v = meta.get(key)
            if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
                raise DataError(f"damaged ltrbench metadata: {key!r} is not a list of names",
                                path=p)
    return meta


def read_parquet(path: PathLike) -> LetorData:
    """Read a Parquet file written by :func:`write_parquet` (or any table with ``qid``/``label``).

    The rows of a query must be contiguous; the first offending row is named otherwise.
    """
    p = check_input_file(path, expected="a LETOR Parquet file")  # a folder is named a folder
    try:
        names = pq.read_schema(p).names
        twice = next((c for c in names if names.count(c) > 1), None)
        if twice is not None:  # Parquet allows it; which one is meant cannot be told
            raise DataError(f"column {twice!r} appears {names.count(twice)} times: expected one "
                            "column of each name", path=p, column=twice)
        table = pq.read_table(p)
    except (pa.ArrowException, OSError) as exc:
        raise DataError(unreadable_parquet(p, exc), path=p) from exc
    meta = _ltrbench_meta(table, p)
    for required in ("qid", "label"):
        if required not in table.column_names:
            alike = [c for c in table.column_names if _role_of(c) == NOT_FEATURE_NAMES[required]]
            hint = (f": found {alike[0]!r}, names are exact (rename it {required!r})" if alike
                    else "")
            raise DataError(
                f"missing column; a LETOR Parquet file needs 'qid' and 'label' "
                f"(found {table.column_names[:8]}){hint}",
                path=p,
                column=required,
            )
    feature_columns, feature_names = _feature_columns(table, meta, p)
    if table.num_rows == 0:  # the SVMlight reader's rule: an empty split is no split
        raise DataError("no rows (an empty table): expected one row per (query, document)",
                        path=p)

    qid = _int_column(table, "qid", p, required=True)
    assert qid is not None
    label = _labels(table, p)
    n = table.num_rows
    X = np.empty((n, len(feature_columns)), dtype=np.float32)
    for j, c in enumerate(feature_columns):
        col = table.column(c)
        if col.null_count:
            bad = int(np.flatnonzero(col.is_null().to_numpy(zero_copy_only=False))[0])
            raise DataError("missing feature value (null)", path=p, row=bad + 1, column=c)
        if pa.types.is_decimal(col.type):
            col = col.cast(pa.float64())
        with np.errstate(over="ignore"):
            X[:, j] = col.to_numpy(zero_copy_only=False)
        if np.isinf(X[:, j]).any():  # inf, or beyond float32 (3.4e38); NaN is a missing value
            bad = int(np.flatnonzero(np.isinf(X[:, j]))[0])
            raise DataError(f"feature value {col[bad].as_py()!r} is not a finite float32 "
                            "(|x| <= 3.4e38; NaN marks a missing value)", path=p, row=bad + 1,
                            column=c)
    offsets, _ = offsets_from_qid(qid, path=p)
    return LetorData(
        X=X,
        y=label,
        qid=qid,
        offsets=offsets,
        feature_names=feature_names,
        user=_int_column(table, "user", p, required=False),
        item=_int_column(table, "item", p, required=False),
        source=str(p),  # the file read: errors name it (the writer's source is in its footer)
        meta=dict(meta["meta"]) if isinstance(meta.get("meta"), dict) else {},
    )


def _labels(table: pa.Table, p: Path) -> np.ndarray:
    """The ``label`` column as float64: numbers of an integer or float type, no null, finite;
    else a :class:`DataError` naming the file, the column and the first bad row."""
    label_type = table.schema.field("label").type
    if pa.types.is_decimal(label_type):  # a warehouse's DECIMAL: refused as on the shard path
        raise DataError(f"column of type {label_type}: expected numbers of an integer or float "
                        "type (a decimal column is not read as labels, as in --engine dask "
                        "shards): cast it to int64 or float64 where it is written (SQL: "
                        "CAST(label AS BIGINT), pandas: .astype('float64'))", path=p,
                        column="label")
    if not _is_numeric(label_type) or pa.types.is_boolean(label_type):  # text is never parsed
        raise DataError(f"column of type {label_type}: expected numbers (bench.data.inputs: "
                        "text is not parsed, a bool is no label)", path=p, column="label")
    if table.column("label").null_count:
        bad = int(np.flatnonzero(table.column("label").is_null().to_numpy(
            zero_copy_only=False))[0])
        raise DataError("missing label (null)", path=p, row=bad + 1, column="label")
    label: np.ndarray = table.column("label").to_numpy(zero_copy_only=False).astype(
        np.float64, copy=False)
    if not np.all(np.isfinite(label)):
        bad = int(np.flatnonzero(~np.isfinite(label))[0])
        raise DataError(f"label {float(label[bad])} is not a finite number", path=p, row=bad + 1,
                        column="label")
    return label


def _feature_columns(table: pa.Table, meta: dict[str, Any], p: Path
                     ) -> tuple[list[str], tuple[str, ...]]:
    """The feature columns and names: those the ``ltrbench`` metadata lists (each present,
    numeric, listed once and none of :data:`RESERVED_COLUMNS`: a label listed as a feature would
    leak the answer into the model), else every numeric column (decimals included) that is not
    reserved; text, list and date columns of a foreign table (a docid) are no features."""
    if meta.get("format") != _FORMAT:
        return _foreign_features(table, p)
    columns = list(meta["feature_columns"])
    for i, c in enumerate(columns):
        if c not in table.column_names:
            raise DataError("feature column listed in the metadata is absent", path=p, column=c)
        if c in RESERVED_COLUMNS or c in columns[:i]:
            why = "is reserved" if c in RESERVED_COLUMNS else "is listed twice"
            raise DataError(f"damaged ltrbench metadata: feature column {c!r} {why} (expected "
                            f"each feature once, none of {', '.join(RESERVED_COLUMNS)})",
                            path=p, column=c)
        t = table.schema.field(c).type
        if not (_is_numeric(t) or pa.types.is_decimal(t)):
            raise DataError(f"feature column of type {t}: expected numbers (text is not parsed)",
                            path=p, column=c)
    return columns, tuple(meta["feature_names"])


def _role_of(column: str) -> str | None:
    """What ``column``'s name says it holds (:data:`NOT_FEATURE_NAMES`), or ``None``."""
    return NOT_FEATURE_NAMES.get(column.lower().replace("-", "_").replace(" ", "_"))


def _foreign_features(table: pa.Table, p: Path) -> tuple[list[str], tuple[str, ...]]:
    """The features of a table another tool wrote: its numeric columns that are not reserved,
    in file order. A numeric column named like an id or label is refused; the columns left out
    for not being numbers are warned by name (module docstring)."""
    columns, dropped = [], []
    index = [c for c in _pandas_index_columns(table) if c not in RESERVED_COLUMNS]
    if index:  # the frame's row labels (pandas' __index_level_0__): no feature
        warnings.warn(f"{p}: column(s) {', '.join(map(repr, index))} hold the index of the "
                      "DataFrame the file was written from (pandas' to_parquet wrote them as "
                      "columns): row labels, not read as features (write it with index=False, "
                      "or reset_index() to make them data)", stacklevel=4)
    for c in table.column_names:
        if c in RESERVED_COLUMNS or c in index:
            continue
        t = table.schema.field(c).type
        if not (_is_numeric(t) or pa.types.is_decimal(t)):
            dropped.append(c)
            continue
        role = _role_of(c)
        if role is not None:
            raise DataError(f"a numeric column named like {role} would be read as a feature "
                            f"(only {', '.join(repr(r) for r in RESERVED_COLUMNS)}, spelled "
                            "exactly so, are read as ids and label; a label among the features "
                            "leaks the answer): rename it, or drop it from the table",
                            path=p, column=c)
        columns.append(c)
    if dropped:
        shown = ", ".join(repr(c) for c in dropped[:8]) + (" ..." if len(dropped) > 8 else "")
        warnings.warn(f"{p}: {len(dropped)} column(s) that are not numbers are not read as "
                      f"features: {shown} (a foreign LETOR Parquet file's features are its "
                      "numeric columns besides qid, label, user and item)", stacklevel=4)
    return columns, tuple(columns)


def _pandas_index_columns(table: pa.Table) -> list[str]:
    """The columns pandas' ``to_parquet`` wrote for a DataFrame's index (``index_columns`` of
    the file's ``pandas`` metadata: ``__index_level_0__`` after a sort or a filter, or the
    index's own name): row labels, which a model would learn as a feature (the row number of a
    file sorted by label is the label). A range index is stored as metadata, no column."""
    raw = (table.schema.metadata or {}).get(b"pandas")
    if raw is None:
        return []
    try:
        index = json.loads(raw).get("index_columns", [])
    except (ValueError, AttributeError):  # damaged metadata: no index is known
        return []
    names = table.column_names
    return [c for c in index if isinstance(c, str) and c in names] if isinstance(index, list) \
        else []


def _optional_ids(values: np.ndarray | None, n: int) -> pa.Array:
    if values is None:
        return pa.nulls(n, type=pa.int64())
    return pa.array(np.asarray(values, dtype=np.int64), type=pa.int64())


def _int_column(table: pa.Table, name: str, p: Path, *, required: bool) -> np.ndarray | None:
    if name not in table.column_names:
        return None
    col = table.column(name)
    if col.null_count == len(col) and not required:
        return None
    if col.null_count:
        bad = int(np.flatnonzero(col.is_null().to_numpy(zero_copy_only=False))[0])
        raise DataError("missing value (null)", path=p, row=bad + 1, column=name)
    values: np.ndarray = col.to_numpy(zero_copy_only=False)
    if values.dtype.kind == "f":
        from bench.data.input_ids import inexact_float_id

        inexact_float_id(values, what=name, path=p, column=name)  # 2^53 + 1 reads as 2^53
        if not np.all(values == np.round(values)):
            bad = int(np.flatnonzero(values != np.round(values))[0])
            raise DataError(f"value {float(values[bad])} is not an integer", path=p, row=bad + 1,
                            column=name)
    elif values.dtype.kind not in "iu":
        raise DataError(f"has type {col.type}, expected integers", path=p, column=name)
    if values.dtype.kind in "uf" and values.shape[0]:  # 2^64 - 1 would wrap to -1
        out = np.flatnonzero(~(np.abs(values.astype(np.float64)) < 2.0**63)) \
            if values.dtype.kind == "f" else np.flatnonzero(values > INT64_MAX)
        if out.shape[0]:
            raise DataError(f"value {values[out[0]].item()!r} is beyond int64: expected integer "
                            "ids within +-2^63", path=p, row=int(out[0]) + 1, column=name)
    return values.astype(np.int64, copy=False)


def _is_numeric(t: pa.DataType) -> bool:
    return bool(pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t))


def _jsonable(value: object) -> object:
    """``value`` with everything JSON cannot hold turned into strings (numpy scalars into numbers)."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def refuse_letor_split(schema: pa.Schema, p: Path) -> None:
    """A :class:`DataError` when a Parquet file given as a ratings table is a LETOR split this
    module wrote (its ``ltrbench`` schema metadata): its rows are queries with sampled
    never-rated items (label 0), and read as ratings each negative would become a rating."""
    if _META_KEY in (schema.metadata or {}):
        raise DataError("is a LETOR split written by ltrbench (its rows are queries with "
                        "sampled never-rated items as label 0), not a ratings table: read as "
                        "ratings, every sampled negative would become a rating; give the "
                        "ratings table it was converted from, or its folder to 'run --dataset'",
                        path=p)
