"""Hostile configs, parameters and tune, round 11b (issue 19, item 5: one schema, and what is
recorded is what trained), after rounds 7 to 11.

New angles here, each judged against the libraries themselves:

- **a parameter the model's objective ignores:** LightGBM's ``rank_xendcg`` and ``regression``
  and XGBoost's ``reg:squarederror`` sample no pairs and normalise no lambdas, CatBoost's
  YetiRank / PairLogit / QueryRMSE have no ``norm`` (only ``LambdaMart:norm``): a model's own
  table ``[model_params.lightgbm-xendcg] truncation_level = 5`` trained the very same model as
  without it (predictions equal to the bit, read from the library) and recorded 5, exit 0.
  Refused like a shared parameter the library has no counterpart of (round 10); said for
  ``[params]`` when no model of the run uses it; not searched by ``tune`` for that model.
- **a raw key ltrbench sets itself for a matched setting:** XGBoost's ``grow_policy`` /
  ``tree_method`` (the ``num_leaves`` row of the parity table: ``max_leaves`` with
  ``grow_policy=lossguide`` on ``hist``), CatBoost's ``bootstrap_type`` / ``grow_policy`` (the
  ``subsample`` and ``num_leaves`` rows): ``[params.xgboost] grow_policy = "depthwise"`` trained
  level-wise trees under the run's "leaf-wise in both" table; ``bootstrap_type = "MVS"`` sampled
  rows by importance under "Bernoulli, rows one by one".
- **a raw key LightGBM takes and does nothing with** when it trains from Python:
  ``input_model``, ``output_model`` (``model_out``), ``save_binary`` (its command-line
  program), ``label_column`` (a data file it loads itself), ``pred_early_stop``,
  ``num_iteration_predict`` (its prediction task): the same model to the bit, no file written,
  exit 0 with the key recorded.
- **seeds that train one model:** ``subsample = colsample = 1`` with seeds [0, 1, 2] trains
  LightGBM's lambdarank and XGBoost's rank:ndcg three times the same (their objectives draw no
  random number), and the run's spread over seeds read 0 as if they were stable: said.
- **a seed in [params]:** ``[params] seed = 7`` (or in ``[model_params.<model>]``) was replaced
  by each run seed without a word and recorded as 7 beside the models' real seeds.
- **an empty item in a list given as text:** ``seeds = "1,,2"``, ``--seeds 1,,2``, ``--models
  lightgbm,,random`` dropped the empty item where ``--metrics ndcg@1,,3`` and ``--grid
  num_leaves=3,,7`` refuse it.
- **tune's budget against its grid:** ``--grid`` of 4 points with ``--budget-trials 2`` tried 2
  points (the sampler's choice) and called the better one "best" without saying that half the
  grid was never tried; a budget above the grid's size ran the grid's size.
- **tune's words:** ``--grid lightgbm.min_data_in_bin=3,5`` was "unknown parameter; did you
  mean 'min_data_in_leaf'?" (a ``--space`` file takes it); a best value at an end of its
  searched range is said (the best may lie beyond it).
- **guards** (held on the base, kept so): the run's recorded library parameters equal what each
  library reports it trained with (LightGBM ``Booster.params``, XGBoost ``save_config()``,
  CatBoost ``get_all_params()``); a command-line value over the file's is the one recorded and
  trained.
"""

from __future__ import annotations

import json
import sys
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_cases_tune import tune
from hostile_kit import api_refused, call, cli, letor_folder, refused
from test_hostile_config import Case, raw_case
from test_hostile_round9_configs import problem

from bench.benchmark.config import RunConfig
from bench.runners.params import Params

XGB = {"models": '["xgboost-ndcg"]'}
CAT = {"models": '["catboost-yetirank"]'}


def _models(*names: str) -> dict[str, str]:
    return {"models": "[" + ", ".join(f'"{n}"' for n in names) + "]"}


CASES: list[Case] = [
    # ------------------------------------------------------------ ignored by the objective
    Case("lightgbm-xendcg-truncation-level", top=_models("lightgbm-xendcg"),
         tables="[model_params.lightgbm-xendcg]\ntruncation_level = 5\n",
         words=("c.toml", "[model_params.lightgbm-xendcg] truncation_level", "rank_xendcg")),
    Case("lightgbm-xendcg-lambdarank-norm", top=_models("lightgbm-xendcg"),
         tables="[model_params.lightgbm-xendcg]\nlambdarank_norm = false\n",
         words=("c.toml", "[model_params.lightgbm-xendcg] lambdarank_norm", "rank_xendcg")),
    Case("lightgbm-regression-truncation-level", top=_models("lightgbm-regression"),
         tables="[model_params.lightgbm-regression]\ntruncation_level = 5\n",
         words=("c.toml", "[model_params.lightgbm-regression] truncation_level", "regression")),
    Case("xgboost-regression-lambdarank-norm", top=_models("xgboost-regression"),
         tables="[model_params.xgboost-regression]\nlambdarank_norm = false\n",
         words=("c.toml", "[model_params.xgboost-regression] lambdarank_norm",
                "reg:squarederror")),
    Case("xgboost-regression-truncation-level", top=_models("xgboost-regression"),
         tables="[model_params.xgboost-regression]\ntruncation_level = 7\n",
         words=("c.toml", "[model_params.xgboost-regression] truncation_level")),
    Case("catboost-yetirank-lambdarank-norm", top=_models("catboost-yetirank"),
         tables="[model_params.catboost-yetirank]\nlambdarank_norm = false\n",
         words=("c.toml", "[model_params.catboost-yetirank] lambdarank_norm", "YetiRank",
                "LambdaMart")),
    Case("catboost-pairlogit-lambdarank-norm", top=_models("catboost-pairlogit"),
         tables="[model_params.catboost-pairlogit]\nlambdarank_norm = false\n",
         words=("c.toml", "[model_params.catboost-pairlogit] lambdarank_norm", "PairLogit")),
    Case("catboost-queryrmse-lambdarank-norm", top=_models("catboost-queryrmse"),
         tables="[model_params.catboost-queryrmse]\nlambdarank_norm = false\n",
         words=("c.toml", "[model_params.catboost-queryrmse] lambdarank_norm", "QueryRMSE")),
    # ------------------------------------------------------------ raw keys of a matched setting
    raw_case("xgboost-raw-grow-policy-depthwise",
             "xgboost", 'grow_policy = "depthwise"', "num_leaves", top=XGB),
    raw_case("xgboost-raw-tree-method-hist",
             "xgboost", 'tree_method = "hist"', "num_leaves", top=XGB),
    Case("xgboost-model-raw-grow-policy", top=XGB,
         tables='[model_params.xgboost-ndcg.xgboost]\ngrow_policy = "depthwise"\n',
         words=("c.toml", "[model_params.xgboost-ndcg]", "xgboost grow_policy")),
    raw_case("catboost-raw-bootstrap-mvs",
             "catboost", 'bootstrap_type = "MVS"', "subsample", top=CAT),
    raw_case("catboost-raw-grow-policy-depthwise",
             "catboost", 'grow_policy = "Depthwise"', "num_leaves", top=CAT),
    raw_case("catboost-raw-grow-policy-lossguide-itself",
             "catboost", 'grow_policy = "Lossguide"', "num_leaves", top=CAT),
    # ------------------------------------------------------------ keys LightGBM takes and ignores
    raw_case("lightgbm-raw-input-model",
             "lightgbm", 'input_model = "m.txt"', "command-line program"),
    raw_case("lightgbm-raw-output-model-by-an-alias",
             "lightgbm", 'model_out = "m.txt"', "command-line program"),
    raw_case("lightgbm-raw-save-binary", "lightgbm", "save_binary = true", "train as without it"),
    raw_case("lightgbm-raw-label-column", "lightgbm", 'label_column = "name:rel"', "data file"),
    raw_case("lightgbm-raw-pred-early-stop", "lightgbm", "pred_early_stop = true", "prediction"),
    Case("lightgbm-model-raw-num-iteration-predict",
         tables="[model_params.lightgbm-lambdarank.lightgbm]\nnum_iteration_predict = 3\n",
         words=("c.toml", "[model_params.lightgbm-lambdarank]", "num_iteration_predict",
                "prediction")),
    # ------------------------------------------------------------ empty items in text lists
    Case("seeds-text-with-an-empty-item", top={"seeds": '"1,,2"'},
         words=("c.toml", "seeds", "'1,,2'", "empty")),
    Case("seeds-text-ends-with-a-comma", top={"seeds": '"1,2,"'},
         words=("c.toml", "seeds", "empty")),
    Case("seeds-option-with-an-empty-item", args=("--seeds", "1,,2"),
         words=("--seeds", "'1,,2'", "empty")),
    Case("models-text-with-an-empty-item", top={"models": '"lightgbm-lambdarank,,random"'},
         words=("c.toml", "models", "empty")),
    Case("models-option-with-an-empty-item", args=("--models", "lightgbm,,random"),
         words=("--models", "empty")),
    Case("models-option-starts-with-a-comma", args=("--models", ",lightgbm"),
         words=("--models", "empty")),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_config_round11b(case: Case, tmp_path: Path) -> None:
    assert problem(case, tmp_path) is None


# ---------------------------------------------------------------- the libraries' own word
def _splits(tmp: Path) -> Any:
    from bench.datasets.resolve import load_dataset

    return load_dataset(str(letor_folder(tmp / "letor")), cache=False)


def _predictions(library: str, objective: str, params: Params, splits: Any) -> np.ndarray:
    from bench.runners.gbdt import library_module

    mod = library_module(library)
    model, lib_params, _ = mod.fit(splits.train, splits.vali, params, objective=objective)
    out: np.ndarray = mod.predict(model, splits.vali, params.n_trees, lib_params)
    return out


FIXED = Params(n_trees=6, num_leaves=7, min_data_in_leaf=2, subsample=1.0, colsample=1.0,
               early_stopping_rounds=50, n_threads=1)


@pytest.mark.parametrize(("model", "change"), [
    ("lightgbm-xendcg", {"truncation_level": 2}),
    ("lightgbm-xendcg", {"lambdarank_norm": False}),
    ("xgboost-regression", {"truncation_level": 2}),
    ("catboost-yetirank", {"lambdarank_norm": False}),
])
def test_the_library_trains_the_same_model_without_the_ignored_value(
        model: str, change: dict[str, Any], tmp_path: Path) -> None:
    """The oracle of the refusals above: the library's own predictions, with and without."""
    library, objective = model.split("-", 1)
    splits = _splits(tmp_path)
    a = _predictions(library, objective, FIXED, splits)
    b = _predictions(library, objective, replace(FIXED, **change), splits)
    assert np.array_equal(a, b)
    config = {"dataset": "./letor", "models": [model], "model_params": {model: change}}
    assert api_refused(call(lambda: RunConfig.from_dict(config))[1], model, next(iter(change))) \
        is None


@pytest.mark.parametrize("extra", [{"input_model": "m0.txt"}, {"output_model": "out.txt"},
                                   {"save_binary": True}, {"pred_early_stop": True},
                                   {"num_iteration_predict": 1}])
def test_lightgbm_trains_the_same_model_with_a_key_it_ignores(extra: dict[str, Any],
                                                              tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The oracle of the refusals above: ``lightgbm.train`` with and without the key (an
    ``input_model`` that exists: the first model's own file) gives the same predictions, and
    writes no file."""
    import lightgbm as lgb

    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(0)
    X, y = rng.random((120, 3)), rng.integers(0, 3, 120)
    base = {"objective": "lambdarank", "verbosity": -1, "num_threads": 1, "deterministic": True,
            "force_row_wise": True, "min_data_in_leaf": 2}
    first = lgb.train(base, lgb.Dataset(X, y, group=[10] * 12), 4)
    first.save_model("m0.txt")
    again = lgb.train({**base, **extra}, lgb.Dataset(X, y, group=[10] * 12), 4)
    assert np.array_equal(first.predict(X), again.predict(X))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m0.txt"]


def test_a_shared_value_no_model_of_the_run_uses_is_said() -> None:
    """``[params] truncation_level = 5`` in a run of lightgbm-xendcg and catboost-yetirank: no
    model of the run samples pairs by it (LightGBM's rank_xendcg, CatBoost's YetiRank)."""
    config = RunConfig.from_dict({"models": ["lightgbm-xendcg", "catboost-yetirank"],
                                  "params": {"truncation_level": 5, "lambdarank_norm": False}})
    said = " | ".join(config.unused())
    assert "[params] truncation_level" in said, said
    assert "[params] lambdarank_norm" in said, said


def test_a_shared_value_one_model_uses_is_not_said() -> None:
    config = RunConfig.from_dict({"models": ["lightgbm-xendcg", "lightgbm-lambdarank"],
                                  "params": {"truncation_level": 5}})
    assert not [s for s in config.unused() if "truncation_level" in s]


def test_tune_does_not_search_what_the_objective_ignores() -> None:
    from bench.benchmark.search_space import default_space

    for library, objective, key in (("lightgbm", "xendcg", "truncation_level"),
                                    ("lightgbm", "regression", "truncation_level"),
                                    ("xgboost", "regression", "truncation_level")):
        names = [d.name for d in default_space(library, objective)]
        assert key not in names, (library, objective, names)
    assert "truncation_level" in [d.name for d in default_space("lightgbm", "lambdarank")]


def test_tune_grid_of_an_ignored_parameter_is_refused(tmp_path: Path) -> None:
    res = tune(tmp_path, "--model", "lightgbm-xendcg", "--grid", "truncation_level=5,10")
    assert refused(res, "truncation_level", "lightgbm-xendcg", "rank_xendcg") is None


def test_tune_space_file_of_an_ignored_parameter_is_refused(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text("[catboost-yetirank]\nlambdarank_norm = {choices = [true, false]}\n")
    res = tune(tmp_path, "--model", "catboost-yetirank", "--space", "s.toml")
    assert refused(res, "lambdarank_norm", "catboost-yetirank") is None


def test_tune_space_file_of_an_owned_raw_key_is_refused(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text(
        '[xgboost]\n"xgboost.grow_policy" = {choices = ["depthwise", "lossguide"]}\n')
    res = tune(tmp_path, "--model", "xgboost", "--space", "s.toml")
    assert refused(res, "grow_policy", "num_leaves") is None


# ---------------------------------------------------------------- a seed in [params]
@pytest.mark.parametrize("doc", [
    {"params": {"seed": 7}},
    {"model_params": {"lightgbm-lambdarank": {"seed": 7}}},
], ids=["params", "model-params"])
def test_a_seed_in_the_parameters_is_said_not_used(doc: dict[str, Any]) -> None:
    config = RunConfig.from_dict({"models": ["lightgbm-lambdarank"], "seeds": [3], **doc})
    said = [s for s in config.unused() if "seed" in s]
    assert said, config.unused()
    assert "seeds = [3]" in said[0], said
    assert "seed = 7" in said[0], said
    assert config.params_for("lightgbm-lambdarank", 3).seed == 3  # what trains


def test_a_seed_in_python_params_is_said_not_used() -> None:
    config = RunConfig(models=("lightgbm-lambdarank",), params=Params(seed=7))
    assert [s for s in config.unused() if "seed" in s], config.unused()


def test_the_default_seed_of_params_says_nothing() -> None:
    assert not [s for s in RunConfig(models=("lightgbm-lambdarank",)).unused() if "seed" in s]


def test_a_recorded_config_reads_back_without_a_seed_word(tmp_path: Path) -> None:
    """The run's own config.toml records ``[params] seed = 0``: read back, it says nothing."""
    config = RunConfig.from_dict({"models": ["lightgbm-lambdarank"], "seeds": [4]})
    (tmp_path / "c.toml").write_text(config.resolved().to_toml())
    again = RunConfig.load(tmp_path / "c.toml")
    assert not [s for s in again.unused() if "seed" in s]


# ---------------------------------------------------------------- seeds that change nothing
@pytest.mark.parametrize("model", ["lightgbm-lambdarank", "xgboost-ndcg"])
def test_without_sampling_every_seed_trains_the_same_model(model: str, tmp_path: Path) -> None:
    """The oracle: the library's predictions for seeds 0 and 1 are equal to the bit when no
    row or feature is sampled (and CatBoost's, whose YetiRank draws permutations, are not)."""
    library, objective = model.split("-", 1)
    splits = _splits(tmp_path)
    a = _predictions(library, objective, replace(FIXED, seed=0), splits)
    b = _predictions(library, objective, replace(FIXED, seed=1), splits)
    assert np.array_equal(a, b)
    c = _predictions("catboost", "yetirank", replace(FIXED, seed=0), splits)
    d = _predictions("catboost", "yetirank", replace(FIXED, seed=1), splits)
    assert not np.array_equal(c, d)


def test_seeds_that_train_one_model_are_said() -> None:
    """``subsample = colsample = 1`` with seeds [0, 1, 2]: LightGBM's lambdarank and XGBoost's
    rank:ndcg train one model three times, and the run's spread over seeds reads 0 as if they
    were stable; CatBoost (random permutations) and LightGBM's rank_xendcg (random gammas)
    do differ."""
    config = RunConfig.from_dict({
        "models": ["lightgbm-lambdarank", "xgboost-ndcg", "catboost-yetirank", "lightgbm-xendcg"],
        "seeds": [0, 1, 2], "params": {"subsample": 1.0, "colsample": 1.0}})
    said = [s for s in config.unused() if s.startswith("seeds")]
    assert len(said) == 1, config.unused()
    assert "lightgbm-lambdarank, xgboost-ndcg train the same model" in said[0], said
    assert "catboost" not in said[0]
    assert "xendcg" not in said[0]


@pytest.mark.parametrize("doc", [
    {"seeds": [0], "params": {"subsample": 1.0, "colsample": 1.0}},
    {"seeds": [0, 1]},
    {"seeds": [0, 1], "params": {"subsample": 1.0, "colsample": 0.9}},
], ids=["one-seed", "default-sampling", "feature-sampling"])
def test_seeds_that_do_differ_say_nothing(doc: dict[str, Any]) -> None:
    config = RunConfig.from_dict({"models": ["lightgbm-lambdarank"], **doc})
    assert not [s for s in config.unused() if s.startswith("seeds")]


# ---------------------------------------------------------------- tune's budget and its grid
def _tune_warning(tmp: Path, *args: str) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = tune(tmp, "--model", "lightgbm", *args, fit=True)
    assert res.status == 0, res.err
    return res.err


def test_tune_budget_below_the_grid_says_how_much_of_it_is_tried(tmp_path: Path) -> None:
    err = _tune_warning(tmp_path, "--grid", "num_leaves=3,7;min_data_in_leaf=1,2",
                        "--budget-trials", "2")
    line = next((ln for ln in err.splitlines() if "--budget-trials 2" in ln), "")
    assert "2 of the grid's 4 points" in line, err


def test_tune_budget_above_the_grid_says_the_grid_bounds_it(tmp_path: Path) -> None:
    err = _tune_warning(tmp_path, "--grid", "num_leaves=3,7", "--budget-trials", "5")
    line = next((ln for ln in err.splitlines() if "--budget-trials 5" in ln), "")
    assert "the grid's 2 points" in line, err


def test_tune_budget_equal_to_the_grid_says_nothing(tmp_path: Path) -> None:
    err = _tune_warning(tmp_path, "--grid", "num_leaves=3,7", "--budget-trials", "2")
    assert "--budget-trials" not in err, err


# ---------------------------------------------------------------- guards: recorded = trained
def _run(tmp: Path, config: str, *args: str) -> Path:
    letor_folder(tmp / "letor")
    (tmp / "c.toml").write_text('dataset = "./letor"\ncrosscheck = false\ncache = false\n'
                                'quick = true\n' + config)
    res = cli(tmp, "run", "--config", "c.toml", "--no-progress", "--out", "res", *args)
    assert res.status == 0, res.err
    return next((tmp / "res" / "runs").iterdir())


def test_option_seeds_over_the_file_are_recorded_and_trained(tmp_path: Path) -> None:
    run = _run(tmp_path, 'models = ["lightgbm-lambdarank"]\nseeds = [3]\n', "--seeds", "5")
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["seeds"] == [5]
    assert "seeds = [\n    5,\n]" in (run / "config.toml").read_text()
    status = json.loads((run / "status" / "lightgbm-lambdarank-seed5.json").read_text())
    assert status["library_params"]["seed"] == 5


def test_recorded_library_parameters_are_what_each_library_trained_with(tmp_path: Path) -> None:
    """LightGBM ``Booster.params``, XGBoost ``save_config()`` and CatBoost ``get_all_params()``
    against the parameters ltrbench records, for a non-default parameter set."""
    from bench.runners.gbdt import library_module

    splits = _splits(tmp_path)
    p = Params(n_trees=4, max_depth=3, num_leaves=9, subsample=0.7, colsample=0.5, max_bin=15,
               min_data_in_leaf=3, truncation_level=5, label_gain="linear", seed=11, n_threads=1)
    booster, rec, _ = library_module("lightgbm").fit(splits.train, splits.vali, p)
    assert {k: v for k, v in rec.items() if booster.params.get(k) != v} == {}
    booster, rec, _ = library_module("xgboost").fit(splits.train, splits.vali, p)
    learner = json.loads(booster.save_config())["learner"]
    tree = learner["gradient_booster"]["tree_train_param"]
    rank = learner["objective"]["lambdarank_param"]
    assert (int(tree["max_leaves"]), int(tree["max_depth"]), tree["grow_policy"]) == \
        (rec["max_leaves"], rec["max_depth"], rec["grow_policy"])
    assert (int(rank["lambdarank_num_pair_per_sample"]), rank["ndcg_exp_gain"]) == (5, "0")
    assert int(learner["generic_param"]["seed"]) == rec["seed"] == 11
    model, rec, _ = library_module("catboost").fit(splits.train, splits.vali, p)
    used = model.get_all_params()
    for key in ("depth", "max_leaves", "border_count", "min_data_in_leaf", "random_seed",
                "grow_policy", "bootstrap_type", "loss_function"):
        assert used[key] == rec[key], key


def test_tune_grid_of_a_raw_key_points_to_the_space_file(tmp_path: Path) -> None:
    """``--grid lightgbm.min_data_in_bin=3,5`` said "unknown parameter; did you mean
    'min_data_in_leaf'?", where a ``--space`` file takes the same key."""
    res = tune(tmp_path, "--model", "lightgbm", "--grid", "lightgbm.min_data_in_bin=3,5")
    assert refused(res, "--grid lightgbm.min_data_in_bin", "raw lightgbm parameter",
                   "--space") is None


def test_tune_of_a_custom_model_is_refused_naming_it(tmp_path: Path) -> None:
    """A custom ranker has no parameters tune knows: refused before any data (a guard)."""
    (tmp_path / "c.toml").write_text('dataset = "./letor"\nmodels = ["mine"]\n'
                                     '[custom_models.mine]\nfactory = "custom_rankers:LinearRanker"\n')
    res = tune(tmp_path, "--config", "c.toml")
    assert refused(res, "mine", "GBDT") is None


def test_a_best_value_at_the_end_of_its_range_is_said(tmp_path: Path) -> None:
    """A space of ``num_leaves`` in [3, 4]: whichever wins is at an end of the range, so the
    best may lie beyond what was searched; the summary and the text say so (not [2, 3]: 2 is
    num_leaves' own limit, nothing lies below it)."""
    (tmp_path / "s.toml").write_text("[lightgbm]\nnum_leaves = {low = 3, high = 4}\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = tune(tmp_path, "--model", "lightgbm", "--space", "s.toml", "--budget-trials", "2",
                   "--sampler", "random", fit=True)
    assert res.status == 0, res.err
    assert "note: best num_leaves = " in res.out, res.out
    assert "end of its range [3, 4]" in res.out, res.out
    summary = json.loads(next((tmp_path / "res" / "tune").glob("*/summary.json")).read_text())
    assert summary["models"]["lightgbm-lambdarank"]["at_bounds"], summary


def test_bound_notes_by_hand() -> None:
    from bench.benchmark.tune_checks import bound_notes
    from bench.runners.search_dimension import Dimension

    space = (Dimension("num_leaves", "int", 7, 255, log=True),
             Dimension("learning_rate", "float", 0.01, 0.3, log=True),
             Dimension("subsample", "float", 0.5, 1.0),
             Dimension("label_gain", "categorical", choices=("exp2", "linear")))
    assert bound_notes({"num_leaves": 31, "learning_rate": 0.05, "subsample": 0.7,
                        "label_gain": "exp2"}, space) == []
    said = bound_notes({"num_leaves": 255, "learning_rate": 0.0101, "subsample": 0.501}, space)
    assert [s.split(" = ")[0] for s in said] == ["best num_leaves", "best learning_rate",
                                                 "best subsample"]
    assert "upper end" in said[0]
    assert "lower end" in said[1]
    assert "lower end" in said[2]
    assert bound_notes(None, space) == []


def test_no_bound_note_where_the_range_ends_at_the_parameters_own_limit() -> None:
    """subsample 0.996 of [0.5, 1]: nothing lies beyond 1, so "widen the range" was advice
    no library takes (found: best colsample = 0.9989 of [0.5, 1] in a real tune); a range
    ending short of the limit still gets its note, as does min_split_gain 0 of [0, 1] not."""
    from bench.benchmark.tune_checks import bound_notes
    from bench.runners.search_dimension import Dimension

    full = (Dimension("subsample", "float", 0.5, 1.0), Dimension("colsample", "float", 0.5, 1.0),
            Dimension("min_split_gain", "float", 0.0, 1.0))
    assert bound_notes({"subsample": 0.996, "colsample": 0.9989, "min_split_gain": 0.0}, full) == []
    short = (Dimension("subsample", "float", 0.5, 0.9),)
    assert "upper end" in bound_notes({"subsample": 0.899}, short)[0]
