"""Compiled kernel entry points (numba, GIL released): metric components, input scans, query runs.

:func:`numba_components` computes every component (:mod:`bench.metrics.kernels.components`) of every
query in one pass per query, ordering only the top of each query
(:mod:`bench.metrics.kernels.numba_query`, :mod:`bench.metrics.kernels.numba_order`,
:mod:`bench.metrics.kernels.numba_ties`); :func:`scan_inputs` and :func:`run_offsets` are the
input checks of :mod:`bench.metrics.validate` (:mod:`bench.metrics.kernels.numba_scan`).

Large inputs are cut into blocks of queries holding about the same number of rows (not the
same number of queries, so that a block of long queries does not keep one thread busy after
the others are done), a few blocks per thread, run in a thread pool; each block writes its own
rows of the outputs. The kernels compile on the first call of a process without a cache entry
for this CPU (numba's cache key holds the CPU name and features), never inside a later call.
The NumPy kernel is the oracle for this one (``tests/test_metrics_fastpath.py``).
"""

from __future__ import annotations

import itertools
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numpy.typing import NDArray

from bench.machine import usable_cpus
from bench.metrics.kernels.components import Components, Request
from bench.metrics.kernels.numba_query import FULL, components_kernel
from bench.metrics.kernels.numba_scan import _run_starts, _scan
from bench.metrics.kernels.offsets import unless_split

#: Inputs of at least this many rows are split over threads.
_PARALLEL_ROWS = 1 << 20
#: Blocks per thread: a thread slowed by other processes takes fewer blocks, and the others
#: are not left waiting for it.
_BLOCKS_PER_THREAD = 8
MODES = {"stable": 0, "average": 1, "pessimistic": 2, "optimistic": 3, "random": 4, "docno_desc": 4, "docno_asc": 4,
         "row_desc": 4}
_NAMES = ("dcg", "idcg", "hits", "ap", "rr", "err", "any")

__all__ = ["FULL", "MODES", "numba_components", "run_offsets", "scan_inputs"]


def numba_components(
    labels: NDArray[np.float64],
    scores: NDArray[np.float64],
    offsets: NDArray[np.int64],
    *,
    f32: bool,
    ties: str,
    tiekey: NDArray[np.int64] | None,
    gain: NDArray[np.float64],
    rel: NDArray[np.float64],
    err_r: NDArray[np.float64],
    order: NDArray[np.int64],
    disc: NDArray[np.float64],
    request: Request,
    extra_hist: NDArray[np.int64] | None = None,
    threads: int | None = None,
) -> Components:
    """Components of every query with the compiled kernel (integer labels ``< len(gain)``).

    Per query and cutoff ``k`` (positions ``i < min(k, n)`` of the ranking under the tie rule
    ``ties``; ``average``: the expectation over every order of each tied group, McSherry &
    Najork, ECIR 2008): ``dcg = sum g_i D(i)``, ``hits = sum rel_i``,
    ``ap = sum rel_i hits_i / (i + 1)``, ``rr``/``any``/``err`` the cascade sums, ``idcg`` from the
    label counts; see :mod:`bench.metrics.kernels.components`. ``f32``: scores are rounded to float32
    (in the kernel, without a copy). The kernel releases the GIL; with ``threads`` > 1 (default:
    the CPUs this process may use) and at least 2**20 rows, blocks of queries of about equal
    row counts run in parallel threads, each writing its own rows of the outputs.
    """
    n_q = offsets.shape[0] - 1
    ks = {c: np.asarray([FULL if k is None else k for k in request.ks.get(c, ())], dtype=np.int64)
          for c in _NAMES}
    order_ks = [k for c in ("dcg", "hits", "ap", "rr", "err", "any") for k in request.ks.get(c, ())]
    full_order = any(k is None for c in ("dcg", "ap", "err") for k in request.ks.get(c, ()))
    finite = [k for k in order_ks if k is not None]
    if request.ties_k is not None:
        finite.append(request.ties_k)
    m_sel = max(finite) if finite else 0
    # one contiguous row per cutoff: the per-query arrays handed on are not strided views
    outs = {c: np.empty((ks[c].shape[0], n_q), dtype=np.float64) for c in _NAMES}
    r_list = np.empty(n_q, dtype=np.float64)
    r_basis = np.empty(n_q, dtype=np.float64)
    has_gain = np.empty(n_q, dtype=np.bool_)
    ties_flag = np.empty(n_q, dtype=np.bool_)
    has_extra = extra_hist is not None
    eh = extra_hist if extra_hist is not None else np.zeros((1, gain.shape[0]), dtype=np.int64)
    tk = np.zeros(1, dtype=np.int64) if tiekey is None else tiekey
    ties_k = FULL if request.ties_k is None else request.ties_k

    def block(q0: int, q1: int) -> None:
        components_kernel(
            labels, scores, offsets[q0 : q1 + 1], q0, MODES[ties], tk, gain, rel, err_r, order,
            disc, eh[q0:q1] if has_extra else eh, has_extra, m_sel, full_order, ties_k, f32,
            *(ks[c] for c in _NAMES), *(outs[c] for c in _NAMES),
            r_list[q0:q1], r_basis[q0:q1], has_gain[q0:q1], ties_flag[q0:q1],
        )

    _run_blocks(block, offsets, usable_cpus(threads) if labels.shape[0] >= _PARALLEL_ROWS else 1)
    comps = Components(n=np.diff(offsets), r_list=r_list, r_basis=r_basis, has_gain=has_gain,
                       ties=ties_flag)
    for c in _NAMES:
        for t, k in enumerate(request.ks.get(c, ())):
            comps.values[(c, k)] = outs[c][t]
    return comps


def _run_blocks(block, offsets: NDArray[np.int64], n_threads: int) -> None:  # type: ignore[no-untyped-def]
    """``block(q0, q1)`` over blocks of queries with about equal row counts, in threads."""
    n_q = offsets.shape[0] - 1
    n_threads = max(1, min(n_threads, n_q))
    if n_threads == 1:
        block(0, n_q)
        return
    n_blocks = _BLOCKS_PER_THREAD * n_threads
    cuts = np.searchsorted(offsets, np.linspace(0, offsets[-1], n_blocks + 1)[1:-1])
    bounds = [0, *sorted({int(c) for c in cuts if 0 < c < n_q}), n_q]
    with ThreadPoolExecutor(max_workers=n_threads) as pool:
        for f in [pool.submit(block, a, b) for a, b in itertools.pairwise(bounds)]:
            f.result()


def run_offsets(qid: NDArray[np.int64]) -> NDArray[np.int64] | None:
    """Group offsets of an integer qid whose runs are all distinct queries, else ``None``.

    ``None`` means some query id appears in two separate runs; the caller then reports the
    first offending row. (A faster stand-in for ``offsets_from_qid`` on large inputs.)
    """
    return unless_split(qid, _run_starts(qid))


def scan_inputs(
    labels: NDArray[np.float64], scores: NDArray[np.float64], threads: int | None = None
) -> tuple[int, int, int, int, float]:
    """One pass over both arrays: the first row with a non-finite score, a non-finite label, a
    negative label and a non-integer label (-1 where none), and the largest finite label.

    From 2**20 rows on, blocks of rows are scanned in ``threads`` threads (default: the CPUs
    this process may use) and the firsts and the largest combined."""
    n = labels.shape[0]
    n_threads = usable_cpus(threads) if n >= _PARALLEL_ROWS else 1
    if n_threads <= 1:
        a, b, c, d, e = _scan(labels, scores, 0, n)
        return int(a), int(b), int(c), int(d), float(e)
    cuts = np.linspace(0, n, _BLOCKS_PER_THREAD * n_threads + 1).astype(np.int64)
    with ThreadPoolExecutor(max_workers=n_threads) as pool:
        parts = list(pool.map(lambda ab: _scan(labels, scores, ab[0], ab[1]),
                              itertools.pairwise(cuts.tolist())))
    firsts = []
    for k in range(4):
        hits = [int(p[k]) for p in parts if p[k] >= 0]
        firsts.append(min(hits) if hits else -1)
    return firsts[0], firsts[1], firsts[2], firsts[3], float(max(p[4] for p in parts))


