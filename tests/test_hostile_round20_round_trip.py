"""Round 20 (C): an engineer who takes every file ltrbench writes into other tools and back.

Every file is read back with the tool a user would use on it -- scikit-learn's, LightGBM's and
XGBoost's own SVMlight loaders, pytrec_eval for TREC measures, pandas / pyarrow / the ``json``
module for tables, SciPy for the paired t test -- and the numbers, ids and dtypes must be the
ones ltrbench meant: the same matrix (float32 values bit for bit, zero features omitted, qid
order, labels), ids as written (leading zeros, text, 20-digit numbers), per-query values whose
mean is the printed summary, strict JSON (no NaN / Infinity), CSV that pandas reads back with
the dtypes it was written with, and ltrbench reading its own outputs (``evaluate`` on the
converted files, ``report`` on a run folder).

Classes (issue 19): silently wrong number (``wrong``), unclear error (``unclear``), traceback.
Golden values come from the other tools or from hand arithmetic, never from ltrbench.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import io
import json
import math
import os
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import ROOT, cli, pytrec_per_query, write_run_tables

RESULTS = ROOT / "results"
USERS = ["007", "u@x.com", "0042", "12345678901234567890", "abc"]


def strict_json(text: str) -> Any:
    """``json.loads`` that refuses NaN / Infinity, as JavaScript's and Go's parsers do."""
    def bad(c: str) -> None:
        raise ValueError(f"non-standard JSON constant {c}")
    return json.loads(text, parse_constant=bad)


# ------------------------------------------------------------------------------ convert
@pytest.fixture(scope="module")
def conv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One conversion of a ratings table with text, zero-padded and 20-digit user ids."""
    import random

    root = tmp_path_factory.mktemp("conv")
    rnd = random.Random(1)
    items = [f"i{j:03d}" for j in range(12)]
    rows, t = ["user,item,rating,timestamp"], 0
    for u in USERS:
        for it in rnd.sample(items, 8):
            t += 1
            rows.append(f"{u},{it},{rnd.randint(1, 5)},{1000 + t}")
    (root / "r.csv").write_text("\n".join(rows) + "\n")
    res = cli(root, "convert", "--ratings", "r.csv", "--layout", "csv", "--user", "user",
              "--item", "item", "--rating", "rating", "--timestamp", "timestamp",
              "--target-size", "1", "--min-history", "2", "--negatives", "3", "--features",
              "user,item", "--out", "o")
    assert res.status == 0, res
    return root / "o"


def _sk(path: Path) -> tuple[Any, np.ndarray, np.ndarray]:
    from sklearn.datasets import load_svmlight_file

    X, y, q = load_svmlight_file(str(path), query_id=True, dtype=np.float64, zero_based=False)
    return X.toarray(), y, q


def _pq(path: Path) -> pd.DataFrame:
    import pyarrow.parquet as pq

    return pq.read_table(path).to_pandas()


FEATS = ["qid", "label", "user", "item"]


@pytest.mark.parametrize("split", ["train", "vali", "test"])
def test_convert_svmlight_matrix_is_the_parquet_matrix_bit_for_bit_in_float32(
        conv: Path, split: str) -> None:  # wrong: the text and Parquet sets must be one set
    X, _, _ = _sk(conv / f"{split}.txt")
    frame = _pq(conv / f"{split}.parquet")
    F = frame.drop(columns=FEATS).to_numpy()
    assert X.shape == F.shape
    assert np.array_equal(X.astype(np.float32).view(np.uint32), F.astype(np.float32).view(np.uint32))


@pytest.mark.parametrize("split", ["train", "test"])
def test_convert_svmlight_qids_and_labels_are_the_parquet_ones_in_order(conv: Path,
                                                                        split: str) -> None:
    _, y, q = _sk(conv / f"{split}.txt")
    frame = _pq(conv / f"{split}.parquet")
    assert q.tolist() == frame["qid"].tolist()  # wrong: qid order
    assert y.tolist() == frame["label"].tolist()  # wrong: labels


def test_convert_query_sidecar_is_the_run_lengths_of_the_qid_column(conv: Path) -> None:
    _, _, q = _sk(conv / "train.txt")
    sizes = [int(s) for s in (conv / "train.txt.query").read_text().split()]
    change = np.flatnonzero(np.diff(q)) + 1
    runs = np.diff(np.r_[0, change, len(q)]).tolist()
    assert sizes == runs  # wrong: LightGBM would group other rows
    assert len(set(q.tolist())) == len(runs)  # every query's rows are together


def test_convert_svmlight_omits_zero_features_and_writes_no_nan(conv: Path) -> None:
    text = (conv / "train.txt").read_text()
    body = [ln for ln in text.splitlines() if not ln.startswith("#")]
    for ln in body:
        for tok in ln.split()[2:]:
            v = tok.split(":", 1)[1]
            assert float(v) != 0.0, ln  # zeros omitted, as documented
            assert v.lower() not in ("nan", "inf", "-inf"), ln


def test_convert_lightgbm_reads_the_text_split_with_its_query_file(conv: Path,
                                                                   tmp_path: Path) -> None:
    # wrong/unclear: LightGBM's own loader ("Unknown format of training data") refused the
    # header comment convert wrote; it reads no 'qid:' field (README: strip it), and then takes
    # the groups from the '.query' file beside it
    import lightgbm as lgb

    text = re.sub(r" qid:\S+", "", (conv / "train.txt").read_text())
    (tmp_path / "train.txt").write_text(text)
    (tmp_path / "train.txt.query").write_bytes((conv / "train.txt.query").read_bytes())
    ds = lgb.Dataset(str(tmp_path / "train.txt"), params={"verbosity": -1}).construct()
    frame = _pq(conv / "train.parquet")
    assert ds.num_data() == len(frame)
    assert ds.get_label().tolist() == frame["label"].astype(np.float32).tolist()
    groups = np.asarray(ds.get_field("group"))
    sizes = frame.groupby("qid", sort=False).size().tolist()
    assert np.diff(groups).tolist() == sizes


@pytest.mark.filterwarnings("ignore:.*Text file input has been deprecated")
def test_convert_xgboost_reads_the_text_split_with_its_qids(conv: Path) -> None:
    import xgboost as xgb

    dm = xgb.DMatrix(f"{conv / 'test.txt'}?format=libsvm")
    frame = _pq(conv / "test.parquet")
    assert dm.num_row() == len(frame)
    assert dm.get_label().tolist() == frame["label"].astype(np.float32).tolist()
    ptr = dm.get_uint_info("group_ptr").tolist()
    sizes = frame.groupby("qid", sort=False).size().tolist()
    assert np.diff(ptr).tolist() == sizes


def test_convert_users_csv_keeps_every_id_as_written_when_read_as_text(conv: Path) -> None:
    users = pd.read_csv(conv / "users.csv", dtype=str, keep_default_na=False)
    assert list(users.columns) == ["user", "external_id"]
    assert sorted(users["external_id"]) == sorted(USERS)  # wrong: leading zeros, 20 digits
    assert users["user"].astype(int).tolist() == list(range(len(USERS)))


def test_convert_users_csv_map_points_each_qid_at_its_own_user(conv: Path) -> None:
    # the test row of each user is that user's latest rating: the qid must name that user
    users = pd.read_csv(conv / "users.csv", dtype=str, keep_default_na=False)
    back = dict(zip(users["user"].astype(int), users["external_id"], strict=True))
    frame = _pq(conv / "test.parquet")
    assert set(frame["qid"].map(back)) == set(USERS)
    assert (frame["qid"] == frame["user"]).all()  # qid = user number


def test_convert_items_csv_maps_the_parquet_item_numbers_to_the_written_ids(conv: Path) -> None:
    items = pd.read_csv(conv / "items.csv", dtype=str, keep_default_na=False)
    back = dict(zip(items["item"].astype(int), items["external_id"], strict=True))
    frame = _pq(conv / "train.parquet")
    assert all(re.fullmatch(r"i0\d\d", back[i]) for i in frame["item"])


def test_convert_users_csv_read_by_pandas_default_keeps_int64_numbers(conv: Path) -> None:
    # pandas' own reading: the number column int64, the ids column text (mixed ids)
    users = pd.read_csv(conv / "users.csv")
    assert users["user"].dtype == np.int64
    assert "007" in users["external_id"].astype(str).tolist()


def test_convert_summary_json_is_strict_json_with_true_digests(conv: Path) -> None:
    summary = strict_json((conv / "summary.json").read_text())
    for name, digest in summary["sha256"].items():
        assert hashlib.sha256((conv / name).read_bytes()).hexdigest() == digest, name


def test_convert_summary_rows_and_label_histogram_match_the_files(conv: Path) -> None:
    summary = strict_json((conv / "summary.json").read_text())
    for split in ("train", "vali", "test"):
        _, y, q = _sk(conv / f"{split}.txt")
        part = summary["partitions"][split]
        assert part["rows"] == len(y)
        assert part["queries"] == len(set(q.tolist()))
        hist = {str(int(k)): int(v) for k, v in zip(*np.unique(y, return_counts=True), strict=True)}
        assert part["labels"] == hist


def test_convert_feature_names_are_the_parquet_columns_and_the_header(conv: Path) -> None:
    summary = strict_json((conv / "summary.json").read_text())
    names = summary["feature_names"]
    assert [c for c in _pq(conv / "vali.parquet").columns if c not in FEATS] == names
    X, _, _ = _sk(conv / "vali.txt")
    assert X.shape[1] == len(names)


def test_convert_svmlight_holds_data_lines_only(conv: Path) -> None:
    # XGBoost's loader fails on '#' lines (dmlc "Check failed: offset.back() == value.size()")
    for split in ("train", "vali", "test"):
        lines = (conv / f"{split}.txt").read_text().splitlines()
        assert not [ln for ln in lines if not re.match(r"\d+ qid:\d+( \d+:\S+)*$", ln)], split


def test_convert_ltrbench_reads_its_own_text_split_as_sklearn_does(conv: Path) -> None:
    from bench.data.svmlight import read_svmlight

    data = read_svmlight(conv / "test.txt")
    X, y, q = _sk(conv / "test.txt")
    assert np.array_equal(np.asarray(data.X, dtype=np.float32), X.astype(np.float32))
    assert data.y.tolist() == y.tolist()
    assert [int(v) for v in data.qid] == q.tolist()


def test_convert_evaluate_on_the_converted_test_split_matches_hand_ndcg(conv: Path) -> None:
    # evaluate reads its own converted file: ndcg@10 of the first feature as score, by hand
    _, y, q = _sk(conv / "test.txt")
    frame = _pq(conv / "test.parquet")
    s = frame["item_mean"].to_numpy(np.float64)
    np.savetxt(conv.parent / "s.txt", s, fmt="%.17g")
    want = []
    for qq in dict.fromkeys(q.tolist()):
        m = q == qq
        lab, sc = y[m], s[m]
        if lab.max() < 1:
            continue
        gains = 2.0 ** lab - 1
        # tied scores averaged: each tie group's gains spread evenly over its ranks
        order = np.argsort(-sc, kind="stable")
        dcg, pos = 0.0, 0
        for v in sorted(set(sc.tolist()), reverse=True):
            g = gains[sc == v]
            disc = 1 / np.log2(np.arange(pos, pos + len(g)) + 2)
            dcg += g.mean() * disc[: max(0, min(len(g), 10 - pos))].sum()
            pos += len(g)
        ideal = np.sort(gains)[::-1][:10]
        want.append(dcg / (ideal / np.log2(np.arange(len(ideal)) + 2)).sum())
        assert order is not None
    res = cli(conv.parent, "evaluate", "--data", str(conv / "test.txt"), "--scores", "s.txt",
              "--metrics", "ndcg@10", "--format", "json")
    assert res.status == 0, res
    assert strict_json(res.out)["metrics"]["ndcg@10"] == pytest.approx(np.mean(want), abs=1e-12)


# ------------------------------------------------------------------------------ evaluate
QRELS = ("007 0 a 2\n007 0 b 0\n007 0 c 1\n"
         "010 0 d 1\n010 0 e 0\n"
         "3 0 f 0\n3 0 g 0\n"
         "04 0 h 3\n04 0 i 1\n04 0 j 0\n")
# scores one ulp apart (0.30000000000000004 vs 0.3), a long score, a 1e-300 score
RUN = ("007 Q0 a 1 0.30000000000000004 t\n007 Q0 b 2 0.3 t\n007 Q0 c 3 0.1 t\n"
       "010 Q0 d 1 1e-300 t\n010 Q0 e 2 5e-301 t\n"
       "3 Q0 f 1 2 t\n3 Q0 g 2 1 t\n"
       "04 Q0 h 1 0.123456789012345678 t\n04 Q0 i 2 0.9 t\n04 Q0 j 3 0.5 t\n")


@pytest.fixture(scope="module")
def trec(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("trec")
    (root / "q.txt").write_text(QRELS)
    (root / "r.txt").write_text(RUN)
    return root


@pytest.fixture(scope="module")
def pq_csv(trec: Path) -> tuple[dict[str, Any], pd.DataFrame, str]:
    res = cli(trec, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--profile", "trec_eval",
              "--metrics", "ndcg_cut_10,map,P_5,recip_rank", "--per-query", "pq.csv",
              "--format", "json")
    assert res.status == 0, res
    text = (trec / "pq.csv").read_text()
    return strict_json(res.out), pd.read_csv(io.StringIO(text), dtype={"qid": str}), text


@pytest.mark.parametrize(("measure", "name"), [("ndcg_cut_10", "ndcg_cut_10"), ("map", "map"),
                                          ("P_5", "P_5"), ("recip_rank", "recip_rank")])
def test_per_query_csv_values_are_pytrec_evals_bit_for_bit(
        pq_csv: tuple[dict[str, Any], pd.DataFrame, str], measure: str, name: str) -> None:
    _, frame, _ = pq_csv
    want = pytrec_per_query(QRELS, RUN, measure)
    got = dict(zip(frame["qid"], frame[name], strict=True))
    assert set(got) == set(want)  # the ids as written: 007, 010, 04
    for q, v in want.items():
        assert got[q] == v, (q, got[q], v)  # wrong number


def test_per_query_csv_mean_is_the_printed_summary(
        pq_csv: tuple[dict[str, Any], pd.DataFrame, str]) -> None:
    summary, frame, _ = pq_csv
    for m, v in summary["metrics"].items():
        assert frame[m].mean() == pytest.approx(v, abs=1e-15), m


def test_per_query_csv_keeps_the_zero_padded_ids_as_text(
        pq_csv: tuple[dict[str, Any], pd.DataFrame, str]) -> None:
    _, _, text = pq_csv
    ids = [r[0] for r in csv.reader(io.StringIO(text))][1:]
    assert sorted(ids) == ["007", "010", "04", "3"]


def test_per_query_csv_writes_every_float_so_it_reads_back_bit_for_bit(
        pq_csv: tuple[dict[str, Any], pd.DataFrame, str]) -> None:
    _, _, text = pq_csv
    for row in list(csv.reader(io.StringIO(text)))[1:]:
        for cell in row[1:]:
            assert repr(float(cell)) == cell, cell  # the shortest round-trip form


def test_evaluate_json_mean_is_pytrec_evals_mean(pq_csv: tuple[dict[str, Any], pd.DataFrame,
                                                                str]) -> None:
    summary, _, _ = pq_csv
    want = pytrec_per_query(QRELS, RUN, "ndcg_cut_10")
    assert summary["metrics"]["ndcg_cut_10"] == pytest.approx(np.mean(list(want.values())),
                                                              abs=1e-15)


def test_per_query_json_keeps_ids_exactly_and_is_strict_json(trec: Path) -> None:
    res = cli(trec, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics", "ndcg@10",
              "--per-query", "pq.json")
    assert res.status == 0, res
    rows = strict_json((trec / "pq.json").read_text())
    assert sorted(r["qid"] for r in rows) == ["007", "010", "04", "3"]


def test_per_query_json_of_a_blank_query_under_ltrbench_is_null_not_nan(trec: Path) -> None:
    # query 3 has no relevant document: the ltrbench profile leaves it out (no number)
    res = cli(trec, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics", "ndcg@10",
              "--per-query", "pqb.json", "--profile", "ltrbench", "--format", "json")
    assert res.status == 0, res
    rows = strict_json((trec / "pqb.json").read_text())  # NaN is no JSON
    summary = strict_json(res.out)
    vals = [r["ndcg@10"] for r in rows if r["ndcg@10"] is not None]
    assert len(vals) == 3
    assert np.mean(vals) == pytest.approx(summary["metrics"]["ndcg@10"], abs=1e-15)


def test_per_query_csv_of_a_blank_query_reads_back_as_missing_and_mean_is_summary(
        trec: Path) -> None:
    res = cli(trec, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics", "ndcg@10",
              "--per-query", "pqb.csv", "--profile", "ltrbench", "--format", "json")
    assert res.status == 0, res
    frame = pd.read_csv(trec / "pqb.csv", dtype={"qid": str})
    assert frame["ndcg@10"].dtype == np.float64
    assert frame["ndcg@10"].mean() == pytest.approx(strict_json(res.out)["metrics"]["ndcg@10"],
                                                    abs=1e-15)  # pandas skips the blank


def test_evaluate_json_with_every_query_blank_is_strict_json(tmp_path: Path) -> None:
    (tmp_path / "q.txt").write_text("1 0 a 0\n1 0 b 0\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 0.5 t\n1 Q0 b 2 0.4 t\n")
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics",
              "ndcg@10", "--format", "json", "--per-query", "p.json")
    assert res.status in (0, 2), res
    if res.status == 0:
        strict_json(res.out)
        strict_json((tmp_path / "p.json").read_text())


def test_evaluate_csv_summary_reads_back_as_float_values(trec: Path) -> None:
    res = cli(trec, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics",
              "ndcg@10,map@10", "--format", "csv")
    assert res.status == 0, res
    frame = pd.read_csv(io.StringIO(res.out))
    assert frame["value"].dtype == np.float64
    assert list(frame.columns) == ["metric", "value", "profile"]


def test_a_score_one_ulp_above_another_is_not_a_tie_for_ltrbench(trec: Path) -> None:
    # the ltrbench profile reads scores as float64: a above b, NDCG of 007 = ideal order / hand
    res = cli(trec, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics", "ndcg@10",
              "--per-query", "u.json", "--profile", "ltrbench")
    assert res.status == 0, res
    got = {r["qid"]: r["ndcg@10"] for r in strict_json((trec / "u.json").read_text())}
    dcg = 3 / 1 + 0 / math.log2(3) + 1 / 2
    idcg = 3 / 1 + 1 / math.log2(3)
    assert got["007"] == pytest.approx(dcg / idcg, abs=1e-15)


def test_scores_near_the_smallest_normal_keep_their_order(trec: Path) -> None:
    # 1e-300 above 5e-301: query 010 ranks d first, NDCG 1
    res = cli(trec, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics", "ndcg@10",
              "--per-query", "n.json", "--profile", "ltrbench")
    assert res.status == 0, res
    got = {r["qid"]: r["ndcg@10"] for r in strict_json((trec / "n.json").read_text())}
    assert got["010"] == 1.0


def test_compare_per_query_csv_columns_are_each_runs_single_values(trec: Path) -> None:
    (trec / "r2.txt").write_text(RUN.replace("0.9 t", "0.01 t"))
    res = cli(trec, "evaluate", "--qrels", "q.txt", "--run", "a=r.txt", "--run", "b=r2.txt",
              "--profile", "trec_eval", "--metrics", "ndcg_cut_10", "--per-query", "cmp.csv",
              "--format", "json")
    assert res.status == 0, res
    frame = pd.read_csv(trec / "cmp.csv", dtype={"qid": str})
    for name, run in (("a", RUN), ("b", (trec / "r2.txt").read_text())):
        want = pytrec_per_query(QRELS, run, "ndcg_cut_10")
        got = dict(zip(frame["qid"], frame[name], strict=True))
        assert got == want, name


def test_compare_json_means_are_the_per_query_csv_means(trec: Path) -> None:
    (trec / "r3.txt").write_text(RUN.replace("0.9 t", "0.02 t"))
    res = cli(trec, "evaluate", "--qrels", "q.txt", "--run", "a=r.txt", "--run", "b=r3.txt",
              "--profile", "trec_eval", "--metrics", "map", "--per-query", "cmp3.csv",
              "--format", "json")
    assert res.status == 0, res
    doc = strict_json(res.out)
    frame = pd.read_csv(trec / "cmp3.csv", dtype={"qid": str})
    text = json.dumps(doc)
    for name in ("a", "b"):
        mean = frame[name].mean()
        assert any(abs(float(x) - mean) < 1e-15 for x in re.findall(r"[-0-9.e]+", text)
                   if re.fullmatch(r"-?\d+\.\d+(e-?\d+)?", x)), (name, mean)


def test_scores_file_with_17_digit_scores_is_not_tied_by_the_reader(tmp_path: Path) -> None:
    # two scores that differ in the 17th digit: row 1 above row 2 (labels 0 then 1) -> NDCG<1
    (tmp_path / "d.txt").write_text("0 qid:1 1:1\n1 qid:1 1:2\n")
    (tmp_path / "s.txt").write_text("0.30000000000000004\n0.3\n")
    res = cli(tmp_path, "evaluate", "--data", "d.txt", "--scores", "s.txt", "--metrics",
              "ndcg@10", "--format", "json")
    assert res.status == 0, res
    want = (1 / math.log2(3)) / 1.0
    assert strict_json(res.out)["metrics"]["ndcg@10"] == pytest.approx(want, abs=1e-15)


# ------------------------------------------------------------------------------ run folder
LGB, XGB = "lightgbm-lambdarank", "xgboost-ndcg"
#: per-query values with full float64 digits: a mean printed short would lose them
PQV = {LGB: [0.1 + 0.2, 2 / 3, 0.7, 1 / 7, 0.999999999999, 0.123456789012345],
       XGB: [0.3, 0.6666666666666667, 0.69, 0.15, 0.99999999999, 0.2]}


@pytest.fixture(scope="module")
def board(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("board")
    run = root / "runs" / "r1"
    run.mkdir(parents=True)
    (run / "config.toml").write_text('dataset = "007"\nprofile = "ltrbench"\n'
                                     f"models = {json.dumps(list(PQV))}\nseeds = [0]\n"
                                     "quick = true\n")
    (run / "manifest.json").write_text(json.dumps(
        {"finished": "2026-01-01T00:00:00+00:00", "seeds": [0],
         "models": {m: {} for m in PQV}, "evaluation": {"profile": "ltrbench"},
         "dataset": {"name": "007"}}))
    lib = {LGB: "lightgbm", XGB: "xgboost"}
    m_rows, p_rows, t_rows = [], [], []
    for m, vals in PQV.items():
        for split in ("vali", "test"):
            m_rows.append(("007", m, lib[m], 0, split, "ndcg@10", float(np.mean(vals)),
                           "ltrbench"))
            p_rows += [("007", m, 0, split, 100 + i, "ndcg@10", v) for i, v in enumerate(vals)]
        t_rows.append(("007", m, lib[m], 0, 1.25, 0.0004, 100.0, 10, 11))
    write_run_tables(run, m_rows, p_rows, t_rows)
    res = cli(root, "report", "--runs", str(run), "--out", "rep", "--no-plots",
              "--no-progress", "--bootstrap", "50", "--permutations", "300")
    assert res.status == 0, res
    return root / "rep"


def _board_json(board: Path) -> dict[str, Any]:
    doc = strict_json((board / "leaderboard.json").read_text())
    assert isinstance(doc, dict)
    return doc


def test_leaderboard_json_is_strict_json_with_the_per_query_means(board: Path) -> None:
    rows = {r["model"]: r for r in _board_json(board)["tables"][0]["rows"]}
    for m, vals in PQV.items():
        assert rows[m]["metrics"]["ndcg@10"]["mean"] == pytest.approx(float(np.mean(vals)),
                                                                      abs=1e-16), m


def test_leaderboard_json_keeps_a_zero_padded_dataset_name(board: Path) -> None:
    assert _board_json(board)["tables"][0]["dataset"] == "007"


def test_leaderboard_json_p_t_is_scipys_paired_t_test(board: Path) -> None:
    from scipy import stats

    rows = _board_json(board)["tables"][0]["rows"]
    best = _board_json(board)["tables"][0]["best_model"]
    other = next(r for r in rows if r["model"] != best)
    want = stats.ttest_rel(PQV[best], PQV[other["model"]]).pvalue
    assert other["vs_best"]["p_t"] == pytest.approx(want, rel=1e-12)


def test_leaderboard_csv_reads_back_with_text_names_and_float_numbers(board: Path) -> None:
    frame = pd.read_csv(board / "leaderboard.csv", dtype={"dataset": str})
    assert frame["dataset"].tolist() == ["007", "007"]
    assert frame["ndcg@10_mean"].dtype == np.float64
    assert frame["n_queries"].dtype == np.int64


def test_leaderboard_csv_means_are_the_json_means_to_ten_digits(board: Path) -> None:
    frame = pd.read_csv(board / "leaderboard.csv", dtype={"dataset": str})
    rows = {r["model"]: r for r in _board_json(board)["tables"][0]["rows"]}
    for _, r in frame.iterrows():
        want = rows[r["model"]]["metrics"]["ndcg@10"]["mean"]
        assert r["ndcg@10_mean"] == float(f"{want:.10g}")


def test_leaderboard_md_cells_are_the_json_means_to_four_decimals(board: Path) -> None:
    md = (board / "leaderboard.md").read_text()
    rows = {r["model"]: r for r in _board_json(board)["tables"][0]["rows"]}
    for m, r in rows.items():
        line = next(ln for ln in md.splitlines() if ln.startswith(f"| {m} "))
        assert f"{r['metrics']['ndcg@10']['mean']:.4f}" in line


def test_leaderboard_tex_cells_are_the_json_means_to_four_decimals(board: Path) -> None:
    tex = (board / "leaderboard.tex").read_text()
    for r in _board_json(board)["tables"][0]["rows"]:
        assert f"{r['metrics']['ndcg@10']['mean']:.4f}" in tex


def test_leaderboard_bold_marks_the_best_mean_as_printed(board: Path) -> None:
    md = (board / "leaderboard.md").read_text()
    best = max(PQV, key=lambda m: float(np.mean(PQV[m])))
    line = next(ln for ln in md.splitlines() if ln.startswith(f"| {best} "))
    assert f"**{float(np.mean(PQV[best])):.4f}**" in line


def test_leaderboard_csv_fit_time_is_the_recorded_seconds(board: Path) -> None:
    frame = pd.read_csv(board / "leaderboard.csv", dtype={"dataset": str})
    assert frame["fit_s_mean"].tolist() == [1.25, 1.25]
    assert frame["predict_s_mean"].tolist() == [0.0004, 0.0004]


# ------------------------------------------------------------------------------ committed results
def test_committed_json_files_are_strict_json() -> None:
    for p in sorted(RESULTS.rglob("*.json")):
        strict_json(p.read_text(encoding="utf-8"))


def test_committed_leaderboard_csv_is_its_json_to_ten_digits() -> None:
    doc = strict_json((RESULTS / "leaderboard.json").read_text(encoding="utf-8"))
    frame = pd.read_csv(RESULTS / "leaderboard.csv", dtype={"dataset": str, "model": str})
    n = 0
    for t in doc["tables"]:
        for r in t["rows"]:
            row = frame[(frame["dataset"] == t["dataset"]) & (frame["model"] == r["model"])]
            assert len(row) == 1
            for m, e in r["metrics"].items():
                for f in ("mean", "ci_low", "ci_high"):
                    if e.get(f) is not None:
                        assert row[f"{m}_{f}"].iloc[0] == float(f"{e[f]:.10g}")
                        n += 1
    assert n > 100


def test_committed_leaderboard_means_are_the_mean_of_their_seeds() -> None:
    import statistics

    doc = strict_json((RESULTS / "leaderboard.json").read_text(encoding="utf-8"))
    for t in doc["tables"]:
        for r in t["rows"]:
            for m, e in r["metrics"].items():
                seeds = list(e["per_seed"].values())
                assert statistics.fmean(seeds) == pytest.approx(e["mean"], abs=1e-15), m
                if len(seeds) > 1:
                    assert statistics.stdev(seeds) == pytest.approx(e["std"], abs=1e-15), m


def test_committed_crosscheck_abs_diff_is_builtin_minus_reference() -> None:
    for p in sorted(RESULTS.glob("*/crosscheck.json")):
        for c in strict_json(p.read_text())["checks"]:
            if c["builtin"] is not None and c["reference"] is not None:
                assert c["abs_diff"] == pytest.approx(abs(c["builtin"] - c["reference"]),
                                                      abs=1e-15), p


# ------------------------------------------------------------------------------ a real run
@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A finished run of the random baseline (two seeds) on a small LETOR folder, and its
    ``--format json`` document."""
    from hostile_kit import letor_folder

    root = tmp_path_factory.mktemp("run")
    letor_folder(root / "data")
    res = cli(root, "run", "--dataset", "data", "--models", "random", "--quick", "--seeds",
              "0,1", "--out", "o", "--no-progress", "--format", "json")
    assert res.status == 0, res
    doc = strict_json(res.out)
    return Path(doc["run_dir"]) if Path(doc["run_dir"]).is_absolute() else \
        root / doc["run_dir"], doc


def _trec_from_run(run: Path, seed: int, split: str) -> tuple[dict[str, dict[str, int]],
                                                              dict[str, dict[str, float]]]:
    s = pd.read_parquet(run / "scores.parquet")
    lab = pd.read_parquet(run / "labels.parquet")
    s = s[(s["seed"] == seed) & (s["split"] == split)].merge(lab[lab["split"] == split],
                                                             on="row")
    qrels: dict[str, dict[str, int]] = {}
    trun: dict[str, dict[str, float]] = {}
    for r in s.itertuples():
        qrels.setdefault(str(r.qid), {})[f"d{r.row}"] = int(r.label)
        trun.setdefault(str(r.qid), {})[f"d{r.row}"] = float(r.score)
    return qrels, trun


def _hand_ndcg(labels: list[int], scores: list[float], k: int) -> float | None:
    """ltrbench's documented convention by hand: gain 2^l-1, 1/log2(rank+1), tied scores
    averaged, ideal over the scored list; None for a query without a relevant document."""
    if max(labels) < 1:
        return None
    gains = [2.0 ** g - 1 for g in labels]
    dcg, pos = 0.0, 0
    for v in sorted(set(scores), reverse=True):
        group = [g for g, s in zip(gains, scores, strict=True) if s == v]
        for r in range(pos, pos + len(group)):
            if r < k:
                dcg += (sum(group) / len(group)) / math.log2(r + 2)
        pos += len(group)
    ideal = sorted(gains, reverse=True)[:k]
    return dcg / sum(g / math.log2(r + 2) for r, g in enumerate(ideal))


def test_run_metrics_csv_ndcg_is_the_hand_ndcg_of_its_own_scores(
        run_dir: tuple[Path, dict[str, Any]]) -> None:
    run, _ = run_dir
    metrics = pd.read_csv(run / "metrics.csv")
    for seed in (0, 1):
        qrels, trun = _trec_from_run(run, seed, "test")
        vals = [_hand_ndcg([qrels[q][d] for d in trun[q]], list(trun[q].values()), 10)
                for q in trun]
        want = float(np.mean([v for v in vals if v is not None]))
        got = metrics[(metrics["seed"] == seed) & (metrics["split"] == "test")
                      & (metrics["metric"] == "ndcg@10")]["value"].item()
        assert got == pytest.approx(want, abs=1e-12), seed


def test_run_metrics_csv_precision_is_pytrec_evals_of_its_own_scores(
        run_dir: tuple[Path, dict[str, Any]]) -> None:
    import pytrec_eval

    run, _ = run_dir
    metrics = pd.read_csv(run / "metrics.csv")
    qrels, trun = _trec_from_run(run, 1, "vali")
    per_q = pytrec_eval.RelevanceEvaluator(qrels, {"P_10"}).evaluate(trun)
    want = np.mean([v["P_10"] for v in per_q.values()])
    got = metrics[(metrics["seed"] == 1) & (metrics["split"] == "vali")
                  & (metrics["metric"] == "p@10")]["value"].item()
    assert got == pytest.approx(want, abs=1e-15)


def test_run_per_query_parquet_mean_is_metrics_csv(run_dir: tuple[Path, dict[str, Any]]) -> None:
    run, _ = run_dir
    metrics = pd.read_csv(run / "metrics.csv").set_index(["seed", "split", "metric"])["value"]
    pq = pd.read_parquet(run / "per_query.parquet")
    means = pq.groupby(["seed", "split", "metric"])["value"].mean()
    for key, v in metrics.items():
        assert means[key] == pytest.approx(v, abs=1e-15), key


def test_run_json_metrics_are_the_metrics_csv_mean_and_sample_std(
        run_dir: tuple[Path, dict[str, Any]]) -> None:
    import statistics

    run, doc = run_dir
    metrics = pd.read_csv(run / "metrics.csv")
    entry = doc["metrics"]["random"]["test"]["ndcg@10"]
    seeds = metrics[(metrics["split"] == "test") & (metrics["metric"] == "ndcg@10")]
    vals = seeds.sort_values("seed")["value"].tolist()
    assert entry["mean"] == pytest.approx(statistics.fmean(vals), abs=1e-15)
    assert entry["std"] == pytest.approx(statistics.stdev(vals), abs=1e-15)
    assert [entry["per_seed"][str(s)] for s in (0, 1)] == vals


def test_run_tables_read_back_with_their_dtypes(run_dir: tuple[Path, dict[str, Any]]) -> None:
    run, _ = run_dir
    m = pd.read_csv(run / "metrics.csv")
    assert m["seed"].dtype == np.int64
    assert m["value"].dtype == np.float64
    t = pd.read_csv(run / "timings.csv")
    assert t["fit_s"].dtype == np.float64
    assert t["seed"].dtype == np.int64
    labels = pd.read_parquet(run / "labels.parquet")
    assert labels["qid"].dtype == np.int64


def test_evaluate_on_a_trec_run_made_from_the_runs_scores_is_metrics_csv(
        run_dir: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    # the scores written with repr (17 digits): ltrbench reads them back to the same number
    run, _ = run_dir
    qrels, trun = _trec_from_run(run, 0, "test")
    (tmp_path / "q.txt").write_text("".join(f"{q} 0 {d} {g}\n" for q, ds in qrels.items()
                                            for d, g in ds.items()))
    (tmp_path / "r.txt").write_text("".join(
        f"{q} Q0 {d} {i} {s!r} x\n" for q, ds in trun.items()
        for i, (d, s) in enumerate(sorted(ds.items(), key=lambda t: -t[1]), 1)))
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--profile",
              "ltrbench", "--metrics", "ndcg@10,map@10", "--format", "json")
    assert res.status == 0, res
    got = strict_json(res.out)["metrics"]
    metrics = pd.read_csv(run / "metrics.csv")
    for m in ("ndcg@10", "map@10"):
        want = metrics[(metrics["seed"] == 0) & (metrics["split"] == "test")
                       & (metrics["metric"] == m)]["value"].item()
        assert got[m] == pytest.approx(want, abs=1e-15), m


def test_report_on_its_own_run_has_the_mean_of_the_seeds(
        run_dir: tuple[Path, dict[str, Any]]) -> None:
    run, _ = run_dir
    res = cli(run.parent.parent, "report", "--runs", str(run), "--out", "rep", "--no-plots",
              "--no-progress", "--bootstrap", "50", "--permutations", "300")
    assert res.status == 0, res
    doc = strict_json((run.parent.parent / "rep" / "leaderboard.json").read_text())
    metrics = pd.read_csv(run / "metrics.csv")
    row = doc["tables"][0]["rows"][0]
    for m, e in row["metrics"].items():
        vals = metrics[(metrics["split"] == "test") & (metrics["metric"] == m)]["value"]
        assert e["mean"] == pytest.approx(vals.mean(), abs=1e-15), m
    csv_frame = pd.read_csv(run.parent.parent / "rep" / "leaderboard.csv")
    assert csv_frame["ndcg@10_mean"].item() == float(f"{row['metrics']['ndcg@10']['mean']:.10g}")


# ------------------------------------------------------------------------------ committed runs
@functools.cache
def _per_query(run: Path) -> pd.DataFrame:
    """A committed run's ``per_query.parquet``, read once (callers do not modify it)."""
    return pd.read_parquet(run / "per_query.parquet")


@functools.cache
def _metrics_csv(run: Path) -> pd.DataFrame:
    return pd.read_csv(run / "metrics.csv")


def _runs(folder: Path) -> list[Path]:
    return sorted(p for p in (RESULTS / folder).glob("runs/*") if (p / "metrics.csv").is_file())


@pytest.mark.parametrize(("policy", "fill"), [("ltrbench", None), ("ltrbench-blank0", 0.0),
                                         ("ltrbench-blank1", 1.0)])
def test_committed_runs_metrics_csv_is_the_per_query_mean_under_each_blank_policy(
        policy: str, fill: float | None) -> None:
    keys = ["model", "seed", "split", "metric"]
    for run in _runs(Path(".")):
        m = _metrics_csv(run)
        pq = _per_query(run)
        vals = pq["value"] if fill is None else pq["value"].fillna(fill)
        means = pq.assign(value=vals).groupby(keys)["value"].mean()
        rows = m[m["profile"] == policy].set_index(keys)["value"]
        if policy == "ltrbench":
            assert len(rows) > 0, run
        if rows.empty:  # no blank query in this run: no blank-policy rows
            continue
        diff = (rows - means.reindex(rows.index)).abs()
        assert not diff.isna().any(), run.name
        assert diff.max() <= 1e-15, (run.name, diff.idxmax())


def test_committed_leaderboard_per_seed_values_are_the_runs_metrics_csv() -> None:
    doc = strict_json((RESULTS / "leaderboard.json").read_text(encoding="utf-8"))
    checked = 0
    for t in doc["tables"]:
        run = RESULTS / "runs" / t["run_id"]
        if not run.is_dir():
            continue
        m = _metrics_csv(run)
        m = m[(m["profile"] == t["profile"]) & (m["split"] == t["split"])]
        table = m.set_index(["model", "seed", "metric"])["value"]
        for r in t["rows"]:
            for metric, e in r["metrics"].items():
                for seed, v in e["per_seed"].items():
                    assert table[(r["model"], int(seed), metric)] == v
                    checked += 1
    assert checked > 100


@functools.cache
def _seed_means(run: Path, split: str, metric: str) -> dict[str, pd.Series]:
    pq = _per_query(run)
    sel = pq[(pq["split"] == split) & (pq["metric"] == metric)]
    return {str(m): g.groupby("qid")["value"].mean() for m, g in sel.groupby("model")}


def _seed_mean(run: Path, model: str, split: str, metric: str) -> pd.Series:
    return _seed_means(run, split, metric)[model]


def test_committed_leaderboard_p_t_is_scipys_on_the_runs_per_query_values() -> None:
    from scipy import stats

    doc = strict_json((RESULTS / "leaderboard.json").read_text(encoding="utf-8"))
    checked = 0
    for t in doc["tables"]:
        run = RESULTS / "runs" / t["run_id"]
        if not run.is_dir():
            continue
        metric = t["primary_metric"]
        best = _seed_mean(run, t["best_model"], t["split"], metric)
        for r in t["rows"]:
            if r["vs_best"] and r["vs_best"]["p_t"] is not None:
                other = _seed_mean(run, r["model"], t["split"], metric).reindex(best.index)
                want = stats.ttest_rel(best, other).pvalue
                assert r["vs_best"]["p_t"] == pytest.approx(want, rel=1e-12), r["model"]
                checked += 1
    assert checked > 5


def _holm(ps: list[float]) -> list[float]:
    """Holm's step-down adjustment by hand."""
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    out, running = [0.0] * len(ps), 0.0
    for rank, i in enumerate(order):
        running = max(running, (len(ps) - rank) * ps[i])
        out[i] = min(1.0, running)
    return out


@pytest.mark.parametrize("dataset", ["ml-latest-small", "ohsumed"])
def test_committed_tuned_versus_default_is_scipys_test_with_hand_holm(dataset: str) -> None:
    from scipy import stats

    doc = strict_json((RESULTS / "tuned" / f"leaderboard-tuned-{dataset}.json").read_text())
    tuned = doc["tuned"][0]
    rows = tuned["versus_default"]
    for v in rows:
        a = _seed_mean(RESULTS / "tuned" / tuned["default_run"]["run_dir"], v["model"], "test",
                       v["metric"])
        b = _seed_mean(RESULTS / "tuned" / tuned["tuned_run"]["run_dir"], v["model"], "test",
                       v["metric"]).reindex(a.index)
        assert v["default"] == pytest.approx(a.mean(), abs=1e-15)
        assert v["delta"] == pytest.approx(b.mean() - a.mean(), abs=1e-15)
        assert v["p_t"] == pytest.approx(stats.ttest_rel(b, a).pvalue, rel=1e-12)
    want = _holm([v["p_t"] for v in rows])
    assert [v["p_t_holm"] for v in rows] == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("dataset", ["ml-latest-small", "ohsumed"])
def test_committed_tuned_csv_is_its_json_to_ten_digits(dataset: str) -> None:
    doc = strict_json((RESULTS / "tuned" / f"leaderboard-tuned-{dataset}.json").read_text())
    frame = pd.read_csv(RESULTS / "tuned" / f"leaderboard-tuned-{dataset}.csv",
                        dtype={"model": str})
    rows = doc["tables"][0]["rows"]
    assert frame["model"].tolist() == [r["model"] for r in rows]
    for (_, got), r in zip(frame.iterrows(), rows, strict=True):
        for metric, e in r["metrics"].items():
            assert got[f"{metric}_mean"] == float(f"{e['mean']:.10g}"), (r["model"], metric)
        if r["vs_best"]:
            assert got["p_t_holm"] == float(f"{r['vs_best']['p_t_holm']:.10g}")


def test_bundled_example_under_sklearn_is_sklearns_ndcg_score_per_query(tmp_path: Path) -> None:
    # the bundled scores tie (3 decimals): sklearn's ndcg_score averages ties, as the profile
    from sklearn.metrics import ndcg_score

    from bench.examples import DATA, SCORES

    res = cli(tmp_path, "evaluate", "--data", str(DATA), "--scores", str(SCORES), "--profile",
              "sklearn", "--metrics", "ndcg@10", "--per-query", "p.csv")
    assert res.status == 0, res
    got = pd.read_csv(tmp_path / "p.csv").set_index("qid")["ndcg@10"]
    _, y, q = _sk(DATA)
    s = np.loadtxt(SCORES)
    for qq in dict.fromkeys(q.tolist()):
        m = q == qq
        if m.sum() < 2:
            continue
        want = ndcg_score([y[m]], [s[m]], k=10)
        assert got[qq] == pytest.approx(want, abs=1e-12), qq


# ------------------------------------------------------------------------------ gm_map diagnostics
def _pytrec_gm_map(qrels: str, run: str, *, drop: set[str] = frozenset()) -> float:  # type: ignore[assignment]
    """pytrec_eval's gm_map (per query the logarithm, as trec_eval -q): exp of their mean."""
    per_q = pytrec_per_query(qrels, run, "gm_map")
    return math.exp(np.mean([v for q, v in per_q.items() if q not in drop]))


def test_gm_map_blank_as_0_is_pytrec_evals_gm_map_over_every_query(trec: Path) -> None:
    # wrong before: "blank = 0" filled the blank query's LOG value with 0, i.e. AP = 1:
    # 0.702144 printed beside a trec_eval value of 0.039484 that already scores it 0
    res = cli(trec, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics",
              "gm_map", "--format", "json")
    assert res.status == 0, res
    doc = strict_json(res.out)
    want = _pytrec_gm_map(QRELS, RUN)
    assert doc["metrics"]["gm_map"] == pytest.approx(want, rel=1e-12)
    assert doc["diagnostics"]["mean_blank_as_0"]["gm_map"] == pytest.approx(want, rel=1e-12)


def test_gm_map_blank_excluded_is_pytrec_evals_gm_map_without_the_blank_query(
        trec: Path) -> None:
    res = cli(trec, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics",
              "gm_map", "--format", "json")
    assert res.status == 0, res
    want = _pytrec_gm_map(QRELS, RUN, drop={"3"})
    got = strict_json(res.out)["diagnostics"]["mean_blank_excluded"]["gm_map"]
    assert got == pytest.approx(want, rel=1e-12)


def test_gm_map_blank_as_0_is_never_above_blank_excluded_under_ltrbench(trec: Path) -> None:
    # adding a query of AP 0 (floored at 1e-5) to a geometric mean can only lower it
    res = cli(trec, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics",
              "gm_map", "--profile", "ltrbench", "--format", "json")
    assert res.status == 0, res
    d = strict_json(res.out)["diagnostics"]
    excl, as0 = d["mean_blank_excluded"]["gm_map"], d["mean_blank_as_0"]["gm_map"]
    assert as0 < excl
    # by hand: 3 non-blank queries with mean log m, plus log(1e-5): exp((3m + log 1e-5) / 4)
    assert as0 == pytest.approx(math.exp((3 * math.log(excl) + math.log(1e-5)) / 4), rel=1e-12)


# ------------------------------------------------------------------------------ own Parquet back
def test_evaluate_reads_the_converted_parquet_split_as_its_text_twin(conv: Path) -> None:
    # unclear error before: "the file is a Parquet file ... give the Parquet file where a table
    # is read (a LETOR split ...)" -- for the LETOR split convert itself wrote
    _, y, _ = _sk(conv / "test.txt")
    np.savetxt(conv.parent / "s2.txt", np.linspace(1, 0, len(y)), fmt="%.17g")
    a = cli(conv.parent, "evaluate", "--data", str(conv / "test.parquet"), "--scores", "s2.txt",
            "--per-query", "from_parquet.csv", "--format", "json")
    b = cli(conv.parent, "evaluate", "--data", str(conv / "test.txt"), "--scores", "s2.txt",
            "--per-query", "from_text.csv", "--format", "json")
    assert a.status == 0, a
    assert b.status == 0, b
    assert strict_json(a.out)["metrics"] == strict_json(b.out)["metrics"]
    assert (conv.parent / "from_parquet.csv").read_bytes() == \
        (conv.parent / "from_text.csv").read_bytes()


def test_evaluate_of_a_parquet_split_with_a_query_file_is_refused_naming_the_qid_column(
        conv: Path) -> None:
    (conv.parent / "g.query").write_text("10\n")
    np.savetxt(conv.parent / "s3.txt", np.zeros(10))
    res = cli(conv.parent, "evaluate", "--data", str(conv / "test.parquet"), "--scores",
              "s3.txt", "--query", "g.query")
    assert res.status == 2, res
    assert "qid" in res.err
    assert "test.parquet" in res.err
    assert not res.traceback


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_evaluate_data_that_is_a_fifo_is_refused_at_once_not_waited_on(tmp_path: Path) -> None:
    # a hang before: telling a Parquet split from a text one opened the --data path to read its
    # signature, and the open of a FIFO blocks until a writer comes
    import threading

    fifo = tmp_path / "split.txt"
    os.mkfifo(fifo)
    (tmp_path / "s.txt").write_text("0.5\n")
    got: list[Any] = []
    worker = threading.Thread(target=lambda: got.append(cli(
        tmp_path, "evaluate", "--data", str(fifo), "--scores", "s.txt")), daemon=True)
    worker.start()
    worker.join(60)  # a refusal takes milliseconds; the minute is for a machine that is busy
    if worker.is_alive():  # release the blocked open, so that nothing is left waiting
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(10)
    assert got, "evaluate --data FIFO waited on the FIFO"
    res = got[0]
    assert res.status == 2, res
    assert "split.txt" in res.err
    assert "not a regular file" in res.err
    assert not res.traceback
