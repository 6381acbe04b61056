"""The compiled per-query kernel: every component of every query in one pass over its rows.

Per query of ``n`` rows (``m`` = the deepest cutoff asked, ``n`` for an uncut DCG, AP or ERR):

1. one read of the scores gives a threshold that at least ``m`` rows reach and counts labels
   (the ideal DCG and ``R`` come from the counts, no sort); one pass over the rows then keeps
   those at or above the threshold (the candidates), branch-free;
2. only the candidates are ordered (counting sort, exact tie rule): the top ``m`` and every row
   tied with position ``m - 1`` (:mod:`bench.metrics.kernels.numba_order`);
3. the components (:mod:`bench.metrics.kernels.components`) are summed position by position into
   prefix sums read at each cutoff; groups of tied scores under ``ties="average"`` take the
   expected values of :mod:`bench.metrics.kernels.numba_ties`, the rest one row per position;
4. the tie diagnostic looks at the ordered candidates and, for whole-list metrics, at equal
   scores among the other rows (a hash set); a whole-list reciprocal rank whose first relevant
   row is outside the top ``m`` is found by one more scan (rare).

Work per query is ``O(n + c^2 / 8 + m)`` for ``c`` candidates (about ``0.4 n``), all scratch is
allocated once per call. The NumPy kernel is the oracle (``tests/test_metrics_fastpath.py``).

Caching: numba's on-disk cache of a function is keyed by its own file only, so a cached kernel
would keep stale copies of helpers from other files after they change. The helpers are not
cached; the kernel is made by :func:`_make_kernel` as a closure over a digest of the helper
modules' sources (numba keys cached closures by their cell contents too).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
from numba import njit

import bench.metrics.kernels.numba_order as numba_order
import bench.metrics.kernels.numba_ties as numba_ties
from bench.metrics.kernels.numba_order import (
    _BITMAP_WORDS,
    RANK_MAX,
    _has_duplicate,
    _rank_candidates,
    _score,
    _sort_candidates,
    _threshold,
)
from bench.metrics.kernels.numba_ties import _average_positions, _rr_outside

#: ``k`` = "whole list" in the cutoff arrays.
FULL = -1
#: Queries with more rows below the threshold than this check equal scores by sorting.
_TABLE_ROWS = 4096


@njit(inline="always", error_model="numpy")
def _emit(ks, pre, n, out, qo):  # type: ignore[no-untyped-def]
    for t in range(ks.shape[0]):
        out[t, qo] = pre[n if ks[t] == FULL else min(ks[t], n)]


@njit(inline="always", error_model="numpy")
def _prefix(contrib, pre, m):  # type: ignore[no-untyped-def]
    acc = 0.0
    pre[0] = 0.0
    for x in range(m):
        acc += contrib[x]
        pre[x + 1] = acc
    return acc


@njit(inline="always", error_model="numpy")
def _ideal(hist, extra_hist, has_extra, q, qo, n, order, gain, cdisc, ks_idcg, out_idcg):  # type: ignore[no-untyped-def]
    """Ideal DCG at each cutoff from the label counts, without a sort.

    The ideal ranking holds the labels in ``order`` (gain first): label ``v`` fills positions
    ``s_v .. e_v - 1``, so ``IDCG@k = sum_v g_v (C(min(k, e_v)) - C(min(k, s_v)))`` with
    ``C(p) = sum_{i < p} D(i)`` (``cdisc``).
    """
    n_lab = gain.shape[0]
    n_ks = ks_idcg.shape[0]
    n_basis = n
    if has_extra:
        for v in range(n_lab):
            n_basis += extra_hist[q, v]
    for t in range(n_ks):
        out_idcg[t, qo] = 0.0
    s = 0
    for oi in range(n_lab):
        v = order[oi]
        g = gain[v]
        if g <= 0.0:
            break
        e = s + hist[v]
        if has_extra:
            e += extra_hist[q, v]
        for t in range(n_ks):
            k = n_basis if ks_idcg[t] == FULL else min(ks_idcg[t], n_basis)
            out_idcg[t, qo] += g * (cdisc[min(k, e)] - cdisc[min(k, s)])
        s = e


def _make_kernel(salt: int):  # type: ignore[no-untyped-def]
    @njit(cache=True, nogil=True, error_model="numpy")
    def kernel(  # type: ignore[no-untyped-def]
        labels, scores, offsets, q0, mode, tiekey, gain, rel, err_r, order, disc, extra_hist,
        has_extra, m_sel, full_order, ties_k, f32,
        ks_dcg, ks_idcg, ks_hits, ks_ap, ks_rr, ks_err, ks_any,
        out_dcg, out_idcg, out_hits, out_ap, out_rr, out_err, out_any,
        out_r_list, out_r_basis, out_has_gain, out_ties,
    ):
        if salt == 0:  # the digest of the helper sources is part of the cache key
            return
        n_q = offsets.shape[0] - 1
        n_lab = gain.shape[0]
        max_n = 1
        for q in range(n_q):
            max_n = max(max_n, offsets[q + 1] - offsets[q])
        n_basis_max = max_n
        if has_extra:
            for q in range(n_q):
                tot = offsets[q + 1] - offsets[q]
                for v in range(n_lab):
                    tot += extra_hist[q, v]
                n_basis_max = max(n_basis_max, tot)
        cap = max_n + 8
        cs = np.empty(cap)
        ci = np.empty(cap, dtype=np.int64)
        ns = np.empty(cap)
        buf = np.empty(cap, dtype=np.int64)
        bufs = np.empty(cap)
        rank = np.empty(cap, dtype=np.int64)
        tmp = np.empty(cap, dtype=np.int64)
        size = 16
        while size < 4 * min(max_n, _TABLE_ROWS):
            size *= 2
        table = np.empty(size)
        bitmap = np.empty(_BITMAP_WORDS, dtype=np.uint64)
        contrib = np.zeros((6, cap))  # dcg, hits, ap, rr, any, err per position
        pre = np.zeros((6, cap + 1))
        hist = np.zeros(n_lab, dtype=np.int64)
        ghist = np.zeros(n_lab, dtype=np.int64)
        eps = np.zeros(cap + 1)
        cdisc = np.zeros(n_basis_max + 1)  # cdisc[p] = D(0) + ... + D(p - 1)
        for x in range(n_basis_max):
            cdisc[x + 1] = cdisc[x] + disc[x]
        inv_rank = np.empty(cap)
        for x in range(cap):
            inv_rank[x] = 1.0 / (x + 1.0)
        need_err = ks_err.shape[0] > 0
        need_rr = ks_rr.shape[0] > 0 or ks_any.shape[0] > 0
        need_ap = ks_ap.shape[0] > 0
        avg = mode == 1
        neg_inf = -np.inf

        for q in range(n_q):
            qo = q0 + q  # the query's column in the (cutoff, query) outputs
            start = offsets[q]
            stop = offsets[q + 1]
            n = stop - start
            m = n if full_order else min(n, m_sel)
            tk = n if ties_k == FULL else min(n, ties_k)
            need_dups = tk > m
            # ---- one pass: label counts, candidates (rows reaching the threshold) ----------
            for v in range(n_lab):
                hist[v] = 0
            thr = _threshold(scores, labels, start, n, m, f32, hist)
            c = 0
            k = 0
            if need_dups:  # also keep the other scores, for the whole-list tie check
                for i in range(start, stop):
                    si = _score(scores, i, f32)
                    cs[c] = si
                    ci[c] = i
                    ns[k] = si
                    keep = si >= thr
                    c += keep
                    k += not keep
            else:
                for i in range(start, stop):
                    si = _score(scores, i, f32)
                    cs[c] = si
                    ci[c] = i
                    c += si >= thr
            tied = False
            if c > RANK_MAX:
                tied = _sort_candidates(cs, ci, c, buf, bufs, rank, tmp, mode, labels, gain, tiekey)
            elif c > 0:
                tied = _rank_candidates(cs, ci, c, buf, bufs, rank, mode, labels, gain, tiekey)
            # ---- tie diagnostic: a tied group starting before position tk ----------------
            flag = False
            if tied:
                for p in range(1, min(tk, c - 1) + 1):
                    if bufs[p] == bufs[p - 1]:
                        flag = True
                        break
            if need_dups and not flag:
                flag = _has_duplicate(ns, k, bitmap, table, cs)
            out_ties[q] = flag
            # ---- relevance counts and ideal DCG (by counting labels) ------------------------
            r_list = 0.0
            r_basis = 0.0
            has_gain = False
            for v in range(n_lab):
                cnt = hist[v]
                if has_extra:
                    cnt += extra_hist[q, v]
                r_list += hist[v] * rel[v]
                r_basis += cnt * rel[v]
                if cnt > 0 and gain[v] > 0:
                    has_gain = True
            out_r_list[q] = r_list
            out_r_basis[q] = r_basis
            out_has_gain[q] = has_gain
            if ks_idcg.shape[0] > 0:
                _ideal(hist, extra_hist, has_extra, q, qo, n, order, gain, cdisc, ks_idcg,
                       out_idcg)
            # ---- components position by position, as prefix sums -------------------------
            grouped = False
            if avg and tied:
                for p in range(1, min(m, c - 1) + 1):
                    if bufs[p] == bufs[p - 1]:
                        grouped = True
                        break
            b_start = m
            if grouped:
                b_start = _average_positions(
                    labels, buf, bufs, m, c, gain, rel, err_r, disc, need_ap, need_rr, need_err,
                    contrib[0], contrib[1], contrib[2], contrib[3], contrib[4], contrib[5],
                    ghist, eps,
                )
                for x in range(6):
                    _prefix(contrib[x], pre[x], m)
            else:
                d_acc = 0.0
                h = 0.0
                a_acc = 0.0
                rr_acc = 0.0
                any_acc = 0.0
                e_acc = 0.0
                reach = 1.0
                reach_err = 1.0
                for p in range(m):
                    li = int(labels[buf[p]])
                    r = rel[li]
                    d_acc += disc[p] * gain[li]
                    a_acc += r * (h + 1.0) * inv_rank[p]
                    h += r
                    pre[0, p + 1] = d_acc
                    pre[1, p + 1] = h
                    pre[2, p + 1] = a_acc
                    if need_rr:
                        hit = reach * r
                        any_acc += hit
                        rr_acc += hit * inv_rank[p]
                        reach *= 1.0 - r  # rel is 0 or 1
                        pre[3, p + 1] = rr_acc
                        pre[4, p + 1] = any_acc
                    if need_err:
                        e = err_r[li]
                        e_acc += reach_err * e * inv_rank[p]
                        reach_err *= 1.0 - e
                        pre[5, p + 1] = e_acc
            # ---- sums at each cutoff -----------------------------------------------------
            _emit(ks_dcg, pre[0], n, out_dcg, qo)
            _emit(ks_ap, pre[2], n, out_ap, qo)
            _emit(ks_err, pre[5], n, out_err, qo)
            for t in range(ks_hits.shape[0]):
                if ks_hits[t] == FULL and m < n:
                    out_hits[t, qo] = r_list
                else:
                    out_hits[t, qo] = pre[1, n if ks_hits[t] == FULL else min(ks_hits[t], n)]
            for t in range(ks_any.shape[0]):
                if ks_any[t] == FULL and m < n:
                    out_any[t, qo] = 1.0 if r_list > 0 else 0.0
                else:
                    out_any[t, qo] = pre[4, n if ks_any[t] == FULL else min(ks_any[t], n)]
            for t in range(ks_rr.shape[0]):
                if not (ks_rr[t] == FULL and m < n):
                    out_rr[t, qo] = pre[3, n if ks_rr[t] == FULL else min(ks_rr[t], n)]
                    continue
                found = pre[4, m] > 0  # a relevant row in the top m (tied groups: see below)
                if grouped:
                    found = False
                    for x in range(b_start):  # not in a group that straddles the cutoff
                        if rel[int(labels[buf[x]])] > 0:
                            found = True
                            break
                if found:
                    out_rr[t, qo] = pre[3, m]
                    continue
                best = neg_inf  # highest score of a relevant row
                for i in range(start, stop):
                    si = _score(scores, i, f32)
                    if rel[int(labels[i])] > 0 and si > best:
                        best = si
                if best == neg_inf:
                    out_rr[t, qo] = 0.0
                else:
                    out_rr[t, qo] = _rr_outside(labels, scores, f32, start, n, best, avg, mode,
                                               rel, gain, tiekey)

    return kernel


def _source_digest() -> int:
    """A 56-bit digest of the helper modules the kernel compiles in (never 0)."""
    h = hashlib.sha256()
    for mod in (numba_order, numba_ties):
        h.update(Path(str(mod.__file__)).read_bytes())
    return int.from_bytes(h.digest()[:7], "little") | 1


components_kernel = _make_kernel(_source_digest())
