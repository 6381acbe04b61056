"""Local and Dask ratings readers agree, round 9b (issue 19 items 1 and 8): new instances.

Classes (earlier rounds: ``tests/test_hostile_dask_shards.py``, ``..._round8_dask_units.py``,
``..._round9_dask.py``):

* ``units`` (found here): MovieLens tags in milliseconds beside ratings in seconds (or the
  reverse) are refused by the local reader (:func:`bench.data.ratings.refuse_mixed_units_across`);
  ``convert --engine dask`` converted them without a word (every tag "future", no tag feature).
  Now the same refusal, naming ``tags.csv`` with its row and the ratings' file.
* ``MovieLens grammar`` (found here): the local MovieLens reader reads ``ratings.csv`` ids and
  timestamps as plain integers (``7.0``, ``+7``, ``7e0`` refused, naming the line); the Dask
  reader took any whole decimal, so ``convert --engine dask`` converted a folder the local
  ``convert`` refuses. Now the local reader's own error, from both engines.
* ``bytes ids`` (found here): a Parquet binary id column is refused by both engines, but the
  Dask refusal said "text ids: use --engine local", which refuses it too. Now it says so.
* ``places`` (found here): a (user, item) pair in two ratings shards named only the folder
  (the block of whole users lost each rating's file); now both files and lines (CSV) or rows
  (Parquet), as the local MovieLens reader names both lines.
* ``listeners`` (found here): ``convert --engine dask`` recorded no address it listened on
  (only ``run``'s manifest did); now ``summary.json``'s engine record holds them.
* ``ids by value`` (guards, passing before): ``7``, ``07``, ``7.0``, ``+7`` are one item on both
  engines; a text id beside numbers is numbered on both (round 10; refused by Dask before).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from dask_kit import in_process_client

from bench.errors import DataError

pytest.importorskip("distributed")
client = in_process_client  # the module's fixture (dask_kit)

SECONDS, MILLIS = 1_000_000_000, 1_000_000_000_000


def _rows(n_users: int = 6, per_user: int = 8, t0: int = SECONDS) -> pd.DataFrame:
    rows = [(u, (u * 5 + k) % 40, float(1 + (u + k) % 5), t0 + 1000 * (u * per_user + k))
            for u in range(n_users) for k in range(per_user)]
    return pd.DataFrame(rows, columns=["user", "item", "rating", "timestamp"])


def _movielens(folder: Path, tag_stamps: list[int]) -> Path:
    folder.mkdir()
    _rows().rename(columns={"user": "userId", "item": "movieId"}).to_csv(
        folder / "ratings.csv", index=False)
    pd.DataFrame({"movieId": range(40), "title": [f"m{i} (1999)" for i in range(40)],
                  "genres": ["Drama"] * 40}).to_csv(folder / "movies.csv", index=False)
    pd.DataFrame({"userId": [0, 1][:len(tag_stamps)], "movieId": [5, 6][:len(tag_stamps)],
                  "tag": ["a", "b"][:len(tag_stamps)], "timestamp": tag_stamps}).to_csv(
        folder / "tags.csv", index=False)
    return folder


def _dask_error(path: Path, **cols: Any) -> DataError:
    from bench.data.dask_ratings import read_ratings_frame

    with pytest.raises(DataError) as caught:
        read_ratings_frame(path, **cols).frame.compute(scheduler="synchronous")
    return caught.value


# ------------------------------------------------------------------------------------ units


@pytest.mark.parametrize("stamps", [[MILLIS, MILLIS + 5]], ids=["tags-in-milliseconds"])
def test_movielens_tags_in_another_unit_than_the_ratings_are_refused_by_both_engines(
        tmp_path: Path, stamps: list[int]) -> None:
    from bench.data.movielens import load_movielens

    folder = _movielens(tmp_path / "ml", stamps)
    with pytest.raises(DataError) as local:
        load_movielens(folder)
    dask = _dask_error(folder)
    for err in (local.value, dask):
        text = str(err)
        assert all(w in text for w in ("tags.csv", "ratings.csv", str(MILLIS), "milliseconds")), text
    assert (dask.row, dask.column) == (1, "timestamp")


def test_movielens_tags_in_the_ratings_unit_still_read(tmp_path: Path) -> None:
    from bench.data.dask_ratings import read_ratings_frame

    folder = _movielens(tmp_path / "ml", [SECONDS + 5, SECONDS + 9])
    got = read_ratings_frame(folder).frame.compute(scheduler="synchronous")
    assert got.shape[0] == 48


# ------------------------------------------------------------------------- MovieLens grammar


@pytest.mark.parametrize("spelled", ["7.0", "+7", "7e0"])
def test_a_movielens_id_the_local_reader_refuses_is_refused_by_dask_in_its_words(
        tmp_path: Path, spelled: str) -> None:
    from bench.data.movielens import load_movielens

    folder = _movielens(tmp_path / "ml", [SECONDS + 5])
    lines = (folder / "ratings.csv").read_text().splitlines()
    fields = lines[9].split(",")
    lines[9] = ",".join([fields[0], spelled, *fields[2:]])
    (folder / "ratings.csv").write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError) as local:
        load_movielens(folder)
    dask = _dask_error(folder)
    assert str(dask) == str(local.value)
    assert all(w in str(dask) for w in ("ratings.csv:10", repr(spelled))), str(dask)


def test_a_movielens_id_with_leading_zeros_is_the_same_item_on_both_engines(
        tmp_path: Path) -> None:
    from bench.data.dask_ratings import read_ratings_frame
    from bench.data.movielens import load_movielens

    folder = _movielens(tmp_path / "ml", [SECONDS + 5])
    text = (folder / "ratings.csv").read_text().replace("\n0,5,", "\n0,005,", 1)
    assert "\n0,005," in text
    (folder / "ratings.csv").write_text(text)
    local = load_movielens(folder).frame
    dask = read_ratings_frame(folder).frame.compute(scheduler="synchronous")
    assert sorted(local["item"].tolist()) == sorted(dask["item"].tolist())


# ------------------------------------------------------------------------------- bytes ids


def test_a_parquet_binary_id_column_is_refused_without_sending_the_user_to_the_local_engine(
        tmp_path: Path) -> None:
    from bench.data.tabular import load_ratings_table

    r = _rows()
    path = tmp_path / "bin.parquet"
    pq.write_table(pa.table({"user": pa.array([str(u).encode() for u in r.user], pa.binary()),
                             "item": r.item, "rating": r.rating, "timestamp": r.timestamp}), path)
    with pytest.raises(DataError, match="bytes"):
        load_ratings_table(path, user="user", item="item", rating="rating", timestamp="timestamp")
    text = str(_dask_error(path))
    assert all(w in text for w in ("binary", "column 'user'")), text
    assert "use --engine local" not in text  # the local engine refuses it too
    assert "every engine refuses it" in text


# ------------------------------------------------------------------------------------ places


def _duplicate_shards(folder: Path, suffix: str) -> None:
    folder.mkdir()
    r = _rows()
    first, second = r.iloc[:20], pd.concat([r.iloc[20:], r.iloc[[3]]], ignore_index=True)
    for name, part in (("a", first), ("b", second)):
        if suffix == "csv":
            part.to_csv(folder / f"{name}.csv", index=False)
        else:
            part.to_parquet(folder / f"{name}.parquet", index=False)


@pytest.mark.parametrize(("suffix", "first", "again"),
                         [("csv", "a.csv, line 5", "b.csv:30"),
                          ("parquet", "a.parquet, row 4", "b.parquet, row 29")])
def test_a_pair_in_two_shards_names_both_files_and_lines(
        tmp_path: Path, client: Any, suffix: str, first: str, again: str) -> None:
    from bench.adapters import AdapterConfig
    from bench.adapters.distributed import convert_distributed
    from bench.data.dask_ratings import read_ratings_frame

    _duplicate_shards(tmp_path / "dup", suffix)
    u, i = int(_rows().user[3]), int(_rows().item[3])
    with pytest.raises(DataError) as caught:
        convert_distributed(read_ratings_frame(tmp_path / "dup"), tmp_path / "out",
                            AdapterConfig(min_history=2, target_size=1, negatives=2), client)
    text = str(caught.value)
    assert f"duplicate (user={u}, item={i})" in text, text
    assert all(w in text for w in (first, again)), text


# --------------------------------------------------------------------------------- listeners


def test_a_dask_conversion_records_the_addresses_it_listened_on(tmp_path: Path,
                                                               client: Any) -> None:
    from bench.adapters import AdapterConfig
    from bench.adapters.distributed import convert_distributed
    from bench.data.dask_ratings import read_ratings_frame

    _rows().to_csv(tmp_path / "r.csv", index=False)
    summary = convert_distributed(read_ratings_frame(tmp_path / "r.csv"), tmp_path / "out",
                                  AdapterConfig(min_history=2, target_size=1, negatives=2),
                                  client)
    engine = summary["engine"]
    assert isinstance(engine, dict)
    seen = engine["listeners"]
    assert isinstance(seen["addresses"], list)
    assert seen["loopback_only"] is all(a.startswith(("127.", "[::1]", "::1"))
                                        for a in seen["addresses"])
    import json

    written = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert written["engine"]["listeners"] == seen


# ------------------------------------------------------------------------ ids by value (guards)


def test_numeric_spellings_of_one_id_are_one_item_on_both_engines(tmp_path: Path) -> None:
    from bench.data.dask_ratings import read_ratings_frame
    from bench.data.tabular import load_ratings_table

    r = _rows().astype({"item": object})
    sevens = r.index[r["item"] == 7].tolist()
    for k, spelled in zip(sevens, ["7", "07", "7.0", "+7"], strict=False):
        r.at[k, "item"] = spelled
    path = tmp_path / "spelled.csv"
    r.to_csv(path, index=False)
    local = load_ratings_table(path, user="user", item="item", rating="rating",
                               timestamp="timestamp").frame
    dask = read_ratings_frame(path).frame.compute(scheduler="synchronous")
    assert sorted(local["item"].tolist()) == sorted(dask["item"].tolist())
    assert (dask["item"] == 7).sum() == len(sevens) >= 2


def test_a_text_id_beside_numbers_is_numbered_by_dask_as_locally(tmp_path: Path) -> None:
    """Refused by Dask until round 10 (tests/test_hostile_round10_dask.py): numbered now."""
    from bench.data.dask_ratings import read_ratings_frame
    from bench.data.tabular import load_ratings_table

    r = _rows().astype({"item": object})
    r.at[10, "item"] = "u3"
    path = tmp_path / "text.csv"
    r.to_csv(path, index=False)
    local = load_ratings_table(path, user="user", item="item", rating="rating",
                               timestamp="timestamp").frame.reset_index(drop=True)
    dask = read_ratings_frame(path).frame.compute(scheduler="synchronous")
    pd.testing.assert_frame_equal(dask.reset_index(drop=True), local)
