"""Per-query building blocks that the kernels compute and a family's formula finishes.

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
``rprec``  ``hits`` at the query's own cutoff ``min(R, k)`` (trec_eval Rprec, with ``-M k``)
``bpref``  trec_eval's bpref sum (whole list only; :mod:`bench.metrics.kernels.judged`)
=========  ===========================================================================

The components of :data:`RANKED` -- ``rprec``, ``bpref`` and those of
:mod:`bench.metrics.kernels.ranked` (``nonrel``, ``fall``, ``crr``, ``rprec_mult``, ``rbp``,
``rbp_residual``, ``iprec``, ``auc``, ``auc_pairs``, ``infap``) and of
:mod:`bench.metrics.kernels.pairs` (``arp``, ``arp_labels``, ``opa``, ``opa_pairs``) -- come from
:mod:`bench.metrics.kernels.judged` whatever the backend (after one sort of every query: a
vectorised NumPy pass over every query, or beside the compiled kernel their compiled twins,
:mod:`bench.metrics.kernels.numba_ranked`; exact under ``ties="average"`` where the sum is
linear in the ranking); the others from :mod:`bench.metrics.kernels.numba_kernel` or its oracle
:mod:`bench.metrics.kernels.numpy_kernel`. Which components a metric needs is said by its
family (:class:`bench.metrics.families.Family`); :func:`bench.metrics.components.build_request`
turns a list of metrics into a :class:`Request`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

#: Every component a kernel computes, in the order a :class:`Request` lists them.
COMPONENTS = ("dcg", "idcg", "hits", "ap", "rr", "err", "any", "rprec", "bpref", "nonrel", "fall",
              "crr", "rprec_mult", "rbp", "rbp_residual", "iprec", "auc", "auc_pairs", "infap",
              "arp", "arp_labels", "opa", "opa_pairs")
#: The components computed by :func:`bench.metrics.kernels.judged.judged_components` (both
#: backends: NumPy, or compiled twins), not by the per-query kernels.
RANKED = ("rprec", "bpref", "nonrel", "fall", "crr", "rprec_mult", "rbp", "rbp_residual", "iprec",
          "auc", "auc_pairs", "infap", "arp", "arp_labels", "opa", "opa_pairs")


def with_param(component: str, param: float | None) -> str:
    """The name of a component at a parameter: ``rbp`` at ``p = 0.8`` is ``"rbp=0.8"``
    (``None``: the component itself). A :class:`Request` and :class:`Components` key it so."""
    return component if param is None else f"{component}={param!r}"


def split_param(name: str) -> tuple[str, float | None]:
    """``"rbp=0.8"`` -> ``("rbp", 0.8)``; ``"hits"`` -> ``("hits", None)``."""
    base, sep, value = name.partition("=")
    return base, (float(value) if sep else None)


def ranked_request(request: Request) -> bool:
    """Whether ``request`` asks for a component of :data:`RANKED`."""
    return any(split_param(c)[0] in RANKED for c in request.ks)


@dataclass(frozen=True)
class Request:
    """Cutoffs wanted per component (``None`` = whole list), in first-asked order."""

    ks: dict[str, tuple[int | None, ...]]
    ties_k: int | None

    @property
    def needs_err(self) -> bool:
        return bool(self.ks.get("err"))


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
