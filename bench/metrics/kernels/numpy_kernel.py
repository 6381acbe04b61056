"""Vectorised NumPy kernel: every query at once (one sort with group offsets, then bincount sums).

This is the reference implementation that the compiled kernel (:mod:`bench.metrics.kernels.numba_kernel`)
is tested against, and the path used for inputs the compiled kernel does not take (real-valued
labels under a linear gain). It works on per-row gains, relevance and ERR probabilities, so it
does not care where the labels came from.

Tie rules are applied by the sort key: ``(query, -score, key)`` with key = row (stable), gain
(pessimistic: low first; optimistic: high first) or a given integer key (random, docno).
``average`` computes each component's expected value over every order of each tied group
(McSherry & Najork, "Computing information retrieval performance measures efficiently in the
presence of tied scores", ECIR 2008), in closed form for DCG, hits and AP, and through ``eps_m`` =
the mean of ``prod (1 - R)`` over the ``m``-subsets of a tied group for the cascade metrics (RR,
ERR, hit): position ``j`` of a group contributes ``prod_before * (eps_{j-1} - eps_j)``.
"""

from __future__ import annotations

import itertools
from typing import cast

import numpy as np
from numpy.typing import NDArray

from bench.data.groups import group_index
from bench.metrics.kernels.components import Components, Request


def numpy_components(
    gain: NDArray[np.float64],
    rel: NDArray[np.float64],
    err_r: NDArray[np.float64] | None,
    scores: NDArray[np.float64],
    offsets: NDArray[np.int64],
    *,
    ties: str,
    tiekey: NDArray[np.int64] | None,
    request: Request,
    disc: NDArray[np.float64],
    extra_gain: NDArray[np.float64] | None = None,
    extra_rel: NDArray[np.float64] | None = None,
    extra_query: NDArray[np.int64] | None = None,
    ap_ties: str = "ties",
) -> Components:
    """Components of every query (see :mod:`bench.metrics.kernels.components`).

    ``gain``, ``rel`` (0/1), ``err_r`` and ``scores`` are per row, rows of a query contiguous
    (``offsets``). ``extra_*`` describe judged documents that were not scored (IDCG basis
    ``qrels``): their gain, relevance and query number. ``disc`` must cover every position.
    ``ap_ties``: ``"threshold"`` gives AP scikit-learn's tied groups
    (:attr:`bench.metrics.profile.Profile.ap_ties`), else the tie rule's.
    """
    n_rows = scores.shape[0]
    n_q = offsets.shape[0] - 1
    sizes = np.diff(offsets)
    gidx = group_index(offsets)
    order = rank_order(gidx, scores, gain, ties, tiekey)
    ss = scores[order]
    gs = gain[order]
    rs = rel[order]
    pos0 = np.arange(n_rows, dtype=np.int64) - offsets[gidx]

    ties_flag, starts, t_size, grp, t_row, j_row = _tie_groups(
        gidx, ss, pos0, sizes, ties, request)
    g_sum = np.bincount(grp, weights=gs, minlength=starts.shape[0])
    r_sum = np.bincount(grp, weights=rs, minlength=starts.shape[0])
    eg = g_sum[grp] / t_row
    r_row = r_sum[grp]
    er = r_row / t_row

    out = _counts(gain, rel, gidx, sizes, n_q, ties_flag, extra_gain, extra_rel, extra_query)

    def cut_sum(values: NDArray[np.float64], k: int | None) -> NDArray[np.float64]:
        w = values if k is None else np.where(pos0 < k, values, 0.0)
        return cast(NDArray[np.float64], np.bincount(gidx, weights=w, minlength=n_q))

    for k in request.ks.get("dcg", ()):
        out.values[("dcg", k)] = cut_sum(disc[pos0] * eg, k)
    for k in request.ks.get("hits", ()):
        out.values[("hits", k)] = cut_sum(er, k)
    if request.ks.get("ap"):
        crel = np.zeros(n_rows + 1, dtype=np.int64)
        np.cumsum(rs.astype(np.int64), out=crel[1:])
        h_before = (crel[starts] - crel[offsets[gidx[starts]]]).astype(np.float64)[grp]
        if ap_ties == "threshold":
            term = _threshold_ap_terms(gidx, ss, rs, pos0, offsets, crel)
        else:
            pair = np.where(t_row > 1, (j_row - 1.0) * r_row * (r_row - 1.0) / (t_row * (t_row - 1.0) + (t_row <= 1)), 0.0)
            term = (er * (h_before + 1.0) + pair) / (pos0 + 1.0)
        for k in request.ks["ap"]:
            out.values[("ap", k)] = cut_sum(term, k)
    for comp, probs, weight_by_rank in (("rr", rs, True), ("any", rs, False), ("err", err_r, True)):
        ks = request.ks.get(comp, ())
        if not ks:
            continue
        assert probs is not None
        r_sorted = rs if probs is rs else probs[order]
        contrib = _cascade(r_sorted, gidx, pos0, starts, t_size, grp, j_row, offsets, sizes, ks)
        if weight_by_rank:
            contrib = contrib / (pos0 + 1.0)
        for k in ks:
            out.values[(comp, k)] = cut_sum(contrib, k)
    if request.ks.get("idcg"):
        _ideal(out, gain, gidx, offsets, n_q, request, disc, extra_gain, extra_query)
    return out


def _equal_scores(gidx: NDArray[np.int64],
                  ss: NDArray[np.float64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The groups of equal score inside each query of the ranked rows (``ss`` in rank order):
    their first rows and sizes."""
    n_rows = ss.shape[0]
    new = np.ones(n_rows, dtype=bool)
    if n_rows > 1:
        new[1:] = (gidx[1:] != gidx[:-1]) | (ss[1:] != ss[:-1])
    starts = np.flatnonzero(new)
    return starts, np.diff(np.append(starts, n_rows))


def _threshold_ap_terms(
    gidx: NDArray[np.int64], ss: NDArray[np.float64], rs: NDArray[np.float64],
    pos0: NDArray[np.int64], offsets: NDArray[np.int64], crel: NDArray[np.int64],
) -> NDArray[np.float64]:
    """Per ranked row, its share of AP's sum under scikit-learn's thresholds: a group of equal
    scores holding ``r`` relevant rows after ``h`` relevant rows ranked above it, its last
    row at (1-based) position ``e``, adds ``r * (h + r) / e`` (each relevant row there is
    read at the precision of the whole group), spread evenly over its rows (so that a cut
    through the group takes the expected share, as the averaged tie rule does)."""
    starts, sizes = _equal_scores(gidx, ss)
    grp = np.repeat(np.arange(starts.shape[0], dtype=np.int64), sizes)
    r_grp = np.bincount(grp, weights=rs, minlength=starts.shape[0])
    before = (crel[starts] - crel[offsets[gidx[starts]]]).astype(np.float64)
    end = (pos0[starts] + sizes).astype(np.float64)
    share = r_grp * (before + r_grp) / (end * sizes)
    return share[grp]


def _tie_groups(
    gidx: NDArray[np.int64], ss: NDArray[np.float64], pos0: NDArray[np.int64],
    sizes: NDArray[np.int64], ties: str, request: Request,
) -> tuple[NDArray[np.bool_], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64],
           NDArray[np.float64], NDArray[np.float64]]:
    """Per query whether a tie falls within ``request.ties_k``; the groups a row's gain is
    averaged over (tied groups under ``average`` ties, else one row each): their starts and
    sizes, each row's group, its group's size and its 1-based place in it (float)."""
    n_rows = ss.shape[0]
    n_q = sizes.shape[0]
    tie_starts, tie_sizes = _equal_scores(gidx, ss)  # for the diagnostic and average ties
    tk = _clip_k(request.ties_k, sizes)
    tied = (tie_sizes >= 2) & (pos0[tie_starts] < tk[gidx[tie_starts]])
    ties_flag = np.bincount(gidx[tie_starts], weights=tied, minlength=n_q) > 0

    if ties == "average":
        starts, t_size = tie_starts, tie_sizes
    else:
        starts, t_size = np.arange(n_rows, dtype=np.int64), np.ones(n_rows, dtype=np.int64)
    grp = np.repeat(np.arange(starts.shape[0], dtype=np.int64), t_size)
    t_row = t_size[grp].astype(np.float64)
    j_row = (np.arange(n_rows, dtype=np.int64) - starts[grp] + 1).astype(np.float64)
    return ties_flag, starts, t_size, grp, t_row, j_row


def _counts(
    gain: NDArray[np.float64], rel: NDArray[np.float64], gidx: NDArray[np.int64],
    sizes: NDArray[np.int64], n_q: int, ties_flag: NDArray[np.bool_],
    extra_gain: NDArray[np.float64] | None, extra_rel: NDArray[np.float64] | None,
    extra_query: NDArray[np.int64] | None,
) -> Components:
    """The per-query counts: rows, relevant rows (scored, and with the judged documents not
    scored), whether any gain, whether ties; no component values yet."""
    # np.bincount's stub says intp whatever the weights; with float weights it returns float64.
    r_list = cast(NDArray[np.float64], np.bincount(gidx, weights=rel, minlength=n_q))
    out = Components(
        n=sizes.astype(np.int64),
        r_list=r_list,
        r_basis=r_list.copy(),
        has_gain=np.bincount(gidx, weights=gain > 0, minlength=n_q) > 0,
        ties=ties_flag,
    )
    if extra_query is not None and extra_query.shape[0]:
        assert extra_gain is not None
        assert extra_rel is not None
        out.r_basis = r_list + cast(
            NDArray[np.float64], np.bincount(extra_query, weights=extra_rel, minlength=n_q)
        )
        out.has_gain |= np.bincount(extra_query, weights=extra_gain > 0, minlength=n_q) > 0
    return out


def rank_order(
    gidx: NDArray[np.int64],
    scores: NDArray[np.float64],
    gain: NDArray[np.float64],
    ties: str,
    tiekey: NDArray[np.int64] | None,
) -> NDArray[np.int64]:
    """Rows in ranked order, query by query: score descending, then the tie rule's key (row
    order for ``stable`` and ``average``, gain for ``pessimistic`` / ``optimistic``, ``tiekey``
    for ``random``, ``docno_desc``, ``docno_asc`` and ``row_desc``)."""
    neg = -scores
    if ties in ("stable", "average"):
        return np.lexsort((neg, gidx))
    if ties == "pessimistic":
        return np.lexsort((gain, neg, gidx))
    if ties == "optimistic":
        return np.lexsort((-gain, neg, gidx))
    assert tiekey is not None, "random, docno_desc and row_desc ties need a tie key"
    return np.lexsort((tiekey, neg, gidx))


def _clip_k(k: int | None, sizes: NDArray[np.int64]) -> NDArray[np.int64]:
    return sizes.copy() if k is None else np.minimum(sizes, k)


def _cascade(
    r_sorted: NDArray[np.float64],
    gidx: NDArray[np.int64],
    pos0: NDArray[np.int64],
    starts: NDArray[np.int64],
    t_size: NDArray[np.int64],
    grp: NDArray[np.int64],
    j_row: NDArray[np.float64],
    offsets: NDArray[np.int64],
    sizes: NDArray[np.int64],
    ks: tuple[int | None, ...],
) -> NDArray[np.float64]:
    """Per row, ``P(reach the row's group) * P(stop at this position | group order random)``."""
    n_rows = r_sorted.shape[0]
    cut = None if any(k is None for k in ks) else max(k for k in ks if k is not None)
    q_sorted = 1.0 - r_sorted
    n_groups = starts.shape[0]
    group_q = gidx[starts]
    group_pos = pos0[starts]
    live = np.ones(n_groups, dtype=bool) if cut is None else group_pos < cut
    # Probability that a user reaches each group: product of (1 - R) over all earlier groups of
    # the query, accumulated group rank by group rank (exact, no logarithms).
    prod_q = np.multiply.reduceat(q_sorted, starts) if n_rows else np.zeros(0)
    first_group = np.searchsorted(starts, offsets[:-1])
    rank = np.arange(n_groups, dtype=np.int64) - first_group[group_q]
    reach = np.ones(n_groups, dtype=np.float64)
    state = np.ones(sizes.shape[0], dtype=np.float64)
    by_rank = np.argsort(rank[live], kind="stable")
    live_idx = np.flatnonzero(live)[by_rank]
    live_rank = rank[live_idx]
    bounds = np.flatnonzero(np.r_[True, live_rank[1:] != live_rank[:-1], True])
    for a, b in itertools.pairwise(bounds):
        idx = live_idx[a:b]
        reach[idx] = state[group_q[idx]]
        state[group_q[idx]] *= prod_q[idx]
    # Stop probability inside each group.
    stop = r_sorted.copy()
    multi = np.flatnonzero(live & (t_size >= 2))
    if multi.shape[0]:
        m_need = t_size[multi] if cut is None else np.minimum(t_size[multi], cut - group_pos[multi])
        eps = _subset_means(q_sorted, starts[multi], t_size[multi], int(m_need.max()))
        rows = np.flatnonzero(np.isin(grp, multi))
        loc = np.searchsorted(multi, grp[rows])
        j = j_row[rows].astype(np.int64)
        ok = j <= m_need[loc]
        stop[rows] = np.where(ok, eps[loc, np.minimum(j, eps.shape[1] - 1) - 1] - eps[loc, np.minimum(j, eps.shape[1] - 1)], 0.0)
    p_row: NDArray[np.float64] = reach[grp] * stop
    return p_row


def _subset_means(
    q_sorted: NDArray[np.float64], starts: NDArray[np.int64], sizes: NDArray[np.int64], m_max: int
) -> NDArray[np.float64]:
    """``eps[g, m]`` = mean over the ``m``-subsets of group ``g`` of the product of their ``q``.

    Built one item at a time: with ``n`` items so far and a new one ``q``,
    ``eps'_m = ((n + 1 - m) eps_m + m q eps_{m-1}) / (n + 1)`` (a convex combination: no overflow).
    """
    n_g = starts.shape[0]
    eps = np.zeros((n_g, m_max + 1), dtype=np.float64)
    eps[:, 0] = 1.0
    m = np.arange(1, m_max + 1, dtype=np.float64)
    for item in range(int(sizes.max())):
        act = np.flatnonzero(sizes > item)
        q = q_sorted[starts[act] + item][:, None]
        n1 = float(item + 1)
        a = np.where(m <= n1, (n1 - m) / n1, 0.0)
        b = np.where(m <= n1, m / n1, 0.0)
        cur = eps[act]
        cur[:, 1:] = a * cur[:, 1:] + b * q * cur[:, :-1]
        eps[act] = cur
    return eps


def _ideal(
    out: Components,
    gain: NDArray[np.float64],
    gidx: NDArray[np.int64],
    offsets: NDArray[np.int64],
    n_q: int,
    request: Request,
    disc: NDArray[np.float64],
    extra_gain: NDArray[np.float64] | None,
    extra_query: NDArray[np.int64] | None,
) -> None:
    """Ideal DCG by sorting each query's gains (the compiled kernel counts labels instead)."""
    if extra_query is not None and extra_query.shape[0]:
        assert extra_gain is not None
        g_all = np.concatenate([gain, extra_gain])
        q_all = np.concatenate([gidx, extra_query])
    else:
        g_all, q_all = gain, gidx
    order = np.lexsort((-g_all, q_all))
    ig = g_all[order]
    iq = q_all[order]
    counts = np.bincount(iq, minlength=n_q)
    first = np.zeros(n_q + 1, dtype=np.int64)
    np.cumsum(counts, out=first[1:])
    ipos = np.arange(ig.shape[0], dtype=np.int64) - first[iq]
    contrib = disc[ipos] * ig
    for k in request.ks["idcg"]:
        w = contrib if k is None else np.where(ipos < k, contrib, 0.0)
        out.values[("idcg", k)] = cast(NDArray[np.float64], np.bincount(iq, weights=w, minlength=n_q))
