"""The cross-check of a run resolves each choice once and says the same of a user's model on
both paths (issue 20).

* each library's profile and the run's default profile are looked up by name once per run
  (they were looked up once per (model, seed, split): 16 times for 2 models x 2 seeds x 2 splits);
* ``ltrbench crosscheck --run DIR`` notes a user's model as not applicable with the one text of
  :data:`bench.crosscheck.run.NOT_APPLICABLE`, as the cross-check inside ``ltrbench run`` does;
* :func:`bench.crosscheck.find.crosscheck_request` (what the command calls) picks the run: the
  one given, the latest matching one, or one it has ``train`` make.

The evaluator and the built-in metric are stand-ins (the per-query mean label, the same value
for every profile): what is tested is who is asked what, not the metric (``tests/test_crosscheck.py``
tests the values).
"""

from __future__ import annotations

import argparse
import itertools
import json
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest

from bench.crosscheck.find import CrosscheckRequest, crosscheck_request
from bench.crosscheck.run import NOT_APPLICABLE, crosscheck_run
from bench.errors import ConfigError
from bench.metrics import reconcile
from bench.runners.libraries import Library
from bench.runners.metric_provider import MetricProvider
from bench.runners.registry import LAMBDAMART

GBDT = ("lightgbm-lambdarank", "xgboost-ndcg")
LIBRARY = {"lightgbm-lambdarank": "lightgbm", "xgboost-ndcg": "xgboost", "random": "baseline",
           "lightgbm-mine": "custom"}


def write_run(root: Path, *, models: tuple[str, ...] = (*GBDT, "random"), profile: str = "ltrbench",
              custom: bool = False) -> Path:
    """A run folder of ``models`` x seeds 0, 1 on vali and test (4 queries of 3 documents each),
    its libraries recorded in ``timings.csv``; ``custom`` adds the user model ``lightgbm-mine``."""
    if custom:
        models = (*models, "lightgbm-mine")
    run = root / "runs" / "toy-run"
    run.mkdir(parents=True)
    names = ", ".join(f'"{m}"' for m in models)
    table = '\n[custom_models.lightgbm-mine]\nfactory = "mine:make"\n' if custom else ""
    (run / "config.toml").write_text(f'dataset = "toy"\nprofile = "{profile}"\n'
                                     f"models = [{names}]\n{table}")
    rng = np.random.default_rng(3)
    labels, scores, timings, metrics = [], [], [], []
    for split in ("train", "vali", "test"):
        labels += [(split, r, 10 + r // 3, float(rng.integers(0, 3))) for r in range(12)]
    for model in models:
        for seed in (0, 1):
            for split in ("vali", "test"):
                scores += [(model, seed, split, r, float(rng.normal())) for r in range(12)]
                metrics.append(("toy", model, LIBRARY[model], seed, split, "ndcg@10", 0.5,
                                profile))
            timings.append(("toy", model, LIBRARY[model], seed, 1.0, 0.1, 10.0, 2, 2))
    pd.DataFrame(labels, columns=["split", "row", "qid", "label"]).to_parquet(
        run / "labels.parquet")
    pd.DataFrame(scores, columns=["model", "seed", "split", "row", "score"]).to_parquet(
        run / "scores.parquet")
    pd.DataFrame(timings, columns=["dataset", "model", "library", "seed", "fit_s", "predict_s",
                                   "peak_rss_mb", "best_iteration", "n_trees"]).to_csv(
        run / "timings.csv", index=False)
    pd.DataFrame(metrics, columns=["dataset", "model", "library", "seed", "split", "metric",
                                   "value", "profile"]).to_csv(run / "metrics.csv", index=False)
    return run


def _mean_labels(labels: Any, offsets: Any) -> np.ndarray:
    y = np.asarray(labels, dtype=np.float64)
    off = np.asarray(offsets, dtype=np.int64)
    return np.array([y[a:b].mean() for a, b in itertools.pairwise(off)])


def stand_in_evaluate(labels: Any, scores: Any, *, group: Any, metrics: list[str], profile: Any,
                      per_query: bool = True) -> SimpleNamespace:
    """Per query: its mean label, whatever the profile (so every gap is 0)."""
    offsets = np.concatenate([[0], np.cumsum(group)])
    values = _mean_labels(labels, offsets)
    return SimpleNamespace(per_query={metrics[0]: values},
                           metrics={metrics[0]: float(values.mean())})


class StandInMetrics(MetricProvider):
    """The stand-in built-in metric: the mean over queries of the mean label."""

    title = "stand-in"

    def prepare(self, labels: Any, scores: Any, offsets: Any, *, label_gain: str,
                n_threads: int, weights: Any) -> None:
        self.value = float(_mean_labels(labels, offsets).mean())

    def __call__(self) -> dict[str, float]:
        return {m: self.value for m in self.metrics}


@pytest.fixture
def providers(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every library whose built-in metric provider the cross-check resolves (its record's
    :meth:`~bench.runners.libraries.Library.provider`), each given the stand-in provider."""
    resolved: list[str] = []

    def stand_in(self: Library) -> type[MetricProvider]:
        resolved.append(self.name)
        return StandInMetrics

    monkeypatch.setattr(Library, "provider", stand_in)
    return resolved


@pytest.fixture
def lookups(monkeypatch: pytest.MonkeyPatch, providers: list[str]) -> list[str]:
    """Every profile name the cross-check looks up (through :mod:`bench.metrics.reconcile`),
    with the stand-in evaluator and built-in metric provider."""
    names: list[str] = []
    real = reconcile.get_profile

    def counted(name: Any) -> Any:
        if isinstance(name, str):
            names.append(name)
        return real(name)

    monkeypatch.setattr(reconcile, "get_profile", counted)
    monkeypatch.setattr(reconcile, "reference_evaluate", stand_in_evaluate)
    return names


def test_each_profile_is_looked_up_once_per_run(tmp_path: Path, lookups: list[str]) -> None:
    result = crosscheck_run(write_run(tmp_path))
    assert result.ok, result.errors
    assert len(result.cases) == 2 * 2 * 2  # models x seeds x splits
    assert sorted(lookups) == ["lightgbm", "ltrbench", "xgboost"]


def test_each_builtin_metric_provider_is_resolved_once_per_run(
        tmp_path: Path, lookups: list[str], providers: list[str]) -> None:
    """Resolved from the library's record once per run and passed down (it was looked up by the
    library's name for every (model, seed, split): 8 times here)."""
    result = crosscheck_run(write_run(tmp_path))
    assert result.ok, result.errors
    assert len([c for c in result.checks if c.source == "recomputed"]) == 2 * 2 * 2
    assert sorted(providers) == ["lightgbm", "xgboost"]


def test_a_provider_that_does_not_resolve_is_an_error_of_each_of_its_pairs(
        tmp_path: Path, lookups: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: Library) -> type[MetricProvider]:
        raise ConfigError(f"{self.name}: no provider")

    monkeypatch.setattr(Library, "provider", broken)
    result = crosscheck_run(write_run(tmp_path))
    assert len(result.errors) == 8
    assert all("ConfigError: " in e and ": no provider" in e for e in result.errors)


def test_no_provider_is_resolved_without_recomputing(
        tmp_path: Path, lookups: list[str], providers: list[str]) -> None:
    result = crosscheck_run(write_run(tmp_path), recompute=False)
    assert result.ok, result.errors
    assert providers == []


def test_an_unknown_default_profile_is_still_an_error_of_every_pair(
        tmp_path: Path, lookups: list[str]) -> None:
    result = crosscheck_run(write_run(tmp_path, profile="nosuch"))
    assert not result.ok
    assert len(result.errors) == 8
    assert all("ConfigError: unknown profile 'nosuch'" in e for e in result.errors)
    assert lookups.count("nosuch") == 1


def test_crosscheck_run_notes_a_user_model_as_not_applicable(
        tmp_path: Path, lookups: list[str]) -> None:
    result = crosscheck_run(write_run(tmp_path, custom=True))
    assert result.ok, result.errors
    assert result.notes == [f"lightgbm-mine: {NOT_APPLICABLE}"]
    assert "lightgbm-mine" not in {c.model for c in result.checks}


def test_a_declared_user_model_the_run_does_not_train_is_not_named(
        tmp_path: Path, lookups: list[str]) -> None:
    run = write_run(tmp_path)
    config = run / "config.toml"
    config.write_text(config.read_text() + '[custom_models.unused]\nfactory = "mine:make"\n')
    assert crosscheck_run(run).notes == []


def test_the_command_with_run_dir_notes_a_user_model_as_the_run_pipeline_does(
        tmp_path: Path, lookups: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from bench.benchmark import pipeline
    from bench.commands import crosscheck as command

    run = write_run(tmp_path, custom=True)
    parser = argparse.ArgumentParser()
    command.register(parser.add_subparsers())
    args = parser.parse_args(["crosscheck", "--run", str(run), "--format", "json",
                              "--out", str(tmp_path / "out")])
    assert args.func(args) == 0
    assert json.loads(capsys.readouterr().out)["notes"] == [f"lightgbm-mine: {NOT_APPLICABLE}"]
    assert not hasattr(pipeline, "NOT_APPLICABLE")  # one owner of the text


def _never_train(models: tuple[str, ...]) -> Path:
    raise AssertionError(f"trained {models}")


def test_crosscheck_request_checks_the_run_given(tmp_path: Path, lookups: list[str]) -> None:
    run = write_run(tmp_path)
    said: list[str] = []
    outcome = crosscheck_request(CrosscheckRequest(out=tmp_path / "out", run=run),
                                 train=_never_train, say=said.append)
    assert outcome.result.ok
    assert outcome.result.run_id == "toy-run"
    assert outcome.files["json"] == tmp_path / "out" / "toy" / "crosscheck.json"
    assert json.loads(outcome.files["json"].read_text())["run_id"] == "toy-run"
    assert said == []


def test_crosscheck_request_reuses_the_latest_matching_run_and_says_so(
        tmp_path: Path, lookups: list[str]) -> None:
    run = write_run(tmp_path)
    said: list[str] = []
    outcome = crosscheck_request(
        CrosscheckRequest(out=tmp_path / "out", runs_dir=tmp_path / "runs", dataset="toy",
                          models="xgboost-ndcg"),
        train=_never_train, say=said.append)
    assert said == [f"reusing run toy-run ({run})"]
    assert {c.model for c in outcome.result.checks} == {"xgboost-ndcg"}


@pytest.mark.parametrize(("models", "trained"), [
    (None, LAMBDAMART),
    ("xgboost-ndcg,random", ("xgboost-ndcg", "random")),
])
def test_crosscheck_request_trains_when_no_run_matches(
        tmp_path: Path, lookups: list[str], models: str | None,
        trained: tuple[str, ...]) -> None:
    asked: list[tuple[str, ...]] = []
    made = write_run(tmp_path / "made")

    def train(names: tuple[str, ...]) -> Path:
        asked.append(names)
        return made

    outcome = crosscheck_request(
        CrosscheckRequest(out=tmp_path / "out", dataset="other", models=models, retrain=False),
        train=train)
    assert asked == [trained]
    assert outcome.result.run_id == "toy-run"


def test_crosscheck_request_refuses_models_without_a_builtin_metric(tmp_path: Path) -> None:
    train: Callable[[tuple[str, ...]], Path] = _never_train
    with pytest.raises(ConfigError, match="none of random, popularity is a LightGBM"):
        crosscheck_request(CrosscheckRequest(out=tmp_path / "out", models="random,popularity"),
                           train=train)
