"""The input discipline of every path into ltrbench: files, DataFrames, dicts, arrays, shards.

This module is the one place the rules are written down; every reader cites it.

**Line ends.** LF, CRLF and a lone CR (classic Mac OS) each end a line, in every text reader:
TREC qrels and runs, scores files (:func:`text_lines`), SVMlight/LETOR files and their
``.query`` sidecars (:mod:`bench.data.svmlight_parse` turns a lone CR into LF before scanning,
byte for byte, so offsets and line numbers stay those of the file), ratings CSV/TSV and
MovieLens files (pandas' C parser and Python's universal newlines read a lone CR as a line end
too). These are Python's universal newlines, and what trec_eval's peers do with a CR-only run
(pytrec_eval and ir_measures read it as lines). Line numbers count lines so ended, from 1.
No other character ends a line or hides in one (:func:`stray_character`, applied by
:func:`text_lines`, to ratings tables' headers and text ids, and named in SVMlight errors): a
NUL byte (UTF-16 without a byte-order mark), a byte-order mark inside a file (two files
joined), VT, FF, NEL, U+2028/U+2029 are errors naming line and column (in SVMlight files too,
where sklearn's reader takes VT and FF for white space).

**Ids.** Query and document ids compare as their text on every path: ``7`` and ``"7"`` are one
query (a TREC file has only text), in files, DataFrames, dicts, ranx objects, arrays and
Parquet shards. An integer id becomes its decimal text; a float, bool or missing id among
text ids is an error naming the column (or the dict keys), since ``1.0`` and ``True`` have no
one text (:func:`text_ids`); so is a text id that is empty, has white space at either end or
holds a line end (``"a "`` would be a query apart from ``"a"``, and no TREC file can hold it;
a ratings table's cells are CSV fields, whose surrounding spaces the reader strips). A column without text (integers, floats) keeps its values (they
compare as numbers). Parquet shards are one table: a ``qid`` column whose type differs between
two shards (an integer in one, text in another) is an error naming both files, and a label or
score column must be numeric in every shard (:func:`bench.data.query_shards.shard_columns`).

**Scores.** Every column is type-checked before any arithmetic. Scores are ranked as float64;
an integer score a float64 cannot hold exactly (beyond 2^53 in magnitude, e.g. 2^60 + 1) would
silently tie with its neighbours, so it is an error naming the column (or keys, or file:line)
(:func:`check_exact_integers`). Likewise two distinct decimal scores of one query that parse
to the same float64 (``0.10000000000000000001`` and ``0.1``) are an error naming file:line and
both texts in TREC runs and scores files (:func:`refuse_decimal_ties`; ``1.0`` and ``1.00`` are
one decimal and stay accepted). NaN and infinite scores are refused; text in a score or label
column is refused (no lax ``"1_0"`` parsing), never converted.

**Where.** Every error is a :class:`~bench.errors.DataError` naming the file (the shard file of
a Dask partition; ``DataFrame`` and the column for a frame; the keys ``['u']['a']`` for a dict),
the user's line (1-based in the file) or row (1-based in the frame / array / shard), the column
and what was expected. A failed write (a full disk) is an ``OSError`` naming the destination
path (:mod:`bench.data.atomic`).

The rest of this module is the input layer the text readers go through: open a file, check its
encoding, parse numbers.

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
from collections.abc import Iterator, Sequence
from decimal import Decimal
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from bench.data.big_ints import digit_count, int_text
from bench.data.compressed import HEAD, refuse_compressed
from bench.data.folder_names import missing_note
from bench.data.input_ids import UTF8_BOM as UTF8_BOM
from bench.data.input_ids import dos_eof_hint as dos_eof_hint
from bench.data.input_ids import space_hint as space_hint
from bench.data.input_ids import stray_character as stray_character
from bench.data.input_ids import text_ids as text_ids
from bench.data.subnormal import FLUSH_CAUSE, flushes_subnormals
from bench.errors import DataError

PathLike = str | os.PathLike[str]

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
_WIDE_BOMS = (
    (b"\x00\x00\xfe\xff", "UTF-32 (big-endian)"),
    (b"\xff\xfe\x00\x00", "UTF-32 (little-endian)"),
    (b"\xfe\xff", "UTF-16 (big-endian)"),
    (b"\xff\xfe", "UTF-16 (little-endian)"),
)
_INT = re.compile(rb"[+-]?[0-9]+")
#: A plain decimal number as a pattern (the Dask reader matches text cells with it too).
PLAIN_FLOAT = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_FLOAT = re.compile(PLAIN_FLOAT.encode())
NUMBER_FORMS = "e.g. 2, 0.5, -3 or 1.5e-4; no '_', hex, inf or nan"


def _kind_of(mode: int) -> str:
    """What a path that is not a regular file is, and what to do, for :func:`check_input_file`:
    a script's ``--run <(sort run.txt)`` or ``cat run.txt | ltrbench ... --run /dev/stdin`` is
    a pipe, which ltrbench cannot take (an input is read more than once: its kind sniffed, its
    digest recorded, its rows parsed), and "is not a regular file" did not say why."""
    if stat.S_ISFIFO(mode):
        return (" (a pipe: a FIFO, a process substitution <(...) or /dev/stdin fed by a pipe; "
                "ltrbench reads an input more than once: write it to a file first)")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return " (a device)"
    if stat.S_ISSOCK(mode):
        return " (a socket)"
    return ""


def check_input_file(path: PathLike, *, expected: str = "a file") -> Path:
    """``path`` as a :class:`Path` once it is known to be a readable regular file.

    A missing path, a directory, something that is not a regular file or a file this process
    may not read is a :class:`DataError` naming the path and saying what was ``expected``.
    """
    if isinstance(path, bytes) or not isinstance(path, str | os.PathLike) \
            or not isinstance(os.fspath(path), str):
        raise DataError(f"{type(path).__name__} {path!r:.60} is not a path: expected {expected} "
                        "(a str or pathlib.Path)")
    if os.fspath(path) == "":  # Path("") is ".", a directory: say what was given
        raise DataError(f"an empty path: expected {expected}", path="''")
    p = Path(path)
    try:
        st = p.stat()
    except FileNotFoundError:
        raise DataError(f"no such file: expected {expected}{missing_note(p)}",  # 'Q.txt' beside
                        path=p) from None
    except OSError as exc:
        raise DataError(f"cannot be read ({exc.strerror}): expected {expected}", path=p) from None
    except ValueError:  # os.stat: "embedded null byte"
        raise DataError(f"the path holds a NUL byte: expected {expected}",
                        path=repr(os.fspath(path))) from None
    if stat.S_ISDIR(st.st_mode):
        raise DataError(f"is a directory: expected {expected}", path=p)
    if not stat.S_ISREG(st.st_mode):
        raise DataError(f"is not a regular file{_kind_of(st.st_mode)}: expected {expected}",
                        path=p)
    try:
        with open(p, "rb"):
            pass
    except OSError as exc:
        raise DataError(f"cannot be read ({exc.strerror}): expected {expected}", path=p) from None
    return p


def bom_length(head: bytes, path: PathLike) -> int:
    """How many bytes of a byte-order mark start ``head`` (the first bytes of ``path``).

    3 for a UTF-8 mark, 0 for none; a UTF-16/UTF-32 mark is a :class:`DataError` (the readers
    take UTF-8 text only), and so is a compressed file (:mod:`bench.data.compressed`).
    """
    refuse_compressed(head, path)  # (a web page after a UTF-8 mark too)
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


def text_lines(path: PathLike, *, expected: str = "a text file",
               plain: bool = True) -> Iterator[tuple[int, bytes]]:
    """``(line number, line)`` of a UTF-8 text file, lines as bytes without the line end.

    Opens through :func:`check_input_file`, skips a UTF-8 byte-order mark, refuses UTF-16 and
    UTF-32 and names the first line that is not valid UTF-8. LF, CRLF and a lone CR each end a
    line (the module doc's rule); a file ending without a line end has a last line all the same.
    Lines are bytes so that callers split them on ASCII white space only (``bytes.split()``) and
    decode the fields they keep. ``plain`` (default) also refuses the characters of
    :func:`stray_character` (a NUL byte, a byte-order mark inside the file, a line separator
    other than LF/CR) naming the line and column.
    """
    p = check_input_file(path, expected=expected)
    lineno = 0
    with open(p, "rb") as fh:  # the head judged before a first "line" of a GB is read
        fh.seek(bom_length(fh.read(HEAD), p))
        for chunk in fh:  # split on LF; a lone CR inside a chunk ends a line too
            body = chunk[:-1] if chunk.endswith(b"\n") else chunk
            if body.endswith(b"\r"):
                body = body[:-1]  # CRLF
            for raw in body.split(b"\r") if b"\r" in body else (body,):
                lineno += 1
                try:
                    raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise DataError(
                        f"not UTF-8 text (byte {raw[exc.start]:#04x} at column {exc.start + 1})",
                        path=p,
                        line=lineno,
                    ) from None
                if plain:
                    stray = stray_character(raw)
                    if stray is not None:
                        raise DataError(stray, path=p, line=lineno)
                yield lineno, raw


def line_of_data_row(path: PathLike, row: int, *, comment: bytes = b"#") -> int | None:
    """The 1-based line of data row ``row`` (1-based) of a text file whose blank lines and
    lines holding only a ``comment`` are not rows (SVMlight/LETOR); ``None`` past the last row.

    Lines end at LF, CRLF or a lone CR, as in every reader. Reads the file (error paths only).
    """
    seen = 0
    for lineno, raw in text_lines(path, expected="a text file of data rows", plain=False):
        if raw.split(comment, 1)[0].strip():
            seen += 1
            if seen == row:
                return lineno
    return None


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
                        "optional sign; no '_', hex, decimal point or spaces)"
                        f"{comma_hint(raw)}{dos_eof_hint(raw)}{space_hint(raw)}",
                        path=path, line=line, row=row, column=column)
    widest = max(digit_count(str(low)), digit_count(str(high)))
    value = int(raw) if digit_count(raw) <= widest else (high + 1 if raw[:1] != b"-" else low - 1)
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
    exact_integers: bool | None = None,
) -> float:
    """A strict, finite decimal number (see the module doc for the grammar) as a float64.

    ``0_4``, ``0x1p-2``, ``inf``, ``nan``, ``1e400`` (not finite as a float64) and the like are
    a :class:`DataError` naming ``what``, the token and the location. ``exact_integers``
    (default: when ``what`` is ``"score"``, so every scores reader gets it): an integer
    spelling a float64 cannot hold exactly (``9007199254740993``) is an error too, as it would
    tie with its neighbours.
    """
    if exact_integers is None:
        exact_integers = what == "score"
    raw = token.encode("utf-8", "replace") if isinstance(token, str) else token
    if _FLOAT.fullmatch(raw) is None:
        raise DataError(f"{what} {_show(raw)} is not a plain decimal number ({NUMBER_FORMS})"
                        f"{comma_hint(raw)}{dos_eof_hint(raw)}{space_hint(raw)}", path=path,
                        line=line, row=row, column=column)
    if exact_integers and 15 < len(raw) <= 400 and _INT.fullmatch(raw) is not None:
        whole = int(raw)  # beyond a float64 (310 digits and up): float(raw) below says so
        if TWO53 < abs(whole) <= _FLOAT64_MAX_INT and int(float(whole)) != whole:
            raise DataError(inexact_message(what, whole), path=path, line=line, row=row,
                            column=column)
    value = float(raw)
    if not math.isfinite(value):
        raise DataError(f"{what} {_show(raw)} is beyond the range of a float64 (|x| > 1.8e308)",
                        path=path, line=line, row=row, column=column)
    return value


#: ``4,5`` / ``-0,25`` (a decimal comma) or ``1,000`` / ``12,345,678.5`` (thousands grouped).
_COMMA_NUMBER = re.compile(rb"[-+]?(?:[0-9]+,[0-9]+|[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?)")


def comma_hint(raw: bytes | str) -> str:
    """What a number with a comma was likely meant as: a spreadsheet's decimal comma (``4,5``)
    or thousands separator (``1,000``), each a different number, so neither is guessed."""
    raw = raw.encode("utf-8", "replace") if isinstance(raw, str) else raw
    if _COMMA_NUMBER.fullmatch(raw) is None:  # '0.9,1' is two fields, no such number
        return ""
    return ("; a decimal comma or a thousands separator (a spreadsheet's export in a locale "
            "that writes 4,5 or 1,000)? export the numbers with '.' as the decimal point and no "
            "grouping")


TWO53 = 2**53
#: The largest integer a float64 rounds to a finite value (``float(v)`` raises beyond it).
_FLOAT64_MAX_INT = int(np.finfo(np.float64).max)


def inexact_message(what: str, value: object) -> str:
    """The error text of an integer ``value`` that a float64 cannot hold exactly."""
    v = int(value)  # type: ignore[call-overload]
    if abs(v) > _FLOAT64_MAX_INT:  # 10**400: no float64 at all (float() would overflow)
        return (f"{what} {int_text(v)} is an integer beyond the range of a float64 (|x| > 1.8e308): "
                "expected integers within +-2^53, or floats")
    return (f"{what} {int_text(v)} is an integer beyond 2^53 that a float64 cannot hold exactly (it would "
            f"be ranked as {float(v)!r}, tied with its neighbours): expected integers within "
            "+-2^53, or floats")


def first_inexact_integer(values: object) -> int:
    """Index of the first integer in ``values`` that a float64 cannot hold exactly, or -1.

    Integer arrays (int64, uint64) are checked vectorised; an object array checks its Python and
    NumPy integers (``np.int64`` too; bools are not numbers here); float arrays have nothing to
    lose (-1).
    """
    a = np.asarray(values) if not isinstance(values, np.ndarray) else values
    if a.dtype.kind in "iu":
        f = a.astype(np.float64)
        big = np.flatnonzero(np.abs(f) >= float(TWO53))  # 2^53 + 1 rounds to 2^53
        if not big.shape[0]:
            return -1
        sub, fs = a[big], f[big]
        inside = (fs < 2.0**63) if a.dtype.kind == "i" else (fs < 2.0**64)
        back = np.zeros_like(sub)
        back[inside] = fs[inside].astype(a.dtype)
        bad = np.flatnonzero(~inside | (back != sub))
        return int(big[bad[0]]) if bad.shape[0] else -1
    if a.dtype.kind == "O":  # Python ints, and NumPy's (a dict's np.int64, pd.concat's objects)
        for i, v in enumerate(int(x) if isinstance(x, np.integer) else x for x in a.tolist()):
            if isinstance(v, int) and not isinstance(v, bool) and abs(v) > TWO53 \
                    and (abs(v) > _FLOAT64_MAX_INT or int(float(v)) != v):
                return i
    return -1


def extended_precision_tie(values: object) -> tuple[int, int] | None:
    """Rows ``(i, j)``, ``i < j``, of two scores that differ as given but are one float64, or
    ``None``: an extended-precision float array (``float128`` / long double, kind ``f`` wider
    than 8 bytes) or an object array holding such NumPy scalars (a pandas column of them). They
    would be ranked as a tie without a word, as integers beyond 2^53 would
    (:func:`first_inexact_integer`); every path refuses them (:func:`extended_tie_message`)."""
    a = np.asarray(values) if not isinstance(values, np.ndarray) else values
    if a.dtype.kind == "f" and a.dtype.itemsize > 8:
        raw = a.ravel()
    elif a.dtype.kind == "O":
        items = a.ravel().tolist()
        if not any(isinstance(v, np.floating) and v.dtype.itemsize > 8 for v in items):
            return None
        raw = np.array([v if isinstance(v, int | float | np.integer | np.floating)
                        and not isinstance(v, bool | np.bool_) else np.nan for v in items],
                       dtype=np.longdouble)
    else:
        return None
    order = np.argsort(raw, kind="stable")
    s = raw[order]
    d = s.astype(np.float64)
    clash = np.flatnonzero((s[1:] != s[:-1]) & (d[1:] == d[:-1]))
    if not clash.shape[0]:
        return None
    i, j = sorted((int(order[clash[0]]), int(order[clash[0] + 1])))
    return i, j


def extended_tie_message(what: str, values: object, i: int, j: int,
                         places: tuple[str, str] | None = None) -> str:
    """The error text of :func:`extended_precision_tie`'s rows ``i`` and ``j`` (0-based), or of
    the two ``places`` given (a dict's keys ``['q']['d']``)."""
    a = np.asarray(values)
    v = a.ravel()[j]
    kind = a.dtype if a.dtype.kind == "f" else np.asarray(v).dtype
    at = f"at {places[0]} and {places[1]}" if places else f"at rows {i + 1} and {j + 1}"
    return (f"{what}s {at} differ in {kind} but are equal as float64 ({float(v)!r}): they would "
            f"be ranked as a tie; expected {what}s that float64 tells apart (round them with "
            ".astype('float64') first if a tie is meant)")


def _repeated_pairs(codes: NDArray[np.intp], values: NDArray[np.float64]) -> NDArray[np.intp]:
    """Rows whose ``(code, value)`` pair occurs more than once (NaN equal to NaN), ascending."""
    order = np.lexsort((values, codes))
    c, v = codes[order], values[order]
    same = (c[1:] == c[:-1]) & ((v[1:] == v[:-1]) | (np.isnan(v[1:]) & np.isnan(v[:-1])))
    mark = np.zeros(order.shape[0], dtype=bool)
    mark[1:] |= same
    mark[:-1] |= same
    return np.sort(order[mark])


_SMALLEST_NORMAL = Decimal(2) ** -1022


def refuse_decimal_ties(groups: object, values: NDArray[np.float64], texts: Sequence[str],
                        *, lines: Sequence[int] | None = None, what: str = "score",
                        path: PathLike | None = None) -> None:
    """Refuse two distinct decimal scores of one group (query) that are equal as float64.

    ``0.10000000000000000001`` and ``0.1`` (or ``1e-400`` and ``0``) parse to the same float64,
    so they would be ranked as a tie; trec_eval reads scores with ``atof`` and ties them
    (``get_trec_results.c``), as pytrec_eval does. As for an integer beyond 2^53
    (:func:`parse_float`), that is an error naming ``file:line`` and both texts. Equal decimals
    (``1.0`` and ``1.00``) are one score. Only pairs tied as float64 are compared as decimals
    (``values[i]`` was parsed from ``texts[i]``; ``lines[i]`` is its line, default ``i + 1``).
    """
    g = np.asarray(groups)
    if values.shape[0] < 2:
        return
    if g.dtype.kind == "O":  # 1 and "1" one query (text_ids); np.unique cannot order a mix
        g = np.asarray([str(v) for v in text_ids(g).tolist()], dtype=str)
    _, seen_at, inverse = np.unique(g, return_index=True, return_inverse=True)
    codes = np.argsort(np.argsort(seen_at))[inverse.ravel()]  # numbered by first appearance
    maybe = _repeated_pairs(codes, values)
    if not maybe.shape[0]:
        return
    order = maybe[np.lexsort((values[maybe], codes[maybe]))]
    v, gs = values[order], codes[order]
    tied = np.flatnonzero((v[1:] == v[:-1]) & (gs[1:] == gs[:-1]))
    if not tied.shape[0]:
        return
    t = np.asarray(texts, dtype=object)[order]
    for k in tied[t[tied + 1] != t[tied]].tolist():  # tied floats, different texts
        a, b = int(order[k]), int(order[k + 1])
        if Decimal(texts[a]) == Decimal(texts[b]):
            continue
        first, later = sorted((a, b))
        line_of = (lambda i: lines[i]) if lines is not None else (lambda i: i + 1)
        tiny = [i for i in (first, later) if 0 < abs(Decimal(texts[i])) < _SMALLEST_NORMAL]
        if tiny and flushes_subnormals():  # tied by FTZ/DAZ (parsed as 0), not by float64
            i = tiny[0]
            raise DataError(f"{what} {texts[i]!r} is below the smallest normal number, 2**-1022, "
                            f"and {FLUSH_CAUSE}", path=path, line=line_of(i), column=what)
        raise DataError(
            f"{what} {texts[later]!r} and {what} {texts[first]!r} (line {line_of(first)}) of "
            f"query {str(g[first])!r} are distinct decimals that a float64 cannot tell apart (both are "
            f"{float(values[first])!r}): they would be ranked as a tie, as trec_eval's atof "
            "ties them; expected scores that differ within float64 precision (about 15 "
            "significant digits)", path=path, line=line_of(later), column=what)


#: Cells a text table reader takes for a missing value (pandas' default ``na_values``,
#: ``pandas.read_csv`` docs), and ``\\N``, the NULL of a database dump (MySQL's ``SELECT ...
#: INTO OUTFILE`` and ``mysqldump --tab``, PostgreSQL's ``COPY`` text format): in an id column of
#: a ratings file they are refused as missing, never read as an id (``NA`` or ``\\N`` would
#: become one user holding every row without a user).
DUMP_NULL = "\\N"
MISSING_SPELLINGS = frozenset({
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null", DUMP_NULL})

#: The characters of :func:`stray_character`, as a ``str`` pattern for a column of text cells.
STRAY_TEXT = "[\x00\x0b\x0c\x1c-\x1e\x85\u2028\u2029\ufeff]"


def id_cell_problem(cell: str) -> str | None:
    """Why the text id ``cell`` (as written) is no id, or ``None``: a stray character
    (:func:`stray_character`: ``\ufeff1`` would be a user apart from ``1``) or a spelling of a
    missing value (:data:`MISSING_SPELLINGS`: ``NA`` would be one user holding every row without
    a user) or a spreadsheet's error value, placeholder or locale-written number
    (:func:`bench.data.sheet_cells.sheet_id_problem`). The rule of every ratings reader (local
    :mod:`bench.data.tabular`, Dask :mod:`bench.data.dask_ratings`)."""
    from bench.data.sheet_cells import sheet_id_problem

    why = stray_character(cell.encode("utf-8", "replace"))
    if why is None and cell.strip() in MISSING_SPELLINGS:
        source = ("a database dump's NULL (MySQL, PostgreSQL COPY)" if cell.strip() == DUMP_NULL
                  else "pandas reads it as NaN")
        why = (f"id {cell.strip()!r} is a spelling of a missing value ({source}): "
               "expected an id in every row")
    return why or sheet_id_problem(cell)


def is_plain_int(token: bytes | str) -> bool:
    """Whether ``token`` is a plain integer spelling: an optional sign and ASCII digits (``1_0``,
    ``２０`` and ``٢٠`` are not; Python's ``int`` reads all three)."""
    raw = token.encode("utf-8", "replace") if isinstance(token, str) else token
    return _INT.fullmatch(raw) is not None


#: A float as an option or a search space writes it: ASCII digits, one point, an exponent; or
#: nan / inf / infinity (which the checks of each value then refuse by name where they do not
#: apply). Looser than :func:`is_plain_float`, the data files' rule.
_OPTION_FLOAT = re.compile(r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|nan|inf|infinity)",
                           re.IGNORECASE)


def is_option_float(text: str) -> bool:
    """Whether ``text`` spells a float as an option may (:data:`_OPTION_FLOAT`): ASCII only, so
    a fullwidth ``１.５`` that ``float()`` would read is not one."""
    return text.isascii() and _OPTION_FLOAT.fullmatch(text) is not None


def is_plain_float(token: bytes | str) -> bool:
    """Whether ``token`` is a plain decimal number spelling (no finiteness check)."""
    raw = token.encode("utf-8", "replace") if isinstance(token, str) else token
    return _FLOAT.fullmatch(raw) is not None


def _show(raw: bytes) -> str:
    text = raw.decode("utf-8", "replace")
    return repr(text if len(text) <= 40 else text[:37] + "...")
