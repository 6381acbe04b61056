"""Hostile inputs of the tuning report (bench/report/tuning*.py, ``report --tuned``, reproduce of
a tuned leaderboard): each is a clear error naming the file, row, column or key (the command
line: exit 2, one line), never a traceback and never a silently wrong table or figure.

Before this work none of these inputs had a reader at all (``report --tuned`` did not exist:
every case failed); after it, every case is refused with its own message."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
from test_reproduce import CONFIG, SPLITS, _part
from tuning_fixture import make_runs, make_tune_folder, tuned_config

from bench import cli
from bench.benchmark.pipeline import run_benchmark
from bench.benchmark.reproduce import reproduce_leaderboard
from bench.data.letor import LetorSplits
from bench.errors import ConfigError, DataError, LtrbenchError
from bench.report.tuning import param_importances, read_tune_dir
from bench.report.tuning_report import tuned_document

MODELS = ("lightgbm-lambdarank", "xgboost-ndcg")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The default and tuned runs and their tune folder, plus a tuned run on other test
    queries and one with other seeds."""
    out = tmp_path_factory.mktemp("hostile")
    default, tuned, folder = make_runs(out, MODELS)
    other = LetorSplits(name="tiny", train=SPLITS.train, vali=SPLITS.vali,
                        test=_part(10, 8, 4))
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    other_splits = run_benchmark(tuned_config(MODELS), out_dir=elsewhere, progress=False,
                                 loader=lambda spec, data_dir=None: other)
    seeds = run_benchmark(replace(tuned_config(MODELS), seeds=(0, 5)),  # type: ignore[type-var]
                          out_dir=elsewhere, progress=False,
                          loader=lambda spec, data_dir=None: SPLITS)
    return {"out": out, "default": default, "tuned": tuned, "tune": folder,
            "other_splits": other_splits, "other_seeds": seeds}


def _copy(folder: Path, tmp: Path) -> Path:
    dest = tmp / "tune"
    shutil.copytree(folder, dest)
    return dest


def _edit_trials(tmp: Path, edit: Callable[[pd.DataFrame], pd.DataFrame]) -> Path:
    folder = make_tune_folder(tmp / "t", ("xgboost-ndcg",), n_trials=6)
    frame = pd.read_csv(folder / "trials.csv")
    edit(frame).to_csv(folder / "trials.csv", index=False)
    return folder


# ---------------------------------------------------------------------------------------------
# The trials table
# ---------------------------------------------------------------------------------------------

TRIALS_CASES: dict[str, tuple[Callable[[pd.DataFrame], pd.DataFrame], str]] = {
    "missing column": (lambda f: f.drop(columns=["cum_cpu_s"]), "cum_cpu_s"),
    "two missing columns": (lambda f: f.drop(columns=["state", "params"]), "state, params"),
    "NaN best (a COMPLETE trial without a value)": (
        lambda f: f.assign(value=f["value"].where(f["state"] != "COMPLETE")),
        "COMPLETE trial without a finite value"),
    "infinite value": (lambda f: f.assign(value=f["value"].where(f["trial"] != 0, float("inf"))),
                       "COMPLETE trial without a finite value"),
    "state Optuna does not write at the end": (
        lambda f: f.assign(state=f["state"].where(f["trial"] != 2, "RUNNING")), "RUNNING"),
    "lower-case state": (lambda f: f.assign(state=f["state"].str.lower()), "complete"),
    "best_so_far edited by hand": (
        lambda f: f.assign(best_so_far=f["best_so_far"] + (f["trial"] == 4) * 0.5),
        "not the running maximum"),
    "best_so_far of a pruned-only prefix": (
        lambda f: f.assign(state=f["state"].where(f["trial"] != 0, "PRUNED"),
                           value=f["value"].where(f["trial"] != 0)),
        "not the running maximum"),
    "a value that is not a number": (
        lambda f: f.assign(cpu_s=f["cpu_s"].astype(object).where(f["trial"] != 1, "fast")),
        "'fast' is not a number"),
    "no trials": (lambda f: f.iloc[0:0], "no trials"),
}


@pytest.mark.parametrize("case", list(TRIALS_CASES))
def test_a_bad_trials_table_is_refused_naming_what(case: str, tmp_path: Path) -> None:
    edit, said = TRIALS_CASES[case]
    folder = _edit_trials(tmp_path, edit)
    with pytest.raises(DataError, match=r"trials\.csv") as err:
        read_tune_dir(folder)
    assert said in str(err.value)


def test_a_missing_trials_table_is_named(tmp_path: Path) -> None:
    folder = make_tune_folder(tmp_path / "t", ("xgboost-ndcg",), n_trials=2)
    (folder / "trials.csv").unlink()
    with pytest.raises(DataError, match=r"trials\.csv.*not found"):
        read_tune_dir(folder)


def test_a_tune_folder_that_is_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(DataError, match="not a folder"):
        read_tune_dir(tmp_path / "f")


def test_a_summary_that_is_not_json_is_named(tmp_path: Path) -> None:
    folder = make_tune_folder(tmp_path / "t", ("xgboost-ndcg",), n_trials=2)
    (folder / "summary.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(DataError, match=r"summary\.json"):
        read_tune_dir(folder)


# ---------------------------------------------------------------------------------------------
# The study database
# ---------------------------------------------------------------------------------------------


def test_a_study_db_that_is_not_sqlite_is_refused(tmp_path: Path) -> None:
    folder = make_tune_folder(tmp_path / "t", ("xgboost-ndcg",), n_trials=6)
    (folder / "study.db").write_text("model,trial\nx,1\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"study.db.*not an SQLite database"):
        param_importances(read_tune_dir(folder))


def test_an_sqlite_file_that_is_not_optunas_is_refused_and_left_alone(tmp_path: Path) -> None:
    folder = make_tune_folder(tmp_path / "t", ("xgboost-ndcg",), n_trials=6)
    (folder / "study.db").unlink()
    with sqlite3.connect(folder / "study.db") as conn:
        conn.execute("CREATE TABLE t (x INTEGER)")
    before = (folder / "study.db").read_bytes()
    with pytest.raises(DataError, match=r"study.db.*not an Optuna storage"):
        param_importances(read_tune_dir(folder))
    assert (folder / "study.db").read_bytes() == before


def test_a_missing_study_db_is_named(tmp_path: Path) -> None:
    folder = make_tune_folder(tmp_path / "t", ("xgboost-ndcg",), n_trials=6)
    (folder / "study.db").unlink()
    with pytest.raises(DataError, match=r"study.db.*not found"):
        param_importances(read_tune_dir(folder))


def test_a_model_without_its_study_is_a_note(tmp_path: Path) -> None:
    folder = make_tune_folder(tmp_path / "t", ("xgboost-ndcg",), n_trials=6)
    with sqlite3.connect(folder / "study.db") as conn:
        conn.execute("UPDATE studies SET study_name = 'synthetic:other'")
    got = param_importances(read_tune_dir(folder))
    assert got["xgboost-ndcg"] == "no study named '<dataset>:xgboost-ndcg' in study.db"


# ---------------------------------------------------------------------------------------------
# The pair of runs
# ---------------------------------------------------------------------------------------------


def test_a_best_toml_of_another_dataset_is_refused(world: dict[str, Path], tmp_path: Path) -> None:
    tune = _copy(world["tune"], tmp_path)
    text = (tune / "best.toml").read_text(encoding="utf-8")
    (tune / "best.toml").write_text(text.replace('dataset = "tiny"', 'dataset = "ohsumed"', 1),
                                    encoding="utf-8")
    with pytest.raises(ConfigError, match=r"best\.toml is of dataset 'ohsumed'"):
        tuned_document(tune, [world["default"], world["tuned"]], world["out"])


def test_a_tuned_run_on_other_splits_is_refused(world: dict[str, Path]) -> None:
    with pytest.raises(DataError, match=r"other splits.*same queries"):
        tuned_document(world["tune"], [world["default"], world["other_splits"]], world["out"])


def test_other_test_queries_are_refused_without_a_manifest(world: dict[str, Path],
                                                          tmp_path: Path) -> None:
    run = tmp_path / world["other_splits"].name
    shutil.copytree(world["other_splits"], run)
    (run / "manifest.json").unlink()
    with pytest.raises(DataError, match="other test queries"):
        tuned_document(world["tune"], [world["default"], run], world["out"])


def test_a_tuned_run_with_other_seeds_is_refused(world: dict[str, Path]) -> None:
    with pytest.raises(DataError, match="seeds"):
        tuned_document(world["tune"], [world["default"], world["other_seeds"]], world["out"])


def test_two_runs_of_the_defaults_are_refused(world: dict[str, Path]) -> None:
    with pytest.raises(ConfigError, match="names one run twice"):  # the same folder twice
        tuned_document(world["tune"], [world["default"], world["default"]], world["out"])


def test_the_tuned_run_given_twice_is_refused(world: dict[str, Path]) -> None:
    with pytest.raises(ConfigError, match="names one run twice"):
        tuned_document(world["tune"], [world["tuned"], world["tuned"]], world["out"])


def test_a_tuned_run_with_params_other_than_best_toml_is_refused(world: dict[str, Path],
                                                                tmp_path: Path) -> None:
    tune = _copy(world["tune"], tmp_path)
    text = (tune / "best.toml").read_text(encoding="utf-8")
    (tune / "best.toml").write_text(text.replace("num_leaves = 7", "num_leaves = 9"),
                                    encoding="utf-8")
    with pytest.raises(ConfigError, match=r"best\.toml's \[model_params\]"):
        tuned_document(tune, [world["default"], world["tuned"]], world["out"])


def test_a_missing_best_toml_is_named(world: dict[str, Path], tmp_path: Path) -> None:
    tune = _copy(world["tune"], tmp_path)
    (tune / "best.toml").unlink()
    with pytest.raises(ConfigError, match=r"best\.toml: not found"):
        tuned_document(tune, [world["default"], world["tuned"]], world["out"])


@pytest.mark.parametrize("argv", [
    ["--runs", "{default}"],
    ["--runs", "{default}", "{tuned}", "{default}"],
    ["--runs", "{default}", "{tuned}", "--all"],
    ["--runs", "{default}", "{other_splits}"],
])
def test_the_command_line_says_one_line_and_exits_2(world: dict[str, Path], argv: list[str],
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    args = [a.format(**{k: str(v) for k, v in world.items()}) for a in argv]
    status = cli.main(["report", "--tuned", str(world["tune"]), "--out", str(world["out"]),
                       "--no-progress", "--no-plots", *args])
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith("error: ")
    assert err.count("\n") == 1


def test_a_tuned_document_with_a_broken_tuned_entry_is_refused_before_any_run(
        world: dict[str, Path], tmp_path: Path) -> None:
    doc, _ = tuned_document(world["tune"], [world["default"], world["tuned"]], world["out"])
    doc["tuned"][0]["default_run"] = "runs/x"
    path = world["out"] / "broken-tuned.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    try:
        with pytest.raises(LtrbenchError, match=r"tuned\[0\]: expected default_run"):
            reproduce_leaderboard(path)
    finally:
        path.unlink()
    assert CONFIG.models  # the shared config was not touched


def test_a_default_run_with_other_base_params_is_refused(world: dict[str, Path],
                                                         tmp_path: Path) -> None:
    out = tmp_path / "res"
    params = replace(CONFIG.params, n_trees=5)
    other = run_benchmark(replace(CONFIG, models=MODELS, params=params), out_dir=out,
                          progress=False, loader=lambda spec, data_dir=None: SPLITS)
    with pytest.raises(ConfigError, match=r"\[params\] n_trees = 5"):
        tuned_document(world["tune"], [other, world["tuned"]], world["out"])


def test_names_with_dollars_and_markup_are_drawn_and_written_as_they_are(tmp_path: Path) -> None:
    from bench.report.tuning import render_trials_markdown, trials_summary
    from bench.report.tuning_plots import plot_best_so_far, plot_importances

    odd = "m$\\frac{$x|<b>"
    folder = make_tune_folder(tmp_path / "t", ("xgboost-ndcg",), n_trials=3)
    frame = pd.read_csv(folder / "trials.csv")
    frame["model"] = odd
    frame.to_csv(folder / "trials.csv", index=False)
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    summary["models"] = {odd: summary["models"]["xgboost-ndcg"]}  # as tune writes it
    (folder / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    tf = read_tune_dir(folder)
    path, _ = plot_best_so_far(tf, tmp_path / "b.png", {odd: 0.5})
    assert path.stat().st_size > 0
    assert plot_importances({odd: "a note"}, tmp_path / "i.png").stat().st_size > 0
    md = render_trials_markdown(trials_summary(tf))
    assert "\\|" in md
    assert "<b>" not in md.replace("&lt;b&gt;", "")
