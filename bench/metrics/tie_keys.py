"""A profile's tie rule as a sort key, and which kernel can apply the profile's AP ties.

:func:`tie_key` gives the integer key the kernels sort equal scores by (after the score) for
the rules that need one: ``random`` (a seeded permutation), ``row_desc`` (the higher row
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
        return np.random.default_rng(prof.tie_seed).permutation(n).astype(np.int64)
    if prof.ties == "row_desc":
        return -np.arange(n, dtype=np.int64)
    if prof.ties in ("docno_desc", "docno_asc"):
        sign = -1 if prof.ties == "docno_desc" else 1
        if prep.docno is None:
            return sign * np.arange(n, dtype=np.int64)
        _, inverse = np.unique(prep.docno.astype(str), return_inverse=True)
        return sign * inverse.astype(np.int64).ravel()
    return None


def needs_numpy_kernel(prof: Profile, request: Request) -> bool:
    """Whether ``request`` under ``prof`` is computed by the NumPy kernel only: AP with
    scikit-learn's tied thresholds (the label-table kernels average AP over tied orders)."""
    return prof.ap_ties == "threshold" and bool(request.ks.get("ap"))


__all__ = ["needs_numpy_kernel", "tie_key"]
