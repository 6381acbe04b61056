"""The compiled kernel, the vectorised NumPy kernel and the slow per-query oracle agree.

The oracle (``tests/metrics_oracles.py``) sorts each query with ``sorted`` and, for average ties,
averages the metric over every permutation of every tied group; the two kernels compute the
same expectations in closed form.
"""

from __future__ import annotations

import dataclasses
import zlib

import numpy as np
import pytest
from metrics_oracles import evaluate_oracle, random_queries

import bench.metrics.kernels.numba_kernel as kn
from bench.metrics import evaluate, get_profile
from bench.metrics.tie_keys import random_tie_key

ALL = ("ndcg@1,3,5,20 ndcg dcg@3 map@2,5 map mrr mrr@3 p@3,20 p recall@3 err@5 err hits@1,3 hits")
TOP = "ndcg@3 map@2 mrr p@3 err@3 hits@2 recall@3 mrr@4"
TIES = ("stable", "average", "pessimistic", "optimistic", "random", "docno_desc")


def _check(y, s, g, metrics, profile, *, oracle=True, weights=None):  # type: ignore[no-untyped-def]
    # both kernels on one AP rule, the tie rule's (the sklearn profiles' thresholds are the
    # NumPy kernel's alone: tests/test_metrics_sklearn_average_precision.py)
    profile = dataclasses.replace(profile, ap_ties="ties")
    offsets = np.concatenate([[0], np.cumsum(g)]).astype(np.int64)  # each query's own draw
    tiekey = random_tie_key(offsets, profile.tie_seed) if profile.ties == "random" else None
    res = {b: evaluate(y, s, group=g, metrics=metrics, profile=profile, backend=b,
                       per_query=True, weights=weights) for b in ("numba", "numpy")}
    assert res["numba"].diagnostics.backend == "numba"
    assert res["numpy"].diagnostics.backend == "numpy"
    if oracle:
        qw = None
        if weights is not None:
            qw = np.add.reduceat(weights, np.r_[0, np.cumsum(g)[:-1]]) / g
            if profile.query_weights == "float32_mean":  # LightGBM: float32, summed in order
                parts = np.split(weights.astype(np.float32), np.cumsum(g)[:-1])
                qw = np.array([np.cumsum(p, dtype=np.float32)[-1] / np.float32(len(p))
                               for p in parts], dtype=np.float32).astype(np.float64)
        means, per_q = evaluate_oracle(y, s, g, metrics, profile, tiekey=tiekey, query_weights=qw)
    else:
        means = res["numpy"].metrics
        per_q = {k: res["numpy"].per_query[k].to_numpy() for k in means}  # type: ignore[index]
    for backend, r in res.items():
        assert r.per_query is not None
        for name, mean in means.items():
            np.testing.assert_allclose(r.per_query[name].to_numpy(), np.asarray(per_q[name]),
                                       rtol=0, atol=1e-12, err_msg=f"{backend} {name}")
            np.testing.assert_allclose(r.metrics[name], mean, rtol=0, atol=1e-12,
                                       err_msg=f"{backend} {name}")
    d1, d2 = res["numba"].diagnostics, res["numpy"].diagnostics
    assert (d1.n_blank, d1.n_queries_with_ties_in_topk, d1.n_single_document) == (
        d2.n_blank, d2.n_queries_with_ties_in_topk, d2.n_single_document)


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("profile", ["ltrbench", "lightgbm", "sklearn", "trec_eval", "letor4"])
def test_both_kernels_equal_the_oracle_on_small_queries_with_many_ties(profile: str, ties: str) -> None:
    rng = np.random.default_rng(zlib.crc32(f"{profile}/{ties}".encode()))
    y, s, g = random_queries(rng, 30, max_size=9, score_levels=3)
    _check(y, s, g, ALL, dataclasses.replace(get_profile(profile), ties=ties))


@pytest.mark.parametrize("profile", ["xgboost", "xgboost-", "ranx"])
def test_both_kernels_equal_the_oracle_for_xgboost_and_ranx_profiles(profile: str) -> None:
    prof = get_profile(profile)
    y, s, g = random_queries(np.random.default_rng(7), 40, max_size=9, score_levels=4,
                             binary=prof.binary_labels_for_binary_metrics)
    _check(y, s, g, ALL.replace("err@5 err ", ""), prof)


@pytest.mark.parametrize("ties", TIES)
def test_top_k_buffer_with_ties_beyond_the_cutoff_equals_the_oracle(ties: str) -> None:
    """Queries of up to 30 documents and cutoffs of 2-4: tied groups straddle the cutoff."""
    y, s, g = random_queries(np.random.default_rng(8), 40, max_size=30, score_levels=None)
    s = np.round(s, 1)
    prof = dataclasses.replace(get_profile("ltrbench"), ties=ties)
    _check(y, s, g, TOP, prof)
    _check(y, s, g, "mrr", prof)
    _check(y, s, g, "ndcg@3 hits recall p", prof)


def test_weighted_means_equal_the_oracle() -> None:
    y, s, g = random_queries(np.random.default_rng(9), 40, max_size=9, score_levels=3)
    w = np.random.default_rng(1).uniform(0.1, 2.0, len(y))
    for name in ("ltrbench", "lightgbm", "sklearn"):
        _check(y, s, g, "ndcg@1,5 map@3 p@2 mrr", get_profile(name), weights=w)


@pytest.mark.parametrize("ties", TIES)
def test_large_queries_use_the_merge_sort_and_agree_with_numpy(ties: str) -> None:
    y, s, g = random_queries(np.random.default_rng(10), 12, max_size=300, score_levels=None)
    s = np.round(s, 1)
    prof = dataclasses.replace(get_profile("ltrbench"), ties=ties)
    _check(y, s, g, "ndcg@3,70,100 map@70 mrr p@3 err@80 hits@2 recall@3", prof, oracle=False)
    _check(y, s, g, "ndcg map err mrr", prof, oracle=False)


def test_all_tied_queries_give_expected_values() -> None:
    """Every score equal: average ties give the expectation over all orders, e.g. P@1 = R/n."""
    y = np.array([1, 0, 0, 0, 2, 0, 0.0])
    r = evaluate(y, np.zeros(7), group=[7], metrics="p@1 hits@2 mrr", backend="numba")
    assert r.metrics["p@1"] == pytest.approx(2 / 7)
    assert r.metrics["hits@2"] == pytest.approx(1 - (5 / 7) * (4 / 6))
    _check(y, np.zeros(7), np.array([7]), "ndcg@2 map@3 mrr err@3 hits@2",
           get_profile("ltrbench"))


def test_threaded_blocks_equal_one_block(monkeypatch: pytest.MonkeyPatch) -> None:
    y, s, g = random_queries(np.random.default_rng(11), 500, max_size=40, score_levels=6)
    metrics = "ndcg@1,3,10 ndcg map@10 mrr err@5 hits@3 p@5 recall@10"
    one = evaluate(y, s, group=g, metrics=metrics, per_query=True)
    monkeypatch.setattr(kn, "_PARALLEL_ROWS", 10)
    two = evaluate(y, s, group=g, metrics=metrics, per_query=True)
    assert one.per_query is not None
    assert two.per_query is not None
    assert one.per_query.equals(two.per_query)
    assert one.diagnostics == two.diagnostics
