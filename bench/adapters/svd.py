"""Truncated SVD of the history matrix and the PureSVD score.

``truncated_svd(A, k)`` returns ``U_k, s_k, V_k`` with ``A ~ U_k diag(s_k) V_k^T``, the best
rank-k approximation (Eckart-Young). When ``k`` reaches ``min(A.shape)`` it is the exact dense
SVD (LAPACK via :func:`numpy.linalg.svd`, float64); otherwise scikit-learn's
:func:`~sklearn.utils.extmath.randomized_svd`, the randomized subspace iteration of Halko,
Martinsson & Tropp (2011, "Finding structure with randomness", Algorithms 4.4 and 5.1: a Gaussian
test matrix with ``k + 10`` columns and ``n_iter`` QR-normalized power iterations), on the sparse
float32 matrix -- a few sparse-times-dense products, so it scales to ML-25M size in seconds.
Seeded, hence deterministic.

``svd_score`` is PureSVD (Cremonesi, Koren & Turrin 2010, "Performance of recommender
algorithms on top-N recommendation tasks"): ``r_u V_k V_k^T`` at the candidate, i.e. the
rank-k reconstruction ``(U_k diag(s_k) V_k^T)[u, i]`` of the user's history row (unrated = 0).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numba
import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.utils.extmath import randomized_svd
from threadpoolctl import threadpool_limits

from bench.adapters.features import Columns, FeatureGroup
from bench.adapters.history import History
from bench.adapters.negatives import Candidates

if TYPE_CHECKING:
    from scipy.sparse.linalg import LinearOperator

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


def history_matrices(
    indptr: NDArray[np.int64], indices: NDArray[np.int32], values: NDArray[np.floating], n_cols: int
) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """The ratings matrix (float32) and its 0/1 pattern from CSR arrays."""
    shape = (indptr.shape[0] - 1, n_cols)
    R = sp.csr_matrix((values.astype(np.float32), indices, indptr), shape=shape)
    B = sp.csr_matrix((np.ones(indices.shape[0], dtype=np.float32), indices, indptr), shape=shape)
    return R, B


def truncated_svd(A: sp.spmatrix, k: int, *, n_iter: int = POWER_ITERATIONS, seed: int = 0) -> SVDFactors:
    """The rank-``k`` truncated SVD of ``A`` (exact when ``k >= min(A.shape)``).

    The dense steps are small (tall-and-thin, or ell x n); one BLAS thread is as fast and does not
    fight the compiled kernels or other processes for the cores, and keeps the result the same
    whatever the machine's core count.
    """
    A = sp.csr_matrix(A, dtype=np.float32)
    return _factors(A, k, n_iter=n_iter, seed=seed, dense=A.toarray, randomized=randomized_svd)


def truncated_svd_operator(A: LinearOperator, k: int, *, n_iter: int = POWER_ITERATIONS,
                           seed: int = 0) -> SVDFactors:
    """:func:`truncated_svd` of a matrix known only by its products (``A @ X`` and
    ``A.T @ X``, float32): the matrix of the out-of-core adapter, whose rows are spread over
    workers (:mod:`bench.adapters.distributed`).

    The algorithm is scikit-learn's own (the body of :func:`~sklearn.utils.extmath.randomized_svd`,
    which takes a ``LinearOperator`` where the public function insists on an array). When the
    products are those of the CSR matrix bit for bit (:func:`add_transposed_product` for
    ``A.T @ X``; row blocks for ``A @ X``), the factors are :func:`truncated_svd`'s bit for bit
    (tested). With ``k >= min(A.shape)`` the dense matrix is formed from products with the
    identity (exact: one non-zero term per entry) and decomposed as :func:`truncated_svd` does.
    """
    from sklearn.utils.extmath import _randomized_svd

    m, n = A.shape

    def dense() -> np.ndarray:
        if n <= m:
            return np.asarray(A @ np.eye(n, dtype=np.float32))
        return np.asarray((A.T @ np.eye(m, dtype=np.float32)).T)

    return _factors(A, k, n_iter=n_iter, seed=seed, dense=dense, randomized=_randomized_svd)


def _factors(A: Any, k: int, *, n_iter: int, seed: int, dense: Callable[[], np.ndarray],
             randomized: Callable[..., tuple[np.ndarray, np.ndarray, np.ndarray]]) -> SVDFactors:
    """The shared steps of both SVDs: an empty matrix, the exact dense SVD when ``k`` reaches
    ``min(A.shape)``, else scikit-learn's randomized SVD, on one BLAS thread."""
    m, n = A.shape
    if min(m, n) == 0:
        z = np.zeros((0,), dtype=np.float64)
        return SVDFactors(np.zeros((m, 0)), z, np.zeros((n, 0)))
    with threadpool_limits(1, user_api="blas"):
        if k >= min(m, n):
            U, s, Vt = np.linalg.svd(dense().astype(np.float64), full_matrices=False)
        else:
            U, s, Vt = randomized(
                A, n_components=k, n_oversamples=OVERSAMPLE, n_iter=n_iter,
                power_iteration_normalizer="QR", random_state=seed,
            )
    return SVDFactors(U, s, np.ascontiguousarray(Vt.T))


def on_rows(factors: SVDFactors, rows: NDArray[np.int64], n_rows: int) -> SVDFactors:
    """``factors`` of the matrix's rows ``rows`` as factors of all ``n_rows`` rows: ``U`` is 0
    on the others (rows without a stored value: users without history, whose PureSVD score is
    0 either way). The SVDs are fitted on the users with history only, so that a user who
    rates only after the cut (``time-cut``) does not move any other user's score
    (:meth:`bench.adapters.history.History.history_users`)."""
    if rows.shape[0] == n_rows:
        return factors
    U = np.zeros((n_rows, factors.k), dtype=factors.U.dtype)
    U[rows] = factors.U
    return SVDFactors(U, factors.s, factors.V)


def rows_operator(A: LinearOperator, rows: NDArray[np.int64]) -> LinearOperator:
    """The rows ``rows`` of the operator ``A`` (the others hold no stored value, so ``A.T @ X``
    with zeros in their places adds nothing: the products are those of the row subset bit for
    bit)."""
    from scipy.sparse.linalg import LinearOperator

    m, n = A.shape
    if rows.shape[0] == m:
        return A

    def matmat(X: NDArray[np.float32]) -> NDArray[np.float32]:
        return np.asarray(A.matmat(X))[rows]

    def rmatmat(X: NDArray[np.float32]) -> NDArray[np.float32]:
        X = np.asarray(X)
        full = np.zeros((m, X.shape[1]), dtype=X.dtype)
        full[rows] = X
        return np.asarray(A.rmatmat(full))

    return LinearOperator((rows.shape[0], n), matvec=lambda x: matmat(x.reshape(-1, 1)).ravel(),
                          rmatvec=lambda x: rmatmat(x.reshape(-1, 1)).ravel(), matmat=matmat,
                          rmatmat=rmatmat, dtype=A.dtype)


@numba.njit(cache=True)
def add_transposed_product(indptr: np.ndarray, indices: np.ndarray, data: np.ndarray,
                           X: np.ndarray, Y: np.ndarray) -> None:  # pragma: no cover - compiled
    """``Y += A.T @ X`` for the CSR matrix ``A = (data, indices, indptr)``, in the order SciPy's
    ``A.T @ X`` adds (row after row of ``A``, one ``y += a x`` per stored value, in ``Y``'s
    dtype): the rows of a matrix cut into consecutive blocks, added block after block into the
    same ``Y``, give SciPy's product of the whole bit for bit."""
    k = X.shape[1]
    for j in range(indptr.shape[0] - 1):
        for p in range(indptr[j], indptr[j + 1]):
            i = indices[p]
            a = data[p]
            for c in range(k):
                Y[i, c] += a * X[j, c]


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
