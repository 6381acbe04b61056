"""Components that need the judged documents or a per-query cutoff (both backends).

R-precision, bpref and the components of :mod:`bench.metrics.kernels.ranked` are sums over a
ranking with a per-query cutoff or count, or over judged documents. They are computed here after
one sort of every query (with group offsets, as :mod:`bench.metrics.kernels.numpy_kernel`),
whichever backend computed the other components: by their vectorised NumPy pass, or, next to the
compiled kernel, by their compiled twins (:mod:`bench.metrics.kernels.numba_ranked`: one pass per
query over that order), as the record of each (:data:`KERNELS`) says (bpref and ``nonrel``, a
count, have no twin). The two sums held here:

``rprec``  ``sum_{i < min(R, k)} rel_i``: relevant documents in the top ``R`` (trec_eval
           ``m_Rprec.c``; at a cutoff ``k``, trec_eval with ``-M k``: the run cut at ``k``)
``bpref``  ``sum over relevant retrieved d of 1 - min(N_d, R) / min(N, R)`` (0/0 read as 1), with
           ``N_d`` the judged non-relevant documents ranked above ``d`` and ``N`` all judged
           non-relevant documents of the query (trec_eval ``m_bpref.c``; Buckley & Voorhees,
           SIGIR 2004). Unjudged documents are skipped.

Under ``ties="average"`` both are exact expectations over every order of each tied group: the
expected relevance at a position is the group's mean, and a relevant document of a group holding
``b`` judged non-relevant ones has ``X`` of them above it with ``X`` uniform on ``0..b``, so its
expected term is ``1 - sum_{x=0..b} min(N0 + x, R) / ((b + 1) min(N, R))`` (``N0``: judged
non-relevant documents of earlier groups), summed in closed form.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import numpy as np
from numpy.typing import NDArray

import bench.metrics.kernels.pairs as pairs
import bench.metrics.kernels.ranked as ranked
from bench.data.groups import group_index
from bench.metrics.kernels.components import Request, split_param
from bench.metrics.kernels.numpy_kernel import rank_order


@dataclass(frozen=True)
class RankedKernel:
    """How one component of :data:`~bench.metrics.kernels.components.RANKED` is computed.

    Attributes:
        numpy: its vectorised sum over every query (:class:`_Pass`, the parameter, the cutoff).
        twin: it has a compiled twin in :mod:`bench.metrics.kernels.numba_ranked`
            (``backend="numba"`` takes it).
        twin_default: ``backend="auto"`` takes the twin when the compiled kernel computes the
            other components: only where it was measured faster (``ltrbench perf ranked``).
    """

    numpy: Callable[[_Pass, float | None, int | None], NDArray[np.float64]]
    twin: bool = False
    twin_default: bool = False


def judged_components(
    rel: NDArray[np.float64],
    nonrel: NDArray[np.float64],
    gain: NDArray[np.float64],
    scores: NDArray[np.float64],
    offsets: NDArray[np.int64],
    *,
    ties: str,
    tiekey: NDArray[np.int64] | None,
    r_basis: NDArray[np.float64],
    n_nonrel: NDArray[np.float64],
    request: Request,
    unjudged: NDArray[np.bool_] | None = None,
    pooled: NDArray[np.bool_] | None = None,
    backend: str = "numpy",
    threads: int | None = None,
    order: NDArray[np.int64] | None = None,
    labels: NDArray[np.float64] | None = None,
    pair_ties: str = "rank",
) -> dict[tuple[str, int | None], NDArray[np.float64]]:
    """The components of :data:`~bench.metrics.kernels.components.RANKED` that ``request``
    asks for, keyed as :class:`~bench.metrics.kernels.components.Components` keys them
    (``(name, k)``; see the module docstring and :mod:`bench.metrics.kernels.ranked`).

    ``rel`` (0/1) and ``nonrel`` (1 = judged and not relevant) are per row, ``scores`` already
    rounded as the profile says, ``r_basis`` = R and ``n_nonrel`` = N per query, ``unjudged``
    per row (``None``: every row judged), ``pooled`` per row: a negative judgment (in the pool,
    unjudged; infAP). ``backend``: ``"numba"`` computes every component with a compiled twin
    there (:data:`KERNELS`' ``twin``), ``"auto"`` those whose twin is the default
    (``twin_default``), ``"numpy"`` / ``"python"`` none (numba is not imported); ``threads``
    for the compiled twins as in :func:`bench.metrics.kernels.numba_kernel.numba_components`;
    ``order``: the rows in ranking order when the caller has it (else sorted here, ``rank_order``);
    ``labels``, ``pair_ties``: ARP, OPA (:mod:`bench.metrics.kernels.pairs`).
    """
    gidx = group_index(offsets)
    wanted = {n: ks for n, ks in request.ks.items() if split_param(n)[0] in KERNELS}
    use_twin = _TWIN_RULE[backend]
    twins = {n: ks for n, ks in wanted.items() if use_twin(KERNELS[split_param(n)[0]])}
    out: dict[tuple[str, int | None], NDArray[np.float64]] = {}
    n_rows = scores.shape[0]
    if twins:
        import bench.metrics.kernels.numba_ranked as compiled
        from bench.metrics.kernels.numba_kernel import MODES

        if order is None:  # each query sorted on its own, compiled: rank_order's order
            order = compiled.rank_order(scores, gain, offsets, MODES[ties], tiekey, threads)
        zeros = np.zeros(n_rows)
        rows = {"rel": rel, "non": nonrel,
                "unj": zeros if unjudged is None else unjudged.astype(np.float64),
                "pool": zeros if pooled is None else pooled.astype(np.float64)}
        out.update(compiled.ranked_components(
            order, scores, offsets, rows, r_basis=r_basis, average=ties == "average", ks=twins,
            eps=ranked.INFAP_EPSILON, threads=threads))
    rest = {n: ks for n, ks in wanted.items() if n not in twins}
    if rest:
        if order is None:
            order = rank_order(gidx, scores, gain, ties, tiekey)
        ps = _Pass.build(rel, nonrel, scores, offsets, gidx, order, ties, r_basis, n_nonrel,
                         unjudged, pooled)
        ps.pairs = _PairInputs(tuple(rest), None if labels is None else labels[order], ties,
                               pair_ties)
        for name, ks in rest.items():
            base, param = split_param(name)
            for k in ks:
                out[(name, k)] = KERNELS[base].numpy(ps, param, k)
    return out


@dataclass
class _Pass:
    """Every query's rows in ranking order, as the NumPy sums read them."""

    lay: ranked.Layout
    rs: NDArray[np.float64]
    ns: NDArray[np.float64]
    ss: NDArray[np.float64]
    starts: NDArray[np.int64]
    sizes: NDArray[np.int64]
    grp: NDArray[np.int64]
    r_basis: NDArray[np.float64]
    n_nonrel: NDArray[np.float64]
    auc: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None
    pairs: _PairInputs | None = None

    @classmethod
    def build(cls, rel: NDArray[np.float64], nonrel: NDArray[np.float64],
              scores: NDArray[np.float64], offsets: NDArray[np.int64], gidx: NDArray[np.int64],
              order: NDArray[np.int64], ties: str, r_basis: NDArray[np.float64],
              n_nonrel: NDArray[np.float64], unjudged: NDArray[np.bool_] | None,
              pooled: NDArray[np.bool_] | None) -> _Pass:
        n_rows = scores.shape[0]
        ss = scores[order]
        rs = rel[order]
        ns = nonrel[order]
        if ties == "average":
            new = np.ones(n_rows, dtype=bool)
            if n_rows > 1:
                new[1:] = (gidx[1:] != gidx[:-1]) | (ss[1:] != ss[:-1])
            starts = np.flatnonzero(new)
        else:
            starts = np.arange(n_rows, dtype=np.int64)
        sizes = np.diff(np.append(starts, n_rows))
        grp = np.repeat(np.arange(starts.shape[0], dtype=np.int64), sizes)
        pos0 = np.arange(n_rows, dtype=np.int64) - offsets[gidx]

        def mean_of_group(v: NDArray[np.float64]) -> NDArray[np.float64]:
            return (np.bincount(grp, weights=v, minlength=starts.shape[0]) / sizes)[grp]

        us = np.zeros(n_rows) if unjudged is None else unjudged[order].astype(np.float64)
        ps = np.zeros(n_rows) if pooled is None else pooled[order].astype(np.float64)
        lay = ranked.Layout(gidx=gidx, pos0=pos0, rel=mean_of_group(rs), non=mean_of_group(ns),
                            unj=mean_of_group(us), offsets=offsets, pool=ps)
        return cls(lay, rs, ns, ss, starts, sizes, grp, r_basis, n_nonrel)

    def rprec(self, k: int | None) -> NDArray[np.float64]:
        cut = self.r_basis if k is None else np.minimum(self.r_basis, float(k))
        lay = self.lay
        return lay.per_query(np.where(lay.pos0 < cut[lay.gidx], lay.rel, 0.0))

    def bpref(self) -> NDArray[np.float64]:
        return _bpref(self.rs, self.ns, self.starts, self.sizes, self.grp,
                      self.lay.gidx[self.starts], self.lay.offsets, self.r_basis, self.n_nonrel)

    def auc_sums(self, pairs: bool) -> NDArray[np.float64]:
        lay = self.lay  # every non-relevant row counts
        self.auc = self.auc or ranked.auc_sums(lay.gidx, self.ss, self.rs, 1.0 - self.rs,
                                               lay.offsets)
        return self.auc[1] if pairs else self.auc[0]

    def pair_sum(self, name: str) -> NDArray[np.float64]:
        """ARP's and OPA's sums (:func:`bench.metrics.kernels.pairs.pair_values`), every
        one asked for computed once."""
        p = self.pairs
        assert p is not None, "ARP and OPA need their inputs"
        assert p.labels is not None, "ARP and OPA need the labels"
        if p.sums is None:
            p.sums = pairs.pair_values(p.names, self.lay.gidx, self.ss, p.labels,
                                       self.lay.offsets, p.ties, p.pair_ties)
        return p.sums[name]


@dataclass
class _PairInputs:
    """What ARP and OPA read beyond the ranking: the components asked for, the labels in
    ranking order, the tie rule and the OPA tie rule; their sums once computed."""

    names: tuple[str, ...]
    labels: NDArray[np.float64] | None
    ties: str
    pair_ties: str
    sums: dict[str, NDArray[np.float64]] | None = None


_Array = NDArray[np.float64]


def _param(p: float | None) -> float:
    assert p is not None, "a parameterised component without its parameter"
    return p


def _pair_sum(name: str) -> Callable[[_Pass, float | None, int | None], NDArray[np.float64]]:
    """The NumPy sum of ARP / OPA component ``name`` (one pass for all of them)."""
    return lambda ps, p, k: ps.pair_sum(name)


#: Each component of :data:`~bench.metrics.kernels.components.RANKED`: its NumPy sum and whether
#: a compiled twin exists and is the default (the record :func:`judged_components` reads).
#: ``twin_default`` from :mod:`bench.perf.ranked` (2M documents, 100k queries, 2 cores at load
#: average 15-25, in turns): end to end (the compiled per-query sort against ``np.lexsort``) the
#: twins took 0.03-0.07x the NumPy path's time under docno_desc ties, 0.10-0.19x under average
#: ties; the components alone (one order given to both) 0.07-0.26x: every twin is faster, every
#: one is the default.
KERNELS: dict[str, RankedKernel] = {
    "rprec": RankedKernel(lambda ps, p, k: ps.rprec(k), twin=True, twin_default=True),
    "bpref": RankedKernel(lambda ps, p, k: ps.bpref()),
    "nonrel": RankedKernel(lambda ps, p, k: ps.n_nonrel.astype(np.float64)),
    "fall": RankedKernel(lambda ps, p, k: ranked.fall(ps.lay, k), twin=True, twin_default=True),
    "crr": RankedKernel(lambda ps, p, k: ranked.crr(ps.lay, k), twin=True, twin_default=True),
    "rprec_mult": RankedKernel(lambda ps, p, k: ranked.rprec_mult(ps.lay, ps.r_basis, _param(p)),
                               twin=True, twin_default=True),
    "iprec": RankedKernel(lambda ps, p, k: ranked.iprec(ps.lay, ps.r_basis, _param(p)),
                          twin=True, twin_default=True),
    "rbp": RankedKernel(lambda ps, p, k: ranked.rbp(ps.lay, _param(p), k), twin=True,
                        twin_default=True),
    "rbp_residual": RankedKernel(lambda ps, p, k: ranked.rbp_residual(ps.lay, _param(p), k),
                                 twin=True, twin_default=True),
    "infap": RankedKernel(lambda ps, p, k: ranked.infap(ps.lay), twin=True, twin_default=True),
    "auc": RankedKernel(lambda ps, p, k: ps.auc_sums(False), twin=True, twin_default=True),
    "auc_pairs": RankedKernel(lambda ps, p, k: ps.auc_sums(True), twin=True, twin_default=True),
    **{name: RankedKernel(_pair_sum(name)) for name in pairs.PAIR_COMPONENTS},
}
#: Which records' twins a backend takes (:func:`judged_components`).
_TWIN_RULE: dict[str, Callable[[RankedKernel], bool]] = {
    "numba": lambda rec: rec.twin,
    "auto": lambda rec: rec.twin and rec.twin_default,
    "numpy": lambda rec: False,
    "python": lambda rec: False,
}


def _bpref(rs: NDArray[np.float64], ns: NDArray[np.float64], starts: NDArray[np.int64],
           sizes: NDArray[np.int64], grp: NDArray[np.int64], gq: NDArray[np.int64],
           offsets: NDArray[np.int64], r_basis: NDArray[np.float64],
           n_nonrel: NDArray[np.float64]) -> NDArray[np.float64]:
    """trec_eval's bpref sum per query, tied groups in closed form (module docstring)."""
    n_rows = rs.shape[0]
    a = np.bincount(grp, weights=rs, minlength=starts.shape[0])
    b = np.bincount(grp, weights=ns, minlength=starts.shape[0])
    cum = np.zeros(n_rows + 1, dtype=np.float64)
    np.cumsum(ns, out=cum[1:])
    n0 = cum[starts] - cum[offsets[gq]]
    r = r_basis[gq]
    d = np.minimum(n_nonrel[gq], r)
    c = np.clip(r - n0 + 1.0, 0.0, b + 1.0)
    s = c * n0 + c * (c - 1.0) / 2.0 + (b + 1.0 - c) * r
    term = np.ones(starts.shape[0], dtype=np.float64)
    np.subtract(1.0, s / ((b + 1.0) * np.where(d > 0, d, 1.0)), out=term, where=d > 0)
    return cast(NDArray[np.float64],
                np.bincount(gq, weights=a * term, minlength=offsets.shape[0] - 1))
