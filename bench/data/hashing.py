"""Content digests of files: the one sha256 every reader, manifest and cache uses."""

from __future__ import annotations

import hashlib
import os

_CHUNK = 1 << 20


def sha256_file(path: str | os.PathLike[str]) -> str:
    """Hex sha256 of a file, read in 1 MiB blocks (FIPS 180-4 SHA-256 via :mod:`hashlib`)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(_CHUNK), b""):
            h.update(block)
    return h.hexdigest()
