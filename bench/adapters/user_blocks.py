"""The ratings cut into blocks of whole users: the unit of work of the out-of-core adapter.

A :class:`UserBlock` holds users ``u0 .. u1 - 1`` (codes of the whole table) with every rating
they made, ordered as the whole :class:`~bench.adapters.table.RatingsTable` orders them, and
each rating's role under the split. Everything the single-process adapter computes per user
(the split, the user's history, features of the user's candidates) is computed from the
user's block alone and equals the whole table's value; what needs all users (item statistics,
the mean rating, the SVDs, the reference time) is accumulated over the blocks in user order
(:mod:`bench.adapters.distributed`), so that it too is the same arithmetic in the same order.

Pure NumPy: the Dask side lives in :mod:`bench.adapters.distributed`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from bench.adapters.config import AdapterConfig
from bench.adapters.history import History, HistoryTotals, history_of
from bench.adapters.labels import check_ratings
from bench.adapters.splits import HISTORY, NO_CUT, PARTITIONS, Split, split_ratings
from bench.adapters.table import RatingsTable, table_from_codes
from bench.data.checks import check_ratings_pairs
from bench.errors import DataError


@dataclass(frozen=True, eq=False)
class UserBlock:
    """Users ``u0 .. u0 + table.n_users - 1`` of the whole table and all their ratings.

    ``table`` uses local user codes (``u - u0``) and the whole table's item codes; ``role`` and
    ``tag_cut`` are the split's, for these rows and users.
    """

    u0: int
    table: RatingsTable
    role: NDArray[np.int8]
    tag_cut: NDArray[np.int64]

    @property
    def u1(self) -> int:
        return self.u0 + self.table.n_users

    def history(self) -> History:
        """The block's history ratings (local user codes; item statistics of the block only)."""
        return history_of(self.table, self.split(0))

    def split(self, reference_time: int) -> Split:
        return Split(role=self.role, tag_cut=self.tag_cut, reference_time=reference_time)

    def query_users(self) -> NDArray[np.int8]:
        """Per user of the block, a bit per partition (1 train, 2 vali, 4 test): the user has
        targets there, so is a query of it."""
        out = np.zeros(self.table.n_users, dtype=np.int8)
        for bit, code in enumerate(PARTITIONS.values()):
            has = np.bincount(self.table.user[self.role == code], minlength=self.table.n_users)
            out |= ((has > 0).astype(np.int8) << bit).astype(np.int8)
        return out

    def times(self) -> tuple[int | None, int]:
        """(latest history timestamp or ``None``, latest timestamp) of the block."""
        ts = self.table.timestamp
        hist = self.role == HISTORY
        return (int(ts[hist].max()) if hist.any() else None), int(ts.max())

    def role_counts(self) -> NDArray[np.int64]:
        """Ratings by role: unused, history, train, vali, test."""
        return np.bincount(self.role.astype(np.int64) + 1, minlength=5)


def prepare_block(frame: pd.DataFrame, u0: int, user_ids: NDArray[np.int64],
                  item_ids: NDArray[np.int64], config: AdapterConfig, *, rows_before: int,
                  users_total: int, source: str = "") -> UserBlock:
    """The block of users ``u0 .. u0 + len(user_ids) - 1`` from their ratings ``frame``
    (columns ``user``, ``item``, ``rating``, ``timestamp``, any row order), split by
    ``config`` as the whole table would be: the block's ratings start at row ``rows_before`` of
    the whole table, which has ``users_total`` users (:func:`bench.adapters.splits.split_ratings`).
    """
    where = source or None
    users = frame["user"].to_numpy()
    items = frame["item"].to_numpy()
    ucode = np.searchsorted(user_ids, users)
    if ((ucode >= user_ids.shape[0]) | (user_ids[np.minimum(ucode, user_ids.shape[0] - 1)]
                                        != users)).any():
        raise DataError(f"a rating of a user outside users {u0}.. reached this block; the "
                        "ratings changed while they were being read", path=where)
    icode = np.searchsorted(item_ids, items)
    check_ratings_pairs(users, items, path=where, row_base=None)  # a block's rows are shuffled
    rating = frame["rating"].to_numpy(dtype=np.float64)
    check_ratings(rating, config.labels, source=source, binary_threshold=config.binary_threshold)
    table = table_from_codes(ucode.astype(np.int32), icode.astype(np.int32), rating,
                             frame["timestamp"].to_numpy(dtype=np.int64), user_ids, item_ids)
    split = split_ratings(table, config, rows_before=rows_before, users_before=u0,
                          users_total=users_total)
    return UserBlock(u0=u0, table=table, role=split.role, tag_cut=split.tag_cut)


def chunk_table(blocks: Sequence[UserBlock], a: int, b: int, user_ids: NDArray[np.int64]
                ) -> tuple[RatingsTable, NDArray[np.int8]]:
    """Users ``a .. b - 1`` (from the consecutive ``blocks`` that hold them) as a table in the
    whole table's user codes, with their roles: ``indptr`` spans all ``len(user_ids)`` users
    (the others have no rows), so per-user arrays of the whole table index it directly."""
    n_users = user_ids.shape[0]
    cols: dict[str, list[np.ndarray]] = {"item": [], "rating": [], "timestamp": [], "role": [],
                                         "counts": []}
    for blk in blocks:
        la, lb = max(a, blk.u0) - blk.u0, min(b, blk.u1) - blk.u0
        if la >= lb:
            continue
        t = blk.table
        r0, r1 = int(t.indptr[la]), int(t.indptr[lb])
        cols["item"].append(t.item[r0:r1])
        cols["rating"].append(t.rating[r0:r1])
        cols["timestamp"].append(t.timestamp[r0:r1])
        cols["role"].append(blk.role[r0:r1])
        cols["counts"].append(np.diff(t.indptr[la: lb + 1]))
    joined = {k: np.concatenate(v) for k, v in cols.items()}
    counts = joined["counts"]
    if counts.shape[0] != b - a:
        raise DataError(f"users {a}..{b - 1}: the blocks given hold {counts.shape[0]} of them")
    indptr = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[a + 1: b + 1])
    indptr[b + 1:] = indptr[b]
    table = RatingsTable(
        user=np.repeat(np.arange(a, b, dtype=np.int32), counts),
        item=joined["item"], rating=joined["rating"], timestamp=joined["timestamp"],
        indptr=indptr, user_ids=user_ids, item_ids=blocks[0].table.item_ids)
    return table, joined["role"]


def chunk_history(table: RatingsTable, role: NDArray[np.int8], reference_time: int,
                  totals: HistoryTotals) -> History:
    """The history of a :func:`chunk_table`, with the whole history's item side ``totals``."""
    split = Split(role=role, tag_cut=np.full(0, NO_CUT, dtype=np.int64),
                  reference_time=reference_time)
    return replace(history_of(table, split), totals=totals)
