"""Round 12 of the hostile catalogue (issue 19): an IR researcher comparing systems for a paper,
as they did with trec_eval, pytrec_eval, ir_measures and ranx (the oracles, computed here).

Several ``--run`` files, peer metric names, profiles, per-query output, run files with quirks
(ties, ranks disagreeing with scores, integers beyond 2^53, 17 significant digits, negative
scores, queries on one side only, negative and huge grades, a run tag with spaces, the same
document twice), then ``reproduce`` of the tables they paste into a paper.

Found here (failing on the round-11b main, fixed):

* **Look-alike run names**: ``--run A=x --run А=y`` (Latin A, Cyrillic А), or Greek ``Α``, or a
  Cyrillic ``о`` inside ``bm25-bоw``, were two runs printed identically in the comparison; now
  refused naming both names escaped and the characters in which they differ
  (:mod:`bench.data.look_alike`: NFKC, invisible characters removed, a table of Cyrillic and
  Greek look-alikes). NFC vs NFD ``é`` was refused before, but its message printed
  ``'café' and 'café'``: now it shows both spellings escaped.
* **reproduce of a tuned leaderboard or a fold table** compared their JSON only: an edited
  ``leaderboard-tuned-<d>.md`` / ``.csv`` / ``.tex``, ``tuned-<d>/trials.md`` / ``.tex`` or a
  fold table's ``.md`` reproduced as before; now each is compared cell by cell with what the JSON
  renders to, naming file, line, row, column, committed and regenerated value.

Pinned (already right): every trec_eval name of a three-run comparison equals pytrec_eval's
mean over the comparison's queries; trec_eval-c and ir_measures names score a missing query 0
as the tools do; ranx names under ``--profile ranx`` equal ranx; ties, ranks, negative scores,
17-digit scores, negative and huge grades, a tag with spaces against pytrec_eval.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from hostile_kit import Res, api_refused, call, cli, letor_split, refused

pytrec_eval = pytest.importorskip("pytrec_eval")
ir_measures = pytest.importorskip("ir_measures")

ROOT = Path(__file__).resolve().parents[1]
TUNED = ROOT / "results" / "tuned"

QRELS = ("1 0 a 1\n1 0 b 0\n1 0 c 2\n1 0 d 1\n"
         "2 0 d 1\n2 0 e 0\n2 0 f 2\n"
         "3 0 g 1\n3 0 h 0\n3 0 i -1\n")
RUNS = {
    "bm25": ("1 Q0 a 1 0.4 t\n1 Q0 b 2 0.9 t\n1 Q0 c 3 0.1 t\n1 Q0 x 4 0.3 t\n"
             "2 Q0 d 1 0.2 t\n2 Q0 e 2 0.8 t\n2 Q0 f 3 0.5 t\n"
             "3 Q0 g 1 0.7 t\n3 Q0 h 2 0.6 t\n3 Q0 i 3 0.9 t\n"),
    "dense": ("1 Q0 c 1 3.0 t\n1 Q0 a 2 2.0 t\n1 Q0 d 3 1.0 t\n"
              "2 Q0 e 1 5 t\n2 Q0 f 2 4 t\n2 Q0 d 3 1 t\n"
              "3 Q0 h 1 0.5 t\n3 Q0 g 2 0.4 t\n"),
    "splade": ("1 Q0 d 1 0.9 t\n1 Q0 b 2 0.8 t\n1 Q0 y 3 0.7 t\n1 Q0 c 4 0.6 t\n"
               "2 Q0 f 1 0.3 t\n2 Q0 z 2 0.2 t\n"
               "3 Q0 i 1 0.5 t\n3 Q0 g 2 0.1 t\n"),
}


# --------------------------------------------------------------------------------- helpers
def parse_qrels(text: str) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for line in text.splitlines():
        q, _, d, r = line.split()
        out.setdefault(q, {})[d] = int(r)
    return out


def parse_run(text: str) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for line in text.splitlines():
        q, _, d, _, s = line.split()[:5]
        out.setdefault(q, {})[d] = float(s)
    return out


def pte(qrels: str, run: str, measure: str, **kw: Any) -> dict[str, float]:
    """pytrec_eval's per-query values of one measure (its key, e.g. ``ndcg_cut_10``)."""
    cut = re.fullmatch(r"(.+)_(\d+)", measure)
    spec = f"{cut.group(1)}.{cut.group(2)}" if cut else measure
    ev = pytrec_eval.RelevanceEvaluator(parse_qrels(qrels), {spec}, **kw)
    return {q: v[measure] for q, v in ev.evaluate(parse_run(run)).items()}


def write(folder: Path, qrels: str, runs: dict[str, str]) -> list[str]:
    (folder / "qrels.txt").write_text(qrels, encoding="utf-8")
    argv = ["evaluate", "--qrels", "qrels.txt"]
    for i, (name, text) in enumerate(runs.items()):
        (folder / f"run{i}.txt").write_text(text, encoding="utf-8")
        argv += ["--run", f"{name}=run{i}.txt"]
    return argv


def compare(folder: Path, qrels: str, runs: dict[str, str], *metrics: str,
            extra: tuple[str, ...] = ()) -> tuple[Res, dict[str, Any]]:
    res = cli(folder, *write(folder, qrels, runs), "--metrics", *metrics, "--format", "json",
              *extra)
    assert res.status == 0, res.err
    return res, json.loads(res.out)


def means(doc: dict[str, Any]) -> dict[str, dict[str, float]]:
    return {r["name"]: {m: v["mean"] for m, v in r["metrics"].items()} for r in doc["runs"]}


def mean_over(values: dict[str, float], queries: list[str]) -> float:
    return sum(values.get(q, 0.0) for q in queries) / len(queries)


# ------------------------------------------------- three runs against pytrec_eval (pinned)
@pytest.mark.parametrize("measure", ["ndcg_cut_10", "P_5", "map_cut_100", "recall_1000",
                                     "Rprec", "bpref", "set_F", "recip_rank", "map"])
def test_a_three_run_comparison_equals_pytrec_eval_per_run(tmp_path: Path, measure: str) -> None:
    _, doc = compare(tmp_path, QRELS, RUNS, measure)
    assert doc["profile"] == "trec_eval"
    assert doc["n_queries"] == 3
    assert doc["metric_profiles"] == {measure: "trec_eval"}
    for name, got in means(doc).items():
        want = mean_over(pte(QRELS, RUNS[name], measure), ["1", "2", "3"])
        assert got[measure] == pytest.approx(want, rel=1e-12, abs=1e-15), (name, measure)


@pytest.mark.parametrize("measure", ["ndcg_cut_10", "P_5", "map"])
def test_trec_eval_c_scores_a_query_one_run_lacks_zero_as_trec_eval_c(tmp_path: Path,
                                                                      measure: str) -> None:
    runs = {**RUNS, "dense": "\n".join(ln for ln in RUNS["dense"].splitlines()
                                        if not ln.startswith("2 ")) + "\n"}
    _, doc = compare(tmp_path, QRELS, runs, measure, extra=("--profile", "trec_eval-c"))
    assert doc["missing"] == "zero"
    assert doc["n_queries"] == 3
    for name, got in means(doc).items():
        want = mean_over(pte(QRELS, runs[name], measure), ["1", "2", "3"])  # absent: 0
        assert got[measure] == pytest.approx(want, rel=1e-12, abs=1e-15), name


def test_under_trec_eval_the_query_one_run_lacks_is_dropped_and_named(tmp_path: Path) -> None:
    runs = {**RUNS, "dense": "\n".join(ln for ln in RUNS["dense"].splitlines()
                                        if not ln.startswith("2 ")) + "\n"}
    _, doc = compare(tmp_path, QRELS, runs, "ndcg_cut_10")
    assert doc["missing"] == "drop"
    assert doc["n_queries"] == 2
    assert [str(q) for q in doc["dropped"]] == ["2"], doc["dropped"]
    for name, got in means(doc).items():
        want = mean_over(pte(QRELS, runs[name], "ndcg_cut_10"), ["1", "3"])
        assert got["ndcg_cut_10"] == pytest.approx(want, rel=1e-12), name


def test_relevance_level_two_equals_pytrec_eval_relevance_level(tmp_path: Path) -> None:
    _, doc = compare(tmp_path, QRELS, RUNS, "P_5", "map", extra=("--relevance-level", "2"))
    for name, got in means(doc).items():
        for m in ("P_5", "map"):
            want = mean_over(pte(QRELS, RUNS[name], m, relevance_level=2), ["1", "2", "3"])
            assert got[m] == pytest.approx(want, rel=1e-12, abs=1e-15), (name, m)


def _irm(qrels: str, run: str, name: str) -> float:
    measure = ir_measures.parse_measure(name)
    return float(ir_measures.calc_aggregate([measure], parse_qrels(qrels), parse_run(run))[measure])


@pytest.mark.parametrize("name", ["nDCG@10", "AP(rel=2)", "P(rel=2)@5", "Judged@10", "RR"])
def test_ir_measures_names_in_a_comparison_equal_ir_measures(tmp_path: Path, name: str) -> None:
    # Judged@k measures no quality, so it may not come first (round 23b): after nDCG@10
    _, doc = compare(tmp_path, QRELS, RUNS, *(["nDCG@10"] if name == "Judged@10" else []), name)
    assert doc["metric_profiles"][name].startswith("trec_eval-c"), doc["metric_profiles"]
    for run, got in means(doc).items():
        assert got[name] == pytest.approx(_irm(QRELS, RUNS[run], name), rel=1e-12, abs=1e-15)


def test_ir_measures_r_at_100_under_trec_eval_c_equals_ir_measures_with_a_missing_query(
        tmp_path: Path) -> None:
    """``R@100`` reads as ltrbench's own recall (the column says the call's profile); under
    ``--profile trec_eval-c`` a query the run lacks scores 0, as in ir_measures."""
    run = "\n".join(ln for ln in RUNS["bm25"].splitlines() if not ln.startswith("3 ")) + "\n"
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(run)
    res = cli(tmp_path, "evaluate", "--qrels", "q", "--run", "r", "--metrics", "R@100",
              "--profile", "trec_eval-c", "--format", "json")
    assert res.status == 0, res.err
    doc = json.loads(res.out)
    assert doc["metric_profiles"]["R@100"] == "trec_eval-c"
    assert doc["metrics"]["R@100"] == pytest.approx(_irm(QRELS, run, "R@100"), rel=1e-12)


def test_ranx_names_under_profile_ranx_equal_ranx_per_run(tmp_path: Path) -> None:
    ranx = pytest.importorskip("ranx")
    metrics = ["ndcg@10", "map@100", "mrr", "precision@5", "recall@100"]
    _, doc = compare(tmp_path, QRELS, RUNS, *metrics, extra=("--profile", "ranx"))
    qrels = ranx.Qrels({q: {d: r for d, r in v.items()} for q, v in parse_qrels(QRELS).items()})
    for name, got in means(doc).items():
        want = ranx.evaluate(qrels, ranx.Run(parse_run(RUNS[name])), metrics)
        for m in metrics:
            assert got[m] == pytest.approx(float(want[m]), rel=1e-9, abs=1e-12), (name, m)


# ------------------------------------------------------- run-file quirks against pytrec_eval
def _quirk(tmp_path: Path, qrels: str, odd: str, *measures: str) -> None:
    runs = {"odd": odd, "bm25": RUNS["bm25"]}
    _, doc = compare(tmp_path, qrels, runs, *measures)
    queries = sorted(set(parse_qrels(qrels)) & set(parse_run(odd)))
    for m in measures:
        want = mean_over(pte(qrels, odd, m), queries)
        assert means(doc)["odd"][m] == pytest.approx(want, rel=1e-12, abs=1e-15), m


def test_tied_scores_break_as_pytrec_eval_breaks_them(tmp_path: Path) -> None:
    odd = ("1 Q0 a 1 1 t\n1 Q0 b 2 1 t\n1 Q0 c 3 1 t\n1 Q0 d 4 1 t\n"
           "2 Q0 d 1 0.5 t\n2 Q0 e 2 0.5 t\n2 Q0 f 3 0.5 t\n3 Q0 g 1 2 t\n3 Q0 h 2 2 t\n")
    _quirk(tmp_path, QRELS, odd, "ndcg_cut_10", "P_1", "recip_rank")


def test_a_rank_field_that_disagrees_with_the_score_is_ignored_as_by_trec_eval(
        tmp_path: Path) -> None:
    odd = ("1 Q0 a 4 0.4 t\n1 Q0 b 1 0.9 t\n1 Q0 c 9 0.1 t\n"
           "2 Q0 d 1 0.2 t\n2 Q0 e 1 0.8 t\n3 Q0 g 7 0.7 t\n3 Q0 h 0 0.6 t\n")
    _quirk(tmp_path, QRELS, odd, "ndcg_cut_10", "P_1", "map")


def test_negative_scores_rank_as_pytrec_eval_ranks_them(tmp_path: Path) -> None:
    odd = ("1 Q0 a 1 -0.4 t\n1 Q0 b 2 -0.9 t\n1 Q0 c 3 -10 t\n1 Q0 d 4 -1e-300 t\n"
           "2 Q0 d 1 -5 t\n2 Q0 e 2 -2 t\n3 Q0 g 1 -1 t\n3 Q0 h 2 0 t\n")
    _quirk(tmp_path, QRELS, odd, "ndcg_cut_10", "map", "P_1")


def test_scores_with_seventeen_significant_digits_rank_as_doubles(tmp_path: Path) -> None:
    """0.12345678901234568 and 0.12345678901234566 are two doubles: ranked as read."""
    odd = ("1 Q0 a 1 0.12345678901234566 t\n1 Q0 b 2 0.12345678901234568 t\n"
           "1 Q0 c 3 0.12345678901234570 t\n2 Q0 d 1 1.0000000000000002 t\n"
           "2 Q0 f 2 1.0000000000000000 t\n3 Q0 g 1 0.30000000000000004 t\n3 Q0 h 2 0.3 t\n")
    _quirk(tmp_path, QRELS, odd, "P_1", "recip_rank")


def test_an_integer_score_at_two_to_the_53_is_exact(tmp_path: Path) -> None:
    odd = ("1 Q0 a 1 9007199254740992 t\n1 Q0 b 2 9007199254740990 t\n"
           "2 Q0 d 1 -9007199254740992 t\n2 Q0 e 2 0 t\n3 Q0 g 1 1 t\n")
    _quirk(tmp_path, QRELS, odd, "P_1", "map")


def test_an_integer_score_above_two_to_the_53_is_refused_naming_the_run_and_line(
        tmp_path: Path) -> None:
    odd = "1 Q0 a 1 1 t\n1 Q0 b 2 9007199254740993 t\n"
    argv = write(tmp_path, QRELS, {"bm25": RUNS["bm25"], "big": odd})
    assert refused(cli(tmp_path, *argv), "'big'", ":2", "9007199254740993", "2^53") is None


def test_a_query_only_in_the_run_is_ignored_as_trec_eval_ignores_it(tmp_path: Path) -> None:
    """A run over more topics than were judged (said only beside qrels queries the run lacks,
    where it hints at ids spelt two ways: bench.metrics.missing)."""
    odd = RUNS["dense"] + "77 Q0 q 1 9 t\n77 Q0 r 2 8 t\n"
    _, doc = compare(tmp_path, QRELS, {"dense": odd, "bm25": RUNS["bm25"]}, "ndcg_cut_10")
    assert doc["n_queries"] == 3
    assert doc["dropped"] == []
    want = mean_over(pte(QRELS, odd, "ndcg_cut_10"), ["1", "2", "3"])
    assert means(doc)["dense"]["ndcg_cut_10"] == pytest.approx(want, rel=1e-12)


def test_negative_grades_are_judged_non_relevant_as_in_trec_eval(tmp_path: Path) -> None:
    qrels = "1 0 a -1\n1 0 b 1\n1 0 c -2\n2 0 d 2\n2 0 e -1\n"
    odd = "1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n1 Q0 u 4 0.5 t\n2 Q0 e 1 2 t\n2 Q0 d 2 1 t\n"
    _quirk(tmp_path, qrels, odd, "ndcg_cut_10", "bpref", "map", "P_5")


def test_a_huge_grade_gains_linearly_as_in_trec_eval(tmp_path: Path) -> None:
    """Hand arithmetic (pytrec_eval itself loops for minutes over a grade of a million):
    trec_eval's gain is the grade, the discount log2(rank + 1)."""
    qrels = "1 0 a 1000000\n1 0 b 1\n1 0 c 0\n2 0 d 3\n2 0 e 2\n"
    odd = "1 Q0 b 1 3 t\n1 Q0 a 2 2 t\n1 Q0 c 3 1 t\n2 Q0 e 1 2 t\n2 Q0 d 2 1 t\n"
    _, doc = compare(tmp_path, qrels, {"odd": odd, "bm25": RUNS["bm25"]}, "ndcg_cut_10", "map")
    l3 = math.log2(3)
    q1 = (1 + 1e6 / l3) / (1e6 + 1 / l3)
    q2 = (2 + 3 / l3) / (3 + 2 / l3)
    got = means(doc)["odd"]
    assert got["ndcg_cut_10"] == pytest.approx((q1 + q2) / 2, rel=1e-12)
    assert got["map"] == 1.0


def test_a_run_tag_with_spaces_is_read_as_trec_eval_reads_it(tmp_path: Path) -> None:
    odd = "".join(ln.rsplit(" ", 1)[0] + " my run tag v2\n" for ln in RUNS["dense"].splitlines())
    runs = {"tagged": odd, "plain": RUNS["dense"]}
    _, doc = compare(tmp_path, QRELS, runs, "ndcg_cut_10", "map")
    got = means(doc)
    assert got["tagged"] == got["plain"]
    want = mean_over(pte(QRELS, RUNS["dense"], "map"), ["1", "2", "3"])
    assert got["tagged"]["map"] == pytest.approx(want, rel=1e-12)


def test_the_same_document_twice_in_one_run_is_refused_naming_run_and_lines(
        tmp_path: Path) -> None:
    odd = "1 Q0 a 1 0.9 t\n1 Q0 b 2 0.5 t\n1 Q0 a 3 0.1 t\n"
    argv = write(tmp_path, QRELS, {"bm25": RUNS["bm25"], "twice": odd})
    assert refused(cli(tmp_path, *argv), "'twice'", ":3", "'a'", "line 1") is None


# ----------------------------------------------------------------- outputs of a comparison
def test_per_query_file_of_three_runs_equals_pytrec_eval_per_query(tmp_path: Path) -> None:
    argv = write(tmp_path, QRELS, RUNS)
    res = cli(tmp_path, *argv, "--metrics", "ndcg_cut_10", "P_5", "--per-query", "pq.csv")
    assert res.status == 0, res.err
    rows = list(csv.DictReader(io.StringIO((tmp_path / "pq.csv").read_text())))
    assert rows
    assert list(rows[0])[:3] == ["qid", "metric", "profile"]
    assert set(list(rows[0])[3:]) == set(RUNS)
    for row in rows:
        assert row["profile"] == "trec_eval"
        for name in RUNS:
            want = pte(QRELS, RUNS[name], row["metric"])[row["qid"]]
            assert float(row[name]) == pytest.approx(want, rel=1e-12, abs=1e-15), row


def test_csv_names_the_profile_of_every_column_with_mixed_peer_names(tmp_path: Path) -> None:
    argv = write(tmp_path, QRELS, RUNS)
    res = cli(tmp_path, *argv, "--metrics", "ndcg_cut_10", "nDCG@10", "--format", "csv")
    assert res.status == 0, res.err
    rows = list(csv.DictReader(io.StringIO(res.out)))
    assert {r["ndcg_cut_10 profile"] for r in rows} == {"trec_eval"}
    assert {r["nDCG@10 profile"] for r in rows} == {"trec_eval-c"}
    for r in rows:  # every run covers every query: the two profiles agree here
        assert float(r["ndcg_cut_10"]) == pytest.approx(float(r["nDCG@10"]), rel=1e-12)


def test_trec_eval_dash_q_is_refused_naming_the_option(tmp_path: Path) -> None:
    argv = write(tmp_path, QRELS, RUNS)
    res = cli(tmp_path, *argv, "-q")
    assert res.status == 2
    assert not res.traceback
    assert "-q" in res.err, res.err


def test_format_latex_is_refused_naming_the_formats(tmp_path: Path) -> None:
    argv = write(tmp_path, QRELS, RUNS)
    res = cli(tmp_path, *argv, "--format", "latex")
    assert res.status == 2
    assert not res.traceback
    assert "latex" in res.err, res.err
    assert "csv" in res.err, res.err


def test_the_table_header_states_the_query_set(tmp_path: Path) -> None:
    argv = write(tmp_path, QRELS, RUNS)
    res = cli(tmp_path, *argv, "--metrics", "P_5")
    assert res.status == 0, res.err
    assert "3 common queries" in res.out, res.out
    assert "queries:" in res.out


# ------------------------------------------------------------- look-alike run names (fixed)
def _names(tmp_path: Path, *names: str) -> Res:
    runs = {n: RUNS[k] for n, k in zip(names, ["bm25", "dense", "splade"], strict=False)}
    return cli(tmp_path, *write(tmp_path, QRELS, runs), "--metrics", "P_5")


@pytest.mark.parametrize(("a", "b", "char"), [
    ("A", "\u0410", "CYRILLIC CAPITAL LETTER A"),
    ("A", "\u0391", "GREEK CAPITAL LETTER ALPHA"),
    ("bm25-bow", "bm25-b\u043ew", "CYRILLIC SMALL LETTER O"),
    ("doc2query", "d\u03bfc2query", "GREEK SMALL LETTER OMICRON"),
    ("Exp", "\u0415xp", "CYRILLIC CAPITAL LETTER IE"),
    ("copy", "\u0441\u043e\u0440\u0443", "CYRILLIC SMALL LETTER ES"),
])
def test_look_alike_run_names_are_refused_naming_both_and_the_letter(
        tmp_path: Path, a: str, b: str, char: str) -> None:
    res = _names(tmp_path, a, b)
    assert refused(res, "run names", ascii(b)[1:-1], char) is None, res.err


def test_nfc_and_nfd_run_names_are_refused_with_both_spellings_escaped(tmp_path: Path) -> None:
    res = _names(tmp_path, "caf\u00e9", "cafe\u0301")
    assert refused(res, "caf\\xe9", "cafe\\u0301", "NFC") is None, res.err


def test_a_third_run_that_looks_like_the_first_names_those_two(tmp_path: Path) -> None:
    res = _names(tmp_path, "Okapi", "dense", "\u041ekapi")
    assert refused(res, "'Okapi'", "\\u041ekapi") is None, res.err
    assert "'dense'" not in res.err


def test_look_alike_file_stems_are_refused_asking_for_names(tmp_path: Path) -> None:
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "P.run").write_text(RUNS["bm25"])
    (tmp_path / "\u0420.run").write_text(RUNS["dense"])
    res = cli(tmp_path, "evaluate", "--qrels", "qrels.txt", "--run", "P.run", "--run",
              "\u0420.run")
    assert refused(res, "\\u0420", "NAME=PATH") is None, res.err


def test_the_python_api_refuses_look_alike_run_names(tmp_path: Path) -> None:
    from bench.report.compare_runs import compare_runs

    (tmp_path / "q").write_text(QRELS)
    for i, k in enumerate(("bm25", "dense")):
        (tmp_path / f"r{i}").write_text(RUNS[k])
    _, exc = call(lambda: compare_runs(str(tmp_path / "q"), {
        "Bm25": str(tmp_path / "r0"), "\u0392m25": str(tmp_path / "r1")}, metrics=["P_5"]))
    assert api_refused(exc, "GREEK CAPITAL LETTER BETA", "\\u0392m25") is None


@pytest.mark.parametrize("names", [("\u042f\u043d\u0434\u0435\u043a\u0441", "bm25"),
                                   ("A", "a"), ("\u0411\u041c25", "BM25"),
                                   ("\u03b1\u03b2", "ab")])
def test_names_that_look_different_stay_two_runs(tmp_path: Path,
                                                 names: tuple[str, str]) -> None:
    res = _names(tmp_path, *names)
    assert res.status == 0, res.err
    for n in names:
        assert n in res.out


def test_two_blanks_where_another_name_has_one_are_refused(tmp_path: Path) -> None:
    """Markdown, HTML and LaTeX typeset ``bm25  rm3`` as ``bm25 rm3``."""
    res = _names(tmp_path, "bm25 rm3", "bm25  rm3")
    assert refused(res, "'bm25 rm3'", "'bm25  rm3'", "U+0020 SPACE") is None, res.err


def test_a_soft_hyphen_in_a_run_name_is_refused_naming_it(tmp_path: Path) -> None:
    res = _names(tmp_path, "bm25", "bm\u00ad25")
    assert refused(res, "U+00AD") is None, res.err


def test_the_skeleton_reads_mixed_scripts_and_widths_as_latin() -> None:
    from bench.data.look_alike import skeleton

    assert skeleton("\uff30\u0430yp\u0430l") == "Paypal"
    assert skeleton("x\u200by") == "xy"
    assert skeleton("cafe\u0301") == skeleton("caf\u00e9")
    assert skeleton("\u042f") == "\u042f"  # no Latin look-alike: kept


# ---------------------------------------------- reproduce: every committed table file (fixed)
@pytest.fixture
def tuned(tmp_path: Path) -> Path:
    """A copy of the committed tuned leaderboard of OHSUMED and its trials tables (no runs:
    nothing re-runs, the table files are compared with the JSON)."""
    for p in TUNED.glob("leaderboard-tuned-ohsumed.*"):
        shutil.copy(p, tmp_path / p.name)
    shutil.copytree(TUNED / "tuned-ohsumed", tmp_path / "tuned-ohsumed")
    return tmp_path


def _reproduce(folder: Path, target: str) -> tuple[Res, dict[str, Any]]:
    res = cli(folder, "reproduce", target, "--no-progress", "--format", "json")
    assert not res.traceback, res.err
    doc = json.loads(res.out)
    (rendered,) = [o for o in doc["runs"] if "against" in o["source"]]
    return res, rendered


def _bump(path: Path, pattern: str = r"\b0\.(\d{4})\b", nth: int = 0) -> tuple[str, str]:
    """Change the ``nth`` number matching ``pattern`` in ``path``; (old, new) cell text."""
    text = path.read_text(encoding="utf-8")
    m = list(re.finditer(pattern, text))[nth]
    old = m.group(0)
    new = old[:-1] + ("1" if old[-1] != "1" else "2")
    path.write_text(text[:m.start()] + new + text[m.end():], encoding="utf-8")
    return old, new


def test_an_untouched_tuned_report_renders_back_to_every_table_file(tuned: Path) -> None:
    _, rendered = _reproduce(tuned, "leaderboard-tuned-ohsumed.md")
    assert rendered["status"] == "match", rendered["differences"][:3]
    for name in ("leaderboard-tuned-ohsumed.md", "leaderboard-tuned-ohsumed.csv",
                 "leaderboard-tuned-ohsumed.tex", "tuned-ohsumed/trials.md",
                 "tuned-ohsumed/trials.tex"):
        assert name in rendered["source"]


@pytest.mark.parametrize("name", ["leaderboard-tuned-ohsumed.md",
                                  "leaderboard-tuned-ohsumed.csv",
                                  "leaderboard-tuned-ohsumed.tex",
                                  "tuned-ohsumed/trials.md", "tuned-ohsumed/trials.tex"])
def test_a_number_edited_in_a_tuned_table_file_is_named(tuned: Path, name: str) -> None:
    pattern = r"0\.\d{4,}" if name.endswith(".csv") else r"\b0\.(\d{4})\b"
    old, new = _bump(tuned / name, pattern, nth=1 if "trials" in name else 3)
    res, rendered = _reproduce(tuned, "leaderboard-tuned-ohsumed.json")
    assert res.status == 1
    assert rendered["status"] == "mismatch"
    (d,) = rendered["differences"]
    assert d["file"] == name
    assert d["key"].startswith("line "), d
    assert "row" in d["key"], d
    assert d["column"], d
    assert new in d["original"], d
    assert old in d["reproduced"], d


def test_a_row_removed_from_the_tuned_markdown_is_named_missing(tuned: Path) -> None:
    md = tuned / "leaderboard-tuned-ohsumed.md"
    lines = md.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(i for i, ln in enumerate(lines) if ln.startswith("| lightgbm"))
    gone = lines.pop(at)
    md.write_text("".join(lines), encoding="utf-8")
    _, rendered = _reproduce(tuned, "leaderboard-tuned-ohsumed.md")
    assert rendered["status"] == "mismatch"
    assert any(d["reproduced"] == gone.rstrip("\n") and "missing" in d["key"]
               for d in rendered["differences"]), rendered["differences"]


def test_a_tuned_document_that_cannot_be_rendered_is_a_named_difference(tuned: Path) -> None:
    """``versus_default`` made a text by hand: no Markdown can be what it says; a mismatch
    naming the file and why, not a traceback (and the reruns, if any, still compare)."""
    path = tuned / "leaderboard-tuned-ohsumed.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["tuned"][0]["versus_default"] = "all better"
    path.write_text(json.dumps(doc), encoding="utf-8")
    res, rendered = _reproduce(tuned, "leaderboard-tuned-ohsumed.json")
    assert res.status == 1
    assert rendered["status"] == "mismatch"
    assert any(d["file"] == "leaderboard-tuned-ohsumed.md" and "cannot be rendered"
               in d["reproduced"] for d in rendered["differences"]), rendered["differences"]


def test_reproduce_leaves_the_tuned_files_as_they_were(tuned: Path) -> None:
    before = {p: p.read_bytes() for p in tuned.rglob("*") if p.is_file()}
    _reproduce(tuned, "leaderboard-tuned-ohsumed.md")
    assert {p: p.read_bytes() for p in tuned.rglob("*") if p.is_file()} == before


@pytest.fixture(scope="module")
def folds_world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two folds of a five-part LETOR root, one quick model: the results folder."""
    tmp = tmp_path_factory.mktemp("r12-folds")
    root = tmp / "root"
    root.mkdir()
    for i in range(1, 6):
        (root / f"S{i}.txt").write_bytes(letor_split(4, 100 * i, i))
    res = cli(tmp, "run", "--dataset", str(root), "--folds", "1,2", "--models", "random",
              "--seeds", "0", "--no-crosscheck", "--metrics", "ndcg@10,map@10", "--out", "o")
    assert res.status == 0, res.err
    return tmp / "o"


@pytest.fixture
def folds(folds_world: Path, tmp_path: Path) -> Path:
    shutil.copytree(folds_world, tmp_path / "o", symlinks=True)
    (md,) = (tmp_path / "o" / "folds").glob("*.md")
    return md


def test_an_untouched_fold_markdown_renders_back_from_its_json(folds: Path) -> None:
    """Given by its bare name inside ``folds/`` (the runs were looked for under ``./runs``:
    the parent of the parent of ``x.md`` read as ``.``)."""
    res, rendered = _reproduce(folds.parent, folds.name)
    assert rendered["status"] == "match", rendered["differences"][:3]
    assert rendered["compared"] > 10
    assert res.status == 0, res.out


def test_a_number_edited_in_the_fold_markdown_is_named(folds: Path) -> None:
    old, new = _bump(folds, nth=1)
    res, rendered = _reproduce(folds.parent.parent, f"folds/{folds.with_suffix('.json').name}")
    assert res.status == 1
    (d,) = rendered["differences"]
    assert d["file"] == folds.name, d
    assert "row 'random'" in d["key"], d
    assert d["column"], d
    assert new in d["original"], d
    assert old in d["reproduced"], d


def test_a_model_renamed_in_the_fold_markdown_is_named(folds: Path) -> None:
    text = folds.read_text(encoding="utf-8")
    folds.write_text(text.replace("| random |", "| rand0m |", 1), encoding="utf-8")
    res, rendered = _reproduce(folds.parent, folds.name)
    assert res.status == 1
    assert any(d["column"] == "model" and d["original"] == "rand0m"
               and d["reproduced"] == "random" for d in rendered["differences"]), rendered
