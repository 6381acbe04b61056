"""The reference evaluator: ranking metrics whose conventions are explicit and named.

>>> from bench.metrics import evaluate
>>> r = evaluate(labels, scores, qid=qid, metrics="ndcg@1,3,5,10 map@10 mrr", profile="ltrbench")
>>> r.metrics["ndcg@10"], r.diagnostics.n_blank                          # doctest: +SKIP

* :func:`evaluate` (arrays) and :func:`evaluate_trec` (TREC qrels + run files);
* :class:`Profile`, :data:`PROFILES`, :func:`get_profile`: the conventions of ltrbench, LightGBM,
  XGBoost (and its ``-`` variant), scikit-learn, trec_eval, ranx and LETOR 4.0;
* :func:`parse_metrics`: metric names (``"ndcg@1,3,5,10"`` expands).
"""

from __future__ import annotations

from bench.metrics.diagnostics import Diagnostics
from bench.metrics.evaluate import evaluate
from bench.metrics.names import MetricSpec, parse_metrics, valid_metric_names
from bench.metrics.profiles import PROFILES, Profile, get_profile
from bench.metrics.result import EvaluationResult
from bench.metrics.trec import evaluate_trec

__all__ = [
    "PROFILES",
    "Diagnostics",
    "EvaluationResult",
    "MetricSpec",
    "Profile",
    "evaluate",
    "evaluate_trec",
    "get_profile",
    "parse_metrics",
    "valid_metric_names",
]
