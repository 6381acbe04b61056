"""Which column of a pandas frame plays which role (query id, document id, relevance label,
score), for every frame input: ``evaluate(frame)`` (:mod:`bench.metrics.frames`) and the TREC
qrels and runs given as frames (:mod:`bench.data.trec_objects`).

A keyword names the column (``qid="query"``, ``score=("model", "score")`` under a header of
several levels, an integer label of a frame read without a header); a named index level is a
column too. Left out, the column is found among common names, case-insensitively
(:data:`QID_COLUMNS`, :data:`DOCNO_COLUMNS`, :data:`REL_COLUMNS`, :data:`SCORE_COLUMNS`); an id's
TREC name wins over PyTerrier's companions (the query's text, ``query``; the integer ``docid``)
and over a column of the same ids, another column of other ids beside it (``qid`` and a
``query_id`` of other queries) is an error naming both and the first row where they differ, and
two other candidates present is an error asking which. Values
given where a name is expected (``label=frame.label``, an array, a list, ``True``) are refused
in one line saying that the keyword takes a name; one column named for two roles, a column
present twice, or a name that is both a column and an index level are refused naming it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from bench.data.python_args import type_name
from bench.errors import ConfigError, DataError

if TYPE_CHECKING:
    import pandas as pd

#: Column names tried, in order, for each role (compared case-insensitively).
QID_COLUMNS = ("qid", "query_id", "q_id", "queryid", "query", "topic")
DOCNO_COLUMNS = ("docno", "doc_id", "docid", "document_id", "doc", "document")
REL_COLUMNS = ("rel", "relevance", "label", "judgment", "judgement", "grade")
SCORE_COLUMNS = ("score", "scores", "sim", "similarity", "prediction", "pred")



def _unnamed_index(frame: pd.DataFrame, role: str) -> str:
    """A hint when the frame's index (not 0..n-1, no name) may hold the ids: it is not read."""
    import pandas as pd

    index = frame.index
    if role not in ("qid", "docno") or index.nlevels != 1 or index.name is not None or (
            isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1):
        return ""
    return (f" (the frame's index has no name and is not read: if it holds the {role}s, name "
            f"it, frame.rename_axis({role!r}), or make it a column, "
            f"frame.reset_index(names={role!r}))")


def find_columns(
    frame: pd.DataFrame, where: str, roles: Sequence[tuple[str, str | None, tuple[str, ...]]]
) -> list[pd.Series]:
    """The column of each ``(role, given, candidates)``: the column (or named index level) called
    ``given``, else the one of ``candidates`` present (case-insensitive). Absent, or two
    candidates present, is a :class:`DataError` listing the frame's columns."""
    import pandas as pd

    available = [str(c) for c in frame.columns] + [str(n) for n in frame.index.names if n is not None]
    if frame.shape[0] == 0:
        raise DataError("no rows", path=where)
    out = []
    for role, given, candidates in roles:
        if given is not None:
            _refuse_values_as_name(given, role)
            name = _labelled(frame, given)
            if name is None:
                raise DataError(f"no column {given!r} (given as {role}=); columns: {available}",
                                path=where)
        else:
            lower: dict[str, list[str]] = {}  # 'score' and 'Score' are two columns, not one
            for c in available:
                lower.setdefault(c.lower(), []).append(c)
            found = list(dict.fromkeys(c for cand in candidates for c in lower.get(cand, [])))
            if not found:
                raise DataError(
                    f"no {role} column: expected one named {', '.join(candidates)} (any case), or "
                    f"name it with {_naming(where, role)}; columns: {available}"
                    f"{_unnamed_index(frame, role)}", path=where)
            # an id's TREC name (qid, docno) wins over PyTerrier's companions (the query's
            # text, query; a document's integer docid) and over a column of the same ids
            if len(found) > 1 and not (role in ("qid", "docno") and found[0].lower() == role
                                       and len(set(lower[role])) == 1):
                raise DataError(f"columns {found} could each be the {role} column: name one with "
                                f"{_naming(where, role)}", path=where)
            if len(found) > 1:
                _refuse_other_ids(frame, found, role, where)
            name = found[0]
        if name in frame.columns and name in frame.index.names:  # pandas: "ambiguous" too
            raise DataError(f"{name!r} is both a column and an index level: name one of them "
                            f"differently (the {role} could be either)", path=where)
        if name in frame.columns:
            col = frame[name]
            if isinstance(col, pd.DataFrame):
                raise DataError(f"column {name!r} appears {col.shape[1]} times", path=where)
        else:
            col = pd.Series(frame.index.get_level_values(name), index=frame.index)
        out.append(col.rename(name))
    distinct_roles([r[0] for r in roles], [str(c.name) for c in out], where)
    return out


#: The column beside an id's TREC name that PyTerrier's frames hold for something else: the
#: query's text beside ``qid``, its own integer ``docid`` beside ``docno``.
_COMPANIONS = {"qid": "query", "docno": "docid"}


def _refuse_other_ids(frame: pd.DataFrame, found: list[str], role: str, where: str) -> None:
    """Columns beside the TREC id column (``qid`` and ``query_id``, ``docno`` and ``doc_id``)
    that hold other ids: which one the caller means is not known (an ir_datasets frame merged
    into a PyTerrier one), so a :class:`DataError` names both and the first row where they
    differ. A PyTerrier companion (:data:`_COMPANIONS`) and a column of the same ids as text
    are passed over."""
    others = [c for c in found[1:] if c.lower() != _COMPANIONS[role]]
    if not others:  # PyTerrier's frames: no text made of a million ids
        return
    for other in others:
        if _column(frame, found[0]).equals(_column(frame, other)):  # one copy of the ids
            continue
        first = _values(frame, found[0])
        differ = np.flatnonzero(first != _values(frame, other))
        if differ.size:
            i = int(differ[0])
            raise DataError(
                f"columns {[found[0], other]} could each be the {role} column and hold different "
                f"ids (row {i + 1}: {first[i]!r} and {_values(frame, other)[i]!r}; rows are "
                f"numbered from 1): name one with {_naming(where, role)}, or drop the other",
                path=where)


def _column(frame: pd.DataFrame, name: str) -> Any:
    """A column (or index level) as a Series of its values, without the frame's index."""
    import pandas as pd

    col = frame[name] if name in frame.columns else frame.index.get_level_values(name)
    if isinstance(col, pd.DataFrame):  # a column present twice: refused by the caller
        col = col.iloc[:, 0]
    return pd.Series(col.array if isinstance(col, pd.Index | pd.Series) else col)


def _values(frame: pd.DataFrame, name: str) -> Any:
    """A column's (or index level's) values as text, for comparing two id columns."""
    col = _column(frame, name)
    if col.dtype.kind in "iu":  # NumPy integers: their decimal text without a Python loop
        return col.astype(str).to_numpy(dtype=object)
    return np.asarray([str(v) for v in col], dtype=object)


def _refuse_values_as_name(given: Any, role: str) -> None:
    """``label=frame.label`` (a Series, an array, a list, a set) names no column: a
    :class:`ConfigError` in one line saying that the keyword takes a name, not the values (its
    repr would otherwise be printed as a column name over many lines)."""
    try:
        hash(given)
    except TypeError:
        pass
    else:
        if isinstance(given, str | tuple) or not (isinstance(given, bool | np.bool_)
                                                  or hasattr(given, "__len__")):
            return
    raise ConfigError(f"{role}= names a column: expected a column name (text, or the label of "
                      f"the column in the frame's header), got a {type_name(given)}; pass the "
                      f"column's name ({role}='{role}'), or put the values in the frame as a "
                      "column first (frame.assign(...))")


def _labelled(frame: pd.DataFrame, given: Any) -> Any:
    """The column label (or index level name) ``given`` names: itself (an integer label of a
    frame read without a header: ``label=1``), else the one label whose text it is
    (``label="1"``); ``None`` when there is none."""
    levels = [n for n in frame.index.names if n is not None]
    try:
        if given in frame.columns or given in levels:
            return given
    except TypeError:  # an unhashable value names no column
        return None
    same = [c for c in [*frame.columns, *levels] if str(c) == str(given)]
    return same[0] if len(same) == 1 else None


def distinct_roles(roles: Sequence[str], names: Sequence[str], where: str) -> None:
    """Each role reads its own column: ``evaluate(frame, qid="label")`` would rank every query
    by its own labels (a silently meaningless number), so one column named for two roles is a
    :class:`DataError` naming both roles."""
    for i, name in enumerate(names):
        if name in names[:i]:
            first = roles[names.index(name)]
            raise DataError(f"column {name!r} is given as both {first}= and {roles[i]}=: each "
                            "role needs its own column", path=where)


def _naming(where: str, role: str) -> str:
    """How the caller names a column: ``evaluate(frame, qid=...)`` takes the keyword itself;
    ``evaluate_trec`` and ``compare_runs`` take what :func:`as_run` / :func:`as_qrels` return."""
    for kind, helper in (("run", "as_run"), ("qrels", "as_qrels")):
        if where.startswith(kind):
            return (f"bench.data.trec_objects.{helper}(frame, {role}=...) and pass its result "
                    "(evaluate_trec and compare_runs take it as the frame)")
    return f"{role}=..."


