"""Splits: every rating one role, targets after history, whole queries, slow references."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.adapters.config import AdapterConfig
from bench.adapters.splits import HISTORY, NO_CUT, TEST, TRAIN, UNUSED, VALI, split_ratings
from bench.adapters.table import build_table, dense_codes, segment_ranks
from bench.errors import ConfigError, DataError


def _frame(seed: int, n_users: int = 12, n_items: int = 40, lo: int = 1, hi: int = 30,
           tie_span: int = 10**6) -> pd.DataFrame:
    """Random ratings with sparse ids, shuffled rows; small ``tie_span`` gives equal times."""
    rng = np.random.default_rng(seed)
    parts = []
    for u in range(n_users):
        k = int(rng.integers(lo, min(hi, n_items) + 1))
        items = rng.choice(n_items, k, replace=False)
        parts.append(pd.DataFrame({
            "user": 7 * u + 3,
            "item": 5 * items + 100,
            "rating": rng.integers(1, 11, k) / 2.0,
            "timestamp": rng.integers(0, tie_span, k) + 1_000_000,
        }))
    f = pd.concat(parts, ignore_index=True)
    return f.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def _roles(frame: pd.DataFrame, config: AdapterConfig) -> dict[tuple[int, int], int]:
    t = build_table(frame)
    s = split_ratings(t, config)
    return dict(zip(zip(t.user_ids[t.user].tolist(), t.item_ids[t.item].tolist(), strict=True),
                    s.role.tolist(), strict=True))


def _size(config: AdapterConfig, n: int) -> int:
    f = config.target_size
    return math.ceil(round(f * n, 9)) if f < 1 else int(f)


def _slow_temporal(frame: pd.DataFrame, config: AdapterConfig) -> dict[tuple[int, int], int]:
    out = {}
    for u, g in frame.groupby("user"):
        g = g.sort_values(["timestamp", "item"])
        n, s = len(g), _size(config, len(g))
        roles = [HISTORY] * n
        if n - 3 * s >= config.min_history:
            roles = [HISTORY] * (n - 3 * s) + [TRAIN] * s + [VALI] * s + [TEST] * s
        out.update({(u, it): r for it, r in zip(g["item"], roles, strict=True)})
    return out


def _slow_time_cut(frame: pd.DataFrame, cuts: tuple[int, int, int],
                   min_history: int) -> dict[tuple[int, int], int]:
    out = {}
    for u, g in frame.groupby("user"):
        n_hist = int((g["timestamp"] < cuts[0]).sum())
        for it, t in zip(g["item"], g["timestamp"], strict=True):
            r = HISTORY if t < cuts[0] else TRAIN if t < cuts[1] else VALI if t < cuts[2] else TEST
            if r != HISTORY and n_hist < min_history:
                r = UNUSED
            out[(u, it)] = r
    return out


# --------------------------------------------------------------------------- the table


def test_table_orders_by_user_then_time_then_item_like_pandas() -> None:
    f = _frame(0, tie_span=20)  # many equal timestamps: ties go by item id
    t = build_table(f)
    ref = f.sort_values(["user", "timestamp", "item"])
    assert t.user_ids[t.user].tolist() == ref["user"].tolist()
    assert t.item_ids[t.item].tolist() == ref["item"].tolist()
    assert t.rating.tolist() == ref["rating"].tolist()
    assert t.timestamp.tolist() == ref["timestamp"].tolist()
    assert np.diff(t.indptr).tolist() == ref.groupby("user").size().tolist()


@pytest.mark.parametrize("values", [[5, 3, 5, 900, 3], [-4, 2**40, 7, 2**40]])
def test_dense_codes_number_distinct_ids_in_increasing_order(values: list[int]) -> None:
    codes, ids = dense_codes(np.array(values, dtype=np.int64))
    assert ids.tolist() == sorted(set(values))
    assert ids[codes].tolist() == values


def test_segment_ranks_equal_an_argsort_per_segment() -> None:
    rng = np.random.default_rng(1)
    key = rng.permutation(3000).astype(np.float64)  # distinct keys, as the random split draws
    indptr = np.array([0, 5, 5, 17, 30, 2999, 3000])
    got = segment_ranks(indptr, key)
    for a, b in itertools.pairwise(indptr):
        ref = np.empty(b - a, dtype=np.int64)
        ref[np.argsort(key[a:b], kind="stable")] = np.arange(b - a)
        assert got[a:b].tolist() == ref.tolist()


# --------------------------------------------------------------------------- temporal


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), target=st.sampled_from([1, 2, 5, 0.1, 0.25]),
       min_history=st.integers(1, 6), ties=st.booleans())
def test_temporal_split_equals_the_slow_per_user_rule(seed: int, target: float,
                                                      min_history: int, ties: bool) -> None:
    f = _frame(seed, tie_span=30 if ties else 10**6)
    cfg = AdapterConfig(target_size=target, min_history=min_history)
    assert _roles(f, cfg) == _slow_temporal(f, cfg)


def test_fraction_windows_round_like_exact_arithmetic() -> None:
    # 0.1 * 20 is 2.0000000000000004 in floating point; the window must be 2, not 3.
    f = _frame(3, n_users=1, n_items=20, lo=20, hi=20)
    roles = np.array(list(_roles(f, AdapterConfig(target_size=0.1, min_history=1)).values()))
    assert [(roles == r).sum() for r in (HISTORY, TRAIN, VALI, TEST)] == [14, 2, 2, 2]
    assert AdapterConfig(target_size=0.1).window_size(20) == 2


def test_temporal_targets_come_after_all_of_the_users_history() -> None:
    f = _frame(5, n_users=30, lo=10, hi=40)
    t = build_table(f)
    s = split_ratings(t, AdapterConfig(target_size=3, min_history=2))
    for u in range(t.n_users):
        seg = slice(t.indptr[u], t.indptr[u + 1])
        role, ts = s.role[seg], t.timestamp[seg]
        for earlier, later in ((HISTORY, TRAIN), (TRAIN, VALI), (VALI, TEST)):
            if (role == earlier).any() and (role == later).any():
                assert ts[role == earlier].max() <= ts[role == later].min()
        if (role > HISTORY).any():  # tags cut at the first target rating
            assert s.tag_cut[u] == ts[role > HISTORY].min()
        else:
            assert s.tag_cut[u] == NO_CUT
    assert s.reference_time == t.timestamp[s.role == HISTORY].max()


# --------------------------------------------------------------------------- random


def test_random_split_draws_equal_windows_per_user_and_depends_on_the_seed() -> None:
    f = _frame(7, n_users=25, lo=15, hi=40)
    cfg = AdapterConfig(split="random", target_size=0.2, min_history=2)
    roles = _roles(f, cfg)
    for u, g in f.groupby("user"):
        s = _size(cfg, len(g))
        got = [roles[(u, it)] for it in g["item"]]
        assert [got.count(r) for r in (TRAIN, VALI, TEST)] == [s, s, s]
    assert roles == _roles(f, cfg)
    assert roles != _roles(f, AdapterConfig(split="random", target_size=0.2, min_history=2,
                                            seed=1))
    assert not all(roles[k] == v for k, v in _slow_temporal(f, cfg).items())  # not temporal


# --------------------------------------------------------------------------- kfold


def test_kfold_puts_each_user_in_one_partition_and_each_fold_is_test_once() -> None:
    f = _frame(11, n_users=40, lo=8, hi=30)
    test_users: list[set[int]] = []
    for fold in range(5):
        cfg = AdapterConfig(split="kfold", n_folds=5, fold=fold, target_size=2, min_history=3)
        roles = _roles(f, cfg)
        part: dict[int, set[int]] = {}
        for (u, _), r in roles.items():
            if r > HISTORY:
                part.setdefault(r, set()).add(u)
        assert not (part[TRAIN] & part[VALI])
        assert not (part[TRAIN] & part[TEST])
        assert not (part[VALI] & part[TEST])
        test_users.append(part[TEST])
        # each eligible user's targets are their latest 2 ratings, all in one partition
        for u, g in f.groupby("user"):
            g = g.sort_values(["timestamp", "item"])
            expect = [False] * len(g)
            if len(g) - 2 >= 3:
                expect[-2:] = [True, True]
            assert [roles[(u, it)] > HISTORY for it in g["item"]] == expect
    eligible = {u for u, g in f.groupby("user") if len(g) - 2 >= 3}
    assert set().union(*test_users) == eligible
    assert sum(len(s) for s in test_users) == len(eligible)  # disjoint


# --------------------------------------------------------------------------- time cut


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), min_history=st.integers(1, 5))
def test_time_cut_split_equals_the_slow_rule(seed: int, min_history: int) -> None:
    f = _frame(seed, lo=3, hi=30)
    cuts = tuple(int(c) for c in np.quantile(f["timestamp"], [0.6, 0.75, 0.9], method="higher"))
    if not cuts[0] < cuts[1] < cuts[2]:
        return
    cfg = AdapterConfig(split="time-cut", time_cuts=cuts, min_history=min_history)
    assert _roles(f, cfg) == _slow_time_cut(f, cuts, min_history)
    s = split_ratings(build_table(f), cfg)
    assert s.reference_time == cuts[0]
    assert (s.tag_cut == cuts[0]).all()


def test_time_cut_quantiles_are_the_default_cuts() -> None:
    f = _frame(2, lo=10, hi=30)
    s = split_ratings(build_table(f), AdapterConfig(split="time-cut"))
    q = np.quantile(f["timestamp"], [0.7, 0.8, 0.9], method="higher").astype(int).tolist()
    assert s.meta["time_cuts"] == q


def test_time_cut_with_equal_timestamps_asks_for_explicit_cuts() -> None:
    f = _frame(2)
    f["timestamp"] = 5
    with pytest.raises(DataError, match="give time_cuts explicitly"):
        split_ratings(build_table(f), AdapterConfig(split="time-cut"))


# --------------------------------------------------------------------------- config


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"split": "leave-one-out"}, "temporal, time-cut, random, kfold"),
        ({"target_size": 1.5}, "whole number"),
        ({"target_size": 0}, "whole number"),
        ({"min_history": 0}, "min_history"),
        ({"fold": 5}, "fold=5"),
        ({"time_cuts": (3, 2, 1)}, "increasing"),
        ({"feature_groups": ("user", "bm25")}, "bm25"),
    ],
)
def test_bad_configs_are_config_errors_naming_the_valid_choices(kw: dict, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        AdapterConfig(**kw)


def test_split_meta_counts_every_rating_once() -> None:
    f = _frame(9, lo=5, hi=30)
    s = split_ratings(build_table(f), AdapterConfig(target_size=2, min_history=2))
    assert sum(s.meta["ratings_by_role"].values()) == len(f)
