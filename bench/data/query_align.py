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
#: The text of an object column's query ids, shuffled on in their place.
_KEY = "__ltrbench_qid_text__"


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
    key = qid
    if ddf._meta[qid].dtype == object:  # ids of several types (1 beside "1") cannot be sorted:
        key = _KEY  # shuffle on their text, the local rule's id (1, 1.0 and "1" are one)
        ddf = ddf.map_partitions(_with_text_key, qid, meta=_with_text_key(ddf._meta, qid))
    tagged = ddf.map_partitions(_tag_rows, meta=_tag_rows(ddf._meta))
    out = tagged.set_index(key, drop=False, npartitions=n, sort=True).reset_index(drop=True)
    return out.map_partitions(_input_order, key, meta=ddf._meta.drop(columns=[_KEY],
                                                                     errors="ignore"))


def _with_text_key(part: pd.DataFrame, qid: str) -> pd.DataFrame:
    """``part`` with the text of each object query id in a column of its own (an integral
    float as its integer: 1.0 is query 1 among numbers; the checks after the shuffle refuse a
    float among text, a bool or a tuple as the local engine does)."""
    keys = [_id_text(v) for v in part[qid].tolist()]
    return part.assign(**{_KEY: pd.Series(keys, index=part.index, dtype="str")})


def _id_text(v: object) -> str:
    if isinstance(v, bool | np.bool_) or not isinstance(v, int | np.integer | float | np.floating):
        return str(v)
    if isinstance(v, int | np.integer):
        return str(int(v))
    return str(int(v)) if np.isfinite(v) and float(v).is_integer() else str(v)


def _tag_rows(part: pd.DataFrame, partition_info: dict[str, Any] | None = None) -> pd.DataFrame:
    """``part`` with each row's place in the input: its partition's number and its row."""
    number = int(partition_info["number"]) if partition_info else 0
    return part.assign(**{_PLACE[0]: np.full(len(part), number, dtype=np.int64),
                          _PLACE[1]: np.arange(len(part), dtype=np.int64)})


def _input_order(part: pd.DataFrame, qid: str) -> pd.DataFrame:
    """A shuffled partition by query (``qid``: the column shuffled on), each query's rows in
    their input order, the places (and a text key) dropped."""
    out = part.sort_values([qid, *_PLACE], kind="stable") if len(part) > 1 else part
    return out.drop(columns=[c for c in (*_PLACE, _KEY) if c in out.columns]).reset_index(
        drop=True)


__all__ = ["align_queries"]
