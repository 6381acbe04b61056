"""End to end on LightGBM's own ``examples/lambdarank`` data: train both libraries (quick, one
seed), cross-check their built-in NDCG against the reference evaluator, write the leaderboard.

Skips until the evaluator, the runners and the dataset loader exist, or when ``../shared/data``
is absent.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from bench.crosscheck import crosscheck_run, write_crosscheck
from bench.report.leaderboard import LeaderboardOptions, write_leaderboard

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def _needs(module: str, attr: str) -> None:
    mod = pytest.importorskip(module)
    if not hasattr(mod, attr):
        pytest.skip(f"{module}.{attr} not written yet")


@pytest.fixture(scope="module")
def lambdarank_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not (SHARED / "lightgbm-lambdarank" / "rank.train").is_file():
        pytest.skip("shared lightgbm-lambdarank data absent")
    _needs("bench.metrics", "evaluate")
    _needs("bench.datasets.resolve", "load_dataset")
    _needs("bench.crosscheck.providers", "builtin_metric")
    from bench.benchmark.config import RunConfig
    from bench.benchmark.pipeline import run_benchmark

    out = tmp_path_factory.mktemp("results")
    config = RunConfig(
        dataset=str(SHARED / "lightgbm-lambdarank"),
        models=("lightgbm-lambdarank", "xgboost-ndcg"),
        seeds=(0,),
        quick=True,
        crosscheck=False,
    )
    return run_benchmark(config, out_dir=out, progress=False)


@pytest.mark.slow
def test_crosscheck_on_lightgbm_example_data_agrees_and_explains_every_gap(lambdarank_run: Path) -> None:
    res = crosscheck_run(lambdarank_run)
    assert res.ok, res.errors
    assert {c.model for c in res.checks} == {"lightgbm-lambdarank", "xgboost-ndcg"}
    assert all(c.abs_diff <= 1e-6 for c in res.checks)
    assert any(c.source == "evallog" for c in res.checks)
    for case in res.cases:
        r = case.reconciliation
        assert math.fsum(r.reasons.values()) + r.residual == pytest.approx(r.gap, abs=1e-12)
        assert abs(r.residual) <= 1e-9
    files = write_crosscheck(res, lambdarank_run.parent.parent)
    doc = json.loads(files["json"].read_text())
    assert set(doc["reasons"]) == {"weights", "blank_query", "ties", "gain", "truncation",
                                   "float32"}


@pytest.mark.slow
def test_leaderboard_from_a_real_run(lambdarank_run: Path) -> None:
    out = lambdarank_run.parent.parent
    written = write_leaderboard(
        [lambdarank_run], out, options=LeaderboardOptions(bootstrap_resamples=200,
                                                          randomization_resamples=500)
    )
    doc = written["document"]
    (table,) = doc["tables"]
    assert table["run_id"] == lambdarank_run.name
    assert {r["model"] for r in table["rows"]} == {"lightgbm-lambdarank", "xgboost-ndcg"}
    for row in table["rows"]:
        e = row["metrics"]["ndcg@10"]
        assert e["ci_low"] <= e["mean"] <= e["ci_high"]
        assert row["fit_s"]["mean"] > 0
    assert all(Path(p).stat().st_size > 0 for p in written["plots"])
