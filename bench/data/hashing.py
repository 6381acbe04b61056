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


def file_identity(path: str | os.PathLike[str]) -> tuple[int, int, int, int]:
    """What changes when a file is replaced or written (device, inode, size, mtime in ns):
    taken before a digest and after the read it describes, equal when both saw one file (a
    cheap check, where a second digest would read the whole file again)."""
    st = os.stat(path)
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns
