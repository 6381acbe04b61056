"""The one skeleton every gradient-boosted ranker is trained through.

A library module (named by its record in :mod:`bench.runners.libraries`: :mod:`bench.runners.lightgbm`,
:mod:`bench.runners.xgboost`, :mod:`bench.runners.catboost`) provides ``fit``
(train on the training split with early stopping on the validation split, never the test split;
returns the booster, the parameters the library got, and a :class:`FitResult` without scores)
and ``predict`` (scores of one split with the chosen iteration), and optionally
``check_splits(splits)`` (data the library cannot take, refused before it trains: LightGBM's
10,000 rows a query). :func:`train_gbdt` refuses a dataset whose validation split is its test
split, fits, then predicts validation and test once, timed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from bench.data.letor import LetorData, LetorSplits
from bench.errors import ConfigError
from bench.runners.custom_streams import stdout_to_stderr
from bench.runners.iteration import IterationHook
from bench.runners.libraries import LIBRARIES, load_module
from bench.runners.params import Params, check_rows, check_schedule
from bench.runners.raw_keys import unmatched
from bench.runners.result import (
    FitResult,
    Selection,
    check_splits_distinct,
    score_eval_splits,
    selection_at_door,
)

#: ``predict(booster, data, best_iteration, library_params)`` → scores of ``data``.
Predict = Callable[[Any, LetorData, int, dict[str, Any]], np.ndarray]


class Fit(Protocol):
    """``fit(train, vali, params, *, objective, eval_at, selection, log_train[, on_iteration])``
    (``on_iteration`` is passed only when a caller gives one: :mod:`bench.runners.iteration`)."""

    def __call__(
        self,
        train: LetorData,
        vali: LetorData,
        params: Params,
        *,
        objective: str,
        eval_at: tuple[int, ...],
        selection: Selection,
        log_train: bool,
        on_iteration: IterationHook | None = None,
    ) -> tuple[Any, dict[str, Any], FitResult]: ...


def library_module(library: str) -> Any:
    """The fit/predict module of a GBDT library (its record's
    :attr:`~bench.runners.libraries.Library.module`, imported on use: the libraries load lazily)."""
    if library not in LIBRARIES:
        raise KeyError(library)
    return load_module(library)


def train_gbdt(
    library: str,
    splits: LetorSplits,
    params: Params,
    *,
    model: str,
    objective: str,
    eval_at: tuple[int, ...] = (1, 3, 5, 10),
    selection: Selection | None = None,
    log_train: bool = True,
    select_metric: str | None = None,
    on_iteration: IterationHook | None = None,
) -> FitResult:
    """Train one ``library`` model and score the validation and test splits with its best iteration.

    The best iteration is the first maximum of the library's ``selection`` metric on the
    validation split (:func:`~bench.runners.result.best_iteration_from_log`); the test split is
    predicted once, at the end, and chooses nothing. ``select_metric`` (a name, parsed once
    here) is for callers that hold no :class:`~bench.runners.result.Selection`.
    ``on_iteration`` (:data:`~bench.runners.iteration.IterationHook`) is called once per boosting
    round with the validation value of the selection metric; an exception it raises propagates
    from here unchanged and no result is made.
    """
    chosen = selection_at_door(selection, select_metric)
    module = library_module(library)
    fit: Fit = module.fit
    predict: Predict = module.predict
    check_splits_distinct(splits)
    check_rows(params, library, splits.train.n_rows)
    check_schedule(params)  # the rounds that train: a Params alone is not checked for them
    if hasattr(module, "check_splits"):  # what the library itself would refuse mid-run
        module.check_splits(splits)
    hook: dict[str, IterationHook] = {} if on_iteration is None else {"on_iteration": on_iteration}
    # a library's own log (a raw verbosity = 1) goes to stderr: ``run --format json`` printed
    # LightGBM's "[LightGBM] [Info] ..." lines before its JSON document
    with stdout_to_stderr():
        booster, lib_params, result = fit(
            splits.train, splits.vali, params,
            objective=objective, eval_at=eval_at, selection=chosen, log_train=log_train, **hook,
        )
        best = int(result.best_iteration or 0)
        scored = score_eval_splits(
            result, splits, model=model, booster=booster,
            predict=lambda data: predict(booster, data, best, lib_params),
        )
    refuse_non_finite(scored, splits, library, params)
    said = unmatched(library, params.raw_params(library))
    if said:  # a raw key that unmatches a parity row: kept with the model's results
        scored.notes["unmatched"] = said
    return scored


def refuse_non_finite(result: FitResult, splits: LetorSplits, library: str,
                      params: Params) -> None:
    """A ConfigError naming the model, the split, the first row and the learning rate when a
    library predicted NaN or an infinity: its parameters let the model overflow (XGBoost keeps
    its margins as float32, so ``learning_rate = 3.4e38`` gives ``-inf`` after two trees). The
    evaluation said only ``row 1: score -inf is not a finite number``."""
    for split, scores in result.scores.items():
        bad = np.flatnonzero(~np.isfinite(scores))
        if bad.shape[0]:
            data = getattr(splits, split)
            where = f" ({data.source})" if getattr(data, "source", "") else ""
            title = LIBRARIES[library].title if library in LIBRARIES else library
            raise ConfigError(
                f"{result.model}: {title} predicted {bad.shape[0]:,} score(s) that are not "
                f"finite on the {split} split{where}, the first {float(scores[bad[0]])!r} at row "
                f"{bad[0] + 1}: the model overflowed under its parameters (learning_rate = "
                f"{params.learning_rate!r}); expected a smaller learning_rate (or raw "
                "parameters that keep the scores finite)")
