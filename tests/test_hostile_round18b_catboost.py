"""Round 18b: a CatBoost power user attacks ltrbench's CatBoost surfaces (raw parameters that
would train or log something other than what the run records, the files CatBoost writes, the
labels CatBoost's NDCG reads, CatBoostRanker as a custom ranker).

Oracles: CatBoost's own numbers (``catboost.utils.eval_metric`` on the true labels), a clear
refusal naming the key, or the user's folder holding no new file."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hostile_kit import chdir, own_error, toy_splits

pytest.importorskip("catboost")


def _params(**raw: Any) -> Any:
    from bench.runners.params import Params

    return Params(n_trees=3, n_threads=1, min_data_in_leaf=1,
                  raw=(("catboost", tuple(raw.items())),) if raw else ())


def _door(**raw: Any) -> Any:
    from bench.runners.params import check_for_library

    return lambda: check_for_library(_params(**raw), "catboost", "yetirank", "[params] ")


# --- raw keys that would make the recorded run something else --------------------------------

def test_eval_fraction_is_refused_at_the_door_not_a_killed_probe() -> None:
    """``eval_fraction`` carves CatBoost's own eval set out of the TRAINING rows; ltrbench
    selects on the validation split only (and CatBoost's probe on 8 rows ran out of memory)."""
    assert own_error(_door(eval_fraction=0.2), "eval_fraction") is None


def test_best_model_min_trees_is_refused_as_part_of_use_best_model() -> None:
    """It only acts with use_best_model (which ltrbench owns): silently ignored otherwise."""
    assert own_error(_door(best_model_min_trees=3), "best_model_min_trees") is None


@pytest.mark.parametrize(("key", "value"), [
    ("json_log", "log.json"), ("learn_error_log", "learn.tsv"), ("test_error_log", "test.tsv"),
    ("profile_log", "profile.log"), ("time_left_log", "left.log"), ("output_borders", "b.tsv"),
])
def test_catboost_log_and_border_files_are_refused_like_train_dir(key: str, value: str) -> None:
    """README: CatBoost's file writing is set by ltrbench (no files); a log file asked for in a
    raw table was silently never written (allow_writing_files = False)."""
    assert own_error(_door(**{key: value}), key) is None


def test_target_border_is_refused_it_binarises_the_labels_of_the_selection_ndcg(tmp_path: Path) -> None:
    """``target_border`` binarises the labels CatBoost's NDCG reads: the validation log
    (ltrbench's ndcg@10) was the NDCG of 0/1 labels, not of the graded labels."""
    assert own_error(_door(target_border=1.5), "target_border") is None


def test_target_border_in_a_config_file_is_refused_naming_the_key(tmp_path: Path) -> None:
    from hostile_kit import cli

    (tmp_path / "c.toml").write_text(
        'models = ["catboost-yetirank"]\nseeds = [0]\n'
        '[model_params.catboost-yetirank]\ntarget_border = 0.5\n')
    res = cli(tmp_path, "run", "--config", "c.toml", "--no-progress", "--quick", "--n-trees", "2",
              "--no-crosscheck", "--out", "res")
    assert not res.traceback, res.err
    assert res.status == 2, res.err[-400:]
    assert "target_border" in res.err
    assert "catboost_info" not in os.listdir(tmp_path)


def test_eval_fraction_in_a_models_own_table_is_refused_too() -> None:
    from bench.runners.raw_keys import check_raw_keys

    assert own_error(lambda: check_raw_keys("catboost", {"eval_fraction": 0.5},
                                            "[model_params.catboost-lambdamart] "),
                     "eval_fraction", "catboost-lambdamart") is None


def test_sampling_unit_group_is_still_accepted_it_is_a_documented_mismatch() -> None:
    """Control: a raw key ltrbench knows as unmatched is passed on, not refused."""
    assert _door(sampling_unit="Group")() is None


# --- labels CatBoost's NDCG reads --------------------------------------------------------------

def test_a_label_of_31_in_train_is_refused_before_catboost_trains() -> None:
    from bench.data.letor import LetorData
    from bench.runners.catboost import fit_catboost

    s = toy_splits()
    y = s.train.y.copy()
    y[7] = 31.0
    train = LetorData.build(s.train.X, y, qid=np.repeat(np.arange(8), 5), source="train.txt")
    assert own_error(lambda: fit_catboost(train, s.vali, _params()), "0..30", "31",
                     "row 8") is None


def test_a_fractional_validation_label_is_refused_naming_vali() -> None:
    from bench.data.letor import LetorData
    from bench.runners.catboost import fit_catboost

    s = toy_splits()
    y = s.vali.y.copy()
    y[3] = 1.5
    vali = LetorData.build(s.vali.X, y, qid=np.repeat(np.arange(4), 5), source="vali.txt")
    assert own_error(lambda: fit_catboost(s.train, vali, _params()), "vali", "1.5") is None


# --- one shared fit: CatBoost's own numbers as oracle; no litter --------------------------------

@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from bench.runners.catboost import fit_catboost

    folder = tmp_path_factory.mktemp("cwd")
    s = toy_splits()
    with chdir(folder):
        model, lib, result = fit_catboost(s.train, s.vali, _params(), objective="queryrmse")
    return folder, s, model, lib, result


def test_the_shared_fit_leaves_no_catboost_info_in_the_working_folder(shared: Any) -> None:
    folder = shared[0]
    assert os.listdir(folder) == []


def test_the_selection_log_at_the_best_iteration_is_catboosts_ndcg_of_the_graded_labels(shared: Any) -> None:
    from catboost.utils import eval_metric

    from bench.data.groups import group_index
    from bench.runners.catboost import predict

    _, s, model, lib, result = shared
    best = result.best_iteration
    log = result.evallog.query("split == 'vali' and metric == 'ndcg@10'")["value"].to_numpy()
    scores = predict(model, s.vali, best, lib)
    want = eval_metric(s.vali.y, scores, "NDCG:top=10;type=Exp",
                       group_id=group_index(s.vali.offsets))[0]
    assert log[best - 1] == pytest.approx(want, abs=1e-9)


def test_the_shared_fit_records_the_settings_that_write_nothing(shared: Any) -> None:
    lib = shared[3]
    assert lib["allow_writing_files"] is False
    assert lib["use_best_model"] is False
    assert lib["random_seed"] == 0
    assert lib["thread_count"] == 1


# --- CatBoostRanker as a custom ranker ---------------------------------------------------------

@pytest.fixture(scope="module")
def ranker_run(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from bench.runners.custom import custom_model, train_custom

    folder = tmp_path_factory.mktemp("user")
    s = toy_splits()
    model = custom_model("cb", {"factory": "catboost:CatBoostRanker",
                                "params": {"iterations": 3, "thread_count": 1, "verbose": False}})
    with chdir(folder):
        result = train_custom(model, s, seed=1)
    return folder, result


def test_a_catboostranker_leaves_no_catboost_info_in_the_users_folder(ranker_run: Any) -> None:
    folder, _ = ranker_run
    assert sorted(os.listdir(folder)) == [], sorted(os.listdir(folder))


def test_a_catboostranker_records_that_its_file_writing_was_switched_off(ranker_run: Any) -> None:
    _, result = ranker_run
    assert result.library_params.get("allow_writing_files") is False, result.library_params


def test_a_catboostranker_given_its_own_train_dir_writes_there_only(tmp_path: Path) -> None:
    from bench.runners.custom import custom_model, train_custom

    logs = tmp_path / "my_logs"
    model = custom_model("cb", {"factory": "catboost:CatBoostRanker",
                                "params": {"iterations": 2, "thread_count": 1, "verbose": False,
                                           "train_dir": str(logs)}})
    with chdir(tmp_path):
        result = train_custom(model, toy_splits(), seed=2)
    assert sorted(os.listdir(tmp_path)) == ["my_logs"]
    assert "allow_writing_files" not in result.library_params


# --- CatBoost's refusals of the data, after the probe passed on toy data -----------------------

def test_a_training_split_of_constant_features_is_a_clear_error_not_catboosts_traceback(tmp_path: Path) -> None:
    """LightGBM trains a constant model; CatBoost raises "All features are either constant or
    ignored" from fit: the run printed CatBoost's traceback."""
    import re

    from hostile_kit import cli, letor_folder, refused

    data = letor_folder(tmp_path / "data")
    train = data / "train.txt"
    train.write_text(re.sub(r"(\d):[-0-9.e]+", r"\1:1", train.read_text()))
    res = cli(tmp_path, "run", "--dataset", "data", "--models", "catboost-yetirank", "--seeds",
              "0", "--no-progress", "--quick", "--n-trees", "2", "--no-crosscheck", "--out", "res")
    assert refused(res, "CatBoost", "train.txt", "constant") is None
    assert "catboost_info" not in os.listdir(tmp_path)


def test_nan_features_under_nan_mode_forbidden_name_the_raw_key() -> None:
    from bench.data.letor import LetorData
    from bench.runners.catboost import fit_catboost

    s = toy_splits()
    X = s.train.X.copy()
    X[3, 1] = np.nan
    train = LetorData.build(X, s.train.y, qid=np.repeat(np.arange(8), 5), source="train.txt")
    assert own_error(lambda: fit_catboost(train, s.vali, _params(nan_mode="Forbidden")),
                     "nan_mode", "train.txt") is None


def test_catboosts_internal_error_on_monotone_constraints_names_the_key() -> None:
    """CatBoost's text ("Internal CatBoost Error (contact developers ...)") names no key."""
    assert own_error(_door(monotone_constraints=[1, 0, 0, 0]), "monotone_constraints") is None


# --- the catboost profile against CatBoost's own metrics ----------------------------------------

@pytest.mark.parametrize(("metric", "name"), [
    ("ndcg@1", "NDCG:top=1;type=Exp"), ("ndcg@2", "NDCG:top=2;type=Exp"),
    ("ndcg@10", "NDCG:top=10;type=Exp;denominator=LogPosition"), ("map@2", "MAP:top=2"),
    ("map@10", "MAP:top=10"),
])
def test_the_catboost_profile_matches_catboost_on_ties_blank_and_one_document_groups(
        metric: str, name: str) -> None:
    from catboost.utils import eval_metric

    from bench.metrics.evaluate import evaluate

    y = np.array([0.0, 2, 1, 0, 3, 0, 0, 1, 0, 4, 4])
    s = np.array([0.5, 0.5, 0.2, 0.9, 0.1, 0.3, 0.3, 0.7, 0.1, 0.2, 0.2])
    q = np.array([1, 1, 1, 2, 3, 3, 3, 4, 4, 5, 5])
    got = evaluate(y, s, qid=q, metrics=[metric], profile="catboost").metrics[metric]
    assert got == pytest.approx(eval_metric(y, s, name, group_id=q)[0], abs=1e-12)


def test_the_catboost_profile_refuses_a_label_catboost_would_take_naming_the_row() -> None:
    from bench.metrics.evaluate import evaluate

    assert own_error(lambda: evaluate(np.array([0.0, 32, 1]), np.array([0.1, 0.2, 0.3]),
                                      qid=np.array([1, 1, 1]), metrics=["ndcg@3"],
                                      profile="catboost"), "row 2", "32", "catboost") is None


# --- tune spaces and gains -----------------------------------------------------------------------

@pytest.mark.parametrize("key", ["eval_fraction", "target_border", "json_log"])
def test_a_tune_space_over_a_newly_owned_catboost_key_is_refused(tmp_path: Path, key: str) -> None:
    from hostile_cases_tune import tune
    from hostile_kit import refused

    (tmp_path / "s.toml").write_text(f'[catboost]\n"catboost.{key}" = {{choices = [0.1, 0.2]}}\n')
    res = tune(tmp_path, "--model", "catboost-yetirank", "--space", "s.toml")
    assert refused(res, key) is None
    assert "catboost_info" not in os.listdir(tmp_path)


def test_the_linear_gain_selection_log_is_catboosts_type_base_ndcg() -> None:
    """label_gain = "linear" is CatBoost's NDCG type=Base: the validation log at the best
    iteration equals catboost.utils.eval_metric of the scores ltrbench keeps."""
    from catboost.utils import eval_metric

    from bench.data.groups import group_index
    from bench.runners.catboost import fit_catboost, predict

    s = toy_splits()
    model, lib, result = fit_catboost(s.train, s.vali, _params().with_overrides(label_gain="linear"),
                                      objective="lambdamart")
    assert "type=Base" in lib["loss_function"]
    log = result.evallog.query("split == 'vali' and metric == 'ndcg@10'")["value"].to_numpy()
    scores = predict(model, s.vali, result.best_iteration, lib)
    want = eval_metric(s.vali.y, scores, "NDCG:top=10;type=Base",
                       group_id=group_index(s.vali.offsets))[0]
    assert log[result.best_iteration - 1] == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize(("params", "want"), [
    ({}, False),
    ({"allow_writing_files": True}, True),  # the user's own choice stays
    ({"train_dir": "logs"}, None),  # a folder of the user's: CatBoost writes there
], ids=["default-off", "explicit-on-kept", "train-dir-kept"])
def test_the_catboostranker_built_for_a_seed_has_the_writer_setting_the_user_meant(
        params: dict[str, Any], want: bool | None) -> None:
    from bench.runners.custom import build_ranker, custom_model

    model = custom_model("cb", {"factory": "catboost:CatBoostRanker",
                                "params": {"iterations": 2, **params}})
    ranker, seeded, _ = build_ranker(model, 3)
    assert seeded == {"random_state": 3}
    assert ranker.get_params().get("allow_writing_files") is want
