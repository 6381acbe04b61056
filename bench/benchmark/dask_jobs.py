"""The Dask engine of ``ltrbench evaluate`` and ``ltrbench convert``: a cluster opened, the work
run on it, the cluster closed, in this layer (commands parse and print; they open no cluster).

Moved here from ``bench/commands/evaluate.py`` and ``bench/commands/convert.py``. The cluster is
:func:`bench.data.dask_cluster.cluster` (a loopback-only local cluster unless ``scheduler``
names one); ``run --engine dask`` opens its own in :mod:`bench.benchmark.dask_engine`. Dask is
imported inside the functions only, so the package works without it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bench.adapters.config import AdapterConfig
    from bench.metrics.result import EvaluationResult


def evaluate_shards(data: str | Path, *, score_column: str, metrics: list[str], profile: str,
                    per_query: bool, scheduler: str | None, workers: int) -> EvaluationResult:
    """Metrics of a folder of query-aligned Parquet shards (``qid``, ``label``,
    ``score_column``; :mod:`bench.data.query_shards`) evaluated partition by partition on a
    Dask cluster (:func:`bench.metrics.distributed.evaluate_frame`: the local engine's numbers
    on the same rows). The shards' columns are checked before the cluster starts."""
    from bench.data.dask_cluster import cluster
    from bench.data.query_shards import read_query_shards, shard_columns
    from bench.metrics.distributed import evaluate_frame

    columns = ["qid", "label", score_column]
    shard_columns(data, columns)
    with cluster(scheduler, workers=workers):
        ddf = read_query_shards(data, columns=columns)
        return evaluate_frame(ddf, score=score_column, metrics=metrics, profile=profile,
                              per_query=per_query, where=str(data))


def convert_ratings(ratings: str, out: str | Path, config: AdapterConfig, *,
                    user: str | None, item: str | None, rating: str | None,
                    timestamp: str | None, sep: str | None, scheduler: str | None, workers: int,
                    memory_limit: str, rows_per_block: int,
                    progress: Callable[[str], None]) -> dict[str, Any]:
    """A ratings table (a MovieLens CSV folder, or CSV / Parquet files) converted to LETOR
    Parquet shards of whole queries on a Dask cluster
    (:func:`bench.adapters.distributed.convert_distributed`); ``user``, ``item``, ``rating``,
    ``timestamp`` and ``sep`` name the table's columns as the command line gave them (see
    :func:`bench.data.dask_ratings.read_ratings_frame`). Returns the conversion's summary."""
    from bench.adapters.distributed import convert_distributed
    from bench.data.dask_cluster import cluster
    from bench.data.dask_ratings import read_ratings_frame

    frame = read_ratings_frame(ratings, user=user, item=item, rating=rating,
                               timestamp=timestamp, sep=sep)
    with cluster(scheduler, workers=workers, memory_limit=memory_limit) as client:
        summary: dict[str, Any] = convert_distributed(frame, out, config, client,
                                                      rows_per_block=rows_per_block,
                                                      progress=progress)
    return summary
