"""Metric names and profiles: parsing, expansion, the named profiles' fields."""

from __future__ import annotations

import dataclasses
import math

import pytest

from bench.errors import ConfigError
from bench.metrics import PROFILES, MetricSpec, Profile, evaluate, get_profile, parse_metrics
from bench.metrics.families import FAMILIES, metric_header


def test_a_list_of_cutoffs_expands_and_continues_the_previous_family() -> None:
    names = [s.name for s in parse_metrics("ndcg@1,3,5,10,map@10 mrr")]
    assert names == ["ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10", "map@10", "mrr"]


def test_names_are_case_insensitive_aliases_are_canonical_and_duplicates_dropped() -> None:
    """Canonical names fold case and aliases; the keys stay the user's spellings, so two
    spellings of one metric both answer (issue 19) and only a repeated spelling is dropped."""
    specs = parse_metrics(["NDCG@10", "precision@5", "P@5", "recip_rank", "hit_rate@3", "ap",
                           "ap"])
    assert [s.name for s in specs] == ["ndcg@10", "p@5", "p@5", "mrr", "hits@3", "map"]
    assert [s.key for s in specs] == ["NDCG@10", "precision@5", "P@5", "recip_rank",
                                      "hit_rate@3", "ap"]
    assert specs[-1] == MetricSpec("map", None, "map")


def test_pointwise_metrics_take_no_cutoff_and_no_bare_number_follows_them() -> None:
    assert [s.pointwise for s in parse_metrics("rmse mae ndcg")] == [True, True, False]
    with pytest.raises(ConfigError, match="does not follow a ranking metric"):
        parse_metrics("rmse,5")
    with pytest.raises(ConfigError, match="does not follow a ranking metric"):
        parse_metrics("5")


def test_zero_cutoff_and_empty_lists_are_errors() -> None:
    with pytest.raises(ConfigError, match=r"cutoff must be an integer in 1\.\.2147483647"):
        parse_metrics("ndcg@0")


def test_cutoffs_beyond_int32_and_non_ascii_digits_are_config_errors_not_overflow() -> None:
    with pytest.raises(ConfigError, match=r"1\.\.2147483647, got ndcg@100000000000000000000"):
        parse_metrics("ndcg@100000000000000000000")
    assert parse_metrics("ndcg@2147483647")[0].k == 2147483647
    with pytest.raises(ConfigError, match="unknown metric 'ndcg@\u0663'"):
        parse_metrics("ndcg@\u0663")
    with pytest.raises(ConfigError, match="unknown metric '\u00b2'"):
        parse_metrics("ndcg,\u00b2")
    with pytest.raises(ConfigError, match="no metric names given"):
        parse_metrics(" , ")


def test_the_named_profiles_are_the_ones_of_the_design() -> None:
    assert list(PROFILES) == ["ltrbench", "lightgbm", "xgboost", "xgboost-", "sklearn",
                              "trec_eval", "ranx", "catboost", "letor4", "trec_eval-c",
                              "gdeval", "ranx-burges", "sklearn-ignore-ties", "torchmetrics",
                              "recbole", "recommenders", "msmarco", "tf-ranking", "allrank",
                              "allrank@1.4.0", "catalyst", "catalyst-linear", "cornac",
                              "pytorchltr", "pytorchltr-linear", "ignite", "ignite-zero-hits",
                              "ignite-linear", "xgboost@1.7", "xgboost@1.7-"]
    for name, prof in PROFILES.items():
        assert prof.name == name
        assert prof.description
        assert get_profile(name.upper()) is prof


def test_the_default_profile_is_exp2_log2_average_ties_blank_excluded() -> None:
    p = get_profile("ltrbench")
    assert (p.gain, p.discount, p.ties, p.empty, p.idcg_basis, p.map_denominator,
            p.precision_denominator, p.relevance_threshold, p.score_dtype) == (
        "exp2", "log2", "average", None, "list", "min_r_k", "k", 1.0, "float64")


def test_a_profile_changed_one_field_at_a_time_explains_a_difference() -> None:
    """LightGBM vs ltrbench on one tied query: only the tie rule differs here."""
    y, s = [0, 1], [0.5, 0.5]
    lgb = get_profile("lightgbm")
    assert evaluate(y, s, group=[2], metrics="ndcg@1", profile=lgb).metrics["ndcg@1"] == 0.0
    avg = dataclasses.replace(lgb, ties="average")
    assert evaluate(y, s, group=[2], metrics="ndcg@1", profile=avg).metrics["ndcg@1"] == 0.5


def test_xgboost_bare_names_are_truncated_at_32() -> None:
    """40 documents, the only relevant one at rank 35: XGBoost's bare 'ndcg' is NDCG@32 = 0."""
    y = [0.0] * 40
    y[34] = 1.0
    s = list(range(40, 0, -1))
    r = evaluate(y, s, group=[40], metrics="ndcg ndcg@40 map p", profile="xgboost").metrics
    assert r["ndcg"] == 0.0
    assert r["map"] == 0.0
    assert r["p"] == 0.0
    assert r["ndcg@40"] == pytest.approx(1 / math.log2(36))


def test_describe_is_json_ready() -> None:
    d = get_profile("letor4").describe()
    assert d["gain"] == [0.0, 1.0, 3.0]
    assert d["name"] == "letor4"
    assert isinstance(Profile(name="x").describe()["ties"], str)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_table_header_parses_back_to_the_same_metric_under_the_call_profile(
        family: str) -> None:
    """Leaderboard headers (NDCG@10, MAP@10, MRR, P@10, R@10, ...) are ltrbench names."""
    fam = FAMILIES[family]
    head = family + ("(0.5)" if fam.param is not None and fam.param.default is None else "")
    names = [head] + ([f"{head}@10"] if fam.cutoff and fam.ranking else [])
    for name in names:
        (spec,) = parse_metrics(metric_header(name))
        assert (spec.name, spec.family, spec.profile, spec.overrides) == (name, family, None, ()), \
            metric_header(name)


def test_ir_measures_and_trec_eval_spellings_of_the_headers_stay_ltrbench() -> None:
    """R@10 is recall@10 (not ir_measures' R under trec_eval), P@5 is p@5, MAP is map."""
    specs = parse_metrics("R@10 P@5 MAP MRR NDCG@10")
    assert [(s.name, s.profile) for s in specs] == [
        ("recall@10", None), ("p@5", None), ("map", None), ("mrr", None), ("ndcg@10", None)]
