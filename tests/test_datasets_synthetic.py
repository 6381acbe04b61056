"""The embedded synthetic MovieLens-like generator: determinism, sizes, distributions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.datasets.synthetic import (
    FIRST_TIMESTAMP,
    GENRES,
    LAST_TIMESTAMP,
    MIN_RATINGS_PER_USER,
    RATING_DISTRIBUTION,
    generate_ratings,
)
from bench.errors import ConfigError


@pytest.fixture(scope="module")
def default():
    return generate_ratings()


def test_same_seed_gives_the_same_tables_bit_for_bit(default) -> None:
    again = generate_ratings()
    pd.testing.assert_frame_equal(default.frame, again.frame)
    pd.testing.assert_frame_equal(default.items, again.items)
    pd.testing.assert_frame_equal(default.tags, again.tags)
    assert default.sha256 == again.sha256


def test_another_seed_gives_another_table(default) -> None:
    other = generate_ratings(seed=1)
    assert not default.frame["item"].equals(other.frame["item"])
    assert default.sha256 != other.sha256


def test_default_size_is_600_users_100k_distinct_pairs(default) -> None:
    f = default.frame
    assert len(f) == 100_000
    assert f["user"].nunique() == 600
    assert set(f["user"]) == set(range(1, 601))
    assert f["item"].between(1, 9000).all()
    assert not f.duplicated(["user", "item"]).any()
    assert [str(t) for t in f.dtypes] == ["int64", "int64", "float64", "int64"]


def test_rows_are_sorted_by_user_then_item(default) -> None:
    f = default.frame
    key = f["user"].to_numpy() * 10_000 + f["item"].to_numpy()
    assert np.all(np.diff(key) > 0)


def test_every_user_has_at_least_20_ratings_like_movielens(default) -> None:
    counts = default.frame.groupby("user").size()
    assert counts.min() == MIN_RATINGS_PER_USER


def test_ratings_are_half_stars_with_the_movielens_distribution(default) -> None:
    r = default.frame["rating"]
    values = [v for v, _ in RATING_DISTRIBUTION]
    assert set(r.unique()) <= set(values)
    share = r.value_counts(normalize=True)
    assert share.idxmax() == 4.0  # mode 4.0
    assert abs(r.mean() - 3.5) < 0.05
    for v, target in RATING_DISTRIBUTION:
        assert abs(share.get(v, 0.0) - target) < 0.005, v


def test_user_activity_and_item_popularity_are_long_tailed(default) -> None:
    users = default.frame.groupby("user").size()
    items = default.frame.groupby("item").size()
    assert users.max() > 10 * users.median()
    assert users.mean() > 1.5 * users.median()
    assert items.max() > 20 * items.median()
    top = items.sort_values(ascending=False)
    assert top.iloc[: len(top) // 10].sum() > 0.4 * len(default.frame)  # top 10% items: >40%


def test_items_frame_has_titles_years_and_sorted_movielens_genres(default) -> None:
    items = default.items
    assert list(items.columns) == ["item", "title", "year", "genres"]
    assert items["item"].tolist() == list(range(1, 9001))
    names = {g for g, _ in GENRES}
    for genres in items["genres"].head(500):
        assert isinstance(genres, tuple)
        assert 1 <= len(genres) <= 5
        assert list(genres) == sorted(genres)
        assert set(genres) <= names
    assert items["year"].between(1902, 2019).all()
    assert items["title"].iloc[0].endswith(f"({items['year'].iloc[0]})")


def test_timestamps_lie_in_the_movielens_period_after_release(default) -> None:
    f = default.frame.merge(default.items[["item", "year"]], on="item")
    assert f["timestamp"].between(FIRST_TIMESTAMP, LAST_TIMESTAMP).all()
    rated_year = pd.to_datetime(f["timestamp"], unit="s").dt.year
    # rated no earlier than the release year (day-level slack for the year arithmetic)
    assert (rated_year >= f["year"].astype(int) - 1).all()


def test_users_rate_within_their_window_many_in_one_sitting(default) -> None:
    span_days = default.frame.groupby("user")["timestamp"].agg(lambda t: (t.max() - t.min()) / 86400)
    assert 0.4 < (span_days < 1).mean() < 0.8  # ml-latest-small: 59% within a day


def test_tags_belong_to_rated_pairs_and_follow_the_rating(default) -> None:
    tags = default.tags
    assert list(tags.columns) == ["user", "item", "tag", "timestamp"]
    assert 0 < len(tags) < 0.05 * len(default.frame)
    m = tags.merge(default.frame, on=["user", "item"], suffixes=("", "_rating"))
    assert len(m) == len(tags)
    assert (m["timestamp"] > m["timestamp_rating"]).all()
    assert not tags.duplicated(["user", "item", "tag"]).any()


def test_genre_taste_makes_users_concentrate_on_few_genres(default) -> None:
    f = default.frame.merge(default.items[["item", "genres"]], on="item")
    first = f["genres"].map(lambda g: g[0])
    share = first.groupby(f["user"]).agg(lambda s: s.value_counts(normalize=True).iloc[0])
    overall = first.value_counts(normalize=True).iloc[0]
    assert share.median() > overall  # users' top genre is over-represented vs the catalogue


def test_a_million_ratings_keep_every_invariant() -> None:
    r = generate_ratings(n_users=6_000, n_items=20_000, n_ratings=1_000_000, seed=3)
    f = r.frame
    assert len(f) == 1_000_000
    assert f["user"].nunique() == 6_000
    assert f.groupby("user").size().min() == 20
    assert not f.duplicated(["user", "item"]).any()
    assert abs(f["rating"].mean() - 3.5) < 0.02


@settings(max_examples=25, deadline=None)
@given(
    n_users=st.integers(1, 30),
    n_items=st.integers(8, 300),
    per_user=st.integers(1, 40),
    seed=st.integers(0, 2**16),
)
def test_any_feasible_size_is_met_exactly(n_users: int, n_items: int, per_user: int,
                                          seed: int) -> None:
    n_ratings = min(n_users * per_user, n_users * (n_items // 4))
    if n_ratings < n_users:
        return
    r = generate_ratings(n_users=n_users, n_items=n_items, n_ratings=n_ratings, seed=seed)
    f = r.frame
    assert len(f) == n_ratings
    assert f["user"].nunique() == n_users
    assert f.groupby("user").size().min() >= min(20, n_ratings // n_users)
    assert not f.duplicated(["user", "item"]).any()
    assert f["item"].between(1, n_items).all()


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"n_users": 10, "n_ratings": 5}, "every user needs at least one rating"),
        ({"n_users": 10, "n_items": 20, "n_ratings": 100}, "more than 10 users can rate"),
        ({"n_users": 0}, "positive integer"),
    ],
)
def test_impossible_sizes_are_config_errors(kw: dict[str, int], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        generate_ratings(**kw)
