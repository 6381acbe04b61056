"""Hostile user code and configs, round 23 (issue 19: one schema for a run's configuration; user
code isolated), played as the ML engineer who plugs in their own things: a TOML config, the
same values as options and from Python, and their own rankers (``--model module:factory``,
``custom_models=``).

What such an engineer tries, and what each case expects (the oracle in brackets):

- **configs:** a learning-rate floor above the rate itself (``learning_rate_min = 0.2`` beside
  ``learning_rate = 0.1``: every round of a decaying schedule trained at 0.2 while the run
  recorded 0.1) [refused, naming the file, both keys and what is expected]; an option given
  over the file (``--seeds 5`` over ``seeds = [0, 1]``, ``--n-trees 3`` over ``n_trees = 20``):
  recorded in the manifest but not said [one line on stderr naming the option, the key, the
  file's value and the one used]; the file's own ``dataset = "./letor"`` given again as
  ``--dataset ./letor`` [no override, said or recorded]; a factory reference as a model name
  (``--models mypkg.rankers:MyRanker``, ``models=[...]`` from Python) [refused, saying how to
  declare it]; a key one table off (``eta`` / ``n_jobs`` at the top, ``n_trees`` inside
  ``[params.lightgbm]``, a model's name in ``[params]``, ``threads=`` / ``out=`` / ``config=``
  given to ``bench.benchmark.run``) [refused, naming where it belongs, never LightGBM's "did you
  mean 'num_iterations'?"]; library spellings and owned keys in raw tables, table names
  in another case, TOML's hex integers, dates and mixed arrays, seed ranges [refused naming
  the key and what is expected, or read as TOML reads them] (guards);
- **rankers:** odd outputs of ``predict`` (``np.matrix``, complex, timedelta, structured,
  ``array.array``, ``memoryview``, a pyarrow ChunkedArray, float16 overflow, signed zeros)
  [the ``X[:, 0]`` oracle, or a clear error naming the model] (guards); ``sys.exit`` with text,
  ``GeneratorExit``, a factory returning a class, a slow ``fit`` with a ``timeout`` (guards);
  process state a ranker's ``fit`` changes that was left changed for every later model and
  command of the process: NumPy's error callback and buffer size, the ``decimal`` context,
  ``sys.argv``, ``sys.stdin``, the time zone after ``time.tzset()``, LightGBM's registered
  logger, XGBoost's and scikit-learn's global configuration [put back, and named in the
  model's notes].

Classes: traceback / silently wrong number / input destroyed / silent accept / unclear error,
in each test's comment.
"""

from __future__ import annotations

import argparse
import contextlib
import decimal
import io
import os
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import toy_splits

from bench.benchmark.config import RunConfig
from bench.errors import ConfigError

NAME = "mine23"
HEAD = ('dataset = "synthetic"\nmodels = ["lightgbm-lambdarank", "xgboost-ndcg", "catboost-yetirank"]\n')


# --------------------------------------------------------------------------------- helpers
def _load_error(tmp_path: Path, body: str) -> str:
    """The error ``RunConfig.load`` gives for HEAD + ``body`` in ``run.toml`` (folder cut off);
    '' when it loads."""
    path = tmp_path / "run.toml"
    path.write_text(HEAD + body, encoding="utf-8")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            RunConfig.load(path)
    except ConfigError as exc:
        return str(exc).replace(str(tmp_path), "<tmp>")
    return ""


def _refused(msg: str, *words: str) -> None:
    assert msg, f"accepted; expected an error naming {words}"
    assert "<tmp>/run.toml" in msg, msg
    missing = [w for w in words if w not in msg]
    assert not missing, f"{msg!r} lacks {missing}"
    assert "Traceback" not in msg


def _model(factory: Any, **spec: Any) -> Any:
    from bench.runners.custom import custom_model

    ref = factory if not isinstance(factory, str) or ":" in factory \
        else f"round23c_rankers:{factory}"
    return custom_model(NAME, {"factory": ref, **spec})


def _train(factory: Any, **spec: Any) -> Any:
    from bench.runners.custom import train_custom

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return train_custom(_model(factory, **spec), toy_splits(), seed=0)


def _failure(factory: str, *words: str, **spec: Any) -> str:
    from bench.runners.custom import CustomModelFailure

    with pytest.raises(CustomModelFailure) as caught:
        _train(factory, **spec)
    text = str(caught.value)
    for word in (f"'{NAME}'", f"round23c_rankers:{factory}", *words):
        assert word in text, (word, text)
    assert "Traceback" not in text
    return text


def _first_column(split: str) -> Any:
    return np.asarray(getattr(toy_splits(), split).X[:, 0], dtype=np.float64)


# ------------------------------------------------------------- configs: the schedule's floor
def test_a_learning_rate_floor_above_a_decaying_rate_is_refused_naming_both(
        tmp_path: Path) -> None:
    # silently wrong number: with decay > 0 every round trained at max(0.2, 0.1 - 0.01 i) = 0.2
    # (the floor), while config.toml and the leaderboard said learning_rate = 0.1
    msg = _load_error(tmp_path, "[model_params.lightgbm-lambdarank]\nlearning_rate = 0.1\n"
                                "learning_rate_decay = 0.01\nlearning_rate_min = 0.2\n")
    _refused(msg, "[model_params.lightgbm-lambdarank]", "learning_rate_min", "learning_rate",
             "0.2", "0.1")


def test_a_learning_rate_floor_above_a_constant_rate_is_refused(tmp_path: Path) -> None:
    # silent accept: a floor above the rate itself, with no decay, is a floor no round uses
    # (the schedule says 0.2 for round 0, LightGBM trains 0.1): one of the two is a typo
    msg = _load_error(tmp_path, "[model_params.xgboost-ndcg]\nlearning_rate = 0.05\n"
                                "learning_rate_min = 0.3\n")
    _refused(msg, "[model_params.xgboost-ndcg]", "learning_rate_min", "0.3", "0.05")


def test_a_floor_equal_to_the_rate_is_accepted(tmp_path: Path) -> None:
    # silent accept (guard): max(0.1, 0.1 - 0.01 i) = 0.1 is a constant rate, said as such
    assert _load_error(tmp_path, "[model_params.lightgbm-lambdarank]\nlearning_rate = 0.1\n"
                                 "learning_rate_decay = 0.01\nlearning_rate_min = 0.1\n") == ""


def test_python_and_the_file_refuse_the_same_floor() -> None:
    # unclear error: the Python door goes through the same schema
    with pytest.raises(ConfigError, match="learning_rate_min"):
        RunConfig.from_dict({"models": ["lightgbm"], "params": {
            "learning_rate": 0.1, "learning_rate_decay": 0.01, "learning_rate_min": 0.2}})


# ------------------------------------------------------- configs: an option over the file
def _options_over(tmp_path: Path, file: str, *argv: str) -> tuple[RunConfig, str]:
    from bench.commands.run_options import add_config_arguments, config_from_args

    (tmp_path / "c.toml").write_text(file, encoding="utf-8")
    p = argparse.ArgumentParser()
    add_config_arguments(p)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = config_from_args(p.parse_args(["--config", str(tmp_path / "c.toml"), *argv]))
    return config, err.getvalue()


def test_an_option_over_the_files_seeds_is_said_on_stderr(tmp_path: Path) -> None:
    # silent accept: --seeds 5 over seeds = [0, 1] trained seed 5 only, recorded in the
    # manifest but said nowhere the user looks
    config, err = _options_over(tmp_path, 'models = ["random"]\nseeds = [0, 1]\n',
                                "--seeds", "5")
    assert config.seeds == (5,)
    line = next((x for x in err.splitlines() if "--seeds" in x), "")
    for word in ("seeds", "[0, 1]", "[5]", "c.toml"):
        assert word in line, (word, err)


def test_an_option_over_the_files_n_trees_is_said_on_stderr(tmp_path: Path) -> None:
    # silent accept: --n-trees 3 over [params] n_trees = 20
    config, err = _options_over(tmp_path, 'models = ["lightgbm"]\n[params]\nn_trees = 20\n',
                                "--n-trees", "3")
    assert config.params.n_trees == 3
    line = next((x for x in err.splitlines() if "--n-trees" in x), "")
    for word in ("n_trees", "20", "3"):
        assert word in line, (word, err)


def test_an_option_equal_to_the_file_says_nothing(tmp_path: Path) -> None:
    # silent accept (guard): the note must not fire when nothing was overridden
    _, err = _options_over(tmp_path, 'models = ["random"]\nseeds = [0, 1]\n', "--seeds", "0,1")
    assert "seeds" not in err, err


def test_an_option_over_a_default_the_file_leaves_out_says_nothing(tmp_path: Path) -> None:
    # unclear error (guard): "--seeds overrides seeds = [0, 1, 2] of c.toml" for a file without
    # seeds would blame the file for a default
    config, err = _options_over(tmp_path, 'models = ["random"]\n', "--seeds", "5")
    assert config.seeds == (5,)
    assert "overrides" not in err, err


def test_the_files_dataset_given_again_as_an_option_is_no_override(tmp_path: Path) -> None:
    # silent accept / unclear: dataset = "./letor" beside --dataset ./letor (a CI template
    # passing both) was recorded in the manifest as an option over the file ("./letor" ->
    # "letor"), one folder under two spellings
    from hostile_kit import chdir, letor_folder

    letor_folder(tmp_path / "letor")
    with chdir(tmp_path):
        config, err = _options_over(tmp_path, 'dataset = "./letor"\nmodels = ["random"]\n',
                                    "--dataset", "./letor")
    assert config.over_file is not None
    assert "dataset" not in config.over_file["options_over_file"]
    assert "overrides" not in err, err


def test_a_factory_reference_given_to_models_says_how_to_declare_it(tmp_path: Path) -> None:
    # unclear error: --models mypkg.rankers:MyRanker was "unknown model", as a misspelt
    # built-in; the engineer's own ranker is declared in [custom_models.<name>]
    from hostile_kit import cli

    res = cli(tmp_path, "run", "--models", "lightgbm,round23c_rankers:Base", "--quick")
    assert res.status == 2, res.err
    assert not res.traceback
    for word in ("round23c_rankers:Base", "factory reference", "[custom_models.", "models ="):
        assert word in res.err, (word, res.err)


def test_python_models_with_a_factory_reference_say_custom_models() -> None:
    # unclear error: the same from bench.benchmark.run, before any data is read
    import bench.benchmark

    with pytest.raises(ConfigError) as caught:
        bench.benchmark.run("synthetic", models=["round23c_rankers:Base"], quick=True)
    assert "custom_models=" in str(caught.value)


# ------------------------------------------------- configs: raw tables and TOML's own values
@pytest.mark.parametrize(("body", "words"), [
    ("[params.lightgbm]\nnum_boost_round = 5\n", ("num_boost_round", "n_trees")),
    ("[params.catboost]\nod_wait = 4\n", ("od_wait", "early_stopping_rounds")),
    ("[params.lightgbm]\napplication = \"regression\"\n", ("application", "model name")),
    ("[params.lightgbm]\nndcg_eval_at = [3]\n", ("ndcg_eval_at", "eval_at")),
    ("[params.catboost]\ndevices = \"0\"\n", ("devices", "--device")),
    ("[params.xgboost]\ngpu_id = 0\n", ("gpu_id", "device")),
    ("[model_params.xgboost-ndcg.lightgbm]\nnum_leaves = 5\n",
     ("[model_params.xgboost-ndcg] lightgbm", "[params.lightgbm]")),
    ("[model_params.LightGBM-LambdaRank]\nn_trees = 5\n",
     ("LightGBM-LambdaRank", "did you mean 'lightgbm-lambdarank'")),
])
def test_a_library_key_ltrbench_owns_or_misplaces_is_refused_naming_it(
        tmp_path: Path, body: str, words: tuple[str, ...]) -> None:
    # silently wrong number (guards): each would train one value and record another
    _refused(_load_error(tmp_path, body), *words)


@pytest.mark.parametrize(("body", "words"), [
    ('seeds = "0-2147483647"\n', ("seeds", "2147483648 seeds", "at most")),
    ('seeds = "4-0"\n', ("seeds", "reversed")),
    ("eval_at = [1, 2.0]\n", ("eval_at", "item 2", "2.0")),
    ("[[params]]\nn_trees = 3\n", ("params", "table", "array")),
    ("[custom_models.mine]\nfactory = \"round23c_rankers:Base\"\ntimeout_s = 5\n",
     ("timeout_s", "did you mean 'timeout'")),
])
def test_a_wrong_shape_is_refused_naming_the_key_and_what_was_expected(
        tmp_path: Path, body: str, words: tuple[str, ...]) -> None:
    # traceback / silent accept (guards): a 2^31-seed range built in memory, 2.0 read as 2
    _refused(_load_error(tmp_path, body), *words)


@pytest.mark.parametrize(("body", "words", "never"), [
    # unclear error: "unknown config key eta; valid: als, cache, ..." named no closest key
    ("eta = 0.3\n", ("eta", "learning_rate", "[params]"), ()),
    ("early_stopping_round = 5\n", ("early_stopping_rounds", "[params]"),
     ("early_stopping_split",)),
    ("n_jobs = 2\n", ("n_jobs", "n_threads"), ()),
    # unclear error: LightGBM's "did you mean 'num_iterations'?" sent the user to a name the
    # config refuses beside n_trees
    ("[params.lightgbm]\nn_trees = 5\n", ("[params] lightgbm n_trees", "ltrbench's own",
                                          "[params]"), ("num_iterations",)),
    ("[model_params.xgboost-ndcg.xgboost]\ncolsample = 0.5\n", ("colsample", "ltrbench's own"),
     ()),
])
def test_a_parameter_one_table_off_names_the_table_it_belongs_in(
        tmp_path: Path, body: str, words: tuple[str, ...], never: tuple[str, ...]) -> None:
    msg = _load_error(tmp_path, body)
    _refused(msg, *words)
    for word in never:
        assert word not in msg, (word, msg)


@pytest.mark.parametrize(("options", "words"), [
    # unclear error: each was "unknown config key ...; valid: ..." without a closest name
    ({"threads": 2}, ("threads", "--threads", "n_threads")),
    ({"config": "run.toml"}, ("config", "--config", "RunConfig.load")),
    ({"out": "results"}, ("out", "out_dir")),
    ({"params": {"lightgbm-lambdarank": {"n_trees": 5}}},
     ("lightgbm-lambdarank", "model_params")),
])
def test_a_python_argument_one_door_off_names_the_door(options: dict[str, Any],
                                                       words: tuple[str, ...]) -> None:
    import bench.benchmark

    with pytest.raises(ConfigError) as caught:
        bench.benchmark.run("synthetic", models=["lightgbm"], quick=True, **options)
    for word in words:
        assert word in str(caught.value), (word, str(caught.value))


def test_a_toml_hex_integer_is_the_number_toml_reads(tmp_path: Path) -> None:
    # silently wrong number (guard): TOML 1.0 spells 16 as 0x10; nothing else is read into it
    path = tmp_path / "run.toml"
    path.write_text(HEAD + "[params]\nn_trees = 0x10\n", encoding="utf-8")
    assert RunConfig.load(path).params.n_trees == 16


@pytest.mark.parametrize("timeout", [0, -1, float("nan"), float("inf"), True, "1"])
def test_a_custom_timeout_out_of_range_or_of_another_type_is_refused(timeout: Any) -> None:
    # silent accept (guards): 0 or nan would stop every fit at once, True read as 1 s
    with pytest.raises(ConfigError, match=r"\[custom_models\.mine23\] timeout"):
        _model("Base", timeout=timeout)


# --------------------------------------------------------- rankers: what predict returns
X20 = np.random.default_rng(23).normal(size=(20, 4)).astype(np.float32)
WHERE = f"custom model '{NAME}'"


def _scores(factory: str) -> Any:
    """``predict``'s output of the ranker ``factory`` for ``X20``, through ltrbench's check of
    a ranker's scores (what :func:`bench.runners.custom.train_custom` calls on it)."""
    import round23c_rankers as rankers

    from bench.runners.custom_checks import checked_scores

    return checked_scores(getattr(rankers, factory)().predict(X20), 20, WHERE)


@pytest.mark.parametrize(("factory", "words"), [
    ("MatrixRow", ("(1, 20)", "ravel")),
    ("ComplexScores", ("complex",)),
    ("Durations", ("timedelta",)),
    ("Structured", ("void",)),
    ("HalfOverflow", ("inf", "finite")),
])
def test_a_predict_output_that_is_no_score_per_row_is_refused_naming_the_model(
        factory: str, words: tuple[str, ...]) -> None:
    # silently wrong number (guards): a complex part dropped, a row read as a column ...
    from bench.runners.custom import CustomModelFailure

    with pytest.raises(CustomModelFailure) as caught:
        _scores(factory)
    for word in (WHERE, *words):
        assert word in str(caught.value), (word, str(caught.value))


@pytest.mark.parametrize("factory", ["StdlibArray", "View", "Chunked"])
def test_a_plain_sequence_of_floats_is_read_as_its_values(factory: str) -> None:
    # silently wrong number (guard): array.array, a memoryview and a pyarrow ChunkedArray of
    # float64 are the scores they hold, row for row
    assert np.array_equal(_scores(factory), X20[:, 0].astype(np.float64))


def test_signed_zeros_are_one_tied_score_and_warned() -> None:
    # silently wrong number (guard): -0.0 == 0.0, so every query is tied; said, not ranked
    from bench.runners.custom_checks import tied_scores

    said = tied_scores(_scores("SignedZeros"), np.array([0, 5, 10, 15, 20]), "test", WHERE)
    assert said is not None
    assert "same score" in said
    assert WHERE in said


def test_sys_exit_with_text_in_predict_is_a_failure_naming_the_model() -> None:
    # traceback / silent accept (guard): SystemExit('...') would end the run with status 1
    _failure("ExitsWithText", "sys.exit", "model not ready")


def test_a_factory_returning_a_library_class_names_it() -> None:
    # unclear error (guard): a class where an instance was meant
    from bench.runners.custom import check_custom_model

    with pytest.raises(ConfigError, match="LGBMRanker"):
        check_custom_model(_model("round23c_rankers:returns_lgbm_class"), 0)


def test_a_fit_past_its_timeout_is_stopped_naming_the_timeout() -> None:
    # no clear way to stop (guard): timeout = 0.2 stops a fit that sleeps 3 s
    start = time.perf_counter()
    _failure("Slow", "time limit", "timeout", timeout=0.2)
    assert time.perf_counter() - start < 2.5


# ------------------------------------- rankers: process state left for every later model
def _zone() -> tuple[Any, ...]:
    return (time.timezone, time.altzone, time.tzname)


def _state() -> dict[str, Any]:
    """What the ranker ``ChangesProcess`` changes, as this process had it."""
    import lightgbm
    import sklearn
    import xgboost

    basic = lightgbm.basic
    ctx = decimal.getcontext()
    return {"errcall": np.geterrcall(), "bufsize": np.getbufsize(),
            "decimal": (ctx.prec, ctx.rounding), "argv": list(sys.argv), "stdin": sys.stdin,
            "zone": _zone(), "tz": os.environ.get("TZ"),
            "lgb_logger": (basic._LOGGER, basic._INFO_METHOD_NAME, basic._WARNING_METHOD_NAME),
            "xgb_config": xgboost.get_config(), "sk_config": sklearn.get_config()}


def _put_back(before: dict[str, Any], ctx: decimal.Context) -> None:
    """Leave no trace of the ranker in the test process when ltrbench does not."""
    import lightgbm
    import sklearn
    import xgboost

    np.seterrcall(before["errcall"])
    np.setbufsize(before["bufsize"])
    decimal.setcontext(ctx)
    sys.argv[:] = before["argv"]
    sys.stdin = before["stdin"]
    if before["tz"] is None:
        os.environ.pop("TZ", None)
    else:
        os.environ["TZ"] = before["tz"]
    time.tzset()
    basic = lightgbm.basic
    basic._LOGGER, basic._INFO_METHOD_NAME, basic._WARNING_METHOD_NAME = before["lgb_logger"]
    xgboost.set_config(**before["xgb_config"])
    sklearn.set_config(**before["sk_config"])


@pytest.fixture(scope="module")
def changed() -> Iterator[tuple[dict[str, Any], dict[str, Any], str]]:
    """(state before, state after, the model's process note) of one ranker whose ``fit``
    changes each of them (one fit: ltrbench's guards around it take most of a second)."""
    pytest.importorskip("lightgbm")
    pytest.importorskip("xgboost")
    pytest.importorskip("sklearn")
    before, ctx = _state(), decimal.getcontext().copy()
    try:
        result = _train("ChangesProcess")
        yield before, _state(), str(result.notes.get("process", ""))
    finally:
        _put_back(before, ctx)


@pytest.mark.parametrize(("key", "said"), [
    # silently wrong number: np.seterrcall's function stayed for every later
    # np.seterr(..., 'call') of the process
    ("errcall", "seterrcall"),
    # silent accept: np.setbufsize(16) stayed for every later ufunc of the process
    ("bufsize", "setbufsize"),
    # silently wrong number: precision 3, rounding down, stayed for every later Decimal sum
    # of the process (a notebook's own arithmetic after bench.benchmark.run)
    ("decimal", "decimal"),
    # silent accept: a training script's argv left in the process running ltrbench
    ("argv", "sys.argv"),
    ("stdin", "sys.stdin"),
    # silently wrong number: TZ was put back but time.tzset() was not called again, so every
    # later local time of the process (a manifest's, a log's) was 5 h 30 min off
    ("zone", "time zone"),
    # silent accept: every later LightGBM model of the run logged through the ranker's logger
    ("lgb_logger", "LightGBM"),
    # silent accept: xgboost.set_config(verbosity=3) made every later XGBoost model print
    # its monitor's timings
    ("xgb_config", "xgboost.set_config"),
    # silently wrong number: assume_finite=True turned off every later scikit-learn ranker's
    # NaN checks, transform_output="pandas" changed what its transformers hand on
    ("sk_config", "sklearn.set_config"),
])
def test_process_state_a_ranker_changes_is_put_back_and_named(
        changed: tuple[dict[str, Any], dict[str, Any], str], key: str, said: str) -> None:
    before, after, notes = changed
    assert after[key] == before[key] if key != "stdin" else after[key] is before[key], key
    assert said in notes, (said, notes)
