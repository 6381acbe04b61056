"""Hostile calls of the Python API, round 12 (issue 19): an ML engineer in a Jupyter notebook who
never touches the command line and passes whatever their data already is.

``evaluate``, ``evaluate_trec`` and ``bench.benchmark.run`` (with custom rankers) fed pandas
frames with Categorical / nullable / Arrow columns, a qid in the index or a MultiIndex, column
labels that are tuples, object columns of NumPy scalars, extended-precision (``float128``) and
half-precision (``float16``) values, memory-mapped / read-only / negative-stride arrays, dicts
with int and str keys mixed, ranx objects, and rankers that return lists, Series, float32,
objects with ``__array__``, that use threads, reseed NumPy, return ``None`` from ``fit``, or are
interrupted with Ctrl-C. The notebook's process state and the inputs must come out unchanged.

Oracles: hand arithmetic, scikit-learn's ``ndcg_score`` over gains ``2^l - 1`` (its ties are
averaged as ltrbench's), pytrec_eval, deep copies for "inputs unchanged", and a ltrbench error
(one line) naming the argument / column / row and what was expected for every refusal.
"""

from __future__ import annotations

import copy
import itertools
import logging
import os
import sys
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from bench.data.letor import LetorData, LetorSplits
from bench.data.trec_objects import as_run
from bench.errors import LtrbenchError
from bench.metrics import evaluate, evaluate_trec

LABELS = [2, 0, 1, 0, 1, 0]
SCORES = [0.9, 0.8, 0.1, 0.3, 0.35, 0.7]
QID = ["q1", "q1", "q1", "q2", "q2", "q2"]


def _dcg(gains: list[float]) -> float:
    return sum(g / np.log2(i + 2) for i, g in enumerate(gains))


# Hand arithmetic (gain 2^l - 1, no ties): q1 ranks labels 2, 0, 1 (scores 0.9, 0.8, 0.1);
# q2 ranks 0 (0.7), 1 (0.35), 0 (0.3).
Q1 = _dcg([3, 0, 1]) / _dcg([3, 1, 0])
Q2 = _dcg([0, 1, 0]) / _dcg([1, 0, 0])
NDCG3 = (Q1 + Q2) / 2


def _frame(**cols: Any) -> pd.DataFrame:
    base: dict[str, Any] = {"qid": QID, "label": LABELS, "score": SCORES}
    base.update(cols)
    return pd.DataFrame(base)


def _clear(exc: BaseException, *words: str) -> None:
    """A ltrbench error (never a bare Python or library exception), one line, naming every word."""
    assert isinstance(exc, LtrbenchError), f"{type(exc).__name__}: {exc}"
    text = str(exc)
    for word in words:
        assert word in text, f"{word!r} not in {text!r}"
    assert "\n" not in text, f"a multi-line error: {text!r}"
    assert "Traceback" not in text


def _refused(call: Any, *words: str) -> None:
    with pytest.raises(LtrbenchError) as info:
        call()
    _clear(info.value, *words)


def _ndcg3(result: Any) -> float:
    return float(result.metrics["ndcg@3"])


def _sklearn_ndcg(y: np.ndarray, s: np.ndarray, offsets: np.ndarray, k: int) -> float:
    """Mean NDCG@k over queries, scikit-learn's ``ndcg_score`` on gains 2^l - 1 (ties averaged)."""
    sk = pytest.importorskip("sklearn.metrics")
    vals = []
    for a, b in itertools.pairwise(offsets):
        gains = (2.0 ** y[a:b] - 1)[None, :]
        vals.append(sk.ndcg_score(gains, s[a:b][None, :].astype(np.float64), k=k))
    return float(np.mean(vals))


# ---------------------------------------------------------------- frames with pandas' own dtypes


def test_categorical_qid_with_unused_categories_in_another_order_is_the_hand_number() -> None:
    cat = pd.Categorical(QID, categories=["q9", "q2", "q1"])
    assert _ndcg3(evaluate(_frame(qid=cat), metrics="ndcg@3")) == pytest.approx(NDCG3, abs=1e-15)


def test_categorical_numeric_labels_are_their_values_not_their_codes() -> None:
    # codes of categories [2, 1, 0] in this order would be 0, 1, 2: the reverse of the labels
    cat = pd.Categorical(LABELS, categories=[2, 1, 0])
    assert _ndcg3(evaluate(_frame(label=cat), metrics="ndcg@3")) == pytest.approx(NDCG3, abs=1e-15)


def test_nullable_int_label_float_score_and_string_qid_series_are_the_hand_number() -> None:
    f = _frame()
    r = evaluate(f.label.astype("Int64"), f.score.astype("Float64"), qid=f.qid.astype("string"),
                 metrics="ndcg@3")
    assert _ndcg3(r) == pytest.approx(NDCG3, abs=1e-15)


def test_arrow_dictionary_qid_and_int8_label_columns_are_the_hand_number() -> None:
    pa = pytest.importorskip("pyarrow")
    qid = pd.Series(pa.array(QID).dictionary_encode(),
                    dtype=pd.ArrowDtype(pa.dictionary(pa.int32(), pa.string())))
    f = _frame(qid=qid, label=pd.Series(LABELS, dtype=pd.ArrowDtype(pa.int8())),
               score=pd.Series(SCORES, dtype=pd.ArrowDtype(pa.float32())))
    # float32 scores: 0.35 and 0.3 stay apart, the order is the float64 one
    assert _ndcg3(evaluate(f, metrics="ndcg@3")) == pytest.approx(NDCG3, abs=1e-15)


def test_nullable_label_with_a_missing_value_names_row_and_column() -> None:
    f = _frame(label=pd.array([2, 0, None, 0, 1, 0], dtype="Int64"))
    _refused(lambda: evaluate(f, metrics="ndcg@3"), "row 3", "'label'", "missing")


def test_arrow_score_with_a_null_names_row_and_column() -> None:
    pa = pytest.importorskip("pyarrow")
    f = _frame(score=pd.Series(pa.array([0.9, 0.8, None, 0.3, 0.35, 0.7]),
                               dtype=pd.ArrowDtype(pa.float64())))
    _refused(lambda: evaluate(f, metrics="ndcg@3"), "row 3", "'score'")


def test_sparse_label_column_is_the_hand_number() -> None:
    f = _frame(label=pd.arrays.SparseArray(LABELS, fill_value=0))
    assert _ndcg3(evaluate(f, metrics="ndcg@3")) == pytest.approx(NDCG3, abs=1e-15)


def test_object_column_of_numpy_scalars_is_the_hand_number() -> None:
    f = _frame(label=pd.Series([np.int8(v) for v in LABELS], dtype=object),
               score=pd.Series([np.float32(v) for v in SCORES], dtype=object),
               qid=pd.Series([np.str_(v) for v in QID], dtype=object))
    assert _ndcg3(evaluate(f, metrics="ndcg@3")) == pytest.approx(NDCG3, abs=1e-7)


def test_object_column_of_numpy_bools_as_labels_is_refused_naming_the_row() -> None:
    f = _frame(label=pd.Series([np.bool_(v) for v in LABELS], dtype=object))
    _refused(lambda: evaluate(f, metrics="ndcg@3"), "row 1", "'label'", "bool")


# ---------------------------------------------------------------- where the qid is


def test_qid_as_a_named_index_level_of_a_multiindex_is_the_hand_number() -> None:
    f = _frame(doc=range(6)).set_index(["doc", "qid"])
    assert _ndcg3(evaluate(f, metrics="ndcg@3")) == pytest.approx(NDCG3, abs=1e-15)


def test_qid_both_a_column_and_an_index_level_is_refused_naming_it() -> None:
    f = _frame().set_index(pd.Index(["q1", "q2"] * 3, name="qid"))
    _refused(lambda: evaluate(f, metrics="ndcg@3"), "'qid'", "column", "index level")


def test_duplicated_score_column_is_refused_naming_it() -> None:
    f = pd.concat([_frame(), _frame()[["score"]]], axis=1)
    _refused(lambda: evaluate(f, metrics="ndcg@3"), "'score'", "2 times")


def test_tuple_column_labels_of_a_two_level_header_name_the_columns() -> None:
    f = pd.DataFrame({("a", "qid"): QID, ("a", "label"): LABELS, ("a", "score"): SCORES})
    r = evaluate(f, qid=("a", "qid"), label=("a", "label"), score=("a", "score"),
                 metrics="ndcg@3")
    assert _ndcg3(r) == pytest.approx(NDCG3, abs=1e-15)


def test_a_part_of_a_two_level_header_label_is_refused_asking_for_a_full_label() -> None:
    f = pd.DataFrame({("a", "qid"): QID, ("a", "label"): LABELS, ("a", "score"): SCORES})
    _refused(lambda: evaluate(f, qid=("a",), label=("a", "label"), score=("a", "score"),
                              metrics="ndcg@3"), "('a',)", "3 columns", "full label")


def test_a_full_header_label_the_frame_lacks_is_refused_listing_the_columns() -> None:
    f = pd.DataFrame({("a", "qid"): QID, ("a", "label"): LABELS, ("a", "score"): SCORES})
    _refused(lambda: evaluate(f, qid=("a", "query"), label=("a", "label"),
                              score=("a", "score"), metrics="ndcg@3"),
             "('a', 'query')", "qid=", "('a', 'qid')")


@pytest.mark.parametrize("given", [pd.Series(SCORES), np.array(SCORES), ["score"]],
                         ids=["series", "ndarray", "list"])
def test_score_keyword_given_values_instead_of_a_name_is_one_clear_line(given: Any) -> None:
    f = _frame()[["qid", "label"]].assign(s=SCORES)
    _refused(lambda: evaluate(f, score=given, metrics="ndcg@3"), "score=", "column name")


def test_label_keyword_given_a_series_is_one_clear_line() -> None:
    f = _frame()
    _refused(lambda: evaluate(f, label=f.label, metrics="ndcg@3"), "label=", "column name")


def test_run_frame_score_keyword_given_a_series_is_one_clear_line() -> None:
    f = pd.DataFrame({"qid": QID, "docno": list("abcdef"), "s": SCORES})
    _refused(lambda: as_run(f, score=f.s), "score=", "column name")


def test_label_keyword_true_is_refused_as_no_column_name() -> None:
    _refused(lambda: evaluate(_frame(), label=True, metrics="ndcg@3"), "label=", "bool")


def test_qrels_frame_rel_keyword_given_a_list_is_one_clear_line() -> None:
    from bench.data.trec_objects import as_qrels

    f = pd.DataFrame({"qid": QID, "docno": list("abcdef"), "g": LABELS})
    _refused(lambda: as_qrels(f, rel=LABELS), "rel=", "column name", "list")


def test_tuple_weights_column_of_a_two_level_header_weights_the_queries() -> None:
    f = pd.DataFrame({("a", "qid"): QID, ("a", "label"): LABELS, ("a", "score"): SCORES,
                      ("b", "w"): [1, 1, 1, 3, 3, 3]})
    r = evaluate(f, qid=("a", "qid"), label=("a", "label"), score=("a", "score"),
                 weights=("b", "w"), metrics="ndcg@3")
    assert _ndcg3(r) == pytest.approx((Q1 + 3 * Q2) / 4, abs=1e-15)


# ---------------------------------------------------------------- precision of the numbers


def _ld_close() -> np.ndarray:
    """Two scores of query q1 that differ in float128 and are one float64."""
    ld = np.asarray(SCORES, dtype=np.longdouble)
    ld[1] = ld[0] + 4 * np.finfo(np.longdouble).eps
    if np.finfo(np.longdouble).eps >= np.finfo(np.float64).eps:
        pytest.skip("long double is float64 on this platform")
    assert ld[1] != ld[0]
    assert float(ld[1]) == float(ld[0])
    return ld


def test_float128_scores_that_tie_in_float64_are_refused_as_arrays() -> None:
    ld = _ld_close()
    _refused(lambda: evaluate(LABELS, ld, qid=QID, metrics="ndcg@3"), "rows 1 and 2", "float64")


def test_float128_score_column_that_ties_in_float64_is_refused_naming_the_column() -> None:
    ld = _ld_close()
    _refused(lambda: evaluate(_frame(score=ld), metrics="ndcg@3"), "'score'", "float64", "row")


def test_object_column_of_float128_scalars_that_tie_in_float64_is_refused() -> None:
    ld = _ld_close()
    f = _frame(score=pd.Series(list(ld), dtype=object))
    _refused(lambda: evaluate(f, metrics="ndcg@3"), "'score'", "float64")


def test_run_dict_of_float128_scores_that_tie_in_float64_is_refused_naming_keys() -> None:
    ld = _ld_close()
    qrels = {"q1": {"a": 2, "b": 0, "c": 1}}
    run = {"q1": {"a": ld[0], "b": ld[1], "c": ld[2]}}
    _refused(lambda: evaluate_trec(qrels, run, metrics="ndcg_cut_10"), "['q1']", "float64")


def test_run_frame_float128_score_column_that_ties_in_float64_is_refused() -> None:
    ld = _ld_close()
    qrels = {"q1": {"a": 2, "b": 0, "c": 1}}
    run = pd.DataFrame({"qid": ["q1"] * 3, "docno": ["a", "b", "c"], "score": ld[:3]})
    _refused(lambda: evaluate_trec(qrels, run, metrics="ndcg_cut_10"), "'score'", "float64")


def test_object_array_of_float128_scalars_that_tie_in_float64_is_refused() -> None:
    ld = _ld_close()
    _refused(lambda: evaluate(LABELS, np.array(list(ld), dtype=object), qid=QID,
                              metrics="ndcg@3"), "rows 1 and 2", "float64")


def test_float128_scores_that_float64_tells_apart_are_the_hand_number() -> None:
    ld = np.asarray(SCORES, dtype=np.longdouble)
    assert _ndcg3(evaluate(_frame(score=ld), metrics="ndcg@3")) == pytest.approx(NDCG3, abs=1e-15)


def test_float16_query_ids_per_query_are_the_hand_numbers_per_query() -> None:
    q = np.array([1, 1, 1, 2, 2, 2], dtype=np.float16)
    r = evaluate(LABELS, SCORES, qid=q, metrics="ndcg@3", per_query=True)
    assert r.per_query["ndcg@3"].tolist() == pytest.approx([Q1, Q2], abs=1e-15)
    assert [float(v) for v in r.per_query["qid"]] == [1.0, 2.0]


def test_float16_qid_column_per_query_is_the_hand_numbers() -> None:
    f = _frame(qid=np.array([7, 7, 7, 9, 9, 9], dtype=np.float16))
    r = evaluate(f, metrics="ndcg@3", per_query=True)
    assert r.per_query["ndcg@3"].tolist() == pytest.approx([Q1, Q2], abs=1e-15)


def test_float16_scores_are_ranked_as_their_float16_values() -> None:
    s16 = np.array(SCORES, dtype=np.float16)
    assert _ndcg3(evaluate(LABELS, s16, qid=QID, metrics="ndcg@3")) == pytest.approx(NDCG3,
                                                                                       abs=1e-15)


# ---------------------------------------------------------------- arrays the way NumPy hands them


def test_memory_mapped_read_only_int8_labels_are_the_hand_number(tmp_path: Path) -> None:
    path = tmp_path / "labels.bin"
    np.asarray(LABELS, dtype=np.int8).tofile(path)
    labels = np.memmap(path, dtype=np.int8, mode="r")
    assert _ndcg3(evaluate(labels, SCORES, qid=QID, metrics="ndcg@3")) == pytest.approx(NDCG3,
                                                                                          abs=1e-15)
    assert path.read_bytes() == np.asarray(LABELS, dtype=np.int8).tobytes()


def test_negative_stride_and_strided_column_views_are_the_hand_number() -> None:
    table = np.zeros((6, 3))
    table[:, 1] = SCORES[::-1]
    scores = table[::-1, 1]  # a strided column read backwards
    labels = np.asarray(LABELS)[::-1][::-1]
    assert _ndcg3(evaluate(labels, scores, qid=np.asarray(QID)[::-1][::-1],
                           metrics="ndcg@3")) == pytest.approx(NDCG3, abs=1e-15)


def test_read_only_arrays_are_read_and_not_made_writable() -> None:
    s = np.asarray(SCORES)
    s.flags.writeable = False
    assert _ndcg3(evaluate(LABELS, s, qid=QID, metrics="ndcg@3")) == pytest.approx(NDCG3, abs=1e-15)
    assert not s.flags.writeable


def test_masked_scores_without_a_masked_value_are_the_hand_number() -> None:
    s = np.ma.array(SCORES, mask=np.zeros(6, dtype=bool))
    assert _ndcg3(evaluate(LABELS, s, qid=QID, metrics="ndcg@3")) == pytest.approx(NDCG3, abs=1e-15)


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
def test_numpy_matrix_row_of_scores_is_refused_naming_its_shape() -> None:
    _refused(lambda: evaluate(LABELS, np.matrix(SCORES), qid=QID, metrics="ndcg@3"),
             "scores", "(1, 6)")


def test_iterator_qid_is_refused_naming_the_argument() -> None:
    _refused(lambda: evaluate(LABELS, SCORES, qid=iter(QID), metrics="ndcg@3"), "qid", "list")


def test_structured_array_is_read_as_its_dataframe() -> None:
    # Round 17: read as its DataFrame (it was refused, naming the conversion), as ratings,
    # qrels and runs read one: the frame's number, not only a clear error.
    st = np.array(list(zip(QID, LABELS, SCORES, strict=True)),
                  dtype=[("qid", "U3"), ("label", "i4"), ("score", "f8")])
    frame = pd.DataFrame({"qid": QID, "label": LABELS, "score": SCORES})
    assert evaluate(st, metrics="ndcg@3").metrics == evaluate(frame, metrics="ndcg@3").metrics


# ---------------------------------------------------------------- dicts, ranx objects, pytrec_eval

QRELS = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d4": 0, "d5": 1, "d9": 2}}
RUN = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}, "q2": {"d4": 0.3, "d5": 0.35, "d6": 0.7}}


def _pytrec(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> dict[str, float]:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    per = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut_10"}).evaluate(run)
    return {m: float(np.mean([v[m] for v in per.values()])) for m in ("ndcg_cut_10", "map")}


def test_int_and_numpy_int_query_keys_match_string_run_keys_as_pytrec_eval() -> None:
    qrels = {1: QRELS["q1"], np.int64(2): QRELS["q2"]}
    run = {"1": RUN["q1"], "2": RUN["q2"]}
    got = evaluate_trec(qrels, run, metrics=["ndcg_cut_10", "map"]).metrics
    want = _pytrec({"1": QRELS["q1"], "2": QRELS["q2"]}, run)
    assert got == pytest.approx(want, abs=1e-12)


def test_numpy_float32_run_values_are_pytrec_eval_number() -> None:
    run = {q: {d: np.float32(s) for d, s in docs.items()} for q, docs in RUN.items()}
    got = evaluate_trec(QRELS, run, metrics=["ndcg_cut_10", "map"]).metrics
    want = _pytrec(QRELS, {q: {d: float(s) for d, s in docs.items()} for q, docs in run.items()})
    assert got == pytest.approx(want, abs=1e-12)


def test_ranx_objects_are_pytrec_eval_number() -> None:
    ranx = pytest.importorskip("ranx")
    got = evaluate_trec(ranx.Qrels(QRELS), ranx.Run(RUN), metrics=["ndcg_cut_10", "map"]).metrics
    assert got == pytest.approx(_pytrec(QRELS, RUN), abs=1e-12)


def test_categorical_run_and_qrels_frames_are_pytrec_eval_number() -> None:
    qf = pd.DataFrame([(q, d, r) for q, ds in QRELS.items() for d, r in ds.items()],
                      columns=["qid", "docno", "rel"]).astype({"qid": "category", "docno": "category"})
    rf = pd.DataFrame([(q, d, s) for q, ds in RUN.items() for d, s in ds.items()],
                      columns=["qid", "docno", "score"]).astype({"qid": "category"})
    got = evaluate_trec(qf, rf, metrics=["ndcg_cut_10", "map"]).metrics
    assert got == pytest.approx(_pytrec(QRELS, RUN), abs=1e-12)


def test_run_series_indexed_docno_then_qid_is_read_by_level_names() -> None:
    rf = pd.DataFrame([(q, d, v) for q, ds in RUN.items() for d, v in ds.items()],
                      columns=["qid", "docno", "score"])
    got = evaluate_trec(QRELS, rf.set_index(["docno", "qid"])["score"],
                        metrics=["ndcg_cut_10", "map"]).metrics
    assert got == pytest.approx(_pytrec(QRELS, RUN), abs=1e-12)


def test_integer_docnos_in_a_run_frame_match_text_docnos_of_the_qrels() -> None:
    qrels = {q: {d[1:]: r for d, r in ds.items()} for q, ds in QRELS.items()}
    run = pd.DataFrame([(q, int(d[1:]), v) for q, ds in RUN.items() for d, v in ds.items()],
                       columns=["qid", "docno", "score"])
    want = _pytrec(qrels, {q: {d[1:]: v for d, v in ds.items()} for q, ds in RUN.items()})
    assert evaluate_trec(qrels, run, metrics=["ndcg_cut_10", "map"]).metrics == pytest.approx(
        want, abs=1e-12)


def test_a_decimal_run_value_is_refused_naming_its_keys() -> None:
    from decimal import Decimal

    run = copy.deepcopy(RUN)
    run["q2"]["d5"] = Decimal("0.35")  # type: ignore[assignment]
    _refused(lambda: evaluate_trec(QRELS, run, metrics="ndcg_cut_10"), "['q2']['d5']", "Decimal")


# ---------------------------------------------------------------- re-entrancy and threads


def test_evaluating_twice_leaves_frame_and_dicts_unchanged_and_gives_one_number() -> None:
    pa = pytest.importorskip("pyarrow")
    f = _frame(qid=pd.Categorical(QID), label=pd.array(LABELS, dtype="Int64"),
               score=pd.Series(SCORES, dtype=pd.ArrowDtype(pa.float64()))).iloc[[4, 0, 5, 2, 3, 1]]
    f0 = f.copy(deep=True)
    qrels, run = copy.deepcopy(QRELS), copy.deepcopy(RUN)
    first, second = (_ndcg3(evaluate(f, metrics="ndcg@3")) for _ in range(2))
    t1 = evaluate_trec(qrels, run, metrics=["ndcg_cut_10", "map"]).metrics
    t2 = evaluate_trec(qrels, run, metrics=["ndcg_cut_10", "map"]).metrics
    assert first == second == pytest.approx(NDCG3, abs=1e-15)
    assert t1 == t2
    pd.testing.assert_frame_equal(f, f0)
    assert qrels == QRELS
    assert run == RUN


def test_two_threads_evaluating_one_frame_at_once_get_the_one_thread_number() -> None:
    rng = np.random.default_rng(3)
    n = 25_000  # above the interpreter's size limit: the compiled path in both threads
    f = pd.DataFrame({"qid": np.repeat(np.arange(n // 25), 25), "label": rng.integers(0, 3, n),
                      "score": rng.random(n)}).sample(frac=1.0, random_state=1)
    f0 = f.copy(deep=True)
    want = evaluate(f, metrics=["ndcg@10", "map"]).metrics
    with ThreadPoolExecutor(2) as pool:
        got = list(pool.map(lambda _: evaluate(f, metrics=["ndcg@10", "map"]).metrics, range(4)))
    assert all(g == want for g in got)
    pd.testing.assert_frame_equal(f, f0)


def test_threads_evaluating_dicts_at_once_get_pytrec_evals_numbers() -> None:
    rng = np.random.default_rng(5)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in range(20)} for i in range(60)}
    run = {q: {d: float(rng.random()) for d in docs} for q, docs in qrels.items()}
    q0, r0 = copy.deepcopy(qrels), copy.deepcopy(run)
    with ThreadPoolExecutor(3) as pool:
        got = list(pool.map(lambda _: evaluate_trec(qrels, run, metrics=["ndcg_cut_10", "map"])
                            .metrics, range(6)))
    want = _pytrec(qrels, run)
    for g in got:
        assert g == pytest.approx(want, abs=1e-12)
    assert qrels == q0
    assert run == r0


# ---------------------------------------------------------------- custom rankers in bench.benchmark.run


def _part(n_queries: int, first: int, seed: int) -> LetorData:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, size=n_queries * 8).astype(np.float64)
    y[::8] = 2.0  # every query has a relevant document: NDCG defined everywhere
    X = (rng.random((y.shape[0], 3)) + 0.4 * y[:, None]).astype(np.float32)
    qid = np.repeat(np.arange(first, first + n_queries), 8)
    return LetorData.build(X, y, qid=qid, source=f"round12-{seed}")


SPLITS = LetorSplits("round12", _part(12, 1, 0), _part(5, 100, 1), _part(6, 200, 2))
OFFSETS = np.arange(0, SPLITS.test.y.shape[0] + 1, 8)
# NDCG@10 of the test split ranked by its first feature: scikit-learn on gains 2^l - 1.
FIRST_FEATURE_NDCG10 = _sklearn_ndcg(SPLITS.test.y, SPLITS.test.X[:, 0].astype(np.float64),
                                     OFFSETS, 10)


class _Base:
    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def fit(self, X: Any, y: Any, *, group: Any, eval_set: Any = None,
            eval_group: Any = None) -> Any:
        return self

    def _first(self, X: Any) -> np.ndarray:
        return np.asarray(X)[:, 0].astype(np.float64)


class GivesList(_Base):
    def predict(self, X: Any) -> Any:
        return self._first(X).tolist()


class GivesArrayProtocol(_Base):
    class _Tensor:  # what a torch tensor offers NumPy
        def __init__(self, a: np.ndarray) -> None:
            self.a = a

        def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
            return self.a if dtype is None else self.a.astype(dtype)

    def predict(self, X: Any) -> Any:
        return self._Tensor(self._first(X).astype(np.float32))


class FitReturnsNoneThreadedPredict(_Base):
    def fit(self, X: Any, y: Any, *, group: Any, eval_set: Any = None,
            eval_group: Any = None) -> Any:
        self.X = X  # kept between fit and predict
        return None

    def predict(self, X: Any) -> Any:
        parts = np.array_split(np.asarray(X), 4)
        with ThreadPoolExecutor(4) as pool:
            return np.concatenate(list(pool.map(lambda p: p[:, 0].astype(np.float64), parts)))


class ReseedsNumpy(_Base):
    def fit(self, X: Any, y: Any, *, group: Any, eval_set: Any = None,
            eval_group: Any = None) -> Any:
        np.random.seed(12345)  # noqa: NPY002 - the notebook's legacy global state is the point
        np.set_printoptions(precision=2)
        warnings.simplefilter("ignore")
        os.environ["ROUND12_RANKER"] = "1"
        return self

    def predict(self, X: Any) -> Any:
        return self._first(X)


class GivesChunkedArrow(_Base):
    def predict(self, X: Any) -> Any:
        pa = pytest.importorskip("pyarrow")
        s = self._first(X)
        return pa.chunked_array([s[:7], s[7:]])


class GivesTuple(_Base):
    def predict(self, X: Any) -> Any:
        return tuple(self._first(X))


class GivesReversedCategorical(_Base):
    def predict(self, X: Any) -> Any:  # codes run opposite to the values
        s = self._first(X)
        return pd.Categorical(s, categories=np.unique(s)[::-1])


class OverflowsFloat16(_Base):
    def predict(self, X: Any) -> Any:
        with np.errstate(over="ignore"):
            return (self._first(X) * 1e5).astype(np.float16)  # > 65504: inf


class GivesNullableWithNA(_Base):
    def predict(self, X: Any) -> Any:
        s = pd.Series((self._first(X) * 1000).round(), dtype="Float64")
        s.iloc[3] = pd.NA
        return s


class GivesColumn(_Base):
    def predict(self, X: Any) -> Any:
        return self._first(X).reshape(-1, 1)


class GivesShuffledSeries(_Base):
    def predict(self, X: Any) -> Any:
        s = self._first(X)
        idx = np.random.default_rng(0).permutation(s.shape[0])
        return pd.Series(s[idx], index=idx)


class InterruptedInPredict(_Base):
    def fit(self, X: Any, y: Any, *, group: Any, eval_set: Any = None,
            eval_group: Any = None) -> Any:
        os.chdir(os.path.dirname(os.path.abspath(__file__)))
        sys.path.insert(0, "/round12-nowhere")
        logging.getLogger().addHandler(logging.NullHandler())
        np.random.seed(99)  # noqa: NPY002 - the notebook's legacy global state is the point
        return self

    def predict(self, X: Any) -> Any:
        raise KeyboardInterrupt


def _run(factory: Any, tmp_path: Path) -> Any:
    import bench.benchmark

    return bench.benchmark.run("round12", models=["mine"], seeds=[0], quick=True,
                               custom_models={"mine": {"factory": factory}}, splits=SPLITS,
                               out_dir=tmp_path)


def _test_ndcg10(result: Any) -> float:
    return float(result.to_frame()[("ndcg@10", "mean")].loc["mine"])


@pytest.mark.parametrize("factory", [GivesList, GivesArrayProtocol, FitReturnsNoneThreadedPredict,
                                     GivesChunkedArrow, GivesTuple, GivesReversedCategorical],
                         ids=["list", "array-protocol-float32", "fit-none-threads",
                              "arrow-chunked", "tuple", "categorical-reversed-codes"])
def test_custom_ranker_outputs_give_the_sklearn_number(factory: Any, tmp_path: Path) -> None:
    got = _test_ndcg10(_run(factory, tmp_path))
    assert got == pytest.approx(FIRST_FEATURE_NDCG10, abs=1e-12)


def test_custom_ranker_inputs_are_unchanged_after_the_run(tmp_path: Path) -> None:
    before = copy.deepcopy(SPLITS)
    _run(GivesList, tmp_path)
    for part in ("train", "vali", "test"):
        a, b = getattr(SPLITS, part), getattr(before, part)
        assert np.array_equal(a.X, b.X)
        assert np.array_equal(a.y, b.y)
        assert np.array_equal(a.qid, b.qid)


def test_a_ranker_that_reseeds_and_changes_globals_leaves_the_notebook_as_it_was(
        tmp_path: Path) -> None:
    np.random.seed(7)  # noqa: NPY002 - the notebook's legacy global state is the point
    state = np.random.get_state()  # noqa: NPY002 - the notebook's legacy global state is the point
    options, filters = np.get_printoptions(), list(warnings.filters)
    got = _test_ndcg10(_run(ReseedsNumpy, tmp_path))
    assert got == pytest.approx(FIRST_FEATURE_NDCG10, abs=1e-12)
    after = np.random.get_state()  # noqa: NPY002 - the notebook's legacy global state is the point
    assert np.array_equal(after[1], state[1])
    assert after[2] == state[2]
    assert np.get_printoptions() == options
    assert warnings.filters == filters
    assert "ROUND12_RANKER" not in os.environ


@pytest.mark.parametrize(("factory", "words"), [
    (GivesColumn, ("'mine'", "(")), (GivesShuffledSeries, ("'mine'", "index")),
    (OverflowsFloat16, ("'mine'", "inf", "row")), (GivesNullableWithNA, ("'mine'", "row 4"))],
    ids=["n-by-1", "shuffled-series", "float16-overflow", "nullable-na"])
def test_custom_ranker_outputs_refused_name_the_model(factory: Any, words: tuple[str, ...],
                                                      tmp_path: Path) -> None:
    with pytest.raises(LtrbenchError) as info:
        _run(factory, tmp_path)
    for w in words:
        assert w in str(info.value)


def test_ctrl_c_in_a_ranker_leaves_no_state_and_a_second_run_gives_the_number(
        tmp_path: Path) -> None:
    _run(GivesList, tmp_path / "warm")  # the libraries' own import-time effects happen here
    np.random.seed(11)  # noqa: NPY002 - the notebook's legacy global state is the point
    rng = np.random.get_state()  # noqa: NPY002 - the notebook's legacy global state is the point
    cwd, path = os.getcwd(), list(sys.path)
    handlers = list(logging.getLogger().handlers)
    env, filters, options = dict(os.environ), list(warnings.filters), np.get_printoptions()
    threads = {t.ident for t in threading.enumerate()}
    with pytest.raises(KeyboardInterrupt):
        _run(InterruptedInPredict, tmp_path / "a")
    assert os.getcwd() == cwd
    assert sys.path == path
    assert logging.getLogger().handlers == handlers
    assert dict(os.environ) == env
    assert warnings.filters == filters
    assert np.get_printoptions() == options
    after = np.random.get_state()  # noqa: NPY002 - the notebook's legacy global state is the point
    assert np.array_equal(after[1], rng[1])
    assert after[2] == rng[2]
    assert {t.ident for t in threading.enumerate()} <= threads
    got = _test_ndcg10(_run(GivesList, tmp_path / "b"))
    assert got == pytest.approx(FIRST_FEATURE_NDCG10, abs=1e-12)


def test_a_ranker_module_that_puts_its_folder_on_sys_path_at_import_finds_its_siblings_in_fit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The common project layout: a module puts its own folder first on ``sys.path`` when
    imported and imports a sibling lazily in ``fit``. Putting ``sys.path`` back after every call
    removed the folder after the import, and ``fit`` failed with ModuleNotFoundError; a folder
    the module adds at import is its setup, kept (one a call adds is still taken out)."""
    import bench.benchmark

    lib = tmp_path / "lib"
    (lib / "r12pkg").mkdir(parents=True)  # the package's folder is on no search path
    (lib / "r12pkg" / "__init__.py").write_text("")
    (lib / "r12pkg" / "r12_sibling_helper.py").write_text(
        "def score(X):\n    return X[:, 0] * 1.0\n")
    (lib / "r12pkg" / "rankers.py").write_text(
        "import os, sys\n"
        "import numpy as np\n"
        "sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))\n"
        "class Ranker:\n"
        "    def __init__(self, seed=0):\n"
        "        self.seed = seed\n"
        "    def fit(self, X, y, *, group, eval_set=None, eval_group=None):\n"
        "        import r12_sibling_helper\n"
        "        self.helper = r12_sibling_helper\n"
        "        return self\n"
        "    def predict(self, X):\n"
        "        return self.helper.score(np.asarray(X, dtype=np.float64))\n")
    monkeypatch.syspath_prepend(str(lib))  # how the user's notebook found the module
    result = bench.benchmark.run("round12", models=["mine"], seeds=[0], quick=True,
                                 custom_models={"mine": {"factory": "r12pkg.rankers:Ranker"}},
                                 splits=SPLITS, out_dir=tmp_path / "out")
    assert _test_ndcg10(result) == pytest.approx(FIRST_FEATURE_NDCG10, abs=1e-12)
    assert str(lib / "r12pkg") in sys.path  # the module's setup stays, as in a plain import
