"""Dask ratings and shards, round 10 (issue 19 items 1 and 4): one rule on both engines.

Classes (earlier rounds: ``tests/test_hostile_dask_shards.py``, ``..._round9_dask.py``,
``..._round9b_dask.py``):

* ``text ids`` (round 9's leftover): a text id beside numeric ids (``u3`` among ``1, 2``), ids
  that are all text, numbers beyond int64 (``1e20``, ``2e20``) and Parquet string or
  dictionary-encoded ids are numbered by first appearance by the local reader
  (:mod:`bench.data.tabular`); ``convert --engine dask`` refused them ("use --engine local").
  Now Dask numbers them the same way (:mod:`bench.data.dask_ids`): the same ratings frame, so the
  same LETOR files. A bad cell among text ids is still the local reader's refusal, with its
  line; an id column of text in one Parquet shard and integers in another is one clear error
  naming both shards (Dask failed inside its reader).
* ``Parquet types the local reader reads`` (found here): a Parquet ``timestamp`` (or ``date``)
  column is read as seconds since the epoch by the local reader and was refused by Dask ("not
  a whole number"); ``uint64`` ids above 2^63 - 1 are numbered locally and were refused by Dask.
  Both are read as locally now.
* ``query ids that wrap`` (found here): a ``uint64`` qid above 2^63 - 1 in one shard beside an
  int64 qid in another were read as one type by Dask: ``2^63 + 5`` and ``-2^63 + 5`` became one
  id ("query -9223372036854775803 lies in partitions 0 and 1", an id no shard holds). Refused
  naming both shards (:mod:`bench.data.dask_qids`); uint64 ids in every shard are read.
* ``scheduler host names`` (found here): ``--scheduler tcp://<a 64+ character label>:8786``
  ended in ``UnicodeError: encoding with 'idna' codec failed`` (a traceback); the address check
  now holds a host name to RFC 1035's label and name lengths.
* ``units wording`` (round 9's leftover): seconds beside milliseconds across shards said
  "milliseconds in one shard beside seconds in another" where the local readers say
  "milliseconds beside seconds" (and across files "..., in every file"): one text now,
  :func:`bench.data.ratings.mixed_units_message`, owned once.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from dask_kit import RATINGS_COLS as _COLS
from dask_kit import dask_ratings, dask_ratings_error, local_ratings

from bench.errors import DataError

pytest.importorskip("distributed")

SECONDS, MILLIS = 1_000_000_000, 1_000_000_000_000


def _rows(n_users: int = 6, per_user: int = 8) -> pd.DataFrame:
    rows = [(u, (u * 5 + k) % 40, float(1 + (u + k) % 5), SECONDS + 1000 * (u * per_user + k))
            for u in range(n_users) for k in range(per_user)]
    return pd.DataFrame(rows, columns=["user", "item", "rating", "timestamp"])


_local = local_ratings
_dask = dask_ratings
_dask_error = dask_ratings_error


def _text_ids() -> pd.DataFrame:
    r = _rows().astype({"user": object, "item": object})
    r.at[10, "user"], r.at[20, "user"], r.at[30, "user"] = "u3", "07", "7.0"
    r.at[12, "item"], r.at[33, "item"] = "i9", " i9"
    return r


# ---------------------------------------------------------------------------------- text ids


def test_text_ids_beside_numbers_are_numbered_by_dask_as_the_local_reader_numbers_them(
        tmp_path: Path) -> None:
    path = tmp_path / "mixed.csv"
    _text_ids().to_csv(path, index=False)
    local = _local(path)
    assert local["user"].max() < 10  # numbered 0, 1, ... (u3 made the column text)
    pd.testing.assert_frame_equal(_dask(path), local)


def test_text_ids_split_over_csv_shards_and_blocks_are_numbered_as_one_file(
        tmp_path: Path) -> None:
    """First appearance over the whole table: the shards in file order, each file's blocks in
    order (``blocksize`` small: several partitions per file)."""
    r = _text_ids()
    r.to_csv(tmp_path / "whole.csv", index=False)
    (tmp_path / "s").mkdir()
    r.iloc[:25].to_csv(tmp_path / "s" / "a.csv", index=False)
    r.iloc[25:].to_csv(tmp_path / "s" / "b.csv", index=False)
    pd.testing.assert_frame_equal(_dask(tmp_path / "s", blocksize=300),
                                  _local(tmp_path / "whole.csv"))


def test_ids_that_are_all_text_are_numbered_by_both_engines(tmp_path: Path) -> None:
    r = _rows().astype({"user": object})
    r["user"] = [f"user-{u}" for u in r["user"]]
    path = tmp_path / "text.csv"
    r.to_csv(path, index=False)
    pd.testing.assert_frame_equal(_dask(path), _local(path))


def test_numeric_ids_beyond_int64_stay_apart_on_both_engines(tmp_path: Path) -> None:
    """``1e20`` and ``2e20`` are two users locally (numbered by value); a float64 cast made
    them one, and Dask refused them."""
    r = _rows().astype({"user": object})
    r["user"] = ["1e20" if u % 2 else "2e20" for u in r["user"]]
    r = r.drop_duplicates(["user", "item"])
    path = tmp_path / "big.csv"
    r.to_csv(path, index=False)
    local = _local(path)
    assert local["user"].nunique() == 2
    pd.testing.assert_frame_equal(_dask(path), local)


@pytest.mark.parametrize("kind", ["string", "large_string", "dictionary"])
def test_parquet_text_ids_are_numbered_by_dask_as_locally(tmp_path: Path, kind: str) -> None:
    r = _rows()
    users = pa.array([f"u{u}" for u in r["user"]],
                     pa.large_string() if kind == "large_string" else pa.string())
    if kind == "dictionary":
        users = users.dictionary_encode()
    table = pa.table({"user": users, "item": r["item"], "rating": r["rating"],
                      "timestamp": r["timestamp"]})
    pq.write_table(table, tmp_path / "r.parquet")
    pd.testing.assert_frame_equal(_dask(tmp_path / "r.parquet"), _local(tmp_path / "r.parquet"))


def test_an_id_column_of_text_in_one_parquet_shard_and_integers_in_another_names_both(
        tmp_path: Path) -> None:
    r = _rows()
    (tmp_path / "s").mkdir()
    pq.write_table(pa.Table.from_pandas(r.iloc[:24], preserve_index=False),
                   tmp_path / "s" / "a.parquet")
    b = r.iloc[24:].astype({"user": str})
    pq.write_table(pa.Table.from_pandas(b, preserve_index=False), tmp_path / "s" / "b.parquet")
    from bench.data.dask_ratings import read_ratings_frame

    with pytest.raises(DataError) as caught:
        read_ratings_frame(tmp_path / "s")
    text = str(caught.value)
    assert all(w in text for w in ("b.parquet", "a.parquet", "'user'")), text
    assert "\n" not in text


def test_a_missing_spelling_among_text_ids_is_the_local_refusal_with_its_line(
        tmp_path: Path) -> None:
    r = _text_ids()
    r.at[40, "user"] = "NA"
    path = tmp_path / "na.csv"
    r.to_csv(path, index=False)
    from bench.data.tabular import load_ratings_table

    with pytest.raises(DataError) as local:
        load_ratings_table(path, **_COLS)
    assert str(_dask_error(path)) == str(local.value)


def test_a_bad_rating_after_a_text_id_names_the_ratings_line_not_the_id(tmp_path: Path) -> None:
    """The CSV parser's refusal is placed by a scan that read every id as a number: it named
    the text id ``u3`` (line 12), a valid id now, instead of the rating on line 42."""
    from bench.data.dask_ratings import read_ratings_frame

    r = _text_ids().astype({"rating": object})
    r.at[40, "rating"] = "x"
    path = tmp_path / "bad.csv"
    r.to_csv(path, index=False)
    frame = read_ratings_frame(path)
    try:
        frame.frame.compute(scheduler="synchronous")
    except DataError as exc:
        found = exc
    except ValueError as exc:  # the parser's refusal: placed as the converter places it
        found = frame.locate(exc)
    else:
        pytest.fail("a rating 'x' was read")
    assert all(w in str(found) for w in ("bad.csv:42", "'rating'")), str(found)


def test_a_movielens_folder_still_refuses_text_ids_on_both_engines(tmp_path: Path) -> None:
    """The local MovieLens reader reads ids as integers (no numbering): Dask keeps that rule."""
    folder = tmp_path / "ml"
    folder.mkdir()
    r = _text_ids().rename(columns={"user": "userId", "item": "movieId"})
    r.to_csv(folder / "ratings.csv", index=False)
    from bench.data.movielens import load_movielens

    with pytest.raises(DataError) as local:
        load_movielens(folder)
    assert str(_dask_error(folder)) == str(local.value)


# ---------------------------------------------------------------------------- units wording


def _movielens_tags_in_ms(folder: Path) -> Path:
    folder.mkdir()
    _rows().rename(columns={"user": "userId", "item": "movieId"}).to_csv(
        folder / "ratings.csv", index=False)
    pd.DataFrame({"movieId": range(40), "title": [f"m{i} (1999)" for i in range(40)],
                  "genres": ["Drama"] * 40}).to_csv(folder / "movies.csv", index=False)
    pd.DataFrame({"userId": [0, 1], "movieId": [5, 6], "tag": ["a", "b"],
                  "timestamp": [MILLIS, MILLIS + 5]}).to_csv(folder / "tags.csv", index=False)
    return folder


def test_seconds_beside_milliseconds_reads_the_same_on_both_engines(tmp_path: Path) -> None:
    from bench.data.movielens import load_movielens

    folder = _movielens_tags_in_ms(tmp_path / "ml")
    with pytest.raises(DataError) as local:
        load_movielens(folder)
    assert str(_dask_error(folder)) == str(local.value)


def test_the_units_refusal_across_shards_is_the_one_owned_text(tmp_path: Path) -> None:
    from bench.data.ratings import mixed_units_message

    (tmp_path / "s").mkdir()
    a, b = _rows(), _rows()
    b["user"] += 100
    b["timestamp"] = 978_300_760_000 + b.index.to_numpy()
    a.to_csv(tmp_path / "s" / "a.csv", index=False)
    b.to_csv(tmp_path / "s" / "b.csv", index=False)
    err = _dask_error(tmp_path / "s")
    assert err.reason == mixed_units_message(int(b["timestamp"].iloc[0]),
                                             int(a["timestamp"].iloc[0]),
                                             f"{tmp_path / 's' / 'a.csv'}, row 1"), err.reason
    assert err.path == str(tmp_path / "s" / "b.csv")
    assert err.row == 1


@pytest.mark.parametrize("unit", ["s", "ms", "us"])
def test_a_parquet_timestamp_column_is_read_as_seconds_on_both_engines(tmp_path: Path,
                                                                       unit: str) -> None:
    r = _rows()
    stamps = pa.array(pd.to_datetime(r["timestamp"], unit="s").dt.as_unit(unit),
                      pa.timestamp(unit, tz="UTC" if unit == "ms" else None))
    table = pa.table({"user": r["user"], "item": r["item"], "rating": r["rating"],
                      "timestamp": stamps})
    pq.write_table(table, tmp_path / "r.parquet")
    local = _local(tmp_path / "r.parquet")
    assert local["timestamp"].tolist() == r["timestamp"].tolist()
    pd.testing.assert_frame_equal(_dask(tmp_path / "r.parquet"), local)


def test_uint64_ids_beyond_int64_are_numbered_on_both_engines(tmp_path: Path) -> None:
    r = _rows()
    users = pa.array([2**63 + 7 * u for u in r["user"]], pa.uint64())
    pq.write_table(pa.table({"user": users, "item": r["item"], "rating": r["rating"],
                             "timestamp": r["timestamp"]}), tmp_path / "r.parquet")
    local = _local(tmp_path / "r.parquet")
    assert local["user"].nunique() == r["user"].nunique()
    pd.testing.assert_frame_equal(_dask(tmp_path / "r.parquet"), local)


# --------------------------------------------------------------------- query ids that wrap


def _shards(folder: Path, *qids: pa.Array) -> Path:
    folder.mkdir()
    for k, q in enumerate(qids):
        n = len(q)
        pq.write_table(pa.table({"qid": q, "label": [1.0] + [0.0] * (n - 1),
                                 "score": [0.5 + 0.1 * i for i in range(n)]}),
                       folder / f"part-{k:05d}.parquet")
    return folder


def test_a_uint64_qid_above_int64_beside_signed_qids_is_refused_naming_both_shards(
        tmp_path: Path) -> None:
    from bench.data.query_shards import shard_columns

    folder = _shards(tmp_path / "s", pa.array([2**63 + 5] * 2, pa.uint64()),
                     pa.array([-(2**63) + 5] * 2, pa.int64()))
    with pytest.raises(DataError) as caught:
        shard_columns(folder, ["qid", "label", "score"])
    text = str(caught.value)
    assert all(w in text for w in ("part-00000.parquet", "part-00001.parquet", "'qid'")), text


def test_uint64_qids_in_every_shard_and_small_ones_beside_int64_are_read(tmp_path: Path) -> None:
    from bench.data.query_shards import shard_columns

    big = _shards(tmp_path / "big", pa.array([2**63 + 5] * 2, pa.uint64()),
                  pa.array([5, 5], pa.uint64()))
    small = _shards(tmp_path / "small", pa.array([7, 7], pa.uint64()),
                    pa.array([5, 5], pa.int64()))
    assert len(shard_columns(big, ["qid", "label", "score"])) == 2
    assert len(shard_columns(small, ["qid", "label", "score"])) == 2


# ------------------------------------------------------------------- scheduler host names


@pytest.mark.parametrize("host", ["a" * 64, "a." + "b" * 70, "x." * 130 + "y"])
def test_a_scheduler_host_name_too_long_for_dns_is_one_line(host: str) -> None:
    from bench.data.dask_cluster import check_scheduler_address
    from bench.errors import ConfigError

    with pytest.raises(ConfigError, match="not an IP address or a host name") as caught:
        check_scheduler_address(f"tcp://{host}:8786")
    assert "\n" not in str(caught.value)
    assert check_scheduler_address(f"tcp://{'a' * 63}:8786") == f"tcp://{'a' * 63}:8786"
