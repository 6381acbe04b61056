"""``bench.benchmark.run``: the README's example runs as written, and its numbers are the run's
own files, computed again here with pandas."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _example() -> str:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    found = [b for b in blocks if "from bench.benchmark import run" in b]
    assert len(found) == 1
    return found[0]


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    where = tmp_path_factory.mktemp("api")
    namespace: dict[str, object] = {}
    import os

    cwd = os.getcwd()
    os.chdir(where)
    try:
        exec(compile(_example(), "README.md", "exec"), namespace)  # our own README
    finally:
        os.chdir(cwd)
    namespace["where"] = where
    return namespace


def test_the_readme_example_runs_and_saves_the_run(example: dict[str, object]) -> None:
    saved = example["saved"]
    assert isinstance(saved, Path)
    assert (saved / "metrics.csv").is_file()
    assert saved.parent == example["where"] / "my-results"  # type: ignore[operator]


def test_to_frame_is_the_mean_and_std_over_seeds_of_metrics_csv(example: dict[str, object]) -> None:
    result = example["result"]
    table = example["table"]
    assert isinstance(table, pd.DataFrame)
    raw = pd.read_csv(result.run_dir / "metrics.csv")  # type: ignore[attr-defined]
    raw = raw[(raw["split"] == "test") & (raw["profile"] == "ltrbench")
              & (raw["metric"] == "ndcg@10")]
    for model in ("lightgbm-lambdarank", "xgboost-ndcg", "random"):
        values = raw[raw["model"] == model]["value"].to_numpy()
        assert values.shape == (2,)  # seeds 0 and 1
        assert table.loc[model, ("ndcg@10", "mean")] == pytest.approx(values.mean(), abs=1e-15)
        assert table.loc[model, ("ndcg@10", "std")] == pytest.approx(values.std(ddof=1),
                                                                     abs=1e-15)


def test_the_leaderboard_has_every_model_and_the_best_has_no_p_value(
        example: dict[str, object]) -> None:
    board = example["board"]
    assert isinstance(board, pd.DataFrame)
    assert set(board.index) == {"lightgbm-lambdarank", "xgboost-ndcg", "random"}
    best = board["ndcg@10"].idxmax()
    assert board.loc[best, "p_randomization_holm"] is None or np.isnan(
        board.loc[best, "p_randomization_holm"])
    assert (board["ci_low"] <= board["ndcg@10"]).all()
    assert (board["ndcg@10"] <= board["ci_high"]).all()


def test_bad_arguments_are_config_errors_before_any_data() -> None:
    from bench.benchmark import run
    from bench.errors import ConfigError

    with pytest.raises(ConfigError, match="unknown model"):
        run("synthetic", models=["nosuch"])
    with pytest.raises(ConfigError, match="unknown config key"):
        run("synthetic", n_treez=3)
