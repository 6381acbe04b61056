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


def check_guess(columns: list[str], found: dict[str, str | None], path: Path | None, *,
                how: str, stacklevel: int = 3) -> None:
    """The rule of a guess (every role found by name, none given): no rating or no timestamp
    column found while the table has other columns (``preference``, ``datetime``) would make
    every rating an implicit 1.0 or every time 0 -- refused, naming the columns left over and
    ``how`` to name the roles; the roles all found, the columns left over are warned (not
    read). The rule of ``run --dataset FILE`` (:mod:`bench.datasets.guessed_columns`) and of
    ``convert --engine dask`` without column options (:mod:`bench.data.dask_ratings`)."""
    import warnings

    left = [c for c in columns if c not in found.values()]
    lacking = [role for role in ("rating", "timestamp") if found.get(role) is None]
    if left and lacking:
        said = " and ".join(f"no {role} column (one of {ROLE_NAMES[role]})" for role in lacking)
        raise DataError(f"{said}, but columns {left} are there: one of them may be it, and a "
                        "guess would make every rating 1.0 (implicit) or every time 0; rename "
                        f"the column, or {how}", path=path)
    if left:
        roles = ", ".join(f"{role} {c!r}" for role, c in found.items())
        warnings.warn(f"{path}: columns {left[:8]} are not read ({roles})",
                      stacklevel=stacklevel)


def spelled_as(column: object, role: str) -> bool:
    """Whether ``column`` is one of ``role``'s names, case ignored (a frame's rename hint)."""
    return str(column).lower() in {n.lower() for n in ROLE_NAMES[role]}


__all__ = ["ITEM_NAMES", "RATING_NAMES", "ROLE_NAMES", "TIME_NAMES", "USER_NAMES", "check_guess",
           "pick", "spelled_as"]
