"""From kernel components to per-query metric values and their mean, under a profile.

Each family's formula, components and blank rule are its record in :mod:`bench.metrics.families`;
:func:`per_query_values` applies them. Blank queries (no relevant document; for ndcg, dcg and
err: no document with a positive gain) take the profile's ``empty`` value in the normalised
families (ndcg, map, recall, ...); the other metrics keep their natural value there (0), except
under ``empty=None``, which leaves blank queries out of every ranking metric but the counts
(``num_ret``, ``num_rel``, ``num_rel_ret``: summed over every query). The mean is
``sum w_q v_q / sum w_q`` over the queries with a value. LightGBM and XGBoost add a blank
query's NDCG unweighted (``blank_ndcg_weight="one"``), and XGBoost clamps the NDCG mean to 1
(``clamp_ndcg_mean``). The per-query values come in the order of their query ids
(:func:`bench.metrics.query_parts.id_order`), so a mean does not depend on the order the
queries came in; the pointwise metrics' sums over rows are exactly rounded (:func:`exact_sum`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
from numpy.typing import NDArray

from bench.errors import ConfigError, DataError
from bench.metrics.components import metric_cutoff
from bench.metrics.families import FAMILIES, Inputs
from bench.metrics.kernels.components import Components, split_param
from bench.metrics.more_families import geo_term
from bench.metrics.names import MetricSpec
from bench.metrics.profiles import Profile

_XGB_EPS = 1e-6  # XGBoost's kRtEps: Finalize's CHECK_LE(score, 1 + kRtEps)
_UNIT_TOL = 1e-9  # rounding of a value in [0, 1] (an NDCG of 1.0000000000000002)


def exact_sum(values: NDArray[np.float64]) -> float:
    """The sum of ``values``, exactly rounded (``math.fsum``): the same bits in any order of the
    terms (rows), where NumPy's pairwise sum moves the last bit when the rows come in another order."""
    terms = np.asarray(values, dtype=np.float64).ravel().tolist()
    try:
        return math.fsum(terms)
    except OverflowError:  # "intermediate overflow": the sum is beyond float64, said by callers
        return math.copysign(math.inf, math.fsum(math.copysign(1.0, t) for t in terms))


def per_query_values(
    spec: MetricSpec, comps: Components, profile: Profile
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Values of one ranking metric per query, and which queries are blank for it.

    The family's formula (``Family.finish``) on its components at the metric's cutoff; blank
    queries hold the profile's ``empty`` value (NaN when it is ``None``) for the normalised
    families, and their natural value otherwise (NaN under ``empty=None``).
    """
    fam = FAMILIES[spec.family]
    if fam.finish is None:
        raise ConfigError(f"{spec.name} is not a ranking metric (no per-query formula)")
    inputs = _inputs(spec, comps, profile)
    _refuse_overflow(spec, inputs.comp)
    blank = _blank(fam.blank_when, inputs, comps)
    v = _finished(spec, fam.finish(inputs), blank)
    if fam.mean == "documents":
        v[blank] = np.nan  # GAUC: a query with one class is left out whatever the profile
    elif spec.normalised:
        empty = profile.empty_for(spec.family)
        v[blank] = np.nan if empty is None else float(empty)
    elif profile.empty is None and fam.mean != "sum":
        # Excluding blank queries excludes them from every ranking metric, so that all the
        # metrics of one evaluation average the same queries; a count (num_ret, ...) is a sum
        # over every query, not an average, and keeps them.
        v[blank] = np.nan
    return v, blank


def _finished(spec: MetricSpec, raw: object, blank: NDArray[np.bool_]) -> NDArray[np.float64]:
    """What a family's formula returned, as a new float64 array (never one of the components,
    which other metrics of the call read), checked against its record: one finite value per
    query, NaN only on the blank queries, within [0, 1] where it declares ``unit_interval``."""
    fam = FAMILIES[spec.family]
    n = blank.shape[0]
    what = f"{spec.name}: the formula of family {fam.name!r} (Family.finish)"
    try:
        v = np.array(raw, dtype=np.float64)
    except (TypeError, ValueError):
        v = np.zeros((0, 0))
    if v.shape != (n,):
        shape = getattr(raw, "shape", None)
        raise ConfigError(f"{what} returned {type(raw).__name__}"
                          f"{'' if shape is None else f' of shape {shape}'}; expected one value per "
                          f"query, an array of shape ({n},)")
    for bad, said in ((np.isinf(v), "infinite"), (np.isnan(v) & ~blank, "NaN")):
        if bad.any():
            k = int(bad.sum())
            raise ConfigError(f"{what} is {said} on {k} quer{'y' if k == 1 else 'ies'} of {n} that "
                              "are not blank (its components are finite): a division by zero? "
                              "Inputs.ratio gives 0 where the denominator is 0; the blank queries "
                              "are the record's blank_when")
    out = ~blank & ((v < -_UNIT_TOL) | (v > 1.0 + _UNIT_TOL))
    if fam.unit_interval and out.any():
        raise ConfigError(f"{what} gave {float(v[int(out.argmax())])!r} on a query, where the "
                          "record declares unit_interval=True (every value in [0, 1])")
    return v


def _refuse_overflow(spec: MetricSpec, arrays: Mapping[str, NDArray[np.float64]]) -> None:
    """A DataError when a per-query sum is infinite: labels near 1e308 under a linear gain make
    the ideal DCG ``inf``, and NDCG ``x / inf`` = 0 (or ``inf / inf`` NaN) would be printed as a
    number. No metric's component is infinite on finite input that fits a float64."""
    for name, arr in arrays.items():
        bad = np.isinf(arr)
        if bad.any():
            raise DataError(f"{spec.name}: its {name} is infinite on {int(bad.sum())} of "
                            f"{arr.shape[0]} queries: the labels' gains overflow a float64 "
                            "(labels near 1e308 under a linear gain); rescale the labels")


def _inputs(spec: MetricSpec, comps: Components, profile: Profile) -> Inputs:
    """What the family's formula reads for ``spec``: its components at its cutoff and param."""
    fam = FAMILIES[spec.family]
    k = metric_cutoff(spec, profile.default_k)
    param = family_param(spec)
    return Inputs(comp={split_param(c)[0]: comps.values[(c, k)]
                        for c in fam.components_for(profile, param)},
                  n=comps.n.astype(np.float64), r=comps.r_basis, k=k, profile=profile,
                  r_list=comps.r_list, param=param)


def mean_weight(spec: MetricSpec, comps: Components, profile: Profile) -> NDArray[np.float64] | None:
    """The per-query weight of the metric's mean its family declares (``Family.weight``: GAUC's
    documents or relevant documents, ARP's and OPA's denominators), or ``None``."""
    fam = FAMILIES[spec.family]
    return None if fam.weight is None else fam.weight(_inputs(spec, comps, profile))


def family_param(spec: MetricSpec) -> float | None:
    """The parameter a metric is computed at: its own, else its family's default."""
    fam = FAMILIES[spec.family]
    if fam.param is None:
        return None
    return spec.param if spec.param is not None else fam.param.default


def _blank(rule: str, inputs: Inputs, comps: Components) -> NDArray[np.bool_]:
    if rule == "no_gain":
        return comps.blank_gain
    if rule == "no_nonrelevant":
        return np.asarray(inputs.comp["nonrel"] <= 0)
    if rule == "one_class":
        return np.asarray(inputs.comp["auc_pairs"] <= 0)
    if rule == "no_label":
        return np.asarray(inputs.comp["arp_labels"] <= 0)
    if rule == "no_pair":
        return np.asarray(inputs.comp["opa_pairs"] <= 0)
    return comps.blank_rel


def family_mean(family: str, values: NDArray[np.float64], weights: NDArray[np.float64] | None,
                n: NDArray[np.int64] | None = None, f32: bool = False,
                mw: NDArray[np.float64] | None = None) -> float:
    """The mean of a family's per-query values as its ``Family.mean`` says: the weighted mean,
    the sum (counts; NaN entries left out, weights ignored), ``exp`` of the weighted mean
    (``gm_map``: the values are logarithms), or the mean weighted by the document counts ``n``
    (GAUC). ``mw``: the family's own per-query weights (``Family.weight``, :func:`mean_weight`),
    which replace ``n`` (GAUC) or multiply the query weights. See
    :mod:`bench.metrics.more_families`."""
    how = FAMILIES[family].mean
    if mw is not None and how in ("mean", "documents"):
        both = mw if weights is None or how == "documents" else mw * weights
        return weighted_mean(values, both)
    if how == "sum":
        ok = ~np.isnan(values)
        return float(np.sum(values[ok])) if ok.any() else float("nan")
    if how == "geometric":
        return float(np.exp(weighted_mean(values, weights)))
    if how == "documents":
        assert n is not None
        return weighted_mean(values, n.astype(np.float64))
    return weighted_mean(values, weights, f32)


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
    w, _ = two_scaled(weights[ok])
    total = float(np.sum(w))
    if total <= 0:
        return float("nan")
    return float(np.sum(values[ok] * w) / total)


def two_scaled(weights: NDArray[np.float64]) -> tuple[NDArray[np.float64], int]:
    """``(weights / 2^e, e)`` for the power of two 2^e at or above the largest weight: a ratio
    of sums of them is the weights' own, exactly (the same bits for ordinary weights), but
    weights of 1e308 no longer sum to inf (the mean printed 0 or NaN) and subnormal weights
    (5e-324) no longer lose their ratio in the products ``w * value`` (NDCG printed 1.0)."""
    top = float(np.max(weights)) if weights.shape[0] else 0.0
    if not 0 < top < np.inf:
        return weights, 0
    e = int(np.frexp(top)[1])
    return np.ldexp(weights, -e), e


def profile_mean(
    spec: MetricSpec,
    values: NDArray[np.float64],
    blank: NDArray[np.bool_],
    profile: Profile,
    weights: NDArray[np.float64] | None,
    n: NDArray[np.int64] | None = None,
    mw: NDArray[np.float64] | None = None,
) -> float:
    """The mean as the profile's tool prints it (LightGBM/XGBoost quirks included; a family
    averaged otherwise than by the mean: :func:`family_mean`, ``n`` the document counts)."""
    if (
        spec.family == "ndcg"
        and weights is not None
        and profile.blank_ndcg_weight == "one"
        and profile.empty is not None
    ):
        # LightGBM rank_metric.hpp:119-122, XGBoost rank_metric.cc:377-399: a blank query adds
        # `empty` to the weighted sum without its weight; the divisor is still sum of weights.
        w, e = two_scaled(weights)  # the empty value is added unweighted: scaled alike
        num = float(np.sum(np.where(blank, 0.0, values * w))) + float(
            np.ldexp(profile.empty * int(blank.sum()), -e))
        mean = num / float(np.sum(w))
    else:
        mean = family_mean(spec.family, values, weights, n, profile.arithmetic_dtype == "float32",
                           mw)
    if spec.family == "ndcg" and profile.clamp_ndcg_mean and not np.isnan(mean):
        if mean > 1.0 + _XGB_EPS:
            raise DataError(
                f"{spec.name} = {mean:.6f} > 1 under profile {profile.name!r}: XGBoost refuses this "
                "('Invalid output score, might be caused by invalid query group weight'): its groups "
                "without relevant documents add an unweighted 1 to a weighted sum"
            )
        mean = min(mean, 1.0)
    return mean


def blank_policy_means(
    values: NDArray[np.float64],
    blank: NDArray[np.bool_],
    weights: NDArray[np.float64] | None,
    family: str | None = None,
    n: NDArray[np.int64] | None = None,
    mw: NDArray[np.float64] | None = None,
) -> tuple[float, float, float]:
    """Mean with blank queries excluded, scored 0 and scored 1 (plain weighting; the family's
    own averaging, :func:`family_mean`, when ``family`` is given). A score goes in as the
    family's per-query value of it: ``gm_map``'s values are ``log(max(AP, 1e-5))``, so a blank
    query scored 0 is ``log(1e-5)`` and scored 1 is ``log(1)`` (filling 0 made "scored 0" the
    mean of APs of 1)."""
    def mean(v: NDArray[np.float64]) -> float:
        return weighted_mean(v, weights) if family is None else family_mean(family, v, weights, n,
                                                                             mw=mw)

    def fill(score: float) -> float:
        if family is not None and FAMILIES[family].mean == "geometric":
            return float(geo_term(np.float64(score)))
        return score

    return (mean(np.where(blank, np.nan, values)), mean(np.where(blank, fill(0.0), values)),
            mean(np.where(blank, fill(1.0), values)))


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
    fam = FAMILIES[family]
    if fam.error is None:
        raise ConfigError(f"{family} is not a pointwise metric")
    e = fam.error(scores - labels)
    w = row_weights
    if w is not None and ((w > 0) & (w < np.finfo(np.float64).tiny)).any():
        tiny = float(w[(w > 0) & (w < np.finfo(np.float64).tiny)][0])  # w * error would lose
        raise DataError(  # the weights' ratio (the sums add up over parts: no rescaling here)
            f"{family}: row weight {tiny!r} is subnormal (below 2.2e-308): its products with "
            "the errors keep fewer bits; rescale the weights (only their ratios matter)")
    err_sum = exact_sum(e if w is None else e * w)
    weight_sum = float(e.shape[0]) if w is None else exact_sum(w)
    if not (math.isfinite(err_sum) and math.isfinite(weight_sum)):  # inf / inf: NaN, or inf
        raise DataError(f"{family}: the sum of the {'squared ' if fam.root else ''}errors or "
                        "of the row weights is beyond float64 (1.8e308): rescale the scores and "
                        "labels, or the weights (only their ratios matter)")
    if w is None:
        per_q = np.add.reduceat(e, offsets[:-1]) / np.diff(offsets)
    else:
        per_q = np.add.reduceat(e * w, offsets[:-1]) / np.add.reduceat(w, offsets[:-1])
    return (np.sqrt(per_q) if fam.root else per_q), err_sum, weight_sum


def pointwise_total(family: str, err_sum: float, weight_sum: float) -> float:
    """The value over all documents: ``sqrt(sum w e^2 / sum w)`` (rmse) or ``sum w |e| / sum w``
    (mae), unweighted when ``w`` = 1 per row."""
    total = err_sum / weight_sum
    return float(np.sqrt(total)) if FAMILIES[family].root else total
