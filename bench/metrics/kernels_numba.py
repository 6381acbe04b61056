"""Compiled kernel (numba, ``cache=True``, GIL released): no global sort, one pass per query.

Per query of ``n`` documents with integer labels:

1. one pass over the rows counts labels (the ideal DCG and ``R`` come from these counts, without
   sorting) and keeps the top ``m`` rows in score order in a small insertion buffer (``m`` = the
   largest cutoff asked); the whole query is merge-sorted only when a metric without cutoff
   needs the full order, or ``m > 64``. The highest score left out of the buffer is tracked;
2. only when that score equals the buffer's last one (a tied group straddles the cutoff) does a
   second pass count the tied rows (their number, gains and relevance, for average ties and the
   tie diagnostic); only when the top ``m`` hold no relevant row does the reciprocal rank of the
   whole list scan the query again;
3. the components (:mod:`bench.metrics.components`) are summed position by position, with the
   same expected-value formulas for ``ties="average"`` as :mod:`bench.metrics.kernels_numpy`.

Everything the kernel allocates is per call and small (``O(m)``); the outputs are allocated by
the caller, and large inputs are split into blocks of queries run in parallel threads. The NumPy
kernel is the oracle for this one (``tests/test_metrics_fastpath.py``).
"""

from __future__ import annotations

import itertools
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit
from numpy.typing import NDArray

from bench.metrics.components import Components, Request

_PARALLEL_ROWS = 1 << 20
MODES = {"stable": 0, "average": 1, "pessimistic": 2, "optimistic": 3, "random": 4, "docno_desc": 4}
_INSERTION_MAX = 64
FULL = -1


@njit(cache=True, inline="always")
def _tie_before(i, j, mode, labels, gain, tiekey):  # type: ignore[no-untyped-def]
    """Order of two rows with equal scores: row order, gain (pessimistic/optimistic) or a key."""
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


@njit(cache=True, inline="always")
def _before(i, j, si, sj, mode, labels, gain, tiekey):  # type: ignore[no-untyped-def]
    if si > sj:
        return True
    if si < sj:
        return False
    return _tie_before(i, j, mode, labels, gain, tiekey)


@njit(cache=True)
def _merge_sort(idx, tmp, n, scores, mode, labels, gain, tiekey):  # type: ignore[no-untyped-def]
    width = 1
    src = idx
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
                ia = src[a]
                ib = src[b]
                if _before(ib, ia, scores[ib], scores[ia], mode, labels, gain, tiekey):
                    dst[o] = ib
                    b += 1
                else:
                    dst[o] = ia
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
    if src is not idx:
        for i in range(n):
            idx[i] = src[i]


@njit(cache=True)
def _count_equal(scores, start, stop, v):  # type: ignore[no-untyped-def]
    c = 0
    for i in range(start, stop):
        c += scores[i] == v
    return c


@njit(cache=True)
def _expected_rr(gt, eq, req):  # type: ignore[no-untyped-def]
    """E[1 / (gt + X)], X = rank of the first of ``req`` relevant rows among ``eq`` tied rows."""
    tf = float(eq)
    r = float(req)
    e0 = 1.0
    acc = 0.0
    for j in range(1, eq + 1):
        num = tf - r - (j - 1.0)
        e1 = e0 * num / (tf - (j - 1.0)) if num > 0 else 0.0
        acc += (e0 - e1) / (gt + j)
        e0 = e1
        if e0 == 0.0:
            break
    return acc


@njit(cache=True)
def _rr_outside(labels, scores, start, n, best, avg, mode, rel, gain, tiekey):  # type: ignore[no-untyped-def]
    """Reciprocal rank when the first relevant row is not (wholly) in the top-m buffer."""
    gt = 0
    eq = 0
    req = 0
    first = -1
    for i in range(start, start + n):
        si = scores[i]
        if si > best:
            gt += 1
        elif si == best:
            eq += 1
            if rel[int(labels[i])] > 0:
                req += 1
                if first < 0 or _tie_before(i, first, mode, labels, gain, tiekey):
                    first = i
    if avg:
        return _expected_rr(gt, eq, req)
    before = 0
    for i in range(start, start + n):
        if scores[i] == best and i != first and _tie_before(i, first, mode, labels, gain, tiekey):
            before += 1
    return 1.0 / (gt + before + 1.0)


@njit(cache=True, nogil=True)
def _components_kernel(  # type: ignore[no-untyped-def]
    labels,
    scores,
    offsets,
    mode,
    tiekey,
    gain,
    rel,
    err_r,
    order,
    disc,
    extra_hist,
    has_extra,
    m_sel,
    full_order,
    ties_k,
    ks_dcg,
    ks_idcg,
    ks_hits,
    ks_ap,
    ks_rr,
    ks_err,
    ks_any,
    out_dcg,
    out_idcg,
    out_hits,
    out_ap,
    out_rr,
    out_err,
    out_any,
    out_r_list,
    out_r_basis,
    out_has_gain,
    out_ties,
):
    n_q = offsets.shape[0] - 1
    n_lab = gain.shape[0]
    max_n = 0
    for q in range(n_q):
        max_n = max(max_n, offsets[q + 1] - offsets[q])
    cap = max_n if full_order else min(max_n, max(m_sel, 1))
    if cap > _INSERTION_MAX:
        cap = max_n
    cap = max(cap, 1)
    buf = np.empty(cap, dtype=np.int64)
    bufs = np.empty(cap, dtype=np.float64)
    tmp = np.empty(cap, dtype=np.int64)
    c_dcg = np.zeros(cap)
    c_hits = np.zeros(cap)
    c_ap = np.zeros(cap)
    c_rr = np.zeros(cap)
    c_err = np.zeros(cap)
    c_any = np.zeros(cap)
    hist = np.zeros(n_lab, dtype=np.int64)
    ghist = np.zeros(n_lab, dtype=np.int64)
    bhist = np.zeros(n_lab, dtype=np.int64)
    eps = np.zeros(cap + 1)
    inv_rank = np.empty(cap)
    for x in range(cap):
        inv_rank[x] = 1.0 / (x + 1.0)
    need_err = ks_err.shape[0] > 0
    need_rr = ks_rr.shape[0] > 0 or ks_any.shape[0] > 0
    need_ap = ks_ap.shape[0] > 0
    avg = mode == 1
    n_basis_max = max_n
    if has_extra:
        for q in range(n_q):
            tot = offsets[q + 1] - offsets[q]
            for v in range(n_lab):
                tot += extra_hist[q, v]
            n_basis_max = max(n_basis_max, tot)
    ideal = np.zeros(n_basis_max + 1)
    neg_inf = -np.inf

    for q in range(n_q):
        start = offsets[q]
        stop = offsets[q + 1]
        n = stop - start
        m = n if full_order else min(n, m_sel)
        tk = n if ties_k == FULL else min(n, ties_k)
        for v in range(n_lab):
            hist[v] = 0
        # ---- pass 1: label counts and the top-m rows in order -------------------------------
        if m > _INSERTION_MAX or (full_order and m > 16):
            for i in range(n):
                buf[i] = start + i
                hist[int(labels[start + i])] += 1
            _merge_sort(buf, tmp, n, scores, mode, labels, gain, tiekey)
            for x in range(n):
                bufs[x] = scores[buf[x]]
            out_max = bufs[m] if m < n else neg_inf
        else:
            out_max = neg_inf  # highest score left out of the buffer
            cnt = 0
            for i in range(start, stop):
                li = int(labels[i])
                hist[li] += 1
                si = scores[i]
                if cnt < m:
                    p = cnt
                    cnt += 1
                else:
                    if m == 0:
                        continue
                    last = bufs[m - 1]
                    if si > last or (si == last and mode >= 2 and _tie_before(i, buf[m - 1], mode, labels, gain, tiekey)):
                        p = m - 1
                        out_max = max(out_max, last)
                    else:
                        out_max = max(out_max, si)
                        continue
                while p > 0:
                    prev = bufs[p - 1]
                    if si > prev or (si == prev and mode >= 2 and _tie_before(i, buf[p - 1], mode, labels, gain, tiekey)):
                        bufs[p] = prev
                        buf[p] = buf[p - 1]
                        p -= 1
                    else:
                        break
                bufs[p] = si
                buf[p] = i
        # ---- relevance counts and ideal DCG (by counting labels) ------------------------------
        r_list = 0.0
        r_basis = 0.0
        has_gain = False
        for v in range(n_lab):
            c = hist[v]
            if has_extra:
                c += extra_hist[q, v]
            r_list += hist[v] * rel[v]
            r_basis += c * rel[v]
            if c > 0 and gain[v] > 0:
                has_gain = True
        out_r_list[q] = r_list
        out_r_basis[q] = r_basis
        out_has_gain[q] = has_gain
        if ks_idcg.shape[0] > 0:
            n_basis = n
            if has_extra:
                for v in range(n_lab):
                    n_basis += extra_hist[q, v]
            kmax = 0
            for t in range(ks_idcg.shape[0]):
                kk = n_basis if ks_idcg[t] == FULL else min(ks_idcg[t], n_basis)
                kmax = max(kmax, kk)
            acc = 0.0
            p = 0
            for oi in range(n_lab):
                v = order[oi]
                g = gain[v]
                if g <= 0.0:
                    break
                c = hist[v]
                if has_extra:
                    c += extra_hist[q, v]
                while c > 0 and p < kmax:
                    acc += g * disc[p]
                    p += 1
                    ideal[p] = acc
                    c -= 1
                if p >= kmax:
                    break
            for t in range(ks_idcg.shape[0]):
                kk = n_basis if ks_idcg[t] == FULL else min(ks_idcg[t], n_basis)
                out_idcg[q, t] = ideal[kk] if kk <= p else acc
        # ---- pass 2: only if the score at the buffer's end is tied with a row outside it ------
        b_start = m
        extended = False
        b_t = 0
        b_g = 0.0
        b_r = 0.0
        if m > 0 and m < n:
            vb = bufs[m - 1]
            b_start = m - 1
            while b_start > 0 and bufs[b_start - 1] == vb:
                b_start -= 1
            if out_max == vb and (avg or b_start < tk):
                b_t = _count_equal(scores, start, stop, vb)
                extended = b_t > m - b_start
            if extended and avg:
                if need_err:
                    for v in range(n_lab):
                        bhist[v] = 0
                for i in range(start, stop):
                    if scores[i] == vb:
                        li = int(labels[i])
                        b_g += gain[li]
                        b_r += rel[li]
                        if need_err:
                            bhist[li] += 1
        # ---- pass 3: components position by position ----------------------------------------
        ties_flag = False
        h = 0.0
        reach = 1.0
        reach_err = 1.0
        p = 0
        while p < m:
            e = p + 1
            vp = bufs[p]
            while e < m and bufs[e] == vp:
                e += 1
            beyond = extended and e == m and b_start == p
            if p < tk and (e - p >= 2 or beyond):
                ties_flag = True
            if not avg:
                e = p + 1
            if avg and beyond:
                t = b_t
                g_sum = b_g
                r = b_r
            else:
                t = e - p
                g_sum = 0.0
                r = 0.0
                for x in range(p, e):
                    li = int(labels[buf[x]])
                    g_sum += gain[li]
                    r += rel[li]
            tf = float(t)
            if t == 1:
                c_dcg[p] = disc[p] * g_sum
                c_hits[p] = r
                c_ap[p] = r * (h + 1.0) * inv_rank[p]
            else:
                for x in range(p, e):
                    j = x - p + 1
                    c_dcg[x] = disc[x] * (g_sum / tf)
                    c_hits[x] = r / tf
                    if need_ap:
                        pair = (j - 1.0) * r * (r - 1.0) / (tf * (tf - 1.0))
                        c_ap[x] = ((r / tf) * (h + 1.0) + pair) / (x + 1.0)
            if need_rr and t == 1:
                c_any[p] = reach * r
                c_rr[p] = c_any[p] * inv_rank[p]
                if r > 0:
                    reach = 0.0
            elif need_rr:
                e0 = 1.0
                for x in range(p, e):
                    j = x - p + 1
                    num = tf - r - (j - 1.0)
                    e1 = e0 * num / (tf - (j - 1.0)) if num > 0 else 0.0
                    c_any[x] = reach * (e0 - e1)
                    c_rr[x] = c_any[x] / (x + 1.0)
                    e0 = e1
                if r > 0:
                    reach = 0.0
            if need_err:
                mg = e - p
                if t == 1:
                    rr_ = err_r[int(labels[buf[p]])]
                    c_err[p] = reach_err * rr_ * inv_rank[p]
                    reach_err *= 1.0 - rr_
                else:
                    for v in range(n_lab):
                        ghist[v] = 0
                    if beyond:
                        for v in range(n_lab):
                            ghist[v] = bhist[v]
                    else:
                        for x in range(p, e):
                            ghist[int(labels[buf[x]])] += 1
                    eps[0] = 1.0
                    for mm in range(1, mg + 1):
                        eps[mm] = 0.0
                    done = 0
                    prod = 1.0
                    for v in range(n_lab):
                        qv = 1.0 - err_r[v]
                        for _ in range(ghist[v]):
                            n1 = done + 1.0
                            top = min(done + 1, mg)
                            for mm in range(top, 0, -1):
                                eps[mm] = ((n1 - mm) * eps[mm] + mm * qv * eps[mm - 1]) / n1
                            done += 1
                            prod *= qv
                    for x in range(p, e):
                        j = x - p + 1
                        c_err[x] = reach_err * (eps[j - 1] - eps[j]) / (x + 1.0)
                    reach_err *= prod
            h += r
            p = e
        if m < n and b_start < tk and extended:
            ties_flag = True
        out_ties[q] = ties_flag
        # ---- sums at each cutoff -------------------------------------------------------------
        _emit(ks_dcg, c_dcg, n, out_dcg, q)
        _emit(ks_ap, c_ap, n, out_ap, q)
        _emit(ks_err, c_err, n, out_err, q)
        for t in range(ks_hits.shape[0]):
            if ks_hits[t] == FULL and m < n:
                out_hits[q, t] = r_list
            else:
                _emit_one(ks_hits, t, c_hits, n, out_hits, q)
        for t in range(ks_any.shape[0]):
            if ks_any[t] == FULL and m < n:
                out_any[q, t] = 1.0 if r_list > 0 else 0.0
            else:
                _emit_one(ks_any, t, c_any, n, out_any, q)
        for t in range(ks_rr.shape[0]):
            if ks_rr[t] == FULL and m < n:
                fr = -1
                for x in range(m):
                    if rel[int(labels[buf[x]])] > 0:
                        fr = x
                        break
                if fr >= 0 and not (avg and extended and fr >= b_start):
                    acc = 0.0
                    for x in range(m):
                        acc += c_rr[x]
                    out_rr[q, t] = acc
                else:
                    best = neg_inf  # highest score of a relevant row
                    for i in range(start, stop):
                        if rel[int(labels[i])] > 0 and scores[i] > best:
                            best = scores[i]
                    if best == neg_inf:
                        out_rr[q, t] = 0.0
                    else:
                        out_rr[q, t] = _rr_outside(labels, scores, start, n, best, avg, mode, rel,
                                                   gain, tiekey)
            else:
                _emit_one(ks_rr, t, c_rr, n, out_rr, q)


@njit(cache=True, inline="always")
def _emit_one(ks, t, contrib, n, out, q):  # type: ignore[no-untyped-def]
    kk = n if ks[t] == FULL else min(ks[t], n)
    acc = 0.0
    for x in range(kk):
        acc += contrib[x]
    out[q, t] = acc


@njit(cache=True)
def _emit(ks, contrib, n, out, q):  # type: ignore[no-untyped-def]
    for t in range(ks.shape[0]):
        kk = n if ks[t] == FULL else min(ks[t], n)
        acc = 0.0
        for x in range(kk):
            acc += contrib[x]
        out[q, t] = acc


def numba_components(
    labels: NDArray[np.float64],
    scores: NDArray[np.float64],
    offsets: NDArray[np.int64],
    *,
    f32: bool,
    ties: str,
    tiekey: NDArray[np.int64] | None,
    gain: NDArray[np.float64],
    rel: NDArray[np.float64],
    err_r: NDArray[np.float64],
    order: NDArray[np.int64],
    disc: NDArray[np.float64],
    request: Request,
    extra_hist: NDArray[np.int64] | None = None,
    threads: int | None = None,
) -> Components:
    """Components of every query with the compiled kernel (integer labels ``< len(gain)``).

    The kernel releases the GIL; with ``threads`` > 1 (default: the CPUs this process may use)
    and at least 2**20 rows, contiguous blocks of queries run in parallel threads, each writing
    its own rows of the outputs.
    """
    n_q = offsets.shape[0] - 1
    ks = {c: np.asarray([FULL if k is None else k for k in request.ks.get(c, ())], dtype=np.int64)
          for c in ("dcg", "idcg", "hits", "ap", "rr", "err", "any")}
    order_ks = [k for c in ("dcg", "hits", "ap", "rr", "err", "any") for k in request.ks.get(c, ())]
    full_order = request.ties_k is None or any(
        k is None for c in ("dcg", "ap", "err") for k in request.ks.get(c, ())
    )
    finite = [k for k in order_ks if k is not None]
    if request.ties_k is not None:
        finite.append(request.ties_k)
    m_sel = max(finite) if finite else 0
    outs = {c: np.empty((n_q, ks[c].shape[0]), dtype=np.float64) for c in ks}
    r_list = np.empty(n_q, dtype=np.float64)
    r_basis = np.empty(n_q, dtype=np.float64)
    has_gain = np.empty(n_q, dtype=np.bool_)
    ties_flag = np.empty(n_q, dtype=np.bool_)
    has_extra = extra_hist is not None
    eh = extra_hist if extra_hist is not None else np.zeros((1, gain.shape[0]), dtype=np.int64)
    tk = np.zeros(1, dtype=np.int64) if tiekey is None else tiekey
    if f32:
        scores = scores.astype(np.float32).astype(np.float64)
    ties_k = FULL if request.ties_k is None else request.ties_k
    names = ("dcg", "idcg", "hits", "ap", "rr", "err", "any")

    def block(q0: int, q1: int) -> None:
        _components_kernel(
            labels, scores, offsets[q0 : q1 + 1], MODES[ties], tk, gain, rel, err_r, order, disc,
            eh[q0:q1] if has_extra else eh, has_extra, m_sel, full_order, ties_k,
            *(ks[c] for c in names), *(outs[c][q0:q1] for c in names),
            r_list[q0:q1], r_basis[q0:q1], has_gain[q0:q1], ties_flag[q0:q1],
        )

    n_threads = _thread_count(threads) if labels.shape[0] >= _PARALLEL_ROWS else 1
    n_threads = max(1, min(n_threads, n_q))
    if n_threads == 1:
        block(0, n_q)
    else:
        # a few blocks per thread, so that a thread slowed by other work does not hold the rest
        n_blocks = 4 * n_threads
        cuts = np.searchsorted(offsets, np.linspace(0, offsets[-1], n_blocks + 1)[1:-1])
        bounds = [0, *sorted({int(c) for c in cuts if 0 < c < n_q}), n_q]
        with ThreadPoolExecutor(max_workers=n_threads) as pool:
            for f in [pool.submit(block, a, b) for a, b in itertools.pairwise(bounds)]:
                f.result()
    comps = Components(
        n=np.diff(offsets).astype(np.int64),
        r_list=r_list,
        r_basis=r_basis,
        has_gain=has_gain,
        ties=ties_flag,
    )
    for c in ks:
        for t, k in enumerate(request.ks.get(c, ())):
            comps.values[(c, k)] = outs[c][:, t]
    return comps


@njit(cache=True, nogil=True)
def _scan(labels, scores, lo, hi):  # type: ignore[no-untyped-def]
    bad_score = -1
    nonfinite = -1
    negative = -1
    nonint = -1
    top = 0.0
    for i in range(lo, hi):
        if bad_score < 0 and not np.isfinite(scores[i]):
            bad_score = i
        v = labels[i]
        if not np.isfinite(v):
            if nonfinite < 0:
                nonfinite = i
            continue
        if v < 0 and negative < 0:
            negative = i
        if v != np.floor(v) and nonint < 0:
            nonint = i
        top = max(top, v)
    return bad_score, nonfinite, negative, nonint, top


@njit(cache=True, nogil=True)
def _run_starts(q):  # type: ignore[no-untyped-def]
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


def run_offsets(qid: NDArray[np.int64]) -> NDArray[np.int64] | None:
    """Group offsets of an integer qid whose runs are all distinct queries, else ``None``.

    ``None`` means some query id appears in two separate runs; the caller then reports the
    first offending row. (A faster stand-in for ``offsets_from_qid`` on large inputs.)
    """
    offsets = _run_starts(qid)
    heads = qid[offsets[:-1]]
    if heads.shape[0] > 1 and not np.all(heads[1:] > heads[:-1]):
        ordered = np.sort(heads)
        if np.any(ordered[1:] == ordered[:-1]):
            return None
    return offsets


def scan_inputs(
    labels: NDArray[np.float64], scores: NDArray[np.float64], threads: int | None = None
) -> tuple[int, int, int, int, float]:
    """One pass over both arrays: the first row with a non-finite score, a non-finite label, a
    negative label and a non-integer label (-1 where none), and the largest finite label."""
    n = labels.shape[0]
    n_threads = _thread_count(threads) if n >= _PARALLEL_ROWS else 1
    if n_threads <= 1:
        a, b, c, d, e = _scan(labels, scores, 0, n)
        return int(a), int(b), int(c), int(d), float(e)
    cuts = np.linspace(0, n, n_threads + 1).astype(np.int64)
    with ThreadPoolExecutor(max_workers=n_threads) as pool:
        parts = list(pool.map(lambda ab: _scan(labels, scores, ab[0], ab[1]),
                              itertools.pairwise(cuts.tolist())))
    firsts = []
    for k in range(4):
        hits = [int(p[k]) for p in parts if p[k] >= 0]
        firsts.append(min(hits) if hits else -1)
    return firsts[0], firsts[1], firsts[2], firsts[3], float(max(p[4] for p in parts))


def _thread_count(threads: int | None) -> int:
    if threads is not None:
        return max(1, int(threads))
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1
