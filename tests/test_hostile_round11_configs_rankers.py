"""Hostile configs, library parameters, tune and custom rankers, round 11 (issue 19, items 5
and 6), after rounds 7 to 10b.

New here:

- **rates the libraries would not train sensibly:** a learning rate below the smallest normal
  float64 (``5e-324``, ``1e-310``: LightGBM multiplies each leaf by it and keeps a subnormal,
  fewer significant bits than the scores it adds to) was accepted for LightGBM; a decaying
  schedule whose floor ``learning_rate_min`` is such a number (or below XGBoost's float32 floor)
  reached it with no word; LightGBM's ``reset_parameter`` failed with a C++ traceback
  (``num_features() > 0``) on training data with no usable feature.
- **raw library values that are not numbers:** ``path_smooth = inf``, ``max_delta_step = nan``
  in a ``[params.<library>]`` table trained (the libraries take ``inf`` / ``nan`` text without a
  check); an integer beyond a C int (LightGBM parses it without a range check:
  ``min_data_in_bin = 4294967299`` trained with 3); a text with NUL (a C string ends there: LightGBM dropped the rest of its parameter
  string); XGBoost ``tree_method = "approx"`` passed the probe (a ``DMatrix``) and failed in the
  run (a ``QuantileDMatrix``) with XGBoost's stack trace.
- **process state a ranker leaves behind:** ``logging.disable``, the root logger's level and
  handlers, a library logger's level, ``os.putenv`` / ``os.unsetenv`` (the C environment child
  processes inherit), file descriptor 2 redirected or closed (every later ``error:`` line
  lost), memory tracing left on (``tracemalloc``: every later fit slower), the
  trace function of new threads, the default thread stack size, ``sys.setdlopenflags``.
- **a TOML file nested 5,000 arrays deep** was a ``RecursionError`` traceback (Python's TOML
  reader is recursive); now an error naming the file and line.
- **one owner:** the quick-mode cap (said by ``run --quick``, ``tune --quick`` and a config with
  ``quick = true`` in one text), the unused-table warnings (``RunConfig.unused``), the range
  table's lookup (public, not ``_SPEC``).

A case returns ``None`` when ltrbench behaved, else one line.
"""

from __future__ import annotations

import ctypes
import logging
import os
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_cases_tune import tune
from hostile_kit import api_refused, cli, own_error, refused, toy_splits
from test_hostile_config import Case, raw_case
from test_hostile_round8_rankers import Base  # scores = the first feature; fit runs go()
from test_hostile_round9_configs import problem

XGB = {"models": '["xgboost-ndcg"]'}
CAT = {"models": '["catboost-yetirank"]'}
DBL_MIN = "2.2250738585072014e-308"

CASES: list[Case] = [
    # ------------------------------------------------------------ subnormal rates (leftover 1)
    Case("lightgbm-learning-rate-5e-324", tables="[params]\nlearning_rate = 5e-324\n",
         words=("c.toml", "[params] learning_rate", DBL_MIN)),
    Case("model-learning-rate-1e-310",
         tables="[model_params.lightgbm-lambdarank]\nlearning_rate = 1e-310\n",
         words=("c.toml", "[model_params.lightgbm-lambdarank] learning_rate", DBL_MIN)),
    Case("schedule-floor-subnormal",
         tables="[params]\nlearning_rate = 0.1\nlearning_rate_decay = 0.05\n"
                "learning_rate_min = 5e-324\n",
         words=("c.toml", "learning_rate_min", DBL_MIN)),
    Case("xgboost-schedule-floor-below-float32", top=XGB,
         tables="[params]\nlearning_rate = 0.1\nlearning_rate_decay = 0.05\n"
                "learning_rate_min = 1e-300\n",
         words=("c.toml", "learning_rate_min", "1.1754944e-38", "XGBoost")),
    Case("xgboost-learning-rate-float32-min-itself", top=XGB,
         tables="[params]\nlearning_rate = 1.1754943508222875e-38\n",
         words=("c.toml", "learning_rate", "1.1754944e-38")),
    Case("schedule-ends-in-a-subnormal-rate",
         tables="[params]\nn_trees = 3\nlearning_rate = 1e-300\n"
                "learning_rate_decay = 4.99999999995e-301\n",
         words=("c.toml", "learning_rate_min", DBL_MIN)),
    # ------------------------------------------------------------ raw values that are no numbers
    raw_case("lightgbm-raw-path-smooth-inf", "lightgbm", "path_smooth = inf", "finite", "inf"),
    raw_case("xgboost-raw-max-delta-step-nan",
             "xgboost", "max_delta_step = nan", "finite", "nan", top=XGB),
    raw_case("catboost-raw-random-strength-minus-inf",
             "catboost", "random_strength = -inf", "finite", top=CAT),
    raw_case("lightgbm-raw-inf-inside-an-array",
             "lightgbm", "cegb_penalty_feature_lazy = [0.0, inf]", "finite"),
    Case("model-params-raw-nan",
         tables="[model_params.lightgbm-lambdarank.lightgbm]\nmax_delta_step = nan\n",
         words=("c.toml", "[model_params.lightgbm-lambdarank] lightgbm max_delta_step",
                "finite")),
    raw_case("lightgbm-raw-text-with-nul",
             "lightgbm", 'monotone_constraints_method = "basic\\u0000"', "NUL"),
    raw_case("xgboost-raw-text-with-nul",
             "xgboost", 'monotone_constraints = "(0)\\u0000"', "NUL", top=XGB),
    Case("xgboost-validate-parameters-off-still-probed", top=XGB,
         tables="[params.xgboost]\nvalidate_parameters = false\netaa = 0.5\n",
         words=("c.toml", "etaa", "not used")),
    Case("raw-array-nested-5000-deep",
         tables="[params.lightgbm]\nmonotone_constraints = " + "[" * 5000 + "1" + "]" * 5000 + "\n",
         words=("c.toml:8", "nested more than 100 deep")),
    Case("lightgbm-raw-int-wraps-around", tables="[params.lightgbm]\nmin_data_in_bin = 4294967299\n",
         words=("c.toml", "min_data_in_bin = 4294967299", "read it as 3", "2147483647")),
    Case("lightgbm-raw-int-above-int64",
         tables="[params.lightgbm]\nmax_cat_threshold = 9223372036854775813\n",
         words=("c.toml", "max_cat_threshold = 9223372036854775813", "2147483647")),
    Case("xgboost-tree-method-approx", top=XGB,
         tables='[params.xgboost]\ntree_method = "approx"\n',
         words=("c.toml", "[params] xgboost", "hist")),
    # ------------------------------------------------------------ TOML types (held; guards)
    Case("learning-rate-a-datetime", tables="[params]\nlearning_rate = 1979-05-27T07:32:00Z\n",
         words=("c.toml", "[params] learning_rate", "datetime")),
    Case("seeds-a-local-date", top={"seeds": "1979-05-27"}, words=("c.toml", "seeds", "date")),
    Case("quick-an-inline-table", top={"quick": "{on = true}"},
         words=("c.toml", "quick", "true or false", "table")),
    Case("seeds-mixed-array", top={"seeds": '[1, "2"]'},
         words=("c.toml", "seeds", "item 2", "'2'")),
    Case("a-dotted-key-and-its-table", tables="params.n_trees = 5\n[params]\nn_trees = 6\n",
         words=("c.toml", "line 8", "twice")),
    Case("a-key-with-nul", tables='[params]\n"n_trees\\u0000" = 5\n',
         words=("c.toml", "[params]", "\\x00", "did you mean 'n_trees'")),
    Case("a-key-with-a-cyrillic-letter", tables='[params]\n"n_tr\u0435es" = 5\n',
         words=("c.toml", "[params]", "did you mean 'n_trees'")),
    Case("a-raw-table-inside-a-raw-table", tables="[params.lightgbm.sub]\nx = 1\n",
         words=("c.toml", "lightgbm", "'sub'")),
    Case("device-with-an-ordinal", top={"device": '"cuda:0"'},
         words=("c.toml", "device", "'cpu', 'cuda'", "'cuda:0'")),
    raw_case("lightgbm-raw-num-round", "lightgbm", "num_round = 5", "n_trees"),
    raw_case("xgboost-raw-learning-rate",
             "xgboost", "learning_rate = 0.3", "learning_rate", top=XGB),
    raw_case("catboost-raw-num-boost-round", "catboost", "num_boost_round = 5", "n_trees", top=CAT),
    raw_case("catboost-raw-task-type", "catboost", 'task_type = "GPU"', "device", top=CAT),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_config_round11(case: Case, tmp_path: Path) -> None:
    assert problem(case, tmp_path) is None


def test_the_shared_learning_rate_floor_is_the_smallest_normal_double() -> None:
    """The API says it as the file does: ``Params(learning_rate=5e-324)`` is refused with the
    range; the smallest normal float64 itself is accepted (a rate the arithmetic keeps)."""
    from bench.runners.params import Params

    assert own_error(lambda: Params(learning_rate=5e-324), "learning_rate", DBL_MIN) is None
    assert Params(learning_rate=float(DBL_MIN)).learning_rate == float(DBL_MIN)


def test_api_raw_inf_is_refused_naming_the_library_key() -> None:
    from bench.runners.params import Params

    assert own_error(lambda: Params().with_overrides(lightgbm={"path_smooth": float("inf")}),
                     "lightgbm path_smooth", "finite") is None


def test_api_raw_value_nested_2000_deep_is_refused_not_a_recursion_error() -> None:
    from bench.runners.params import Params

    deep: list[Any] = [1]
    for _ in range(2000):
        deep = [deep]
    assert own_error(lambda: Params().with_overrides(lightgbm={"monotone_constraints": deep}),
                     "lightgbm monotone_constraints", "nested more than 100 deep") is None


# ------------------------------------------------------------ a schedule without usable features
def _metrics(tmp: Path, tables: str) -> dict[str, str]:
    import csv

    from test_hostile_config import SPLITS, _text

    (tmp / "letor").mkdir(parents=True, exist_ok=True)
    for split, data in SPLITS.items():
        (tmp / "letor" / f"{split}.txt").write_bytes(data)
    (tmp / "c.toml").write_bytes(_text(Case("x", tables=tables)))
    res = cli(tmp, "run", "--config", "c.toml", "--no-progress", "--out", "res")
    assert res.status == 0, res.err[-600:]
    (path,) = (tmp / "res" / "runs").glob("*/metrics.csv")
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    return {f"{r.get('split')}:{r.get('metric')}": r.get("mean", r.get("value", "")) for r in rows}


def test_a_decaying_rate_on_data_without_a_usable_feature_trains_as_a_constant_rate(
        tmp_path: Path) -> None:
    """Five rows, no feature LightGBM can bin: every tree is one leaf whatever the rate.
    LightGBM's ``reset_parameter`` failed there (``Check failed: num_features() > 0``, a
    traceback); the schedule changes nothing a split could use, so the numbers are those of
    the constant rate."""
    plain = _metrics(tmp_path / "a", "")
    decayed = _metrics(tmp_path / "b", "[params]\nlearning_rate_decay = 0.01\n"
                                       "learning_rate_min = 0.01\n")
    assert plain
    assert plain == decayed


def test_xgboost_scores_overflowing_float32_name_the_model_and_the_rate(tmp_path: Path) -> None:
    """``learning_rate = 3.4e38`` is in XGBoost's range (a float32), and its float32 margins
    overflow to -inf after two trees; the run said only ``row 1: score -inf is not a finite
    number`` (no model, no split, no key)."""
    from hostile_kit import letor_folder

    letor_folder(tmp_path / "letor")
    (tmp_path / "c.toml").write_text(
        'dataset = "./letor"\nmodels = ["xgboost-ndcg"]\nseeds = [0]\nquick = true\n'
        'crosscheck = false\ncache = false\n[params]\nlearning_rate = 3.4028234663852886e38\n',
        encoding="utf-8")
    res = cli(tmp_path, "run", "--config", "c.toml", "--no-progress", "--out", "res")
    assert refused(res, "xgboost-ndcg", "XGBoost", "vali", "learning_rate = 3.4028234663852886e+38",
                   "not finite") is None, res.err[-500:]


# ------------------------------------------------------------ tune
def test_tune_grid_of_a_subnormal_rate_is_refused(tmp_path: Path) -> None:
    res = tune(tmp_path, "--model", "lightgbm", "--grid", "learning_rate=5e-324,0.1")
    assert refused(res, "learning_rate", DBL_MIN) is None, res.err[-400:]


def test_tune_space_from_a_subnormal_rate_is_refused(tmp_path: Path) -> None:
    (tmp_path / "space.toml").write_text(
        "[lightgbm]\nlearning_rate = {low = 5e-324, high = 0.1, log = true}\n", encoding="utf-8")
    res = tune(tmp_path, "--model", "lightgbm", "--space", "space.toml")
    assert refused(res, "space.toml", "learning_rate", DBL_MIN) is None, res.err[-400:]


QUICK_TEXT = "quick mode (--quick, or quick = true in the config file) caps"


def test_quick_cap_is_said_in_one_text_by_run_and_tune(tmp_path: Path) -> None:
    """Leftover 3: the quick-mode rule has one owner; ``run --quick --n-trees 21`` and
    ``tune --quick --grid early_stopping_rounds=...`` say it alike."""
    from hostile_kit import letor_folder

    letor_folder(tmp_path / "letor")
    run = cli(tmp_path, "run", "--dataset", "./letor", "--quick", "--n-trees", "21",
              "--models", "lightgbm", "--no-progress", "--out", "r")
    assert refused(run, "--n-trees 21", QUICK_TEXT, "n_trees at 20") is None, run.err
    grid = tune(tmp_path, "--model", "lightgbm", "--grid", "early_stopping_rounds=3,9")
    assert refused(grid, "early_stopping_rounds", QUICK_TEXT,
                   "early_stopping_rounds at 5") is None, grid.err


def test_run_config_unused_names_quick_caps_and_shared_params() -> None:
    """Leftover 4: what a config sets and the run does not use is :meth:`RunConfig.unused`'s,
    the quick caps and a shared parameter no library of the run has included."""
    from bench.benchmark.config import RunConfig
    from bench.runners.params import Params

    config = RunConfig(dataset="synthetic", models=("catboost-yetirank",), quick=True,
                       params=Params(n_trees=100, l1=0.5))
    said = " | ".join(config.unused())
    assert f"[params] n_trees = 100: {QUICK_TEXT} n_trees at 20; 20 is trained" in said, said
    assert "l1" in said, said


def test_no_runners_module_imports_a_private_name() -> None:
    """Leftover 5: ``params.py`` read ``param_ranges._SPEC``; the lookup is public now."""
    import re

    root = Path(__file__).resolve().parents[1] / "bench" / "runners"
    private = re.compile(r"^\s*from bench\.[\w.]+ import .*\b_[A-Za-z]\w*", re.M)
    found = [f"{p.name}: {m.group(0).strip()}" for p in sorted(root.glob("*.py"))
             for m in private.finditer(p.read_text(encoding="utf-8"))]
    assert not found, found


# ------------------------------------------------------------ rankers: the process state
NAME = "hostile11"
MODULE = Path(__file__).stem


class DisablesLogging(Base):
    def go(self) -> None:
        logging.disable(logging.CRITICAL)


class SetsRootLevel(Base):
    def go(self) -> None:
        logging.getLogger().setLevel(logging.DEBUG)


class AddsRootHandler(Base):
    def go(self) -> None:
        logging.getLogger().addHandler(logging.StreamHandler(sys.stderr))


class CallsBasicConfig(Base):
    def go(self) -> None:
        logging.basicConfig(level=logging.DEBUG, force=True)


class SilencesALibraryLogger(Base):
    def go(self) -> None:
        logging.getLogger("h11c.library").setLevel(logging.CRITICAL)
        logging.getLogger("h11c.library").propagate = False


class PutsEnv(Base):
    def go(self) -> None:
        os.putenv("H11C_PUTENV", "from-the-ranker")


class UnsetsEnv(Base):
    def go(self) -> None:
        os.unsetenv("H11C_KEPT")


class RedirectsFd2(Base):
    def go(self) -> None:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 2)
        os.close(null)


class ClosesFd2(Base):
    def go(self) -> None:
        os.close(2)


class StartsTracemalloc(Base):
    def go(self) -> None:
        import tracemalloc

        tracemalloc.start(25)


class SetsThreadTrace(Base):
    def go(self) -> None:
        threading.settrace(lambda *a: None)


class ShrinksThreadStacks(Base):
    def go(self) -> None:
        threading.stack_size(256 * 1024)


class SetsDlopenFlags(Base):
    def go(self) -> None:
        sys.setdlopenflags(os.RTLD_NOW | os.RTLD_GLOBAL)


class RaisesOwnBaseException(Base):
    class Stop(BaseException):
        pass

    def go(self) -> None:
        raise RaisesOwnBaseException.Stop("leaving")


class ExitsZero(Base):
    def go(self) -> None:
        raise SystemExit(0)


def _train(factory: str) -> tuple[Any, BaseException | None]:
    from bench.runners.custom import custom_model, train_custom

    try:
        return train_custom(custom_model(NAME, f"{MODULE}:{factory}"), toy_splits(), seed=0), None
    except Exception as exc:  # judged by the caller
        return None, exc


def _put_back(factory: str, read: Any, *named: str) -> str | None:
    before = read()
    result, exc = _train(factory)
    after = read()
    if after != before:
        return f"{factory}: {before!r} became {after!r}"
    if exc is not None:
        return f"refused: {exc}"
    said = result.notes.get("process", "")
    missing = [w for w in named if w not in said]
    return f"not named {missing}: {said!r}" if missing else None


def _logging_state() -> Any:
    root = logging.getLogger()
    lib = logging.getLogger("h11c.library")
    return (logging.root.manager.disable, root.level, list(root.handlers), lib.level,
            lib.propagate)


@pytest.mark.parametrize("factory", ["DisablesLogging", "SetsRootLevel", "AddsRootHandler",
                                     "CallsBasicConfig", "SilencesALibraryLogger"])
def test_a_ranker_s_logging_changes_are_put_back_and_named(factory: str) -> None:
    """Leftover 2: the logging configuration (``logging.disable``, the root logger's level and
    handlers, another logger's level) is the process's, put back after the call."""
    problem = _put_back(factory, _logging_state, "logging")
    logging.disable(logging.NOTSET)
    assert problem is None, problem


def _c_getenv(name: str) -> bytes | None:
    libc = ctypes.CDLL(None)
    libc.getenv.restype = ctypes.c_char_p
    return libc.getenv(name.encode())  # type: ignore[no-any-return]


def test_a_ranker_s_putenv_is_undone() -> None:
    """``os.putenv`` changes the C environment (what a child process and a C library read)
    without ``os.environ``: the comparison of ``os.environ`` missed it."""
    problem = _put_back("PutsEnv", lambda: _c_getenv("H11C_PUTENV"), "H11C_PUTENV")
    os.unsetenv("H11C_PUTENV")
    assert problem is None, problem


def test_a_ranker_s_unsetenv_is_undone() -> None:
    os.environ["H11C_KEPT"] = "1"
    try:
        problem = _put_back("UnsetsEnv", lambda: _c_getenv("H11C_KEPT"), "H11C_KEPT")
    finally:
        os.environ.pop("H11C_KEPT", None)
    assert problem is None, problem


def _fd2() -> Any:
    st = os.fstat(2)
    return st.st_dev, st.st_ino


@pytest.mark.parametrize("factory", ["RedirectsFd2", "ClosesFd2"])
def test_a_ranker_redirecting_or_closing_file_descriptor_2_is_put_back(factory: str) -> None:
    """Every later ``error:`` line and warning goes to file descriptor 2."""
    saved = os.dup(2)
    try:
        problem = _put_back(factory, _fd2, "standard error")
    finally:
        os.dup2(saved, 2)
        os.close(saved)
    assert problem is None, problem


def test_a_ranker_s_trace_function_for_new_threads_is_put_back() -> None:
    problem = _put_back("SetsThreadTrace", threading.gettrace, "threading.settrace")
    threading.settrace(None)  # type: ignore[arg-type]
    assert problem is None, problem


def test_a_ranker_s_memory_tracing_is_stopped() -> None:
    """``tracemalloc.start()`` left running slowed every later fit (its timing recorded)."""
    import tracemalloc

    problem = _put_back("StartsTracemalloc", tracemalloc.is_tracing, "tracemalloc")
    tracemalloc.stop()
    assert problem is None, problem


def test_a_ranker_s_thread_stack_size_is_put_back() -> None:
    problem = _put_back("ShrinksThreadStacks", lambda: threading.stack_size(), "stack size")
    threading.stack_size(0)
    assert problem is None, problem


def test_a_ranker_s_dlopen_flags_are_put_back() -> None:
    before = sys.getdlopenflags()
    problem = _put_back("SetsDlopenFlags", sys.getdlopenflags, "dlopen")
    sys.setdlopenflags(before)
    assert problem is None, problem


@pytest.mark.parametrize(("factory", "word"), [("RaisesOwnBaseException", "Stop"),
                                               ("ExitsZero", "SystemExit")])
def test_a_ranker_leaving_by_a_base_exception_is_its_named_failure(factory: str,
                                                                   word: str) -> None:
    _, exc = _train(factory)
    assert api_refused(exc, f"'{NAME}'", "fit", word) is None, exc


LOUD_RANKER = '''import logging, os
import numpy as np
class R:
    def __init__(self, seed=0):
        self.seed = seed
    def fit(self, X, y, group=None, **kw):
        logging.basicConfig(level=logging.DEBUG, force=True)
        logging.getLogger("lightgbm").setLevel(logging.DEBUG)
        os.putenv("H11C_LOUD", "1")
        return self
    def predict(self, X):
        return np.asarray(X[:, 0], dtype=float)
'''


def _lightgbm_metrics(tmp: Path, *models: str) -> Any:
    import pandas as pd
    from hostile_kit import letor_folder

    letor_folder(tmp / "letor")
    res = cli(tmp, "run", "--dataset", "./letor", "--quick", "--no-cache", "--no-progress",
              "--no-crosscheck", "--seeds", "0", "--models", ",".join(models), "--out", "res",
              *(("--config", "c.toml") if (tmp / "c.toml").exists() else ()))
    assert res.status == 0, res.err[-800:]
    (path,) = (tmp / "res").glob("runs/*/metrics.csv")
    m = pd.read_csv(path)
    return m[m.model == "lightgbm-lambdarank"].sort_values(["split", "metric"])[
        ["split", "metric", "value"]].reset_index(drop=True)


def test_a_ranker_s_logging_and_putenv_leave_the_next_model_and_the_process_as_without_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The oracle: LightGBM's numbers after the ranker equal a run without it, and the logging
    configuration and the C environment are as before the run."""
    import pandas as pd

    alone = _lightgbm_metrics(tmp_path / "alone", "lightgbm")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "loud_ranker_h11c.py").write_text(LOUD_RANKER, encoding="utf-8")
    (mine / "c.toml").write_text('[custom_models.mine]\nfactory = "loud_ranker_h11c:R"\n',
                                 encoding="utf-8")
    monkeypatch.syspath_prepend(str(mine))
    before = (_logging_state(), _c_getenv("H11C_LOUD"))
    try:
        beside = _lightgbm_metrics(mine, "mine", "lightgbm")
    finally:
        after = (_logging_state(), _c_getenv("H11C_LOUD"))
        logging.getLogger().setLevel(before[0][1])
        os.unsetenv("H11C_LOUD")
    assert after == before
    pd.testing.assert_frame_equal(beside, alone)
