"""What :func:`bench.metrics.evaluate` says when its first argument is not rows of documents.

``evaluate`` reads arrays (labels, scores, qid ...) or one pandas DataFrame; a pyarrow
``Table`` / ``RecordBatch`` or a one-dimensional NumPy structured array is read as its
DataFrame (:func:`named_rows`: an integer column's null stays missing, as the pyarrow dtype
backend reads it, so the frame's id and dtype rules apply, as for ratings, qrels and runs).
Qrels and runs (dicts ``{qid: {docno: value}}``, ranx ``Qrels``/``Run``) belong to
:func:`bench.metrics.evaluate_trec`; a dict of columns is wrapped in a DataFrame first. Each is
named here with what to do, before any array arithmetic could fail on it (a ranx object
reached numba and ended in its ``TypingError``).
"""

from __future__ import annotations

from bench.errors import ConfigError


def named_rows(labels: object) -> object:
    """``labels`` as the pandas DataFrame :func:`bench.metrics.evaluate` reads when it is a
    table with named columns (a pyarrow ``Table`` / ``RecordBatch``, a 1-D NumPy structured
    array: :func:`bench.data.arrow_tables.table_frame`), else ``labels`` as given."""
    from bench.data.arrow_tables import is_named_table, table_frame

    return table_frame(labels) if is_named_table(labels) else labels


def check_rows(labels: object, scores: object, label: str | None, score: str | None) -> None:
    """Raise the :class:`~bench.errors.ConfigError` that says how to pass ``labels`` when it
    is not an array of labels beside ``scores`` (a DataFrame is checked before this)."""
    if (scores is None or label is not None or score is not None or isinstance(labels, dict)
            or type(labels).__module__.split(".")[0] == "ranx"):
        raise _not_rows(labels, scores, named=label is not None or score is not None)
    for role, value in (("labels", labels), ("scores", scores)):
        _refuse_lists_per_query(role, value)


def _refuse_lists_per_query(role: str, value: object) -> None:
    """One list per query (``[[2, 0, 1], [1, 0]]``, as TF-Ranking and allRank batch them) is
    not rows: NumPy ends in "inhomogeneous shape" (ragged) or a 2-D shape. Said with the flat
    form and its ``group=`` (LightGBM's query sizes)."""
    if not isinstance(value, list | tuple) or not value or not all(
            isinstance(v, list | tuple) or getattr(v, "ndim", 0) == 1 for v in value):
        return
    sizes = [len(v) for v in value]
    if max(sizes) <= 1:  # a column of one value a row ((n, 1), a .tolist() of predictions)
        return
    shown = ", ".join(map(str, sizes[:6])) + (", ..." if len(sizes) > 6 else "")
    raise ConfigError(f"{role} is a list of {len(sizes)} lists (one per query?): evaluate() "
                      f"reads one {role[:-1]} per row; flatten them (numpy.concatenate) and give "
                      f"the query sizes as group=[{shown}]")


def _not_rows(labels: object, scores: object, *, named: bool) -> ConfigError:
    """The error for :func:`bench.metrics.evaluate` given one table that is not a pandas
    DataFrame (a dict of columns, a NumPy structured array, a pyarrow Table ...) or
    ``label=``/``score=`` beside arrays: it names what was given and how to pass it."""
    module = type(labels).__module__
    kind = type(labels).__qualname__ if module == "builtins" else f"{module}.{type(labels).__qualname__}"
    if module.split(".")[0] == "ranx" or (isinstance(labels, dict) and labels and all(
            isinstance(v, dict) for v in labels.values())):
        return ConfigError("evaluate() reads rows of documents; qrels and runs (dicts {qid: "
                           "{docno: value}}, ranx Qrels/Run) are evaluated by "
                           "evaluate_trec(qrels, run, ...)")
    if named or (scores is not None and not isinstance(labels, dict)):
        return ConfigError(f"label=/score= name columns of a DataFrame, but labels is a {kind}; "
                           f"with arrays give evaluate(labels, scores, ...)")
    if getattr(getattr(labels, "dtype", None), "names", None):  # a 1-D one is read (named_rows)
        how = (f"a structured array is read as its DataFrame when one-dimensional; this one "
               f"has shape {getattr(labels, 'shape', '?')}: flatten it, array.ravel()")
    elif hasattr(labels, "to_pandas"):
        how = "convert it: table.to_pandas()"
    elif isinstance(labels, dict):
        how = "wrap it: pandas.DataFrame(columns)"
    else:
        how = "or give scores"
    given = "a dict" if isinstance(labels, dict) else f"a {kind} and no scores"
    return ConfigError(f"evaluate() was given {given}: rows with their columns are "
                       f"read from a pandas DataFrame ({how}); arrays are given as "
                       f"evaluate(labels, scores, qid=...)")
