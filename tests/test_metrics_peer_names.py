"""trec_eval and ir_measures metric names: parsing (ir_measures and pytrec_eval as the oracles of
what a name means) and evaluation of specs of several profiles (against pytrec_eval/ir_measures)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.errors import ConfigError
from bench.metrics import evaluate, evaluate_trec, parse_metrics
from bench.metrics.families import FAMILIES
from bench.metrics.peer_names import IR_MEASURES, IR_MEASURES_PROFILE, TREC_EVAL

ir_measures = pytest.importorskip("ir_measures")

# ir_measures measure name -> ltrbench family (the table under test says the same; here it is
# written out from ir_measures' measures/*.py docstrings, not read from the table).
IR_FAMILY = {"nDCG": "ndcg", "AP": "map", "RR": "mrr", "P": "p", "R": "recall",
             "Success": "hits", "ERR": "err", "Rprec": "rprec", "Bpref": "bpref", "SetP": "set_p",
             "SetR": "set_recall", "SetF": "set_f", "Judged": "judged"}
TREC_FAMILY = {"nDCG": "ndcg", "AP": "map", "RR": "mrr", "P": "p", "R": "recall",
               "Success": "hits", "Rprec": "rprec", "Bpref": "bpref", "SetP": "set_p",
               "SetR": "set_recall", "SetF": "set_f", "NumQ": "num_q"}


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# -- trec_eval names ---------------------------------------------------------------------------

#: Computed since issue 23, tested against pytrec_eval in tests/test_metrics_trec_more.py (ir_measures
#: 0.4.3's parse_trec_measure reads none of them: "known trec name ..., but not yet supported").
NEW_TREC_NAMES = ("num_ret", "num_rel", "num_rel_ret", "set_map", "gm_map", "Rprec_mult", "infAP",
                  "iprec_at_recall", "num_q")

@pytest.mark.parametrize("name", [m.name for m in TREC_EVAL if m.family is not None
                                  and m.name not in ("ndcg", "map", "recip_rank", "Rprec",
                                                     "bpref", "set_P", "set_recall", "set_F",
                                                     "P", "recall")
                                  and m.name not in NEW_TREC_NAMES])
def test_a_bare_trec_eval_name_expands_to_the_cutoffs_ir_measures_reads_from_trec_eval(
        name: str) -> None:
    """ir_measures.parse_trec_measure knows trec_eval's default cutoffs (util.py:364-400)."""
    theirs = ir_measures.parse_trec_measure(name)
    ours = parse_metrics(name)
    assert [(TREC_FAMILY[m.NAME], m["cutoff"]) for m in theirs] == [(s.family, s.k) for s in ours]
    assert {s.profile for s in ours} == {"trec_eval"}


@pytest.mark.parametrize("name", ["ndcg_cut_10", "ndcg_cut.5,10", "P_5", "P.5,10", "map_cut_10",
                                  "recall_100", "success_10", "success.1,5", "set_F.1",
                                  "recall.5,1000"])
def test_trec_eval_names_with_parameters_mean_what_ir_measures_reads(name: str) -> None:
    theirs = ir_measures.parse_trec_measure(name)
    ours = parse_metrics(name)
    assert [(TREC_FAMILY[m.NAME], m.params.get("cutoff")) for m in theirs] == [
        (s.family, s.k) for s in ours]
    assert all(s.profile == "trec_eval" for s in ours)


def test_trec_eval_spellings_are_the_printed_keys() -> None:
    assert [s.name for s in parse_metrics("ndcg_cut.5,10 P.5,10 map_cut_10 recall_100 success_1")
            ] == ["ndcg_cut_5", "ndcg_cut_10", "P_5", "P_10", "map_cut_10", "recall_100",
                  "success_1"]


@pytest.mark.parametrize("name", ["runid", "gm_bpref", "utility", "P_avgjg",
                                  "Rndcg", "prefs_simp", "11pt_avg"])
def test_trec_eval_measures_without_a_family_are_refused_as_not_computed(name: str) -> None:
    with pytest.raises(ConfigError, match="is not computed by ltrbench"):
        parse_metrics(name)


def test_trec_eval_parameters_ltrbench_cannot_honour_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="beta 1 only"):
        parse_metrics("set_F.0.5")
    with pytest.raises(ConfigError, match=r"custom gains: ir_measures nDCG\(gains="):
        parse_metrics("ndcg.1=0")
    with pytest.raises(ConfigError, match=r"1\.\.2147483647"):
        parse_metrics("P_0")


# -- ir_measures names -------------------------------------------------------------------------

IR_NAMES = ["Success@10", "SetP", "SetR", "SetF", "Judged@10", "P(rel=2)@5", "AP(rel=2)",
            "AP(rel=2)@100", "RR(rel=3)@10", "R(rel=2)@1000", "Rprec(rel=2)", "Bpref(rel=2)",
            "nDCG(dcg='exp-log2')@10", "nDCG(gains={0:1,1:4})@10", "SetF(rel=2)"]


@pytest.mark.parametrize("name", IR_NAMES)
def test_ir_measures_names_read_as_ir_measures_parses_them(name: str) -> None:
    """ir_measures.parse_measure is the oracle: same measure, cutoff, and printed spelling."""
    theirs = ir_measures.parse_measure(name)
    (spec,) = parse_metrics(name)
    assert spec.name == repr(theirs)
    assert spec.family == IR_FAMILY[theirs.NAME]
    assert spec.k == theirs.params.get("cutoff")
    assert spec.profile == IR_MEASURES_PROFILE
    rel = theirs.params.get("rel", 1)
    assert dict(spec.overrides).get("relevance_threshold", 1.0) == rel


def test_ir_measures_parameters_become_profile_overrides() -> None:
    (gains,) = parse_metrics("nDCG(gains={1:4, 0:1})@10")
    table = dict(gains.overrides)["gain"]
    assert isinstance(table, tuple)
    # trec_eval gain_init.c:58-72: a level without a parameter gains its own value
    assert table[:4] == (1.0, 4.0, 2.0, 3.0)
    assert len(table) == 32
    (gd,) = parse_metrics("nDCG(dcg='exp-log2')@10")
    assert dict(gd.overrides) == {"gain": "exp2", "max_label": 4, "score_dtype": "float64"}
    # the default values add nothing: the same spec as the plain name under its profile
    (ap,) = parse_metrics("AP(rel=1,judged_only=False)@5")
    (plain,) = parse_metrics("trec_eval-c:ap@5")
    assert (ap.family, ap.k, ap.profile, ap.overrides) == (
        plain.family, plain.k, plain.profile, plain.overrides)


@pytest.mark.parametrize(("name", "message"), [
    ("RR(judged_only=True)@10", "not a measure ir_measures computes"),
    ("SetF(beta=2.0)", "default beta only"),
    ("SetP(relative=True)", "default relative only"),
    ("AP(gains={0:1})", "takes no parameter gains"),
    ("P(rel=2)", r"needs a cutoff: P@k"),
    ("Rprec(rel=2)@5", "takes no @cutoff"),
    ("nDCG(dcg='exp')@10", "'log2' or 'exp-log2'"),
    ("nDCG(gains={0:-1})@10", "gains >= 0"),
    ("P(rel='x')@5", "needs an integer"),
    ("nDCG(1)@10", "parameters are named"),
    ("NRBP", "is not computed by ltrbench"),
    ("alpha_DCG@10", "is not computed by ltrbench"),
])
def test_ir_measures_names_ltrbench_cannot_honour_are_config_errors(name: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_metrics(name)


# -- resolution, qualifier, errors ---------------------------------------------------------------

@pytest.mark.parametrize(("name", "canonical"), [
    ("P@5", "p@5"), ("R@10", "recall@10"), ("NDCG@10", "ndcg@10"), ("MAP@10", "map@10"),
    ("MRR", "mrr"), ("map", "map"), ("Rprec", "rprec"), ("set_P", "set_p"), ("ERR@10", "err@10"),
    ("recip_rank", "mrr"), ("ap@100", "map@100"), ("rr@10", "mrr@10"), ("ndcg@10", "ndcg@10"),
])
def test_names_spelled_as_ltrbench_spells_them_are_ltrbench_names_under_the_call_profile(
        name: str, canonical: str) -> None:
    """Lower case or a table header: ltrbench's spelling (the key stays the user's)."""
    (spec,) = parse_metrics(name)
    assert (spec.name, spec.profile, spec.overrides, spec.key) == (canonical, None, (), name)


@pytest.mark.parametrize(("name", "family"), [
    ("AP@100", "map"), ("nDCG@10", "ndcg"), ("RR@10", "mrr"), ("AP", "map"), ("RR", "mrr"),
    ("Bpref", "bpref"), ("Precision@5", "p"), ("Recall@10", "recall"), ("RPrec", "rprec"),
])
def test_ir_measures_own_spellings_are_ir_measures_names(name: str, family: str) -> None:
    """Spelled exactly as ir_measures spells the measure (case included, issue 19): computed as
    ir_measures computes it (trec_eval-c) unless the call's profile says otherwise."""
    (spec,) = parse_metrics(name)
    assert (spec.family, spec.profile, spec.grammar, spec.key) == (
        family, IR_MEASURES_PROFILE, "ir_measures", name)


def test_a_profile_qualifier_computes_any_name_under_that_profile() -> None:
    assert parse_metrics("TREC_EVAL:ndcg@5,10") == [
        parse_metrics("trec_eval:ndcg@5")[0], parse_metrics("trec_eval:ndcg@10")[0]]
    (spec,) = parse_metrics("lightgbm:ndcg_cut_10")
    assert (spec.family, spec.k, spec.profile, spec.name) == (
        "ndcg", 10, "lightgbm", "lightgbm:ndcg_cut_10")
    (same,) = parse_metrics("trec_eval:ndcg_cut_10")
    assert same.name == "ndcg_cut_10"
    with pytest.raises(ConfigError, match="unknown profile 'nosuch' in 'nosuch:ndcg@10'"):
        parse_metrics("nosuch:ndcg@10")


def test_an_unknown_name_names_the_grammars_and_suggests_the_closest() -> None:
    with pytest.raises(ConfigError, match=r"\(it is not a name of ltrbench, trec_eval, "
                                          r"ir_measures\); did you mean ndcg@10\?$"):
        parse_metrics("ndgc@10")
    with pytest.raises(ConfigError, match=r"did you mean ndcg_cut_10"):
        parse_metrics("ndcg_cutt_10")


def _token() -> st.SearchStrategy[str]:
    k = st.integers(1, 1000).map(str)
    lt = st.tuples(st.sampled_from(["ndcg", "map", "mrr", "p", "recall", "err", "hits", "dcg",
                                    "precision", "ap", "r", "NDCG", "MAP"]), k).map("@".join)
    lt_bare = st.sampled_from(["ndcg", "map", "rprec", "bpref", "set_p", "set_f", "set_recall",
                               "rmse", "mae", "mrr"])
    trec = st.tuples(st.sampled_from(["ndcg_cut", "map_cut", "P", "recall", "success"]),
                     st.sampled_from(["_", "."]), k).map("".join)
    rel = st.integers(1, 4).map(lambda r: f"(rel={r})")  # rel=0: refused as ir_measures does
    ir_at = st.tuples(st.sampled_from(["P", "R", "Success", "AP", "RR"]), rel, k).map(
        lambda t: f"{t[0]}{t[1]}@{t[2]}")
    ir_set = st.tuples(st.sampled_from(["SetP", "SetR", "SetF", "Rprec", "Bpref"]),
                       st.sampled_from(["", "(rel=2)", "(rel=1)"])).map("".join)
    gains = st.dictionaries(st.integers(0, 5), st.integers(0, 9), min_size=1, max_size=3).map(
        lambda d: "nDCG(gains={" + ",".join(f"{a}:{b}" for a, b in d.items()) + "})")
    nd = st.tuples(st.one_of(gains, st.just("nDCG(dcg='exp-log2')"), st.just("Judged")), k).map(
        "@".join)
    body = st.one_of(lt, lt_bare, trec, ir_at, ir_set, nd)
    prefix = st.sampled_from(["", "", "trec_eval:", "ltrbench:", "lightgbm:"])
    return st.tuples(prefix, body).map("".join)


@settings(max_examples=300, deadline=None)
@given(_token())
def test_every_canonical_name_parses_back_to_an_equal_spec(token: str) -> None:
    for spec in parse_metrics(token):
        assert parse_metrics(spec.name) == [spec]


# -- evaluation --------------------------------------------------------------------------------

# Two queries, ties (q2: d5 and d7 at 0.6), an unjudged retrieved document in each (d9, d7), a
# relevant document not retrieved (q1: d4; q2: d1), labels 0..2.
QRELS = "1 0 d1 2\n1 0 d2 1\n1 0 d3 0\n1 0 d4 1\n1 0 d9 0\n2 0 d1 1\n2 0 d5 2\n2 0 d6 0\n"
RUN = ("1 Q0 d1 1 0.9 r\n1 Q0 d3 2 0.8 r\n1 Q0 d2 3 0.5 r\n1 Q0 d9 4 0.4 r\n"
       "2 Q0 d6 1 0.7 r\n2 Q0 d5 2 0.6 r\n2 Q0 d7 3 0.6 r\n")


def _dicts(qrels: str, run: str) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    q: dict[str, dict[str, int]] = {}
    for line in qrels.splitlines():
        a, _, d, r = line.split()
        q.setdefault(a, {})[d] = int(r)
    rr: dict[str, dict[str, float]] = {}
    for line in run.splitlines():
        a, _, d, _, s, _ = line.split()
        rr.setdefault(a, {})[d] = float(s)
    return q, rr


def test_evaluate_trec_with_trec_eval_names_equals_pytrec_eval(tmp_path: Path) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    names = ["ndcg_cut_10", "P_5", "map", "recip_rank", "ndcg_cut_2", "recall_3", "map_cut_2"]
    qrels, run = _dicts(QRELS, RUN)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, set(names)).evaluate(run)
    # Without a profile the trec_eval names keep trec_eval's (map and recip_rank are ltrbench
    # names, under evaluate_trec's default trec_eval); under an explicit ltrbench profile they
    # are refused, and trec_eval:NAME asks for them (issue 19: never resolved silently).
    ours = evaluate_trec(_write(tmp_path / "q", QRELS), _write(tmp_path / "r", RUN),
                         metrics=names, per_query=True)
    with pytest.raises(ConfigError, match="trec_eval:ndcg_cut_10"):
        evaluate_trec(tmp_path / "q", tmp_path / "r", metrics=names[:1] + names[4:],
                      profile="ltrbench")
    mixed = evaluate_trec(tmp_path / "q", tmp_path / "r",
                          metrics=[f"trec_eval:{n}" for n in names[:1] + names[4:]],
                          profile="ltrbench", per_query=True)
    assert ours.per_query is not None
    assert mixed.per_query is not None
    for name in names:
        col = name  # keys are the user's spellings (recip_rank stays recip_rank)
        for i, q in enumerate(ours.per_query["qid"]):
            assert ours.per_query[col][i] == pytest.approx(theirs[q][name], abs=1e-12)
            if f"trec_eval:{col}" in mixed.per_query:
                assert mixed.per_query[f"trec_eval:{col}"][i] == pytest.approx(
                    theirs[q][name], abs=1e-12)
        assert ours.metrics[col] == pytest.approx(
            sum(theirs[q][name] for q in theirs) / len(theirs), abs=1e-12)


@pytest.mark.parametrize("name", ["nDCG@10", "P(rel=2)@5", "R@10", "AP@100", "RR(rel=2)",
                                  "Success@1", "AP(rel=2)@3", "R(rel=2)@2", "nDCG@2",
                                  "nDCG(gains={0:0,1:1,2:3})@3", "nDCG(gains={0:1,1:4})@10"])
@pytest.mark.parametrize("qrels_text", [QRELS, QRELS + "3 0 d1 1\n3 0 d2 0\n"],
                         ids=["every-query-run", "a-query-missing-from-the-run"])
def test_evaluate_trec_with_ir_measures_names_equals_ir_measures(
        tmp_path: Path, name: str, qrels_text: str) -> None:
    """Also with a qrels query the run misses, which ir_measures scores 0: the ir_measures-only
    spellings bring the trec_eval-c profile; those that are also ltrbench names (nDCG@10, R@10,
    AP@100) take the call's, so the call names trec_eval-c, as an ir_measures user would.
    And with a gain for label 0 (unjudged retrieved documents still gain 0)."""
    qrels = list(ir_measures.read_trec_qrels(qrels_text))
    run = list(ir_measures.read_trec_run(RUN))
    measure = ir_measures.parse_measure(name)
    ours = evaluate_trec(_write(tmp_path / "q", qrels_text), _write(tmp_path / "r", RUN),
                         metrics=[name], per_query=True, profile="trec_eval-c")
    assert ours.metrics[name] == pytest.approx(measure.calc_aggregate(qrels, run), abs=1e-12)
    per_q = {m.query_id: m.value for m in measure.iter_calc(qrels, run)}
    assert ours.per_query is not None
    got = dict(zip(ours.per_query["qid"], ours.per_query[name], strict=True))
    assert got == pytest.approx(per_q, abs=1e-12)


def test_names_of_two_query_selections_merge_by_query_id(tmp_path: Path) -> None:
    """trec_eval-c:ndcg@10 (query 3 without a run line scores 0) beside ndcg@10 under the call's
    trec_eval (query 3 not scored): one row per query, NaN where a group has no value."""
    qrels_text = QRELS + "3 0 d1 1\n"
    r = evaluate_trec(_write(tmp_path / "q", qrels_text), _write(tmp_path / "r", RUN),
                      metrics=["trec_eval-c:ndcg@10", "ndcg@10"], per_query=True)
    assert r.per_query is not None
    assert list(r.per_query["qid"]) == ["1", "2", "3"]
    assert r.per_query["trec_eval-c:ndcg@10"].iloc[2] == 0.0
    assert np.isnan(r.per_query["ndcg@10"].iloc[2])
    # The values themselves from pytrec_eval (queries 1 and 2; query 3 has no run line):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = _dicts(qrels_text, RUN)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10"}).evaluate(run)
    total = sum(v["ndcg_cut_10"] for v in theirs.values())
    assert sorted(theirs) == ["1", "2"]
    assert r.metrics["ndcg@10"] == pytest.approx(total / 2, abs=1e-12)
    assert r.metrics["trec_eval-c:ndcg@10"] == pytest.approx(total / 3, abs=1e-12)


def test_gains_with_a_gain_for_label_0_equal_ir_measures_when_every_retrieved_doc_is_judged(
        tmp_path: Path) -> None:
    """nDCG(gains={0:1,1:4}): judged non-relevant documents gain 1 (trec_eval gain_init.c).
    Unjudged retrieved documents would gain 0 in trec_eval but label 0 here: not tested."""
    qrels_text = QRELS + "2 0 d7 0\n"
    name = "nDCG(gains={0:1,1:4})@10"
    expected = ir_measures.parse_measure(name).calc_aggregate(
        list(ir_measures.read_trec_qrels(qrels_text)), list(ir_measures.read_trec_run(RUN)))
    ours = evaluate_trec(_write(tmp_path / "q", qrels_text), _write(tmp_path / "r", RUN),
                         metrics=name)
    assert ours.metrics[name] == pytest.approx(expected, abs=1e-12)


def test_gdeval_ndcg_equals_ir_measures_to_gdeval_printed_precision(tmp_path: Path) -> None:
    """nDCG(dcg='exp-log2') runs gdeval.pl, which prints 5 decimals per topic."""
    import shutil
    if shutil.which("perl") is None:
        pytest.skip("gdeval.pl needs perl")
    name = "nDCG(dcg='exp-log2')@10"
    expected = ir_measures.parse_measure(name).calc_aggregate(
        list(ir_measures.read_trec_qrels(QRELS)), list(ir_measures.read_trec_run(RUN)))
    ours = evaluate_trec(_write(tmp_path / "q", QRELS), _write(tmp_path / "r", RUN), metrics=name)
    assert ours.metrics[name] == pytest.approx(expected, abs=1e-5)


def test_specs_of_several_profiles_merge_in_asked_order_with_their_own_conventions() -> None:
    """One query, labels [0, 2, 1] scored [0.9, 0.5, 0.5] (a tie between the 2 and the 1).

    ltrbench ndcg@1: the top document (0.9) has label 0, so DCG@1 = 0 and NDCG@1 = 0.
    trec_eval:p@2 (relevant = label >= 1): top 2 = label 0 then one of the tied pair, which
    trec_eval orders by docno descending (rows stand in: higher row first): row 2, label 1 ->
    P@2 = 1/2. P(rel=2)@2: label 1 is not relevant at rel=2 -> 0/2 = 0.
    ltrbench hits@2 (ties averaged): the second place holds a relevant label either way -> 1.
    """
    r = evaluate([0, 2, 1], [0.9, 0.5, 0.5], group=[3],
                 metrics=["hits@2", "P(rel=2)@2", "trec_eval:p@2", "ndcg@1"], per_query=True)
    assert list(r.metrics) == ["hits@2", "P(rel=2)@2", "trec_eval:p@2", "ndcg@1"]
    assert r.metrics == {"hits@2": 1.0, "P(rel=2)@2": 0.0, "trec_eval:p@2": 0.5, "ndcg@1": 0.0}
    assert r.per_query is not None
    assert list(r.per_query.columns) == ["qid", "hits@2", "P(rel=2)@2", "trec_eval:p@2", "ndcg@1"]
    assert r.profile.name == "ltrbench"
    assert "ltrbench: excluded" in r.diagnostics.blank_policy
    assert "trec_eval: scored 0" in r.diagnostics.blank_policy


def test_judged_needs_qrels_and_is_refused_on_labelled_rows() -> None:
    (spec,) = parse_metrics("Judged@10")
    assert (spec.family, spec.k) == ("judged", 10)
    with pytest.raises(ConfigError, match=r"Judged@10: .* needs TREC qrels"):
        evaluate([1, 0], [0.5, 0.4], group=[2], metrics="Judged@10")


# q1: d9 judged -1 (still judged), d8 unjudged; q2: d7 (unjudged) and d5 (judged) tie at 0.6, and
# ir_measures breaks the tie by document id ascending (d5 first); q3 has qrels and no run line
# (0 under trec_eval-c); q4 has a run line and no qrels (not scored).
JUDGED_QRELS = QRELS.replace("1 0 d9 0", "1 0 d9 -1") + "3 0 d1 1\n"
JUDGED_RUN = RUN + "1 Q0 d8 5 0.4 r\n4 Q0 d1 1 0.5 r\n"


@pytest.mark.parametrize("name", ["Judged@1", "Judged@2", "Judged@3", "Judged@10", "Judged"])
def test_judged_equals_ir_measures_per_query(tmp_path: Path, name: str) -> None:
    measure = ir_measures.parse_measure(name)
    qrels = list(ir_measures.read_trec_qrels(JUDGED_QRELS))
    run = list(ir_measures.read_trec_run(JUDGED_RUN))
    ours = evaluate_trec(_write(tmp_path / "q", JUDGED_QRELS), _write(tmp_path / "r", JUDGED_RUN),
                         metrics=[name, "ndcg_cut_10"], per_query=True)
    assert ours.metrics[name] == pytest.approx(measure.calc_aggregate(qrels, run), abs=1e-12)
    assert ours.per_query is not None
    got = {q: v for q, v in zip(ours.per_query["qid"], ours.per_query[name], strict=True)}
    assert got == pytest.approx({m.query_id: m.value for m in measure.iter_calc(qrels, run)},
                                abs=1e-12)


def test_judged_by_hand() -> None:
    """One query: d1 (judged) 0.9, d2 (unjudged) and d3 (judged) tied at 0.5, d4 unjudged 0.1.
    Ties by id ascending: d1, d2, d3, d4. Judged@2 = 1/2, Judged@3 = 2/3, Judged@10 = 2/4."""
    r = evaluate_trec({"q": {"d1": 0, "d3": 1}}, {"q": {"d1": 0.9, "d2": 0.5, "d3": 0.5, "d4": 0.1}},
                      metrics=["Judged@2", "Judged@3", "Judged@10"])
    assert r.metrics == pytest.approx({"Judged@2": 0.5, "Judged@3": 2 / 3, "Judged@10": 0.5},
                                      abs=1e-15)


def test_every_family_with_a_peer_name_is_a_family_ltrbench_declares() -> None:
    declared = {m.family for m in (*TREC_EVAL, *IR_MEASURES) if m.family is not None}
    assert declared - set(FAMILIES) == {"judged"}


def test_an_evaluation_of_one_profile_refuses_names_of_another() -> None:
    """The Dask engine evaluates one profile: a trec_eval name there is an error, not a number
    under the wrong conventions."""
    from bench.metrics.profiles import get_profile
    from bench.metrics.qualified import require_call_profile

    ltr = get_profile("ltrbench")
    require_call_profile(parse_metrics("ndcg@10 ltrbench:map"), ltr, "the Dask engine")
    with pytest.raises(ConfigError, match=r"the Dask engine evaluates one profile \('ltrbench'\); "
                                          r"trec_eval:ndcg_cut_10, trec_eval-c:P\(rel=2\)@5 need "
                                          "another"):
        require_call_profile(parse_metrics("ndcg@10 trec_eval:ndcg_cut_10 trec_eval-c:P(rel=2)@5"),
                             ltr, "the Dask engine")
    # a peer name without a qualifier: refused as every explicit profile refuses it (issue 19)
    with pytest.raises(ConfigError, match="ndcg_cut_10 is a trec_eval name"):
        require_call_profile(parse_metrics("ndcg_cut_10"), ltr, "the Dask engine")
    # ... and under its own tool's family it takes the call's profile
    c = get_profile("trec_eval-c")
    (spec,) = require_call_profile(parse_metrics("ndcg_cut_10"), c, "the Dask engine")
    assert (spec.profile, spec.key) == (None, "ndcg_cut_10")
    with pytest.raises(ConfigError, match=r"Judged@5: .* needs TREC qrels"):
        require_call_profile(parse_metrics("Judged@5"), ltr, "the Dask engine")


@pytest.mark.parametrize("name", ["ndcg_cut_10", "P(rel=2)@5", "trec_eval:ndcg@10"])
def test_a_run_config_refuses_names_that_bring_their_own_profile(name: str) -> None:
    """A run is evaluated under its one profile: peer spellings would silently mean another."""
    from bench.benchmark.config import RunConfig

    with pytest.raises(ConfigError, match="a run's metrics are ltrbench names"):
        RunConfig.from_dict({"metrics": ["ndcg@10", name]})
    ok = RunConfig.from_dict({"metrics": ["ndcg@10", "rprec", "NDCG@5"]})
    assert ok.metrics == ("ndcg@10", "rprec", "ndcg@5")
