"""The ranked components: compiled twin (``numba_ranked``) == NumPy pass (``ranked``) == slow oracle.

Per query and component (fall-out's, NCRR's and R-precision's sums, Rprec_mult, RBP and its
residual, interpolated precision, infAP, the AUC pair counts), under every tie rule the profiles
use, with blank queries (no relevant document), single-document queries, unjudged and pooled
documents. The oracle (``tests/ranked_oracles.py``) sorts each query with ``sorted`` and
averages over every order of each tied group; the golden numbers are its, never the kernels'.
"""

from __future__ import annotations

import sys
import zlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ranked_oracles import Doc, expected

import bench.metrics.kernels.judged as judged
from bench.metrics.kernels.components import Request, split_param

TIES = ("stable", "average", "pessimistic", "optimistic", "random", "docno_desc", "docno_asc",
        "row_desc")
#: Components that need one order (their families are refused under ``ties="average"``).
ORDERED = {"iprec", "infap"}
KS: dict[str, tuple[int | None, ...]] = {
    "fall": (None, 1, 3), "crr": (2, None), "rprec": (None, 2, 1), "rprec_mult=0.5": (None,),
    "rprec_mult=1.5": (None,), "rprec_mult=0.2": (None,), "rbp=0.8": (None, 3),
    "rbp=0.5": (2,), "rbp_residual=0.9": (None, 4), "auc": (None,), "auc_pairs": (None,),
    "iprec=0.0": (None,), "iprec=0.3": (None,), "iprec=1.0": (None,), "infap": (None,)}
TOL = 1e-12


def _inputs(rng: np.random.Generator, n_q: int, max_size: int = 7, levels: int = 3
            ) -> dict[str, np.ndarray]:
    sizes = rng.integers(1, max_size + 1, size=n_q)
    sizes[: max(1, n_q // 8)] = 1
    rng.shuffle(sizes)
    n = int(sizes.sum())
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    label = rng.integers(0, 3, size=n)
    blank = np.repeat(rng.random(n_q) < 0.25, sizes)  # queries without a relevant document
    label[blank] = 0
    unj = rng.random(n) < 0.2
    rel = (label >= 1) & ~unj
    non = ~rel & ~unj
    pool = unj & (rng.random(n) < 0.5)
    gidx = np.repeat(np.arange(n_q), sizes)
    extra_rel = np.where(rng.random(n_q) < 0.3, rng.integers(0, 3, size=n_q), 0)
    extra_non = rng.integers(0, 2, size=n_q)
    return {
        "rel": rel.astype(np.float64), "non": non.astype(np.float64), "unj": unj, "pool": pool,
        "gain": (2.0 ** label - 1.0) * ~unj,
        "scores": rng.integers(0, levels, size=n).astype(np.float64) / 2.0,
        "offsets": offsets, "key": rng.permutation(n).astype(np.int64),
        "r": np.bincount(gidx, weights=rel, minlength=n_q) + extra_rel,
        "n_non": np.bincount(gidx, weights=non, minlength=n_q) + extra_non,
    }


def _kernel(x: dict[str, np.ndarray], ties: str, ks: dict[str, tuple[int | None, ...]],
            backend: str, threads: int | None = None
            ) -> dict[tuple[str, int | None], np.ndarray]:
    return judged.judged_components(
        x["rel"], x["non"], x["gain"], x["scores"], x["offsets"], ties=ties,
        tiekey=None if ties in ("stable", "average", "pessimistic", "optimistic") else x["key"],
        r_basis=x["r"], n_nonrel=x["n_non"], request=Request(ks=ks, ties_k=None),
        unjudged=x["unj"], pooled=x["pool"], backend=backend, threads=threads)


def _wanted(ties: str) -> dict[str, tuple[int | None, ...]]:
    return {n: ks for n, ks in KS.items() if ties != "average" or split_param(n)[0] not in ORDERED}


def _oracle(x: dict[str, np.ndarray], ties: str, name: str, k: int | None) -> np.ndarray:
    base, param = split_param(name)
    off = x["offsets"]
    out = []
    for q in range(off.shape[0] - 1):
        rows = range(off[q], off[q + 1])
        docs = [Doc(float(x["scores"][i]), bool(x["rel"][i]), bool(x["non"][i]),
                    bool(x["unj"][i]), bool(x["pool"][i]), float(x["gain"][i]),
                    int(x["key"][i])) for i in rows]
        out.append(expected(base, param, k, docs, float(x["r"][q]), ties))
    return np.asarray(out)


@pytest.mark.parametrize("ties", TIES)
def test_the_compiled_twins_equal_the_numpy_pass_and_the_slow_oracle_per_query(ties: str) -> None:
    x = _inputs(np.random.default_rng(zlib.crc32(ties.encode())), 60)
    ks = _wanted(ties)
    compiled = _kernel(x, ties, ks, "numba")
    vectorised = _kernel(x, ties, ks, "numpy")
    assert set(compiled) == set(vectorised) == {(n, k) for n, kk in ks.items() for k in kk}
    for (name, k), got in compiled.items():
        gold = _oracle(x, ties, name, k)
        np.testing.assert_allclose(got, gold, rtol=0, atol=TOL, err_msg=f"numba {name}@{k}")
        np.testing.assert_allclose(vectorised[(name, k)], gold, rtol=0, atol=TOL,
                                   err_msg=f"numpy {name}@{k}")


@pytest.mark.parametrize("ties", ["stable", "average", "docno_desc"])
def test_continuous_scores_and_long_queries_agree_too(ties: str) -> None:
    x = _inputs(np.random.default_rng(7), 40, max_size=40, levels=1000)
    ks = _wanted(ties)
    compiled = _kernel(x, ties, ks, "numba")
    for key, got in _kernel(x, ties, ks, "numpy").items():
        np.testing.assert_allclose(compiled[key], got, rtol=0, atol=TOL, err_msg=str(key))
        np.testing.assert_allclose(got, _oracle(x, ties, *key), rtol=0, atol=TOL, err_msg=str(key))


def test_blank_and_single_document_queries_by_hand() -> None:
    """Query 0: one relevant row; query 1: one judged non-relevant row (blank); query 2: an
    unjudged row in the pool ranked above a relevant one (infAP 1/2 + (1/2)(1/1)(eps/2eps))."""
    x = {"rel": np.array([1.0, 0.0, 0.0, 1.0]), "non": np.array([0.0, 1.0, 0.0, 0.0]),
         "unj": np.array([False, False, True, False]), "pool": np.array([False, False, True, False]),
         "gain": np.array([1.0, 0.0, 0.0, 1.0]), "scores": np.array([1.0, 1.0, 2.0, 1.0]),
         "offsets": np.array([0, 1, 2, 4]), "key": np.arange(4), "r": np.array([1.0, 0.0, 1.0]),
         "n_non": np.array([0.0, 1.0, 0.0])}
    for backend in ("numba", "numpy"):
        got = _kernel(x, "stable", {"infap": (None,), "fall": (None,), "rbp_residual=0.5": (None,),
                                    "iprec=0.0": (None,), "rprec": (None,), "auc": (None,)},
                      backend)
        np.testing.assert_allclose(got[("infap", None)], [1.0, 0.0, 0.5 + 0.5 * 0.5], atol=TOL)
        np.testing.assert_allclose(got[("fall", None)], [0.0, 1.0, 0.0])
        np.testing.assert_allclose(got[("rbp_residual=0.5", None)], [0.0, 0.0, 0.5])
        np.testing.assert_allclose(got[("iprec=0.0", None)], [1.0, 0.0, 0.5])
        np.testing.assert_allclose(got[("rprec", None)], [1.0, 0.0, 0.0])
        np.testing.assert_allclose(got[("auc", None)], [0.0, 0.0, 0.0])  # unjudged above: a loss


def test_the_threaded_blocks_give_the_single_thread_numbers() -> None:
    """Above 2**20 rows the twins run in blocks of queries over threads: the same numbers."""
    x = _inputs(np.random.default_rng(3), (1 << 20) // 4 + 1000, max_size=7)
    ks = {"fall": (None, 3), "rbp=0.8": (None,), "auc": (None,), "rprec": (None,)}
    one = _kernel(x, "docno_desc", ks, "numba", threads=1)
    two = _kernel(x, "docno_desc", ks, "numba", threads=2)
    ref = _kernel(x, "docno_desc", ks, "numpy")
    for key, v in one.items():
        np.testing.assert_array_equal(v, two[key])
        np.testing.assert_allclose(v, ref[key], rtol=0, atol=TOL)


def test_the_record_picks_the_kernel_per_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    """``numba`` takes every twin, ``auto`` the twins measured faster, ``numpy`` / ``python``
    none (and never imports the compiled module); bpref and nonrel have no twin."""
    asked: list[set[str]] = []
    import bench.metrics.kernels.numba_ranked as nr

    real = nr.ranked_components
    monkeypatch.setattr(nr, "ranked_components",
                        lambda *a, **kw: asked.append(set(kw["ks"])) or real(*a, **kw))
    x = _inputs(np.random.default_rng(1), 10)
    ks = {"fall": (None,), "bpref": (None,), "nonrel": (None,), "auc": (None,)}
    for backend in ("numpy", "python"):
        _kernel(x, "stable", ks, backend)
    assert asked == []
    _kernel(x, "stable", ks, "numba")
    assert asked == [{"fall", "auc"}]
    _kernel(x, "stable", ks, "auto")
    assert asked[1] == {n for n in ("fall", "auc") if judged.KERNELS[n].twin_default}
    assert not judged.KERNELS["bpref"].twin
    assert not judged.KERNELS["nonrel"].twin


def test_the_numpy_path_never_imports_numba() -> None:
    import subprocess

    code = ("import sys, numpy as np; import bench.metrics.kernels.judged as j; "
            "from bench.metrics.kernels.components import Request; "
            "j.judged_components(np.ones(2), np.zeros(2), np.ones(2), np.array([1., 0.]), "
            "np.array([0, 2]), ties='stable', tiekey=None, r_basis=np.array([2.]), "
            "n_nonrel=np.array([0.]), request=Request(ks={'fall': (None,)}, ties_k=None), "
            "backend='python'); print('numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("ties", TIES)
def test_the_compiled_order_is_the_lexsort_order(ties: str) -> None:
    """Each query sorted on its own (runs of 16 by insertion, then merges) gives exactly
    ``rank_order``'s permutation: queries of 1 to 300 rows, ties, ``-0.0`` beside ``0.0``."""
    from bench.metrics.kernels.numba_kernel import MODES
    from bench.metrics.kernels.numba_ranked import rank_order as compiled_order
    from bench.metrics.kernels.numpy_kernel import rank_order

    rng = np.random.default_rng(zlib.crc32(ties.encode()))
    sizes = np.concatenate([rng.integers(1, 40, size=60), [1, 16, 17, 32, 33, 300]])
    n = int(sizes.sum())
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    scores = rng.integers(-2, 3, size=n) * 0.5
    scores[scores == 0] = np.where(rng.random(int((scores == 0).sum())) < 0.5, -0.0, 0.0)
    gain = rng.integers(0, 3, size=n).astype(np.float64)
    key = None if MODES[ties] < 4 else rng.permutation(n).astype(np.int64)
    want = rank_order(np.repeat(np.arange(sizes.shape[0]), sizes), scores, gain, ties, key)
    for threads in (1, 2):
        np.testing.assert_array_equal(compiled_order(scores, gain, offsets, MODES[ties], key,
                                                     threads), want)


@st.composite
def _queries(draw: st.DrawFn) -> tuple[dict[str, np.ndarray], str]:
    seed = draw(st.integers(0, 2**32 - 1))
    n_q = draw(st.integers(1, 12))
    levels = draw(st.sampled_from([1, 2, 3, 50]))
    return _inputs(np.random.default_rng(seed), n_q, max_size=9, levels=levels), draw(
        st.sampled_from(TIES))


@settings(max_examples=60, deadline=None)
@given(_queries())
def test_property_the_compiled_twins_equal_the_numpy_pass(case: tuple[dict[str, np.ndarray], str]
                                                          ) -> None:
    x, ties = case
    ks = _wanted(ties)
    compiled = _kernel(x, ties, ks, "numba")
    for key, got in _kernel(x, ties, ks, "numpy").items():
        np.testing.assert_allclose(compiled[key], got, rtol=0, atol=TOL, err_msg=str(key))


def test_the_perf_benchmark_times_every_component_on_both_sides(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``ltrbench perf ranked`` (tiny): a row per component in each of its two tables, a ratio
    each, the Markdown written."""
    import argparse

    from bench.perf.ranked import CASES, run

    out = tmp_path / "ranked.md"
    args = argparse.Namespace(queries=50, docs_per_query=12, ties="docno_desc", repeat=1, seed=0,
                              out=str(out), compile_check=False)
    assert run(args) == 0
    text = out.read_text()
    assert text.startswith("# ltrbench perf ranked: ")
    assert text.splitlines()[0] in capsys.readouterr().out
    for name in CASES:
        assert text.count(f"| {name} |") == 2, name
    assert text.count("x |") == 2 * len(CASES)
