"""Which MovieLens layout a folder holds (the layouts of :mod:`bench.data.movielens`).

A folder is told by its ratings file: ``u.data`` (ml-100k), ``ratings.dat`` (ml-1m when
``users.dat`` is beside it, else ml-10m) or ``ratings.csv`` (``movielens-csv``). A folder
holding the ratings files of two layouts (``u.data`` beside ``ratings.csv``: two downloads
unpacked into one folder) is refused naming both, since which one is meant cannot be told
(before, the first in that order was read in silence); naming the ratings file itself
(``--ratings ml/ratings.csv``) picks its layout. A folder whose ratings file is there only
compressed (``ratings.csv.gz``) is told to unpack it.
"""

from __future__ import annotations

import os
from pathlib import Path

from bench.data.folder_names import packed_twin
from bench.errors import DataError

#: Each layout's ratings file, in the order a folder is tried.
RATINGS_FILES = (("u.data", "ml-100k"), ("ratings.dat", "ml-1m / ml-10m"),
                 ("ratings.csv", "movielens-csv"))


def layout_of(folder: Path, given: Path, shown: str | os.PathLike[str]) -> str:
    """The layout of ``folder`` (``given``: the path the user named, a folder or a ratings
    file in it; ``shown``: as written, for the error)."""
    names = [n for n, _ in RATINGS_FILES if (folder / n).is_file()]
    if given.is_file() and given.name in dict(RATINGS_FILES):
        names = [given.name]
    if len(names) > 1:
        what = ", ".join(f"{n} ({dict(RATINGS_FILES)[n]})" for n in names)
        raise DataError(f"ratings files of {len(names)} MovieLens layouts in one folder: {what}; "
                        "which one is meant cannot be told: name the ratings file itself "
                        f"(e.g. {folder / names[-1]}) or move the others away", path=shown)
    if not names:
        twin = next((t for n, _ in RATINGS_FILES if (t := packed_twin(folder / n))), None)
        raise DataError(
            "not a MovieLens folder: expected u.data (ml-100k), ratings.dat (ml-1m / ml-10m) or "
            "ratings.csv (ml-latest-small, ml-latest, ml-25m, ml-32m)"
            + (f"; {twin}" if twin else ""),
            path=shown,
        )
    if names[0] == "u.data":
        return "ml-100k"
    if names[0] == "ratings.dat":
        return "ml-1m" if (folder / "users.dat").is_file() else "ml-10m"
    return "movielens-csv"
