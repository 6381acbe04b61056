"""``ltrbench perf ranked``: the ranked components' compiled twins against their NumPy pass.

One run generates ``--queries`` queries of about ``--docs-per-query`` documents (sizes uniform in
``[d - 10, d + 10]``, labels 0-4 with P = .5, .25, .15, .07, .03, 10 % of the documents
unjudged, scores ``label / 2 + N(0, 1)`` rounded to 2 decimals: some ties) and times
:func:`bench.metrics.kernels.judged.judged_components` for one component at a time (the
components of issue 23's families: ``fall``, ``crr``, ``rprec``, ``rprec_mult``, ``rbp``,
``rbp_residual``, ``iprec``, ``infap``, the AUC pair counts) with ``backend="numba"`` (the twins
of :mod:`bench.metrics.kernels.numba_ranked`) and ``backend="numpy"``
(:mod:`bench.metrics.kernels.ranked`), in turns (A, B, A, B, ...; the minimum of each side), so
that a busy machine slows both alike. Two tables: end to end (both sides include the shared
sort of every query, :func:`bench.metrics.kernels.numpy_kernel.rank_order`, timed alone too),
and the components alone (the order computed once beforehand). ``KERNELS``' ``twin_default`` in
:mod:`bench.metrics.kernels.judged` keeps a twin as ``backend="auto"``'s choice only where these
ratios are below 1. First (unless ``--no-compile-check``), the first call of every twin in a
fresh process, with an empty numba cache and then with it filled. Printed, and with ``--out``
written as Markdown.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial

import numpy as np
from numpy.typing import NDArray

from bench.data.atomic import write_text
from bench.data.groups import group_index
from bench.machine import cpu_model, load_average, usable_cpus
from bench.metrics.kernels import judged
from bench.metrics.kernels.components import Request
from bench.metrics.kernels.numpy_kernel import rank_order

#: One request per timed row: a component at the cutoffs or parameter its family asks.
CASES: dict[str, dict[str, tuple[int | None, ...]]] = {
    "fall@10": {"fall": (10,)}, "fall": {"fall": (None,)}, "crr@10": {"crr": (10,)},
    "rprec": {"rprec": (None,)}, "rprec@10": {"rprec": (10,)},
    "rprec_mult=0.5": {"rprec_mult=0.5": (None,)}, "rbp=0.8": {"rbp=0.8": (None,)},
    "rbp_residual=0.8": {"rbp_residual=0.8": (None,)}, "iprec=0.5": {"iprec=0.5": (None,)},
    "infap": {"infap": (None,)}, "auc, auc_pairs": {"auc": (None,), "auc_pairs": (None,)},
}
_ORDERED = ("iprec=0.5", "infap")
_TIES = ("stable", "average", "pessimistic", "optimistic", "random", "docno_desc", "docno_asc",
         "row_desc")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``ltrbench perf ranked``."""
    parser.add_argument("--queries", type=int, default=100_000, help="number of queries (100000)")
    parser.add_argument("--docs-per-query", type=int, default=20,
                        help="query sizes are uniform in [d-10, d+10] (20)")
    parser.add_argument("--ties", choices=_TIES, default="docno_desc",
                        help="the tie rule (docno_desc: trec_eval's; average skips iprec, infap)")
    parser.add_argument("--repeat", type=int, default=3, help="turns per side (min)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", metavar="FILE.md", help="also write the figures as Markdown")
    parser.add_argument("--no-compile-check", dest="compile_check", action="store_false",
                        help="skip timing the twins' compile in a fresh numba cache (subprocesses)")


def run(args: argparse.Namespace) -> int:
    """Time every case on both backends in turns; print (and write) the two tables."""
    x = _inputs(args.queries, args.docs_per_query, args.seed)
    tk = None if args.ties in ("stable", "average", "pessimistic", "optimistic") else x["key"]
    cases = {k: v for k, v in CASES.items() if args.ties != "average" or k not in _ORDERED}

    gidx = group_index(x["offsets"])
    order = rank_order(gidx, x["scores"], x["gain"], args.ties, tk)
    shared: dict[str, NDArray[np.int64] | None] = {"order": None}

    def call(ks: dict[str, tuple[int | None, ...]], backend: str) -> None:
        judged.judged_components(
            x["rel"], x["non"], x["gain"], x["scores"], x["offsets"], ties=args.ties, tiekey=tk,
            r_basis=x["r"], n_nonrel=x["n_non"], request=Request(ks=ks, ties_k=None),
            unjudged=x["unj"], pooled=x["unj"], backend=backend, order=shared["order"])

    cold, warm = _compile_time() if args.compile_check else (None, None)
    every = {k: v for c in cases.values() for k, v in c.items()}
    for backend in ("numba", "numpy"):  # compile / warm up, not timed
        call(every, backend)
    t_order = _best(lambda: rank_order(gidx, x["scores"], x["gain"], args.ties, tk), args.repeat)
    n = int(x["offsets"][-1])
    lines = [f"# ltrbench perf ranked: {n:,} documents, {args.queries:,} queries, "
             f"ties {args.ties}", "",
             f"- CPU: {cpu_model()}, compiled threads {usable_cpus()}, load average before "
             f"{load_average()}", f"- the shared sort (rank_order) alone: {t_order:.3f} s"]
    if cold is not None:
        lines.append(f"- first call of every twin in a fresh process: {cold:.2f} s with an empty "
                     f"numba cache (compile), {warm:.2f} s with it filled (numba loaded before)")
    lines.append("")
    for title, given in (("end to end (the sort included)", None),
                         ("the components alone (the order computed beforehand)", order)):
        shared["order"] = given
        lines += _table(title, cases, call, args.repeat)
    lines.append(f"- load average after {load_average()}")
    text = "\n".join(lines) + "\n"
    print(text, end="", flush=True)
    if args.out:
        write_text(args.out, text)
    return 0


def _table(title: str, cases: dict[str, dict[str, tuple[int | None, ...]]],
           call: Callable[[dict[str, tuple[int | None, ...]], str], None], repeat: int
           ) -> list[str]:
    rows = [f"## {title}", "", "| component | compiled twin (s) | NumPy pass (s) | twin / NumPy |",
            "|---|---:|---:|---:|"]
    for name, ks in cases.items():
        best = {"numba": np.inf, "numpy": np.inf}
        for _ in range(repeat):  # in turns: A, B, A, B, ...
            for backend in best:
                best[backend] = min(best[backend], _best(partial(call, ks, backend), 1))
        rows.append(f"| {name} | {best['numba']:.3f} | {best['numpy']:.3f} | "
                    f"{best['numba'] / best['numpy']:.2f}x |")
        print(rows[-1], flush=True)
    return [*rows, ""]


_COMPILE = """
import time, numpy as np
import bench.metrics.kernels.numba_ranked
from bench.metrics.kernels.components import Request
from bench.metrics.kernels.judged import judged_components
x = np.array([1.0, 0.0, 1.0])
ks = {"fall": (None,), "iprec=0.5": (None,), "infap": (None,), "auc": (None,)}
t = time.perf_counter()
judged_components(x, 1 - x, x, np.array([3.0, 2.0, 1.0]), np.array([0, 3]), ties="stable",
                  tiekey=None, r_basis=np.array([2.0]), n_nonrel=np.array([1.0]),
                  request=Request(ks=ks, ties_k=None), backend="numba")
print(time.perf_counter() - t)
"""


def _compile_time() -> tuple[float, float]:
    """The first call of every twin kernel in a fresh process (numba imported beforehand): with
    an empty numba cache (each kernel compiled), then with the cache it filled."""
    times = []
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        for _ in range(2):
            out = subprocess.run([sys.executable, "-c", _COMPILE], env=env, capture_output=True,
                                 text=True, check=True)
            times.append(float(out.stdout.split()[-1]))
    return times[0], times[1]


def _best(fn: Callable[[], object], repeat: int) -> float:
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return float(best)


def _inputs(n_q: int, d: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(max(1, d - 10), d + 11, size=n_q)
    n = int(sizes.sum())
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    label = rng.choice(5, size=n, p=[0.5, 0.25, 0.15, 0.07, 0.03])
    unj = rng.random(n) < 0.1
    rel = ((label >= 1) & ~unj).astype(np.float64)
    non = ((label == 0) & ~unj).astype(np.float64)
    gidx = group_index(offsets)
    return {"rel": rel, "non": non, "unj": unj, "gain": 2.0 ** label - 1.0,
            "scores": np.round(label / 2 + rng.normal(size=n), 2), "offsets": offsets,
            "key": rng.permutation(n).astype(np.int64),
            "r": np.bincount(gidx, weights=rel, minlength=n_q),
            "n_non": np.bincount(gidx, weights=non, minlength=n_q)}
