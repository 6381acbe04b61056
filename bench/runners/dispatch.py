"""Train one model by name: the single entry point the benchmark, ``tune`` and ``--permute-check`` use."""

from __future__ import annotations

import warnings
from dataclasses import replace

from bench.data.letor import LetorSplits
from bench.runners.baselines import DEFAULT_ALS, ALSParams, run_als, run_popularity, run_random
from bench.runners.custom import CustomModel, train_custom, verify_unchanged
from bench.runners.custom_checks import TiedScoresWarning, tied_scores
from bench.runners.gbdt import train_gbdt
from bench.runners.iteration import IterationHook
from bench.runners.params import Params
from bench.runners.registry import ModelSpec, get_model
from bench.runners.result import FitResult, Selection, selection_at_door


def run_model(
    model: str | ModelSpec,
    splits: LetorSplits,
    params: Params,
    *,
    seed: int,
    eval_at: tuple[int, ...] = (1, 3, 5, 10),
    selection: Selection | None = None,
    log_train: bool = True,
    als: ALSParams = DEFAULT_ALS,
    custom: CustomModel | None = None,
    select_metric: str | None = None,
    on_iteration: IterationHook | None = None,
) -> FitResult:
    """Train ``model`` with ``params`` (its ``seed`` replaced by ``seed``) and score vali and test.

    Early stopping and every choice use the validation split; baselines that do not apply to the
    data raise :class:`~bench.runners.result.NotApplicable`. ``custom``: the definition of a
    user's model named ``model`` (:func:`bench.runners.custom.train_custom`; ``params`` and the
    GBDT options do not apply to it). ``model`` is its resolved
    :class:`~bench.runners.registry.ModelSpec` (what the benchmark passes: nothing is looked up
    again) or a built-in model's name, looked up here. ``selection``: the metric early stopping
    watches, resolved (what the benchmark passes, from
    :attr:`bench.benchmark.config.RunConfig.selection_k`); ``select_metric``, a name parsed
    here once, is for callers that hold none. ``on_iteration``: a GBDT model's per-round hook
    (:mod:`bench.runners.iteration`); user models and baselines never call it.
    """
    chosen = selection_at_door(selection, select_metric)
    verify_unchanged(splits)  # a custom model's thread or finaliser wrote into the data since
    name = model.name if isinstance(model, ModelSpec) else model
    if custom is not None:
        if custom.name != name:
            raise ValueError(f"custom model {custom.name!r} given for model {name!r}")
        return train_custom(custom, splits, seed=seed)
    spec = model if isinstance(model, ModelSpec) else get_model(model)
    p = replace(params, seed=seed)
    if spec.is_gbdt:
        return _said_if_tied(train_gbdt(
            spec.library, splits, p, model=name, objective=spec.objective, eval_at=eval_at,
            selection=chosen, log_train=log_train, on_iteration=on_iteration,
        ), splits, f"{name} seed {seed}")
    if name == "popularity":
        return run_popularity(splits, seed)
    if name == "random":
        return run_random(splits, seed)
    return run_als(splits, seed, params=als, n_threads=p.resolved_threads())


def _said_if_tied(result: FitResult, splits: LetorSplits, where: str) -> FitResult:
    """A GBDT that grew no useful split (constant features, one-document or too few training
    rows for ``min_data_in_leaf``) scores every row of a query alike: its metrics are the tie
    rule's, not the model's. Warned (:class:`TiedScoresWarning`, as a user's model is) and noted."""
    for split, values in result.scores.items():
        tied = tied_scores(values, getattr(splits, split).offsets, split, where)
        if tied is not None:
            warnings.warn(tied, TiedScoresWarning, stacklevel=3)
            result.notes[f"{split}_scores"] = tied
    return result
