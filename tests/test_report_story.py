"""The end of a run: models ranked by the primary metric, the verdict, the LambdaMART head to
head -- checked against the committed synthetic run's own files with pandas."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from bench.report.story import story

REPO = Path(__file__).resolve().parents[1]
RUNS = sorted((REPO / "results" / "runs").glob("synthetic-*"))


@pytest.mark.skipif(not RUNS, reason="no committed synthetic run")
def test_the_story_ranks_by_the_mean_over_seeds_and_names_the_best() -> None:
    run = RUNS[-1]
    text = story(run)
    m = pd.read_csv(run / "metrics.csv")
    m = m[(m["split"] == "test") & (m["metric"] == "ndcg@10") & (m["profile"] == "ltrbench")]
    means = m.groupby("model")["value"].mean().sort_values(ascending=False)
    ranked = re.findall(r"^  (\S+)\s+(\d\.\d{4})", text, re.M)
    assert [name for name, _ in ranked] == list(means.index)
    assert [float(v) for _, v in ranked] == [round(v, 4) for v in means]
    assert f"verdict: best ndcg@10 is {means.index[0]} ({means.iloc[0]:.4f})" in text


@pytest.mark.skipif(not RUNS, reason="no committed synthetic run")
def test_the_head_to_head_is_the_mean_per_query_difference_of_the_two_lambdamarts() -> None:
    run = RUNS[-1]
    pq = pd.read_parquet(run / "per_query.parquet")
    pq = pq[(pq["split"] == "test") & (pq["metric"] == "ndcg@10")]
    per = pq.groupby(["model", "qid"])["value"].mean().unstack("qid")
    diff = (per.loc["lightgbm-lambdarank"] - per.loc["xgboost-ndcg"]).mean()
    line = next(x for x in story(run).splitlines() if x.startswith("head to head:"))
    assert f"lightgbm-lambdarank - xgboost-ndcg = {diff:+.4f} ndcg@10" in line
