"""Vectorised components that need the judged documents or a per-query cutoff (both backends).

R-precision, bpref and the components of :mod:`bench.metrics.kernels.ranked` are sums over a
ranking with a per-query cutoff or count, or over judged documents, so they are computed here
with NumPy for every query at once (one sort with group offsets, as
:mod:`bench.metrics.kernels.numpy_kernel`), whichever backend computed the other components:

``rprec``  ``sum_{i < min(R, k)} rel_i``: relevant documents in the top ``R`` (trec_eval
           ``m_Rprec.c``; at a cutoff ``k``, trec_eval with ``-M k``: the run cut at ``k``)
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

from collections.abc import Callable
from typing import cast

import numpy as np
from numpy.typing import NDArray

import bench.metrics.kernels.pairs as pairs
import bench.metrics.kernels.ranked as ranked
from bench.data.groups import group_index
from bench.metrics.kernels.components import Request, split_param
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
    request: Request,
    unjudged: NDArray[np.bool_] | None = None,
    pooled: NDArray[np.bool_] | None = None,
    labels: NDArray[np.float64] | None = None,
    pair_ties: str = "rank",
) -> dict[tuple[str, int | None], NDArray[np.float64]]:
    """The components of :data:`~bench.metrics.kernels.components.RANKED` that ``request``
    asks for, keyed as :class:`~bench.metrics.kernels.components.Components` keys them
    (``(name, k)``; see the module docstring and :mod:`bench.metrics.kernels.ranked`).

    ``rel`` (0/1) and ``nonrel`` (1 = judged and not relevant) are per row, ``scores`` already
    rounded as the profile says, ``r_basis`` = R and ``n_nonrel`` = N per query, ``unjudged``
    per row (``None``: every row judged), ``pooled`` per row: a negative judgment (in the pool,
    unjudged; infAP); ``labels``, ``pair_ties``: ARP, OPA (:mod:`bench.metrics.kernels.pairs`).
    """
    n_rows = scores.shape[0]
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
    pos0 = np.arange(n_rows, dtype=np.int64) - offsets[gidx]

    def mean_of_group(v: NDArray[np.float64]) -> NDArray[np.float64]:
        return (np.bincount(grp, weights=v, minlength=starts.shape[0]) / sizes)[grp]

    us = np.zeros(n_rows) if unjudged is None else unjudged[order].astype(np.float64)
    ps = np.zeros(n_rows) if pooled is None else pooled[order].astype(np.float64)
    lay = ranked.Layout(gidx=gidx, pos0=pos0, rel=mean_of_group(rs), non=mean_of_group(ns),
                        unj=mean_of_group(us), offsets=offsets, pool=ps)
    out: dict[tuple[str, int | None], NDArray[np.float64]] = {}
    auc: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None
    sums: dict[str, NDArray[np.float64]] = {}
    for name, ks in request.ks.items():
        base, param = split_param(name)
        for k in ks:
            if base == "rprec":
                cut = r_basis if k is None else np.minimum(r_basis, float(k))
                out[(name, k)] = lay.per_query(np.where(pos0 < cut[gidx], lay.rel, 0.0))
            elif base == "bpref":
                out[(name, k)] = _bpref(rs, ns, starts, sizes, grp, gq, offsets, r_basis, n_nonrel)
            elif base in _BY_CUTOFF:
                out[(name, k)] = _BY_CUTOFF[base](lay, k)
            elif base in _BY_PARAM:
                assert param is not None, name
                out[(name, k)] = _BY_PARAM[base](lay, r_basis, param, k)
            elif base == "infap":
                out[(name, k)] = ranked.infap(lay)
            elif base == "nonrel":
                out[(name, k)] = n_nonrel.astype(np.float64)
            elif base in ("auc", "auc_pairs"):
                auc = auc or ranked.auc_sums(gidx, ss, rs, 1.0 - rs, offsets)  # every non-relevant row
                out[(name, k)] = auc[0] if base == "auc" else auc[1]
            elif base in pairs.PAIR_COMPONENTS:
                assert labels is not None, "ARP and OPA need the labels"
                sums = sums or pairs.pair_values(request.ks, gidx, ss, labels[order], offsets, ties,
                                                 pair_ties)
                out[(name, k)] = sums[base]
    return out


_Array = NDArray[np.float64]
_BY_CUTOFF: dict[str, Callable[[ranked.Layout, int | None], _Array]] = {
    "fall": ranked.fall, "crr": ranked.crr}
_BY_PARAM: dict[str, Callable[[ranked.Layout, _Array, float, int | None], _Array]] = {
    "rprec_mult": lambda lay, r, x, k: ranked.rprec_mult(lay, r, x),
    "iprec": lambda lay, r, x, k: ranked.iprec(lay, r, x),
    "rbp": lambda lay, r, p, k: ranked.rbp(lay, p, k),
    "rbp_residual": lambda lay, r, p, k: ranked.rbp_residual(lay, p, k),
}


def _bpref(rs: NDArray[np.float64], ns: NDArray[np.float64], starts: NDArray[np.int64],
           sizes: NDArray[np.int64], grp: NDArray[np.int64], gq: NDArray[np.int64],
           offsets: NDArray[np.int64], r_basis: NDArray[np.float64],
           n_nonrel: NDArray[np.float64]) -> NDArray[np.float64]:
    """trec_eval's bpref sum per query, tied groups in closed form (module docstring)."""
    n_rows = rs.shape[0]
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
    return cast(NDArray[np.float64],
                np.bincount(gq, weights=a * term, minlength=offsets.shape[0] - 1))
