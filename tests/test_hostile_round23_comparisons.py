"""Round 23 of the hostile catalogue (issue 19, item 2): the reviewer reproducing a paper's
comparison table. Runs compared every way ltrbench offers (several ``--run``, file stems that
collide after folders and extensions are stripped, reserved names in another spelling, runs of
no line, ``--missing`` under the recommender and ranx profiles, the paired tests against
scipy.stats, the randomization test's seed, fall-out as the primary metric, the per-metric
queries a CSV leaves out) and every peer spelling of a metric name (trec_eval's dotted lists,
ir_measures' parameterised names, ranx's, RecBole's, torchmetrics' classes), each against the
tool's own number, plus the cross-check's explanation of a gap for a qualified name.

Golden values: pytrec_eval, ir_measures and scipy.stats (computed here); ranx 0.3.21's values
(``ranx.evaluate(Qrels(Q), Run(run), name, make_comparable=True)``, computed once and written
down: importing ranx compiles for ~15 s); hand arithmetic from the tools' published source where
a tool is not installed (each case says which lines).

Classes: [wrong] silently wrong number, [accept] silent accept, [trace] traceback,
[unclear] unclear error.
"""

from __future__ import annotations

import csv
import io
import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hostile_kit import api_refused, call, cli, refused, trec_bytes

from bench.errors import ConfigError, LtrbenchError
from bench.metrics import evaluate_trec
from bench.report.compare_runs import compare_runs

pytrec_eval = pytest.importorskip("pytrec_eval")
ir_measures = pytest.importorskip("ir_measures")
scipy_stats = pytest.importorskip("scipy.stats")

# Graded and negative judgments; query 4 has no line in run A, query 3 none in run B, query 5 of
# run A has no qrels, query 6 holds only a non-relevant judgment.
Q = {"1": {"a": 2, "b": 0, "c": 1, "x": -1, "y": 3}, "2": {"d": 1, "e": 0},
     "3": {"f": 1, "g": -1}, "4": {"h": 2}, "6": {"k": 0}}
A = {"1": {"a": 0.5, "b": 0.4, "c": 0.9, "x": 0.95, "u": 0.45, "y": 0.1},
     "2": {"d": 0.2, "e": 0.8}, "3": {"g": 0.7, "f": 0.3}, "5": {"z": 1.0},
     "6": {"k": 0.3, "m": 0.2}}
B = {"1": {"a": 0.9, "b": 0.4, "c": 0.3}, "2": {"d": 0.9, "e": 0.8}, "4": {"h": 0.5},
     "6": {"k": 0.3}}
#: Run A with tied scores in query 1 (a, b, u at 0.5).
A_TIED = {**A, "1": {"a": 0.5, "b": 0.5, "c": 0.9, "x": 0.95, "u": 0.5, "y": 0.1}}

#: ranx 0.3.21, ``evaluate(Qrels(Q), Run(run), name, make_comparable=True)``.
RANX_A = {"ndcg@10": 0.3657541341822426, "map@100": 0.31111111111111106, "mrr@10": 0.3,
          "precision@5": 0.16, "recall@100": 0.6, "r-precision": 0.13333333333333333,
          "f1@3": 1 / 3, "hit_rate@2": 0.6, "recall@2": 0.4666666666666666,
          "precision@2": 0.3, "ndcg@3": 0.32087160206548837, "map@2": 0.2333333333333333}
RANX_B = {"ndcg@10": 0.505000997876982, "map@100": 0.5111111111111111, "mrr@10": 0.6}
#: The same on the qrels and runs cut to the queries both runs answer (1, 2, 6).
RANX_COMMON = {"A": {"ndcg@10": 0.3992803057799185, "map@100": 0.3518518518518518,
                     "mrr@10": 1 / 3},
               "B": {"ndcg@10": 0.5083349964616367, "map@100": 0.5185185185185185,
                     "mrr@10": 2 / 3}}


def _quiet(fn: Any, *args: Any, **kw: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def _refused(exc: BaseException | None, *words: str) -> None:
    problem = api_refused(exc, *words)
    assert problem is None, problem


def _pytrec(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]],
            measure: str, key: str) -> dict[str, float]:
    """pytrec_eval's per-query ``key`` of ``measure`` (``P.2,5``: its dotted parameter list)."""
    got = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)
    return {q: v[key] for q, v in got.items()}


def _irm(name: str, run: dict[str, dict[str, float]]) -> float:
    m = ir_measures.parse_measure(name)
    return float(ir_measures.calc_aggregate([m], Q, run)[m])


def _write(folder: Path, name: str, run: dict[str, dict[str, float]]) -> str:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(trec_bytes(run, "run"))
    return str(path)


# ================================================================ comparisons: which run is which
def test_stems_colliding_after_folders_and_extensions_keep_their_own_files(
        tmp_path: Path) -> None:  # [wrong]
    """``x/run.txt`` and ``y/run.trec`` share the stem ``run``, and a third file is itself named
    ``run-2``: three rows, each the numbers of its own file (pytrec_eval over the queries all
    three answer), never a row's name moved to another file's numbers."""
    runs = {"x/run.txt": A, "y/run.trec": B, "run-2.txt": A_TIED}
    paths = [_write(tmp_path, n, r) for n, r in runs.items()]
    (tmp_path / "q.txt").write_bytes(trec_bytes(Q, "qrels"))
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", *[a for p in paths for a in ("--run", p)],
              "--metrics", "ndcg_cut_10", "--format", "json")
    assert res.status == 0, res.err
    got = {r["name"]: r["metrics"]["ndcg_cut_10"]["mean"] for r in json.loads(res.out)["runs"]}
    want = {}
    for name, run in (("run", A), ("run-3", B), ("run-2", A_TIED)):
        per = _pytrec(Q, run, "ndcg_cut", "ndcg_cut_10")
        want[name] = (per["1"] + per["2"] + per["6"]) / 3
    assert got == pytest.approx(want, abs=1e-12)
    assert "run-3 = " in res.err, res.err
    assert "y/run.trec" in res.err, res.err


def test_a_run_of_comment_lines_only_is_named_with_its_file(tmp_path: Path) -> None:
    """[unclear] A run file that holds only comments and blank lines is no run: refused
    naming the run and its file, never compared as a run that lacks every query."""
    (tmp_path / "q.txt").write_bytes(trec_bytes(Q, "qrels"))
    _write(tmp_path, "a.txt", A)
    (tmp_path / "notes.txt").write_text("# submitted late\n\n# no lines\n")
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "a.txt", "--run",
              "notes.txt", "--metrics", "P_5")
    assert refused(res, "notes") is None, res.err


def test_a_run_given_as_a_folder_is_named(tmp_path: Path) -> None:
    """[unclear] ``--run runs/`` (the folder of submissions, not one file) is refused naming
    the folder, before any run is evaluated."""
    (tmp_path / "q.txt").write_bytes(trec_bytes(Q, "qrels"))
    _write(tmp_path, "runs/a.txt", A)
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "runs/a.txt", "--run", "runs",
              "--metrics", "P_5")
    assert refused(res, "runs", "directory") is None, res.err


@pytest.mark.parametrize("bad", [{}, {"9": {"z": 1.0}}])
def test_a_run_of_no_judged_line_is_named(bad: dict[str, dict[str, float]]) -> None:
    """[unclear] A dict run with no entry, or whose only query has no qrels, is refused naming
    the run ('late'), not a table whose common queries are none."""
    _, exc = call(lambda: _quiet(compare_runs, Q, {"a": A, "late": bad}, metrics="ndcg@10"))
    _refused(exc, "late")


@pytest.mark.parametrize("name", ["qid ", " metric", "\uff51\uff49\uff44", "\uff50rofile"])
def test_reserved_run_names_are_refused_once_trimmed_and_folded(name: str) -> None:
    """[accept] Run names may not be the per-query file's own columns (qid, metric, profile),
    and two names are one once blanks are trimmed and full-width letters folded (README): a run
    named ``'qid '`` or full-width ``ｑｉｄ`` wrote a second 'qid' column beside the real one."""
    _, exc = call(lambda: _quiet(compare_runs, Q, {name: A, "b": B}, metrics="ndcg@10"))
    _refused(exc, "per-query")


# ============================================================ comparisons: --missing, profiles
def test_a_ranx_comparison_equals_ranx_for_each_run() -> None:  # [wrong]
    """Under ``ranx`` a judged query a run lacks scores 0 (``make_comparable=True``): each
    run's mean over every qrels query equals ranx's own."""
    c = _quiet(compare_runs, Q, {"A": A, "B": B}, metrics="ndcg@10 map@100 mrr@10",
               profile="ranx")
    assert c.missing == "zero"
    for i, want in enumerate((RANX_A, RANX_B)):
        for m in ("ndcg@10", "map@100", "mrr@10"):
            assert c.mean[m][i] == pytest.approx(want[m], abs=1e-12), m


def test_a_ranx_comparison_with_missing_drop_is_ranx_on_the_common_queries() -> None:
    """[wrong] ``missing='drop'`` under ``ranx``: both runs over the queries both answer (1, 2,
    6), the dropped ones named; each mean equals ranx on qrels and run cut to those queries."""
    c = _quiet(compare_runs, Q, {"A": A, "B": B}, metrics="ndcg@10 map@100 mrr@10",
               profile="ranx", missing="drop")
    assert c.qids.tolist() == ["1", "2", "6"]
    assert c.dropped == ["3", "4"]
    for i, name in enumerate(("A", "B")):
        for m, want in RANX_COMMON[name].items():
            assert c.mean[m][i] == pytest.approx(want, abs=1e-12), (name, m)


def test_recboles_missing_user_scores_zero_in_a_comparison() -> None:  # [wrong]
    """RecBole (``recbole/evaluator/metrics.py``: Hit, MRR) averages over every user of the
    ground truth; a user the model recommends nothing to scores 0. Binary ground truth
    u1 {a, c}, u2 {d}, u3 {f}; run P ranks a first for u1, lacks u3; run R ranks d first for u2.
    hit@1: P (1 + 0 + 0) / 3, R (0 + 1 + 0) / 3; mrr@2: P (1 + 1/2 + 0) / 3, R (1/2 + 1 + 0) / 3."""
    gt = {"u1": {"a": 1, "c": 1, "b": 0}, "u2": {"d": 1, "e": 0}, "u3": {"f": 1}}
    p = {"u1": {"a": 0.9, "b": 0.5, "c": 0.1}, "u2": {"e": 0.9, "d": 0.5}}
    r = {"u1": {"b": 0.9, "c": 0.5, "a": 0.1}, "u2": {"d": 0.9, "e": 0.5}, "u3": {"g": 0.9}}
    c = _quiet(compare_runs, gt, {"P": p, "R": r}, metrics="hit@1 mrr@2", profile="recbole")
    assert c.qids.tolist() == ["u1", "u2", "u3"]
    assert c.mean["hit@1"].tolist() == pytest.approx([1 / 3, 1 / 3], abs=1e-15)
    assert c.mean["mrr@2"].tolist() == pytest.approx([1.5 / 3, 1.5 / 3], abs=1e-15)


def test_recommenders_per_metric_rule_keeps_one_query_set() -> None:  # [wrong]
    """MS Recommenders scores a user without recommendations 0 in ``ndcg_at_k`` and leaves it
    out of ``precision_at_k`` (the ``recommenders`` profile's ``missing_by_family``). ndcg@2
    alone counts u3 (run P has no line for it) as 0: P (1/(1 + 1/log2 3) + 1/log2 3 + 0) / 3.
    Adding precision@2 dropped u3 from ndcg@2 too (0.6220 for 0.4147) without asking: the rule
    must be chosen (--missing), or the added metric must leave ndcg@2's number alone."""
    gt = {"u1": {"a": 1, "c": 1, "b": 0}, "u2": {"d": 1, "e": 0}, "u3": {"f": 1}}
    p = {"u1": {"a": 0.9, "b": 0.5, "c": 0.1}, "u2": {"e": 0.9, "d": 0.5}}
    r = {"u1": {"b": 0.9, "c": 0.5, "a": 0.1}, "u2": {"d": 0.9, "e": 0.5}, "u3": {"g": 0.9}}
    runs = {"P": p, "R": r}
    alone = _quiet(compare_runs, gt, runs, metrics="ndcg@2", profile="recommenders")
    d = 1 / math.log2(3)
    assert alone.mean["ndcg@2"][0] == pytest.approx((1 / (1 + d) + d) / 3, abs=1e-12)
    both, exc = call(lambda: _quiet(compare_runs, gt, runs, metrics="ndcg@2 precision@2",
                                    profile="recommenders"))
    if exc is not None:
        _refused(exc, "--missing")
    else:
        np.testing.assert_allclose(both.mean["ndcg@2"], alone.mean["ndcg@2"], atol=1e-15)
    zero = _quiet(compare_runs, gt, runs, metrics="ndcg@2 precision@2", profile="recommenders",
                  missing="zero")
    np.testing.assert_allclose(zero.mean["ndcg@2"], alone.mean["ndcg@2"], atol=1e-15)


def test_missing_zero_t_test_equals_scipy_on_the_zero_filled_values() -> None:  # [wrong]
    """``missing='zero'``: the paired t-test runs over every judged query, a query a run lacks
    at 0 in that run (trec_eval -c); p equals scipy.stats.ttest_rel on those values."""
    c = _quiet(compare_runs, Q, {"A": A, "B": B}, metrics="ndcg_cut_10", missing="zero")
    pa, pb = (_pytrec(Q, r, "ndcg_cut", "ndcg_cut_10") for r in (A, B))
    qs = sorted(Q)
    want = scipy_stats.ttest_rel([pa.get(q, 0.0) for q in qs], [pb.get(q, 0.0) for q in qs])
    worse = 1 - c.versus.best
    assert c.qids.tolist() == qs
    assert c.versus.p_t[worse] == pytest.approx(float(want.pvalue), abs=1e-12)


def test_a_blank_query_leaves_the_t_test_as_scipy_without_it() -> None:  # [wrong]
    """Under ``ltrbench`` a run that retrieves no relevant document of a query has no NDCG
    there (ideal DCG from the list): the query leaves every run's mean and test; p equals
    scipy.stats.ttest_rel over the other queries, and the query is named."""
    qrels = {str(q): {"r": 1, "n": 0, "m": 0} for q in range(1, 6)}
    x = {str(q): {"r": 0.9 - q / 10, "n": 0.5, "m": 0.1} for q in range(1, 6)}
    y = {str(q): {"r": 0.2 + q / 20, "n": 0.5, "m": 0.3} for q in range(1, 6)}
    y["3"] = {"n": 0.5, "m": 0.3}
    c = _quiet(compare_runs, qrels, {"x": x, "y": y}, metrics="ndcg@3", profile="ltrbench")
    vals = c.values["ndcg@3"]
    kept = ~np.isnan(vals).any(axis=0)
    assert c.no_value == {"ndcg@3": ["3"]}
    want = scipy_stats.ttest_rel(vals[0, kept], vals[1, kept])
    assert c.versus.p_t[1 - c.versus.best] == pytest.approx(float(want.pvalue), abs=1e-12)


def test_the_csv_names_the_queries_a_metric_left_out(tmp_path: Path) -> None:  # [unclear]
    """The table prints 'ndcg@10: 1 without a value in some run, left out for every run: 2';
    the CSV said n_dropped 0 and nothing else, its means over 2 of 3 common queries. Each
    metric's left-out queries are in the CSV too."""
    qrels = {"1": {"a": 1, "b": 0}, "2": {"c": 1, "d": 0}, "3": {"e": 1, "f": 0}}
    x = {"1": {"a": 0.9, "b": 0.5}, "2": {"d": 0.9}, "3": {"e": 0.9, "f": 0.1}}
    y = {"1": {"b": 0.9, "a": 0.5}, "2": {"c": 0.9, "d": 0.5}, "3": {"f": 0.9, "e": 0.1}}
    (tmp_path / "q.txt").write_bytes(trec_bytes(qrels, "qrels"))
    paths = [_write(tmp_path, f"{n}.txt", r) for n, r in (("x", x), ("y", y))]
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", paths[0], "--run", paths[1],
              "--profile", "ltrbench", "--metrics", "p@1", "ndcg@10", "--format", "csv")
    assert res.status == 0, res.err
    rows = list(csv.DictReader(io.StringIO(res.out)))
    said = [c for c in rows[0] if "no_value" in c or "left out" in c.lower()]
    assert said, f"no column names the left-out queries: {list(rows[0])}"
    assert any("2" in rows[0][c] for c in said), rows[0]


# ======================================================================= comparisons: the tests
def _twenty() -> tuple[dict[str, dict[str, int]], dict[str, dict[str, dict[str, float]]]]:
    rng = np.random.default_rng(23)
    qrels = {f"q{q}": {f"d{i}": int(rng.integers(0, 3)) for i in range(6)} for q in range(20)}
    runs = {name: {q: {d: float(rng.random() + shift * v) for d, v in docs.items()}
                   for q, docs in qrels.items()}
            for name, shift in (("A", 0.3), ("B", 0.25), ("C", 0.0))}
    return qrels, runs


def test_a_third_worse_run_leaves_the_unadjusted_p_values_unchanged() -> None:  # [wrong]
    """Over 20 queries the sign-flip test is drawn (2^20 > 10 000 flips); its draws depend on
    the seed and the queries, never on how many runs are compared: A's unadjusted p against the
    best is the same with or without a worse run C, and its t p equals scipy's."""
    qrels, runs = _twenty()
    two = compare_runs(qrels, {"A": runs["A"], "B": runs["B"]}, metrics="ndcg_cut_10")
    three = compare_runs(qrels, runs, metrics="ndcg_cut_10")
    assert two.best == three.best
    i2, i3 = two.names.index("A" if two.best == "B" else "B"), None
    i3 = three.names.index(two.names[i2])
    assert three.versus.p_randomization[i3] == two.versus.p_randomization[i2]
    vals = two.values["ndcg_cut_10"]
    want = scipy_stats.ttest_rel(vals[i2], vals[two.versus.best]).pvalue
    assert three.versus.p_t[i3] == pytest.approx(float(want), abs=1e-12)


def test_the_randomization_seed_is_said_and_repeats() -> None:  # [wrong]
    """The same comparison twice gives the same drawn p (seed 0, said in the statistics line);
    another seed draws again and says so; the bootstrap interval brackets the mean."""
    qrels, runs = _twenty()
    first = compare_runs(qrels, runs, metrics="ndcg_cut_10")
    again = compare_runs(qrels, runs, metrics="ndcg_cut_10")
    other = compare_runs(qrels, runs, metrics="ndcg_cut_10", seed=7)
    np.testing.assert_array_equal(first.versus.p_randomization, again.versus.p_randomization)
    assert "seed 0" in first.statistics()
    assert "seed 7" in other.statistics()
    m = first.mean["ndcg_cut_10"]
    assert (first.ci_low["ndcg_cut_10"] <= m).all()
    assert (m <= first.ci_high["ndcg_cut_10"]).all()


def test_fall_out_as_the_primary_metric_crowns_the_lowest() -> None:  # [wrong]
    """Fall-out is the share of the judged non-relevant documents a run puts in its top k:
    lower is better (torchmetrics ``RetrievalFallOut.higher_is_better = False``,
    ``retrieval/fall_out.py:93``). Run 'clean' puts no non-relevant document in its top 1,
    'noisy' one in every query: 'clean' is the best run, not 'noisy'."""
    qrels = {str(q): {"r": 1, "n": 0, "m": 0} for q in range(4)}
    clean = {str(q): {"r": 0.9, "n": 0.5, "m": 0.1} for q in range(4)}
    noisy = {str(q): {"n": 0.9, "r": 0.5, "m": 0.1} for q in range(4)}
    c = compare_runs(qrels, {"noisy": noisy, "clean": clean}, metrics="fallout@1")
    assert c.mean["fallout@1"].tolist() == [0.5, 0.0]
    assert c.best == "clean"


def test_a_report_over_two_datasets_ranks_fall_out_lowest_first(tmp_path: Path) -> None:
    """[wrong] ``report`` over a runs folder of two datasets with different metric sets and
    model counts: each dataset's table from its own run, the fall-out table's best row the
    lowest fall-out (lightgbm's 0.1, not random's 0.675), the ndcg table's the highest."""
    import pandas as pd
    from hostile_kit import write_one_seed_run

    runs = tmp_path / "runs"
    fall = write_one_seed_run(runs, "20260101-000000-toy-aaaaaa", "toy",
                              {"lightgbm-lambdarank": [0.1, 0.0, 0.2, 0.1],
                               "random": [0.6, 0.5, 0.7, 0.9]})
    for name in ("metrics.csv", "per_query.parquet"):
        path = fall / name
        frame = pd.read_csv(path) if name.endswith("csv") else pd.read_parquet(path)
        frame["metric"] = "fallout@10"
        (frame.to_csv(path, index=False) if name.endswith("csv") else frame.to_parquet(path))
    write_one_seed_run(runs, "20260101-000000-other-bbbbbb", "other",
                       {"lightgbm-lambdarank": [0.5, 0.7], "random": [0.1, 0.3],
                        "mine": [0.9, 0.8]})
    res = cli(tmp_path, "report", "--runs", str(runs), "--out", str(tmp_path / "o"),
              "--no-plots", "--format", "json")
    assert res.status == 0, res.err
    tables = {t["dataset"]: t for t in json.loads(res.out[res.out.index("{"):])["tables"]}
    assert tables["toy"]["best_model"] == "lightgbm-lambdarank"
    assert tables["other"]["best_model"] == "mine"
    assert len(tables["other"]["rows"]) == 3
    assert len(tables["toy"]["rows"]) == 2


# ========================================================================== names: peer tools
@pytest.mark.parametrize("name", ["Judged@2", "SetAP(rel=2)", "NumRelRet(rel=2)", "IPrec@0.5",
                                  "Success(rel=2)@10", "nDCG(judged_only=True)@10",
                                  "AP(judged_only=True)", "SetR(rel=2)", "NumRet",
                                  "nDCG(dcg='exp-log2')@10"])
def test_listed_ir_measures_spellings_equal_ir_measures(name: str) -> None:  # [wrong]
    """Ties, negative and graded labels, a qrels query without a run line and a run query
    without qrels: each listed ir_measures spelling (its key as written) equals ir_measures
    (gdeval's nDCG to its printed 5 decimals)."""
    got = _quiet(evaluate_trec, Q, A_TIED, metrics=[name])
    assert list(got.metrics) == [name]
    tol = 5e-6 if "exp-log2" in name else 1e-12
    assert got.metrics[name] == pytest.approx(_irm(name, A_TIED), abs=tol)


@pytest.mark.parametrize(("name", "measure", "keys"), [
    ("P.2,5", "P.2,5", ["P_2", "P_5"]), ("ndcg_cut.3,10", "ndcg_cut.3,10",
                                         ["ndcg_cut_3", "ndcg_cut_10"]),
    ("recall.3", "recall.3", ["recall_3"]), ("success.1", "success.1", ["success_1"])])
def test_dotted_trec_eval_lists_under_minus_c_equal_pytrec_eval(
        name: str, measure: str, keys: list[str]) -> None:  # [wrong]
    """``--profile trec_eval-c``: each cutoff of a dotted list is trec_eval -c's, pytrec_eval's
    per-query values with the judged queries the run lacks at 0 (5 qrels queries)."""
    got = _quiet(evaluate_trec, Q, A_TIED, metrics=[name], profile="trec_eval-c").metrics
    for key, value in zip(keys, got.values(), strict=True):
        per = _pytrec(Q, A_TIED, measure, key)
        assert value == pytest.approx(sum(per.values()) / len(Q), abs=1e-12), key


def test_ranx_spellings_under_profile_ranx_equal_ranx() -> None:  # [wrong]
    """ranx's names as ranx spells them, under ``--profile ranx``, equal ranx 0.3.21."""
    names = [n for n in RANX_A if n != "ndcg@3"]
    got = _quiet(evaluate_trec, Q, A, metrics=names, profile="ranx").metrics
    assert list(got) == names
    assert got == pytest.approx({n: RANX_A[n] for n in names}, abs=1e-12)


def test_recbole_spellings_equal_recboles_formulas() -> None:  # [wrong]
    """RecBole (``recbole/evaluator/metrics.py``: Hit, MRR, NDCG with the ideal over
    min(R, k), MAP divided by min(R, k), Recall over R, Precision over k), ties in row order:
    u1's top 2 is x, a (a before its tie c): hit 1, mrr 1/2, recall and precision 1/2,
    ndcg (1/log2 3) / (1 + 1/log2 3), AP@2 (1/2) / 2; u2 no hit; u4 (no run line) 0;
    u3 (no relevant item) left out."""
    gt = {"u1": {"a": 1, "b": 0, "c": 1}, "u2": {"d": 1}, "u3": {"e": 0}, "u4": {"f": 1}}
    run = {"u1": {"x": 0.9, "a": 0.5, "c": 0.5, "b": 0.1}, "u2": {"y": 0.3, "z": 0.2},
           "u3": {"e": 0.9}}
    got = _quiet(evaluate_trec, gt, run, metrics="hit@2 mrr@2 ndcg@2 recall@2 precision@2 map@2",
                 profile="recbole").metrics
    d = 1 / math.log2(3)
    want = {"hit@2": 1 / 3, "mrr@2": 0.5 / 3, "ndcg@2": d / (1 + d) / 3, "recall@2": 0.5 / 3,
            "precision@2": 0.5 / 3, "map@2": 0.25 / 3}
    assert got == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("typed", ["map_cut.5,5", "success.1,1", "P.5,05,5"])
def test_a_cutoff_repeated_inside_one_dotted_list_is_refused(typed: str) -> None:  # [accept]
    """One cutoff twice in one trec_eval list is one column asked twice: refused naming it,
    never two columns of one number under one key."""
    _, exc = call(lambda: _quiet(evaluate_trec, Q, A, metrics=[typed]))
    _refused(exc, "twice")


def test_three_grammars_spelling_one_metric_are_three_columns_of_one_value() -> None:  # [wrong]
    """``P_5``, ``P.5`` and ``p@5`` under ``trec_eval``: three keys, one value, pytrec_eval's."""
    got = _quiet(evaluate_trec, Q, A_TIED, metrics="P_5 P.5 p@5", profile="trec_eval").metrics
    per = _pytrec(Q, A_TIED, "P.5", "P_5")
    assert got == pytest.approx({k: sum(per.values()) / len(per) for k in ("P_5", "P.5", "p@5")},
                                abs=1e-15)


@pytest.mark.parametrize("name", ["RBP@10", "RBP"])
def test_ir_measures_rbp_without_rel_is_not_binary_rbp_under_its_name(name: str) -> None:
    """[wrong] ir_measures reads ``RBP@10`` without ``rel=`` as graded RBP (its trectools
    provider: ``binary_topical_relevance=False``; cwl_eval requires rel=), which ltrbench does
    not compute; under ``trec_eval-c``, ir_measures' profile, ltrbench printed its binary RBP
    under that key. Refused (as ``RBP(p=0.5)@5`` is) or said, naming ``RBP(rel=1)``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _, exc = call(lambda: evaluate_trec(Q, A, metrics=[name], profile="trec_eval-c"))
    if exc is not None:
        _refused(exc, "graded", "RBP(rel=1)")
        return
    said = [str(w.message) for w in caught if "graded" in str(w.message)]
    assert said, [str(w.message) for w in caught]
    assert "RBP(rel=1)" in said[0], said


def test_ranxs_persistence_spelling_is_never_suggested_as_a_cutoff() -> None:  # [unclear]
    """ranx writes RBP with persistence 0.95 as ``rbp.95`` (``ranx/metrics/__init__.py``
    ``rbp.p``): the error suggested ``rbp@5``, another metric (a cutoff, p 0.8). It names
    ltrbench's spelling ``rbp(0.5)`` for ``rbp.5``."""
    _, exc = call(lambda: evaluate_trec(Q, A, metrics=["rbp.5"], profile="ranx"))
    _refused(exc, "rbp(0.5)")
    assert "rbp@5" not in str(exc), exc


@pytest.mark.parametrize(("typed", "want"), [("RBP_0.95@10", "rbp(0.95)@10"),
                                             ("rbp_0.7", "rbp(0.7)")])
def test_a_typed_persistence_is_kept_by_the_suggestion(typed: str, want: str) -> None:
    """[unclear] ``RBP_0.95@10`` was answered 'did you mean rbp@10?', RBP of persistence 0.8:
    another number. The answer keeps the persistence typed."""
    _, exc = call(lambda: evaluate_trec(Q, A, metrics=[typed]))
    _refused(exc, want)
    assert "rbp@10?" not in str(exc), exc


@pytest.mark.parametrize(("typed", "want"), [("precision_at_5", "Precision@5"),
                                             ("ndcg_at_3", "ndcg@3")])
def test_a_peer_function_with_its_cutoff_is_answered_with_that_cutoff(typed: str, want: str
                                                                      ) -> None:  # [unclear]
    """MS Recommenders' ``precision_at_k`` written with its k (``precision_at_5``) was answered
    'did you mean precision_ia@5', intent-aware precision: it is Recommenders' function, whose
    value ``Precision@5 --profile recommenders`` gives."""
    _, exc = call(lambda: evaluate_trec(Q, A, metrics=[typed]))
    _refused(exc, want, "recommenders")
    assert "did you mean precision_ia" not in str(exc), exc


@pytest.mark.parametrize(("typed", "name"), [("RetrievalNormalizedDCG", "ndcg@"),
                                             ("RetrievalMAP", "map"),
                                             ("retrieval_hit_rate", "hits@")])
def test_torchmetrics_names_are_answered_with_the_name_and_profile(typed: str, name: str
                                                                   ) -> None:  # [unclear]
    """A torchmetrics class or function typed as a metric name is answered as scikit-learn's
    and MS Recommenders' functions are: the ltrbench name and ``--profile torchmetrics``."""
    _, exc = call(lambda: evaluate_trec(Q, A, metrics=[typed]))
    _refused(exc, typed, name, "torchmetrics")


def test_a_ranx_burges_name_under_another_tools_profile_is_refused_saying_how() -> None:
    """[unclear] README: an explicit profile applies to every name, and a name of another tool
    under another profile is refused with the PROFILE:NAME that asks for it. ranx's
    ``ndcg_burges@10`` under ``--profile lightgbm`` was computed under ``ranx-burges``."""
    _, exc = call(lambda: _quiet(evaluate_trec, Q, A, metrics="ndcg_burges@10 ndcg@10",
                                 profile="lightgbm"))
    _refused(exc, "ndcg_burges@10", "ranx")
    got = _quiet(evaluate_trec, Q, A, metrics="ranx:ndcg_burges@10 ndcg@10", profile="lightgbm")
    assert got.metric_profiles["ranx:ndcg_burges@10"] == "ranx-burges"


# ============================================================ the cross-check's explanation
LAB = [2, 0, 1, 0, 1, 0, 0, 0]
SCO = [0.9, 0.9, 0.1, 0.3, 0.3, 0.7, 0.1, 0.2]
OFF = [0, 3, 6, 8]


@pytest.mark.parametrize(("library", "metric"), [
    ("lightgbm", "lightgbm:ndcg@10"), ("lightgbm", "ltrbench:ndcg@10"),
    ("ranx", "ndcg_burges@10")])
def test_reconcile_refuses_a_metric_that_names_its_own_profile(library: str, metric: str
                                                               ) -> None:
    """[wrong] reconcile walks from the library's profile to the default one; a qualified name
    (or ranx's Burges spelling, which carries ``ranx-burges``) pins one profile on both sides,
    so it printed a gap of 0, 'explained', where LightGBM's and ltrbench's profiles differ by
    0.1328 on this ranking (ndcg@10: blank query 0.0893, ties 0.0435)."""
    from bench.metrics.reconcile import reconcile

    _, exc = call(lambda: _quiet(reconcile, LAB, SCO, OFF, library_profile=library,
                                 metric=metric))
    _refused(exc, metric)
    plain = reconcile(LAB, SCO, OFF, library_profile="lightgbm", metric="ndcg@10")
    assert plain.gap == pytest.approx(0.13284547984958672, abs=1e-12)


def test_crosscheck_arrays_refuses_a_qualified_metric() -> None:  # [wrong]
    """``crosscheck_arrays('lightgbm', ..., metric='ltrbench:ndcg@10')`` gave the ltrbench
    value (0.6885) as LightGBM's reference (0.8213) and a gap of 0."""
    from bench.crosscheck.agreement import crosscheck_arrays

    _, exc = call(lambda: crosscheck_arrays("lightgbm", LAB, SCO, OFF, metric="ltrbench:ndcg@10",
                                            recompute=False))
    _refused(exc, "ltrbench:ndcg@10")


@pytest.mark.parametrize("metric", ["ndcg@1,10", "ndcg@10 map", "ndcg@10,"])
def test_reconcile_of_several_metrics_is_a_clear_error(metric: str) -> None:  # [trace]
    """reconcile explains one metric: several names (an expansion, a list) raised KeyError."""
    from bench.metrics.reconcile import reconcile

    _, exc = call(lambda: reconcile(LAB, SCO, OFF, library_profile="lightgbm", metric=metric))
    assert isinstance(exc, LtrbenchError), repr(exc)
    assert metric.strip(",") in str(exc) or "metric" in str(exc), exc


def test_reconcile_of_a_peer_name_under_a_library_profile_says_how() -> None:  # [unclear]
    """A trec_eval name under LightGBM's profile: refused naming the ltrbench name to use."""
    from bench.metrics.reconcile import reconcile

    _, exc = call(lambda: reconcile(LAB, SCO, OFF, library_profile="lightgbm",
                                    metric="ndcg_cut_10"))
    assert isinstance(exc, ConfigError), repr(exc)
    assert "ndcg@10" in str(exc), exc


#: Each case's class (issue 19's list), for the counts in the report.
CLASSES = {
    "test_stems_colliding_after_folders_and_extensions_keep_their_own_files": "wrong",
    "test_a_run_of_comment_lines_only_is_named_with_its_file": "unclear",
    "test_a_run_given_as_a_folder_is_named": "unclear",
    "test_a_run_of_no_judged_line_is_named": "unclear",
    "test_reserved_run_names_are_refused_once_trimmed_and_folded": "accept",
    "test_a_ranx_comparison_equals_ranx_for_each_run": "wrong",
    "test_a_ranx_comparison_with_missing_drop_is_ranx_on_the_common_queries": "wrong",
    "test_recboles_missing_user_scores_zero_in_a_comparison": "wrong",
    "test_recommenders_per_metric_rule_keeps_one_query_set": "wrong",
    "test_missing_zero_t_test_equals_scipy_on_the_zero_filled_values": "wrong",
    "test_a_blank_query_leaves_the_t_test_as_scipy_without_it": "wrong",
    "test_the_csv_names_the_queries_a_metric_left_out": "unclear",
    "test_a_third_worse_run_leaves_the_unadjusted_p_values_unchanged": "wrong",
    "test_the_randomization_seed_is_said_and_repeats": "wrong",
    "test_fall_out_as_the_primary_metric_crowns_the_lowest": "wrong",
    "test_a_report_over_two_datasets_ranks_fall_out_lowest_first": "wrong",
    "test_listed_ir_measures_spellings_equal_ir_measures": "wrong",
    "test_dotted_trec_eval_lists_under_minus_c_equal_pytrec_eval": "wrong",
    "test_ranx_spellings_under_profile_ranx_equal_ranx": "wrong",
    "test_recbole_spellings_equal_recboles_formulas": "wrong",
    "test_a_cutoff_repeated_inside_one_dotted_list_is_refused": "accept",
    "test_three_grammars_spelling_one_metric_are_three_columns_of_one_value": "wrong",
    "test_ir_measures_rbp_without_rel_is_not_binary_rbp_under_its_name": "wrong",
    "test_ranxs_persistence_spelling_is_never_suggested_as_a_cutoff": "unclear",
    "test_torchmetrics_names_are_answered_with_the_name_and_profile": "unclear",
    "test_a_typed_persistence_is_kept_by_the_suggestion": "unclear",
    "test_a_peer_function_with_its_cutoff_is_answered_with_that_cutoff": "unclear",
    "test_a_ranx_burges_name_under_another_tools_profile_is_refused_saying_how": "unclear",
    "test_reconcile_refuses_a_metric_that_names_its_own_profile": "wrong",
    "test_crosscheck_arrays_refuses_a_qualified_metric": "wrong",
    "test_reconcile_of_several_metrics_is_a_clear_error": "trace",
    "test_reconcile_of_a_peer_name_under_a_library_profile_says_how": "unclear",
}


def test_every_case_here_has_a_class() -> None:
    names = {n for n in globals() if n.startswith("test_") and n != "test_every_case_here_has_a_class"}
    assert names == set(CLASSES)
