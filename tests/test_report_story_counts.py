"""What ``ltrbench run`` prints at its end is true of the run: the query count of the intervals
is the queries that have a value (blank queries, without a relevant document, have none under
the default profile), and a run of other metrics (``--metrics P@10,map``) is shown with those.
Before: "12 queries" where the intervals covered 9, and a run without ndcg@10 printed the
default columns empty and no ranking at all."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bench.benchmark import pipeline
from bench.benchmark.config import RunConfig
from bench.benchmark.summary import summarize_run, summary_text
from bench.data.letor import LetorData, LetorSplits
from bench.report.story import story
from bench.runners.params import Params


def _part(seed: int, blank: int = 0) -> LetorData:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] > 0.0).astype(float) + (X[:, 1] > 1.0)
    y[: blank * 10] = 0.0
    return LetorData.build(X, y, qid=np.repeat(np.arange(12) + 100 * seed, 10), source=f"p{seed}")


SPLITS = LetorSplits(name="toy", train=_part(1), vali=_part(2), test=_part(3, blank=3),
                     inputs={"toy.txt": "0" * 64})


def _run(tmp: Path, **kw: object) -> Path:
    config = RunConfig(dataset="toy", models=("random", "lightgbm-lambdarank"), seeds=(0,),
                       params=Params(n_trees=5, num_leaves=4, min_data_in_leaf=3, n_threads=1),
                       crosscheck=False)
    config = RunConfig.from_dict({**config.to_dict(), **kw})
    return pipeline.run_benchmark(config, out_dir=tmp, progress=False, splits=SPLITS)


@pytest.fixture(scope="module")
def default_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _run(tmp_path_factory.mktemp("d"))


def test_the_ranking_counts_the_queries_its_intervals_use(default_run: Path) -> None:
    first = story(default_run).splitlines()[0]
    assert "(9 of 12 queries; 3 blank, without a value;" in first


def test_a_run_of_other_metrics_is_shown_with_them(tmp_path: Path) -> None:
    run_dir = _run(tmp_path, metrics=["p@5", "map"])
    text = summary_text(summarize_run(run_dir))
    header = text.splitlines()[1].split()
    assert header[:3] == ["model", "p@5", "map"]
    assert story(run_dir).startswith("ranked by test p@5 (")


def test_a_default_run_keeps_the_four_default_columns(default_run: Path) -> None:
    header = summary_text(summarize_run(default_run)).splitlines()[1].split()
    assert header[:5] == ["model", "ndcg@1", "ndcg@10", "map@10", "mrr"]


def test_a_contended_fit_note_says_how_to_get_a_clean_time() -> None:
    summary = {"dataset": "d", "profile": "ltrbench", "seeds": [0], "models": ["m"],
               "metrics": {"m": {"test": {"ndcg@10": {"mean": 0.5, "std": None}}}},
               "timings": {"m": {"fit_s": 1.0, "contended": 1}}, "status": {},
               "crosscheck": None, "run_dir": "r"}
    text = summary_text(summary)
    assert "1.00 †" in text
    assert "--timing isolated" in text
    assert "--timing-repeats 3" in text
    assert "idle machine" in text
