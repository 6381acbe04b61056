"""The leakage test: changing any target-window rating leaves every feature unchanged.

Features may read the history only. So for every split rule, replacing the ratings of any set
of target-window ratings (train, validation or test targets) by other values must give
bit-identical feature matrices, query ids, items and group offsets -- only the labels of the
changed rows may move. As a control, changing one history rating does change features.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.adapters import AdapterConfig, ratings_to_letor
from bench.adapters.config import FEATURE_GROUPS
from bench.adapters.splits import HISTORY, split_ratings
from bench.adapters.table import build_table
from bench.data.letor import LetorSplits
from bench.data.ratings import Ratings
from bench.datasets.synthetic import generate_ratings

HALF_STARS = np.arange(1, 11) / 2.0
SPLITS = {
    "temporal": AdapterConfig(target_size=2, min_history=3),
    "random": AdapterConfig(split="random", target_size=0.15, min_history=3),
    "kfold": AdapterConfig(split="kfold", target_size=3, min_history=3),
    "time-cut": AdapterConfig(split="time-cut", min_history=2),
}


@pytest.fixture(scope="module")
def base() -> Ratings:
    """A small synthetic table whose users rate throughout the period (so that every time cut
    has users with history on both sides; synthetic users, like MovieLens ones, mostly rate in
    one sitting)."""
    r = generate_ratings(n_users=40, n_items=400, n_ratings=2400, seed=11)
    frame = r.frame.copy()
    rng = np.random.default_rng(0)
    lo, hi = int(frame["timestamp"].min()), int(frame["timestamp"].max())
    frame["timestamp"] = rng.integers(lo, hi, len(frame))
    return Ratings(frame=frame, items=r.items, tags=r.tags, source=r.source)


def _config(rule: str) -> AdapterConfig:
    return replace(SPLITS[rule], negatives=15, feature_groups=FEATURE_GROUPS, als_factors=4,
                   als_iterations=2, svd_factors=6, similarity_history=5)


_cache: dict[str, tuple[LetorSplits, np.ndarray, np.ndarray]] = {}


def _baseline(base: Ratings, rule: str) -> tuple[LetorSplits, np.ndarray, np.ndarray]:
    """Converted splits, and the frame rows of the target / history ratings."""
    if rule not in _cache:
        cfg = _config(rule)
        t = build_table(base.frame)
        role = split_ratings(t, cfg).role
        pairs = pd.DataFrame({"user": t.user_ids[t.user], "item": t.item_ids[t.item],
                              "role": role})
        roles = base.frame.merge(pairs, on=["user", "item"], how="left")["role"].to_numpy()
        _cache[rule] = (ratings_to_letor(base, cfg), np.flatnonzero(roles > HISTORY),
                        np.flatnonzero(roles == HISTORY))
    return _cache[rule]


def _with_ratings(base: Ratings, rows: np.ndarray, values: np.ndarray) -> Ratings:
    frame = base.frame.copy()
    frame.loc[rows, "rating"] = values
    return Ratings(frame=frame, items=base.items, tags=base.tags, source=base.source)


def _assert_features_identical(a: LetorSplits, b: LetorSplits, changed: set) -> None:
    for name, da in a.splits().items():
        db = getattr(b, name)
        assert np.array_equal(da.X, db.X), name  # bit for bit
        assert np.array_equal(da.qid, db.qid)
        assert np.array_equal(da.item, db.item)
        assert np.array_equal(da.offsets, db.offsets)
        moved = np.flatnonzero(da.y != db.y)
        assert {(int(da.user[k]), int(da.item[k])) for k in moved} <= changed


@settings(max_examples=24, deadline=None)
@given(rule=st.sampled_from(sorted(SPLITS)), data=st.data())
def test_changing_target_ratings_leaves_every_feature_unchanged(base: Ratings, rule: str,
                                                               data: st.DataObject) -> None:
    before, targets, _ = _baseline(base, rule)
    picked = np.array(data.draw(st.lists(st.sampled_from(targets.tolist()), min_size=1,
                                         max_size=40, unique=True)))
    values = np.array(data.draw(st.lists(st.sampled_from(HALF_STARS.tolist()),
                                         min_size=len(picked), max_size=len(picked))))
    after = ratings_to_letor(_with_ratings(base, picked, values), _config(rule))
    f = base.frame.loc[picked]
    _assert_features_identical(before, after, set(zip(f["user"], f["item"], strict=True)))


def test_changing_all_target_ratings_at_once_leaves_every_feature_unchanged(base: Ratings) -> None:
    for rule in SPLITS:
        before, targets, _ = _baseline(base, rule)
        flipped = 5.5 - base.frame["rating"].to_numpy()[targets]  # 0.5 <-> 5, 4 -> 1.5, ...
        after = ratings_to_letor(_with_ratings(base, targets, flipped), _config(rule))
        f = base.frame.loc[targets]
        _assert_features_identical(before, after, set(zip(f["user"], f["item"], strict=True)))
        assert any(not np.array_equal(getattr(before, p).y, getattr(after, p).y)
                   for p in ("train", "vali", "test"))


def test_every_single_target_rating_exhaustively_on_a_tiny_table() -> None:
    tiny = generate_ratings(n_users=6, n_items=120, n_ratings=150, seed=2)
    cfg = AdapterConfig(target_size=1, min_history=3, negatives=5, svd_factors=4,
                        feature_groups=FEATURE_GROUPS, als_factors=3, als_iterations=2)
    before = ratings_to_letor(tiny, cfg)
    t = build_table(tiny.frame)
    role = split_ratings(t, cfg).role
    tgt = set(zip(t.user_ids[t.user][role > HISTORY].tolist(),
                  t.item_ids[t.item][role > HISTORY].tolist(), strict=True))
    rows = [k for k, (u, i) in enumerate(zip(tiny.frame["user"], tiny.frame["item"],
                                             strict=True)) if (u, i) in tgt]
    assert len(rows) == 18
    for k in rows:
        old = tiny.frame["rating"].iloc[k]
        after = ratings_to_letor(_with_ratings(tiny, np.array([k]),
                                               np.array([0.5 if old != 0.5 else 5.0])), cfg)
        _assert_features_identical(before, after, {tuple(tiny.frame.loc[k, ["user", "item"]])})


def test_control_changing_a_history_rating_does_change_features(base: Ratings) -> None:
    before, _, history = _baseline(base, "temporal")
    k = history[:1]
    old = base.frame["rating"].to_numpy()[k]
    after = ratings_to_letor(_with_ratings(base, k, 5.5 - old), _config("temporal"))
    assert any(not np.array_equal(getattr(before, p).X, getattr(after, p).X)
               for p in ("train", "vali", "test"))
