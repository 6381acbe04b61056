"""A pyarrow ``Table`` / ``RecordBatch`` as the pandas DataFrame every frame path reads.

``table.to_pandas()`` turns an integer column holding a null into float64 (the null becomes
NaN: a ratings table then said "user has dtype float64", qrels "relevance nan"), a float
column's null into a NaN (said as "not a finite number", not as missing) and a
``date32`` / ``date64`` column into Python ``date`` objects (refused as "dtype object", where
the same column read with ``pd.read_parquet(..., dtype_backend="pyarrow")`` is a date). Here
those columns keep their Arrow type (``pd.ArrowDtype``), as the pyarrow dtype backend reads
them, so a null is named missing at its row and a date is read as a date, the same as a pandas
frame of that backend. (The choice is by Arrow type, as ``to_pandas`` maps types: a column of
the same integer or float type without a null is kept too, and reads the same numbers.) Every other
column converts as ``to_pandas()`` converts it.
:func:`table_frame` reads a NumPy structured array as a frame too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd


def is_arrow_table(obj: object) -> bool:
    """A pyarrow ``Table`` or ``RecordBatch`` (told by its module and its ``to_pandas`` and
    ``column_names``, without importing pyarrow)."""
    return type(obj).__module__.split(".")[0] == "pyarrow" \
        and callable(getattr(obj, "to_pandas", None)) and hasattr(obj, "column_names")


def is_structured(obj: object) -> bool:
    """A NumPy structured array (named fields), of any shape."""
    return isinstance(obj, np.ndarray) and obj.dtype.names is not None


def is_named_table(obj: object) -> bool:
    """What :func:`table_frame` reads: a pyarrow table, or a one-dimensional structured array.
    (Imports neither pyarrow nor pandas: a NumPy-only caller asks it for free.)"""
    return is_arrow_table(obj) or (isinstance(obj, np.ndarray) and is_structured(obj)
                                   and obj.ndim == 1)


def arrow_frame(table: Any) -> pd.DataFrame:
    """``table`` (a pyarrow ``Table`` or ``RecordBatch``) as a pandas DataFrame: integer and
    float columns with nulls and date columns as ``pd.ArrowDtype`` (see the module docstring)."""
    import pandas as pd
    import pyarrow as pa

    kept = {field.type for field, column in zip(table.schema, table.columns, strict=True)
            if pa.types.is_date(field.type)
            or ((pa.types.is_integer(field.type) or pa.types.is_floating(field.type))
                and column.null_count)}

    def mapper(arrow_type: Any) -> Any:
        return pd.ArrowDtype(arrow_type) if arrow_type in kept else None

    frame = table.to_pandas(types_mapper=mapper if kept else None)
    assert isinstance(frame, pd.DataFrame)
    return frame


def table_frame(table: Any) -> pd.DataFrame:
    """A pyarrow ``Table`` / ``RecordBatch`` (:func:`arrow_frame`) or a one-dimensional NumPy
    structured array (its fields become columns) as a pandas DataFrame, for a path that reads
    a frame column by column and names a bad column (``LetorData.build``'s ``X``)."""
    if isinstance(table, np.ndarray):
        import pandas as pd

        return pd.DataFrame(table)
    return arrow_frame(table)
