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
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from bench.data.atomic import write_text
from bench.data.jsonio import dumps, read_json_object
from bench.data.letor import LetorData, LetorSplits
from bench.machine import blas_kernels, cpu_model
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
THREAD_VARIABLES: tuple[str, ...] = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                     "OPENBLAS_CORETYPE")


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


#: Optional keys written only once they hold something (a run that never resumed has no
#: ``resumed``; one without failures no ``failures``), as the manifests of earlier runs.
_OPTIONAL = ("split_checks", "device", "resumed", "failures", "status", "crosscheck")


@dataclass
class Manifest:
    """``manifest.json`` of a run as a typed value (the keys, in the order they are written).

    :func:`start_manifest <bench.benchmark.record.start_manifest>` fills the fields a run starts
    with; :class:`ManifestWriter` changes it at each state change of the run and writes it whole.
    Keys an engine's record adds (the Dask engine's ``engine``, ``cluster``, ``partitions``,
    ``shards``, ``listeners``: :meth:`bench.engines.table.Trainer.record` and what its
    ``close`` returns, recorded through :meth:`ManifestWriter.change`) and keys of a newer
    ltrbench are kept in ``extra``, so that :meth:`from_dict` of any manifest and
    :meth:`to_dict` give it back.
    """

    run_id: str
    ltrbench_version: str
    config_hash: str
    started: str
    finished: str | None
    dataset: dict[str, Any]
    models: dict[str, dict[str, Any]]
    seeds: list[int]
    threads: int
    selection: dict[str, Any]
    evaluation: dict[str, Any]
    measurements: dict[str, Any]
    timing: dict[str, Any]
    environment: dict[str, Any]
    git: dict[str, Any]
    split_checks: list[dict[str, Any]] | None = None
    device: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    #: required keys that a manifest read back lacked (an earlier ltrbench's): not written either
    absent: frozenset[str] = frozenset()
    resumed: list[str] | None = None
    failures: dict[str, str] | None = None
    status: dict[str, Any] | None = None
    crosscheck: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON object written (the optional keys only once they are set; ``extra`` in place)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "extra":
                out.update(value)
            elif f.name == "absent" or (f.name in self.absent and value is None):
                continue
            elif value is not None or f.name not in _OPTIONAL:
                out[f.name] = value
        return out

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> Manifest:
        """The typed value of a parsed manifest (a key it does not know goes to ``extra``)."""
        missing = frozenset(k for k in _FIELDS if k not in doc and k not in _OPTIONAL)
        values: dict[str, Any] = {k: None for k in missing}
        values.update((k, v) for k, v in doc.items() if k in _FIELDS)
        return cls(**values, extra={k: v for k, v in doc.items() if k not in _FIELDS},
                   absent=missing)


class ManifestWriter:
    """The one writer of a run's ``manifest.json``: it holds the :class:`Manifest` and writes it
    whole (atomically) once per state change (start or reopen, the engine started, a model
    failed, the engine closed, finish, cross-check). Nothing else writes the file: an engine
    hands its record (the Dask engine's ``listeners``) to :meth:`change`."""

    def __init__(self, run_dir: Path, manifest: Manifest) -> None:
        self.run_dir = Path(run_dir)
        self.manifest = manifest

    @classmethod
    def open(cls, run_dir: Path) -> ManifestWriter:
        """The writer of an existing run (resumed), holding its manifest as read."""
        return cls(run_dir, Manifest.from_dict(read_manifest(run_dir)))

    def change(self, **values: Any) -> None:
        """Set fields (a name that is no field goes to ``extra``) and write the manifest once."""
        for key, value in values.items():
            if key in _FIELDS:
                setattr(self.manifest, key, value)
            else:
                self.manifest.extra[key] = value
        self.write()

    def write(self) -> None:
        """Write the manifest (``manifest.json``, atomically) as held."""
        write_manifest(self.run_dir, self.manifest.to_dict())


#: The fields of :class:`Manifest` (``extra`` holds the other keys).
_FIELDS: frozenset[str] = frozenset(f.name for f in fields(Manifest)) - {"extra", "absent"}


def dataset_fingerprint(splits: LetorSplits) -> dict[str, str]:
    """SHA-256 (16 hex digits) of each split's features, labels, query ids and user/item ids."""
    return parts_fingerprint(splits.splits())


def parts_fingerprint(parts: Mapping[str, LetorData]) -> dict[str, str]:
    """:func:`dataset_fingerprint` of the named parts only (``tune``: train and vali; it never
    reads the test split)."""
    out = {}
    for name, d in parts.items():
        h = hashlib.sha256()
        for a in (d.X, d.y, d.qid, d.user, d.item):
            if a is not None:
                h.update(str(a.dtype).encode() + str(a.shape).encode())
                h.update(np.ascontiguousarray(a).tobytes())
        out[name] = h.hexdigest()[:16]
    return out


def package_versions() -> dict[str, str]:
    """The installed version of each package of :func:`packages` (a GBDT library under its
    module's own version: xgboost ships as xgboost-cpu); one not installed is left out."""
    from importlib import metadata

    versions = {}
    for name in packages():
        with contextlib.suppress(metadata.PackageNotFoundError):
            versions[name] = metadata.version(name)
    for lib in LIBRARIES.values():
        if lib.version_from_import:
            with contextlib.suppress(ImportError, AttributeError):
                versions[lib.name] = _module_version(lib.import_name, lib.distributions, versions)
    return versions


def environment() -> dict[str, Any]:
    """Python, platform, CPU and package versions of this machine (recorded in every manifest)."""
    versions = package_versions()
    return {
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "blas": blas_kernels(),  # the CPU kernels BLAS chose: other bits on another kernel
        "packages": versions,
        "env": {k: os.environ[k] for k in THREAD_VARIABLES if k in os.environ},
    }


def version_changes(manifest: dict[str, Any]) -> list[str]:
    """``"<name> <recorded> there, <installed> now"`` for ltrbench and each package of
    :func:`compared_packages` whose version ``manifest`` records and this environment does not
    have (another version, or not installed): what ``run --resume`` refuses, since the pairs
    trained before and after would come from two versions under one manifest that names only
    the first. A package the manifest does not record (an older run) is not compared."""
    from bench import __version__

    out = []
    recorded = manifest.get("ltrbench_version")
    if isinstance(recorded, str) and recorded != __version__:
        out.append(f"ltrbench {recorded} there, {__version__} now")
    env = manifest.get("environment")
    was = env.get("packages") if isinstance(env, dict) else None
    if isinstance(was, dict) and was:
        now = package_versions()  # (not the whole environment: no CPU or BLAS probe)
        out += [f"{pkg} {was[pkg]} there, {now.get(pkg, 'not installed')} now"
                for pkg in dict.fromkeys(compared_packages()) if pkg in was
                and was[pkg] != now.get(pkg)]
    return out


def _module_version(module: str, distributions: tuple[str, ...], installed: dict[str, str]) -> str:
    """The version of ``module`` under its own name: its ``__version__`` when it is loaded, else
    the version of the first of its ``distributions`` installed (the same string for a wheel:
    importing LightGBM only to read it cost 0.8 s of every run, scikit-learn with it), else its
    ``__version__`` after an import (a build without package metadata)."""
    loaded = sys.modules.get(module)
    if loaded is None:
        found = next((installed[d] for d in distributions if d in installed), None)
        if found is not None:
            return found
        loaded = __import__(module)
    return str(loaded.__version__)


def git_state(root: Path) -> dict[str, Any]:
    """``{"commit", "dirty", "results_dirty"}`` of the checkout at ``root`` (``None`` values
    outside a checkout): ``dirty`` says whether the code, every tracked file outside
    ``results/``, differs from the commit; ``results_dirty`` whether a tracked file under
    ``results/`` does (a leaderboard published since the commit changes no number of a run).
    A manifest without ``results_dirty`` (written before that key) counted ``results/`` in
    ``dirty`` too; both keys read as before."""
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout.strip()
        status = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "-z", "--untracked-files=no"],
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}
    changed = _changed_paths(status)
    results = [p for p in changed if p == "results" or p.startswith("results/")]
    return {"commit": commit, "dirty": len(results) < len(changed),
            "results_dirty": bool(results)}


def _changed_paths(porcelain_z: str) -> list[str]:
    """The paths of ``git status --porcelain -z`` (both sides of a rename or copy), relative to
    the checkout's top."""
    entries = porcelain_z.split("\0")
    paths, i = [], 0
    while i < len(entries):
        entry = entries[i]
        i += 1
        if len(entry) < 4:
            continue
        paths.append(entry[3:])
        if entry[0] in "RC" or entry[1] in "RC":  # the source path follows as its own entry
            if i < len(entries) and entries[i]:
                paths.append(entries[i])
            i += 1
    return paths
