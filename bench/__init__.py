"""ltrbench: a gradient-boosted learning-to-rank benchmark suite.

The package follows the pipeline: ``bench.data`` (types, loaders, writers, checks) ->
``bench.adapters`` (ratings -> LETOR) -> ``bench.runners`` (LightGBM / XGBoost LambdaMART) ->
``bench.metrics`` (the reference evaluator and named conventions) -> ``bench.report``
(leaderboards, cross-checks, plots). ``bench.cli`` is a thin command-line layer over them.
"""

__version__ = "0.1.0"
