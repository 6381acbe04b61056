"""Old import path of :mod:`bench.metrics.kernels.numba_kernel` (the kernels moved into
:mod:`bench.metrics.kernels`); kept so that existing imports work. Import the new path."""

from bench.metrics.kernels.numba_kernel import (
    FULL,
    MODES,
    numba_components,
    run_offsets,
    scan_inputs,
)

__all__ = ["FULL", "MODES", "numba_components", "run_offsets", "scan_inputs"]
