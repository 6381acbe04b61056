"""``manifest.json`` of a run: what ran, on what, from which inputs, and when.

The environment (Python, platform, CPU model, package versions, thread variables) and the git
state are recorded at the start of a run; ``reproduce`` compares them with the machine it runs
on. :func:`dataset_fingerprint` pins the loaded matrices down, so that a resumed or reproduced
run can tell that its data are not the data of the original run.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import os
import platform
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bench.data.atomic import write_text
from bench.data.jsonio import dumps, read_json_object
from bench.data.letor import LetorSplits
from bench.machine import cpu_model
from bench.runners.libraries import LIBRARIES

MANIFEST = "manifest.json"
_DAMAGED = "the run directory is damaged (cut or changed outside ltrbench): start a new run"
#: Distributions besides the GBDT libraries whose versions every manifest records.
BASE_PACKAGES: tuple[str, ...] = ("numpy", "pandas", "scipy", "scikit-learn", "pyarrow", "rich",
                                  "numba")
#: Distributions besides the GBDT libraries that change a run's numbers, compared by ``reproduce``.
NUMERIC_PACKAGES: tuple[str, ...] = ("numpy", "scipy", "pandas", "scikit-learn")


def packages() -> tuple[str, ...]:
    """Distributions whose versions every manifest records: :data:`BASE_PACKAGES` and each
    declared GBDT library's :attr:`~bench.runners.libraries.Library.distributions`."""
    return (*BASE_PACKAGES, *(d for lib in LIBRARIES.values() for d in lib.distributions))


def compared_packages() -> tuple[str, ...]:
    """Distributions whose versions ``reproduce`` compares (a change may change the numbers):
    :data:`NUMERIC_PACKAGES`, the GBDT libraries' distributions, implicit (ALS) and numba."""
    libraries = (d for lib in LIBRARIES.values() for d in lib.distributions)
    return (*NUMERIC_PACKAGES, *libraries, "implicit", "numba")


#: The distributions recorded with the libraries declared at import (see :func:`packages`).
PACKAGES: tuple[str, ...] = packages()
#: Environment variables that change thread counts, recorded when set.
THREAD_VARIABLES: tuple[str, ...] = ("OMP_NUM_THREADS", "MKL_NUM_THREADS")


def now() -> str:
    """The current UTC time, ISO 8601 to the second (the timestamps of manifests and status files)."""
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def read_manifest(run_dir: Path) -> dict[str, Any]:
    """The parsed ``manifest.json`` of ``run_dir``; one that is not a JSON object (cut while
    copied, not UTF-8, changed outside ltrbench) is a :class:`~bench.errors.DataError` naming
    the file (and the line of a syntax error)."""
    return read_json_object(Path(run_dir) / MANIFEST, "the run's manifest", _DAMAGED)


def write_manifest(run_dir: Path, doc: dict[str, Any]) -> None:
    """Write ``manifest.json`` atomically."""
    write_text(run_dir / MANIFEST, dumps(doc))


def update_manifest(run_dir: Path, change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """Read the manifest, apply ``change`` to it in place, write it back; returns it."""
    doc = read_manifest(run_dir)
    change(doc)
    write_manifest(run_dir, doc)
    return doc


def dataset_fingerprint(splits: LetorSplits) -> dict[str, str]:
    """SHA-256 (16 hex digits) of each split's features, labels, query ids and user/item ids."""
    out = {}
    for name, d in splits.splits().items():
        h = hashlib.sha256()
        for a in (d.X, d.y, d.qid, d.user, d.item):
            if a is not None:
                h.update(str(a.dtype).encode() + str(a.shape).encode())
                h.update(np.ascontiguousarray(a).tobytes())
        out[name] = h.hexdigest()[:16]
    return out


def environment() -> dict[str, Any]:
    """Python, platform, CPU and package versions of this machine (recorded in every manifest)."""
    from importlib import metadata

    versions = {}
    for name in packages():
        with contextlib.suppress(metadata.PackageNotFoundError):
            versions[name] = metadata.version(name)
    for lib in LIBRARIES.values():  # the module's own version (xgboost ships as xgboost-cpu)
        if lib.version_from_import:
            with contextlib.suppress(ImportError, AttributeError):
                versions[lib.name] = str(__import__(lib.import_name).__version__)
    return {
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "packages": versions,
        "env": {k: os.environ[k] for k in THREAD_VARIABLES if k in os.environ},
    }


def git_state(root: Path) -> dict[str, Any]:
    """``{"commit", "dirty"}`` of the checkout at ``root`` (``None`` values outside a checkout)."""
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}
    return {"commit": commit, "dirty": bool(dirty)}
