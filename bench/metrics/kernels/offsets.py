"""Query offsets from runs of equal ids: the check shared by the compiled and the NumPy scans
(:mod:`bench.metrics.kernels.numba_kernel`, :mod:`bench.metrics.kernels.small`)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray


def unless_split(qid: NDArray[Any], offsets: NDArray[np.int64]) -> NDArray[np.int64] | None:
    """``offsets`` (the starts of the runs of equal ``qid``), or ``None`` when one query id
    heads two runs (its rows are not together): the check of every offsets scan, compiled or
    not."""
    heads = qid[offsets[:-1]]
    if heads.shape[0] > 1 and not np.all(heads[1:] > heads[:-1]):
        ordered = np.sort(heads)
        if np.any(ordered[1:] == ordered[:-1]):
            return None
    return offsets
