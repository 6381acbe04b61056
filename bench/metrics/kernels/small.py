"""Small inputs never import numba: the input scans in NumPy, the kernel interpreted.

Importing numba (with the SciPy modules it loads) and loading the cached compiled kernels takes
0.6 s or more in a fresh process (2.8 s on a busy 2-core machine), longer than a whole ``ltrbench evaluate`` of a few queries
should take. Below :data:`SMALL_INPUT_ROWS` rows, while numba is not yet loaded in the process,
:func:`bench.metrics.evaluate` (``backend="auto"``) computes the components with
:func:`bench.metrics.kernels.python_kernel.python_components` (the compiled kernel's arithmetic,
interpreted: the same numbers bit for bit) and :mod:`bench.metrics.validate` scans the inputs
with :func:`scan_inputs` / :func:`run_offsets` here (NumPy, the same answers as
:mod:`bench.metrics.kernels.numba_scan`). Once numba is loaded (a benchmark run, a large input
earlier), the compiled kernels are used whatever the size: they cost nothing more to reach.
"""

from __future__ import annotations

import sys

import numpy as np
from numpy.typing import NDArray

from bench.metrics.kernels.offsets import unless_split

#: Largest input (rows = scored documents) evaluated without numba while it is not loaded.
#:
#: Measured on the 2-core development machine (AMD EPYC, load average about 10 from other
#: work), fresh processes: importing numba took 0.7-0.9 s, the kernel modules 0.5 s and the
#: first call (the cached kernels loaded, nothing compiled) 1.4-1.7 s: about 2.8 s in all before
#: the first number. The interpreted kernel took 2-9 us per row (median about 4.5) with the
#: default metrics (``ndcg@1,3,5,10 map@10 mrr``) on queries of 30 documents: 0.04 s at 10,000
#: rows, break-even with numba's load near 600,000 rows. The limit is kept far below the
#: break-even, at about 1/30 of numba's load (0.09 s), so that a loop of small evaluations in a
#: process that never loads numba is never much slower than loading it once.
SMALL_INPUT_ROWS = 20_000


def numba_loaded() -> bool:
    """Whether this process has already imported numba (then the compiled path is free)."""
    return "numba" in sys.modules


def use_small_path(n_rows: int) -> bool:
    """Whether an input of ``n_rows`` rows is evaluated without importing numba."""
    return n_rows <= SMALL_INPUT_ROWS and not numba_loaded()


def scan_inputs(
    labels: NDArray[np.float64], scores: NDArray[np.float64], threads: int | None = None
) -> tuple[int, int, int, int, float]:
    """:func:`bench.metrics.kernels.numba_kernel.scan_inputs`: the first row with a non-finite
    score, a non-finite label, a negative label and a non-integer label (-1 where none), and
    the largest finite label (at least 0). NumPy on small inputs, else the compiled scan."""
    if not use_small_path(labels.shape[0]):
        from bench.metrics.kernels.numba_kernel import scan_inputs as compiled

        return compiled(labels, scores, threads)
    finite = np.isfinite(labels)
    with np.errstate(invalid="ignore"):
        negative = finite & (labels < 0)
        nonint = finite & (labels != np.floor(labels))
    top = float(np.max(labels, where=finite, initial=0.0))
    return (_first(~np.isfinite(scores)), _first(~finite), _first(negative), _first(nonint),
            max(top, 0.0))


def run_offsets(qid: NDArray[np.int64]) -> NDArray[np.int64] | None:
    """:func:`bench.metrics.kernels.numba_kernel.run_offsets`: group offsets of an integer
    qid whose runs are all distinct queries, else ``None`` (NumPy on small inputs)."""
    if not use_small_path(qid.shape[0]):
        from bench.metrics.kernels.numba_kernel import run_offsets as compiled

        return compiled(qid)
    starts = np.flatnonzero(qid[1:] != qid[:-1]) + 1
    return unless_split(qid, np.concatenate(([0], starts, [qid.shape[0]])).astype(np.int64))


def _first(mask: NDArray[np.bool_]) -> int:
    hits = np.flatnonzero(mask)
    return int(hits[0]) if hits.shape[0] else -1
