"""Old import path of :mod:`bench.metrics.kernels.judged` (the kernels moved into
:mod:`bench.metrics.kernels`); kept so that existing imports work. Import the new path."""

from bench.metrics.kernels.judged import judged_components

__all__ = ["judged_components"]
