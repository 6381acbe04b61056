"""Training, and nothing else: one model on one dataset, selection on the validation split only.

* :mod:`~bench.runners.params`: one :class:`~bench.runners.params.Params` for every library and
  the parity table (:data:`~bench.runners.params.PARITY`, :func:`~bench.runners.params.parity_markdown`);
* :mod:`~bench.runners.libraries`: one record per GBDT library, the only owner of its facts
  (package, install hints, devices, objectives, limits, profile, its code by import path);
* :mod:`~bench.runners.gbdt`: the one skeleton every GBDT is trained through, over the library
  modules :mod:`~bench.runners.lightgbm`, :mod:`~bench.runners.xgboost` and
  :mod:`~bench.runners.catboost` (``fit``, ``predict``); their built-in metrics share
  :class:`~bench.runners.metric_provider.MetricProvider`;
* :mod:`~bench.runners.custom`: a user's ranker (any ``fit``/``predict``), by factory;
* :mod:`~bench.runners.baselines`: popularity, random, ALS;
* :mod:`~bench.runners.registry` (model names) and :func:`~bench.runners.dispatch.run_model`
  (train any of them by name); :mod:`~bench.runners.result` (what a runner returns);
  :mod:`~bench.runners.resources` (time and memory of a block).

Submodules are imported on use; importing this package loads no GBDT library.
"""
