"""Round 14 of the hostile catalogue (issue 19, "names" and "comparisons"): a Kaggle / TREC
competitor who knows every tool's metric grammar (trec_eval, ir_measures, ranx, the GBDT
libraries, the recommender libraries) tries them all in ltrbench, then attacks the same surfaces:
a ranx spelling behind a ``PROFILE:`` qualifier or beside ``--relevance-level``, an ir_measures
name typed in lower case, a comparison table's header pasted back into ``--metrics``, the names
an error suggests, huge cutoffs, the same measure under two spellings, comparisons of identical
runs, of one query, of runs with NaN scores or missing queries.

Found here (failing on the round-13b main, fixed):

* ranx's own spellings behind a qualifier (``ranx:ndcg_burges@10``, ``ranx:r-precision``) were
  unknown metrics; a Burges name behind another tool's qualifier (``lightgbm:ndcg_burges@10``)
  said nothing about why.
* ``--profile ranx --relevance-level 2 --metrics ndcg_burges@10`` printed ranx's level-1 value
  (0.3856) where ranx's ``ndcg_burges@10-l2`` is 0.3668: the option was dropped silently for the
  Burges spellings (the same with ``--run-depth`` and without ``--profile``).
* An ir_measures measure typed in lower case with brackets (``ndcg()@10``, ``map()``, ``p()@5``)
  or ``success@1`` (ir_measures refuses all of them: "measure not found") was read as
  ir_measures' measure under ``trec_eval-c``, beside ``ndcg@10`` under the call's profile: two
  numbers (0.3221 and 0.4832 here) for names that differ by two brackets.
* A comparison table's header (``ndcg_cut_10 [trec_eval]``) pasted into ``--metrics`` was
  "unknown metric '[trec_eval]'" followed by every name.
* "did you mean" offered names that are themselves refused (``precision_10`` suggested for
  ``precision_10``, ``ndcg_10`` for ``ndcg_at_10``).

Oracles: ranx 0.3 (``evaluate(..., make_comparable=True)``, recorded below: ranx compiles its
kernels on first use, ~10 s; each number also worked out by hand in the comments), pytrec_eval
and ir_measures (run here), hand arithmetic.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hostile_kit import api_refused, call, cli, refused

from bench.errors import ConfigError
from bench.metrics import evaluate_trec
from bench.metrics.names import parse_metrics
from bench.metrics.profiles import get_profile

pytrec_eval = pytest.importorskip("pytrec_eval")
ir_measures = pytest.importorskip("ir_measures")

#: Query 3 has judgments but no run line; query 1 has an unjudged document (x) and a tie-free
#: order b, x, a, e, c; query 2 ranks an unjudged e first.
Q = {"1": {"a": 1, "b": 0, "c": 2, "e": 3}, "2": {"d": 1, "f": 2}, "3": {"g": 1}}
R = {"1": {"a": 0.4, "b": 0.9, "c": 0.1, "x": 0.7, "e": 0.3}, "2": {"d": 0.2, "e": 0.8, "f": 0.5}}

#: ranx 0.3 ``evaluate(Qrels(Q), Run(R), [...], make_comparable=True)``, recorded.
#: r-precision: (1/3 + 1/2 + 0) / 3. ndcg_burges@10-l2 (rel >= 2 relevant, a's gain 0):
#: q1 (7/log2(5) + 3/log2(6)) / (7 + 3/log2(3)) = 0.46952, q2 (3/log2(3)) / 3 = 0.63093, q3 0.
RANX = {"ndcg_burges@10": 0.38558512285591723, "ndcg_burges@10-l2": 0.36681478210945745,
        "ndcg_burges@2-l2": 0.21030991785715247, "r-precision": 0.27777777777777773,
        "dcg_burges@3-l3": 0.0}


def _q(fn: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _lines(records: dict[str, dict[str, Any]], kind: str) -> str:
    out = []
    for q, docs in records.items():
        for rank, (d, v) in enumerate(docs.items(), start=1):
            out.append(f"{q} 0 {d} {v}" if kind == "qrels" else f"{q} Q0 {d} {rank} {v} t")
    return "\n".join(out) + "\n"


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "q.txt").write_text(_lines(Q, "qrels"))
    (tmp_path / "r.txt").write_text(_lines(R, "run"))
    return "q.txt", "r.txt"


def _csv(out: str) -> dict[str, float]:
    return {row["metric"]: float(row["value"]) for row in csv.DictReader(io.StringIO(out))}


def _value_or_refused(res: Any, name: str, want: float, *words: str) -> None:
    """The command printed ``want`` for ``name``, or refused with a clear error naming ``words``."""
    assert not res.traceback, res.err
    if res.status == 0:
        got = _csv(res.out).get(name)
        assert got is not None, res.out
        assert math.isclose(got, want, abs_tol=1e-12), \
            f"{name} printed {got}, expected {want} (or a clear error)"
    else:
        assert refused(res, *words) is None, res.err


def _pytrec(measure: str, *, complete: bool = False, qrels: Any = None, run: Any = None) -> float:
    qrels, run = qrels or Q, run or R
    base = re.sub(r"_[0-9]+$", "", measure) if measure[-1].isdigit() else measure
    got = pytrec_eval.RelevanceEvaluator(qrels, {base}).evaluate(run)
    return sum(v[measure] for v in got.values()) / (len(qrels) if complete else len(got))


# -------------------------------------------------------- ranx spellings behind a qualifier
@pytest.mark.parametrize("name", ["ranx:ndcg_burges@10", "ranx-burges:ndcg_burges@10"])
def test_a_qualified_ranx_burges_name_is_ranxs_ndcg_burges(name: str) -> None:
    got = _q(evaluate_trec, Q, R, metrics=name)
    assert got.metrics[name] == pytest.approx(RANX["ndcg_burges@10"], abs=1e-12)
    assert got.metric_profiles[name].startswith("ranx-burges")


@pytest.mark.parametrize(("name", "want"), [
    ("ranx:r-precision", RANX["r-precision"]),
    ("trec_eval:r-precision", (1 / 3 + 1 / 2) / 2),  # trec_eval leaves query 3 out
])
def test_a_qualified_r_precision_is_r_precision_under_that_profile(name: str, want: float) -> None:
    got = _q(evaluate_trec, Q, R, metrics=name)
    assert got.metrics[name] == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("name", ["lightgbm:ndcg_burges@10", "trec_eval:dcg_burges@3"])
def test_a_burges_name_behind_another_tools_qualifier_is_refused_saying_why(name: str) -> None:
    with pytest.raises(ConfigError) as info:
        _q(evaluate_trec, Q, R, metrics=name)
    msg = str(info.value)
    assert name in msg, msg
    assert "ranx-burges" in msg, msg
    assert "valid names:" not in msg, msg  # not the list of every name


# ---------------------------------------------- the call's options reach the Burges names
@pytest.mark.parametrize(("level", "name", "ranx_name"), [
    ("2", "ndcg_burges@10", "ndcg_burges@10-l2"),
    ("2", "ndcg_burges@2", "ndcg_burges@2-l2"),
    ("3", "dcg_burges@3", "dcg_burges@3-l3"),
])
def test_the_relevance_level_reaches_a_burges_name_under_ranx(
        tmp_path: Path, files: tuple[str, str], level: str, name: str, ranx_name: str) -> None:
    q, r = files
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--profile", "ranx",
              "--relevance-level", level, "--metrics", name, "--format", "csv")
    _value_or_refused(res, name, RANX[ranx_name], name)


def test_the_relevance_level_reaches_a_burges_name_without_a_profile(
        tmp_path: Path, files: tuple[str, str]) -> None:
    q, r = files
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--relevance-level", "2",
              "--metrics", "ndcg_burges@10", "--format", "csv")
    _value_or_refused(res, "ndcg_burges@10", RANX["ndcg_burges@10-l2"], "ndcg_burges@10")


def test_a_python_profile_with_a_level_reaches_a_burges_name() -> None:
    prof = replace(get_profile("ranx"), relevance_threshold=2.0)
    got, exc = call(lambda: _q(evaluate_trec, Q, R, metrics="ndcg_burges@10", profile=prof))
    if exc is not None:
        assert api_refused(exc, "ndcg_burges@10") is None
        return
    assert got.metrics["ndcg_burges@10"] == pytest.approx(RANX["ndcg_burges@10-l2"], abs=1e-12)


def test_the_run_depth_reaches_a_burges_name(tmp_path: Path, files: tuple[str, str]) -> None:
    # -M 1: q1 keeps b (grade 0), q2 keeps e (unjudged): no gain anywhere, ideal DCG from qrels
    q, r = files
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--profile", "ranx",
              "--run-depth", "1", "--metrics", "ndcg_burges@10", "--format", "csv")
    _value_or_refused(res, "ndcg_burges@10", 0.0, "ndcg_burges@10")


# ----------------------------------------- ir_measures names are case-sensitive in ir_measures
@pytest.mark.parametrize(("typed", "twin"), [
    ("ndcg()@10", "ndcg@10"), ("map()", "map"), ("p()@5", "p@5"), ("rr()", "rr"),
    ("ap()@10", "ap@10"), ("err()@10", "err@10"), ("bpref()", "bpref"),
    ("success@2", "success_2"),
])
def test_a_lower_case_ir_measures_spelling_is_not_a_second_meaning(typed: str,
                                                                   twin: str) -> None:
    # ir_measures.parse_measure refuses every one of them ("measure not found")
    with pytest.raises(NameError):
        ir_measures.parse_measure(typed)
    got, exc = call(lambda: _q(evaluate_trec, Q, R, metrics=[typed, twin]))
    if exc is not None:
        assert api_refused(exc, typed) is None
        return
    assert got.metrics[typed] == got.metrics[twin], (typed, got.metrics, got.metric_profiles)


# --------------------------------------------------- printed names parse back
@pytest.mark.parametrize(("header", "name"), [
    ("ndcg_cut_10 [trec_eval]", "ndcg_cut_10"), ("map [trec_eval]", "map"),
    ("nDCG@10 [trec_eval-c]", "nDCG@10"), ("ndcg_cut_10[trec_eval]", "ndcg_cut_10"),
])
def test_a_comparison_header_pasted_into_metrics_parses_back(
        tmp_path: Path, files: tuple[str, str], header: str, name: str) -> None:
    q, r = files
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--metrics", header,
              "--format", "csv")
    want = {"ndcg_cut_10": _pytrec("ndcg_cut_10"), "map": _pytrec("map"),
            "nDCG@10": _pytrec("ndcg_cut_10", complete=True)}[name]
    assert not res.traceback, res.err
    if res.status == 0:
        values = _csv(res.out)
        assert len(values) == 1, values
        assert math.isclose(next(iter(values.values())), want, abs_tol=1e-12), values
    else:
        assert refused(res, "[") is None, res.err
        assert "valid names:" not in res.err, res.err


def test_a_header_with_overrides_is_refused_naming_the_name_that_carries_them(
        tmp_path: Path, files: tuple[str, str]) -> None:
    q, r = files
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--metrics",
              "P(rel=2)@5 [trec_eval-c+relevance_threshold=2.0]", "--format", "csv")
    if res.status == 0:  # acceptable only as ir_measures' P(rel=2)@5
        want = ir_measures.calc_aggregate([ir_measures.P(rel=2) @ 5], Q, R)
        assert math.isclose(next(iter(_csv(res.out).values())),
                            next(iter(want.values())), abs_tol=1e-12)
    else:
        assert refused(res, "trec_eval-c") is None, res.err
        assert "valid names:" not in res.err, res.err


def test_a_header_of_one_profile_on_a_name_of_another_is_refused(
        tmp_path: Path, files: tuple[str, str]) -> None:
    q, r = files
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--metrics",
              "lightgbm:ndcg@10 [trec_eval]", "--format", "csv")
    assert refused(res, "lightgbm", "trec_eval") is None, res.err


@pytest.mark.parametrize("typo", ["precision_10", "mrr_10", "hits_10", "map_at_10",
                                  "ndcg_at_10", "precision_at_10", "err_10"])
def test_every_name_an_error_suggests_parses(typo: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_metrics(typo)
    m = re.search(r"did you mean (.*)\?$", str(info.value))
    assert m is not None, str(info.value)[-200:]
    for suggestion in m.group(1).split(", "):
        assert suggestion != typo, str(info.value)[-200:]
        parse_metrics(suggestion)  # raises if the suggestion is itself no name


# ---------------------------------------------------- cutoffs beyond every integer type
@pytest.mark.parametrize("name", ["ndcg@9223372036854775808", "P_18446744073709551616",
                                  "ndcg_cut.5,99999999999999999999", "nDCG@2147483648",
                                  "P(rel=2)@9223372036854775807"])
def test_a_cutoff_beyond_every_integer_type_is_refused_naming_it(name: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_metrics(name)
    assert "cutoff" in str(info.value), str(info.value)
    assert "2147483647" in str(info.value), str(info.value)


# ------------------------------------------------- trec_eval and ir_measures grammars vs tools
@pytest.mark.parametrize(("name", "measures"), [
    ("ndcg_cut.10,5", ("ndcg_cut_10", "ndcg_cut_5")),
    ("map_cut.5,10", ("map_cut_5", "map_cut_10")),
    ("success.10,1", ("success_10", "success_1")),
    ("P.10,5", ("P_10", "P_5")),
])
def test_a_dotted_trec_eval_list_equals_pytrec_eval_in_the_order_given(
        name: str, measures: tuple[str, str]) -> None:
    ties = {"1": {"a": 0.5, "b": 0.5, "c": 0.5, "x": 0.7, "e": 0.1}, "2": R["2"]}
    got = _q(evaluate_trec, Q, ties, metrics=name).metrics
    stem = name.split(".", 1)[0]
    keys = [f"{stem}.{m.rsplit('_', 1)[1]}" for m in measures]
    assert list(got) == keys
    for key, measure in zip(keys, measures, strict=True):
        assert got[key] == pytest.approx(_pytrec(measure, run=ties), abs=1e-12), key


@pytest.mark.parametrize("name", ["AP(rel=2)@100", "P(rel=2)@5", "RR@10", "Judged@10",
                                  "nDCG(judged_only=True)@10", "SetF", "Success@2",
                                  "R(rel=2)@1000", "RR(rel=3)"])
def test_an_ir_measures_name_with_ties_and_a_missing_query_equals_ir_measures(name: str) -> None:
    ties = {"1": {"a": 0.5, "b": 0.5, "c": 0.5, "x": 0.7, "e": 0.1}, "2": R["2"]}
    want = ir_measures.calc_aggregate([ir_measures.parse_measure(name)], Q, ties)
    got = _q(evaluate_trec, Q, ties, metrics=name).metrics[name]
    assert got == pytest.approx(next(iter(want.values())), abs=1e-12)


# -------------------------------------------------------------------------- comparisons
def _compare(folder: Path, runs: dict[str, dict[str, dict[str, Any]]], *extra: str,
             qrels: Any = None) -> Any:
    (folder / "q.txt").write_text(_lines(qrels or Q, "qrels"))
    argv = ["evaluate", "--qrels", "q.txt"]
    for name, run in runs.items():
        (folder / f"{name}.txt").write_text(_lines(run, "run"))
        argv += ["--run", f"{name}.txt"]
    return cli(folder, *argv, *extra)


def test_two_identical_runs_tie_with_p_one(tmp_path: Path) -> None:
    res = _compare(tmp_path, {"a": R, "b": R}, "--metrics", "ndcg_cut_10", "--format", "json")
    assert res.status == 0, res.err
    doc = json.loads(res.out)
    assert doc["tied_with_best"] == ["b"] or doc["best"] in ("a", "b")
    other = next(r for r in doc["runs"] if r["vs_best"] is not None)
    assert other["vs_best"]["p_randomization"] == 1.0
    means = {r["name"]: r["metrics"]["ndcg_cut_10"]["mean"] for r in doc["runs"]}
    assert means["a"] == means["b"] == pytest.approx(_pytrec("ndcg_cut_10"), abs=1e-12)


def test_a_comparison_over_one_query_has_the_exact_randomization_p(tmp_path: Path) -> None:
    # one query: the two sign flips give |d| both times, p = 1 (exact, not sampled)
    qrels = {"1": Q["1"]}
    worse = {"1": {"a": 0.1, "b": 0.9, "c": 0.2, "e": 0.3}}
    res = _compare(tmp_path, {"a": {"1": R["1"]}, "b": worse}, "--metrics", "P_1",
                   "--format", "json", qrels=qrels)
    assert res.status == 0, res.err
    doc = json.loads(res.out)
    loser = next(r for r in doc["runs"] if r["vs_best"] is not None)
    assert loser["vs_best"]["p_randomization"] == 1.0
    assert doc["n_queries"] == 1


def test_a_nan_score_in_a_compared_run_is_refused_naming_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "q.txt").write_text(_lines(Q, "qrels"))
    (tmp_path / "a.txt").write_text(_lines(R, "run"))
    (tmp_path / "b.txt").write_text("1 Q0 a 1 0.5 t\n1 Q0 b 2 nan t\n2 Q0 d 1 0.1 t\n")
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "a.txt", "--run", "b.txt",
              "--metrics", "map")
    assert refused(res, "b.txt:2", "nan") is None, res.err


def test_one_measure_under_two_spellings_in_a_comparison_is_one_number_twice(
        tmp_path: Path) -> None:
    worse = {"1": {"a": 0.1, "b": 0.9, "c": 0.2, "e": 0.3}, "2": {"d": 0.9, "f": 0.1}}
    res = _compare(tmp_path, {"a": R, "b": worse}, "--metrics", "P_5,P.5",
                   "--format", "json")
    assert res.status == 0, res.err
    doc = json.loads(res.out)
    assert doc["primary"] == "P_5"
    for run, data in (("a", R), ("b", worse)):
        got = next(r for r in doc["runs"] if r["name"] == run)["metrics"]
        assert got["P_5"]["mean"] == got["P.5"]["mean"] == pytest.approx(
            _pytrec("P_5", run=data), abs=1e-12)


def test_missing_zero_scores_a_query_one_run_lacks_as_trec_eval_c(tmp_path: Path) -> None:
    full = {**R, "3": {"g": 0.3, "z": 0.9}}
    res = _compare(tmp_path, {"a": R, "b": full}, "--metrics", "recip_rank",
                   "--missing", "zero", "--format", "json")
    assert res.status == 0, res.err
    doc = json.loads(res.out)
    for run, data in (("a", R), ("b", full)):
        got = next(r for r in doc["runs"] if r["name"] == run)["metrics"]["recip_rank"]["mean"]
        assert got == pytest.approx(_pytrec("recip_rank", run=data, complete=True), abs=1e-12)


def test_a_comparison_with_a_lower_case_ir_measures_twin_is_not_two_numbers(
        tmp_path: Path) -> None:
    res = _compare(tmp_path, {"a": R, "b": {**R, "1": {"c": 0.9, "a": 0.1}}},
                   "--metrics", "ndcg@10,ndcg()@10", "--format", "json")
    assert not res.traceback, res.err
    if res.status == 0:
        doc = json.loads(res.out)
        for run in doc["runs"]:
            assert run["metrics"]["ndcg@10"]["mean"] == run["metrics"]["ndcg()@10"]["mean"]
    else:
        assert refused(res, "ndcg()@10") is None, res.err


# ------------------------------------------------- trec_eval's command line typed to evaluate
@pytest.mark.parametrize(("argv", "option"), [
    (("-c",), "--profile trec_eval-c"), (("-l", "2"), "--relevance-level"),
    (("-l2",), "--relevance-level"), (("-m", "ndcg_cut.10"), "--metrics"),
    (("-M", "10"), "--run-depth"), (("-J",), "--judged-only"), (("-q",), "--per-query"),
])
def test_a_trec_eval_flag_is_refused_naming_the_option_that_does_it(
        tmp_path: Path, files: tuple[str, str], argv: tuple[str, ...], option: str) -> None:
    q, r = files
    res = cli(tmp_path, "evaluate", *argv, "--qrels", q, "--run", r)
    assert refused(res, argv[0], option) is None, res.err


def test_trec_evals_positional_qrels_and_run_are_refused_naming_the_options(
        tmp_path: Path, files: tuple[str, str]) -> None:
    q, r = files
    res = cli(tmp_path, "evaluate", q, r)
    assert refused(res, "--qrels", "--run") is None, res.err


# ------------------------------------------------ a peer library's function typed as a name
@pytest.mark.parametrize(("typed", "name", "profile"), [
    ("ndcg_score", "ndcg@10", "sklearn"), ("precision_at_k", "Precision@10", "recommenders"),
    ("recall_at_k", "Recall@10", "recommenders"), ("ndcg_at_k", "ndcg@10", "recommenders"),
])
def test_a_peer_function_name_is_answered_with_the_name_and_profile_that_compute_it(
        typed: str, name: str, profile: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_metrics(typed)
    msg = str(info.value)
    assert f"{name} with --profile {profile}" in msg, msg[-300:]
    assert parse_metrics(f"{profile}:{name}")  # the answer parses


def test_sklearns_ndcg_score_is_what_the_answer_computes() -> None:
    from sklearn.metrics import ndcg_score

    from bench.metrics import evaluate

    labels = [[2, 0, 1, 0, 3], [1, 1, 0, 2]]
    scores = [[0.5, 0.5, 0.1, 0.9, 0.5], [0.3, 0.3, 0.3, 0.1]]  # ties: sklearn averages them
    want = sum(ndcg_score([y], [s], k=3) for y, s in zip(labels, scores, strict=True)) / 2
    got = evaluate([*labels[0], *labels[1]], [*scores[0], *scores[1]], qid=[1] * 5 + [2] * 4,
                   metrics="sklearn:ndcg@3").metrics["sklearn:ndcg@3"]
    assert got == pytest.approx(want, abs=1e-12)


# ----------------------------------------------------------- ranx's -l suffix on its own names
@pytest.mark.parametrize(("typed", "base", "want"), [
    ("ndcg_burges@10-l2", "ndcg_burges@10", RANX["ndcg_burges@10-l2"]),
    ("r-precision-l2", "r-precision", 0.0),  # ranx: no document of grade >= 2 in the top R
])
def test_ranxs_level_suffix_on_its_own_spelling_names_the_option_that_gives_its_number(
        tmp_path: Path, files: tuple[str, str], typed: str, base: str, want: float) -> None:
    with pytest.raises(ConfigError) as info:
        parse_metrics(typed)
    assert f"{base} with --profile ranx --relevance-level 2" in str(info.value), str(info.value)
    q, r = files
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--profile", "ranx",
              "--relevance-level", "2", "--metrics", base, "--format", "csv")
    assert res.status == 0, res.err
    assert _csv(res.out)[base] == pytest.approx(want, abs=1e-12)


def test_ranxs_level_zero_suffix_does_not_suggest_a_refused_level(
        tmp_path: Path, files: tuple[str, str]) -> None:
    # ranx precision@1-l0 = 1/3: grade 0 counts as relevant there (b is judged 0, ranked first)
    with pytest.raises(ConfigError) as info:
        parse_metrics("precision@1-l0")
    assert "-l0" in str(info.value)
    assert "--relevance-level 0" not in str(info.value), str(info.value)
    q, r = files
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--relevance-level", "0",
              "--metrics", "p@1")
    assert res.status == 2, res.err  # the level the old hint named is refused


def test_a_header_typed_unquoted_in_the_shell_is_two_words_that_still_parse_back(
        tmp_path: Path, files: tuple[str, str]) -> None:
    # `--metrics ndcg_cut_10 [trec_eval] map`: argparse hands three list items
    q, r = files
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--metrics", "ndcg_cut_10",
              "[trec_eval]", "map", "--format", "csv")
    assert res.status == 0, res.err
    got = _csv(res.out)
    assert got == pytest.approx({"trec_eval:ndcg_cut_10": _pytrec("ndcg_cut_10"),
                                 "map": _pytrec("map")}, abs=1e-12)


# ------------------------------------------------ trec_eval's parameter lists of real numbers
@pytest.mark.parametrize(("name", "asked", "measures"), [
    ("iprec_at_recall.0.1,0.5", "iprec_at_recall.0.1,0.5",
     ("iprec_at_recall_0.10", "iprec_at_recall_0.50")),
    ("Rprec_mult.0.2,2.0", "Rprec_mult.0.2,2.0", ("Rprec_mult_0.20", "Rprec_mult_2.00")),
    ("iprec_at_recall_0.00,0.30", "iprec_at_recall.0.0,0.3",
     ("iprec_at_recall_0.00", "iprec_at_recall_0.30")),
])
def test_a_trec_eval_list_of_real_parameters_equals_pytrec_eval(
        name: str, asked: str, measures: tuple[str, str]) -> None:
    got = _q(evaluate_trec, Q, R, metrics=name).metrics
    assert len(got) == 2, got
    per_q = pytrec_eval.RelevanceEvaluator(Q, {asked}).evaluate(R)
    for value, measure in zip(got.values(), measures, strict=True):
        want = sum(v[measure] for v in per_q.values()) / len(per_q)
        assert value == pytest.approx(want, abs=1e-12), (name, measure)


@pytest.mark.parametrize("names", ["P_5,0.5", "IPrec@0.1,0.2", "map 0.5"])
def test_a_real_number_after_a_name_with_whole_cutoffs_is_refused_as_a_cutoff(names: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_metrics(names)
    msg = str(info.value)
    assert "cutoff" in msg, msg[:200]
    assert "unknown metric" not in msg, msg[:200]



@pytest.mark.parametrize("name", ["lightgbm:lightgbm:ndcg@10", "trec_eval:trec_eval-c:P_5"])
def test_a_result_key_qualified_again_is_refused_naming_both_profiles(name: str) -> None:
    # a comparison's per-query row gives metric 'lightgbm:ndcg@10' and profile 'lightgbm'
    with pytest.raises(ConfigError) as info:
        parse_metrics(name)
    msg = str(info.value)
    first, second, _ = name.split(":")
    assert f"'{first}'" in msg, msg
    assert f"'{second}'" in msg, msg
    assert "valid names:" not in msg, msg


# ---------------------------------------------- RecBole's AUC is one AUC over every user at once
#: Two users: u1's AUC 2/3, u2's 1; RecBole's AUC (recbole/evaluator/metrics.py class AUC: "does
#: not calculate group-based AUC ... regardless the users") pools the 12 pairs: 5/12.
AUC_LABELS = [1, 0, 0, 0, 1, 1, 0]
AUC_SCORES = [0.5, 0.9, 0.1, 0.2, 0.03, 0.02, 0.01]
AUC_QID = [1, 1, 1, 1, 2, 2, 2]


@pytest.mark.parametrize("name", ["AUC", "auc", "recbole:auc"])
def test_recboles_auc_over_several_users_is_its_global_auc_or_refused(name: str) -> None:
    from sklearn.metrics import roc_auc_score

    from bench.metrics import evaluate

    want = roc_auc_score(AUC_LABELS, AUC_SCORES)
    assert want == pytest.approx(5 / 12)
    got, exc = call(lambda: evaluate(AUC_LABELS, AUC_SCORES, qid=AUC_QID, metrics=name,
                                     profile="recbole"))
    if exc is not None:
        assert api_refused(exc, name, "gauc") is None
        return
    assert got.metrics[name] == pytest.approx(want, abs=1e-12)


def test_recboles_auc_on_qrels_and_a_run_is_its_global_auc_or_refused(
        tmp_path: Path) -> None:
    qrels = {"1": {"a": 1, "b": 0, "c": 0, "d": 0}, "2": {"e": 1, "f": 1, "g": 0}}
    run = {"1": {"a": 0.5, "b": 0.9, "c": 0.1, "d": 0.2}, "2": {"e": 0.03, "f": 0.02, "g": 0.01}}
    (tmp_path / "q.txt").write_text(_lines(qrels, "qrels"))
    (tmp_path / "r.txt").write_text(_lines(run, "run"))
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--profile", "recbole",
              "--metrics", "AUC", "--format", "csv")
    _value_or_refused(res, "AUC", 5 / 12, "AUC", "gauc")


def test_recboles_gauc_and_one_users_auc_stay_recboles() -> None:
    from bench.metrics import evaluate

    # GAUC: (2/3 * 1 positive + 1 * 2 positives) / 3 (GAUC.metric_info); one user: its AUC
    got = evaluate(AUC_LABELS, AUC_SCORES, qid=AUC_QID, metrics="GAUC", profile="recbole")
    assert got.metrics["GAUC"] == pytest.approx((2 / 3 + 2) / 3, abs=1e-12)
    one = evaluate(AUC_LABELS[:4], AUC_SCORES[:4], qid=AUC_QID[:4], metrics="AUC",
                   profile="recbole")
    assert one.metrics["AUC"] == pytest.approx(2 / 3, abs=1e-12)


def test_a_run_config_asking_recboles_auc_is_refused_before_training() -> None:
    from bench.benchmark.config import RunConfig

    _, exc = call(lambda: RunConfig.from_dict(
        {"dataset": "synthetic", "profile": "recbole", "metrics": ["ndcg@10", "auc"]}))
    assert api_refused(exc, "auc", "recbole") is None

#: Each test's class of issue 19, for the closing counts.
CLASSES = {
    "test_a_qualified_ranx_burges_name_is_ranxs_ndcg_burges": "unclear errors",
    "test_a_qualified_r_precision_is_r_precision_under_that_profile": "unclear errors",
    "test_a_burges_name_behind_another_tools_qualifier_is_refused_saying_why": "unclear errors",
    "test_the_relevance_level_reaches_a_burges_name_under_ranx": "silently wrong numbers",
    "test_the_relevance_level_reaches_a_burges_name_without_a_profile": "silently wrong numbers",
    "test_a_python_profile_with_a_level_reaches_a_burges_name": "silently wrong numbers",
    "test_the_run_depth_reaches_a_burges_name": "silently wrong numbers",
    "test_a_lower_case_ir_measures_spelling_is_not_a_second_meaning": "silently wrong numbers",
    "test_a_comparison_header_pasted_into_metrics_parses_back": "unclear errors",
    "test_a_header_with_overrides_is_refused_naming_the_name_that_carries_them": "unclear errors",
    "test_a_header_of_one_profile_on_a_name_of_another_is_refused": "unclear errors",
    "test_every_name_an_error_suggests_parses": "unclear errors",
    "test_a_cutoff_beyond_every_integer_type_is_refused_naming_it": "silent accepts",
    "test_a_dotted_trec_eval_list_equals_pytrec_eval_in_the_order_given": "silently wrong numbers",
    "test_an_ir_measures_name_with_ties_and_a_missing_query_equals_ir_measures":
        "silently wrong numbers",
    "test_two_identical_runs_tie_with_p_one": "silently wrong numbers",
    "test_a_comparison_over_one_query_has_the_exact_randomization_p": "silently wrong numbers",
    "test_a_nan_score_in_a_compared_run_is_refused_naming_file_and_line": "silent accepts",
    "test_one_measure_under_two_spellings_in_a_comparison_is_one_number_twice":
        "silently wrong numbers",
    "test_missing_zero_scores_a_query_one_run_lacks_as_trec_eval_c": "silently wrong numbers",
    "test_a_comparison_with_a_lower_case_ir_measures_twin_is_not_two_numbers":
        "silently wrong numbers",
    "test_a_trec_eval_flag_is_refused_naming_the_option_that_does_it": "unclear errors",
    "test_trec_evals_positional_qrels_and_run_are_refused_naming_the_options": "unclear errors",
    "test_a_peer_function_name_is_answered_with_the_name_and_profile_that_compute_it":
        "unclear errors",
    "test_sklearns_ndcg_score_is_what_the_answer_computes": "silently wrong numbers",
    "test_ranxs_level_suffix_on_its_own_spelling_names_the_option_that_gives_its_number":
        "unclear errors",
    "test_ranxs_level_zero_suffix_does_not_suggest_a_refused_level": "unclear errors",
    "test_a_header_typed_unquoted_in_the_shell_is_two_words_that_still_parse_back":
        "unclear errors",
    "test_a_trec_eval_list_of_real_parameters_equals_pytrec_eval": "unclear errors",
    "test_a_real_number_after_a_name_with_whole_cutoffs_is_refused_as_a_cutoff":
        "unclear errors",
    "test_a_result_key_qualified_again_is_refused_naming_both_profiles": "unclear errors",
    "test_recboles_auc_over_several_users_is_its_global_auc_or_refused": "silently wrong numbers",
    "test_recboles_auc_on_qrels_and_a_run_is_its_global_auc_or_refused": "silently wrong numbers",
    "test_recboles_gauc_and_one_users_auc_stay_recboles": "silently wrong numbers",
    "test_a_run_config_asking_recboles_auc_is_refused_before_training": "silent accepts",
}


def test_every_test_here_has_a_class() -> None:
    from hostile_kit import CLASSES as KNOWN

    here = {n for n in globals()
            if n.startswith("test_") and n != "test_every_test_here_has_a_class"}
    assert here == set(CLASSES), here ^ set(CLASSES)
    assert set(CLASSES.values()) <= set(KNOWN)
