"""A tune folder with the layout ``ltrbench tune`` writes (bench/report/tuning.py), made by tiny
real Optuna studies: ``study.db``, ``trials.csv`` / ``trials.parquet``, ``best.toml``,
``best/<model>.toml`` and ``summary.json``. The objective is a smooth toy function of the
parameters (no training), so the folder is built in well under a second."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

LIBRARIES = {"lightgbm-lambdarank": "lightgbm", "xgboost-ndcg": "xgboost",
             "catboost-yetirank": "catboost"}


def make_tune_folder(folder: Path, models: tuple[str, ...] = tuple(LIBRARIES), *,
                     n_trials: int = 12, prune_all: bool = False, dataset: str = "synthetic",
                     seed: int = 0) -> Path:
    """Write a tune folder at ``folder``: one study ``"<dataset>:<model>"`` per model."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    folder.mkdir(parents=True, exist_ok=True)
    storage = f"sqlite:///{(folder / 'study.db').as_posix()}"
    rows: list[dict[str, object]] = []
    summary: dict[str, object] = {}  # the layout of h22a's bench/benchmark/tune_out.py
    (folder / "best").mkdir(exist_ok=True)
    for i, model in enumerate(models):
        study = optuna.create_study(study_name=f"{dataset}:{model}", storage=storage,
                                    direction="maximize",
                                    sampler=optuna.samplers.TPESampler(seed=seed + i))

        def objective(trial: optuna.Trial, i: int = i) -> float:
            lr = trial.suggest_float("learning_rate", 0.01, 0.3, log=True)
            leaves = trial.suggest_int("num_leaves", 4, 64)
            noise = trial.suggest_float("feature_fraction", 0.5, 1.0)
            if prune_all or trial.number % 4 == 3:
                raise optuna.TrialPruned()
            return float(0.6 + 0.02 * i - (np.log(lr) + 3.0) ** 2 / 50 - abs(leaves - 31) / 500
                         + 0.001 * noise)

        study.optimize(objective, n_trials=n_trials)
        cum, best = 0.0, np.nan
        for t in study.trials:
            cpu = 0.5 + 0.1 * t.number
            cum += cpu
            value = t.value if t.state == optuna.trial.TrialState.COMPLETE else np.nan
            if value == value:
                best = value if best != best else max(best, value)
            rows.append({"model": model, "library": LIBRARIES.get(model, "custom"),
                         "trial": t.number, "state": t.state.name, "value": value,
                         "metric": "ndcg@10", "profile": "ltrbench", "cpu_s": cpu,
                         "wall_s": cpu, "cum_cpu_s": cum, "best_so_far": best,
                         "best_iteration": 10 + t.number, "params": json.dumps(t.params)})
        done = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
        top = max(done, key=lambda t: t.value or 0.0) if done else None
        summary[model] = {"model": model, "library": LIBRARIES.get(model, "custom"),
                          "trials_run": n_trials, "complete": len(done),
                          "pruned": n_trials - len(done), "failed": 0,
                          "best_value": None if top is None else top.value,
                          "best_trial": None if top is None else top.number,
                          "best_params": None if top is None else top.params,
                          "metric": "ndcg@10", "profile": "ltrbench",
                          "budget": {"kind": "trials", "amount": n_trials}, "cpu_s": cum,
                          "sampler": "tpe", "pruner": "median", "seed": seed,
                          "study": f"{dataset}:{model}"}
        (folder / "best" / f"{model}.toml").write_text(
            f'dataset = "{dataset}"\nmodels = ["{model}"]\n', encoding="utf-8")
    frame = pd.DataFrame(rows)
    frame.to_csv(folder / "trials.csv", index=False)
    frame.to_parquet(folder / "trials.parquet", index=False)
    (folder / "summary.json").write_text(json.dumps(
        {"dataset": dataset, "folder": str(folder), "storage": storage, "metric": "ndcg@10",
         "profile": "ltrbench", "scored_on": "validation split", "models": summary}, indent=2),
        encoding="utf-8")
    (folder / "complete").write_text("2026-11-26T00:00:00+00:00\n", encoding="utf-8")
    names = ", ".join(f'"{m}"' for m in models)
    (folder / "best.toml").write_text(f'dataset = "{dataset}"\nmodels = [{names}]\n',
                                      encoding="utf-8")
    return folder


def make_runs(out: Path, models: tuple[str, ...] = ("lightgbm-lambdarank", "xgboost-ndcg")
              ) -> tuple[Path, Path, Path]:
    """``(default run, tuned run, tune folder)`` in ``out``: two tiny runs on the same splits and
    seeds (tests/test_reproduce.py's), the second with ``[model_params]``, and a tune folder of
    the same models whose ``best.toml`` is the tuned run's config."""
    from dataclasses import replace

    from test_reproduce import CONFIG, _loader

    from bench.benchmark.pipeline import run_benchmark

    default = run_benchmark(replace(CONFIG, models=models), out_dir=out, progress=False,
                            loader=_loader)
    tuned = run_benchmark(tuned_config(models), out_dir=out, progress=False, loader=_loader)
    folder = make_tune_folder(out / "tune" / "t1", models, dataset="tiny")
    (folder / "best.toml").write_text(tuned_config(models).to_toml(), encoding="utf-8")
    return default, tuned, folder


TUNED_PARAMS = {"lightgbm-lambdarank": {"num_leaves": 7, "learning_rate": 0.3},
                "xgboost-ndcg": {"learning_rate": 0.3}}


def tuned_config(models: tuple[str, ...]) -> object:
    """tests/test_reproduce.py's config of ``models`` with :data:`TUNED_PARAMS`."""
    from dataclasses import replace

    from test_reproduce import CONFIG

    cfg = replace(CONFIG, models=models)
    for model in models:
        cfg = cfg.with_model_params(cfg.model_spec(model), TUNED_PARAMS[model])
    return cfg
