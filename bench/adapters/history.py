"""The history: the only ratings that features may read.

:class:`History` holds the ratings whose role is ``HISTORY`` (see :mod:`bench.adapters.splits`),
still ordered by (user, time, item), plus per-user offsets, the catalogue size and the reference
time of the time-dependent features. Every feature group receives a ``History`` and the
candidate rows, never the target ratings: that is what makes the features leakage-free by
construction (and what the leakage test checks).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numba
import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from bench.adapters.splits import HISTORY, Split
from bench.adapters.table import RatingsTable

SECONDS_PER_DAY = 86_400.0

__all__ = ["SECONDS_PER_DAY", "GroupStats", "History", "history_of"]


@dataclass(frozen=True, eq=False)
class GroupStats:
    """History ratings summarised per group (user or item); ``first``/``last`` are -1 when the
    group has no rating."""

    count: NDArray[np.float64]
    total: NDArray[np.float64]
    squares: NDArray[np.float64]
    first: NDArray[np.int64]
    last: NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class History:
    """History ratings (codes as in the :class:`RatingsTable`), ordered by (user, time, item)."""

    user: NDArray[np.int32]
    item: NDArray[np.int32]
    rating: NDArray[np.float64]
    timestamp: NDArray[np.int64]
    indptr: NDArray[np.int64]
    n_users: int
    n_items: int
    reference_time: int

    @property
    def n(self) -> int:
        return int(self.user.shape[0])

    @property
    def global_mean(self) -> float:
        """Mean history rating (0 when there is no history)."""
        return float(self.rating.mean()) if self.n else 0.0

    def item_counts(self) -> NDArray[np.int64]:
        return self.item_stats.count.astype(np.int64)

    @cached_property
    def user_stats(self) -> GroupStats:
        """Per user code: count, sum and sum of squares of history ratings, first/last time."""
        return GroupStats(*_group_stats(self.user, self.rating, self.timestamp, self.n_users))

    @cached_property
    def item_stats(self) -> GroupStats:
        """Per item code: count, sum and sum of squares of history ratings, first/last time."""
        return GroupStats(*_group_stats(self.item, self.rating, self.timestamp, self.n_items))

    def matrix(self, *, binary: bool = False, dtype: type = np.float32) -> sp.csr_matrix:
        """Users x items CSR matrix of history ratings (or of ones with ``binary=True``)."""
        data: np.ndarray = np.ones(self.n, dtype=dtype) if binary else self.rating.astype(dtype)
        m = sp.csr_matrix((data, self.item, self.indptr), shape=(self.n_users, self.n_items))
        m.has_sorted_indices = False
        return m


def history_of(table: RatingsTable, split: Split) -> History:
    """The history rows of ``table`` under ``split``."""
    keep = split.role == HISTORY
    user = table.user[keep]
    indptr = np.zeros(table.n_users + 1, dtype=np.int64)
    np.cumsum(np.bincount(user, minlength=table.n_users), out=indptr[1:])
    return History(
        user=user,
        item=table.item[keep],
        rating=table.rating[keep],
        timestamp=table.timestamp[keep],
        indptr=indptr,
        n_users=table.n_users,
        n_items=table.n_items,
        reference_time=int(split.reference_time),
    )


@numba.njit(cache=True)
def _group_stats(groups: np.ndarray, rating: np.ndarray, timestamp: np.ndarray,
                 n_groups: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                         np.ndarray]:  # pragma: no cover - compiled
    count = np.zeros(n_groups)
    total = np.zeros(n_groups)
    squares = np.zeros(n_groups)
    first = np.full(n_groups, -1, dtype=np.int64)
    last = np.full(n_groups, -1, dtype=np.int64)
    for k in range(groups.shape[0]):
        g = groups[k]
        r = rating[k]
        t = timestamp[k]
        if count[g] == 0 or t < first[g]:
            first[g] = t
        if count[g] == 0 or t > last[g]:
            last[g] = t
        count[g] += 1.0
        total[g] += r
        squares[g] += r * r
    return count, total, squares, first, last
