"""Hostile inputs, round 8: new instances of issue 19's "bad files" class on every text reader.

TREC qrels and runs, SVMlight/LETOR text, ratings tables (CSV/TSV) and MovieLens ``.dat``
files given what rounds 3-7 did not try: UTF-32 without a byte-order mark, a byte-order mark in
the middle of a line, a vertical tab / form feed / NEL / U+2028 inside a field of a ratings
table (the TREC and SVMlight readers refuse them; pandas stripped a VT from ``2\\x0b`` and read
the user ``2``), a header whose names have blanks around them, a repeated (user, item) pair in
``ratings.dat`` (named by folder and row before, now by file and line), a million blank lines,
a last line without a line end, a symlink loop, a FIFO, concatenated and truncated bzip2 / xz
members, numbers written ``1.`` / ``.5`` / full-width, a feature index of 2^63.

Each case takes a fresh folder and returns ``None`` when ltrbench behaved (a
:class:`~bench.errors.LtrbenchError` naming the file, the line and what was expected, or the
oracle's value: pytrec_eval for TREC files, hand arithmetic elsewhere) and otherwise one line
saying what went wrong. ``python tests/test_hostile_round8_inputs.py`` prints the counts by class.
"""

from __future__ import annotations

import bz2
import lzma
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fuzz_helpers import fuzz_settings
from hostile_kit import DATA, QRELS, RUN, pytrec, value_or_refused
from hostile_kit import cli as _cli
from hostile_kit import own_error as _error

Fn = Callable[[Path], "str | None"]
CASES: list[tuple[str, Fn]] = []
WRONG, TRACE, UNCLEAR, ACCEPT = ("silently wrong numbers", "tracebacks", "unclear errors",
                                 "silent accepts")
Q = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"d": 1, "e": 0}}
R = {"1": {"a": 0.4, "b": 0.9, "c": 0.1}, "2": {"d": 0.2, "e": 0.8}}
RATINGS = b"user,item,rating,timestamp\n1,10,4,100\n1,11,2,101\n2,10,5,102\n"
DAT = b"1::10::4::100\n1::11::2::101\n2::10::5::102\n"


def case(klass: str) -> Callable[[Fn], Fn]:
    def add(fn: Fn) -> Fn:
        CASES.append((klass, fn))
        return fn
    return add


def _trec_eval(tmp: Path, qrels: bytes, run: bytes, want: float, *words: str) -> str | None:
    (tmp / "q.txt").write_bytes(qrels)
    (tmp / "r.txt").write_bytes(run)
    res = _cli(tmp, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics", "ndcg_cut_10",
               "--format", "csv")
    return value_or_refused(res, "ndcg_cut_10", want, *words)


def _run(tmp: Path, data: bytes, *words: str, name: str = "r.txt") -> str | None:
    from bench.data.trec import read_run

    (tmp / name).write_bytes(data)
    return _error(lambda: read_run(tmp / name), name, *words)


def _qrels(tmp: Path, data: bytes, *words: str) -> str | None:
    from bench.data.trec import read_qrels

    (tmp / "q.txt").write_bytes(data)
    return _error(lambda: read_qrels(tmp / "q.txt"), "q.txt", *words)


def _svm(tmp: Path, data: bytes, *words: str) -> str | None:
    from bench.data.svmlight import read_svmlight

    (tmp / "d.txt").write_bytes(data)
    return _error(lambda: read_svmlight(tmp / "d.txt"), "d.txt", *words)


def _table(tmp: Path, data: bytes, name: str = "r.csv") -> Any:
    from bench.data.tabular import load_ratings_table

    (tmp / name).write_bytes(data)
    return lambda: load_ratings_table(tmp / name, user="user", item="item", rating="rating",
                                      timestamp="timestamp")


def _movielens(tmp: Path, data: bytes) -> Any:
    from bench.data.movielens import load_movielens

    (tmp / "ml").mkdir(exist_ok=True)
    (tmp / "ml" / "ratings.dat").write_bytes(data)
    return lambda: load_movielens(tmp / "ml", layout="ml-1m")


# ------------------------------------------------------------------ TREC text
@case(UNCLEAR)
def run_in_utf32_without_a_mark_names_utf32_not_utf16(tmp: Path) -> str | None:
    return _run(tmp, RUN.decode().encode("utf-32-le"), "r.txt:1", "UTF-32LE")


@case(UNCLEAR)
def qrels_in_big_endian_utf32_without_a_mark_names_utf32be(tmp: Path) -> str | None:
    return _qrels(tmp, QRELS.decode().encode("utf-32-be"), "q.txt:1", "UTF-32BE")


@case(WRONG)
def run_with_a_byte_order_mark_inside_a_line_is_refused_naming_it(tmp: Path) -> str | None:
    return _run(tmp, RUN.replace(b"Q0 b", b"Q0 \xef\xbb\xbfb"), "r.txt:2", "byte-order mark")


@case(WRONG)
def run_with_a_form_feed_between_fields_is_refused(tmp: Path) -> str | None:
    return _run(tmp, RUN.replace(b"1 Q0 c", b"1\x0cQ0 c"), "r.txt:3", "form feed")


@case(WRONG)
def run_with_next_line_characters_as_line_ends_is_refused(tmp: Path) -> str | None:
    return _run(tmp, RUN.replace(b"\n", "\u0085".encode()), "r.txt:1", "U+0085")


@case(WRONG)
def run_without_a_final_line_end_gives_pytrec_eval(tmp: Path) -> str | None:
    return _trec_eval(tmp, QRELS, RUN.rstrip(b"\n"), pytrec(Q, R, "ndcg_cut_10"))


@case(WRONG)
def run_followed_by_a_million_blank_lines_gives_pytrec_eval(tmp: Path) -> str | None:
    return _trec_eval(tmp, QRELS, RUN + b"\n" * 1_000_000, pytrec(Q, R, "ndcg_cut_10"))


@case(WRONG)
def run_scores_written_1_dot_and_dot_5_are_those_numbers(tmp: Path) -> str | None:
    run = RUN.replace(b"0.9 t", b"1. t").replace(b"0.4 t", b".5 t")
    r = {"1": {"a": 0.5, "b": 1.0, "c": 0.1}, "2": R["2"]}
    return _trec_eval(tmp, QRELS, run, pytrec(Q, r, "ndcg_cut_10"))


@case(WRONG)
def run_score_in_full_width_digits_is_refused(tmp: Path) -> str | None:
    return _run(tmp, RUN.replace(b"0.9 t", "０.９ t".encode()), "r.txt:2", "score")


@case(WRONG)
def qrels_whose_query_blocks_are_not_contiguous_give_pytrec_eval(tmp: Path) -> str | None:
    lines = QRELS.splitlines(keepends=True)
    qrels = lines[0] + lines[3] + lines[1] + lines[4] + lines[2]
    return _trec_eval(tmp, qrels, RUN, pytrec(Q, R, "ndcg_cut_10"))


@case(TRACE)
def run_that_is_a_symlink_loop_names_it(tmp: Path) -> str | None:
    from bench.data.trec import read_run

    os.symlink(tmp / "r.txt", tmp / "r.txt")
    return _error(lambda: read_run(tmp / "r.txt"), "r.txt", "symbolic links")


@case(TRACE)
def run_that_is_a_fifo_is_refused_without_waiting_for_a_writer(tmp: Path) -> str | None:
    from bench.data.trec import read_run

    os.mkfifo(tmp / "r.txt")
    return _error(lambda: read_run(tmp / "r.txt"), "r.txt", "not a regular file")


@case(UNCLEAR)
def run_of_two_concatenated_bzip2_members_names_bzip2(tmp: Path) -> str | None:
    return _run(tmp, bz2.compress(RUN[:20]) + bz2.compress(RUN[20:]), "bzip2", name="r.txt.bz2")


@case(UNCLEAR)
def run_truncated_xz_names_xz(tmp: Path) -> str | None:
    return _run(tmp, lzma.compress(RUN)[:-6], "xz", name="r.txt.xz")


@case(TRACE)
def run_with_an_8_mb_document_id_is_read_without_a_traceback(tmp: Path) -> str | None:
    from bench.data.trec import read_run

    (tmp / "r.txt").write_bytes(b"1 Q0 " + b"d" * 8_000_000 + b" 1 0.5 t\n")
    run, exc = None, None
    try:
        run = read_run(tmp / "r.txt")
    except Exception as e:  # refused is fine, a traceback is not
        exc = e
    if exc is not None:
        return _error(lambda: (_ for _ in ()).throw(exc), "r.txt")
    return None if run is not None and len(run.docno[0]) == 8_000_000 else "document id cut"


# ------------------------------------------------------------------ SVMlight / LETOR
@case(UNCLEAR)
def svmlight_in_utf32_without_a_mark_names_utf32(tmp: Path) -> str | None:
    return _svm(tmp, DATA.decode().encode("utf-32-le"), "d.txt:1", "UTF-32")


@case(WRONG)
def svmlight_feature_index_2_to_the_63_is_refused(tmp: Path) -> str | None:
    return _svm(tmp, DATA.replace(b"2:1\n", b"9223372036854775808:1\n", 1), "d.txt:1")


@case(WRONG)
def svmlight_feature_index_twice_on_a_line_is_refused(tmp: Path) -> str | None:
    return _svm(tmp, DATA.replace(b"1:0.5 2:1", b"1:0.5 1:0.7"), "d.txt:1", "1:0.7")


@case(WRONG)
def svmlight_query_block_repeated_after_another_is_refused(tmp: Path) -> str | None:
    return _svm(tmp, DATA + b"2 qid:1 1:0.5 2:1\n", "d.txt:6", "contiguous")


@case(WRONG)
def svmlight_comment_glued_to_a_value_ends_the_line_as_in_sklearn(tmp: Path) -> str | None:
    from bench.data.svmlight import read_svmlight

    (tmp / "d.txt").write_bytes(DATA.replace(b"1:0.5 2:1", b"1:0.5#x 2:1"))
    d = read_svmlight(tmp / "d.txt")  # sklearn cuts a line at its first '#'
    got = [float(v) for v in d.X[0]]
    return None if got == [0.5, 0.0] else f"row 1 read as {got}, expected [0.5, 0.0]"


@case(WRONG)
def svmlight_with_a_line_separator_as_line_end_is_refused(tmp: Path) -> str | None:
    return _svm(tmp, DATA.replace(b"\n", "\u2028".encode()), "d.txt:1", "U+2028")


# ------------------------------------------------------------------ ratings tables
@case(WRONG)
def ratings_csv_vertical_tab_after_a_user_id_is_refused_not_user_2(tmp: Path) -> str | None:
    return _error(_table(tmp, RATINGS.replace(b"2,10,5", b"2\x0b,10,5")), "r.csv:4",
                  "vertical tab")


@case(WRONG)
def ratings_csv_form_feed_in_the_item_column_is_refused(tmp: Path) -> str | None:
    return _error(_table(tmp, RATINGS.replace(b"1,11,2", b"1,\x0c11,2")), "r.csv:3", "form feed")


@case(WRONG)
def ratings_csv_line_separator_inside_a_rating_is_refused(tmp: Path) -> str | None:
    return _error(_table(tmp, RATINGS.replace(b",5,", b",5\xe2\x80\xa8,")), "r.csv:4", "U+2028")


@case(WRONG)
def ratings_tsv_next_line_character_in_a_timestamp_is_refused(tmp: Path) -> str | None:
    data = RATINGS.replace(b",", b"\t").replace(b"\t101\n", b"\t101\xc2\x85\n")
    return _error(_table(tmp, data, "r.tsv"), "r.tsv:3", "U+0085")


@case(WRONG)
def ratings_csv_quoted_field_holding_a_vertical_tab_is_refused(tmp: Path) -> str | None:
    return _error(_table(tmp, RATINGS + b'"3\x0b",10,3,103\n'), "r.csv:5", "vertical tab")


@case(WRONG)
def ratings_csv_nul_after_a_rating_is_refused(tmp: Path) -> str | None:
    return _error(_table(tmp, RATINGS.replace(b",4,", b",4\x00,")), "r.csv:2", "NUL")


@case(UNCLEAR)
def ratings_csv_header_with_blanks_around_its_names_is_read(tmp: Path) -> str | None:
    from bench.errors import LtrbenchError

    try:
        r = _table(tmp, RATINGS.replace(b"user,item,rating,timestamp",
                                        b" user , item ,rating, timestamp"))()
    except LtrbenchError as exc:
        return f"refused: {exc}"
    got = r.frame["rating"].tolist()
    return None if got == [4.0, 2.0, 5.0] else f"ratings {got}, expected [4, 2, 5]"


@case(UNCLEAR)
def ratings_dat_pair_rated_twice_names_the_file_and_both_lines(tmp: Path) -> str | None:
    return _error(_movielens(tmp, DAT + b"1::10::3::103\n"), "ratings.dat:4", "line 1")


@case(WRONG)
def ratings_dat_with_a_line_separator_is_refused(tmp: Path) -> str | None:
    return _error(_movielens(tmp, DAT.replace(b"\n", "\u2028".encode())), "ratings.dat:1",
                  "U+2028")


@case(WRONG)
def ratings_dat_byte_order_mark_inside_is_refused(tmp: Path) -> str | None:
    return _error(_movielens(tmp, DAT.replace(b"\n2::10", b"\n\xef\xbb\xbf2::10")), "ratings.dat:3",
                  "byte-order mark")


# ------------------------------------------------------------------ dataset folders
def _letor(tmp: Path) -> Path:
    from hostile_kit import letor_folder

    return letor_folder(tmp / "letor")


@case(ACCEPT)
def letor_folder_whose_test_file_links_to_train_is_refused(tmp: Path) -> str | None:
    from bench.datasets.resolve import load_dataset

    folder = _letor(tmp)
    (folder / "test.txt").unlink()
    (folder / "test.txt").symlink_to("train.txt")
    return _error(lambda: load_dataset(str(folder)), "test.txt", "train.txt", "one file")


@case(ACCEPT)
def letor_folder_whose_vali_file_is_a_hard_link_of_test_is_refused(tmp: Path) -> str | None:
    from bench.datasets.resolve import load_dataset

    folder = _letor(tmp)
    (folder / "vali.txt").unlink()
    os.link(folder / "test.txt", folder / "vali.txt")
    return _error(lambda: load_dataset(str(folder)), "vali.txt", "test.txt", "one file")


@case(UNCLEAR)
def dataset_path_ending_in_a_line_end_is_named_on_one_line(tmp: Path) -> str | None:
    from bench.datasets.resolve import load_dataset

    spec = str(_letor(tmp)) + "\n"
    problem = _error(lambda: load_dataset(spec), "no such file")
    if problem is None:
        try:
            load_dataset(spec)
        except Exception as exc:
            return "a two-line message" if "\n" in str(exc) else None
    return problem


# ------------------------------------------------------------------ one rule, every reader
_STRAY_TOKENS = (b"\x00", b"\x0b", b"\x0c", b"\x1c", b"\x1e", "\u0085".encode(),
                 "\u2028".encode(), "\u2029".encode(), b"\xef\xbb\xbf")


def _reader(kind: str, tmp: Path) -> tuple[bytes, str, Callable[[], Any]]:
    """A valid file of ``kind`` (at least 3 lines), its name, and the call that reads it."""
    from bench.data.svmlight import read_svmlight
    from bench.data.trec import read_qrels, read_run

    if kind == "run":
        return RUN, "r.txt", lambda: read_run(tmp / "r.txt")
    if kind == "qrels":
        return QRELS, "q.txt", lambda: read_qrels(tmp / "q.txt")
    if kind == "svmlight":
        return DATA, "d.txt", lambda: read_svmlight(tmp / "d.txt")
    if kind == "ratings.csv":
        return RATINGS, "r.csv", _table(tmp, RATINGS)
    return DAT, "ratings.dat", _movielens(tmp, DAT)


@fuzz_settings(60)
@given(kind=st.sampled_from(["run", "qrels", "svmlight", "ratings.csv", "ratings.dat"]),
       token=st.sampled_from(_STRAY_TOKENS), where=st.floats(0.05, 0.999))
def test_a_stray_character_anywhere_after_the_first_byte_is_refused_naming_its_line(
        tmp_path_factory: pytest.TempPathFactory, kind: str, token: bytes, where: float) -> None:
    """NUL, an inner byte-order mark, VT, FF, FS/RS, NEL, U+2028/U+2029: inserted at any byte
    of a valid file of any text format, the file is refused naming it and the line where the
    character sits (the same rule for every reader, :func:`bench.data.inputs.stray_character`)."""
    tmp = tmp_path_factory.mktemp("stray")
    data, name, read = _reader(kind, tmp)
    at = max(1, int(where * len(data)))
    while at < len(data) and data[at - 1:at] != b"\n" and data[at] & 0xC0 == 0x80:
        at += 1  # never inside a UTF-8 sequence
    bad = data[:at] + token + data[at:]
    path = tmp / ("ml/ratings.dat" if kind == "ratings.dat" else name)
    path.write_bytes(bad)
    line = bad[:at].count(b"\n") + 1
    problem = _error(read, f"{name}:{line}")
    assert problem is None, (kind, token, at, problem)


# ------------------------------------------------------------------ the test
@pytest.mark.parametrize(("klass", "fn"), CASES, ids=[fn.__name__ for _, fn in CASES])
def test_hostile_round8_input(klass: str, fn: Fn, tmp_path: Path) -> None:
    problem = fn(tmp_path)
    assert problem is None, f"[{klass}] {problem}"


if __name__ == "__main__":  # counts by class
    from hostile_kit import print_counts

    print_counts(CASES, in_folder=True)
