"""Names derived from runs: dataset slugs (folder names), run ids, and the library a model's name
implies (read only as the fallback of :func:`bench.runs.models.model_libraries`)."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from bench.runners.libraries import library_of_model


def dataset_slug(name: str) -> str:
    """A folder name for a dataset: the last path component of a path spec, unsafe characters → '-'.

    ``"/data/letor/OHSUMED/"`` → ``"OHSUMED"``; ``"ml-latest-small"`` stays as it is; an empty
    result becomes ``"dataset"``.
    """
    text = str(name).strip().rstrip("/\\")
    tail = re.split(r"[/\\]", text)[-1]
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", tail).strip("-.")
    return slug or "dataset"


def library_of(model: str) -> str:
    """Library of a model name: the prefix before the first '-' (``lightgbm-lambdarank`` → lightgbm).

    The rule of the library records (:func:`bench.runners.libraries.library_of_model`, its one
    owner), which built-in model names follow. A user's model need not (``lightgbm-mine`` is a
    ``custom`` model), so readers of a run never call this: they call
    :func:`bench.runs.models.model_libraries`, which reads the run's records and falls back to
    this rule only for a run folder that records no library at all (written by hand or by an old
    version without the ``library`` column).
    """
    return library_of_model(model)


def new_run_dir(runs: Path, dataset: str, config_hash: str) -> Path:
    """A fresh folder ``<runs>/<dataset-slug>-<UTC stamp>-<hash[:8]>[-n]`` (created)."""
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    base = f"{dataset_slug(dataset)}-{stamp}-{config_hash[:8]}"
    runs.mkdir(parents=True, exist_ok=True)
    n = 1
    while True:
        run_dir = runs / (base if n == 1 else f"{base}-{n}")
        try:
            run_dir.mkdir()  # atomic: two processes never get the same folder
        except FileExistsError:
            n += 1
            continue
        return run_dir
