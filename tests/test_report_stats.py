"""bench.report.stats against hand arithmetic, exact enumeration, scipy and slow loops."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from bench.report import stats

# ------------------------------------------------------------------------------------------
# mean ± std over seeds
# ------------------------------------------------------------------------------------------


def test_mean_std_is_the_sample_standard_deviation() -> None:
    # values 1, 2, 4: mean 7/3; squared deviations 16/9, 1/9, 25/9 sum 42/9; / (n-1) = 7/3.
    mean, std = stats.mean_std([1.0, 2.0, 4.0])
    assert mean == pytest.approx(7 / 3)
    assert std == pytest.approx(math.sqrt(7 / 3))


def test_mean_std_of_one_seed_has_unknown_spread_not_zero() -> None:
    mean, std = stats.mean_std([0.5])
    assert mean == 0.5
    assert math.isnan(std)


def test_mean_std_ignores_nan_and_empty_gives_nan() -> None:
    assert stats.mean_std([1.0, np.nan, 3.0]) == (2.0, pytest.approx(math.sqrt(2.0)))
    assert all(math.isnan(v) for v in stats.mean_std([]))


# ------------------------------------------------------------------------------------------
# bootstrap
# ------------------------------------------------------------------------------------------


def _slow_bootstrap(x: np.ndarray, n_resamples: int, seed: int, confidence: float) -> tuple:
    """One resample at a time with the same draws as the fast path (one block of indices)."""
    rng = np.random.default_rng(seed)
    n = x.shape[0]
    idx = rng.integers(0, n, size=(n_resamples, n))
    means = []
    for row in idx:
        sample = x[row]
        sample = sample[~np.isnan(sample)]
        means.append(sample.mean() if sample.size else np.nan)
    a = 1 - confidence
    return tuple(np.nanquantile(np.array(means), [a / 2, 1 - a / 2]))


def test_bootstrap_ci_equals_a_slow_resample_loop() -> None:
    rng = np.random.default_rng(3)
    x = rng.random(40)
    x[[3, 17]] = np.nan  # blank queries
    ci = stats.bootstrap_ci(x, n_resamples=500, seed=11)
    lo, hi = _slow_bootstrap(x, 500, 11, 0.95)
    assert float(ci.low) == pytest.approx(lo, abs=1e-12)
    assert float(ci.high) == pytest.approx(hi, abs=1e-12)
    assert float(ci.mean) == pytest.approx(np.nanmean(x))


def test_bootstrap_ci_is_seeded_and_deterministic() -> None:
    x = np.random.default_rng(0).random((3, 200))
    a = stats.bootstrap_ci(x, n_resamples=300, seed=5)
    b = stats.bootstrap_ci(x, n_resamples=300, seed=5)
    c = stats.bootstrap_ci(x, n_resamples=300, seed=6)
    np.testing.assert_array_equal(a.low, b.low)
    np.testing.assert_array_equal(a.high, b.high)
    assert not np.array_equal(a.low, c.low)


def test_bootstrap_ci_of_a_row_does_not_depend_on_the_other_rows() -> None:
    x = np.random.default_rng(1).random((4, 150))
    all_rows = stats.bootstrap_ci(x, n_resamples=400, seed=2)
    one = stats.bootstrap_ci(x[2], n_resamples=400, seed=2)
    assert all_rows.low[2] == pytest.approx(float(one.low), abs=1e-12)
    assert all_rows.high[2] == pytest.approx(float(one.high), abs=1e-12)


def test_bootstrap_ci_covers_the_mean_and_a_constant_gives_a_point() -> None:
    x = np.random.default_rng(4).normal(0.5, 0.1, size=(5, 300))
    ci = stats.bootstrap_ci(x, n_resamples=1000)
    assert np.all(ci.low <= ci.mean)
    assert np.all(ci.mean <= ci.high)
    flat = stats.bootstrap_ci(np.full(30, 0.25), n_resamples=100)
    assert float(flat.low) == pytest.approx(0.25)
    assert float(flat.high) == pytest.approx(0.25)


def test_bootstrap_ci_covers_the_true_mean_about_95_percent_of_the_time() -> None:
    # 300 independent samples of 60 normal(0, 1) values: the percentile interval should cover 0
    # in roughly 95% of them (binomial sd ~1.3%; the percentile method runs a little narrow).
    rng = np.random.default_rng(12)
    data = rng.normal(0.0, 1.0, size=(300, 60))
    ci = stats.bootstrap_ci(data, n_resamples=1000, seed=1)
    coverage = np.mean((ci.low <= 0.0) & (ci.high >= 0.0))
    assert 0.88 <= coverage <= 0.99


def test_bootstrap_of_an_all_nan_row_is_nan() -> None:
    ci = stats.bootstrap_ci(np.array([[np.nan, np.nan], [1.0, 2.0]]), n_resamples=50)
    assert math.isnan(ci.low[0])
    assert not math.isnan(ci.low[1])


# ------------------------------------------------------------------------------------------
# randomization test
# ------------------------------------------------------------------------------------------


def _enumerated_p(d: np.ndarray) -> float:
    obs = abs(d.sum())
    hits = 0
    total = 0
    for signs in itertools.product((1, -1), repeat=len(d)):
        total += 1
        hits += abs(float(np.dot(signs, d))) >= obs - 1e-12
    return hits / total


def test_randomization_p_value_by_hand() -> None:
    # d = 1, 2, 3: the 8 signed sums are ±6, ±4, ±2, 0, 0; |sum| >= 6 for 2 of 8.
    assert float(stats.randomization_test([1.0, 2.0, 3.0])) == pytest.approx(0.25)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_randomization_is_exact_enumeration_for_tiny_n(seed: int) -> None:
    d = np.random.default_rng(seed).normal(0.1, 1.0, size=9)
    assert float(stats.randomization_test(d, n_resamples=1000)) == pytest.approx(_enumerated_p(d))


def test_randomization_monte_carlo_is_close_to_exact_enumeration() -> None:
    d = np.random.default_rng(7).normal(0.3, 1.0, size=16)
    bits = (np.arange(1 << 16)[:, None] >> np.arange(16)) & 1
    signs = 1.0 - 2.0 * bits
    exact = np.mean(np.abs(signs @ d) >= abs(d.sum()) - 1e-12)
    p = float(stats.randomization_test(d, n_resamples=20_000, seed=3))
    assert p == pytest.approx(exact, abs=0.02)
    assert float(stats.randomization_test(d, n_resamples=20_000, seed=3)) == p  # seeded


def test_randomization_ignores_nan_queries_and_identical_systems_give_one() -> None:
    d = np.array([1.0, np.nan, 2.0, 3.0])
    assert float(stats.randomization_test(d)) == pytest.approx(0.25)
    assert float(stats.randomization_test(np.zeros(50))) == 1.0


def test_randomization_rows_are_independent_tests() -> None:
    d = np.random.default_rng(5).normal(0.2, 1.0, size=(3, 10))
    p = stats.randomization_test(d, n_resamples=2000)
    for i in range(3):
        assert p[i] == pytest.approx(_enumerated_p(d[i]))


# ------------------------------------------------------------------------------------------
# paired t
# ------------------------------------------------------------------------------------------


def test_paired_t_matches_the_formula() -> None:
    a = np.array([3.0, 5.0, 7.0, 9.0])
    b = np.array([2.0, 3.0, 4.0, 5.0])
    # d = 1, 2, 3, 4: mean 2.5, sd sqrt(5/3), t = 2.5 / (sd / 2), 3 degrees of freedom.
    t = 2.5 / (math.sqrt(5 / 3) / 2)
    expected = 2 * sps.t.sf(t, 3)
    assert float(stats.paired_t_test(a, b)) == pytest.approx(expected, rel=1e-12)


def test_paired_t_rows_match_scipy_and_drop_nan_queries() -> None:
    rng = np.random.default_rng(9)
    a = rng.random((3, 30))
    b = rng.random(30)
    a[1, 4] = np.nan
    p = stats.paired_t_test(a, b)
    assert p[0] == pytest.approx(sps.ttest_rel(a[0], b).pvalue)
    keep = ~np.isnan(a[1])
    assert p[1] == pytest.approx(sps.ttest_rel(a[1][keep], b[keep]).pvalue)


def test_paired_t_degenerate_rows() -> None:
    x = np.arange(5.0)
    assert float(stats.paired_t_test(x, x)) == 1.0
    assert math.isnan(float(stats.paired_t_test(x + 1.0, x)))  # no variance: t undefined
    assert math.isnan(float(stats.paired_t_test([1.0], [0.0])))


# ------------------------------------------------------------------------------------------
# Holm
# ------------------------------------------------------------------------------------------


def test_holm_hand_example() -> None:
    # Sorted: 0.005, 0.01, 0.03, 0.04 (m = 4) → 4·0.005 = 0.02, 3·0.01 = 0.03, 2·0.03 = 0.06,
    # 1·0.04 = 0.04 → running max 0.02, 0.03, 0.06, 0.06 (statsmodels multipletests "holm").
    adj = stats.holm([0.01, 0.04, 0.03, 0.005])
    np.testing.assert_allclose(adj, [0.03, 0.06, 0.06, 0.02])


def test_holm_caps_at_one_and_keeps_nan_out_of_the_family() -> None:
    # m = 2 (NaN excluded): sorted 0.3, 0.6 → 0.6, max(0.6, 0.6) = 0.6.
    np.testing.assert_allclose(stats.holm([np.nan, 0.6, 0.3]), [np.nan, 0.6, 0.6])
    np.testing.assert_allclose(stats.holm([0.5, 0.7, 0.9]), [1.0, 1.0, 1.0])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=12))
def test_holm_is_monotone_bounded_and_at_least_the_raw_p(ps: list[float]) -> None:
    p = np.array(ps)
    adj = stats.holm(p)
    assert np.all(adj >= p - 1e-15)
    assert np.all(adj <= 1.0)
    order = np.argsort(p, kind="stable")
    assert np.all(np.diff(adj[order]) >= -1e-15)
    # slow definition
    m = len(p)
    slow = [max(min(1.0, (m - j) * p[order[j]]) for j in range(i + 1)) for i in range(m)]
    np.testing.assert_allclose(adj[order], slow)


# ------------------------------------------------------------------------------------------
# compare with the best row
# ------------------------------------------------------------------------------------------


def test_compare_with_best_tests_each_row_against_the_highest_mean() -> None:
    rng = np.random.default_rng(2)
    base = rng.random(12)
    x = np.vstack([base - 0.05 + rng.normal(0, 0.05, 12), base + 0.1, base - 0.3 + rng.normal(0, 0.01, 12)])
    res = stats.compare_with_best(x, n_resamples=5000)
    assert res.best == 1
    assert math.isnan(res.p_randomization[1])
    assert math.isnan(res.p_t_holm[1])
    for i in (0, 2):
        assert res.p_randomization[i] == pytest.approx(_enumerated_p(x[1] - x[i]))
        assert res.p_t[i] == pytest.approx(sps.ttest_rel(x[1], x[i]).pvalue)
    np.testing.assert_allclose(res.p_t_holm, stats.holm(res.p_t))
    np.testing.assert_allclose(res.p_randomization_holm, stats.holm(res.p_randomization))
    assert res.n_queries.tolist() == [12, 12, 12]
