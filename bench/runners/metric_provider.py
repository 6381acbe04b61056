"""The base of every GBDT library's built-in metric provider: what it supports, and the checks of
its inputs that all of them share.

A provider (named by its library's record, :attr:`bench.runners.libraries.Library.metrics`;
the three of ltrbench are in :mod:`bench.crosscheck.providers`) builds the library's data
structure once in :meth:`MetricProvider.prepare` (construction is not the metric, so the perf
benchmark times only the call) and evaluates the metrics when called. It declares the metric
names it takes (:attr:`MetricProvider.pattern`, said in words by :attr:`MetricProvider.supported`);
a name it does not take is a ConfigError before anything is built.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bench.errors import ConfigError, DataError
from bench.runners.params import LABEL_GAINS


def check_inputs(
    labels: ArrayLike, scores: ArrayLike, offsets: ArrayLike, label_gain: str
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]:
    """Labels and scores as float64 of one length, group offsets (0, ..., rows; strictly
    increasing, :mod:`bench.data.groups`) as int64, and a known ``label_gain``."""
    y = np.asarray(labels, dtype=np.float64).ravel()
    s = np.asarray(scores, dtype=np.float64).ravel()
    off = np.asarray(offsets, dtype=np.int64).ravel()
    if y.shape != s.shape:
        raise DataError(f"{y.shape[0]} labels but {s.shape[0]} scores")
    if off.shape[0] < 2 or off[0] != 0 or off[-1] != y.shape[0] or np.any(np.diff(off) <= 0):
        raise DataError(
            f"group offsets must start at 0, increase strictly and end at {y.shape[0]} (the rows)"
        )
    if label_gain not in LABEL_GAINS:
        raise ConfigError(f"unknown label_gain {label_gain!r}; valid: {', '.join(LABEL_GAINS)}")
    return y, s, off


class MetricProvider:
    """A library's own values of ranking metrics for given scores.

    ``MetricProvider(labels, scores, offsets, metrics, *, label_gain, n_threads, weights)``
    checks the inputs (:func:`check_inputs`) and the metric names (:meth:`supports`), then calls
    :meth:`prepare`; calling the instance returns ``{metric: value}`` for ``metrics``.
    Subclasses set :attr:`title`, :attr:`pattern` and :attr:`supported`, and implement
    :meth:`prepare` and :meth:`__call__`.
    """

    #: The library's name in messages ("LightGBM").
    title: ClassVar[str] = ""
    #: The metric names the provider takes (a full match).
    pattern: ClassVar[re.Pattern[str]] = re.compile(r"^(ndcg|map)@(\d+)$")
    #: :attr:`pattern` in words, for the error that refuses another name.
    supported: ClassVar[str] = "ndcg@k, map@k"
    #: Whether equal scores keep their row order (a stable sort, as LightGBM's and XGBoost's
    #: metrics): then the value can move when rows are permuted inside a query, which
    #: ``--permute-check`` measures (:mod:`bench.benchmark.permute`). CatBoost puts the lower
    #: label first (``dcg.cpp``): no row order.
    ties_in_row_order: ClassVar[bool] = False
    #: Whether ``weights`` are per row (LightGBM's ``Dataset(weight=)``) rather than per query.
    row_weights: ClassVar[bool] = False

    def __init__(
        self,
        labels: ArrayLike,
        scores: ArrayLike,
        offsets: ArrayLike,
        metrics: Sequence[str],
        *,
        label_gain: str = "exp2",
        n_threads: int = 1,
        weights: ArrayLike | None = None,
    ) -> None:
        y, s, off = check_inputs(labels, scores, offsets, label_gain)
        for m in metrics:
            if not self.supports(m):
                raise ConfigError(f"{self.title} metric {m!r} not supported here; valid: "
                                  f"{self.supported}")
        self.metrics = list(metrics)
        self.prepare(y, s, off, label_gain=label_gain, n_threads=n_threads, weights=weights)

    @classmethod
    def supports(cls, metric: str) -> bool:
        """Whether the provider takes the metric name ``metric``."""
        return isinstance(metric, str) and cls.pattern.match(metric) is not None

    def prepare(self, labels: NDArray[np.float64], scores: NDArray[np.float64],
                offsets: NDArray[np.int64], *, label_gain: str, n_threads: int,
                weights: ArrayLike | None) -> None:
        """Build the library's data structure for :attr:`metrics` (checked inputs)."""
        raise NotImplementedError

    def __call__(self) -> dict[str, float]:
        """``{metric: value}`` for the metrics asked for, in their order."""
        raise NotImplementedError
