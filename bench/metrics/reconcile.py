"""The gap between two profiles' values of one metric, split into reasons, query by query.

:func:`reconcile` walks from one :class:`~bench.metrics.profiles.Profile` (a library's) to another
(the default ``ltrbench``), changing one convention at a time with :func:`dataclasses.replace`
(:data:`STEPS`)::

    query_weights, unweighted_families, blank_ndcg_weight, clamp_ndcg_mean (weights) →
    empty (blank_query) → ties → gain, discount_base, rel_level (gain) → k_beyond_n / default_k /
    run_depth (truncation) → score_dtype, arithmetic_dtype (float32)

(``discount_base`` moves DCG only, ``rel_level`` the gains below the relevance level,
``run_depth`` cuts every query's ranking at N, ``arithmetic_dtype`` float32 rounding of the
values, so they ride with the nearest reason rather than adding a column. The gain step also
takes the default's ``max_label`` and ``integer_labels``, which change no value but must match the
gain: sklearn's linear gain with ``max_label=None`` turned to exp2 would be a profile its own
checks refuse.)

Each step's change of the mean is attributed to queries (:func:`step_contributions`), so the
per-query contributions add up to the gap exactly (a telescoping sum). When a step changes the set
of queries the mean runs over (``empty=None`` excludes blank queries), its contribution is defined
as the change of the mean, and the excluded query ``q`` carries ``(mean over the kept queries -
v_q) / n_before``. Whatever is left between the last step and the real target profile is the
residual; :attr:`Reconciliation.explained` requires it to be ≤ 1e-9 for the mean and every query.

With query weights (``weights``: one per query, as LightGBM's, XGBoost's and CatBoost's weighted
means take them) each step's share is the change of the mean each profile reports, so the
shares and the residual add up to the gap exactly whatever a library does with a weight (LightGBM
adds a blank query's NDCG unweighted to a weighted sum, XGBoost 1.x ignores weights, CatBoost's
MAP takes none); the per-query rows weigh each query by the profile's own rule.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from bench.errors import ConfigError, DataError, LtrbenchError
from bench.metrics.evaluate import evaluate as reference_evaluate
from bench.metrics.families import FAMILIES, PRIMARY_METRIC
from bench.metrics.profiles import DEFAULT_PROFILE, Profile, get_profile

REASONS: tuple[str, ...] = ("weights", "blank_query", "ties", "gain", "truncation", "float32")

# (reason, Profile fields changed in that step).
STEPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # how the query weights enter the mean (first: the blank rule of a weighted NDCG is one)
    ("weights", ("query_weights", "unweighted_families", "blank_ndcg_weight", "clamp_ndcg_mean")),
    ("blank_query", ("empty", "empty_by_family")),
    ("ties", ("ties",)),
    # max_label / integer_labels only say which labels a profile accepts; they move with the
    # gain so that a step never builds a profile its own checks refuse (exp2 with max_label=None)
    ("gain", ("gain", "discount_base", "rel_level", "max_label", "integer_labels")),
    ("truncation", ("k_beyond_n", "default_k", "run_depth")),
    ("float32", ("score_dtype", "arithmetic_dtype")),
)

RESIDUAL_TOL = 1e-9
# A per-query value change smaller than this is rounding noise: it still enters the sums (so they
# telescope exactly) but does not mark the query as affected.
AFFECTED_TOL = 1e-12

Evaluate = Callable[..., Any]
ProfileLike = Profile | str  # a Profile, or the name of one (:func:`bench.metrics.get_profile`)


def resolve_profile(profile: ProfileLike) -> Profile:
    """A :class:`Profile` from its name; anything else is returned as is (unlike
    :func:`~bench.metrics.get_profile`, so a duck-typed profile with its own ``evaluate``, as the
    cross-check tests' slow reference uses, passes through)."""
    return get_profile(profile) if isinstance(profile, str) else profile


def one_metric(metric: str, evaluate: Evaluate | None = None) -> None:
    """A :class:`ConfigError` unless ``metric`` is one name the walk can explain: several
    (``ndcg@1,10``, ``"ndcg@10 map"``) raised ``KeyError`` deep in the walk, and a name that
    carries its own profile (``lightgbm:ndcg@10``) pins that profile on both sides of the walk,
    so the gap read 0, "explained", where the two profiles differ. A name the grammar does not
    read is left to a duck-typed ``evaluate`` (its own metric names); without one, refused."""
    from bench.metrics.names import parse_metrics

    try:
        specs = parse_metrics(metric)
    except LtrbenchError:
        if evaluate is None:
            raise
        return
    if len(specs) != 1:
        raise ConfigError(f"metric {metric!r}: the gap between two profiles is explained for one "
                          f"metric, this names {len(specs)} ({', '.join(s.key for s in specs)}): "
                          "reconcile each one")
    (spec,) = specs
    if spec.explicit:
        bare = spec.key.partition(":")[2].strip() or spec.key
        raise ConfigError(f"metric {metric!r} names its own profile, which would be computed on "
                          "both sides of the walk (a gap of 0 between the library's and the "
                          f"default profile); give the bare name ({bare!r}) and the two profiles "
                          "as library_profile and default_profile")


def per_query_values(
    labels: ArrayLike,
    scores: ArrayLike,
    offsets: ArrayLike,
    *,
    metric: str,
    profile: ProfileLike,
    evaluate: Evaluate | None = None,
) -> tuple[NDArray[np.float64], float]:
    """Per-query values (NaN = query excluded from the mean) and the evaluator's mean.

    Calls ``evaluate(labels, scores, group=sizes, metrics=[metric], profile=profile,
    per_query=True)`` and reads the ``metric`` column of ``.per_query`` in group order.
    """
    values, _, mean = per_query_weighted(labels, scores, offsets, metric=metric, profile=profile,
                                         evaluate=evaluate)
    return values, mean


def per_query_weighted(
    labels: ArrayLike, scores: ArrayLike, offsets: ArrayLike, *, metric: str,
    profile: ProfileLike, evaluate: Evaluate | None = None, weights: ArrayLike | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64] | None, float]:
    """:func:`per_query_values` with each query's weight in the metric's mean
    (:attr:`~bench.metrics.result.EvaluationResult.metric_weights`: GAUC's documents, ARP's and
    OPA's denominators under the profile; ``None``: equal weights). ``weights``: one per query,
    given to the evaluator (the returned weights do not hold them: :func:`query_weights_of`)."""
    ev: Evaluate = reference_evaluate if evaluate is None else evaluate
    sizes = np.diff(np.asarray(offsets, dtype=np.int64))
    given = {} if weights is None else {"weights": np.asarray(weights, dtype=np.float64)}
    res = ev(
        np.asarray(labels),
        np.asarray(scores),
        group=sizes,
        metrics=[metric],
        profile=profile,
        per_query=True,
        **given,
    )
    pq = res.per_query
    values = np.asarray(pq[metric], dtype=np.float64)
    if values.shape[0] != sizes.shape[0]:
        raise DataError(
            f"the evaluator returned {values.shape[0]} per-query values for {sizes.shape[0]} queries"
        )
    own = getattr(res, "metric_weights", {}).get(metric)  # a duck-typed evaluator has none
    weights = None if own is None else np.asarray(own, dtype=np.float64)
    mean = float(res.metrics[metric]) if res.metrics.get(metric) is not None else math.nan
    return values, weights, mean


def query_weights_of(profile: Profile, weights: ArrayLike | None, sizes: NDArray[np.int64],
                     family: str) -> NDArray[np.float64] | None:
    """Each query's weight in ``family``'s mean under ``profile`` for the given query weights
    (``Profile.query_weights``: as given, ignored, rounded to float32, or LightGBM's float32
    mean of its rows' weights; ``unweighted_families``: none); ``None``: equal weights."""
    rule = getattr(profile, "query_weights", "use")  # a duck-typed stand-in may lack the fields
    if weights is None or rule == "ignore" or family in getattr(profile, "unweighted_families", ()):
        return None
    w = np.asarray(weights, dtype=np.float64)
    if rule == "float32":
        return w.astype(np.float32).astype(np.float64)
    if rule != "float32_mean":
        return w
    w32, sums = w.astype(np.float32), np.zeros(w.shape[0], dtype=np.float32)
    for j in range(int(sizes.max(initial=0))):  # the rows' float32 sum in row order
        sums[sizes > j] += w32[sizes > j]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(sizes > 0, sums / sizes.astype(np.float32), 0).astype(np.float64)


def mean_defined(x: NDArray[np.float64], weights: NDArray[np.float64] | None = None,
                 how: str = "mean") -> float:
    """The mean over the defined (non-NaN) values, by :func:`math.fsum`; NaN when there is none.
    ``weights``: each query's weight (GAUC, ARP, OPA); ``how``: the family's ``Family.mean``
    (``"sum"``: counts, summed; ``"geometric"``: ``exp`` of the mean of the values, which are
    logarithms: trec_eval ``gm_map``)."""
    keep = ~np.isnan(x)
    if how == "sum":
        return float(math.fsum(x[keep])) if keep.any() else math.nan
    w = np.ones(x.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    total = math.fsum(w[keep]) if keep.any() else 0.0
    mean = float(math.fsum(w[keep] * x[keep]) / total) if total > 0 else math.nan
    return math.exp(mean) if how == "geometric" and not math.isnan(mean) else mean


def step_contributions(
    before: ArrayLike, after: ArrayLike, w_before: ArrayLike | None = None,
    w_after: ArrayLike | None = None, how: str = "mean",
) -> tuple[NDArray[np.float64], float]:
    """Per-query attribution of ``mean(after) - mean(before)`` (means over the non-NaN queries,
    aggregated as the family does: ``how`` and the per-query weights, see :func:`mean_defined`).

    With ``A``/``B`` the queries that have a value before/after and ``I = A ∩ B``, the change goes
    in three exact phases: drop ``A \\ I`` (query ``q`` carries ``w_q (mean_I(before) -
    before_q) / W_A``), change the values and weights on ``I`` (``w_q (after_q - before_q) / W_I
    + (w'_q / W'_I - w_q / W_I) after_q``), add ``B \\ I`` (``w'_q (after_q - mean_I(after)) /
    W'_B``), ``W`` the sums of the weights (1 each by default). Each phase's terms sum to that
    phase's change of the mean, so the returned contributions sum to the total change. A sum
    (``how="sum"``) changes by each query's own change; a geometric mean (``gm_map``) by the
    contributions in log space times the secant ``(exp(m_B) - exp(m_A)) / (m_B - m_A)``, which
    keeps the sum exact. Returns ``(contributions, change)``; the change is NaN (and
    contributions NaN) when either mean is undefined.
    """
    a = np.asarray(before, dtype=np.float64)
    b = np.asarray(after, dtype=np.float64)
    if how == "sum":
        if np.isnan(a).all() and np.isnan(b).all():
            return np.zeros(a.shape[0]), 0.0
        total = mean_defined(b, how="sum") - mean_defined(a, how="sum")
        if math.isnan(total):
            return np.full(a.shape[0], np.nan), math.nan
        return np.nan_to_num(b) - np.nan_to_num(a), total
    wa = np.ones(a.shape[0]) if w_before is None else np.asarray(w_before, dtype=np.float64)
    wb = np.ones(b.shape[0]) if w_after is None else np.asarray(w_after, dtype=np.float64)
    in_a, in_b = ~np.isnan(a) & (wa > 0), ~np.isnan(b) & (wb > 0)
    both = in_a & in_b
    out = np.zeros(a.shape[0])
    sa, sb, si_a, si_b = (float(np.sum(w[m])) for w, m in
                          ((wa, in_a), (wb, in_b), (wa, both), (wb, both)))
    if sa == 0 or sb == 0 or si_a == 0 or si_b == 0:
        if sa == sb == 0:
            return out, 0.0
        return np.full(a.shape[0], np.nan), math.nan
    mean_a_i = mean_defined(np.where(both, a, np.nan), wa)
    mean_b_i = mean_defined(np.where(both, b, np.nan), wb)
    dropped = in_a & ~both
    added = in_b & ~both
    out[dropped] = wa[dropped] * (mean_a_i - a[dropped]) / sa
    out[both] = wa[both] * (b[both] - a[both]) / si_a + (wb[both] / si_b - wa[both] / si_a) * b[both]
    out[added] = wb[added] * (b[added] - mean_b_i) / sb
    m_a = mean_defined(np.where(in_a, a, np.nan), wa)
    m_b = mean_defined(np.where(in_b, b, np.nan), wb)
    if how != "geometric":
        return out, m_b - m_a
    change = math.exp(m_b) - math.exp(m_a)
    secant = change / (m_b - m_a) if m_b != m_a else math.exp(m_a)
    return out * secant, change


@dataclass
class Reconciliation:
    """The gap ``library_value - default_value`` of one ranking, split into reasons.

    ``reasons[r]`` is the part of the gap due to reason ``r``; ``sum(reasons) + residual == gap``
    (to rounding). ``per_query`` has one row per (query, reason) with a non-negligible change:
    columns ``query`` (position), ``qid``, ``reason``, ``before``, ``after`` (the query's value
    before/after that step; NaN = excluded) and ``contribution`` (its share of the gap).
    ``default_per_query``: the default profile's value of each query (NaN = excluded), in group
    order, as :func:`per_query_values` gives them (a caller comparing recorded values reads
    them here, never evaluating the ranking again).
    """

    metric: str
    library_profile: str
    default_profile: str
    library_value: float
    default_value: float
    gap: float
    reasons: dict[str, float]
    residual: float
    max_query_residual: float
    affected: dict[str, int]
    n_queries: int
    n_blank: int
    per_query: pd.DataFrame
    unexplained_fields: tuple[str, ...] = ()
    default_per_query: NDArray[np.float64] | None = dataclasses.field(default=None, repr=False,
                                                                      compare=False)

    @property
    def defined(self) -> bool:
        return not (math.isnan(self.library_value) or math.isnan(self.default_value))

    @property
    def explained(self) -> bool:
        """True when the residual (mean and every query) is ≤ 1e-9, or the gap is undefined."""
        if not self.defined:
            return True
        return abs(self.residual) <= RESIDUAL_TOL and self.max_query_residual <= RESIDUAL_TOL


def _field_names(profile: Profile) -> set[str]:
    return {f.name for f in dataclasses.fields(profile)}


def reconcile(
    labels: ArrayLike,
    scores: ArrayLike,
    offsets: ArrayLike,
    *,
    library_profile: ProfileLike,
    default_profile: ProfileLike = DEFAULT_PROFILE,
    metric: str = PRIMARY_METRIC,
    qid: ArrayLike | None = None,
    evaluate: Evaluate | None = None,
    weights: ArrayLike | None = None,
) -> Reconciliation:
    """Explain ``mean(library profile) - mean(default profile)`` for one ranking (see module doc).

    ``labels``/``scores`` are per row, ``offsets`` the group offsets (``n_queries + 1``), ``qid``
    the query id per group (default: 0..n_queries-1), ``weights`` one weight per query (or
    ``None``). Profiles are names or Profile instances.
    """
    one_metric(metric, evaluate)
    lib = resolve_profile(library_profile)
    dflt = resolve_profile(default_profile)
    off = np.asarray(offsets, dtype=np.int64)
    n_q = off.shape[0] - 1
    qids = np.arange(n_q) if qid is None else np.asarray(qid)
    profiles, reasons_order, unexplained = _step_profiles(lib, dflt)

    cache: dict[int, _Values] = {}
    how, family = _aggregation(metric)
    documents = family in FAMILIES and FAMILIES[family].mean == "documents"
    if weights is not None:
        weights = np.asarray(weights, dtype=np.float64)
        if weights.shape != (n_q,):
            raise DataError(f"weights: expected one weight per query ({n_q}), got shape "
                            f"{weights.shape}")

    def _values(prof: Profile) -> _Values:
        # Consecutive steps that change nothing share one Profile object: evaluate it once.
        if id(prof) not in cache:
            v, w, mean = per_query_weighted(labels, scores, off, metric=metric, profile=prof,
                                            evaluate=evaluate, weights=weights)
            qw = query_weights_of(prof, weights, np.diff(off), family)
            if qw is not None and how != "sum" and not documents:  # GAUC: its documents only
                w = qw if w is None else w * qw
            cache[id(prof)] = (v, w, how, mean if weights is not None else None)
        return cache[id(prof)]

    values = [_values(p) for p in profiles]
    dflt_vals = _values(dflt)

    reasons, affected, frames = _step_shares(values, reasons_order, qids)
    lib_vals, last_vals = values[0], values[-1]
    residual, max_q = _residual(last_vals, dflt_vals, qids, frames)
    lib_mean, dflt_mean = _mean(lib_vals), _mean(dflt_vals)
    per_query = (
        pd.concat(frames, ignore_index=True)
        if frames
        else pd.DataFrame(columns=["query", "qid", "reason", "before", "after", "contribution"])
    )
    return Reconciliation(
        metric=metric,
        library_profile=lib.name,
        default_profile=dflt.name,
        library_value=lib_mean,
        default_value=dflt_mean,
        gap=lib_mean - dflt_mean,
        reasons=reasons,
        residual=residual,
        max_query_residual=max_q,
        affected=affected,
        n_queries=n_q,
        n_blank=int(np.sum(np.isnan(dflt_vals[0]) & ~np.isnan(lib_vals[0]))),
        per_query=per_query,
        unexplained_fields=unexplained,
        default_per_query=dflt_vals[0],
    )


#: A profile's per-query values, their weights in the mean (``None``: equal), how the family
#: aggregates them (``Family.mean``) and, with query weights, the mean the evaluator reports.
_Values = tuple[NDArray[np.float64], NDArray[np.float64] | None, str, float | None]


def _mean(values: _Values) -> float:
    """The mean of one profile's values: the evaluator's own with query weights (a library's
    weighted mean is not always a weighted mean of its values), else :func:`mean_defined`."""
    return values[3] if values[3] is not None else mean_defined(*values[:3])


def _aggregation(metric: str) -> tuple[str, str]:
    """How ``metric``'s per-query values become its mean (``Family.mean``): ``"mean"``,
    ``"documents"`` (a weighted mean too), ``"sum"`` or ``"geometric"``; and its family."""
    from bench.metrics.names import parse_metrics

    try:
        (spec,) = parse_metrics(metric)
    except (ValueError, LtrbenchError):  # a duck-typed evaluator's own name: a plain mean
        return "mean", ""
    how = FAMILIES[spec.family].mean if spec.family in FAMILIES else "mean"
    return ("mean" if how == "documents" else how), spec.family


def _step_profiles(lib: Profile, dflt: Profile) -> tuple[list[Profile], list[str], tuple[str, ...]]:
    """The library profile and, after each step of :data:`STEPS`, the profile with that step's
    fields set to the default's (a step that changes nothing keeps the same object); the step
    reasons in order; the fields that still differ and no step explains."""
    fields = _field_names(lib)
    profiles = [lib]
    reasons_order: list[str] = []
    current = lib
    for reason, names in STEPS:
        changes: dict[str, Any] = {
            f: getattr(dflt, f) for f in names
            if f in fields and getattr(current, f) != getattr(dflt, f)
        }  # a duck-typed profile (the cross-check tests' stand-in) may lack newer fields
        if changes:
            changes["name"] = f"{current.name}+{reason}"
            current = dataclasses.replace(current, **changes)
        profiles.append(current)
        reasons_order.append(reason)
    skip = {"name", "description"} | {f for _, names in STEPS for f in names}
    unexplained = tuple(
        sorted(f for f in fields if f not in skip and getattr(current, f) != getattr(dflt, f))
    )
    return profiles, reasons_order, unexplained


def _step_shares(
    values: list[_Values], reasons_order: list[str], qids: NDArray[Any],
) -> tuple[dict[str, float], dict[str, int], list[pd.DataFrame]]:
    """Per reason its share of the gap and the queries it changes, and the per-query rows of
    every step that changes a query."""
    reasons: dict[str, float] = dict.fromkeys(REASONS, 0.0)
    affected: dict[str, int] = dict.fromkeys(REASONS, 0)
    frames: list[pd.DataFrame] = []
    for step, reason in enumerate(reasons_order):
        (before, w_before, how, _), (after, w_after, _, _) = values[step], values[step + 1]
        contrib, change = step_contributions(before, after, w_before, w_after, how)
        if values[step][3] is not None:  # query weights: the reported means' change
            change = _mean(values[step + 1]) - _mean(values[step])
        # Gap convention: library - default, so a step's share is minus its change of the mean.
        share = -contrib
        reasons[reason] += -change if not math.isnan(change) else math.nan
        changed = _changed(before, after) | _moved(share)  # a weight change moves it too
        affected[reason] += int(changed.sum())
        if changed.any():
            frames.append(_query_rows(changed, qids, reason, before, after, share))
    return reasons, affected, frames


def _residual(last: _Values, dflt: _Values, qids: NDArray[Any],
              frames: list[pd.DataFrame]) -> tuple[float, float]:
    """The gap left after the last step (last profile vs the default) and its largest per-query
    size (infinite when a query is blank under one only); its rows are appended to ``frames``."""
    (last_vals, w_last, how, _), (dflt_vals, w_dflt, _, _) = last, dflt
    res_contrib, res_change = step_contributions(last_vals, dflt_vals, w_last, w_dflt, how)
    if last[3] is not None:  # query weights: the reported means' change
        res_change = _mean(dflt) - _mean(last)
    residual = -res_change if not math.isnan(res_change) else math.nan
    changed = _changed(last_vals, dflt_vals)
    max_q = float(np.nanmax(np.abs(dflt_vals - last_vals)[changed])) if changed.any() else 0.0
    changed |= _moved(res_contrib)
    if np.any(np.isnan(last_vals) != np.isnan(dflt_vals)):
        max_q = math.inf
    if changed.any():
        frames.append(_query_rows(changed, qids, "residual", last_vals, dflt_vals, -res_contrib))
    return residual, max_q


def _query_rows(
    changed: NDArray[np.bool_],
    qids: NDArray[Any],
    reason: str,
    before: NDArray[np.float64],
    after: NDArray[np.float64],
    contribution: NDArray[np.float64],
) -> pd.DataFrame:
    """The rows of :attr:`Reconciliation.per_query` for the queries ``changed`` by one step."""
    idx = np.flatnonzero(changed)
    return pd.DataFrame(
        {
            "query": idx,
            "qid": qids[idx],
            "reason": reason,
            "before": before[idx],
            "after": after[idx],
            "contribution": contribution[idx],
        }
    )


def _moved(contribution: NDArray[np.float64]) -> NDArray[np.bool_]:
    """The queries whose share of a step is more than rounding."""
    with np.errstate(invalid="ignore"):
        moved: NDArray[np.bool_] = np.abs(contribution) > AFFECTED_TOL
    return moved


def _changed(before: NDArray[np.float64], after: NDArray[np.float64]) -> NDArray[np.bool_]:
    nan_b, nan_a = np.isnan(before), np.isnan(after)
    with np.errstate(invalid="ignore"):
        moved = np.abs(after - before) > AFFECTED_TOL
    changed: NDArray[np.bool_] = (nan_b != nan_a) | (~nan_b & ~nan_a & moved)
    return changed
