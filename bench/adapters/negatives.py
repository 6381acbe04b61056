"""Candidate lists: per query, the user's target items plus sampled never-rated items.

Without negatives every candidate of a query is relevant and NDCG is trivially high; with
them, a ranker has to find the user's next items among items the user did not rate, the
sampled-candidates protocol of He et al. (2017, "Neural Collaborative Filtering", 100 random
negatives per test item) and of most LambdaMART-on-MovieLens set-ups. Sampled metrics are
not full-catalogue metrics (Krichene & Rendle 2020, "On Sampled Metrics for Item
Recommendation"); what is measured is recorded in the dataset's ``meta``.

- A negative is an item the user never rated anywhere in the data (history, any target window,
  unused), drawn without replacement within the query: ``"uniform"`` over the catalogue, or
  ``"popularity"`` with weight = (history ratings of the item) + 1. Draws that hit a rated or
  already drawn item are rejected. A user with fewer unrated items than asked gets all of them.
  (A popularity draw that keeps being rejected -- a user who rated almost all the weight --
  falls back to uniform over the remaining items after ``100 * (wanted + 10)`` tries.)
- The rows of each query (targets and negatives) are shuffled, so that a learner or metric that
  breaks score ties by input order gains nothing from where the relevant rows are.
- Draws come from seeded streams, one per block of 256 queries (so the result does not depend
  on the number of threads), in one compiled parallel pass over the queries (no Python loop
  per query).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from numpy.typing import NDArray

from bench.adapters.table import RatingsTable


@dataclass(frozen=True, eq=False)
class Candidates:
    """Candidate rows of one partition, grouped by query (user), users in increasing code.

    ``rating`` is the target's rating, NaN for a sampled negative.
    """

    user: NDArray[np.int32]
    item: NDArray[np.int32]
    rating: NDArray[np.float64]
    offsets: NDArray[np.int64]

    @property
    def is_target(self) -> NDArray[np.bool_]:
        return ~np.isnan(self.rating)

    @property
    def n_rows(self) -> int:
        return int(self.item.shape[0])

    @property
    def n_queries(self) -> int:
        return int(self.offsets.shape[0] - 1)

    def block(self, q0: int, q1: int) -> Candidates:
        """Queries ``q0:q1`` (views of the row arrays, offsets from 0)."""
        a, b = int(self.offsets[q0]), int(self.offsets[q1])
        return Candidates(user=self.user[a:b], item=self.item[a:b], rating=self.rating[a:b],
                          offsets=self.offsets[q0: q1 + 1] - a)


def sample_candidates(
    table: RatingsTable,
    role: NDArray[np.int8],
    partition: int,
    *,
    negatives: int,
    sampling: str,
    item_weight: NDArray[np.float64] | None,
    seed: int,
    first_block: int = 0,
) -> Candidates:
    """Targets of ``partition`` (role code) plus ``negatives`` sampled items per query.

    ``item_weight`` (per item code) is required for ``sampling="popularity"``. ``first_block``:
    the number of the first block of 256 queries (its stream), when ``table`` holds the users
    of the whole table's queries ``256 * first_block ..`` (the out-of-core adapter); the draws
    are then the whole table's.
    """
    rows = np.flatnonzero(role == partition)
    u = table.user[rows]
    if rows.size:
        starts = np.flatnonzero(np.r_[True, u[1:] != u[:-1]])
    else:
        starts = np.zeros(0, dtype=np.int64)
    q_users = u[starts]
    tgt_ptr = np.r_[starts, rows.shape[0]].astype(np.int64)
    n_rated = np.diff(table.indptr)[q_users]
    n_neg = np.minimum(negatives, table.n_items - n_rated)
    sizes = np.diff(tgt_ptr) + n_neg
    offsets = np.zeros(q_users.shape[0] + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    if sampling == "popularity":
        if item_weight is None:
            raise ValueError("popularity sampling needs item weights")
        cum = np.cumsum(np.asarray(item_weight, dtype=np.float64))
    else:
        cum = np.zeros(0, dtype=np.float64)
    item = np.empty(int(offsets[-1]), dtype=np.int32)
    rating = np.empty(int(offsets[-1]), dtype=np.float64)
    _draw(q_users, tgt_ptr, rows, table.indptr, table.item, table.rating, table.n_items, offsets,
          cum, _stream_seed(seed, partition), int(first_block), item, rating)
    return Candidates(user=np.repeat(q_users, sizes), item=item, rating=rating, offsets=offsets)


def _stream_seed(seed: int, partition: int) -> int:
    return int((int(seed) * 1_000_003 + 7919 * int(partition)) % (2**31))


QUERY_BLOCK = 256  # queries per parallel task; each task seeds its own stream


@numba.njit(parallel=True, cache=True)
def _draw(q_users: np.ndarray, tgt_ptr: np.ndarray, tgt_rows: np.ndarray, rated_ptr: np.ndarray,
          rated_items: np.ndarray, rated_values: np.ndarray, n_items: int, offsets: np.ndarray,
          cum: np.ndarray, seed: int, first_block: int, item: np.ndarray,
          rating: np.ndarray) -> None:  # pragma: no cover
    n_q = q_users.shape[0]
    weighted = cum.shape[0] > 0
    total = cum[-1] if weighted else 0.0
    n_blocks = (n_q + QUERY_BLOCK - 1) // QUERY_BLOCK
    for blk in numba.prange(n_blocks):
        # One stream per block of queries: the result does not depend on the thread count.
        # (Numba's per-thread legacy generator is the one a compiled parallel task can seed.)
        np.random.seed((seed + 104_729 * (first_block + blk)) % 2147483647)  # noqa: NPY002
        stamp = np.full(n_items, -1, dtype=np.int32)
        for q in range(blk * QUERY_BLOCK, min(n_q, (blk + 1) * QUERY_BLOCK)):
            u = q_users[q]
            mark = q - blk * QUERY_BLOCK
            for k in range(rated_ptr[u], rated_ptr[u + 1]):
                stamp[rated_items[k]] = mark
            a = offsets[q]
            for k in range(tgt_ptr[q], tgt_ptr[q + 1]):
                r = tgt_rows[k]
                item[a] = rated_items[r]
                rating[a] = rated_values[r]
                a += 1
            need = offsets[q + 1] - a
            free = n_items - (rated_ptr[u + 1] - rated_ptr[u])
            it: int | np.intp  # an item code (annotation only: no bytecode)
            if need > 0 and need == free:  # every unrated item
                for it in range(n_items):
                    if stamp[it] != mark:
                        item[a] = it
                        rating[a] = np.nan
                        a += 1
            else:
                tries = 0
                limit = 100 * (need + 10)
                while need > 0:
                    if weighted and tries < limit:
                        it = np.searchsorted(cum, np.random.random() * total,  # noqa: NPY002
                                             side="right")
                        if it >= n_items:
                            it = n_items - 1
                    else:
                        it = np.random.randint(0, n_items)  # noqa: NPY002
                    tries += 1
                    if stamp[it] != mark:
                        stamp[it] = mark
                        item[a] = it
                        rating[a] = np.nan
                        a += 1
                        need -= 1
            lo = offsets[q]
            for j in range(offsets[q + 1] - lo - 1, 0, -1):  # Fisher-Yates shuffle of the query
                k = np.random.randint(0, j + 1)  # noqa: NPY002
                ti = item[lo + j]
                item[lo + j] = item[lo + k]
                item[lo + k] = ti
                tr = rating[lo + j]
                rating[lo + j] = rating[lo + k]
                rating[lo + k] = tr
