"""A MovieLens ``ratings.csv`` read by Dask under the local MovieLens reader's grammar.

The local reader (:mod:`bench.data.movielens`) reads ``userId,movieId,rating,timestamp`` as
int64 by pyarrow: an id or timestamp is plain digits with an optional ``-`` (``07`` is 7;
``7.0``, ``+7``, ``7e0``, `` 7`` are refused, naming the line). The generic Dask reader
(:func:`bench.data.dask_ratings.whole_number`, the rule of :mod:`bench.data.tabular`) takes any
decimal spelling of a whole number, so ``convert --engine dask`` converted a MovieLens folder
the local ``convert`` refuses. :class:`MovieLensGrammar` holds each partition to the MovieLens
grammar first, and a refusal is the local reader's own error
(``_locate_bad_ratings_line``: the file, the line, the field and what was expected).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from bench.data.dask_units import PATH_COLUMN as _PATH
from bench.errors import DataError

#: What pyarrow's int64 reads (the local MovieLens reader): ASCII digits, an optional '-'.
_PLAIN_INT = r"-?[0-9]+"


class MovieLensGrammar:
    """A partition reader (``typed``: :func:`bench.data.dask_ratings._typed`, passed in so that
    this module does not import it) that first holds the ids and timestamps of a partition of a
    MovieLens ``ratings.csv`` to the local reader's grammar."""

    def __init__(self, typed: Callable[..., pd.DataFrame]) -> None:
        self.typed = typed

    def __call__(self, part: pd.DataFrame, cols: dict[str, str | None], sep: str | None = None,
                 paths: list[tuple[str, int]] | None = None, scan: list[str] | None = None,
                 partition_info: dict[str, Any] | None = None) -> pd.DataFrame:
        for role in ("user", "item", "timestamp"):
            src = cols.get(role)
            if src is None or src not in part.columns or part[src].dtype.kind != "O":
                continue
            ok = part[src].astype(str).str.fullmatch(_PLAIN_INT).to_numpy(dtype=bool)
            if not ok.all():
                where = str(part[_PATH].iloc[0]) if _PATH in part.columns else None
                raise _local_error(where, sep or ",", part[src].iloc[int((~ok).argmax())], src)
        return self.typed(part, cols, sep, paths, scan, partition_info)


def _local_error(where: str | None, sep: str, cell: object, column: str) -> DataError:
    """The local MovieLens reader's refusal of the file's first bad line (its words, its line);
    the cell alone where the file cannot be named."""
    if where is not None:
        from bench.data.movielens import _locate_bad_ratings_line

        return _locate_bad_ratings_line(Path(where), sep, True, None)
    return DataError(f"{column} {cell!r} is not an integer (expected digits with an optional "
                     "'-'; no '+', decimal point, exponent or spaces)", column=column)


__all__ = ["MovieLensGrammar"]
