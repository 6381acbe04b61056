"""Honest statistics for leaderboards: seed spread, bootstrap CIs over queries, paired tests.

Three questions a leaderboard row has to answer, each with its own tool:

* *How much does the number move with the training seed?* Mean ± sample standard deviation over
  seeds (:func:`mean_std`).
* *How much would it move on another sample of queries?* A 95% percentile bootstrap interval over
  queries (:func:`bootstrap_ci`; Efron, B. & Tibshirani, R. J. (1993), *An Introduction to the
  Bootstrap*, Chapman & Hall, ch. 13 "Bootstrap confidence intervals", percentile method).
* *Is the gap to the best row more than query noise?* A paired test per query, either the
  randomization (sign-flip permutation) test that Smucker, Allan & Carterette (2007), "A comparison
  of statistical significance tests for information retrieval evaluation", CIKM '07, recommend for
  IR, or the paired t-test (:func:`paired_t_test`, via :func:`scipy.stats.ttest_rel`), with the
  family of comparisons against the best row corrected by Holm's step-down method (Holm, S. (1979),
  "A simple sequentially rejective multiple test procedure", *Scandinavian Journal of Statistics*
  6(2), 65-70; :func:`holm`).

Everything is vectorized: per-query values come as an array ``(n_models, n_queries)``, resamples are
drawn in chunks of at most :data:`_CHUNK_CELLS` cells and applied to every model at once with one
matrix product, so thousands of queries x 10 models x 1000 resamples take well under a second.
Random draws depend only on ``seed`` and the number of queries (never on the number of models),
so a row's interval does not change when another model is added to the table.

NaN marks a query without a value (a blank query under an empty-query policy that excludes it);
every function here ignores NaN cells. Every mean here is :func:`row_means` (an exactly rounded
sum, :func:`math.fsum`): the same values in another order give the same mean, so two models
whose values are one multiset tie, never "win" by the last bit of a summation order.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bench.metrics.aggregate import weighted_mean
from bench.metrics.query_parts import id_order

# At most this many (resample, query) cells are held in memory at once (float64: 32 MiB).
_CHUNK_CELLS = 1 << 22

# Relative tolerance when comparing a permuted statistic with the observed one: sums of the same
# numbers in another order may differ in the last bits, and an exactly equal statistic must count.
_TIE_RTOL = 1e-12


def _as_2d(values: ArrayLike) -> tuple[NDArray[np.float64], bool]:
    """``values`` as a float64 array ``(rows, n)``; the flag says whether the input was 1-D."""
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim == 1:
        return arr[None, :], True
    if arr.ndim != 2:
        raise ValueError(f"expected a 1-D or 2-D array of per-query values, got shape {arr.shape}")
    return arr, False


#: The level the verdicts read ("not distinguishable from the best" at Holm-corrected p >= ALPHA);
#: a printed p-value never rounds across it (:func:`fmt_p`).
ALPHA = 0.05

#: scipy's test for differences equal to rounding (``scipy.stats._stats_py._var``: "Precision
#: loss occurred in moment calculation due to catastrophic cancellation"): the spread around the
#: mean below ``10 * resolution`` of float64 times the mean.
_PRECISION_LOSS = 10 * float(np.finfo(np.float64).resolution)


def fmt_p(p: float | None, digits: int = 3, style: str = "f") -> str:
    """A p-value as every table prints it: ``digits`` decimals (``style="g"``: significant
    digits), ``<0.001`` below the smallest it shows (``"f"``), ``""`` for none; never rounded up
    to the verdict's level (:data:`ALPHA`): a p of 0.0496 is ``0.0496``, not
    ``0.050`` beside a verdict that calls its row worse at p < 0.05 (more digits until the text
    is below the level, as the number is)."""
    if p is None or p != p:
        return ""
    floor = 10.0 ** -digits
    if style == "f" and p < floor:
        return f"<{floor:.{digits}f}"
    text = f"{p:.{digits}{style}}"
    while p < ALPHA <= float(text) and digits < 17:
        digits += 1
        text = f"{p:.{digits}{style}}"
    return text


def confidence_percent(confidence: float) -> str:
    """A confidence level as the percent a table prints (``"95"``, ``"99.9"``, ``"97.5"``):
    ``:.0%`` printed a 99.9% interval as a "100% CI" and 97.5% as "98%"."""
    return f"{round(float(confidence) * 100, 6):g}"


def row_means(values: ArrayLike) -> NDArray[np.float64]:
    """The mean of each row over its non-NaN cells (NaN for a row without one), from the exactly
    rounded sum (:func:`math.fsum`) of its values: independent of their order (NumPy's pairwise
    sum of 0.1, 0.2, 0.3 and of 0.3, 0.2, 0.1 differ in the last bit, and the first model "won").
    One ``fsum`` per row (model), never per query."""
    x, _ = _as_2d(values)
    out = np.full(x.shape[0], np.nan)
    for i, row in enumerate(x):
        kept = row[~np.isnan(row)]
        if kept.size:
            out[i] = math.fsum(kept.tolist()) / kept.size
    return out


def _chunk_rows(n_resamples: int, n_queries: int) -> int:
    """Resamples per chunk: a function of the number of queries only (so draws are reproducible)."""
    return max(1, min(n_resamples, _CHUNK_CELLS // max(n_queries, 1)))


def mean_std(values: ArrayLike, *, ddof: int = 1) -> tuple[float, float]:
    """Mean and sample standard deviation of a metric over seeds, ignoring NaN.

    ``std = sqrt(sum((x - mean)^2) / (n - ddof))`` with ``ddof=1`` (the unbiased-variance
    convention). With fewer than ``ddof + 1`` values the spread is unknown and returned as NaN,
    never as 0, so a single-seed table cannot pass for a perfectly stable one. No values gives
    ``(nan, nan)``.
    """
    x = np.asarray(values, dtype=np.float64).ravel()
    x = x[~np.isnan(x)]
    if x.size == 0:
        return float("nan"), float("nan")
    mean = float(row_means(x)[0])  # the seeds' order does not change it
    if x.size <= ddof:
        return mean, float("nan")
    return mean, math.sqrt(math.fsum(((x - mean) ** 2).tolist()) / (x.size - ddof))


@dataclass(frozen=True)
class BootstrapCI:
    """Percentile bootstrap interval(s): arrays of shape ``(n_models,)`` (or 0-d for 1-D input).

    ``mean`` is the plain mean over the non-NaN queries; ``low``/``high`` the interval bounds.
    """

    mean: NDArray[np.float64]
    low: NDArray[np.float64]
    high: NDArray[np.float64]
    confidence: float
    n_resamples: int
    seed: int


def bootstrap_means(
    values: ArrayLike, *, n_resamples: int = 1000, seed: int = 0
) -> NDArray[np.float64]:
    """Bootstrap replicates of the mean over queries: array ``(n_resamples, n_models)``.

    Each replicate draws ``n`` queries with replacement from the ``n`` queries (columns); the same
    draw is applied to every model (row), so replicates are paired across models. A query drawn
    ``c`` times counts ``c`` times; the replicate of a row with NaN cells is the ratio
    ``sum(c_q * x_q) / sum(c_q)`` over its non-NaN queries (the mean of the resampled queries that
    have a value). Draws are turned into counts per query with one ``bincount`` per chunk and
    applied to all rows with a matrix product.
    """
    x, _ = _as_2d(values)
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples}")
    n = x.shape[1]
    out = np.full((n_resamples, x.shape[0]), np.nan)
    if n == 0:
        return out
    mask = ~np.isnan(x)
    x0 = np.where(mask, x, 0.0)
    maskf = mask.astype(np.float64)
    rng = np.random.default_rng(seed)
    step = _chunk_rows(n_resamples, n)
    for start in range(0, n_resamples, step):
        b = min(step, n_resamples - start)
        idx = rng.integers(0, n, size=(b, n))
        idx += (np.arange(b, dtype=np.int64) * n)[:, None]
        counts = np.bincount(idx.ravel(), minlength=b * n).reshape(b, n).astype(np.float64)
        num = counts @ x0.T
        den = counts @ maskf.T
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start : start + b] = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return out


def bootstrap_ci(
    values: ArrayLike,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    ids: ArrayLike | None = None,
) -> BootstrapCI:
    """Percentile bootstrap confidence interval of the mean over queries (Efron & Tibshirani 1993).

    ``values``: per-query metric values, shape ``(n_queries,)`` or ``(n_models, n_queries)``; NaN
    = query without a value (ignored). The interval is ``[q_{a/2}, q_{1-a/2}]`` of the bootstrap
    replicates of the mean (:func:`bootstrap_means`), ``a = 1 - confidence``, quantiles by linear
    interpolation (``numpy.quantile`` default). Seeded: the same input and seed give the same
    interval. A row with fewer than two values gives NaN bounds (one query's every draw is that
    query: a zero-width interval would claim a certainty no sample gives). The mean is exactly rounded
    (:func:`row_means`); given ``ids``, the columns' query ids, it adds the queries up in the
    evaluator's order instead (:func:`bench.metrics.query_parts.id_order`), the evaluator's mean
    bit for bit (the draws keep the columns' order).
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    x, one_d = _as_2d(values)
    reps = bootstrap_means(x, n_resamples=n_resamples, seed=seed)
    alpha = 1.0 - confidence
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high = np.nanquantile(reps, [alpha / 2.0, 1.0 - alpha / 2.0], axis=0)
    alone = (~np.isnan(x)).sum(axis=1) < 2  # every draw is the one value: no spread to tell
    low, high = np.where(alone, np.nan, low), np.where(alone, np.nan, high)
    if ids is not None and x.shape[1]:  # the evaluator's own mean, bit for bit
        order = id_order(np.asarray(ids))
        mean = np.array([weighted_mean(row if order is None else row[order], None) for row in x])
    else:  # exactly rounded: the order of the columns cannot move it
        mean = row_means(x)
    if one_d:
        mean, low, high = mean[0], low[0], high[0]
    return BootstrapCI(
        mean=np.asarray(mean),
        low=np.asarray(low),
        high=np.asarray(high),
        confidence=confidence,
        n_resamples=n_resamples,
        seed=seed,
    )


def family_ci(ci: BootstrapCI, kinds: Sequence[str], counts: ArrayLike
              ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """``(mean, low, high)`` of ``ci`` (rows of per-query values) as each row's metric family
    averages them (``kinds``: :func:`bench.metrics.families.averaging` of each row's metric;
    ``counts``: each row's queries with a value): a count's (``sum``) times its queries, a
    geometric mean's (``gm_map``, whose per-query values are logarithms) exponentiated (``exp``
    is increasing: the percentile bounds stay the bounds); NaN for a ``weighted`` family, whose
    weights the values do not carry; as they are otherwise.

    >>> ci = bootstrap_ci([[0.0, 0.0], [0.5, 0.5]], n_resamples=10)
    >>> [v.tolist() for v in family_ci(ci, ["geometric", "sum"], [2, 2])]
    [[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]
    """
    n = np.asarray(counts)
    factor = np.where(n > 0, n, np.nan)
    out = []
    for values in (ci.mean, ci.low, ci.high):
        v = np.asarray(values, dtype=np.float64)
        v = np.select([np.asarray(kinds) == "sum", np.asarray(kinds) == "geometric",
                       np.asarray(kinds) == "weighted"],
                      [v * factor, np.exp(v), np.full_like(v, np.nan)], v)
        out.append(v)
    return out[0], out[1], out[2]


def randomization_test(
    diffs: ArrayLike, *, n_resamples: int = 10_000, seed: int = 0
) -> NDArray[np.float64]:
    """Two-sided paired randomization (sign-flip permutation) test of a zero mean difference.

    ``diffs``: per-query differences ``a_q - b_q`` between two systems, shape ``(n_queries,)`` or
    ``(n_pairs, n_queries)``; NaN cells (a query one of the systems has no value for) are left
    out. Under the null hypothesis the two systems' labels are exchangeable on every query, so
    each difference keeps its magnitude and takes either sign with probability 1/2
    (Smucker, Allan & Carterette 2007, CIKM, section 3.1). The statistic is ``|sum_q s_q d_q|``
    (equivalently the absolute mean difference: the number of queries does not change).

    * When ``2**n <= n_resamples`` every sign vector is enumerated and the p-value is exact:
      ``p = #{s : |sum s d| >= |sum d|} / 2**n`` (the identity is one of them).
    * Otherwise ``n_resamples`` random sign vectors are drawn (seeded) and
      ``p = (1 + #{b : |T_b| >= |T_obs|}) / (1 + n_resamples)``, which never reports p = 0 for a
      finite sample (Phipson & Smyth 2010, "Permutation p-values should never be zero").

    A statistic within a relative ``1e-12`` of the observed one counts as "at least as large"
    (rounding must not turn an exact tie into evidence). All-zero differences give p = 1.
    Returns p-values with shape ``(n_pairs,)`` (0-d for 1-D input).
    """
    d, one_d = _as_2d(diffs)
    # a query no row has a difference for (blank in every run) is no query of any test: kept as
    # a 0 it changed nothing but 2^n, and 12 queries beside 2 blank ones were drawn, not counted
    d = d[:, ~np.isnan(d).all(axis=0)]
    d = np.where(np.isnan(d), 0.0, d)
    n = d.shape[1]
    t_obs = np.abs(d.sum(axis=1))
    tol = _TIE_RTOL * np.abs(d).sum(axis=1)
    count = np.zeros(d.shape[0], dtype=np.int64)
    exact = n <= 62 and (1 << n) <= n_resamples
    if exact:
        total = 1 << n
        step = _chunk_rows(total, n)
        grid = itertools.product((1.0, -1.0), repeat=n)
        for start in range(0, total, step):
            b = min(step, total - start)
            signs = np.array(list(itertools.islice(grid, b)), dtype=np.float64).reshape(b, n)
            t = np.abs(signs @ d.T)
            count += (t >= t_obs - tol).sum(axis=0)
        p = count / float(total)
    else:
        rng = np.random.default_rng(seed)
        step = _chunk_rows(n_resamples, n)
        for start in range(0, n_resamples, step):
            b = min(step, n_resamples - start)
            signs = rng.integers(0, 2, size=(b, n), dtype=np.int8).astype(np.float64) * 2.0 - 1.0
            t = np.abs(signs @ d.T)
            count += (t >= t_obs - tol).sum(axis=0)
        p = np.asarray((1.0 + count) / (1.0 + n_resamples), dtype=np.float64)
    p = np.where(np.all(d == 0.0, axis=1), 1.0, p)
    return p[0] if one_d else p


def paired_t_test(a: ArrayLike, b: ArrayLike) -> NDArray[np.float64]:
    """Two-sided paired t-test p-value of ``mean(a - b) = 0`` per row (:func:`scipy.stats.ttest_rel`).

    ``a``, ``b``: per-query values, shapes ``(n_queries,)`` or ``(n_rows, n_queries)`` (``b`` may be
    1-D and is then compared with every row of ``a``). Queries where either side is NaN are left
    out of that row's test. ``t = mean(d) / (sd(d) / sqrt(n))`` with ``n - 1`` degrees of freedom.
    Degenerate rows: all differences zero → p = 1; constant non-zero differences (zero variance:
    ``t = mean / 0`` is undefined, scipy 1.17 prints ``t = inf, p = 0``, a certainty no sample
    gives) → NaN, with :func:`constant_differences` saying which rows (the randomization test
    still answers: ``2 / 2^n`` for ``n`` equal non-zero differences); fewer than two queries →
    NaN.
    """
    from scipy import stats

    a2, a_1d = _as_2d(a)
    b2, b_1d = _as_2d(b)
    one_d = a_1d and b_1d
    a2, b2 = np.broadcast_arrays(a2, b2)
    out = np.full(a2.shape[0], np.nan)
    valid = ~(np.isnan(a2) | np.isnan(b2))
    # One vectorized call per distinct pattern of missing queries (usually exactly one).
    patterns, inverse = np.unique(valid, axis=0, return_inverse=True)
    for k, pattern in enumerate(patterns):
        rows = np.flatnonzero(inverse.ravel() == k)
        if pattern.sum() < 2:
            continue
        aa = a2[np.ix_(rows, pattern)]
        bb = b2[np.ix_(rows, pattern)]
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            res = stats.ttest_rel(aa, bb, axis=1)
        p = np.asarray(res.pvalue, dtype=np.float64)
        zero, undefined = _degenerate(aa - bb)
        out[rows] = np.where(zero, 1.0, np.where(undefined, np.nan, p))
    return out[0] if one_d else out


def _degenerate(dd: NDArray[np.float64]) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """The one owner of the paired t-test's degenerate rows, per row of differences ``dd``
    (``(n_rows, n)``, NaN cells already left out, ``n >= 2``): ``zero`` (every difference 0:
    p = 1) and ``undefined`` (every difference one and the same non-zero number, or equal to
    it up to rounding, where scipy warns of catastrophic cancellation (:data:`_PRECISION_LOSS`):
    zero variance, ``t = mean / 0``, no statistic; 0.1 - 0 and 0.6 - 0.5 once gave
    ``t = 5e15, p = 3.5e-32``). Read by :func:`paired_t_test` and :func:`constant_differences`."""
    zero = np.all(dd == 0.0, axis=1)
    mean = np.mean(dd, axis=1)
    spread = np.max(np.abs(dd - mean[:, None]), axis=1)
    constant = np.all(dd == dd[:, :1], axis=1) | (spread < _PRECISION_LOSS * np.abs(mean))
    return zero, constant & ~zero


def constant_differences(a: ArrayLike, b: ArrayLike) -> list[tuple[int, int, float]]:
    """The rows of ``a - b`` whose differences (NaN cells left out, at least two) are one and
    the same non-zero number (up to rounding: :func:`_degenerate`), where :func:`paired_t_test` has no t statistic:
    ``[(row, n, difference)]``."""
    a2, _ = _as_2d(a)
    b2, _ = _as_2d(b)
    a2, b2 = np.broadcast_arrays(a2, b2)
    out: list[tuple[int, int, float]] = []
    for row, (x, y) in enumerate(zip(a2, b2, strict=True)):
        d = (x - y)[~(np.isnan(x) | np.isnan(y))]
        if d.shape[0] >= 2 and bool(_degenerate(d[None, :])[1][0]):
            out.append((row, int(d.shape[0]), float(d[0])))
    return out


def holm(pvalues: ArrayLike) -> NDArray[np.float64]:
    """Holm–Bonferroni adjusted p-values (Holm 1979), controlling the family-wise error rate.

    With the ``m`` non-NaN p-values sorted ascending, ``p_(1) <= ... <= p_(m)``:
    ``adj_(i) = max_{j <= i} min(1, (m - j + 1) * p_(j))``, returned in the input order (the same
    values as ``statsmodels.stats.multitest.multipletests(p, method="holm")[1]``). Rejecting
    ``adj <= alpha`` is Holm's step-down procedure at level ``alpha``. NaN entries (e.g. the best
    row compared with itself) stay NaN and are not part of the family.
    """
    p = np.asarray(pvalues, dtype=np.float64)
    flat = p.ravel()
    out = np.full(flat.shape, np.nan)
    keep = np.flatnonzero(~np.isnan(flat))
    m = keep.size
    if m:
        order = keep[np.argsort(flat[keep], kind="stable")]
        scaled = np.minimum(1.0, (m - np.arange(m)) * flat[order])
        out[order] = np.maximum.accumulate(scaled)
    return out.reshape(p.shape)


#: Values this many units in the last place apart are one value to the paired tests.
_ULPS = 4


def same_number(a: float, b: float) -> bool:
    """Whether ``a`` and ``b`` are one number up to rounding (within :data:`_ULPS` units in the
    last place): the means 1/5 of hits (0, 0, 3) and (1, 1, 1) of 5 are 0.19999999999999998 and
    0.20000000000000004, one mean to any reader, and the first was once "best", not a tie."""
    ulp = float(np.spacing(max(abs(float(a)), abs(float(b)))))
    return bool(abs(float(a) - float(b)) <= _ULPS * ulp)


def _rounding_ties(x: NDArray[np.float64], best: int) -> NDArray[np.float64]:
    """``x`` with every value within :data:`_ULPS` units in the last place of the best row's
    value on the same query replaced by it: a difference of rounding (0.3 against the next
    float up, on every query) is no evidence, and the sign flips called it p = 2 / 2^n."""
    ref = x[best][None, :]
    ulp = np.spacing(np.maximum(np.abs(x), np.abs(ref)))
    with np.errstate(invalid="ignore"):
        close = np.abs(x - ref) <= _ULPS * ulp
    return np.where(close, ref, x)


def _holm_undefined_as_one(p: NDArray[np.float64],
                           tested: NDArray[np.bool_]) -> NDArray[np.float64]:
    """Holm over every ``tested`` row, a NaN p (no statistic) counted as p = 1 in the family and
    left NaN in the result: dropping it made the family one smaller (a t-test of 2 comparisons
    corrected as if there were 1)."""
    family = np.where(tested & np.isnan(p), 1.0, p)
    return np.where(np.isnan(p), np.nan, holm(family))


@dataclass(frozen=True)
class VersusBest:
    """Paired comparison of every row with the best row (arrays of shape ``(n_models,)``).

    ``best`` is the index of the best row; its own p-values are NaN. ``p_*_holm`` are Holm-adjusted
    over the ``n_models - 1`` comparisons (a t-test without a statistic, NaN, counts in the family
    as a test that rejects nothing, p = 1: the others are corrected for every comparison the
    table shows, and stay NaN-free).
    """

    best: int
    p_randomization: NDArray[np.float64]
    p_randomization_holm: NDArray[np.float64]
    p_t: NDArray[np.float64]
    p_t_holm: NDArray[np.float64]
    n_queries: NDArray[np.int64]


def compare_with_best(
    per_query: ArrayLike,
    *,
    best: int | None = None,
    higher_is_better: bool = True,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> VersusBest:
    """Paired per-query tests of every row of ``per_query`` ``(n_models, n_queries)`` against the best.

    The best row is the one with the highest (or lowest) mean over its non-NaN queries
    (:func:`row_means`) unless ``best`` is given. Values a few units in the last place from the
    best row's are its value (:func:`_rounding_ties`). Each other row is tested against it with
    :func:`randomization_test` (on the differences ``best - row``; queries NaN in either row are
    left out) and :func:`paired_t_test`; both families are Holm-corrected (:func:`holm`).
    ``n_queries`` counts the queries each comparison used.
    """
    x, _ = _as_2d(per_query)
    n_models = x.shape[0]
    if best is None:
        means = row_means(x)
        if np.all(np.isnan(means)):
            raise ValueError("no row has any per-query value; cannot pick the best row")
        best = int(np.nanargmax(means) if higher_is_better else np.nanargmin(means))
    x = _rounding_ties(x, best)
    diffs = x[best][None, :] - x
    others = np.arange(n_models) != best
    p_rand = np.full(n_models, np.nan)
    p_t = np.full(n_models, np.nan)
    if others.any():
        p_rand[others] = randomization_test(diffs[others], n_resamples=n_resamples, seed=seed)
        p_t[others] = paired_t_test(x[best][None, :], x[others])
    n_q = (~np.isnan(diffs)).sum(axis=1).astype(np.int64)
    return VersusBest(
        best=best,
        p_randomization=p_rand,
        p_randomization_holm=holm(p_rand),
        p_t=p_t,
        p_t_holm=_holm_undefined_as_one(p_t, others),
        n_queries=n_q,
    )
