"""Hostile Dask shards and listeners, round 8 (issue 19 items 1 and 8): new instances.

Every case either gives the in-memory evaluator's number on the same rows (the oracle:
:func:`bench.metrics.evaluate` on the shards read by pyarrow into one frame; where stated a
golden value from hand arithmetic), or a one-line :class:`~bench.errors.LtrbenchError` naming
the shard's file (the row and column where there is one).

Classes (earlier rounds: ``tests/test_hostile_dask_shards.py``, ``..._dask_round5.py``,
``..._dask_inputs.py``, ``..._round7_dask.py``, ``..._round7_dask_cluster.py``):

* ``strays`` (found here: a number over part of the data, exit 0): a data file in the shard
  folder that the ``part-*.parquet`` rule does not read -- ``part-00001.PARQUET``,
  ``part-00002.csv``, ``part-00003.parquet.gz`` -- or a hive-partitioned / nested sub-folder
  (``year=2020/part-00000.parquet``) was left out without a word; a folder holding hive
  partitions only said "no Parquet shards". Now refused naming the entry. What Spark, Hadoop and
  Dask write beside shards (``_SUCCESS``, ``_metadata``, ``.part-00000.parquet.crc``) is still
  passed over, as ``pyarrow.dataset`` does. The same rule for ``convert --engine dask``'s
  folder of ratings shards (``r.CSV``, ``r.csv.gz``, ``day=1/r.csv`` beside ``*.csv``).
* ``schema``: float16 scores and labels, ``large_string`` beside ``string`` ids, int32 beside
  int64, uint64 ids past 2^63, a dictionary-encoded text id beside a plain one, date and
  duration ids, an empty shard first or among full ones, a shard whose columns are reordered or
  carry a stored pandas index, row groups of one row -- the in-memory number; decimal ids of two
  precisions, timestamps of two units, a null score, a float16 score that overflowed to inf, a
  uint64 score past 2^53, a bool or bytes id -- refused naming shard, row, column.
* ``races``: a shard deleted, truncated, or replaced by one of another schema after the folder
  was listed and checked: one line naming the file, never a traceback.
* ``listeners``: ``--scheduler tls://`` (``wss://``) with no client certificate configured
  (found here: Dask's "TLS expects a ssl_context argument ... Instead got None" after the
  connection; now refused before any, saying which Dask settings to give).

One in-process LocalCluster (one worker, no dashboard) serves the module.
"""

from __future__ import annotations

import gzip
import os
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from dask_kit import NDCG_AB, A, B, in_process_client
from dask_kit import parquet_table as _table

from bench.errors import ConfigError, DataError

pytest.importorskip("distributed")
client = in_process_client  # the module's fixture (dask_kit)

METRICS = ["ndcg@10", "map", "mrr@10"]
COLS = ["qid", "label", "score"]
def _shards(tmp: Path, parts: list[pd.DataFrame | pa.Table], sub: str = "shards") -> Path:
    folder = tmp / sub
    folder.mkdir(parents=True, exist_ok=True)
    for k, part in enumerate(parts):
        pq.write_table(_table(part), folder / f"part-{k:05d}.parquet")
    return folder


def _dask(folder: Path) -> dict[str, float]:
    """What ``ltrbench evaluate --engine dask --data folder`` computes (the module's client)."""
    from bench.data.query_shards import read_query_shards, shard_columns
    from bench.metrics.distributed import evaluate_frame

    shard_columns(folder, COLS)
    r = evaluate_frame(read_query_shards(folder, columns=COLS), metrics=METRICS,
                       where=str(folder), profile="ltrbench")
    return {k: float(v) for k, v in r.metrics.items()}


def _local(folder: Path) -> dict[str, float]:
    """The oracle: every ``part-*.parquet`` shard read by pyarrow, in file order, one frame."""
    from bench.metrics import evaluate

    frame = pd.concat([pq.read_table(f).to_pandas()[COLS]
                       for f in sorted(folder.glob("part-*.parquet"))], ignore_index=True)
    r = evaluate(frame, label="label", score="score", qid="qid", metrics=METRICS)
    return {k: float(v) for k, v in r.metrics.items()}


def _one_line(exc: BaseException, *words: str) -> None:
    text = str(exc)
    assert "\n" not in text, text
    for word in words:
        assert word in text, (word, text)


# ------------------------------------------------------------------------------------- strays


def _beside(make: Callable[[Path], None], named: str) -> Callable[[Path], None]:
    """Shards A and B, then ``make(folder)``: refused, ``named`` in the message."""
    def run(tmp: Path) -> None:
        folder = _shards(tmp, [A, B])
        make(folder)
        with pytest.raises(DataError) as info:
            _dask(folder)
        _one_line(info.value, named, "would be left out")
    return run


def _hive(folder: Path, sub: str = "year=2020") -> None:
    (folder / sub).mkdir(parents=True)
    pq.write_table(_table(B.assign(qid=3)), folder / sub / "part-00000.parquet")


def _hive_only(tmp: Path) -> None:
    folder = tmp / "shards"
    _hive(folder, "qid=1")
    with pytest.raises(DataError) as info:
        _dask(folder)
    _one_line(info.value, "qid=1", "hive partitions")


STRAYS: list[tuple[str, Callable[[Path], None]]] = [
    ("upper-case-suffix", _beside(lambda f: pq.write_table(_table(B.assign(qid=3)),
                                                           f / "part-00002.PARQUET"),
                                  "part-00002.PARQUET")),
    ("csv-beside-parquet", _beside(lambda f: B.assign(qid=3).to_csv(f / "part-00002.csv",
                                                                     index=False),
                                   "part-00002.csv")),
    ("gzipped-parquet", _beside(lambda f: (f / "part-00002.parquet.gz").write_bytes(
        gzip.compress((f / "part-00001.parquet").read_bytes())), "part-00002.parquet.gz")),
    ("pq-suffix", _beside(lambda f: pq.write_table(_table(B.assign(qid=3)), f / "more.pq"),
                          "more.pq")),
    ("hive-sub-folder-beside-shards", _beside(_hive, "year=2020")),
    ("nested-shards-folder", _beside(lambda f: _hive(f, "old/deeper"), "old")),
    ("hive-partitions-only", _hive_only),
]


@pytest.mark.parametrize("case", [c for _, c in STRAYS], ids=[n for n, _ in STRAYS])
def test_strays(case: Callable[[Path], None], tmp_path: Path, client: Any) -> None:
    case(tmp_path)


def test_what_spark_hadoop_and_dask_write_beside_shards_is_passed_over(tmp_path: Path,
                                                                       client: Any) -> None:
    folder = _shards(tmp_path, [A, B])
    (folder / "_SUCCESS").write_bytes(b"")
    pq.write_metadata(_table(A).schema, folder / "_metadata")
    (folder / ".part-00000.parquet.crc").write_bytes(b"crc")
    (folder / "README.md").write_text("shards of the toy set\n")
    (folder / "_tmp").mkdir()
    pq.write_table(_table(B), folder / "_tmp" / "part-00000.parquet")
    got = _dask(folder)
    assert got == _local(folder)
    assert got["ndcg@10"] == pytest.approx(NDCG_AB, abs=1e-15)


@pytest.mark.parametrize(("name", "make"), [
    ("r.CSV", lambda f: (f / "r.CSV").write_text("user,item,rating\n9,9,5\n")),
    ("r3.csv.gz", lambda f: (f / "r3.csv.gz").write_bytes(gzip.compress(b"user,item\n9,9\n"))),
    ("day=2", lambda f: ((f / "day=2").mkdir(), (f / "day=2" / "r.csv").write_text("user,item\n"
                                                                                   "9,9\n"))),
])
def test_convert_on_dask_refuses_a_ratings_shard_it_would_not_read(
        tmp_path: Path, name: str, make: Callable[[Path], None]) -> None:
    from bench.data.dask_ratings import read_ratings_frame

    folder = tmp_path / "ratings"
    folder.mkdir()
    for k in (1, 2):
        (folder / f"r{k}.csv").write_text("user,item,rating\n" + "".join(
            f"{u},{i},{1 + (u + i) % 5}\n" for u in range(k * 5, k * 5 + 5) for i in range(6)))
    make(folder)
    with pytest.raises(DataError) as info:
        read_ratings_frame(folder)
    _one_line(info.value, name, "would be left out")


# ------------------------------------------------------------------------------------- schema


def _t(qid: Any, label: Any = None, score: Any = None) -> pa.Table:
    n = len(qid)
    return pa.table({"qid": qid, "label": label if label is not None else [1.0, 0.0, 1.0][:n],
                     "score": score if score is not None else [0.3, 0.4, 0.2][:n]})


EMPTY = pa.table({"qid": pa.array([], pa.int64()), "label": pa.array([], pa.float64()),
                  "score": pa.array([], pa.float64())})
SAME: list[tuple[str, list[pd.DataFrame | pa.Table]]] = [
    ("float16-score", [A, _t([2, 2], score=pa.array(np.array([0.3, 0.4], np.float16)))]),
    ("float16-label", [A, _t([2, 2], label=pa.array(np.array([1, 0], np.float16)))]),
    ("large-string-beside-string-ids", [_t(pa.array(["1"] * 3)),
                                        _t(pa.array(["2", "2"], pa.large_string()))]),
    ("int32-beside-int64-ids", [_t(pa.array([1, 1, 1], pa.int32())), B]),
    ("uint64-ids-past-2-63", [_t(pa.array([2**63 + 1] * 3, pa.uint64())),
                              _t(pa.array([2**63 + 2] * 2, pa.uint64()))]),
    ("dictionary-text-id-beside-plain", [_t(pa.array(["1"] * 3).dictionary_encode()),
                                         _t(pa.array(["2", "2"]))]),
    ("an-empty-shard-first", [EMPTY, A, B]),
    ("an-empty-shard-among-full", [A, EMPTY, B]),
    ("columns-reordered", [A, B[["score", "label", "qid"]]]),
    ("a-stored-pandas-index", [pa.Table.from_pandas(A.set_index(pd.Index([5, 6, 7]))), B]),
]


@pytest.mark.parametrize("parts", [p for _, p in SAME], ids=[n for n, _ in SAME])
def test_the_in_memory_number(parts: list[pd.DataFrame | pa.Table], tmp_path: Path,
                              client: Any) -> None:
    folder = _shards(tmp_path, parts)
    assert _dask(folder) == _local(folder)


#: Ids that are neither text nor integers: refused on both paths alike since round 11 (two time
#: zones' one instant had merged two queries of a frame), naming the shard and the column.
NOT_IDS = [("date-ids", [_t(pa.array([1, 1, 1], pa.date32())),
                         _t(pa.array([2, 2], pa.date32()))]),
           ("duration-ids", [_t(pa.array([1, 1, 1], pa.duration("s"))),
                             _t(pa.array([2, 2], pa.duration("s")))])]


@pytest.mark.parametrize("parts", [p for _, p in NOT_IDS], ids=[n for n, _ in NOT_IDS])
def test_ids_that_are_no_text_or_integer_are_refused_as_in_memory(
        parts: list[pd.DataFrame | pa.Table], tmp_path: Path, client: Any) -> None:
    folder = _shards(tmp_path, parts)
    for evaluate in (_dask, _local):
        with pytest.raises(DataError) as info:
            evaluate(folder)
        assert "'qid'" in str(info.value)
        assert "expected strings or integers" in str(info.value)


def test_row_groups_of_one_row_each_are_one_query(tmp_path: Path, client: Any) -> None:
    folder = _shards(tmp_path, [A])
    with pq.ParquetWriter(folder / "part-00001.parquet", _table(B).schema) as w:
        w.write_table(_table(B), row_group_size=1)
    assert pq.ParquetFile(folder / "part-00001.parquet").metadata.num_row_groups == 2
    assert _dask(folder)["ndcg@10"] == pytest.approx(NDCG_AB, abs=1e-15)


REFUSED: list[tuple[str, list[pd.DataFrame | pa.Table], tuple[str, ...]]] = [
    ("decimal-ids-of-two-precisions", [_t(pa.array([1, 1, 1], pa.decimal128(5, 0))),
                                       _t(pa.array([2, 2], pa.decimal128(6, 0)))],
     ("part-00001.parquet", "'qid'", "decimal128(5, 0)", "decimal128(6, 0)")),
    ("timestamp-ids-of-two-units", [_t(pa.array([1, 1, 1], pa.timestamp("ms"))),
                                    _t(pa.array([2, 2], pa.timestamp("us")))],
     ("part-00001.parquet", "'qid'", "timestamp[ms]", "timestamp[us]")),
    ("a-null-score", [A, _t([2, 2], score=pa.array([0.3, None]))],
     ("part-00001.parquet", "row 2", "'score'")),
    ("a-float16-score-that-overflowed", [A, _t([2, 2], score=pa.array(
        np.array([np.inf, 0.4], np.float16)))], ("part-00001.parquet", "row 1", "'score'", "inf")),
    ("a-uint64-score-past-2-53", [A, _t([2, 2], score=pa.array([2**63, 2**63 + 1],
                                                                 pa.uint64()))],
     ("part-00001.parquet", "row 2", "'score'", "2^53")),
    ("bool-ids", [_t([True] * 3), _t([False] * 2)], ("part-00000.parquet", "'qid'", "bool")),
    ("bytes-ids", [_t(pa.array([b"1"] * 3)), _t(pa.array([b"2"] * 2))],
     ("part-00000.parquet", "'qid'", "bytes")),
]


@pytest.mark.parametrize(("parts", "words"), [(p, w) for _, p, w in REFUSED],
                         ids=[n for n, _, _ in REFUSED])
def test_refused_naming_shard_and_column(parts: list[pd.DataFrame | pa.Table],
                                         words: tuple[str, ...], tmp_path: Path,
                                         client: Any) -> None:
    with pytest.raises(DataError) as info:
        _dask(_shards(tmp_path, parts))
    _one_line(info.value, *words)


# -------------------------------------------------------------------------------------- races


def _listed_then(tmp: Path, change: Callable[[Path], None]) -> BaseException:
    """Shards A and B checked and read lazily, then ``change(second shard)``, then computed."""
    from bench.data.query_shards import read_query_shards, shard_columns
    from bench.metrics.distributed import evaluate_frame

    folder = _shards(tmp, [A, B])
    shard_columns(folder, COLS)
    ddf = read_query_shards(folder, columns=COLS)
    change(folder / "part-00001.parquet")
    with pytest.raises(DataError) as info:
        evaluate_frame(ddf, metrics=METRICS, where=str(folder), profile="ltrbench")
    return info.value


def _truncate(p: Path) -> None:
    data = p.read_bytes()
    p.write_bytes(data[: len(data) // 2])


@pytest.mark.parametrize(("change", "words"), [
    (os.unlink, ("part-00001.parquet",)),
    (_truncate, ("part-00001.parquet",)),
    (lambda p: pq.write_table(pa.table({"qid": ["x", "x"], "label": ["a", "b"],
                                        "score": [0.3, 0.4]}), p),
     ("part-00001.parquet", "'label'")),
], ids=["deleted", "truncated", "replaced-by-text-labels"])
def test_a_shard_changed_after_the_folder_was_checked_is_one_line_naming_it(
        change: Callable[[Path], None], words: tuple[str, ...], tmp_path: Path,
        client: Any) -> None:
    _one_line(_listed_then(tmp_path, change), *words)


# ---------------------------------------------------------------------------------- listeners


@pytest.mark.parametrize("scheme", ["tls", "wss"])
def test_a_tls_scheduler_without_client_certificates_is_refused_saying_what_to_set(
        scheme: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Something listens (the TCP connection would succeed); Dask's configuration names no CA
    file, so Dask's connect could only fail with its ssl_context message: refused first."""
    import dask

    from bench.data.dask_cluster import probe_scheduler

    with socket.socket() as srv, dask.config.set({"distributed.comm.tls.ca-file": None}):
        srv.bind(("127.0.0.1", 0))
        srv.listen(1)
        given = f"{scheme}://127.0.0.1:{srv.getsockname()[1]}"
        with pytest.raises(ConfigError) as info:
            probe_scheduler(given, given)
    _one_line(info.value, given, "distributed.comm.tls.ca-file", "tcp://")
