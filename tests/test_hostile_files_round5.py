"""Hostile file inputs, round 5: new instances of issue 19's classes on the FILE READERS.

SVMlight/LETOR text (VT and FF between tokens, compressed files), TREC runs and qrels and
MovieLens files given compressed, ratings tables and LETOR folders given to
``bench.datasets.resolve.load_path`` (a missing path, a symlink loop, a FIFO, an empty or
non-Parquet file, an ambiguous folder), LETOR Parquet files whose ``ltrbench`` metadata lists
a reserved, repeated or text column as a feature, MovieLens side tables (an id listed twice, a
short line, a folder, a bad field) and ``::`` files with text between the colons.

Each case takes a fresh folder and returns ``None`` when ltrbench behaved (a
:class:`~bench.errors.DataError` naming the file, the line / row / column and what was
expected, or the oracle's value) and otherwise one line saying what went wrong. Oracles:
sklearn's ``load_svmlight_file`` for valid SVMlight spellings, hand arithmetic, pyarrow's own
reading of the Parquet columns. Counts on the code before this round's fixes: 53 of 58 cases
failed (14 silently wrong numbers, 23 unclear errors, 9 tracebacks or a hang, 7 silent
accepts); after: 0
(``python tests/test_hostile_files_round5.py`` prints the counts).
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import DATA, QRELS, RUN, SCORES, chdir, cli, refused

Fn = Callable[[Path], "str | None"]
CASES: list[tuple[str, Fn]] = []
WRONG, TRACE, UNCLEAR, ACCEPT = ("silently wrong numbers", "tracebacks", "unclear errors",
                                 "silent accepts")
ZSTD = b"\x28\xb5\x2f\xfd" + bytes(20)  # a zstd frame header (RFC 8878 3.1.1): no text starts so


def case(klass: str) -> Callable[[Fn], Fn]:
    def add(fn: Fn) -> Fn:
        CASES.append((klass, fn))
        return fn
    return add


def _error(fn: Callable[[], Any], *words: str) -> str | None:
    """None when ``fn()`` raises a DataError whose text holds every word."""
    from bench.errors import DataError

    try:
        got = fn()
    except DataError as exc:
        missing = [w for w in words if w not in str(exc)]
        return f"message {str(exc)[:160]!r} lacks {missing}" if missing else None
    except Exception as exc:
        return f"traceback: {type(exc).__name__}: {str(exc)[:120]}"
    return f"accepted, expected an error naming {words}: got {str(got)[:80]}"


def _svm(tmp: Path, data: bytes, *words: str, name: str = "d.txt") -> str | None:
    from bench.data.svmlight import read_svmlight

    p = tmp / name
    p.write_bytes(data)
    return _error(lambda: read_svmlight(p), name, *words)


# ------------------------------------------------------------------ SVMlight: VT and FF
@case(WRONG)
def svmlight_vertical_tab_between_features_is_refused_as_in_trec(tmp: Path) -> str | None:
    return _svm(tmp, DATA.replace(b"1:0.5 2:1", b"1:0.5\x0b2:1"), "d.txt:1", "column 9",
                "vertical tab")


@case(WRONG)
def svmlight_form_feed_between_features_is_refused(tmp: Path) -> str | None:
    return _svm(tmp, DATA.replace(b"1:0.1\n", b"1:0.1\x0c\n"), "d.txt:2", "form feed")


@case(WRONG)
def svmlight_form_feed_page_break_line_is_refused(tmp: Path) -> str | None:
    return _svm(tmp, DATA.replace(b"1 qid:2 1:0.2\n", b"\x0c\n1 qid:2 1:0.2\n"), "d.txt:4",
                "form feed")


@case(WRONG)
def svmlight_vertical_tab_after_the_label_is_refused(tmp: Path) -> str | None:
    return _svm(tmp, DATA.replace(b"0 qid:2", b"0\x0bqid:2"), "d.txt:5", "column 1",
                "vertical tab")


@case(WRONG)
def svmlight_vertical_tab_in_evaluate_labels_only_is_refused(tmp: Path) -> str | None:
    from bench.data.svmlight import read_svmlight

    p = tmp / "d.txt"
    p.write_bytes(DATA.replace(b"1:0.5 2:1", b"1:0.5\x0b2:1"))
    return _error(lambda: read_svmlight(p, features=False), "d.txt:1", "vertical tab")


@case(WRONG)
def cli_evaluate_svmlight_with_a_form_feed_exits_2(tmp: Path) -> str | None:
    (tmp / "d.txt").write_bytes(DATA.replace(b"1:0.9\n", b"1:0.9\x0c\n"))
    (tmp / "s.txt").write_bytes(SCORES)
    return refused(cli(tmp, "evaluate", "--data", "d.txt", "--scores", "s.txt"), "d.txt:5",
                   "form feed")


@case(WRONG)
def svmlight_spellings_sklearn_reads_the_same_stay_accepted(tmp: Path) -> str | None:
    """'+1', '.5', '5.', '1E+2', '-0', qid:01 and qid:-1 are plain numbers: sklearn's values."""
    from sklearn.datasets import load_svmlight_file

    from bench.data.svmlight import read_svmlight

    p = tmp / "d.txt"
    p.write_bytes(b"+1 qid:01 1:.5 2:5.\r\n0 qid:01 1:1E+2 2:-0\n2 qid:-1 2:+1\n")
    d = read_svmlight(p)
    X, y, q = load_svmlight_file(str(p), query_id=True)
    if not (np.array_equal(d.X, X.toarray().astype(np.float32)) and np.array_equal(d.y, y)
            and np.array_equal(d.qid, q)):
        return f"X={d.X.tolist()} y={d.y.tolist()} qid={d.qid.tolist()} differ from sklearn's"
    return None


@case(WRONG)
def svmlight_rewritten_with_the_same_size_while_read_is_refused(tmp: Path) -> str | None:
    """evaluate reads labels only, through no cache: the size alone did not tell a rewrite."""
    from bench.data.svmlight import read_svmlight

    p = tmp / "d.txt"
    p.write_bytes(DATA)
    os.utime(p, ns=(10**9, 10**9))  # a clock tick apart from the rewrite below, surely

    def rewrite(done_bytes: int, done_rows: int) -> None:
        p.write_bytes(DATA.replace(b"2 qid:1", b"0 qid:1"))  # same size, other labels

    return _error(lambda: read_svmlight(p, features=False, progress=rewrite), "d.txt",
                  "changed while it was read")


# ------------------------------------------------------------------ compressed text files
def _compressed(kind: str, data: bytes) -> bytes:
    return {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress,
            "zstd": lambda _: ZSTD}[kind](data)


@case(UNCLEAR)
def svmlight_gzip_is_refused_naming_gzip(tmp: Path) -> str | None:
    return _svm(tmp, _compressed("gzip", DATA), "d.txt:1", "gzip-compressed", "gunzip")


@case(UNCLEAR)
def svmlight_bzip2_is_refused_naming_bzip2(tmp: Path) -> str | None:
    return _svm(tmp, _compressed("bzip2", DATA), "d.txt:1", "bzip2-compressed")


@case(UNCLEAR)
def svmlight_xz_is_refused_naming_xz(tmp: Path) -> str | None:
    return _svm(tmp, _compressed("xz", DATA), "d.txt:1", "xz-compressed")


@case(UNCLEAR)
def svmlight_zstd_is_refused_naming_zstd(tmp: Path) -> str | None:
    return _svm(tmp, ZSTD, "d.txt:1", "zstd-compressed")


@case(UNCLEAR)
def trec_run_gzip_is_refused_naming_gzip(tmp: Path) -> str | None:
    from bench.data.trec import read_run

    (tmp / "r.txt").write_bytes(_compressed("gzip", RUN))
    return _error(lambda: read_run(tmp / "r.txt"), "r.txt:1", "gzip-compressed")


@case(UNCLEAR)
def trec_qrels_xz_is_refused_naming_xz(tmp: Path) -> str | None:
    from bench.data.trec import read_qrels

    (tmp / "q.txt").write_bytes(_compressed("xz", QRELS))
    return _error(lambda: read_qrels(tmp / "q.txt"), "q.txt:1", "xz-compressed")


@case(UNCLEAR)
def movielens_udata_gzip_is_refused_naming_gzip(tmp: Path) -> str | None:
    from bench.data.movielens import load_movielens

    (tmp / "u.data").write_bytes(_compressed("gzip", b"1\t1\t5\t100\n"))
    return _error(lambda: load_movielens(tmp), "u.data:1", "gzip-compressed")


@case(UNCLEAR)
def movielens_ratings_dat_bzip2_is_refused_naming_bzip2(tmp: Path) -> str | None:
    from bench.data.movielens import load_movielens

    (tmp / "ratings.dat").write_bytes(_compressed("bzip2", b"1::1::5::100\n" * 50))
    return _error(lambda: load_movielens(tmp), "ratings.dat:1", "bzip2-compressed")


@case(UNCLEAR)
def ratings_table_csv_gz_is_refused_naming_gzip(tmp: Path) -> str | None:
    """pandas would read ``r.csv.gz``'s header through gzip and the reader then the raw bytes."""
    from bench.datasets.resolve import load_path

    (tmp / "r.csv.gz").write_bytes(_compressed("gzip", b"user,item,rating\n1,2,3\n"))
    return _error(lambda: load_path(tmp / "r.csv.gz"), "r.csv.gz:1", "gzip-compressed")


@case(UNCLEAR)
def cli_evaluate_with_qrels_and_run_swapped_says_so(tmp: Path) -> str | None:
    (tmp / "q.txt").write_bytes(QRELS)
    (tmp / "r.txt").write_bytes(RUN)
    return refused(cli(tmp, "evaluate", "--qrels", "r.txt", "--run", "q.txt"), "r.txt:1",
                   "expected 4 fields", "swapped")


@case(UNCLEAR)
def trec_run_given_a_qrels_file_says_so(tmp: Path) -> str | None:
    from bench.data.trec import read_run

    (tmp / "q.txt").write_bytes(QRELS)
    return _error(lambda: read_run(tmp / "q.txt"), "q.txt:1", "expected 6 fields", "swapped")


@case(WRONG)
def text_starting_like_a_bzip2_header_is_still_text(tmp: Path) -> str | None:
    """'BZh9' alone is no bzip2 file (its block magic follows): a query id may start so."""
    from bench.data.trec import read_qrels

    (tmp / "q.txt").write_bytes(b"BZh9 0 a 1\n")
    q = read_qrels(tmp / "q.txt")
    return None if q.qid.tolist() == ["BZh9"] else f"qid {q.qid.tolist()}"


# ------------------------------------------------------------------ MovieLens
@case(UNCLEAR)
def movielens_csv_with_only_its_header_says_so(tmp: Path) -> str | None:
    from bench.data.movielens import load_movielens

    (tmp / "ratings.csv").write_bytes(b"userId,movieId,rating,timestamp\n")
    return _error(lambda: load_movielens(tmp), "ratings.csv", "no ratings (only a header)")


@case(ACCEPT)
def movielens_ratings_dat_with_text_between_its_colons_is_refused(tmp: Path) -> str | None:
    """Read with ':' as the delimiter, '1:7:2:8:3:9:101' passed as user 1, item 2, rating 3."""
    from bench.data.movielens import load_movielens

    (tmp / "ratings.dat").write_bytes(b"1::1::5::100\n1:7:2:8:3:9:101\n2::1::4::102\n")
    return _error(lambda: load_movielens(tmp), "ratings.dat:2", "1:7:2:8:3:9:101",
                  "user::item::rating::timestamp")


@case(WRONG)
def movielens_ratings_dat_valid_lines_read_as_pandas_reads_them(tmp: Path) -> str | None:
    import pandas as pd

    from bench.data.movielens import load_movielens

    text = b"1::10::5::100\r\n1::20::3.5::101\n2::10::4::102"
    (tmp / "ratings.dat").write_bytes(text)
    got = load_movielens(tmp).frame[["user", "item", "rating", "timestamp"]]
    want = pd.read_csv(tmp / "ratings.dat", sep="::", engine="python",
                       names=["user", "item", "rating", "timestamp"])
    same = got.to_numpy(dtype=float).tolist() == want.to_numpy(dtype=float).tolist()
    return None if same else f"read {got.to_numpy().tolist()}, pandas {want.to_numpy().tolist()}"


UDATA = b"1\t1\t5\t100\n1\t2\t3\t101\n2\t1\t4\t102\n"
UITEM = ("1|Toy Story (1995)|01-Jan-1995||http://x" + "|0" * 19 + "\n"
         "2|GoldenEye (1995)|01-Jan-1995||http://x" + "|0" * 19 + "\n")


def _side(tmp: Path, files: dict[str, bytes | None], *words: str) -> str | None:
    from bench.data.movielens import load_movielens

    for name, data in files.items():
        if data is None:
            (tmp / name).mkdir()
        else:
            (tmp / name).write_bytes(data)
    return _error(lambda: load_movielens(tmp), *words)


@case(WRONG)
def movielens_u_item_listing_an_item_twice_is_refused(tmp: Path) -> str | None:
    """A second row of item 1 gives it two titles and genres, and doubles it when joined."""
    dup = UITEM + UITEM.splitlines()[0].replace("Toy Story", "Other") + "\n"
    return _side(tmp, {"u.data": UDATA, "u.item": dup.encode("latin-1")}, "u.item",
                 "item id 1 is listed twice", "rows 1 and 3")


@case(WRONG)
def movielens_movies_csv_listing_a_movie_twice_is_refused(tmp: Path) -> str | None:
    return _side(tmp, {"ratings.csv": b"userId,movieId,rating,timestamp\n1,1,5,100\n",
                       "movies.csv": b"movieId,title,genres\n1,A (1995),Comedy\n1,B (1990),Drama\n"},
                 "movies.csv", "item id 1 is listed twice")


@case(WRONG)
def movielens_u_user_listing_a_user_twice_is_refused(tmp: Path) -> str | None:
    return _side(tmp, {"u.data": UDATA, "u.user": b"1|24|M|tech|1\n1|25|F|art|2\n"}, "u.user",
                 "user id 1 is listed twice")


@case(ACCEPT)
def movielens_u_user_line_without_its_zip_field_is_refused(tmp: Path) -> str | None:
    return _side(tmp, {"u.data": UDATA, "u.user": b"1|24|M|tech|1\n2|25|F|art\n"}, "u.user:2",
                 "4 fields, expected 5")


@case(ACCEPT)
def movielens_u_item_that_is_a_folder_is_refused_not_skipped(tmp: Path) -> str | None:
    return _side(tmp, {"u.data": UDATA, "u.item": None}, "u.item", "is a directory")


@case(UNCLEAR)
def movielens_u_item_with_a_text_id_names_the_line(tmp: Path) -> str | None:
    bad = UITEM.replace("2|Golden", "x|Golden")
    return _side(tmp, {"u.data": UDATA, "u.item": bad.encode("latin-1")}, "u.item:2", "'x'")


@case(UNCLEAR)
def movielens_u_item_in_utf16_says_utf16(tmp: Path) -> str | None:
    return _side(tmp, {"u.data": UDATA, "u.item": UITEM.encode("utf-16")}, "u.item:1", "UTF-16")


@case(UNCLEAR)
def movielens_tags_csv_with_a_text_timestamp_names_the_line(tmp: Path) -> str | None:
    return _side(tmp, {"ratings.csv": b"userId,movieId,rating,timestamp\n1,1,5,100\n",
                       "tags.csv": b"userId,movieId,tag,timestamp\n1,1,\"a, b\",100\n1,1,c,abc\n"},
                 "tags.csv:3", "'abc'")


@case(UNCLEAR)
def movielens_movies_csv_in_latin1_names_the_line(tmp: Path) -> str | None:
    return _side(tmp, {"ratings.csv": b"userId,movieId,rating,timestamp\n1,1,5,100\n",
                       "movies.csv": "movieId,title,genres\n1,Am\xe9lie (2001),Comedy\n"
                       .encode("latin-1")}, "movies.csv:2", "not UTF-8")


@case(WRONG)
def movielens_side_tables_that_are_fine_still_read(tmp: Path) -> str | None:
    from bench.data.movielens import load_movielens

    (tmp / "u.data").write_bytes(UDATA)
    (tmp / "u.item").write_bytes(UITEM.replace("Toy Story", "Am\xe9lie").encode("latin-1"))
    (tmp / "u.user").write_bytes(b"1|24|M|tech|85711\n2|53|F|other|94043\n")
    r = load_movielens(tmp)
    if r.items is None or r.users is None:
        return "items or users not read"
    got = (r.items["title"].tolist(), r.users["age"].tolist())
    return None if got == (["Am\xe9lie (1995)", "GoldenEye (1995)"], [24, 53]) else str(got)


# ------------------------------------------------------------------ load_path
def _load(p: Path, *words: str) -> str | None:
    from bench.datasets.resolve import load_path

    return _error(lambda: load_path(p), *words)


@case(TRACE)
def load_path_of_a_missing_ratings_file_names_it(tmp: Path) -> str | None:
    return _load(tmp / "nope.csv", "nope.csv", "no such file")


def _refused_in_a_letor_folder(tmp: Path, call: Callable[[], object], *words: str) -> str | None:
    """``call`` run in ``tmp`` holding a LETOR dataset: an empty path or name must not load it."""
    line = b"1 qid:1 1:1\n0 qid:1 1:2\n"
    for s in ("train", "vali", "test"):
        (tmp / f"{s}.txt").write_bytes(line)
    with chdir(tmp):
        return _error(call, *words)


@case(ACCEPT)
def load_path_of_an_empty_path_is_refused_not_the_working_folder(tmp: Path) -> str | None:
    """Path('') is '.': a dataset in the working folder would load without being named."""
    from bench.datasets.resolve import load_path

    return _refused_in_a_letor_folder(tmp, lambda: load_path(""), "an empty path")


@case(ACCEPT)
def load_dataset_of_an_empty_name_is_refused_not_the_working_folder(tmp: Path) -> str | None:
    from bench.datasets.resolve import load_dataset

    return _refused_in_a_letor_folder(tmp, lambda: load_dataset("", cache=False),
                                      "an empty dataset")


@case(TRACE)
def load_dataset_of_an_unknown_users_home_names_it(tmp: Path) -> str | None:
    from bench.datasets.resolve import load_dataset

    return _error(lambda: load_dataset("~nosuchuser-b3r5/x", cache=False),
                  "~nosuchuser-b3r5/x", "cannot expand '~'")


@case(TRACE)
def load_path_of_an_unknown_users_home_names_it(tmp: Path) -> str | None:
    return _load(Path("~nosuchuser-b3r5/x"), "~nosuchuser-b3r5/x", "cannot expand '~'")


@case(TRACE)
def load_path_of_a_symlink_loop_names_it(tmp: Path) -> str | None:
    os.symlink(tmp / "loop.csv", tmp / "loop.csv")
    return _load(tmp / "loop.csv", "loop.csv", "symbolic links")


@case(TRACE)
def load_path_of_a_fifo_is_refused_without_opening_it(tmp: Path) -> str | None:
    f = tmp / "r.csv"  # pandas' sniffer would wait for a writer
    os.mkfifo(f)
    out: list[str | None] = []
    t = threading.Thread(target=lambda: out.append(_load(f, "r.csv", "not a regular file")),
                         daemon=True)
    t.start()
    t.join(20)
    if t.is_alive():  # blocked in open(): a writer end lets it go
        fd = os.open(f, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        t.join(20)
        return "hung opening a FIFO (read until a writer came)"
    return out[0]


@case(TRACE)
def load_path_of_an_empty_csv_says_empty(tmp: Path) -> str | None:
    (tmp / "r.csv").write_bytes(b"")
    return _load(tmp / "r.csv", "r.csv", "empty file")


@case(TRACE)
def load_path_of_a_csv_renamed_parquet_names_it(tmp: Path) -> str | None:
    (tmp / "r.parquet").write_bytes(b"user,item,rating\n1,2,3\n")
    return _load(tmp / "r.parquet", "r.parquet", "not a readable Parquet file")


@case(TRACE)
def load_path_of_an_empty_parquet_names_it(tmp: Path) -> str | None:
    (tmp / "r.parquet").write_bytes(b"")
    return _load(tmp / "r.parquet", "r.parquet", "not a readable Parquet file")


@case(UNCLEAR)
def load_path_of_a_utf16_csv_names_utf16_and_line_1(tmp: Path) -> str | None:
    (tmp / "r.csv").write_bytes("user,item,rating\n1,2,3\n".encode("utf-16"))
    return _load(tmp / "r.csv", "r.csv:1", "UTF-16")


@case(UNCLEAR)
def load_path_of_a_latin1_header_names_line_1(tmp: Path) -> str | None:
    (tmp / "r.csv").write_bytes("user,item,\xe9valuation\n1,2,3\n".encode("latin-1"))
    return _load(tmp / "r.csv", "r.csv:1", "not UTF-8", "0xe9")


@case(UNCLEAR)
def load_path_of_a_ratings_txt_is_not_called_a_letor_file(tmp: Path) -> str | None:
    """'ratings.txt' with a header 'user<TAB>item<TAB>rating' is a ratings table."""
    from bench.datasets.resolve import load_path
    from bench.errors import DataError

    (tmp / "ratings.txt").write_bytes(b"user\titem\trating\n1\t1\t5\n1\t2\t3\n")
    (tmp / "train.txt").write_bytes(b"1 qid:1 1:1\n0 qid:1 1:2\n")
    try:
        load_path(tmp / "ratings.txt")
    except DataError as exc:
        if "LETOR" in str(exc):
            return f"a ratings table called a LETOR file: {exc}"
    return _load(tmp / "train.txt", "train.txt", "a single LETOR file")


@case(UNCLEAR)
def load_path_of_a_folder_with_two_datasets_says_so(tmp: Path) -> str | None:
    line = b"1 qid:1 1:1\n0 qid:1 1:2\n"
    (tmp / "ds" / "Fold1").mkdir(parents=True)
    for s in ("train", "vali", "test"):
        (tmp / "ds" / "Fold1" / f"{s}.txt").write_bytes(line)
        (tmp / "ds" / f"{s}.txt").write_bytes(line)
    return _load(tmp / "ds", "ds", "two datasets in one folder", "Fold1")


@case(UNCLEAR)
def load_path_of_a_folder_whose_fold_is_a_symlink_loop_says_so(tmp: Path) -> str | None:
    (tmp / "ds").mkdir()
    os.symlink(tmp / "ds" / "Fold1", tmp / "ds" / "Fold1")
    return _load(tmp / "ds", "Fold1 (a broken symbolic link)")


@case(ACCEPT)
def letor_folder_with_vali_txt_and_valid_txt_names_both(tmp: Path) -> str | None:
    """Two validation files of different content: which one was meant cannot be told."""
    from bench.data.folders import read_letor_folder

    line = b"1 qid:1 1:1\n0 qid:1 1:2\n"
    for s in ("train", "vali", "test"):
        (tmp / f"{s}.txt").write_bytes(line)
    (tmp / "valid.txt").write_bytes(line.replace(b"1:2", b"1:3"))
    return _error(lambda: read_letor_folder(tmp), "several vali files", "vali.txt, valid.txt")


@case(ACCEPT)
def letor_folder_with_vali_txt_and_a_yahoo_valid_file_names_both(tmp: Path) -> str | None:
    from bench.data.folders import read_letor_folder

    line = b"1 qid:1 1:1\n0 qid:1 1:2\n"
    for s in ("train", "vali", "test"):
        (tmp / f"{s}.txt").write_bytes(line)
    (tmp / "set1.valid.txt").write_bytes(line.replace(b"1:2", b"1:3"))
    return _error(lambda: read_letor_folder(tmp), "several vali files",
                  "vali.txt, set1.valid.txt")


@case(WRONG)
def letor_folder_with_valid_txt_a_link_to_vali_txt_reads(tmp: Path) -> str | None:
    from bench.data.folders import read_letor_folder

    for s in ("train", "vali", "test"):
        (tmp / f"{s}.txt").write_bytes(b"1 qid:1 1:1\n0 qid:1 1:2\n")
    os.symlink("vali.txt", tmp / "valid.txt")
    got = read_letor_folder(tmp).vali.X[:, 0].tolist()
    return None if got == [1.0, 2.0] else f"vali feature 1: {got}"


# ------------------------------------------------------------------ LETOR Parquet
_BASE = {"qid": pa.array([1, 1, 2, 2], pa.int64()), "label": pa.array([2.0, 0, 1, 0]),
         "f1": pa.array([0.5, 0.1, 0.2, 0.0]), "f2": pa.array([1.0, 0, 0.3, 0.9])}


def _parquet(tmp: Path, columns: dict[str, Any], feature_columns: list[str] | None = None) -> Path:
    table = pa.table(columns)
    if feature_columns is not None:
        meta = {"format": "ltrbench-letor", "feature_columns": feature_columns,
                "feature_names": feature_columns}
        table = table.replace_schema_metadata({b"ltrbench": json.dumps(meta).encode()})
    p = tmp / "train.parquet"
    pq.write_table(table, p)
    return p


def _read_parquet(p: Path, *words: str) -> str | None:
    from bench.data.parquet import read_parquet

    return _error(lambda: read_parquet(p), "train.parquet", *words)


@case(WRONG)
def parquet_metadata_listing_the_label_as_a_feature_is_refused(tmp: Path) -> str | None:
    """The label as a feature column would hand every model the answer."""
    return _read_parquet(_parquet(tmp, _BASE, ["f1", "label"]), "column 'label'", "reserved")


@case(WRONG)
def parquet_metadata_listing_a_feature_twice_is_refused(tmp: Path) -> str | None:
    return _read_parquet(_parquet(tmp, _BASE, ["f1", "f1"]), "column 'f1'", "listed twice")


@case(TRACE)
def parquet_metadata_listing_a_text_column_as_a_feature_is_refused(tmp: Path) -> str | None:
    cols = {**_BASE, "s": pa.array(["a", "b", "c", "d"])}
    return _read_parquet(_parquet(tmp, cols, ["f1", "s"]), "column 's'", "type string",
                         "expected numbers")


@case(WRONG)
def parquet_decimal_feature_column_is_kept(tmp: Path) -> str | None:
    """A decimal column is numeric: dropping it would train on one feature fewer, unsaid."""
    from bench.data.parquet import read_parquet

    p = _parquet(tmp, {**_BASE, "f1": pa.array([1, 2, 3, 4], pa.decimal128(5, 2))})
    d = read_parquet(p)
    if d.feature_names != ("f1", "f2") or d.X[:, 0].tolist() != [1.0, 2.0, 3.0, 4.0]:
        return f"features {d.feature_names}, first column {d.X[:, 0].tolist()}"
    return None


@case(UNCLEAR)
def parquet_null_label_says_missing(tmp: Path) -> str | None:
    p = _parquet(tmp, {**_BASE, "label": pa.array([2, None, 1, 0], pa.int64())})
    return _read_parquet(p, "row 2", "column 'label'", "missing label (null)")


@case(WRONG)
def parquet_folder_whose_test_split_orders_its_features_otherwise_is_refused(
        tmp: Path) -> str | None:
    """Same feature count, columns swapped: the model would read f2 as f1 on the test set."""
    from bench.data.folders import read_parquet_folder

    for s in ("train", "vali", "test"):
        cols = dict(_BASE)
        if s == "test":
            cols = {"qid": cols["qid"], "label": cols["label"], "f2": cols["f2"], "f1": cols["f1"]}
        pq.write_table(pa.table(cols), tmp / f"{s}.parquet")
    return _error(lambda: read_parquet_folder(tmp), "test.parquet", "column 'f2'",
                  "same feature columns in the same order")


@case(UNCLEAR)
def letor_arrays_feature_beyond_float32_names_its_value(tmp: Path) -> str | None:
    """1e39 given as float64 became inf in the float32 cast; the check then blamed 'inf'."""
    from bench.data.letor import LetorData

    X = np.array([[0.5, 1e39], [0.1, 0.0]])
    return _error(lambda: LetorData.build(X, [1, 0], qid=[7, 7]), "1e+39", "row 1, column 2",
                  "does not fit a float32")


# ------------------------------------------------------------------ the test
@pytest.mark.parametrize(("klass", "fn"), CASES, ids=[fn.__name__ for _, fn in CASES])
def test_hostile_file(klass: str, fn: Fn, tmp_path: Path) -> None:
    problem = fn(tmp_path)
    assert problem is None, f"[{klass}] {problem}"


if __name__ == "__main__":  # counts by class
    from hostile_kit import print_counts

    print_counts(CASES, in_folder=True)
