"""Round 7 of the hostile catalogue: ``ltrbench evaluate``'s options and names added by issue 23
(``--relevance-level``, ``--run-depth``, ``--judged-only``, the ``msmarco`` profile, the new
measures), as a user and as an attacker would try them. Oracles: pytrec_eval and ir_measures
(per query, then averaged), hand arithmetic.

1. **The relevance level** (``--relevance-level`` / ``Profile.relevance_threshold``): ``nan``,
   ``inf``, ``1e309`` were accepted and made every document irrelevant (``label >= nan`` is
   false: map 0, P 0, RR 0, exit 0); a negative level was taken as 0, where trec_eval counts a
   retrieved unjudged document (its -1, ``form_res_rels.c``) as relevant; in Python a text level (``"1"``) or ``None`` ended in
   NumPy's ``UFuncTypeError`` / ``TypeError``, and ``True`` was taken as 1. Now the command
   line refuses a level that is not a finite number (exit 2, one line) and every evaluation
   refuses such a profile (ConfigError naming the field).
2. **A profile that is the tool's own**: ``--profile msmarco --metrics RR@10`` was refused
   ("ir_measures computes it as profile 'trec_eval-c' does"), though ``msmarco`` is, field for
   field, the convention ir_measures' MS MARCO provider computes RR@k with (``trec_eval-c`` with
   float64 scores and ascending document-id ties): the call's profile is accepted when it equals
   the name's own, and the refusal of another profile names the overrides
   (``with score_dtype='float64', ties='docno_asc'``) rather than a profile that is not the one.
3. Values that were right and stay right (kept as guards): the new measures under the options
   against pytrec_eval, duplicates refused, a level given twice refused.

:data:`CLASSES` maps each test to its class for the closing counts.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from pathlib import Path
from typing import Any

import pytest
from hostile_kit import api_refused, call, cli, close, csv_values, refused

from bench.errors import ConfigError
from bench.metrics import evaluate, evaluate_trec, get_profile

pytrec_eval = pytest.importorskip("pytrec_eval")
ir_measures = pytest.importorskip("ir_measures")

CLASSES = {
    "test_a_relevance_level_that_is_not_a_finite_number_is_refused_on_the_command_line":
        "silently wrong",
    "test_a_profile_whose_relevance_threshold_is_not_a_finite_number_is_refused": "traceback",
    "test_the_msmarco_profile_computes_ir_measures_rr_at_k_as_the_provider_does":
        "unclear error",
    "test_another_profile_for_rr_at_k_names_the_overrides_it_differs_by": "unclear error",
    "test_the_relevance_level_equals_pytrec_eval_per_measure": "silently wrong",
    "test_a_duplicate_document_or_judgment_and_a_level_twice_are_refused": "silent accept",
    "test_judged_only_equals_ir_measures_judged_only_measures": "silently wrong",
}

QRELS = ("1 0 a 2\n1 0 b 0\n1 0 c 1\n1 0 d 0\n"
         "2 0 x 0\n2 0 y 0\n"
         "3 0 p 1\n3 0 q 1\n"
         "4 0 m 3\n4 0 k 1\n")
RUN = ("1 Q0 a 1 1.0 r\n1 Q0 b 2 1.0 r\n1 Q0 z 3 0.5 r\n1 Q0 c 4 0.2 r\n1 Q0 d 5 0.1 r\n"
       "2 Q0 x 1 2.0 r\n2 Q0 y 2 1.0 r\n"
       "3 Q0 u 1 3.0 r\n3 Q0 p 2 2.0 r\n"
       "4 Q0 n 1 1 r\n4 Q0 m 2 0.5 r\n4 Q0 k 3 0.25 r\n")
# a tie between a relevant document and a non-relevant one: descending document ids put b
# first (trec_eval, ir_measures' RR), ascending ones a (ir_measures' MS MARCO provider: RR@k)
TIE_RUN = "1 Q0 b 1 1.0 r\n1 Q0 a 2 1.0 r\n3 Q0 q 1 1.0 r\n3 Q0 z 2 1.0 r\n"


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str, str]:
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r.txt").write_text(RUN)
    (tmp_path / "tie.txt").write_text(TIE_RUN)
    return str(tmp_path / "q.txt"), str(tmp_path / "r.txt"), str(tmp_path / "tie.txt")


def _dicts(qrels: str, run: str) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    q: dict[str, dict[str, int]] = {}
    for line in qrels.splitlines():
        qid, _, doc, rel = line.split()
        q.setdefault(qid, {})[doc] = int(rel)
    r: dict[str, dict[str, float]] = {}
    for line in run.splitlines():
        qid, _, doc, _, score, _ = line.split()
        r.setdefault(qid, {})[doc] = float(score)
    return q, r


# -- 1. the relevance level ----------------------------------------------------------------------

@pytest.mark.parametrize("level", ["nan", "inf", "-inf", "1e309", "NaN", "-1e400", "-1", "-0.5"])
def test_a_relevance_level_that_is_not_a_finite_number_is_refused_on_the_command_line(
        files: tuple[str, str, str], tmp_path: Path, level: str) -> None:
    qrels, run, _ = files
    res = cli(tmp_path, "evaluate", "--qrels", qrels, "--run", run, "--metrics", "map", "P_5",
              f"--relevance-level={level}", "--format", "csv")
    assert refused(res, "--relevance-level", "finite number > 0") is None, res


@pytest.mark.parametrize("level", [math.nan, math.inf, -math.inf, "1", None, True, [1]])
def test_a_profile_whose_relevance_threshold_is_not_a_finite_number_is_refused(
        files: tuple[str, str, str], level: Any) -> None:
    qrels, run, _ = files
    def profile() -> Any:  # refused when made (round 20), else by the evaluation
        return dataclasses.replace(get_profile("trec_eval"), name="mine",
                                   relevance_threshold=level)

    for fn in (lambda: evaluate([2, 0, 1], [3, 2, 1], group=[3], metrics="map", profile=profile()),
               lambda: evaluate_trec(qrels, run, metrics=["map"], profile=profile())):
        _, exc = call(fn)
        assert api_refused(exc, "relevance_threshold", "finite") is None, (level, exc)
        assert isinstance(exc, ConfigError)


@pytest.mark.parametrize("level", [1, 2, 3])
def test_the_relevance_level_equals_pytrec_eval_per_measure(files: tuple[str, str, str],
                                                              tmp_path: Path, level: int) -> None:
    qrels, run, _ = files
    names = ["map", "P_5", "recip_rank", "Rprec", "set_F", "bpref", "iprec_at_recall_0.50",
             "infAP", "ndcg_cut_5", "set_map", "recall_2"]
    res = cli(tmp_path, "evaluate", "--qrels", qrels, "--run", run, "--metrics", *names,
              "--relevance-level", f"{level} ", "--format", "csv")
    assert res.status == 0, res
    got = csv_values(res)
    q, r = _dicts(QRELS, RUN)
    per = pytrec_eval.RelevanceEvaluator(q, set(names) - {"iprec_at_recall_0.50"} | {
        "iprec_at_recall"}, relevance_level=level).evaluate(r)
    for name in names:
        want = statistics.mean(v[name] for v in per.values())
        assert close(got.get(name), want), (name, level, got.get(name), want)


def test_a_duplicate_document_or_judgment_and_a_level_twice_are_refused(
        files: tuple[str, str, str], tmp_path: Path) -> None:
    qrels, run, _ = files
    (tmp_path / "dup.run").write_text("1 Q0 a 1 1.0 r\n1 Q0 a 2 0.5 r\n")
    (tmp_path / "dup.qrels").write_text("1 0 a 1\n1 0 a 0\n")
    assert refused(cli(tmp_path, "evaluate", "--qrels", qrels, "--run", "dup.run", "--metrics",
                       "num_ret"), "dup.run:2", "duplicate") is None
    assert refused(cli(tmp_path, "evaluate", "--qrels", "dup.qrels", "--run", run, "--metrics",
                       "num_rel"), "dup.qrels:2", "twice") is None
    assert refused(cli(tmp_path, "evaluate", "--qrels", qrels, "--run", run,
                       "--relevance-level", "2", "--relevance-level", "1"),
                   "--relevance-level", "twice") is None


# -- 2. a profile that is the tool's own ----------------------------------------------------------

def test_the_msmarco_profile_computes_ir_measures_rr_at_k_as_the_provider_does(
        files: tuple[str, str, str], tmp_path: Path) -> None:
    qrels, _, tie = files
    res = cli(tmp_path, "evaluate", "--qrels", qrels, "--run", tie, "--profile", "msmarco",
              "--metrics", "RR@10", "mrr@10", "--format", "csv")
    assert res.status == 0, res
    measure = ir_measures.parse_measure("RR@10")
    want = ir_measures.calc_aggregate([measure], list(ir_measures.read_trec_qrels(qrels)),
                                      list(ir_measures.read_trec_run(tie)))[measure]
    got = csv_values(res)
    assert close(got["RR@10"], want), (got, want)
    assert close(got["mrr@10"], want), (got, want)
    assert "msmarco" in res.out  # the column names the profile
    assert "docno_asc" not in res.out


def test_another_profile_for_rr_at_k_names_the_overrides_it_differs_by(
        files: tuple[str, str, str], tmp_path: Path) -> None:
    qrels, _, tie = files
    res = cli(tmp_path, "evaluate", "--qrels", qrels, "--run", tie, "--profile", "msmarco",
              "--run-depth", "3", "--metrics", "RR@10")
    assert refused(res, "RR@10", "ties='docno_asc'", "msmarco+run_depth=3") is None, res
    res = cli(tmp_path, "evaluate", "--qrels", qrels, "--run", tie, "--profile", "trec_eval",
              "--metrics", "RR@10")
    assert refused(res, "ties='docno_asc'", "trec_eval-c:RR@10") is None, res


# -- 3. guards -----------------------------------------------------------------------------------

JUDGED = ["P(judged_only=True)@5", "AP(judged_only=True)", "nDCG(judged_only=True)@5",
          "RR(judged_only=True)", "R(judged_only=True)@2", "Rprec(judged_only=True)",
          "SetP(judged_only=True)"]
OURS = ["P@5", "map", "ndcg@5", "mrr", "recall@2", "rprec", "set_p"]


def test_judged_only_equals_ir_measures_judged_only_measures(files: tuple[str, str, str],
                                                              tmp_path: Path) -> None:
    qrels, run, _ = files
    res = cli(tmp_path, "evaluate", "--qrels", qrels, "--run", run, "--profile", "trec_eval-c",
              "--judged-only", "--metrics", *OURS, "--format", "csv")
    assert res.status == 0, res
    got = csv_values(res)
    measures = [ir_measures.parse_measure(n) for n in JUDGED]
    want = ir_measures.calc_aggregate(measures, list(ir_measures.read_trec_qrels(qrels)),
                                      list(ir_measures.read_trec_run(run)))
    for ours, m in zip(OURS, measures, strict=True):
        assert close(got[ours], want[m]), (ours, got[ours], want[m])
