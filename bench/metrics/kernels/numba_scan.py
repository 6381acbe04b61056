"""Compiled input scans of the evaluator: label and score checks in one pass, query runs of a qid.

Both are loops over every row, close to memory speed; :mod:`bench.metrics.kernels.numba_kernel` runs them on
contiguous slices in parallel threads (the functions release the GIL).
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Rows checked together with one branch-free test before the row-by-row loop looks closer.
_BLOCK = 2048


@njit(cache=True, nogil=True, error_model="numpy")
def _scan_rows(labels, scores, lo, hi, found):  # type: ignore[no-untyped-def]
    """Row-by-row checks of ``lo:hi``; fills the unset (-1) entries of ``found``; largest label."""
    top = 0.0
    for i in range(lo, hi):
        if found[0] < 0 and not np.isfinite(scores[i]):
            found[0] = i
        v = labels[i]
        if not np.isfinite(v):
            if found[1] < 0:
                found[1] = i
            continue
        if v < 0 and found[2] < 0:
            found[2] = i
        if v != np.floor(v) and found[3] < 0:
            found[3] = i
        top = max(top, v)
    return top


@njit(cache=True, nogil=True, error_model="numpy")
def _scan(labels, scores, lo, hi):  # type: ignore[no-untyped-def]
    """First row ``>= lo`` with a non-finite score, a non-finite label, a negative label and a
    non-integer label in ``lo:hi`` (-1 where none), and the largest finite label.

    Each block of rows is first tested with one branch-free expression per row (``x - x != 0``
    holds only for NaN and infinities; ``v != float(int64(v))`` for NaN, infinities and
    non-integers); only a block that fails is scanned row by row (:func:`_scan_rows`).
    """
    found = np.full(4, -1, dtype=np.int64)
    top = 0.0
    for b0 in range(lo, hi, _BLOCK):
        b1 = min(b0 + _BLOCK, hi)
        bad = 0
        blk_top = 0.0
        for i in range(b0, b1):
            v = labels[i]
            s = scores[i]
            bad |= np.int64(s - s != 0.0) | np.int64(v < 0.0) | np.int64(v != float(np.int64(v)))
            blk_top = v if v > blk_top else blk_top
        top = max(top, _scan_rows(labels, scores, b0, b1, found) if bad else blk_top)
    return found[0], found[1], found[2], found[3], top


@njit(cache=True, nogil=True)
def _run_starts(q):  # type: ignore[no-untyped-def]
    """Offsets of the runs of equal values in ``q`` (length ``runs + 1``, last = ``len(q)``)."""
    n = q.shape[0]
    cnt = 1
    for i in range(1, n):
        cnt += q[i] != q[i - 1]
    out = np.empty(cnt + 1, dtype=np.int64)
    out[0] = 0
    k = 1
    for i in range(1, n):
        if q[i] != q[i - 1]:
            out[k] = i
            k += 1
    out[cnt] = n
    return out
