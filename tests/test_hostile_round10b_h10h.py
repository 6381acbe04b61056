"""Hostile configs and custom rankers, round 10b (issue 19 items 5 and 6), as the held-out
catalogue's first tries would be: what a user of LightGBM, scikit-learn, pandas or freezegun
naturally does inside a ranker, and what a Python user naturally passes to ``RunConfig``.

Found and fixed here:

- **a ranker that replaces a standard-library function** ltrbench calls (``time.perf_counter``,
  ``time.time`` and ``datetime.datetime`` as freezegun does, ``json.dumps``, ``os.replace``,
  ``shutil.rmtree``, ``hashlib.sha1``, ``warnings.showwarning``, ``random.random``) kept it
  for the rest of the run: every later fit time 0 s, every manifest ``{}``, every atomic write a
  no-op, every warning silenced, the data digests defeated; now put back and named
  (:data:`bench.runners.custom_state.STDLIB_GUARDED`);
- **the blocked-signal mask** (``signal.pthread_sigmask``: Ctrl-C blocked for the rest of the run),
  **an import finder put in front** (``sys.meta_path.insert(0, ...)``) and **a stand-in module
  under a library's name** (``sys.modules["xgboost..."] = types.ModuleType(...)``, ``None``)
  stayed; now put back or removed and named; a finder appended after the standard ones (``six``)
  is kept; **a thread left running** is named;
- ``predict`` returning a SciPy sparse column said "an array of shape ()";
- ``RunConfig.from_dict`` refused ``np.int64`` seeds, a ``Path`` and NumPy parameters that
  :func:`bench.benchmark.run` accepts (two Python doors, two rules), and said "params: expected
  a table; got a table" for ``params={1: 2}``;
- ``tune --quick`` trained ``num_leaves`` up to 255 (the declared space) and a ``--grid``'s
  ``n_trees = 100`` although quick mode caps them, and wrote a ``best.toml`` (``quick = true``)
  whose run trains the capped values: the declared space is narrowed to the caps, a user's value
  above a cap is refused as ``run --quick --n-trees 100`` is.

Pinned beside them (held before): ``MemoryError`` and ``RecursionError`` in ``fit`` named, a
list or an object with ``__array__`` from ``predict`` read as scores, a config with a UTF-8
byte-order mark read, NumPy floats and bools still refused as seeds.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import random
import shutil
import signal
import sys
import threading
import time
import types
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_cases_tune import tune
from hostile_kit import refused, toy_splits
from test_hostile_config import VALID
from test_hostile_round8_rankers import Base  # scores = the first feature; fit runs go()

from bench.benchmark.config import RunConfig
from bench.errors import LtrbenchError

NAME = "hostile10b"
MODULE = Path(__file__).stem


def _zero() -> float:
    return 0.0


class _Finder:
    """An import finder that finds nothing (one that served fakes would be worse)."""

    @classmethod
    def find_spec(cls, name: str, path: Any = None, target: Any = None) -> None:
        return None


class _Frozen(datetime.datetime):
    pass


#: attack name -> (what fit does, what is read before and after, words the notes must hold)
STATE: dict[str, tuple[Callable[[], None], Callable[[], Any], str]] = {
    "time.perf_counter": (lambda: setattr(time, "perf_counter", _zero),
                          lambda: time.perf_counter, "time.perf_counter"),
    "time.time (freezegun)": (lambda: setattr(time, "time", _zero), lambda: time.time,
                              "time.time"),
    "datetime.datetime (freezegun)": (lambda: setattr(datetime, "datetime", _Frozen),
                                      lambda: datetime.datetime, "datetime.datetime"),
    "json.dumps": (lambda: setattr(json, "dumps", lambda *a, **k: "{}"), lambda: json.dumps,
                   "json.dumps"),
    "os.replace": (lambda: setattr(os, "replace", lambda *a, **k: None), lambda: os.replace,
                   "os.replace"),
    "shutil.rmtree": (lambda: setattr(shutil, "rmtree", lambda *a, **k: None),
                      lambda: shutil.rmtree, "shutil.rmtree"),
    "hashlib.sha1": (lambda: setattr(hashlib, "sha1", lambda *a, **k: hashlib.md5(b"")),
                     lambda: hashlib.sha1, "hashlib.sha1"),
    "warnings.showwarning": (lambda: setattr(warnings, "showwarning", lambda *a, **k: None),
                             lambda: warnings.showwarning, "warnings.showwarning"),
    "random.random": (lambda: setattr(random, "random", _zero), lambda: random.random,
                      "random.random"),
    "blocked SIGINT and SIGTERM": (
        lambda: signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM}),
        lambda: signal.pthread_sigmask(signal.SIG_BLOCK, []), "pthread_sigmask"),
    "a finder in front of sys.meta_path": (lambda: sys.meta_path.insert(0, _Finder),
                                           lambda: list(sys.meta_path), "sys.meta_path"),
    "a stand-in module under xgboost": (
        lambda: sys.modules.__setitem__("xgboost.h10b_stand_in", types.ModuleType("x")),
        lambda: "xgboost.h10b_stand_in" in sys.modules, "xgboost.h10b_stand_in"),
    "None under a bench module's name": (
        lambda: sys.modules.__setitem__("bench.h10b_blocked", None),  # type: ignore[arg-type]
        lambda: "bench.h10b_blocked" in sys.modules, "bench.h10b_blocked"),
}


class Attacks(Base):
    """``fit`` runs ``Attacks.attack`` (set per case)."""

    attack: Callable[[], None] = staticmethod(lambda: None)

    def go(self) -> None:
        type(self).attack()


def _train(factory: str) -> tuple[Any, BaseException | None]:
    from bench.runners.custom import custom_model, train_custom

    try:
        return train_custom(custom_model(NAME, f"{MODULE}:{factory}"), toy_splits(), seed=0), None
    except Exception as exc:  # judged by the caller
        return None, exc


def state_case(name: str) -> str | None:
    """None when the change ``name`` is put back and named in the model's notes."""
    import importlib

    attack, read, word = STATE[name]
    importlib.import_module(MODULE).Attacks.attack = staticmethod(attack)  # the class the run imports
    before = read()
    result, exc = _train("Attacks")
    after = read()
    if exc is not None:
        return f"refused: {type(exc).__name__}: {str(exc)[:200]}"
    if after != before:
        return f"not put back: {before!r} became {after!r}"
    notes = str(result.notes.get("process", ""))
    return None if word in notes else f"not named: {notes[:200]!r}"


@pytest.mark.parametrize("name", list(STATE))
def test_a_rankers_change_to_the_process_is_put_back_and_named(name: str) -> None:
    assert state_case(name) is None


class AppendsAFinder(Base):
    def go(self) -> None:
        sys.meta_path.append(_Finder)


def test_a_finder_appended_after_the_standard_ones_is_kept() -> None:
    """``six`` appends its own finder on import; removing it would break the ranker's next
    ``from six.moves import ...``."""
    result, exc = _train("AppendsAFinder")
    try:
        assert exc is None
        assert sys.meta_path[-1] is _Finder
        assert "1 appended kept" in result.notes["process"]
    finally:
        while _Finder in sys.meta_path:
            sys.meta_path.remove(_Finder)


class LeavesAThread(Base):
    stop = threading.Event()

    def go(self) -> None:
        threading.Thread(target=type(self).stop.wait, args=(30,), name="left-by-ranker",
                         daemon=True).start()


def test_a_thread_left_running_is_named() -> None:
    try:
        result, exc = _train("LeavesAThread")
        assert exc is None
        assert "left-by-ranker" in result.notes["process"]
    finally:
        LeavesAThread.stop.set()


# ------------------------------------------------------------------ predict and fit
class GivesSparse(Base):
    def predict(self, X: Any) -> Any:
        import scipy.sparse as sp

        return sp.csr_matrix(np.asarray(X[:, :1]))


class GivesAList(Base):
    def predict(self, X: Any) -> Any:
        return [float(v) for v in X[:, 0]]


class _Tensorish:
    def __init__(self, values: Any) -> None:
        self.values = np.array(values)

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        return self.values

    def __len__(self) -> int:
        return len(self.values)


class GivesATensor(Base):
    def predict(self, X: Any) -> Any:
        return _Tensorish(X[:, 0])


class RaisesMemoryError(Base):
    def go(self) -> None:
        raise MemoryError


class Recurses(Base):
    def go(self) -> None:
        def deeper() -> None:
            deeper()

        deeper()


def _refusal(factory: str, *words: str) -> str | None:
    exc = _train(factory)[1]
    if not isinstance(exc, LtrbenchError):
        return f"not a clear error: {exc!r}"[:200]
    missing = [w for w in (f"'{NAME}'", *words) if w not in str(exc)]
    return f"{str(exc)[:200]!r} lacks {missing}" if missing else None


def _scores_are_the_first_feature(factory: str) -> str | None:
    result, exc = _train(factory)
    if exc is not None:
        return f"refused: {exc}"
    want = toy_splits().test.X[:, 0]
    got = result.scores["test"]
    return None if got.dtype == np.float64 and np.array_equal(got, want) else f"scores {got[:3]}"


OUTPUTS: dict[str, Callable[[], str | None]] = {
    "predict a sparse column": lambda: _refusal("GivesSparse", "csr_matrix", "(", "toarray"),
    "predict a list": lambda: _scores_are_the_first_feature("GivesAList"),
    "predict an object with __array__": lambda: _scores_are_the_first_feature("GivesATensor"),
    "fit raises MemoryError": lambda: _refusal("RaisesMemoryError", "fit", "MemoryError"),
    "fit recurses without end": lambda: _refusal("Recurses", "fit", "RecursionError"),
}


@pytest.mark.parametrize("name", list(OUTPUTS))
def test_a_rankers_output_or_failure_is_read_or_named(name: str) -> None:
    assert OUTPUTS[name]() is None


# ------------------------------------------------------------------ the Python door of RunConfig
BASE = {"dataset": "./letor", "models": ["lightgbm-lambdarank"], "seeds": [0], "quick": True}


def test_run_config_names_a_params_key_that_is_not_a_string() -> None:
    with pytest.raises(LtrbenchError) as info:
        RunConfig.from_dict({**BASE, "params": {1: 2}})
    assert "the key 1" in str(info.value)
    assert "got a table" not in str(info.value)


def test_run_config_refuses_a_top_key_that_is_not_a_string() -> None:
    with pytest.raises(LtrbenchError, match="the key 5"):
        RunConfig.from_dict({**BASE, 5: True})


@pytest.mark.parametrize(("key", "value", "read"), [
    ("seeds", np.arange(3), lambda c: c.seeds == (0, 1, 2)),
    ("seeds", [np.int64(7)], lambda c: c.seeds == (7,)),
    ("data_dir", Path("/tmp/h10b"), lambda c: c.data_dir == "/tmp/h10b"),
    ("eval_at", np.array([5, 10]), lambda c: tuple(c.eval_at) == (5, 10)),
    ("model_params", {"lightgbm-lambdarank": {"n_trees": np.int32(5)}},
     lambda c: c.model_params["lightgbm-lambdarank"]["n_trees"] == 5),
])
def test_run_config_reads_python_values_as_bench_run_does(key: str, value: Any,
                                                          read: Callable[[Any], bool]) -> None:
    assert read(RunConfig.from_dict({**BASE, key: value}))


@pytest.mark.parametrize("value", [np.float64(1.5), [np.True_], "1.5"])
def test_run_config_still_refuses_what_is_not_a_seed(value: Any) -> None:
    with pytest.raises(LtrbenchError, match="seeds"):
        RunConfig.from_dict({**BASE, "seeds": value})


# ------------------------------------------------------------------ tune --quick
@pytest.mark.parametrize(("grid", "words"), [
    ("n_trees=50,100", ("--grid n_trees = 100", "quick mode", "20")),
    ("num_leaves=7,31", ("--grid num_leaves = 31", "15")),
    ("early_stopping_rounds=10", ("--grid early_stopping_rounds = 10", "5")),
])
def test_tune_quick_refuses_a_grid_value_above_the_quick_cap(tmp_path: Path, grid: str,
                                                            words: tuple[str, ...]) -> None:
    assert refused(tune(tmp_path, "--model", "lightgbm", "--grid", grid), *words) is None


def test_tune_quick_refuses_a_space_file_range_above_the_cap(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text("[lightgbm]\nnum_leaves = { low = 4, high = 63 }\n")
    res = tune(tmp_path, "--model", "lightgbm", "--space", "s.toml")
    assert refused(res, "--space s.toml num_leaves", "15") is None


def test_tune_quick_narrows_the_declared_space_to_the_caps() -> None:
    from bench.benchmark.search_space import SPACES, within_quick

    declared = SPACES["lightgbm"]
    narrowed = within_quick({"m": declared}, {"m": "lightgbm"}, "the declared space")["m"]
    leaves = next(d for d in narrowed if d.name == "num_leaves")
    assert (leaves.low, leaves.high) == (7, 15)
    assert [d.name for d in narrowed] == [d.name for d in declared]
    assert within_quick({"m": (leaves,)}, {"m": "lightgbm"}, "x")["m"] == (leaves,)


# ------------------------------------------------------------------ configs that held
def test_a_config_with_a_utf8_byte_order_mark_is_read(tmp_path: Path) -> None:
    """Notepad writes one; the run reads past it (exit 0, a run folder)."""
    from hostile_kit import cli
    from test_hostile_config import SPLITS

    (tmp_path / "letor").mkdir()
    for split, data in SPLITS.items():
        (tmp_path / "letor" / f"{split}.txt").write_bytes(data)
    (tmp_path / "c.toml").write_bytes(b"\xef\xbb\xbf" + VALID.encode())
    res = cli(tmp_path, "run", "--config", "c.toml", "--no-progress", "--out", "res")
    assert res.status == 0, res.err
    assert any((tmp_path / "res" / "runs").iterdir())
