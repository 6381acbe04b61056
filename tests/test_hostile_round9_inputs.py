"""Round 9: text readers and id arrays under inputs round 8 did not try.

Before this round: a TREC run (or qrels, or a run DataFrame / dict) with one very long id among
many rows ended in ``MemoryError`` (NumPy holds ids as fixed-width text, every id as wide as the
longest: one 1 MB document id among 100,000 lines asked for 391 GiB); now it is refused naming
the line (row, or the dict's keys, cut to one short line) and the length allowed
(:func:`bench.data.input_ids.text_array`). A lone long id is still read (round 8's 8 MB id).
The other cases are guards of the one id rule on every path: ids compare as text, so a run
given as a TREC file, a DataFrame with integer ids, a dict with ``np.int64`` keys and a
``(qid, docno)`` Series give pytrec_eval's number, and ``1.0``, ``True`` and ``b"1"`` are refused
on every path that can hold them.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import pytrec

from bench.data.trec import read_qrels, read_run
from bench.errors import DataError
from bench.metrics.trec import evaluate_trec

ROWS = 60_000  # with a 1,000,000-character id: 240 GB of fixed-width text, far over the 1 GiB limit
LONG = "x" * 1_000_000


def _run_lines(long_at_end: bool = True) -> str:
    lines = [f"{q} Q0 d{q}_{i} {i + 1} {1.0 / (i + 1)} t\n" for q in range(600) for i in range(100)]
    lines.append(f"600 Q0 {LONG} 1 0.5 t\n")
    return "".join(lines if long_at_end else lines[::-1])


def test_one_long_document_id_among_many_run_lines_is_refused_at_its_line(tmp_path: Path) -> None:
    (tmp_path / "r.txt").write_text(_run_lines())
    with pytest.raises(DataError, match=rf"r.txt:{ROWS + 1}, column 'docno': document id 'xxx.*"
                                        r"is 1,000,000 characters long: with 60,001 ids, expected "
                                        r"ids of at most 4,473 characters"):
        read_run(tmp_path / "r.txt")


def test_one_long_query_id_in_qrels_is_refused_at_its_line(tmp_path: Path) -> None:
    text = "".join(f"{q} 0 d{q}_{i} {i % 2}\n" for q in range(600) for i in range(100))
    (tmp_path / "q.txt").write_text(f"{LONG} 0 d 1\n" + text)
    with pytest.raises(DataError, match=r"q.txt:1, column 'qid': query id 'xxx.*1,000,000 "
                                        r"characters long"):
        read_qrels(tmp_path / "q.txt")


def test_one_long_tag_is_refused_too(tmp_path: Path) -> None:
    lines = [f"{q} Q0 d{i} {i + 1} 0.5 t\n" for q in range(600) for i in range(100)]
    (tmp_path / "r.txt").write_text("".join(lines) + f"600 Q0 d 1 0.5 {LONG}\n")
    with pytest.raises(DataError, match=r"column 'tag': run tag 'xxx"):
        read_run(tmp_path / "r.txt")


def test_a_lone_long_id_is_still_read(tmp_path: Path) -> None:
    (tmp_path / "r.txt").write_text(f"1 Q0 {LONG * 10} 1 0.5 t\n1 Q0 b 2 0.4 t\n")
    assert len(read_run(tmp_path / "r.txt").docno[0]) == 10_000_000


def test_a_long_id_in_a_run_frame_is_refused_at_its_row() -> None:
    run = pd.DataFrame({"qid": ["1"] * ROWS, "docno": [f"d{i}" for i in range(ROWS - 1)] + [LONG],
                        "score": np.linspace(1, 0, ROWS)})
    qrels = pd.DataFrame({"qid": ["1"], "docno": ["d1"], "rel": [1]})
    with pytest.raises(DataError, match=rf"run DataFrame, row {ROWS}, column 'docno': document "
                                        r"id 'xxx"):
        evaluate_trec(qrels, run, metrics=["ndcg"])


def test_a_long_key_in_a_run_dict_is_refused_on_one_short_line() -> None:
    run = {"1": {**{f"d{i}": 1.0 / (i + 1) for i in range(ROWS - 1)}, LONG: 0.0}}
    with pytest.raises(DataError, match=r"run dict: \['1'\]\['xxx.*\.\.\.\]: document id") as caught:
        evaluate_trec({"1": {"d1": 1}}, run, metrics=["ndcg"])
    assert len(str(caught.value)) < 400


def test_integer_ids_of_mixed_types_in_one_dict_are_one_query() -> None:
    """``np.int64(7)``, ``7`` and ``"7"`` are one query on every path (ids compare as text)."""
    q = {"7": {"a": 1, "b": 0, "c": 2}, "8": {"d": 1, "e": 0}}
    r = {"7": {"a": 0.4, "b": 0.9, "c": 0.1}, "8": {"d": 0.2, "e": 0.8}}
    want = pytrec(q, r, "ndcg_cut_10")
    mixed = {np.int64(7): r["7"], 8: r["8"]}
    got = evaluate_trec(q, mixed, metrics=["ndcg_cut_10"]).metrics["ndcg_cut_10"]
    assert got == pytest.approx(want, abs=1e-12)


def _frames() -> dict[str, Any]:
    q = pd.DataFrame({"qid": [7, 7, 7, 8, 8], "docno": list("abcde"), "rel": [1, 0, 2, 1, 0]})
    r = pd.DataFrame({"qid": [7, 7, 7, 8, 8], "docno": list("abcde"),
                      "score": [0.4, 0.9, 0.1, 0.2, 0.8]})
    return {"q": q, "r": r}


@pytest.mark.parametrize("how", ["file", "int frame", "Int64 frame", "string[pyarrow] frame",
                                 "categorical with unused categories", "double[pyarrow] score",
                                 "sparse score", "series"])
def test_one_run_on_every_path_gives_pytrec_evals_number(tmp_path: Path, how: str) -> None:
    f = _frames()
    q, r = f["q"], f["r"]
    want = pytrec({"7": {"a": 1, "b": 0, "c": 2}, "8": {"d": 1, "e": 0}},
                  {"7": {"a": 0.4, "b": 0.9, "c": 0.1}, "8": {"d": 0.2, "e": 0.8}}, "ndcg_cut_10")
    run: Any = {
        "int frame": r,
        "Int64 frame": r.assign(qid=r["qid"].astype("Int64")),
        "string[pyarrow] frame": r.assign(qid=r["qid"].astype(str).astype("string[pyarrow]")),
        "categorical with unused categories": r.assign(qid=pd.Categorical(
            r["qid"].astype(str), categories=["7", "8", "9", "007"])),
        "double[pyarrow] score": r.assign(score=r["score"].astype("double[pyarrow]")),
        "sparse score": r.assign(score=pd.arrays.SparseArray(r["score"].to_numpy())),
        "series": r.set_index(["qid", "docno"])["score"],
    }.get(how)
    if how == "file":
        (tmp_path / "r.txt").write_text("".join(f"{a} Q0 {b} 1 {c} t\n"
                                                for a, b, c in r.itertuples(index=False)))
        run = str(tmp_path / "r.txt")
    got = evaluate_trec(q, run, metrics=["ndcg_cut_10"]).metrics["ndcg_cut_10"]
    assert got == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize(("qid", "said"), [
    ([1.5, 1.5, 1.5, 2.5, 2.5], "float"),  # round 23b: a whole float is its integer
    ([True, True, True, False, False], "bool"),
    ([b"7", b"7", b"7", b"8", b"8"], "bytes"),
    (pd.to_datetime([7, 7, 7, 8, 8], unit="s", utc=True), "datetime64"),
])
def test_ids_without_one_text_are_refused_on_frames(qid: Any, said: str) -> None:
    f = _frames()
    with pytest.raises(DataError, match=rf"run DataFrame, row 1, column 'qid': query id .*{said}"):
        evaluate_trec(f["q"], f["r"].assign(qid=qid), metrics=["ndcg_cut_10"])


@pytest.mark.parametrize("key", [7.5, True, b"7", ("7",)])  # 7.0: query "7" (round 23b)
def test_ids_without_one_text_are_refused_on_dicts(key: Any) -> None:
    with pytest.raises(DataError, match=r"run dict: \[.*\]\['a'\]: query id .* expected a string"):
        evaluate_trec({"7": {"a": 1}}, {key: {"a": 0.5}}, metrics=["ndcg_cut_10"])


def test_duplicate_and_multiindex_columns_are_refused_by_name() -> None:
    f = _frames()
    with pytest.raises(DataError, match=r"column 'score' appears 2 times"):
        evaluate_trec(f["q"], pd.concat([f["r"], f["r"][["score"]]], axis=1), metrics=["ndcg"])
    multi = f["r"].set_axis(pd.MultiIndex.from_tuples([("x", "qid"), ("x", "docno"),
                                                       ("x", "score")]), axis=1)
    with pytest.raises(DataError, match=r"run DataFrame: no qid column"):
        evaluate_trec(f["q"], multi, metrics=["ndcg"])


# ----------------------------------------------------------------- LETOR Parquet files
def _letor_parquet(tmp: Path, table: Any) -> Path:
    import pyarrow.parquet as pq

    p = tmp / "t.parquet"
    pq.write_table(table, p)
    return p


BASE = {"qid": [1, 1, 2], "label": [1.0, 0.0, 2.0], "f1": [0.5, 0.25, 0.125]}


def test_a_folder_named_like_a_parquet_file_is_named_a_folder(tmp_path: Path) -> None:
    from bench.data.parquet import read_parquet

    (tmp_path / "t.parquet").mkdir()
    with pytest.raises(DataError, match=r"t.parquet: is a directory: expected a LETOR Parquet"):
        read_parquet(tmp_path / "t.parquet")


def test_a_parquet_file_of_a_newer_format_version_is_refused(tmp_path: Path) -> None:
    import pyarrow as pa

    from bench.data.parquet import read_parquet

    meta = b'{"format": "ltrbench-letor", "version": 99, "feature_columns": ["f1"], ' \
           b'"feature_names": ["f1"]}'
    p = _letor_parquet(tmp_path, pa.table(BASE).replace_schema_metadata({b"ltrbench": meta}))
    with pytest.raises(DataError, match=r"version 99; this ltrbench reads version 1"):
        read_parquet(p)


def test_a_parquet_split_without_rows_is_refused_as_an_svmlight_one_is(tmp_path: Path) -> None:
    import pyarrow as pa

    from bench.data.parquet import read_parquet

    p = _letor_parquet(tmp_path, pa.table({k: pa.array([], pa.float64()) for k in BASE}))
    with pytest.raises(DataError, match=r"t.parquet: no rows \(an empty table\)"):
        read_parquet(p)


@pytest.mark.parametrize("how", ["dictionary qid", "dictionary label", "chunks", "int8 label"])
def test_odd_but_numeric_parquet_schemas_read_the_same_numbers(tmp_path: Path, how: str) -> None:
    import pyarrow as pa

    from bench.data.parquet import read_parquet

    table = pa.table(BASE)
    if how == "dictionary qid":
        table = pa.table({**BASE, "qid": pa.array(BASE["qid"]).dictionary_encode()})
    elif how == "dictionary label":
        table = pa.table({**BASE, "label": pa.array(BASE["label"]).dictionary_encode()})
    elif how == "chunks":
        table = pa.concat_tables([pa.table(BASE).slice(0, 1), pa.table(BASE).slice(1)])
    elif how == "int8 label":
        table = pa.table({**BASE, "label": pa.array([1, 0, 2], pa.int8())})
    d = read_parquet(_letor_parquet(tmp_path, table))
    assert (d.qid.tolist(), d.y.tolist(), d.X[:, 0].tolist()) == ([1, 1, 2], [1.0, 0.0, 2.0],
                                                                 [0.5, 0.25, 0.125])


# ----------------------------------------------------------------- other formats where text goes
@pytest.mark.parametrize(("head", "said"), [
    (b"\x04\x22\x4d\x18" + bytes(20), "lz4-compressed"),
    (b"7z\xbc\xaf\x27\x1c" + bytes(20), "a 7-Zip archive"),
    (b"PAR1\x15\x04\x15" + bytes(20), "a Parquet file"),
])
def test_a_binary_file_where_text_goes_is_named_by_its_format(tmp_path: Path, head: bytes,
                                                              said: str) -> None:
    (tmp_path / "r.txt").write_bytes(head)
    with pytest.raises(DataError, match=rf"r.txt:1: the file is {said}"):
        read_run(tmp_path / "r.txt")


def test_a_parquet_file_named_csv_is_named_as_parquet(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from bench.data.tabular import load_ratings_table

    pq.write_table(pa.table({"user": [1], "item": [2], "rating": [4.0]}), tmp_path / "r.csv")
    with pytest.raises(DataError, match=r"r.csv:1: the file is a Parquet file .*name it "
                                        r"\*.parquet"):
        load_ratings_table(tmp_path / "r.csv", user="user", item="item", rating="rating")


def test_a_qrels_whose_first_query_is_named_par1_is_still_text(tmp_path: Path) -> None:
    (tmp_path / "q.txt").write_text("PAR1 0 d 1\n")
    assert read_qrels(tmp_path / "q.txt").qid.tolist() == ["PAR1"]


def test_a_movielens_id_with_a_plus_sign_is_named_at_its_line(tmp_path: Path) -> None:
    from bench.data.movielens import load_movielens

    (tmp_path / "ratings.csv").write_text("userId,movieId,rating,timestamp\n7,1,4,100\n+7,2,4,1\n")
    with pytest.raises(DataError, match=r"ratings.csv:3, column 'user': .*'\+7' has a '\+' sign"):
        load_movielens(tmp_path)
