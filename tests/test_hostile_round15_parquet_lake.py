"""Round 15 of the hostile catalogue: a data-platform engineer's Parquet lake on the Dask engine.

Scored results and ratings written by Spark, Hive, Dask, DuckDB and pyarrow, pointed at with
``ltrbench evaluate --engine dask --data DIR``, ``ltrbench convert --engine dask --ratings DIR``
and the Python API (:func:`bench.data.query_shards.read_query_shards`,
:func:`bench.metrics.distributed.evaluate_frame`): files a crashed writer left beside the shards
(``part-00002.parquet.tmp``, ``.inprogress``, a download's ``.part``), schema evolution across
shards in columns ltrbench does not use, DuckDB's decimal scores, a folder written by Dask with
``qid`` as its index, timestamps with time zones and Spark's INT96 in ratings shards, integer
scores beyond 2^53 in a file written without statistics, column names with invisible blanks.

Oracles: hand arithmetic (:data:`dask_kit.NDCG_AB`), the local engine on the same rows (pandas
concat of the shards), pyarrow.dataset's own listing of a folder, or "exit 2 and one ``error:``
line naming the file and column and what was expected".

No cluster is started: the CLI's ``open_cluster`` is replaced by Dask's synchronous scheduler
(the shard checks and the per-partition evaluation are the engine's own), the Python API runs
under ``dask.config.set(scheduler="synchronous")``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from dask_kit import NDCG_AB, A, B, dask_ratings, local_ratings
from dask_kit import no_cluster as synchronous_engine
from hostile_kit import Res, cli, csv_values, refused

pytest.importorskip("distributed")

from bench.errors import DataError

no_cluster = synchronous_engine  # the fixture, under the name the cases ask for


def _table(part: pd.DataFrame | pa.Table) -> pa.Table:
    return part if isinstance(part, pa.Table) else pa.Table.from_pandas(part,
                                                                        preserve_index=False)


def _shards(tmp: Path, parts: list[pd.DataFrame | pa.Table], *,
            names: str = "part-{:05d}.parquet", sub: str = "shards", **kw: Any) -> Path:
    folder = tmp / sub
    folder.mkdir(parents=True, exist_ok=True)
    for i, part in enumerate(parts):
        pq.write_table(_table(part), folder / names.format(i), **kw)
    return folder


@pytest.fixture
def sync() -> Iterator[None]:
    import dask

    with dask.config.set(scheduler="synchronous"):
        yield


def _evaluate(tmp: Path, *argv: str, data: str = "shards") -> Res:
    return cli(tmp, "evaluate", "--engine", "dask", "--data", data, "--format", "csv",
               "--metrics", "ndcg@10", *argv)


def _ndcg(res: Res) -> float | None:
    assert not res.traceback, res.err
    assert res.status == 0, res.err
    return csv_values(res).get("ndcg@10")


def _ok(why: str | None) -> None:
    assert why is None, why


# ------------------------------------------------------ what a crashed writer leaves beside


@pytest.mark.parametrize("leftover", [
    "part-00002.parquet.tmp", "part-00002.parquet.inprogress", "part-00002.parquet.part",
    "part-00002.parquet.crdownload", "part-00002.parquet.partial", "part-00002.parquet.temp",
    "part-00002.parquet.incomplete", "part-00002.snappy.parquet.tmp"])
def test_an_unfinished_shard_left_by_a_crashed_writer_is_refused_naming_it(
        tmp_path: Path, no_cluster: None, leftover: str) -> None:
    folder = _shards(tmp_path, [A])
    pq.write_table(_table(B), folder / leftover)  # the rows of query 2, never renamed
    _ok(refused(_evaluate(tmp_path), leftover))


def test_an_unfinished_shard_is_refused_by_the_python_reader_too(tmp_path: Path) -> None:
    from bench.data.query_shards import read_query_shards

    folder = _shards(tmp_path, [A])
    pq.write_table(_table(B), folder / "part-00001.parquet.tmp")
    with pytest.raises(DataError, match=r"part-00001\.parquet\.tmp"):
        read_query_shards(folder)


@pytest.mark.parametrize("sidecar", ["part-00000.parquet.md5", "part-00000.parquet.sha256",
                                     ".part-00001.parquet.inprogress.5f2c", "_temporary"])
def test_checksums_and_hidden_writer_files_are_passed_over_as_pyarrow_dataset_does(
        tmp_path: Path, no_cluster: None, sidecar: str) -> None:
    import pyarrow.dataset as ds

    folder = _shards(tmp_path, [A, B])
    if sidecar == "_temporary":  # Spark's staging folder of a job, with a task's file inside
        (folder / sidecar / "0").mkdir(parents=True)
        pq.write_table(_table(B), folder / sidecar / "0" / "part-00009.parquet")
    else:
        (folder / sidecar).write_bytes(b"d41d8cd98f00b204e9800998ecf8427e  part-00000.parquet\n")
    read = ds.dataset(folder, format="parquet", exclude_invalid_files=True).files
    assert sorted(Path(f).name for f in read) == ["part-00000.parquet", "part-00001.parquet"]
    assert _ndcg(_evaluate(tmp_path)) == pytest.approx(NDCG_AB, abs=1e-15)


def test_a_folder_of_only_unfinished_shards_names_one_not_just_no_shards(
        tmp_path: Path, no_cluster: None) -> None:
    folder = tmp_path / "shards"
    folder.mkdir()
    pq.write_table(_table(A), folder / "part-00000.parquet.inprogress")
    _ok(refused(_evaluate(tmp_path), "part-00000.parquet.inprogress"))


# -------------------------------------------- the Python reader keeps the folder's rules


@pytest.mark.parametrize("stray", ["Part-00002.parquet", "part-00002.csv", "qid=3/part-0.parquet",
                                   "nested/part-00000.parquet", "part.2.parquet"])
def test_read_query_shards_refuses_data_it_would_not_read_as_the_cli_does(
        tmp_path: Path, stray: str) -> None:
    from bench.data.query_shards import read_query_shards

    folder = _shards(tmp_path, [A, B])
    (folder / stray).parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(_table(B.assign(qid=3)), folder / stray)
    with pytest.raises(DataError, match=stray.split("/")[0].replace(".", r"\.")):
        read_query_shards(folder)


def test_read_query_shards_with_its_checked_files_still_reads_them(tmp_path: Path,
                                                                  sync: None) -> None:
    from bench.data.query_shards import read_query_shards, shard_columns
    from bench.metrics.distributed import evaluate_frame

    folder = _shards(tmp_path, [A, B])
    files = shard_columns(folder, ["qid", "label", "score"])
    r = evaluate_frame(read_query_shards(folder, files=files), metrics=["ndcg@10"])
    assert r.metrics["ndcg@10"] == pytest.approx(NDCG_AB, abs=1e-15)


# ---------------------------------------------- schema evolution in columns not evaluated


@pytest.mark.parametrize(("first", "second"), [
    (pa.array([1, 2, 3], pa.int64()), pa.array(["x", "y"])),
    (pa.array([0.5, 1.5, 2.5]), pa.array([Decimal("1.5"), Decimal("2.5")], pa.decimal128(4, 1))),
    (pa.array([[1.0], [2.0], [3.0]]), pa.array([{"a": 1}, {"a": 2}])),
    (pa.array([1, 2, 3], pa.int64()), pa.array([None, None], pa.null())),
], ids=["int-then-text", "float-then-decimal", "list-then-struct", "int-then-null"])
def test_an_unused_column_that_changes_type_between_shards_gives_the_hand_number(
        tmp_path: Path, no_cluster: None, first: pa.Array, second: pa.Array) -> None:
    _shards(tmp_path, [_table(A).append_column("extra", first),
                       _table(B).append_column("extra", second)])
    assert _ndcg(_evaluate(tmp_path)) == pytest.approx(NDCG_AB, abs=1e-15)


def test_an_unused_column_that_changes_type_gives_the_hand_number_in_python(
        tmp_path: Path, sync: None) -> None:
    from bench.data.query_shards import read_query_shards
    from bench.metrics.distributed import evaluate_frame

    folder = _shards(tmp_path, [_table(A).append_column("extra", pa.array([1, 2, 3])),
                                _table(B).append_column("extra", pa.array(["x", "y"]))])
    r = evaluate_frame(read_query_shards(folder, columns=["qid", "label", "score"]),
                       metrics=["ndcg@10"])
    assert r.metrics["ndcg@10"] == pytest.approx(NDCG_AB, abs=1e-15)


# --------------------------------------------------------------- DuckDB's decimal columns


def _decimal(part: pd.DataFrame, column: str, scale: int = 1) -> pa.Table:
    t = _table(part)
    values = [Decimal(str(v)) for v in part[column]]
    return t.set_column(t.schema.get_field_index(column), column,
                        pa.array(values, pa.decimal128(10, scale)))


@pytest.mark.parametrize("column", ["score", "label"])
def test_a_decimal_column_of_duckdb_is_refused_naming_shard_column_and_type(
        tmp_path: Path, no_cluster: None, column: str) -> None:
    _shards(tmp_path, [A, _decimal(B, column)])
    _ok(refused(_evaluate(tmp_path), "part-00001.parquet", repr(column), "decimal128(10, 1)"))


def test_a_decimal_score_in_python_is_not_called_text(tmp_path: Path, sync: None) -> None:
    """evaluate_frame on the caller's own dd.read_parquet: the error names the value's type,
    not "text is not parsed" (a Decimal is no text)."""
    import dask.dataframe as dd

    from bench.metrics.distributed import evaluate_frame

    folder = _shards(tmp_path, [_decimal(A, "score")])
    with pytest.raises(DataError) as caught:
        evaluate_frame(dd.read_parquet(str(folder)), metrics=["ndcg@10"])
    msg = str(caught.value)
    assert "part-00000.parquet" in msg, msg
    assert "'score'" in msg, msg
    assert "text" not in msg, msg
    assert "Decimal" in msg, msg


def test_a_timestamp_score_is_refused_naming_its_type(tmp_path: Path, no_cluster: None) -> None:
    t = _table(B)
    t = t.set_column(t.schema.get_field_index("score"), "score",
                     pa.array([10**12, 2 * 10**12], pa.timestamp("ms", tz="UTC")))
    _shards(tmp_path, [A, t])
    _ok(refused(_evaluate(tmp_path), "part-00001.parquet", "'score'", "timestamp[ms, tz=UTC]"))


# ------------------------------------------------------------- a folder written by Dask


def test_a_dask_folder_with_qid_as_its_index_is_refused_naming_the_index(
        tmp_path: Path, sync: None) -> None:
    """``ddf.set_index("qid").to_parquet(DIR)``, read back with ``dd.read_parquet(DIR)``: the
    query ids are the frame's index, not a column."""
    import dask.dataframe as dd

    from bench.metrics.distributed import evaluate_frame

    frame = pd.concat([A, B], ignore_index=True)
    dd.from_pandas(frame, npartitions=1).set_index("qid").to_parquet(str(tmp_path / "lake"))
    ddf = dd.read_parquet(str(tmp_path / "lake"))
    with pytest.raises(DataError, match=r"'qid' is the frame's index.*reset_index"):
        evaluate_frame(ddf, metrics=["ndcg@10"])


def test_a_dask_named_folder_is_refused_by_the_cli_naming_dasks_file(tmp_path: Path,
                                                                     no_cluster: None) -> None:
    _shards(tmp_path, [A, B], names="part.{}.parquet")
    _ok(refused(_evaluate(tmp_path), "part.0.parquet"))


def test_a_hive_root_partitioned_by_qid_gives_the_hand_number_in_python(
        tmp_path: Path, sync: None) -> None:
    """``dd.read_parquet(root)`` of ``qid=1/``, ``qid=2/``: the query id is a categorical
    column made from the folder names."""
    import dask.dataframe as dd

    from bench.metrics.distributed import evaluate_frame

    root = tmp_path / "lake"
    for part in (A, B):
        q = int(part["qid"].iloc[0])
        (root / f"qid={q}").mkdir(parents=True)
        pq.write_table(_table(part.drop(columns="qid")), root / f"qid={q}" / "part-0.parquet")
    r = evaluate_frame(dd.read_parquet(str(root)), metrics=["ndcg@10"])
    assert r.metrics["ndcg@10"] == pytest.approx(NDCG_AB, abs=1e-15)


def test_a_hive_root_partitioned_by_date_gives_the_local_number_in_python(
        tmp_path: Path, sync: None) -> None:
    import dask.dataframe as dd

    from bench.metrics import evaluate
    from bench.metrics.distributed import evaluate_frame

    root = tmp_path / "lake"
    for day, part in (("2026-01-01", A), ("2026-01-02", B)):
        (root / f"dt={day}").mkdir(parents=True)
        pq.write_table(_table(part), root / f"dt={day}" / "part-0.parquet")
    want = evaluate(pd.concat([A, B]), metrics=["ndcg@10", "map"]).metrics
    got = evaluate_frame(dd.read_parquet(str(root)), metrics=["ndcg@10", "map"]).metrics
    assert got == pytest.approx(want, abs=1e-15)


# ---------------------------------------------------------------- names the eye cannot see


@pytest.mark.parametrize("name", ["score ", "score\u00a0", "\ufeffscore", "score\t"])
def test_a_score_column_with_an_invisible_character_is_shown_quoted(
        tmp_path: Path, no_cluster: None, name: str) -> None:
    _shards(tmp_path, [A.rename(columns={"score": name}), B.rename(columns={"score": name})])
    res = _evaluate(tmp_path)
    _ok(refused(res, "part-00000.parquet", "'score'", repr(name)))


def test_two_score_candidates_use_the_one_named_and_the_number_follows_it(
        tmp_path: Path, no_cluster: None) -> None:
    """``score`` and ``prediction`` in every shard: the default reads ``score``, the option
    ``--score-column prediction`` the other (its reversed ranking gives another number)."""
    rev = [p.assign(prediction=-p["score"]) for p in (A, B)]
    _shards(tmp_path, rev)
    assert _ndcg(_evaluate(tmp_path)) == pytest.approx(NDCG_AB, abs=1e-15)
    from bench.metrics import evaluate

    want = evaluate(pd.concat(rev), score="prediction", metrics=["ndcg@10"]).metrics["ndcg@10"]
    got = _ndcg(_evaluate(tmp_path, "--score-column", "prediction"))
    assert got == pytest.approx(want, abs=1e-15)
    assert got != pytest.approx(NDCG_AB)


# -------------------------------------------------- integer scores beyond 2^53, no stats


@pytest.mark.parametrize("kind", [pa.int64(), pa.uint64()])
def test_an_integer_score_beyond_2_53_in_a_file_without_statistics_is_refused_at_its_row(
        tmp_path: Path, no_cluster: None, kind: pa.DataType) -> None:
    big = 2**53 + 1
    t = _table(B)
    t = t.set_column(t.schema.get_field_index("score"), "score", pa.array([big, big + 1], kind))
    _shards(tmp_path, [A.astype({"score": "float64"}), t], write_statistics=False)
    _ok(refused(_evaluate(tmp_path), "part-00001.parquet", "row 1", "'score'"))


# ----------------------------------------------------------------- links and zero rows


def test_a_shard_linked_twice_is_refused_naming_both_files(tmp_path: Path,
                                                          no_cluster: None) -> None:
    folder = _shards(tmp_path, [A, B])
    os.symlink("part-00000.parquet", folder / "part-00002.parquet")
    _ok(refused(_evaluate(tmp_path), "part-00000.parquet", "part-00002.parquet"))


def test_a_shard_linked_from_outside_the_lake_is_read_as_itself(tmp_path: Path,
                                                               no_cluster: None) -> None:
    other = _shards(tmp_path, [B], sub="elsewhere")
    folder = _shards(tmp_path, [A])
    os.symlink(other / "part-00000.parquet", folder / "part-00001.parquet")
    before = (other / "part-00000.parquet").read_bytes()
    assert _ndcg(_evaluate(tmp_path)) == pytest.approx(NDCG_AB, abs=1e-15)
    assert (other / "part-00000.parquet").read_bytes() == before


def test_shards_of_zero_rows_only_are_a_clear_error(tmp_path: Path, no_cluster: None) -> None:
    _shards(tmp_path, [A.iloc[:0], B.iloc[:0]])
    _ok(refused(_evaluate(tmp_path), "shards", "no rows"))


def test_a_shard_with_an_empty_row_group_between_two_gives_the_hand_number(
        tmp_path: Path, no_cluster: None) -> None:
    folder = tmp_path / "shards"
    folder.mkdir()
    with pq.ParquetWriter(folder / "part-00000.parquet", _table(A).schema) as w:
        w.write_table(_table(A))
        w.write_table(_table(A).slice(0, 0))
        w.write_table(_table(B))
    assert _ndcg(_evaluate(tmp_path)) == pytest.approx(NDCG_AB, abs=1e-15)


# --------------------------------------------------------------------- ratings shards


def _ratings(users: list[int], ts: pa.Array, **over: pa.Array) -> pa.Table:
    n = len(users)
    cols = {"user": pa.array(users, pa.int64()), "item": pa.array(list(range(1, n + 1)),
                                                                     pa.int64()),
            "rating": pa.array([4.0] * n), "timestamp": ts}
    cols.update(over)
    return pa.table(cols)


def _plain(t: pa.Table) -> pa.Table:
    """``t`` with instants in UTC microseconds and dictionaries decoded: the same rows."""
    for j, field in enumerate(t.schema):
        kind = field.type
        if pa.types.is_timestamp(kind):
            t = t.set_column(j, field.name, t.column(j).cast(pa.timestamp("us", tz="UTC")))
        elif pa.types.is_dictionary(kind):
            t = t.set_column(j, field.name, t.column(j).cast(kind.value_type))
    return t


def _agree(folder: Path) -> None:
    """The Dask reader of the folder gives the local reader's frame of its rows (a concat)."""
    files = sorted(folder.glob("*.parquet"))
    whole = folder.parent / "whole.parquet"
    pq.write_table(pa.concat_tables([_plain(pq.read_table(f)) for f in files],
                                    promote_options="permissive"), whole)
    want = local_ratings(whole)
    got = dask_ratings(folder)
    pd.testing.assert_frame_equal(got[list(want.columns)].reset_index(drop=True), want,
                                  check_dtype=False)


def test_ratings_shards_in_two_time_zones_read_the_same_instants_as_locally(
        tmp_path: Path) -> None:
    folder = tmp_path / "r"
    folder.mkdir()
    t0 = 1_700_000_000_000
    pq.write_table(_ratings([1, 1, 2], pa.array([t0, t0 + 1000, t0 + 2000],
                                                pa.timestamp("ms", tz="UTC"))),
                   folder / "part-0.parquet")
    pq.write_table(_ratings([2, 3], pa.array([t0 * 1000 + 3_000_000, t0 * 1000 + 4_000_000],
                                             pa.timestamp("us", tz="Europe/Paris"))),
                   folder / "part-1.parquet")
    _agree(folder)


def test_spark_int96_timestamps_in_ratings_read_as_locally(tmp_path: Path) -> None:
    folder = tmp_path / "r"
    folder.mkdir()
    t0 = 1_700_000_000
    for k, users in enumerate(([1, 1, 2], [2, 3])):
        ts = pa.array([(t0 + 60 * (k * 3 + i)) * 10**9 for i in range(len(users))],
                      pa.timestamp("ns"))
        pq.write_table(_ratings(users, ts), folder / f"part-{k}.parquet",
                       use_deprecated_int96_timestamps=True)
    _agree(folder)


def test_ratings_with_an_unfinished_shard_are_refused_naming_it(tmp_path: Path) -> None:
    from bench.data.dask_ratings import read_ratings_frame

    folder = tmp_path / "r"
    folder.mkdir()
    ts = pa.array([1, 2, 3], pa.int64())
    pq.write_table(_ratings([1, 1, 2], ts), folder / "part-0.parquet")
    pq.write_table(_ratings([2, 3, 3], ts), folder / "part-1.parquet.inprogress")
    with pytest.raises(DataError, match=r"part-1\.parquet\.inprogress"):
        read_ratings_frame(folder)


def test_convert_dask_over_a_lake_with_an_unfinished_ratings_shard_writes_nothing(
        tmp_path: Path) -> None:
    folder = tmp_path / "r"
    folder.mkdir()
    ts = pa.array(list(range(1, 13)), pa.int64())
    users = [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]
    pq.write_table(_ratings(users, ts), folder / "part-0.parquet")
    pq.write_table(_ratings(users, ts), folder / "part-1.parquet.tmp")
    res = cli(tmp_path, "convert", "--engine", "dask", "--ratings", "r", "--out", "out")
    _ok(refused(res, "part-1.parquet.tmp"))
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_ratings_with_a_dictionary_user_column_in_one_shard_read_as_locally(
        tmp_path: Path) -> None:
    folder = tmp_path / "r"
    folder.mkdir()
    ts = pa.array([1, 2, 3], pa.int64())
    pq.write_table(_ratings([1, 1, 2], ts, user=pa.array(["u1", "u1", "u2"])),
                   folder / "part-0.parquet")
    pq.write_table(_ratings([2, 3, 3], ts,
                            user=pa.array(["u2", "u3", "u3"]).dictionary_encode()),
                   folder / "part-1.parquet")
    _agree(folder)


def test_ratings_with_a_float_then_decimal_rating_are_refused_naming_both_shards(
        tmp_path: Path) -> None:
    folder = tmp_path / "r"
    folder.mkdir()
    ts = pa.array([1, 2, 3], pa.int64())
    pq.write_table(_ratings([1, 1, 2], ts), folder / "part-0.parquet")
    pq.write_table(_ratings([2, 3, 3], ts, rating=pa.array(
        [Decimal("4.5"), Decimal("3.0"), Decimal("1.5")], pa.decimal128(2, 1))),
        folder / "part-1.parquet")
    from bench.data.dask_ratings import read_ratings_frame

    with pytest.raises(DataError, match=r"part-1\.parquet, column 'rating'.*decimal128\(2, 1\)"
                       r".*double in .*part-0\.parquet"):
        read_ratings_frame(folder)  # one table's column: one family of types, both named



# --------------------------------------------------------- hive keys, links, odd id types


def test_a_hive_partition_folder_given_as_data_names_the_key_its_files_lack(
        tmp_path: Path, no_cluster: None) -> None:
    """``--data lake/qid=1``: Hive writes the key into the folder name, not into the file."""
    (tmp_path / "lake" / "qid=1").mkdir(parents=True)
    pq.write_table(_table(A.drop(columns="qid")), tmp_path / "lake" / "qid=1" / "part-00000.parquet")
    _ok(refused(_evaluate(tmp_path, data="lake/qid=1"), "part-00000.parquet", "'qid'",
                "'qid=1'", "hive"))


def test_a_hive_root_given_as_data_is_refused_naming_a_partition_folder(
        tmp_path: Path, no_cluster: None) -> None:
    for q, part in ((1, A), (2, B)):
        (tmp_path / "lake" / f"qid={q}").mkdir(parents=True)
        pq.write_table(_table(part.drop(columns="qid")),
                       tmp_path / "lake" / f"qid={q}" / "part-00000.parquet")
    _ok(refused(_evaluate(tmp_path, data="lake"), "qid=1", "hive"))


def test_evaluate_frame_without_a_qid_column_is_a_clear_error_not_a_key_error(
        sync: None) -> None:
    import dask.dataframe as dd

    from bench.metrics.distributed import evaluate_frame

    ddf = dd.from_pandas(pd.concat([A, B], ignore_index=True).drop(columns="qid"), npartitions=2)
    with pytest.raises(DataError, match=r"no column 'qid'.*columns: \['label', 'score'\]"):
        evaluate_frame(ddf, metrics=["ndcg@10"])


def test_a_shard_link_that_points_at_itself_is_named(tmp_path: Path, no_cluster: None) -> None:
    folder = _shards(tmp_path, [A])
    os.symlink("part-00001.parquet", folder / "part-00001.parquet")
    _ok(refused(_evaluate(tmp_path), "part-00001.parquet", "symbolic links"))


def test_query_ids_that_are_time_zone_timestamps_are_refused_naming_the_row(
        tmp_path: Path, no_cluster: None) -> None:
    parts = []
    for p in (A, B):
        t = _table(p)
        q = pa.array([10**12 * int(p["qid"].iloc[0])] * len(p), pa.timestamp("ms", tz="UTC"))
        parts.append(t.set_column(t.schema.get_field_index("qid"), "qid", q))
    _shards(tmp_path, parts)
    _ok(refused(_evaluate(tmp_path), "part-00000.parquet", "row 1", "'qid'", "Timestamp"))


@pytest.mark.parametrize("leftover", ["part-00003.parquet.tmp", "Part-00000.parquet",
                                      "dt=2026-01-01/part-0.parquet"])
def test_write_query_shards_refuses_a_folder_a_reader_would_then_refuse(
        tmp_path: Path, leftover: str) -> None:
    """A crashed earlier write left a file: the new shards would be written, then refused by
    every reader; refused first, naming it, nothing written."""
    from bench.data.letor import LetorData
    from bench.data.query_shards import write_query_shards

    out = tmp_path / "s"
    (out / leftover).parent.mkdir(parents=True)
    pq.write_table(_table(A), out / leftover)
    data = LetorData.build(np.ones((5, 2), np.float32), np.array([2.0, 0, 1, 1, 0]),
                           qid=np.array([1, 1, 1, 2, 2]))
    with pytest.raises(DataError, match=leftover.split("/")[0].replace(".", r"\.")):
        write_query_shards(data, out)
    assert not list(out.glob("part-*.parquet"))
