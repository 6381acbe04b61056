"""The tuned leaderboard: each library's default row beside its tuned row, one table, paired tests.

The smallest honest design: two ordinary runs of the same dataset, splits and seeds, one of the
defaults and one of tune's ``best.toml`` (``ltrbench run --config DIR/tune/<name>/best.toml``),
joined **per query** into one table whose rows are ``<model> (default)`` and ``<model> (tuned)``.
Each row keeps its run's numbers (mean ± std over seeds from ``metrics.csv``, fit times); the
statistics are computed again on the joined rows exactly as :mod:`bench.report.build` computes
them for one run (per-query values averaged over seeds, a percentile bootstrap interval over
queries with the same resampled queries for every row; paired randomization and t tests of the
primary metric against the best row, Holm-corrected over the other rows). Beside them,
:func:`tuned_vs_default` tests each model's tuned row against its own default row (the question
"did tuning help this library?"), Holm-corrected over the models.

A paired test compares two systems on the same query, so the runs are refused unless they hold
the same dataset (name and, where both manifests record it, the fingerprint of the splits),
the same seeds and, for every model and metric, the same test queries; every model of the tuned
run must be in the default run; the default run may not carry ``[model_params]`` for those
models (it would not be the defaults) nor other ``[params]`` than the tuned run (but for the
threads: :data:`TIMING_ONLY`); and, when a tune folder is given, the tuned run's
``[model_params]`` must be ``best.toml``'s and its ``dataset`` the same.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.data.jsonio import json_number
from bench.errors import ConfigError, DataError
from bench.metrics.families import best_is_lowest
from bench.report import stats
from bench.report.build import DEFAULT_OPTIONS, LeaderboardOptions, filter_dataset, table_of
from bench.report.seed_values import per_query_matrix as _matrix
from bench.report.table import MetricCell, PairedTest, Row, Table
from bench.runs.reader import RunDir

DEFAULT_TAG, TUNED_TAG = "(default)", "(tuned)"
#: ``[params]`` keys that change how fast a fit runs, never what it learns: the default and
#: the tuned run may differ in them.
TIMING_ONLY = frozenset({"n_threads"})


@dataclass(frozen=True)
class TunedBoard:
    """The joined table and the tests of each tuned row against its default row
    (``{"model", "library", "default", "tuned", "delta", "p_randomization", ...}`` per model)."""

    table: Table
    versus_default: list[dict[str, Any]]
    default_run: RunDir
    tuned_run: RunDir
    #: Both runs' per-query values, models named as the rows are (``<model> (tuned)``): what
    #: the HTML page's drill-down of a joined table reads.
    per_query: pd.DataFrame


def _model_params(run: RunDir) -> dict[str, Any]:
    params = run.config.get("model_params", {})
    return params if isinstance(params, dict) else {}


def pair_runs(runs: Sequence[RunDir], best: dict[str, Any] | None) -> tuple[RunDir, RunDir]:
    """``(default, tuned)`` of two runs: the tuned one carries ``best.toml``'s
    ``[model_params]`` (or, without a tune folder, any ``[model_params]``)."""
    if len(runs) != 2:
        raise ConfigError(f"a tuned leaderboard joins two runs (the defaults and best.toml's), "
                          f"got {len(runs)}")
    same = {os.path.realpath(r.path) for r in runs}
    if len(same) == 1:
        raise ConfigError(f"--runs names one run twice ({os.fspath(runs[0].path)!r} and "
                          f"{os.fspath(runs[1].path)!r} are the same folder): a tuned "
                          "leaderboard joins two runs, DEFAULT_RUN TUNED_RUN (the defaults and "
                          "'ltrbench run --config TUNE_DIR/best.toml')")
    want = None if best is None else best.get("model_params") or {}

    def is_tuned(run: RunDir) -> bool:
        got = _model_params(run)
        return bool(got) and (want is None or all(got.get(m) == p for m, p in want.items()))

    tuned = [r for r in runs if is_tuned(r)]
    if len(tuned) != 1:
        what = "best.toml's [model_params]" if want is not None else "[model_params]"
        raise ConfigError(f"expected exactly one of the two runs to carry {what} (the run of "
                          f"best.toml), found {len(tuned)}: {', '.join(r.run_id for r in tuned)}"
                          "; run 'ltrbench run --config <tune folder>/best.toml'")
    default = runs[0] if runs[1] is tuned[0] else runs[1]
    return default, tuned[0]


def _check_pair(default: RunDir, tuned: RunDir, dataset: str, models: list[str],
                best: dict[str, Any] | None) -> None:
    """Refuse two runs whose rows cannot be paired (module docstring)."""
    for run in (default, tuned):
        if dataset not in run.datasets():
            raise DataError(f"no rows of dataset {dataset!r} (it has "
                            f"{', '.join(run.datasets())})", path=run.path / "metrics.csv")
    prints = [run.manifest.get("dataset", {}).get("fingerprint") if run.has_manifest else None
              for run in (default, tuned)]
    if all(prints) and prints[0] != prints[1]:
        raise DataError(f"the runs were made on other splits (dataset fingerprint {prints[0]} "
                        f"vs {prints[1]}): paired tests need the same queries",
                        path=tuned.path / "manifest.json")
    if best is not None and str(best.get("dataset")) != str(tuned.config.get("dataset")):
        raise ConfigError(f"best.toml is of dataset {best.get('dataset')!r}, the tuned run of "
                          f"{tuned.config.get('dataset')!r}: not the run of this tune folder")
    base = [(k, default.config.get("params", {}).get(k), v)
            for k, v in (tuned.config.get("params") or {}).items()
            if k not in TIMING_ONLY and default.config.get("params", {}).get(k) != v]
    if base:
        k, was, now = base[0]
        raise ConfigError(f"the default run {default.run_id} has [params] {k} = {was!r}, the "
                          f"tuned run {now!r}: the rows would differ by more than the tuned "
                          "parameters; run the defaults with best.toml's [params] (the same "
                          "config without [model_params])")
    stray = [m for m in models if m in _model_params(default)]
    if stray:
        raise ConfigError(f"the default run {default.run_id} sets [model_params.{stray[0]}]: "
                          "its row would not be the library's defaults")
    absent = [m for m in models if m not in set(default.table("metrics.csv")["model"].astype(str))]
    if absent:
        raise DataError(f"model(s) {', '.join(absent)} of the tuned run are not in the default "
                        "run: no default row to set beside them", path=default.path / "metrics.csv")


def _per_query(run: RunDir, dataset: str, split: str, models: list[str], tag: str) -> pd.DataFrame:
    pq = filter_dataset(run.table_or_empty("per_query.parquet"), dataset)
    if pq.empty:
        raise DataError("no per_query.parquet: the tuned leaderboard's paired tests need the "
                        "per-query values of both runs", path=run.path)
    pq = pq[(pq["split"].astype(str) == split) & pq["model"].astype(str).isin(models)]
    return pq.assign(model=pq["model"].astype(str) + f" {tag}", metric=pq["metric"].astype(str))


def _check_same_queries(a: pd.DataFrame, b: pd.DataFrame, seeds: tuple[list[Any], list[Any]],
                        tuned: RunDir) -> None:
    if [str(s) for s in seeds[0]] != [str(s) for s in seeds[1]]:
        raise DataError(f"seeds {seeds[0]} (default) vs {seeds[1]} (tuned): run both with the "
                        "same seeds", path=tuned.path / "config.toml")
    qa = {str(q) for q in a["qid"]}
    qb = {str(q) for q in b["qid"]}
    if qa != qb:
        only = sorted(qa ^ qb)[:3]
        raise DataError(f"the runs were evaluated on other test queries ({len(qa)} vs {len(qb)};"
                        f" e.g. {', '.join(only)} in one only): paired tests need the same "
                        "queries, so both runs must use the same splits",
                        path=tuned.path / "per_query.parquet")


def tuned_table(default: RunDir, tuned: RunDir, dataset: str, *,
                options: LeaderboardOptions = DEFAULT_OPTIONS, best: dict[str, Any] | None = None,
                base_dir: Path | None = None) -> TunedBoard:
    """The tuned leaderboard of ``dataset`` (module docstring): ``default`` and ``tuned`` are
    the two runs, ``best`` the tune folder's ``best.toml`` as read (checked against the tuned
    run when given)."""
    t_default = table_of(default, dataset, options=options, base_dir=base_dir)
    t_tuned = table_of(tuned, dataset, options=options, base_dir=base_dir)
    options = replace(options, primary=t_tuned.primary_metric)  # named, or the run's fallback
    models = [r.model for r in t_tuned.rows]
    _check_pair(default, tuned, dataset, models, best)
    pq_d = _per_query(default, dataset, options.split, models, DEFAULT_TAG)
    pq_t = _per_query(tuned, dataset, options.split, models, TUNED_TAG)
    _check_same_queries(pq_d, pq_t, (t_default.seeds, t_tuned.seeds), tuned)
    by_name = {r.model: r for r in t_default.rows}
    rows = []
    for m in models:
        for row, tag in ((by_name[m], DEFAULT_TAG), (next(r for r in t_tuned.rows
                                                          if r.model == m), TUNED_TAG)):
            cells = {k: MetricCell(c.mean, c.std, dict(c.per_seed)) for k, c in row.metrics.items()}
            rows.append(replace(row, model=f"{m} {tag}", metrics=cells, vs_best=None, blank={}))
    metrics = [k for k in t_tuned.metrics if k in t_default.metrics]
    rows.sort(key=lambda r: _order(r, t_tuned.primary_metric))
    pq = pd.concat([pq_d, pq_t], ignore_index=True)
    _intervals(rows, pq, metrics, options)
    _paired(rows, pq, options)
    left = [r.model for r in t_default.rows if r.model not in models]
    notes = [*t_tuned.notes, f"default run {default.run_id}, tuned run {tuned.run_id}: same "
             "dataset, splits, seeds and test queries; rows joined per query"]
    if left:
        notes.append(f"not tuned, left out: {', '.join(left)}")
    notes += [_crosscheck_note(run, tag) for run, tag in ((default, "default"), (tuned, "tuned"))]
    table = replace(t_tuned, rows=rows, metrics=metrics, notes=notes, published=[],
                    best_model=rows[0].model if rows else None)
    versus = tuned_vs_default(pq, models, options)
    return TunedBoard(table, versus, default, tuned, pq)


def _crosscheck_note(run: RunDir, tag: str) -> str:
    """What the run's manifest says of its cross-check (built-in metric vs the reference)."""
    cc = run.manifest.get("crosscheck") if run.has_manifest else None
    if not isinstance(cc, dict):
        return (f"cross-check of the {tag} run {run.run_id}: not run (ltrbench crosscheck "
                f"--run {run.path.name})")
    errors = cc.get("errors") or []
    return (f"cross-check of the {tag} run {run.run_id}: "
            + ("OK" if cc.get("ok") else "FAILED" + (f" ({errors[0]})" if errors else "")))


def _order(row: Row, primary: str) -> tuple[int, float, str]:
    """The best mean first: the highest, the lowest for ARP, RMSE, MAE (``best_is_lowest``)."""
    cell = row.metrics.get(primary)
    v = None if cell is None else cell.mean
    sign = 1.0 if best_is_lowest(primary) else -1.0
    return (0, sign * float(v), row.model) if v is not None else (1, 0.0, row.model)


def _intervals(rows: list[Row], pq: pd.DataFrame, metrics: list[str],
               options: LeaderboardOptions) -> None:
    """Bootstrap intervals as the default leaderboard's: one resampling of the (common) queries
    for every row and metric (:func:`bench.report.stats.bootstrap_ci`)."""
    names = [r.model for r in rows]
    mats = [_matrix(pq, m, names)[0] for m in metrics]
    stacked = np.vstack(mats)
    ci = stats.bootstrap_ci(stacked, n_resamples=options.bootstrap_resamples,
                            confidence=options.confidence, seed=options.seed)
    counts = (~np.isnan(stacked)).sum(axis=1)
    for j, metric in enumerate(metrics):
        for i, row in enumerate(rows):
            k = j * len(rows) + i
            cell = row.metrics[metric]
            cell.ci_low, cell.ci_high = json_number(ci.low[k]), json_number(ci.high[k])
            cell.ci_mean, cell.n_queries = json_number(ci.mean[k]), int(counts[k])


def _paired(rows: list[Row], pq: pd.DataFrame, options: LeaderboardOptions) -> None:
    """Paired tests of the primary metric of every row against the top row, Holm-corrected."""
    if len(rows) < 2:
        return
    mat, _ = _matrix(pq, options.named_primary(), [r.model for r in rows])
    vs = stats.compare_with_best(mat, best=0, n_resamples=options.randomization_resamples,
                                 seed=options.seed)
    for i, row in enumerate(rows[1:], start=1):
        row.vs_best = PairedTest(options.named_primary(), json_number(vs.p_randomization[i]),
                                 json_number(vs.p_randomization_holm[i]), json_number(vs.p_t[i]),
                                 json_number(vs.p_t_holm[i]), int(vs.n_queries[i]))


def tuned_vs_default(pq: pd.DataFrame, models: list[str],
                     options: LeaderboardOptions) -> list[dict[str, Any]]:
    """Per model, its tuned row against its default row on the primary metric, paired per query
    (seed-averaged values): the mean of each, their difference, the randomization and t
    p-values and each Holm-corrected over the models."""
    names = [f"{m} {t}" for m in models for t in (DEFAULT_TAG, TUNED_TAG)]
    mat, _ = _matrix(pq, options.named_primary(), names)
    d, t = mat[0::2], mat[1::2]
    p_rand = np.atleast_1d(stats.randomization_test(
        t - d, n_resamples=options.randomization_resamples, seed=options.seed))
    p_t = np.atleast_1d(stats.paired_t_test(t, d))
    rand_holm, t_holm = stats.holm(p_rand), stats.holm(p_t)
    out = []
    for i, m in enumerate(models):
        keep = ~(np.isnan(d[i]) | np.isnan(t[i]))
        out.append({
            "model": m, "metric": options.named_primary(),
            "default": json_number(np.mean(d[i][keep])) if keep.any() else None,
            "tuned": json_number(np.mean(t[i][keep])) if keep.any() else None,
            "delta": json_number(np.mean(t[i][keep] - d[i][keep])) if keep.any() else None,
            "p_randomization": json_number(p_rand[i]),
            "p_randomization_holm": json_number(rand_holm[i]),
            "p_t": json_number(p_t[i]), "p_t_holm": json_number(t_holm[i]),
            "n_queries": int(keep.sum())})
    return out


__all__ = ["DEFAULT_TAG", "TUNED_TAG", "TunedBoard", "pair_runs", "tuned_table",
           "tuned_vs_default"]
