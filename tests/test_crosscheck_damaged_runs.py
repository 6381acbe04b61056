"""``crosscheck --run DIR`` refuses a run whose ``labels.parquet`` and ``scores.parquet`` do not
describe the same rows (exit 2 naming the file): before, dropped, duplicated or shifted scores and
edited labels were cross-checked anyway (exit 0 or a list of "disagreements")."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bench.benchmark import pipeline
from bench.benchmark.config import RunConfig
from bench.crosscheck.run import crosscheck_run
from bench.data.letor import LetorData, LetorSplits
from bench.errors import DataError
from bench.runners.params import Params


def _part(seed: int) -> LetorData:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0.2).astype(float) + (X[:, 1] > 1.0)
    return LetorData.build(X, y, qid=np.repeat(np.arange(6) + 10 * seed, 10), source=f"p{seed}")


@pytest.fixture(scope="module")
def clean_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    splits = LetorSplits(name="toy", train=_part(1), vali=_part(2), test=_part(3),
                         inputs={"toy.txt": "0" * 64})
    config = RunConfig(dataset="toy", models=("lightgbm-lambdarank", "random"), seeds=(0,),
                       params=Params(n_trees=5, num_leaves=4, min_data_in_leaf=3, n_threads=1),
                       crosscheck=False)
    return pipeline.run_benchmark(config, out_dir=tmp_path_factory.mktemp("res"),
                                  progress=False, splits=splits)


def _edit(name: str, fn: Callable[[pd.DataFrame], pd.DataFrame]) -> Callable[[Path], None]:
    def apply(run: Path) -> None:
        (fn(pd.read_parquet(run / name))).to_parquet(run / name)
    return apply


DAMAGES = {
    "a score NaN": (_edit("scores.parquet", lambda f: f.assign(
        score=np.where(f.index == 3, np.nan, f["score"]))), "scores.parquet, row 4", "finite"),
    "scores cut": (_edit("scores.parquet", lambda f: f.iloc[:-5]), "scores.parquet",
                   "every labelled row needs one score"),
    "scores duplicated": (_edit("scores.parquet", lambda f: pd.concat([f, f.iloc[:2]])),
                          "scores.parquet", "a second row for"),
    "score rows shifted": (_edit("scores.parquet", lambda f: f.assign(row=f["row"] + 1)),
                           "scores.parquet", "every labelled row needs one score"),
    "a label NaN": (_edit("labels.parquet", lambda f: f.assign(
        label=np.where(f.index == 0, np.nan, f["label"]))), "labels.parquet, row 1", "finite"),
    "labels changed": (_edit("labels.parquet", lambda f: f.assign(label=f["label"] + 1)),
                       "labels.parquet", "label counts"),
    "labels cut": (_edit("labels.parquet", lambda f: f.iloc[:-5]), "labels.parquet",
                   "rows where the manifest's dataset summary has"),
    "labels duplicated": (_edit("labels.parquet", lambda f: pd.concat([f, f.iloc[:1]])),
                          "labels.parquet", "a second row for"),
}


def test_the_clean_run_is_cross_checked(clean_run: Path) -> None:
    assert crosscheck_run(clean_run).ok


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_scores_and_labels_that_disagree_are_refused_naming_the_file(
        clean_run: Path, tmp_path: Path, damage: str) -> None:
    apply, where, what = DAMAGES[damage]
    run = tmp_path / "runs" / clean_run.name
    shutil.copytree(clean_run, run)
    apply(run)
    with pytest.raises(DataError) as err:
        crosscheck_run(run)
    assert where in str(err.value)
    assert what in str(err.value)
