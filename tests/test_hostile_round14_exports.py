"""Round 14, hostile (issue 19): a data engineer feeding ltrbench what other tools export.

Spreadsheet exports (Excel / Google Sheets / LibreOffice: decimal commas, BOM + CRLF + quoted
numbers, trailing empty columns, the workbooks themselves), database dumps (``\\N`` NULLs),
files whose name says compressed but whose bytes are text, LETOR / TREC files written by other
scripts (scikit-learn's ``dump_svmlight_file``, tabs, comments), Parquet written by pandas (its
index as a column) and Python inputs NumPy reshapes silently (a list mixing ``1.0`` and ``"1"``).

Oracles: scikit-learn's svmlight reader and writer, pytrec_eval, the same rows given plainly,
hand arithmetic, "input bytes unchanged", "exit 2 and the message names the file, line/row and
column and what was expected". Found on the base: tracebacks for text named ``.xz``/``.zip``/
``.zst``/``.tar``, a ``\\N`` read as a user, NumPy turning ``[1.0, "1"]``, ``[True, "a"]`` and
``["a", nan]`` into the texts ``"1.0"``, ``"True"`` and ``"nan"`` (a query split or made up),
pandas' index column read as a feature, an ``.xlsx`` refused with "unzip it".
"""

from __future__ import annotations

import bz2
import io
import math
import warnings
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from tests.hostile_kit import QRELS, RUN, api_refused, call, cli, csv_values, pytrec, refused

RATINGS_CSV = b"user,item,rating,timestamp\n1,10,4,100\n1,11,3,200\n2,10,5,300\n2,12,2,400\n"
PLAIN = [[1, 10, 4.0, 100], [1, 11, 3.0, 200], [2, 10, 5.0, 300], [2, 12, 2.0, 400]]
LAB = [2, 0, 1, 0, 1, 0]
SC = [0.9, 0.8, 0.1, 0.3, 0.3, 0.7]
QID = ["q1", "q1", "q1", "q2", "q2", "q2"]


def _ratings(path: Path, **kw: Any) -> Any:
    from bench.data.tabular import load_ratings_table

    kw = {"user": "user", "item": "item", "rating": "rating", "timestamp": "timestamp", **kw}
    return load_ratings_table(path, **kw)


def _rows(r: Any) -> list[list[float]]:
    return r.frame[["user", "item", "rating", "timestamp"]].to_numpy().tolist()


def _eval(*args: Any, **kw: Any) -> Any:
    from bench.metrics import evaluate

    kw.setdefault("metrics", "ndcg@3")
    return evaluate(*args, **kw)


# ------------------------------------------------- text named as compressed (pandas decompressed it)
@pytest.mark.parametrize("ext", ["csv.gz", "csv.bz2", "csv.xz", "csv.zst", "csv.zip", "csv.tar"])
def test_a_text_ratings_table_named_as_compressed_is_read_as_the_text_it_is(
        tmp_path: Path, ext: str) -> None:
    """Base: ``.xz`` ``LZMAError``, ``.zip`` ``BadZipFile``, ``.zst`` ``ImportError``, ``.tar``
    ``ReadError`` tracebacks; ``.gz`` / ``.bz2`` "Not a gzipped file" without the file. Bytes
    that are compressed are refused by their signature (tested elsewhere): these are text."""
    p = tmp_path / f"ratings.{ext}"
    p.write_bytes(RATINGS_CSV)
    got, exc = call(lambda: _ratings(p))
    assert exc is None, f"{type(exc).__name__}: {exc}"
    assert _rows(got) == PLAIN


def test_a_text_ratings_table_named_xz_is_guessed_as_run_dataset_reads_it(tmp_path: Path) -> None:
    """``run --dataset ratings.csv.xz`` guesses the columns from the header first (base:
    ``LZMAError`` traceback from pandas' sniffer)."""
    from bench.datasets.resolve import _load_table_guessing_columns

    p = tmp_path / "ratings.csv.xz"
    p.write_bytes(RATINGS_CSV)
    got, exc = call(lambda: _load_table_guessing_columns(p))
    assert exc is None, f"{type(exc).__name__}: {exc}"
    assert _rows(got) == PLAIN


def test_a_real_bzip2_ratings_table_is_still_refused_naming_bunzip2(tmp_path: Path) -> None:
    p = tmp_path / "ratings.csv.bz2"
    p.write_bytes(bz2.compress(RATINGS_CSV))
    assert api_refused(call(lambda: _ratings(p))[1], "ratings.csv.bz2:1", "bzip2",
                       "bunzip2") is None


# -------------------------------------------------------------------- spreadsheet workbooks
def _xlsx() -> bytes:
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("xl/workbook.xml", "<workbook/>")
    return b.getvalue()


def _ods() -> bytes:
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
        z.writestr("content.xml", "<office:document-content/>")
    return b.getvalue()


XLS = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504)


@pytest.mark.parametrize(("name", "data", "word"), [
    ("ratings.xlsx", _xlsx(), "xlsx"), ("ratings.ods", _ods(), "ods"),
    ("ratings.xls", XLS, "xls")])
def test_a_workbook_given_as_ratings_is_refused_saying_save_as_csv(
        tmp_path: Path, name: str, data: bytes, word: str) -> None:
    """Base: an ``.xlsx`` was "zip-compressed: unzip FILE" (which gives XML, no table); an
    ``.xls`` "cannot tell the column separator". Its bytes stay as they were."""
    (tmp_path / name).write_bytes(data)
    res = cli(tmp_path, "convert", "--ratings", name, "--layout", "csv", "--user", "user",
              "--item", "item", "--out", "out")
    assert refused(res, f"{name}:1", word, "CSV") is None, res.err
    assert (tmp_path / name).read_bytes() == data
    assert not (tmp_path / "out").exists()


def test_a_workbook_given_as_qrels_is_refused_saying_save_as_csv(tmp_path: Path) -> None:
    (tmp_path / "qrels.xlsx").write_bytes(_xlsx())
    (tmp_path / "run.txt").write_bytes(RUN)
    res = cli(tmp_path, "evaluate", "--qrels", "qrels.xlsx", "--run", "run.txt")
    assert refused(res, "qrels.xlsx:1", "xlsx", "CSV") is None, res.err


def test_an_xls_workbook_given_as_scores_is_refused_saying_save_as_csv(tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_bytes(b"1 qid:1 1:0.5\n0 qid:1 1:0.1\n")
    (tmp_path / "s.xls").write_bytes(XLS)
    res = cli(tmp_path, "evaluate", "--data", "d.txt", "--scores", "s.xls")
    assert refused(res, "s.xls:1", "xls", "CSV") is None, res.err


def test_a_plain_zip_is_still_refused_naming_unzip(tmp_path: Path) -> None:
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w") as z:
        z.writestr("ratings.csv", RATINGS_CSV)
    (tmp_path / "ratings.zip").write_bytes(b.getvalue())
    assert api_refused(call(lambda: _ratings(tmp_path / "ratings.zip"))[1], "ratings.zip:1",
                       "zip-compressed", "unzip") is None


# ------------------------------------------------------------------- database dumps: \N
@pytest.mark.parametrize("role", ["user", "item"])
def test_a_database_null_id_is_refused_not_read_as_an_id(tmp_path: Path, role: str) -> None:
    """MySQL ``SELECT ... INTO OUTFILE`` and PostgreSQL ``COPY`` write NULL as ``\\N``. Base:
    ``\\N`` became a user (text ids numbered: ``['2', '\\\\N']``), holding every NULL row."""
    line = b"\\N,10,4,100\n" if role == "user" else b"1,\\N,4,100\n"
    p = tmp_path / "dump.csv"
    p.write_bytes(b"user,item,rating,timestamp\n" + line + b"2,11,3,200\n")
    assert api_refused(call(lambda: _ratings(p))[1], "dump.csv:2", f"'{role}'", "\\N",
                       "missing") is None


def test_a_postgres_copy_tsv_with_a_null_user_is_refused_naming_its_line(tmp_path: Path) -> None:
    p = tmp_path / "ratings.tsv"
    p.write_bytes(b"user\titem\trating\ttimestamp\n1\t10\t4\t100\n\\N\t11\t3\t200\n")
    assert api_refused(call(lambda: _ratings(p))[1], "ratings.tsv:3", "'user'", "NULL") is None


def test_a_database_null_id_in_a_parquet_text_column_is_refused(tmp_path: Path) -> None:
    p = tmp_path / "r.parquet"
    pd.DataFrame({"user": ["a", "\\N", "b"], "item": [1, 2, 3], "rating": [4.0, 3.0, 2.0],
                  "timestamp": [1, 2, 3]}).to_parquet(p)
    assert api_refused(call(lambda: _ratings(p))[1], "r.parquet", "row 2", "'user'",
                       "missing") is None


# ------------------------------------------------------------- spreadsheet numbers and text
def test_a_decimal_comma_rating_is_refused_naming_the_decimal_comma(tmp_path: Path) -> None:
    """A German Excel export: ``;`` between fields, ``4,5`` for 4.5."""
    p = tmp_path / "r.txt"
    p.write_bytes(b"user;item;rating\n1;10;4,5\n2;11;3,5\n")
    assert api_refused(call(lambda: _ratings(p, timestamp=None))[1], "r.txt:2", "'rating'",
                       "'4,5'", "decimal comma") is None


def test_a_decimal_comma_score_in_a_trec_run_is_refused_naming_it(tmp_path: Path) -> None:
    (tmp_path / "q.txt").write_bytes(QRELS)
    (tmp_path / "r.txt").write_bytes(RUN.replace(b"0.4", b"0,4"))
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt")
    assert refused(res, "r.txt:1", "score", "'0,4'", "decimal comma") is None, res.err


def test_a_thousands_separator_in_a_scores_file_is_refused_naming_it(tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_bytes(b"1 qid:1 1:0.5\n0 qid:1 1:0.1\n")
    (tmp_path / "s.txt").write_bytes(b"1,250\n0.5\n")
    res = cli(tmp_path, "evaluate", "--data", "d.txt", "--scores", "s.txt")
    assert refused(res, "s.txt:1", "'1,250'", "thousands separator") is None, res.err


def test_a_google_sheets_export_reads_as_the_plain_table(tmp_path: Path) -> None:
    """BOM, CRLF, every cell quoted, a trailing empty column on every line (header too)."""
    rows = [b'"user","item","rating","timestamp",']
    rows += [b",".join(b'"%s"' % str(v).encode() for v in (u, i, int(r), t)) + b","
             for u, i, r, t in PLAIN]
    p = tmp_path / "export.csv"
    p.write_bytes(b"\xef\xbb\xbf" + b"\r\n".join(rows) + b"\r\n")
    assert _rows(_ratings(p)) == PLAIN


def test_a_cp1252_id_is_refused_naming_line_and_byte_and_left_intact(tmp_path: Path) -> None:
    data = b"user,item,rating,timestamp\n1,10,4,100\n\x93u2\x94,11,3,200\n"
    p = tmp_path / "r.csv"
    p.write_bytes(data)
    assert api_refused(call(lambda: _ratings(p))[1], "r.csv:3", "UTF-8", "0x93") is None
    assert p.read_bytes() == data


def test_excel_true_false_ratings_are_refused_naming_line_and_column(tmp_path: Path) -> None:
    p = tmp_path / "r.csv"
    p.write_bytes(b"user,item,rating\n1,10,TRUE\n2,11,FALSE\n")
    assert api_refused(call(lambda: _ratings(p, timestamp=None))[1], "r.csv:2",
                       "'rating'") is None


# ------------------------------------------------------- LETOR files other scripts wrote
def _sk_dump(zero_based: bool) -> tuple[bytes, Any, Any, Any]:
    from sklearn.datasets import dump_svmlight_file

    X = np.array([[0.5, 1.0], [0.1, 0.0], [0.0, 0.3], [0.2, 0.0], [0.9, 0.0]])
    y = np.array([2, 0, 1, 1, 0])
    q = np.array([1, 1, 1, 2, 2])
    b = io.BytesIO()
    dump_svmlight_file(X, y, b, query_id=q, zero_based=zero_based,
                       comment="exported by a pipeline")
    return b.getvalue(), X, y, q


def test_a_zero_based_scikit_learn_dump_is_refused_naming_zero_based(tmp_path: Path) -> None:
    data, *_ = _sk_dump(zero_based=True)
    (tmp_path / "d.txt").write_bytes(data)
    (tmp_path / "s.txt").write_bytes(b"0.9\n0.1\n0.5\n0.2\n0.8\n")
    res = cli(tmp_path, "evaluate", "--data", "d.txt", "--scores", "s.txt")
    assert refused(res, "d.txt:", "feature index 0", "zero_based=False") is None, res.err


def test_a_one_based_scikit_learn_dump_reads_as_scikit_learn_reads_it(tmp_path: Path) -> None:
    from sklearn.datasets import load_svmlight_file

    from bench.data.svmlight import read_svmlight

    data, X, y, q = _sk_dump(zero_based=False)
    p = tmp_path / "d.txt"
    p.write_bytes(data)
    sx, sy, sq = load_svmlight_file(str(p), query_id=True, zero_based=False)
    assert np.array_equal(sy, y)
    assert np.array_equal(sq, q)
    assert np.array_equal(sx.toarray(), X)
    got = read_svmlight(p)
    assert np.array_equal(got.y, sy)
    assert np.array_equal(got.qid, sq)
    assert np.array_equal(got.X, sx.toarray().astype(got.X.dtype))


def test_a_letor_file_with_tabs_crlf_comments_and_no_final_newline_scores_as_plain(
        tmp_path: Path) -> None:
    """Oracle: the same rows given plainly (hand: q1 ndcg@3 and q2 as below, mean 0.8155)."""
    plain = b"2 qid:1 1:0.5 2:1\n0 qid:1 1:0.1\n1 qid:1 2:0.3\n1 qid:2 1:0.2\n0 qid:2 1:0.9\n"
    messy = (b"# exported by feature-pipeline v2\r\n2\tqid:1\t1:0.5  2:1 # doc=a\r\n"
             b"0   qid:1 1:0.1\r\n\r\n1 qid:1\t2:0.3\t\r\n1 qid:2 1:0.2 #doc=d\r\n0 qid:2 1:0.9")
    scores = b"0.9\n0.1\n0.5\n0.2\n0.8\n"
    vals = []
    for name, data in (("plain.txt", plain), ("messy.txt", messy)):
        (tmp_path / name).write_bytes(data)
        (tmp_path / f"{name}.s").write_bytes(scores)
        res = cli(tmp_path, "evaluate", "--data", name, "--scores", f"{name}.s", "--metrics",
                  "ndcg@3", "--format", "csv")
        assert res.status == 0, res.err
        vals.append(csv_values(res)["ndcg@3"])
    # q1: scores 0.9, 0.1, 0.5 -> labels 2, 1, 0; q2: 0.8, 0.2 -> labels 0, 1
    q1 = (3 + 1 / math.log2(3)) / (3 + 1 / math.log2(3))
    q2 = (1 / math.log2(3)) / 1.0
    assert vals[0] == pytest.approx((q1 + q2) / 2, abs=1e-12)
    assert vals[1] == vals[0]


def test_a_trec_run_with_tabs_crlf_and_comments_equals_pytrec_eval(tmp_path: Path) -> None:
    run = (b"# run exported by a script\r\n" + RUN.replace(b" ", b"\t").replace(b"\n", b"\r\n"))
    (tmp_path / "q.txt").write_bytes(QRELS)
    (tmp_path / "r.txt").write_bytes(run)
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics", "map",
              "--format", "csv")
    qrels = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"d": 1, "e": 0}}
    runs = {"1": {"a": 0.4, "b": 0.9, "c": 0.1}, "2": {"d": 0.2, "e": 0.8}}
    assert res.status == 0, res.err
    assert csv_values(res)["map"] == pytest.approx(pytrec(qrels, runs, "map"), abs=1e-12)


def test_zero_padded_qrels_ids_are_other_queries_as_in_pytrec_eval(tmp_path: Path) -> None:
    """A database exported query ``2`` as ``02`` in the qrels only: text ids, so no match."""
    (tmp_path / "q.txt").write_bytes(QRELS.replace(b"2 0 d", b"02 0 d").replace(b"2 0 e",
                                                                                 b"02 0 e"))
    (tmp_path / "r.txt").write_bytes(RUN)
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics", "map",
              "--format", "csv")
    qrels = {"1": {"a": 1, "b": 0, "c": 2}, "02": {"d": 1, "e": 0}}
    runs = {"1": {"a": 0.4, "b": 0.9, "c": 0.1}, "2": {"d": 0.2, "e": 0.8}}
    assert res.status == 0, res.err
    assert csv_values(res)["map"] == pytest.approx(pytrec(qrels, runs, "map"), abs=1e-12)


# --------------------------------------------------- Parquet written by pandas: its index
def _letor_frame() -> pd.DataFrame:
    return pd.DataFrame({"qid": [1, 1, 1, 2, 2, 2], "label": [2, 0, 1, 0, 1, 0],
                         "f1": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]})


def _read_letor_parquet(p: Path) -> tuple[Any, list[str]]:
    from bench.data.parquet import read_parquet

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data = read_parquet(p)
    return data, [str(w.message) for w in caught]


def test_pandas_index_written_by_to_parquet_is_no_feature(tmp_path: Path) -> None:
    """``df.sort_values(...).to_parquet()`` writes the old row numbers as ``__index_level_0__``.
    Base: read as a second feature (the row order of a file sorted by label is the label)."""
    p = tmp_path / "train.parquet"
    _letor_frame().sort_values(["qid", "label"]).to_parquet(p)
    data, said = _read_letor_parquet(p)
    assert data.feature_names == ("f1",)
    assert any("__index_level_0__" in s and "index" in s for s in said), said


def test_a_named_pandas_index_is_no_feature_and_is_said(tmp_path: Path) -> None:
    p = tmp_path / "train.parquet"
    _letor_frame().set_index(pd.Index([7, 3, 9, 1, 4, 8], name="row_id")).to_parquet(p)
    data, said = _read_letor_parquet(p)
    assert data.feature_names == ("f1",)
    assert any("'row_id'" in s for s in said), said


def test_a_qid_index_written_by_pandas_is_still_the_query_id(tmp_path: Path) -> None:
    p = tmp_path / "train.parquet"
    _letor_frame().set_index("qid").to_parquet(p)
    data, _ = _read_letor_parquet(p)
    assert data.feature_names == ("f1",)
    assert data.qid.tolist() == [1, 1, 1, 2, 2, 2]


def test_a_frame_index_of_a_pyarrow_table_is_no_input_of_evaluate_trec() -> None:
    """``pa.Table.from_pandas`` of a filtered frame carries ``__index_level_0__`` too."""
    import pyarrow as pa

    from bench.metrics import evaluate_trec

    qf = pd.DataFrame({"query_id": ["1", "1", "1"], "doc_id": ["a", "b", "c"],
                       "relevance": [1, 0, 2]}).iloc[[2, 0, 1]]
    rf = pd.DataFrame({"query_id": ["1", "1", "1"], "doc_id": ["a", "b", "c"],
                       "score": [0.4, 0.9, 0.1]}).iloc[[1, 2, 0]]
    got = evaluate_trec(pa.Table.from_pandas(qf), pa.Table.from_pandas(rf), metrics=["map"])
    want = pytrec({"1": {"a": 1, "b": 0, "c": 2}}, {"1": {"a": 0.4, "b": 0.9, "c": 0.1}}, "map")
    assert got.metrics["map"] == pytest.approx(want, abs=1e-12)


# ------------------------------------------- Python lists NumPy would turn into text silently
@pytest.mark.parametrize(("qid", "row", "words"), [
    ([1.0, 1.0, "1", 2, 2, 2], 1, ("float", "text")),
    ([True, True, "1", "2", "2", "2"], 1, ("bool",)),
    (["a", "a", "a", float("nan"), float("nan"), float("nan")], 4, ("missing",)),
    ((1.5, 1.5, 1.5, "b", "b", "b"), 1, ("float",)),
    (["a", "a", "a", np.float64(2.0), np.float64(2.0), np.float64(2.0)], 4, ("float",)),
], ids=["float-and-text", "bool-and-text", "nan-among-text", "tuple-float-and-text",
        "numpy-float-among-text"])
def test_a_qid_list_mixing_text_and_no_text_is_refused_naming_the_row(
        qid: Any, row: int, words: tuple[str, ...]) -> None:
    """Base: NumPy made the texts ``"1.0"`` and ``"1"`` (query 1 split in two: ndcg@3 0.855,
    not 0.765), ``"True"`` and ``"nan"`` (a missing id became query ``nan``)."""
    assert api_refused(call(lambda: _eval(LAB, SC, qid=qid))[1], f"row {row}", "query id",
                       *words) is None


def test_a_docno_list_mixing_a_float_and_text_is_refused() -> None:
    exc = call(lambda: _eval(LAB, SC, qid=QID, docno=[1.0, "1", "3", "4", "5", "6"],
                             profile="trec_eval"))[1]
    assert api_refused(exc, "row 1", "document id", "float") is None


def test_a_qid_list_mixing_integers_and_their_text_is_one_query() -> None:
    want = _eval(LAB, SC, qid=[1, 1, 1, 2, 2, 2]).metrics["ndcg@3"]
    got = _eval(LAB, SC, qid=[1, "1", np.int64(1), "2", 2, "2"]).metrics["ndcg@3"]
    assert got == want


def test_a_text_qid_list_is_not_slowed_or_changed_by_the_check() -> None:
    got = _eval(LAB, SC, qid=QID, per_query=True)
    assert got.per_query["qid"].tolist() == ["q1", "q2"]


# ------------------------------------------------------ pandas / pyarrow column types
def _frame() -> pd.DataFrame:
    return pd.DataFrame({"qid": QID, "label": LAB, "score": SC})


def _want() -> float:
    return float(_eval(LAB, SC, qid=QID).metrics["ndcg@3"])


@pytest.mark.parametrize("convert", [
    lambda f: f.astype({"qid": "string[pyarrow]", "label": "Int64", "score": "Float64"}),
    lambda f: f.convert_dtypes(dtype_backend="pyarrow"),
    lambda f: f.assign(qid=pd.Categorical(f.qid, categories=["q0", "q1", "q2", "q9"])),
    lambda f: f.assign(label=f.label.astype("uint8"), score=f.score.astype("float32")),
    lambda f: f.set_index(["qid", "label"]),
], ids=["nullable", "arrow-backed", "categorical-unused", "narrow", "multiindex"])
def test_a_frame_of_exported_column_types_scores_as_the_plain_arrays(convert: Any) -> None:
    got = _eval(convert(_frame())).metrics["ndcg@3"]
    assert got == pytest.approx(_want(), abs=1e-6)


def test_pyarrow_chunked_arrays_score_as_the_plain_arrays() -> None:
    import pyarrow as pa

    got = _eval(pa.chunked_array([LAB[:2], LAB[2:]]), pa.chunked_array([SC[:4], SC[4:]]),
                qid=pa.chunked_array([QID[:1], QID[1:]])).metrics["ndcg@3"]
    assert got == _want()


def test_a_nullable_label_with_a_missing_value_is_refused_naming_row_and_column() -> None:
    f = _frame().astype({"label": "Int64"})
    f.loc[2, "label"] = pd.NA
    assert api_refused(call(lambda: _eval(f))[1], "row 3", "'label'", "missing") is None


def test_an_arrow_string_qid_with_a_missing_value_is_refused_naming_the_row() -> None:
    f = _frame().assign(qid=pd.array(["q1", "q1", "q1", None, "q2", "q2"],
                                     dtype="string[pyarrow]"))
    assert api_refused(call(lambda: _eval(f))[1], "row 4", "'qid'", "missing") is None


# ------------------------------------------- LetorData.build (run(splits=...)) from a frame
def _features() -> pd.DataFrame:
    return pd.DataFrame({"f1": [0.1, 0.2, 0.3, 0.4], "f2": [1, 0, 1, 0]})


@pytest.mark.parametrize("convert", [
    lambda f: f.astype({"f2": "Int64"}),
    lambda f: f.convert_dtypes(dtype_backend="pyarrow"),
    lambda f: f.assign(f2=f.f2.astype(bool)),
    lambda f: f.assign(f2=f.f2.astype("boolean")),
], ids=["nullable-int", "arrow-backed", "bool", "nullable-bool"])
def test_letor_data_from_a_frame_of_exported_column_types_equals_the_plain_matrix(
        convert: Any) -> None:
    """Base: "X must be real numbers; got dtype object" (NumPy makes such a frame one object
    array), naming no column, for columns that are real numbers."""
    from bench.data.letor import LetorData

    want = LetorData.build(_features().to_numpy(), [1, 0, 1, 0], qid=[1, 1, 2, 2])
    got, exc = call(lambda: LetorData.build(convert(_features()), [1, 0, 1, 0], qid=[1, 1, 2, 2]))
    assert exc is None, f"{type(exc).__name__}: {exc}"
    assert np.array_equal(got.X, want.X)


def test_letor_data_from_a_frame_with_a_text_category_is_refused_naming_the_column() -> None:
    from bench.data.letor import LetorData

    X = _features().assign(genre=pd.Categorical(["a", "b", "a", "b"]))
    exc = call(lambda: LetorData.build(X, [1, 0, 1, 0], qid=[1, 1, 2, 2]))[1]
    assert api_refused(exc, "'genre'", "column 3", "category") is None


def test_letor_data_with_a_bool_among_integer_qids_is_refused_naming_the_row() -> None:
    """Base: NumPy made ``[True, 1, 2, 2]`` the ids ``[1, 1, 2, 2]``: two queries joined."""
    from bench.data.letor import LetorData

    exc = call(lambda: LetorData.build(_features().to_numpy(), [1, 0, 1, 0],
                                       qid=[True, 1, 2, 2]))[1]
    assert api_refused(exc, "row 1", "qid", "bool") is None


@pytest.mark.parametrize("name", ["mq2008.dat", "fold1.svm.gz", "train"])
def test_a_single_letor_file_of_any_name_is_said_to_be_one(tmp_path: Path, name: str) -> None:
    """``run --dataset mq2008.dat``: base said "cannot tell the user and item columns from the
    header ['2', 'qid:1', '1:0.5']" (read as a ratings table) unless named ``.txt``/``.svm``."""
    from bench.datasets.resolve import load_path

    (tmp_path / name).write_bytes(b"2 qid:1 1:0.5 2:1\n0 qid:1 1:0.1\n")
    assert api_refused(call(lambda: load_path(tmp_path / name))[1], name,
                       "a single LETOR file", "train/vali/test") is None


def test_an_empty_dat_file_is_still_an_empty_ratings_table(tmp_path: Path) -> None:
    from bench.datasets.resolve import load_path

    (tmp_path / "r.dat").write_bytes(b"")
    assert api_refused(call(lambda: load_path(tmp_path / "r.dat"))[1], "r.dat",
                       "empty") is None


def test_a_quoted_header_after_comma_space_names_its_columns(tmp_path: Path) -> None:
    """``"user", "item", "rating"`` (a ``", "``-separated export with quoted names): the data
    lines are read skipping the space (pandas' ``skipinitialspace``); base read the header
    without it and refused ``'item'`` as absent (columns ``['user', '"item"', ...]``)."""
    p = tmp_path / "r.csv"
    p.write_bytes(b'"user", "item", "rating", "timestamp"\n' + b"".join(
        b"%d, %d, %d, %d\n" % (u, i, int(r), t) for u, i, r, t in PLAIN))
    got, exc = call(lambda: _ratings(p))
    assert exc is None, f"{type(exc).__name__}: {exc}"
    assert _rows(got) == PLAIN


def test_a_quoted_id_holding_the_separator_after_a_space_is_one_field(tmp_path: Path) -> None:
    """``1, "x, y", 4``: pandas reads three fields (``skipinitialspace``); base's field-count
    check read four and refused the line."""
    p = tmp_path / "r.csv"
    p.write_bytes(b'user, item, rating\n1, "x, y", 4\n2, "z", 3\n')
    got, exc = call(lambda: _ratings(p, timestamp=None))
    assert exc is None, f"{type(exc).__name__}: {exc}"
    assert got.items.external_id.tolist() == ["x, y", "z"]


def test_two_fields_in_a_scores_line_get_no_decimal_comma_hint(tmp_path: Path) -> None:
    """``0.9,1`` is a CSV line of two fields, not a number with a comma: said as it is."""
    (tmp_path / "d.txt").write_bytes(b"1 qid:1 1:0.5\n0 qid:1 1:0.1\n")
    (tmp_path / "s.txt").write_bytes(b"0.9,1\n0.5,1\n")
    res = cli(tmp_path, "evaluate", "--data", "d.txt", "--scores", "s.txt")
    assert refused(res, "s.txt:1", "'0.9,1'", "not a plain decimal number") is None, res.err
    assert "decimal comma" not in res.err


@pytest.mark.parametrize("ext", ["csv.xz", "csv.gz"])
def test_the_dask_reader_reads_a_text_table_named_compressed_as_the_local_one(
        tmp_path: Path, ext: str) -> None:
    """``convert --engine dask --ratings r.csv.xz`` (text): base ``LZMAError`` traceback from
    ``dd.read_csv``'s guess by name. Computed in this process (no cluster)."""
    pytest.importorskip("dask.dataframe")
    from tests.dask_kit import dask_ratings, local_ratings

    p = tmp_path / f"r.{ext}"
    p.write_bytes(RATINGS_CSV)
    cols = {"user": "user", "item": "item", "rating": "rating", "timestamp": "timestamp"}
    got = call(lambda: dask_ratings(p, **cols))
    assert got[1] is None, f"{type(got[1]).__name__}: {got[1]}"
    want = local_ratings(p, **cols)
    assert got[0][["user", "item", "rating", "timestamp"]].to_numpy().tolist() == \
        want[["user", "item", "rating", "timestamp"]].to_numpy().tolist()


def test_the_dask_reader_refuses_a_database_null_id_as_the_local_one(tmp_path: Path) -> None:
    pytest.importorskip("dask.dataframe")
    from tests.dask_kit import dask_ratings

    p = tmp_path / "r.csv"
    p.write_bytes(RATINGS_CSV + b"\\N,11,3,500\n")
    exc = call(lambda: dask_ratings(p, user="user", item="item", rating="rating",
                                    timestamp="timestamp"))[1]
    assert api_refused(exc, "r.csv:6", "'user'", "\\N", "missing") is None
