"""Round 20, persona D: a Python developer who builds ltrbench's typed values directly.

The architecture promise: a choice is parsed and validated once, at the door, into a typed
value that is passed down. These cases knock on that door from Python: the public values
(``RunConfig``, ``Params``, ``ALSParams``, ``Profile``, ``ModelSpec`` / ``ModelNames``,
``MetricSpec``) built by hand with NumPy scalars, ``str`` / ``int`` subclasses and Enum
members, out-of-range values, ``dataclasses.replace``, mutation after validation, copies,
pickles and hashes. Each case expects ltrbench's own error naming the field (or the same value
the validated path gives: ``RunConfig.from_dict``, the same text in a TOML file); never a
traceback from inside, never a silently different run.

Class of each case in its comment: traceback / silently wrong number / silent accept /
unclear error. Golden values: the plain-Python spelling of the same choice, and for metric
numbers hand arithmetic.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import enum
import math
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bench.benchmark.config import RunConfig
from bench.errors import ConfigError, LtrbenchError
from bench.metrics.evaluate import evaluate
from bench.metrics.names import parse_metrics
from bench.metrics.profile import Profile
from bench.metrics.profiles import PROFILES, get_profile
from bench.runners.baselines import ALSParams
from bench.runners.params import Params
from bench.runners.registry import ModelNames, ModelSpec, get_model
from tests.hostile_kit import own_error

LGBM = "lightgbm-lambdarank"


class Three(enum.IntEnum):
    THREE = 3


class Name(str, enum.Enum):
    TREC = "trec_eval"
    NDCG1 = "ndcg@1"
    INPROCESS = "inprocess"
    STABLE = "stable"


class Loud(str):
    """A str subclass with its own repr (what a config file or a table would print)."""

    def __repr__(self) -> str:
        return "Loud!"


def small(**kw: Any) -> RunConfig:
    """A config with one model, quick (the checks alone run: no data)."""
    return RunConfig(**{"models": (LGBM,), "seeds": (0,), "quick": True, **kw})


def same_as_from_dict(direct: dict[str, Any]) -> str | None:
    """``RunConfig(**direct)`` equals ``RunConfig.from_dict(direct)`` (the documented promise:
    the same checks for a file, ``RunConfig(...)`` and ``from_dict``), each value plain."""
    doc = {"models": [LGBM], "seeds": [0], "quick": True, **direct}
    try:
        want = RunConfig.from_dict(doc)
    except LtrbenchError as exc:  # pragma: no cover - the oracle path must accept it
        return f"from_dict refused it: {exc}"
    try:
        got = small(**direct)
    except LtrbenchError as exc:
        return f"RunConfig(...) refused what from_dict accepts: {exc}"
    if got != want or got.to_toml() != want.to_toml():
        return f"RunConfig(...) gave {got.to_toml()!r}, from_dict {want.to_toml()!r}"
    return None


# ---------------------------------------------------------------- RunConfig(...) vs from_dict
@pytest.mark.parametrize("direct", [
    {"timing_repeats": np.int64(3)},                      # unclear error: "expected an integer"
    {"quick": np.bool_(True)},                            # unclear error: "expected true or false"
    {"seeds": np.array([1, 2])},                          # unclear error
    {"seeds": range(3)},                                  # unclear error
    {"seeds": (np.int64(4), np.int32(5))},                # unclear error
    {"eval_at": np.array([1, 3])},                        # unclear error
    {"profile": Name.TREC},                               # unclear error: "unknown profile"
    {"data_dir": Path("/tmp/r20D-no-such-dir")},          # unclear error
    {"model_params": {LGBM: {"n_trees": np.int64(5)}}},   # unclear error
    {"model_params": {LGBM: {"lightgbm": {"min_data_in_bin": np.int64(5)}}}},  # unclear error
], ids=["timing_repeats-np.int64", "quick-np.bool_", "seeds-ndarray", "seeds-range",
        "seeds-np-scalars", "eval_at-ndarray", "profile-str-enum", "data_dir-Path",
        "model_params-np.int64", "raw-param-np.int64"])
def test_runconfig_takes_what_from_dict_takes(direct: dict[str, Any]) -> None:
    assert same_as_from_dict(direct) is None, same_as_from_dict(direct)


def test_engine_workers_as_a_numpy_integer_is_the_integer() -> None:
    # unclear error: RunConfig refused np.int64(3) as "expected an integer"
    got = RunConfig(engine="dask", workers=np.int64(3), seeds=(0,), models=(LGBM,))
    assert got.workers == 3
    assert type(got.workers) is int


@pytest.mark.parametrize(("field", "value", "plain"), [
    ("timing_repeats", Three.THREE, 3),
    ("timing", Name.INPROCESS, "inprocess"),
    ("name", Loud("abc"), "abc"),
    ("select_metric", Loud("ndcg@10"), "ndcg@10"),
    ("description", Loud("a run"), "a run"),
])
def test_a_subclass_value_is_recorded_as_the_plain_value(field: str, value: Any,
                                                         plain: Any) -> None:
    # silent accept: the Enum member or str subclass was kept inside the frozen config
    got = getattr(small(**{field: value}), field)
    assert (type(got), got) == (type(plain), plain)


def test_enum_seeds_and_cutoffs_are_recorded_as_plain_integers() -> None:
    # silent accept: (Three.THREE,) was kept as an IntEnum tuple
    c = small(seeds=(Three.THREE,), eval_at=(Three.THREE,))
    assert [type(s) for s in c.seeds] == [int]
    assert [type(k) for k in c.eval_at] == [int]


def test_enum_metric_names_are_recorded_as_plain_text() -> None:
    # silent accept: metrics held the Enum member, printed as <Name.NDCG1: 'ndcg@1'>
    c = small(metrics=(Name.NDCG1,))
    assert [type(m) for m in c.metrics] == [str]
    assert "Name." not in repr(c)


def test_a_str_subclass_name_prints_as_its_text_in_the_config() -> None:
    # silent accept: repr(config) showed the subclass's own repr "Loud!"
    assert "Loud!" not in repr(small(name=Loud("abc")))


def test_a_str_subclass_model_params_key_is_plain_text() -> None:
    # silent accept
    c = small(model_params={Loud(LGBM): {"n_trees": 5}})
    assert [type(k) for k in c.model_params] == [str]


@pytest.mark.parametrize(("field", "value", "words"), [
    ("timing_repeats", np.float64(2.0), ("timing_repeats", "integer")),
    ("quick", np.int64(1), ("quick", "true or false")),
    ("seeds", (np.float64(1.0),), ("seeds", "integer")),
    ("eval_at", (np.bool_(True),), ("eval_at", "integer")),
    ("workers", 2.0, ("workers",)),
])
def test_numpy_values_of_the_wrong_kind_stay_refused(field: str, value: Any,
                                                     words: tuple[str, ...]) -> None:
    # silent accept guard: plain values for NumPy scalars must not coerce 2.0 into 2
    kw = {"engine": "dask"} if field == "workers" else {}
    assert own_error(lambda: small(**kw, **{field: value}), *words) is None


def test_replace_with_a_numpy_seed_array_goes_through_the_same_door() -> None:
    # unclear error: replace(seeds=np.array([5])) was refused, from_dict takes it
    c = dataclasses.replace(small(), seeds=np.array([5]))
    assert c.seeds == (5,)
    assert type(c.seeds[0]) is int


# ---------------------------------------------------------------- model specs forged by hand
def test_a_spec_that_gives_a_model_another_library_is_refused() -> None:
    # silently wrong number: 'lightgbm-lambdarank' would be trained by XGBoost under its name
    forged = ModelNames([ModelSpec(LGBM, "xgboost", "ndcg", "x")])
    assert own_error(lambda: small(models=forged), LGBM, "xgboost") is None


def test_a_spec_of_an_unregistered_model_name_is_refused() -> None:
    # silent accept: a model no registry knows, accepted because it came as a ModelNames
    forged = ModelNames([ModelSpec("mymodel", "lightgbm", "lambdarank", "x")])
    assert own_error(lambda: small(models=forged), "mymodel") is None


def test_a_spec_with_an_unknown_library_and_objective_is_refused() -> None:
    # silent accept: popularity with library 'foo' would fail (or not) deep in the run
    forged = ModelNames([ModelSpec("popularity", "foo", "nope", "x")])
    assert own_error(lambda: small(models=forged), "popularity") is None


def test_replace_cannot_smuggle_a_forged_spec_into_a_checked_config() -> None:
    # silently wrong number
    forged = ModelNames([ModelSpec("random", "baseline", "popularity", "x")])
    assert own_error(lambda: dataclasses.replace(small(models=("random",)), models=forged),
                     "random") is None


def test_the_registrys_own_specs_are_taken_and_kept() -> None:
    # control for the three above: genuine specs pass and are the ones kept
    names = ModelNames([get_model(LGBM), get_model("random")])
    c = small(models=names)
    assert c.model_spec(LGBM) == get_model(LGBM)
    assert tuple(c.models) == (LGBM, "random")


# ---------------------------------------------------------------- mutation after validation
def test_a_checked_model_params_table_cannot_be_changed_in_place() -> None:
    # silently wrong run / late error: num_leaves = 0 set after the checks reached the trainer
    c = small(model_params={LGBM: {"num_leaves": 7}})
    with contextlib.suppress(ConfigError, TypeError):
        c.model_params[LGBM]["num_leaves"] = 0
    assert c.params_for(LGBM, 0).num_leaves == 7


def test_a_model_params_table_cannot_be_added_after_the_checks() -> None:
    # silently wrong run: a table for a model the checks never saw
    c = small()
    with contextlib.suppress(ConfigError, TypeError):
        c.model_params[LGBM] = {"num_leaves": 0}
    assert LGBM not in c.model_params
    assert c.params_for(LGBM, 0) == small().params_for(LGBM, 0)


def test_changing_model_params_in_place_says_what_to_do() -> None:
    # unclear error: whatever refuses the change names the field and the way that works
    c = small(model_params={LGBM: {"num_leaves": 7}})
    assert own_error(lambda: c.model_params.pop(LGBM), "model_params", "replace") is None


def test_custom_models_cannot_be_added_after_the_checks() -> None:
    # silent accept: a custom model never checked against timing/engine
    c = small()
    assert own_error(lambda: c.custom_models.update({"x": "m:f"}), "custom_models") is None


def test_a_checked_config_still_copies_pickles_and_hashes_alike() -> None:
    # the read-only tables must still round-trip: equal after copy, deepcopy and pickle
    c = small(model_params={LGBM: {"num_leaves": 7, "lightgbm": {"min_data_in_bin": 5}}})
    for other in (copy.copy(c), copy.deepcopy(c), pickle.loads(pickle.dumps(c))):
        assert other == c
        assert other.config_hash() == c.config_hash()
        assert other.params_for(LGBM, 0) == c.params_for(LGBM, 0)


def test_a_replace_of_a_checked_config_gives_an_equal_config() -> None:
    c = small(model_params={LGBM: {"num_leaves": 7}})
    assert dataclasses.replace(c) == c
    assert dataclasses.replace(c).config_hash() == c.config_hash()


def test_equal_configs_hash_equal() -> None:
    # traceback: hash(config) raised TypeError: unhashable type: 'dict' (a frozen value)
    a = small(model_params={LGBM: {"num_leaves": 7}})
    b = RunConfig.from_dict({"models": [LGBM], "seeds": [0], "quick": True,
                             "model_params": {LGBM: {"num_leaves": 7}}})
    assert a == b
    assert hash(a) == hash(b)
    assert len({a, b}) == 1


def test_configs_that_differ_are_two_set_members() -> None:
    a, b = small(), small(seeds=(1,))
    assert a != b
    assert len({a, b}) == 2


# ---------------------------------------------------------------- Profile built by hand
@pytest.mark.parametrize(("field", "value"), [
    ("default_k", 1.5),             # traceback in evaluate: list indices must be integers
    ("default_k", "10"),            # traceback: '<' not supported between str and int
    ("default_k", True),            # silent accept: True is no cutoff
    ("err_max_grade", 1.5),         # silent accept
    ("err_max_grade", "4"),         # traceback: TypeError
    ("max_label", "31"),            # traceback: TypeError
    ("max_label", 2.5),             # silent accept
    ("relevance_threshold", "1"),   # silent accept (refused only once data arrive)
    ("relevance_threshold", math.nan),  # silent accept
    ("relevance_threshold", True),  # silent accept
    ("max_relevant_label", "2"),    # silent accept
    ("gain", ("0", "1", "3")),      # silent accept: text coerced into gains
    ("gain", (0, math.inf, 3)),     # silent accept: an infinite gain
    ("gain", (False, True, 3)),     # silent accept: bools as gains
    ("empty", True),                # silent accept: kept as True
    ("integer_labels", "no"),       # silently wrong number: "no" read as true
    ("clamp_ndcg_mean", "yes"),     # silent accept
    ("binary_labels_for_binary_metrics", 1),  # silent accept
    ("integer_labels", np.int64(0)),  # silent accept: a NumPy integer kept as a flag
    # (np.bool_ is read as the bool it is, as RunConfig reads it: test_hostile_profiles_options)
    ("empty_by_family", {"map": 0.0}),  # traceback: ValueError too many values to unpack
    ("description", None),          # silent accept
])
def test_a_profile_field_of_the_wrong_type_is_refused_naming_it(field: str, value: Any) -> None:
    kw: dict[str, Any] = {field: value}
    if field == "empty_by_family":
        kw["empty"] = 1.0
    assert own_error(lambda: Profile(name="mine", **kw), field) is None


def test_a_profile_name_that_is_no_text_is_refused() -> None:
    # silent accept: Profile(name=5) was a profile named 5
    assert own_error(lambda: Profile(name=5), "name") is None  # type: ignore[arg-type]


@pytest.mark.parametrize(("field", "value", "plain"), [
    ("default_k", np.int64(2), 2),
    ("empty", np.float64(1.0), 1.0),
    ("discount_base", np.float32(2.0), 2.0),   # unclear error: "must be a finite number"
    ("ties", Name.STABLE, "stable"),
    ("max_label", np.int64(30), 30),
])
def test_a_profile_field_from_numpy_or_an_enum_is_its_plain_value(field: str, value: Any,
                                                                  plain: Any) -> None:
    # silent accept (numpy scalar or Enum kept in the frozen profile) / unclear error
    got = getattr(Profile(name="mine", **{field: value}), field)
    assert (type(got), got) == (type(plain), plain)


def test_a_profile_from_numpy_values_equals_the_plain_one_and_hashes_alike() -> None:
    a = Profile(name="mine", default_k=np.int64(2), empty=np.float64(1.0))
    b = Profile(name="mine", default_k=2, empty=1.0)
    assert a == b
    assert hash(a) == hash(b)


def test_a_profile_with_default_k_gives_the_hand_number() -> None:
    # labels (2, 0, 1) ranked by score; default_k = 2: DCG@2 = 3/1 + 0 = 3,
    # IDCG@2 = 3 + 1/log2(3); ndcg = 3 / (3 + 0.6309297535714574)
    got = evaluate([2, 0, 1], [0.9, 0.8, 0.1], qid=[1, 1, 1], metrics="ndcg",
                   profile=Profile(name="mine", default_k=np.int64(2))).metrics["ndcg"]
    assert got == pytest.approx(3 / (3 + 1 / math.log2(3)), abs=1e-12)


def test_evaluate_takes_a_str_enum_profile_as_its_name() -> None:
    # unclear error: "unknown profile <Name.TREC: 'trec_eval'>; did you mean 'trec_eval'?"
    args = ([2, 0, 1], [0.5, 0.5, 0.1])
    got = evaluate(*args, qid=[1, 1, 1], metrics="ndcg", profile=Name.TREC).metrics
    assert got == evaluate(*args, qid=[1, 1, 1], metrics="ndcg", profile="trec_eval").metrics


def test_get_profile_of_a_str_enum_is_the_named_profile() -> None:
    # unclear error
    assert get_profile(Name.TREC) is PROFILES["trec_eval"]


def test_replace_on_a_named_profile_is_checked_like_a_new_one() -> None:
    # silently wrong number: integer_labels="no" is truthy
    assert own_error(lambda: dataclasses.replace(PROFILES["trec_eval"], integer_labels="no"),
                     "integer_labels") is None


@pytest.mark.parametrize("name", ["ltrbench", "trec_eval", "lightgbm", "xgboost@1.7",
                                  "trec_eval-c", "catboost"])
def test_a_profiles_name_gives_back_an_equal_profile(name: str) -> None:
    p = get_profile(name)
    again = get_profile(p.name)
    assert again == p
    assert hash(again) == hash(p)
    assert pickle.loads(pickle.dumps(p)) == p


# ---------------------------------------------------------------- metric names
@pytest.mark.parametrize("text", ["ndcg@10", "ndcg_cut.5", "nDCG(gains={0:0,1:1,2:3})@10",
                                  "P(rel=2)@5", "rbp(0.95)@10", "lightgbm:ndcg@5",
                                  "recip_rank", "precision@10"])
def test_a_metric_specs_name_parses_back_to_an_equal_spec(text: str) -> None:
    spec = parse_metrics([text])[0]
    back = parse_metrics([spec.name])[0]
    assert back == spec
    assert hash(back) == hash(spec)
    assert pickle.loads(pickle.dumps(spec)) == spec


def test_metric_names_given_as_a_str_enum_give_the_plain_names_number() -> None:
    got = evaluate([1, 0], [0.5, 0.2], qid=[1, 1], metrics=[Name.NDCG1]).metrics
    assert list(got) == ["ndcg@1"]
    assert got["ndcg@1"] == 1.0


# ---------------------------------------------------------------- Params and ALSParams
def test_params_take_a_numpy_integer_as_the_integer() -> None:
    # unclear error: Params(n_trees=np.int64(5)) refused as "expected an integer"
    p = Params(n_trees=np.int64(5))
    assert p == Params(n_trees=5)
    assert type(p.n_trees) is int


def test_replace_on_params_with_a_numpy_integer_is_the_integer() -> None:
    p = dataclasses.replace(Params(), num_leaves=np.int32(15))
    assert p.num_leaves == 15
    assert type(p.num_leaves) is int


def test_params_refuse_a_numpy_float_for_an_integer() -> None:
    assert own_error(lambda: Params(n_trees=np.float64(5.0)), "n_trees") is None


@pytest.mark.parametrize(("field", "value"), [("factors", 1.5), ("factors", 0),
                                         ("iterations", True), ("regularization", -1.0),
                                         ("alpha", "10")])
def test_als_params_out_of_range_are_refused_when_made(field: str, value: Any) -> None:
    # silent accept: ALSParams(factors=1.5) was made; only RunConfig refused it
    assert own_error(lambda: ALSParams(**{field: value}), field) is None


def test_als_params_from_numpy_are_plain_and_equal() -> None:
    a = ALSParams(factors=np.int64(8), alpha=np.float32(2.0))
    assert a == ALSParams(factors=8, alpha=2.0)
    assert type(a.factors) is int


# ---------------------------------------------------------------- the config's own builders
def test_for_model_refuses_a_spec_that_gives_a_model_another_library() -> None:
    # silently wrong number: tune's config for 'lightgbm-lambdarank' trained by XGBoost
    forged = ModelSpec(LGBM, "xgboost", "ndcg", "x")
    assert own_error(lambda: small().for_model(forged), LGBM, "xgboost") is None


def test_for_model_refuses_a_spec_of_no_registered_model() -> None:
    # silent accept
    assert own_error(lambda: small().for_model(ModelSpec("zzz", "lightgbm", "lambdarank", "x")),
                     "zzz") is None


def test_with_model_params_takes_a_numpy_integer_as_the_integer() -> None:
    # unclear error: "expected an integer from 2 to 131072; got np.int64(15)"
    got = small().with_model_params(get_model(LGBM), {"num_leaves": np.int64(15)})
    assert got.model_params == {LGBM: {"num_leaves": 15}}
    assert type(got.model_params[LGBM]["num_leaves"]) is int


def test_with_model_params_refuses_a_forged_spec() -> None:
    # silently wrong number: XGBoost's max_depth checked, LightGBM trained
    forged = ModelSpec(LGBM, "xgboost", "ndcg", "x")
    assert own_error(lambda: small().with_model_params(forged, {"max_depth": 3}), LGBM) is None


def test_a_raw_parameter_given_as_a_numpy_integer_is_the_integer() -> None:
    # unclear error: "expected a string, number or boolean ...; got np.int64(5)"
    p = Params(raw=(("lightgbm", (("min_data_in_bin", np.int64(5)),)),))
    assert p == Params().with_overrides(lightgbm={"min_data_in_bin": 5})
    assert type(p.raw_params("lightgbm")["min_data_in_bin"]) is int


def test_with_overrides_of_a_numpy_raw_parameter_is_the_plain_value() -> None:
    # unclear error
    got = Params().with_overrides(lightgbm={"min_data_in_bin": np.int64(5)})
    assert got.raw_params("lightgbm") == {"min_data_in_bin": 5}


def test_a_custom_models_params_cannot_be_changed_after_the_checks() -> None:
    # silently different run: the factory got alpha = 5, the config recorded and hashed 2.0
    c = RunConfig(models=("mine",), seeds=(0,),
                  custom_models={"mine": {"factory": "sklearn.linear_model:Ridge",
                                          "params": {"alpha": 2.0}}})
    assert own_error(lambda: c.custom_models["mine"].params.update(alpha=5), "params",
                     "replace") is None
    assert c.custom_models["mine"].params == {"alpha": 2.0}
    assert pickle.loads(pickle.dumps(c)) == c
