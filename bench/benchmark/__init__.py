"""The benchmark: a validated run configuration, the run itself, and what is done with runs.

* :mod:`~bench.benchmark.config`: :class:`~bench.benchmark.config.RunConfig` (TOML), validated
  completely when it is made, before any data is loaded; shipped configs in ``configs/``;
* :mod:`~bench.benchmark.pipeline`: :func:`~bench.benchmark.pipeline.run_benchmark` →
  ``<out>/runs/<run-id>/`` (layout: :mod:`bench.runs.layout`), with
  :mod:`~bench.benchmark.record` (manifest and per-pair rows) and
  :mod:`~bench.benchmark.scoring` (scores → reference metrics);
* :mod:`~bench.benchmark.permute` (row-order check), :mod:`~bench.benchmark.reproduce`,
  :mod:`~bench.benchmark.tune` (group-aware CV), :mod:`~bench.benchmark.summary`.

The Python API of the whole benchmark is :func:`bench.benchmark.run` (:mod:`~bench.benchmark.api`):
``from bench.benchmark import run; result = run("synthetic", models=["lightgbm", "xgboost"])``.
"""

from bench.benchmark.api import RunResult, run

__all__ = ["RunResult", "run"]
