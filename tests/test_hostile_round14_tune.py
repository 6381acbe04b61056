"""Hostile ``ltrbench tune`` / ``report --tuned`` cases, round 14 (issue 19), beyond
``tests/hostile_cases_tune.py``, ``test_hostile_tune_round7.py``, ``test_hostile_round9_tune.py``
and ``test_report_tuning_hostile.py``.

The persona: an applied scientist who wants a fair fight between LightGBM and XGBoost, first in
earnest, then as an attacker of the search-space file, ``--grid``, the budgets, ``--cv``,
``--storage`` and the tune folder ``report --tuned`` reads. Refusals run in-process with every
fit replaced by an error (:func:`hostile_cases_tune.tune`): exit 2, one ``error:`` line holding
the words, before any fit, no tune folder written.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_cases_tune import tune
from hostile_kit import refused
from tuning_fixture import make_tune_folder

LGB = ("--model", "lightgbm-lambdarank", "--budget-trials", "1")
XGB = ("--model", "xgboost-ndcg", "--budget-trials", "1")


def _nothing(tmp: Path) -> str | None:
    tune_dir = tmp / "res" / "tune"
    return "wrote a tune folder" if tune_dir.exists() and any(tune_dir.iterdir()) else None


def _space_refused(tmp: Path, text: str, *words: str, args: tuple[str, ...] = LGB) -> None:
    (tmp / "space.toml").write_text(text, encoding="utf-8")
    bad = refused(tune(tmp, *args, "--space", "space.toml"), *words)
    assert (bad or _nothing(tmp)) is None, bad or _nothing(tmp)


def _refused(tmp: Path, args: tuple[str, ...], *words: str) -> None:
    bad = refused(tune(tmp, *args), *words)
    assert (bad or _nothing(tmp)) is None, bad or _nothing(tmp)


# ------------------------------------------------------------------------- the space file
SPACES = {
    "log-range-from-exactly-zero": ("[lightgbm]\nl2 = {low = 0.0, high = 1.0, log = true}\n",
                                    ("space.toml", "l2", "log", "low > 0")),
    "float-bounds-for-an-integer-parameter": (
        "[lightgbm]\nnum_leaves = {low = 3.0, high = 7.0}\n", ("space.toml", "num_leaves", "integer")),
    "log-flag-as-a-string": ('[lightgbm]\nl2 = {low = 0.1, high = 1.0, log = "yes"}\n',
                             ("space.toml", "l2", "log", "true or false")),
    "a-bare-number-not-a-table": ("[lightgbm]\nnum_leaves = 7\n",
                                  ("space.toml", "num_leaves", "expected a table")),
    "empty-choices": ("[lightgbm]\nnum_leaves = {choices = []}\n",
                      ("space.toml", "num_leaves", "non-empty")),
    "choices-and-a-range-together": (
        "[lightgbm]\nnum_leaves = {choices = [3, 7], low = 3, high = 7}\n",
        ("space.toml", "num_leaves", "either")),
    "a-choice-of-text-for-leaves": ('[lightgbm]\nnum_leaves = {choices = [7, "many"]}\n',
                                    ("space.toml", "num_leaves")),
    "only-low-given": ("[lightgbm]\nnum_leaves = {low = 3}\n",
                       ("space.toml", "num_leaves", "high")),
    "a-misspelt-parameter": ("[lightgbm]\nnum_leaf = {low = 3, high = 7}\n",
                             ("space.toml", "num_leaf", "num_leaves")),
    "raw-key-with-an-empty-name": ('[lightgbm]\n"lightgbm." = {low = 1, high = 3}\n',
                                   ("space.toml", "lightgbm.")),
    "the-seed-as-a-parameter": ("[lightgbm]\nseed = {low = 1, high = 3}\n",
                                ("space.toml", "seed", "--seed")),
    "a-table-of-an-unknown-library": ("[lightgbm]\nnum_leaves = {low = 3, high = 7}\n"
                                      "[lightgbn]\nnum_leaves = {low = 3, high = 7}\n",
                                      ("space.toml", "lightgbn")),
    "a-toml-syntax-error": ("[lightgbm]\nnum_leaves = {low = 3, high = }\n",
                            ("space.toml", "line 2")),
    "an-empty-library-table": ("[lightgbm]\n", ("space.toml", "lightgbm", "empty")),
    "a-rate-above-one": ("[lightgbm]\nsubsample = {low = 0.5, high = 1.5}\n",
                         ("space.toml", "subsample")),
    "a-choice-of-zero-leaves": ("[lightgbm]\nnum_leaves = {choices = [0, 7]}\n",
                                ("space.toml", "num_leaves")),
}


@pytest.mark.parametrize("name", list(SPACES))
def test_a_bad_space_file_is_refused_before_any_fit(name: str, tmp_path: Path) -> None:
    text, words = SPACES[name]
    _space_refused(tmp_path, text, *words)


def test_a_raw_key_that_is_a_mapped_parameter_is_refused(tmp_path: Path) -> None:
    """``lightgbm.num_leaves`` beside ltrbench's own ``num_leaves`` mapping: two names for
    one library key, which one the trial trains is a coin toss."""
    _space_refused(tmp_path, '[lightgbm]\n"lightgbm.num_leaves" = {low = 3, high = 7}\n',
                   "lightgbm.num_leaves", "num_leaves")


def test_a_raw_objective_in_the_space_is_refused(tmp_path: Path) -> None:
    """The objective is the model's name (ltrbench owns it): searching it would tune another
    model under this one's name."""
    _space_refused(tmp_path, '[lightgbm]\n"lightgbm.objective" = {choices = ["regression", '
                   '"lambdarank"]}\n', "lightgbm.objective")


def test_an_xgboost_raw_key_of_lightgbms_spelling_is_refused(tmp_path: Path) -> None:
    _space_refused(tmp_path, '[xgboost]\n"lightgbm.lambdarank_truncation_level" = '
                   '{low = 4, high = 8}\n', "space.toml", "xgboost.<key>", args=XGB)


# ------------------------------------------------------------------------- --grid spellings
GRIDS = {
    "no-equals-sign": ("num_leaves", ("--grid", "num_leaves")),
    "no-name": ("=3,7", ("--grid",)),
    "non-integer-leaves": ("num_leaves=3.5", ("num_leaves",)),
    "text-rate": ("learning_rate=fast", ("learning_rate",)),
    "unknown-name": ("num_leaf=3,7", ("num_leaf", "num_leaves")),
    "the-seed": ("seed=1,2", ("seed", "--seed")),
}


@pytest.mark.parametrize("name", list(GRIDS))
def test_a_bad_grid_is_refused_before_any_fit(name: str, tmp_path: Path) -> None:
    grid, words = GRIDS[name]
    _refused(tmp_path, ("--model", "lightgbm-lambdarank", "--grid", grid), *words)


def test_a_grid_and_a_space_file_together_are_refused(tmp_path: Path) -> None:
    (tmp_path / "space.toml").write_text("[lightgbm]\nnum_leaves = {low = 3, high = 7}\n")
    _refused(tmp_path, ("--model", "lightgbm-lambdarank", "--grid", "num_leaves=3,7",
                        "--space", "space.toml"), "--grid", "--space")


# ------------------------------------------------------------------------- budgets and folds
@pytest.mark.parametrize(("args", "words"), [
    (("--budget-cpu-s", "-5"), ("--budget-cpu-s",)),
    (("--budget-cpu-s", "inf"), ("--budget-cpu-s",)),
    (("--budget-cpu-s", "nan"), ("--budget-cpu-s",)),
    (("--budget-trials", "1e3"), ("--budget-trials",)),
    (("--budget-trials", "0x10"), ("--budget-trials",)),
    (("--budget-trials", ""), ("--budget-trials",)),
    (("--budget-trials", "1", "--cv", "0"), ("--cv",)),
    (("--budget-trials", "1", "--cv", "-3"), ("--cv",)),
    (("--budget-trials", "1", "--cv", "2.5"), ("--cv",)),
], ids=["cpu-negative", "cpu-inf", "cpu-nan", "trials-1e3", "trials-hex", "trials-empty",
        "cv-zero", "cv-negative", "cv-fraction"])
def test_a_bad_budget_or_fold_count_is_refused(args: tuple[str, ...], words: tuple[str, ...],
                                              tmp_path: Path) -> None:
    _refused(tmp_path, ("--model", "lightgbm-lambdarank", *args), *words)


# ------------------------------------------------------------------------- --storage
def test_a_storage_inside_the_dataset_folder_is_refused(tmp_path: Path) -> None:
    """The study database is an output: inside the dataset folder it would be written among
    the splits (the rule every writing command keeps for its outputs)."""
    from hostile_kit import letor_folder
    letor_folder(tmp_path / "letor")
    before = sorted(p.name for p in (tmp_path / "letor").iterdir())
    _refused(tmp_path, (*LGB, "--storage", "sqlite:///letor/study.db"), "--storage", "letor")
    assert sorted(p.name for p in (tmp_path / "letor").iterdir()) == before


def test_an_empty_file_as_storage_is_refused_and_left_empty(tmp_path: Path) -> None:
    """SQLite takes a 0-byte file for a new database and writes into it: a user's empty
    file (here ``notes.txt``) is not a study database."""
    (tmp_path / "notes.txt").write_bytes(b"")
    _refused(tmp_path, (*LGB, "--storage", "sqlite:///notes.txt"), "--storage", "notes.txt")
    assert (tmp_path / "notes.txt").read_bytes() == b""


@pytest.mark.parametrize("url", ["sqlite:///s.db?mode=ro", "sqlite:///file:s.db?mode=ro&uri=true"])
def test_a_storage_url_with_query_arguments_is_refused(url: str, tmp_path: Path) -> None:
    """SQLAlchemy drops ``?mode=ro`` with a warning and the tune writes the file it was told to
    open read-only."""
    _refused(tmp_path, (*LGB, "--storage", url), "--storage", "mode")
    assert not (tmp_path / "s.db").exists()


def test_a_budget_of_cpu_seconds_beyond_a_float_is_refused(tmp_path: Path) -> None:
    _refused(tmp_path, ("--model", "lightgbm-lambdarank", "--budget-cpu-s", "1e400"),
             "--budget-cpu-s", "finite")


# ------------------------------------------------------------------------- report --tuned
def _read_refused(folder: Path, pattern: str) -> None:
    from bench.errors import DataError
    from bench.report.tuning import read_tune_dir
    with pytest.raises(DataError, match=pattern):
        read_tune_dir(folder)


def test_a_summary_json_that_is_a_list_is_named(tmp_path: Path) -> None:
    folder = make_tune_folder(tmp_path / "t", ("xgboost-ndcg",), n_trials=2)
    (folder / "summary.json").write_text(json.dumps([1, 2]), encoding="utf-8")
    _read_refused(folder, r"summary\.json")


def test_an_empty_study_db_is_refused_and_left_alone(tmp_path: Path) -> None:
    from bench.errors import DataError
    from bench.report.tuning import param_importances, read_tune_dir
    folder = make_tune_folder(tmp_path / "t", ("xgboost-ndcg",), n_trials=6)
    (folder / "study.db").write_bytes(b"")
    with pytest.raises(DataError, match=r"study\.db"):
        param_importances(read_tune_dir(folder))
    assert (folder / "study.db").read_bytes() == b""


# ------------------------------------------------------------------------- a fair clock
def _instant_library(_library: str) -> object:
    """A GBDT library whose fit and predict cost nothing (the clock of a trial is then only
    what ltrbench adds)."""
    import types

    import numpy as np

    def fit(train: object, held: object, params: object, **_k: object) -> object:
        return None, {}, types.SimpleNamespace(best_iteration=1)

    def predict(_booster: object, held: object, _best: int, _params: object) -> object:
        return np.arange(held.n_rows, dtype=np.float64)  # type: ignore[attr-defined]

    return types.SimpleNamespace(fit=fit, predict=predict)


@pytest.fixture(scope="module")
def instant_tune(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``tune --models lightgbm-lambdarank,xgboost-ndcg --budget-trials 1`` over an instant
    library whose evaluator's first call in the process burns 0.6 CPU s (a JIT compile)."""
    import time

    import bench.benchmark.study as study_mod

    tmp = tmp_path_factory.mktemp("instant")
    real = study_mod.reference_value
    first = [True]

    def slow_first(*args: object, **kwargs: object) -> float:
        if first[0]:
            first[0] = False
            end = time.process_time() + 0.6
            while time.process_time() < end:
                pass
        return real(*args, **kwargs)  # type: ignore[arg-type]

    mp = pytest.MonkeyPatch()
    mp.setattr(study_mod, "library_module", _instant_library)
    mp.setattr(study_mod, "reference_value", slow_first)
    try:
        res = tune(tmp, "--models", "lightgbm-lambdarank,xgboost-ndcg", "--budget-trials", "1",
                   fit=True)
    finally:
        mp.undo()
    assert res.status == 0, res.err[-500:]
    return tmp


def test_the_processes_first_call_costs_are_charged_to_no_models_trial(instant_tune: Path) -> None:
    """Same budget for every model: the evaluator's first call (numba compiling, 19 CPU s on a
    cold cache) was charged to the first model's first trial, so under ``--budget-cpu-s`` the
    model named first got fewer trials."""
    import pandas as pd

    (folder,) = (instant_tune / "res" / "tune").iterdir()
    frame = pd.read_csv(folder / "trials.csv")
    assert len(frame) == 2
    assert (frame["cpu_s"] < 0.5).all(), frame[["model", "cpu_s"]]


@pytest.mark.parametrize(("args", "key"), [(("--cv", "3"), "cv"), (("--pruner", "none"), "pruner"),
                                           (("--use", "train+vali"), "use")])
def test_a_resume_with_other_folds_or_pruner_is_refused(instant_tune: Path, tmp_path: Path,
                                                         args: tuple[str, ...], key: str) -> None:
    import shutil

    for name in ("letor", "res"):
        shutil.copytree(instant_tune / name, tmp_path / name)
    (folder,) = (tmp_path / "res" / "tune").iterdir()
    (folder / "complete").unlink()
    before = (folder / "trials.csv").read_bytes()
    res = tune(tmp_path, "--models", "lightgbm-lambdarank,xgboost-ndcg", "--budget-trials", "1",
               *args, "--resume")
    bad = refused(res, "--resume", key, "differs")
    assert bad is None, bad
    assert (folder / "trials.csv").read_bytes() == before
