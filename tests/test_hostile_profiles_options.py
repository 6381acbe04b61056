"""Hostile cases of the profile options and library profiles of issue 23.

Classes: a bad option value (``run_depth`` N = 0, negative, a bool, a float, text;
``judged_only`` not a bool; unknown ``rel_level`` / ``padding``); padding where the profile
refuses it or beside per-row weights; padding that hides a real bad row (the error must name the
input row); a list of padding only, an input of padding only; a tie straddling the cut under
averaged ties; ``-J`` that empties a query or every query; the reconciliation of a library
profile whose fields its steps did not know (``max_label=None``, ``run_depth``, ``padding``).
Every value is checked against hand arithmetic or pytrec_eval, every refusal by its message.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from bench.errors import ConfigError, DataError
from bench.metrics import evaluate, evaluate_trec, get_profile
from bench.metrics.reconcile import reconcile

L3 = 1 / math.log2(3)


def _trec(q: Any, r: Any, metrics: list[str], profile: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate_trec(q, r, metrics=metrics, profile=profile, per_query=True)


# --- bad option values ------------------------------------------------------------------------

@pytest.mark.parametrize("depth", [0, -1, -1000, True, False, 2.5, "10", float("nan")])
def test_a_bad_run_depth_is_refused_naming_the_field(depth: Any) -> None:
    with pytest.raises(ConfigError, match=r"run_depth \(trec_eval -M\) must be a whole number >= 1"):
        replace(get_profile("trec_eval"), run_depth=depth)


def test_a_numpy_integer_run_depth_is_a_plain_int() -> None:
    prof = replace(get_profile("trec_eval"), run_depth=np.int64(3))
    assert prof.run_depth == 3
    assert type(prof.run_depth) is int


@pytest.mark.parametrize("flag", ["yes", 1, None, np.int64(1)])
def test_judged_only_must_be_a_bool(flag: Any) -> None:
    with pytest.raises(ConfigError, match=r"judged_only \(trec_eval -J\) must be True or False"):
        replace(get_profile("trec_eval"), judged_only=flag)


def test_a_numpy_bool_flag_is_the_plain_bool_as_in_the_run_configuration() -> None:
    """One rule for a NumPy bool on every Python path: ``RunConfig(quick=np.bool_(True))`` and a
    profile's flags read it as the Python bool it stands for (a NumPy integer is no flag)."""
    prof = replace(get_profile("trec_eval"), judged_only=np.bool_(True),
                   clamp_ndcg_mean=np.bool_(False))
    assert prof.judged_only is True
    assert prof.clamp_ndcg_mean is False


@pytest.mark.parametrize(("field", "value"), [("rel_level", "ranx"), ("rel_level", None),
                                              ("padding", "-1"), ("padding", -1)])
def test_an_unknown_convention_value_lists_the_valid_ones(field: str, value: Any) -> None:
    with pytest.raises(ConfigError, match=f"unknown {field}"):
        replace(get_profile("ltrbench"), **{field: value})


# --- padding ------------------------------------------------------------------------------------

@pytest.mark.parametrize("profile", ["ltrbench", "lightgbm", "trec_eval", "torchmetrics"])
def test_padding_is_refused_where_the_profile_does_not_say_so(profile: str) -> None:
    with pytest.raises(DataError, match=r"row 3.*negative"):
        evaluate([1, 0, -1], [0.3, 0.2, 0.1], group=[3], metrics=["ndcg@2"], profile=profile)


def test_allrank_refuses_other_negative_labels_tf_ranking_pads_them() -> None:
    with pytest.raises(DataError, match=r"row 2.*negative"):
        evaluate([1, -7, 0], [0.3, 0.2, 0.1], group=[3], metrics=["ndcg@2"], profile="allrank")
    r = evaluate([1, -7, 0], [0.3, 0.2, 0.1], group=[3], metrics=["ndcg@2"], profile="tf-ranking")
    assert r.metrics["ndcg@2"] == pytest.approx(1.0, rel=1e-6)


def test_a_padding_row_hides_no_bad_real_row_and_errors_name_input_rows() -> None:
    # row 4 is real and has a NaN score; rows 1-3 include padding with NaN / inf scores
    with pytest.raises(DataError, match="row 4") as err:
        evaluate([-1, 1, -1, 0], [float("nan"), 0.5, float("inf"), float("nan")], group=[4],
                 metrics=["ndcg@2"], profile="allrank")
    assert "not a finite number" in str(err.value)
    with pytest.raises(DataError, match="row 5") as err2:  # label 40 above exp2's 31
        evaluate([-1, -1, 1, -1, 40], [0.1, 0.2, 0.3, 0.4, 0.5], group=[5], metrics=["ndcg@2"],
                 profile="allrank")
    assert "above 31" in str(err2.value)


def test_padding_rows_sorted_by_qid_keep_input_row_numbers() -> None:
    with pytest.raises(DataError, match="row 6"):
        evaluate([1, -1, 0, -1, 1, 99], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
                 qid=[1, 2, 1, 2, 2, 1], sort_by_qid=True, metrics=["ndcg@2"], profile="allrank")


@pytest.mark.parametrize(("profile", "value"), [("allrank", 1.0), ("tf-ranking", 0.0)])
def test_a_list_of_padding_only_is_a_blank_list(profile: str, value: float) -> None:
    r = evaluate([1, 0, -1, -1], [0.9, 0.1, 0.5, 0.5], group=[2, 2],
                 metrics=["ndcg@2", "mrr", "p@2"], profile=profile, per_query=True)
    assert list(r.per_query["ndcg@2"]) == pytest.approx([1.0, value], rel=1e-6)
    assert r.per_query["mrr"].iloc[1] == 0.0  # RR has its natural value, 0
    assert r.metrics["ndcg@2"] == pytest.approx((1.0 + value) / 2, rel=1e-6)


@pytest.mark.parametrize(("profile", "value"), [("allrank", 1.0), ("tf-ranking", 0.0)])
def test_an_input_of_padding_only(profile: str, value: float) -> None:
    r = evaluate([-1, -1, -1], [0.0, 0.0, 0.0], group=[2, 1], metrics=["ndcg@5", "map"],
                 profile=profile, per_query=True)
    assert list(r.per_query["ndcg@5"]) == [value, value]
    assert r.metrics["ndcg@5"] == value


def test_padding_beside_per_row_weights_is_refused_per_query_weights_count() -> None:
    with pytest.raises(ConfigError, match="per-row weights with padding rows"):
        evaluate([1, 0, -1, 1, 0], [0.9, 0.1, 0.5, 0.2, 0.8], group=[3, 2], metrics=["ndcg@2"],
                 profile="tf-ranking", weights=[1, 1, 1, 2, 2])
    r = evaluate([1, 0, -1, -1, 1, 0], [0.9, 0.1, 0.5, 0.5, 0.2, 0.8], group=[2, 2, 2],
                 metrics=["ndcg@2"], profile="allrank", weights=[1.0, 3.0, 1.0])
    q3 = L3 / 1.0  # labels ranked 0, 1: DCG 1/log2(3), ideal 1
    assert r.metrics["ndcg@2"] == pytest.approx((1.0 + 3 * 1.0 + q3) / 5, abs=1e-12)


def test_minus_zero_is_a_label_not_padding_and_nan_labels_stay_refused() -> None:
    r = evaluate([-0.0, 1.0], [0.9, 0.1], group=[2], metrics=["ndcg@2"], profile="tf-ranking")
    assert r.metrics["ndcg@2"] == pytest.approx(L3, rel=1e-6)
    with pytest.raises(DataError, match="row 1"):
        evaluate([float("nan"), 1.0], [0.9, 0.1], group=[2], metrics=["ndcg@2"],
                 profile="tf-ranking")


def test_padding_labels_as_text_or_bools_are_refused_as_before() -> None:
    with pytest.raises(DataError, match="text"):
        evaluate(["-1", "1"], [0.9, 0.1], group=[2], metrics=["ndcg@2"], profile="allrank")
    with pytest.raises(DataError, match="bools"):
        evaluate([-1, True], [0.9, 0.1], group=[2], metrics=["ndcg@2"], profile="allrank")


def test_a_dataframe_with_padding_rows_under_allrank() -> None:
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"qid": [1, 1, 1, 2], "label": [2, -1, 0, -1],
                       "score": [0.1, 5.0, 0.9, 0.0]})
    r = evaluate(df, metrics=["ndcg@2"], profile="allrank", per_query=True)
    assert list(r.per_query["ndcg@2"]) == pytest.approx([3 * L3 / 3, 1.0], abs=1e-12)


# --- run_depth / judged_only --------------------------------------------------------------------

def test_a_tie_straddling_the_cut_under_averaged_ties_is_refused_naming_the_query() -> None:
    prof = replace(get_profile("ltrbench"), run_depth=2)
    with pytest.raises(DataError, match=r"query 'b'.*straddle rank 2"):
        evaluate([1, 0, 1, 1, 0], [0.9, 0.5, 0.9, 0.5, 0.5], qid=["a", "a", "b", "b", "b"],
                 metrics=["ndcg"], profile=prof)


def test_run_depth_beyond_every_list_changes_nothing() -> None:
    labels, scores = [1, 0, 2, 0, 1], [0.1, 0.5, 0.5, 0.3, 0.2]
    base = evaluate(labels, scores, group=[3, 2], metrics=["ndcg", "map"])
    deep = evaluate(labels, scores, group=[3, 2], metrics=["ndcg", "map"],
                    profile=replace(get_profile("ltrbench"), run_depth=3))
    assert deep.metrics == base.metrics


def test_judged_only_on_labelled_rows_changes_nothing() -> None:
    labels, scores = [1, 0, 2, 0, 1], [0.1, 0.5, 0.4, 0.3, 0.2]
    base = evaluate(labels, scores, group=[3, 2], metrics=["ndcg", "map"], profile="trec_eval")
    j = evaluate(labels, scores, group=[3, 2], metrics=["ndcg", "map"],
                 profile=replace(get_profile("trec_eval"), judged_only=True))
    assert j.metrics == base.metrics


def test_judged_only_that_empties_every_query() -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels = {"1": {"a": 1}, "2": {"b": 0, "c": 2}}
    run = {"1": {"x": 0.5, "y": 0.1}, "2": {"z": 0.3}}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg", "P_5"},
                                            judged_docs_only_flag=True).evaluate(run)
    ours = _trec(qrels, run, ["map", "ndcg", "P_5"],
                 replace(get_profile("trec_eval"), judged_only=True)).per_query
    for _, row in ours.iterrows():
        for m in ("map", "ndcg", "P_5"):
            assert row[m] == theirs[str(row["qid"])][m] == 0.0


def test_run_depth_one_with_judged_only_after_it_as_trec_eval_does() -> None:
    """-M cuts first: the top document is unjudged, so -J leaves nothing (not the next judged
    document, which -M already dropped)."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels = {"1": {"a": 1}}
    run = {"1": {"x": 0.9, "a": 0.5}}
    prof = replace(get_profile("trec_eval"), run_depth=1, judged_only=True)
    ours = _trec(qrels, run, ["recip_rank", "map"], prof).per_query
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank", "map"},
                                            judged_docs_only_flag=True).evaluate({"1": {"x": 0.9}})
    assert ours["recip_rank"].iloc[0] == theirs["1"]["recip_rank"] == 0.0
    assert ours["map"].iloc[0] == theirs["1"]["map"] == 0.0


def test_run_depth_keeps_the_cut_relevant_documents_in_r_under_qrels_basis() -> None:
    qrels = {"1": {"a": 1, "b": 1}}
    run = {"1": {"a": 0.9, "b": 0.5}}
    r = _trec(qrels, run, ["recall_1000", "map"], replace(get_profile("trec_eval"), run_depth=1))
    assert r.per_query["recall_1000"].iloc[0] == 0.5
    assert r.per_query["map"].iloc[0] == 0.5


# --- reconcile ------------------------------------------------------------------------------------

@pytest.mark.parametrize("library", ["sklearn", "ranx", "trec_eval", "torchmetrics", "msmarco",
                                     "tf-ranking", "allrank", "sklearn-ignore-ties"])
def test_reconcile_explains_a_library_profile_with_max_label_none(library: str) -> None:
    labels = [1, 0, 2, 0, 0, 0, 3, 1]
    scores = [0.1, 0.2, 0.3, 0.4, 0.1, 0.2, 0.5, 0.5]
    rec = reconcile(labels, scores, [0, 2, 4, 6, 8], library_profile=library, metric="ndcg@2")
    assert math.isfinite(rec.gap)
    assert rec.reasons["gain"] == rec.reasons["gain"]


def test_reconcile_puts_run_depth_under_truncation() -> None:
    lib = replace(get_profile("lightgbm"), name="lightgbm-M1", run_depth=1)
    rec = reconcile([0, 1, 1, 0], [0.9, 0.5, 0.9, 0.5], [0, 2, 4], library_profile=lib,
                    default_profile="lightgbm", metric="ndcg")
    assert rec.explained
    assert rec.reasons["truncation"] != 0.0
    assert "run_depth" not in rec.unexplained_fields


# --- nonpositive_scores ---------------------------------------------------------------------------

def test_hits_under_torchmetrics_is_its_hit_rate_which_does_not_filter() -> None:
    # torchmetrics functional/retrieval/hit_rate.py: the top k of the unfiltered targets, so
    # the relevant document scored -0.5 at rank 2 is a hit at k = 2 (it was refused before)
    r = evaluate([1, 0], [-0.5, 0.2], group=[2], metrics=["hits@1", "hits@2", "p@2"],
                 profile="torchmetrics")
    assert r.metrics == {"hits@1": 0.0, "hits@2": 1.0, "p@2": 0.0}
    assert set(r.metric_profiles.values()) == {"torchmetrics"}


@pytest.mark.parametrize("value", ["drop", None, True])
def test_an_unknown_nonpositive_scores_value_is_refused(value: Any) -> None:
    with pytest.raises(ConfigError, match="unknown nonpositive_scores"):
        replace(get_profile("torchmetrics"), nonpositive_scores=value)


def test_a_score_of_minus_zero_is_not_positive_and_ties_with_zero() -> None:
    r = evaluate([1, 1, 0], [-0.0, 0.0, -1.0], group=[3], metrics=["mrr", "recall@3", "ndcg"],
                 profile="torchmetrics")
    assert r.metrics["mrr"] == 0.0
    assert r.metrics["recall@3"] == 0.0
    assert r.metrics["ndcg"] == pytest.approx(1.0, abs=1e-7)


def test_nonpositive_scores_with_padding_and_trec_qrels_basis_keep_r() -> None:
    prof = replace(get_profile("torchmetrics"), padding="minus_one")
    r = evaluate([1, -1, 1, 0], [0.4, 9.0, -0.1, 0.2], group=[4], metrics=["recall@3", "p@3"],
                 profile=prof)
    assert r.metrics["recall@3"] == pytest.approx(1 / 2, abs=1e-7)
    assert r.metrics["p@3"] == pytest.approx(1 / 3, abs=1e-7)
    q = {"1": {"a": 1, "b": 1, "z": 1}}
    run = {"1": {"a": 0.5, "b": -0.5}}
    tm_qrels = replace(get_profile("torchmetrics"), idcg_basis="qrels")
    rr = _trec(q, run, ["recall@5"], tm_qrels).per_query
    assert rr["recall@5"].iloc[0] == pytest.approx(1 / 3, abs=1e-7)  # a only; R = 3


def test_run_depth_with_random_ties_is_refused() -> None:
    with pytest.raises(ConfigError, match="run_depth with ties='random'"):
        replace(get_profile("ltrbench"), ties="random", run_depth=5)


@pytest.mark.parametrize(("ties", "kept"), [("pessimistic", 0.0), ("optimistic", 1.0)])
def test_run_depth_cuts_a_tied_group_in_the_tie_rules_order(ties: str, kept: float) -> None:
    """Pessimistic ties (CatBoost's) put the lower gain first: the cut at 1 keeps label 0."""
    prof = replace(get_profile("ltrbench"), empty=0.0, ties=ties, run_depth=1)
    r = evaluate([1, 0], [0.5, 0.5], group=[2], metrics=["ndcg"], profile=prof)
    assert r.metrics["ndcg"] == kept  # the list is the kept document alone (IDCG over the list)
