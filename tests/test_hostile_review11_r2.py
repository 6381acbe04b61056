"""Review of round 11/11b (runners and benchmark): hostile cases for surfaces that had none.

- **the seed-free table** (``Objective.seed_free``): the note "every seed trains the same
  model" rests on it; each objective it names is checked against the library itself (seeds 0
  and 1 give predictions equal to the bit without row or feature sampling), not only the two
  the round's test probed;
- **the note's conditions**: a per-model override that samples, or a raw table of the library,
  takes that model out of the note (and only that model); seeds written as a range count;
- **``at_bounds``** (tune's summary): a range of one value, a value that is not a number, NaN,
  a negative range, a value outside the range, and a ``--grid`` (its values are choices: no
  end to be at) say nothing and raise nothing;
- **objective-level ignores**: ``default_space`` of an objective drops what it does not read,
  the library's space stays whole; ``refuse_ignored`` without an objective is the library's
  list only;
- **an empty item in a comma list**: white space between commas is as empty as nothing; a text
  of separators only is left to the caller;
- **RunResult.timings**: a copy, as ``metrics`` (a user's change does not reach a later read).
"""

from __future__ import annotations

import json
import sys
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_cases_tune import tune
from hostile_kit import cli, letor_folder, refused

from bench.benchmark.config import RunConfig
from bench.errors import ConfigError
from bench.runners.libraries import LIBRARIES
from bench.runners.params import Params
from bench.runners.search_dimension import Dimension

FIXED = Params(n_trees=5, num_leaves=7, min_data_in_leaf=2, subsample=1.0, colsample=1.0,
               early_stopping_rounds=50, n_threads=1)

SEED_FREE = [f"{lib.name}-{o.name}" for lib in LIBRARIES.values() for o in lib.objectives
             if o.seed_free]


@pytest.fixture(scope="module")
def splits(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from bench.datasets.resolve import load_dataset

    folder = letor_folder(tmp_path_factory.mktemp("r2") / "letor")
    return load_dataset(str(folder), cache=False)


def _predictions(model: str, params: Params, splits: Any) -> np.ndarray:
    from bench.runners.gbdt import library_module

    library, objective = model.split("-", 1)
    mod = library_module(library)
    booster, lib_params, _ = mod.fit(splits.train, splits.vali, params, objective=objective)
    out: np.ndarray = mod.predict(booster, splits.vali, params.n_trees, lib_params)
    return out


def test_the_seed_free_table_is_not_empty() -> None:
    assert {"lightgbm-lambdarank", "xgboost-ndcg"} <= set(SEED_FREE), SEED_FREE


@pytest.mark.parametrize("model", SEED_FREE)
def test_every_seed_free_objective_trains_one_model_for_two_seeds(model: str,
                                                                  splits: Any) -> None:
    """The library's own predictions for seeds 0 and 1, equal to the bit: what the note says."""
    a = _predictions(model, replace(FIXED, seed=0), splits)
    b = _predictions(model, replace(FIXED, seed=1), splits)
    assert np.array_equal(a, b), model


def _seed_notes(doc: dict[str, Any]) -> list[str]:
    config = RunConfig.from_dict(doc)
    return [s for s in config.unused() if s.startswith("seeds")]


def test_a_per_model_override_that_samples_takes_only_that_model_out() -> None:
    said = _seed_notes({"models": ["lightgbm-lambdarank", "xgboost-ndcg"], "seeds": [0, 1],
                        "params": {"subsample": 1.0, "colsample": 1.0},
                        "model_params": {"xgboost-ndcg": {"colsample": 0.5}}})
    assert len(said) == 1, said
    assert "lightgbm-lambdarank trains the same model" in said[0], said
    assert "xgboost" not in said[0], said


def test_a_raw_table_takes_only_its_library_out() -> None:
    said = _seed_notes({"models": ["lightgbm-lambdarank", "xgboost-ndcg"], "seeds": "0-2",
                        "params": {"subsample": 1.0, "colsample": 1.0,
                                   "lightgbm": {"extra_trees": True}}})
    assert len(said) == 1, said
    assert said[0].startswith("seeds = [0, 1, 2]: xgboost-ndcg trains the same model"), said


def test_baselines_and_sampling_objectives_are_never_named() -> None:
    said = _seed_notes({"models": ["random", "popularity", "lightgbm-xendcg",
                                   "catboost-yetirank"], "seeds": [0, 1],
                        "params": {"subsample": 1.0, "colsample": 1.0}})
    assert said == []


def test_quick_mode_keeps_the_note() -> None:
    said = _seed_notes({"models": ["lightgbm-regression"], "seeds": [0, 1], "quick": True,
                        "params": {"subsample": 1.0, "colsample": 1.0}})
    assert len(said) == 1, said
    assert "lightgbm-regression trains" in said[0], said


# ------------------------------------------------------------------------ tune's at_bounds
@pytest.mark.parametrize(("dim", "value"), [
    (Dimension("num_leaves", "int", 7, 7), 7),  # a range of one value: no end to be at
    (Dimension("learning_rate", "float", 0.1, 0.1, log=True), 0.1),
    (Dimension("learning_rate", "float", 0.01, 0.3, log=True), float("nan")),
    (Dimension("learning_rate", "float", 0.01, 0.3), "0.3"),  # not a number
    (Dimension("learning_rate", "float", 0.01, 0.3), None),
    (Dimension("label_gain", "categorical", choices=(1, 2)), 2),  # choices: no ends
], ids=["int-one-value", "log-one-value", "nan", "text", "none", "categorical"])
def test_bound_notes_say_nothing_where_there_is_no_end(dim: Dimension, value: Any) -> None:
    from bench.benchmark.tune_checks import bound_notes

    assert bound_notes({dim.name: value}, (dim,)) == []


def test_bound_notes_on_a_negative_range_and_outside_it() -> None:
    from bench.benchmark.tune_checks import bound_notes

    dim = Dimension("x", "float", -2.0, -1.0)
    assert "lower end" in bound_notes({"x": -2.0}, (dim,))[0]
    assert "upper end" in bound_notes({"x": -1.0}, (dim,))[0]
    assert bound_notes({"x": -1.5}, (dim,)) == []
    assert "upper end" in bound_notes({"x": 5.0}, (dim,))[0]  # beyond: still said
    assert "lower end" in bound_notes({"x": -9}, (Dimension("x", "int", -3, 3),))[0]
    assert bound_notes({"other": 1.0}, (dim,)) == []  # a key of another space


def test_a_grid_tune_records_no_bounds(tmp_path: Path) -> None:
    """``--grid`` values are choices: ``at_bounds`` is recorded, empty (the best of a grid is
    the best of the values written, none of them an end of a range)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = tune(tmp_path, "--model", "lightgbm", "--grid", "num_leaves=2,3", fit=True)
    assert res.status == 0, res.err
    summary = json.loads(next((tmp_path / "res" / "tune").glob("*/summary.json")).read_text())
    assert summary["models"]["lightgbm-lambdarank"]["at_bounds"] == []
    assert "end of its range" not in res.out


# ------------------------------------------------------------------ objective-level ignores
def test_default_space_drops_what_the_objective_does_not_read() -> None:
    from bench.benchmark.search_space import SPACES, default_space

    whole = {d.name for d in default_space("lightgbm")}
    assert whole == {d.name for d in SPACES["lightgbm"]}
    xendcg = {d.name for d in default_space("lightgbm", "xendcg")}
    assert xendcg == whole - set(LIBRARIES["lightgbm"].ignored("xendcg")), xendcg
    assert "truncation_level" not in xendcg
    assert {d.name for d in default_space("lightgbm", "lambdarank")} == whole
    assert {d.name for d in default_space("lightgbm", "no-such-objective")} == whole


def test_refuse_ignored_without_an_objective_is_the_library_list_only() -> None:
    from bench.runners.raw_keys import refuse_ignored

    refuse_ignored("lightgbm", ["truncation_level"])  # lambdarank reads it: no objective, no refusal
    with pytest.raises(ConfigError, match="truncation_level"):
        refuse_ignored("lightgbm", ["truncation_level"], "", "xendcg")
    with pytest.raises(ConfigError, match="lambdarank_norm"):
        refuse_ignored("catboost", ["lambdarank_norm"], "", "yetirank")
    refuse_ignored("catboost", ["lambdarank_norm"], "", "lambdamart")


def test_unused_shared_counts_a_key_unused_only_when_no_model_reads_it() -> None:
    from bench.runners.raw_keys import unused_shared

    both = [("lightgbm", "xendcg"), ("lightgbm", "lambdarank")]
    assert unused_shared(["truncation_level"], both) == []
    said = unused_shared(["truncation_level"], [("lightgbm", "xendcg"), ("xgboost", "regression")])
    assert len(said) == 1, said
    assert "[params] truncation_level: not used by this run's models" in said[0], said
    assert unused_shared(["truncation_level"], []) == []  # no GBDT model: nothing to say
    assert unused_shared(["truncation_level"], [("random", "")]) == []


# -------------------------------------------------------------- an empty item in a comma list
@pytest.mark.parametrize("text", ["lightgbm, ,random", "lightgbm,\t,random", " ,lightgbm",
                                  "lightgbm,  "])
def test_white_space_between_commas_is_an_empty_item(text: str) -> None:
    from bench.runners.registry import expand_models

    with pytest.raises(ConfigError, match="empty model name"):
        expand_models(text)


@pytest.mark.parametrize("text", [",", " , ", ",,,"])
def test_separators_only_are_left_to_the_caller(text: str) -> None:
    from bench.errors import refuse_empty_items
    from bench.runners.registry import expand_models

    refuse_empty_items(text.split(","), text, "model name")  # no item at all: not "an empty item"
    with pytest.raises(ConfigError, match="no models given"):
        expand_models(text)


def test_seed_text_with_white_space_between_commas_is_refused() -> None:
    from bench.benchmark.config_schema import parse_seeds

    with pytest.raises(ConfigError, match="seeds: empty seed in '1, ,2'"):
        parse_seeds("1, ,2")
    assert parse_seeds(" 1 , 2 ") == (1, 2)


# ---------------------------------------------------------------------- RunResult.timings
def test_timings_is_a_copy(tmp_path: Path) -> None:
    from bench.benchmark.api import RunResult

    run_dir = tmp_path / "runs" / "r"
    run_dir.mkdir(parents=True)
    (run_dir / "manifest.json").write_text("{}")
    (run_dir / "timings.csv").write_text("model,seed,fit_s\nlightgbm-lambdarank,0,1.5\n")
    result = RunResult(run_dir)
    first = result.timings
    first["fit_s"] = 0.0
    assert result.timings["fit_s"].tolist() == [1.5]
    assert result.timings is not result.timings


# ------------------------------------------- one rule for an empty item of every comma list


def _doors() -> dict[str, Any]:
    from bench.benchmark.config_schema import parse_seeds
    from bench.benchmark.tune import parse_space
    from bench.metrics.names import parse_metrics
    from bench.runners.registry import expand_models

    return {"metric name": parse_metrics, "model name": expand_models, "seed": parse_seeds,
            "value": lambda text: parse_space(f"num_leaves={text}")}


@pytest.mark.parametrize(("noun", "text", "place"), [
    ("metric name", "ndcg@10,,map", "two commas with nothing between them, after 'ndcg@10'"),
    ("model name", "lightgbm, ,random", "two commas with nothing between them, after 'lightgbm'"),
    ("seed", "1,2,", "a comma at the end, after '2'"),
    ("value", ",3,7", "a comma at the start"),
])
def test_every_comma_list_refuses_an_empty_item_in_one_wording(noun: str, text: str,
                                                               place: str) -> None:
    with pytest.raises(ConfigError) as info:
        _doors()[noun](text)
    message = str(info.value)
    assert f"empty {noun} in {text!r}: {place}; remove the extra comma" in message, message


@pytest.mark.parametrize("text", [",", " , ", " "])
def test_a_grid_of_separators_only_is_refused_not_read_as_empty_values(text: str) -> None:
    from bench.benchmark.tune import parse_space

    with pytest.raises(ConfigError, match="num_leaves"):
        parse_space(f"num_leaves={text}")


@pytest.mark.parametrize("tools", [",", " , ", "ranx, ,sklearn"])
def test_crosscheck_tools_of_separators_only_are_refused(tmp_path: Path, tools: str) -> None:
    q, r = tmp_path / "q.txt", tmp_path / "r.txt"
    q.write_text("1 0 a 1\n")
    r.write_text("1 Q0 a 1 1.0 t\n")
    res = cli(tmp_path, "crosscheck", "--evaluators", "--qrels", str(q), "--trec-run", str(r),
              "--tools", tools, "--out", str(tmp_path / "out"))
    assert refused(res, "--tools: empty name") is None, res.err
    assert not (tmp_path / "out").exists()
