"""Round 18, a search engineer moving an evaluation notebook from PyTerrier / ir_measures / ranx /
ir_datasets to ltrbench's Python API (``evaluate_trec``, ``evaluate``, ``compare_runs``, the
README's examples). They feed ltrbench what those tools hand them: PyTerrier result and qrels
frames, ir_measures' ``Qrel`` / ``ScoredDoc`` records (as frames, lists and one-pass
iterators), ranx ``Run`` objects after ``ranx.evaluate(..., make_comparable=True)`` has
changed them in place, dicts with NumPy keys and values, pandas' nullable and categorical
columns, frames with a query id under two spellings, measure objects, and they compare key by
key with ``ir_measures.calc_aggregate`` and pytrec_eval.

Oracles: ir_measures 0.4.3 and pytrec_eval run here, one measure per ``calc_aggregate`` call (the
README says why); ranx 0.3.21's numbers recorded from this session (importing ranx costs seconds,
so its objects are stand-ins with ranx's ``to_dict()`` output, recorded too) and checked by hand
arithmetic in the comments; an error is judged by what it names.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hostile_kit import cli

from bench.data.trec_objects import as_qrels, as_run
from bench.errors import ConfigError, DataError
from bench.metrics import evaluate, evaluate_trec
from bench.report.compare_runs import compare_runs

ir_measures = pytest.importorskip("ir_measures")
pytrec_eval = pytest.importorskip("pytrec_eval")
from ir_measures import AP, RR, Judged, P, Qrel, R, ScoredDoc, nDCG  # noqa: E402

TOL = 1e-12

#: ir_measures records: graded qrels with a negative judgment, a qrels query (3) the run misses,
#: unjudged documents, no tied scores.
QRELS = [Qrel("1", "a", 2, "0"), Qrel("1", "b", 0, "0"), Qrel("1", "c", 1, "0"),
         Qrel("2", "d", 1, "0"), Qrel("2", "e", 0, "0"), Qrel("2", "f", -1, "0"),
         Qrel("3", "z", 1, "0")]
RUN = [ScoredDoc("1", "a", 0.5), ScoredDoc("1", "b", 0.9), ScoredDoc("1", "c", 0.1),
       ScoredDoc("1", "u", 0.7), ScoredDoc("2", "d", 0.2), ScoredDoc("2", "e", 0.3),
       ScoredDoc("2", "x", 0.8)]
QD = {"1": {"a": 2, "b": 0, "c": 1}, "2": {"d": 1, "e": 0, "f": -1}, "3": {"z": 1}}
RD = {"1": {"a": 0.5, "b": 0.9, "c": 0.1, "u": 0.7}, "2": {"d": 0.2, "e": 0.3, "x": 0.8}}

#: PyTerrier's frames: the run holds qid, docid (its integer), docno, score, rank (from 0),
#: query (the text); the qrels qid, docno, label.
PT_RUN = pd.DataFrame({"qid": ["1"] * 4 + ["2"] * 3, "docid": [10, 11, 12, 13, 20, 21, 22],
                       "docno": ["b", "u", "a", "c", "x", "e", "d"],
                       "score": [0.9, 0.7, 0.5, 0.1, 0.8, 0.3, 0.2], "rank": [0, 1, 2, 3, 0, 1, 2],
                       "query": ["cheap flights"] * 4 + ["hotels"] * 3})
PT_QRELS = pd.DataFrame({"qid": ["1", "1", "1", "2", "2", "2", "3"],
                         "docno": ["a", "b", "c", "d", "e", "f", "z"],
                         "label": [2, 0, 1, 1, 0, -1, 1]})


def _quiet(fn: Any, *args: Any, **kw: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def _names(exc: BaseException, *words: str) -> None:
    """The error names every one of ``words``."""
    missing = [w for w in words if w not in str(exc)]
    assert not missing, f"{missing} not in: {exc}"


def _irm(name: str, qrels: Any = QRELS, run: Any = RUN) -> float:
    """ir_measures' aggregate of one measure (one per call: see the README)."""
    m = ir_measures.parse_measure(name)
    return float(ir_measures.calc_aggregate([m], qrels, run)[m])


def _pytrec(measure: str, qrels: dict[str, Any] = QD, run: dict[str, Any] = RD) -> float:
    per = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)
    return float(np.mean([v[measure] for v in per.values()]))


# --- two id columns in one frame: one holding other ids is refused, never picked silently ------

def test_a_run_frame_with_qid_and_a_query_id_of_other_ids_is_refused_naming_both() -> None:
    """An ir_datasets ``query_id`` merged into a PyTerrier frame beside ``qid``: which is the
    query?  Taking ``qid`` silently scored every document under another query."""
    frame = PT_RUN.assign(query_id=["2"] * 4 + ["1"] * 3)
    with pytest.raises(DataError) as err:
        evaluate_trec(PT_QRELS, frame, metrics="ndcg_cut_10")
    _names(err.value, "'qid'", "'query_id'", "row 1", "qid=")


def test_a_qrels_frame_with_docno_and_a_doc_id_of_other_ids_is_refused_naming_both() -> None:
    frame = PT_QRELS.assign(doc_id=["z", "b", "c", "d", "e", "f", "a"])
    with pytest.raises(DataError) as err:
        evaluate_trec(frame, PT_RUN, metrics="ndcg_cut_10")
    _names(err.value, "'docno'", "'doc_id'", "row 1", "qrels")


def test_evaluate_rows_with_qid_and_a_differing_query_id_is_refused() -> None:
    frame = pd.DataFrame({"qid": [1, 1, 2, 2], "query_id": [2, 2, 1, 1],
                          "label": [1, 0, 0, 1], "score": [0.2, 0.1, 0.4, 0.3]})
    with pytest.raises(DataError) as err:
        evaluate(frame, metrics="ndcg@10")
    _names(err.value, "'qid'", "'query_id'")


def test_a_qid_index_level_and_a_differing_query_id_column_are_refused() -> None:
    frame = PT_RUN.set_index("qid").assign(query_id=["2"] * 4 + ["1"] * 3)
    with pytest.raises(DataError, match="'query_id'"):
        evaluate_trec(PT_QRELS, frame, metrics="ndcg_cut_10")


def test_a_doc_id_index_level_and_a_differing_docno_column_are_refused() -> None:
    frame = PT_RUN.set_index(pd.Index(list("ABCDEFG"), name="doc_id"))
    with pytest.raises(DataError, match="'doc_id'"):
        evaluate_trec(PT_QRELS, frame, metrics="ndcg_cut_10")


def test_compare_runs_names_the_run_whose_frame_holds_two_query_ids() -> None:
    bad = PT_RUN.assign(query_id=["9"] * 7)
    with pytest.raises(DataError) as err:
        compare_runs(PT_QRELS, {"bm25": PT_RUN, "dense": bad}, metrics="ndcg_cut_10",
                     n_bootstrap=20, n_permutations=20)
    _names(err.value, "dense", "'query_id'")


def test_qid_and_query_id_holding_the_same_ids_as_int_and_text_are_one_column() -> None:
    """The same ids twice (an int column beside its text) is no ambiguity: pytrec_eval's number."""
    frame = PT_RUN.assign(query_id=[1] * 4 + [2] * 3)
    got = _quiet(evaluate_trec, PT_QRELS, frame, metrics="ndcg_cut_10")
    assert got["ndcg_cut_10"] == pytest.approx(_pytrec("ndcg_cut_10"), abs=TOL)


def test_docno_and_an_equal_doc_id_column_are_accepted() -> None:
    frame = PT_QRELS.assign(doc_id=PT_QRELS.docno)
    got = _quiet(evaluate_trec, frame, PT_RUN, metrics="P_5")
    assert got["P_5"] == pytest.approx(_pytrec("P_5"), abs=TOL)


def test_pyterrier_companions_stay_passed_over_beside_a_matching_query_id() -> None:
    """PyTerrier's ``query`` text and integer ``docid`` are never ids; an ir_datasets
    ``query_id`` with the same ids beside them changes nothing."""
    frame = PT_RUN.assign(query_id=PT_RUN.qid)
    got = _quiet(evaluate_trec, PT_QRELS, frame, metrics="map")
    assert got["map"] == pytest.approx(_pytrec("map"), abs=TOL)


def test_as_run_with_the_column_named_reads_it_beside_another_query_id() -> None:
    """The error's way out works: naming the column settles the ambiguity."""
    frame = PT_RUN.assign(query_id=["2"] * 4 + ["1"] * 3)
    got = _quiet(evaluate_trec, PT_QRELS, as_run(frame, qid="qid"), metrics="ndcg_cut_10")
    assert got["ndcg_cut_10"] == pytest.approx(_pytrec("ndcg_cut_10"), abs=TOL)


# --- a ranx Run after ranx.evaluate(..., make_comparable=True) ---------------------------------

class Run:
    """ranx 0.3.21's ``Run`` as ``to_dict()`` shows it after ``ranx.evaluate(Qrels(QD),
    run, metrics, make_comparable=True)``: the run changed in place, an empty dict for the
    qrels query it missed (3), the documents by decreasing score (recorded in this session)."""

    def __init__(self, d: dict[str, dict[str, float]], name: str | None = None) -> None:
        self.d, self.name = d, name

    def to_dict(self) -> Any:
        out: defaultdict[str, dict[str, float]] = defaultdict(dict)
        for q, docs in self.d.items():
            out[q] = dict(sorted(docs.items(), key=lambda kv: -kv[1]))
        return out


class Qrels(Run):
    """ranx's ``Qrels``, by its class name and ``to_dict()``."""


MADE_COMPARABLE = {**RD, "3": {}}
OTHER_RUN = {"1": {"a": 0.1, "b": 0.9, "c": 0.5}, "2": {"d": 0.9, "e": 0.3}}
#: ranx 0.3.21 ``evaluate(Qrels(QD), Run(RD), [...], make_comparable=True)``, recorded. By hand,
#: ndcg@10 (linear gain, ideal DCG from the qrels): q1 ranks b,u,a,c = 0,0,2,1:
#: (2/log2 4 + 1/log2 5) / (2 + 1/log2 3) = 1.43068/2.63093 = 0.543788; q2 ranks x,e,d =
#: 0,0,1: (1/2)/1 = 0.5; q3 0; mean 0.347930. mrr@10: (1/3 + 1/3 + 0)/3; map: q1 (1/3 + 2/4)/2,
#: q2 1/3, q3 0: 0.25; recall@100: (1 + 1 + 0)/3.
RANX = {"ndcg@10": 0.3479304139701013, "map": 0.25, "mrr@10": 0.2222222222222222,
        "recall@100": 0.6666666666666666}


def test_a_ranx_run_left_made_comparable_scores_its_empty_query_0_under_ranx() -> None:
    got = _quiet(evaluate_trec, Qrels(QD), Run(MADE_COMPARABLE), metrics=list(RANX),
                 profile="ranx")
    for name, want in RANX.items():
        assert got[name] == pytest.approx(want, abs=TOL), name


def test_a_ranx_run_left_made_comparable_equals_ir_measures_under_trec_eval_c() -> None:
    got = _quiet(evaluate_trec, QD, Run(MADE_COMPARABLE), metrics=["nDCG@10", "AP", "RR@10"],
                 profile="trec_eval-c")
    for name in ("nDCG@10", "AP", "RR@10"):
        assert got[name] == pytest.approx(_irm(name), abs=TOL), name


def test_a_ranx_run_left_made_comparable_under_trec_eval_is_pytrec_eval_with_a_warning() -> None:
    with pytest.warns(UserWarning, match="1 qrels query has no run line"):
        got = evaluate_trec(QD, Run(MADE_COMPARABLE), metrics="ndcg_cut_10")
    assert got["ndcg_cut_10"] == pytest.approx(_pytrec("ndcg_cut_10"), abs=TOL)


def test_compare_runs_takes_a_ranx_run_left_made_comparable() -> None:
    table = _quiet(compare_runs, QD, {"bm25": Run(MADE_COMPARABLE), "plain": RD},
                   metrics="ndcg@10", profile="ranx", n_bootstrap=20, n_permutations=20)
    means = dict(zip(table.to_frame()["run"], table.to_frame()["ndcg@10"], strict=True))
    assert means["bm25"] == pytest.approx(RANX["ndcg@10"], abs=TOL)
    assert means["plain"] == pytest.approx(RANX["ndcg@10"], abs=TOL)


def test_a_ranx_run_of_empty_queries_only_is_refused_as_empty() -> None:
    with pytest.raises(DataError, match="no \\(query, document\\) entries"):
        evaluate_trec(QD, Run({"1": {}, "3": {}}), metrics="ndcg_cut_10")


def test_a_plain_dict_run_with_an_empty_query_is_still_refused_naming_it() -> None:
    """A dict is not ranx's: pytrec_eval scores ``{q: {}}`` 0, a run file cannot hold it."""
    with pytest.raises(DataError, match=r"\['3'\] retrieves no document"):
        evaluate_trec(QD, MADE_COMPARABLE, metrics="ndcg_cut_10")


def test_a_ranx_qrels_with_an_empty_query_is_still_refused_naming_it() -> None:
    with pytest.raises(DataError, match=r"\['9'\] judges no document"):
        evaluate_trec(Qrels({**QD, "9": {}}), RD, metrics="ndcg_cut_10")


def test_a_list_of_named_ranx_runs_is_refused_with_the_dict_that_names_them() -> None:
    with pytest.raises(ConfigError) as err:
        compare_runs(QD, [Run(RD, "bm25"), Run(RD, "dense")], metrics="ndcg@10")
    assert "{run.name: run for run in runs}" in str(err.value)


# --- ir_measures counts under its own profile ------------------------------------------------

@pytest.mark.parametrize("name", ["NumQ", "NumRel"])
def test_ir_measures_counts_under_trec_eval_c_are_ir_measures_counts(name: str) -> None:
    """The README: "an ir_measures name under trec_eval-c is ir_measures'". ir_measures counts
    the queries the run answers (2 here; trec_eval -c would count 3 and sum NumRel over 3)."""
    got = _quiet(evaluate_trec, pd.DataFrame(QRELS), pd.DataFrame(RUN), metrics=[name],
                 profile="trec_eval-c")
    assert got[name] == _irm(name)
    assert "missing='drop'" in got.metric_profiles[name]


def test_trec_eval_num_q_under_trec_eval_c_still_counts_every_qrels_query() -> None:
    """trec_eval -c's num_q counts the 3 qrels queries (hand count), beside ir_measures' NumQ 2."""
    got = _quiet(evaluate_trec, QD, RD, metrics="num_q NumQ num_rel NumRel", profile="trec_eval-c")
    assert (got["num_q"], got["NumQ"]) == (3.0, _irm("NumQ"))
    assert (got["num_rel"], got["NumRel"]) == (4.0, _irm("NumRel"))  # 2 + 1 + 1; answered 2 + 1


def test_the_cli_prints_ir_measures_counts_under_trec_eval_c(tmp_path: Any) -> None:
    (tmp_path / "q.txt").write_text("".join(f"{r.query_id} 0 {r.doc_id} {r.relevance}\n"
                                            for r in QRELS))
    (tmp_path / "r.txt").write_text("".join(f"{s.query_id} Q0 {s.doc_id} {i + 1} {s.score} t\n"
                                            for i, s in enumerate(RUN)))
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--profile",
              "trec_eval-c", "--metrics", "NumQ,num_q", "--format", "json")
    assert res.status == 0, res.err
    import json

    metrics = json.loads(res.out)["metrics"]
    assert metrics == {"NumQ": _irm("NumQ"), "num_q": 3.0}


# --- measure objects and metric lists -----------------------------------------------------------

@pytest.mark.parametrize("measure", [nDCG @ 10, AP(rel=2), P(rel=2) @ 5, R @ 100, RR @ 10,
                                     Judged @ 10])
def test_an_ir_measures_measure_object_is_refused_naming_its_text(measure: Any) -> None:
    with pytest.raises(ConfigError) as err:
        evaluate_trec(QD, RD, metrics=[measure])
    _names(err.value, f"str(measure) = {str(measure)!r}", "ir_measures")


def test_a_single_measure_object_as_metrics_is_refused_naming_its_text() -> None:
    with pytest.raises(ConfigError, match=r"str\(measure\) = 'nDCG@10'"):
        evaluate_trec(QD, RD, metrics=nDCG @ 10)


def test_evaluate_rows_refuses_a_measure_object_naming_its_text() -> None:
    with pytest.raises(ConfigError, match=r"'AP'"):
        evaluate([1, 0], [0.2, 0.1], qid=[1, 1], metrics=[AP])


def test_compare_runs_refuses_a_measure_object_naming_its_text() -> None:
    with pytest.raises(ConfigError, match=r"str\(measure\) = 'RR@10'"):
        compare_runs(QD, {"a": RD, "b": RD}, metrics=[RR @ 10])


def test_the_measures_as_text_equal_calc_aggregate_key_by_key() -> None:
    """The notebook's comparison: ``{str(m): v for m, v in calc_aggregate(...)}`` against
    ltrbench's result under trec_eval-c, keys as ir_measures writes them."""
    measures = [nDCG @ 10, AP(rel=2), P(rel=2) @ 5, R @ 100, RR @ 10, Judged @ 10, AP]
    names = [str(m) for m in measures]
    got = _quiet(evaluate_trec, pd.DataFrame(QRELS), pd.DataFrame(RUN), metrics=names,
                 profile="trec_eval-c")
    assert list(got.metrics) == names
    for name in names:
        assert got[name] == pytest.approx(_irm(name), abs=TOL), name


@pytest.mark.parametrize("name", ["ir_measures", "IR-Measures"])
def test_the_tool_ir_measures_as_a_profile_is_refused_naming_its_profile(name: str) -> None:
    with pytest.raises(ConfigError, match="profile 'trec_eval-c'"):
        evaluate_trec(QD, RD, metrics="nDCG@10", profile=name)


def test_result_indexed_by_the_measure_object_gives_its_value() -> None:
    got = _quiet(evaluate_trec, QD, RD, metrics="nDCG@10", profile="trec_eval-c")
    assert got[nDCG @ 10] == got["nDCG@10"] == pytest.approx(_irm("nDCG@10"), abs=TOL)


def test_a_generator_of_metric_names_is_read_once_and_wholly() -> None:
    names = ["nDCG@10", "AP", "RR"]
    got = _quiet(evaluate_trec, QD, RD, metrics=(n for n in names), profile="trec_eval-c")
    assert list(got.metrics) == names
    assert [got[n] for n in names] == pytest.approx([_irm(n) for n in names], abs=TOL)


def test_compare_runs_reads_a_generator_of_metric_names_wholly() -> None:
    table = _quiet(compare_runs, QD, {"a": RD, "b": OTHER_RUN},
                   metrics=(n for n in ["nDCG@10", "AP"]), profile="trec_eval-c",
                   n_bootstrap=20, n_permutations=20).to_frame()
    assert {"nDCG@10", "AP"} <= set(table.columns)


# --- one-pass iterators: refused unread ------------------------------------------------------

def test_an_iterator_of_qrel_records_is_refused_and_left_unread() -> None:
    it = iter(QRELS)
    with pytest.raises(ConfigError) as err:
        evaluate_trec(it, pd.DataFrame(RUN), metrics="nDCG@10")
    _names(err.value, "one-pass iterator", "pandas.DataFrame(records)")
    assert next(it) == QRELS[0]  # nothing was consumed


def test_a_generator_of_scored_docs_is_refused_and_left_unread() -> None:
    gen = (s for s in RUN)
    with pytest.raises(ConfigError, match="one-pass iterator"):
        evaluate_trec(pd.DataFrame(QRELS), gen, metrics="nDCG@10")
    assert next(gen) == RUN[0]


def test_compare_runs_refuses_a_qrels_iterator_unread() -> None:
    it = iter(QRELS)
    with pytest.raises(ConfigError, match="one-pass iterator"):
        compare_runs(it, {"a": RD, "b": RD}, metrics="ndcg@10")
    assert len(list(it)) == len(QRELS)


def test_compare_runs_refuses_a_generator_of_named_runs_unread() -> None:
    pairs = ((name, run) for name, run in (("a", RD), ("b", RD)))
    with pytest.raises(ConfigError, match="runs must be a mapping"):
        compare_runs(QD, pairs, metrics="ndcg@10")  # type: ignore[arg-type]
    assert [name for name, _ in pairs] == ["a", "b"]


def test_a_run_given_as_an_iterator_of_dict_items_is_refused_unread() -> None:
    items = iter(RD.items())
    with pytest.raises(ConfigError, match="one-pass iterator"):
        evaluate_trec(QD, items, metrics="ndcg_cut_10")
    assert len(list(items)) == 2


def test_a_list_of_ir_measures_records_is_refused_with_the_frame_to_build() -> None:
    with pytest.raises(ConfigError, match=r"ScoredDoc records \(query_id, doc_id, score\)"):
        evaluate_trec(QD, RUN, metrics="nDCG@10")


def test_the_records_as_frames_equal_ir_measures_on_the_records() -> None:
    got = _quiet(evaluate_trec, pd.DataFrame(QRELS), pd.DataFrame(RUN),
                 metrics=["nDCG@10", "AP", "P@5"], profile="trec_eval-c")
    assert got["nDCG@10"] == pytest.approx(_irm("nDCG@10"), abs=TOL)
    assert got["P@5"] == pytest.approx(_irm("P@5"), abs=TOL)


# --- dicts and frames as the tools hand them -------------------------------------------------

def test_numpy_keys_and_values_in_dicts_equal_pytrec_eval_on_plain_ones() -> None:
    qd = {np.str_(q): {np.str_(d): np.int8(v) for d, v in docs.items()} for q, docs in QD.items()}
    rd = {np.str_(q): {np.str_(d): np.float64(v) for d, v in docs.items()}
          for q, docs in RD.items()}
    got = _quiet(evaluate_trec, qd, rd, metrics="ndcg_cut_10 map")
    assert got["ndcg_cut_10"] == pytest.approx(_pytrec("ndcg_cut_10"), abs=TOL)
    assert got["map"] == pytest.approx(_pytrec("map"), abs=TOL)


def test_bytes_query_keys_are_refused_naming_the_key() -> None:
    with pytest.raises(DataError, match=r"\[b'1'\]"):
        evaluate_trec({b"1": {"a": 1}}, RD, metrics="ndcg_cut_10")


def test_a_numpy_bool_relevance_is_refused_naming_its_keys() -> None:
    with pytest.raises(DataError, match=r"\['1'\]\['a'\].*bool"):
        evaluate_trec({"1": {"a": np.bool_(True)}}, RD, metrics="ndcg_cut_10")


def test_an_ir_datasets_qrels_frame_with_iteration_and_a_pyterrier_run_agree() -> None:
    qrels = pd.DataFrame(QRELS)  # query_id, doc_id, relevance, iteration
    got = _quiet(evaluate_trec, qrels, PT_RUN, metrics="ndcg_cut_10 P_5")
    assert got["ndcg_cut_10"] == pytest.approx(_pytrec("ndcg_cut_10"), abs=TOL)
    assert got["P_5"] == pytest.approx(_pytrec("P_5"), abs=TOL)


def test_nullable_pyarrow_and_categorical_columns_read_as_their_values() -> None:
    qrels = PT_QRELS.astype({"qid": "category", "docno": "string[pyarrow]", "label": "Int64"})
    run = PT_RUN.astype({"qid": "string[pyarrow]", "docno": "category", "score": "Float64"})
    got = _quiet(evaluate_trec, qrels, run, metrics="ndcg_cut_10")
    assert got["ndcg_cut_10"] == pytest.approx(_pytrec("ndcg_cut_10"), abs=TOL)


def test_a_float_categorical_query_id_is_refused_naming_the_column() -> None:
    # round 23b: whole floats are their integers on every path; a fractional one is no id
    qrels = PT_QRELS.assign(qid=pd.Categorical([1.5, 1.5, 1.5, 2, 2, 2, 3]))
    with pytest.raises(DataError, match="column 'qid'"):
        evaluate_trec(qrels, PT_RUN, metrics="ndcg_cut_10")


def test_a_nullable_boolean_label_is_refused_naming_row_and_column() -> None:
    qrels = PT_QRELS.assign(label=pd.array([True, False, True, True, False, None, True],
                                           dtype="boolean"))
    with pytest.raises(DataError, match="row 1, column 'label'"):
        evaluate_trec(qrels, PT_RUN, metrics="ndcg_cut_10")


def test_a_renamed_query_text_column_that_duplicates_qid_is_refused() -> None:
    run = PT_RUN.rename(columns={"query": "qid"})
    with pytest.raises(DataError, match="'qid' appears 2 times"):
        evaluate_trec(PT_QRELS, run, metrics="ndcg_cut_10")


def test_a_frame_under_a_column_multiindex_is_refused_listing_its_columns() -> None:
    run = pd.concat({"bm25": PT_RUN}, axis=1)
    with pytest.raises(DataError, match=r"no qid column.*\('bm25', 'qid'\)"):
        evaluate_trec(PT_QRELS, run, metrics="ndcg_cut_10")


def test_a_series_indexed_by_query_id_and_doc_id_reads_as_a_run() -> None:
    """PyTerrier's ``res.set_index(['qid', 'docno'])['score']``, with ir_datasets' names."""
    series = pd.DataFrame(RUN).set_index(["query_id", "doc_id"])["score"]
    got = _quiet(evaluate_trec, QD, series, metrics="recip_rank")
    assert got["recip_rank"] == pytest.approx(_pytrec("recip_rank"), abs=TOL)


def test_as_qrels_of_a_pyterrier_frame_equals_the_dict() -> None:
    a, b = as_qrels(PT_QRELS), as_qrels(QD)
    key = sorted(zip(a.qid, a.docno, a.rel, strict=True))
    assert key == sorted(zip(b.qid, b.docno, b.rel, strict=True))


# --- a frame's to_dict() is not the pytrec_eval layout -------------------------------------------

_INT_QRELS = pd.DataFrame({"qid": [1, 1, 1, 2, 2, 3], "docno": [10, 11, 12, 13, 14, 15],
                           "label": [2, 0, 1, 1, 0, 1]})
_INT_RUN = pd.DataFrame({"qid": [1, 1, 1, 2, 2, 2], "docno": [10, 11, 12, 13, 14, 16],
                         "score": [0.9, 0.5, 0.1, 0.8, 0.3, 0.2]})


@pytest.mark.parametrize(("qrels", "run", "words"), [
    # read as {qid: {docno: value}}, both to_dict()s "agreed" on queries 'qid' and 'docno':
    # ndcg_cut_10 1.0 and P_5 1.0, where the frames give 0.975 and 0.3
    (_INT_QRELS.to_dict(), _INT_RUN.to_dict(), ("qrels dict", "outer keys", "'label'")),
    (_INT_QRELS, _INT_RUN.to_dict(), ("run dict", "outer keys", "'score'")),
    (_INT_QRELS, _INT_RUN.to_dict("index"), ("run dict", "inner keys", "{row: {column: value}}")),
    (pd.DataFrame(QRELS).to_dict("index"), RD, ("qrels dict", "'query_id'", "'doc_id'")),
])
def test_a_frames_to_dict_is_refused_saying_to_pass_the_frame(qrels: Any, run: Any,
                                                               words: tuple[str, ...]) -> None:
    with pytest.raises(DataError) as err:
        evaluate_trec(qrels, run, metrics="ndcg_cut_10 P_5")
    _names(err.value, "DataFrame.to_dict()", "pass the DataFrame itself", *words)


def test_the_frames_themselves_give_pytrec_evals_numbers() -> None:
    qd = {"1": {"10": 2, "11": 0, "12": 1}, "2": {"13": 1, "14": 0}, "3": {"15": 1}}
    rd = {"1": {"10": 0.9, "11": 0.5, "12": 0.1}, "2": {"13": 0.8, "14": 0.3, "16": 0.2}}
    got = _quiet(evaluate_trec, _INT_QRELS, _INT_RUN, metrics="ndcg_cut_10 P_5")
    assert got["ndcg_cut_10"] == pytest.approx(_pytrec("ndcg_cut_10", qd, rd), abs=TOL)
    assert got["P_5"] == pytest.approx(_pytrec("P_5", qd, rd), abs=TOL)


def test_document_ids_that_are_also_column_words_stay_ids() -> None:
    """Only all three roles' names at one level mark a frame's dict: documents named 'doc' and
    'query' of a query 'label' are plain ids (pytrec_eval's number)."""
    qd = {"label": {"doc": 1, "query": 0}}
    rd = {"label": {"doc": 0.2, "query": 0.9}}
    got = evaluate_trec(qd, rd, metrics="ndcg_cut_10")
    assert got["ndcg_cut_10"] == pytest.approx(_pytrec("ndcg_cut_10", qd, rd), abs=TOL)


# --- an evaluator's result given as the run --------------------------------------------------

def _pytrec_results() -> dict[str, dict[str, float]]:
    """pytrec_eval's ``evaluate()`` output, ``{qid: {measure: value}}``: the notebook's slip."""
    return pytrec_eval.RelevanceEvaluator(QD, {"ndcg_cut_10", "map", "P_5"}).evaluate(RD)


def test_pytrec_evals_per_query_result_given_as_the_run_is_refused() -> None:
    """Read as a run, every 'document' (ndcg_cut_10, map, P_5) is unjudged: ndcg 0.0 with no
    warning but the missing query's (4 documents, under the unjudged warning's floor)."""
    with pytest.raises(DataError) as err:
        evaluate_trec(QD, _pytrec_results(), metrics="ndcg_cut_10")
    _names(err.value, "run dict", "named as metrics", "pytrec_eval's evaluate()", "query '1'")


def test_compare_runs_refuses_a_result_dict_naming_the_run() -> None:
    with pytest.raises(DataError) as err:
        compare_runs(QD, {"bm25": RD, "scores": _pytrec_results()}, metrics="map",
                     n_bootstrap=20, n_permutations=20)
    _names(err.value, "'scores'", "named as metrics")


def test_a_run_with_one_document_named_like_a_metric_is_still_a_run() -> None:
    """One document id that is also a metric name (``map``) beside ordinary ones is an id."""
    qd = {"1": {"map": 1, "d2": 0}}
    rd = {"1": {"map": 0.2, "d2": 0.9}}
    got = evaluate_trec(qd, rd, metrics="ndcg_cut_10")
    assert got["ndcg_cut_10"] == pytest.approx(_pytrec("ndcg_cut_10", qd, rd), abs=TOL)


# --- a comparison's missing='zero' is every metric's rule ------------------------------------

#: A second run that answers query 3 too: run RD lacks it.
FULL_RUN = {"1": {"a": 0.9, "b": 0.5}, "2": {"d": 0.9}, "3": {"z": 1.0}}


def _compare(metrics: str, missing: str, profile: str | None = None) -> Any:
    return _quiet(compare_runs, QD, {"a": RD, "b": FULL_RUN}, metrics=metrics, missing=missing,
                  profile=profile, n_bootstrap=20, n_permutations=20)


@pytest.mark.parametrize("metrics", ["nDCG@10 NumQ", "nDCG@10 NumRel"])
def test_missing_zero_beside_an_ir_measures_count_is_refused_naming_it(metrics: str) -> None:
    """ir_measures' NumQ counts the answered queries (its rule drops the others): beside
    missing='zero' the comparison would shrink to the 2 queries run a answers (nDCG@10 0.5219
    where zero means 3 queries, ir_measures' 0.3479) without a metric asking for it."""
    with pytest.raises(ConfigError) as err:
        _compare(metrics, "zero")
    _names(err.value, "missing='zero'", metrics.split()[1], "num_q", "missing='drop'")


def test_missing_zero_beside_num_q_counts_every_judged_query() -> None:
    table = _compare("nDCG@10 num_q", "zero").to_frame().set_index("run")
    assert table.loc["a", "num_q"] == 3.0  # trec_eval -c's count: the 3 qrels queries
    assert table.loc["a", "nDCG@10"] == pytest.approx(_irm("nDCG@10", QD, RD), abs=TOL)


def test_missing_zero_compares_over_every_judged_query_as_ir_measures() -> None:
    table = _compare("nDCG@10 P_5", "zero").to_frame().set_index("run")
    assert table.loc["a", "nDCG@10"] == pytest.approx(_irm("nDCG@10", QD, RD), abs=TOL)
    assert table.loc["a", "n_queries"] == 3


def test_missing_drop_beside_an_ir_measures_name_compares_the_answered_queries() -> None:
    """Under drop every rule agrees: the 2 queries both runs answer (pytrec_eval's q1, q2)."""
    table = _compare("nDCG@10 NumQ", "drop").to_frame().set_index("run")
    per = pytrec_eval.RelevanceEvaluator(QD, {"ndcg_cut_10"}).evaluate(RD)
    assert table.loc["a", "nDCG@10"] == pytest.approx(
        np.mean([per[q]["ndcg_cut_10"] for q in ("1", "2")]), abs=TOL)
    assert table.loc["a", "n_queries"] == 2


# --- tables with a header given as TREC files --------------------------------------------------

@pytest.mark.parametrize(("name", "text", "kind", "words"), [
    # ir_datasets' tab-separated export of qrels: the header fails as relevance 'iteration'
    ("qrels.tsv", "query_id\tdoc_id\trelevance\titeration\n1\ta\t2\t0\n", "qrels",
     ("qrels.tsv:1", "query_id, doc_id, relevance, iteration", "no header")),
    # DataFrame.to_csv of a PyTerrier result frame
    ("run.csv", "qid,docno,score\n1,a,0.5\n", "run", ("run.csv:1", "qid, docno, score")),
    # a TREC run with its column names written on top
    ("run.txt", "qid Q0 docno rank score tag\n1 Q0 a 1 0.5 t\n", "run",
     ("run.txt:1", "rank", "no header")),
])
def test_a_table_header_in_a_trec_file_is_named_as_a_header(tmp_path: Any, name: str, text: str,
                                                            kind: str,
                                                            words: tuple[str, ...]) -> None:
    (tmp_path / name).write_text(text)
    (tmp_path / "q.txt").write_text("1 0 a 1\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 0.5 t\n")
    args = ((tmp_path / name, tmp_path / "r.txt") if kind == "qrels"
            else (tmp_path / "q.txt", tmp_path / name))
    with pytest.raises(DataError) as err:
        evaluate_trec(*args, metrics="nDCG@10")
    _names(err.value, *words, "DataFrame")


def test_short_document_ids_that_spell_metrics_stay_ids() -> None:
    """'p' and 'rr' parse as metric names (precision, reciprocal rank) but are plausible
    document ids of a small example: pytrec_eval's number, no refusal."""
    qd = {"1": {"p": 1, "rr": 0}}
    rd = {"1": {"p": 0.2, "rr": 0.9}}
    got = evaluate_trec(qd, rd, metrics="ndcg_cut_10")
    assert got["ndcg_cut_10"] == pytest.approx(_pytrec("ndcg_cut_10", qd, rd), abs=TOL)
