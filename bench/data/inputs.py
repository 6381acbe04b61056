"""The input layer the text readers go through: open a file, check its encoding, parse numbers.

Opening (:func:`check_input_file`, :func:`text_lines`): a missing path, a directory, a file the
process may not read and a file that is not UTF-8 text are :class:`~bench.errors.DataError`\\ s
naming the path (never a ``FileNotFoundError``/``PermissionError`` traceback). A UTF-8
byte-order mark at the start of a file is skipped (it would otherwise become part of the first
query id); a UTF-16 or UTF-32 byte-order mark is refused with the conversion to use.

Numbers (:func:`parse_int`, :func:`parse_float`): only plain ASCII decimal spellings are
accepted, the grammar of the compiled SVMlight parser (:mod:`bench.data.svmlight_scan`)::

    integer := [+-] digits
    number  := [+-] ( digits [ '.' digits* ] | '.' digits ) [ (e|E) [+-] digits ]

so Python's lax ``int()``/``float()`` spellings -- ``0_4`` (read as 4), ``1_0`` (10), ``0x10``,
``inf``, ``nan``, ``Infinity``, non-ASCII digits, surrounding spaces -- are errors naming the
file, line and column. Integers are range-checked against the dtype they go to (int64 by
default), floats must be finite.
"""

from __future__ import annotations

import math
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path

from bench.errors import DataError

PathLike = str | os.PathLike[str]

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
UTF8_BOM = b"\xef\xbb\xbf"
_WIDE_BOMS = (
    (b"\x00\x00\xfe\xff", "UTF-32 (big-endian)"),
    (b"\xff\xfe\x00\x00", "UTF-32 (little-endian)"),
    (b"\xfe\xff", "UTF-16 (big-endian)"),
    (b"\xff\xfe", "UTF-16 (little-endian)"),
)
_INT = re.compile(rb"[+-]?[0-9]+")
_FLOAT = re.compile(rb"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
NUMBER_FORMS = "e.g. 2, 0.5, -3 or 1.5e-4; no '_', hex, inf or nan"


def check_input_file(path: PathLike, *, expected: str = "a file") -> Path:
    """``path`` as a :class:`Path` once it is known to be a readable regular file.

    A missing path, a directory, something that is not a regular file or a file this process
    may not read is a :class:`DataError` naming the path and saying what was ``expected``.
    """
    p = Path(path)
    try:
        st = p.stat()
    except FileNotFoundError:
        raise DataError(f"no such file: expected {expected}", path=p) from None
    except OSError as exc:
        raise DataError(f"cannot be read ({exc.strerror}): expected {expected}", path=p) from None
    if stat.S_ISDIR(st.st_mode):
        raise DataError(f"is a directory: expected {expected}", path=p)
    if not stat.S_ISREG(st.st_mode):
        raise DataError(f"is not a regular file: expected {expected}", path=p)
    try:
        with open(p, "rb"):
            pass
    except OSError as exc:
        raise DataError(f"cannot be read ({exc.strerror}): expected {expected}", path=p) from None
    return p


def bom_length(head: bytes, path: PathLike) -> int:
    """How many bytes of a byte-order mark start ``head`` (the first bytes of ``path``).

    3 for a UTF-8 mark, 0 for none; a UTF-16/UTF-32 mark is a :class:`DataError` (the readers
    take UTF-8 text only).
    """
    if head.startswith(UTF8_BOM):
        return len(UTF8_BOM)
    for mark, name in _WIDE_BOMS:
        if head.startswith(mark):
            raise DataError(
                f"the file is {name} text (it starts with that byte-order mark); expected UTF-8: "
                f"convert it, e.g. iconv -f {name.split()[0]} -t UTF-8",
                path=path,
                line=1,
            )
    return 0


def text_lines(path: PathLike, *, expected: str = "a text file") -> Iterator[tuple[int, bytes]]:
    """``(line number, line)`` of a UTF-8 text file, lines as bytes without the line end.

    Opens through :func:`check_input_file`, skips a UTF-8 byte-order mark, refuses UTF-16 and
    UTF-32 and names the first line that is not valid UTF-8. Lines are bytes so that callers
    split them on ASCII white space only (``bytes.split()``) and decode the fields they keep.
    """
    p = check_input_file(path, expected=expected)
    with open(p, "rb") as fh:
        first = True
        for lineno, raw in enumerate(fh, start=1):
            if first:
                raw = raw[bom_length(raw, p):]
                first = False
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise DataError(
                    f"not UTF-8 text (byte {raw[exc.start]:#04x} at column {exc.start + 1})",
                    path=p,
                    line=lineno,
                ) from None
            yield lineno, raw.rstrip(b"\r\n")


def parse_int(
    token: bytes | str,
    *,
    what: str,
    path: PathLike | None = None,
    line: int | None = None,
    row: int | None = None,
    column: str | None = None,
    low: int = INT64_MIN,
    high: int = INT64_MAX,
) -> int:
    """A strict integer (optional sign, ASCII digits) in ``low..high`` (default: int64).

    Anything else -- ``1_0``, ``0x10``, ``1.0``, ``١``, an integer out of range -- is a
    :class:`DataError` naming ``what`` (``"relevance"``), the token and the location.
    """
    raw = token.encode("utf-8", "replace") if isinstance(token, str) else token
    if _INT.fullmatch(raw) is None:
        raise DataError(f"{what} {_show(raw)} is not an integer (expected digits with an "
                        "optional sign; no '_', hex, decimal point or spaces)",
                        path=path, line=line, row=row, column=column)
    value = int(raw)
    if not low <= value <= high:
        raise DataError(f"{what} {_show(raw)} is out of range: expected an integer in "
                        f"{low}..{high}", path=path, line=line, row=row, column=column)
    return value


def parse_float(
    token: bytes | str,
    *,
    what: str,
    path: PathLike | None = None,
    line: int | None = None,
    row: int | None = None,
    column: str | None = None,
) -> float:
    """A strict, finite decimal number (see the module doc for the grammar) as a float64.

    ``0_4``, ``0x1p-2``, ``inf``, ``nan``, ``1e400`` (not finite as a float64) and the like are
    a :class:`DataError` naming ``what``, the token and the location.
    """
    raw = token.encode("utf-8", "replace") if isinstance(token, str) else token
    if _FLOAT.fullmatch(raw) is None:
        raise DataError(f"{what} {_show(raw)} is not a plain decimal number ({NUMBER_FORMS})",
                        path=path, line=line, row=row, column=column)
    value = float(raw)
    if not math.isfinite(value):
        raise DataError(f"{what} {_show(raw)} is beyond the range of a float64 (|x| > 1.8e308)",
                        path=path, line=line, row=row, column=column)
    return value


def is_plain_int(token: bytes | str) -> bool:
    """Whether ``token`` is a plain integer spelling (no range check)."""
    raw = token.encode("utf-8", "replace") if isinstance(token, str) else token
    return _INT.fullmatch(raw) is not None


def is_plain_float(token: bytes | str) -> bool:
    """Whether ``token`` is a plain decimal number spelling (no finiteness check)."""
    raw = token.encode("utf-8", "replace") if isinstance(token, str) else token
    return _FLOAT.fullmatch(raw) is not None


def _show(raw: bytes) -> str:
    text = raw.decode("utf-8", "replace")
    return repr(text if len(text) <= 40 else text[:37] + "...")
