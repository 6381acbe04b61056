"""A library's own ranking metric, recomputed on given scores (no training).

* LightGBM: a one-column all-zero ``Dataset`` with the labels, the group sizes and the scores as
  ``init_score``; a ``Booster`` with no trees (``objective="none"``) evaluates its training data,
  whose current scores are exactly the init scores (``src/boosting/score_updater.hpp``). The
  metric is LightGBM's C++ ``NDCGMetric`` / ``MapMetric`` (``src/metric/rank_metric.hpp``,
  ``map_metric.hpp``): scores as double, stable sort (ties in row order), all-zero query = 1.
* XGBoost: a ``DMatrix`` with the labels, ``qid`` (group number per row) and the scores as
  ``base_margin``; ``xgboost.train(..., num_boost_round=0)`` and ``Booster.eval``. The metric is
  XGBoost's C++ ``EvalNDCG`` / ``EvalMAPScore`` / ``EvalPrecision`` (``src/metric/rank_metric.cc``):
  scores as **float32** (``base_margin`` is stored as float32), stable sort, all-zero query = 1
  (0 with the ``-`` suffix).

Metric names: ``ndcg@k`` and ``map@k`` for both; XGBoost also takes ``pre@k`` (alias ``p@k``),
``ndcg``/``map``/``pre`` without a cutoff (XGBoost then truncates at 32) and the ``-`` suffix
(``ndcg@10-``). XGBoost's ``map`` and ``pre`` need binary labels.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from bench.data.groups import group_index
from bench.errors import ConfigError, DataError

LIBRARIES = ("lightgbm", "xgboost")
_LGB = re.compile(r"^(ndcg|map)@(\d+)$")
_XGB = re.compile(r"^(ndcg|map|pre|p)(?:@(\d+))?(-)?$")


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
    """``library``'s own value of ``metric`` for ``scores`` (see the module docstring).

    ``offsets`` are group offsets (length n_queries + 1, see :mod:`bench.data.groups`).
    ``label_gain`` ``"exp2"`` (2^l − 1, both libraries' default) or ``"linear"`` (l).

    >>> builtin_metric("lightgbm", [0, 1, 2], [0.1, 0.2, 0.3], [0, 3], "ndcg@3")
    1.0
    """
    return builtin_metrics(
        library, labels, scores, offsets, [metric], label_gain=label_gain, n_threads=n_threads
    )[metric]


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
    """Several metrics of one library in one call (one dataset construction)."""
    y = np.asarray(labels, dtype=np.float64).ravel()
    s = np.asarray(scores, dtype=np.float64).ravel()
    off = np.asarray(offsets, dtype=np.int64).ravel()
    if y.shape != s.shape:
        raise DataError(f"{y.shape[0]} labels but {s.shape[0]} scores")
    if off.shape[0] < 2 or off[0] != 0 or off[-1] != y.shape[0] or np.any(np.diff(off) <= 0):
        raise DataError(
            f"group offsets must start at 0, increase strictly and end at {y.shape[0]} (the rows)"
        )
    if label_gain not in ("exp2", "linear"):
        raise ConfigError(f"unknown label_gain {label_gain!r}; valid: exp2, linear")
    if library == "lightgbm":
        return _lightgbm(y, s, off, list(metrics), label_gain, n_threads)
    if library == "xgboost":
        return _xgboost(y, s, off, list(metrics), label_gain, n_threads)
    raise ConfigError(f"unknown library {library!r}; valid: {', '.join(LIBRARIES)}")


def _lightgbm(
    y: np.ndarray, s: np.ndarray, off: np.ndarray, metrics: list[str], label_gain: str, n_threads: int
) -> dict[str, float]:
    import lightgbm as lgb

    from bench.runners.params import label_gain_table

    wanted: dict[str, set[int]] = {"ndcg": set(), "map": set()}
    for m in metrics:
        match = _LGB.match(m)
        if not match:
            raise ConfigError(f"LightGBM metric {m!r} not supported here; valid: ndcg@k, map@k")
        wanted[match.group(1)].add(int(match.group(2)))
    out: dict[str, float] = {}
    for name, ks in wanted.items():
        if not ks:
            continue
        params = {
            "objective": "none",
            "metric": name,
            "eval_at": sorted(ks),
            "label_gain": label_gain_table(label_gain),
            "num_threads": n_threads,
            "verbosity": -1,
        }
        ds = lgb.Dataset(
            np.zeros((y.shape[0], 1), dtype=np.float32),
            label=y,
            group=np.diff(off),
            init_score=s,
            params={"verbosity": -1},
        )
        booster = lgb.Booster(params=params, train_set=ds)
        for result in booster.eval_train():
            out[result[1]] = float(result[2])
    return {m: out[m] for m in metrics}


def _xgboost(
    y: np.ndarray, s: np.ndarray, off: np.ndarray, metrics: list[str], label_gain: str, n_threads: int
) -> dict[str, float]:
    import xgboost as xgb

    names: dict[str, str] = {}
    for m in metrics:
        match = _XGB.match(m)
        if not match:
            raise ConfigError(
                f"XGBoost metric {m!r} not supported here; valid: ndcg@k, map@k, pre@k (p@k), "
                "without @k, with a '-' suffix"
            )
        base = "pre" if match.group(1) == "p" else match.group(1)
        if base in ("map", "pre") and not np.isin(y, (0.0, 1.0)).all():
            raise DataError(
                f"XGBoost's {base} needs binary labels (0/1); binarize first (e.g. label >= 1)"
            )
        names[m] = base + (f"@{match.group(2)}" if match.group(2) else "") + (match.group(3) or "")
    qid = group_index(off)
    d = xgb.DMatrix(np.zeros((y.shape[0], 1), dtype=np.float32), label=y, qid=qid, base_margin=s)
    booster = xgb.train(
        {
            "objective": "rank:ndcg",
            "eval_metric": list(dict.fromkeys(names.values())),
            "ndcg_exp_gain": label_gain == "exp2",
            "base_score": 0.0,
            "nthread": n_threads,
        },
        d,
        num_boost_round=0,
    )
    text = booster.eval(d, name="d")
    values = {k: float(v) for k, v in re.findall(r"\td-([^:]+):([^\t]+)", text)}
    return {m: values[names[m]] for m in metrics}
