"""The named profiles added for issue 10 against their tools.

Run here: scikit-learn (``ndcg_score`` / ``dcg_score`` with ``ignore_ties=True`` and
``log_base``) and ranx (``ndcg_burges``) on seeded random data with ties, to 1e-9. Not run:
torchmetrics and RecBole need torch, MS Recommenders is not installed -- those profiles are
checked against their published formulas (source lines in each profile's description) on
hand-worked cases, the arithmetic shown beside each expected value.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from metrics_oracles import evaluate_oracle, random_queries

from bench.crosscheck.providers import ranx_metrics, trec_dicts
from bench.errors import ConfigError, DataError
from bench.metrics import evaluate, get_profile

TOL = 1e-9


def _equal_width(seed: int, n_q: int = 80, width: int = 9, *,
                 levels: int | None = 3) -> tuple[np.ndarray, np.ndarray]:
    """Queries of equal length (rows of a 2-D array, as scikit-learn takes them); ``levels``
    score levels (ties), or continuous scores (``None``)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, size=(n_q, width)).astype(np.float64)
    y[rng.random((n_q, width)) < 0.4] = 0
    if levels is None:
        return y, rng.normal(size=(n_q, width))
    return y, rng.integers(0, levels, size=(n_q, width)).astype(np.float64)


@pytest.mark.parametrize("k", [1, 3, 5, None])
def test_sklearn_ignore_ties_profile_equals_ndcg_score_ignore_ties(k: int | None) -> None:
    """Without ties, and with every score of a row equal (then numpy's argsort keeps index
    order, reversed by [::-1]: the higher index first, observed for widths 2..100). Mixed ties are
    not comparable: numpy 2.4's argsort is not stable even on 9 elements ([2,1,1,0,...] ranks
    index 1 before 2), so sklearn's order among ties there is arbitrary."""
    from sklearn.metrics import dcg_score, ndcg_score

    suffix = "" if k is None else f"@{k}"
    for seed in range(3):
        yt, ys = _equal_width(seed, levels=None)
        flat = np.ones_like(ys)
        for scores in (ys, flat):
            g = np.full(yt.shape[0], yt.shape[1])
            ours = evaluate(yt.ravel(), scores.ravel(), group=g,
                            metrics=f"ndcg{suffix} dcg{suffix}", profile="sklearn-ignore-ties")
            assert ours.metrics[f"ndcg{suffix}"] == pytest.approx(
                ndcg_score(yt, scores, k=k, ignore_ties=True), abs=TOL)
            assert ours.metrics[f"dcg{suffix}"] == pytest.approx(
                dcg_score(yt, scores, k=k, ignore_ties=True), abs=TOL)
        g = np.full(yt.shape[0], yt.shape[1])
        tied = evaluate(yt.ravel(), flat.ravel(), group=g, metrics=f"dcg{suffix}",
                        profile="sklearn-ignore-ties")
        averaged = evaluate(yt.ravel(), flat.ravel(), group=g, metrics=f"dcg{suffix}",
                            profile="sklearn")
        assert averaged.metrics[f"dcg{suffix}"] != pytest.approx(tied.metrics[f"dcg{suffix}"],
                                                                 abs=1e-6)


@pytest.mark.parametrize("base", [10.0, math.e, 3.0])
def test_discount_base_equals_dcg_score_log_base(base: float) -> None:
    """DCG scales by log2(base); NDCG does not move."""
    from sklearn.metrics import dcg_score

    yt, ys = _equal_width(7)
    g = np.full(yt.shape[0], yt.shape[1])
    prof = replace(get_profile("sklearn"), name="b", discount_base=base)
    ours = evaluate(yt.ravel(), ys.ravel(), group=g, metrics="dcg@4 dcg ndcg@4", profile=prof)
    assert ours.metrics["dcg@4"] == pytest.approx(dcg_score(yt, ys, k=4, log_base=base), abs=TOL)
    assert ours.metrics["dcg"] == pytest.approx(dcg_score(yt, ys, log_base=base), abs=TOL)
    base2 = evaluate(yt.ravel(), ys.ravel(), group=g, metrics="ndcg@4", profile="sklearn")
    assert ours.metrics["ndcg@4"] == pytest.approx(base2.metrics["ndcg@4"], abs=1e-12)


def test_discount_base_in_the_slow_oracle() -> None:
    rng = np.random.default_rng(3)
    y, s, g = random_queries(rng, 40, max_size=7)
    prof = replace(get_profile("letor4"), name="l", discount_base=math.e)
    means, _ = evaluate_oracle(y, s, g, "dcg@3 dcg ndcg@5", prof)
    ours = evaluate(y, s, group=g, metrics="dcg@3 dcg ndcg@5", profile=prof)
    for name, v in means.items():
        assert ours.metrics[name] == pytest.approx(v, abs=TOL), name


def test_ranx_burges_profile_equals_ranx_ndcg_burges() -> None:
    """ranx's numba sort keeps insertion order among ties only in short lists, so queries of
    more than 12 documents get continuous scores (as in the 'ranx' profile's test)."""
    pytest.importorskip("ranx")
    rng = np.random.default_rng(21)
    y, s, g = random_queries(rng, 150, max_size=30, score_levels=3)
    s = np.where(np.repeat(g > 12, g), rng.normal(size=len(s)), s)
    qid = np.repeat(np.arange(len(g)), g)
    qrels, run = trec_dicts(y, s, qid)
    names = {"ndcg_burges@3": "ndcg@3", "ndcg_burges@10": "ndcg@10", "ndcg_burges": "ndcg"}
    theirs = ranx_metrics(qrels, run, list(names))
    ours = evaluate(y, s, qid=qid, metrics=list(names.values()), profile="ranx-burges")
    assert ours.diagnostics.n_queries_with_ties_in_topk > 0
    linear = evaluate(y, s, qid=qid, metrics="ndcg@10", profile="ranx")
    assert linear.metrics["ndcg@10"] != pytest.approx(ours.metrics["ndcg@10"], abs=1e-4)
    for theirs_name, name in names.items():
        assert ours.metrics[name] == pytest.approx(float(theirs[theirs_name]), abs=TOL), name


# --- torchmetrics (not installed: hand-worked cases from its source) -------------------------

def test_torchmetrics_profile_reproduces_its_docstring_examples() -> None:
    """average_precision.py docstring: preds [0.2, 0.3, 0.5], target [1, 0, 1] -> 0.8333
    (ranking 1, 0, 1: (1/1 + 2/3) / 2 = 0.83333); ndcg.py docstring: preds [.1, .2, .3, 4, 70],
    target [10, 0, 0, 1, 5] -> 0.6957 (linear gain: DCG = 5 + 1/log2(3) + 10/log2(6),
    IDCG = 10 + 5/log2(3) + 1/log2(4): 0.695694). Values are float32 (printed tensor(0.8333))."""
    ap = evaluate([1, 0, 1], [0.2, 0.3, 0.5], group=[3], metrics="map", profile="torchmetrics")
    assert ap.metrics["map"] == pytest.approx((1 + 2 / 3) / 2, abs=1e-7)
    assert ap.metrics["map"] == float(np.float32(ap.metrics["map"]))
    nd = evaluate([10, 0, 0, 1, 5], [0.1, 0.2, 0.3, 4, 70], group=[5], metrics="ndcg",
                  profile="torchmetrics")
    dcg = 5 + 1 / math.log2(3) + 10 / math.log2(6)
    idcg = 10 + 5 / math.log2(3) + 1 / math.log2(4)
    assert nd.metrics["ndcg"] == pytest.approx(dcg / idcg, abs=1e-6)
    assert round(nd.metrics["ndcg"], 4) == 0.6957


def test_torchmetrics_ap_at_k_divides_by_the_hits_in_the_top_k() -> None:
    """Relevance by rank 0, 1, 0, 1, 1 (R = 3). torchmetrics AP@3 = mean over the hits in the top 3
    of hits_i / pos_i = (1/2) / 1 = 0.5 (average_precision.py:56-62); min(R, k) would give
    0.5 / 3 and R 0.5 / 3 too. AP@5 = (1/2 + 2/4 + 3/5) / 3 = 0.5333. A query whose top k holds
    no relevant document scores 0; a query without relevant documents scores 0 and counts."""
    y = [0, 1, 0, 1, 1]
    s = [5.0, 4.0, 3.0, 2.0, 1.0]
    r = evaluate(y, s, group=[5], metrics="map@3 map@5 map@1", profile="torchmetrics")
    assert r.metrics["map@3"] == pytest.approx(0.5, abs=1e-7)
    assert r.metrics["map@5"] == pytest.approx((0.5 + 0.5 + 0.6) / 3, abs=1e-7)
    assert r.metrics["map@1"] == 0.0
    blank = evaluate([1, 0, 0, 0], [2.0, 1.0, 2.0, 1.0], group=[2, 2], metrics="map ndcg p@2",
                     profile="torchmetrics")
    assert blank.metrics["map"] == pytest.approx(0.5, abs=1e-7)  # (1 + 0) / 2
    assert blank.metrics["p@2"] == pytest.approx(0.25, abs=1e-7)  # (1/2 + 0) / 2


def test_torchmetrics_profile_equals_float32_transcription_of_its_formulas() -> None:
    """A float32 NumPy transcription of retrieval_normalized_dcg (sklearn tie averaging, float32)
    and retrieval_average_precision with top_k, on tie-free random queries. Tolerance 1e-6:
    torch sums float32 in its own order, the profile divides float32-rounded float64 sums."""
    rng = np.random.default_rng(11)
    y, s, g = random_queries(rng, 120, max_size=15, score_levels=None, binary=True)
    ours = evaluate(y, s, group=g, metrics="ndcg@5 map@5 map", profile="torchmetrics",
                    per_query=True)
    assert ours.per_query is not None
    start = 0
    for q, size in enumerate(g):
        yy = y[start:start + size].astype(np.float32)
        ss = s[start:start + size]
        start += size
        order = np.argsort(-ss, kind="stable")
        disc = (1.0 / np.log2(np.arange(size, dtype=np.float32) + np.float32(2.0))).astype(np.float32)
        disc[5:] = 0
        dcg = np.float32(np.sum(yy[order] * disc, dtype=np.float32))
        idcg = np.float32(np.sum(np.sort(yy)[::-1] * disc, dtype=np.float32))
        nd = 0.0 if idcg == 0 else float(dcg / idcg)
        assert ours.per_query["ndcg@5"][q] == pytest.approx(nd, abs=1e-6)
        for k, name in ((5, "map@5"), (size, "map")):
            top = np.where(ss[order] > 0, yy[order], 0)[:k]  # #3160: preds <= 0 are no hits
            pos = np.flatnonzero(top > 0).astype(np.float32) + 1
            ap = 0.0 if yy.sum() == 0 or pos.size == 0 else float(
                np.mean((np.arange(pos.size, dtype=np.float32) + 1) / pos, dtype=np.float32))
            assert ours.per_query[name][q] == pytest.approx(ap, abs=1e-6), (q, name)


def test_float32_arithmetic_is_within_float32_precision_of_float64() -> None:
    rng = np.random.default_rng(5)
    y, s, g = random_queries(rng, 60, max_size=10)
    f32 = replace(get_profile("sklearn"), name="f32", arithmetic_dtype="float32")
    a = evaluate(y, s, group=g, metrics="ndcg@5 map recall@3", profile=f32, per_query=True)
    b = evaluate(y, s, group=g, metrics="ndcg@5 map recall@3", profile="sklearn", per_query=True)
    assert a.per_query is not None
    assert b.per_query is not None
    for name in ("ndcg@5", "map", "recall@3"):
        va, vb = a.per_query[name].to_numpy(), b.per_query[name].to_numpy()
        assert np.all(va == va.astype(np.float32))
        np.testing.assert_allclose(va, vb, rtol=2e-7, atol=1e-7)
        assert (va != vb).any()


# --- RecBole and MS Recommenders (not installed: hand-worked cases) ---------------------------

def test_recbole_profile_by_hand() -> None:
    """Binary relevance by rank 1, 0, 1, 0, 0 with R = 2, K = 3 (metrics.py):
    NDCG@3 = (1 + 1/log2(4)) / (1 + 1/log2(3)) = 0.9197 (IDCG over min(R, K) = 2 positions);
    MAP@3 = (1/1 + 2/3) / min(2, 3) = 0.8333; MAP@1 = 1 / min(2, 1) = 1; Recall@3 = 2/2;
    P@3 = 2/3; MRR@3 = 1. A user without ground truth is not evaluated (left out)."""
    y = [1, 0, 1, 0, 0, 0, 0]
    s = [5.0, 4.0, 3.0, 2.0, 1.0, 1.0, 0.5]
    r = evaluate(y, s, group=[5, 2], metrics="ndcg@3 map@3 map@1 recall@3 p@3 mrr@3",
                 profile="recbole")
    assert r.metrics["ndcg@3"] == pytest.approx((1 + 1 / math.log2(4)) / (1 + 1 / math.log2(3)), abs=TOL)
    assert r.metrics["map@3"] == pytest.approx((1 + 2 / 3) / 2, abs=TOL)
    assert r.metrics["map@1"] == pytest.approx(1.0, abs=TOL)
    assert r.metrics["recall@3"] == pytest.approx(1.0, abs=TOL)
    assert r.metrics["p@3"] == pytest.approx(2 / 3, abs=TOL)
    assert r.metrics["mrr@3"] == pytest.approx(1.0, abs=TOL)
    assert r.diagnostics.n_blank == 1


def test_recbole_and_recommenders_refuse_graded_labels() -> None:
    for name in ("recbole", "recommenders"):
        with pytest.raises(DataError):
            evaluate([2, 0], [1.0, 0.5], group=[2], metrics="ndcg@2", profile=name)


def test_recommenders_profile_by_hand() -> None:
    """python_evaluation.py: ties keep row order (stable sort_values). Items by score 3, 2, 2, 1
    with relevance 0, 1, 0, 1 (the two 2s tied: row order). ndcg_at_k (binary, loge), k = 2:
    DCG = 1/ln(3), IDCG = 1/ln(2) + 1/ln(3): NDCG = 0.3869 (the base cancels); DCG itself in
    natural-log units = 1/ln(3) = 0.9102. map_at_k, k = 2: (1/2) / min(2, 2) = 0.25;
    precision_at_k = 1/2; recall_at_k = 1/2."""
    y = [0, 1, 0, 1]
    s = [3.0, 2.0, 2.0, 1.0]
    r = evaluate(y, s, group=[4], metrics="ndcg@2 dcg@2 map@2 p@2 recall@2",
                 profile="recommenders")
    assert r.metrics["ndcg@2"] == pytest.approx((1 / math.log(3)) / (1 / math.log(2) + 1 / math.log(3)), abs=TOL)
    assert r.metrics["dcg@2"] == pytest.approx(1 / math.log(3), abs=TOL)
    assert r.metrics["map@2"] == pytest.approx(0.25, abs=TOL)
    assert r.metrics["p@2"] == pytest.approx(0.5, abs=TOL)
    assert r.metrics["recall@2"] == pytest.approx(0.5, abs=TOL)
    swapped = evaluate([0, 0, 1, 1], s, group=[4], metrics="map@2", profile="recommenders")
    assert swapped.metrics["map@2"] == 0.0  # the tied relevant row now comes after: row order


@pytest.mark.parametrize("name", ["torchmetrics", "recbole", "recommenders", "gdeval",
                                  "ranx-burges", "sklearn-ignore-ties", "trec_eval-c"])
def test_new_profiles_equal_the_slow_oracle(name: str) -> None:
    """Every new profile against tests/metrics_oracles.py on random data with ties (binary labels
    where the profile takes only those; hits_k AP under tie averaging is a ratio of expected
    sums, so the torchmetrics data are tie-free for map)."""
    prof = get_profile(name)
    if prof.nonpositive_scores != "rank":  # the oracle ranks every score (issue 23's rule:
        prof = replace(prof, nonpositive_scores="rank")  # test_metrics_profiles_libraries)
    binary = prof.max_label == 1 or prof.binary_labels_for_binary_metrics
    rng = np.random.default_rng(sum(map(ord, name)))
    levels = None if name == "torchmetrics" else 4
    y, s, g = random_queries(rng, 60, max_size=7, score_levels=levels, binary=binary)
    metrics = "ndcg@3 ndcg dcg@2 map@3 map p@5 recall@3 mrr rprec set_p set_recall set_f bpref"
    means, per_q = evaluate_oracle(y, s, g, metrics, prof)
    ours = evaluate(y, s, group=g, metrics=metrics, profile=prof, per_query=True)
    assert ours.per_query is not None
    tol = 1e-6 if prof.arithmetic_dtype == "float32" else TOL
    for metric, vals in per_q.items():
        np.testing.assert_allclose(ours.per_query[metric].to_numpy(), np.array(vals), rtol=0,
                                   atol=tol, err_msg=metric)
        if not math.isnan(means[metric]):
            assert ours.metrics[metric] == pytest.approx(means[metric], abs=tol), metric


def test_bad_profile_values_are_config_errors() -> None:
    base = get_profile("ltrbench")
    for field, value in (("discount_base", 1.0), ("discount_base", float("inf")),
                         ("arithmetic_dtype", "float16"), ("map_denominator", "hits"),
                         ("ties", "reverse")):
        with pytest.raises(ConfigError, match=field):
            replace(base, **{field: value})


def test_reconcile_puts_discount_base_under_gain_and_float32_arithmetic_under_float32() -> None:
    """DCG in natural-log units is log2(e) = 1.4427 times DCG in log2 units: the whole gap of
    dcg@5 between the two profiles is the gain step's; float32 arithmetic moves NDCG by float32
    rounding only, in the float32 step; both are explained (residual <= 1e-9)."""
    from bench.metrics.reconcile import reconcile

    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 60).astype(float)
    s = rng.normal(size=60)
    offsets = np.arange(0, 61, 6)
    base = replace(get_profile("sklearn"), name="s")
    natural = replace(base, name="e", discount_base=math.e)
    rec = reconcile(y, s, offsets, library_profile=natural, default_profile=base, metric="dcg@5")
    dcg2 = evaluate(y, s, group=np.full(10, 6), metrics="dcg@5", profile=base).metrics["dcg@5"]
    assert rec.explained
    assert rec.reasons["gain"] == pytest.approx(dcg2 * (math.log2(math.e) - 1.0), abs=1e-12)
    f32 = replace(base, name="f", arithmetic_dtype="float32")
    rec32 = reconcile(y, s, offsets, library_profile=f32, default_profile=base, metric="ndcg@5")
    assert rec32.explained
    assert 0 < abs(rec32.reasons["float32"]) < 1e-6
    assert rec32.reasons["gain"] == 0.0


def test_query_weights_ignore_gives_the_unweighted_mean_over_queries() -> None:
    from dataclasses import replace as _replace

    from bench.metrics import evaluate as _evaluate
    from bench.metrics.profiles import get_profile as _get

    # Two queries: q0 ranks its relevant document first (NDCG@2 = 1), q1 second
    # (NDCG@2 = (1/log2 3) / 1 = 0.6309...). Weights 3 and 1: weighted mean 0.9077, unweighted 0.8155.
    labels, scores, group, w = [1, 0, 0, 1], [0.9, 0.1, 0.9, 0.1], [2, 2], [3.0, 1.0]
    second = 1 / np.log2(3)
    weighted = _evaluate(labels, scores, group=group, metrics="ndcg@2", weights=w)
    ignored = _evaluate(labels, scores, group=group, metrics="ndcg@2", weights=w,
                        profile=_replace(_get("ltrbench"), query_weights="ignore"))
    assert weighted.metrics["ndcg@2"] == pytest.approx((3 * 1 + 1 * second) / 4, abs=1e-12)
    assert ignored.metrics["ndcg@2"] == pytest.approx((1 + second) / 2, abs=1e-12)
    assert _get("xgboost@1.7").query_weights == "ignore"
