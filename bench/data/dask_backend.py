"""Dask frames read as pandas frames whatever the user's Dask settings say.

``DASK_DATAFRAME__BACKEND=cudf`` (or ``dataframe.backend: cudf`` in a Dask configuration file,
as an operator of a GPU cluster sets it for their own jobs) made every ``dd.read_parquet`` /
``dd.read_csv`` of ltrbench dispatch to cuDF: "ValueError: No backend dispatch registered for
cudf" where cuDF is not installed, and cuDF frames, which the per-partition code does not read,
where it is. Every reader of the Dask engine runs under :func:`on_pandas`, which sets the
pandas backend for the call only.

:func:`refuse_converted_ids`: Dask's ``dataframe.convert-string`` (on by default) makes
``dd.from_pandas`` cast an object column to text, bytes ``b"a"`` decoded to ``"a"``, before
ltrbench sees a partition: the ids of the pandas frame given are checked under the local rule
(:func:`bench.data.inputs.text_ids`), so bytes ids are refused as a local frame refuses them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


def on_pandas(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` run with Dask's ``dataframe.backend`` set to pandas (Dask absent: as it is)."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            import dask
        except ImportError:  # the reader says what to install
            return fn(*args, **kwargs)
        with dask.config.set({"dataframe.backend": "pandas"}):
            return fn(*args, **kwargs)

    return wrapper


def refuse_converted_ids(ddf: object, column: str, where: str) -> None:
    """The ``column`` ids of every pandas frame ``ddf`` was made from by ``dd.from_pandas`` with
    Dask's string conversion on, checked as a local frame's are (bytes, a tuple, a bool among
    text refused, naming the row): the conversion would have made them text unsaid."""
    import numpy as np

    from bench.data.inputs import text_ids

    walk = getattr(getattr(ddf, "expr", None), "walk", None)
    if walk is None:
        return
    for node in walk():
        if type(node).__name__ != "FromPandas":
            continue
        try:
            converted = bool(node.operand("pyarrow_strings_enabled"))
            frame = node.operand("frame")._data
        except (AttributeError, KeyError, ValueError):  # another Dask release's layout
            continue
        col = getattr(frame, "columns", None)
        if not converted or col is None or column not in col or frame[column].dtype != object:
            continue
        text_ids(np.asarray(frame[column].to_numpy(), dtype=object), what="query id",
                 path=f"{where} (the pandas frame given to dd.from_pandas, whose "
                 "convert-string setting would make its ids text)", column=column)


__all__ = ["on_pandas", "refuse_converted_ids"]
