"""Round 9 of the hostile catalogue: metric lists and names against the call's profile (issue 19,
item 2). New instances beyond round 8, found and fixed here:

1. **An empty name in a metric list** (``ndcg@10,,5``, ``map_cut.5,,10``, ``,ndcg@10``,
   ``map,``, ``["ndcg@10", ""]``) was skipped silently: a doubled comma is a typo for a
   left-out cutoff or name. Now refused naming where it is, on every entry point (``evaluate
   --metrics``, ``evaluate_trec``, ``compare_runs``, a run's ``metrics`` through
   ``expand_metrics``); a text of separators only still says "no metric names given".
2. **Spaces around a profile qualifier's ':'** (``" trec_eval-c : P_5"``) said "unknown metric
   'trec_eval-c'": now the qualifier applies to the name after it, as without the spaces; a
   qualifier without a name (``trec_eval-c:``) is refused naming it; a bracket or quote left
   open (``P(rel=2@5,map``) is said, where every name after it was one unknown name; ranx's
   relevance-level suffix (``ndcg@3-l2``) names the option that asks for it; a set of several
   names (no order: the columns changed with the process's hash seed) or a dict (its values
   ignored) is refused, as ``compare_runs`` already refused a set.
3. **A recommender library's own spelling under its profile**: RecBole's ``Recall@10`` /
   ``Precision@10`` (``recbole/evaluator/metrics.py``, ``class Recall``, ``class Precision``;
   MS Recommenders prints the same) were refused under ``--profile recbole`` /
   ``recommenders`` because ir_measures spells them so; now the tool's metric under the call's
   profile. ir_measures' own spellings that are not the tool's (``nDCG@10``, ``AP``) stay
   refused, and ``Recall@10`` under ``trec_eval`` too.
4. **crosscheck --evaluators and the diversity measures**: there were no alpha_nDCG / nERR_IA
   rows and ``--tools pyndeval`` said "unknown evaluation tool". Now ir_measures' pyndeval
   provider has rows (alpha_nDCG@5, @20, alpha=0.8, nERR_IA@20) read on subtopic qrels (the
   built-in 'graded' case, or a ``--qrels`` file in ndeval's format), ``--tools pyndeval``
   names the tool to ask for, and ``evaluators.json`` / ``.md`` say which inputs those rows
   read. ``--tools ranx,,sklearn`` skipped the empty name: now refused.

Oracles: ir_measures, pytrec_eval, hand arithmetic from RecBole's and Recommenders' sources.
:data:`CLASSES` maps each test to its class for the closing counts.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import pytest
from hostile_kit import api_refused, call, cli, close, csv_values, refused

from bench.errors import ConfigError
from bench.metrics import evaluate, evaluate_trec
from bench.metrics.names import parse_metrics

ir_measures = pytest.importorskip("ir_measures")

CLASSES = {
    "test_an_empty_name_in_a_metric_text_is_refused_naming_where": "silent accept",
    "test_an_empty_entry_in_a_metric_list_is_refused_naming_it": "silent accept",
    "test_an_empty_name_on_the_command_line_is_one_error_line": "silent accept",
    "test_an_empty_name_in_a_run_config_metric_list_is_refused": "silent accept",
    "test_separators_alone_are_no_names": "unclear error",
    "test_spaces_around_a_profile_qualifier_apply_it": "unclear error",
    "test_a_profile_qualifier_without_a_name_is_refused": "unclear error",
    "test_an_open_bracket_or_quote_is_said": "unclear error",
    "test_ranx_relevance_level_suffix_names_the_option": "unclear error",
    "test_an_unordered_or_mapped_metric_list_is_refused": "silently wrong",
    "test_recboles_recall_and_precision_are_recboles": "unclear error",
    "test_recommenders_recall_and_precision_are_recommenders": "unclear error",
    "test_ir_measures_spellings_that_are_not_the_tools_stay_refused": "silently wrong",
    "test_crosscheck_names_the_tool_of_the_diversity_measures": "unclear error",
    "test_crosscheck_compares_the_diversity_measures_on_subtopic_qrels": "unclear error",
    "test_crosscheck_reports_say_which_inputs_the_diversity_rows_read": "silent accept",
    "test_an_empty_tool_name_is_refused": "silent accept",
}

QRELS = b"1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 d 1\n2 0 e 0\n3 0 f 1\n"
RUN = b"1 Q0 a 1 0.4 t\n1 Q0 b 2 0.9 t\n1 Q0 c 3 0.1 t\n2 Q0 d 1 0.2 t\n2 Q0 e 2 0.8 t\n"

EMPTY = ["ndcg@10,,5", "map_cut.5,,10", ",ndcg@10", "map,", "ndcg@10, ,5", "P_5,,ndcg_cut_10",
         "ndcg@10 map ,", "trec_eval-c:P_5,,map"]


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "q").write_bytes(QRELS)
    (tmp_path / "r").write_bytes(RUN)
    return str(tmp_path / "q"), str(tmp_path / "r")


def _ir(qrels: str, run: str, name: str) -> float:
    m = ir_measures.parse_measure(name)
    return float(ir_measures.calc_aggregate([m], list(ir_measures.read_trec_qrels(qrels)),
                                            list(ir_measures.read_trec_run(run)))[m])


@pytest.mark.parametrize("text", EMPTY)
def test_an_empty_name_in_a_metric_text_is_refused_naming_where(files: tuple[str, str],
                                                                 text: str) -> None:
    _, exc = call(lambda: parse_metrics(text))
    assert api_refused(exc, "empty metric name", "comma") is None
    q, r = files
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, exc = call(lambda: evaluate_trec(q, r, metrics=text))
    assert api_refused(exc, "empty metric name") is None


@pytest.mark.parametrize("names", [["ndcg@10", ""], ["", "map"], ["ndcg@10", "   "],
                                   ("ndcg@10", "map", "\t")])
def test_an_empty_entry_in_a_metric_list_is_refused_naming_it(names: list[str]) -> None:
    _, exc = call(lambda: evaluate([1, 0], [0.5, 0.1], qid=[1, 1], metrics=names))
    assert api_refused(exc, "metric name", "empty") is None


@pytest.mark.parametrize("text", ["ndcg_cut_10,,5", "P_5,", ",map"])
def test_an_empty_name_on_the_command_line_is_one_error_line(
        tmp_path: Path, files: tuple[str, str], text: str) -> None:
    q, r = files
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--metrics", text)
    assert refused(res, "empty metric name") is None, res.err
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--run", f"b={r}",
              "--metrics", text)  # a run comparison reads the same list
    assert refused(res) is None, res.err


def test_an_empty_name_in_a_run_config_metric_list_is_refused() -> None:
    from bench.benchmark.scoring import expand_metrics

    for text in ("ndcg@1,,10", ["ndcg@10", ""], "mrr,"):
        _, exc = call(lambda t=text: expand_metrics(t))  # type: ignore[misc]
        assert api_refused(exc, "empty") is None, text


@pytest.mark.parametrize("text", ["", " ", ",", " , ", ",,", "\t,\n"])
def test_separators_alone_are_no_names(text: str) -> None:
    _, exc = call(lambda: parse_metrics(text))
    assert api_refused(exc, "no metric names given") is None


@pytest.mark.parametrize("text", [" trec_eval-c : P_5", "trec_eval-c: P_5", "trec_eval-c :P_5",
                                  "trec_eval-c\t:\tP_5"])
def test_spaces_around_a_profile_qualifier_apply_it(tmp_path: Path, files: tuple[str, str],
                                                    text: str) -> None:
    """trec_eval -c P_5 is ir_measures' P@5 (a qrels query without a run line scores 0):
    query 1 has a, c relevant in the top 5 (2/5), query 2 d (1/5), query 3 no run line (0):
    mean 1/5."""
    q, r = files
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--metrics", text, "ndcg_cut_10",
              "--format", "csv")
    assert res.status == 0, res.err
    got = csv_values(res)
    assert close(got["trec_eval-c:P_5"], _ir(q, r, "P@5"), 1e-15)
    assert close(got["trec_eval-c:P_5"], 0.2, 1e-15)
    assert [s.label for s in parse_metrics(text + " map")] == ["trec_eval-c:P_5", "map"]


@pytest.mark.parametrize("text", ["trec_eval-c:", "trec_eval-c :", "map trec_eval-c :,P_5",
                                  ": P_5"])
def test_a_profile_qualifier_without_a_name_is_refused(text: str) -> None:
    _, exc = call(lambda: parse_metrics(text))
    assert api_refused(exc) is None
    assert isinstance(exc, ConfigError)
    assert "qualifier" in str(exc) or "empty" in str(exc), exc


@pytest.mark.parametrize(("text", "word"), [("P(rel=2@5,map", "bracket"),
                                            ("nDCG(dcg='exp-log2)@10,map", "quote"),
                                            ("AP(rel=2 ndcg@10", "bracket")])
def test_an_open_bracket_or_quote_is_said(text: str, word: str) -> None:
    """Every name after an open bracket or quote was read as one unknown name ("unknown metric
    'P(rel=2@5,map'" and the list of every grammar): now the open bracket / quote is said."""
    _, exc = call(lambda: parse_metrics(text))
    assert api_refused(exc, word, "not closed") is None


@pytest.mark.parametrize("name", ["ndcg@3-l2", "precision@3-l2", "map-l2", "ranx:mrr@5-l1"])
def test_ranx_relevance_level_suffix_names_the_option(tmp_path: Path, name: str) -> None:
    """ranx spells a relevance level into the name (``ndcg@3-l2``: a judgment >= 2 is
    relevant); it was an unknown metric followed by every grammar. Now the message names the
    option that asks for it, and that option gives ranx's number."""
    _, exc = call(lambda: parse_metrics(name))
    assert api_refused(exc, "-l", "--relevance-level", "ranx") is None
    ranx = pytest.importorskip("ranx")
    qrels = {"1": {"a": 1, "b": 2, "c": 0}, "2": {"x": 1, "y": 0}}
    run = {"1": {"a": 3.0, "b": 2.0, "c": 1.0}, "2": {"x": 1.0, "y": 2.0}}
    (tmp_path / "q").write_text("".join(f"{q} 0 {d} {r}\n" for q, v in qrels.items()
                                        for d, r in v.items()))
    (tmp_path / "r").write_text("".join(f"{q} Q0 {d} 1 {s} t\n" for q, v in run.items()
                                        for d, s in v.items()))
    res = cli(tmp_path, "evaluate", "--qrels", "q", "--run", "r", "--profile", "ranx",
              "--relevance-level", "2", "--metrics", "ndcg@3,precision@3,map", "--format", "csv")
    assert res.status == 0, res.err
    got = csv_values(res)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run),
                             ["ndcg@3-l2", "precision@3-l2", "map-l2"], make_comparable=True)
    assert close(got["ndcg@3"], float(want["ndcg@3-l2"]), 1e-12)
    assert close(got["precision@3"], float(want["precision@3-l2"]), 1e-12)
    assert close(got["map"], float(want["map-l2"]), 1e-12)


def test_an_unordered_or_mapped_metric_list_is_refused(files: tuple[str, str]) -> None:
    """A set of names has no order (a str's hash differs per process, so the columns and a
    comparison's primary metric changed from run to run); a dict's values were ignored.
    Ordered iterables (a tuple, a dict's keys, a generator) keep their order; a one-name set
    has one."""
    q, r = files
    for bad in ({"map", "ndcg@10"}, frozenset({"P_5", "map"}), {"map": 1}):
        _, exc = call(lambda b=bad: evaluate_trec(q, r, metrics=b))  # type: ignore[misc]
        assert api_refused(exc, type(bad).__name__) is None, bad
    for good in (("map", "P_5"), {"map": 1, "P_5": 2}.keys(), (m for m in ["map", "P_5"])):
        assert [s.label for s in parse_metrics(good)] == ["map", "P_5"]
    assert [s.label for s in parse_metrics({"map"})] == ["map"]


#: Ground truth and ranked lists: user u has a and b relevant and retrieves a (hit) and c; user v
#: has x relevant and retrieves y, z, x (x at rank 3); user w is in the ground truth without a
#: ranked list.
REC_QRELS = {"u": {"a": 1, "b": 1}, "v": {"x": 1}, "w": {"k": 1}}
REC_RUN = {"u": {"a": 2.0, "c": 1.0}, "v": {"y": 1.0, "z": 0.5, "x": 0.1}}


def _rec(metrics: list[str], profile: str) -> dict[str, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return dict(evaluate_trec(REC_QRELS, REC_RUN, metrics=metrics, profile=profile).metrics)


def test_recboles_recall_and_precision_are_recboles() -> None:
    """RecBole Recall@K = hits/|R(u)|, Precision@K = hits/K, averaged over every user with
    ground truth (w, unranked, scores 0): Recall@2 = (1/2 + 0 + 0)/3, Precision@2 = (1/2 + 0 +
    0)/3, Recall@3 = (1/2 + 1 + 0)/3."""
    got = _rec(["Recall@2", "Precision@2", "Recall@3", "recall@3"], "recbole")
    assert got == pytest.approx({"Recall@2": 1 / 6, "Precision@2": 1 / 6, "Recall@3": 0.5,
                                 "recall@3": 0.5}, abs=1e-15)


def test_recommenders_recall_and_precision_are_recommenders() -> None:
    """Recommenders recall_at_k / precision_at_k over the users common to rating_true and
    rating_pred (w left out): Recall@3 = (1/2 + 1)/2, Precision@3 = (1/3 + 1/3)/2."""
    got = _rec(["Recall@3", "Precision@3"], "recommenders")
    assert got == pytest.approx({"Recall@3": 0.75, "Precision@3": 1 / 3}, abs=1e-15)


@pytest.mark.parametrize(("name", "profile"), [("nDCG@2", "recbole"), ("AP@2", "recommenders"),
                                               ("Recall@2", "trec_eval"),
                                               ("Precision@2", "lightgbm"),
                                               ("Recall(rel=2)@2", "recbole")])
def test_ir_measures_spellings_that_are_not_the_tools_stay_refused(name: str,
                                                                   profile: str) -> None:
    _, exc = call(lambda: _rec([name], profile))
    assert api_refused(exc, name) is None


@pytest.mark.parametrize("tool", ["pyndeval", "alpha_nDCG", "nerr_ia"])
def test_crosscheck_names_the_tool_of_the_diversity_measures(
        tmp_path: Path, files: tuple[str, str], tool: str) -> None:
    q, r = files
    res = cli(tmp_path, "crosscheck", "--evaluators", "--qrels", q, "--trec-run", r, "--tools",
              tool, "--out", str(tmp_path / "out"))
    assert refused(res, "--tools ir_measures", "subtopic qrels") is None, res.err
    assert not (tmp_path / "out").exists()


def _pyndeval(lines: list[tuple[str, str, str, int]], run: dict[str, dict[str, float]],
              measure: str) -> dict[str, float]:
    m = ir_measures.parse_measure(measure)
    qrels = [ir_measures.Qrel(q, d, rel, t) for q, t, d, rel in lines]
    return {x.query_id: float(x.value) for x in ir_measures.providers.registry["pyndeval"]
            .evaluator([m], qrels).iter_calc(run)}


def test_crosscheck_compares_the_diversity_measures_on_subtopic_qrels(tmp_path: Path) -> None:
    """A --qrels file in ndeval's format gives the diversity rows an input: each row compared
    per query with ir_measures' pyndeval provider (ndeval), which agrees with ltrbench here
    (both checked against ndeval by tests/test_metrics_alpha_ndcg.py); the ordinary rows
    skip it (a document judged once per subtopic is no ordinary qrels)."""
    from bench.crosscheck.evaluator_table import TABLE
    from bench.crosscheck.evaluators import crosscheck_evaluators, trec_input

    lines = [("1", "1", "a", 1), ("1", "2", "a", 1), ("1", "2", "b", 1), ("1", "3", "c", 1),
             ("2", "1", "x", 1), ("2", "2", "y", 0)]
    run = {"1": {"b": 3.0, "a": 2.0, "c": 1.0, "u": 0.5}, "2": {"y": 2.0, "x": 1.0}}
    (tmp_path / "q").write_text("".join(f"{q} {t} {d} {rel}\n" for q, t, d, rel in lines))
    (tmp_path / "r").write_text("".join(f"{q} Q0 {d} {i} {s} t\n" for q, docs in run.items()
                                        for i, (d, s) in enumerate(docs.items(), 1)))
    inp = trec_input(tmp_path / "q", tmp_path / "r")
    assert inp.subtopics is not None
    assert inp.qrels == {}
    rows = [r for r in TABLE if r.provider == "pyndeval"] + [TABLE[0]]
    result = crosscheck_evaluators([inp], rows=rows, only=["ir_measures", "pytrec_eval"],
                                   isolate=False)
    by = {r.row.label: r for r in result.rows}
    for row in rows[:-1]:
        got = by[row.label]
        assert (got.status, got.n_queries, got.agreeing) == ("compared", 2, 2), got
    assert by[rows[-1].label].status == "skipped"
    # query 2 by hand: y (no subtopic) then x (subtopic 1, gain 1 at rank 2: 1/log2(3)); the
    # ideal puts x first (1/log2(2) = 1)
    assert _pyndeval(lines, run, "alpha_nDCG@5")["2"] == pytest.approx(1 / math.log2(3),
                                                                       rel=1e-14)


def test_crosscheck_reports_say_which_inputs_the_diversity_rows_read() -> None:
    from bench.crosscheck.evaluator_render import render_evaluators, result_dict
    from bench.crosscheck.evaluators import crosscheck_evaluators

    result = crosscheck_evaluators(tools=(), rows=())
    assert "subtopic qrels" in json.loads(json.dumps(result_dict(result)))["diversity"]
    assert "Diversity rows" in render_evaluators(result)


@pytest.mark.parametrize("tools", ["ranx,,sklearn", "ranx,", ",ranx"])
def test_an_empty_tool_name_is_refused(tmp_path: Path, files: tuple[str, str],
                                       tools: str) -> None:
    q, r = files
    res = cli(tmp_path, "crosscheck", "--evaluators", "--qrels", q, "--trec-run", r, "--tools",
              tools, "--out", str(tmp_path / "out"))
    assert refused(res, "empty name") is None, res.err
