"""Integrity checks that run before any library sees the data.

:func:`check_letor` checks a :class:`~bench.data.letor.LetorData` and returns it (optionally
without empty, single-document or blank queries) with a :class:`CheckReport`:

- groups: ``offsets`` start at 0, never decrease and end at the row count (group sizes add up
  to the rows, LightGBM's "Sum of query counts is not same with #data"); every group has one
  query id and no query id appears in two groups (the rows of a query are contiguous);
- labels: finite; for exponential gain ``2^l - 1`` integers in ``0..max_label`` (XGBoost's
  ``CheckNDCGLabels`` accepts ``l <= 31``; LightGBM's default ``label_gain`` has 31 entries, so
  it accepts ``l <= 30``: a label of 31 passes with a warning in the report); for linear gain
  non-negative; for a per-label gain table integers indexing the table;
- features: no NaN or infinity (unless ``allow_nan``), naming the row and the feature column;
- queries: empty (no rows), single-document and blank (no document with label > 0) queries are
  counted, and dropped on request;
- recommender rows (``user``/``item`` present): no (user, item) pair twice.

Every failure is a :class:`~bench.errors.DataError` naming the source file and the row
(rows are numbered from 1, as the data lines of a file are).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from os import PathLike

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from bench.data.groups import SORT_HINT, group_index
from bench.data.letor import LetorData
from bench.errors import ConfigError, DataError

GAINS = ("exp2", "linear")
#: Largest label exponential gain accepts by default (XGBoost's ``CheckNDCGLabels``).
EXP2_MAX_LABEL = 31
#: Largest label LightGBM's default ``label_gain`` (31 entries, ``2^l - 1``) accepts.
LIGHTGBM_DEFAULT_MAX_LABEL = 30
_CHUNK_CELLS = 1 << 24  # feature cells checked per block (bounded temporary memory)


@dataclass(frozen=True)
class CheckReport:
    """What :func:`check_letor` found (counts are before any drop)."""

    source: str
    rows: int
    queries: int
    features: int
    gain: str
    label_min: float | None
    label_max: float | None
    label_values: tuple[float, ...]
    empty_queries: int
    single_document_queries: int
    blank_queries: int
    nonfinite_features: int = 0
    dropped_queries: int = 0
    dropped_rows: int = 0
    warnings: tuple[str, ...] = field(default_factory=tuple)

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def check_letor(
    data: LetorData,
    *,
    gain: str | tuple[float, ...] = "exp2",
    max_label: int | None = None,
    allow_nan: bool = False,
    drop_empty: bool = False,
    drop_single: bool = False,
    drop_blank: bool = False,
    path: str | PathLike[str] | None = None,
) -> tuple[LetorData, CheckReport]:
    """Check ``data`` (see the module docstring) and return it, minus dropped queries, with a report.

    ``gain`` is ``"exp2"`` (``2^l - 1``; labels integer in ``0..max_label``, default 31),
    ``"linear"`` (labels finite and >= 0) or a tuple of per-label gains (labels integer in
    ``0..len(gain) - 1``). ``path`` names the file in errors (default ``data.source``).
    """
    where = str(path) if path is not None else (data.source or None)
    try:
        check_groups(data.qid, data.offsets, path=where)
        gain_name = check_labels(data.y, gain=gain, max_label=max_label, path=where)
        nonfinite = check_features(data.X, data.feature_names, allow_nan=allow_nan, path=where)
        if data.user is not None and data.item is not None:
            check_ratings_pairs(data.user, data.item, path=where)
    except DataError as exc:
        raise _on_file_line(exc, data) from None

    sizes = np.diff(data.offsets)
    positive = (data.y > 0).astype(np.int64)
    rel = np.add.reduceat(positive, data.offsets[:-1]) if data.n_rows else np.zeros(0, np.int64)
    # reduceat returns the element at a start index for an empty group: zero those out
    rel = np.where(sizes > 0, rel, 0) if rel.size else np.zeros(sizes.shape[0], np.int64)
    empty, single, blank = sizes == 0, sizes == 1, (rel == 0) & (sizes > 0)

    warnings: list[str] = []
    labels = np.unique(data.y)
    if gain_name == "exp2" and labels.size and labels[-1] > LIGHTGBM_DEFAULT_MAX_LABEL:
        warnings.append(
            f"label {labels[-1]:g} exceeds LightGBM's default label_gain (labels 0..30); "
            "pass label_gain explicitly to LightGBM"
        )
    if nonfinite:
        warnings.append(f"{nonfinite} feature values are NaN (treated as missing by the libraries)")

    drop = np.zeros(sizes.shape[0], dtype=bool)
    if drop_empty:
        drop |= empty
    if drop_single:
        drop |= single
    if drop_blank:
        drop |= blank
    out = data.take_queries(np.flatnonzero(~drop)) if drop.any() else data
    report = CheckReport(
        source=where or "",
        rows=data.n_rows,
        queries=data.n_queries,
        features=data.n_features,
        gain=gain_name,
        label_min=float(labels[0]) if labels.size else None,
        label_max=float(labels[-1]) if labels.size else None,
        label_values=tuple(float(v) for v in labels[:64]),
        empty_queries=int(empty.sum()),
        single_document_queries=int(single.sum()),
        blank_queries=int(blank.sum()),
        nonfinite_features=nonfinite,
        dropped_queries=int(drop.sum()),
        dropped_rows=int(sizes[drop].sum()),
        warnings=tuple(warnings),
    )
    return out, report


def _on_file_line(exc: DataError, data: LetorData) -> DataError:
    """``exc`` located on the user's line of the SVMlight/LETOR text file ``data`` was read from
    (the input discipline of :mod:`bench.data.inputs`: the file's line, not an internal row),
    when the rows are the file's (not carved out of it; a reader's sort undone by
    ``meta["file_order"]``); otherwise ``exc`` as it is."""
    from pathlib import Path

    src = Path(exc.path) if exc.path else None
    if exc.row is None or exc.line is not None or src is None or "carved" in data.meta \
            or src.suffix.lower() in (".parquet", ".pq", ".npy") or not src.is_file():
        return exc
    from bench.data.inputs import line_of_data_row

    order = data.meta.get("file_order")
    row = exc.row if order is None else int(np.asarray(order)[exc.row - 1]) + 1
    try:
        line = line_of_data_row(src, row)
    except DataError:
        return exc
    if line is None:
        return exc
    return DataError(exc.reason, path=src, line=line, row=row, column=exc.column)


def check_groups(
    qid: ArrayLike, offsets: ArrayLike, *, path: str | PathLike[str] | None = None
) -> None:
    """Group offsets cover the rows, and each query id is one contiguous run of rows."""
    q = np.asarray(qid)
    off = np.asarray(offsets, dtype=np.int64)
    n = q.shape[0]
    if off.ndim != 1 or off.shape[0] < 1 or off[0] != 0:
        raise DataError("group offsets must start at 0", path=path)
    steps = np.diff(off)
    if np.any(steps < 0):
        g = int(np.flatnonzero(steps < 0)[0])
        raise DataError(f"group {g + 1} has a negative size ({int(steps[g])})", path=path)
    if off[-1] != n:
        raise DataError(
            f"group sizes add up to {int(off[-1])} rows but the data has {n} rows", path=path
        )
    if n == 0:
        return
    nonempty = steps > 0
    group_of_row = group_index(off)
    # inside a group, every row has the group's first query id
    first_qid = q[off[:-1][nonempty]]
    expected = np.repeat(first_qid, steps[nonempty])
    bad = np.flatnonzero(q != expected)
    if bad.size:
        r = int(bad[0])
        raise DataError(
            f"query id {q[r].item()!r} inside group {int(group_of_row[r]) + 1}, whose first row "
            f"has query id {expected[r].item()!r}: group boundaries and query ids disagree",
            path=path,
            row=r + 1,
        )
    _, counts = np.unique(first_qid, return_counts=True)
    if np.any(counts > 1):
        starts = off[:-1][nonempty]
        order = np.argsort(first_qid, kind="stable")
        sorted_q = first_qid[order]
        repeat = order[np.flatnonzero(sorted_q[1:] == sorted_q[:-1]) + 1]
        r = int(starts[repeat].min())
        raise DataError(
            f"query id {q[r].item()!r} reappears after other queries: the rows of a query must "
            f"be contiguous ({SORT_HINT})",
            path=path,
            row=r + 1,
        )


def check_labels(
    y: ArrayLike,
    *,
    gain: str | tuple[float, ...] = "exp2",
    max_label: int | None = None,
    path: str | PathLike[str] | None = None,
) -> str:
    """Labels suit ``gain``; returns the gain's name (``"table"`` for a per-label tuple)."""
    v = np.asarray(y, dtype=np.float64)
    finite = np.isfinite(v)
    if not finite.all():
        r = int(np.flatnonzero(~finite)[0])
        raise DataError(f"label {float(v[r])} is not a finite number", path=path, row=r + 1,
                        column="label")
    if isinstance(gain, str):
        if gain not in GAINS:
            raise ConfigError(f"unknown gain {gain!r}; valid: {', '.join(GAINS)} or a tuple")
        if gain == "linear":
            if np.any(v < 0):
                r = int(np.flatnonzero(v < 0)[0])
                raise DataError(f"label {v[r]:g} is negative; gains must be >= 0", path=path,
                                row=r + 1, column="label")
            return "linear"
        top = EXP2_MAX_LABEL if max_label is None else int(max_label)
        name = "exp2"
    else:
        top = len(gain) - 1
        name = "table"
    integral = v == np.round(v)
    ok = integral & (v >= 0) & (v <= top)
    if not ok.all():
        r = int(np.flatnonzero(~ok)[0])
        why = "is not an integer" if not integral[r] else f"is outside 0..{top}"
        raise DataError(
            f"label {v[r]:g} {why}: gain {name!r} needs integer labels in 0..{top}",
            path=path,
            row=r + 1,
            column="label",
        )
    return name


def check_features(
    X: NDArray[np.floating],
    feature_names: tuple[str, ...] | list[str] | None = None,
    *,
    allow_nan: bool = False,
    path: str | PathLike[str] | None = None,
) -> int:
    """No infinite feature values, and no NaN unless ``allow_nan``; returns the NaN count.

    Scans in row blocks so the temporary boolean mask stays small on large matrices.
    """
    n, d = X.shape
    block = max(1, _CHUNK_CELLS // max(1, d))
    nan_count = 0
    for start in range(0, n, block):
        part = X[start:start + block]
        bad = ~np.isfinite(part)
        if not bad.any():
            continue
        if allow_nan:
            inf = bad & ~np.isnan(part)
            nan_count += int(bad.sum() - inf.sum())
            bad = inf
            if not bad.any():
                continue
        r, c = (int(i[0]) for i in np.nonzero(bad))
        name = feature_names[c] if feature_names is not None else f"f{c + 1}"
        value = part[r, c]
        raise DataError(
            f"feature value {float(value)} is not finite ({int(bad.sum())} such values in rows "
            f"{start + 1}..{start + part.shape[0]}); expected a finite number"
            + (" or NaN (a missing value)" if allow_nan else ""),
            path=path,
            row=start + r + 1,
            column=name,
        )
    return nan_count


def duplicate_pair_rows(user: ArrayLike, item: ArrayLike) -> NDArray[np.int64]:
    """Positions (0-based) of rows whose (user, item) pair already appeared in an earlier row.

    Non-negative integer ids whose product fits in int64 are packed into one key
    (``user * (max_item + 1) + item``) and hashed once; other ids are hashed as pairs.
    """
    u, i = np.asarray(user), np.asarray(item)
    if u.size == 0:
        return np.zeros(0, dtype=np.int64)
    if u.dtype.kind in "iu" and i.dtype.kind in "iu" and u.min() >= 0 and i.min() >= 0:
        width = int(i.max()) + 1
        if int(u.max()) < (np.iinfo(np.int64).max - width) // width:
            key = u.astype(np.int64) * np.int64(width) + i.astype(np.int64)
            dup = pd.Series(key).duplicated(keep="first").to_numpy()
            return np.flatnonzero(dup).astype(np.int64)
    frame = pd.DataFrame({"u": u, "i": i})
    return np.flatnonzero(frame.duplicated(keep="first").to_numpy()).astype(np.int64)


def check_ratings_pairs(
    user: ArrayLike, item: ArrayLike, *, path: str | PathLike[str] | None = None,
    row_base: int | None = 1,
) -> None:
    """No (user, item) pair twice; the error names the first repeating row (numbered from
    ``row_base``; ``None``: rows whose numbers would mean nothing, such as a shuffled block,
    are not named -- the pair is)."""
    dup = duplicate_pair_rows(user, item)
    if dup.size:
        u, i = np.asarray(user), np.asarray(item)
        r = int(dup[0])
        raise DataError(
            f"duplicate (user={u[r].item()}, item={i[r].item()}) pair ({dup.size} duplicate rows "
            "in all); keep one row per (user, item) pair, e.g. the latest rating",
            path=path,
            row=None if row_base is None else r + row_base,
        )
