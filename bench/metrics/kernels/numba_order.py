"""Ordering the top of one query for the compiled kernel: partial selection, exact tie rules.

The kernel (:mod:`bench.metrics.kernels.numba_query`) needs, per query of ``n`` rows, the first
``m`` positions of the ranking (``m`` = the deepest cutoff asked) in order, every row tied with
the one at position ``m - 1``, and whether the whole list has two equal scores (the tie
diagnostic of whole-list metrics). It gets them without sorting the query:

1. :func:`_threshold`: a score ``T`` that at least ``m`` rows reach, from disjoint chunks
   (``ceil(m / 2)`` chunks of ``w = n // ceil(m / 2)`` rows, each has two rows at or above its
   second-highest score, so the lowest of those second-highest scores is reached by ``>= m``
   rows); branch-free, one read of the scores (which also counts the labels). On random scores
   about 40 % of the rows reach it.
2. the caller keeps the rows with ``score >= T`` (the candidates, in row order) without branches;
   every row of the top ``m``, and every row tied with them, is a candidate.
3. :func:`_rank_candidates`: the position of each candidate is the number of candidates ranked
   before it, ``#{j: s_j > s_i}`` (a vectorised count) plus, only when scores tie (the counts
   then add up to less than ``c (c - 1) / 2``), the tied candidates that the tie rule puts first
   (:func:`_tie_before`: row order, gain, or a key). This is a counting sort of ``c`` items in
   ``O(c^2 / SIMD width)`` without a mispredicted branch; above :data:`RANK_MAX` candidates a
   merge sort (:func:`_merge_sort`) takes over.
4. :func:`_has_duplicate`: equal scores among the rows below ``T`` (only needed for the whole-
   list tie diagnostic): a bitmap of hashed scores rules most queries out; the rest go through a
   small open hash table, exact.

Ties follow the profile's rule exactly as :mod:`bench.metrics.kernels.numpy_kernel` sorts by
``(-score, key)``: ``stable``/``average`` row order, ``pessimistic``/``optimistic`` gain
ascending/descending then row order, ``random``/``docno_desc`` the given key then row order.
(The order of a counting sort: Knuth, TAOCP vol. 3, 5.2 "sorting by counting".)
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Largest candidate count ordered by counting; more are merge-sorted.
RANK_MAX = 96
_NEG_INF = -np.inf
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing (Knuth, TAOCP vol. 3, 6.4)
_BITMAP_BITS = 11
_BITMAP_WORDS = (1 << _BITMAP_BITS) // 64


@njit(inline="always", error_model="numpy")
def _score(scores, i, f32):  # type: ignore[no-untyped-def]
    """Score of row ``i``, rounded to float32 first under ``score_dtype="float32"``."""
    if f32:
        return float(np.float32(scores[i]))
    return scores[i]


@njit(inline="always", error_model="numpy")
def _tie_before(i, j, mode, labels, gain, tiekey):  # type: ignore[no-untyped-def]
    """Whether row ``i`` precedes row ``j`` when their scores are equal (``i != j``)."""
    if mode <= 1:
        return i < j
    if mode == 2 or mode == 3:
        gi = gain[int(labels[i])]
        gj = gain[int(labels[j])]
        if gi != gj:
            return gi < gj if mode == 2 else gi > gj
        return i < j
    if tiekey[i] != tiekey[j]:
        return tiekey[i] < tiekey[j]
    return i < j


@njit(error_model="numpy")
def _threshold(scores, labels, start, n, m, f32, hist):  # type: ignore[no-untyped-def]
    """A score reached by at least ``m`` of the ``n`` rows from ``start`` (see the module;
    ``-inf`` when ``m >= n``, ``+inf`` when ``m == 0``); adds the rows' labels to ``hist``.

    The label counts ride along: the chunk loop is bound by its max/min chain, not by them.
    """
    if m <= 0 or m >= n:
        for i in range(start, start + n):
            hist[int(labels[i])] += 1
        return np.inf if m <= 0 else _NEG_INF
    n_chunks = (m + 1) // 2
    w = n // n_chunks
    t = np.inf
    for c in range(n_chunks):
        first = _NEG_INF
        second = _NEG_INF
        for i in range(start + c * w, start + (c + 1) * w):
            v = _score(scores, i, f32)
            hist[int(labels[i])] += 1
            second = max(second, min(first, v))
            first = max(first, v)
        t = min(t, second)
    for i in range(start + n_chunks * w, start + n):
        hist[int(labels[i])] += 1
    return t


@njit(error_model="numpy")
def _merge_sort(pos, tmp, n, key, rows, mode, labels, gain, tiekey):  # type: ignore[no-untyped-def]
    """Sort ``pos[:n]`` (indices into ``key``/``rows``) by ``key`` descending, ties by the rule."""
    width = 1
    src = pos
    dst = tmp
    while width < n:
        lo = 0
        while lo < n:
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            a = lo
            b = mid
            o = lo
            while a < mid and b < hi:
                pa = src[a]
                pb = src[b]
                kb = key[pb]
                ka = key[pa]
                if kb > ka or (kb == ka and _tie_before(rows[pb], rows[pa], mode, labels, gain, tiekey)):
                    dst[o] = pb
                    b += 1
                else:
                    dst[o] = pa
                    a += 1
                o += 1
            while a < mid:
                dst[o] = src[a]
                a += 1
                o += 1
            while b < hi:
                dst[o] = src[b]
                b += 1
                o += 1
            lo += 2 * width
        src, dst = dst, src
        width *= 2
    if src is not pos:
        for i in range(n):
            pos[i] = src[i]


@njit(error_model="numpy")
def _rank_candidates(cs, ci, c, buf, bufs, rank, mode, labels, gain, tiekey):  # type: ignore[no-untyped-def]
    """Write the ``c <= RANK_MAX`` candidates (scores ``cs``, rows ``ci``, in row order) into
    ``buf``/``bufs`` in ranking order; returns whether two candidates have equal scores.

    ``cs`` must have room for ``c`` rounded up to a multiple of 8 (the pad is set to -inf).
    """
    padded = (c + 7) & ~7
    for x in range(c, padded):
        cs[x] = _NEG_INF
    pairs = 0
    for i in range(c):
        si = cs[i]
        r = 0
        for j in range(padded):
            r += cs[j] > si
        rank[i] = r
        pairs += r
    tied = pairs != c * (c - 1) // 2
    if tied:
        for i in range(c):
            si = cs[i]
            r = rank[i]
            if mode <= 1:  # row order: the tied candidates before this one in the list
                for j in range(i):
                    r += cs[j] == si
            else:
                for j in range(c):
                    if j != i and cs[j] == si and _tie_before(ci[j], ci[i], mode, labels, gain,
                                                                tiekey):
                        r += 1
            rank[i] = r
    for i in range(c):
        r = rank[i]
        buf[r] = ci[i]
        bufs[r] = cs[i]
    return tied


@njit(error_model="numpy")
def _sort_candidates(cs, ci, c, buf, bufs, pos, tmp, mode, labels, gain, tiekey):  # type: ignore[no-untyped-def]
    """:func:`_rank_candidates` for any ``c``, by a merge sort (``O(c log c)``)."""
    for x in range(c):
        pos[x] = x
    _merge_sort(pos, tmp, c, cs, ci, mode, labels, gain, tiekey)
    tied = False
    for x in range(c):
        p = pos[x]
        buf[x] = ci[p]
        bufs[x] = cs[p]
        if x > 0 and bufs[x] == bufs[x - 1]:
            tied = True
    return tied


@njit(inline="always", error_model="numpy")
def _hash(v):  # type: ignore[no-untyped-def]
    """64-bit Fibonacci hash of a score's bits (``-0.0`` counts as ``0.0``)."""
    return (np.float64(v + 0.0).view(np.uint64)) * _GOLDEN


@njit(error_model="numpy")
def _has_duplicate(vals, k, bitmap, table, spill):  # type: ignore[no-untyped-def]
    """Whether two of ``vals[:k]`` are equal.

    First a bitmap of :data:`_BITMAP_WORDS` x 64 buckets: equal scores share a bucket, so when
    no bucket is hit twice there is no pair (on ~25 random scores, 85 % of queries stop here).
    Otherwise a hash table (``table``, NaN = empty; when it has fewer than ``4k`` slots the scores
    are sorted instead) stores the first score of each slot; a score meeting a different one is
    kept in ``spill``, and the spilled scores are compared pairwise (equal scores always meet in
    the same slot).
    """
    if k < 2:
        return False
    for w in range(_BITMAP_WORDS):
        bitmap[w] = 0
    clash = np.uint64(0)
    one = np.uint64(1)
    for x in range(k):
        h = _hash(vals[x]) >> np.uint64(64 - _BITMAP_BITS)
        w = np.int64(h >> np.uint64(6))
        bit = one << (h & np.uint64(63))
        word = bitmap[w]
        clash |= word & bit
        bitmap[w] = word | bit
    if clash == 0:
        return False
    if 4 * k > table.shape[0]:  # a long query: sort its scores instead
        ordered = np.sort(vals[:k])
        return np.any(ordered[1:] == ordered[:-1])
    size = 16
    shift = 60
    while size < 4 * k:
        size *= 2
        shift -= 1
    for x in range(size):
        table[x] = np.nan
    dup = False
    o = 0
    sh = np.uint64(shift)
    for x in range(k):
        v = vals[x] + 0.0
        h = np.int64(_hash(v) >> sh)
        kv = table[h]
        dup |= kv == v
        other = (kv == kv) & (kv != v)  # the slot holds another score: keep v aside
        spill[o] = v
        o += other
        table[h] = kv if other else v
    if not dup:
        for x in range(1, o):
            for y in range(x):
                dup |= spill[x] == spill[y]
    return dup
