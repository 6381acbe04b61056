"""Row-order sensitivity (``--permute-check``): shuffle rows inside each query and measure what moves.

LightGBM and XGBoost break score ties by input order (stable sorts: LightGBM
``src/metric/dcg_calculator.cpp``, XGBoost ``common::ArgSort``), so the same scores in another row
order can give another NDCG (LightGBM issue #2091: 0.54 vs 0.92 on a reversed validation set).
The reference evaluator's default profile averages over ties (McSherry & Najork 2008) and must
not move at all.

For every (model, seed, split) of a run, the rows of each query are permuted with a seeded
random permutation (queries stay where they are; scores and labels move together), and each
evaluator is run on the original and the permuted order: the built-in metric of every declared
library whose provider keeps tied scores in row order
(:attr:`bench.runners.metric_provider.MetricProvider.ties_in_row_order`: ``lightgbm`` and
``xgboost``; :func:`library_evaluators`) and ``reference`` (:func:`bench.metrics.evaluate`
under the run's profile). With ``retrain=True`` the LightGBM/XGBoost models are also trained again
on the training split with its rows permuted inside queries (XGBoost issue #10025: row order
changes the model), and the reference metric of the new test scores is compared with the
original run's. With ``subsample < 1`` both libraries draw the bag by row position, so a
permutation also changes which rows are bagged: the retrained delta then mixes row-order
sensitivity with bagging noise (compare it with the spread over seeds).

Output ``permute.csv`` in the run directory: ``model, seed, split, metric, evaluator, original,
permuted, delta, tied_rows, retrained`` (``tied_rows``: fraction of rows whose score equals
another score of the same query).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from bench.data.groups import group_index
from bench.data.letor import LetorData, LetorSplits
from bench.metrics import evaluate
from bench.metrics.profiles import Profile
from bench.runners.dispatch import run_model
from bench.runners.libraries import LIBRARIES
from bench.runners.metric_provider import MetricProvider
from bench.runners.result import EVAL_SPLITS
from bench.runs.layout import read_table, write_table

COLUMNS = ("model", "seed", "split", "metric", "evaluator", "original", "permuted", "delta",
           "tied_rows", "retrained")


def permutation_within_queries(offsets: NDArray[np.int64], seed: int) -> NDArray[np.int64]:
    """A row order that shuffles the rows of each query and keeps queries in place (one sort)."""
    g = group_index(offsets)
    # numpy's stub resolves random(<Any size>) to its scalar overload; a size gives an array.
    key = cast(NDArray[np.float64], np.random.default_rng(seed).random(g.shape[0]))
    return np.lexsort((key, g)).astype(np.int64)


def tied_fraction(scores: NDArray[np.float64], offsets: NDArray[np.int64]) -> float:
    """Fraction of rows whose score equals another score in the same query."""
    if scores.shape[0] == 0:
        return 0.0
    g = group_index(offsets)
    order = np.lexsort((scores, g))
    gs, ss = g[order], scores[order]
    same = (gs[1:] == gs[:-1]) & (ss[1:] == ss[:-1])
    tied = np.zeros(scores.shape[0], dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    return float(tied.mean())


def permute_data(data: LetorData, seed: int) -> LetorData:
    """``data`` with the rows of every query shuffled (features, labels and ids move together)."""
    perm = permutation_within_queries(data.offsets, seed)
    return replace(
        data,
        X=data.X[perm],
        y=data.y[perm],
        qid=data.qid[perm],
        user=None if data.user is None else data.user[perm],
        item=None if data.item is None else data.item[perm],
    )


def _reference(y: NDArray[np.float64], s: NDArray[np.float64], qid: NDArray[np.int64],
               metrics: tuple[str, ...], profile: Profile | str) -> dict[str, float]:
    res = evaluate(y, s, qid=qid, metrics=metrics, profile=profile)
    return {m: float(res.metrics[m]) for m in metrics}


def library_evaluators() -> dict[str, type[MetricProvider]]:
    """``{library: provider}`` of the declared libraries (:data:`bench.runners.libraries.LIBRARIES`,
    read now) whose built-in metric provider keeps tied scores in row order
    (:attr:`~bench.runners.metric_provider.MetricProvider.ties_in_row_order`): the built-in
    metrics a permutation can move, in declaration order."""
    providers = {name: lib.provider() for name, lib in LIBRARIES.items() if lib.metrics}
    return {name: cls for name, cls in providers.items() if cls.ties_in_row_order}


def _evaluators(y: NDArray[np.float64], s: NDArray[np.float64], data: LetorData,
                metrics: tuple[str, ...], profile: Profile | str,
                libraries: dict[str, type[MetricProvider]]) -> dict[str, dict[str, float]]:
    out = {name: cls(y, s, data.offsets, metrics)() for name, cls in libraries.items()}
    return {**out, "reference": _reference(y, s, data.qid, metrics, profile)}


def permute_check_run(
    run_dir: str | Path,
    splits: LetorSplits,
    *,
    config: Any,
    retrain: bool = False,
    seed: int = 0,
) -> pd.DataFrame:
    """Run the check on a finished run directory and write ``permute.csv`` (see the module docstring)."""
    run_dir = Path(run_dir)
    metrics = tuple(dict.fromkeys(("ndcg@1", config.select_metric)))
    scores = read_table(run_dir / "scores.parquet")
    libraries = library_evaluators()  # resolved once per check
    rows: list[dict[str, Any]] = []
    for split_i, split in enumerate(EVAL_SPLITS):
        data = getattr(splits, split)
        perm = permutation_within_queries(data.offsets, seed + split_i)
        sub = scores[scores["split"].astype(str) == split]
        for (model, mseed), g in sub.groupby(["model", "seed"], sort=True):
            s = g.sort_values("row")["score"].to_numpy(dtype=np.float64)
            before = _evaluators(data.y, s, data, metrics, config.profile_value, libraries)
            # perm stays inside queries, so data.offsets and data.qid still describe the rows
            after = _evaluators(data.y[perm], s[perm], data, metrics, config.profile_value,
                                libraries)
            ties = tied_fraction(s, data.offsets)
            for ev, vals in before.items():
                for m in metrics:
                    rows.append({"model": model, "seed": int(mseed), "split": split, "metric": m,
                                 "evaluator": ev, "original": vals[m], "permuted": after[ev][m],
                                 "delta": after[ev][m] - vals[m], "tied_rows": ties,
                                 "retrained": False})
    if retrain:
        rows.extend(_retrain_rows(run_dir, splits, config, metrics, seed, scores))
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    path = run_dir / "permute.csv"
    write_table(path, frame)
    return frame


def _retrain_rows(run_dir: Path, splits: LetorSplits, config: Any, metrics: tuple[str, ...],
                  seed: int, scores: pd.DataFrame) -> list[dict[str, Any]]:
    shuffled = replace(splits, train=permute_data(splits.train, seed + 100))
    test = splits.test
    rows = []
    for model in config.models:
        spec = config.model_spec(model)  # resolved when the config was made
        if not spec.is_gbdt:
            continue
        for mseed in config.seeds:
            g = scores[(scores["model"].astype(str) == model) & (scores["seed"] == mseed)
                       & (scores["split"].astype(str) == "test")]
            if g.empty:
                continue
            s0 = g.sort_values("row")["score"].to_numpy(dtype=np.float64)
            r = run_model(spec, shuffled, config.params_for(model, mseed), seed=mseed,
                          eval_at=config.eval_at, selection=config.selection,
                          log_train=False)
            s1 = r.scores["test"]
            a = _reference(test.y, s0, test.qid, metrics, config.profile_value)
            b = _reference(test.y, s1, test.qid, metrics, config.profile_value)
            for m in metrics:
                rows.append({"model": model, "seed": int(mseed), "split": "test", "metric": m,
                             "evaluator": "reference", "original": a[m], "permuted": b[m],
                             "delta": b[m] - a[m], "tied_rows": tied_fraction(s1, test.offsets),
                             "retrained": True})
    return rows
