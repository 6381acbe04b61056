"""A Dask frame re-partitioned so that every query lies in one partition, its rows in order.

:func:`align_queries` shuffles on the query id (Dask's ``set_index``). That sort is not stable,
so the rows of a query came out in another order than the input's: under a profile whose ties
keep row order (``lightgbm``, ``xgboost``), tied documents were ranked otherwise than
:func:`bench.metrics.evaluate` ranks them on the same frame (ndcg@10 0.716 against 0.767 on a
frame of many ties). Each row's place in the input (its partition, its row there) therefore
travels with it through the shuffle and restores the order inside every query.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from bench.errors import ConfigError, DataError

#: The two columns that carry a row's input place through the shuffle.
_PLACE = ("__ltrbench_partition__", "__ltrbench_row__")


def align_queries(ddf: Any, *, qid: str = "qid", npartitions: int | None = None) -> Any:
    """``ddf`` re-partitioned so that each query lies in one partition (a shuffle on ``qid``)
    into ``npartitions`` partitions (default: as many as ``ddf`` has). Partitions come out
    sorted by ``qid``; inside a query, rows keep their input order.

    Raises:
        ConfigError: ``ddf`` is no Dask DataFrame, or ``npartitions`` is no integer >= 1.
        DataError: ``ddf`` has no column ``qid``.
    """
    if isinstance(ddf, pd.DataFrame) or not hasattr(ddf, "map_partitions"):
        raise ConfigError(f"align_queries: expected a Dask DataFrame, got {type(ddf).__name__} "
                          "(a pandas frame is one partition already: give it to evaluate_frame "
                          "or bench.metrics.evaluate as it is)")
    if npartitions is not None and (isinstance(npartitions, bool)
                                    or not isinstance(npartitions, int | np.integer)
                                    or npartitions < 1):
        raise ConfigError(f"align_queries: npartitions={npartitions!r}: expected an integer "
                          ">= 1 (or None: as many partitions as the frame has)")
    if qid not in ddf.columns:
        raise DataError(f"align_queries: no column {qid!r} (the query ids); columns: "
                        f"{list(ddf.columns)}")
    n = int(npartitions or ddf.npartitions)
    tagged = ddf.map_partitions(_tag_rows, meta=_tag_rows(ddf._meta))
    out = tagged.set_index(qid, drop=False, npartitions=n, sort=True).reset_index(drop=True)
    return out.map_partitions(_input_order, qid, meta=ddf._meta)


def _tag_rows(part: pd.DataFrame, partition_info: dict[str, Any] | None = None) -> pd.DataFrame:
    """``part`` with each row's place in the input: its partition's number and its row."""
    number = int(partition_info["number"]) if partition_info else 0
    return part.assign(**{_PLACE[0]: np.full(len(part), number, dtype=np.int64),
                          _PLACE[1]: np.arange(len(part), dtype=np.int64)})


def _input_order(part: pd.DataFrame, qid: str) -> pd.DataFrame:
    """A shuffled partition by query, each query's rows in their input order, the places
    dropped."""
    out = part.sort_values([qid, *_PLACE], kind="stable") if len(part) > 1 else part
    return out.drop(columns=list(_PLACE)).reset_index(drop=True)


__all__ = ["align_queries"]
