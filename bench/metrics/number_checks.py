"""The per-row numbers of ``evaluate`` (labels, scores, weights) checked before any arithmetic
(:mod:`bench.data.inputs`' discipline, for arrays and lists): text is refused, never parsed; a
bool is not a number; a masked array's masked values are not data; a ``Decimal`` or
``Fraction`` may hold more digits than its float64; an integer beyond 2^53 and two float128
scores that are one float64 would be ranked as ties. Rows are numbered from 1 (:data:`ROWS`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bench.data.inputs import (
    TWO53,
    extended_precision_tie,
    extended_tie_message,
    first_inexact_integer,
    inexact_message,
)
from bench.errors import DataError

ROWS = "rows are numbered from 1"
_ROWS = ROWS


def _no_long_double_ties(raw: np.ndarray) -> None:
    """Distinct extended-precision scores that float64 makes equal would be ranked as ties:
    refused, as integers beyond 2^53 are (bench.data.inputs)."""
    tie = extended_precision_tie(raw)
    if tie is not None:
        raise DataError(extended_tie_message("score", raw, *tie), row=tie[1] + 1)


def no_mask(values: object, name: str) -> None:
    """A NumPy masked array with masked entries is refused, naming the first masked row: the
    values under a mask are not data, and ``np.asarray`` would read them as if they were."""
    if isinstance(values, np.ma.MaskedArray) and (mask := np.ma.getmaskarray(values)).any():
        first = int(np.flatnonzero(mask.ravel())[0])
        raise DataError(f"{name} is a masked array with {int(mask.sum())} masked value(s): "
                        "masked values are not data; fill them (a.filled(value)) or drop their "
                        "rows from every array", row=first + 1)


def no_null(values: object, name: str) -> None:
    """A pyarrow ``Array`` / ``ChunkedArray`` holding a null is refused, naming the first null
    row as missing (as a frame's null is): ``np.asarray`` would make it NaN, said as "not a
    finite number", or for an integer column a float one."""
    if type(values).__module__.split(".")[0] != "pyarrow" or not getattr(values, "null_count", 0):
        return
    first = int(np.flatnonzero(np.asarray(values.is_null()))[0])  # type: ignore[attr-defined]
    raise DataError(f"{name}: a null (missing value) in a pyarrow array: every row needs a "
                    f"number ({_ROWS})", row=first + 1)


def no_text(values: ArrayLike, name: str) -> np.ndarray:
    """``values`` as an array; text is refused, never parsed (``"1_0"`` would read as 10)."""
    no_mask(values, name)
    no_null(values, name)
    try:
        raw = values if isinstance(values, np.ndarray) else np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise DataError(f"{name} must be numbers: {exc}") from exc
    if raw.dtype.kind in "USO":
        items = raw.ravel().tolist()
        text = next((i for i, v in enumerate(items) if isinstance(v, str | bytes)), None)
        if text is not None:
            raise DataError(f"{name} must be numbers: {items[text]!r} is text "
                            f"(bench.data.inputs: text is not parsed; {_ROWS})", row=text + 1)
        _plain_numbers(items, name)
    elif isinstance(values, list | tuple) and raw.dtype.kind in "iuf":
        # NumPy turns [0.5, True] into [0.5, 1.0]: look at the user's values themselves
        flag = next((i for i, v in enumerate(values) if isinstance(v, bool | np.bool_)), None)
        if flag is not None:
            no_bool(name, flag)
        if raw.dtype.kind == "f":  # and [0.5, 2**53 + 1] into [0.5, 2.0**53]: a silent tie
            _plain_numbers(list(values), name)
    return raw


def _plain_numbers(items: list[object], name: str) -> None:
    """Every value of an object array is a float64-sized number (or ``None``, refused later as
    NaN). A ``Decimal`` or ``Fraction`` may hold more digits than the float64 it would be
    ranked as (``Decimal('0.10000000000000000001')`` and ``Decimal('0.1')`` would tie), as
    frames, dicts and TREC objects already refuse them (:mod:`bench.data.inputs`); an integer
    beyond a float64 (``10**400``) has no float64 at all."""
    for i, v in enumerate(items):
        if isinstance(v, bool | np.bool_):
            no_bool(name, i)
        if v is None or isinstance(v, float | np.floating):
            continue
        if isinstance(v, int | np.integer):
            if isinstance(v, int) and abs(v) > TWO53 and first_inexact_integer([v]) == 0:
                what = {"scores": "score", "labels": "label"}.get(name, "weight")
                raise DataError(f"{inexact_message(what, v)} ({_ROWS})", row=i + 1)
            continue
        import pandas as pd  # only reached by a value that is refused below

        if v is pd.NA or v is pd.NaT:
            raise DataError(f"{name}: {v!r} is missing: every row needs a number ({_ROWS})",
                            row=i + 1)
        raise DataError(f"{name} must be plain numbers (int, float): {v!r} is a "
                        f"{type(v).__name__} (a Decimal or Fraction may hold more digits than "
                        f"the float64 it would be ranked as: convert with float() first; {_ROWS})",
                        row=i + 1)


def no_bool(name: str, i: int) -> None:
    """A bool is not a number here (:mod:`bench.data.inputs`, as dicts and TREC frames say)."""
    raise DataError(f"{name} must be numbers, not bools (True/False): convert with "
                    f".astype(int) or .astype(float) if 1/0 is meant ({_ROWS})", row=i + 1)


def vector(values: ArrayLike, name: str) -> NDArray[np.float64]:
    raw = no_text(values, name)
    if raw.dtype.kind == "b":
        no_bool(name, 0)
    if raw.dtype.kind in "cmMV":  # complex, dates, durations, raw bytes: no ranking of their own
        raise DataError(f"{name} must be real numbers: got dtype {raw.dtype} (a complex value "
                        "would lose its imaginary part, a date its meaning)")
    if name == "scores":  # float128, in an array or as NumPy scalars in an object array
        _no_long_double_ties(raw.ravel())
    if name == "scores" and (inexact := first_inexact_integer(raw)) >= 0:  # no silent ties
        raise DataError(f"{inexact_message('score', raw[inexact])} ({_ROWS})", row=inexact + 1)
    try:
        a = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise DataError(f"{name} must be numbers: {exc}") from exc
    if a.ndim != 1:
        raise DataError(f"{name} must be one-dimensional, got shape {a.shape}")
    return a
