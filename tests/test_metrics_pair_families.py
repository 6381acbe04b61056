"""ARP and OPA (``bench/metrics/kernels/pairs.py``) and GAUC's two weightings, on labelled rows.

Golden values: the peers' own test numbers (pytorchltr ``tests/evaluation/test_arp.py``,
TF-Ranking ``tensorflow_ranking/python/keras/metrics_test.py`` ``test_average_relevance_position``
and ``test_ordered_pair_accuracy*``, RecBole ``tests/metrics/test_rank_metrics.py``), hand
arithmetic, sklearn ``roc_auc_score`` per query, and a slow oracle written here: a double loop
over the pairs / positions of every ranking the tie rule allows (``metrics_oracles.rankings``:
every order of every tied group under ``ties="average"``), averaged. Every tie rule, blank
queries (labels summing to 0, one label only, one document) and both means are covered.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np
import pytest
from metrics_oracles import random_queries, rankings

from bench.errors import ConfigError
from bench.metrics import evaluate, evaluate_trec, parse_metrics
from bench.metrics.families import FAMILIES
from bench.metrics.kernels.pairs import opa_sums
from bench.metrics.profile import Profile
from bench.metrics.profiles import PROFILES

TOL = 1e-12
ORDERED_TIES = ("stable", "pessimistic", "optimistic", "docno_desc", "docno_asc", "row_desc")


# ---------------------------------------------------------------- the slow oracle


def _arp_sums(labels: Sequence[float], order: Sequence[int]) -> tuple[float, float]:
    num = sum((pos + 1) * labels[i] for pos, i in enumerate(order))
    return float(num), float(sum(labels))


def _opa_sums(labels: Sequence[float], scores: Sequence[float], order: Sequence[int],
              wrong_ties: bool) -> tuple[float, float]:
    rank = {i: pos for pos, i in enumerate(order)}
    right = pairs = 0.0
    for i in range(len(labels)):
        for j in range(len(labels)):
            if labels[i] > labels[j]:
                pairs += 1
                if wrong_ties:
                    right += scores[i] > scores[j]
                else:
                    right += rank[i] < rank[j]
    return right, pairs


def oracle(profile: Profile, family: str, labels: Sequence[float], scores: Sequence[float]
           ) -> tuple[float, float]:
    """``(expected numerator, denominator)`` of ARP / OPA over the tie rule's rankings."""
    orders = rankings(profile, labels, scores)
    s = [float(np.float32(x)) if profile.score_dtype == "float32" else float(x) for x in scores]
    if family == "arp":
        sums = [_arp_sums(labels, o) for o in orders]
    else:
        sums = [_opa_sums(labels, s, o, profile.pair_ties == "wrong") for o in orders]
    return sum(n for n, _ in sums) / len(sums), sums[0][1]


def oracle_evaluate(profile: Profile, family: str, labels: np.ndarray, scores: np.ndarray,
                    sizes: np.ndarray, weights: np.ndarray | None = None
                    ) -> tuple[float, list[float]]:
    """The mean and the per-query values as the profile defines them (module docstring of
    ``bench/metrics/more_families.py``): 0 on a blank query (NaN under ``empty=None``), the
    mean of the values or (``list_weight="denominator"``) ``sum w num / sum w den``."""
    starts = np.concatenate([[0], np.cumsum(sizes)])
    per_q, nums, dens = [], [], []
    for q in range(sizes.shape[0]):
        lo, hi = starts[q], starts[q + 1]
        num, den = oracle(profile, family, list(labels[lo:hi]), list(scores[lo:hi]))
        value = num / den if den > 0 else (math.nan if profile.empty is None else 0.0)
        per_q.append(value)
        nums.append(num)
        dens.append(den)
    w = np.ones(sizes.shape[0]) if weights is None else weights
    if profile.list_weight == "denominator":
        return float(np.sum(w * nums) / np.sum(w * np.asarray(dens))), per_q
    v = np.asarray(per_q)
    ok = ~np.isnan(v)
    return float(np.sum(w[ok] * v[ok]) / np.sum(w[ok])), per_q


def _profiles() -> list[Profile]:
    base = PROFILES["ltrbench"]
    out = [base, dataclasses.replace(base, empty=0.0, name="ltrbench-0"),
           PROFILES["pytorchltr"], PROFILES["tf-ranking"]]
    out += [dataclasses.replace(base, ties=t, name=f"ltrbench-{t}") for t in ORDERED_TIES]
    out += [dataclasses.replace(base, ties=t, pair_ties="wrong", list_weight="denominator",
                                name=f"pooled-{t}") for t in ("average", "stable", "optimistic")]
    return out


@pytest.mark.parametrize("backend", ["numba", "numpy", "python"])
@pytest.mark.parametrize("profile", _profiles(), ids=lambda p: p.name)
def test_arp_and_opa_equal_the_slow_oracle_per_query_every_tie_rule_and_blank_queries(
        profile: Profile, backend: str) -> None:
    rng = np.random.default_rng(17)
    labels, scores, sizes = random_queries(rng, 40, max_size=7, max_label=3)
    assert (sizes == 1).any()
    assert (np.add.reduceat(labels, np.cumsum(sizes) - sizes) == 0).any()
    res = evaluate(labels, scores, group=sizes, metrics="arp opa", profile=profile,
                   per_query=True, backend=backend)
    assert res.per_query is not None
    for family in ("arp", "opa"):
        mean, per_q = oracle_evaluate(profile, family, labels, scores, sizes)
        np.testing.assert_allclose(res.per_query[family].to_numpy(), per_q, rtol=0,
                                   atol=1e-6 if profile.arithmetic_dtype == "float32" else TOL,
                                   err_msg=f"{profile.name} {family}")
        assert res.metrics[family] == pytest.approx(mean, abs=1e-6), (profile.name, family)


def test_query_weights_multiply_the_pooled_weights_and_weigh_the_per_query_mean() -> None:
    rng = np.random.default_rng(3)
    labels, scores, sizes = random_queries(rng, 25, max_size=6, max_label=2)
    w = rng.uniform(0.5, 3.0, size=sizes.shape[0])
    for name in ("pytorchltr", "tf-ranking"):
        prof = PROFILES[name]
        res = evaluate(labels, scores, group=sizes, metrics="arp opa", profile=prof, weights=w)
        for family in ("arp", "opa"):
            mean, _ = oracle_evaluate(prof, family, labels, scores, sizes, w)
            assert res.metrics[family] == pytest.approx(mean, abs=1e-6), (name, family)


# ---------------------------------------------------------------- the peers' numbers, by hand


def _ragged(rows: Sequence[Sequence[float]]) -> tuple[np.ndarray, np.ndarray]:
    return (np.asarray([v for r in rows for v in r], dtype=np.float64),
            np.asarray([i for i, r in enumerate(rows) for _ in r]))


def test_arp_is_pytorchltrs_per_list_value_with_its_blank_list_zero() -> None:
    # pytorchltr tests/evaluation/test_arp.py (n = [5, 4]: the fifth column of row 2 is padding)
    scores, qid = _ragged([(10, 5, 2, 3, 4), (5, 6, 4, 2)])
    cases = {((0, 1, 1, 0, 1), (1, 1, 0, 0)): (10 / 3, 1.5),  # ranks 2,3,5 | 1,2
             ((1,) * 5, (1,) * 4): (3.0, 2.5), ((0,) * 5, (0,) * 4): (0.0, 0.0)}
    for rows, want in cases.items():
        labels, _ = _ragged(rows)
        res = evaluate(labels, scores, qid=qid, metrics="arp", profile="pytorchltr",
                       per_query=True)
        assert res.per_query is not None
        assert list(res.per_query["arp"]) == pytest.approx(want, abs=TOL)
        assert res.metrics["arp"] == pytest.approx(sum(want) / 2, abs=TOL)


def test_arp_weighs_positions_by_the_raw_label_not_the_gain() -> None:
    # label 2 at rank 1, label 1 at rank 3: (2*1 + 1*3) / 3; gain 2^l - 1 would give (3+3)/4
    labels, qid = _ragged([(2, 0, 1)])
    scores = np.array([3.0, 2.0, 1.0])
    for name in ("pytorchltr", "ltrbench", "tf-ranking"):
        r = evaluate(labels, scores, qid=qid, metrics="arp", profile=name)
        assert r.metrics["arp"] == pytest.approx(5 / 3, abs=1e-6), name


def test_tf_ranking_arp_and_opa_are_pooled_as_its_own_tests_say() -> None:
    labels, qid = _ragged([(0, 0, 1), (0, 1, 2)])
    scores = np.array([1, 3, 2, 1, 2, 3], dtype=np.float64)
    r = evaluate(labels, scores, qid=qid, metrics="arp opa", profile="tf-ranking")
    assert r.metrics["arp"] == pytest.approx((1 * 2 + 2 * 1 + 1 * 2) / 4, abs=1e-6)
    assert r.metrics["opa"] == pytest.approx((1 + 3) / (2 + 3), abs=1e-6)
    # the per-query mean would be (2 + 4/3) / 2 and (1/2 + 1) / 2
    mine = evaluate(labels, scores, qid=qid, metrics="arp opa", profile="pytorchltr")
    assert mine.metrics["arp"] == pytest.approx((2 + 4 / 3) / 2, abs=1e-6)
    assert mine.metrics["opa"] == pytest.approx((1 / 2 + 1) / 2, abs=1e-6)
    # test_ordered_pair_accuracy: label -1 is padding; list weights (1, 2)
    labels, qid = _ragged([(-1, 0, 1), (0, 1, 2)])
    r = evaluate(labels, scores, qid=qid, metrics="opa", profile="tf-ranking",
                 weights=[1.0, 2.0])
    assert r.metrics["opa"] == pytest.approx((0 + 3 * 2) / (1 + 3 * 2), abs=1e-6)
    # test_ordered_pair_accuracy_with_ragged_inputs
    labels, qid = _ragged([(1, 0, 0), (0, 2), (2, 0, 1, 0)])
    scores = np.array([1, 2, 0, 1, 2, 3, 4, 2, 1], dtype=np.float64)
    r = evaluate(labels, scores, qid=qid, metrics="opa", profile="tf-ranking", per_query=True)
    assert r.metrics["opa"] == pytest.approx((1 + 1 + 3) / (2 + 1 + 5), abs=1e-6)
    assert r.per_query is not None
    assert list(r.per_query["opa"]) == pytest.approx([1 / 2, 1.0, 3 / 5], abs=1e-6)


def test_opa_tied_scores_count_half_wrong_or_as_the_tie_rule_orders() -> None:
    # one query: labels 2, 1, 0 all scored 1.0: three pairs, all tied
    labels, qid = _ragged([(2, 1, 0)])
    scores = np.ones(3)
    base = PROFILES["ltrbench"]
    want = {"average": 0.5, "stable": 1.0, "row_desc": 0.0, "pessimistic": 0.0,
            "optimistic": 1.0, "docno_asc": 1.0, "docno_desc": 0.0}
    for ties, value in want.items():
        prof = dataclasses.replace(base, ties=ties)
        assert evaluate(labels, scores, qid=qid, metrics="opa",
                        profile=prof).metrics["opa"] == pytest.approx(value, abs=TOL), ties
        wrong = dataclasses.replace(prof, pair_ties="wrong")
        assert evaluate(labels, scores, qid=qid, metrics="opa",
                        profile=wrong).metrics["opa"] == 0.0, ties
    assert evaluate(labels, scores, qid=qid, metrics="opa",
                    profile="tf-ranking").metrics["opa"] == 0.0
    # ARP under averaged ties: every position is the group's mean rank, 2
    assert evaluate(labels, scores, qid=qid, metrics="arp").metrics["arp"] == pytest.approx(2.0)


def test_random_ties_give_one_order_between_the_pessimistic_and_optimistic_values() -> None:
    rng = np.random.default_rng(8)
    labels, scores, sizes = random_queries(rng, 30, max_size=8, max_label=3, score_levels=2)
    base = PROFILES["ltrbench"]
    got = {t: evaluate(labels, scores, group=sizes, metrics="arp opa", per_query=True,
                       profile=dataclasses.replace(base, ties=t)).per_query
           for t in ("random", "pessimistic", "optimistic")}
    for family in ("arp", "opa"):
        rnd, lo, hi = (got[t][family].to_numpy() for t in ("random", "pessimistic", "optimistic"))
        a, b = np.minimum(lo, hi), np.maximum(lo, hi)
        ok = ~np.isnan(rnd)
        assert np.all((rnd[ok] >= a[ok] - TOL) & (rnd[ok] <= b[ok] + TOL)), family


def test_blank_queries_are_zero_left_out_or_weightless_as_the_profile_says() -> None:
    # q0: labels all 0 (ARP blank, OPA blank); q1: one label twice (OPA blank); q2: one document
    labels, qid = _ragged([(0, 0), (1, 1), (2,), (1, 0)])
    scores = np.array([1.0, 2.0, 1.0, 2.0, 5.0, 1.0, 2.0])
    for name, arp_q, arp_mean in (
            ("pytorchltr", [0.0, 1.5, 1.0, 2.0], (0 + 1.5 + 1 + 2) / 4),
            ("ltrbench", [math.nan, 1.5, 1.0, 2.0], (1.5 + 1 + 2) / 3),
            ("tf-ranking", [0.0, 1.5, 1.0, 2.0], (3 + 2 + 2) / (2 + 2 + 1))):
        r = evaluate(labels, scores, qid=qid, metrics="arp opa", profile=name, per_query=True)
        assert r.per_query is not None
        np.testing.assert_allclose(r.per_query["arp"].to_numpy(), arp_q, atol=1e-6)
        assert r.metrics["arp"] == pytest.approx(arp_mean, abs=1e-6), name
        # OPA: only q3 has a pair (label 1 over 0, scored 1 < 2: wrong)
        assert r.metrics["opa"] == 0.0, name
    everything_blank = evaluate(np.zeros(3), np.arange(3.0), qid=np.zeros(3, dtype=int),
                                metrics="arp opa", profile="tf-ranking")
    assert all(math.isnan(v) for v in everything_blank.metrics.values())


def test_padding_rows_are_not_pairs_nor_positions_under_tf_ranking() -> None:
    padded, qid = _ragged([(-1, 2, -1, 1, 0)])
    scores = np.array([99.0, 3.0, 50.0, 1.0, 2.0])
    r = evaluate(padded, scores, qid=qid, metrics="arp opa", profile="tf-ranking")
    plain = evaluate(np.array([2.0, 1.0, 0.0]), np.array([3.0, 1.0, 2.0]),
                     qid=np.zeros(3, dtype=int), metrics="arp opa", profile="tf-ranking")
    assert r.metrics == plain.metrics
    assert r.metrics["arp"] == pytest.approx((2 * 1 + 1 * 3) / 3, abs=1e-6)
    assert r.metrics["opa"] == pytest.approx(2 / 3, abs=1e-6)


def test_opa_kernel_counts_every_label_level_of_graded_lists() -> None:
    ys = np.array([3.0, 0.0, 2.0, 2.0, 1.0, 0.5])
    ss = np.arange(6.0)[::-1].copy()
    gidx = np.zeros(6, dtype=np.int64)
    right, pairs = opa_sums(gidx, ss, ys, np.array([0, 6]), "order")
    labels = list(ys)
    want_pairs = sum(a > b for a in labels for b in labels)
    want_right = sum(labels[i] > labels[j] for i in range(6) for j in range(i + 1, 6))
    assert (right[0], pairs[0]) == (want_right, want_pairs) == (10, 14)


# ---------------------------------------------------------------- GAUC's weights


def test_gauc_weighs_by_documents_or_by_relevant_documents_as_sklearn_per_query() -> None:
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(11)
    labels, scores, sizes = random_queries(rng, 30, max_size=9, binary=True)
    starts = np.concatenate([[0], np.cumsum(sizes)])
    aucs, n_docs, n_pos = [], [], []
    for q in range(sizes.shape[0]):
        y, s = labels[starts[q]:starts[q + 1]], scores[starts[q]:starts[q + 1]]
        if 0 < y.sum() < y.shape[0]:
            aucs.append(roc_auc_score(y, s))
            n_docs.append(y.shape[0])
            n_pos.append(y.sum())
    weights = rng.uniform(1, 2, size=sizes.shape[0])  # ignored by GAUC under either weight
    docs = evaluate(labels, scores, group=sizes, metrics="gauc", weights=weights)
    assert docs.metrics["gauc"] == pytest.approx(np.average(aucs, weights=n_docs), abs=TOL)
    rec = evaluate(labels, scores, group=sizes, metrics="gauc", profile="recbole")
    assert rec.metrics["gauc"] == pytest.approx(np.average(aucs, weights=n_pos), abs=TOL)
    assert not math.isclose(docs.metrics["gauc"], rec.metrics["gauc"])


def test_recboles_own_gauc_case_by_hand() -> None:
    # RecBole tests/metrics/test_rank_metrics.py test_gauc case 0: users (n, positives, sum of
    # their ranks) = (2, 1, 1), (3, 2, 4), (5, 3, 9); GAUC weighs AUC(u) by its positives
    rows = [(1, 0), (1, 0, 1), (1, 0, 1, 0, 1)]  # positives at ranks {1}, {1, 3}, {1, 3, 5}
    labels, qid = _ragged(rows)
    scores = np.concatenate([np.arange(len(r), 0, -1) for r in rows]).astype(np.float64)
    auc = [(2 - 0 / 2 - 1 / 1) / (2 - 1), (3 - 1 / 2 - 4 / 2) / (3 - 2),
           (5 - 2 / 2 - 9 / 3) / (5 - 3)]
    r = evaluate(labels, scores, qid=qid, metrics="gauc", profile="recbole")
    assert r.metrics["gauc"] == pytest.approx((1 * auc[0] + 2 * auc[1] + 3 * auc[2]) / 6,
                                              abs=TOL)


# ---------------------------------------------------------------- TREC input, names, profiles


def test_a_query_the_run_misses_weighs_nothing_in_the_pooled_mean() -> None:
    qrels = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"x": 1}}
    run = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}}
    prof = dataclasses.replace(PROFILES["trec_eval"], missing="zero", list_weight="denominator",
                               name="trec-pooled")
    with pytest.warns(UserWarning, match="no run line"):
        r = evaluate_trec(qrels, run, metrics=["arp", "opa"], profile=prof, per_query=True)
    assert r.per_query is not None
    assert math.isnan(r.per_query["arp"].iloc[1]) or r.per_query["arp"].iloc[1] == 0.0
    assert r.metrics["arp"] == pytest.approx((2 * 1 + 1 * 3) / 3, abs=TOL)
    assert r.metrics["opa"] == pytest.approx(2 / 3, abs=TOL)


def test_names_headers_and_records() -> None:
    for name, header in (("arp", "ARP"), ("opa", "OPA")):
        fam = FAMILIES[name]
        assert fam.header == header
        assert not fam.cutoff
        assert fam.weight is not None
        assert parse_metrics(header)[0].family == name
    assert FAMILIES["gauc"].weight is not None
    with pytest.raises(ConfigError):
        parse_metrics("arp@10")


@pytest.mark.parametrize(("field", "bad"), [("list_weight", "pooled"), ("pair_ties", "half"),
                                        ("gauc_weight", "users")])
def test_unknown_pair_conventions_are_refused_naming_the_field(field: str, bad: str) -> None:
    with pytest.raises(ConfigError, match=field):
        Profile(name="x", **{field: bad})  # type: ignore[arg-type]


def test_the_named_profiles_hold_their_tools_conventions() -> None:
    assert (PROFILES["tf-ranking"].list_weight, PROFILES["tf-ranking"].pair_ties) == (
        "denominator", "wrong")
    assert PROFILES["pytorchltr"].list_weight == "query"
    assert PROFILES["recbole"].gauc_weight == "relevant"
    assert PROFILES["ltrbench"].gauc_weight == "documents"


def test_parts_of_disjoint_queries_combine_to_the_single_evaluation() -> None:
    # Dask partitions and files go through combine/summarise: the families' own mean weights
    # (GAUC's documents or positives, ARP's and OPA's denominators) must travel with the parts.
    from bench.metrics.evaluate import query_parts
    from bench.metrics.query_parts import combine, summarise
    from bench.metrics.validate import prepare

    rng = np.random.default_rng(21)
    labels, scores, sizes = random_queries(rng, 30, max_size=8, max_label=2)
    qid = np.repeat(np.arange(sizes.shape[0]), sizes)
    w = rng.uniform(0.5, 2.0, size=sizes.shape[0])
    cut = int(np.cumsum(sizes)[14])
    for name in ("tf-ranking", "recbole-like", "ltrbench"):
        prof = (dataclasses.replace(PROFILES["ltrbench"], gauc_weight="relevant", name=name)
                if name == "recbole-like" else PROFILES[name])
        specs = parse_metrics("arp opa gauc auc")
        whole = evaluate(labels, scores, qid=qid, metrics="arp opa gauc auc", profile=prof,
                         weights=w)
        parts = [query_parts(prepare(labels[a:b], scores[a:b], qid=qid[a:b], group=None,
                                     weights=w[np.unique(qid[a:b])]), specs, prof)
                 for a, b in ((0, cut), (cut, labels.shape[0]))]
        joined = summarise(combine(parts), specs, prof)
        for key, value in whole.metrics.items():
            assert joined.metrics[key] == pytest.approx(value, abs=1e-12), (name, key)
