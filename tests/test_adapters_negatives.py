"""Candidate lists: whole target windows, never-rated negatives, determinism, shuffling."""

from __future__ import annotations

import numba
import numpy as np
import pandas as pd
import pytest

from bench.adapters.config import AdapterConfig
from bench.adapters.negatives import Candidates, sample_candidates
from bench.adapters.splits import HISTORY, PARTITIONS, UNUSED, split_ratings
from bench.adapters.table import RatingsTable, build_table


def _frame(seed: int, n_users: int = 30, n_items: int = 80, lo: int = 8, hi: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    parts = []
    for u in range(n_users):
        k = int(rng.integers(lo, min(hi, n_items) + 1))
        parts.append(pd.DataFrame({
            "user": 10 + 3 * u,
            "item": 1000 + rng.choice(n_items, k, replace=False),
            "rating": rng.integers(1, 11, k) / 2.0,
            "timestamp": rng.integers(0, 10**6, k),
        }))
    return pd.concat(parts, ignore_index=True)


def _setup(seed: int = 0, **cfg: object) -> tuple[RatingsTable, np.ndarray, AdapterConfig]:
    config = AdapterConfig(**cfg)  # type: ignore[arg-type]
    table = build_table(_frame(seed))
    return table, split_ratings(table, config).role, config


def _sample(table: RatingsTable, role: np.ndarray, part: int, *, negatives: int = 20,
            sampling: str = "uniform", weight: np.ndarray | None = None,
            seed: int = 0) -> Candidates:
    return sample_candidates(table, role, part, negatives=negatives, sampling=sampling,
                             item_weight=weight, seed=seed)


def _share(table: RatingsTable, role: np.ndarray, u: int, part: int, negatives: int) -> int:
    """The user's negatives in ``part`` by the documented rule (bench.adapters.negatives): a
    pool of min(k * negatives, unrated) for a user of k partitions, dealt evenly, the first
    pool % k partitions in the order test, vali, train one more."""
    seg = role[table.indptr[u]:table.indptr[u + 1]]
    mine = [p for p in (3, 2, 1) if (seg == p).any()]
    pool = min(len(mine) * negatives, table.n_items - seg.size)
    return pool // len(mine) + (mine.index(part) < pool % len(mine))


@pytest.mark.parametrize("split", ["temporal", "random", "kfold", "time-cut"])
def test_each_query_holds_its_users_whole_target_window_plus_unrated_negatives(split: str) -> None:
    window = {} if split == "time-cut" else {"target_size": 3}  # time-cut: the cuts are windows
    table, role, _ = _setup(split=split, min_history=2, **window)
    rated = {u: set(table.item[table.indptr[u]:table.indptr[u + 1]].tolist())
             for u in range(table.n_users)}
    value = {(int(u), int(i)): r for u, i, r in zip(table.user, table.item, table.rating,
                                                   strict=True)}
    for part in PARTITIONS.values():
        c = _sample(table, role, part)
        qusers = c.user[c.offsets[:-1]]
        assert np.all(np.diff(qusers) > 0)  # one query per user, users in order
        for q, u in enumerate(qusers.tolist()):
            rows = slice(c.offsets[q], c.offsets[q + 1])
            items, is_target = c.item[rows], c.is_target[rows]
            assert np.all(c.user[rows] == u)
            targets = set(items[is_target].tolist())
            window = table.item[table.indptr[u]:table.indptr[u + 1]][
                role[table.indptr[u]:table.indptr[u + 1]] == part]
            assert targets == set(window.tolist())
            assert is_target.sum() == window.size
            neg = items[~is_target]
            assert not set(neg.tolist()) & rated[u]  # never rated anywhere, any role
            assert len(set(neg.tolist())) == neg.size  # no repeats
            assert neg.size == _share(table, role, u, part, 20)
            assert [value[(u, int(i))] for i in items[is_target]] == c.rating[rows][
                is_target].tolist()
        # every user with targets in this partition has a query
        users_with_targets = np.unique(table.user[role == part])
        assert np.array_equal(np.sort(qusers), users_with_targets)


def test_queries_never_overlap_across_partitions_for_kfold() -> None:
    table, role, _ = _setup(split="kfold", target_size=2, min_history=2)
    users = [set(_sample(table, role, p).user.tolist()) for p in PARTITIONS.values()]
    assert not users[0] & users[1]
    assert not users[0] & users[2]
    assert not users[1] & users[2]


def test_sampling_is_deterministic_by_seed_and_thread_count() -> None:
    table, role, _ = _setup(target_size=2, min_history=2)
    a = _sample(table, role, 3, seed=4)
    b = _sample(table, role, 3, seed=4)
    assert np.array_equal(a.item, b.item)
    assert not np.array_equal(a.item, _sample(table, role, 3, seed=5).item)
    n = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        c = _sample(table, role, 3, seed=4)
    finally:
        numba.set_num_threads(n)
    assert np.array_equal(a.item, c.item)


def test_rows_of_a_query_are_shuffled_not_targets_first() -> None:
    table, role, _ = _setup(target_size=5, min_history=2)
    c = _sample(table, role, 1)
    first_is_target = c.is_target[c.offsets[:-1]].mean()
    assert 0.0 < first_is_target < 0.6  # 5 targets among 25 rows: about 0.2


def test_a_user_with_too_few_unrated_items_gets_all_of_them_over_the_partitions() -> None:
    table, role, _ = _setup(target_size=2, min_history=2)
    got: dict[int, list[int]] = {}
    for part in PARTITIONS.values():
        c = _sample(table, role, part, negatives=10_000)
        for q in range(c.n_queries):
            u = int(c.user[c.offsets[q]])
            seg = slice(c.offsets[q], c.offsets[q + 1])
            got.setdefault(u, []).extend(c.item[seg][~c.is_target[seg]].tolist())
    assert got
    for u, neg in got.items():
        rated = set(table.item[table.indptr[u]:table.indptr[u + 1]].tolist())
        assert sorted(neg) == sorted(set(range(table.n_items)) - rated)  # each once


def test_popularity_sampling_follows_the_weights() -> None:
    table, role, _ = _setup(target_size=2, min_history=2)
    weight = np.ones(table.n_items)
    heavy = int(np.argmin(np.bincount(table.item, minlength=table.n_items)))  # least rated item
    weight[heavy] = 1000.0
    # the test partition: the pool is dealt test first, so the first draw (the heavy item) is there
    c = _sample(table, role, 3, negatives=3, sampling="popularity", weight=weight)
    not_rated = [q for q in range(c.n_queries)
                 if heavy not in table.item[table.indptr[c.user[c.offsets[q]]]:
                                            table.indptr[c.user[c.offsets[q]] + 1]]]
    hits = sum(heavy in c.item[c.offsets[q]:c.offsets[q + 1]] for q in not_rated)
    assert hits == len(not_rated)  # weight 1000 vs ~80: drawn in every query that may have it
    u = _sample(table, role, 3, negatives=3)
    hits_u = sum(heavy in u.item[u.offsets[q]:u.offsets[q + 1]] for q in not_rated)
    assert hits_u < len(not_rated) / 2


def test_unused_and_history_ratings_are_never_candidates_of_their_user() -> None:
    table, role, _ = _setup(split="time-cut", min_history=15)
    assert (role == UNUSED).any()
    for part in PARTITIONS.values():
        c = _sample(table, role, part)
        for q in range(c.n_queries):
            u = int(c.user[c.offsets[q]])
            seg = slice(table.indptr[u], table.indptr[u + 1])
            other = table.item[seg][(role[seg] == HISTORY) | (role[seg] == UNUSED)]
            assert not set(other.tolist()) & set(c.item[c.offsets[q]:c.offsets[q + 1]].tolist())
