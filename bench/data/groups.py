"""Query groups: from per-row query ids or group sizes to group offsets.

Every ranking routine in ltrbench works on *group offsets*: an int64 array ``offsets`` of
length ``n_queries + 1`` with ``offsets[0] == 0`` and ``offsets[-1] == n_rows``; the rows of
query ``g`` are ``offsets[g]:offsets[g + 1]``. This is the layout LightGBM (``group`` /
``.query`` files) and XGBoost (``group_ptr``, built from ``qid`` in ``src/data/data.cc``) use.
"""

from __future__ import annotations

from os import PathLike

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bench.data.big_ints import int_text
from bench.errors import DataError

#: How to group a query's rows where the caller can (``evaluate``, ``read_svmlight``); a
#: dataset's files have no such option (``ltrbench run``, ``load_dataset``): there the hint is
#: :data:`SORT_FILE_HINT`, swapped in by :func:`bench.datasets.resolve.load_dataset`.
SORT_HINT = "sort the rows by qid: --sort-by-qid on the command line, sort_by_qid=True in Python"
SORT_FILE_HINT = ("sort the file by qid, each query's rows kept in their order; a dataset's "
                  "files are read as they are")


def offsets_from_qid(
    qid: ArrayLike,
    *,
    path: str | PathLike[str] | None = None,
    row_base: int = 1,
) -> tuple[NDArray[np.int64], np.ndarray]:
    """Group offsets and the query id of each group, from per-row query ids.

    The rows of one query must be adjacent ("contiguous"); they need not be sorted. The first
    row whose query id already appeared in an earlier run of rows is named in the error
    (``row_base`` = 1 numbers rows from 1, as a text file's data lines are).

    Returns ``(offsets, group_qid)``: ``offsets`` is int64; ``group_qid`` is int64 when the
    ids are integers (uint64 beyond int64 kept: :func:`group_ids`), else it keeps the ids' own
    dtype (strings, floats, objects).
    """
    q = np.asarray(qid)
    if q.ndim != 1:
        raise DataError(f"qid must be one-dimensional, got shape {q.shape}", path=path)
    n = q.shape[0]
    if n == 0:
        return np.zeros(1, dtype=np.int64), q[:0].astype(np.int64, copy=False)
    # ids of mixed types (an object array of ints and strings) cannot be ordered: compare
    # their codes, numbered by first appearance, instead
    key = _codes(q) if q.dtype.kind == "O" else q
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    group_qid = q[starts]
    if not _all_distinct(key[starts]):
        bad_row = _first_reappearing_row(key[starts], starts)
        raise DataError(
            f"query id {_item(q[bad_row])!r} reappears after other queries: the rows of a query "
            f"must be contiguous ({SORT_HINT})",
            path=path,
            row=int(bad_row) + row_base,
        )
    offsets = np.empty(starts.shape[0] + 1, dtype=np.int64)
    offsets[:-1] = starts
    offsets[-1] = n
    return offsets, group_ids(group_qid)


def group_ids(ids: np.ndarray) -> np.ndarray:
    """The ids of the groups as the caller gave them: integers as int64 where they fit, a
    uint64 id beyond int64 kept as uint64 (a cast would have shown 2^64 - 1 as query -1 in
    the per-query table); other ids (text, floats, objects) as they are."""
    if ids.dtype.kind == "u" and ids.size and int(ids.max()) > np.iinfo(np.int64).max:
        return ids.astype(np.uint64, copy=False)
    return ids.astype(np.int64, copy=False) if ids.dtype.kind in "iu" else ids


def _no_bools() -> None:
    raise DataError("group sizes must be integers, not bools (True would be a query of 1 row)")


def offsets_from_sizes(
    sizes: ArrayLike, n_rows: int, *, path: str | PathLike[str] | None = None
) -> NDArray[np.int64]:
    """Group offsets from group sizes (LightGBM's ``group`` / ``.query`` sidecar file).

    Sizes must be positive integers that add up to the number of rows. Each size is checked
    as given, before any cast to int64: a missing one (``pd.NA``, a pyarrow null) is named
    missing, and one above the number of rows (a uint64 beyond int64, ``1e20``, sizes whose
    int64 sum would wrap round to the row count) is named with its own value and the exact
    sum, never as the negative number a cast would make of it.
    """
    if isinstance(sizes, list | tuple) and any(isinstance(g, bool | np.bool_) for g in sizes):
        _no_bools()  # NumPy reads [True, 5] as [1, 5]: look at the values given
    try:
        s = np.asarray(sizes)
    except OverflowError:
        s = np.asarray(sizes, dtype=object)
    if s.dtype.kind == "b" or (s.dtype.kind == "O" and any(
            isinstance(g, bool | np.bool_) for g in s.ravel().tolist())):
        _no_bools()  # a bool array, a pandas "boolean" array
    if s.dtype.kind not in "iuf":  # None, huge Python ints, strings: check one by one
        for i, v in enumerate(s.ravel().tolist()):
            if v is None or type(v).__name__ in ("NAType", "NaTType"):
                raise _missing(i, path, v)
            if isinstance(v, bool) or not isinstance(v, int | float) or not 0 < v < 2**62:
                shown = int_text(v) if isinstance(v, int) and not isinstance(v, bool) else repr(v)
                raise DataError(f"group size {shown}{_at(i, path)} is not a positive integer",
                                path=path, line=i + 1 if path else None)
        s = s.astype(np.float64)
    if s.ndim != 1:
        raise DataError(f"group sizes must be one-dimensional, got shape {s.shape}", path=path)
    if s.size and (s.dtype.kind == "f" and not np.all(np.isfinite(s) & (s == np.round(s)))):
        bad = int(np.flatnonzero(~(np.isfinite(s) & (s == np.round(s))))[0])
        if np.isnan(s[bad]):  # pd.NA or a pyarrow null, as NumPy reads it
            raise _missing(bad, path, s[bad].item())
        raise DataError(f"group size {s[bad].item()!r}{_at(bad, path)} is not an integer",
                        path=path, line=bad + 1 if path else None)
    if np.any(s <= 0):
        bad = int(np.flatnonzero(s <= 0)[0])
        raise DataError(f"group size {s[bad].item()!r}{_at(bad, path)} must be positive",
                        path=path, line=bad + 1 if path else None)
    if np.any(over := s > n_rows):  # compared in the sizes' own dtype: nothing wrapped yet
        bad = int(np.flatnonzero(over)[0])
        total = sum(int(v) for v in s.tolist())  # exact: an int64 sum could wrap round to n
        raise DataError(f"group sizes add up to {total} rows but the data has {n_rows} rows "
                        f"(group size {s[bad].item()!r}{_at(bad, path) or f' on line {bad + 1}'} "
                        "alone is larger)",
                        path=path)
    s = s.astype(np.int64)
    total = int(s.sum())
    if total != n_rows:
        raise DataError(
            f"group sizes add up to {total} rows but the data has {n_rows} rows",
            path=path,
        )
    offsets = np.zeros(s.shape[0] + 1, dtype=np.int64)
    np.cumsum(s, out=offsets[1:])
    return offsets


def _missing(i: int, path: str | PathLike[str] | None, value: object) -> DataError:
    """A missing group size (None, ``pd.NA``, a pyarrow null, NaN): named missing."""
    return DataError(f"group size {value!r}{_at(i, path)} is not a positive integer: it is "
                     "missing", path=path, line=i + 1 if path else None)


def _at(i: int, path: object) -> str:
    """Where a bad size of a Python sequence is (``group[2]``); a file's line is the error's."""
    return "" if path else f" (group[{i}])"


def sizes_from_offsets(offsets: NDArray[np.int64]) -> NDArray[np.int64]:
    """Group sizes (``np.diff`` of the offsets)."""
    return np.diff(offsets)


def group_index(offsets: NDArray[np.int64]) -> NDArray[np.int64]:
    """The group number of every row (length ``offsets[-1]``)."""
    return np.repeat(np.arange(offsets.shape[0] - 1, dtype=np.int64), np.diff(offsets))


def stable_order_by_qid(qid: ArrayLike) -> NDArray[np.int64]:
    """Row order that makes ``qid`` contiguous, keeping rows of a query in their input order.

    Queries appear in order of first appearance, so already-contiguous input is unchanged.
    """
    q = np.asarray(qid)
    if q.dtype.kind == "O":
        q = _codes(q)
    _, first, inverse = np.unique(q, return_index=True, return_inverse=True)
    rank_of_first = np.argsort(np.argsort(first, kind="stable"), kind="stable")
    return np.argsort(rank_of_first[inverse.ravel()], kind="stable").astype(np.int64)


def _all_distinct(values: np.ndarray) -> bool:
    # Sorted query ids (the usual layout) are distinct iff strictly increasing: O(n), no sort.
    if values.shape[0] < 2 or bool(np.all(values[1:] > values[:-1])):
        return True
    return bool(np.unique(values).shape[0] == values.shape[0])


def _first_reappearing_row(group_qid: np.ndarray, starts: np.ndarray) -> int:
    order = np.argsort(group_qid, kind="stable")
    sorted_q = group_qid[order]
    dup = np.flatnonzero(sorted_q[1:] == sorted_q[:-1]) + 1  # later runs of a seen qid
    return int(starts[order[dup]].min())


def _codes(q: np.ndarray) -> NDArray[np.int64]:
    """Int64 codes of hashable ids, numbered by first appearance (equal ids, equal codes)."""
    import pandas as pd

    codes, _ = pd.factorize(q, sort=False)
    out: NDArray[np.int64] = np.asarray(codes, dtype=np.int64)
    return out


def _item(v: object) -> object:
    return v.item() if isinstance(v, np.generic) else v
