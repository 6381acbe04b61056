"""Diversity metrics from per-row subtopic labels (``evaluate(subtopics=...)``, issue 23):
TF-Ranking's alpha-DCG and Precision-IA by hand arithmetic (its own test numbers are replayed in
``tests/test_metrics_peer_harvest.py``), and the array path against pyndeval (ndeval) and the
slow oracle of ``tests/diversity_oracle.py``."""

from __future__ import annotations

import math
import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bench.metrics import evaluate, evaluate_trec, get_profile
from tests.diversity_oracle import alpha_ndcg as oracle_alpha_ndcg
from tests.diversity_oracle import graded_alpha_dcg


def _l2(rank: int) -> float:
    return 1.0 / math.log2(rank + 1.0)


def test_tf_ranking_alpha_dcg_uses_graded_labels_and_their_sums_above() -> None:
    """TF-Ranking _alpha_dcg_gain_fn: gain l * 0.5^(labels above, summed). Ranked: d0 (2, 0)
    then d1 (1, 1): 2 + (1 * 0.5^2 + 1 * 0.5^0) / log2(3). ndeval's binary form (trec_eval
    profile): 1 + (0.5 + 1) / log2(3)."""
    sub = [[1.0, 1.0], [2.0, 0.0]]
    got = evaluate([1, 1], [0.2, 0.9], group=[2], metrics="alpha_dcg", profile="tf-ranking",
                   subtopics=sub).metrics["alpha_dcg"]
    assert got == pytest.approx(2 + 1.25 * _l2(2), rel=1e-6)  # float32 arithmetic
    binary = evaluate([1, 1], [0.2, 0.9], group=[2], metrics="alpha_dcg", profile="trec_eval",
                      subtopics=sub).metrics["alpha_dcg"]
    assert binary == pytest.approx(1 + 1.5 * _l2(2), rel=1e-15)


def test_alpha_dcg_at_k_and_alpha_parameter() -> None:
    """alpha 0.25 at k = 2: d1 (1, 1) first: 2; d0 (1, 0): 0.75 / log2(3); d2 not counted."""
    got = evaluate([1, 1, 1], [0.5, 0.9, 0.1], group=[3], metrics="alpha_dcg(0.25)@2",
                   profile="trec_eval", subtopics=[[1, 0], [1, 1], [0, 1]])
    assert got.metrics["alpha_dcg(0.25)@2"] == pytest.approx(2 + 0.75 * _l2(2), rel=1e-15)


def test_precision_ia_denominator_is_k_or_the_list_when_shorter() -> None:
    """Two documents covering 1 and 2 of 2 subtopics: P-IA@5 = 3 / (5 * 2) (ndeval: k) and
    3 / (2 * 2) under TF-Ranking (valid_topn = min(topn, list size))."""
    args = dict(group=[2], metrics="precision_ia@5", subtopics=[[1, 0], [1, 1]])
    assert evaluate([1, 1], [1.0, 2.0], profile="trec_eval", **args).metrics[
        "precision_ia@5"] == pytest.approx(3 / 10, rel=1e-15)
    assert evaluate([1, 1], [1.0, 2.0], profile="tf-ranking", **args).metrics[
        "precision_ia@5"] == pytest.approx(3 / 4, rel=1e-6)


def test_precision_ia_counts_only_subtopics_with_a_relevant_document() -> None:
    """Three subtopic columns, the third never relevant: S = 2 (ndeval actualSubtopics,
    TF-Ranking num_subtopics); a label below the threshold (0.5) is not relevant."""
    got = evaluate([1, 0, 1], [3.0, 2.0, 1.0], group=[3], metrics="precision_ia@2",
                   profile="tf-ranking", subtopics=[[1, 0, 0], [0.5, 0, 0.5], [0, 1, 0]])
    assert got.metrics["precision_ia@2"] == pytest.approx(1 / (2 * 2), rel=1e-6)


def test_precision_ia_averages_a_tied_group_that_straddles_the_cutoff() -> None:
    """tf-ranking averages ties: d0 (score 2, 1 subtopic) first, then d1 (2 subtopics) and d2
    (0) tied for ranks 2-3. P-IA@2 = (1 + (2 + 0) / 2) / (2 * 2) = 0.5."""
    got = evaluate([1, 1, 0], [2.0, 1.0, 1.0], group=[3], metrics="precision_ia@2",
                   profile="tf-ranking", subtopics=[[1, 0], [1, 1], [0, 0]])
    assert got.metrics["precision_ia@2"] == pytest.approx(0.5, rel=1e-6)


def test_alpha_dcg_accepts_ties_between_documents_with_the_same_labels_under_average() -> None:
    got = evaluate([1, 1, 0], [2.0, 2.0, 1.0], group=[3], metrics="alpha_dcg",
                   profile="tf-ranking", subtopics=[[1, 0], [1, 0], [0, 0]])
    assert got.metrics["alpha_dcg"] == pytest.approx(1 + 0.5 * _l2(2), rel=1e-6)


def test_query_weights_weigh_the_mean_and_blank_lists_count_as_zero() -> None:
    """tf-ranking: a list without a relevant subtopic scores 0 and counts (divide_no_nan)."""
    sub = [[1, 0], [0, 1], [0, 0], [0, 0]]
    got = evaluate([1, 1, 0, 0], [2.0, 1.0, 2.0, 1.0], qid=[1, 1, 2, 2],
                   metrics="precision_ia", profile="tf-ranking", subtopics=sub,
                   weights=[3.0, 1.0], per_query=True)
    assert list(got.per_query["precision_ia"]) == pytest.approx([0.5, 0.0])
    assert got.metrics["precision_ia"] == pytest.approx(0.5 * 3 / 4, rel=1e-6)


def test_padding_rows_and_their_subtopic_rows_are_dropped_under_tf_ranking() -> None:
    """TF-Ranking pads documents with label -1 and their subtopic labels with -1."""
    sub = [[1, 0], [-1, -1], [0, 1]]
    got = evaluate([1, -1, 1], [2.0, 5.0, 1.0], group=[3], metrics="alpha_dcg",
                   profile="tf-ranking", subtopics=sub).metrics["alpha_dcg"]
    assert got == pytest.approx(1 + _l2(2), rel=1e-6)


def test_a_dataframe_names_its_subtopic_columns_in_any_row_order() -> None:
    frame = pd.DataFrame({"qid": [2, 1, 2, 1], "label": [1, 1, 0, 1],
                          "score": [0.3, 0.9, 0.8, 0.1], "s1": [1, 1, 0, 0],
                          "s2": [1, 0, 0, 1]})
    got = evaluate(frame, metrics="alpha_ndcg@2,precision_ia@2,ndcg@2", profile="trec_eval",
                   subtopics=["s1", "s2"], per_query=True)
    table = got.per_query.set_index("qid")
    assert table.loc[1, "alpha_ndcg@2"] == pytest.approx(1.0)  # 1, 0.5 -> ideal order
    assert table.loc[2, "alpha_ndcg@2"] == pytest.approx(2 * _l2(2) / 2)  # ideal puts it first
    assert table.loc[2, "precision_ia@2"] == pytest.approx(2 / 4)
    plain = evaluate(frame, metrics="ndcg@2", profile="trec_eval").metrics["ndcg@2"]
    assert got.metrics["ndcg@2"] == plain
    as_array = evaluate(frame, metrics="alpha_ndcg@2", profile="trec_eval",
                        subtopics=frame[["s1", "s2"]].to_numpy())
    assert as_array.metrics["alpha_ndcg@2"] == got.metrics["alpha_ndcg@2"]


def test_rows_follow_their_subtopics_when_sorted_by_query() -> None:
    sub = np.array([[1, 0], [0, 1], [1, 1], [0, 0]])
    got = evaluate([1, 1, 1, 0], [1.0, 2.0, 3.0, 4.0], qid=[1, 2, 1, 2], sort_by_qid=True,
                   metrics="alpha_dcg", profile="trec_eval", subtopics=sub, per_query=True)
    # query 1: rows 0 (1, 0) and 2 (1, 1), row 2 first: 2 + 0.5 / log2 3; query 2: row 1 at rank 2
    assert list(got.per_query["alpha_dcg"]) == pytest.approx([2 + 0.5 * _l2(2), _l2(2)])


@pytest.mark.parametrize("seed", range(6))
def test_graded_alpha_dcg_equals_the_loop_oracle(seed: int) -> None:
    """Graded labels (0, 0.5, 1, 2, 3) at several alphas and cutoffs, distinct scores, under a
    float64 variant of tf-ranking's label gain (the stable tie rule)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, size=4)
    n = int(sizes.sum())
    sub = rng.choice([0.0, 0.0, 0.5, 1.0, 2.0, 3.0], size=(n, 3))
    scores = rng.permutation(n).astype(np.float64)
    alpha = float(rng.choice([0.0, 0.3, 0.5, 1.0]))
    q = np.repeat(np.arange(sizes.shape[0]), sizes)
    graded = replace(get_profile("trec_eval"), name="graded", subtopic_gain="label")
    got = evaluate(np.ones(n), scores, qid=q, metrics=f"alpha_dcg({alpha})@3,alpha_dcg({alpha})",
                   profile=graded, subtopics=sub, per_query=True).per_query
    for i in range(sizes.shape[0]):
        rows = np.flatnonzero(q == i)
        order = rows[np.argsort(-scores[rows], kind="stable")]
        lists = [list(map(float, sub[r])) for r in order]
        for k in (3, None):
            name = f"alpha_dcg({alpha})" + ("@3" if k else "")
            assert got[name][i] == pytest.approx(graded_alpha_dcg(lists, alpha, k), rel=1e-12)


pyndeval = pytest.importorskip("pyndeval", reason="pyndeval (ndeval) is the golden tool")


def _random_lists(seed: int) -> tuple[list[tuple[str, str, str, int]],
                                      list[tuple[str, str, float]]]:
    """Qrels and a run that ranks every judged document (so that the greedy ideal over the
    list is the one over the qrels), with unjudged documents and tied scores."""
    rng = random.Random(seed)
    qrels: list[tuple[str, str, str, int]] = []
    run: list[tuple[str, str, float]] = []
    for q in range(1, rng.randint(2, 5)):
        docs = [f"d{i:02d}" for i in range(rng.randint(2, 14))]
        for d in docs:
            for s in range(1, 4):
                if rng.random() < 0.35:
                    qrels.append((str(q), str(s), d, rng.choice([0, 1, 1, 2])))
            run.append((str(q), d, float(rng.randint(0, 4))))
    if not any(j > 0 for *_, j in qrels):
        return _random_lists(seed + 1000)
    return qrels, run


@pytest.mark.parametrize("seed", range(8))
def test_subtopic_rows_equal_pyndeval_on_the_same_lists(seed: int) -> None:
    """The array path (subtopic labels per run row, ir_measures' pyndeval profile: ties by
    document id ascending) equals pyndeval per query: alpha-nDCG, nERR-IA, P-IA."""
    qrels, run = _random_lists(seed)
    ks = [1, 3, 5, 10, 20]
    names = [f"{m}@{k}" for m in ("alpha-nDCG", "nERR-IA", "P-IA") for k in ks]
    want = pyndeval.ndeval(qrels, sorted(run, key=lambda x: x[0]), names)
    subs = sorted({int(s) for _, s, _, _ in qrels})
    judged = {(q, d, int(s)): j for q, s, d, j in qrels}
    rows = np.array([[float(judged.get((q, d, s), 0) > 0) for s in subs] for q, d, _ in run])
    ours = {"alpha-nDCG": "alpha_nDCG", "nERR-IA": "nERR_IA", "P-IA": "P_IA"}
    metrics = [f"{ours[m]}@{k}" for m in ours for k in ks]
    got = evaluate(np.ones(len(run)), np.array([s for *_, s in run]),
                   qid=np.array([q for q, *_ in run]), docno=np.array([d for _, d, _ in run]),
                   metrics=metrics, subtopics=rows, per_query=True).per_query
    table = got.set_index(got["qid"].astype(str))
    for qid, values in want.items():
        for name in names:
            measure, k = name.split("@")
            assert table.loc[qid, f"{ours[measure]}@{k}"] == pytest.approx(
                values[name], abs=1e-15), (qid, name)


@pytest.mark.parametrize("seed", range(4))
def test_subtopic_rows_equal_the_slow_oracle_under_trec_eval_ties(seed: int) -> None:
    qrels, run = _random_lists(seed + 50)
    subs = sorted({int(s) for _, s, _, _ in qrels})
    judged: dict[str, dict[str, set[int]]] = {}
    for q, s, d, j in qrels:
        if j > 0:
            judged.setdefault(q, {}).setdefault(d, set()).add(int(s))
    rows = np.array([[float(s in judged.get(q, {}).get(d, set())) for s in subs]
                     for q, d, _ in run])
    got = evaluate(np.ones(len(run)), np.array([s for *_, s in run]),
                   qid=np.array([q for q, *_ in run]), docno=np.array([d for _, d, _ in run]),
                   metrics="alpha_ndcg@5,alpha_ndcg,nerr_ia@10", profile="trec_eval",
                   subtopics=rows, per_query=True).per_query
    for _, row in got.iterrows():
        qid = str(row["qid"])
        scored = {d: sc for q, d, sc in run if q == qid}
        mine = judged.get(qid, {})
        if not mine:
            assert row["alpha_ndcg@5"] == 0.0
            continue
        assert row["alpha_ndcg@5"] == pytest.approx(oracle_alpha_ndcg(scored, mine, 0.5, 5),
                                                     abs=1e-15)
        assert row["alpha_ndcg"] == pytest.approx(oracle_alpha_ndcg(scored, mine, 0.5, None),
                                                  abs=1e-15)
        assert row["nerr_ia@10"] == pytest.approx(
            oracle_alpha_ndcg(scored, mine, 0.5, 10, reciprocal=True), abs=1e-15)


def test_trec_p_ia_equals_pyndeval_from_subtopic_qrels(tmp_path: Path) -> None:
    """ir_measures' P_IA@k (pyndeval P-IA) through evaluate_trec: ties by document id
    ascending, a qrels query without a run line 0, denominators k * subtopics."""
    qrels, run = _random_lists(7)
    run = [r for r in run if r[1] != "d01"]  # judged documents left unretrieved
    q = tmp_path / "qrels"
    r = tmp_path / "run"
    q.write_text("".join(f"{a} {s} {d} {j}\n" for a, s, d, j in qrels))
    r.write_text("".join(f"{a} Q0 {d} 1 {sc} x\n" for a, d, sc in run))
    want = pyndeval.ndeval(qrels, sorted(run, key=lambda x: x[0]), ["P-IA@5", "P-IA@20"])
    got = evaluate_trec(q, r, metrics="P_IA@5,P_IA@20", per_query=True).per_query
    table = got.set_index(got["qid"].astype(str))
    for qid, values in want.items():
        assert table.loc[qid, "P_IA@5"] == pytest.approx(values["P-IA@5"], abs=1e-15)
        assert table.loc[qid, "P_IA@20"] == pytest.approx(values["P-IA@20"], abs=1e-15)
