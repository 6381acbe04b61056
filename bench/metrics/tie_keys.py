"""A profile's tie rule as a sort key, and which kernel can apply the profile's AP ties.

:func:`tie_key` gives the integer key the kernels sort equal scores by (after the score) for
the rules that need one: ``random`` (a seeded order of each query's rows, drawn from the seed
and the row's place in its query only: :func:`random_tie_key`), ``row_desc`` (the higher row
first: scikit-learn ``ignore_ties=True``), ``docno_desc`` / ``docno_asc`` (document ids, byte
order: trec_eval, ir_measures' Judged). ``stable``, ``average``, ``pessimistic`` and
``optimistic`` need none (row order, or the gain). :func:`needs_numpy_kernel` says when only
the NumPy kernel computes what is asked: AP under ``ap_ties="threshold"`` (scikit-learn's
``average_precision_score``, :attr:`bench.metrics.profile.Profile.ap_ties`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from bench.metrics.components import Request
from bench.metrics.profile import Profile
from bench.metrics.validate import Prepared


def tie_key(prep: Prepared, prof: Profile) -> NDArray[np.int64] | None:
    """The sort key of ``prof.ties`` over ``prep``'s rows, or ``None`` (see the module)."""
    n = prep.labels.shape[0]
    if prof.ties == "random":
        return random_tie_key(prep.offsets, prof.tie_seed)
    if prof.ties == "row_desc":
        return -np.arange(n, dtype=np.int64)
    if prof.ties in ("docno_desc", "docno_asc"):
        sign = -1 if prof.ties == "docno_desc" else 1
        if prep.docno is None:
            return sign * np.arange(n, dtype=np.int64)
        _, inverse = np.unique(prep.docno.astype(str), return_inverse=True)
        return sign * inverse.astype(np.int64).ravel()
    return None


def _mix(x: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """SplitMix64's finalizer (Steele, Lea & Flood 2014), elementwise, wrapping modulo 2^64."""
    with np.errstate(over="ignore"):
        x = x + np.uint64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    out: NDArray[np.uint64] = x ^ (x >> np.uint64(31))
    return out


def random_tie_key(offsets: NDArray[np.int64], seed: int) -> NDArray[np.int64]:
    """``ties="random"``: each row's key is a hash of the seed and its place in its query, so a
    query's order of tied rows depends on that query and the seed only (one permutation drawn
    over every row made it depend on how many rows the queries before it had: the same query
    scored otherwise beside another). Keys are ranks, unique over all rows; only their order
    within a query is read. Vectorised: no loop over queries."""
    off = np.asarray(offsets, dtype=np.int64)
    n = int(off[-1]) if off.shape[0] else 0
    sizes = np.diff(off)
    query = np.repeat(np.arange(sizes.shape[0]), sizes)
    place = (np.arange(n, dtype=np.int64) - np.repeat(off[:-1], sizes)).astype(np.uint64)
    base = np.zeros(1, dtype=np.uint64)
    for chunk in range(max(1, -(-int(seed).bit_length() // 64))):  # any whole seed, 2**64 too
        base = _mix(base ^ np.uint64((int(seed) >> (64 * chunk)) & 0xFFFFFFFFFFFFFFFF))
    drawn = _mix(place ^ base[0])
    key = np.empty(n, dtype=np.int64)
    key[np.lexsort((drawn, query))] = np.arange(n, dtype=np.int64)
    return key


def needs_numpy_kernel(prof: Profile, request: Request) -> bool:
    """Whether ``request`` under ``prof`` is computed by the NumPy kernel only: AP with
    scikit-learn's tied thresholds (the label-table kernels average AP over tied orders)."""
    return prof.ap_ties == "threshold" and bool(request.ks.get("ap"))


__all__ = ["needs_numpy_kernel", "random_tie_key", "tie_key"]
