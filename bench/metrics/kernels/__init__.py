"""The per-query kernels: sums over a ranking that every metric family is finished from.

A kernel never divides by a profile-dependent denominator; it returns the components
(:mod:`bench.metrics.kernels.components`) of every query, and a family's finishing formula
(:mod:`bench.metrics.families`) turns them into values.

=====================  ========================================================================
module                 what it holds
=====================  ========================================================================
``components``         the component names, :class:`Components` (what a kernel returns),
                       :class:`Request` (which cutoffs of which components)
``numba_kernel``       compiled entry points: :func:`numba_components`, the input scans
``numba_query``        the compiled per-query kernel (every component in one pass)
``numba_order``        ordering the top of a query (partial selection, exact tie rules)
``numba_ties``         expected components of tied groups (``ties="average"``)
``numba_scan``         compiled input scans (labels, scores, query runs)
``numpy_kernel``       the vectorised NumPy kernel, the oracle of the compiled one
``python_kernel``      the compiled kernel's arithmetic interpreted (the same numbers, no numba)
``small``              small inputs without numba: the size limit, the input scans in NumPy
``judged``             the ranked components (``RANKED``: R-precision, bpref, ``ranked``'s),
                       both backends; which kernel computes each: its record, ``KERNELS``
``ranked``             the ranked components' vectorised NumPy sums (oracle of the twins)
``numba_ranked``       their compiled twins: one pass per query over the computed order
=====================  ========================================================================

This package imports nothing at import time: import the module you need (the ``numba_*`` ones
load numba; :mod:`bench.metrics.evaluate` imports them only for inputs above
:data:`bench.metrics.kernels.small.SMALL_INPUT_ROWS` rows or once numba is loaded).
"""
