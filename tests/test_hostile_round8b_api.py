"""Hostile calls of ``bench.benchmark.run(...)``, round 8b: issue 19 item 5 (one schema for a
TOML file, the Python API and the command line) attacked through Python values a TOML file
cannot hold.

New here: a dict key that is not a string (``params={1: 3}`` said "expected a table ...; got a
table"), subclasses of ``str`` / ``int`` / ``float`` (a ``str`` Enum member as the profile was
"unknown profile <SE.A: 'lightgbm'>; did you mean 'lightgbm'?"; an ``int`` subclass with its own
``repr`` wrote ``n_trees = I!`` into ``config.toml``), and a raw library table naming the
library's key or alias of a parameter an ltrbench field sets (``[params.lightgbm]
num_iterations = 5`` beside ``n_trees = 300`` trained 5 trees and recorded 300). Beside them,
instances that already held (NumPy scalars, Decimal, Fraction, sets, generators, bytes,
library range edges, objective/metric overrides), kept so they stay held.

Every case calls :func:`bench.benchmark.run` with the pipeline replaced by a stub: a case must
be refused with ltrbench's own error naming the key and what was expected, or reach the
pipeline with the value it stands for; no data is read. ``python
tests/test_hostile_round8b_api.py`` prints the counts.
"""

from __future__ import annotations

import enum
import sys
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import tomllib

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import api_refused

from bench.benchmark.config import RunConfig


class _Reached(Exception):
    """The stub pipeline's way out: the config the call reached it with."""


class Mode(str, enum.Enum):
    LGB = "lightgbm"
    LAMBDARANK = "lightgbm-lambdarank"


class Seed(enum.IntEnum):
    THREE = 3


class Shown(int):
    """An int whose repr and str are not its digits."""

    def __repr__(self) -> str:
        return "Shown!"

    __str__ = __repr__


class Rate(float):
    def __repr__(self) -> str:
        return "a rate"


class Name(str):
    def __str__(self) -> str:
        return "not-the-name"


def _call(**kwargs: Any) -> tuple[RunConfig | None, BaseException | None]:
    """``run(**kwargs)`` up to the pipeline: (the config it reached, None) or (None, error)."""
    import bench.benchmark.pipeline as pipeline
    from bench.benchmark import api

    def stub(config: RunConfig, **_: Any) -> Path:
        raise _Reached(config)

    saved = pipeline.run_benchmark
    pipeline.run_benchmark = stub  # type: ignore[assignment]
    try:
        api.run(**kwargs)
    except _Reached as reached:
        return reached.args[0], None
    except Exception as exc:  # judged by the case
        return None, exc
    finally:
        pipeline.run_benchmark = saved  # type: ignore[assignment]
    return None, None


def refused(*words: str) -> Callable[[RunConfig | None, BaseException | None], str | None]:
    def judge(config: RunConfig | None, exc: BaseException | None) -> str | None:
        if config is not None:
            return f"accepted, expected an error naming {words}"
        return api_refused(exc, *words)
    return judge


def reached(check: Callable[[RunConfig], str | None]) -> Callable[..., str | None]:
    def judge(config: RunConfig | None, exc: BaseException | None) -> str | None:
        if exc is not None:
            return f"refused: {type(exc).__name__}: {exc}"
        assert config is not None
        problem = check(config)
        if problem is None:  # what the run would write reads back as the same config
            text = config.to_toml()
            try:
                again = RunConfig.from_dict(tomllib.loads(text))
            except Exception as err:  # the file the run writes must read back
                return f"config.toml does not read back: {type(err).__name__}: {err}"
            if again.config_hash() != config.config_hash():
                return "config.toml reads back as another config"
        return problem
    return judge


def _exact(value: Any, want: Any) -> str | None:
    return None if value == want and type(value) is type(want) else \
        f"got {value!r} ({type(value).__name__}), expected {want!r} ({type(want).__name__})"


LGB = {"models": ["lightgbm-lambdarank"]}
XGB = {"models": ["xgboost-ndcg"]}
CAT = {"models": ["catboost-yetirank"]}

#: name -> (kwargs of run(), judge, fixed in round 8b)
CASES: dict[str, tuple[dict[str, Any], Callable[..., str | None], bool]] = {
    # ---------------------------------------------------------------- fixed in round 8b
    "params-key-an-integer": ({"params": {1: 3}}, refused("params", "key 1", "not a string"),
                              True),
    "params-key-none": ({"params": {None: 3}}, refused("params", "None", "not a string"), True),
    "model-params-inner-key-an-integer": (
        {**LGB, "model_params": {"lightgbm-lambdarank": {7: 3}}},
        refused("model_params.lightgbm-lambdarank", "key 7", "not a string"), True),
    "model-params-model-key-a-tuple": (
        {"model_params": {("lightgbm-lambdarank",): {}}},
        refused("model_params", "lightgbm-lambdarank", "not a string"), True),
    "raw-table-key-an-integer": ({**LGB, "params": {"lightgbm": {5: 1}}},
                                 refused("params.lightgbm", "key 5"), True),
    "profile-a-str-enum-member": (
        {"profile": Mode.LGB}, reached(lambda c: _exact(c.profile, "lightgbm")), True),
    "models-a-str-enum-member": (
        {"models": [Mode.LAMBDARANK]},
        reached(lambda c: _exact(tuple(c.models), ("lightgbm-lambdarank",))), False),
    "n-trees-an-int-with-its-own-repr": (
        {"params": {"n_trees": Shown(3)}}, reached(lambda c: _exact(c.params.n_trees, 3)), True),
    "seeds-an-int-enum-member": ({"seeds": [Seed.THREE]},
                                 reached(lambda c: _exact(c.seeds, (3,))), False),
    "learning-rate-a-float-with-its-own-repr": (
        {"params": {"learning_rate": Rate(0.05)}},
        reached(lambda c: _exact(c.params.learning_rate, 0.05)), True),
    "run-name-a-str-with-its-own-str": (
        {"name": Name("mine")}, reached(lambda c: _exact(c.name, "mine")), True),
    "lightgbm-num-iterations-beside-n-trees": (
        {**LGB, "params": {"lightgbm": {"num_iterations": 5}}},
        refused("lightgbm num_iterations", "n_trees"), True),
    "lightgbm-alias-of-num-leaves": ({**LGB, "params": {"lightgbm": {"max_leaves": 5}}},
                                     refused("lightgbm max_leaves", "num_leaves"), True),
    "lightgbm-eta-beside-learning-rate": ({**LGB, "params": {"lightgbm": {"eta": 0.5}}},
                                          refused("lightgbm eta", "learning_rate"), True),
    "lightgbm-own-early-stopping": (
        {**LGB, "params": {"lightgbm": {"early_stopping_round": 2}}},
        refused("lightgbm early_stopping_round", "early_stopping_rounds"), True),
    "lightgbm-bagging-fraction-beside-subsample": (
        {**LGB, "model_params": {"lightgbm-lambdarank": {"lightgbm": {"subsample": 0.5}}}},
        refused("[model_params.lightgbm-lambdarank]", "lightgbm subsample", "subsample"), True),
    "xgboost-eta-in-the-raw-table": ({**XGB, "params": {"xgboost": {"eta": 0.5}}},
                                     refused("xgboost eta", "learning_rate"), True),
    "xgboost-lambda-beside-l2": ({**XGB, "params": {"xgboost": {"reg_lambda": 2.0}}},
                                 refused("xgboost reg_lambda", "l2"), True),
    "catboost-border-count-beside-max-bin": (
        {**CAT, "quick": True, "params": {"catboost": {"border_count": 32}}},
        refused("catboost border_count", "max_bin"), True),
    "catboost-iterations-beside-n-trees": (
        {**CAT, "quick": True, "params": {"catboost": {"iterations": 5}}},
        refused("catboost iterations", "n_trees"), True),
    # ---------------------------------------------------------------- held before, kept held
    "seeds-numpy-int64": ({"seeds": [np.int64(3)]}, reached(lambda c: _exact(c.seeds, (3,))),
                          False),
    "seeds-numpy-float32": ({"seeds": [np.float32(1.0)]}, refused("seeds", "integer"), False),
    "seeds-numpy-bool": ({"seeds": [np.bool_(True)]}, refused("seeds", "integer"), False),
    "seeds-decimal": ({"seeds": [Decimal(3)]}, refused("seeds", "Decimal"), False),
    "seeds-fraction": ({"seeds": [Fraction(3, 1)]}, refused("seeds", "Fraction"), False),
    "seeds-a-set": ({"seeds": {2, 1}}, refused("seeds", "a set"), False),
    "seeds-a-generator": ({"seeds": (s for s in [1])}, refused("seeds", "generator"), False),
    "seeds-bytes": ({"seeds": b"1"}, refused("seeds", "bytes"), False),
    "models-a-set": ({"models": {"lightgbm", "random"}}, refused("models", "a set"), False),
    "metrics-a-generator": ({"metrics": (m for m in ["ndcg@10"])},
                            refused("metrics", "generator"), False),
    "eval-at-a-set": ({"eval_at": {10, 5}}, refused("eval_at", "a set"), False),
    "eval-at-numpy-floats": ({"eval_at": np.array([1.0, 5.0])}, refused("eval_at", "integer"),
                             False),
    "quick-the-integer-1": ({"quick": 1}, refused("quick", "true or false"), False),
    "learning-rate-decimal": ({"params": {"learning_rate": Decimal("0.1")}},
                              refused("[params] learning_rate", "Decimal"), False),
    "learning-rate-complex": ({"params": {"learning_rate": 0.1 + 0j}},
                              refused("[params] learning_rate", "complex"), False),
    "learning-rate-zero": ({"params": {"learning_rate": 0}},
                           refused("[params] learning_rate", "> 0"), False),
    "learning-rate-1e-300": ({"params": {"learning_rate": 1e-300}},
                             refused("[params] learning_rate"), False),
    "num-leaves-one": ({"params": {"num_leaves": 1}}, refused("[params] num_leaves", "2"), False),
    "max-depth-minus-two": ({"params": {"max_depth": -2}}, refused("[params] max_depth"), False),
    "min-child-weight-negative": ({"params": {"min_child_weight": -1}},
                                  refused("[params] min_child_weight"), False),
    "subsample-zero": ({"params": {"subsample": 0}}, refused("[params] subsample"), False),
    "subsample-just-above-one": ({"params": {"subsample": 1.0000001}},
                                 refused("[params] subsample"), False),
    "max-bin-one": ({"params": {"max_bin": 1}}, refused("[params] max_bin"), False),
    "max-bin-2-to-the-31": ({"params": {"max_bin": 2**31}}, refused("[params] max_bin"), False),
    "colsample-by-xgboost-s-name": ({"params": {"colsample_bytree": 0}},
                                    refused("colsample_bytree", "did you mean 'colsample'"),
                                    False),
    "objective-override": ({**LGB, "model_params": {"lightgbm-lambdarank": {
        "objective": "regression"}}}, refused("[model_params.lightgbm-lambdarank] objective"),
        False),
    "raw-objective-override": ({**XGB, "params": {"xgboost": {
        "objective": "reg:squarederror"}}}, refused("xgboost objective", "model name"), False),
    "raw-eval-at-override": ({**LGB, "params": {"lightgbm": {"eval_at": [5]}}},
                             refused("lightgbm eval_at", "eval_at"), False),
    "model-params-none": ({"model_params": None}, refused("model_params"), False),
    "device-none": ({"device": None}, refused("device"), False),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_round8b_api(name: str) -> None:
    kwargs, judge, _ = CASES[name]
    problem = judge(*_call(**kwargs))
    assert problem is None, f"{name}: {problem}"


if __name__ == "__main__":  # the counts
    failing = [n for n, (kw, judge, _) in CASES.items() if judge(*_call(**kw)) is not None]
    print(f"{len(CASES)} cases, {len(failing)} failing: {', '.join(failing)}")
