"""Vectorised components that need the judged documents: R-precision and bpref (both backends).

Both are sums over a ranking with a per-query cutoff or count, so they are computed here with
NumPy for every query at once (one sort with group offsets, as :mod:`bench.metrics.kernels.numpy_kernel`),
whichever backend computed the other components:

``rprec``  ``sum_{i < R} rel_i``: relevant documents in the top ``R`` (trec_eval ``m_Rprec.c``)
``bpref``  ``sum over relevant retrieved d of 1 - min(N_d, R) / min(N, R)`` (0/0 read as 1), with
           ``N_d`` the judged non-relevant documents ranked above ``d`` and ``N`` all judged
           non-relevant documents of the query (trec_eval ``m_bpref.c``; Buckley & Voorhees,
           SIGIR 2004). Unjudged documents are skipped.

Under ``ties="average"`` both are exact expectations over every order of each tied group: the
expected relevance at a position is the group's mean, and a relevant document of a group holding
``b`` judged non-relevant ones has ``X`` of them above it with ``X`` uniform on ``0..b``, so its
expected term is ``1 - sum_{x=0..b} min(N0 + x, R) / ((b + 1) min(N, R))`` (``N0``: judged
non-relevant documents of earlier groups), summed in closed form.
"""

from __future__ import annotations

from typing import cast

import numpy as np
from numpy.typing import NDArray

from bench.data.groups import group_index
from bench.metrics.kernels.numpy_kernel import rank_order


def judged_components(
    rel: NDArray[np.float64],
    nonrel: NDArray[np.float64],
    gain: NDArray[np.float64],
    scores: NDArray[np.float64],
    offsets: NDArray[np.int64],
    *,
    ties: str,
    tiekey: NDArray[np.int64] | None,
    r_basis: NDArray[np.float64],
    n_nonrel: NDArray[np.float64],
    need_rprec: bool,
    need_bpref: bool,
) -> dict[str, NDArray[np.float64]]:
    """``{"rprec": ..., "bpref": ...}`` per query (the sums above; see the module docstring).

    ``rel`` (0/1) and ``nonrel`` (1 = judged and not relevant) are per row, ``scores`` already
    rounded as the profile says, ``r_basis`` = R and ``n_nonrel`` = N per query.
    """
    n_rows = scores.shape[0]
    n_q = offsets.shape[0] - 1
    gidx = group_index(offsets)
    order = rank_order(gidx, scores, gain, ties, tiekey)
    ss = scores[order]
    rs = rel[order]
    ns = nonrel[order]
    if ties == "average":
        new = np.ones(n_rows, dtype=bool)
        if n_rows > 1:
            new[1:] = (gidx[1:] != gidx[:-1]) | (ss[1:] != ss[:-1])
        starts = np.flatnonzero(new)
    else:
        starts = np.arange(n_rows, dtype=np.int64)
    sizes = np.diff(np.append(starts, n_rows))
    grp = np.repeat(np.arange(starts.shape[0], dtype=np.int64), sizes)
    gq = gidx[starts]
    out: dict[str, NDArray[np.float64]] = {}
    if need_rprec:
        er = (np.bincount(grp, weights=rs, minlength=starts.shape[0]) / sizes)[grp]
        pos0 = np.arange(n_rows, dtype=np.int64) - offsets[gidx]
        inside = np.where(pos0 < r_basis[gidx], er, 0.0)
        out["rprec"] = cast(NDArray[np.float64], np.bincount(gidx, weights=inside, minlength=n_q))
    if need_bpref:
        a = np.bincount(grp, weights=rs, minlength=starts.shape[0])
        b = np.bincount(grp, weights=ns, minlength=starts.shape[0])
        cum = np.zeros(n_rows + 1, dtype=np.float64)
        np.cumsum(ns, out=cum[1:])
        n0 = cum[starts] - cum[offsets[gq]]
        r = r_basis[gq]
        d = np.minimum(n_nonrel[gq], r)
        c = np.clip(r - n0 + 1.0, 0.0, b + 1.0)
        s = c * n0 + c * (c - 1.0) / 2.0 + (b + 1.0 - c) * r
        term = np.ones(starts.shape[0], dtype=np.float64)
        np.subtract(1.0, s / ((b + 1.0) * np.where(d > 0, d, 1.0)), out=term, where=d > 0)
        out["bpref"] = cast(NDArray[np.float64],
                            np.bincount(gq, weights=a * term, minlength=n_q))
    return out
