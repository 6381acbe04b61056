"""Hostile custom rankers, round 15 (issue 19: trust at every edge): a Kaggle grandmaster's own
rankers against LightGBM and XGBoost under matched settings.

Wrappers around the libraries with their own early stopping on the validation set they are
handed, ensembles with their own threads and seeds, outputs of another dtype or shape, rank
positions, a collapsed (constant) model, and what a ranker is given (read-only arrays of the
right splits only).

Found here: ``fit_s`` and ``predict_s`` of a custom model held ltrbench's own guards around the
calls (the snapshot and restore of the process state, the digests), 20-60 ms a call on any data:
a no-op ranker was charged ~40 ms of fit and ~65 ms of predict on a 40-row split, which a
leaderboard of fit times showed as the ranker's. They are now the ``fit`` and ``predict`` calls
alone, as the README says (``bench.runners.custom``). A ranker whose scores tie within every
query of a split (a collapsed model, a constant, a query-level score) was scored by the
evaluator's tie order without a word; it is now a ``TiedScoresWarning`` naming the model and the
split, and noted in its status file (``bench.runners.custom_checks.tied_scores``).

The rankers live in ``tests/grandmaster_rankers.py`` (a module the runs import by name).
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import grandmaster_rankers as R
from hostile_kit import toy_splits

NAME = "gm15"


def _model(factory: str, **params: Any) -> Any:
    from bench.runners.custom import custom_model

    return custom_model(NAME, {"factory": f"grandmaster_rankers:{factory}", "params": params})


def _train(factory: str, splits: Any = None, seed: int = 0, **params: Any) -> Any:
    from bench.runners.custom import train_custom

    return train_custom(_model(factory, **params), splits or toy_splits(), seed=seed)


def _quiet_train(factory: str, **params: Any) -> tuple[Any, list[str]]:
    """Train, returning the result and the texts of the TiedScoresWarnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = _train(factory, **params)
    return result, [str(w.message) for w in caught if w.category.__name__ == "TiedScoresWarning"]


def _failure(factory: str, *words: str, **params: Any) -> str:
    from bench.runners.custom import CustomModelFailure

    with pytest.raises(CustomModelFailure) as caught:
        _train(factory, **params)
    text = str(caught.value)
    for word in (f"'{NAME}'", f"grandmaster_rankers:{factory}", *words):
        assert word in text, (word, text)
    assert "\n" not in text
    return text


# --- timing: fit_s and predict_s are the ranker's own calls --------------------------------


def test_fit_s_and_predict_s_of_a_no_op_ranker_hold_none_of_ltrbench_s_guards(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """ltrbench's snapshot of the process state (taken around every call of the ranker) made
    0.3 s slow: a time that includes it is not the ranker's."""
    from bench.runners import custom_process

    delay = 0.3  # far above a no-op call's time even with both cores busy
    take = custom_process._ProcessState.take

    def slow_take() -> Any:
        time.sleep(delay)
        return take()

    monkeypatch.setattr(custom_process._ProcessState, "take", staticmethod(slow_take))
    result = _train("Noop")
    assert 0 < result.fit_s < delay, result.fit_s
    assert 0 < result.predict_s < delay, result.predict_s


def test_fit_s_holds_the_whole_of_a_slow_fit() -> None:
    R.Sleepy.inner.clear()
    result = _train("Sleepy", fit_sleep=0.3)
    assert result.fit_s >= R.Sleepy.inner[-1] >= 0.3
    assert result.predict_s < 0.3  # the fit's time is not the predict's (margin for busy cores)


def test_predict_s_holds_both_predict_calls() -> None:
    result = _train("Sleepy", predict_sleep=0.15)
    assert result.predict_s >= 0.3  # validation and test: two calls
    assert result.fit_s < 0.15  # a no-op fit (margin for busy cores)


def test_the_fit_measurement_s_wall_time_is_fit_s() -> None:
    result = _train("Noop")
    assert result.fit is not None
    assert result.fit.seconds == result.fit_s


# --- tied scores: a collapsed model is said -------------------------------------------------


def test_a_constant_ranker_is_warned_for_each_split_naming_the_model_and_the_split() -> None:
    result, said = _quiet_train("Out", kind="const")
    assert len(said) == 2, said
    for split, n_queries in (("vali", 4), ("test", 5)):
        text = next(t for t in said if f"of the {split} split" in t)
        assert f"'{NAME}'" in text
        assert "grandmaster_rankers:Out" in text
        assert "seed 0" in text
        assert f"all {n_queries} queries" in text
        assert "0.5 for every row" in text
        assert "tie order" in text
        assert result.notes[f"{split}_scores"] == text
    assert (result.scores["test"] == 0.5).all()  # accepted: the numbers are still given


def test_a_query_level_score_is_warned_as_tied_within_every_query() -> None:
    result, said = _quiet_train("PerQuery")
    assert len(said) == 2, said
    assert all("for every row" not in t for t in said), said
    assert len(np.unique(result.scores["test"])) == 5  # queries differ, rows within do not


def test_scores_that_order_one_query_are_not_warned() -> None:
    result, said = _quiet_train("Out", kind="all_but_one_query_tied")
    assert said == []
    assert "test_scores" not in result.notes


def test_a_ranker_that_orders_documents_is_not_warned() -> None:
    result, said = _quiet_train("Noop")
    assert said == []
    assert not any(k.endswith("_scores") for k in result.notes)


def test_queries_of_one_row_have_nothing_to_order_and_are_not_warned() -> None:
    from bench.data.letor import LetorData, LetorSplits

    def part(n: int, seed: int) -> LetorData:
        X = np.random.default_rng(seed).normal(size=(n, 3))
        return LetorData.build(X, (X[:, 0] > 0).astype(float), qid=np.arange(n) + 100 * seed,
                               source=f"p{seed}")

    splits = LetorSplits(name="ones", train=part(6, 1), vali=part(3, 2), test=part(4, 3),
                         inputs={})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = _train("Out", splits=splits, kind="const")
    assert not [w for w in caught if w.category.__name__ == "TiedScoresWarning"]
    assert result.scores["test"].shape == (4,)


def test_tied_scores_rule_by_hand() -> None:
    from bench.runners.custom_checks import tied_scores

    offsets = np.array([0, 2, 2, 5, 6])  # a query of 2 rows, an empty one, 3 rows, 1 row
    assert tied_scores(np.array([1.0, 1.0, 3.0, 3.0, 3.0, 9.0]), offsets, "test", "m") \
        is not None
    assert tied_scores(np.array([1.0, 1.0, 3.0, 2.0, 3.0, 9.0]), offsets, "test", "m") is None
    assert tied_scores(np.array([1.0]), np.array([0, 1]), "test", "m") is None
    assert tied_scores(np.array([-0.0, 0.0]), np.array([0, 2]), "vali", "m") is not None


# --- what the ranker is given ---------------------------------------------------------------


@pytest.fixture(scope="module")
def spied() -> dict[str, Any]:
    splits = toy_splits()
    R.Spy.got = {}
    result = _train("Spy", splits=splits)
    return {"splits": splits, "result": result, **R.Spy.got}


def test_fit_s_x_reaches_no_row_beyond_the_training_split(spied: dict[str, Any]) -> None:
    n = spied["splits"].train.n_rows
    assert spied["chain"], spied
    assert set(spied["chain"]) == {n}, spied["chain"]


def test_fit_gets_the_training_split_bit_for_bit_read_only(spied: dict[str, Any]) -> None:
    train = spied["splits"].train
    X, y = spied["X"], spied["y"]
    assert X.dtype == np.float32
    assert X.flags.c_contiguous
    assert not X.flags.writeable
    assert y.dtype == np.float64
    assert not y.flags.writeable
    np.testing.assert_array_equal(X, train.X)
    np.testing.assert_array_equal(y, train.y)


def test_the_groups_count_every_row_of_the_splits_in_order(spied: dict[str, Any]) -> None:
    splits = spied["splits"]
    np.testing.assert_array_equal(spied["group"], np.diff(splits.train.offsets))
    np.testing.assert_array_equal(spied["eval_group"][0], np.diff(splits.vali.offsets))
    assert int(np.sum(spied["group"])) == 40


def test_the_eval_set_is_the_validation_split_only(spied: dict[str, Any]) -> None:
    (Xv, yv), = spied["eval_set"]
    np.testing.assert_array_equal(Xv, spied["splits"].vali.X)
    np.testing.assert_array_equal(yv, spied["splits"].vali.y)
    assert not Xv.flags.writeable
    assert not yv.flags.writeable


def test_predict_gets_validation_then_test_read_only_never_train(spied: dict[str, Any]) -> None:
    splits = spied["splits"]
    got = spied["predicted"]
    assert [(n, w) for n, w, _ in got] == [(20, False), (25, False)]
    np.testing.assert_array_equal(got[0][2], splits.vali.X)
    np.testing.assert_array_equal(got[1][2], splits.test.X)


def test_the_arrays_are_writeable_again_after_the_spy(spied: dict[str, Any]) -> None:
    splits = spied["splits"]
    assert all(getattr(splits, s).X.flags.writeable for s in ("train", "vali", "test"))


# --- outputs of another dtype or shape -------------------------------------------------------


def test_float32_scores_are_taken_exactly_as_float64() -> None:
    splits = toy_splits()
    result = _train("Out", splits=splits, kind="f32")
    assert result.scores["test"].dtype == np.float64
    np.testing.assert_array_equal(result.scores["test"], splits.test.X[:, 0].astype(np.float32))


def test_float16_scores_are_taken_exactly_as_float64() -> None:
    splits = toy_splits()
    result = _train("Out", splits=splits, kind="f16")
    np.testing.assert_array_equal(result.scores["vali"],
                                  splits.vali.X[:, 0].astype(np.float16).astype(np.float64))


def test_a_pyarrow_array_of_scores_is_read_by_position() -> None:
    splits = toy_splits()
    result = _train("Out", splits=splits, kind="arrow")
    np.testing.assert_array_equal(result.scores["test"], splits.test.X[:, 0].astype(np.float64))


def test_scores_that_are_a_view_of_the_input_are_copied() -> None:
    splits = toy_splits()
    result = _train("Out", splits=splits, kind="view_of_input")
    assert not np.shares_memory(result.scores["test"], splits.test.X)
    np.testing.assert_array_equal(result.scores["test"], splits.test.X[:, 0])


def test_a_predict_returning_scores_and_leaves_is_refused_with_its_shape() -> None:
    _failure("Out", "predict returned", "(2, 20)", "1-D array of 20 scores", kind="tuple_with_leaves")


def test_a_one_row_matrix_of_scores_is_refused_with_its_shape() -> None:
    _failure("Out", "(1, 20)", "expected a 1-D array", kind="row")


def test_decimal_scores_are_refused_naming_the_dtype_and_what_was_expected() -> None:
    _failure("Out", "dtype object", "expected numbers", kind="decimal")


def test_a_record_array_of_scores_is_refused_naming_the_dtype() -> None:
    _failure("Out", "dtype void", "expected numbers", kind="record")


def test_timedelta_scores_are_refused_naming_the_dtype() -> None:
    _failure("Out", "timedelta", "expected numbers", kind="timedelta")


def test_a_list_of_booleans_is_refused_naming_the_dtype() -> None:
    _failure("Out", "bool", "expected numbers", kind="bool_list")


def test_a_nullable_array_with_a_missing_score_is_refused_naming_the_row() -> None:
    _failure("Out", "row 1", "finite", kind="nullable_missing")


def test_scores_cached_from_the_training_split_are_refused_with_both_counts() -> None:
    _failure("Out", "40 scores for 20 rows", "one score per row", kind="train_length")


# --- a grandmaster's wrappers against the libraries themselves --------------------------------


def test_an_ensemble_scores_the_mean_of_its_libraries_trained_directly() -> None:
    import lightgbm
    import xgboost

    splits = toy_splits()
    result = _train("Ensemble", splits=splits, seed=4)
    group = np.diff(splits.train.offsets)
    lgb = lightgbm.LGBMRanker(n_estimators=3, random_state=4, n_jobs=1, min_child_samples=1,
                              verbose=-1).fit(splits.train.X, splits.train.y, group=group)
    xgb = xgboost.XGBRanker(n_estimators=3, random_state=4, n_jobs=1).fit(
        splits.train.X, splits.train.y, group=group)
    want = (lgb.predict(splits.test.X) + xgb.predict(splits.test.X)) / 2
    np.testing.assert_allclose(result.scores["test"], want, rtol=0, atol=1e-12)
    assert result.library_params.get("seed") == 4
    assert result.notes["seed"] == {"seed": 4}


def test_own_early_stopping_on_the_handed_eval_set_is_the_validation_split_s() -> None:
    import lightgbm

    splits = toy_splits()
    result = _train("EarlyStopped", splits=splits, seed=1)
    direct = lightgbm.LGBMRanker(n_estimators=30, learning_rate=0.3, random_state=1, n_jobs=1,
                                 min_child_samples=1, verbose=-1)
    direct.fit(splits.train.X, splits.train.y, group=np.diff(splits.train.offsets),
               eval_set=[(splits.vali.X, splits.vali.y)],
               eval_group=[np.diff(splits.vali.offsets)], eval_at=[3],
               callbacks=[lightgbm.early_stopping(2, verbose=False)])
    np.testing.assert_array_equal(result.scores["test"],
                                  direct.predict(splits.test.X, raw_score=True))


def test_rank_positions_are_read_as_scores_higher_is_better_and_warned() -> None:
    """A ranker that returns positions (1 = best) is taken as it is (the README: higher is
    better): its top document in each query is the one with the smallest first feature, and
    the warning says so for each split."""
    splits = toy_splits()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = _train("Positions", splits=splits)
    positions = result.scores["test"].reshape(-1, 5)
    first = splits.test.X[:, 0].reshape(-1, 5)
    assert sorted(positions[0]) == [1, 2, 3, 4, 5]
    np.testing.assert_array_equal(positions.argmax(axis=1), first.argmin(axis=1))
    said = [str(w.message) for w in caught if w.category.__name__ == "TiedScoresWarning"]
    assert len(said) == 2, said
    assert all(f"'{NAME}'" in t and "positions 1..n" in t and "-position" in t for t in said)
    assert "positions 1..n" in result.notes["test_scores"]


def test_position_rule_by_hand() -> None:
    from bench.runners.custom_checks import position_scores

    offsets = np.array([0, 3, 5])
    assert "1..n" in (position_scores(np.array([2.0, 1, 3, 2, 1]), offsets, "test", "m") or "")
    assert "0..n-1" in (position_scores(np.array([2.0, 0, 1, 0, 1]), offsets, "test", "m") or "")
    assert position_scores(np.array([2.0, 1, 3, 0, 1]), offsets, "test", "m") is None  # mixed
    assert position_scores(np.array([2.0, 1, 3, 1, 1]), offsets, "test", "m") is None  # a tie
    assert position_scores(np.array([2.5, 1, 3, 2, 1]), offsets, "test", "m") is None
    assert position_scores(np.array([1.0, 1.0]), np.array([0, 1, 2]), "test", "m") is None


# --- factories from Python and from config files ----------------------------------------------


def test_a_classmethod_factory_from_python_is_named_and_gets_its_seed() -> None:
    from bench.runners.custom import custom_model, train_custom

    model = custom_model(NAME, R.Builder.create)
    assert model.factory == "grandmaster_rankers:Builder.create"  # what "module:attribute" names
    result = train_custom(model, toy_splits(), seed=6)
    assert result.notes["seed"] == {"seed": 6}


def test_a_callable_instance_from_python_is_refused_saying_to_name_it() -> None:
    from bench.errors import ConfigError
    from bench.runners.custom import custom_model

    with pytest.raises(ConfigError) as caught:
        custom_model(NAME, R.BUILD)
    text = str(caught.value)
    assert f"'{NAME}'" in text
    assert "module:attribute" in text


def test_a_callable_instance_named_by_its_module_attribute_works() -> None:
    result = _train("BUILD", seed=3)
    assert result.notes["seed"] == {"seed": 3}


def test_a_config_file_s_wrapper_params_reach_the_factory(tmp_path: Path) -> None:
    from bench.benchmark.config import RunConfig

    path = tmp_path / "gm.toml"
    path.write_text('dataset = "synthetic"\nmodels = ["ens"]\n\n[custom_models.ens]\n'
                    'factory = "grandmaster_rankers:Ensemble"\nparams = { n_estimators = 2 }\n',
                    encoding="utf-8")
    model = RunConfig.load(path).custom_models["ens"]
    assert model.factory == "grandmaster_rankers:Ensemble"
    assert dict(model.params) == {"n_estimators": 2}


def test_a_misspelt_wrapper_param_is_a_config_error_naming_the_model_and_the_key() -> None:
    from bench.errors import ConfigError
    from bench.runners.custom import check_custom_model

    with pytest.raises(ConfigError) as caught:
        check_custom_model(_model("Ensemble", n_estimator=2), 0)
    text = str(caught.value)
    for word in (f"'{NAME}'", "grandmaster_rankers:Ensemble", "n_estimator"):
        assert word in text, (word, text)


def test_a_thread_pool_the_ranker_keeps_between_seeds_is_noted() -> None:
    result = _train("Pooled")
    assert "ThreadPoolExecutor" in result.notes.get("process", ""), result.notes
