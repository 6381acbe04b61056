"""Hostile Dask shards, round 7 (issue 19 items 1 and 8, the Dask inputs): new instances.

Every case either gives the in-memory evaluator's number on the same rows (the oracle:
:func:`bench.metrics.evaluate` on the shards read by pyarrow into one frame, or on the same rows
as arrays; where stated, a golden value from hand arithmetic), or a one-line
:class:`~bench.errors.LtrbenchError` naming the shard's file, the row within it and the column.

Classes (the earlier rounds' are in ``tests/test_hostile_dask_shards.py``,
``tests/test_hostile_dask_round5.py``, ``tests/test_hostile_dask_inputs.py``):

* ``padding``: a profile whose labels mark padding rows (allRank's ``-1``, TF-Ranking's
  negative labels) is followed partition by partition as in memory (found here: the Dask path
  refused the rows ``evaluate`` accepts: ``label -1.0 is negative``);
* ``schema``: dictionary-encoded qid / score / label beside plain columns, nested columns read or
  not, timestamps, decimals, nulls;
* ``files``: a folder, a symlink loop, a link to a folder, a socket or ``/dev/zero`` named like a
  shard, an unreadable shard, names with glob characters, a zero-row row group, a data folder
  that is a symlink loop;
* ``split``: a query split over two shards (the rule: refused, both files named), also when one
  shard dictionary-encodes its ids, and the same (query, document) in two shards.

One in-process LocalCluster (one worker) serves the module.
"""

from __future__ import annotations

import json
import math
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
def _shards(tmp: Path, parts: list[pd.DataFrame | pa.Table],
            names: list[str] | None = None) -> Path:
    folder = tmp / "shards"
    folder.mkdir(exist_ok=True)
    for k, part in enumerate(parts):
        pq.write_table(_table(part), folder / (names[k] if names else f"part-{k:05d}.parquet"))
    return folder


def _dask(folder: Path, profile: str = "ltrbench", weight: str | None = None) -> dict[str, float]:
    """What ``ltrbench evaluate --engine dask --data folder`` computes (the module's client)."""
    from bench.data.query_shards import read_query_shards, shard_columns
    from bench.metrics.distributed import evaluate_frame

    cols = ["qid", "label", "score", *([weight] if weight else [])]
    shard_columns(folder, cols)
    r = evaluate_frame(read_query_shards(folder, columns=cols), metrics=METRICS, where=str(folder),
                       profile=profile, weight=weight)
    return {k: float(v) for k, v in r.metrics.items()}


def _local(folder: Path, profile: str = "ltrbench") -> dict[str, float]:
    """The in-memory oracle: every shard read by pyarrow, in file order, one frame."""
    from bench.metrics import evaluate

    frame = pd.concat([pq.read_table(f).to_pandas() for f in sorted(folder.glob("part-*"))],
                      ignore_index=True)
    r = evaluate(frame, label="label", score="score", qid="qid", metrics=METRICS, profile=profile)
    return {k: float(v) for k, v in r.metrics.items()}


def _refused(exc: BaseException, *words: str) -> None:
    text = str(exc)
    assert "\n" not in text, text
    for word in words:
        assert word in text, (word, text)


# ------------------------------------------------------------------------------------ padding


def test_allrank_padding_rows_in_one_shard_give_the_in_memory_number(tmp_path: Path,
                                                                      client: Any) -> None:
    padded = pd.DataFrame({"qid": [2, 2, 2], "label": [1.0, -1.0, 0.0], "score": [0.3, 0.9, 0.4]})
    folder = _shards(tmp_path, [A, padded])
    got = _dask(folder, profile="allrank")
    assert got == _local(folder, profile="allrank")
    assert got["ndcg@10"] == pytest.approx(NDCG_AB, abs=1e-6)  # the padding row is not a document


def test_a_query_of_padding_only_in_a_later_shard_is_the_in_memory_query(tmp_path: Path,
                                                                         client: Any) -> None:
    only = pd.DataFrame({"qid": [3, 3], "label": [-1.0, -1.0], "score": [0.5, 0.6]})
    folder = _shards(tmp_path, [A, B, only])
    assert _dask(folder, profile="allrank") == _local(folder, profile="allrank")


def test_tf_ranking_padding_with_a_nan_score_equals_the_array_path(tmp_path: Path,
                                                                   client: Any) -> None:
    """The profile's rule: a padding row's score is not read (NaN allowed,
    :attr:`bench.metrics.profile.Profile.padding`); the array path follows it."""
    from bench.metrics import evaluate

    padded = pd.DataFrame({"qid": [2, 2, 2], "label": [1.0, -2.0, 0.0],
                           "score": [0.3, math.nan, 0.4]})
    folder = _shards(tmp_path, [A, padded])
    rows = pd.concat([A, padded], ignore_index=True)
    want = evaluate(rows["label"].to_numpy(), rows["score"].to_numpy(), qid=rows["qid"].to_numpy(),
                    metrics=METRICS, profile="tf-ranking").metrics
    assert _dask(folder, profile="tf-ranking") == {k: float(v) for k, v in want.items()}


def test_per_row_weights_beside_padding_rows_are_refused_as_in_memory(tmp_path: Path,
                                                                       client: Any) -> None:
    from bench.metrics import evaluate

    padded = pd.DataFrame({"qid": [2, 2], "label": [1.0, -1.0], "score": [0.3, 0.9],
                           "w": [1.0, 2.0]})
    folder = _shards(tmp_path, [A.assign(w=1.0), padded])
    with pytest.raises(ConfigError, match="per-row weights with padding rows"):
        evaluate(padded, label="label", score="score", qid="qid", weights="w", profile="allrank")
    with pytest.raises(ConfigError) as info:
        _dask(folder, profile="allrank", weight="w")
    _refused(info.value, "part-00001.parquet", "per-row weights with padding rows")


def test_minus_one_under_a_profile_without_padding_is_still_refused_with_shard_row_column(
        tmp_path: Path, client: Any) -> None:
    folder = _shards(tmp_path, [A, B.assign(label=[1.0, -1.0])])
    with pytest.raises(DataError) as info:
        _dask(folder)
    _refused(info.value, "part-00001.parquet", "row 2", "'label'", "negative")


# ------------------------------------------------------------------------------------- schema


def _encoded(frame: pd.DataFrame, column: str) -> pa.Table:
    t = _table(frame)
    i = t.schema.get_field_index(column)
    return t.set_column(i, column, t.column(column).dictionary_encode())


def _equal_to_local(parts: list[pd.DataFrame | pa.Table]) -> Callable[[Path], None]:
    def run(tmp: Path) -> None:
        folder = _shards(tmp, parts)
        assert _dask(folder) == _local(folder)
    return run


def _refusal(parts: list[pd.DataFrame | pa.Table], kind: type[Exception],
             *words: str) -> Callable[[Path], None]:
    def run(tmp: Path) -> None:
        with pytest.raises(kind) as info:
            _dask(_shards(tmp, parts))
        _refused(info.value, *words)
    return run


def _nan_in_encoded_label() -> pa.Table:
    t = _table(B)
    return t.set_column(1, "label", pa.array([1.0, math.nan]).dictionary_encode())


def _inf_in_encoded_score() -> pa.Table:
    t = _table(B)
    return t.set_column(2, "score", pa.array([math.inf, 0.1]).dictionary_encode())


def _times(qids: list[int]) -> pa.Table:
    n = len(qids)
    return pa.table({"qid": pa.array(qids, pa.timestamp("ms")),
                     "label": [2.0, 0.0, 1.0][:n], "score": [0.9, 0.1, 0.5][:n]})


SCHEMA: list[tuple[str, Callable[[Path], None]]] = [
    ("dictionary-int-qid-beside-plain-int64", _equal_to_local([_encoded(A, "qid"), B])),
    ("dictionary-float-score-beside-plain", _equal_to_local([_encoded(A, "score"), B])),
    ("dictionary-label-beside-plain", _equal_to_local([_encoded(A, "label"), B])),
    ("nested-list-column-not-read", _equal_to_local(
        [_table(A).append_column("tags", pa.array([[1], [2, 3], []])), B])),
    # ids are text or integers on every path (round 11): refused here as in memory
    ("timestamp-qids-in-every-shard", _refusal([_times([1, 1, 1]), _times([2, 2])], DataError,
                                               "part-00000.parquet", "'qid'",
                                               "expected strings or integers")),
    ("nan-in-a-dictionary-encoded-label", _refusal(
        [A, _nan_in_encoded_label()], DataError, "part-00001.parquet", "row 2", "'label'")),
    ("inf-in-a-dictionary-encoded-score", _refusal(
        [A, _inf_in_encoded_score()], DataError, "part-00001.parquet", "row 1", "'score'", "inf")),
    ("list-label-column", _refusal(
        [A, pa.table({"qid": [2, 2], "label": pa.array([[1], [0]]), "score": [0.3, 0.4]})],
        DataError, "part-00001.parquet", "'label'", "expected numbers")),
    ("struct-score-column", _refusal(
        [A, pa.table({"qid": [2, 2], "label": [1.0, 0.0],
                      "score": pa.array([{"a": 1}, {"a": 2}])})],
        DataError, "part-00001.parquet", "'score'", "expected numbers")),
    ("timestamp-score-column", _refusal(
        [A, pa.table({"qid": [2, 2], "label": [1.0, 0.0],
                      "score": pa.array([1, 2], pa.timestamp("s"))})],
        DataError, "part-00001.parquet", "'score'", "expected numbers")),
    ("decimal-score-column", _refusal(
        [pa.table({"qid": [1, 1], "label": [1.0, 0.0],
                   "score": pa.array([1, 2], pa.decimal128(5, 0))})],
        DataError, "part-00000.parquet", "'score'", "expected numbers")),
    ("null-in-an-integer-label", _refusal(
        [A, pa.table({"qid": [2, 2], "label": pa.array([1, None], pa.int64()),
                      "score": [0.3, 0.4]})],
        DataError, "part-00001.parquet", "row 2", "'label'")),
    ("text-qid-with-white-space-in-a-later-shard", _refusal(
        [pa.table({"qid": ["1", "1"], "label": [1.0, 0.0], "score": [0.3, 0.4]}),
         pa.table({"qid": [" 2", " 2"], "label": [1.0, 0.0], "score": [0.3, 0.4]})],
        DataError, "part-00001.parquet", "row 1", "'qid'", "white space")),
    ("null-in-a-dictionary-encoded-qid", _refusal(
        [A, pa.table({"qid": pa.array([2, None]).dictionary_encode(), "label": [1.0, 0.0],
                      "score": [0.3, 0.4]})],
        DataError, "part-00001.parquet", "row 2", "'qid'", "missing query id")),
]


@pytest.mark.parametrize("case", [c for _, c in SCHEMA], ids=[n for n, _ in SCHEMA])
def test_schema(case: Callable[[Path], None], tmp_path: Path, client: Any) -> None:
    case(tmp_path)


# -------------------------------------------------------------------------------------- files


def _beside(make: Callable[[Path], None], *words: str) -> Callable[[Path], None]:
    """A good shard, then ``make(folder / "part-00001.parquet")``: refused, the name named."""
    def run(tmp: Path) -> None:
        folder = _shards(tmp, [A])
        make(folder / "part-00001.parquet")
        with pytest.raises(DataError) as info:
            _dask(folder)
        _refused(info.value, "part-00001.parquet", *words)
    return run


def _socket(path: Path) -> None:
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    s.close()


def _zero_row_group(tmp: Path) -> None:
    folder = _shards(tmp, [A])
    t = _table(B)
    with pq.ParquetWriter(folder / "part-00001.parquet", t.schema) as w:
        w.write_table(t.slice(0, 1))
        w.write_table(t.slice(0, 0))  # a row group of no rows between two
        w.write_table(t.slice(1, 1))
    assert pq.ParquetFile(folder / "part-00001.parquet").metadata.num_row_groups == 3
    assert _dask(folder) == _local(folder)
    assert _dask(folder)["ndcg@10"] == pytest.approx(NDCG_AB, abs=1e-15)


def _named(names: list[str]) -> Callable[[Path], None]:
    def run(tmp: Path) -> None:
        folder = _shards(tmp, [A, B], names)
        assert _dask(folder) == _local(folder)
        assert _dask(folder)["ndcg@10"] == pytest.approx(NDCG_AB, abs=1e-15)
    return run


def _folder_loop(tmp: Path) -> None:
    os.symlink("loop", tmp / "loop")
    with pytest.raises(DataError) as info:
        _dask(tmp / "loop")
    _refused(info.value, "loop", "folder of Parquet shards")


FILES: list[tuple[str, Callable[[Path], None]]] = [
    ("a-folder-named-like-a-shard", _beside(lambda p: p.mkdir(), "directory")),
    ("a-symlink-loop-named-like-a-shard", _beside(lambda p: os.symlink(p.name, p),
                                                  "symbolic links")),
    ("a-link-to-the-folder-itself", _beside(lambda p: os.symlink(".", p), "directory")),
    ("a-unix-socket-named-like-a-shard", _beside(_socket, "regular file")),
    ("a-link-to-dev-zero", _beside(lambda p: os.symlink("/dev/zero", p), "regular file")),
    ("a-zero-row-row-group-inside-a-shard", _zero_row_group),
    ("shard-names-with-brackets", _named(["part-00000.parquet", "part-[1].parquet"])),
    ("shard-names-with-a-star", _named(["part-00000.parquet", "part-*.parquet"])),
    ("shard-names-with-a-question-mark", _named(["part-00000.parquet", "part-?.parquet"])),
    ("a-data-folder-that-is-a-symlink-loop", _folder_loop),
]


@pytest.mark.parametrize("case", [c for _, c in FILES], ids=[n for n, _ in FILES])
def test_files(case: Callable[[Path], None], tmp_path: Path, client: Any) -> None:
    case(tmp_path)


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0,
                    reason="root reads a file of mode 000: chmod does not bite")
def test_an_unreadable_shard_is_named(tmp_path: Path, client: Any) -> None:
    folder = _shards(tmp_path, [A, B])
    os.chmod(folder / "part-00001.parquet", 0)
    with pytest.raises(DataError) as info:
        _dask(folder)
    _refused(info.value, "part-00001.parquet")


# -------------------------------------------------------------------------------------- split


def test_a_query_split_over_a_dictionary_encoded_and_a_plain_shard_names_both(
        tmp_path: Path, client: Any) -> None:
    """The rule for a query over two shards: refused, both files named (never merged)."""
    folder = _shards(tmp_path, [_encoded(A, "qid"), A.assign(score=[0.2, 0.3, 0.4])])
    with pytest.raises(DataError) as info:
        _dask(folder)
    _refused(info.value, "query qid=1", "part-00000.parquet", "part-00001.parquet")


def test_the_same_query_and_document_in_two_shards_is_a_split_query(tmp_path: Path,
                                                                     client: Any) -> None:
    one = A.assign(doc=["a", "b", "c"])
    folder = _shards(tmp_path, [one, B.assign(doc=["d", "e"]), one.iloc[:1]])
    with pytest.raises(DataError) as info:
        _dask(folder)
    _refused(info.value, "query qid=1", "part-00000.parquet", "part-00002.parquet")


def test_padding_in_partitions_equals_evaluate_on_random_frames(tmp_path: Path,
                                                                client: Any) -> None:
    """Random padded lists (allRank's -1) cut at query boundaries into 3 shards: the Dask
    number is the in-memory one, for each metric."""
    rng = np.random.default_rng(7)
    frames = []
    for q in range(30):
        n = int(rng.integers(1, 8))
        labels = rng.integers(-1, 4, n).astype(np.float64)
        frames.append(pd.DataFrame({"qid": q, "label": labels, "score": rng.random(n)}))
    parts = [pd.concat(frames[i:i + 10], ignore_index=True) for i in (0, 10, 20)]
    folder = _shards(tmp_path, parts)
    got, want = _dask(folder, profile="allrank"), _local(folder, profile="allrank")
    assert got.keys() == want.keys()
    for k in got:
        assert got[k] == pytest.approx(want[k], rel=0, abs=1e-12), k


# ---------------------------------------------------------------- more schemas, convert globs


def test_a_later_shard_with_the_qid_column_renamed_is_named(tmp_path: Path, client: Any) -> None:
    folder = _shards(tmp_path, [A, B.rename(columns={"qid": "query"})])
    with pytest.raises(DataError) as info:
        _dask(folder)
    _refused(info.value, "part-00001.parquet", "'qid'", "query")


def test_int32_qids_beside_text_qids_are_read_by_the_text_rule(tmp_path: Path,
                                                               client: Any) -> None:
    """Round 23b: integer ids in one shard and text in another are read as a frame of
    ``[1, 1, 1, "2", "2"]`` is (ids compare as text): two queries, the hand-computed number
    (was refused, naming both types)."""
    ints = _table(A).cast(pa.schema([("qid", pa.int32()), ("label", pa.float64()),
                                     ("score", pa.float64())]))
    folder = _shards(tmp_path, [ints, B.assign(qid=["2", "2"])])
    assert _dask(folder)["ndcg@10"] == pytest.approx(NDCG_AB, abs=1e-12)


@pytest.mark.parametrize(("ratings", "words"), [
    ("out/train/*.parquet", "destroy the input"), ("out/*/part-*.parquet", "destroy the input"),
    ("nothing-*.csv", "no file matches"), ("out/tr[ai]in", "destroy the input")])
def test_convert_on_dask_refuses_a_glob_of_nothing_or_of_its_own_output(
        tmp_path: Path, ratings: str, words: str) -> None:
    """A ratings glob that matches nothing, or the shards the conversion would write (an
    earlier conversion into the same --out), is one line before any cluster starts."""
    from hostile_kit import cli, refused

    shard = tmp_path / "out" / "train" / "part-00000.parquet"
    shard.parent.mkdir(parents=True)
    pq.write_table(pa.table({"userId": [1], "movieId": [2], "rating": [4.0],
                             "timestamp": [100]}), shard)
    # the shards are an earlier conversion's (its record lists them: round 23 refuses files
    # of convert's names that no conversion wrote, before the inputs are looked at)
    (tmp_path / "out" / "summary.json").write_text(
        json.dumps({"files": ["train/part-00000.parquet", "summary.json"]}), encoding="utf-8")
    res = cli(tmp_path, "convert", "--engine", "dask", "--ratings", ratings, "--out", "out")
    why = refused(res, words)
    assert why is None, why
    assert shard.is_file()  # the input the glob names is left as it was
