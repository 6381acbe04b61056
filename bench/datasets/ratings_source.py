"""Which reader a ratings input needs: ``ltrbench convert --ratings ... --layout ...`` resolved.

The command line names a ratings input by a path (a MovieLens folder or ratings file, a CSV /
TSV / Parquet table) or ``synthetic``, an optional ``--layout`` and, for a table, its columns.
:class:`RatingsSource` holds those choices as given; :func:`read_ratings` decides the reader
(the embedded generator :func:`bench.datasets.synthetic.generate_ratings`, the table reader
:func:`bench.data.tabular.load_ratings_table` or the MovieLens reader
:func:`bench.data.movielens.load_movielens`), refuses contradictory choices with a
:class:`~bench.errors.ConfigError` naming the options (an option the chosen reader would
ignore too: ``--user`` beside ``synthetic``, ``--synthetic-users`` beside a file, ``--sep``
beside Parquet, ``--duplicates`` beside MovieLens files), and reads the ratings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from bench.errors import ConfigError, DataError

if TYPE_CHECKING:  # pandas is imported by the readers, when they run
    from bench.data.ratings import Ratings

#: Names of the MovieLens ratings files the MovieLens reader recognises.
MOVIELENS_FILES = ("u.data", "ratings.dat", "ratings.csv")


@dataclass(frozen=True)
class RatingsSource:
    """A ratings input as the options name it (``None``: the option was not given).

    ``layout`` is ``"auto"`` (detect MovieLens), a MovieLens layout or ``"csv"`` (a table);
    ``user`` / ``item`` / ``rating`` / ``timestamp`` name a table's columns (a name, or a 0-based
    position written in ASCII digits); ``synthetic`` holds ``(users, items, ratings)`` for
    ``ratings == "synthetic"``.
    """

    ratings: str
    layout: str = "auto"
    user: str | None = None
    item: str | None = None
    rating: str | None = None
    timestamp: str | None = None
    sep: str | None = None
    duplicates: str = "error"
    seed: int = 0
    synthetic: tuple[int, int, int] = field(default=(600, 9000, 100_000))

    def column_options(self) -> list[tuple[str, str]]:
        """``(option, value)`` of the column options given, ``--sep`` last."""
        return [(o, v) for o, v in (("--user", self.user), ("--item", self.item),
                                    ("--rating", self.rating), ("--timestamp", self.timestamp),
                                    ("--sep", self.sep)) if v is not None]


class RatingsRead(NamedTuple):
    """The ratings read and the warnings for the person converting them (one line each)."""

    ratings: Ratings
    warnings: list[str]


def read_ratings(source: RatingsSource, *, split: str) -> RatingsRead:
    """Read the ratings ``source`` names with the reader its layout and columns choose.

    ``split`` is the adapter's split (:data:`bench.adapters.config.SPLITS`): a temporal split of
    ratings that all share one timestamp gets a warning (the order is then the item order).
    """
    ratings = _load(source)
    ts = ratings.frame["timestamp"]
    warnings = []
    if split != "random" and len(ts) and ts.min() == ts.max():
        warnings.append("warning: every rating has the same timestamp; the temporal order is "
                        "the item order. Use --split random (or give --timestamp).")
    return RatingsRead(ratings, warnings)


#: ``RatingsSource.synthetic`` when no ``--synthetic-*`` option is given.
_SYNTHETIC_DEFAULT = RatingsSource.__dataclass_fields__["synthetic"].default


def _load(source: RatingsSource) -> Ratings:
    _refuse_unused(source)
    if source.ratings == "synthetic":
        return _synthetic(source)
    layout = _layout(source)
    if layout == "csv":
        return _table(source)
    if source.duplicates != "error":
        raise ConfigError(f"--duplicates {source.duplicates} applies to a ratings table "
                          "(--layout csv); a MovieLens file holds each (user, item) pair once "
                          "(a repeated pair is an error): leave --duplicates out")
    from bench.data.movielens import load_movielens

    return load_movielens(source.ratings, layout=None if layout == "auto" else layout)


def _refuse_unused(source: RatingsSource) -> None:
    """Options the chosen reader would ignore are refused, not dropped (as the engines' are):
    a table's options beside ``synthetic``, ``--synthetic-*`` beside a path, ``--sep`` beside a
    Parquet table (it has no separator)."""
    if source.ratings == "synthetic":
        given = [o for o, _ in source.column_options()] + (
            ["--duplicates"] if source.duplicates != "error" else [])
        if given:
            raise ConfigError(f"{', '.join(given)}: option(s) of a ratings table, ignored by "
                              "--ratings synthetic (the generator writes its own ratings): "
                              "leave them out")
        return
    if source.synthetic != _SYNTHETIC_DEFAULT:
        raise ConfigError("--synthetic-users / --synthetic-items / --synthetic-ratings size the "
                          f"generated ratings of --ratings synthetic; --ratings {source.ratings} "
                          "is read as it is: leave them out")
    if source.sep is not None and Path(source.ratings).suffix.lower() in (".parquet", ".pq"):
        raise ConfigError(f"--sep {source.sep!r}: --ratings {source.ratings} is a Parquet table, "
                          "whose columns have no separator: leave --sep out")


def _synthetic(source: RatingsSource) -> Ratings:
    from bench.datasets.synthetic import generate_ratings

    users, items, n_ratings = source.synthetic
    for option, n in (("--synthetic-users", users), ("--synthetic-items", items),
                      ("--synthetic-ratings", n_ratings)):
        if not 1 <= n <= 2**31 - 1:
            raise ConfigError(f"{option} {n}: expected an integer from 1 to {2**31 - 1}")
    try:
        return generate_ratings(n_users=users, n_items=items, n_ratings=n_ratings,
                                seed=source.seed)
    except ConfigError as exc:  # the generator's words (n_ratings=900) said as the options
        raise ConfigError(re.sub(r"\bn_(users|items|ratings)[= ]", r"--synthetic-\1 ",
                                 str(exc))) from None


def _layout(source: RatingsSource) -> str:
    """The layout to read: ``auto`` becomes ``csv`` when column options name a table's columns;
    column options with a MovieLens layout, and ``auto`` on a file that is not a MovieLens
    ratings file, are refused."""
    columns = [o for o, _ in source.column_options()]
    layout = source.layout
    if layout == "auto" and columns:  # column options name a table's columns
        layout = "csv"
    if layout != "csv" and columns:
        raise ConfigError(f"{', '.join(columns)} name the columns of a table (--layout csv); "
                          f"--layout {layout} reads MovieLens files, whose columns are fixed")
    path = Path(source.ratings)
    if layout == "auto" and path.is_file() and path.name not in MOVIELENS_FILES:
        raise ConfigError(f"--ratings {source.ratings}: not a MovieLens ratings file (u.data, "
                          "ratings.dat or ratings.csv); for a table of your own name its columns: "
                          "--user COL --item COL [--rating COL] [--timestamp COL] (--layout csv)")
    return layout


def _table(source: RatingsSource) -> Ratings:
    if not source.user or not source.item:
        raise ConfigError("--layout csv needs --user and --item (and usually --rating, "
                          "--timestamp)")
    _distinct_columns(source)
    from bench.data.tabular import load_ratings_table

    def col(v: str | None) -> str | int | None:
        return int(v) if v is not None and v.isascii() and v.isdigit() else v

    _refuse_part_folder(Path(source.ratings))
    user, item = col(source.user), col(source.item)
    assert user is not None  # checked above
    assert item is not None
    return load_ratings_table(source.ratings, user=user, item=item,
                              rating=col(source.rating), timestamp=col(source.timestamp),
                              sep=source.sep, duplicates=source.duplicates)


def _refuse_part_folder(p: Path) -> None:
    """A folder of Parquet or CSV part files (a table as Spark or Dask writes it) is named as
    one, with the engine that reads it, not only as "a directory"; so is a Hive-partitioned
    folder (``dt=2024-01-01/part-0.parquet``, as Spark, BigQuery and pyarrow write it)."""
    hive = sorted(p.glob("*=*/**/*.parquet")) if p.is_dir() else []
    if hive:
        part = hive[0].relative_to(p).as_posix()
        key = part.split("=", 1)[0]
        raise DataError(
            f"is a Parquet dataset partitioned by {key!r} ({len(hive)} files, e.g. {part}), not "
            f"one ratings table (the partition column {key!r} lives in the folder names, not in "
            "the files): write it as one file, e.g. pyarrow.parquet.read_table(folder)"
            ".to_pandas().to_parquet('ratings.parquet'), and give that file", path=p)
    for kind, glob in (("Parquet", "*.parquet"), ("CSV", "*.csv")):
        parts = sorted(p.glob(glob)) if p.is_dir() else []
        if parts:
            raise DataError(
                f"is a folder of {len(parts)} {kind} part files (a table as Spark or Dask "
                f"writes it, e.g. {parts[0].name}), not one ratings table: 'ltrbench convert "
                "--engine dask' reads such a folder as one table; for the local engine write "
                "it as one file", path=p)


def _distinct_columns(source: RatingsSource) -> None:
    """Refuse one column named by two options (``--user 0 --item 0``) and an empty ``--sep``."""
    if source.sep == "":
        raise ConfigError("--sep '': expected a field separator (leave --sep out to detect it)")
    named = [(o, v) for o, v in source.column_options() if o != "--sep"]
    for i, (o, v) in enumerate(named):
        for o2, v2 in named[:i]:
            if v == v2:
                raise ConfigError(f"{o2} and {o} both name column {v!r}: each names its own "
                                  "column of the ratings table")
