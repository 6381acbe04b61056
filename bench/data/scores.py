"""A scores file: one score per line, in the row order of the data file it scores.

This is what ``lightgbm``/``xgboost`` ``predict`` write and what ``ltrbench evaluate --scores``
reads (moved here from ``bench/commands/evaluate.py``: a file format belongs to ``bench.data``).
The input discipline is :mod:`bench.data.inputs`: a UTF-8 byte-order mark skipped, UTF-16
refused, every line ending accepted, numbers parsed strictly.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from bench.data.inputs import check_input_file, parse_float, refuse_decimal_ties, text_lines
from bench.errors import ConfigError, DataError


def read_scores(path: str | Path, n_rows: int,
                qid: NDArray[np.generic] | None = None) -> NDArray[np.float64]:
    """One finite float per line; a malformed line or the wrong count is a :class:`DataError`.

    Read through :mod:`bench.data.inputs` (a UTF-8 byte-order mark skipped, UTF-16 refused)
    and parsed strictly: ``0_4``, ``0x1p3``, ``nan``, ``inf`` are errors naming the line.
    ``qid`` (the query of each line, in file order) refuses two distinct decimals of one query
    that float64 would tie (:func:`bench.data.inputs.refuse_decimal_ties`).

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "s.txt")
    ...     _ = open(p, "w").write("0.5\\n-1\\n2e1\\n")
    ...     read_scores(p, 3).tolist()
    [0.5, -1.0, 20.0]
    """
    if isinstance(n_rows, bool) or not isinstance(n_rows, int | np.integer) or n_rows < 0:
        raise ConfigError(f"n_rows={n_rows!r}: expected the data file's row count (an int >= 0)")
    if qid is not None and np.shape(qid) != (int(n_rows),):
        raise ConfigError(f"qid has shape {np.shape(qid)}: expected one query id per data row "
                          f"({int(n_rows)},)")
    p = check_input_file(path, expected="a scores file (one number per line)")
    lines = [(lineno, raw.strip()) for lineno, raw in text_lines(p)]
    while lines and not lines[-1][1]:
        lines.pop()
    if not lines:
        raise DataError("empty scores file: expected one score per line", path=p)
    blank = next((lineno for lineno, text in lines if not text), None)
    if blank is not None:
        raise DataError("expected one number per line, got an empty line", path=p, line=blank)
    values = np.fromiter((parse_float(text, what="score", path=p, line=lineno)
                          for lineno, text in lines), dtype=np.float64, count=len(lines))
    if values.shape[0] != n_rows:
        raise DataError(
            f"{values.shape[0]} scores but the data file has {n_rows} rows: give one score per "
            "data row, in the same order",
            path=p,
        )
    if qid is not None:  # distinct decimals of one query tied as float64 (bench.data.inputs)
        refuse_decimal_ties(qid, values, [t.decode() for _, t in lines],
                            lines=[n for n, _ in lines], path=p)
    return values
