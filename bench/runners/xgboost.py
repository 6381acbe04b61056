"""XGBoost runner: ``rank:ndcg``, ``rank:pairwise``, ``rank:map`` and ``reg:squarederror``.

``xgboost.train`` gets the parameters of :func:`bench.runners.params.xgboost_params`, the
training and validation ``QuantileDMatrix`` (never the test set) as ``evals`` for the library's own
NDCG log, and ``EarlyStopping(data_name="vali", metric_name=<select metric>, maximize=True)``.
The model predicts validation and test with ``iteration_range=(0, best_iteration)``.

Query groups are passed as ``qid`` = the group number of each row (0, 0, 1, 1, 1, ...), which is
sorted by construction, so XGBoost's "qid must be sorted" rule holds whatever the file's ids.

``rank:map`` needs binary labels (XGBoost ``CHECK``s them): the training matrix gets
``label >= 1`` (the ``ltrbench`` profile's relevance threshold) and the run records that in
the result's notes. The validation matrix keeps the graded labels, so the logged NDCG (the
library's metric, not the objective) is comparable with every other model's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import xgboost as xgb

from bench.data.groups import group_index
from bench.data.letor import LetorData
from bench.runners.iteration import IterationHook
from bench.runners.params import Params, xgboost_params
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

#: Labels at or above this count as relevant when ``rank:map`` needs binary labels.
MAP_RELEVANCE_THRESHOLD = 1.0


class _RateBeforeRound(xgb.callback.TrainingCallback):
    """Set ``eta`` to ``rate(i)`` *before* boosting round ``i``, as LightGBM's ``reset_parameter``
    does. (``xgboost.callback.LearningRateScheduler`` sets it in ``after_iteration``, so round 0
    would run with the initial rate and round ``i`` with ``rate(i - 1)``.)"""

    def __init__(self, rate: Any) -> None:
        super().__init__()
        self.rate = rate

    def before_iteration(self, model: Any, epoch: int, evals_log: Any) -> bool:
        model.set_param("eta", self.rate(epoch))
        return False


class _OnIteration(xgb.callback.TrainingCallback):
    """Calls an :data:`~bench.runners.iteration.IterationHook` with each round's last value of
    ``evals_log[data_name][metric]`` (the history ``evals_result`` is copied from: XGBoost
    ``python-package/xgboost/callback.py`` ``CallbackContainer.after_iteration``). It must come
    before ``EarlyStopping`` in the list: the container's ``any(...)`` stops asking the callbacks
    after the first that ends training."""

    def __init__(self, hook: IterationHook, data_name: str, metric: str) -> None:
        super().__init__()
        self.hook = hook
        self.data_name = data_name
        self.metric = metric

    def after_iteration(self, model: Any, epoch: int, evals_log: Any) -> bool:
        values = evals_log.get(self.data_name, {}).get(self.metric)
        if values:
            last = values[-1]
            self.hook(epoch + 1, float(last[0] if isinstance(last, tuple) else last))
        return False


def dmatrix(data: LetorData, *, label: np.ndarray | None = None, nthread: int = 1) -> xgb.DMatrix:
    """A ``DMatrix`` with ``qid`` = group number per row (sorted, contiguous)."""
    return xgb.DMatrix(
        data.X,
        label=data.y if label is None else label,
        qid=group_index(data.offsets),
        nthread=nthread,
    )


def quantile_dmatrix(data: LetorData, *, max_bin: int, label: np.ndarray | None = None,
                     nthread: int = 1, ref: xgb.QuantileDMatrix | None = None) -> xgb.QuantileDMatrix:
    """The training (or, with ``ref``, validation) matrix as XGBoost's ``hist`` uses it: the
    quantised feature index built straight from the float32 rows, without the CSR copy a
    ``DMatrix`` keeps (8 bytes per value: about 2.5 GB for MSLR-WEB30K's training split). The
    model and its eval log are those of a ``DMatrix`` (the same sketch; checked bit for bit in
    the tests)."""
    return xgb.QuantileDMatrix(
        data.X,
        label=data.y if label is None else label,
        qid=group_index(data.offsets),
        nthread=nthread,
        max_bin=max_bin,
        ref=ref,
    )


def fit_xgboost(
    train: LetorData,
    vali: LetorData,
    params: Params,
    *,
    objective: str = "ndcg",
    eval_at: tuple[int, ...] = (1, 3, 5, 10),
    selection: Selection = DEFAULT_SELECTION,
    log_train: bool = True,
    on_iteration: IterationHook | None = None,
) -> tuple[xgb.Booster, dict[str, Any], FitResult]:
    """Train on ``train`` with early stopping on ``vali``; returns ``(booster, library params, result)``.

    ``on_iteration``: called after each round (:mod:`bench.runners.iteration`); what it raises
    ends the fit and propagates."""
    ks = library_eval_at(selection, eval_at)
    notes: dict[str, Any] = {}
    train_label = None
    if objective == "map":
        train_label = (train.y >= MAP_RELEVANCE_THRESHOLD).astype(np.float64)
        notes["train_labels"] = f"binarized for rank:map: label >= {MAP_RELEVANCE_THRESHOLD:g} -> 1"
    elif objective != "regression":
        check_ranking_labels(train, "train", what=f"XGBoost objective {objective!r}", top=31)
    check_ranking_labels(vali, "vali", what="XGBoost's ndcg metric", top=31)
    lib_params = xgboost_params(params, objective, eval_at=ks)
    nthread = int(lib_params["nthread"])
    record: dict[str, Any] = {}
    hooks: list[Any] = [] if on_iteration is None else [
        _OnIteration(on_iteration, SELECTION_SPLIT, selection.metric)]
    callbacks: list[Any] = [
        *hooks,
        xgb.callback.EarlyStopping(
            rounds=params.early_stopping_rounds,
            metric_name=selection.metric,
            data_name=SELECTION_SPLIT,
            maximize=True,
            save_best=False,
        )
    ]
    if params.learning_rate_decay > 0:
        callbacks.append(_RateBeforeRound(params.learning_rate_at))
    with measure() as m:
        max_bin = int(lib_params["max_bin"])
        dtrain = quantile_dmatrix(train, max_bin=max_bin, label=train_label, nthread=nthread)
        dvali = quantile_dmatrix(vali, max_bin=max_bin, nthread=nthread, ref=dtrain)
        evals = [(dtrain, "train"), (dvali, SELECTION_SPLIT)] if log_train else [(dvali, SELECTION_SPLIT)]
        booster = xgb.train(
            dict(lib_params),
            dtrain,
            num_boost_round=params.n_trees,
            evals=evals,
            evals_result=record,
            verbose_eval=False,
            callbacks=callbacks,
        )
    notes["library_best_iteration"] = int(booster.best_iteration) + 1
    result = fit_result("xgboost", params.seed, record, selection, m, lib_params, notes)
    return booster, lib_params, result


def predict(booster: xgb.Booster, data: LetorData, best_iteration: int, library_params: dict[str, Any]) -> np.ndarray:
    """Scores of ``data``: XGBoost's float32 margins (``output_margin=True``) of the first
    ``best_iteration`` trees."""
    return booster.predict(
        dmatrix(data, nthread=int(library_params["nthread"])),
        output_margin=True,
        iteration_range=(0, best_iteration),
    )


fit = fit_xgboost
