"""Hostile custom rankers, round 18b (issue 19: trust at every edge).

An industry ML engineer plugs the team's own rankers into ltrbench (README "Your own ranker")
to compare them with LambdaMART: a scikit-learn Pipeline or GridSearchCV wrapped to take the
groups, an ``LGBMRanker`` subclass, a ``fit(X, y, qid)``, ``predict`` returning a pandas Series,
a column, float32/int16/bool/Decimal scores, a list of NumPy scalars, a masked array; a ranker
that ignores ``random_state``, whose ``fit`` returns None or a fresh copy, with a misleading
``__len__`` / ``__bool__`` / ``__array__`` / ``__eq__``, that caches by ``id(X)`` or keeps ``X``;
factory typos, a module that prints on import, a factory whose ``params`` have the wrong types.

Oracle: the same model trained by hand (NumPy least squares, scikit-learn, LightGBM), or a
clear error naming the model, its config key and what was expected.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import cli, toy_splits

NAME = "team18"


def _model(factory: str, **params: Any) -> Any:
    from bench.runners.custom import custom_model

    spec = {"factory": factory if ":" in factory else f"round18b_rankers:{factory}",
            "params": params}
    return custom_model(NAME, spec)


def _train(factory: str, splits: Any = None, seed: int = 0, **params: Any) -> Any:
    from bench.runners.custom import train_custom

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return train_custom(_model(factory, **params), splits or toy_splits(), seed=seed)


def _failure(factory: str, *words: str, **params: Any) -> str:
    from bench.runners.custom import CustomModelFailure

    with pytest.raises(CustomModelFailure) as caught:
        _train(factory, **params)
    text = str(caught.value)
    for word in (f"'{NAME}'", *words):
        assert word in text, (word, text)
    assert "Traceback" not in text
    return text


def _config_error(factory: str, *words: str, **params: Any) -> str:
    from bench.errors import ConfigError
    from bench.runners.custom import check_custom_model

    with pytest.raises(ConfigError) as caught:
        check_custom_model(_model(factory, **params), 0)
    text = str(caught.value)
    for word in (f"[custom_models.{NAME}]", *words):
        assert word in text, (word, text)
    return text


def _lstsq_scores(split: str, splits: Any = None) -> Any:
    splits = splits or toy_splits()
    w = np.linalg.lstsq(splits.train.X.astype(np.float64), splits.train.y, rcond=None)[0]
    return getattr(splits, split).X.astype(np.float64) @ w


def _same(result: Any, factory_scores: Any = _lstsq_scores) -> None:
    for split in ("vali", "test"):
        assert np.allclose(result.scores[split], factory_scores(split), rtol=0, atol=1e-9), split


# ------------------------------------------------------------------ real-world rankers, oracle
def test_a_scaler_ridge_pipeline_scores_as_the_same_pipeline_trained_by_hand() -> None:
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    splits = toy_splits()
    result = _train("make_pipeline_ranker", alpha=3.0)
    pipe = make_pipeline(StandardScaler(), Ridge(alpha=3.0)).fit(splits.train.X, splits.train.y)
    assert np.array_equal(result.scores["test"], pipe.predict(splits.test.X).astype(np.float64))
    assert result.library_params["params"] == {"alpha": 3.0}


def test_a_grid_search_with_grouped_folds_scores_as_the_search_by_hand() -> None:
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GridSearchCV, GroupKFold

    splits = toy_splits()
    result = _train("SearchRanker", alphas=[0.1, 10.0])
    search = GridSearchCV(Ridge(), {"alpha": [0.1, 10.0]}, cv=GroupKFold(2))
    search.fit(splits.train.X, splits.train.y, groups=np.repeat(np.arange(8), 5))
    assert np.allclose(result.scores["vali"], search.predict(splits.vali.X), rtol=0, atol=1e-9)


def test_an_lgbm_ranker_subclass_gets_the_seed_and_scores_as_lightgbm_by_hand() -> None:
    from lightgbm import LGBMRanker

    splits = toy_splits()
    params = {"n_estimators": 5, "min_child_samples": 2, "verbose": -1, "n_jobs": 1,
              "subsample": 0.5, "subsample_freq": 1, "gain": 2.0}
    result = _train("TeamLGBM", seed=7, **params)
    assert result.library_params.get("random_state") == 7, result.library_params
    own = {k: v for k, v in params.items() if k != "gain"}
    lgb = LGBMRanker(random_state=7, **own)
    lgb.fit(splits.train.X, splits.train.y, group=splits.train.group_sizes)  # no early stopping:
    # the evaluation set ltrbench passes does not change the trees
    assert np.allclose(result.scores["test"], 2.0 * lgb.predict(splits.test.X), rtol=0, atol=1e-12)


def _read(raw: Any) -> Any:
    """What ltrbench makes of ``raw`` returned by the model's ``predict`` of the 25 test rows
    (:func:`bench.runners.custom_checks.checked_scores`, the one reader of every predict)."""
    from bench.runners.custom_checks import checked_scores

    return checked_scores(raw, 25, f"custom model '{NAME}'")


def _refused(raw: Any, *words: str) -> None:
    from bench.runners.custom import CustomModelFailure

    with pytest.raises(CustomModelFailure) as caught:
        _read(raw)
    for word in (f"'{NAME}'", "predict returned", *words):
        assert word in str(caught.value), (word, str(caught.value))


S = _lstsq_scores("test")


def test_a_list_of_numpy_float32_scalars_is_read_as_its_values() -> None:
    got = _read([np.float32(v) for v in S])
    assert np.array_equal(got, S.astype(np.float32).astype(np.float64))


def test_a_list_of_zero_d_arrays_is_read_as_its_values() -> None:
    assert np.array_equal(_read([np.array(v) for v in S]), S)


def test_a_tuple_of_scores_is_read_as_its_values() -> None:
    assert np.array_equal(_read(tuple(S)), S)


def test_a_series_whose_index_is_the_row_numbers_is_read_in_order() -> None:
    import pandas as pd

    assert np.array_equal(_read(pd.Series(S, index=np.arange(25, dtype=np.int64))), S)


def test_a_series_with_a_string_index_is_refused_naming_the_index() -> None:
    import pandas as pd

    _refused(pd.Series(S, index=[f"doc{i}" for i in range(25)]), "index")


def test_a_masked_array_with_nothing_masked_is_read_as_its_data() -> None:
    assert np.array_equal(_read(np.ma.masked_array(S, mask=np.zeros(25, dtype=bool))), S)


def test_a_masked_array_with_one_masked_score_is_refused_with_the_count() -> None:
    masked = np.ma.masked_array(S.copy())
    masked[2] = np.ma.masked
    _refused(masked, "1 masked")


def test_int16_scores_are_kept_exactly() -> None:
    ints = np.round(100 * S).astype(np.int16)
    assert np.array_equal(_read(ints), ints.astype(np.float64))


def test_float32_scores_are_widened_exactly() -> None:
    got = _read(S.astype(np.float32))
    assert got.dtype == np.float64
    assert np.array_equal(got, S.astype(np.float32).astype(np.float64))


def test_boolean_scores_are_refused_naming_the_dtype() -> None:
    _refused(S > 0, "bool")


def test_a_list_of_decimals_is_refused_naming_what_is_expected() -> None:
    from decimal import Decimal

    _refused([Decimal(str(v)) for v in S], "object", "expected numbers")


def test_a_scalar_score_for_a_whole_split_is_refused_with_the_row_count() -> None:
    _refused(np.float64(S.sum()), "25")


def test_a_column_of_one_element_lists_is_refused_with_the_ravel_hint() -> None:
    _refused([[v] for v in S], "ravel")


def test_a_nullable_float64_series_without_nulls_is_read_as_its_values() -> None:
    import pandas as pd

    assert np.array_equal(_read(pd.Series(S, dtype="Float64")), S)


def test_an_object_array_of_floats_is_refused_naming_the_dtype() -> None:
    _refused(np.array([float(v) for v in S], dtype=object), "object")


def test_a_predict_returning_a_view_of_its_input_gives_that_column() -> None:
    result = _train("PredictReturnsInput")
    splits = toy_splits()
    assert np.array_equal(result.scores["test"], splits.test.X[:, 0].astype(np.float64))
    result.scores["test"][0] = 99.0  # the scores are ltrbench's own copy, not a view of the data
    assert splits.test.X[0, 0] != 99.0


# ------------------------------------------------------------------ fit's return value, dunders
def test_a_fit_returning_a_fresh_fitted_copy_is_a_failure_naming_predict() -> None:
    _failure("FitReturnsFresh", "predict")


def test_a_ranker_whose_bool_len_eq_hash_and_array_mislead_is_scored_by_its_predict() -> None:
    """``bool``/``len``/``==`` raise, it is unhashable and ``np.asarray(ranker)`` is three zeros:
    ltrbench must use none of them, only fit and predict."""
    _same(_train("Misleading"))


# ------------------------------------------------------------------ caches and kept references
def _equal_sized_splits() -> Any:
    """Toy splits whose validation and test splits have the same shape (20 rows each)."""
    from bench.data.letor import LetorData, LetorSplits

    base = toy_splits()
    t = base.test
    test = LetorData.build(t.X[:20].astype(np.float64), t.y[:20], qid=t.qid[:20], source="part3")
    return LetorSplits(name="toy", train=base.train, vali=base.vali, test=test, inputs={})


def test_a_predict_memoised_by_id_of_x_scores_the_test_split_not_the_validation_split() -> None:
    splits = _equal_sized_splits()
    result = _train("CachesById", splits=splits)
    for split in ("vali", "test"):
        assert np.allclose(result.scores[split], _lstsq_scores(split, splits), rtol=0,
                           atol=1e-9), split


def test_a_ranker_keeping_the_training_x_scores_its_nearest_neighbours() -> None:
    splits = toy_splits()
    result = _train("KeepsTrain")
    X, T = splits.test.X.astype(np.float64), splits.train.X.astype(np.float64)
    d = ((X[:, None, :] - T[None, :, :]) ** 2).sum(-1)
    want = splits.train.y[d.argmin(1)] + 0.001 * X[:, 0]
    assert np.allclose(result.scores["test"], want, rtol=0, atol=1e-6)


# ------------------------------------------------------------------ seeds
def test_a_run_names_the_custom_model_that_takes_no_seed_before_any_data(tmp_path: Path) -> None:
    """Two seeds: the factory without seed is named before any data (its spread over seeds is 0
    by construction, as the run says of a seed-free built-in model); the one that takes
    random_state and ignores it is given each seed, so it is not named. The warning as an error
    (``-W error``) stops the run there."""
    import bench.benchmark
    from bench.benchmark.pipeline import ConfigWarning

    with warnings.catch_warnings():
        warnings.simplefilter("error", ConfigWarning)
        with pytest.raises(ConfigWarning) as caught:
            bench.benchmark.run(
                "toy", models=["r", "m"], seeds=[0, 1], splits=toy_splits(), out_dir=tmp_path,
                custom_models={"m": "round18b_rankers:NoSeed",
                               "r": "round18b_rankers:IgnoresRandomState"}, crosscheck=False)
    text = str(caught.value)
    assert text.startswith("seeds = [0, 1]: custom model 'm' takes no seed"), text
    assert "0 is then by construction" in text, text


def test_a_run_of_one_seed_names_no_seedless_custom_model() -> None:
    from bench.benchmark.config_unused import seeds_change_no_custom_model

    assert seeds_change_no_custom_model([0], ["m"]) == []
    assert len(seeds_change_no_custom_model([0, 1], ["m", "n"])) == 1


# ------------------------------------------------------------------ factories and params
def test_a_factory_typo_names_the_attribute_and_suggests_the_right_one() -> None:
    from bench.errors import ConfigError

    with pytest.raises(ConfigError) as caught:
        _model("round18b_rankers:PipelineRanke")
    text = str(caught.value)
    assert f"[custom_models.{NAME}]" in text, text
    assert "has no attribute 'PipelineRanke'; did you mean 'PipelineRanker'?" in text, text


def test_a_factory_module_typo_names_the_module() -> None:
    from bench.errors import ConfigError

    with pytest.raises(ConfigError, match=r"round18b_ranker'"):
        _model("round18b_ranker:PipelineRanker")


def test_a_module_that_prints_on_import_prints_to_stderr_not_stdout() -> None:
    import contextlib
    import io

    from bench.runners.custom import custom_model

    out, err = io.StringIO(), io.StringIO()
    sys.modules.pop("round18b_printing", None)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        custom_model("p", "round18b_printing:Printing")
    assert out.getvalue() == "", out.getvalue()
    assert "teamrankers v1.2 loaded" in err.getvalue()


def test_an_unknown_param_key_is_a_config_error_naming_the_key() -> None:
    _config_error("NeedsArgs", "widht", widht=3, width=3, names=["a"])


def test_a_param_of_the_wrong_type_is_a_config_error_naming_the_factory_s_message() -> None:
    _config_error("NeedsArgs", "width must be an int", width="3", names=["a"])


def test_typed_params_reach_the_factory_and_scale_the_scores() -> None:
    result = _train("NeedsArgs", width=3, names=["a", "b"], scale=2.0)
    assert np.allclose(result.scores["test"], 2.0 * _lstsq_scores("test"), rtol=0, atol=1e-9)


def test_the_params_table_of_a_config_with_a_float_for_an_int_is_refused_before_data(
        tmp_path: Path) -> None:
    (tmp_path / "c.toml").write_text(
        'dataset = "synthetic"\nmodels = ["n"]\nseeds = [0]\n[custom_models.n]\n'
        'factory = "round18b_rankers:NeedsArgs"\nparams = { width = 3.0, names = ["a"] }\n')
    res = cli(tmp_path, "run", "--config", str(tmp_path / "c.toml"), "--out", str(tmp_path / "o"))
    assert res.status == 2, res
    assert not res.traceback, res
    assert "[custom_models.n]" in res.err, res.err
    assert "width must be an int" in res.err, res.err


# ------------------------------------------------------------------ more containers and shapes
def test_a_predict_reusing_one_buffer_leaves_the_validation_scores_as_they_were() -> None:
    splits = _equal_sized_splits()
    result = _train("ReusesBuffer", splits=splits)
    for split in ("vali", "test"):
        assert np.allclose(result.scores[split], _lstsq_scores(split, splits), rtol=0,
                           atol=1e-9), split


def test_a_fit_with_scikit_learn_s_groups_spelling_is_refused_naming_groups() -> None:
    text = _config_error("SklearnGroups", "group")
    assert "groups" in text, text
