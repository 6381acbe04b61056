"""Round 9: ratings inputs that round 8 did not try (the ratings adapters' readers).

Before this round:

- a MovieLens folder whose ``tags.csv`` / ``tags.dat`` held milliseconds beside a ratings file
  in seconds (or the reverse) was read as one unit across the two files: a tag counts as
  history when it was written before its author's first target rating
  (:mod:`bench.adapters.tags`), so tags in seconds beside ratings in milliseconds were *all*
  history (tags written after the test rating leaked into the features) and tags in
  milliseconds were all "future" (no tag feature at all), exit 0 either way. Now refused naming
  both files and rows (:func:`bench.data.ratings.refuse_mixed_units_across`);
- milliseconds before 1970 (negative) beside seconds were not caught (only values >= 10^11);
- in a ratings table, ``7`` and ``7.0`` (or ``07``) were one item in a column of numbers but two
  items as soon as one other cell of the column was text (``a``): an unrelated row changed which
  ratings are one (user, item) pair. Now numbers are compared by value in every id column.

The other cases were already right and are kept as guards.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bench.cli import main
from bench.data.movielens import load_movielens
from bench.data.tabular import load_ratings_table
from bench.errors import DataError

S, MS = 978300760, 978300760000  # the same instant of 2000, in seconds and milliseconds


def _csv_folder(tmp: Path, ratings_ts: int, tags_ts: tuple[int, ...]) -> Path:
    folder = tmp / "ml"
    folder.mkdir()
    (folder / "ratings.csv").write_text(
        "userId,movieId,rating,timestamp\n"
        + "".join(f"{u},{i},4.0,{ratings_ts + 10 * i}\n" for u in (1, 2) for i in range(1, 7)))
    (folder / "tags.csv").write_text(
        "userId,movieId,tag,timestamp\n"
        + "".join(f"1,{k + 1},good,{t}\n" for k, t in enumerate(tags_ts)))
    return folder


def test_tags_in_milliseconds_beside_ratings_in_seconds_are_refused(tmp_path: Path) -> None:
    folder = _csv_folder(tmp_path, S, (MS, MS + 5000))
    with pytest.raises(DataError, match=r"tags.csv, row 1, column 'timestamp': timestamp "
                                        rf"{MS} .*\(.*ratings.csv, row 1\): milliseconds beside "
                                        r"seconds"):
        load_movielens(folder)


def test_ratings_in_milliseconds_beside_tags_in_seconds_are_refused(tmp_path: Path) -> None:
    folder = _csv_folder(tmp_path, MS, (S + 20, S + 30))
    with pytest.raises(DataError, match=rf"ratings.csv, row 1, .*timestamp {MS + 10} .*"
                                        r"tags.csv, row 1\): milliseconds beside seconds"):
        load_movielens(folder)


def test_tags_mixing_units_within_their_own_file_are_refused(tmp_path: Path) -> None:
    folder = _csv_folder(tmp_path, S, (S + 5, MS))
    with pytest.raises(DataError, match=r"tags.csv, row 2, .*milliseconds beside seconds"):
        load_movielens(folder)


def test_ml10m_tags_dat_in_milliseconds_are_refused(tmp_path: Path) -> None:
    folder = tmp_path / "ml"
    folder.mkdir()
    (folder / "ratings.dat").write_text("".join(f"1::{i}::4::{S + i}\n" for i in range(1, 5)))
    (folder / "tags.dat").write_text(f"1::2::funny::{MS}\n")
    with pytest.raises(DataError, match=r"tags.dat, row 1, .*ratings.dat, row 1"):
        load_movielens(folder, layout="ml-10m")


@pytest.mark.parametrize(("ratings_ts", "tags_ts"), [(S, (S + 5, S + 70)), (MS, (MS + 5,))],
                         ids=["seconds", "milliseconds"])
def test_one_unit_in_both_files_is_read(tmp_path: Path, ratings_ts: int,
                                        tags_ts: tuple[int, ...]) -> None:
    r = load_movielens(_csv_folder(tmp_path, ratings_ts, tags_ts))
    assert r.tags is not None
    assert r.tags["timestamp"].tolist() == list(tags_ts)


def test_convert_refuses_the_two_units_in_one_line(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    folder = _csv_folder(tmp_path, MS, (S + 20,))
    out = tmp_path / "out"
    assert main(["convert", "--ratings", str(folder), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "tags.csv" in err
    assert "ratings.csv" in err
    assert not out.exists() or not any(out.iterdir())


def _table(tmp: Path, rows: str, name: str = "r.csv") -> pd.DataFrame:
    p = tmp / name
    p.write_text("user,item,rating,ts\n" + rows)
    return load_ratings_table(p, user="user", item="item", rating="rating", timestamp="ts").frame


def test_negative_milliseconds_beside_seconds_are_refused(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=rf"r.csv:2, column 'ts': timestamp -{MS} .*line 3"):
        _table(tmp_path, f"1,10,4,-{MS}\n1,11,2,{S}\n")


@pytest.mark.parametrize("spellings", [("7", "7.0"), ("7", "07"), ("7", "+7"), ("7", "7e0")])
def test_numeric_spellings_of_one_item_are_one_item_beside_text_items(
        tmp_path: Path, spellings: tuple[str, str]) -> None:
    a, b = spellings
    with pytest.raises(DataError, match=r"r.csv:4: duplicate \(user=u, item="):
        _table(tmp_path, f"u,a,3,99\nu,{a},4,100\nu,{b},2,101\n")


def test_the_same_spellings_in_a_parquet_text_column_are_one_item(tmp_path: Path) -> None:
    p = tmp_path / "r.parquet"
    pq.write_table(pa.table({"user": ["u", "u", "u"], "item": ["a", "007", "7"],
                             "rating": [3.0, 4.0, 2.0], "ts": [99, 100, 101]}), p)
    with pytest.raises(DataError, match=r"r.parquet, row 3: duplicate \(user=u, item=7\)"):
        load_ratings_table(p, user="user", item="item", rating="rating", timestamp="ts")


def test_text_items_that_differ_stay_apart(tmp_path: Path) -> None:
    f = _table(tmp_path, "u,a,3,99\nu,A,4,100\nu,7,2,101\nu,7.5,2,102\nu,a ,5,103\n"
               .replace("a ,5", "b,5"))
    assert f["item"].nunique() == 5


def test_duplicates_mean_merges_numeric_spellings_beside_text(tmp_path: Path) -> None:
    p = tmp_path / "r.csv"
    p.write_text("user,item,rating,ts\nu,a,3,99\nu,7,4,100\nu,7.0,2,101\n")
    f = load_ratings_table(p, user="user", item="item", rating="rating", timestamp="ts",
                           duplicates="mean").frame
    assert sorted(f["rating"].tolist()) == [3.0, 3.0]  # (4 + 2) / 2 for item 7
    assert f["timestamp"].max() == 101


def test_the_side_table_reader_of_streamed_ratings_refuses_tags_mixing_units(
        tmp_path: Path) -> None:
    """``read_side_tables`` (the readers that stream the ratings themselves, Dask's) checks
    tags.csv's own unit; its ratings are compared by the streaming reader."""
    from bench.data.movielens import read_side_tables

    folder = _csv_folder(tmp_path, S, (S + 5, MS))
    with pytest.raises(DataError, match=r"tags.csv, row 2, column 'timestamp': timestamp "
                                        rf"{MS} .*\(row 1\): milliseconds beside seconds"):
        read_side_tables(folder)


# ----------------------------------------------------------------- a Ratings frame (Python API)
def _ratings(**columns: object) -> object:
    from bench.data.ratings import Ratings

    base: dict[str, object] = {"user": np.array([1, 1, 2]), "item": np.array([10, 11, 10]),
                               "rating": np.array([4.0, 2.0, 5.0]),
                               "timestamp": np.array([100, 101, 102])}
    return Ratings(frame=pd.DataFrame({**base, **columns}))


@pytest.mark.parametrize(("column", "values", "said"), [
    ("timestamp", [S, MS, S + 1], r"row 2, column 'timestamp': timestamp 978300760000 .* \(row "
                                  r"1\): milliseconds beside seconds"),
    ("timestamp", [10**15, 1, 2], r"row 1, column 'timestamp': timestamp 1000000000000000 is not "
                                  r"within \+-10\^12"),
    ("user", pd.array([1, None, 2], dtype="Int64"), r"row 2, column 'user': missing value"),
    ("item", np.array([2**64 - 1, 3, 4], dtype=np.uint64), r"row 1, column 'item': value "
                                                           r"18446744073709551615 is beyond int64"),
], ids=["units", "far-timestamp", "Int64-NA", "uint64-huge"])
def test_a_ratings_frame_is_held_to_the_readers_rules(column: str, values: object,
                                                      said: str) -> None:
    with pytest.raises(DataError, match=said) as caught:
        _ratings(**{column: values})
    assert "None" not in str(caught.value)


def test_a_ratings_frame_with_a_column_twice_is_refused_by_name() -> None:
    from bench.data.ratings import Ratings

    f = pd.DataFrame({"user": [1, 2], "item": [1, 1], "rating": [4.0, 3.0], "timestamp": [1, 2]})
    with pytest.raises(DataError, match=r"column 'user': appears 2 times"):
        Ratings(frame=pd.concat([f, f[["user"]]], axis=1))


@pytest.mark.parametrize("values", [[b"7", b"007", b"\xff"], [b"u1", b"u1", b"u2"]],
                         ids=["not-utf8", "utf8"])
def test_a_parquet_binary_id_column_is_refused_as_bytes_ids_are_on_frames(
        tmp_path: Path, values: list[bytes]) -> None:
    p = tmp_path / "r.parquet"
    pq.write_table(pa.table({"user": pa.array(values), "item": [1, 2, 1],
                             "rating": [1.0, 2.0, 3.0]}), p)
    with pytest.raises(DataError, match=r"r.parquet, row 1, column 'user': id b'.*' is a bytes: "
                                        r"expected integers or text"):
        load_ratings_table(p, user="user", item="item", rating="rating")
