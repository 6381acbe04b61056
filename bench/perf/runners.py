"""``ltrbench perf runners``: what ltrbench adds to a fit, and whether a shared process slows it.

On the generated ``synthetic-mslr30k`` shape (:mod:`bench.datasets.letor_shapes`; default
200,000 training rows, validation and test in MSLR-WEB30K Fold1's proportions, 136 features,
labels 0-4; 100 trees of 255 leaves) each library is fitted three ways, timed in turns whose order
rotates (A B C, B C A, C A B, ...):

* **bare**: a fresh Python process that imports only that library and calls ``lgb.train`` /
  ``xgb.train`` with exactly the parameters and matrices ltrbench passes (``bench.runners.params``;
  XGBoost's ``QuantileDMatrix``), the same
  validation set and per-round NDCG evaluation, and the library's own early stopping (patience
  larger than the tree count, so every variant grows the same trees);
* **ltrbench isolated**: a fresh process running the fit through ltrbench's runner
  (:func:`bench.runners.gbdt.train_gbdt`), as ``--timing isolated`` does;
* **ltrbench in-process**: the same call in this process, where LightGBM, XGBoost and numba
  (the reference evaluator) have all run before: their OpenMP / workqueue thread pools share it.

The fit time excludes data loading and interpreter start (each variant times its own fit call,
dataset construction included, as :mod:`bench.runners.resources` does for a run). The figures
are the median over ``--repeat`` turns, with the machine's other load during each fit; the ratio
to the bare fit is ltrbench's overhead (target ≤ 1.05). Each variant's test scores are evaluated
by the reference evaluator: NDCG@10 must agree to 1e-12 (same seed and threads, same model).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from bench.data.atomic import write_text
from bench.datasets.catalogue import get_card
from bench.datasets.letor_shapes import generate_split, shape_of
from bench.machine import cpu_model, load_average
from bench.perf.timing import ratio
from bench.runners.libraries import LIBRARIES as RECORDS
from bench.runners.libraries import get_library, load

VARIANTS = ("bare", "ltrbench isolated", "ltrbench in-process")
TARGET_OVERHEAD = 1.05


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``ltrbench perf runners``."""
    parser.add_argument("--rows", type=int, default=200_000,
                        help="training rows of synthetic-mslr30k (200000; validation and test "
                        "in MSLR-WEB30K Fold1's proportions)")
    parser.add_argument("--trees", type=int, default=100)
    parser.add_argument("--leaves", type=int, default=255)
    parser.add_argument("--threads", type=int, default=0, help="library threads (0 = all cores)")
    parser.add_argument("--libraries", default=",".join(LIBRARIES))
    parser.add_argument("--repeat", type=int, default=3, help="turns (median reported)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", metavar="FILE.md", help="also write the figures as Markdown")


# ---------------------------------------------------------------------------------- one fit


def _params(library: str, trees: int, leaves: int, threads: int, seed: int) -> tuple[Any, dict[str, Any]]:
    """ltrbench's parameters and the library's own for its LambdaMART objective, through the
    translator its record names (:attr:`bench.runners.libraries.Library.params`)."""
    from bench.runners.params import Params

    p = Params(n_trees=trees, num_leaves=leaves, learning_rate=0.1, n_threads=threads, seed=seed,
               early_stopping_rounds=trees + 1)
    p = replace(p, n_threads=p.resolved_threads())
    lib = get_library(library)
    return p, load(lib.params)(p, lib.lambdamart, eval_at=(10,))


def _load(workdir: Path, split: str) -> dict[str, np.ndarray]:
    return {k: np.load(workdir / f"{split}.{k}.npy") for k in ("X", "y", "group")}


def _bare_fit(library: str, workdir: Path, cfg: dict[str, Any]) -> tuple[float, np.ndarray]:
    """The library alone: the same parameters, evaluation and stopping rule as ltrbench's runner."""
    return _BARE_FITS[library](workdir, cfg)


def _bare_lightgbm(workdir: Path, cfg: dict[str, Any]) -> tuple[float, np.ndarray]:
    """``lgb.train`` as :mod:`bench.runners.lightgbm` calls it."""
    train, vali, test = (_load(workdir, s) for s in ("train", "vali", "test"))
    _, params = _params("lightgbm", cfg["trees"], cfg["leaves"], cfg["threads"], cfg["seed"])
    import lightgbm as lgb

    t0 = time.perf_counter()
    names = [f"f{j}" for j in range(train["X"].shape[1])]
    dtrain = lgb.Dataset(train["X"], label=train["y"], group=train["group"], feature_name=names)
    dvali = lgb.Dataset(vali["X"], label=vali["y"], group=vali["group"], reference=dtrain,
                        feature_name=names)
    record: dict[str, Any] = {}
    booster = lgb.train(dict(params), dtrain, num_boost_round=cfg["trees"], valid_sets=[dvali],
                        valid_names=["vali"],
                        callbacks=[lgb.record_evaluation(record),
                                   lgb.early_stopping(cfg["trees"] + 1, first_metric_only=True,
                                                      verbose=False)])
    seconds = time.perf_counter() - t0
    best = int(np.argmax(record["vali"]["ndcg@10"])) + 1
    return seconds, np.asarray(booster.predict(test["X"], num_iteration=best), dtype=np.float64)


def _bare_xgboost(workdir: Path, cfg: dict[str, Any]) -> tuple[float, np.ndarray]:
    """``xgb.train`` on the ``QuantileDMatrix`` :mod:`bench.runners.xgboost` builds."""
    train, vali, test = (_load(workdir, s) for s in ("train", "vali", "test"))
    _, params = _params("xgboost", cfg["trees"], cfg["leaves"], cfg["threads"], cfg["seed"])
    import xgboost as xgb

    def dm(d: dict[str, np.ndarray], ref: Any = None) -> Any:
        # the matrices ltrbench's runner builds (QuantileDMatrix; the validation one from ref)
        return xgb.QuantileDMatrix(d["X"], label=d["y"], ref=ref, max_bin=int(params["max_bin"]),
                                   qid=np.repeat(np.arange(d["group"].shape[0]), d["group"]),
                                   nthread=int(params["nthread"]))

    t0 = time.perf_counter()
    dtrain = dm(train)
    dvali = dm(vali, ref=dtrain)
    record: dict[str, Any] = {}
    xbooster = xgb.train(dict(params), dtrain, num_boost_round=cfg["trees"], evals=[(dvali, "vali")],
                        evals_result=record, verbose_eval=False,
                        callbacks=[xgb.callback.EarlyStopping(rounds=cfg["trees"] + 1,
                                                              metric_name="ndcg@10",
                                                              data_name="vali", maximize=True,
                                                              save_best=False)])
    seconds = time.perf_counter() - t0
    best = int(np.argmax(record["vali"]["ndcg@10"])) + 1
    dtest = xgb.DMatrix(test["X"], nthread=int(params["nthread"]))
    scores = xbooster.predict(dtest, output_margin=True, iteration_range=(0, best))
    return seconds, np.asarray(scores, dtype=np.float64)


#: The bare fit of each library this benchmark can time without ltrbench (the code above).
_BARE_FITS = {"lightgbm": _bare_lightgbm, "xgboost": _bare_xgboost}
#: The libraries timed: the declared ones (:mod:`bench.runners.libraries`) with a bare fit here.
LIBRARIES: tuple[str, ...] = tuple(name for name in RECORDS if name in _BARE_FITS)


def _ltrbench_fit(library: str, workdir: Path, cfg: dict[str, Any]) -> tuple[float, np.ndarray]:
    """The same fit through ltrbench's runner (fit time as a run records it)."""
    from bench.data.letor import LetorData, LetorSplits
    from bench.runners.gbdt import train_gbdt

    parts = {}
    for split in ("train", "vali", "test"):
        d = _load(workdir, split)
        parts[split] = LetorData.build(d["X"], d["y"], qid=np.repeat(np.arange(d["group"].shape[0]),
                                                                        d["group"]))
    splits = LetorSplits(name="perf", train=parts["train"], vali=parts["vali"], test=parts["test"])
    p, _ = _params(library, cfg["trees"], cfg["leaves"], cfg["threads"], cfg["seed"])
    lib = get_library(library)
    model, objective = lib.model(lib.lambdamart), lib.lambdamart
    r = train_gbdt(library, splits, p, model=model, objective=objective, eval_at=(10,),
                   select_metric="ndcg@10", log_train=False)
    return r.fit_s, r.scores["test"]


def _child(argv: list[str]) -> int:
    """``python -m bench.perf.runners --child VARIANT LIBRARY WORKDIR CONFIG.json OUT.npy``."""
    variant, library, workdir, cfg_path, out = argv
    cfg = json.loads(Path(cfg_path).read_text(encoding="utf-8"))
    from bench.runners.resources import measure

    fit = _bare_fit if variant == "bare" else _ltrbench_fit
    with measure() as m:
        seconds, scores = fit(library, Path(workdir), cfg)
    np.save(out, scores)
    print(json.dumps(_record(seconds, m)))
    return 0


# ---------------------------------------------------------------------------------- the run


def _in_child(variant: str, library: str, workdir: Path, cfg_path: Path) -> tuple[dict[str, Any], np.ndarray]:
    out = workdir / f"{variant.replace(' ', '_')}.{library}.scores.npy"
    done = subprocess.run(
        [sys.executable, "-m", "bench.perf.runners", "--child", variant, library, str(workdir),
         str(cfg_path), str(out)],
        capture_output=True, text=True, check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1]), np.load(out)


def _in_process(library: str, workdir: Path, cfg: dict[str, Any]) -> tuple[dict[str, Any], np.ndarray]:
    from bench.runners.resources import measure

    with measure() as m:
        seconds, scores = _ltrbench_fit(library, workdir, cfg)
    return _record(seconds, m), scores


def _record(seconds: float, m: Any) -> dict[str, Any]:
    return {"fit_s": seconds, "other_load": m.other_load, "steal": m.steal_load,
            "contended": m.contended}


def run(args: argparse.Namespace) -> int:
    """Generate the data, time the variants in turns, print (and write ``--out``) the figures."""
    from bench.metrics import evaluate

    libraries = [x.strip() for x in args.libraries.split(",") if x.strip()]
    unknown = [lib for lib in libraries if lib not in LIBRARIES]
    if unknown:
        from bench.errors import ConfigError

        raise ConfigError(f"--libraries: no bare fit of {', '.join(map(repr, unknown))} to time "
                          f"against; valid: {', '.join(LIBRARIES)}")
    cfg = {"trees": args.trees, "leaves": args.leaves, "threads": args.threads, "seed": args.seed}
    with tempfile.TemporaryDirectory(prefix="ltrbench-perf-runners-") as tmp:
        workdir = Path(tmp)
        t0 = time.perf_counter()
        shape = shape_of(get_card("synthetic-mslr30k"))
        for split in ("train", "vali", "test"):
            data = generate_split(shape, split, scale=args.rows / shape.rows["train"], seed=args.seed)
            for k, v in (("X", data.X), ("y", data.y), ("group", data.group_sizes)):
                np.save(workdir / f"{split}.{k}.npy", v)
        test = _load(workdir, "test")
        n_vali = int(np.load(workdir / "vali.y.npy").shape[0])
        cfg_path = workdir / "config.json"
        cfg_path.write_text(json.dumps(cfg), encoding="utf-8")
        print(f"synthetic-mslr30k: {args.rows:,} training rows, {n_vali:,} validation rows, "
              f"{shape.features} features; {args.trees} trees of "
              f"{args.leaves} leaves; data in {time.perf_counter() - t0:.1f} s; {cpu_model()}",
              flush=True)
        # numba and both libraries run in this process first: the in-process variant shares it
        evaluate(test["y"], test["y"] + 0.1, group=test["group"], metrics="ndcg@10")
        times: dict[tuple[str, str], list[dict[str, Any]]] = {}
        ndcg: dict[tuple[str, str], float] = {}
        load = [load_average()]
        for turn in range(max(1, args.repeat)):
            for library in libraries:
                for variant in rotated(VARIANTS, turn):
                    if variant == "ltrbench in-process":
                        rec, scores = _in_process(library, workdir, cfg)
                    else:
                        rec, scores = _in_child(variant, library, workdir, cfg_path)
                    times.setdefault((library, variant), []).append(rec)
                    value = evaluate(test["y"], scores, group=test["group"], metrics="ndcg@10")
                    ndcg[(library, variant)] = float(value.metrics["ndcg@10"])
                    print(f"turn {turn + 1}: {library:8s} {variant:20s} {rec['fit_s']:7.3f} s "
                          f"(other load {_pct(rec['other_load'])}, steal {_pct(rec['steal'])})",
                          flush=True)
        load.append(load_average())
    report = render(args, libraries, times, ndcg, load)
    print(report)
    if args.out:
        write_text(args.out, report)
    return 0


def rotated(variants: tuple[str, ...], turn: int) -> tuple[str, ...]:
    """The order of turn ``turn``: rotated by one each turn, so that over ``len(variants)`` turns
    every variant runs once in every position and a machine that slows down or speeds up during
    the benchmark favours none of them."""
    k = turn % len(variants)
    return variants[k:] + variants[:k]


def _pct(x: float | None) -> str:
    return "unknown" if x is None else f"{x:.0%}"


def render(args: argparse.Namespace, libraries: list[str],
           times: dict[tuple[str, str], list[dict[str, Any]]], ndcg: dict[tuple[str, str], float],
           load: list[str]) -> str:
    """The Markdown report. "vs bare" is the median over turns of the variant's time divided by
    the bare fit's time in the same turn (paired, so drift in the machine's speed cancels)."""
    lines = [
        "# ltrbench perf runners",
        "",
        f"Machine: {cpu_model()}, {os.cpu_count()} CPUs. Load average (1, 5, 15 min; "
        f"runnable/all tasks) at the start: {load[0]}; at the end: {load[-1]}. Data: "
        f"synthetic-mslr30k, {args.rows:,} training rows (validation and test in Fold1's "
        f"proportions), 136 features, {args.trees} trees of {args.leaves} leaves, threads "
        f"{args.threads or 'all'}. {args.repeat} turns; the order of the variants rotates by one "
        "each turn (A B C, B C A, C A B, ...), so each runs once in each position.",
        "",
        "| library | variant | fit s (median) | range | vs bare (paired median) | max other load | max steal | contended | NDCG@10 (test) | |Δ| vs bare |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    verdicts = []
    for library in libraries:
        bare = [r["fit_s"] for r in times[(library, "bare")]]
        for variant in VARIANTS:
            recs = times[(library, variant)]
            secs = [r["fit_s"] for r in recs]
            paired = [ratio(s, b) for s, b in zip(secs, bare, strict=True)]
            # a turn without a time (NaN, 0 s bare): no median, no ratio, no verdict
            rel = None if None in paired else statistics.median(p for p in paired if p is not None)
            timed = all(ratio(s, 1.0) is not None for s in secs)
            loads = [r["other_load"] for r in recs if r["other_load"] is not None]
            steals = [r["steal"] for r in recs if r.get("steal") is not None]
            busy = sum(bool(r["contended"]) for r in recs)
            diff = abs(ndcg[(library, variant)] - ndcg[(library, "bare")])
            span = (f"{statistics.median(secs):.3f} | {min(secs):.3f}–{max(secs):.3f}" if timed
                    else "undefined | a turn without a time")
            lines.append(
                f"| {library} | {variant} | {span} | "
                f"{'undefined' if rel is None else f'{rel:.3f}'} | "
                f"{_pct(max(loads) if loads else None)} | "
                f"{_pct(max(steals) if steals else None)} | {busy}/{len(recs)} | "
                f"{ndcg[(library, variant)]:.12f} | {diff:.1e} |"
            )
            if variant == "bare":
                continue
            if rel is None:
                verdicts.append(f"{library} {variant}: not judged (a turn without a positive "
                                "time: the ratio to bare is undefined)")
            else:
                ok = rel <= TARGET_OVERHEAD and diff <= 1e-12
                verdicts.append(f"{library} {variant}: {rel:.3f}x bare, |ΔNDCG| {diff:.1e} "
                                f"({'meets' if ok else 'misses'} ≤ {TARGET_OVERHEAD:.2f}x and 1e-12)")
    lines += ["", *[f"- {v}" for v in verdicts], ""]
    lines.append("A fit is contended when other processes used more than 15% of the machine's "
                 "CPU or steal exceeded 10% during it (bench.runners.resources); its time is "
                 "not a clean figure.")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:  # pragma: no cover - convenience entry
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--child":
        return _child(argv[1:])
    parser = argparse.ArgumentParser(prog="ltrbench perf runners")
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
