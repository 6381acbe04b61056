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
