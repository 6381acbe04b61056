"""Hostile ids and score ties (issue 19): numbers that a float64 or an int64 cannot carry exactly.

Classes (the ``class`` of each case):

- ``ids``: distinct numeric ids of a ratings table (``1e20``, ``2e20``, ``inf``, ``2^53 + 1``
  written as a float) stay distinct ids, or are refused naming file, line and column; equal
  numbers (``1``, ``1.0``, ``1e0``) stay one id. Before the fix ``bench/data/tabular.py`` cast
  float64 ids to int64 unchecked: every one of ``1e20``, ``2e20``, ``inf`` became
  -9223372036854775808 (one user), and ``convert`` made three users one query.
- ``ties``: two distinct decimal scores of one query that parse to the same float64
  (``0.10000000000000000001`` and ``0.1``; ``1e-400`` and ``0``) are refused naming file:line
  and both texts, in TREC runs and scores files; equal decimals (``1.0``, ``1.00``) are accepted
  and tie, as trec_eval (``atof``) and pytrec_eval tie them.

Golden values: ids counted by hand; metric values from pytrec_eval.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bench.errors import DataError


def _write(tmp: Path, name: str, text: str) -> Path:
    p = tmp / name
    p.write_text(text)
    return p


def _ratings(tmp: Path, users: list[str], items: list[str] | None = None) -> Path:
    items = items or [str(10 + n) for n in range(len(users))]
    rows = "".join(f"{u},{i},4,{100 + n}\n" for n, (u, i) in enumerate(zip(users, items, strict=True)))
    return _write(tmp, "r.csv", "u,i,r,t\n" + rows)


def _load(p: Path):  # type: ignore[no-untyped-def]
    from bench.data.tabular import load_ratings_table

    return load_ratings_table(p, user="u", item="i", rating="r", timestamp="t")


# ------------------------------------------------------------------------------------- ids
@pytest.mark.parametrize(
    ("users", "distinct"),
    [
        (["1e20", "2e20", "3e20"], 3),
        (["inf", "-inf", "1e300"], 3),
        (["1e20", "-1e20", "1"], 3),
        (["1e20", "100000000000000000000", "2e20"], 2),  # 1e20 is 10^20: one number, one id
        (["9223372036854775807", "9223372036854775808", "1e19"], 3),
        (["100000000000000000001", "100000000000000000000"], 2),
        (["1e20", "u7", "7"], 3),
    ],
)
def test_numeric_ids_beyond_int64_stay_distinct(tmp_path: Path, users: list[str],
                                               distinct: int) -> None:
    r = _load(_ratings(tmp_path, users))
    assert r.frame["user"].nunique() == distinct
    assert r.users is not None
    assert len(r.users) == distinct
    # numbered in sorted order (numbers by exact value, then texts), each id's first spelling
    from decimal import Decimal, InvalidOperation

    def key(cell: str) -> tuple[int, object]:
        try:
            return (0, Decimal(cell))
        except InvalidOperation:
            return (1, cell)

    first: dict[tuple[int, object], str] = {}
    for u in users:
        first.setdefault(key(u), u)
    assert r.users["external_id"].tolist() == [first[k] for k in sorted(first)]


def test_item_ids_inf_and_big_floats_stay_distinct(tmp_path: Path) -> None:
    r = _load(_ratings(tmp_path, ["1", "2", "3"], ["inf", "1e300", "-inf"]))
    assert r.frame["item"].nunique() == 3


@pytest.mark.parametrize(
    ("users", "expected"),
    [
        (["1", "1.0", "1e0", "2.0"], [1, 1, 1, 2]),
        (["-0.0", "0", "1e1", "10.0"], [0, 0, 10, 10]),
        (["9007199254740993.0", "9007199254740992", "3.0"], [9007199254740993, 9007199254740992, 3]),
    ],
)
def test_equal_numeric_ids_stay_one_id_and_whole_floats_keep_their_exact_value(
        tmp_path: Path, users: list[str], expected: list[int]) -> None:
    r = _load(_ratings(tmp_path, users))
    assert r.users is None
    assert r.frame["user"].tolist() == expected


@pytest.mark.parametrize("bad", ["1.0000000000000000001", "1.5", "1e-1", "100000000000000000000.5"])
def test_a_fractional_id_is_refused_naming_file_line_and_column(tmp_path: Path, bad: str) -> None:
    with pytest.raises(DataError, match=r"r\.csv:3, column 'u': id '?[0-9e.+-]+'? is not an integer"):
        _load(_ratings(tmp_path, ["2", bad, "3.0"]))


def test_parquet_float_ids_beyond_int64_stay_distinct(tmp_path: Path) -> None:
    from bench.data.tabular import load_ratings_table

    p = tmp_path / "r.parquet"
    pd.DataFrame({"u": [1e20, 2e20, float("inf"), 1.0], "i": [1, 2, 3, 4],
                  "r": [1.0, 2.0, 3.0, 4.0], "t": [1, 2, 3, 4]}).to_parquet(p)
    r = load_ratings_table(p, user="u", item="i", rating="r", timestamp="t")
    assert r.frame["user"].nunique() == 4


def test_parquet_uint64_ids_beyond_int64_stay_distinct(tmp_path: Path) -> None:
    from bench.data.tabular import load_ratings_table

    p = tmp_path / "r.parquet"
    pd.DataFrame({"u": np.array([2**63, 2**63 + 1, 5], dtype=np.uint64), "i": [1, 2, 3],
                  "r": [1.0, 2.0, 3.0], "t": [1, 2, 3]}).to_parquet(p)
    r = load_ratings_table(p, user="u", item="i", rating="r", timestamp="t")
    assert r.frame["user"].nunique() == 3


def test_movielens_ids_written_as_floats_are_refused_naming_the_line(tmp_path: Path) -> None:
    from bench.data.movielens import load_movielens

    (tmp_path / "ml").mkdir()
    _write(tmp_path / "ml", "ratings.dat", "1::1::4::100\n1e20::2::3::100\n")
    with pytest.raises(DataError, match=r"ratings\.dat:2, column 'user'.*'1e20' is not an integer"):
        load_movielens(tmp_path / "ml")


@pytest.mark.parametrize("big", ["1e20", "inf"])  # 2^53 + 1 is kept: ids are read as text
def test_dask_ratings_ids_a_float64_cannot_hold_are_numbered_as_the_local_reader_numbers_them(
        tmp_path: Path, big: str) -> None:
    """Round 10: Dask numbers ids beyond int64 (``1e20``) and text ids (``inf`` is text as an
    id) exactly as the local reader does (it refused them before); three users stay three."""
    pytest.importorskip("dask.dataframe")
    from bench.data.dask_ratings import read_ratings_frame
    from bench.data.tabular import load_ratings_table

    p = _ratings(tmp_path, ["9007199254740991", big, "1"])
    got = read_ratings_frame(p, user="u", item="i", rating="r", timestamp="t").frame.compute()
    local = load_ratings_table(p, user="u", item="i", rating="r", timestamp="t")
    assert got["user"].tolist() == local.frame["user"].tolist()
    assert got["user"].nunique() == 3


def test_dask_parquet_int64_ids_beyond_2_53_are_kept_exactly(tmp_path: Path) -> None:
    pytest.importorskip("dask.dataframe")
    from bench.data.dask_ratings import read_ratings_frame

    p = tmp_path / "r.parquet"
    ids = [2**60, 2**60 + 1, 3]
    pd.DataFrame({"u": np.array(ids, dtype=np.int64), "i": [1, 2, 3], "r": [1.0, 2.0, 3.0],
                  "t": [1, 2, 3]}).to_parquet(p)
    got = read_ratings_frame(p, user="u", item="i", rating="r", timestamp="t").frame.compute()
    assert got["user"].tolist() == ids


def test_convert_keeps_three_users_1e20_2e20_3e20_three_queries(tmp_path: Path) -> None:
    from bench import cli

    rows = ["u,i,r,t"] + [f"{u},{i},{(n + i) % 5 + 1},{100 * n + i}"
                          for n, u in enumerate(["1e20", "2e20", "3e20"]) for i in range(1, 9)]
    _write(tmp_path, "r.csv", "\n".join(rows) + "\n")
    with contextlib.redirect_stdout(io.StringIO()):
        rc = cli.main(["convert", "--ratings", str(tmp_path / "r.csv"), "--layout", "csv",
                       "--user", "u", "--item", "i", "--rating", "r", "--timestamp", "t",
                       "--min-history", "2", "--target-size", "2", "--features", "user",
                       "--duplicates", "mean", "--out", str(tmp_path / "o")])
    assert rc == 0
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert max(_values(summary, "queries")) == 3


def _values(obj: object, key: str) -> list[object]:
    if isinstance(obj, dict):
        return [v for k, v in obj.items() if k == key] + [x for v in obj.values()
                                                          for x in _values(v, key)]
    if isinstance(obj, list):
        return [x for v in obj for x in _values(v, key)]
    return []


# ------------------------------------------------------------------------------------ ties
QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 d 1\n2 0 e 0\n"


def _pytrec(qrels: str, run: dict[str, dict[str, float]], measure: str = "ndcg_cut_10") -> float:
    import pytrec_eval

    q: dict[str, dict[str, int]] = {}
    for line in qrels.splitlines():
        qid, _, doc, rel = line.split()
        q.setdefault(qid, {})[doc] = int(rel)
    per = pytrec_eval.RelevanceEvaluator(q, {measure}).evaluate(run)
    return float(np.mean([v[measure] for v in per.values()]))


def _trec(tmp: Path, run: str) -> float:
    from bench.metrics.trec import evaluate_trec

    q, r = _write(tmp, "q.txt", QRELS), _write(tmp, "r.txt", run)
    return float(evaluate_trec(q, r, metrics="ndcg_cut_10", profile="trec_eval")
                 .metrics["ndcg_cut_10"])


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("0.10000000000000000001", "0.1"),
        ("0.1", "0.10000000000000000001"),
        ("1e-400", "0"),
        ("123456789012345678.0", "123456789012345680.0"),
        ("0.30000000000000000000000000000001", "3e-1"),
    ],
)
def test_run_scores_tied_only_by_float64_are_refused_naming_the_line_and_both_texts(
        tmp_path: Path, a: str, b: str) -> None:
    from bench.data.trec import read_run

    p = _write(tmp_path, "r.txt", f"1 Q0 a 1 {a} t\n1 Q0 c 2 0.5 t\n1 Q0 b 3 {b} t\n")
    with pytest.raises(DataError) as info:
        read_run(p)
    msg = str(info.value)
    assert "r.txt:3, column 'score'" in msg
    assert f"'{a}'" in msg
    assert f"'{b}'" in msg
    assert "line 1" in msg
    assert "query '1'" in msg


def test_equal_decimals_are_one_score_and_tie_as_in_pytrec_eval(tmp_path: Path) -> None:
    run = "1 Q0 a 1 1.0 t\n1 Q0 b 2 1.00 t\n1 Q0 c 3 0.5e0 t\n2 Q0 d 1 0.2 t\n2 Q0 e 2 0.2000 t\n"
    want = _pytrec(QRELS, {"1": {"a": 1.0, "b": 1.0, "c": 0.5}, "2": {"d": 0.2, "e": 0.2}})
    assert _trec(tmp_path, run) == pytest.approx(want, abs=1e-12)


def test_colliding_decimals_of_different_queries_never_compete_and_are_accepted(
        tmp_path: Path) -> None:
    run = ("1 Q0 a 1 0.10000000000000000001 t\n1 Q0 b 2 0.2 t\n1 Q0 c 3 0.3 t\n"
           "2 Q0 d 1 0.1 t\n2 Q0 e 2 0.05 t\n")
    want = _pytrec(QRELS, {"1": {"a": 0.1, "b": 0.2, "c": 0.3}, "2": {"d": 0.1, "e": 0.05}})
    assert _trec(tmp_path, run) == pytest.approx(want, abs=1e-12)


def test_seventeen_digit_scores_of_distinct_floats_are_accepted(tmp_path: Path) -> None:
    run = ("1 Q0 a 1 0.30000000000000004 t\n1 Q0 b 2 0.3 t\n1 Q0 c 3 0.29999999999999999 t\n"
           "2 Q0 d 1 0.2 t\n2 Q0 e 2 0.1 t\n")
    with pytest.raises(DataError, match=r"'0\.29999999999999999' and score '0\.3'"):
        _trec(tmp_path, run)  # 0.29999999999999999 is 0.3 as a float64: a tie, refused
    run = run.replace("0.29999999999999999", "0.29999999999999993")
    want = _pytrec(QRELS, {"1": {"a": 0.30000000000000004, "b": 0.3, "c": 0.29999999999999993},
                           "2": {"d": 0.2, "e": 0.1}})
    assert _trec(tmp_path, run) == pytest.approx(want, abs=1e-12)


DATA = "2 qid:1 1:0.5\n0 qid:1 1:0.1\n1 qid:1 2:0.3\n1 qid:2 1:0.2\n0 qid:2 1:0.9\n"


def _svm(tmp: Path, data: str, scores: str, *extra: str) -> tuple[int, str]:
    from bench import cli

    d, s = _write(tmp, "d.txt", data), _write(tmp, "s.txt", scores)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        rc = cli.main(["evaluate", "--data", str(d), "--scores", str(s), "--metrics", "ndcg@10",
                       "--format", "json", *extra])
    return rc, out.getvalue()


def test_scores_file_ties_of_one_query_are_refused_naming_the_line(tmp_path: Path) -> None:
    rc, out = _svm(tmp_path, DATA, "0.10000000000000000001\n0.5\n0.1\n0.2\n0.3\n")
    assert rc == 2
    assert "s.txt:3" in out
    assert "'0.10000000000000000001'" in out
    assert "'0.1'" in out
    assert "Traceback" not in out


def test_scores_file_collisions_of_different_queries_are_accepted(tmp_path: Path) -> None:
    rc, out = _svm(tmp_path, DATA, "1.0\n0.10000000000000000001\n0.5\n0.1\n0.2\n")
    assert rc == 0, out
    # golden: pytrec_eval on the same rows (docs numbered in file order; no ties)
    q = "1 0 r1 2\n1 0 r2 0\n1 0 r3 1\n2 0 r4 1\n2 0 r5 0\n"
    want = _pytrec(q, {"1": {"r1": 1.0, "r2": 0.1, "r3": 0.5}, "2": {"r4": 0.1, "r5": 0.2}})
    assert json.loads(out)["metrics"]["ndcg@10"] == pytest.approx(want, abs=1e-12)


def test_scores_file_equal_decimals_are_one_score(tmp_path: Path) -> None:
    # 1.0 and 1.00 tie (both relevant): the ranking is ideal, NDCG@10 = 1 by hand
    rc, out = _svm(tmp_path, "1 qid:1 1:1\n1 qid:1 1:1\n0 qid:1 1:1\n", "1.0\n1.00\n0.5\n")
    assert rc == 0, out
    assert json.loads(out)["metrics"]["ndcg@10"] == 1.0


def test_scores_file_ties_follow_the_file_order_under_sort_by_qid(tmp_path: Path) -> None:
    data = "2 qid:1 1:0.5\n1 qid:2 1:0.2\n0 qid:1 1:0.1\n0 qid:2 1:0.9\n"
    # lines 1 and 2 collide but belong to queries 1 and 2: accepted
    rc, out = _svm(tmp_path, data, "0.10000000000000000001\n0.1\n0.3\n0.4\n", "--sort-by-qid")
    assert rc == 0, out
    # lines 2 and 4 are both query 2: refused, naming the file's lines
    rc, out = _svm(tmp_path, data, "0.3\n0.10000000000000000001\n0.4\n0.1\n", "--sort-by-qid")
    assert rc == 2, out
    assert "s.txt:4" in out, out
    assert "line 2" in out, out


@pytest.mark.parametrize("users", [["1e-400", "0", "1.0"], ["0.5", "1.0"]])
def test_an_id_that_underflows_or_is_fractional_is_refused_not_merged(
        tmp_path: Path, users: list[str]) -> None:
    with pytest.raises(DataError, match=r"r\.csv:2, column 'u': id '[^']+' is not an integer"):
        _load(_ratings(tmp_path, users))
