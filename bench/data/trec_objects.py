"""TREC qrels and runs from objects: a path, a pandas DataFrame, a dict of dicts, a ranx object.

:func:`as_qrels` and :func:`as_run` turn what users already hold into the :class:`Qrels` /
:class:`Run` of :mod:`bench.data.trec`, with the checks the file readers make:

* a **path** (``str`` / ``os.PathLike``) is read with :func:`read_qrels` / :func:`read_run`;
* a **DataFrame** in any row order, with any column names: keyword arguments name the columns
  (``qid=``, ``docno=``, ``rel=`` / ``score=``); otherwise the column is found among common
  names, case-insensitively (:data:`QID_COLUMNS`, :data:`DOCNO_COLUMNS`, :data:`REL_COLUMNS`,
  :data:`SCORE_COLUMNS`; an id's TREC name, ``qid`` or ``docno``, wins when present, so a
  PyTerrier frame's ``query`` text and ``docid`` numbers are not taken for ids; a ``query_id``
  or ``doc_id`` beside it holding other ids, or two other candidates, is an error asking
  which). A column may also
  be a named index level. Query and document ids may be strings or integers (integers become
  their decimal text, so ``7`` and ``"7"`` are the same query, as in a TREC file);
* a **dict of dicts** ``{qid: {docno: rel_or_score}}`` (the layout of pytrec_eval and ranx).
  Two keys that are one id as text (``7`` and ``"7"``, ``np.int64(7)``) are one query, their
  documents merged as a TREC file merges the lines of one query wherever they stand and a
  DataFrame its rows; a document given under both (``{7: {"a": 1}, "7": {"a": 0}}``, or
  ``{"q": {1: 0.5, "1": 0.2}}``) is a (query, document) pair given twice, refused naming both
  spellings (``['7']['a'] repeats [7]['a']``), as a file's repeated line is. A frame's
  ``to_dict()`` (``{column: {row: value}}``, or ``{row: {column: value}}`` from
  ``to_dict("index")``) is refused, saying to pass the frame;
* a **ranx** ``Qrels`` / ``Run`` (duck-typed: any object with a ``to_dict()`` method returning
  that layout, so this module does not import ranx); ranx's ``to_dict`` lists the documents of
  a query by decreasing score. A Run's query without documents is a query without run lines:
  ``ranx.evaluate(qrels, run, make_comparable=True)`` leaves ``{}`` in the user's Run for each
  qrels query it missed (ranx 0.3.21 changes the Run in place), and ranx scores it 0 as the
  profile's ``missing`` rule does.

The rules are those of :mod:`bench.data.inputs` (the input discipline every path follows): ids
compare as text; an integer score a float64 cannot hold exactly (beyond 2^53) is an error, as
is text in a score or relevance column.

Rows keep their order (the frame's, the dicts' iteration order). Bad values are a
:class:`DataError` naming the frame's column and row (1-based position, and the index label) or
the dict keys, and what was expected: a missing id, a float or other non-id value as an id, a
non-integer or missing relevance, a NaN/infinite/non-numeric score, a (query, document) pair
given twice, no rows at all.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np
from numpy.typing import NDArray

from bench.data.big_ints import int_text
from bench.data.frame_columns import (
    DOCNO_COLUMNS,
    QID_COLUMNS,
    REL_COLUMNS,
    SCORE_COLUMNS,
    find_columns,
)
from bench.data.input_ids import text_array
from bench.data.inputs import (
    extended_precision_tie,
    extended_tie_message,
    first_inexact_integer,
    inexact_message,
    text_ids,
)
from bench.data.python_args import type_name, user_path
from bench.data.trec import Qrels, Run, read_qrels, read_run
from bench.data.trec_lines import score_order_problem
from bench.errors import ConfigError, DataError

if TYPE_CHECKING:  # pandas is imported where a frame or a dict is read, not for a file
    import pandas as pd

#: What :func:`as_qrels` / :func:`as_run` take (ranx objects are duck-typed, hence ``object``).
QrelsInput: TypeAlias = "str | os.PathLike[str] | pd.DataFrame | Mapping[Any, Mapping[Any, Any]] | Qrels | object"
RunInput: TypeAlias = "str | os.PathLike[str] | pd.DataFrame | Mapping[Any, Mapping[Any, Any]] | Run | object"

def as_qrels(
    obj: QrelsInput,
    *,
    qid: str | None = None,
    docno: str | None = None,
    rel: str | None = None,
) -> Qrels:
    """Relevance judgments from a path, DataFrame, ``{qid: {docno: rel}}`` or ranx ``Qrels``.

    ``rel`` must be an integer (negative = unjudged, as in trec_eval); an integral float
    (``2.0``) is accepted, ``1.5`` or NaN is an error. Column keywords apply to DataFrames.
    """
    if isinstance(obj, Qrels):
        return obj
    if isinstance(obj, str | os.PathLike):  # ``~`` expanded, a failing __fspath__ named
        return read_qrels(user_path(obj, "qrels"))
    if isinstance(obj, Run):
        raise ConfigError("got a Run where qrels were expected (relevance judgments)")
    import pandas as pd  # a frame, a dict or a ranx object: not for a file

    obj = pandas_table(obj, "qrels")
    if isinstance(obj, pd.Series):
        obj, rel = series_frame(obj, "qrels", "rel"), "rel"
        where = "qrels Series"
    else:
        where = "qrels DataFrame"
    if isinstance(obj, pd.DataFrame):
        cols = find_columns(obj, where, (("qid", qid, QID_COLUMNS), ("docno", docno, DOCNO_COLUMNS),
                                     ("rel", rel, REL_COLUMNS)))
        q, d = _ids(cols[0], where, "query id"), _ids(cols[1], where, "document id")
        r = _relevance(cols[2], where)
        _no_duplicate_pairs(q, d, where, lambda i: _frame_row(obj, i), "judged twice")
        return Qrels(q, d, r, where)
    where, mapping = _mapping_of(obj, "qrels", "Qrels")
    empty = next((k for k, docs in mapping.items() if isinstance(docs, Mapping) and not docs),
                 None)
    if empty is not None:  # pytrec_eval leaves it out, ranx scores it 0: no one number
        raise DataError(f"[{empty!r}] judges no document: trec_eval and pytrec_eval ignore such "
                        "a query, ranx scores it 0; remove it, or judge its documents (all "
                        "relevance 0 makes a query without relevant documents)", path=where)
    _refuse_frame_dict(obj, mapping, where)
    qs, ds, vs = _flatten(mapping, where)
    q, d = _ids(qs, where, "query id", (qs, ds)), _ids(ds, where, "document id", (qs, ds))
    r = _relevance(vs, where, keys=(qs, ds))
    _no_duplicate_pairs(q, d, where, lambda i: _key_row(qs, ds, i), "judged twice")
    return Qrels(q, d, r, where)


def as_run(
    obj: RunInput,
    *,
    qid: str | None = None,
    docno: str | None = None,
    score: str | None = None,
    tag: str = "ltrbench",
) -> Run:
    """A run from a path, DataFrame, ``{qid: {docno: score}}`` or ranx ``Run``.

    ``score`` must be a finite number (higher ranks first). The rank of an object's row is its
    position by decreasing score within its query (ties in row order); like a file's rank
    column it is not used by the evaluator. ``tag`` is the run tag of every row.
    """
    if isinstance(obj, Run):
        return obj
    if isinstance(obj, str | os.PathLike):
        return read_run(user_path(obj, "run"))
    if isinstance(obj, Qrels):
        raise ConfigError("got Qrels where a run was expected (scored documents)")
    import pandas as pd  # a frame, a dict or a ranx object: not for a file

    obj = pandas_table(obj, "run")
    if isinstance(obj, pd.Series):
        obj, score = series_frame(obj, "run", "score"), "score"
        where = "run Series"
    else:
        where = "run DataFrame"
    if isinstance(obj, pd.DataFrame):
        cols = find_columns(obj, where, (("qid", qid, QID_COLUMNS), ("docno", docno, DOCNO_COLUMNS),
                                     ("score", score, SCORE_COLUMNS)))
        q, d = _ids(cols[0], where, "query id"), _ids(cols[1], where, "document id")
        s = _scores(cols[2], where)
        _no_duplicate_pairs(q, d, where, lambda i: _frame_row(obj, i), "retrieved twice")
        _rank_column(obj, q, s, where)
    else:
        where, mapping = _mapping_of(obj, "run", "Run")
        if not isinstance(obj, Mapping):  # ranx: make_comparable leaves {} where a query is not
            mapping = {k: v for k, v in mapping.items() if not (isinstance(v, Mapping) and not v)}
        _refuse_frame_dict(obj, mapping, where)
        empty = next((k for k, docs in mapping.items() if isinstance(docs, Mapping) and not docs),
                     None)
        if empty is not None:  # pytrec_eval scores it 0; a run file cannot hold it
            raise DataError(f"[{empty!r}] retrieves no document: pytrec_eval scores such a query "
                            "0, a TREC run file cannot hold it; remove the key, and the profile's "
                            "rule for a query without run lines applies (missing='zero', as "
                            "trec_eval -c, scores it 0)", path=where)
        qs, ds, vs = _flatten(mapping, where)
        q, d = _ids(qs, where, "query id", (qs, ds)), _ids(ds, where, "document id", (qs, ds))
        s = _scores(vs, where, keys=(qs, ds))
        _no_duplicate_pairs(q, d, where, lambda i: _key_row(qs, ds, i), "retrieved twice")
    return Run(q, d, _ranks(q, s), s, np.full(q.shape[0], tag), where)


def _rank_column(frame: Any, q: NDArray[np.str_], s: NDArray[np.float64], where: str) -> None:
    """A frame's integer ``rank`` column (any case), when it has one, read against its scores
    as a file's is (:func:`bench.data.trec_lines.score_order_problem`: a warning when the
    scores rise with it, or are constant, in every query); the evaluator never reads it."""
    import pandas as pd

    col = next((c for c in frame.columns if str(c).lower() == "rank"), None)
    if col is not None and pd.api.types.is_integer_dtype(frame[col].dtype):
        score_order_problem(q, frame[col].to_numpy(dtype=np.int64), s, where)


def pandas_table(obj: object, role: str) -> object:
    """A table that is not a pandas DataFrame, as one where the conversion keeps every value:
    a pyarrow ``Table`` / ``RecordBatch`` (:func:`bench.data.arrow_tables.arrow_frame`:
    integers stay integers, text stays text, a null stays a missing value the checks name) and
    a NumPy structured array (its fields become columns). A polars DataFrame / LazyFrame is refused naming its type and the
    conversion (``to_pandas()``): polars is not a dependency, and its ``to_dict()`` would
    otherwise be taken for a ranx object's. Anything else is returned as it is."""

    from bench.data.arrow_tables import is_named_table, is_structured, table_frame

    if isinstance(obj, np.ndarray) and is_structured(obj) and obj.ndim != 1:
        raise ConfigError(f"{role}: a NumPy structured array of shape {obj.shape}: expected "
                          "one dimension, one element per row")
    if is_named_table(obj):  # an integer column's null stays missing, not NaN
        return table_frame(obj)
    if type(obj).__module__.split(".")[0] == "polars":
        raise ConfigError(f"{role}: got a {type_name(obj)}: expected a pandas DataFrame (or a "
                          "path, a dict {qid: {docno: value}}, a ranx object); convert it with "
                          ".to_pandas() (polars' .collect() first for a LazyFrame)")
    return obj


def series_frame(s: Any, role: str, value: str) -> Any:
    """A pandas Series indexed by (query id, document id), as a frame of three columns: the
    index levels, by their names when they have them (``query_id``, ``doc_id``, ...: the
    frame's column rules apply), else ``qid`` and ``docno``, and the values as ``value``.
    ``frame.set_index(["qid", "docno"])["score"]`` is such a Series; any other index is an
    error saying so (``Series.to_dict()`` would give ``{(qid, docno): value}``)."""
    import pandas as pd

    if s.index.nlevels != 2:
        raise ConfigError(f"{role} Series: expected an index of two levels (query id, document "
                          "id), e.g. frame.set_index(['qid', 'docno'])['score']; got "
                          f"{s.index.nlevels} level(s)")
    names = [("qid", "docno")[k] if n is None else n for k, n in enumerate(s.index.names)]
    if names[0] == names[1] or value in names:
        raise ConfigError(f"{role} Series: index levels named {names}: expected a query id "
                          f"and a document id level with distinct names, not {value!r}")
    return pd.DataFrame({names[0]: s.index.get_level_values(0).array,
                         names[1]: s.index.get_level_values(1).array, value: s.array})


def _mapping_of(obj: object, role: str, ranx_class: str) -> tuple[str, Mapping[Any, Any]]:
    """``obj`` as ``{qid: {docno: value}}``: a Mapping as it is, a ranx object through ``to_dict``."""
    if isinstance(obj, Mapping):
        return f"{role} dict", obj
    to_dict = getattr(obj, "to_dict", None)
    name = type(obj).__name__
    if callable(to_dict):
        other = "Run" if ranx_class == "Qrels" else "Qrels"
        if type(obj).__name__ == other:
            raise ConfigError(f"got a {name} object where {role} were expected; pass a {ranx_class}")
        mapping = to_dict()
        if isinstance(mapping, Mapping):
            return f"{role} {name}.to_dict()", mapping
    raise ConfigError(
        f"{role}: expected a path, a pandas DataFrame, a dict {{qid: {{docno: value}}}} or a "
        f"ranx {ranx_class}; got {type_name(obj)}{_rows_hint(obj)}"
    )


def _refuse_frame_dict(obj: object, mapping: Mapping[Any, Any], where: str) -> None:
    """A DataFrame's ``to_dict()`` (``{column: {row: value}}``) or ``to_dict("index")``
    (``{row: {column: value}}``) is no ``{qid: {docno: value}}``: read as one, its column names
    became query or document ids and every number a score (ndcg 1.0 where the frame gives
    0.975). A dict whose keys at either level name a query id, a document id and a relevance or
    score column (:mod:`bench.data.frame_columns`' names) is refused, saying to pass the frame."""
    if not isinstance(obj, Mapping):
        return
    first = next(iter(mapping.values()), None)
    for level, keys in (("outer", mapping), ("inner", first)):
        if not isinstance(keys, Mapping):
            continue
        names = {str(k).lower() for k in keys}
        roles = [next((c for c in group if c in names), None)
                 for group in (QID_COLUMNS, DOCNO_COLUMNS, (*REL_COLUMNS, *SCORE_COLUMNS))]
        if all(roles):
            shape = "{column: {row: value}}" if level == "outer" else "{row: {column: value}}"
            raise DataError(f"the dict's {level} keys are a frame's column names {roles}: it "
                            f"looks like DataFrame.to_dict() ({shape}), not {{qid: {{docno: "
                            "value}}; pass the DataFrame itself (its columns are found by name)",
                            path=where)


def _rows_hint(obj: Any) -> str:
    """How to pass a list of records (ir_measures' ``Qrel``/``ScoredDoc`` named tuples,
    ir_datasets' ``qrels_iter()``): as a DataFrame, whose columns are then found by name."""
    from collections.abc import Iterator

    if isinstance(obj, Iterator):  # not read: a one-pass iterator is left as it was given
        return (" (a one-pass iterator, left unread: ir_datasets' qrels_iter() and scoreddocs_iter(), "
                "ir_measures.read_trec_qrels / read_trec_run): pass pandas.DataFrame(records), "
                "whose columns are found by name")
    if not isinstance(obj, list | tuple) or not obj:
        return ""
    fields = getattr(obj[0], "_fields", None)
    named = f" of {type(obj[0]).__name__} records ({', '.join(fields)})" if fields else ""
    return (f"{named}: pass pandas.DataFrame(records), whose columns are found by name"
            + ("" if fields else " (give the columns names: qid, docno and rel or score)"))


def _flatten(mapping: Mapping[Any, Any], where: str) -> tuple[list[Any], list[Any], list[Any]]:
    qs: list[Any] = []
    ds: list[Any] = []
    vs: list[Any] = []
    for q, docs in mapping.items():
        if not isinstance(docs, Mapping):
            raise DataError(f"[{q!r}] is a {type(docs).__name__}: expected a dict "
                            "{docno: value} per query", path=where)
        qs.extend([q] * len(docs))
        ds.extend(docs.keys())
        vs.extend(docs.values())
    if not vs:
        raise DataError("no (query, document) entries", path=where)
    return qs, ds, vs


def _ids(values: pd.Series | list[Any], where: str, what: str,
         keys: tuple[list[Any], list[Any]] | None = None) -> NDArray[np.str_]:
    """Query or document ids as strings; integers become their decimal text (the id rule of
    :mod:`bench.data.inputs`). A dict's bad key is named by its keys ``[q][d]``."""
    import pandas as pd

    s = values if isinstance(values, pd.Series) else pd.Series(values, dtype=object)
    missing = np.asarray(s.isna())
    if missing.any():
        i = int(np.flatnonzero(missing)[0])
        raise _bad(s, i, where, f"{what} {_shown(s.iloc[i])} is missing: every row needs one", keys)
    s = _whole_float_ids(s, where, what, keys)
    kind = s.dtype.kind
    if kind == "b" or kind in "fcmM":
        raise _bad(s, 0, where, f"{what} {_shown(s.iloc[0])} is a {s.dtype} value: expected "
                   "strings or integers (convert integral floats with .astype('int64'))", keys)
    inferred = pd.api.types.infer_dtype(s, skipna=False)
    if kind in "iu" or inferred in ("string", "integer"):
        return _text_rule(s.astype(str).tolist(), s, where, what, keys)
    ok = np.fromiter((isinstance(v, str) or (isinstance(v, int | np.integer)
                                              and not isinstance(v, bool | np.bool_))
                      for v in s.to_numpy(dtype=object)), dtype=bool, count=s.shape[0])
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        v = s.iloc[i]
        raise _bad(s, i, where, f"{what} {_shown(v)} is a {type(v).__name__}: expected a "
                   "string or an integer", keys)
    return _text_rule([str(v) for v in s.to_numpy(dtype=object)], s, where, what, keys)


def _whole_float_ids(s: pd.Series, where: str, what: str,
                     keys: tuple[list[Any], list[Any]] | None) -> pd.Series:
    """Float ids under the one rule of :func:`bench.data.input_ids.fractional_float_id`: a whole
    float below 2^53 is its integer (``1.0`` is query ``"1"``, as ``evaluate`` reads it); a
    fractional, infinite or inexact one is refused, naming its row (or a dict's keys)."""
    import pandas as pd

    from bench.data.input_ids import fractional_float_id, inexact_float_id

    a = s.to_numpy()
    if s.dtype.kind == "O":
        floats = [isinstance(v, float | np.floating) for v in a]
        if not any(floats) or any(isinstance(v, str) for v in a):
            return s  # floats among text: refused by the text rule
    elif s.dtype.kind != "f":
        return s
    try:
        inexact_float_id(a, what=what)
        fractional_float_id(a, what=what)
    except DataError as exc:
        raise _bad(s, (exc.row or 1) - 1, where, exc.reason, keys) from None
    return pd.Series([int(v) if isinstance(v, float | np.floating) else v for v in a],
                     index=s.index, dtype=object)


def _text_rule(texts: list[str], s: pd.Series, where: str, what: str,
               keys: tuple[list[Any], list[Any]] | None) -> NDArray[np.str_]:
    """``texts`` as an array once :func:`bench.data.inputs.text_ids` finds no stray character,
    empty id or white space around one (``"2 "`` would be a query apart from ``"2"``), else its
    error at the frame's row or the dict's keys. Checked as Python strings, before NumPy's
    fixed-width text, which drops trailing NULs (``"b\0"`` would become document ``"b"``)."""
    try:  # text_ids makes the fixed-width text (refusing a 1 MB id among 100,000 rows: 391 GiB)
        out = text_ids(np.asarray(texts, dtype=object), what=what)
        return out if out.dtype.kind == "U" else text_array(texts, what=what)  # none: empty
    except DataError as exc:
        raise _bad(s, (exc.row or 1) - 1, where, exc.reason, keys) from None


def _relevance(values: pd.Series | list[Any], where: str,
               keys: tuple[list[Any], list[Any]] | None = None) -> NDArray[np.int64]:
    import pandas as pd

    s = values if isinstance(values, pd.Series) else pd.Series(values, dtype=object)
    x = _numbers(s, where, "relevance", keys)
    bad = ~np.isfinite(x) | (x != np.round(x)) | (np.abs(x) >= 2.0**63)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        why = ("is out of range: expected an integer in -2^63..2^63-1 (as in a qrels file)"
               if np.isfinite(x[i]) and x[i] == np.round(x[i]) else "is not an integer")
        raise _bad(s, i, where, f"relevance {_shown(s.iloc[i])} {why}", keys)
    if s.dtype.kind in "iu":
        return np.asarray(s.to_numpy(), dtype=np.int64)
    return x.astype(np.int64)


def _scores(values: pd.Series | list[Any], where: str,
            keys: tuple[list[Any], list[Any]] | None = None) -> NDArray[np.float64]:
    import pandas as pd

    s = values if isinstance(values, pd.Series) else pd.Series(values, dtype=object)
    inexact = first_inexact_integer(s.to_numpy())
    if inexact >= 0:  # bench.data.inputs: an integer a float64 cannot hold would tie silently
        raise _bad(s, inexact, where, inexact_message("score", s.iloc[inexact]), keys)
    if (tie := extended_precision_tie(s.to_numpy())) is not None:  # float128: no silent ties
        i, j = tie
        places = (_key_row(*keys, i), _key_row(*keys, j)) if keys is not None else None
        message = extended_tie_message("score", s.to_numpy(), i, j, places)
        raise DataError(message, path=where) if keys is not None else _bad(s, j, where, message)
    x = _numbers(s, where, "score", keys)
    bad = ~np.isfinite(x)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise _bad(s, i, where, f"score {_shown(s.iloc[i])} is not a finite number (NaN and "
                   "infinity cannot be ranked)", keys)
    return x


def _numbers(s: pd.Series, where: str, what: str,
             keys: tuple[list[Any], list[Any]] | None) -> NDArray[np.float64]:
    """float64 values; a value that is not a real number (string, bool, None) names its row."""
    if s.dtype.kind in "iuf":
        return np.asarray(s.to_numpy(dtype=np.float64, na_value=np.nan), dtype=np.float64)
    obj = s.to_numpy(dtype=object)
    ok = np.fromiter((isinstance(v, int | float | np.integer | np.floating)
                      and not isinstance(v, bool | np.bool_) for v in obj),
                     dtype=bool, count=obj.shape[0])
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        v = obj[i]
        got = "is missing" if _missing(v) else f"is a {type(v).__name__}"
        raise _bad(s, i, where, f"{what} {_shown(v)} {got}: expected a number", keys)
    try:
        return np.asarray(obj, dtype=np.float64)
    except OverflowError:  # a Python int beyond float64
        big = np.fromiter((abs(float(v)) >= 2.0**63 if isinstance(v, float)
                           else abs(int(v)) >= 2**63 for v in obj), dtype=bool)
        i = int(np.flatnonzero(big)[0])
        shown = int_text(obj[i]) if isinstance(obj[i], int) else repr(obj[i])
        raise _bad(s, i, where, f"{what} {shown} is out of range", keys) from None


def _no_duplicate_pairs(q: NDArray[np.str_], d: NDArray[np.str_], where: str,
                        row_of: Any, verb: str) -> None:
    """A (query, document) pair given twice is an error naming both places."""
    import pandas as pd

    pairs = pd.MultiIndex.from_arrays([q, d])
    dup = pairs.duplicated(keep="first")
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        first = int(np.flatnonzero((q == q[i]) & (d == d[i]))[0])
        raise DataError(f"document {str(d[i])!r} is {verb} for query {str(q[i])!r}: {row_of(i)} repeats "
                        f"{row_of(first)} (each (query, document) pair at most once)", path=where)


def _bad(s: pd.Series, i: int, where: str, message: str,
         keys: tuple[list[Any], list[Any]] | None = None) -> DataError:
    if keys is not None:
        return DataError(f"{_key_row(keys[0], keys[1], i)}: {message}", path=where)
    extra = _index_label(s.index, i)
    return DataError(f"{message}; rows are numbered from 1{extra}", path=where, row=i + 1,
                     column=str(s.name))


def _frame_row(frame: pd.DataFrame, i: int) -> str:
    return f"row {i + 1}{_index_label(frame.index, i)}"


def _index_label(index: pd.Index, i: int) -> str:
    """`` (index L)`` for row ``i`` when its label is not simply its position."""
    import pandas as pd

    label = index[i]
    if isinstance(index, pd.RangeIndex) and label == i:
        return ""
    return f" (index {_shown(label)})"


def _key_row(qs: list[Any], ds: list[Any], i: int) -> str:
    """``[q][d]`` of a dict's entry, each key cut to 60 characters (a 1 MB key stays one line)."""
    def cut(k: Any) -> str:
        r = repr(k)
        return r if len(r) <= 60 else f"{r[:57]}..."

    return f"[{cut(qs[i])}][{cut(ds[i])}]"


def _ranks(q: NDArray[np.str_], s: NDArray[np.float64]) -> NDArray[np.int64]:
    """1-based rank by decreasing score within each query, ties in row order."""
    n = q.shape[0]
    _, inverse = np.unique(q, return_inverse=True)
    inverse = inverse.ravel()
    order = np.lexsort((np.arange(n), -s, inverse))
    sizes = np.bincount(inverse)
    starts = np.repeat(np.cumsum(sizes) - sizes, sizes)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n, dtype=np.int64) - starts + 1
    return rank


def _missing(v: object) -> bool:
    if v is None or type(v).__name__ in ("NAType", "NaTType"):  # bool(pd.NA != pd.NA) raises
        return True
    try:
        return bool(v != v)
    except (TypeError, ValueError):
        return False


def _shown(v: object) -> str:
    r = repr(v.item() if isinstance(v, np.generic) else v)
    return r if len(r) <= 60 else f"{r[:57]}..."
