"""ratings_to_letor end to end: the default synthetic set, real MovieLens data, files, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bench.adapters import AdapterConfig, convert, ratings_to_letor
from bench.adapters.labels import grade
from bench.cli import main
from bench.data.ratings import Ratings
from bench.data.svmlight import read_svmlight
from bench.datasets.synthetic import generate_ratings
from bench.errors import DataError

ML_SMALL = Path(__file__).resolve().parents[2] / "shared" / "data" / "ml-latest-small"


@pytest.fixture(scope="module")
def synthetic() -> Ratings:
    return generate_ratings()


@pytest.fixture(scope="module")
def default_splits(synthetic):
    return ratings_to_letor(synthetic)


def test_default_synthetic_gives_one_query_per_user_and_partition(synthetic, default_splits) -> None:
    for d in default_splits.splits().values():
        assert d.n_queries == 600
        assert np.array_equal(d.query_ids, np.arange(1, 601))  # qid = user id, in order
        assert np.all(d.group_sizes == 55)  # 5 targets + 50 negatives
        assert np.array_equal(d.qid, d.user)
        assert d.X.dtype == np.float32
        assert np.isfinite(d.X).all()
        assert set(np.unique(d.y)) <= {0.0, 1.0, 2.0, 3.0, 4.0}
        assert d.summary()["blank_queries"] == 0
    meta = default_splits.meta
    assert meta["features_skipped"] == {}
    assert meta["feature_groups"] == ["user", "item", "genre", "svd", "similarity", "tags"]
    assert meta["adapter"]["negatives"] == 50
    assert default_splits.inputs == synthetic.sha256


def test_labels_are_the_graded_ratings_of_targets_and_zero_for_negatives(synthetic,
                                                                         default_splits) -> None:
    rating = synthetic.frame.set_index(["user", "item"])["rating"]
    for d in default_splits.splits().values():
        pairs = pd.MultiIndex.from_arrays([d.user, d.item])
        r = rating.reindex(pairs).to_numpy()
        assert np.array_equal(d.y, grade(r, "graded"))
        assert (np.isnan(r).sum(), (d.y == 0).sum()) == (600 * 50, 600 * 50)


def test_test_targets_are_each_users_latest_ratings(synthetic, default_splits) -> None:
    f = synthetic.frame.sort_values(["user", "timestamp", "item"])
    latest = f.groupby("user").tail(5)
    d = default_splits.test
    got = pd.DataFrame({"user": d.user, "item": d.item})[d.y > 0]
    assert set(zip(got["user"], got["item"], strict=True)) == set(
        zip(latest["user"], latest["item"], strict=True))


def test_conversion_is_deterministic_and_seeded(synthetic, default_splits) -> None:
    again = ratings_to_letor(synthetic)
    for name, d in default_splits.splits().items():
        assert np.array_equal(d.X, getattr(again, name).X)
        assert np.array_equal(d.item, getattr(again, name).item)
    other = ratings_to_letor(synthetic, AdapterConfig(seed=1))
    assert not np.array_equal(default_splits.test.item, other.test.item)


def test_implicit_feedback_without_timestamps_converts_with_a_random_split() -> None:
    rng = np.random.default_rng(0)
    f = pd.DataFrame({"user": np.repeat(np.arange(50), 30),
                      "item": np.concatenate([rng.choice(300, 30, replace=False)
                                              for _ in range(50)]),
                      "rating": 1.0, "timestamp": 0})
    s = ratings_to_letor(Ratings(frame=f, implicit=True, source="implicit"),
                         AdapterConfig(split="random", target_size=0.1))
    assert s.meta["features_skipped"] == {"genre": "no item genres in the data",
                                          "tags": "no tags table in the data"}
    for d in s.splits().values():
        assert set(np.unique(d.y)) == {0.0, 1.0}
        assert np.all(np.diff(d.offsets) == 53)  # ceil(0.1 * 30) = 3 targets + 50 negatives


def test_a_partition_without_queries_is_a_data_error_saying_why() -> None:
    r = generate_ratings(n_users=20, n_items=400, n_ratings=400, seed=0)  # 20 ratings each
    with pytest.raises(DataError, match="the train partition has no queries"):
        ratings_to_letor(r, AdapterConfig(target_size=7))


# --------------------------------------------------------------------------- real data


@pytest.fixture(scope="module")
def ml_small() -> Ratings:
    if not (ML_SMALL / "ratings.csv").is_file():
        pytest.skip(f"{ML_SMALL} is absent")
    frame = pd.read_csv(ML_SMALL / "ratings.csv").rename(
        columns={"userId": "user", "movieId": "item"})
    movies = pd.read_csv(ML_SMALL / "movies.csv")
    items = pd.DataFrame({
        "item": movies["movieId"],
        "title": movies["title"],
        "year": movies["title"].str.extract(r"\((\d{4})\)\s*$")[0].astype("Int64"),
        "genres": movies["genres"].map(lambda g: tuple(g.split("|"))),
    })
    tags = pd.read_csv(ML_SMALL / "tags.csv").rename(columns={"userId": "user",
                                                              "movieId": "item"})
    return Ratings(frame=frame, items=items, tags=tags, source="ml-latest-small")


def test_ml_latest_small_converts_without_leakage(ml_small) -> None:
    s = ratings_to_letor(ml_small)
    f = ml_small.frame
    rated = set(zip(f["user"], f["item"], strict=True))
    role: dict[tuple[int, int], str] = {}
    for name, d in s.splits().items():
        assert d.n_queries == 610  # every user has >= 20 ratings: 15 targets + 5 history
        assert np.isfinite(d.X).all()
        neg = d.y == 0
        assert not any((u, i) in rated for u, i in zip(d.user[neg], d.item[neg], strict=True))
        for u, i in zip(d.user[~neg], d.item[~neg], strict=True):
            role[(int(u), int(i))] = name
    assert len(role) == 610 * 15
    assert set(role) <= rated
    # per user: history <= train targets <= validation targets <= test targets in time
    f = f.assign(role=[role.get((u, i), "history") for u, i in zip(f["user"], f["item"],
                                                                   strict=True)])
    span = f.groupby(["user", "role"])["timestamp"].agg(["min", "max"]).unstack()
    for earlier, later in (("history", "train"), ("train", "vali"), ("vali", "test")):
        assert (span["max"][earlier] <= span["min"][later]).all()
    assert s.meta["features_skipped"] == {}
    assert "genre_share" in s.train.feature_names
    assert "tag_item_count" in s.train.feature_names


def test_ml_latest_small_time_cut_targets_follow_global_time(ml_small) -> None:
    s = ratings_to_letor(ml_small, AdapterConfig(split="time-cut"))
    c1, c2, c3 = s.meta["time_cuts"]
    ts = ml_small.frame.set_index(["user", "item"])["timestamp"]
    for name, (lo, hi) in {"train": (c1, c2), "vali": (c2, c3), "test": (c3, None)}.items():
        d = getattr(s, name)
        pos = d.y > 0
        t = ts.reindex(pd.MultiIndex.from_arrays([d.user[pos], d.item[pos]])).to_numpy()
        assert d.n_queries > 0
        assert (t >= lo).all()
        assert (hi is None or (t < hi).all())


# --------------------------------------------------------------------------- files and CLI


def test_convert_writes_svmlight_query_and_parquet_that_read_back(tmp_path) -> None:
    small = generate_ratings(n_users=60, n_items=600, n_ratings=3000, seed=4)
    summary = convert(small, tmp_path, AdapterConfig(negatives=10))
    for name in ("train", "vali", "test"):
        assert (tmp_path / f"{name}.txt.query").is_file()
        back = read_svmlight(tmp_path / f"{name}.txt")
        d = ratings_to_letor(small, AdapterConfig(negatives=10)).splits()[name]
        np.testing.assert_allclose(back.X, d.X, rtol=1e-6)
        assert np.array_equal(back.y, d.y)
        assert np.array_equal(back.qid, d.qid)
        from bench.data.parquet import read_parquet

        pq = read_parquet(tmp_path / f"{name}.parquet")
        assert np.array_equal(pq.X, d.X)
        assert np.array_equal(pq.item, d.item)
        assert pq.feature_names == d.feature_names
        part = summary["partitions"][name]
        assert part["queries"] == d.n_queries
        assert part["rows"] == d.n_rows
        assert sum(part["labels"].values()) == d.n_rows
    on_disk = json.loads((tmp_path / "summary.json").read_text())
    assert on_disk["feature_names"] == summary["feature_names"]


def test_cli_convert_synthetic_prints_the_summary(tmp_path, capsys) -> None:
    rc = main(["convert", "--ratings", "synthetic", "--synthetic-users", "50",
               "--synthetic-items", "500", "--synthetic-ratings", "2500", "--negatives", "20",
               "--no-parquet", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 0
    assert "train" in out
    assert "blank" in out
    assert "sim_cosine_max" in out
    assert (tmp_path / "test.txt").is_file()
    assert not (tmp_path / "test.parquet").exists()


def test_cli_convert_csv_with_column_mapping(tmp_path, capsys) -> None:
    r = generate_ratings(n_users=40, n_items=400, n_ratings=2000, seed=5).frame
    path = tmp_path / "r.csv"
    r.rename(columns={"user": "uid", "item": "iid", "rating": "stars", "timestamp": "ts"}).to_csv(
        path, index=False)
    rc = main(["convert", "--ratings", str(path), "--layout", "csv", "--user", "uid",
               "--item", "iid", "--rating", "stars", "--timestamp", "ts", "--split", "random",
               "--target-size", "0.1", "--labels", "binary", "--out", str(tmp_path / "out")])
    assert rc == 0
    s = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert s["adapter"]["split"] == "random"
    assert set(s["partitions"]["test"]["labels"]) <= {"0", "1"}


def test_cli_convert_csv_without_columns_is_an_error_naming_the_options(tmp_path, capsys) -> None:
    rc = main(["convert", "--ratings", str(tmp_path / "x.csv"), "--layout", "csv",
               "--out", str(tmp_path)])
    assert rc == 2
    assert "--user and --item" in capsys.readouterr().err


def test_cli_convert_removed_format_option_is_an_error_naming_layout(tmp_path, capsys) -> None:
    rc = main(["convert", "--ratings", str(tmp_path / "x.csv"), "--format", "csv",
               "--out", str(tmp_path / "out")])
    assert rc == 2
    err = capsys.readouterr().err
    assert "--format was removed" in err
    assert "--layout csv" in err
    assert "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_cli_convert_movielens_folder(tmp_path, capsys) -> None:
    if not (ML_SMALL / "ratings.csv").is_file():
        pytest.skip(f"{ML_SMALL} is absent")
    rc = main(["convert", "--ratings", str(ML_SMALL), "--negatives", "10", "--no-parquet",
               "--out", str(tmp_path)])
    assert rc == 0
    assert json.loads((tmp_path / "summary.json").read_text())["partitions"]["test"]["queries"] == 610


def test_perf_adapters_runs_at_a_small_size(capsys) -> None:
    rc = main(["perf", "adapters", "--ratings", "20000", "--users", "100", "--items", "2000"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "ratings/s" in out
    assert "peak RSS" in out
    assert "similarity" in out
