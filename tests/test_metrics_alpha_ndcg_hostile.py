"""Hostile inputs to the diversity metrics (alpha_ndcg, alpha_dcg, ir_measures alpha_nDCG):
subtopic qrels that are not, judgments given twice, queries without subtopics, ordinary qrels
or ordinary metrics mixed in, profiles without one order, parameters out of range. Each is a
clear error naming where, or a number that is ndeval's."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pandas as pd
import pytest

from bench.data.trec import read_qrels
from bench.errors import ConfigError, DataError
from bench.metrics import evaluate
from bench.metrics.names import parse_metrics
from bench.metrics.trec import evaluate_trec

RUN = "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n2 Q0 x 1 1.0 t\n"
GOOD = "1 1 a 1\n1 2 b 1\n2 1 x 1\n"

#: (case, qrels text, metrics, error type, message fragment)
REFUSED: list[tuple[str, str, str, type[Exception], str]] = [
    ("subtopic is a word", "1 one a 1\n", "alpha_ndcg@5", DataError, r"qrels.txt:1.*subtopic"),
    ("subtopic is a decimal", "1 1.5 a 1\n", "alpha_ndcg@5", DataError, r":1.*subtopic"),
    ("subtopic is negative", "1 2 b 1\n1 -1 a 1\n", "alpha_ndcg@5", DataError,
     r"qrels.txt:2.*subtopic.*out of range"),
    ("subtopic is hex", "1 0x1 a 1\n", "alpha_ndcg@5", DataError, r"subtopic"),
    ("subtopic beyond int64", "1 99999999999999999999 a 1\n", "alpha_ndcg@5", DataError,
     r"subtopic"),
    ("same judgment twice, different relevance", "1 1 a 1\n1 2 b 1\n1 1 a 0\n", "alpha_ndcg@5",
     DataError, r"qrels.txt:3.*judged twice.*subtopic 1.*first on line 1"),
    ("same subtopic written 1 and 01", "1 1 a 1\n1 01 a 1\n", "alpha_ndcg@5", DataError,
     r"judged twice"),
    ("ordinary qrels file (iteration 0 everywhere)", "1 0 a 1\n1 0 b 0\n2 0 x 2\n",
     "alpha_ndcg@5", DataError, r"ordinary qrels file"),
    ("five fields", "1 1 a 1 extra\n", "alpha_ndcg@5", DataError, r"expected 4 fields"),
    ("a run line given as qrels", RUN, "alpha_ndcg@5", DataError, r"expected 4 fields"),
    ("ordinary metric beside alpha_ndcg", GOOD, "alpha_ndcg@5,ndcg@5", ConfigError,
     r"ndcg@5 cannot be evaluated beside diversity metrics"),
    ("trec_eval name beside alpha_ndcg", GOOD, "alpha_ndcg@5 P_5", ConfigError,
     r"P_5 cannot be evaluated"),
    ("tie-averaging profile", GOOD, "ltrbench:alpha_ndcg@5", ConfigError,
     r"needs one order of the documents"),
    ("gain-ordered ties (catboost)", GOOD, "catboost:alpha_ndcg@5", ConfigError,
     r"pessimistic"),
    ("alpha above 1", GOOD, "alpha_ndcg(1.5)@5", ConfigError, r"alpha must be in \[0, 1\]"),
    ("ir_measures alpha above 1", GOOD, "alpha_nDCG(alpha=2)@5", ConfigError,
     r"alpha must be in"),
    ("ir_measures alpha not a number", GOOD, "alpha_nDCG(alpha='x')@5", ConfigError,
     r"number in \[0, 1\]"),
    ("ir_measures cutoff past pyndeval's 20", GOOD, "alpha_nDCG@30", ConfigError,
     r"up to 20"),
    ("ir_measures without a cutoff", GOOD, "alpha_nDCG", ConfigError, r"needs a cutoff"),
    ("ir_measures judged_only", GOOD, "alpha_nDCG(judged_only=True)@5", ConfigError,
     r"judged_only"),
    ("ir_measures alpha_DCG (ndeval's ideal-ideal normalisation)", GOOD, "alpha_DCG@5",
     ConfigError, r"not computed by ltrbench"),
    ("no run query has qrels", "7 1 a 1\n", "alpha_ndcg@5", DataError, r"no query of the run"),
    ("ir_measures nERR_IA past 20", GOOD, "nERR_IA@25", ConfigError, r"up to 20"),
    ("nerr_ia beside ndcg", GOOD, "nerr_ia@5 ndcg@5", ConfigError, r"cannot be evaluated"),
]


@pytest.mark.parametrize(("case", "qrels", "metrics", "error", "match"), REFUSED,
                         ids=[c[0] for c in REFUSED])
def test_hostile_diversity_input_is_refused_naming_where(
        tmp_path: Path, case: str, qrels: str, metrics: str, error: type[Exception],
        match: str) -> None:
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_text(qrels)
    r.write_text(RUN)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a qrels query without a run line is said, not tested
        with pytest.raises(error, match=match):
            evaluate_trec(str(q), str(r), metrics=metrics)


def test_qrels_without_subtopics_as_objects_are_refused(tmp_path: Path) -> None:
    """A DataFrame or an ordinary Qrels has no subtopic column: refused, never read as one
    subtopic per query."""
    r = tmp_path / "run.txt"
    r.write_text(RUN)
    frame = pd.DataFrame({"qid": ["1"], "docno": ["a"], "rel": [1]})
    with pytest.raises(ConfigError, match="need subtopic qrels"):
        evaluate_trec(frame, str(r), metrics="alpha_ndcg@5")
    q = tmp_path / "plain.txt"
    q.write_text("1 0 a 1\n")
    with pytest.raises(ConfigError, match="need subtopic qrels"):
        evaluate_trec(read_qrels(q), str(r), metrics="alpha_ndcg@5")


def test_query_with_judgments_but_no_relevant_subtopic_scores_zero_and_counts(
        tmp_path: Path) -> None:
    """ndeval: actualSubtopics = 0 -> alpha-nDCG 0, and the query is averaged in (its
    applyQrels counts it). Here a blank query: the trec_eval profile's empty = 0."""
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_text("1 1 a 1\n2 1 x 0\n2 2 x -1\n")
    r.write_text(RUN)
    res = evaluate_trec(str(q), str(r), metrics="alpha_ndcg@5,alpha_dcg@5", per_query=True)
    assert res.per_query is not None
    assert res.per_query.set_index("qid").loc["2"].tolist() == [0.0, 0.0]
    assert res.metrics["alpha_ndcg@5"] == pytest.approx(0.5)  # (1 + 0) / 2
    assert res.diagnostics.n_blank == 1


def test_judgment_two_counts_as_one_and_rel_level_raises_the_bar(tmp_path: Path) -> None:
    """ndeval reads judgments as binary (judgment > 1 -> 1); ir_measures' rel=2 keeps >= 2."""
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_text("1 1 a 2\n1 2 b 1\n")
    r.write_text(RUN)
    res = evaluate_trec(str(q), str(r), metrics="alpha_dcg@2,alpha_nDCG(rel=2)@2")
    assert res.metrics["alpha_dcg@2"] == pytest.approx(1 + 1 / 1.584962500721156)
    assert res.metrics["alpha_nDCG(rel=2)@2"] == 1.0  # only a counts; it is first


def test_duplicate_run_document_and_run_query_without_qrels(tmp_path: Path) -> None:
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_text(GOOD)
    r.write_text(RUN + "1 Q0 a 3 0.5 t\n")
    with pytest.raises(DataError, match="duplicate document 'a'"):
        evaluate_trec(str(q), str(r), metrics="alpha_ndcg@5")
    r.write_text(RUN + "9 Q0 a 1 0.5 t\n")  # query 9 has no qrels: ignored, as ndeval
    res = evaluate_trec(str(q), str(r), metrics="alpha_ndcg@5")
    assert res.n_queries == 2


def test_labelled_row_evaluators_refuse_diversity_families() -> None:
    assert parse_metrics("alpha_ndcg(0.25)@10")[0].param == 0.25
    with pytest.raises(ConfigError, match="subtopic qrels"):
        evaluate([1.0, 0.0], [0.3, 0.1], qid=[1, 1], metrics="alpha_dcg@5")


def test_cli_says_one_line_and_exits_2_on_a_bad_subtopic(tmp_path: Path) -> None:
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_text("1 x a 1\n")
    r.write_text(RUN)
    out = subprocess.run([sys.executable, "-m", "bench", "evaluate", "--qrels", str(q), "--run",
                          str(r), "--metrics", "alpha_ndcg@5"], capture_output=True, text=True,
                         check=False, cwd=Path(__file__).resolve().parents[1])
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert "qrels.txt:1" in out.stderr
    assert "subtopic" in out.stderr
    q.write_text(GOOD)
    out = subprocess.run([sys.executable, "-m", "bench", "evaluate", "--qrels", str(q), "--run",
                          str(r), "--metrics", "alpha_ndcg@5", "alpha_nDCG@5"],
                         capture_output=True, text=True, check=False,
                         cwd=Path(__file__).resolve().parents[1])
    assert out.returncode == 0, out.stderr
    assert "alpha_ndcg@5" in out.stdout
    assert "alpha_nDCG@5" in out.stdout


def test_several_runs_are_compared_on_subtopic_qrels(tmp_path: Path) -> None:
    """compare_runs (evaluate with several --run) reads the qrels once: as subtopic qrels when
    a diversity metric asks (an ordinary read would refuse a document judged per subtopic)."""
    from bench.report.compare_runs import compare_runs

    q, r1, r2 = tmp_path / "qrels.txt", tmp_path / "a.txt", tmp_path / "b.txt"
    q.write_text("1 1 a 1\n1 2 a 1\n1 2 b 1\n2 1 x 1\n")
    r1.write_text(RUN)
    r2.write_text(RUN.replace("2.0", "0.5"))
    res = compare_runs(str(q), {"a": str(r1), "b": str(r2)}, metrics="alpha_ndcg@2")
    single = {name: evaluate_trec(str(q), str(path), metrics="alpha_ndcg@2").metrics
              for name, path in (("a", r1), ("b", r2))}
    assert single["a"]["alpha_ndcg@2"] == pytest.approx(1.0)  # a {1, 2} then b: the ideal
    assert single["b"]["alpha_ndcg@2"] < 1.0
    names = res.names
    for run in ("a", "b"):
        assert res.mean["alpha_ndcg@2"][names.index(run)] == pytest.approx(
            single[run]["alpha_ndcg@2"], abs=1e-15)


def test_judged_only_and_run_depth_cut_the_run_as_ndeval_and_pyndeval_do(tmp_path: Path) -> None:
    """judged_only (trec_eval -J, pyndeval's judged_only filter) drops documents without a qrels
    line before ranking; run_depth (ndeval/trec_eval -M) keeps each query's top N. Either equals
    the plain evaluation of the run cut so by hand."""
    from dataclasses import replace

    from bench.metrics.profiles import get_profile

    q, r, cut = tmp_path / "qrels.txt", tmp_path / "run.txt", tmp_path / "cut.txt"
    q.write_text("1 1 a 1\n1 2 b 1\n1 1 c 0\n1 3 d 1\n")
    r.write_text("1 Q0 u 1 9 t\n1 Q0 c 2 8 t\n1 Q0 a 3 7 t\n1 Q0 d 4 6 t\n1 Q0 b 5 5 t\n")
    base = get_profile("trec_eval")
    names = "alpha_ndcg@3,nerr_ia@3,alpha_dcg@5"
    judged = evaluate_trec(str(q), str(r), metrics=names,
                           profile=replace(base, judged_only=True)).metrics
    cut.write_text("".join(x for x in r.read_text().splitlines(keepends=True) if " u " not in x))
    assert judged == evaluate_trec(str(q), str(cut), metrics=names, profile=base).metrics
    deep = evaluate_trec(str(q), str(r), metrics=names, profile=replace(base, run_depth=2)).metrics
    cut.write_text("".join(r.read_text().splitlines(keepends=True)[:2]))
    assert deep == evaluate_trec(str(q), str(cut), metrics=names, profile=base).metrics
    assert deep["alpha_dcg@5"] == 0.0  # u is unjudged, c judged 0


def test_profiles_that_drop_rows_no_diversity_tool_drops_are_refused(tmp_path: Path) -> None:
    from dataclasses import replace

    from bench.metrics.profiles import get_profile

    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_text(GOOD)
    r.write_text(RUN)
    for change in ({"padding": "minus_one"}, {"nonpositive_scores": "not_relevant"}):
        with pytest.raises(ConfigError, match="no diversity evaluator does"):
            evaluate_trec(str(q), str(r), metrics="alpha_ndcg@5",
                          profile=replace(get_profile("trec_eval"), **change))


def test_a_run_config_asking_for_alpha_ndcg_fails_before_training() -> None:
    from bench.benchmark.scoring import expand_metrics

    with pytest.raises(ConfigError, match="alpha_ndcg@10: needs subtopic qrels"):
        expand_metrics(["ndcg@10", "alpha_ndcg@10"])
