"""Round 6 of the hostile catalogue on user code (issue 19, item 6; leftovers of round 5).

1. **Class attributes patched by a ranker**: round 5 put back the *functions* a ranker replaced
   in NumPy, pandas, ltrbench and the GBDT libraries, not the methods of their classes:
   ``lightgbm.Booster.predict = ...`` in ``fit`` reversed every later LightGBM model's scores,
   ``pandas.DataFrame.sort_values`` replaced changed later evaluations, a property, a class method,
   a method added to a subclass (shadowing its base's) or one deleted outlived the ranker. Now each
   is put back after the call and named in the status notes (``custom_process._library_classes``).
2. **A ranker that never finishes**: no time limit; a ``fit`` that loops, sleeps, swallows
   every exception, or cancels the alarm, a ``predict`` that loops, a factory that loops, in the
   main thread or another: the run hung. Now each call has a limit (``timeout = SECONDS`` in
   ``[custom_models.<name>]``, default one hour) and a call past it is a ``CustomModelFailure``
   naming the model, the step and the key; a bad ``timeout`` value is a ConfigError naming the key.

:data:`CLASSES` maps each test to its class for the closing counts.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import lightgbm
import pandas as pd
import pytest
from hostile_kit import toy_splits

from bench.data.letor import LetorData, LetorSplits
from bench.errors import ConfigError
from bench.runners.custom import CustomModelFailure, custom_model, train_custom

NAME = "hostile6"

CLASSES = {
    "test_a_patched_library_class_is_put_back_and_named": "silently wrong",
    "test_a_ranker_past_its_time_limit_is_stopped_naming_it": "hang (silent)",
    "test_a_ranker_in_another_thread_is_stopped_too": "hang (silent)",
    "test_a_ranker_inside_its_limit_runs_as_before": "silently wrong",
    "test_a_bad_timeout_is_a_config_error_naming_the_key": "silent accept",
    "test_the_timeout_is_kept_in_the_runs_config": "silent accept",
}


@pytest.fixture
def splits() -> LetorSplits:
    return toy_splits()


def _model(factory: str, **table: Any) -> Any:
    return custom_model(NAME, {"factory": f"round6_rankers:{factory}", **table})


PATCHES = {
    "PatchesBoosterPredict": (lightgbm.Booster, "predict", "lightgbm.basic.Booster.predict"),
    "PatchesDataFrameMethod": (pd.DataFrame, "sort_values", "DataFrame.sort_values"),
    "PatchesAProperty": (pd.DataFrame, "shape", "DataFrame.shape"),
    "PatchesAClassMethod": (pd.DataFrame, "from_records", "DataFrame.from_records"),
    "ShadowsAnInheritedMethod": (lightgbm.LGBMRanker, "predict", "LGBMRanker.predict (added)"),
    "DeletesAMethod": (LetorData, "__post_init__", "LetorData.__post_init__"),
}


@pytest.mark.parametrize("factory", list(PATCHES))
def test_a_patched_library_class_is_put_back_and_named(splits: LetorSplits,
                                                       factory: str) -> None:
    cls, attr, words = PATCHES[factory]
    before = dict(vars(cls))
    try:
        result = train_custom(_model(factory), splits, seed=0)
        after = dict(vars(cls))
    finally:  # whatever happened, leave the test process as it was
        for key in set(vars(cls)) - set(before):
            delattr(cls, key)
        for key, value in before.items():
            if vars(cls).get(key) is not value and not key.startswith("__dict"):
                setattr(cls, key, value)
    assert after.get(attr) is before.get(attr), f"{factory}: {cls.__name__}.{attr} outlived it"
    assert words in result.notes.get("process", ""), result.notes


@pytest.mark.parametrize(("factory", "step"), [
    ("SpinsInFit", "fit"), ("SleepsInFit", "fit"), ("SwallowsEverything", "fit"),
    ("AlarmInFit", "fit"), ("SpinsInPredict", "predict"), ("slow_factory", "the factory"),
])
def test_a_ranker_past_its_time_limit_is_stopped_naming_it(splits: LetorSplits, factory: str,
                                                           step: str) -> None:
    start = time.monotonic()
    with pytest.raises((CustomModelFailure, ConfigError)) as info:
        train_custom(_model(factory, timeout=1), splits, seed=0)
    message = str(info.value)
    assert time.monotonic() - start < 30, "the limit did not stop it"
    assert f"'{NAME}'" in message, message
    assert f"{step} ran past its time limit of 1 s" in message, message
    assert "timeout = SECONDS" in message, message


def test_a_ranker_in_another_thread_is_stopped_too(splits: LetorSplits) -> None:
    """No signal reaches a thread that is not the main one: the watchdog's exception does."""
    caught: list[BaseException] = []

    def work() -> None:
        try:
            train_custom(_model("SpinsInFit", timeout=1), splits, seed=0)
        except BaseException as exc:  # handed to the test thread
            caught.append(exc)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join(30)
    assert not thread.is_alive(), "the limit did not stop it"
    assert isinstance(caught[0], CustomModelFailure), caught
    assert "fit ran past its time limit of 1 s" in str(caught[0])


def test_a_ranker_inside_its_limit_runs_as_before(splits: LetorSplits) -> None:
    """A limit that is not reached changes nothing, and leaves nothing pending: a second later
    the test thread runs on without a stray exception."""
    result = train_custom(_model("FastEnough", timeout=120), splits, seed=0)  # far from any load
    assert result.scores["test"].shape == (splits.test.n_rows,)
    time.sleep(1.5)


@pytest.mark.parametrize("value", [0, -1, float("nan"), float("inf"), True, "60", 1e9, None])
def test_a_bad_timeout_is_a_config_error_naming_the_key(value: Any) -> None:
    with pytest.raises(ConfigError) as info:
        _model("Base", timeout=value)
    assert f"[custom_models.{NAME}] timeout" in str(info.value), info.value
    assert "seconds" in str(info.value)


def test_the_timeout_is_kept_in_the_runs_config() -> None:
    """The limit is part of the model's table (its config.toml), the default left out so that
    the hash of earlier runs is unchanged."""
    assert _model("Base", timeout=90).to_dict()["timeout"] == 90
    assert "timeout" not in _model("Base").to_dict()
    assert custom_model(NAME, _model("Base", timeout=90)).timeout_s == 90
