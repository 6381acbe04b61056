"""A pandas DataFrame as the input of :func:`bench.metrics.evaluate`: columns become arrays.

``evaluate(frame, label="rel", score="score", qid="qid")`` evaluates one row per document. Each
of ``label``, ``score``, ``qid`` is a column name (or a named index level); left out, the column
is found among common names, case-insensitively (``rel``/``relevance``/``label``/...,
``score``/``prediction``/..., ``qid``/``query_id``/``query``/...: the lists of
:mod:`bench.data.trec_objects`; a ``qid`` column wins over a ``query`` column of text, two
other candidates present are an error asking which). ``scores``
(positional) may instead be an array of model scores aligned with the frame's rows, and ``qid``,
``docno`` arrays too, when the frame has no column of that role: an array beside such a column
is refused (two answers to one question; it was used without a word).
``docno`` and ``weights`` may be column names or arrays; a document-id column with a common name
is used for the ``docno_desc`` tie rule when present.

Rows may come in any order: they are grouped by query *stably* (``sort_by_qid=True``: queries
in order of first appearance, the rows of a query in their frame order), so tie rules that use
row order (LightGBM's and XGBoost's stable sort) see each query's rows as the frame lists them.
Rows are numbered by their position in the frame (1-based) in every error; a label or score
column that is not numeric, or that has a missing value, is an error naming the column, the row
and its index label. The rules are those of :mod:`bench.data.inputs` (the input discipline):
query ids compare as their text (a column mixing ``1`` and ``"1"`` holds one query, as the same
rows as arrays or a TREC file do; a float or bool id among them is an error naming the column);
label and score columns must hold numbers (text such as ``"0.5"`` is refused, not parsed);
integer scores a float64 cannot hold exactly (beyond 2^53) are refused. An error the evaluator
raises later (a label above the profile's largest, say) is re-located by
:meth:`FrameArrays.locate` onto the frame's column and row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeGuard

import numpy as np
import pandas as pd

from bench.data.frame_columns import (
    DOCNO_COLUMNS,
    QID_COLUMNS,
    REL_COLUMNS,
    SCORE_COLUMNS,
    distinct_roles,
    find_columns,
)
from bench.data.inputs import (
    extended_precision_tie,
    extended_tie_message,
    first_inexact_integer,
    inexact_message,
    text_ids,
)
from bench.data.python_args import same_index
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
    columns: dict[str, str] | None = None
    index: pd.Index | None = None

    def locate(self, exc: DataError) -> DataError:
        """``exc`` (raised by the evaluator on these arrays, rows numbered as the frame's) named
        as the frame's: ``DataFrame``, the column of the value it is about, the index label."""
        if exc.path is not None or exc.row is None or self.columns is None or self.index is None:
            return exc
        role = next((r for r, prefix in (("label", "label"), ("score", "score"),
                                         ("qid", "query id"), ("weights", "weight"),
                                         ("docno", "document id"))
                     if exc.reason.startswith(prefix) or f" {prefix} " in exc.reason[:40]), None)
        i = exc.row - 1
        label = self.index[i] if 0 <= i < len(self.index) else i
        shown = label.item() if isinstance(label, np.generic) else label
        extra = "" if isinstance(self.index, pd.RangeIndex) and label == i else f" (index {shown!r})"
        column = self.columns.get(role) if role is not None else None
        return DataError(f"{exc.reason}{extra}", path=_WHERE, row=exc.row, column=column)


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
    padding: str = "none",
) -> FrameArrays:
    """Labels, scores, query ids (and document ids, weights) of ``frame`` as arrays.

    See the module docstring for how columns are chosen. A string ``qid``/``docno``/``weights``
    names a column; anything else is taken as an array aligned with the rows. ``padding``: the
    profile's ``Profile.padding``; a padding row's score is not read (NaN allowed there, as in
    arrays: TF-Ranking masks label < 0 before it reads a score, allRank label -1).
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
    _refuse_array_beside_column(frame, "scores", scores, SCORE_COLUMNS, "score")
    _refuse_array_beside_column(frame, "query ids (qid=)", qid, QID_COLUMNS, "qid")
    _refuse_array_beside_column(frame, "document ids (docno=)", docno, DOCNO_COLUMNS, "docno")
    if n == 0:
        raise DataError("empty input: the DataFrame has no rows", path=_WHERE)
    same_index({"scores": scores, "qid": qid, "docno": docno, "weights": weights}, frame.index)
    roles: list[tuple[str, str | None, tuple[str, ...]]] = [("label", label, REL_COLUMNS)]
    if scores is None:
        roles.append(("score", score, SCORE_COLUMNS))
    if qid is None or isinstance(qid, str) or _header_label(frame, qid):
        roles.append(("qid", qid, QID_COLUMNS))
    found = dict(zip([r[0] for r in roles], find_columns(frame, _WHERE, roles), strict=True))
    y = numeric_column(found["label"], "label")
    s = numeric_column(found["score"], "score", _padding_rows(y, padding)) if "score" in found \
        else _aligned(scores, n, "scores")
    q = found["qid"].to_numpy() if "qid" in found else _aligned(qid, n, "qid")
    q = text_ids(q, path=_WHERE, column=str(found["qid"].name) if "qid" in found else "qid")
    columns = {role: str(col.name) for role, col in found.items()}
    if isinstance(weights, str) or _header_label(frame, weights):
        columns["weights"] = str(weights)
    docs, docs_name = _optional(frame, docno, n, "docno", DOCNO_COLUMNS)
    if docs_name is not None:
        columns["docno"] = docs_name
    distinct_roles(list(columns), list(columns.values()), _WHERE)
    return FrameArrays(y, s, q, docs, _optional(frame, weights, n, "weights", ())[0], columns,
                       frame.index)


def _refuse_array_beside_column(frame: pd.DataFrame, what: str, value: Any,
                                candidates: tuple[str, ...], keyword: str) -> None:
    """A ConfigError when ``value`` (scores, query ids or document ids) is given as an array
    while the frame holds a column that role would be read from (one of ``candidates``, any
    case, or an index level so named): two answers to one question. The array was used without
    a word (another model's scores, other query ids than the frame shows), and which one a
    caller meant cannot be known: the error says how to ask for each (the same rule as
    ``score=`` beside an array)."""
    if value is None or isinstance(value, str) or _header_label(frame, value):
        return
    names = [str(c) for c in frame.columns] + [str(n) for n in frame.index.names if n is not None]
    found = [c for c in names if c.lower() in candidates]
    if isinstance(value, pd.Series) and value.name in frame.columns \
            and isinstance(frame[value.name], pd.Series) and value.equals(frame[value.name]):
        return  # the column itself, passed as a Series (qid=frame["qid"]): one answer
    if found:
        raise ConfigError(
            f"{what} were given as an array and the DataFrame has a {keyword} column "
            f"{', '.join(map(repr, found))}: evaluate the column with {keyword}={found[0]!r} "
            f"(and no array), or the array after dropping the column "
            f"(frame.drop(columns={found[0]!r}))")


def _optional(frame: pd.DataFrame, value: Any, n: int, role: str,
              candidates: tuple[str, ...]) -> tuple[np.ndarray | None, str | None]:
    """A column named by ``value``, an array, or (``value`` None) the one common-name column;
    with the column's name (``None`` for an array)."""
    if value is None:
        lower = {str(c).lower() for c in frame.columns}
        if not any(c in lower for c in candidates):
            return None, None
        col = find_columns(frame, _WHERE, [(role, None, candidates)])[0]
        return np.asarray(col), str(col.name)
    if isinstance(value, str) or _header_label(frame, value):
        col = find_columns(frame, _WHERE, [(role, value, ())])[0]
        return (numeric_column(col, "weight") if role == "weights" else np.asarray(col)), str(col.name)
    return _aligned(value, n, role), None


def _header_label(frame: pd.DataFrame, value: Any) -> bool:
    """Whether ``value`` names a column otherwise than as text: an integer that is one of the
    frame's column names (``pd.read_csv(header=None)`` names them 0, 1, 2; a bool is no name,
    though ``True == 1``), or a tuple that labels a column of a header of several levels
    (``qid=("a", "qid")``). It names that column, as ``label=`` and ``score=`` take it, rather
    than being read as one value per row."""
    if isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_):
        return any(value == c and not isinstance(c, bool | np.bool_) for c in frame.columns)
    if not (isinstance(value, tuple) and isinstance(frame.columns, pd.MultiIndex)):
        return False
    levels = frame.columns.nlevels
    if len(value) == levels:
        return True
    if len(value) < levels and value in frame.columns:  # a part of a label: several columns
        raise ConfigError(f"{value!r} labels {frame[value].shape[1]} columns of the frame's "
                          f"header of {levels} levels: expected one full label, such as "
                          f"{frame.columns[0]!r}, or one value per row")
    return False


def _aligned(value: Any, n: int, name: str) -> np.ndarray:
    a = np.asarray(value)
    if a.ndim == 0:  # qid=0 meant the column named 0: say how to name it
        raise ConfigError(f"{name}={value!r} is one value: expected a column name (text) or one "
                          f"value per DataFrame row ({n},); a column whose name is not text is "
                          "named after frame.rename(columns=str)")
    if a.ndim != 1 or a.shape[0] != n:
        raise DataError(f"{name} has shape {a.shape}: expected one value per DataFrame row ({n},)")
    return a


def _padding_rows(y: np.ndarray, padding: str) -> np.ndarray | None:
    """The rows ``Profile.padding`` reads as padding (``"minus_one"``: label -1; ``"negative"``:
    label < 0), ``None`` under ``"none"`` (the rule of :func:`bench.metrics.dropped_rows.padding_mask`)."""
    if padding == "none":
        return None
    mask: np.ndarray = (y == -1) if padding == "minus_one" else (y < 0)
    return mask


def numeric_column(col: pd.Series, role: str, unread: np.ndarray | None = None) -> np.ndarray:
    """float64 values of a label/score column; non-numeric or missing values name their row.

    Checked before any arithmetic (:mod:`bench.data.inputs`): a value that is not a real number
    (text, even ``"0.5"``; a bool in an object column) is an error, as is an integer a float64
    cannot hold exactly."""
    if col.dtype.kind not in "iuf":  # a bool column too: a bool is not a number here
        obj = col.to_numpy(dtype=object)
        ok = np.fromiter((v is None or v is pd.NA or (
            isinstance(v, int | float | np.integer | np.floating)
            and not isinstance(v, bool | np.bool_)) for v in obj), dtype=bool, count=obj.shape[0])
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            v = obj[i]
            hint = ("a bool is not a number here: convert with .astype(int) if 1/0 is meant"
                    if isinstance(v, bool | np.bool_) else
                    "text is not parsed: convert the column with pd.to_numeric"
                    if isinstance(v, str | bytes) else
                    "expected an int or a float: convert the column with .astype(float) if "
                    "that is meant")
            raise _row_error(col, i, f"{role} {v!r} is not a number but a {type(v).__name__} "
                             f"({hint})")
    bad_int = first_inexact_integer(col.to_numpy())
    if bad_int >= 0:
        raise _row_error(col, bad_int, inexact_message(role, col.iloc[bad_int]))
    if (tie := extended_precision_tie(col.to_numpy())) is not None:  # float128: no silent ties
        raise _row_error(col, tie[1], extended_tie_message(role, col.to_numpy(), *tie))
    if col.dtype.kind not in "iuf":
        col = pd.to_numeric(col, errors="coerce")
    values = np.asarray(col.to_numpy(dtype=np.float64, na_value=np.nan), dtype=np.float64)
    missing = np.isnan(values)
    if unread is not None:  # padding rows: their scores are not read
        missing &= ~unread
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
