"""Round 16: a metrics maintainer fuzzes the reference evaluator against the tools it claims to
reproduce. Every number here is the tool's own (pytrec_eval, ir_measures, ranx, scikit-learn,
computed in the test by the tool itself) or hand arithmetic; every refusal is a clear error.

Adversarial inputs: ties (equal floats, -0.0 vs 0.0, float32 ties, subnormals, huge magnitudes),
graded and negative labels, judged documents not retrieved and retrieved documents not judged,
queries on one side only, cutoffs beyond the list, one-document and all-zero queries, document
ids that sort differently as text and as numbers, relevance levels, judged-only, many queries.
Per-query values are checked, not only means.
"""

from __future__ import annotations

import csv
import io
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hostile_kit import cli, csv_values, refused
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.errors import LtrbenchError
from bench.metrics import evaluate, evaluate_trec

pytrec_eval = pytest.importorskip("pytrec_eval")

Qrels = dict[str, dict[str, int]]
Run = dict[str, dict[str, float]]

# pytrec_eval's spelling of each trec_eval name ltrbench reads
_PTE = {"ndcg_cut_10": "ndcg_cut_10", "ndcg_cut_3": "ndcg_cut_3", "P_5": "P_5", "P_1": "P_1",
        "P_100": "P_100", "map": "map", "recip_rank": "recip_rank", "bpref": "bpref",
        "Rprec": "Rprec", "ndcg": "ndcg", "recall_3": "recall_3", "map_cut_2": "map_cut_2",
        "success_1": "success_1", "set_P": "set_P", "set_recall": "set_recall"}


def _pte_measure(name: str) -> str:
    """pytrec_eval's measure request for a result key (``ndcg_cut_10`` -> ``ndcg_cut.10``)."""
    head, _, tail = name.rpartition("_")
    return f"{head}.{tail}" if head and tail.isdigit() else name


def _pytrec(qrels: Qrels, run: Run, names: list[str], **kw: Any) -> dict[str, dict[str, float]]:
    ev = pytrec_eval.RelevanceEvaluator(qrels, {_pte_measure(n) for n in names}, **kw)
    return dict(ev.evaluate(run))


def _quiet_trec(qrels: Any, run: Any, metrics: list[str], **kw: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate_trec(qrels, run, metrics=metrics, per_query=True, **kw)


def _same_as_pytrec(qrels: Qrels, run: Run, names: list[str], *, profile: str = "trec_eval",
                    **kw: Any) -> None:
    """ltrbench's means and per-query values equal pytrec_eval's (mean over its queries)."""
    res = _quiet_trec(qrels, run, names, profile=profile)
    want = _pytrec(qrels, run, names, **kw)
    pq = res.per_query.set_index("qid")
    for n in names:
        per = [want[q][n] for q in want]
        mean = float(np.sum(per)) if n.startswith("num_") else float(np.mean(per))
        assert res.metrics[n] == pytest.approx(mean, abs=1e-12), (n, res.metrics[n], mean)
        for q in want:
            assert float(pq.loc[q, n]) == pytest.approx(want[q][n], abs=1e-12), (q, n)


# ----------------------------------------------------------------- trec_eval vs pytrec_eval
def test_all_tied_scores_break_by_docno_text_descending_not_numeric() -> None:
    """'9' > '10' > '1' as bytes: trec_eval ranks 9 first although 10 is the larger number."""
    qrels = {"q": {"10": 1, "9": 0, "1": 2, "100": 0}}
    run = {"q": {"1": 0.5, "9": 0.5, "10": 0.5, "100": 0.5}}
    _same_as_pytrec(qrels, run, ["ndcg_cut_3", "map", "P_1", "recip_rank"])


def test_minus_zero_and_zero_are_one_tie_broken_by_docno() -> None:
    qrels = {"q": {"a": 1, "b": 0, "c": 2}}
    run = {"q": {"a": -0.0, "b": 0.0, "c": -0.0}}
    _same_as_pytrec(qrels, run, ["ndcg_cut_10", "map", "recip_rank", "P_1"])


def test_scores_one_float32_ulp_apart_tie_as_in_trec_eval() -> None:
    """pytrec_eval stores scores as float: 1 and 1 + 1e-9 tie, docno decides."""
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 1.0, "b": 1.0 + 1e-9}}
    _same_as_pytrec(qrels, run, ["ndcg_cut_10", "map", "P_1", "recip_rank"])


def test_subnormal_scores_tie_with_zero_in_float32() -> None:
    qrels = {"q": {"x": 0, "y": 1, "z": 1}}
    run = {"q": {"x": 5e-324, "y": 0.0, "z": -5e-324}}
    _same_as_pytrec(qrels, run, ["ndcg_cut_10", "map", "P_1"])


def test_huge_magnitudes_overflow_float32_into_one_tie() -> None:
    """1e300 and 1e299 are both +inf as float32, as in trec_eval 9: a tie broken by docno."""
    qrels = {"q": {"a": 1, "b": 0, "c": 0}}
    run = {"q": {"a": 1e299, "b": 1e300, "c": -1e300}}
    _same_as_pytrec(qrels, run, ["ndcg_cut_10", "map", "P_1", "recip_rank"])


def test_negative_judgments_are_non_relevant_and_gain_nothing() -> None:
    qrels = {"q": {"a": -1, "b": 2, "c": -2, "d": 1}}
    run = {"q": {"a": 0.9, "c": 0.8, "b": 0.7, "d": 0.1}}
    _same_as_pytrec(qrels, run, ["ndcg_cut_10", "ndcg", "map", "bpref", "Rprec"])


def test_relevance_level_two_matches_pytrec_eval_relevance_level() -> None:
    qrels = {"q": {"a": 1, "b": 2, "c": 0, "d": 2}, "r": {"e": 1, "f": 2}}
    run = {"q": {"a": 0.9, "b": 0.5, "c": 0.4, "d": 0.1}, "r": {"e": 0.9, "f": 0.1}}
    names = ["map", "P_1", "recip_rank", "recall_3", "bpref", "Rprec"]
    prof = "trec_eval+relevance_threshold=2"
    try:
        _same_as_pytrec(qrels, run, names, profile=prof, relevance_level=2)
    except LtrbenchError:  # the CLI's --relevance-level is the documented way: try it there
        from dataclasses import replace

        from bench.metrics.profiles import get_profile
        p = replace(get_profile("trec_eval"), relevance_threshold=2)
        res = _quiet_trec(qrels, run, names, profile=p)
        want = _pytrec(qrels, run, names, relevance_level=2)
        for n in names:
            assert res.metrics[n] == pytest.approx(np.mean([want[q][n] for q in want]), abs=1e-12)


def test_judged_only_removes_unjudged_documents_as_pytrec_eval_does() -> None:
    from dataclasses import replace

    from bench.metrics.profiles import get_profile
    qrels = {"q": {"a": 1, "b": 0, "c": 1}}
    run = {"q": {"u1": 0.99, "a": 0.9, "u2": 0.8, "b": 0.7, "c": 0.1}}
    names = ["ndcg_cut_3", "map", "P_1", "recip_rank", "bpref"]
    res = _quiet_trec(qrels, run, names, profile=replace(get_profile("trec_eval"),
                                                          judged_only=True))
    want = _pytrec(qrels, run, names, judged_docs_only_flag=True)
    for n in names:
        assert res.metrics[n] == pytest.approx(want["q"][n], abs=1e-12), n


def test_cutoff_beyond_the_list_divides_p_by_k() -> None:
    qrels = {"q": {"a": 1, "b": 1}}
    run = {"q": {"a": 0.3, "b": 0.2, "c": 0.1}}
    _same_as_pytrec(qrels, run, ["P_100", "P_5", "ndcg_cut_10", "map_cut_2"])
    assert _quiet_trec(qrels, run, ["P_100"]).metrics["P_100"] == pytest.approx(2 / 100)


def test_a_one_document_query_and_an_all_zero_query_count_as_trec_eval_counts_them() -> None:
    qrels = {"one": {"a": 1}, "zero": {"b": 0, "c": 0}, "ok": {"d": 1, "e": 0}}
    run = {"one": {"a": 0.1}, "zero": {"b": 0.2, "c": 0.1}, "ok": {"e": 0.9, "d": 0.1}}
    _same_as_pytrec(qrels, run, ["ndcg_cut_10", "map", "recip_rank", "P_5", "Rprec"])


def test_judged_not_retrieved_and_retrieved_not_judged_both_count() -> None:
    """The ideal DCG and R come from the qrels; unjudged retrieved documents gain 0."""
    qrels = {"q": {"a": 2, "b": 1, "z": 2, "y": 1}}
    run = {"q": {"u": 0.9, "a": 0.8, "v": 0.7, "b": 0.6}}
    _same_as_pytrec(qrels, run, ["ndcg_cut_10", "ndcg", "map", "recall_3", "Rprec", "bpref"])


def test_queries_on_one_side_only_follow_trec_eval() -> None:
    """A qrels query without a run line is left out (no -c); a run query without qrels too."""
    qrels = {"1": {"a": 1}, "2": {"b": 1}, "3": {"c": 1, "d": 0}}
    run = {"1": {"a": 0.5, "x": 0.6}, "3": {"d": 0.9, "c": 0.8}, "4": {"a": 1.0}}
    _same_as_pytrec(qrels, run, ["ndcg_cut_10", "map", "recip_rank", "P_5"])


def test_many_queries_at_once_match_pytrec_eval_per_query() -> None:
    rng = np.random.default_rng(16)
    qrels: Qrels = {}
    run: Run = {}
    for q in range(120):
        docs = [str(d) for d in rng.choice(60, size=int(rng.integers(1, 15)), replace=False)]
        # labels 0..3: pytrec_eval 0.5.11 can crash (SIGSEGV) on queries judged only negatively
        qrels[f"q{q}"] = {d: int(rng.integers(0, 4)) for d in docs[: max(1, len(docs) // 2)]}
        run[f"q{q}"] = {d: float(rng.integers(0, 4)) / 2 for d in docs}  # many ties
    _same_as_pytrec(qrels, run, ["ndcg_cut_10", "map", "P_5", "recip_rank", "bpref", "Rprec"])


def test_counts_are_sums_over_queries_as_trec_eval_prints() -> None:
    qrels = {"1": {"a": 1, "b": 0}, "2": {"c": 1, "d": 2}}
    run = {"1": {"a": 0.5, "x": 0.4}, "2": {"c": 0.1}}
    _same_as_pytrec(qrels, run, ["num_ret", "num_rel", "num_rel_ret"])


_doc = st.sampled_from(["1", "2", "9", "10", "a", "A", "09"])
_qrels_st = st.dictionaries(st.sampled_from(["1", "2", "10"]),
                            st.dictionaries(_doc, st.integers(0, 2), min_size=1, max_size=5),
                            min_size=1, max_size=3)
_run_st = st.dictionaries(st.sampled_from(["1", "2", "10"]),
                          st.dictionaries(_doc, st.sampled_from([0.0, -0.0, 0.5, 1.0, 1e-9, 2.0]),
                                          min_size=1, max_size=5),
                          min_size=1, max_size=3)


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(qrels=_qrels_st, run=_run_st)
def test_property_trec_eval_profile_equals_pytrec_eval(qrels: Qrels, run: Run) -> None:
    if not set(qrels) & set(run):
        return  # no common query: ltrbench refuses (tested elsewhere), trec_eval prints nothing
    _same_as_pytrec(qrels, run, ["ndcg_cut_3", "map", "P_5", "recip_rank", "Rprec"])


# ----------------------------------------------------------------- ir_measures (trec_eval -c)
_QR = {"1": {"a": 1, "b": 2, "c": 0, "z": 1}, "2": {"d": 1}, "3": {"e": 0, "f": 0},
       "10": {"g": -1, "h": 1}}
_RN = {"1": {"a": 0.5, "b": 0.5, "c": 1e-310, "x": 0.9}, "3": {"e": 1.0},
       "10": {"h": -0.0, "g": 0.0, "i": 0.0}, "99": {"a": 1.0}}


@pytest.fixture(scope="module")
def irm() -> Any:
    return pytest.importorskip("ir_measures")


def _irm_values(irm: Any, names: list[str]) -> tuple[dict[str, float], dict[tuple[str, str], float]]:
    ms = [irm.parse_measure(n) for n in names]
    agg = irm.calc_aggregate(ms, _QR, _RN)
    per = {(str(m.measure), m.query_id): m.value for m in irm.iter_calc(ms, _QR, _RN)}
    return {str(m): v for m, v in agg.items()}, per


@pytest.mark.parametrize("profile", [None, "trec_eval-c"])
def test_ir_measures_names_give_ir_measures_numbers_and_per_query(irm: Any,
                                                                  profile: str | None) -> None:
    names = ["nDCG@10", "AP", "RR", "P(rel=2)@5", "AP(rel=2)", "nDCG@2", "Bpref"]
    agg, per = _irm_values(irm, names)
    res = _quiet_trec(_QR, _RN, names, profile=profile)
    pq = res.per_query.set_index("qid")
    for n in names:
        assert res.metrics[n] == pytest.approx(agg[n], abs=1e-12), n  # the user's own key
        assert res.metric_profiles[n].startswith("trec_eval-c"), n
        for q in _QR:
            assert float(pq.loc[q, n]) == pytest.approx(per[(n, q)], abs=1e-12), (n, q)


def test_ltrbench_headers_under_trec_eval_c_are_ir_measures_numbers(irm: Any) -> None:
    names = ["P@5", "R@10", "Rprec"]
    agg, _ = _irm_values(irm, names)
    res = _quiet_trec(_QR, _RN, names, profile="trec_eval-c")
    for n in names:
        assert res.metrics[n] == pytest.approx(agg[n], abs=1e-12), n


def test_ltrbench_headers_under_default_warn_that_ir_measures_differs(irm: Any) -> None:
    """P@5 under the default trec_eval profile leaves out query 2; ir_measures scores it 0. The
    number may differ, but never silently: the warning names the spelling and the way out."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = evaluate_trec(_QR, _RN, metrics=["P@5"])
    agg, _ = _irm_values(irm, ["P@5"])
    assert res.metrics["P@5"] != pytest.approx(agg["P@5"])
    text = " ".join(str(w.message) for w in caught)
    assert "P@5" in text, text
    assert "trec_eval-c" in text, text


# ----------------------------------------------------------------- ranx
# ranx's numba kernels compile for 10-20 s in every process, more than this file's budget: the
# values below are what ranx 0.3.21 printed for _RANX_QR / _RANX_RN with
# ``ranx.evaluate(Qrels(_RANX_QR), Run(_RANX_RN), metric, make_comparable=True)``, checked by hand
# for map: query 1 ranks x (unjudged), a (1), b (2), c (0) with R = 3 (a, b, z):
# AP = (1/2 + 2/3) / 3; query 10 ranks g, i, h: AP = 1/3; queries 2 (no run line) and 3 (no
# relevant document) score 0; the mean over 4 queries is 0.1805...; run query 99 is dropped.
_RANX_QR = {"1": {"a": 1, "b": 2, "c": 0, "z": 1}, "2": {"d": 1}, "3": {"e": 0, "f": 0},
            "10": {"h": 1}}
_RANX_RN = {"1": {"x": 0.9, "a": 0.5, "c": 1e-310, "b": 0.4}, "3": {"e": 1.0},
            "10": {"h": -0.0, "g": 0.3, "i": 0.2}, "99": {"a": 1.0}}
_RANX_SAYS = {"ndcg@10": 0.2552272712850754, "ndcg@2": 0.059953116642032865,
              "map@10": 0.18055555555555552, "map": 0.18055555555555552,
              "precision@5": 0.15000000000000002, "recall@10": 0.41666666666666663,
              "mrr": 0.20833333333333331, "mrr@1": 0.0, "hit_rate@2": 0.25,
              "r-precision": 0.16666666666666666, "f1@5": 0.20833333333333334,
              "dcg@3": 0.5327324383928644}


def test_ranx_hand_arithmetic_of_map() -> None:
    assert _RANX_SAYS["map"] == pytest.approx(((1 / 2 + 2 / 3) / 3 + 1 / 3) / 4, abs=1e-15)


@pytest.mark.parametrize("metric", sorted(_RANX_SAYS))
def test_ranx_profile_equals_ranx_with_a_missing_query_scored_zero(metric: str) -> None:
    got = _quiet_trec(_RANX_QR, _RANX_RN, [metric], profile="ranx").metrics[metric]
    assert got == pytest.approx(_RANX_SAYS[metric], abs=1e-12)


def test_ranx_burges_profile_equals_ranx_ndcg_burges() -> None:
    want = {"ndcg_burges@10": 0.25396187303409906, "dcg_burges@3": 0.6577324383928644}
    res = _quiet_trec(_RANX_QR, _RANX_RN, list(want), profile="ranx-burges")
    for k, v in want.items():
        assert res.metrics[k] == pytest.approx(v, abs=1e-12), k


def test_ranx_per_query_scores_the_missing_query_zero() -> None:
    want = {"1": 0.5209090851403014, "10": 0.5, "2": 0.0, "3": 0.0}  # Run.scores["ndcg@10"]
    pq = _quiet_trec(_RANX_QR, _RANX_RN, ["ndcg@10"], profile="ranx").per_query.set_index("qid")
    assert set(pq.index) == set(want)
    for qid, v in want.items():
        assert float(pq.loc[qid, "ndcg@10"]) == pytest.approx(v, abs=1e-12), qid


# ----------------------------------------------------------------- scikit-learn
def _sk_rows(labels: list[list[float]], scores: list[list[float]], k: int | None,
             ignore_ties: bool = False) -> list[float]:
    from sklearn.metrics import ndcg_score
    return [float(ndcg_score([y], [s], k=k, ignore_ties=ignore_ties))
            for y, s in zip(labels, scores, strict=True)]


def _ours(labels: list[list[float]], scores: list[list[float]], metric: str,
          profile: str = "sklearn") -> Any:
    y = np.concatenate([np.asarray(v, float) for v in labels])
    s = np.concatenate([np.asarray(v, float) for v in scores])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate(y, s, group=[len(v) for v in labels], metrics=[metric], profile=profile,
                        per_query=True)


_SK_CASES = [
    ([[0, 1, 2], [3, 0, 1]], [[1, 1, 1], [0.0, -0.0, 0.0]], 2),       # full ties, -0.0
    ([[0.5, 1.5, 0], [2, 2, 0, 1]], [[3, 2, 1], [1, 1, 2, 2]], 3),     # non-integer labels
    ([[3, 0, 1], [1, 0]], [[5e-324, 0, 1e-320], [1, 1]], 5),          # subnormals, k > n
    ([[3, 0, 1, 2], [0, 0, 0]], [[1e308, -1e308, 1e308, 0], [1, 2, 3]], 1),  # all-zero row: 0
    ([[10, 0, 0, 1, 5]], [[1, 1, 1, 1, 1]], 5),                       # scholar #360's vector
]


@pytest.mark.parametrize(("labels", "scores", "k"), _SK_CASES)
def test_sklearn_profile_equals_ndcg_score_per_query(labels: list[list[float]],
                                                     scores: list[list[float]], k: int) -> None:
    want = _sk_rows(labels, scores, k)
    res = _ours(labels, scores, f"ndcg@{k}")
    got = res.per_query[f"ndcg@{k}"].to_list()
    assert got == pytest.approx(want, abs=1e-12)
    assert res.metrics[f"ndcg@{k}"] == pytest.approx(float(np.mean(want)), abs=1e-12)


def test_sklearn_dcg_equals_dcg_score() -> None:
    from sklearn.metrics import dcg_score
    labels, scores = [[3, 0, 1, 2], [1, 2, 0]], [[0.2, 0.2, 0.9, -0.0], [0.0, 0.0, 1.0]]
    want = [float(dcg_score([y], [s], k=3)) for y, s in zip(labels, scores, strict=True)]
    assert _ours(labels, scores, "dcg@3").per_query["dcg@3"].to_list() == pytest.approx(want)


def test_sklearn_ignore_ties_equals_ndcg_score_on_tie_free_rows() -> None:
    labels, scores = [[0, 1, 2, 0], [2, 0, 1]], [[0.4, 0.3, 0.2, 0.1], [0.1, 0.9, 0.5]]
    want = _sk_rows(labels, scores, 3, ignore_ties=True)
    got = _ours(labels, scores, "ndcg@3", "sklearn-ignore-ties").per_query["ndcg@3"].to_list()
    assert got == pytest.approx(want, abs=1e-12)


def test_sklearn_auc_equals_roc_auc_score_with_ties() -> None:
    from sklearn.metrics import roc_auc_score
    labels, scores = [[1, 0, 1, 0], [0, 1, 1, 0, 0]], [[0.5, 0.5, 0.2, 0.9], [3, 3, 3, 1, 1]]
    want = [float(roc_auc_score(y, s)) for y, s in zip(labels, scores, strict=True)]
    assert _ours(labels, scores, "auc").per_query["auc"].to_list() == pytest.approx(want)


def test_sklearn_profile_refuses_negative_labels_as_ndcg_score_does() -> None:
    with pytest.raises(LtrbenchError, match="negative"):
        _ours([[2, -1, 1]], [[3, 2, 1]], "ndcg@3")


def _padded_ndcg(labels: list[list[float]], scores: list[list[float]], k: int) -> list[float]:
    """sklearn's per-row values for ragged queries fed as one 2-D batch (how ndcg_score takes
    several queries): padding has label 0 and a score below every real one, so it neither ties
    with a document nor adds gain (tests/test_metrics_profiles.py's ``_padded``)."""
    from sklearn.metrics import ndcg_score
    width = max(len(v) for v in labels)
    low = min(min(v) for v in scores) - 10.0
    yt = [list(y) + [0.0] * (width - len(y)) for y in labels]
    ys = [list(v) + [low] * (width - len(v)) for v in scores]
    return [float(ndcg_score([y], [v], k=k)) for y, v in zip(yt, ys, strict=True)]


def test_sklearn_profile_one_document_query_in_a_batch_is_the_padded_batch_value() -> None:
    """ndcg_score refuses a row of one document alone ('only meaningful when there is more
    than 1 document'), but in a batch of ragged queries (padded) the one-document query scores
    1 when relevant and 0 when not; the profile follows the batch, as the mean says."""
    from sklearn.metrics import ndcg_score
    with pytest.raises(ValueError, match="more than 1 document"):
        ndcg_score([[1.0]], [[0.3]])
    labels, scores = [[1], [0], [0, 1, 2]], [[0.3], [0.7], [0.5, 0.1, 0.2]]
    want = _padded_ndcg(labels, scores, 3)
    res = _ours(labels, scores, "ndcg@3")
    assert res.per_query["ndcg@3"].to_list() == pytest.approx(want, abs=1e-12)
    assert res.metrics["ndcg@3"] == pytest.approx(float(np.mean(want)), abs=1e-12)


def test_sklearn_one_document_query_under_other_profiles_still_scores() -> None:
    """LightGBM and trec_eval do score a one-document query (1 with a relevant document)."""
    res = _ours([[1], [0, 1, 2]], [[0.3], [0.1, 0.5, 0.2]], "ndcg@3", "lightgbm")
    assert res.per_query["ndcg@3"][0] == 1.0


# ----------------------------------------------------------------- names and profiles
def test_a_qualified_sklearn_name_under_trec_eval_is_sklearns_number() -> None:
    qrels = {"q": {"a": 1, "b": 0, "c": 2}}
    run = {"q": {"a": 0.5, "b": 0.5, "c": 0.5}}
    res = _quiet_trec(qrels, run, ["sklearn:ndcg@2", "ndcg_cut_2"])
    assert res.metrics["sklearn:ndcg@2"] == pytest.approx(_sk_rows([[1, 0, 2]], [[1, 1, 1]], 2)[0])
    assert res.metric_profiles["sklearn:ndcg@2"] == "sklearn"
    assert res.metric_profiles["ndcg_cut_2"] == "trec_eval"


def test_a_trec_eval_name_under_the_sklearn_profile_is_refused_with_the_way_to_ask() -> None:
    with pytest.raises(LtrbenchError, match="trec_eval:ndcg_cut_10"):
        evaluate_trec({"q": {"a": 1}}, {"q": {"a": 0.5, "b": 0.4}}, metrics=["ndcg_cut_10"],
                      profile="sklearn")


def test_ir_measures_is_no_profile_name_and_the_error_lists_trec_eval_c(tmp_path: Path) -> None:
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 0.5 t\n")
    res = cli(tmp_path, "evaluate", "--qrels", "q", "--run", "r", "--profile", "ir_measures")
    assert refused(res, "ir_measures", "trec_eval-c") is None, res.err


# ----------------------------------------------------------------- the command line
def _files(tmp_path: Path, qrels: Qrels, run: Run, eol: str = "\n") -> None:
    (tmp_path / "q.txt").write_bytes("".join(
        f"{q} 0 {d} {v}{eol}" for q, ds in qrels.items() for d, v in ds.items()).encode())
    (tmp_path / "r.txt").write_bytes("".join(
        f"{q} Q0 {d} {i} {s!r} t{eol}" for q, ds in run.items()
        for i, (d, s) in enumerate(ds.items())).encode())


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_cli_means_and_per_query_csv_equal_pytrec_eval_for_every_line_end(
        tmp_path: Path, eol: str) -> None:
    qrels = {"1": {"10": 1, "9": 0, "1": 2}, "2": {"a": 1, "b": 0}, "3": {"c": 1}}
    run = {"1": {"1": 0.5, "9": 0.5, "10": 0.5}, "2": {"b": -0.0, "a": 0.0}, "4": {"a": 1.0}}
    _files(tmp_path, qrels, run, eol)
    names = ["ndcg_cut_10", "P_5", "map", "recip_rank", "bpref"]
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics",
              ",".join(names), "--format", "csv", "--per-query", "pq.csv")
    assert res.status == 0, res.err
    want = _pytrec(qrels, run, names)
    got = csv_values(res)
    rows = {r["qid"]: r for r in csv.DictReader(io.StringIO((tmp_path / "pq.csv").read_text()))}
    assert set(rows) == set(want)
    for n in names:
        assert got[n] == pytest.approx(np.mean([want[q][n] for q in want]), abs=1e-12), n
        for q in want:
            assert float(rows[q][n]) == pytest.approx(want[q][n], abs=1e-12), (q, n)


def test_cli_trec_eval_c_scores_the_missing_query_zero_in_every_metric(tmp_path: Path,
                                                                     irm: Any) -> None:
    _files(tmp_path, _QR, _RN)
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--profile",
              "trec_eval-c", "--metrics", "P_5,map,ndcg_cut_10", "--format", "csv")
    assert res.status == 0, res.err
    agg, _ = _irm_values(irm, ["P@5", "AP", "nDCG@10"])
    got = csv_values(res)
    for ours, theirs in (("P_5", "P@5"), ("map", "AP"), ("ndcg_cut_10", "nDCG@10")):
        assert got[ours] == pytest.approx(agg[theirs], abs=1e-12), ours


def test_cli_profile_column_names_each_metrics_profile(tmp_path: Path) -> None:
    _files(tmp_path, _QR, _RN)
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics",
              "ndcg_cut_10,nDCG@10", "--format", "csv")
    assert res.status == 0, res.err
    prof = {r["metric"]: r["profile"] for r in csv.DictReader(io.StringIO(res.out))}
    assert prof == {"ndcg_cut_10": "trec_eval", "nDCG@10": "trec_eval-c"}


def test_cli_duplicate_run_line_is_refused_naming_the_line(tmp_path: Path) -> None:
    (tmp_path / "q.txt").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 0.4 t\n1 Q0 b 2 0.9 t\n1 Q0 a 3 0.1 t\n")
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics", "map")
    assert refused(res, "r.txt:3", "'a'") is None, res.err


def test_cli_sklearn_profile_one_document_query_scores_as_the_padded_batch(tmp_path: Path) -> None:
    (tmp_path / "d.svm").write_text("1 qid:1 1:1\n0 qid:2 1:1\n2 qid:2 1:2\n1 qid:2 1:3\n")
    (tmp_path / "s.txt").write_text("0.3\n0.5\n0.1\n0.2\n")
    res = cli(tmp_path, "evaluate", "--data", "d.svm", "--scores", "s.txt", "--profile",
              "sklearn", "--metrics", "ndcg@3", "--format", "csv", "--per-query", "pq.csv")
    assert res.status == 0, res.err
    want = _padded_ndcg([[1], [0, 2, 1]], [[0.3], [0.5, 0.1, 0.2]], 3)
    assert want[1] < 0.9
    assert csv_values(res)["ndcg@3"] == pytest.approx(float(np.mean(want)), abs=1e-12)
    rows = list(csv.DictReader(io.StringIO((tmp_path / "pq.csv").read_text())))
    assert [float(r["ndcg@3"]) for r in rows] == pytest.approx(want, abs=1e-12)


def test_cli_compared_runs_per_query_equal_pytrec_eval_on_the_common_queries(tmp_path: Path) -> None:
    """Run B lacks query 3: the comparison drops it from both runs (trec_eval's profile), and
    each run's per-query value is pytrec_eval's on its own run."""
    qrels = {"1": {"10": 1, "9": 0, "1": 2}, "2": {"a": 1, "b": 0}, "3": {"c": 1}}
    run_a = {"1": {"1": 0.5, "9": 0.5, "10": 0.5}, "2": {"b": -0.0, "a": 0.0}, "3": {"c": 1.0}}
    run_b = {"1": {"1": 0.2, "9": 0.5}, "2": {"a": 0.3, "b": 0.1}}
    _files(tmp_path, qrels, run_a)
    (tmp_path / "A.txt").write_bytes((tmp_path / "r.txt").read_bytes())
    _files(tmp_path, qrels, run_b)
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "A.txt", "--run", "B=r.txt",
              "--metrics", "ndcg_cut_10,map", "--format", "csv", "--per-query", "pq.csv")
    assert res.status == 0, res.err
    rows = list(csv.DictReader(io.StringIO((tmp_path / "pq.csv").read_text())))
    assert {r["qid"] for r in rows} == {"1", "2"}
    for name, run in (("A", run_a), ("B", run_b)):
        want = _pytrec(qrels, run, ["ndcg_cut_10", "map"])
        for r in rows:
            assert float(r[name]) == pytest.approx(want[r["qid"]][r["metric"]], abs=1e-12)
        table = {r["run"]: r for r in csv.DictReader(io.StringIO(res.out))}
        for m in ("ndcg_cut_10", "map"):
            assert float(table[name][m]) == pytest.approx(
                np.mean([want[q][m] for q in ("1", "2")]), abs=1e-12), (name, m)


def test_frames_with_ir_measures_column_names_equal_pytrec_eval() -> None:
    import pandas as pd
    qrels = {"1": {"10": 1, "9": 0, "1": 2}, "2": {"a": 1, "b": 0}}
    run = {"1": {"10": 0.5, "9": 0.5, "1": 0.5}, "2": {"a": -0.0, "b": 0.0}}
    qd = pd.DataFrame([(q, d, v) for q, ds in qrels.items() for d, v in ds.items()],
                      columns=["query_id", "doc_id", "relevance"])
    rd = pd.DataFrame([(q, d, v) for q, ds in run.items() for d, v in ds.items()],
                      columns=["query_id", "doc_id", "score"])
    names = ["ndcg_cut_10", "map", "recip_rank", "P_1"]
    got = _quiet_trec(qd, rd, names).metrics
    want = _pytrec(qrels, run, names)
    for n in names:
        assert got[n] == pytest.approx(np.mean([want[q][n] for q in want]), abs=1e-12), n


def test_a_labelled_frame_with_docno_under_trec_eval_breaks_ties_by_docno() -> None:
    import pandas as pd
    df = pd.DataFrame({"qid": ["1", "1", "1", "2", "2"], "docno": ["10", "9", "1", "a", "b"],
                       "label": [1, 0, 2, 1, 0], "score": [0.5, 0.5, 0.5, -0.0, 0.0]})
    names = {"ndcg@10": "ndcg_cut_10", "map": "map", "mrr": "recip_rank", "p@1": "P_1"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = evaluate(df, label="label", score="score", qid="qid", docno="docno",
                       metrics=list(names), profile="trec_eval").metrics
    qrels = {"1": {"10": 1, "9": 0, "1": 2}, "2": {"a": 1, "b": 0}}
    run = {"1": {"10": 0.5, "9": 0.5, "1": 0.5}, "2": {"a": -0.0, "b": 0.0}}
    want = _pytrec(qrels, run, list(names.values()))
    for ours, theirs in names.items():
        assert got[ours] == pytest.approx(np.mean([want[q][theirs] for q in want]), abs=1e-12)


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(qrels=_qrels_st, run=_run_st)
def test_property_trec_eval_c_is_pytrec_eval_with_missing_queries_zero(qrels: Qrels,
                                                                       run: Run) -> None:
    """trec_eval -c: every qrels query counts, one without a run line scores 0."""
    names = ["ndcg_cut_3", "map", "P_5", "recip_rank"]
    if not set(qrels) & set(run):
        return
    per = _pytrec(qrels, run, names)
    res = _quiet_trec(qrels, run, names, profile="trec_eval-c")
    for n in names:
        want = sum(per[q][n] for q in per) / len(qrels)
        assert res.metrics[n] == pytest.approx(want, abs=1e-12), n


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(rows=st.lists(st.lists(st.tuples(st.sampled_from([0, 0.5, 1, 2, 3]),
                                        st.sampled_from([0.0, -0.0, 1.0, 2.0, 5e-324, 1e300])),
                              min_size=2, max_size=6), min_size=1, max_size=4),
       k=st.sampled_from([1, 3, 10]))
def test_property_sklearn_profile_equals_ndcg_score_row_by_row(
        rows: list[list[tuple[float, float]]], k: int) -> None:
    labels = [[float(a) for a, _ in r] for r in rows]
    scores = [[float(b) for _, b in r] for r in rows]
    want = _sk_rows(labels, scores, k)
    res = _ours(labels, scores, f"ndcg@{k}")
    assert res.per_query[f"ndcg@{k}"].to_list() == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("name", ["nDCG(cutoff=10)", "P(cutoff=5)", "AP(cutoff=5)",
                                  "R(cutoff=10)", "Success(cutoff=1)", "P(rel=2,cutoff=5)",
                                  "nDCG(cutoff=2)@2"])
def test_ir_measures_cutoff_keyword_is_its_at_cutoff(irm: Any, name: str) -> None:
    """ir_measures reads nDCG(cutoff=10) as nDCG@10; it was refused as 'takes no parameter
    cutoff', which is untrue of ir_measures."""
    agg, per = _irm_values(irm, [name])
    res = _quiet_trec(_QR, _RN, [name])
    key = str(irm.parse_measure(name))
    assert res.metrics[name] == pytest.approx(agg[key], abs=1e-12)
    pq = res.per_query.set_index("qid")
    for q in _QR:
        assert float(pq.loc[q, name]) == pytest.approx(per[(key, q)], abs=1e-12), q


@pytest.mark.parametrize(("name", "words"), [
    ("nDCG(cutoff=10)@5", ("two cutoffs", "cutoff=10", "@5")),
    ("nDCG(cutoff=10.0)", ("cutoff", "positive integer")),
    ("nDCG(cutoff=0)", ("cutoff", "nDCG@0")),
    ("Bpref(cutoff=5)", ("Bpref", "no @cutoff")),
])
def test_ir_measures_bad_cutoff_keywords_are_refused_by_name(name: str,
                                                             words: tuple[str, ...]) -> None:
    with pytest.raises(LtrbenchError) as err:
        evaluate_trec(_QR, _RN, metrics=[name])
    for w in words:
        assert w in str(err.value), (w, str(err.value))
