"""``ltrbench tune`` on Optuna (issue 22): one study per model with the same budget, the trial
value from the reference evaluator, the test split never read, resumable studies, the search
spaces as data and their errors, the command's output files."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hostile_kit import ROOT, cli, letor_folder

from bench.benchmark.config import RunConfig
from bench.benchmark.pipeline import load_splits
from bench.benchmark.search_space import (
    SPACES,
    Dimension,
    load_space_file,
    overrides,
    parse_dimension,
)
from bench.benchmark.study import Budget, _reporter, sampler_seed
from bench.benchmark.tune_run import TuneRequest, plan_tune, tune_loaded
from bench.data.letor import LetorData
from bench.errors import ConfigError
from bench.metrics import evaluate
from bench.runners.gbdt import train_gbdt
from bench.runners.params import Params
from bench.runs.tune_layout import TRIAL_COLUMNS

SMALL = Params(n_trees=5, num_leaves=3, min_data_in_leaf=1, early_stopping_rounds=3,
               n_threads=1)


def _folder(tmp_path: Path) -> Path:
    return tmp_path / "res" / "tune"


def _one_tune(tmp_path: Path) -> Path:
    (folder,) = [p for p in _folder(tmp_path).iterdir() if p.is_dir()]
    return folder


def _tune(tmp_path: Path, *args: str) -> Any:
    data = letor_folder(tmp_path / "letor")
    return cli(tmp_path, "tune", "--dataset", str(data), "--n-trees", "5", "--threads", "1",
               "--no-progress", "--out", str(tmp_path / "res"), *args)


# --- the command and its files ---------------------------------------------------------------

def test_two_models_get_the_same_trial_budget_and_every_file(tmp_path: Path) -> None:
    res = _tune(tmp_path, "--models", "lightgbm-lambdarank,xgboost-ndcg", "--budget-trials", "3",
                "--format", "json")
    assert res.status == 0, res.err
    summary = json.loads(res.out)
    models = summary["models"]
    assert list(models) == ["lightgbm-lambdarank", "xgboost-ndcg"]
    assert {m["trials_run"] for m in models.values()} == {3}
    assert {(m["metric"], m["profile"]) for m in models.values()} == {("ndcg@10", "ltrbench")}
    folder = _one_tune(tmp_path)
    for name in ("plan.json", "study.db", "trials.csv", "trials.parquet", "best.toml",
                 "summary.json", "complete", "best/lightgbm-lambdarank.toml",
                 "best/xgboost-ndcg.toml", "best_so_far.png"):
        assert (folder / name).is_file(), name
    with (folder / "best_so_far.png").open("rb") as png:  # the issue's figure, a real PNG
        assert png.read(8) == b"\x89PNG\r\n\x1a\n"
    assert json.loads((folder / "summary.json").read_text()) == summary
    table = pd.read_csv(folder / "trials.csv")
    assert tuple(table.columns) == TRIAL_COLUMNS
    assert tuple(pd.read_parquet(folder / "trials.parquet").columns) == TRIAL_COLUMNS
    assert table.groupby("model").size().to_dict() == {"lightgbm-lambdarank": 3, "xgboost-ndcg": 3}
    for model, rows in table.groupby("model"):
        done = rows["value"].where(rows["state"] == "COMPLETE")
        assert np.allclose(rows["best_so_far"], done.cummax(), equal_nan=True)
        assert np.allclose(rows["cum_cpu_s"], rows["cpu_s"].cumsum())
        assert models[model]["best_value"] == pytest.approx(done.max())
    import optuna

    names = {s.study_name for s in optuna.get_all_study_summaries(f"sqlite:///{folder}/study.db")}
    assert names == {f"{summary['dataset']}:lightgbm-lambdarank", f"{summary['dataset']}:xgboost-ndcg"}


def test_each_best_config_runs_its_model_with_its_best_parameters(tmp_path: Path) -> None:
    res = _tune(tmp_path, "--models", "xgboost", "--budget-trials", "2", "--format", "json")
    assert res.status == 0, res.err
    entry = json.loads(res.out)["models"]["xgboost-ndcg"]  # --models xgboost tunes XGBoost
    config = RunConfig.load(_one_tune(tmp_path) / "best" / "xgboost-ndcg.toml")
    assert config.models == ("xgboost-ndcg",)
    assert config.select_metric == "ndcg@10"
    assert config.profile == "ltrbench"
    expected = overrides(entry["best_params"])
    assert config.model_params["xgboost-ndcg"] == expected
    both = RunConfig.load(_one_tune(tmp_path) / "best.toml")
    assert both.model_params["xgboost-ndcg"] == expected


def test_a_grid_is_searched_point_by_point_once(tmp_path: Path) -> None:
    res = _tune(tmp_path, "--model", "lightgbm", "--grid", "num_leaves=3,7", "--format", "json")
    assert res.status == 0, res.err
    entry = json.loads(res.out)["models"]["lightgbm-lambdarank"]
    assert entry["sampler"] == "grid"
    assert entry["trials_run"] == 2
    table = pd.read_csv(_one_tune(tmp_path) / "trials.csv")
    assert sorted(json.loads(p)["num_leaves"] for p in table["params"]) == [3, 7]


def test_a_cpu_budget_stops_each_model_once_it_is_spent(tmp_path: Path) -> None:
    res = _tune(tmp_path, "--models", "lightgbm,xgboost", "--budget-cpu-s", "0.3",
                "--format", "json")
    assert res.status == 0, res.err
    table = pd.read_csv(_one_tune(tmp_path) / "trials.csv")
    for _, rows in table.groupby("model"):
        cum = rows["cum_cpu_s"].to_numpy()
        assert cum[-1] >= 0.3
        assert len(cum) == 1 or cum[-2] < 0.3
    budgets = [m["budget"] for m in json.loads(res.out)["models"].values()]
    assert budgets == [{"kind": "cpu_s", "amount": 0.3}] * 2


@pytest.mark.parametrize(("args", "words"), [
    (("--grid", "device=cpu,cuda"), ("device", "set once for the run")),
    (("--grid", "nosuch=1,2"), ("nosuch",)),
    (("--budget-trials", "2", "--budget-cpu-s", "5"), ("give one budget",)),
    (("--budget-trials", "0"), ("--budget-trials",)),
    (("--models", "lightgbm,random"), ("random", "no parameters to tune")),
    (("--sampler", "grid"), ("--sampler grid", "ranges")),
    (("--use", "train+vali"), ("--cv",)),
    (("--resume",), ("--resume", "no unfinished tune")),
    (("--resume", "nosuch"), ("--resume nosuch", "not a tune folder")),
    (("--budget-cpu-s", "-1"), ("--budget-cpu-s", "> 0")),
    (("--budget-cpu-s", "nan"), ("--budget-cpu-s", "nan")),
    (("--storage", "nosuch://x"), ("--storage", "nosuch://x")),
    (("--space", "nosuch.toml"), ("--space nosuch.toml", "no such file")),
    (("--grid", "num_leaves=3", "--space", "nosuch.toml"), ("--grid and --space",)),
    (("--model", "lightgbm,xgboost"), ("--model", "unknown model")),
    (("--model", "gbdt"), ("--model gbdt", "one model", "--models")),
    (("--folds", "all"), ("--folds all", "ltrbench run", "--cv K")),
    (("--folds", "3"), ("--folds 3", "--cv K")),
])
def test_a_bad_tune_request_is_one_line_and_exit_2(tmp_path: Path, args: tuple[str, ...],
                                                   words: tuple[str, ...]) -> None:
    res = _tune(tmp_path, *args)
    assert res.status == 2, res.err
    assert not res.traceback, res.err
    assert all(w in res.err for w in words), res.err
    assert not _folder(tmp_path).exists() or not list(_folder(tmp_path).iterdir())


# --- honest selection -------------------------------------------------------------------------

class _Sealed(LetorData):
    """A test split that fails on any use (a LetorData made without its fields: every read of
    one, or of anything built on them, lands in ``__getattr__``)."""

    def __init__(self) -> None:  # no field set
        pass

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the test split was read ({name})")

    def __len__(self) -> int:
        raise AssertionError("the test split was read (len)")

    def __array__(self, *_: Any, **__: Any) -> Any:
        raise AssertionError("the test split was read (array)")


def _plan(tmp_path: Path, models: tuple[str, ...] = ("lightgbm-lambdarank",), **request: Any) -> Any:
    data = letor_folder(tmp_path / "letor")
    config = RunConfig(dataset=str(data), models=models, params=SMALL)
    fields: dict[str, Any] = {"budget_trials": "2", "out": str(tmp_path / "res")}
    return plan_tune(TuneRequest(**{**fields, **request}), lambda: config), data


def test_tuning_never_reads_the_test_split(tmp_path: Path) -> None:
    plan, data = _plan(tmp_path, models=("lightgbm-lambdarank", "xgboost-ndcg"), cv=None)
    splits = replace(load_splits(str(data)), test=_Sealed())
    outcome = tune_loaded(plan, splits)
    assert {m["trials_run"] for m in outcome.summary["models"].values()} == {2}
    plan, data = _plan(tmp_path / "cv", cv="2", use="train+vali")
    outcome = tune_loaded(plan, replace(load_splits(str(data)), test=_Sealed()))
    assert outcome.summary["models"]["lightgbm-lambdarank"]["trials_run"] == 2


def test_a_trial_value_is_the_reference_evaluator_on_its_validation_scores(tmp_path: Path) -> None:
    plan, data = _plan(tmp_path, models=("lightgbm-lambdarank",))
    splits = load_splits(str(data))
    outcome = tune_loaded(plan, splits)
    table = pd.read_csv(outcome.folder / "trials.csv")
    spec = plan.specs[0]
    for row in table[table["state"] == "COMPLETE"].itertuples():
        params = plan.bases[spec.name].with_overrides(**overrides(json.loads(row.params)))
        fit = train_gbdt(spec.library, splits, params, model=spec.name, objective=spec.objective,
                         selection=plan.selection, eval_at=plan.config.eval_at)
        expected = evaluate(splits.vali.y, fit.scores["vali"], qid=splits.vali.qid,
                            metrics="ndcg@10", profile="ltrbench").metrics["ndcg@10"]
        assert row.value == pytest.approx(expected, rel=1e-12, abs=1e-12)
        assert row.best_iteration == fit.best_iteration


# --- pruning, budgets, seeds --------------------------------------------------------------------

class _FakeTrial:
    def __init__(self, prune_at: int) -> None:
        self.prune_at, self.reported = prune_at, []

    def report(self, value: float, step: int) -> None:
        self.reported.append((step, value))

    def should_prune(self) -> bool:
        return len(self.reported) >= self.prune_at


def test_the_hook_reports_each_round_and_prunes_when_told() -> None:
    import optuna

    trial = _FakeTrial(prune_at=3)
    hook = _reporter(trial, offset=100)
    hook(1, 0.5)
    hook(2, 0.6)
    with pytest.raises(optuna.TrialPruned):
        hook(3, 0.4)
    assert trial.reported == [(101, 0.5), (102, 0.6), (103, 0.4)]


def test_budgets_are_counted_alike_and_refuse_nonsense() -> None:
    trials, cpu = Budget("trials", 3), Budget("cpu_s", 2.0)
    assert not trials.spent(2, 100.0)
    assert trials.spent(3, 0.0)
    assert not cpu.spent(100, 1.9)
    assert cpu.spent(1, 2.0)
    with pytest.raises(ConfigError):
        Budget("trials", 0)
    with pytest.raises(ConfigError):
        Budget("cpu_s", math.inf)
    with pytest.raises(ConfigError):
        Budget("minutes", 3)
    assert sampler_seed(0, 3) == sampler_seed(0, 3) != sampler_seed(0, 4) != sampler_seed(1, 3)


# --- search spaces ------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "spec", "words"), [
    ("num_leaf", {"low": 3, "high": 7}, ("num_leaf", "num_leaves")),
    ("seed", {"low": 0, "high": 3}, ("seed", "--seed")),
    ("device", {"choices": ["cpu", "cuda"]}, ("device", "set once")),
    ("num_leaves", {"low": 31, "high": 7}, ("num_leaves", "empty range")),
    ("num_leaves", {"low": 7, "high": 7}, ("num_leaves", "empty range")),
    ("num_leaves", {"low": 3.5, "high": 7}, ("num_leaves.low", "integer")),
    ("learning_rate", {"low": "0.1", "high": 0.3}, ("learning_rate.low", "number")),
    ("learning_rate", {"low": 0.0, "high": 0.3, "log": True}, ("learning_rate", "log", "low > 0")),
    ("learning_rate", {"low": 0.01, "high": 0.3, "log": "yes"}, ("learning_rate.log",)),
    ("subsample", {"low": 0.5, "high": 2.0}, ("subsample",)),
    ("num_leaves", {"low": 3}, ("num_leaves", "low and high")),
    ("num_leaves", {"low": 3, "high": 7, "step": 2}, ("num_leaves", "step")),
    ("num_leaves", [3, 7], ("num_leaves", "expected a table")),
    ("label_gain", {"choices": []}, ("label_gain.choices", "non-empty")),
    ("label_gain", {"choices": ["exp2", "exp2"]}, ("label_gain.choices", "repeats")),
    ("label_gain", {"choices": ["exp3"]}, ("label_gain",)),
    ("label_gain", {"low": 0, "high": 1}, ("label_gain", "choices")),
    ("catboost.random_strength", {"low": 0.1, "high": 1.0}, ("lightgbm.<key>",)),
])
def test_a_bad_dimension_is_an_error_naming_its_key(name: str, spec: Any,
                                                    words: tuple[str, ...]) -> None:
    with pytest.raises(ConfigError) as err:
        parse_dimension(name, spec, "lightgbm", where="space.toml: [lightgbm] ")
    assert all(w in str(err.value) for w in words), str(err.value)


def test_a_space_file_replaces_the_declared_space_of_its_models(tmp_path: Path) -> None:
    path = tmp_path / "space.toml"
    path.write_text('[lightgbm]\nnum_leaves = {low = 3, high = 15, log = true}\n'
                    '[xgboost-ndcg]\n"xgboost.lambdarank_pair_method" = {choices = ["topk"]}\n')
    spaces = load_space_file(path, {"lightgbm-lambdarank": "lightgbm",
                                    "xgboost-ndcg": "xgboost", "catboost-yetirank": "catboost"})
    assert spaces == {"lightgbm-lambdarank": (Dimension("num_leaves", "int", 3, 15, True),),
                      "xgboost-ndcg": (Dimension("xgboost.lambdarank_pair_method",
                                                 "categorical", choices=("topk",)),)}
    path.write_text("[lightgbmm]\nnum_leaves = {low = 3, high = 15}\n")
    with pytest.raises(ConfigError, match=r"space.toml: unknown table lightgbmm; did you mean"):
        load_space_file(path, {"lightgbm-lambdarank": "lightgbm"})
    path.write_text("[lightgbm]\n")
    with pytest.raises(ConfigError, match=r"\[lightgbm\] no parameters"):
        load_space_file(path, {"lightgbm-lambdarank": "lightgbm"})


def test_the_declared_spaces_are_valid_for_their_libraries(tmp_path: Path) -> None:
    plan, _ = _plan(tmp_path, models=("lightgbm-lambdarank", "xgboost-ndcg", "catboost-yetirank"))
    assert {s.library for s in plan.specs} == set(SPACES)  # plan_tune checked every bound
    assert plan.options.sampler == "tpe"
    assert plan.options.budget == Budget("trials", 2)


def test_a_space_bound_the_library_refuses_is_named_before_any_fit(tmp_path: Path) -> None:
    path = tmp_path / "space.toml"
    path.write_text("[catboost]\nnum_leaves = {low = 3, high = 70000}\n")
    with pytest.raises(ConfigError, match="catboost-yetirank: num_leaves = 70000"):
        _plan(tmp_path, models=("catboost-yetirank",), space_file=str(path))


# --- storage and resume -------------------------------------------------------------------------

def _tune_args(out: Path) -> list[str]:
    return [sys.executable, "-m", "bench", "tune", "--dataset", "lightgbm-lambdarank", "--models",
            "lightgbm", "--budget-trials", "5", "--n-trees", "8", "--threads", "1", "--pruner",
            "none", "--no-progress", "--format", "json", "--out", str(out)]


def test_a_killed_study_resumes_to_the_best_trial_of_an_uninterrupted_one(
        tmp_path: Path, shared_data: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # the uninterrupted study in-process (only the killed one needs a process of its own)
    whole = cli(tmp_path, *_tune_args(tmp_path / "whole")[3:])
    assert whole.status == 0, whole.err
    killed = subprocess.Popen(_tune_args(tmp_path / "cut"), env=env, cwd=tmp_path,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    table = tmp_path / "cut" / "tune"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and killed.poll() is None:
        found = list(table.glob("*/trials.csv"))
        if found and len(pd.read_csv(found[0])) >= 2:
            break
        time.sleep(0.05)
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    (folder,) = table.iterdir()
    assert not (folder / "complete").exists()
    assert 2 <= len(pd.read_csv(folder / "trials.csv")) < 5  # killed in the middle
    resumed = cli(tmp_path, *_tune_args(tmp_path / "cut")[3:], "--resume")  # in-process too
    assert resumed.status == 0, resumed.err
    a = json.loads(whole.out)["models"]["lightgbm-lambdarank"]
    b = json.loads(resumed.out)["models"]["lightgbm-lambdarank"]
    assert b["trials_run"] == a["trials_run"] == 5
    assert b["best_params"] == a["best_params"]
    assert b["best_value"] == a["best_value"]
    assert (folder / "complete").exists()
    args = _tune_args(tmp_path / "cut")
    args[args.index("--budget-trials") + 1] = "6"  # another budget: the option given once
    again = cli(tmp_path, *args[3:], "--resume", str(folder))
    assert again.status == 2
    assert "complete" in again.err


def test_a_resume_with_another_budget_is_refused(tmp_path: Path) -> None:
    plan, data = _plan(tmp_path)
    splits = load_splits(str(data))
    folder = tune_loaded(plan, splits).folder
    (folder / "complete").unlink()
    plan2, _ = _plan(tmp_path, budget_trials="3", resume=str(folder))
    with pytest.raises(ConfigError, match="budget differs"):
        tune_loaded(plan2, splits)
    plan3, _ = _plan(tmp_path, resume=str(folder))
    outcome = tune_loaded(plan3, splits)  # nothing left to run: the same two trials
    assert outcome.summary["models"]["lightgbm-lambdarank"]["trials_run"] == 2


def test_a_new_tune_refuses_a_study_that_exists_in_its_storage(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    plan, data = _plan(tmp_path, storage=url)
    splits = load_splits(str(data))
    tune_loaded(plan, splits)
    with pytest.raises(ConfigError, match=r"already exists.*--resume"):
        tune_loaded(plan, splits)


@pytest.mark.parametrize("model", ["lightgbm-lambdarank", "xgboost-ndcg", "catboost-yetirank"])
def test_a_pruned_trial_stops_its_fit_at_the_round_it_is_told(tmp_path: Path, model: str) -> None:
    import optuna

    from bench.benchmark.study import TrialTask, fit_and_score

    plan, data = _plan(tmp_path, models=(model,))
    splits = load_splits(str(data))
    spec = plan.specs[0]
    task = TrialTask(spec=spec, space=(), base=plan.bases[model], profile=plan.profile,
                     selection=plan.selection, eval_at=plan.config.eval_at,
                     parts=((splits.train, splits.vali),))
    trial = _FakeTrial(prune_at=2)
    with pytest.raises(optuna.TrialPruned):
        fit_and_score(task, plan.bases[model], splits.train, splits.vali,
                      _reporter(trial, offset=0))
    assert [step for step, _ in trial.reported] == [1, 2]
