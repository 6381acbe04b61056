"""The dataset folders no command writes into: the catalogue's, and any folder that reads as one.

``convert --out DATA/MQ2007/Fold1`` replaced the unpacked dataset's ``train.txt`` with a
conversion of the ratings, ``evaluate --per-query DATA/MQ2007/Fold1/pq.csv`` put a file the
card does not list among its folds, ``run`` and ``report --out DATA/MQ2007`` filled the dataset's
folder with runs and leaderboards: each an input of *another* command (``run --dataset mq2007``,
``datasets verify``), so the command's own inputs did not name it. The same held for a dataset
given by path to another command (``run --dataset synthetic --out ~/letor``, ``tune --storage
sqlite:///~/letor/study.db``, ``report --out`` a conversion's folder): a folder that reads as a
dataset (:func:`reads_as_dataset`) at, above or (``into``) below the output is sealed too. The
commands that write add these folders to their inputs, sealed
(:func:`bench.data.outputs.check_output_dir`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from pathlib import Path

from bench.data.dataset_marks import ABOVE, reads_as_dataset
from bench.datasets.catalogue import load_catalogue
from bench.datasets.locations import data_dirs
from bench.errors import LtrbenchError

#: The input name of such a folder in an output check's message.
DATA_DIR_DATASET = "of a catalogue dataset in the data directory (LTRBENCH_DATA_DIR, --data-dir)"
#: The input name of a folder that reads as a dataset (:func:`reads_as_dataset`).
DATASET_FOLDER = "of a dataset (its split files or conversion record are there)"
#: Both names, for ``sealed=``.
SEALED_DATASETS = (DATA_DIR_DATASET, DATASET_FOLDER)


def dataset_folders(data_dir: str | os.PathLike[str] | None = None, *,
                    around: str | os.PathLike[str] | None = None,
                    into: Iterable[str] = ()) -> list[tuple[str, Path]]:
    """``(DATA_DIR_DATASET, folder)`` for every catalogue dataset's folder (its ``dir`` or an
    alias, in any letter case, as :func:`bench.datasets.fetch.find_dataset` finds it) in the
    data directories (none when they cannot be read: a broken ``LTRBENCH_DATA_DIR`` is said by
    the commands that read data, not by every command that writes); and, with ``around`` (an
    output path), ``(DATASET_FOLDER, folder)`` for the folders that read as a dataset at or
    above it, or at ``around/<name>`` for each name of ``into`` (:func:`datasets_around`)."""
    names: set[str] = set()
    with contextlib.suppress(LtrbenchError, OSError):
        names = {n.casefold() for card in load_catalogue().values() for n in card.folder_names}
    found: list[tuple[str, Path]] = []
    with contextlib.suppress(LtrbenchError, OSError, ValueError):
        for folder in data_dirs(data_dir):
            with contextlib.suppress(OSError):
                found += [(DATA_DIR_DATASET, folder / e.name) for e in os.scandir(folder)
                          if e.name.casefold() in names and e.is_dir()]
    if around is not None:
        found += datasets_around(around, into)
    return found


def datasets_around(out: str | os.PathLike[str],
                    into: Iterable[str] = ()) -> list[tuple[str, Path]]:
    """``(DATASET_FOLDER, folder)`` for the existing folders at or up to
    :data:`~bench.data.dataset_marks.ABOVE` folders above ``out`` (resolved:
    a second symbolic link or ``..`` reaches the same folder) and at ``out/<name>`` for the
    names of ``into`` that read as a dataset (:func:`reads_as_dataset`)."""
    text = os.path.expanduser(os.fspath(out)) if os.fspath(out).startswith("~") else out
    try:
        real = Path(os.path.realpath(text))
    except (OSError, ValueError):  # a NUL byte: the output check names it
        return []
    candidates = [real, *real.parents[:ABOVE], *(real / n for n in into)]
    return [(DATASET_FOLDER, c) for c in candidates if reads_as_dataset(c) is not None]
