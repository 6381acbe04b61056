"""Field counts of a delimited text file (CSV, TSV): every line has the fields of the first.

``pandas.read_csv`` with ``usecols`` silently drops the extra fields of a line (and its C
parser raises only without ``usecols``), so a line ``1,5,3,999,4`` under the header
``user,item,rating,timestamp`` would lose a value, or hide a shifted row, without a word.
:func:`check_field_counts` reads the file once more, in blocks, and names the first line whose
field count differs. Lines end as in every reader of :mod:`bench.data.inputs` (LF, CRLF, a lone
CR); blank lines are not rows; a file holding a double quote is counted by :mod:`csv` (a quoted
field may hold the separator or a line end). The same pass refuses the characters no text
reader lets through (:func:`bench.data.inputs.stray_character`: a NUL byte, an inner
byte-order mark, a VT, FF, NEL or U+2028 line end) on any line, in any field: pandas would
strip a VT from ``2\x0b`` and read the user ``2``, where the TREC and SVMlight readers refuse
the line.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bench.data.compressed import HEAD
from bench.data.input_ids import STRAY_BYTES
from bench.data.inputs import bom_length, dos_eof_hint, space_hint, stray_character
from bench.errors import DataError


def check_field_counts(p: Path, sep: str, names: list[str] | None = None) -> np.ndarray | None:
    """Every non-blank line has the fields of the first (the header), else a DataError naming
    the line: with ``usecols`` pandas silently drops a line's extra fields, so ``1,5,3,999,4``
    under ``user,item,rating,timestamp`` would lose a value or hide a shifted row. Lines end
    as in every reader (LF, CRLF, a lone CR: :mod:`bench.data.inputs`); the file is read in
    blocks, separators counted with NumPy. A file holding quotes is counted by :mod:`csv` (a
    quoted field may hold the separator or a line end). A stray character is refused naming
    its line and, with the header's ``names``, its column.

    Returns the file line on which each record (the header included) starts, or ``None`` when
    record ``i`` is line ``i + 1``: pandas skips blank lines and reads a quoted line end as
    part of a field, so its row numbers are not the file's lines after either (an error
    named line 3 for a value on line 5)."""
    import csv

    expected, done, rest, blanks = None, 0, b"", []
    with open(p, "rb") as fh:
        fh.seek(bom_length(fh.read(HEAD), p))
        while True:
            block = fh.read(1 << 24)
            data = rest + block
            cut = len(data) if not block else data.rfind(b"\n") + 1
            data, rest = data[:cut], data[cut:]
            if b'"' in data:
                break
            lf = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n") if b"\r" in data else data
            _refuse_stray(p, lf, done, sep, names)
            counts = _separators_per_line(lf, sep)
            filled = np.flatnonzero(counts >= 0)
            blanks.append(done + 1 + np.flatnonzero(counts < 0))
            if expected is None and filled.shape[0]:
                expected = int(counts[filled[0]])
            wrong = filled[counts[filled] != expected]
            if wrong.shape[0]:
                k = int(wrong[0])
                raise _misfit(p, done + k + 1, int(counts[k]) + 1, int(expected or 0) + 1,
                              lf.split(b"\n", k + 1)[k])
            done += counts.shape[0]
            if not block:
                return _record_lines(np.concatenate(blanks), done)
    _refuse_stray_in_file(p, sep, names)
    starts: list[int] = []
    with open(p, encoding="utf-8", errors="replace", newline="") as text:
        reader = csv.reader(text, delimiter=sep, skipinitialspace=True)  # as pandas reads it
        before = 0
        for row in reader:
            if row and (len(row) > 1 or row[0].strip()):  # pandas' records: not blank lines
                starts.append(before + 1)
            if row and any(f.strip() for f in row):
                expected = len(row) if expected is None else expected
                if len(row) != expected:
                    raise _misfit(p, reader.line_num, len(row), expected, row)
            before = reader.line_num
    lines = np.asarray(starts, dtype=np.int64)
    return None if np.array_equal(lines, np.arange(1, lines.shape[0] + 1)) else lines


def _record_lines(blanks: np.ndarray, n_lines: int) -> np.ndarray | None:
    """The line of each non-blank line of a file of ``n_lines`` lines whose blank lines are
    ``blanks`` (sorted, 1-based); ``None`` without a blank line before the last record."""
    if not blanks.shape[0] or blanks[0] > n_lines - blanks.shape[0]:  # none, or only at the end
        return None
    keep = np.ones(n_lines, dtype=bool)
    keep[blanks - 1] = False
    return np.flatnonzero(keep).astype(np.int64) + 1


def header_fields(line: str, sep: str) -> list[str]:
    """The fields of a header line as pandas and :mod:`csv` read them: a quoted name may hold
    the separator (``"item, id"``) or a doubled quote. A plain ``split`` made ``"note, x"`` two
    names, so every column after it was taken one place to the right: the ratings read the
    next column's values without a word. Spaces before a field are skipped, as the readers
    read the data lines (``skipinitialspace``): ``"user", "item"`` names ``item``, not
    ``"item"`` with its quotes."""
    if '"' not in line or len(sep) != 1:
        return line.split(sep)
    import csv

    return next(csv.reader([line], delimiter=sep, skipinitialspace=True), [""])


def refuse_separator_line(first: str, p: Path | str) -> None:
    """Line 1 ``sep=;`` (the separator line Excel writes above a table, and reads back) is no
    header and no data: a DataError naming it, for every ratings reader (local with or without
    a header, Dask), before a column is looked up in it or it is read as a user ``sep=``. So is a
    line 1 that is a JSON object or array (a ``.jsonl`` / ``.ndjson`` export, BigQuery's
    NEWLINE_DELIMITED_JSON): its "columns" would be ``{"user":1`` and ``rating:3``."""
    import re

    refuse_json_lines(first, p)
    if re.fullmatch(r"sep=.{1,3}", first.strip()):
        raise DataError(f"line 1, {first.strip()!r}, is the separator line a spreadsheet (Excel) "
                        "writes above the table: expected the header (or, without one, the "
                        "first data line); delete it so that the table starts at line 1, and "
                        "give the separator with --sep (sep= in Python)", path=p, line=1)


def refuse_json_lines(first: str, p: Path | str) -> None:
    """A DataError when line 1 is a JSON object (JSON Lines) or opens a JSON array."""
    line = first.strip()
    if (line.startswith("{") and line.endswith("}")) or line.startswith(("[{", "[\"", "[]")):
        raise DataError("line 1 is JSON, not a table's header or first row (a JSON Lines / "
                        "NDJSON export?): ratings are read from CSV, TSV or Parquet; write it as "
                        "one, e.g. pandas.read_json(path, lines=True).to_parquet("
                        "'ratings.parquet')", path=p, line=1)


def header_names(line: str, sep: str) -> list[str]:
    """The column names of a header line: :func:`header_fields` without the blanks around
    them (and, under a separator of several characters, without their quotes)."""
    if '"' in line and len(sep) == 1:
        return [f.strip() for f in header_fields(line, sep)]
    return [f.strip().strip('"') for f in line.split(sep)]


def check_column_once(names: list[str], role: str, column: str, p: Path | str, *,
                      line: int | None = 1) -> None:
    """A DataError naming ``p`` (its header ``line``; ``None``: a Parquet schema), the
    ``role``'s ``column`` and how often it appears when ``names`` hold it more than once:
    pandas would read the first and rename the other (``rating.1``), Parquet allows both, and
    which one is meant cannot be told."""
    if names.count(column) > 1:
        where = "the header" if line is not None else "the file's columns"
        raise DataError(f"{role} column {column!r} appears {names.count(column)} times in "
                        f"{where} {names}: expected one column of that name", path=p, line=line,
                        column=column)


def _separators_per_line(data: bytes, sep: str) -> np.ndarray:
    """Separators on each LF-ended line of ``data`` (the last line may lack its LF); -1 for a
    blank line."""
    if not data:
        return np.zeros(0, dtype=np.int64)
    b = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(b == 10)
    if not ends.shape[0] or ends[-1] != b.shape[0] - 1:
        ends = np.append(ends, b.shape[0])
    starts = np.concatenate(([0], ends[:-1] + 1))
    if len(sep.encode()) == 1:
        at = np.flatnonzero(b == sep.encode()[0])
        counts = np.searchsorted(at, ends) - np.searchsorted(at, starts)
    else:
        counts = np.asarray([data[a:z].count(sep.encode()) for a, z in zip(starts, ends, strict=True)],
                            dtype=np.int64)
    blank = np.asarray([not data[a:z].strip() for a, z in zip(starts, ends, strict=True)]) \
        if (counts == 0).any() else np.zeros(counts.shape[0], dtype=bool)
    return np.where(blank, -1, counts)


def _misfit(p: Path, line: int, fields: int, expected: int,
            text: bytes | list[str]) -> DataError:
    joined = text if isinstance(text, bytes) else " ".join(text)  # '1\u00a01\t4': a pasted space
    return DataError(f"{fields} fields, expected {expected} as on the first line: a field too "
                     f"many or too few would shift or hide a value{dos_eof_hint(text)}"
                     f"{space_hint(joined)}", path=p, line=line)


def _refuse_stray(p: Path, lf: bytes, done: int, sep: str, names: list[str] | None) -> None:
    """A DataError naming the line (``done`` lines before ``lf``, whose lines end at LF), the
    field (its header name in ``names``) and the character column of the first stray character
    (:func:`bench.data.inputs.stray_character`) in ``lf``."""
    m = STRAY_BYTES.search(lf)
    if m is None:
        return
    start = lf.rfind(b"\n", 0, m.start()) + 1
    end = lf.find(b"\n", m.start())
    line = lf[start:] if end < 0 else lf[start:end]
    field = lf[start:m.start()].count(sep.encode())
    raise DataError(stray_character(line) or "a stray character", path=p,
                    line=done + lf.count(b"\n", 0, start) + 1,
                    column=names[field] if names and field < len(names) else None)


def _refuse_stray_in_file(p: Path, sep: str, names: list[str] | None) -> None:
    """:func:`_refuse_stray` over the whole file (the quoted path, read by :mod:`csv`)."""
    done, rest = 0, b""
    with open(p, "rb") as fh:
        fh.seek(bom_length(fh.read(HEAD), p))
        while True:
            block = fh.read(1 << 24)
            data = rest + block
            cut = len(data) if not block else data.rfind(b"\n") + 1
            data, rest = data[:cut], data[cut:]
            lf = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n") if b"\r" in data else data
            _refuse_stray(p, lf, done, sep, names)
            done += lf.count(b"\n")
            if not block:
                return


#: A data line equal to the header: files exported (or runs merged) with their headers and
#: joined; the one wording of every table reader (ratings tables, a run's tables, trials.csv).
REPEATED_HEADER = ("this line repeats the header line (tables joined with their headers?): "
                   "expected data; delete the repeated header")


def check_written_csv(p: Path, *, from_line: int = 1) -> None:
    """A CSV table ltrbench wrote (a run's ``metrics.csv`` and ``timings.csv``, a tune's
    ``trials.csv``), held to every text reader's rules before pandas reads it: not empty;
    compressed bytes and UTF-16/UTF-32 text named as every reader names them
    (:func:`bench.data.inputs.bom_length`; it was "cannot read (UnicodeDecodeError: 'utf-8'
    codec can't decode byte 0x8b ...)"); the line and column of a byte that is not UTF-8; and
    no stray character (a NUL, an inner byte-order mark, a VT, FF or NEL: its line and column;
    a NUL in a profile cell was "no 'test' rows for model ..."); no line repeating the header
    (:data:`REPEATED_HEADER`). A :class:`DataError`; stray characters are looked for from line
    ``from_line`` on."""
    with open(p, "rb") as fh:
        head = fh.read(HEAD)
    if not head:
        raise DataError("empty file: expected a header line and rows", path=p)
    start = bom_length(head, p)
    raw = p.read_bytes()
    try:
        raw[start:].decode("utf-8")
    except UnicodeDecodeError as exc:
        at = start + exc.start
        before = raw[:at].replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        column = len(before) - before.rfind(b"\n")
        raise DataError(f"not UTF-8 text (byte {raw[at]:#04x} at column {column}): expected "
                        "a table ltrbench wrote", path=p, line=before.count(b"\n") + 1) from None
    lines = raw[start:].splitlines()
    if STRAY_BYTES.search(raw, start):  # (``from_line`` 2: the caller names its header's own)
        for number, line in enumerate(lines[from_line - 1:], start=from_line):
            if (why := stray_character(line)) is not None:
                raise DataError(why, path=p, line=number)
    again = next((i for i, line in enumerate(lines[1:], start=2) if line == lines[0]), None)
    if again is not None:  # it was "'seed' is 'seed': expected a whole number"
        raise DataError(REPEATED_HEADER, path=p, line=again)


def refuse_cut_table(p: Path, redo: str) -> None:
    """A :class:`DataError` for a table ltrbench wrote whose last line has no line end: the
    file was cut while written or copied, and its last number may be cut too (``0.56`` of
    ``0.5625``, a value pandas reads as written); ``redo`` says what to do."""
    with open(p, "rb") as fh:
        if fh.seek(0, 2) == 0:
            return
        fh.seek(-1, 2)
        if fh.read(1) in (b"\n", b"\r"):
            return
    lines = p.read_bytes().replace(b"\r\n", b"\n").replace(b"\r", b"\n").count(b"\n") + 1
    raise DataError("truncated: the last line has no line end (the file was cut while "
                    f"written or copied); {redo}", path=p, line=lines)
