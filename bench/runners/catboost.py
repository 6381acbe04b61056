"""CatBoost runner: ``YetiRank``, ``PairLogit``, ``QueryRMSE`` and ``LambdaMart`` with validation
early stopping.

``catboost.CatBoost(params).fit`` gets the parameters of
:func:`bench.runners.params.catboost_params`, the training ``Pool`` and the validation ``Pool``
as ``eval_set`` (never the test set). CatBoost logs its own NDCG (``NDCG:top=k;type=Exp``, the
``ndcg@k`` of the ``catboost`` profile) on train and validation every round; its early stopping
(``early_stopping_rounds``, overfitting detector ``Iter``) watches the eval metric -- the
selection metric -- on the validation set only and stops after that many rounds without an
improvement. ``use_best_model=False`` keeps every tree; the best iteration is chosen from the
validation log as for the other libraries (the first maximum,
:func:`bench.runners.result.best_iteration_from_log`), and the model predicts with
``ntree_end = best_iteration``.

Query groups are passed as ``group_id`` = the group number of each row, which is sorted and
contiguous by construction (CatBoost needs each group's rows together).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from bench.data.groups import group_index
from bench.data.letor import LetorData
from bench.errors import DataError
from bench.runners.iteration import HookFailure, IterationHook
from bench.runners.params import Params, catboost_params
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

#: CatBoost's names of the data sets in ``get_evals_result()``, by ltrbench split.
_LOG_NAMES = {"learn": "train", "validation": SELECTION_SPLIT}
_NDCG = re.compile(r"^NDCG:top=(\d+);type=(?:Exp|Base)")


def pool(data: LetorData, *, label: np.ndarray | None = None) -> Any:
    """A ``catboost.Pool`` with ``group_id`` = group number per row (sorted, contiguous)."""
    from catboost import Pool

    return Pool(data.X, label=data.y if label is None else label,
                group_id=group_index(data.offsets))


def _record(evals: dict[str, dict[str, list[float]]], ks: tuple[int, ...]) -> dict[str, dict[str, list[float]]]:
    """CatBoost's eval log with ltrbench names: ``{train|vali: {ndcg@k: [value per round]}}``.

    Only the NDCG cutoffs asked for are kept (YetiRank also logs its own ``NDCG:type=Base``
    on validation, the losses log themselves)."""
    out: dict[str, dict[str, list[float]]] = {}
    for data_name, metrics in evals.items():
        split = _LOG_NAMES.get(data_name)
        if split is None:
            continue
        for name, values in metrics.items():
            match = _NDCG.match(name)
            if match and int(match.group(1)) in ks:
                out.setdefault(split, {})[f"ndcg@{match.group(1)}"] = [float(v) for v in values]
    return out


class _OnIteration:
    """CatBoost's callback object (``callbacks=[...]`` of ``fit``: ``after_iteration(info)``,
    ``info.iteration`` 1-based, ``info.metrics`` the log so far by CatBoost's data set and metric
    names; catboost ``python-package/catboost/core.py`` ``_TrainCallbacksWrapper``): calls the
    hook with the last validation value of ``NDCG:top=k`` (the metric :func:`_record` keeps as
    ``ndcg@k``). CatBoost wraps a callback's exception in its own error, so the hook's is kept
    in a :class:`~bench.runners.iteration.HookFailure` and training stopped."""

    def __init__(self, hook: IterationHook, k: int) -> None:
        self.failure = HookFailure(hook)
        self.k = k

    def after_iteration(self, info: Any) -> bool:
        for data_name, metrics in info.metrics.items():
            if _LOG_NAMES.get(data_name) != SELECTION_SPLIT:
                continue
            for name, values in metrics.items():
                match = _NDCG.match(name)
                if match and int(match.group(1)) == self.k and len(values):
                    return self.failure.call(int(info.iteration), float(values[-1]))
        return True


def _refuse(exc: BaseException, train: LetorData, vali: LetorData, params: Params) -> None:
    """CatBoost's refusal of the data it was given (``CatBoostError``: "All features are either
    constant or ignored", NaN features under ``nan_mode = "Forbidden"``, ...; the raw parameters
    were probed on toy data only) as a :class:`DataError` naming the training and validation
    splits (CatBoost names neither) and the raw keys; anything else is left alone."""
    from catboost import CatBoostError

    if not isinstance(exc, CatBoostError):
        return
    text = " ".join(str(exc).split())[:300]
    raw = sorted(params.raw_params("catboost"))
    keys = f" (with the raw catboost keys {', '.join(raw)})" if raw else ""
    splits = f"train {train.source or '(arrays)'}, validation {vali.source or '(arrays)'}"
    raise DataError(f"CatBoost refuses to train on these splits ({splits}){keys}: {text}") from None


def fit_catboost(
    train: LetorData,
    vali: LetorData,
    params: Params,
    *,
    objective: str = "yetirank",
    eval_at: tuple[int, ...] = (1, 3, 5, 10),
    selection: Selection = DEFAULT_SELECTION,
    log_train: bool = True,
    on_iteration: IterationHook | None = None,
) -> tuple[Any, dict[str, Any], FitResult]:
    """Train on ``train`` with early stopping on ``vali``; returns ``(model, library params, result)``.

    The result has the eval log (train and validation, ``ndcg@k``), ``best_iteration`` (first
    maximum of the ``selection`` metric on the validation split), ``n_trees`` grown and ``fit_s``; no
    scores yet (:func:`bench.runners.gbdt.train_gbdt` adds them). ``on_iteration``: called after
    each round (:mod:`bench.runners.iteration`); what it raises ends the fit and propagates.
    """
    from catboost import CatBoost

    ks = library_eval_at(selection, eval_at)
    check_ranking_labels(train, "train", what=f"CatBoost objective {objective!r}")
    check_ranking_labels(vali, "vali", what="CatBoost's NDCG metric")
    lib_params = catboost_params(params, objective, eval_at=ks,
                                 select_k=selection.k, log_train=log_train)
    hook = None if on_iteration is None else _OnIteration(on_iteration, selection.k)
    with measure() as m:
        model = CatBoost(dict(lib_params))
        try:
            model.fit(pool(train), eval_set=pool(vali), **({} if hook is None else {"callbacks": [hook]}))
        except BaseException as exc:
            if hook is not None:
                hook.failure.reraise()
            _refuse(exc, train, vali, params)
            raise
    if hook is not None:
        hook.failure.reraise()
    record = _record(model.get_evals_result(), ks)
    notes = {"library_best_iteration": int(model.get_best_iteration()) + 1}
    result = fit_result("catboost", params.seed, record, selection, m, lib_params, notes)
    return model, lib_params, result


def predict(model: Any, data: LetorData, best_iteration: int, library_params: dict[str, Any]) -> np.ndarray:
    """Scores of ``data``: CatBoost's raw formula values (float64) of the first
    ``best_iteration`` trees."""
    scores = model.predict(pool(data), prediction_type="RawFormulaVal", ntree_end=best_iteration,
                           thread_count=int(library_params["thread_count"]))
    return np.asarray(scores, dtype=np.float64)


fit = fit_catboost
