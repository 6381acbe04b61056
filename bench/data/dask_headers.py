"""The header line and the file-wide text rules of a CSV/TSV shard read by Dask.

Before Dask reads any block of a ratings table (:mod:`bench.data.dask_ratings`), every CSV shard
is held to the local reader's rules (:mod:`bench.data.tabular`, :mod:`bench.data.inputs`,
:mod:`bench.data.delimited`): :func:`csv_header` reads its header line (UTF-8, no stray
character, every column of the table present once; a first line of numbers only is no header,
:func:`refuse_data_line`) and :func:`check_csv_text` its whole text
(UTF-8 throughout, every line with the header's field count), one streamed pass each.
"""

from __future__ import annotations

from pathlib import Path

from bench.errors import DataError


def csv_header(path: Path, sep: str, cols: dict[str, str | None] | None = None) -> list[str]:
    """The column names of a CSV shard's header line, read under the local reader's rules
    (:mod:`bench.data.inputs`: UTF-16/32 refused, no stray character); with ``cols``, a
    DataError naming the file when one of them is absent (every shard of a table has its
    columns) or appears twice (:func:`bench.data.delimited.check_column_once`)."""
    from bench.data.compressed import HEAD
    from bench.data.delimited import (
        check_column_once,
        header_fields,
        header_names,
        refuse_separator_line,
    )
    from bench.data.inputs import bom_length, stray_character

    try:
        with open(path, "rb") as f:
            raw = f.readline()
            head = raw if len(raw) >= HEAD else raw + f.read(HEAD - len(raw))
    except OSError as exc:
        raise DataError(f"cannot read ({exc.strerror})", path=path) from None
    raw = raw[bom_length(head, path):].split(b"\r", 1)[0].rstrip(b"\n")  # CR-only ends too
    why = stray_character(raw)
    if why is not None:  # UTF-16 without a mark, lines ended by U+2028 / FF / NEL
        raise DataError(why, path=path, line=1)
    try:
        first = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise DataError("not UTF-8 text: expected a CSV/TSV file with a header line",
                        path=path, line=1) from None
    if not first:
        raise DataError("empty file: expected a header line naming the columns", path=path, line=1)
    refuse_separator_line(first, path)
    names = header_names(first, sep)  # a quoted name may hold the separator
    needed = [c for c in (cols or {}).values() if c is not None]
    missing = [c for c in needed if c not in names]
    if missing:
        raise DataError(f"no column {', '.join(map(repr, missing))} in the header line; its "
                        f"columns are {', '.join(names[:12])} (every shard of a table has its "
                        "columns)", path=path, line=1, column=missing[0])
    for role, c in (cols or {}).items():
        if c is not None:
            check_column_once(names, role, c, path)
    for written, name in zip(header_fields(first, sep), names, strict=True):  # Dask skips spaces before
        if name in needed and written.lstrip(" ") not in (name, f'"{name}"'):  # a name only
            raise DataError(f"column name {written!r} has blanks the Dask engine reads as part "
                            f"of the name (it skips spaces before a name only): write {name!r}, "
                            "or convert with --engine local", path=path, line=1, column=name)
    return names


def check_csv_text(path: Path, sep: str) -> None:
    """The file-wide rules of the local reader (:mod:`bench.data.tabular`), before Dask reads
    any block: UTF-8 text (the first line that is not is named, by
    :func:`bench.data.inputs.text_lines`) and every line with the fields of the header
    (:func:`bench.data.delimited.check_field_counts`: ``dd.read_csv(usecols=...)`` drops a
    line's extra fields silently). One streamed pass each, in blocks."""
    import codecs

    from bench.data.delimited import check_field_counts
    from bench.data.inputs import text_lines

    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        with open(path, "rb") as fh:
            while block := fh.read(1 << 24):
                decoder.decode(block)
            decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        for _ in text_lines(path, expected="a ratings CSV/TSV file", plain=False):
            pass
    except OSError as exc:
        raise DataError(f"cannot read ({exc.strerror})", path=path) from None
    check_field_counts(path, sep)


def refuse_data_line(names: list[str], sep: str, given: tuple[str | None, ...],
                     path: Path) -> None:
    """A DataError naming ``path``, line 1, when the header line holds numbers only and the
    ``given`` columns are not among them: a file without a header (``ratings.dat``), or columns
    given by position (``--user 0``), which the Dask engine does not read (its columns are
    named by the first line); the local engine reads both."""
    from bench.data.inputs import is_plain_float

    if all(is_plain_float(n.strip()) for n in names) and not set(given) <= set(names):
        raise DataError(f"line 1 ({sep.join(names)[:60]!r}) holds numbers only, not column "
                        "names: the Dask engine reads files whose first line names the "
                        f"columns; add a header (e.g. user{sep}item{sep}rating{sep}timestamp), "
                        "or convert with --engine local, which takes columns by 0-based "
                        "position (--user 0 ...)", path=path, line=1)


__all__ = ["check_csv_text", "csv_header", "refuse_data_line"]
