"""The reference evaluator: ranking metrics whose conventions are explicit and named.

Two queries (``qid``), graded labels, one score per document. Query 2 ranks its documents
(labels 1, 0, 1): DCG@3 = 1 + 1/log2(4) = 1.5, ideal 1 + 1/log2(3), nDCG@3 = 0.91972; AP =
(1/1 + 2/3) / 2; query 1 is perfect, so the means are (1 + 0.91972) / 2 and (1 + 0.83333) / 2:

>>> from bench.metrics import evaluate
>>> r = evaluate([2, 0, 1, 0, 1], [0.9, 0.8, 0.1, 0.3, 0.5], qid=[1, 1, 2, 2, 2],
...              metrics="ndcg@1,3 map@10 mrr", profile="ltrbench")
>>> {name: round(value, 5) for name, value in r.metrics.items()}
{'ndcg@1': 1.0, 'ndcg@3': 0.95986, 'map@10': 0.91667, 'mrr': 1.0}
>>> r.diagnostics.n_queries, r.diagnostics.n_blank
(2, 0)

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
