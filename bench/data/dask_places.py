"""Where a (user, item) pair of a Dask ratings table was written: its files and lines (rows).

The out-of-core adapter finds a pair rated twice in a block of whole users
(:func:`bench.adapters.user_blocks.prepare_block`), after the shuffle that gathered the block
from every shard: the block no longer knows which file and line each rating came from, so the
refusal named only the table's folder, and under text ids the pair by its numbers (``user=0``).
:func:`place_duplicate` reads the shards again (the error path only, a stream of the two id
columns; text ids by the conversion's own numbering, :func:`bench.data.dask_ids.id_codes`,
computed again) and names the pair by the ids as written and both places, as the local
MovieLens reader names both lines (:mod:`bench.data.movielens`: ``user U rates item I again
(first on line A ...)``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.errors import DataError

#: The pair the block's refusal names (:func:`bench.data.checks.check_ratings_pairs`' words;
#: the error's own fields do not survive a worker process, its text does).
_PAIR = re.compile(r"duplicate \(user=(-?\d+), item=(-?\d+)\) pair")


def place_duplicate(ratings: Any, exc: DataError) -> DataError | None:
    """``exc`` (a block's "duplicate (user=U, item=I) pair") as a DataError naming the pair by
    the ids the user wrote (text ids are numbered: :mod:`bench.data.dask_ids`; ``U`` is that
    number) and the file and line (CSV) or row (Parquet) of its first two ratings in the shards
    of ``ratings`` (a :class:`bench.data.dask_ratings.RatingsFrame`); None if ``exc`` is another
    error or the pair is not found twice (the shards changed)."""
    found = _PAIR.search(str(exc))
    if found is None:
        return None
    user, item = int(found.group(1)), int(found.group(2))
    places: list[tuple[Path, int, str]] = []
    side = {f.parent / n for f in ratings.files if f.name == "ratings.csv"
            for n in ("movies.csv", "tags.csv")}  # a MovieLens folder's side tables
    files = [f for f in ratings.files if f not in side]
    try:
        maps = _numbering(ratings)
        for f in files:
            places += _places(f, ratings, maps, user, item, 2 - len(places))
            if len(places) >= 2:
                break
    except DataError:  # a cell that is no id: the block's own error stands
        return None
    if len(places) < 2:
        return None
    (f1, n1, unit1), (f2, n2, unit2) = places
    first = f"{f1}, {unit1} {n1}" if f1 != f2 else f"{unit1} {n1}"
    shown = {role: _spelling(maps.get(role), number) for role, number in (("user", user),
                                                                          ("item", item))}
    return DataError(f"duplicate (user={shown['user']}, item={shown['item']}) pair, first at "
                     f"{first}: expected one rating per (user, item) pair; keep one row per "
                     "pair, e.g. the latest rating", path=f2, **{unit2: n2})  # type: ignore[arg-type]


def _spelling(mapping: dict[str, int] | None, number: int) -> object:
    """The first spelling of the id numbered ``number`` (the number itself: ids kept)."""
    if mapping is None:
        return number
    return next((cell for cell, n in mapping.items() if n == number), number)


def _numbering(ratings: Any) -> dict[str, dict[str, int]]:
    """The numbers of each numbered id role's cells: the conversion's own numbering
    (:func:`bench.data.dask_ids.id_codes`, computed again: a pass over the id columns);
    roles whose ids are kept are left out."""
    return {} if ratings.codes is None else dict(ratings.codes.compute() or {})


def _places(f: Path, ratings: Any, maps: dict[str, dict[str, int]], user: int, item: int,
            wanted: int) -> list[tuple[Path, int, str]]:
    """Up to ``wanted`` places of (``user``, ``item``) in one shard: (file, line or row, unit);
    ``maps``: the numbers of numbered ids' cells."""
    from bench.data.dask_ids import as_numbers
    from bench.data.dask_ratings import _typed

    cu, ci = ratings.columns["user"], ratings.columns["item"]
    cols = {"user": None if "user" in maps else cu, "item": None if "item" in maps else ci,
            "rating": None, "timestamp": None}
    out: list[tuple[Path, int, str]] = []
    offset = 0
    for chunk in _chunks(f, ratings.sep, list(dict.fromkeys((cu, ci)))):
        typed = _typed(chunk, cols)
        users = as_numbers(chunk[cu], maps["user"]) if "user" in maps \
            else typed["user"].to_numpy()
        items = as_numbers(chunk[ci], maps["item"]) if "item" in maps \
            else typed["item"].to_numpy()
        hits = np.flatnonzero((users == user) & (items == item))
        for k in hits[:wanted - len(out)].tolist():
            out.append(_place(f, ratings.sep, offset + k))
        offset += chunk.shape[0]
        if len(out) >= wanted:
            break
    return out


def _chunks(f: Path, sep: str | None, use: list[str]) -> Any:
    """The id columns of one shard in blocks of a million rows (CSV cells as their text)."""
    if sep is None:
        import pyarrow.parquet as pq

        for batch in pq.ParquetFile(f).iter_batches(columns=use, batch_size=1 << 20):
            yield batch.to_pandas()
        return
    yield from pd.read_csv(f, sep=sep, usecols=use, dtype=object, chunksize=1 << 20,
                           encoding="utf-8-sig", skipinitialspace=True,  # as Dask read it
                           compression=None)


def _place(f: Path, sep: str | None, k: int) -> tuple[Path, int, str]:
    """Data row ``k`` (0-based) of a shard as (file, line, "line") for CSV (the header is line
    1), or (file, row, "row") for Parquet (rows from 1)."""
    if sep is None:
        return f, k + 1, "row"
    from bench.data.inputs import line_of_data_row

    line = line_of_data_row(f, k + 2)  # the header is the first row
    return f, k + 2 if line is None else line, "line"


__all__ = ["place_duplicate"]
