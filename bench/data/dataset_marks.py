"""Whether a folder reads as a dataset: the files the dataset readers take for a split set, a
LETOR fold, MovieLens ratings or a conversion's record (:func:`reads_as_dataset`), and the
nearest such folder at or above a path (:func:`dataset_at_or_above`). Output checks seal these
folders (:mod:`bench.datasets.sealed`), and a data directory may not be one
(:func:`bench.datasets.fetch.fetch`)."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from bench.errors import ConfigError

#: How many folders above a path are looked at (``~/letor/results/run1`` finds ``~/letor``);
#: not every ancestor: a stray ``train.txt`` and ``test.txt`` in ``/tmp`` or a home folder
#: would seal every output below it.
ABOVE = 2
#: Names (any letter case) that make a folder a dataset when all of a group are there.
_GROUPS = (("train.txt", "test.txt"), ("train.parquet", "test.parquet"),
           ("rank.train", "rank.test"), tuple(f"s{k}.txt" for k in range(1, 6)),
           ("ratings.csv", "movies.csv"), ("u.data",), ("ratings.dat",))


def reads_as_dataset(folder: Path) -> str | None:
    """What makes ``folder`` a dataset (``"train.txt, test.txt"``, ``"a conversion record
    (summary.json)"``, ``"Fold1/"``), or ``None``: the files the dataset readers take for a
    split set, a LETOR fold, MovieLens ratings or a conversion's record, in the folder itself
    (not in a sub-folder it holds: a results folder beside a dataset is none)."""
    try:
        entries = {e.name.casefold(): e for e in os.scandir(folder)}
    except OSError:  # missing, no folder, unreadable: nothing to seal
        return None
    for group in _GROUPS:
        if all(n in entries and entries[n].is_file() for n in group):
            return ", ".join(entries[n].name for n in group)
    fold = entries.get("fold1")
    if fold is not None and fold.is_dir() and reads_as_dataset(Path(fold.path)) is not None:
        return f"{fold.name}/"
    record = entries.get("summary.json")
    if record is not None and record.is_file():
        with contextlib.suppress(OSError, ValueError):  # lenient on purpose: sealing more is safe
            data = json.loads(Path(record.path).read_text(encoding="utf-8"))
            if isinstance(data, dict) and isinstance(data.get("files"), list):
                return "a conversion record (summary.json)"
    return None


def dataset_at_or_above(path: str | os.PathLike[str]) -> tuple[Path, str] | None:
    """``(folder, what makes it one)`` of the first folder at or up to :data:`ABOVE` folders
    above ``path`` (resolved) that reads as a dataset, else ``None``."""
    try:
        real = Path(os.path.realpath(path))
    except (OSError, ValueError):
        return None
    for folder in (real, *real.parents[:ABOVE]):
        why = reads_as_dataset(folder)
        if why is not None:
            return folder, why
    return None


def refuse_dataset_data_dir(parent: Path) -> None:
    """Refuse, before anything is downloaded, a data directory that is (or lies inside) a
    dataset's own folder (``--data-dir ~/MQ2007/Fold1``, the folder of the splits rather than
    the one holding the datasets): the fetched dataset, its staging folder and the parse cache
    were made among that dataset's files."""
    found = dataset_at_or_above(parent)
    if found is not None:
        folder, why = found
        raise ConfigError(f"data directory {os.fspath(parent)!r}: {os.fspath(folder)!r} is a "
                          f"dataset's own folder (it holds {why}); the data directory holds "
                          "one folder per dataset: give a folder outside it (--data-dir, "
                          "LTRBENCH_DATA_DIR)")
