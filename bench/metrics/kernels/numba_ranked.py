"""Compiled twins of the ranked components (:mod:`bench.metrics.kernels.ranked`): one pass per query.

:func:`rank_order` sorts each query's rows on its own, under the tie rule (the same permutation
as :func:`bench.metrics.kernels.numpy_kernel.rank_order`'s global ``np.lexsort``, which took
most of the time of the NumPy path); :func:`ranked_components` then computes the requested
components of :data:`TWINS` query by query, each query's rows read in that order once. Both run
queries in blocks of about equal row counts in parallel threads (the kernels release the GIL),
as :func:`bench.metrics.kernels.numba_kernel.numba_components` does;
:func:`bench.metrics.kernels.judged.judged_components` calls them. Each kernel is
compiled on its first call only (a request without ``auc`` never compiles :func:`_auc`), and
cached on disk (``cache=True``: every helper is in this file, whose change renews the cache).

The sums and their order of operations are those of the NumPy pass
(:mod:`bench.metrics.kernels.ranked`, its oracle; ``tests/test_metrics_kernels_ranked.py``):

* :func:`_linear` -- ``fall``, ``crr``, ``rbp``, ``rbp_residual``, ``rprec``, ``rprec_mult``:
  ``sum_{i < c} x_i w_i`` with ``x`` the judged non-relevance, relevance or unjudgedness at
  position ``i`` (under ``ties="average"`` the mean over its tied group, McSherry & Najork,
  ECIR 2008), ``w_i`` 1, ``1 / (i + 1)`` or ``(1 - p) p^i``, and ``c`` the cutoff ``min(k, n)``,
  ``min(R, k)`` (trec_eval ``m_Rprec.c``) or ``floor(x R + 0.9)`` (``m_Rprec_mult.c``);
* :func:`_iprec` -- interpolated precision at recall ``x`` (trec_eval 9.0.8
  ``m_iprec_at_recall.c``);
* :func:`_infap` -- trec_eval's infAP sum (``m_infAP.c``; Yilmaz & Aslam, CIKM 2006);
* :func:`_auc` -- the Mann-Whitney count of each query's (relevant, non-relevant) pairs and the
  number of pairs (sklearn ``roc_auc_score`` of one query).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

from bench.machine import usable_cpus
from bench.metrics.kernels.components import split_param
from bench.metrics.kernels.numba_kernel import _PARALLEL_ROWS, _run_blocks

Array = NDArray[np.float64]
#: ``k`` = "whole list" in a cutoff array.
FULL = -1
#: The cutoff of a :func:`_linear` sum: ``min(k, n)``, ``min(R, k)``, ``floor(x R + 0.9)``.
_CUT_K, _CUT_R, _CUT_MULT = 0, 1, 2
#: The weight of position ``i`` in a :func:`_linear` sum: ``1``, ``1 / (i + 1)``, ``(1 - p) p^i``.
_W_ONE, _W_RANK, _W_RBP = 0, 1, 2


@njit(inline="always", error_model="numpy")
def _below(cut, n):  # type: ignore[no-untyped-def]
    """The positions ``i < n`` with ``i < cut`` (``cut`` a float), as a count: 0 for a NaN cut,
    ``n`` for one at or past the end (never a float too large for an integer converted)."""
    if not cut > 0.0:
        return 0
    if cut >= n:
        return n
    return int(np.ceil(cut))


@njit(cache=True, nogil=True, error_model="numpy")
def _linear(order, offsets, q0, q1, x, scores, avg, wkind, p, ks, r, cut_mode, cut_x, out):  # type: ignore[no-untyped-def]
    """``out[t, q] = sum_{i < c_t} xbar_i w_i`` for the queries ``q0 .. q1 - 1`` (module
    docstring); ``xbar_i`` the tied group's mean of ``x`` under ``avg``, else ``x`` itself."""
    max_n = 1
    for q in range(q0, q1):
        max_n = max(max_n, offsets[q + 1] - offsets[q])
    pre = np.zeros(max_n + 1)
    w = np.ones(max_n)
    if wkind == _W_RBP:
        for i in range(max_n):
            w[i] = (1.0 - p) * p ** float(i)
    cuts = np.zeros(ks.shape[0], dtype=np.int64)
    for q in range(q0, q1):
        start = offsets[q]
        n = offsets[q + 1] - start
        m = 0
        for t in range(ks.shape[0]):
            k = ks[t]
            if cut_mode == _CUT_K:
                c = n if k == FULL else min(k, n)
            elif cut_mode == _CUT_R:
                c = _below(r[q] if k == FULL else min(r[q], float(k)), n)
            else:
                c = _below(np.floor(cut_x * r[q] + 0.9), n)
            cuts[t] = c
            m = max(m, c)
        acc = 0.0
        i = 0
        while i < m:
            e = i + 1
            if avg:  # the whole tied group, also beyond the cutoff
                s = scores[order[start + i]]
                while e < n and scores[order[start + e]] == s:
                    e += 1
            tot = 0.0
            for y in range(i, e):
                tot += x[order[start + y]]
            mean = tot / (e - i)
            for y in range(i, min(e, m)):
                if wkind == _W_RANK:
                    acc += mean / (y + 1.0)
                else:
                    acc += mean * w[y]
                pre[y + 1] = acc
            i = e
        for t in range(ks.shape[0]):
            out[t, q] = pre[cuts[t]] if cuts[t] > 0 else 0.0


@njit(cache=True, nogil=True, error_model="numpy")
def _iprec(order, offsets, q0, q1, rel, r, x, out):  # type: ignore[no-untyped-def]
    """The largest precision at or after the rank of the ``c``-th relevant document,
    ``c = floor(x R + 0.9)`` (every rank for ``c = 0``); 0 when fewer were retrieved."""
    for q in range(q0, q1):
        start = offsets[q]
        n = offsets[q + 1] - start
        take = max(np.floor(x * r[q] + 0.9), 1.0)  # a float: x R past 2**63 is no integer
        seen = 0
        best = 0.0
        for i in range(n):
            if rel[order[start + i]] > 0.5:
                seen += 1
                if seen >= take:
                    best = max(best, seen / (i + 1.0))
        out[q] = best if seen >= take else 0.0


@njit(cache=True, nogil=True, error_model="numpy")
def _infap(order, offsets, q0, q1, rel, non, pool, eps, out):  # type: ignore[no-untyped-def]
    """trec_eval's infAP sum: over the relevant documents at rank ``j`` (0-based), 1 at
    ``j = 0``, else ``1/(j+1) + (j/(j+1)) ((a+n+u)/j) ((a+eps)/(a+n+2 eps))`` with ``a``, ``n``,
    ``u`` the relevant, judged non-relevant and pooled-unjudged documents above it."""
    for q in range(q0, q1):
        start = offsets[q]
        n_rows = offsets[q + 1] - start
        a = 0.0
        nn = 0.0
        u = 0.0
        acc = 0.0
        for j in range(n_rows):
            row = order[start + j]
            if rel[row] > 0.5:
                if j == 0:
                    acc += 1.0
                else:
                    jf = float(j)
                    acc += 1.0 / (jf + 1.0) + (jf / (jf + 1.0)) * ((a + nn + u) / jf) * (
                        (a + eps) / ((a + nn) + 2 * eps))
            a += rel[row]
            nn += non[row]
            u += pool[row]
        out[q] = acc


@njit(cache=True, nogil=True, error_model="numpy")
def _auc(order, offsets, q0, q1, rel, scores, out_auc, out_pairs):  # type: ignore[no-untyped-def]
    """Per query the (relevant, non-relevant) pairs ordered right, a tied pair counting 1/2,
    and the number of pairs; ``1 - rel`` is the non-relevance (every row counts)."""
    for q in range(q0, q1):
        start = offsets[q]
        n = offsets[q + 1] - start
        n_non = 0.0
        r_q = 0.0
        for i in range(n):
            v = rel[order[start + i]]
            n_non += 1.0 - v
            r_q += v
        above = 0.0
        wins = 0.0
        i = 0
        while i < n:
            s = scores[order[start + i]]
            e = i + 1
            while e < n and scores[order[start + e]] == s:
                e += 1
            tied = 0.0
            for y in range(i, e):
                tied += 1.0 - rel[order[start + y]]
            above += tied
            below = n_non - above
            for y in range(i, e):
                wins += rel[order[start + y]] * (below + 0.5 * tied)
            i = e
        out_auc[q] = wins
        out_pairs[q] = r_q * n_non


@njit(inline="always", error_model="numpy")
def _before(a, b, scores, gain, tiekey, mode):  # type: ignore[no-untyped-def]
    """Whether row ``a`` ranks before row ``b``: score descending, then the tie rule (``mode``
    as :data:`bench.metrics.kernels.numba_kernel.MODES`: gain ascending / descending, the tie
    key ascending), then row order -- the order of ``rank_order``'s ``np.lexsort``."""
    sa = scores[a]
    sb = scores[b]
    if sa != sb:
        return sa > sb
    if mode == 2 or mode == 3:
        if gain[a] != gain[b]:
            return gain[a] < gain[b] if mode == 2 else gain[a] > gain[b]
    elif mode == 4 and tiekey[a] != tiekey[b]:
        return tiekey[a] < tiekey[b]
    return a < b


@njit(cache=True, nogil=True, error_model="numpy")
def _order(offsets, q0, q1, scores, gain, tiekey, mode, out):  # type: ignore[no-untyped-def]
    """``out[start:stop]`` = the rows of each query ``q0 .. q1 - 1`` in ranking order: runs of
    16 by insertion, then bottom-up merges (Knuth, TAOCP vol. 3, 5.2.4); the order is total
    (row order breaks the last ties), so it is ``np.lexsort``'s exactly."""
    max_n = 1
    for q in range(q0, q1):
        max_n = max(max_n, offsets[q + 1] - offsets[q])
    tmp = np.empty(max_n, dtype=np.int64)
    for q in range(q0, q1):
        start = offsets[q]
        n = offsets[q + 1] - start
        a = out[start:start + n]
        for lo in range(0, n, 16):
            hi = min(lo + 16, n)
            for i in range(lo, hi):
                v = start + i
                j = i - 1
                while j >= lo and _before(v, a[j], scores, gain, tiekey, mode):
                    a[j + 1] = a[j]
                    j -= 1
                a[j + 1] = v
        width = 16
        in_a = True  # where the sorted runs are: a, or tmp
        while width < n:
            src = a if in_a else tmp
            dst = tmp if in_a else a
            for lo in range(0, n, 2 * width):
                mid = min(lo + width, n)
                hi = min(lo + 2 * width, n)
                i = lo
                j = mid
                for o in range(lo, hi):
                    if j >= hi or (i < mid and not _before(src[j], src[i], scores, gain, tiekey,
                                                           mode)):
                        dst[o] = src[i]
                        i += 1
                    else:
                        dst[o] = src[j]
                        j += 1
            in_a = not in_a
            width *= 2
        if not in_a:
            for i in range(n):
                a[i] = tmp[i]


def rank_order(scores: Array, gain: Array, offsets: NDArray[np.int64], mode: int,
               tiekey: NDArray[np.int64] | None, threads: int | None = None
               ) -> NDArray[np.int64]:
    """:func:`bench.metrics.kernels.numpy_kernel.rank_order` compiled: every query sorted on its
    own (:func:`_order`), blocks of queries in threads from 2**20 rows on; the same order."""
    out = np.empty(scores.shape[0], dtype=np.int64)
    key = np.zeros(1, dtype=np.int64) if tiekey is None else tiekey
    n_threads = usable_cpus(threads) if out.shape[0] >= _PARALLEL_ROWS else 1
    _run_blocks(lambda q0, q1: _order(offsets, q0, q1, scores, gain, key, mode, out), offsets,
                n_threads)
    return out


#: The components with a compiled twin here, and the sums each kernel gives.
TWINS = ("rprec", "fall", "crr", "rprec_mult", "rbp", "rbp_residual", "iprec", "infap", "auc",
         "auc_pairs")
#: :func:`_linear`'s input, weight and cutoff for each linear component.
_LINEAR: dict[str, tuple[str, int, int]] = {
    "rprec": ("rel", _W_ONE, _CUT_R), "fall": ("non", _W_ONE, _CUT_K),
    "crr": ("rel", _W_RANK, _CUT_K), "rprec_mult": ("rel", _W_ONE, _CUT_MULT),
    "rbp": ("rel", _W_RBP, _CUT_K), "rbp_residual": ("unj", _W_RBP, _CUT_K)}


def ranked_components(
    order: NDArray[np.int64], scores: Array, offsets: NDArray[np.int64], rows: dict[str, Array],
    *, r_basis: Array, average: bool, ks: dict[str, tuple[int | None, ...]],
    eps: float, threads: int | None = None,
) -> dict[tuple[str, int | None], Array]:
    """The components named in ``ks`` (``name`` -> cutoffs; all in :data:`TWINS`, a parameter
    as ``rbp=0.8``), keyed ``(name, k)`` as :class:`~bench.metrics.kernels.components.Components`.

    ``order``: every query's rows in ranking order (queries contiguous, as ``offsets``);
    ``rows``: per row (row order) ``rel`` (0/1), ``non`` (judged non-relevant), ``unj``
    (unjudged), ``pool`` (in the pool, unjudged); ``scores`` as the profile ranks them (tied
    groups under ``average``); ``r_basis``: R per query; ``eps``: infAP's epsilon. From 2**20
    rows on, blocks of queries run in ``threads`` threads (default: the CPUs this process may
    use)."""
    n_q = offsets.shape[0] - 1
    jobs: list[tuple[Callable[..., None], tuple[Any, ...]]] = []  # (kernel, its own arguments)
    out: dict[tuple[str, int | None], Array] = {}
    auc: tuple[Array, Array] | None = None
    for name, cut in ks.items():
        base, param = split_param(name)
        if base in _LINEAR:
            src, wkind, mode = _LINEAR[base]
            karr = np.asarray([FULL if k is None else k for k in cut], dtype=np.int64)
            res = np.zeros((karr.shape[0], n_q), dtype=np.float64)
            x = 0.0 if param is None else float(param)
            jobs.append((_linear, (rows[src], scores, average, wkind, x, karr, r_basis, mode, x,
                                   res)))
            out.update({(name, k): res[t] for t, k in enumerate(cut)})
            continue
        res = np.zeros(n_q, dtype=np.float64)
        if base == "iprec":
            assert param is not None, name
            jobs.append((_iprec, (rows["rel"], r_basis, float(param), res)))
        elif base == "infap":
            jobs.append((_infap, (rows["rel"], rows["non"], rows["pool"], eps, res)))
        elif base in ("auc", "auc_pairs"):
            if auc is None:
                auc = (res, np.zeros(n_q, dtype=np.float64))
                jobs.append((_auc, (rows["rel"], scores, auc[0], auc[1])))
            res = auc[0] if base == "auc" else auc[1]
        out.update({(name, k): res for k in cut})
    n_threads = usable_cpus(threads) if order.shape[0] >= _PARALLEL_ROWS else 1
    def block(q0: int, q1: int) -> None:
        for kernel, args in jobs:  # each query's rows once per kernel, in ranking order
            kernel(order, offsets, q0, q1, *args)

    _run_blocks(block, offsets, n_threads)
    return out
