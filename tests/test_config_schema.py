"""One schema for a run's configuration: the same checks and messages for a TOML file, the Python
API (``RunConfig``, ``RunConfig.from_dict``, ``bench.benchmark.run``) and the command line.

Golden values: the expected ranges are those the libraries document (LightGBM
``include/LightGBM/config.h`` ``// check =`` lines, XGBoost's float32 parameters, CatBoost's
``border_count <= 65535``) and the hashes of the committed runs are those their manifests
recorded when they were made.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from bench import cli
from bench.benchmark.config import CONFIG_DIR, RunConfig, parse_seeds
from bench.benchmark.config_schema import MAX_SEEDS, cli_int
from bench.data.toml import INT32_MAX, Spec, read_toml, show
from bench.errors import ConfigError
from bench.runners.params import (
    PARAM_SPECS,
    Params,
    check_for_library,
    check_rows,
    check_schedule,
    param_spec,
)

REPO = Path(__file__).resolve().parents[1]


# --- the typed value ----------------------------------------------------------------------------


@pytest.mark.parametrize("value", [True, False, 1.5, "1", None, [1]])
def test_an_integer_is_an_int_and_never_a_boolean(value: Any) -> None:
    assert not Spec("k", int, 0, 10).accepts(value)


def test_an_integer_is_accepted_where_a_number_is_expected_and_held_as_a_float() -> None:
    # one canonical form per typed value (round 13): 1 and 1.0 are one config, one hash
    spec = Spec("k", float, 0, 1)
    assert spec.check(1, "k") == 1
    assert type(spec.check(1, "k")) is float


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan])
def test_a_number_must_be_finite(value: float) -> None:
    with pytest.raises(ConfigError, match=r"^k: expected a finite number"):
        Spec("k", float).check(value, "k")


@pytest.mark.parametrize("value", ["false", "true", 0, 1, "no"])
def test_a_boolean_is_true_or_false_only(value: Any) -> None:
    with pytest.raises(ConfigError, match=r"^quick: expected true or false; got"):
        Spec("quick", bool).check(value, "quick")


def test_the_message_shows_the_value_with_its_type() -> None:
    assert show("100") == "'100' (a string)"
    assert show(True) == "true (a boolean)"
    assert show(1.5) == "1.5 (a float)"
    with pytest.raises(ConfigError) as exc:
        param_spec("n_trees").check("100", "[params] n_trees")
    assert str(exc.value) == ("[params] n_trees: expected an integer from 1 to 2147483647; "
                              "got '100' (a string)")


def test_an_int_without_bounds_is_a_c_int() -> None:
    spec = Spec("k", int)
    assert spec.accepts(INT32_MAX)
    assert not spec.accepts(INT32_MAX + 1)
    assert spec.accepts(-(2**31))
    assert not spec.accepts(-(2**31) - 1)


# --- the library ranges -------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "ok", "bad"), [
    # LightGBM config.h: num_leaves > 1 and <= 131072
    ("num_leaves", [2, 131072], [1, 131073]),
    # LightGBM: learning_rate > 0.0; XGBoost eta is a float32
    ("learning_rate", [1e-30, 3.0e38], [0.0, -0.1, 3.5e38]),
    # LightGBM: 0 < bagging_fraction <= 1, and int(fraction * rows) >= 1 for some data set
    ("subsample", [2.0**-31, 1.0], [0.0, 1e-300, 1.0000001]),
    # LightGBM: 0 < feature_fraction <= 1; XGBoost refuses a subnormal float32 (1e-40)
    ("colsample", [1e-3, 1.0], [0.0, 1e-40]),
    ("min_data_in_leaf", [0, INT32_MAX], [-1, INT32_MAX + 1]),
    ("max_bin", [2, 255], [1, 0]),
    ("l2", [0, 0.0, 1e30], [-1e-9]),
    ("seed", [0, INT32_MAX], [-1, INT32_MAX + 1]),
])
def test_library_ranges(name: str, ok: list[Any], bad: list[Any]) -> None:
    spec = param_spec(name)
    assert all(spec.accepts(v) for v in ok), ok
    assert not any(spec.accepts(v) for v in bad), bad


def test_every_params_field_but_the_raw_tables_has_one_record() -> None:
    from dataclasses import fields

    names = [s.name for s in PARAM_SPECS]
    assert len(names) == len(set(names))
    assert set(names) == {f.name for f in fields(Params)} - {"raw"}


def test_the_default_parameters_are_inside_every_range() -> None:
    for library, objective in (("lightgbm", "lambdarank"), ("xgboost", "ndcg"),
                               ("catboost", "yetirank")):
        check_for_library(Params(), library, objective)


def test_catboost_border_count_is_at_most_65535() -> None:
    check_for_library(Params(max_bin=65536), "catboost", "yetirank")  # border_count 65535
    check_for_library(Params(max_bin=70000), "lightgbm", "lambdarank")  # LightGBM: > 1 only
    with pytest.raises(ConfigError, match=r"max_bin: expected an integer from 2 to 65536"):
        check_for_library(Params(max_bin=70000), "catboost", "yetirank")


def test_a_decaying_rate_must_stay_above_zero_for_every_round() -> None:
    # checked for the rounds that train (quick mode caps n_trees), by check_for_library and
    # the trainers' door, not when a Params value is made
    check_schedule(Params(learning_rate=0.1, learning_rate_decay=0.01, n_trees=10))  # round 9: 0.01 > 0
    with pytest.raises(ConfigError, match=r"learning_rate_min: expected a number > 0"):
        check_schedule(Params(learning_rate=0.1, learning_rate_decay=0.01, n_trees=11))  # round 10: 0.0
    with pytest.raises(ConfigError, match=r"learning_rate_min: expected a number > 0"):
        check_for_library(Params(learning_rate=0.1, learning_rate_decay=0.01, n_trees=11),
                          "lightgbm", "lambdarank")
    check_schedule(Params(learning_rate=0.1, learning_rate_decay=0.01, n_trees=500,
                          learning_rate_min=0.001))


def test_a_row_sample_must_hold_a_row_of_the_data() -> None:
    check_rows(Params(subsample=0.2), "lightgbm", 5)  # int(0.2 * 5) = 1 row
    check_rows(Params(subsample=0.1), "xgboost", 5)  # XGBoost samples a tree with no row
    with pytest.raises(ConfigError, match=r"subsample = 0.1: LightGBM would sample no row of "
                                          r"the 5 rows"):
        check_rows(Params(subsample=0.1), "lightgbm", 5)


def test_params_built_in_python_are_checked_like_a_file() -> None:
    with pytest.raises(ConfigError, match=r"^n_trees: expected an integer"):
        Params(n_trees=1.5)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"^lambdarank_norm: expected true or false"):
        Params(lambdarank_norm=1)  # type: ignore[arg-type]


# --- the run config in Python -------------------------------------------------------------------


@pytest.mark.parametrize(("doc", "words"), [
    ({"quick": "false"}, "quick: expected true or false; got 'false' (a string)"),
    ({"crosscheck": "no"}, "crosscheck: expected true or false; got 'no'"),
    ({"seeds": [1.5]}, "seeds: item 1: expected an integer from 0 to 2147483647; got 1.5"),
    ({"seeds": [True]}, "seeds: item 1: expected an integer from 0 to 2147483647; got true"),
    ({"seeds": "99999999999999999999"}, "seeds: expected an integer from 0 to 2147483647"),
    ({"eval_at": [1.5]}, "eval_at: item 1: expected an integer from 1 to 2147483647; got 1.5"),
    ({"params": {"n_trees": 1.5}}, "[params] n_trees: expected an integer"),
    ({"params": {"n_trees": True}}, "[params] n_trees: expected an integer"),
    ({"params": {"n_trees": "100"}}, "[params] n_trees: expected an integer"),
    ({"params": {"min_data_in_leaf": 1e12}}, "[params] min_data_in_leaf: expected an integer"),
    ({"params": {"learning_rate": math.inf}}, "[params] learning_rate: expected a finite number"),
    ({"model_params": {"lightgbm-lambdarank": {"n_trees": 1.5}}},
     "[model_params.lightgbm-lambdarank] n_trees: expected an integer"),
    ({"data_dir": 5}, "data_dir: expected a non-empty string; got 5 (an integer)"),
    ({"seed": 0}, "unknown config key seed; did you mean 'seeds'?"),
    ({"params": {"num_leaf": 7}}, "unknown parameter [params] num_leaf; did you mean 'num_leaves'?"),
    ({"als": {"factor": 8}}, "unknown key [als] factor; did you mean 'factors'?"),
])
def test_from_dict_refuses_with_the_key_and_what_was_expected(doc: dict[str, Any], words: str) -> None:
    with pytest.raises(ConfigError) as exc:
        RunConfig.from_dict(doc)
    assert words in str(exc.value)


@pytest.mark.parametrize("kwargs", [{"quick": "false"}, {"seeds": (1.5,)}, {"seeds": (True,)},
                                    {"eval_at": (1.5,)}, {"workers": True}, {"data_dir": 5},
                                    {"timing_repeats": 1.5}, {"seeds": ()}])
def test_the_dataclass_refuses_what_a_file_refuses(kwargs: dict[str, Any]) -> None:
    key = next(iter(kwargs))
    with pytest.raises(ConfigError, match=rf"^{key}"):
        RunConfig(**kwargs)


def test_the_python_api_refuses_before_any_data(monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.benchmark import api, pipeline

    def no_run(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the benchmark must not start")

    monkeypatch.setattr(pipeline, "run_benchmark", no_run)
    for kwargs in ({"quick": "false"}, {"seeds": [1.5]}, {"params": {"subsample": 1e-300}},
                   {"eval_at": [1.5]}):
        with pytest.raises(ConfigError):
            api.run("synthetic", **kwargs)


def test_seeds_cap_a_range_before_building_it() -> None:
    with pytest.raises(ConfigError, match=f"expected at most {MAX_SEEDS}"):
        parse_seeds("0-999999999")
    assert parse_seeds("3-5") == (3, 4, 5)
    assert parse_seeds(" 1, 2 ") == (1, 2)


def test_cli_integers_are_checked_by_the_same_spec() -> None:
    assert cli_int("20", param_spec("n_trees"), "--n-trees") == 20
    assert cli_int(None, param_spec("n_trees"), "--n-trees") is None
    for text in ("1.5", "true", "1e3", "", "0x10", "\u0661"):
        with pytest.raises(ConfigError, match=r"^--n-trees: expected an integer from 1 to"):
            cli_int(text, param_spec("n_trees"), "--n-trees")


@pytest.mark.parametrize(("args", "words"), [
    (["--seeds", "1.5"], "--seeds: expected"),
    (["--seeds", "-1"], "--seeds: expected"),
    (["--n-trees", "1.5"], "--n-trees: expected an integer from 1 to 2147483647; got '1.5'"),
    (["--n-trees", "0"], "--n-trees: expected an integer from 1"),
    (["--threads", "-1"], "--threads: expected an integer from 0"),
    (["--workers", "0"], "--workers: expected an integer from 1 to 1024"),
    (["--timing-repeats", "1.5"], "--timing-repeats: expected an integer"),
])
def test_run_options_map_into_the_schema(args: list[str], words: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["run", "--dataset", "./nosuch", "--no-progress", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("error: "), err
    assert words in err[0], err


# --- files ----------------------------------------------------------------------------------------


def test_a_utf8_byte_order_mark_is_read_and_utf16_is_named(tmp_path: Path) -> None:
    text = 'dataset = "synthetic"\nseeds = [4]\n'
    (tmp_path / "bom.toml").write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert RunConfig.load(tmp_path / "bom.toml").seeds == (4,)
    (tmp_path / "u16.toml").write_bytes(text.encode("utf-16"))
    with pytest.raises(ConfigError, match=r"u16.toml:1: the file is UTF-16 \(little-endian\)"):
        RunConfig.load(tmp_path / "u16.toml")


def test_bytes_that_are_not_utf8_are_named_by_line_and_column(tmp_path: Path) -> None:
    (tmp_path / "c.toml").write_bytes(b'seeds = [1]\nname = "caf\xe9"\n')
    with pytest.raises(ConfigError, match=r"c.toml:2: not UTF-8 text \(byte 0xe9 at column 12\)"):
        read_toml(tmp_path / "c.toml")


def test_a_folder_is_not_a_config_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="is a directory: expected a TOML file"):
        read_toml(tmp_path)


def test_committed_runs_and_shipped_configs_keep_their_hashes() -> None:
    for config in sorted((REPO / "results" / "runs").glob("*/config.toml")):
        recorded = json.loads((config.parent / "manifest.json").read_text())["config_hash"]
        assert RunConfig.load(config).config_hash() == recorded, config
    for name in ("synthetic", "ohsumed", "ml_latest_small", "lightgbm_lambdarank"):
        cfg = RunConfig.load(CONFIG_DIR / f"{name}.toml")
        assert cfg.to_toml() == RunConfig.from_dict(read_toml(CONFIG_DIR / f"{name}.toml")).to_toml()


def test_an_integer_for_a_float_parameter_hashes_as_the_float(tmp_path: Path) -> None:
    # ``learning_rate = 1`` is the number 1.0 (an integer is accepted for a float, never a
    # string or a boolean): held, recorded and hashed as ``learning_rate = 1.0`` (round 13)
    cfg = RunConfig.from_dict({"params": {"learning_rate": 1, "min_child_weight": 100}})
    assert cfg.params.learning_rate == 1
    assert type(cfg.params.learning_rate) is float
    assert cfg.config_hash() == RunConfig.from_dict(
        {"params": {"learning_rate": 1.0, "min_child_weight": 100.0}}).config_hash()
    from bench.data.toml import loads

    assert RunConfig.from_dict(loads(cfg.to_toml())).config_hash() == cfg.config_hash()
