"""Peer tools' own metrics on given scores: the one wrapper of each tool, used by the cross-check,
the permute check, the perf benchmark and the tests.

Each provider builds the tool's data structure once (construction is not the metric, so the perf
benchmark times only the call) and evaluates it when called:

* :class:`LightGBMMetrics`: a one-column all-zero ``Dataset`` with the labels, group sizes and the
  scores as ``init_score``; a ``Booster`` with no trees (``objective="none"``) evaluates its
  training data, whose current scores are exactly the init scores
  (``src/boosting/score_updater.hpp``). LightGBM's C++ ``NDCGMetric`` / ``MapMetric``
  (``src/metric/rank_metric.hpp``, ``map_metric.hpp``): scores as double, stable sort (ties in
  row order), all-zero query = 1.
* :class:`XGBoostMetrics`: a ``DMatrix`` with the labels, ``qid`` (group number per row) and the
  scores as ``base_margin``; ``xgboost.train(..., num_boost_round=0)`` and ``Booster.eval``.
  XGBoost's C++ ``EvalNDCG`` / ``EvalMAPScore`` / ``EvalPrecision`` (``src/metric/rank_metric.cc``):
  scores as **float32** (``base_margin`` is stored as float32), stable sort, all-zero query = 1
  (0 with the ``-`` suffix).
* :class:`CatBoostMetrics`: ``catboost.utils.eval_metric`` (CatBoost's C++ metric code on given
  approxes) with ``group_id`` = group number per row. ``ndcg@k`` is ``NDCG:top=k;type=Exp``
  (``type=Base`` with linear gain), ``map@k`` is ``MAP:top=k`` (``catboost/libs/metrics/dcg.cpp``,
  ``precision_recall_at_k.cpp``): scores as double, equal scores lower label first, all-zero
  query = 1 in NDCG and 0 in MAP.
* :func:`trec_dicts`, :func:`pytrec_eval_per_query`, :func:`ranx_metrics`: TREC-style dicts and
  the two Python IR evaluators over them.

Every provider is a :class:`~bench.runners.metric_provider.MetricProvider` (the shared input
checks; the metric names it takes) named by its library's record
(:mod:`bench.runners.libraries`), which :func:`provider` resolves.

Metric names: ``ndcg@k`` and ``map@k`` for the three GBDT libraries; XGBoost also takes ``pre@k``
(alias ``p@k``), ``ndcg``/``map``/``pre`` without a cutoff (XGBoost then truncates at 32) and the
``-`` suffix (``ndcg@10-``). XGBoost's ``map`` and ``pre`` need binary labels.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bench.data.groups import group_index
from bench.errors import DataError
from bench.runners.libraries import get_library
from bench.runners.metric_provider import MetricProvider
from bench.runners.params import label_gain_table

_XGB = re.compile(r"^(ndcg|map|pre|p)(?:@(\d+))?(-)?$")


class LightGBMMetrics(MetricProvider):
    """LightGBM's built-in ``ndcg@k`` / ``map@k`` of given scores (see the module docstring).

    ``weights``: per-row weights (LightGBM stores them as float32). ``n_threads`` is LightGBM's
    ``num_threads``, process-wide in OpenMP and set when the booster is made, so
    :meth:`set_threads` makes a new booster.
    """

    title = "LightGBM"
    ties_in_row_order = True  # std::stable_sort by score (src/metric/dcg_calculator.cpp)
    row_weights = True

    def prepare(self, labels: NDArray[np.float64], scores: NDArray[np.float64],
                offsets: NDArray[np.int64], *, label_gain: str, n_threads: int,
                weights: ArrayLike | None) -> None:
        """A one-column all-zero ``Dataset`` with the scores as ``init_score``, and its booster."""
        import lightgbm as lgb

        families: dict[str, set[int]] = {"ndcg": set(), "map": set()}
        for m in self.metrics:
            match = self.pattern.match(m)
            assert match is not None  # MetricProvider.__init__ checked it
            families[match.group(1)].add(int(match.group(2)))
        self._params: dict[str, Any] = {
            "objective": "none",
            "metric": [f for f, ks in families.items() if ks],
            "eval_at": sorted(set().union(*families.values())),
            "label_gain": label_gain_table(label_gain),
            "verbosity": -1,
        }
        self._dataset = lgb.Dataset(
            np.zeros((labels.shape[0], 1), dtype=np.float32),
            label=labels,
            group=np.diff(offsets),
            init_score=scores,
            weight=None if weights is None else np.asarray(weights),
            params={"verbosity": -1},
        )
        self.set_threads(n_threads)

    def set_threads(self, n_threads: int) -> None:
        """Make the booster with ``num_threads = n_threads`` (0 = LightGBM's default, all cores)."""
        import lightgbm as lgb

        self.booster = lgb.Booster(
            params={**self._params, "num_threads": n_threads}, train_set=self._dataset
        )

    def __call__(self) -> dict[str, float]:
        """One ``Booster.eval_train()``: ``{metric: value}`` for the metrics asked for."""
        out = {str(r[1]): float(r[2]) for r in self.booster.eval_train()}
        return {m: out[m] for m in self.metrics}


class XGBoostMetrics(MetricProvider):
    """XGBoost's built-in ``ndcg@k`` / ``map@k`` / ``pre@k`` of given scores (see the module docstring).

    ``weights``: per-group weights (XGBoost's ranking weights are per query).
    """

    title = "XGBoost"
    ties_in_row_order = True  # common::ArgSort, a stable sort (src/metric/rank_metric.cc)
    pattern = _XGB
    supported = "ndcg@k, map@k, pre@k (p@k), without @k, with a '-' suffix"

    def prepare(self, labels: NDArray[np.float64], scores: NDArray[np.float64],
                offsets: NDArray[np.int64], *, label_gain: str, n_threads: int,
                weights: ArrayLike | None) -> None:
        """A ``DMatrix`` with the scores as ``base_margin`` and a booster of no trees."""
        import xgboost as xgb

        self.names: dict[str, str] = {}
        for m in self.metrics:
            match = self.pattern.match(m)
            assert match is not None  # MetricProvider.__init__ checked it
            base = "pre" if match.group(1) == "p" else match.group(1)
            if base in ("map", "pre") and not np.isin(labels, (0.0, 1.0)).all():
                raise DataError(
                    f"XGBoost's {base} needs binary labels (0/1); binarize first (e.g. label >= 1)"
                )
            self.names[m] = base + (f"@{match.group(2)}" if match.group(2) else "") + (match.group(3) or "")
        self.dmatrix = xgb.DMatrix(
            np.zeros((labels.shape[0], 1), dtype=np.float32), label=labels,
            qid=group_index(offsets), base_margin=scores,
        )
        if weights is not None:
            self.dmatrix.set_weight(np.asarray(weights))
        self.booster = xgb.train(
            {
                "objective": "rank:ndcg",
                "eval_metric": list(dict.fromkeys(self.names.values())),
                "ndcg_exp_gain": label_gain == "exp2",
                "base_score": 0.0,
                "nthread": n_threads,
            },
            self.dmatrix,
            num_boost_round=0,
        )

    def __call__(self) -> dict[str, float]:
        """One ``Booster.eval``: ``{metric: value}`` for the metrics asked for."""
        text = self.booster.eval(self.dmatrix, name="d")
        values = {k: float(v) for k, v in re.findall(r"\td-([^:]+):([^\t]+)", text)}
        return {m: values[self.names[m]] for m in self.names}


class CatBoostMetrics(MetricProvider):
    """CatBoost's built-in ``ndcg@k`` / ``map@k`` of given scores (see the module docstring).

    ``weights``: per-group weights (``group_weight``; CatBoost's NDCG uses them, its MAP does not).
    """

    title = "CatBoost"

    def prepare(self, labels: NDArray[np.float64], scores: NDArray[np.float64],
                offsets: NDArray[np.int64], *, label_gain: str, n_threads: int,
                weights: ArrayLike | None) -> None:
        """CatBoost's metric names, the group number of each row and the row weights."""
        self.names: dict[str, str] = {}
        for m in self.metrics:
            match = self.pattern.match(m)
            assert match is not None  # MetricProvider.__init__ checked it
            k = int(match.group(2))
            kind = "Exp" if label_gain == "exp2" else "Base"
            self.names[m] = f"NDCG:top={k};type={kind}" if match.group(1) == "ndcg" else f"MAP:top={k}"
        self.labels, self.scores = labels, scores
        self.group_id = group_index(offsets)
        self.group_weight = (None if weights is None
                             else np.repeat(np.asarray(weights, np.float64), np.diff(offsets)))
        self.n_threads = n_threads

    def __call__(self) -> dict[str, float]:
        """One ``catboost.utils.eval_metric`` per metric: ``{metric: value}``."""
        from catboost.utils import eval_metric

        return {
            m: float(eval_metric(self.labels, self.scores, name, group_id=self.group_id,
                                 group_weight=self.group_weight, thread_count=self.n_threads)[0])
            for m, name in self.names.items()
        }


def provider(library: str) -> type[MetricProvider]:
    """The built-in metric provider of ``library`` (its record's
    :attr:`~bench.runners.libraries.Library.metrics`, imported now); a ConfigError lists the
    valid libraries."""
    return get_library(library).provider()


def builtin_metrics(
    library: str,
    labels: ArrayLike,
    scores: ArrayLike,
    offsets: ArrayLike,
    metrics: Sequence[str],
    *,
    label_gain: str = "exp2",
    n_threads: int = 1,
) -> dict[str, float]:
    """``library``'s own values of ``metrics`` for ``scores`` (one data-structure construction).

    ``offsets`` are group offsets (length n_queries + 1, see :mod:`bench.data.groups`);
    ``label_gain`` ``"exp2"`` (2^l − 1, LightGBM's and XGBoost's default; CatBoost's
    ``type=Exp``) or ``"linear"`` (l; CatBoost's default ``type=Base``).
    """
    return provider(library)(labels, scores, offsets, metrics, label_gain=label_gain,
                             n_threads=n_threads)()


def builtin_metric(
    library: str,
    labels: ArrayLike,
    scores: ArrayLike,
    offsets: ArrayLike,
    metric: str,
    *,
    label_gain: str = "exp2",
    n_threads: int = 1,
) -> float:
    """``library``'s own value of one ``metric`` (see :func:`builtin_metrics`).

    >>> builtin_metric("lightgbm", [0, 1, 2], [0.1, 0.2, 0.3], [0, 3], "ndcg@3")
    1.0
    """
    return builtin_metrics(
        library, labels, scores, offsets, [metric], label_gain=label_gain, n_threads=n_threads
    )[metric]


def trec_dicts(
    labels: ArrayLike,
    scores: ArrayLike,
    qid: ArrayLike,
    docno: ArrayLike | None = None,
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """``(qrels, run)`` dicts as pytrec_eval and ranx take them: query ``q<qid>``, document
    ``docno`` (default ``d<row>``), integer relevance and float score."""
    lab = np.asarray(labels).astype(np.int64).tolist()
    sc = np.asarray(scores, dtype=np.float64).tolist()
    qs = [f"q{q}" for q in np.asarray(qid).tolist()]
    docs = [f"d{i}" for i in range(len(lab))] if docno is None else [str(d) for d in np.asarray(docno).tolist()]
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q, d, y, s in zip(qs, docs, lab, sc, strict=True):
        qrels.setdefault(q, {})[d] = y
        run.setdefault(q, {})[d] = s
    return qrels, run


def pytrec_eval_per_query(
    qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]], measures: set[str]
) -> dict[str, dict[str, float]]:
    """pytrec_eval's ``RelevanceEvaluator(qrels, measures).evaluate(run)``: ``{query: {measure: value}}``."""
    import pytrec_eval

    out: dict[str, dict[str, float]] = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    return out


def ranx_metrics(
    qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]], metrics: Sequence[str]
) -> dict[str, float]:
    """ranx's ``evaluate(Qrels(qrels), Run(run), metrics)`` as ``{metric: mean}``."""
    import warnings

    import ranx

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), list(metrics))
    if isinstance(res, dict):
        return {str(k): float(v) for k, v in res.items()}
    return {str(metrics[0]): float(res)}
