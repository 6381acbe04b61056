"""A ratings cell that is not a finite number, said as the file writes it.

pandas reads ``1e400`` in a numeric column as infinity, so an error built from the parsed value
would show ``inf``, a text the file does not hold. :func:`nonfinite_message` shows the cell's
own text when the reader has it (a CSV/TSV column read again as text), and says when that text
is a number beyond a float64's range rather than a spelled ``inf`` or ``nan``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

#: The white space a delimited reader strips around a cell (pandas' ``skipinitialspace``).
_BLANKS = " \t\r\n\x0b\x0c"


def nonfinite_message(value: object, written: Callable[[], pd.Series | None] | None,
                      i: int) -> str:
    """``value {cell!r} is not a finite number``, ``cell`` the text ``written()`` holds in row
    ``i`` (else ``value`` itself, a NumPy scalar as its plain number)."""
    shown = value.item() if isinstance(value, np.generic) else value
    text = written() if written is not None else None
    cell = None if text is None else str(text.iloc[i]).strip(_BLANKS)
    if cell is None or cell.lower().lstrip("+-") in ("inf", "infinity", "nan"):  # as written
        return f"value {shown!r} is not a finite number"
    return f"value {cell!r} is not a finite number (beyond a float64, |x| > 1.8e308)"
