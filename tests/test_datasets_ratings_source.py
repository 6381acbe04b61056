"""``bench.datasets.ratings_source``: the reader a ratings input needs, chosen outside the command."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.datasets.ratings_source import RatingsSource, read_ratings
from bench.errors import ConfigError


def _table(tmp_path: Path, rows: str = "u,i,r,t\n1,10,4,5\n1,11,3,6\n2,10,5,7\n") -> Path:
    path = tmp_path / "mine.csv"
    path.write_text(rows, encoding="utf-8")
    return path


def test_column_options_choose_the_table_reader_under_auto(tmp_path: Path) -> None:
    path = _table(tmp_path)
    read = read_ratings(RatingsSource(str(path), user="u", item="i", rating="r", timestamp="t"),
                        split="random")
    assert len(read.ratings.frame) == 3
    assert read.warnings == []


def test_column_options_with_a_movielens_layout_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"--user, --item name the columns of a table"):
        read_ratings(RatingsSource(str(tmp_path), layout="ml-100k", user="u", item="i"),
                     split="random")


def test_a_table_under_auto_without_columns_is_refused_with_the_options_to_give(
        tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"not a MovieLens ratings file .* --user COL --item COL"):
        read_ratings(RatingsSource(str(_table(tmp_path))), split="random")


def test_one_column_named_by_two_options_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"--user and --item both name column '0'"):
        read_ratings(RatingsSource(str(_table(tmp_path)), layout="csv", user="0", item="0"),
                     split="random")


def test_a_temporal_split_of_one_timestamp_warns(tmp_path: Path) -> None:
    path = _table(tmp_path, "u,i,r\n1,10,4\n1,11,3\n2,10,5\n")
    read = read_ratings(RatingsSource(str(path), user="u", item="i", rating="r"),
                        split="temporal")
    assert read.warnings
    assert "every rating has the same timestamp" in read.warnings[0]


def test_synthetic_sizes_out_of_range_are_refused() -> None:
    with pytest.raises(ConfigError, match=r"--synthetic-items 0: expected an integer from 1"):
        read_ratings(RatingsSource("synthetic", synthetic=(5, 0, 10)), split="random")
