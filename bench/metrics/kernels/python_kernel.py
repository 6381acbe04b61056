"""The compiled kernel's arithmetic run by the interpreter: the same numbers, no numba import.

:func:`python_components` takes the arguments of
:func:`bench.metrics.kernels.numba_kernel.numba_components` and returns the same
:class:`Components`, bit for bit: every sum is taken in the compiled kernel's order with the
same operations (:mod:`bench.metrics.kernels.numba_query`: prefix sums position by position,
``1 / (p + 1)`` as a multiplied reciprocal, the ideal DCG from label counts over a prefix sum of
discounts; :mod:`bench.metrics.kernels.numba_ties`: the tied-group expectations), in Python
floats (IEEE doubles, as the compiled code without ``fastmath``). Only the ordering differs in
how it is found (one ``sorted`` per query with the tie rule's key instead of a threshold and a
counting sort), not in its result: the tie rules of
:mod:`bench.metrics.kernels.numba_order` are total orders.

It is the small-input path of :func:`bench.metrics.evaluate` (``backend="auto"`` below
:data:`bench.metrics.kernels.small.SMALL_INPUT_ROWS` rows while numba is not loaded; see
:mod:`bench.metrics.kernels.small`): importing numba and loading the cached kernels costs more
than this path takes on a few hundred thousand rows (about 4.5 us per row).
``tests/test_metrics_small_path.py`` checks it against the compiled kernel with exact equality.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from bench.metrics.kernels.components import Components, Request

_NAMES = ("dcg", "idcg", "hits", "ap", "rr", "err", "any")
#: The compiled kernel's tie-rule numbers (``numba_kernel.MODES``).
_MODES = {"stable": 0, "average": 1, "pessimistic": 2, "optimistic": 3}


@dataclass
class _Tables:
    """Per-call inputs as Python lists (one conversion, then plain float arithmetic)."""

    labels: list[int]
    scores: list[float]
    gain: list[float]
    rel: list[float]
    err_r: list[float]
    order: list[int]
    disc: list[float]
    cdisc: list[float]
    inv_rank: list[float]
    tiekey: list[int] | None
    mode: int
    need_ap: bool
    need_rr: bool
    need_err: bool


def python_components(
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
    """:func:`~bench.metrics.kernels.numba_kernel.numba_components`, interpreted (``threads``
    is accepted and unused)."""
    n_q = offsets.shape[0] - 1
    sizes = np.diff(offsets)
    order_ks = [k for c in ("dcg", "hits", "ap", "rr", "err", "any") for k in request.ks.get(c, ())]
    full_order = any(k is None for c in ("dcg", "ap", "err") for k in request.ks.get(c, ()))
    finite = [k for k in order_ks if k is not None]
    if request.ties_k is not None:
        finite.append(request.ties_k)
    m_sel = max(finite) if finite else 0
    max_n = max(1, int(sizes.max()) if n_q else 1)
    extra = None if extra_hist is None else extra_hist.tolist()
    n_basis_max = max_n if extra is None else max(
        [max_n, *(int(sizes[q]) + sum(extra[q]) for q in range(n_q))])
    cdisc = [0.0]
    for x in range(n_basis_max):
        cdisc.append(cdisc[x] + float(disc[x]))
    with np.errstate(over="ignore"):  # beyond float32: inf, as the compiled cast
        s = scores.astype(np.float32).astype(np.float64) if f32 else scores
    cap = max_n + 8
    t = _Tables(
        labels=[int(v) for v in labels.tolist()], scores=s.tolist(), gain=gain.tolist(),
        rel=rel.tolist(), err_r=err_r.tolist(), order=[int(v) for v in order.tolist()],
        disc=disc.tolist(), cdisc=cdisc, inv_rank=[1.0 / (x + 1.0) for x in range(cap)],
        tiekey=None if tiekey is None else tiekey.tolist(), mode=_MODES.get(ties, 4),
        need_ap=bool(request.ks.get("ap")), need_rr=bool(request.ks.get("rr") or request.ks.get("any")),
        need_err=bool(request.ks.get("err")),
    )
    outs = {c: np.zeros((len(request.ks.get(c, ())), n_q), dtype=np.float64) for c in _NAMES}
    comps = Components(n=sizes, r_list=np.empty(n_q), r_basis=np.empty(n_q),
                       has_gain=np.empty(n_q, dtype=np.bool_), ties=np.empty(n_q, dtype=np.bool_))
    bounds = offsets.tolist()
    for q in range(n_q):
        start, stop = bounds[q], bounds[q + 1]
        n = stop - start
        m = n if full_order else min(n, m_sel)
        tk = n if request.ties_k is None else min(n, request.ties_k)
        _query(t, q, start, n, m, tk, request, None if extra is None else extra[q], outs, comps)
    for c in _NAMES:
        for i, k in enumerate(request.ks.get(c, ())):
            comps.values[(c, k)] = outs[c][i]
    return comps


def _ranked(t: _Tables, start: int, n: int) -> list[int]:
    """The query's rows (global indices) in ranking order under the tie rule."""
    rows = range(start, start + n)
    sc, lab, gain = t.scores, t.labels, t.gain
    if t.mode <= 1:
        return sorted(rows, key=lambda i: (-sc[i], i))
    if t.mode == 2:
        return sorted(rows, key=lambda i: (-sc[i], gain[lab[i]], i))
    if t.mode == 3:
        return sorted(rows, key=lambda i: (-sc[i], -gain[lab[i]], i))
    assert t.tiekey is not None, "random, docno and row_desc ties need a tie key"
    key = t.tiekey
    return sorted(rows, key=lambda i: (-sc[i], key[i], i))


def _query(t: _Tables, q: int, start: int, n: int, m: int, tk: int, request: Request,
           extra: list[int] | None, outs: dict[str, NDArray[np.float64]],
           comps: Components) -> None:
    """One query: counts, ideal DCG, the tie flag and the prefix sums read at each cutoff."""
    buf = _ranked(t, start, n)
    bufs = [t.scores[i] for i in buf]
    hist = [0] * len(t.gain)
    for i in range(start, start + n):
        hist[t.labels[i]] += 1
    comps.ties[q] = any(bufs[p] == bufs[p - 1] for p in range(1, min(tk, n - 1) + 1))
    r_list = r_basis = 0.0
    has_gain = False
    for v in range(len(t.gain)):
        cnt = hist[v] + (extra[v] if extra is not None else 0)
        r_list += hist[v] * t.rel[v]
        r_basis += cnt * t.rel[v]
        if cnt > 0 and t.gain[v] > 0:
            has_gain = True
    comps.r_list[q], comps.r_basis[q], comps.has_gain[q] = r_list, r_basis, has_gain
    _ideal(t, hist, extra, n, request.ks.get("idcg", ()), outs["idcg"][:, q])
    grouped = t.mode == 1 and any(bufs[p] == bufs[p - 1] for p in range(1, min(m, n - 1) + 1))
    b_start = m
    if grouped:
        contrib, b_start = _average_positions(t, buf, bufs, m, n)
        pre = [_prefix(c, m) for c in contrib]
    else:
        pre = _plain(t, buf, m)
    _emit(request.ks.get("dcg", ()), pre[0], n, outs["dcg"][:, q])
    _emit(request.ks.get("ap", ()), pre[2], n, outs["ap"][:, q])
    _emit(request.ks.get("err", ()), pre[5], n, outs["err"][:, q])
    for i, k in enumerate(request.ks.get("hits", ())):
        outs["hits"][i, q] = r_list if k is None and m < n else pre[1][_at(k, n)]
    for i, k in enumerate(request.ks.get("any", ())):
        outs["any"][i, q] = (1.0 if r_list > 0 else 0.0) if k is None and m < n else pre[4][_at(k, n)]
    for i, k in enumerate(request.ks.get("rr", ())):
        if not (k is None and m < n):
            outs["rr"][i, q] = pre[3][_at(k, n)]
            continue
        found = pre[4][m] > 0
        if grouped:
            found = any(t.rel[t.labels[buf[x]]] > 0 for x in range(b_start))
        outs["rr"][i, q] = pre[3][m] if found else _rr_whole(t, start, n)


def _at(k: int | None, n: int) -> int:
    return n if k is None else min(k, n)


def _emit(ks: tuple[int | None, ...], pre: list[float], n: int, out: NDArray[np.float64]) -> None:
    for i, k in enumerate(ks):
        out[i] = pre[_at(k, n)]


def _prefix(contrib: list[float], m: int) -> list[float]:
    pre = [0.0] * (m + 1)
    acc = 0.0
    for x in range(m):
        acc += contrib[x]
        pre[x + 1] = acc
    return pre


def _ideal(t: _Tables, hist: list[int], extra: list[int] | None, n: int,
           ks: tuple[int | None, ...], out: NDArray[np.float64]) -> None:
    """``numba_query._ideal``: ``IDCG@k = sum_v g_v (C(min(k, e_v)) - C(min(k, s_v)))``."""
    n_basis = n + (sum(extra) if extra is not None else 0)
    acc = [0.0] * len(ks)
    s = 0
    for v in t.order:
        g = t.gain[v]
        if g <= 0.0:
            break
        e = s + hist[v] + (extra[v] if extra is not None else 0)
        for i, k0 in enumerate(ks):
            k = n_basis if k0 is None else min(k0, n_basis)
            acc[i] += g * (t.cdisc[min(k, e)] - t.cdisc[min(k, s)])
        s = e
    for i in range(len(ks)):
        out[i] = acc[i]


def _plain(t: _Tables, buf: list[int], m: int) -> list[list[float]]:
    """Prefix sums of the top ``m`` positions, one row per position (no tied group averaged)."""
    pre = [[0.0] * (m + 1) for _ in range(6)]
    d_acc = h = a_acc = rr_acc = any_acc = e_acc = 0.0
    reach = reach_err = 1.0
    for p in range(m):
        li = t.labels[buf[p]]
        r = t.rel[li]
        d_acc += t.disc[p] * t.gain[li]
        a_acc += r * (h + 1.0) * t.inv_rank[p]
        h += r
        pre[0][p + 1], pre[1][p + 1], pre[2][p + 1] = d_acc, h, a_acc
        if t.need_rr:
            hit = reach * r
            any_acc += hit
            rr_acc += hit * t.inv_rank[p]
            reach *= 1.0 - r
            pre[3][p + 1], pre[4][p + 1] = rr_acc, any_acc
        if t.need_err:
            e = t.err_r[li]
            e_acc += reach_err * e * t.inv_rank[p]
            reach_err *= 1.0 - e
            pre[5][p + 1] = e_acc
    return pre


def _average_positions(t: _Tables, buf: list[int], bufs: list[float], m: int, c: int
                       ) -> tuple[list[list[float]], int]:
    """``numba_ties._average_positions``: per-position contributions (dcg, hits, ap, rr, any,
    err) of the top ``m``, tied groups averaged; and where the group at the cutoff starts."""
    cd, ch, ca, cr, cn, ce = ([0.0] * max(m, 1) for _ in range(6))
    b_start = b_end = m
    if 0 < m < c and bufs[m] == bufs[m - 1]:
        b_start = m - 1
        while b_start > 0 and bufs[b_start - 1] == bufs[m - 1]:
            b_start -= 1
        while b_end < c and bufs[b_end] == bufs[m - 1]:
            b_end += 1
    h, reach, reach_err, p = 0.0, 1.0, 1.0, 0
    while p < m:
        e = p + 1
        while e < m and bufs[e] == bufs[p]:
            e += 1
        full_e = b_end if p == b_start else e
        tn = full_e - p
        g_sum = r = 0.0
        for x in range(p, full_e):
            li = t.labels[buf[x]]
            g_sum += t.gain[li]
            r += t.rel[li]
        tf = float(tn)
        if tn == 1:
            cd[p], ch[p], ca[p] = t.disc[p] * g_sum, r, r * (h + 1.0) / (p + 1.0)
        else:
            for x in range(p, e):
                j = x - p + 1
                cd[x], ch[x] = t.disc[x] * (g_sum / tf), r / tf
                if t.need_ap:
                    pair = (j - 1.0) * r * (r - 1.0) / (tf * (tf - 1.0))
                    ca[x] = ((r / tf) * (h + 1.0) + pair) / (x + 1.0)
        if t.need_rr:
            e0 = 1.0
            for x in range(p, e):
                j = x - p + 1
                num = tf - r - (j - 1.0)
                e1 = e0 * num / (tf - (j - 1.0)) if num > 0 else 0.0
                cn[x] = reach * (e0 - e1)
                cr[x] = cn[x] / (x + 1.0)
                e0 = e1
            if r > 0:
                reach = 0.0
        if t.need_err:
            reach_err = _average_err(t, buf, p, e, full_e, reach_err, ce)
        h += r
        p = e
    return [cd, ch, ca, cr, cn, ce], b_start


def _average_err(t: _Tables, buf: list[int], p: int, e: int, full_e: int, reach_err: float,
                 ce: list[float]) -> float:
    """ERR contributions of the group at ``p .. e - 1`` (all of it ends at ``full_e``); the
    probability of reaching the next group."""
    if full_e - p == 1:
        rr_ = t.err_r[t.labels[buf[p]]]
        ce[p] = reach_err * rr_ / (p + 1.0)
        return reach_err * (1.0 - rr_)
    ghist = [0] * len(t.gain)
    for x in range(p, full_e):
        ghist[t.labels[buf[x]]] += 1
    mg = e - p
    eps = [1.0] + [0.0] * mg
    done = 0
    prod = 1.0
    for v in range(len(ghist)):  # numba_ties._group_err
        qv = 1.0 - t.err_r[v]
        for _ in range(ghist[v]):
            n1 = done + 1.0
            for mm in range(min(done + 1, mg), 0, -1):
                eps[mm] = ((n1 - mm) * eps[mm] + mm * qv * eps[mm - 1]) / n1
            done += 1
            prod *= qv
    for x in range(p, e):
        j = x - p + 1
        ce[x] = reach_err * (eps[j - 1] - eps[j]) / (x + 1.0)
    return reach_err * prod


def _rr_whole(t: _Tables, start: int, n: int) -> float:
    """Whole-list reciprocal rank whose first relevant row is not in the ordered top
    (``numba_ties._rr_outside`` and ``_expected_rr``)."""
    rows = range(start, start + n)
    relevant = [i for i in rows if t.rel[t.labels[i]] > 0]
    if not relevant:
        return 0.0
    best = max(t.scores[i] for i in relevant)
    gt = sum(1 for i in rows if t.scores[i] > best)
    tied = [i for i in rows if t.scores[i] == best]
    if t.mode == 1:
        tf, r = float(len(tied)), float(sum(1 for i in tied if t.rel[t.labels[i]] > 0))
        e0, acc = 1.0, 0.0
        for j in range(1, len(tied) + 1):
            num = tf - r - (j - 1.0)
            e1 = e0 * num / (tf - (j - 1.0)) if num > 0 else 0.0
            acc += (e0 - e1) / (gt + j)
            e0 = e1
            if e0 == 0.0:
                break
        return acc
    ranked = _ranked_subset(t, tied)
    first = next(x for x, i in enumerate(ranked) if t.rel[t.labels[i]] > 0)
    return 1.0 / (gt + first + 1.0)


def _ranked_subset(t: _Tables, rows: list[int]) -> list[int]:
    """Tied rows in the tie rule's order (all have the same score)."""
    lab, gain = t.labels, t.gain
    if t.mode <= 1:
        return sorted(rows)
    if t.mode == 2:
        return sorted(rows, key=lambda i: (gain[lab[i]], i))
    if t.mode == 3:
        return sorted(rows, key=lambda i: (-gain[lab[i]], i))
    assert t.tiekey is not None
    key = t.tiekey
    return sorted(rows, key=lambda i: (key[i], i))
