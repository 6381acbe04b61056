"""Round 23, hostile: the data-platform engineer (classes "frames" and "shards").

They never write a text file: the same judgments and scores reach ltrbench as pandas frames of
every dtype pandas 3 and pyarrow make (NumPy scalars in object columns, nullable and Arrow
columns, integer column names, float ids a NaN left behind), dicts, ranx objects, Parquet
shards and Dask frames built by hand. Each path must give the oracle's number (pytrec_eval,
ranx, or hand arithmetic written beside the case) or one clear ltrbench error naming the
column, the partition and the row; the same id rule and dtype rule on every path.

Earlier catalogues (rounds 8, 9, 12, 15, 16, 19, 22 and the Dask shard files) cover nullable and
Arrow columns, categorical labels, float128 ties, integer scores beyond 2^53 in integer columns,
hive folders, unfinished shards and schema drift of the qid between shards. New here: NumPy
integer scalars beyond 2^53 in dicts and object columns, float query ids beyond 2^53 (ids a
float cast may already have merged), Dask frames whose partitions hold ids of mixed types
(``1`` beside ``"1"``, a tuple), integer column names given to ``evaluate`` by name, and the
same rows compared across frame, dict, ranx object, shards and a Dask frame.

Each test names its class in its name: silently wrong number / traceback / unclear error /
silent accept / input destroyed; the other tests pin an oracle's number on a path not pinned
before (a regression there would be a silently wrong number).
"""

from __future__ import annotations

import math
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from dask_kit import NDCG_AB, A, B, no_cluster  # noqa: F401 (a fixture)
from hostile_kit import cli, csv_values, own_error

from bench.errors import LtrbenchError
from bench.metrics import evaluate, evaluate_trec

dd = pytest.importorskip("dask.dataframe")
pytrec_eval = pytest.importorskip("pytrec_eval")

# --------------------------------------------------------------------------- shared data

LAB = [2, 0, 1, 0, 1, 0, 1, 0]
SC = [0.9, 0.8, 0.1, 0.3, 0.3, 0.7, 0.2, 0.5]
QID = [1, 1, 1, 2, 2, 2, 3, 3]
#: ndcg@3 under the ltrbench profile (gain 2^l - 1, tied scores share their gain), by hand:
#: query 1 ranks labels 2, 0, 1: (3 + 1/log2 4) / (3 + 1/log2 3); query 2 ranks 0 first, then
#: labels 0 and 1 tied at ranks 2-3 (gain 1/2 at each): 0.5/log2 3 + 0.5/log2 4 over 1;
#: query 3 ranks 0 then 1: 1/log2 3
Q1 = (3 + 1 / math.log2(4)) / (3 + 1 / math.log2(3))
Q2 = 0.5 / math.log2(3) + 0.5 / math.log2(4)
Q3 = 1 / math.log2(3)
NDCG3 = (Q1 + Q2 + Q3) / 3


def _frame(**cols: Any) -> pd.DataFrame:
    return pd.DataFrame({"qid": QID, "label": LAB, "score": SC}).assign(**cols)


def _dask(frame: pd.DataFrame, parts: int = 1) -> Any:
    """``frame`` as a Dask frame of ``parts`` partitions, its object columns kept as they are
    (Dask's ``convert-string`` would make them text before ltrbench sees them)."""
    import dask

    with dask.config.set({"dataframe.convert-string": False}):
        return dd.from_pandas(frame, npartitions=parts, sort=False)


def _split(frame: pd.DataFrame, cuts: list[int]) -> Any:
    """``frame`` as a Dask frame cut into partitions at rows ``cuts`` (empty ones kept)."""
    import dask

    parts = [frame.iloc[a:b] for a, b in pairwise([0, *cuts, frame.shape[0]])]
    return dd.from_delayed([dask.delayed(lambda x: x)(p) for p in parts], meta=frame.iloc[:0])


def _dask_eval(ddf: Any, **kw: Any) -> Any:
    import dask

    from bench.metrics.distributed import evaluate_frame

    with dask.config.set(scheduler="synchronous"):
        return evaluate_frame(ddf, metrics="ndcg@3", **kw)


def _ok(why: str | None) -> None:
    assert why is None, why


def _pytrec(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]],
            measure: str) -> float:
    ev = pytrec_eval.RelevanceEvaluator(qrels, {measure.rsplit("_", 1)[0] if "cut" in measure
                                                else measure})
    per = ev.evaluate(run)
    return float(np.mean([v[measure] for v in per.values()]))


def test_the_oracle_of_this_file_is_the_plain_arrays_number() -> None:
    """The hand value above is what the plain arrays give (the base every path is held to)."""
    got = evaluate(LAB, SC, qid=QID, metrics="ndcg@3").metrics["ndcg@3"]
    assert got == pytest.approx(NDCG3, abs=1e-12)


# ------------------------------------ NumPy integer scores beyond 2^53 (silently wrong number)

#: doc "a" is relevant and scored 2^60 + 1, doc "b" not and scored 2^60: "a" ranks first
#: (ndcg 1, recip_rank 1). As float64 both are 2^60: a tie, which trec_eval's rule (document
#: id descending) gives to "b": ndcg 1/log2(3) = 0.63. A Python int is refused; NumPy's must be.
BIG_QRELS = {"1": {"a": 2, "b": 0}}


@pytest.mark.parametrize("kind", [np.int64, np.uint64])
def test_silently_wrong_numpy_integer_scores_beyond_2_53_in_a_run_dict_are_refused(
        kind: Any) -> None:
    run = {"1": {"a": kind(2**60 + 1), "b": kind(2**60)}}
    _ok(own_error(lambda: evaluate_trec(BIG_QRELS, run, metrics="ndcg_cut_10"), "2^53", "'a'"))


def test_silently_wrong_an_object_score_column_of_numpy_integers_beyond_2_53_is_refused() -> None:
    """``pd.concat`` of frames with int64 and float scores leaves an object column of NumPy
    scalars; the int64 column itself is refused, so the same numbers in objects must be."""
    run = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"],
                        "score": np.array([np.int64(2**60 + 1), np.int64(2**60)], dtype=object)})
    _ok(own_error(lambda: evaluate_trec(BIG_QRELS, run, metrics="ndcg_cut_10"),
                  "2^53", "row 1", "score"))


def test_silently_wrong_an_object_array_of_numpy_integer_scores_in_evaluate_is_refused() -> None:
    """By hand: the relevant row scores higher, mrr 1; as a tie ltrbench averages it to 0.75."""
    scores = np.array([np.int64(2**60 + 1), np.int64(2**60)], dtype=object)
    _ok(own_error(lambda: evaluate([1, 0], scores, qid=[1, 1], metrics="mrr"), "2^53", "row 1"))


def test_numpy_integer_scores_within_2_53_in_a_dict_are_pytrec_evals_number() -> None:
    run = {"1": {"a": np.int64(2**53), "b": np.int64(2**53 - 1)}}
    got = evaluate_trec(BIG_QRELS, run, metrics="ndcg_cut_10").metrics["ndcg_cut_10"]
    assert got == pytest.approx(_pytrec(BIG_QRELS, {"1": {"a": 2.0**53, "b": 2.0**53 - 1}},
                                        "ndcg_cut_10"), abs=1e-12)


# ------------------------------ float query ids beyond 2^53: ids a float may have merged already

#: pandas reads an int64 id column with one empty cell as float64: 2^53 + 1 becomes 2^53, so
#: two queries are one before ltrbench sees them. Below 2^53 a float id is exact.
FLOAT_BIG = np.array([2.0**53] * 3 + [2.0**53 + 2] * 3 + [2.0**53 + 4] * 2)


def test_silently_wrong_float_query_ids_beyond_2_53_in_a_frame_are_refused() -> None:
    _ok(own_error(lambda: evaluate(_frame(qid=FLOAT_BIG), metrics="ndcg@3"),
                  "2^53", "row 1", "qid"))


def test_silently_wrong_float_query_ids_beyond_2_53_as_an_array_are_refused() -> None:
    _ok(own_error(lambda: evaluate(LAB, SC, qid=FLOAT_BIG, metrics="ndcg@3"), "2^53", "row 1"))


def test_silently_wrong_float_query_ids_beyond_2_53_in_a_dask_frame_are_refused() -> None:
    _ok(own_error(lambda: _dask_eval(_dask(_frame(qid=FLOAT_BIG))), "2^53", "partition 0",
                  "qid"))


def test_silently_wrong_build_refuses_float_query_ids_beyond_2_53() -> None:
    from bench.data.letor import LetorData

    _ok(own_error(lambda: LetorData.build(np.zeros((8, 1)), LAB, qid=FLOAT_BIG), "2^53",
                  "row 1"))


def test_float_query_ids_below_2_53_are_still_the_arrays_number() -> None:
    got = evaluate(_frame(qid=np.array(QID, dtype=float) + 2.0**52), metrics="ndcg@3")
    assert got.metrics["ndcg@3"] == pytest.approx(NDCG3, abs=1e-12)


# ------------------------ Dask frames built by hand: one id rule with the local engine

def test_unclear_error_a_dask_partition_mixing_1_and_text_1_is_one_query_as_locally() -> None:
    """Locally ``1`` and ``"1"`` are one query (ids compare as text); the Dask layout check
    called the rows of that query not contiguous."""
    frame = _frame(qid=np.array([1, "1", 1, 2, 2, 2, 3, 3], dtype=object))
    assert evaluate(frame, metrics="ndcg@3").metrics["ndcg@3"] == pytest.approx(NDCG3, abs=1e-12)
    got = _dask_eval(_dask(frame)).metrics["ndcg@3"]
    assert got == pytest.approx(NDCG3, abs=1e-12)


def test_unclear_error_numpy_python_and_text_ids_of_one_query_name_no_partition_twice() -> None:
    """``np.int64(1)``, ``1`` and ``"1"`` in one partition: one query, not "query 1 lies in
    partitions 0 and 0"."""
    frame = _frame(qid=np.array([np.int64(1), 1, "1", 2, 2, 2, 3, 3], dtype=object))
    got = _dask_eval(_dask(frame)).metrics["ndcg@3"]
    assert got == pytest.approx(NDCG3, abs=1e-12)


def test_traceback_tuple_query_ids_in_a_dask_frame_are_a_data_error() -> None:
    frame = _frame(qid=pd.Series([(1,)] * 3 + [(2,)] * 3 + [(3,)] * 2, dtype=object))
    _ok(own_error(lambda: _dask_eval(_dask(frame)), "tuple", "partition 0", "row 1", "qid"))


def test_text_1_in_one_partition_and_integer_1_in_another_is_a_split_query() -> None:
    """Under the text rule they are one query, so across partitions it is a query in two."""
    frame = pd.concat([_frame().iloc[:3].assign(qid="1"), _frame().iloc[:3]], ignore_index=True)
    _ok(own_error(lambda: _dask_eval(_dask(frame.astype({"qid": object}), parts=2)),
                  "partitions 0 and 1"))


@pytest.mark.parametrize("qid", [
    pd.array(QID, dtype=pd.ArrowDtype(pa.dictionary(pa.int8(), pa.int64()))),
    pd.Categorical(["q1"] * 3 + ["q2"] * 3 + ["q3"] * 2, categories=["q3", "zz", "q2", "q1"]),
    pd.array([str(q) for q in QID], dtype=pd.ArrowDtype(pa.large_string())),
], ids=["arrow-dictionary-int", "category-unused-categories", "arrow-large-string"])
def test_dask_frames_of_dictionary_category_and_arrow_ids_give_the_local_number(qid: Any) -> None:
    got = _dask_eval(_dask(_frame(qid=qid), parts=1)).metrics["ndcg@3"]
    assert got == pytest.approx(NDCG3, abs=1e-12)


@pytest.mark.parametrize("qid", [[1, 2, "1", 2, 1, 2, 3, 3], [1.0, 2, 1, 2, np.int64(1), 2, 3, 3]],
                         ids=["int-beside-text", "float-int-numpy"])
def test_traceback_align_queries_shuffles_ids_of_mixed_types_into_the_local_queries(
        qid: list[Any]) -> None:
    """``align_queries`` on an object qid column mixing types ended in Dask's "Metadata
    inference failed in `min`" (it sorts the ids); the local rule makes each one query. By hand:
    query 1 is rows 1, 3, 5 (labels 2, 1, 1 scored 0.9, 0.1, 0.3: ranked ideally, 1), query 2
    rows 2, 4, 6 (labels 0: blank, left out), query 3 as above (1/log2 3)."""
    from bench.data.query_align import align_queries

    frame = _frame(qid=np.array(qid, dtype=object))
    want = (1.0 + Q3) / 2
    assert evaluate(frame, metrics="ndcg@3").metrics["ndcg@3"] == pytest.approx(want, abs=1e-12)
    got = _dask_eval(align_queries(_dask(frame, parts=2))).metrics["ndcg@3"]
    assert got == pytest.approx(want, abs=1e-12)


def test_align_queries_leaves_a_tuple_id_to_the_checks_that_name_it() -> None:
    from bench.data.query_align import align_queries

    frame = _frame(qid=pd.Series([(1,)] * 3 + [(2,)] * 3 + [(3,)] * 2, dtype=object))
    _ok(own_error(lambda: _dask_eval(align_queries(_dask(frame, parts=2))), "expected strings",
                  "qid"))


def test_a_dask_frame_with_an_empty_partition_gives_the_local_number() -> None:
    ddf = _split(_frame(), [3, 3, 6])
    assert _dask_eval(ddf).metrics["ndcg@3"] == pytest.approx(NDCG3, abs=1e-12)


def test_dask_and_local_weights_that_vary_inside_a_query_give_one_number() -> None:
    """A query's weight is the mean of its rows' (0.5 * (1 + 2 + 1) / 3 ...): the same on both."""
    frame = _frame(w=[1.0, 2.0, 3.0, 1.0, 1.0, 1.0, 4.0, 2.0])
    local = evaluate(frame, weights="w", metrics="ndcg@3").metrics["ndcg@3"]
    w = np.array([2.0, 1.0, 3.0])  # the mean weight of queries 1, 2, 3
    assert local == pytest.approx(float(np.dot(w, [Q1, Q2, Q3]) / w.sum()), abs=1e-12)
    assert _dask_eval(_split(frame, [3, 6]), weight="w").metrics["ndcg@3"] == local


# ---------------------------------- integer column names (a header-less CSV read by pandas)

def test_unclear_error_integer_column_names_given_by_name_are_those_columns() -> None:
    """``pd.read_csv(header=None)`` names columns 0, 1, 2: ``label=1, score=2`` were read,
    ``qid=0`` was refused as "one value"; the Dask engine reads all three."""
    frame = _frame().set_axis([0, 1, 2], axis=1)
    got = evaluate(frame, qid=0, label=1, score=2, metrics="ndcg@3").metrics["ndcg@3"]
    assert got == pytest.approx(NDCG3, abs=1e-12)
    assert _dask_eval(_dask(frame), qid=0, label=1, score=2).metrics["ndcg@3"] == got


def test_unclear_error_an_integer_weights_column_name_is_that_column() -> None:
    frame = _frame(w=[1.0, 2.0, 3.0, 1.0, 1.0, 1.0, 4.0, 2.0]).set_axis([0, 1, 2, 3], axis=1)
    got = evaluate(frame, qid=0, label=1, score=2, weights=3, metrics="ndcg@3").metrics["ndcg@3"]
    w = np.array([2.0, 1.0, 3.0])
    assert got == pytest.approx(float(np.dot(w, [Q1, Q2, Q3]) / w.sum()), abs=1e-12)


def test_an_integer_that_names_no_column_is_still_refused_saying_so() -> None:
    _ok(own_error(lambda: evaluate(_frame().set_axis([0, 1, 2], axis=1), qid=7, label=1,
                                   score=2, metrics="ndcg@3"), "qid=7", "column"))


def test_silent_accept_a_bool_is_no_column_name_even_where_it_equals_column_1() -> None:
    """``True == 1``: ``weights=True`` must not pick the column named 1 (the labels)."""
    frame = _frame().set_axis([0, 1, 2], axis=1)
    _ok(own_error(lambda: evaluate(frame, qid=0, label=1, score=2, weights=True,
                                   metrics="ndcg@3"), "weights"))


# -------------------------------- one answer for frame, dict, ranx object and file of one run

QRELS = {"1": {"d1": 2, "d2": 0, "d3": 1}, "2": {"d4": 0, "d5": 1, "d9": 2}}
RUN = {"1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}, "2": {"d4": 0.3, "d5": 0.3, "d6": 0.7}}


def _long(d: dict[str, dict[str, Any]], col: str) -> pd.DataFrame:
    return pd.DataFrame([(q, doc, v) for q, x in d.items() for doc, v in x.items()],
                        columns=["query_id", "doc_id", col])


def _trec_files(tmp: Path) -> tuple[Path, Path]:
    qrels, run = tmp / "q.txt", tmp / "r.txt"
    qrels.write_text("".join(f"{q} 0 {d} {r}\n" for q, x in QRELS.items() for d, r in x.items()))
    run.write_text("".join(f"{q} Q0 {d} {i + 1} {s} t\n" for q, x in RUN.items()
                           for i, (d, s) in enumerate(x.items())))
    return qrels, run


def test_frame_dict_and_file_of_one_run_give_pytrec_evals_numbers(tmp_path: Path) -> None:
    want = {m: _pytrec(QRELS, RUN, m) for m in ("ndcg_cut_10", "map")}
    qf = _long(QRELS, "relevance").astype({"query_id": "category", "doc_id": "string[pyarrow]"})
    rf = _long(RUN, "score").iloc[[5, 0, 3, 1, 4, 2]].set_index(["query_id", "doc_id"])
    files = _trec_files(tmp_path)
    answers = [evaluate_trec(QRELS, RUN, metrics=list(want)),
               evaluate_trec(qf, rf, metrics=list(want)),
               evaluate_trec(*files, metrics=list(want))]
    for res in answers:
        assert res.metrics == pytest.approx(want, abs=1e-12)


def test_a_dict_of_mapping_views_and_numpy_keys_is_the_plain_dicts_number() -> None:
    from types import MappingProxyType

    qrels = MappingProxyType({np.str_(q): MappingProxyType({np.str_(d): np.uint8(r)
                                                            for d, r in x.items()})
                              for q, x in QRELS.items()})
    run = {int(q): {d: np.float32(s) for d, s in x.items()} for q, x in RUN.items()}
    got = evaluate_trec(qrels, run, metrics=["ndcg_cut_10"]).metrics["ndcg_cut_10"]
    assert got == pytest.approx(_pytrec(QRELS, {q: {d: float(np.float32(s)) for d, s in
                                                   x.items()} for q, x in RUN.items()},
                                        "ndcg_cut_10"), abs=1e-12)


def test_unclear_error_a_run_frame_of_float_ids_names_the_column_and_says_how() -> None:
    """A run frame whose integer qids became floats (a NaN dropped since) is read as
    ``evaluate`` reads them (round 23b, one rule for float ids: a whole float below 2^53 is its
    integer, the number of the integer ids); a fractional one is refused, naming the column
    and the row."""
    rf = _long(RUN, "score")
    whole = rf.assign(query_id=rf["query_id"].astype(float))
    want = evaluate_trec(QRELS, rf, metrics=["map"]).metrics["map"]
    assert evaluate_trec(QRELS, whole, metrics=["map"]).metrics["map"] == want
    half = rf.assign(query_id=rf["query_id"].astype(float) + 0.5)
    _ok(own_error(lambda: evaluate_trec(QRELS, half, metrics=["map"]), "query_id", "row 1",
                  "whole number"))


def test_input_destroyed_evaluate_leaves_a_frame_and_its_view_as_they_were() -> None:
    parent = pd.concat([_frame(), _frame(qid=[q + 10 for q in QID])], ignore_index=True)
    view = parent.iloc[::2]
    before_parent, before_view = parent.copy(deep=True), view.copy(deep=True)
    got = evaluate(view, metrics="ndcg@3").metrics["ndcg@3"]
    # every other row: queries 1/11 keep labels 2, 1 (ideal), 2/12 one label 1 (ideal), 3/13 a
    # label 1 alone: every query ranked ideally
    assert got == pytest.approx(1.0, abs=1e-12)
    pd.testing.assert_frame_equal(parent, before_parent)
    pd.testing.assert_frame_equal(view, before_view)


def test_a_multiindex_frame_with_the_qid_as_a_level_gives_the_arrays_number() -> None:
    frame = _frame(doc=range(8)).set_index(["qid", "doc"]).iloc[[6, 0, 3, 7, 1, 4, 2, 5]]
    assert evaluate(frame, metrics="ndcg@3").metrics["ndcg@3"] == pytest.approx(NDCG3, abs=1e-12)


# ------------------------------------------------------- Parquet shards through the CLI door

def _shards(tmp: Path, tables: list[pa.Table | pd.DataFrame]) -> Path:
    folder = tmp / "shards"
    folder.mkdir()
    for i, t in enumerate(tables):
        table = t if isinstance(t, pa.Table) else pa.Table.from_pandas(t, preserve_index=False)
        pq.write_table(table, folder / f"part-{i:05d}.parquet")
    return folder


def _cli_ndcg(tmp: Path) -> float | None:
    res = cli(tmp, "evaluate", "--engine", "dask", "--data", "shards", "--format", "csv",
              "--metrics", "ndcg@10")
    assert not res.traceback, res.err
    assert res.status == 0, res.err
    return csv_values(res).get("ndcg@10")


def test_shards_of_dictionary_encoded_labels_and_scores_with_drifting_column_order(
        tmp_path: Path, no_cluster: None) -> None:  # noqa: F811
    """Spark writes dictionary pages; a second job wrote the columns in another order and the
    qid as uint8: the concatenation's number (hand: ``NDCG_AB``)."""
    first = pa.table({"qid": pa.array([1, 1, 1], pa.uint8()),
                      "label": pa.array([2.0, 0.0, 1.0]).dictionary_encode(),
                      "score": pa.array([0.9, 0.1, 0.5]).dictionary_encode()})
    _shards(tmp_path, [first, B[["score", "label", "qid"]]])
    assert _cli_ndcg(tmp_path) == pytest.approx(NDCG_AB, abs=1e-15)


def test_silently_wrong_double_qid_shards_beyond_2_53_are_refused_naming_the_shard(
        tmp_path: Path, no_cluster: None) -> None:  # noqa: F811
    _shards(tmp_path, [A.assign(qid=2.0**60), B.assign(qid=2.0**60 + 2**8)])
    res = cli(tmp_path, "evaluate", "--engine", "dask", "--data", "shards", "--metrics",
              "ndcg@10")
    assert not res.traceback, res.err
    assert res.status == 2, res.err
    assert "2^53" in res.err, res.err
    assert "part-00000.parquet, row 1" in res.err, res.err


def test_a_half_float_score_shard_and_an_empty_shard_give_the_hand_number(
        tmp_path: Path, no_cluster: None) -> None:  # noqa: F811
    """0.9, 0.1, 0.5 as float16 keep their order; an empty shard adds nothing."""
    half = pa.table({"qid": [1, 1, 1], "label": [2.0, 0.0, 1.0],
                     "score": pa.array(np.array([0.9, 0.1, 0.5], dtype=np.float16))})
    empty = pa.Table.from_pandas(A.iloc[:0], preserve_index=False)
    _shards(tmp_path, [half, empty, B])
    assert _cli_ndcg(tmp_path) == pytest.approx(NDCG_AB, abs=1e-15)


def test_unclear_error_python_reader_names_shard_and_row_of_mixed_ids_it_cannot_compare(
        tmp_path: Path) -> None:
    """``read_query_shards`` then ``evaluate_frame`` (the README's out-of-core path): a shard
    of text ids with a white-space id is named with its file and row, not as a split query."""
    from bench.data.query_shards import read_query_shards

    folder = _shards(tmp_path, [A.astype({"qid": str}).assign(qid=["1", "1 ", "1"]),
                                B.astype({"qid": str})])
    _ok(own_error(lambda: _dask_eval(read_query_shards(folder), where=str(folder)),
                  "part-00000.parquet", "row 2", "white space"))


def test_no_traceback_on_odd_dask_frames() -> None:
    """Whatever a hand-built Dask frame holds: the number or ltrbench's own error."""
    frames = [_frame(qid=np.array([b"1"] * 3 + [2] * 3 + [3] * 2, dtype=object)),
              _frame(qid=np.array([1.0, 1, 1, 2, 2, 2, 3, 3], dtype=object)),
              _frame(qid=np.array([None, 1, 1, 2, 2, 2, 3, 3], dtype=object)),
              _frame(qid=np.array([frozenset([1])] * 3 + [2] * 5, dtype=object)),
              _frame(score=np.array([np.int64(1), 0.5, 0.1, 0.3, 0.3, 0.7, 0.2, 0.5],
                                    dtype=object))]
    for frame in frames:
        try:
            _dask_eval(_dask(frame))
        except LtrbenchError:
            pass
        except Exception as exc:  # pragma: no cover - the failure being tested
            raise AssertionError(f"{type(exc).__name__}: {exc}") from exc


def test_a_dask_object_score_column_of_numpy_integers_is_the_local_number() -> None:
    """An object column of NumPy integers and floats is numbers locally; on Dask too."""
    score = np.array([np.int64(9), 8, 1, 3, 3, 7, 2, 5], dtype=object)  # the order of SC
    local = evaluate(_frame(score=score), metrics="ndcg@3").metrics["ndcg@3"]
    assert local == pytest.approx(NDCG3, abs=1e-12)
    got = _dask_eval(_dask(_frame(score=score))).metrics["ndcg@3"]
    assert got == pytest.approx(NDCG3, abs=1e-12)


def test_unclear_error_dask_names_a_null_label_missing_as_the_local_engine_does() -> None:
    frame = _frame(label=pd.array([2, None, 1, 0, 1, 0, 1, 0], dtype="Int64"))
    local = own_error(lambda: evaluate(frame, metrics="ndcg@3"), "missing", "row 2", "label")
    _ok(local)
    _ok(own_error(lambda: _dask_eval(_dask(frame)), "missing", "row 2", "label", "partition 0"))
