"""Old import path of :mod:`bench.metrics.kernels.numpy_kernel` (the kernels moved into
:mod:`bench.metrics.kernels`); kept so that existing imports work. Import the new path."""

from bench.metrics.kernels.numpy_kernel import numpy_components, rank_order

__all__ = ["numpy_components", "rank_order"]
