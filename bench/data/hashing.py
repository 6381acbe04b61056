"""Content digests of files: the one sha256 every reader, manifest and cache uses."""

from __future__ import annotations

import hashlib
import os

_CHUNK = 1 << 20


def sha256_file(path: str | os.PathLike[str]) -> str:
    """Hex sha256 of a file (FIPS 180-4 SHA-256 via :mod:`hashlib`), read in 1 MiB blocks into
    one reused buffer; ``hashlib`` releases the GIL, so files hash in parallel on threads."""
    h = hashlib.sha256()
    buf = bytearray(_CHUNK)
    view = memoryview(buf)
    with open(path, "rb", buffering=0) as fh:
        while True:
            k = fh.readinto(view)
            if not k:
                break
            h.update(view[:k])
    return h.hexdigest()
