"""Hostile model names at every door that takes one (``--models``, ``models`` and
``[model_params.<model>]`` in a file, ``RunConfig(models=...)``, ``replace``, ``tune --model``,
``crosscheck --models``): each is refused with one clear error naming where it came from, and a
name resolved at the door is not resolved differently further down.

Written with the change that resolves each name once (issue 20, item 1); on the code before it,
3 of these 16 cases failed (the alias in ``[model_params]``, twice; the string as ``models``).
"""

from __future__ import annotations

import pickle
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hostile_kit import cli

from bench.benchmark.config import RunConfig
from bench.errors import ConfigError

CUSTOM = {"mine": {"factory": "custom_rankers:make_linear"}}


def _refused(doc: dict[str, Any], pattern: str) -> None:
    with pytest.raises(ConfigError, match=pattern):
        RunConfig.from_dict(doc)


def test_an_alias_as_a_model_params_table_names_the_table_and_the_model() -> None:
    _refused({"models": ["random"], "model_params": {"xgboost": {"n_trees": 3}}},
             r"^\[model_params.xgboost\]: 'xgboost' is an alias of xgboost-ndcg")


def test_an_alias_table_with_a_bad_value_is_refused_for_the_alias_first() -> None:
    _refused({"models": ["random"], "model_params": {"lightgbm": {"n_trees": -3}}},
             r"^\[model_params.lightgbm\]: 'lightgbm' is an alias")


def test_a_string_as_the_models_of_a_run_config_is_not_read_letter_by_letter() -> None:
    with pytest.raises(ConfigError, match=r"^models: expected a tuple of model names; got the "
                       r"string 'random,als'"):
        RunConfig(models="random,als")  # type: ignore[arg-type]


def test_a_typo_in_a_model_params_table_gets_the_closest_name() -> None:
    _refused({"models": ["random"], "model_params": {"lightgbm-lambdarnk": {"n_trees": 3}}},
             r"^\[model_params.lightgbm-lambdarnk\]: unknown model 'lightgbm-lambdarnk'; did "
             r"you mean 'lightgbm-lambdarank'")


def test_a_custom_model_dropped_by_replace_is_unknown_again() -> None:
    config = RunConfig.from_dict({"models": ["random", "mine"], "custom_models": CUSTOM})
    with pytest.raises(ConfigError, match="unknown model 'mine'"):
        replace(config, custom_models={})


def test_a_custom_models_factory_changed_by_replace_is_the_one_recorded() -> None:
    config = RunConfig.from_dict({"models": ["random", "mine"], "custom_models": CUSTOM})
    table = {"mine": {"factory": "custom_rankers:LinearRanker"}}  # a table, as in a file
    other = replace(config, custom_models=table)  # type: ignore[arg-type]
    assert other.model_spec("mine").description == "user model custom_rankers:LinearRanker"


def test_a_pickled_config_keeps_its_models() -> None:
    config = RunConfig.from_dict({"models": "lightgbm,random"})
    again = pickle.loads(pickle.dumps(config))
    assert again == config
    assert again.model_spec("lightgbm-lambdarank").library == "lightgbm"


def test_an_alias_given_to_run_config_directly_is_refused_as_not_canonical() -> None:
    with pytest.raises(ConfigError, match=r"registered names, without repeats; got \['xgboost'\]"):
        RunConfig(models=("xgboost",))


def test_an_alias_and_the_model_it_covers_give_the_model_once() -> None:
    assert RunConfig.from_dict({"models": "lightgbm,lightgbm-lambdarank"}).models == (
        "lightgbm-lambdarank",)


@pytest.mark.parametrize(("models", "error"), [
    ("lightgbmm", "error: --models: unknown model 'lightgbmm'; did you mean 'lightgbm'?"),
    ("random,random", "error: --models: model 'random' named twice"),
    (" , ", "error: --models: no models given"),
    ("mine", "error: --models: unknown model 'mine'"),
])
def test_the_models_option_names_itself(tmp_path: Path, models: str, error: str) -> None:
    res = cli(tmp_path, "run", "--models", models, "--out", "res")
    assert res.status == 2
    assert res.err.startswith(error), res.err


def test_models_with_a_config_see_its_custom_models(tmp_path: Path) -> None:
    (tmp_path / "c.toml").write_text('models = ["random"]\n[custom_models.mine]\n'
                                     'factory = "custom_rankers:make_linear"\n', encoding="utf-8")
    res = cli(tmp_path, "run", "--config", "c.toml", "--models", "mine,mien", "--out", "res")
    assert res.status == 2
    assert "--models: unknown model 'mien'; did you mean 'mine'?" in res.err
    assert res.err.rstrip().endswith("custom: mine")


def test_tune_refuses_an_alias_of_many_models(tmp_path: Path) -> None:
    res = cli(tmp_path, "tune", "--model", "catboost,xgboost", "--grid", "max_depth=2",
              "--out", "res")
    assert res.status == 2
    assert "unknown model 'catboost,xgboost'" in res.err


def test_crosscheck_refuses_models_without_a_built_in_metric(tmp_path: Path) -> None:
    res = cli(tmp_path, "crosscheck", "--models", "random,als", "--run", ".", "--out", "res")
    assert res.status == 2
    assert "none of random, als is a LightGBM, XGBoost or CatBoost model" in res.err
