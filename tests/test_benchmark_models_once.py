"""Each model name is resolved once per run (issue 20, item 1), and ``tune`` validates its
config once (its search and its ``best.toml`` reuse the validated value).

A counter is put on :func:`bench.runners.registry.get_model` (the look-up of one name) in every
module that holds it, then a tiny run goes through the real entry points: ``ltrbench run``
(``--models``; ``--config`` with ``--models``), :func:`bench.benchmark.api.run`, ``ltrbench
tune`` and ``ltrbench crosscheck``. Before this change a name was looked up 2 to 6 times per run
(``--models`` at the door and again in ``RunConfig``; a config file's names in ``from_dict``,
again in ``RunConfig`` and again after each ``replace``; tune's model 6 times).
"""

from __future__ import annotations

import copy
import pickle
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hostile_kit import cli, letor_folder

import bench.benchmark.pipeline
import bench.benchmark.tune
import bench.benchmark.tune_run
import bench.cli
import bench.commands.crosscheck
import bench.commands.run
import bench.commands.run_options
import bench.commands.tune
import bench.crosscheck.find
import bench.engines.dask_trainer
import bench.runners.dispatch  # noqa: F401  (every module that holds get_model is loaded)
from bench.benchmark import api
from bench.benchmark.config import DEFAULT_MODELS, RunConfig
from bench.errors import ConfigError
from bench.runners import registry
from bench.runners.params import Params
from bench.runners.registry import ModelNames, expand_models, get_model

CUSTOM = '[custom_models.mine]\nfactory = "custom_rankers:make_linear"\n'


class Lookups:
    """How often each model name was looked up, and how often expand_models ran."""

    def __init__(self) -> None:
        self.names: Counter[str] = Counter()
        self.expansions = 0


@pytest.fixture
def lookups(monkeypatch: pytest.MonkeyPatch) -> Lookups:
    """A counter on ``get_model`` and ``expand_models`` in every ``bench`` module holding them."""
    seen = Lookups()
    get, expand = registry.get_model, registry.expand_models

    def counted_get(name: str, custom: Any = None) -> registry.ModelSpec:
        seen.names[name] += 1
        return get(name, custom)

    def counted_expand(*args: Any, **kwargs: Any) -> ModelNames:
        seen.expansions += 1
        return expand(*args, **kwargs)

    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("bench"):
            if getattr(module, "get_model", None) is get:
                monkeypatch.setattr(module, "get_model", counted_get)
            if getattr(module, "expand_models", None) is expand:
                monkeypatch.setattr(module, "expand_models", counted_expand)
    return seen


@pytest.fixture
def validations(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per ``RunConfig`` validation (``__post_init__``)."""
    calls: list[int] = []
    original = RunConfig.__post_init__

    def counted(self: RunConfig) -> None:
        calls.append(1)
        original(self)

    monkeypatch.setattr(RunConfig, "__post_init__", counted)
    return calls


def _once(lookups: Lookups, *names: str) -> None:
    assert dict(lookups.names) == dict.fromkeys(names, 1)


def test_run_models_looks_each_name_up_once(tmp_path: Path, lookups: Lookups,
                                            validations: list[int]) -> None:
    letor_folder(tmp_path / "letor")
    res = cli(tmp_path, "run", "--dataset", "letor", "--models", "lightgbm,random", "--seeds",
              "0", "--quick", "--no-crosscheck", "--no-progress", "--out", "res")
    assert res.status == 0, res.err
    _once(lookups, "lightgbm-lambdarank", "random")
    assert lookups.expansions == 1
    assert len(validations) == 1


def test_a_config_file_and_models_look_each_name_up_once(tmp_path: Path,
                                                         lookups: Lookups) -> None:
    """The file's names are resolved when it is read; ``--models`` names it lists too take
    that spec (its custom model's included), the others are looked up once."""
    letor_folder(tmp_path / "letor")
    (tmp_path / "c.toml").write_text('dataset = "letor"\nmodels = ["random", "mine"]\n'
                                     f"seeds = [0]\nquick = true\n{CUSTOM}", encoding="utf-8")
    res = cli(tmp_path, "run", "--config", "c.toml", "--models", "mine,lightgbm,random",
              "--no-crosscheck", "--no-progress", "--out", "res")
    assert res.status == 0, res.err
    _once(lookups, "random", "mine", "lightgbm-lambdarank")


def test_the_default_models_are_not_looked_up_per_run(lookups: Lookups) -> None:
    config = RunConfig()
    assert config.models == DEFAULT_MODELS
    assert not lookups.names
    assert config.model_spec("random") == get_model("random")


def test_the_api_looks_each_name_up_once(tmp_path: Path, lookups: Lookups,
                                         validations: list[int]) -> None:
    folder = letor_folder(tmp_path / "letor")
    result = api.run(str(folder), models="lightgbm,random", seeds=[0], quick=True,
                     out_dir=tmp_path / "res", crosscheck=False)
    _once(lookups, "lightgbm-lambdarank", "random")
    assert len(validations) == 1
    assert result.manifest["models"]["random"]["library"] == "baseline"


def test_crosscheck_looks_each_name_up_once(tmp_path: Path, lookups: Lookups) -> None:
    letor_folder(tmp_path / "letor")
    res = cli(tmp_path, "crosscheck", "--dataset", "letor", "--models", "lightgbm,random",
              "--seeds", "0", "--quick", "--retrain", "--out", "res", "--format", "json")
    assert res.status in (0, 1), res.err  # 1: a mismatch on 6 test queries; not the point
    _once(lookups, "lightgbm-lambdarank", "random")
    assert lookups.expansions == 1


def test_tune_looks_its_model_up_once_and_validates_once(tmp_path: Path, lookups: Lookups,
                                                         validations: list[int]) -> None:
    """One look-up of the model, one validation of the config; ``best.toml`` is made from the
    validated config and still is a config that ``ltrbench run --config`` takes."""
    letor_folder(tmp_path / "letor")
    res = cli(tmp_path, "tune", "--dataset", "letor", "--model", "xgboost", "--grid",
              "max_depth=2,3", "--cv", "2", "--n-trees", "5", "--threads", "1",
              "--no-progress", "--out", "res")
    assert res.status == 0, res.err
    _once(lookups, "xgboost-ndcg")
    assert len(validations) == 1
    best = next((tmp_path / "res" / "tune").glob("*/best.toml"))
    config = RunConfig.load(best)
    assert config.models == ("xgboost-ndcg",)
    # the dataset as an absolute path: best.toml run from another folder reads the same data
    assert config.dataset == str((tmp_path / "letor").resolve())
    assert config.model_params["xgboost-ndcg"]["max_depth"] in (2, 3)
    assert config.params.n_trees == 5
    run = cli(tmp_path, "run", "--config", str(best), "--seeds", "0", "--no-crosscheck",
              "--no-progress", "--out", "res")
    assert run.status == 0, run.err


def test_for_model_narrows_without_validating_again(validations: list[int]) -> None:
    config = RunConfig(models=("lightgbm-lambdarank", "random"), params=Params(n_trees=5))
    spec = config.model_spec("lightgbm-lambdarank")
    narrowed = config.for_model(spec).with_model_params(spec, {"num_leaves": 7})
    assert len(validations) == 1
    assert narrowed.models == ("lightgbm-lambdarank",)
    assert narrowed.model_spec("lightgbm-lambdarank") is spec
    assert narrowed.model_params == {"lightgbm-lambdarank": {"num_leaves": 7}}
    assert config.model_params == {}  # the validated config is left as it was
    assert RunConfig.from_dict(narrowed.to_dict()) == narrowed  # a valid config as written


def test_for_model_checks_what_is_new() -> None:
    """CatBoost takes at most 65536 leaves (LightGBM 131072): a config valid for its own models
    is refused for a CatBoost model it did not name, as ``replace`` refused it before."""
    config = RunConfig(models=("random",), params=Params(num_leaves=100_000))
    with pytest.raises(ConfigError, match=r"^\[params\] num_leaves"):
        config.for_model(get_model("catboost-yetirank"))
    with pytest.raises(ConfigError, match=r"^\[model_params.lightgbm-lambdarank\] num_leaves"):
        RunConfig(models=("lightgbm-lambdarank",)).with_model_params(
            get_model("lightgbm-lambdarank"), {"num_leaves": 1})
    with pytest.raises(ConfigError, match="is not a LightGBM, XGBoost or CatBoost model"):
        config.with_model_params(get_model("random"), {"num_leaves": 7})


def test_model_names_carry_their_specs_through_copies() -> None:
    names = expand_models("lightgbm,random")
    specs = names.specs
    assert names.by_name()["random"] == get_model("random")
    for other in (copy.copy(names), copy.deepcopy(names), pickle.loads(pickle.dumps(names))):
        assert isinstance(other, ModelNames)
        assert other.specs == specs
    assert names == ("lightgbm-lambdarank", "random")
    assert repr(names) == "('lightgbm-lambdarank', 'random')"


def test_replace_looks_nothing_up_again(monkeypatch: pytest.MonkeyPatch) -> None:
    config = RunConfig.from_dict({"models": ["lightgbm", "mine"], "custom_models": {
        "mine": {"factory": "custom_rankers:make_linear"}}})

    def refuse(*_: Any, **__: Any) -> Any:
        raise AssertionError("looked up again")

    monkeypatch.setattr(registry, "get_model", refuse)
    monkeypatch.setattr("bench.benchmark.config.get_model", refuse)
    again = replace(config, seeds=(4,))
    assert again.model_spec("mine").description == "user model custom_rankers:make_linear"
    assert again.model_spec("lightgbm-lambdarank").library == "lightgbm"


def test_a_carried_custom_model_that_is_no_longer_declared_is_unknown() -> None:
    table: dict[str, Any] = {"mine": {"factory": "custom_rankers:make_linear"}}
    config = RunConfig(models=("random", "mine"), custom_models=table)
    with pytest.raises(ConfigError, match="unknown model 'mine'"):
        replace(config, custom_models={})


@pytest.mark.parametrize(("models", "error"), [
    ("random", "got the string 'random'"),
    (("lightgbm",), r"registered names, without repeats; got \['lightgbm'\]"),
    (("random", "random"), "named twice"),
    (("nope",), "unknown model 'nope'"),
])
def test_plain_names_are_refused_as_before(models: Any, error: str) -> None:
    with pytest.raises(ConfigError, match=error):
        RunConfig(models=models)


def test_an_alias_in_model_params_names_its_model() -> None:
    """``[model_params.lightgbm]`` was refused with "unknown model 'lightgbm'; did you mean
    'lightgbm'?" and no key; it names the table and the model the alias stands for."""
    with pytest.raises(ConfigError, match=r"^\[model_params.lightgbm\]: 'lightgbm' is an alias "
                       r"of lightgbm-lambdarank; name the model itself"):
        RunConfig.from_dict({"models": ["random"], "model_params": {"lightgbm": {"n_trees": 3}}})


def test_the_models_option_keeps_its_origin_and_hint(tmp_path: Path) -> None:
    res = cli(tmp_path, "run", "--models", "lightgbmm", "--out", "res")
    assert res.status == 2
    assert res.err.startswith("error: --models: unknown model 'lightgbmm'; did you mean "
                              "'lightgbm'?")


def test_a_run_result_reads_its_config_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """``RunResult.config`` (and ``.profile``, ``.metrics`` through it) read and validated
    ``config.toml`` again at every access."""
    from bench.benchmark.api import RunResult

    run = next((Path(__file__).resolve().parents[1] / "results" / "runs").glob("synthetic-*"))
    calls = []
    real = RunConfig.from_dict.__func__  # type: ignore[attr-defined]

    def counted(cls: type[RunConfig], doc: Any) -> RunConfig:
        calls.append(1)
        return real(cls, doc)  # type: ignore[no-any-return]

    monkeypatch.setattr(RunConfig, "from_dict", classmethod(counted))
    result = RunResult(run)
    assert result.config is result.config
    assert result.profile == result.profile
    assert len(result.metrics) > 0
    assert len(calls) == 1
