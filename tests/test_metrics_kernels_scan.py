"""The compiled input scan (block test, then row by row) against a NumPy reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bench.metrics.kernels.numba_kernel as kn
from bench.metrics.kernels import numba_scan as ks

SPECIAL = [np.nan, np.inf, -np.inf, -1.0, 0.5, -0.0, 1e300, 2.0**63, 3.0]


def _reference(labels: np.ndarray, scores: np.ndarray) -> tuple[int, int, int, int, float]:
    def first(mask: np.ndarray) -> int:
        idx = np.flatnonzero(mask)
        return int(idx[0]) if idx.size else -1

    finite = np.isfinite(labels)
    with np.errstate(invalid="ignore"):
        top = float(np.max(labels[finite], initial=0.0))
        return (first(~np.isfinite(scores)), first(~finite), first(finite & (labels < 0)),
                first(finite & (labels != np.floor(labels))), top)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3 * ks._BLOCK + 7), st.lists(st.tuples(st.integers(0, 10**6),
                                                             st.sampled_from(SPECIAL),
                                                             st.booleans()), max_size=6),
       st.integers(1, 3))
def test_scan_equals_numpy_with_special_values_anywhere(n: int, specials, threads: int) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(n)
    labels = rng.integers(0, 5, n).astype(float)
    scores = rng.normal(size=n)
    for row, value, in_labels in specials:
        (labels if in_labels else scores)[row % n] = value
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(kn, "_PARALLEL_ROWS", 1)  # split over threads from the first row
        assert kn.scan_inputs(labels, scores, threads) == _reference(labels, scores)
