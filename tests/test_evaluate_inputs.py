"""Evaluation inputs that are not files: DataFrames, dicts of dicts, ranx objects.

Anchors: the same data written as sorted TREC files (whose reader is checked against pytrec_eval
in tests/test_data_trec.py), pytrec_eval and ranx themselves, and hand arithmetic for row-order ties.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bench.data.trec_objects import as_qrels, as_run
from bench.errors import ConfigError, DataError
from bench.metrics import evaluate, evaluate_trec
from bench.metrics.distributed import evaluate_frame

METRICS = "ndcg ndcg@3 map p@2 recall@3 mrr"


def _frames(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Qrels and run frames with string qids, shuffled rows, and tied scores (0.0/0.5/1.0)."""
    rng = np.random.default_rng(seed)
    q_rows, r_rows = [], []
    for q in range(12):
        qid = f"q{q}"  # string order q0 < q1 < q10 < q11 < q2 ...: not numeric order
        docs = [f"d{q}_{i}" for i in range(int(rng.integers(3, 9)))]
        rels = rng.integers(0, 3, len(docs))
        rels[0] = max(int(rels[0]), 1)  # at least one relevant document per query
        q_rows += [(qid, d, int(r)) for d, r in zip(docs, rels, strict=True)]
        retrieved = [*docs[:-1], f"x{q}"]  # one judged doc missed, one unjudged retrieved
        r_rows += [(qid, d, float(rng.integers(0, 3)) / 2) for d in retrieved]
    qrels = pd.DataFrame(q_rows, columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame(r_rows, columns=["qid", "docno", "score"])
    return (qrels.sample(frac=1, random_state=seed).reset_index(drop=True),
            run.sample(frac=1, random_state=seed + 1).reset_index(drop=True))


def _write_sorted(tmp_path: Path, qrels: pd.DataFrame, run: pd.DataFrame) -> tuple[Path, Path]:
    """TREC files sorted by qid; within a query, the frame's row order (a stable sort)."""
    q = qrels.sort_values("query_id", kind="stable")
    r = run.sort_values("qid", kind="stable")
    qp, rp = tmp_path / "q.txt", tmp_path / "r.txt"
    qp.write_text("".join(f"{a} 0 {b} {c}\n" for a, b, c in q.itertuples(index=False)))
    rp.write_text("".join(f"{a} Q0 {b} {i} {c!r} t\n"
                          for i, (a, b, c) in enumerate(r.itertuples(index=False))))
    return qp, rp


@pytest.mark.parametrize("profile", ["trec_eval", "ranx", "lightgbm", "ltrbench"])
def test_shuffled_frames_with_string_qids_equal_the_sorted_trec_files(
    tmp_path: Path, profile: str
) -> None:
    qrels, run = _frames(3)
    qp, rp = _write_sorted(tmp_path, qrels, run)
    ours = evaluate_trec(qrels, run, metrics=METRICS, profile=profile, per_query=True)
    files = evaluate_trec(qp, rp, metrics=METRICS, profile=profile, per_query=True)
    assert ours.metrics == files.metrics
    pd.testing.assert_frame_equal(ours.per_query, files.per_query)


def test_row_order_ties_keep_the_frames_order_within_a_query() -> None:
    # lightgbm ties keep row order (std::stable_sort). Query b: d1 (rel 0) and d3 (rel 1) both
    # score 1.0 and d1 comes first in the frame -> d1 is ranked first: ndcg@1(b) = 0 / 1 = 0.
    # Query a: d2 (rel 1, 0.5) above d4 (rel 0, 0.2): ndcg@1(a) = 1. Mean (0 + 1) / 2 = 0.5.
    frame = pd.DataFrame({"qid": ["b", "a", "b", "a"], "doc": ["d1", "d2", "d3", "d4"],
                          "rel": [0, 1, 1, 0], "score": [1.0, 0.5, 1.0, 0.2]})
    r = evaluate(frame, metrics="ndcg@1", profile="lightgbm", per_query=True)
    assert r.metrics["ndcg@1"] == 0.5
    assert dict(zip(r.per_query["qid"], r.per_query["ndcg@1"], strict=True)) == {"b": 0.0, "a": 1.0}
    # With d3 before d1 in the frame, d3 (rel 1) is first: ndcg@1(b) = 1, mean 1.
    swapped = frame.iloc[[2, 1, 0, 3]]
    assert evaluate(swapped, metrics="ndcg@1", profile="lightgbm").metrics["ndcg@1"] == 1.0
    # The TREC path with the ranx profile (ties in row order, ideal DCG from the qrels): the same.
    qrels = frame[["qid", "doc", "rel"]]
    run = frame[["qid", "doc", "score"]]
    assert evaluate_trec(qrels, run, metrics="ndcg@1", profile="ranx").metrics["ndcg@1"] == 0.5
    assert evaluate_trec(qrels.iloc[[2, 1, 0, 3]], run.iloc[[2, 1, 0, 3]], metrics="ndcg@1",
                         profile="ranx").metrics["ndcg@1"] == 1.0


@pytest.mark.parametrize("profile", ["lightgbm", "xgboost", "ltrbench", "sklearn"])
def test_evaluate_of_a_shuffled_frame_equals_the_arrays_grouped_in_frame_order(profile: str) -> None:
    _, run = _frames(5)
    rng = np.random.default_rng(0)
    frame = run.assign(label=rng.integers(0, 2, len(run)))  # 0/1: xgboost's map needs binary
    ours = evaluate(frame, metrics="ndcg@3 map", profile=profile, per_query=True)
    g = frame.sort_values("qid", kind="stable")  # the independent grouping: pandas' stable sort
    ref = evaluate(g["label"].to_numpy(), g["score"].to_numpy(), qid=g["qid"].to_numpy(),
                   docno=g["docno"].to_numpy(), metrics="ndcg@3 map", profile=profile,
                   per_query=True)
    mine = ours.per_query.set_index("qid").sort_index()
    theirs = ref.per_query.set_index("qid").sort_index()
    pd.testing.assert_frame_equal(mine, theirs, check_exact=True)
    # the means: the same values summed in another query order (first appearance vs sorted)
    assert ours.metrics == pytest.approx(ref.metrics, rel=1e-15)
    # the reported AttributeError: a pandas frame through the Dask entry point
    assert evaluate_frame(frame, metrics="ndcg@3 map", profile=profile).metrics == ours.metrics


def test_frame_scores_may_be_an_array_and_columns_may_be_named() -> None:
    frame = pd.DataFrame({"Topic": [7, 7, 3], "grade": [2, 0, 1], "s": [0.1, 0.9, 0.3]})
    # Topic 7: d(0.9, rel 0) then d(0.1, rel 2): ndcg = (2^2-1)/log2(3) / (2^2-1) = 0.6309298;
    # topic 3: 1. Mean (0.6309298 + 1) / 2 = 0.8154649 (ltrbench: gain 2^l - 1).
    named = evaluate(frame, label="grade", score="s", qid="Topic", metrics="ndcg")
    assert named.metrics["ndcg"] == pytest.approx((1 / np.log2(3) + 1) / 2, abs=1e-15)
    array = evaluate(frame.drop(columns="s"), frame["s"].to_numpy(), metrics="ndcg")
    assert array.metrics == named.metrics


def test_dicts_and_ranx_objects_equal_the_file_input(tmp_path: Path) -> None:
    ranx = pytest.importorskip("ranx")
    qrels, run = _frames(7)
    run = run.assign(score=np.random.default_rng(1).permutation(len(run)) / len(run))  # no ties
    qp, rp = _write_sorted(tmp_path, qrels, run)
    q_dict: dict[str, dict[str, int]] = {}
    for a, b, c in qrels.itertuples(index=False):
        q_dict.setdefault(a, {})[b] = c
    r_dict: dict[str, dict[str, float]] = {}
    for a, b, c in run.itertuples(index=False):
        r_dict.setdefault(a, {})[b] = c
    metrics = ["ndcg@5", "map", "mrr", "recall@3"]
    files = evaluate_trec(qp, rp, metrics=metrics, profile="ranx")
    dicts = evaluate_trec(q_dict, r_dict, metrics=metrics, profile="ranx")
    objects = evaluate_trec(ranx.Qrels(q_dict), ranx.Run(r_dict), metrics=metrics, profile="ranx")
    assert dicts.metrics == files.metrics
    assert objects.metrics == files.metrics
    theirs = ranx.evaluate(ranx.Qrels(q_dict), ranx.Run(r_dict), ["ndcg@5", "map", "mrr", "recall@3"])
    assert objects.metrics == pytest.approx(theirs, abs=1e-12)


def test_trec_eval_profile_on_frames_equals_pytrec_eval() -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = _frames(11)
    q_dict: dict[str, dict[str, int]] = {}
    for a, b, c in qrels.itertuples(index=False):
        q_dict.setdefault(a, {})[b] = int(c)
    r_dict: dict[str, dict[str, float]] = {}
    for a, b, c in run.itertuples(index=False):
        r_dict.setdefault(a, {})[b] = float(c)
    theirs = pytrec_eval.RelevanceEvaluator(q_dict, {"ndcg", "map", "recip_rank"}).evaluate(r_dict)
    ours = evaluate_trec(qrels, run, metrics="ndcg map mrr", per_query=True).per_query
    for row in ours.itertuples(index=False):
        assert row.ndcg == pytest.approx(theirs[row.qid]["ndcg"], abs=1e-12)
        assert row.map == pytest.approx(theirs[row.qid]["map"], abs=1e-12)
        assert row.mrr == pytest.approx(theirs[row.qid]["recip_rank"], abs=1e-12)


def test_integer_query_ids_match_their_text_in_the_other_input(tmp_path: Path) -> None:
    qrels, run = _frames(2)
    qp, rp = _write_sorted(tmp_path, qrels, run)
    as_int = {f"q{i}": i + 100 for i in range(12)}
    q_int = qrels.assign(query_id=qrels["query_id"].map(as_int).astype("int64"))
    r_int = run.assign(qid=run["qid"].map(as_int).astype("int64"))
    r_text = run.assign(qid=run["qid"].map(as_int).astype(str))
    both = evaluate_trec(q_int, r_int, metrics=METRICS, per_query=True).per_query
    mixed = evaluate_trec(q_int, r_text, metrics=METRICS, per_query=True).per_query
    files = evaluate_trec(qp, rp, metrics=METRICS, per_query=True).per_query
    files["qid"] = files["qid"].map(as_int).astype(str)
    files = files.sort_values("qid", ignore_index=True)  # "100" < "101" < ...: the integers' text
    pd.testing.assert_frame_equal(both, files, check_exact=True)
    pd.testing.assert_frame_equal(mixed, files, check_exact=True)


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda q, r: as_run(r.drop(columns="score")),
         ["run DataFrame", "no score column", "score=", "'qid', 'docno'"]),
        (lambda q, r: as_run(r, score="points"), ["no column 'points'", "score="]),
        (lambda q, r: as_run(r.assign(score=[np.nan, *r["score"][1:]])),
         ["run DataFrame, row 1, column 'score'", "nan", "not a finite number"]),
        (lambda q, r: as_run(r.assign(docno=["a", "a", *r["docno"][2:]],
                                      qid=["z", "z", *r["qid"][2:]])),
         ["document 'a' is retrieved twice for query 'z'", "row 2 repeats row 1"]),
        (lambda q, r: as_qrels(q.assign(relevance=[1.5, *q["relevance"][1:]])),
         ["qrels DataFrame, row 1, column 'relevance'", "1.5 is not an integer"]),
        (lambda q, r: as_qrels(q.assign(rel=1)), ["columns ['rel', 'relevance'] could each be the rel column", "rel="]),
        (lambda q, r: as_run(r.assign(qid=[None, *r["qid"][1:]])),
         ["row 1, column 'qid'", "query id", "is missing"]),
        (lambda q, r: as_run(r.assign(qid=np.arange(len(r)) + 0.5)),  # 1.0 is id 1 (one rule)
         ["column 'qid'", "0.5", "whole number"]),
        (lambda q, r: as_run({"q1": {"a": float("inf")}}), ["run dict", "['q1']['a']", "finite"]),
        (lambda q, r: as_qrels({"1": {"a": 1}, 1: {"a": 0}}),
         ["document 'a' is judged twice for query '1'", "[1]['a'] repeats ['1']['a']"]),
        (lambda q, r: as_qrels({"q1": [("a", 1)]}), ["['q1'] is a list", "expected a dict"]),
        (lambda q, r: as_run(r.iloc[:0]), ["run DataFrame: no rows"]),
    ],
)
def test_bad_objects_name_the_column_row_or_key(make: object, words: list[str]) -> None:
    qrels, run = _frames(1)
    with pytest.raises(DataError) as info:
        make(qrels, run)  # type: ignore[operator]
    for w in words:
        assert w in str(info.value), (w, str(info.value))


def test_the_wrong_kind_of_object_is_a_config_error() -> None:
    ranx = pytest.importorskip("ranx")
    with pytest.raises(ConfigError, match="got a Run object where qrels were expected"):
        as_qrels(ranx.Run({"q": {"a": 1.0}}))
    with pytest.raises(ConfigError, match="expected a path, a pandas DataFrame, a dict"):
        as_run([("q", "a", 1.0)])


def test_bad_frames_for_evaluate_name_the_column_and_row() -> None:
    frame = pd.DataFrame({"qid": ["b", "a", "b"], "label": [1, 0, 1], "score": [0.3, 0.2, 0.1]},
                         index=[10, 11, 12])
    with pytest.raises(DataError, match=r"no label column: expected one named rel, .*label="):
        evaluate(frame.drop(columns="label"))
    with pytest.raises(DataError, match=r"row 2, column 'score': score is missing .*index 11"):
        evaluate(frame.assign(score=[0.3, None, 0.1]))
    with pytest.raises(DataError, match=r"row 3, column 'label': label 'x' is not a number"):
        evaluate(frame.assign(label=[1, 0, "x"]))
    with pytest.raises(ConfigError, match="group="):
        evaluate(frame, group=[3])
    with pytest.raises(ConfigError, match="not both"):
        evaluate(frame, frame["score"].to_numpy(), score="score")
    with pytest.raises(ConfigError, match="label=/score= name columns of a DataFrame"):
        evaluate([1, 0], label="rel")
