"""The history: the only ratings that features may read.

:class:`History` holds the ratings whose role is ``HISTORY`` (see :mod:`bench.adapters.splits`),
still ordered by (user, time, item), plus per-user offsets, the catalogue size and the reference
time of the time-dependent features. Every feature group receives a ``History`` and the
candidate rows, never the target ratings: that is what makes the features leakage-free by
construction (and what the leakage test checks).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numba
import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from bench.adapters.splits import HISTORY, Split
from bench.adapters.table import RatingsTable

SECONDS_PER_DAY = 86_400.0

__all__ = ["SECONDS_PER_DAY", "GroupStats", "History", "HistoryTotals", "accumulate_stats",
           "exact_partials", "history_of"]


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
class HistoryTotals:
    """What the whole history says about the items, for a :class:`History` of some users only
    (the out-of-core adapter): the items' statistics over all users and the mean rating."""

    item_stats: GroupStats
    global_mean: float
    #: Users with at least one history rating, over the whole history.
    history_users: int


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
    #: Set when this history holds some users only: the whole history's item side.
    totals: HistoryTotals | None = None

    @property
    def n(self) -> int:
        return int(self.user.shape[0])

    @property
    def global_mean(self) -> float:
        """Mean history rating (0 when there is no history): the exactly rounded sum (Shewchuk
        partials, as :func:`math.fsum`) over the count, so it does not depend on how the
        history is cut into pieces."""
        if self.totals is not None:
            return self.totals.global_mean
        return math.fsum(exact_partials(self.rating)) / self.n if self.n else 0.0

    @property
    def history_users(self) -> int:
        """Users with at least one history rating: the users the history knows. A user whose
        every rating is a target or unused (``time-cut``: a user who rates only from ``c1`` on)
        is no part of it, so a whole-history model (the SVDs, ALS, Pearson's user count) does
        not change when such users are added."""
        if self.totals is not None:
            return self.totals.history_users
        return int(np.count_nonzero(np.diff(self.indptr)))

    def rows_with_history(self) -> NDArray[np.int64]:
        """User codes with at least one history rating (of this history's users)."""
        return np.flatnonzero(np.diff(self.indptr) > 0).astype(np.int64)

    def item_counts(self) -> NDArray[np.int64]:
        return self.item_stats.count.astype(np.int64)

    @cached_property
    def user_stats(self) -> GroupStats:
        """Per user code: count, sum and sum of squares of history ratings, first/last time."""
        return accumulate_stats(None, self.n_users, self.user, self.rating, self.timestamp)

    @cached_property
    def item_stats(self) -> GroupStats:
        """Per item code: count, sum and sum of squares of history ratings, first/last time."""
        if self.totals is not None:
            return self.totals.item_stats
        return accumulate_stats(None, self.n_items, self.item, self.rating, self.timestamp)

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


def accumulate_stats(stats: GroupStats | None, n_groups: int, groups: NDArray[np.int32],
                     rating: NDArray[np.float64], timestamp: NDArray[np.int64]) -> GroupStats:
    """``stats`` (``None``: nothing yet) after the rows ``groups, rating, timestamp``, added in
    row order: the rows of a history cut into consecutive pieces, accumulated piece after piece,
    give exactly the statistics of the whole (same additions in the same order)."""
    if stats is None:
        out = GroupStats(np.zeros(n_groups), np.zeros(n_groups), np.zeros(n_groups),
                         np.full(n_groups, -1, dtype=np.int64),
                         np.full(n_groups, -1, dtype=np.int64))
    else:
        out = GroupStats(stats.count.copy(), stats.total.copy(), stats.squares.copy(),
                         stats.first.copy(), stats.last.copy())
    _add_rows(groups, rating, timestamp, out.count, out.total, out.squares, out.first, out.last)
    return out


@numba.njit(cache=True)
def exact_partials(values: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """Non-overlapping partials whose exact sum is the exact sum of ``values`` (Shewchuk's
    algorithm, the one behind :func:`math.fsum`); ``math.fsum`` of them rounds once."""
    p = np.zeros(128)
    n = 0
    for k in range(values.shape[0]):
        x = values[k]
        i = 0
        for j in range(n):
            y = p[j]
            if abs(x) < abs(y):
                x, y = y, x
            hi = x + y
            lo = y - (hi - x)
            if lo != 0.0:
                p[i] = lo
                i += 1
            x = hi
        p[i] = x
        n = i + 1
    out: np.ndarray = p[:n].copy()  # at most ~40 partials: doubles span 2^-1074 .. 2^1024
    return out


@numba.njit(cache=True)
def _add_rows(groups: np.ndarray, rating: np.ndarray, timestamp: np.ndarray, count: np.ndarray,
              total: np.ndarray, squares: np.ndarray, first: np.ndarray,
              last: np.ndarray) -> None:  # pragma: no cover - compiled
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
