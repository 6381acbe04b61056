"""Hostile inputs for ARP, OPA and GAUC's weights (``bench/metrics/kernels/pairs.py``).

Each case is an input a user may well give: real-valued labels (one OPA pass per label value
would be quadratic), one long query, scores equal only in float32, weights that cancel,
non-finite scores, negative labels beside padding, TREC negative judgments, a query of padding
only, a cut run, a qualified metric beside the plain one, every query blank.
"""

from __future__ import annotations

import dataclasses
import math
import time
import warnings

import numpy as np
import pytest

from bench.errors import ConfigError, DataError
from bench.metrics import evaluate, evaluate_trec
from bench.metrics.kernels.pairs import opa_sums
from bench.metrics.profiles import PROFILES

CONTINUOUS = dataclasses.replace(PROFILES["ltrbench"], integer_labels=False, gain="linear",
                                 max_label=None, name="continuous")


def _brute_opa(labels: np.ndarray, scores: np.ndarray) -> float:
    """Correct pairs / pairs of one query, ties 1/2, by an O(n^2) NumPy outer comparison."""
    higher = labels[:, None] > labels[None, :]
    above = scores[:, None] > scores[None, :]
    tied = scores[:, None] == scores[None, :]
    return float(np.sum(higher & above) + 0.5 * np.sum(higher & tied)) / float(np.sum(higher))


def test_real_valued_labels_do_not_cost_one_pass_per_label_value() -> None:
    rng = np.random.default_rng(0)
    n = 200_000
    labels, scores = rng.random(n), rng.random(n)
    qid = np.repeat(np.arange(n // 100), 100)
    start = time.perf_counter()
    got = evaluate(labels, scores, qid=qid, metrics="opa", profile=CONTINUOUS, per_query=True)
    assert time.perf_counter() - start < 30.0
    assert got.per_query is not None
    for q in (0, 777, 1999):
        rows = slice(100 * q, 100 * q + 100)
        assert got.per_query["opa"][q] == pytest.approx(_brute_opa(labels[rows], scores[rows]),
                                                        abs=1e-12)


def test_one_long_query_of_real_valued_labels_and_tied_scores() -> None:
    rng = np.random.default_rng(1)
    labels = rng.random(3000)
    scores = rng.integers(0, 50, 3000).astype(np.float64)  # many ties
    got = evaluate(labels, scores, qid=np.zeros(3000, dtype=int), metrics="opa",
                   profile=CONTINUOUS)
    assert got.metrics["opa"] == pytest.approx(_brute_opa(labels, scores), abs=1e-12)


@pytest.mark.parametrize("rule", ["order", "half", "wrong"])
def test_the_merge_count_and_the_level_passes_give_the_same_integers(rule: str) -> None:
    rng = np.random.default_rng(2)
    for _ in range(100):
        sizes = rng.integers(1, 12, rng.integers(1, 8))
        off = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        gidx = np.repeat(np.arange(sizes.shape[0]), sizes)
        ys = rng.integers(0, rng.integers(1, 7), off[-1]).astype(np.float64)
        ss = rng.integers(0, 3, off[-1]).astype(np.float64)
        order = np.lexsort((-ss, gidx))
        a = opa_sums(gidx, ss[order], ys[order], off, rule, merge=False)  # type: ignore[arg-type]
        b = opa_sums(gidx, ss[order], ys[order], off, rule, merge=True)  # type: ignore[arg-type]
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])


def test_scores_equal_in_float32_tie_where_the_profile_rounds_them() -> None:
    labels, scores, qid = np.array([1.0, 0.0]), np.array([1.0 + 1e-9, 1.0]), np.zeros(2, int)
    assert evaluate(labels, scores, qid=qid, metrics="opa", profile="tf-ranking"
                    ).metrics["opa"] == 0.0  # tied in float32, and TF-Ranking counts it wrong
    assert evaluate(labels, scores, qid=qid, metrics="opa", profile="pytorchltr"
                    ).metrics["opa"] == 0.5  # tied in float32, averaged
    assert evaluate(labels, scores, qid=qid, metrics="opa").metrics["opa"] == 1.0  # float64


@pytest.mark.parametrize(("scores", "error"), [
    ([np.inf, np.inf, 1.0], DataError), ([np.nan, 1.0, 1.0], DataError)])
def test_non_finite_scores_are_refused(scores: list[float], error: type[Exception]) -> None:
    with pytest.raises(error, match="finite"):
        evaluate(np.array([2.0, 1.0, 0.0]), np.array(scores), qid=np.zeros(3, dtype=int),
                 metrics="opa arp")


def test_weights_that_add_up_to_zero_are_refused_not_a_pooled_zero_over_zero() -> None:
    with pytest.raises(DataError, match="add up to 0"):
        evaluate(np.array([1.0, 0, 1, 0]), np.array([2.0, 1, 2, 1]), qid=np.array([0, 0, 1, 1]),
                 weights=[0.0, 0.0], metrics="opa arp", profile="tf-ranking")


def test_a_negative_label_is_an_error_unless_the_profile_calls_it_padding() -> None:
    labels, scores = np.array([-1.0, 1.0, 0.0]), np.array([3.0, 2.0, 1.0])
    with pytest.raises(DataError, match="negative"):
        evaluate(labels, scores, qid=np.zeros(3, dtype=int), metrics="opa arp")
    got = evaluate(labels, scores, qid=np.zeros(3, dtype=int), metrics="opa arp",
                   profile="tf-ranking")
    assert got.metrics == pytest.approx({"opa": 1.0, "arp": 1.0})


def test_a_list_of_padding_only_weighs_nothing_in_tf_rankings_pooled_mean() -> None:
    labels = np.array([-1.0, -1.0, 2.0, 0.0])
    scores = np.array([5.0, 4.0, 1.0, 2.0])
    got = evaluate(labels, scores, qid=np.array([0, 0, 1, 1]), metrics="opa arp",
                   profile="tf-ranking")
    assert got.metrics == pytest.approx({"opa": 0.0, "arp": 2.0})


def test_trec_negative_judgments_and_unjudged_documents_are_label_zero() -> None:
    qrels = {"q": {"a": -1, "b": 2, "c": 1}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0, "d": 0.5}}
    got = evaluate_trec(qrels, run, metrics=["arp", "opa"], profile="trec_eval")
    assert got.metrics["arp"] == pytest.approx((2 * 2 + 1 * 3) / 3, abs=1e-12)
    assert got.metrics["opa"] == pytest.approx(3 / 5, abs=1e-12)  # b>c, b>d, c>d of 5 pairs


def test_a_cut_run_ranks_only_its_top_documents() -> None:
    qrels = {"q": {"a": 0, "b": 1, "c": 2}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    cut = dataclasses.replace(PROFILES["trec_eval"], run_depth=2, name="trec_eval-M2")
    got = evaluate_trec(qrels, run, metrics=["arp", "opa"], profile=cut)
    assert got.metrics["arp"] == pytest.approx(2.0, abs=1e-12)  # only b (rank 2) is left
    assert got.metrics["opa"] == 0.0  # b over a, reversed


def test_a_qualified_metric_keeps_its_profiles_conventions_beside_the_plain_one() -> None:
    labels = np.array([0.0, 0.0, 1.0, 0.0, 1.0, 2.0])
    scores = np.array([1.0, 3.0, 1.0, 1.0, 2.0, 3.0])
    got = evaluate(labels, scores, qid=np.array([0, 0, 0, 1, 1, 1]),
                   metrics="opa tf-ranking:opa")
    assert got.metrics["opa"] == pytest.approx((1 / 4 + 1) / 2)  # tie 1/2, per-query mean
    assert got.metrics["tf-ranking:opa"] == pytest.approx((0 + 3) / (2 + 3), abs=1e-6)


def test_every_query_blank_gives_nan_not_an_error_nor_a_number() -> None:
    n = 10_000
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = evaluate(np.ones(n), np.arange(n, dtype=np.float64), qid=np.arange(n),
                       metrics="opa gauc", profile="tf-ranking")
    assert math.isnan(got.metrics["opa"])
    assert math.isnan(got.metrics["gauc"])


@pytest.mark.parametrize("name", ["arp@5", "opa@3", "opa(0.5)", "arp(2)"])
def test_a_cutoff_or_a_parameter_on_arp_or_opa_is_refused(name: str) -> None:
    with pytest.raises(ConfigError, match=r"arp|opa|param"):
        evaluate(np.array([1.0, 0.0]), np.array([1.0, 0.0]), qid=np.zeros(2, dtype=int),
                 metrics=name)


def test_nonpositive_scores_still_rank_in_arp_and_opa() -> None:
    got = evaluate(np.array([1.0, 0.0]), np.array([-1.0, -2.0]), qid=np.zeros(2, dtype=int),
                   metrics="arp opa", profile="torchmetrics")
    assert got.metrics == pytest.approx({"arp": 1.0, "opa": 1.0})
