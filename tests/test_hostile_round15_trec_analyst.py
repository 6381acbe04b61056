"""Round 15 of the hostile catalogue (issue 19): a search-quality analyst at a web company who
evaluates TREC-style runs of a real evaluation campaign. Qrels with graded and negative
judgments, several systems' runs (truncated, shuffled, with text scores from other tools),
per-query outputs exported to a spreadsheet, significance tests between systems, and
trec_eval / ir_measures / ranx numbers already in a paper to compare with. They use
``ltrbench evaluate`` (``--qrels``, ``--run`` repeated, ``--profile``, ``--metrics``,
``--per-query``, ``--missing``, ``--run-depth``, ``--judged-only``) and the Python API
(``evaluate``, ``evaluate_trec``, ``compare_runs``) from a notebook.

Oracles: pytrec_eval, ir_measures and ranx (installed), scipy.stats, hand arithmetic, "exit 2 and
the message names X and Y".

Found here (failing before, fixed):

* ``metric_n_queries`` (the ``queries`` of the JSON and table) counted blank queries the profile
  leaves out of the mean: under ``ltrbench`` a query without a relevant document was counted in
  ``ndcg@2``'s 3 queries while its mean was over 2; it now counts the queries the mean is
  taken over (its value is not NaN), for one profile and for merged ones;
* ``evaluate(frame, scores)`` with a frame that also has a score column evaluated the array
  without a word: the two answers to "which scores" are now refused, naming the column and
  how to ask for each; the same for ``qid=`` / ``docno=`` arrays beside the frame's own id
  column (a docno array changed trec_eval's tie order: mrr 1.0 where the column gives 1/3);
* ``--relevance-level`` / ``--judged-only`` / ``--run-depth`` do not reach a typed
  ``PROFILE:NAME``: the option changed nothing (``ranx:ndcg@5`` printed its level-1 value,
  exit 0); now refused when it reaches no metric, said when it misses some;
* a comparison's ``dropped`` left out a judged query no run answered (pooled topic 9), which
  the runs' warnings named: ``n_dropped + n_queries`` is now every judged query;
* diversity qrels (``topic subtopic docno judgment``) under a plain metric said "judged twice"
  without a word of the second column;
* ``--per-query out.csv > out.csv`` (the per-query file is the command's own redirected standard
  output or error) wrote both into one file, exit 0: refused before any work;
* a list of ir_measures ``Qrel`` / ``ScoredDoc`` records said only "got list": it now names the
  records and says to pass ``pandas.DataFrame(records)``.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import os
import random
import warnings
from pathlib import Path

import numpy as np
import pytest
from hostile_kit import api_refused, call, cli, csv_values, refused

pytrec_eval = pytest.importorskip("pytrec_eval")
ir_measures = pytest.importorskip("ir_measures")
scipy_stats = pytest.importorskip("scipy.stats")

# Graded and negative judgments; "007" and "7" are two queries (trec_eval compares ids as text);
# query 4 holds no relevant document.
QRELS = ("1 0 a 2\n1 0 b 0\n1 0 c 1\n1 0 d -1\n1 0 e 3\n"
         "2 0 f 1\n2 0 g 0\n2 0 h 2\n"
         "3 0 i 1\n3 0 j 0\n"
         "4 0 k 0\n4 0 l -2\n"
         "5 0 n 3\n5 0 o 1\n5 0 p 0\n5 0 q 0\n"
         "6 0 r 1\n6 0 s 2\n"
         "007 0 t 1\n007 0 u 0\n"
         "7 0 v 1\n7 0 t 0\n")
_POOL = {"1": "abcdexy", "2": "fghz", "3": "ijw", "4": "klm", "5": "nopqx", "6": "rsv",
         "007": "tuv", "7": "vtw"}


def _run(seed: int, tag: str, drop: str = "") -> str:
    rnd = random.Random(seed)
    lines = []
    for q, docs in _POOL.items():
        if q == drop:
            continue
        ranked = rnd.sample(docs, len(docs))
        lines += [f"{q} Q0 {d} {i} {round(10 - i + rnd.random(), 4)} {tag}"
                  for i, d in enumerate(ranked, 1)]
    return "\n".join(lines) + "\n"


RUN_A = _run(1, "A")
RUN_B = _run(2, "B", drop="3")  # no line for query 3
RUN_C = _run(3, "C")
QUERIES = list(_POOL)


def _rows(text: str, cast: type) -> dict[str, dict[str, object]]:
    out: dict[str, dict[str, object]] = {}
    for line in text.splitlines():
        f = line.split()
        if f and not f[0].startswith("#"):
            out.setdefault(f[0], {})[f[2]] = cast(f[3] if len(f) == 4 else f[4])
    return out


def _pytrec_q(measure: str, run: str, qrels: str = QRELS, **kw: object) -> dict[str, float]:
    stem, _, tail = measure.rpartition("_")
    base = measure  # ndcg_cut_3 -> ndcg_cut.3 (pytrec_eval computes only the cutoffs asked)
    if stem and tail.isdigit():
        base = f"{stem}.{tail}"
    elif stem and tail.replace(".", "", 1).isdigit():
        base = stem  # iprec_at_recall_0.10: every level
    ev = pytrec_eval.RelevanceEvaluator(_rows(qrels, int), {base}, **kw)
    return {q: v[measure] for q, v in ev.evaluate(_rows(run, float)).items()}


def _pytrec(measure: str, run: str, qrels: str = QRELS, *, complete: bool = False,
            **kw: object) -> float:
    per_q = _pytrec_q(measure, run, qrels, **kw)
    n = len(_rows(qrels, int)) if complete else len(per_q)
    return sum(per_q.values()) / n


def _ir(name: str, run: str, qrels: str = QRELS) -> float:
    m = ir_measures.parse_measure(name)
    q = [ir_measures.Qrel(a, d, int(r)) for a, ds in _rows(qrels, int).items()
         for d, r in ds.items()]
    s = [ir_measures.ScoredDoc(a, d, float(v)) for a, ds in _rows(run, float).items()
         for d, v in ds.items()]
    return float(ir_measures.calc_aggregate([m], q, s)[m])


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("r15a")
    for name, text in (("qrels.txt", QRELS), ("A.run", RUN_A), ("B.run", RUN_B),
                       ("C.run", RUN_C)):
        (d / name).write_text(text)
    return d


def _ok(res: object) -> None:
    assert getattr(res, "status", None) == 0, (res.status, res.err[-600:])  # type: ignore[attr-defined]


def _compare_csv(res: object) -> dict[str, dict[str, str]]:
    _ok(res)
    return {r["run"]: r for r in csv.DictReader(io.StringIO(res.out))}  # type: ignore[attr-defined]


CLASSES: dict[str, str] = {}


def _cls(name: str):  # type: ignore[no-untyped-def]
    def mark(fn):  # type: ignore[no-untyped-def]
        CLASSES[fn.__name__] = name
        return fn
    return mark


# ------------------------------------------------------------------ leftover 1: metric_n_queries
@_cls("silently wrong numbers")
def test_metric_n_queries_counts_the_queries_the_mean_is_taken_over() -> None:
    from bench.metrics import evaluate

    # query 2 has no relevant document: under ltrbench it is left out of every ranking metric
    r = evaluate([1, 0, 0, 0, 2, 1], [0.9, 0.1, 0.5, 0.2, 0.8, 0.3], group=[2, 2, 2],
                 metrics=["ndcg@2", "map", "P@1"], per_query=True)
    assert r.diagnostics.n_queries == 3
    for m in ("ndcg@2", "map", "P@1"):
        col = r.per_query[m].to_numpy()
        assert r.metric_n_queries[m] == int(np.sum(~np.isnan(col))) == 2
        assert r.as_dict()["metric_n_queries"][m] == 2  # type: ignore[index]
        assert r.metrics[m] == pytest.approx(float(np.nanmean(col)))


@_cls("silently wrong numbers")
def test_metric_n_queries_of_merged_profiles_follows_each_profiles_blank_rule() -> None:
    from bench.metrics import evaluate

    r = evaluate([1, 0, 0, 0, 2, 1], [0.9, 0.1, 0.5, 0.2, 0.8, 0.3], group=[2, 2, 2],
                 metrics=["ndcg@2", "trec_eval:ndcg@2", "lightgbm:ndcg@2"])
    # ltrbench leaves the blank query out; trec_eval scores it 0, LightGBM 1: both count it
    assert r.metric_n_queries == {"ndcg@2": 2, "trec_eval:ndcg@2": 3, "lightgbm:ndcg@2": 3}
    assert r["trec_eval:ndcg@2"] == pytest.approx(2 / 3)
    assert r["lightgbm:ndcg@2"] == pytest.approx(1.0)


@_cls("silently wrong numbers")
def test_the_cli_json_counts_a_blank_query_where_the_profile_counts_it(files: Path) -> None:
    # under ltrbench (ideal DCG from the retrieved list) query 4 (no relevant document) is blank
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "A.run", "--profile",
              "ltrbench", "--metrics", "ndcg@5", "map", "--format", "json",
              "--per-query", "ltr_pq.csv")
    _ok(res)
    out = json.loads(res.out)
    with open(files / "ltr_pq.csv") as fh:
        rows = list(csv.DictReader(fh))
    for m in ("ndcg@5", "map"):
        cells = [float(r[m]) for r in rows if r[m] not in ("", "nan", "NaN")]
        assert out["metric_n_queries"][m] == len(cells) == len(rows) - 1
        assert out["metrics"][m] == pytest.approx(sum(cells) / len(cells))
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "A.run", "--profile",
              "trec_eval", "--metrics", "ndcg_cut_5", "--format", "json")
    assert json.loads(res.out)["metric_n_queries"] == {"ndcg_cut_5": len(QUERIES)}
    # B has no line for query 3: trec_eval leaves it out, trec_eval -c (nDCG@10) counts it
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "B.run", "--metrics",
              "ndcg_cut_5", "nDCG@10", "--format", "json")
    assert json.loads(res.out)["metric_n_queries"] == {"ndcg_cut_5": len(QUERIES) - 1,
                                                       "nDCG@10": len(QUERIES)}


# ------------------------------------------------------ leftover 2: a score column and an array
@_cls("silent accepts")
def test_a_frame_with_a_score_column_and_a_scores_array_is_refused_naming_both() -> None:
    import pandas as pd

    from bench.metrics import evaluate

    frame = pd.DataFrame({"qid": [1, 1, 2, 2], "label": [1, 0, 0, 1], "score": [.1, .2, .3, .4]})
    problem = api_refused(call(lambda: evaluate(frame, [.9, .1, .1, .9], metrics="map"))[1],
                          "'score'", "array", "score='score'", "drop")
    assert problem is None, problem


@_cls("silent accepts")
def test_a_prediction_column_in_another_case_beside_an_array_is_refused() -> None:
    import pandas as pd

    from bench.metrics import evaluate

    frame = pd.DataFrame({"query": ["q", "q"], "rel": [1, 0], "Prediction": [0.2, 0.1]})
    problem = api_refused(call(lambda: evaluate(frame, [0.1, 0.2], metrics="mrr"))[1],
                          "'Prediction'", "score='Prediction'")
    assert problem is None, problem


@_cls("silent accepts")
@pytest.mark.parametrize(("keyword", "column", "value"), [
    ("docno", "docno", ["c", "b", "a"]),  # trec_eval's tie rule reads docno: mrr 1.0 vs 1/3
    ("qid", "qid", [1, 1, 1]),
    ("qid", "topic", [7, 7, 7]),
])
def test_an_id_array_beside_a_frames_id_column_is_refused_naming_the_column(
        keyword: str, column: str, value: list[object]) -> None:
    import pandas as pd

    from bench.metrics import evaluate

    frame = pd.DataFrame({column: [1, 1, 1], "docid" if keyword == "qid" else "qid": [1, 2, 3],
                          "label": [1, 0, 0], "score": [0.1, 0.1, 0.1]})
    if keyword == "qid":
        frame = frame.rename(columns={"docid": "docno"})
    problem = api_refused(call(lambda: evaluate(frame, metrics="mrr", profile="trec_eval",
                                                **{keyword: value}))[1],
                          repr(column), f"{keyword}={column!r}")
    assert problem is None, problem


@_cls("silently wrong numbers")
def test_a_frames_own_column_passed_again_as_a_series_is_one_answer() -> None:
    import pandas as pd

    from bench.metrics import evaluate

    frame = pd.DataFrame({"qid": [1, 1, 1], "docno": ["a", "b", "c"], "label": [1, 0, 0],
                          "score": [0.1, 0.1, 0.1]})
    got = evaluate(frame, qid=frame["qid"], docno=frame["docno"], metrics="mrr",
                   profile="trec_eval")
    # trec_eval: tied scores, docno descending: c, b, a; the relevant a is third
    assert got["mrr"] == pytest.approx(1 / 3)


@_cls("silently wrong numbers")
def test_a_frame_without_a_score_column_takes_the_array_as_the_arrays_do() -> None:
    import pandas as pd

    from bench.metrics import evaluate

    frame = pd.DataFrame({"qid": ["b", "a", "b", "a"], "label": [1, 0, 0, 2]})
    got = evaluate(frame, [0.1, 0.9, 0.8, 0.2], metrics="ndcg@2", profile="trec_eval")
    want = evaluate([0, 2, 1, 0], [0.9, 0.2, 0.1, 0.8], qid=["a", "a", "b", "b"],
                    metrics="ndcg@2", profile="trec_eval")
    assert got["ndcg@2"] == pytest.approx(want["ndcg@2"], abs=1e-15)


# ------------------------------------------------------------------------------- TREC files
@_cls("silently wrong numbers")
def test_trec_eval_measures_with_graded_and_negative_judgments_equal_pytrec_eval(
        files: Path) -> None:
    names = ["map", "P_5", "ndcg_cut_5", "recip_rank", "Rprec", "bpref", "recall_5",
             "success_1", "map_cut_5", "set_F", "infAP", "ndcg", "iprec_at_recall_0.10",
             "Rprec_mult_1.0", "P_avgjg"][:-1]
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "A.run", "--metrics",
              *names, "--format", "csv")
    _ok(res)
    got = csv_values(res)
    for m in names:
        pm = "Rprec_mult_1.00" if m == "Rprec_mult_1.0" else m
        assert got[m] == pytest.approx(_pytrec(pm, RUN_A), abs=1e-12), m


@_cls("silently wrong numbers")
def test_trec_eval_counts_and_gm_map_are_aggregated_as_trec_eval_does(files: Path) -> None:
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "A.run", "--metrics",
              "num_ret", "num_rel", "num_rel_ret", "gm_map", "--format", "csv")
    got = csv_values(res)
    for m in ("num_ret", "num_rel", "num_rel_ret"):  # trec_eval's "all" line sums counts
        assert got[m] == pytest.approx(sum(_pytrec_q(m, RUN_A).values())), m
    logs = list(_pytrec_q("gm_map", RUN_A).values())  # per query: log(max(AP, 1e-5))
    assert got["gm_map"] == pytest.approx(
        pytrec_eval.compute_aggregated_measure("gm_map", logs), abs=1e-12)


@_cls("silently wrong numbers")
def test_a_shuffled_run_cut_by_run_depth_equals_pytrec_eval_on_the_top_by_score(
        files: Path) -> None:
    lines = RUN_A.splitlines()
    random.Random(7).shuffle(lines)  # file order and rank column say nothing
    (files / "shuffled.run").write_text("\n".join(lines) + "\n")
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "shuffled.run",
              "--run-depth", "2", "--metrics", "map", "P_5", "ndcg_cut_10", "--format", "csv")
    got = csv_values(res)
    rows = _rows(RUN_A, float)
    # trec_eval -M: the top N after its sort (score descending, then docno descending)
    top = {q: dict(sorted(d.items(), key=lambda x: (-x[1], [-ord(c) for c in x[0]]))[:2])
           for q, d in rows.items()}
    text = "".join(f"{q} Q0 {d} 1 {s} t\n" for q, ds in top.items() for d, s in ds.items())
    for m in ("map", "P_5", "ndcg_cut_10"):
        assert got[m] == pytest.approx(_pytrec(m, text), abs=1e-12), m


@_cls("silently wrong numbers")
def test_judged_only_with_negative_judgments_equals_pytrec_eval_judged_docs_only(
        files: Path) -> None:
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "A.run", "--judged-only",
              "--metrics", "map", "P_5", "ndcg_cut_5", "bpref", "--format", "csv")
    got = csv_values(res)
    for m in ("map", "P_5", "ndcg_cut_5", "bpref"):
        assert got[m] == pytest.approx(
            _pytrec(m, RUN_A, judged_docs_only_flag=True), abs=1e-12), m


@_cls("silently wrong numbers")
def test_minus_zero_and_zero_scores_tie_and_break_by_docno_as_pytrec_eval(tmp_path: Path) -> None:
    qrels = "1 0 a 1\n1 0 b 0\n1 0 c 0\n"
    run = "1 Q0 a 1 -0 t\n1 Q0 b 2 0.0 t\n1 Q0 c 3 -0.0e5 t\n"
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    got = csv_values(cli(tmp_path, "evaluate", "--qrels", "q", "--run", "r", "--metrics",
                         "recip_rank", "--format", "csv"))
    assert got["recip_rank"] == pytest.approx(_pytrec("recip_rank", run, qrels)) == 1 / 3


@_cls("silently wrong numbers")
def test_huge_and_tiny_scores_rank_as_pytrec_eval_ranks_them(tmp_path: Path) -> None:
    qrels = "1 0 a 1\n1 0 b 2\n1 0 c 0\n1 0 d 1\n"
    run = "1 Q0 a 1 1e300 t\n1 Q0 b 2 -1e300 t\n1 Q0 c 3 5e-324 t\n1 Q0 d 4 -5e-324 t\n"
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    res = cli(tmp_path, "evaluate", "--qrels", "q", "--run", "r", "--metrics", "map",
              "ndcg_cut_3", "--format", "csv")
    assert res.status == 0, res.err  # subnormal scores are scores (no FTZ/DAZ in the reader)
    got = csv_values(res)
    for m in ("map", "ndcg_cut_3"):
        assert got[m] == pytest.approx(_pytrec(m, run, qrels), abs=1e-12), m


@_cls("silently wrong numbers")
def test_tabs_runs_of_blanks_and_odd_iteration_columns_read_as_the_plain_files(
        files: Path) -> None:
    q = "".join(f"{a}\t{'Q0' if i % 2 else '7'}  {d}\t\t{r}  \n"
                for i, (a, d, r) in enumerate(ln.split()[0:1] + ln.split()[2:4]
                                               for ln in QRELS.splitlines()))
    r = "".join(f"  {ln.replace(' ', chr(9), 2)}\t\n" for ln in RUN_A.splitlines())
    (files / "odd.qrels").write_text(q)
    (files / "odd.run").write_text(r)
    want = csv_values(cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "A.run",
                          "--metrics", "map", "ndcg_cut_10", "--format", "csv"))
    got = csv_values(cli(files, "evaluate", "--qrels", "odd.qrels", "--run", "odd.run",
                         "--metrics", "map", "ndcg_cut_10", "--format", "csv"))
    assert got == want
    assert want["map"] == pytest.approx(_pytrec("map", RUN_A))


@_cls("silently wrong numbers")
def test_a_run_file_whose_name_holds_an_equals_sign_is_a_file_not_a_name(files: Path) -> None:
    (files / "bm25_k1=0.9.run").write_text(RUN_A)
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "bm25_k1=0.9.run",
              "--metrics", "map", "--format", "csv")
    assert csv_values(res)["map"] == pytest.approx(_pytrec("map", RUN_A))
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "bm25=bm25_k1=0.9.run",
              "--run", "B.run", "--missing", "drop", "--metrics", "map", "--format", "csv")
    rows = _compare_csv(res)
    assert set(rows) == {"bm25", "B"}


@_cls("silently wrong numbers")
def test_nfc_and_nfd_document_ids_are_two_documents_as_in_pytrec_eval(tmp_path: Path) -> None:
    qrels = "1 0 \u00e9t\u00e9 1\n1 0 b 0\n"
    run = "1 Q0 e\u0301te\u0301 1 2 t\n1 Q0 b 2 1 t\n1 Q0 \u00e9t\u00e9 3 0.5 t\n"
    (tmp_path / "q").write_text(qrels, encoding="utf-8")
    (tmp_path / "r").write_text(run, encoding="utf-8")
    got = csv_values(cli(tmp_path, "evaluate", "--qrels", "q", "--run", "r", "--metrics",
                         "recip_rank", "--format", "csv"))
    assert got["recip_rank"] == pytest.approx(_pytrec("recip_rank", run, qrels)) == 1 / 3


@_cls("unclear errors")
def test_diversity_qrels_under_a_plain_metric_say_what_the_second_column_is(
        tmp_path: Path) -> None:
    # TREC Web track qrels: 'topic subtopic docno judgment'; a plain metric needs one judgment
    (tmp_path / "q").write_text("1 1 a 1\n1 1 b 0\n1 2 a 0\n1 2 b 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    res = cli(tmp_path, "evaluate", "--qrels", "q", "--run", "r", "--metrics", "map")
    assert refused(res, "q:3", "'a'", "judged twice", "second column", "subtopic",
                   "alpha_ndcg@10") is None, res.err[-400:]
    plain = cli(tmp_path, "evaluate", "--qrels", "q", "--run", "r", "--metrics",
                "alpha_ndcg@2", "--format", "csv")
    _ok(plain)


@_cls("unclear errors")
def test_ir_measures_records_say_how_to_pass_them_and_then_equal_ir_measures() -> None:
    import pandas as pd

    from bench.metrics import evaluate_trec

    qrels = [ir_measures.Qrel(q, d, int(r)) for q, ds in _rows(QRELS, int).items()
             for d, r in ds.items()]
    run = [ir_measures.ScoredDoc(q, d, float(s)) for q, ds in _rows(RUN_B, float).items()
           for d, s in ds.items()]
    _, exc = call(lambda: evaluate_trec(qrels, run, metrics="nDCG@10"))
    assert api_refused(exc, "Qrel records", "query_id", "pandas.DataFrame(records)") is None, exc
    got = evaluate_trec(pd.DataFrame(qrels), pd.DataFrame(run), metrics="nDCG@10")
    assert got["nDCG@10"] == pytest.approx(_ir("nDCG@10", RUN_B), abs=1e-12)


@_cls("tracebacks")
def test_scores_as_text_from_another_tool_in_a_run_frame_are_refused_naming_the_column() -> None:
    import pandas as pd

    from bench.metrics import evaluate_trec

    run = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": ["0.9", "0.1"]})
    _, exc = call(lambda: evaluate_trec(_rows(QRELS, int), run, metrics="map"))
    assert api_refused(exc, "score") is None, exc


@_cls("silently wrong numbers")
def test_a_run_frame_whose_rank_disagrees_with_its_score_is_ranked_by_score() -> None:
    import pandas as pd

    from bench.metrics import evaluate_trec

    rows = _rows(RUN_A, float)
    frame = pd.DataFrame([(q, d, len(ds) - i, s) for q, ds in rows.items()
                          for i, (d, s) in enumerate(ds.items())],
                         columns=["qid", "docno", "rank", "score"])
    got = evaluate_trec(_rows(QRELS, int), frame, metrics=["map", "ndcg_cut_10"])
    assert got["map"] == pytest.approx(_pytrec("map", RUN_A), abs=1e-12)
    assert got["ndcg_cut_10"] == pytest.approx(_pytrec("ndcg_cut_10", RUN_A), abs=1e-12)


@_cls("silently wrong numbers")
def test_integer_query_keys_in_python_qrels_join_text_keys_of_the_run() -> None:
    from bench.metrics import evaluate_trec

    qrels = {int(q): ds for q, ds in _rows(QRELS, int).items() if q != "007"}
    run = {q: ds for q, ds in _rows(RUN_A, float).items() if q != "007"}
    text_q = "".join(ln + "\n" for ln in QRELS.splitlines() if not ln.startswith("007"))
    text_r = "".join(ln + "\n" for ln in RUN_A.splitlines() if not ln.startswith("007"))
    got = evaluate_trec(qrels, run, metrics="map")
    assert got["map"] == pytest.approx(_pytrec("map", text_r, text_q), abs=1e-12)


# -------------------------------------------------------------------- names under profiles
@_cls("silently wrong numbers")
def test_ir_measures_names_with_a_missing_query_and_negative_judgments_equal_ir_measures(
        files: Path) -> None:
    names = ["nDCG@10", "AP", "RR", "P(rel=2)@5", "R(rel=2)@10", "Judged@5", "AP(rel=2)",
             "RR(rel=2)", "nDCG(judged_only=True)@5"]
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "B.run", "--metrics",
              *names, "--format", "csv")
    got = csv_values(res)
    for m in names:
        assert got[m] == pytest.approx(_ir(m, RUN_B), abs=1e-12), m


@_cls("silently wrong numbers")
def test_ranx_names_under_profile_ranx_score_a_missing_query_0_as_ranx(files: Path) -> None:
    # ranx.evaluate(make_comparable=True) scores a qrels query without a run line 0; for these
    # names ranx's formula is trec_eval's (ranx/metrics: precision, recall, reciprocal_rank)
    names = {"precision@5": "P_5", "recall@10": "recall_10", "mrr": "recip_rank",
             "map@100": "map_cut_100"}
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "B.run", "--profile", "ranx",
              "--metrics", *names, "--format", "csv")
    got = csv_values(res)
    for m, pm in names.items():
        assert got[m] == pytest.approx(_pytrec(pm, RUN_B, complete=True), abs=1e-12), m


@_cls("silently wrong numbers")
def test_trec_eval_c_names_score_the_missing_query_0_as_trec_eval_dash_c(files: Path) -> None:
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "B.run", "--profile",
              "trec_eval-c", "--metrics", "ndcg_cut.5,10", "P.5", "map", "--format", "csv")
    got = csv_values(res)
    for m, pm in (("ndcg_cut.5", "ndcg_cut_5"), ("ndcg_cut.10", "ndcg_cut_10"), ("P.5", "P_5"),
                  ("map", "map")):
        assert got[m] == pytest.approx(_pytrec(pm, RUN_B, complete=True), abs=1e-12), m


@_cls("unclear errors")
def test_an_ir_measures_name_under_profile_ranx_is_refused_naming_how_to_ask(
        files: Path) -> None:
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "A.run", "--profile", "ranx",
              "--metrics", "nDCG@10")
    assert refused(res, "nDCG@10") is None, res.err[-400:]


@_cls("unclear errors")
def test_a_trec_eval_name_under_profile_ranx_is_refused_naming_it(files: Path) -> None:
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "A.run", "--profile", "ranx",
              "--metrics", "ndcg_cut_10")
    assert refused(res, "ndcg_cut_10") is None, res.err[-400:]


@_cls("silent accepts")
@pytest.mark.parametrize(("option", "name"), [
    (["--relevance-level", "2"], "ranx:ndcg@5"),
    (["--judged-only"], "trec_eval-c:P_5"),
    (["--run-depth", "2"], "trec_eval:map"),
])
def test_an_option_that_reaches_no_metric_is_refused_naming_it(
        files: Path, option: list[str], name: str) -> None:
    # a typed PROFILE:NAME is computed under that profile as registered: the option changed
    # nothing (ranx:ndcg@5 printed its level-1 value under --relevance-level 2, exit 0)
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "A.run", "--metrics", name,
              *option)
    assert refused(res, option[0], name, "--profile") is None, res.err[-400:]
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "A.run", "--run", "C.run",
              "--metrics", name, *option)
    assert refused(res, option[0], name) is None, res.err[-400:]


@_cls("silently wrong numbers")
@pytest.mark.parametrize(("option", "name", "want"), [
    (["--relevance-level", "1"], "trec_eval:P_5", lambda: _pytrec("P_5", RUN_A)),
    (["--relevance-level", "2"], "trec_eval-c:P(rel=2)@5",
     lambda: _pytrec("P_5", RUN_A, relevance_level=2)),
])
def test_an_option_a_typed_profile_already_has_is_its_value(
        files: Path, option: list[str], name: str, want: object) -> None:
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "A.run", "--metrics", name,
              *option, "--format", "csv")
    _ok(res)
    assert "does not reach" not in res.err
    assert csv_values(res)[name] == pytest.approx(want(), abs=1e-12)  # type: ignore[operator]


@_cls("silent accepts")
def test_an_option_that_misses_a_typed_profile_name_is_said_and_labelled(files: Path) -> None:
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "A.run", "--metrics", "P_5",
              "trec_eval:P_5", "--relevance-level", "2", "--format", "csv")
    _ok(res)
    assert "--relevance-level 2 does not reach trec_eval:P_5" in " ".join(res.err.split())
    got = csv_values(res)
    assert got["P_5"] == pytest.approx(_pytrec("P_5", RUN_A, relevance_level=2), abs=1e-12)
    assert got["trec_eval:P_5"] == pytest.approx(_pytrec("P_5", RUN_A), abs=1e-12)
    profiles = {r["metric"]: r["profile"] for r in csv.DictReader(io.StringIO(res.out))}
    assert profiles == {"P_5": "trec_eval+relevance_threshold=2.0", "trec_eval:P_5": "trec_eval"}


@_cls("unclear errors")
@pytest.mark.parametrize("name", ["ndcg_cut_0", "P_-5", "ndcg_cut.", "P@0", "map_cut_5.5"])
def test_odd_trec_eval_cutoffs_are_refused_naming_the_name(files: Path, name: str) -> None:
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "A.run", "--metrics", name)
    assert res.status == 2, (res.status, res.err[-300:])
    assert not res.traceback
    assert "error:" in res.err


# ------------------------------------------------------------------------------ comparisons
@pytest.fixture(scope="module")
def three(files: Path) -> tuple[dict[str, dict[str, str]], list[dict[str, str]]]:
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "A=A.run", "--run",
              "B=B.run", "--run", "C=C.run", "--metrics", "map", "ndcg_cut_10", "--format",
              "csv", "--missing", "drop", "--per-query", "three_pq.csv")
    rows = _compare_csv(res)
    with open(files / "three_pq.csv", newline="") as fh:
        pq = list(csv.DictReader(fh))
    return rows, pq


@_cls("silently wrong numbers")
def test_comparison_means_equal_pytrec_eval_on_the_common_queries(three: tuple) -> None:  # type: ignore[type-arg]
    rows, _ = three
    common = set(QUERIES) - {"3"}
    for name, run in (("A", RUN_A), ("B", RUN_B), ("C", RUN_C)):
        for m in ("map", "ndcg_cut_10"):
            per_q = _pytrec_q(m, run)
            want = sum(per_q[q] for q in common) / len(common)
            assert float(rows[name][m]) == pytest.approx(want, abs=1e-12), (name, m)


@_cls("silently wrong numbers")
def test_the_per_query_file_of_a_comparison_averages_to_the_printed_means(three: tuple) -> None:  # type: ignore[type-arg]
    rows, pq = three
    assert {r["qid"] for r in pq} == set(QUERIES) - {"3"}  # ids as spelled: 007 and 7
    for m in ("map", "ndcg_cut_10"):
        cells = [r for r in pq if r["metric"] == m]
        assert {r["profile"] for r in cells} == {rows["A"][f"{m} profile"]}
        for name in ("A", "B", "C"):
            mean = sum(float(r[name]) for r in cells) / len(cells)
            assert mean == pytest.approx(float(rows[name][m]), abs=1e-12), (name, m)


@_cls("silently wrong numbers")
def test_the_t_test_p_values_equal_scipy_with_holm_by_hand(three: tuple) -> None:  # type: ignore[type-arg]
    rows, pq = three
    best = max(rows, key=lambda n: float(rows[n]["map"]))
    assert rows[best]["best"] == "True"
    cells = [r for r in pq if r["metric"] == "map"]
    others = [n for n in rows if n != best]
    raw = {n: float(scipy_stats.ttest_rel([float(r[n]) for r in cells],
                                          [float(r[best]) for r in cells]).pvalue)
           for n in others}
    order = sorted(others, key=lambda n: raw[n])
    holm: dict[str, float] = {}
    running = 0.0
    for i, n in enumerate(order):
        running = max(running, min(1.0, (len(order) - i) * raw[n]))
        holm[n] = running
    for n in others:
        assert float(rows[n]["p_t"]) == pytest.approx(raw[n], rel=1e-9), n
        assert float(rows[n]["p_t_holm"]) == pytest.approx(holm[n], rel=1e-9), n


@_cls("silently wrong numbers")
def test_a_blank_query_leaves_the_t_test_as_it_leaves_the_means(files: Path) -> None:
    # under ltrbench (ideal DCG from the retrieved list) query 4 has no relevant document: no
    # value in any run, left out of the means and of the paired tests alike
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "A=A.run", "--run", "C=C.run",
              "--profile", "ltrbench", "--metrics", "map", "--format", "csv",
              "--per-query", "blank_pq.csv")
    rows = _compare_csv(res)
    with open(files / "blank_pq.csv", newline="") as fh:
        cells = [r for r in csv.DictReader(fh) if r["A"] not in ("", "nan") and r["C"] not in
                 ("", "nan")]
    assert len(cells) == len(QUERIES) - 1
    best = max(rows, key=lambda n: float(rows[n]["map"]))
    other = next(n for n in rows if n != best)
    want = scipy_stats.ttest_rel([float(r[other]) for r in cells],
                                 [float(r[best]) for r in cells]).pvalue
    assert float(rows[other]["p_t"]) == pytest.approx(float(want), rel=1e-9)
    assert rows[other]["n_queries"] == str(len(cells))
    for n in rows:
        assert float(rows[n]["map"]) == pytest.approx(
            sum(float(r[n]) for r in cells) / len(cells), abs=1e-12)


@_cls("silently wrong numbers")
def test_the_randomization_p_values_equal_an_exact_enumeration(three: tuple) -> None:  # type: ignore[type-arg]
    rows, pq = three
    best = max(rows, key=lambda n: float(rows[n]["map"]))
    cells = [r for r in pq if r["metric"] == "map"]
    for n in (x for x in rows if x != best):
        d = [float(r[n]) - float(r[best]) for r in cells]
        obs = abs(sum(d))
        hits = sum(abs(sum(s * x for s, x in zip(signs, d, strict=True))) >= obs - 1e-12
                   for signs in itertools.product((1, -1), repeat=len(d)))
        assert float(rows[n]["p_randomization"]) == pytest.approx(hits / 2 ** len(d)), n


@_cls("silently wrong numbers")
def test_a_sampled_randomization_p_is_within_sampling_error_of_the_exact_one(
        tmp_path: Path) -> None:
    # 16 queries: 2^16 sign vectors > 10 000 resamples, so the command samples them
    rnd = random.Random(11)
    qrels = "".join(f"{q} 0 d{j} {rnd.choice([0, 0, 1, 2])}\n" for q in range(16) for j in range(6))
    runs = {}
    for name in ("x", "y"):
        runs[name] = "".join(f"{q} Q0 d{j} {i} {rnd.random():.6f} {name}\n" for q in range(16)
                             for i, j in enumerate(rnd.sample(range(6), 6), 1))
        (tmp_path / f"{name}.run").write_text(runs[name])
    (tmp_path / "q").write_text(qrels)
    rows = _compare_csv(cli(tmp_path, "evaluate", "--qrels", "q", "--run", "x=x.run", "--run",
                            "y=y.run", "--metrics", "ndcg_cut_5", "--format", "csv"))
    px, py = (_pytrec_q("ndcg_cut_5", runs[n], qrels) for n in ("x", "y"))
    d = np.array([px[q] - py[q] for q in px])
    if not d.any():
        pytest.skip("no difference to test")
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=d.shape[0])))
    exact = float(np.mean(np.abs(signs @ d) >= abs(d.sum()) - 1e-12))
    other = next(n for n in rows if rows[n]["best"] != "True")
    got = float(rows[other]["p_randomization"])
    assert got >= 1 / 10_001  # never 0 (Phipson & Smyth 2010)
    assert abs(got - exact) <= 4 * math.sqrt(exact * (1 - exact) / 10_000) + 2e-4, (got, exact)


@_cls("silently wrong numbers")
def test_the_bootstrap_interval_holds_the_mean_and_is_the_same_twice(files: Path,
                                                                     three: tuple) -> None:  # type: ignore[type-arg]
    rows, _ = three
    again = _compare_csv(cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "A=A.run",
                             "--run", "B=B.run", "--run", "C=C.run", "--metrics", "map",
                             "ndcg_cut_10", "--format", "csv", "--missing", "drop"))
    for n, row in rows.items():
        for m in ("map", "ndcg_cut_10"):
            assert float(row[f"{m} ci_low"]) <= float(row[m]) <= float(row[f"{m} ci_high"])
            assert row[f"{m} ci_low"] == again[n][f"{m} ci_low"]


@_cls("silently wrong numbers")
def test_missing_zero_per_query_file_scores_the_missing_query_0_in_its_run(files: Path) -> None:
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "A=A.run", "--run",
              "B=B.run", "--metrics", "P_5", "map", "--missing", "zero", "--format", "csv",
              "--per-query", "zero_pq.csv")
    rows = _compare_csv(res)
    with open(files / "zero_pq.csv", newline="") as fh:
        pq = list(csv.DictReader(fh))
    three_b = [r for r in pq if r["qid"] == "3"]
    assert three_b
    assert all(float(r["B"]) == 0.0 for r in three_b)
    for m in ("P_5", "map"):
        assert float(rows["B"][m]) == pytest.approx(_pytrec(m, RUN_B, complete=True))
        assert float(rows["A"][m]) == pytest.approx(_pytrec(m, RUN_A, complete=True))


@_cls("silently wrong numbers")
def test_missing_drop_names_the_dropped_query_in_the_json(files: Path) -> None:
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "A=A.run", "--run",
              "B=B.run", "--metrics", "map", "--missing", "drop", "--format", "json")
    _ok(res)
    out = json.loads(res.out)
    assert out["dropped"] == ["3"]
    assert out["n_dropped"] == 1
    assert out["n_queries"] == len(QUERIES) - 1
    assert out["metric_profiles"] == {"map": "trec_eval"}


@_cls("silently wrong numbers")
def test_missing_zero_with_a_typed_zero_profile_scores_the_query_0(files: Path) -> None:
    rows = _compare_csv(cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "A=A.run",
                            "--run", "B=B.run", "--metrics", "trec_eval-c:P_5", "--missing",
                            "zero", "--format", "csv"))
    assert float(rows["B"]["trec_eval-c:P_5"]) == pytest.approx(
        _pytrec("P_5", RUN_B, complete=True), abs=1e-12)
    assert rows["B"]["n_queries"] == str(len(QUERIES))


@_cls("silent accepts")
def test_a_judged_query_no_run_answers_is_named_among_the_dropped(files: Path) -> None:
    # pooled qrels hold topic 9, which neither system ran: the warnings said "left out of every
    # run and metric", the JSON's dropped said only 3 (n_dropped 1 of 2 judged queries missing)
    (files / "qrels9.txt").write_text(QRELS + "9 0 zz 1\n9 0 yy 0\n")
    res = cli(files, "evaluate", "--qrels", "qrels9.txt", "--run", "A=A.run", "--run",
              "B=B.run", "--metrics", "map", "--missing", "drop", "--format", "json")
    _ok(res)
    out = json.loads(res.out)
    judged = set(QUERIES) | {"9"}
    assert out["n_queries"] == len(QUERIES) - 1
    assert sorted(out["dropped"]) == sorted(judged - set(QUERIES) | {"3"}) == ["3", "9"]
    assert out["n_dropped"] + out["n_queries"] == len(judged)
    table = cli(files, "evaluate", "--qrels", "qrels9.txt", "--run", "A=A.run", "--run",
                "B=B.run", "--metrics", "map", "--missing", "drop")
    assert "2 queries dropped from every run and metric: 3, 9" in " ".join(table.out.split())
    zero = json.loads(cli(files, "evaluate", "--qrels", "qrels9.txt", "--run", "A=A.run",
                          "--run", "B=B.run", "--metrics", "map", "--missing", "zero",
                          "--format", "json").out)
    assert (zero["n_queries"], zero["dropped"]) == (len(judged), [])


@_cls("silently wrong numbers")
def test_a_comparison_under_run_depth_cuts_every_run(files: Path) -> None:
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "A=A.run", "--run",
              "C=C.run", "--metrics", "map", "--run-depth", "2", "--format", "csv")
    rows = _compare_csv(res)
    for name, run in (("A", RUN_A), ("C", RUN_C)):
        top = "".join(f"{ln}\n" for ln in run.splitlines() if int(ln.split()[3]) <= 2)
        # the rank column follows the score here, so the top 2 by rank are trec_eval's
        assert float(rows[name]["map"]) == pytest.approx(_pytrec("map", top), abs=1e-12)


@_cls("silently wrong numbers")
def test_the_comparison_table_names_the_profile_of_every_metric_column(files: Path) -> None:
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "A=A.run", "--run",
              "C=C.run", "--metrics", "ndcg_cut_10", "nDCG@10", "ranx:ndcg@10", "P(rel=2)@5")
    _ok(res)
    head = "\n".join(res.out.splitlines()[:6])
    for col in ("ndcg_cut_10 [trec_eval]", "nDCG@10 [trec_eval-c]", "ranx:ndcg@10 [ranx]",
                "P(rel=2)@5 [trec_eval-c+relevance_threshold=2.0]"):
        assert col in head, col


@_cls("silently wrong numbers")
def test_the_per_query_json_of_a_comparison_keeps_ids_007_and_7_apart(files: Path) -> None:
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "A=A.run", "--run",
              "C=C.run", "--metrics", "recip_rank", "--per-query", "ids.json", "--format", "csv")
    _ok(res)
    recs = json.loads((files / "ids.json").read_text())
    ids = [r["qid"] for r in recs]
    assert {"007", "7"} <= set(ids)
    assert all(isinstance(i, str) for i in ids)
    per_q = _pytrec_q("recip_rank", RUN_A)
    for r in recs:
        assert r["A"] == pytest.approx(per_q[r["qid"]]), r["qid"]


@_cls("silently wrong numbers")
def test_compare_runs_in_python_equals_the_command_line(files: Path, three: tuple) -> None:  # type: ignore[type-arg]
    from bench.report.compare_runs import compare_runs

    rows, _ = three
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = compare_runs(str(files / "qrels.txt"),
                             {"A": str(files / "A.run"), "B": str(files / "B.run"),
                              "C": str(files / "C.run")},
                             metrics=["map", "ndcg_cut_10"], missing="drop").to_frame()
    for rec in frame.to_dict("records"):
        row = rows[rec["run"]]
        for col in ("map", "ndcg_cut_10", "p_t", "p_randomization_holm"):
            want = row[col]
            if want == "":
                assert rec[col] is None or math.isnan(rec[col]), (rec["run"], col)
            else:
                assert rec[col] == pytest.approx(float(want), abs=1e-12), (rec["run"], col)


@_cls("silently wrong numbers")
def test_compare_runs_with_integer_and_text_query_keys_is_one_query_set() -> None:
    from bench.report.compare_runs import compare_runs

    qrels = {q: ds for q, ds in _rows(QRELS, int).items() if q != "007"}
    run_a = {int(q): ds for q, ds in _rows(RUN_A, float).items() if q != "007"}
    run_c = {q: ds for q, ds in _rows(RUN_C, float).items() if q != "007"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = compare_runs(qrels, {"a": run_a, "c": run_c}, metrics="map")
    assert got.qids.shape[0] == len(qrels)
    text_q = "".join(ln + "\n" for ln in QRELS.splitlines() if not ln.startswith("007"))
    text_a = "".join(ln + "\n" for ln in RUN_A.splitlines() if not ln.startswith("007"))
    assert got.to_frame().set_index("run").loc["a", "map"] == pytest.approx(
        _pytrec("map", text_a, text_q), abs=1e-12)


@_cls("unclear errors")
def test_an_empty_run_name_is_refused_naming_the_option(files: Path) -> None:
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "=A.run", "--run", "C.run",
              "--metrics", "map")
    assert res.status == 2, res.err[-300:]
    assert not res.traceback
    assert "--run" in res.err


@_cls("unclear errors")
def test_missing_with_one_run_is_refused_naming_missing(files: Path) -> None:
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "A.run", "--missing", "zero",
              "--metrics", "map")
    assert refused(res, "--missing") is None


@_cls("inputs destroyed")
@pytest.mark.parametrize(("fd", "stream"), [(1, "standard output"), (2, "standard error")])
def test_per_query_onto_the_file_a_stream_is_redirected_to_is_refused(
        files: Path, fd: int, stream: str) -> None:
    # 'ltrbench evaluate ... --per-query out.csv > out.csv': the shell opens out.csv first;
    # the per-query rows and the summary were interleaved in one file, exit 0
    target = files / f"redirected{fd}.csv"
    handle = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    saved = os.dup(fd)
    try:
        os.dup2(handle, fd)
        res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "A.run", "--metrics",
                  "map", "--per-query", target.name)
    finally:
        os.dup2(saved, fd)
        os.close(saved)
        os.close(handle)
    assert refused(res, "--per-query", target.name, stream) is None, res.err[-300:]
    assert target.read_bytes() == b""


@_cls("unclear errors")
def test_per_query_into_a_folder_that_does_not_exist_names_the_path(files: Path) -> None:
    res = cli(files, "evaluate", "--qrels", "qrels.txt", "--run", "A.run", "--metrics", "map",
              "--per-query", "no/such/dir/pq.csv")
    if res.status == 0:  # created: then the file holds the query values
        assert (files / "no/such/dir/pq.csv").exists()
        return
    assert refused(res, "no/such/dir") is None, res.err[-300:]


def test_every_test_here_has_a_class() -> None:
    from hostile_kit import CLASSES as KNOWN

    here = {n for n in globals()
            if n.startswith("test_") and n != "test_every_test_here_has_a_class"}
    assert here == set(CLASSES), here ^ set(CLASSES)
    assert set(CLASSES.values()) <= set(KNOWN)
