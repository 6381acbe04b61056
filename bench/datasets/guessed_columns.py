"""The columns of a ratings table given by path alone (``run --dataset ratings.csv``), guessed.

``ltrbench run --dataset FILE`` has no ``--user``/``--rating`` options (``ltrbench convert
--layout csv`` has), so the four roles are found among common names (exact, then without case):
:data:`USER_NAMES`, :data:`ITEM_NAMES`, :data:`RATING_NAMES`, :data:`TIME_NAMES` (one list for
every path, owned by :mod:`bench.data.ratings_columns`). A guess may
not decide in silence what the user's data mean:

* no rating column found while the table has other columns (``preference``,
  ``rating_value``) would make every interaction an implicit 1.0; no timestamp column found
  beside other columns (``datetime``) would make every time 0, so the temporal split orders a
  user's ratings by item id. Both are refused naming the columns left over and how to name the
  roles (``ltrbench convert --layout csv --rating COL --timestamp COL``);
* the roles all found, other columns (``title``) are not read: warned naming them.
"""

from __future__ import annotations

from pathlib import Path

from bench.data.ratings_columns import (
    ITEM_NAMES,
    RATING_NAMES,
    TIME_NAMES,
    USER_NAMES,
    check_guess,
    pick,
)
from bench.errors import DataError

__all__ = ["ITEM_NAMES", "RATING_NAMES", "TIME_NAMES", "USER_NAMES", "guess_columns", "pick"]


def guess_columns(columns: list[str], p: Path) -> tuple[str, str, str | None, str | None]:
    """(user, item, rating, timestamp) columns of the table ``p`` (module docstring)."""
    user, item = pick(columns, USER_NAMES, p), pick(columns, ITEM_NAMES, p)
    if user is None or item is None:
        raise DataError(
            f"cannot tell the user and item columns from the header {columns}: expected one of "
            f"{USER_NAMES} and one of {ITEM_NAMES}; name the roles with 'ltrbench convert "
            "--layout csv --user COL --item COL [--rating COL] [--timestamp COL]' and run on its "
            "output (in Python: load_ratings_table with a mapping)",
            path=p,
        )
    rating, time = pick(columns, RATING_NAMES, p), pick(columns, TIME_NAMES, p)
    check_guess(columns, {"user": user, "item": item, "rating": rating, "timestamp": time}, p,
                how="name the roles with 'ltrbench convert --layout csv --user COL --item COL "
                    "--rating COL --timestamp COL' and run on its output", stacklevel=4)
    return user, item, rating, time
