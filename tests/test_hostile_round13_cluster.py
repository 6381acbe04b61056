"""Round 13 of the hostile catalogue: a data-platform engineer's Dask inputs, options and outputs.

Data prepared by Spark and Hive: shards named ``part-00000-<uuid>-c000.snappy.parquet`` beside
``_SUCCESS`` and ``.crc`` files, hive folders, empty partitions, row groups cut inside a query,
schema drift between shards (int32/int64 and unsigned ids, float32/float64/float16 scores,
dictionary-encoded columns, nullable columns, extra columns and another column order); a
scheduler given as a scheduler file, ``localhost``, ``::1:8786``, ``[::1]:PORT``, a list;
outputs on shared folders (a hard link of a shard, a folder holding a ratings glob); a shared
folder that changes while the cluster starts (a shard removed, added, made a FIFO).

The oracle of each case: hand arithmetic (:data:`dask_kit.NDCG_AB`), the local evaluator on the
same rows (:func:`bench.metrics.evaluate`), "the input is left as it was", or "exit 2 and one
``error:`` line naming the file / option and what was expected".

Failing before this round (measured against ``/work/base13``), now fixed:

* a shard removed between the folder's check and the read (while the cluster started) was no
  longer listed by the read: the number over the other shards, exit 0;
* a shard added then was read unchecked, a shard made a FIFO then blocked the read;
* a ratings file made a FIFO (or a ratings shard added) while ``convert --engine dask``
  started its cluster;
* ``--per-query`` that is a hard link of a shard of the ``--data`` folder was accepted (a hard
  link of a ``--data`` file is refused);
* ``convert --engine dask --ratings 'r/*.csv' --out r`` (or ``r/conv``) wrote into the folder
  of the ratings shards (``--ratings r`` is refused);
* ``--scheduler scheduler.json`` (what ``dask scheduler --scheduler-file`` writes) was told
  "expected host:port" without saying it is a file or what address it holds;
* a text label column was refused with "a bool is not a number here";
* an existing ``--per-query`` file that a shard of the ``--data`` folder links to (a dataset
  put together from symbolic links) was replaced by the CSV: the shard's rows destroyed;
* without ``--profile``, trec_eval and ir_measures names (``ndcg_cut_10``, ``nDCG@10``) were
  refused on Dask as "not the profile 'ltrbench' given for this call" (none was given), where
  the local engine computes them under their tool's profile: now the local numbers;
* ``--sort-by-qid`` was ignored on Dask without a word;
* ``--scheduler`` through the wildcard written otherwise (``0``, ``0x0``,
  ``000.000.000.000``, ``[::ffff:0.0.0.0]``) was not warned, as ``0.0.0.0`` is;
* an empty partition written by pandas (object columns, Arrow's null type) was refused;
* a symbolic link to the shard folder itself or above it (``loop -> .``) was refused as a
  hive folder;
* ``evaluate_frame(dd.read_parquet(hive_root))``: a bad value or a query in two hive folders
  was named "partition 1", not by its file.

Measured: 81 cases, 29 failing on ``/work/base13``.

Cheap by design: ``evaluate --engine dask`` runs in-process with the cluster replaced by Dask's
synchronous scheduler (the shard checks and the per-partition evaluation are the engine's own);
one case evaluates on a module-scoped in-process LocalCluster.
"""

from __future__ import annotations

import contextlib
import errno
import math
import os
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from dask_kit import NDCG_AB, A, B, in_process_client
from hostile_kit import Res, cli, csv_values, refused

pytest.importorskip("distributed")
client = in_process_client

SPARK = "part-{:05d}-5f2c1d7e-8a4b-4c1e-9f00-1b2c3d4e5f60-c000.snappy.parquet"


def _table(part: pd.DataFrame | pa.Table) -> pa.Table:
    return part if isinstance(part, pa.Table) else pa.Table.from_pandas(part,
                                                                        preserve_index=False)


def _shards(tmp: Path, parts: list[pd.DataFrame | pa.Table], *, names: str = "part-{:05d}.parquet",
            sub: str = "shards") -> Path:
    folder = tmp / sub
    folder.mkdir(parents=True, exist_ok=True)
    for i, part in enumerate(parts):
        pq.write_table(_table(part), folder / names.format(i))
    return folder


@pytest.fixture
def no_cluster(monkeypatch: pytest.MonkeyPatch) -> list[Callable[[], None]]:
    """``open_cluster`` replaced by Dask's synchronous scheduler; the callables appended to the
    yielded list run when the "cluster starts" (between the folder's check and its read)."""
    import dask

    from bench.engines import dask_engine

    hooks: list[Callable[[], None]] = []

    @contextlib.contextmanager
    def fake(options: Any) -> Iterator[None]:
        for hook in hooks:
            hook()
        with dask.config.set(scheduler="synchronous"):
            yield None

    monkeypatch.setattr(dask_engine, "open_cluster", fake)
    return hooks


def _evaluate(tmp: Path, *argv: str, data: str = "shards") -> Res:
    return cli(tmp, "evaluate", "--engine", "dask", "--data", data, "--format", "csv",
               "--metrics", "ndcg@10,map@10,mrr", *argv)


def _ndcg(res: Res) -> float | None:
    assert not res.traceback, res.err
    assert res.status == 0, res.err
    return csv_values(res).get("ndcg@10")


def _local(parts: list[pd.DataFrame]) -> dict[str, float]:
    from bench.metrics import evaluate

    frame = pd.concat([pd.DataFrame({c: np.asarray(p[c]) for c in ("qid", "label", "score")})
                       for p in parts], ignore_index=True)
    frame["qid"] = frame["qid"].astype(str)
    return dict(evaluate(frame, metrics=["ndcg@10", "map@10", "mrr"]).metrics)


# ------------------------------------------------------- what Spark and Hive write: the number


def test_spark_named_shards_beside_success_and_crc_files_give_the_hand_number(
        tmp_path: Path, no_cluster: Any) -> None:
    folder = _shards(tmp_path, [A, B], names=SPARK)
    (folder / "_SUCCESS").write_bytes(b"")
    (folder / f".{SPARK.format(0)}.crc").write_bytes(b"crc!")
    (folder / "_committed_4312").write_text('{"added": []}')
    (folder / "_started_4312").write_bytes(b"")
    assert _ndcg(_evaluate(tmp_path)) == pytest.approx(NDCG_AB, abs=1e-15)


@pytest.mark.parametrize("cast", [
    {"qid": "int32"}, {"qid": "uint32"}, {"qid": "int16"}, {"score": "float32"},
    {"score": "float16"}, {"label": "int8"}, {"label": "uint8"}, {"label": "float32"}],
    ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_schema_drift_between_two_shards_gives_the_hand_number(
        tmp_path: Path, no_cluster: Any, cast: dict[str, str]) -> None:
    _shards(tmp_path, [A.astype(cast), B])
    assert _ndcg(_evaluate(tmp_path)) == pytest.approx(NDCG_AB, abs=1e-15)


def _dictionary(part: pd.DataFrame, column: str, values: list[Any]) -> pa.Table:
    t = _table(part)
    return t.set_column(t.schema.get_field_index(column), column,
                        pa.array(values).dictionary_encode())


@pytest.mark.parametrize(("column", "values", "other"), [
    ("qid", ["1", "1", "1"], B.astype({"qid": str})),
    ("score", [0.9, 0.1, 0.5], B),
    ("label", [2, 0, 1], B)], ids=["text-qid", "score", "int-label"])
def test_a_dictionary_encoded_column_in_one_shard_gives_the_hand_number(
        tmp_path: Path, no_cluster: Any, column: str, values: list[Any],
        other: pd.DataFrame) -> None:
    _shards(tmp_path, [_dictionary(A, column, values), other])
    assert _ndcg(_evaluate(tmp_path)) == pytest.approx(NDCG_AB, abs=1e-15)


def test_extra_columns_in_another_order_give_the_hand_number(tmp_path: Path,
                                                            no_cluster: Any) -> None:
    first = A[["score", "qid", "label"]].assign(doc=["a", "b", "c"], part_date="2026-11-01")
    _shards(tmp_path, [first, B.assign(features=[0.1, 0.2])])
    assert _ndcg(_evaluate(tmp_path)) == pytest.approx(NDCG_AB, abs=1e-15)


def test_an_empty_spark_partition_between_two_gives_the_hand_number(tmp_path: Path,
                                                                    no_cluster: Any) -> None:
    _shards(tmp_path, [A, A.iloc[:0], B], names=SPARK)
    assert _ndcg(_evaluate(tmp_path)) == pytest.approx(NDCG_AB, abs=1e-15)


def test_row_groups_cut_inside_a_query_give_the_hand_number(tmp_path: Path,
                                                           no_cluster: Any) -> None:
    folder = tmp_path / "shards"
    folder.mkdir()
    pq.write_table(_table(pd.concat([A, B])), folder / "part-00000.parquet", row_group_size=2)
    assert pq.ParquetFile(folder / "part-00000.parquet").num_row_groups == 3
    assert _ndcg(_evaluate(tmp_path)) == pytest.approx(NDCG_AB, abs=1e-15)


def test_a_folder_given_with_a_trailing_separator_gives_the_hand_number(
        tmp_path: Path, no_cluster: Any) -> None:
    _shards(tmp_path, [A, B])
    assert _ndcg(_evaluate(tmp_path, data="shards/")) == pytest.approx(NDCG_AB, abs=1e-15)


def test_drifting_shards_equal_the_local_evaluator_on_random_queries(tmp_path: Path,
                                                                     client: Any,
                                                                     monkeypatch: Any) -> None:
    """Random queries with ties and blank queries, split over shards of four schemas, on an
    in-process LocalCluster: every metric equals the local evaluator's on the same rows."""
    from bench.engines import dask_engine

    monkeypatch.setattr(dask_engine, "open_cluster",
                        lambda options: contextlib.nullcontext(client))
    rng = np.random.default_rng(13)
    parts = []
    for s, (qt, st) in enumerate([("int64", "float64"), ("int32", "float32"),
                                  ("uint16", "float64"), ("int64", "float32")]):
        q = np.repeat(np.arange(s * 5 + 1, s * 5 + 6), 4)
        parts.append(pd.DataFrame({"qid": q.astype(qt),
                                   "label": rng.integers(0, 3, q.size) * (q % 4 != 0),
                                   "score": rng.integers(0, 4, q.size).astype(st) / 4}))
    _shards(tmp_path, parts, names=SPARK)
    res = _evaluate(tmp_path)
    assert res.status == 0, res.err
    got, want = csv_values(res), _local(parts)
    assert set(want) <= set(got)
    for name, value in want.items():
        assert got[name] == pytest.approx(value, abs=1e-12), name


def test_every_partition_empty_is_one_line_naming_the_folder(tmp_path: Path,
                                                             no_cluster: Any) -> None:
    _shards(tmp_path, [A.iloc[:0], B.iloc[:0]])
    assert refused(_evaluate(tmp_path), "shards", "no rows") is None


# ------------------------------------------------ what Spark and Hive write: refused, named


def test_hive_partition_folders_are_refused_naming_the_folder(tmp_path: Path,
                                                              no_cluster: Any) -> None:
    _shards(tmp_path, [A], sub="shards/qid_bucket=0", names=SPARK)
    _shards(tmp_path, [B], sub="shards/qid_bucket=1", names=SPARK)
    assert refused(_evaluate(tmp_path), "qid_bucket=0", "hive") is None


def test_one_hive_folder_whose_files_hold_no_qid_names_the_file_and_the_column(
        tmp_path: Path, no_cluster: Any) -> None:
    _shards(tmp_path, [A.drop(columns="qid")], sub="shards/qid=1", names=SPARK)
    res = _evaluate(tmp_path, data="shards/qid=1")
    assert refused(res, SPARK.format(0), "'qid'") is None


@pytest.mark.parametrize("target", [".", ".."])
def test_a_link_to_the_shard_folder_itself_or_above_is_no_hive_folder(
        tmp_path: Path, no_cluster: Any, target: str) -> None:
    """``loop -> .`` (or ``up -> ..``) beside the shards holds no rows of its own: it was
    refused as "a folder holding data files (hive partitions or nested shards)"."""
    folder = _shards(tmp_path, [A, B])
    os.symlink(target, folder / "loop")
    assert _ndcg(_evaluate(tmp_path)) == pytest.approx(NDCG_AB, abs=1e-15)


def test_a_shard_that_spark_wrote_as_a_folder_is_named(tmp_path: Path, no_cluster: Any) -> None:
    folder = _shards(tmp_path, [A])
    _shards(tmp_path, [B], sub="shards/part-00001.parquet")
    assert refused(_evaluate(tmp_path), "part-00001.parquet", "directory") is None
    assert (folder / "part-00001.parquet" / "part-00000.parquet").is_file()


def test_one_shard_under_two_hard_linked_names_is_a_query_in_two_partitions(
        tmp_path: Path, no_cluster: Any) -> None:
    folder = _shards(tmp_path, [A, B])
    os.link(folder / "part-00000.parquet", folder / "part-00002.parquet")
    assert refused(_evaluate(tmp_path), "part-00000.parquet", "part-00002.parquet") is None


@pytest.mark.parametrize(("column", "array", "words"), [
    ("qid", pa.array([1, None, 1], pa.int64()), ("row 2", "'qid'", "null")),
    ("label", pa.array([2, None, 1], pa.int64()), ("row 2", "'label'")),
    ("score", pa.array([0.9, None, 0.5]), ("row 2", "'score'")),
    ("qid", pa.array([1, 1, 1], pa.timestamp("s")), ("'qid'",)),
    ("score", pa.array([1, 2, 3], pa.date32()), ("'score'", "date32")),
], ids=["null-qid", "null-label", "null-score", "timestamp-qid", "date-score"])
def test_a_bad_column_in_the_second_shard_names_that_shard(
        tmp_path: Path, no_cluster: Any, column: str, array: pa.Array,
        words: tuple[str, ...]) -> None:
    t = _table(A.assign(qid=[7, 7, 7]))
    t = t.set_column(t.schema.get_field_index(column), column, array)
    _shards(tmp_path, [B, t], names=SPARK)
    assert refused(_evaluate(tmp_path), SPARK.format(1), *words) is None


def test_a_text_label_column_is_refused_without_talking_of_bools(tmp_path: Path,
                                                                 no_cluster: Any) -> None:
    _shards(tmp_path, [A, B.astype({"label": str})])
    res = _evaluate(tmp_path)
    assert refused(res, "part-00001.parquet", "'label'", "string", "expected numbers") is None
    assert "bool" not in res.err, res.err


def test_a_bool_label_column_is_still_refused_saying_so(tmp_path: Path,
                                                        no_cluster: Any) -> None:
    _shards(tmp_path, [A, pa.table({"qid": [2, 2], "label": [True, False],
                                    "score": [0.3, 0.4]})])
    assert refused(_evaluate(tmp_path), "part-00001.parquet", "'label'", "bool") is None


def test_binary_qids_beside_text_qids_are_refused_naming_both_types(tmp_path: Path,
                                                                    no_cluster: Any) -> None:
    _shards(tmp_path, [pa.table({"qid": [b"1"] * 3, "label": [2.0, 0.0, 1.0],
                                 "score": [0.9, 0.1, 0.5]}), B.astype({"qid": str})])
    assert refused(_evaluate(tmp_path), "part-00001.parquet", "binary", "string") is None


@pytest.mark.parametrize("first", [False, True])
def test_an_empty_pandas_partition_of_null_typed_columns_adds_nothing(
        tmp_path: Path, no_cluster: Any, first: bool) -> None:
    """pandas writes an empty frame's object columns as Arrow's null type: no values, so no
    type to disagree with the other shards (it was refused: "column of type null")."""
    folder = tmp_path / "shards"
    folder.mkdir()
    pd.DataFrame({c: pd.Series([], dtype=object) for c in ("qid", "label", "score")}).to_parquet(
        folder / ("part-00000.parquet" if first else "part-00001.parquet"), index=False)
    assert pq.read_schema(next(folder.iterdir())).field("qid").type == pa.null()
    for i, part in zip((1, 2) if first else (0, 2), (A, B), strict=True):
        pq.write_table(_table(part), folder / f"part-{i:05d}.parquet")
    assert _ndcg(_evaluate(tmp_path)) == pytest.approx(NDCG_AB, abs=1e-15)


def test_a_null_typed_qid_column_with_rows_is_named(tmp_path: Path, no_cluster: Any) -> None:
    nulls = pa.table({"qid": pa.nulls(2), "label": [1.0, 0.0], "score": [0.3, 0.4]})
    _shards(tmp_path, [A, nulls])
    assert refused(_evaluate(tmp_path), "part-00001.parquet", "'qid'", "null") is None


@pytest.mark.parametrize("data", ["shards/*.parquet", "shards/part-00000.parquet",
                                  "shards/part-*.parquet"])
def test_data_that_is_a_glob_or_one_shard_is_refused_asking_for_the_folder(
        tmp_path: Path, no_cluster: Any, data: str) -> None:
    _shards(tmp_path, [A, B])
    assert refused(_evaluate(tmp_path, data=data), "expected a folder") is None


def test_sort_by_qid_is_refused_on_shards_not_ignored(tmp_path: Path, no_cluster: Any) -> None:
    """--sort-by-qid regroups a --data file's rows locally; the Dask engine never regroups
    shards (a query's rows out of order are refused, saying "sort by qid"), so the option was
    ignored without a word."""
    _shards(tmp_path, [A, B])
    assert refused(_evaluate(tmp_path, "--sort-by-qid"), "--sort-by-qid", "--engine dask") is None


def _hive_frame(tmp: Path, second: pd.DataFrame) -> Any:
    import dask.dataframe as dd

    _shards(tmp, [A], sub="hive/qid_bucket=0", names=SPARK)
    _shards(tmp, [second], sub="hive/qid_bucket=1", names=SPARK)
    return dd.read_parquet(str(tmp / "hive"))


@pytest.mark.parametrize(("second", "words"), [
    (B.assign(label=[1.0, -4.0]), ("qid_bucket=1", SPARK.format(0), "row 2")),
    (B.assign(qid=[1, 1]), ("qid_bucket=0", "qid_bucket=1", "qid=1")),
], ids=["bad-label", "query-in-two-folders"])
def test_a_hive_frame_read_by_the_user_names_the_partitions_file(
        tmp_path: Path, second: pd.DataFrame, words: tuple[str, ...]) -> None:
    """``evaluate_frame(dd.read_parquet(hive_root))``: a partition's problem named
    "hive: partition 1"; now its file (qid_bucket=1/part-...parquet), as for shard folders."""
    import dask

    from bench.errors import DataError
    from bench.metrics.distributed import evaluate_frame

    ddf = _hive_frame(tmp_path, second)
    with dask.config.set(scheduler="synchronous"), pytest.raises(DataError) as info:
        evaluate_frame(ddf, where=str(tmp_path / "hive"), metrics=["ndcg@10"])
    assert all(w in str(info.value) for w in words), str(info.value)


def test_a_hive_frame_read_by_the_user_gives_the_hand_number(tmp_path: Path) -> None:
    import dask

    from bench.metrics.distributed import evaluate_frame

    ddf = _hive_frame(tmp_path, B)
    with dask.config.set(scheduler="synchronous"):
        got = evaluate_frame(ddf, where=str(tmp_path / "hive"), metrics=["ndcg@10"])
    assert got.metrics["ndcg@10"] == pytest.approx(NDCG_AB, abs=1e-15)


# ---------------------------------------------- a shared folder changing while the cluster starts


def test_a_shard_removed_while_the_cluster_starts_is_named_not_left_out(
        tmp_path: Path, no_cluster: Any) -> None:
    folder = _shards(tmp_path, [A, B])
    no_cluster.append(lambda: (folder / "part-00001.parquet").unlink())
    res = _evaluate(tmp_path)
    # before: ndcg@10 = 1.0 over the first shard alone, exit 0
    assert refused(res, "part-00001.parquet", "removed") is None


def test_a_shard_added_while_the_cluster_starts_is_named_not_read_unchecked(
        tmp_path: Path, no_cluster: Any) -> None:
    folder = _shards(tmp_path, [A, B])
    no_cluster.append(lambda: pq.write_table(
        _table(pd.DataFrame({"qid": [9, 9], "label": [1.0, 0.0], "score": [0.1, 0.2]})),
        folder / "part-00002.parquet"))
    assert refused(_evaluate(tmp_path), "part-00002.parquet", "added") is None


def _unblock_fifo(path: Path, seconds: float) -> threading.Thread:
    """A thread that, for ``seconds``, opens the FIFO ``path`` for writing once a reader waits
    and writes garbage (so a reader blocked on it ends instead of hanging the test session)."""
    def run() -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as exc:
                if exc.errno not in (errno.ENXIO, errno.ENOENT):
                    return
                time.sleep(0.05)
                continue
            with contextlib.suppress(OSError):
                os.write(fd, b"not parquet")
            os.close(fd)
            return

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def test_a_shard_made_a_fifo_while_the_cluster_starts_is_named_not_read(
        tmp_path: Path, no_cluster: Any) -> None:
    folder = _shards(tmp_path, [A, B])
    shard = folder / "part-00001.parquet"

    def swap() -> None:
        shard.unlink()
        os.mkfifo(shard)
        _unblock_fifo(shard, 8.0)

    no_cluster.append(swap)
    started = time.monotonic()
    res = _evaluate(tmp_path)
    assert refused(res, "part-00001.parquet", "not a regular file") is None
    assert time.monotonic() - started < 5.0


def test_a_ratings_file_made_a_fifo_while_the_cluster_starts_is_named_not_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.engines import dask_engine

    folder = tmp_path / "r"
    folder.mkdir()
    for k in (1, 2):
        (folder / f"r{k}.csv").write_text("user,item,rating,timestamp\n" + "".join(
            f"{u},{i},{1 + (u + i) % 5},{100 * u + i}\n"
            for u in range(k * 10, k * 10 + 10) for i in range(1, 25)))

    @contextlib.contextmanager
    def swapping(options: Any) -> Iterator[None]:
        (folder / "r2.csv").unlink()
        os.mkfifo(folder / "r2.csv")
        _unblock_fifo(folder / "r2.csv", 8.0)
        yield None  # a real run would read the FIFO on the cluster here

    monkeypatch.setattr(dask_engine, "open_cluster", swapping)
    res = cli(tmp_path, "convert", "--engine", "dask", "--layout", "csv", "--ratings", "r",
              "--out", "out")
    assert refused(res, "r2.csv", "not a regular file") is None
    assert not (tmp_path / "out" / "train").exists()


def test_a_ratings_shard_added_while_the_cluster_starts_is_named_not_left_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.engines import dask_engine

    folder = _ratings_folder(tmp_path)

    @contextlib.contextmanager
    def adding(options: Any) -> Iterator[None]:
        (folder / "part-3.csv").write_text((folder / "part-1.csv").read_text())
        yield None  # a real run would convert the two shards listed before, without a word

    monkeypatch.setattr(dask_engine, "open_cluster", adding)
    res = cli(tmp_path, "convert", "--engine", "dask", "--layout", "csv", "--ratings", "r",
              "--out", "out")
    assert refused(res, "part-3.csv", "added") is None
    assert not (tmp_path / "out" / "train").exists()


# ------------------------------------------------------------------- outputs over Dask inputs


def test_per_query_that_is_a_hard_link_of_a_shard_is_refused(tmp_path: Path,
                                                            no_cluster: Any) -> None:
    folder = _shards(tmp_path, [A, B])
    before = (folder / "part-00001.parquet").read_bytes()
    os.link(folder / "part-00001.parquet", tmp_path / "per_query.csv")
    res = _evaluate(tmp_path, "--per-query", "per_query.csv")
    assert refused(res, "--per-query", "part-00001.parquet", "same file") is None
    assert (folder / "part-00001.parquet").read_bytes() == before
    assert os.path.samefile(folder / "part-00001.parquet", tmp_path / "per_query.csv")


def test_per_query_that_a_linked_shard_points_to_is_refused_and_kept(tmp_path: Path,
                                                                   no_cluster: Any) -> None:
    """A shard of the folder is a symbolic link to a file outside it (a shared dataset put
    together from links): that file is an input, and writing the per-query table over it
    replaced the shard's rows with CSV text."""
    folder = _shards(tmp_path, [A, B])
    pq.write_table(_table(pd.DataFrame({"qid": [3, 3], "label": [1.0, 0.0],
                                        "score": [0.2, 0.1]})), tmp_path / "extra.csv")
    # the target's name says CSV, so the check that refuses a per-query name ending .parquet
    # (round 13, h13b) does not answer first: the link is what must be found
    os.symlink(tmp_path / "extra.csv", folder / "part-00002.parquet")
    before = (tmp_path / "extra.csv").read_bytes()
    res = _evaluate(tmp_path, "--per-query", "extra.csv")
    assert refused(res, "--per-query", "part-00002.parquet", "same file") is None
    assert (tmp_path / "extra.csv").read_bytes() == before


def test_per_query_over_the_success_marker_is_refused_and_the_marker_kept(
        tmp_path: Path, no_cluster: Any) -> None:
    folder = _shards(tmp_path, [A, B], names=SPARK)
    (folder / "_SUCCESS").write_bytes(b"")
    res = _evaluate(tmp_path, "--per-query", "shards/_SUCCESS")
    assert refused(res, "--per-query", "input folder") is None
    assert (folder / "_SUCCESS").read_bytes() == b""


def test_per_query_beside_the_shard_folder_is_written(tmp_path: Path, no_cluster: Any) -> None:
    _shards(tmp_path, [A, B])
    res = _evaluate(tmp_path, "--per-query", "per_query.csv")
    assert res.status == 0, res.err
    rows = pd.read_csv(tmp_path / "per_query.csv")
    assert set(rows["qid"].astype(str)) == {"1", "2"}


def _ratings_folder(tmp: Path) -> Path:
    folder = tmp / "r"
    folder.mkdir()
    for k in (1, 2):
        (folder / f"part-{k}.csv").write_text("user,item,rating,timestamp\n" + "".join(
            f"{u},{i},{1 + (u + i) % 5},{100 * u + i}\n"
            for u in range(k * 10, k * 10 + 10) for i in range(1, 25)))
    return folder


@pytest.mark.parametrize("out", ["r", "r/conv", "r/./conv/deeper", "r/"])
def test_convert_on_dask_into_the_folder_of_its_ratings_glob_is_refused(
        tmp_path: Path, out: str) -> None:
    folder = _ratings_folder(tmp_path)
    before = sorted(p.name for p in folder.iterdir())
    res = cli(tmp_path, "convert", "--engine", "dask", "--layout", "csv",
              "--ratings", "r/part-*.csv", "--out", out)
    assert refused(res, "--out", "input folder", "--ratings") is None
    assert sorted(p.name for p in folder.iterdir()) == before


def test_a_ratings_glob_seals_its_folder_but_not_the_folder_beside_it(tmp_path: Path) -> None:
    from bench.commands.convert import converted_files
    from bench.data.outputs import check_output_dir

    _ratings_folder(tmp_path)
    check_output_dir(tmp_path / "out", option="--out",
                     inputs=[("--ratings", str(tmp_path / "r" / "part-*.csv"))],
                     writes=converted_files(), sealed=("--ratings",))
    # one file (not a glob): its folder is not sealed, as for every input file
    check_output_dir(tmp_path / "r", option="--out",
                     inputs=[("--ratings", str(tmp_path / "r" / "part-1.csv"))],
                     writes=converted_files(), sealed=("--ratings",))


# ------------------------------------------------------ peer metric names: the local engine's number


ROWS = pd.DataFrame({"qid": [1, 1, 1, 1, 2, 2, 2], "label": [2, 0, 1, 3, 1, 0, 2],
                     "score": [0.9, 0.1, 0.5, 0.5, 0.2, 0.8, 0.2]})


def _local_cli(tmp: Path, metrics: str) -> Res:
    lines = [f"{r.label} qid:{r.qid} 1:0.5\n" for r in ROWS.itertuples()]
    (tmp / "data.txt").write_text("".join(lines))
    (tmp / "scores.txt").write_text("".join(f"{v}\n" for v in ROWS["score"]))
    return cli(tmp, "evaluate", "--data", "data.txt", "--scores", "scores.txt", "--format",
               "csv", "--metrics", metrics)


@pytest.mark.parametrize("metrics", ["ndcg_cut_10,P_5,map_cut_10", "nDCG@10,AP,RR",
                                     "trec_eval:ndcg_cut_10"])
def test_peer_names_of_one_tool_give_the_local_engines_numbers(tmp_path: Path,
                                                               no_cluster: Any,
                                                               metrics: str) -> None:
    """Without --profile the local engine computes a trec_eval or ir_measures name under its
    tool's profile; the Dask engine refused it ("not as the profile 'ltrbench' given for this
    call", none was given) -- now the same numbers, under the same profile."""
    _shards(tmp_path, [ROWS.iloc[:4], ROWS.iloc[4:]])
    local = _local_cli(tmp_path, metrics)
    assert local.status == 0, local.err
    res = cli(tmp_path, "evaluate", "--engine", "dask", "--data", "shards", "--format", "csv",
              "--metrics", metrics)
    assert res.status == 0, res.err
    assert csv_values(res) == csv_values(local)
    assert len(csv_values(res)) == len(metrics.split(","))
    profiles = {line.rsplit(",", 1)[1] for line in res.out.strip().splitlines()[1:]}
    assert profiles == {line.rsplit(",", 1)[1] for line in local.out.strip().splitlines()[1:]}


def test_names_of_two_profiles_without_profile_are_refused_naming_each(
        tmp_path: Path, no_cluster: Any) -> None:
    _shards(tmp_path, [ROWS.iloc[:4], ROWS.iloc[4:]])
    res = cli(tmp_path, "evaluate", "--engine", "dask", "--data", "shards", "--metrics",
              "ndcg@10,nDCG@10")
    assert refused(res, "ndcg@10: ltrbench", "nDCG@10: trec_eval-c", "--profile") is None


# ------------------------------------------------------------------------- scheduler addresses


def test_a_scheduler_file_is_refused_naming_the_address_it_holds(tmp_path: Path) -> None:
    _shards(tmp_path, [A, B])
    (tmp_path / "scheduler.json").write_text(
        '{"type": "Scheduler", "id": "Scheduler-1", "address": "tcp://10.1.2.3:8786"}')
    res = _evaluate(tmp_path, "--scheduler", "scheduler.json")
    assert refused(res, "--scheduler", "file", "tcp://10.1.2.3:8786") is None


def test_a_file_that_is_no_scheduler_file_is_refused_as_a_file(tmp_path: Path) -> None:
    _shards(tmp_path, [A, B])
    (tmp_path / "cluster.txt").write_text("my scheduler is on node 3\n")
    res = _evaluate(tmp_path, "--scheduler", "cluster.txt")
    assert refused(res, "--scheduler", "is a file", "address") is None


@pytest.mark.parametrize(("address", "words"), [
    ("localhost", ("host:port",)), ("tcp://localhost", ("host:port",)),
    ("::1:8786", ("brackets",)), ("TCP://127.0.0.1:8786", ("unknown protocol",)),
    ("tcp://127.0.0.1:8786,tcp://127.0.0.1:8787", ("host:port",)),
    ("tcp://127.0.0.1:8786 tcp://127.0.0.1:8787", ("--scheduler",)),
])
def test_scheduler_spellings_are_refused_before_any_connection(tmp_path: Path, address: str,
                                                               words: tuple[str, ...]) -> None:
    _shards(tmp_path, [A, B])
    started = time.monotonic()
    assert refused(_evaluate(tmp_path, "--scheduler", address), "--scheduler", *words) is None
    assert time.monotonic() - started < 5.0


@pytest.mark.parametrize("form", ["[::1]:{}", "tcp://[::1]:{}", "localhost:{}"])
def test_a_scheduler_port_where_nothing_listens_is_one_line_at_once(tmp_path: Path,
                                                                   form: str) -> None:
    family = socket.AF_INET6 if "::1" in form else socket.AF_INET
    try:
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.bind(("::1" if family == socket.AF_INET6 else "127.0.0.1", 0))
    except OSError:
        pytest.skip("no IPv6 loopback here")
    with sock:  # bound, never listening: a connection is refused
        _shards(tmp_path, [A, B])
        started = time.monotonic()
        res = _evaluate(tmp_path, "--scheduler", form.format(sock.getsockname()[1]))
    assert refused(res, "nothing listens") is None
    assert time.monotonic() - started < 5.0


@pytest.mark.parametrize(("address", "wild"), [
    ("tcp://0:8786", True), ("tcp://0.0:8786", True), ("tcp://000.000.000.000:8786", True),
    ("tcp://0x0:8786", True), ("tcp://[::ffff:0.0.0.0]:8786", True),
    ("tcp://[0:0:0:0:0:0:0:0]:8786", True), ("tcp://0.0.0.1:8786", False),
    ("tcp://localhost:8786", False), ("tcp://2130706433:8786", False)])
def test_the_wildcard_address_in_every_spelling_the_resolver_reads_is_warned(
        address: str, wild: bool) -> None:
    """``0``, ``0x0`` and ``000.000.000.000`` are 0.0.0.0 to the C resolver (``inet_aton``), as
    ``::ffff:0.0.0.0`` is to the kernel: a scheduler reached through them listens on every
    interface, as through ``0.0.0.0`` (which alone was warned)."""
    import warnings

    from bench.data.dask_cluster import WildcardAddressWarning, warn_wildcard

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert warn_wildcard(address, address) is wild
    assert [w.category for w in seen] == ([WildcardAddressWarning] if wild else [])


def test_guard_the_hand_number_is_what_the_shards_hold() -> None:
    """The oracle itself: A ranked ideally, B's relevant document second."""
    assert math.isclose(NDCG_AB, (1.0 + 1.0 / math.log2(3.0)) / 2.0)
