"""What every runner returns, and the guards every runner applies before training.

The guards keep the test split out of training and model selection: early stopping and every
choice are made on the validation split, and the test split is only predicted, once, at the end.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from bench.data.letor import LetorData, LetorSplits
from bench.errors import ConfigError, DataError, LtrbenchError
from bench.metrics.families import PRIMARY_METRIC, SELECTION_FAMILY, selection_cutoff
from bench.runners.resources import Measurement, measure

#: The only split early stopping and model selection may use.
SELECTION_SPLIT = "vali"
#: Splits that are predicted and evaluated after training (in this order).
EVAL_SPLITS = ("vali", "test")
#: Columns of the library eval log (``evallog.csv`` adds ``model`` and ``seed``).
EVALLOG_COLUMNS = ("iteration", "split", "metric", "value")


@dataclass(frozen=True)
class Selection:
    """The metric early stopping and model selection watch, resolved once: the libraries' NDCG
    at cutoff ``k`` (:data:`~bench.metrics.families.SELECTION_FAMILY`), logged by every library
    under the name :attr:`metric` (``ndcg@k``).

    A run makes it from :attr:`bench.benchmark.config.RunConfig.selection_k` (parsed when the
    config was made); :meth:`parse` reads a ``select_metric`` name once, at a door that takes one.
    """

    k: int

    def __post_init__(self) -> None:
        if isinstance(self.k, bool) or not isinstance(self.k, int) or self.k < 1:
            raise ConfigError(f"the selection cutoff must be an integer >= 1; got {self.k!r}")

    @property
    def metric(self) -> str:
        """The name the libraries log it under and the eval log holds (``ndcg@k``)."""
        return f"{SELECTION_FAMILY}@{self.k}"

    @classmethod
    def parse(cls, select_metric: str) -> Selection:
        """``"ndcg@10"`` -> ``Selection(10)``; anything but the libraries' NDCG at a cutoff is
        refused (:func:`bench.metrics.families.selection_cutoff`)."""
        return cls(selection_cutoff(select_metric))


#: The selection of a run that names none (``select_metric = "ndcg@10"``).
DEFAULT_SELECTION = Selection.parse(PRIMARY_METRIC)


def selection_at_door(selection: Selection | None, select_metric: str | None) -> Selection:
    """The :class:`Selection` a public entry point (:func:`bench.runners.dispatch.run_model`,
    :func:`bench.runners.gbdt.train_gbdt`) was given: the value itself (what the benchmark
    passes), else a ``select_metric`` name parsed here, once, else :data:`DEFAULT_SELECTION`."""
    if selection is not None and select_metric is not None and select_metric != selection.metric:
        raise ConfigError(f"select_metric {select_metric!r} and selection {selection.metric!r} "
                          "disagree; give one")
    if selection is not None:
        return selection
    return DEFAULT_SELECTION if select_metric is None else Selection.parse(select_metric)


class NotApplicable(LtrbenchError):
    """A model that cannot run on this dataset (e.g. popularity without item ids); the run records
    the reason in the model's status file and goes on."""


@dataclass
class FitResult:
    """One trained model (one seed): its scores, eval log, chosen iteration and costs.

    ``scores[split]`` are float64 scores in the row order of that split (``vali`` and ``test``),
    predicted with ``best_iteration`` trees. ``evallog`` has columns ``iteration`` (1-based: the
    model with that many trees), ``split`` (``train``/``vali``), ``metric``, ``value``: the
    library's own metric as it logged it. ``n_trees`` is how many trees were grown before early
    stopping ended training. ``fit_s`` includes building the library's dataset (binning) and the
    per-round evaluation; ``predict_s`` covers validation and test; ``peak_rss_mb`` is the RSS
    growth during fit + predict (:mod:`bench.runners.resources`); ``fit`` is the fit's whole
    measurement (CPU time, the machine's other load meanwhile, whether it was contended).
    """

    model: str
    library: str
    seed: int
    scores: dict[str, NDArray[np.float64]]
    evallog: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=list(EVALLOG_COLUMNS)))
    best_iteration: int | None = None
    n_trees: int | None = None
    fit_s: float = 0.0
    predict_s: float = 0.0
    peak_rss_mb: float = 0.0
    fit: Measurement | None = None  # the fit's measurement: CPU time, other load, contention
    library_params: dict[str, Any] = field(default_factory=dict)
    notes: dict[str, Any] = field(default_factory=dict)
    booster: Any = None  # the library's model object (not persisted)


def check_splits_distinct(splits: LetorSplits) -> None:
    """Refuse a dataset whose validation split *is* its test split (selecting on it would select on test)."""
    vali, test = splits.vali, splits.test
    same = vali is test or (
        vali.n_rows == test.n_rows
        and vali.n_features == test.n_features
        and np.array_equal(vali.y, test.y)
        and np.array_equal(vali.qid, test.qid)
        and np.array_equal(vali.X, test.X)
    )
    if same and vali.n_rows > 0:
        raise ConfigError(
            f"dataset {splits.name!r}: the validation split is the test split; early stopping on it "
            "would select on test. Give a separate validation split."
        )


def check_ranking_labels(data: LetorData, split: str, *, what: str, top: int = 30) -> None:
    """Labels must be integers in 0..``top`` for a library's ranking objectives and NDCG metrics:
    0..30 for LightGBM (its default ``label_gain`` has 31 entries, ``CheckLabel`` in
    ``dcg_calculator.cpp``), 0..31 for XGBoost (``CheckNDCGLabels``: "lesser than or equal to 31
    when the exponential NDCG gain function is used"; 31 was refused here in XGBoost's name)."""
    y = data.y
    bad = (y < 0) | (y > top) | (y != np.round(y)) | ~np.isfinite(y)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise DataError(
            f"{what} needs integer relevance labels in 0..{top}; {split} label "
            f"{float(y[row])!r} is not",
            path=data.source or None,
            row=row + 1,
        )


def evallog_frame(records: dict[str, dict[str, list[float]]], names: dict[str, str]) -> pd.DataFrame:
    """Long eval log from ``{data_name: {metric: [value per round]}}`` (both libraries' shape).

    ``names`` maps the library's data names to ltrbench split names.
    """
    parts = []
    for data_name, metrics in records.items():
        split = names.get(data_name, data_name)
        for metric, values in metrics.items():
            v = np.asarray(values, dtype=np.float64)
            parts.append(
                pd.DataFrame(
                    {
                        "iteration": np.arange(1, v.shape[0] + 1, dtype=np.int64),
                        "split": split,
                        "metric": metric,
                        "value": v,
                    }
                )
            )
    if not parts:
        return pd.DataFrame(columns=list(EVALLOG_COLUMNS))
    return pd.concat(parts, ignore_index=True)


def best_iteration_from_log(log: pd.DataFrame, metric: str) -> int:
    """The 1-based iteration of the first maximum of ``metric`` on the validation split (early
    stopping's choice; no other split is ever read). A NaN value is never the maximum."""
    sel = log[(log["split"] == SELECTION_SPLIT) & (log["metric"] == metric)].sort_values("iteration")
    if sel.empty:
        raise ConfigError(
            f"the eval log has no {metric!r} on {SELECTION_SPLIT!r}; logged: "
            f"{', '.join(sorted(set(log['metric'])))}"
        )
    values = sel["value"].to_numpy(dtype=np.float64)
    if np.isnan(values).all():  # np.argmax would choose the first NaN: a choice made on nothing
        raise ConfigError(f"the eval log's {metric!r} on {SELECTION_SPLIT!r} is NaN at every "
                          "iteration: no iteration can be chosen (does the validation split "
                          "hold a relevant document?)")
    return int(sel["iteration"].to_numpy()[int(np.nanargmax(values))])


def library_eval_at(selection: Selection, eval_at: tuple[int, ...]) -> tuple[int, ...]:
    """The cutoffs a library logs: ``eval_at`` with the selection cutoff ``k`` added, sorted."""
    return tuple(sorted(set(eval_at) | {selection.k}))


def fit_result(
    library: str,
    seed: int,
    records: dict[str, dict[str, list[float]]],
    selection: Selection,
    fit: Measurement,
    library_params: dict[str, Any],
    notes: dict[str, Any] | None = None,
) -> FitResult:
    """The :class:`FitResult` of a trained GBDT: its eval log (train and validation), the
    chosen iteration (first maximum of the ``selection`` metric on the validation split), the number
    of trees grown, fit time and memory. Scores come later, from :func:`score_eval_splits`."""
    log = evallog_frame(records, {"train": "train", SELECTION_SPLIT: SELECTION_SPLIT})
    return FitResult(
        model="",
        library=library,
        seed=seed,
        scores={},
        evallog=log,
        best_iteration=best_iteration_from_log(log, selection.metric),
        n_trees=int(log["iteration"].max()) if len(log) else 0,
        fit_s=fit.seconds,
        peak_rss_mb=fit.peak_rss_mb,
        fit=fit,
        library_params=library_params,
        notes=dict(notes or {}),
    )


def score_eval_splits(
    result: FitResult,
    splits: LetorSplits,
    *,
    model: str,
    booster: Any,
    predict: Callable[[LetorData], np.ndarray],
) -> FitResult:
    """Score the validation and test splits with ``predict`` (the chosen iteration), timed,
    and complete ``result`` with the model name, scores (float64) and booster."""
    scores: dict[str, NDArray[np.float64]] = {}
    with measure() as m:
        for split in EVAL_SPLITS:
            scores[split] = np.asarray(predict(getattr(splits, split)), dtype=np.float64)
    result.model = model
    result.scores = scores
    result.predict_s = m.seconds
    result.peak_rss_mb = max(result.peak_rss_mb, m.peak_rss_mb)
    result.booster = booster
    return result
