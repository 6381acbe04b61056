"""The catalogue datasets present in the data directories, as inputs no command writes into.

``convert --out DATA/MQ2007/Fold1`` replaced the unpacked dataset's ``train.txt`` with a
conversion of the ratings, ``evaluate --per-query DATA/MQ2007/Fold1/pq.csv`` put a file the
card does not list among its folds, ``run`` and ``report --out DATA/MQ2007`` filled the dataset's
folder with runs and leaderboards: each an input of *another* command (``run --dataset mq2007``,
``datasets verify``), so the command's own inputs did not name it. The commands that write add
these folders to their inputs, sealed (:func:`bench.data.outputs.check_output_dir`).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from bench.datasets.catalogue import load_catalogue
from bench.datasets.fetch import data_dirs
from bench.errors import LtrbenchError

#: The input name of such a folder in an output check's message.
DATA_DIR_DATASET = "of a catalogue dataset in the data directory (LTRBENCH_DATA_DIR, --data-dir)"


def dataset_folders(data_dir: str | os.PathLike[str] | None = None) -> list[tuple[str, Path]]:
    """``(DATA_DIR_DATASET, folder)`` for every catalogue dataset's folder (its ``dir`` or an
    alias, in any letter case, as :func:`bench.datasets.fetch.find_dataset` finds it) in the
    data directories; none when they cannot be read (a broken ``LTRBENCH_DATA_DIR`` is said by
    the commands that read data, not by every command that writes)."""
    names: set[str] = set()
    with contextlib.suppress(LtrbenchError, OSError):
        names = {n.casefold() for card in load_catalogue().values() for n in card.folder_names}
    found: list[tuple[str, Path]] = []
    with contextlib.suppress(LtrbenchError, OSError, ValueError):
        for folder in data_dirs(data_dir):
            with contextlib.suppress(OSError):
                found += [(DATA_DIR_DATASET, folder / e.name) for e in os.scandir(folder)
                          if e.name.casefold() in names and e.is_dir()]
    return found
