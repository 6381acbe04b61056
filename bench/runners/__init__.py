"""Training runners and the benchmark pipeline.

* :mod:`~bench.runners.params`: one :class:`~bench.runners.params.Params` for both libraries and
  the parity table (:data:`~bench.runners.params.PARITY`, :func:`~bench.runners.params.parity_markdown`);
* :mod:`~bench.runners.lightgbm`, :mod:`~bench.runners.xgboost`, :mod:`~bench.runners.baselines`:
  one model, early stopping and every choice on the validation split only;
  :func:`~bench.runners.dispatch.run_model` trains any of them by name
  (:data:`~bench.runners.registry.MODELS`);
* :mod:`~bench.runners.builtin`: a library's own metric recomputed on given scores;
* :mod:`~bench.benchmark.config` (``RunConfig``, TOML) and :mod:`~bench.benchmark.pipeline`
  (``run_benchmark`` → ``results/runs/<run-id>/``), :mod:`~bench.benchmark.summary`;
* :mod:`~bench.benchmark.tune` (group-aware CV), :mod:`~bench.benchmark.permute` (row-order check),
  :mod:`~bench.benchmark.reproduce`, :mod:`~bench.report.published` (published numbers as data).

Submodules are imported on use; importing this package loads neither LightGBM nor XGBoost.
"""
