"""Round 17: a recommender-systems reviewer hunting data leakage in the ratings -> LETOR adapter.

The promise (README, "Ratings -> LETOR"): every feature is computed from the history only, so
no test (or validation) interaction reaches a training row. The oracles: features recomputed
by hand with pandas from the history (the ratings in no target window, read back from the
converted rows themselves), and "ratings of the test period changed or added leave every
train and validation row byte-identical". Found here and fixed: a user who rates only after
the time cut moved every training row's Pearson similarity (the user count ``U``) and, in the
last bits, the SVD and ALS features (they were fitted with the user's empty row); a tag written
in the test period by an author without ratings counted as history under ``time-cut``.
"""

from __future__ import annotations

import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hostile_kit import cli
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.adapters import AdapterConfig, ratings_to_letor
from bench.data.letor import LetorData, LetorSplits
from bench.data.ratings import Ratings

C1, C2, C3 = 10_000, 20_000, 30_000
CUTS = AdapterConfig(split="time-cut", time_cuts=(C1, C2, C3), min_history=2, negatives=4,
                     svd_factors=3, similarity_history=3, feature_groups=("user", "item"))
DAY = 86_400.0


def _base() -> pd.DataFrame:
    """10 users (ids 2, 4, .., 20) x 30 items: 4-6 history ratings before C1 and one or two
    ratings in each target window; rating values and times from a seeded stream."""
    rng = np.random.default_rng(17)
    rows = []
    for u in range(2, 22, 2):
        items = rng.choice(np.arange(1, 31), 12, replace=False)
        times = np.r_[rng.integers(1_000, C1, 6), rng.integers(C1, C2, 2),
                      rng.integers(C2, C3, 2), rng.integers(C3, C3 + 5_000, 2)]
        for i, t in zip(items, times, strict=True):
            rows.append((u, int(i), float(rng.integers(1, 11)) / 2, int(t)))
    return pd.DataFrame(rows, columns=["user", "item", "rating", "timestamp"])


BASE = _base()


def _conv(frame: pd.DataFrame, config: AdapterConfig = CUTS, tags: pd.DataFrame | None = None
          ) -> LetorSplits:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ratings_to_letor(Ratings(frame.reset_index(drop=True), tags=tags), config)


def _add(frame: pd.DataFrame, rows: list[tuple[int, int, float, int]]) -> pd.DataFrame:
    more = pd.DataFrame(rows, columns=list(frame.columns)).astype(frame.dtypes.to_dict())
    return pd.concat([frame, more], ignore_index=True)


def _col(d: LetorData, name: str) -> np.ndarray:
    return d.X[:, list(d.feature_names).index(name)].astype(np.float64)


def _targets(out: LetorSplits) -> set[tuple[int, int]]:
    """(user, item) of every target row of every partition (graded labels: a target is >= 1)."""
    return {(int(u), int(i)) for d in out.splits().values()
            for u, i, y in zip(d.user, d.item, d.y, strict=True) if y > 0}


def _history(frame: pd.DataFrame, out: LetorSplits, cut: int | None = None) -> pd.DataFrame:
    """The history by hand: ratings before ``cut`` (time-cut), else every rating that is no
    target row of the output (and, for time-cut, not after the cut either)."""
    pairs = _targets(out)
    keep = np.array([(int(u), int(i)) not in pairs for u, i in
                     zip(frame["user"], frame["item"], strict=True)])
    if cut is not None:
        keep = frame["timestamp"].to_numpy() < cut
    return frame[keep]


def _assert_user_item_features(out: LetorSplits, hist: pd.DataFrame, ref: float) -> None:
    g = hist.groupby("user")
    cnt, mean = g.rating.size(), g.rating.mean()
    std, last = g.rating.std(ddof=0), g.timestamp.max()
    gi = hist.groupby("item")
    icnt, isum, ifirst = gi.rating.size(), gi.rating.sum(), gi.timestamp.min()
    gm = hist.rating.mean()
    for name, d in out.splits().items():
        for k, (u, i) in enumerate(zip(d.user.tolist(), d.item.tolist(), strict=True)):
            row = dict(zip(d.feature_names, d.X[k].astype(np.float64), strict=True))
            assert row["user_count"] == cnt[u], (name, u)
            assert row["user_mean"] == pytest.approx(mean[u], rel=1e-6)
            assert row["user_std"] == pytest.approx(std[u], rel=1e-5, abs=1e-6)
            assert row["user_recency_days"] == pytest.approx((ref - last[u]) / DAY, rel=1e-6)
            n = float(icnt.get(i, 0))
            s = float(isum.get(i, 0.0))
            assert row["item_count"] == n, (name, i)
            assert row["item_mean"] == pytest.approx(s / n if n else gm, rel=1e-6)
            assert row["item_bayes_mean"] == pytest.approx((s + 10.0 * gm) / (n + 10.0), rel=1e-6)
            age = (ref - ifirst[i]) / DAY if n else 0.0
            assert row["item_age_days"] == pytest.approx(age, rel=1e-6, abs=1e-6)


# --- hand oracles: every user and item feature from the history alone ----------------------


def test_time_cut_features_are_the_hand_computed_history_before_c1_in_every_partition() -> None:
    out = _conv(BASE)
    _assert_user_item_features(out, _history(BASE, out, cut=C1), ref=float(C1))


@pytest.mark.parametrize("config", [
    AdapterConfig(target_size=1, min_history=2),
    AdapterConfig(split="random", target_size=2, min_history=2),
    AdapterConfig(split="kfold", target_size=2, min_history=2, n_folds=3),
], ids=["temporal", "random", "kfold"])
def test_per_user_splits_features_are_the_hand_history_of_the_non_target_ratings(
        config: AdapterConfig) -> None:
    cfg = replace(config, negatives=3, feature_groups=("user", "item"))
    out = _conv(BASE, cfg)
    hist = _history(BASE, out)
    assert len(hist) < len(BASE)  # targets left the history
    _assert_user_item_features(out, hist, ref=float(hist.timestamp.max()))


@pytest.mark.parametrize("config", [CUTS, AdapterConfig(target_size=1, min_history=2, negatives=3,
                                                        feature_groups=("user",))],
                         ids=["time-cut", "temporal"])
def test_every_partition_of_one_user_carries_the_same_user_features(config: AdapterConfig) -> None:
    out = _conv(BASE, config)
    names = ("user_count", "user_mean", "user_std", "user_recency_days")
    per: dict[int, set[tuple[float, ...]]] = {}
    for d in out.splits().values():
        for k, u in enumerate(d.user.tolist()):
            per.setdefault(u, set()).add(tuple(float(d.X[k, d.feature_names.index(n)])
                                               for n in names))
    assert per
    assert all(len(v) == 1 for v in per.values())


@pytest.mark.parametrize(("t", "where"), [(C1 - 1, "history"), (C1, "train"), (C2 - 1, "train"),
                                          (C2, "vali"), (C3 - 1, "vali"), (C3, "test")])
def test_a_rating_at_a_cut_time_falls_on_its_later_side(t: int, where: str) -> None:
    frame = _add(BASE, [(2, 99, 5.0, t)])
    out = _conv(frame)
    found = {name for name, d in out.splits().items()
             if ((d.user == 2) & (d.item == 99) & (d.y > 0)).any()}
    assert found == (set() if where == "history" else {where})
    hist_count = _col(out.train, "user_count")[out.train.user == 2][0]
    assert hist_count == (BASE[(BASE.user == 2) & (BASE.timestamp < C1)].shape[0]
                          + (where == "history"))


def test_item_age_and_recency_are_measured_at_c1_not_at_the_latest_rating() -> None:
    frame = _add(BASE, [(1, 98, 4.0, C1 - 86_400), (1, 90, 4.0, C1 - 3 * 86_400),
                        (1, 91, 4.0, C1 + 5), (1, 92, 4.0, C2 + 5), (1, 93, 4.0, C3 + 99_000)])
    out = _conv(frame)
    for d in out.splits().values():  # the two items are there when sampled as negatives
        for item, age in ((98, 1.0), (90, 3.0)):
            rows = d.item == item
            assert set(_col(d, "item_age_days")[rows].tolist()) <= {age}
        assert set(_col(d, "user_recency_days")[d.user == 1].tolist()) == {1.0}


def test_a_user_below_min_history_has_no_query_and_its_later_ratings_count_nowhere() -> None:
    before = _conv(_add(BASE, [(999, 1, 5.0, 500)]))  # one history rating: below min_history
    frame = _add(BASE, [(999, 1, 5.0, 500), (999, 2, 5.0, C1 + 5), (999, 3, 5.0, C2 + 5),
                        (999, 4, 5.0, C3 + 5)])
    out = _conv(frame)
    assert all(999 not in d.user for d in out.splits().values())
    hist = frame[frame.timestamp < C1]
    for d in out.splits().values():
        for it in (2, 3, 4):
            got = _col(d, "item_count")[d.item == it]
            assert (got == (hist.item == it).sum()).all()
    _assert_rows_identical(before, out)


# --- users and items that exist only after the cut -----------------------------------------


@pytest.mark.parametrize("t", [C1 + 7, C2 + 7, C3 + 7], ids=["train-window", "vali-window",
                                                            "test-window"])
def test_a_user_whose_only_ratings_are_after_the_cut_is_no_query(t: int) -> None:
    out = _conv(_add(BASE, [(99, 1, 5.0, t), (99, 2, 4.0, t + 1), (99, 3, 3.0, t + 2)]))
    assert all(99 not in d.user for d in out.splits().values())


def _assert_rows_identical(a: LetorSplits, b: LetorSplits, parts: tuple[str, ...] = (
        "train", "vali", "test")) -> None:
    for name in parts:
        da, db = getattr(a, name), getattr(b, name)
        assert da.feature_names == db.feature_names
        assert np.array_equal(da.qid, db.qid), name
        assert np.array_equal(da.item, db.item), name
        assert np.array_equal(da.offsets, db.offsets), name
        assert np.array_equal(da.y, db.y), name
        bad = [n for j, n in enumerate(da.feature_names)
               if not np.array_equal(da.X[:, j], db.X[:, j])]
        assert not bad, f"{name}: {bad} moved"


FUTURE_USERS = [(101, 1, 5.0, C3 + 10), (101, 7, 1.0, C3 + 11), (101, 8, 4.5, C2 + 3),
                (103, 2, 2.0, C1 + 1), (103, 9, 5.0, C3 + 12)]


@pytest.mark.parametrize("groups", [("user", "item"), ("svd",), ("similarity",), ("als",)],
                         ids=lambda g: "+".join(g))
def test_users_who_rate_only_after_the_cut_move_no_row_of_any_partition(groups: tuple) -> None:
    cfg = replace(CUTS, feature_groups=groups, als_factors=3, als_iterations=2)
    _assert_rows_identical(_conv(BASE, cfg), _conv(_add(BASE, FUTURE_USERS), cfg))


def test_pearson_similarity_counts_the_users_with_history_only() -> None:
    """sim_pearson by hand: the correlation of two items' history columns over the users with
    a history rating (exact: svd_factors >= the number of such users)."""
    cfg = replace(CUTS, feature_groups=("similarity",), svd_factors=50, similarity_history=0)
    frame = _add(BASE, FUTURE_USERS)
    out = _conv(frame, cfg)
    hist = frame[frame.timestamp < C1]
    M = hist.pivot_table(index="user", columns="item", values="rating", fill_value=0.0)
    d = out.train
    checked = 0
    for k, (u, i) in enumerate(zip(d.user.tolist(), d.item.tolist(), strict=True)):
        if i not in M.columns or M[i].std() == 0:
            continue
        mine = hist[hist.user == u].item.tolist()
        r = [np.corrcoef(M[i], M[j])[0, 1] for j in mine if M[j].std() > 0]
        assert _col(d, "sim_pearson_max")[k] == pytest.approx(max(r), abs=2e-5)
        assert _col(d, "sim_pearson_mean")[k] == pytest.approx(np.mean(r), abs=2e-5)
        checked += 1
    assert checked > 10


def test_cosine_and_jaccard_similarities_are_those_of_the_history_columns() -> None:
    cfg = replace(CUTS, feature_groups=("similarity",), svd_factors=50, similarity_history=0)
    frame = _add(BASE, FUTURE_USERS)
    d = _conv(frame, cfg).vali
    hist = frame[frame.timestamp < C1]
    M = hist.pivot_table(index="user", columns="item", values="rating", fill_value=0.0)
    B = (M > 0).astype(float)
    checked = 0
    for k, (u, i) in enumerate(zip(d.user.tolist(), d.item.tolist(), strict=True)):
        if i not in M.columns:
            continue
        mine = hist[hist.user == u].item.tolist()
        cos = [M[i] @ M[j] / np.sqrt((M[i] @ M[i]) * (M[j] @ M[j])) for j in mine]
        jac = [B[i] @ B[j] / ((B[i] + B[j]) > 0).sum() for j in mine]
        assert _col(d, "sim_cosine_max")[k] == pytest.approx(max(cos), abs=2e-5)
        assert _col(d, "sim_jaccard_mean")[k] == pytest.approx(np.mean(jac), abs=2e-5)
        checked += 1
    assert checked > 10


@pytest.mark.parametrize("config", [CUTS, AdapterConfig(target_size=1, min_history=2,
                                                        negatives=3)], ids=["time-cut", "temporal"])
def test_an_exact_puresvd_scores_every_candidate_zero_as_no_candidate_is_in_the_history(
        config: AdapterConfig) -> None:
    """With k >= the users with history the SVD is exact and r_u V V^T = r_u: the score of a
    candidate is the user's history rating of it, 0 for a target or a negative. A target rating
    that reached the history matrix would show up here as its value."""
    out = _conv(BASE, replace(config, feature_groups=("svd",), svd_factors=40))
    for d in out.splits().values():
        assert np.abs(_col(d, "svd_score")).max() < 1e-4


def test_genre_affinity_is_counted_from_history_ratings_only() -> None:
    genres = ["Drama", "Comedy|Drama", "Horror", "Comedy"]
    items = pd.DataFrame({"item": np.arange(1, 31),
                          "genres": [genres[i % 4] for i in range(1, 31)]})
    cfg = replace(CUTS, feature_groups=("genre",))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = ratings_to_letor(Ratings(BASE, items=items), cfg)
    hist = BASE[BASE.timestamp < C1]
    of = {int(i): set(g.split("|")) for i, g in zip(items.item, items.genres, strict=True)}
    for d in out.splits().values():
        for k, (u, i) in enumerate(zip(d.user.tolist(), d.item.tolist(), strict=True)):
            mine = hist[hist.user == u].item.tolist()
            share = np.mean([sum(g in of[j] for j in mine) / len(mine) for g in of[i]])
            assert _col(d, "genre_share")[k] == pytest.approx(share, rel=1e-6)


def test_users_who_rate_only_after_the_cut_move_no_row_under_popularity_negatives() -> None:
    cfg = replace(CUTS, negative_sampling="popularity")
    more = [(201 + k, 5, 5.0, C3 + k) for k in range(30)]  # item 5: popular in the test period
    _assert_rows_identical(_conv(BASE, cfg), _conv(_add(BASE, more), cfg))


def test_an_item_first_seen_in_test_has_cold_features_from_no_rating() -> None:
    cfg = replace(CUTS, feature_groups=("user", "item", "svd"))
    out = _conv(_add(BASE, [(2, 500, 5.0, C3 + 50)]), cfg)
    rows = (out.test.item == 500) & (out.test.user == 2)
    assert rows.sum() == 1
    assert out.test.y[rows][0] == 4
    gm = BASE[BASE.timestamp < C1].rating.mean()
    assert _col(out.test, "item_count")[rows][0] == 0
    assert _col(out.test, "item_mean")[rows][0] == pytest.approx(gm, rel=1e-6)
    assert _col(out.test, "item_bayes_mean")[rows][0] == pytest.approx(gm, rel=1e-6)
    assert _col(out.test, "item_age_days")[rows][0] == 0
    assert _col(out.test, "svd_score")[rows][0] == 0


def _by_pair(d: LetorData) -> dict[tuple[int, int], np.ndarray]:
    return {(int(u), int(i)): d.X[k] for k, (u, i) in enumerate(zip(d.user, d.item,
                                                                     strict=True))}


@pytest.mark.parametrize(("item", "tol"), [(500, 0.0), (0, 1e-5)], ids=["highest-id",
                                                                         "lowest-id"])
def test_an_item_rated_only_in_test_leaves_every_other_pairs_features(item: int,
                                                                      tol: float) -> None:
    """Same (user, item) rows carry the same features; an id that renumbers the other items
    (the lowest) changes the SVDs' random test matrix, hence the last float32 bits only."""
    cfg = replace(CUTS, feature_groups=("user", "item", "svd", "similarity"))
    a, b = _conv(BASE, cfg), _conv(_add(BASE, [(4, item, 5.0, C3 + 5)]), cfg)
    for name in ("train", "vali"):
        pa, pb = _by_pair(getattr(a, name)), _by_pair(getattr(b, name))
        common = set(pa) & set(pb)
        assert len(common) > len(pa) // 2
        worst = max(float(np.abs(pa[k] - pb[k]).max()) for k in common)
        assert worst <= tol


# --- tags ----------------------------------------------------------------------------------


def _tag_count(out: LetorSplits, item: int) -> float:
    d = out.train
    got = set(_col(d, "tag_item_count")[d.item == item].tolist())
    assert len(got) == 1
    return got.pop()


TAGGED = int(BASE[(BASE.user == 2) & (BASE.timestamp < C1)].item.iloc[0])


@pytest.mark.parametrize(("author", "t", "counted"), [
    (999, C1 - 1, 1), (999, C1, 0), (999, C3 + 500, 0), (999, C2 + 1, 0),
    (6, C1 - 1, 1), (6, C3 + 500, 0)],
    ids=["no-ratings-before-c1", "no-ratings-at-c1", "no-ratings-test-period",
         "no-ratings-vali-period", "rater-before-c1", "rater-test-period"])
def test_a_time_cut_tag_is_history_only_before_c1_whoever_wrote_it(author: int, t: int,
                                                                    counted: int) -> None:
    cfg = replace(CUTS, feature_groups=("user", "item", "tags"))
    tags = pd.DataFrame({"user": [author], "item": [TAGGED], "tag": ["x"], "timestamp": [t]})
    assert _tag_count(_conv(BASE, cfg, tags), TAGGED) == counted


def test_with_quantile_cuts_a_tag_of_an_author_without_ratings_after_c1_is_no_history() -> None:
    cfg = AdapterConfig(split="time-cut", min_history=2, negatives=3,
                        feature_groups=("user", "item", "tags"))
    out = _conv(BASE, cfg)
    c1 = int(out.meta["time_cuts"][0])  # type: ignore[index]
    item = int(BASE[BASE.timestamp < c1].item.iloc[0])
    for t, counted in ((c1 - 1, 1), (c1, 0), (int(BASE.timestamp.max()) + 10, 0)):
        tags = pd.DataFrame({"user": [999], "item": [item], "tag": ["x"], "timestamp": [t]})
        d = _conv(BASE, cfg, tags).train
        got = _col(d, "tag_item_count")[d.item == item]
        assert (got == counted).all(), (t, got)


def test_a_tag_on_the_authors_own_later_target_item_is_no_history() -> None:
    cfg = replace(CUTS, feature_groups=("user", "item", "tags"))
    target = int(BASE[(BASE.user == 2) & (BASE.timestamp >= C3)].item.iloc[0])
    tags = pd.DataFrame({"user": [2, 2], "item": [target, TAGGED], "tag": ["a", "b"],
                         "timestamp": [100, 100]})
    out = _conv(BASE, cfg, tags)
    assert _col(out.train, "tag_user_count")[out.train.user == 2][0] == 1
    for d in out.splits().values():
        assert (_col(d, "tag_item_count")[d.item == target] == 0).all()


# --- order, ties ---------------------------------------------------------------------------


@pytest.mark.parametrize("config", [
    CUTS, AdapterConfig(target_size=1, min_history=2, negatives=3, feature_groups=("user",
                                                                                    "item")),
    AdapterConfig(split="random", target_size=1, min_history=2, negatives=3),
    AdapterConfig(split="kfold", target_size=1, min_history=2, negatives=3, n_folds=3),
], ids=["time-cut", "temporal", "random", "kfold"])
def test_ratings_out_of_time_order_in_the_file_give_the_same_bytes(config: AdapterConfig) -> None:
    cfg = replace(config, feature_groups=("user", "item", "svd"), svd_factors=3)
    shuffled = BASE.sample(frac=1.0, random_state=5)
    _assert_rows_identical(_conv(BASE, cfg), _conv(shuffled, cfg))


def test_equal_timestamps_across_a_temporal_window_are_split_by_item_id_in_any_file_order() -> None:
    rows = [(1, i, 3.0, 100 + i) for i in range(1, 5)] + [(1, 9, 5.0, 500), (1, 8, 1.0, 500)]
    rows += [(u, i, 4.0, 100 + i) for u in (2, 3) for i in range(1, 7)]
    frame = pd.DataFrame(rows, columns=["user", "item", "rating", "timestamp"])
    cfg = AdapterConfig(target_size=1, min_history=1, negatives=0, feature_groups=("user",))
    for f in (frame, frame.iloc[::-1]):
        out = _conv(f, cfg)
        tests = {(int(u), int(i)) for u, i in zip(out.test.user, out.test.item, strict=True)}
        vali = {(int(u), int(i)) for u, i in zip(out.vali.user, out.vali.item, strict=True)}
        assert (1, 9) in tests
        assert (1, 8) in vali


# --- the general oracle: test-period ratings never reach a train or validation row ---------


@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_test_period_changes_leave_train_and_validation_rows_byte_identical(
        data: st.DataObject) -> None:
    cfg = replace(CUTS, feature_groups=("user", "item", "svd", "similarity", "tags"))
    frame = BASE.copy()
    test_rows = np.flatnonzero(frame.timestamp.to_numpy() >= C3)
    picked = data.draw(st.lists(st.sampled_from(test_rows.tolist()), max_size=8, unique=True))
    frame.loc[picked, "rating"] = data.draw(st.lists(
        st.sampled_from([0.5, 1.0, 2.5, 3.0, 4.5, 5.0]), min_size=len(picked),
        max_size=len(picked)))
    new = data.draw(st.lists(st.tuples(st.integers(1, 30), st.integers(C1, C3 + 9_000),
                                       st.sampled_from([1.0, 3.0, 5.0])), max_size=10,
                             unique_by=lambda r: r[0]))
    frame = _add(frame, [(1000 + k % 3, i, r, t) for k, (i, t, r) in enumerate(new)])
    frame = frame.drop_duplicates(["user", "item"])
    later = data.draw(st.lists(st.tuples(st.sampled_from([2, 4, 999]), st.integers(1, 30),
                                         st.integers(C1, C3 + 9_000)), max_size=6))
    tags = pd.concat([TAGS0, pd.DataFrame(later, columns=["user", "item", "timestamp"]).assign(
        tag="t")], ignore_index=True)
    _assert_rows_identical(_base_out(cfg), _conv(frame, cfg, tags), ("train", "vali"))


TAGS0 = pd.DataFrame({"user": [2, 6, 999], "item": [3, 4, 5], "tag": ["a", "b", "c"],
                      "timestamp": [C1 - 50, 2_000, C1 - 1]})
_OUT: dict[str, LetorSplits] = {}


def _base_out(cfg: AdapterConfig) -> LetorSplits:
    key = repr(cfg)
    if key not in _OUT:
        _OUT[key] = _conv(BASE, cfg, TAGS0)
    return _OUT[key]


# --- the command line and the Dask engine --------------------------------------------------


def test_convert_time_cut_writes_the_hand_history_counts(tmp_path: Path) -> None:
    frame = _add(BASE, FUTURE_USERS)
    frame.to_csv(tmp_path / "r.csv", index=False)
    r = cli(tmp_path, "convert", "--ratings", "r.csv", "--layout", "csv", "--user", "user",
            "--item", "item", "--rating", "rating", "--timestamp", "timestamp", "--split", "time-cut", "--time-cuts",
            f"{C1},{C2},{C3}", "--min-history", "2", "--negatives", "4", "--features",
            "user,item", "--out", "out", "--no-svmlight")
    assert r.status == 0, r.err
    hist = frame[frame.timestamp < C1]
    for name in ("train", "vali", "test"):
        files = sorted((tmp_path / "out").rglob(f"*{name}*.parquet"))
        assert files, list((tmp_path / "out").rglob("*"))
        p = pd.read_parquet(files[0])
        counts = hist.groupby("item").size()
        assert (p.item_count.to_numpy() == p.item.map(counts).fillna(0).to_numpy()).all()
        assert not set(p.qid) & {101, 103}


@pytest.mark.parametrize(("how", "label"), [("last", 2), ("mean", 6)])
def test_a_pair_rated_before_the_cut_and_again_in_test_is_one_test_target_never_history(
        tmp_path: Path, how: str, label: int) -> None:
    """--duplicates keeps the latest time (not the later line): the pair is a test target, and
    no history feature counts it (the earlier rating left the history with it)."""
    frame = _add(BASE, [(2, 77, 1.0, C3 + 5), (2, 77, 5.0, 500)])  # the older line comes last
    frame.to_csv(tmp_path / "r.csv", index=False)
    r = cli(tmp_path, "convert", "--ratings", "r.csv", "--layout", "csv", "--user", "user",
            "--item", "item", "--rating", "rating", "--timestamp", "timestamp", "--split",
            "time-cut", "--time-cuts", f"{C1},{C2},{C3}", "--min-history", "2", "--negatives",
            "2", "--features", "user,item", "--labels", "halfstar", "--duplicates", how,
            "--out", "out", "--no-svmlight")
    assert r.status == 0, r.err
    hist = BASE[BASE.timestamp < C1]
    for name in ("train", "vali", "test"):
        p = pd.read_parquet(sorted((tmp_path / "out").rglob(f"*{name}*.parquet"))[0])
        assert (p.item_count[p.item == 77] == 0).all()
        assert (p.user_count[p.user == 2] == (hist.user == 2).sum()).all()
        rows = p[(p.user == 2) & (p.item == 77)]
        assert (len(rows), set(rows.label)) == ((1, {label}) if name == "test" else (0, set()))


def test_dask_time_cut_conversion_with_future_users_and_tags_equals_the_local_one(
        tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    from distributed import Client

    from bench.adapters.distributed import convert_distributed
    from bench.data.dask_ratings import read_ratings_frame

    frame = _add(BASE, [*FUTURE_USERS, (2, 60, 4.0, C1), (4, 60, 2.0, C2), (6, 60, 5.0, C3),
                        (8, 61, 3.0, C1 - 1)])  # at the cuts, and just before
    folder = tmp_path / "ml"
    folder.mkdir()
    frame.rename(columns={"user": "userId", "item": "movieId"}).to_csv(folder / "ratings.csv",
                                                                      index=False)
    tags = pd.DataFrame({"userId": [999, 999, 6], "movieId": [TAGGED, TAGGED, TAGGED],
                         "tag": ["a", "b", "c"], "timestamp": [C1 - 5, C3 + 5, C1 - 9]})
    tags.to_csv(folder / "tags.csv", index=False)
    cfg = replace(CUTS, feature_groups=("user", "item", "svd", "similarity", "tags"))
    local = _conv(frame, cfg, tags.rename(columns={"userId": "user", "movieId": "item"}))
    assert _tag_count(local, TAGGED) == 2
    with Client(processes=False, n_workers=1, threads_per_worker=1,
                dashboard_address=None) as client:
        convert_distributed(read_ratings_frame(folder), tmp_path / "out", cfg, client,
                            rows_per_block=25)
    for name, d in local.splits().items():
        files = sorted((tmp_path / "out" / name).glob("part-*.parquet"))
        df = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
        np.testing.assert_array_equal(df[list(d.feature_names)].to_numpy(np.float32), d.X)
        np.testing.assert_array_equal(df["qid"].to_numpy(), d.qid)
        np.testing.assert_array_equal(df["item"].to_numpy(), d.item)
