"""Hostile cases of round 13 (issue 19): an ML-platform engineer's plug-ins — custom rankers,
the typed config seen from a TOML file, the Python API and the command line, and ``tune``.

New here:

- **one config, one hash**: ``l1 = 0``, ``0.0`` and ``-0.0`` (in ``[params]``, in
  ``[model_params.<model>]``, in ``Params(...)`` from Python, in ``[als]``) were three configs
  with three hashes and recorded the spelling they were given; every typed value now has one
  canonical form (the float ``0.0``), which is what trains, what ``config.toml`` records and what
  is hashed. Values a library reads apart stay apart: a raw ``[params.lightgbm]`` ``1`` and
  ``1.0``, a custom model's ``params`` (the user's code may tell ``1`` from ``1.0``).
- **tune's record and best.toml**: ``tune --config FILE --n-trees 3`` did not say that the
  option won over the file (a run's manifest does: ``config_file.options_over_file``); now
  ``plan.json`` and ``summary.json`` do. ``best.toml`` held the dataset's absolute path (a tune
  folder committed or moved with its data pointed at the old place); it now holds the path
  relative to its own folder with ``paths_relative_to = "config file"``, so it runs from any
  working folder and after the tune folder and the data move together.

Oracles: equality of hashes and values, hand arithmetic, the exit status and the words of the
error, the bytes of an input file.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import cli, letor_folder, own_error, toy_splits

LGB = ["lightgbm-lambdarank"]


def _hash(doc: dict[str, Any]) -> str:
    from bench.benchmark.config import RunConfig

    return RunConfig.from_dict(doc).config_hash()


def _load(tmp: Path, text: str, name: str = "c.toml") -> Any:
    from bench.benchmark.config import RunConfig

    path = tmp / name
    path.write_text(text)
    return RunConfig.load(path)


# ------------------------------------------------------------------ one config, one hash
@pytest.mark.parametrize("where", ["params", "model"])
def test_zero_spelled_three_ways_is_one_config(where: str) -> None:
    docs = []
    for v in (0, 0.0, -0.0):
        table = {"l1": v}
        docs.append({"models": LGB, "params": table} if where == "params"
                    else {"models": LGB, "model_params": {LGB[0]: table}})
    assert len({_hash(d) for d in docs}) == 1


def test_a_float_parameter_given_as_an_integer_is_held_as_a_float() -> None:
    from bench.benchmark.config import RunConfig

    c = RunConfig.from_dict({"models": LGB, "params": {"learning_rate": 1, "l2": 0}})
    assert type(c.params.learning_rate) is float
    assert type(c.params.l2) is float


def test_negative_zero_is_recorded_as_zero_in_config_toml(tmp_path: Path) -> None:
    c = _load(tmp_path, 'models = ["lightgbm-lambdarank"]\n[params]\nl1 = -0.0\nmin_split_gain = 0\n')
    text = c.to_toml()
    assert "l1 = 0.0" in text
    assert "-0.0" not in text
    assert "min_split_gain = 0.0" in text


def test_the_python_api_and_the_file_hash_the_same_zero(tmp_path: Path) -> None:
    from bench.benchmark.config import DEFAULT_RUN_PARAMS, RunConfig

    api = RunConfig(models=tuple(LGB), params=DEFAULT_RUN_PARAMS.with_overrides(l1=0))
    file = _load(tmp_path, 'models = ["lightgbm-lambdarank"]\n[params]\nl1 = -0.0\n')
    assert api.config_hash() == file.config_hash()


def test_params_built_in_python_hold_canonical_values() -> None:
    from bench.runners.params import Params

    p = Params(l1=-0.0, min_child_weight=1, learning_rate=np.float64(0.5))
    assert math.copysign(1, p.l1) == 1
    assert type(p.min_child_weight) is float
    assert type(p.learning_rate) is float


def test_model_params_table_holds_canonical_values() -> None:
    from bench.benchmark.config import RunConfig

    c = RunConfig.from_dict({"models": LGB, "model_params": {LGB[0]: {"l2": -0.0, "l1": 3}}})
    table = c.model_params[LGB[0]]
    assert table == {"l2": 0.0, "l1": 3.0}
    assert type(table["l1"]) is float
    assert math.copysign(1, table["l2"]) == 1


def test_the_trained_value_is_the_canonical_one() -> None:
    from bench.benchmark.config import RunConfig

    c = RunConfig.from_dict({"models": LGB, "model_params": {LGB[0]: {"min_split_gain": -0.0}}})
    got = c.params_for(LGB[0], 0).min_split_gain
    assert type(got) is float
    assert math.copysign(1, got) == 1


def test_als_integer_and_float_regularization_are_one_config() -> None:
    assert _hash({"models": ["als"], "als": {"regularization": 1}}) == \
        _hash({"models": ["als"], "als": {"regularization": 1.0}})


def test_raw_negative_zero_is_zero() -> None:
    hashes = {_hash({"models": LGB, "params": {"lightgbm": {"path_smooth": v}}})
              for v in (0.0, -0.0)}
    assert len(hashes) == 1


def test_raw_integer_and_float_keep_apart() -> None:
    # a library reads 1 and 1.0 apart (LightGBM refuses "1.0" for an int parameter)
    a = _hash({"models": LGB, "params": {"lightgbm": {"path_smooth": 0}}})
    b = _hash({"models": LGB, "params": {"lightgbm": {"path_smooth": 0.0}}})
    assert a != b


def test_custom_params_keep_the_users_spelling() -> None:
    def doc(v: Any) -> dict[str, Any]:
        return {"models": ["m"], "custom_models": {"m": {
            "factory": "sklearn.linear_model:Ridge", "params": {"alpha": v}}}}
    assert _hash(doc(0)) != _hash(doc(0.0))  # the user's factory may tell them apart


def test_different_values_keep_different_hashes() -> None:
    base = {"models": LGB}
    hashes = [_hash({**base, "params": {"l1": v}}) for v in (0.0, 1e-300, 1.0)]
    hashes.append(_hash({**base, "params": {"lambdarank_norm": False}}))
    hashes.append(_hash(base))  # lambdarank_norm true, l1 0.0: the default
    assert len(set(hashes)) == 4
    assert hashes[0] == hashes[-1]


def test_a_numpy_float_and_a_python_float_are_one_config() -> None:
    assert _hash({"models": LGB, "params": {"l1": np.float32(0.5)}}) == \
        _hash({"models": LGB, "params": {"l1": 0.5}})


def test_to_toml_round_trip_keeps_the_hash(tmp_path: Path) -> None:
    c = _load(tmp_path, 'models = ["lightgbm-lambdarank"]\n[params]\nl1 = 0\nl2 = -0.0\n'
              '[params.lightgbm]\npath_smooth = -0.0\n')
    again = _load(tmp_path, c.to_toml(), "again.toml")
    assert again.config_hash() == c.config_hash()
    assert again == c


def test_an_integer_too_large_for_a_float_is_refused_by_name() -> None:
    from bench.runners.params import Params

    assert own_error(lambda: Params(l1=10**400), "l1", "finite number") is None


def test_an_integer_too_large_for_a_float_in_a_file_is_refused(tmp_path: Path) -> None:
    from bench.errors import ConfigError

    with pytest.raises(ConfigError, match=r"c\.toml.*\[params\] min_split_gain"):
        _load(tmp_path, "[params]\nmin_split_gain = " + "9" * 400 + "\n")


def test_a_nan_in_a_float_field_is_refused_not_hashed() -> None:
    assert own_error(lambda: _hash({"models": LGB, "params": {"l2": math.nan}}), "l2",
                     "finite") is None


@pytest.mark.parametrize("spelt", ["Synthetic", " synthetic ", "SYNTHETIC"])
def test_a_catalogue_name_in_another_case_is_one_config(spelt: str) -> None:
    from bench.benchmark.config import RunConfig

    c = RunConfig.from_dict({"models": LGB, "dataset": spelt})
    assert c.dataset == "synthetic"
    assert c.config_hash() == _hash({"models": LGB, "dataset": "synthetic"})


@pytest.mark.parametrize("spelt", ["./synthetic", "Synthetic:", "data/Synthetic", "x.y"])
def test_a_path_or_a_half_typed_name_stays_as_written(spelt: str) -> None:
    from bench.benchmark.config import RunConfig

    assert RunConfig.from_dict({"models": LGB, "dataset": spelt}).dataset == spelt


def test_a_catalogue_option_is_kept(tmp_path: Path) -> None:
    from bench.benchmark.config import RunConfig

    c = RunConfig.from_dict({"models": LGB, "dataset": "Synthetic-MSLR30K:0.01:Fold3"})
    assert c.dataset == "synthetic-mslr30k:0.01:Fold3"


def test_cutoffs_in_another_order_are_one_config() -> None:
    from bench.benchmark.config import RunConfig

    c = RunConfig.from_dict({"models": LGB, "eval_at": [10, 1, 5, 3]})
    assert c.eval_at == (1, 3, 5, 10)
    assert c.config_hash() == _hash({"models": LGB})  # the default [1, 3, 5, 10]


def test_the_dataset_option_and_the_file_spelling_hash_equal(tmp_path: Path) -> None:
    from bench.commands.run_options import config_from_args

    (tmp_path / "c.toml").write_text('models = ["lightgbm-lambdarank"]\ndataset = "synthetic"\n')
    file = config_from_args(_args("--config", str(tmp_path / "c.toml")))
    opt = config_from_args(_args("--models", "lightgbm", "--dataset", "Synthetic"))
    assert file.config_hash() == opt.config_hash()


# ------------------------------------------------------------------ command line = file
def _args(*argv: str) -> argparse.Namespace:
    from bench.cli import build_parser

    return build_parser().parse_args(["run", *argv])


def test_n_trees_option_equals_the_same_key_in_a_file(tmp_path: Path) -> None:
    from bench.commands.run_options import config_from_args

    (tmp_path / "c.toml").write_text('models = ["lightgbm-lambdarank"]\n[params]\nn_trees = 7\n')
    file = config_from_args(_args("--config", str(tmp_path / "c.toml")))
    opt = config_from_args(_args("--models", "lightgbm-lambdarank", "--n-trees", "7"))
    assert file.config_hash() == opt.config_hash()


def test_an_option_over_the_file_is_recorded_with_both_values(tmp_path: Path) -> None:
    from bench.commands.run_options import config_from_args

    (tmp_path / "c.toml").write_text('models = ["lightgbm-lambdarank"]\n[params]\nn_trees = 7\n')
    c = config_from_args(_args("--config", str(tmp_path / "c.toml"), "--n-trees", "9"))
    over = c.over_file["options_over_file"]
    assert over["params.n_trees"] == {"option": "--n-trees", "file": 7, "used": 9}
    assert c.params.n_trees == 9


def test_an_option_equal_to_the_file_is_not_recorded_as_over_it(tmp_path: Path) -> None:
    from bench.commands.run_options import config_from_args

    (tmp_path / "c.toml").write_text('models = ["lightgbm-lambdarank"]\nseeds = [0]\n')
    c = config_from_args(_args("--config", str(tmp_path / "c.toml"), "--seeds", "0"))
    assert c.over_file["options_over_file"] == {}


def test_a_key_spelled_with_a_dash_is_refused_with_the_right_name(tmp_path: Path) -> None:
    from bench.errors import ConfigError

    with pytest.raises(ConfigError, match=r"c\.toml.*n-trees.*did you mean 'n_trees'"):
        _load(tmp_path, "[params]\nn-trees = 3\n")


def test_a_key_in_capitals_is_refused_with_the_right_name(tmp_path: Path) -> None:
    from bench.errors import ConfigError

    with pytest.raises(ConfigError, match=r"c\.toml.*Seeds.*did you mean 'seeds'"):
        _load(tmp_path, "Seeds = [1]\n")


def test_params_nested_in_params_is_refused(tmp_path: Path) -> None:
    from bench.errors import ConfigError

    with pytest.raises(ConfigError, match=r"c\.toml.*\[params\] params"):
        _load(tmp_path, "[params.params]\nn_trees = 3\n")


def test_a_model_table_at_the_top_is_refused(tmp_path: Path) -> None:
    from bench.errors import ConfigError

    with pytest.raises(ConfigError, match=r"c\.toml.*lightgbm-lambdarank"):
        _load(tmp_path, '["lightgbm-lambdarank"]\nn_trees = 3\n')


def test_paths_relative_to_with_another_value_is_refused(tmp_path: Path) -> None:
    from bench.errors import ConfigError

    with pytest.raises(ConfigError, match=r"c\.toml.*paths_relative_to.*config file"):
        _load(tmp_path, 'paths_relative_to = "home"\n')


def test_paths_relative_to_the_config_file_reads_its_folder(tmp_path: Path) -> None:
    letor_folder(tmp_path / "sub" / "letor")
    c = _load(tmp_path, 'paths_relative_to = "config file"\ndataset = "letor"\n',
              name="sub/c.toml") if (tmp_path / "sub").is_dir() else None
    assert c is not None
    assert Path(c.dataset) == (tmp_path / "sub" / "letor").resolve()


def test_paths_relative_to_the_config_file_keeps_a_catalogue_name(tmp_path: Path) -> None:
    c = _load(tmp_path, 'paths_relative_to = "config file"\ndataset = "synthetic"\n')
    assert c.dataset == "synthetic"


def test_paths_relative_to_the_config_file_keeps_a_fold(tmp_path: Path) -> None:
    from bench.datasets.recorded import paths_from_config_folder

    doc = paths_from_config_folder({"paths_relative_to": "config file",
                                    "dataset": "../MSLR:Fold2"}, tmp_path / "t" / "c.toml")
    assert doc["dataset"] == f"{tmp_path / 'MSLR'}:Fold2"


def test_paths_relative_to_in_python_is_an_unknown_key() -> None:
    assert own_error(lambda: _hash({"paths_relative_to": "config file"}),
                     "paths_relative_to") is None


# ------------------------------------------------------------------ tune
@pytest.fixture(scope="module")
def tuned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One tune (1 trial, quick, the validation split) of ./data/letor from a config file
    with --n-trees over the file's n_trees; returns the working folder."""
    tmp = tmp_path_factory.mktemp("tune13")
    letor_folder(tmp / "data" / "letor")
    (tmp / "c.toml").write_text('dataset = "./data/letor"\nmodels = ["lightgbm-lambdarank"]\n'
                                "seeds = [0]\n[params]\nn_trees = 5\nl1 = -0.0\n")
    res = cli(tmp, "tune", "--config", "c.toml", "--n-trees", "4", "--quick", "--no-progress",
              "--budget-trials", "1", "--grid", "num_leaves=7", "--out", "res",
              "--format", "json")
    assert res.status == 0, res.err[-500:]
    return tmp


def _tune_folder(tmp: Path) -> Path:
    return next((tmp / "res" / "tune").iterdir())


def test_tune_records_the_option_that_won_over_the_file(tuned: Path) -> None:
    for name in ("plan.json", "summary.json"):
        doc = json.loads((_tune_folder(tuned) / name).read_text())
        over = doc["config_file"]["options_over_file"]
        assert over["params.n_trees"] == {"option": "--n-trees", "file": 5, "used": 4}, name
        assert doc["config_file"]["path"] == "c.toml"


def test_best_toml_holds_no_absolute_path(tuned: Path) -> None:
    text = (_tune_folder(tuned) / "best.toml").read_text()
    assert str(tuned) not in text
    assert 'paths_relative_to = "config file"' in text


def test_best_toml_runs_from_another_working_folder(tuned: Path, tmp_path: Path) -> None:
    from bench.benchmark.pipeline import load_splits

    best = (_tune_folder(tuned) / "best.toml").resolve()
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        c = _load_path(best)
        splits = load_splits(c.dataset, data_dir=c.data_dir, cache=False)
    finally:
        os.chdir(old)
    assert splits.train.n_queries == 20


def test_best_toml_and_data_moved_together_still_run(tuned: Path, tmp_path: Path) -> None:
    moved = tmp_path / "moved"
    shutil.copytree(tuned / "data", moved / "data")
    shutil.copytree(tuned / "res", moved / "res")
    best = next((moved / "res" / "tune").iterdir()) / "best.toml"
    c = _load_path(best)
    assert Path(c.dataset) == (moved / "data" / "letor").resolve()


def test_each_model_best_file_is_portable_too(tuned: Path) -> None:
    one = _tune_folder(tuned) / "best" / "lightgbm-lambdarank.toml"
    c = _load_path(one)
    assert Path(c.dataset) == (tuned / "data" / "letor").resolve()


def test_best_toml_keeps_the_canonical_values_and_the_grid_value(tuned: Path) -> None:
    c = _load_path(_tune_folder(tuned) / "best.toml")
    assert c.model_params[LGB[0]]["num_leaves"] == 7
    assert c.params.l1 == 0.0
    assert math.copysign(1, c.params.l1) == 1
    assert c.params.n_trees == 4


def test_best_toml_round_trips_to_the_same_hash(tuned: Path, tmp_path: Path) -> None:
    c = _load_path(_tune_folder(tuned) / "best.toml")
    again = _load(tmp_path, c.to_toml(), "again.toml")
    assert again.config_hash() == c.config_hash()


def test_tune_left_the_config_file_as_it_was(tuned: Path) -> None:
    assert (tuned / "c.toml").read_bytes() == (b'dataset = "./data/letor"\nmodels = '
                                                b'["lightgbm-lambdarank"]\nseeds = [0]\n'
                                                b"[params]\nn_trees = 5\nl1 = -0.0\n")


def _load_path(path: Path) -> Any:
    from bench.benchmark.config import RunConfig

    return RunConfig.load(path)


# ------------------------------------------------------------------ custom rankers
class _Scores:
    """Scores = the first feature, returned in the form :meth:`form` gives."""

    def fit(self, X: Any, y: Any, *, group: Any) -> Any:
        return self

    def form(self, s: np.ndarray) -> Any:
        return s

    def predict(self, X: Any) -> Any:
        return self.form(np.asarray(X[:, 0], dtype=np.float64))


class Half(_Scores):
    def form(self, s: np.ndarray) -> Any:
        return s.astype(np.float16)


class View(_Scores):
    def form(self, s: np.ndarray) -> Any:
        return memoryview(np.ascontiguousarray(s))


class TorchLike(_Scores):
    """An object with ``__array__`` (as a CPU tensor has), 1-D."""

    def form(self, s: np.ndarray) -> Any:
        return type("Tensor", (), {"__array__": lambda self, dtype=None, copy=None: s})()


class Shuffled(_Scores):
    def form(self, s: np.ndarray) -> Any:
        return pd.Series(s, index=np.arange(len(s))[::-1])


def _train(cls: type) -> Any:
    from bench.runners.custom import custom_model, train_custom

    return train_custom(custom_model("mine", f"{__name__}:{cls.__name__}"), toy_splits(), seed=0)


@pytest.mark.parametrize("cls", [Half, View, TorchLike])
def test_a_ranker_output_form_gives_the_float64_scores(cls: type) -> None:
    splits = toy_splits()
    r = _train(cls)
    want = splits.test.X[:, 0].astype(np.float64)
    if cls is Half:
        want = want.astype(np.float16).astype(np.float64)
    assert np.array_equal(r.scores["test"], want)


def test_a_series_in_another_order_is_refused_with_the_ranker_name() -> None:
    assert own_error(lambda: _train(Shuffled), "mine", "index") is None


# ------------------------------------------------------------------ earlier runs keep their hash
#: Hashes ltrbench gave these files before round 13 (measured on the round's base: numbers
#: hashed as spelt); a run made then carries them in its manifest.
EARLIER = {'models = ["lightgbm-lambdarank"]\n[params]\nl1 = 0\n': "2adc1ee1342c",
           'models = ["lightgbm-lambdarank"]\n[params]\nl1 = -0.0\n'
           '[model_params.lightgbm-lambdarank]\nl2 = 1\n': "a0c1591426e4",
           'models = ["lightgbm-lambdarank"]\ndataset = "Synthetic"\n': "53f0e9a0af14",
           'models = ["lightgbm-lambdarank"]\neval_at = [10, 5, 3, 1]\n': "155fab06c769",
           'models = ["lightgbm-lambdarank"]\n[model_params.lightgbm-lambdarank]\n':
               "f53359d50b02",
           'models = ["lightgbm-lambdarank"]\n[model_params.lightgbm-lambdarank]\nn_trees = 3\n'
           'l1 = 0\n[model_params.lightgbm-lambdarank.lightgbm]\n': "8dbd81379657"}


@pytest.mark.parametrize("text", list(EARLIER))
def test_an_earlier_runs_hash_of_the_same_file_is_still_accepted(tmp_path: Path,
                                                                 text: str) -> None:
    from bench.benchmark.config_hash import accepted_hashes

    c = _load(tmp_path, text)
    assert EARLIER[text] in accepted_hashes(c)
    assert c.config_hash() != EARLIER[text]  # the canonical hash is the new one


def test_a_file_spelt_canonically_has_one_accepted_hash(tmp_path: Path) -> None:
    from bench.benchmark.config_hash import accepted_hashes

    c = _load(tmp_path, 'models = ["lightgbm-lambdarank"]\n[params]\nl1 = 0.0\n')
    assert accepted_hashes(c) == (c.config_hash(),)


def test_reproduce_accepts_an_earlier_runs_recorded_hash(tmp_path: Path) -> None:
    from bench.benchmark.reproduce_steps import _check_recorded

    text = next(iter(EARLIER))
    c = _load(tmp_path, text)
    _check_recorded(c, tmp_path / "c.toml", {"config_hash": EARLIER[text]})  # no error
    with pytest.raises(Exception, match="edited after the run"):
        _check_recorded(c, tmp_path / "c.toml", {"config_hash": "0123456789ab"})


@pytest.mark.parametrize("text", list(EARLIER))
def test_the_earlier_hash_leaves_the_config_canonical(tmp_path: Path, text: str) -> None:
    from bench.benchmark.config import RunConfig

    c = _load(tmp_path, text)
    again = RunConfig.from_dict(json.loads(json.dumps(c.to_dict())))
    assert c.to_dict() == again.to_dict()
    assert c.config_hash() == again.config_hash()


def test_an_empty_model_table_is_no_table(tmp_path: Path) -> None:
    empty = _load(tmp_path, 'models = ["lightgbm-lambdarank"]\n'
                  '[model_params.lightgbm-lambdarank]\n[model_params.xgboost-ndcg.xgboost]\n')
    assert empty.model_params == {}
    assert empty.config_hash() == _hash({"models": LGB})


def test_an_empty_raw_table_in_a_model_table_is_left_out() -> None:
    from bench.benchmark.config import RunConfig

    c = RunConfig.from_dict({"models": LGB, "model_params": {LGB[0]: {"n_trees": 3,
                                                                      "lightgbm": {}}}})
    assert c.model_params == {LGB[0]: {"n_trees": 3}}


def test_an_empty_table_of_an_unknown_model_is_still_refused(tmp_path: Path) -> None:
    from bench.errors import ConfigError

    with pytest.raises(ConfigError, match=r"c\.toml.*lightgbm-lambdarnak.*did you mean"):
        _load(tmp_path, "[model_params.lightgbm-lambdarnak]\n")


def test_the_files_dataset_in_another_case_on_the_command_line_keeps_its_name(
        tmp_path: Path) -> None:
    import warnings

    from bench.commands.run_options import config_from_args

    (tmp_path / "c.toml").write_text('dataset = "synthetic"\nname = "mine"\n')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        c = config_from_args(_args("--config", str(tmp_path / "c.toml"), "--dataset",
                                   "Synthetic"))
    assert c.name == "mine"
    assert not [w for w in caught if "replaces the dataset" in str(w.message)]
    assert c.over_file["options_over_file"] == {}


# ------------------------------------------------------------------ names that look alike
def _custom(*names: str) -> dict[str, Any]:
    return {"models": list(names), "custom_models": {
        n: {"factory": "sklearn.linear_model:Ridge"} for n in names}}


def test_a_custom_name_that_differs_from_a_model_by_an_underscore_is_refused() -> None:
    assert own_error(lambda: _hash(_custom("lightgbm_lambdarank")),
                     "[custom_models.lightgbm_lambdarank]", "'lightgbm-lambdarank'",
                     "'-' and '_'") is None


def test_two_custom_names_that_differ_by_dash_and_underscore_are_refused() -> None:
    assert own_error(lambda: _hash(_custom("team-ranker", "team_ranker")),
                     "[custom_models.team-ranker]", "[custom_models.team_ranker]",
                     "'-' and '_'") is None


def test_a_custom_name_beside_a_model_name_is_still_accepted() -> None:
    from bench.benchmark.config import RunConfig

    c = RunConfig.from_dict(_custom("lightgbm_mine", "team-ranker"))
    assert list(c.models) == ["lightgbm_mine", "team-ranker"]


# ------------------------------------------------------------------ library ranges (XGBoost float32)
XGB = ["xgboost-ndcg"]


@pytest.mark.parametrize(("key", "value"), [("l1", 1e-50), ("l2", 1e-40),
                                            ("min_split_gain", 1e-45),
                                            ("min_child_weight", 1e-300)])
def test_an_xgboost_parameter_below_float32s_smallest_is_refused_before_any_data(
        key: str, value: float) -> None:
    # XGBoost keeps it as a float32 and stopped the run with "Out of range value" (a traceback)
    assert own_error(lambda: _hash({"models": XGB, "params": {key: value}}), f"[params] {key}",
                     "1.1754944e-38", "0 (off)") is None


def test_an_xgboost_parameter_of_zero_or_float32s_smallest_is_accepted() -> None:
    a = _hash({"models": XGB, "params": {"l1": 0, "min_split_gain": -0.0}})
    assert a == _hash({"models": XGB})
    _hash({"models": XGB, "params": {"l2": 1.2e-38}})  # no error


def test_lightgbm_keeps_a_double_so_a_tiny_l1_is_its_own() -> None:
    assert _hash({"models": LGB, "params": {"l1": 1e-50}}) != _hash({"models": LGB})


def test_tune_grid_below_float32s_smallest_for_xgboost_is_refused(tmp_path: Path) -> None:
    from hostile_kit import refused

    letor_folder(tmp_path / "letor")
    res = cli(tmp_path, "tune", "--dataset", "./letor", "--model", "xgboost", "--quick",
              "--no-progress", "--grid", "l1=0,1e-50", "--out", "res")
    assert refused(res, "l1 = 1e-50", "1.1754944e-38") is None
    assert not any((tmp_path / "res").rglob("trials.csv"))
