"""Ids and stray characters under the input discipline of :mod:`bench.data.inputs` (which states
the rules and re-exports :func:`stray_character` and :func:`text_ids`; split from it for size).

:func:`stray_character`: the characters no text reader lets through silently (a NUL byte, a
byte-order mark inside a file, line ends other than LF/CRLF/CR). :func:`text_ids`: query and
document ids compare as their text on every path; integers among text become text; floats,
bools and missing values among text ids are errors; so are text ids holding a stray character,
empty ones, ones with ASCII white space (what a TREC file splits at: :data:`BLANKS`) at either
end (``"a "`` would be a query apart from ``"a"``) and ones holding a line end, since no TREC file
can hold them.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Callable

import numpy as np

from bench.errors import DataError

PathLike = str | os.PathLike[str]
UTF8_BOM = b"\xef\xbb\xbf"


#: What :func:`stray_character` refuses: a NUL byte, a UTF-8 byte-order mark, and the
#: characters Python's ``str.splitlines`` reads as line ends besides LF and CR (VT, FF, the
#: ASCII separators FS/GS/RS, NEL U+0085, U+2028, U+2029).
_STRAY = re.compile(rb"[\x00\x0b\x0c\x1c-\x1e]|\xc2\x85|\xe2\x80[\xa8\xa9]|\xef\xbb\xbf")
#: The same pattern for readers that scan whole blocks of a file (:mod:`bench.data.delimited`).
STRAY_BYTES = _STRAY
_STRAY_NAMES = {b"\x0b": "vertical tab", b"\x0c": "form feed", b"\x1c": "file separator",
                b"\x1d": "group separator", b"\x1e": "record separator",
                b"\xc2\x85": "next-line character", b"\xe2\x80\xa8": "line separator",
                b"\xe2\x80\xa9": "paragraph separator"}


def stray_character(raw: bytes, first_column: int = 1) -> str | None:
    """Why line ``raw`` (UTF-8 bytes, no line end) cannot be read as it stands, or ``None``.

    The one rule of every text reader for characters that would silently change what a line
    holds: a **NUL byte** (UTF-16 text without a byte-order mark has one after every ASCII
    character; C readers such as trec_eval stop a field there), a **byte-order mark inside
    the file** (two files joined: it would become part of the first id of the line, so
    ``\ufeff2`` and ``2`` would be two queries), and a **line end other than LF, CRLF or CR**
    (VT, FF, NEL, U+2028, U+2029, FS/GS/RS: Python's ``str.splitlines`` ends a line there,
    trec_eval and ``bytes.split`` do not, so a file so separated would be read as one line,
    its fields past the sixth ignored). The text names the character and its column (1-based,
    in characters; ``raw`` starts at column ``first_column``) and what was expected.
    """
    m = _STRAY.search(raw)
    if m is None:
        return None
    column = len(raw[:m.start()].decode("utf-8", "replace")) + first_column
    found = m.group()
    if found == b"\x00":
        order = "BE" if column == 1 else "LE"  # big-endian: the NUL comes first
        bits = "32" if b"\x00\x00\x00" in raw else "16"  # UTF-32: three NULs per ASCII letter
        return (f"a NUL byte at column {column}: expected UTF-8 text (a NUL beside every "
                f"character is UTF-{bits} text without a byte-order mark: convert it, e.g. "
                f"iconv -f UTF-{bits}{order} -t UTF-8)")
    if found == UTF8_BOM:
        return (f"a byte-order mark (U+FEFF) at column {column}, inside the file (were two "
                "files joined?): it would become part of a field; expected one only at the "
                "start of the file: remove it")
    code = ord(found.decode("utf-8"))
    return (f"a {_STRAY_NAMES[found]} (U+{code:04X}) at column {column}: expected LF, CRLF or "
            "CR line ends and spaces or tabs between fields (Python's str.splitlines ends a "
            "line there, trec_eval does not: refused rather than guessed)")


def dos_eof_hint(raw: bytes | str | list[str]) -> str:
    """``; ... Ctrl-Z ...`` when ``raw`` (a line, a field or a line's fields) holds 0x1A, the
    end-of-file mark old DOS programs and ERP exports append (invisible in most editors, so
    an error about that line would show nothing to fix); empty otherwise. The hint of every
    text reader's error about such a line (ratings tables, TREC files, numbers)."""
    text = "".join(raw) if isinstance(raw, list) else raw
    found = (b"\x1a" in text) if isinstance(text, bytes) else ("\x1a" in text)
    if not found:
        return ""
    return ("; the line holds a DOS end-of-file mark (Ctrl-Z, 0x1A), which old DOS programs "
            "and ERP exports append: delete it")


def space_hint(raw: bytes | str) -> str:
    """``; it holds '\xa0' (U+00A0 NO-BREAK SPACE) ...`` when ``raw`` (a cell, a token) holds
    white space Python's ``str.strip`` / ``float`` take and C's ``strtod`` / ``isspace`` do not
    (:func:`bench.errors.foreign_space`): the cell shows as a plain number, so the error says
    what to delete; empty otherwise."""
    from bench.errors import foreign_space

    held = foreign_space(raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw)
    return (f"; it holds {held}, white space to Python but not to C readers (trec_eval, "
            "LightGBM, pandas' number parser): delete it, or write the ASCII space or tab "
            "meant") if held else ""


def text_ids(values: object, *, what: str = "query id", path: PathLike | None = None,
             column: str | None = None) -> np.ndarray:
    """Ids under the module doc's rule: a column mixing integers and text becomes text.

    Arrays without text (integers, floats, a mix of them) and text-only arrays are returned as
    they are (numbers compare as numbers). An object array holding text and integers becomes
    an array of text (``1`` -> ``"1"``); a float or other value among text ids, or a bool
    anywhere (a bool array too: ``True`` is no id, and would join query 1), is a
    :class:`DataError` naming ``what``, the row (1-based) and ``column``.
    """
    a = np.asarray(values) if not isinstance(values, np.ndarray) else values
    items: list[object] = a.tolist() if a.dtype.kind == "O" else []
    types = set(map(type, items))  # the kinds come from the types (a float's from its value)
    _refuse_stray_ids(a, what=what, path=path, column=column, items=items if items else None,
                      all_text=bool(types) and all(issubclass(t, str) for t in types))
    if a.dtype.kind == "b" and a.shape[0]:
        raise DataError(f"{what} {bool(a.flat[0])!r} is a bool: expected strings or integers "
                        "(ids compare as their text; True has none)", path=path, row=1,
                        column=column)
    if a.dtype.kind in "MmcSV" and a.shape[0]:  # dates, durations, complex, bytes: no id text
        raise DataError(f"{what} {a.flat[0]!r} is a {a.dtype} value: expected strings or integers "
                        f"(ids compare as their text{_NO_TEXT_WHY.get(a.dtype.kind, '')})",
                        path=path, row=1, column=column)
    if a.dtype.kind != "O":
        return a
    kinds = _kinds(items, types)
    if kinds - _ID_KINDS:  # a tuple, bytes, a Timestamp: no id of a file, refused as on a dict
        i = next(k for k, v in enumerate(items) if _id_kind(v) not in _ID_KINDS)
        raise DataError(f"{what} {items[i]!r} is a {type(items[i]).__name__}: expected strings "
                        "or integers (ids compare as their text"
                        f"{_NO_TEXT_WHY.get(_id_kind(items[i]), '')})", path=path, row=i + 1,
                        column=column)
    if "missing" not in kinds and "bool" in kinds:  # True would join query 1; no one text
        i = next(k for k, v in enumerate(items) if _id_kind(v) == "bool")
        raise DataError(f"{what} {items[i]!r} is a bool: expected strings or integers (ids "
                        "compare as their text; True has none)", path=path, row=i + 1,
                        column=column)
    if "str" not in kinds or "missing" in kinds:
        return a  # no text: numbers compare as numbers (a missing id: the caller names it)
    if kinds <= {"int", "str"}:
        texts = items if kinds == {"str"} else [
            v if isinstance(v, str) else str(int(v)) for v in items]  # type: ignore[call-overload]
        return text_array(texts, what=what, path=path, column=column)  # type: ignore[arg-type]
    ok = ("int", "str") if "str" in kinds else ("int", "float")
    i = next(k for k, v in enumerate(items) if _id_kind(v) not in ok)
    v = items[i]
    among = "text" if "str" in kinds else "numbers"
    raise DataError(f"{what} {v!r} is a {type(v).__name__} among ids that are {among}: expected "
                    "strings or integers (ids compare as their text; 1.0 and True have none)",
                    path=path, row=i + 1, column=column)


def _first_float(values: np.ndarray, bad: Callable[[np.ndarray, int], np.ndarray]) -> int:
    """Row of the first float of ``values`` that ``bad(floats, mantissa bits)`` marks (NaN
    never: a missing id is the caller's), or -1; an object array's floats are judged one by
    one, each under its own type's bits; arrays of no float: -1."""
    if values.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            hits = np.flatnonzero(~np.isnan(values) & bad(values, np.finfo(values.dtype).nmant + 1))
        return int(hits[0]) if hits.size else -1
    if values.dtype.kind == "O":
        return next((k for k, v in enumerate(values.tolist()) if isinstance(v, float | np.floating)
                     and not np.isnan(v) and bool(bad(np.asarray(v), np.finfo(type(v)).nmant + 1))),
                    -1)
    return -1


def inexact_float_id(values: np.ndarray, *, what: str = "query id",
                     path: PathLike | None = None, column: str | None = None) -> None:
    """Float ids from the float's last exact integer on (2^53 for a float64, 2^24 for a float32)
    are refused, naming the first's row: integers there are not all floats (2^53 + 1 reads as
    2^53), so two ids may already be one -- an int64 column that a NaN made float64 in pandas
    (``read_csv``, a join) merges such queries before ltrbench sees them. An object array's
    float items are held to their own type's bound."""
    i = _first_float(values, lambda f, bits: np.isfinite(f) & (np.abs(f) >= 2.0 ** bits))
    if i >= 0:
        v = values[i]
        bits = np.finfo(type(v) if values.dtype.kind == "O" else values.dtype).nmant + 1
        raise DataError(f"{what} {float(v)!r} is a float from 2^{bits} on, where a float no longer "
                        f"holds every integer ({2**bits + 1} reads as {2**bits}): two ids may "
                        "already be one; read the column as int64 or text where it is written "
                        "(pandas: dtype='Int64' or str)", path=path, row=i + 1, column=column)


def fractional_float_id(values: np.ndarray, *, what: str = "query id",
                        path: PathLike | None = None, column: str | None = None) -> None:
    """The one rule for float ids on every path (frames, arrays, dicts, Parquet, Dask): a whole
    float is the integer it holds (``1.0`` is id 1, as a ratings file's ``1.0``); a fractional
    or infinite float is refused, naming the first's row (ids are integers or text: 1.2 and
    1.7 would be query 1 where ids are integers). NaN is left to the caller (a missing id);
    floats from 2^53 on: :func:`inexact_float_id`."""
    i = _first_float(values, lambda f, bits: np.isinf(f) | (f != np.floor(f)))
    if i >= 0:
        raise DataError(f"{what} {float(values[i])!r} is a float that is not a whole number: "
                        "expected a string or an integer (a whole float such as 1.0 is read as "
                        "its integer; 1.2 and 1.7 would both be 1 where ids are integers): "
                        "write the ids as integers or text", path=path, row=i + 1, column=column)


def _kinds(items: list[object], types: set[type]) -> set[str]:
    """``{_id_kind(v) for v in items}`` from the distinct ``types`` of ``items`` (one pass in C,
    ``set(map(type, ...))``, instead of a Python call per id: 1M ids, 0.05 s rather than 1.8 s).
    A value's kind follows from its type, but for floats, which are ``"missing"`` when NaN."""
    kinds: set[str] = set()
    for t in types:
        kind = _type_kind(t)
        if kind == "float":
            nan = np.isnan(np.asarray([v for v in items if type(v) is t], dtype=np.float64))
            kinds |= ({"missing"} if nan.any() else set()) | ({"float"} if not nan.all() else set())
        else:
            kinds.add(kind)
    return kinds


def _refuse_stray_ids(a: np.ndarray, *, what: str, path: PathLike | None,
                      column: str | None, items: list[object] | None = None,
                      all_text: bool = False) -> None:
    """Text ids holding a character :func:`stray_character` refuses in a file (a NUL, a
    byte-order mark: ``"\ufeff1"`` would be a query apart from ``"1"``, a line end other than
    LF/CR) are refused on every path, frames and arrays included, naming the first row; so is
    an id that is empty, has white space at either end or holds a line end (``"a "`` would be
    a query apart from ``"a"``; no TREC file can hold it). One pass over the ids joined by LF:
    when all are printable (no stray character, no white space but the space) substring tests
    suffice, else a regular expression (0.22 s for 1M ids, a third of finding their distinct
    values first, 0.64 s). ``items``: ``a.tolist()`` when the caller has it; ``all_text``: every
    item is a ``str``."""
    if a.dtype.kind not in "UO" or not a.size:
        return
    items = a.tolist() if items is None else items
    texts: list[str] = (items if a.dtype.kind == "U" or all_text  # type: ignore[assignment]
                        else [v for v in items if isinstance(v, str)])
    if not texts:
        return
    joined = "\n".join(texts)
    printable = joined.replace("\n", "").isprintable()  # no stray character, no white space
    if not printable and _STRAY.search(joined.encode("utf-8", "replace")) is not None:
        row, bad = next((i, v) for i, v in enumerate(items)
                        if isinstance(v, str) and _STRAY.search(v.encode("utf-8", "replace")))
        m = _STRAY.search(bad.encode("utf-8", "replace"))
        assert m is not None
        char = m.group().decode("utf-8")
        name = {b"\x00": "a NUL byte", b"\xef\xbb\xbf": "a byte-order mark"}.get(
            m.group(), f"a {_STRAY_NAMES.get(m.group(), 'control character')}")
        raise DataError(f"{what} {bad!r} holds {name} (U+{ord(char):04X}): it would be an id apart "
                        f"from the same text without it; expected ids of printable text", path=path,
                        row=row + 1, column=column)
    if _padded(joined, len(texts), printable):  # but the space: the common case, fast
        row, bad = next((i, v) for i, v in enumerate(items) if isinstance(v, str)
                        and (v != v.strip(BLANKS) or not v or "\n" in v or "\r" in v))
        bare = bad.strip(BLANKS)
        why = ("is empty: expected an id in every row" if not bare else
               "holds a line end: expected an id on one line" if bare != bare
               .replace("\n", "").replace("\r", "") else
               f"has white space around it, so it would be an id apart from {bare!r}: "
               "expected no white space at either end")
        raise DataError(f"{what} {bad!r} {why} (no TREC file can hold such an id: fields there "
                        "are split at white space)", path=path, row=row + 1, column=column)


def _padded(joined: str, n: int, printable: bool) -> bool:
    """Whether one of ``n`` text ids joined by LF is empty, starts or ends with white space or
    holds a line end (``"a "`` and ``"a"`` would be two queries). Substring tests alone when
    every character but LF is ``printable`` (the only white space then is the space)."""
    if joined.count("\n") != n - 1:
        return True
    if not joined or joined[0] in BLANKS or joined[-1] in BLANKS or "\n\n" in joined:
        return True
    if printable:
        return " \n" in joined or "\n " in joined
    return _PADDED.search(joined) is not None


_PADDED = re.compile(r"[ \t\x0b\x0c]\n|\n[ \t\x0b\x0c]|\r")

#: The white space a TREC file splits its fields at (trec_eval's C ``isspace``, ASCII only):
#: an id cannot start or end with it. Other Unicode white space (U+00A0, U+3000) is part of an
#: id in a file, as in trec_eval and pytrec_eval (ids are byte strings there), so it is on
#: every other path too: ``"a\u00a0"`` is a query apart from ``"a"`` everywhere.
BLANKS = " \t\r\n\x0b\x0c"


#: The kinds of :func:`_id_kind` that may be ids (a bool or a missing value is refused with its
#: own message); any other value is refused by :func:`text_ids`, naming its row: a date
#: (``Timestamp("2020-01-01 00:00", tz="UTC")`` equals ``Timestamp("2020-01-01 01:00",
#: tz="Europe/Paris")``, so two queries whose ids differ as text would silently be one),
#: a duration, a complex number, a ``Decimal``, bytes, a container.
_ID_KINDS = frozenset({"int", "float", "str", "missing", "bool"})
_NO_TEXT_WHY = {"M": "; two dates of different time zones can be one instant: convert them "
                     "with .astype(str) or .dt.strftime(...)",
                "Timestamp": "; two dates of different time zones can be one instant: convert "
                             "them with .astype(str) or .dt.strftime(...)",
                "datetime": "; two dates of different time zones can be one instant: convert "
                            "them with str(...)",
                "S": "; decode bytes first, e.g. .astype(str) or .decode()",
                "bytes": "; decode bytes first, e.g. .decode()"}

def _id_kind(v: object) -> str:
    kind = _type_kind(type(v))
    return "missing" if kind == "float" and v != v else kind


def _type_kind(t: type) -> str:
    """What :func:`_id_kind` calls a value of type ``t`` (``"float"``: NaN is ``"missing"``)."""
    if issubclass(t, bool | np.bool_):
        return "bool"
    if issubclass(t, int | np.integer):
        return "int"
    if issubclass(t, str):
        return "str"
    if t is type(None) or t.__name__ in ("NAType", "NaTType"):  # pandas' missing values
        return "missing"
    if issubclass(t, float | np.floating):
        return "float"
    return t.__name__


def id_array(values: object) -> np.ndarray:
    """``np.asarray(values)``, except that Python strings stay Python strings (an object array)
    when NumPy's fixed-width text would drop a trailing NUL: ``np.asarray(["1\\0"])`` is
    ``["1"]``, which would silently join query ``"1"`` instead of being refused by
    :func:`text_ids` as a file line holding a NUL is; a bool among numbers stays a bool
    (``np.asarray([True, 1])`` is ``[1, 1]``, which would silently join query 1); and a value
    that is no text among text stays that value for :func:`text_ids` to judge (NumPy writes
    ``[1.0, "1", True, nan]`` as the texts ``"1.0"``, ``"1"``, ``"True"``, ``"nan"``: a float
    would split query 1, a bool or a NaN would become a query)."""
    a = np.asarray(values)
    if a.dtype.kind == "U" and not isinstance(values, np.ndarray) and a.ndim == 1:
        items = list(values)  # type: ignore[call-overload]
        if any(not issubclass(t, str) for t in set(map(type, items))) or (
                "\0\n" in "\n".join(items) + "\n"):  # all text here: one pass in C
            return np.asarray(items, dtype=object)
    if a.dtype.kind in "iuf" and not isinstance(values, np.ndarray) and a.ndim == 1:
        items = list(values)  # type: ignore[call-overload]
        if any(isinstance(v, bool | np.bool_) for v in items):  # [True, 1]: NumPy makes 1, 1
            return np.asarray(items, dtype=object)
    return a


#: The most bytes an array of ids may take as NumPy's fixed-width text (4 bytes a character,
#: every id as wide as the longest): one 1 MB document id among 100,000 run lines would ask for
#: 391 GiB (a ``MemoryError``), so such a file is refused naming the long id's line instead.
MAX_ID_ARRAY_BYTES = 1 << 30


def text_array(texts: list[str], *, what: str, path: PathLike | None = None,
               lines: list[int] | None = None, column: str | None = None) -> np.ndarray:
    """``texts`` as NumPy fixed-width text, or a :class:`DataError` when that array would take
    more than :data:`MAX_ID_ARRAY_BYTES` (see there), naming the longest id's line (``lines``:
    each text's line in ``path``; else its row, from 1), its length and the length allowed."""
    if not texts:
        return np.asarray(texts, dtype=str)
    longest = max(map(len, texts))
    if 4 * longest * len(texts) > MAX_ID_ARRAY_BYTES:
        i = next(k for k, t in enumerate(texts) if len(t) == longest)
        allowed = MAX_ID_ARRAY_BYTES // (4 * len(texts))
        where: dict[str, int] = {"line": lines[i]} if lines is not None else {"row": i + 1}
        raise DataError(f"{what} {texts[i][:20]!r}... is {longest:,} characters long: with "
                        f"{len(texts):,} ids, expected ids of at most {allowed:,} characters "
                        "(ids are held as fixed-width text, each as wide as the longest)",
                        path=path, column=column, **where)
    return np.asarray(texts, dtype=str)


def shown_key(text: str) -> str:
    """``text`` as it shows: NFKC (NFC and NFD forms of ``café`` one, a full-width ``１`` the
    digit ``1``) without format characters (zero-width spaces, bidirectional controls)."""
    visible = "".join(c for c in text if unicodedata.category(c) != "Cf")
    return unicodedata.normalize("NFKC", visible)


def non_ascii_rows(*columns: np.ndarray) -> np.ndarray:
    """Whether each row of the equally long text ``columns`` holds a character outside ASCII."""
    mask = np.zeros(columns[0].shape[0], dtype=bool)
    for col in columns:
        a = np.ascontiguousarray(col)
        if a.dtype.kind == "U" and a.dtype.itemsize:
            mask |= (a.view(np.uint32).reshape(a.shape[0], -1) >= 128).any(axis=1)
        elif a.dtype.kind != "U":
            mask |= np.array([not str(v).isascii() for v in a.tolist()], dtype=bool)
    return mask


Pair = tuple[str, str]


def _shows_as_written(columns: tuple[np.ndarray, ...], rows: np.ndarray) -> bool:
    """Whether every id of ``columns`` in ``rows`` already shows as written (:func:`shown_key`
    is the identity on it): one NFKC check over all of them joined, in C, and the category of
    each distinct character (no format character)."""
    for col in columns:
        picked = np.asarray(col)[rows]
        texts = picked.tolist() if picked.dtype.kind == "U" else [str(v) for v in picked]
        joined = "\x1f".join(texts)
        if not unicodedata.is_normalized("NFKC", joined) or any(
                unicodedata.category(c) == "Cf" for c in set(joined)):
            return False
    return True


def written_alike(judged: tuple[np.ndarray, np.ndarray], run: tuple[np.ndarray, np.ndarray]
                  ) -> tuple[Pair, Pair, int] | None:
    """The first run (query, document) pair that is no judged pair as text but is one as it
    shows (:func:`shown_key`), that judged pair, and how many run pairs are so; ``None`` when
    none is. trec_eval compares bytes: such a document is unjudged to it, and to ltrbench,
    which says so rather than silently grading it 0. At once when every id is ASCII, or when
    every id already shows as written (the common case, checked over whole columns in C); only
    otherwise are the pairs looked at one by one."""
    nq, nr = non_ascii_rows(*judged), non_ascii_rows(*run)
    if not (nq.any() or nr.any()) or (_shows_as_written(judged, nq)
                                      and _shows_as_written(run, nr)):
        return None
    pairs = set(zip(judged[0].tolist(), judged[1].tolist(), strict=True))
    keyed = {(shown_key(q), shown_key(d)): (q, d) for q, d in
             zip(judged[0][nq].tolist(), judged[1][nq].tolist(), strict=True)}
    rq, rd = run[0].tolist(), run[1].tolist()
    first: tuple[Pair, Pair] | None = None
    count = 0
    for i in (range(len(rq)) if nq.any() else np.flatnonzero(nr).tolist()):
        pair = (rq[i], rd[i])
        if pair in pairs:
            continue
        key = (shown_key(pair[0]), shown_key(pair[1])) if nr[i] else pair
        hit = keyed.get(key) or (key if key in pairs else None)
        if hit is not None:
            count += 1
            first = first or (pair, hit)
    return None if first is None else (*first, count)
