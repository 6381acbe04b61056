"""``run_benchmark``: train every (model, seed), evaluate, and write ``results/runs/<run-id>/``.

Layout (the contract the report reads; every file is written atomically)::

    config.toml         the resolved RunConfig
    manifest.json       versions, platform, CPU, threads, seeds, git commit, input sha256s,
                        dataset summaries per split, started/finished timestamps, status
    metrics.csv         dataset, model, library, seed, split, metric, value, profile
    per_query.parquet   dataset, model, seed, split, qid, metric, value
    timings.csv         dataset, model, library, seed, fit_s, predict_s, peak_rss_mb,
                        best_iteration, n_trees
    evallog.csv         model, seed, iteration, split, metric, value   (library's own log)
    scores.parquet      model, seed, split, row, score                 (float64)
    labels.parquet      split, row, qid, label
    status/<model>-seed<k>.json   completion marker, written last for each (model, seed)

After each (model, seed) the rows of that pair replace any earlier rows of the same pair in every
table (so a pair interrupted half-way and run again leaves no duplicates), then its status file
is written. ``resume=True`` reopens the latest unfinished run of the same config (same
:meth:`RunConfig.config_hash` and the same input files) and skips every pair with a status file.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import platform
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.data.atomic import atomic_path, write_text
from bench.data.fetch import repo_root
from bench.data.letor import LetorSplits
from bench.data.resolve import load_dataset
from bench.errors import ConfigError
from bench.runners.config import RunConfig
from bench.runners.dispatch import run_model
from bench.runners.evaluation import evaluate_scores
from bench.runners.registry import get_model
from bench.runners.resources import PEAK_RSS_METHOD
from bench.runners.result import EVAL_SPLITS, FitResult, NotApplicable, check_splits_distinct

Loader = Callable[..., LetorSplits]

TABLES: dict[str, tuple[str, ...]] = {
    "metrics.csv": ("dataset", "model", "library", "seed", "split", "metric", "value", "profile"),
    "per_query.parquet": ("dataset", "model", "seed", "split", "qid", "metric", "value"),
    "timings.csv": (
        "dataset", "model", "library", "seed", "fit_s", "predict_s", "peak_rss_mb",
        "best_iteration", "n_trees",
    ),
    "evallog.csv": ("model", "seed", "iteration", "split", "metric", "value"),
    "scores.parquet": ("model", "seed", "split", "row", "score"),
}
_PACKAGES = (
    "numpy", "pandas", "scipy", "scikit-learn", "lightgbm", "xgboost", "xgboost-cpu", "pyarrow",
    "rich", "numba",
)


# ------------------------------------------------------------------------------------------
# Public entry point
# ------------------------------------------------------------------------------------------


def run_benchmark(
    config: RunConfig,
    *,
    out_dir: str | Path = "results",
    resume: bool | str | Path = False,
    progress: bool = True,
    splits: LetorSplits | None = None,
    loader: Loader | None = None,
) -> Path:
    """Run ``config`` and return the run directory ``<out_dir>/runs/<run-id>/``.

    ``resume``: ``True`` continues the latest unfinished run of this config under ``out_dir``
    (a new run if there is none); a path continues that run directory. ``splits`` skips dataset
    loading (programmatic use; the manifest then records ``splits.inputs`` as given).
    ``loader(spec, data_dir=...)`` replaces :func:`bench.data.resolve.load_dataset`.
    """
    config = config.resolved()
    for model in config.models:
        get_model(model)
    pairs = [(m, s) for m in config.models for s in config.seeds]
    with _progress(progress, len(pairs)) as advance:
        if splits is None:
            advance(f"loading {config.dataset}", 0)
            splits = load_splits(config.dataset, data_dir=config.data_dir, loader=loader)
        check_splits_distinct(splits)
        run_dir = _open_run_dir(config, splits, Path(out_dir), resume)
        for model, seed in pairs:
            if _status_path(run_dir, model, seed).is_file():
                advance(f"{model} seed {seed}: done earlier", 1)
                continue
            _run_pair(config, splits, run_dir, model, seed, advance)
        _finish_manifest(run_dir, config)
        if config.permute_check:
            from bench.runners.permute import permute_check_run

            advance("permute check", 0)
            permute_check_run(run_dir, splits, config=config, retrain=config.permute_retrain)
        if config.crosscheck:
            advance("cross-check", 0)
            _crosscheck(run_dir, Path(out_dir))
        advance(f"done: {run_dir.name}", 0)
    return run_dir


def load_splits(spec: str, *, data_dir: str | None = None, loader: Loader | None = None) -> LetorSplits:
    """The dataset ``spec`` through ``loader`` or :func:`bench.data.resolve.load_dataset`."""
    return (load_dataset if loader is None else loader)(spec, data_dir=data_dir)


def dataset_fingerprint(splits: LetorSplits) -> dict[str, str]:
    """SHA-256 (16 hex digits) of each split's features, labels, query ids and user/item ids.

    Recorded in the manifest, so that a resumed or reproduced run can tell that the data it loaded
    are not the data of the original run (a changed file, or a changed adapter for ratings data,
    whose inputs alone do not pin the LETOR matrix down).
    """
    import hashlib

    out = {}
    for name, d in splits.splits().items():
        h = hashlib.sha256()
        for a in (d.X, d.y, d.qid, d.user, d.item):
            if a is not None:
                h.update(str(a.dtype).encode() + str(a.shape).encode())
                h.update(np.ascontiguousarray(a).tobytes())
        out[name] = h.hexdigest()[:16]
    return out


def read_status(run_dir: str | Path) -> dict[str, dict[str, Any]]:
    """Every status file of a run, by ``<model>-seed<k>``."""
    out = {}
    for p in sorted((Path(run_dir) / "status").glob("*.json")):
        out[p.stem] = json.loads(p.read_text(encoding="utf-8"))
    return out


# ------------------------------------------------------------------------------------------
# One (model, seed)
# ------------------------------------------------------------------------------------------


def _run_pair(
    config: RunConfig,
    splits: LetorSplits,
    run_dir: Path,
    model: str,
    seed: int,
    advance: Callable[[str, int], None],
) -> None:
    spec = get_model(model)
    advance(f"{model} seed {seed}: training", 0)
    try:
        result = run_model(
            model,
            splits,
            config.params_for(model, seed),
            seed=seed,
            eval_at=config.eval_at,
            select_metric=config.select_metric,
            early_stopping_split=config.early_stopping_split,
            log_train=config.log_train,
            als=config.als,
        )
    except NotApplicable as exc:
        _write_status(run_dir, model, seed, {"status": "skipped", "library": spec.library, "reason": str(exc)})
        advance(f"{model} seed {seed}: skipped ({exc})", 1)
        return
    advance(f"{model} seed {seed}: evaluating", 0)
    tables = _tables_for(config, splits, result)
    advance(f"{model} seed {seed}: writing", 0)
    for name, frame in tables.items():
        _upsert(run_dir / name, frame, model, seed)
    _write_status(
        run_dir,
        model,
        seed,
        {
            "status": "done",
            "library": result.library,
            "objective": spec.objective,
            "best_iteration": result.best_iteration,
            "n_trees": result.n_trees,
            "fit_s": result.fit_s,
            "predict_s": result.predict_s,
            "peak_rss_mb": result.peak_rss_mb,
            "library_params": result.library_params,
            "notes": result.notes,
        },
    )
    advance(f"{model} seed {seed}: done", 1)


def _tables_for(config: RunConfig, splits: LetorSplits, r: FitResult) -> dict[str, pd.DataFrame]:
    metric_rows: list[dict[str, Any]] = []
    pq_parts: list[pd.DataFrame] = []
    score_parts: list[pd.DataFrame] = []
    for split in EVAL_SPLITS:
        data = getattr(splits, split)
        scores = np.asarray(r.scores[split], dtype=np.float64)
        rows, per_query = evaluate_scores(data, scores, metrics=config.metrics, profile=config.profile)
        for row in rows:
            metric_rows.append(
                {"dataset": splits.name, "model": r.model, "library": r.library, "seed": r.seed,
                 "split": split, **row}
            )
        pq_parts.append(
            per_query.assign(dataset=splits.name, model=r.model, seed=r.seed, split=split)
        )
        score_parts.append(
            pd.DataFrame(
                {"model": r.model, "seed": r.seed, "split": split,
                 "row": np.arange(scores.shape[0], dtype=np.int64), "score": scores}
            )
        )
    timings = pd.DataFrame(
        [{
            "dataset": splits.name, "model": r.model, "library": r.library, "seed": r.seed,
            "fit_s": r.fit_s, "predict_s": r.predict_s, "peak_rss_mb": r.peak_rss_mb,
            "best_iteration": r.best_iteration, "n_trees": r.n_trees,
        }]
    )
    evallog = r.evallog.assign(model=r.model, seed=r.seed)
    return {
        "metrics.csv": pd.DataFrame(metric_rows),
        "per_query.parquet": pd.concat(pq_parts, ignore_index=True),
        "timings.csv": timings,
        "evallog.csv": evallog,
        "scores.parquet": pd.concat(score_parts, ignore_index=True),
    }


# ------------------------------------------------------------------------------------------
# Files
# ------------------------------------------------------------------------------------------


def read_table(path: Path) -> pd.DataFrame:
    """A run table (csv or parquet) with its contract columns (an empty frame when absent)."""
    cols = TABLES.get(path.name, ())
    if not path.is_file():
        return pd.DataFrame({c: [] for c in cols})
    return pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)


def write_table(path: Path, frame: pd.DataFrame) -> None:
    """Write a run table atomically, columns in contract order."""
    cols = TABLES.get(path.name)
    if cols is not None:
        frame = frame.reindex(columns=list(cols))
    with atomic_path(path) as tmp:
        if path.suffix == ".parquet":
            frame.to_parquet(tmp, index=False)
        else:
            frame.to_csv(tmp, index=False)


def _upsert(path: Path, new: pd.DataFrame, model: str, seed: int) -> None:
    old = read_table(path)
    if len(old):
        keep = ~((old["model"].astype(str) == model) & (old["seed"].astype(np.int64) == seed))
        old = old[keep]
    parts = [f for f in (old, new) if len(f)]
    frame = pd.concat(parts, ignore_index=True) if parts else new
    write_table(path, frame)


def _status_path(run_dir: Path, model: str, seed: int) -> Path:
    return run_dir / "status" / f"{model}-seed{seed}.json"


def _write_status(run_dir: Path, model: str, seed: int, body: dict[str, Any]) -> None:
    doc = {"model": model, "seed": seed, **body, "finished": _now()}
    write_text(_status_path(run_dir, model, seed), json.dumps(doc, indent=2, default=_json_default) + "\n")


def _json_default(obj: Any) -> Any:
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    return str(obj)


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def _slug(text: str) -> str:
    import re

    tail = re.split(r"[/\\]", text.strip().rstrip("/\\"))[-1]
    return re.sub(r"[^A-Za-z0-9._-]+", "-", tail).strip("-.") or "dataset"


def _open_run_dir(config: RunConfig, splits: LetorSplits, out_dir: Path, resume: bool | str | Path) -> Path:
    runs = out_dir / "runs"
    chash = config.config_hash()
    run_dir: Path | None = None
    if isinstance(resume, (str, Path)) and not isinstance(resume, bool):
        run_dir = Path(resume)
        if not (run_dir / "manifest.json").is_file():
            raise ConfigError(f"{run_dir}: not a run directory (no manifest.json); cannot resume")
    elif resume:
        run_dir = _latest_unfinished(runs, chash)
    if run_dir is not None:
        manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
        if manifest.get("config_hash") != chash:
            raise ConfigError(
                f"{run_dir}: its config differs from this one (hash {manifest.get('config_hash')} "
                f"vs {chash}); resume it with its own config.toml"
            )
        recorded = (manifest.get("dataset") or {}).get("inputs") or {}
        if recorded and splits.inputs and recorded != splits.inputs:
            raise ConfigError(f"{run_dir}: the input files changed since the run started; start a new run")
        fingerprint = (manifest.get("dataset") or {}).get("fingerprint")
        if fingerprint and fingerprint != dataset_fingerprint(splits):
            raise ConfigError(
                f"{run_dir}: the loaded dataset differs from the one the run started with "
                f"(fingerprint {fingerprint} vs {dataset_fingerprint(splits)}); start a new run"
            )
        manifest.setdefault("resumed", []).append(_now())
        manifest["finished"] = None
        _write_json(run_dir / "manifest.json", manifest)
        _ensure_tables(run_dir, splits)
        return run_dir
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    run_dir = runs / f"{_slug(config.dataset)}-{stamp}-{chash[:8]}"
    n = 1
    while run_dir.exists():
        n += 1
        run_dir = runs / f"{_slug(config.dataset)}-{stamp}-{chash[:8]}-{n}"
    run_dir.mkdir(parents=True)
    write_text(
        run_dir / "config.toml",
        config.to_toml(header=f"ltrbench run config (resolved); run {run_dir.name}; hash {chash}"),
    )
    _write_json(run_dir / "manifest.json", _manifest(config, splits, run_dir.name))
    _ensure_tables(run_dir, splits)
    return run_dir


def _latest_unfinished(runs: Path, chash: str) -> Path | None:
    found = []
    if runs.is_dir():
        for d in runs.iterdir():
            m = d / "manifest.json"
            if not m.is_file():
                continue
            try:
                doc = json.loads(m.read_text(encoding="utf-8"))
            except json.JSONDecodeError:
                continue
            if doc.get("config_hash") == chash and not doc.get("finished"):
                found.append((str(doc.get("started", "")), d.name, d))
    return max(found)[2] if found else None


def _ensure_tables(run_dir: Path, splits: LetorSplits) -> None:
    for name in TABLES:
        if not (run_dir / name).is_file():
            write_table(run_dir / name, read_table(run_dir / name))
    if not (run_dir / "labels.parquet").is_file():
        parts = [
            pd.DataFrame(
                {"split": split, "row": np.arange(d.n_rows, dtype=np.int64), "qid": d.qid, "label": d.y}
            )
            for split, d in ((s, getattr(splits, s)) for s in EVAL_SPLITS)
        ]
        with atomic_path(run_dir / "labels.parquet") as tmp:
            pd.concat(parts, ignore_index=True).to_parquet(tmp, index=False)
    (run_dir / "status").mkdir(exist_ok=True)


def _write_json(path: Path, doc: dict[str, Any]) -> None:
    write_text(path, json.dumps(doc, indent=2, default=_json_default) + "\n")


def _finish_manifest(run_dir: Path, config: RunConfig) -> None:
    path = run_dir / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    status = read_status(run_dir)
    manifest["status"] = {
        k: (v.get("status") if v.get("status") == "done" else f"skipped: {v.get('reason', '')}")
        for k, v in status.items()
    }
    expected = {f"{m}-seed{s}" for m in config.models for s in config.seeds}
    manifest["finished"] = _now() if expected <= set(status) else None
    _write_json(path, manifest)


# ------------------------------------------------------------------------------------------
# Manifest
# ------------------------------------------------------------------------------------------


def _manifest(config: RunConfig, splits: LetorSplits, run_id: str) -> dict[str, Any]:
    from bench import __version__

    return {
        "run_id": run_id,
        "ltrbench_version": __version__,
        "config_hash": config.config_hash(),
        "started": _now(),
        "finished": None,
        "dataset": {
            "name": splits.name,
            "spec": config.dataset,
            "inputs": dict(splits.inputs),
            "fingerprint": dataset_fingerprint(splits),
            "meta": splits.meta,
            "summaries": {s: d.summary() for s, d in splits.splits().items()},
        },
        "models": {
            m: {"library": get_model(m).library, "objective": get_model(m).objective,
                "description": get_model(m).description}
            for m in config.models
        },
        "seeds": list(config.seeds),
        "threads": config.params.resolved_threads(),
        "selection": {
            "split": config.early_stopping_split,
            "metric": config.select_metric,
            "rule": "first maximum of the library's validation metric; training stops after "
            f"{config.params.early_stopping_rounds} rounds without a strict improvement",
            "test_split": "predicted once with the selected iteration; never used for a choice",
        },
        "evaluation": {
            "evaluator": "bench.metrics.evaluate",
            "profile": config.profile,
            "metrics": list(config.metrics),
        },
        "measurements": {
            "fit_s": "wall time (perf_counter) of dataset construction + boosting with per-round "
            "evaluation on train and validation",
            "predict_s": "wall time of predicting the validation and test splits",
            "peak_rss_mb": f"RSS growth during fit and predict, MiB; method: {PEAK_RSS_METHOD}",
        },
        "environment": environment(),
        "git": _git(),
    }


def environment() -> dict[str, Any]:
    """Python, platform, CPU and package versions of this machine (recorded in every manifest)."""
    from importlib import metadata

    packages = {}
    for name in _PACKAGES:
        with contextlib.suppress(metadata.PackageNotFoundError):
            packages[name] = metadata.version(name)
    for module in ("lightgbm", "xgboost"):  # the module's own version (xgboost ships as xgboost-cpu)
        with contextlib.suppress(ImportError, AttributeError):
            packages[module] = str(__import__(module).__version__)
    return {
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_model": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "packages": packages,
        "env": {k: os.environ[k] for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS") if k in os.environ},
    }


def _cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def _git() -> dict[str, Any]:
    root = repo_root()
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}
    return {"commit": commit, "dirty": bool(dirty)}


# ------------------------------------------------------------------------------------------
# Progress and cross-check
# ------------------------------------------------------------------------------------------


@contextlib.contextmanager
def _progress(enabled: bool, total: int) -> Iterator[Callable[[str, int], None]]:
    """A rich progress bar over the (model, seed) pairs; ``advance(text, n)`` shows the current
    step and moves the bar by ``n``."""
    if not enabled:
        yield lambda _text, _n: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    with Progress(
        SpinnerColumn(),
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
    ) as bar:
        task = bar.add_task("starting", total=total)

        def advance(text: str, n: int) -> None:
            bar.update(task, description=text, advance=n)

        yield advance


def _crosscheck(run_dir: Path, out_dir: Path) -> dict[str, Any]:
    """Cross-check the run with :mod:`bench.report.crosscheck`.

    Writes ``<out_dir>/<dataset>/crosscheck.{md,json}`` and records ``ok``, the errors and the
    totals by reason in the manifest under ``crosscheck``; returns that record.
    """
    from bench.report import crosscheck as xc  # report imports runners: import on use

    result = xc.crosscheck_run(run_dir)
    files = xc.write_crosscheck(result, out_dir)
    record = {
        "ok": bool(result.ok),
        "errors": list(result.errors),
        "reasons": dict(result.reasons),
        "files": {k: str(v) for k, v in files.items()},
    }
    path = run_dir / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest["crosscheck"] = record
    _write_json(path, manifest)
    return record
