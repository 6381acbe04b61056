"""Dask frames read as pandas frames whatever the user's Dask settings say.

``DASK_DATAFRAME__BACKEND=cudf`` (or ``dataframe.backend: cudf`` in a Dask configuration file,
as an operator of a GPU cluster sets it for their own jobs) made every ``dd.read_parquet`` /
``dd.read_csv`` of ltrbench dispatch to cuDF: "ValueError: No backend dispatch registered for
cudf" where cuDF is not installed, and cuDF frames, which the per-partition code does not read,
where it is. Every reader of the Dask engine runs under :func:`on_pandas`, which sets the
pandas backend for the call only.
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


__all__ = ["on_pandas"]
