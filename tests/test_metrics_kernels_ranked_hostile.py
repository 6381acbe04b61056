"""Hostile inputs for the ranked components' compiled twins (``numba_ranked``): each case gives
the NumPy pass's numbers (its oracle) or, where stated, the hand-computed ones.

Cases: cutoffs past the end of a query and beyond an integer (Rprec_mult at its largest
multiple, a cutoff of 2**62), an empty query between others, ``-0.0`` tied with ``0.0`` under
average ties, one tied group of 300 rows (closed form), strided and float32 inputs (another
compiled signature), every row unjudged, RBP's persistence near 0 and 1, a query of more rows
than the parallel limit (one block), and a request naming one component twice (AUC's sums).
"""

from __future__ import annotations

import numpy as np
import pytest

import bench.metrics.kernels.judged as judged
from bench.metrics.kernels.components import Request

ALL: dict[str, tuple[int | None, ...]] = {
    "fall": (None, 2), "crr": (None, 3), "rprec": (None, 2), "rprec_mult=1000000.0": (None,),
    "rprec_mult=0.5": (None,), "rbp=0.8": (None, 4), "rbp_residual=0.8": (None,),
    "iprec=0.5": (None,), "iprec=0.0": (None,), "infap": (None,), "auc": (None,),
    "auc_pairs": (None,)}
ORDERED = ("iprec=0.5", "iprec=0.0", "infap")


def _both(rel: np.ndarray, scores: np.ndarray, offsets: np.ndarray, ks: dict[str, tuple[int | None, ...]],
          *, ties: str = "stable", unj: np.ndarray | None = None, r: np.ndarray | None = None,
          threads: int | None = None) -> dict[str, dict[tuple[str, int | None], np.ndarray]]:
    unjudged = np.zeros(rel.shape[0], dtype=bool) if unj is None else unj
    non = (1.0 - rel) * ~unjudged
    n_q = offsets.shape[0] - 1
    sizes = np.diff(offsets)
    gidx = np.repeat(np.arange(n_q), sizes)
    r_basis = np.bincount(gidx, weights=rel, minlength=n_q) if r is None else r
    n_non = np.bincount(gidx, weights=non, minlength=n_q)
    if ties == "average":
        ks = {n: k for n, k in ks.items() if n not in ORDERED}
    return {b: judged.judged_components(
        rel, non, rel.copy(), scores, offsets, ties=ties, tiekey=None, r_basis=r_basis,
        n_nonrel=n_non, request=Request(ks=ks, ties_k=None), unjudged=unjudged, pooled=unjudged,
        backend=b, threads=threads) for b in ("numba", "numpy")}


def _same(res: dict[str, dict[tuple[str, int | None], np.ndarray]]) -> None:
    assert set(res["numba"]) == set(res["numpy"])
    for key, v in res["numpy"].items():
        np.testing.assert_allclose(res["numba"][key], v, rtol=0, atol=1e-12, err_msg=str(key))


def test_cutoffs_past_the_end_and_past_an_integer() -> None:
    rel = np.array([1.0, 0.0, 1.0, 1.0, 0.0])
    offsets = np.array([0, 5])
    ks = {"fall": (2**62,), "rprec": (2**62,), "rprec_mult=1000000.0": (None,), "rbp=0.8": (2**62,)}
    res = _both(rel, np.arange(5.0)[::-1].copy(), offsets, ks, r=np.array([3.0e300]))
    _same(res)
    assert res["numba"][("rprec_mult=1000000.0", None)][0] == 3.0  # every relevant row


def test_an_empty_query_between_others_gives_zeros() -> None:
    rel = np.array([1.0, 0.0, 0.0, 1.0])
    res = _both(rel, np.array([1.0, 2.0, 1.0, 1.0]), np.array([0, 2, 2, 4]), ALL)
    _same(res)
    for v in res["numba"].values():
        assert v[1] == 0.0


@pytest.mark.parametrize("ties", ["stable", "average"])
def test_minus_zero_ties_with_zero(ties: str) -> None:
    rel = np.array([0.0, 1.0, 0.0, 1.0])
    res = _both(rel, np.array([0.0, -0.0, 0.0, -0.0]), np.array([0, 4]), ALL, ties=ties)
    _same(res)
    assert res["numba"][("auc", None)][0] == 2.0  # four tied pairs, 1/2 each


def test_one_tied_group_of_300_rows_in_closed_form() -> None:
    n = 300
    rel = (np.arange(n) % 3 == 0).astype(np.float64)
    res = _both(rel, np.zeros(n), np.array([0, n]), ALL, ties="average")
    _same(res)
    got = res["numba"]
    assert got[("fall", 2)][0] == pytest.approx(2 * 200 / 300, abs=1e-12)
    assert got[("crr", 3)][0] == pytest.approx((1 + 1 / 2 + 1 / 3) / 3, abs=1e-12)
    assert got[("rprec", None)][0] == pytest.approx(100 / 3, abs=1e-9)


def test_strided_and_float32_inputs_give_the_same_numbers() -> None:
    rng = np.random.default_rng(0)
    wide = rng.integers(0, 2, size=40).astype(np.float64)
    rel = wide[::2]  # a strided view
    scores = rng.integers(0, 4, size=20).astype(np.float32).astype(np.float64)[::-1]
    _same(_both(rel, scores, np.array([0, 7, 20]), ALL))


def test_every_row_unjudged() -> None:
    rel = np.zeros(6)
    res = _both(rel, np.arange(6.0), np.array([0, 3, 6]), ALL, unj=np.ones(6, dtype=bool))
    _same(res)
    np.testing.assert_allclose(res["numba"][("rbp_residual=0.8", None)], [1 - 0.8**3] * 2)


@pytest.mark.parametrize("p", [1e-300, 0.5, 1 - 1e-16])
def test_rbp_persistence_near_its_bounds(p: float) -> None:
    rel = np.array([1.0, 1.0, 0.0, 1.0])
    _same(_both(rel, np.array([4.0, 3.0, 2.0, 1.0]), np.array([0, 4]),
                {f"rbp={p!r}": (None, 2), f"rbp_residual={p!r}": (None,)}))


def test_one_query_longer_than_the_parallel_limit() -> None:
    n = (1 << 20) + 5
    rng = np.random.default_rng(1)
    rel = (rng.random(n) < 0.1).astype(np.float64)
    ks = {"fall": (10, None), "rbp=0.8": (None,), "auc": (None,), "iprec=0.5": (None,)}
    _same(_both(rel, rng.integers(0, 1000, size=n).astype(np.float64), np.array([0, n]), ks,
                threads=2))


def test_auc_and_its_pair_count_asked_in_either_order() -> None:
    rel = np.array([1.0, 0.0, 0.0, 1.0, 0.0])
    for ks in ({"auc_pairs": (None,), "auc": (None,)}, {"auc": (None,), "auc_pairs": (None,)}):
        res = _both(rel, np.array([3.0, 3.0, 1.0, 2.0, 0.0]), np.array([0, 5]), ks)
        _same(res)
        assert res["numba"][("auc", None)][0] == 0.5 + 1 + 1 + 1 + 1  # (3,3) tied: 1/2
        assert res["numba"][("auc_pairs", None)][0] == 6.0
