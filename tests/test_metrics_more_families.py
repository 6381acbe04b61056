"""Issue 23's families on labelled rows (``evaluate``): counts, set_map, gm_map, F1@k,
fall-out@k, rprec@k, Rprec_mult, iprec_at_recall, RBP and its residual, NCRR, AUC and GAUC.

Golden values: the slow per-query oracle (``metrics_oracles``: textbook loops, every order of
every tied group), sklearn ``roc_auc_score`` (AUC, GAUC), ranx ``f1`` and hand arithmetic from
the papers (Moffat & Zobel 2008 for RBP, cornac's NCRR). The random inputs hold ties,
single-document queries and queries without a relevant document.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from metrics_oracles import evaluate_oracle, random_queries

from bench.errors import ConfigError
from bench.metrics import evaluate, get_profile, parse_metrics
from bench.metrics.families import FAMILIES
from bench.metrics.more_families import more_families

TOL = 1e-12
_COMMON = ("num_ret num_rel num_rel_ret set_map gm_map f1@3 f1 fallout@3 fallout rprec@2 rprec "
           "rprec_mult(0.5) rprec_mult(1.5) rbp@5 rbp(0.5) rbp_residual@3 rbp_residual(0.9) "
           "ncrr@3 ncrr auc gauc")
_ORDERED = " iprec_at_recall(0.0) iprec_at_recall(0.3) iprec_at_recall(1.0) infap"


def _check(labels: np.ndarray, scores: np.ndarray, sizes: np.ndarray, metrics: str, profile: str,
           backend: str) -> None:
    prof = get_profile(profile)
    if profile in ("lightgbm", "xgboost"):  # their own auc is another metric: refused (round 22)
        metrics = metrics.replace(" auc gauc", " gauc")
    if backend != "numpy":  # the label-table kernels' AP: the tie rule's (scikit-learn's
        prof = replace(prof, ap_ties="ties")  # thresholds are the NumPy kernel's alone)
    ours = evaluate(labels, scores, group=sizes, metrics=metrics, profile=prof,
                    per_query=True, backend=backend)
    means, per_q = evaluate_oracle(labels, scores, sizes, metrics, prof)
    table = ours.per_query
    assert table is not None
    for spec in parse_metrics(metrics):
        np.testing.assert_allclose(table[spec.name].to_numpy(), per_q[spec.name], rtol=0,
                                   atol=TOL, err_msg=f"{profile} {spec.name}")
        m = means[spec.name]
        assert (math.isnan(m) and math.isnan(ours.metrics[spec.name])) or \
            ours.metrics[spec.name] == pytest.approx(m, abs=1e-10), spec.name


@pytest.mark.parametrize("backend", ["numba", "numpy", "python"])
@pytest.mark.parametrize("profile", ["ltrbench", "trec_eval", "lightgbm", "xgboost", "sklearn"])
def test_new_families_equal_the_slow_oracle_per_query_with_ties_and_blank_queries(
        profile: str, backend: str) -> None:
    rng = np.random.default_rng(23)
    labels, scores, sizes = random_queries(rng, 40, max_size=7, max_label=3)
    assert (sizes == 1).any()
    metrics = _COMMON + ("" if profile in ("ltrbench", "sklearn") else _ORDERED)
    _check(labels, scores, sizes, metrics, profile, backend)


def test_new_families_on_continuous_scores_equal_the_oracle() -> None:
    rng = np.random.default_rng(5)
    labels, scores, sizes = random_queries(rng, 30, max_size=12, score_levels=None, binary=True)
    _check(labels, scores, sizes, _COMMON + _ORDERED, "lightgbm", "numba")


def test_auc_per_query_equals_sklearn_roc_auc_score_ties_included() -> None:
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(7)
    labels, scores, sizes = random_queries(rng, 60, max_size=9, binary=True, score_levels=3)
    r = evaluate(labels, scores, group=sizes, metrics="auc gauc", per_query=True)
    table = r.per_query
    assert table is not None
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    want, weights = [], []
    for q, (a, n) in enumerate(zip(starts, sizes, strict=True)):
        y, s = labels[a:a + n], scores[a:a + n]
        if 0 < y.sum() < n:
            v = roc_auc_score(y, s)
            want.append(v)
            weights.append(n)
            assert table["auc"][q] == pytest.approx(v, abs=TOL)
            assert table["gauc"][q] == pytest.approx(v, abs=TOL)
        else:  # one class: AUC is 0/0, left out (ltrbench: empty=None); GAUC skips it always
            assert math.isnan(table["auc"][q])
            assert math.isnan(table["gauc"][q])
    assert len(want) >= 20
    assert len(want) < len(sizes)
    assert r.metrics["auc"] == pytest.approx(np.mean(want), abs=TOL)
    assert r.metrics["gauc"] == pytest.approx(np.average(want, weights=weights), abs=TOL)


def test_gauc_skips_one_class_queries_even_where_the_profile_scores_blank_queries() -> None:
    # query 1: AUC 1 (2 documents); query 2: no relevant document; query 3: AUC 0.5 (4 docs)
    labels = [1, 0, 0, 0, 1, 0, 1, 0, 0]
    scores = [2, 1, 5, 4, 1, 1, 3, 3, 0]
    sizes = [2, 2, 5]
    for profile in ("ltrbench", "lightgbm", "trec_eval"):
        r = evaluate(labels, scores, group=sizes, metrics="gauc", profile=profile)
        # query 3: relevant scores 1, 3 against 1, 3, 0: (0.5 + 0 + 1) + (1 + 0.5 + 1) = 4 of 6
        assert r.metrics["gauc"] == pytest.approx((2 * 1.0 + 5 * 4 / 6) / 7, abs=TOL), profile
    # LightGBM's own auc is one AUC over every row: ltrbench's per-query auc is refused under its
    # profile (round 22); a blank query scored 1 still counts in auc's mean (not in gauc's)
    with pytest.raises(ConfigError, match="LightGBM's auc"):
        evaluate(labels, scores, group=sizes, metrics="auc", profile="lightgbm")
    assert evaluate(labels, scores, group=sizes, metrics="auc",
                    profile=replace(get_profile("ltrbench"), empty=1.0)).metrics["auc"] == \
        pytest.approx((1 + 1 + 4 / 6) / 3)


def test_f1_at_k_equals_ranx() -> None:
    ranx = pytest.importorskip("ranx")
    rng = np.random.default_rng(11)
    labels, scores, sizes = random_queries(rng, 30, max_size=10, score_levels=None, binary=True,
                                           blank_rate=0.0)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    keep = [q for q, (a, n) in enumerate(zip(starts, sizes, strict=True)) if labels[a:a + n].any()]
    qrels = {f"q{q:03d}": {f"d{i}": int(labels[starts[q] + i]) for i in range(sizes[q])
                       if labels[starts[q] + i] > 0} for q in keep}
    run = {f"q{q:03d}": {f"d{i}": float(scores[starts[q] + i]) for i in range(sizes[q])} for q in keep}
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), ["f1@3", "f1@5"], return_mean=False)
    sel = np.concatenate([np.arange(starts[q], starts[q] + sizes[q]) for q in keep])
    ours = evaluate(labels[sel], scores[sel], group=sizes[keep], metrics="f1@3 f1@5",
                    profile="ranx", per_query=True).per_query
    assert ours is not None
    for name in ("f1@3", "f1@5"):
        np.testing.assert_allclose(ours[name].to_numpy(), theirs[name], rtol=0, atol=TOL)


def test_rbp_and_its_residual_by_hand() -> None:
    """Moffat & Zobel (TOIS 2008) eq. 6: RBP = (1 - p) sum_i r_i p^(i-1); the residual adds
    p^d for the ranks below the evaluated depth d (section 5)."""
    # relevant at ranks 1 and 3 of 4, p = 0.5: 0.5 (1 + 0.25) = 0.625
    r = evaluate([1, 0, 1, 0], [4, 3, 2, 1], group=[4],
                 metrics="rbp(0.5) rbp(0.5)@2 rbp_residual(0.5)@3 rbp_residual(0.5) rbp@2")
    assert r.metrics["rbp(0.5)"] == pytest.approx(0.625, abs=TOL)
    assert r.metrics["rbp(0.5)@2"] == pytest.approx(0.5, abs=TOL)
    assert r.metrics["rbp_residual(0.5)@3"] == pytest.approx(0.125, abs=TOL)
    assert r.metrics["rbp_residual(0.5)"] == pytest.approx(0.0625, abs=TOL)
    assert r.metrics["rbp@2"] == pytest.approx(0.2, abs=TOL)  # p = 0.8: 0.2 * 1
    # a tie of the relevant rank-1 document with a non-relevant one: the mean of both orders
    tie = evaluate([1, 0, 1], [2, 2, 1], group=[3], metrics="rbp(0.5)")
    assert tie.metrics["rbp(0.5)"] == pytest.approx(0.5 * ((1 + 0.25) + (0.5 + 0.25)) / 2)


def test_ncrr_by_hand_as_cornac_writes_it() -> None:
    """cornac NCRR: sum of 1/rank over the relevant items of the top k, over
    sum_{i=1..min(R, len(top k))} 1/i."""
    r = evaluate([0, 1, 1, 0, 0, 1], [6, 5, 4, 3, 2, 1], group=[6], metrics="ncrr@5 ncrr@2 ncrr")
    assert r.metrics["ncrr@5"] == pytest.approx((1 / 2 + 1 / 3) / (1 + 1 / 2 + 1 / 3), abs=TOL)
    assert r.metrics["ncrr@2"] == pytest.approx((1 / 2) / (1 + 1 / 2), abs=TOL)
    assert r.metrics["ncrr"] == pytest.approx((1 / 2 + 1 / 3 + 1 / 6) / (1 + 1 / 2 + 1 / 3))


def test_fallout_and_counts_by_hand() -> None:
    # query 1: 2 relevant of 5, the top 3 holds 2 non-relevant of 3; query 2: all relevant
    labels = [1, 0, 0, 1, 0, 1, 1]
    scores = [5, 4, 3, 2, 1, 2, 1]
    r = evaluate(labels, scores, group=[5, 2], per_query=True, profile="lightgbm",
                 metrics="fallout@3 num_ret num_rel num_rel_ret set_map")
    assert r.metrics["fallout@3"] == pytest.approx((2 / 3 + 1.0) / 2)  # lightgbm: blank = 1
    assert r.metrics["num_ret"] == 7.0
    assert r.metrics["num_rel"] == 4.0
    assert r.metrics["num_rel_ret"] == 4.0
    assert r.metrics["set_map"] == pytest.approx((4 / 10 + 1.0) / 2)


def test_iprec_at_recall_is_refused_where_ties_are_averaged() -> None:
    with pytest.raises(ConfigError, match=r"one order of the documents.*trec_eval:"):
        evaluate([1, 0], [1, 1], group=[2], metrics="iprec_at_recall(0.5)")
    r = evaluate([1, 0], [1, 1], group=[2], metrics="trec_eval:iprec_at_recall(0.5)")
    assert r.metrics["trec_eval:iprec_at_recall(0.5)"] == pytest.approx(0.5)  # row 2 first


@pytest.mark.parametrize(("bad", "match"), [
    ("rbp(1.5)", r"p must be in \(0, 1\)"), ("rbp(0)", r"p must be in \(0, 1\)"),
    ("iprec_at_recall(1.2)", r"x must be in \[0, 1\]"), ("rprec_mult(0)", r"x must be in \(0"),
    ("rbp(.5.)", "decimal number"), ("RBP(p=0.5)@10", "graded RBP"), ("RBP(p=2,rel=1)", "p must be"),
    ("auc@10", "whole list"), ("num_ret@5", "whole list"), ("IPrec", "recall level"),
    ("Rprec_mult_0.1.2", "decimal number"), ("iprec_at_recall_1.5", r"x must be in"),
])
def test_bad_parameters_are_config_errors(bad: str, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        parse_metrics(bad)


@pytest.mark.parametrize("name", [
    "rbp(0.95)@10", "rbp@10", "rbp", "rbp_residual(0.5)@3", "iprec_at_recall(0.1)",
    "rprec_mult(0.2)", "rprec@10", "f1@5", "fallout@10", "ncrr@10", "auc", "gauc", "gm_map",
    "set_map", "num_ret", "num_rel", "num_rel_ret", "RBP(p=0.5,rel=1)@10", "IPrec@0.3",
    "NumRet(rel=1)", "NumRet", "SetAP", "Rprec_mult_0.40", "iprec_at_recall_0.10",
    "trec_eval:rbp(0.9)@5",
])
def test_every_new_canonical_name_parses_back_to_an_equal_spec(name: str) -> None:
    (spec,) = parse_metrics(name)
    (again,) = parse_metrics(spec.name)
    assert again == spec


def test_the_new_records_declare_a_formula_a_meaning_and_known_components() -> None:
    for name in more_families():
        fam = FAMILIES[name]
        assert fam.finish is not None, name
        assert fam.meaning, name
        assert fam.header, name
    assert FAMILIES["gm_map"].mean == "geometric"
    assert FAMILIES["gauc"].mean == "documents"
    assert {f for f, r in FAMILIES.items() if r.mean == "sum"} == {
        "num_ret", "num_rel", "num_rel_ret", "num_q"}
