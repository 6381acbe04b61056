"""Invariants of the evaluator, checked with hypothesis on generated queries."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from metrics_oracles import evaluate_oracle

from bench.metrics import PROFILES, evaluate, get_profile

METRICS = "ndcg@1,3,10 ndcg map@5 map mrr p@3 recall@5 err@5 hits@2"
_SETTINGS = settings(max_examples=60, deadline=None)


@st.composite
def queries(draw: st.DrawFn, max_queries: int = 6, max_size: int = 7, max_label: int = 4):  # type: ignore[no-untyped-def]
    """Integer-valued scores (many ties) and labels, in query groups."""
    sizes = draw(st.lists(st.integers(1, max_size), min_size=1, max_size=max_queries))
    n = sum(sizes)
    labels = draw(st.lists(st.integers(0, max_label), min_size=n, max_size=n))
    scores = draw(st.lists(st.integers(-6, 6), min_size=n, max_size=n))
    return np.array(labels, float), np.array(scores, float), np.array(sizes)


@_SETTINGS
@given(queries(), st.sampled_from(sorted(PROFILES)))
def test_ndcg_is_between_0_and_1_in_every_profile(q, profile: str) -> None:  # type: ignore[no-untyped-def]
    y, s, g = q
    if profile.startswith("xgboost") or PROFILES[profile].max_label == 1:
        y = (y > 0).astype(float)  # profiles of binary relevance refuse graded labels
    r = evaluate(y, s, group=g, metrics="ndcg@1,3,10 ndcg", profile=profile, per_query=True)
    assert r.per_query is not None
    values = r.per_query.drop(columns="qid").to_numpy()
    values = values[~np.isnan(values)]
    assert np.all(values >= 0)
    assert np.all(values <= 1 + 1e-12)


@_SETTINGS
@given(queries())
def test_scores_in_label_order_give_ndcg_1(q) -> None:  # type: ignore[no-untyped-def]
    y, _, g = q
    has_rel = np.maximum.reduceat(y, np.r_[0, np.cumsum(g)[:-1]]) > 0
    for profile in ("ltrbench", "lightgbm", "sklearn", "trec_eval"):
        r = evaluate(y, y, group=g, metrics="ndcg@1,3 ndcg", profile=profile, per_query=True)
        assert r.per_query is not None
        values = r.per_query.drop(columns="qid").to_numpy()
        # blank queries aside, the ideal order reaches the ideal DCG
        np.testing.assert_allclose(values[has_rel], 1.0, rtol=0, atol=1e-12)


@_SETTINGS
@given(queries(), st.sampled_from(["ltrbench", "lightgbm", "trec_eval", "letor4"]))
def test_a_strictly_increasing_transform_of_scores_changes_nothing(q, profile: str) -> None:  # type: ignore[no-untyped-def]
    y, s, g = q
    t = s**3 + 5.0 * s - 7.0  # exact for these small integers, strictly increasing
    a = evaluate(y, s, group=g, metrics=METRICS, profile=profile, per_query=True).per_query
    b = evaluate(y, t, group=g, metrics=METRICS, profile=profile, per_query=True).per_query
    assert a is not None
    assert b is not None
    assert a.equals(b)


@_SETTINGS
@given(queries(), st.randoms(use_true_random=False))
def test_average_ties_make_row_order_inside_a_query_irrelevant(q, rnd) -> None:  # type: ignore[no-untyped-def]
    y, s, g = q
    perm = np.concatenate([start + np.array(rnd.sample(range(int(size)), int(size)))
                           for start, size in zip(np.r_[0, np.cumsum(g)[:-1]], g, strict=True)])
    a = evaluate(y, s, group=g, metrics=METRICS, per_query=True).per_query
    b = evaluate(y[perm], s[perm], group=g, metrics=METRICS, per_query=True).per_query
    assert a is not None
    assert b is not None
    np.testing.assert_allclose(a.to_numpy(float), b.to_numpy(float), rtol=0, atol=1e-12)


@_SETTINGS
@given(queries(max_queries=4, max_size=6), st.sampled_from(["ltrbench", "lightgbm", "sklearn", "letor4"]))
def test_fast_path_equals_the_slow_per_query_implementation(q, profile: str) -> None:  # type: ignore[no-untyped-def]
    y, s, g = q
    # the compiled kernel's AP takes ties by the tie rule (sklearn's thresholds: NumPy's alone)
    prof = replace(get_profile(profile), ap_ties="ties")
    r = evaluate(y, s, group=g, metrics=METRICS, profile=prof, per_query=True,
                 backend="numba")  # auto: interpreted on small inputs while numba is unloaded
    assert r.diagnostics.backend == "numba"
    assert r.per_query is not None
    _, per_q = evaluate_oracle(y, s, g, METRICS, prof)
    for name, values in per_q.items():
        np.testing.assert_allclose(r.per_query[name].to_numpy(), values, rtol=0, atol=1e-12,
                                   err_msg=name)
