"""The Dask engine (the ``dask`` row of :data:`bench.engines.table.ENGINES`): its cluster, its
evaluator and its converter; its trainer is :class:`bench.engines.dask_trainer.DaskTrainer`.
Every cluster of the engine is opened and closed by :func:`open_cluster`
(:func:`bench.data.dask_cluster.cluster`: a loopback-only local cluster unless ``scheduler``
names one), here in the engine layer: commands parse and print and open no cluster. Dask is
imported inside the functions only, so the package works without it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.engines.table import ClusterOptions, Converter, Evaluator, RatingColumns
from bench.errors import ConfigError, LtrbenchError

if TYPE_CHECKING:
    from bench.adapters.config import AdapterConfig
    from bench.metrics.result import EvaluationResult


@contextmanager
def open_cluster(options: ClusterOptions) -> Iterator[Any]:
    """A :class:`distributed.Client` of the cluster ``options`` describe (a new loopback-only
    local one, or ``options.scheduler``'s), closed on exit."""
    from bench.data.dask_cluster import cluster

    with cluster(options.scheduler, workers=options.workers, threads=options.threads,
                 memory_limit=options.memory_limit) as client:
        yield client


def evaluate_shards(data: str | Path, *, score_column: str, metrics: list[str], profile: str,
                    per_query: bool, options: ClusterOptions) -> EvaluationResult:
    """Metrics of a folder of query-aligned Parquet shards (``qid``, ``label``,
    ``score_column``; :mod:`bench.data.query_shards`) evaluated partition by partition on a
    Dask cluster (:func:`bench.metrics.distributed.evaluate_frame`: the local engine's numbers
    on the same rows). The shards' columns are checked before the cluster starts."""
    from bench.data.query_shards import read_query_shards, shard_columns
    from bench.metrics.distributed import evaluate_frame

    if score_column in ("qid", "label") or not isinstance(score_column, str) \
            or not score_column.strip():
        raise ConfigError(f"--score-column {score_column!r}: expected the name of the shards' "
                          "column of scores (not 'qid' nor 'label', which the engine reads as "
                          "the query ids and the labels)")
    columns = ["qid", "label", score_column]
    files = shard_columns(data, columns)
    with open_cluster(options):  # the files checked, read as they were (the folder unchanged)
        ddf = read_query_shards(data, columns=columns, files=files)
        try:
            return evaluate_frame(ddf, score=score_column, metrics=metrics, profile=profile,
                                  per_query=per_query, where=str(data))
        except LtrbenchError:
            raise
        except Exception as exc:  # a worker died (KilledWorker), the scheduler went away
            if type(exc).__module__.split(".")[0] not in ("distributed", "dask"):
                raise
            raise cluster_failure("evaluation", exc) from None


def cluster_failure(what: str, exc: BaseException) -> LtrbenchError:
    """One line for a Dask ``what`` the cluster failed under (``exc``: Dask's own error, a
    ``KilledWorker`` when a worker died at its memory limit, a lost scheduler), never a
    traceback: the error's type and first line, and what to try."""
    first = (str(exc).strip().splitlines() or [""])[0][:300]
    return LtrbenchError(f"the Dask {what} failed ({type(exc).__name__}: {first}); a worker "
                         "that dies at its memory limit needs more memory per worker (fewer "
                         "--workers) or smaller shards")


def check_memory_limit(memory_limit: str) -> None:
    """``convert --memory-limit``: ``auto`` or a size Dask reads (``2GB``, ``500MiB``); a
    ConfigError naming the option otherwise, before any work."""
    if memory_limit == "auto":
        return
    from dask.utils import parse_bytes

    from bench.data.dask_cluster import memory_limit_value

    try:
        parse_bytes(memory_limit)
    except OverflowError:  # 1e400: named by the cluster's own check below
        pass
    except ValueError:
        raise ConfigError(f"--memory-limit {memory_limit!r}: expected 'auto' or a size "
                          "such as 2GB or 500MiB") from None
    try:  # the cluster's own check (bounds, sign), named with the option
        memory_limit_value(memory_limit)
    except ConfigError as exc:
        raise ConfigError(f"--memory-limit: {exc}") from None


class DaskConverter:
    """The Dask engine's :class:`~bench.engines.table.Converter`: :meth:`check` refuses the
    settings it does not run before any work, calling it converts."""

    def check(self, config: AdapterConfig) -> None:
        """:func:`bench.adapters.distributed.check_distributable` (the ``als`` group, a
        ``time-cut`` split without cuts)."""
        from bench.adapters.distributed import check_distributable

        check_distributable(config)

    def __call__(self, ratings: str, out: str | Path, config: AdapterConfig, *,
                 columns: RatingColumns, options: ClusterOptions, rows_per_block: int,
                 progress: Callable[[str], None]) -> dict[str, Any]:
        return convert_ratings(ratings, out, config, columns=columns, options=options,
                               rows_per_block=rows_per_block, progress=progress)


#: The converter the engine table names (typed as the protocol: mypy checks the fit).
CONVERTER: Converter = DaskConverter()


def convert_ratings(ratings: str, out: str | Path, config: AdapterConfig, *,
                    columns: RatingColumns, options: ClusterOptions, rows_per_block: int,
                    progress: Callable[[str], None]) -> dict[str, Any]:
    """A ratings table (a MovieLens CSV folder, or CSV / Parquet files) converted to LETOR
    Parquet shards of whole queries on a Dask cluster
    (:func:`bench.adapters.distributed.convert_distributed`); ``columns`` name the table's
    columns as the command line gave them (see
    :func:`bench.data.dask_ratings.read_ratings_frame`). Returns the conversion's summary."""
    if isinstance(options.memory_limit, str):
        check_memory_limit(options.memory_limit)
    from bench.adapters.distributed import convert_distributed
    from bench.data.dask_ratings import ratings_files, read_ratings_frame
    from bench.data.shard_listing import still_as_checked

    frame = read_ratings_frame(ratings, user=columns.user, item=columns.item,
                               rating=columns.rating, timestamp=columns.timestamp,
                               sep=columns.sep)
    with open_cluster(options) as client:
        # a file made a FIFO while the cluster started would block its read for ever
        # and a shard added or removed since the listing named (a MovieLens folder's side
        # tables are not shards: its one ratings.csv is checked as a file)
        listed = None if (Path(ratings) / "ratings.csv").is_file() else ratings_files(ratings)
        still_as_checked(frame.files, expected="a ratings file (CSV, TSV or Parquet)",
                         listed=listed)
        summary: dict[str, Any] = convert_distributed(frame, out, config, client,
                                                      rows_per_block=rows_per_block,
                                                      progress=progress)
    return summary


_EVALUATOR: Evaluator = evaluate_shards  # the protocol the table's evaluator must fit (mypy)

__all__ = ["CONVERTER", "DaskConverter", "check_memory_limit", "cluster_failure", "convert_ratings", "evaluate_shards", "open_cluster"]
