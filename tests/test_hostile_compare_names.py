"""Hostile cases: run comparisons and metric names that could mislead (issue 19, item 2).

A comparison must use one query set for every metric and every run and say which queries it
dropped; a metric name and a profile that disagree are never resolved silently; the output keys
are the user's own spellings and every column names its profile. Oracles: ir_measures and
pytrec_eval (per query), hand arithmetic.
"""

from __future__ import annotations

import argparse
import io
import json
import re
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest

from bench.commands import evaluate as cmd
from bench.errors import ConfigError, LtrbenchError
from bench.metrics import evaluate, evaluate_trec
from bench.report.compare_runs import compare_runs

pytrec_eval = pytest.importorskip("pytrec_eval")

from hostile_kit import pytrec_per_query  # noqa: E402

# q3 is judged but run B has no line for it; A ranks badly on q1 and q2 and perfectly on q3.
QRELS = ("q1 0 d1 2\nq1 0 d2 1\nq1 0 d3 0\nq1 0 d9 1\n"
         "q2 0 d4 1\nq2 0 d5 0\nq2 0 d6 1\n"
         "q3 0 d7 1\nq3 0 d8 2\n")
RUN_A = ("q1 Q0 d3 1 3.0 a\nq1 Q0 d2 2 2.0 a\nq1 Q0 d1 3 1.0 a\n"
         "q2 Q0 d5 1 3.0 a\nq2 Q0 d4 2 2.0 a\nq2 Q0 d6 3 1.0 a\n"
         "q3 Q0 d8 1 2.0 a\nq3 Q0 d7 2 1.0 a\n")
RUN_B = ("q1 Q0 d3 1 3.0 b\nq1 Q0 d1 2 2.0 b\nq1 Q0 d2 3 1.0 b\n"
         "q2 Q0 d5 1 3.0 b\nq2 Q0 d4 2 2.0 b\nq2 Q0 d6 3 1.0 b\n")
# B is a little better than A on q1 and q2 (ndcg_cut_10 0.628 vs 0.607); A is perfect on q3.
# Before issue 19, under trec_eval-c, ndcg_cut_10 alone compared q1, q2 (B won) and with map
# beside it q1..q3, A's ndcg_cut_10 over 3 queries and B's over 2 (A won).


def _files(tmp_path: Path) -> tuple[str, str, str]:
    out = []
    for name, text in (("qrels.txt", QRELS), ("A.run", RUN_A), ("B.run", RUN_B)):
        (tmp_path / name).write_text(text)
        out.append(str(tmp_path / name))
    return out[0], out[1], out[2]


def _main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="ltrbench")
    cmd.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["evaluate", *argv])
    try:
        return int(args.func(args))
    except LtrbenchError as exc:
        print(f"error: {exc}")
        return 2


def _ir(name: str, qrels: str, run: str) -> tuple[float, dict[str, float]]:
    """ir_measures' mean and per-query values (a qrels query without a run line scores 0)."""
    q = list(ir_measures.read_trec_qrels(qrels))
    r = list(ir_measures.read_trec_run(run))
    m = ir_measures.parse_measure(name)
    return m.calc_aggregate(q, r), {v.query_id: v.value for v in m.iter_calc(q, r)}



# -- one query set for every metric and every run --------------------------------------------

@pytest.mark.parametrize("profile", ["trec_eval-c", "trec_eval", None])
def test_the_winner_does_not_change_when_a_metric_is_added(tmp_path: Path,
                                                           profile: str | None) -> None:
    """The issue's example: ndcg_cut_10 alone, then with map under trec_eval-c."""
    q, a, b = _files(tmp_path)
    kw = {} if profile is None else {"profile": profile}
    alone = compare_runs(q, {"A": a, "B": b}, metrics="ndcg_cut_10", **kw)
    both = compare_runs(q, {"A": a, "B": b}, metrics="ndcg_cut_10,map", **kw)
    assert alone.best == both.best == ("A" if profile == "trec_eval-c" else "B")
    assert alone.mean["ndcg_cut_10"] == pytest.approx(both.mean["ndcg_cut_10"], abs=1e-15)
    assert alone.qids.tolist() == both.qids.tolist()


def test_trec_eval_c_comparison_scores_the_missing_query_0_as_trec_eval_c(tmp_path: Path) -> None:
    q, a, b = _files(tmp_path)
    r = compare_runs(q, {"A": a, "B": b}, metrics="ndcg_cut_10,map", profile="trec_eval-c")
    assert r.qids.tolist() == ["q1", "q2", "q3"]
    for metric, ir_name in (("ndcg_cut_10", "nDCG@10"), ("map", "AP")):
        for i, run in enumerate((RUN_A, RUN_B)):
            assert r.mean[metric][i] == pytest.approx(_ir(ir_name, QRELS, run)[0], abs=1e-12)
    assert r.best == "A"


def test_every_metric_of_every_run_is_averaged_over_the_same_queries(tmp_path: Path) -> None:
    """No profile given: ndcg_cut_10 (trec_eval, q3 dropped for B) next to nDCG@10
    (ir_measures: trec_eval-c, q3 scored 0): one query set, so neither metric has a hole. Left
    to the profiles, the two rules disagree on q3, and adding a metric would change another's
    numbers (round 14): the call chooses the rule."""
    q, a, b = _files(tmp_path)
    with pytest.raises(ConfigError, match=r"nDCG@10 \[trec_eval-c\]: scored 0; ndcg_cut_10 "
                                          r"\[trec_eval\]: dropped.*'q3'.*--missing"):
        compare_runs(q, {"A": a, "B": b}, metrics="ndcg_cut_10 nDCG@10")
    r = compare_runs(q, {"A": a, "B": b}, metrics="ndcg_cut_10 nDCG@10", missing="drop")
    for m in r.metrics:
        assert not np.isnan(r.values[m]).any(), m
        assert r.values[m].shape == (2, r.qids.shape[0])
    assert r.qids.tolist() == ["q1", "q2"]
    assert r.dropped == ["q3"]


def test_missing_zero_scores_every_qrels_query_a_run_lacks_0(tmp_path: Path) -> None:
    q, a, b = _files(tmp_path)
    r = compare_runs(q, {"A": a, "B": b}, metrics="ndcg_cut_10,P_5", missing="zero")
    assert r.qids.tolist() == ["q1", "q2", "q3"]
    assert r.dropped == []
    for metric, ir_name in (("ndcg_cut_10", "nDCG@10"), ("P_5", "P@5")):
        assert r.mean[metric][1] == pytest.approx(_ir(ir_name, QRELS, RUN_B)[0], abs=1e-12)
    assert r.missing == "zero"
    assert "scoring 0" in r.query_rule


def test_an_unknown_missing_rule_is_refused(tmp_path: Path) -> None:
    q, a, b = _files(tmp_path)
    with pytest.raises(ConfigError, match="missing"):
        compare_runs(q, {"A": a, "B": b}, metrics="map", missing="impute")


def test_dropped_queries_are_counted_and_named_in_every_output_form(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    q, a, b = _files(tmp_path)
    argv = ["--qrels", q, "--run", f"A={a}", "--run", f"B={b}", "--metrics", "ndcg_cut_10"]
    assert _main([*argv, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_dropped"] == 1
    assert out["dropped"] == ["q3"]
    assert out["missing"] == "drop"
    assert _main([*argv, "--format", "csv"]) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert frame["n_dropped"].tolist() == [1, 1]
    assert frame["dropped"].tolist() == ["q3", "q3"]
    assert _main(argv) == 0
    text = capsys.readouterr().out
    assert "1 query dropped from every run and metric: q3" in text


def test_cli_missing_zero_is_printed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    q, a, b = _files(tmp_path)
    argv = ["--qrels", q, "--run", f"A={a}", "--run", f"B={b}", "--metrics", "P_5",
            "--missing", "zero", "--format", "json"]
    assert _main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["missing"], out["n_queries"], out["dropped"]) == ("zero", 3, [])
    b_mean = out["runs"][1]["metrics"]["P_5"]["mean"]
    assert b_mean == pytest.approx(_ir("P@5", QRELS, RUN_B)[0], abs=1e-12)


def test_comparison_columns_name_their_profile(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    q, a, b = _files(tmp_path)
    r = compare_runs(q, {"A": a, "B": b}, metrics="ndcg_cut_10 nDCG@10 map", missing="drop")
    assert r.metric_profiles == {"ndcg_cut_10": "trec_eval", "nDCG@10": "trec_eval-c",
                                 "map": "trec_eval"}
    frame = r.to_frame()
    assert frame["nDCG@10 profile"].tolist() == ["trec_eval-c"] * 2
    argv = ["--qrels", q, "--run", f"A={a}", "--run", f"B={b}", "--missing", "drop",
            "--metrics", "ndcg_cut_10", "nDCG@10"]
    assert _main([*argv, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metric_profiles"] == {"ndcg_cut_10": "trec_eval", "nDCG@10": "trec_eval-c"}
    assert _main(argv) == 0
    assert "nDCG@10 [trec_eval-c]" in capsys.readouterr().out


# -- names and profiles ----------------------------------------------------------------------

def test_trec_eval_names_under_trec_eval_c_use_minus_c(tmp_path: Path) -> None:
    """The issue's P_5 = 0.3000 / ndcg_cut_10 = 0.2576 next to map with -c."""
    q, a, _ = _files(tmp_path)
    r = evaluate_trec(q, a, metrics="P_5,map,ndcg_cut_10", profile="trec_eval-c", per_query=True)
    assert r.per_query is not None
    for name, ir_name in (("P_5", "P@5"), ("map", "AP"), ("ndcg_cut_10", "nDCG@10")):
        mean, per_q = _ir(ir_name, QRELS, RUN_A)
        assert r.metrics[name] == pytest.approx(mean, abs=1e-12)
        got = dict(zip(r.per_query["qid"], r.per_query[name], strict=True))
        assert got == pytest.approx(per_q, abs=1e-12)
    assert set(r.metric_profiles.values()) == {"trec_eval-c"}


def test_cli_trec_eval_c_prints_minus_c_values(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    q, _, b = _files(tmp_path)
    assert _main(["--qrels", q, "--run", b, "--profile", "trec_eval-c", "--metrics",
                  "P_5,map,ndcg_cut_10", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for name, ir_name in (("P_5", "P@5"), ("map", "AP"), ("ndcg_cut_10", "nDCG@10")):
        assert out["metrics"][name] == pytest.approx(_ir(ir_name, QRELS, RUN_B)[0], abs=1e-12)
        assert out["metric_profiles"][name] == "trec_eval-c"


@pytest.mark.parametrize("name", ["nDCG@10", "AP", "RR", "nDCG@3", "AP@2", "RR@1", "Bpref",
                                  "Precision@2", "Recall@3", "RPrec"])
def test_ir_measures_spellings_without_a_profile_equal_ir_measures(tmp_path: Path,
                                                                   name: str) -> None:
    """A qrels query has no run line: ir_measures scores it 0."""
    q, _, b = _files(tmp_path)
    r = evaluate_trec(q, b, metrics=[name], per_query=True)
    mean, per_q = _ir(name, QRELS, RUN_B)
    assert r.metrics[name] == pytest.approx(mean, abs=1e-12)
    assert r.per_query is not None
    assert dict(zip(r.per_query["qid"], r.per_query[name], strict=True)) == pytest.approx(per_q, abs=1e-12)
    # RR@k is MS MARCO's evaluator in ir_measures: trec_eval -c with ties by doc id ascending
    # and the scores as Python floats
    tie = "+score_dtype='float64',ties='docno_asc'" if name.startswith("RR@") else ""
    assert r.metric_profiles[name] == "trec_eval-c" + tie


@pytest.mark.parametrize("name", ["ndcg_cut_10", "P_5", "recip_rank", "map", "Rprec", "bpref",
                                  "recall_5", "map_cut_2"])
def test_trec_eval_names_without_a_profile_equal_pytrec_eval(tmp_path: Path, name: str) -> None:
    q, _, b = _files(tmp_path)
    r = evaluate_trec(q, b, metrics=[name], per_query=True)
    theirs = pytrec_per_query(QRELS, RUN_B, name)
    assert r.per_query is not None
    assert dict(zip(r.per_query["qid"], r.per_query[name], strict=True)) == pytest.approx(theirs, abs=1e-12)
    assert r.metrics[name] == pytest.approx(sum(theirs.values()) / len(theirs), abs=1e-12)


def test_keys_are_the_users_spellings(tmp_path: Path) -> None:
    q, a, _ = _files(tmp_path)
    names = ["recip_rank", "AP", "nDCG@10", "NDCG@5,10", "P_5", "ndcg_cut.3,10", "precision@2"]
    r = evaluate_trec(q, a, metrics=names, per_query=True)
    keys = ["recip_rank", "AP", "nDCG@10", "NDCG@5", "NDCG@10", "P_5", "ndcg_cut.3",
            "ndcg_cut.10", "precision@2"]
    assert list(r.metrics) == keys
    assert r.per_query is not None
    assert r.per_query.columns.tolist() == ["qid", *keys]
    assert list(r.as_dict()["metrics"]) == keys  # type: ignore[arg-type]


def test_two_spellings_of_one_metric_both_answer(tmp_path: Path) -> None:
    q, a, _ = _files(tmp_path)
    r = evaluate_trec(q, a, metrics="ndcg@10 NDCG@10", profile="trec_eval")
    assert r.metrics["ndcg@10"] == r.metrics["NDCG@10"]


def test_arrays_keys_are_the_users_spellings() -> None:
    r = evaluate([2, 0, 1, 0], [0.9, 0.8, 0.1, 0.3], group=[2, 2], metrics="NDCG@2 recip_rank")
    assert list(r.metrics) == ["NDCG@2", "recip_rank"]


@pytest.mark.parametrize(("profile", "name", "hint"), [
    ("lightgbm", "ndcg_cut_10", "trec_eval:ndcg_cut_10"),
    ("ltrbench", "P_5", "trec_eval:P_5"),
    ("trec_eval", "nDCG@10", "trec_eval-c:nDCG@10"),
    ("xgboost", "AP", "trec_eval-c:AP"),
    ("ranx", "RR@10", "trec_eval-c:RR@10"),
])
def test_a_name_of_another_profile_under_an_explicit_profile_is_refused(
        tmp_path: Path, profile: str, name: str, hint: str) -> None:
    q, a, _ = _files(tmp_path)
    with pytest.raises(ConfigError, match=hint.replace("@", "@").replace(".", r"\.")):
        evaluate_trec(q, a, metrics=[name], profile=profile)
    with pytest.raises(ConfigError, match=profile):
        evaluate([2, 0, 1, 0], [0.9, 0.8, 0.1, 0.3], group=[2, 2], metrics=name,
                 profile=profile)


def test_the_cli_refuses_a_mismatched_name_in_one_line(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    q, a, _ = _files(tmp_path)
    assert _main(["--qrels", q, "--run", a, "--profile", "lightgbm", "--metrics",
                  "ndcg_cut_10"]) == 2
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    assert "trec_eval:ndcg_cut_10" in out
    assert "ndcg@10 for its value under 'lightgbm'" in out


def test_the_qualifier_still_picks_any_profile(tmp_path: Path) -> None:
    q, a, _ = _files(tmp_path)
    r = evaluate_trec(q, a, metrics="trec_eval:ndcg_cut_10 ndcg@10", profile="lightgbm")
    theirs = pytrec_per_query(QRELS, RUN_A, "ndcg_cut_10")
    assert r.metrics["trec_eval:ndcg_cut_10"] == pytest.approx(
        sum(theirs.values()) / len(theirs), abs=1e-12)
    assert r.metric_profiles == {"trec_eval:ndcg_cut_10": "trec_eval", "ndcg@10": "lightgbm"}


def test_ir_measures_parameters_under_trec_eval_c_equal_ir_measures(tmp_path: Path) -> None:
    q, _, b = _files(tmp_path)
    r = evaluate_trec(q, b, metrics=["P(rel=2)@5", "nDCG(gains={0:0,1:1,2:3})@10"],
                      profile="trec_eval-c")
    for name in r.metrics:
        assert r.metrics[name] == pytest.approx(_ir(name, QRELS, RUN_B)[0], abs=1e-12)


def test_single_evaluation_output_names_each_metrics_profile(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    q, a, _ = _files(tmp_path)
    argv = ["--qrels", q, "--run", a, "--metrics", "ndcg_cut_10", "nDCG@10"]
    assert _main([*argv, "--format", "csv"]) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert frame["profile"].tolist() == ["trec_eval", "trec_eval-c"]
    assert _main([*argv, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metric_n_queries"] == {"ndcg_cut_10": 3, "nDCG@10": 3}
    assert _main(["--qrels", q, "--run", str(tmp_path / "B.run"), "--metrics", "ndcg_cut_10",
                  "nDCG@10"]) == 0
    text = capsys.readouterr().out
    assert re.search(r"nDCG@10 .* trec_eval-c .* 3 ", text)
    assert re.search(r"ndcg_cut_10 .* trec_eval .* 2 ", text)  # B has no line for q3


# -- more instances of the same classes --------------------------------------------------------

def _dict_runs() -> tuple[dict[str, dict[str, int]], dict[str, dict[str, dict[str, float]]]]:
    qrels = {"q1": {"a": 1, "b": 1}, "q2": {"a": 1}, "q3": {"a": 1}, "q4": {"b": 1}}
    runs = {
        "A": {"q1": {"a": 0.9, "b": 0.1}, "q2": {"a": 0.9}, "q3": {"x": 0.9, "a": 0.1},
              "q9": {"a": 1.0}},
        "B": {"q1": {"x": 0.9, "a": 0.1}, "q2": {"a": 0.9}, "q4": {"b": 0.9}},
        "C": {"q1": {"a": 0.9}, "q3": {"a": 0.9}, "q4": {"x": 0.9, "b": 0.1}},
    }
    return qrels, runs


def test_each_run_missing_another_query_drops_the_union_and_names_it_per_run() -> None:
    qrels, runs = _dict_runs()
    r = compare_runs(qrels, runs, metrics="map")
    assert r.qids.tolist() == ["q1"]
    assert r.dropped == ["q2", "q3", "q4"]  # q9 has no qrels: never evaluated, never dropped
    assert r.left_out == {"A": ["q2", "q3"], "B": ["q2", "q4"], "C": ["q3", "q4"]}


def test_missing_zero_keeps_every_judged_query_for_every_run() -> None:
    qrels, runs = _dict_runs()
    r = compare_runs(qrels, runs, metrics="map", missing="zero")
    assert r.qids.tolist() == ["q1", "q2", "q3", "q4"]
    assert r.dropped == []
    assert r.profile == "trec_eval-c"  # trec_eval with missing zero is trec_eval -c
    for i, name in enumerate(r.names):
        run = "".join(f"{q} Q0 {d} 0 {s} x\n" for q, docs in runs[name].items()
                      for d, s in docs.items())
        qrels_text = "".join(f"{q} 0 {d} {v}\n" for q, docs in qrels.items()
                             for d, v in docs.items())
        assert r.mean["map"][i] == pytest.approx(_ir("AP", qrels_text, run)[0], abs=1e-12)


def test_missing_drop_under_trec_eval_c_is_trec_eval(tmp_path: Path) -> None:
    q, a, b = _files(tmp_path)
    r = compare_runs(q, {"A": a, "B": b}, metrics="ndcg_cut_10", profile="trec_eval-c",
                     missing="drop")
    assert r.profile == "trec_eval"
    assert r.dropped == ["q3"]
    for i, run in enumerate((RUN_A, RUN_B)):
        theirs = pytrec_per_query(QRELS, run, "ndcg_cut_10")
        assert r.mean["ndcg_cut_10"][i] == pytest.approx((theirs["q1"] + theirs["q2"]) / 2,
                                                         abs=1e-12)


def test_missing_zero_under_a_profile_without_a_named_twin_says_so(tmp_path: Path) -> None:
    q, a, b = _files(tmp_path)
    r = compare_runs(q, {"A": a, "B": b}, metrics="ndcg@10", profile="lightgbm", missing="zero")
    assert r.profile == "lightgbm+missing=zero"
    assert r.metric_profiles == {"ndcg@10": "lightgbm+missing=zero"}
    assert r.qids.tolist() == ["q1", "q2", "q3"]
    assert r.values["ndcg@10"][1][2] == 0.0  # B has no line for q3


def test_the_order_of_the_metrics_changes_no_mean(tmp_path: Path) -> None:
    q, a, b = _files(tmp_path)
    one = compare_runs(q, {"A": a, "B": b}, metrics="map ndcg_cut_10 nDCG@10", missing="drop")
    two = compare_runs(q, {"A": a, "B": b}, metrics="nDCG@10 ndcg_cut_10 map", missing="drop")
    for m in one.metrics:
        assert one.mean[m] == pytest.approx(two.mean[m], abs=1e-15)
    assert one.qids.tolist() == two.qids.tolist()


def test_per_query_frame_holds_one_query_set_for_every_metric(tmp_path: Path) -> None:
    q, a, b = _files(tmp_path)
    r = compare_runs(q, {"A": a, "B": b}, metrics="trec_eval-c:ndcg@10 ndcg@10", missing="drop")
    pq = r.per_query_frame()
    sets = {m: sorted(pq[pq["metric"] == m]["qid"]) for m in r.metrics}
    assert sets == {"trec_eval-c:ndcg@10": ["q1", "q2"], "ndcg@10": ["q1", "q2"]}
    assert not pq[["A", "B"]].isna().any().any()


def test_integer_and_string_query_ids_are_one_query_across_runs() -> None:
    qrels = {"1": {"a": 1}, "2": {"a": 1}}
    runs = {"A": {1: {"a": 0.9}, 2: {"a": 0.9}}, "B": {"1": {"a": 0.9}, "2": {"x": 0.9}}}
    r = compare_runs(qrels, runs, metrics="p@1")  # type: ignore[arg-type]
    assert r.qids.tolist() == ["1", "2"]
    assert r.dropped == []


def test_markup_in_query_ids_and_run_names_is_printed_verbatim(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "q").write_text("[bold]x 0 d1 1\nq2 0 d1 1\n")
    (tmp_path / "a").write_text("[bold]x Q0 d1 1 1 a\nq2 Q0 d1 1 1 a\n")
    (tmp_path / "b").write_text("q2 Q0 d1 1 1 b\n")
    assert _main(["--qrels", str(tmp_path / "q"), "--run", f"[red]A={tmp_path / 'a'}",
                  "--run", f"B={tmp_path / 'b'}", "--metrics", "p@1"]) == 0
    out = capsys.readouterr().out
    assert "dropped from every run and metric: [bold]x" in out
    assert "[red]A" in out


def test_a_long_list_of_dropped_queries_is_counted_and_cut_in_the_table_and_csv(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ids = [f"q{i:02d}" for i in range(12)]
    (tmp_path / "q").write_text("".join(f"{i} 0 d 1\n" for i in ids))
    (tmp_path / "a").write_text("".join(f"{i} Q0 d 1 1 a\n" for i in ids))
    (tmp_path / "b").write_text("q00 Q0 d 1 1 b\n")
    argv = ["--qrels", str(tmp_path / "q"), "--run", f"A={tmp_path / 'a'}", "--run",
            f"B={tmp_path / 'b'}", "--metrics", "p@1"]
    assert _main([*argv, "--format", "csv"]) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert frame["n_dropped"].tolist() == [11, 11]
    assert frame["dropped"].iloc[0] == "q01, q02, q03, q04, q05, ..."
    assert _main([*argv, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_dropped"] == 11
    assert out["dropped"] == ids[1:]
    assert _main(argv) == 0
    assert "11 queries dropped from every run and metric: q01, q02, q03, q04, q05, ..." in \
        capsys.readouterr().out


@pytest.mark.parametrize("extra", [["--run", "X"], []])
def test_missing_without_a_comparison_is_refused(tmp_path: Path, extra: list[str],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    q, a, _ = _files(tmp_path)
    argv = ["--qrels", q, "--run", a, "--missing", "zero"]
    if extra:
        argv = ["--data", "x", "--scores", "y", "--missing", "zero"]
    assert _main(argv) == 2
    assert "--missing" in capsys.readouterr().out


def test_an_explicit_qualifier_keeps_its_own_profile_under_another_family(tmp_path: Path) -> None:
    q, _, b = _files(tmp_path)
    r = evaluate_trec(q, b, metrics="trec_eval-c:ndcg_cut_10 ndcg_cut_10", profile="trec_eval")
    assert r.metric_profiles == {"trec_eval-c:ndcg_cut_10": "trec_eval-c",
                                 "ndcg_cut_10": "trec_eval"}
    assert r.metrics["trec_eval-c:ndcg_cut_10"] == pytest.approx(
        _ir("nDCG@10", QRELS, RUN_B)[0], abs=1e-12)
    theirs = pytrec_per_query(QRELS, RUN_B, "ndcg_cut_10")
    assert r.metrics["ndcg_cut_10"] == pytest.approx(sum(theirs.values()) / 2, abs=1e-12)


def test_two_qualifiers_of_one_name_are_two_columns(tmp_path: Path) -> None:
    q, _, b = _files(tmp_path)
    with pytest.raises(ConfigError, match="'map' is named twice"):  # round 22: refused
        evaluate_trec(q, b, metrics="trec_eval:map trec_eval-c:map map map")
    r = evaluate_trec(q, b, metrics="trec_eval:map trec_eval-c:map map")
    assert list(r.metrics) == ["trec_eval:map", "trec_eval-c:map", "map"]
    assert r.metrics["trec_eval-c:map"] == pytest.approx(_ir("AP", QRELS, RUN_B)[0], abs=1e-12)
    assert r.metrics["trec_eval:map"] == r.metrics["map"]


def test_judged_follows_the_same_rule(tmp_path: Path) -> None:
    q, _, b = _files(tmp_path)
    with pytest.raises(ConfigError, match="trec_eval-c:Judged@2"):
        evaluate_trec(q, b, metrics="Judged@2", profile="trec_eval")
    r = evaluate_trec(q, b, metrics="Judged@2", profile="trec_eval-c")
    assert r.metrics["Judged@2"] == pytest.approx(_ir("Judged@2", QRELS, RUN_B)[0], abs=1e-12)


def test_a_spelling_with_spaces_is_its_own_key(tmp_path: Path) -> None:
    q, _, b = _files(tmp_path)
    name = "nDCG( dcg='exp-log2' )@10"
    r = evaluate_trec(q, b, metrics=[name])
    assert list(r.metrics) == [name]
    assert r.metric_profiles[name].startswith("trec_eval-c+")


def test_a_name_in_no_tools_case_is_the_ltrbench_one(tmp_path: Path) -> None:
    q, _, b = _files(tmp_path)
    r = evaluate_trec(q, b, metrics="NdCg@10 ndcg@10")
    assert r.metrics["NdCg@10"] == r.metrics["ndcg@10"]
    assert r.metric_profiles["NdCg@10"] == "trec_eval"


def test_continued_cutoffs_of_an_ir_measures_name_equal_ir_measures(tmp_path: Path) -> None:
    q, _, b = _files(tmp_path)
    r = evaluate_trec(q, b, metrics="nDCG@1,3")
    assert list(r.metrics) == ["nDCG@1", "nDCG@3"]
    for name in r.metrics:
        assert r.metrics[name] == pytest.approx(_ir(name, QRELS, RUN_B)[0], abs=1e-12)


def test_a_profile_object_is_an_explicit_profile(tmp_path: Path) -> None:
    from bench.metrics import get_profile

    q, _, b = _files(tmp_path)
    r = evaluate_trec(q, b, metrics="P_5", profile=get_profile("trec_eval-c"))
    assert r.metrics["P_5"] == pytest.approx(_ir("P@5", QRELS, RUN_B)[0], abs=1e-12)


def test_blank_policy_means_and_per_query_file_use_the_spellings(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "q").write_text("q1 0 d1 1\nq2 0 d2 0\n")  # q2: no relevant document
    (tmp_path / "r").write_text("q1 Q0 d1 1 1 a\nq2 Q0 d2 1 1 a\n")
    r = evaluate_trec(tmp_path / "q", tmp_path / "r", metrics="NDCG@2", profile="ltrbench")
    assert set(r.diagnostics.mean_blank_excluded) == {"NDCG@2"}
    pq = tmp_path / "pq.csv"
    assert _main(["--qrels", str(tmp_path / "q"), "--run", str(tmp_path / "r"), "--metrics",
                  "recip_rank", "AP", "--per-query", str(pq)]) == 0
    assert pd.read_csv(pq).columns.tolist() == ["qid", "recip_rank", "AP"]


def test_missing_zero_beside_a_metric_of_a_dropping_profile_drops_for_all(tmp_path: Path) -> None:
    """--missing zero applies to the call's profile; a PROFILE:NAME that drops q3 for run B
    still makes q3 leave every metric and run, and the output says so."""
    q, a, b = _files(tmp_path)
    r = compare_runs(q, {"A": a, "B": b}, metrics="map trec_eval:map", missing="zero")
    assert r.metric_profiles == {"map": "trec_eval-c", "trec_eval:map": "trec_eval"}
    assert r.qids.tolist() == ["q1", "q2"]
    assert r.dropped == ["q3"]
    assert r.left_out == {"A": ["q3"], "B": ["q3"]}
    assert r.mean["map"] == pytest.approx(r.mean["trec_eval:map"], abs=1e-15)


def test_a_result_answers_to_the_spelling_it_was_asked_with(tmp_path: Path) -> None:
    q, _, b = _files(tmp_path)
    r = evaluate_trec(q, b, metrics="nDCG@10 recip_rank AP")
    assert r["nDCG@10"] == r.metrics["nDCG@10"]
    assert r["nDCG@10"] == pytest.approx(_ir("nDCG@10", QRELS, RUN_B)[0], abs=1e-12)
    with pytest.raises(KeyError, match=r"'mrr' is not a metric of this result .*recip_rank"):
        r["mrr"]


def test_missing_with_the_dask_engine_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert _main(["--engine", "dask", "--data", "shards", "--missing", "zero"]) == 2
    assert "--missing" in capsys.readouterr().out
