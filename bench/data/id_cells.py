"""A ratings table's id column checked cell by cell before its ids are numbered
(:mod:`bench.data.id_numbers`), for :mod:`bench.data.tabular`: an id is an integer or a text;
a cell spelled as a missing value, holding a stray character, or that a spreadsheet wrote
instead of an id (:mod:`bench.data.sheet_cells`) is refused naming its line (row) and column.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from bench.data.inputs import MISSING_SPELLINGS, STRAY_TEXT, id_cell_problem
from bench.data.sheet_cells import SHEET_ID
from bench.errors import DataError

#: What is stripped around an id cell: ASCII spaces and tabs only (``str.strip()`` would also
#: strip U+00A0 or U+3000, making ``u1\u00a0`` user ``u1`` where a TREC file keeps them apart).
ASCII_BLANKS = " \t"


def _plain(value: object) -> object:
    return value.item() if isinstance(value, np.generic) else value


def scalar_ids(col: pd.Series, p: Path, name: str, where) -> None:  # type: ignore[no-untyped-def]
    """An id is an integer or a text (:mod:`bench.data.inputs`): a bool (``True`` would be the
    text 'True', or 1), a list, a struct or another nested Parquet value is refused, not
    numbered by its printed form."""
    if col.dtype.kind == "b":
        raise DataError(f"id {_plain(col.iloc[0])!r} is a bool: expected integers or text",
                        path=p, column=name, **where(0))
    if col.dtype.kind != "O":
        return
    for i, v in enumerate(col.tolist()):  # bytes (a Parquet binary column): no one text either
        if isinstance(v, bool | np.bool_ | list | tuple | dict | set | np.ndarray | bytes):
            raise DataError(f"id {v!r} is a {type(v).__name__}: expected integers or text",
                            path=p, column=name, **where(i))


def text_id_cells(col: pd.Series, p: Path, name: str, where) -> None:  # type: ignore[no-untyped-def]
    """Text ids under :mod:`bench.data.inputs`' rules: a cell spelled as a missing value
    (``NA``, ``nan``, ``null``: :data:`~bench.data.inputs.MISSING_SPELLINGS`) is a missing
    id, and a NUL byte, a byte-order mark or a line separator inside an id
    (:func:`~bench.data.inputs.stray_character`) would make ``\ufeff1`` a user apart from
    ``1``, and a spreadsheet's error value, placeholder or locale-written number
    (:data:`~bench.data.sheet_cells.SHEET_ID`) is none: all are errors naming the line (row)
    and column."""
    if col.dtype.kind not in "OSUT" and not pd.api.types.is_string_dtype(col.dtype):
        return
    uniq = pd.Series(pd.unique(col.astype(str)))  # ids repeat: check each text once
    bad = uniq.str.strip().isin(MISSING_SPELLINGS) | uniq.str.contains(STRAY_TEXT, regex=True) \
        | uniq.str.strip(ASCII_BLANKS).str.fullmatch(SHEET_ID)
    if not bad.any():
        return
    text = col.astype(str)
    i = int(np.flatnonzero(text.isin(uniq[bad]).to_numpy(dtype=bool))[0])
    cell = text.iloc[i]
    raise DataError(id_cell_problem(cell) or "not an id", path=p, column=name, **where(i))
