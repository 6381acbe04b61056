"""Hostile cases, round 7: metric names (issue 19, item 2).

New instances beyond tests/test_hostile_compare_names.py and tests/test_hostile_new_measures.py:
every grammar (ltrbench, trec_eval, ir_measures, PROFILE:NAME) mixed in one call, each column
equal to its own definition (pytrec_eval for trec_eval names, ir_measures for ir_measures
names: a qrels query without a run line is dropped by the first and scored 0 by the second);
names of the newest families under every grammar they claim; case, blank and unicode
look-alikes; a name whose own profile differs from the call's; every name ``ltrbench metrics
list`` shows parses back and evaluates under its own key (a property test over the listing).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import ir_measures
import numpy as np
import pytest

from bench.errors import ConfigError
from bench.metrics import evaluate_trec
from bench.metrics.names import describe_names, parse_metrics

pytrec_eval = pytest.importorskip("pytrec_eval")

# q3 has judgments but no run line; q4 has a run line but no judgment.
QRELS = ("q1 0 d1 2\nq1 0 d2 1\nq1 0 d3 0\nq1 0 d9 1\nq2 0 d4 1\nq2 0 d5 0\nq2 0 d6 1\n"
         "q3 0 d7 1\nq3 0 d8 2\n")
RUN = ("q1 Q0 d3 1 3.0 r\nq1 Q0 d1 2 2.0 r\nq1 Q0 d2 3 1.0 r\nq1 Q0 d8 4 0.5 r\n"
       "q2 Q0 d5 1 3.0 r\nq2 Q0 d4 2 2.0 r\nq2 Q0 d6 3 1.0 r\nq4 Q0 d1 1 1.0 r\n")


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r.run").write_text(RUN)
    return str(tmp_path / "q.txt"), str(tmp_path / "r.run")


def _evaluate(files: tuple[str, str], metrics: str, **kw: object) -> dict[str, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = evaluate_trec(files[0], files[1], metrics=metrics, **kw)  # type: ignore[arg-type]
    return r.metrics


def _pytrec(measure: str, key: str | None = None) -> float:
    def rows(text: str, cast: type) -> dict[str, dict[str, object]]:
        out: dict[str, dict[str, object]] = {}
        for line in text.splitlines():
            f = line.split()
            out.setdefault(f[0], {})[f[2]] = cast(f[3] if len(f) == 4 else f[4])
        return out
    got = pytrec_eval.RelevanceEvaluator(rows(QRELS, int), {measure}).evaluate(rows(RUN, float))
    values = [v[key or measure] for v in got.values()]
    if (key or measure) in ("num_q", "num_ret", "num_rel", "num_rel_ret"):
        return float(np.sum(values))
    if (key or measure) == "gm_map":  # per query trec_eval prints log(max(AP, 1e-5))
        return float(np.exp(np.mean(values)))
    return float(np.mean(values))


def _ir(name: str) -> float:
    q = list(ir_measures.read_trec_qrels(QRELS))
    r = list(ir_measures.read_trec_run(RUN))
    return float(ir_measures.parse_measure(name).calc_aggregate(q, r))


TREC_EVAL = [("ndcg_cut_10", "ndcg_cut", "ndcg_cut_10"), ("map", "map", None),
             ("recip_rank", "recip_rank", None), ("P_5", "P", "P_5"),
             ("recall_5", "recall", "recall_5"), ("Rprec", "Rprec", None),
             ("bpref", "bpref", None), ("num_q", "num_q", None), ("num_ret", "num_ret", None),
             ("num_rel", "num_rel", None), ("num_rel_ret", "num_rel_ret", None),
             ("set_P", "set_P", None), ("set_recall", "set_recall", None),
             ("set_F", "set_F", None), ("success_1", "success", "success_1"),
             ("infAP", "infAP", None), ("gm_map", "gm_map", None),
             ("iprec_at_recall_0.10", "iprec_at_recall", "iprec_at_recall_0.10"),
             ("map_cut_5", "map_cut", "map_cut_5"), ("ndcg", "ndcg", None)]


@pytest.mark.parametrize(("name", "measure", "key"), TREC_EVAL, ids=[t[0] for t in TREC_EVAL])
def test_a_trec_eval_name_equals_pytrec_eval(files: tuple[str, str], name: str, measure: str,
                                             key: str | None) -> None:
    assert _evaluate(files, name)[name] == pytest.approx(_pytrec(measure, key), abs=1e-12)


IR_MEASURES = ["nDCG@10", "AP", "RR", "Bpref", "NumQ", "NumRet",
               "NumRel", "NumRelRet", "SetP", "SetR", "SetF", "Success@1", "nDCG",
               "AP@5", "P(rel=2)@5", "RR(rel=2)", "nDCG@3", "Judged@3", "R(rel=2)@10"]


@pytest.mark.parametrize("name", IR_MEASURES)
def test_an_ir_measures_name_equals_ir_measures(files: tuple[str, str], name: str) -> None:
    assert _evaluate(files, name)[name] == pytest.approx(_ir(name), abs=1e-12)


@pytest.mark.parametrize(("name", "ir_name"), [("P@5", "P@5"), ("R@5", "R@5"),
                                              ("Rprec", "Rprec"), ("infAP", "infAP")])
def test_a_name_two_grammars_spell_alike_follows_the_call_and_says_so(
        files: tuple[str, str], name: str, ir_name: str) -> None:
    """``P@5``, ``R@5`` (ltrbench's table headers), ``Rprec``, ``infAP`` (trec_eval's own
    spelling) are read under the call's profile (trec_eval, q3 dropped) and the profile column
    says so; ``trec_eval-c:NAME`` gives ir_measures' value."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = evaluate_trec(files[0], files[1], metrics=f"{name},trec_eval-c:{name}")
    assert r.profile_of(name) == "trec_eval"
    assert r[f"trec_eval-c:{name}"] == pytest.approx(_ir(ir_name), abs=1e-12)


def test_every_grammar_in_one_call_gives_each_column_its_own_definition(
        files: tuple[str, str]) -> None:
    names = "ndcg_cut_10,nDCG@10,ndcg@10,AP,map,trec_eval-c:P_5,RR,recip_rank,P@5,NumQ,num_q"
    got = _evaluate(files, names)
    assert list(got) == names.split(",")
    assert got["ndcg_cut_10"] == pytest.approx(_pytrec("ndcg_cut", "ndcg_cut_10"), abs=1e-12)
    assert got["ndcg@10"] == got["ndcg_cut_10"]  # the call's profile: trec_eval
    assert got["nDCG@10"] == pytest.approx(_ir("nDCG@10"), abs=1e-12)
    assert got["AP"] == pytest.approx(_ir("AP"), abs=1e-12)
    assert got["map"] == pytest.approx(_pytrec("map"), abs=1e-12)
    assert got["trec_eval-c:P_5"] == pytest.approx(_ir("P@5"), abs=1e-12)
    assert got["RR"] == pytest.approx(_ir("RR"), abs=1e-12)
    assert got["recip_rank"] == pytest.approx(_pytrec("recip_rank"), abs=1e-12)
    assert got["NumQ"] == _ir("NumQ") == 2.0  # ir_measures scores q3 0: it counts 2 queries
    assert got["num_q"] == 2.0


@pytest.mark.parametrize("spellings", [("ndcg_cut_10", "ndcg_cut.10", "ndcg@10", "NDCG@10"),
                                       ("map", "MAP", "ap", "mean_average_precision"),
                                       ("recip_rank", "mrr", "rr", "RECIP_RANK")])
def test_spellings_of_one_metric_under_one_profile_are_columns_of_one_value(
        files: tuple[str, str], spellings: tuple[str, ...]) -> None:
    got = _evaluate(files, ",".join(spellings))
    assert list(got) == list(spellings)
    assert len({round(v, 15) for v in got.values()}) == 1


def test_a_trec_eval_name_under_the_ir_measures_profile_follows_the_call(
        files: tuple[str, str]) -> None:
    """An explicit profile applies to the names of its family: trec_eval names under
    trec_eval-c are trec_eval -c (ir_measures' values), and the column says so."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = evaluate_trec(files[0], files[1], metrics="ndcg_cut_10,map,recip_rank",
                          profile="trec_eval-c")
    assert r["ndcg_cut_10"] == pytest.approx(_ir("nDCG@10"), abs=1e-12)
    assert r["map"] == pytest.approx(_ir("AP"), abs=1e-12)
    assert r["recip_rank"] == pytest.approx(_ir("RR"), abs=1e-12)
    assert {r.profile_of(k) for k in r.metrics} == {"trec_eval-c"}


@pytest.mark.parametrize(("profile", "name"), [("lightgbm", "nDCG@10"), ("ranx", "ndcg_cut_10"),
                                               ("recbole", "AP"), ("xgboost", "P_5"),
                                               ("sklearn", "recip_rank")])
def test_a_peer_name_under_another_tools_profile_is_refused_saying_how_to_ask(
        files: tuple[str, str], profile: str, name: str) -> None:
    """Refused naming the PROFILE:NAME way to ask for the other, or evaluated under the call's
    profile and saying so (the result's profile_of)."""
    message = ""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = evaluate_trec(files[0], files[1], metrics=name, profile=profile)
    except ConfigError as exc:
        message = str(exc)
    if message:
        assert name in message
        assert ":" in message
    else:
        assert r.profile_of(name).startswith(profile)


@pytest.mark.parametrize("name", ["nDCG@１０", "ndcg@１0", "ｎdcg@10", "ndcg＠10", "nDCG@10\u200b",
                                  "ndcg@+10", "ndcg@1e1", "ndcg@10.0", "ndcg@0x0a",
                                  "ndcg@1_0", "ndcg@−10", "P_+5", "ndcg_cut_1e1", "P(rel=+2)@5", "P(rel=-1)@5", "P(rel=1+1)@5",
                                  "P(rel=(2,))@5", "nDCG(gains={0: -1})@5",
                                  "ndcg@10@10", "ndcg@ 10", "ndcg @10", "trec_eval -c:ndcg@10",
                                  "nDCG@10;AP", "ndcg@10\x00"])
def test_a_look_alike_or_mistyped_name_is_a_config_error_naming_it(name: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_metrics(name)
    assert "Traceback" not in str(info.value)


@pytest.mark.parametrize("name", ["ndcg@10 ", " ndcg@10", "ndcg@10\t", "\tndcg@10\n"])
def test_surrounding_blanks_are_not_part_of_the_name_and_the_key_still_answers(
        files: tuple[str, str], name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = evaluate_trec(files[0], files[1], metrics=name)
    assert list(r.metrics) == ["ndcg@10"]
    assert r[name] == r["ndcg@10"]  # the user's own spelling, blanks and all, answers


def test_a_cutoff_with_a_leading_zero_is_its_own_key_with_the_same_value(
        files: tuple[str, str]) -> None:
    got = _evaluate(files, "ndcg@010,ndcg@10")
    assert got["ndcg@010"] == got["ndcg@10"]


# -- the newest families under every grammar they claim ------------------------------------

@pytest.mark.parametrize(("ours", "peer"), [("num_q", "NumQ"), ("infap", "infAP"),
                                            ("inf_ap", "infAP"), ("set_f", "set_F"),
                                            ("rprec_mult(0.2)", "Rprec_mult_0.20"),
                                            ("iprec_at_recall(0.1)", "iprec_at_recall_0.10")])
def test_a_new_ltrbench_name_equals_its_peer_spelling(files: tuple[str, str], ours: str,
                                                      peer: str) -> None:
    got = _evaluate(files, f"{ours} {peer}", profile="trec_eval")
    assert got[ours] == pytest.approx(got[peer], abs=1e-15)


def test_rbp_under_both_grammars_is_one_value(files: tuple[str, str]) -> None:
    got = _evaluate(files, "rbp(0.5)@10 RBP(rel=1,p=0.5)@10", profile="trec_eval-c")
    assert got["rbp(0.5)@10"] == pytest.approx(got["RBP(rel=1,p=0.5)@10"], abs=1e-15)


def test_auc_by_hand(files: tuple[str, str]) -> None:
    """Over the retrieved lists (trec_eval profile: q1, q2; unjudged d8 non-relevant): q1
    relevant d1 (2.0), d2 (1.0) vs d3 (3.0), d8 (0.5): 2 of 4 pairs; q2: d4 (2.0), d6 (1.0)
    vs d5 (3.0): 0 of 2. Mean over queries 0.25."""
    got = _evaluate(files, "auc")
    assert got["auc"] == pytest.approx(0.25, abs=1e-15)


SUBTOPIC_QRELS = "1 1 a 1\n1 2 b 1\n1 1 c 1\n2 1 d 1\n2 2 e 1\n"
SUBTOPIC_RUN = "1 Q0 c 1 3.0 r\n1 Q0 a 2 2.0 r\n1 Q0 b 3 1.0 r\n2 Q0 e 1 2.0 r\n2 Q0 d 2 1.0 r\n"


@pytest.mark.parametrize(("ours", "peer"), [("alpha_ndcg(0.5)@20", "alpha_nDCG(alpha=0.5)@20"),
                                            ("alpha_ndcg@20", "alpha_nDCG@20"),
                                            ("nerr_ia@20", "nERR_IA@20")])
def test_diversity_names_agree_across_grammars(tmp_path: Path, ours: str, peer: str) -> None:
    (tmp_path / "s.txt").write_text(SUBTOPIC_QRELS)
    (tmp_path / "r.run").write_text(SUBTOPIC_RUN)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = evaluate_trec(str(tmp_path / "s.txt"), str(tmp_path / "r.run"),
                          metrics=f"{ours},{peer}")
    assert list(r.metrics) == [ours, peer]
    assert r[ours] == pytest.approx(r[peer], abs=1e-15)


def test_alpha_ndcg_by_hand(tmp_path: Path) -> None:
    """alpha=0.5, query 2: e (subtopic 2) then d (subtopic 1): gains 1, 1 -> DCG = 1 + 1/log2 3,
    ideal the same: 1. Query 1: c (s1) 1, a (s1) 0.5, b (s2) 1 at rank 3; ideal c, b, a:
    1 + 1/log2 3 + 0.5/2."""
    (tmp_path / "s.txt").write_text(SUBTOPIC_QRELS)
    (tmp_path / "r.run").write_text(SUBTOPIC_RUN)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = evaluate_trec(str(tmp_path / "s.txt"), str(tmp_path / "r.run"),
                          metrics="alpha_ndcg(0.5)@20")
    q1 = (1 + 0.5 / np.log2(3) + 1 / 2) / (1 + 1 / np.log2(3) + 0.5 / 2)
    assert r["alpha_ndcg(0.5)@20"] == pytest.approx((q1 + 1.0) / 2, abs=1e-12)


# -- the listing round-trips ----------------------------------------------------------------

LISTED = sorted({(row["example"], row["family"]) for row in describe_names()}
                | {(row["name"], row["family"]) for row in describe_names()})


@pytest.mark.parametrize(("name", "family"), LISTED, ids=[n for n, _ in LISTED])
def test_every_listed_name_evaluates_under_its_own_key(tmp_path: Path, files: tuple[str, str],
                                                       name: str, family: str) -> None:
    if "PROFILE" in name:
        pytest.skip("a template, not a name")
    specs = parse_metrics(name)
    assert specs, name
    from bench.metrics.families import FAMILIES

    diverse = any(FAMILIES[s.family].subtopics for s in specs if s.family in FAMILIES)
    if diverse:
        (tmp_path / "s.txt").write_text(SUBTOPIC_QRELS)
        (tmp_path / "sr.run").write_text(SUBTOPIC_RUN)
        q, r = str(tmp_path / "s.txt"), str(tmp_path / "sr.run")
    else:
        q, r = files
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = evaluate_trec(q, r, metrics=name)
    assert next(iter(result.metrics)) == specs[0].key
    value = result[specs[0].key]
    assert np.isnan(value) or np.isfinite(value)


@pytest.mark.parametrize("profile", ["trec_eval", None])
def test_ir_measures_counts_under_trec_eval_are_ir_measures_counts(files: tuple[str, str],
                                                                   profile: str | None) -> None:
    """ir_measures' NumQ / NumRel count the queries the run answered (trec_eval without -c):
    under an explicit trec_eval profile they are accepted, not refused with 'computes it as
    profile trec_eval does, not as the profile trec_eval given'."""
    kw = {} if profile is None else {"profile": profile}
    got = _evaluate(files, "NumQ,NumRel", **kw)
    assert got == {"NumQ": _ir("NumQ"), "NumRel": _ir("NumRel")}
