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
import subprocess
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from hostile_kit import ROOT, Res, api_refused, call, cli, letor_folder, refused, snapshot

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
    return cli(tmp, "convert", "--ratings", ratings, *CSV, "--out", out, *extra)


def convert_refused(tmp: Path, *extra_and_words: str, sep: str = "|") -> str | None:
    """``convert EXTRA`` refused with WORDS (``extra | words``), nothing written."""
    i = extra_and_words.index(sep)
    res = convert(tmp, *extra_and_words[:i])
    bad = refused(res, *extra_and_words[i + 1:])
    return bad or ("wrote an output folder" if (tmp / "cv").exists() else None)


@contextlib.contextmanager
def no_fit() -> Iterator[None]:
    """Any model fit of tune raises: a case that must be refused before any fit."""
    import bench.benchmark.tune as tune_mod

    def refuse(_library: str) -> Any:
        def fit(*_a: Any, **_k: Any) -> Any:
            raise AssertionError("a model was fitted before the refusal")
        return fit
    old = tune_mod._fitter
    tune_mod._fitter = refuse  # type: ignore[assignment]
    try:
        yield
    finally:
        tune_mod._fitter = old  # type: ignore[assignment]


def tune(tmp: Path, *args: str, out: str = "res", fit: bool = False) -> Res:
    if not (tmp / "letor").exists():
        letor_folder(tmp / "letor")
    argv = ("tune", "--dataset", "./letor", "--quick", "--no-progress", "--folds", "2",
            "--out", out, *args)
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
def tune_random_asks_more_than_the_grid_holds(tmp: Path) -> str | None:
    return tune_refused(tmp, "num_leaves=3,7", "--random 5", "2", extra=("--random", "5"))


@case(SILENT)
def tune_full_grid_of_27000_combinations(tmp: Path) -> str | None:
    from bench.benchmark.tune import candidates

    space = {"num_leaves": list(range(2, 32)), "min_data_in_leaf": list(range(1, 31)),
             "max_depth": list(range(1, 31))}
    _, exc = call(lambda: candidates(space, search="grid"))
    return api_refused(exc, "27,000", "--random")


@case(TRACE)
def tune_random_draw_from_a_grid_of_10_to_the_20(tmp: Path) -> str | None:
    """Three draws from 20 lists of 10 values: listing 10^20 combinations never ends (run in a
    child process under a 2 GB address-space limit and a 60 s timeout)."""
    code = ("import resource; resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30));"
            "from bench.benchmark.tune import candidates;"
            "s = {f'p{j}': list(range(10)) for j in range(20)};"
            "c = candidates(s, search='random', n_iter=3, seed=0);"
            "assert len(c) == 3 and len({tuple(x.values()) for x in c}) == 3; print('ok')")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                           text=True, timeout=60, cwd=tmp)
    except subprocess.TimeoutExpired:
        return "drawing 3 candidates did not finish in 60 s"
    return None if p.stdout.strip() == "ok" else f"failed: {p.stderr.strip()[-200:]}"


# ---------------------------------------------------------------------------- tune: folds
@case(UNCLEAR)
def tune_folds_more_than_the_training_queries(tmp: Path) -> str | None:
    return refused(tune(tmp, "--model", "lightgbm", "--grid", "num_leaves=3", "--folds", "40"),
                   "--folds", "40", "20")


@case(SILENT)
def tune_use_test_split_is_refused(tmp: Path) -> str | None:
    return refused(tune(tmp, "--model", "lightgbm", "--grid", "num_leaves=3", "--use", "test"),
                   "--use")


@case(WRONG)
def tune_never_touches_the_test_split(tmp: Path) -> str | None:
    """``tune()`` given splits whose test part raises on any access."""
    from bench.benchmark.tune import tune as run_tune
    from bench.datasets.resolve import load_dataset
    from bench.runners.params import Params

    letor_folder(tmp / "letor")
    real = load_dataset(str(tmp / "letor"), cache=False)

    class Sealed:
        def __getattr__(self, name: str) -> Any:
            raise AssertionError(f"tune read test.{name}")

    splits = types.SimpleNamespace(train=real.train, vali=real.vali, test=Sealed(),
                                   name=real.name)
    base = Params(n_trees=5, num_leaves=3, early_stopping_rounds=2)
    for use in ("train", "train+vali"):
        _, exc = call(lambda u=use: run_tune(splits, "lightgbm-lambdarank",  # type: ignore[misc]
                                             {"num_leaves": [3]}, base=base, n_folds=2, use=u))
        if exc is not None:
            return f"use={use}: {type(exc).__name__}: {exc}"
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
    want = [["best.toml", "folds.csv", "summary.csv"]] * 2
    return None if files == want else f"folders {[f.name for f in folders]} hold {files}"


@case(SILENT)
def tune_interrupted_while_writing_leaves_no_partial_folder(tmp: Path) -> str | None:
    from bench.benchmark.config import RunConfig

    def stop(*_a: Any, **_k: Any) -> str:
        raise KeyboardInterrupt
    old = RunConfig.to_toml
    RunConfig.to_toml = stop  # type: ignore[method-assign]
    try:
        tune(tmp, "--model", "lightgbm", "--grid", "num_leaves=3", fit=True)
    finally:
        RunConfig.to_toml = old  # type: ignore[method-assign]
    tuned = tmp / "res" / "tune"
    left = [p.name for p in tuned.iterdir()] if tuned.exists() else []
    return None if not left else f"left {left} behind"


# ---------------------------------------------------------------------------- tune: numbers
@case(SILENT)
def tune_json_names_the_profile_of_its_scores(tmp: Path) -> str | None:
    res = tune(tmp, "--model", "lightgbm", "--grid", "num_leaves=3", "--format", "json",
               fit=True)
    if res.status != 0:
        return f"exit {res.status}: {res.err.strip()[-200:]}"
    doc = json.loads(res.out)
    got = (doc.get("select_profile"), doc.get("run_profile"))
    return None if got == ("lightgbm", "ltrbench") else f"select/run profile {got}"


@case(SILENT)
def tune_under_profile_trec_eval_says_its_scores_are_lightgbm_s(tmp: Path) -> str | None:
    res = tune(tmp, "--model", "lightgbm", "--grid", "num_leaves=3", "--profile", "trec_eval",
               fit=True)
    if res.status != 0:
        return f"exit {res.status}: {res.err.strip()[-200:]}"
    line = next((ln for ln in res.out.splitlines() if ln.startswith("scores:")), "")
    ok = "'lightgbm'" in line and "'trec_eval'" in line and "built-in" in line
    return None if ok else f"no line naming both profiles in {res.out[-300:]!r}"


@case(SILENT)
def tune_model_xgboost_tunes_xgboost(tmp: Path) -> str | None:
    res = tune(tmp, "--model", "xgboost", "--grid", "max_depth=2,3", "--format", "json",
               fit=True)
    if res.status != 0:
        return f"exit {res.status}: {res.err.strip()[-200:]}"
    doc = json.loads(res.out)
    ok = doc["model"] == "xgboost-ndcg" and doc.get("select_profile", "xgboost") == "xgboost" \
        and "xgboost-ndcg" in Path(doc["folder"]).name and len(doc["candidates"]) == 2
    return None if ok else f"tuned {doc['model']} into {doc['folder']}"


@case(SILENT)
def tune_random_count_beyond_any_grid(tmp: Path) -> str | None:
    return tune_refused(tmp, "num_leaves=3,7", "--random", extra=("--random", "9" * 20))


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
