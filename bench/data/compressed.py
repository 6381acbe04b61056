"""Compressed files given where text is expected: refused, naming the tool that decompresses.

No reader of ltrbench decompresses on the fly (a ``.csv.gz`` would be read by pandas' header
sniffer through gzip and then as raw bytes by the strict reader), and a compressed file's
bytes are no UTF-8 text: without this check the error would be "not UTF-8 text (byte 0x8b at
column 2)" or a malformed label of binary bytes. Signatures: gzip (RFC 1952 2.3.1), xz
(xz file format 2.1.1.1), zstd (RFC 8878 3.1.1), zip (PKWARE APPNOTE 4.3.7), bzip2 (``BZh`` +
block size + the block magic 0x314159265359 or the end-of-stream magic 0x177245385090: ten
bytes, so that text starting ``BZh9`` stays text), lz4 (frame format, magic 0x184D2204), 7-Zip
(bytes 37 7A BC AF 27 1C), RAR (``Rar!`` 1A 07: LETOR 4.0's MQ2007.rar and MQ2008.rar) and tar
(``ustar`` then a NUL or two spaces and a NUL at byte 257, POSIX.1 ustar and GNU: a
``train.tar`` was "a NUL byte at column 9 ... UTF-32 text"; :data:`HEAD` bytes are read to see
it); a Parquet file (``PAR1``, Apache Parquet file format) is named too, and so is a web page
(``<!DOCTYPE html`` or ``<html`` first, any case, after a BOM or blanks: a download that failed,
or a sign-in or error page saved under the data file's name, :func:`web_page`), and an XML
document (``<?xml``: a storage service's ``<Error><Code>AccessDenied</Code>`` reply).
"""

from __future__ import annotations

import os
import re

from bench.errors import DataError

#: How many first bytes of a file the readers pass to :func:`refuse_compressed`: enough for the
#: tar header's magic at byte 257.
HEAD = 512

#: What a spreadsheet program is told to do instead (its own documents are no text).
_SAVE_AS_CSV = ("open it in the spreadsheet program and save the sheet as 'CSV UTF-8' "
                "(File > Save As), or export it with pandas: pd.read_excel(FILE).to_csv(...)")

#: A Parquet file's signature: ``PAR1`` then a byte outside printable ASCII and white space.
_PARQUET = re.compile(rb"PAR1[^\t-\r -~]")

_SIGNATURES = (
    # a file of NUL bytes only (as far as HEAD reaches): space allocated and never written (a
    # download manager's preallocation, a copy cut by a crash, a disk error); read as text it
    # was one line of millions of NULs (a 200 MB file: 24 s and 780 MB to say "malformed
    # SVMlight line"), named as UTF-32 text by the NUL rule
    (re.compile(rb"\x00+\Z"), "filled with NUL bytes (zeros: space allocated but never "
     "written, as by a download cut short or a crash)", "get the file again"),
    # Office documents before zip (an .xlsx is a zip whose members are XML: unzipping it gives
    # no table): the first member of an OOXML package, named at byte 30 of the zip, is one of
    # its parts, [Content_Types].xml, _rels/, docProps/ or xl/ (ECMA-376 Part 2), OpenDocument stores its 'mimetype' member first (ODF 1.2 Part 3, 3.3), and the
    # compound file of Excel 97-2003 starts D0 CF 11 E0 A1 B1 1A E1 ([MS-CFB] 2.2).
    (re.compile(rb"PK\x03\x04.{26}mimetypeapplication/vnd\.oasis\.opendocument", re.DOTALL),
     "an OpenDocument file (an .ods spreadsheet?)", _SAVE_AS_CSV),
    (re.compile(rb"PK\x03\x04.{26}(?:\[Content_Types\]\.xml|_rels/|docProps/|xl/)", re.DOTALL),
     "an Office Open XML document (an .xlsx workbook?)", _SAVE_AS_CSV),
    (re.compile(rb"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"),
     "an Office compound document (an .xls workbook of Excel 97-2003?)", _SAVE_AS_CSV),
    (re.compile(rb"\x1f\x8b"), "gzip-compressed", "decompress it first, e.g. gunzip FILE"),
    (re.compile(rb"\xfd7zXZ\x00"), "xz-compressed", "decompress it first, e.g. unxz FILE"),
    (re.compile(rb"BZh[1-9](?:1AY&SY|\x17rE8P\x90)"), "bzip2-compressed",
     "decompress it first, e.g. bunzip2 FILE"),
    (re.compile(rb"\x28\xb5\x2f\xfd"), "zstd-compressed", "decompress it first, e.g. unzstd FILE"),
    (re.compile(rb"PK\x03\x04"), "zip-compressed", "decompress it first, e.g. unzip FILE"),
    (re.compile(rb"\x04\x22\x4d\x18"), "lz4-compressed", "decompress it first, e.g. unlz4 FILE"),
    (re.compile(rb"7z\xbc\xaf\x27\x1c"), "a 7-Zip archive", "unpack it first, e.g. 7z x FILE"),
    (re.compile(rb"Rar!\x1a\x07"), "a RAR archive", "unpack it first, e.g. unrar x FILE"),
    (re.compile(rb".{257}ustar(?:\x00|  \x00)", re.DOTALL), "a tar archive",
     "unpack it first, e.g. tar -xf FILE"),
    (_PARQUET, "a Parquet file",  # a qrels line "PAR1 0 d 1" is text
     "name it *.parquet to have it read as Parquet"),
)


#: A web page's first bytes (WHATWG HTML 13.1: the DOCTYPE or the html element first).
_WEB_PAGE = re.compile(rb"(?:\xef\xbb\xbf)?\s*<(?:!doctype\s+html|html[\s>]|\?xml[\s?])",
                       re.IGNORECASE)
#: What a web page where data is expected is said to be.
WEB_PAGE = ("a web page (HTML) or an XML document, not data: a download that failed, or an "
            "error or sign-in page saved under this name; download the file again")


def parquet_signature(head: bytes) -> bool:
    """Whether ``head`` (a file's first bytes) starts like a Parquet file (``PAR1`` then a
    byte no text line would hold: a qrels line ``PAR1 0 d 1`` is text)."""
    return _PARQUET.match(head) is not None


def web_page(head: bytes) -> bool:
    """Whether ``head`` (a file's first bytes) starts like an HTML page."""
    return _WEB_PAGE.match(head) is not None


def refuse_compressed(head: bytes, path: str | os.PathLike[str]) -> None:
    """A :class:`DataError` naming ``path``, line 1, the format and its tool when ``head`` (the
    first bytes of the file, :data:`HEAD` of them; 10 or more to tell bzip2, 263 a tar) starts with a compressed file's signature
    (or a Parquet file's, ``PAR1``: binary columns where text is expected)."""
    if web_page(head):
        raise DataError(f"the file is {WEB_PAGE}; expected UTF-8 text", path=path, line=1)
    for mark, what, advice in _SIGNATURES:
        if mark.match(head):
            if what == "a Parquet file" and str(path).lower().endswith(".parquet"):
                advice = ("this input reads text; give the Parquet file where a table is read "
                          "(a LETOR split, a ratings table, --engine dask shards)")
            raise DataError(f"the file is {what} (it starts with that signature); expected UTF-8 "
                            f"text: {advice}", path=path, line=1)


def signature_of(head: bytes) -> tuple[str, str] | None:
    """``(what the file is, what to do)`` when ``head`` (a file's first :data:`HEAD` bytes)
    starts with a signature of :data:`_SIGNATURES` (gzip, zip, an Office document, Parquet
    ...), else ``None``: for readers of binary formats (Parquet, SQLite), which name such
    bytes as the text readers do."""
    return next(((what, advice) for mark, what, advice in _SIGNATURES if mark.match(head)), None)


def unreadable_parquet(path: str | os.PathLike[str], exc: BaseException) -> str:
    """Why ``path``, which pyarrow could not read as Parquet (``exc``), is not, in one line and
    in the words every text reader uses for the same bytes: ``not a readable Parquet file:``
    then compressed (``the file is gzip-compressed ...: decompress it first``: a
    ``train.parquet.gz`` renamed), a web page, text (a CSV or SVMlight file named ``.parquet``)
    or empty; cut short (no footer), else pyarrow's own message with its line ends as spaces (it printed
    "Deserializing page header failed." on a line of its own). pyarrow said "Parquet magic
    bytes not found in footer" for all of these."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(HEAD)
            tail = fh.read(0) if fh.seek(0, 2) < 12 else (fh.seek(-4, 2), fh.read(4))[1]
    except OSError:
        head = tail = b"PAR1"
    why = " ".join(str(exc).split())
    if head.startswith(b"PAR1") and tail != b"PAR1":
        why = ("the file starts as Parquet but does not end as one (no footer): it was cut "
               "short while downloaded, copied or written; get the whole file again")
    elif not head:
        why = "the file is empty (0 bytes)"
    elif not head.startswith(b"PAR1"):
        if web_page(head):  # text too: named as the page it is
            why = f"the file is {WEB_PAGE}"
        elif (found := signature_of(head)) is not None:
            why = f"the file is {found[0]} (it starts with that signature): {found[1]}"
        else:
            try:
                text = head.decode("utf-8")
            except UnicodeDecodeError as bad:  # a multi-byte character cut at HEAD is text
                text = head[:bad.start].decode("utf-8") if bad.start > len(head) - 4 else ""
            if text and text.replace("\t", " ").replace("\n", " ").replace("\r", " ") \
                    .isprintable():
                first = text.splitlines()[0][:40]
                why = (f"the file holds text ({first!r} ...), not Parquet: a CSV or SVMlight "
                       "file named .parquet? give it under a text name (.csv, .txt)")
    return f"not a readable Parquet file: {why}"
