"""A run's ``manifest.json`` read back, with one check of its fields' types for every reader:
``run --resume`` (:func:`bench.benchmark.pipeline.run_benchmark`, and the search for the latest
unfinished run, :func:`bench.runs.search.latest_unfinished`), ``reproduce``
(:mod:`bench.benchmark.reproduce_steps`) and the Python API's
:attr:`bench.benchmark.api.RunResult.manifest`.

Before, only ``reproduce`` checked the fields it read; a hand-edited manifest resumed with
``"dataset": [1]`` ended in an ``AttributeError`` traceback, ``"resumed": "x"`` was extended
character by character into ``["x", <now>]``, and one without ``config_hash`` was refused as a
run of "another config (hash None)". A field a reader needs (``required``) and lacks is said
as missing; a field present with another JSON type than the one ltrbench writes
(:func:`bench.benchmark.record.start_manifest`) is a :class:`~bench.errors.ConfigError` naming
the file, the field and what was expected.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from bench.errors import ConfigError
from bench.runs.manifest import MANIFEST, read_manifest


def _hex(value: Any) -> bool:
    return isinstance(value, str) and bool(value) and all(c in "0123456789abcdef" for c in value)


def _ints(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool)
                                           for v in value)


def _texts(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _table_of_tables(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, dict) for v in value.values())


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _typed(*types: type) -> Callable[[Any], bool]:
    return lambda value: isinstance(value, types) and not isinstance(value, bool)


#: Every manifest field a reader of this layer uses: (dotted name, its test, what it must be).
#: ``None`` is accepted where ltrbench writes it (``finished`` of an unfinished run; the optional
#: keys of :data:`bench.runs.manifest._OPTIONAL` are left out until they hold something).
MANIFEST_FIELDS: tuple[tuple[str, Callable[[Any], bool], str], ...] = (
    ("config_hash", _hex, "the config's hash, a string of hex digits"),
    ("run_id", _typed(str), "a string"),
    ("started", _typed(str), "a time as a string"),
    ("finished", lambda v: v is None or isinstance(v, str), "a time as a string, or null"),
    ("seeds", _ints, "a list of integer seeds"),
    ("threads", lambda v: v is None or _count(v), "an integer >= 0"),
    ("models", _table_of_tables, "an object of model -> object (library, objective ...)"),
    ("environment", _typed(dict), "an object (python, machine, packages ...)"),
    ("environment.packages", _typed(dict), "an object of package -> version"),
    ("dataset", _typed(dict), "an object (name, fingerprint ...)"),
    ("dataset.fingerprint", _typed(dict), "an object of file -> hash"),
    ("dataset.inputs", _typed(dict), "an object of split -> file"),
    ("dataset.path", _typed(str), "the dataset's absolute path, a string"),
    ("dataset.path_from_run", _typed(str), "the dataset's path from the run directory, a string"),
    ("dataset.fold", _typed(str), "a fold (FoldK), a string"),
    ("resumed", lambda v: v is None or _texts(v), "a list of times (strings)"),
    ("failures", lambda v: v is None or isinstance(v, dict), "an object of pair -> error"),
    ("status", lambda v: v is None or isinstance(v, dict), "an object"),
    ("git", _typed(dict), "an object (commit, dirty)"),
    ("git.dirty", lambda v: v is None or isinstance(v, bool), "true, false or null (whether "
     "the code outside results/ differed from the commit)"),
    ("git.results_dirty", lambda v: isinstance(v, bool), "true or false"),
)
#: What ``run --resume`` needs (its hash, data and models are compared with this run's).
RESUME_FIELDS: tuple[str, ...] = ("config_hash", "dataset", "models", "seeds")


def check_manifest(manifest: dict[str, Any], path: Path, *, required: Iterable[str] = ()) -> None:
    """Each field of :data:`MANIFEST_FIELDS` that ``manifest`` holds passes its test, and each
    ``required`` one is there; else a ConfigError naming ``path`` and the field."""
    need = set(required)
    damaged = "The run directory is damaged (changed outside ltrbench): start a new run"
    for dotted, test, what in MANIFEST_FIELDS:
        parent, _, key = dotted.rpartition(".")
        holder = manifest.get(parent) if parent else manifest
        if not isinstance(holder, dict) or key not in holder:
            if dotted in need:
                raise ConfigError(f"{path}: field {dotted!r} is missing; expected {what}. "
                                  f"{damaged}")
            continue
        value = holder[key]
        if not test(value):
            raise ConfigError(f"{path}: field {dotted!r} holds {json.dumps(value)[:60]}; expected "
                              f"{what}. {damaged}")
    env = manifest.get("environment")
    packages = env.get("packages") if isinstance(env, dict) else None
    for pkg, version in (packages or {}).items():  # reproduce and --resume compare them as text
        if not isinstance(version, str) or not version.strip():
            raise ConfigError(f"{path}: field 'environment.packages.{pkg}' holds "
                              f"{json.dumps(version)[:60]}; expected a version string such as "
                              f"\"3.2.0\". {damaged}")


def read_run_manifest(run_dir: Path, *, required: Iterable[str] = ()) -> dict[str, Any]:
    """``run_dir``'s manifest (a file that is not a JSON object is a
    :class:`~bench.errors.DataError` naming it), its fields checked by :func:`check_manifest`."""
    manifest = read_manifest(Path(run_dir))
    check_manifest(manifest, Path(run_dir) / MANIFEST, required=required)
    return manifest
