"""Leakage-free partitions of the ratings: history -> train targets -> validation -> test.

Every rating gets exactly one role: ``HISTORY`` (0; features are computed from these and
nothing else), ``TRAIN`` (1), ``VALI`` (2), ``TEST`` (3) targets, or ``UNUSED`` (-1). A query is
one (user, partition) pair; a user's targets of one partition are all in that query, so a query
is never split across partitions.

The history rule: **one history for all three partitions** -- the ratings that are in no target
window. Features of train, validation and test queries are therefore the same function of the
same data, the model is applied at test time to exactly the feature distribution it was trained
on, and one SVD / similarity model serves all partitions (three times cheaper than a rolling
history). The price: test-time features do not see the user's train/validation-window ratings
(a rolling history would; it is not implemented).

Rules (``n_u`` = the user's ratings, ``s`` = ``AdapterConfig.window_size(n_u)``):

- ``temporal``: in time order (ties by item id) the user's last ``s`` ratings are test targets,
  the ``s`` before them validation, the ``s`` before those train targets, the rest history. Users
  with ``n_u - 3 s < min_history`` keep everything in history and have no query. This is
  leave-last-out per user: another user's history may be later in absolute time than this
  user's test window (use ``time-cut`` for a split that is consistent in global time).
- ``time-cut``: global cuts ``c1 < c2 < c3``: history ``t < c1``; train targets ``[c1, c2)``,
  validation ``[c2, c3)``, test ``t >= c3``. Targets of users with fewer than ``min_history``
  history ratings are unused.
- ``random``: per user, ``s`` uniformly random ratings are test, ``s`` others validation, ``s``
  others train targets (``ceil(test_size * n_u)`` with a fractional ``target_size``, as the
  implicit-ALS MovieLens tutorials do), the rest history; eligibility as in ``temporal``.
- ``kfold``: users are dealt into ``n_folds`` folds by a seeded permutation; fold ``fold`` is
  test, the next fold validation, the rest train. Each eligible user's last ``s`` ratings are
  the targets of the user's partition, the rest history (``n_u - s >= min_history``).

Ties in time are ordered by item id (:mod:`bench.adapters.table`); where that order, not time,
put a window's edge (a user's ratings of one second on both sides of it), the split's ``meta``
counts it (``tied_window_edges``: users and edges; ``temporal`` and ``kfold``).

Time-dependent features (recency, item age) are measured at one reference time: ``c1`` for
``time-cut``, else the latest history timestamp. Tags count as history when written before the
author's first target rating (before ``c1`` for ``time-cut``, whether or not the author rated
anything; any time for ``random``) and not on one of the author's target items.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numba
import numpy as np
from numpy.typing import NDArray

from bench.adapters.config import AdapterConfig
from bench.adapters.table import RatingsTable, group_min, segment_ranks
from bench.errors import DataError

HISTORY, TRAIN, VALI, TEST, UNUSED = 0, 1, 2, 3, -1
#: Partition name -> role code.
PARTITIONS: dict[str, int] = {"train": TRAIN, "vali": VALI, "test": TEST}
NO_CUT = np.iinfo(np.int64).max


@dataclass(frozen=True, eq=False)
class Split:
    """Role of every rating of a :class:`RatingsTable` (same order), and the cut times.

    ``tag_cut[u]``: tags by user code ``u`` at or after this time are not history;
    ``other_tag_cut``: the same for authors without ratings (:func:`other_authors_cut`).
    """

    role: NDArray[np.int8]
    tag_cut: NDArray[np.int64]
    reference_time: int
    meta: dict[str, object] = field(default_factory=dict)
    other_tag_cut: int = NO_CUT


def other_authors_cut(config: AdapterConfig) -> int:
    """The tag cut of an author who has no rating: ``c1`` for ``time-cut`` (the cut is one
    time for everybody: a tag written in the test period is no history, whoever wrote it),
    else none (the per-user splits have no time of their own for such an author)."""
    if config.split == "time-cut" and config.time_cuts is not None:
        return int(config.time_cuts[0])
    return NO_CUT


def split_ratings(table: RatingsTable, config: AdapterConfig, *, rows_before: int = 0,
                  users_before: int = 0, users_total: int | None = None) -> Split:
    """Assign a role to every rating by ``config.split`` (see the module docstring).

    ``table`` may be a slice of the whole table: the users ``users_before ..`` of
    ``users_total``, whose ratings start at row ``rows_before`` of the whole table (the
    out-of-core adapter, :mod:`bench.adapters.distributed`). The random choices are then those of
    the whole table (``random``: the same uniform stream, advanced ``rows_before`` draws;
    ``kfold``: the same permutation of all users), so the slices' roles are the whole table's.
    The reference time (and ``meta``) are the slice's own; the caller combines them.
    """
    if table.n == 0:
        raise DataError("no ratings to split")
    rule = config.split
    if rule == "time-cut":
        role, tag_cut, cuts = _time_cut(table, config)
        meta: dict[str, object] = {"time_cuts": [int(c) for c in cuts]}
        reference = int(cuts[0])
    else:
        sizes = _window_sizes(np.diff(table.indptr), config)
        if rule == "temporal":
            role = _temporal(table, sizes, config.min_history)
        elif rule == "random":
            role = _random(table, sizes, config.min_history, config.seed, rows_before)
        else:
            role = _kfold(table, sizes, config, users_before,
                          table.n_users if users_total is None else users_total)
        tag_cut = _first_target_time(table, role) if rule != "random" else np.full(
            table.n_users, NO_CUT, dtype=np.int64)
        hist = role == HISTORY
        reference = int(table.timestamp[hist].max()) if hist.any() else int(table.timestamp.max())
        meta = {}
    counts = np.bincount(role.astype(np.int64) + 1, minlength=5)
    users, edges = tied_window_edges(table, role, rule)
    meta.update({
        "split": rule,
        "tied_window_edges": {"users": users, "edges": edges},
        "history_rule": "one history: the ratings in no target window (see bench.adapters.splits)",
        "reference_time": reference,
        "ratings_by_role": {"unused": int(counts[0]), "history": int(counts[1]),
                            "train": int(counts[2]), "vali": int(counts[3]),
                            "test": int(counts[4])},
    })
    other = int(reference) if rule == "time-cut" else NO_CUT  # c1: other_authors_cut
    return Split(role=role, tag_cut=tag_cut, reference_time=reference, meta=meta,
                 other_tag_cut=other)


def tied_window_edges(table: RatingsTable, role: NDArray[np.int8], rule: str) -> tuple[int, int]:
    """(users, edges): where a per-user window in time (``temporal``, ``kfold``) starts inside a
    second that the rating before it shares, so the order of that second -- by item id, the
    documented rule -- and not time chose which side each rating is on (MovieLens users rate many
    films in one second: 181 of the 610 users of ml-latest-small, under the default split).
    Counted from the roles alone, so the Dask engine's blocks of whole users add up to it."""
    if rule not in ("temporal", "kfold") or table.n < 2:
        return 0, 0
    same = (table.user[1:] == table.user[:-1]) & (table.timestamp[1:] == table.timestamp[:-1])
    at = np.flatnonzero(same & (role[1:] != role[:-1]) & (role[1:] > HISTORY)) + 1
    return int(np.unique(table.user[at]).shape[0]), int(at.shape[0])


def no_queries_message(name: str, config: AdapterConfig, cuts: object,
                       span: tuple[int, int]) -> str:
    """Why partition ``name`` has no queries, for both engines: under ``time-cut`` the window
    and the cuts against the ratings' time ``span`` (first, last timestamp), cuts outside the
    data being the usual cause; else the window sizes."""
    if config.split == "time-cut" and isinstance(cuts, list | tuple) and len(cuts) == 3:
        c1, c2, c3 = (int(c) for c in cuts)
        window = {"train": f"in [{c1}, {c2})", "vali": f"in [{c2}, {c3})",
                  "test": f"at or after {c3}"}[name]
        return (f"the {name} partition has no queries: no user with min_history="
                f"{config.min_history} ratings before c1={c1} rated an item {window} "
                f"(split='time-cut', time_cuts=({c1}, {c2}, {c3}); the ratings' timestamps run "
                f"from {span[0]} to {span[1]}); choose time cuts within that span")
    return (f"the {name} partition has no queries (split={config.split!r}, "
            f"target_size={config.target_size}, min_history={config.min_history}); users need "
            "more ratings, or choose a smaller target_size or min_history")


def _window_sizes(n_u: NDArray[np.int64], config: AdapterConfig) -> NDArray[np.int64]:
    if config.target_size < 1:
        # round() first so that e.g. 0.1 * 20 = 2.0000000000000004 gives 2, not 3.
        return np.ceil(np.round(config.target_size * n_u, 9)).astype(np.int64)
    return np.full(n_u.shape[0], int(config.target_size), dtype=np.int64)


def _user_of_rows(table: RatingsTable) -> NDArray[np.int64]:
    return table.user.astype(np.int64)


def _windows(back: NDArray[np.int64], s: NDArray[np.int64]) -> NDArray[np.int8]:
    role = np.zeros(back.shape[0], dtype=np.int8)
    role[back < 3 * s] = TRAIN
    role[back < 2 * s] = VALI
    role[back < s] = TEST
    return role


def _temporal(table: RatingsTable, sizes: NDArray[np.int64], min_history: int) -> NDArray[np.int8]:
    n_u = np.diff(table.indptr)
    eligible = n_u - 3 * sizes >= min_history
    part = np.zeros(table.n_users, dtype=np.int8)  # 0: the three windows train, vali, test
    return _tail_roles(table.indptr, sizes, eligible, part, table.n)


def _random(table: RatingsTable, sizes: NDArray[np.int64], min_history: int,
            seed: int, rows_before: int) -> NDArray[np.int8]:
    n_u = np.diff(table.indptr)
    eligible = n_u - 3 * sizes >= min_history
    rng = np.random.default_rng([seed, 0x5EED])
    rng.bit_generator.advance(rows_before)  # type: ignore[attr-defined]  # one 64-bit draw per double
    key = rng.random(table.n)
    rank = segment_ranks(table.indptr, key)
    u = _user_of_rows(table)
    role = _windows(rank, sizes[u])
    role[~eligible[u]] = HISTORY
    return role


def _kfold(table: RatingsTable, sizes: NDArray[np.int64], config: AdapterConfig,
           users_before: int, users_total: int) -> NDArray[np.int8]:
    n_u = np.diff(table.indptr)
    eligible = n_u - sizes >= config.min_history
    rng = np.random.default_rng([config.seed, 0xF01D])
    fold = rng.permutation(users_total)[users_before: users_before + table.n_users] % config.n_folds
    part = np.full(table.n_users, TRAIN, dtype=np.int8)
    part[fold == config.fold] = TEST
    part[fold == (config.fold + 1) % config.n_folds] = VALI
    return _tail_roles(table.indptr, sizes, eligible, part, table.n)


@numba.njit(parallel=True, cache=True)
def _tail_roles(indptr: np.ndarray, sizes: np.ndarray, eligible: np.ndarray, part: np.ndarray,
                n: int) -> np.ndarray:  # pragma: no cover - compiled
    """Roles from the end of each user's (time-ordered) ratings: with ``part[u] == 0`` the last
    ``s`` are TEST, the ``s`` before VALI, the ``s`` before those TRAIN; otherwise the last ``s``
    get role ``part[u]``. Everything else, and every rating of a non-eligible user, is HISTORY."""
    role = np.zeros(n, dtype=np.int8)
    for u in numba.prange(indptr.shape[0] - 1):
        if not eligible[u]:
            continue
        b = indptr[u + 1]
        s = sizes[u]
        windows = 3 if part[u] == 0 else 1
        for p in range(max(indptr[u], b - windows * s), b):
            back = b - 1 - p
            if part[u] != 0:
                role[p] = part[u]
            elif back < s:
                role[p] = 3
            elif back < 2 * s:
                role[p] = 2
            else:
                role[p] = 1
    return role


def _time_cut(table: RatingsTable, config: AdapterConfig
              ) -> tuple[NDArray[np.int8], NDArray[np.int64], tuple[int, int, int]]:
    if config.time_cuts is not None:
        cuts = tuple(int(c) for c in config.time_cuts)
    else:
        q = np.quantile(table.timestamp, config.time_cut_quantiles, method="higher")
        cuts = tuple(int(c) for c in q)
        if not cuts[0] < cuts[1] < cuts[2]:
            raise DataError(
                f"time-cut quantiles {config.time_cut_quantiles} give cuts {cuts} that are not "
                "increasing (too many equal timestamps); give time_cuts explicitly"
            )
    t = table.timestamp
    role = np.zeros(table.n, dtype=np.int8)
    role[t >= cuts[0]] = TRAIN
    role[t >= cuts[1]] = VALI
    role[t >= cuts[2]] = TEST
    u = _user_of_rows(table)
    n_hist = np.bincount(u[role == HISTORY], minlength=table.n_users)
    role[(role != HISTORY) & (n_hist[u] < config.min_history)] = UNUSED
    tag_cut = np.full(table.n_users, cuts[0], dtype=np.int64)
    return role, tag_cut, cuts  # type: ignore[return-value]


def _first_target_time(table: RatingsTable, role: NDArray[np.int8]) -> NDArray[np.int64]:
    tgt = role > HISTORY
    return group_min(table.user[tgt], table.timestamp[tgt], table.n_users, NO_CUT)
