"""Hostile ``ltrbench tune`` cases, round 18 (issue 19), beyond ``hostile_cases_tune.py``,
``test_hostile_round14_tune.py``, ``test_hostile_round8b_space.py``, ``test_hostile_tune_round7.py``,
``test_benchmark_tune_*.py`` and ``test_report_tuning_hostile.py``.

The persona: an applied-ML engineer who settles "which LambdaMART is better when each is tuned on
the same budget" for a paper (README "A fair fight"), then a skeptical reviewer of the fairness
and the bookkeeping. One real tune (LightGBM and XGBoost, 2 trials each, 3 trees, one thread)
is shared by the module; the bookkeeping cases read it back with their own oracles (``sqlite3``
on ``study.db``, ``tomllib`` on ``best.toml``, the library's own parameter dictionary). The
refusals run in-process with every fit replaced by an error (:func:`hostile_cases_tune.tune`):
exit 2, one ``error:`` line naming the file/key/option and what was expected.
"""

from __future__ import annotations

import json
import math
import shutil
import sqlite3
import sys
from pathlib import Path

import pandas as pd
import pytest
import tomllib

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_cases_tune import tune
from hostile_kit import Res, cli, letor_folder, letor_split, refused

MODELS = ("lightgbm-lambdarank", "xgboost-ndcg")
BUDGET = 2
TUNE = ("tune", "--dataset", "./letor", "--models", "lightgbm,xgboost", "--budget-trials",
        str(BUDGET), "--quick", "--n-trees", "3", "--threads", "1", "--seed", "0",
        "--no-progress", "--out", "res")
LGB = ("--model", "lightgbm-lambdarank", "--budget-trials", "1")
XGB = ("--model", "xgboost-ndcg", "--budget-trials", "1")
CAT = ("--model", "catboost-yetirank", "--budget-trials", "1")


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(root holding ``letor/``, the finished tune folder under ``root/res/tune``)."""
    root = tmp_path_factory.mktemp("r18tune")
    letor_folder(root / "letor")
    res = cli(root, *TUNE)
    assert res.status == 0, res.err
    (folder,) = (root / "res" / "tune").iterdir()
    return root, folder


def _trials_db(folder: Path) -> list[tuple[str, int, str, float | None]]:
    """(model, number, state, value) of every trial in ``study.db``, read with sqlite3."""
    with sqlite3.connect(f"file:{folder / 'study.db'}?mode=ro", uri=True) as con:
        rows = con.execute(
            "SELECT s.study_name, t.number, t.state, v.value FROM trials t "
            "JOIN studies s USING (study_id) LEFT JOIN trial_values v USING (trial_id) "
            "ORDER BY s.study_id, t.number").fetchall()
    return [(name.rsplit(":", 1)[1], int(n), str(state), value) for name, n, state, value in rows]


def _params_db(folder: Path) -> dict[tuple[str, int], dict[str, object]]:
    """Each trial's sampled parameters as Optuna stores them (an int distribution's value as
    int, a categorical's as its choice)."""
    out: dict[tuple[str, int], dict[str, object]] = {}
    with sqlite3.connect(f"file:{folder / 'study.db'}?mode=ro", uri=True) as con:
        rows = con.execute(
            "SELECT s.study_name, t.number, p.param_name, p.param_value, p.distribution_json "
            "FROM trial_params p JOIN trials t USING (trial_id) JOIN studies s USING (study_id)"
        ).fetchall()
    for name, number, param, value, dist in rows:
        d = json.loads(dist)
        if d["name"] == "IntDistribution":
            v: object = int(value)
        elif d["name"] == "CategoricalDistribution":
            v = d["attributes"]["choices"][int(value)]
        else:
            v = float(value)
        out.setdefault((name.rsplit(":", 1)[1], int(number)), {})[param] = v
    return out


def _user_attr(folder: Path, key: str) -> dict[tuple[str, int], object]:
    with sqlite3.connect(f"file:{folder / 'study.db'}?mode=ro", uri=True) as con:
        rows = con.execute(
            "SELECT s.study_name, t.number, a.value_json FROM trial_user_attributes a "
            "JOIN trials t USING (trial_id) JOIN studies s USING (study_id) WHERE a.key = ?",
            (key,)).fetchall()
    return {(name.rsplit(":", 1)[1], int(n)): json.loads(v) for name, n, v in rows}


def _unfinished(shared: tuple[Path, Path], tmp: Path) -> Path:
    """A copy of the shared tune as a kill after its last trial leaves it: no ``complete``,
    no ``best*``, no ``summary.json``; ``tmp/letor`` the same data."""
    root, folder = shared
    shutil.copytree(root / "letor", tmp / "letor")
    copy = tmp / "res" / "tune" / folder.name
    shutil.copytree(folder, copy)
    for name in ("complete", "best.toml", "summary.json", "best_so_far.png"):
        (copy / name).unlink()
    shutil.rmtree(copy / "best")
    return copy


def _resume(tmp: Path, *extra: str) -> Res:
    argv = list(TUNE)
    for i in range(0, len(extra), 2):
        if extra[i] in argv:
            argv[argv.index(extra[i]) + 1] = extra[i + 1]
        else:
            argv += [extra[i], extra[i + 1]]
    return cli(tmp, *argv, "--resume")


def _no_tune_folder(tmp: Path) -> str | None:
    tune_dir = tmp / "res" / "tune"
    return "wrote a tune folder" if tune_dir.exists() and any(tune_dir.iterdir()) else None


def _space_refused(tmp: Path, args: tuple[str, ...], text: str, *words: str) -> None:
    (tmp / "space.toml").write_text(text, encoding="utf-8")
    bad = refused(tune(tmp, *args, "--space", "space.toml"), *words) or _no_tune_folder(tmp)
    assert bad is None, bad


# ------------------------------------------------------------------ the fair fight, in earnest
def test_every_model_gets_exactly_the_trial_budget_in_study_db(shared: tuple[Path, Path]) -> None:
    """Equal budgets are equal: each model's study holds BUDGET finished trials and no other."""
    rows = _trials_db(shared[1])
    per_model = {m: [r for r in rows if r[0] == m] for m in MODELS}
    assert {m: len(v) for m, v in per_model.items()} == {m: BUDGET for m in MODELS}
    assert all(r[2] in ("COMPLETE", "PRUNED", "FAIL") for r in rows)
    assert {r[0] for r in rows} == set(MODELS)


def test_trials_csv_is_study_db_row_for_row(shared: tuple[Path, Path]) -> None:
    folder = shared[1]
    table = pd.read_csv(folder / "trials.csv")
    db = {(m, n): (s, v) for m, n, s, v in _trials_db(folder)}
    params = _params_db(folder)
    cpu = _user_attr(folder, "cpu_s")
    assert len(table) == len(db)
    for row in table.itertuples():
        key = (row.model, int(row.trial))
        state, value = db[key]
        assert row.state == state
        if state == "COMPLETE":
            assert row.value == value  # bit for bit
        else:  # a pruned trial's Optuna value is its last intermediate value: not a score
            assert math.isnan(row.value)
        assert json.loads(row.params) == params[key]
        assert row.cpu_s == cpu[key]


def test_cpu_seconds_add_up_and_are_never_more_than_one_thread_can_spend(
        shared: tuple[Path, Path]) -> None:
    """``--threads 1``: a trial's CPU time cannot exceed its wall time (one thread, whatever
    the machine's load); the cumulative column is the running sum, the summary the total."""
    folder = shared[1]
    table = pd.read_csv(folder / "trials.csv")
    summary = json.loads((folder / "summary.json").read_text())["models"]
    for model in MODELS:
        sub = table[table["model"] == model]
        assert (sub["cpu_s"] > 0).all()
        assert (sub["cpu_s"] <= sub["wall_s"] * 1.05 + 0.02).all(), sub[["cpu_s", "wall_s"]]
        assert sub["cum_cpu_s"].tolist() == pytest.approx(sub["cpu_s"].cumsum().tolist(),
                                                           rel=1e-12)
        assert summary[model]["cpu_s"] == pytest.approx(sub["cpu_s"].sum(), rel=1e-12)
        assert summary[model]["trials_run"] == BUDGET


def test_summary_names_the_study_best_trial(shared: tuple[Path, Path]) -> None:
    folder = shared[1]
    rows = _trials_db(folder)
    params = _params_db(folder)
    summary = json.loads((folder / "summary.json").read_text())["models"]
    for model in MODELS:
        done = [(v, n) for m, n, s, v in rows if m == model and s == "COMPLETE"]
        value = max(v for v, _ in done)
        first = min(n for v, n in done if v == value)
        assert summary[model]["best_value"] == value
        assert summary[model]["best_trial"] == first
        assert summary[model]["best_params"] == params[(model, first)]


def test_best_toml_holds_the_best_trials_values_bit_for_bit(shared: tuple[Path, Path]) -> None:
    folder = shared[1]
    summary = json.loads((folder / "summary.json").read_text())["models"]
    both = tomllib.loads((folder / "best.toml").read_text())["model_params"]
    for model in MODELS:
        own = tomllib.loads((folder / "best" / f"{model}.toml").read_text())
        assert own["models"] == [model]
        for table in (own["model_params"][model], both[model]):
            flat = {k: v for k, v in table.items() if not isinstance(v, dict)}
            flat.update({f"{lib}.{k}": v for lib, t in table.items() if isinstance(t, dict)
                         for k, v in t.items()})
            assert flat == summary[model]["best_params"]
            assert all(type(flat[k]) is type(v) for k, v in summary[model]["best_params"].items())


def test_best_toml_gives_lightgbm_the_trials_settings(shared: tuple[Path, Path]) -> None:
    """``run --config best.toml``'s parameters, as LightGBM's own ``params`` dictionary, are the
    best trial's (the parity table's names: bagging_fraction, lambda_l1, ...)."""
    from bench.benchmark.config import RunConfig
    from bench.runners.params import lightgbm_params

    folder = shared[1]
    best = json.loads((folder / "summary.json").read_text())["models"][MODELS[0]]["best_params"]
    config = RunConfig.load(folder / "best.toml")
    lib = lightgbm_params(config.params_for(MODELS[0], 0), "lambdarank")
    want = {"learning_rate": best["learning_rate"], "num_leaves": best["num_leaves"],
            "min_data_in_leaf": best["min_data_in_leaf"], "lambda_l1": best["l1"],
            "lambda_l2": best["l2"], "bagging_fraction": best["subsample"],
            "feature_fraction": best["colsample"], "min_gain_to_split": best["min_split_gain"],
            "min_sum_hessian_in_leaf": best["min_child_weight"],
            "lambdarank_truncation_level": best["truncation_level"]}
    assert {k: lib[k] for k in want} == want
    assert lib["num_threads"] == 1
    assert lib["seed"] == 0


def test_best_toml_gives_xgboost_the_trials_settings_and_its_raw_key(
        shared: tuple[Path, Path]) -> None:
    """XGBoost's own ``params``: ``eta``, ``max_leaves`` (lossguide), ``gamma``, ... and the raw
    ``lambdarank_pair_method`` the space searched are the best trial's."""
    from bench.benchmark.config import RunConfig
    from bench.runners.params import xgboost_params

    folder = shared[1]
    best = json.loads((folder / "summary.json").read_text())["models"][MODELS[1]]["best_params"]
    config = RunConfig.load(folder / "best" / f"{MODELS[1]}.toml")
    lib = xgboost_params(config.params_for(MODELS[1], 0), "ndcg")
    want = {"eta": best["learning_rate"], "max_leaves": best["num_leaves"],
            "alpha": best["l1"], "lambda": best["l2"], "subsample": best["subsample"],
            "colsample_bytree": best["colsample"], "gamma": best["min_split_gain"],
            "min_child_weight": best["min_child_weight"],
            "lambdarank_num_pair_per_sample": best["truncation_level"],
            "lambdarank_pair_method": best["xgboost.lambdarank_pair_method"]}
    assert {k: lib[k] for k in want} == want
    assert lib["grow_policy"] == "lossguide"
    assert lib["nthread"] == 1


def test_the_tune_folder_names_what_a_reviewer_needs(shared: tuple[Path, Path]) -> None:
    folder = shared[1]
    plan = json.loads((folder / "plan.json").read_text())
    assert plan["budget"] == {"amount": BUDGET, "kind": "trials"}
    assert plan["models"] == list(MODELS)
    assert plan["seed"] == 0
    assert plan["cv"] is None
    assert {m: p["n_threads"] for m, p in plan["base_params"].items()} == {m: 1 for m in MODELS}
    assert sorted(plan["data"]) == ["train", "vali"]  # what a resume must continue on; no test
    assert sorted(p.name for p in folder.iterdir()) == [
        "best", "best.toml", "best_so_far.png", "complete", "plan.json", "study.db",
        "summary.json", "trials.csv", "trials.parquet"]
    parquet = pd.read_parquet(folder / "trials.parquet")
    csv = pd.read_csv(folder / "trials.csv")
    assert parquet["value"].tolist() == csv["value"].tolist()


# ------------------------------------------------------------------ best.toml edited by hand
@pytest.mark.parametrize(("old", "new", "words"), [
    ("num_leaves = ", "num_leaves = 10.5 #", ("best.toml", "num_leaves")),
    ("learning_rate = ", "learning_rate = -0.1 #", ("best.toml", "learning_rate")),
    ("num_leaves = ", "num_leave = 10 #", ("best.toml", "num_leave", "num_leaves")),
    ("subsample = ", 'subsample = "0.7" #', ("best.toml", "subsample")),
], ids=["leaves-fraction", "rate-negative", "near-miss-key", "rate-as-text"])
def test_an_edited_best_toml_is_validated_like_any_config(shared: tuple[Path, Path], tmp_path: Path,
                                                         old: str, new: str,
                                                         words: tuple[str, ...]) -> None:
    folder = shared[1]
    text = (folder / "best" / f"{MODELS[0]}.toml").read_text()
    at = text.index("[model_params.")
    edited = text[:at] + text[at:].replace(old, new, 1)
    assert edited != text
    (tmp_path / "best.toml").write_text(edited.replace('dataset = "../../../../letor"',
                                                       f'dataset = "{shared[0] / "letor"}"'))
    bad = refused(cli(tmp_path, "run", "--config", "best.toml", "--out", "out"), *words)
    assert bad is None, bad
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------ --resume, honestly or not
def test_a_resume_on_other_data_of_the_same_name_is_refused(shared: tuple[Path, Path],
                                                          tmp_path: Path) -> None:
    """``letor/`` replaced by other queries under the same folder name: the study's trials were
    scored on the old data; continuing would mix two studies under one best."""
    copy = _unfinished(shared, tmp_path)
    for i, (split, n) in enumerate((("train", 20), ("vali", 6), ("test", 6))):
        (tmp_path / "letor" / f"{split}.txt").write_bytes(letor_split(n, 1 + 100 * i, i + 7))
    before = _trials_db(copy)
    bad = refused(_resume(tmp_path), "--resume", "data")
    assert bad is None, bad
    assert _trials_db(copy) == before
    assert not (copy / "complete").exists()


def test_a_resume_under_another_name_is_refused(shared: tuple[Path, Path], tmp_path: Path) -> None:
    _unfinished(shared, tmp_path)
    bad = refused(_resume(tmp_path, "--name", "other"), "--resume")
    assert bad is None, bad


@pytest.mark.parametrize(("extra", "words"), [
    (("--threads", "2"), ("--resume", "base_params", '"n_threads": 2')),
    (("--models", "lightgbm"), ("--resume", "models", '["lightgbm-lambdarank"] now')),
    (("--profile", "trec_eval"), ("--resume", "profile", '"trec_eval" now')),
    (("--space", "space.toml"), ("--resume", "space", '"high": 9')),
], ids=["threads", "one-model-dropped", "profile", "a-space-file"])
def test_a_resume_asking_another_study_is_refused(shared: tuple[Path, Path], tmp_path: Path,
                                                  extra: tuple[str, ...],
                                                  words: tuple[str, ...]) -> None:
    """Another ``--threads`` spends CPU seconds at another rate than the trials before; a
    dropped model, another profile or another space would continue a different study."""
    copy = _unfinished(shared, tmp_path)
    (tmp_path / "space.toml").write_text("[lightgbm]\nnum_leaves = {low = 3, high = 9}\n")
    before = _trials_db(copy)
    bad = refused(_resume(tmp_path, *extra), *words)
    assert bad is None, bad
    assert _trials_db(copy) == before


def test_a_study_db_that_is_a_folder_is_named_as_one(shared: tuple[Path, Path],
                                                     tmp_path: Path) -> None:
    copy = _unfinished(shared, tmp_path)
    (copy / "study.db").unlink()
    (copy / "study.db").mkdir()
    bad = refused(_resume(tmp_path), "study.db", "folder")
    assert bad is None, bad


def test_a_study_db_whose_complete_trial_lost_its_value_is_refused(
        shared: tuple[Path, Path], tmp_path: Path) -> None:
    """A COMPLETE trial without a value (the table emptied outside Optuna): Optuna's summaries
    raise ``TypeError`` comparing None; tune names the database."""
    copy = _unfinished(shared, tmp_path)
    with sqlite3.connect(copy / "study.db") as con:
        con.execute("DELETE FROM trial_values")
    bad = refused(_resume(tmp_path), "study.db", "value")
    assert bad is None, bad


def test_a_truncated_study_db_is_refused_and_left_as_it_was(shared: tuple[Path, Path],
                                                            tmp_path: Path) -> None:
    copy = _unfinished(shared, tmp_path)
    data = (copy / "study.db").read_bytes()[:8192]
    (copy / "study.db").write_bytes(data)
    bad = refused(_resume(tmp_path), "study.db")
    assert bad is None, bad
    assert (copy / "study.db").read_bytes() == data


def test_a_study_db_of_another_tool_is_refused_and_left_as_it_was(shared: tuple[Path, Path],
                                                                  tmp_path: Path) -> None:
    copy = _unfinished(shared, tmp_path)
    (copy / "study.db").unlink()
    with sqlite3.connect(copy / "study.db") as con:
        con.execute("CREATE TABLE notes (x)")
        con.execute("INSERT INTO notes VALUES ('keep')")
    data = (copy / "study.db").read_bytes()
    bad = refused(_resume(tmp_path), "study.db", "not an Optuna storage")
    assert bad is None, bad
    assert (copy / "study.db").read_bytes() == data


def test_a_study_db_another_process_holds_locked_is_named_as_locked(
        shared: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process in an exclusive transaction: before, "cannot be read as a SQLite
    database" after SQLite's 5 s (not the 120 s tune's own connections wait)."""
    import bench.benchmark.study as study

    monkeypatch.setattr(study, "SQLITE_TIMEOUT_S", 0.2)
    copy = _unfinished(shared, tmp_path)
    con = sqlite3.connect(copy / "study.db", isolation_level=None)
    try:
        con.execute("BEGIN EXCLUSIVE")
        bad = refused(_resume(tmp_path), "study.db", "locked by another process", "0.2 s")
    finally:
        con.close()
    assert bad is None, bad


def test_a_plan_with_an_edited_seed_is_refused(shared: tuple[Path, Path], tmp_path: Path) -> None:
    copy = _unfinished(shared, tmp_path)
    plan = json.loads((copy / "plan.json").read_text())
    plan["seed"] = 7
    (copy / "plan.json").write_text(json.dumps(plan))
    bad = refused(_resume(tmp_path), "--resume", "seed", "7")
    assert bad is None, bad


# ------------------------------------------------------------------ a tune that found nothing
def test_a_tune_whose_every_trial_failed_is_an_error_not_a_best(tmp_path: Path) -> None:
    """Two trials, both failing (below the three-in-a-row stop): before, exit 0 with
    ``best.toml`` holding the defaults and "run them" under it, the error nowhere said."""
    res = tune(tmp_path, "--model", "lightgbm-lambdarank", "--budget-trials", "2")
    bad = refused(res, "lightgbm-lambdarank", "no complete trial", "2 failed", "AssertionError")
    assert bad is None, bad
    (folder,) = (tmp_path / "res" / "tune").iterdir()
    assert not (folder / "best.toml").exists()
    assert not (folder / "complete").exists()
    assert not (folder / "best").exists()


def test_a_tune_whose_every_trial_was_pruned_is_an_error_not_a_best(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import optuna

    import bench.benchmark.study as study

    def pruned(_trial: object, _task: object) -> float:
        raise optuna.TrialPruned("pruned at round 1")

    monkeypatch.setattr(study, "run_trial", pruned)
    res = tune(tmp_path, "--model", "lightgbm-lambdarank", "--budget-trials", "2")
    bad = refused(res, "lightgbm-lambdarank", "no complete trial", "2 pruned", "--pruner none")
    assert bad is None, bad


def test_the_tune_uses_the_name_it_is_given(tmp_path: Path) -> None:
    """``--name`` is the dataset's name in every table and folder, as in ``run``: before, tune
    ignored it (study ``letor:...``, folder ``letor-...``) while best.toml said ``name``."""
    import bench.benchmark.tune_run as tune_run

    seen: list[str] = []
    old = tune_run.tune_loaded

    def spy(plan, splits, *a, **k):  # type: ignore[no-untyped-def]
        seen.append(splits.name)
        raise KeyboardInterrupt

    tune_run.tune_loaded = spy  # type: ignore[assignment]
    try:
        tune(tmp_path, *LGB, "--name", "trec-set")
    finally:
        tune_run.tune_loaded = old  # type: ignore[assignment]
    assert seen == ["trec-set"]


# ------------------------------------------------------------------ the space file at the door
SPACES = {
    "float-range-of-one-point": (LGB, "[lightgbm]\nlearning_rate = {low = 0.1, high = 0.1}\n",
                                 ("space.toml", "learning_rate", "empty range")),
    "log-range-from-a-negative": (
        LGB, "[lightgbm]\nlearning_rate = {low = -0.1, high = 0.3, log = true}\n",
        ("space.toml", "learning_rate", "low > 0")),
    "log-integer-range-from-zero": (
        LGB, "[lightgbm]\nmin_data_in_leaf = {low = 0, high = 20, log = true}\n",
        ("space.toml", "min_data_in_leaf", "low > 0")),
    "nan-low": (LGB, "[lightgbm]\nlearning_rate = {low = nan, high = 0.3}\n",
                ("space.toml", "learning_rate.low", "finite")),
    "inf-high": (LGB, "[lightgbm]\nlearning_rate = {low = 0.1, high = inf}\n",
                 ("space.toml", "learning_rate.high", "finite")),
    "integer-low-float-high": (LGB, "[lightgbm]\nnum_leaves = {low = 3, high = 7.0}\n",
                               ("space.toml", "num_leaves.high", "integer")),
    "bounds-as-text": (LGB, '[lightgbm]\nnum_leaves = {low = "3", high = "7"}\n',
                       ("space.toml", "num_leaves.low", "number")),
    "a-boolean-bound": (LGB, "[lightgbm]\nnum_leaves = {low = true, high = 7}\n",
                        ("space.toml", "num_leaves.low", "number")),
    "subnormal-log-low": (LGB, "[lightgbm]\nlearning_rate = {low = 1e-320, high = 0.1, "
                          "log = true}\n", ("space.toml", "learning_rate", "1e-320")),
    "a-float-among-integer-choices": (LGB, "[lightgbm]\nnum_leaves = {choices = [7, 15.0]}\n",
                                      ("space.toml", "num_leaves.choices", "15.0")),
    "a-choice-beyond-int64": (
        LGB, "[lightgbm]\nnum_leaves = {choices = [7, 99999999999999999999]}\n",
        ("space.toml", "num_leaves.choices", "99999999999999999999")),
    "text-choices-of-a-boolean": (
        LGB, '[lightgbm]\nlambdarank_norm = {choices = ["true", "false"]}\n',
        ("space.toml", "lambdarank_norm.choices", "true or false")),
    "patience-from-zero": (LGB, "[lightgbm]\nearly_stopping_rounds = {low = 0, high = 5}\n",
                           ("space.toml", "early_stopping_rounds")),
    "a-table-of-a-model-alias": (LGB, "[gbdt]\nnum_leaves = {low = 3, high = 7}\n",
                                 ("space.toml", "gbdt", "table")),
    "a-capitalised-library-table": (LGB, "[LightGBM]\nnum_leaves = {low = 3, high = 7}\n",
                                    ("space.toml", "LightGBM", "'lightgbm'")),
    "a-key-with-a-trailing-blank": (LGB, '[lightgbm]\n"num_leaves " = {low = 3, high = 7}\n',
                                    ("space.toml", "'num_leaves '", "'num_leaves'")),
    "a-nested-table-with-log-1": (LGB, "[lightgbm.num_leaves]\nlow = 3\nhigh = 7\nlog = 1\n",
                                  ("space.toml", "num_leaves.log", "true or false")),
    "comments-only": (LGB, "# the space\n", ("space.toml", "no table")),
    "xgboost-searching-a-row-count-it-lacks": (
        XGB, "[xgboost]\nmin_data_in_leaf = {low = 1, high = 20}\n",
        ("xgboost-ndcg", "min_data_in_leaf")),
    "catboost-searching-l1": (CAT, "[catboost]\nl1 = {low = 0.1, high = 1.0}\n",
                              ("catboost-yetirank", "l1")),
    "catboost-searching-truncation": (CAT, "[catboost]\ntruncation_level = {low = 4, high = 8}\n",
                                      ("catboost-yetirank", "truncation_level")),
    "a-rate-decay-that-reaches-zero": (
        LGB, "[lightgbm]\nlearning_rate_decay = {low = 0.0, high = 0.5}\n",
        ("learning_rate_decay", "learning_rate_min")),
    "xgboost-pair-method-as-a-range": (
        XGB, '[xgboost]\n"xgboost.lambdarank_pair_method" = {low = 1, high = 3}\n',
        ("xgboost.lambdarank_pair_method", "topk")),
    "lightgbm-raw-integer-as-a-float-range": (
        LGB, '[lightgbm]\n"lightgbm.min_data_in_bin" = {low = 1.5, high = 3.5}\n',
        ("lightgbm.min_data_in_bin", "1.5", "int")),
    "xgboost-raw-integer-as-a-float-range": (
        XGB, '[xgboost]\n"xgboost.max_cat_to_onehot" = {low = 0.5, high = 3.5}\n',
        ("xgboost.max_cat_to_onehot", "0.5", "int")),
    "catboost-raw-name-of-max-bin": (
        CAT, '[catboost]\n"catboost.border_count" = {low = 10, high = 30}\n',
        ("catboost.border_count", "max_bin")),
    "lightgbm-raw-boolean-as-yes": (
        LGB, '[lightgbm]\n"lightgbm.extra_trees" = {choices = [true, "yes"]}\n',
        ("lightgbm.extra_trees", "yes")),
}


@pytest.mark.parametrize("name", list(SPACES))
def test_a_bad_space_file_is_refused_at_the_door(name: str, tmp_path: Path) -> None:
    args, text, words = SPACES[name]
    _space_refused(tmp_path, args, text, *words)


@pytest.mark.parametrize(("kind", "words"), [
    ("folder", ("--space", "directory")),
    ("utf-16", ("--space", "UTF-16", "iconv")),
    ("fifo", ("--space", "FIFO")),
])
def test_a_space_file_that_is_not_a_utf8_file_is_refused(kind: str, words: tuple[str, ...],
                                                         tmp_path: Path) -> None:
    import os

    path = tmp_path / "space.toml"
    if kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.write_bytes("[lightgbm]\nnum_leaves = {low = 3, high = 7}\n".encode("utf-16"))
    bad = refused(tune(tmp_path, *LGB, "--space", "space.toml"), *words) or \
        _no_tune_folder(tmp_path)
    assert bad is None, bad


# ------------------------------------------------------------------ budgets and options
@pytest.mark.parametrize(("args", "words"), [
    (("--budget-trials", "0"), ("--budget-trials", "from 1")),
    (("--budget-trials", "-2"), ("--budget-trials", "from 1")),
    (("--budget-trials", "3.0"), ("--budget-trials", "'3.0'")),
    (("--budget-trials", "\uff13"), ("--budget-trials",)),
    (("--budget-cpu-s", "-0"), ("--budget-cpu-s", "> 0")),
    (("--budget-cpu-s", "0x10"), ("--budget-cpu-s", "0x10")),
    (("--budget-trials", "1", "--cv", "1"), ("--cv", "from 2")),
    (("--budget-trials", "1", "--use", "vali"), ("--use", "'vali'")),
    (("--budget-trials", "1", "--seed", "1.5"), ("--seed", "'1.5'")),
    (("--budget-trials", "1", "--workers", "3"), ("workers", "dask")),
    (("--budget-trials", "1", "--storage", "study.db"), ("--storage", "study.db")),
], ids=["trials-0", "trials-negative", "trials-3.0", "trials-full-width", "cpu-minus-zero",
        "cpu-hex", "cv-1", "use-vali", "seed-fraction", "workers-local", "storage-not-a-url"])
def test_a_bad_budget_or_option_is_refused(args: tuple[str, ...], words: tuple[str, ...],
                                           tmp_path: Path) -> None:
    bad = refused(tune(tmp_path, "--model", "lightgbm-lambdarank", *args), *words) or \
        _no_tune_folder(tmp_path)
    assert bad is None, bad


def test_use_without_cv_is_refused(tmp_path: Path) -> None:
    """``--use train+vali`` makes the --cv folds; without --cv the trials are scored on the
    validation split and the option would change nothing."""
    from hostile_cases_tune import no_fit

    letor_folder(tmp_path / "letor")
    with no_fit():
        res = cli(tmp_path, "tune", "--dataset", "./letor", "--quick", "--no-progress",
                  *LGB, "--use", "train+vali", "--out", "res")
    bad = refused(res, "--use", "--cv") or _no_tune_folder(tmp_path)
    assert bad is None, bad


def test_a_baseline_among_the_tuned_models_is_refused(tmp_path: Path) -> None:
    bad = refused(tune(tmp_path, "--models", "lightgbm,random", "--budget-trials", "1"),
                  "--models", "random")
    assert bad is None, bad


# ------------------------------------------------------------------ report --tuned reads it back
def _edited_trials(shared: tuple[Path, Path], tmp: Path, edit: str) -> Path:
    """A copy of the shared tune whose ``trials.csv`` was edited (its ``best_so_far`` kept the
    running maximum, so the table is consistent in itself) but whose ``study.db`` was not."""
    copy = tmp / "t"
    shutil.copytree(shared[1], copy)
    table = pd.read_csv(copy / "trials.csv")
    first = table.index[table["model"] == MODELS[0]][0]
    if edit == "value":
        table.loc[first, "value"] = 0.999
    else:
        table = table.drop(index=first).reset_index(drop=True)
    done = table["value"].where(table["state"] == "COMPLETE")
    table["best_so_far"] = done.groupby(table["model"]).cummax()
    table.to_csv(copy / "trials.csv", index=False)
    return copy


@pytest.mark.parametrize("edit", ["value", "a-trial-left-out", "db-value"])
def test_a_trials_table_that_disagrees_with_study_db_is_refused(
        shared: tuple[Path, Path], tmp_path: Path, edit: str) -> None:
    """The report would print 0.999 as LightGBM's best validation score where the study, the
    record of what ran, says otherwise (or leave a trial out of the budget; or the database
    was edited instead): the two files of one tune must agree."""
    from bench.errors import DataError
    from bench.report.tuning import read_tune_dir

    if edit == "db-value":
        copy = tmp_path / "t"
        shutil.copytree(shared[1], copy)
        with sqlite3.connect(copy / "study.db") as con:
            con.execute("UPDATE trial_values SET value = 0.5 WHERE trial_id = "
                        "(SELECT MIN(trial_id) FROM trial_values)")
    else:
        copy = _edited_trials(shared, tmp_path, edit)
    with pytest.raises(DataError, match=r"trials\.csv.*study\.db"):
        read_tune_dir(copy)


def test_a_pruned_trial_with_optunas_last_intermediate_value_reads_back(
        shared: tuple[Path, Path], tmp_path: Path) -> None:
    """Optuna records a pruned trial's last intermediate value as its value (checked here on
    Optuna itself); ltrbench's table leaves it blank. The check against study.db refused every
    real tune with a pruned trial ('PRUNED nan here, PRUNED 0.5039... in study.db'): the
    committed OHSUMED tune, and `tune` itself when it read its folder back at the end."""
    import optuna
    from optuna.trial import TrialState

    from bench.report.tuning import read_tune_dir

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="maximize")
    trial = study.ask()
    trial.report(0.25, step=0)
    study.tell(trial, state=TrialState.PRUNED)
    assert study.trials[0].value == 0.25

    copy = tmp_path / "t"
    shutil.copytree(shared[1], copy)
    table = pd.read_csv(copy / "trials.csv")
    first = table.index[(table["model"] == MODELS[0]) & (table["state"] == "COMPLETE")][0]
    number = int(table.loc[first, "trial"])
    with sqlite3.connect(copy / "study.db") as con:
        con.execute("UPDATE trials SET state = 'PRUNED' WHERE number = ? AND study_id = (SELECT "
                    "study_id FROM studies WHERE study_name LIKE ?)", (number, f"%:{MODELS[0]}"))
    table.loc[first, ["state", "value"]] = ["PRUNED", float("nan")]
    done = table["value"].where(table["state"] == "COMPLETE")
    table["best_so_far"] = done.groupby(table["model"]).cummax()
    table.to_csv(copy / "trials.csv", index=False)
    assert read_tune_dir(copy).models == list(MODELS)


def test_the_shared_tune_reads_back_for_the_report(shared: tuple[Path, Path]) -> None:
    from bench.report.tuning import best_trial, read_tune_dir

    folder = read_tune_dir(shared[1])
    summary = json.loads((shared[1] / "summary.json").read_text())["models"]
    assert folder.models == list(MODELS)
    assert folder.finished
    for model in MODELS:
        row = best_trial(folder, model)
        assert row is not None
        assert row["value"] == summary[model]["best_value"]
