"""A fast LETOR text writer for feature values on a decimal grid (the generated LETOR shapes).

``label qid:Q 1:v1 2:v2 ...``, one line per row, in the style of the MSLR files: integers
without a decimal point (``3``, ``0``), other values with at most ``decimals[j]`` decimals and
no trailing zeros (``0.75``, ``-13.5173``); with ``write_zeros=False`` zero values are left out
(the SVMlight convention of the Yahoo! files). Labels must be integers.

Every value must lie on its column's grid: ``X[i, j] == float32(k / 10^p)`` for an integer ``k``
(``|k| < 2^23``, ``p = decimals[j]``). Its text is then the decimal ``k / 10^p``, and a reader
that parses it to a double and casts to float32 (scikit-learn's ``load_svmlight_file``) gets
``X[i, j]`` back bit for bit. A value off the grid is a :class:`~bench.errors.DataError` naming
the row and column, never a silently rounded file.

Rows are formatted by a compiled kernel (numba, ``cache=True``) into a bounded buffer, block by
block, and written atomically (:func:`bench.data.atomic.atomic_path`).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from numba import njit
from numpy.typing import ArrayLike, NDArray

from bench.data.atomic import atomic_path
from bench.data.letor import LetorData
from bench.errors import DataError

_BUFFER_BYTES = 1 << 25  # about 32 MiB of text formatted at a time
_BYTES_PER_VALUE = 32  # " 1234:-1234567.1234567" fits with room to spare
_MAX_K = 1 << 23


def write_letor_text(
    data: LetorData,
    path: str | os.PathLike[str],
    *,
    decimals: ArrayLike,
    write_zeros: bool = True,
) -> Path:
    """Write ``data`` as a LETOR text file with ``qid:`` (see the module docstring); returns it.

    ``decimals``: one integer per feature (0..9), the decimal places of its grid.
    """
    p = Path(path)
    dec = np.asarray(decimals, dtype=np.int64)
    if dec.shape != (data.n_features,) or dec.min(initial=0) < 0 or dec.max(initial=0) > 9:
        raise DataError(f"decimals: expected {data.n_features} integers in 0..9", path=p)
    labels = np.rint(data.y).astype(np.int64)
    if not np.array_equal(labels, data.y):
        bad = int(np.flatnonzero(labels != data.y)[0])
        raise DataError(f"label {data.y[bad]} is not an integer", path=p, row=bad + 1)
    pow10 = 10 ** dec
    per_row = 48 + _BYTES_PER_VALUE * max(1, data.n_features)
    step = max(1, _BUFFER_BYTES // per_row)
    buf = np.empty(per_row * min(step, max(1, data.n_rows)), dtype=np.uint8)
    X = data.X if data.X.flags.c_contiguous else np.ascontiguousarray(data.X)
    with atomic_path(p) as tmp, open(tmp, "wb") as fh:
        for r0 in range(0, data.n_rows, step):
            r1 = min(data.n_rows, r0 + step)
            used, bad_row, bad_col = _format_rows(
                X[r0:r1], labels[r0:r1], data.qid[r0:r1], pow10, dec, write_zeros, buf
            )
            if bad_row >= 0:
                raise DataError(
                    f"feature {bad_col + 1} value {float(X[r0 + bad_row, bad_col])!r} is not on "
                    f"its {int(dec[bad_col])}-decimal grid (or |value| * 10^decimals >= 2^23)",
                    path=p, row=r0 + bad_row + 1,
                )
            fh.write(buf[:used].data)
    return p


@njit(cache=True, inline="always")
def _put_int(out: NDArray[np.uint8], pos: int, value: int, width: int) -> int:  # pragma: no cover
    """Write the non-negative ``value`` in decimal, zero-padded to ``width`` digits."""
    digits = 1
    v = value // 10
    while v > 0:
        digits += 1
        v //= 10
    if width > digits:
        digits = width
    end = pos + digits
    v = value
    for i in range(end - 1, pos - 1, -1):
        out[i] = 48 + v % 10
        v //= 10
    return end


@njit(cache=True)
def _format_rows(X, y, qid, pow10, dec, write_zeros, out):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Format rows into ``out``: (bytes used, first bad row or -1, its column)."""
    pos = 0
    n, d = X.shape
    for i in range(n):
        label = y[i]
        if label < 0:
            out[pos] = 45  # '-'
            pos += 1
            label = -label
        pos = _put_int(out, pos, label, 1)
        for ch in (32, 113, 105, 100, 58):  # " qid:"
            out[pos] = ch
            pos += 1
        q = qid[i]
        if q < 0:
            out[pos] = 45
            pos += 1
            q = -q
        pos = _put_int(out, pos, q, 1)
        for j in range(d):
            v = X[i, j]
            if v == 0 and not write_zeros:
                continue
            scale = pow10[j]
            kf = np.rint(np.float64(v) * scale)
            if abs(kf) >= _MAX_K or np.float32(kf / scale) != v:
                return pos, i, j
            k = np.int64(kf)
            out[pos] = 32
            pos = _put_int(out, pos + 1, j + 1, 1)
            out[pos] = 58  # ':'
            pos += 1
            if k < 0:
                out[pos] = 45
                pos += 1
                k = -k
            pos = _put_int(out, pos, k // scale, 1)
            frac = k % scale
            if frac:
                places = dec[j]
                while frac % 10 == 0:
                    frac //= 10
                    places -= 1
                out[pos] = 46  # '.'
                pos = _put_int(out, pos + 1, frac, places)
        out[pos] = 10
        pos += 1
    return pos, -1, -1
