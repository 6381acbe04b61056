"""Round 17, a reviewer signing off "LightGBM, XGBoost and CatBoost were trained with matched
settings by ltrbench": every ltrbench parameter read back from what each library itself says it
used after training (LightGBM's model-file ``parameters:`` block, XGBoost's
``Booster.save_config()``, CatBoost's ``get_all_params()``), against the parity table
(:data:`bench.runners.params.PARITY`); seeds, early stopping's tree counts, and raw library
keys that would silently break a matched setting (refused, or said in the run and its notes)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from hostile_kit import toy_splits

from bench.benchmark.config import RunConfig
from bench.errors import ConfigError
from bench.machine import usable_cpus
from bench.runners.dispatch import run_model
from bench.runners.libraries import LIBRARIES
from bench.runners.params import PARITY, Params, check_for_library

pytest.importorskip("catboost")

SPLITS = toy_splits()
#: one parameter set with every knob off its default (and off each library's default)
RICH = Params(n_trees=6, early_stopping_rounds=2, learning_rate=0.3, num_leaves=3, max_depth=-1,
              max_bin=15, min_child_weight=0.0, min_data_in_leaf=1, min_split_gain=0.01,
              subsample=0.7, colsample=0.5, l1=0.0, l2=0.0, truncation_level=7,
              label_gain="linear", lambdarank_norm=False, n_threads=1, seed=3)
MODELS = {"lightgbm": "lightgbm-lambdarank", "xgboost": "xgboost-ndcg",
          "catboost": "catboost-lambdamart"}


def _fit(library: str, params: Params = RICH, seed: int = 3) -> Any:
    return run_model(MODELS[library], SPLITS, params, seed=seed)


@pytest.fixture(scope="module")
def fits() -> dict[str, Any]:
    return {lib: _fit(lib) for lib in MODELS}


def _lgb_used(result: Any) -> dict[str, str]:
    """The resolved ``parameters:`` block of the LightGBM model file."""
    text = result.booster.model_to_string()
    block = text[text.index("parameters:"):text.index("end of parameters")]
    return dict(line[1:-1].split(": ", 1) for line in block.splitlines()
                if line.startswith("[") and ": " in line)


def _xgb_cfg(result: Any) -> dict[str, Any]:
    cfg: dict[str, Any] = json.loads(result.booster.save_config())["learner"]
    return cfg


def _xgb_tree(result: Any) -> dict[str, str]:
    tree: dict[str, str] = _xgb_cfg(result)["gradient_booster"]["tree_train_param"]
    return tree


def _cb_used(result: Any) -> dict[str, Any]:
    used: dict[str, Any] = result.booster.get_all_params()
    return used


def _config(**doc: Any) -> RunConfig:
    return RunConfig.from_dict({"dataset": "synthetic", "seeds": [0], **doc})


def _said(config: RunConfig) -> str:
    return "\n".join(config.unused())


# -- what each library says it used ----------------------------------------------------------

def test_lightgbm_model_file_holds_every_mapped_value(fits):
    used = _lgb_used(fits["lightgbm"])
    assert used["learning_rate"] == "0.3"
    assert used["num_leaves"] == "3"
    assert used["max_depth"] == "-1"
    assert used["max_bin"] == "15"
    assert used["min_sum_hessian_in_leaf"] == "0"
    assert used["min_data_in_leaf"] == "1"
    assert used["min_gain_to_split"] == "0.01"
    assert used["feature_fraction"] == "0.5"
    assert used["bagging_fraction"] == "0.7"
    assert used["bagging_freq"] == "1"
    assert used["lambda_l1"] == "0"
    assert used["lambda_l2"] == "0"
    assert used["lambdarank_truncation_level"] == "7"
    assert used["lambdarank_norm"] == "0"
    assert used["label_gain"] == ",".join(str(i) for i in range(31))
    assert used["seed"] == "3"
    assert used["num_threads"] == "1"
    assert used["deterministic"] == "1"
    assert used["force_row_wise"] == "1"


def test_xgboost_config_holds_every_mapped_value(fits):
    tree = _xgb_tree(fits["xgboost"])
    assert tree["grow_policy"] == "lossguide"
    assert int(tree["max_leaves"]) == 3
    assert int(tree["max_depth"]) == 0
    assert int(tree["max_bin"]) == 15
    assert float(tree["eta"]) == pytest.approx(0.3, rel=1e-7)
    assert float(tree["subsample"]) == pytest.approx(0.7, rel=1e-7)
    assert float(tree["colsample_bytree"]) == 0.5
    assert float(tree["gamma"]) == pytest.approx(0.01, rel=1e-7)


def test_xgboost_l2_zero_is_not_its_own_default_one(fits):
    tree = _xgb_tree(fits["xgboost"])
    assert float(tree["lambda"]) == 0.0
    assert float(tree["alpha"]) == 0.0
    assert float(tree["min_child_weight"]) == 0.0


def test_xgboost_objective_reads_truncation_norm_and_linear_gain(fits):
    lr = _xgb_cfg(fits["xgboost"])["objective"]["lambdarank_param"]
    assert lr["lambdarank_pair_method"] == "topk"
    assert int(lr["lambdarank_num_pair_per_sample"]) == 7
    assert lr["lambdarank_normalization"] == "0"
    assert lr["lambdarank_score_normalization"] == "0"
    assert lr["ndcg_exp_gain"] == "0"


def test_xgboost_seed_and_threads_read_back(fits):
    generic = _xgb_cfg(fits["xgboost"])["generic_param"]
    assert generic["seed"] == "3"
    assert generic["nthread"] == "1"


def test_catboost_all_params_hold_every_mapped_value(fits):
    used = _cb_used(fits["catboost"])
    assert used["grow_policy"] == "Lossguide"
    assert used["max_leaves"] == 3
    assert used["depth"] == 16
    assert used["border_count"] == 14  # max_bin 15: 14 borders cut 15 bins
    assert used["min_data_in_leaf"] == 1
    assert used["bootstrap_type"] == "Bernoulli"
    assert used["subsample"] == pytest.approx(0.7, rel=1e-7)
    assert used["rsm"] == pytest.approx(0.5, rel=1e-7)
    assert used["learning_rate"] == pytest.approx(0.3, rel=1e-7)
    assert used["random_seed"] == 3


def test_catboost_lambdamart_reads_norm_false_and_the_linear_gain_metric(fits):
    used = _cb_used(fits["catboost"])
    assert used["loss_function"].startswith("LambdaMart")
    assert "norm=false" in used["loss_function"].replace("False", "false")
    assert used["eval_metric"].startswith("NDCG:top=10;type=Base")


def test_catboost_lambdamart_loss_reads_the_linear_gain_too(fits):
    assert ";type=Base" in _cb_used(fits["catboost"])["loss_function"]


def test_catboost_lambdamart_loss_reads_the_exp2_gain_as_the_others_objectives_do():
    """``label_gain = exp2`` (the default) reaches LightGBM's lambdarank (label_gain 2^l - 1)
    and XGBoost's rank:ndcg (ndcg_exp_gain); CatBoost's LambdaMart NDCG is type=Base (linear)
    unless told: it trained with another gain, exit 0."""
    exp2 = _fit("catboost", replace(RICH, label_gain="exp2", n_trees=2))
    assert ";type=Exp" in _cb_used(exp2)["loss_function"]
    linear = _fit("catboost", replace(RICH, n_trees=2))
    assert not np.array_equal(exp2.scores["test"], linear.scores["test"])


def test_catboost_l2_zero_reaches_it_as_zero_not_its_default_three(fits):
    assert _cb_used(fits["catboost"])["l2_leaf_reg"] < 1e-6


def test_catboost_samples_per_tree_as_the_others(fits):
    """Bernoulli rows redrawn per tree (LightGBM bagging_freq = 1, XGBoost per tree)."""
    assert _cb_used(fits["catboost"])["sampling_frequency"] == "PerTree"


def test_catboost_thread_count_is_n_threads(fits):
    assert fits["catboost"].booster.get_params()["thread_count"] == 1


@pytest.mark.parametrize("library", list(MODELS))
def test_every_tree_respects_num_leaves(fits, library):
    b = fits[library].booster
    if library == "lightgbm":
        leaves = [t["num_leaves"] for t in b.dump_model()["tree_info"]]
    elif library == "xgboost":
        frame = b.trees_to_dataframe()
        leaves = frame[frame["Feature"] == "Leaf"].groupby("Tree").size().tolist()
    else:
        leaves = list(b.get_tree_leaf_counts())
    assert leaves
    assert max(leaves) <= 3


# -- early stopping: trees grown, trees used ---------------------------------------------------

@pytest.mark.parametrize("library", list(MODELS))
def test_best_iteration_is_the_librarys_own(fits, library):
    r = fits[library]
    assert r.notes["library_best_iteration"] == r.best_iteration


@pytest.mark.parametrize("library", list(MODELS))
def test_trees_grown_stop_k_rounds_after_the_first_best(fits, library):
    r = fits[library]
    assert r.n_trees == min(RICH.n_trees, r.best_iteration + RICH.early_stopping_rounds)


@pytest.mark.parametrize("library", ["xgboost", "catboost"])
def test_saved_model_keeps_the_trees_grown(fits, library):
    b = fits[library].booster
    count = b.num_boosted_rounds() if library == "xgboost" else b.tree_count_
    assert count == fits[library].n_trees


@pytest.mark.parametrize("library", list(MODELS))
def test_scores_are_the_best_iterations_prediction(fits, library):
    r, X = fits[library], SPLITS.test.X
    if library == "lightgbm":
        want = r.booster.predict(X, num_iteration=r.best_iteration)
    elif library == "xgboost":
        import xgboost as xgb
        want = r.booster.predict(xgb.DMatrix(X), output_margin=True,
                                 iteration_range=(0, r.best_iteration))
    else:
        want = r.booster.predict(X, prediction_type="RawFormulaVal", ntree_end=r.best_iteration)
    np.testing.assert_allclose(r.scores["test"], want, rtol=1e-6)


# -- seeds -----------------------------------------------------------------------------------

@pytest.mark.parametrize("library", list(MODELS))
def test_same_seed_same_model(fits, library):
    again = _fit(library)
    np.testing.assert_array_equal(again.scores["test"], fits[library].scores["test"])


@pytest.mark.parametrize("library", list(MODELS))
def test_the_seed_reaches_the_sampler(fits, library):
    other = _fit(library, seed=4)
    assert not np.array_equal(other.scores["vali"], fits[library].scores["vali"]) or \
        not other.evallog.equals(fits[library].evallog)


def test_lightgbm_derives_its_sampling_seeds_from_the_run_seed(fits):
    a, b = _lgb_used(fits["lightgbm"]), _lgb_used(_fit("lightgbm", seed=4))
    assert b["seed"] == "4"
    for key in ("bagging_seed", "feature_fraction_seed", "objective_seed"):
        assert a[key] != b[key], key


def test_n_threads_zero_reaches_the_libraries_as_the_usable_cpus():
    p = replace(RICH, n_threads=0, n_trees=1)
    n = str(usable_cpus())
    assert _lgb_used(_fit("lightgbm", p))["num_threads"] == n
    assert _xgb_cfg(_fit("xgboost", p))["generic_param"]["nthread"] == n


# -- boundaries --------------------------------------------------------------------------------

def test_smallest_bins_and_leaves_reach_all_three():
    p = replace(RICH, max_bin=2, num_leaves=2, n_trees=2)
    assert _lgb_used(_fit("lightgbm", p))["max_bin"] == "2"
    assert int(_xgb_tree(_fit("xgboost", p))["max_bin"]) == 2
    cb = _fit("catboost", p)
    assert _cb_used(cb)["border_count"] == 1  # one border, two bins
    assert max(cb.booster.get_tree_leaf_counts()) <= 2


def test_catboost_cuts_max_bin_bins_as_lightgbm_does_not_one_more():
    """k borders cut k + 1 bins: CatBoost's border_count = max_bin - 1 gives it the 5 bins (4
    split points) of LightGBM's Dataset for max_bin = 5 (border_count = max_bin gave it 6)."""
    import lightgbm as lgb
    from catboost import CatBoost, Pool

    from bench.runners.params import catboost_params

    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 1))
    y = np.digitize(X[:, 0] + rng.normal(scale=0.3, size=400), [-1, 0, 1]).astype(float)
    bins = lgb.Dataset(X, params={"max_bin": 5, "verbosity": -1}).construct().feature_num_bin(0)
    p = replace(RICH, max_bin=5, num_leaves=31, subsample=1.0, colsample=1.0, n_trees=10)
    kwargs = catboost_params(p, "yetirank", log_train=False)
    for key in ("eval_metric", "custom_metric", "early_stopping_rounds"):
        kwargs.pop(key)
    model = CatBoost(kwargs)
    model.fit(Pool(X, y, group_id=np.repeat(np.arange(40), 10)))
    assert bins == 5
    assert len(model.get_borders()[0]) == bins - 1


def test_catboost_num_leaves_above_its_limit_refused_before_data():
    with pytest.raises(ConfigError, match=r"num_leaves.*65536"):
        check_for_library(Params(num_leaves=65537), "catboost", "yetirank")


def test_catboost_max_depth_zero_is_no_limit_not_a_constant_model():
    assert _cb_used(_fit("catboost", replace(RICH, max_depth=0, n_trees=2)))["depth"] == 16


def test_catboost_depth_above_sixteen_refused_naming_the_limit():
    with pytest.raises(ConfigError, match="max_depth"):
        check_for_library(Params(max_depth=17), "catboost", "yetirank")


def test_subsample_one_turns_lightgbm_bagging_off():
    used = _lgb_used(_fit("lightgbm", replace(RICH, subsample=1.0, n_trees=2)))
    assert used["bagging_freq"] == "0"


# -- hostile values in a config --------------------------------------------------------------

@pytest.mark.parametrize(("key", "value"), [("num_leaves", 31.0), ("n_trees", True),
                                            ("subsample", "0.8"), ("lambdarank_norm", 1)])
def test_model_table_value_of_the_wrong_type_names_the_table_and_key(key, value):
    with pytest.raises(ConfigError, match=rf"\[model_params\.lightgbm-lambdarank\] {key}"):
        _config(models=["lightgbm-lambdarank"], model_params={"lightgbm-lambdarank": {key: value}})


@pytest.mark.parametrize(("model", "library", "key", "field"), [
    ("lightgbm-lambdarank", "lightgbm", "bagging_fraction", "subsample"),
    ("lightgbm-lambdarank", "lightgbm", "num_iterations", "n_trees"),
    ("lightgbm-lambdarank", "lightgbm", "eta", "learning_rate"),
    ("xgboost-ndcg", "xgboost", "eta", "learning_rate"),
    ("xgboost-ndcg", "xgboost", "reg_lambda", "l2"),
    ("catboost-yetirank", "catboost", "n_estimators", "n_trees"),
    ("catboost-yetirank", "catboost", "colsample_bylevel", "colsample"),
])
def test_a_library_alias_beside_the_shared_value_is_refused(model, library, key, field):
    with pytest.raises(ConfigError, match=rf"{key}.*{field}"):
        _config(models=[model], model_params={model: {library: {key: 0.5}}})


@pytest.mark.parametrize(("model", "key"), [("xgboost-ndcg", "min_data_in_leaf"),
                                            ("catboost-yetirank", "min_split_gain"),
                                            ("catboost-yetirank", "min_child_weight")])
def test_a_shared_value_the_library_has_no_counterpart_of_is_refused(model, key):
    with pytest.raises(ConfigError, match=key):
        _config(models=[model], model_params={model: {key: 1.0 if "gain" in key or
                                                      "weight" in key else 5}})


@pytest.mark.parametrize("key", ["deterministic", "force_row_wise", "force_col_wise"])
def test_lightgbm_determinism_switches_are_ltrbench_s_own(key):
    """The (determinism) row: deterministic = true, force_row_wise = true. ``false`` trained
    with LightGBM's timing-based choice of histogram layout, exit 0."""
    value = key == "force_col_wise"
    with pytest.raises(ConfigError, match=rf"lightgbm {key}: ltrbench sets it itself"):
        _config(models=["lightgbm-lambdarank"], params={"lightgbm": {key: value}})


# -- raw keys that unmatch a parity row: said in the run and recorded -----------------------

UNMATCHING = [
    ("lightgbm-lambdarank", "lightgbm", "bagging_by_query", True, "subsample"),
    ("lightgbm-lambdarank", "lightgbm", "feature_fraction_bynode", 0.5, "colsample"),
    ("xgboost-ndcg", "xgboost", "lambdarank_pair_method", "mean", "truncation_level"),
    ("xgboost-ndcg", "xgboost", "colsample_bynode", 0.5, "colsample"),
    ("catboost-yetirank", "catboost", "sampling_unit", "Group", "subsample"),
]


@pytest.mark.parametrize(("model", "library", "key", "value", "row"), UNMATCHING)
def test_a_raw_key_that_unmatches_a_parity_row_is_said(model, library, key, value, row):
    said = _said(_config(models=[model], params={library: {key: value}}))
    assert key in said, said
    assert f"parity table's {row} row" in said, said


@pytest.mark.parametrize(("model", "library", "key", "value", "row"), UNMATCHING[2:3])
def test_an_unmatching_raw_key_is_recorded_in_the_models_notes(model, library, key, value, row):
    p = replace(RICH, n_trees=2).with_overrides(**{library: {key: value}})
    notes = run_model(model, SPLITS, p, seed=3).notes
    assert any(key in n and row in n for n in notes.get("unmatched", [])), notes


@pytest.mark.parametrize(("model", "library", "key", "value"), [
    ("xgboost-ndcg", "xgboost", "lambdarank_pair_method", "topk"),
    ("catboost-yetirank", "catboost", "sampling_unit", "Object"),
    ("lightgbm-lambdarank", "lightgbm", "bagging_by_query", False),
])
def test_a_raw_key_at_the_matched_value_is_not_said(model, library, key, value):
    assert "parity table" not in _said(_config(models=[model], params={library: {key: value}}))


def test_the_unmatching_key_of_a_library_without_a_model_in_the_run_is_said_once_as_unused():
    said = _said(_config(models=["lightgbm-lambdarank"],
                         params={"xgboost": {"lambdarank_pair_method": "mean"}}))
    assert "no XGBoost model in this run" in said
    assert "parity table" not in said


# -- the tables themselves -------------------------------------------------------------------

def test_each_none_cell_of_the_parity_table_is_a_refused_key_of_that_library():
    for row in PARITY:
        field = row.ltrbench.split(" ")[0]
        for lib, cell in (("xgboost", row.xgboost), ("catboost", row.catboost)):
            if cell.startswith("(none)") and field in Params.__dataclass_fields__ \
                    and "decay" not in row.ltrbench:
                assert field in LIBRARIES[lib].ignored(), (lib, field)


def test_every_key_the_dask_engine_drops_is_one_ltrbench_owns():
    """Nothing a user can set is dropped on Dask without a word: each dropped key is set by
    ltrbench itself (a raw one is refused)."""
    for name, lib in LIBRARIES.items():
        if lib.dask is None:
            continue
        owned = {k for keys, _ in lib.owned for k in keys}
        assert set(lib.dask.dropped) <= owned, name


def test_quick_mode_cap_reaches_the_library_and_is_said():
    config = _config(models=["catboost-yetirank"], quick=True, params={"n_trees": 500})
    p = config.params_for("catboost-yetirank", 0)
    assert p.n_trees == 20
    assert "n_trees" in _said(config)
    r = run_model("catboost-yetirank", SPLITS, replace(p, n_threads=1), seed=0)
    assert _cb_used(r)["iterations"] == 20


def test_an_unmatching_key_in_a_model_table_is_said_with_the_model():
    said = _said(_config(models=["lightgbm-lambdarank", "xgboost-ndcg"],
                         model_params={"lightgbm-lambdarank": {"lightgbm": {"sigmoid": 2.0}}}))
    assert "lightgbm-lambdarank: lightgbm sigmoid = 2.0" in said
    assert "min_child_weight row" in said


def test_an_unmatching_key_given_by_a_lightgbm_alias_is_said():
    """LightGBM's ``colsample_bynode`` is its alias of ``feature_fraction_bynode``."""
    said = _said(_config(models=["lightgbm-lambdarank"],
                         params={"lightgbm": {"colsample_bynode": 0.5}}))
    assert "colsample_bynode = 0.5" in said
    assert "colsample row" in said


def test_a_numeric_string_at_the_matched_value_is_not_said():
    assert "parity table" not in _said(_config(models=["lightgbm-lambdarank"],
                                               params={"lightgbm": {"sigmoid": "1"}}))


@pytest.mark.parametrize(("library", "objective", "key"), [
    ("lightgbm", "lambdarank", "rsm"), ("lightgbm", "lambdarank", "gamma"),
    ("xgboost", "ndcg", "num_leaves"), ("xgboost", "ndcg", "feature_fraction"),
    ("catboost", "yetirank", "lambda_l2"), ("catboost", "yetirank", "colsample_bytree"),
])
def test_another_librarys_name_in_a_raw_table_is_refused_naming_it(library, objective, key):
    """Silently dropped would be silently accepted: each library's own check, quoted."""
    with pytest.raises(ConfigError, match=key) as err:
        check_for_library(Params().with_overrides(**{library: {key: 0.5}}), library, objective,
                          f"[params.{library}] ")
    assert f"[params.{library}]" in str(err.value)


def test_xgboosts_unused_key_error_holds_no_clock_time_nor_build_path():
    with pytest.raises(ConfigError) as err:
        check_for_library(Params().with_overrides(xgboost={"num_leaves": 5}), "xgboost", "ndcg")
    text = str(err.value)
    assert "num_leaves" in text  # round 23: ltrbench's own name in a raw table, said by ltrbench
    assert "/workspace" not in text
    assert "WARNING" not in text


def test_a_tune_grid_of_a_determinism_switch_is_refused_before_any_fit():
    from bench.benchmark.search_space import grid_space
    from bench.benchmark.tune_checks import check_space_for
    from bench.runners.registry import get_model

    with pytest.raises(ConfigError, match="lightgbm deterministic: ltrbench sets it itself"):
        check_space_for(get_model("lightgbm-lambdarank"), Params(),
                        grid_space({"lightgbm.deterministic": [True, False]}))


def test_the_colsample_row_says_how_each_library_rounds_and_the_trees_agree():
    """n = 10 features, colsample = 0.25: LightGBM's trees use up to round(2.5) = 3 features,
    XGBoost's floor(2.5) = 2 (col_sampler.hpp RoundInt; XGBoost's ColumnSampler)."""
    import lightgbm as lgb
    import xgboost as xgb

    from bench.runners.params import lightgbm_params, xgboost_params

    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 10))
    y = np.digitize(X.sum(1) + rng.normal(scale=0.3, size=400), [-1, 0, 1]).astype(float)
    q = np.repeat(np.arange(40), 10)
    p = replace(RICH, colsample=0.25, num_leaves=31, subsample=1.0)

    def used(t: dict[str, Any], acc: set[int]) -> set[int]:
        if "split_feature" in t:
            acc.add(t["split_feature"])
            used(t["left_child"], acc)
            used(t["right_child"], acc)
        return acc

    lg = lgb.train(lightgbm_params(p, "lambdarank"), lgb.Dataset(X, y, group=np.bincount(q)), 8)
    lg_most = max(len(used(t["tree_structure"], set())) for t in lg.dump_model()["tree_info"])
    xg = xgb.train(xgboost_params(p, "ndcg"), xgb.DMatrix(X, label=y, qid=q), 8)
    frame = xg.trees_to_dataframe()
    xg_most = frame[frame.Feature != "Leaf"].groupby("Tree").Feature.nunique().max()
    assert (lg_most, xg_most) == (3, 2)
    note = next(row.note for row in PARITY if row.ltrbench == "colsample")
    assert "round(n x colsample)" in note
    assert "floor(n x colsample)" in note


def test_max_depth_two_bounds_every_library_to_four_leaves():
    p = replace(RICH, max_depth=2, num_leaves=31, n_trees=3)
    lg = _fit("lightgbm", p).booster.dump_model()["tree_info"]
    frame = _fit("xgboost", p).booster.trees_to_dataframe()
    counts = {"lightgbm": max(t["num_leaves"] for t in lg),
              "xgboost": int((frame["Feature"] == "Leaf").groupby(frame["Tree"]).sum().max()),
              "catboost": max(_fit("catboost", p).booster.get_tree_leaf_counts())}
    assert all(2 <= n <= 4 for n in counts.values()), counts


def test_the_largest_seed_reaches_every_library_unchanged():
    p = replace(RICH, n_trees=1)
    top = 2**31 - 1
    assert _lgb_used(_fit("lightgbm", p, seed=top))["seed"] == str(top)
    assert _xgb_cfg(_fit("xgboost", p, seed=top))["generic_param"]["seed"] == str(top)
    assert _cb_used(_fit("catboost", p, seed=top))["random_seed"] == top


def test_one_tree_with_early_stopping_grows_one_and_uses_it():
    for library in MODELS:
        r = _fit(library, replace(RICH, n_trees=1, early_stopping_rounds=1))
        assert (r.n_trees, r.best_iteration) == (1, 1), library
