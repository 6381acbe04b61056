"""``LetorData``: a query-grouped learning-to-rank matrix.

One row is one (query, document) pair: features ``X`` (float32, n x d), relevance label ``y``,
query id ``qid``. Rows of a query are contiguous; ``offsets`` gives the group boundaries (see
:mod:`bench.data.groups`). For data built from user-item ratings, ``user`` and ``item`` hold the
ids behind each row (a user is a query, an item a document).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bench.data.arrow_tables import is_named_table, table_frame
from bench.data.groups import offsets_from_qid, offsets_from_sizes
from bench.data.input_ids import id_array, inexact_float_id
from bench.data.python_args import refuse_non_arrays, same_index
from bench.errors import ConfigError, DataError


@dataclass(frozen=True, eq=False)
class LetorData:
    """A query-grouped feature matrix.

    Attributes:
        X: float32 features, shape (n_rows, n_features).
        y: float64 relevance labels, shape (n_rows,).
        qid: int64 query id of each row; the rows of a query are contiguous.
        offsets: int64 group offsets, length n_queries + 1.
        feature_names: one name per column of ``X``.
        user, item: for recommender data, the user / item id of each row (else ``None``).
        source: where the data came from (a path or a description), for messages and manifests.
    """

    X: NDArray[np.float32]
    y: NDArray[np.float64]
    qid: NDArray[np.int64]
    offsets: NDArray[np.int64]
    feature_names: tuple[str, ...]
    user: NDArray[np.int64] | None = None
    item: NDArray[np.int64] | None = None
    source: str = ""
    meta: dict[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        n = self.y.shape[0]
        where = self.source or None
        if self.X.ndim != 2 or self.X.shape[0] != n:
            raise DataError(f"X has shape {self.X.shape}, expected ({n}, n_features)", path=where)
        if self.qid.shape != (n,):
            raise DataError(f"qid has shape {self.qid.shape}, expected ({n},)", path=where)
        if self.offsets[0] != 0 or self.offsets[-1] != n:
            raise DataError("group offsets do not cover the rows", path=where)
        if len(self.feature_names) != self.X.shape[1]:
            raise DataError(
                f"{len(self.feature_names)} feature names for {self.X.shape[1]} columns",
                path=where,
            )
        for name in ("user", "item"):
            v = getattr(self, name)
            if v is not None and v.shape != (n,):
                raise DataError(f"{name} has shape {v.shape}, expected ({n},)", path=where)

    @classmethod
    def build(
        cls,
        X: ArrayLike,
        y: ArrayLike,
        *,
        qid: ArrayLike | None = None,
        group: ArrayLike | None = None,
        feature_names: list[str] | tuple[str, ...] | None = None,
        user: ArrayLike | None = None,
        item: ArrayLike | None = None,
        source: str = "",
    ) -> LetorData:
        """Build from arrays, with either per-row ``qid`` or LightGBM-style ``group`` sizes.

        ``X`` must be real numbers or booleans, ``y`` real numbers (finite: a NaN label grades
        nothing; a bool is no label, refused as ``evaluate`` refuses it); ``qid``
        integers, or floats with integer values, within int64 (``1.2`` and ``1.7`` would both
        become query 1; strings, booleans and NaN are refused): a :class:`DataError` naming
        ``source`` and the first bad row, never a NumPy traceback. An object array or column of
        plain numbers (a pandas object column) is read as its numbers, a ``None``, ``pd.NA``,
        ``Decimal`` or text in it named with its row. pandas Series among ``y``, ``qid``,
        ``user``, ``item`` must have ``X``'s index (a DataFrame ``X``) or each other's: rows
        are paired by position, so a re-sorted Series would be silently misaligned."""
        where = source or None
        refuse_non_arrays(X=X, y=y, qid=qid, group=group, user=user, item=item)  # named
        same_index({"y": y, "qid": qid, "user": user, "item": item},  # paired by position
                   getattr(X, "index", None) if _is_frame(X) else None)
        _refuse_bool_labels(y, source)  # as evaluate, the TREC readers and the shards do
        ya = _real(y, "y (labels)", source, np.float64)
        for name, v in (("y (labels)", ya), ("qid", qid), ("user", user), ("item", item)):
            if v is not None and np.ndim(v) != 1:  # a (2, 3) table was read as 6 rows
                raise DataError(f"{name} must be one-dimensional, got shape {np.shape(v)}",
                                path=where)
        Xa = _real(X, "X", source, np.float32)
        if not np.isfinite(ya).all():
            row = int(np.flatnonzero(~np.isfinite(ya))[0])
            raise DataError(f"label {ya[row]} is not a finite number; expected a relevance "
                            "grade", path=source or None, row=row + 1, column="label")
        if Xa.ndim != 2:
            raise DataError(f"X must be two-dimensional, got shape {Xa.shape}", path=source or None)
        if (qid is None) == (group is None):
            raise DataError("give exactly one of qid= or group=", path=source or None)
        if qid is not None:
            qa = id_array(qid).ravel()  # [True, 1]: NumPy would make it [1, 1], one query
            if qa.shape[0] != ya.shape[0]:
                raise DataError(
                    f"qid has {qa.shape[0]} entries for {ya.shape[0]} rows", path=source or None
                )
            qa = _int_ids(qa, source)
            offsets, _ = offsets_from_qid(qa, path=source or None)
        else:
            offsets = offsets_from_sizes(cast("ArrayLike", group), ya.shape[0],
                                         path=source or None)
            qa = np.repeat(np.arange(offsets.shape[0] - 1, dtype=np.int64), np.diff(offsets))
        names = _feature_names(feature_names, Xa.shape[1], where)
        return cls(
            X=Xa,
            y=ya,
            qid=qa,
            offsets=offsets,
            feature_names=names,
            user=None if user is None else _int_ids(np.asarray(user), source, "user"),
            item=None if item is None else _int_ids(np.asarray(item), source, "item"),
            source=source,
        )

    @property
    def n_rows(self) -> int:
        return int(self.y.shape[0])

    @property
    def n_queries(self) -> int:
        return int(self.offsets.shape[0] - 1)

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    @property
    def group_sizes(self) -> NDArray[np.int64]:
        """Rows per query, in order (what LightGBM's ``group=`` and ``.query`` files hold)."""
        return np.diff(self.offsets)

    @property
    def query_ids(self) -> NDArray[np.int64]:
        """The query id of each group, in order."""
        return self.qid[self.offsets[:-1]]

    def take_queries(self, groups: ArrayLike) -> LetorData:
        """A new ``LetorData`` with the given groups (by position), in the given order."""
        g = np.asarray(groups, dtype=np.int64)
        sizes = np.diff(self.offsets)[g]
        starts = self.offsets[:-1][g]
        rows = np.repeat(starts - np.r_[0, np.cumsum(sizes)[:-1]], sizes) + np.arange(sizes.sum())
        offsets = np.zeros(g.shape[0] + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        return replace(
            self,
            X=self.X[rows],
            y=self.y[rows],
            qid=self.qid[rows],
            offsets=offsets,
            user=None if self.user is None else self.user[rows],
            item=None if self.item is None else self.item[rows],
            # a row permutation recorded by a reader does not describe the subset's rows
            meta={k: v for k, v in self.meta.items() if k != "file_order"},
        )

    def label_histogram(self) -> dict[float, int]:
        """Count of rows per label value."""
        values, counts = np.unique(self.y, return_counts=True)
        return {float(v): int(c) for v, c in zip(values, counts, strict=True)}

    def summary(self) -> dict[str, object]:
        """Counts a person wants to see before training: rows, queries, features, labels, blanks."""
        sizes = self.group_sizes
        has_rel = np.zeros(self.n_queries, dtype=bool)
        if self.n_rows:
            rel_per_query = np.add.reduceat((self.y > 0).astype(np.int64), self.offsets[:-1])
            has_rel = rel_per_query > 0 if self.n_queries else has_rel
        return {
            "rows": self.n_rows,
            "queries": self.n_queries,
            "features": self.n_features,
            "labels": self.label_histogram(),
            "blank_queries": int((~has_rel).sum()),
            "single_document_queries": int((sizes == 1).sum()),
            "rows_per_query": {
                "min": int(sizes.min()) if sizes.size else 0,
                "median": float(np.median(sizes)) if sizes.size else 0.0,
                "max": int(sizes.max()) if sizes.size else 0,
            },
        }


@dataclass(frozen=True, eq=False)
class LetorSplits:
    """A dataset ready for training: train / validation / test :class:`LetorData`.

    ``inputs`` maps every input file that went into it to its sha256 (for run manifests);
    ``meta`` holds whatever the loader or adapter wants recorded (split rule, label mapping, ...).
    """

    name: str
    train: LetorData
    vali: LetorData
    test: LetorData
    inputs: dict[str, str] = field(default_factory=dict)
    meta: dict[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Fields of the types the run records (a notebook builds this by hand): a
        :class:`ConfigError` naming the field, never a ``TypeError`` from the manifest's JSON
        once the run directory exists (``inputs=None``, a list, ``Path`` keys). ``inputs``
        keys that are paths (``os.PathLike``) are kept as their text."""
        if not isinstance(self.name, str) or not self.name.strip():
            raise ConfigError(f"LetorSplits: name: expected a non-empty string (the dataset's "
                              f"name in the run's tables); got {self.name!r}")
        for part in ("train", "vali", "test"):
            if not isinstance(getattr(self, part), LetorData):
                raise ConfigError(f"LetorSplits: {part}: expected a bench.data.LetorData "
                                  f"(LetorData.build(X, y, qid=...)); got "
                                  f"{type(getattr(self, part)).__name__}")
        for key, value in (("inputs", self.inputs), ("meta", self.meta)):
            if not isinstance(value, Mapping):
                raise ConfigError(f"LetorSplits: {key}: expected a dict; got "
                                  f"{type(value).__name__} {value!r:.60}")
        inputs = {os.fspath(k) if isinstance(k, os.PathLike) else k: v
                  for k, v in self.inputs.items()}
        bad = next(((k, v) for k, v in inputs.items()
                    if not isinstance(k, str) or not isinstance(v, str)), None)
        if bad is not None:
            raise ConfigError(f"LetorSplits: inputs: expected {{file path: sha256 text}}; got "
                              f"{bad[0]!r}: {bad[1]!r}")
        object.__setattr__(self, "inputs", inputs)
        object.__setattr__(self, "meta", dict(self.meta))

    def splits(self) -> dict[str, LetorData]:
        """The three parts by name, in pipeline order."""
        return {"train": self.train, "vali": self.vali, "test": self.test}


def _refuse_bool_labels(y: ArrayLike, source: str) -> None:
    """A bool label (a bool array, or a bool among an object column's numbers) is refused,
    naming its row: ``True`` is no grade (``evaluate`` and the shard reader refuse it too)."""
    raw = y.to_numpy() if hasattr(y, "to_numpy") and not _is_frame(y) else y
    a = np.asarray(raw) if not is_named_table(raw) and not _is_frame(raw) else np.empty(0)
    if a.dtype.kind == "b" and a.size:
        row = 1
    elif a.dtype.kind == "O":
        items = a.reshape(-1).tolist()
        if any(v is None or type(v).__name__ == "NAType" for v in items):
            return  # a missing label is named first, with its row (_object_numbers)
        row = next((i + 1 for i, v in enumerate(items) if isinstance(v, bool | np.bool_)), 0)
    else:
        return
    if row:
        raise DataError(f"y (labels) value {bool(a.reshape(-1)[row - 1])!r} is a bool: expected "
                        "numbers (a bool is no grade: convert with .astype(int) if 1/0 is "
                        "meant)", path=source or None, row=row)


def _real(values: ArrayLike, name: str, source: str, dtype: type[np.floating[Any]]) -> NDArray[Any]:
    """``values`` as ``dtype`` when they are real numbers (booleans as 0 and 1; complex numbers,
    text and objects refused; a DataFrame column by column, :func:`_frame_numbers`)."""
    if is_named_table(values):  # a pyarrow Table, a NumPy structured array: a frame, by column
        values = table_frame(values)  # (NumPy reads the first as one object array and refuses
        # the second's dtype, naming no column)
    a = _frame_numbers(values, name, source) if _is_frame(values) else np.asarray(values)
    if a.dtype.kind == "O":  # a pandas object column, a "boolean" array with <NA>
        a = _object_numbers(a, name, source)
    if a.dtype.kind not in "biuf":
        raise DataError(f"{name} must be real numbers; got dtype {a.dtype}", path=source or None)
    top = np.finfo(dtype).max
    if a.dtype.kind == "f" and a.dtype.itemsize > np.dtype(dtype).itemsize:
        big = np.isfinite(a) & (np.abs(a) > top)  # 1e39 would become inf in the cast, unsaid
        if big.any():
            at = tuple(int(i) for i in np.argwhere(big)[0])
            where = f"row {at[0] + 1}" + (f", column {at[1] + 1}" if len(at) > 1 else "")
            raise DataError(f"{name} value {float(a[at])!r} ({where}) does not fit a "
                            f"{np.dtype(dtype).name} (|x| <= {float(top):.4g})",
                            path=source or None)
    return np.asarray(a, dtype=dtype, order="C")  # a 0-d y stays 0-d: named by its shape


def _object_numbers(a: NDArray[Any], name: str, source: str) -> NDArray[Any]:
    """An object array of plain numbers (ints, floats, bools, NumPy scalars) as float64; the
    first element that is missing (``None``, ``pd.NA``; a missing feature is NaN, a missing
    label is refused) or no real number (a ``Decimal``, text) is named with its row."""
    out = np.empty(a.shape, dtype=np.float64)
    flat = out.reshape(-1)
    for i, v in enumerate(a.reshape(-1).tolist()):
        missing = v is None or type(v).__name__ in ("NAType", "NaTType")
        if not missing and not isinstance(v, bool | int | float | np.bool_ | np.integer
                                          | np.floating):
            raise DataError(f"{name}: {v!r} is a {type(v).__name__}: expected real numbers "
                            "(convert a Decimal with float() first, encode text as numbers)",
                            path=source or None, **_place(i, a.shape))
        if missing and name != "X":
            raise DataError(f"{name}: {v!r} is missing: every row needs a relevance grade",
                            path=source or None, **_place(i, a.shape))
        flat[i] = np.nan if missing else float(v)
    return out


def _place(i: int, shape: tuple[int, ...]) -> dict[str, Any]:
    """Row (and column) of flat element ``i``, numbered from 1, for a :class:`DataError`."""
    if len(shape) < 2:
        return {"row": i + 1}
    return {"row": i // shape[1] + 1, "column": str(i % shape[1] + 1)}


def _is_frame(values: object) -> bool:
    pd = sys.modules.get("pandas")  # not imported: no DataFrame can have been made
    return pd is not None and isinstance(values, pd.DataFrame)


def _frame_numbers(frame: Any, name: str, source: str) -> NDArray[np.float64]:
    """A DataFrame's columns as one float64 matrix, column by column: NumPy makes a frame
    holding a nullable (``Int64``, ``Float64``, ``boolean``), Arrow-backed or ``bool`` column
    one object array ("got dtype object", no column named); a missing value of a nullable
    column is NaN, as a missing feature is. A column that holds no real numbers (text, a
    category, dates, Decimals as objects, complex numbers) is refused by name and position."""
    import pandas as pd

    cols = []
    for j, (label, dtype) in enumerate(frame.dtypes.items()):
        real = pd.api.types.is_bool_dtype(dtype) or (
            pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_complex_dtype(dtype))
        if not real:
            raise DataError(f"{name}: column {label!r} (column {j + 1}) has dtype {dtype}: "
                            "expected real numbers or booleans in every column (encode text "
                            "and categories as numbers first)", path=source or None,
                            column=str(label))
        cols.append(frame.iloc[:, j].to_numpy(dtype=np.float64, na_value=np.nan))
    return np.column_stack(cols) if cols else np.empty((frame.shape[0], 0))


def _int_ids(qa: NDArray[Any], source: str, name: str = "qid") -> NDArray[np.int64]:
    """Query (or ``user`` / ``item``) ids as int64: integer dtypes within int64, or floats whose
    values are integers (a user 1.5 was cut to 1, a user "u" a ``ValueError``)."""
    where = source or None
    if qa.dtype.kind == "O":  # a pandas object column: integers (or whole floats) one by one
        qa = _object_ids(qa, name, where)
    inexact_float_id(qa, what=name, path=where, column=name)  # 2^53 + 1 was read as 2^53
    if qa.dtype.kind == "f" and qa.dtype.itemsize < 8:  # float16: 2.0**63 would overflow it
        qa = qa.astype(np.float64)
    if qa.dtype.kind not in "iuf":
        raise DataError(f"{name} must be integers; got dtype {qa.dtype} (map other ids to "
                        "integers first)", path=where, column=name)
    if qa.dtype.kind == "f":
        bad = ~np.isfinite(qa) | (qa != np.floor(qa)) | (np.abs(qa) >= 2.0**63)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            if np.isnan(qa[row]):  # pd.NA or a pyarrow null, as NumPy reads it
                raise DataError(f"{name} {qa[row]} is missing: every row needs an integer {name}",
                                path=where, row=row + 1, column=name)
            raise DataError(f"{name} {qa[row]} is not an integer; {name} ids are integers",
                            path=where, row=row + 1, column=name)
    elif qa.dtype.kind == "u" and qa.size and int(qa.max()) > np.iinfo(np.int64).max:
        row = int(np.argmax(qa))
        raise DataError(f"{name} {qa[row]} is beyond int64", path=where, row=row + 1,
                        column=name)
    return qa.astype(np.int64)


def _object_ids(qa: NDArray[Any], name: str, where: str | None) -> NDArray[Any]:
    """An object array of ids as int64 when every id is an integer (a Python or NumPy int), as
    float64 when some are floats (checked whole by the caller); a missing id, a bool or any
    other value is named with its row."""
    items = qa.tolist()
    for i, v in enumerate(items):
        if v is None or type(v).__name__ in ("NAType", "NaTType") or (
                isinstance(v, float | np.floating) and v != v):
            raise DataError(f"{name} {v!r} is missing: every row needs an integer {name}",
                            path=where, row=i + 1, column=name)
        if isinstance(v, bool | np.bool_):
            raise DataError(f"{name} {v!r} is a bool: expected integers (True would be "
                            "query 1)", path=where, row=i + 1, column=name)
        if not isinstance(v, int | float | np.integer | np.floating):
            raise DataError(f"{name} {v!r} is a {type(v).__name__}: expected integers (map "
                            "other ids to integers first)", path=where, row=i + 1, column=name)
    if all(isinstance(v, int | np.integer) for v in items):
        big = next((i for i, v in enumerate(items) if not -2**63 <= int(v) < 2**63), None)
        if big is not None:
            raise DataError(f"{name} {items[big]} is beyond int64", path=where, row=big + 1,
                            column=name)
        return np.array([int(v) for v in items], dtype=np.int64)
    return np.array([float(v) for v in items], dtype=np.float64)


def _feature_names(given: Any, width: int, where: str | None) -> tuple[str, ...]:
    """One text name per column of ``X`` (default ``f1..fN``): one string (``"abc"`` was split
    into the names a, b, c) or a name that is not text is refused."""
    if given is None:
        return tuple(f"f{j + 1}" for j in range(width))
    if isinstance(given, str | bytes):
        raise DataError(f"feature_names is one string {given!r:.40}: expected a list of names, "
                        "one per column of X", path=where)
    names = tuple(given)
    bad = next((n for n in names if not isinstance(n, str)), None)
    if bad is not None:
        raise DataError(f"feature_names: {bad!r} is a {type(bad).__name__}: expected text "
                        "names, one per column of X", path=where)
    return names
