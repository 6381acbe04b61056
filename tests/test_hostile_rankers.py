"""Hostile custom rankers (issue 19, item 6 "user code isolated"): a ranker that writes into what
it is given, returns something that is not one finite score per row, or exits, never changes the
run's data for the models after it and never becomes a silently wrong number; each is a clear
error that names the ranker (``'hostile'``).

The rankers are in ``tests/custom_rankers.py``. Every case checks the splits afterwards against a
copy taken before (the data every later model of the run trains on).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
from custom_rankers import Returns, ReusesBuffer
from hostile_kit import toy_splits

from bench.benchmark.config import RunConfig
from bench.benchmark.pipeline import run_benchmark
from bench.data.letor import LetorSplits
from bench.errors import ConfigError, LtrbenchError
from bench.runners.custom import CustomModelTampered, custom_model, train_custom
from bench.runs import layout

NAME = "hostile"


@pytest.fixture
def splits() -> LetorSplits:
    return toy_splits()


def _snapshot(splits: LetorSplits) -> dict[str, np.ndarray]:
    return {f"{s}.{a}": getattr(d, a).copy() for s, d in splits.splits().items()
            for a in ("X", "y", "qid", "offsets")}


def _assert_unchanged(splits: LetorSplits, before: dict[str, np.ndarray]) -> None:
    after = _snapshot(splits)
    changed = [k for k in before if not np.array_equal(before[k], after[k])]
    assert not changed, f"the ranker changed the run's data: {changed}"


def _train(splits: LetorSplits, factory: str, params: dict[str, Any] | None = None) -> Any:
    spec = {"factory": f"custom_rankers:{factory}", "params": params or {}}
    return train_custom(custom_model(NAME, spec), splits, seed=0)


# --- writes into the inputs: the run's data stays as it was, the ranker is named -----------------

MUTATORS = ["ZeroesX", "ScalesX", "ZeroesY", "ShufflesY", "ZeroesEvalSet", "ZeroesEvalY",
            "ZeroesInPredict", "FlipsFlag", "KeepsAndLaterZeroes"]


@pytest.mark.parametrize("factory", MUTATORS)
def test_a_ranker_that_writes_into_its_inputs_is_named_and_the_data_is_unchanged(splits, factory):
    before = _snapshot(splits)
    with pytest.raises(LtrbenchError, match=rf"'{NAME}'.*(read-only|modified|in place)"):
        _train(splits, factory)
    _assert_unchanged(splits, before)


def test_a_ranker_that_gets_round_the_read_only_flag_is_caught_and_ends_the_run(splits,
                                                                              tmp_path):
    """``X.base.flags.writeable = True`` then a write: NumPy cannot stop it without a copy of the
    data, so the change is found by the digest and the run stops before any later model."""
    with pytest.raises(CustomModelTampered, match=rf"'{NAME}'.*fit modified the run's data in "
                                                  r"place \(train X\)"):
        _train(splits, "FlipsBaseFlag")
    config = RunConfig(dataset="toy", models=("hostile", "random"), seeds=(0,), quick=True,
                       crosscheck=False, custom_models={NAME: "custom_rankers:FlipsBaseFlag"})
    fresh = toy_splits()
    with pytest.raises(CustomModelTampered):
        run_benchmark(config, out_dir=tmp_path, progress=False, splits=fresh)
    run_dir = next(p for p in tmp_path.rglob("manifest.json")).parent
    assert layout.read_status(run_dir) == {}  # random never trained on the changed data


@pytest.mark.parametrize("factory", ["ZeroesGroup", "ZeroesQid"])
def test_a_ranker_that_writes_into_the_groups_it_got_changes_nothing_of_the_run(splits, factory):
    before = _snapshot(splits)
    with pytest.raises(LtrbenchError, match=rf"'{NAME}'.*read-only"):
        _train(splits, factory)
    _assert_unchanged(splits, before)


def test_the_arrays_are_writeable_again_after_the_custom_model(splits):
    _train(splits, "FirstFeature")
    assert splits.train.X.flags.writeable
    assert splits.test.y.flags.writeable


def test_a_factory_that_appends_to_a_list_parameter_does_not_change_the_next_seed(splits):
    model = custom_model(NAME, {"factory": "custom_rankers:AppendsToParams",
                                "params": {"layers": [64, 32]}})
    first = train_custom(model, splits, seed=0)
    second = train_custom(model, splits, seed=1)
    assert dict(model.params) == {"layers": [64, 32]}
    assert first.scores["test"][0] == second.scores["test"][0] == 3.0
    assert first.library_params["params"] == {"layers": [64, 32]}


def test_a_mutating_ranker_before_lightgbm_leaves_lightgbm_s_numbers_as_without_it(splits):
    from bench.runners.dispatch import run_model
    from bench.runners.params import Params

    params = Params(n_trees=5, seed=0, n_threads=1)
    clean = run_model("lightgbm-lambdarank", splits, params, seed=0).scores["test"]
    with pytest.raises(LtrbenchError):
        _train(splits, "ZeroesX")
    with pytest.raises(LtrbenchError):
        _train(splits, "ZeroesY")
    after = run_model("lightgbm-lambdarank", splits, params, seed=0).scores["test"]
    np.testing.assert_array_equal(clean, after)


# --- what predict returns: one finite number per row, or a clear error ---------------------------

BAD_OUTPUTS: dict[str, tuple[Any, str]] = {
    "none": (lambda X: None, r"returned None"),
    "scalar": (lambda X: 1.0, r"returned a float"),
    "generator": (lambda X: (float(v) for v in X[:, 0]), r"returned a generator"),
    "dict": (lambda X: {i: 1.0 for i in range(X.shape[0])}, r"returned a dict"),
    "string": (lambda X: "1.0", r"returned a str"),
    "column (n, 1)": (lambda X: np.asarray(X[:, :1], dtype=float), r"shape \(\d+, 1\).*ravel"),
    "frame (n, 1)": (lambda X: pd.DataFrame({"s": X[:, 0]}), r"DataFrame"),
    "short": (lambda X: np.zeros(X.shape[0] - 1), r"\d+ scores for \d+ rows"),
    "long": (lambda X: np.zeros(X.shape[0] + 1), r"\d+ scores for \d+ rows"),
    "empty": (lambda X: np.zeros(0), r"0 scores for \d+ rows"),
    "bool": (lambda X: X[:, 0] > 0, r"bool"),
    "strings": (lambda X: np.asarray([str(v) for v in X[:, 0]]), r"str|<U"),
    "bytes": (lambda X: np.asarray([b"1"] * X.shape[0]), r"bytes|\|S"),
    "object floats": (lambda X: np.asarray(list(X[:, 0]), dtype=object), r"object"),
    "complex": (lambda X: X[:, 0] + 1j, r"complex"),
    "datetime": (lambda X: np.full(X.shape[0], np.datetime64("2020-01-01")), r"datetime"),
    "nan": (lambda X: np.full(X.shape[0], np.nan), r"finite"),
    "inf": (lambda X: np.full(X.shape[0], np.inf), r"finite"),
    "int above 2^53": (lambda X: np.arange(X.shape[0], dtype=np.int64) + 2**53 + 1, r"2\^53"),
    "int 2^53 + 1 (rounds to 2^53)": (lambda X: np.r_[2**53 + 1, np.zeros(X.shape[0] - 1,
                                                                        dtype=np.int64)],
                                      r"2\^53"),
    "int64 minimum": (lambda X: np.r_[np.iinfo(np.int64).min, np.zeros(X.shape[0] - 1,
                                                                      dtype=np.int64)], r"2\^53"),
    "matrix (n, 1)": (lambda X: np.asmatrix(X[:, :1]), r"shape \(\d+, 1\)"),
    "row (1, n)": (lambda X: X[:, 0][None, :], r"shape \(1, \d+\)"),
    "float16 overflow": (lambda X: (X[:, 0] * 1e6).astype(np.float16), r"finite"),
    "uint above 2^63": (lambda X: np.arange(X.shape[0], dtype=np.uint64) + np.uint64(2**63),
                        r"2\^53"),
    "python ints above 2^53": (lambda X: [2**60 + i for i in range(X.shape[0])], r"2\^53"),
    "series, shuffled index": (lambda X: pd.Series(X[:, 0]).sort_values(), r"index"),
    "series, other index": (lambda X: pd.Series(X[:, 0], index=np.arange(X.shape[0]) + 7),
                            r"index"),
    "masked": (lambda X: np.ma.masked_array(X[:, 0], mask=X[:, 0] > 0), r"mask"),
    "longdouble ties": (lambda X: np.longdouble(1) + np.arange(X.shape[0]) * np.longdouble(2.0**-60),
                        r"float64|ties"),
}


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.asmatrix, the case itself
@pytest.mark.parametrize("case", list(BAD_OUTPUTS))
def test_a_predict_output_that_is_not_one_finite_score_per_row_is_a_clear_error(splits, case,
                                                                               monkeypatch):
    make, message = BAD_OUTPUTS[case]
    monkeypatch.setattr(Returns, "make", staticmethod(make))
    before = _snapshot(splits)
    with pytest.raises(LtrbenchError, match=rf"'{NAME}'.*predict.*({message})"):
        _train(splits, "Returns")
    _assert_unchanged(splits, before)


GOOD_OUTPUTS: dict[str, Any] = {
    "list of floats": lambda X: [float(v) for v in X[:, 0]],
    "float32": lambda X: np.asarray(X[:, 0], dtype=np.float32),
    "int": lambda X: np.round(X[:, 0] * 1000).astype(np.int64),
    "series with its row index": lambda X: pd.Series(X[:, 0]),
    "masked without a mask": lambda X: np.ma.masked_array(X[:, 0]),
}


@pytest.mark.parametrize("case", list(GOOD_OUTPUTS))
def test_a_usable_predict_output_gives_its_numbers_as_float64(splits, case, monkeypatch):
    make = GOOD_OUTPUTS[case]
    monkeypatch.setattr(Returns, "make", staticmethod(make))
    result = _train(splits, "Returns")
    for split in ("vali", "test"):
        X = getattr(splits, split).X
        expected = np.asarray(np.asarray(make(X.copy())), dtype=np.float64)
        assert result.scores[split].dtype == np.float64
        np.testing.assert_array_equal(result.scores[split], expected)


def test_a_predict_that_reuses_its_buffer_does_not_turn_vali_scores_into_test_scores(splits):
    result = _train(splits, "ReusesBuffer")
    np.testing.assert_array_equal(result.scores["vali"], splits.vali.X[:, 0].astype(np.float64))
    np.testing.assert_array_equal(result.scores["test"], splits.test.X[:, 0].astype(np.float64))
    assert result.scores["test"] is not ReusesBuffer.last


# --- code that raises, exits or builds nothing usable --------------------------------------------

@pytest.mark.parametrize(("factory", "message"), [
    ("ExitsInFit", r"fit.*(SystemExit|exit)"),
    ("ExitsInPredict", r"predict.*(SystemExit|exit)"),
    ("RaisesInPredict", r"predict raised RuntimeError: the user's predict broke"),
    ("FailingRanker", r"fit raised ValueError"),
])
def test_a_ranker_that_raises_or_exits_is_a_failure_naming_it(splits, factory, message):
    with pytest.raises(LtrbenchError, match=rf"'{NAME}'.*{message}"):
        _train(splits, factory)


@pytest.mark.parametrize(("factory", "message"), [
    ("returns_class", r"returned the class FirstFeature, not a ranker"),
    ("returns_none", r"returned NoneType"),
    ("raises_factory", r"raised RuntimeError: factory broke"),
    ("NOT_CALLABLE", r"not a class or function"),
    ("no_such_name", r"has no attribute"),
])
def test_a_factory_that_builds_nothing_usable_is_a_config_error_naming_the_model(splits, factory,
                                                                                 message):
    with pytest.raises(ConfigError, match=rf"'{NAME}'.*{message}"):
        _train(splits, factory)


def test_a_fit_that_returns_something_else_is_noted_and_the_ranker_itself_predicts(splits):
    result = _train(splits, "FitReturnsOther")
    assert "dict" in result.notes["fit_returned"]
    np.testing.assert_array_equal(result.scores["test"], splits.test.X[:, 0].astype(np.float64))
