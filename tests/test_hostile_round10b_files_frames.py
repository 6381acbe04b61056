"""Round 10b (h10f): bad files and frames, the first things a user of pandas, LightGBM or
pytrec_eval feeds in, and their nasty variants (issue 19: one input discipline for every path).

Each case returns ``None`` when ltrbench behaved (the oracle's number, or ltrbench's own error
naming the file / column and what was expected) and one line otherwise. Oracles: pytrec_eval
(``hostile_kit.pytrec``), the same rows through another path (a comma CSV for a table written
with another separator; the frame before a dtype change), hand arithmetic (a query of one
relevant document scores ndcg 1).

Failing before this round (``FIXED``), now fixed at one place each:

* a ratings table whose separator has more than one character was read by pandas as a regular
  expression (``..`` matches any two characters, ``||`` the empty string, ``$$`` the line's
  end) while the header was split literally: a well-formed file was refused as "missing value"
  or "usecols out-of-bounds" (:mod:`bench.data.tabular`: the separator is literal text);
  ``convert --sep '\\t'`` (what a shell passes for a tab) is a tab, as in xsv and Miller
  (:func:`bench.commands.convert.separator`);
* a ratings frame with no rows was accepted (integer columns) or refused as "has dtype float64"
  (an empty column's dtype); a frame read straight from MovieLens' ``ratings.csv``
  (``userId``, ``movieId``) was refused without saying what to rename
  (:func:`bench.data.ratings.validate_ratings_frame`);
* a split file or a MovieLens ratings file present only compressed (``train.txt.gz``,
  ``ratings.csv.gz``) was reported as missing, hiding the reason; a ``vali.txt.gz`` beside
  plain train and test files was ignored and a validation set carved from train in its place
  (:func:`bench.data.folder_names.packed_twin`).

* ``datasets info synthetic-mslr30k:0.01:Fold3`` (a stand-in's fold, which ``run --dataset``
  reads) was refused as a bad scale: the card is found by the one grammar of
  :func:`bench.datasets.resolve.resolve_spec` (:func:`bench.datasets.catalogue.get_card`);
* a list of per-query lists given to ``evaluate`` (TF-Ranking's and allRank's batches) ended in
  NumPy's "inhomogeneous shape" or a 2-D shape: named, with the ``group=`` of the flat form
  (:mod:`bench.metrics.row_inputs`); a Timestamp or Decimal score was hinted as text.

* ``convert`` options the chosen reader ignores were dropped in silence (``--ratings
  synthetic --user u``, ``--synthetic-users`` beside a file, ``--sep`` beside a Parquet table,
  ``--duplicates last`` beside MovieLens files): refused, as the engines' ignored options are
  (:mod:`bench.datasets.ratings_source`).

The other cases (``GUARDS``) passed before: frames of every pandas/pyarrow dtype a user meets,
compressed and archived TREC runs, SVMlight and scores files of other tools.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import sys
import tarfile
import warnings
import zipfile
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import (
    QRELS,
    RATINGS,
    RUN,
    call,
    cli,
    letor_folder,
    own_error,
    pytrec,
    refused,
    value_or_refused,
)

from bench.data.movielens import load_movielens
from bench.data.parquet import read_parquet
from bench.data.ratings import as_ratings
from bench.data.tabular import load_ratings_table
from bench.datasets.resolve import load_path
from bench.metrics import evaluate
from bench.metrics.trec import evaluate_trec

Case = Callable[[Path], "str | None"]
QD = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"d": 1, "e": 0}}
RD = {"1": {"a": 0.4, "b": 0.9, "c": 0.1}, "2": {"d": 0.2, "e": 0.8}}
Y, S, QI = [2, 0, 1, 1, 0], [0.9, 0.1, 0.5, 0.2, 0.8], [1, 1, 1, 2, 2]
COLS = dict(user="user", item="item", rating="rating", timestamp="timestamp")


def _frame(**cols: Any) -> pd.DataFrame:
    return pd.DataFrame({"qid": QI, "label": Y, "score": S, **cols})


def _ndcg_of(fn: Callable[[], Any], want: float, key: str = "ndcg@10") -> str | None:
    got, exc = call(fn)
    if exc is not None:
        return f"{type(exc).__name__}: {exc}"
    value = float(got.metrics[key])
    return None if abs(value - want) < 1e-12 else f"got {value}, expected {want}"


def _arrays_ndcg() -> float:
    """The rows as NumPy arrays: the number every frame spelling of them must give."""
    r = evaluate(np.array(Y, float), np.array(S), qid=np.array(QI), metrics="ndcg@10")
    got = float(r.metrics["ndcg@10"])
    # by hand: query 1 ranks labels 2, 1, 0 (ideal, 1); query 2 ranks 0, 1: 1 / log2(3)
    assert got == pytest.approx((1.0 + 1 / np.log2(3)) / 2, abs=1e-12)
    return got


def _table(sep: str) -> Case:
    def case(tmp: Path) -> str | None:
        rows = [["user", "item", "rating", "timestamp"]] + [
            [str(u), str(i), "3.5", str(1000 + i)] for u in (12, 34) for i in (56, 78)]
        (tmp / "r.txt").write_text("".join(sep.join(r) + "\n" for r in rows))
        (tmp / "r.csv").write_text("".join(",".join(r) + "\n" for r in rows))
        got, exc = call(lambda: load_ratings_table(tmp / "r.txt", sep=sep, **COLS))
        if exc is not None:
            return f"{type(exc).__name__}: {exc}"
        want = load_ratings_table(tmp / "r.csv", **COLS)
        return None if got.frame.equals(want.frame) else f"read {got.frame.to_dict('list')}"
    return case


# ------------------------------------------------------------- failing before this round
def case_convert_sep_backslash_t_is_a_tab(tmp: Path) -> str | None:
    (tmp / "r.tsv").write_bytes(RATINGS.replace(b",", b"\t"))
    common = ("--user", "user", "--item", "item", "--rating", "rating", "--timestamp",
              "timestamp", "--min-history", "2", "--target-size", "2", "--features", "user",
              "--no-parquet")
    res = cli(tmp, "convert", "--ratings", "r.tsv", "--sep", "\\t", *common, "--out", "a")
    if res.status != 0:
        return f"exit {res.status}: {res.err.strip()[-200:]}"
    cli(tmp, "convert", "--ratings", "r.tsv", *common, "--out", "b")
    same = (tmp / "a" / "train.txt").read_bytes() == (tmp / "b" / "train.txt").read_bytes()
    return None if same else "--sep '\\t' read the table otherwise than the detected tab"


def case_ratings_frame_without_rows_int_columns(tmp: Path) -> str | None:
    frame = pd.DataFrame({c: pd.Series([], dtype=int) for c in ("user", "item", "timestamp")})
    frame["rating"] = pd.Series([], dtype=float)
    return own_error(lambda: as_ratings(frame), "no rows")


def case_ratings_frame_without_rows_read_from_an_empty_csv(tmp: Path) -> str | None:
    (tmp / "r.csv").write_text("user,item,rating,timestamp\n")
    return own_error(lambda: as_ratings(pd.read_csv(tmp / "r.csv")), "no rows")


def case_ratings_frame_with_movielens_column_names(tmp: Path) -> str | None:
    (tmp / "ratings.csv").write_text("userId,movieId,rating,timestamp\n1,2,3.5,978300760\n")
    return own_error(lambda: as_ratings(pd.read_csv(tmp / "ratings.csv")),
                     "rename", "'userId': 'user'", "'movieId': 'item'")


def case_ratings_frame_with_capitalised_columns(tmp: Path) -> str | None:
    frame = pd.DataFrame({"User": [1], "Item": [2], "Rating": [3.0], "Timestamp": [4]})
    return own_error(lambda: as_ratings(frame), "'User': 'user'", "'Timestamp': 'timestamp'")


def case_ratings_frame_of_other_columns_names_them(tmp: Path) -> str | None:
    return own_error(lambda: as_ratings(pd.DataFrame({"a": [1], "b": [2]})), "['a', 'b']")


def case_movielens_folder_with_ratings_csv_gz(tmp: Path) -> str | None:
    (tmp / "ml").mkdir()
    (tmp / "ml" / "ratings.csv.gz").write_bytes(gzip.compress(b"userId,movieId,rating,"
                                                              b"timestamp\n1,2,3.5,9\n"))
    return own_error(lambda: load_movielens(tmp / "ml"), "ratings.csv.gz", "unpack")


def case_movielens_100k_folder_with_u_data_zip(tmp: Path) -> str | None:
    (tmp / "ml").mkdir()
    with zipfile.ZipFile(tmp / "ml" / "u.data.zip", "w") as z:
        z.writestr("u.data", "1\t2\t3\t881250949\n")
    return refused(cli(tmp, "convert", "--ratings", "ml", "--out", "o"), "u.data.zip", "unpack")


def case_letor_folder_with_train_txt_gz(tmp: Path) -> str | None:
    d = letor_folder(tmp / "ds")
    (d / "train.txt.gz").write_bytes(gzip.compress((d / "train.txt").read_bytes()))
    (d / "train.txt").unlink()
    return own_error(lambda: load_path(d), "train.txt.gz", "unpack")


def case_letor_fold_with_test_txt_bz2(tmp: Path) -> str | None:
    d = letor_folder(tmp / "ds" / "Fold1")
    (d / "test.txt.bz2").write_bytes(bz2.compress((d / "test.txt").read_bytes()))
    (d / "test.txt").unlink()
    return refused(cli(tmp, "run", "--dataset", "ds", "--models", "random", "--quick"),
                   "test.txt.bz2", "unpack")


def case_letor_folder_with_vali_txt_gz_is_not_carved_in_silence(tmp: Path) -> str | None:
    d = letor_folder(tmp / "ds")
    (d / "vali.txt.gz").write_bytes(gzip.compress((d / "vali.txt").read_bytes()))
    (d / "vali.txt").unlink()
    return own_error(lambda: load_path(d), "vali.txt.gz", "unpack")


def case_per_query_lists_of_labels_are_named_with_their_group(tmp: Path) -> str | None:
    return own_error(lambda: evaluate([[2, 0, 1], [1, 0]], [[0.9, 0.1, 0.5], [0.2, 0.8]],
                                      metrics="ndcg@10"), "labels", "group=[3, 2]")


def case_per_query_lists_of_equal_length(tmp: Path) -> str | None:
    return own_error(lambda: evaluate([[2, 0], [1, 0]], [[0.9, 0.1], [0.2, 0.8]],
                                      metrics="ndcg@10"), "labels", "group=[2, 2]")


def case_per_query_arrays_of_scores_beside_flat_labels(tmp: Path) -> str | None:
    return own_error(lambda: evaluate(Y, [np.array([0.9, 0.1, 0.5]), np.array([0.2, 0.8])],
                                      group=[3, 2], metrics="ndcg@10"), "scores", "group=[3, 2]")


def case_a_timestamp_score_is_not_called_text(tmp: Path) -> str | None:
    frame = _frame().assign(score=pd.to_datetime(pd.Series(S) * 1e9))
    problem = own_error(lambda: evaluate(frame, metrics="ndcg@10"), "score", "Timestamp")
    _, exc = call(lambda: evaluate(frame, metrics="ndcg@10"))
    return problem or ("the hint calls a Timestamp text" if "text is not parsed" in str(exc)
                       else None)


def case_datasets_info_reads_a_stand_in_fold_as_run_does(tmp: Path) -> str | None:
    res = cli(tmp, "datasets", "info", "synthetic-mslr30k:0.01:Fold3", "--data-dir", str(tmp))
    if res.traceback or res.status != 0:
        return f"exit {res.status}: {res.err.strip()[-200:]}"
    return None if "synthetic-mslr30k" in res.out else f"printed {res.out[:100]!r}"


def _convert_ignoring(*argv: str, words: tuple[str, ...]) -> Case:
    def case(tmp: Path) -> str | None:
        (tmp / "r.csv").write_bytes(RATINGS)
        pd.read_csv(tmp / "r.csv").to_parquet(tmp / "r.parquet")
        (tmp / "ml").mkdir()
        (tmp / "ml" / "u.data").write_text("1\t2\t3\t881250949\n")
        return refused(cli(tmp, "convert", *argv, "--out", "o"), *words)
    return case


_TABLE = ("--user", "user", "--item", "item", "--rating", "rating", "--timestamp", "timestamp")
IGNORED: dict[str, Case] = {
    "convert synthetic with --user": _convert_ignoring(
        "--ratings", "synthetic", "--user", "u", words=("--user", "synthetic")),
    "convert synthetic with --sep": _convert_ignoring(
        "--ratings", "synthetic", "--sep", ";", words=("--sep", "synthetic")),
    "convert a table with --synthetic-users": _convert_ignoring(
        "--ratings", "r.csv", *_TABLE, "--synthetic-users", "50",
        words=("--synthetic-users", "r.csv")),
    "convert a Parquet table with --sep": _convert_ignoring(
        "--ratings", "r.parquet", *_TABLE, "--sep", ";", words=("--sep", "Parquet")),
    "convert MovieLens files with --duplicates last": _convert_ignoring(
        "--ratings", "ml", "--duplicates", "last", words=("--duplicates", "MovieLens")),
}


FIXED: dict[str, Case] = {
    **IGNORED,
    **{f"ratings table with separator {sep!r}": _table(sep) for sep in ("..", "||", "$$")},
    **{n[5:]: f for n, f in list(globals().items()) if n.startswith("case_") and callable(f)},
}


def _probe_guards() -> dict[str, Case]:
    """Odd but readable spellings, and values that must be refused, on the file readers."""
    want = _arrays_ndcg()

    def svm(d: bytes, *words: str) -> Case:
        def case(tmp: Path) -> str | None:
            (tmp / "d.txt").write_bytes(d)
            (tmp / "s.txt").write_bytes(b"0.9\n0.1\n0.5\n0.2\n0.8\n")
            res = cli(tmp, "evaluate", "--data", "d.txt", "--scores", "s.txt", "--metrics",
                      "ndcg@10", "--format", "csv")
            return value_or_refused(res, "ndcg@10", want, *words)
        return case

    def ratings(text: str, users: int) -> Case:
        def case(tmp: Path) -> str | None:
            (tmp / "r.csv").write_text("user,item,rating,timestamp\n" + text)
            got, exc = call(lambda: load_ratings_table(tmp / "r.csv", **COLS))
            if exc is not None:
                return f"{type(exc).__name__}: {exc}"
            n = got.frame.user.nunique()
            return None if n == users else f"{n} users, expected {users}"
        return case

    def run_dict(run: Any, *words: str) -> Case:
        return lambda tmp: own_error(lambda: evaluate_trec({"1": {"a": 1}}, run,
                                                           metrics=["ndcg_cut_10"]), *words)

    mine = b"2 qid:1 1:0.5 2:1\n0 qid:1 1:0.1\n1 qid:1 2:0.3\n1 qid:2 1:0.2\n0 qid:2 1:0.9\n"
    return {
        "svmlight qid -2": svm(mine.replace(b"qid:2", b"qid:-2"), "d.txt:4"),
        "svmlight tab separated": svm(mine.replace(b" ", b"\t"), "d.txt:1"),
        "svmlight value 1e-400": svm(mine.replace(b"1:0.2", b"1:1e-400"), "d.txt:4"),
        "ratings ids 001 and 1": ratings("001,2,3,5\n1,3,4,6\n", 1),
        "ratings ids 001, 1 and abc": ratings("001,2,3,5\n1,3,4,6\nabc,3,4,6\n", 2),
        "run dict score None": run_dict({"1": {"a": None}}, "a"),
        "run dict score text": run_dict({"1": {"a": "0.5"}}, "a"),
        "datasets info of a stand-in's Fold9": lambda tmp: refused(cli(
            tmp, "datasets", "info", "synthetic-mslr30k:0.01:Fold9", "--data-dir", str(tmp)),
            "Fold9"),
    }


# ------------------------------------------------------------------ guards (passed before)
def _frame_guards() -> dict[str, Case]:
    want = _arrays_ndcg()

    def ev(frame: pd.DataFrame) -> Callable[[], Any]:
        return lambda: evaluate(frame, metrics="ndcg@10")

    def number(change: Callable[[pd.DataFrame], pd.DataFrame]) -> Case:
        return lambda tmp: _ndcg_of(ev(change(_frame())), want)

    def error(change: Callable[[pd.DataFrame], pd.DataFrame], *words: str) -> Case:
        return lambda tmp: own_error(ev(change(_frame())), *words)

    arrow = {"qid": pd.ArrowDtype(pa.int64()), "label": pd.ArrowDtype(pa.int64()),
             "score": pd.ArrowDtype(pa.float64())}
    return {
        "categorical label column": number(lambda f: f.astype({"label": "category"})),
        "categorical text qid column": number(
            lambda f: f.assign(qid=f.qid.astype(str).astype("category"))),
        "pyarrow-backed columns": number(lambda f: f.astype(arrow)),
        "string[pyarrow] qid": number(lambda f: f.assign(qid=f.qid.astype(str).astype(
            "string[pyarrow]"))),
        "duplicated index": number(lambda f: f.set_axis([0, 0, 1, 1, 1])),
        "qid as the index": number(lambda f: f.set_index("qid")),
        "sparse score column": number(lambda f: f.assign(score=pd.arrays.SparseArray(S))),
        "Int64 label with <NA>": error(lambda f: f.assign(label=pd.array(
            [2, None, 1, 1, 0], dtype="Int64")), "label", "row 2"),
        "pyarrow score with null": error(lambda f: f.assign(score=pd.array(
            [0.9, None, 0.5, 0.2, 0.8], dtype=pd.ArrowDtype(pa.float64()))), "score", "row 2"),
        "Decimal scores": error(lambda f: f.assign(score=pd.Series(
            [Decimal(str(x)) for x in S], dtype=object)), "score", "Decimal"),
        "datetime scores": error(lambda f: f.assign(score=pd.to_datetime(f.score * 1e9)),
                                 "score"),
        "complex scores": error(lambda f: f.assign(score=np.array(S) + 0j), "score"),
        "bytes beside text qids": error(lambda f: f.assign(qid=pd.Series(
            [b"1", "1", "1", "2", "2"], dtype=object)), "qid"),
        "no rows": error(lambda f: f.iloc[:0], "no rows"),
        "one row": lambda tmp: _ndcg_of(ev(_frame().iloc[:1]), 1.0),
    }


def _trec_guards() -> dict[str, Case]:
    want = pytrec(QD, RD, "ndcg_cut_10")
    qf = pd.DataFrame({"qid": QI, "docno": list("abcde"), "rel": [1, 0, 2, 1, 0]})
    rf = pd.DataFrame({"qid": QI, "docno": list("abcde"), "score": [0.4, 0.9, 0.1, 0.2, 0.8]})

    def trec(q: Any, r: Any) -> Callable[[], Any]:
        return lambda: evaluate_trec(q, r, metrics=["ndcg_cut_10"])

    def packed(name: str, data: bytes) -> Case:
        def case(tmp: Path) -> str | None:
            (tmp / "q.txt").write_bytes(QRELS)
            (tmp / name).write_bytes(data)
            res = cli(tmp, "evaluate", "--qrels", "q.txt", "--run", name, "--metrics",
                      "ndcg_cut_10", "--format", "csv")
            return value_or_refused(res, "ndcg_cut_10", want, name)
        return case

    n = 100_000
    many_q = pd.DataFrame({"qid": np.arange(n), "docno": "d", "rel": 1})
    many_r = pd.DataFrame({"qid": np.arange(n).astype(str), "docno": "d", "score": 0.5})
    return {
        "categorical docno frames": lambda tmp: _ndcg_of(trec(
            qf.assign(docno=pd.Categorical(qf.docno)), rf.assign(docno=pd.Categorical(
                rf.docno))), want, "ndcg_cut_10"),
        "run as a (qid, docno) Series": lambda tmp: _ndcg_of(trec(
            qf, rf.astype({"qid": str}).set_index(["qid", "docno"])["score"]), want,
            "ndcg_cut_10"),
        "10^5 queries of one document": lambda tmp: _ndcg_of(trec(many_q, many_r), 1.0,
                                                             "ndcg_cut_10"),
        "bool relevance": lambda tmp: own_error(trec(qf.assign(rel=qf.rel > 0), rf), "rel"),
        "run.bz2": packed("r.txt.bz2", bz2.compress(RUN)),
        "run.xz": packed("r.txt.xz", lzma.compress(RUN)),
        "run in a zip": packed("r.zip", _zipped(RUN)),
        "run in a tar.gz": packed("r.tar.gz", _tarred(RUN)),
        "truncated run.gz": lambda tmp: _truncated_gz(tmp),
    }


def _zipped(data: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("run.txt", data)
    return buf.getvalue()


def _tarred(data: bytes) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        info = tarfile.TarInfo("run.txt")
        info.size = len(data)
        tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _truncated_gz(tmp: Path) -> str | None:
    (tmp / "q.txt").write_bytes(QRELS)
    (tmp / "r.txt.gz").write_bytes(gzip.compress(RUN * 50)[:-30])
    return refused(cli(tmp, "evaluate", "--qrels", "q.txt", "--run", "r.txt.gz"), "r.txt.gz")


def _file_guards() -> dict[str, Case]:
    data = b"2 qid:1 1:0.5 2:1\n0 qid:1 1:0.1\n1 qid:1 2:0.3\n1 qid:2 1:0.2\n0 qid:2 1:0.9\n"
    scores = b"0.9\n0.1\n0.5\n0.2\n0.8\n"
    want = _arrays_ndcg()

    def svm(d: bytes, s: bytes, *words: str) -> Case:
        def case(tmp: Path) -> str | None:
            (tmp / "d.txt").write_bytes(d)
            (tmp / "s.txt").write_bytes(s)
            res = cli(tmp, "evaluate", "--data", "d.txt", "--scores", "s.txt", "--metrics",
                      "ndcg@10", "--format", "csv")
            return refused(res, *words) if words else value_or_refused(res, "ndcg@10", want)
        return case

    def parquet_list_feature(tmp: Path) -> str | None:
        pq.write_table(pa.table({"qid": [1, 1], "label": [1, 0], "emb": [[0.1], [0.2]]}),
                       tmp / "d.parquet")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _, exc = call(lambda: read_parquet(tmp / "d.parquet"))
        said = any("'emb'" in str(w.message) for w in caught)
        return None if exc is not None or said else "a list column left out in silence"

    def parquet_text_rating(tmp: Path) -> str | None:
        pq.write_table(pa.table({"user": [1, 1], "item": [2, 3], "rating": ["3.5", "four"],
                                 "timestamp": [5, 6]}), tmp / "r.parquet")
        return own_error(lambda: load_ratings_table(tmp / "r.parquet", **COLS),
                         "r.parquet", "row 2", "rating", "'four'")

    return {
        "svmlight feature given twice": svm(data.replace(b"1:0.5 2:1", b"1:0.5 1:1"), scores,
                                            "d.txt:1"),
        "svmlight qid 2.0": svm(data.replace(b"qid:2", b"qid:2.0"), scores, "d.txt:4"),
        "scores with a header": svm(data, b"score\n" + scores, "s.txt:1"),
        "LightGBM-style two-column scores": svm(data, scores.replace(b"\n", b"\t1\n"),
                                                "s.txt:1"),
        "scores with CR-only line ends": svm(data, scores.replace(b"\n", b"\r")),
        "a list column in a Parquet LETOR file": parquet_list_feature,
        "a text rating column in Parquet": parquet_text_rating,
    }


GUARDS: dict[str, Case] = {**_frame_guards(), **_trec_guards(), **_file_guards(),
                           **_probe_guards()}
CASES: dict[str, Case] = {**FIXED, **GUARDS}


@pytest.mark.parametrize("name", list(CASES))
def test_case(name: str, tmp_path: Path) -> None:
    problem = CASES[name](tmp_path)
    assert problem is None, f"{name}: {problem}"


def test_dask_reads_a_multi_character_separator_literally(tmp_path: Path) -> None:
    pytest.importorskip("dask.dataframe")
    import dask

    from bench.data.dask_ratings import read_ratings_frame

    _table("..")(tmp_path)  # writes r.txt with '..' and r.csv with ','
    (tmp_path / "r.txt").rename(tmp_path / "dots.csv")
    with dask.config.set(scheduler="synchronous"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = read_ratings_frame(tmp_path / "dots.csv", sep="..", **COLS).frame.compute()
    assert got["user"].tolist() == [12, 12, 34, 34]


def test_the_round_has_its_share_of_cases() -> None:
    assert len(FIXED) >= 12
    assert len(CASES) >= 40
