"""Round 22, persona B: every user choice, on every door.

The architecture rule: a user's choice is parsed and validated once, at the door, into a typed
value. The same choice arrives through a TOML file, the command line, ``RunConfig.from_dict`` /
``bench.benchmark.run(...)``, the typed values built by hand (``RunConfig``, ``CustomModel``,
``Params``) and tune grids. These cases take choices earlier rounds fixed on one door to the
others: a custom ranker's nested ``params`` (and a raw library table's lists) changed after the
checks, by the caller or between seeds; params the config file cannot record as given (a tuple,
an integer beyond TOML's 64 bits); values nested without end; a key in the wrong table; a
factory reference with a look-alike letter, a stray space or a file path; a metric listed
twice. Each case expects ltrbench's own error naming the key (or the same value on every
door), never a traceback, never a run that trains one value and records another.

Class of each case in its comment: traceback / silently wrong number / silent accept /
unclear error. Golden values are the values as written (hand-made), never ltrbench's output.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import round22b_rankers
from hostile_kit import cli, own_error, refused, toy_splits

from bench.benchmark.config import RunConfig
from bench.data import toml as tomlio
from bench.errors import ConfigError
from bench.runners.custom import (
    CustomModel,
    build_ranker,
    custom_model,
    train_custom,
)

LAYERED = "round22b_rankers:Layered"
CATBOOST = "catboost-yetirank"


def mine(params: dict[str, Any], **kw: Any) -> RunConfig:
    """A checked config of one custom model ``mine`` (no data read, no ranker built)."""
    return RunConfig.from_dict({"models": ["mine"], "seeds": [0, 1], "quick": True,
                                "custom_models": {"mine": {"factory": LAYERED, "params": params}},
                                **kw})


@pytest.fixture(scope="module")
def splits() -> Any:
    return toy_splits()


# ------------------------------------------- a custom model's nested params after the checks
def test_a_nested_list_of_a_checked_configs_custom_params_cannot_be_changed() -> None:
    # silent accept: the factory got layers [1, 2, 5]; config.toml and the hash said [1, 2]
    c = mine({"layers": [1, 2]})
    before = c.config_hash()
    assert own_error(lambda: c.custom_models["mine"].params["layers"].append(5),
                     "custom_models", "replace") is None
    assert c.custom_models["mine"].params["layers"] == [1, 2]
    assert c.config_hash() == before


def test_a_nested_table_of_a_checked_configs_custom_params_cannot_be_changed() -> None:
    # silent accept: a nested table took a new key after the checks
    c = mine({"opts": {"depth": 3}})
    assert own_error(lambda: c.custom_models["mine"].params["opts"].update(depth=30),
                     "read-only") is None
    assert own_error(lambda: c.custom_models["mine"].params["opts"].__setitem__("x", 1),
                     "read-only") is None
    assert c.custom_models["mine"].params == {"opts": {"depth": 3}}


def test_a_list_inside_a_nested_table_cannot_be_changed_either() -> None:
    # silent accept: two levels down, a list was still the caller's to change
    c = mine({"opts": {"sizes": [8, 4]}})
    assert own_error(lambda: c.custom_models["mine"].params["opts"]["sizes"].sort(),
                     "read-only") is None
    assert own_error(lambda: c.custom_models["mine"].params["opts"]["sizes"].__iadd__([1]),
                     "read-only") is None
    assert c.custom_models["mine"].params["opts"]["sizes"] == [8, 4]


def test_the_callers_list_changed_after_custom_model_leaves_the_model_as_checked() -> None:
    # silently wrong run: custom_model() kept the caller's own list (a shallow copy)
    given = {"factory": LAYERED, "params": {"layers": [1, 2]}}
    model = custom_model("mine", given)
    given["params"]["layers"].append(99)
    assert model.params == {"layers": [1, 2]}


def test_a_hand_built_custom_model_keeps_its_own_copy_of_nested_params() -> None:
    # silently wrong run: CustomModel(...) built by hand shared the caller's nested list
    layers = [1, 2]
    model = CustomModel("mine", LAYERED, {"layers": layers}, round22b_rankers.Layered)
    layers.append(3)
    assert model.params == {"layers": [1, 2]}
    assert own_error(lambda: model.params["layers"].append(4), "read-only") is None


def test_a_custom_model_object_given_to_a_config_is_copied_at_every_depth() -> None:
    # silently wrong run: the config's params shared lists with the CustomModel it was given
    model = custom_model("mine", {"factory": LAYERED, "params": {"opts": {"a": [1]}}})
    c = RunConfig(models=("mine",), seeds=(0,), quick=True, custom_models={"mine": model})
    with pytest.raises(ConfigError):
        model.params["opts"]["a"].append(2)
    assert c.custom_models["mine"].params == {"opts": {"a": [1]}}


# ------------------------------------------------------------- what each seed's factory gets
def test_every_seed_gets_the_params_as_written_though_the_factory_changes_its_copy() -> None:
    # silently wrong run: seed 1 got the list seed 0's factory appended to
    model = custom_model("mine", {"factory": LAYERED,
                                  "params": {"layers": [1, 2], "opts": {"k": 1}}})
    round22b_rankers.Layered.received.clear()
    for seed in (0, 1):
        build_ranker(model, seed)  # the factory call of train_custom, without the fit
    got = [(r["layers"], r["opts"], r["seed"]) for r in round22b_rankers.Layered.received]
    assert got == [([1, 2], {"k": 1}, 0), ([1, 2], {"k": 1}, 1)]


def test_the_factory_gets_plain_lists_and_tables_it_may_change() -> None:
    # traceback (guard): read-only params handed to the factory would break layers.append
    model = custom_model("mine", {"factory": LAYERED,
                                  "params": {"layers": [1], "opts": {"k": 1}}})
    round22b_rankers.Layered.received.clear()
    build_ranker(model, 0)
    assert round22b_rankers.Layered.received[0]["types"] == (list, dict)


def test_each_seeds_recorded_params_equal_what_the_factory_received(splits: Any) -> None:
    # silently wrong record: the factory got the tuple (1, 2), the status file and config.toml
    # the list [1, 2], which is what a reproduction's factory gets
    model = custom_model("mine", {"factory": LAYERED, "params": {"layers": (1, 2)}})
    round22b_rankers.Layered.received.clear()
    result = train_custom(model, splits, seed=0)
    received = round22b_rankers.Layered.received[0]
    assert received["types"][0] is list
    assert result.library_params["params"] == {"layers": [1, 2]}
    assert type(result.library_params["params"]["layers"]) is list


def test_a_tuple_param_round_trips_through_config_toml_to_an_equal_config() -> None:
    # silently wrong record: config.toml wrote [1, 2] for the tuple (1, 2); read back, it was
    # another config (unequal), whose factory gets another type
    c = mine({"layers": (1, 2)})
    back = RunConfig.from_dict(tomlio.loads(c.to_toml()))
    assert back == c
    assert back.config_hash() == c.config_hash()


def test_a_config_with_nested_custom_params_pickles_copies_and_hashes_alike() -> None:
    # traceback (guard): read-only nested values must still copy, pickle and hash
    c = mine({"layers": [1, [2, 3]], "opts": {"a": {"b": [4]}}})
    for other in (copy.deepcopy(c), copy.copy(c), pickle.loads(pickle.dumps(c))):
        assert other == c
        assert other.config_hash() == c.config_hash()
        assert other.custom_models["mine"].params["opts"]["a"]["b"] == [4]
    assert own_error(lambda: copy.deepcopy(c).custom_models["mine"].params["layers"][1]
                     .append(9), "read-only") is None


def test_to_dict_hands_out_plain_nested_params_the_caller_may_change() -> None:
    # silently wrong run: to_dict's nested lists were the config's own; appending to the
    # copy handed out changed what the factory gets and the hash
    c = mine({"layers": [1, 2], "opts": {"a": [1]}})
    doc = c.to_dict()
    params = doc["custom_models"]["mine"]["params"]
    assert type(params["layers"]) is list
    assert type(params["opts"]) is dict
    params["layers"].append(3)
    params["opts"]["a"].append(2)
    assert c.custom_models["mine"].params == {"layers": [1, 2], "opts": {"a": [1]}}
    assert RunConfig.from_dict(doc).custom_models["mine"].params["layers"] == [1, 2, 3]


def test_replace_with_new_nested_params_checks_and_freezes_them() -> None:
    # silent accept: the door dataclasses.replace names must give a read-only value too
    c = mine({"layers": [1]})
    new = dataclasses.replace(c, custom_models={"mine": {"factory": LAYERED,
                                                         "params": {"layers": [7]}}})
    assert new.custom_models["mine"].params == {"layers": [7]}
    assert own_error(lambda: new.custom_models["mine"].params["layers"].clear(),
                     "read-only") is None


# ------------------------------------------------------- values the config file cannot hold
def test_custom_params_nested_3000_deep_are_refused_not_a_recursion_error() -> None:
    # traceback: RecursionError from inside the checks
    deep: list[Any] = []
    for _ in range(3000):
        deep = [deep]
    assert own_error(lambda: mine({"layers": deep}), "layers", "deep") is None


def test_custom_params_holding_themselves_are_refused_not_a_recursion_error() -> None:
    # traceback: a list that holds itself ended in a RecursionError
    loop: list[Any] = [1]
    loop.append(loop)
    assert own_error(lambda: mine({"layers": loop}), "layers", "itself") is None


def test_a_hand_built_custom_model_with_a_looping_param_is_refused() -> None:
    # traceback: the door of a CustomModel built by hand
    loop: dict[str, Any] = {}
    loop["self"] = loop
    assert own_error(lambda: CustomModel("mine", LAYERED, {"opts": loop},
                                         round22b_rankers.Layered), "opts", "itself") is None


def test_a_raw_library_value_holding_itself_is_refused_not_a_recursion_error() -> None:
    # traceback: the same loop in [params.catboost] through from_dict
    loop: list[Any] = [1]
    loop.append(loop)
    assert own_error(lambda: RunConfig.from_dict({
        "models": [CATBOOST], "seeds": [0],
        "params": {"catboost": {"ignored_features": loop}}}), "ignored_features") is None


def test_a_custom_param_integer_beyond_64_bits_is_refused_naming_the_key() -> None:
    # silent accept: config.toml recorded 2^64, which a TOML reader must refuse (TOML 1.0:
    # integers are 64-bit), so the run's own record could not be read back by other tools
    assert own_error(lambda: mine({"hash_space": 2**64}), "hash_space", "64") is None
    assert mine({"hash_space": 2**63 - 1}).custom_models["mine"].params["hash_space"] == 2**63 - 1


# ----------------------------------------------- raw library tables: the same gap, siblings
def test_a_list_in_a_checked_model_params_raw_table_cannot_be_changed() -> None:
    # silently wrong run: CatBoost got ignored_features [2, 9], the hash changed after checks
    c = RunConfig.from_dict({"models": [CATBOOST], "seeds": [0],
                             "model_params": {CATBOOST: {"catboost": {"ignored_features": [2]}}}})
    before = c.config_hash()
    assert own_error(lambda: c.model_params[CATBOOST]["catboost"]["ignored_features"].append(9),
                     "model_params", "replace") is None
    assert c.model_params[CATBOOST]["catboost"]["ignored_features"] == [2]
    assert c.config_hash() == before


def test_raw_params_hand_out_a_copy_that_shares_nothing_with_the_params() -> None:
    # silently wrong run: raw_params() returned the Params' own list; a change reached training
    c = RunConfig.from_dict({"models": [CATBOOST], "seeds": [0],
                             "params": {"catboost": {"ignored_features": [1]}}})
    raw = c.params.raw_params("catboost")
    raw["ignored_features"].append(3)
    assert c.params.raw_params("catboost") == {"ignored_features": [1]}
    assert c.params.to_dict()["catboost"] == {"ignored_features": [1]}


# --------------------------------------------------------------- a key in the wrong table
def test_a_config_key_in_the_params_table_names_the_top_of_the_config() -> None:
    # unclear error: "unknown parameter [params] quick" listed the parameters only
    assert own_error(lambda: RunConfig.from_dict({"models": ["random"], "params": {"quick": True}}),
                     "[params] quick", "config key", "top") is None


def test_seeds_in_the_params_table_is_not_called_a_typo_of_seed() -> None:
    # unclear error: "did you mean 'seed'?" (the library seed) for the run's seeds
    with pytest.raises(ConfigError) as caught:
        RunConfig.from_dict({"models": ["random"], "params": {"seeds": [1, 2]}})
    msg = str(caught.value)
    assert "config key" in msg
    assert "seeds = [" in msg
    assert "did you mean 'seed'" not in msg


def test_an_als_key_in_the_params_table_names_the_als_table() -> None:
    # unclear error: "unknown parameter [params] factors" without the table it belongs in
    assert own_error(lambda: RunConfig.from_dict({"models": ["random"], "params": {"factors": 8}}),
                     "[params] factors", "[als]") is None


def test_a_config_key_in_a_model_params_table_names_the_top_of_the_config() -> None:
    # unclear error: the same key one table further down
    assert own_error(lambda: RunConfig.from_dict({
        "models": ["lightgbm-lambdarank"], "seeds": [0],
        "model_params": {"lightgbm-lambdarank": {"profile": "trec_eval"}}}),
        "profile", "config key") is None


def test_the_python_api_names_a_config_key_in_params_as_the_file_does() -> None:
    # unclear error: bench.benchmark.run(params={"quick": True}) (another door, same key)
    from bench.benchmark import run

    assert own_error(lambda: run("synthetic", models=["random"], params={"quick": True}),
                     "[params] quick", "config key") is None


def test_a_tune_grid_over_a_config_key_says_it_is_set_once_for_the_run() -> None:
    # unclear error: --grid seeds=0,1 was "unknown parameter --grid seeds; valid: ..." (the grid
    # door of the same key: seeds are the run's, not a parameter to search)
    from bench.benchmark.tune import parse_space

    assert own_error(lambda: parse_space("seeds=0,1"), "--grid seeds", "config key",
                     "once for the run") is None


def test_the_cli_names_a_config_key_in_the_files_params_table(tmp_path: Path) -> None:
    # unclear error: the file door, exit 2 naming the file and the key
    (tmp_path / "c.toml").write_text('models = ["random"]\n[params]\nquick = true\n',
                                     encoding="utf-8")
    res = cli(tmp_path, "run", "--config", "c.toml")
    assert refused(res, "c.toml", "[params] quick", "config key") is None


# ----------------------------------------------------------------- the factory reference
def test_a_factory_with_a_cyrillic_look_alike_names_the_code_point() -> None:
    # unclear error: "expected package.module:attribute" for what reads as a valid reference
    bad = "round22b_rankers:L\u0430yered"  # a Cyrillic a
    assert own_error(lambda: custom_model("mine", {"factory": bad}), "U+0430", "CYRILLIC") is None


def test_a_factory_with_a_trailing_space_says_white_space() -> None:
    # unclear error: the space is invisible in the message
    assert own_error(lambda: custom_model("mine", {"factory": LAYERED + " "}),
                     "white space") is None


def test_a_factory_written_as_a_file_path_says_to_name_the_module() -> None:
    # unclear error: a path to the file is the first thing a user tries
    assert own_error(lambda: custom_model("mine", {"factory": "./round22b_rankers.py:Layered"}),
                     "a file path", "round22b_rankers:Layered") is None


def test_a_factory_naming_the_module_file_with_py_says_to_drop_it() -> None:
    # unclear error: "No module named 'round22b_rankers.py'" hid the fix
    assert own_error(lambda: custom_model("mine", {"factory": "round22b_rankers.py:Layered"}),
                     "round22b_rankers:Layered") is None


# ---------------------------------------------------------------------- a metric twice
def test_a_metric_listed_twice_in_a_config_is_refused_naming_it() -> None:
    # silent accept: seeds, eval_at and models named twice are refused, as `evaluate` refuses a
    # metric named twice; a metric was dropped without a word (two columns asked, one written)
    with pytest.raises(ConfigError, match=r"metrics: metric 'map' is named twice: each name is one column; give each metric once"):
        RunConfig.from_dict({"models": ["random"], "metrics": ["map", "ndcg@10", "map"]})


def test_a_metric_list_without_repeats_is_said_nothing() -> None:
    # silent accept (guard): the note must not fire on every list
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        RunConfig.from_dict({"models": ["random"], "metrics": ["map", "ndcg@10"]})
    assert not [w for w in caught if "twice" in str(w.message)]


# ------------------------------------------------------------ the option over the file
def test_seeds_given_as_an_option_over_the_files_seeds_are_recorded_as_over_the_file(
        tmp_path: Path) -> None:
    # silent accept (guard): which wins is said in the manifest's config_file
    import argparse

    from bench.commands.run_options import add_config_arguments, config_from_args

    (tmp_path / "c.toml").write_text('models = ["random"]\nseeds = [0, 1]\n', encoding="utf-8")
    p = argparse.ArgumentParser()
    add_config_arguments(p)
    c = config_from_args(p.parse_args(["--config", str(tmp_path / "c.toml"), "--seeds", "5"]))
    assert c.seeds == (5,)
    assert c.over_file is not None
    assert c.over_file["options_over_file"]["seeds"] == {"option": "--seeds", "file": [0, 1],
                                                         "used": [5]}


# ------------------------------------------------------- a ranker kept from seed to seed
def test_a_factory_handing_every_seed_one_module_level_ranker_is_refused(splits: Any) -> None:
    # silently wrong number: seed 1 was a second fit of seed 0's object (its predict scaled by
    # its fit count: every seed-1 score twice seed 0's), and the spread over seeds measured that
    from bench.runners.custom import CustomModelFailure

    model = custom_model("mine", {"factory": "round22b_rankers:shared"})
    first = train_custom(model, splits, seed=0)
    assert first.scores["vali"][1] == pytest.approx(float(splits.vali.X[1, 0]))
    with pytest.raises(CustomModelFailure, match="same ranker object"):
        train_custom(model, splits, seed=1)
