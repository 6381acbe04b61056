"""LightGBM runner: ``lambdarank``, ``rank_xendcg`` and ``regression`` with validation early stopping.

``lightgbm.train`` gets the parameters of :func:`bench.runners.params.lightgbm_params`, the
training and validation datasets (never the test set), ``record_evaluation`` for the library's
own NDCG log on train and validation, and an early-stopping callback that watches one metric on
the validation set (LightGBM's ``early_stopping`` callback watches every metric and stops when
any of them stalls, so ``ndcg@1`` could end training before ``ndcg@10`` peaks). The model then
predicts validation and test with the best iteration: the first maximum of the validation metric.
"""

from __future__ import annotations

from typing import Any, cast

import lightgbm as lgb
import numpy as np

from bench.data.letor import LetorData, LetorSplits
from bench.errors import ConfigError, DataError
from bench.runners.iteration import IterationHook
from bench.runners.params import Params, lightgbm_params
from bench.runners.resources import measure
from bench.runners.result import (
    DEFAULT_SELECTION,
    SELECTION_SPLIT,
    FitResult,
    Selection,
    check_ranking_labels,
    fit_result,
    library_eval_at,
)

#: Rows a query may have: LightGBM's ``DCGCalculator::kMaxPosition`` (``src/metric/
#: dcg_calculator.cpp``), checked by ``CheckMetadata`` for lambdarank and the ndcg/map metrics
#: ("Number of rows ... exceeds upper limit of 10000 for a query", a ``LightGBMError``).
MAX_QUERY_ROWS = 10_000


def check_splits(splits: LetorSplits) -> None:
    """A query of more than :data:`MAX_QUERY_ROWS` rows in any split, named before training: the
    objective and the ndcg of training and early stopping read train and vali, LightGBM's own
    ndcg in the cross-check reads test. Without this a training query ended ``run`` in a raw
    ``LightGBMError``, and a test query failed the cross-check after every model had trained."""
    for split, data in splits.splits().items():
        sizes = data.group_sizes
        if sizes.size and int(sizes.max()) > MAX_QUERY_ROWS:
            g = int(np.argmax(sizes))
            raise DataError(
                f"{split} query {data.query_ids[g].item()!r} has {int(sizes[g])} rows: LightGBM "
                f"ranks at most {MAX_QUERY_ROWS} rows a query (DCGCalculator::kMaxPosition; "
                "its lambdarank objective and ndcg metric stop with 'exceeds upper limit of "
                f"10000 for a query'); cut the query to its top {MAX_QUERY_ROWS} candidates, "
                "or train the other libraries (--models xgboost,catboost)",
                path=data.source or None, row=int(data.offsets[g]) + 1)


class _StopOnValidation:
    """Early stopping on one (data set, metric): stop after ``patience`` rounds without a strict
    improvement; the best iteration is the first maximum (what ``lightgbm.early_stopping`` does
    for a single metric with ``min_delta=0``)."""

    def __init__(self, patience: int, data_name: str, metric: str) -> None:
        # Instance attributes: lightgbm.train sets a missing instance ``order`` itself. 30 runs
        # after record_evaluation (20), so the round that stops training is logged too.
        self.order = 30
        self.before_iteration = False
        self.patience = patience
        self.data_name = data_name
        self.metric = metric
        self.best_value = -np.inf
        self.best_round = -1
        self.best_results: list[Any] = []

    def __call__(self, env: lgb.callback.CallbackEnv) -> None:
        value = None
        for result in env.evaluation_result_list or []:
            if result[0] == self.data_name and result[1] == self.metric:
                value = float(result[2])
        if value is None:
            logged = sorted({f"{r[0]}:{r[1]}" for r in env.evaluation_result_list or []})
            raise ConfigError(
                f"early stopping watches {self.data_name}:{self.metric}, which LightGBM did not "
                f"log; logged: {', '.join(logged)}"
            )
        i = env.iteration - env.begin_iteration
        if value > self.best_value:
            self.best_value, self.best_round = value, i
            self.best_results = list(env.evaluation_result_list or [])
        elif i - self.best_round >= self.patience:
            raise lgb.callback.EarlyStopException(self.best_round, self.best_results)


class _OnIteration:
    """Calls an :data:`~bench.runners.iteration.IterationHook` with each round's validation
    value of ``metric`` from ``env.evaluation_result_list`` (the list ``record_evaluation``
    keeps: LightGBM ``python-package/lightgbm/callback.py``). Order 25: after the log (20),
    before early stopping (30), so the round that stops training is seen too."""

    def __init__(self, hook: IterationHook, data_name: str, metric: str) -> None:
        self.order = 25
        self.before_iteration = False
        self.hook = hook
        self.data_name = data_name
        self.metric = metric

    def __call__(self, env: lgb.callback.CallbackEnv) -> None:
        for result in env.evaluation_result_list or []:
            if result[0] == self.data_name and result[1] == self.metric:
                self.hook(env.iteration - env.begin_iteration + 1, float(result[2]))
                return


class _RateSchedule:
    """``lightgbm.reset_parameter(learning_rate=rate_at)``, except on training data with no
    feature LightGBM could bin (every ``feature_num_bin`` 0): there each tree is one leaf
    whatever the rate, and ``reset_parameter`` fails in LightGBM 4.7 (``Check failed:
    (train_data->num_features()) > (0)``, ``feature_histogram.hpp``), so the rate is left."""

    def __init__(self, rate_at: Any) -> None:
        self.order = 10  # as lightgbm.reset_parameter
        self.before_iteration = True
        self.rate_at = rate_at
        self.splittable: bool | None = None

    def __call__(self, env: lgb.callback.CallbackEnv) -> None:
        booster = cast(lgb.Booster, env.model)  # lgb.train's, not lgb.cv's
        if self.splittable is None:
            data = cast(lgb.Dataset | None, booster.train_set)
            self.splittable = data is None or any(
                data.feature_num_bin(j) > 0 for j in range(data.num_feature()))
        if self.splittable:
            rate = self.rate_at(env.iteration - env.begin_iteration)
            booster.reset_parameter({"learning_rate": rate})
            env.params["learning_rate"] = rate


def _dataset(data: LetorData, *, reference: lgb.Dataset | None = None, label: np.ndarray | None = None) -> lgb.Dataset:
    return lgb.Dataset(
        data.X,
        label=data.y if label is None else label,
        group=data.group_sizes,
        reference=reference,
        feature_name=[f"f{j}" for j in range(data.n_features)],
        free_raw_data=True,
    )


def fit_lightgbm(
    train: LetorData,
    vali: LetorData,
    params: Params,
    *,
    objective: str = "lambdarank",
    eval_at: tuple[int, ...] = (1, 3, 5, 10),
    selection: Selection = DEFAULT_SELECTION,
    log_train: bool = True,
    on_iteration: IterationHook | None = None,
) -> tuple[lgb.Booster, dict[str, Any], FitResult]:
    """Train on ``train`` with early stopping on ``vali``; returns ``(booster, library params, result)``.

    The result has the eval log, ``best_iteration`` (first maximum of the ``selection`` metric on the
    validation split), ``n_trees`` grown and ``fit_s``; no scores yet
    (:func:`bench.runners.gbdt.train_gbdt` adds them). ``on_iteration``: called after each
    round (:mod:`bench.runners.iteration`); what it raises ends the fit and propagates.
    """
    ks = library_eval_at(selection, eval_at)
    if objective != "regression":
        check_ranking_labels(train, "train", what=f"LightGBM objective {objective!r}")
    check_ranking_labels(vali, "vali", what="LightGBM's ndcg metric")
    lib_params = lightgbm_params(params, objective, eval_at=ks)
    record: dict[str, dict[str, list[float]]] = {}
    stopper = _StopOnValidation(params.early_stopping_rounds, SELECTION_SPLIT, selection.metric)
    callbacks: list[Any] = [lgb.record_evaluation(record), stopper]
    if on_iteration is not None:
        callbacks.append(_OnIteration(on_iteration, SELECTION_SPLIT, selection.metric))
    if params.learning_rate_decay > 0:
        callbacks.append(_RateSchedule(params.learning_rate_at))
    with measure() as m:
        dtrain = _dataset(train)
        dvali = _dataset(vali, reference=dtrain)
        valid_sets = [dtrain, dvali] if log_train else [dvali]
        valid_names = ["train", SELECTION_SPLIT] if log_train else [SELECTION_SPLIT]
        booster = lgb.train(
            dict(lib_params),
            dtrain,
            num_boost_round=params.n_trees,
            valid_sets=valid_sets,
            valid_names=valid_names,
            callbacks=callbacks,
        )
    result = fit_result("lightgbm", params.seed, record, selection, m, lib_params)
    result.notes["library_best_iteration"] = int(booster.best_iteration) or result.best_iteration
    return booster, lib_params, result


def predict(booster: lgb.Booster, data: LetorData, best_iteration: int, library_params: dict[str, Any]) -> np.ndarray:
    """Scores of ``data`` with the first ``best_iteration`` trees."""
    # Booster.predict is annotated with the union over its options (sparse matrices for
    # pred_contrib on sparse input); plain scores of a dense X are an ndarray.
    return cast(np.ndarray, booster.predict(data.X, num_iteration=best_iteration))


fit = fit_lightgbm
