"""Names derived from runs: dataset slugs (folder names), run ids, and the library a model's name
implies (read only as the fallback of :func:`bench.runs.models.model_libraries`)."""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import os
import re
import unicodedata
from pathlib import Path

from bench.data.folder_names import windows_device
from bench.runners.libraries import library_of_model

#: The longest slug: a run folder adds a 16-character stamp and a hash to it, and a file name
#: holds 255 bytes.
SLUG_LONGEST = 100


def dataset_slug(name: str) -> str:
    """A folder name for a dataset: the last path component of a path spec, letters with accents
    written without them (NFKD), other unsafe characters → '-'.

    ``"/data/letor/OHSUMED/"`` → ``"OHSUMED"``; ``"ml-latest-small"`` stays as it is. A name
    the slug cannot spell as it is (``"données"``, ``"データ"``, ``"a b"``, one over
    :data:`SLUG_LONGEST` characters) ends with ``-`` and 8 hex digits of its SHA-256, so two names
    never share a folder silently (``"データ"`` → ``"dataset-…"``, ``"数据"`` → another;
    ``"a b"`` is not ``"a-b"``; a Windows device name, ``"CON"``, ``"nul.txt"``, too); an empty
    result is ``"dataset"``.
    """
    text = str(name).strip().rstrip("/\\")
    tail = re.split(r"[/\\]", text)[-1]
    plain = unicodedata.normalize("NFKD", tail).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", plain).strip("-.")
    if slug and slug == tail and len(slug) <= SLUG_LONGEST and not windows_device(slug):
        return slug
    if not tail:
        return "dataset"
    if windows_device(slug):  # 'nul.txt-…' is still NUL to Windows: 'nul-txt-…'
        slug = slug.replace(".", "-")
    digest = hashlib.sha256(tail.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{slug[:SLUG_LONGEST - 9].rstrip('-.') or 'dataset'}-{digest}"


def crosscheck_folders(*datasets: object) -> tuple[str, ...]:
    """The sub-folders ``<out>/<name>/`` that ``run``, ``crosscheck`` and ``reproduce`` write
    their cross-check files into (``crosscheck.md``, ``crosscheck.json``) for these datasets
    (names, paths, a config's ``[dataset]`` table; ``None`` and blanks skipped), each once: the
    output checks seal a dataset folder of the user's that stands under that name
    (``--out ~/work --dataset ~/work/letor``: the files landed among the splits), and no other
    sub-folder (:func:`bench.datasets.sealed.dataset_folders`, ``into``)."""
    names = []
    for d in datasets:
        if isinstance(d, dict):
            d = d.get("name") or d.get("spec")
        if isinstance(d, str | Path) and str(d).strip():
            names.append(dataset_slug(str(d)))
            with contextlib.suppress(OSError, ValueError, RuntimeError):  # a link's target
                real = Path(os.path.expanduser(str(d))).resolve()  # names the run (resolve.py)
                names += [dataset_slug(real.name)] if real.exists() else []
    return tuple(dict.fromkeys(names))


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


#: A run id as :func:`new_run_dir` makes it: ``<slug>-<UTC stamp>-<hash[:8]>[-n]``.
_RUN_ID = re.compile(r"(?P<base>.*-\d{8}T\d{6}Z-[0-9a-f]{8})(?:-(?P<n>[1-9]\d{0,8}))?")


def run_order(run_id: str) -> tuple[str, int]:
    """The order of run ids made in one second: ``(base, n)``, so that ``…-0b0bcb6c-11`` (the
    eleventh run of that second) comes after ``…-0b0bcb6c-9`` (as text it came before) and the
    first, without a counter, before ``-2``; an id of another form is ``(id, 1)``."""
    found = _RUN_ID.fullmatch(run_id)
    if found is None:
        return run_id, 1
    return found["base"], int(found["n"] or 1)


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
