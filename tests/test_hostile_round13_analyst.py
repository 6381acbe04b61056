"""Round 13 of the hostile catalogue (issue 19): a search-relevance analyst at an e-commerce
company who lives in trec_eval, ir_measures and ranx. They evaluate TREC runs and qrels of
their offline experiments with ``ltrbench evaluate``, compare several runs (significance,
per-query output, ``--missing``), type the spellings they know (trec_eval ``P_5``,
``ndcg_cut_10``, ``recip_rank``, ``Rprec``, ``bpref``, ``set_F``; ir_measures ``nDCG@10``,
``R@100``, ``P(rel=2)@5``, ``AP(rel=2)``, ``Judged@10``; ranx ``ndcg@10``), build a ``report``
over runs and ``reproduce`` it in CI, and make the typical mistakes (duplicate documents,
conflicting judgments, runs over other queries, unjudged documents, ids ``07`` and ``7``,
scores in scientific notation or with trailing garbage, look-alike metric and profile names,
output paths over their inputs).

Oracles: pytrec_eval and ir_measures (installed), hand arithmetic, "exit 2 and the message names
X and Y", the input's bytes unchanged. 80 cases, 21 failing on the round-12 main (base13).

Found here (failing before, fixed):

* a comparison of ``nDCG@10,P_5`` dropped the query one run lacks from every run and metric
  (its table said so) while its warning said ``nDCG@10: scored 0 and counted``;
* ``P@5``, ``R@100``, ``Rprec`` (spelled as ir_measures spells them, read as ltrbench's header
  or trec_eval's name under the call's profile) differ from ir_measures' number exactly when a
  qrels query has no run line: the warning now says so and names ``trec_eval-c:P@5``;
* look-alike profile names (``trec_eval\u2010c``, Cyrillic ``е``, fullwidth ``ｔ``) and a
  look-alike ``select_metric`` were refused without naming the character;
* two runs sharing a file stem printed as ``run`` and ``run-2`` with no word of which file;
* ``reproduce`` printed nothing off a terminal (a CI log silent for minutes), ran one run given
  twice twice, and said ``RUN/config.toml: no config.toml``; ``report --runs RUN/metrics.csv``
  said "not found" of an existing file;
* ``--per-query pq.csv.gz`` / ``.parquet`` / ``.xlsx`` / ``.tsv`` wrote CSV text under it.
"""

from __future__ import annotations

import csv
import io
import json
import os
import warnings
from pathlib import Path

import pytest
from hostile_kit import api_refused, call, cli, csv_values, letor_folder, refused

pytrec_eval = pytest.importorskip("pytrec_eval")
ir_measures = pytest.importorskip("ir_measures")

# q1: a, c relevant, b not, x unjudged; q2: d relevant, e not, y unjudged; q3 judged, no run
# line in RUN_A (ir_measures and trec_eval -c score it 0); q4 only non-relevant judgments.
QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 d 1\n2 0 e 0\n3 0 f 1\n3 0 g 2\n4 0 h 0\n"
RUN_A = ("1 Q0 a 1 0.4 t\n1 Q0 b 2 0.9 t\n1 Q0 c 3 0.1 t\n1 Q0 x 4 0.3 t\n"
         "2 Q0 d 1 0.2 t\n2 Q0 e 2 0.8 t\n2 Q0 y 3 0.5 t\n4 Q0 h 1 0.3 t\n")
RUN_B = ("1 Q0 a 1 0.9 u\n1 Q0 b 2 0.1 u\n1 Q0 c 3 0.5 u\n"
         "2 Q0 d 1 0.9 u\n2 Q0 e 2 0.1 u\n3 Q0 f 1 0.5 u\n3 Q0 z 2 0.7 u\n4 Q0 h 1 0.3 u\n")


def _rows(text: str, cast: type) -> dict[str, dict[str, object]]:
    out: dict[str, dict[str, object]] = {}
    for line in text.splitlines():
        f = line.split()
        out.setdefault(f[0], {})[f[2]] = cast(f[3] if len(f) == 4 else f[4])
    return out


def _pytrec(measure: str, run: str = RUN_A, *, queries: set[str] | None = None,
            complete: bool = False) -> float:
    """pytrec_eval's mean of ``measure`` (over ``queries`` when given; ``complete``: over every
    qrels query, a missing one 0, as trec_eval -c)."""
    base = measure.rsplit("_", 1)[0] if measure[-1].isdigit() and "_" in measure else measure
    qrels = _rows(QRELS, int)
    per_q = pytrec_eval.RelevanceEvaluator(qrels, {base}).evaluate(_rows(run, float))
    vals = {q: v[measure] for q, v in per_q.items() if queries is None or q in queries}
    if complete:
        return sum(vals.values()) / len(qrels)
    return sum(vals.values()) / len(vals)


def _ir(name: str, run: str = RUN_A) -> float:
    m = ir_measures.parse_measure(name)
    qrels = [ir_measures.Qrel(q, d, int(r)) for q, ds in _rows(QRELS, int).items()
             for d, r in ds.items()]
    scored = [ir_measures.ScoredDoc(q, d, float(s)) for q, ds in _rows(run, float).items()
              for d, s in ds.items()]
    return float(ir_measures.calc_aggregate([m], qrels, scored)[m])


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "a.run").write_text(RUN_A)
    (tmp_path / "b.run").write_text(RUN_B)
    return tmp_path


def _eval(files: Path, *args: str) -> tuple[int | None, dict[str, float], str]:
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "a.run", "--format", "csv",
              *args)
    return res.status, csv_values(res), res.err


def _csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


# -- trec_eval spellings, as the analyst types them -------------------------------------------

@pytest.mark.parametrize("measure", ["P_5", "ndcg_cut_10", "recip_rank", "Rprec", "bpref",
                                     "set_F", "map", "recall_100"])
def test_trec_eval_spellings_with_unjudged_documents_equal_pytrec_eval(
        files: Path, measure: str) -> None:
    status, got, err = _eval(files, "--metrics", measure)
    assert status == 0, err
    assert got[measure] == pytest.approx(_pytrec(measure), abs=1e-12)


@pytest.mark.parametrize("name", ["nDCG@10", "P(rel=2)@5", "AP(rel=2)", "Judged@10", "RR",
                                  "Bpref", "SetF"])
def test_ir_measures_spellings_with_a_missing_query_equal_ir_measures(
        files: Path, name: str) -> None:
    status, got, err = _eval(files, "--metrics", name)
    assert status == 0, err
    assert got[name] == pytest.approx(_ir(name), abs=1e-12)


# -- leftover 3: R@100, P@5, Rprec as ir_measures reads them ----------------------------------

@pytest.mark.parametrize("name", ["R@100", "P@5", "Rprec"])
def test_ir_measures_r_p_and_rprec_under_trec_eval_c_equal_ir_measures(
        files: Path, name: str) -> None:
    """ir_measures (pytrec_eval provider) scores a qrels query without a run line 0 and an
    unjudged document non-relevant: trec_eval -c's P_5, recall_100, Rprec. Under
    ``--profile trec_eval-c`` (or ``trec_eval-c:NAME``) ltrbench gives that number."""
    status, got, err = _eval(files, "--metrics", name, "--profile", "trec_eval-c")
    assert status == 0, err
    assert got[name] == pytest.approx(_ir(name), abs=1e-12)
    status, got, err = _eval(files, "--metrics", f"trec_eval-c:{name}")
    assert got[f"trec_eval-c:{name}"] == pytest.approx(_ir(name), abs=1e-12)


def test_p_at_5_under_the_default_profile_says_its_profile_and_the_left_out_query(
        files: Path) -> None:
    """``P@5`` is also ltrbench's table header: under the call's profile (``trec_eval``) the
    query without a run line is left out (trec_eval's P_5), the csv's profile column says
    ``trec_eval`` and the warning names P@5 as left out, beside nDCG@10 scored 0."""
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "a.run", "--format", "csv",
              "--metrics", "nDCG@10,P@5")
    assert res.status == 0, res.err
    rows = {r["metric"]: r for r in _csv(res.out)}
    assert rows["P@5"]["profile"] == "trec_eval"
    assert float(rows["P@5"]["value"]) == pytest.approx(_pytrec("P_5"), abs=1e-12)
    assert rows["nDCG@10"]["profile"] == "trec_eval-c"
    assert "P@5: left out" in res.err
    assert "nDCG@10: scored 0" in res.err


@pytest.mark.parametrize("name", ["P@5", "R@100", "Rprec"])
def test_a_spelling_ir_measures_shares_says_how_to_get_ir_measures_value(
        files: Path, name: str) -> None:
    """Read under the call's profile, these spellings leave out the query ir_measures scores
    0: the warning says so and names the spelling that gives ir_measures' number, and that
    spelling gives it."""
    status, got, err = _eval(files, "--metrics", name)
    assert status == 0, err
    assert f"{name}: ir_measures spells its own measure so" in err, err
    assert f"trec_eval-c:{name}" in err
    assert got[name] != pytest.approx(_ir(name), abs=1e-12)  # the difference it warns about
    status, got, err = _eval(files, "--metrics", f"trec_eval-c:{name}")
    assert got[f"trec_eval-c:{name}"] == pytest.approx(_ir(name), abs=1e-12)


def test_an_own_ltrbench_spelling_gets_no_ir_measures_note(files: Path) -> None:
    status, _, err = _eval(files, "--metrics", "p@5,P_5,recall@100")
    assert status == 0, err
    assert "ir_measures spells" not in err


# -- leftover 1: look-alike names on every path that reads a metric or profile name -----------

LOOK_ALIKES = [("ndcg_cut_１０", "U+FF11"), ("ndсg_cut_10", "U+0441"), ("P\u20105", "U+2010"),
               ("nDCG@10\u200b", "U+200B"), ("ＮＤＣＧ@10", "U+FF2E")]


@pytest.mark.parametrize(("name", "code"), LOOK_ALIKES)
def test_a_look_alike_metric_in_a_single_run_evaluate_is_refused_naming_it(
        files: Path, name: str, code: str) -> None:
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "a.run", "--metrics", name)
    assert refused(res, code) is None, refused(res, code)


@pytest.mark.parametrize(("name", "code"), LOOK_ALIKES[:2])
def test_a_look_alike_metric_in_the_python_api_is_refused_naming_it(
        files: Path, name: str, code: str) -> None:
    from bench.metrics import evaluate_trec

    _, exc = call(lambda: evaluate_trec(str(files / "qrels.txt"), str(files / "a.run"),
                                        metrics=[name]))
    assert api_refused(exc, code) is None, api_refused(exc, code)


@pytest.mark.parametrize(("value", "code"), [("ndcg@１０", "U+FF11"), ("ndсg@10", "U+0441")])
def test_a_look_alike_select_metric_in_a_config_names_the_key_and_character(
        value: str, code: str) -> None:
    from bench.benchmark.config import RunConfig

    _, exc = call(lambda: RunConfig.from_dict({"dataset": "x", "models": ["random"],
                                               "select_metric": value}))
    assert api_refused(exc, "select_metric", code) is None, api_refused(exc, "select_metric", code)


@pytest.mark.parametrize(("profile", "code"), [("trec_eval\u2010c", "U+2010"),
                                               ("trеc_eval", "U+0435"),
                                               ("ｔrec_eval", "U+FF54")])
def test_a_look_alike_profile_is_refused_naming_the_character(
        files: Path, profile: str, code: str) -> None:
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "a.run", "--metrics", "P_5",
              "--profile", profile)
    assert refused(res, code) is None, refused(res, code)


def test_a_look_alike_profile_in_a_config_names_the_key_and_character() -> None:
    from bench.benchmark.config import RunConfig

    _, exc = call(lambda: RunConfig.from_dict({"dataset": "x", "models": ["random"],
                                               "profile": "lightgbm\u200b"}))
    assert api_refused(exc, "profile", "U+200B") is None, api_refused(exc, "profile", "U+200B")


def test_a_look_alike_metric_in_a_config_list_names_the_character() -> None:
    from bench.benchmark.config import RunConfig

    _, exc = call(lambda: RunConfig.from_dict({"dataset": "x", "models": ["random"],
                                               "metrics": ["ndcg@10", "mаp@10"]}))
    assert api_refused(exc, "metrics", "U+0430") is None


def test_trailing_blanks_around_a_metric_keep_its_key(files: Path) -> None:
    from bench.metrics import evaluate_trec

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = evaluate_trec(str(files / "qrels.txt"), str(files / "a.run"),
                          metrics=["ndcg_cut_10 ", " P_5"])
    assert list(r.metrics) == ["ndcg_cut_10", "P_5"]
    assert r["P_5"] == pytest.approx(_pytrec("P_5"), abs=1e-12)


@pytest.mark.parametrize(("typo", "want"), [("ndcg_cut10", "ndcg_cut_10"),
                                            ("recip_rnak", "recip_rank")])
def test_a_typo_names_the_closest_spelling(files: Path, typo: str, want: str) -> None:
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "a.run", "--metrics", typo)
    assert refused(res, typo, want) is None, refused(res, typo, want)


# -- files with the analyst's mistakes ---------------------------------------------------------

def test_scores_in_scientific_notation_equal_decimal_scores(files: Path) -> None:
    sci = RUN_A.replace("0.4 ", "4E-1 ").replace("0.9 ", "9.0e-01 ").replace("0.3 ", "3e-1 ")
    (files / "sci.run").write_text(sci)
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "sci.run", "--format", "csv",
              "--metrics", "ndcg_cut_10")
    assert res.status == 0, res.err
    assert csv_values(res)["ndcg_cut_10"] == pytest.approx(_pytrec("ndcg_cut_10"), abs=1e-12)


@pytest.mark.parametrize("score", ["0.9abc", "1_000", "0x1p-3", "0.9,"])
def test_a_score_with_trailing_garbage_names_file_line_and_column(files: Path, score: str) -> None:
    (files / "bad.run").write_text(RUN_A.replace("0.9 t", f"{score} t"))
    before = (files / "bad.run").read_bytes()
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "a.run", "--run", "bad.run",
              "--metrics", "P_5")
    assert refused(res, "bad.run:2", "score") is None, refused(res, "bad.run:2", "score")
    assert (files / "bad.run").read_bytes() == before


def test_a_duplicate_document_in_a_compared_run_names_run_and_lines(files: Path) -> None:
    (files / "dup.run").write_text(RUN_B + "1 Q0 a 9 0.05 u\n")
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "a.run", "--run", "dup.run",
              "--metrics", "P_5")
    assert refused(res, "dup.run:9", "'a'", "line 1") is None, res.err


def test_conflicting_judgments_in_the_qrels_name_both_lines(files: Path) -> None:
    (files / "conflict.txt").write_text(QRELS + "1 0 a 0\n")
    res = cli(files, "evaluate", "--qrels", "conflict.txt", "--run", "a.run", "--run", "b.run",
              "--metrics", "P_5")
    assert refused(res, "conflict.txt:9", "line 1") is None, res.err


def test_query_ids_07_and_7_are_two_queries_as_in_trec_eval(files: Path) -> None:
    (files / "z.run").write_text(RUN_A.replace("2 Q0", "02 Q0"))
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "z.run", "--format", "csv",
              "--metrics", "P_5")
    assert res.status == 0, res.err
    want = _pytrec("P_5", RUN_A.replace("2 Q0", "02 Q0"))
    assert csv_values(res)["P_5"] == pytest.approx(want, abs=1e-12)
    assert "(02)" in res.err  # the ignored run query named
    assert "'01' is not '1'" in res.err


# -- comparisons --------------------------------------------------------------------------------

def test_a_comparison_warning_does_not_say_scored_0_for_a_query_the_table_drops(
        files: Path) -> None:
    """nDCG@10 (ir_measures: missing 0) beside P_5 (trec_eval: left out): the comparison drops
    q3 from every run and metric (the table says so); the per-run warning said 'nDCG@10:
    scored 0 and counted', which the table contradicts."""
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "a.run", "--run", "b.run",
              "--metrics", "nDCG@10,P_5", "--format", "csv", "--missing", "drop")
    assert res.status == 0, res.err  # without --missing, two rules are refused (round 14)
    row = _csv(res.out)[0]
    assert row["missing"] == "drop"
    assert row["dropped"] == "3"
    assert "scored 0" not in res.err, res.err
    assert "3" in res.err
    assert "a.run" in res.err


def test_the_python_comparison_warns_what_it_applied(files: Path) -> None:
    from bench.metrics.missing import MissingQueriesWarning
    from bench.report.compare_runs import compare_runs

    with pytest.warns(MissingQueriesWarning) as caught:
        cmp = compare_runs(str(files / "qrels.txt"), {"A": str(files / "a.run"),
                                                      "B": str(files / "b.run")},
                           metrics="nDCG@10 P_5", missing="drop")
    assert cmp.missing == "drop"
    text = " ".join(str(w.message) for w in caught)
    assert "scored 0" not in text, text
    assert "every run and metric" in text, text


def test_a_comparison_of_one_metric_under_its_zero_rule_keeps_its_warning(files: Path) -> None:
    """nDCG@10 alone: q3 scored 0 in A (ir_measures' rule), the warning says so."""
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "a.run", "--run", "b.run",
              "--metrics", "nDCG@10", "--format", "csv")
    assert res.status == 0, res.err
    rows = {r["run"]: r for r in _csv(res.out)}
    assert rows["a"]["missing"] == "zero"
    assert float(rows["a"]["nDCG@10"]) == pytest.approx(_ir("nDCG@10"), abs=1e-12)
    assert "scored 0" in res.err


@pytest.mark.parametrize("measure", ["P_5", "ndcg_cut_10", "recip_rank"])
def test_missing_zero_equals_trec_eval_c_per_run(files: Path, measure: str) -> None:
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "a.run", "--run", "b.run",
              "--metrics", measure, "--missing", "zero", "--format", "csv")
    assert res.status == 0, res.err
    rows = {r["run"]: r for r in _csv(res.out)}
    for name, run in (("a", RUN_A), ("b", RUN_B)):
        assert float(rows[name][measure]) == pytest.approx(
            _pytrec(measure, run, complete=True), abs=1e-12)


def test_mixed_grammars_in_a_comparison_share_one_query_set(files: Path) -> None:
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "a.run", "--run", "b.run",
              "--metrics", "nDCG@10,P@5,recip_rank,R@100", "--format", "csv", "--missing",
              "drop")
    assert res.status == 0, res.err
    common = {"1", "2", "4"}
    rows = {r["run"]: r for r in _csv(res.out)}
    assert float(rows["a"]["recip_rank"]) == pytest.approx(
        _pytrec("recip_rank", queries=common), abs=1e-12)
    assert float(rows["b"]["P@5"]) == pytest.approx(_pytrec("P_5", RUN_B, queries=common),
                                                    abs=1e-12)


def test_two_runs_with_one_file_name_say_which_file_each_name_is(files: Path) -> None:
    for d, text in (("x", RUN_A), ("y", RUN_B)):
        (files / d).mkdir()
        (files / d / "run.txt").write_text(text)
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "x/run.txt", "--run",
              "y/run.txt", "--metrics", "P_5")
    assert res.status == 0, res.err
    assert "run-2" in res.out
    assert "y/run.txt" in res.out + res.err
    assert "x/run.txt" in res.out + res.err


def test_per_query_of_a_comparison_equals_pytrec_eval_per_query(files: Path) -> None:
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "a.run", "--run", "b.run",
              "--metrics", "recip_rank", "--per-query", "pq.csv")
    assert res.status == 0, res.err
    rows = _csv((files / "pq.csv").read_text())
    for name, run in (("a", RUN_A), ("b", RUN_B)):
        want = pytrec_eval.RelevanceEvaluator(_rows(QRELS, int), {"recip_rank"}).evaluate(
            _rows(run, float))
        for r in rows:
            assert float(r[name]) == pytest.approx(want[r["qid"]]["recip_rank"], abs=1e-12)


@pytest.mark.parametrize("target", ["qrels.txt", "b.run"])
def test_per_query_over_an_input_of_a_comparison_is_refused(files: Path, target: str) -> None:
    before = (files / target).read_bytes()
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "a.run", "--run", "b.run",
              "--per-query", target)
    assert refused(res, "--per-query", target) is None, refused(res, "--per-query", target)
    assert (files / target).read_bytes() == before


def test_per_query_onto_a_hard_link_of_a_run_is_refused(files: Path) -> None:
    os.link(files / "a.run", files / "out.csv")
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "a.run", "--run", "b.run",
              "--per-query", "out.csv")
    assert refused(res, "--per-query") is None, refused(res, "--per-query")
    assert (files / "a.run").read_text() == RUN_A


def test_per_query_through_a_symlink_to_the_qrels_is_refused(files: Path) -> None:
    (files / "pq.csv").symlink_to(files / "qrels.txt")
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "a.run", "--per-query",
              "pq.csv")
    assert refused(res, "--per-query") is None, refused(res, "--per-query")
    assert (files / "qrels.txt").read_text() == QRELS


def test_an_unknown_missing_rule_names_the_choices(files: Path) -> None:
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "a.run", "--run", "b.run",
              "--missing", "skip")
    assert refused(res, "--missing", "drop", "zero") is None, res.err


def test_printed_names_of_a_comparison_parse_back_to_the_same_values(files: Path) -> None:
    names = "P(rel=2)@5,trec_eval-c:P_5,AP(rel=2),Rprec"
    first = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "a.run", "--run", "b.run",
                "--missing", "drop", "--metrics", names, "--format", "json")
    assert first.status == 0, first.err
    doc = json.loads(first.out)
    printed = list(doc["metric_profiles"])
    again = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "a.run", "--run", "b.run",
                "--missing", "drop", "--metrics", *printed, "--format", "json")
    assert again.status == 0, again.err
    assert json.loads(again.out)["runs"] == doc["runs"]


def test_runs_over_disjoint_queries_are_refused_saying_nothing_in_common(files: Path) -> None:
    (files / "c.run").write_text("3 Q0 f 1 0.5 u\n")
    (files / "d.run").write_text("1 Q0 a 1 0.5 u\n")
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "c.run", "--run", "d.run",
              "--metrics", "P_5")
    assert refused(res, "no query in common") is None, res.err


# -- report and reproduce over a finished run ---------------------------------------------------

@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("analyst")
    letor_folder(base / "data")
    res = cli(base, "run", "--dataset", "data", "--models", "random", "--seeds", "0", "--quick",
              "--out", "res", "--no-progress")
    assert res.status == 0, res.err
    return base


def _run_dir(base: Path) -> Path:
    return next((base / "res" / "runs").iterdir())


def test_reproduce_says_each_step_off_a_terminal(finished: Path) -> None:
    """stderr here is not a terminal (a CI log): plain progress lines, one per step."""
    res = cli(finished, "reproduce", "--run", str(_run_dir(finished)))
    assert res.status == 0, res.err
    lines = [ln for ln in res.err.splitlines() if ln.startswith("reproduce:")]
    assert len(lines) >= 2, res.err
    assert any("random seed 0" in ln for ln in lines), res.err
    assert "\r" not in res.err
    assert "\x1b" not in res.err


def test_reproduce_without_progress_or_as_json_prints_no_progress(finished: Path) -> None:
    quiet = cli(finished, "reproduce", "--run", str(_run_dir(finished)), "--no-progress")
    assert quiet.status == 0, quiet.err
    assert "reproduce:" not in quiet.err, quiet.err
    js = cli(finished, "reproduce", "--run", str(_run_dir(finished)), "--format", "json")
    assert js.status == 0
    assert "reproduce:" not in js.err
    assert json.loads(js.out)["ok"] is True


def test_report_over_a_missing_run_names_it(finished: Path) -> None:
    res = cli(finished, "report", "--out", "rep", "--runs", "res/runs/nope", "--no-plots")
    assert refused(res, "nope") is None, refused(res, "nope")


def test_report_with_a_look_alike_primary_names_the_character(finished: Path) -> None:
    res = cli(finished, "report", "--out", "rep", "--runs", str(_run_dir(finished)),
              "--no-plots", "--primary", "ndcg@１０")
    assert refused(res, "U+FF11") is None, refused(res, "U+FF11")


def test_report_out_over_the_run_folder_is_refused_and_leaves_it(finished: Path) -> None:
    run = _run_dir(finished)
    before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    res = cli(finished, "report", "--out", str(run), "--runs", str(run), "--no-plots")
    assert res.status == 2, res.err
    assert "Traceback" not in res.err, res.err
    assert {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()} == before


def test_report_given_a_run_file_names_the_run_directory_it_is_in(finished: Path) -> None:
    """``--runs RUN/metrics.csv`` said 'not found' of a file that exists."""
    run = _run_dir(finished)
    res = cli(finished, "report", "--out", "rep", "--runs", str(run / "metrics.csv"),
              "--no-plots")
    assert refused(res, "a file, not a folder", str(run)) is None, res.err


@pytest.mark.parametrize("name", ["pq.csv.gz", "pq.parquet", "pq.xlsx", "pq.tsv"])
def test_per_query_named_as_another_format_is_refused_before_any_work(
        files: Path, name: str) -> None:
    """CSV text written under a ``.gz`` / ``.parquet`` / ``.xlsx`` name: pandas and Excel fail
    on it, or misread it (a ``.tsv`` read with tabs is one column)."""
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "a.run", "--run", "b.run",
              "--metrics", "P_5", "--per-query", name)
    assert refused(res, "--per-query", name, ".csv or .json") is None, res.err
    assert not (files / name).exists()


@pytest.mark.parametrize("name", ["pq.json", "pq.txt", "pq"])
def test_per_query_as_json_text_or_without_suffix_is_written(files: Path, name: str) -> None:
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "a.run", "--metrics", "P_5",
              "--per-query", name)
    assert res.status == 0, res.err
    text = (files / name).read_text()
    rows = json.loads(text) if name.endswith(".json") else _csv(text)
    assert {str(r["qid"]) for r in rows} == {"1", "2", "4"}


def test_reproduce_given_one_run_twice_is_refused_naming_both_spellings(finished: Path) -> None:
    """``--run RUN --run RUN/`` trained and compared the run twice, two MATCH lines."""
    run = str(_run_dir(finished))
    res = cli(finished, "reproduce", "--run", run, "--run", run + "/")
    assert refused(res, "given twice", run) is None, res.err
    assert "reproduce:" not in res.err  # refused before any work


@pytest.mark.parametrize("name", ["config.toml", "metrics.csv"])
def test_reproduce_given_a_file_of_a_run_names_the_run_directory(finished: Path,
                                                                  name: str) -> None:
    """``--run RUN/config.toml`` said 'RUN/config.toml: no config.toml'."""
    run = _run_dir(finished)
    res = cli(finished, "reproduce", "--run", str(run / name))
    assert refused(res, "a file, not a run directory", str(run)) is None, res.err
