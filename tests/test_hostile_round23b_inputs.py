"""Round 23b, hostile: the data engineer checking that every input path answers alike (classes
"frames", "shards" and "bad files").

One hostile value (a float query id, a bool label, bytes, NaN, 2^53) is fed through every path
that reads it: a DataFrame and arrays given to ``evaluate``, a frame and a dict given to
``evaluate_trec``, ``LetorData.build``, a LETOR Parquet file, a Dask frame made by
``dd.from_pandas`` and a folder of Parquet shards. Each path must give the same answer (the
number worked by hand below) or the same refusal (an ltrbench error). Classes: a path that
accepts what another refuses is a silent accept; a path whose number differs is a silently
wrong number; a non-ltrbench exception is a traceback.

Also the gaps earlier helpers left: ``-W error`` making pandas' deprecation warning inside
Dask's Parquet reader ltrbench's error, integer and text query ids in two shards, a hive
folder holding ``qid=01`` and ``qid=1``, and the ratings ids ``+1``, ``1.0``, ``1e0``.
"""

from __future__ import annotations

import contextlib
import io
import math
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from dask_kit import NDCG_AB, A, B, dask_ratings, local_ratings, no_cluster  # noqa: F401
from hostile_kit import chdir, cli, main_status, own_error

from bench.data import LetorData
from bench.errors import LtrbenchError
from bench.metrics import evaluate, evaluate_trec

dd = pytest.importorskip("dask.dataframe")
dask = pytest.importorskip("dask")

LAB = [2, 0, 1, 0]
SC = [0.9, 0.8, 0.1, 0.3]
#: ndcg@10 by hand: query a ranks labels 2, 0 (ideal: 1); query b ranks label 0 before label 1
#: (1/log2 3 over an ideal 1)
NDCG = (1.0 + 1.0 / math.log2(3.0)) / 2.0
REFUSED = "refused"


def _outcome(fn: Callable[[], Any]) -> Any:
    """ndcg@10 rounded, ``REFUSED`` for an ltrbench error, ``traceback: <type>`` otherwise."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = fn()
    except LtrbenchError:
        return REFUSED
    except Exception as exc:  # a traceback
        return f"traceback: {type(exc).__name__}: {str(exc)[:80]}"
    return round(float(value), 12)


def _col(values: list[Any]) -> Any:
    """A column of ``values``: object dtype when they mix types, else NumPy's."""
    kinds = {type(v) for v in values}
    return np.asarray(values, dtype=object) if len(kinds) > 1 else np.asarray(values)


def _frame(qid: list[Any], label: list[Any] = LAB) -> pd.DataFrame:
    return pd.DataFrame({"qid": _col(qid), "label": _col(label), "score": SC})


def _nd(res: Any) -> float:
    return float(res.metrics["ndcg@10"])


def _via_frame(qid: list[Any], label: list[Any], tmp: Path) -> float:
    return _nd(evaluate(_frame(qid, label), metrics=["ndcg@10"]))


def _via_arrays(qid: list[Any], label: list[Any], tmp: Path) -> float:
    return _nd(evaluate(_col(label), np.asarray(SC), qid=_col(qid), metrics=["ndcg@10"]))


def _via_trec_frame(qid: list[Any], label: list[Any], tmp: Path) -> float:
    docs = ["d1", "d2", "d3", "d4"]
    qrels = pd.DataFrame({"qid": _col(qid), "docno": docs, "rel": _col(label)})
    run = pd.DataFrame({"qid": _col(qid), "docno": docs, "score": SC})
    return _nd(evaluate_trec(qrels, run, metrics=["ndcg@10"]))


def _via_build(qid: list[Any], label: list[Any], tmp: Path) -> float:
    d = LetorData.build(np.zeros((4, 1)), _col(label), qid=_col(qid))
    return _nd(evaluate(d.y, np.asarray(SC), qid=d.qid, metrics=["ndcg@10"]))


def _table(qid: list[Any], label: list[Any]) -> pa.Table:
    return pa.table({"qid": pa.array(qid), "label": pa.array(label),
                     "f1": pa.array([0.0] * 4), "score": pa.array(SC)})


def _via_letor_parquet(qid: list[Any], label: list[Any], tmp: Path) -> float:
    from bench.data.parquet import read_parquet

    pq.write_table(_table(qid, label).drop(["score"]), tmp / "split.parquet")
    d = read_parquet(tmp / "split.parquet")
    return _nd(evaluate(d.y, np.asarray(SC), qid=d.qid, metrics=["ndcg@10"]))


def _via_dask_frame(qid: list[Any], label: list[Any], tmp: Path) -> float:
    from bench.metrics.distributed import evaluate_frame

    ddf = dd.from_pandas(_frame(qid, label), npartitions=1)
    with dask.config.set(scheduler="synchronous"):
        return _nd(evaluate_frame(ddf, score="score", metrics=["ndcg@10"]))


def _via_shards(qid: list[Any], label: list[Any], tmp: Path) -> float:
    from bench.data.query_shards import read_query_shards
    from bench.metrics.distributed import evaluate_frame

    (tmp / "shards").mkdir()
    pq.write_table(_table(qid, label), tmp / "shards" / "part-00000.parquet")
    with dask.config.set(scheduler="synchronous"):
        ddf = read_query_shards(tmp / "shards", columns=["qid", "label", "score"])
        return _nd(evaluate_frame(ddf, score="score", metrics=["ndcg@10"]))


PATHS: dict[str, Callable[[list[Any], list[Any], Path], float]] = {
    "evaluate-frame": _via_frame, "evaluate-arrays": _via_arrays,
    "evaluate_trec-frame": _via_trec_frame, "LetorData.build": _via_build,
    "letor-parquet": _via_letor_parquet, "dask-from_pandas": _via_dask_frame,
    "dask-shards": _via_shards,
}

#: (hostile query ids of the two queries, the one answer every path must give)
QID_CASES: dict[str, tuple[list[Any], Any]] = {
    # a whole float is the integer it holds (README: "1.0 is id 1"), on every path
    "whole-floats": ([1.0, 1.0, 2.0, 2.0], NDCG),
    # a fractional float is no id: 1.2 and 1.7 would both be query 1 where ids are integers
    "fractional-floats": ([1.5, 1.5, 2.5, 2.5], REFUSED),
    "float-from-2^53": ([2.0**53, 2.0**53, 2.0, 2.0], REFUSED),
    "nan": ([math.nan, 1.0, 2.0, 2.0], REFUSED),
    "inf": ([math.inf, math.inf, 2.0, 2.0], REFUSED),
    "bools": ([True, True, False, False], REFUSED),
    "negative-whole-floats": ([-1.0, -1.0, 2.0, 2.0], NDCG),
}


@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("case", list(QID_CASES))
def test_silent_accept_one_query_id_one_answer_on_every_path(case: str, path: str,
                                                               tmp_path: Path) -> None:
    qid, want = QID_CASES[case]
    got = _outcome(lambda: PATHS[path](qid, LAB, tmp_path))
    assert got == (round(want, 12) if want != REFUSED else want), (case, path, got)


#: hostile labels: (labels, the one answer)
LABEL_CASES: dict[str, tuple[list[Any], Any]] = {
    "bool-labels": ([True, False, True, False], REFUSED),  # silent accept in LetorData.build
    "nan-label": ([2.0, math.nan, 1.0, 0.0], REFUSED),
}


@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("case", list(LABEL_CASES))
def test_silent_accept_one_label_one_answer_on_every_path(case: str, path: str,
                                                            tmp_path: Path) -> None:
    labels, want = LABEL_CASES[case]
    got = _outcome(lambda: PATHS[path]([1, 1, 2, 2], labels, tmp_path))
    assert got == want, (case, path, got)


@pytest.mark.parametrize("path", ["evaluate-frame", "evaluate_trec-frame", "dask-from_pandas"])
def test_silent_accept_bytes_ids_refused_on_every_frame_path(path: str, tmp_path: Path) -> None:
    """Dask's convert-string turns bytes into text inside ``dd.from_pandas``: the bytes a
    local frame refuses must be refused there too (silent accept)."""
    got = _outcome(lambda: PATHS[path]([b"a", b"a", b"b", b"b"], LAB, tmp_path))
    assert got == REFUSED, (path, got)


def test_silent_accept_trec_dict_fractional_float_key_refused_whole_float_read() -> None:
    """A dict key 2.5 is refused and a key 1.0 is query 1, as in a frame."""
    qrels: dict[Any, Any] = {1.0: {"d1": 2, "d2": 0}, 2.5: {"d3": 1, "d4": 0}}
    run: dict[Any, Any] = {1.0: {"d1": 0.9, "d2": 0.8}, 2.5: {"d3": 0.1, "d4": 0.3}}
    assert own_error(lambda: evaluate_trec(qrels, run, metrics=["ndcg@10"]), "2.5") is None
    got = evaluate_trec({1.0: qrels[1.0]}, {"1": run[1.0]}, metrics=["ndcg@10"])
    assert got.metrics["ndcg@10"] == pytest.approx(1.0)


def test_silently_wrong_number_whole_float_trec_qid_matches_integer_run(tmp_path: Path) -> None:
    """A qrels frame whose qid a NaN elsewhere made float (1.0) against a run of text ids
    ``"1"``: one query, judged (ndcg 1), not a run no qrels judge."""
    qrels = pd.DataFrame({"qid": [1.0, 1.0], "docno": ["d1", "d2"], "rel": [1, 0]})
    run = pd.DataFrame({"qid": ["1", "1"], "docno": ["d1", "d2"], "score": [0.9, 0.1]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = evaluate_trec(qrels, run, metrics=["ndcg@10"]).metrics["ndcg@10"]
    assert got == pytest.approx(1.0)


def test_silently_wrong_number_build_whole_float_qid_is_the_integer() -> None:
    d = LetorData.build(np.zeros((4, 1)), np.asarray(LAB), qid=np.asarray([7.0, 7.0, 9.0, 9.0]))
    assert d.qid.tolist() == [7, 7, 9, 9]


def _shard(folder: Path, name: str, part: pd.DataFrame) -> None:
    folder.mkdir(exist_ok=True)
    pq.write_table(pa.Table.from_pandas(part, preserve_index=False), folder / name)


@pytest.mark.usefixtures("no_cluster")
def test_silent_accept_int_and_text_qid_shards_read_by_the_text_rule(tmp_path: Path) -> None:
    """Query 1 as int64 in one shard, query ``"b"`` as text in another: the id rule (ids compare
    as text) joins them, as a frame of ``[1, 1, 1, "b", "b"]`` is read: NDCG_AB, not a refusal."""
    from bench.engines.dask_engine import evaluate_shards
    from bench.engines.table import ClusterOptions

    _shard(tmp_path, "part-00000.parquet", A)
    _shard(tmp_path, "part-00001.parquet", B.assign(qid=["b", "b"]))
    local = evaluate(pd.concat([A.astype({"qid": object}), B.assign(qid=["b", "b"])]),
                     metrics=["ndcg@10"]).metrics["ndcg@10"]
    assert local == pytest.approx(NDCG_AB)

    def shards() -> float:
        res = evaluate_shards(tmp_path, score_column="score", metrics=["ndcg@10"],
                              profile="ltrbench", per_query=False, options=ClusterOptions())
        return float(res.metrics["ndcg@10"])

    assert _outcome(shards) == round(NDCG_AB, 12)


@pytest.mark.usefixtures("no_cluster")
def test_silent_accept_int_and_text_qid_shards_same_id_is_one_query_twice(tmp_path: Path) -> None:
    """Query 1 as int64 in one shard and ``"1"`` as text in the next: one query in two
    partitions, refused naming it (a query split over partitions), never two queries."""
    from bench.engines.dask_engine import evaluate_shards
    from bench.engines.table import ClusterOptions

    _shard(tmp_path, "part-00000.parquet", A)
    _shard(tmp_path, "part-00001.parquet", B.assign(qid=["1", "1"]))

    def shards() -> Any:
        return evaluate_shards(tmp_path, score_column="score", metrics=["ndcg@10"],
                               profile="ltrbench", per_query=False, options=ClusterOptions())

    assert own_error(shards, "qid=1", "partitions 0 and 1") is None


@pytest.mark.usefixtures("no_cluster")
def test_traceback_hive_folder_qid_01_beside_qid_1(tmp_path: Path) -> None:
    """``qid=01`` and ``qid=1`` hive folders given to ``evaluate --engine dask``: Dask's own
    ``dd.read_parquet`` fails there ("Categorical categories must be unique", the user's call,
    not ltrbench's); ltrbench's shard reader names the hive folder instead (exit 2, no
    traceback, no number)."""
    for sub, part in (("qid=01", A.drop(columns="qid")), ("qid=1", B.drop(columns="qid"))):
        (tmp_path / "h" / sub).mkdir(parents=True)
        pq.write_table(pa.Table.from_pandas(part, preserve_index=False),
                       tmp_path / "h" / sub / "part-0.parquet")
    res = cli(tmp_path, "evaluate", "--engine", "dask", "--data", "h", "--metrics", "ndcg@10")
    assert res.status == 2, res.err
    assert "qid=" in res.err, res.err
    assert "Traceback" not in res.err, res.err


@pytest.mark.usefixtures("no_cluster")
def test_unclear_error_W_error_does_not_turn_dasks_pandas_warning_into_ours(tmp_path: Path) -> None:
    """``-W error``: pandas' deprecation warning raised inside Dask's own Parquet reader
    (``reset_index(inplace=True)``) is not the user's input problem: the answer, exit 0."""
    _shard(tmp_path / "s", "part-00000.parquet", A)
    _shard(tmp_path / "s", "part-00001.parquet", B)
    out, err = io.StringIO(), io.StringIO()
    with chdir(tmp_path), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            warnings.catch_warnings():
        warnings.simplefilter("error")  # as -W error / PYTHONWARNINGS=error set it
        status = main_status(["evaluate", "--engine", "dask", "--data", "s", "--metrics",
                              "ndcg@10", "--format", "csv"], err)
    assert status == 0, err.getvalue()
    assert f"{NDCG_AB:.6f}"[:7] in out.getvalue()


@pytest.mark.parametrize("cell", ["+1", "1.0", "1e0", "01"])
def test_silently_wrong_number_ratings_user_spellings_alike_on_four_readers(
        cell: str, tmp_path: Path) -> None:
    """A ratings table whose user ``1`` is spelled ``cell`` in its second row: one user on the
    local and the Dask reader of CSV and of Parquet (README: ``+1``, ``1.0``, ``1e0`` are 1)."""
    raw = pd.DataFrame({"user": ["1", cell], "item": ["10", "11"], "rating": [4.0, 3.0],
                        "timestamp": [1, 2]})
    raw.to_csv(tmp_path / "r.csv", index=False)
    raw.to_parquet(tmp_path / "r.parquet", index=False)
    got = {}
    for name in ("r.csv", "r.parquet"):
        got[f"local {name}"] = local_ratings(tmp_path / name)["user"].nunique()
        got[f"dask {name}"] = dask_ratings(tmp_path / name)["user"].nunique()
    assert set(got.values()) == {1}, got


def test_unclear_error_W_error_dask_ratings_parquet_reads_as_locally(tmp_path: Path) -> None:
    """The Dask ratings reader under ``-W error``: pandas' deprecation warning inside Dask's
    Parquet reader is not the table's problem: the local reader's rows, not an error."""
    raw = pd.DataFrame({"user": [1, 2], "item": [10, 11], "rating": [4.0, 3.0],
                        "timestamp": [1, 2]})
    raw.to_parquet(tmp_path / "r.parquet", index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = dask_ratings(tmp_path / "r.parquet")
    assert got["rating"].tolist() == [4.0, 3.0]
    assert got["user"].nunique() == 2


@pytest.mark.parametrize(("user", "want"), [([1.0, 1.0], 1), ([1.5, 1.0], REFUSED)])
def test_silent_accept_ratings_frame_float_users_as_the_files_read_them(
        user: list[float], want: Any, tmp_path: Path) -> None:
    """A ratings frame's float users follow the file rule (README: ``1.0`` is id 1, ``1.5``
    refused at its row), as the Parquet readers of both engines read the same float column."""
    from bench.data.ratings import as_ratings

    raw = pd.DataFrame({"user": user, "item": [10, 11], "rating": [4.0, 3.0],
                        "timestamp": [1, 2]})
    raw.to_parquet(tmp_path / "r.parquet", index=False)
    got = {"frame": _outcome(lambda: as_ratings(raw).frame["user"].nunique()),
           "local": _outcome(lambda: local_ratings(tmp_path / "r.parquet")["user"].nunique()),
           "dask": _outcome(lambda: dask_ratings(tmp_path / "r.parquet")["user"].nunique())}
    assert set(got.values()) == {want}, got
