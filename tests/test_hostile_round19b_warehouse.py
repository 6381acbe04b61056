"""Round 19b: a recommender engineer converting ratings exported from a data warehouse.

BigQuery, Snowflake and Spark exports, read by the local engine (``ltrbench convert --ratings
FILE`` and :func:`bench.data.tabular.load_ratings_table`): timestamps in the text forms those
tools write (BigQuery's ``2024-03-10 10:00:00 UTC``, Snowflake's ``... -0800``, Spark's
``...000Z``), DST changes, dates before 1970 and after 2262, epoch numbers in micro- and
nanoseconds, NUMERIC ratings, NULL spellings, UUID and DECIMAL(38,0) ids, JSON-lines files,
Hive-partitioned Parquet folders, the index and nested columns pandas, Dask and Spark leave in a
Parquet file, and which of two events of one pair wins.

Oracles: UTC seconds worked out by hand (``date -u -d ... +%s``: 2024-03-10 10:00:00 UTC is
1710064800; 2024-11-03 01:30-07:00 is 08:30Z = 1730622600, 01:10-08:00 is 09:10Z =
1730625000; 0001-01-01 is -62135596800, 9999-12-31 23:59:59 is 253402300799); the README's
graded labels (rating < 3 -> 1, [3, 4) -> 2, [4, 5) -> 3, 5 -> 4) and temporal split (each
user's latest ``target_size`` ratings are the test targets) applied by hand.

Classes in each test's comment: traceback / silently wrong number / input destroyed / silent
accept / unclear error.
"""

from __future__ import annotations

import decimal
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hostile_kit import cli

from bench.adapters import AdapterConfig, ratings_to_letor
from bench.data.letor import LetorSplits
from bench.data.ratings import Ratings
from bench.data.tabular import load_ratings_table
from bench.datasets.ratings_source import RatingsSource, read_ratings
from bench.errors import DataError

COLS = {"user": "user", "item": "item", "rating": "rating", "timestamp": "ts"}
HEAD = "user,item,rating,ts\n"
D = decimal.Decimal


def put(tmp: Path, name: str, data: str | bytes | pa.Table) -> Path:
    p = tmp / name
    if isinstance(data, pa.Table):
        pq.write_table(data, p)
    else:
        p.write_bytes(data.encode() if isinstance(data, str) else data)
    return p


def load(p: Path, **kw: Any) -> Ratings:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_ratings_table(p, **{**COLS, **kw})


def refused(p: Path, *words: str, **kw: Any) -> str:
    with pytest.raises(DataError) as info:
        load(p, **kw)
    msg = str(info.value)
    for w in words:
        assert w in msg, (w, msg)
    return msg


def stamps(p: Path, **kw: Any) -> list[int]:
    return load(p, **kw).frame["timestamp"].tolist()


def table(**cols: Any) -> pa.Table:
    base: dict[str, Any] = {"user": [1, 1], "item": [1, 2], "rating": [3.0, 4.0], "ts": [1, 2]}
    return pa.table({**base, **cols})


def letor(r: Ratings, **kw: Any) -> LetorSplits:
    cfg = AdapterConfig(**{"target_size": 1, "min_history": 2, "negatives": 2,
                           "feature_groups": ("user", "item"), "svd_factors": 2, **kw})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ratings_to_letor(r, cfg)


def targets(out: LetorSplits, split: str) -> dict[tuple[int, int], int]:
    d = out.splits()[split]
    return {(int(u), int(i)): int(y) for u, i, y in zip(d.user, d.item, d.y, strict=True)
            if y > 0}


# --- text timestamps as warehouses write them --------------------------------------------

def test_bigquery_utc_suffix_dates_are_utc_seconds(tmp_path: Path) -> None:
    # unclear error: refused as "ambiguous: 2024-10-03 read day first" (a year-first date)
    p = put(tmp_path, "bq.csv", HEAD + "1,1,4,2024-03-10 10:00:00 UTC\n"
            "1,2,3,2024-03-10 11:00:00 UTC\n")
    assert stamps(p) == [1710064800, 1710068400]


def test_bigquery_microsecond_utc_dates_are_floored_to_their_second(tmp_path: Path) -> None:
    # unclear error: the same refusal for BigQuery's default TIMESTAMP export with fractions
    p = put(tmp_path, "bq.csv", HEAD + "1,1,4,2024-03-10 10:00:00.999999 UTC\n"
            "1,2,3,2024-03-10 10:00:01.000001 UTC\n")
    assert stamps(p) == [1710064800, 1710064801]


def test_a_gmt_suffix_is_utc(tmp_path: Path) -> None:
    # unclear error: GMT refused as an ambiguous day and month
    p = put(tmp_path, "g.csv", HEAD + "1,1,4,2024-03-10 10:00:00 GMT\n1,2,3,2024-03-11 10:00:00 GMT\n")
    assert stamps(p) == [1710064800, 1710151200]


def test_a_zone_abbreviation_is_refused_naming_the_zone_and_the_line(tmp_path: Path) -> None:
    # unclear error: "neither seconds since the epoch nor a date/time" for a date with 'EST'
    p = put(tmp_path, "e.csv", HEAD + "1,1,4,2024-03-10T10:00:00Z\n1,2,3,2024-03-10 10:00:00 EST\n")
    msg = refused(p, "e.csv:3", "'ts'", "'EST'")
    assert "offset" in msg, msg
    assert "neither" not in msg, msg


def test_an_iana_zone_name_in_a_date_is_refused_naming_the_line(tmp_path: Path) -> None:
    # silent accept guard: a wall time in a named zone is no one instant across a DST change
    p = put(tmp_path, "z.csv", HEAD + "1,1,4,2024-03-10T02:30:00 America/Los_Angeles\n")
    refused(p, "z.csv:2", "'ts'")


def test_a_utc_suffix_after_a_month_first_date_is_still_refused_as_ambiguous(tmp_path: Path) -> None:
    # silent accept guard for the fix: 03/10/2024 stays refused, UTC or not
    p = put(tmp_path, "m.csv", HEAD + "1,1,4,03/10/2024 10:00:00 UTC\n")
    refused(p, "m.csv:2", "ambiguous")


def test_snowflake_offsets_without_a_colon_are_utc_seconds(tmp_path: Path) -> None:
    # silently wrong number guard: -0800 is 8 hours behind UTC
    p = put(tmp_path, "s.csv", HEAD + "1,1,4,2024-03-10 10:00:00.000 -0800\n"
            "1,2,3,2024-03-10 10:00:00.000 +0530\n")
    assert stamps(p) == [1710064800 + 8 * 3600, 1710064800 - 5 * 3600 - 1800]


def test_spark_iso_dates_with_millis_and_z_are_utc_seconds(tmp_path: Path) -> None:
    p = put(tmp_path, "k.csv", HEAD + "1,1,4,2024-03-10T10:00:00.000Z\n"
            "1,2,3,2024-03-10T10:00:01.500+00:00\n")
    assert stamps(p) == [1710064800, 1710064801]


def test_the_repeated_dst_hour_is_ordered_by_its_offsets(tmp_path: Path) -> None:
    # silently wrong number guard: 01:10-08:00 is 40 minutes after 01:30-07:00
    p = put(tmp_path, "d.csv", HEAD + "1,1,4,2024-11-03T01:30:00-07:00\n"
            "1,2,3,2024-11-03T01:10:00-08:00\n")
    assert stamps(p) == [1730622600, 1730625000]


def test_bigquery_min_and_max_timestamps_are_read_beyond_pandas_nanosecond_range(
        tmp_path: Path) -> None:
    # silently wrong number guard: pandas' ns dates end at 2262 and start at 1677
    p = put(tmp_path, "x.csv", HEAD + "1,1,4,0001-01-01 00:00:00 UTC\n"
            "1,2,3,9999-12-31 23:59:59.999999 UTC\n")
    assert stamps(p) == [-62135596800, 253402300799]


def test_the_latest_utc_instant_is_the_test_target_across_the_dst_change(tmp_path: Path) -> None:
    # silently wrong number guard: by wall clock 01:10 looks earlier than 01:30
    p = put(tmp_path, "d.csv", HEAD + "".join(
        f"1,{i},{r},{t}\n" for i, r, t in [
            (1, 3, "1969-07-20 20:17:00 UTC"), (2, 4, "2024-01-01T00:00:00Z"),
            (3, 2, "2024-11-03 07:00:00 UTC"), (4, 5, "2024-11-03T01:10:00-08:00"),
            (5, 4.5, "2024-11-03T01:30:00-07:00")]) + "".join(
        f"2,{i},3,2020-01-0{i}T00:00:00Z\n" for i in range(1, 6)))
    out = letor(load(p))
    assert targets(out, "test")[(1, 4)] == 4   # 09:10Z, the latest; rating 5 -> grade 4
    assert targets(out, "vali")[(1, 5)] == 3   # 08:30Z; rating 4.5 -> grade 3
    assert targets(out, "train")[(1, 3)] == 1  # 07:00Z; rating 2 -> grade 1


# --- epoch numbers in other units -------------------------------------------------------

def test_microseconds_since_the_epoch_are_refused_saying_microseconds(tmp_path: Path) -> None:
    # unclear error: only "not a whole number of seconds within +-10^12"
    p = put(tmp_path, "u.csv", HEAD + "1,1,4,1700000000123456\n1,2,3,1700000001000000\n")
    refused(p, "u.csv:2", "microseconds", "1000000")


def test_nanoseconds_since_the_epoch_are_refused_saying_nanoseconds(tmp_path: Path) -> None:
    # unclear error: as above, for Spark's LongType nanoseconds
    p = put(tmp_path, "n.csv", HEAD + "1,1,4,1700000000123456789\n1,2,3,1700000001000000000\n")
    refused(p, "n.csv:2", "nanoseconds")


def test_seconds_then_microseconds_name_the_microsecond_line(tmp_path: Path) -> None:
    # silent accept guard: one column, two units
    p = put(tmp_path, "m.csv", HEAD + "1,1,4,1700000000\n1,2,3,1700000001000000\n")
    refused(p, "m.csv:3", "microseconds")


def test_a_decimal_timestamp_with_nanosecond_fraction_is_refused_at_its_row(tmp_path: Path) -> None:
    # silently wrong number guard: NUMERIC(38,9) seconds with a fraction are not floored silently
    t = table(ts=pa.array([D("1700000000.000000000"), D("1700000001.5")], pa.decimal128(38, 9)))
    refused(put(tmp_path, "t.parquet", t), "row 2", "'ts'")


def test_parquet_int64_microseconds_are_refused_at_their_row_saying_microseconds(
        tmp_path: Path) -> None:
    # unclear error: a Spark LongType of microseconds; no unit was said
    t = table(ts=pa.array([1_700_000_000_000_000, 1_700_000_001_000_000], pa.int64()))
    refused(put(tmp_path, "t.parquet", t), "row 1", "'ts'", "microseconds")


# --- Parquet timestamp types ------------------------------------------------------------

def test_nanosecond_parquet_dates_are_floored_seconds(tmp_path: Path) -> None:
    t = table(ts=pa.array([1_700_000_000_999_999_999, 1_700_000_001_000_000_000],
                          pa.timestamp("ns")))
    assert stamps(put(tmp_path, "t.parquet", t)) == [1700000000, 1700000001]


def test_utc_microsecond_and_naive_microsecond_parquet_dates_agree(tmp_path: Path) -> None:
    v = [1_700_000_000_000_000, 1_700_000_001_000_000]
    a = put(tmp_path, "a.parquet", table(ts=pa.array(v, pa.timestamp("us", tz="UTC"))))
    b = put(tmp_path, "b.parquet", table(ts=pa.array(v, pa.timestamp("us"))))
    assert stamps(a) == stamps(b) == [1700000000, 1700000001]


def test_second_parquet_dates_of_year_1_and_9999_are_read_as_written(tmp_path: Path) -> None:
    # silently wrong number guard: beyond pandas' ns range
    t = table(ts=pa.array([-62135596800, 253402300799], pa.timestamp("s")))
    assert stamps(put(tmp_path, "t.parquet", t)) == [-62135596800, 253402300799]


def test_microsecond_parquet_dates_of_1684_and_2286_are_read_as_written(tmp_path: Path) -> None:
    t = table(ts=pa.array([-9_000_000_000_000_000, 10_000_000_000_000_000], pa.timestamp("us")))
    assert stamps(put(tmp_path, "t.parquet", t)) == [-9_000_000_000, 10_000_000_000]


def test_a_null_in_a_tz_aware_nanosecond_column_is_refused_at_its_row(tmp_path: Path) -> None:
    t = table(ts=pa.array([1_700_000_000_000_000_000, None], pa.timestamp("ns", tz="UTC")))
    refused(put(tmp_path, "t.parquet", t), "row 2", "'ts'", "missing")


def test_text_dates_with_offsets_in_a_parquet_string_column_are_one_instant(tmp_path: Path) -> None:
    t = table(ts=["2024-03-10T01:30:00-08:00", "2024-03-10 09:30:00 UTC"])
    assert stamps(put(tmp_path, "t.parquet", t)) == [1710063000, 1710063000]


# --- ratings ------------------------------------------------------------------------------

def test_numeric_38_9_ratings_grade_at_the_documented_edges(tmp_path: Path) -> None:
    # silently wrong number guard: 3.999999999 is below 4 (grade 2), 4.000000000 is 4 (grade 3)
    rs = [D("1.000000000"), D("2.000000000"), D("3.999999999"), D("4.000000000"), D("5.0")]
    rows = pa.table({"user": [1] * 5 + [2] * 5, "item": list(range(1, 11)),
                     "rating": pa.array(rs + rs[::-1], pa.decimal128(38, 9)),
                     "ts": list(range(10))})
    out = letor(load(put(tmp_path, "r.parquet", rows)), target_size=1, min_history=2)
    assert targets(out, "test") == {(1, 5): 4, (2, 10): 1}
    assert targets(out, "vali") == {(1, 4): 3, (2, 9): 1}
    assert targets(out, "train") == {(1, 3): 2, (2, 8): 2}


def test_a_null_decimal_rating_is_refused_at_its_row(tmp_path: Path) -> None:
    t = table(rating=pa.array([D("4"), None], pa.decimal128(38, 9)))
    refused(put(tmp_path, "t.parquet", t), "row 2", "'rating'", "missing")


def test_text_ratings_with_a_trailing_blank_are_their_numbers(tmp_path: Path) -> None:
    t = table(rating=["4.0", "4.5 "])
    assert load(put(tmp_path, "t.parquet", t)).frame["rating"].tolist() == [4.0, 4.5]


def test_a_mysql_null_rating_is_refused_as_a_missing_value(tmp_path: Path) -> None:
    # unclear error: '\\N' was "not a plain decimal number" (README: \N is a dump's NULL)
    p = put(tmp_path, "n.csv", HEAD + "1,1,4,100\n1,2,\\N,200\n")
    msg = refused(p, "n.csv:3", "'rating'")
    assert "missing" in msg, msg
    assert "NULL" in msg, msg


def test_a_null_word_rating_is_refused_as_a_missing_value(tmp_path: Path) -> None:
    # unclear error: a SQL client's NULL
    p = put(tmp_path, "n.csv", HEAD + "1,1,NULL,100\n1,2,3,200\n")
    msg = refused(p, "n.csv:2", "'rating'")
    assert "missing" in msg, msg


def test_a_mysql_null_timestamp_is_refused_as_a_missing_value(tmp_path: Path) -> None:
    # unclear error: "is not a number of seconds ..., as the other cells of the column are"
    p = put(tmp_path, "n.csv", HEAD + "1,1,4,\\N\n1,2,3,200\n")
    msg = refused(p, "n.csv:2", "'ts'")
    assert "missing" in msg, msg


def test_a_struct_rating_is_refused_at_its_row(tmp_path: Path) -> None:
    t = table(rating=[{"value": 4.0}, {"value": 3.0}])
    refused(put(tmp_path, "t.parquet", t), "row 1", "'rating'")


# --- ids ---------------------------------------------------------------------------------

def test_uuid_user_ids_are_numbered_and_map_back(tmp_path: Path) -> None:
    a, b = "3f2504e0-4f89-11d3-9a0c-0305e82c3301", "0b1b4e5c-1111-4a2b-8c3d-000000000001"
    p = put(tmp_path, "u.csv", HEAD + f"{a},1,4,100\n{b},1,3,200\n{a},2,5,300\n")
    r = load(p)
    assert r.users is not None
    back = dict(zip(r.users["user"], r.users["external_id"], strict=True))
    assert [back[u] for u in r.frame["user"]] == [a, b, a]


def test_decimal_38_0_ids_beyond_int64_stay_two_users(tmp_path: Path) -> None:
    # silently wrong number guard: as float64 both are 1.2345678901234568e22
    ids = ["12345678901234567890123", "12345678901234567890124"]
    t = table(user=pa.array([D(i) for i in ids], pa.decimal128(38, 0)), item=[1, 1])
    r = load(put(tmp_path, "t.parquet", t))
    assert r.users is not None
    back = dict(zip(r.users["user"], r.users["external_id"], strict=True))
    assert [back[u] for u in r.frame["user"]] == ids


def test_a_list_user_column_is_refused_at_its_row(tmp_path: Path) -> None:
    t = table(user=[[1], [1]])
    refused(put(tmp_path, "t.parquet", t), "row 1", "'user'")


# --- file forms ---------------------------------------------------------------------------

def test_a_json_lines_table_is_refused_naming_json_lines(tmp_path: Path) -> None:
    # unclear error: "user column 'user' is not in the header; columns are ['{\"user\":1', ...]"
    p = put(tmp_path, "r.jsonl", '{"user":1,"item":1,"rating":3,"ts":100}\n')
    msg = refused(p, "r.jsonl:1", "JSON Lines", "CSV", "Parquet")
    assert "columns are" not in msg, msg


def test_a_json_array_export_is_refused_naming_json(tmp_path: Path) -> None:
    # unclear error: "columns are ['[{\"user\":1', ...]"
    p = put(tmp_path, "r.csv", '[{"user":1,"item":1,"rating":3,"ts":100}]\n')
    msg = refused(p, "r.csv:1", "JSON")
    assert "columns are" not in msg, msg


def test_an_ndjson_table_given_to_convert_names_json_lines(tmp_path: Path) -> None:
    # unclear error: "looks like a JSON document ... a run's manifest.json" (exit 2)
    put(tmp_path, "r.ndjson", '{"user":1,"item":1,"rating":3,"ts":100}\n')
    res = cli(tmp_path, "convert", "--ratings", "r.ndjson", "--layout", "csv", "--user", "user",
              "--item", "item", "--out", "o")
    assert res.status == 2, res
    assert not res.traceback, res
    assert "JSON Lines" in res.err, res.err
    assert "r.ndjson" in res.err, res.err
    assert not (tmp_path / "o" / "train.txt").exists()


def test_a_hive_partitioned_parquet_folder_is_named_as_one(tmp_path: Path) -> None:
    # unclear error: "is a directory: expected a ratings table"
    for day, items in (("2024-01-01", [1, 2]), ("2024-01-02", [3])):
        (tmp_path / "ds" / f"dt={day}").mkdir(parents=True)
        pq.write_table(pa.table({"user": [1] * len(items), "item": items,
                                 "rating": [3.0] * len(items), "ts": items}),
                       tmp_path / "ds" / f"dt={day}" / "part-0.parquet")
    src = RatingsSource(ratings=str(tmp_path / "ds"), layout="csv", user="user", item="item",
                        rating="rating", timestamp="ts")
    with pytest.raises(DataError) as info:
        read_ratings(src, split="temporal")
    msg = str(info.value)
    for word in ("partition", "dt=2024-01-01", "one file"):
        assert word in msg, msg


def test_a_dask_index_column_is_no_role_and_leaves_the_ratings(tmp_path: Path) -> None:
    t = pa.table({"__null_dask_index__": [7, 8], "user": [1, 1], "item": [1, 2],
                  "rating": [3.0, 4.0], "ts": [1, 2]})
    r = load(put(tmp_path, "t.parquet", t))
    assert r.frame.to_dict("list") == {"user": [1, 1], "item": [1, 2], "rating": [3.0, 4.0],
                                       "timestamp": [1, 2]}


def test_a_pandas_index_level_column_is_no_role(tmp_path: Path) -> None:
    df = pd.DataFrame({"user": [1, 1], "item": [1, 2], "rating": [3.0, 4.0], "ts": [1, 2]},
                      index=pd.Index([10, 11]))
    p = tmp_path / "t.parquet"
    df.to_parquet(p)
    assert load(p).frame["item"].tolist() == [1, 2]


def test_nested_columns_beside_the_roles_are_left_alone(tmp_path: Path) -> None:
    t = table(tags=[["a", "b"], []], meta=[{"k": 1}, {"k": 2}])
    assert load(put(tmp_path, "t.parquet", t)).frame["rating"].tolist() == [3.0, 4.0]


def test_a_pascal_case_header_named_as_written_is_read(tmp_path: Path) -> None:
    p = put(tmp_path, "c.csv", "UserId,ItemId,Rating,EventTime\n1,1,4,100\n1,2,3,200\n")
    r = load(p, user="UserId", item="ItemId", rating="Rating", timestamp="EventTime")
    assert r.frame["timestamp"].tolist() == [100, 200]


def test_a_quoted_review_with_line_breaks_keeps_the_next_bad_line_named(tmp_path: Path) -> None:
    # unclear error guard: a record spanning lines 2-4; the bad rating is on file line 5
    p = put(tmp_path, "q.csv", "user,item,rating,ts,review\n"
            '1,1,4,100,"great\nfilm\n!"\n1,2,x,200,"ok"\n')
    refused(p, "q.csv:5", "'rating'")


# --- duplicates ---------------------------------------------------------------------------

def test_duplicates_last_keeps_the_later_utc_instant_not_the_later_wall_clock(
        tmp_path: Path) -> None:
    # silently wrong number guard: 01:10-08:00 (rating 5) is after 01:30-07:00 (rating 2)
    p = put(tmp_path, "d.csv", HEAD + "1,1,5,2024-11-03T01:10:00-08:00\n"
            "1,1,2,2024-11-03T01:30:00-07:00\n1,2,3,2024-11-04T00:00:00Z\n")
    f = load(p, duplicates="last").frame
    assert f.to_dict("list") == {"user": [1, 1], "item": [1, 2], "rating": [5.0, 3.0],
                                 "timestamp": [1730625000, 1730678400]}


def test_duplicates_mean_of_decimal_ratings_grades_the_mean(tmp_path: Path) -> None:
    # silently wrong number guard: (4 + 5) / 2 = 4.5 -> grade 3, time the later one
    t = pa.table({"user": [1] * 5, "item": [1, 2, 3, 4, 4],
                  "rating": pa.array([D(3), D(3), D(3), D(4), D(5)], pa.decimal128(38, 9)),
                  "ts": [1, 2, 3, 4, 9]})
    r = load(put(tmp_path, "t.parquet", t), duplicates="mean")
    assert r.frame.iloc[-1].tolist() == [1, 4, 4.5, 9]
    assert targets(letor(r, min_history=1), "test") == {(1, 4): 3}


def test_a_duplicate_pair_of_a_padded_and_a_plain_id_is_refused_naming_both_spellings(
        tmp_path: Path) -> None:
    # silent accept guard: "7 " and "7" are one user; the repeat is refused at its line
    p = put(tmp_path, "p.csv", HEAD + "7 ,1,4,100\n7,1,3,200\n")
    refused(p, "p.csv:3", "duplicate")


# --- end to end through the command line ------------------------------------------------

def test_convert_of_a_bigquery_export_writes_the_latest_rating_as_the_test_label(
        tmp_path: Path) -> None:
    # unclear error before: the UTC dates were refused as ambiguous
    rows = "".join(f"{u},{i},{r},2024-0{i}-0{u} 10:00:00 UTC\n"
                   for u in (1, 2) for i, r in ((1, 3), (2, 4), (3, 2), (4, 5), (5, 1)))
    put(tmp_path, "bq.csv", HEAD + rows)
    res = cli(tmp_path, "convert", "--ratings", "bq.csv", "--layout", "csv", "--user", "user",
              "--item", "item", "--rating", "rating", "--timestamp", "ts", "--target-size",
              "1", "--min-history", "2", "--negatives", "2", "--features", "user",
              "--no-parquet", "--out", "o")
    assert res.status == 0, res
    lines = (tmp_path / "o" / "test.txt").read_text().splitlines()
    pos = sorted(int(s.split()[0]) for s in lines if s[:1] not in ("0", "#"))
    assert pos == [1, 1]  # item 5 of each user, rating 1 -> grade 1
