"""``compare_runs``: means, bootstrap intervals and paired tests of several runs on one qrels.

Anchors: hand arithmetic on a three-query case (exact sign-flip enumeration, the t distribution
with 2 degrees of freedom, Holm by hand), scipy.stats.ttest_rel and pytrec_eval on random runs.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from bench.errors import ConfigError, DataError
from bench.report import stats
from bench.report.compare_runs import compare_runs

QRELS = {"q1": {"a": 1, "b": 1}, "q2": {"a": 1, "b": 1}, "q3": {"a": 1, "b": 0}}
# p@2 per query (q1, q2, q3): A = (1, 1, 0.5), B = (0, 0.5, 0.5), C = (0.5, 1, 0.5)
RUNS = {
    "A": {"q1": {"a": 0.9, "b": 0.8}, "q2": {"a": 0.9, "b": 0.8}, "q3": {"a": 0.9, "x": 0.8}},
    "B": {"q1": {"x": 0.9, "y": 0.8}, "q2": {"a": 0.9, "x": 0.8}, "q3": {"a": 0.9, "y": 0.8}},
    "C": {"q1": {"a": 0.9, "x": 0.8}, "q2": {"a": 0.9, "b": 0.8}, "q3": {"a": 0.9, "x": 0.8}},
}


def test_three_query_case_matches_hand_arithmetic() -> None:
    r = compare_runs(QRELS, RUNS, metrics="p@2")
    assert r.best == "A"
    assert r.mean["p@2"].tolist() == pytest.approx([2.5 / 3, 1 / 3, 2 / 3], abs=1e-15)
    v = r.versus
    # A - B = (1, 0.5, 0): of the 2^3 sign vectors, |T| = |s1 + 0.5 s2| is 1.5 (the observed
    # value) when s1 = s2 (4 of 8) and 0.5 otherwise: p = 4/8 = 0.5 (exact enumeration).
    # A - C = (0.5, 0, 0): |T| = 0.5 for every sign vector: p = 8/8 = 1.
    assert v.p_randomization.tolist()[1:] == [0.5, 1.0]
    # Holm over 2: sorted (0.5, 1) -> (min(1, 2 * 0.5), max(1, 1 * 1)) = (1, 1).
    assert v.p_randomization_holm.tolist()[1:] == [1.0, 1.0]
    # t-test, df = 2, two-sided p = 1 - t / sqrt(t^2 + 2) (Student t CDF for 2 degrees of freedom).
    # A - B: mean 0.5, sd 0.5, t = 0.5 / (0.5 / sqrt 3) = sqrt 3 -> p = 1 - sqrt(3/5) = 0.225403.
    # A - C: mean 1/6, sd sqrt(1/12), t = (1/6) / (sqrt(1/12) / sqrt 3) = 1 -> p = 1 - 1/sqrt 3.
    p_b, p_c = 1 - math.sqrt(3 / 5), 1 - 1 / math.sqrt(3)
    assert v.p_t[1:] == pytest.approx([p_b, p_c], abs=1e-12)
    # Holm: sorted (0.2254, 0.4226) -> (2 * 0.2254 = 0.4508, max(0.4508, 0.4226) = 0.4508).
    assert v.p_t_holm[1:] == pytest.approx([2 * p_b, 2 * p_b], abs=1e-12)
    assert math.isnan(v.p_t[0])
    assert math.isnan(v.p_randomization[0])
    assert v.n_queries.tolist()[1:] == [3, 3]


def test_a_query_missing_from_one_run_is_left_out_of_every_run_never_scored_zero() -> None:
    runs = {k: dict(v) for k, v in RUNS.items()}
    del runs["B"]["q3"]  # B did not answer q3
    runs["C"]["q9"] = {"a": 1.0}  # a query without qrels: the profile drops it (not "left out")
    r = compare_runs(QRELS, runs, metrics="p@2")
    assert r.qids.tolist() == ["q1", "q2"]
    assert r.left_out == {"A": ["q3"], "B": [], "C": ["q3"]}
    assert r.evaluated == {"A": 3, "B": 2, "C": 3}
    # means over q1, q2 only: A (1 + 1) / 2, B (0 + 0.5) / 2, C (0.5 + 1) / 2
    assert r.mean["p@2"].tolist() == [1.0, 0.25, 0.75]
    pq = r.per_query_frame()
    assert pq.columns.tolist() == ["qid", "metric", "profile", "A", "B", "C"]
    assert pq["B"].tolist() == [0.0, 0.5]


def test_random_runs_match_scipy_ttest_rel_and_pytrec_eval_means() -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    from scipy.stats import ttest_rel

    rng = np.random.default_rng(4)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in range(12)} for i in range(40)}
    runs = {name: {q: {f"d{j}": float(rng.normal() + shift * (j < 4)) for j in range(12)}
                   for q in qrels}
            for name, shift in (("weak", 0.0), ("mid", 0.4), ("strong", 1.2))}
    r = compare_runs(qrels, runs, metrics="ndcg map")
    per_run = {}
    for i, name in enumerate(r.names):
        theirs = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg", "map"}).evaluate(runs[name])
        per_run[name] = np.array([theirs[q]["ndcg"] for q in r.qids])
        assert r.mean["ndcg"][i] == pytest.approx(per_run[name].mean(), abs=1e-12)
        assert r.mean["map"][i] == pytest.approx(np.mean([theirs[q]["map"] for q in r.qids]),
                                                 abs=1e-12)
    best = r.best
    assert best == max(per_run, key=lambda n: per_run[n].mean())
    others = [n for n in r.names if n != best]
    p = {n: float(ttest_rel(per_run[best], per_run[n]).pvalue) for n in others}
    for n in others:
        assert r.versus.p_t[r.names.index(n)] == pytest.approx(p[n], rel=1e-9)
    lo, hi = sorted(p.values())  # Holm by hand over two comparisons
    holm = {n: max(min(1.0, 2 * lo), hi) if p[n] == hi else min(1.0, 2 * lo) for n in others}
    for n in others:
        assert r.versus.p_t_holm[r.names.index(n)] == pytest.approx(holm[n], rel=1e-9)
    # the intervals are the leaderboard's bootstrap on these per-query values (same draws)
    ci = stats.bootstrap_ci(np.vstack([per_run[n] for n in r.names]), n_resamples=1000, seed=0)
    assert r.ci_low["ndcg"] == pytest.approx(ci.low, abs=1e-12)
    assert r.ci_high["ndcg"] == pytest.approx(ci.high, abs=1e-12)
    assert np.all(r.ci_low["ndcg"] <= r.mean["ndcg"])
    assert np.all(r.mean["ndcg"] <= r.ci_high["ndcg"])


def test_to_frame_has_one_row_per_run_with_the_tests_of_the_primary_metric() -> None:
    f = compare_runs(QRELS, RUNS, metrics="p@2 mrr").to_frame()
    assert f["run"].tolist() == ["A", "B", "C"]
    assert f.columns.tolist() == ["run", "p@2", "p@2 ci_low", "p@2 ci_high", "mrr", "mrr ci_low",
                                  "mrr ci_high", "best", "tied_with_best", "p_randomization",
                                  "p_randomization_holm", "p_t", "p_t_holm", "n_queries",
                                  "p@2 profile", "mrr profile", "missing", "n_dropped", "dropped",
                                  "n_left_out", "no_value"]
    assert f["p@2 profile"].tolist() == ["trec_eval"] * 3
    assert f["best"].tolist() == [True, False, False]
    assert f["p_randomization"].tolist()[1:] == [0.5, 1.0]
    # mrr: A and C rank a relevant document first everywhere (1), B misses q1's: (0 + 1 + 1) / 3
    assert f["mrr"].tolist() == pytest.approx([1.0, 2 / 3, 1.0], abs=1e-15)


def test_errors_name_the_problem() -> None:
    with pytest.raises(ConfigError, match="at least two"):
        compare_runs(QRELS, {"A": RUNS["A"]}, metrics="p@2")
    with pytest.raises(DataError, match="no query in common"):
        compare_runs(QRELS, {"A": {"q1": {"a": 1.0}}, "B": {"q2": {"a": 1.0}}}, metrics="p@2")
    with pytest.raises(DataError, match=r"run 'B': .*no query of the run has relevance judgments"):
        compare_runs(QRELS, {"A": RUNS["A"], "B": {"zz": {"a": 1.0}}}, metrics="p@2")
