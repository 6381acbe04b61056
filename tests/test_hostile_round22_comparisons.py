"""Round 22 of the hostile catalogue (issue 19, items 2 and 3): comparisons, metric names and
profiles that cannot mislead. Siblings of the instances earlier rounds fixed (the common query
set, ``P_5`` under ``trec_eval-c``, ir_measures names under the default profile, ranx's
``hits@k``, RecBole's ``AUC``): other metric families under other profiles, names a profile's
own tool spells for another metric, three runs with disjoint query sets, per-query outputs, the
profile fields no check reads, and the cross-check's gap breakdown with query weights.

Golden values: pytrec_eval and ir_measures (computed here), hand arithmetic from the tools'
published source (each case says which lines), and, where importing the library would cost
seconds, the library's value computed once and written down with the call that gave it.

Classes: [wrong] silently wrong number, [accept] silent accept, [trace] traceback,
[unclear] unclear error.
"""

from __future__ import annotations

import functools
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hostile_kit import api_refused, call, cli

from bench.errors import ConfigError, LtrbenchError
from bench.metrics import PROFILES, evaluate, evaluate_trec, get_profile

pytrec_eval = pytest.importorskip("pytrec_eval")
ir_measures = pytest.importorskip("ir_measures")

# Six judged queries; three runs, "b" misses query 6 and "c" misses query 1.
QRELS = {
    "1": {"d0": 2, "d1": 0, "d2": 1, "d3": 0, "d4": 1},
    "2": {"d0": 0, "d1": 1, "d2": 0, "d3": 2, "d5": 0},
    "3": {"d1": 1, "d2": 1, "d3": 0, "d6": 0},
    "4": {"d0": 0, "d2": 2, "d4": 0, "d5": 1, "d7": 0},
    "5": {"d1": 0, "d3": 1, "d4": 0, "d6": 2},
    "6": {"d0": 1, "d2": 0, "d5": 0},
}
_RNG = np.random.default_rng(22)
RUNS = {name: {q: {f"d{d}": float(np.round(_RNG.normal(), 3)) for d in range(9)} for q in qs}
        for name, qs in (("a", "123456"), ("b", "12345"), ("c", "23456"))}
COMMON = ["2", "3", "4", "5"]
ROOT = Path(__file__).resolve().parents[1]


def _pytrec(run: dict[str, dict[str, float]], measure: str, **kw: int) -> dict[str, float]:
    """pytrec_eval's per-query values of ``measure`` (its own key) for ``run``."""
    family = measure.rsplit("_", 1)[0] if measure[-1].isdigit() else measure
    ev = pytrec_eval.RelevanceEvaluator(QRELS, {family}, **kw)
    return {q: v[measure] for q, v in ev.evaluate(run).items()}


def _refused(exc: BaseException | None, *words: str) -> None:
    problem = api_refused(exc, *words)
    assert problem is None, problem


# ------------------------------------------------------------ profile fields no check read
def test_binary_label_families_typo_is_refused_when_evaluated() -> None:  # [accept]
    """``binary_label_families=("mapp",)`` printed XGBoost's map of a graded label (0.5) that
    XGBoost refuses: the typo was never read. It must be refused, naming it."""
    prof = replace(get_profile("xgboost"), binary_label_families=("mapp",))
    _, exc = call(lambda: evaluate([2, 0], [0.1, 0.2], group=[2], metrics="map", profile=prof))
    _refused(exc, "mapp", "binary_label_families")


def test_binary_label_families_typo_in_a_registered_profile_is_refused() -> None:  # [accept]
    """A profile registered with XGBoost's own spelling ``pre`` (ltrbench's family is ``p``)."""
    PROFILES["mytool"] = replace(get_profile("xgboost"), name="mytool",
                                 binary_label_families=("map", "pre"))
    try:
        _, exc = call(lambda: evaluate([1, 0], [0.1, 0.2], group=[2], metrics="p@1",
                                       profile="mytool"))
    finally:
        del PROFILES["mytool"]
    _refused(exc, "'pre'", "binary_label_families", "'p'")


def test_binary_label_families_of_known_names_apply_to_those_families_only() -> None:  # [wrong]
    """``("p",)``: a graded label is refused in p@1 and taken in map (AP of [0, 2] = 1/2)."""
    prof = replace(get_profile("xgboost"), binary_label_families=("p",))
    got = evaluate([2, 0], [0.1, 0.2], group=[2], metrics="map", profile=prof).metrics["map"]
    assert got == pytest.approx(0.5, abs=1e-12)
    _, exc = call(lambda: evaluate([2, 0], [0.1, 0.2], group=[2], metrics="p@1", profile=prof))
    _refused(exc, "label 2")


# ------------------------------------------------------------------------- random tie order
def _random_query_value(rows_before: int, seed: int, after: bool = False) -> float:
    """ndcg@1 of query A (labels 1, 0, 0, 0, all tied) beside query B of ``rows_before``
    tied rows (before A, or after it)."""
    prof = replace(get_profile("ltrbench"), ties="random", tie_seed=seed)
    a_lab, b_lab = [1, 0, 0, 0], [0, 1] + [0] * (rows_before - 2)
    labels = b_lab + a_lab if not after else a_lab + b_lab
    sizes = [rows_before, 4] if not after else [4, rows_before]
    res = evaluate(labels, [0.5] * len(labels), group=sizes, metrics="ndcg@1", profile=prof,
                   per_query=True)
    return float(res.per_query["ndcg@1"].iloc[1 if not after else 0])


def test_random_ties_of_a_query_do_not_depend_on_the_other_queries_sizes() -> None:  # [wrong]
    """One permutation over all rows made query A's order a function of how many rows came
    before it: the same query, the same seed, another value beside another query."""
    moved = [s for s in range(8) if len({_random_query_value(n, s) for n in (2, 5)}) > 1]
    assert not moved, f"seeds {moved}: query A's ndcg@1 changed with the size of query B"


def test_random_ties_of_a_query_do_not_depend_on_its_position() -> None:  # [wrong]
    moved = [s for s in range(8) if _random_query_value(3, s) != _random_query_value(3, s, True)]
    assert not moved, f"seeds {moved}: query A's ndcg@1 changed when it came first"


def test_random_ties_draw_every_order_across_seeds() -> None:  # [wrong]
    """Hand arithmetic: the relevant document first gives ndcg@1 = 1, else 0; over 24 seeds both
    happen (a key that ignores the seed, or always row order, would give one value)."""
    values = {_random_query_value(2, s) for s in range(24)}
    assert values == {0.0, 1.0}


def test_random_ties_in_the_subtopic_path_do_not_depend_on_other_queries() -> None:  # [wrong]
    """The same rule for subtopic labels (``alpha_ndcg``), which draw their own tie key."""
    def value(n_before: int, seed: int) -> float:
        prof = replace(get_profile("trec_eval"), ties="random", tie_seed=seed)
        sub = np.zeros((n_before + 4, 1))
        sub[n_before, 0] = 1.0  # query A's first row covers the subtopic
        sub[1, 0] = 1.0
        labels = [0, 1] + [0] * (n_before - 2) + [1, 0, 0, 0]
        res = evaluate(labels, [0.5] * len(labels), group=[n_before, 4], subtopics=sub,
                       metrics="alpha_ndcg@1", profile=prof, per_query=True)
        return float(res.per_query["alpha_ndcg@1"].iloc[1])
    moved = [s for s in range(8) if len({value(n, s) for n in (2, 5)}) > 1]
    assert not moved, f"seeds {moved}: query A's alpha_ndcg@1 changed with query B's size"


# ------------------------------------------------- the cross-check's gap with query weights
def _rec(library: str, weights: list[float], blank: bool = False) -> object:
    from bench.metrics.reconcile import reconcile

    y = [1, 0, 0, 1] + ([0, 0] if blank else [])
    s = [0.2, 0.1, 0.2, 0.1] + ([0.2, 0.1] if blank else [])
    off = [0, 2, 4, 6] if blank else [0, 2, 4]
    value, exc = call(lambda: reconcile(y, s, off, library_profile=library, metric="ndcg@2",
                                        weights=weights))
    assert exc is None, f"reconcile with query weights: {type(exc).__name__}: {exc}"
    return value


def test_reconcile_explains_ignored_query_weights_by_a_weights_step() -> None:  # [trace]
    """XGBoost 1.7 averages groups without weights (rank_metric.cc:225): ndcg@2 of [1, 0] and
    [0, 1] is 1 and 1/log2(3); unweighted (1 + 0.63093) / 2 = 0.81546, weighted 3:1 the
    default gives (3 + 0.63093) / 4 = 0.90773; the whole gap is the weights' doing."""
    rec = _rec("xgboost@1.7", [3.0, 1.0])
    second = 1 / math.log2(3)
    lib, dflt = (1 + second) / 2, (3 + second) / 4
    assert rec.library_value == pytest.approx(lib, abs=1e-12)  # type: ignore[attr-defined]
    assert rec.default_value == pytest.approx(dflt, abs=1e-12)  # type: ignore[attr-defined]
    assert rec.reasons.get("weights") == pytest.approx(lib - dflt, abs=1e-12)  # type: ignore[attr-defined]
    assert rec.explained  # type: ignore[attr-defined]


def test_reconcile_of_lightgbm_with_weights_and_a_blank_query_is_explained() -> None:  # [wrong]
    """LightGBM adds a blank query's 1 unweighted to the weighted sum (rank_metric.hpp:119-122):
    weights 3, 1, 2 give (3 + 0.63093 + 1) / 6 = 0.771822 (LightGBM 4.7.0's eval_train printed
    0.7718216255952429 for these rows); the default leaves the blank query out:
    (3 + 0.63093) / 4. Every part of the gap has a reason."""
    rec = _rec("lightgbm", [3.0, 1.0, 2.0], blank=True)
    second = 1 / math.log2(3)
    assert rec.library_value == pytest.approx(0.7718216255952429, abs=1e-12)  # type: ignore[attr-defined]
    assert rec.default_value == pytest.approx((3 + second) / 4, abs=1e-12)  # type: ignore[attr-defined]
    total = sum(rec.reasons.values()) + rec.residual  # type: ignore[attr-defined]
    assert total == pytest.approx(rec.gap, abs=1e-12)  # type: ignore[attr-defined]
    assert rec.explained, rec  # type: ignore[attr-defined]


def test_reconcile_without_weights_says_the_weights_step_moved_nothing() -> None:  # [wrong]
    rec = _rec("lightgbm", None)  # type: ignore[arg-type]
    assert rec.reasons.get("weights") == 0.0  # type: ignore[attr-defined]
    assert "query_weights" not in rec.unexplained_fields  # type: ignore[attr-defined]


# ------------------------------------------------------------ a fractional relevance level
def test_fractional_relevance_level_is_refused_on_the_command_line(tmp_path: Path) -> None:
    """[wrong] ``--relevance-level 2.5`` read as label >= 2.5 (grade 3) where trec_eval's ``-l``
    (atol) reads 2 and pytrec_eval / ir_measures take whole levels only."""
    (tmp_path / "q.txt").write_text("1 0 a 2\n1 0 b 3\n1 0 c 0\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n")
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics", "P_1",
              "--relevance-level", "2.5")
    assert res.status == 2, res
    assert not res.traceback, res
    assert "2.5" in res.err, res.err
    assert "whole" in res.err, res.err


# ---------------------------------------------------------------------- a name given twice
def test_a_metric_given_twice_on_the_command_line_is_refused(tmp_path: Path) -> None:
    """[accept] ``--metrics map --metrics map`` printed one column for two names asked."""
    (tmp_path / "q.txt").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n")
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics", "map",
              "--metrics", "map")
    assert res.status == 2, res
    assert not res.traceback, res
    assert "'map'" in res.err, res.err
    assert "twice" in res.err, res.err


@pytest.mark.parametrize("metrics", [["map@2", "map@2"], "ndcg@1,2 ndcg@2", "mrr recip_rank mrr"])
def test_a_metric_given_twice_to_evaluate_is_refused(metrics: object) -> None:  # [accept]
    _, exc = call(lambda: evaluate([1, 0], [0.2, 0.1], group=[2], metrics=metrics))
    _refused(exc, "twice")


def test_a_metric_given_twice_to_evaluate_trec_is_refused() -> None:  # [accept]
    _, exc = call(lambda: evaluate_trec(QRELS, RUNS["a"], metrics="P_5 map P_5"))
    _refused(exc, "'P_5'", "twice")


def test_a_metric_given_twice_to_a_comparison_is_refused() -> None:  # [accept]
    from bench.report.compare_runs import compare_runs

    _, exc = call(lambda: compare_runs(QRELS, RUNS, metrics="bpref map bpref"))
    _refused(exc, "'bpref'", "twice")


def test_two_spellings_of_one_metric_keep_two_columns_of_the_same_value() -> None:  # [wrong]
    """Documented: ``ndcg@2`` and ``NDCG@2`` are two names (two columns), one value:
    labels [0, 1] ranked by scores [0.2, 0.1] give 1/log2(3) / 1."""
    got = evaluate([0, 1], [0.2, 0.1], group=[2], metrics="ndcg@2 NDCG@2").metrics
    assert got == {"ndcg@2": pytest.approx(1 / math.log2(3)), "NDCG@2": pytest.approx(1 / math.log2(3))}


# -------------------------------------------------------------- the cross-check's title
@pytest.mark.parametrize(("dataset", "shown"), [
    ("D\u0430ta", "D\\u0430ta"),  # Cyrillic а inside a Latin name
    ("cafe\u0301", "cafe\\u0301"),  # not NFC
    ("toy ", "'toy '"),  # a blank Markdown swallows
])
def test_crosscheck_markdown_title_escapes_a_look_alike_dataset_name(dataset: str,
                                                                      shown: str) -> None:
    """[wrong] the reports show ``Dаta (D\\u0430ta)``; ``crosscheck.md`` showed ``Dаta`` alone."""
    from bench.crosscheck.render import render_markdown
    from bench.crosscheck.result import CrosscheckResult

    title = render_markdown(CrosscheckResult(dataset=dataset, run_dir="r", run_id="r",
                                             metric="ndcg@10", default_profile="ltrbench"))
    first = title.splitlines()[0]
    assert shown in first.replace("\\\\", "\\"), first


# -------------------------------------- a profile's tool spelling another metric so (homonyms)
Y3 = [0, 0, 0, 1, 0, 0, 1]
S3 = [0.3, 0.2, 0.1, 0.2, 0.1, 0.2, 0.1]


def test_catboost_auc_scores_a_group_of_one_class_zero_as_query_auc() -> None:  # [wrong]
    """CatBoost's QueryAUC averages every group, a group of one class scoring 0:
    catboost.utils.eval_metric(Y3, S3, 'QueryAUC', group_id=[0,0,0,1,1,2,2]) printed
    0.3333333333333333 (CatBoost 1.2.10): (0 + 1 + 0) / 3. ltrbench printed 2/3."""
    got = evaluate(Y3, S3, group=[3, 2, 2], metrics="auc", profile="catboost").metrics["auc"]
    assert got == pytest.approx(1 / 3, abs=1e-12)


@pytest.mark.parametrize("metric", ["err@3", "err@1", "catboost:err@3"])
def test_catboost_err_is_refused_as_catboost_reads_labels_as_probabilities(metric: str) -> None:
    """[wrong] CatBoost's ERR takes each label as the probability of relevance (eval_metric
    'ERR:top=3' printed 0.5 for Y3/S3); ltrbench's err@3 takes (2^l - 1) / 16 and printed
    0.03125: the profile named for CatBoost must not print another ERR under ERR's name."""
    kw = {} if metric.startswith("catboost:") else {"profile": "catboost"}
    _, exc = call(lambda: evaluate(Y3, S3, group=[3, 2, 2], metrics=metric, **kw))
    _refused(exc, "CatBoost", "ERR")


@pytest.mark.parametrize("profile", ["lightgbm", "xgboost", "xgboost@1.7"])
def test_a_gbdt_librarys_auc_under_its_profile_is_refused(profile: str) -> None:  # [wrong]
    """LightGBM's ``auc`` is one ROC AUC over every row, groups ignored (0.7991 for the rows of
    the round-22 probe, sklearn.metrics.roc_auc_score over all rows), XGBoost's ranking AUC
    counts pairs in its own way (0.5482 there); ltrbench's per-query mean printed 0.8958 under
    both profiles' names."""
    _, exc = call(lambda: evaluate(Y3, S3, group=[3, 2, 2], metrics="auc", profile=profile))
    _refused(exc, "auc", "gauc" if profile == "lightgbm" else "XGBoost")


def test_gauc_under_lightgbm_stays_the_per_query_mean() -> None:  # [wrong]
    """gauc is not LightGBM's spelling: hand arithmetic, the two two-class groups' AUC 1 and 0,
    weighted by their documents (2 and 2): 0.5."""
    got = evaluate(Y3, S3, group=[3, 2, 2], metrics="gauc", profile="lightgbm").metrics["gauc"]
    assert got == pytest.approx(0.5, abs=1e-12)


# ------------------------------------------ three runs, disjoint query sets, every family
_MEASURES = ("bpref", "infAP", "set_F", "success_5", "Rprec", "map_cut_5", "recall_5",
             "recip_rank")


@functools.cache
def _compared(profile: str | None) -> Any:
    """One comparison of the three runs over every measure the cases below read (the common
    query set does not depend on the metric list: round 8's fix)."""
    from bench.report.compare_runs import compare_runs

    return compare_runs(QRELS, RUNS, metrics=" ".join(_MEASURES),
                        profile=profile).to_frame().set_index("run")


@pytest.mark.parametrize("measure", _MEASURES)
def test_three_runs_on_disjoint_queries_equal_pytrec_eval_over_the_common_queries(
        measure: str) -> None:  # [wrong]
    frame = _compared(None)
    for name, run in RUNS.items():
        per = _pytrec(run, measure)
        want = float(np.mean([per[q] for q in COMMON]))
        assert frame.loc[name, measure] == pytest.approx(want, abs=1e-12), name


def test_gm_map_of_three_runs_is_the_geometric_mean_over_the_common_queries() -> None:  # [wrong]
    """pytrec_eval's per-query gm_map is log(max(AP, 1e-5)); the mean is exp of their mean."""
    from bench.report.compare_runs import compare_runs

    frame = compare_runs(QRELS, RUNS, metrics="gm_map map").to_frame().set_index("run")
    for name, run in RUNS.items():
        per = _pytrec(run, "gm_map")
        want = math.exp(float(np.mean([per[q] for q in COMMON])))
        assert frame.loc[name, "gm_map"] == pytest.approx(want, abs=1e-12), name


def test_per_query_frame_of_three_runs_equals_pytrec_eval_for_infap_and_bpref() -> None:
    from bench.report.compare_runs import compare_runs

    pq = compare_runs(QRELS, RUNS, metrics="infAP bpref").per_query_frame()
    for measure in ("infAP", "bpref"):
        rows = pq[pq["metric"] == measure].set_index("qid")
        assert sorted(rows.index.astype(str)) == COMMON
        for name, run in RUNS.items():
            per = _pytrec(run, measure)
            for q in COMMON:
                assert rows.loc[q, name] == pytest.approx(per[q], abs=1e-12), (measure, name, q)


@pytest.mark.parametrize("measure", ["bpref", "Rprec", "recall_5", "success_5"])
def test_trec_eval_c_comparison_scores_a_query_a_run_lacks_zero(measure: str) -> None:  # [wrong]
    """Under ``trec_eval-c`` every judged query counts and a run's missing query scores 0
    (trec_eval -c); pytrec_eval's values over the answered queries, zeros for the rest."""
    frame = _compared("trec_eval-c")
    for name, run in RUNS.items():
        per = _pytrec(run, measure)
        want = sum(per.values()) / len(QRELS)
        assert frame.loc[name, measure] == pytest.approx(want, abs=1e-12), name


@pytest.mark.parametrize("name", ["Bpref(rel=2)", "Rprec(rel=2)", "infAP(rel=2)", "R(rel=2)@5",
                                  "SetAP", "Judged@5", "Success(rel=2)@3", "RR(rel=2)@3"])
def test_ir_measures_names_with_a_missing_query_equal_ir_measures(name: str) -> None:  # [wrong]
    measure = ir_measures.parse_measure(name)
    want = ir_measures.calc_aggregate([measure], QRELS, RUNS["b"])[measure]
    got = evaluate_trec(QRELS, RUNS["b"], metrics=[name]).metrics[name]
    assert got == pytest.approx(want, abs=1e-12)


def test_err_header_without_profile_says_which_name_gives_ir_measures_value() -> None:
    """[unclear] ``ERR@5`` is ltrbench's header and ir_measures' name: read as ltrbench's under
    trec_eval (the query run "b" lacks left out), said, and ``trec_eval-c:ERR@5`` is the mean
    with that query scored 0: the same per-query values, sum / 6."""
    with pytest.warns(UserWarning, match=r"trec_eval-c:ERR@5"):
        plain = evaluate_trec(QRELS, RUNS["b"], metrics="ERR@5", per_query=True)
    c = evaluate_trec(QRELS, RUNS["b"], metrics="trec_eval-c:ERR@5").metrics["trec_eval-c:ERR@5"]
    values = plain.per_query["ERR@5"]
    assert plain.metrics["ERR@5"] == pytest.approx(float(values.mean()), abs=1e-12)
    assert c == pytest.approx(float(values.sum()) / 6, abs=1e-12)


def test_sklearn_profile_weighted_dcg_is_np_average_of_the_query_dcgs() -> None:  # [wrong]
    """sklearn dcg_score(y, s, k=2, sample_weight=w): np.average of each row's DCG. Row 1:
    [3, 0] scored [0.1, 0.2]: 3 / log2(3). Row 2: [1, 2] tied: the mean gain 1.5 at both ranks
    (ignore_ties=False): 1.5 (1 + 1 / log2(3)). Weights 1 and 3."""
    res = evaluate([3, 0, 1, 2], [0.1, 0.2, 0.5, 0.5], group=[2, 2], weights=[1.0, 3.0],
                   metrics="dcg@2", profile="sklearn")
    d1, d2 = 3 / math.log2(3), 1.5 * (1 + 1 / math.log2(3))
    assert res.metrics["dcg@2"] == pytest.approx((d1 + 3 * d2) / 4, abs=1e-12)


def test_an_unknown_family_in_a_profile_never_raises_a_bare_error() -> None:  # [trace]
    """Whatever the owner, the refusal is ltrbench's own error type."""
    prof = replace(get_profile("torchmetrics"), binary_label_families=("ap",))
    _, exc = call(lambda: evaluate([1, 0], [0.2, 0.1], group=[2], metrics="map", profile=prof))
    assert isinstance(exc, LtrbenchError | ConfigError), exc


def test_catboost_map_precision_and_recall_ignore_group_weights_as_catboost() -> None:  # [wrong]
    """CatBoost's MAP:top=k, PrecisionAt and RecallAt take no group weight (eval_metric with
    group_weight printed the unweighted 0.63889 / 0.66667 / 0.81944 on the round-22 probe where
    ltrbench printed 0.64285 / 0.68377 / 0.87934), its NDCG does. Hand arithmetic: [1, 0] and
    [0, 1] scored [0.2, 0.1], weights 3 and 1: AP@2 1 and 1/2, mean 0.75 (weighted 0.875);
    NDCG@2 1 and 1/log2(3), weighted (3 + 0.63093) / 4."""
    res = evaluate([1, 0, 0, 1], [0.2, 0.1, 0.2, 0.1], group=[2, 2], weights=[3.0, 1.0],
                   metrics="map@2 p@2 recall@2 ndcg@2", profile="catboost").metrics
    assert res["map@2"] == pytest.approx(0.75, abs=1e-12)
    assert res["p@2"] == pytest.approx(0.5, abs=1e-12)
    assert res["recall@2"] == pytest.approx(1.0, abs=1e-12)
    assert res["ndcg@2"] == pytest.approx((3 + 1 / math.log2(3)) / 4, abs=1e-7)
