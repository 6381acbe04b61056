"""User-genre affinity of a candidate item, from the user's history.

With ``G(i)`` the candidate's genres, ``n_u`` the user's history size, ``c_u(g)`` the number of
the user's history items that have genre ``g`` and ``s_u(g)`` the sum of their ratings:

- ``genre_share`` = mean over g in G(i) of ``c_u(g) / n_u`` -- how much of the user's history
  is in the candidate's genres (0 for an item without genres);
- ``genre_mean_rating`` = ``sum_g s_u(g) / sum_g c_u(g)`` over g in G(i) -- the user's mean
  rating of history items in those genres (an item with two of them counts twice); the user's
  mean rating when that sum is 0.

Both come from a users x genres table built in one pass over the history, then one pass over
the candidate rows (compiled).
"""

from __future__ import annotations

import numba
import numpy as np

from bench.adapters.features import Columns, FeatureGroup
from bench.adapters.history import History
from bench.adapters.metadata import ItemGenres
from bench.adapters.negatives import Candidates


def genre_group(h: History, genres: ItemGenres) -> FeatureGroup:
    """Fit the user x genre counts and rating sums; see the module docstring."""
    count, total = _user_genre_tables(h.user, h.item, h.rating, genres.indptr, genres.genre,
                                      h.n_users, genres.n_genres)
    n_u, s_u = h.user_stats.count, h.user_stats.total
    user_mean = np.where(n_u > 0, s_u / np.maximum(n_u, 1.0), h.global_mean)

    def transform(c: Candidates) -> Columns:
        share, mean = _affinity(c.user, c.item, genres.indptr, genres.genre, count, total, n_u,
                                user_mean)
        return [share, mean]

    return FeatureGroup("genre", ("genre_share", "genre_mean_rating"), transform)


@numba.njit(cache=True)
def _user_genre_tables(user: np.ndarray, item: np.ndarray, rating: np.ndarray,
                       g_ptr: np.ndarray, g_id: np.ndarray, n_users: int,
                       n_genres: int) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
    count = np.zeros((n_users, n_genres), dtype=np.float64)
    total = np.zeros((n_users, n_genres), dtype=np.float64)
    for k in range(user.shape[0]):
        u = user[k]
        it = item[k]
        for p in range(g_ptr[it], g_ptr[it + 1]):
            g = g_id[p]
            count[u, g] += 1.0
            total[u, g] += rating[k]
    return count, total


@numba.njit(parallel=True, cache=True)
def _affinity(user: np.ndarray, item: np.ndarray, g_ptr: np.ndarray, g_id: np.ndarray,
              count: np.ndarray, total: np.ndarray, n_u: np.ndarray,
              user_mean: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
    n = user.shape[0]
    share = np.zeros(n, dtype=np.float32)
    mean = np.empty(n, dtype=np.float32)
    for r in numba.prange(n):
        u = user[r]
        it = item[r]
        k = g_ptr[it + 1] - g_ptr[it]
        c = 0.0
        s = 0.0
        for p in range(g_ptr[it], g_ptr[it + 1]):
            g = g_id[p]
            c += count[u, g]
            s += total[u, g]
        if k > 0 and n_u[u] > 0:
            share[r] = c / (k * n_u[u])
        mean[r] = s / c if c > 0 else user_mean[u]
    return share, mean
