"""Round 18, the lead's cases: ``ltrbench report --primary M`` names a metric; it is never
replaced by another one.

Before: ``report --primary ndcg@10`` over a run without ``ndcg@10`` ranked the rows by the run's
first metric and said so only in the table's notes, as it does when no ``--primary`` is given:
the command line could not tell a metric asked for from the default (exit 0). Now a named
primary metric the run lacks is refused (exit 2, naming the option, the file and what the run
has), as ``RunResult.leaderboard(primary=...)`` refuses it; with no ``--primary`` the fallback and
its note are as before, and a leaderboard written with the default reproduces as the default.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostile_kit import cli, letor_folder

from bench.report.document import options_from_stats


@pytest.fixture(scope="module")
def run_without_ndcg10(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of the ``random`` model whose metrics are ``map`` and ``hits@3``."""
    root = tmp_path_factory.mktemp("primary")
    letor_folder(root / "data")
    res = cli(root, "run", "--dataset", str(root / "data"), "--models", "random", "--seeds", "0",
              "--metrics", "map,hits@3", "--out", str(root / "res"), "--no-crosscheck",
              "--format", "json")
    assert res.status == 0, res.err
    return root


def test_a_named_primary_metric_the_run_lacks_is_refused_not_replaced(
        run_without_ndcg10: Path) -> None:
    res = cli(run_without_ndcg10, "report", "--out", "res", "--no-plots", "--primary",
              "ndcg@10")
    assert res.status == 2, (res.status, res.err)
    assert not res.traceback
    assert "--primary ndcg@10: not among the reported metrics of this run" in res.err
    assert "hits@3" in res.err  # what the run has
    assert "map" in res.err
    assert "metrics.csv" in res.err  # the file it read


def test_another_spelling_of_a_named_primary_the_run_lacks_is_refused_too(
        run_without_ndcg10: Path) -> None:
    res = cli(run_without_ndcg10, "report", "--out", "res", "--no-plots", "--primary",
              "NDCG@10")
    assert res.status == 2, (res.status, res.err)
    assert "not among the reported metrics" in res.err


def test_with_no_primary_named_the_runs_first_metric_ranks_and_the_notes_say_so(
        run_without_ndcg10: Path) -> None:
    res = cli(run_without_ndcg10, "report", "--out", "res", "--no-plots")
    assert res.status == 0, res.err
    doc = json.loads((run_without_ndcg10 / "res" / "leaderboard.json").read_text())
    table = doc["tables"][0]
    assert table["primary_metric"] == "map"  # the run's first metric
    assert any("primary metric map: the run has no ndcg@10" in n for n in table["notes"])
    # recorded as the default, which reads back as the default (not as a named ndcg@10)
    assert doc["stats"]["primary"] == "ndcg@10"
    assert options_from_stats(doc["stats"], "leaderboard.json").primary is None


def test_a_named_primary_the_run_holds_ranks_by_it(run_without_ndcg10: Path) -> None:
    res = cli(run_without_ndcg10, "report", "--out", "res", "--no-plots", "--primary", "hit@3")
    assert res.status == 0, res.err
    doc = json.loads((run_without_ndcg10 / "res" / "leaderboard.json").read_text())
    assert doc["tables"][0]["primary_metric"] == "hits@3"
    assert doc["stats"]["primary"] == "hits@3"
    assert not any("the run has no" in n for n in doc["tables"][0]["notes"])
    assert options_from_stats(doc["stats"], "leaderboard.json").primary == "hits@3"


def test_metrics_named_without_ndcg10_take_the_first_of_them_as_before(
        run_without_ndcg10: Path) -> None:
    res = cli(run_without_ndcg10, "report", "--out", "res", "--no-plots", "--metrics",
              "hits@3,map")
    assert res.status == 0, res.err
    doc = json.loads((run_without_ndcg10 / "res" / "leaderboard.json").read_text())
    assert doc["tables"][0]["primary_metric"] == "hits@3"
    assert doc["stats"]["primary"] == "hits@3"
    assert not any("the run has no" in n for n in doc["tables"][0]["notes"])


def test_a_run_whose_documents_are_named_like_metrics_but_judged_is_evaluated() -> None:
    """The evaluator-result guard (a run of documents named ``map``, ``ndcg_cut_10``... is
    pytrec_eval's per-query output) stands down when the qrels judge those documents for that
    query: they are documents after all. P@1 by hand: the top document ``map`` is relevant (1);
    P@2: one of two (0.5)."""
    from bench.metrics import evaluate_trec

    qrels = {"q1": {"map": 1, "ndcg_cut_10": 0}}
    run = {"q1": {"map": 2.0, "ndcg_cut_10": 1.0}}
    result = evaluate_trec(qrels, run, metrics="P_1,P_2", profile="trec_eval")
    assert result["P_1"] == 1.0
    assert result["P_2"] == 0.5
