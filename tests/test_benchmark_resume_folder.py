"""A resumed run keeps its outputs beside it: ``--resume RUN_DIR`` without ``--out`` writes the
cross-check into the folder the run lies in (before: into ./results/local of wherever the command
ran), and an ``--out`` elsewhere is refused before any data are loaded."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from bench.benchmark import pipeline
from bench.benchmark.config import RunConfig
from bench.data.letor import LetorData, LetorSplits
from bench.errors import ConfigError
from bench.runners.params import Params

SMALL = Params(n_trees=6, num_leaves=5, min_data_in_leaf=3, early_stopping_rounds=3, n_threads=1)


def _part(seed: int) -> LetorData:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(80, 4))
    y = (X[:, 0] > 0.3).astype(float) + (X[:, 1] > 1.0)
    return LetorData.build(X, y, qid=np.repeat(np.arange(8) + 10 * seed, 10), source=f"p{seed}")


SPLITS = LetorSplits(name="toy", train=_part(1), vali=_part(2), test=_part(3),
                     inputs={"toy.txt": "0" * 64})
CONFIG = RunConfig(dataset="toy", models=("lightgbm-lambdarank",), seeds=(0, 1), params=SMALL)


def _interrupted_run(out: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    real = pipeline.run_model
    calls: list[int] = []

    def failing(*args, seed, **kwargs):  # type: ignore[no-untyped-def]
        if calls:
            raise RuntimeError("power cut")
        calls.append(seed)
        return real(*args, seed=seed, **kwargs)

    monkeypatch.setattr(pipeline, "run_model", failing)
    with pytest.raises(RuntimeError, match="power cut"):
        pipeline.run_benchmark(CONFIG, out_dir=out, progress=False, splits=SPLITS)
    monkeypatch.setattr(pipeline, "run_model", real)
    (run_dir,) = (out / "runs").iterdir()
    return run_dir


def test_a_resumed_run_writes_its_crosscheck_beside_it_not_in_the_working_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "elsewhere"
    run_dir = _interrupted_run(home, monkeypatch)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    again = pipeline.run_benchmark(CONFIG, resume=run_dir, progress=False, splits=SPLITS)
    assert again == run_dir
    assert json.loads((run_dir / "manifest.json").read_text())["finished"]
    assert (home / "toy" / "crosscheck.json").is_file()
    assert not any(cwd.rglob("*")), sorted(map(str, cwd.rglob("*")))


def test_an_out_folder_other_than_the_resumed_runs_is_refused_before_loading_data(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_dir = _interrupted_run(tmp_path / "home", monkeypatch)

    def no_loading(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("data loaded before the refusal")

    with pytest.raises(ConfigError, match="lies in the results folder"):
        pipeline.run_benchmark(replace(CONFIG, dataset="synthetic"), out_dir=tmp_path / "other",
                               resume=run_dir, progress=False, loader=no_loading)


def test_the_results_folder_is_the_out_folder_or_the_resumed_runs_home(tmp_path: Path) -> None:
    run_dir = tmp_path / "res" / "runs" / "r1"
    run_dir.mkdir(parents=True)
    (run_dir / "manifest.json").write_text("{}")
    assert pipeline.results_folder(None, False) == Path("results/local")
    assert pipeline.results_folder(tmp_path / "x", True) == tmp_path / "x"
    assert pipeline.results_folder(None, run_dir) == (tmp_path / "res").resolve()
    assert pipeline.results_folder(tmp_path / "res", str(run_dir)) == tmp_path / "res"


@pytest.mark.parametrize("target", ["a file", "no folder", "a folder without a manifest"])
def test_resuming_what_is_not_a_run_directory_is_refused_before_loading_data(
        tmp_path: Path, target: str) -> None:
    path = {"a file": tmp_path / "f.txt", "no folder": tmp_path / "missing",
            "a folder without a manifest": tmp_path}[target]
    if target == "a file":
        path.write_text("x")

    def no_loading(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("data loaded before the refusal")

    with pytest.raises(ConfigError, match="not a run directory"):
        pipeline.run_benchmark(replace(CONFIG, dataset="synthetic"), resume=path,
                               progress=False, loader=no_loading)
