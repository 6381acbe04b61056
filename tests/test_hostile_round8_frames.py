"""Hostile frames, round 8: new instances of issue 19's "frames" class (pandas, dicts, ranx).

A pandas Series indexed by (query id, document id), the shape ``frame.set_index([...])["score"]``
gives and ranx users pass around, was read through ``Series.to_dict()`` into
``{(qid, docno): value}`` and refused with ``[('1', 'a')] is a float``: it is now read as a run
(or qrels) by its index levels (names recognised as in a frame, else qid and docno), and any
other index is refused saying what is expected. Beside it: a relevance of 2^40 (linear gain, no
overflow), categorical scores, pyarrow-backed ids, a non-unique index, ``np.str_`` keys, a
read-only mapping, ``1`` and ``"1"`` as two document keys of one query, U+2028 inside a key,
nullable ``Float64`` / ``boolean`` columns given to :func:`bench.metrics.evaluate`, a NumPy
structured array, a query id that is both a column and an index level, a period-typed query id.

A case returns ``None`` when ltrbench behaved: a :class:`~bench.errors.LtrbenchError` naming
where and what was expected, or the oracle's number (pytrec_eval over the same rows as dicts
of text keys; the same rows as plain arrays; hand arithmetic). The property test feeds random
rows as a MultiIndex Series and as a dict and asks for one number.
``python tests/test_hostile_round8_frames.py`` prints the counts by class.
"""

from __future__ import annotations

import math
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fuzz_helpers import fuzz_settings
from hostile_kit import pytrec

Fn = Callable[[], "str | None"]
CASES: list[tuple[str, Fn]] = []
WRONG, TRACE, UNCLEAR, ACCEPT = ("silently wrong numbers", "tracebacks", "unclear errors",
                                 "silent accepts")
Q = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"d": 1, "e": 0}}
R = {"1": {"a": 0.4, "b": 0.9, "c": 0.1}, "2": {"d": 0.2, "e": 0.8}}
ORACLE = pytrec(Q, R, "ndcg_cut_10")
LABELS = [1, 0, 2, 1, 0, 2]
SCORES = [0.4, 0.9, 0.1, 0.2, 0.8, 0.5]
QIDS = [1, 1, 1, 2, 2, 2]


def case(klass: str) -> Callable[[Fn], Fn]:
    def add(fn: Fn) -> Fn:
        CASES.append((klass, fn))
        return fn
    return add


def _trec(qrels: Any, run: Any, want: float | None, *words: str) -> str | None:
    """None when ``evaluate_trec`` gives ``want`` (None: must refuse) or refuses naming words."""
    from bench.errors import LtrbenchError
    from bench.metrics import evaluate_trec

    try:
        got = float(evaluate_trec(qrels, run, metrics="ndcg_cut_10")["ndcg_cut_10"])
    except LtrbenchError as exc:
        if want is not None and not words:
            return f"refused: {str(exc)[:200]}"
        missing = [w for w in words if w not in str(exc)]
        return f"message {str(exc)[:200]!r} lacks {missing}" if missing else None
    except Exception as exc:
        return f"traceback: {type(exc).__name__}: {str(exc)[:160]}"
    if want is None:
        return f"accepted with {got}, expected an error naming {words}"
    return None if math.isclose(got, want, abs_tol=1e-12) else f"got {got}, expected {want}"


def _rows(d: dict[str, dict[str, Any]], value: str, qid: str = "qid",
          docno: str = "docno") -> pd.DataFrame:
    return pd.DataFrame([(q, doc, v) for q, docs in d.items() for doc, v in docs.items()],
                        columns=[qid, docno, value])


def _arrays_value() -> float:
    from bench.metrics import evaluate

    return float(evaluate(np.asarray(LABELS, dtype=float), np.asarray(SCORES),
                          qid=np.asarray(QIDS))["ndcg@10"])


def _frame(want: float | None, frame: Any, *words: str) -> str | None:
    from bench.errors import LtrbenchError
    from bench.metrics import evaluate

    try:
        got = float(evaluate(frame)["ndcg@10"])
    except LtrbenchError as exc:
        missing = [w for w in words if w not in str(exc)]
        return f"message {str(exc)[:200]!r} lacks {missing}" if missing else None
    except Exception as exc:
        return f"traceback: {type(exc).__name__}: {str(exc)[:160]}"
    if want is None:
        return f"accepted with {got}, expected an error naming {words}"
    return None if math.isclose(got, want, abs_tol=1e-12) else f"got {got}, expected {want}"


def _base(**columns: Any) -> pd.DataFrame:
    data: dict[str, Any] = {"qid": QIDS, "label": LABELS, "score": SCORES}
    data.update(columns)
    return pd.DataFrame(data)


# ------------------------------------------------------------------ Series by (qid, docno)
@case(UNCLEAR)
def run_series_indexed_by_qid_and_docno_gives_pytrec_eval() -> str | None:
    return _trec(Q, _rows(R, "score").set_index(["qid", "docno"])["score"], ORACLE)


@case(UNCLEAR)
def qrels_series_with_levels_query_id_and_doc_id_gives_pytrec_eval() -> str | None:
    series = _rows(Q, "relevance", "query_id", "doc_id").set_index(["query_id", "doc_id"])
    return _trec(series["relevance"], R, ORACLE)


@case(UNCLEAR)
def run_series_whose_levels_are_named_docno_then_qid_is_read_by_name() -> str | None:
    return _trec(Q, _rows(R, "score").set_index(["docno", "qid"])["score"], ORACLE)


@case(UNCLEAR)
def run_series_without_level_names_reads_qid_then_docno() -> str | None:
    series = _rows(R, "score").set_index(["qid", "docno"])["score"]
    series.index.names = [None, None]
    return _trec(Q, series.rename(None), ORACLE)


@case(UNCLEAR)
def run_series_with_a_one_level_index_is_refused_saying_two_levels() -> str | None:
    return _trec(Q, pd.Series([0.4, 0.9], index=["a", "b"]), None, "run Series", "two levels")


@case(UNCLEAR)
def run_series_with_a_missing_float64_score_is_refused_naming_the_row() -> str | None:
    frame = _rows(R, "score")
    frame["score"] = pd.array([0.4, 0.9, 0.1, 0.2, None], dtype="Float64")
    return _trec(Q, frame.set_index(["qid", "docno"])["score"], None, "run Series", "row 5")


@case(UNCLEAR)
def qrels_series_with_a_repeated_pair_is_refused() -> str | None:
    frame = pd.concat([_rows(Q, "rel"), _rows(Q, "rel").iloc[:1]])
    return _trec(frame.set_index(["qid", "docno"])["rel"], R, None, "judged twice")


# ------------------------------------------------------------------ frames and dicts
@case(WRONG)
def qrels_relevance_2_to_the_40_is_linear_gain_without_overflow() -> str | None:
    q = {"1": {"a": 1, "b": 0, "c": 2**40}, "2": Q["2"]}
    # trec_eval's ndcg_cut: gain = relevance; run order b, a, c and e, d (hand arithmetic)
    want = ((1 / math.log2(3) + 2**40 / 2) / (2**40 + 1 / math.log2(3)) + 1 / math.log2(3)) / 2
    return _trec(_rows(q, "rel"), R, want)


@case(WRONG)
def run_frame_with_categorical_scores_gives_pytrec_eval() -> str | None:
    frame = _rows(R, "score")
    frame["score"] = pd.Categorical(frame["score"])
    return _trec(Q, frame, ORACLE)


@case(WRONG)
def run_frame_with_pyarrow_string_ids_gives_pytrec_eval() -> str | None:
    frame = _rows(R, "score")
    frame["qid"] = frame["qid"].astype("string[pyarrow]")
    frame["docno"] = frame["docno"].astype("string[pyarrow]")
    return _trec(Q, frame, ORACLE)


@case(WRONG)
def run_frame_with_a_non_unique_index_gives_pytrec_eval() -> str | None:
    return _trec(Q, _rows(R, "score").set_axis([0, 0, 0, 1, 1]), ORACLE)


@case(WRONG)
def dict_with_numpy_str_keys_gives_pytrec_eval() -> str | None:
    return _trec({np.str_(q): docs for q, docs in Q.items()}, R, ORACLE)


@case(TRACE)
def qrels_as_a_read_only_mapping_gives_pytrec_eval() -> str | None:
    return _trec(types.MappingProxyType(Q), R, ORACLE)


@case(WRONG)
def dict_docno_keys_1_and_text_1_in_one_query_are_one_document_judged_twice() -> str | None:
    return _trec({"1": {1: 1, "1": 0}, "2": Q["2"]}, R, None, "judged twice")


@case(WRONG)
def dict_query_key_holding_a_line_separator_is_refused() -> str | None:
    return _trec({"1\u2028": Q["1"], "2": Q["2"]}, R, None, "U+2028")


@case(WRONG)
def evaluate_frame_with_a_missing_nullable_float_score_is_refused_naming_row_6() -> str | None:
    scores = pd.array([*SCORES[:5], None], dtype="Float64")
    return _frame(None, _base(score=scores), "row 6", "score")


@case(WRONG)
def evaluate_frame_with_a_nullable_boolean_label_is_refused() -> str | None:
    labels = pd.array([bool(v) for v in LABELS], dtype="boolean")
    return _frame(None, _base(label=labels), "label", "bool")


@case(WRONG)
def evaluate_frame_whose_qid_is_a_column_and_an_index_level_is_refused() -> str | None:
    return _frame(None, _base().set_index("qid", drop=False), "qid", "index")


@case(WRONG)
def evaluate_frame_with_a_period_query_id_is_as_arrays() -> str | None:
    periods = pd.period_range("2020-01", periods=2, freq="M").repeat(3)
    return _frame(_arrays_value(), _base(qid=periods))


@case(UNCLEAR)
def evaluate_numpy_structured_array_is_read_as_its_dataframe() -> str | None:
    # Round 17: read as its DataFrame (was refused, "wrap it: pandas.DataFrame(array)"),
    # as ratings, qrels and runs read it: the arrays' number, not only a clear error.
    arr = np.array(list(zip(QIDS, LABELS, SCORES, strict=True)),
                   dtype=[("qid", "i8"), ("label", "f8"), ("score", "f8")])
    return _frame(_arrays_value(), arr)


# ------------------------------------------------------------------ the tests
@pytest.mark.parametrize(("klass", "fn"), CASES, ids=[fn.__name__ for _, fn in CASES])
def test_hostile_round8_frame(klass: str, fn: Fn) -> None:
    problem = fn()
    assert problem is None, f"[{klass}] {problem}"


_ROWS = st.lists(st.tuples(st.sampled_from(["1", "2", "3"]), st.sampled_from(list("abcdef")),
                           st.floats(-5, 5, allow_nan=False, width=32)),
                 min_size=1, max_size=12, unique_by=lambda r: (r[0], r[1]))


@pytest.mark.filterwarnings("ignore:.*no run line")
@fuzz_settings(25)
@given(rows=_ROWS)
def test_random_runs_as_a_multiindex_series_give_the_dicts_number(rows: list[Any]) -> None:
    """One number for the same rows as a (qid, docno) Series and as a dict of dicts."""
    from bench.metrics import evaluate_trec

    run: dict[str, dict[str, float]] = {}
    for q, d, s in rows:
        run.setdefault(q, {})[d] = float(s)
    qrels = {"1": {"a": 1, "c": 2, "x": 0}, "2": {"b": 1}, "3": {"f": 3, "e": 0}}
    series = pd.DataFrame(rows, columns=["qid", "docno", "score"]).set_index(["qid", "docno"])
    want = evaluate_trec(qrels, run, metrics="ndcg_cut_10,map")
    got = evaluate_trec(qrels, series["score"], metrics="ndcg_cut_10,map")
    for metric in ("ndcg_cut_10", "map"):
        assert float(got[metric]) == float(want[metric]), metric


if __name__ == "__main__":  # counts by class
    from hostile_kit import print_counts

    print_counts(CASES, in_folder=False)
