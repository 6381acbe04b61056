"""Hostile cases for issue 23's measures (counts, set_map, gm_map, F1, fall-out, rprec@k,
Rprec_mult, iprec_at_recall, RBP and its residual, NCRR, AUC, GAUC, infAP): parameters out of
range or not numbers, spellings of another grammar, degenerate queries (one class, all
relevant, one document, no relevant document), weights, the exclusion policy, a distributed
evaluation. Each case is a clear error or the number the measure's source defines.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from bench.errors import ConfigError
from bench.metrics import evaluate, parse_metrics
from bench.metrics.query_parts import combine, summarise

# -- names and parameters ------------------------------------------------------------------------

BAD_NAMES = [
    ("rbp(nan)", "parameters are named"),  # not a decimal: ir_measures' grammar, positional
    ("rbp(1.0)", r"p must be in \(0, 1\)"),
    ("rbp(0.99999999999999999)", r"p must be in \(0, 1\)"),  # rounds to 1.0
    ("RBP(p=1e-400,rel=1)", r"p must be in \(0, 1\)"),  # underflows to 0.0
    ("RBP(p=True,rel=1)", "a number in"),
    ("RBP(p='0.5',rel=1)", "a number in"),
    ("RBP(p=0.5)", "graded RBP"),
    ("IPrec@-0.1", r"x must be in \[0, 1\]"),
    ("IPrec@True", "recall level"),
    ("IPrec@1.5", r"x must be in \[0, 1\]"),
    ("iprec_at_recall(0.1)@5", "whole list"),
    ("iprec_at_recall()", "decimal number"),
    ("rprec_mult(0.0)", r"x must be in \(0"),
    ("Rprec_mult_0", r"x must be in \(0"),
    ("gauc@10", "whole list"),
    ("infap@10", "whole list"),
    ("ndcg(0.5)@10", "parameters are named"),  # a family without a parameter
    ("f1(0.5)@3", "parameters are named"),
]


@pytest.mark.parametrize(("name", "message"), BAD_NAMES)
def test_a_bad_parameter_or_spelling_is_a_config_error_naming_it(name: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_metrics(name)


def test_a_bare_cutoff_after_a_parametrised_name_keeps_its_parameter() -> None:
    assert [s.name for s in parse_metrics("rbp(0.5)@5,10 ncrr@1,2")] == [
        "rbp(0.5)@5", "rbp(0.5)@10", "ncrr@1", "ncrr@2"]


def test_the_default_parameter_written_out_is_the_same_metric() -> None:
    (a,) = parse_metrics("rbp(0.8)@10")
    (b,) = parse_metrics("rbp@10")
    (c,) = parse_metrics("rbp(0.80)@10")
    assert a == b == c


# -- degenerate queries --------------------------------------------------------------------------

def test_auc_of_tied_relevant_and_non_relevant_documents_is_one_half() -> None:
    r = evaluate([1, 0, 0, 1], [0.3, 0.3, 0.3, 0.3], group=[4], metrics="auc gauc")
    assert r.metrics["auc"] == 0.5
    assert r.metrics["gauc"] == 0.5


def test_gauc_of_only_one_class_queries_is_nan_not_a_crash() -> None:
    r = evaluate([1, 1, 0, 0], [0.1, 0.2, 0.3, 0.4], group=[2, 2], metrics="gauc",
                 profile="lightgbm", per_query=True)
    assert math.isnan(r.metrics["gauc"])
    # LightGBM's own auc is one AUC over every row (queries ignored): not ltrbench's auc
    with pytest.raises(ConfigError, match="gauc"):
        evaluate([1, 1, 0, 0], [0.1, 0.2, 0.3, 0.4], group=[2, 2], metrics="auc",
                 profile="lightgbm")


def test_fallout_of_a_query_without_a_non_relevant_document_is_blank() -> None:
    r = evaluate([1, 1, 0], [3, 2, 1], group=[2, 1], metrics="fallout@1", per_query=True)
    table = r.per_query
    assert table is not None
    assert math.isnan(table["fallout@1"][0])  # all relevant: 0/0, left out (ltrbench)
    assert table["fallout@1"][1] == 1.0  # no relevant document: fall-out is still defined


def test_gm_map_floors_a_zero_ap_at_min_geo_mean() -> None:
    # the relevant document is unranked by the scores? no: ranked last of 10000 -> AP 1e-4
    labels = np.zeros(100_000)
    labels[-1] = 1
    scores = -np.arange(100_000, dtype=np.float64)
    r = evaluate(labels, scores, group=[100_000], metrics="gm_map map", profile="trec_eval")
    assert r.metrics["map"] == pytest.approx(1e-5)
    assert r.metrics["gm_map"] == pytest.approx(1e-5)  # max(1e-5, 1e-5)
    blank = evaluate([0, 0], [1, 2], group=[2], metrics="gm_map", profile="trec_eval")
    assert blank.metrics["gm_map"] == pytest.approx(1e-5)  # trec_eval: log(MIN_GEO_MEAN)


def test_counts_are_summed_over_every_query_weights_and_exclusion_aside() -> None:
    labels, scores, sizes = [1, 0, 0, 0, 0], [5, 4, 3, 2, 1], [2, 3]
    for profile in ("ltrbench", "lightgbm", "trec_eval"):
        r = evaluate(labels, scores, group=sizes, metrics="num_ret num_rel num_rel_ret",
                     profile=profile, weights=[3.0, 0.5])
        assert r.metrics["num_ret"] == 5.0, profile  # the blank query counts (ltrbench)
        assert r.metrics["num_rel"] == 1.0, profile
        assert r.metrics["num_rel_ret"] == 1.0, profile


def test_rbp_of_a_long_list_with_persistence_near_one_stays_finite() -> None:
    n = 200_000
    labels = np.ones(n)
    r = evaluate(labels, -np.arange(n, dtype=np.float64), group=[n],
                 metrics="rbp(0.99999) rbp_residual(0.99999)")
    total = r.metrics["rbp(0.99999)"] + r.metrics["rbp_residual(0.99999)"]
    assert total == pytest.approx(1.0, abs=1e-9)  # relevant everywhere + the tail = 1
    assert 0.86 < r.metrics["rbp(0.99999)"] < 0.87  # 1 - 0.99999^200000 = 1 - e^-2


def test_iprec_at_recall_zero_is_the_best_precision_anywhere() -> None:
    r = evaluate([0, 1, 0, 1, 1], [5, 4, 3, 2, 1], group=[5],
                 metrics="trec_eval:iprec_at_recall(0.0)")
    assert r.metrics["trec_eval:iprec_at_recall(0.0)"] == pytest.approx(3 / 5)


def test_one_document_queries() -> None:
    r = evaluate([1, 0], [1.0, 1.0], group=[1, 1], profile="trec_eval", per_query=True,
                 metrics="ncrr rbp auc f1@5 fallout@5 rprec@3 infap set_map")
    table = r.per_query
    assert table is not None
    row = table.iloc[0]
    assert (row["ncrr"], row["rbp"], row["f1@5"], row["rprec@3"], row["infap"]) == (
        1.0, pytest.approx(0.2), pytest.approx(2 / 6), 1.0, 1.0)
    assert row["set_map"] == 1.0
    assert table["fallout@5"][1] == 1.0  # the non-relevant document retrieved: 1 of 1


# -- the decomposable form -----------------------------------------------------------------------

def test_combined_parts_give_the_single_evaluation_for_sums_geometric_and_document_means() -> None:
    from bench.metrics import get_profile
    from bench.metrics.evaluate import query_parts
    from bench.metrics.validate import prepare

    rng = np.random.default_rng(3)
    sizes = rng.integers(1, 9, size=30)
    labels = rng.integers(0, 2, size=int(sizes.sum())).astype(np.float64)
    scores = rng.normal(size=labels.shape[0])
    # lightgbm's profile (blank queries score 1) refuses `auc` (LightGBM's auc is one AUC over
    # every row): the per-query auc mean is combined under ltrbench's profile
    for name, metrics in (("lightgbm", "num_ret num_rel_ret gm_map gauc rbp@5"),
                          ("ltrbench", "num_ret num_rel_ret gm_map gauc auc rbp@5")):
        specs = parse_metrics(metrics)
        prof = get_profile(name)
        whole = evaluate(labels, scores, group=sizes, metrics=metrics, profile=prof)
        cut = int(sizes[:12].sum())
        parts = [query_parts(prepare(labels[a:b], scores[a:b], qid=None, group=g, weights=None),
                             specs, prof)
                 for a, b, g in ((0, cut, sizes[:12]), (cut, labels.shape[0], sizes[12:]))]
        merged = summarise(combine(parts), specs, prof)
        for s in specs:
            assert merged.metrics[s.name] == pytest.approx(whole.metrics[s.name],
                                                           abs=1e-12), (name, s.name)
