"""Standalone probe: one library's built-in ranking metrics on fixed cases, run in any Python.

``python version_probe.py REQUEST.json CASES.npz RESULT.json``

Runs inside an isolated virtual environment that holds only the library under test and NumPy,
so it imports nothing from ``bench`` (``ltrbench crosscheck --versions`` writes the request and
the cases, then reads the result; :mod:`bench.crosscheck.versions`). The tools' metrics are
read the way :mod:`bench.crosscheck.providers` reads them, through calls that LightGBM 3.3.5 to
4.7.0 and XGBoost 1.7.6 to 3.2.0 all accept (the releases measured):

* LightGBM: a one-column all-zero ``Dataset`` with the scores as ``init_score`` and a booster
  with ``objective="none"`` and no trees; ``Booster.eval_train()``
  (``src/metric/rank_metric.hpp``, ``map_metric.hpp``).
* XGBoost: a ``DMatrix`` with ``set_group`` and the scores as ``base_margin``,
  ``xgboost.train(..., num_boost_round=0)``, ``Booster.eval()`` (``src/metric/rank_metric.cc``);
  XGBoost prints 17 digits (``src/learner.cc``, ``EvalOneIter``: ``max_digits10``).

REQUEST: ``{"library", "metrics": [names as the library spells them], "linear_metrics": [...]}``;
the ``linear_metrics`` are read a second time with linear gain (LightGBM ``label_gain`` =
0, 1, 2, ...; XGBoost ``ndcg_exp_gain=False``) and reported as ``"<name> [linear gain]"``.
CASES: arrays ``<case>__labels``, ``<case>__scores``, ``<case>__group`` and optionally
``<case>__weights`` (one per query). RESULT: ``{"library", "version", "cases": {case: {"mean":
{metric: value | "error: ..."}, "per_query": {metric: [value | "error: ..."]}}}}``; the
per-query values come from evaluating each query on its own.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

import numpy as np

_ERR_CHARS = 300
#: Suffix of a metric read with linear gain.
LINEAR_TAG = " [linear gain]"


def _lightgbm_eval(labels: Any, scores: Any, group: Any, weights: Any, metrics: list[str],
                   linear_gain: bool) -> dict[str, float]:
    import lightgbm as lgb

    families = sorted({m.split("@")[0] for m in metrics})
    ks = sorted({int(m.split("@")[1]) for m in metrics})
    params: dict[str, Any] = {"objective": "none", "metric": families, "eval_at": ks,
                              "verbosity": -1, "num_threads": 1}
    if linear_gain:
        params["label_gain"] = [float(i) for i in range(31)]
    row_weights = None if weights is None else np.repeat(weights, group)
    data = lgb.Dataset(np.zeros((labels.shape[0], 1), dtype=np.float32), label=labels,
                       group=group, init_score=scores, weight=row_weights,
                       params={"verbosity": -1})
    booster = lgb.Booster(params=params, train_set=data)
    out = {str(r[1]): float(r[2]) for r in booster.eval_train()}
    return {m: out[m] for m in metrics}


def _xgboost_eval(labels: Any, scores: Any, group: Any, weights: Any, metrics: list[str],
                  linear_gain: bool) -> dict[str, float]:
    import xgboost as xgb

    dm = xgb.DMatrix(np.zeros((labels.shape[0], 1), dtype=np.float32), label=labels)
    dm.set_group(group)
    dm.set_base_margin(scores)
    if weights is not None:
        dm.set_weight(weights)
    params: dict[str, Any] = {"objective": "rank:ndcg", "eval_metric": list(metrics),
                              "base_score": 0.0, "nthread": 1, "verbosity": 0}
    if linear_gain:
        params["ndcg_exp_gain"] = False
    booster = xgb.train(params, dm, num_boost_round=0)
    text = booster.eval(dm, name="d")
    values = {k: float(v) for k, v in re.findall(r"\td-([^:]+):([^\t]+)", text)}
    return {m: values[m] for m in metrics}


_EVALUATORS = {"lightgbm": _lightgbm_eval, "xgboost": _xgboost_eval}


def _error(exc: BaseException) -> str:
    lines = [ln for ln in str(exc).strip().splitlines() if ln.strip()]
    text = lines[0] if lines else type(exc).__name__
    for ln in lines:  # XGBoost puts its check's message after the file:line header
        if "Check failed" in ln or "error" in ln.lower():
            text = ln
            break
    return "error: " + text.strip()[:_ERR_CHARS]


def _safe_eval(library: str, labels: Any, scores: Any, group: Any, weights: Any,
               metrics: list[str], linear_gain: bool) -> dict[str, Any]:
    """All metrics at once; when that fails, one at a time so one refusal hides no value."""
    fn = _EVALUATORS[library]
    try:
        return dict(fn(labels, scores, group, weights, metrics, linear_gain))
    except Exception:  # the library's refusal is a result here
        pass
    out: dict[str, Any] = {}
    for m in metrics:
        try:
            out[m] = fn(labels, scores, group, weights, [m], linear_gain)[m]
        except Exception as exc:
            out[m] = _error(exc)
    return out


def _case_names(arrays: Any) -> list[str]:
    return sorted({key.split("__")[0] for key in arrays.files})


def run(request: dict[str, Any], arrays: Any) -> dict[str, Any]:
    """The library's values for every case of ``arrays`` (see the module docstring)."""
    library = request["library"]
    if library not in _EVALUATORS:
        raise SystemExit(f"probe: unknown library {library!r}")
    module = __import__(library)
    runs = [("", list(request["metrics"]), False),
            (LINEAR_TAG, list(request.get("linear_metrics", [])), True)]
    cases: dict[str, Any] = {}
    for name in _case_names(arrays):
        labels = np.asarray(arrays[f"{name}__labels"], dtype=np.float64)
        scores = np.asarray(arrays[f"{name}__scores"], dtype=np.float64)
        group = np.asarray(arrays[f"{name}__group"], dtype=np.int64)
        key = f"{name}__weights"
        weights = np.asarray(arrays[key], dtype=np.float64) if key in arrays.files else None
        offsets = np.concatenate(([0], np.cumsum(group)))
        mean: dict[str, Any] = {}
        per_query: dict[str, list[Any]] = {}
        for tag, metrics, linear in runs:
            if not metrics:
                continue
            whole = _safe_eval(library, labels, scores, group, weights, metrics, linear)
            mean.update({m + tag: v for m, v in whole.items()})
            per_query.update({m + tag: [] for m in metrics})
            for q in range(group.shape[0]):
                lo, hi = int(offsets[q]), int(offsets[q + 1])
                one = _safe_eval(library, labels[lo:hi], scores[lo:hi], group[q:q + 1], None,
                                 metrics, linear)
                for m in metrics:
                    per_query[m + tag].append(one[m])
        cases[name] = {"mean": mean, "per_query": per_query}
    return {"library": library, "version": str(module.__version__),
            "numpy": str(np.__version__), "python": sys.version.split()[0], "cases": cases}


def main(argv: list[str]) -> int:
    """Entry point: read the request and the cases, write the result (see the module docstring)."""
    if len(argv) != 3:
        print("usage: version_probe.py REQUEST.json CASES.npz RESULT.json", file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as fh:
        request = json.load(fh)
    with np.load(argv[1]) as arrays:
        result = run(request, arrays)
    with open(argv[2], "w", encoding="utf-8") as fh:
        json.dump(result, fh)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
