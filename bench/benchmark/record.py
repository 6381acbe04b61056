"""What a benchmark run records: the manifest it starts with, and the rows of one trained model.

The run directory's files and columns are :mod:`bench.runs.layout`'s; this module fills them
from a :class:`~bench.benchmark.config.RunConfig`, the loaded splits and a
:class:`~bench.runners.result.FitResult`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from bench import __version__
from bench.benchmark.config import RunConfig
from bench.benchmark.scoring import evaluate_scores
from bench.data.letor import LetorSplits
from bench.datasets.fetch import repo_root
from bench.runners.registry import get_model
from bench.runners.resources import PEAK_RSS_METHOD
from bench.runners.result import EVAL_SPLITS, SELECTION_SPLIT, FitResult
from bench.runs.manifest import dataset_fingerprint, environment, git_state, now


def start_manifest(config: RunConfig, splits: LetorSplits, run_id: str) -> dict[str, Any]:
    """The manifest a run starts with (``finished`` is set when every pair is done)."""
    return {
        "run_id": run_id,
        "ltrbench_version": __version__,
        "config_hash": config.config_hash(),
        "started": now(),
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
            "split": SELECTION_SPLIT,
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
        "git": git_state(repo_root()),
    }


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


def pair_tables(config: RunConfig, splits: LetorSplits, r: FitResult) -> dict[str, pd.DataFrame]:
    """The rows of one trained (model, seed) for every per-pair table of the run directory."""
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
    return {
        "metrics.csv": pd.DataFrame(metric_rows),
        "per_query.parquet": pd.concat(pq_parts, ignore_index=True),
        "timings.csv": timings,
        "evallog.csv": r.evallog.assign(model=r.model, seed=r.seed),
        "scores.parquet": pd.concat(score_parts, ignore_index=True),
    }


def pair_status(r: FitResult, objective: str) -> dict[str, Any]:
    """The body of the status file of a trained (model, seed)."""
    return {
        "status": "done",
        "library": r.library,
        "objective": objective,
        "best_iteration": r.best_iteration,
        "n_trees": r.n_trees,
        "fit_s": r.fit_s,
        "predict_s": r.predict_s,
        "peak_rss_mb": r.peak_rss_mb,
        "library_params": r.library_params,
        "notes": r.notes,
    }
