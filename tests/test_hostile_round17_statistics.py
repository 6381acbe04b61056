"""Hostile round 17: a statistician checks a paper's "LightGBM beats XGBoost (p < 0.05, paired
over queries, 5 seeds)" against everything ltrbench prints: the comparison of runs
(``evaluate --run A --run B``, :func:`bench.report.compare_runs.compare_runs`), the leaderboard
(``report``: Markdown, CSV, JSON, LaTeX, HTML), the seeds of ``ltrbench run`` and the fold table
(issue 19: "silently wrong numbers").

Found here (each printed, exit 0, before):

* two models whose seeds scored the same values in another order (0.1, 0.2, 0.3 against
  0.3, 0.2, 0.1): the table ranked one first by a mean summed in file order, bolded the other and
  its verdict named the other as best and the first "not tested": a summation order decided the
  winner. Every mean is now an exactly rounded sum (``math.fsum``), order-free;
* differences equal up to rounding (0.4 - 0.2, 0.6 - 0.4, 0.8 - 0.6): ``p_t = 3.5e-32`` where
  scipy itself warns "catastrophic cancellation"; now NaN with the reason, as for equal ones;
* a t-test without a statistic left out of Holm's family: the other rows were corrected over
  one comparison fewer than the table shows; its empty cell had no word;
* a Holm p of 0.0496 printed ``0.050`` beside a verdict calling the row worse at p < 0.05;
* two means printed alike (0.6221) with one bold; the LaTeX caption said "std" (which?) and
  "over 2 seeds" for a row of one seed (a failed seed's note was in the Markdown only);
* the fold table listed ARP (lower is better) worst first.

Oracles: scipy.stats (ttest_rel, permutation_test, its precision-loss warning), math.fsum,
statistics.stdev (exact rational arithmetic), Holm by hand, numpy percentiles of the same
bootstrap draws, exact sign-flip enumeration.
"""

from __future__ import annotations

import json
import math
import statistics
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import cli, letor_folder
from test_hostile_round13b_leaderboards import A, board, exact_sign_flip, report, verdict, write_run
from test_hostile_round13b_leaderboards import holm_by_hand as hand_holm

from bench.report import render, stats
from bench.report.compare_runs import compare_runs
from bench.report.render import best_by_metric, render_csv, render_markdown

LGB, XGB, RND = "lightgbm-lambdarank", "xgboost-ndcg", "random"
CONSTANT = [a - 0.125 for a in A]  # every difference to A is +0.125: no t statistic
VARIED = [a - 0.25 + (0.01 if i % 2 else -0.01) for i, a in enumerate(A)]


# --- helpers -------------------------------------------------------------------------------

def qrels_of(n_queries: int, n_rel: int = 10) -> dict[str, dict[str, int]]:
    return {f"q{q}": {f"r{i}": 1 for i in range(n_rel)} for q in range(n_queries)}


def run_with_hits(hits: list[int], depth: int = 10) -> dict[str, dict[str, float]]:
    """A run whose top ``depth`` of query ``q{i}`` holds ``hits[i]`` relevant documents:
    P@depth = hits / depth exactly as trec_eval counts it."""
    out = {}
    for q, k in enumerate(hits):
        docs = [f"r{i}" for i in range(k)] + [f"n{i}" for i in range(depth - k)]
        out[f"q{q}"] = {d: float(depth - r) for r, d in enumerate(docs)}
    return out


def scipy_exact(d: np.ndarray) -> float:
    res = sps.permutation_test((d,), lambda x, axis: np.mean(x, axis=axis), vectorized=True,
                               permutation_type="samples", n_resamples=np.inf)
    return float(res.pvalue)


def md_rows(base: Path) -> dict[str, list[str]]:
    """The main Markdown table's cells by model (first table only)."""
    out: dict[str, list[str]] = {}
    for line in (base / "out" / "leaderboard.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("| ") and not line.startswith("| Model"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            out.setdefault(cells[0].replace("\\", ""), cells)
    return out


# --- the t-test: degenerate differences ---------------------------------------------------

def test_differences_equal_up_to_rounding_have_no_t_p_where_scipy_warns() -> None:
    a = np.array([0.4, 0.6, 0.8])
    b = np.array([0.2, 0.4, 0.6])
    assert len(set((a - b).tolist())) == 3  # 0.2, 0.19999999999999996, 0.20000000000000007
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scipy_p = sps.ttest_rel(a, b).pvalue
    assert scipy_p < 1e-20  # what ltrbench printed before
    assert any("catastrophic cancellation" in str(w.message) for w in caught)
    assert math.isnan(float(stats.paired_t_test(a, b)))
    assert [(r, n) for r, n, _ in stats.constant_differences(a, b)] == [(0, 3)]


def test_tiny_but_really_varied_differences_keep_scipys_p() -> None:
    a = np.array([0.5 + 1e-9, 0.5 + 3e-9, 0.5 - 1e-9, 0.5 + 2e-9])
    b = np.full(4, 0.5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        want = sps.ttest_rel(a, b).pvalue
    assert not any("cancellation" in str(w.message) for w in caught)
    assert float(stats.paired_t_test(a, b)) == pytest.approx(want, rel=1e-12)


def test_all_zero_differences_are_p_one_not_nan_and_not_zero() -> None:
    x = np.array([0.3, 0.7, 0.1, 0.9, 0.5])
    assert float(stats.paired_t_test(x, x.copy())) == 1.0
    assert float(stats.randomization_test(x - x)) == 1.0


def test_an_undefined_t_test_counts_in_holms_family_as_p_one() -> None:
    best = np.array(A)
    mat = np.vstack([best, CONSTANT, VARIED])
    vs = stats.compare_with_best(mat, best=0)
    raw = float(sps.ttest_rel(best, VARIED).pvalue)
    assert math.isnan(vs.p_t[1])
    assert math.isnan(vs.p_t_holm[1])
    assert vs.p_t_holm[2] == pytest.approx(hand_holm([1.0, raw])[1], rel=1e-12)
    assert vs.p_t_holm[2] == pytest.approx(min(1.0, 2 * raw), rel=1e-12)


def test_holm_with_tied_p_values_matches_hand_arithmetic() -> None:
    ps = [0.01, 0.04, 0.01, 0.03]
    assert stats.holm(ps).tolist() == pytest.approx(hand_holm(ps), rel=1e-15)
    assert stats.holm(ps).tolist() == pytest.approx([0.04, 0.06, 0.04, 0.06])


# --- the randomization test against scipy -------------------------------------------------

def test_exact_sign_flips_with_zeros_and_ties_equal_scipys_exact_permutation_test() -> None:
    d = np.array([0.1, 0.0, -0.1, 0.2, 0.2, 0.0, 0.3, -0.05, 0.1])
    p = float(stats.randomization_test(d))
    assert p == pytest.approx(scipy_exact(d), rel=1e-12)
    assert p == pytest.approx(exact_sign_flip(d), rel=1e-12)


def test_monte_carlo_sign_flips_are_within_four_sigma_of_scipys_exact_p() -> None:
    rng = np.random.default_rng(7)
    d = np.round(rng.normal(0.02, 0.1, 16), 3)  # 2^16 > 10 000: drawn, not enumerated
    p = float(stats.randomization_test(d, n_resamples=10_000))
    exact = scipy_exact(d)
    assert abs(p - exact) <= 4 * math.sqrt(exact * (1 - exact) / 10_000) + 1e-4


def test_a_huge_effect_is_never_p_zero_but_one_over_b_plus_one() -> None:
    d = np.full(40, 0.3) + np.linspace(0, 0.01, 40)
    p = float(stats.randomization_test(d, n_resamples=999))
    assert p == pytest.approx(1 / 1000)
    assert render._fmt_p(p) == "0.001"
    assert render._fmt_p(p / 10) == "<0.001"


# --- means that do not depend on order -----------------------------------------------------

def test_a_million_values_average_to_math_fsum_in_any_order() -> None:
    x = np.random.default_rng(1).random(1_000_000)
    want = math.fsum(x.tolist()) / x.size
    assert float(stats.bootstrap_ci(x, n_resamples=1).mean) == want
    assert float(stats.bootstrap_ci(x[::-1], n_resamples=1).mean) == want


def test_seed_mean_and_sample_std_do_not_depend_on_the_seeds_order() -> None:
    up, down = stats.mean_std([0.1, 0.2, 0.3]), stats.mean_std([0.3, 0.2, 0.1])
    assert up == down
    assert up[1] == pytest.approx(statistics.stdev([0.1, 0.2, 0.3]), rel=1e-15)


def test_sample_std_of_values_near_one_matches_exact_rational_arithmetic() -> None:
    seeds = [0.9999999, 0.9999998, 0.9999997, 0.99999995, 0.9999999]
    mean, std = stats.mean_std(seeds)
    assert mean == pytest.approx(statistics.fmean(seeds), rel=1e-15)
    assert std == pytest.approx(statistics.stdev(seeds), rel=1e-9)  # ddof 1, never ddof 0
    assert std != pytest.approx(statistics.pstdev(seeds), rel=1e-3)


def test_values_in_another_query_order_pick_the_first_row_and_test_p_one() -> None:
    x = np.array([[0.1, 0.2, 0.3], [0.3, 0.2, 0.1]])
    assert float(np.mean(x[0])) != float(np.mean(x[::-1, ::-1][1]))  # numpy's own sums differ
    vs = stats.compare_with_best(x[::-1])
    assert vs.best == 0  # a tie: the first row, not the last bit of a sum
    assert vs.p_randomization[1] == 1.0
    assert vs.p_t[1] == 1.0


def test_per_query_seed_means_do_not_depend_on_row_order() -> None:
    from bench.report.seed_values import per_query_matrix

    pq = pd.DataFrame({"model": ["m"] * 6, "seed": [0, 1, 2] * 2, "qid": [1, 1, 1, 2, 2, 2],
                       "metric": "ndcg@10", "value": [0.1, 0.2, 0.3, 0.7, 0.1, 0.2]})
    fwd, _ = per_query_matrix(pq, "ndcg@10", ["m"])
    back, _ = per_query_matrix(pq.iloc[::-1], "ndcg@10", ["m"])
    assert fwd.tolist() == back.tolist()


# --- p-values as printed -------------------------------------------------------------------

@pytest.mark.parametrize(("p", "text"), [(0.0496, "0.0496"), (0.04996, "0.04996"),
                                         (0.05, "0.050"), (1e-300, "<0.001")])
def test_a_p_value_is_never_printed_across_the_verdicts_level(p: float, text: str) -> None:
    assert render._fmt_p(p) == text
    assert text.startswith("<") or (float(text) < 0.05) == (p < 0.05)


def test_the_comparison_table_prints_tiny_p_in_significant_digits_never_zero() -> None:
    from bench.report.evaluation_render import _p

    assert _p(1e-300) == "1e-300"
    assert _p(0.049996) == "0.049996"  # .4g would print 0.05 beside "p < 0.05"
    assert _p(float("nan")) == "-"


def test_fold_table_p_below_its_four_decimals_is_not_printed_as_zero() -> None:
    from bench.report.folds import FoldRow, FoldTable, render_fold_markdown

    row = FoldRow("m", (0.5,), 0.5, float("nan"), 0.5, 0.4, 0.6, 1e-6)
    best = FoldRow("b", (0.6,), 0.6, float("nan"), 0.6, 0.5, 0.7, None)
    md = render_fold_markdown(FoldTable("d", "ndcg@10", "ltrbench", ("Fold1",), ("r",), 5,
                                        (best, row)))
    assert "0.0000" not in md
    assert "<0.0001" in md


# --- the leaderboard -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def seed_order(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two models whose three seeds scored the same values in another order."""
    base = tmp_path_factory.mktemp("seed_order")
    write_run(base / "runs", "r1", {"a-model": {0: [0.1] * 8, 1: [0.2] * 8, 2: [0.3] * 8},
                                    "b-model": {0: [0.3] * 8, 1: [0.2] * 8, 2: [0.1] * 8}})
    res = report(base)
    assert res.status == 0, res.err
    return base


def test_seeds_in_another_order_are_a_tie_in_rank_bold_and_verdict(seed_order: Path) -> None:
    rows = md_rows(seed_order)
    assert list(rows) == ["a-model", "b-model"]  # a tie: by name
    assert rows["a-model"][1].startswith("**")
    assert rows["b-model"][1].startswith("**")
    assert rows["a-model"][-2:] == ["best", "best"]
    assert rows["b-model"][-2:] == ["1.000", "1.000"]
    said = verdict(seed_order)
    assert "best ndcg@10 is a-model" in said, said
    assert "not distinguishable" in said, said
    assert "not tested" not in said


def test_seeds_in_another_order_have_one_mean_in_the_json(seed_order: Path) -> None:
    got = {r["model"]: r["metrics"]["ndcg@10"] for r in _board_doc(seed_order)["tables"][0]["rows"]}
    assert got["a-model"]["mean"] == got["b-model"]["mean"] == math.fsum([0.1, 0.2, 0.3]) / 3
    assert got["a-model"]["std"] == pytest.approx(statistics.stdev([0.1, 0.2, 0.3]), rel=1e-15)
    assert got["a-model"]["ci_mean"] == got["b-model"]["ci_mean"]


@pytest.fixture(scope="module")
def constant(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """LightGBM 2 seeds; XGBoost one seed (its second failed), every query 0.125 below;
    random 2 seeds, varied differences."""
    base = tmp_path_factory.mktemp("constant")
    write_run(base / "runs", "r1", {LGB: {0: A, 1: A}, XGB: {0: CONSTANT}, RND: {0: VARIED,
                                                                               1: VARIED}},
              manifest={"seeds": [0, 1], "failures": {f"{XGB}-seed1": "fit raised"}})
    res = report(base, "--html")
    assert res.status == 0, res.err
    return base


def test_an_undefined_t_is_a_word_and_a_note_not_an_empty_cell(constant: Path) -> None:
    rows = md_rows(constant)
    assert rows[XGB][-1] == "undefined"
    md = (constant / "out" / "leaderboard.md").read_text(encoding="utf-8")
    assert f"Note: {XGB}: all 8 per-query ndcg@10 differences to the best row are equal" in md
    doc = json.loads((constant / "out" / "leaderboard.json").read_text())
    row = next(r for r in doc["tables"][0]["rows"] if r["model"] == XGB)
    assert row["vs_best"]["p_t"] is None
    assert row["vs_best"]["p_t_holm"] is None
    assert row["vs_best"]["p_randomization"] == pytest.approx(2 / 2 ** 8)


def test_the_other_t_p_is_holm_corrected_over_both_comparisons(constant: Path) -> None:
    raw = float(sps.ttest_rel(A, VARIED).pvalue)
    got = board(constant)[RND]
    assert float(got["p_t"]) == pytest.approx(raw, rel=1e-9)
    assert float(got["p_t_holm"]) == pytest.approx(min(1.0, 2 * raw), rel=1e-9)


def test_the_latex_caption_says_sample_std_and_the_row_with_fewer_seeds(constant: Path) -> None:
    tex = (constant / "out" / "leaderboard.tex").read_text(encoding="utf-8")
    caption = next(line for line in tex.splitlines() if line.startswith("\\caption"))
    assert "sample std (ddof 1) over 2 seeds" in caption, caption
    assert f"fewer seeds: {XGB}: 1" in caption, caption
    assert f"{XGB}-seed1 failed in the run" in tex  # the Markdown's note, in the paper's table


def test_the_html_prints_the_same_p_values_as_the_markdown(constant: Path) -> None:
    html = (constant / "out" / "leaderboard.html").read_text(encoding="utf-8")
    doc = json.loads((constant / "out" / "leaderboard.json").read_text())
    for row in doc["tables"][0]["rows"][1:]:
        assert f">{render._fmt_p(row['vs_best']['p_randomization_holm'])}<" in html


def _board_doc(base: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((base / "out" / "leaderboard.json").read_text())
    return doc


def test_a_holm_p_just_below_005_is_printed_below_it_beside_the_verdict(constant: Path) -> None:
    doc = _board_doc(constant)
    for row in doc["tables"][0]["rows"][1:]:
        row["vs_best"]["p_randomization_holm"] = 0.0496
    md = render_markdown(doc)
    line = next(x for x in md.splitlines() if x.startswith(f"| {RND}"))
    assert "| 0.0496 |" in line, line
    assert "0.050" not in line, line
    assert "every other model is worse (p &lt; 0.05)" in md
    from bench.report.latex import render_latex

    assert "$0.0496$" in render_latex(doc)


def test_means_equal_as_printed_are_bold_on_both_rows() -> None:
    table = {"metrics": ["ndcg@10"], "rows": [
        {"model": "x", "metrics": {"ndcg@10": {"mean": 0.62214}}},
        {"model": "y", "metrics": {"ndcg@10": {"mean": 0.62206}}},
        {"model": "z", "metrics": {"ndcg@10": {"mean": 0.62204}}}]}
    assert best_by_metric(table) == {"ndcg@10": {"x", "y"}}  # 0.6221, 0.6221, 0.6220


def test_means_equal_as_printed_are_bold_in_markdown_latex_and_html(tmp_path: Path) -> None:
    write_run(tmp_path / "runs", "r1", {"x-model": {0: [0.62214] * 6},
                                        "y-model": {0: [0.62206] * 6}})
    res = report(tmp_path, "--html")
    assert res.status == 0, res.err
    rows = md_rows(tmp_path)
    assert list(rows) == ["x-model", "y-model"]  # ranked by the unrounded means
    assert rows["x-model"][1] == rows["y-model"][1] == "**0.6221**"
    tex = (tmp_path / "out" / "leaderboard.tex").read_text(encoding="utf-8")
    assert tex.count("\\mathbf{0.6221}") == 2
    html = (tmp_path / "out" / "leaderboard.html").read_text(encoding="utf-8")
    assert html.count('class="best"') >= 2


def test_the_csv_keeps_the_unrounded_means_that_rank_the_rows(tmp_path: Path) -> None:
    write_run(tmp_path / "runs", "r1", {"x-model": {0: [0.62214] * 6},
                                        "y-model": {0: [0.62206] * 6}})
    assert report(tmp_path).status == 0
    got = board(tmp_path)
    assert float(got["x-model"]["ndcg@10_mean"]) == pytest.approx(0.62214, abs=1e-15)
    assert float(got["y-model"]["ndcg@10_mean"]) == pytest.approx(0.62206, abs=1e-15)


def test_one_seed_prints_no_spread_and_the_latex_says_so(tmp_path: Path) -> None:
    write_run(tmp_path / "runs", "r1", {LGB: {0: A}, XGB: {0: VARIED}})
    assert report(tmp_path).status == 0
    assert board(tmp_path)[LGB]["ndcg@10_std"] == ""  # unknown, never 0
    assert "±" not in md_rows(tmp_path)[LGB][1]
    tex = (tmp_path / "out" / "leaderboard.tex").read_text(encoding="utf-8")
    assert "mean over 1 seed (one seed: no spread)" in tex


def test_the_csv_p_values_round_trip_to_the_markdown_at_its_precision(constant: Path) -> None:
    doc = _board_doc(constant)
    csv_text = render_csv(doc)
    frame = pd.read_csv(pd.io.common.StringIO(csv_text))
    rows = md_rows(constant)
    for _, r in frame.iterrows():
        if isinstance(r["p_randomization_holm"], float) and not math.isnan(
                r["p_randomization_holm"]):
            assert rows[r["model"]][-2] == render._fmt_p(r["p_randomization_holm"])


# --- the comparison of runs (evaluate) -------------------------------------------------------

def test_runs_with_the_same_values_on_other_queries_are_a_tie() -> None:
    q = qrels_of(3)
    runs = {"a": run_with_hits([1, 2, 3]), "b": run_with_hits([3, 2, 1])}
    res = compare_runs(q, runs, metrics="P_10")
    # each mean is the evaluator's own, bit for bit (round 17's reproducibility auditor: the
    # queries added up in id order); the two differ in the last bit only, and such a
    # difference is a tie (4 units in the last place), whichever order the runs come in
    from bench.metrics import evaluate_trec

    for i, name in enumerate(runs):
        alone = evaluate_trec(q, runs[name], metrics="P_10").metrics["P_10"]
        assert res.mean["P_10"][i] == alone
        assert abs(alone - math.fsum([0.1, 0.2, 0.3]) / 3) <= 4 * math.ulp(0.2)
    assert res.tied_with_best == ["b"]
    swapped = compare_runs(q, {"b": runs["b"], "a": runs["a"]}, metrics="P_10")
    assert swapped.tied_with_best == ["a"]
    assert res.versus.p_randomization[1] == 1.0
    assert res.versus.p_t[1] == 1.0


def test_the_cli_table_calls_equal_means_a_tie(tmp_path: Path) -> None:
    (tmp_path / "q.txt").write_text("".join(f"q{q} 0 r{i} 1\n" for q in range(3)
                                            for i in range(10)))
    for name, hits in (("a", [1, 2, 3]), ("b", [3, 2, 1])):
        run = run_with_hits(hits)
        (tmp_path / f"{name}.run").write_text("".join(
            f"{q} Q0 {d} {r + 1} {s} t\n" for q, docs in run.items()
            for r, (d, s) in enumerate(docs.items())))
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "a.run", "--run", "b.run",
              "--metrics", "P_10")
    assert res.status == 0, res.err
    assert "best (tie)" in res.out, res.out


def test_runs_differing_by_rounding_only_have_no_t_p_and_say_why() -> None:
    q = qrels_of(3, n_rel=5)
    res = compare_runs(q, {"a": run_with_hits([2, 3, 4], 5), "b": run_with_hits([1, 2, 3], 5)},
                       metrics="P_5")
    d = res.values["P_5"][0] - res.values["P_5"][1]
    assert len(set(d.tolist())) > 1  # not one number: rounding of 0.4-0.2, 0.6-0.4, 0.8-0.6
    assert math.isnan(res.versus.p_t[1])
    assert "t undefined (no variance)" in res.statistics()
    assert res.versus.p_randomization[1] == pytest.approx(exact_sign_flip(d))


def test_exact_randomization_p_of_a_comparison_equals_scipy() -> None:
    a, b = [3, 5, 2, 7, 4, 6, 8], [2, 5, 4, 3, 1, 6, 5]
    res = compare_runs(qrels_of(7), {"a": run_with_hits(a), "b": run_with_hits(b)},
                       metrics="P_10")
    d = res.values["P_10"][res.versus.best] - res.values["P_10"][1 - res.versus.best]
    other = 1 - res.versus.best
    assert res.versus.p_randomization[other] == pytest.approx(scipy_exact(d), rel=1e-12)
    assert res.versus.p_t[other] == pytest.approx(
        sps.ttest_rel(res.values["P_10"][res.versus.best], res.values["P_10"][other]).pvalue,
        rel=1e-12)


def test_three_runs_holm_over_two_matches_hand_on_both_tests() -> None:
    hits = {"a": [9, 8, 9, 7, 8, 9, 8, 9], "b": [5, 6, 4, 6, 5, 3, 6, 5],
            "c": [8, 8, 9, 6, 8, 8, 7, 9]}
    res = compare_runs(qrels_of(8), {k: run_with_hits(v) for k, v in hits.items()},
                       metrics="P_10")
    vals = res.values["P_10"]
    assert res.best == "a"
    raw_t = [float(sps.ttest_rel(vals[0], vals[i]).pvalue) for i in (1, 2)]
    raw_r = [exact_sign_flip(vals[0] - vals[i]) for i in (1, 2)]
    assert res.versus.p_t_holm[1:].tolist() == pytest.approx(hand_holm(raw_t), rel=1e-12)
    assert res.versus.p_randomization_holm[1:].tolist() == pytest.approx(hand_holm(raw_r),
                                                                         rel=1e-12)


def test_a_tiny_t_p_is_printed_in_digits_never_as_zero(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    a = rng.integers(7, 10, 30).tolist()
    b = [max(0, x - 6 - int(rng.integers(0, 2))) for x in a]
    (tmp_path / "q.txt").write_text("".join(f"q{q} 0 r{i} 1\n" for q in range(30)
                                            for i in range(10)))
    for name, hits in (("a", a), ("b", b)):
        run = run_with_hits(hits)
        (tmp_path / f"{name}.run").write_text("".join(
            f"{q} Q0 {d} {r + 1} {s} t\n" for q, docs in run.items()
            for r, (d, s) in enumerate(docs.items())))
    args = ("evaluate", "--qrels", "q.txt", "--run", "a.run", "--run", "b.run",
            "--metrics", "P_10")
    got = json.loads(cli(tmp_path, *args, "--format", "json").out)
    p_t = got["runs"][1]["vs_best"]["p_t_holm"]
    want = float(sps.ttest_rel(np.array(a) / 10, np.array(b) / 10).pvalue)
    assert 0 < p_t < 1e-15
    assert p_t == pytest.approx(want, rel=1e-9)
    table = cli(tmp_path, *args).out
    assert f"{p_t:.4g}" in table, table


def test_the_printed_interval_is_the_percentiles_of_the_same_bootstrap_draws(
        tmp_path: Path) -> None:
    a, b = [3, 5, 2, 7, 4, 6], [2, 5, 4, 3, 1, 6]
    res = compare_runs(qrels_of(6), {"a": run_with_hits(a), "b": run_with_hits(b)},
                       metrics="P_10", n_bootstrap=200, seed=5)
    idx = np.random.default_rng(5).integers(0, 6, size=(200, 6))
    for i, hits in enumerate((a, b)):
        x = np.array(hits) / 10
        lo, hi = np.quantile(x[idx].mean(axis=1), [0.025, 0.975])
        assert f"{res.ci_low['P_10'][i]:.4f}-{res.ci_high['P_10'][i]:.4f}" == \
            f"{lo:.4f}-{hi:.4f}"


def test_one_query_in_common_is_p_one_and_no_t_test() -> None:
    res = compare_runs(qrels_of(1), {"a": run_with_hits([9]), "b": run_with_hits([2])},
                       metrics="P_10")
    assert res.versus.p_randomization[1] == 1.0  # two sign vectors, both as extreme
    assert math.isnan(res.versus.p_t[1])


def test_the_comparisons_mean_is_the_fsum_mean_of_its_per_query_values() -> None:
    hits = [int(h) for h in np.random.default_rng(2).integers(0, 11, 50)]
    res = compare_runs(qrels_of(50), {"a": run_with_hits(hits), "b": run_with_hits(hits[::-1])},
                       metrics="P_10")
    for i in range(2):
        assert res.mean["P_10"][i] == math.fsum(res.values["P_10"][i].tolist()) / 50
    assert res.mean["P_10"][0] == res.mean["P_10"][1]
    assert res.tied_with_best == ["b"]


# --- the fold table ------------------------------------------------------------------------

def test_the_fold_table_lists_arp_lowest_first(tmp_path: Path) -> None:
    from bench.report.folds import fold_table
    from bench.runs.reader import RunDir

    runs = []
    for k, qs in ((1, [0, 1, 2, 3]), (2, [4, 5, 6, 7])):
        run = write_run(tmp_path / "runs", f"toy-Fold{k}", {
            "low-model": {0: [1.0 + 0.1 * i for i in range(4)]},
            "high-model": {0: [3.0 + 0.2 * i for i in range(4)]}}, metrics=("arp",),
            manifest={"dataset": {"name": "toy", "meta": {"fold": f"Fold{k}"}}})
        pq = pd.read_parquet(run / "per_query.parquet")
        pq["qid"] = pq["qid"].map(dict(enumerate(qs)))
        pq.to_parquet(run / "per_query.parquet")
        runs.append(RunDir(run))
    table = fold_table(runs, "arp", randomization_resamples=200, bootstrap_resamples=50)
    assert [r.model for r in table.rows] == ["low-model", "high-model"]
    assert table.rows[0].p_holm is None  # the best, first
    assert table.rows[0].mean == math.fsum(table.rows[0].per_fold) / 2


# --- seeds of a real run ---------------------------------------------------------------------

def test_a_three_seed_run_reports_the_fsum_mean_and_sample_std_of_its_seeds(
        tmp_path: Path) -> None:
    letor_folder(tmp_path / "letor")
    res = cli(tmp_path, "run", "--dataset", "./letor", "--models", "random", "--seeds", "0,1,2",
              "--quick", "--no-crosscheck", "--no-progress", "--out", "runs")
    assert res.status == 0, res.err
    (run,) = [p.parent for p in (tmp_path / "runs").rglob("metrics.csv")]
    m = pd.read_csv(run / "metrics.csv")
    sub = m[(m["split"] == "test") & (m["metric"] == "ndcg@10") & (m["profile"] == "ltrbench")]
    per_seed = sub.sort_values("seed")["value"].tolist()
    assert len(per_seed) == 3
    assert len(set(per_seed)) > 1
    rep = cli(tmp_path, "report", "--runs", str(run), "--out", "out", "--no-plots",
              "--no-progress", "--bootstrap", "50", "--permutations", "100")
    assert rep.status == 0, rep.err
    (row,) = _board_doc(tmp_path)["tables"][0]["rows"]
    got = row["metrics"]["ndcg@10"]
    assert got["mean"] == math.fsum(per_seed) / 3
    assert got["std"] == pytest.approx(statistics.stdev(per_seed), rel=1e-12)
    assert board(tmp_path)["random"]["n_seeds"] == "3"
    printed = f"{math.fsum(per_seed) / 3:.4f} ± {statistics.stdev(per_seed):.4f}"
    assert printed in res.out, res.out  # the run's own table, as the leaderboard
    assert "mean ± sample std (ddof 1) over seeds" in res.out
    assert "mean ± sample std over seeds" in (tmp_path / "out" / "leaderboard.md").read_text()


# --- differences of rounding ---------------------------------------------------------------

def test_one_unit_in_the_last_place_on_every_query_is_no_evidence() -> None:
    x = np.full(8, 0.3)
    y = np.nextafter(x, 1.0)  # 0.30000000000000004: the same value to any metric's arithmetic
    vs = stats.compare_with_best(np.vstack([y, x]))
    assert vs.p_randomization[1] == 1.0  # sign flips once gave 2 / 2^8 = 0.0078
    assert vs.p_t[1] == 1.0


def test_a_leaderboard_of_values_one_ulp_apart_says_not_distinguishable(tmp_path: Path) -> None:
    up = float(np.nextafter(0.3, 1.0))
    write_run(tmp_path / "runs", "r1", {"a-model": {0: [0.3] * 8}, "b-model": {0: [up] * 8}})
    assert report(tmp_path).status == 0
    said = verdict(tmp_path)
    assert "not distinguishable from it (p >= 0.05): a-model" in said, said
    assert md_rows(tmp_path)["a-model"][-2:] == ["1.000", "1.000"]


def test_the_runs_closing_p_is_never_rounded_up_to_005() -> None:
    assert stats.fmt_p(0.04996, 3, "g") == "0.04996"  # .3g printed 0.05 beside "a real difference"
    assert stats.fmt_p(0.0512, 3, "g") == "0.0512"


def test_three_head_to_head_tests_say_they_are_not_corrected(tmp_path: Path) -> None:
    from bench.report.story import story

    run = write_run(tmp_path / "runs", "r1", {LGB: {0: A}, XGB: {0: VARIED},
                                              "catboost-yetirank": {0: CONSTANT}})
    lines = [x for x in story(run).splitlines() if x.startswith("head to head:")]
    assert len(lines) == 3
    for line in lines:  # 3 tests at 0.05 each, and the leaderboard beside says "Holm"
        assert "not corrected for the 3 pairs" in line, line
    d = np.array(A) - np.array(VARIED)  # the first pair's p: the exact sign-flip enumeration
    assert f"p {stats.fmt_p(exact_sign_flip(d), 3, 'g')}," in lines[0], lines[0]


def test_the_runs_table_names_a_row_over_fewer_seeds_than_its_header() -> None:
    from bench.benchmark.summary import summary_text

    per = {"0": 0.5, "2": 0.7}
    summary = {"dataset": "d", "profile": "ltrbench", "seeds": [0, 1, 2], "models": ["m"],
               "metrics": {"m": {"test": {"ndcg@10": {
                   "mean": 0.6, "std": statistics.stdev(per.values()), "per_seed": per}}}},
               "timings": {"m": {"fit_s": 1.0}}, "crosscheck": None, "run_dir": "r",
               "status": {"m-seed0": "done", "m-seed1": "skipped: fit raised", "m-seed2": "done"}}
    text = summary_text(summary)
    assert "0.6000 ± 0.1414" in text
    assert "m: over seed(s) 0, 2 only (seed 1: skipped: fit raised)" in text, text


def test_a_999_interval_is_labelled_999_not_100_percent(tmp_path: Path) -> None:
    res = compare_runs(qrels_of(6), {"a": run_with_hits([3, 5, 2, 7, 4, 6]),
                                     "b": run_with_hits([2, 5, 4, 3, 1, 6])},
                       metrics="P_10", confidence=0.999, n_bootstrap=100)
    assert "a 99.9% percentile bootstrap interval" in res.statistics()
    write_run(tmp_path / "runs", "r1", {LGB: {0: A}, XGB: {0: VARIED}})
    assert report(tmp_path).status == 0
    doc = _board_doc(tmp_path)
    doc["stats"]["confidence"] = 0.975  # the Python API's LeaderboardOptions(confidence=...)
    md = render_markdown(doc)
    assert "97.5% CI" in md
    assert "98% CI" not in md


def test_means_equal_but_for_rounding_are_a_tie_not_a_win() -> None:
    res = compare_runs(qrels_of(3, n_rel=5), {"a": run_with_hits([0, 0, 3], 5),
                                              "b": run_with_hits([1, 1, 1], 5)}, metrics="P_5")
    means = res.mean["P_5"]
    assert means[0] != means[1]  # 0.19999999999999998 and 0.20000000000000004: both 3/15
    assert res.tied_with_best == ["a"]
    assert res.versus.p_randomization[0] == 1.0  # the sign flips agree: no difference


def test_blank_queries_do_not_turn_an_exact_sign_flip_test_into_draws() -> None:
    rng = np.random.default_rng(11)
    best = np.round(rng.random(12), 2)
    other = np.round(best - rng.normal(0.03, 0.05, 12), 2)
    blank = np.full(3, np.nan)  # no value in any run: left out of every mean and test
    vs = stats.compare_with_best(np.vstack([np.r_[best, blank], np.r_[other, blank]]), best=0)
    assert vs.p_randomization[1] == pytest.approx(scipy_exact(best - other), rel=1e-12)
    assert vs.n_queries[1] == 12
