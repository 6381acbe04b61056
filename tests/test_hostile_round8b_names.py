"""Round 8b of the hostile catalogue: a metric's printed name parses back (issue 19 item 2).

Every key an evaluation prints (:attr:`EvaluationResult.metrics`, the per-query columns, the
``metric,value,profile`` rows and the JSON of ``ltrbench evaluate``) with the profile printed
beside it, given back as ``evaluate_trec(metrics=key, profile=that profile)``, must be the same
measure under the same profile and give the same number; a result's profile label with
overrides (``trec_eval-c+relevance_threshold=2.0``) parses back through its base profile, the
override living in the name (``P(rel=2)@5``). Oracles: the round trip itself, pytrec_eval,
ir_measures and hand arithmetic. Found and fixed in this round:

* ``gm_map`` under a profile whose AP is divided by the hits in the top k (``torchmetrics``,
  ``catalyst``): a ``KeyError: 'hits'`` traceback (``map`` had the component, ``gm_map`` not);
* a :class:`Profile` object keeping a registered name with other fields
  (``replace(get_profile("trec_eval"), missing="zero")``) was printed as ``trec_eval`` beside
  ``trec_eval -c`` numbers: now labelled by what it computes (``trec_eval-c``, else
  ``trec_eval+judged_only=True``);
* the per-query table of three or more profile groups scoring different queries held a query
  once per group (``P(rel=2)@5``, ``trec_eval-c:P_5`` and ``map``: six rows for three queries);
* ``rbp(nan)``, ``rprec_mult(-1)``, ``alpha_ndcg(nan)@5`` were refused with ir_measures'
  grammar only ("parameters are named, Name(p=v)@k"): now as the ltrbench name they are.

:data:`CLASSES` maps each test to its class for the closing counts.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hostile_kit import cli
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.errors import ConfigError, DataError
from bench.metrics import PROFILES, evaluate_trec, get_profile

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")
pytrec_eval = pytest.importorskip("pytrec_eval")
ir_measures = pytest.importorskip("ir_measures")

CLASSES = {
    "test_every_printed_key_parses_back_to_its_number": "silently wrong",
    "test_explicit_keys_parse_back_under_every_profile": "silently wrong",
    "test_gm_map_under_a_hits_denominator_profile_is_its_geometric_map": "traceback",
    "test_a_modified_profile_object_is_labelled_by_what_it_computes": "silently wrong",
    "test_a_modified_profile_label_is_refused_as_a_profile_naming_its_base": "unclear error",
    "test_per_query_table_of_three_profile_groups_has_one_row_per_query": "silently wrong",
    "test_cli_rows_parse_back_to_their_numbers": "silently wrong",
    "test_a_bad_parameter_of_an_ltrbench_name_is_refused_as_that_name": "unclear error",
    "test_spellings_of_one_measure_are_one_column_each_on_every_path": "silently wrong",
}

#: Graded qrels; query 4 has no run line, run query 5 has no qrels, query 3 has a tie.
QRELS: dict[str, dict[str, int]] = {
    "1": {"a": 2, "b": 0, "c": 1, "d": 1}, "2": {"x": 1, "y": 0}, "3": {"p": 1, "q": 3},
    "4": {"m": 1},
}
RUN: dict[str, dict[str, float]] = {
    "1": {"a": 0.3, "b": 0.9, "c": 0.5, "e": 0.1}, "2": {"y": 2.0, "x": 1.0, "z": 0.5},
    "3": {"q": 1.0, "p": 1.0}, "5": {"k": 1.0},
}
BINARY: dict[str, dict[str, int]] = {q: {d: int(r > 0) for d, r in docs.items()}
                                     for q, docs in QRELS.items()}

#: Representative names of every family and grammar: cutoffs, parameters, qualifiers, lists.
NAMES = [
    "ndcg@10", "dcg@3", "map", "map@5", "mrr", "p@5", "recall@3", "err@5", "hits@2", "rprec",
    "bpref", "set_p", "set_f", "num_q", "num_ret", "num_rel_ret", "set_map", "gm_map", "f1@3",
    "fallout@5", "rprec_mult(0.5)", "iprec_at_recall(0.5)", "rbp(0.5)@10", "rbp",
    "rbp_residual(0.9)@5", "ncrr@5", "infap", "auc", "gauc", "arp", "opa",
    "ndcg_cut_10", "P_5", "map_cut.5,10", "recall_10", "success_1", "Rprec_mult_0.20",
    "iprec_at_recall_0.20", "recip_rank", "Rprec", "set_P", "infAP",
    "nDCG@10", "AP", "RR", "P(rel=2)@5", "nDCG(gains={0:0,1:1,2:3})@10",
    "AP(judged_only=True)", "nDCG(dcg='exp-log2')@5", "Success@3", "SetP", "RBP(p=0.5)",
    "ERR@5", "Judged@5", "trec_eval-c:P_5", "lightgbm:ndcg@10", "trec_eval:map",
    "ranx:hit_rate@3", "ndcg@1,3",
]


def _base(label: str) -> str:
    """A result's profile label without its overrides (``trec_eval-c+gain=table``)."""
    return label.partition("+")[0]


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def _evaluate(metrics: Any, profile: Any = None, **kw: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate_trec(QRELS, RUN, metrics=metrics, profile=profile, **kw)


def _round_trip(name: str, profile: str | None) -> list[str]:
    """The keys of ``name`` under ``profile`` that do not parse back (empty: all do)."""
    try:
        first = _evaluate(name, profile, per_query=True)
    except (ConfigError, DataError):
        return []  # refused with a clear error: nothing was printed
    bad = []
    assert list(first.per_query.columns[1:]) == list(first.metrics), name
    assert first.per_query["qid"].is_unique, name
    for key, value in first.metrics.items():
        label = first.profile_of(key)
        again = _evaluate(key, _base(label))
        ((key2, value2),) = again.metrics.items()
        if key2 != key or again.profile_of(key2) != label or not _same(value, value2):
            bad.append(f"{key!r} under {profile}: {value} ({label}) -> {value2} "
                       f"({again.profile_of(key2)})")
    return bad


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(NAMES), profile=st.sampled_from([None, *PROFILES]))
def test_every_printed_key_parses_back_to_its_number(name: str, profile: str | None) -> None:
    assert _round_trip(name, profile) == []


EXPLICIT = ["gm_map", "map", "P(rel=2)@5", "nDCG(gains={0:0,1:1,2:3})@10",
            "AP(judged_only=True)", "trec_eval-c:P_5", "lightgbm:ndcg@10", "rbp(0.5)",
            "rprec_mult(0.5)", "Judged@5"]


@pytest.mark.parametrize("profile", ["trec_eval", "trec_eval-c", "torchmetrics", "catalyst",
                                     "ranx", "lightgbm", None])
def test_explicit_keys_parse_back_under_every_profile(profile: str | None) -> None:
    bad = [b for n in EXPLICIT for b in _round_trip(n, profile)]
    assert bad == []


def test_the_round_trip_names_are_evaluated_not_refused() -> None:
    """:func:`_round_trip` passes a refused name (nothing was printed), so without this a change
    that refused every name would pass the round trips above: each name keeps its own tool's
    profile when the call gives none, and is evaluated."""
    for name in EXPLICIT:
        assert _evaluate(name).metrics, name


@pytest.mark.parametrize("profile", ["torchmetrics", "catalyst", "catalyst-linear"])
def test_gm_map_under_a_hits_denominator_profile_is_its_geometric_map(profile: str) -> None:
    # AP divided by the hits in the top k: query 1 ranks b (0), a (1): AP = (1/2) / 1 = 0.5;
    # query 2: 1.0. gm_map = exp((log 0.5 + log 1) / 2) = sqrt(0.5); map = 0.75.
    q = {"1": {"a": 1, "b": 0, "c": 1}, "2": {"x": 1}}
    r = {"1": {"a": 0.3, "b": 0.9}, "2": {"x": 1.0}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = evaluate_trec(q, r, metrics="gm_map map", profile=profile)
    assert res["gm_map"] == pytest.approx(math.sqrt(0.5), abs=1e-12)
    assert res["map"] == pytest.approx(0.75, abs=1e-12)


def test_a_modified_profile_object_is_labelled_by_what_it_computes() -> None:
    minus_c = replace(get_profile("trec_eval"), missing="zero")
    res = _evaluate("map P_5", minus_c, per_query=True)
    assert res.profile.name == "trec_eval-c"
    assert {res.profile_of(k) for k in res.metrics} == {"trec_eval-c"}
    oracle = ir_measures.calc_aggregate([ir_measures.AP, ir_measures.P @ 5], BINARY, RUN)
    assert res["map"] == pytest.approx(oracle[ir_measures.AP], abs=1e-12)
    assert res["P_5"] == pytest.approx(oracle[ir_measures.P @ 5], abs=1e-12)
    judged = _evaluate("map", replace(get_profile("trec_eval"), judged_only=True))
    assert judged.profile_of("map") == "trec_eval+judged_only=True"
    ev = pytrec_eval.RelevanceEvaluator(QRELS, {"map"}, judged_docs_only_flag=True)
    per_q = [v["map"] for v in ev.evaluate(RUN).values()]
    assert judged["map"] == pytest.approx(sum(per_q) / len(per_q), abs=1e-12)
    plain = _evaluate("map", replace(get_profile("trec_eval"), description="mine"))
    assert plain.profile_of("map") == "trec_eval"  # the same fields: the registered profile


def test_a_modified_profile_label_is_refused_as_a_profile_naming_its_base() -> None:
    label = _evaluate("map", replace(get_profile("trec_eval"), judged_only=True)).profile_of("map")
    with pytest.raises(ConfigError, match="'trec_eval'"):
        get_profile(label)


@pytest.mark.parametrize("metrics", [
    ["P(rel=2)@5", "trec_eval-c:P_5", "map"],
    ["P(rel=2)@5", "nDCG(gains={0:0,1:1,2:3})@10", "AP(judged_only=True)", "map"],
    ["trec_eval-c:P_5", "lightgbm:ndcg@10", "map", "Judged@5"],
])
def test_per_query_table_of_three_profile_groups_has_one_row_per_query(metrics: list[str]
                                                                       ) -> None:
    res = _evaluate(metrics, per_query=True)
    table = res.per_query
    assert table["qid"].tolist() == ["1", "2", "3", "4"]
    ev = pytrec_eval.RelevanceEvaluator(QRELS, {"map"}).evaluate(RUN)
    got = dict(zip(table["qid"], table["map"], strict=True))
    for q, v in ev.items():
        assert got[q] == pytest.approx(v["map"], abs=1e-12)
    assert math.isnan(got["4"])  # map (trec_eval) does not score the query without a run line


def _write(folder: Path) -> tuple[str, str]:
    q = "".join(f"{qid} 0 {d} {r}\n" for qid, docs in QRELS.items() for d, r in docs.items())
    r = "".join(f"{qid} Q0 {d} 0 {s} t\n" for qid, docs in RUN.items() for d, s in docs.items())
    (folder / "q.txt").write_text(q)
    (folder / "r.txt").write_text(r)
    return str(folder / "q.txt"), str(folder / "r.txt")


def test_cli_rows_parse_back_to_their_numbers(tmp_path: Path) -> None:
    q, r = _write(tmp_path)
    names = ["P(rel=2)@5", "nDCG(gains={0:0,1:1,2:3})@10", "trec_eval-c:P_5",
             "lightgbm:ndcg@10", "rbp(0.5)", "rprec_mult(0.5)", "gm_map", "num_q", "AP"]
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--metrics", *names,
              "--format", "csv", "--per-query", str(tmp_path / "pq.csv"))
    assert res.status == 0, res.err
    rows = list(csv.DictReader(io.StringIO(res.out)))
    assert [row["metric"] for row in rows] == names
    for row in rows:
        again = evaluate_trec(q, r, metrics=row["metric"], profile=_base(row["profile"]))
        assert again.profile_of(row["metric"]) == row["profile"]
        assert float(row["value"]) == pytest.approx(again[row["metric"]], rel=1e-15)
    per_q = list(csv.DictReader((tmp_path / "pq.csv").open()))
    assert [p["qid"] for p in per_q] == ["1", "2", "3", "4"]  # one row per query
    js = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--metrics", *names,
             "--format", "json")
    doc = json.loads(js.out)
    for key, value in doc["metrics"].items():
        again = evaluate_trec(q, r, metrics=key, profile=_base(doc["metric_profiles"][key]))
        assert value == pytest.approx(again[key], rel=1e-15)


@pytest.mark.parametrize(("name", "family"), [
    ("rbp(nan)", "rbp(p)"), ("rbp(inf)", "rbp(p)"), ("rbp(1e-400)", "rbp(p)"),
    ("rprec_mult(-1)", "rprec_mult(x)"), ("rprec_mult(1e308)", "rprec_mult(x)"),
    ("alpha_ndcg(nan)@5", "alpha_ndcg(alpha)"), ("RBP(nan)", "rbp(p)"),
])
def test_a_bad_parameter_of_an_ltrbench_name_is_refused_as_that_name(name: str,
                                                                       family: str) -> None:
    with pytest.raises(ConfigError, match=rf"parameter of {re.escape(family)} is a number"):
        _evaluate(name)


def test_spellings_of_one_measure_are_one_column_each_on_every_path() -> None:
    import numpy as np

    from bench.metrics import evaluate

    names = ["map", "AP", "trec_eval:map", "MAP", "ap"]
    res = _evaluate(names, per_query=True)
    assert list(res.metrics) == names
    assert list(res.per_query.columns) == ["qid", *names]
    assert res.profile_of("AP") == "trec_eval-c"  # its own profile: scores query 4 as 0
    ap = pytrec_eval.RelevanceEvaluator(QRELS, {"map"}).evaluate(RUN)
    assert res["map"] == pytest.approx(sum(v["map"] for v in ap.values()) / 3, abs=1e-12)
    assert res["AP"] == pytest.approx(sum(v["map"] for v in ap.values()) / 4, abs=1e-12)
    rows = evaluate(np.array([1, 0, 1]), np.array([0.3, 0.2, 0.1]), qid=np.array([1, 1, 2]),
                    metrics=["map", "ap", "MAP", "ltrbench:map"], per_query=True)
    assert list(rows.per_query.columns) == ["qid", "map", "ap", "MAP", "ltrbench:map"]
    assert set(rows.metrics.values()) == {1.0}
