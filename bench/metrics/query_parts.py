"""An evaluation before its means: per-query values of a set of whole queries, and how sets combine.

Every number :func:`bench.metrics.evaluate` reports is a function of per-query values (a metric's
value and blank flag, the query's weight, document count, tie flag) plus, for the pointwise
errors, two sums over documents. A :class:`QueryParts` holds exactly those for some queries. The
parts of disjoint sets of whole queries -- Dask partitions, files, chunks -- are concatenated in
query order by :func:`combine` and turned into the :class:`EvaluationResult` by :func:`summarise`,
the same function that :func:`evaluate` applies to the parts of all its queries at once. So a
distributed evaluation gives the single-process numbers: ranking metrics and every diagnostic
bit for bit (the same arrays reach the same reductions), ``rmse`` / ``mae`` to the last bits of
a float64 sum (partial sums added in another order; within 1e-15 relative).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

import bench.metrics.aggregate as aggregate
from bench.errors import ConfigError
from bench.metrics.diagnostics import Diagnostics, single_document_rule, tie_rule
from bench.metrics.families import FAMILIES
from bench.metrics.names import MetricSpec
from bench.metrics.profiles import Profile
from bench.metrics.result import EvaluationResult


@dataclass(frozen=True)
class QueryParts:
    """Per-query pieces of an evaluation of some whole queries (one entry per query, in order).

    Attributes:
        query_ids: the queries' ids.
        values: metric name -> value per query (NaN where undefined).
        blank: ranking metric name -> whether the query is blank for it (0/0).
        query_weights: weight per query, or ``None`` (all 1).
        has_gain: whether the query has a document with a positive gain.
        n: scored documents per query.
        ties: whether the query has tied scores in its top ``ties_k``.
        pointwise_sums: pointwise metric -> ``(sum of errors, sum of weights)`` over documents.
        n_documents: documents scored.
        backend: the kernel that computed them (``"numba"``, ``"python"`` or ``"numpy"``).
        ties_k: the cutoff of the tie count.
        mean_weights: ranking metric name -> the per-query weight its family's mean uses
            (``Family.weight``: GAUC, ARP, OPA), where it declares one; a part without an
            entry (queries the run misses) weighs 0 there.
    """

    query_ids: NDArray[Any]
    values: dict[str, NDArray[np.float64]]
    blank: dict[str, NDArray[np.bool_]]
    query_weights: NDArray[np.float64] | None
    has_gain: NDArray[np.bool_]
    n: NDArray[np.int64]
    ties: NDArray[np.bool_]
    pointwise_sums: dict[str, tuple[float, float]]
    n_documents: int
    backend: str
    ties_k: int | None
    mean_weights: dict[str, NDArray[np.float64]] = field(default_factory=dict)

    @property
    def n_queries(self) -> int:
        return int(self.query_ids.shape[0])


def combine(parts: Sequence[QueryParts]) -> QueryParts:
    """The parts of disjoint sets of whole queries as one, queries in the order given.

    Raises:
        ConfigError: no parts, or parts of different metric lists (not one evaluation).
    """
    if not parts:
        raise ConfigError("nothing to combine: no query parts (an empty dataset?)")
    if len(parts) == 1:
        return parts[0]
    first = parts[0]
    for p in parts[1:]:
        if list(p.values) != list(first.values) or p.ties_k != first.ties_k:
            raise ConfigError("query parts of different metric lists cannot be combined")
    weights = [p.query_weights for p in parts]
    if any(w is None for w in weights) and not all(w is None for w in weights):
        weights = [np.ones(p.n_queries) if w is None else w for p, w in zip(parts, weights, strict=True)]
    backends = sorted({p.backend for p in parts})
    return QueryParts(
        query_ids=np.concatenate([p.query_ids for p in parts]),
        values={k: np.concatenate([p.values[k] for p in parts]) for k in first.values},
        blank={k: np.concatenate([p.blank[k] for p in parts]) for k in first.blank},
        query_weights=None if weights[0] is None else np.concatenate(
            [w for w in weights if w is not None]),
        has_gain=np.concatenate([p.has_gain for p in parts]),
        n=np.concatenate([p.n for p in parts]),
        ties=np.concatenate([p.ties for p in parts]),
        pointwise_sums={k: (math.fsum(p.pointwise_sums[k][0] for p in parts),
                            math.fsum(p.pointwise_sums[k][1] for p in parts))
                        for k in first.pointwise_sums},
        n_documents=sum(p.n_documents for p in parts),
        backend="+".join(backends),
        ties_k=first.ties_k,
        mean_weights={k: np.concatenate([p.mean_weights.get(k, np.zeros(p.n_queries))
                                         for p in parts])
                      for k in dict.fromkeys(k for p in parts for k in p.mean_weights)},
    )


def take(parts: QueryParts, order: NDArray[np.int64]) -> QueryParts:
    """The same parts with the queries in the order ``order`` (a permutation of the queries)."""
    return QueryParts(
        query_ids=parts.query_ids[order],
        values={k: v[order] for k, v in parts.values.items()},
        blank={k: v[order] for k, v in parts.blank.items()},
        query_weights=None if parts.query_weights is None else parts.query_weights[order],
        has_gain=parts.has_gain[order], n=parts.n[order], ties=parts.ties[order],
        pointwise_sums=parts.pointwise_sums, n_documents=parts.n_documents,
        backend=parts.backend, ties_k=parts.ties_k,
        mean_weights={k: v[order] for k, v in parts.mean_weights.items()},
    )


def id_order(query_ids: NDArray[Any]) -> NDArray[np.int64] | None:
    """The order in which a mean adds the queries up: by query id, numbers by value, an id
    written as a whole number (``"9"``) as that number, so ``9`` and ``"9"`` sort alike on every
    input path, other text after them in code-point order; ``None`` when the queries already
    come in that order. A mean (a float sum) moved in its last bit with the order of its terms,
    so the same rows with their queries in another order (a LETOR file, a frame, Dask
    partitions) gave other bits; ids in ascending order (a LETOR file as published) keep the
    bits they had."""
    n = query_ids.shape[0]
    if n < 2:
        return None
    if query_ids.dtype.kind in "iuf":
        order = np.argsort(query_ids, kind="stable")
    else:
        texts = query_ids.astype(str)
        written_whole = _whole_numbers(texts)
        whole, other = np.flatnonzero(written_whole), np.flatnonzero(~written_whole)
        order = np.concatenate([whole[_by_value(texts[whole])],
                                other[np.argsort(texts[other], kind="stable")]])
    order = order.astype(np.int64, copy=False)
    return None if bool(np.all(order == np.arange(n))) else order


#: The most digits a text id sorts by its value with (longer digit strings sort as text).
_MOST_DIGITS = 30


def _whole_numbers(texts: NDArray[np.str_]) -> NDArray[np.bool_]:
    """Which ids are written as whole numbers: an optional ``-`` and 1 to :data:`_MOST_DIGITS`
    ASCII digits (``-?[0-9]{1,30}``), read from the strings' code points at once."""
    n = texts.shape[0]
    width = texts.dtype.itemsize // 4
    if width == 0:
        return np.zeros(n, dtype=bool)
    codes = np.ascontiguousarray(texts).view(np.uint32).reshape(n, width)
    used = codes != 0
    minus = codes[:, 0] == ord("-")
    digit = (codes >= ord("0")) & (codes <= ord("9"))
    ok = digit | ~used
    ok[:, 0] |= minus
    contiguous = ~(used[:, 1:] & ~used[:, :-1]).any(axis=1)  # no code point after a NUL
    n_digits = used.sum(axis=1) - minus
    whole: NDArray[np.bool_] = ok.all(axis=1) & contiguous & (n_digits >= 1) & (n_digits <= _MOST_DIGITS)
    return whole


def _by_value(texts: NDArray[np.str_]) -> NDArray[np.int64]:
    """The order of whole-number ids: by value, then as text (``007`` before ``7``), stable."""
    try:  # every one within int64: one vectorised sort
        return np.lexsort((texts, texts.astype(np.int64))).astype(np.int64)
    except (ValueError, OverflowError):  # up to 30 digits: Python integers (rare)
        keys = [(int(t), t) for t in texts.tolist()]
        return np.asarray(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.int64)


def summarise(parts: QueryParts, specs: Sequence[MetricSpec], prof: Profile, *,
              per_query: bool = False) -> EvaluationResult:
    """The means under the profile's conventions, the diagnostics and (``per_query``) the table
    (its rows in the order the queries came in). The means add the queries up in the order of
    their ids (:func:`id_order`)."""
    order = id_order(parts.query_ids)
    shown, parts = parts, (parts if order is None else take(parts, order))
    means: dict[str, float] = {}
    excl: dict[str, float] = {}
    as0: dict[str, float] = {}
    as1: dict[str, float] = {}
    n_blank: dict[str, int] = {}
    wq = parts.query_weights
    for spec in specs:
        v = parts.values[spec.name]
        if spec.pointwise:
            means[spec.name] = aggregate.pointwise_total(spec.family, *parts.pointwise_sums[spec.name])
            continue
        blank = parts.blank[spec.name]
        n_blank[spec.name] = int(blank.sum())
        mw = parts.mean_weights.get(spec.name)
        w = None if spec.family in prof.unweighted_families else wq  # CatBoost's MAP
        means[spec.name] = aggregate.profile_mean(spec, v, blank, prof, w, parts.n, mw)
        if blank.any():
            e, a0, a1 = aggregate.blank_policy_means(v, blank, w, spec.family, parts.n, mw)
            excl[spec.name], as0[spec.name] = e, a0
            if FAMILIES[spec.family].blank_scores_one:
                as1[spec.name] = a1
    single_document_rule(parts.query_ids, parts.n,
                         [(s.name, s.family) for s in specs if not s.pointwise], prof)
    tie_rule(parts.query_ids, parts.ties, parts.ties_k, prof)
    policy = {None: "excluded", 0.0: "scored 0", 1.0: "scored 1"}[prof.empty]
    diag = Diagnostics(
        n_queries=parts.n_queries,
        n_documents=parts.n_documents,
        n_blank=int((~parts.has_gain).sum()),
        n_single_document=int(np.sum(parts.n == 1)),
        n_queries_with_ties_in_topk=int(parts.ties.sum()),
        ties_k=parts.ties_k,
        blank_policy=policy,
        backend=parts.backend,
        mean_blank_excluded=excl,
        mean_blank_as_0=as0,
        mean_blank_as_1=as1,
        blank_by_metric=n_blank,
    )
    table = None
    if per_query:  # pandas only where a table is asked for
        import pandas as pd

        table = pd.DataFrame({"qid": shown.query_ids, **shown.values})
    return EvaluationResult(metrics=means, diagnostics=diag, per_query=table, profile=prof,
                            metric_n_queries=_counted(parts, specs),
                            metric_weights=_mean_weights(shown, specs) if per_query else {})


def _counted(parts: QueryParts, specs: Sequence[MetricSpec]) -> dict[str, int]:
    """How many queries each ranking metric's mean is taken over: those with a value (a blank
    query the profile leaves out, ``empty=None``, holds NaN and is not counted, so the count
    says what the mean divides by); a pointwise metric counts every query."""
    return {s.name: parts.n_queries if s.pointwise
            else int(np.count_nonzero(~np.isnan(parts.values[s.name]))) for s in specs}


def _mean_weights(parts: QueryParts, specs: Sequence[MetricSpec]) -> dict[str, NDArray[np.float64]]:
    """Each query's weight in the mean of the metrics whose mean is weighted by the family
    (``Family.weight``, or the documents of ``mean="documents"``), as
    :func:`bench.metrics.aggregate.family_mean` weighs them (the query weights aside)."""
    out: dict[str, NDArray[np.float64]] = {}
    for spec in specs:
        mw = parts.mean_weights.get(spec.name)
        if mw is None and FAMILIES[spec.family].mean == "documents":
            mw = parts.n.astype(np.float64)
        if mw is not None and not spec.pointwise:
            out[spec.name] = np.asarray(mw, dtype=np.float64)
    return out


__all__ = ["QueryParts", "combine", "summarise"]
