"""Item-item similarity of the candidate to the user's recent history items.

The classic item-based collaborative-filtering measures (Sarwar et al. 2001, "Item-based
collaborative filtering recommendation algorithms"; Herlocker et al. 1999) on the items'
history columns -- ``r_i`` (ratings, unrated = 0, over the ``U`` users with history) and ``b_i`` (the 0/1
pattern of who rated the item):

- cosine: ``<r_i, r_j> / (|r_i| |r_j|)``;
- Euclidean-based: ``1 / (1 + |r_i - r_j|)``;
- Jaccard: ``|U_i & U_j| / |U_i | U_j|`` with ``|U_i & U_j| = <b_i, b_j>``;
- Pearson: the correlation of the two full columns,
  ``(U <r_i, r_j> - S_i S_j) / sqrt((U Q_i - S_i^2)(U Q_j - S_j^2))`` with ``S_i`` the sum
  and ``Q_i = |r_i|^2`` the sum of squares of item i's history ratings, and ``U`` the users
  with at least one history rating (a user who rates only in the target windows, or a
  ``time-cut`` user who rates only from ``c1`` on, is no row of the history: counting them
  would let ratings after the cut move every training row's Pearson value).

Each is taken against the user's ``similarity_history`` most recent history items (0 = all)
and summarised by its max and mean over them (``sim_<measure>_max`` / ``_mean``; 0 when the
user has no history). Counts, sums and norms are exact; the inner products come from the
rank-k truncated SVDs of the history matrix ``R`` and of its pattern ``B``
(:mod:`bench.adapters.svd`): ``<r_i, r_j> ~ e_i . e_j`` with ``e_i`` the rows of
``V_k diag(s_k)``, whose Gram matrix ``V_k s_k^2 V_k^T`` is the best rank-k approximation of
``R^T R`` (likewise ``<b_i, b_j>`` from ``B``). With ``k >= min(U, n_items)`` every measure is
exact. Computing exact inner products for every (candidate, history item) pair costs
``sum_u |H_u| x candidates``, some 10^10 sparse dot products at ML-25M size; the rank-k form
costs ``2k`` multiply-adds per pair. The approximate values are clipped to each measure's
range (cosine and Pearson to [-1, 1], the intersection to [0, min(|U_i|, |U_j|)]).

One compiled pass over the queries (in parallel) computes all eight columns, in float64:
``|r_i - r_j|^2 = Q_i + Q_j - 2 <r_i, r_j>`` cancels badly in float32 for near-identical items.
"""

from __future__ import annotations

import numba
import numpy as np

from bench.adapters.features import Columns, FeatureGroup
from bench.adapters.history import History
from bench.adapters.negatives import Candidates
from bench.adapters.svd import SVDFactors

MEASURES = ("cosine", "euclidean", "jaccard", "pearson")
NAMES = tuple(f"sim_{m}_{agg}" for m in MEASURES for agg in ("max", "mean"))


#: The compiled kernel may re-associate and vectorize freely: it never sees a NaN or an
#: infinity (counts, sums and norms are finite, divisions are guarded, maxima start at -2).
_FASTMATH = True
_BLOCK = 64  # queries per parallel task


def similarity_group(h: History, ratings_svd: SVDFactors, pattern_svd: SVDFactors, *,
                     recent: int) -> FeatureGroup:
    """Fit the per-item statistics and embeddings; see the module docstring."""
    E = np.ascontiguousarray(ratings_svd.V * ratings_svd.s, dtype=np.float64)
    F = np.ascontiguousarray(pattern_svd.V * pattern_svd.s, dtype=np.float64)
    cnt, S, Q = h.item_stats.count, h.item_stats.total, h.item_stats.squares
    n_users = float(h.history_users)  # the columns' length: users the history knows
    var = n_users * Q - S * S
    inv_norm = np.where(Q > 0, 1.0 / np.sqrt(np.where(Q > 0, Q, 1.0)), 0.0)
    inv_sd = np.where(var > 0, 1.0 / np.sqrt(np.where(var > 0, var, 1.0)), 0.0)
    # Per-item terms (float64, like the embeddings: in float32, |r_i - r_j|^2 = Q_i + Q_j - 2 dot
    # would lose everything to cancellation for two near-identical items):
    # cosine = dot * inv_norm_i * inv_norm_j;  Pearson = dot * w_i w_j - a_i a_j with
    # w = sqrt(U) / sd and a = S / sd, sd = sqrt(U Q - S^2).
    stats = np.ascontiguousarray(np.stack([Q, cnt, inv_norm, np.sqrt(n_users) * inv_sd,
                                           S * inv_sd]).T)
    h_item = h.item.astype(np.int64)

    def transform(c: Candidates) -> Columns:
        out = np.zeros((c.n_rows, len(NAMES)), dtype=np.float32)
        _similarities(c.offsets, c.user, c.item, h.indptr, h_item, int(recent), E, F, stats, out)
        return [out[:, j] for j in range(out.shape[1])]

    return FeatureGroup("similarity", NAMES, transform)


@numba.njit(parallel=True, fastmath=_FASTMATH, cache=True)
def _similarities(offsets: np.ndarray, user: np.ndarray, item: np.ndarray, h_ptr: np.ndarray,
                  h_item: np.ndarray, recent: int, E: np.ndarray, F: np.ndarray,
                  stats: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """Per query: gather the candidates' and the recent history items' embeddings, two small
    matrix products (BLAS; run it under a one-thread BLAS limit, as ``ratings_to_letor`` does,
    since the queries are already spread over the cores) for all inner products, then the
    four measures per pair."""
    n_q = offsets.shape[0] - 1
    k = E.shape[1]
    kb = F.shape[1]
    n_blocks = (n_q + _BLOCK - 1) // _BLOCK
    one = 1.0
    zero = 0.0
    two = 2.0
    for blk in numba.prange(n_blocks):
        q0 = blk * _BLOCK
        q1 = min(n_q, q0 + _BLOCK)
        max_rows = 1
        max_hist = 1
        for q in range(q0, q1):
            max_rows = max(max_rows, offsets[q + 1] - offsets[q])
            if offsets[q + 1] > offsets[q]:
                u = user[offsets[q]]
                m = h_ptr[u + 1] - h_ptr[u]
                if recent > 0:
                    m = min(m, recent)
                max_hist = max(max_hist, m)
        CE = np.empty((max_rows, k), dtype=E.dtype)
        CF = np.empty((max_rows, kb), dtype=F.dtype)
        HE = np.empty((max_hist, k), dtype=E.dtype)
        HF = np.empty((max_hist, kb), dtype=F.dtype)
        hs = np.empty((max_hist, 5), dtype=stats.dtype)
        for q in range(q0, q1):
            a = offsets[q]
            b = offsets[q + 1]
            if b == a:
                continue
            u = user[a]
            hb = h_ptr[u + 1]
            ha = h_ptr[u]
            if recent > 0 and hb - ha > recent:
                ha = hb - recent
            m = hb - ha
            if m == 0:
                continue
            nr = b - a
            for t in range(m):
                j = h_item[ha + t]
                for d in range(k):
                    HE[t, d] = E[j, d]
                for d in range(kb):
                    HF[t, d] = F[j, d]
                for c in range(5):
                    hs[t, c] = stats[j, c]
            for rr in range(nr):
                i = item[a + rr]
                for d in range(k):
                    CE[rr, d] = E[i, d]
                for d in range(kb):
                    CF[rr, d] = F[i, d]
            D = np.dot(CE[:nr], HE[:m].T)
            B = np.dot(CF[:nr], HF[:m].T)
            for rr in range(nr):
                i = item[a + rr]
                qi = stats[i, 0]
                ci = stats[i, 1]
                ni = stats[i, 2]
                wi = stats[i, 3]
                ai = stats[i, 4]
                mx0 = -two
                mx1 = -two
                mx2 = -two
                mx3 = -two
                s0 = zero
                s1 = zero
                s2 = zero
                s3 = zero
                for t in range(m):
                    dot = D[rr, t]
                    cos = min(one, max(-one, dot * ni * hs[t, 2]))
                    euc = one / (one + np.sqrt(max(qi + hs[t, 0] - two * dot, zero)))
                    inter = min(max(B[rr, t], zero), min(ci, hs[t, 1]))
                    jac = inter / max(ci + hs[t, 1] - inter, one)  # union >= 1 when inter > 0
                    pr = min(one, max(-one, dot * wi * hs[t, 3] - ai * hs[t, 4]))
                    mx0 = max(mx0, cos)
                    mx1 = max(mx1, euc)
                    mx2 = max(mx2, jac)
                    mx3 = max(mx3, pr)
                    s0 += cos
                    s1 += euc
                    s2 += jac
                    s3 += pr
                r = a + rr
                out[r, 0] = mx0
                out[r, 1] = s0 / m
                out[r, 2] = mx1
                out[r, 3] = s1 / m
                out[r, 4] = mx2
                out[r, 5] = s2 / m
                out[r, 6] = mx3
                out[r, 7] = s3 / m
