"""Tag counts from history tags (MovieLens ``tags.csv``: user, item, tag, timestamp).

A tag application ``(v, i, t)`` is history when it was written before its author's cut
(``Split.tag_cut[v]``: the author's first target rating; ``c1`` for ``time-cut``; no cut for
``random``) and ``(v, i)`` is not one of the author's target pairs. Authors without ratings
have the cut ``Split.other_tag_cut``: ``c1`` for ``time-cut`` (a tag of the test period is
no history, whoever wrote it), none for the per-user splits. Then:

- ``tag_item_count``: history tag applications on the candidate item (by anyone);
- ``tag_user_count``: history tag applications by the query's user.

Tags on items that have no rating are ignored (no candidate can be such an item).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from bench.adapters.features import Columns, FeatureGroup
from bench.adapters.negatives import Candidates
from bench.adapters.splits import HISTORY, NO_CUT, Split
from bench.adapters.table import RatingsTable
from bench.errors import DataError


def history_tags(tags: pd.DataFrame, table: RatingsTable,
                 split: Split) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(user code or -1, item code) of every history tag application."""
    tu = pd.to_numeric(tags["user"], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    ti = pd.to_numeric(tags["item"], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    if "timestamp" not in tags.columns and (split.other_tag_cut < NO_CUT
                                            or bool((split.tag_cut < NO_CUT).any())):
        raise DataError("the tags table has no 'timestamp' column: under a split in time a tag "
                        "is history only when written before its author's cut (c1, or the "
                        "first target rating), which a tag without a time cannot show; add the "
                        "column, or use split='random'", column="timestamp")
    if "timestamp" in tags.columns:
        tt = pd.to_numeric(tags["timestamp"], errors="coerce").to_numpy(dtype=np.float64,
                                                                         na_value=np.nan)
    else:
        tt = np.zeros(tu.shape[0])
    ok = np.isfinite(tu) & np.isfinite(ti) & np.isfinite(tt)
    ucode = pd.Index(table.user_ids).get_indexer(tu[ok].astype(np.int64)).astype(np.int64)
    icode = pd.Index(table.item_ids).get_indexer(ti[ok].astype(np.int64)).astype(np.int64)
    tt = tt[ok]
    known_item = icode >= 0
    ucode, icode, tt = ucode[known_item], icode[known_item], tt[known_item]
    cut = np.full(ucode.shape[0], float(split.other_tag_cut))
    author = ucode >= 0  # (a table of no users, the out-of-core path's, has an empty tag_cut)
    cut[author] = split.tag_cut[ucode[author]]
    keep = tt < cut
    tgt = split.role > HISTORY
    target_keys = np.sort(table.user[tgt].astype(np.int64) * table.n_items
                          + table.item[tgt].astype(np.int64))
    keys = np.where(ucode >= 0, ucode * table.n_items + icode, -1)
    if target_keys.size:
        pos = np.minimum(np.searchsorted(target_keys, keys), target_keys.size - 1)
        keep &= target_keys[pos] != keys
    return ucode[keep], icode[keep]


def tags_group(tag_user: NDArray[np.int64], tag_item: NDArray[np.int64], n_users: int,
               n_items: int) -> FeatureGroup:
    """``tag_item_count`` and ``tag_user_count`` from the history tag applications."""
    per_item = np.bincount(tag_item, minlength=n_items).astype(np.float64)
    per_user = np.bincount(tag_user[tag_user >= 0], minlength=n_users).astype(np.float64)

    def transform(c: Candidates) -> Columns:
        return [per_item[c.item], per_user[c.user]]

    return FeatureGroup("tags", ("tag_item_count", "tag_user_count"), transform)
