"""Vectorised sums over the ranking of every query at once (NumPy; their compiled twins, one
pass per query, are in :mod:`bench.metrics.kernels.numba_ranked`).

:func:`bench.metrics.kernels.judged.judged_components` orders every query once
(:class:`Layout`) and computes here, for every query at once, the components of
:data:`bench.metrics.kernels.components.RANKED` that are not R-precision or bpref. Positions are
0-based (``i``), ``rel_i`` / ``non_i`` / ``unj_i`` say whether the document at ``i`` is relevant,
judged non-relevant, unjudged; ``k' = min(k, n)``:

================  ==================================================================================
``nonrel``        ``N``: judged non-relevant documents of the query (the whole qrels under the
                  ``qrels`` basis)
``fall@k``        ``sum_{i < k'} non_i`` (fall-out's numerator)
``crr@k``         ``sum_{i < k'} rel_i / (i + 1)`` (cumulative reciprocal rank, NCRR's numerator)
``rprec_mult=x``  ``sum_{i < c} rel_i``, ``c = floor(x R + 0.9)`` (trec_eval ``m_Rprec_mult.c``)
``rbp=p@k``       ``sum_{i < k'} rel_i (1 - p) p^i`` (Moffat & Zobel, TOIS 27(1), 2008, eq. 6)
``rbp_residual``  ``sum_{i < k'} unj_i (1 - p) p^i``: what unjudged documents could add (Moffat &
  ``=p@k``        Zobel 2008, section 5, "residual"; the family adds the unseen tail ``p^k'``)
``iprec=x``       ``max_{j >= i_c} P(j)``, ``P(j)`` the precision at rank ``j``, ``i_c`` the rank of
                  the ``c``-th relevant document, ``c = floor(x R + 0.9)`` (``c = 0``: every
                  rank), 0 when fewer than ``c`` relevant are retrieved (trec_eval 9.0.8
                  ``m_iprec_at_recall.c``, as pytrec_eval bundles it; trec_eval's later
                  sources round ``x R`` instead, ``lround``, which this does not follow)
``auc``           ``sum`` over (relevant, non-relevant) pairs of the query's ranked documents of
                  ``[s_rel > s_non] + 0.5 [s_rel = s_non]`` (Mann-Whitney U; sklearn
                  ``roc_auc_score`` of one query), ``auc_pairs`` the number of such pairs; an
                  unjudged document of a TREC run is non-relevant here, as in the label array
                  sklearn would see (``judged_only``, trec_eval's ``-J``, leaves it out)
================  ==================================================================================

Under ``ties="average"`` ``fall``, ``crr``, ``rprec_mult`` and the RBP sums are linear in the
documents at each position, so their expectation over every order of a tied group is the same
sum with each position's indicator replaced by its group's mean (McSherry & Najork, ECIR 2008):
exact. ``iprec`` is a maximum, without such a form: its family is refused under ``average``
(:func:`bench.metrics.components.build_request`). ``auc`` does not depend on the tie rule (a
tied pair counts one half, as sklearn).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]


@dataclass(frozen=True)
class Layout:
    """Every query's rows in ranking order (rows of a query contiguous, as ``offsets``).

    Attributes:
        gidx: query of each position; ``pos0``: 0-based position in its query.
        rel, non, unj: expected relevance, judged non-relevance and unjudgedness per position
            (0/1; under ``average`` ties the tied group's mean); ``pool``: a negative judgment
            (in the pool, unjudged) at the position (rows in order; ``None``: none).
        offsets: query offsets; ``n_q``: queries.
    """

    gidx: NDArray[np.int64]
    pos0: NDArray[np.int64]
    rel: Array
    non: Array
    unj: Array
    offsets: NDArray[np.int64]
    pool: Array | None = None

    @property
    def n_q(self) -> int:
        return int(self.offsets.shape[0] - 1)

    def per_query(self, w: Array) -> Array:
        """``sum`` of the per-position values ``w`` of each query."""
        return cast(Array, np.bincount(self.gidx, weights=w, minlength=self.n_q))

    def cut(self, w: Array, k: int | None) -> Array:
        """``sum_{i < k} w_i`` per query (``None``: the whole list)."""
        return self.per_query(w if k is None else np.where(self.pos0 < k, w, 0.0))


def fall(lay: Layout, k: int | None) -> Array:
    """Judged non-relevant documents in the top ``k``."""
    return lay.cut(lay.non, k)


def crr(lay: Layout, k: int | None) -> Array:
    """``sum_{i < k} rel_i / (i + 1)``."""
    return lay.cut(lay.rel / (lay.pos0 + 1.0), k)


def rprec_mult(lay: Layout, r: Array, x: float) -> Array:
    """Relevant documents in the top ``floor(x R + 0.9)`` (trec_eval's ``(long)(x R + 0.9)``)."""
    c = np.floor(x * r + 0.9)
    return lay.per_query(np.where(lay.pos0 < c[lay.gidx], lay.rel, 0.0))


def _weights(lay: Layout, p: float) -> Array:
    return (1.0 - p) * np.power(p, lay.pos0.astype(np.float64))


def rbp(lay: Layout, p: float, k: int | None) -> Array:
    """``sum_{i < k} rel_i (1 - p) p^i``."""
    return lay.cut(lay.rel * _weights(lay, p), k)


def rbp_residual(lay: Layout, p: float, k: int | None) -> Array:
    """``sum_{i < k} unj_i (1 - p) p^i`` (the family adds the tail ``p^min(k, n)``)."""
    return lay.cut(lay.unj * _weights(lay, p), k)


def iprec(lay: Layout, r: Array, x: float) -> Array:
    """Interpolated precision at recall ``x`` (trec_eval 9.0.8 ``m_iprec_at_recall.c``): the
    largest precision at or after the rank of the ``c``-th relevant document,
    ``c = (long)(x R + 0.9)`` (every rank for ``c = 0``), 0 when fewer relevant documents were
    retrieved. Needs a tie rule that orders (0/1 ``rel``)."""
    n_rows = lay.rel.shape[0]
    is_rel = lay.rel > 0.5
    h = np.cumsum(is_rel)
    first = np.zeros(lay.n_q, dtype=np.int64)
    first[:] = np.concatenate([[0], h])[lay.offsets[:-1]]
    hits = np.concatenate([[0], h])[lay.offsets[1:]] - first
    h_q = h - first[lay.gidx]  # relevant documents up to and including each position
    prec = np.where(is_rel, h_q / (lay.pos0 + 1.0), 0.0)
    c = np.floor(x * r + 0.9).astype(np.int64)
    rel_rows = np.flatnonzero(is_rel)
    take = np.maximum(c, 1)
    ok = take <= hits
    if not ok.any():
        return np.zeros(lay.n_q, dtype=np.float64)
    start = rel_rows[np.where(ok, first + take - 1, 0)]
    out = np.zeros(lay.n_q, dtype=np.float64)
    padded = np.append(prec, 0.0)
    idx = np.empty(2 * lay.n_q, dtype=np.int64)
    idx[0::2] = np.where(ok, start, n_rows)
    idx[1::2] = np.where(ok, lay.offsets[1:], n_rows)
    best = np.maximum.reduceat(padded, idx)[0::2]
    out[ok] = best[ok]
    return out


#: trec_eval's ``INFAP_EPSILON`` (``trec_eval.h``): keeps infAP's ratio defined.
INFAP_EPSILON = 0.00001


def infap(lay: Layout) -> Array:
    """trec_eval's infAP sum (``m_infAP.c``; Yilmaz & Aslam, CIKM 2006): over the judged relevant
    documents at 0-based rank ``j`` (every retrieved document counts in ``j``), 1 at ``j = 0``,
    else ``1/(j+1) + (j/(j+1)) ((a+n+u)/j) ((a+eps)/(a+n+2 eps))`` with ``a``, ``n``, ``u`` the
    judged relevant, judged non-relevant and pooled-unjudged (negative judgment) documents
    above it; documents without a judgment are skipped. Needs one order (0/1 indicators)."""
    pool = np.zeros_like(lay.rel) if lay.pool is None else lay.pool
    before = {}
    for key, v in (("a", lay.rel), ("n", lay.non), ("u", pool)):
        cum = np.concatenate([[0.0], np.cumsum(v)])
        before[key] = cum[:-1] - cum[lay.offsets[lay.gidx]]  # in the query, above the position
    j = lay.pos0.astype(np.float64)
    jj = np.maximum(j, 1.0)
    a, n, u = before["a"], before["n"], before["u"]
    term = 1.0 / (jj + 1.0) + (jj / (jj + 1.0)) * ((a + n + u) / jj) * (
        (a + INFAP_EPSILON) / ((a + n) + 2 * INFAP_EPSILON))
    return lay.per_query(np.where(lay.rel > 0.5, np.where(j == 0, 1.0, term), 0.0))


def auc_sums(gidx: NDArray[np.int64], ss: Array, rs: Array, ns: Array, offsets: NDArray[np.int64]
             ) -> tuple[Array, Array]:
    """Per query: the Mann-Whitney count of (relevant, non-relevant) pairs ordered right
    (a tied pair counts 1/2) and the number of such pairs. ``ss``, ``rs``, ``ns``: scores,
    relevance and non-relevance (the caller decides which rows count) in ranking order (score descending within each query,
    equal scores adjacent whatever the tie rule), ``gidx`` their queries."""
    n_rows = ss.shape[0]
    n_q = offsets.shape[0] - 1
    new = np.ones(n_rows, dtype=bool)
    if n_rows > 1:
        new[1:] = (gidx[1:] != gidx[:-1]) | (ss[1:] != ss[:-1])
    starts = np.flatnonzero(new)
    ends = np.append(starts[1:], n_rows)
    grp = np.repeat(np.arange(starts.shape[0], dtype=np.int64), ends - starts)
    cum = np.zeros(n_rows + 1, dtype=np.float64)
    np.cumsum(ns, out=cum[1:])
    gq = gidx[starts]
    n_non = cum[offsets[1:]] - cum[offsets[:-1]]
    below = n_non[gq] - (cum[ends] - cum[offsets[gq]])  # judged non-relevant scored lower
    tied = cum[ends] - cum[starts]
    wins = rs * (below + 0.5 * tied)[grp]
    r_q = cast(Array, np.bincount(gidx, weights=rs, minlength=n_q))
    return cast(Array, np.bincount(gidx, weights=wins, minlength=n_q)), r_q * n_non
