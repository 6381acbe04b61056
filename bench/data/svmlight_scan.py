"""Compiled kernels (numba, ``nogil``) that scan SVMlight/LETOR bytes: a count pass and a fill pass.

Both work on a chunk of the file that starts at a line start and ends after a ``\\n`` (or at
the end of the file), so chunks can be scanned in parallel threads.

Grammar of a line (bytes; ``\\n`` ends a line, ``\\r`` is whitespace so CRLF files read the same)::

    line    := ws* [ data ] ws* [ '#' anything ]
    data    := number [ ws+ 'qid:' integer ] ( ws+ index ':' number )*
    number  := [+-] ( digits [ '.' digits* ] | '.' digits ) [ (e|E) [+-] digits ]
    integer := [+-] digits          (must fit int64)
    index   := digits               (>= 1, strictly increasing along the line)
    ws      := space, tab, \\r

VT and FF are no white space here (sklearn's ``load_svmlight_file`` splits on them, as
``bytes.split`` does): the one rule of :mod:`bench.data.inputs` for every text reader refuses
them, so a token holding one is an error whose message names the character and its column.

A line without ``data`` (blank, or only a comment) is not a data row. Numbers are converted
exactly (:mod:`bench.data.decimal_float`); anything else -- ``0_4``, ``0x1p3``, ``nan``,
``inf``, a sign on an index, ``qid:`` anywhere but right after the label -- is an error that
the kernel reports as a code plus the byte span of the offending token.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bench.data.decimal_float import FALLBACK, MAX_DIGITS, decimal_to_double

# ----------------------------------------------------------------- status codes of the fill pass
OK = 0
E_LABEL = 1  # the label is not a plain decimal number
E_QID = 2  # the qid value is not an integer
E_QID_RANGE = 3  # the qid does not fit int64
E_QID_MISSING = 4  # no qid: on this line, but the first data line has one
E_QID_UNEXPECTED = 5  # qid: on this line, but the first data line has none
E_QID_POSITION = 6  # qid: after a feature
E_TOKEN = 7  # a token that is not index:value
E_INDEX = 8  # the index is not a plain positive integer
E_INDEX_ZERO = 9  # index 0
E_INDEX_RANGE = 10  # the index does not fit int64
E_ORDER = 11  # index not greater than the previous one (extra: previous index)
E_VALUE = 12  # the value is not a plain decimal number
E_VALUE_RANGE = 13  # the value overflows float32
E_WIDTH = 14  # index beyond the matrix width (extra: width)
E_FALLBACK_FULL = 15  # more fallback tokens than the buffer holds (the caller retries)

# info[] slots returned by the fill pass
I_CODE, I_LINE, I_LINE_START, I_TOK_START, I_TOK_END, I_ROWS, I_FALLBACKS, I_EXTRA = range(8)
INFO_SIZE = 8
# out[] slots returned by the count pass
C_LINES, C_ROWS, C_MAX_INDEX, C_MAX_LINE, C_FIRST_QID = range(5)
COUNT_SIZE = 5
FALLBACK_COLS = 5  # row, column (-1: label), token start, token end, line

INDEX_CAP = np.int64(10) ** np.int64(18)  # stands for "more than 18 digits"

_NL = 10
_HASH = 35
_COLON = 58
_DOT = 46
_PLUS = 43
_MINUS = 45
_ZERO = 48
_NINE = 57
_U10 = np.uint64(10)
_TWO53 = np.int64(1) << np.int64(53)
_POW10 = np.array([10.0**k for k in range(23)], dtype=np.float64)  # all exact doubles
_INT64_MAX = np.uint64((1 << 63) - 1)


_WS = np.zeros(256, dtype=np.bool_)
_WS[[32, 9, 13]] = True  # space, tab, CR (of CRLF; a lone CR became LF before the scan)
_END = _WS.copy()
_END[[_NL, _HASH]] = True  # what ends a token


@njit(cache=True, nogil=True, inline="always")
def _is_ws(c):  # type: ignore[no-untyped-def]
    return _WS[c]


@njit(cache=True, nogil=True, inline="always")
def _ends_token(buf, i, n):  # type: ignore[no-untyped-def]
    return i >= n or _END[buf[i]]


@njit(cache=True, nogil=True, inline="always")
def _token_end(buf, i, n):  # type: ignore[no-untyped-def]
    while not _ends_token(buf, i, n):
        i += 1
    return i


@njit(cache=True, nogil=True, inline="always")
def _is_digit(c):  # type: ignore[no-untyped-def]
    return _ZERO <= c <= _NINE


@njit(cache=True, nogil=True)
def _number(buf, i, n):  # type: ignore[no-untyped-def]
    """Parse a plain decimal number at ``i``: (status 0 ok / 1 fallback / 2 syntax, value, end)."""
    negative = False
    if i < n and (buf[i] == _PLUS or buf[i] == _MINUS):
        negative = buf[i] == _MINUS
        i += 1
    w = np.uint64(0)
    sig = 0
    q = 0
    digits = 0
    dropped = False
    while i < n and _is_digit(buf[i]):
        d = np.uint64(buf[i] - _ZERO)
        if w != 0 or d != 0:
            if sig < MAX_DIGITS:
                w = w * _U10 + d
                sig += 1
            else:
                dropped = True
                q += 1
        digits += 1
        i += 1
    if i < n and buf[i] == _DOT:
        i += 1
        while i < n and _is_digit(buf[i]):
            d = np.uint64(buf[i] - _ZERO)
            if w != 0 or d != 0:
                if sig < MAX_DIGITS:
                    w = w * _U10 + d
                    sig += 1
                    q -= 1
                else:
                    dropped = True
            else:
                q -= 1
            digits += 1
            i += 1
    if digits == 0:
        return 2, 0.0, i
    if i < n and (buf[i] == 101 or buf[i] == 69):  # e E
        i += 1
        e_negative = False
        if i < n and (buf[i] == _PLUS or buf[i] == _MINUS):
            e_negative = buf[i] == _MINUS
            i += 1
        e = 0
        e_digits = 0
        while i < n and _is_digit(buf[i]):
            e = min(e * 10 + (buf[i] - _ZERO), 10_000_000)
            e_digits += 1
            i += 1
        if e_digits == 0:
            return 2, 0.0, i
        q += -e if e_negative else e
    if not _ends_token(buf, i, n):
        return 2, 0.0, i
    if dropped:
        return 1, 0.0, i
    status, v = decimal_to_double(w, q, negative)
    return (1 if status == FALLBACK else 0), v, i


@njit(cache=True, nogil=True)
def _integer(buf, i, n, signed):  # type: ignore[no-untyped-def]
    """Parse an integer at ``i``: (status 0 ok / 2 syntax / 3 out of int64, value, end).

    Stops at the first non-digit (the caller checks what follows).
    """
    negative = False
    if signed and i < n and (buf[i] == _PLUS or buf[i] == _MINUS):
        negative = buf[i] == _MINUS
        i += 1
    mag = np.uint64(0)
    sig = 0
    digits = 0
    while i < n and _is_digit(buf[i]):
        d = np.uint64(buf[i] - _ZERO)
        if mag != 0 or d != 0:
            sig += 1
            if sig <= MAX_DIGITS:
                mag = mag * _U10 + d
        digits += 1
        i += 1
    if digits == 0:
        return 2, np.int64(0), i
    limit = _INT64_MAX + np.uint64(1) if negative else _INT64_MAX
    if sig > MAX_DIGITS or mag > limit:
        return 3, np.int64(0), i
    if negative:
        if mag == _INT64_MAX + np.uint64(1):
            return 0, np.int64(-9223372036854775807 - 1), i
        return 0, -np.int64(mag), i
    return 0, np.int64(mag), i


@njit(cache=True, nogil=True)
def _skip_ws(buf, i, n):  # type: ignore[no-untyped-def]
    while i < n and _is_ws(buf[i]):
        i += 1
    return i


@njit(cache=True, nogil=True)
def _skip_line(buf, i, n):  # type: ignore[no-untyped-def]
    """Index just after the next ``\\n`` (or ``n``)."""
    while i < n and buf[i] != _NL:
        i += 1
    return i + 1 if i < n else n


@njit(cache=True, nogil=True)
def _starts_qid(buf, i, n):  # type: ignore[no-untyped-def]
    return (i + 3 < n and buf[i] == 113 and buf[i + 1] == 105 and buf[i + 2] == 100
            and buf[i + 3] == _COLON)  # "qid:"


def count_chunk(buf: np.ndarray, n: int, out: np.ndarray) -> None:
    """Count pass over ``buf[:n]``: lines, data rows, the largest last index of a line.

    ``out`` receives ``[newlines, data rows, max index, its line (1-based, within the chunk),
    first data row has qid (1/0, -1 without data rows)]``. Indices increase along a valid line,
    so the last one is the line's largest; the fill pass checks everything else. The next
    ``\n`` or ``#`` is found eight bytes at a time (SWAR on the buffer viewed as uint64).
    """
    words = buf[: buf.shape[0] // 8 * 8].view(np.uint64)
    _count_lines(buf, words, n, out)


_ONES = np.uint64(0x0101010101010101)
_HIGHS = np.uint64(0x8080808080808080)
_NL8 = np.uint64(0x0A0A0A0A0A0A0A0A)
_HASH8 = np.uint64(0x2323232323232323)


@njit(cache=True, nogil=True, inline="always")
def _has_byte(v, pattern):  # type: ignore[no-untyped-def]
    """Whether some byte of the uint64 ``v`` equals the byte repeated in ``pattern``."""
    a = v ^ pattern
    return ((a - _ONES) & ~a & _HIGHS) != 0


@njit(cache=True, nogil=True)
def _next_stop(buf, words, i, n):  # type: ignore[no-untyped-def]
    """Index of the next ``\n`` or ``#`` at or after ``i`` (``n`` if none)."""
    while i < n and (i & 7) != 0:
        if buf[i] == _NL or buf[i] == _HASH:
            return i
        i += 1
    w = i >> 3
    last = n >> 3
    while w < last and not (_has_byte(words[w], _NL8) or _has_byte(words[w], _HASH8)):
        w += 1
    i = max(i, w << 3)
    while i < n:
        if buf[i] == _NL or buf[i] == _HASH:
            return i
        i += 1
    return n


@njit(cache=True, nogil=True)
def _count_lines(buf, words, n, out):  # type: ignore[no-untyped-def]
    rows = 0
    lines = 0
    max_index = np.int64(0)
    max_line = 0
    first_qid = -1
    i = 0
    while i < n:
        lines += 1
        start = i
        end = _next_stop(buf, words, i, n)  # the comment or the line end
        stop = end
        while stop < n and buf[stop] != _NL:
            stop = _next_stop(buf, words, stop + 1, n)
        i = stop + 1
        while start < end and _is_ws(buf[start]):
            start += 1
        if start >= end:
            continue
        rows += 1
        if first_qid < 0:
            t = _token_end(buf, start, end)
            t = _skip_ws(buf, t, end)
            first_qid = 1 if _starts_qid(buf, t, end) else 0
        # the last token before the comment / line end
        te = end
        while te > start and _is_ws(buf[te - 1]):
            te -= 1
        ts = te
        while ts > start and not _is_ws(buf[ts - 1]):
            ts -= 1
        if ts == start or _starts_qid(buf, ts, te):
            continue  # the label (no features) or qid: only
        idx = np.int64(0)
        sig = 0
        k = ts
        while k < te and _is_digit(buf[k]):
            d = buf[k] - _ZERO
            if idx != 0 or d != 0:
                sig += 1
                if sig <= 18:
                    idx = idx * 10 + d
            k += 1
        if sig > 18:
            idx = INDEX_CAP
        if k < te and buf[k] == _COLON and idx > max_index:
            max_index = idx
            max_line = lines
    out[C_LINES] = lines if n == 0 or buf[n - 1] == _NL else lines - 1
    out[C_ROWS] = rows
    out[C_MAX_INDEX] = max_index
    out[C_MAX_LINE] = max_line
    out[C_FIRST_QID] = first_qid


@njit(cache=True, nogil=True)
def _fail(info, code, line, line_start, ts, te, extra):  # type: ignore[no-untyped-def]
    info[I_CODE] = code
    info[I_LINE] = line
    info[I_LINE_START] = line_start
    info[I_TOK_START] = ts
    info[I_TOK_END] = te
    info[I_EXTRA] = extra
    return code


@njit(cache=True, nogil=True, inline="always")
def _record(fb, n_fb, row, col, ts, te, line):  # type: ignore[no-untyped-def]
    if n_fb < fb.shape[0]:
        fb[n_fb, 0] = row
        fb[n_fb, 1] = col
        fb[n_fb, 2] = ts
        fb[n_fb, 3] = te
        fb[n_fb, 4] = line
    return n_fb + 1


@njit(cache=True, nogil=True)
def fill_chunk(buf, n, X, y, qid, row0, line0, expect_qid, fb, info):  # type: ignore[no-untyped-def]
    """Fill pass over ``buf[:n]``: writes rows ``row0...`` of ``X`` (float32), ``y``, ``qid``.

    ``buf[n]`` must be a ``\n`` (a sentinel: scans stop there without bound checks). ``X``
    must hold zeros where the rows go; its width is the largest index allowed (width 0: the
    feature values are checked but not stored, for readers that need labels and queries only). ``line0`` is
    the 1-based line number of the chunk's first line; ``expect_qid`` (1/0) says whether every
    data line has ``qid:``. Tokens this kernel cannot convert exactly are written as NaN and
    listed in ``fb`` (row, column or -1 for the label, token start, token end, line); ``info``
    receives the status, the location of an error and the counts (``I_*`` slots).
    Returns the status code (:data:`OK` or an ``E_*`` code).
    """
    width = X.shape[1]
    flat = X.reshape(-1)
    n_fb = 0
    row = row0
    line = line0 - 1
    i = 0
    info[I_FALLBACKS] = 0
    info[I_ROWS] = 0
    while i < n:
        line += 1
        line_start = i
        k = _skip_ws(buf, i, n)
        if buf[k] == _NL or buf[k] == _HASH:
            i = _skip_line(buf, k, n)
            continue
        # label
        st, v, j = _number(buf, k, n)
        if st == 2:
            return _fail(info, E_LABEL, line, line_start, k, _token_end(buf, k, n), 0)
        if st == 1:
            n_fb = _record(fb, n_fb, row, -1, k, j, line)
            v = np.nan
        y[row] = v
        k = _skip_ws(buf, j, n)
        # qid
        if _starts_qid(buf, k, n + 1):
            if expect_qid == 0:
                return _fail(info, E_QID_UNEXPECTED, line, line_start, k, _token_end(buf, k, n), 0)
            st, qv, j = _integer(buf, k + 4, n, True)
            if st == 0 and not _ends_token(buf, j, n):
                st = 2
            if st != 0:
                code = E_QID if st == 2 else E_QID_RANGE
                return _fail(info, code, line, line_start, k, _token_end(buf, k, n), 0)
            qid[row] = qv
            k = _skip_ws(buf, j, n)
        elif expect_qid == 1:
            return _fail(info, E_QID_MISSING, line, line_start, k, _token_end(buf, k, n), 0)
        # features: a fast path for 'digits:[-+]digits[.digits] ', the general one otherwise
        prev = np.int64(0)
        over = -1  # token start of the first index beyond the width
        base = row * width
        while buf[k] != _NL and buf[k] != _HASH:
            ts = k
            idx = np.int64(0)
            while _is_digit(buf[k]):
                idx = idx * 10 + (buf[k] - _ZERO)
                k += 1
            if k == ts or buf[k] != _COLON or k - ts > 18:
                st, idx, k = _integer(buf, ts, n, False)
                if st != 0 or buf[k] != _COLON:
                    code = _bad_index(buf, ts, n)
                    return _fail(info, code, line, line_start, ts, _token_end(buf, ts, n), 0)
            if idx <= prev:
                code = E_INDEX_ZERO if idx == 0 else E_ORDER
                return _fail(info, code, line, line_start, ts, _token_end(buf, ts, n), prev)
            prev = idx
            k += 1
            vs = k
            c0 = buf[k]
            negative = c0 == _MINUS
            k += np.int64(negative | (c0 == _PLUS))
            w = np.int64(0)
            nd = 0
            q = 0
            dot = 0
            while True:
                d = np.int64(buf[k]) - _ZERO
                if 0 <= d <= 9:
                    w = w * 10 + d
                    nd += 1
                    q -= dot
                elif d == _DOT - _ZERO and dot == 0:
                    dot = 1
                else:
                    break
                k += 1
            c = buf[k]
            if (0 < nd <= 18 and _END[c] and w < _TWO53
                    and q >= -22):
                f = np.float32(float(w) / _POW10[-q])  # exact operands: rounded once, then to f32
                f = f * np.float32(1 - 2 * np.int64(negative))
                st = 0
            else:
                st, v, k = _number(buf, vs, n)
                if st == 2:
                    return _fail(info, E_VALUE, line, line_start, ts, _token_end(buf, ts, n), 0)
                f = np.float32(v)
            if width == 0:  # labels and query ids only: values checked, not stored
                if st == 0 and np.isinf(f):
                    return _fail(info, E_VALUE_RANGE, line, line_start, ts, _token_end(buf, ts, n),
                                 0)
                if st == 1:
                    n_fb = _record(fb, n_fb, row, idx - 1, ts, k, line)
            elif idx > width:
                if over < 0:
                    over = ts
            elif st == 1:
                n_fb = _record(fb, n_fb, row, idx - 1, ts, k, line)
                flat[base + idx - 1] = np.nan
            else:
                if np.isinf(f):
                    return _fail(info, E_VALUE_RANGE, line, line_start, ts, _token_end(buf, ts, n),
                                 0)
                flat[base + idx - 1] = f + np.float32(0.0)  # -0 + 0 = +0, as sklearn's dense
            while _is_ws(buf[k]):
                k += 1
        if over >= 0:
            return _fail(info, E_WIDTH, line, line_start, over, _token_end(buf, over, n), width)
        i = _skip_line(buf, k, n)
        row += 1
    info[I_CODE] = OK
    info[I_ROWS] = row - row0
    info[I_FALLBACKS] = n_fb
    if n_fb > fb.shape[0]:
        info[I_CODE] = E_FALLBACK_FULL
        return E_FALLBACK_FULL
    return OK


@njit(cache=True, nogil=True)
def _bad_index(buf, ts, n):  # type: ignore[no-untyped-def]
    """The error code for a feature token whose index part is not plain digits + ':'."""
    if _starts_qid(buf, ts, n + 1):
        return E_QID_POSITION
    st, _, j = _integer(buf, ts, n, False)
    if st == 3 and buf[j] == _COLON:
        return E_INDEX_RANGE
    te = _token_end(buf, ts, n)
    for c in range(ts, te):
        if buf[c] == _COLON:
            return E_INDEX
    return E_TOKEN
