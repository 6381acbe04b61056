"""The spellings of a ratings table's four columns, one list for every reader.

A table whose roles are not named (``run --dataset ratings.csv``: guessed by
:mod:`bench.datasets.guessed_columns`; ``convert --engine dask`` without ``--user``: picked by
:mod:`bench.data.dask_ratings`) has its ``user``, ``item``, ``rating`` and ``timestamp`` columns
found among these names, exactly, then without case (:func:`pick`); a frame that lacks them is
told the rename (:mod:`bench.data.ratings`). One list, so the same table gets the same columns
on every path: MovieLens' ``userId``/``movieId``, Recommenders' ``userID``/``itemID``, RecBole's
``user_id:token``, Amazon's ``product_id``, Yelp's ``stars``. ``datetime`` is not one of them:
a column of that name is left for the user to name (a guess would decide what it means).
"""

from __future__ import annotations

from pathlib import Path

from bench.errors import DataError

USER_NAMES = ("user", "userId", "user_id", "userid", "uid", "UserID", "userID", "user_id:token")
ITEM_NAMES = ("item", "movieId", "item_id", "itemId", "itemid", "movie_id", "iid", "product_id",
              "MovieID", "itemID", "item_id:token")
RATING_NAMES = ("rating", "score", "stars", "Rating", "ratings", "value", "rating:float")
TIME_NAMES = ("timestamp", "time", "ts", "date", "Timestamp", "timestamp:float")
#: Each role's names, in the order they are tried.
ROLE_NAMES = {"user": USER_NAMES, "item": ITEM_NAMES, "rating": RATING_NAMES,
              "timestamp": TIME_NAMES}


def pick(columns: list[str], names: tuple[str, ...], path: Path | None = None) -> str | None:
    """The first of ``names`` among ``columns``, exactly, else without case (two columns
    matching without case are an error naming the file); ``None``."""
    for n in names:
        if n in columns:
            return n
    for n in names:
        alike = [c for c in columns if c.lower() == n.lower()]
        if len(alike) > 1:  # 'Rating' and 'RATING': which one is meant cannot be told
            raise DataError(f"columns {alike} differ only in case: which one is the {n!r} "
                            "column cannot be told; rename one", path=path)
        if alike:
            return alike[0]
    return None


def spelled_as(column: object, role: str) -> bool:
    """Whether ``column`` is one of ``role``'s names, case ignored (a frame's rename hint)."""
    return str(column).lower() in {n.lower() for n in ROLE_NAMES[role]}


__all__ = ["ITEM_NAMES", "RATING_NAMES", "ROLE_NAMES", "TIME_NAMES", "USER_NAMES", "pick",
           "spelled_as"]
