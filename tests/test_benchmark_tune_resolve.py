"""``ltrbench tune`` resolves each choice once (issue 20, item 1): the models' ``ModelSpec``s,
the run's ``Profile``, the selection cutoff as a :class:`~bench.runners.result.Selection`, the
checked search spaces and the study options are built by
:func:`bench.benchmark.tune_run.plan_tune`; nothing below looks a name up again, and the library
runners take the cutoff as a number, never a name to re-parse."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hostile_kit import letor_folder

from bench.benchmark.config import RunConfig
from bench.benchmark.study import Budget
from bench.benchmark.tune_run import TuneRequest, plan_tune, run_tune, tune_loaded
from bench.errors import ConfigError
from bench.metrics import families
from bench.metrics.profiles import get_profile
from bench.runners import registry
from bench.runners.params import Params
from bench.runners.registry import get_model
from bench.runners.result import (
    DEFAULT_SELECTION,
    Selection,
    library_eval_at,
    selection_at_door,
)
from bench.runners.search_dimension import Dimension


def _refuse(*_: Any, **__: Any) -> Any:
    raise AssertionError("a name was looked up again below the door")


def _request(tmp_path: Path, **changes: Any) -> TuneRequest:
    folder = letor_folder(tmp_path / "letor")
    fields: dict[str, Any] = {"grid": "num_leaves=3,7", "cv": "2",
                              "out": str(tmp_path / "res"),
                              "inputs": [("--dataset", str(folder))]}
    return TuneRequest(**{**fields, **changes})


def _config(tmp_path: Path, **changes: Any) -> RunConfig:
    params = Params(n_trees=5, num_leaves=3, early_stopping_rounds=2, n_threads=1)
    changes.setdefault("models", ("lightgbm-lambdarank",))
    return RunConfig(dataset=str(tmp_path / "letor"), cache=False, params=params, **changes)


def test_selection_is_the_libraries_ndcg_at_a_cutoff() -> None:
    assert Selection.parse("ndcg@10") == Selection(10) == DEFAULT_SELECTION
    assert Selection(5).metric == "ndcg@5"
    assert library_eval_at(Selection(7), (1, 3, 10)) == (1, 3, 7, 10)
    assert library_eval_at(Selection(3), (1, 3, 10)) == (1, 3, 10)


@pytest.mark.parametrize("k", [0, -1, True, 2.0, "10"])
def test_selection_refuses_a_cutoff_that_is_not_a_positive_integer(k: Any) -> None:
    with pytest.raises(ConfigError, match="selection cutoff"):
        Selection(k)


@pytest.mark.parametrize("name", ["map@10", "ndcg", "ndcg@0", "NDCG@10", "ndcg@10 "])
def test_selection_parse_refuses_anything_but_ndcg_at_k(name: str) -> None:
    with pytest.raises(ConfigError, match="ndcg@k"):
        Selection.parse(name)


def test_a_door_given_a_selection_and_a_different_name_refuses_both() -> None:
    assert selection_at_door(Selection(5), "ndcg@5") == Selection(5)
    assert selection_at_door(None, None) is DEFAULT_SELECTION
    with pytest.raises(ConfigError, match="disagree"):
        selection_at_door(Selection(5), "ndcg@10")


def test_the_plan_holds_typed_values_resolved_once(tmp_path: Path) -> None:
    request = _request(tmp_path, sampler="random", seed="4")
    plan = plan_tune(request, lambda: _config(tmp_path, select_metric="ndcg@3",
                                              profile="trec_eval"))
    assert plan.specs == (get_model("lightgbm-lambdarank"),)
    assert plan.profile == get_profile("trec_eval")
    assert plan.selection == Selection(3)
    assert (plan.options.sampler, plan.options.seed, plan.cv) == ("random", 4, 2)
    assert plan.options.budget == Budget("trials", 2)  # the grid's size
    assert plan.spaces == {"lightgbm-lambdarank": (Dimension("num_leaves", "categorical",
                                                             choices=(3, 7)),)}
    assert plan.bases["lightgbm-lambdarank"].seed == 4


def test_the_output_folder_is_checked_before_the_model_and_the_config(tmp_path: Path) -> None:
    folder = letor_folder(tmp_path / "letor")
    request = _request(tmp_path, out=str(folder), model="nosuch")

    def no_config() -> RunConfig:
        raise AssertionError("the config was built before the output folder was checked")

    with pytest.raises(ConfigError, match="--out"):
        plan_tune(request, no_config)


def test_the_search_options_are_checked_before_the_config(tmp_path: Path) -> None:
    def no_config() -> RunConfig:
        raise AssertionError("the config was built first")

    with pytest.raises(ConfigError, match="--cv"):
        plan_tune(_request(tmp_path, cv="1"), no_config)
    with pytest.raises(ConfigError, match="--budget-trials"):
        plan_tune(_request(tmp_path, budget_trials="0"), no_config)
    with pytest.raises(ConfigError, match="--seed"):
        plan_tune(_request(tmp_path, seed="-1"), no_config)
    with pytest.raises(ConfigError, match="--grid num_leaf"):
        plan_tune(_request(tmp_path, grid="num_leaf=3"), no_config)
    with pytest.raises(ConfigError, match="only GBDT"):
        plan_tune(_request(tmp_path), lambda: _config(tmp_path, models=("random",)))


def test_nothing_below_the_plan_looks_a_name_up_again(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.benchmark.pipeline import load_splits

    plan = plan_tune(_request(tmp_path), lambda: _config(tmp_path, select_metric="ndcg@3"))
    splits = load_splits(plan.config.dataset, cache=False)
    for module, name in ((registry, "get_model"), (families, "selection_cutoff")):
        monkeypatch.setattr(module, name, _refuse)
    monkeypatch.setattr("bench.runners.result.selection_cutoff", _refuse)
    outcome = tune_loaded(plan, splits)
    entry = outcome.summary["models"]["lightgbm-lambdarank"]
    assert entry["metric"] == "ndcg@3"
    assert entry["trials_run"] == 2
    assert entry["profile"] == "ltrbench"


def test_run_tune_writes_the_folder_the_outcome_names(tmp_path: Path) -> None:
    plan = plan_tune(_request(tmp_path), lambda: _config(tmp_path))
    outcome = run_tune(plan, show_progress=False)
    assert (outcome.folder / "best.toml").is_file()
    assert outcome.folder.parent == tmp_path / "res" / "tune"
    doc = outcome.as_dict()
    entry = doc["models"]["lightgbm-lambdarank"]
    assert entry["best_config"] == str(outcome.folder / "best" / "lightgbm-lambdarank.toml")
    assert doc["profile"] == plan.config.profile
    assert doc["metric"] == "ndcg@10"


def test_the_library_logs_the_selection_cutoff_it_is_given(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.datasets.resolve import load_dataset
    from bench.runners.lightgbm import fit_lightgbm

    splits = load_dataset(str(letor_folder(tmp_path / "letor")), cache=False)
    monkeypatch.setattr("bench.runners.result.selection_cutoff", _refuse)
    params = Params(n_trees=4, num_leaves=3, early_stopping_rounds=2, n_threads=1)
    _, lib, result = fit_lightgbm(splits.train, splits.vali, params, eval_at=(1,),
                                  selection=Selection(2), log_train=False)
    assert lib["eval_at"] == [1, 2]
    assert set(result.evallog["metric"]) == {"ndcg@1", "ndcg@2"}
    best = result.evallog[result.evallog["metric"] == "ndcg@2"]
    assert result.best_iteration == int(best["iteration"].to_numpy()[best["value"].to_numpy().argmax()])
