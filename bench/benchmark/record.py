"""What a benchmark run records: the manifest it starts with, and the rows of one trained model.

The run directory's files and columns are :mod:`bench.runs.layout`'s; this module fills them
from a :class:`~bench.benchmark.config.RunConfig`, the loaded splits and a
:class:`~bench.runners.result.FitResult`.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from bench import __version__
from bench.benchmark.config import RunConfig
from bench.benchmark.scoring import evaluate_scores
from bench.data.letor import LetorSplits
from bench.datasets.fetch import repo_root
from bench.runners.resources import (
    CONTENTION_THRESHOLD,
    PEAK_RSS_METHOD,
    STEAL_THRESHOLD,
    Measurement,
)
from bench.runners.result import EVAL_SPLITS, SELECTION_SPLIT, FitResult
from bench.runs.manifest import Manifest, dataset_fingerprint, environment, git_state, now


@dataclass(frozen=True)
class FitTiming:
    """The fit time of one (model, seed) over its repeats, and whether the machine was busy.

    ``seconds`` and ``cpu_s`` hold one value per repeat; ``other_load`` / ``steal_load`` are the
    largest over the repeats (``None`` where unknown); ``contended`` is true when any repeat was.
    """

    mode: str
    seconds: tuple[float, ...]
    cpu_s: tuple[float, ...]
    other_load: float | None
    steal_load: float | None
    contended: bool

    @classmethod
    def of(cls, mode: str, fits: Sequence[Measurement | None], fit_s: float) -> FitTiming:
        """From the fit measurements of the repeats (``None``: a model with nothing to fit)."""
        measured = [m for m in fits if m is not None]
        if not measured:
            return cls(mode, (fit_s,), (0.0,), None, None, False)
        loads = [m.other_load for m in measured if m.other_load is not None]
        steals = [m.steal_load for m in measured if m.steal_load is not None]
        return cls(
            mode,
            tuple(m.seconds for m in measured),
            tuple(m.cpu_s for m in measured),
            max(loads) if loads else None,
            max(steals) if steals else None,
            any(m.contended for m in measured),
        )

    @property
    def median(self) -> float:
        return float(statistics.median(self.seconds))


def timing_manifest(config: RunConfig) -> dict[str, Any]:
    """How fits are timed and with how many threads (the manifest's ``timing``)."""
    import os

    import numba

    return {
        "mode": config.timing,
        "repeats": config.timing_repeats,
        "fit_s": "median over repeats of the wall time of one fit",
        "contended": f"other processes used > {CONTENTION_THRESHOLD:.0%} of the machine's CPU "
        f"capacity during the fit (or steal > {STEAL_THRESHOLD:.0%}); measured from /proc/stat",
        "library_threads": config.params.resolved_threads(),
        "numba_threads": int(numba.get_num_threads()),
        "thread_variables": {
            k: v for k, v in os.environ.items()
            if k.startswith(("OMP_", "MKL_", "OPENBLAS_", "NUMBA_")) or k == "KMP_AFFINITY"
        },
    }


def start_manifest(config: RunConfig, splits: LetorSplits, run_id: str, *,
                   split_checks: list[dict[str, Any]] | None = None,
                   device: dict[str, Any] | None = None) -> Manifest:
    """The manifest a run starts with (``finished`` is set when every pair is done), with the
    split checks' findings and the devices: all that the run's first write holds."""
    return Manifest(
        run_id=run_id,
        ltrbench_version=__version__,
        config_hash=config.config_hash(),
        started=now(),
        finished=None,
        dataset={
            "name": splits.name,
            "spec": config.dataset,
            "inputs": dict(splits.inputs),
            "fingerprint": dataset_fingerprint(splits),
            "meta": splits.meta,
            "summaries": {s: d.summary() for s, d in splits.splits().items()},
        },
        models={
            m: {"library": s.library, "objective": s.objective, "description": s.description,
                **({"source_sha256": config.custom_models[m].source_digest()}
                   if m in config.custom_models else {})}
            for m, s in ((m, config.model_spec(m)) for m in config.models)
        },
        seeds=list(config.seeds),
        threads=config.params.resolved_threads(),
        selection={
            "split": SELECTION_SPLIT,
            "metric": config.select_metric,
            "rule": "first maximum of the library's validation metric; training stops after "
            f"{config.params.early_stopping_rounds} rounds without a strict improvement",
            "test_split": "predicted once with the selected iteration; never used for a choice",
        },
        evaluation={
            "evaluator": "bench.metrics.evaluate",
            "profile": config.profile,
            "metrics": list(config.metrics),
        },
        measurements={
            "fit_s": "wall time (perf_counter) of dataset construction + boosting with per-round "
            "evaluation on train and validation",
            "predict_s": "wall time of predicting the validation and test splits",
            "peak_rss_mb": f"RSS growth during fit and predict, MiB; method: {PEAK_RSS_METHOD}",
        },
        timing=timing_manifest(config),
        environment=environment(),
        git=git_state(repo_root()),
        split_checks=split_checks,
        device=device,
        extra={} if config.over_file is None else {"config_file": config.over_file},
    )


def labels_frame(splits: LetorSplits) -> pd.DataFrame:
    """``labels.parquet``: split, row, qid, label of every evaluated split."""
    return pd.concat(
        [
            pd.DataFrame(
                {"split": split, "row": np.arange(d.n_rows, dtype=np.int64), "qid": d.qid, "label": d.y}
            )
            for split, d in ((s, getattr(splits, s)) for s in EVAL_SPLITS)
        ],
        ignore_index=True,
    )


def pair_tables(
    config: RunConfig, splits: LetorSplits, r: FitResult, timing: FitTiming | None = None
) -> dict[str, pd.DataFrame]:
    """The rows of one trained (model, seed) for every per-pair table of the run directory."""
    metric_rows: list[dict[str, Any]] = []
    pq_parts: list[pd.DataFrame] = []
    score_parts: list[pd.DataFrame] = []
    for split in EVAL_SPLITS:
        data = getattr(splits, split)
        scores = np.asarray(r.scores[split], dtype=np.float64)
        rows, per_query = evaluate_scores(data, scores, metrics=config.metrics,
                                          profile=config.profile_value, label=config.profile)
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
    t = timing or FitTiming.of(config.timing, [r.fit], r.fit_s)
    timings = pd.DataFrame(
        [{
            "dataset": splits.name, "model": r.model, "library": r.library, "seed": r.seed,
            "fit_s": t.median, "predict_s": r.predict_s, "peak_rss_mb": r.peak_rss_mb,
            "best_iteration": r.best_iteration, "n_trees": r.n_trees,
            "fit_cpu_s": float(statistics.median(t.cpu_s)), "other_load": t.other_load,
            "steal_load": t.steal_load, "contended": t.contended, "timing": t.mode,
            "repeats": len(t.seconds), "fit_s_min": min(t.seconds), "fit_s_max": max(t.seconds),
            "fit_s_repeats": ";".join(repr(float(x)) for x in t.seconds),  # 4e-07, not 0.000000
        }]
    )
    return {
        "metrics.csv": pd.DataFrame(metric_rows),
        "per_query.parquet": pd.concat(pq_parts, ignore_index=True),
        "timings.csv": timings,
        "evallog.csv": r.evallog.assign(model=r.model, seed=r.seed),
        "scores.parquet": pd.concat(score_parts, ignore_index=True),
    }


def pair_status(r: FitResult, objective: str, timing: FitTiming | None = None) -> dict[str, Any]:
    """The body of the status file of a trained (model, seed)."""
    t = timing or FitTiming.of("inprocess", [r.fit], r.fit_s)
    return {
        "status": "done",
        "library": r.library,
        "objective": objective,
        "best_iteration": r.best_iteration,
        "n_trees": r.n_trees,
        "fit_s": t.median,
        "fit_s_repeats": list(t.seconds),
        "other_load": t.other_load,
        "contended": t.contended,
        "predict_s": r.predict_s,
        "peak_rss_mb": r.peak_rss_mb,
        "library_params": r.library_params,
        "notes": r.notes,
    }
