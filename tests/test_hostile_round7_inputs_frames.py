"""Hostile inputs, round 7: pandas frames, dicts of dicts and ranx objects as evaluation inputs.

Frames given to :func:`bench.metrics.evaluate` (categorical, nullable ``Int64``, pyarrow-backed,
object, complex, timedelta, sparse and bool columns; a column named twice; the query id only as
an index level; an empty frame) and TREC inputs given as frames, dicts of dicts (non-str keys:
ints, floats, tuples, None, bytes; values that are text, bool, NaN or a deeper dict) and ranx
objects to :func:`bench.metrics.evaluate_trec`.

A case returns ``None`` when ltrbench behaved: a :class:`~bench.errors.LtrbenchError` naming
where (``DataFrame``, the column, the row, the keys) and what was expected, or the oracle's
number. Oracles: the same rows given as plain arrays (one rule for ids on every path, issue 19
item 1), pytrec_eval for TREC inputs (string keys), hand arithmetic.
``python tests/test_hostile_round7_inputs_frames.py`` prints the counts by class.
"""

from __future__ import annotations

import decimal
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import own_error as _error
from hostile_kit import pytrec

Fn = Callable[[], "str | None"]
CASES: list[tuple[str, Fn]] = []
WRONG, TRACE, UNCLEAR, ACCEPT = ("silently wrong numbers", "tracebacks", "unclear errors",
                                 "silent accepts")
Q = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"d": 1, "e": 0}}
R = {"1": {"a": 0.4, "b": 0.9, "c": 0.1}, "2": {"d": 0.2, "e": 0.8}}
LABELS = [1, 0, 2, 1, 0, 2]
SCORES = [0.4, 0.9, 0.1, 0.2, 0.8, 0.5]
QIDS = [1, 1, 1, 2, 2, 2]


def case(klass: str) -> Callable[[Fn], Fn]:
    def add(fn: Fn) -> Fn:
        CASES.append((klass, fn))
        return fn
    return add




def _mean(result: Any, metric: str = "ndcg@10") -> float:
    return float(result[metric])


def _arrays_value(labels: Any = LABELS, scores: Any = SCORES, qid: Any = QIDS) -> float:
    from bench.metrics import evaluate

    return _mean(evaluate(np.asarray(labels, dtype=float), np.asarray(scores, dtype=float),
                          qid=np.asarray(qid)))


def _frame_value_or_refused(frame: pd.DataFrame, want: float, *words: str,
                            **kw: Any) -> str | None:
    """None when ``evaluate(frame)`` gives ``want`` or a clear error holding ``words``."""
    from bench.errors import LtrbenchError
    from bench.metrics import evaluate

    try:
        got = _mean(evaluate(frame, **kw))
    except LtrbenchError as exc:
        missing = [w for w in words if w not in str(exc)]
        return f"message {str(exc)[:200]!r} lacks {missing}" if missing else None
    except Exception as exc:
        return f"traceback: {type(exc).__name__}: {str(exc)[:160]}"
    return None if math.isclose(got, want, abs_tol=1e-12) else f"got {got}, expected {want}"


def _frame_refused(frame: pd.DataFrame, *words: str, **kw: Any) -> str | None:
    from bench.metrics import evaluate

    return _error(lambda: evaluate(frame, **kw), "DataFrame", *words)


def _base(**columns: Any) -> pd.DataFrame:
    data = {"qid": QIDS, "label": LABELS, "score": SCORES}
    data.update(columns)
    return pd.DataFrame(data)


# ------------------------------------------------------------------ frames: query ids
@case(WRONG)
def frame_categorical_qid_with_unused_categories_is_as_arrays() -> str | None:
    qid = pd.Categorical(QIDS, categories=[3, 2, 1, 0])
    return _frame_value_or_refused(_base(qid=qid), _arrays_value())


@case(WRONG)
def frame_categorical_qid_of_text_is_as_arrays() -> str | None:
    qid = pd.Categorical(["b", "b", "b", "a", "a", "a"])
    return _frame_value_or_refused(_base(qid=qid), _arrays_value())


@case(WRONG)
def frame_qid_as_an_index_level_only_is_as_arrays() -> str | None:
    f = _base().set_index(["qid", pd.Index(range(6), name="row")])
    return _frame_value_or_refused(f, _arrays_value())


@case(WRONG)
def frame_qid_float_with_a_nan_is_refused_naming_the_row() -> str | None:
    return _frame_refused(_base(qid=[1.0, 1.0, np.nan, 2.0, 2.0, 2.0]), "row 3", "qid")


@case(WRONG)
def frame_qid_pyarrow_strings_with_a_null_is_refused() -> str | None:
    qid = pd.array(["1", "1", None, "2", "2", "2"], dtype="string[pyarrow]")
    return _frame_refused(_base(qid=qid), "row 3", "qid")


@case(WRONG)
def frame_qid_object_mixing_1_and_text_1_is_one_query_as_arrays() -> str | None:
    qid = pd.Series([1, "1", 1, 2, "2", 2], dtype=object)
    return _frame_value_or_refused(_base(qid=qid), _arrays_value(), "qid")


@case(WRONG)
def frame_qid_of_tuples_is_refused() -> str | None:
    qid = pd.Series([(1,), (1,), (1,), (2,), (2,), (2,)], dtype=object)
    return _frame_refused(_base(qid=qid), "qid")


@case(WRONG)
def frame_qid_full_width_digit_is_another_query_or_refused() -> str | None:
    qid = pd.Series(["1", "1", "１", "2", "2", "2"], dtype=object)
    want = _arrays_value(qid=["1", "1", "x", "2", "2", "2"])
    return _frame_value_or_refused(_base(qid=qid), want, "qid")


@case(WRONG)
def arrays_qid_list_with_a_trailing_nul_is_refused_not_query_1() -> str | None:
    from bench.metrics import evaluate

    qid = ["1", "1", "1\x00", "2", "2", "2"]
    return _error(lambda: evaluate(np.asarray(LABELS, dtype=float), np.asarray(SCORES),
                                   qid=qid), "row 3", "NUL")


@case(WRONG)
def arrays_docno_list_with_a_trailing_nul_is_refused() -> str | None:
    from bench.metrics import evaluate

    docno = ["a", "b\x00", "c", "d", "e", "f"]
    return _error(lambda: evaluate(np.asarray(LABELS, dtype=float), np.asarray(SCORES),
                                   qid=QIDS, docno=docno), "row 2", "NUL")


@case(WRONG)
def arrays_qid_of_tuples_is_refused_as_on_a_dict() -> str | None:
    from bench.metrics import evaluate

    qid = np.empty(6, dtype=object)
    qid[:] = [(1,), (1,), (1,), (2,), (2,), (2,)]
    return _error(lambda: evaluate(np.asarray(LABELS, dtype=float), np.asarray(SCORES),
                                   qid=qid), "(1,)", "tuple")


@case(UNCLEAR)
def arrays_group_size_that_is_fractional_names_its_place_not_a_line() -> str | None:
    from bench.metrics import evaluate

    problem = _error(lambda: evaluate(np.asarray(LABELS, dtype=float), np.asarray(SCORES),
                                      group=[1.5, 4.5]), "group[0]", "1.5")
    if problem is None:
        try:
            evaluate(np.asarray(LABELS, dtype=float), np.asarray(SCORES), group=[1.5, 4.5])
        except Exception as exc:
            return f"a Python list has no lines: {exc}" if "line 1" in str(exc) else None
    return problem


@case(UNCLEAR)
def arrays_group_size_zero_names_its_place() -> str | None:
    from bench.metrics import evaluate

    return _error(lambda: evaluate(np.asarray(LABELS, dtype=float), np.asarray(SCORES),
                                   group=[6, 0]), "group[1]")


# ------------------------------------------------------------------ frames: labels
@case(WRONG)
def frame_nullable_int64_label_with_na_is_refused_naming_the_row() -> str | None:
    lab = pd.array([1, 0, pd.NA, 1, 0, 2], dtype="Int64")
    return _frame_refused(_base(label=lab), "row 3", "label")


@case(WRONG)
def frame_nullable_int64_label_without_na_is_as_arrays() -> str | None:
    return _frame_value_or_refused(_base(label=pd.array(LABELS, dtype="Int64")), _arrays_value())


@case(WRONG)
def frame_label_of_text_digits_is_refused() -> str | None:
    return _frame_refused(_base(label=[str(v) for v in LABELS]), "label")


@case(WRONG)
def frame_label_categorical_of_numbers_is_refused_or_its_values() -> str | None:
    lab = pd.Categorical(LABELS, categories=[2, 1, 0])  # codes 1,2,0: never the labels
    return _frame_value_or_refused(_base(label=lab), _arrays_value(), "label")


@case(WRONG)
def frame_label_float16_is_as_arrays() -> str | None:
    return _frame_value_or_refused(_base(label=np.asarray(LABELS, dtype=np.float16)),
                                   _arrays_value())


@case(WRONG)
def frame_label_bool_is_refused_or_zero_one() -> str | None:
    lab = [True, False, True, True, False, False]
    return _frame_value_or_refused(_base(label=lab), _arrays_value(labels=[1, 0, 1, 1, 0, 0]),
                                   "label")


@case(WRONG)
def frame_label_uint64_beyond_int64_is_refused() -> str | None:
    lab = np.asarray([1, 0, 2**63 + 5, 1, 0, 2], dtype=np.uint64)
    return _frame_refused(_base(label=lab), "label", "row 3")


# ------------------------------------------------------------------ frames: scores
@case(WRONG)
def frame_score_pyarrow_double_with_a_null_is_refused() -> str | None:
    s = pd.array([0.4, 0.9, None, 0.2, 0.8, 0.5], dtype="double[pyarrow]")
    return _frame_refused(_base(score=s), "row 3", "score")


@case(WRONG)
def frame_score_pyarrow_double_without_null_is_as_arrays() -> str | None:
    return _frame_value_or_refused(_base(score=pd.array(SCORES, dtype="double[pyarrow]")),
                                   _arrays_value())


@case(WRONG)
def frame_score_object_of_text_numbers_is_refused() -> str | None:
    return _frame_refused(_base(score=pd.Series([str(v) for v in SCORES], dtype=object)),
                          "score")


@case(WRONG)
def frame_score_object_of_decimals_is_as_arrays_or_refused() -> str | None:
    s = pd.Series([decimal.Decimal(str(v)) for v in SCORES], dtype=object)
    return _frame_value_or_refused(_base(score=s), _arrays_value(), "score")


@case(WRONG)
def frame_score_complex_is_refused() -> str | None:
    return _frame_refused(_base(score=np.asarray(SCORES) + 1j), "score")


@case(WRONG)
def frame_score_timedelta_is_refused() -> str | None:
    return _frame_refused(_base(score=pd.to_timedelta(SCORES, unit="s")), "score")


@case(WRONG)
def frame_score_datetime_is_refused() -> str | None:
    s = pd.to_datetime([1, 9, 0, 2, 8, 5], unit="s")
    return _frame_refused(_base(score=s), "score")


@case(WRONG)
def frame_score_sparse_is_as_arrays_or_refused() -> str | None:
    s = pd.arrays.SparseArray([0.0, 0.9, 0.0, 0.2, 0.0, 0.5])
    want = _arrays_value(scores=[0.0, 0.9, 0.0, 0.2, 0.0, 0.5])
    return _frame_value_or_refused(_base(score=s), want, "score")


@case(WRONG)
def frame_score_float16_keeps_its_ties_as_arrays_of_float16() -> str | None:
    s = np.asarray([0.4001, 0.4002, 0.1, 0.2, 0.8, 0.5], dtype=np.float16)
    return _frame_value_or_refused(_base(score=s), _arrays_value(scores=s.astype(float)))


@case(WRONG)
def frame_score_column_named_twice_is_refused() -> str | None:
    f = pd.concat([_base(), pd.DataFrame({"score": SCORES[::-1]})], axis=1)
    return _frame_refused(f, "score")


@case(WRONG)
def frame_qid_column_named_twice_is_refused() -> str | None:
    f = pd.concat([_base(), pd.DataFrame({"qid": [2, 2, 2, 1, 1, 1]})], axis=1)
    return _frame_refused(f, "qid")


@case(UNCLEAR)
def frame_without_rows_is_refused_saying_empty() -> str | None:
    return _frame_refused(_base().iloc[:0], "empty")


@case(UNCLEAR)
def frame_without_a_score_column_names_score() -> str | None:
    return _frame_refused(_base().drop(columns="score"), "score")


@case(UNCLEAR)
def frame_score_named_as_a_missing_column_names_it() -> str | None:
    from bench.metrics import evaluate

    return _error(lambda: evaluate(_base(), score="pred"), "pred")


@case(WRONG)
def frame_with_an_integer_column_name_named_by_its_number_is_as_arrays() -> str | None:
    f = _base().rename(columns={"score": 0})
    return _frame_value_or_refused(f, _arrays_value(), "score", score=0)


# ------------------------------------------------------------------ dicts of dicts
def _trec(qrels: Any, run: Any, want: float | None, *words: str,
          metric: str = "ndcg_cut_10") -> str | None:
    """None when ``evaluate_trec`` gives ``want`` (None: must refuse) or refuses naming words."""
    from bench.errors import LtrbenchError
    from bench.metrics import evaluate_trec

    try:
        got = float(evaluate_trec(qrels, run, metrics=metric)[metric])
    except LtrbenchError as exc:
        missing = [w for w in words if w not in str(exc)]
        return f"message {str(exc)[:200]!r} lacks {missing}" if missing else None
    except Exception as exc:
        return f"traceback: {type(exc).__name__}: {str(exc)[:160]}"
    if want is None:
        return f"accepted with {got}, expected an error naming {words}"
    return None if math.isclose(got, want, abs_tol=1e-12) else f"got {got}, expected {want}"


ORACLE = pytrec(Q, R, "ndcg_cut_10")


@case(WRONG)
def dict_qrels_with_int_query_keys_match_text_run_keys() -> str | None:
    return _trec({1: Q["1"], 2: Q["2"]}, R, ORACLE, "query")


@case(WRONG)
def dict_run_with_int_docno_keys_match_text_qrels_docnos() -> str | None:
    q = {"1": {"5": 1, "6": 0}}
    r = {"1": {5: 0.1, 6: 0.9}}
    return _trec(q, r, pytrec(q, {"1": {"5": 0.1, "6": 0.9}}, "ndcg_cut_10"))


@case(WRONG)
def dict_qrels_with_tuple_query_keys_is_refused() -> str | None:
    return _trec({(1, 2): Q["1"]}, {"1": R["1"]}, None, "(1, 2)")


@case(WRONG)
def dict_qrels_with_a_none_query_key_is_refused() -> str | None:
    return _trec({None: Q["1"], "2": Q["2"]}, R, None, "None")


@case(WRONG)
def dict_run_with_bytes_docno_keys_is_refused_or_read_as_text() -> str | None:
    r = {"1": {b"a": 0.4, b"b": 0.9, b"c": 0.1}, "2": R["2"]}
    return _trec(Q, r, ORACLE, "b'a'")


@case(WRONG)
def dict_qrels_with_a_whole_float_query_key_is_the_integer_it_holds() -> str | None:
    # round 23b: a whole float id is the integer it holds on every path (a float column is
    # what a NaN makes of integer ids); the run's text "1.0" is then another query (said by
    # the MissingQueriesWarning), as pytrec_eval reads qrels "1" beside a run's "1.0"
    q = {1.0: Q["1"], 2: Q["2"]}
    r = {"1.0": R["1"], "2": R["2"]}
    return _trec(q, r, pytrec({"1": Q["1"], "2": Q["2"]}, r, "ndcg_cut_10"), "1.0")


@case(WRONG)
def dict_qrels_with_keys_1_and_text_1_are_one_query() -> str | None:
    # round 10: merged as a file merges a query's lines (round 7-9 refused the two keys)
    q = {1: {"a": 1}, "1": {"b": 0, "c": 2}, "2": Q["2"]}
    return _trec(q, R, ORACLE)


@case(WRONG)
def dict_qrels_relevance_as_text_is_refused() -> str | None:
    q = {"1": {"a": "1", "b": 0, "c": 2}, "2": Q["2"]}
    return _trec(q, R, None, "'1'", "'a'")


@case(WRONG)
def dict_qrels_relevance_bool_is_refused_or_zero_one() -> str | None:
    q = {"1": {"a": True, "b": False, "c": True}, "2": Q["2"]}
    want = pytrec({"1": {"a": 1, "b": 0, "c": 1}, "2": Q["2"]}, R, "ndcg_cut_10")
    return _trec(q, R, want, "'a'")


@case(WRONG)
def dict_run_score_as_text_is_refused() -> str | None:
    r = {"1": {"a": "0.4", "b": 0.9, "c": 0.1}, "2": R["2"]}
    return _trec(Q, r, None, "'a'")


@case(WRONG)
def dict_run_score_nan_is_refused_naming_the_keys() -> str | None:
    r = {"1": {"a": float("nan"), "b": 0.9, "c": 0.1}, "2": R["2"]}
    return _trec(Q, r, None, "'1'", "'a'")


@case(WRONG)
def dict_run_score_numpy_float32_is_its_value() -> str | None:
    r = {q: {d: np.float32(s) for d, s in docs.items()} for q, docs in R.items()}
    want = pytrec(Q, {q: {d: float(np.float32(s)) for d, s in docs.items()}
                      for q, docs in R.items()}, "ndcg_cut_10")
    return _trec(Q, r, want)


@case(WRONG)
def dict_run_nested_one_level_deeper_is_refused() -> str | None:
    r = {"1": {"a": {"score": 0.4}}, "2": R["2"]}
    return _trec(Q, r, None, "'a'")


@case(WRONG)
def dict_run_of_lists_is_refused() -> str | None:
    return _trec(Q, {"1": [("a", 0.4)], "2": R["2"]}, None, "'1'")


@case(WRONG)
def qrels_given_as_a_list_is_refused() -> str | None:
    return _trec([("1", "a", 1)], R, None, "qrels")


@case(WRONG)
def dict_query_key_with_a_leading_space_is_refused() -> str | None:
    return _trec({" 1": Q["1"], "2": Q["2"]}, R, None, "' 1'")


@case(WRONG)
def dict_docno_key_with_a_nul_is_refused() -> str | None:
    r = {"1": {"a\x00": 0.4, "b": 0.9, "c": 0.1}, "2": R["2"]}
    return _trec(Q, r, None, "NUL")


@case(WRONG)
def series_with_a_qid_docno_multiindex_as_qrels_is_refused_or_its_value() -> str | None:
    rows = [(q, d, v) for q, docs in Q.items() for d, v in docs.items()]
    s = pd.Series([v for _, _, v in rows],
                  index=pd.MultiIndex.from_tuples([(q, d) for q, d, _ in rows],
                                                  names=["qid", "docno"]))
    return _trec(s, R, ORACLE, "Series")


# ------------------------------------------------------------------ frames as TREC inputs
def _qrels_frame(**cols: Any) -> pd.DataFrame:
    rows = [(q, d, v) for q, docs in Q.items() for d, v in docs.items()]
    f = pd.DataFrame(rows, columns=["qid", "docno", "rel"])
    for k, v in cols.items():
        f[k] = v
    return f


@case(WRONG)
def trec_frame_qrels_with_int64_nullable_rel_and_na_is_refused() -> str | None:
    f = _qrels_frame(rel=pd.array([1, 0, None, 1, 0], dtype="Int64"))
    return _trec(f, R, None, "row 3", "rel")


@case(WRONG)
def trec_frame_qrels_with_categorical_qid_is_its_value() -> str | None:
    f = _qrels_frame(qid=pd.Categorical(["1", "1", "1", "2", "2"], categories=["2", "1", "9"]))
    return _trec(f, R, ORACLE)


@case(WRONG)
def trec_frame_qrels_with_a_rel_column_twice_is_refused() -> str | None:
    f = pd.concat([_qrels_frame(), pd.DataFrame({"rel": [0, 0, 0, 0, 0]})], axis=1)
    return _trec(f, R, None, "rel")


@case(WRONG)
def trec_frame_run_qid_mixing_1_and_text_1_is_one_query() -> str | None:
    rows = [(q, d, s) for q, docs in R.items() for d, s in docs.items()]
    f = pd.DataFrame(rows, columns=["qid", "docno", "score"])
    f["qid"] = pd.Series([1, "1", 1, "2", 2], dtype=object)
    return _trec(Q, f, ORACLE, "qid")


@case(WRONG)
def trec_frame_run_docno_with_a_trailing_nul_is_refused_not_document_b() -> str | None:
    f = pd.DataFrame({"qid": ["1", "1", "1"], "docno": ["a", "b\x00", "c"],
                      "score": [0.4, 0.9, 0.1]})
    return _trec({"1": Q["1"]}, f, None, "row 2", "NUL")


@case(WRONG)
def dict_qrels_docno_with_a_trailing_nul_is_refused_not_document_b() -> str | None:
    q = {"1": {"a": 1, "b\x00": 0, "c": 2}, "2": Q["2"]}
    return _trec(q, R, None, "NUL", "'b\\x00'")


@case(WRONG)
def ranx_objects_give_pytrec_eval_s_number() -> str | None:
    try:
        from ranx import Qrels, Run
    except ImportError:
        return None
    return _trec(Qrels(Q), Run(R), ORACLE)


# ------------------------------------------------------------------ the test
@pytest.mark.parametrize(("klass", "fn"), CASES, ids=[fn.__name__ for _, fn in CASES])
def test_hostile_round7_frame(klass: str, fn: Fn) -> None:
    problem = fn()
    assert problem is None, f"[{klass}] {problem}"


if __name__ == "__main__":  # counts by class
    from hostile_kit import print_counts

    print_counts(CASES, in_folder=False)
