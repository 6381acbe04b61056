"""Train one model by name: the single entry point the pipeline, ``tune`` and ``--permute-check`` use."""

from __future__ import annotations

from dataclasses import replace

from bench.data.letor import LetorSplits
from bench.runners.baselines import DEFAULT_ALS, ALSParams, run_als, run_popularity, run_random
from bench.runners.params import Params
from bench.runners.registry import get_model
from bench.runners.result import SELECTION_SPLIT, FitResult, check_selection_split


def run_model(
    model: str,
    splits: LetorSplits,
    params: Params,
    *,
    seed: int,
    eval_at: tuple[int, ...] = (1, 3, 5, 10),
    select_metric: str = "ndcg@10",
    early_stopping_split: str = SELECTION_SPLIT,
    log_train: bool = True,
    als: ALSParams = DEFAULT_ALS,
) -> FitResult:
    """Train ``model`` with ``params`` (its ``seed`` replaced by ``seed``) and score vali and test.

    Baselines that do not apply to the data raise :class:`~bench.runners.result.NotApplicable`.
    Any ``early_stopping_split`` but ``"vali"`` raises :class:`~bench.errors.ConfigError`.
    """
    check_selection_split(early_stopping_split)
    spec = get_model(model)
    p = replace(params, seed=seed)
    if spec.library == "lightgbm":
        from bench.runners.lightgbm import run_lightgbm

        return run_lightgbm(
            splits, p, model=model, objective=spec.objective, eval_at=eval_at,
            select_metric=select_metric, early_stopping_split=early_stopping_split,
            log_train=log_train,
        )
    if spec.library == "xgboost":
        from bench.runners.xgboost import run_xgboost

        return run_xgboost(
            splits, p, model=model, objective=spec.objective, eval_at=eval_at,
            select_metric=select_metric, early_stopping_split=early_stopping_split,
            log_train=log_train,
        )
    if model == "popularity":
        return run_popularity(splits, seed)
    if model == "random":
        return run_random(splits, seed)
    return run_als(splits, seed, params=als, n_threads=p.resolved_threads())
