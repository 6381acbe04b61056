"""Hostile inputs, round 7: new instances of issue 19's classes on the FILE READERS.

TREC qrels and runs, SVMlight/LETOR text, ratings tables (CSV/TSV/Parquet) and LETOR folders
given numbers Python reads but no file format means (``1_000``, ``0x10``, Arabic-Indic digits,
``+inf``, ``1e-400``), ids that only look alike (full-width digits, Cyrillic letters, no-break
spaces), archives (a truncated gzip, a zip of two members, a zip bomb's ratio), byte-order marks
of UTF-16/UTF-32, NUL bytes, CR-only and mixed line ends, and the two leftovers of round 6: a
LETOR root whose ``S3.txt`` is a folder, a stand-in generated into a read-only data folder.

Each case takes a fresh folder and returns ``None`` when ltrbench behaved (a
:class:`~bench.errors.LtrbenchError` naming the file, the line / row / column and what was
expected, or the oracle's value: pytrec_eval for TREC files, hand arithmetic elsewhere) and
otherwise one line saying what went wrong. ``python tests/test_hostile_round7_inputs.py``
prints the counts by class.
"""

from __future__ import annotations

import gzip
import io
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import DATA, QRELS, RUN, SCORES, cli, pytrec, refused, value_or_refused
from hostile_kit import own_error as _error

Fn = Callable[[Path], "str | None"]
CASES: list[tuple[str, Fn]] = []
WRONG, TRACE, UNCLEAR, ACCEPT, DESTROYED = ("silently wrong numbers", "tracebacks",
                                            "unclear errors", "silent accepts",
                                            "inputs destroyed")
Q = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"d": 1, "e": 0}}
R = {"1": {"a": 0.4, "b": 0.9, "c": 0.1}, "2": {"d": 0.2, "e": 0.8}}


def case(klass: str) -> Callable[[Fn], Fn]:
    def add(fn: Fn) -> Fn:
        CASES.append((klass, fn))
        return fn
    return add




def _judged(exc: BaseException, *words: str) -> str | None:
    """None when ``exc`` is ltrbench's own error whose text holds every word."""
    from bench.errors import LtrbenchError

    if not isinstance(exc, LtrbenchError):
        return f"traceback: {type(exc).__name__}: {str(exc)[:160]}"
    missing = [w for w in words if w not in str(exc)]
    return f"message {str(exc)[:200]!r} lacks {missing}" if missing else None


def _trec_eval(tmp: Path, qrels: bytes, run: bytes, metric: str, want: float,
               *words: str) -> str | None:
    (tmp / "q.txt").write_bytes(qrels)
    (tmp / "r.txt").write_bytes(run)
    res = cli(tmp, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics", metric,
              "--format", "csv")
    return value_or_refused(res, metric, want, *words)


def _qrels(tmp: Path, data: bytes, *words: str) -> str | None:
    from bench.data.trec import read_qrels

    (tmp / "q.txt").write_bytes(data)
    return _error(lambda: read_qrels(tmp / "q.txt"), "q.txt", *words)


def _run(tmp: Path, data: bytes, *words: str) -> str | None:
    from bench.data.trec import read_run

    (tmp / "r.txt").write_bytes(data)
    return _error(lambda: read_run(tmp / "r.txt"), "r.txt", *words)


def _svm(tmp: Path, data: bytes, *words: str) -> str | None:
    from bench.data.svmlight import read_svmlight

    (tmp / "d.txt").write_bytes(data)
    return _error(lambda: read_svmlight(tmp / "d.txt"), "d.txt", *words)


# ------------------------------------------------------------- TREC: numbers Python reads
@case(WRONG)
def qrels_relevance_with_an_underscore_is_refused(tmp: Path) -> str | None:
    return _qrels(tmp, QRELS.replace(b"1 0 c 2", b"1 0 c 1_0"), "q.txt:3", "1_0")


@case(WRONG)
def qrels_relevance_in_hex_is_refused(tmp: Path) -> str | None:
    return _qrels(tmp, QRELS.replace(b"1 0 c 2", b"1 0 c 0x2"), "q.txt:3", "0x2")


@case(WRONG)
def run_score_with_an_underscore_is_refused(tmp: Path) -> str | None:
    return _run(tmp, RUN.replace(b"0.9 t", b"1_000.5 t"), "r.txt:2", "1_000.5")


@case(WRONG)
def run_score_in_arabic_indic_digits_is_refused(tmp: Path) -> str | None:
    return _run(tmp, RUN.replace(b"0.9 t", "١٢".encode() + b" t"), "r.txt:2", "score")


@case(WRONG)
def run_score_plus_inf_is_refused(tmp: Path) -> str | None:
    return _run(tmp, RUN.replace(b"0.9 t", b"+inf t"), "r.txt:2", "inf")


@case(WRONG)
def run_score_spelled_infinity_is_refused(tmp: Path) -> str | None:
    return _run(tmp, RUN.replace(b"0.9 t", b"Infinity t"), "r.txt:2", "Infinity")


@case(WRONG)
def run_score_hex_float_is_refused(tmp: Path) -> str | None:
    return _run(tmp, RUN.replace(b"0.9 t", b"0x1p-1 t"), "r.txt:2", "0x1p-1")


@case(WRONG)
def run_score_that_underflows_to_zero_is_refused_or_ranked_as_pytrec_eval_does(
        tmp: Path) -> str | None:
    run = RUN.replace(b"0.1 t", b"1e-400 t")  # rounds to 0.0: below every other score
    r = {"1": {"a": 0.4, "b": 0.9, "c": 0.0}, "2": R["2"]}
    return _trec_eval(tmp, QRELS, run, "ndcg_cut_10", pytrec(Q, r, "ndcg_cut_10"), "r.txt:3")


@case(WRONG)
def run_score_minus_zero_beside_zero_ranks_as_pytrec_eval_or_is_refused(tmp: Path) -> str | None:
    run = RUN.replace(b"0.4 t", b"-0 t").replace(b"0.1 t", b"0 t")
    r = {"1": {"a": -0.0, "b": 0.9, "c": 0.0}, "2": R["2"]}
    return _trec_eval(tmp, QRELS, run, "ndcg_cut_10", pytrec(Q, r, "ndcg_cut_10"), "r.txt")


@case(WRONG)
def qrels_relevance_with_a_plus_sign_is_the_number_or_refused(tmp: Path) -> str | None:
    qrels = QRELS.replace(b"1 0 c 2", b"1 0 c +2")
    return _trec_eval(tmp, qrels, RUN, "ndcg_cut_10", pytrec(Q, R, "ndcg_cut_10"), "q.txt:3")


# ------------------------------------------------------------- TREC: ids that look alike
@case(WRONG)
def run_query_id_in_full_width_digits_is_not_query_1(tmp: Path) -> str | None:
    run = RUN.replace(b"1 Q0 a", "１ Q0 a".encode()).replace(b"1 Q0 b", "１ Q0 b".encode()) \
        .replace(b"1 Q0 c", "１ Q0 c".encode())
    r = {"１": R["1"], "2": R["2"]}
    return _trec_eval(tmp, QRELS, run, "ndcg_cut_10", pytrec(Q, r, "ndcg_cut_10"), "r.txt")


@case(WRONG)
def run_docno_with_a_cyrillic_a_is_not_docno_a(tmp: Path) -> str | None:
    run = RUN.replace(b"1 Q0 a", "1 Q0 а".encode())  # U+0430
    r = {"1": {"а": 0.4, "b": 0.9, "c": 0.1}, "2": R["2"]}
    return _trec_eval(tmp, QRELS, run, "ndcg_cut_10", pytrec(Q, r, "ndcg_cut_10"), "r.txt")


@case(WRONG)
def run_docno_joined_by_a_no_break_space_is_refused_or_one_id(tmp: Path) -> str | None:
    run = RUN.replace(b"1 Q0 a 1", "1 Q0 a\u00a0x 1".encode())
    r = {"1": {"a\u00a0x": 0.4, "b": 0.9, "c": 0.1}, "2": R["2"]}
    return _trec_eval(tmp, QRELS, run, "ndcg_cut_10", pytrec(Q, r, "ndcg_cut_10"), "r.txt:1")


@case(WRONG)
def run_docno_with_a_zero_width_space_is_its_own_id_as_in_pytrec_eval(tmp: Path) -> str | None:
    run = RUN.replace(b"1 Q0 a", "1 Q0 a\u200b".encode())
    r = {"1": {"a\u200b": 0.4, "b": 0.9, "c": 0.1}, "2": R["2"]}
    return _trec_eval(tmp, QRELS, run, "ndcg_cut_10", pytrec(Q, r, "ndcg_cut_10"), "r.txt:1")


# ------------------------------------------------------------- TREC: encodings, line ends
@case(UNCLEAR)
def run_in_utf16_with_its_byte_order_mark_names_utf16(tmp: Path) -> str | None:
    return _run(tmp, RUN.decode().encode("utf-16"), "UTF-16")


@case(UNCLEAR)
def qrels_in_utf32_with_its_byte_order_mark_names_utf32(tmp: Path) -> str | None:
    return _qrels(tmp, QRELS.decode().encode("utf-32"), "UTF-32")


@case(WRONG)
def qrels_with_cr_only_line_ends_read_as_lf(tmp: Path) -> str | None:
    return _trec_eval(tmp, QRELS.replace(b"\n", b"\r"), RUN, "ndcg_cut_10",
                      pytrec(Q, R, "ndcg_cut_10"), "q.txt")


@case(WRONG)
def run_with_cr_lf_and_crlf_mixed_read_as_lf(tmp: Path) -> str | None:
    lines = RUN.split(b"\n")
    run = lines[0] + b"\r" + lines[1] + b"\r\n" + lines[2] + b"\n" + b"\r".join(lines[3:])
    return _trec_eval(tmp, QRELS, run, "ndcg_cut_10", pytrec(Q, R, "ndcg_cut_10"), "r.txt")


@case(WRONG)
def qrels_with_a_nul_byte_in_a_docno_is_refused(tmp: Path) -> str | None:
    return _qrels(tmp, QRELS.replace(b"1 0 b 0", b"1 0 b\x00 0"), "q.txt:2", "NUL")


@case(TRACE)
def run_truncated_gzip_names_gzip(tmp: Path) -> str | None:
    return _run(tmp, gzip.compress(RUN)[:12], "gzip")


@case(TRACE)
def qrels_zip_of_two_members_names_zip(tmp: Path) -> str | None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("q1.txt", QRELS)
        z.writestr("q2.txt", QRELS)
    return _qrels(tmp, buf.getvalue(), "zip")


@case(TRACE)
def run_zip_bomb_ratio_is_refused_without_inflating_it(tmp: Path) -> str | None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("r.txt", b"\0" * (64 << 20))
    return _run(tmp, buf.getvalue(), "zip")


@case(WRONG)
def run_line_of_a_million_fields_ignores_those_after_the_sixth_as_trec_eval(
        tmp: Path) -> str | None:
    run = RUN.replace(b"2 Q0 e 2 0.8 t\n", b"2 Q0 e 2 0.8 t" + b" x" * 1_000_000 + b"\n")
    return _trec_eval(tmp, QRELS, run, "ndcg_cut_10", pytrec(Q, R, "ndcg_cut_10"), "r.txt:5")


# ------------------------------------------------------------- SVMlight: numbers
@case(WRONG)
def svmlight_label_with_an_underscore_is_refused(tmp: Path) -> str | None:
    return _svm(tmp, DATA.replace(b"2 qid:1", b"1_0 qid:1"), "d.txt:1", "1_0")


@case(WRONG)
def svmlight_feature_value_in_hex_is_refused(tmp: Path) -> str | None:
    return _svm(tmp, DATA.replace(b"2:0.3", b"2:0x10"), "d.txt:3", "0x10")


@case(WRONG)
def svmlight_feature_value_with_an_underscore_is_refused(tmp: Path) -> str | None:
    return _svm(tmp, DATA.replace(b"2:0.3", b"2:1_000"), "d.txt:3", "1_000")


@case(WRONG)
def svmlight_feature_value_plus_inf_is_refused(tmp: Path) -> str | None:
    return _svm(tmp, DATA.replace(b"2:0.3", b"2:+inf"), "d.txt:3", "inf")


@case(WRONG)
def svmlight_qid_in_arabic_indic_digits_is_refused(tmp: Path) -> str | None:
    return _svm(tmp, DATA.replace(b"0 qid:2 1:0.9", "0 qid:٢ 1:0.9".encode()), "d.txt:5")


@case(WRONG)
def svmlight_feature_index_with_an_underscore_is_refused(tmp: Path) -> str | None:
    return _svm(tmp, DATA.replace(b"1:0.2", b"1_0:0.2"), "d.txt:4", "1_0")


@case(WRONG)
def svmlight_feature_value_that_underflows_is_zero_as_sklearn_reads_it(tmp: Path) -> str | None:
    from bench.data.svmlight import read_svmlight

    (tmp / "d.txt").write_bytes(DATA.replace(b"2:0.3", b"2:1e-400"))
    try:
        d = read_svmlight(tmp / "d.txt")
    except Exception as exc:
        return _judged(exc, "d.txt:3")
    return None if d.X[2, 1] == 0.0 else f"feature 2 of row 3 read as {d.X[2, 1]}, expected 0.0"


@case(WRONG)
def svmlight_with_cr_only_line_ends_is_read_as_lf_or_refused_naming_it(tmp: Path) -> str | None:
    from bench.data.svmlight import read_svmlight

    (tmp / "d.txt").write_bytes(DATA.replace(b"\n", b"\r"))
    try:
        d = read_svmlight(tmp / "d.txt")
    except Exception as exc:
        return _judged(exc, "d.txt", "CR")
    return None if d.X.shape[0] == 5 and list(d.y) == [2, 0, 1, 1, 0] else \
        f"read {d.X.shape[0]} rows, labels {list(d.y)}"


@case(UNCLEAR)
def svmlight_in_utf16_with_its_byte_order_mark_names_utf16(tmp: Path) -> str | None:
    return _svm(tmp, DATA.decode().encode("utf-16"), "UTF-16")


@case(TRACE)
def svmlight_truncated_gzip_names_gzip(tmp: Path) -> str | None:
    return _svm(tmp, gzip.compress(DATA)[:15], "gzip")


@case(WRONG)
def cli_evaluate_scores_file_with_an_underscore_number_exits_2(tmp: Path) -> str | None:
    (tmp / "d.txt").write_bytes(DATA)
    (tmp / "s.txt").write_bytes(SCORES.replace(b"0.5", b"0_5"))
    return refused(cli(tmp, "evaluate", "--data", "d.txt", "--scores", "s.txt"), "s.txt:3",
                   "0_5")


@case(WRONG)
def cli_evaluate_scores_file_in_arabic_digits_exits_2(tmp: Path) -> str | None:
    (tmp / "d.txt").write_bytes(DATA)
    (tmp / "s.txt").write_bytes(SCORES.replace(b"0.2", "٢".encode()))
    return refused(cli(tmp, "evaluate", "--data", "d.txt", "--scores", "s.txt"), "s.txt:4")


# ------------------------------------------------------------- ratings tables
def _ratings_csv(tmp: Path, data: bytes, *words: str, name: str = "r.csv",
                 sep: str | None = None) -> str | None:
    from bench.data.tabular import load_ratings_table

    (tmp / name).write_bytes(data)
    return _error(lambda: load_ratings_table(tmp / name, user="user", item="item",
                                             rating="rating", timestamp="timestamp", sep=sep),
                  name, *words)


_R = b"user,item,rating,timestamp\n1,10,4,100\n1,11,2,101\n2,10,5,102\n"


@case(WRONG)
def ratings_rating_with_an_underscore_is_refused(tmp: Path) -> str | None:
    return _ratings_csv(tmp, _R.replace(b"1,11,2,", b"1,11,1_0,"), "r.csv:3", "1_0")


@case(WRONG)
def ratings_rating_in_hex_is_refused(tmp: Path) -> str | None:
    return _ratings_csv(tmp, _R.replace(b"1,11,2,", b"1,11,0x2,"), "r.csv:3", "0x2")


@case(WRONG)
def ratings_rating_plus_inf_is_refused(tmp: Path) -> str | None:
    return _ratings_csv(tmp, _R.replace(b"1,11,2,", b"1,11,+inf,"), "r.csv:3")


@case(WRONG)
def ratings_rating_in_arabic_indic_digits_is_refused(tmp: Path) -> str | None:
    return _ratings_csv(tmp, _R.replace(b"1,11,2,", "1,11,٢,".encode()), "r.csv:3")


@case(WRONG)
def ratings_users_1_000_and_1000_are_not_merged(tmp: Path) -> str | None:
    from bench.data.tabular import load_ratings_table

    (tmp / "r.csv").write_bytes(_R.replace(b"2,10,5", b"1_000,10,5") + b"1000,11,3,103\n")
    try:
        r = load_ratings_table(tmp / "r.csv", user="user", item="item", rating="rating",
                               timestamp="timestamp")
    except Exception as exc:
        return _judged(exc, "r.csv", "line 4")
    n = r.frame["user"].nunique()
    return None if n == 3 else f"{n} users, expected 3 ('1', '1_000', '1000')"


def _n_users(tmp: Path, data: bytes, want: int) -> str | None:
    from bench.data.tabular import load_ratings_table

    (tmp / "r.csv").write_bytes(data)
    try:
        r = load_ratings_table(tmp / "r.csv", user="user", item="item", rating="rating")
    except Exception as exc:
        return _judged(exc, "r.csv")
    n = r.frame["user"].nunique()
    return None if n == want else f"{n} users, expected {want}"


@case(WRONG)
def ratings_user_ending_in_a_no_break_space_is_its_own_user_as_in_trec(tmp: Path) -> str | None:
    return _n_users(tmp, "user,item,rating\nu1\u00a0,10,4\nu1,11,2\n".encode(), 2)


@case(WRONG)
def ratings_numeric_user_ending_in_a_no_break_space_is_not_user_1(tmp: Path) -> str | None:
    return _n_users(tmp, "user,item,rating\n1\u00a0,10,4\n1,11,2\n".encode(), 2)


@case(WRONG)
def ratings_user_ending_in_an_ideographic_space_is_its_own_user(tmp: Path) -> str | None:
    return _n_users(tmp, "user,item,rating\nu1\u3000,10,4\nu1,11,2\n".encode(), 2)


@case(WRONG)
def ratings_users_1_and_1_point_0_are_one_user_by_value_as_documented(tmp: Path) -> str | None:
    return _n_users(tmp, b"user,item,rating\n1.0,10,4\n1,11,2\n", 1)


@case(WRONG)
def ratings_user_in_full_width_digits_is_not_user_1(tmp: Path) -> str | None:
    return _n_users(tmp, "user,item,rating\n１,10,4\n1,11,2\n".encode(), 2)


@case(WRONG)
def ratings_timestamp_in_hex_is_refused(tmp: Path) -> str | None:
    return _ratings_csv(tmp, _R.replace(b",101\n", b",0x65\n"), "r.csv:3", "timestamp")


@case(WRONG)
def ratings_with_cr_only_line_ends_read_as_lf_or_refused(tmp: Path) -> str | None:
    from bench.data.tabular import load_ratings_table

    (tmp / "r.csv").write_bytes(_R.replace(b"\n", b"\r"))
    try:
        r = load_ratings_table(tmp / "r.csv", user="user", item="item", rating="rating",
                               timestamp="timestamp")
    except Exception as exc:
        return _judged(exc, "r.csv")
    return None if len(r.frame) == 3 else f"{len(r.frame)} rows, expected 3"


@case(WRONG)
def ratings_tsv_with_a_tab_inside_a_quoted_id_is_one_id_or_refused(tmp: Path) -> str | None:
    data = b"user\titem\trating\ttimestamp\n\"a\tb\"\t10\t4\t100\na\t11\t2\t101\n"
    from bench.data.tabular import load_ratings_table

    (tmp / "r.tsv").write_bytes(data)
    try:
        r = load_ratings_table(tmp / "r.tsv", user="user", item="item", rating="rating",
                               timestamp="timestamp", sep="\t")
    except Exception as exc:
        return _judged(exc, "r.tsv", "line 2")
    n = r.frame["user"].nunique()
    return None if n == 2 else f"{n} users, expected 2"


@case(UNCLEAR)
def ratings_csv_in_utf16_with_its_byte_order_mark_names_utf16(tmp: Path) -> str | None:
    return _ratings_csv(tmp, _R.decode().encode("utf-16"), "UTF-16")


@case(WRONG)
def ratings_header_with_a_byte_order_mark_finds_the_user_column(tmp: Path) -> str | None:
    from bench.data.tabular import load_ratings_table

    (tmp / "r.csv").write_bytes(b"\xef\xbb\xbf" + _R)
    try:
        r = load_ratings_table(tmp / "r.csv", user="user", item="item", rating="rating",
                               timestamp="timestamp")
    except Exception as exc:
        return _judged(exc, "r.csv")
    return None if len(r.frame) == 3 else f"{len(r.frame)} rows"


@case(WRONG)
def ratings_csv_with_the_user_column_twice_is_refused(tmp: Path) -> str | None:
    data = b"user,item,rating,user\n1,10,4,7\n1,11,2,8\n"
    from bench.data.tabular import load_ratings_table

    (tmp / "r.csv").write_bytes(data)
    return _error(lambda: load_ratings_table(tmp / "r.csv", user="user", item="item",
                                             rating="rating"), "r.csv", "user")


def _ratings_parquet(tmp: Path, table: Any, *words: str) -> str | None:
    import pyarrow.parquet as pq

    from bench.data.tabular import load_ratings_table

    pq.write_table(table, tmp / "r.parquet")
    return _error(lambda: load_ratings_table(tmp / "r.parquet", user="user", item="item",
                                             rating="rating"), "r.parquet", *words)


@case(WRONG)
def ratings_parquet_text_rating_in_hex_is_refused_as_in_a_csv(tmp: Path) -> str | None:
    import pyarrow as pa

    t = pa.table({"user": [1, 1, 2], "item": [10, 11, 10], "rating": ["4", "0x2", "5"]})
    return _ratings_parquet(tmp, t, "rating", "0x2")


@case(WRONG)
def ratings_parquet_text_rating_with_an_underscore_is_refused(tmp: Path) -> str | None:
    import pyarrow as pa

    t = pa.table({"user": [1, 1, 2], "item": [10, 11, 10], "rating": ["4", "1_0", "5"]})
    return _ratings_parquet(tmp, t, "rating", "1_0")


@case(WRONG)
def ratings_parquet_with_a_null_rating_is_refused(tmp: Path) -> str | None:
    import pyarrow as pa

    t = pa.table({"user": [1, 1, 2], "item": [10, 11, 10], "rating": [4.0, None, 5.0]})
    return _ratings_parquet(tmp, t, "rating")


@case(WRONG)
def ratings_parquet_with_a_list_user_column_is_refused(tmp: Path) -> str | None:
    import pyarrow as pa

    t = pa.table({"user": [[1], [1], [2]], "item": [10, 11, 10], "rating": [4.0, 2.0, 5.0]})
    return _ratings_parquet(tmp, t, "user")


@case(WRONG)
def ratings_parquet_with_a_dictionary_user_column_reads_as_its_values(tmp: Path) -> str | None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from bench.data.tabular import load_ratings_table

    users = pa.array(["u1", "u1", "u2"]).dictionary_encode()
    t = pa.table({"user": users, "item": [10, 11, 10], "rating": [4.0, 2.0, 5.0]})
    pq.write_table(t, tmp / "r.parquet")
    try:
        r = load_ratings_table(tmp / "r.parquet", user="user", item="item", rating="rating")
    except Exception as exc:
        return _judged(exc, "r.parquet", "user")
    n = r.frame["user"].nunique()
    return None if n == 2 and len(r.frame) == 3 else f"{n} users, {len(r.frame)} rows"


@case(TRACE)
def ratings_parquet_truncated_names_the_file(tmp: Path) -> str | None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from bench.data.tabular import load_ratings_table

    t = pa.table({"user": [1, 1, 2], "item": [10, 11, 10], "rating": [4.0, 2.0, 5.0]})
    pq.write_table(t, tmp / "r.parquet")
    data = (tmp / "r.parquet").read_bytes()
    (tmp / "r.parquet").write_bytes(data[: len(data) // 2] + data[-8:])
    return _error(lambda: load_ratings_table(tmp / "r.parquet", user="user", item="item",
                                             rating="rating"), "r.parquet")


@case(TRACE)
def ratings_csv_gzip_truncated_names_gzip(tmp: Path) -> str | None:
    return _ratings_csv(tmp, gzip.compress(_R)[:20], "gzip", name="r.csv")


# ------------------------------------------------------------- LETOR folders, stand-ins
@case(UNCLEAR)
def letor_root_whose_s3_is_a_folder_says_folder_not_missing(tmp: Path) -> str | None:
    from bench.datasets.resolve import load_dataset

    for i in (1, 2, 4, 5):
        (tmp / f"S{i}.txt").write_bytes(DATA)
    (tmp / "S3.txt").mkdir()
    return _error(lambda: load_dataset(f"{tmp}:Fold2", cache=False), "S3.txt", "folder")


@case(UNCLEAR)
def letor_root_whose_s3_is_a_dangling_link_says_so(tmp: Path) -> str | None:
    from bench.datasets.resolve import load_path

    for i in (1, 2, 4, 5):
        (tmp / f"S{i}.txt").write_bytes(DATA)
    (tmp / "S3.txt").symlink_to(tmp / "nowhere.txt")
    return _error(lambda: load_path(tmp), "S3.txt", "link", "nowhere.txt")


@case(ACCEPT)
def a_folder_here_named_like_a_catalogue_dataset_is_said_not_skipped_in_silence(
        tmp: Path) -> str | None:
    import warnings

    from hostile_kit import chdir

    from bench.datasets.resolve import resolve_spec

    (tmp / "synthetic").mkdir()
    with chdir(tmp), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        spec = resolve_spec("synthetic")
    said = [str(w.message) for w in caught if "./synthetic" in str(w.message)]
    if spec.card is None:
        return None  # the folder was read: also a choice the user can see
    return None if said else "the catalogue's 'synthetic' was used without a word about ./synthetic"


def _unwritable(tmp: Path) -> Path | None:
    """A folder this process cannot write into: a mode-555 folder, or, as root (who ignores
    the mode), a sysfs folder (no file can be made there); None when there is none."""
    data = tmp / "data"
    data.mkdir()
    data.chmod(0o555)
    for d in (data, Path("/sys/kernel")):
        try:
            (d / ".probe").mkdir()
        except OSError:
            return d
        (d / ".probe").rmdir()
    return None


@case(UNCLEAR)
def standin_generated_into_a_read_only_data_dir_names_it_and_the_remedy(tmp: Path) -> str | None:
    data = _unwritable(tmp)
    try:
        if data is None:
            return None
        res = cli(tmp, "run", "--dataset", "synthetic-mslr30k:0.01", "--models", "random",
                  "--data-dir", str(data), "--out", str(tmp / "out"), "--quick")
        return refused(res, str(data), "LTRBENCH_DATA_DIR", "--data-dir")
    finally:
        (tmp / "data").chmod(0o755)


@case(UNCLEAR)
def standin_loaded_from_python_into_a_read_only_data_dir_names_it(tmp: Path) -> str | None:
    from bench.datasets.resolve import load_dataset

    data = _unwritable(tmp)
    try:
        if data is None:
            return None
        return _error(lambda: load_dataset("synthetic-mslr30k:0.01:Fold2", data_dir=data),
                      str(data), "LTRBENCH_DATA_DIR")
    finally:
        (tmp / "data").chmod(0o755)


@case(UNCLEAR)
def fetch_into_a_read_only_data_dir_names_it_before_any_download(tmp: Path) -> str | None:
    data = _unwritable(tmp)
    try:
        if data is None:
            return None
        src = tmp / "nothing.zip"  # never read: the data directory is refused first
        res = cli(tmp, "datasets", "fetch", "ml-100k", "--data-dir", str(data), "--url",
                  str(src))
        return refused(res, str(data), "LTRBENCH_DATA_DIR")
    finally:
        (tmp / "data").chmod(0o755)


# ------------------------------------------------------------------ the test
@pytest.mark.parametrize(("klass", "fn"), CASES, ids=[fn.__name__ for _, fn in CASES])
def test_hostile_round7_input(klass: str, fn: Fn, tmp_path: Path) -> None:
    problem = fn(tmp_path)
    assert problem is None, f"[{klass}] {problem}"


if __name__ == "__main__":  # counts by class
    from hostile_kit import print_counts

    print_counts(CASES, in_folder=True)
