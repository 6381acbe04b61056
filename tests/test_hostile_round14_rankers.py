"""Hostile custom rankers, round 14 (issue 19: trust at every edge), after rounds 5 to 11.

A data scientist's own models through the Python API and ``[custom_models]``: scikit-learn
estimators and Pipelines, rankers whose ``fit`` spells the groups its own way, rankers that
change their class or raise odd exceptions, one factory under two names, and ``report`` /
``crosscheck`` over such a run.

Found here: a ``fit`` or ``predict`` that cannot take ltrbench's call (a required
``sample_weight``, ``group`` positional-only, ``X`` keyword-only, a ``predict(X, group)``) was
found only after the data was read and the ranker trained on, as a ``TypeError`` of the call;
it is now a ConfigError naming the model, the method, its parameters and the call, before any
data (:func:`bench.runners.custom_calls.check_calls`). ``crosscheck --run R --models mine``,
``mine`` a custom model of R, said "unknown model 'mine'"; it now says mine has no built-in
metric, as for ``random``.

The rankers live in ``tests/r14d_rankers.py`` (a module the runs import by name).
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import r14d_rankers as R
from hostile_kit import cli, toy_splits

NAME = "mine14"


def _model(factory: str, **params: Any) -> Any:
    from bench.runners.custom import custom_model

    spec = {"factory": factory if ":" in factory else f"r14d_rankers:{factory}", "params": params}
    return custom_model(NAME, spec)


def _train(factory: str, **params: Any) -> Any:
    from bench.runners.custom import train_custom

    return train_custom(_model(factory, **params), toy_splits(), seed=0)


def _failure(factory: str, *words: str) -> str:
    """Training ``factory`` fails with a CustomModelFailure naming the model and ``words``."""
    from bench.runners.custom import CustomModelFailure

    with pytest.raises(CustomModelFailure) as caught:
        _train(factory)
    text = str(caught.value)
    for word in (f"'{NAME}'", *words):
        assert word in text, (word, text)
    return text


def _refused_before_data(factory: str, *words: str) -> str:
    """The check made before any data is read refuses ``factory``, naming it and ``words``."""
    from bench.errors import ConfigError
    from bench.runners.custom import check_custom_model

    with pytest.raises(ConfigError) as caught:
        check_custom_model(_model(factory), 0)
    text = str(caught.value)
    for word in (f"'{NAME}'", *words):
        assert word in text, (word, text)
    return text


def _first(X: Any) -> Any:
    return np.asarray(X[:, 0], dtype=np.float64)


# ------------------------------------------------------------------ a call fit/predict cannot take
def test_a_fit_that_requires_sample_weight_is_refused_before_any_data() -> None:
    _refused_before_data("NeedsWeight", "fit", "sample_weight", "group=")


def test_a_fit_whose_group_is_positional_only_is_refused_before_any_data() -> None:
    _refused_before_data("PositionalOnlyGroup", "fit", "'group'", "positional only")


def test_a_fit_with_keyword_only_x_is_refused_before_any_data() -> None:
    _refused_before_data("KeywordOnlyX", "fit", "fit(X, y, group")


def test_a_predict_that_requires_a_second_argument_is_refused_before_any_data() -> None:
    _refused_before_data("PredictNeedsMore", "predict", "'group'", "predict(X)")


def test_the_cli_refuses_a_fit_needing_sample_weight_with_exit_2_before_training(
        tmp_path: Path) -> None:
    (tmp_path / "c.toml").write_text(
        f'dataset = "synthetic"\nmodels = ["random", "{NAME}"]\nseeds = [0]\n'
        f'[custom_models.{NAME}]\nfactory = "r14d_rankers:NeedsWeight"\n')
    res = cli(tmp_path, "run", "--config", "c.toml", "--out", "res", "--no-progress")
    assert res.status == 2, res.err
    assert "Traceback" not in res.err
    assert "c.toml" in res.err
    assert "sample_weight" in res.err
    assert f"'{NAME}'" in res.err
    assert not list((tmp_path / "res").glob("runs/*/status/*.json"))


def test_a_required_eval_set_is_given_the_validation_split() -> None:
    result = _train("RequiresEvalSet")
    vali = toy_splits().vali
    (X, y), = R.Seen.got["eval_set"]
    assert np.array_equal(X, vali.X)
    assert np.array_equal(y, vali.y)
    assert [list(g) for g in R.Seen.got["eval_group"]] == [[5, 5, 5, 5]]
    assert np.array_equal(result.scores["test"], _first(toy_splits().test.X))


# ------------------------------------------------------------------ scikit-learn as it is
def test_a_scikit_learn_regressor_is_refused_naming_the_missing_groups() -> None:
    estimator = "GradientBoostingRegressor"
    text = _refused_before_data(f"sklearn.ensemble:{estimator}", f"{estimator}.fit", "group")
    assert "qid" in text  # the other spellings it could have had


def test_a_scikit_learn_pipeline_is_a_failure_naming_the_model_and_the_group_parameter() -> None:
    _failure("make_pipeline", "fit", "group")


# ------------------------------------------------------------------ fit conventions that work
def test_a_slotted_ranker_whose_fit_returns_none_scores_its_least_squares_fit() -> None:
    splits = toy_splits()
    result = _train("Slotted")
    w = np.linalg.lstsq(splits.train.X.astype(np.float64), splits.train.y, rcond=None)[0]
    assert np.allclose(result.scores["test"], splits.test.X.astype(np.float64) @ w,
                       rtol=0, atol=1e-12)
    assert "fit_returned" not in result.notes


def test_a_fit_taking_sample_weight_before_group_gets_the_groups_by_name() -> None:
    _train("WeightThenGroup")
    assert R.Seen.got["sample_weight"] is None
    assert R.Seen.got["group"].tolist() == [5] * 8


def test_a_fit_taking_qid_gets_query_numbers_in_row_order() -> None:
    result = _train("ByQid")
    assert R.Seen.got["qid"].tolist() == np.repeat(np.arange(8), 5).tolist()
    assert result.notes["fit"].startswith("fit(X, y, qid)")


def test_a_fit_taking_kwargs_gets_groups_and_the_validation_split_never_the_test_split() -> None:
    splits = toy_splits()
    _train("AllKwargs")
    got = R.Seen.got
    assert set(got) == {"group", "eval_set", "eval_group"}
    (X, y), = got["eval_set"]
    assert np.array_equal(X, splits.vali.X)
    assert np.array_equal(y, splits.vali.y)


def test_a_ranker_that_changes_its_class_in_fit_predicts_as_its_new_class() -> None:
    result = _train("BecomesDoubled")
    test = toy_splits().test.X
    assert np.array_equal(result.scores["test"], 2.0 * _first(test) + 1.0)


def test_a_ranker_that_loses_its_predict_in_fit_is_a_failure_naming_predict() -> None:
    _failure("BecomesNothing", "predict", "NoMethods")


def test_a_batch_dependent_predict_gets_each_split_whole() -> None:
    result = _train("RanksInBatch")
    for split in ("vali", "test"):
        X = getattr(toy_splits(), split).X
        want = np.argsort(np.argsort(X[:, 0])).astype(np.float64)
        assert np.array_equal(result.scores[split], want), split


def test_a_predict_short_only_on_the_test_split_is_named_with_the_counts() -> None:
    _failure("ShortOnSecondCall", "predict", "24 scores for 25 rows")


# ------------------------------------------------------------------ odd ways to leave
def test_sys_exit_0_in_fit_is_a_failure_not_a_clean_exit() -> None:
    _failure("ExitsZero", "fit", "sys.exit(0)")


def test_a_keyboard_interrupt_subclass_stops_as_ctrl_c_does() -> None:
    with pytest.raises(KeyboardInterrupt):
        _train("RaisesInterruptSubclass")


# ------------------------------------------------------------------ factories
def test_a_functools_partial_factory_is_refused_naming_the_model() -> None:
    from bench.errors import ConfigError
    from bench.runners.custom import custom_model

    with pytest.raises(ConfigError, match=rf"'{NAME}'.*cannot be named"):
        custom_model(NAME, {"factory": functools.partial(R.Seeded, scale=0.5)})


# ------------------------------------------------------------------ a run of custom models
@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One run: ``random`` and one seeded factory under two names (``a``, ``b``)."""
    import bench.benchmark

    out = tmp_path_factory.mktemp("r14d")
    result = bench.benchmark.run(
        "toy", models=["random", "a", "b"], seeds=[0], splits=toy_splits(), out_dir=out,
        custom_models={"a": "r14d_rankers:Seeded", "b": {"factory": "r14d_rankers:Seeded"}},
        crosscheck=False)
    return Path(result.run_dir)


def test_one_factory_under_two_names_gives_two_equal_rows(run_dir: Path) -> None:
    metrics = pd.read_csv(run_dir / "metrics.csv")
    a = metrics[metrics["model"] == "a"].drop(columns=["model"]).reset_index(drop=True)
    b = metrics[metrics["model"] == "b"].drop(columns=["model"]).reset_index(drop=True)
    assert len(a) > 0
    pd.testing.assert_frame_equal(a, b)
    models = json.loads((run_dir / "manifest.json").read_text())["models"]
    assert models["a"]["library"] == models["b"]["library"] == "custom"
    assert models["a"]["source_sha256"] == models["b"]["source_sha256"]


def test_a_seeded_custom_model_is_reproduced_bit_for_bit_by_a_second_run(
        run_dir: Path, tmp_path: Path) -> None:
    import bench.benchmark

    again = bench.benchmark.run("toy", models=["a"], seeds=[0], splits=toy_splits(),
                                out_dir=tmp_path, crosscheck=False,
                                custom_models={"a": "r14d_rankers:Seeded"})
    first = pd.read_parquet(run_dir / "scores.parquet")
    second = pd.read_parquet(Path(again.run_dir) / "scores.parquet")
    first = first[first["model"] == "a"].reset_index(drop=True)
    assert len(first) == len(second) > 0
    assert np.array_equal(first["score"].to_numpy(), second["score"].to_numpy())
    status = json.loads((Path(again.run_dir) / "status" / "a-seed0.json").read_text())
    assert status["notes"]["seed"] == {"seed": 0}


def test_report_over_a_run_of_custom_models_lists_them(run_dir: Path, tmp_path: Path) -> None:
    res = cli(tmp_path, "report", "--runs", str(run_dir), "--out", "rep", "--no-plots")
    assert res.status == 0, res.err
    board = pd.read_csv(tmp_path / "rep" / "leaderboard.csv")
    assert {"a", "b", "random"} <= set(board.astype(str).to_numpy().ravel())


def test_crosscheck_of_a_run_s_custom_model_says_it_has_no_built_in_metric(
        run_dir: Path, tmp_path: Path) -> None:
    res = cli(tmp_path, "crosscheck", "--run", str(run_dir), "--models", "a", "--out", "cc")
    assert res.status == 2
    assert "none of a is a LightGBM, XGBoost or CatBoost model" in res.err, res.err
    assert "unknown model" not in res.err


def test_crosscheck_of_a_name_the_run_lacks_lists_the_run_s_custom_models(
        run_dir: Path, tmp_path: Path) -> None:
    res = cli(tmp_path, "crosscheck", "--run", str(run_dir), "--models", "c", "--out", "cc")
    assert res.status == 2
    assert "unknown model 'c'" in res.err, res.err
    assert "custom: a, b" in res.err, res.err


def test_crosscheck_of_the_whole_run_names_each_custom_model_as_nothing_to_check(
        run_dir: Path, tmp_path: Path) -> None:
    # round 15: a run with no library model has nothing to cross-check, a user error (exit 2,
    # as --models a is) naming each model and its library, not a "FAILED (0 checks)" report
    res = cli(tmp_path, "crosscheck", "--run", str(run_dir), "--out", "cc", "--format", "json")
    assert "Traceback" not in res.err
    assert res.status == 2, res.err
    assert "nothing to cross-check" in res.err, res.err
    assert "a (custom)" in res.err, res.err
    assert "b (custom)" in res.err, res.err
