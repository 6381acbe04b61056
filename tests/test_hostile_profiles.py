"""Hostile cases of the recommender and qrels-fed profiles (issue 19, "Profiles fixed").

Two classes of error, each checked against the tool the profile claims to reproduce:

* **ground truth vs retrieved list**: given qrels + run (how RecBole and MS Recommenders are
  fed), the relevant count ``|R|`` (recall, MAP denominators) and the ideal DCG come from the
  ground truth, not from the retrieved list; a user without a hit scores 0, not NaN. Array input
  (the labels of the list only) is unchanged.
* **qrels queries without a run line**: each profile does what its tool does (ranx:
  ``make_comparable=True`` scores them 0; RecBole ranks every item for every ground-truth user:
  0; Recommenders: ``ndcg_at_k`` 0, precision/recall/MAP over the common users only; trec_eval
  and gdeval: left out), and a :class:`bench.metrics.missing.MissingQueriesWarning` says how many,
  which, and what the profile did.

Oracles: hand arithmetic from the tools' published source (RecBole ``recbole/evaluator/
metrics.py`` at 7b02be5e, transcribed below as ``_recbole``; Recommenders ``recommenders/
evaluation/python_evaluation.py`` b02c95e2 = release 1.2.1), the tools themselves where installed
(ranx here; Recommenders when ``pip install --no-deps recommenders`` put it on the path:
``importorskip``), ir_measures for trec_eval ``-c``.
"""

from __future__ import annotations

import math
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from bench.errors import DataError
from bench.metrics import evaluate, evaluate_trec

TOL = 1e-12
LOG2_3 = math.log2(3)
Qrels = dict[str, dict[str, int]]
Run = dict[str, dict[str, float]]


def _quiet(q: Any, r: Any, metrics: str, profile: str, **kw: Any) -> Any:
    """evaluate_trec with the missing-query warning silenced (tested on its own below)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate_trec(q, r, metrics=metrics, profile=profile, **kw)


# --- ground truth vs retrieved list (RecBole, Recommenders) ----------------------------------

@pytest.mark.parametrize("profile", ["recbole", "recommenders"])
def test_issue_example_counts_relevant_documents_from_the_qrels(profile: str) -> None:
    """qrels {u: {a: 1, b: 1}}, run {u: {a: 2, c: 1}}: one of the two true items in the top 2.
    recall@2 = 1/2 (RecBole :159-160 hits/pos_len; Recommenders :541 hit/actual); ndcg@2 =
    1 / (1 + 1/log2 3) (ideal over min(|R|, K) = 2 positions; base-free); map@2 = (1/1) /
    min(2, 2); p@2 = 1/2; mrr@2 = 1."""
    r = _quiet({"u": {"a": 1, "b": 1}}, {"u": {"a": 2.0, "c": 1.0}},
               "recall@2 ndcg@2 map@2 p@2 mrr@2", profile)
    assert r.metrics["recall@2"] == pytest.approx(0.5, abs=TOL)
    assert r.metrics["ndcg@2"] == pytest.approx(1 / (1 + 1 / LOG2_3), abs=TOL)
    assert r.metrics["map@2"] == pytest.approx(0.5, abs=TOL)
    assert r.metrics["p@2"] == pytest.approx(0.5, abs=TOL)
    assert r.metrics["mrr@2"] == pytest.approx(1.0, abs=TOL)


@pytest.mark.parametrize("profile", ["recbole", "recommenders"])
def test_a_user_without_a_hit_scores_zero_not_nan(profile: str) -> None:
    """v's true item x is not retrieved: every metric 0 for v, and v counts (RecBole: the mean
    over all evaluated users; Recommenders: divided by n_users = common users)."""
    q = {"u": {"a": 1, "b": 1}, "v": {"x": 1}}
    r = {"u": {"a": 2.0, "c": 1.0}, "v": {"y": 1.0}}
    res = _quiet(q, r, "recall@2 ndcg@2 map@2 p@2 mrr@2 hits@2", profile, per_query=True)
    assert res.metrics["recall@2"] == pytest.approx(0.25, abs=TOL)
    assert res.metrics["ndcg@2"] == pytest.approx(0.5 / (1 + 1 / LOG2_3), abs=TOL)
    assert res.metrics["map@2"] == pytest.approx(0.25, abs=TOL)
    assert res.metrics["p@2"] == pytest.approx(0.25, abs=TOL)
    assert res.metrics["mrr@2"] == pytest.approx(0.5, abs=TOL)
    assert res.metrics["hits@2"] == pytest.approx(0.5, abs=TOL)
    assert res.per_query is not None
    assert res.per_query.set_index("qid").loc["v"].tolist() == [0.0] * 6


def test_recbole_ideal_dcg_is_cut_at_k_not_at_the_list() -> None:
    """Three true items, one retrieved (first): NDCG@3 = 1 / (1 + 1/log2 3 + 1/log2 4)
    (NDCG.metric_info :186-202: idcg over min(pos_len, K) = 3 positions)."""
    r = _quiet({"u": {"a": 1, "b": 1, "c": 1}}, {"u": {"a": 1.0}}, "ndcg@3", "recbole")
    assert r.metrics["ndcg@3"] == pytest.approx(1 / (1 + 1 / LOG2_3 + 0.5), abs=TOL)


def test_recommenders_ideal_dcg_over_every_true_item_cut_at_k() -> None:
    """ndcg_at_k (binary, loge): DCG = 1/ln 2; IDCG = 1/ln 2 + 1/ln 3 + 1/ln 4 (:676-692)."""
    r = _quiet({"u": {"a": 1, "b": 1, "c": 1}}, {"u": {"a": 1.0}}, "ndcg@3", "recommenders")
    idcg = 1 / math.log(2) + 1 / math.log(3) + 1 / math.log(4)
    assert r.metrics["ndcg@3"] == pytest.approx((1 / math.log(2)) / idcg, abs=TOL)


@pytest.mark.parametrize("profile", ["recbole", "recommenders"])
def test_map_at_k_divides_by_min_of_true_items_and_k(profile: str) -> None:
    """|R| = 3 > n = 1: map@2 = 1 / min(3, 2) (RecBole :129-135; Recommenders :833)."""
    r = _quiet({"u": {"a": 1, "b": 1, "c": 1}}, {"u": {"a": 1.0}}, "map@2 recall@2", profile)
    assert r.metrics["map@2"] == pytest.approx(0.5, abs=TOL)
    assert r.metrics["recall@2"] == pytest.approx(1 / 3, abs=TOL)


def test_recommenders_bare_map_divides_by_every_true_item() -> None:
    """Recommenders 'map' (:785): rr / actual. Hit at rank 1 of 2 retrieved, 3 true: 1/3."""
    r = _quiet({"u": {"a": 1, "b": 1, "c": 1}}, {"u": {"a": 1.0, "z": 0.5}}, "map",
               "recommenders")
    assert r.metrics["map"] == pytest.approx(1 / 3, abs=TOL)


@pytest.mark.parametrize("profile", ["recbole", "recommenders"])
def test_precision_divides_by_k_when_the_list_is_shorter(profile: str) -> None:
    r = _quiet({"u": {"a": 1, "b": 1}}, {"u": {"a": 1.0}}, "p@5", profile)
    assert r.metrics["p@5"] == pytest.approx(0.2, abs=TOL)


@pytest.mark.parametrize("profile", ["recbole", "recommenders"])
def test_a_user_with_only_non_relevant_judgments_is_left_out(profile: str) -> None:
    """w's only qrels line has relevance 0: no ground truth (RecBole's users have positive items;
    not in Recommenders' rating_true): w is not evaluated, run line or not."""
    q = {"u": {"a": 1}, "w": {"z": 0}, "m": {"y": 0}}
    r = {"u": {"a": 1.0}, "w": {"z": 1.0}}
    res = _quiet(q, r, "recall@1 ndcg@1 p@1 map@1", profile)
    assert res.metrics == pytest.approx({"recall@1": 1.0, "ndcg@1": 1.0, "p@1": 1.0, "map@1": 1.0})


@pytest.mark.parametrize("profile", ["recbole", "recommenders"])
def test_array_input_still_counts_the_list(profile: str) -> None:
    """evaluate(labels, scores): only the list's labels exist, |R| = 2 from the list."""
    r = evaluate([1, 0, 1], [3.0, 2.0, 1.0], group=[3], metrics="recall@1 map@3 ndcg@1",
                 profile=profile)
    assert r.metrics["recall@1"] == pytest.approx(0.5, abs=TOL)
    assert r.metrics["map@3"] == pytest.approx((1 + 2 / 3) / 2, abs=TOL)
    assert r.metrics["ndcg@1"] == pytest.approx(1.0, abs=TOL)


@pytest.mark.parametrize("profile", ["recbole", "recommenders"])
def test_graded_judgment_of_an_unretrieved_document_is_refused(profile: str) -> None:
    """Binary profiles refuse labels above 1, also where the graded judgment is not retrieved
    (it enters |R| and the ideal DCG): a DataError naming the qrels, not a silent number."""
    with pytest.raises(DataError, match="relevance 2"):
        _quiet({"u": {"a": 1, "b": 2}}, {"u": {"a": 1.0}}, "recall@2", profile)


@pytest.mark.parametrize("profile", ["recbole", "recommenders"])
def test_run_users_without_qrels_are_not_evaluated(profile: str) -> None:
    r = _quiet({"u": {"a": 1}}, {"u": {"a": 1.0}, "x": {"b": 1.0}}, "recall@1 p@1", profile)
    assert r.metrics == pytest.approx({"recall@1": 1.0, "p@1": 1.0})
    assert r.n_queries == 1


@pytest.mark.parametrize("profile", ["recbole", "recommenders"])
def test_frames_and_trec_files_count_the_ground_truth_too(profile: str, tmp_path: Path) -> None:
    """The issue example through DataFrames and TREC files: recall@2 = 1/2 on every path."""
    q_frame = pd.DataFrame({"qid": ["u", "u"], "docno": ["a", "b"], "rel": [1, 1]})
    r_frame = pd.DataFrame({"qid": ["u", "u"], "docno": ["a", "c"], "score": [2.0, 1.0]})
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("u 0 a 1\nu 0 b 1\n")
    run.write_text("u Q0 a 1 2.0 t\nu Q0 c 2 1.0 t\n")
    for q, r in ((q_frame, r_frame), (str(qrels), str(run))):
        res = _quiet(q, r, "recall@2 ndcg@2", profile)
        assert res.metrics["recall@2"] == pytest.approx(0.5, abs=TOL)
        assert res.metrics["ndcg@2"] == pytest.approx(1 / (1 + 1 / LOG2_3), abs=TOL)


# --- qrels users without a run line ----------------------------------------------------------

def test_ranx_objects_with_missing_queries_equal_ranx() -> None:
    ranx = pytest.importorskip("ranx")
    q = {"q1": {"a": 2, "b": 1}, "q2": {"c": 1}, "q3": {"d": 0}}
    r = {"q1": {"b": 3.0, "a": 1.0, "z": 0.5}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = ranx.evaluate(ranx.Qrels(q), ranx.Run(r), ["ndcg@3", "map", "recall@2"],
                               make_comparable=True)
        ours = evaluate_trec(ranx.Qrels(q), ranx.Run(r), metrics="ndcg@3 map recall@2",
                             profile="ranx")
    for name in ("ndcg@3", "map", "recall@2"):
        assert ours.metrics[name] == pytest.approx(float(theirs[name]), abs=TOL), name


def test_an_integer_qrels_id_is_not_missing_from_a_run_with_its_string() -> None:
    """Query ids compare as strings: qrels 7 and run "7" are one query, not a missing one."""
    assert _caught({7: {"a": 1}}, {"7": {"a": 1.0}}, "ndcg@1", "ranx") == []
    r = _quiet({7: {"a": 1}, 8: {"b": 1}}, {"7": {"a": 1.0}}, "ndcg@1", "ranx")
    assert r.metrics["ndcg@1"] == pytest.approx(0.5, abs=TOL)


def test_recbole_scores_a_user_without_a_run_line_zero() -> None:
    """RecBole ranks every item for every ground-truth user (FullSortEvalDataLoader uid_list):
    a user the run does not rank has no hit: 0 in every metric, counted in the mean."""
    q = {"u": {"a": 1}, "v": {"x": 1}}
    r = _quiet(q, {"u": {"a": 1.0}}, "recall@1 ndcg@1 p@1 map@1 mrr@1 hits@1", "recbole")
    assert r.metrics == pytest.approx({m: 0.5 for m in r.metrics}, abs=TOL)


def test_recommenders_ndcg_counts_a_user_without_a_run_line_the_others_drop_it() -> None:
    """ndcg_at_k outer-merges the whole rating_true (:652-654): v scores 0 and counts;
    precision/recall/map divide by n_users = the common users (:409-412): v left out."""
    q = {"u": {"a": 1}, "v": {"x": 1}}
    r = _quiet(q, {"u": {"a": 1.0}}, "ndcg@1 p@1 recall@1 map@1", "recommenders",
               per_query=True)
    assert r.metrics == pytest.approx({"ndcg@1": 0.5, "p@1": 1.0, "recall@1": 1.0, "map@1": 1.0},
                                      abs=TOL)
    assert r.per_query is not None
    v = r.per_query.set_index("qid").loc["v"]
    assert v["ndcg@1"] == 0.0
    assert np.isnan(v["p@1"])


def test_ranx_scores_a_query_without_a_run_line_zero_by_hand() -> None:
    """ranx make_comparable=True: q2 gets an empty run, 0 in every metric: means halve."""
    q = {"q1": {"a": 1}, "q2": {"b": 1}}
    r = _quiet(q, {"q1": {"a": 1.0}}, "ndcg@3 map recall@3 p@1 mrr hits@1", "ranx",
               per_query=True)
    assert r.metrics == pytest.approx({m: 0.5 for m in r.metrics}, abs=TOL)
    assert r.per_query is not None
    assert r.per_query["qid"].tolist() == ["q1", "q2"]


def test_ranx_counts_a_missing_query_with_only_non_relevant_judgments() -> None:
    """q2 (judged 0 only) and q3 lack a run line: ranx make_comparable scores both 0 and
    averages over 3: ndcg@2 = (1 / (1 + 1/log2 3)) / 3 = 0.2044 (ranx 0.3.21 prints it)."""
    q = {"q1": {"a": 1, "b": 1}, "q2": {"x": 0}, "q3": {"y": 1}}
    r = _quiet(q, {"q1": {"a": 2.0, "c": 1.0}, "q4": {"z": 1.0}}, "ndcg@2 recall@2 mrr",
               "ranx")
    assert r.metrics["ndcg@2"] == pytest.approx(1 / (1 + 1 / LOG2_3) / 3, abs=TOL)
    assert r.metrics["recall@2"] == pytest.approx(0.5 / 3, abs=TOL)
    assert r.metrics["mrr"] == pytest.approx(1 / 3, abs=TOL)
    assert r.n_queries == 3


def test_missing_by_family_is_validated() -> None:
    from dataclasses import replace

    from bench.errors import ConfigError
    from bench.metrics import get_profile

    base = get_profile("recommenders")
    assert base.missing_for("ndcg") == "zero"
    assert base.missing_for("p") == "drop"
    for bad in ((("ndcg", "skip"),), (("rmse", "zero"),), (("nDCG", "zero"),)):
        with pytest.raises(ConfigError, match="missing_by_family"):
            replace(base, missing_by_family=bad)


@pytest.mark.parametrize(("profile", "names"), [
    ("ranx", {"ndcg@3": "ndcg@3", "map@5": "map@5", "recall@5": "recall@5", "mrr": "mrr",
              "precision@2": "p@2", "hit_rate@2": "hit_rate@2", "ndcg": "ndcg"}),
    ("ranx-burges", {"ndcg_burges@3": "ndcg@3", "ndcg_burges": "ndcg"}),
])
def test_ranx_profiles_equal_ranx_make_comparable_with_missing_queries(
        profile: str, names: dict[str, str]) -> None:
    """Random qrels (graded, some queries with only 0 or only negative judgments) and a run that
    misses a third of the qrels queries and holds queries without qrels."""
    ranx = pytest.importorskip("ranx")
    q, r = _random_qrels_run(np.random.default_rng(3), n_users=60, graded=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = ranx.evaluate(ranx.Qrels(q), ranx.Run(r), list(names), make_comparable=True)
    ours = _quiet(q, r, " ".join(names.values()), profile)
    for t, o in names.items():
        assert ours.metrics[o] == pytest.approx(float(theirs[t]), abs=1e-12), o


def test_ranx_profile_equals_ranx_on_ohsumed_with_missing_queries(shared_data: Path) -> None:
    """LETOR 3.0 OHSUMED Fold1 test: qrels = every judged document's label (0, 1, 2), run =
    feature 10 as score for 70% of the documents of 80% of the queries."""
    ranx = pytest.importorskip("ranx")
    path = shared_data / "letor3-OHSUMED-QueryLevelNorm" / "Fold1" / "test.txt"
    rng = np.random.default_rng(19)
    q: Qrels = {}
    r: Run = {}
    dropped = set()
    for line in path.read_text().splitlines():
        head, _, comment = line.partition("#")
        parts = head.split()
        qid, doc = parts[1].split(":")[1], comment.split("=")[1].strip()
        if qid not in q and rng.random() < 0.2:
            dropped.add(qid)
        q.setdefault(qid, {})[doc] = int(float(parts[0]))
        if qid not in dropped and rng.random() < 0.7:
            r.setdefault(qid, {})[doc] = float(parts[11].split(":")[1]) + rng.random() * 1e-6
    assert dropped
    names = {"ndcg@10": "ndcg@10", "map": "map", "recall@20": "recall@20",
             "precision@5": "p@5", "mrr": "mrr"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = ranx.evaluate(ranx.Qrels(q), ranx.Run(r), list(names), make_comparable=True)
    ours = _quiet(q, r, " ".join(names.values()), "ranx")
    assert ours.n_queries == len(q)
    for t, o in names.items():
        assert ours.metrics[o] == pytest.approx(float(theirs[t]), abs=1e-12), o


def test_trec_eval_c_counts_a_query_with_only_negative_judgments_like_ir_measures() -> None:
    """q2 has only a negative judgment and no run line: ir_measures (trec_eval -c) and ranx
    (make_comparable) both score it 0 and count it."""
    ir_measures = pytest.importorskip("ir_measures")
    from ir_measures import AP, P, nDCG

    q = {"q1": {"a": 1, "b": 1}, "q2": {"x": -1}}
    r = {"q1": {"a": 2.0, "c": 1.0}}
    theirs = ir_measures.calc_aggregate([nDCG @ 2, P @ 2, AP], q, r)
    ours = _quiet(q, r, "ndcg@2 p@2 map", "trec_eval-c")
    assert ours.metrics["ndcg@2"] == pytest.approx(theirs[nDCG @ 2], abs=TOL)
    assert ours.metrics["p@2"] == pytest.approx(theirs[P @ 2], abs=TOL)
    assert ours.metrics["map"] == pytest.approx(theirs[AP], abs=TOL)
    ranx_like = _quiet(q, r, "ndcg@2 p@2 map", "ranx")
    assert ranx_like.metrics["ndcg@2"] == pytest.approx(theirs[nDCG @ 2], abs=TOL)


# --- the tools as oracles on random and real data --------------------------------------------

def _random_qrels_run(rng: np.random.Generator, n_users: int, *, graded: bool = False
                      ) -> tuple[Qrels, Run]:
    q: Qrels = {}
    r: Run = {}
    items = [f"i{j}" for j in range(25)]
    for u in range(n_users):
        uid = f"u{u}"
        kind = rng.random()
        chosen = rng.choice(items, size=int(rng.integers(1, 8)), replace=False)
        top = 3 if graded else 2
        q[uid] = {str(d): int(rng.integers(0, top)) for d in chosen}
        if kind < 0.08:
            q[uid] = {str(d): 0 for d in chosen}  # judged, none relevant
        elif graded and kind < 0.12:
            q[uid] = {str(chosen[0]): -1}  # only a negative judgment
        if rng.random() < 0.3:
            continue  # no run line for this user
        ranked = rng.choice(items, size=int(rng.integers(1, 12)), replace=False)
        r[uid] = {str(d): float(rng.integers(0, 4)) for d in ranked}  # ties: row order
    for extra in range(5):  # run users without qrels
        r[f"x{extra}"] = {"i1": 1.0}
    return q, r


def _recbole(q: Qrels, r: Run, ks: list[int]) -> dict[str, float]:
    """RecBole 1.x recbole/evaluator/metrics.py metric_info (7b02be5e, lines cited), transcribed
    with np.float -> float: pos_index = [user, rank] hit matrix over the top max(K), pos_len =
    |ground truth| (collector.py:164-168); users = those with ground truth, each ranked."""
    users = [u for u in sorted(q) if any(v >= 1 for v in q[u].values())]
    width = max(ks)
    pos_index = np.zeros((len(users), width), dtype=bool)
    pos_len = np.zeros(len(users), dtype=np.int64)
    for row, u in enumerate(users):
        truth = {d for d, v in q[u].items() if v >= 1}
        pos_len[row] = len(truth)
        ranked = sorted(r.get(u, {}).items(), key=lambda kv: -kv[1])  # stable: row order
        for i, (d, _) in enumerate(ranked[:width]):
            pos_index[row, i] = d in truth
    ranks = np.arange(1, width + 1)
    hit = (np.cumsum(pos_index, axis=1) > 0).astype(int)  # Hit :62-64
    mrr = np.zeros(pos_index.shape, dtype=float)  # MRR :88-96
    for row, idx in enumerate(pos_index.argmax(axis=1)):
        mrr[row, idx:] = 1 / (idx + 1) if pos_index[row, idx] > 0 else 0
    pre = pos_index.cumsum(axis=1) / ranks  # MAP :126-136
    sum_pre = np.cumsum(pre * pos_index.astype(float), axis=1)
    actual_len = np.minimum(pos_len, width)
    ap = np.zeros(pos_index.shape, dtype=float)
    for row, lens in enumerate(actual_len):
        rr = np.arange(1, width + 1)
        rr[lens:] = rr[lens - 1]
        ap[row] = sum_pre[row] / rr
    recall = np.cumsum(pos_index, axis=1) / pos_len.reshape(-1, 1)  # Recall :159-160
    idcg = np.cumsum(1.0 / np.log2(np.tile(ranks, (len(users), 1)) + 1), axis=1)  # NDCG :186-202
    for row, idx in enumerate(actual_len):
        idcg[row, idx:] = idcg[row, idx - 1]
    dcg = np.cumsum(np.where(pos_index, 1.0 / np.log2(ranks + 1), 0), axis=1)
    ndcg = dcg / idcg
    precision = pos_index.cumsum(axis=1) / ranks  # Precision :226-227
    out: dict[str, float] = {}
    for k in ks:
        for name, v in (("hits", hit), ("mrr", mrr), ("map", ap), ("recall", recall),
                        ("ndcg", ndcg), ("p", precision)):
            out[f"{name}@{k}"] = float(v[:, k - 1].mean())
    return out


def test_recbole_profile_equals_the_transcribed_recbole_metrics_on_random_users() -> None:
    q, r = _random_qrels_run(np.random.default_rng(7), n_users=80)
    ks = [1, 3, 5, 10]
    theirs = _recbole(q, r, ks)
    ours = _quiet(q, r, " ".join(theirs), "recbole")
    for name, v in theirs.items():
        assert ours.metrics[name] == pytest.approx(v, abs=1e-12), name


def _recommenders_frames(q: Qrels, r: Run) -> tuple[pd.DataFrame, pd.DataFrame]:
    """rating_true = the qrels lines with relevance >= 1; rating_pred = the run."""
    true = pd.DataFrame([(u, d, 1.0) for u, j in q.items() for d, v in j.items() if v >= 1],
                        columns=["userID", "itemID", "rating"])
    pred = pd.DataFrame([(u, d, s) for u, j in r.items() for d, s in j.items()],
                        columns=["userID", "itemID", "prediction"])
    return true, pred


def _recommenders_values(true: pd.DataFrame, pred: pd.DataFrame, ks: list[int],
                         whole: int) -> dict[str, float]:
    pe = pytest.importorskip("recommenders.evaluation.python_evaluation")
    out: dict[str, float] = {}
    for k in ks:
        out[f"p@{k}"] = pe.precision_at_k(true, pred, k=k)
        out[f"recall@{k}"] = pe.recall_at_k(true, pred, k=k)
        out[f"ndcg@{k}"] = pe.ndcg_at_k(true, pred, k=k)
        out[f"map@{k}"] = pe.map_at_k(true, pred, k=k)
    out["map"] = pe.map(true, pred, k=whole)
    return {n: float(v) for n, v in out.items()}


def test_recommenders_profile_equals_recommenders_on_random_users() -> None:
    """MS Recommenders' own functions (importorskip: pip install --no-deps recommenders)."""
    q, r = _random_qrels_run(np.random.default_rng(11), n_users=80)
    true, pred = _recommenders_frames(q, r)
    theirs = _recommenders_values(true, pred, [1, 3, 5, 10], whole=100)
    ours = _quiet(q, r, " ".join(theirs), "recommenders")
    for name, v in theirs.items():
        assert ours.metrics[name] == pytest.approx(v, abs=1e-12), name


def test_recommenders_profile_equals_recommenders_on_movielens(shared_data: Path) -> None:
    """ml-latest-small: each user's last 5 ratings are the test set (relevant: rating >= 4);
    the run scores 40 candidates per user (the test items and popular ones) by item popularity
    in the earlier ratings; a tenth of the users have no run line."""
    ratings = pd.read_csv(shared_data / "ml-latest-small" / "ratings.csv")
    ratings = ratings[ratings["userId"] <= 150].sort_values(["userId", "timestamp"], kind="stable")
    test = ratings.groupby("userId").tail(5)
    train = ratings.drop(test.index)
    popularity = train["movieId"].value_counts()
    popular = popularity.index[:60].to_numpy()
    rng = np.random.default_rng(5)
    q: Qrels = {}
    r: Run = {}
    for user, rows in test.groupby("userId"):
        uid = str(user)
        q[uid] = {str(m): int(v >= 4.0)
                  for m, v in zip(rows["movieId"], rows["rating"], strict=True)}
        if rng.random() < 0.1:
            continue
        candidates = list(dict.fromkeys([*rows["movieId"].tolist(), *rng.choice(popular, 35)]))
        r[uid] = {str(m): float(popularity.get(m, 0)) for m in candidates}
    true, pred = _recommenders_frames(q, r)
    theirs = _recommenders_values(true, pred, [5, 10], whole=100)
    ours = _quiet(q, r, " ".join(theirs), "recommenders")
    for name, v in theirs.items():
        assert ours.metrics[name] == pytest.approx(v, abs=1e-12), name


# --- the warning -------------------------------------------------------------------------------

def _warning_class() -> type[Warning]:
    import bench.metrics.missing as missing

    cls = getattr(missing, "MissingQueriesWarning", None)
    assert cls is not None, "bench.metrics.missing.MissingQueriesWarning"
    assert issubclass(cls, UserWarning)
    return cls  # type: ignore[no-any-return]


def _caught(q: Any, r: Any, metrics: str, profile: str) -> list[str]:
    cls = _warning_class()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        evaluate_trec(q, r, metrics=metrics, profile=profile)
    return [str(w.message) for w in seen if issubclass(w.category, cls)]


_Q7 = {f"q{i}": {"a": 1} for i in range(1, 8)}


@pytest.mark.parametrize(("profile", "action"), [
    ("trec_eval", "left out"), ("gdeval", "left out"), ("trec_eval-c", "scored 0"),
    ("ranx", "scored 0"), ("recbole", "scored 0"), ("ltrbench", "left out"),
])
def test_missing_queries_warn_with_count_ids_and_action(profile: str, action: str) -> None:
    msgs = _caught(_Q7, {"q1": {"a": 1.0}}, "ndcg@5", profile)
    assert len(msgs) == 1
    msg = msgs[0]
    assert "6 qrels queries" in msg
    assert "no run line" in msg
    assert "q2, q3, q4, q5, q6" in msg
    assert "q7" not in msg
    assert action in msg
    assert profile in msg


def test_recommenders_warning_names_both_actions() -> None:
    msgs = _caught({"u": {"a": 1}, "v": {"b": 1}}, {"u": {"a": 1.0}}, "ndcg@1 p@1",
                   "recommenders")
    assert len(msgs) == 1
    assert "1 qrels query" in msgs[0]
    assert "ndcg@1: scored 0" in msgs[0]
    assert "p@1: left out" in msgs[0]


def test_the_warning_stays_on_one_line_whatever_the_query_ids() -> None:
    # an id holding a line end is refused (bench.data.input_ids); a tab inside one is an id
    msgs = _caught({"u": {"a": 1}, "v\tw": {"b": 1}}, {"u": {"a": 1.0}}, "ndcg@1", "ranx")
    assert len(msgs) == 1
    assert "\n" not in msgs[0]
    assert "\t" not in msgs[0]
    assert "'v\\tw'" in msgs[0]


def test_no_warning_when_every_qrels_query_has_a_run_line() -> None:
    assert _caught({"u": {"a": 1}}, {"u": {"a": 1.0}, "x": {"b": 1.0}}, "ndcg@1", "ranx") == []


def test_cli_prints_one_warning_line(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    qrels.write_text("1 0 a 1\n2 0 b 1\n3 0 c 1\n")
    run.write_text("1 Q0 a 1 1.0 t\n")
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-m", "bench", "evaluate", "--qrels", str(qrels),
                          "--run", str(run), "--metrics", "ndcg@5", "--profile", "ranx"],
                         capture_output=True, text=True, cwd=root, check=False)
    assert out.returncode == 0, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("warning: 2 qrels queries")
    assert "scored 0" in lines[0]
