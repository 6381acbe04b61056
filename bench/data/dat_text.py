"""The text of a MovieLens side file (ml-1m / ml-10m ``movies.dat``, ``users.dat``,
``tags.dat``; ml-100k ``u.item``, ``u.user``, ``u.genre``) under the rules of every other text
reader (:mod:`bench.data.inputs`).

These files are split at ``::`` or ``|`` outside the checked readers, so the rules are applied here: a
UTF-8 byte-order mark is skipped (it made the first id ``\\ufeff1``, refused as no MovieID), a
UTF-16 file is refused by its mark (it was decoded as Latin-1 garbage), and a NUL byte, a byte-order
mark inside the file or a line end Python's ``str.splitlines`` takes but no other reader does
(U+2028, VT, FF ...) is refused naming its line (a NUL made ``Adv\\x00enture`` a genre of its
own; U+2028 split a tag's line in two), as is a DOS end-of-file mark (Ctrl-Z) that old exports
append. Text that is not UTF-8 is read as Latin-1: ml-1m's ``movies.dat`` is.
"""

from __future__ import annotations

from pathlib import Path

from bench.data.compressed import HEAD
from bench.data.input_ids import STRAY_BYTES, dos_eof_hint, stray_character
from bench.data.inputs import bom_length
from bench.errors import DataError


def dat_text(path: Path) -> str:
    """The text of ``path`` (see the module docstring), its line ends as written."""
    raw = path.read_bytes()
    raw = raw[bom_length(raw[:HEAD], path):]
    lf = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n") if b"\r" in raw else raw
    found = STRAY_BYTES.search(lf)
    at = found.start() if found is not None else lf.find(b"\x1a")
    if at >= 0:
        line = lf.count(b"\n", 0, at) + 1
        text = lf.split(b"\n")[line - 1]
        reason = stray_character(text) or dos_eof_hint(text).removeprefix("; ")
        raise DataError(reason, path=path, line=line)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")  # ml-1m's movies.dat is Latin-1
