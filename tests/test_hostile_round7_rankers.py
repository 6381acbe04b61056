"""Hostile custom rankers, round 7: new instances of issue 19 item 6 (user code isolated).

``predict`` outputs not tried before (complex, datetime64, timedelta64, bytes strings, a
generator, an ``np.matrix`` column, a masked array with masked values, the 2-d ``X`` itself,
a pandas Series whose index is ``X``'s rows shuffled or shifted, ``np.longdouble``), and
rankers that change process state the earlier rounds did not put back: the CPUs the process
may use (``os.sched_setaffinity``: later models would train on one core and the manifest
would record it), Python's limit on integer digits (``sys.set_int_max_str_digits``: later
strict number parsing of long ids would fail), pandas' global options (``pd.set_option``).

Each bad output is a :class:`~bench.errors.LtrbenchError` naming the ranker and ``predict``;
each usable one gives its numbers as float64; each process change is put back and named in
what :func:`bench.runners.custom_process.isolated_process` yields.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fault_rankers import Gives
from hostile_kit import toy_splits

from bench.data.letor import LetorSplits
from bench.errors import LtrbenchError
from bench.runners.custom import custom_model, train_custom

NAME = "hostile7"


@pytest.fixture
def splits() -> LetorSplits:
    return toy_splits()


def _train(splits: LetorSplits) -> Any:
    return train_custom(custom_model(NAME, "fault_rankers:Gives"), splits, seed=0)


def _shuffled(X: np.ndarray) -> pd.Series:
    order = np.random.default_rng(0).permutation(X.shape[0])
    return pd.Series(X[order, 0], index=order)


BAD_OUTPUTS: dict[str, tuple[Any, str]] = {
    "complex": (lambda X: X[:, 0] + 1j, r"complex"),
    "complex with zero imaginary part": (lambda X: X[:, 0].astype(np.complex128), r"complex"),
    "datetime64": (lambda X: np.asarray(X[:, 0] * 1e9, dtype="datetime64[ns]"), r"datetime"),
    "timedelta64": (lambda X: np.asarray(X[:, 0] * 1e9, dtype="timedelta64[ns]"), r"timedelta"),
    "bytes strings": (lambda X: np.asarray([b"0.5"] * X.shape[0]), r"bytes|S3|str"),
    "generator": (lambda X: (float(v) for v in X[:, 0]), r"generator"),
    "matrix column": (lambda X: np.asmatrix(X[:, :1]), r"shape|matrix"),
    "masked values": (lambda X: np.ma.masked_array(X[:, 0], mask=np.r_[True, np.zeros(
        X.shape[0] - 1, dtype=bool)]), r"mask"),
    "X itself": (lambda X: X, r"shape"),
    "series, shuffled index": (_shuffled, r"index"),
    "series, index shifted by one": (lambda X: pd.Series(X[:, 0], index=np.arange(1, X.shape[0]
                                                                                  + 1)), r"index"),
    "dataframe of one column": (lambda X: pd.DataFrame({"s": X[:, 0]}), r"DataFrame|shape"),
    "one score too many": (lambda X: np.r_[X[:, 0], 0.0], r"\d+ scores|shape|rows"),
    "object array with a None": (lambda X: np.asarray([None, *X[1:, 0].tolist()], dtype=object),
                                 r"None|object|finite"),
}


@pytest.mark.parametrize("case", list(BAD_OUTPUTS))
def test_predict_outputs_that_are_not_one_score_per_row_are_named(splits, case, monkeypatch):
    make, message = BAD_OUTPUTS[case]
    monkeypatch.setattr(Gives, "make", staticmethod(make))
    with pytest.raises(LtrbenchError, match=rf"'{NAME}'.*predict.*({message})"):
        _train(splits)


GOOD_OUTPUTS: dict[str, Any] = {
    "longdouble": lambda X: np.asarray(X[:, 0], dtype=np.longdouble),
    "bool": lambda X: X[:, 0] > 0,
    "uint64 small": lambda X: np.round(np.abs(X[:, 0]) * 100).astype(np.uint64),
    "object array of floats": lambda X: np.asarray(X[:, 0].tolist(), dtype=object),
    "pyarrow-backed double": lambda X: pd.Series(X[:, 0], dtype="double[pyarrow]"),
    "a list of numpy scalars": lambda X: [np.float32(v) for v in X[:, 0]],
}


@pytest.mark.parametrize("case", list(GOOD_OUTPUTS))
def test_usable_predict_outputs_give_their_numbers_or_a_clear_error(splits, case, monkeypatch):
    make = GOOD_OUTPUTS[case]
    monkeypatch.setattr(Gives, "make", staticmethod(make))
    try:
        result = _train(splits)
    except LtrbenchError as exc:  # refused: acceptable when it names the ranker and predict
        text = str(exc)
        if f"'{NAME}'" not in text or "predict" not in text:
            pytest.fail(text)
        return
    for split in ("vali", "test"):
        X = getattr(splits, split).X
        want = np.asarray(pd.Series(make(X.copy())).to_numpy(dtype=np.float64))
        assert result.scores[split].dtype == np.float64
        np.testing.assert_array_equal(result.scores[split], want)


# ------------------------------------------------------------ process state put back
def _changes(change: Any) -> list[str]:
    from bench.runners.custom_process import isolated_process

    with isolated_process("test") as restored:
        change()
    return restored


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity here")
def test_a_ranker_that_pins_the_process_to_one_cpu_is_put_back_and_named() -> None:
    before = os.sched_getaffinity(0)
    if len(before) < 2:
        pytest.skip("one usable CPU: pinning changes nothing")
    said = _changes(lambda: os.sched_setaffinity(0, {min(before)}))
    assert os.sched_getaffinity(0) == before
    assert any("CPU" in s for s in said), said


@pytest.mark.skipif(not hasattr(sys, "set_int_max_str_digits"), reason="Python < 3.11")
def test_a_ranker_that_lowers_the_integer_digit_limit_is_put_back_and_named() -> None:
    before = sys.get_int_max_str_digits()
    said = _changes(lambda: sys.set_int_max_str_digits(640))
    assert sys.get_int_max_str_digits() == before
    assert any("digit" in s for s in said), said


def test_a_ranker_that_sets_a_pandas_option_is_put_back_and_named() -> None:
    before = pd.get_option("display.max_rows")
    said = _changes(lambda: pd.set_option("display.max_rows", 3))
    assert pd.get_option("display.max_rows") == before
    assert any("pandas" in s for s in said), said


def test_a_ranker_that_changes_nothing_is_said_to_change_nothing() -> None:
    assert _changes(lambda: None) == []


def test_a_ranker_that_turns_warnings_into_errors_is_put_back() -> None:
    """``warnings.simplefilter("error")`` in fit would make a later library's
    DeprecationWarning end the run."""
    import warnings

    before = list(warnings.filters)
    said = _changes(lambda: warnings.simplefilter("error"))
    assert list(warnings.filters) == before
    assert "the warning filters" in said
