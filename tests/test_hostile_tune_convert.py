"""The hostile catalogue of ``ltrbench tune`` and ``ltrbench convert`` (issue 19): each case of
``tests/hostile_cases_tune.py`` and ``tests/hostile_cases_convert.py`` must behave (a clear
error naming the option and what was expected, no traceback, no silent accept, no input
destroyed, no silently wrong number), plus the unit tests of the fixes behind them.

Counts on the code before the fixes (commit ee25349) and after are in the session's report;
``python -m pytest tests/test_hostile_tune_convert.py -k catalogue -rA`` lists every case.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import hostile_cases_convert  # noqa: F401 - its cases join CASES
import pytest
from hostile_cases_tune import CASES

from bench.adapters.config import INT_MAX, AdapterConfig
from bench.benchmark.tune import parse_space
from bench.benchmark.tune_out import reserve_folder
from bench.errors import ConfigError


@pytest.mark.parametrize(("klass", "fn"), CASES, ids=[fn.__name__ for _, fn in CASES])
def test_catalogue(klass: str, fn: Any, tmp_path: Path) -> None:
    bad = fn(tmp_path)
    assert bad is None, f"[{klass}] {fn.__name__}: {bad}"


def test_the_catalogue_covers_tune_and_convert_in_every_class() -> None:
    names = [fn.__name__ for _, fn in CASES]
    assert len(names) == len(set(names))
    assert sum(n.startswith("tune_") for n in names) >= 20
    assert sum(n.startswith("convert_") for n in names) >= 30
    assert {k for k, _ in CASES} == {"silent accepts", "tracebacks", "unclear errors",
                                     "inputs destroyed", "silently wrong numbers"}


# ------------------------------------------------------------------------------ tune: the grid
def test_a_grid_is_read_once_per_name_and_value() -> None:
    assert parse_space(" num_leaves = 3 , 7 ; learning_rate=0.1 ;") == {
        "num_leaves": [3, 7], "learning_rate": [0.1]}
    for text, said in [("num_leaves=3;num_leaves=3", "twice"), ("num_leaves=3, ,7", "empty"),
                       ("learning_rate=0.1,0.10", "repeats"), ("learning_rate=1,1.0", "repeats")]:
        with pytest.raises(ConfigError, match=said):
            parse_space(text)


# ------------------------------------------------------------------------------ tune: the folder
def test_two_tunes_of_one_name_get_two_folders(tmp_path: Path) -> None:
    first = reserve_folder(tmp_path, "d-T")
    (first / "plan.json").write_text("{}")
    second = reserve_folder(tmp_path, "d-T")
    assert (first.name, second.name) == ("d-T", "d-T-2")
    assert (first / "plan.json").read_text() == "{}"  # the first one untouched
    assert list(second.iterdir()) == []


# ------------------------------------------------------------------------------ convert: config
@pytest.mark.parametrize(("kw", "said"), [
    ({"seed": -1}, "seed=-1"), ({"seed": INT_MAX + 1}, "2147483647"), ({"seed": True}, "seed"),
    ({"negatives": 1.5}, "negatives"), ({"feature_groups": ()}, "no feature group"),
    ({"binary_threshold": float("nan"), "labels": "binary"}, "finite"),
    ({"bayes_prior": float("inf")}, "bayes_prior"), ({"target_size": 2**31}, "target_size"),
    ({"target_size": True}, "target_size"), ({"time_cuts": (1, 2, 3)}, "time-cut"),
    ({"n_folds": 4}, "kfold"), ({"binary_threshold": 3.0}, "labels='binary'"),
    ({"split": "time-cut", "target_size": 2}, "time-cut"),
])
def test_an_adapter_setting_out_of_range_or_ignored_is_refused(kw: dict[str, Any],
                                                               said: str) -> None:
    with pytest.raises(ConfigError, match=said.replace("(", r"\(")):
        AdapterConfig(**kw)


def test_settings_that_apply_are_accepted() -> None:
    assert AdapterConfig(seed=INT_MAX).seed == 2**31 - 1
    assert AdapterConfig(labels="binary", binary_threshold=3.0).binary_threshold == 3.0
    assert AdapterConfig(split="time-cut", time_cuts=(1, 2, 3)).time_cuts == (1, 2, 3)
    assert AdapterConfig(split="kfold", n_folds=4, fold=3).fold == 3
    assert AdapterConfig(split="time-cut", target_size=5).target_size == 5  # the default


def test_no_negative_pair_of_a_user_recurs_in_another_partition(tmp_path: Path) -> None:
    """Negatives are dealt from one pool per user (bench/adapters/negatives.py): before, a
    never-rated item could be a label-0 candidate of the same user in train and in test, with
    the same history features (ml-latest-small, temporal: 170 of 30,500 test negatives)."""
    import pandas as pd
    from hostile_cases_tune import convert

    res = convert(tmp_path, "--negatives", "10")  # 30 items, 12 rated: 18 unrated per user
    assert res.status == 0, res.err
    parts = {s: pd.read_parquet(tmp_path / "cv" / f"{s}.parquet")
             for s in ("train", "vali", "test")}
    pairs = [set(zip(f.user[f.label == 0], f.item[f.label == 0], strict=True))
             for f in parts.values()]
    assert all(pairs)
    for a, b in itertools.combinations(pairs, 2):
        assert not a & b
