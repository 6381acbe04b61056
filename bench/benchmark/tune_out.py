"""The folder of one ``ltrbench tune``: ``<out>/tune/<name>/``, written as the study goes.

A study can be killed and resumed, so the folder cannot be written whole at the end as before;
it is written in this order instead, and is finished only when ``complete`` exists:

- ``plan.json`` first (what was asked: dataset, models, budget, sampler, pruner, seed, folds,
  metric, profile, the space of each model, the engine and its workers, and under
  ``config_file`` the ``--config`` file and the options that won over it, and ``data``: the
  fingerprints of the training and validation splits; ``--resume`` refuses a request that
  differs, other data under the same name, and a study database that lacks a trial of
  ``trials.csv``:
  :func:`check_resumed_study`);
- ``study.db``: the SQLite database of the Optuna studies, one per model, named
  ``<dataset>:<model>`` (unless ``--storage`` names another database);
- ``trials.csv`` and ``trials.parquet``, replaced after every trial (:data:`TRIAL_COLUMNS`,
  one row per counted trial: a trial a kill interrupted is left out);
- at the end ``best/<model>.toml`` (a run config of that model with its best parameters in
  ``[model_params.<model>]``), ``best.toml`` (all models), each with its dataset path relative
  to its own folder and ``paths_relative_to = "config file"`` (it runs from any working folder,
  and after the tune folder and the data move together), ``summary.json``, then ``complete``.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.data.atomic import replace_file_set, write_text
from bench.data.jsonio import dumps
from bench.errors import ConfigError
from bench.runs.tune_layout import (
    BEST,
    COMPLETE,
    PLAN,
    SUMMARY,
    TRIAL_COLUMNS,
    TRIALS_CSV,
    TRIALS_PARQUET,
)

#: Keys of ``plan.json`` a resumed tune must ask alike.
RESUME_KEYS = ("dataset", "models", "budget", "sampler", "pruner", "seed", "cv", "use", "metric",
               "profile", "space", "base_params", "storage")


def reserve_folder(out: Path, name: str) -> Path:
    """A new empty folder ``out/tune/<name>`` (``<name>-2``, ... when taken)."""
    parent = out / "tune"
    parent.mkdir(parents=True, exist_ok=True)
    for n in itertools.count(1):
        folder = parent / (name if n == 1 else f"{name}-{n}")
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        return folder
    raise AssertionError("unreachable")  # pragma: no cover


def resumable(out: Path, folder: str | None, slug: str) -> Path:
    """The folder ``--resume`` continues: the one named (a path, or a name under ``out/tune``),
    else the newest unfinished one of the dataset ``slug`` under ``out/tune``."""
    if folder:
        path = Path(folder)
        path = path if path.is_dir() else out / "tune" / folder
        if not (path / PLAN).is_file():
            raise ConfigError(f"--resume {folder}: not a tune folder (no {PLAN} in {path})")
        if (path / COMPLETE).exists():
            raise ConfigError(f"--resume {folder}: {path} is complete; nothing to resume")
        return path
    parent = out / "tune"
    found = sorted((p for p in parent.glob(f"{slug}-*") if (p / PLAN).is_file()
                    and not (p / COMPLETE).exists()), key=lambda p: (p / PLAN).stat().st_mtime)
    if not found:
        raise ConfigError(f"--resume: no unfinished tune of {slug} under {parent}; start one "
                          "without --resume")
    return found[-1]


def write_plan(folder: Path, plan: Mapping[str, Any]) -> None:
    """``plan.json`` (written before the first trial)."""
    write_text(folder / PLAN, json.dumps(plan, indent=2, sort_keys=True) + "\n")


def check_resume(folder: Path, plan: Mapping[str, Any]) -> None:
    """Refuse to resume ``folder`` with a request that differs from the one it was started with
    (another budget or sampler would not continue the same study)."""
    from bench.data.jsonio import read_json_object

    old = read_json_object(folder / PLAN, "the plan of a tune (plan.json)")
    missing = [k for k in RESUME_KEYS if k not in old]
    if missing:  # a hand-edited plan: not "null then" as if the tune had asked for nothing
        raise ConfigError(f"--resume {folder}: {PLAN} lacks the field(s) "
                          f"{', '.join(map(repr, missing))} a tune writes; the folder is damaged "
                          "(changed outside ltrbench): start a new tune")
    if "data" in old and old["data"] != plan.get("data"):  # absent from a plan before round 18
        raise ConfigError(f"--resume {folder}: the data differ from those the tune was started "
                          f"on (training and validation fingerprints {json.dumps(old['data'])} "
                          f"then, {json.dumps(plan.get('data'))} now): the trials so far were "
                          "scored on the other data; start a new tune")
    for key in RESUME_KEYS:
        if old.get(key) != json.loads(json.dumps(plan.get(key))):
            raise ConfigError(f"--resume {folder}: {key} differs from the tune it continues: "
                              f"{json.dumps(old.get(key))} then, {json.dumps(plan.get(key))} now")


def recorded_trials(folder: Path) -> pd.DataFrame:
    """The trials ``trials.csv`` of a resumed folder lists (``model``, ``trial``, ``params``;
    empty when there is none yet)."""
    path = folder / TRIALS_CSV
    if not path.is_file():
        return pd.DataFrame(columns=["model", "trial", "params"])
    try:
        table = pd.read_csv(path, dtype={"model": str, "params": str, "trial": str},
                            keep_default_na=False)[["model", "trial", "params"]]
    except (ValueError, KeyError, pd.errors.ParserError) as exc:
        raise ConfigError(f"--resume {folder}: {TRIALS_CSV} cannot be read ({exc}); it is "
                          "rewritten from the study: remove it to resume") from None
    for i, text in enumerate(table["trial"]):  # a trial number, as the study numbers them
        if not (text.isascii() and text.isdigit()):
            raise ConfigError(f"--resume {folder}: {TRIALS_CSV} line {i + 2}, column 'trial': "
                              f"{text!r} is not a trial number (an integer >= 0); it is "
                              "rewritten from the study: remove it to resume")
    return table.assign(trial=table["trial"].astype(int))


def check_resumed_study(folder: Path, study: Any, model: str, recorded: pd.DataFrame) -> None:
    """Refuse to resume ``model``'s study when it lacks a trial ``trials.csv`` lists (the
    database was deleted, or replaced by another tune's): continuing would replace those trials
    in silence. The study may hold more (a kill between its write and the table's)."""
    mine = recorded[recorded["model"] == model]
    if mine.empty:
        return
    held = {t.number: json.dumps(t.params, sort_keys=True) for t in counted_trials(study)}
    for row in mine.itertuples():
        if held.get(int(row.trial)) != row.params:
            raise ConfigError(f"--resume {folder}: the study of {model} does not hold trial "
                              f"{row.trial} of {TRIALS_CSV} ({row.params}): its database is "
                              "not this tune's (deleted or replaced); start a new tune")


def counted_trials(study: Any) -> list[Any]:
    """:func:`bench.benchmark.study.counted` (imported when used)."""
    from bench.benchmark.study import counted

    return counted(study)


def trials_frame(study: Any, model: str, library: str, metric: str, profile: str) -> pd.DataFrame:
    """One row per counted trial of ``study`` (:data:`TRIAL_COLUMNS`), in trial order."""
    from bench.benchmark.study import counted

    rows = []
    cum, best = 0.0, -math.inf
    for t in counted(study):
        cpu = float(t.user_attrs.get("cpu_s", math.nan))
        cum += 0.0 if math.isnan(cpu) else cpu
        value = float(t.value) if t.state.name == "COMPLETE" and t.value is not None else math.nan
        best = max(best, value) if not math.isnan(value) else best
        rows.append({"model": model, "library": library, "trial": t.number, "state": t.state.name,
                     "value": value, "metric": metric, "profile": profile, "cpu_s": cpu,
                     "wall_s": float(t.user_attrs.get("wall_s", math.nan)), "cum_cpu_s": cum,
                     "best_so_far": best if best > -math.inf else math.nan,
                     "best_iteration": float(t.user_attrs.get("best_iteration", math.nan))
                     if t.state.name == "COMPLETE" else math.nan,
                     "params": json.dumps(t.params, sort_keys=True)})
    return pd.DataFrame(rows, columns=list(TRIAL_COLUMNS))


def write_trials(folder: Path, frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """``trials.csv`` and ``trials.parquet`` of every model so far, replaced as one set."""
    import io

    table = pd.concat(list(frames), ignore_index=True) if frames else \
        pd.DataFrame(columns=list(TRIAL_COLUMNS))
    table = table.astype({"trial": np.int64, "value": np.float64, "cpu_s": np.float64,
                          "wall_s": np.float64, "cum_cpu_s": np.float64,
                          "best_so_far": np.float64, "best_iteration": "Int64"})
    buf = io.BytesIO()
    table.to_parquet(buf, index=False)
    with replace_file_set(folder, (TRIALS_CSV, TRIALS_PARQUET)) as tmp:  # one set: a fault at
        (tmp / TRIALS_CSV).write_text(table.to_csv(index=False), encoding="utf-8")  # the second
        (tmp / TRIALS_PARQUET).write_bytes(buf.getvalue())  # left two files of two tables
    return table


def model_summary(study: Any, trials: pd.DataFrame, info: Mapping[str, Any]) -> dict[str, Any]:
    """A model's entry of ``summary.json``: ``info`` (model, library, metric, profile, budget,
    sampler, pruner, seed, ...) with the counts, the best trial and its parameters, CPU seconds."""
    states = trials["state"].value_counts()
    complete = trials[trials["state"] == "COMPLETE"]
    out: dict[str, Any] = {**info, "study": study.study_name, "trials_run": len(trials),
                           "complete": int(states.get("COMPLETE", 0)),
                           "pruned": int(states.get("PRUNED", 0)),
                           "failed": int(states.get("FAIL", 0)),
                           "cpu_s": float(trials["cpu_s"].sum()),
                           "wall_s": float(trials["wall_s"].sum()),
                           "best_value": None, "best_trial": None, "best_params": None,
                           "best_iteration": None}
    if not complete.empty:
        top = complete.loc[complete["value"].idxmax()]  # the first maximum: the earlier trial
        out.update(best_value=float(top["value"]), best_trial=int(top["trial"]),
                   best_params=json.loads(top["params"]),
                   best_iteration=int(top["best_iteration"]))
    return out


def write_results(folder: Path, summary: Mapping[str, Any], configs: Mapping[str, str],
                  best_all: str) -> None:
    """``best/<model>.toml``, ``best.toml`` and ``summary.json`` as one set (every file complete
    before any earlier one is replaced: a fault at ``summary.json`` left the new ``best.toml``
    beside the earlier summary), then ``complete`` (last)."""
    with replace_file_set(folder / "best", [f"{m}.toml" for m in configs]) as best, \
            replace_file_set(folder, (BEST, SUMMARY)) as top:
        for model, text in configs.items():
            write_text(best / f"{model}.toml", text)
        write_text(top / BEST, best_all)
        write_text(top / SUMMARY, dumps(summary))  # strict JSON, as its reader takes it
    write_text(folder / COMPLETE, dt.datetime.now(dt.timezone.utc).isoformat() + "\n")
