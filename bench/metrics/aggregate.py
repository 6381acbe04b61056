"""From kernel components to per-query metric values and their mean, under a profile.

Per query (``n`` documents, ``R`` relevant in the profile's IDCG basis, ``k' = min(k, n)``)::

    ndcg@k   = dcg@k / idcg@k               (0/0 when idcg = 0: profile.empty)
               letor4 (k_beyond_n="zero"): 0 when n < k
    map@k    = ap@k / min(R, k)   or  ap@k / R      (0/0 when R = 0: profile.empty)
    recall@k = hits@k / R                           (0/0 when R = 0: profile.empty)
    map@k    = ap@k / hits@k                        (map_denominator="hits_k": torchmetrics)
    p@k      = hits@k / k   or  hits@k / k'
    rprec    = hits@R / R,  bpref = bpref sum / R   (0/0 when R = 0: profile.empty)
    set_p    = hits / n,  set_recall = hits / R,  set_f = 2 hits / (n + R)   (whole list)
    dcg, mrr, err, hits: the component itself (0 on a query without relevant documents)

Blank queries (no relevant document; for ndcg, dcg and err: no document with a positive gain)
take the profile's ``empty`` value in ndcg, map and recall; the other metrics keep their natural
value there (0), except under ``empty=None``, which leaves blank queries out of every ranking
metric. The mean is ``sum w_q v_q / sum w_q`` over the queries with a value. LightGBM and XGBoost add a blank query's NDCG unweighted (``blank_ndcg_weight=
"one"``), and XGBoost clamps the NDCG mean to 1 (``clamp_ndcg_mean``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from bench.errors import DataError
from bench.metrics.components import Components, metric_cutoff
from bench.metrics.names import MetricSpec
from bench.metrics.profiles import Profile

_XGB_EPS = 1e-6  # XGBoost's kRtEps: Finalize's CHECK_LE(score, 1 + kRtEps)


def per_query_values(
    spec: MetricSpec, comps: Components, profile: Profile
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Values of one ranking metric per query, and which queries are blank for it.

    Blank queries hold the profile's ``empty`` value (NaN when it is ``None``) for the
    normalised metrics (ndcg, map, recall), and their natural value otherwise (NaN under
    ``empty=None``).
    """
    k = metric_cutoff(spec, profile.default_k)
    fam = spec.family
    no_gain = comps.blank_gain
    no_rel = comps.blank_rel
    f32 = profile.arithmetic_dtype == "float32"
    r = comps.r_basis
    n = comps.n.astype(np.float64)
    blank = no_rel
    if fam == "ndcg":
        blank = no_gain
        v = _ratio(comps.values[("dcg", k)], comps.values[("idcg", k)], f32)
        if profile.k_beyond_n == "zero" and k is not None:
            v[comps.n < k] = 0.0
    elif fam == "map":
        if profile.map_denominator == "hits_k":
            den = comps.values[("hits", k)]
        else:
            den = r if (profile.map_denominator == "r" or k is None) else np.minimum(r, float(k))
        v = _ratio(comps.values[("ap", k)], den, f32)
    elif fam in ("recall", "rprec", "bpref"):
        num = {"recall": ("hits", k), "rprec": ("rprec", None), "bpref": ("bpref", None)}[fam]
        v = _ratio(comps.values[num], r, f32)
    elif fam == "p":
        if k is not None and profile.precision_denominator == "k":
            v = _ratio(comps.values[("hits", k)], np.full(n.shape[0], float(k)), f32)
        else:
            v = _ratio(comps.values[("hits", k)], n if k is None else np.minimum(n, float(k)), f32)
    elif fam == "set_p":
        v = _ratio(comps.values[("hits", None)], n, f32)
    elif fam == "set_recall":
        v = _ratio(comps.values[("hits", None)], r, f32)
    elif fam == "set_f":
        # F1 = 2PR / (P + R) = 2 hits / (n + R) (trec_eval m_set_F.c with beta = 1)
        v = _ratio(2.0 * comps.values[("hits", None)], n + r, f32)
    else:
        comp = {"dcg": "dcg", "mrr": "rr", "err": "err", "hits": "any"}[fam]
        blank = no_gain if fam in ("dcg", "err") else no_rel
        v = comps.values[(comp, k)].copy()
        if f32:
            v = v.astype(np.float32).astype(np.float64)
    if spec.normalised:
        empty = profile.empty_for(fam)
        v[blank] = np.nan if empty is None else float(empty)
    elif profile.empty is None:
        # Excluding blank queries excludes them from every ranking metric, so that all the
        # metrics of one evaluation average the same queries.
        v[blank] = np.nan
    return v, blank


def _ratio(num: NDArray[np.float64], den: NDArray[np.float64], f32: bool = False) -> NDArray[np.float64]:
    """``num / den`` where ``den > 0``, else 0 (blank queries are filled by the caller);
    ``f32``: both rounded to float32 and divided in float32 (``arithmetic_dtype``)."""
    if f32:
        out32 = np.zeros(num.shape[0], dtype=np.float32)
        np.divide(num.astype(np.float32), den.astype(np.float32), out=out32, where=den > 0)
        return out32.astype(np.float64)
    out = np.zeros(num.shape[0], dtype=np.float64)
    np.divide(num, den, out=out, where=den > 0)
    return out


def weighted_mean(values: NDArray[np.float64], weights: NDArray[np.float64] | None,
                  f32: bool = False) -> float:
    """``sum w v / sum w`` over the entries that are not NaN (NaN if none); ``f32``: the
    unweighted mean accumulated in float32 (``torch.mean`` of float32 values)."""
    ok = ~np.isnan(values)
    if not ok.any():
        return float("nan")
    if weights is None:
        kept = values if ok.all() else values[ok]
        if f32:
            return float(np.mean(kept.astype(np.float32), dtype=np.float32))
        return float(np.mean(kept))
    w = weights[ok]
    total = float(np.sum(w))
    if total <= 0:
        return float("nan")
    return float(np.sum(values[ok] * w) / total)


def profile_mean(
    spec: MetricSpec,
    values: NDArray[np.float64],
    blank: NDArray[np.bool_],
    profile: Profile,
    weights: NDArray[np.float64] | None,
) -> float:
    """The mean as the profile's tool prints it (LightGBM/XGBoost quirks included)."""
    if (
        spec.family == "ndcg"
        and weights is not None
        and profile.blank_ndcg_weight == "one"
        and profile.empty is not None
    ):
        # LightGBM rank_metric.hpp:119-122, XGBoost rank_metric.cc:377-399: a blank query adds
        # `empty` to the weighted sum without its weight; the divisor is still sum of weights.
        num = float(np.sum(np.where(blank, 0.0, values * weights))) + profile.empty * int(blank.sum())
        mean = num / float(np.sum(weights))
    else:
        mean = weighted_mean(values, weights, profile.arithmetic_dtype == "float32")
    if spec.family == "ndcg" and profile.clamp_ndcg_mean and not np.isnan(mean):
        if mean > 1.0 + _XGB_EPS:
            raise DataError(
                f"{spec.name} = {mean:.6f} > 1 under profile {profile.name!r}: XGBoost refuses this "
                "('Invalid output score, might be caused by invalid query group weight'): its groups "
                "without relevant documents add an unweighted 1 to a weighted sum"
            )
        mean = min(mean, 1.0)
    return mean


#: Families for which "a blank query scores 1" is a meaningful alternative (best value 1).
SCORED_ONE_FAMILIES = frozenset({"ndcg", "map", "recall", "mrr", "hits"})


def blank_policy_means(
    values: NDArray[np.float64],
    blank: NDArray[np.bool_],
    weights: NDArray[np.float64] | None,
) -> tuple[float, float, float]:
    """Mean with blank queries excluded, scored 0 and scored 1 (plain weighting)."""
    excluded = weighted_mean(np.where(blank, np.nan, values), weights)
    as0 = weighted_mean(np.where(blank, 0.0, values), weights)
    as1 = weighted_mean(np.where(blank, 1.0, values), weights)
    return excluded, as0, as1


def pointwise(
    family: str,
    labels: NDArray[np.float64],
    scores: NDArray[np.float64],
    offsets: NDArray[np.int64],
    row_weights: NDArray[np.float64] | None,
) -> tuple[NDArray[np.float64], float, float]:
    """``rmse`` / ``mae`` per query (within the query), and the sums that give the value over all
    documents: ``(per_query, sum of (weighted) errors, sum of weights or rows)`` -- see
    :func:`pointwise_total`. Sums, not a mean, so that disjoint sets of queries combine."""
    err = scores - labels
    e = err * err if family == "rmse" else np.abs(err)
    sizes = np.diff(offsets)
    if row_weights is None:
        per_q = np.add.reduceat(e, offsets[:-1]) / sizes
        err_sum, weight_sum = float(np.add.reduce(e)), float(e.shape[0])
    else:
        per_q = np.add.reduceat(e * row_weights, offsets[:-1]) / np.add.reduceat(row_weights, offsets[:-1])
        err_sum, weight_sum = float(np.sum(e * row_weights)), float(np.sum(row_weights))
    return (np.sqrt(per_q) if family == "rmse" else per_q), err_sum, weight_sum


def pointwise_total(family: str, err_sum: float, weight_sum: float) -> float:
    """The value over all documents: ``sqrt(sum w e^2 / sum w)`` (rmse) or ``sum w |e| / sum w``
    (mae), unweighted when ``w`` = 1 per row."""
    total = err_sum / weight_sum
    return float(np.sqrt(total)) if family == "rmse" else total
