"""Queries that have judgments but no scored document (``Profile.missing``).

Under ``missing="zero"`` (trec_eval ``-c``, ir_measures, ranx) such a query is evaluated like any
other with an empty ranking: every kernel component is 0, ``R`` and "has a positive gain" come
from its judgments, and :func:`bench.metrics.aggregate.per_query_values` turns that into values
exactly as for a scored query -- 0 in every metric, or the profile's ``empty`` value where the
query has no relevant judgment (``R = 0``). ``R`` is the judged relevant count whatever the
profile's IDCG basis (there is no list to count), so a query with relevant judgments is never
blank here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

import bench.metrics.aggregate as aggregate
from bench.metrics.components import Components, build_request
from bench.metrics.names import MetricSpec
from bench.metrics.profiles import Profile
from bench.metrics.query_parts import QueryParts


def missing_parts(
    query_ids: NDArray[Any],
    r_judged: NDArray[np.float64],
    has_gain: NDArray[np.bool_],
    specs: Sequence[MetricSpec],
    prof: Profile,
    *,
    ties_k: int | None,
    backend: str,
) -> QueryParts:
    """Per-query parts of queries without a scored document (see the module docstring).

    ``r_judged``: relevant judgments per query; ``has_gain``: whether a judgment has a positive
    gain (NDCG, DCG and ERR are blank without one).
    """
    n_q = int(query_ids.shape[0])
    request = build_request(specs, prof)
    comps = Components(
        n=np.zeros(n_q, dtype=np.int64), r_list=np.zeros(n_q), r_basis=r_judged.astype(np.float64),
        has_gain=has_gain.astype(bool), ties=np.zeros(n_q, dtype=bool),
    )
    for comp, ks in request.ks.items():
        for k in ks:
            comps.values[(comp, k)] = np.zeros(n_q)
    values: dict[str, NDArray[np.float64]] = {}
    blanks: dict[str, NDArray[np.bool_]] = {}
    sums: dict[str, tuple[float, float]] = {}
    for spec in specs:
        if spec.pointwise:
            values[spec.name] = np.full(n_q, np.nan)
            sums[spec.name] = (0.0, 0.0)
            continue
        values[spec.name], blanks[spec.name] = aggregate.per_query_values(spec, comps, prof)
    return QueryParts(
        query_ids=query_ids, values=values, blank=blanks, query_weights=None,
        has_gain=comps.has_gain, n=comps.n, ties=comps.ties, pointwise_sums=sums,
        n_documents=0, backend=backend, ties_k=ties_k,
    )

