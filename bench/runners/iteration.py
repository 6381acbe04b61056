"""The per-iteration hook of a GBDT fit: a caller's look at each boosting round as it ends.

:data:`IterationHook` is called once per boosting round, in order, with the 1-based iteration
(the model with that many trees) and the validation value of the run's selection metric
(:attr:`bench.runners.result.Selection.metric`, e.g. ``ndcg@10``) as the library computed it: the
same number the run's eval log holds for that iteration and split ``vali``. Each library module
(:mod:`bench.runners.lightgbm`, :mod:`bench.runners.xgboost`, :mod:`bench.runners.catboost`)
calls it from the library's own callback mechanism (LightGBM's ``callbacks`` reading
``env.evaluation_result_list``; XGBoost's ``TrainingCallback.after_iteration`` reading
``evals_log``; CatBoost's callback object ``after_iteration(info)`` reading ``info.metrics``),
and :func:`bench.runners.gbdt.train_gbdt` passes it through (``on_iteration=``).

An exception the hook raises ends the fit and leaves :func:`~bench.runners.gbdt.train_gbdt`
unchanged (the same object: a pruner's ``optuna.TrialPruned`` stays one), and no result is
made. CatBoost wraps an exception raised inside its callback in a ``CatBoostError``, so its
runner keeps the exception in a :class:`HookFailure`, stops the fit, and raises it afterwards.

User models (:mod:`bench.runners.custom`) and the baselines (:mod:`bench.runners.baselines`)
have no boosting rounds and never call the hook. On the Dask engine the rounds end on the
workers: :func:`bench.runners.dask_gbdt.relayed_iterations` sends each one to this process, where
the hook is called (XGBoost's all-reduced validation value; LightGBM-Dask has none during the fit,
so its value is NaN); an exception it raises there is kept and raised once the fit returns.
"""

from __future__ import annotations

from collections.abc import Callable

#: ``hook(iteration, value)``: ``iteration`` is 1-based, ``value`` the selection metric on the
#: validation split at that iteration, as the library logged it.
IterationHook = Callable[[int, float], None]


class HookFailure:
    """The exception a hook raised inside a library that would wrap it (CatBoost): kept by
    :meth:`call`, re-raised unchanged by :meth:`reraise` once the library has returned."""

    def __init__(self, hook: IterationHook) -> None:
        self.hook = hook
        self.error: BaseException | None = None

    def call(self, iteration: int, value: float) -> bool:
        """Call the hook; ``False`` (stop training) when it raised, the exception kept."""
        try:
            self.hook(iteration, value)
        except BaseException as exc:  # kept, re-raised unchanged by reraise
            self.error = exc
            return False
        return True

    def reraise(self) -> None:
        """Raise the kept exception, if the hook raised one."""
        if self.error is not None:
            raise self.error
