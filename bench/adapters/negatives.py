"""Candidate lists: per query, the user's target items plus sampled never-rated items.

Without negatives every candidate of a query is relevant and NDCG is trivially high; with
them, a ranker has to find the user's next items among items the user did not rate, the
sampled-candidates protocol of He et al. (2017, "Neural Collaborative Filtering", 100 random
negatives per test item) and of most LambdaMART-on-MovieLens set-ups. Sampled metrics are
not full-catalogue metrics (Krichene & Rendle 2020, "On Sampled Metrics for Item
Recommendation"); what is measured is recorded in the dataset's ``meta``.

- A negative is an item the user never rated anywhere in the data (history, any target window,
  unused), drawn without replacement: ``"uniform"`` over the catalogue, or ``"popularity"``
  with weight = (history ratings of the item) + 1. Draws that hit a rated or already drawn item
  are rejected. (A popularity draw that keeps being rejected -- a user who rated almost all
  the weight -- falls back to uniform over the remaining items after ``100 * (pool + 10)``
  tries.)
- **One pool per user, dealt out disjointly.** A user who is a query of ``k`` partitions
  (``k`` = 1 to 3: train, vali, test; always 1 under ``kfold``) gets one pool of
  ``min(k * negatives, unrated)`` never-rated items, drawn once from the user's own stream,
  and the pool is dealt to the user's partitions in the order test, vali, train: the first
  items to test, the next to vali, the rest to train. So no (user, item) negative is a
  candidate of two partitions: an unrated item is never seen with label 0 in train and again
  in test, with the same history features. Each partition gets ``negatives`` items when the
  user has at least ``k * negatives`` unrated items; a user with fewer gets all of them, split
  as evenly as possible (``pool // k`` each, one more for the first ``pool % k`` partitions in
  the order test, vali, train). (Before, each partition drew ``min(negatives, unrated)`` on its
  own, and 170 of the 30,500 test negatives of ml-latest-small's default conversion were also
  train negatives of the same user.)
- The rows of each query (targets and negatives) are shuffled, so that a learner or metric that
  breaks score ties by input order gains nothing from where the relevant rows are.
- Every draw comes from streams of the user alone -- one for the pool, one per partition for
  the shuffle, SplitMix64 generators (Steele, Lea & Flood 2014, "Fast splittable pseudorandom
  number generators"; a state is set in one step, where re-seeding NumPy's Mersenne Twister
  per user cost more than the draws) started from ``(seed, user code, purpose)`` -- so the
  result depends on neither the thread count, nor which other users are converted with the
  user (the out-of-core adapter's chunks, :mod:`bench.adapters.distributed`), nor which
  partition is built first. One compiled parallel pass per partition over blocks of 256
  queries (no Python loop per query); each pass re-draws the user's pool up to the end of
  the partition's share.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from numpy.typing import NDArray

from bench.adapters.splits import TEST, TRAIN, VALI
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




#: The order in which a user's pool of negatives is dealt to the partitions (role codes): test
#: first, so that a user short of unrated items keeps the most in the evaluated partition.
DEAL_ORDER: tuple[int, ...] = (TEST, VALI, TRAIN)

QUERY_BLOCK = 256  # queries per parallel task (and per shard of the out-of-core adapter)


def sample_candidates(
    table: RatingsTable,
    role: NDArray[np.int8],
    partition: int,
    *,
    negatives: int,
    sampling: str,
    item_weight: NDArray[np.float64] | None,
    seed: int,
) -> Candidates:
    """Targets of ``partition`` (role code) plus the user's share of its negatives per query.

    ``role`` must hold the roles of *all* the ratings of each user of ``table`` (the other
    partitions' targets decide the user's pool and share: :func:`negative_shares`).
    ``item_weight`` (per item code) is required for ``sampling="popularity"``. ``table`` may
    hold only some users (the out-of-core adapter's chunks, with the whole table's user and
    item codes): the draws of a user are the same whichever users come with it.
    """
    if partition not in DEAL_ORDER:
        raise ValueError(f"partition must be a target role code {DEAL_ORDER}; got {partition}")
    rows = np.flatnonzero(role == partition)
    u = table.user[rows]
    if rows.size:
        starts = np.flatnonzero(np.r_[True, u[1:] != u[:-1]])
    else:
        starts = np.zeros(0, dtype=np.int64)
    q_users = u[starts]
    tgt_ptr = np.r_[starts, rows.shape[0]].astype(np.int64)
    pool, share, skip = negative_shares(table, role, partition, q_users, negatives)
    sizes = np.diff(tgt_ptr) + share
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
          pool, skip, cum, stream_seeds(seed, q_users, 0), stream_seeds(seed, q_users, partition),
          item, rating)
    return Candidates(user=np.repeat(q_users, sizes), item=item, rating=rating, offsets=offsets)


def negative_shares(table: RatingsTable, role: NDArray[np.int8], partition: int,
                    q_users: NDArray[np.int32], negatives: int
                    ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """Per user of ``q_users`` (queries of ``partition``): the size of the user's pool, the
    user's negatives in ``partition`` and the pool items dealt before them (module docstring).

    A user who is a query of ``k`` partitions has a pool of ``min(k * negatives, unrated)``
    items; each partition gets ``pool // k``, and the first ``pool % k`` of the user's
    partitions in :data:`DEAL_ORDER` one more.
    """
    n_rated = np.diff(table.indptr)[q_users]
    free = table.n_items - n_rated
    member = np.zeros((len(DEAL_ORDER), q_users.shape[0]), dtype=bool)
    for j, code in enumerate(DEAL_ORDER):
        if code == partition:
            member[j] = True
        else:
            has = np.zeros(table.n_users, dtype=bool)
            has[table.user[role == code]] = True
            member[j] = has[q_users]
    k = member.sum(axis=0).astype(np.int64)
    pool = np.minimum(k * int(negatives), free).astype(np.int64)
    base, extra = np.divmod(pool, np.maximum(k, 1))
    rank = np.cumsum(member, axis=0) - 1  # the partition's place among the user's, in deal order
    shares = np.where(member, base + (rank < extra), 0).astype(np.int64)
    j = DEAL_ORDER.index(partition)
    return pool, shares[j], shares[:j].sum(axis=0).astype(np.int64)


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S11, _S27, _S30, _S31 = np.uint64(11), np.uint64(27), np.uint64(30), np.uint64(31)
_UNIT = 1.0 / 9007199254740992.0  # 2**-53


def stream_seeds(seed: int, users: NDArray[np.integer], purpose: int) -> NDArray[np.uint64]:
    """The starting state of a stream per user: SplitMix64's finaliser of the injective 64-bit
    key ``seed << 33 | user << 2 | purpose`` (``seed``, ``user`` < 2**31; ``purpose`` 0: the
    pool, 1-3: the partition's shuffle)."""
    z = ((np.uint64(seed) << np.uint64(33)) | (users.astype(np.uint64) << np.uint64(2))
         | np.uint64(purpose))
    z = z + _GOLDEN
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    out: NDArray[np.uint64] = z ^ (z >> _S31)
    return out


@numba.njit(cache=True, inline="always")
def _uniform(state: np.ndarray) -> float:  # pragma: no cover - compiled
    """The next double in [0, 1) of the SplitMix64 stream ``state`` (a one-element uint64
    array; Steele, Lea & Flood 2014, "Fast splittable pseudorandom number generators": the
    state advances by the golden gamma, the output is its finaliser; 53 high bits)."""
    state[0] += _GOLDEN
    z = state[0]
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    z = z ^ (z >> _S31)
    return float(z >> _S11) * _UNIT


@numba.njit(cache=True, inline="always")
def _below(state: np.ndarray, n: int) -> int:  # pragma: no cover - compiled
    """A uniform integer in ``[0, n)`` from ``state`` (``n < 2**31``: the bias of scaling a
    53-bit double is below 2**-22)."""
    k = int(_uniform(state) * n)
    return k if k < n else n - 1


@numba.njit(parallel=True, cache=True)
def _draw(q_users: np.ndarray, tgt_ptr: np.ndarray, tgt_rows: np.ndarray, rated_ptr: np.ndarray,
          rated_items: np.ndarray, rated_values: np.ndarray, n_items: int, offsets: np.ndarray,
          pool: np.ndarray, skip: np.ndarray, cum: np.ndarray, pool_seed: np.ndarray,
          shuffle_seed: np.ndarray, item: np.ndarray,
          rating: np.ndarray) -> None:  # pragma: no cover
    n_q = q_users.shape[0]
    n_blocks = (n_q + QUERY_BLOCK - 1) // QUERY_BLOCK
    for blk in numba.prange(n_blocks):
        stamp = np.full(n_items, -1, dtype=np.int32)
        spare = np.empty(n_items, dtype=np.int32)
        state = np.empty(1, dtype=np.uint64)
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
            if offsets[q + 1] > a:
                # the user's pool, from the user's own stream, up to the end of this share
                state[0] = pool_seed[q]
                free = n_items - (rated_ptr[u + 1] - rated_ptr[u])
                _pool(stamp, mark, spare, n_items, free, pool[q], skip[q],
                      offsets[q + 1] - a, cum, state, item, rating, a)
            state[0] = shuffle_seed[q]
            lo = offsets[q]
            for j in range(offsets[q + 1] - lo - 1, 0, -1):  # Fisher-Yates shuffle of the query
                k = _below(state, j + 1)
                ti = item[lo + j]
                item[lo + j] = item[lo + k]
                item[lo + k] = ti
                tr = rating[lo + j]
                rating[lo + j] = rating[lo + k]
                rating[lo + k] = tr


@numba.njit(cache=True)
def _pool(stamp: np.ndarray, mark: int, spare: np.ndarray, n_items: int, free: int, size: int,
          skip: int, share: int, cum: np.ndarray, state: np.ndarray, item: np.ndarray,
          rating: np.ndarray, a: int) -> None:  # pragma: no cover
    """Items ``skip .. skip + share - 1`` of the user's pool of ``size`` (from the stream
    ``state``) into ``item[a:]``. Every choice depends on ``size``, never on ``skip`` or
    ``share``, so each partition's replay draws the same pool."""
    end = skip + share
    it: int | np.intp  # an item code (annotation only: no bytecode)
    if size == free:  # every unrated item, in a random order (partial Fisher-Yates)
        n = 0
        for it in range(n_items):
            if stamp[it] != mark:
                spare[n] = it
                n += 1
        for i in range(end):
            k = i + _below(state, n - i)
            t = spare[i]
            spare[i] = spare[k]
            spare[k] = t
            if i >= skip:
                item[a] = spare[i]
                rating[a] = np.nan
                a += 1
        return
    weighted = cum.shape[0] > 0
    total = cum[-1] if weighted else 0.0
    limit = 100 * (size + 10)
    tries = 0
    drawn = 0
    while drawn < end:
        if weighted and tries < limit:
            it = np.searchsorted(cum, _uniform(state) * total, side="right")
            if it >= n_items:
                it = n_items - 1
        else:
            it = _below(state, n_items)
        tries += 1
        if stamp[it] != mark:
            stamp[it] = mark
            if drawn >= skip:
                item[a] = it
                rating[a] = np.nan
                a += 1
            drawn += 1
