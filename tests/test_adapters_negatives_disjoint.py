"""Negatives are dealt from one pool per user: no (user, item) negative recurs across partitions.

Before, each partition drew its own negatives, so a never-rated item could be a label-0
candidate of the same user in train and again in test, with the same history features (the
model is then scored on rows it was trained on). The rule now (:mod:`bench.adapters.negatives`):
a user who is a query of ``k`` partitions gets one pool of ``min(k * negatives, unrated)``
never-rated items, dealt test first, then vali, then train. The oracle for the counts is a plain
Python loop over the raw ratings (:func:`_oracle_counts`), not the code under test.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numba
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.adapters import AdapterConfig, convert, ratings_to_letor
from bench.adapters.config import ADAPTER_VERSION
from bench.adapters.negatives import Candidates, sample_candidates
from bench.adapters.splits import PARTITIONS, TEST, TRAIN, VALI, split_ratings
from bench.adapters.table import RatingsTable, build_table
from bench.data.folders import read_letor_folder
from bench.data.ratings import Ratings

CUTS = (30, 60, 90)  # time-cut boundaries for timestamps in 0..119


def _config(split: str, negatives: int, seed: int = 0) -> AdapterConfig:
    if split == "time-cut":
        return AdapterConfig(split=split, time_cuts=CUTS, min_history=1, negatives=negatives,
                             seed=seed)
    extra = {"n_folds": 3} if split == "kfold" else {}
    return AdapterConfig(split=split, target_size=1, min_history=1, negatives=negatives,
                         seed=seed, **extra)  # type: ignore[arg-type]


def _draw_all(table: RatingsTable, role: np.ndarray, config: AdapterConfig,
              weight: np.ndarray | None = None) -> dict[int, Candidates]:
    sampling = "uniform" if weight is None else "popularity"
    return {code: sample_candidates(table, role, code, negatives=config.negatives,
                                    sampling=sampling, item_weight=weight, seed=config.seed)
            for code in PARTITIONS.values()}


def _negatives(c: Candidates) -> dict[int, list[int]]:
    """User code -> the user's negative item codes in this partition."""
    out: dict[int, list[int]] = {}
    for q in range(c.n_queries):
        seg = slice(int(c.offsets[q]), int(c.offsets[q + 1]))
        out[int(c.user[seg][0])] = c.item[seg][~c.is_target[seg]].tolist()
    return out


def _oracle_counts(table: RatingsTable, role: np.ndarray, negatives: int
                   ) -> dict[tuple[int, int], int]:
    """(user code, partition code) -> negatives, by the documented rule, one user at a time."""
    rated: dict[int, set[int]] = {}
    parts: dict[int, set[int]] = {}
    for u, i, r in zip(table.user.tolist(), table.item.tolist(), role.tolist(), strict=True):
        rated.setdefault(u, set()).add(i)
        if r in (TRAIN, VALI, TEST):
            parts.setdefault(u, set()).add(r)
    out = {}
    for u, mine in parts.items():
        unrated = table.n_items - len(rated[u])
        left = min(len(mine) * negatives, unrated)
        order = [p for p in (TEST, VALI, TRAIN) if p in mine]
        for n, p in enumerate(order):  # deal what is left as evenly as the partitions left allow
            give = -(-left // (len(order) - n))  # ceil: the earlier ones get the extra item
            out[(u, p)] = give
            left -= give
    return out


@st.composite
def _ratings(draw: st.DrawFn) -> pd.DataFrame:
    n_items = draw(st.integers(2, 14))
    rows = []
    for u in range(draw(st.integers(1, 7))):
        items = draw(st.lists(st.integers(0, n_items - 1), min_size=1, max_size=n_items,
                              unique=True))
        for i in items:
            rows.append((100 + u, 500 + i, draw(st.sampled_from([1.0, 2.5, 4.0, 5.0])),
                         draw(st.integers(0, 119))))
    frame = pd.DataFrame(rows, columns=["user", "item", "rating", "timestamp"])
    # every item exists in the catalogue (rated by someone): a user rates it at time 0
    missing = sorted(set(range(500, 500 + n_items)) - set(frame["item"]))
    extra = pd.DataFrame([(99, i, 3.0, 0) for i in missing], columns=frame.columns)
    return pd.concat([frame, extra], ignore_index=True) if missing else frame


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frame=_ratings(), split=st.sampled_from(["random", "temporal", "kfold", "time-cut"]),
       negatives=st.integers(0, 9), popularity=st.booleans(), seed=st.integers(0, 2**31 - 1))
def test_no_negative_recurs_in_another_partition_nor_was_rated_and_the_counts_follow_the_rule(
        frame: pd.DataFrame, split: str, negatives: int, popularity: bool, seed: int) -> None:
    table = build_table(frame)
    config = _config(split, negatives, seed)
    role = split_ratings(table, config).role
    weight = (np.arange(table.n_items, dtype=np.float64) % 3) * 50 + 1 if popularity else None
    drawn = _draw_all(table, role, config, weight)
    rated = {u: set(table.item[table.indptr[u]:table.indptr[u + 1]].tolist())
             for u in range(table.n_users)}
    seen: dict[tuple[int, int], int] = {}
    counts: dict[tuple[int, int], int] = {}
    for code, c in drawn.items():
        for u, neg in _negatives(c).items():
            counts[(u, code)] = len(neg)
            assert not set(neg) & rated[u], "a negative the user rated"
            for i in neg:
                assert (u, i) not in seen, f"user {u} item {i} in partitions {seen[(u, i)]}, {code}"
                seen[(u, i)] = code
    assert counts == _oracle_counts(table, role, negatives)


@pytest.mark.parametrize("split", ["random", "temporal", "kfold", "time-cut"])
def test_a_converted_dataset_has_no_negative_pair_in_two_partitions(split: str) -> None:
    rng = np.random.default_rng(4)
    rows = [(u, i, float(rng.integers(1, 6)), int(rng.integers(0, 120)))
            for u in range(40) for i in rng.choice(60, int(rng.integers(12, 40)), replace=False)]
    frame = pd.DataFrame(rows, columns=["user", "item", "rating", "timestamp"])
    config = replace(_config(split, 10), min_history=3, feature_groups=("user",))
    splits = ratings_to_letor(Ratings(frame=frame), config)
    rated = set(zip(frame["user"], frame["item"], strict=True))
    pairs = {}
    for name, d in splits.splits().items():
        neg = {(int(u), int(i)) for u, i in zip(d.user, d.item, strict=True)} - rated
        assert (d.y[[(int(u), int(i)) not in rated for u, i in zip(d.user, d.item,
                                                                    strict=True)]] == 0).all()
        pairs[name] = neg
    assert pairs["train"]
    assert pairs["test"]
    assert not pairs["train"] & pairs["vali"]
    assert not pairs["train"] & pairs["test"]
    assert not pairs["vali"] & pairs["test"]


def _small() -> tuple[RatingsTable, np.ndarray, AdapterConfig]:
    rng = np.random.default_rng(1)
    rows = [(u, i, 4.0, int(t)) for u in range(700)
            for t, i in enumerate(rng.choice(90, int(rng.integers(10, 80)), replace=False))]
    table = build_table(pd.DataFrame(rows, columns=["user", "item", "rating", "timestamp"]))
    config = AdapterConfig(target_size=2, min_history=2, negatives=12, seed=3)
    return table, split_ratings(table, config).role, config


def test_same_seed_same_negatives_byte_for_byte_whatever_the_threads_and_other_users() -> None:
    table, role, config = _small()
    a = _draw_all(table, role, config)
    b = _draw_all(table, role, config)
    n = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        c = _draw_all(table, role, config)
    finally:
        numba.set_num_threads(n)
    # the users 300.. alone (the others' ratings are history: not queries), as a Dask chunk
    later = _draw_all(table, np.where(table.user >= 300, role, 0).astype(np.int8), config)
    for code in PARTITIONS.values():
        for other in (b[code], c[code]):
            assert a[code].item.tobytes() == other.item.tobytes()
            assert a[code].rating.tobytes() == other.rating.tobytes()
            assert a[code].offsets.tobytes() == other.offsets.tobytes()
        q0 = int(np.searchsorted(a[code].user[a[code].offsets[:-1]], 300))
        start = int(a[code].offsets[q0])
        assert a[code].item[start:].tobytes() == later[code].item.tobytes()
        assert a[code].rating[start:].tobytes() == later[code].rating.tobytes()
    other_seed = _draw_all(table, role, AdapterConfig(target_size=2, min_history=2,
                                                      negatives=12, seed=4))
    assert not np.array_equal(a[TEST].item, other_seed[TEST].item)


def test_a_user_short_of_unrated_items_gets_each_once_split_evenly_test_first() -> None:
    """10 items; the user rated 3 (7 unrated) and is a query of all three partitions, with
    negatives=5. Before: 5 per partition, drawn apart (15 rows from 7 items: 8 repeats across
    partitions). Now: the 7 items once each, 3 to test, 2 to vali, 2 to train."""
    frame = pd.DataFrame({"user": [1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
                          "item": [0, 1, 2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
                          "rating": 4.0, "timestamp": [1, 2, 3, *range(10)]})
    table = build_table(frame)
    role = np.zeros(table.n, dtype=np.int8)
    role[:3] = [TRAIN, VALI, TEST]  # user 1: one target per partition, no history (unit level)
    drawn = _draw_all(table, role, AdapterConfig(negatives=5))
    got = {code: _negatives(c)[0] for code, c in drawn.items()}
    assert {code: len(v) for code, v in got.items()} == {TEST: 3, VALI: 2, TRAIN: 2}
    assert sorted(got[TEST] + got[VALI] + got[TRAIN]) == [3, 4, 5, 6, 7, 8, 9]
    # a user of one partition only (kfold) keeps min(negatives, unrated): the old count
    one = _draw_all(table, np.where(np.arange(table.n) == 2, TEST, 0).astype(np.int8),
                    AdapterConfig(negatives=5))
    assert len(_negatives(one[TEST])[0]) == 5


def test_a_pool_of_every_unrated_item_is_dealt_in_a_random_order_not_by_item_code() -> None:
    table, role, _ = _small()
    config = AdapterConfig(target_size=2, min_history=2, negatives=1000)
    drawn = _draw_all(table, role, config)
    low = [np.mean(v) for v in _negatives(drawn[TEST]).values() if len(v) > 6]
    high = [np.mean(v) for v in _negatives(drawn[TRAIN]).values() if len(v) > 6]
    assert low
    assert abs(np.mean(low) - np.mean(high)) < 5  # item codes 0..89: means near 45


def test_ml_latest_small_default_conversion_has_no_recurring_negative(shared_data: Path) -> None:
    from bench.data.movielens import load_movielens

    ratings = load_movielens(shared_data / "ml-latest-small")
    splits = ratings_to_letor(ratings, AdapterConfig(feature_groups=("user",)))
    rated = set(zip(ratings.frame["user"], ratings.frame["item"], strict=True))
    pairs = {}
    for name, d in splits.splits().items():
        pairs[name] = {(int(u), int(i)) for u, i in zip(d.user, d.item, strict=True)} - rated
        assert len(pairs[name]) == 610 * 50  # was 30,500 per partition too, 170 of them shared
    assert not pairs["train"] & pairs["test"]
    assert not pairs["train"] & pairs["vali"]
    assert not pairs["vali"] & pairs["test"]


def test_the_adapter_version_is_recorded_in_meta_and_in_the_converted_summary(
        tmp_path: Path) -> None:
    assert ADAPTER_VERSION == 4  # 1: negatives drawn per partition; 2: before round 17's time-cut;
    # 3: before round 21's release age of an item released after the reference year
    assert AdapterConfig().as_dict()["version"] == ADAPTER_VERSION
    frame = pd.DataFrame([(u, i, 4.0, 10 * i) for u in range(30) for i in range(u % 7, 25)],
                         columns=["user", "item", "rating", "timestamp"])
    config = AdapterConfig(target_size=1, min_history=2, negatives=4, feature_groups=("user",))
    summary = convert(Ratings(frame=frame), tmp_path / "cv", config)
    assert summary["adapter"]["version"] == ADAPTER_VERSION  # type: ignore[index]
    written = json.loads((tmp_path / "cv" / "summary.json").read_text())
    assert written["adapter"]["version"] == ADAPTER_VERSION


def test_the_parsed_file_cache_never_serves_an_earlier_conversion_of_the_same_folder(
        tmp_path: Path) -> None:
    """The parsed-file cache (bench.data.letor_cache) is keyed by each file's sha256: a folder
    converted again (new rule, here a new seed) is parsed again, never read from the entry of
    the earlier conversion."""
    frame = pd.DataFrame([(u, i, 4.0, 10 * i) for u in range(30) for i in range(u % 7, 25)],
                         columns=["user", "item", "rating", "timestamp"])
    cache = tmp_path / "cache"
    loaded = []
    for seed in (0, 1):
        config = AdapterConfig(target_size=1, min_history=2, negatives=4, seed=seed,
                               feature_groups=("user", "item"))
        convert(Ratings(frame=frame), tmp_path / "cv", config, parquet=False)
        loaded.append(read_letor_folder(tmp_path / "cv", cache_dir=cache))
        fresh = read_letor_folder(tmp_path / "cv")
        for name, d in fresh.splits().items():
            assert np.array_equal(loaded[-1].splits()[name].X, d.X)
    assert any((cache / "svmlight").rglob("*"))  # the cache was used
    assert not np.array_equal(loaded[0].test.X, loaded[1].test.X)


def test_uniform_negatives_are_uniform_over_each_users_unrated_items() -> None:
    """Chi-square over items: a user's pool is a uniform sample without replacement of the
    user's unrated items, so item ``i`` is expected ``sum over users not rating i of
    pool_u / unrated_u`` times (scipy.stats.chisquare; a p-value this small would say the
    generator or the rejection step is biased)."""
    from scipy.stats import chisquare

    rng = np.random.default_rng(8)  # pools of 15 among ~185 unrated items: nearly Poisson
    rows = [(u, i, 4.0, int(t)) for u in range(2000)
            for t, i in enumerate(rng.choice(200, int(rng.integers(10, 20)), replace=False))]
    table = build_table(pd.DataFrame(rows, columns=["user", "item", "rating", "timestamp"]))
    config = AdapterConfig(target_size=1, min_history=2, negatives=5, seed=2)
    drawn = _draw_all(table, split_ratings(table, config).role, config)
    counts = np.zeros(table.n_items)
    expected = np.zeros(table.n_items)
    pools: dict[int, int] = {}
    for c in drawn.values():
        for u, neg in _negatives(c).items():
            np.add.at(counts, neg, 1)
            pools[u] = pools.get(u, 0) + len(neg)
    for u, pool in pools.items():
        rated = table.item[table.indptr[u]:table.indptr[u + 1]]
        unrated = np.setdiff1d(np.arange(table.n_items), rated)
        expected[unrated] += pool / unrated.size
    assert counts.sum() == pytest.approx(expected.sum())
    assert chisquare(counts, expected).pvalue > 1e-4
