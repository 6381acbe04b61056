"""``ltrbench perf evaluator``: the reference evaluator's speed and memory beside its peers.

One run generates ``--queries`` queries of about ``--docs-per-query + 1`` documents (sizes
uniform in ``[d - 10, d + 12]``, labels 0-4 with P = .5, .25, .15, .07, .03, scores = label/2 +
N(0, 1)) and times, on the same arrays:

* the reference evaluator (``bench.metrics.evaluate``, default profile, average ties) computing
  ndcg@1,3,5,10, map@10, mrr, p@10 and recall@10 together, and ndcg@10 alone; the first call in a
  fresh numba cache (compile: an input above the small-input path) timed in a subprocess;
* LightGBM's built-in eval (scores as ``init_score``, a booster with 0 trees,
  ``Booster.eval_train``; Dataset construction excluded), for ndcg@10 alone and for
  ndcg@1,3,5,10 + map@1,3,5,10;
* XGBoost's built-in eval (scores as ``base_margin``, ``num_boost_round=0``, ``Booster.eval``;
  DMatrix construction excluded) for ndcg@10;
* pytrec_eval and ranx end to end (dicts built from the arrays, evaluation, mean) for the same 8
  metrics, at ``--peer-queries`` queries (they hold every document in Python dicts) and scaled
  linearly to ``--queries``; ranx's numba compile is excluded (warm-up call first).

Times are the minimum of ``--repeat`` runs (medians in the notes). "In turns": each side's
evaluator is built (for 1 thread, rebuilt once) before an untimed warm-up call of each, then the
two are timed alternately, so that a busy machine slows both alike and nothing excluded from one
side's time runs right before the other's. (Timed right after each booster rebuild, which frees
and allocates hundreds of MB, the reference's next call spent 0.1-0.3 s more zeroing the fresh
pages it faults in: ``clear_page_erms`` in ``perf record``, this VM reporting free pages to its
host; 0.51-0.55 s in turns against 0.39 s alone at 41M documents.) Each call in turns also notes
its system CPU time and the run time that older threads (LightGBM's OpenMP team spinning after its
parallel region, :func:`bench.machine.openmp_wait_policy`) took inside it. Peak extra memory:
tracemalloc's peak during one call and the peak RSS increase (``/proc/self/clear_refs``), per
document. Printed, and with ``--out`` written as Markdown."""

from __future__ import annotations

import argparse
import gc
import os
import platform
import subprocess
import sys
import tempfile
import textwrap
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from bench.data.atomic import write_text
from bench.data.groups import group_index, offsets_from_sizes
from bench.machine import cpu_model, usable_cpus
from bench.metrics.kernels.small import SMALL_INPUT_ROWS
from bench.perf.timing import Sample, describe, frozen_heap, in_turns, measure, ratio
from bench.runners.libraries import LIBRARIES as RECORDS

METRICS = "ndcg@1,3,5,10 map@10 mrr p@10 recall@10"
OURS = "reference: 8 metrics (group sizes)"
OURS_MT = "reference: 8 metrics, in turns with LightGBM"
OURS_1T = "reference: 8 metrics, 1 thread, in turns with LightGBM"
LGB_MT = "LightGBM built-in ndcg@10"
LGB_1T = "LightGBM built-in ndcg@10, 1 thread"
LGB_MANY = "LightGBM built-in ndcg@1,3,5,10 + map@1,3,5,10"
XGB = "XGBoost built-in ndcg@10"
OURS_XGB = "reference: 8 metrics, in turns with XGBoost"
#: The evaluators timed against the reference that are not a GBDT library.
TOOL_PEERS = ("pytrec_eval", "ranx")
_TREC_MEASURES = {"ndcg_cut.1,3,5,10", "map_cut.10", "recip_rank", "P.10", "recall.10"}
_RANX_METRICS = ["ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10", "map@10", "mrr", "precision@10", "recall@10"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``ltrbench perf evaluator``."""
    parser.add_argument("--queries", type=int, default=1_000_000, help="number of queries (1000000)")
    parser.add_argument("--docs-per-query", type=int, default=40,
                        help="query sizes are uniform in [d-10, d+12], mean d+1 (40)")
    parser.add_argument("--peers", default=",".join(PEERS),
                        help=f"comma-separated peers to time: {','.join(PEERS)} (default all installed)")
    parser.add_argument("--peer-queries", type=int, default=20_000,
                        help="queries for pytrec_eval and ranx, scaled to --queries (20000)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per measurement (min)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", metavar="FILE.md", help="also write the figures as Markdown")
    parser.add_argument("--no-compile-check", action="store_true",
                        help="skip timing the numba compile in a fresh cache (a subprocess)")


@dataclass
class Row:
    name: str
    seconds: float
    note: str = ""
    bytes_per_doc: float | None = None
    scaled_from: int | None = None


@dataclass
class Report:
    n_queries: int
    n_docs: int
    rows: list[Row] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def get(self, name: str) -> Row | None:
        return next((r for r in self.rows if r.name == name), None)


def generate(n_queries: int, docs_per_query: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Labels (float64), scores (float64) and group sizes of the benchmark data."""
    rng = np.random.default_rng(seed)
    lo = max(1, docs_per_query - 10)
    sizes = rng.integers(lo, docs_per_query + 13, size=n_queries)
    n = int(sizes.sum())
    labels = rng.choice(5, size=n, p=[0.5, 0.25, 0.15, 0.07, 0.03]).astype(np.float64)
    scores = labels * 0.5 + rng.normal(size=n)
    return labels, scores, sizes


@frozen_heap()
def run(args: argparse.Namespace) -> int:
    """Run the benchmark; prints the table (and writes ``--out``)."""
    peers = [p.strip() for p in args.peers.split(",") if p.strip()]
    unknown = sorted(set(peers) - set(PEERS))
    if unknown:
        from bench.errors import ConfigError

        raise ConfigError(f"unknown peers {unknown}; valid: {', '.join(PEERS)}")
    t0 = time.perf_counter()
    labels, scores, sizes = generate(args.queries, args.docs_per_query, args.seed)
    report = Report(n_queries=args.queries, n_docs=int(labels.shape[0]))
    from bench.machine import load_average, openmp_wait_policy

    report.notes += [f"OpenMP wait: {openmp_wait_policy()}", f"load average at the start: {load_average()}"]
    print(f"{args.queries} queries, {report.n_docs} documents (generated in "
          f"{time.perf_counter() - t0:.1f} s)", flush=True)
    if not args.no_compile_check:
        _compile_time(report)
    _reference(report, labels, scores, sizes, args.repeat)
    for library, timer in _LIBRARY_TIMERS.items():
        if library in peers:
            timer(report, labels, scores, sizes, args.repeat)
    small = min(args.peer_queries, args.queries)
    n_small = int(sizes[:small].sum())
    if "pytrec_eval" in peers:
        _pytrec_eval(report, labels[:n_small], scores[:n_small], sizes[:small], args.repeat)
    if "ranx" in peers:
        _ranx(report, labels[:n_small], scores[:n_small], sizes[:small], args.repeat)
    report.notes.append(f"load average at the end: {load_average()}")
    text = render(report)
    print(text)
    if args.out:
        write_text(args.out, text)
        print(f"wrote {args.out}")
    return 0


@frozen_heap()
def _timed(fn: Callable[[], object], repeat: int) -> tuple[float, object]:
    best = float("inf")
    out: object = None
    for _ in range(max(1, repeat)):
        gc.collect()
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


@frozen_heap()
def _peak_memory(fn: Callable[[], object]) -> tuple[float, float | None]:
    """(tracemalloc peak bytes, peak RSS increase bytes or None) of one call."""
    from bench.runners.resources import PEAK_RSS_METHOD, measure

    gc.collect()
    tracemalloc.start()
    try:
        with measure() as m:
            fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    exact = PEAK_RSS_METHOD.startswith("VmHWM")
    return float(peak), (m.peak_rss_mb * 1024.0 * 1024.0 if exact else None)


def _compile_time(report: Report) -> None:
    code = textwrap.dedent(
        f"""
        import time, numpy as np
        t = time.perf_counter()
        from bench.metrics import evaluate
        t1 = time.perf_counter()
        n = {SMALL_INPUT_ROWS + 2}  # above the small-input path, which never compiles
        evaluate(np.tile([1.0, 0.0], n // 2), np.linspace(1, 0, n), group=[2] * (n // 2), metrics={METRICS!r})
        print(t1 - t, time.perf_counter() - t1)
        """
    )
    timings = []
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        for _ in range(2):  # cold cache, then warm cache
            out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                 text=True, check=True)
            timings.append([float(x) for x in out.stdout.split()])
    report.rows.append(Row("reference: first call, empty numba cache (compile)", timings[0][1],
                           "subprocess; import not included"))
    report.rows.append(Row("reference: first call, numba cache filled", timings[1][1],
                           "what every later process pays"))


@frozen_heap()
def _reference(report: Report, labels: np.ndarray, scores: np.ndarray, sizes: np.ndarray,
               repeat: int) -> None:
    from bench.metrics import evaluate

    evaluate(labels[:100], scores[:100], group=[100], metrics=METRICS)  # load from cache
    n = labels.shape[0]
    qid = group_index(offsets_from_sizes(sizes, n))
    cases = [
        (OURS, lambda: evaluate(labels, scores, group=sizes, metrics=METRICS)),
        ("reference: ndcg@10 (group sizes)", lambda: evaluate(labels, scores, group=sizes, metrics="ndcg@10")),
        ("reference: 8 metrics (qid)", lambda: evaluate(labels, scores, qid=qid, metrics=METRICS)),
        ("reference: 8 metrics, 1 thread", lambda: evaluate(labels, scores, group=sizes, metrics=METRICS,
                                                             threads=1)),
        ("reference: 8 metrics, stable ties (lightgbm profile)",
         lambda: evaluate(labels, scores, group=sizes, metrics=METRICS, profile="lightgbm")),
    ]
    for name, fn in cases:
        samples: list[Sample] = []
        for _ in range(max(1, repeat)):
            gc.collect()
            sample, result = measure(fn)
            samples.append(sample)
        seconds = min(x.wall for x in samples)
        peak, rss = _peak_memory(fn)
        note = f"tracemalloc peak {peak / n:.1f} B/doc"
        if rss is not None:
            note += f", peak RSS +{rss / n:.1f} B/doc"
        report.rows.append(Row(name, seconds, note, bytes_per_doc=peak / n))
        print(f"{name}: {seconds:.3f} s ({note})", flush=True)
        if name == OURS:
            report.notes.append(f"reference alone (8 metrics): {describe(samples)}")
            report.notes.append("reference values: " + ", ".join(
                f"{k} {v:.6f}" for k, v in result.metrics.items()))  # type: ignore[attr-defined]
    report.notes.append(f"compiled kernel threads: {usable_cpus()}")


@frozen_heap()
def _lightgbm(report: Report, labels: np.ndarray, scores: np.ndarray, sizes: np.ndarray,
              repeat: int) -> None:
    """LightGBM's eval, timed in turns with the reference (both threaded, then both on 1 thread),
    so that a busy machine slows both sides alike (see the module docstring)."""
    try:
        import lightgbm  # noqa: F401
    except ImportError:
        report.notes.append("lightgbm not installed")
        return
    from bench.crosscheck.providers import LightGBMMetrics
    from bench.metrics import evaluate

    offsets = offsets_from_sizes(sizes, labels.shape[0])
    all_cores = usable_cpus()
    t = time.perf_counter()
    lgb_eval = LightGBMMetrics(labels, scores, offsets, ["ndcg@10"], n_threads=all_cores)
    build = time.perf_counter() - t
    ours = {
        0: lambda: evaluate(labels, scores, group=sizes, metrics=METRICS),
        1: lambda: evaluate(labels, scores, group=sizes, metrics=METRICS, threads=1),
    }
    turns: dict[int, tuple[list[Sample], list[Sample]]] = {}
    value = float("nan")
    for th in (0, 1):
        if th:  # num_threads is process-wide in LightGBM (OpenMP, set when a Booster is made):
            lgb_eval.set_threads(1)  # rebuilt once, before the warm-up, never between turns
        reference_samples, lgb_samples, out = in_turns(ours[th], lgb_eval, repeat)
        turns[th] = (reference_samples, lgb_samples)
        if th == 0:
            value = float(out["ndcg@10"])  # type: ignore[index]
    best = {f"{side}{th}": min(x.wall for x in turns[th][i])
            for th in (0, 1) for i, side in enumerate(("ours", "lgb"))}
    lgb_eval.set_threads(all_cores)
    _, rss = _peak_memory(lgb_eval)
    note = f"Dataset+Booster construction {build:.1f} s excluded"
    if rss is not None:
        note += f"; peak RSS +{rss / labels.shape[0]:.1f} B/doc"
    report.rows += [
        Row(LGB_MT, best["lgb0"], f"num_threads={all_cores}; {note}"),
        Row(OURS_MT, best["ours0"], f"threads={all_cores}, timed in turns with the row above"),
        Row(LGB_1T, best["lgb1"], "num_threads=1"),
        Row(OURS_1T, best["ours1"], "threads=1, timed in turns with the row above"),
    ]
    report.notes += [f"reference in turns with LightGBM ({all_cores} threads): {describe(turns[0][0])}",
                     f"LightGBM in turns ({all_cores} threads): {describe(turns[0][1])}",
                     f"reference in turns with LightGBM (1 thread): {describe(turns[1][0])}",
                     f"LightGBM in turns (1 thread): {describe(turns[1][1])}"]
    print(f"LightGBM ndcg@10: {best['lgb0']:.3f} s, 1 thread {best['lgb1']:.3f} s; reference "
          f"in turns {best['ours0']:.3f} s, 1 thread {best['ours1']:.3f} s", flush=True)
    mine = evaluate(labels, scores, group=sizes, metrics="ndcg@10", profile="lightgbm").metrics["ndcg@10"]
    report.checks.append(f"lightgbm profile ndcg@10 {mine:.12f} vs LightGBM {value:.12f} "
                         f"(|diff| {abs(mine - value):.1e})")
    del lgb_eval
    gc.collect()
    many = LightGBMMetrics(labels, scores, offsets,
                           [f"{m}@{k}" for m in ("ndcg", "map") for k in (1, 3, 5, 10)],
                           n_threads=all_cores)
    seconds, _ = _timed(many, repeat)
    report.rows.append(Row(LGB_MANY, seconds, "one eval_train call"))
    print(f"LightGBM ndcg+map: {seconds:.3f} s", flush=True)
    del many
    gc.collect()


def _xgboost(report: Report, labels: np.ndarray, scores: np.ndarray, sizes: np.ndarray,
             repeat: int) -> None:
    try:
        import xgboost  # noqa: F401
    except ImportError:
        report.notes.append("xgboost not installed")
        return
    from bench.crosscheck.providers import XGBoostMetrics
    from bench.metrics import evaluate

    t = time.perf_counter()
    xgb_eval = XGBoostMetrics(labels, scores, offsets_from_sizes(sizes, labels.shape[0]), ["ndcg@10"],
                              n_threads=usable_cpus())
    build = time.perf_counter() - t
    t = time.perf_counter()
    first = xgb_eval()
    first_s = time.perf_counter() - t
    mine, peer, _ = in_turns(lambda: evaluate(labels, scores, group=sizes, metrics=METRICS), xgb_eval,
                             repeat)  # in turns with the reference, as for LightGBM
    best = {"ours": min(x.wall for x in mine), "xgb": min(x.wall for x in peer)}
    report.notes.append(f"reference in turns with XGBoost: {describe(mine)}")
    value = first["ndcg@10"]
    report.rows += [
        Row(XGB, best["xgb"], f"DMatrix+train construction {build:.1f} s excluded; first eval "
            f"{first_s:.3f} s (builds its ideal-DCG cache)"),
        Row(OURS_XGB, best["ours"], "timed in turns with the row above"),
    ]
    print(f"XGBoost ndcg@10: {best['xgb']:.3f} s (first {first_s:.3f} s); reference in turns "
          f"{best['ours']:.3f} s", flush=True)
    ours = evaluate(labels, scores, group=sizes, metrics="ndcg@10", profile="xgboost").metrics["ndcg@10"]
    report.checks.append(f"xgboost profile ndcg@10 {ours:.12f} vs XGBoost {value:.12f} "
                         f"(|diff| {abs(ours - value):.1e})")


#: The GBDT libraries whose built-in metric is timed here (each a declared library of
#: :mod:`bench.runners.libraries`; its timer above).
_LIBRARY_TIMERS: dict[str, Callable[[Report, np.ndarray, np.ndarray, np.ndarray, int], None]] = {
    name: timer for name, timer in (("lightgbm", _lightgbm), ("xgboost", _xgboost))
    if name in RECORDS}
#: Every peer ``--peers`` takes: the libraries, then the other evaluators.
PEERS: tuple[str, ...] = (*_LIBRARY_TIMERS, *TOOL_PEERS)


def _dicts(
    labels: np.ndarray, scores: np.ndarray, sizes: np.ndarray
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    from bench.crosscheck.providers import trec_dicts

    return trec_dicts(labels, scores, np.repeat(np.arange(sizes.shape[0]), sizes))


def _pytrec_eval(report: Report, labels: np.ndarray, scores: np.ndarray, sizes: np.ndarray,
                 repeat: int) -> None:
    try:
        import pytrec_eval  # noqa: F401
    except ImportError:
        report.notes.append("pytrec_eval not installed")
        return
    from bench.crosscheck.providers import pytrec_eval_per_query

    def go() -> float:
        qrels, run = _dicts(labels, scores, sizes)
        res = pytrec_eval_per_query(qrels, run, _TREC_MEASURES)
        return float(np.mean([v["ndcg_cut_10"] for v in res.values()]))

    seconds, _ = _timed(go, min(repeat, 2))
    _, rss = _peak_memory(go)
    _scaled(report, "pytrec_eval end to end (8 metrics)", seconds, sizes, labels.shape[0], rss)


def _ranx(report: Report, labels: np.ndarray, scores: np.ndarray, sizes: np.ndarray,
          repeat: int) -> None:
    try:
        import ranx  # noqa: F401
    except ImportError:
        report.notes.append("ranx not installed")
        return
    from bench.crosscheck.providers import ranx_metrics

    def go(lab: np.ndarray = labels, sc: np.ndarray = scores, sz: np.ndarray = sizes) -> float:
        qrels, run = _dicts(lab, sc, sz)
        return ranx_metrics(qrels, run, _RANX_METRICS)["ndcg@10"]

    t = time.perf_counter()
    go(labels[: int(sizes[:50].sum())], scores[: int(sizes[:50].sum())], sizes[:50])
    report.notes.append(f"ranx warm-up (numba compile) {time.perf_counter() - t:.1f} s, excluded")
    seconds, _ = _timed(go, min(repeat, 2))
    _, rss = _peak_memory(go)
    _scaled(report, "ranx end to end (8 metrics)", seconds, sizes, labels.shape[0], rss)


def _scaled(report: Report, name: str, seconds: float, sizes: np.ndarray, n_docs: int,
            rss: float | None) -> None:
    factor = report.n_queries / sizes.shape[0]
    note = f"measured at {sizes.shape[0]} queries ({seconds:.2f} s), scaled x{factor:g}"
    if rss is not None:
        note += f"; peak RSS +{rss / n_docs:.0f} B/doc"
    report.rows.append(Row(name, seconds * factor, note, scaled_from=int(sizes.shape[0])))
    print(f"{name}: {seconds:.3f} s at {sizes.shape[0]} queries -> {seconds * factor:.1f} s", flush=True)


def render(report: Report) -> str:
    """Markdown: the timing table, the ratios against the targets, and the agreement checks."""
    ours = report.get(OURS)
    lines = [
        "# Reference evaluator: speed and memory",
        "",
        f"`ltrbench perf evaluator --queries {report.n_queries}`: {report.n_queries} queries, "
        f"{report.n_docs} documents ({report.n_docs / max(report.n_queries, 1):.1f} per query), "
        "labels 0-4.",
        f"Machine: {cpu_model()} ({platform.machine()}), {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"{platform.platform()}.",
        "",
        "| measurement | seconds | notes |",
        "|---|---:|---|",
    ]
    for r in report.rows:
        lines.append(f"| {r.name} | {r.seconds:.3f} | {r.note} |")
    if ours is not None:
        for other in (report.get(OURS_MT), report.get(OURS_XGB)):
            if other is not None and other.seconds < ours.seconds:
                ours = Row(OURS, other.seconds, bytes_per_doc=ours.bytes_per_doc)
        lines += ["", "## Ratios (targets from issue 2)", "",
                  f"Reference = the fastest 8-metric run with default threads ({ours.seconds:.3f} s)"
                  " where no pair is given.", ""]
        pairs = (
            (OURS_MT, LGB_MT, "both with their default threads, timed in turns; target <= 1.0x"),
            (OURS_1T, LGB_1T, "both on one thread, timed in turns"),
            (OURS, LGB_MANY, "LightGBM computing its 8 ndcg/map values"),
            (OURS_XGB, XGB, "XGBoost with its default threads, timed in turns"),
        )
        for mine, peer_name, what in pairs:
            a = ours if mine == OURS else report.get(mine)
            b = report.get(peer_name)
            if a is not None and b is not None:
                x = ratio(a.seconds, b.seconds)
                lines.append(f"- reference (8 metrics) / {peer_name}: " + (
                    f"**{x:.2f}x**" if x is not None else
                    f"undefined ({a.seconds:g} s / {b.seconds:g} s)") + f" ({what})")
        for name in ("pytrec_eval end to end (8 metrics)", "ranx end to end (8 metrics)"):
            peer = report.get(name)
            if peer is not None:
                x = ratio(peer.seconds, ours.seconds)
                lines.append(f"- {name} / reference: " + (
                    f"**{x:.0f}x slower**" if x is not None else
                    f"undefined ({peer.seconds:g} s / {ours.seconds:g} s)") +
                    " (target >= 30x; peer measured on fewer queries and scaled linearly)")
        if ours.bytes_per_doc is not None:
            lines.append(f"- reference peak extra memory: **{ours.bytes_per_doc:.1f} bytes/document** "
                         "(target <= 40)")
    if report.checks:
        lines += ["", "## Agreement on the benchmark data", ""] + [f"- {c}" for c in report.checks]
    if report.notes:
        lines += ["", "## Notes", ""] + [f"- {n}" for n in report.notes]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:  # pragma: no cover - convenience entry
    parser = argparse.ArgumentParser(prog="ltrbench perf evaluator")
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())


__all__ = ["add_arguments", "generate", "render", "run"]
