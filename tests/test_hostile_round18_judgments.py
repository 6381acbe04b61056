"""Round 18: an IR evaluation researcher with unusual relevance judgments and runs from real TREC
tracks checks every number against pytrec_eval, ir_measures, ranx and scikit-learn.

Judgments as TREC Web and other tracks write them (-2 junk, -1, graded up to 4, levels far above
31, the iteration column holding anything), runs as systems write them (exponent notation, a
leading '+', a rank column that contradicts the scores, ties broken by docno), queries judged
but all non-relevant, runs for unjudged queries only, cutoffs beyond the list and cutoff 0,
relevance levels (``P(rel=2)@5``, ``--relevance-level``), ``Rprec``, ``recip_rank``,
``success``, ``Judged@k`` and the counts, single runs and comparisons, under every profile.
Each case: the oracle's number (computed in the test by the tool, or by hand), or a clear
refusal naming the file and line (or the key, or the metric as written) and what is expected.
"""

from __future__ import annotations

import csv
import io
import math
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hostile_kit import api_refused, call, cli, csv_values, own_error, refused

from bench.metrics import evaluate, evaluate_trec
from bench.metrics.profiles import get_profile
from bench.report.compare_runs import compare_runs

pytrec_eval = pytest.importorskip("pytrec_eval")

Qrels = dict[str, dict[str, int]]
Run = dict[str, dict[str, float]]

# A TREC Web-style judgment set: -2 junk, -1, 0, graded 1..4; query 3 judged only
# non-relevant (0 and -2); query 4 judged but not retrieved.
WEB_QRELS: Qrels = {
    "201": {"d1": 4, "d2": -2, "d3": 1, "d4": 0, "d5": 2, "d6": -1},
    "202": {"e1": 0, "e2": 3, "e3": -1, "e4": 1},
    "203": {"f1": 0, "f2": -2},
    "204": {"g1": 2},
}
WEB_RUN: Run = {
    "201": {"d2": 9.5, "d1": 8.25, "d7": 8.0, "d4": 7.0, "d3": 6.5, "d6": 2.0},
    "202": {"e3": 3.0, "e1": 2.0, "e2": 1.0, "e9": 0.5},
    "203": {"f1": 1.0, "f2": 0.5, "f3": 0.25},
}
PTE_NAMES = ["ndcg_cut_5", "map", "P_5", "recip_rank", "Rprec", "bpref", "ndcg"]


def _quiet(fn: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


def _pte(qrels: Qrels, run: Run, names: list[str], **kw: Any) -> dict[str, dict[str, float]]:
    def request(n: str) -> str:
        head, _, tail = n.rpartition("_")
        return f"{head}.{tail}" if head and tail.isdigit() and head != "num" else n
    return dict(pytrec_eval.RelevanceEvaluator(qrels, {request(n) for n in names}, **kw)
                .evaluate(run))


def _trec_text(qrels: Qrels | None = None, run: Run | None = None) -> tuple[str, str]:
    q = "".join(f"{t} 0 {d} {v}\n" for t, ds in (qrels or {}).items() for d, v in ds.items())
    r = "".join(f"{t} Q0 {d} {i} {s!r} sys\n" for t, ds in (run or {}).items()
                for i, (d, s) in enumerate(ds.items(), 1))
    return q, r


def _files(tmp_path: Path, qrels: str, run: str, names: tuple[str, str] = ("q.txt", "r.txt")
           ) -> tuple[str, str]:
    (tmp_path / names[0]).write_text(qrels)
    (tmp_path / names[1]).write_text(run)
    return names


# ------------------------------------------------------------ TREC Web judgments vs pytrec_eval
def test_web_judgments_with_junk_and_negative_levels_equal_pytrec_eval_per_query() -> None:
    # query 203 (judged 0 and -2 only) is left out of pytrec_eval's call: pytrec_eval 0.5.11
    # can crash on a query judged only negatively beside several measures (see round 16)
    qrels = {q: v for q, v in WEB_QRELS.items() if q != "203"}
    want = _pte(qrels, WEB_RUN, PTE_NAMES)
    res = _quiet(lambda: evaluate_trec(qrels, WEB_RUN, metrics=PTE_NAMES, per_query=True))
    table = res.per_query.set_index("qid")
    for q in want:
        for n in PTE_NAMES:
            assert table.loc[q, n] == pytest.approx(want[q][n], abs=1e-12), (q, n)
    for n in PTE_NAMES:
        assert res.metrics[n] == pytest.approx(np.mean([want[q][n] for q in want]), abs=1e-12)


def test_query_judged_only_non_relevant_scores_zero_and_counts_under_trec_eval() -> None:
    """trec_eval: query 203 has judgments and run lines, num_rel = 0: map and ndcg 0, counted."""
    base = {q: v for q, v in WEB_QRELS.items() if q != "203"}
    want = _pte(base, WEB_RUN, ["map", "ndcg_cut_5"])
    res = _quiet(lambda: evaluate_trec(WEB_QRELS, WEB_RUN, metrics=["map", "ndcg_cut_5"],
                                       per_query=True))
    table = res.per_query.set_index("qid")
    assert table.loc["203", "map"] == 0.0
    assert table.loc["203", "ndcg_cut_5"] == 0.0
    for n in ("map", "ndcg_cut_5"):  # 201, 202 and 203 (0): the mean over three queries
        assert res.metrics[n] == pytest.approx((want["201"][n] + want["202"][n]) / 3, abs=1e-12)


def test_counts_with_negative_judgments_equal_pytrec_eval_sums() -> None:
    qrels = {q: v for q, v in WEB_QRELS.items() if q != "203"}
    names = ["num_rel", "num_ret", "num_rel_ret"]
    want = _pte(qrels, WEB_RUN, names)
    res = _quiet(lambda: evaluate_trec(qrels, WEB_RUN, metrics=names))
    for n in names:
        assert res.metrics[n] == sum(want[q][n] for q in want), n


def test_relevance_level_two_on_web_judgments_equals_pytrec_eval() -> None:
    qrels = {q: v for q, v in WEB_QRELS.items() if q != "203"}
    names = ["map", "P_5", "recip_rank", "Rprec", "success_1", "ndcg_cut_5"]
    want = _pte(qrels, WEB_RUN, names, relevance_level=2)
    prof = replace(get_profile("trec_eval"), relevance_threshold=2.0)
    res = _quiet(lambda: evaluate_trec(qrels, WEB_RUN, metrics=names, profile=prof,
                                       per_query=True))
    table = res.per_query.set_index("qid")
    for q in want:
        for n in names:
            assert table.loc[q, n] == pytest.approx(want[q][n], abs=1e-12), (q, n)


def test_cli_relevance_level_3_and_recip_rank_equal_pytrec_eval(tmp_path: Path) -> None:
    qrels = {q: v for q, v in WEB_QRELS.items() if q != "203"}
    q, r = _files(tmp_path, *_trec_text(qrels, WEB_RUN))
    names = ["recip_rank", "map", "P_5"]
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--relevance-level", "3",
              "--metrics", ",".join(names), "--format", "csv")
    assert res.status == 0, res.err
    want = _pte(qrels, WEB_RUN, names, relevance_level=3)
    got = csv_values(res)
    for n in names:
        assert got[n] == pytest.approx(np.mean([want[t][n] for t in want]), abs=1e-12), n


def test_relevance_far_above_31_is_a_linear_gain_under_trec_eval() -> None:
    """Level 1000 equals pytrec_eval. Level 2^40 is checked by hand only: trec_eval 9.0.8 keeps
    one counter per relevance level (form_res_rels.c), so pytrec_eval runs for minutes at 2^20
    and at 2^40 (its allocation fails) returns 0.6307, no NDCG of these judgments."""
    qrels: Qrels = {"1": {"a": 1000, "b": 1, "c": 0}, "2": {"x": 2**40, "y": 3}}
    run: Run = {"1": {"b": 3.0, "a": 2.0, "c": 1.0}, "2": {"y": 2.0, "x": 1.0}}
    want = _pte({"1": qrels["1"]}, {"1": run["1"]}, ["ndcg_cut_2", "ndcg"])["1"]
    res = _quiet(lambda: evaluate_trec(qrels, run, metrics=["ndcg_cut_2", "ndcg"], per_query=True))
    table = res.per_query.set_index("qid")
    assert table.loc["1", "ndcg_cut_2"] == pytest.approx(want["ndcg_cut_2"], rel=1e-12)
    assert table.loc["1", "ndcg"] == pytest.approx(want["ndcg"], rel=1e-12)
    c = 1 / math.log2(3)  # by hand: DCG = 1 + 1000 c, ideal = 1000 + c
    assert table.loc["1", "ndcg_cut_2"] == pytest.approx((1 + 1000 * c) / (1000 + c), rel=1e-12)
    big = 2.0**40
    assert table.loc["2", "ndcg_cut_2"] == pytest.approx((3 + big * c) / (big + 3 * c), rel=1e-12)


@pytest.mark.parametrize("profile", ["ltrbench", "lightgbm", "ranx-burges"])
def test_relevance_above_the_exp2_table_is_refused_naming_line_and_profile(
        tmp_path: Path, profile: str) -> None:
    q, r = _files(tmp_path, "7 0 a 1\n7 0 b 40\n", "7 Q0 a 1 2 s\n7 Q0 b 2 1 s\n")
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--profile", profile,
              "--metrics", "ndcg@2")
    assert refused(res, "q.txt:2", "40", profile) is None, res.err


# ---------------------------------------------------------------- the file grammar of systems
@pytest.mark.parametrize("spelling", ["+2.5", "2.5E+00", "25e-1", "0.25e1", "2.50"])
def test_score_spellings_of_real_systems_rank_as_their_value(tmp_path: Path,
                                                             spelling: str) -> None:
    """'+2.5', '2.5E+00', '25e-1': one value 2.5; trec_eval (atof) reads them so. Against a
    document at 2.4 the relevant one comes first: P_1 = 1."""
    q, r = _files(tmp_path, "5 0 rel 1\n5 0 non 0\n",
                  f"5 Q0 non 1 2.4 s\n5 Q0 rel 2 {spelling} s\n")
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--metrics", "P_1,map",
              "--format", "csv")
    assert res.status == 0, res.err
    assert csv_values(res) == {"P_1": 1.0, "map": 1.0}


@pytest.mark.parametrize("spelling", ["0X1P-3", "NaN", "-Infinity", "+inf", "1,5", "2.5f"])
def test_score_spellings_that_are_no_decimal_are_refused_naming_line_and_column(
        tmp_path: Path, spelling: str) -> None:
    q, r = _files(tmp_path, "5 0 rel 1\n", f"5 Q0 non 1 2 s\n5 Q0 rel 2 {spelling} s\n")
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--metrics", "map")
    assert refused(res, "r.txt:2", "score", spelling) is None, res.err


def test_rank_column_contradicting_scores_is_ignored_as_trec_eval_does(tmp_path: Path) -> None:
    qrels: Qrels = {"9": {"a": 1, "b": 0, "c": 1}}
    run: Run = {"9": {"a": 0.2, "b": 0.9, "c": 0.5}}
    # ranks written 1, 2, 3 in the order a, b, c: the opposite of the scores for a
    q, r = _files(tmp_path, *_trec_text(qrels, run))
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--metrics", "map,recip_rank",
              "--format", "csv")
    want = _pte(qrels, run, ["map", "recip_rank"])["9"]
    assert res.status == 0, res.err
    assert csv_values(res) == pytest.approx(want, abs=1e-12)
    assert want["recip_rank"] == 0.5  # b (0.9) first, c second


@pytest.mark.parametrize("iteration", ["7", "Q0", "-1", "x"])
def test_qrels_iteration_column_of_any_text_is_ignored_as_trec_eval_does(
        tmp_path: Path, iteration: str) -> None:
    q, r = _files(tmp_path, f"3 {iteration} a 2\n3 {iteration} b 0\n3 {iteration} c 1\n",
                  "3 Q0 b 1 3 s\n3 Q0 c 2 2 s\n3 Q0 a 3 1 s\n")
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--metrics", "ndcg_cut_3",
              "--format", "csv")
    want = _pte({"3": {"a": 2, "b": 0, "c": 1}}, {"3": {"b": 3.0, "c": 2.0, "a": 1.0}},
                ["ndcg_cut_3"])["3"]["ndcg_cut_3"]
    assert res.status == 0, res.err
    assert csv_values(res)["ndcg_cut_3"] == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize(("lines", "words"), [
    ("4 0 a 1\n4 0 b 0\n4 0 a 1\n", ("q.txt:3", "'a'", "line 1")),   # agreeing duplicate
    ("4 0 a 1\n4 0 b 0\n4 0 a 3\n", ("q.txt:3", "'a'", "line 1")),   # conflicting duplicate
])
def test_duplicate_judgments_are_refused_naming_both_lines(tmp_path: Path, lines: str,
                                                           words: tuple[str, ...]) -> None:
    q, r = _files(tmp_path, lines, "4 Q0 a 1 2 s\n4 Q0 b 2 1 s\n")
    for profile in ("trec_eval", "ranx", "sklearn"):
        res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--profile", profile,
                  "--metrics", "ndcg@2")
        assert refused(res, *words) is None, (profile, res.err)


@pytest.mark.parametrize("rel", ["0.5", "1.5", "2.0", "1e1", "0x2"])
def test_fractional_or_non_decimal_relevance_is_refused_naming_line_and_column(
        tmp_path: Path, rel: str) -> None:
    q, r = _files(tmp_path, f"4 0 a {rel}\n", "4 Q0 a 1 2 s\n")
    for profile in ("trec_eval", "sklearn"):
        res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--profile", profile,
                  "--metrics", "ndcg@2")
        assert refused(res, "q.txt:1", "rel", rel) is None, (profile, res.err)


def test_fractional_relevance_in_a_dict_is_refused_naming_the_keys() -> None:
    err = own_error(lambda: evaluate_trec({"q": {"a": 1.5}}, {"q": {"a": 1.0}},
                                          metrics="ndcg@1", profile="sklearn"),
                    "['q']['a']", "1.5")
    assert err is None, err


def test_duplicate_run_pair_is_refused_under_every_profile(tmp_path: Path) -> None:
    q, r = _files(tmp_path, "4 0 a 1\n4 0 b 0\n",
                  "4 Q0 a 1 2 s\n4 Q0 b 2 1 s\n4 Q0 a 3 0.5 s\n")
    for profile in ("trec_eval-c", "ranx", "recommenders"):
        res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--profile", profile,
                  "--metrics", "ndcg@2")
        assert refused(res, "r.txt:3", "'a'") is None, (profile, res.err)


# ----------------------------------------------------------------------------- ties by docno
def test_trec_eval_ties_break_by_docno_descending_bytewise(tmp_path: Path) -> None:
    """'d9' > 'd10' > 'D9' byte-wise: with one score, d9 ranks first, D9 last."""
    qrels: Qrels = {"1": {"d10": 0, "d9": 0, "D9": 1}}
    run: Run = {"1": {"D9": 1.0, "d10": 1.0, "d9": 1.0}}
    want = _pte(qrels, run, ["recip_rank", "map"])["1"]
    assert want["recip_rank"] == pytest.approx(1 / 3)
    res = _quiet(lambda: evaluate_trec(qrels, run, metrics=["recip_rank", "map"]))
    assert res.metrics == pytest.approx(want, abs=1e-15)


def test_ties_under_ranx_profile_follow_the_ranx_run_objects_order() -> None:
    """ranx 0.3.21's values, recorded (ranx compiles with numba for half a minute):
    ``ranx.evaluate(Qrels(q), Run(r), ["ndcg@2", "mrr", "map"])``. A Run keeps insertion order
    among ties: D9 (relevant) first, where trec_eval puts it last (recip_rank 1/3, above)."""
    qrels = {"1": {"d10": 0, "d9": 0, "D9": 1}, "2": {"a": 2, "b": 1}}
    run = {"1": {"D9": 1.0, "d10": 1.0, "d9": 1.0}, "2": {"b": 0.5, "a": 0.5}}
    want = {"ndcg@2": 0.9298593499260985, "mrr": 1.0, "map": 1.0}
    c = 1 / math.log2(3)  # by hand, query 2: b then a: (1 + 2c) / (2 + c); query 1: 1
    assert want["ndcg@2"] == pytest.approx((1 + (1 + 2 * c) / (2 + c)) / 2, abs=1e-15)
    res = _quiet(lambda: evaluate_trec(qrels, run, metrics=["ndcg@2", "mrr", "map"],
                                       profile="ranx"))
    assert res.metrics == pytest.approx(want, abs=1e-12)


def test_recommenders_ties_keep_input_order_hand_arithmetic() -> None:
    """MS Recommenders sorts with a stable multi-key sort: a tie keeps the input order. User u:
    b (not relevant) before a (relevant) at one score: precision@1 = 0, recall@2 = 1/1."""
    res = _quiet(lambda: evaluate_trec({"u": {"a": 1}}, {"u": {"b": 0.5, "a": 0.5}},
                                       metrics=["precision@1", "recall@2"],
                                       profile="recommenders"))
    assert res.metrics == {"precision@1": 0.0, "recall@2": 1.0}


# -------------------------------------------------------------------- ir_measures names
@pytest.fixture(scope="module")
def irm() -> Any:
    return pytest.importorskip("ir_measures")


@pytest.mark.parametrize("name", ["P(rel=2)@3", "Success(rel=3)@2", "Judged@3", "RR(rel=2)",
                                  "Rprec(rel=2)", "NumRelRet", "R(rel=2)@2", "AP(rel=4)",
                                  "nDCG@3", "Bpref(rel=2)"])
def test_ir_measures_names_on_web_judgments_with_an_unretrieved_query_equal_ir_measures(
        irm: Any, name: str) -> None:
    """Query 204 is judged but not retrieved: ir_measures scores it 0 and counts it."""
    qrels = {q: v for q, v in WEB_QRELS.items() if q != "203"}
    want = irm.calc_aggregate([irm.parse_measure(name)], qrels, WEB_RUN)
    res = _quiet(lambda: evaluate_trec(qrels, WEB_RUN, metrics=[name]))
    assert res.metrics[name] == pytest.approx(next(iter(want.values())), abs=1e-12), name


# ---------------------------------------------------------------------------------- cutoffs
def test_cutoffs_beyond_the_list_equal_pytrec_eval() -> None:
    qrels: Qrels = {"1": {"a": 1, "b": 2, "z": 1}, "2": {"c": 1}}
    run: Run = {"1": {"a": 0.3, "b": 0.2}, "2": {"c": 0.1}}
    names = ["P_1000", "ndcg_cut_1000", "map_cut_500", "recall_200", "success_10"]
    want = _pte(qrels, run, names)
    res = _quiet(lambda: evaluate_trec(qrels, run, metrics=names))
    for n in names:
        assert res.metrics[n] == pytest.approx(np.mean([want[q][n] for q in want]), abs=1e-12)


@pytest.mark.parametrize(("name", "profile"), [
    ("RR@0", None), ("MRR@0", None), ("precision@0", "ranx"), ("Hit@0", "recbole"),
    ("NDCG@0", "sklearn"), ("P(rel=2)@0", None), ("success.0", None),
])
def test_cutoff_zero_is_refused_naming_the_metric_as_written(name: str,
                                                             profile: str | None) -> None:
    kw = {} if profile is None else {"profile": profile}
    err = own_error(lambda: evaluate_trec({"1": {"a": 1}}, {"1": {"a": 1.0}}, metrics=[name],
                                          **kw), name)
    assert err is None, err


# ------------------------------------------------------------------ empty and one-sided inputs
@pytest.mark.parametrize("text", ["", "\n\n", "   \n", "# only a comment\n"])
def test_empty_qrels_file_is_refused_naming_it(tmp_path: Path, text: str) -> None:
    q, r = _files(tmp_path, text, "1 Q0 a 1 1 s\n")
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r)
    assert refused(res, "q.txt") is None, res.err


def test_run_of_unjudged_queries_only_is_refused_under_trec_eval(tmp_path: Path) -> None:
    q, r = _files(tmp_path, "1 0 a 1\n2 0 b 1\n", "3 Q0 a 1 1 s\n4 Q0 b 1 1 s\n")
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--metrics", "map")
    assert refused(res, "r.txt", "q.txt") is None, res.err


def test_run_of_unjudged_queries_only_scores_zero_over_every_qrels_query_under_c(
        tmp_path: Path) -> None:
    """trec_eval -c: every qrels query counts, scored 0; num_q is the qrels' 2 queries."""
    q, r = _files(tmp_path, "1 0 a 1\n2 0 b 1\n", "3 Q0 a 1 1 s\n4 Q0 b 1 1 s\n")
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--profile", "trec_eval-c",
              "--metrics", "map,P_5,num_q", "--format", "csv")
    assert res.status == 0, res.err
    assert csv_values(res) == {"map": 0.0, "P_5": 0.0, "num_q": 2.0}


def test_ranx_profile_scores_a_query_ranx_never_sees_zero_as_make_comparable() -> None:
    """ranx 0.3.21, recorded: ``ranx.evaluate(Qrels(q), Run(r), metrics,
    make_comparable=True)``; query 2 has no run line (0), query 3's -1 is below rel_lvl."""
    qrels = {"1": {"a": 1, "b": 2}, "2": {"c": 1}, "3": {"d": -1, "e": 1}}
    run = {"1": {"b": 0.5, "a": 0.25, "x": 0.1}, "3": {"e": 0.4, "d": 0.6}}
    want = {"ndcg@3": 0.5436432511904858, "map": 0.5, "precision@2": 0.5,
            "recall@2": 0.6666666666666666, "mrr": 0.5, "hit_rate@1": 1 / 3}
    # by hand, query 3: d (-1, gain 0) then e: ndcg@3 = c / 1, AP = 1/2, RR = 1/2
    c = 1 / math.log2(3)
    assert want["ndcg@3"] == pytest.approx((1 + 0 + c) / 3, abs=1e-15)
    res = _quiet(lambda: evaluate_trec(qrels, run, metrics=list(want), profile="ranx"))
    assert res.metrics == pytest.approx(want, abs=1e-12)


# ----------------------------------------------------------------------------- comparisons
def _two_runs() -> tuple[Qrels, Run, Run]:
    qrels = {q: v for q, v in WEB_QRELS.items() if q != "203"}
    run_b: Run = {"201": {"d1": 1.0, "d5": 0.9, "d3": 0.8}, "202": {"e2": 2.0, "e4": 1.0},
                  "204": {"g1": 1.0}}
    return qrels, WEB_RUN, run_b


def test_comparison_under_ranx_means_equal_ranx_for_each_run() -> None:
    """ranx 0.3.21, recorded: ``ranx.evaluate(Qrels(qrels), Run(run), ["ndcg@5", "map"],
    make_comparable=True)`` per run: A lacks query 204 (0), B ranks every query ideally."""
    qrels, run_a, run_b = _two_runs()
    want = {"A": {"ndcg@5": 0.3060872867005802, "map": 0.15555555555555556},
            "B": {"ndcg@5": 1.0, "map": 1.0}}
    table = _quiet(lambda: compare_runs(qrels, {"A": run_a, "B": run_b},
                                        metrics=["ndcg@5", "map"], profile="ranx",
                                        n_bootstrap=50, n_permutations=50)).to_frame()
    rows = table.set_index("run")
    for name in ("A", "B"):
        for m in ("ndcg@5", "map"):
            assert rows.loc[name, m] == pytest.approx(want[name][m], abs=1e-12), (name, m)


def test_comparison_under_trec_eval_drops_the_query_a_run_lacks_from_both(
        tmp_path: Path) -> None:
    qrels, run_a, run_b = _two_runs()
    q, _ = _files(tmp_path, *_trec_text(qrels, None))
    (tmp_path / "A.run").write_text(_trec_text(None, run_a)[1])
    (tmp_path / "B.run").write_text(_trec_text(None, run_b)[1])
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", "A.run", "--run", "B.run",
              "--metrics", "map", "--format", "csv")
    assert res.status == 0, res.err
    common = {"201", "202"}  # 204 is in B only
    want = {n: np.mean([v["map"] for t, v in _pte(qrels, run, ["map"]).items() if t in common])
            for n, run in (("A", run_a), ("B", run_b))}
    rows = {r["run"]: r for r in csv.DictReader(io.StringIO(res.out))}
    for n in ("A", "B"):
        assert float(rows[n]["map"]) == pytest.approx(want[n], abs=1e-12), n
    assert "204" in res.err  # the dropped query is named


def test_comparison_with_a_run_of_unjudged_queries_only_names_the_run(tmp_path: Path) -> None:
    q, r = _files(tmp_path, "1 0 a 1\n1 0 b 0\n", "1 Q0 a 1 2 s\n1 Q0 b 2 1 s\n")
    (tmp_path / "other.run").write_text("77 Q0 a 1 2 t\n")
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--run", "other.run",
              "--metrics", "map")
    assert refused(res, "other") is None, res.err


def test_comparison_of_a_count_first_is_refused_and_second_is_the_pytrec_sum() -> None:
    qrels, run_a, run_b = _two_runs()
    err = own_error(lambda: compare_runs(qrels, {"A": run_a, "B": run_b},
                                         metrics=["num_rel_ret", "map"]), "num_rel_ret")
    assert err is None, err
    table = _quiet(lambda: compare_runs(qrels, {"A": run_a, "B": run_b},
                                        metrics=["map", "num_rel_ret"], missing="zero",
                                        n_bootstrap=20, n_permutations=20)).to_frame()
    rows = table.set_index("run")
    for name, run in (("A", run_a), ("B", run_b)):
        want = sum(v["num_rel_ret"] for v in _pte(qrels, run, ["num_rel_ret"]).values())
        assert rows.loc[name, "num_rel_ret"] == want, name


# --------------------------------------------------- scikit-learn: one document, labels, ties
def _single_document_warnings(caught: list[warnings.WarningMessage]) -> list[str]:
    """The texts of the SingleDocumentWarnings among ``caught``."""
    return [str(w.message) for w in caught if w.category.__name__ == "SingleDocumentWarning"]


def _sk_rows(labels: list[list[float]], scores: list[list[float]], k: int | None) -> list[float]:
    from sklearn.metrics import ndcg_score
    return [float(ndcg_score([y], [s], k=k)) for y, s in zip(labels, scores, strict=True)]


def _flat(labels: list[list[float]], scores: list[list[float]]) -> dict[str, Any]:
    qid = [i for i, row in enumerate(labels) for _ in row]
    return {"labels": [v for row in labels for v in row],
            "scores": [v for row in scores for v in row], "qid": qid}


def test_sklearn_fractional_labels_and_ties_equal_ndcg_score_per_query() -> None:
    labels = [[0.25, 1.75, 0.0, 3.5], [0.5, 0.5, 2.25]]
    scores = [[0.1, 0.4, 0.4, 0.3], [1.0, 1.0, 1.0]]
    f = _flat(labels, scores)
    res = evaluate(f["labels"], f["scores"], qid=f["qid"], metrics="ndcg@3", profile="sklearn",
                   per_query=True)
    assert res.per_query["ndcg@3"].to_list() == pytest.approx(_sk_rows(labels, scores, 3),
                                                              abs=1e-12)


def test_sklearn_one_document_query_is_scored_as_the_padded_batch_and_warned() -> None:
    """scikit-learn refuses a one-document row alone; in a padded batch it scores the
    document's gain (NDCG 1 here). The value stays the batch's, and a warning names query 7."""
    from sklearn.metrics import ndcg_score
    with pytest.raises(ValueError, match="more than 1 document"):
        ndcg_score([[2.0]], [[0.5]])
    batch = ndcg_score([[2.0, 0.0, 0.0], [0.0, 1.0, 3.0]], [[0.5, -9.0, -9.0], [0.2, 0.3, 0.1]],
                       k=3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = evaluate([2.0, 0.0, 1.0, 3.0], [0.5, 0.2, 0.3, 0.1], qid=[7, 8, 8, 8],
                       metrics="ndcg@3", profile="sklearn")
    assert res.metrics["ndcg@3"] == pytest.approx(batch, abs=1e-12)
    said = _single_document_warnings(caught)
    assert {w.filename for w in caught if w.category.__name__ == "SingleDocumentWarning"} \
        == {__file__}  # the caller's line, as MissingQueriesWarning's
    assert len(said) == 1, said
    assert "'7'" in said[0], said
    assert "ndcg@3" in said[0], said


def test_sklearn_one_document_query_is_not_warned_for_average_precision() -> None:
    """average_precision_score takes one document (1.0 when relevant): no warning for map."""
    from sklearn.metrics import average_precision_score
    assert average_precision_score([1], [0.5]) == 1.0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = evaluate([1, 0, 1], [0.5, 0.2, 0.3], qid=[7, 8, 8], metrics="map", profile="sklearn")
    assert res.metrics["map"] == pytest.approx((1.0 + 1.0) / 2)
    assert not _single_document_warnings(caught)


def test_a_profile_refusing_one_document_queries_names_them() -> None:
    strict = replace(get_profile("sklearn"), name="sklearn-strict",
                     single_document_by_family=(("ndcg", "refuse"),))
    err = own_error(lambda: evaluate([1, 0, 1, 1], [0.5, 0.2, 0.3, 0.9], qid=["q1", "q2", "q2",
                                                                              "q3"],
                                     metrics="ndcg@3", profile=strict),
                    "'q1'", "'q3'", "ndcg@3", "sklearn-strict")
    assert err is None, err


def test_a_profile_with_an_unknown_single_document_policy_is_refused() -> None:
    err = own_error(lambda: replace(get_profile("sklearn"),
                                    single_document_by_family=(("ndcg", "skip"),)),
                    "single_document_by_family", "skip")
    assert err is None, err


def test_cli_sklearn_one_document_query_prints_a_warning_line(tmp_path: Path) -> None:
    (tmp_path / "d.svm").write_text("0 qid:5 1:1\n1 qid:6 1:1\n2 qid:6 1:2\n")
    (tmp_path / "s.txt").write_text("0.9\n0.1\n0.2\n")
    res = cli(tmp_path, "evaluate", "--data", "d.svm", "--scores", "s.txt", "--profile",
              "sklearn", "--metrics", "ndcg@2,dcg@2", "--format", "csv")
    assert res.status == 0, res.err
    # query 5: label 0 alone, scored 0 in the batch; query 6: ideal order -> 1
    assert csv_values(res)["ndcg@2"] == pytest.approx(0.5, abs=1e-12)
    assert "'5'" in res.err, res.err
    assert "one scored document" in res.err, res.err


def test_sklearn_one_document_qrels_query_in_a_comparison_is_warned() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1, "c": 0}}
    runs = {"A": {"q1": {"a": 1.0}, "q2": {"b": 0.5, "c": 0.7}},
            "B": {"q1": {"a": 1.0}, "q2": {"b": 0.9, "c": 0.7}}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = compare_runs(qrels, runs, metrics="ndcg@2", profile="sklearn", n_bootstrap=20,
                             n_permutations=20).to_frame().set_index("run")
    assert table.loc["A", "ndcg@2"] == pytest.approx((1 + 1 / math.log2(3)) / 2, abs=1e-12)
    assert any("'q1'" in text for text in _single_document_warnings(caught))


def test_sklearn_negative_label_in_arrays_is_refused_as_ndcg_score_does() -> None:
    from sklearn.metrics import ndcg_score
    with pytest.raises(ValueError, match="negative"):
        ndcg_score([[1.0, -2.0]], [[0.1, 0.2]])
    _, exc = call(lambda: evaluate([1.0, -2.0, 0.5], [0.1, 0.2, 0.3], qid=[1, 1, 1],
                                   metrics="ndcg@2", profile="sklearn"))
    assert api_refused(exc, "negative") is None, exc


def test_a_warning_of_one_compared_run_names_that_run() -> None:
    """Only run B has a one-document query (q1): the warning says it is B's."""
    qrels = {"q1": {"a": 1, "x": 0}, "q2": {"b": 1, "c": 0}}
    runs = {"A": {"q1": {"a": 1.0, "x": 0.5}, "q2": {"b": 0.5, "c": 0.7}},
            "B": {"q1": {"a": 1.0}, "q2": {"b": 0.9, "c": 0.7}}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compare_runs(qrels, runs, metrics="ndcg@2", profile="sklearn", n_bootstrap=20,
                     n_permutations=20)
    said = _single_document_warnings(caught)
    assert len(said) == 1, said
    assert said[0].startswith("run 'B'"), said


def test_sklearn_on_trec_files_averages_ties_and_scores_an_all_non_relevant_query_zero(
        tmp_path: Path) -> None:
    """scikit-learn's ndcg_score per query (a row): query 1 all tied (tie-averaged), query 2
    judged 0 and -2 only (all-zero row: 0, counted in the mean), negative judgments gain 0."""
    from sklearn.metrics import ndcg_score
    q, r = _files(tmp_path, "1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 x 0\n2 0 y -2\n",
                  "1 Q0 a 1 5 s\n1 Q0 b 2 5 s\n1 Q0 c 3 5 s\n2 Q0 y 1 2 s\n2 Q0 x 2 1 s\n")
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--profile", "sklearn",
              "--metrics", "ndcg@2", "--format", "csv")
    assert res.status == 0, res.err
    rows = [float(ndcg_score([[2, 0, 1]], [[5, 5, 5]], k=2)),
            float(ndcg_score([[0, 0]], [[2, 1]], k=2))]
    assert rows[1] == 0.0
    assert csv_values(res)["ndcg@2"] == pytest.approx(sum(rows) / 2, abs=1e-12)


def test_lightgbm_profile_on_a_trec_file_breaks_ties_in_file_order(tmp_path: Path) -> None:
    """LightGBM's stable sort keeps row order among ties: b (0) then a (2) then c (1), exp2
    gain: DCG@2 = 0 + 3/log2(3); ideal 3 + 1/log2(3)."""
    q, r = _files(tmp_path, "1 0 a 2\n1 0 b 0\n1 0 c 1\n",
                  "1 Q0 b 1 5 s\n1 Q0 a 2 5 s\n1 Q0 c 3 5 s\n")
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--profile", "lightgbm",
              "--metrics", "ndcg@2", "--format", "csv")
    assert res.status == 0, res.err
    c = 1 / math.log2(3)
    assert csv_values(res)["ndcg@2"] == pytest.approx(3 * c / (3 + c), abs=1e-12)


def _tie_warnings(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if w.category.__name__ == "TiedScoresWarning"]


def test_ranx_ties_a_dict_and_a_run_order_differently_and_the_profile_says_so() -> None:
    """ranx 0.3.21, recorded: the same tied query scores ndcg@2 0.3801 given as ranx ``Run``
    (insertion order) and 0.7602 given as a dict (numba's argsort, reversed). The profile takes
    row order (the Run's number) and warns, naming the query, that ranx may print another."""
    qrels = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"x": 1, "y": 0}}
    run = {"1": {"a": 0.5, "b": 0.5, "c": 0.5}, "2": {"x": 0.9, "y": 0.1}}
    as_run, as_dict = 0.38009376671593426, 0.7601875334318685
    c = 1 / math.log2(3)
    assert as_run == pytest.approx(1 / (2 + c), abs=1e-15)  # a (1), b (0) of ideal 2 + c
    assert as_dict == pytest.approx((2 + 0 * c) / (2 + c), abs=1e-15)  # c (2), b (0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = evaluate_trec(qrels, run, metrics="ndcg@2", profile="ranx", per_query=True)
    table = res.per_query.set_index("qid")
    assert table.loc["1", "ndcg@2"] == pytest.approx(as_run, abs=1e-12)
    said = _tie_warnings(caught)
    assert len(said) == 1, said
    assert "('1')" in said[0], said
    assert "ranx" in said[0], said


def test_no_tie_warning_without_ties_in_the_top_k_or_under_a_profile_that_reproduces_ties(
        ) -> None:
    qrels = {"1": {"a": 1, "b": 0, "c": 2}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluate_trec(qrels, {"1": {"a": 0.9, "b": 0.5, "c": 0.5}}, metrics="ndcg@1",
                      profile="ranx")  # the tie is below the top 1
        evaluate_trec(qrels, {"1": {"a": 0.5, "b": 0.5, "c": 0.5}}, metrics="ndcg_cut_2")
    assert not _tie_warnings(caught)
