"""``map`` under the ``sklearn`` profiles is scikit-learn's ``average_precision_score`` of each
query, tied scores included: a tied group is one threshold (``Profile.ap_ties="threshold"``),
not the average over its orders. The oracle is scikit-learn itself, query by query."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.errors import ConfigError
from bench.metrics import evaluate

sk_metrics = pytest.importorskip("sklearn.metrics")


def _sklearn_ap(y: np.ndarray, s: np.ndarray) -> float:
    with warnings.catch_warnings():  # a query without a relevant document: sklearn warns, 0
        warnings.simplefilter("ignore")
        return float(sk_metrics.average_precision_score((y >= 1).astype(int), s))


def test_a_tied_group_is_one_threshold_as_in_average_precision_score() -> None:
    # labels 1, 0, 0, 1 scored 0.5, 0.5, 0.5, 0.1: (1/3 * 1/2) + (2/4 * 1/2) by hand
    y, s = np.array([1, 0, 0, 1]), np.array([0.5, 0.5, 0.5, 0.1])
    got = evaluate(y, s, qid=np.zeros(4, int), metrics="map", profile="sklearn").metrics["map"]
    assert got == pytest.approx(1 / 6 + 1 / 4, abs=1e-15)
    assert got == pytest.approx(_sklearn_ap(y, s), abs=1e-15)
    # the averaged tie rule of the default profile gives the mean over the 3 orders: 0.5556
    mean = evaluate(y, s, qid=np.zeros(4, int), metrics="map").metrics["map"]
    assert mean == pytest.approx((0.75 + 0.5 + (1 / 3 + 0.5) / 2) / 3, abs=1e-15)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 3)), min_size=1,
                         max_size=9), min_size=1, max_size=6))
def test_every_query_equals_average_precision_score(queries: list[list[tuple[int, int]]]) -> None:
    y = np.array([lab for q in queries for lab, _ in q], dtype=float)
    s = np.array([sc for q in queries for _, sc in q], dtype=float) / 4  # few values: ties
    qid = np.repeat(np.arange(len(queries)), [len(q) for q in queries])
    for profile in ("sklearn", "sklearn-ignore-ties"):
        got = evaluate(y, s, qid=qid, metrics="map", profile=profile, per_query=True)
        assert got.per_query is not None
        per_q = got.per_query["map"].to_numpy()
        want = [_sklearn_ap(y[qid == i], s[qid == i]) for i in range(len(queries))]
        np.testing.assert_allclose(per_q, want, rtol=0, atol=1e-12)
        assert got.metrics["map"] == pytest.approx(float(np.mean(want)), abs=1e-12)


def test_the_compiled_kernel_is_refused_for_it_and_still_computes_ndcg() -> None:
    y, s, q = np.array([1, 0, 1]), np.array([0.2, 0.2, 0.1]), np.zeros(3, int)
    with pytest.raises(ConfigError, match=r"backend 'numba' averages AP over tied orders; "
                                          r"profile 'sklearn' .* use backend='numpy'"):
        evaluate(y, s, qid=q, metrics="map", profile="sklearn", backend="numba")
    nd = evaluate(y, s, qid=q, metrics="ndcg@3", profile="sklearn", backend="numba")
    want = sk_metrics.ndcg_score([y], [s], k=3)
    assert nd.metrics["ndcg@3"] == pytest.approx(want, abs=1e-12)


def test_an_unknown_ap_tie_rule_is_refused_naming_the_choices() -> None:
    from bench.metrics.profile import Profile

    with pytest.raises(ConfigError,
                       match=r"unknown ap_ties 'steps'; did you mean 'ties'\? valid: ties, threshold"):
        Profile(name="mine", ap_ties="steps")
