"""Truncated SVD of the history matrix and the PureSVD score.

``truncated_svd(A, k)`` returns ``U_k, s_k, V_k`` with ``A ~ U_k diag(s_k) V_k^T``, the best
rank-k approximation (Eckart-Young). When ``k`` reaches ``min(A.shape)`` it is the exact dense
SVD (LAPACK via :func:`numpy.linalg.svd`, float64); otherwise the randomized subspace iteration
of Halko, Martinsson & Tropp (2011, "Finding structure with randomness", Algorithm 4.4: a
Gaussian test matrix with ``k + 10`` columns, ``n_iter`` power iterations re-orthonormalized by
QR), in float32 on the sparse matrix -- a few sparse-times-dense products, so it scales to
ML-25M size in seconds. Seeded, hence deterministic.

``svd_score`` is PureSVD (Cremonesi, Koren & Turrin 2010, "Performance of recommender
algorithms on top-N recommendation tasks"): ``r_u V_k V_k^T`` at the candidate, i.e. the
rank-k reconstruction ``(U_k diag(s_k) V_k^T)[u, i]`` of the user's history row (unrated = 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from threadpoolctl import threadpool_limits

from bench.adapters.features import Columns, FeatureGroup
from bench.adapters.history import History
from bench.adapters.negatives import Candidates

OVERSAMPLE = 10
POWER_ITERATIONS = 2


@dataclass(frozen=True, eq=False)
class SVDFactors:
    """``A ~ U diag(s) V^T``; ``U`` is (n_rows, k), ``V`` (n_cols, k), ``s`` decreasing."""

    U: NDArray[np.floating]
    s: NDArray[np.floating]
    V: NDArray[np.floating]

    @property
    def k(self) -> int:
        return int(self.s.shape[0])


@dataclass(frozen=True, eq=False)
class SparseRows:
    """A sparse matrix as CSR arrays and the CSR arrays of its transpose (row-parallel
    products both ways). ``data``/``t_data`` of length 0 mean every stored value is 1."""

    shape: tuple[int, int]
    indptr: NDArray[np.int64]
    indices: NDArray[np.int32]
    data: NDArray[np.float32]
    t_indptr: NDArray[np.int64]
    t_indices: NDArray[np.int32]
    t_data: NDArray[np.float32]

    @classmethod
    def from_scipy(cls, A: sp.spmatrix) -> SparseRows:
        csr = sp.csr_matrix(A, dtype=np.float32)
        csc = csr.tocsc()
        return cls(csr.shape, csr.indptr.astype(np.int64), csr.indices.astype(np.int32),
                   csr.data, csc.indptr.astype(np.int64), csc.indices.astype(np.int32),
                   csc.data)

    def toarray(self) -> NDArray[np.float64]:
        m, n = self.shape
        rows = np.repeat(np.arange(m), np.diff(self.indptr))
        out = np.zeros((m, n))
        out[rows, self.indices] = self.data if self.data.size else 1.0
        return out


def history_matrices(indptr: NDArray[np.int64], indices: NDArray[np.int32],
                     values: NDArray[np.floating], n_cols: int) -> tuple[SparseRows, SparseRows]:
    """The ratings matrix and its 0/1 pattern from CSR arrays, sharing one transpose."""
    n_rows = indptr.shape[0] - 1
    t_indptr, t_indices, perm = _transpose(indptr, indices.astype(np.int32), n_cols)
    data = values.astype(np.float32)
    empty = np.zeros(0, dtype=np.float32)
    R = SparseRows((n_rows, n_cols), indptr, indices, data, t_indptr, t_indices, data[perm])
    B = SparseRows((n_rows, n_cols), indptr, indices, empty, t_indptr, t_indices, empty)
    return R, B


@numba.njit(cache=True)
def _transpose(indptr: np.ndarray, indices: np.ndarray,
               n_cols: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover
    """CSR arrays of the transpose (counting sort by column) and the entry permutation."""
    nnz = indices.shape[0]
    t_indptr = np.zeros(n_cols + 1, dtype=np.int64)
    for p in range(nnz):
        t_indptr[indices[p] + 1] += 1
    for c in range(n_cols):
        t_indptr[c + 1] += t_indptr[c]
    pos = t_indptr[:-1].copy()
    t_indices = np.empty(nnz, dtype=np.int32)
    perm = np.empty(nnz, dtype=np.int64)
    for r in range(indptr.shape[0] - 1):
        for p in range(indptr[r], indptr[r + 1]):
            c = indices[p]
            t_indices[pos[c]] = r
            perm[pos[c]] = p
            pos[c] += 1
    return t_indptr, t_indices, perm


def truncated_svd(A: sp.spmatrix | SparseRows, k: int, *, n_iter: int = POWER_ITERATIONS,
                  seed: int = 0) -> SVDFactors:
    """The rank-``k`` truncated SVD of ``A`` (exact when ``k >= min(A.shape)``)."""
    if not isinstance(A, SparseRows):
        A = SparseRows.from_scipy(A)
    with threadpool_limits(1, user_api="blas"):
        return _truncated_svd(A, k, n_iter=n_iter, seed=seed)


def _truncated_svd(A: SparseRows, k: int, *, n_iter: int, seed: int) -> SVDFactors:
    # The dense steps are small (tall-and-thin, or ell x n); one BLAS thread is as fast and does
    # not fight the compiled kernels or other processes for the two cores.
    m, n = A.shape
    if min(m, n) == 0:
        z = np.zeros((0,), dtype=np.float64)
        return SVDFactors(np.zeros((m, 0)), z, np.zeros((n, 0)))
    if k >= min(m, n):
        U, s, Vt = np.linalg.svd(A.toarray(), full_matrices=False)
        return SVDFactors(U, s, np.ascontiguousarray(Vt.T))
    fwd = (A.indptr, A.indices, A.data)
    bwd = (A.t_indptr, A.t_indices, A.t_data)
    ell = min(k + OVERSAMPLE, min(m, n))
    rng = np.random.default_rng([seed, 0x5FD])
    omega = rng.standard_normal((n, ell), dtype=np.float32)
    Q = _orthonormal(spmm(*fwd, omega, m), passes=1)
    for it in range(n_iter):
        Z = _orthonormal(spmm(*bwd, Q, n), passes=1)
        Q = _orthonormal(spmm(*fwd, Z, m), passes=2 if it == n_iter - 1 else 1)
    if n_iter == 0:
        Q = _orthonormal(Q, passes=1)
    B = spmm(*bwd, Q, n).T  # (ell, n) = Q^T A
    Ub, s, Vt = np.linalg.svd(B.astype(np.float64), full_matrices=False)
    U = Q.astype(np.float64) @ Ub[:, :k]
    return SVDFactors(U, s[:k], np.ascontiguousarray(Vt[:k].T))


def _orthonormal(Y: NDArray[np.floating], *, passes: int = 2) -> NDArray[np.float32]:
    """An orthonormal basis of the columns of ``Y`` (tall and thin).

    From the eigen-decomposition of the small Gram matrix ``Y^T Y = W L W^T`` (float64):
    ``Q = Y W L^(-1/2)``; two passes restore orthogonality to working precision
    ("CholeskyQR2"-style; Fukaya et al. 2014), one is enough between power iterations, which
    only need a well-conditioned basis of the same span. Directions with eigenvalue below
    ``1e-10`` of the largest are dropped (set to zero). Much faster than Householder QR on a
    162k x 42 matrix.
    """
    Q = np.asarray(Y, dtype=np.float64)
    for _ in range(passes):
        G = Q.T @ Q
        lam, W = np.linalg.eigh(G)
        top = lam.max() if lam.size else 0.0
        keep = lam > 1e-10 * top if top > 0 else np.zeros_like(lam, dtype=bool)
        scale = np.zeros_like(lam)
        scale[keep] = 1.0 / np.sqrt(lam[keep])
        Q = Q @ (W * scale)
    return np.ascontiguousarray(Q, dtype=np.float32)


@numba.njit(parallel=True, cache=True)
def spmm(indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, X: np.ndarray,
         n_rows: int) -> np.ndarray:  # pragma: no cover - compiled
    """``A @ X`` for CSR ``A`` (rows in parallel; deterministic); empty ``data`` = all ones."""
    k = X.shape[1]
    out = np.zeros((n_rows, k), dtype=np.float32)
    ones = data.shape[0] == 0
    for r in numba.prange(n_rows):
        for p in range(indptr[r], indptr[r + 1]):
            j = indices[p]
            v = np.float32(1.0) if ones else data[p]
            for d in range(k):
                out[r, d] += v * X[j, d]
    return out


def svd_group(h: History, factors: SVDFactors) -> FeatureGroup:
    """``svd_score`` = PureSVD reconstruction of the user's history row at the candidate."""
    P = np.ascontiguousarray(factors.U * factors.s, dtype=np.float32)
    Q = np.ascontiguousarray(factors.V, dtype=np.float32)

    def transform(c: Candidates) -> Columns:
        return [row_dots(c.user, c.item, P, Q)]

    return FeatureGroup("svd", ("svd_score",), transform)


@numba.njit(parallel=True, cache=True)
def row_dots(user: np.ndarray, item: np.ndarray, P: np.ndarray,
             Q: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """``out[r] = <P[user[r]], Q[item[r]]>`` (float64 accumulation, float32 result)."""
    n = user.shape[0]
    k = P.shape[1]
    out = np.empty(n, dtype=np.float32)
    for r in numba.prange(n):
        u = user[r]
        i = item[r]
        acc = 0.0
        for d in range(k):
            acc += P[u, d] * Q[i, d]
        out[r] = acc
    return out
