"""Round 8 of the hostile catalogue: metric names, and names against the call's profile and
options (issue 19, item 2). New instances beyond rounds 5 to 7:

1. **A parameter given twice** (``AP(rel=2,rel=3)``): Python's ``ast`` keeps both keywords
   and ir_measures takes the last, silently; ltrbench did the same. Now refused.
2. **A name that states what an option sets**: ``P(rel=1)@5`` beside ``--relevance-level 2``
   printed the rel=2 value under the key ``P(rel=1)@5`` (ir_measures: 0.295, ltrbench 0.215);
   ``P(rel=3)@5`` beside it took rel=3 silently. Now refused, naming both (the option and the
   name agree: accepted).
3. **A recommender library's own spelling**: RecBole's ``Hit@10`` (its hit rate,
   ``recbole/evaluator/metrics.py`` ``Hit``) was an unknown metric under ``--profile
   recbole``; now the hit rate.
4. Guards (right before, kept right): odd cutoffs in every grammar (``@0``, ``@-1``, ``@1e3``,
   ``@10.0``, unicode digits, blanks inside a name), case and duplicates that parse to one
   measure (each its own key, one value), the API's keys the user's spellings.

:data:`CLASSES` maps each test to its class for the closing counts.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hostile_kit import api_refused, call, cli, close, csv_values, refused

from bench.metrics import evaluate, evaluate_trec
from bench.metrics.names import parse_metrics

ir_measures = pytest.importorskip("ir_measures")

CLASSES = {
    "test_an_ir_measures_parameter_given_twice_is_refused": "silent accept",
    "test_a_name_stating_another_relevance_level_than_the_option_is_refused":
        "silently wrong",
    "test_a_name_that_agrees_with_the_option_is_its_value": "silently wrong",
    "test_recboles_hit_at_k_is_the_hit_rate": "unclear error",
    "test_odd_cutoffs_are_refused_in_every_grammar": "silent accept",
    "test_spellings_of_one_measure_are_keys_of_one_value": "silently wrong",
    "test_the_api_keys_are_the_users_spellings": "silently wrong",
}

QRELS = ("1 0 a 2\n1 0 b 0\n1 0 c 1\n1 0 e 3\n2 0 x 1\n2 0 y 2\n3 0 p 1\n3 0 q 3\n")
RUN = ("1 Q0 a 1 1.0 r\n1 Q0 b 2 0.9 r\n1 Q0 c 3 0.8 r\n1 Q0 u 4 0.7 r\n1 Q0 e 5 0.1 r\n"
       "2 Q0 y 1 2.0 r\n2 Q0 z 2 1.0 r\n2 Q0 x 3 0.5 r\n3 Q0 w 1 3.0 r\n3 Q0 q 2 2.0 r\n")


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r.txt").write_text(RUN)
    return str(tmp_path / "q.txt"), str(tmp_path / "r.txt")


def _ir(qrels: str, run: str, name: str) -> float:
    m = ir_measures.parse_measure(name)
    return float(ir_measures.calc_aggregate([m], list(ir_measures.read_trec_qrels(qrels)),
                                            list(ir_measures.read_trec_run(run)))[m])


@pytest.mark.parametrize("name", ["AP(rel=2,rel=3)", "P(rel=2,judged_only=True,rel=2)@5",
                                  "nDCG(judged_only=True,judged_only=False)@10"])
def test_an_ir_measures_parameter_given_twice_is_refused(name: str) -> None:
    _, exc = call(lambda: parse_metrics(name))
    assert api_refused(exc, "twice") is None


@pytest.mark.parametrize(("name", "level"), [("P(rel=1)@5", "2"), ("P(rel=3)@5", "2"),
                                             ("AP(rel=1)", "3"), ("R(rel=2)@10", "1")])
def test_a_name_stating_another_relevance_level_than_the_option_is_refused(
        tmp_path: Path, files: tuple[str, str], name: str, level: str) -> None:
    q, r = files
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--profile", "trec_eval-c",
              "--relevance-level", level, "--metrics", name, "--format", "csv")
    if res.status == 0:  # acceptable only when the printed value is the name's own (ir_measures)
        got = csv_values(res).get(name)
        assert close(got, _ir(q, r, name), 1e-12), f"{name} printed {got}, ir_measures " \
            f"{_ir(q, r, name)}"
    else:
        assert refused(res, name, "rel=") is None, res.err


def test_a_name_that_agrees_with_the_option_is_its_value(tmp_path: Path,
                                                         files: tuple[str, str]) -> None:
    q, r = files
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--profile", "trec_eval-c",
              "--relevance-level", "2", "--metrics", "P(rel=2)@5", "P@5", "--format", "csv")
    assert res.status == 0, res.err
    got = csv_values(res)
    assert close(got["P(rel=2)@5"], _ir(q, r, "P(rel=2)@5"), 1e-12)
    assert close(got["P@5"], _ir(q, r, "P(rel=2)@5"), 1e-12)  # the option's level
    assert "relevance_threshold=2.0+relevance_threshold" not in res.out
    # with a PROFILE: qualifier the name keeps its own profile whatever the options, and the
    # command says so (round 15: alone, the option would change no metric, and is refused)
    own = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--relevance-level", "2",
              "--metrics", "trec_eval-c:P(rel=1)@5", "P@5", "--format", "csv")
    assert own.status == 0, own.err
    assert close(csv_values(own)["trec_eval-c:P(rel=1)@5"], _ir(q, r, "P@5"), 1e-12)
    assert "does not reach trec_eval-c:P(rel=1)@5" in own.err
    alone = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--relevance-level", "2",
                "--metrics", "trec_eval-c:P(rel=1)@5", "--format", "csv")
    assert refused(alone, "--relevance-level 2", "trec_eval-c:P(rel=1)@5") is None, alone.err


def test_recboles_hit_at_k_is_the_hit_rate() -> None:
    """RecBole Hit@k (metrics.py, Hit: ``np.cumsum(pos_index) > 0`` averaged over users): user 1
    hits at rank 2, user 2 at rank 3, user 3 has no ranking (RecBole scores every test user: 0).
    Hit@1 = 0/3, Hit@2 = 1/3, Hit@10 = 2/3."""
    qrels = {"1": {"a": 1, "b": 1}, "2": {"x": 1}, "3": {"z": 1}}
    run = {"1": {"c": 2.0, "a": 1.0, "d": 0.5}, "2": {"y": 1.0, "z": 0.7, "x": 0.5}}
    res, exc = call(lambda: evaluate_trec(qrels, run, metrics=["Hit@1", "Hit@2", "Hit@10"],
                                          profile="recbole"))
    assert exc is None, exc
    assert res.metrics == pytest.approx({"Hit@1": 0.0, "Hit@2": 1 / 3, "Hit@10": 2 / 3})


@pytest.mark.parametrize("name", [
    "ndcg@0", "nDCG@0", "ndcg_cut_0", "P.0", "Success@0", "ndcg@-1", "nDCG@-1", "ndcg_cut_-1",
    "ndcg@1e3", "nDCG@1e3", "ndcg_cut_1e3", "ndcg@10.0", "nDCG@10.0", "ndcg_cut.10.0",
    "ndcg@\u0663", "ndcg@\uff13", "nDCG@\u0661\u0660", "ndcg @10", "nDCG@ 10",
    "ndcg@+10", "nDCG@1_0", "nDCG@0x10", "ndcg@2147483648", "recall@10@5", "NDCG@K",
    "ndcg\u00a0@10", "ranx:ranx:ndcg@10", "ndcg@10)", "nDCG(@10", "IPrec@1.5", "P(rel=1.0)@5",
])
def test_odd_cutoffs_are_refused_in_every_grammar(tmp_path: Path, files: tuple[str, str],
                                                  name: str) -> None:
    q, r = files
    _, exc = call(lambda: parse_metrics(name))
    assert api_refused(exc) is None, name
    res = cli(tmp_path, "evaluate", "--qrels", q, "--run", r, "--metrics", name)
    assert refused(res) is None, (name, res.err)


def test_spellings_of_one_measure_are_keys_of_one_value(files: tuple[str, str]) -> None:
    """Every qrels query has a run line here, so trec_eval and ir_measures agree: each spelling
    is its own key, all with pytrec_eval's value."""
    q, r = files
    names = ["ndcg@10", "NDCG@10", "Ndcg@10", "ndcg_cut_10", "ndcg_cut.10", "ndcg_cut_010",
             "nDCG@10", "nDCG@010", "nDCG()@10", "ndcg@5"]  # a name twice: refused
    res = evaluate_trec(q, r, metrics=names)
    want = _ir(q, r, "nDCG@10")
    keys = ["ndcg@10", "NDCG@10", "Ndcg@10", "ndcg_cut_10", "ndcg_cut.10", "ndcg_cut_010",
            "nDCG@10", "nDCG@010", "nDCG()@10", "ndcg@5"]
    assert list(res.metrics) == keys
    for k in keys:
        if k != "ndcg@5":
            assert res[k] == pytest.approx(want, abs=1e-12), k
    assert res["ndcg@5"] == pytest.approx(_ir(q, r, "nDCG@5"), abs=1e-12)


def test_the_api_keys_are_the_users_spellings() -> None:
    """evaluate() over arrays: keys as spelled, values by hand. Query 1 labels (2, 0, 1) scored
    (0.9, 0.8, 0.1): RR 1, P@2 1/2; query 2 labels (0, 1) scored (0.9, 0.3): RR 1/2, P@2 1/2."""
    y = np.array([2.0, 0, 1, 0, 1])
    s = np.array([0.9, 0.8, 0.1, 0.9, 0.3])
    res = evaluate(y, s, group=[3, 2], metrics="recip_rank RR MRR precision@2 P@2 Hit@1")
    assert list(res.metrics) == ["recip_rank", "RR", "MRR", "precision@2", "P@2", "Hit@1"]
    assert res["recip_rank"] == res["RR"] == res["MRR"] == pytest.approx(0.75)
    assert res["precision@2"] == res["P@2"] == pytest.approx(0.5)
    assert res["Hit@1"] == pytest.approx(0.5)
    assert res[" recip_rank "] == res["recip_rank"]
