"""Where a (user, item) pair of a Dask ratings table was written: its files and lines (rows).

The out-of-core adapter finds a pair rated twice in a block of whole users
(:func:`bench.adapters.user_blocks.prepare_block`), after the shuffle that gathered the block
from every shard: the block no longer knows which file and line each rating came from, so the
refusal named only the table's folder. :func:`place_duplicate` reads the shards again (the
error path only, a stream of the two id columns) and names both places, as the local MovieLens
reader names both lines (:mod:`bench.data.movielens`: ``user U rates item I again (first on
line A ...)``).
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
    """``exc`` (a block's "duplicate (user=U, item=I) pair") as a DataError naming the file
    and line (CSV) or row (Parquet) of the pair's first two ratings in the shards of
    ``ratings`` (a :class:`bench.data.dask_ratings.RatingsFrame`); None if ``exc`` is another
    error or the pair is not found twice (the shards changed)."""
    found = _PAIR.search(str(exc))
    if found is None:
        return None
    user, item = int(found.group(1)), int(found.group(2))
    places: list[tuple[Path, int, str]] = []
    side = {f.parent / n for f in ratings.files if f.name == "ratings.csv"
            for n in ("movies.csv", "tags.csv")}  # a MovieLens folder's side tables
    for f in (f for f in ratings.files if f not in side):
        try:
            places += _places(f, ratings, user, item, 2 - len(places))
        except DataError:  # text ids: U and I are their numbers (dask_ids), not the cells
            return None  # the block's own error stands
        if len(places) >= 2:
            break
    if len(places) < 2:
        return None
    (f1, n1, unit1), (f2, n2, unit2) = places
    first = f"{f1}, {unit1} {n1}" if f1 != f2 else f"{unit1} {n1}"
    return DataError(f"duplicate (user={user}, item={item}) pair, first at {first}: expected one "
                     "rating per (user, item) pair; keep one row per pair, e.g. the latest "
                     "rating", path=f2, **{unit2: n2})  # type: ignore[arg-type]


def _places(f: Path, ratings: Any, user: int, item: int, wanted: int
            ) -> list[tuple[Path, int, str]]:
    """Up to ``wanted`` places of (``user``, ``item``) in one shard: (file, line or row, unit)."""
    from bench.data.dask_ratings import _typed

    cu, ci = ratings.columns["user"], ratings.columns["item"]
    cols = {"user": cu, "item": ci, "rating": None, "timestamp": None}
    out: list[tuple[Path, int, str]] = []
    offset = 0
    for chunk in _chunks(f, ratings.sep, list(dict.fromkeys((cu, ci)))):
        typed = _typed(chunk, cols)
        hits = np.flatnonzero((typed["user"].to_numpy() == user)
                              & (typed["item"].to_numpy() == item))
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
                           encoding="utf-8-sig")


def _place(f: Path, sep: str | None, k: int) -> tuple[Path, int, str]:
    """Data row ``k`` (0-based) of a shard as (file, line, "line") for CSV (the header is line
    1), or (file, row, "row") for Parquet (rows from 1)."""
    if sep is None:
        return f, k + 1, "row"
    from bench.data.inputs import line_of_data_row

    line = line_of_data_row(f, k + 2)  # the header is the first row
    return f, k + 2 if line is None else line, "line"


__all__ = ["place_duplicate"]
