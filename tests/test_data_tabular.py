"""The generic ratings-table loader: column mapping, implicit feedback, errors, duplicates."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.data.tabular import load_ratings_table
from bench.errors import ConfigError, DataError


def test_csv_with_column_mapping(tmp_path: Path) -> None:
    f = tmp_path / "interactions.csv"
    f.write_text("uid,sku,stars,when,extra\n1,10,4.5,100,x\n1,11,3,200,y\n2,10,5,300,z\n")
    r = load_ratings_table(f, user="uid", item="sku", rating="stars", timestamp="when")
    assert r.frame.values.tolist() == [[1, 10, 4.5, 100], [1, 11, 3.0, 200], [2, 10, 5.0, 300]]
    assert r.frame.dtypes.astype(str).tolist() == ["int64", "int64", "float64", "int64"]
    assert not r.implicit
    assert r.sha256 == {"interactions.csv": hashlib.sha256(f.read_bytes()).hexdigest()}
    assert r.users is None
    assert r.items is None


def test_implicit_feedback_gives_rating_one_and_timestamp_zero(tmp_path: Path) -> None:
    f = tmp_path / "clicks.tsv"
    f.write_text("user\titem\n3\t7\n3\t8\n4\t7\n")
    r = load_ratings_table(f, user="user", item="item")
    assert r.implicit
    assert r.frame["rating"].tolist() == [1.0, 1.0, 1.0]
    assert r.frame["timestamp"].tolist() == [0, 0, 0]


def test_parquet_input(tmp_path: Path) -> None:
    f = tmp_path / "r.parquet"
    pd.DataFrame({"u": [1, 2], "i": [5.0, 6.0], "r": [1.5, 2.0], "t": [10, 20]}).to_parquet(f)
    r = load_ratings_table(f, user="u", item="i", rating="r", timestamp="t")
    assert r.frame.values.tolist() == [[1, 5, 1.5, 10], [2, 6, 2.0, 20]]


def test_string_ids_are_numbered_in_order_of_first_appearance(tmp_path: Path) -> None:
    f = tmp_path / "r.csv"
    f.write_text("user,item,rating\nalice,B0001,5\nbob,B0002,3\nalice,B0002,4\n")
    r = load_ratings_table(f, user="user", item="item", rating="rating")
    assert r.frame["user"].tolist() == [0, 1, 0]
    assert r.frame["item"].tolist() == [0, 1, 1]
    assert r.users.to_dict("list") == {"user": [0, 1], "external_id": ["alice", "bob"]}
    assert r.items.to_dict("list") == {"item": [0, 1], "external_id": ["B0001", "B0002"]}


def test_headerless_file_with_positional_columns_and_guessed_separator(tmp_path: Path) -> None:
    f = tmp_path / "ratings.dat"
    f.write_text("1::10::4::100\n2::10::3::200\n")
    r = load_ratings_table(f, user=0, item=1, rating=2, timestamp=3)
    assert r.frame.values.tolist() == [[1, 10, 4.0, 100], [2, 10, 3.0, 200]]


def test_mixing_names_and_positions_is_a_config_error(tmp_path: Path) -> None:
    f = tmp_path / "r.csv"
    f.write_text("user,item\n1,2\n")
    with pytest.raises(ConfigError, match="not a mix"):
        load_ratings_table(f, user="user", item=1)


def test_iso_dates_become_epoch_seconds(tmp_path: Path) -> None:
    f = tmp_path / "r.csv"
    f.write_text("user,item,date\n1,2,1970-01-02T00:00:00Z\n1,3,2000-01-01\n")
    r = load_ratings_table(f, user="user", item="item", timestamp="date")
    assert r.frame["timestamp"].tolist() == [86_400, 946_684_800]


def test_missing_column_error_names_it_and_lists_the_header(tmp_path: Path) -> None:
    f = tmp_path / "r.csv"
    f.write_text("user,item\n1,2\n")
    with pytest.raises(DataError) as info:
        load_ratings_table(f, user="user", item="item", rating="score")
    assert info.value.column == "score"
    assert "['user', 'item']" in str(info.value)


def test_bad_rating_names_line_column_and_value(tmp_path: Path) -> None:
    f = tmp_path / "r.csv"
    f.write_text("user,item,rating\n1,2,4\n1,3,four\n")
    with pytest.raises(DataError) as info:
        load_ratings_table(f, user="user", item="item", rating="rating")
    assert str(info.value) == (f"{f}:3, column 'rating': value 'four' is not a plain decimal "
                               "number (e.g. 2, 0.5, -3 or 1.5e-4; no '_', hex, inf or nan)")


@pytest.mark.parametrize("cell", ["0_3", "0x3", "\u0663"])
def test_lax_python_number_spellings_are_refused(tmp_path: Path, cell: str) -> None:
    f = tmp_path / "r.csv"
    f.write_text(f"user,item,rating\n1,2,4\n1,3,{cell}\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"r\.csv:3, column 'rating': value .* is not a plain"):
        load_ratings_table(f, user="user", item="item", rating="rating")


def test_bad_timestamp_is_reported_at_its_own_line_with_its_own_value(tmp_path: Path) -> None:
    f = tmp_path / "r.csv"
    rows = "".join(f"{u},{u + 10},4,{1000 + u}\n" for u in range(7))
    f.write_text(f"user,item,rating,ts\n{rows}7,17,4,abc\n")  # line 9
    with pytest.raises(DataError, match=r"r\.csv:9, column 'ts': timestamp 'abc' is not a number"):
        load_ratings_table(f, user="user", item="item", rating="rating", timestamp="ts")


def test_timestamp_of_ten_to_the_twenty_is_an_error_not_a_wrapped_date(tmp_path: Path) -> None:
    f = tmp_path / "r.csv"
    f.write_text("user,item,rating,ts\n1,2,4,100\n1,3,4,100000000000000000000\n")
    with pytest.raises(DataError, match=r"r\.csv:3, column 'ts': timestamp .* is not a whole "
                       r"number of seconds within"):
        load_ratings_table(f, user="user", item="item", rating="rating", timestamp="ts")


def test_utf8_bom_is_skipped_and_utf16_refused(tmp_path: Path) -> None:
    f = tmp_path / "r.csv"
    f.write_bytes(b"\xef\xbb\xbfuser,item,rating\n1,2,4\n1,3,5\n")
    r = load_ratings_table(f, user="user", item="item", rating="rating")
    assert r.frame["rating"].tolist() == [4.0, 5.0]
    f.write_bytes("user,item,rating\n1,2,4\n".encode("utf-16"))
    with pytest.raises(DataError, match=r"r\.csv:1: the file is UTF-16"):
        load_ratings_table(f, user="user", item="item", rating="rating")


def test_integer_ids_beyond_int64_are_kept_as_text_ids_not_wrapped(tmp_path: Path) -> None:
    f = tmp_path / "r.csv"
    f.write_text("user,item,rating\n1,2,4\n1,10000000000000000000,5\n")
    r = load_ratings_table(f, user="user", item="item", rating="rating")
    assert r.frame["item"].tolist() == [0, 1]
    assert r.items is not None
    assert r.items["external_id"].astype(str).tolist() == ["2", "10000000000000000000"]


def test_empty_cell_is_a_missing_value_error(tmp_path: Path) -> None:
    f = tmp_path / "r.csv"
    f.write_text("user,item,rating\n1,2,4\n,3,5\n")
    with pytest.raises(DataError, match=r"r\.csv:3, column 'user': missing value"):
        load_ratings_table(f, user="user", item="item", rating="rating")


def test_fractional_timestamp_is_an_error(tmp_path: Path) -> None:
    f = tmp_path / "r.csv"
    f.write_text("user,item,t\n1,2,10.5\n")
    with pytest.raises(DataError, match="not a whole number of seconds"):
        load_ratings_table(f, user="user", item="item", timestamp="t")


def test_duplicate_pair_is_an_error_by_default_naming_the_line(tmp_path: Path) -> None:
    f = tmp_path / "r.csv"
    f.write_text("user,item,rating\n1,2,4\n1,3,5\n1,2,1\n")
    with pytest.raises(DataError, match=r"r\.csv:4: duplicate \(user=1, item=2\) pair"):
        load_ratings_table(f, user="user", item="item", rating="rating")


def test_unknown_duplicates_option_lists_the_valid_ones(tmp_path: Path) -> None:
    f = tmp_path / "r.csv"
    f.write_text("user,item\n1,2\n")
    with pytest.raises(ConfigError, match="error, last, mean"):
        load_ratings_table(f, user="user", item="item", duplicates="first")


def _slow_dedup(rows: list[tuple[int, int, float, int]], how: str) -> dict[tuple[int, int], tuple]:
    """Per pair: 'last' = largest timestamp (later line on ties); 'mean' = mean rating, max time."""
    out: dict[tuple[int, int], list] = {}
    for u, i, r, t in rows:
        out.setdefault((u, i), []).append((r, t))
    result = {}
    for key, vals in out.items():
        if how == "last":
            best = vals[0]
            for v in vals[1:]:
                if v[1] >= best[1]:
                    best = v
            result[key] = best
        else:
            result[key] = (sum(v[0] for v in vals) / len(vals), max(v[1] for v in vals))
    return result


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rows=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(1, 10),
                            st.integers(0, 5)), min_size=1, max_size=25),
    how=st.sampled_from(["last", "mean"]),
)
def test_duplicates_last_and_mean_match_a_dictionary_implementation(
    tmp_path: Path, rows: list[tuple[int, int, int, int]], how: str
) -> None:
    f = tmp_path / "dups.csv"
    f.write_text("u,i,r,t\n" + "".join(f"{u},{i},{r / 2},{t}\n" for u, i, r, t in rows))
    rat = load_ratings_table(f, user="u", item="i", rating="r", timestamp="t", duplicates=how)
    got = {(u, i): (r, t) for u, i, r, t in rat.frame.itertuples(index=False)}
    expected = _slow_dedup([(u, i, r / 2, t) for u, i, r, t in rows], how)
    assert got.keys() == expected.keys()
    for key, (r, t) in expected.items():
        assert got[key][0] == pytest.approx(r)
        assert got[key][1] == t
    assert not rat.frame.duplicated(["user", "item"]).any()
    assert np.all(np.diff(rat.frame.index) == 1)
