"""Hostile inputs at the library seam (names of libraries, their raw tables, their providers): each
is a clear ConfigError naming what is wrong, never a traceback or a silently different value.
Written against public APIs that predate bench.runners.libraries, so the same cases ran before it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench.crosscheck.providers import builtin_metric
from bench.errors import ConfigError
from bench.runners import device as dev
from bench.runners.params import Params, check_for_library, check_rows
from bench.runners.registry import check_custom_name, expand_models, get_model

ROOT = Path(__file__).resolve().parents[1]


def test_a_cuda_check_of_an_unknown_library_is_a_config_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dev, "visible_gpus", lambda: ["NVIDIA Fake"])
    with pytest.raises(ConfigError, match=r"unknown library 'lightgmb'.*lightgbm"):
        dev.check_device("cuda", {"lightgmb"})


def test_a_model_name_that_is_not_a_string_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="unknown model"):
        get_model(["lightgbm-lambdarank"])  # type: ignore[arg-type]


def test_a_metric_name_that_is_not_a_string_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="LightGBM metric 5 not supported here"):
        builtin_metric("lightgbm", [0, 1], [0.1, 0.2], [0, 2], 5)  # type: ignore[arg-type]


def test_an_unknown_library_has_no_provider() -> None:
    with pytest.raises(ConfigError, match="unknown library 'ranx'; valid: "):
        builtin_metric("ranx", [0, 1], [0.1, 0.2], [0, 2], "ndcg@2")


@pytest.mark.parametrize(("values", "words"), [
    ({"lightgbm": 3}, "[params] lightgbm"),
    ({"xgboost": [1, 2]}, "[params] xgboost"),
    ({"raw": {"lightgbm": {"a": 1}}}, "[params] raw"),
    ({"lightgbm-lambdarank": {"a": 1}}, "[params] lightgbm-lambdarank"),
    ({"custom": {"a": 1}}, "[params] custom"),
])
def test_a_raw_table_that_is_not_a_librarys_table_is_refused(values: dict[str, Any],
                                                             words: str) -> None:
    with pytest.raises(ConfigError) as err:
        Params.from_dict(values, where="[params] ")
    assert words in str(err.value)


@pytest.mark.parametrize("value", ["deep", 3, (("a",),), ((1, 2),)])
def test_a_raw_override_that_is_not_a_table_is_refused(value: Any) -> None:
    with pytest.raises(ConfigError, match="expected a table of raw xgboost parameters"):
        Params().with_overrides(xgboost=value)


def test_raw_tables_are_one_value_whatever_their_order_or_emptiness() -> None:
    a = Params.from_dict({"lightgbm": {"b": 1, "a": 2}, "catboost": {}})
    b = Params().with_overrides(lightgbm={"a": 2}).with_overrides(lightgbm={"b": 1})
    assert a == b
    assert hash(a) == hash(b)
    assert Params.from_dict({"xgboost": {}}) == Params()
    assert a.to_dict()["lightgbm"] == {"a": 2, "b": 1}
    assert a.to_dict()["catboost"] == {}


def test_one_librarys_raw_table_never_reaches_another() -> None:
    from bench.runners.params import catboost_params, lightgbm_params, xgboost_params

    p = Params().with_overrides(lightgbm={"min_data_in_bin": 7})
    assert lightgbm_params(p, "lambdarank")["min_data_in_bin"] == 7
    assert "min_data_in_bin" not in xgboost_params(p, "ndcg")
    assert "min_data_in_bin" not in catboost_params(p, "yetirank")


def test_what_is_not_a_gbdt_library_is_neither_checked_nor_probed() -> None:
    check_for_library(Params(subsample=0.01), "baseline", "random")
    check_rows(Params(subsample=0.01), "baseline", 3)
    check_rows(Params(subsample=0.01), "xgboost", 3)  # XGBoost samples no fixed count


@pytest.mark.parametrize("name", ["catboost-mine", "xgboost-x", "lightgbm-", "custom-a"])
def test_a_custom_name_that_starts_like_a_librarys_model_is_accepted(name: str) -> None:
    # runs record the library (custom) and readers take it from there, not from the name
    # (tests/test_runs_library_column.py): the name no longer needs refusing
    check_custom_name(name)


def test_a_bare_library_name_still_expands_to_its_alias_model() -> None:
    assert expand_models("catboost,lightgbm,xgboost") == (
        "catboost-yetirank", "lightgbm-lambdarank", "xgboost-ndcg")


def test_the_model_registry_imports_no_numerical_library() -> None:
    """Listing models (the CLI's help, --models) must not load numpy, pandas or a GBDT."""
    code = ("import sys, bench.runners.registry, bench.runners.libraries; "
            "print(sorted(m for m in ('numpy', 'pandas', 'lightgbm', 'xgboost', 'catboost') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, env={"PYTHONPATH": str(ROOT)}, timeout=120, check=True)
    assert out.stdout.strip() == "[]"
