"""Round 11 (issue 19), helper h11a: evaluation inputs as a hostile outside tester feeds them.

``evaluate_trec`` / ``evaluate`` / ``ltrbench evaluate`` / ``crosscheck --evaluators`` over TREC
files (signs, underflow, hex, full-width digits, control characters inside ids, look-alike
separators, mislabeled compressions, symlink loops), DataFrames, dicts, ranx objects and
MultiIndex Series (categorical, nullable, pyarrow-backed, mixed-type and date columns), and
SVMlight files and sidecars. Oracles: pytrec_eval (trec_eval's C code), ranx, scikit-learn's
SVMlight reader, hand arithmetic, or a clear error naming file/line/row/column.

Found and fixed in this round:

* a query (or document) id column of dates was accepted by ``evaluate`` and compared as
  instants: ``Timestamp("2020-01-01 00:00", tz="UTC")`` and ``Timestamp("2020-01-01 01:00",
  tz="Europe/Paris")`` became one query (ndcg@10 0.9515 instead of 0.8155), while
  ``evaluate_trec`` refused dates; durations, complex numbers, ``Decimal``, ``Period`` and NumPy
  bytes ids passed too. Ids are text or integers on every path (``bench.data.input_ids``);
* an SVMlight file without any ``index:value`` was read with one column of zeros, the same data
  as Parquet with none: both are width 0 now, and training refuses data without features by
  name before any model starts (LightGBM and XGBoost refuse it deep in their own code);
* ``crosscheck``'s TREC input fell back from the diversity reading of qrels by matching an error
  message's words; it now catches a typed signal (``bench.data.trec.NotDiversityQrels``);
* a LETOR folder with ``train.txt``, ``dev.txt`` (or ``val.txt``, ``validate.txt``) and
  ``test.txt`` ignored the validation file and carved one from train without a word; a folder
  holding only ``Fold2/`` was read when ``Fold1`` (the default) was asked for;
* ``tune`` over a featureless folder ran every trial into LightGBM's refusal and exited 0;
* ``text_ids`` found the kinds of 1M ids with a Python call per id (evaluate_trec over 10^6
  one-document queries: ~28 s, most of it there); it now reads them from the distinct types.
  The slow implementation stays here as the oracle of a property test.
"""

from __future__ import annotations

import bz2
import gzip
import os
import warnings
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.data.svmlight import read_svmlight, read_svmlight_files
from bench.errors import DataError
from bench.metrics.evaluate import evaluate
from bench.metrics.trec import evaluate_trec
from tests.hostile_kit import QRELS, RUN, cli, pytrec

QD = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"d": 1, "e": 0}}
RD = {"1": {"a": 0.4, "b": 0.9, "c": 0.1}, "2": {"d": 0.2, "e": 0.8}}


def _trec(q: Any, r: Any, metric: str = "ndcg_cut_10", **kw: Any) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(evaluate_trec(q, r, metrics=[metric], **kw)[metric])


def _qrels_frame() -> pd.DataFrame:
    return pd.DataFrame([(q, d, v) for q, x in QD.items() for d, v in x.items()],
                        columns=["qid", "docno", "rel"])


def _run_frame() -> pd.DataFrame:
    return pd.DataFrame([(q, d, v) for q, x in RD.items() for d, v in x.items()],
                        columns=["qid", "docno", "score"])


def _files(tmp: Path, qrels: bytes = QRELS, run: bytes = RUN) -> tuple[Path, Path]:
    (tmp / "q").write_bytes(qrels)
    (tmp / "r").write_bytes(run)
    return tmp / "q", tmp / "r"


def _refused(fn: Any, *words: str) -> DataError:
    with pytest.raises(DataError) as info:
        fn()
    for w in words:
        assert w in str(info.value), (w, str(info.value))
    return info.value


# ----------------------------------------------------------------------- TREC files: numbers
@pytest.mark.parametrize(("text", "value"), [("-0", 0.0), ("+.5", 0.5), ("1e-400", 0.0),
                                         ("0005", 5.0), ("-1E+2", -100.0)])
def test_run_score_spellings_that_atof_reads_give_pytrec_evals_number(
        tmp_path: Path, text: str, value: float) -> None:
    """trec_eval reads a score with C's atof: a sign, a leading dot, an exponent that underflows
    to 0 and leading zeros are numbers; ltrbench reads them as the same numbers."""
    q, r = _files(tmp_path, run=RUN.replace(b"0.4 t", text.encode() + b" t"))
    run = {k: dict(v) for k, v in RD.items()}
    run["1"]["a"] = value
    assert _trec(q, r) == pytest.approx(pytrec(QD, run, "ndcg_cut_10"), abs=1e-12)


@pytest.mark.parametrize("text", ["0x1p3", "１", "Infinity", "-nan", "1_0", "0.4.1", "1e", "٣"])
def test_run_score_spellings_no_decimal_reader_agrees_on_are_refused_at_line_and_column(
        tmp_path: Path, text: str) -> None:
    """C's atof reads ``0x1p3`` as 8 and ``Infinity`` as inf, Python's float reads ``1_0`` and
    the full-width ``１`` and Arabic-Indic ``٣`` as digits: no silent choice, an error."""
    q, r = _files(tmp_path, run=RUN.replace(b"0.4 t", text.encode() + b" t"))
    _refused(lambda: _trec(q, r), f"{r}:1", "'score'")


@pytest.mark.parametrize(("text", "value"), [("+1", 1), ("-0", 0), ("002", 2)])
def test_qrels_relevance_spellings_atol_reads_give_pytrec_evals_number(
        tmp_path: Path, text: str, value: int) -> None:
    q, r = _files(tmp_path, qrels=QRELS.replace(b"1 0 a 1", b"1 0 a " + text.encode()))
    qrels = {k: dict(v) for k, v in QD.items()}
    qrels["1"]["a"] = value
    assert _trec(q, r) == pytest.approx(pytrec(qrels, RD, "ndcg_cut_10"), abs=1e-12)


def test_a_score_of_minus_zero_ties_with_zero_as_in_trec_eval(tmp_path: Path) -> None:
    """-0 and 0 are one score: the tie is broken by docno (descending) as trec_eval does."""
    qrels = b"1 0 a 1\n1 0 b 0\n"
    run = b"1 Q0 a 1 -0 t\n1 Q0 b 2 0 t\n"
    q, r = _files(tmp_path, qrels, run)
    import pytrec_eval

    want = pytrec_eval.RelevanceEvaluator({"1": {"a": 1, "b": 0}}, {"P.1"}).evaluate(
        {"1": {"a": 0.0, "b": 0.0}})["1"]["P_1"]
    assert want == 0.0  # 'b' > 'a': b first
    assert _trec(q, r, "P_1") == want


# ------------------------------------------------------------------- TREC files: ids, fields
@pytest.mark.parametrize("char", ["\x01", "\x1b", "\x7f", "\u200b"])
def test_a_character_trec_eval_does_not_split_at_is_part_of_the_document_id(
        tmp_path: Path, char: str) -> None:
    """trec_eval splits fields at ASCII white space only: ``a<char>`` is a document apart from
    ``a`` (unjudged), as pytrec_eval reads it. (A no-break space or U+3000, which Python's
    ``str.split`` -- pytrec_eval's ``parse_run``, ir_measures -- splits at and trec_eval does not,
    is refused since round 16: ``test_hostile_round16_student_runs.py``.)"""
    doc = "a" + char
    q, r = _files(tmp_path, run=RUN.replace(b"Q0 a ", b"Q0 " + doc.encode() + b" "))
    run = {k: dict(v) for k, v in RD.items()}
    run["1"][doc] = run["1"].pop("a")
    assert _trec(q, r) == pytest.approx(pytrec(QD, run, "ndcg_cut_10"), abs=1e-12)


def test_query_02_is_not_query_2(tmp_path: Path) -> None:
    q, r = _files(tmp_path, run=RUN.replace(b"2 Q0 d", b"02 Q0 d"))
    run = {"1": RD["1"], "02": {"d": 0.2}, "2": {"e": 0.8}}
    assert _trec(q, r) == pytest.approx(pytrec(QD, run, "ndcg_cut_10"), abs=1e-12)


def test_tabs_and_spaces_mixed_between_fields_read_as_pytrec_eval(tmp_path: Path) -> None:
    q, r = _files(tmp_path, run=RUN.replace(b" Q0 ", b"\t Q0 \t").replace(b" t\n", b"\t\tt  \n"))
    assert _trec(q, r) == pytest.approx(pytrec(QD, RD, "ndcg_cut_10"), abs=1e-12)


def test_a_no_break_space_between_fields_is_one_field_and_the_line_is_refused(
        tmp_path: Path) -> None:
    q, r = _files(tmp_path, run=RUN.replace(b"1 Q0 a", "1\u00a0Q0 a".encode()))
    _refused(lambda: _trec(q, r), f"{r}:1", "expected 6 fields")


def test_white_space_only_lines_at_the_end_of_a_run_are_blank_lines(tmp_path: Path) -> None:
    q, r = _files(tmp_path, run=RUN + b"   \n\t\n \r\n")
    assert _trec(q, r) == pytest.approx(pytrec(QD, RD, "ndcg_cut_10"), abs=1e-12)


def test_a_100k_character_document_id_is_one_unjudged_document(tmp_path: Path) -> None:
    doc = "a" * 100_000
    q, r = _files(tmp_path, run=RUN.replace(b"Q0 a ", b"Q0 " + doc.encode() + b" "))
    run = {k: dict(v) for k, v in RD.items()}
    run["1"][doc] = run["1"].pop("a")
    assert _trec(q, r) == pytest.approx(pytrec(QD, run, "ndcg_cut_10"), abs=1e-12)


# -------------------------------------------------------- TREC files: what is not a text file
@pytest.mark.parametrize(("name", "data", "word"), [
    ("run.bz2", gzip.compress(RUN, mtime=0), "gzip"),  # a gzip file named .bz2: its bytes, not its name
    ("run.gz", gzip.compress(RUN, mtime=0)[:-8], "gzip"),  # truncated
    ("run.gz.txt", bz2.compress(RUN), "bzip2"),
])
def test_a_mislabeled_or_truncated_compressed_run_is_named_by_its_bytes(
        tmp_path: Path, name: str, data: bytes, word: str) -> None:
    (tmp_path / name).write_bytes(data)
    (tmp_path / "q").write_bytes(QRELS)
    _refused(lambda: _trec(tmp_path / "q", tmp_path / name), name, word, "decompress")


def test_a_symlink_loop_as_run_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "q").write_bytes(QRELS)
    os.symlink(tmp_path / "loop", tmp_path / "loop")
    res = cli(tmp_path, "evaluate", "--qrels", "q", "--run", "loop", "--metrics", "map")
    assert res.status == 2, res.err
    assert "Traceback" not in res.err
    assert "loop" in res.err
    assert "error:" in res.err


def test_a_parquet_file_given_as_qrels_is_named_as_parquet(tmp_path: Path) -> None:
    _qrels_frame().to_parquet(tmp_path / "qrels.parquet")
    (tmp_path / "r").write_bytes(RUN)
    res = cli(tmp_path, "evaluate", "--qrels", "qrels.parquet", "--run", "r", "--metrics", "map")
    assert res.status == 2, res.err
    assert "Parquet" in res.err
    assert "qrels.parquet" in res.err


# ------------------------------------------------------------------- frames, dicts, objects
def test_a_categorical_qid_mixing_1_and_text_1_is_one_query() -> None:
    run = _run_frame().assign(qid=pd.Categorical([1, "1", 1, 2, "2"]))
    assert _trec(_qrels_frame(), run) == pytest.approx(pytrec(QD, RD, "ndcg_cut_10"), abs=1e-12)


def test_documents_1_and_text_1_in_one_query_are_a_duplicate_named() -> None:
    run = _run_frame().assign(docno=np.array([1, "1", "c", "d", "e"], dtype=object))
    _refused(lambda: _trec(_qrels_frame(), run), "'1'", "row 2", "row 1")


def test_an_integer_qrels_document_7_judges_the_run_document_text_7() -> None:
    qrels = _qrels_frame().assign(docno=np.array([7, "b", "c", "d", "e"], dtype=object))
    run = _run_frame().assign(docno=["7", "b", "c", "d", "e"])
    want = pytrec({"1": {"7": 1, "b": 0, "c": 2}, "2": QD["2"]},
                  {"1": {"7": 0.4, "b": 0.9, "c": 0.1}, "2": RD["2"]}, "ndcg_cut_10")
    assert _trec(qrels, run) == pytest.approx(want, abs=1e-12)


def test_pyarrow_backed_columns_give_pytrec_evals_number() -> None:
    qrels = _qrels_frame().astype({"qid": "string[pyarrow]", "rel": "int64[pyarrow]"})
    run = _run_frame().astype({"docno": "large_string[pyarrow]", "score": "double[pyarrow]"})
    assert _trec(qrels, run) == pytest.approx(pytrec(QD, RD, "ndcg_cut_10"), abs=1e-12)


def test_a_nullable_relevance_with_pd_na_is_refused_at_its_row() -> None:
    qrels = _qrels_frame().assign(rel=pd.array([1, 0, pd.NA, 1, 0], dtype="Int64"))
    _refused(lambda: _trec(qrels, _run_frame()), "row 3", "'rel'")


@pytest.mark.parametrize(("rel", "ok"), [(1.0000001, False), (1.0, True)])
def test_a_float_relevance_is_read_only_when_whole(rel: float, ok: bool) -> None:
    qrels = _qrels_frame().assign(rel=[rel, 0.0, 2.0, 1.0, 0.0])
    if ok:
        assert _trec(qrels, _run_frame()) == pytest.approx(pytrec(QD, RD, "ndcg_cut_10"))
    else:
        _refused(lambda: _trec(qrels, _run_frame()), "row 1", "'rel'", "1.0000001")


def test_a_nullable_boolean_qid_is_refused() -> None:
    run = _run_frame().assign(qid=pd.array([True, True, True, False, False], dtype="boolean"))
    _refused(lambda: _trec(_qrels_frame(), run), "'qid'", "True")


def test_unsigned_nullable_scores_rank_as_their_values() -> None:
    run = _run_frame().assign(score=pd.array([1, 2, 3, 4, 5], dtype="UInt64"))
    want = pytrec(QD, {"1": {"a": 1.0, "b": 2.0, "c": 3.0}, "2": {"d": 4.0, "e": 5.0}},
                  "ndcg_cut_10")
    assert _trec(_qrels_frame(), run) == pytest.approx(want, abs=1e-12)


def test_a_run_series_with_an_integer_query_level_joins_text_qrels() -> None:
    s = pd.Series([0.4, 0.9, 0.1, 0.2, 0.8],
                  index=pd.MultiIndex.from_arrays([[1, 1, 1, 2, 2], list("abcde")]))
    assert _trec(QD, s) == pytest.approx(pytrec(QD, RD, "ndcg_cut_10"), abs=1e-12)


def test_a_run_frame_with_a_duplicated_index_gives_pytrec_evals_number() -> None:
    run = _run_frame()
    run.index = [0, 0, 1, 1, 0]
    assert _trec(_qrels_frame(), run) == pytest.approx(pytrec(QD, RD, "ndcg_cut_10"))


def test_ranx_objects_give_the_same_number_as_their_dicts() -> None:
    ranx = pytest.importorskip("ranx")
    qrels, run = ranx.Qrels(QD), ranx.Run(RD)
    assert _trec(qrels, run) == pytest.approx(_trec(QD, RD), abs=1e-15)
    assert _trec(qrels, run) == pytest.approx(ranx.evaluate(qrels, run, "ndcg@10"), abs=1e-12)


@pytest.mark.parametrize("value", [Decimal("0.4"), "0.4", 0.4 + 0j])
def test_a_run_dict_score_that_is_no_float_is_refused_by_its_keys(value: object) -> None:
    run = {"1": {"a": value, "b": 0.9}, "2": RD["2"]}
    _refused(lambda: _trec(QD, run), "['1']['a']", "score")


def test_an_all_object_frame_gives_the_numeric_frames_number() -> None:
    f = pd.DataFrame({"qid": [1, 1, 1, 2, 2], "label": [2, 0, 1, 1, 0],
                      "score": [0.9, 0.1, 0.5, 0.2, 0.8]})
    want = float(evaluate(f, metrics="ndcg@10")["ndcg@10"])
    assert float(evaluate(f.astype(object), metrics="ndcg@10")["ndcg@10"]) == want
    # by hand: query 1 ranks labels 2, 1, 0 (ideal); query 2 ranks 0, 1: 1 / log2(3)
    assert want == pytest.approx((1.0 + 1 / np.log2(3)) / 2, abs=1e-12)


# ------------------------------------------------ ids that are no text: dates, bytes, numbers
_STAMPS = ([pd.Timestamp("2020-01-01 00:00", tz="UTC")] * 3
           + [pd.Timestamp("2020-01-01 01:00", tz="Europe/Paris")] * 2)


def _frame() -> pd.DataFrame:
    return pd.DataFrame({"qid": [1, 1, 1, 2, 2], "label": [2, 0, 1, 1, 0],
                         "score": [0.9, 0.1, 0.5, 0.2, 0.8]})


def test_qids_that_are_one_instant_in_two_time_zones_are_not_silently_one_query() -> None:
    """The two stamps are one instant: compared as dates, five rows became one query (ndcg@10
    0.9515 where the two queries give 0.8155). Refused, as evaluate_trec refuses dates."""
    frame = _frame().assign(qid=pd.Series(_STAMPS, dtype=object))
    _refused(lambda: evaluate(frame, metrics="ndcg@10"), "row 1", "'qid'", "Timestamp",
             "time zone")


@pytest.mark.parametrize("qid", [
    pd.to_datetime(["2020-01-01"] * 3 + ["2020-01-02"] * 2),
    pd.to_timedelta([1, 1, 1, 2, 2], unit="s"),
    pd.Series([Decimal(1)] * 3 + [Decimal(2)] * 2, dtype=object),
    pd.period_range("2020-01", periods=2, freq="M").repeat([3, 2]),
    [1j, 1j, 1j, 2j, 2j],
], ids=["datetime64", "timedelta", "Decimal", "Period", "complex"])
def test_a_frame_qid_column_of_no_id_type_is_refused_naming_the_column(qid: Any) -> None:
    frame = _frame().assign(qid=qid)
    _refused(lambda: evaluate(frame, metrics="ndcg@10"), "row 1", "'qid'",
             "expected strings or integers")


@pytest.mark.parametrize("qid", [
    np.array([b"1"] * 3 + [b"2"] * 2),
    np.array(["2020-01-01"] * 3 + ["2020-01-02"] * 2, dtype="datetime64[D]"),
    np.array([1j] * 3 + [2j] * 2),
], ids=["bytes", "datetime64", "complex"])
def test_an_array_qid_of_no_id_type_is_refused(qid: np.ndarray) -> None:
    f = _frame()
    _refused(lambda: evaluate(f["label"].to_numpy(), f["score"].to_numpy(), qid=qid,
                              metrics="ndcg@10"), "row 1", "query id")


def test_the_same_dates_are_refused_by_evaluate_trec_too() -> None:
    run = _run_frame().assign(qid=pd.Series(_STAMPS, dtype=object))
    _refused(lambda: _trec(_qrels_frame(), run), "row 1", "'qid'")


def test_a_document_id_that_is_a_date_is_refused() -> None:
    f = _frame().assign(docno=pd.Series([pd.Timestamp(2020, 1, d) for d in range(1, 6)],
                                        dtype=object))
    _refused(lambda: evaluate(f, metrics="ndcg@10", profile="trec_eval", docno="docno"),
             "document id", "Timestamp")


def test_integer_and_text_qids_still_give_the_text_number() -> None:
    f = _frame()
    mixed = f.assign(qid=np.array([1, "1", 1, 2, "2"], dtype=object))
    assert float(evaluate(mixed, metrics="ndcg@10")["ndcg@10"]) == pytest.approx(
        float(evaluate(f.assign(qid=f["qid"].astype(str)), metrics="ndcg@10")["ndcg@10"]))


# ------------------------------------------------ text_ids: the fast path against the slow one
def _id_kind(v: object) -> str:
    """The kind of one id, value by value (the implementation before round 11)."""
    if isinstance(v, bool | np.bool_):
        return "bool"
    if isinstance(v, int | np.integer):
        return "int"
    if isinstance(v, str):
        return "str"
    if v is None or (isinstance(v, float | np.floating) and v != v) \
            or type(v).__name__ in ("NAType", "NaTType"):  # pandas' missing values
        return "missing"
    if isinstance(v, float | np.floating):
        return "float"
    return type(v).__name__


def _slow_text_ids(values: object, *, what: str = "query id") -> np.ndarray:
    """The implementation before round 11 (one ``_id_kind`` call per id), with this round's
    rule that values other than ints, floats, text, bools and missing values are refused."""
    from bench.data.input_ids import _refuse_stray_ids, text_array

    a = np.asarray(values) if not isinstance(values, np.ndarray) else values
    _refuse_stray_ids(a, what=what, path=None, column=None)
    if a.dtype.kind == "b" and a.shape[0]:
        raise DataError(f"{what} {bool(a.flat[0])!r} is a bool", row=1)
    if a.dtype.kind in "MmcSV" and a.shape[0]:
        raise DataError(f"{what} {a.flat[0]!r} is a {a.dtype} value", row=1)
    if a.dtype.kind != "O":
        return a
    items = a.tolist()
    kinds = {_id_kind(v) for v in items}
    allowed = {"int", "float", "str", "missing", "bool"}
    if kinds - allowed:
        i = next(k for k, v in enumerate(items) if _id_kind(v) not in allowed)
        raise DataError(f"{what} {items[i]!r} is a {type(items[i]).__name__}", row=i + 1)
    if "missing" not in kinds and "bool" in kinds:
        i = next(k for k, v in enumerate(items) if _id_kind(v) == "bool")
        raise DataError(f"{what} {items[i]!r} is a bool", row=i + 1)
    if "str" not in kinds or "missing" in kinds:
        return a
    if kinds <= {"int", "str"}:
        return text_array([v if isinstance(v, str) else str(int(v)) for v in items], what=what)
    ok = ("int", "str")
    i = next(k for k, v in enumerate(items) if _id_kind(v) not in ok)
    raise DataError(f"{what} {items[i]!r} is a {type(items[i]).__name__} among ids", row=i + 1)


_ID_VALUES = st.one_of(
    st.integers(-3, 3), st.integers(2**62, 2**64), st.sampled_from(["1", "a", "b", "02", "x y"]),
    st.text(alphabet="ab1 \t\u00a0\x00", min_size=0, max_size=3), st.floats(allow_nan=True),
    st.none(), st.booleans(), st.sampled_from([np.int64(1), np.uint8(2), np.float32(1.5),
                                                np.str_("1"), np.bool_(True), pd.NA, pd.NaT,
                                                b"1", Decimal(1), (1,),
                                                pd.Timestamp(2020, 1, 1)]))


@settings(max_examples=300, deadline=None)
@given(st.lists(_ID_VALUES, min_size=1, max_size=8))
def test_text_ids_fast_path_agrees_with_the_slow_one(values: list[object]) -> None:
    from bench.data.input_ids import text_ids

    a = np.empty(len(values), dtype=object)
    a[:] = values
    outcomes = []
    for fn in (text_ids, _slow_text_ids):
        try:
            got = fn(a.copy())
            outcomes.append(("ok", got.dtype.kind, got.tolist()))
        except DataError as exc:
            outcomes.append(("error", exc.row, None))
    fast, slow = outcomes
    assert fast[:2] == slow[:2], (values, fast, slow)
    if fast[0] == "ok":
        assert repr(fast[2]) == repr(slow[2]), (values, fast, slow)


def test_text_ids_of_a_million_text_ids_is_one_pass() -> None:
    """Not a timing (machines differ): the kinds come from the distinct types, so a million
    ids of one type produce exactly the array the element-by-element rule gives."""
    from bench.data.input_ids import text_ids

    ids = np.arange(1_000_000).astype(str).astype(object)
    ids[7] = 7  # an integer among text: text "7"
    got = text_ids(ids)
    assert got.dtype.kind == "U"
    assert got[7] == "7"
    assert got[-1] == "999999"


# ------------------------------------------------------------------- crosscheck's TREC input
def test_q0_qrels_under_the_diversity_reading_raise_the_typed_signal(tmp_path: Path) -> None:
    from bench.data.trec import NotDiversityQrels, read_qrels

    (tmp_path / "q").write_bytes(b"1 Q0 a 1\n")
    with pytest.raises(NotDiversityQrels) as info:
        read_qrels(tmp_path / "q", subtopics=True)
    assert info.value.column == "subtopic"
    assert info.value.line == 1


def test_crosscheck_input_of_q0_qrels_is_the_ordinary_judgments(tmp_path: Path) -> None:
    from bench.crosscheck.evaluators import trec_input

    q, r = _files(tmp_path, QRELS.replace(b" 0 ", b" Q0 "), RUN)
    got = trec_input(q, r)
    assert got.qrels == QD
    assert got.subtopics is None
    assert got.run == RD


def test_crosscheck_input_of_subtopic_qrels_judging_twice_says_it_once(tmp_path: Path) -> None:
    """(query 1, subtopic 0, a) twice: the diversity reading signals, the ordinary one names
    the line, as trec_eval would have to be told."""
    from bench.crosscheck.evaluators import trec_input

    q, r = _files(tmp_path, QRELS + b"1 0 a 1\n", RUN)
    _refused(lambda: trec_input(q, r), f"{q}:6", "judged twice", "first on line 1")


def test_crosscheck_input_with_a_bad_relevance_is_one_error_of_its_line(tmp_path: Path) -> None:
    from bench.crosscheck.evaluators import trec_input

    q, r = _files(tmp_path, QRELS.replace(b"2 0 d 1", b"2 0 d high"), RUN)
    _refused(lambda: trec_input(q, r), f"{q}:4", "'rel'")


def test_crosscheck_input_of_subtopic_qrels_keeps_the_diversity_rows(tmp_path: Path) -> None:
    from bench.crosscheck.evaluators import trec_input

    q, r = _files(tmp_path, b"1 1 a 1\n1 2 a 1\n1 2 b 1\n", b"1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    got = trec_input(q, r)
    assert got.subtopics is not None
    assert got.qrels == {}


def test_crosscheck_no_longer_matches_an_error_messages_words() -> None:
    import inspect

    from bench.crosscheck import evaluators

    src = inspect.getsource(evaluators.trec_input)
    assert "judged twice" not in src
    assert ".reason" not in src


# --------------------------------------------------------------- SVMlight: width and details
def test_an_svmlight_file_without_features_has_width_0_as_its_parquet(tmp_path: Path) -> None:
    from bench.data.letor import LetorData
    from bench.data.parquet import read_parquet, write_parquet

    (tmp_path / "f.txt").write_bytes(b"2 qid:1\n0 qid:1\n1 qid:2\n")
    svm = read_svmlight(tmp_path / "f.txt")
    assert svm.X.shape == (3, 0)
    data = LetorData.build(np.zeros((3, 0), np.float32), np.array([2.0, 0, 1]),
                           qid=np.array([1, 1, 2]))
    write_parquet(data, tmp_path / "f.parquet")
    assert read_parquet(tmp_path / "f.parquet").X.shape == svm.X.shape


def test_an_svmlight_file_without_features_keeps_width_0_through_the_cache(
        tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_bytes(b"2 qid:1\n0 qid:1\n")
    first = read_svmlight(tmp_path / "f.txt", cache_dir=tmp_path / "cache")
    again = read_svmlight(tmp_path / "f.txt", cache_dir=tmp_path / "cache")
    assert first.X.shape == again.X.shape == (2, 0)
    assert again.y.tolist() == [2.0, 0.0]


def test_a_featureless_split_beside_a_featured_one_gets_the_shared_width(tmp_path: Path) -> None:
    (tmp_path / "a").write_bytes(b"1 qid:1 3:0.5\n0 qid:1 1:1\n")
    (tmp_path / "b").write_bytes(b"1 qid:2\n0 qid:2\n")
    a, b = read_svmlight_files([tmp_path / "a", tmp_path / "b"])
    assert a.X.shape == (2, 3)
    assert b.X.shape == (2, 3)
    assert not b.X.any()


def test_training_on_splits_without_features_is_refused_by_name() -> None:
    from bench.data.letor import LetorData, LetorSplits
    from bench.data.split_checks import check_same_features

    def part(q: int) -> LetorData:
        return LetorData.build(np.zeros((2, 0), np.float32), np.array([1.0, 0.0]),
                               qid=np.array([q, q]))

    splits = LetorSplits("featureless", part(1), part(2), part(3))
    _refused(lambda: check_same_features(splits), "'featureless'", "no feature columns",
             "at least one feature")


def test_svmlight_leading_zero_index_and_docid_comments_read_as_scikit_learn(
        tmp_path: Path) -> None:
    from sklearn.datasets import load_svmlight_file

    text = b"2 qid:1 01:0.5 3:1 #docid = GX001\n0 qid:1 2:0.25 # x:9\n1 qid:2 003:-0\n"
    (tmp_path / "f").write_bytes(text)
    mine = read_svmlight(tmp_path / "f")
    X, y, qid = load_svmlight_file(str(tmp_path / "f"), query_id=True, zero_based=False)
    assert np.array_equal(mine.X, X.toarray().astype(np.float32))
    assert mine.y.tolist() == y.tolist()
    assert np.asarray(mine.qid).tolist() == qid.tolist()


def test_an_empty_qid_after_qid_colon_is_refused_at_its_column(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"1 qid:1 1:0.5\n0 qid: 1:0.5\n")
    _refused(lambda: read_svmlight(tmp_path / "f"), f"{tmp_path / 'f'}:2", "column 3", "qid:")


def test_a_query_sidecar_with_crlf_and_cr_line_ends_groups_alike(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"1 1:0.5\n0 1:0.2\n1 1:0.3\n")
    offsets = []
    for end in (b"\n", b"\r\n", b"\r"):
        (tmp_path / "f.query").write_bytes(b"2" + end + b"1" + end)
        offsets.append(np.asarray(read_svmlight(tmp_path / "f").offsets).tolist())
    assert offsets == [[0, 2, 3]] * 3


def test_evaluate_cli_over_svmlight_and_scores_with_cr_line_ends_gives_the_lf_number(
        tmp_path: Path) -> None:
    from tests.hostile_kit import DATA, SCORES, csv_values

    (tmp_path / "d").write_bytes(DATA)
    (tmp_path / "s").write_bytes(SCORES)
    (tmp_path / "s_cr").write_bytes(SCORES.replace(b"\n", b"\r"))
    lf = cli(tmp_path, "evaluate", "--data", "d", "--scores", "s", "--metrics", "ndcg@10",
             "--format", "csv")
    cr = cli(tmp_path, "evaluate", "--data", "d", "--scores", "s_cr", "--metrics", "ndcg@10",
             "--format", "csv")
    assert lf.status == cr.status == 0, (lf.err, cr.err)
    assert csv_values(lf) == csv_values(cr)


# ------------------------------------------------------------ LETOR folders with odd names
def _letor(folder: Path, names: list[str]) -> Path:
    from tests.hostile_kit import letor_split

    for i, name in enumerate(names):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(letor_split(4, 1 + 100 * i, i))
    return folder


@pytest.mark.parametrize("name", ["dev.txt", "val.txt", "validate.txt", "set1.dev.txt"])
def test_a_validation_file_under_a_name_not_read_is_refused_not_replaced(
        tmp_path: Path, name: str) -> None:
    """train.txt + dev.txt + test.txt: dev.txt was ignored and validation carved from train
    (train 24 rows instead of 32), without a word."""
    from bench.data.folders import read_folder

    _letor(tmp_path, ["train.txt", name, "test.txt"])
    _refused(lambda: read_folder(tmp_path), name, "looks like a validation file", "vali.txt")


def test_a_file_merely_starting_like_val_is_no_validation_lookalike(tmp_path: Path) -> None:
    from bench.data.folders import read_folder

    _letor(tmp_path, ["train.txt", "test.txt"])
    (tmp_path / "values.csv").write_text("x\n")
    (tmp_path / "train.txt.query").unlink(missing_ok=True)
    splits = read_folder(tmp_path)  # validation carved from train, as documented
    assert splits.train.n_rows + splits.vali.n_rows == 32


def test_a_dev_file_beside_vali_is_not_in_the_way(tmp_path: Path) -> None:
    from bench.data.folders import read_folder

    _letor(tmp_path, ["train.txt", "vali.txt", "test.txt", "dev.txt"])
    assert read_folder(tmp_path).vali.n_rows == 32


def test_another_fold_is_not_read_in_place_of_the_one_asked_for(tmp_path: Path) -> None:
    """A folder holding only Fold2/: it was read as 'the one sub-folder' when Fold1 (the
    default) was asked for."""
    from bench.data.folders import read_folder

    _letor(tmp_path, ["Fold2/train.txt", "Fold2/vali.txt", "Fold2/test.txt"])
    _refused(lambda: read_folder(tmp_path), "Fold2/", "no Fold1/", ":Fold2")
    assert read_folder(tmp_path, fold="Fold2").train.n_rows == 32


def test_an_archives_one_top_folder_is_still_read(tmp_path: Path) -> None:
    from bench.data.folders import read_folder

    _letor(tmp_path, ["MQ2008/Fold1/train.txt", "MQ2008/Fold1/vali.txt",
                      "MQ2008/Fold1/test.txt"])
    assert read_folder(tmp_path).test.n_rows == 32


def test_crosscheck_cli_over_q0_qrels_compares_and_agrees(tmp_path: Path) -> None:
    """Through the door: Q0 qrels fall back to the ordinary reading (typed), and pytrec_eval
    agrees with ltrbench on every measure."""
    _files(tmp_path, QRELS.replace(b" 0 ", b" Q0 "), RUN)
    res = cli(tmp_path, "crosscheck", "--evaluators", "--qrels", "q", "--trec-run", "r",
              "--tools", "pytrec_eval", "--out", "cc")
    assert res.status == 0, res.err
    rows = [ln for ln in res.out.splitlines() if ln.startswith("| pytrec_eval")]
    assert rows
    assert all(ln.rstrip(" |").endswith("agrees") and "disagrees" not in ln for ln in rows), rows


def test_evaluate_cli_over_a_featureless_svmlight_file_gives_the_hand_number(
        tmp_path: Path) -> None:
    """Labels and queries only (evaluate never needs features): query 1 ranks labels 2, 0 (its
    ideal), query 2 ranks 0, 1: ndcg@10 = (1 + (1 / log2 3) / 1) / 2."""
    from tests.hostile_kit import csv_values

    (tmp_path / "d").write_bytes(b"2 qid:1\n0 qid:1\n1 qid:2\n0 qid:2\n")
    (tmp_path / "s").write_bytes(b"0.9\n0.1\n0.2\n0.8\n")
    res = cli(tmp_path, "evaluate", "--data", "d", "--scores", "s", "--metrics", "ndcg@10",
              "--format", "csv")
    assert res.status == 0, res.err
    assert csv_values(res)["ndcg@10"] == pytest.approx((1 + 1 / np.log2(3)) / 2, abs=1e-6)


@pytest.mark.parametrize("command", ["run", "tune"])
def test_run_and_tune_refuse_a_featureless_letor_folder_before_any_model(
        tmp_path: Path, command: str) -> None:
    """Read with width 0, the folder is refused by name before any trial or model (tune ran
    its trials, all failed in LightGBM, and exited 0 pointing at a best.toml)."""
    for i, split in enumerate(("train", "vali", "test")):
        (tmp_path / "ds").mkdir(exist_ok=True)
        (tmp_path / "ds" / f"{split}.txt").write_bytes(b"".join(
            f"{(q + r) % 3} qid:{q + 100 * i}\n".encode() for q in range(1, 5) for r in range(4)))
    extra = ("--budget-trials", "2", "--model", "lightgbm") if command == "tune" else (
        "--models", "lightgbm")
    res = cli(tmp_path, command, "--dataset", "ds", "--quick", "--out", "out", *extra)
    assert res.status == 2, res.err
    assert "no feature columns" in res.err
    assert "ds/train.txt" in res.err
    assert not (tmp_path / "out").exists()
