"""Equality of result objects as a user compares them: ``result_a == result_b``.

A dataclass's generated ``__eq__`` compares its fields as a tuple, so a field holding a pandas
DataFrame or a NumPy array made ``==`` raise ``ValueError: The truth value ... is ambiguous``
(an :class:`~bench.metrics.result.EvaluationResult` with ``per_query=True``, every
:class:`~bench.report.compare_runs.RunComparison`), and a NaN mean made two results of the same
call unequal. :func:`same_value` compares field by field: frames with ``DataFrame.equals``,
arrays by shape, dtype kind and values, NaN equal to NaN (the same computation gave both).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np


def same_value(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` hold the same values (see the module doc)."""
    if a is b:
        return True
    if type(a) is not type(b) and not (_number(a) and _number(b)):
        return False
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return all(same_value(getattr(a, f.name), getattr(b, f.name))
                   for f in dataclasses.fields(a))
    if hasattr(a, "equals") and callable(a.equals) and type(a).__module__.startswith("pandas"):
        return bool(a.equals(b))
    if isinstance(a, np.ndarray):
        if a.shape != b.shape:
            return False
        return bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc" and b.dtype.kind in "fc"))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    if _number(a) and _number(b):
        fa, fb = float(a), float(b)
        return fa == fb or (math.isnan(fa) and math.isnan(fb))
    return bool(a == b)


def _number(v: Any) -> bool:
    return isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool)
