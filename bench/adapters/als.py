"""Implicit-feedback ALS (Hu, Koren & Volinsky 2008) with conjugate-gradient steps.

Written here (no ``implicit`` dependency). Every history rating ``(u, i, r)`` is an observed
preference ``p_ui = 1`` with confidence ``c_ui = 1 + alpha * r`` (``r = 1`` for implicit
data); every other pair has ``p_ui = 0``, ``c_ui = 1``. The factors minimise

    sum_{u,i} c_ui (p_ui - x_u . y_i)^2 + lambda (sum_u |x_u|^2 + sum_i |y_i|^2)

by alternating least squares. The user step solves, for every user at once (in parallel),

    (Y^T Y + Y^T (C_u - I) Y + lambda I) x_u = Y^T C_u p_u,

using the shared ``Y^T Y`` plus one pass over the user's observed items -- never forming the
dense ``C_u`` -- and a few conjugate-gradient steps warm-started from the current ``x_u``
(Takacs, Pilaszy & Tikk 2011, "Applications of the conjugate gradient method for implicit
feedback collaborative filtering"). The item step is the same with roles swapped. With
``cg_steps >= factors`` each step is the exact least-squares solve (up to rounding), which is
what the tests check against a direct per-user solve.

``als_score`` = ``x_u . y_i``. Factors start at ``0.01 * N(0, 1)`` from the config seed.
"""

from __future__ import annotations

import numba
import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from bench.adapters.config import AdapterConfig
from bench.adapters.features import Columns, FeatureGroup
from bench.adapters.history import History
from bench.adapters.negatives import Candidates
from bench.adapters.svd import row_dots


def fit_als(R: sp.csr_matrix, *, factors: int, iterations: int, regularization: float,
            alpha: float, cg_steps: int, seed: int,
            dtype: type = np.float32) -> tuple[NDArray[np.floating], NDArray[np.floating]]:
    """User and item factors ``(X, Y)`` of the implicit ALS model on ratings matrix ``R``."""
    R = sp.csr_matrix(R)
    n_users, n_items = R.shape
    conf = (1.0 + alpha * R.data).astype(dtype)
    Rt = sp.csr_matrix((conf, R.indices, R.indptr), shape=R.shape).T.tocsr()
    rng = np.random.default_rng([seed, 0xA15])
    X: NDArray[np.floating] = (0.01 * rng.standard_normal((n_users, factors))).astype(dtype)
    Y: NDArray[np.floating] = (0.01 * rng.standard_normal((n_items, factors))).astype(dtype)
    u_ptr, u_idx = R.indptr.astype(np.int64), R.indices.astype(np.int32)
    i_ptr, i_idx, i_conf = Rt.indptr.astype(np.int64), Rt.indices.astype(np.int32), Rt.data
    reg = dtype(regularization)
    for _ in range(iterations):
        als_half_step(u_ptr, u_idx, conf, X, Y, (Y.T @ Y).astype(dtype), reg, cg_steps)
        als_half_step(i_ptr, i_idx, i_conf, Y, X, (X.T @ X).astype(dtype), reg, cg_steps)
    return X, Y


@numba.njit(parallel=True, cache=True)
def als_half_step(indptr: np.ndarray, indices: np.ndarray, conf: np.ndarray, X: np.ndarray,
                  Y: np.ndarray, YtY: np.ndarray, reg: float,
                  cg_steps: int) -> None:  # pragma: no cover - compiled
    """Update every row ``x_u`` of ``X`` in place by ``cg_steps`` CG steps (see module)."""
    f = X.shape[1]
    for u in numba.prange(X.shape[0]):
        x = X[u].copy()
        # residual r = b - A x, with b = sum_i c_ui y_i and A x = YtY x + reg x
        #                                            + sum_i (c_ui - 1)(y_i . x) y_i
        r = -(YtY @ x) - reg * x
        for p in range(indptr[u], indptr[u + 1]):
            i = indices[p]
            c = conf[p]
            yx = 0.0
            for d in range(f):
                yx += Y[i, d] * x[d]
            w = c - (c - 1.0) * yx
            for d in range(f):
                r[d] += w * Y[i, d]
        direction = r.copy()
        rs_old = 0.0
        for d in range(f):
            rs_old += r[d] * r[d]
        for _ in range(cg_steps):
            if rs_old <= 1e-20:
                break
            Ap = YtY @ direction + reg * direction
            for p in range(indptr[u], indptr[u + 1]):
                i = indices[p]
                yp = 0.0
                for d in range(f):
                    yp += Y[i, d] * direction[d]
                w = (conf[p] - 1.0) * yp
                for d in range(f):
                    Ap[d] += w * Y[i, d]
            pAp = 0.0
            for d in range(f):
                pAp += direction[d] * Ap[d]
            if pAp <= 0.0:
                break
            step = rs_old / pAp
            rs_new = 0.0
            for d in range(f):
                x[d] += step * direction[d]
                r[d] -= step * Ap[d]
                rs_new += r[d] * r[d]
            beta = rs_new / rs_old
            for d in range(f):
                direction[d] = r[d] + beta * direction[d]
            rs_old = rs_new
        for d in range(f):
            X[u, d] = x[d]


def als_group(h: History, config: AdapterConfig) -> FeatureGroup:
    """``als_score`` = ``x_u . y_i`` of the model fitted on the history."""
    rows = h.rows_with_history()  # users without history are no row of the model (0 score)
    R = h.matrix()
    Xh, Y = fit_als(R[rows] if rows.shape[0] < h.n_users else R, factors=config.als_factors,
                    iterations=config.als_iterations, regularization=config.als_regularization,
                    alpha=config.als_alpha, cg_steps=config.als_cg_steps, seed=config.seed)
    X = Xh
    if rows.shape[0] < h.n_users:
        X = np.zeros((h.n_users, Xh.shape[1]), dtype=Xh.dtype)
        X[rows] = Xh

    def transform(c: Candidates) -> Columns:
        return [row_dots(c.user, c.item, X, Y)]

    return FeatureGroup("als", ("als_score",), transform)
