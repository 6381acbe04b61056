"""The compiled kernel's partial selection against independent orders (``sorted``) and oracles.

The kernel orders only the rows that reach a per-query threshold (``kernels.numba_order``):
these tests check each step against Python's ``sorted`` with the tie rule's key, and the whole
evaluator against the NumPy kernel and the slow oracle (``metrics_oracles``) on queries with
many ties, cutoffs beyond the query length, single-document and blank queries.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from metrics_oracles import evaluate_oracle

from bench.metrics import evaluate, get_profile
from bench.metrics.kernels import numba_order as ko
from bench.metrics.kernels import numba_query as kq
from bench.metrics.tie_keys import random_tie_key

GAIN = np.array([0.0, 1.0, 3.0, 7.0, 15.0])
MODE_TIES = {0: "stable", 1: "average", 2: "pessimistic", 3: "optimistic", 4: "random"}
_FAST = settings(max_examples=80, deadline=None)
_SLOW = settings(max_examples=25, deadline=None)


def _expected_order(scores: np.ndarray, labels: np.ndarray, key: np.ndarray, mode: int) -> list[int]:
    """Row indices by score descending, ties by the profile's rule (Python's ``sorted``)."""
    n = len(scores)
    if mode <= 1:
        return sorted(range(n), key=lambda i: (-scores[i], i))
    if mode in (2, 3):
        sign = 1.0 if mode == 2 else -1.0
        return sorted(range(n), key=lambda i: (-scores[i], sign * GAIN[int(labels[i])], i))
    return sorted(range(n), key=lambda i: (-scores[i], key[i], i))


@st.composite
def tied_rows(draw: st.DrawFn, max_n: int = 40):  # type: ignore[no-untyped-def]
    """Scores from a few levels (many ties), labels 0-4, a permutation key, a tie mode."""
    n = draw(st.integers(1, max_n))
    levels = draw(st.integers(1, 6))
    scores = np.array(draw(st.lists(st.integers(0, levels - 1), min_size=n, max_size=n)), float)
    labels = np.array(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)), float)
    key = np.array(draw(st.permutations(range(n))), dtype=np.int64)
    mode = draw(st.sampled_from(sorted(MODE_TIES)))
    return scores / 2.0 - 1.0, labels, key, mode


def _order_candidates(cs: np.ndarray, ci: np.ndarray, labels: np.ndarray, key: np.ndarray,
                      mode: int, *, merge: bool) -> tuple[list[int], bool]:
    c = len(cs)
    pad = np.full(c + 8, np.nan)
    pad[:c] = cs
    buf = np.empty(c + 8, dtype=np.int64)
    bufs = np.empty(c + 8)
    rank = np.empty(c + 8, dtype=np.int64)
    tmp = np.empty(c + 8, dtype=np.int64)
    if merge:
        tied = ko._sort_candidates(pad, ci, c, buf, bufs, rank, tmp, mode, labels, GAIN, key)
    else:
        tied = ko._rank_candidates(pad, ci, c, buf, bufs, rank, mode, labels, GAIN, key)
    score_of = dict(zip(ci.tolist(), cs.tolist(), strict=True))
    assert bufs[:c].tolist() == [score_of[i] for i in buf[:c].tolist()], "scores travel with rows"
    return buf[:c].tolist(), bool(tied)


@_FAST
@given(tied_rows(max_n=ko.RANK_MAX), st.booleans())
def test_counting_sort_and_merge_sort_order_rows_as_sorted_does(rows, merge: bool) -> None:  # type: ignore[no-untyped-def]
    scores, labels, key, mode = rows
    ci = np.arange(len(scores), dtype=np.int64)
    got, tied = _order_candidates(scores, ci, labels, key, mode, merge=merge)
    assert got == _expected_order(scores, labels, key, mode)
    assert tied == (len(set(scores.tolist())) < len(scores))


@_FAST
@given(st.integers(2, 60), st.integers(1, 59), st.integers(1, 4), st.randoms(use_true_random=False))
def test_threshold_is_reached_by_at_least_m_rows(n: int, m: int, levels: int, rnd) -> None:  # type: ignore[no-untyped-def]
    m = min(m, n - 1)
    scores = np.array([rnd.randrange(levels) for _ in range(n)], dtype=float)
    labels = np.array([rnd.randrange(5) for _ in range(n)], dtype=float)
    for f32 in (False, True):
        hist = np.zeros(5, dtype=np.int64)
        t = ko._threshold(scores, labels, 0, n, m, f32, hist)
        assert np.sum(scores >= t) >= m
        assert t in scores  # a score of the query, so every row tied with it is kept too
        assert hist.tolist() == np.bincount(labels.astype(int), minlength=5).tolist()


@_FAST
@given(tied_rows(max_n=70), st.integers(1, 12))
def test_top_m_of_the_candidates_is_the_top_m_of_the_whole_query(rows, m: int) -> None:  # type: ignore[no-untyped-def]
    """Threshold, filter and counting sort: the first m rows, and all rows tied with the m-th,
    are those of the full sort."""
    scores, labels, key, mode = rows
    n = len(scores)
    full = _expected_order(scores, labels, key, mode)
    if m >= n:
        keep = np.arange(n)
    else:
        hist = np.zeros(5, dtype=np.int64)
        keep = np.flatnonzero(scores >= ko._threshold(scores, labels, 0, n, m, False, hist))
    got, _ = _order_candidates(scores[keep], keep.astype(np.int64), labels, key, mode,
                               merge=len(keep) > ko.RANK_MAX)
    top = min(m, n)
    assert got[:top] == full[:top]
    tied_with_last = {i for i in range(n) if scores[i] == scores[full[top - 1]]}
    assert tied_with_last <= set(keep.tolist())


@_FAST
@given(st.lists(st.sampled_from([0.0, -0.0, 1.5, -2.0, 3.25, 1e300, -1e-300, 7.0, 0.1, 0.2]),
                max_size=30)
       | st.lists(st.floats(allow_nan=False, allow_infinity=False), max_size=300))
def test_duplicate_check_equals_a_set(values: list[float]) -> None:
    vals = np.array(values + [0.0] * 8, dtype=float)
    k = len(values)
    bitmap = np.empty(ko._BITMAP_WORDS, dtype=np.uint64)
    spill = np.empty(k + 8)
    expected = len({v + 0.0 for v in values}) < k  # -0.0 == 0.0
    for size in (16, 64, 2048):  # small tables sort instead
        assert ko._has_duplicate(vals, k, bitmap, np.empty(size), spill) == expected


@st.composite
def query_sets(draw: st.DrawFn, max_queries: int = 5, max_size: int = 8):  # type: ignore[no-untyped-def]
    """Queries with integer scores (many ties), blank and single-document ones."""
    sizes = draw(st.lists(st.integers(1, max_size), min_size=1, max_size=max_queries))
    n = sum(sizes)
    labels = np.array(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)), float)
    if draw(st.booleans()):
        labels[: sizes[0]] = 0.0  # a blank query
    scores = np.array(draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)), float)
    return labels, scores, np.array(sizes)


METRICS = "ndcg@1,2,12 ndcg map@2 map mrr mrr@2 p@3 recall@2 err@2 hits@1 hits"


@_SLOW
@given(query_sets(), st.sampled_from(["ltrbench", "lightgbm", "trec_eval", "letor4"]),
       st.sampled_from(sorted(MODE_TIES.values())))
def test_kernel_equals_numpy_and_the_slow_oracle_on_tied_queries(q, profile: str, ties: str) -> None:  # type: ignore[no-untyped-def]
    y, s, g = q
    prof = dataclasses.replace(get_profile(profile), ties=ties)
    offsets = np.concatenate([[0], np.cumsum(g)]).astype(np.int64)  # each query's own draw
    tiekey = random_tie_key(offsets, prof.tie_seed) if ties == "random" else None
    res = {b: evaluate(y, s, group=g, metrics=METRICS, profile=prof, backend=b, per_query=True)
           for b in ("numba", "numpy")}
    _, oracle = evaluate_oracle(y, s, g, METRICS, prof, tiekey=tiekey)
    for name, values in oracle.items():
        for b, r in res.items():
            assert r.per_query is not None
            np.testing.assert_allclose(r.per_query[name].to_numpy(), values, rtol=0, atol=1e-12,
                                       err_msg=f"{b} {name}")
    d1, d2 = res["numba"].diagnostics, res["numpy"].diagnostics
    assert (d1.n_blank, d1.n_single_document, d1.n_queries_with_ties_in_topk, d1.ties_k) == (
        d2.n_blank, d2.n_single_document, d2.n_queries_with_ties_in_topk, d2.ties_k)


@_SLOW
@given(st.lists(st.integers(1, 220), min_size=1, max_size=4), st.integers(1, 3),
       st.sampled_from(sorted(MODE_TIES.values())), st.sampled_from(["ndcg@5 mrr", "ndcg map", "p@100 mrr@3"]),
       st.randoms(use_true_random=False))
def test_long_tied_queries_equal_numpy(sizes: list[int], levels: int, ties: str, metrics: str, rnd) -> None:  # type: ignore[no-untyped-def]
    """More candidates than the counting sort takes (merge sort), and whole-list tie checks."""
    n = sum(sizes)
    y = np.array([rnd.randrange(5) for _ in range(n)], dtype=float)
    s = np.array([rnd.randrange(levels) for _ in range(n)], dtype=float)
    prof = dataclasses.replace(get_profile("ltrbench"), ties=ties)
    a, b = (evaluate(y, s, group=sizes, metrics=metrics, profile=prof, backend=be, per_query=True)
            for be in ("numba", "numpy"))
    assert a.per_query is not None
    assert b.per_query is not None
    np.testing.assert_allclose(a.per_query.drop(columns="qid").to_numpy(),
                               b.per_query.drop(columns="qid").to_numpy(), rtol=0, atol=1e-10)
    assert a.diagnostics.n_queries_with_ties_in_topk == b.diagnostics.n_queries_with_ties_in_topk


def test_scores_equal_in_float32_tie_inside_the_kernel() -> None:
    """``score_dtype="float32"`` rounds in the kernel (no copy): 1 and 1 + 1e-12 tie there."""
    y = np.array([0.0, 1.0, 0.0, 0.0])
    s = np.array([1.0, 1.0 + 1e-12, 0.5, 0.25])
    for profile in ("xgboost", "trec_eval", "ltrbench"):
        res = {b: evaluate(y, s, group=[4], metrics="ndcg@1 mrr map", profile=profile,
                           backend=b, per_query=True) for b in ("numba", "numpy")}
        assert res["numba"].metrics == res["numpy"].metrics
        tied = res["numba"].diagnostics.n_queries_with_ties_in_topk
        assert tied == res["numpy"].diagnostics.n_queries_with_ties_in_topk
        assert tied == (get_profile(profile).score_dtype == "float32")


def test_the_kernel_cache_key_holds_a_digest_of_its_helper_modules() -> None:
    """numba keys a cached function by its own file; the kernel's closure carries the digest of
    the helper files it compiles in, so editing one of them recompiles it."""
    cells = [c.cell_contents for c in kq.components_kernel.py_func.__closure__ or ()]
    assert cells == [kq._source_digest()]


def test_a_long_query_finds_one_pair_of_equal_scores_far_below_the_top() -> None:
    """20000 rows (the whole-list tie check sorts instead of hashing): one pair of equal scores
    near the bottom is a tie for ``mrr`` (whole list) but not for ``ndcg@10`` alone."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 5, 20_000).astype(float)
    s = rng.normal(size=20_000)
    low = np.argsort(s)[:2]
    for pair in (False, True):
        s2 = s.copy()
        if pair:
            s2[low[1]] = s2[low[0]]
        for metrics, expected in (("ndcg@10 mrr", pair), ("ndcg@10", False)):
            res = {b: evaluate(y, s2, group=[20_000], metrics=metrics, backend=b)
                   for b in ("numba", "numpy")}
            assert res["numba"].metrics == pytest.approx(res["numpy"].metrics, abs=1e-12)
            for r in res.values():
                assert r.diagnostics.n_queries_with_ties_in_topk == expected
