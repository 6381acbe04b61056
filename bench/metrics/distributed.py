"""The reference evaluator over a Dask DataFrame: each partition on its whole queries, combined.

``evaluate_frame(ddf, metrics=..., profile=...)`` gives what :func:`bench.metrics.evaluate` gives
on the same rows in one process (the same :class:`EvaluationResult`): each partition is prepared
and evaluated on the worker that holds it (:func:`bench.metrics.evaluate.query_parts`, the
compiled kernel), only per-query values travel back (a few numbers per query, never rows), and
:func:`bench.metrics.query_parts.combine` / :func:`~bench.metrics.query_parts.summarise` form
the means, blank-query counts, both blank policies and diagnostics from them -- the same
reductions on the same arrays, so ranking metrics equal the single-process values bit for bit.

Conventions that hold per query hold per partition: ``stable`` ties keep the row order inside a
query, ``docno_desc`` ranks document ids within a query, and ``ties="random"`` draws each
query's order from the seed and each row's place in its query only
(:func:`bench.metrics.tie_keys.random_tie_key`), so any partitioning gives the local order. A
query cut
across partitions is refused with its id (:func:`bench.data.query_shards.check_query_aligned`
runs first unless ``checked=True``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from bench.data.dask_backend import refuse_converted_ids
from bench.data.inputs import first_inexact_integer, inexact_message
from bench.data.query_shards import (
    check_query_aligned,
    checked_layout,
    partition_files,
    partition_name,
    partition_queries_of,
    unreadable_shard,
)
from bench.errors import ConfigError, DataError
from bench.metrics.dropped_rows import padding_mask, unpad
from bench.metrics.evaluate import evaluate, query_parts
from bench.metrics.names import MetricSpec, parse_metrics
from bench.metrics.profiles import Profile, given_profile
from bench.metrics.qualified import merge, require_call_profile
from bench.metrics.query_parts import QueryParts, combine, summarise
from bench.metrics.result import EvaluationResult
from bench.metrics.validate import prepare


def evaluate_frame(
    ddf: Any,
    *,
    label: str = "label",
    score: str = "score",
    qid: str = "qid",
    weight: str | None = None,
    metrics: str | Iterable[str] = ("ndcg@10",),
    profile: str | Profile = "ltrbench",
    per_query: bool = False,
    checked: bool = False,
    where: str = "data",
) -> EvaluationResult:
    """Ranking metrics of a query-aligned Dask DataFrame (columns ``label``, ``score``, ``qid``).

    Formulas and conventions are those of :func:`bench.metrics.evaluate` under ``profile``
    (default ``ltrbench``: gain ``2^l - 1``, discount ``1/log2(rank + 1)``, ties averaged, blank
    queries excluded); the result is the one :func:`bench.metrics.evaluate` returns on the rows of
    ``ddf`` in partition order. ``weight``: a column of per-row weights (a query's weight is the
    mean of its rows', as LightGBM's). ``checked``: skip the alignment check (the caller ran it).
    The check is computed in the same pass as the evaluation (each partition read once). A pandas DataFrame is evaluated in
    this process by :func:`bench.metrics.evaluate` (rows grouped by query, in frame order within
    a query) instead of failing on Dask-only methods.

    Raises:
        DataError: a query split across partitions, or bad values (the message names the
            partition and the row within it).
        ConfigError: unknown metric or profile.
    """
    if isinstance(ddf, pd.DataFrame):  # pandas, not Dask: one process, rows grouped stably
        return evaluate(ddf, label=label, score=score, qid=qid, weights=weight, metrics=metrics,
                        profile=profile, per_query=per_query)
    if len({label, score, qid}) < 3 or weight in (label, score, qid):
        raise ConfigError(f"label={label!r}, score={score!r}, qid={qid!r}, weight={weight!r}: "
                          "expected a column of its own for each (one column read as two "
                          "would rank the rows by their labels or their query ids)")
    refuse_converted_ids(ddf, qid, where)  # bytes ids dd.from_pandas made text: as locally
    prof = given_profile(profile)  # ties="random" too: a query's draw is its own (tie_keys)
    specs = require_call_profile(parse_metrics(metrics), prof, "the Dask engine")
    computed = _computed(ddf, label, score, qid, weight, specs, prof, checked, where)
    refused = next((p for p in computed if isinstance(p, _Refusal)), None)
    if refused is not None and refused.setting:
        raise ConfigError(f"{refused.path}: {refused.reason}")
    if refused is not None:
        raise DataError(refused.reason, path=refused.path, row=refused.row, column=refused.column)
    present = [p for p in computed if isinstance(p, QueryParts)]
    if not present:
        raise DataError(f"{where}: no rows to evaluate")
    return merge([summarise(combine(present), specs, prof, per_query=per_query)], specs, prof)


def _computed(ddf: Any, label: str, score: str, qid: str, weight: str | None,
              specs: list[MetricSpec], prof: Profile, checked: bool, where: str
              ) -> list[QueryParts | _Refusal | None]:
    """Each partition's per-query parts (or refusal), with, unless ``checked``, the query
    layout check (:func:`bench.data.query_shards.checked_layout`) on summaries computed in the
    same pass: each partition is read once (10^4 tiny shards were read twice, check then
    evaluation). The layout's refusal comes first, as when the check ran alone."""
    import dask
    import pyarrow as pa

    files = partition_files(ddf, where)
    delayed = ddf.to_delayed()
    if files is not None and len(files) != len(delayed):  # partitions fused by Dask: no names
        files = None
    parts = [dask.delayed(_partition_or_error)(d, partition_name(files, where, i), label, score,
                                               qid, weight, specs, prof)
             for i, d in enumerate(delayed)]
    layouts = [] if checked else [dask.delayed(_layout_or_none)(d, qid) for d in delayed]
    try:
        both = list(dask.compute(*parts, *layouts))
    except (OSError, pa.ArrowException) as exc:  # a damaged page: name its shard
        raise unreadable_shard(files, list(ddf.columns), exc, where) from None
    found = both[len(parts):]
    if found and all(t is not None for t in found):
        checked_layout(pd.concat(found, ignore_index=True), files, qid, where)
    elif found and not any(isinstance(p, _Refusal) for p in both[:len(parts)]):
        check_query_aligned(ddf, qid=qid, where=where)  # (a partition's refusal names the column)
    return both[:len(parts)]


def _layout_or_none(frame: pd.DataFrame, qid: str) -> pd.DataFrame | None:
    return partition_queries_of(frame, qid) if qid in frame.columns else None


@dataclass(frozen=True)
class _Refusal:
    """A partition's DataError, returned as a value: raised in the client, so that a worker does
    not log it as a failed task with a traceback before the CLI prints its one line."""

    reason: str
    path: str | None
    row: int | None
    column: str | None
    #: a ConfigError (a setting the rows cannot be evaluated under: per-row weights beside
    #: padding rows), raised as one in the client
    setting: bool = False


def _partition_or_error(*args: Any) -> QueryParts | _Refusal | None:
    try:
        return _partition_parts(*args)
    except DataError as exc:
        return _Refusal(exc.reason, exc.path, exc.row, exc.column)
    except ConfigError as exc:
        return _Refusal(str(exc), str(args[1]), None, None, setting=True)


def _frame_numbers(col: pd.Series, role: str, name: str, column: str) -> np.ndarray:
    """A label, score or weight column that is not of a number dtype, read as
    :func:`bench.metrics.evaluate` reads a frame's (an object column of Python or NumPy numbers
    is numbers; a bool, text -- Dask may have made an object column of integers text,
    ``dataframe.convert-string`` -- a Decimal or a date is refused, naming its row)."""
    from bench.metrics.frames import numeric_column

    try:
        return numeric_column(col, "weight" if role == "weight" else role)
    except DataError as exc:
        raise DataError(exc.reason, path=name, row=exc.row, column=column) from None


def _partition_parts(frame: pd.DataFrame, name: str, label: str, score: str, qid: str,
                     weight: str | None, specs: list[MetricSpec], prof: Profile) -> QueryParts | None:
    """One partition's per-query parts; every problem names the partition (its shard file),
    the row within it (1-based) and the column (the rules of :mod:`bench.data.inputs`)."""
    if frame.shape[0] == 0:
        return None
    columns = {"label": label, "score": score, "qid": qid, "weight": weight}
    values = {}
    for role, col in columns.items():
        if col is None:
            continue
        if col not in frame.columns:
            index = (f"; {col!r} is the frame's index (a folder written with set_index({col!r})"
                     "): pass ddf.reset_index()") if col in frame.index.names else ""
            raise DataError(f"no column {col!r} (the {role}s); columns: {list(frame.columns)}"
                            f"{index}", path=name, column=col)
        v = frame[col].to_numpy()
        if role != "qid" and v.dtype.kind not in "iuf":  # as evaluate reads a frame's column:
            v = _frame_numbers(frame[col], role, name, col)  # np.int64 objects, not a bool
        values[role] = v
    # Profile.padding (allRank's -1, TF-Ranking's negative labels): the padding rows are found
    # before any check, their scores not read, and dropped after prepare -- as evaluate does
    # (bench.metrics.dropped_rows), so a partition gives evaluate's number on its rows
    labels, scores, padding = padding_mask(values["label"], values["score"], prof)
    for role, v in (("label", labels), ("score", scores), ("weight", values.get("weight"))):
        if v is not None and v.dtype.kind == "f" and (nan := np.isnan(v)).any():  # a null too
            raise DataError(f"{role} nan is missing (a NaN or a null): every row needs a {role}",
                            path=name, row=int(np.flatnonzero(nan)[0]) + 1, column=columns[role])
    if (inexact := first_inexact_integer(scores)) >= 0:
        raise DataError(inexact_message("score", scores[inexact]), path=name,
                        row=inexact + 1, column=score)
    try:
        prep = prepare(np.asarray(labels, dtype=np.float64), np.asarray(scores, dtype=np.float64),
                       qid=values["qid"], group=None, weights=values.get("weight"), threads=1)
        return query_parts(unpad(prep, padding, values.get("weight")), specs, prof, threads=1)
    except DataError as exc:
        about = next((r for r, prefix in (("label", "label"), ("score", "score"),
                                          ("qid", "query id"), ("weight", "weight"))
                      if exc.reason.startswith(prefix)), None)
        raise DataError(exc.reason, path=name, row=exc.row,
                        column=columns.get(about) if about else None) from None


__all__ = ["evaluate_frame"]
