"""Round 17: a recommender library's maintainer integrating ltrbench's Python API into CI.

They call ``bench``'s public functions with every metric name their users might type, feed
every container their library produces (pyarrow tables, NumPy structured arrays, MultiIndex
frames, categorical ids, dicts of dicts, generators), parse the outputs back in code (result
keys, ``metric_profiles``, per-query frames, ``--format json``/``csv`` on stdout, a run's
tables) and call ``evaluate`` from two threads at once. Oracles: hand arithmetic, pytrec_eval,
the same rows through another documented door (a pandas DataFrame, the arrays), the parser's
own listing. In-process only.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import threading
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from fuzz_helpers import fuzz_settings
from hypothesis import given
from hypothesis import strategies as st

from bench.errors import ConfigError, DataError, LtrbenchError
from bench.metrics import evaluate, evaluate_trec
from bench.metrics.names import parse_metrics
from tests.hostile_kit import cli

L = [2, 0, 1, 1, 0]
S = [0.9, 0.1, 0.5, 0.2, 0.8]
Q = [1, 1, 1, 2, 2]
# hand arithmetic: query 1 ranks labels (2, 1, 0): NDCG@3 = 1; query 2 ranks (0, 1):
# DCG = 1/log2(3), IDCG = 1: 0.6309...; mean 0.8154648767857288
NDCG3 = (1 + 1 / math.log2(3)) / 2
FRAME = pd.DataFrame({"qid": Q, "label": L, "score": S})

QRELS = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"d": 1, "e": 0}, "3": {"f": 1}}
RUN = {"1": {"a": 0.4, "b": 0.9, "c": 0.1}, "2": {"d": 0.2, "e": 0.8}}
QRELS_TXT = b"1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 d 1\n2 0 e 0\n3 0 f 1\n"
RUN_TXT = b"1 Q0 a 1 0.4 t\n1 Q0 b 2 0.9 t\n1 Q0 c 3 0.1 t\n2 Q0 d 1 0.2 t\n2 Q0 e 2 0.8 t\n"


def _quiet(fn: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


# ---------------------------------------------------------------------- names round trip

def test_every_hit_rate_spelling_is_its_own_key_with_one_value() -> None:
    names = ["hit@3", "hits@3", "HR@3", "hit_rate@3", "Hit@3"]
    r = evaluate(L, S, qid=Q, metrics=names, per_query=True)
    assert list(r.metrics) == names  # the user's spellings, in order
    assert set(r.metrics.values()) == {1.0}  # both queries hold a relevant doc in the top 3
    assert list(r.per_query.columns) == ["qid", *names]


def test_two_spellings_of_ndcg_in_one_call_are_two_columns_never_overwritten() -> None:
    r = evaluate(L, S, qid=Q, metrics="ndcg@3,NDCG@3", per_query=True)
    assert list(r.metrics) == ["ndcg@3", "NDCG@3"]
    assert r["ndcg@3"] == pytest.approx(NDCG3, abs=1e-15) == r["NDCG@3"]
    assert r.per_query["ndcg@3"].tolist() == r.per_query["NDCG@3"].tolist()


def test_a_cyrillic_a_in_map_is_refused_naming_the_code_point() -> None:
    with pytest.raises(ConfigError, match="U\\+0430"):
        evaluate(L, S, qid=Q, metrics="m\u0430p")


def test_a_semicolon_list_of_names_says_how_names_are_separated() -> None:
    with pytest.raises(ConfigError) as caught:
        evaluate(L, S, qid=Q, metrics="ndcg@3;map")
    text = str(caught.value)
    assert "ndcg@3;map" in text, text
    assert "comma" in text, text


@pytest.mark.parametrize("name", ["ndcg@3", "NDCG@3", "nDCG@3", "ndcg_cut_3", "ndcg_cut.3",
                                  "P@3", "precision@3", "P_3", "recip_rank", "RR", "MAP", "AP",
                                  "R@3", "Recall@3", "recall_3", "lightgbm:ndcg@3",
                                  "P(rel=2)@3", "rbp(0.9)@3"])
def test_a_printed_key_parses_back_to_the_same_metric_and_profile(name: str) -> None:
    r = _quiet(lambda: evaluate_trec(QRELS, RUN, metrics=[name]))
    (key,) = r.metrics
    assert key == name
    again = _quiet(lambda: evaluate_trec(QRELS, RUN, metrics=[key]))
    assert again.metrics[key] == r.metrics[key] or (
        math.isnan(again.metrics[key]) and math.isnan(r.metrics[key]))
    assert again.profile_of(key) == r.profile_of(key)
    assert parse_metrics(key) == parse_metrics(name)


def test_every_listed_example_is_its_own_result_key() -> None:
    from bench.metrics.names_listing import listing_json

    rows = json.loads(listing_json())["names"]
    bad = []
    for row in rows:
        ex = row["example"]
        try:
            r = _quiet(lambda ex=ex: evaluate_trec(QRELS, RUN, metrics=[ex]))
        except ConfigError as exc:  # diversity names need subtopic qrels: said so
            if "subtopic" not in str(exc):
                bad.append((ex, str(exc)))
            continue
        if list(r.metrics) != [ex]:
            bad.append((ex, list(r.metrics)))
    assert not bad, bad


def _listed() -> list[str]:
    from bench.metrics.names_listing import listing_json

    return [r["example"] for r in json.loads(listing_json())["names"]]


@given(name=st.sampled_from(_listed()), case=st.sampled_from(["upper", "lower", "swapcase",
                                                                "title"]),
       pad=st.sampled_from(["", " ", "\t", "\u00a0"]))
@fuzz_settings(30)
def test_a_listed_name_in_any_case_is_its_own_key_or_a_clear_error(name: str, case: str,
                                                                   pad: str) -> None:
    typed = getattr(name, case)()
    try:
        r = _quiet(lambda: evaluate_trec(QRELS, RUN, metrics=[pad + typed + pad]))
    except ConfigError:
        return  # an ir_measures name in another case, a diversity name: refused, said
    assert list(r.metrics) == [typed]  # the spelling given (blanks around it aside)
    assert r[pad + typed + pad] == r[typed]


def test_a_profile_label_with_overrides_pasted_back_says_it_is_a_label() -> None:
    r = _quiet(lambda: evaluate_trec(QRELS, RUN, metrics=["RR@10"]))
    label = r.profile_of("RR@10")
    assert "," in label  # several overrides: trec_eval-c+score_dtype=...,ties=...
    with pytest.raises(ConfigError) as caught:
        evaluate_trec(QRELS, RUN, metrics=[f"{label}:RR@10"])
    text = str(caught.value)
    assert "label" in text, text
    assert "trec_eval-c" in text, text


def test_an_upper_case_profile_qualifier_keeps_the_key_and_names_the_profile() -> None:
    r = evaluate(L, S, qid=Q, metrics=["LightGBM:ndcg@3", "lightgbm:ndcg@3"])
    assert list(r.metrics) == ["LightGBM:ndcg@3", "lightgbm:ndcg@3"]
    assert r.profile_of("LightGBM:ndcg@3") == "lightgbm"


def test_a_key_with_blanks_asked_back_finds_the_stripped_key() -> None:
    r = evaluate(L, S, qid=Q, metrics=[" map "])
    assert list(r.metrics) == ["map"]
    assert r[" map "] == r["map"] == 0.75


def test_another_spelling_than_asked_is_a_key_error_listing_the_spellings() -> None:
    r = evaluate(L, S, qid=Q, metrics=["ndcg@3"])
    with pytest.raises(KeyError, match="ndcg@3"):
        r["NDCG@3"]
    assert r.get("NDCG@3") is None
    assert "NDCG@3" not in r


def test_cli_csv_keys_are_the_spellings_typed(tmp_path: Path) -> None:
    (tmp_path / "q.txt").write_bytes(QRELS_TXT)
    (tmp_path / "r.txt").write_bytes(RUN_TXT)
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics",
              "ndcg_cut.3,hit@3,NDCG@3,recip_rank", "--format", "csv")
    assert res.status == 0, res.err
    rows = list(csv.DictReader(io.StringIO(res.out)))
    assert [r["metric"] for r in rows] == ["ndcg_cut.3", "hit@3", "NDCG@3", "recip_rank"]


# ------------------------------------------------------------------- a run's metric names

def test_a_run_config_says_which_canonical_name_hit_becomes() -> None:
    from bench.benchmark.config import RunConfig

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        config = RunConfig.from_dict({"metrics": ["hit@3", "ndcg@10"]})
    assert config.metrics == ("hits@3", "ndcg@10")
    said = " ".join(str(w.message) for w in caught)
    assert "'hit@3'" in said, said
    assert "'hits@3'" in said, said


def test_a_run_config_says_two_spellings_are_one_column() -> None:
    from bench.benchmark.config import RunConfig

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        config = RunConfig.from_dict({"metrics": ["NDCG@10", "ndcg@10"]})
    assert config.metrics == ("ndcg@10",)
    said = " ".join(str(w.message) for w in caught)
    assert "'NDCG@10'" in said, said
    assert "one column" in said, said


def test_canonical_run_metrics_are_not_warned() -> None:
    from bench.benchmark.config import RunConfig

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        RunConfig.from_dict({"metrics": ["ndcg@1,3,5,10", "map@10", "mrr", "p@10"]})


@pytest.fixture(scope="module")
def tiny_run() -> tuple[Any, list[str]]:
    from bench.benchmark import run
    from bench.data.letor import LetorData, LetorSplits

    rng = np.random.default_rng(0)

    def split(nq: int, q0: int) -> LetorData:
        n = nq * 6
        return LetorData.build(rng.random((n, 3)), rng.integers(0, 3, n).astype(float),
                               qid=np.repeat(np.arange(q0, q0 + nq), 6))

    splits = LetorSplits(name="tiny", train=split(8, 0), vali=split(4, 100), test=split(4, 200))
    out = io.StringIO()
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(out):
        warnings.simplefilter("always")
        result = run("tiny", splits=splits, models=["random", "popularity"], seeds=[0, 1],
                     quick=True, metrics=["hit@3", "MAP", "ndcg@3"])  # popularity: skipped
    return result, [str(w.message) for w in caught] + [f"stdout: {out.getvalue()}"]


def test_a_run_names_in_its_tables_what_its_warning_said(tiny_run: tuple[Any, list[str]]) -> None:
    result, said = tiny_run
    columns = list(dict.fromkeys(result.to_frame().columns.get_level_values(0)))
    assert columns == ["hits@3", "map", "ndcg@3"]
    text = " ".join(said)
    for typed, canonical in (("hit@3", "hits@3"), ("MAP", "map")):
        assert f"'{typed}' is '{canonical}'" in text, text


def test_a_python_run_prints_nothing_on_stdout(tiny_run: tuple[Any, list[str]]) -> None:
    _, said = tiny_run
    assert said[-1] == "stdout: ", said[-1][:300]  # a program's own stdout stays its own


def test_a_run_per_query_table_has_stable_dtypes(tiny_run: tuple[Any, list[str]]) -> None:
    result, _ = tiny_run
    pq = result.per_query()
    assert set(pq["metric"]) == {"hits@3", "map", "ndcg@3"}
    again = result.per_query()
    assert pq.dtypes.to_dict() == again.dtypes.to_dict()
    assert pq["value"].dtype == np.float64
    assert pq["qid"].dtype == np.int64


def test_a_run_with_a_skipped_baseline_still_has_a_leaderboard(
        tiny_run: tuple[Any, list[str]]) -> None:
    result, _ = tiny_run  # popularity needs item ids: skipped in the run, with its reason
    board = result.leaderboard()
    assert list(board.index) == ["random"]
    assert list(board.columns[:3]) == ["hits@3", "map", "ndcg@3"]  # every metric of the run
    assert board.loc["random", "map"] == pytest.approx(
        result.to_frame().loc["random", ("map", "mean")], abs=1e-12)


def test_leaderboard_with_three_spellings_of_one_metric_is_refused_not_merged(
        tiny_run: tuple[Any, list[str]]) -> None:
    result, _ = tiny_run
    with pytest.raises(ConfigError) as caught:
        result.leaderboard(metrics=["hit@3", "hits@3", "HR@3"], primary="HR@3")
    text = str(caught.value)
    assert "'hit@3', 'hits@3', 'HR@3'" in text, text
    assert "once" in text, text


def test_leaderboard_metrics_as_one_text_are_split_as_every_metrics_text(
        tiny_run: tuple[Any, list[str]]) -> None:
    result, _ = tiny_run
    board = result.leaderboard(metrics="hit@3 map")  # primary: the first, as ltrbench report
    assert list(board.columns[:2]) == ["hit@3", "map"]
    assert board.loc["random", "hit@3"] == pytest.approx(
        result.to_frame().loc["random", ("hits@3", "mean")], abs=1e-12)


def test_leaderboard_look_alike_metric_names_the_character(
        tiny_run: tuple[Any, list[str]]) -> None:
    result, _ = tiny_run
    with pytest.raises(ConfigError, match="U\\+0430"):
        result.leaderboard(metrics=["m\u0430p"])


def test_leaderboard_primary_the_run_lacks_is_refused_in_the_spelling_given(
        tiny_run: tuple[Any, list[str]]) -> None:
    result, _ = tiny_run
    with pytest.raises(ConfigError) as caught:
        result.leaderboard(primary="ndcg@10")  # asked for: never replaced by another
    assert "'ndcg@10'" in str(caught.value)
    with pytest.raises(ConfigError) as caught:
        result.leaderboard(metrics=["ndcg@3"], primary="hit@3")
    assert "'hit@3'" in str(caught.value)
    assert "--primary" not in str(caught.value)


def test_a_report_of_a_run_without_ndcg10_is_parsed_back(tmp_path: Path,
                                                        tiny_run: tuple[Any, list[str]]) -> None:
    result, _ = tiny_run
    res = cli(tmp_path, "report", "--runs", str(result.run_dir), "--out", "o", "--no-plots")
    assert res.status == 0, res.err
    table = json.loads((tmp_path / "o" / "leaderboard.json").read_text())["tables"][0]
    assert table["metrics"] == ["hits@3", "map", "ndcg@3"]
    assert table["primary_metric"] == "hits@3"
    notes = " ".join(table["notes"])
    assert "popularity" in notes, notes
    assert "skipped" in notes, notes
    assert "ndcg@10" in notes, notes  # why the primary metric is another one
    rows = list(csv.DictReader(io.StringIO((tmp_path / "o" / "leaderboard.csv").read_text())))
    assert [r["model"] for r in rows] == ["random"]
    assert float(rows[0]["map_mean"]) == pytest.approx(
        result.to_frame().loc["random", ("map", "mean")], abs=1e-9)


def test_report_metrics_say_which_canonical_name_they_become(
        tmp_path: Path, tiny_run: tuple[Any, list[str]]) -> None:
    result, _ = tiny_run
    res = cli(tmp_path, "report", "--runs", str(result.run_dir), "--out", "o", "--no-plots",
              "--metrics", "hit@3,MAP")
    assert res.status == 0, res.err
    assert "'hit@3' is 'hits@3'" in res.err, res.err
    header = (tmp_path / "o" / "leaderboard.csv").read_text().splitlines()[0]
    assert "hits@3_mean" in header
    assert "map_mean" in header


# ------------------------------------------------------------------------------ containers

def test_a_pyarrow_table_is_read_as_its_dataframe() -> None:
    pa = pytest.importorskip("pyarrow")
    got = evaluate(pa.table({"qid": Q, "label": L, "score": S}), metrics="ndcg@3")
    assert got.metrics == evaluate(FRAME, metrics="ndcg@3").metrics
    assert got["ndcg@3"] == pytest.approx(NDCG3, abs=1e-15)


def test_a_pyarrow_record_batch_is_read_as_its_dataframe() -> None:
    pa = pytest.importorskip("pyarrow")
    batch = pa.record_batch({"query": ["a", "a", "a", "b", "b"], "rel": L, "pred": S})
    got = evaluate(batch, label="rel", score="pred", qid="query", metrics="ndcg@3")
    assert got["ndcg@3"] == pytest.approx(NDCG3, abs=1e-15)


def test_a_pyarrow_table_beside_a_scores_array_is_read_as_its_dataframe() -> None:
    pa = pytest.importorskip("pyarrow")
    got = evaluate(pa.table({"qid": Q, "label": L}), np.asarray(S), metrics="ndcg@3")
    assert got["ndcg@3"] == pytest.approx(NDCG3, abs=1e-15)


def test_a_null_label_in_a_pyarrow_table_is_named_missing_at_its_row() -> None:
    pa = pytest.importorskip("pyarrow")
    table = pa.table({"qid": Q, "label": pa.array([2, None, 1, 1, 0], pa.int64()), "score": S})
    with pytest.raises(DataError) as caught:
        evaluate(table, metrics="ndcg@3")
    text = str(caught.value)
    assert "row 2" in text, text
    assert "'label'" in text, text
    assert "missing" in text, text


@pytest.mark.parametrize("role", ["labels", "scores"])
def test_a_null_in_a_pyarrow_array_is_named_missing_not_nan(role: str) -> None:
    pa = pytest.importorskip("pyarrow")
    args = {"labels": list(L), "scores": list(S)}
    args[role][1] = None
    with pytest.raises(DataError) as caught:
        evaluate(pa.array(args["labels"]), pa.array(args["scores"]), qid=Q, metrics="ndcg@3")
    text = str(caught.value)
    assert "row 2" in text, text
    assert "missing" in text, text


def test_pyarrow_arrays_and_a_chunked_dictionary_table_give_the_frame_numbers() -> None:
    pa = pytest.importorskip("pyarrow")
    got = evaluate(pa.chunked_array([L[:2], L[2:]]), pa.array(S),
                   qid=pa.array(["a", "a", "a", "b", "b"]), metrics="ndcg@3", per_query=True)
    part = [pa.table({"qid": pa.array(q).dictionary_encode(), "label": lab, "score": sc})
            for q, lab, sc in ((["a", "a"], L[:2], S[:2]), (["a", "b", "b"], L[2:], S[2:]))]
    table = evaluate(pa.concat_tables(part, promote_options="permissive"), metrics="ndcg@3",
                     per_query=True)
    assert got.per_query["ndcg@3"].tolist() == table.per_query["ndcg@3"].tolist()
    assert got.per_query["qid"].tolist() == table.per_query["qid"].tolist() == ["a", "b"]
    assert got["ndcg@3"] == pytest.approx(NDCG3, abs=1e-15)


def test_a_numpy_structured_array_is_read_as_its_dataframe() -> None:
    rows = np.array(list(zip(Q, L, S, strict=True)),
                    dtype=[("qid", "i8"), ("label", "i8"), ("score", "f8")])
    assert evaluate(rows, metrics="ndcg@3")["ndcg@3"] == pytest.approx(NDCG3, abs=1e-15)


def test_a_multiindex_docno_level_sets_trec_eval_tie_order_as_pytrec_eval() -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels = {"q": {"a": 1, "b": 0, "c": 0}}
    run = {"q": {"a": 0.5, "b": 0.5, "c": 0.5}}  # all tied: docno descending puts a last
    want = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)["q"]["recip_rank"]
    frame = pd.DataFrame({"qid": ["q"] * 3, "docno": ["a", "b", "c"], "label": [1, 0, 0],
                          "score": [0.5] * 3}).set_index(["qid", "docno"])
    got = evaluate(frame, metrics="mrr", profile="trec_eval")["mrr"]
    assert got == pytest.approx(want, abs=1e-15) == pytest.approx(1 / 3)


def test_qid_as_the_index_equals_qid_as_a_column() -> None:
    got = evaluate(FRAME.set_index("qid"), metrics="ndcg@3", per_query=True)
    assert got.metrics == evaluate(FRAME, metrics="ndcg@3").metrics
    assert got.per_query["qid"].tolist() == [1, 2]


def test_categorical_qids_with_unused_categories_give_only_real_queries() -> None:
    frame = FRAME.assign(qid=pd.Categorical(["b", "b", "b", "a", "a"],
                                            categories=["z", "a", "b"]))
    got = evaluate(frame, metrics="ndcg@3", per_query=True)
    assert sorted(got.per_query["qid"].tolist()) == ["a", "b"]
    assert got["ndcg@3"] == pytest.approx(NDCG3, abs=1e-15)


def test_a_generator_of_rows_says_to_make_a_dataframe() -> None:
    with pytest.raises(ConfigError, match="DataFrame"):
        evaluate((row for row in zip(Q, L, S, strict=True)), metrics="ndcg@3")


def test_a_list_of_row_dicts_says_to_make_a_dataframe() -> None:
    rows = [{"qid": q, "label": lab, "score": s} for q, lab, s in zip(Q, L, S, strict=True)]
    with pytest.raises(ConfigError, match="DataFrame"):
        evaluate(rows, metrics="ndcg@3")


@pytest.mark.parametrize(("key", "words"), [((1, 2), ("(1, 2)", "tuple")),
                                            (None, ("None", "missing")),
                                            (float("nan"), ("nan", "missing")),
                                            (1.5, ("1.5", "not a whole number"))])
def test_dict_of_dicts_with_a_key_that_is_no_id_names_the_key(key: Any,
                                                               words: tuple[str, ...]) -> None:
    with pytest.raises(DataError) as caught:
        evaluate_trec({key: {"a": 1, "b": 0}}, {key: {"a": 0.1, "b": 0.9}}, metrics="P_1")
    assert all(w in str(caught.value) for w in words), str(caught.value)


def test_dict_of_dicts_with_a_whole_float_key_is_the_integer_it_holds() -> None:
    """Round 23b: one rule for float ids on every path (a whole float is its integer)."""
    as_float = evaluate_trec({7.0: {"a": 2, "b": 0}}, {7: {"a": 0.1, "b": 0.9}},
                             metrics="ndcg_cut_3")
    assert as_float.metrics == {"ndcg_cut_3": pytest.approx(1 / math.log2(3))}


def test_dict_of_dicts_with_int_keys_equals_string_keys() -> None:
    as_int = evaluate_trec({7: {1: 2, 2: 0}}, {7: {1: 0.1, 2: 0.9}}, metrics="ndcg_cut_3")
    as_str = evaluate_trec({"7": {"1": 2, "2": 0}}, {"7": {"1": 0.1, "2": 0.9}},
                           metrics="ndcg_cut_3")
    assert as_int.metrics == as_str.metrics == {"ndcg_cut_3": pytest.approx(1 / math.log2(3))}


def test_a_sparse_score_column_says_how_to_densify() -> None:
    sparse = pytest.importorskip("scipy.sparse")
    with pytest.raises(DataError, match=r"toarray\(\)"):
        evaluate(L, sparse.csr_matrix(np.asarray(S).reshape(-1, 1)), qid=Q, metrics="ndcg@3")


def test_polars_frame_if_installed() -> None:
    pl = pytest.importorskip("polars", reason="polars is not installed here")
    frame = pl.DataFrame({"qid": Q, "label": L, "score": S})
    try:
        got = evaluate(frame, metrics="ndcg@3")["ndcg@3"]
    except LtrbenchError as exc:
        got = str(exc)  # refused: it must say how to convert
    assert got == pytest.approx(NDCG3, abs=1e-15) or "to_pandas" in str(got), got


def test_xarray_dataset_if_installed() -> None:
    xr = pytest.importorskip("xarray", reason="xarray is not installed here")
    ds = xr.Dataset({"label": ("row", L), "score": ("row", S), "qid": ("row", Q)})
    with pytest.raises(LtrbenchError):
        evaluate(ds, metrics="ndcg@3")


# ------------------------------------------------------------ return values parsed in code

def test_means_are_python_floats_and_json_has_null_for_nan() -> None:
    r = evaluate([0, 0, 1, 0], [1, 2, 3, 4], qid=[1, 1, 2, 2], metrics=["ndcg@3", "num_q"])
    assert all(type(v) is float for v in r.metrics.values())
    r2 = evaluate([0, 0], [1, 2], qid=[1, 1], metrics=["ndcg@3"])  # no query has a value
    assert math.isnan(r2["ndcg@3"])
    doc = json.loads(json.dumps(r2.as_dict(), allow_nan=False))
    assert doc["metrics"] == {"ndcg@3": None}


def test_per_query_dtypes_are_the_same_between_calls_on_other_data() -> None:
    a = evaluate(L, S, qid=Q, metrics=["ndcg@3", "map"], per_query=True).per_query
    b = evaluate([1, 0, 0], [0.1, 0.2, 0.3], qid=[5, 5, 5], metrics=["ndcg@3", "map"],
                 per_query=True).per_query
    assert a.dtypes.to_dict() == b.dtypes.to_dict()
    assert list(a.columns) == list(b.columns) == ["qid", "ndcg@3", "map"]


def test_a_frame_and_its_arrays_give_the_same_per_query_dtypes() -> None:
    a = evaluate(L, S, qid=Q, metrics="ndcg@3", per_query=True).per_query
    b = evaluate(FRAME, metrics="ndcg@3", per_query=True).per_query
    pd.testing.assert_frame_equal(a, b)


def test_a_comparison_of_a_pyarrow_run_equals_the_dict_run() -> None:
    pa = pytest.importorskip("pyarrow")
    from bench.report.compare_runs import compare_runs

    rows = [(q, d, s) for q, docs in RUN.items() for d, s in docs.items()]
    table = pa.table({"qid": [r[0] for r in rows], "docno": [r[1] for r in rows],
                      "score": [r[2] for r in rows]})
    other = {q: {d: -s for d, s in docs.items()} for q, docs in RUN.items()}
    judged = {q: v for q, v in QRELS.items() if q in RUN}
    got = compare_runs(judged, {"a": table, "b": other}, metrics="map").to_frame()
    want = compare_runs(judged, {"a": RUN, "b": other}, metrics="map").to_frame()
    assert got[["run", "map"]].values.tolist() == want[["run", "map"]].values.tolist()


def test_diagnostics_are_strict_json() -> None:
    r = evaluate([0, 0, 1, 0], [1, 2, 3, 4], qid=[1, 1, 2, 2], metrics=["ndcg@3", "map"])
    json.dumps(r.as_dict(), allow_nan=False)


def test_cli_json_stdout_parses_with_a_warning_on_stderr(tmp_path: Path) -> None:
    (tmp_path / "q.txt").write_bytes(QRELS_TXT)  # query 3 has no run line: a warning
    (tmp_path / "r.txt").write_bytes(RUN_TXT)
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics",
              "map,nDCG@3", "--format", "json")
    assert res.status == 0, res.err
    doc = json.loads(res.out)
    assert set(doc["metrics"]) == {"map", "nDCG@3"}
    assert doc["metric_profiles"] == {"map": "trec_eval", "nDCG@3": "trec_eval-c"}
    assert "no run line" in res.err
    assert "no run line" not in res.out


def test_cli_unknown_metric_exits_2_with_one_error_line(tmp_path: Path) -> None:
    (tmp_path / "q.txt").write_bytes(QRELS_TXT)
    (tmp_path / "r.txt").write_bytes(RUN_TXT)
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics",
              "hitrate@3", "--format", "json")
    assert res.status == 2
    assert res.out == ""
    assert "hitrate@3" in res.err
    assert "Traceback" not in res.err


# ---------------------------------------------------------------------------------- threads

def test_two_threads_evaluating_at_once_get_their_own_results() -> None:
    rng = np.random.default_rng(1)
    inputs = []
    for n, q, metrics, profile in ((300, 15, ["ndcg@5", "trec_eval:map"], None),
                                   (200, 20, ["mrr", "lightgbm:ndcg@3"], "trec_eval")):
        args = (rng.integers(0, 3, n), rng.random(n), np.repeat(np.arange(q), n // q))
        want = evaluate(args[0], args[1], qid=args[2], metrics=metrics, profile=profile,
                        per_query=True)
        inputs.append((args, metrics, profile, want))
    wrong: list[Any] = []

    def work(args: Any, metrics: list[str], profile: str | None, want: Any) -> None:
        for _ in range(15):
            got = evaluate(args[0], args[1], qid=args[2], metrics=metrics, profile=profile,
                           per_query=True)
            if got != want:
                wrong.append(got.metrics)

    threads = [threading.Thread(target=work, args=i) for i in inputs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not wrong


def test_two_threads_with_different_qrels_do_not_mix_ids() -> None:
    wrong: list[Any] = []

    def work(qrels: dict[str, Any], run: dict[str, Any], want: float) -> None:
        for _ in range(30):
            got = _quiet(lambda: evaluate_trec(qrels, run, metrics=["P_1", "nDCG@2"]))
            if got["P_1"] != want:
                wrong.append(got.metrics)

    threads = [threading.Thread(target=work, args=({"q": {"a": 1, "b": 0}},
                                                   {"q": {"a": 0.3, "b": 0.2}}, 1.0)),
               threading.Thread(target=work, args=({"x": {"a": 0, "b": 1}},
                                                   {"x": {"a": 0.3, "b": 0.2}}, 0.0))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not wrong


def test_warnings_as_errors_refuse_before_the_per_query_file(tmp_path: Path) -> None:
    from bench import cli as bench_cli

    (tmp_path / "q.txt").write_bytes(QRELS_TXT)
    (tmp_path / "r.txt").write_bytes(RUN_TXT)
    out = tmp_path / "pq.csv"
    err = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stderr(err), \
            contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("error")  # python -W error
        status = bench_cli.main(["evaluate", "--qrels", str(tmp_path / "q.txt"), "--run",
                                 str(tmp_path / "r.txt"), "--metrics", "map",
                                 "--per-query", str(out)])
    assert status == 2
    assert "error:" in err.getvalue()
    assert "Traceback" not in err.getvalue()
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name not in ("q.txt", "r.txt")]


def test_warnings_as_errors_in_the_api_raise_the_named_warning() -> None:
    from bench.metrics.missing import MissingQueriesWarning

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(MissingQueriesWarning, match="no run line"):
            evaluate_trec(QRELS, RUN, metrics="map")
