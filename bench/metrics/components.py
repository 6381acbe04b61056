"""Per-query building blocks that both kernels compute and :mod:`bench.metrics.aggregate` finishes.

A kernel never divides by a profile-dependent denominator: it returns sums that depend only on
the ranking (with the tie rule) and on the labels. Under ``ties="average"`` every sum is the
exact expected value over all orders of each tied group.

=========  ===========================================================================
component  per query, for cutoff ``k`` (``None`` = whole list), ``i < min(k, n)``
=========  ===========================================================================
``dcg``    ``sum g_i D(i)``
``idcg``   the same over the labels of the IDCG basis sorted by gain
``hits``   ``sum rel_i`` (relevant documents in the top k)
``ap``     ``sum rel_i * hits_i / (i + 1)`` (numerator of AP@k)
``rr``     ``sum rel_i / (i + 1) * prod_{j<i} (1 - rel_j)`` (reciprocal rank of the first hit)
``err``    ``sum R_i / (i + 1) * prod_{j<i} (1 - R_j)`` with ERR's stopping probabilities
``any``    ``sum rel_i * prod_{j<i} (1 - rel_j)`` (1 if the top k holds a relevant document)
``rprec``  ``hits`` at the query's own cutoff ``R`` (whole list only)
``bpref``  trec_eval's bpref sum (whole list only; :mod:`bench.metrics.kernels_judged`)
=========  ===========================================================================

``rprec`` and ``bpref`` come from :mod:`bench.metrics.kernels_judged` whatever the backend.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from bench.metrics.families import FAMILIES
from bench.metrics.names import MetricSpec
from bench.metrics.profile import Profile

COMPONENTS = ("dcg", "idcg", "hits", "ap", "rr", "err", "any", "rprec", "bpref")
#: Which components each metric family needs.
FAMILY_COMPONENTS: dict[str, tuple[str, ...]] = {
    "dcg": ("dcg",),
    "ndcg": ("dcg", "idcg"),
    "map": ("ap",),
    "mrr": ("rr",),
    "p": ("hits",),
    "recall": ("hits",),
    "err": ("err",),
    "hits": ("any",),
    "rprec": ("rprec",),
    "bpref": ("bpref",),
    "set_p": ("hits",),
    "set_recall": ("hits",),
    "set_f": ("hits",),
}


@dataclass(frozen=True)
class Request:
    """Cutoffs wanted per component (``None`` = whole list), in first-asked order."""

    ks: dict[str, tuple[int | None, ...]]
    ties_k: int | None

    @property
    def needs_err(self) -> bool:
        return bool(self.ks.get("err"))


def build_request(specs: Sequence[MetricSpec], profile: Profile) -> Request:
    """Cutoffs per component for these metrics under ``profile`` (a bare name gets its
    ``default_k``; families without a cutoff -- set_P, Rprec, bpref, ... -- are always over the
    whole list; under ``map_denominator="hits_k"`` AP also needs the hits at its cutoff)."""
    default_k = profile.default_k
    map_hits = profile.map_denominator == "hits_k"
    ks: dict[str, list[int | None]] = {c: [] for c in COMPONENTS}
    finite: list[int] = []
    uncut = False
    for spec in specs:
        if spec.pointwise:
            continue
        k = metric_cutoff(spec, default_k)
        if k is None:
            uncut = True
        else:
            finite.append(k)
        comps = FAMILY_COMPONENTS[spec.family]
        if map_hits and spec.family == "map":
            comps = (*comps, "hits")
        for comp in comps:
            if k not in ks[comp]:
                ks[comp].append(k)
    # The tie count covers the deepest cutoff asked: a whole-list metric (``map``) means the
    # whole list even beside ``ndcg@10``; ``None`` = whole list.
    ties_k = None if uncut else max(finite, default=None)
    return Request(ks={c: tuple(v) for c, v in ks.items() if v}, ties_k=ties_k)


def metric_cutoff(spec: MetricSpec, default_k: int | None) -> int | None:
    """The cutoff a metric is computed at: ``None`` (whole list) for the families without one,
    else its ``@k``, else the profile's ``default_k``."""
    if not FAMILIES[spec.family].cutoff:
        return None
    return spec.k if spec.k is not None else default_k


@dataclass
class Components:
    """What a kernel returns for ``Q`` queries.

    ``values[(component, k)]`` is a float64 array of length ``Q``.
    """

    n: NDArray[np.int64]
    r_list: NDArray[np.float64]
    r_basis: NDArray[np.float64]
    has_gain: NDArray[np.bool_]
    ties: NDArray[np.bool_]
    values: dict[tuple[str, int | None], NDArray[np.float64]] = field(default_factory=dict)

    @cached_property
    def blank_gain(self) -> NDArray[np.bool_]:
        """Queries whose ideal DCG is 0 (no document with a positive gain)."""
        return ~self.has_gain

    @cached_property
    def blank_rel(self) -> NDArray[np.bool_]:
        """Queries without a relevant document (in the IDCG basis)."""
        return self.r_basis <= 0
