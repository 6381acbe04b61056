"""Hostile ``ltrbench tune`` cases (and the helpers of ``hostile_cases_convert.py``) (issue 19), new instances beyond
``tests/test_hostile_config.py``, ``test_hostile_outputs.py`` and ``hostile_cases_*.py``.

Each case gets a fresh folder and returns ``None`` when ltrbench behaved (a clear error with the
named words, the right file set, an input left intact), else one line saying what went wrong;
:data:`CASES` lists ``(class, function)``. ``tests/test_hostile_tune_convert.py`` runs them.
Golden values are hand arithmetic: the grid ``num_leaves=3,7`` has 2 combinations, ``3 x 30``
values 27,000 > 10,000; the ratings of :func:`ratings_csv` are 1-5 (``(u + k) % 5 + 1``).
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from hostile_kit import Res, call, cli, letor_folder, overridden, refused, snapshot

Case = Callable[[Path], "str | None"]
CASES: list[tuple[str, Case]] = []
SILENT, TRACE, UNCLEAR, DESTROYED, WRONG = ("silent accepts", "tracebacks", "unclear errors",
                                            "inputs destroyed", "silently wrong numbers")


def case(klass: str) -> Callable[[Case], Case]:
    def add(fn: Case) -> Case:
        CASES.append((klass, fn))
        return fn
    return add


def ratings_csv(path: Path, *, scale: int = 1, offset: int = 0, reverse: bool = False) -> Path:
    """15 users x 12 ratings of 30 items (item ``(5u + 7k) % 30 + 1``: distinct per user, as 7
    is prime to 30), rating ``((u + k) % 5 + 1) * scale + offset``, time ``1000 u + k``."""
    rows = [f"{u},{(5 * u + 7 * k) % 30 + 1},{((u + k) % 5 + 1) * scale + offset},{1000 * u + k}"
            for u in range(1, 16) for k in range(12)]
    path.write_text("user,item,rating,timestamp\n" + "\n".join(rows[::-1] if reverse else rows)
                    + "\n")
    return path


CSV = ("--layout", "csv", "--user", "user", "--item", "item", "--rating", "rating",
       "--timestamp", "timestamp", "--target-size", "2", "--min-history", "2", "--negatives", "3",
       "--features", "user,item")


def convert(tmp: Path, *extra: str, ratings: str = "r.csv", out: str = "cv") -> Res:
    if not (tmp / "r.csv").exists():
        ratings_csv(tmp / "r.csv")
    return cli(tmp, "convert", "--ratings", ratings, "--out", out, *overridden(CSV, extra))


def convert_refused(tmp: Path, *extra_and_words: str, sep: str = "|") -> str | None:
    """``convert EXTRA`` refused with WORDS (``extra | words``), nothing written."""
    i = extra_and_words.index(sep)
    res = convert(tmp, *extra_and_words[:i])
    bad = refused(res, *extra_and_words[i + 1:])
    return bad or ("wrote an output folder" if (tmp / "cv").exists() else None)


@contextlib.contextmanager
def no_fit() -> Iterator[None]:
    """Any model fit of tune raises: a case that must be refused before any fit."""
    import bench.benchmark.study as study_mod

    def fit(*_a: Any, **_k: Any) -> Any:
        raise AssertionError("a model was fitted before the refusal")

    def refuse(_library: str) -> Any:
        return types.SimpleNamespace(fit=fit, predict=fit)
    old = study_mod.library_module
    study_mod.library_module = refuse  # type: ignore[assignment]
    try:
        yield
    finally:
        study_mod.library_module = old  # type: ignore[assignment]


def tune(tmp: Path, *args: str, out: str = "res", fit: bool = False) -> Res:
    if not (tmp / "letor").exists():
        letor_folder(tmp / "letor")
    argv = ("tune", *overridden(("--dataset", "./letor", "--quick", "--no-progress", "--cv", "2",
                                 "--out", out), args))
    if fit:
        return cli(tmp, *argv)
    with no_fit():
        return cli(tmp, *argv)


def tune_refused(tmp: Path, grid: str, *words: str, extra: tuple[str, ...] = ()) -> str | None:
    bad = refused(tune(tmp, "--model", "lightgbm", "--grid", grid, *extra), *words)
    return bad or ("wrote a tune folder" if (tmp / "res" / "tune").exists()
                   and any((tmp / "res" / "tune").iterdir()) else None)


# ---------------------------------------------------------------------------- tune: --grid
@case(SILENT)
def tune_grid_names_a_parameter_twice(tmp: Path) -> str | None:
    return tune_refused(tmp, "num_leaves=3,7;num_leaves=15", "num_leaves", "twice")


@case(SILENT)
def tune_grid_has_an_empty_value_between_commas(tmp: Path) -> str | None:
    return tune_refused(tmp, "num_leaves=3,,7", "num_leaves", "empty")


@case(SILENT)
def tune_grid_ends_with_a_comma(tmp: Path) -> str | None:
    return tune_refused(tmp, "num_leaves=3,7,", "num_leaves", "empty")


@case(SILENT)
def tune_grid_gives_one_learning_rate_as_int_and_float(tmp: Path) -> str | None:
    return tune_refused(tmp, "learning_rate=1,1.0", "learning_rate", "repeats")


@case(SILENT)
def tune_trial_budget_above_the_grid_runs_each_point_once(tmp: Path) -> str | None:
    res = tune(tmp, "--model", "lightgbm", "--grid", "num_leaves=3,7", "--budget-trials", "5",
               "--format", "json", fit=True)
    if res.status != 0:
        return f"exit {res.status}: {res.err.strip()[-200:]}"
    n = json.loads(res.out)["models"]["lightgbm-lambdarank"]["trials_run"]
    return None if n == 2 else f"{n} trials for a grid of 2 points"


@case(SILENT)
def tune_two_budgets_at_once(tmp: Path) -> str | None:
    return tune_refused(tmp, "num_leaves=3,7", "--budget-trials", "--budget-cpu-s", "one budget",
                        extra=("--budget-trials", "2", "--budget-cpu-s", "3"))


@case(TRACE)
def tune_grid_of_10_to_the_7_points(tmp: Path) -> str | None:
    """Optuna's grid sampler lists every point: 10^7 of them is refused before it starts."""
    grid = ";".join(f"{name}={','.join(str(v) for v in range(2, 12))}" for name in (
        "num_leaves", "max_bin", "min_data_in_leaf", "max_depth", "truncation_level",
        "early_stopping_rounds", "n_trees"))
    return tune_refused(tmp, grid, "10,000,000", "--sampler random")


# ---------------------------------------------------------------------------- tune: folds
@case(UNCLEAR)
def tune_folds_more_than_the_training_queries(tmp: Path) -> str | None:
    return refused(tune(tmp, "--model", "lightgbm", "--grid", "num_leaves=3", "--cv", "40"),
                   "--cv", "40", "20")


@case(SILENT)
def tune_use_test_split_is_refused(tmp: Path) -> str | None:
    return refused(tune(tmp, "--model", "lightgbm", "--grid", "num_leaves=3", "--use", "test"),
                   "--use")


@case(WRONG)
def tune_never_touches_the_test_split(tmp: Path) -> str | None:
    """The engine given splits whose test part raises on any access."""
    from bench.benchmark.config import RunConfig
    from bench.benchmark.tune_run import TuneRequest, plan_tune, tune_loaded
    from bench.datasets.resolve import load_dataset
    from bench.runners.params import Params

    letor_folder(tmp / "letor")
    real = load_dataset(str(tmp / "letor"), cache=False)

    class Sealed:
        def __getattr__(self, name: str) -> Any:
            raise AssertionError(f"tune read test.{name}")

    splits = types.SimpleNamespace(train=real.train, vali=real.vali, test=Sealed(),
                                   name=real.name)
    config = RunConfig(dataset=str(tmp / "letor"), models=("lightgbm-lambdarank",),
                       params=Params(n_trees=5, num_leaves=3, early_stopping_rounds=2))
    for use, cv in (("train", None), ("train", "2"), ("train+vali", "2")):
        plan = plan_tune(TuneRequest(grid="num_leaves=3", cv=cv, use=use,
                                     out=str(tmp / f"res-{use}-{cv}")), lambda: config)
        _, exc = call(lambda p=plan: tune_loaded(p, splits))  # type: ignore[misc]
        if exc is not None:
            return f"use={use} cv={cv}: {type(exc).__name__}: {exc}"
    return None


# ---------------------------------------------------------------------------- tune: outputs
@case(TRACE)
def tune_out_tune_is_a_file(tmp: Path) -> str | None:
    (tmp / "res").mkdir()
    (tmp / "res" / "tune").write_text("keep me\n")
    bad = refused(tune(tmp, "--model", "lightgbm", "--grid", "num_leaves=3"), "--out", "tune")
    return bad or (None if (tmp / "res" / "tune").read_text() == "keep me\n" else "file changed")


@case(TRACE)
def tune_out_tune_is_a_fifo(tmp: Path) -> str | None:
    (tmp / "res").mkdir()
    os.mkfifo(tmp / "res" / "tune")
    return refused(tune(tmp, "--model", "lightgbm", "--grid", "num_leaves=3"), "--out", "FIFO")


@case(DESTROYED)
def tune_out_tune_is_a_symlink_to_the_dataset(tmp: Path) -> str | None:
    letor_folder(tmp / "letor")
    before = snapshot(tmp / "letor")
    (tmp / "res").mkdir()
    (tmp / "res" / "tune").symlink_to(tmp / "letor")
    bad = refused(tune(tmp, "--model", "lightgbm", "--grid", "num_leaves=3"), "--out",
                  "--dataset")
    return bad or (None if snapshot(tmp / "letor") == before else "the dataset folder changed")


@case(DESTROYED)
def tune_out_is_a_hard_link_of_a_dataset_file(tmp: Path) -> str | None:
    letor_folder(tmp / "letor")
    os.link(tmp / "letor" / "train.txt", tmp / "res")
    before = snapshot(tmp / "letor")
    bad = refused(tune(tmp, "--model", "lightgbm", "--grid", "num_leaves=3"), "--out")
    return bad or (None if snapshot(tmp / "letor") == before else "the dataset changed")


@case(TRACE)
def tune_twice_in_the_same_second_keeps_both(tmp: Path) -> str | None:
    import bench.benchmark.tune_run as cmd  # the folder name is stamped where the tune runs

    class Frozen(datetime.datetime):
        @classmethod
        def now(cls, tz: Any = None) -> Frozen:  # type: ignore[override]
            return cls(2026, 1, 2, 3, 4, 5, tzinfo=tz)

    old = cmd.dt
    cmd.dt = types.SimpleNamespace(datetime=Frozen, timezone=datetime.timezone)  # type: ignore[assignment]
    try:
        runs = [tune(tmp, "--model", "lightgbm", "--grid", f"num_leaves={n}", fit=True)
                for n in (3, 7)]
    finally:
        cmd.dt = old
    if any(r.traceback or r.status != 0 for r in runs):
        return "; ".join(f"exit {r.status}: {r.err.strip()[-160:]}" for r in runs)
    folders = sorted((tmp / "res" / "tune").iterdir())
    files = [sorted(p.name for p in f.iterdir()) for f in folders]
    want = [["best", "best.toml", "best_so_far.png", "complete", "plan.json", "study.db", "summary.json",
             "trials.csv", "trials.parquet"]] * 2
    return None if files == want else f"folders {[f.name for f in folders]} hold {files}"


@case(SILENT)
def tune_interrupted_while_writing_is_unfinished_and_resumes(tmp: Path) -> str | None:
    """A study is written as it goes: an interrupted tune leaves a folder without ``complete``
    (never one that looks finished), and ``--resume`` finishes it."""
    from bench.benchmark.config import RunConfig

    def stop(*_a: Any, **_k: Any) -> str:
        raise KeyboardInterrupt
    old = RunConfig.to_toml
    RunConfig.to_toml = stop  # type: ignore[method-assign]
    try:
        tune(tmp, "--model", "lightgbm", "--grid", "num_leaves=3", fit=True)
    finally:
        RunConfig.to_toml = old  # type: ignore[method-assign]
    (folder,) = (tmp / "res" / "tune").iterdir()
    if (folder / "complete").exists() or (folder / "best.toml").exists():
        return f"an interrupted tune looks finished: {sorted(p.name for p in folder.iterdir())}"
    res = tune(tmp, "--model", "lightgbm", "--grid", "num_leaves=3", "--resume", fit=True)
    if res.status != 0:
        return f"--resume: exit {res.status}: {res.err.strip()[-200:]}"
    return None if (folder / "complete").exists() else "--resume did not finish it"


# ---------------------------------------------------------------------------- tune: numbers
@case(SILENT)
def tune_json_names_the_profile_of_its_scores(tmp: Path) -> str | None:
    res = tune(tmp, "--model", "lightgbm", "--grid", "num_leaves=3", "--format", "json",
               fit=True)
    if res.status != 0:
        return f"exit {res.status}: {res.err.strip()[-200:]}"
    doc = json.loads(res.out)
    entry = doc["models"]["lightgbm-lambdarank"]
    got = (doc.get("profile"), doc.get("metric"), entry.get("profile"), entry.get("metric"))
    return None if got == ("ltrbench", "ndcg@10") * 2 else f"profile/metric {got}"


@case(SILENT)
def tune_under_profile_trec_eval_scores_under_trec_eval(tmp: Path) -> str | None:
    res = tune(tmp, "--model", "lightgbm", "--grid", "num_leaves=3", "--profile", "trec_eval",
               fit=True)
    if res.status != 0:
        return f"exit {res.status}: {res.err.strip()[-200:]}"
    line = next((ln for ln in res.out.splitlines() if ln.startswith("scores:")), "")
    ok = "'trec_eval'" in line and "reference evaluator" in line
    return None if ok else f"no line naming both profiles in {res.out[-300:]!r}"


@case(SILENT)
def tune_model_xgboost_tunes_xgboost(tmp: Path) -> str | None:
    res = tune(tmp, "--model", "xgboost", "--grid", "max_depth=2,3", "--format", "json",
               fit=True)
    if res.status != 0:
        return f"exit {res.status}: {res.err.strip()[-200:]}"
    doc = json.loads(res.out)
    models = doc["models"]
    ok = list(models) == ["xgboost-ndcg"] and models["xgboost-ndcg"]["trials_run"] == 2 \
        and Path(models["xgboost-ndcg"]["best_config"]).name == "xgboost-ndcg.toml"
    return None if ok else f"tuned {list(models)}"


@case(SILENT)
def tune_trial_budget_beyond_any_count(tmp: Path) -> str | None:
    return tune_refused(tmp, "num_leaves=3,7", "--budget-trials",
                        extra=("--budget-trials", "9" * 20))


@case(DESTROYED)
def tune_out_is_the_device_dev_null(tmp: Path) -> str | None:
    return refused(tune(tmp, "--model", "lightgbm", "--grid", "num_leaves=3", out="/dev/null"),
                   "--out", "/dev/null", "device")


@case(TRACE)
def tune_catboost_num_leaves_above_its_lossguide_limit(tmp: Path) -> str | None:
    """LightGBM takes up to 131072 leaves, CatBoost's Lossguide policy 65536."""
    return refused(tune(tmp, "--model", "catboost", "--grid", "num_leaves=31,100000"),
                   "num_leaves", "100000", "65536")


@case(TRACE)
def tune_xgboost_colsample_at_the_float32_minimum(tmp: Path) -> str | None:
    return refused(tune(tmp, "--model", "xgboost", "--grid",
                        "colsample=1.1754943508222875e-38,0.5"), "colsample")


@case(TRACE)
def tune_catboost_learning_rate_below_float32_epsilon(tmp: Path) -> str | None:
    """CatBoost refuses a float32 rate at or below FLT_EPSILON (2^-23 = 1.19e-07)."""
    return refused(tune(tmp, "--model", "catboost", "--grid", "learning_rate=1e-7,0.1"),
                   "learning_rate", "1e-07")
