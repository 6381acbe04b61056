"""A run configuration's hash: one value per config, the same from a TOML file, the Python API
and the command line.

:meth:`bench.benchmark.config.RunConfig.config_hash` is 12 hex digits of the SHA-256 of the
canonical JSON of the part of the config that changes a number (:data:`UNHASHED` is left out).
Equal configs hash equal because every typed value is held in one canonical form when the
config is made (:func:`bench.data.toml.canonical`: a float parameter's ``0``, ``0.0`` and
``-0.0`` are ``0.0``; a NumPy scalar is the Python number). Values a library reads apart keep
apart: a raw ``[params.<library>]`` value ``1`` and ``1.0`` (LightGBM refuses ``1.0`` for an
integer parameter; only ``-0.0`` becomes ``0.0`` there, :func:`bench.data.toml.canonical_raw`),
and a custom model's ``params`` as written (its factory is the user's code, which may tell
``1`` from ``1.0`` and ``-0.0`` from ``0.0``).
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Mapping
from typing import Any

from bench.engines import DEFAULT_ENGINE

#: Keys left out of the config hash (they do not change any number).
UNHASHED = (
    "data_dir", "crosscheck", "permute_check", "permute_retrain", "name", "description", "timing",
    "timing_repeats", "cache", "scheduler", "strict",
)


def config_hash(plain: Mapping[str, Any], *, engine: str, device: str) -> str:
    """12 hex digits of the SHA-256 of ``plain`` (:meth:`RunConfig.to_dict`) without
    :data:`UNHASHED`, as canonical JSON (keys sorted, no spaces). The default engine and
    device leave the hash of earlier runs as it was."""
    doc = {k: v for k, v in plain.items() if k not in UNHASHED}
    if engine == DEFAULT_ENGINE:
        doc.pop("engine", None)
        doc.pop("workers", None)
    if device == "cpu":
        doc.pop("device", None)
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def hash_as_written(config: Any, doc: Mapping[str, Any]) -> str | None:
    """The hash ltrbench before round 13 gave the config file ``doc`` read into ``config``
    (numbers hashed as the file spelt them: ``l1 = 0`` apart from ``l1 = 0.0``; a catalogue
    name's case and the order of ``eval_at`` as written), when it differs
    from :func:`config_hash`'s; else ``None``. A run made then recorded that hash in its
    manifest: ``run --resume`` and ``reproduce`` accept it (:func:`accepted_hashes`), so
    the canonical form does not turn an earlier run into "a config edited after the run"."""
    plain = copy.deepcopy(config.to_dict())  # its tables are the config's own
    changed = _overlay(plain, {k: doc[k] for k in ("params", "model_params", "als") if k in doc})
    tables = doc.get("model_params")
    for model, table in tables.items() if isinstance(tables, Mapping) else ():
        written = {k: v for k, v in table.items() if v == {}} if isinstance(table, Mapping) else {}
        if written.keys() - plain["model_params"].get(model, {}).keys() or table == {}:
            plain["model_params"][model] = {**written, **plain["model_params"].get(model, {})}
            changed = True  # an empty table, or an empty raw table in one, as written
    for key in ("dataset", "eval_at"):  # a catalogue name's case, cutoffs in another order
        if isinstance(doc.get(key), str | list) and doc[key] != plain.get(key):
            plain[key], changed = doc[key], True
    if not changed:
        return None
    return config_hash(plain, engine=config.engine, device=config.device)


def accepted_hashes(config: Any) -> tuple[str, ...]:
    """The hashes a recorded run of ``config`` may carry: :meth:`RunConfig.config_hash`, and
    the one of :func:`hash_as_written` when the config was read from a file that spelt a
    number another way."""
    earlier = config.__dict__.get("_hash_as_written")
    return (config.config_hash(),) + ((earlier,) if earlier else ())


def _overlay(plain: dict[str, Any], written: Mapping[str, Any]) -> bool:
    """Put each number of ``written`` in place of the equal canonical one of ``plain`` (same
    keys, at any depth); whether any spelling differed."""
    changed = False
    for key, value in written.items():
        have = plain.get(key)
        if isinstance(value, Mapping) and isinstance(have, dict):
            changed = _overlay(have, value) or changed
        elif isinstance(value, int | float) and not isinstance(value, bool) \
                and isinstance(have, int | float) and not isinstance(have, bool) \
                and value == have and (type(value) is not type(have) or str(value) != str(have)):
            plain[key] = value
            changed = True
    return changed
