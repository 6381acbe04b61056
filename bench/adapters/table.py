"""The ratings as compact arrays ordered by user, then time: the adapter's working table.

User and item ids become dense codes ``0..n-1`` in increasing id order; the ratings are
reordered by (user, timestamp, item) with a counting sort on users and one small Shell sort per
user (compiled, in parallel) -- close to linear on per-user segments, where a global
``argsort`` of 25M keys takes several seconds. Ties in time are broken by item id, so the order
never depends on the input row order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
import pandas as pd
from numpy.typing import NDArray


@dataclass(frozen=True, eq=False)
class RatingsTable:
    """Ratings ordered by (user, timestamp, item), with dense codes.

    ``indptr[u]:indptr[u + 1]`` are the rows of user code ``u``; ``user_ids[u]`` and
    ``item_ids[i]`` give back the original ids.
    """

    user: NDArray[np.int32]
    item: NDArray[np.int32]
    rating: NDArray[np.float64]
    timestamp: NDArray[np.int64]
    indptr: NDArray[np.int64]
    user_ids: NDArray[np.int64]
    item_ids: NDArray[np.int64]

    @property
    def n(self) -> int:
        return int(self.user.shape[0])

    @property
    def n_users(self) -> int:
        return int(self.user_ids.shape[0])

    @property
    def n_items(self) -> int:
        return int(self.item_ids.shape[0])


def build_table(frame: pd.DataFrame) -> RatingsTable:
    """Encode ids and order a validated ratings frame (see :class:`bench.data.ratings.Ratings`)."""
    ucode, user_ids = dense_codes(frame["user"].to_numpy())
    icode, item_ids = dense_codes(frame["item"].to_numpy())
    return table_from_codes(ucode, icode, frame["rating"].to_numpy(),
                            frame["timestamp"].to_numpy(), user_ids, item_ids)


def table_from_codes(ucode: NDArray[np.int32], icode: NDArray[np.int32],
                     rating: NDArray[np.floating], timestamp: NDArray[np.integer],
                     user_ids: NDArray[np.int64], item_ids: NDArray[np.int64]) -> RatingsTable:
    """Order ratings given as codes (``user_ids[ucode]`` is the user, ``item_ids[icode]`` the
    item) by (user, timestamp, item) into a :class:`RatingsTable`."""
    ts = np.asarray(timestamp).astype(np.int64, copy=False)
    order, indptr = _counting_order(ucode, user_ids.shape[0])
    _sort_segments(indptr, ts, icode, order)
    n_users = user_ids.shape[0]
    return RatingsTable(
        user=np.repeat(np.arange(n_users, dtype=np.int32), np.diff(indptr)),
        item=icode[order],
        rating=np.asarray(rating).astype(np.float64, copy=False)[order],
        timestamp=ts[order],
        indptr=indptr,
        user_ids=user_ids,
        item_ids=item_ids,
    )


def dense_codes(values: NDArray[np.int64]) -> tuple[NDArray[np.int32], NDArray[np.int64]]:
    """Codes ``0..k-1`` of the distinct values in increasing order, and the values themselves.

    Non-negative ids up to a few times the row count (MovieLens) use a lookup table (linear);
    others go through :func:`pandas.factorize` (hashing).
    """
    v = np.asarray(values)
    if v.size == 0:
        return np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int64)
    lo, hi = int(v.min()), int(v.max())
    if lo >= 0 and hi < 4 * v.shape[0] + (1 << 20):
        present = np.zeros(hi + 1, dtype=np.bool_)
        present[v] = True
        ids = np.flatnonzero(present).astype(np.int64)
        table = np.cumsum(present, dtype=np.int64) - 1
        return table[v].astype(np.int32), ids
    codes, uniques = pd.factorize(v, sort=True)
    return codes.astype(np.int32), np.asarray(uniques, dtype=np.int64)


@numba.njit(cache=True)
def _counting_order(codes: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Stable order grouping ``codes`` (values 0..n_groups-1), and the group offsets."""
    n = codes.shape[0]
    indptr = np.zeros(n_groups + 1, dtype=np.int64)
    for k in range(n):
        indptr[codes[k] + 1] += 1
    for g in range(n_groups):
        indptr[g + 1] += indptr[g]
    pos = indptr[:-1].copy()
    order = np.empty(n, dtype=np.int64)
    for k in range(n):
        c = codes[k]
        order[pos[c]] = k
        pos[c] += 1
    return order, indptr


#: Shell-sort gaps (Ciura's sequence, extended by x2.25): fast on the short, often nearly
#: sorted per-user segments, and much quicker to compile than a generic argsort.
_GAPS = np.array([1, 4, 10, 23, 57, 132, 301, 701, 1577, 3548, 7983, 17961, 40412, 90927,
                  204585, 460316, 1035711, 2330349], dtype=np.int64)


@numba.njit(cache=True)
def _shell_sort(order: np.ndarray, key: np.ndarray, key2: np.ndarray, a: int, b: int,
                gaps: np.ndarray) -> None:  # pragma: no cover - compiled
    """Sort ``order[a:b]`` in place by ``(key, key2)[order]`` (lexicographic)."""
    n = b - a
    g = gaps.shape[0] - 1
    while g >= 0:
        gap = gaps[g]
        g -= 1
        if gap >= n:
            continue
        for i in range(a + gap, b):
            tmp = order[i]
            kt = key[tmp]
            k2 = key2[tmp]
            j = i
            while j - a >= gap:
                o = order[j - gap]
                if key[o] > kt or (key[o] == kt and key2[o] > k2):
                    order[j] = o
                    j -= gap
                else:
                    break
            order[j] = tmp


@numba.njit(parallel=True, cache=True)
def _sort_segments(indptr: np.ndarray, key: np.ndarray, key2: np.ndarray,
                   order: np.ndarray) -> None:  # pragma: no cover - compiled
    """Sort ``order`` within each segment by ``(key, key2)[order]``."""
    gaps = _GAPS
    for g in numba.prange(indptr.shape[0] - 1):
        _shell_sort(order, key, key2, indptr[g], indptr[g + 1], gaps)


@numba.njit(parallel=True, cache=True)
def segment_ranks(indptr: np.ndarray, key: np.ndarray) -> np.ndarray:
    """Rank (0-based) of each element within its segment by ``key`` (for distinct keys)."""
    gaps = _GAPS
    order = np.arange(key.shape[0])
    tie = np.zeros(key.shape[0], dtype=np.int64)
    out = np.empty(key.shape[0], dtype=np.int64)
    for g in numba.prange(indptr.shape[0] - 1):
        a = indptr[g]
        _shell_sort(order, key, tie, a, indptr[g + 1], gaps)
        for j in range(a, indptr[g + 1]):
            out[order[j]] = j - a
    return out


@numba.njit(cache=True)
def group_min(groups: np.ndarray, values: np.ndarray, n_groups: int,
              empty: int) -> np.ndarray:  # pragma: no cover - compiled
    """Minimum of ``values`` per group id (``empty`` for groups without values)."""
    out = np.full(n_groups, empty, dtype=np.int64)
    for k in range(groups.shape[0]):
        g = groups[k]
        if values[k] < out[g]:
            out[g] = values[k]
    return out
