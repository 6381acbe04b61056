"""Hostile ``ltrbench tune`` cases, round 7 (issue 19, class "options / configs / outputs"; issue
22's ``--engine dask``): new instances beyond ``tests/hostile_cases_tune.py`` and
``tests/test_benchmark_tune_engine.py`` -- ``--storage`` URLs, ``--space`` files, budgets,
``--resume`` with changed settings or a damaged folder, ``--out`` / ``--storage`` over an
input, ``--engine dask`` / ``--workers`` / ``--threads``, the grid sampler.

Each case gets a fresh folder and returns ``None`` when ltrbench behaved (a clear error, exit 2,
one line naming the option or key; an input left intact; the right trials), else one line saying
what went wrong. A refusal must come before any fit (:func:`hostile_cases_tune.no_fit`). Golden
values are hand arithmetic (a grid of 5 points is 5 distinct trials).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hostile_cases_tune import tune
from hostile_kit import letor_folder, refused

Case = Callable[[Path], "str | None"]
CASES: list[Case] = []


def case(fn: Case) -> Case:
    CASES.append(fn)
    return fn


def _space(tmp: Path, text: str | bytes, name: str = "space.toml") -> str:
    path = tmp / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return name


def _lgb(tmp: Path, *args: str, fit: bool = False) -> object:
    budget = () if any(a.startswith("--budget") for a in args) else ("--budget-trials", "2")
    return tune(tmp, "--model", "lightgbm", *budget, *args, fit=fit)


_TEMPLATE: list[Path] = []


def _template() -> Path:
    """One finished tune (2 trials of LightGBM on ./letor) per test process, copied by the
    cases that need a tune to resume or a study database to point at."""
    if not _TEMPLATE:
        root = Path(tempfile.mkdtemp(prefix="ltrbench-round7-"))
        res = _lgb(root, fit=True)
        assert getattr(res, "status", None) == 0, getattr(res, "err", "")
        _TEMPLATE.append(root)
    return _TEMPLATE[0]


def _copy_template(tmp: Path) -> Path:
    """The template tune copied into ``tmp`` (``letor`` and ``res``): its folder, unfinished."""
    root = _template()
    for name in ("letor", "res"):
        shutil.copytree(root / name, tmp / name)
    (folder,) = (tmp / "res" / "tune").iterdir()
    (folder / "complete").unlink()
    return folder


def _nothing_written(tmp: Path) -> str | None:
    folder = tmp / "res" / "tune"
    return "wrote a tune folder" if folder.exists() and any(folder.iterdir()) else None


def _refused(tmp: Path, *args_and_words: str, sep: str = "|") -> str | None:
    """``tune --model lightgbm ARGS`` refused with WORDS (``args | words``), nothing written."""
    i = args_and_words.index(sep)
    bad = refused(_lgb(tmp, *args_and_words[:i]), *args_and_words[i + 1:])  # type: ignore[arg-type]
    return bad or _nothing_written(tmp)


# ------------------------------------------------------------------------------ --storage
@case
def storage_in_a_folder_that_does_not_exist(tmp: Path) -> str | None:
    return _refused(tmp, "--storage", f"sqlite:///{tmp}/nosuch/s.db", "|", "--storage",
                    "no folder")


@case
def storage_is_a_folder(tmp: Path) -> str | None:
    (tmp / "dbdir").mkdir()
    return _refused(tmp, "--storage", f"sqlite:///{tmp}/dbdir", "|", "--storage", "folder")


@case
def storage_is_a_text_file_not_a_database(tmp: Path) -> str | None:
    (tmp / "notes.txt").write_text("my notes\n")
    bad = _refused(tmp, "--storage", f"sqlite:///{tmp}/notes.txt", "|", "--storage",
                   "not a SQLite database")
    return bad or (None if (tmp / "notes.txt").read_text() == "my notes\n" else "file changed")


@case
def storage_is_the_datasets_training_file(tmp: Path) -> str | None:
    letor_folder(tmp / "letor")
    before = (tmp / "letor" / "train.txt").read_bytes()
    bad = _refused(tmp, "--storage", "sqlite:///letor/train.txt", "|", "--storage",
                   "not a SQLite database")
    return bad or (None if (tmp / "letor" / "train.txt").read_bytes() == before
                   else "the training file changed")


@case
def storage_is_a_sqlite_database_of_another_program(tmp: Path) -> str | None:
    """Optuna would add its tables to someone else's database."""
    con = sqlite3.connect(tmp / "app.db")
    con.execute("create table users (id integer)")
    con.commit()
    con.close()
    bad = _refused(tmp, "--storage", f"sqlite:///{tmp}/app.db", "|", "--storage",
                   "not an Optuna", "users")
    con = sqlite3.connect(tmp / "app.db")
    tables = {r[0] for r in con.execute("select name from sqlite_master where type='table'")}
    con.close()
    return bad or (None if tables == {"users"} else f"tables added: {sorted(tables)}")


@case
def storage_in_memory_cannot_be_resumed(tmp: Path) -> str | None:
    return _refused(tmp, "--storage", "sqlite://", "|", "--storage", "in-memory")


@case
def storage_named_memory_explicitly(tmp: Path) -> str | None:
    return _refused(tmp, "--storage", "sqlite:///:memory:", "|", "--storage", "in-memory")


@case
def storage_of_a_server_that_is_not_there(tmp: Path) -> str | None:
    return _refused(tmp, "--storage", "postgresql://u@127.0.0.1:1/db", "|", "--storage")


@case
def storage_url_without_a_scheme(tmp: Path) -> str | None:
    return _refused(tmp, "--storage", "study.db", "|", "--storage", "study.db")


@case
def storage_of_another_tune_with_other_settings(tmp: Path) -> str | None:
    folder = _copy_template(tmp)
    url = f"sqlite:///{folder / 'study.db'}"
    bad = refused(tune(tmp, "--model", "lightgbm", "--budget-trials", "3", "--storage", url,
                       out="res2"), "already exists", "--resume")  # type: ignore[arg-type]
    return bad


# ------------------------------------------------------------------------------ --space
@case
def space_file_in_latin1(tmp: Path) -> str | None:
    name = _space(tmp, "# caf\xe9\n[lightgbm]\nnum_leaves = {low = 3, high = 7}\n".encode("latin-1"))
    return _refused(tmp, "--space", name, "|", "space.toml")


@case
def space_file_is_a_folder(tmp: Path) -> str | None:
    (tmp / "spaces").mkdir()
    return _refused(tmp, "--space", "spaces", "|", "--space", "directory")


@case
def space_file_is_empty(tmp: Path) -> str | None:
    """An empty file would tune the declared spaces in silence."""
    name = _space(tmp, "")
    return _refused(tmp, "--space", name, "|", "space.toml", "no table")


@case
def space_file_only_for_a_library_not_tuned(tmp: Path) -> str | None:
    name = _space(tmp, "[xgboost]\nmax_depth = {low = 2, high = 4}\n")
    return _refused(tmp, "--space", name, "|", "space.toml", "lightgbm")


@case
def space_file_table_of_another_models_raw_key(tmp: Path) -> str | None:
    name = _space(tmp, '[lightgbm]\n"catboost.random_strength" = {low = 0.1, high = 1.0}\n')
    return _refused(tmp, "--space", name, "|", "catboost.random_strength")


@case
def space_range_inverted(tmp: Path) -> str | None:
    name = _space(tmp, "[lightgbm]\nlearning_rate = {low = 0.3, high = 0.01}\n")
    return _refused(tmp, "--space", name, "|", "learning_rate", "empty range")


@case
def space_log_range_below_zero(tmp: Path) -> str | None:
    name = _space(tmp, "[lightgbm]\nl2 = {low = -1.0, high = 1.0, log = true}\n")
    return _refused(tmp, "--space", name, "|", "l2", "low > 0")


@case
def space_bound_is_a_boolean(tmp: Path) -> str | None:
    name = _space(tmp, "[lightgbm]\nnum_leaves = {low = true, high = 7}\n")
    return _refused(tmp, "--space", name, "|", "num_leaves.low")


@case
def space_bound_is_infinite(tmp: Path) -> str | None:
    name = _space(tmp, "[lightgbm]\nlearning_rate = {low = 0.01, high = inf}\n")
    return _refused(tmp, "--space", name, "|", "learning_rate.high", "finite")


@case
def space_bound_beyond_int64(tmp: Path) -> str | None:
    name = _space(tmp, "[lightgbm]\nnum_leaves = {low = 3, high = 99999999999999999999}\n")
    return _refused(tmp, "--space", name, "|", "num_leaves")


@case
def space_choices_repeat_one_rate_as_int_and_float(tmp: Path) -> str | None:
    name = _space(tmp, "[lightgbm]\nlearning_rate = {choices = [1, 1.0]}\n")
    return _refused(tmp, "--space", name, "|", "learning_rate", "repeats")


@case
def space_choice_of_a_boolean_leaf_count(tmp: Path) -> str | None:
    name = _space(tmp, "[lightgbm]\nnum_leaves = {choices = [3, true]}\n")
    return _refused(tmp, "--space", name, "|", "num_leaves")


@case
def space_unknown_key_in_a_dimension(tmp: Path) -> str | None:
    name = _space(tmp, "[lightgbm]\nnum_leaves = {low = 3, high = 7, logg = true}\n")
    return _refused(tmp, "--space", name, "|", "num_leaves", "logg")


@case
def space_file_of_twenty_thousand_choices(tmp: Path) -> str | None:
    """Each choice is checked against the library before any fit: a long list is refused at
    once instead of minutes of checks."""
    values = ", ".join(str(0.001 + i * 1e-7) for i in range(20_000))
    name = _space(tmp, f"[lightgbm]\nlearning_rate = {{choices = [{values}]}}\n")
    return _refused(tmp, "--space", name, "|", "learning_rate.choices", "10,000")


@case
def space_file_of_two_megabytes(tmp: Path) -> str | None:
    name = _space(tmp, "[lightgbm]\nnum_leaves = {low = 3, high = 7}\n" + "#" * (2 << 20) + "\n")
    return _refused(tmp, "--space", name, "|", "--space", "bytes")


@case
def space_file_is_a_fifo(tmp: Path) -> str | None:
    os.mkfifo(tmp / "space.toml")
    return _refused(tmp, "--space", "space.toml", "|", "--space")


# ------------------------------------------------------------------------------ budgets
@case
def budget_trials_negative(tmp: Path) -> str | None:
    return _refused(tmp, "--budget-trials", "-1", "|", "--budget-trials")


@case
def budget_trials_nan(tmp: Path) -> str | None:
    return _refused(tmp, "--budget-trials", "nan", "|", "--budget-trials")


@case
def budget_trials_1e309(tmp: Path) -> str | None:
    return _refused(tmp, "--budget-trials", "1e309", "|", "--budget-trials")


def _budget_of(tmp: Path, *args: str) -> str:
    """The budget the plan of ``tune ARGS`` holds (the tune stopped right after the plan)."""
    import bench.benchmark.tune_run as tune_run
    from bench.errors import ConfigError

    def stop(plan: object, **_: object) -> object:
        raise ConfigError(f"PLANNED {plan.options.budget}")  # type: ignore[attr-defined]

    old = tune_run.run_tune
    tune_run.run_tune = stop  # type: ignore[assignment]
    try:
        res = tune(tmp, "--model", "lightgbm", *args)
    finally:
        tune_run.run_tune = old  # type: ignore[assignment]
    return getattr(res, "err", "")


@case
def budget_trials_with_a_trailing_space(tmp: Path) -> str | None:
    """Every number option reads its text stripped (``--n-trees " 5"``): 5 trials, as written."""
    err = _budget_of(tmp, "--budget-trials", "5 ")
    return None if "Budget(kind='trials', amount=5)" in err else f"not 5 trials: {err[-200:]}"


@case
def budget_trials_as_a_float(tmp: Path) -> str | None:
    return _refused(tmp, "--budget-trials", "2.0", "|", "--budget-trials")


@case
def budget_cpu_zero(tmp: Path) -> str | None:
    return refused(tune(tmp, "--model", "lightgbm", "--budget-cpu-s", "0"),  # type: ignore[arg-type]
                   "--budget-cpu-s", "> 0") or _nothing_written(tmp)


@case
def budget_cpu_1e309(tmp: Path) -> str | None:
    return refused(tune(tmp, "--model", "lightgbm", "--budget-cpu-s", "1e309"),  # type: ignore[arg-type]
                   "--budget-cpu-s", "inf") or _nothing_written(tmp)


@case
def budget_cpu_with_a_trailing_space(tmp: Path) -> str | None:
    err = _budget_of(tmp, "--budget-cpu-s", "5 ")
    return None if "Budget(kind='cpu_s', amount=5.0)" in err else f"not 5 s: {err[-200:]}"


@case
def budget_cpu_and_trials_both_given(tmp: Path) -> str | None:
    return refused(tune(tmp, "--model", "lightgbm", "--budget-cpu-s", "5", "--budget-trials",
                        "3"), "give one budget") or _nothing_written(tmp)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------ --resume
def _resumable(tmp: Path) -> Path | str:
    return _copy_template(tmp)


def _resume_refused(tmp: Path, args: tuple[str, ...], *words: str) -> str | None:
    folder = _resumable(tmp)
    if isinstance(folder, str):
        return folder
    res = tune(tmp, "--model", "lightgbm", "--budget-trials", "2", *args, "--resume")
    return refused(res, "--resume", *words)  # type: ignore[arg-type]


@case
def resume_with_another_model(tmp: Path) -> str | None:
    folder = _resumable(tmp)
    if isinstance(folder, str):
        return folder
    res = tune(tmp, "--model", "xgboost", "--budget-trials", "2", "--resume", str(folder))
    return refused(res, "--resume", "models differs")  # type: ignore[arg-type]


@case
def resume_with_another_sampler(tmp: Path) -> str | None:
    return _resume_refused(tmp, ("--sampler", "random"), "sampler differs")


@case
def resume_with_another_seed(tmp: Path) -> str | None:
    return _resume_refused(tmp, ("--seed", "7"), "seed differs")


@case
def resume_with_another_space(tmp: Path) -> str | None:
    name = _space(tmp, "[lightgbm]\nnum_leaves = {low = 3, high = 7}\n")
    return _resume_refused(tmp, ("--space", name), "space differs")


@case
def resume_after_the_study_database_was_deleted(tmp: Path) -> str | None:
    """The trials of trials.csv would be replaced by new ones in silence."""
    folder = _resumable(tmp)
    if isinstance(folder, str):
        return folder
    (folder / "study.db").unlink()
    res = tune(tmp, "--model", "lightgbm", "--budget-trials", "2", "--resume")
    return refused(res, "--resume", "study.db")  # type: ignore[arg-type]


@case
def resume_over_another_tunes_study_database(tmp: Path) -> str | None:
    """Another tune's database (the same study names, other trials) put in the folder."""
    import optuna

    folder = _copy_template(tmp)
    url = f"sqlite:///{folder / 'study.db'}"
    (name,) = [s.study_name for s in optuna.get_all_study_summaries(url)]
    optuna.delete_study(study_name=name, storage=url)
    other = optuna.create_study(study_name=name, storage=url, direction="maximize")
    other.optimize(lambda t: t.suggest_int("num_leaves", 3, 7) / 10, n_trials=2)
    res = tune(tmp, "--model", "lightgbm", "--budget-trials", "2", "--resume")
    return refused(res, "--resume", "trials.csv")  # type: ignore[arg-type]


@case
def resume_with_a_damaged_plan(tmp: Path) -> str | None:
    folder = _resumable(tmp)
    if isinstance(folder, str):
        return folder
    (folder / "plan.json").write_text("{not json")
    res = tune(tmp, "--model", "lightgbm", "--budget-trials", "2", "--resume")
    return refused(res, "plan.json")  # type: ignore[arg-type]


# ------------------------------------------------------------------------------ --out
@case
def out_is_the_space_file(tmp: Path) -> str | None:
    name = _space(tmp, "[lightgbm]\nnum_leaves = {low = 3, high = 7}\n")
    before = (tmp / name).read_bytes()
    res = tune(tmp, "--model", "lightgbm", "--budget-trials", "2", "--space", name, out=name)
    bad = refused(res, "--out")  # type: ignore[arg-type]
    return bad or (None if (tmp / name).read_bytes() == before else "the space file changed")


@case
def out_is_the_config_file(tmp: Path) -> str | None:
    (tmp / "c.toml").write_text('models = ["lightgbm-lambdarank"]\n')
    before = (tmp / "c.toml").read_bytes()
    res = tune(tmp, "--config", "c.toml", "--budget-trials", "2", out="c.toml")
    bad = refused(res, "--out")  # type: ignore[arg-type]
    return bad or (None if (tmp / "c.toml").read_bytes() == before else "the config changed")


# ------------------------------------------------------------------------------ --engine dask
@case
def workers_zero(tmp: Path) -> str | None:
    return _refused(tmp, "--engine", "dask", "--workers", "0", "|", "--workers")


@case
def workers_negative(tmp: Path) -> str | None:
    return _refused(tmp, "--engine", "dask", "--workers", "-1", "|", "--workers")


@case
def workers_huge(tmp: Path) -> str | None:
    return _refused(tmp, "--engine", "dask", "--workers", "1000", "|", "workers=1000")


@case
def workers_as_a_float(tmp: Path) -> str | None:
    return _refused(tmp, "--engine", "dask", "--workers", "1.5", "|", "--workers")


@case
def workers_without_the_dask_engine(tmp: Path) -> str | None:
    return _refused(tmp, "--workers", "3", "|", "workers", "dask")


@case
def dask_engine_with_every_core_per_trial(tmp: Path) -> str | None:
    return _refused(tmp, "--engine", "dask", "--threads", "0", "|", "--threads 0", "--engine dask")


@case
def dask_engine_with_a_configs_scheduler(tmp: Path) -> str | None:
    (tmp / "c.toml").write_text('models = ["lightgbm-lambdarank"]\nengine = "dask"\n'
                                'scheduler = "tcp://10.0.0.1:8786"\n')
    res = tune(tmp, "--config", "c.toml", "--budget-trials", "2")
    return refused(res, "scheduler", "local cluster") or _nothing_written(tmp)  # type: ignore[arg-type]


@case
def dask_engine_with_the_grid_sampler_is_planned_as_a_grid(tmp: Path) -> str | None:
    """Grid and parallel workers go together (each point once: the grid sampler deals points by
    trial number, ``tests/test_benchmark_tune_parallel.py``); the plan says both."""
    err = _budget_of(tmp, "--engine", "dask", "--workers", "2", "--grid", "num_leaves=3,5,7")
    return None if "Budget(kind='trials', amount=3)" in err else f"not a grid of 3: {err[-200:]}"


@case
def dask_engine_with_the_grid_sampler_and_ranges(tmp: Path) -> str | None:
    return _refused(tmp, "--engine", "dask", "--sampler", "grid", "|", "--sampler grid",
                    "ranges")


@case
def dask_engine_with_an_unknown_engine(tmp: Path) -> str | None:
    return _refused(tmp, "--engine", "ray", "|", "--engine")


# ------------------------------------------------------------------------------ the grid
@case
def grid_of_five_points_tries_each_once(tmp: Path) -> str | None:
    """The grid sampler re-seeded per trial dealt one point to several trials (7 twice, 11
    never, through ``ltrbench tune``); a grid is every point once. The tune's own sampler
    sequence, with a trial that only reads its point."""
    import optuna

    import bench.benchmark.study as study_mod
    from bench.benchmark.search_space import grid_space
    from bench.benchmark.study import StudyOptions, make_sampler, sampler_seed

    space = grid_space({"num_leaves": [3, 5, 7, 9, 11]})
    options = StudyOptions(sampler="grid", seed=0)
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    study = optuna.create_study(direction="maximize")
    for n in range(5):
        fresh = getattr(study_mod, "trial_sampler", None)  # (before the fix: a seed per trial)
        study.sampler = fresh(options, space, n) if fresh else \
            make_sampler("grid", sampler_seed(0, n), space)
        study.optimize(lambda t: float(space[0].suggest(t)), n_trials=1)
    got = sorted(t.params["num_leaves"] for t in study.trials)
    return None if got == [3, 5, 7, 9, 11] else f"grid points tried: {got}"


@pytest.mark.parametrize("fn", CASES, ids=[fn.__name__ for fn in CASES])
def test_round7(fn: Case, tmp_path: Path) -> None:
    bad = fn(tmp_path)
    assert bad is None, f"{fn.__name__}: {bad}"


def test_round7_covers_every_surface_of_the_brief() -> None:
    names = [fn.__name__ for fn in CASES]
    assert len(names) == len(set(names))
    for prefix in ("storage_", "space_", "budget_", "resume_", "out_", "workers_",
                   "dask_engine_", "grid_"):
        assert any(n.startswith(prefix) for n in names), prefix


def test_a_study_database_a_killed_writer_left_a_hot_journal_in_is_accepted(tmp_path: Path) -> None:
    """Found by the full suite: ``kill -9`` during a trial's write leaves ``study.db-journal``
    (a hot journal); the storage check read the database in read-only mode, where SQLite cannot
    roll the journal back ("attempt to write a readonly database"), so the killed tune could
    not be resumed. The check now lets SQLite roll it back, as the next writer would."""
    import signal
    import subprocess
    import sys
    import time

    from bench.benchmark.study import check_sqlite_url

    db = tmp_path / "study.db"
    con = sqlite3.connect(db)
    con.execute("create table studies (x)")
    con.execute("create table version_info (x)")
    con.commit()
    con.close()
    ready = tmp_path / "ready"
    writer = subprocess.Popen([sys.executable, "-c", (
        "import sqlite3, time, pathlib\n"
        f"con = sqlite3.connect({str(db)!r}, isolation_level=None)\n"
        "con.execute('pragma cache_size=1')\n"
        "con.execute('begin')\n"
        "for i in range(20000): con.execute('insert into studies values (?)', ('x' * 100,))\n"
        f"pathlib.Path({str(ready)!r}).touch()\n"
        "time.sleep(600)\n")])
    try:
        deadline = time.monotonic() + 600
        while not ready.exists():
            assert writer.poll() is None, "the writer ended before it wrote"
            assert time.monotonic() < deadline, "the writer never got ready"
            time.sleep(0.05)
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait()
    assert (tmp_path / "study.db-journal").exists()
    assert check_sqlite_url(f"sqlite:///{db}") == db
    con = sqlite3.connect(db)
    assert con.execute("select count(*) from studies").fetchone() == (0,)  # rolled back
    con.close()
