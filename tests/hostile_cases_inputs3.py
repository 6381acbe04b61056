"""Hostile inputs, round 3: new instances of the classes of issue 19 on ``evaluate`` (TREC files,
scores files), ``convert`` (ratings CSV / Parquet) and the Python ``evaluate`` / frames API.

Each case takes a fresh folder and returns ``None`` when ltrbench behaved (a clear one-line error
naming the file:line / row / column and what was expected, or the oracle's number) and otherwise
one line saying what went wrong (see ``tests/hostile_kit.py``). Oracles: pytrec_eval (trec_eval's
C code) fed the rows as dicts, the same rows read from a clean input, hand arithmetic.
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hostile_kit import (
    QRELS,
    RUN,
    SCORES,
    api_refused,
    call,
    cli,
    close,
    pytrec,
    refused,
    untouched,
    value_or_refused,
    write,
)

Fn = Callable[[Path], "str | None"]
CASES: list[tuple[str, Fn]] = []
WRONG, ACCEPT, UNCLEAR = "silently wrong numbers", "silent accepts", "unclear errors"
TRACE, DESTROYED = "tracebacks", "inputs destroyed"


def case(klass: str) -> Callable[[Fn], Fn]:
    def add(fn: Fn) -> Fn:
        CASES.append((klass, fn))
        return fn
    return add


def _rows(text: bytes, kind: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for line in text.decode().splitlines():
        f = line.split()
        if f and not f[0].startswith("#"):
            out.setdefault(f[0], {})[f[2]] = int(f[3]) if kind == "qrels" else float(f[4])
    return out


def _oracle(qrels: bytes = QRELS, run: bytes = RUN, measure: str = "ndcg_cut_10") -> float:
    return pytrec(_rows(qrels, "qrels"), _rows(run, "run"), measure)


def _trec(tmp: Path, qrels: bytes = QRELS, run: bytes = RUN, *extra: str,
          metric: str = "ndcg_cut_10") -> Any:
    write(tmp, {"q.txt": qrels, "r.txt": run})
    return cli(tmp, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics", metric,
               "--format", "csv", *extra)


def _trec_value(tmp: Path, qrels: bytes = QRELS, run: bytes = RUN, *words: str,
                want: float | None = None) -> str | None:
    """The clean file's pytrec_eval number, or a clear error containing ``words``."""
    clean = _oracle() if want is None else want
    return value_or_refused(_trec(tmp, qrels, run), "ndcg_cut_10", clean, *words)


def _sub(data: bytes, old: bytes, new: bytes) -> bytes:
    assert old in data, old
    return data.replace(old, new, 1)


# ------------------------------------------------------------- TREC files: what ends a line
@case(WRONG)
def trec_run_with_a_byte_order_mark_inside(tmp: Path) -> str | None:
    # two files joined: '\ufeff2' would be a query apart from '2' (0.310 instead of 0.625)
    return _trec_value(tmp, QRELS, _sub(RUN, b"\n2 Q0 d", b"\n\xef\xbb\xbf2 Q0 d"), "r.txt:4",
                       "byte-order mark")


@case(WRONG)
def trec_qrels_with_a_byte_order_mark_inside(tmp: Path) -> str | None:
    return _trec_value(tmp, _sub(QRELS, b"\n2 0 d", b"\n\xef\xbb\xbf2 0 d"), RUN, "q.txt:4",
                       "byte-order mark")


@case(WRONG)
def trec_run_lines_ended_by_u2028(tmp: Path) -> str | None:
    # one line of 30 fields: the fields past the sixth are ignored (0.380, trec_eval's rule)
    return _trec_value(tmp, QRELS, RUN.replace(b"\n", "\u2028".encode()), "r.txt:1", "U+2028")


@case(WRONG)
def trec_run_lines_ended_by_nel_u0085(tmp: Path) -> str | None:
    return _trec_value(tmp, QRELS, RUN.replace(b"\n", "\u0085".encode()), "r.txt:1", "U+0085")


@case(WRONG)
def trec_run_lines_ended_by_form_feeds(tmp: Path) -> str | None:
    return _trec_value(tmp, QRELS, RUN.replace(b"\n", b"\x0c"), "r.txt:1", "form feed")


@case(UNCLEAR)  # refused before, as 'expected 4 fields, got 16'
def trec_qrels_lines_ended_by_u2029(tmp: Path) -> str | None:
    return _trec_value(tmp, QRELS.replace(b"\n", "\u2029".encode()), RUN, "q.txt:1", "U+2029")


@case(WRONG)
def trec_run_lines_ended_by_record_separators(tmp: Path) -> str | None:
    return _trec_value(tmp, QRELS, RUN.replace(b"\n", b"\x1e"), "r.txt:1", "U+001E")


@case(ACCEPT)
def trec_run_with_a_nul_byte_in_a_query_id(tmp: Path) -> str | None:
    return refused(_trec(tmp, QRELS, _sub(RUN, b"2 Q0 d", b"2\x00 Q0 d")), "r.txt:4", "NUL")


@case(UNCLEAR)
def trec_run_in_utf16le_without_a_byte_order_mark(tmp: Path) -> str | None:
    return refused(_trec(tmp, QRELS, RUN.decode().encode("utf-16-le")), "r.txt:1", "UTF-16")


@case(UNCLEAR)
def trec_qrels_in_utf16be_without_a_byte_order_mark(tmp: Path) -> str | None:
    return refused(_trec(tmp, QRELS.decode().encode("utf-16-be"), RUN), "q.txt:1", "UTF-16BE")


@case(WRONG)
def trec_run_with_tabs_and_spaces_mixed(tmp: Path) -> str | None:
    return _trec_value(tmp, QRELS, RUN.replace(b" Q0 ", b"\tQ0  \t"))


@case(WRONG)
def trec_run_with_trailing_blanks_crlf_and_no_final_line_end(tmp: Path) -> str | None:
    return _trec_value(tmp, QRELS, RUN.replace(b"\n", b"  \t\r\n").rstrip(b"\r\n"))


@case(WRONG)
def trec_run_with_a_seventh_field_and_no_q0(tmp: Path) -> str | None:
    return _trec_value(tmp, QRELS, RUN.replace(b" t\n", b" t extra\n").replace(b"Q0", b"X"))


@case(WRONG)
def trec_run_with_a_ten_megabyte_line(tmp: Path) -> str | None:
    return _trec_value(tmp, QRELS, RUN + b"3 Q0 " + b"x" * 10_000_000 + b" 1 0.5 t\n")


@case(WRONG)
def trec_run_scores_minus_zero_and_plus_point(tmp: Path) -> str | None:
    run = _sub(_sub(RUN, b"0.1 t", b"-0 t"), b"0.4", b"+.4")
    return _trec_value(tmp, QRELS, run, want=_oracle(run=run.replace(b"+.4", b"0.4")))


@case(UNCLEAR)
def trec_run_score_with_a_decimal_comma(tmp: Path) -> str | None:
    return refused(_trec(tmp, QRELS, _sub(RUN, b"0.4", b"0,4")), "r.txt:1", "'0,4'")


@case(UNCLEAR)
def trec_qrels_relevance_in_arabic_digits(tmp: Path) -> str | None:
    return refused(_trec(tmp, _sub(QRELS, b"c 2", "c \u0662".encode()), RUN), "q.txt:3", "rel")


@case(WRONG)
def trec_qrels_with_negative_labels(tmp: Path) -> str | None:
    q = _sub(_sub(QRELS, b"b 0", b"b -1"), b"e 0", b"e -2")
    return _trec_value(tmp, q, RUN, want=_oracle(qrels=q))


@case(WRONG)
def trec_qrels_query_with_only_label_0(tmp: Path) -> str | None:
    q = _sub(QRELS, b"d 1", b"d 0")
    return _trec_value(tmp, q, RUN, want=_oracle(qrels=q))


@case(WRONG)
def trec_run_with_one_document(tmp: Path) -> str | None:
    run = b"1 Q0 c 1 1 t\n"
    return _trec_value(tmp, QRELS, run, want=_oracle(run=run))


@case(WRONG)
def trec_query_id_02_is_not_2(tmp: Path) -> str | None:
    q = QRELS.replace(b"2 0", b"02 0")  # ids compare as text, as in trec_eval
    return _trec_value(tmp, q, RUN, want=_oracle(qrels=q))


# ------------------------------------------------------------------- scores files (--scores)
def _scores(tmp: Path, scores: bytes) -> Any:
    write(tmp, {"d.txt": b"2 qid:1 1:1\n0 qid:1 1:1\n1 qid:1 1:1\n1 qid:2 1:1\n0 qid:2 1:1\n",
                "s.txt": scores})
    return cli(tmp, "evaluate", "--data", "d.txt", "--scores", "s.txt", "--metrics", "ndcg@10",
               "--format", "csv")


@case(UNCLEAR)
def scores_file_with_a_byte_order_mark_inside(tmp: Path) -> str | None:
    return refused(_scores(tmp, _sub(SCORES, b"\n0.5", b"\n\xef\xbb\xbf0.5")), "s.txt:3",
                   "byte-order mark")


@case(UNCLEAR)
def scores_file_in_utf16_without_a_byte_order_mark(tmp: Path) -> str | None:
    return refused(_scores(tmp, SCORES.decode().encode("utf-16-le")), "s.txt:1", "UTF-16")


@case(UNCLEAR)
def scores_file_lines_ended_by_u2028(tmp: Path) -> str | None:
    return refused(_scores(tmp, SCORES.replace(b"\n", "\u2028".encode())), "s.txt:1", "U+2028")


@case(WRONG)
def scores_file_minus_zero_trailing_blanks_and_empty_last_lines(tmp: Path) -> str | None:
    res = _scores(tmp, _sub(SCORES, b"0.1\n", b"-0   \n") + b"\n\n")
    return value_or_refused(res, "ndcg@10", (1 + 1 / math.log2(3)) / 2)


def _svm(tmp: Path, data: bytes) -> Any:
    write(tmp, {"d.txt": data, "s.txt": SCORES})
    return cli(tmp, "evaluate", "--data", "d.txt", "--scores", "s.txt", "--metrics", "ndcg@10",
               "--format", "csv")


_SVM = b"2 qid:1 1:0.5 2:1\n0 qid:1 1:0.1\n1 qid:1 2:0.3\n1 qid:2 1:0.2\n0 qid:2 1:0.9\n"


@case(UNCLEAR)
def svmlight_with_a_byte_order_mark_inside(tmp: Path) -> str | None:
    return refused(_svm(tmp, _sub(_SVM, b"\n1 qid:2", b"\n\xef\xbb\xbf1 qid:2")), "d.txt:4",
                   "byte-order mark")


@case(UNCLEAR)
def svmlight_in_utf16_without_a_byte_order_mark(tmp: Path) -> str | None:
    return refused(_svm(tmp, _SVM.decode().encode("utf-16-le")), "d.txt:1", "UTF-16")


@case(WRONG)
def svmlight_features_out_of_order_or_repeated(tmp: Path) -> str | None:
    for old, new in ((b"1:0.5 2:1", b"2:1 1:0.5"), (b"1:0.5 2:1", b"1:0.5 1:0.7")):
        bad = refused(_svm(tmp, _sub(_SVM, old, new)), "d.txt:1", "increasing")
        if bad:
            return f"{new!r}: {bad}"
    return None


def _letor_parquet(tmp: Path, columns: dict[str, Any], *words: str) -> str | None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from bench.data.parquet import read_parquet

    names = list(columns)
    pq.write_table(pa.table([pa.array(v) for v in columns.values()], names=names),
                   tmp / "d.parquet")
    return _api_refused(lambda: read_parquet(tmp / "d.parquet"), "d.parquet", *words)


@case(WRONG)
def letor_parquet_feature_beyond_float32(tmp: Path) -> str | None:
    # 1e300 became inf in the float32 matrix (a RuntimeWarning, exit 0)
    return _letor_parquet(tmp, {"qid": [1, 1], "label": [1.0, 0.0], "f1": [1e300, 0.1]},
                          "row 1", "f1")


@case(WRONG)
def letor_parquet_qid_beyond_int64(tmp: Path) -> str | None:
    import pyarrow as pa

    # uint64 2^64 - 1 wrapped to qid -1; a float 1e20 to an undefined int64
    for q in (pa.array([2**64 - 1] * 2, type=pa.uint64()), pa.array([1e20, 1e20])):
        bad = _letor_parquet(tmp, {"qid": q, "label": [1.0, 0.0], "f1": [0.5, 0.1]}, "qid")
        if bad:
            return bad
    return None


@case(ACCEPT)
def letor_parquet_bool_labels(tmp: Path) -> str | None:
    return _letor_parquet(tmp, {"qid": [1, 1], "label": [True, False], "f1": [0.5, 0.1]},
                          "label")


@case(UNCLEAR)
def letor_parquet_with_a_label_column_twice(tmp: Path) -> str | None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from bench.data.parquet import read_parquet

    t = pa.table([pa.array([1, 1]), pa.array([1.0, 0]), pa.array([0.0, 2]), pa.array([.5, .1])],
                 names=["qid", "label", "label", "f1"])
    pq.write_table(t, tmp / "d.parquet")
    return _api_refused(lambda: read_parquet(tmp / "d.parquet"), "label", "2 times")


# --------------------------------------------------------------------- metric names (--metrics)
@case(ACCEPT)
def metric_cutoff_with_a_plus_sign(tmp: Path) -> str | None:
    # 'ndcg@+5' was read as ir_measures' nDCG@5 under trec_eval-c, 'ndcg@5' as ltrbench's
    return refused(_trec(tmp, metric="ndcg@+5"), "ndcg@+5")


@case(ACCEPT)
def metric_cutoff_zero_negative_and_fractional(tmp: Path) -> str | None:
    for name in ("ndcg@0", "ndcg@-1", "P@1.5", "ndcg_cut_0", "P_1.5", "map@0"):
        bad = refused(_trec(tmp / name.replace("@", "_"), metric=name), "cutoff" if
                      name.endswith(("@0", "_0")) else name.split("@")[0].split("_")[0])
        if bad:
            return f"{name}: {bad}"
    return None


@case(WRONG)
def metric_ndcg_gain_beyond_float64(tmp: Path) -> str | None:
    # gains={1:1e400} is an infinite gain: every nDCG became NaN, exit 0
    return refused(_trec(tmp, metric="nDCG(gains={1:1e400})@5"), "gains", "finite")


@case(ACCEPT)
def metric_ndcg_gain_table_with_a_label_twice(tmp: Path) -> str | None:
    # Python's literal {1: 1, 1: 2} keeps the last entry without a word
    return refused(_trec(tmp, metric="nDCG(gains={1:1,1:2})@5"), "gains", "twice")


@case(WRONG)
def metric_list_with_a_trailing_comma_and_upper_case(tmp: Path) -> str | None:
    res = _trec(tmp, metric="ndcg_cut_10,")
    return value_or_refused(res, "ndcg_cut_10", _oracle(), "ndcg_cut_10")


# --------------------------------------------------------------------- comparisons (--run x2)
@case(WRONG)
def compare_the_same_file_twice_is_refused_and_a_copy_ties(tmp: Path) -> str | None:
    # one file given twice was compared with itself without a word: refused now, naming both
    # runs; a copy of it is another run, which ties with it
    write(tmp, {"q.txt": QRELS, "r.txt": RUN, "copy.txt": RUN})
    twice = cli(tmp, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--run", "r.txt",
                "--metrics", "ndcg_cut_10", "--format", "csv")
    why = refused(twice, "the same file")
    if why:
        return why
    res = cli(tmp, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--run", "copy.txt",
              "--metrics", "ndcg_cut_10", "--format", "csv")
    import csv as _csv

    rows = list(_csv.DictReader(io.StringIO(res.out)))
    if res.status != 0 or len(rows) != 2:
        return f"exit {res.status}: {res.err.strip()[-200:]}"
    vals = [float(r["ndcg_cut_10"]) for r in rows]
    return None if all(close(v, _oracle()) for v in vals) else f"values {vals}"


@case(ACCEPT)
def compare_runs_without_a_common_query(tmp: Path) -> str | None:
    write(tmp, {"q.txt": QRELS, "a.txt": b"1 Q0 a 1 1 t\n", "b.txt": b"2 Q0 d 1 1 t\n"})
    res = cli(tmp, "evaluate", "--qrels", "q.txt", "--run", "A=a.txt", "--run", "B=b.txt",
              "--metrics", "ndcg_cut_10", "--format", "csv")
    return refused(res, "no query in common")


@case(DESTROYED)
def per_query_through_a_symlink_to_the_second_run(tmp: Path) -> str | None:
    write(tmp, {"q.txt": QRELS, "r.txt": RUN, "b.txt": RUN})
    (tmp / "pq.csv").symlink_to(tmp / "b.txt")
    res = cli(tmp, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--run", "b.txt",
              "--per-query", "pq.csv")
    return untouched({"b.txt": RUN}, tmp) or refused(res, "--per-query", "b.txt")


@case(DESTROYED)
def per_query_is_the_qrels_through_dot_dot(tmp: Path) -> str | None:
    (tmp / "x").mkdir()
    res = _trec(tmp, QRELS, RUN, "--per-query", "x/../q.txt")
    return untouched({"q.txt": QRELS}, tmp) or refused(res, "--per-query", "q.txt")


@case(UNCLEAR)
def per_query_into_proc_names_the_path(tmp: Path) -> str | None:
    # the temporary file of the atomic writer was named instead: '/proc/.version.123-x.tmp'
    if not Path("/proc/version").is_file():
        return None
    return refused(_trec(tmp, QRELS, RUN, "--per-query", "/proc/version"), "/proc/version")


@case(UNCLEAR)
def per_query_in_a_folder_this_user_may_not_write(tmp: Path) -> str | None:
    import unittest.mock

    def no_write(path: Any, mode: int) -> bool:
        return not (mode & os.W_OK and os.fspath(path).endswith("ro"))

    (tmp / "ro").mkdir()
    with unittest.mock.patch("bench.data.outputs.os.access", no_write):  # as root, 0555 writes
        res = _trec(tmp, QRELS, RUN, "--per-query", "ro/pq.csv")
    return refused(res, "--per-query", "ro/pq.csv", "may not be written") or (
        "a per-query file was written" if (tmp / "ro/pq.csv").exists() else None)


# ------------------------------------------------------------------ the Python API and frames
def _frame_vs_arrays(make: Callable[[Any], Any], *words: str) -> str | None:
    """``evaluate(frame)`` with the qid column made by ``make``: the number of the same rows
    as plain text ids, or a clear error naming the column (and ``words``)."""
    import pandas as pd

    from bench.metrics import evaluate

    labels, scores, qid = [2, 0, 1, 1, 0], [0.1, 0.9, 0.5, 0.2, 0.8], [1, 1, 1, 2, 2]
    want = evaluate(labels, scores, qid=[str(q) for q in qid], metrics="ndcg@10")
    frame = pd.DataFrame({"label": labels, "score": scores})
    frame["qid"] = make(qid)
    r, exc = call(lambda: evaluate(frame, metrics="ndcg@10"))
    if exc is not None:
        return api_refused(exc, "qid", *words)
    got = r.metrics["ndcg@10"]
    return None if close(got, want.metrics["ndcg@10"]) else f"ndcg@10 {got} != {want.metrics}"


@case(WRONG)
def frame_qid_categorical(tmp: Path) -> str | None:
    import pandas as pd

    return _frame_vs_arrays(lambda q: pd.Categorical(q, categories=[3, 2, 1]))


@case(WRONG)
def frame_qid_arrow_strings(tmp: Path) -> str | None:
    import pandas as pd

    return _frame_vs_arrays(lambda q: pd.array([str(x) for x in q], dtype="string[pyarrow]"))


def _frame_qid_refused(qid: Any, *words: str) -> str | None:
    import pandas as pd

    from bench.metrics import evaluate

    frame = pd.DataFrame({"label": [2, 0, 1, 1, 0], "score": [0.1, 0.9, 0.5, 0.2, 0.8]})
    frame["qid"] = qid
    return _api_refused(lambda: evaluate(frame, metrics="ndcg@10"), "qid", *words)


@case(ACCEPT)
def frame_qid_nullable_int64_with_na(tmp: Path) -> str | None:
    import pandas as pd

    return _frame_qid_refused(pd.array([1, 1, None, 2, 2], dtype="Int64"), "row 3")


@case(ACCEPT)
def frame_qid_object_with_none(tmp: Path) -> str | None:
    import pandas as pd

    return _frame_qid_refused(pd.Series([1, 1, None, 2, 2], dtype=object), "row 3")


def _api_refused(fn: Callable[[], Any], *words: str) -> str | None:
    _, exc = call(fn)
    return api_refused(exc, *words)


@case(ACCEPT)
def frame_with_two_score_columns(tmp: Path) -> str | None:
    import pandas as pd

    from bench.metrics import evaluate

    f = pd.DataFrame([[1, 2, 0.1, 0.1], [1, 0, 0.9, 0.9]],
                     columns=["qid", "label", "score", "score"])
    return _api_refused(lambda: evaluate(f, metrics="ndcg@10"), "score", "2 times")


@case(UNCLEAR)
def frame_with_multiindex_columns(tmp: Path) -> str | None:
    import numpy as np
    import pandas as pd

    from bench.metrics import evaluate

    cols = pd.MultiIndex.from_tuples([("a", "qid"), ("a", "label"), ("a", "score")])
    f = pd.DataFrame(np.array([[1, 2, 0.1], [1, 0, 0.9]]), columns=cols)
    return _api_refused(lambda: evaluate(f, metrics="ndcg@10"), "label")


@case(ACCEPT)
def frame_column_named_for_two_roles(tmp: Path) -> str | None:
    import pandas as pd

    from bench.metrics import evaluate

    f = pd.DataFrame({"qid": [1, 1, 1, 2, 2], "label": [2, 0, 1, 1, 0],
                      "score": [0.1, 0.9, 0.5, 0.2, 0.8]})
    # qid='label' ranked every query by its own labels: ndcg@10 1.0, exit 0
    for kw in ({"qid": "label"}, {"label": "score", "score": "score"}, {"weights": "score"}):
        bad = _api_refused(lambda kw=kw: evaluate(f, metrics="ndcg@10", **kw), "both")
        if bad:
            return f"{kw}: {bad}"
    return None


def _docno_refused(docno: list[Any], *words: str) -> str | None:
    import pandas as pd

    from bench.metrics import evaluate

    f = pd.DataFrame({"qid": [1, 1, 1], "label": [1, 0, 2], "score": [0.5, 0.5, 0.5],
                      "docno": docno})  # tied scores: trec_eval breaks ties by docno
    return _api_refused(lambda: evaluate(f, metrics="ndcg@10", profile="trec_eval"), "docno",
                        *words)


@case(WRONG)
def frame_docno_missing_breaks_ties_silently(tmp: Path) -> str | None:
    return _docno_refused([None, "b", "c"], "row 1", "missing")


@case(WRONG)
def frame_docno_twice_in_one_query(tmp: Path) -> str | None:
    # a run file refuses a document retrieved twice; the frame gave ndcg@10 1.0
    return _docno_refused(["a", "a", "c"], "row 2", "twice")


@case(ACCEPT)
def frame_docno_bools(tmp: Path) -> str | None:
    return _docno_refused([True, False, True], "bool")


@case(ACCEPT)
def frame_qid_both_a_column_and_an_index_level(tmp: Path) -> str | None:
    import pandas as pd

    from bench.metrics import evaluate

    f = pd.DataFrame({"qid": [1, 1, 1, 2, 2], "label": [2, 0, 1, 1, 0],
                      "score": [0.1, 0.9, 0.5, 0.2, 0.8]}).set_index(pd.Index([9] * 5, name="qid"))
    return _api_refused(lambda: evaluate(f, metrics="ndcg@10"), "qid", "index level")


@case(UNCLEAR)
def metrics_given_as_bytes(tmp: Path) -> str | None:
    from bench.metrics import evaluate

    return _api_refused(lambda: evaluate([1, 0], [0.5, 0.1], group=[2], metrics=b"ndcg@10"),
                        "bytes")


@case(TRACE)
def api_paths_holding_a_nul_byte(tmp: Path) -> str | None:
    from bench.data.svmlight import read_svmlight
    from bench.data.tabular import load_ratings_table
    from bench.metrics import evaluate_trec

    for fn in (lambda: evaluate_trec("q\x00.txt", "r.txt", metrics="map"),
               lambda: load_ratings_table("r\x00.csv", user="u", item="i"),
               lambda: read_svmlight("d\x00.txt")):
        bad = _api_refused(fn, "NUL")
        if bad:
            return bad
    return None


@case(UNCLEAR)
def empty_paths_are_named_as_empty(tmp: Path) -> str | None:
    write(tmp, {"r.txt": RUN})
    for argv in (("evaluate", "--qrels", "", "--run", "r.txt"), ("convert", "--ratings", "",
                                                                 "--out", "o")):
        bad = refused(cli(tmp, *argv), "an empty value")  # one rule for every option
        if bad:
            return f"{argv}: {bad}"
    return None


@case(WRONG)
def run_frame_nullable_int64_qid_against_text_qrels(tmp: Path) -> str | None:
    import pandas as pd

    from bench.metrics import evaluate_trec

    run = pd.DataFrame({"qid": pd.array([1, 1, 1, 2, 2], dtype="Int64"),
                        "docno": list("abcde"), "score": [0.4, 0.9, 0.1, 0.2, 0.8]})
    r, exc = call(lambda: evaluate_trec(_rows(QRELS, "qrels"), run, metrics="ndcg_cut_10"))
    if exc is not None:
        return f"{type(exc).__name__}: {exc}"
    got = r.metrics["ndcg_cut_10"]
    return None if close(got, _oracle()) else f"ndcg_cut_10 {got} != {_oracle()}"


@case(WRONG)
def dict_qrels_query_that_judges_nothing_under_ranx(tmp: Path) -> str | None:
    import ranx

    from bench.metrics import evaluate_trec

    q = {"1": {}, "2": {"d": 1, "e": 0}}
    r = {"1": {"a": 0.4}, "2": {"d": 0.2, "e": 0.8}}
    want = float(ranx.evaluate(ranx.Qrels(q), ranx.Run(r), "ndcg@10"))  # ranx: query 1 is 0
    got, exc = call(lambda: evaluate_trec(q, r, metrics="ndcg@10", profile="ranx"))
    if exc is not None:
        return api_refused(exc, "'1'", "no document")
    v = got.metrics["ndcg@10"]
    return None if close(v, want) else f"ranx profile ndcg@10 {v}, ranx gives {want}"


@case(WRONG)
def dict_run_query_that_retrieves_nothing(tmp: Path) -> str | None:
    from bench.metrics import evaluate_trec

    q = {"1": {"a": 1, "b": 0}, "2": {"d": 1, "e": 0}}
    r: dict[str, dict[str, float]] = {"1": {}, "2": {"d": 0.2, "e": 0.8}}
    want = pytrec(q, r, "ndcg_cut_10")  # pytrec_eval: query 1 is in the run, scored 0
    got, exc = call(lambda: evaluate_trec(q, r, metrics="ndcg_cut_10"))
    if exc is not None:
        return api_refused(exc, "'1'", "no document")
    v = got.metrics["ndcg_cut_10"]
    return None if close(v, want) else f"ndcg_cut_10 {v}, pytrec_eval gives {want}"


@case(UNCLEAR)
def dict_qrels_fractional_relevance_names_its_keys(tmp: Path) -> str | None:
    from bench.metrics import evaluate_trec

    return _api_refused(lambda: evaluate_trec({"q1": {"d1": 1.5}}, {"q1": {"d1": 1.0}},
                                              metrics="map"), "q1", "d1", "1.5")


# ---------------------------------------------------------------------- convert: ratings tables
_HEAD = b"user,item,rating,timestamp\n"
_BASE = [[str(u), str(i), str((u * 7 + i) % 5 + 1), str(1000 * u + i)]
         for u in range(1, 16) for i in range(1, 13)]


def _cell(column: int, text: str) -> bytes:
    rows = [list(r) for r in _BASE]
    rows[4][column] = text
    return _HEAD + "".join(",".join(r) + "\n" for r in rows).encode()


def _convert(tmp: Path, data: bytes, name: str = "r.csv", *extra: str) -> Any:
    write(tmp, {name: data})
    return cli(tmp, "convert", "--ratings", name, "--layout", "csv", "--user", "user", "--item",
               "item", "--rating", "rating", "--timestamp", "timestamp", "--min-history", "2",
               "--target-size", "2", "--features", "user", "--negatives", "3", "--out", "o",
               *extra)


@case(ACCEPT)
def convert_user_id_na_is_a_missing_value(tmp: Path) -> str | None:
    return refused(_convert(tmp, _cell(0, "NA")), "r.csv:6", "user", "missing")


@case(ACCEPT)
def convert_user_id_nan_is_a_missing_value(tmp: Path) -> str | None:
    return refused(_convert(tmp, _cell(0, "nan")), "r.csv:6", "user", "missing")


@case(ACCEPT)
def convert_item_id_null_is_a_missing_value(tmp: Path) -> str | None:
    return refused(_convert(tmp, _cell(1, "null")), "r.csv:6", "item", "missing")


@case(WRONG)
def convert_user_id_with_a_byte_order_mark_inside(tmp: Path) -> str | None:
    # '\ufeff1' would be a user apart from '1': user 1's ratings split in two queries
    return refused(_convert(tmp, _cell(0, "\ufeff1")), "r.csv:6", "user", "byte-order mark")


@case(WRONG)
def convert_user_id_in_arabic_indic_digits_is_not_user_12(tmp: Path) -> str | None:
    from bench.data.tabular import load_ratings_table

    # '١٢' matched the regex \d (Unicode digits) and int() read it as 12: two users became one
    write(tmp, {"r.csv": "u,i,r,t\n12,1,4,1\n\u0661\u0662,2,3,2\n7,1,5,3\n".encode()})
    r, exc = call(lambda: load_ratings_table(tmp / "r.csv", user="u", item="i", rating="r",
                                             timestamp="t"))
    if exc is not None:
        return api_refused(exc, "r.csv", "u")
    n = int(r.frame["user"].nunique())
    return None if n == 3 else f"3 distinct user ids became {n}"


@case(ACCEPT)
def convert_item_id_with_a_nul_byte(tmp: Path) -> str | None:
    return refused(_convert(tmp, _cell(1, "1\x002")), "r.csv:6", "item", "NUL")


@case(UNCLEAR)
def convert_csv_in_utf16_without_a_byte_order_mark(tmp: Path) -> str | None:
    data = _cell(1, "3").decode().encode("utf-16-le")
    return refused(_convert(tmp, data), "r.csv:1", "UTF-16")


@case(UNCLEAR)
def convert_csv_in_latin1_names_the_line(tmp: Path) -> str | None:
    return refused(_convert(tmp, _cell(1, "caf\xe9").decode().encode("latin-1")), "r.csv:6",
                   "UTF-8")


@case(UNCLEAR)
def convert_csv_lines_ended_by_u2028(tmp: Path) -> str | None:
    data = _cell(1, "3").replace(b"\n", "\u2028".encode())
    return refused(_convert(tmp, data), "r.csv:1", "U+2028")


@case(ACCEPT)
def convert_csv_whose_header_repeats_the_rating_column(tmp: Path) -> str | None:
    rows = [[*r, str(6 - int(r[2]))] for r in _BASE]  # which 'rating' is meant?
    data = b"user,item,rating,timestamp,rating\n" + "".join(
        ",".join(r) + "\n" for r in rows).encode()
    return refused(_convert(tmp, data), "r.csv:1", "rating", "2 times")


@case(ACCEPT)
def convert_csv_line_with_a_field_too_many(tmp: Path) -> str | None:
    # pandas drops a line's extra fields when it reads only some columns: '1,5,3,1005,9'
    data = _cell(3, "1005,9")
    return refused(_convert(tmp, data), "r.csv:6", "5 fields", "expected 4")


@case(ACCEPT)
def convert_quoted_csv_line_with_a_field_too_many(tmp: Path) -> str | None:
    data = _cell(1, '"5,6",7')  # a quoted item id holding the separator, then a field too many
    return refused(_convert(tmp, data), "r.csv:6", "5 fields")


@case(UNCLEAR)
def convert_csv_rating_with_a_decimal_comma(tmp: Path) -> str | None:
    return refused(_convert(tmp, _cell(2, '"3,5"')), "r.csv:6", "rating", "3,5")


@case(TRACE)
def convert_rating_beyond_2_53(tmp: Path) -> str | None:
    # 1e308 overflowed the history features (sums of squares) into NaN: a sklearn traceback
    # 9007199254740993 = 2^53 + 1 reads as 2^53 through float64: off by one, silently
    for value, labels in (("-1e308", "graded"), ("1e308", "binary"), ("1e308", "rated"),
                          ("9007199254740993", "rated")):
        extra = ("--labels", labels) + (("--binary-threshold", "3") if labels == "binary" else ())
        res = _convert(tmp / f"{labels}{value}", _cell(2, value), "r.csv", *extra)
        bad = refused(res, "r.csv", "row 5", "rating")
        if bad:
            return f"{value} --labels {labels}: {bad}"
    return None


def _parquet(tmp: Path, change: Callable[[Any], Any]) -> Any:
    import pandas as pd

    frame = change(pd.read_csv(io.BytesIO(_cell(1, "5"))))
    buf = io.BytesIO()
    frame.to_parquet(buf)
    return _convert(tmp, buf.getvalue(), "r.parquet")


@case(ACCEPT)
def convert_parquet_nan_rating(tmp: Path) -> str | None:
    res = _parquet(tmp, lambda f: f.assign(rating=f.rating.astype(float).where(f.index != 4)))
    return refused(res, "r.parquet", "row 5", "rating")


@case(ACCEPT)
def convert_parquet_user_id_text_na(tmp: Path) -> str | None:
    res = _parquet(tmp, lambda f: f.assign(user=f.user.astype(str).where(f.index != 4, "NA")))
    return refused(res, "r.parquet", "row 5", "user")


@case(TRACE)
def convert_parquet_with_two_rating_columns(tmp: Path) -> str | None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    t = pa.table([pa.array([1, 1, 2]), pa.array([1, 2, 1]), pa.array([1.0, 2, 3]),
                  pa.array([5.0, 4, 3]), pa.array([1, 2, 3])],
                 names=["user", "item", "rating", "rating", "timestamp"])
    buf = io.BytesIO()
    pq.write_table(t, buf)
    return refused(_convert(tmp, buf.getvalue(), "r.parquet"), "r.parquet", "rating", "2 times")


def _summary_queries(tmp: Path) -> list[int]:
    import json

    def walk(obj: Any) -> list[int]:
        if isinstance(obj, dict):
            return [v for k, v in obj.items() if k == "queries"] + [
                x for v in obj.values() for x in walk(v)]
        if isinstance(obj, list):
            return [x for v in obj for x in walk(v)]
        return []

    return walk(json.loads((tmp / "o/summary.json").read_text()))


@case(WRONG)
def convert_parquet_tz_aware_and_pre_1970_times_as_seconds(tmp: Path) -> str | None:
    import pandas as pd

    from bench.data.tabular import load_ratings_table

    frame = pd.DataFrame({"u": [1, 1, 2], "i": [1, 2, 1], "r": [1, 2, 3],
                          "t": [-86400 * 365, 0, 1_700_000_000]})
    want = frame.t.tolist()
    stamps = pd.to_datetime(frame.t, unit="s", utc=True).dt.tz_convert("America/New_York")
    frame.assign(t=stamps).to_parquet(tmp / "r.parquet")
    r, exc = call(lambda: load_ratings_table(tmp / "r.parquet", user="u", item="i", rating="r",
                                             timestamp="t"))
    if exc is not None:
        return f"{type(exc).__name__}: {exc}"
    got = r.frame.timestamp.tolist()
    return None if got == want else f"timestamps {got}, expected {want}"


@case(TRACE)
def convert_with_all_ratings_equal_and_a_user_with_one_rating(tmp: Path) -> str | None:
    rows = [[r[0], r[1], "3", r[3]] for r in _BASE] + [["99", "1", "4", "5"]]
    res = _convert(tmp, _HEAD + "".join(",".join(r) + "\n" for r in rows).encode())
    if res.status == 2 and not res.traceback:
        return refused(res, "r.csv")
    if res.status != 0:
        return f"exit {res.status}: {res.err.strip()[-200:]}"
    queries = _summary_queries(tmp)
    return None if queries and max(queries) <= 15 else f"queries per split {queries}"


@case(DESTROYED)
def convert_out_is_the_ratings_file_itself(tmp: Path) -> str | None:
    data = _cell(1, "3")
    write(tmp, {"r.csv": data})
    res = cli(tmp, "convert", "--ratings", "r.csv", "--layout", "csv", "--user", "user",
              "--item", "item", "--rating", "rating", "--timestamp", "timestamp",
              "--features", "user", "--out", "r.csv")
    return untouched({"r.csv": data}, tmp) or refused(res, "r.csv")
