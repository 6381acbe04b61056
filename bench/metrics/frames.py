"""A pandas DataFrame as the input of :func:`bench.metrics.evaluate`: columns become arrays.

``evaluate(frame, label="rel", score="score", qid="qid")`` evaluates one row per document. Each
of ``label``, ``score``, ``qid`` is a column name (or a named index level); left out, the column
is found among common names, case-insensitively (``rel``/``relevance``/``label``/...,
``score``/``prediction``/..., ``qid``/``query_id``/``query``/...: the lists of
:mod:`bench.data.trec_objects`; two candidates present is an error asking which). ``scores``
(positional) may instead be an array of model scores aligned with the frame's rows.
``docno`` and ``weights`` may be column names or arrays; a document-id column with a common name
is used for the ``docno_desc`` tie rule when present.

Rows may come in any order: they are grouped by query *stably* (``sort_by_qid=True``: queries
in order of first appearance, the rows of a query in their frame order), so tie rules that use
row order (LightGBM's and XGBoost's stable sort) see each query's rows as the frame lists them.
Rows are numbered by their position in the frame (1-based) in every error; a label or score
column that is not numeric, or that has a missing value, is an error naming the column, the row
and its index label.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeGuard

import numpy as np
import pandas as pd

from bench.data.trec_objects import (
    DOCNO_COLUMNS,
    QID_COLUMNS,
    REL_COLUMNS,
    SCORE_COLUMNS,
    find_columns,
)
from bench.errors import ConfigError, DataError

_WHERE = "DataFrame"


@dataclass(frozen=True)
class FrameArrays:
    """The arrays :func:`bench.metrics.evaluate` takes, read from a frame (row order kept)."""

    labels: np.ndarray
    scores: np.ndarray
    qid: np.ndarray
    docno: np.ndarray | None
    weights: np.ndarray | None


def is_frame(obj: object) -> TypeGuard[pd.DataFrame]:
    """Whether ``obj`` is a pandas DataFrame (the first argument of ``evaluate`` may be one)."""
    return isinstance(obj, pd.DataFrame)


def frame_arrays(
    frame: pd.DataFrame,
    *,
    scores: Any = None,
    label: str | None = None,
    score: str | None = None,
    qid: Any = None,
    docno: Any = None,
    weights: Any = None,
    group: Any = None,
) -> FrameArrays:
    """Labels, scores, query ids (and document ids, weights) of ``frame`` as arrays.

    See the module docstring for how columns are chosen. A string ``qid``/``docno``/``weights``
    names a column; anything else is taken as an array aligned with the rows.
    """
    n = frame.shape[0]
    if group is not None:
        raise ConfigError("a DataFrame's queries come from its qid column (qid='name'); "
                          "group= (group sizes) is for arrays")
    if scores is not None and score is not None:
        raise ConfigError("give the scores either as a column (score='name') or as an array "
                          "(the second argument), not both")
    if isinstance(scores, str):
        score, scores = scores, None
    if n == 0:
        raise DataError("empty input: the DataFrame has no rows", path=_WHERE)
    roles: list[tuple[str, str | None, tuple[str, ...]]] = [("label", label, REL_COLUMNS)]
    if scores is None:
        roles.append(("score", score, SCORE_COLUMNS))
    if qid is None or isinstance(qid, str):
        roles.append(("qid", qid, QID_COLUMNS))
    found = dict(zip([r[0] for r in roles], find_columns(frame, _WHERE, roles), strict=True))
    y = _numeric(found["label"], "label")
    s = _numeric(found["score"], "score") if "score" in found else _aligned(scores, n, "scores")
    q = found["qid"].to_numpy() if "qid" in found else _aligned(qid, n, "qid")
    return FrameArrays(y, s, q, _optional(frame, docno, n, "docno", DOCNO_COLUMNS),
                       _optional(frame, weights, n, "weights", ()))


def _optional(frame: pd.DataFrame, value: Any, n: int, role: str,
              candidates: tuple[str, ...]) -> np.ndarray | None:
    """A column named by ``value``, an array, or (``value`` None) the one common-name column."""
    if value is None:
        lower = {str(c).lower() for c in frame.columns}
        if not any(c in lower for c in candidates):
            return None
        return np.asarray(find_columns(frame, _WHERE, [(role, None, candidates)])[0])
    if isinstance(value, str):
        return np.asarray(find_columns(frame, _WHERE, [(role, value, ())])[0])
    return _aligned(value, n, role)


def _aligned(value: Any, n: int, name: str) -> np.ndarray:
    a = np.asarray(value)
    if a.ndim != 1 or a.shape[0] != n:
        raise DataError(f"{name} has shape {a.shape}: expected one value per DataFrame row ({n},)")
    return a


def _numeric(col: pd.Series, role: str) -> np.ndarray:
    """float64 values of a label/score column; non-numeric or missing values name their row."""
    if col.dtype.kind not in "iufb":
        converted = pd.to_numeric(col, errors="coerce")
        bad = np.asarray(converted.isna() & ~col.isna())
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise _row_error(col, i, f"{role} {col.iloc[i]!r} is not a number")
        col = converted
    values = np.asarray(col.to_numpy(dtype=np.float64, na_value=np.nan), dtype=np.float64)
    missing = np.isnan(values)
    if missing.any():
        i = int(np.flatnonzero(missing)[0])
        raise _row_error(col, i, f"{role} is missing (NaN): every row needs a {role}")
    return values


def _row_error(col: pd.Series, i: int, message: str) -> DataError:
    label = col.index[i]
    shown = label.item() if isinstance(label, np.generic) else label
    extra = "" if isinstance(col.index, pd.RangeIndex) and label == i else f", index {shown!r}"
    return DataError(f"{message} (rows are numbered from 1 in frame order{extra})", path=_WHERE,
                     row=i + 1, column=str(col.name))
