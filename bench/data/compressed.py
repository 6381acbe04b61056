"""Compressed files given where text is expected: refused, naming the tool that decompresses.

No reader of ltrbench decompresses on the fly (a ``.csv.gz`` would be read by pandas' header
sniffer through gzip and then as raw bytes by the strict reader), and a compressed file's
bytes are no UTF-8 text: without this check the error would be "not UTF-8 text (byte 0x8b at
column 2)" or a malformed label of binary bytes. Signatures: gzip (RFC 1952 2.3.1), xz
(xz file format 2.1.1.1), zstd (RFC 8878 3.1.1), zip (PKWARE APPNOTE 4.3.7), bzip2 (``BZh`` +
block size + the block magic 0x314159265359 or the end-of-stream magic 0x177245385090: ten
bytes, so that text starting ``BZh9`` stays text).
"""

from __future__ import annotations

import os
import re

from bench.errors import DataError

_SIGNATURES = (
    (re.compile(rb"\x1f\x8b"), "gzip", "gunzip FILE"),
    (re.compile(rb"\xfd7zXZ\x00"), "xz", "unxz FILE"),
    (re.compile(rb"BZh[1-9](?:1AY&SY|\x17rE8P\x90)"), "bzip2", "bunzip2 FILE"),
    (re.compile(rb"\x28\xb5\x2f\xfd"), "zstd", "unzstd FILE"),
    (re.compile(rb"PK\x03\x04"), "zip", "unzip FILE"),
)


def refuse_compressed(head: bytes, path: str | os.PathLike[str]) -> None:
    """A :class:`DataError` naming ``path``, line 1, the format and its tool when ``head`` (the
    first bytes of the file; 10 or more to tell bzip2) starts with a compressed file's signature."""
    for mark, name, tool in _SIGNATURES:
        if mark.match(head):
            raise DataError(f"the file is {name}-compressed (it starts with that signature); "
                            f"expected UTF-8 text: decompress it first, e.g. {tool}",
                            path=path, line=1)
