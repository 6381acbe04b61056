"""Engines: where ltrbench's work runs (this process, a Dask cluster), one table of them.

:mod:`bench.engines.table` holds the records and the protocols every engine implements
(:class:`~bench.engines.table.Trainer`, :class:`~bench.engines.table.Evaluator`,
:class:`~bench.engines.table.Converter`); :mod:`bench.engines.dask_engine` is the Dask engine's
code (its cluster, its evaluator and converter), :mod:`bench.engines.dask_trainer` its trainer.
This package's face imports only the table (no Dask, no numpy), so the command line can read
the ``--engine`` choices at start-up.
"""

from bench.engines.table import (
    DEFAULT_ENGINE,
    ENGINES,
    ClusterOptions,
    Converter,
    Engine,
    Evaluator,
    RatingColumns,
    Trainer,
    TrainerFactory,
    cluster_engines,
    engine_names,
    get_engine,
)

__all__ = ["DEFAULT_ENGINE", "ENGINES", "ClusterOptions", "Converter", "Engine", "Evaluator",
           "RatingColumns", "Trainer", "TrainerFactory", "cluster_engines", "engine_names",
           "get_engine"]
