"""Round 8 of the hostile catalogue, ``ltrbench evaluate`` and the metrics under it: the
leftovers of round 7, each against an independent oracle (pytrec_eval, ir_measures, hand
arithmetic).

1. **ir_measures ``judged_only=True``** (pytrec_eval's ``judged_docs_only_flag``, trec_eval
   ``-J``) was refused ("not supported by ltrbench yet") although ``--judged-only`` computes
   it: now the name resolves to the judged-only reading, equal to ir_measures per query; a name
   that says ``judged_only=False`` beside ``--judged-only`` is refused (it would have been
   silently overruled), ``RR(judged_only=True)@k`` is refused as ir_measures refuses it.
2. **The footer's blank count** counted queries without a positive gain (ndcg's blank) whatever
   the relevance level: under ``--relevance-level 3`` map and P had 8 queries with
   ``num_rel`` = 0 (pytrec_eval) and the footer said 0, hiding the blank-policy columns.
3. **reconcile** explained GAUC / ARP / OPA / gm_map with a plain mean of the per-query values:
   its "library value" was not the number the evaluator prints (ARP under tf-ranking: 3.95 for
   4.50).
4. **A closed pipe** (``ltrbench evaluate ... | head -1``): exit 1 (rich's console turned the
   broken pipe into SystemExit(1)) or 141; now 0, quietly, for every command that prints.
5. **Padding, one reading per profile**: allRank's -1 / TF-Ranking's negative labels are padding
   in arrays (the row takes no rank) but were "unjudged" in qrels (the document kept its rank):
   now padding on every path; a DataFrame's padding row may have a NaN score (arrays allowed it).
6. **Overflow**: ARP at labels near 1e308 printed a number over the other queries only (inf /
   inf dropped the query silently); a label of 1e308 under letor4's gain table was an
   ``IndexError`` (cast to int64 it is -2^63, an index from the end).

:data:`CLASSES` maps each test to its class for the closing counts.
"""

from __future__ import annotations

import collections
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hostile_kit import ROOT, api_refused, call, cli, close, csv_values, refused

from bench.metrics import evaluate, evaluate_trec
from bench.metrics.reconcile import reconcile

pytrec_eval = pytest.importorskip("pytrec_eval")
ir_measures = pytest.importorskip("ir_measures")

CLASSES = {
    "test_judged_only_names_equal_ir_measures_per_query": "unclear error",
    "test_judged_only_false_beside_the_judged_only_flag_is_refused": "silently wrong",
    "test_rr_judged_only_at_k_is_refused_as_ir_measures_refuses_it": "silent accept",
    "test_the_footer_counts_blank_queries_at_the_relevance_level": "silently wrong",
    "test_reconcile_values_are_the_evaluators_means": "silently wrong",
    "test_a_closed_pipe_downstream_ends_every_command_with_status_0": "unclear error",
    "test_per_query_dash_is_refused_not_a_file_named_dash": "silent accept",
    "test_a_padding_judgment_in_qrels_reads_as_padding_in_arrays": "silently wrong",
    "test_a_padding_rows_nan_score_in_a_frame_is_not_read": "silent accept",
    "test_arp_refuses_labels_whose_sums_overflow": "silently wrong",
    "test_a_label_of_1e308_under_a_gain_table_is_no_traceback": "traceback",
    "test_an_ideal_dcg_that_overflows_is_refused_not_printed_as_0": "silently wrong",
}


def _corpus(folder: Path) -> tuple[str, str, dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """40 queries, about half the documents judged (labels 0..3), tied scores: unjudged
    documents in every ranking, queries without a label 3."""
    rng = np.random.default_rng(2)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for qi in range(1, 41):
        q = str(qi)
        docs = [f"d{j}" for j in range(15)]
        qrels[q] = {d: int(rng.choice([0, 0, 1, 2, 3])) for d in docs if rng.random() < 0.5}
        qrels[q][f"zz{q}"] = 1
        run[q] = {d: float(rng.choice([0.5, 0.25, 1.0, 0.75, round(float(rng.random()), 4)]))
                  for d in docs}
    qf, rf = folder / "qrels.txt", folder / "run.txt"
    qf.write_text("".join(f"{q} 0 {d} {r}\n" for q, ds in qrels.items() for d, r in ds.items()))
    rf.write_text("".join(f"{q} Q0 {d} {i + 1} {s!r} r\n" for q, ds in run.items()
                          for i, (d, s) in enumerate(ds.items())))
    return str(qf), str(rf), qrels, run


JUDGED_ONLY = ["nDCG(judged_only=True)@10", "nDCG(judged_only=True)", "AP(judged_only=True)",
               "RR(judged_only=True)", "P(judged_only=True)@5", "R(judged_only=True)@10",
               "Rprec(judged_only=True)", "SetP(judged_only=True)", "SetF(judged_only=True)",
               "Success(judged_only=True)@5", "NDCG(judged_only=True)@5",
               "MAP(judged_only=True)", "P(rel=2,judged_only=True)@5"]


@pytest.mark.parametrize("name", JUDGED_ONLY)
def test_judged_only_names_equal_ir_measures_per_query(tmp_path: Path, name: str) -> None:
    qf, rf, _, _ = _corpus(tmp_path)
    measure = ir_measures.parse_measure(name)
    qrels = list(ir_measures.read_trec_qrels(qf))
    run = list(ir_measures.read_trec_run(rf))
    want = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
    res, exc = call(lambda: evaluate_trec(qf, rf, metrics=[name], per_query=True))
    assert exc is None, f"{name}: {exc}"
    table = res.per_query.set_index("qid")[name]
    assert set(map(str, table.index)) == set(want)
    worst = max(abs(float(table[q]) - v) for q, v in want.items())
    assert worst <= 1e-12, f"{name}: per-query gap {worst}"
    agg = ir_measures.calc_aggregate([measure], qrels, run)[measure]
    assert res.metrics[name] == pytest.approx(agg, abs=1e-12)
    assert "judged_only=True" in res.metric_profiles[name]


def test_judged_only_false_beside_the_judged_only_flag_is_refused(tmp_path: Path) -> None:
    qf, rf, _, _ = _corpus(tmp_path)
    res = cli(tmp_path, "evaluate", "--qrels", qf, "--run", rf, "--profile", "trec_eval-c",
              "--judged-only", "--metrics", "nDCG(judged_only=False)@10", "--format", "csv")
    assert refused(res, "judged_only=False", "--judged-only") is None, res.err
    # the name and the flag that agree: one reading, the flag's profile named once
    ok = cli(tmp_path, "evaluate", "--qrels", qf, "--run", rf, "--profile", "trec_eval-c",
             "--judged-only", "--metrics", "nDCG(judged_only=True)@10", "--format", "csv")
    assert ok.status == 0, ok.err
    assert "judged_only=True+judged_only=True" not in ok.out
    measure = ir_measures.parse_measure("nDCG(judged_only=True)@10")
    want = ir_measures.calc_aggregate([measure], list(ir_measures.read_trec_qrels(qf)),
                                      list(ir_measures.read_trec_run(rf)))[measure]
    assert close(csv_values(ok).get("nDCG(judged_only=True)@10"), want, 1e-12)


def test_rr_judged_only_at_k_is_refused_as_ir_measures_refuses_it(tmp_path: Path) -> None:
    qf, rf, _, _ = _corpus(tmp_path)
    with pytest.raises(ValueError, match="Unsupported"):  # ir_measures itself
        ir_measures.calc_aggregate([ir_measures.parse_measure("RR(judged_only=True)@10")],
                                   list(ir_measures.read_trec_qrels(qf)),
                                   list(ir_measures.read_trec_run(rf)))
    _, exc = call(lambda: evaluate_trec(qf, rf, metrics=["RR(judged_only=True)@10"]))
    assert api_refused(exc, "RR(judged_only=True)", "MS MARCO") is None
    _, exc = call(lambda: evaluate_trec(qf, rf, metrics=["AP(judged_only=1)"]))
    assert api_refused(exc, "judged_only", "True or False") is None


def test_the_footer_counts_blank_queries_at_the_relevance_level(tmp_path: Path) -> None:
    """trec_eval's num_rel honours -l: a query without a label >= 3 is 0/0 for map and P (the
    profile scores it 0), while ndcg keeps every positive label's gain."""
    qf, rf, qrels, run = _corpus(tmp_path)
    per_q = pytrec_eval.RelevanceEvaluator(qrels, {"num_rel"}, relevance_level=3).evaluate(run)
    n_blank = sum(v["num_rel"] == 0 for v in per_q.values())
    assert n_blank > 0
    res = cli(tmp_path, "evaluate", "--qrels", qf, "--run", rf, "--metrics", "map", "P_5",
              "ndcg_cut_10", "--relevance-level", "3")
    assert res.status == 0, res.err
    footer = " ".join(res.out.split())
    assert f"{n_blank} for map, P_5" in footer, footer
    assert "0 for ndcg_cut_10" in footer
    assert "label >= 3" in footer
    assert "blank = 0" in footer  # the blank-policy columns are shown
    js = evaluate_trec(qf, rf, metrics=["map", "ndcg_cut_10"], profile="trec_eval",
                       per_query=False)
    assert js.diagnostics.blank_by_metric == {"map": 0, "ndcg_cut_10": 0}


def _pooled_arp(y: np.ndarray, s: np.ndarray, sizes: np.ndarray) -> tuple[float, float]:
    """ARP by hand: per query sum(rank x label) / sum(label), rank by score descending (stable),
    pooled (TF-Ranking's list weight: sum of labels) and plain."""
    num = den = 0.0
    plain = []
    start = 0
    for n in sizes:
        ys, ss = y[start:start + n], s[start:start + n]
        order = np.argsort(-ss, kind="stable")
        ranks = np.empty(n)
        ranks[order] = np.arange(1, n + 1)
        if ys.sum() > 0:
            num += float((ranks * ys).sum())
            den += float(ys.sum())
            plain.append(float((ranks * ys).sum() / ys.sum()))
        start += n
    return num / den, sum(plain) / len(plain)


def test_reconcile_values_are_the_evaluators_means() -> None:
    rng = np.random.default_rng(0)
    sizes = rng.integers(2, 12, size=30)
    y = rng.integers(0, 4, size=int(sizes.sum())).astype(float)
    s = rng.permutation(int(sizes.sum())) / 100.0  # no ties: the hand ranking is the ranking
    off = np.concatenate([[0], np.cumsum(sizes)])
    pooled, plain = _pooled_arp(y, s, sizes)
    rec = reconcile(y, s, off, library_profile="tf-ranking", default_profile="pytorchltr",
                    metric="arp")
    assert rec.library_value == pytest.approx(pooled, rel=1e-6)  # float32 arithmetic
    assert rec.default_value == pytest.approx(plain, rel=1e-12)
    assert sum(rec.reasons.values()) + rec.residual == pytest.approx(rec.gap, abs=1e-12)
    assert rec.per_query["contribution"].sum() == pytest.approx(rec.gap, abs=1e-9)
    # gm_map: exp of the mean of log(max(AP, 1e-5)) (trec_eval m_gm_map.c), AP from pytrec_eval
    qrels = {str(q): {f"d{i}": int(y[off[q] + i]) for i in range(sizes[q])} for q in range(30)}
    run = {str(q): {f"d{i}": float(s[off[q] + i]) for i in range(sizes[q])} for q in range(30)}
    ap = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
    gm = math.exp(sum(math.log(max(v["map"], 1e-5)) for v in ap.values()) / len(ap))
    rec = reconcile(y, s, off, library_profile="trec_eval", metric="gm_map")
    assert rec.library_value == pytest.approx(gm, rel=1e-12)
    # gauc: weighted by the documents of each query with both classes
    from sklearn.metrics import roc_auc_score

    w = a = 0.0
    for q in range(30):
        yy = y[off[q]:off[q + 1]] > 0
        if 0 < yy.sum() < yy.shape[0]:
            w += sizes[q]
            a += sizes[q] * roc_auc_score(yy, s[off[q]:off[q + 1]])
    rec = reconcile(y, s, off, library_profile="lightgbm", metric="gauc")
    assert rec.library_value == pytest.approx(a / w, rel=1e-12)
    assert rec.default_value == pytest.approx(a / w, rel=1e-12)


@pytest.mark.parametrize("argv", [
    ("evaluate", "--qrels", "{q}", "--run", "{r}", "--metrics", "map", "--format", "table"),
    ("evaluate", "--qrels", "{q}", "--run", "{r}", "--metrics", "map", "--per-query", "pq.csv",
     "--format", "csv"),
    ("metrics", "list"),
    ("datasets", "list"),
    ("--help",),
    ("evaluate", "--help"),
])
def test_a_closed_pipe_downstream_ends_every_command_with_status_0(
        tmp_path: Path, argv: tuple[str, ...]) -> None:
    """``ltrbench ... | head -1``: the reader closes the pipe first; status 0, stderr empty."""
    qf, rf, _, _ = _corpus(tmp_path)
    args = [a.format(q=qf, r=rf) for a in argv]
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin",
           "LTRBENCH_DATA_DIR": str(ROOT.parent / "shared" / "data")}
    p = subprocess.run(f"{sys.executable} -m bench {' '.join(args)} 2>{tmp_path}/err | true; "
                       "echo ${PIPESTATUS[0]}", shell=True, executable="/bin/bash",
                       capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert p.stdout.strip() == "0", (p.stdout, (tmp_path / "err").read_text())
    assert (tmp_path / "err").read_text() == ""


def test_per_query_dash_is_refused_not_a_file_named_dash(tmp_path: Path) -> None:
    """``--per-query -`` wrote a CSV named '-' into the working folder (exit 0), where '-'
    means standard output to most tools; standard output carries the summary, so it is refused."""
    qf, rf, _, _ = _corpus(tmp_path)
    res = cli(tmp_path, "evaluate", "--qrels", qf, "--run", rf, "--metrics", "map",
              "--per-query", "-")
    assert refused(res, "--per-query") is None, res.err
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize(("profile", "pad"), [("allrank", -1), ("tf-ranking", -1),
                                              ("tf-ranking", -3)])
def test_a_padding_judgment_in_qrels_reads_as_padding_in_arrays(profile: str, pad: int) -> None:
    """Ranking b (padding, top score), c (1), d (0), a (2): without b, mrr 1 (c first), P@2 1/2,
    AP (1/1 + 2/3) / 2 = 0.8333; with b ranked (trec_eval's unjudged reading) mrr 1/2."""
    qrels = {"1": {"a": 2, "b": pad, "c": 1, "d": 0}}
    run = {"1": {"a": 0.1, "b": 0.9, "c": 0.5, "d": 0.3}}
    got = evaluate_trec(qrels, run, metrics=["mrr", "p@2", "map"], profile=profile).metrics
    assert got["mrr"] == 1.0
    assert got["p@2"] == 0.5
    assert got["map"] == pytest.approx((1 + 2 / 3) / 2, rel=1e-6)
    arrays = evaluate(np.array([2.0, pad, 1, 0]), np.array([0.1, 0.9, 0.5, 0.3]), group=[4],
                      metrics=["mrr", "p@2", "map"], profile=profile).metrics
    assert arrays == got
    plain = evaluate_trec(qrels, run, metrics=["mrr"], profile="trec_eval").metrics
    assert plain["mrr"] == 0.5  # trec_eval: a negative judgment is unjudged and keeps its rank


@pytest.mark.parametrize("profile", ["allrank", "tf-ranking"])
def test_a_padding_rows_nan_score_in_a_frame_is_not_read(profile: str) -> None:
    frame = pd.DataFrame({"qid": [1, 1, 1, 1], "label": [2.0, -1, 1, 0],
                          "score": [0.1, np.nan, 0.5, 0.3]})
    res, exc = call(lambda: evaluate(frame, metrics=["mrr", "ndcg@2"], profile=profile))
    assert exc is None, exc
    arrays = evaluate(np.array([2.0, -1, 1, 0]), np.array([0.1, np.nan, 0.5, 0.3]), group=[4],
                      metrics=["mrr", "ndcg@2"], profile=profile)
    assert res.metrics == arrays.metrics
    # a real row's NaN is still refused, naming its row
    frame.loc[0, "score"] = np.nan
    _, exc = call(lambda: evaluate(frame, metrics=["mrr"], profile=profile))
    assert api_refused(exc, "row 1", "score") is None


@pytest.mark.parametrize("profile", ["sklearn", "trec_eval", "catalyst-linear", "letor4",
                                     "torchmetrics"])
def test_arp_refuses_labels_whose_sums_overflow(profile: str) -> None:
    y = np.array([1e308, 1e308, 0.0, 1e308, 1.0, 0.0])
    s = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.1])
    res, exc = call(lambda: evaluate(y, s, group=[4, 2], metrics=["arp"], profile=profile))
    if exc is None:
        # the only right number: query 1 ARP (1 + 3 + 4) / 3, query 2 ARP 1
        assert res.metrics["arp"] == pytest.approx((8 / 3 + 1) / 2), res.metrics
    else:
        assert api_refused(exc, "ARP", "overflow") is None


@pytest.mark.parametrize("profile", ["sklearn", "trec_eval", "catalyst-linear", "torchmetrics"])
def test_an_ideal_dcg_that_overflows_is_refused_not_printed_as_0(profile: str) -> None:
    """Linear gain, labels 1e308: query 1's DCG@3 is 1e308 + 0 + 1e308 / 2 (finite) but its
    ideal DCG 1e308 (1 + 1/log2(3) + 1/2) is inf, so NDCG was printed as 0 (x / inf) beside
    query 2's 1: 0.5 where the true mean is (1.5 / 2.1309 + 1) / 2 = 0.852."""
    y = np.array([1e308, 1e308, 0.0, 1e308, 1.0, 0.0])
    s = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.1])
    res, exc = call(lambda: evaluate(y, s, group=[4, 2], metrics=["ndcg@3"], profile=profile))
    if exc is None:
        ideal = 1 + 1 / math.log2(3) + 1 / 2
        assert res.metrics["ndcg@3"] == pytest.approx((1.5 / ideal + 1) / 2), res.metrics
    else:
        assert api_refused(exc, "ndcg@3", "overflow") is None
    # the same labels scaled down are fine and give that number (trec_eval's arithmetic)
    scaled = evaluate(y / 1e300, s, group=[4, 2], metrics=["ndcg@3"], profile="sklearn")
    assert scaled.metrics["ndcg@3"] == pytest.approx(((1 + 0.5) / (1 + 1 / math.log2(3) + 0.5)
                                                      + 1.0 / 1.0) / 2)


def test_a_label_of_1e308_under_a_gain_table_is_no_traceback() -> None:
    """letor4: labels_beyond_gain_table='zero' (a label >= 3 gains 0, not relevant)."""
    y = np.array([1e308, 1.0, 0.0])
    res, exc = call(lambda: evaluate(y, np.array([0.3, 0.2, 0.1]), group=[3],
                                     metrics=["ndcg@3", "map"], profile="letor4"))
    assert exc is None or api_refused(exc) is None, f"{type(exc).__name__}: {exc}"
    if exc is None:
        same = evaluate(np.array([3.0, 1.0, 0.0]), np.array([0.3, 0.2, 0.1]), group=[3],
                        metrics=["ndcg@3", "map"], profile="letor4")
        assert res.metrics == same.metrics
    counts = collections.Counter(CLASSES.values())
    assert sum(counts.values()) == len(CLASSES)
