"""Round 13: a streaming company's recommender engineer, warehouse exports in hand.

They export ratings tables (CSV from a spreadsheet or a SQL client, Parquet from the warehouse),
convert them to LETOR, and compare the numbers with what RecBole, Microsoft Recommenders and
ranx print, feeding qrels + run the way those tools are fed. The attacks: CSV dialects (blank
lines, quoted line ends, quoted separators, CR-only ends, units and percent signs in a rating,
thousands separators and day-first dates in a timestamp), Parquet column types (dictionary,
categorical, decimal, nullable, time zones, nanoseconds, large strings, lists, durations, zero
rows, many row groups), and the recommender profiles at their edges (k beyond the list, users
with no hit or no run line, ties, relevance levels, negative and fractional grades).

Oracles: the line a value stands on, counted by hand in the bytes written here; dates worked
out by hand (UTC seconds); the same table written plainly; the tools' published formulas
(RecBole ``recbole/evaluator/metrics.py``: P@k = hits/k, recall = hits/|ground truth|, MAP@k
over min(R, k), NDCG with the ideal over min(R, k); Recommenders ``python_evaluation.py``: the
same hit counts, ``precision_at_k`` over k, users without predictions left out but for
``ndcg_at_k``; ranx ``ranx/metrics``, ``make_comparable=True``: AP@k over R, a missing query 0;
these agree with ranx 0.3 itself on the same inputs, checked when the cases were written).
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hostile_kit import cli

from bench.data.tabular import load_ratings_table
from bench.errors import DataError

COLS = {"user": "user", "item": "item", "rating": "rating", "timestamp": "ts"}
HEAD = "user,item,rating,ts\n"


def load(path: Path, **kw: Any):
    args = {**COLS, **kw}
    return load_ratings_table(path, **args)


def refused_at(path: Path, *words: str, **kw: Any) -> str:
    with pytest.raises(DataError) as info:
        load(path, **kw)
    msg = str(info.value)
    for w in words:
        assert w in msg, (w, msg)
    return msg


def put(tmp: Path, name: str, text: str | bytes) -> Path:
    p = tmp / name
    p.write_bytes(text.encode() if isinstance(text, str) else text)
    return p


# --- CSV: the line an error names is the line of the file -----------------------------------

def test_a_bad_rating_after_blank_lines_is_named_at_its_own_line(tmp_path: Path) -> None:
    p = put(tmp_path, "r.csv", HEAD + "1,2,3,100\n\n\n1,3,x,200\n")  # 'x' on line 5
    refused_at(p, "r.csv:5", "'rating'", "'x'")


def test_a_duplicate_pair_after_blank_lines_names_its_own_line(tmp_path: Path) -> None:
    p = put(tmp_path, "r.csv", HEAD + "1,2,3,100\n\n1,4,3,150\n\n1,2,4,200\n")  # repeat: line 6
    refused_at(p, "r.csv:6", "duplicate")


def test_a_bad_rating_after_a_quoted_line_end_is_named_at_its_own_line(tmp_path: Path) -> None:
    p = put(tmp_path, "r.csv", HEAD + '"a\nb",2,3,100\nc,3,x,200\n')  # record 2 spans lines 2-3
    refused_at(p, "r.csv:4", "'rating'", "'x'")


def test_a_duplicate_after_a_quoted_line_end_names_its_own_line(tmp_path: Path) -> None:
    p = put(tmp_path, "r.csv", HEAD + '"a\nb",2,3,100\n"a\nb",2,4,200\n')  # repeat starts line 4
    refused_at(p, "r.csv:4", "duplicate")


def test_the_places_of_ratings_after_blank_and_blank_looking_lines_are_file_lines(
        tmp_path: Path) -> None:
    p = put(tmp_path, "r.csv", HEAD + "1,2,3,100\n   \n1,3,4,200\n\n1,4,5,300\n")
    r = load(p)
    assert r.places is not None
    assert r.places[0] == "line"
    assert r.places[1].tolist() == [2, 4, 6]


def test_trailing_blank_lines_leave_the_line_numbers_as_they_are(tmp_path: Path) -> None:
    p = put(tmp_path, "r.csv", HEAD + "1,2,3,100\n1,3,4,200\n\n\n")
    assert load(p).places[1].tolist() == [2, 3]


def test_convert_names_the_file_line_of_a_bad_rating_after_a_blank_line(tmp_path: Path) -> None:
    rows = [f"u{u},i{(u * 7 + j * 3) % 40},{(u + j) % 5 + 1},{1_000_000_000 + u * 50 + j}"
            for u in range(6) for j in range(8)]
    rows[30] = "u3,i99,4.5 stars,1000000200"
    text = HEAD.replace("ts", "timestamp") + "\n".join(rows[:10]) + "\n\n" + "\n".join(rows[10:]) + "\n"
    put(tmp_path, "r.csv", text)  # rows[30] on line 1 + 10 + 1 + 21 = 33
    res = cli(tmp_path, "convert", "--ratings", "r.csv", "--user", "user", "--item", "item",
              "--rating", "rating", "--timestamp", "timestamp", "--out", "out")
    assert res.status == 2, res.err[-500:]
    assert "Traceback" not in res.err
    assert "r.csv:33" in res.err, res.err[-500:]
    assert "4.5 stars" in res.err
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").glob("*.txt"))


# --- CSV dialects read as their plain twin -----------------------------------------------------

def test_a_cr_only_export_with_quoted_ids_reads_as_its_lf_twin(tmp_path: Path) -> None:
    body = '"o\'brien, a",i1,4,100\n"o\'brien, a",i2,3,200\nb,i1,5,300\n'
    lf = load(put(tmp_path, "lf.csv", HEAD + body))
    cr = load(put(tmp_path, "cr.csv", (HEAD + body).replace("\n", "\r")))
    pd.testing.assert_frame_equal(lf.frame, cr.frame)
    assert cr.users["external_id"].tolist() == ["b", "o'brien, a"]


def test_a_semicolon_export_keeps_a_quoted_semicolon_inside_an_id(tmp_path: Path) -> None:
    p = put(tmp_path, "r.txt", "user;item;rating;ts\n\"a;b\";1;4;100\nc;1;3;200\n")
    r = load(p, sep=";")
    assert sorted(r.users["external_id"]) == ["a;b", "c"]
    assert r.frame["rating"].tolist() == [4.0, 3.0]


def test_a_tsv_export_keeps_a_quoted_tab_inside_an_id(tmp_path: Path) -> None:
    p = put(tmp_path, "r.tsv", "user\titem\trating\tts\n\"a\tb\"\t1\t4\t100\nc\t1\t3\t200\n")
    r = load(p)
    assert sorted(r.users["external_id"]) == ["a\tb", "c"]


@pytest.mark.parametrize("cell", ["4.5 stars", "45%", '"4,5"', "True", "\u00bd", "4.5\u2605"])
def test_a_rating_that_is_no_plain_number_is_refused_at_its_line(tmp_path: Path,
                                                                   cell: str) -> None:
    p = put(tmp_path, "r.csv", HEAD + "1,2,3,100\n" + f"1,3,{cell},200\n")
    refused_at(p, "r.csv:3", "'rating'")


def test_a_thousands_separated_timestamp_is_refused_at_its_line(tmp_path: Path) -> None:
    p = put(tmp_path, "r.csv", HEAD + '1,2,3,"1,600,000,000"\n')
    refused_at(p, "r.csv:2", "'ts'", "1,600,000,000")


def test_a_header_in_another_case_is_refused_listing_the_real_columns(tmp_path: Path) -> None:
    p = put(tmp_path, "r.csv", b"\xef\xbb\xbfUser,Item,Rating,TS\r\n1,2,3,100\r\n")
    refused_at(p, "r.csv:1", "'User'", "'TS'")


# --- timestamps -------------------------------------------------------------------------------

def test_negative_seconds_before_1970_keep_their_order(tmp_path: Path) -> None:
    p = put(tmp_path, "r.csv", HEAD + "1,2,3,-100\n1,3,3,-5\n1,4,3,0\n")
    assert load(p).frame["timestamp"].tolist() == [-100, -5, 0]


def test_iso_dates_with_offsets_are_utc_seconds(tmp_path: Path) -> None:
    p = put(tmp_path, "r.csv", HEAD + "1,2,3,2020-01-01T00:00:00+02:00\n1,3,3,2020-01-01\n"
            "1,4,3,2020-01-01T01:00:00Z\n1,5,3,2020/01/02\n")
    day = 1_577_836_800  # 2020-01-01T00:00:00Z
    assert load(p).frame["timestamp"].tolist() == [day - 7200, day, day + 3600, day + 86400]


@pytest.mark.parametrize(("cells", "bad", "month", "day"), [
    (["13/02/2020", "01/02/2020"], 3, "2020-01-02", "2020-02-01"),  # a day-first export
    (["02.03.2020"], 2, "2020-02-03", "2020-03-02"),
    (["3/4/21"], 2, "2021-03-04", "2021-04-03"),
])
def test_a_date_read_differently_month_first_and_day_first_is_refused(
        tmp_path: Path, cells: list[str], bad: int, month: str, day: str) -> None:
    body = "".join(f"1,{k},3,{c}\n" for k, c in enumerate(cells))
    msg = refused_at(put(tmp_path, "r.csv", HEAD + body), f"r.csv:{bad}", "'ts'", "ISO 8601")
    assert month in msg
    assert day in msg


def test_day_first_dates_that_only_read_one_way_are_read(tmp_path: Path) -> None:
    p = put(tmp_path, "r.csv", HEAD + "1,2,3,13/02/2020\n1,3,3,14/02/2020\n1,4,3,2 Jan 2020\n")
    feb13 = 1_581_552_000  # 2020-02-13T00:00:00Z
    assert load(p).frame["timestamp"].tolist() == [feb13, feb13 + 86400, 1_577_923_200]


def test_dask_partitions_refuse_an_ambiguous_date_as_the_local_reader_does() -> None:
    from bench.data.dask_cells import date_line_problem, text_seconds

    why = date_line_problem("01/02/2020", False)
    assert why is not None
    assert "ambiguous" in why
    assert date_line_problem("13/02/2020", False) is None
    with pytest.raises(DataError) as info:
        text_seconds(pd.Series(["13/02/2020", "01/02/2020"]), "part-0.csv", lambda k: k + 2,
                     "timestamp")
    assert "part-0.csv, row 3" in str(info.value)
    assert "ambiguous" in str(info.value)


# --- Parquet column types ---------------------------------------------------------------------

BASE = {"user": [1, 1, 2, 2], "item": [10, 11, 10, 12], "rating": [4.0, 3.0, 5.0, 2.0],
        "ts": [100, 200, 300, 400]}


def parquet(tmp: Path, name: str = "r.parquet", **columns: Any) -> Path:
    p = tmp / name
    pq.write_table(pa.table({**BASE, **columns}), p)
    return p


def test_dictionary_encoded_ids_read_as_their_plain_strings(tmp_path: Path) -> None:
    users, items = ["a", "a", "b", "b"], ["x", "y", "x", "z"]
    plain = load(parquet(tmp_path, "p.parquet", user=users, item=items))
    coded = load(parquet(tmp_path, "d.parquet", user=pa.array(users).dictionary_encode(),
                         item=pa.array(items).dictionary_encode()))
    pd.testing.assert_frame_equal(plain.frame, coded.frame)
    assert coded.users["external_id"].tolist() == ["a", "b"]


def test_large_string_ids_read_as_strings(tmp_path: Path) -> None:
    users = ["a", "a", "b", "b"]
    plain = load(parquet(tmp_path, "p.parquet", user=users))
    large = load(parquet(tmp_path, "l.parquet", user=pa.array(users, pa.large_string())))
    pd.testing.assert_frame_equal(plain.frame, large.frame)


def test_pandas_categorical_ids_and_ratings_read_as_their_values(tmp_path: Path) -> None:
    frame = pd.DataFrame({"user": pd.Categorical([1, 1, 2, 2]), "item": [10, 11, 10, 12],
                          "rating": pd.Categorical([4.0, 3.0, 5.0, 2.0]), "ts": [1, 2, 3, 4]})
    frame.to_parquet(tmp_path / "c.parquet")
    r = load(tmp_path / "c.parquet")
    assert r.frame["user"].tolist() == [1, 1, 2, 2]
    assert r.frame["rating"].tolist() == [4.0, 3.0, 5.0, 2.0]


def test_decimal_ratings_keep_their_half_stars(tmp_path: Path) -> None:
    dec = pa.array([decimal.Decimal(x) for x in ("4.5", "3", "0.5", "2")], pa.decimal128(5, 2))
    assert load(parquet(tmp_path, rating=dec)).frame["rating"].tolist() == [4.5, 3.0, 0.5, 2.0]


def test_whole_decimal_ids_are_kept_as_the_integers_they_are(tmp_path: Path) -> None:
    dec = pa.array([decimal.Decimal(x) for x in ("1.0", "1.0", "2.0", "2.0")], pa.decimal128(20, 1))
    r = load(parquet(tmp_path, user=dec))
    assert r.frame["user"].tolist() == [1, 1, 2, 2]  # as a CSV's 1.0, 2.0
    assert r.users is None


def test_a_fractional_decimal_id_is_refused_at_its_row(tmp_path: Path) -> None:
    dec = pa.array([decimal.Decimal(x) for x in ("1", "1", "2", "2.5")], pa.decimal128(20, 1))
    refused_at(parquet(tmp_path, user=dec), "r.parquet, row 4", "'user'", "not an integer")


def test_a_null_in_a_nullable_integer_rating_is_refused_at_its_row(tmp_path: Path) -> None:
    refused_at(parquet(tmp_path, rating=pa.array([4, 3, None, 2], pa.int64())),
               "r.parquet, row 3", "'rating'", "missing")


def test_time_zone_dates_are_utc_seconds(tmp_path: Path) -> None:
    tz = dt.timezone(dt.timedelta(hours=-5))
    stamps = [dt.datetime(2020, 1, 1, h, tzinfo=tz) for h in (0, 1, 2, 3)]
    r = load(parquet(tmp_path, ts=pa.array(stamps, pa.timestamp("s", tz="-05:00"))))
    base = 1_577_836_800 + 5 * 3600  # 2020-01-01T05:00:00Z
    assert r.frame["timestamp"].tolist() == [base, base + 3600, base + 7200, base + 10800]


def test_nanosecond_dates_are_floored_to_seconds_before_and_after_1970(tmp_path: Path) -> None:
    ns = pa.array([-500_000_000, 1_500_000_000, 2_000_000_001, 0], pa.timestamp("ns"))
    assert load(parquet(tmp_path, ts=ns)).frame["timestamp"].tolist() == [-1, 1, 2, 0]


def test_date32_days_are_midnight_utc_seconds(tmp_path: Path) -> None:
    r = load(parquet(tmp_path, ts=pa.array([0, 1, 18262, -1], pa.date32())))
    assert r.frame["timestamp"].tolist() == [0, 86400, 18262 * 86400, -86400]


def test_a_duration_column_as_timestamp_is_refused(tmp_path: Path) -> None:
    refused_at(parquet(tmp_path, ts=pa.array([0, 1, 2, 3], pa.duration("s"))),
               "r.parquet, row 1", "'ts'", "not a point in time")


def test_a_list_rating_column_is_refused_at_its_row(tmp_path: Path) -> None:
    refused_at(parquet(tmp_path, rating=pa.array([[4], [3], [5], [2]])), "r.parquet, row 1",
               "'rating'")


def test_a_zero_row_parquet_table_is_refused(tmp_path: Path) -> None:
    p = tmp_path / "z.parquet"
    pq.write_table(pa.table({k: pa.array([], pa.int64()) for k in ("user", "item", "ts")}
                            | {"rating": pa.array([], pa.float64())}), p)
    refused_at(p, "z.parquet", "no data rows")


def test_a_bad_rating_in_a_late_row_group_is_named_at_its_table_row(tmp_path: Path) -> None:
    n = 1000
    rating = np.full(n, 3.0)
    rating[776] = np.nan
    p = tmp_path / "g.parquet"
    pq.write_table(pa.table({"user": np.repeat(np.arange(100), 10), "item": np.tile(np.arange(10), 100),
                             "rating": rating, "ts": np.arange(n)}), p, row_group_size=7)
    assert pq.ParquetFile(p).num_row_groups > 100
    refused_at(p, "g.parquet, row 777", "'rating'")


# --- the recommender profiles, given qrels + run as the tools are fed ------------------------

def trec(qrels: dict, run: dict, profile: str, metrics: list[str]) -> dict[str, float]:
    from bench.metrics import evaluate_trec

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the missing-queries warning: tested elsewhere
        return evaluate_trec(qrels, run, metrics=metrics, profile=profile).metrics


def by_hand(qrels: dict, run: dict, k: int, *, absent: str = "zero") -> dict[str, float]:
    """RecBole's formulas (metrics.py) over the ground truth: rel > 0 is a hit; the list by
    score, ties in the run's order; a qrels user without a run line scores 0 ('zero') or is
    left out ('drop'); a user without a relevant item is left out."""
    per: dict[str, list[float]] = {m: [] for m in ("ndcg", "recall", "p", "map", "mrr")}
    for u, judged in qrels.items():
        truth = {d for d, g in judged.items() if g > 0}
        if not truth or (u not in run and absent == "drop"):
            continue
        ranked = sorted(run.get(u, {}), key=lambda d: -run[u][d])[:k]
        h = [1 if d in truth else 0 for d in ranked]
        r = len(truth)
        per["ndcg"].append(sum(x / math.log2(j + 2) for j, x in enumerate(h))
                           / sum(1 / math.log2(j + 2) for j in range(min(r, k))))
        per["recall"].append(sum(h) / r)
        per["p"].append(sum(h) / k)
        cum = np.cumsum(h) if h else np.zeros(0)
        per["map"].append(sum(cum[j] / (j + 1) for j, x in enumerate(h) if x) / min(r, k))
        per["mrr"].append(next((1 / (j + 1) for j, x in enumerate(h) if x), 0.0))
    return {m: float(np.mean(v)) for m, v in per.items()}


HOSTILE_Q = {"u1": {"a": 1, "b": 1, "c": 1}, "u2": {"d": 1, "e": 0}, "u3": {"f": 1},
             "u4": {"g": 1, "h": 1}, "u5": {"i": -1, "j": 1}}
HOSTILE_R = {"u1": {"a": 0.9, "x": 0.5},                        # k = 5 beyond a list of 2
             "u2": {"y": 0.4, "e": 0.3},                        # no hit
             "u4": {"z": 0.5, "g": 0.5, "w": 0.5, "h": 0.1},    # ties: run order
             "u5": {"i": 0.9, "j": 0.2},                        # a negative grade ranked first
             "u9": {"a": 0.7}}                                  # u3 absent, u9 unjudged


def test_recbole_equals_its_formulas_on_a_hostile_run() -> None:
    got = trec(HOSTILE_Q, HOSTILE_R, "recbole", ["ndcg@5", "recall@5", "p@5", "map@5", "mrr@5"])
    want = by_hand(HOSTILE_Q, HOSTILE_R, 5)
    for m, v in want.items():
        assert got[f"{m}@5"] == pytest.approx(v, abs=1e-12), m


def test_recommenders_leaves_a_user_without_predictions_out_of_precision_only() -> None:
    got = trec(HOSTILE_Q, HOSTILE_R, "recommenders", ["ndcg@5", "recall@5", "p@5"])
    kept = by_hand(HOSTILE_Q, HOSTILE_R, 5, absent="drop")
    every = by_hand(HOSTILE_Q, HOSTILE_R, 5)
    assert got["p@5"] == pytest.approx(kept["p"], abs=1e-12)  # precision_at_k: hits / k
    assert got["recall@5"] == pytest.approx(kept["recall"], abs=1e-12)
    assert got["ndcg@5"] == pytest.approx(every["ndcg"], abs=1e-12)  # ln units cancel


def ranx_by_hand(qrels: dict, run: dict, k: int, lvl: int = 1, burges: bool = False
                 ) -> dict[str, float]:
    """ranx's formulas (ranx/metrics: hits, precision, recall, reciprocal_rank,
    average_precision, ndcg / ndcg_burges), make_comparable=True: relevant is rel >= rel_lvl
    and a judgment below it gains 0; AP@k over R (every relevant document of the qrels); a
    qrels query without a run line, or without a relevant document, scores 0 and counts."""
    per: dict[str, list[float]] = {m: [] for m in ("ndcg", "recall", "p", "map", "mrr")}
    for u, judged in qrels.items():
        rel = {d: g for d, g in judged.items() if g >= lvl}
        ranked = sorted(run.get(u, {}), key=lambda d: -run[u][d])[:k]
        gain = [(2 ** rel[d] - 1 if burges else rel[d]) if d in rel else 0 for d in ranked]
        h = [1 if d in rel else 0 for d in ranked]
        ideal = sorted(((2 ** g - 1 if burges else g) for g in rel.values()), reverse=True)[:k]
        idcg = sum(g / math.log2(j + 2) for j, g in enumerate(ideal))
        per["ndcg"].append(sum(g / math.log2(j + 2) for j, g in enumerate(gain)) / idcg
                           if idcg else 0.0)
        per["recall"].append(sum(h) / len(rel) if rel else 0.0)
        per["p"].append(sum(h) / k)
        cum = np.cumsum(h) if h else np.zeros(0)
        per["map"].append(sum(cum[j] / (j + 1) for j, x in enumerate(h) if x) / len(rel)
                          if rel else 0.0)
        per["mrr"].append(next((1 / (j + 1) for j, x in enumerate(h) if x), 0.0))
    return {m: float(np.mean(v)) for m, v in per.items()}


def test_the_ranx_profile_equals_ranx_formulas_on_a_hostile_run() -> None:
    got = trec(HOSTILE_Q, HOSTILE_R, "ranx", ["ndcg@5", "map@5", "recall@5", "p@5", "mrr@5"])
    for m, v in ranx_by_hand(HOSTILE_Q, HOSTILE_R, 5).items():
        assert got[f"{m}@5"] == pytest.approx(v, abs=1e-12), m


def test_ranx_burges_and_a_relevance_level_equal_ranx_formulas() -> None:
    from dataclasses import replace

    from bench.metrics import evaluate_trec
    from bench.metrics.profiles import get_profile

    graded = {u: {d: (2 * g if d in "ag" else g) for d, g in j.items()}
              for u, j in HOSTILE_Q.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        two = evaluate_trec(graded, HOSTILE_R, metrics=["ndcg@5", "map@5", "recall@5", "p@5"],
                            profile=replace(get_profile("ranx"), relevance_threshold=2)).metrics
        burges = evaluate_trec(graded, HOSTILE_R, metrics=["ndcg@5"], profile=replace(
            get_profile("ranx-burges"), relevance_threshold=2)).metrics
    want = ranx_by_hand(graded, HOSTILE_R, 5, lvl=2)
    for m in ("ndcg", "map", "recall", "p"):
        assert two[f"{m}@5"] == pytest.approx(want[m], abs=1e-12), m
    assert burges["ndcg@5"] == pytest.approx(
        ranx_by_hand(graded, HOSTILE_R, 5, lvl=2, burges=True)["ndcg"], abs=1e-12)


@pytest.mark.parametrize("profile", ["recbole", "recommenders"])
def test_a_fractional_grade_is_refused_naming_its_keys(profile: str) -> None:
    from bench.metrics import evaluate_trec

    with pytest.raises(DataError) as info:
        evaluate_trec({"u1": {"a": 0.5, "b": 1}}, {"u1": {"a": 0.9}}, metrics=["ndcg@5"],
                      profile=profile)
    assert "['u1']['a']" in str(info.value)
    assert "0.5" in str(info.value)


def test_recbole_reads_qrels_and_run_frames_as_the_dicts() -> None:
    q = pd.DataFrame([(u, d, g) for u, j in HOSTILE_Q.items() for d, g in j.items()],
                     columns=["qid", "docno", "rel"])
    r = pd.DataFrame([(u, d, s) for u, j in HOSTILE_R.items() for d, s in j.items()],
                     columns=["qid", "docno", "score"])
    ms = ["ndcg@5", "recall@5", "map@5"]
    assert trec(q, r, "recbole", ms) == pytest.approx(trec(HOSTILE_Q, HOSTILE_R, "recbole", ms),
                                                      abs=1e-15)


def _files(tmp: Path) -> None:
    (tmp / "q.txt").write_text("".join(f"{u} 0 {d} {g}\n" for u, j in HOSTILE_Q.items()
                                       for d, g in j.items()))
    (tmp / "run.txt").write_text("".join(f"{u} Q0 {d} {k + 1} {s} r\n" for u, j in HOSTILE_R.items()
                                         for k, (d, s) in enumerate(j.items())))


def test_recbole_per_query_file_scores_the_absent_user_0(tmp_path: Path) -> None:
    _files(tmp_path)
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "run.txt", "--profile",
              "recbole", "--metrics", "recall@5", "--per-query", "pq.csv", "--format", "json")
    assert res.status == 0, res.err[-500:]
    assert "u3" in res.err  # the warning names the user without a run line
    per = pd.read_csv(tmp_path / "pq.csv", dtype={"qid": str}).set_index("qid")["recall@5"]
    assert per["u3"] == 0.0
    assert "u9" not in per.index
    assert json.loads(res.out)["metrics"]["recall@5"] == pytest.approx(per.mean(), abs=1e-12)


def test_recommenders_per_query_file_leaves_the_absent_users_recall_blank(tmp_path: Path) -> None:
    _files(tmp_path)
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "run.txt", "--profile",
              "recommenders", "--metrics", "ndcg@5,recall@5", "--per-query", "pq.csv")
    assert res.status == 0, res.err[-500:]
    per = pd.read_csv(tmp_path / "pq.csv", dtype={"qid": str}).set_index("qid")
    assert per.loc["u3", "ndcg@5"] == 0.0
    assert math.isnan(per.loc["u3", "recall@5"])


def test_a_header_repeated_after_a_blank_line_is_named_at_its_own_line(tmp_path: Path) -> None:
    text = "user,item\n" + "".join(f"u{k},i{k}\n" for k in range(4)) + "\nuser,item\nu9,i9\n"
    p = put(tmp_path, "j.csv", text)  # the repeated header on line 7
    refused_at(p, "j.csv:7", "repeats the header", rating=None, timestamp=None)


def _int96(tmp: Path) -> Path:
    stamps = [dt.datetime(2020, 1, 1, 0, 0, 0, 500000), dt.datetime(1969, 12, 31, 23, 59, 59, 500000),
              dt.datetime(2300, 1, 1), dt.datetime(1600, 1, 1)]
    p = tmp / "spark.parquet"
    pq.write_table(pa.table({**BASE, "ts": pa.array(stamps, pa.timestamp("us"))}), p,
                   use_deprecated_int96_timestamps=True)  # as Spark, Hive and Impala write dates
    return p


def test_int96_dates_beyond_2262_and_before_1677_are_read_as_written(tmp_path: Path) -> None:
    want = [1_577_836_800, -1, 10_413_792_000, -11_676_096_000]  # 2300-01-01, 1600-01-01 UTC
    assert load(_int96(tmp_path)).frame["timestamp"].tolist() == want


def test_dask_refuses_int96_dates_it_would_wrap_naming_the_shard_and_row(tmp_path: Path) -> None:
    from bench.data.dask_units import refuse_far_int96

    p = _int96(tmp_path)
    with pytest.raises(DataError) as info:
        refuse_far_int96(p, "ts")
    assert "spark.parquet, row 3" in str(info.value)
    assert "INT96" in str(info.value)
    refuse_far_int96(parquet(tmp_path, ts=pa.array([0, 1, 2, 3], pa.timestamp("s"))), "ts")


@pytest.mark.parametrize("cell", ["10:30", "10:30:00 PM", "Jan 2020"])
def test_a_time_or_date_without_its_day_is_refused_not_read_on_the_day_of_the_run(
        tmp_path: Path, cell: str) -> None:
    p = put(tmp_path, "r.csv", HEAD + f"1,2,3,2020-01-01\n1,3,3,{cell}\n")
    refused_at(p, "r.csv:3", "'ts'", "no full date")


def test_a_parquet_time_of_day_column_is_refused_at_its_row(tmp_path: Path) -> None:
    p = parquet(tmp_path, ts=pa.array([1, 2, 3, 4], pa.time64("us")))
    refused_at(p, "r.parquet, row 1", "'ts'", "no full date")


def test_float32_seconds_rounded_by_the_export_are_refused_at_their_row(tmp_path: Path) -> None:
    stamps = np.array([100, 1_600_000_001, 1_600_000_200, 300], dtype=np.float32)
    msg = refused_at(parquet(tmp_path, ts=pa.array(stamps)), "r.parquet, row 2", "'ts'",
                     "float32")
    assert "128" in msg  # the step a float32 takes at 1.6e9 s: 1600000200 became 1600000256


def test_float32_seconds_below_2_to_24_are_exact_and_read(tmp_path: Path) -> None:
    stamps = np.array([0, 1, 16_777_215, -5], dtype=np.float32)
    r = load(parquet(tmp_path, ts=pa.array(stamps)))
    assert r.frame["timestamp"].tolist() == [0, 1, 16_777_215, -5]


def test_dask_partitions_refuse_float32_seconds_as_the_local_reader_does() -> None:
    from bench.data.dask_units import check_seconds

    cells = pd.Series(np.array([100, 1_600_000_001], dtype=np.float32))
    with pytest.raises(DataError) as info:
        check_seconds(cells.to_numpy(np.float64), cells, "part.parquet", lambda k: k + 1, "ts")
    assert "part.parquet, row 2" in str(info.value)
    assert "float32" in str(info.value)


@pytest.mark.parametrize(("text", "line"), [
    ("user,item,rating,ts\r1,2,3,100\r\r1,3,x,200\r", 4),                 # CR-only, a blank
    ("user,item,rating,ts\r\n1,2,3,100\r\n\r\n1,3,x,200\r\n", 4),         # CRLF, a blank
    ('user,item,rating,ts\r\n"a\r\nb",2,3,100\r\n\r\n\r\nc,3,x,200\r\n', 6),  # both
])
def test_every_line_end_counts_lines_the_same_way(tmp_path: Path, text: str, line: int) -> None:
    refused_at(put(tmp_path, "r.csv", text), f"r.csv:{line}", "'x'")


def test_duplicates_last_keeps_the_later_line_and_says_where_it_stands(tmp_path: Path) -> None:
    p = put(tmp_path, "r.csv", HEAD + "1,2,3,100\n\n1,2,4,200\n\n1,3,4,50\n")
    r = load(p, duplicates="last")
    assert r.frame["rating"].tolist() == [4.0, 4.0]
    assert r.places[1].tolist() == [4, 6]


def test_recbole_gauc_weights_each_user_by_its_positives() -> None:
    """RecBole GAUC (metrics.py): per-user AUC weighted by the user's positive items; a user
    without positives is left out. Users: AUC 1 (1 positive), AUC 1/2 (2 positives)."""
    from bench.metrics import evaluate

    got = evaluate([1, 0, 0, 1, 1, 0, 0, 0], [0.9, 0.5, 0.1, 0.1, 0.9, 0.5, 0.3, 0.2],
                   qid=[1, 1, 1, 2, 2, 2, 3, 3], metrics=["gauc"], profile="recbole").metrics
    assert got["gauc"] == pytest.approx((1 * 1 + 0.5 * 2) / 3, abs=1e-15)


def test_a_label_the_run_profile_refuses_names_the_converted_file_read(tmp_path: Path) -> None:
    """A converted folder's Parquet files record the ratings file they came from; an error
    about a row of ``vali.parquet`` must name ``vali.parquet`` (it named ``r.csv:vali``, whose
    row 12 is another rating)."""
    from bench.data.parquet import read_parquet

    rows = [f"u{u},i{(u * 7 + j * 3) % 40},{(u + j) % 5 + 1},{1_000_000_000 + u * 50 + j}"
            for u in range(8) for j in range(10)]
    put(tmp_path, "r.csv", "user,item,rating,timestamp\n" + "\n".join(rows) + "\n")
    res = cli(tmp_path, "convert", "--ratings", "r.csv", "--user", "user", "--item", "item",
              "--rating", "rating", "--timestamp", "timestamp", "--out", "conv",
              "--target-size", "1", "--min-history", "2", "--negatives", "3",
              "--features", "user,item")
    assert res.status == 0, res.err[-500:]
    vali = read_parquet(tmp_path / "conv" / "vali.parquet")
    assert vali.source == str(tmp_path / "conv" / "vali.parquet")
    from bench.benchmark.scoring import check_scorable
    from bench.metrics.profiles import get_profile

    with pytest.raises(DataError) as info:
        check_scorable([("vali", vali)], metrics=["ndcg@3"], profile=get_profile("recbole"))
    row = int(np.flatnonzero(vali.y > 1)[0]) + 1
    assert f"vali.parquet, row {row}" in str(info.value)


def test_a_quoted_header_name_holding_the_separator_shifts_no_column(tmp_path: Path) -> None:
    """``"note, x"`` is one column: split at every comma it made two, and every named column
    after it was read one place to the right (user <- item, item <- rating, ...)."""
    p = put(tmp_path, "r.csv", '"note, x",user,item,rating,ts,minutes\n'
            "n,1,10,4,100,7\nn,1,11,3,200,8\nn,2,10,5,300,9\n")
    r = load(p)
    assert r.frame["user"].tolist() == [1, 1, 2]
    assert r.frame["item"].tolist() == [10, 11, 10]
    assert r.frame["rating"].tolist() == [4.0, 3.0, 5.0]
    assert r.frame["timestamp"].tolist() == [100, 200, 300]


@pytest.mark.parametrize("name", ["item, id", 'the "item"'])
def test_a_quoted_header_name_can_be_named_as_written(tmp_path: Path, name: str) -> None:
    quoted = '"' + name.replace('"', '""') + '"'
    p = put(tmp_path, "r.csv", f"user,{quoted},rating,ts\n1,2,3,100\n1,3,4,200\n")
    assert load(p, item=name).frame["item"].tolist() == [2, 3]


def test_the_dask_header_check_reads_quoted_names_as_the_local_reader(tmp_path: Path) -> None:
    from bench.data.dask_headers import csv_header

    p = put(tmp_path, "part.csv", '"note, x",user,"the ""item""",rating,ts\nn,1,2,3,100\n')
    names = csv_header(p, ",", {"user": "user", "item": 'the "item"', "rating": "rating",
                                "timestamp": "ts"})
    assert names == ["note, x", "user", 'the "item"', "rating", "ts"]


def test_a_fractional_id_in_a_dictionary_encoded_float_column_is_refused(tmp_path: Path) -> None:
    p = parquet(tmp_path, user=pa.array([7.0, 7.0, 8.5, 8.0]).dictionary_encode())
    refused_at(p, "r.parquet, row 3", "'user'", "not an integer")


def test_dictionary_encoded_integer_ids_are_kept(tmp_path: Path) -> None:
    r = load(parquet(tmp_path, user=pa.array([7, 7, 8, 8]).dictionary_encode()))
    assert r.frame["user"].tolist() == [7, 7, 8, 8]
    assert r.users is None
