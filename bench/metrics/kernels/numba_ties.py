"""Expected components of tied groups (``ties="average"``) for the compiled kernel.

Not cached on their own (``cache=True`` only on the kernel, which is salted with this file's
contents: see :mod:`bench.metrics.kernels.numba_query`).

McSherry & Najork, "Computing information retrieval performance measures efficiently in the
presence of tied scores" (ECIR 2008): a group of ``t`` tied rows at positions ``p .. p + t - 1``
holding gain ``G`` and ``r`` relevant rows contributes, at its ``j``-th position (1-based),

* DCG ``D(p + j - 1) * G / t``; hits ``r / t``;
* AP numerator ``((r / t) (h + 1) + (j - 1) r (r - 1) / (t (t - 1))) / (p + j)``, ``h`` = relevant
  rows before the group;
* cascade metrics (RR, hits, ERR): ``reach * (eps_{j-1} - eps_j)`` where ``eps_m`` is the mean
  over the ``m``-subsets of the group of ``prod (1 - R)`` (for binary relevance
  ``C(t - r, m) / C(t, m)``), ``reach`` = ``prod (1 - R)`` over the rows before the group.

These are the formulas of :mod:`bench.metrics.kernels.numpy_kernel` (the oracle), one query at a time.
"""

from __future__ import annotations

from numba import njit

from bench.metrics.kernels.numba_order import _score, _tie_before


@njit(error_model="numpy")
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


@njit(error_model="numpy")
def _group_err(ghist, mg, err_r, eps):  # type: ignore[no-untyped-def]
    """``eps[0..mg]`` of a tied group with label counts ``ghist``; returns ``prod (1 - R)``.

    One row at a time: with ``n`` rows so far and a new one of ``q = 1 - R``,
    ``eps'_m = ((n + 1 - m) eps_m + m q eps_{m-1}) / (n + 1)`` (a convex combination).
    """
    eps[0] = 1.0
    for mm in range(1, mg + 1):
        eps[mm] = 0.0
    done = 0
    prod = 1.0
    for v in range(ghist.shape[0]):
        qv = 1.0 - err_r[v]
        for _ in range(ghist[v]):
            n1 = done + 1.0
            top = min(done + 1, mg)
            for mm in range(top, 0, -1):
                eps[mm] = ((n1 - mm) * eps[mm] + mm * qv * eps[mm - 1]) / n1
            done += 1
            prod *= qv
    return prod


@njit(error_model="numpy")
def _average_positions(labels, buf, bufs, m, c, gain, rel, err_r, disc, need_ap, need_rr,  # type: ignore[no-untyped-def]
                       need_err, c_dcg, c_hits, c_ap, c_rr, c_any, c_err, ghist, eps):
    """Per-position contributions of the top ``m`` of ``c`` ordered candidates, tied groups
    averaged; a group at the cutoff counts all its rows (also those at ``m .. c - 1``).

    Returns the position where the group at the cutoff starts (``m`` if none straddles it).
    """
    n_lab = gain.shape[0]
    b_start = m
    b_end = m
    if 0 < m < c and bufs[m] == bufs[m - 1]:
        b_start = m - 1
        while b_start > 0 and bufs[b_start - 1] == bufs[m - 1]:
            b_start -= 1
        while b_end < c and bufs[b_end] == bufs[m - 1]:
            b_end += 1
    h = 0.0
    reach = 1.0
    reach_err = 1.0
    p = 0
    while p < m:
        e = p + 1
        while e < m and bufs[e] == bufs[p]:
            e += 1
        full_e = b_end if p == b_start else e  # the whole group, beyond the cutoff too
        t = full_e - p
        g_sum = 0.0
        r = 0.0
        for x in range(p, full_e):
            li = int(labels[buf[x]])
            g_sum += gain[li]
            r += rel[li]
        tf = float(t)
        if t == 1:
            c_dcg[p] = disc[p] * g_sum
            c_hits[p] = r
            c_ap[p] = r * (h + 1.0) / (p + 1.0)
        else:
            for x in range(p, e):
                j = x - p + 1
                c_dcg[x] = disc[x] * (g_sum / tf)
                c_hits[x] = r / tf
                if need_ap:
                    pair = (j - 1.0) * r * (r - 1.0) / (tf * (tf - 1.0))
                    c_ap[x] = ((r / tf) * (h + 1.0) + pair) / (x + 1.0)
        if need_rr:
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
            if t == 1:
                rr_ = err_r[int(labels[buf[p]])]
                c_err[p] = reach_err * rr_ / (p + 1.0)
                reach_err *= 1.0 - rr_
            else:
                for v in range(n_lab):
                    ghist[v] = 0
                for x in range(p, full_e):
                    ghist[int(labels[buf[x]])] += 1
                prod = _group_err(ghist, e - p, err_r, eps)
                for x in range(p, e):
                    j = x - p + 1
                    c_err[x] = reach_err * (eps[j - 1] - eps[j]) / (x + 1.0)
                reach_err *= prod
        h += r
        p = e
    return b_start


@njit(error_model="numpy")
def _rr_outside(labels, scores, f32, start, n, best, avg, mode, rel, gain, tiekey):  # type: ignore[no-untyped-def]
    """Reciprocal rank of a query whose first relevant row (score ``best``, the highest score
    of a relevant row) is not known from the ordered top: one scan counts the rows above it and
    the relevant rows tied with it (``average``: the expectation over the tied group)."""
    gt = 0
    eq = 0
    req = 0
    first = -1
    for i in range(start, start + n):
        si = _score(scores, i, f32)
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
        si = _score(scores, i, f32)
        if si == best and i != first and _tie_before(i, first, mode, labels, gain, tiekey):
            before += 1
    return 1.0 / (gt + before + 1.0)
