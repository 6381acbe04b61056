"""Fast, strict SVMlight/LETOR parser: raw bytes -> dense float32 ``X``, float64 ``y``, int64 ``qid``.

The file is cut into chunks of about :data:`CHUNK_BYTES` at line starts and read twice, a
chunk at a time, by up to ``threads`` threads running the compiled kernels of
:mod:`bench.data.svmlight_scan`:

1. the **count pass** counts lines and data rows per chunk and finds the largest feature
   index (the last one of each line) and the line holding it, so that the arrays can be
   allocated once -- and a too-large index refused, naming its line, before any allocation;
2. the **fill pass** parses every token and writes the rows of each chunk in place.

Memory is the final arrays plus one chunk buffer per thread: no per-line Python objects and
no sparse intermediate. A UTF-8 byte-order mark at the start of the file is skipped.

Number semantics are those of :func:`sklearn.datasets.load_svmlight_file` for valid files:
values are converted exactly to float64 (as Python's ``float()``) and then rounded to float32,
labels stay float64, and a zero read into the dense matrix is ``+0.0``. Unlike sklearn (which
uses Python's lax ``float()``/``int()``), only plain decimal numbers are accepted: ``0_4``,
``0x10``, ``nan``, ``inf``, ``+3:1`` (a signed index) and integers beyond int64 are errors, and
so is a value that overflows float32. Every error is a :class:`~bench.errors.DataError` naming
the file, the 1-based line, the byte column and the token, and saying what was expected.
Either every data line has ``qid:`` (right after the label) or none has.

:data:`PARSER_VERSION` is part of the cache key (:mod:`bench.data.letor_cache`): bump it
whenever the arrays produced for some file could change.
"""

from __future__ import annotations

import itertools
import os
import re
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from bench.data import svmlight_scan as scan
from bench.data.inputs import comma_hint, dos_eof_hint, stray_character
from bench.errors import DataError, foreign_space
from bench.machine import usable_cpus

PathLike = str | os.PathLike[str]
Progress = Callable[[int, int], None]
"""``progress(bytes_done, rows_done)``, called after every chunk of the fill pass."""

PARSER_VERSION = 2
MAX_FEATURE_INDEX = 10_000_000
CHUNK_BYTES = 16 << 20
_BOM = b"\xef\xbb\xbf"
_WINDOW = 1 << 16
_FALLBACK_ROWS = 1024


@dataclass(frozen=True, eq=False)
class ParsedSvmlight:
    """What a file holds: ``X`` (float32, rows x width), ``y`` (float64), ``qid`` (int64 or None).

    ``max_index`` is the largest feature index in the file (0 when no line has features);
    ``X`` may be wider when several files share a width. ``qid`` is ``None`` for a file without
    ``qid:`` fields (its groups come from a ``.query`` file).
    """

    X: NDArray[np.float32]
    y: NDArray[np.float64]
    qid: NDArray[np.int64] | None
    max_index: int
    max_index_line: int


@dataclass
class _Plan:
    path: Path
    size: int
    chunks: list[tuple[int, int]]
    rows: list[int]
    lines: list[int]
    max_index: int
    max_index_line: int
    has_qid: bool
    lone_cr: list[bool]  # per chunk: whether the count pass met a lone CR (a line end)
    mtime_ns: int = 0  # when the count pass began: a rewrite of the same size is told by it

    @property
    def n_rows(self) -> int:
        return sum(self.rows)


def parse_svmlight(
    path: PathLike,
    *,
    n_features: int | None = None,
    max_index: int = MAX_FEATURE_INDEX,
    threads: int | None = None,
    progress: Progress | None = None,
    features: bool = True,
) -> ParsedSvmlight:
    """Parse one SVMlight/LETOR file (see the module doc for the format and the checks).

    ``X`` has ``max(n_features, largest index)`` columns (feature ``j`` is column ``j - 1``);
    a file without any ``index:value`` has none, as a Parquet file without feature columns
    (:mod:`bench.data.parquet`): a column of zeros would be a feature the file does not hold,
    and training refuses data without features by name
    (:func:`bench.data.split_checks.check_same_features`). A larger index than ``n_features``
    or ``max_index`` is an error naming its line.
    """
    return parse_svmlight_files([path], n_features=n_features, max_index=max_index,
                                threads=threads, progress=progress, features=features)[0]


def parse_svmlight_files(
    paths: Sequence[PathLike],
    *,
    n_features: int | None = None,
    max_index: int = MAX_FEATURE_INDEX,
    threads: int | None = None,
    progress: Progress | None = None,
    min_width: int = 0,
    features: bool = True,
) -> list[ParsedSvmlight]:
    """Parse several files into matrices of one shared width (the largest index of all, or
    ``n_features``, at least ``min_width``). ``progress`` counts bytes and rows over all the
    files together. ``features=False``: labels and query ids only; every line is checked as
    usual but ``X`` has no columns (no index limit, no memory for a matrix)."""
    n_threads = usable_cpus(threads)
    with ThreadPoolExecutor(max_workers=n_threads) as pool:
        plans = [_count(Path(p), pool) for p in paths]
        width = max([n_features or 0, min_width, *(pl.max_index for pl in plans)])
        if not features:
            width = 0
        for pl in plans:
            if features:
                _check_width(pl, n_features, max_index)
        _check_memory(plans, width)
        out = []
        done = [0, 0]
        for pl in plans:
            out.append(_fill(pl, width, pool, progress, done))
    return out


def rich_progress(total_bytes: int, description: str = "reading") -> RichProgress:
    """A context manager giving a ``progress(bytes_done, rows_done)`` callback that drives a
    rich progress bar (bytes, speed, rows, time left)::

        with rich_progress(size, "train.txt") as cb:
            parse_svmlight(path, progress=cb)
    """
    return RichProgress(total_bytes, description)


class RichProgress:
    """The context manager of :func:`rich_progress`; ``bytes_done``/``rows_done``: last update."""

    def __init__(self, total: int, description: str) -> None:
        self.total = total
        self.description = description
        self.bytes_done = 0
        self.rows_done = 0

    def __enter__(self) -> Progress:
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
            TransferSpeedColumn,
        )

        self._bar = Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(),
                             TransferSpeedColumn(), TextColumn("{task.fields[rows]:,} rows"),
                             TimeRemainingColumn(), transient=True)
        self._bar.__enter__()
        task = self._bar.add_task(self.description, total=self.total, rows=0)

        def update(bytes_done: int, rows_done: int) -> None:
            self.bytes_done, self.rows_done = bytes_done, rows_done
            self._bar.update(task, completed=bytes_done, rows=rows_done)

        return update

    def __exit__(self, *exc: object) -> None:
        self._bar.__exit__(*exc)  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- count pass


def _count(path: Path, pool: ThreadPoolExecutor) -> _Plan:
    if not path.is_file():
        raise DataError("no such file", path=path)
    st = path.stat()
    size = st.st_size
    chunks = _chunk_bounds(path, size)
    results = list(pool.map(lambda ab: _count_chunk(path, ab), chunks))
    rows = [int(r[scan.C_ROWS]) for r in results]
    lines = [int(r[scan.C_LINES]) for r in results]
    best, best_line, has_qid = 0, 0, False
    seen_qid = False
    line0 = 1
    for r, n_lines in zip(results, lines, strict=True):
        if int(r[scan.C_MAX_INDEX]) > best:
            best = int(r[scan.C_MAX_INDEX])
            best_line = line0 + int(r[scan.C_MAX_LINE]) - 1
        if not seen_qid and r[scan.C_FIRST_QID] >= 0:
            has_qid, seen_qid = bool(r[scan.C_FIRST_QID]), True
        line0 += n_lines
    return _Plan(path, size, chunks, rows, lines, best, best_line, has_qid,
                 [bool(r[scan.COUNT_SIZE]) for r in results], st.st_mtime_ns)


def _chunk_bounds(path: Path, size: int) -> list[tuple[int, int]]:
    """(start, end) byte ranges of about CHUNK_BYTES, each starting at a line start."""
    with open(path, "rb", buffering=0) as fh:
        start = len(_BOM) if fh.read(len(_BOM)) == _BOM else 0
        cuts = [start]
        target = start + CHUNK_BYTES
        while target < size:
            nl = _next_newline(fh, target - 1, size)
            if nl < 0 or nl + 1 >= size:
                break
            cuts.append(nl + 1)
            target = nl + 1 + CHUNK_BYTES
    cuts.append(size)
    return [(a, b) for a, b in itertools.pairwise(cuts) if b > a]


def _next_newline(fh: object, pos: int, size: int) -> int:
    while pos < size:
        fh.seek(pos)  # type: ignore[attr-defined]
        block = fh.read(_WINDOW)  # type: ignore[attr-defined]
        if not block:
            return -1
        k: int = block.find(b"\n")
        if k >= 0:
            return pos + k
        pos += len(block)
    return -1


_local = threading.local()


def _buffer(length: int) -> np.ndarray:
    buf = getattr(_local, "buf", None)
    if buf is None or buf.shape[0] < length + 1:
        buf = np.empty(max(length, CHUNK_BYTES + _WINDOW) + 1, dtype=np.uint8)
        _local.buf = buf
    return buf


def _read(path: Path, start: int, end: int, lone_cr: bool = True) -> np.ndarray:
    buf = _buffer(end - start)
    view = buf.data[: end - start]
    got = 0
    with open(path, "rb", buffering=0) as fh:
        fh.seek(start)
        while got < end - start:
            k = fh.readinto(view[got:])
            if not k:
                raise DataError(f"the file changed while it was read (ends before byte {end})",
                                path=path)
            got += k
    buf[end - start] = ord("\n")  # the sentinel the kernels rely on
    if lone_cr:
        _lone_cr_to_lf(buf, end - start)
    return buf


_CR = re.compile(b"\r")


def _lone_cr_to_lf(buf: np.ndarray, n: int) -> bool:
    """A CR not followed by LF ends a line (:mod:`bench.data.inputs`): make it an LF, in place.

    One byte for one byte, so offsets, columns and line numbers stay those of the file. A CR
    before LF stays (white space to the kernels: CRLF files read as before). A chunk ends after
    an LF (or at the end of the file, where the LF sentinel follows), so no CRLF is cut in two.
    Files without CR cost one scan of the count pass (``re`` over the buffer, no copy); the
    fill pass converts only chunks where the count pass met a lone CR. Returns whether it did.
    """
    if _CR.search(buf.data[:n]) is None:
        return False
    cr = np.flatnonzero(buf[:n] == 13)
    lone = cr[buf[cr + 1] != 10]
    buf[lone] = 10
    return bool(lone.shape[0])


def _count_chunk(path: Path, bounds: tuple[int, int]) -> np.ndarray:
    start, end = bounds
    buf = _read(path, start, end, lone_cr=False)
    out = np.zeros(scan.COUNT_SIZE + 1, dtype=np.int64)  # the last slot: a lone CR was met
    out[scan.COUNT_SIZE] = _lone_cr_to_lf(buf, end - start)
    scan.count_chunk(buf, end - start, out)
    return out


def _check_width(pl: _Plan, n_features: int | None, max_index: int) -> None:
    if n_features is not None and pl.max_index > n_features:
        raise DataError(f"feature index {pl.max_index} is beyond n_features={n_features}",
                        path=pl.path, line=pl.max_index_line)
    if pl.max_index > max_index:
        what = (f"feature index {pl.max_index} is" if pl.max_index < scan.INDEX_CAP
                else "a feature index on this line has more than 18 digits:")
        raise DataError(
            f"{what} beyond the limit of {max_index:,} features (the dense matrix would not "
            "be usable); expected indices 1..number of features",
            path=pl.path, line=pl.max_index_line)


def _check_memory(plans: list[_Plan], width: int) -> None:
    need = sum(pl.n_rows * (4 * width + 16) for pl in plans)
    avail = _available_memory()
    if avail is None or need <= avail:
        return
    widest = max(plans, key=lambda pl: pl.max_index)
    rows = sum(pl.n_rows for pl in plans)
    raise DataError(
        f"a dense matrix of {rows:,} rows x {width:,} features needs {need / 1e9:.1f} GB, more "
        f"than the {avail / 1e9:.1f} GB of memory available; the largest feature index "
        f"({widest.max_index:,}) is on this line",
        path=widest.path, line=widest.max_index_line)


def _available_memory() -> int | None:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


# ------------------------------------------------------------------------------ fill pass


def _fill(pl: _Plan, width: int, pool: ThreadPoolExecutor, progress: Progress | None,
          done: list[int]) -> ParsedSvmlight:
    n = pl.n_rows
    X = np.zeros((n, width), dtype=np.float32)
    y = np.zeros(n, dtype=np.float64)
    qid = np.zeros(n, dtype=np.int64) if pl.has_qid else np.zeros(0, dtype=np.int64)
    row0 = np.concatenate([[0], np.cumsum(pl.rows)]).tolist()
    line0 = np.concatenate([[1], 1 + np.cumsum(pl.lines)]).tolist()
    futures: list[Future[int]] = [
        pool.submit(_fill_chunk, pl, k, X, y, qid, int(row0[k]), int(line0[k]))
        for k in range(len(pl.chunks))
    ]
    try:
        for k, f in enumerate(futures):
            f.result()
            done[0] += pl.chunks[k][1] - pl.chunks[k][0] + (pl.chunks[0][0] if k == 0 else 0)
            done[1] += pl.rows[k]
            if progress is not None:
                progress(done[0], done[1])
    except BaseException:
        for f in futures:
            f.cancel()
        raise
    after = pl.path.stat()
    if (after.st_size, after.st_mtime_ns) != (pl.size, pl.mtime_ns):
        raise DataError("the file changed while it was read (its size or modification time "
                        "changed): read it again once it is complete", path=pl.path)
    return ParsedSvmlight(X, y, qid if pl.has_qid else None, pl.max_index, pl.max_index_line)


def _fill_chunk(pl: _Plan, k: int, X: np.ndarray, y: np.ndarray, qid: np.ndarray, row0: int,
                line0: int) -> int:
    start, end = pl.chunks[k]
    buf = _read(pl.path, start, end, lone_cr=pl.lone_cr[k])
    info = np.zeros(scan.INFO_SIZE, dtype=np.int64)
    fb = np.zeros((_FALLBACK_ROWS, scan.FALLBACK_COLS), dtype=np.int64)
    code = scan.fill_chunk(buf, end - start, X, y, qid, row0, line0, int(pl.has_qid), fb, info)
    if code == scan.E_FALLBACK_FULL:  # rare: many tokens for Python's float(); fill again
        fb = np.zeros((int(info[scan.I_FALLBACKS]), scan.FALLBACK_COLS), dtype=np.int64)
        code = scan.fill_chunk(buf, end - start, X, y, qid, row0, line0, int(pl.has_qid), fb,
                               info)
    if code != scan.OK:
        raise _located_error(pl.path, buf, info)
    if pl.rows[k] != int(info[scan.I_ROWS]):
        raise DataError("the file changed while it was read (row counts differ)", path=pl.path)
    for r, col, ts, te, line in fb[: int(info[scan.I_FALLBACKS])].tolist():
        _fallback(pl.path, buf, X, y, r, col, ts, te, line)
    return int(info[scan.I_ROWS])


def _fallback(path: Path, buf: np.ndarray, X: np.ndarray, y: np.ndarray, row: int, col: int,
              ts: int, te: int, line: int) -> None:
    """Convert a token the kernel left undecided with Python's float() (exact)."""
    token = buf[ts:te].tobytes()
    if col < 0:
        v = float(token)
        if not np.isfinite(v):
            raise DataError(f"malformed SVMlight line: label {token.decode()!r} is not a finite "
                            "number", path=path, line=line)
        y[row] = v
        return
    value = token.split(b":", 1)[1]
    f = np.float32(float(value))
    if not np.isfinite(f):
        raise DataError(f"malformed SVMlight line: {token.decode()!r}: the feature value does "
                        "not fit a float32 (|x| > 3.4e38)", path=path, line=line)
    if X.shape[1]:  # width 0: checked, not stored
        X[row, col] = f if f != 0 else np.float32(0.0)


_MESSAGES = {
    scan.E_LABEL: "the label is not a plain decimal number; expected 'label [qid:Q] "
                  "index:value ...' starting with a number such as 2 or 0.5",
    scan.E_QID: "the query id after 'qid:' must be an integer",
    scan.E_QID_RANGE: "the query id does not fit a 64-bit integer",
    scan.E_QID_MISSING: "no 'qid:' after the label, but the first data line of the file has "
                        "one: every data line needs 'qid:Q' (or none, with a .query file)",
    scan.E_QID_UNEXPECTED: "this line has 'qid:' but the first data line of the file has none: "
                           "every data line needs 'qid:Q' (or none)",
    scan.E_QID_POSITION: "'qid:' must come right after the label",
    scan.E_TOKEN: "expected 'index:value' (an integer index >= 1, a colon, a number)",
    scan.E_INDEX: "the feature index must be a plain integer >= 1 (digits only), followed by "
                  "':value'",
    scan.E_INDEX_ZERO: ("feature index 0: SVMlight indices start at 1 (scikit-learn's "
                        "dump_svmlight_file writes 0-based ones unless zero_based=False)"),
    scan.E_INDEX_RANGE: "the feature index does not fit a 64-bit integer",
    scan.E_ORDER: "feature indices must be strictly increasing within a line (this one follows "
                  "index {extra})",
    scan.E_VALUE: "the feature value is not a plain decimal number (expected e.g. 0.5, -3 or "
                  "1.5e-4; no hex, underscores, inf or nan)",
    scan.E_VALUE_RANGE: "the feature value does not fit a float32 (|x| > 3.4e38)",
    scan.E_WIDTH: "feature index beyond the {extra} columns found by the count pass (the file "
                  "changed while it was read?)",
}


def _located_error(path: Path, buf: np.ndarray, info: np.ndarray) -> DataError:
    code = int(info[scan.I_CODE])
    ts, te = int(info[scan.I_TOK_START]), int(info[scan.I_TOK_END])
    tok = buf[ts:te].tobytes().decode("utf-8", errors="replace")
    tok = tok if len(tok) <= 40 else tok[:37] + "..."
    column = ts - int(info[scan.I_LINE_START]) + 1
    reason = _MESSAGES[code].format(extra=int(info[scan.I_EXTRA]))
    if code in (scan.E_INDEX, scan.E_TOKEN) and tok[:4].lower() == "qid:":  # QID:1, Qid:1
        reason = (f"{tok[:3]!r} is not 'qid:': the query id field is written in lower case "
                  f"('qid:{tok[4:]}'), else it is read as a feature token ({reason})")
    stray = stray_character(buf[ts:te].tobytes(), column)  # NUL, a mark inside, U+2028: say so
    reason = (reason if stray is None else f"{reason}; {stray}") + dos_eof_hint(buf[ts:te].tobytes())
    if code in (scan.E_VALUE, scan.E_LABEL):  # '1:0,5', a label '0,5': a spreadsheet's export
        reason += comma_hint(tok.rpartition(":")[2])
    if held := foreign_space(tok):  # '2\u00a0qid:1': two tokens to scikit-learn, one to LightGBM
        reason += (f"; it holds {held}, white space to Python's str.split (scikit-learn's "
                   "load_svmlight_file splits there) but not to LightGBM's or XGBoost's reader: "
                   "expected ASCII spaces or tabs between tokens")
    return DataError(f"malformed SVMlight line: column {column}, {tok!r}: {reason}", path=path,
                     line=int(info[scan.I_LINE]))



