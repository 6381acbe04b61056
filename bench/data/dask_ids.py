"""Text ids of a Dask ratings table numbered as the local reader numbers them.

The local reader (:mod:`bench.data.tabular`, ``_ids``) keeps integer ids and numbers any other
id column 0, 1, ... in the sorted order of its keys (numbers by exact value before texts by code
point, :mod:`bench.data.id_numbers`; not by first appearance, so the row order of a table
changes no number): beside a text id (``u17``) every cell is a
key (a cell spelling a number keeps its exact decimal value, so ``7``, ``07`` and ``7.0`` are
one id; any other cell its text), and a column of numbers of which one is beyond int64 (``1e20``)
is numbered by value. ``convert --engine dask`` refused such columns ("use --engine local"), so
one table converted on one engine and not on the other. :func:`id_codes` is one lazy step
(Dask tasks, nothing loaded into the client): each partition's distinct cells, in order, are
joined, and numbered by the local reader's own functions (``_mixed_keys``,
``_by_value``); :func:`with_codes` then replaces each partition's cells by their numbers before
the partition is typed. A column of whole numbers within int64 is left as it is (no numbering),
as locally; a cell that is no id (missing, a stray character) is left to the typed partition's
refusal, with its line.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.errors import DataError

_INT64_MAX = 2**63 - 1
_BLANKS = " \t"  # the local reader's ASCII blanks (bench.data.tabular.ASCII_BLANKS)
#: The roles whose ids may be numbered.
ID_ROLES = ("user", "item")


def whole_number(text: str) -> int | None:
    """The integer a CSV cell spells, by its exact decimal value (``7``, ``7.0`` and ``7e0`` are
    7; ``1.0000000000000000001`` and ``1.5`` are not whole), if it is one within int64; else
    None. The rule of the local reader (:mod:`bench.data.tabular`: ids compared by the value as
    written, never through a float64)."""
    from decimal import Decimal, InvalidOperation

    from bench.data.inputs import is_plain_float, stray_character

    cell = text.strip(" \t")  # ASCII blanks only, as the local reader (tabular.ASCII_BLANKS)
    if stray_character(text.encode("utf-8", "replace")) is not None or not is_plain_float(cell):
        return None
    try:
        d = Decimal(cell)
    except InvalidOperation:
        return None
    if d.adjusted() > 18 or d != d.to_integral_value():
        return None
    value = int(d)
    return value if -(2**63) <= value <= _INT64_MAX else None


def whole_texts(col: pd.Series) -> tuple[np.ndarray, int]:
    """A text id column as int64 (:func:`whole_number`), and the index of its first cell that
    is not a whole number within int64 (-1 if none); a missing cell is not one."""
    text = col.astype(object)
    fast = text.str.fullmatch(r"[ \t]*[+-]?[0-9]{1,18}[ \t]*").fillna(False).to_numpy(dtype=bool)
    out = np.zeros(text.shape[0], dtype=np.int64)
    if fast.any():
        out[fast] = text[fast].astype(str).str.strip(" \t").astype(np.int64).to_numpy()
    for k in np.flatnonzero(~fast).tolist():
        cell = text.iloc[k]
        value = whole_number(cell) if isinstance(cell, str) else None
        if value is None:
            return out, k
        out[k] = value
    return out, -1


def distinct_cells(part: pd.DataFrame, src: str) -> pd.Series:
    """A partition's distinct id cells in order of first appearance, blanks stripped (a missing
    cell is left out: the typed partition refuses it)."""
    col = part[src]
    col = col[col.notna()].astype(str).str.strip(_BLANKS)
    return pd.Series(pd.unique(col.to_numpy(dtype=object)), dtype=object)


def numbering(parts: list[pd.Series], role: str) -> dict[str, int] | None:
    """The number of each distinct cell of a whole column (``parts``: each partition's distinct
    cells, in partition order), or None when the column keeps its ids (every cell a whole number
    within int64) or holds a cell that the typed partition refuses."""
    from bench.data.inputs import id_cell_problem
    from bench.data.tabular import _NUMBER_ID, _by_value, _mixed_keys

    cells = [str(c) for c in pd.unique(pd.concat(parts, ignore_index=True).to_numpy(dtype=object))] \
        if parts else []
    if whole_texts(pd.Series(cells, dtype=object))[1] == -1 \
            or any(id_cell_problem(c) is not None for c in cells):
        return None
    if all(_NUMBER_ID.fullmatch(c) for c in cells):  # numbers only, one beyond int64: by value
        try:
            codes, _ = _by_value(cells, Path(role), role, lambda i: {}, role)
        except DataError:  # a fractional id: the typed partition refuses it, with its line
            return None
    else:  # text beside numbers (pandas reads an object column): every cell a key
        codes, _ = _mixed_keys(cells, role)
    return dict(zip(cells, codes.tolist(), strict=True))


def _all_codes(*parts: list[pd.Series], roles: tuple[str, ...]) -> dict[str, dict[str, int]]:
    found = {role: numbering(p, role) for role, p in zip(roles, parts, strict=True)}
    return {role: m for role, m in found.items() if m is not None}


def id_codes(raw: Any, cols: dict[str, str | None], wide: tuple[str, ...] = ()) -> Any:
    """A Dask delayed ``{role: {cell: number}}`` for the id columns of ``raw`` (a Dask
    DataFrame read as text or Parquet strings) that the local reader numbers; None when no id
    column is text. ``wide``: the roles of which a Parquet shard holds uint64 ids above int64
    (beside int64 shards the table's type says nothing: ``2^63 + 5`` and ``-5`` are numbered
    by value, as the local reader numbers them)."""
    import dask

    roles = tuple(r for r in ID_ROLES if cols.get(r) is not None  # uint64: beyond int64?
                  and (r in wide or raw._meta[cols[r]].dtype.kind not in "iufb"
                       or raw._meta[cols[r]].dtype == np.uint64))
    if not roles:
        return None
    meta = pd.Series([], dtype=object)
    parts = [raw.map_partitions(distinct_cells, cols[r], meta=meta).to_delayed() for r in roles]
    return dask.delayed(_all_codes)(*parts, roles=roles)


def id_map_frames(codes: dict[str, dict[str, int]] | None) -> dict[str, pd.DataFrame]:
    """The maps ``convert`` writes as ``users.csv`` / ``items.csv`` from a computed
    :func:`id_codes` (``{role: {cell: number}}``, cells in the table's order of first
    appearance): one row per number, ``external_id`` its first spelling, as
    :func:`bench.data.id_numbers._numbered` builds them for the local reader (the same frames,
    so the same bytes); a column kept as written (no numbering) has none."""
    maps: dict[str, pd.DataFrame] = {}
    for role in ID_ROLES:
        mapping = (codes or {}).get(role)
        if not mapping:
            continue
        first: dict[int, str] = {}
        for cell, number in mapping.items():
            first.setdefault(int(number), cell)
        numbers = sorted(first)
        maps[f"{role}s.csv"] = pd.DataFrame({
            role: np.asarray(numbers, dtype=np.int64),
            "external_id": np.asarray([first[n] for n in numbers], dtype=object)})
    return maps


def with_codes(part: pd.DataFrame, codes: dict[str, dict[str, int]] | None,
               typed: Callable[..., pd.DataFrame], locate: Callable[..., DataError | None],
               cols: dict[str, str | None], sep: str | None = None,
               paths: list[tuple[str, int]] | None = None, scan: list[str] | None = None,
               partition_info: dict[str, Any] | None = None) -> pd.DataFrame:
    """``typed`` (the partition reader) of ``part`` whose numbered id columns (``codes``, from
    :func:`id_codes`) hold their numbers; a CSV partition's refusal is placed by ``locate``
    (``bench.data.dask_ratings.bad_line``) with the numbered columns read as ids, not numbers."""
    part = _dates_as_seconds(part, cols.get("timestamp"))
    if not codes:
        return typed(part, cols, sep, paths, scan, partition_info)
    part = part.copy()
    for role, mapping in codes.items():
        src = cols[role]
        assert src is not None
        number = pd.Series(as_numbers(part[src], mapping), index=part.index)
        part[src] = number.astype(np.int64) if number.notna().all() else number
    try:
        return typed(part, cols, None, paths, scan, partition_info)
    except DataError as exc:
        where = part[_path_column()].iloc[0] if sep is not None and part.shape[0] \
            and _path_column() in part.columns else None
        found = locate(Path(str(where)), sep, cols, tuple(codes)) if where is not None else None
        raise (found or exc) from None


def as_numbers(cells: pd.Series, mapping: dict[str, int]) -> np.ndarray:
    """Id cells as the numbers of ``mapping`` (:func:`numbering`; blanks stripped), float64
    with NaN for a cell it lacks (missing: the typed partition refuses it, with its row)."""
    cells = cells.astype(object)  # a dictionary-encoded shard reads as categories
    text = cells.where(cells.isna(), cells.astype(str).str.strip(_BLANKS))
    numbers: np.ndarray = text.map(mapping).to_numpy(dtype=np.float64, na_value=np.nan)
    return numbers


def _dates_as_seconds(part: pd.DataFrame, src: str | None) -> pd.DataFrame:
    """``part`` with a Parquet timestamp (or date) column ``src`` as whole seconds since the
    epoch, UTC, floored -- the local reader's rule (``bench.data.ratings.datetime_seconds``),
    which Dask refused ("not a whole number"); a missing time stays missing (NaN), for the
    typed partition to refuse with its row."""
    if src is None or src not in part.columns:
        return part
    col = part[src]
    dates = col.dtype.kind == "M" or isinstance(col.dtype, pd.DatetimeTZDtype) or (
        col.dtype == object and col.notna().any()
        and all(isinstance(v, dt.date) for v in col.dropna().head(8)))
    if not dates:
        return part
    from bench.data.ratings import datetime_seconds

    when = pd.to_datetime(col, utc=True) if col.dtype == object else col
    missing = when.isna().to_numpy()
    seconds = datetime_seconds(when.fillna(pd.Timestamp(0, tz="UTC") if col.dtype == object
                                            or isinstance(when.dtype, pd.DatetimeTZDtype)
                                            else pd.Timestamp(0)))
    out = part.copy()
    out[src] = np.where(missing, np.nan, seconds) if missing.any() else seconds
    return out


def one_family(first: dict[str, tuple[str, Path, object]], column: str, family: str,
               path: Path, kind: object) -> None:
    """Refuse ``column`` of shard ``path`` when it holds ``family`` (``"text"`` or
    ``"numbers"``) and an earlier shard (``first``) the other: Dask reads the shards as one
    table of one type (an id 7 in one and "7" in another would fail inside Dask, or compare
    apart). The first shard of each column is recorded."""
    seen = first.setdefault(column, (family, path, kind))
    if seen[0] != family:
        raise DataError(f"column of type {kind}, but {seen[2]} in {seen[1]}: the shards of a "
                        f"table are one table, whose {column} cannot be {seen[0]} in one shard "
                        f"and {family} in another (write every shard's {column} with one type)",
                        path=path, column=column)


def _path_column() -> str:
    from bench.data.dask_units import PATH_COLUMN
    return PATH_COLUMN


__all__ = ["ID_ROLES", "as_numbers", "distinct_cells", "id_codes", "numbering", "one_family",
           "whole_number", "whole_texts", "with_codes"]
