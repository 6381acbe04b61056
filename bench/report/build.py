"""Leaderboard tables built from run directories: the JSON-ready document every renderer reads.

One table per dataset (the newest finished run that has it, or the runs named: see
:mod:`bench.report.select`), rows = models, test split:

* NDCG@1/3/5/10, MAP@10, MRR, P@10, R@10 as mean ± sample std over seeds (``metrics.csv``, the
  reference evaluator under the run's profile, default ``ltrbench``) and fit time (``timings.csv``);
* a 95% percentile bootstrap CI over queries for every metric, on the per-query values averaged
  over seeds (``per_query.parquet``; :func:`bench.report.stats.bootstrap_ci`);
* paired per-query tests of the primary metric (NDCG@10) against the best row: randomization
  (sign flips) and paired t, each Holm-corrected over the comparisons
  (:func:`bench.report.stats.compare_with_best`);
* when the test split has blank queries (no relevant document): their count and NDCG@k with blank
  queries scored 0 and 1 (``metrics.csv`` rows of profiles ``<profile>-blank0/-blank1``, else
  computed from the per-query values).

``leaderboard.json`` holds every number (NaN → ``null``) plus ``run_id`` and ``run_config`` per
table; ``ltrbench reproduce`` reads it. Paths in it (``run_dir``, ``run_config``) are relative to
the folder holding ``leaderboard.json`` when the run lies inside that folder, else absolute.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.data.jsonio import json_number
from bench.data.look_alike import refuse_look_alikes
from bench.errors import DataError
from bench.metrics import families
from bench.metrics.families import DEFAULT_METRICS, PRIMARY_METRIC, best_is_lowest, is_family
from bench.report import stats
from bench.report.compare_checks import MOST_BOOTSTRAP as MOST_BOOTSTRAP
from bench.report.compare_checks import MOST_PERMUTATIONS as MOST_PERMUTATIONS
from bench.report.foreign import foreign_notes
from bench.report.published import published_beside_ours as published_beside_ours
from bench.report.published import published_for_run, published_key
from bench.report.seed_values import per_query_matrix, seed_list, seed_stats
from bench.report.select import Choice, is_unfinished, select_runs
from bench.report.table import FitTime, MetricCell, PairedTest, Row, SeedStats, Table
from bench.runners.resources import CONTENTION_THRESHOLD
from bench.runs.consistency import check_run_consistency, failed_pairs, skipped_pairs
from bench.runs.layout import blank_fills, blank_variant_of
from bench.runs.models import model_libraries
from bench.runs.reader import RunDir
from bench.runs.timing_checks import busy_count, repeat_seconds

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class LeaderboardOptions:
    """What goes into a leaderboard and how its statistics are computed (recorded in the JSON)."""

    metrics: tuple[str, ...] = DEFAULT_METRICS
    #: The metric of the paired tests and of the order of the rows. ``None`` (not named):
    #: ``ndcg@10``, or the first of ``metrics`` when they were named without it, or the run's
    #: first metric when it has no ``ndcg@10`` (said in the table's notes). A metric named here
    #: that a run lacks is an error, never replaced.
    primary: str | None = None
    split: str = "test"
    confidence: float = 0.95
    bootstrap_resamples: int = 1000
    randomization_resamples: int = 10_000
    seed: int = 0

    def named_primary(self) -> str:
        """The primary metric as the options state it, before any run is read (what the JSON's
        ``stats.primary`` records): :attr:`primary`, else ``ndcg@10`` unless metrics were named
        without it, else the first of them."""
        if self.primary is not None:
            return self.primary
        if self.metrics == DEFAULT_METRICS or PRIMARY_METRIC in self.metrics:
            return PRIMARY_METRIC  # else the first with a best run (no residual, no count)
        return next((m for m in self.metrics if families.better(m) != "none"), self.metrics[0])


#: The options of ``ltrbench report`` with no flags (and of every committed leaderboard).
DEFAULT_OPTIONS = LeaderboardOptions()


# --------------------------------------------------------------------------------------------
# Building the tables
# --------------------------------------------------------------------------------------------


def _check_metrics_present(options: LeaderboardOptions, found: list[str], has: list[str],
                           run_path: Path) -> None:
    """Metrics asked for by name and the primary must be in the run (an error naming it and what
    it has), the primary a quality measure: never a column left out or a verdict without ground."""
    where = run_path / "metrics.csv"
    if options.metrics != DEFAULT_METRICS:
        missing = [m for m in options.metrics if m not in found]
        if missing:
            raise DataError(f"--metrics {', '.join(missing)}: not in this run; it has "
                            f"{', '.join(has)}", path=where)
    families.refuse_no_quality(str(options.primary), str(options.primary), "--primary")
    if options.primary not in found:
        raise DataError(f"--primary {options.primary}: not among the reported metrics of this run "
                        f"({', '.join(found) or 'none'}); pick one with --primary", path=where)


def _display_path(path: Path, base: Path | None) -> str:
    """``path`` relative to ``base`` when inside it (POSIX separators), else absolute."""
    p = path.resolve()
    if base is not None:
        b = base.resolve()
        try:
            return p.relative_to(b).as_posix()
        except ValueError:
            pass
    return p.as_posix()


def _main_profile(metrics: pd.DataFrame, run: RunDir) -> str:
    if "profile" not in metrics.columns:
        return run.profile
    profiles = [str(p) for p in metrics["profile"].dropna().astype(str)]
    plain = [p for p in profiles if blank_variant_of(p)[1] is None]
    if run.profile in plain:
        return run.profile
    if not plain:
        return run.profile
    top: str = pd.Series(plain).value_counts().index[0]
    return top


def filter_dataset(frame: pd.DataFrame, dataset: str) -> pd.DataFrame:
    if "dataset" in frame.columns and len(frame):
        return frame[frame["dataset"].astype(str) == dataset]
    return frame


def _blank_count(run: RunDir, pq: pd.DataFrame, primary: str, split: str) -> tuple[int | None, int]:
    """(blank queries, queries) of the split: from the per-query NaNs of the primary metric (the
    evaluator's own verdict), else from labels.parquet (no label > 0)."""
    sub = pq[pq["metric"].astype(str) == primary]
    if not sub.empty:
        first = sub[(sub["model"] == sub["model"].iloc[0]) & (sub["seed"] == sub["seed"].iloc[0])]
        return int(first["value"].isna().sum()), int(first["qid"].nunique())
    if run.has("labels.parquet"):
        labels = run.table("labels.parquet")
        lab = labels[labels["split"].astype(str) == split]
        if not lab.empty:
            mx = lab.groupby("qid")["label"].max()
            return int((mx <= 0).sum()), len(mx)
    return None, 0


def fit_time_summary(timings: pd.DataFrame) -> dict[str, Any]:
    """Fit time of one model over seeds × repeats: ``median``, ``min``, ``max``, ``n``, the number
    of ``contended`` fits (``None`` when the run did not record the machine's load) and the
    ``timing`` mode (``inprocess`` / ``isolated``; ``None`` for older runs)."""
    if not len(timings) or "fit_s" not in timings.columns:
        return {"median": None, "min": None, "max": None, "n": 0, "contended": None, "timing": None}
    if "fit_s_repeats" in timings.columns and timings["fit_s_repeats"].notna().all():
        times = [x for cell in timings["fit_s_repeats"] for x in repeat_seconds(cell)]
    else:
        times = [float(x) for x in timings["fit_s"]]
    arr = np.asarray(times, dtype=np.float64)
    contended = busy_count(timings)
    modes = sorted(set(timings["timing"].dropna().astype(str))) if "timing" in timings.columns else []
    return {
        "median": json_number(np.median(arr)),
        "min": json_number(arr.min()),
        "max": json_number(arr.max()),
        "n": int(arr.shape[0]),
        "contended": contended,
        "timing": "+".join(modes) or None,
    }


def build_table(
    run: RunDir,
    dataset: str,
    *,
    options: LeaderboardOptions = DEFAULT_OPTIONS,
    base_dir: Path | None = None,
) -> dict[str, Any]:
    """The leaderboard table of one dataset of one run, as a JSON-ready dict
    (:meth:`bench.report.table.Table.to_json` of :func:`table_of`)."""
    return table_of(run, dataset, options=options, base_dir=base_dir).to_json()


@dataclass(frozen=True)
class _Sources:
    """The rows of one dataset and split of a run that a table is built from."""

    profile: str
    main: pd.DataFrame  # metrics.csv rows of the run's profile
    blank0: pd.DataFrame  # ... of <profile>-blank0 / -blank1
    blank1: pd.DataFrame
    pq: pd.DataFrame  # per_query.parquet rows (empty when absent)
    timings: pd.DataFrame
    metric_names: list[str]
    primary: str  # options.primary, or the run's first metric where it lacks the default one


def table_of(
    run: RunDir,
    dataset: str,
    *,
    options: LeaderboardOptions = DEFAULT_OPTIONS,
    base_dir: Path | None = None,
) -> Table:
    """The leaderboard table of one dataset of one run (:class:`bench.report.table.Table`).

    Rows are models, best primary-metric mean first: each metric over seeds (``metrics.csv``),
    its bootstrap interval over queries (``per_query.parquet``), fit and predict times
    (``timings.csv``), the paired tests of the primary metric against the best row, and NDCG with
    blank queries scored 0 and 1 when the split has blank queries. The run's files are checked
    against each other first (:func:`bench.runs.consistency.check_run_consistency`).
    """
    src = _sources(run, dataset, options)
    moved = [] if src.primary == options.named_primary() else [
        f"primary metric {src.primary}: the run has no {options.named_primary()} (another one: "
        "primary= / --primary)"]
    options = replace(options, primary=src.primary)
    models = _models_in_order(src.main, src.primary, src.metric_names)
    refuse_look_alikes(models, f"model names of run {run.run_id} ({run.path}), dataset {dataset!a}")
    n_blank, n_queries = _blank_count(run, src.pq, src.primary, options.split)
    libraries = model_libraries(run, models)  # the run's records, never the names
    rows = [_row(src, model, options, libraries[model]) for model in models]
    from bench import __version__

    notes = [*moved, *foreign_notes(run, __version__), *_timing_notes(rows),
             *_failure_notes(run, rows)]
    have_pq = len(src.pq) > 0
    if not have_pq:
        notes.append("per_query.parquet absent: no confidence intervals or paired tests")
    else:
        _add_intervals(rows, src, options)
        notes += _add_paired_tests(rows, src, options)
    if n_blank:
        _add_blank_policies(rows, src)
    published, withheld = published_for_run(
        str(run.config.get("published", "") or ""), published_key(run.manifest),
        [r.to_json() for r in rows], quick=run.config.get("quick") is True, split=options.split)
    notes += withheld
    return Table(
        dataset=dataset, run_id=run.run_id, unfinished=is_unfinished(run),
        run_dir=_display_path(run.path, base_dir),
        run_config=_display_path(run.config_path, base_dir),
        run_timestamp=run.timestamp, profile=src.profile, split=options.split,
        seeds=seed_list(src.main["seed"]), metrics=src.metric_names,
        primary_metric=src.primary, n_queries=n_queries, blank_queries=n_blank,
        best_model=_best(rows, src.primary), notes=notes, rows=rows, published=published,
    )


def _best(rows: list[Row], primary: str) -> str | None:
    """The first row's model when it has a primary mean; ``None`` when no row has one (every
    query blank): the first row was named best while the verdict said "none"."""
    cell = rows[0].metrics.get(primary) if rows else None
    mean = None if cell is None else cell.mean
    return rows[0].model if mean is not None and math.isfinite(float(mean)) else None


def _sources(run: RunDir, dataset: str, options: LeaderboardOptions) -> _Sources:
    split = options.split
    metrics_all = filter_dataset(run.table("metrics.csv"), dataset)
    profile = _main_profile(metrics_all, run)
    check_run_consistency(run, profile)
    m = metrics_all[metrics_all["split"].astype(str) == split]
    if "profile" in m.columns:
        fills = blank_fills(m["profile"], profile)
        main, blank0, blank1 = (m[(m["profile"].astype(str) == profile).to_numpy()],
                                m[(fills == 0.0).to_numpy(dtype=bool)],
                                m[(fills == 1.0).to_numpy(dtype=bool)])
    else:
        main, blank0, blank1 = m, m.iloc[0:0], m.iloc[0:0]
    if main.empty:
        raise DataError(f"no {split!r} rows for dataset {dataset!r} under profile {profile!r}",
                        path=run.path / "metrics.csv")
    main = main.assign(metric=main["metric"].astype(str), model=main["model"].astype(str))
    held = list(dict.fromkeys(main["metric"]))  # the run's own metrics, in its order
    asked = options.metrics != DEFAULT_METRICS  # else every metric of the run, none left out
    metric_names = [mt for mt in options.metrics if mt in set(held)] if asked else held
    primary = options.named_primary()
    if options.primary is None and not asked and primary not in held:  # the first with a best
        primary = next((m for m in held if families.better(m) != "none"), held[0])  # hits@3
    _check_metrics_present(replace(options, primary=primary), metric_names, sorted(held), run.path)
    pq = filter_dataset(run.table_or_empty("per_query.parquet"), dataset)
    pq = pq[pq["split"].astype(str) == split] if len(pq) else pq
    if len(pq):
        pq = pq.assign(model=pq["model"].astype(str), metric=pq["metric"].astype(str))
    timings = filter_dataset(run.table_or_empty("timings.csv"), dataset)
    if len(timings):
        timings = timings.assign(model=timings["model"].astype(str))
    return _Sources(profile, main, blank0, blank1, pq, timings, metric_names, primary)


def _models_in_order(main: pd.DataFrame, primary: str, metric_names: list[str]) -> list[str]:
    """Best primary-metric mean first (the highest; the lowest for ARP, a rank), NaN last, then
    by name. The mean is the row's own (:func:`_seed_stats`: over the per-seed means, in any
    order of the seeds): a mean of the rows summed in their file order once ranked one model
    first while the verdict, reading the row's mean, named the other."""
    sub = main[main["metric"] == primary] if primary in metric_names else main.iloc[0:0]
    means = {str(name): seed_stats(rows).mean for name, rows in sub.groupby("model")}
    sign = 1.0 if best_is_lowest(primary) else -1.0

    def order(name: str) -> tuple[int, float, str]:
        got = means.get(name)
        v = float("nan") if got is None else float(got)
        return (0, sign * v, name) if not np.isnan(v) else (1, 0.0, name)

    return sorted((str(x) for x in pd.unique(main["model"])), key=order)


def _row(src: _Sources, model: str, options: LeaderboardOptions, library: str) -> Row:
    mm = src.main[src.main["model"] == model]
    tm = src.timings[src.timings["model"] == model] if len(src.timings) else src.timings
    fit, predict = (seed_stats(tm, col) if len(tm) and col in tm.columns else
                    SeedStats(None, None) for col in ("fit_s", "predict_s"))
    summary = fit_time_summary(tm)
    return Row(
        model=model, library=library, seeds=seed_list(mm["seed"]),
        metrics={metric: MetricCell(**vars(seed_stats(mm[mm["metric"] == metric])))
                 for metric in src.metric_names},
        fit_s=FitTime(fit.mean, fit.std, fit.per_seed, **summary),
        predict_s=predict,
    )


def _failure_notes(run: RunDir, rows: list[Row]) -> list[str]:
    """A (model, seed) pair that failed in the run (manifest ``failures``): its row averages
    over the other seeds, or the model has no row; said, never silent."""
    failed = failed_pairs(run)
    notes = []
    for row in rows:
        lost = [k for k in failed if k.startswith(f"{row.model}-seed")
                and k.removeprefix(f"{row.model}-seed") not in {str(s) for s in row.seeds}]
        if lost:
            notes.append(f"{row.model}: {', '.join(lost)} failed in the run (manifest.json "
                         f"'failures'): its values are over seed(s) "
                         f"{', '.join(map(str, row.seeds))} only")
    shown = {r.model for r in rows}
    absent = sorted({k.rpartition("-seed")[0] for k in failed} - shown)
    if absent:
        notes.append(f"failed in every seed, no row (manifest.json 'failures'): {', '.join(absent)}")
    skipped = {k.rpartition("-seed")[0]: why for k, why in skipped_pairs(run).items()}
    notes += [f"{model}: skipped in the run, no row (manifest.json 'status'): {why}"
              for model, why in sorted(skipped.items()) if model not in shown]
    return notes


def _machine_notes(runs: Sequence[RunDir], tables: list[dict[str, Any]]) -> None:
    """Tables from runs on different CPU models (manifest ``environment.cpu_model``): each says
    its machine, since fit times compare only within a table then."""
    cpus = [(r.manifest.get("environment") or {}) for r in runs]
    models = {str(c.get("cpu_model")) for c in cpus if c.get("cpu_model")}
    if len(models) > 1:
        for table, c in zip(tables, cpus, strict=True):
            table["notes"].append(
                f"fit times measured on {c.get('cpu_model') or 'an unrecorded CPU'} "
                f"({c.get('cpu_count') or '?'} CPUs); this report's runs come from "
                f"{len(models)} CPU models: compare fit times within a table only")


def _timing_notes(rows: list[Row]) -> list[str]:
    notes = []
    contended = sum(int(r.fit_s.contended or 0) for r in rows)
    if contended:
        notes.append(
            f"† {contended} fit(s) ran while other processes used more than "
            f"{CONTENTION_THRESHOLD:.0%} of the machine's CPU: their times are not comparable"
        )
    if rows and not any(r.fit_s.timing for r in rows):
        notes.append("fit times recorded without the machine's load: contention unknown")
    modes = {r.model: r.fit_s.timing for r in rows if r.fit_s.timing}
    if len({m for mode in modes.values() for m in mode.split("+")}) > 1:  # --resume, another --timing
        notes.append("fit times measured in different timing modes, not comparable as they "
                     "stand: " + "; ".join(f"{m}: {mode}" for m, mode in modes.items()))
    return notes


def _add_intervals(rows: list[Row], src: _Sources, options: LeaderboardOptions) -> None:
    """Bootstrap CIs over queries, per metric, on seed-averaged per-query values. Draws depend
    only on the seed and the number of queries, so metrics over the same queries are stacked
    and resampled in one pass (the same numbers as one call per metric)."""
    models = [r.model for r in rows]
    mats = {metric: per_query_matrix(src.pq, metric, models) for metric in src.metric_names}
    batches: list[tuple[np.ndarray, list[str]]] = []
    for metric, (_, qids) in mats.items():
        for qref, members in batches:
            if len(qref) == len(qids) and np.array_equal(qref, qids):
                members.append(metric)
                break
        else:
            batches.append((qids, [metric]))
    for _, members in batches:
        stacked = np.vstack([mats[m][0] for m in members])
        ci = stats.bootstrap_ci(stacked, n_resamples=options.bootstrap_resamples,
                                confidence=options.confidence, seed=options.seed)
        counts = (~np.isnan(stacked)).sum(axis=1)  # gm_map: exp of its logarithms' interval
        kinds = [families.averaging(m, src.profile) for m in members for _ in models]
        mean, low, high = stats.family_ci(ci, kinds, counts)
        for j, metric in enumerate(members):
            for i, row in enumerate(rows):
                r = j * len(models) + i
                cell = row.metrics[metric]
                cell.ci_low, cell.ci_high = json_number(low[r]), json_number(high[r])
                cell.ci_mean, cell.n_queries = json_number(mean[r]), int(counts[r])


def _add_paired_tests(rows: list[Row], src: _Sources, options: LeaderboardOptions) -> list[str]:
    """Paired tests of the primary metric against the best (top) row; returns notes."""
    primary = src.primary
    if primary not in src.metric_names or len(rows) < 2:
        return []
    mat, _ = per_query_matrix(src.pq, primary, [r.model for r in rows])
    if np.isnan(mat[0]).all():
        return [f"no per-query {primary} for the best row: no paired tests"]
    vs = stats.compare_with_best(mat, best=0, n_resamples=options.randomization_resamples,
                                 seed=options.seed)
    for i, row in enumerate(rows):
        if i != vs.best:
            row.vs_best = PairedTest(
                primary, json_number(vs.p_randomization[i]),
                json_number(vs.p_randomization_holm[i]), json_number(vs.p_t[i]),
                json_number(vs.p_t_holm[i]), int(vs.n_queries[i]))
    # an empty p-t cell said in words (the comparison of runs says it in its statistics line)
    return [f"{rows[i].model}: all {n} per-query {primary} differences to the best row "
            f"are equal ({d:+.6g}), so the paired t-test has no statistic (no variance; p t "
            f"undefined, counted as p = 1 in Holm's family); the randomization p stands"
            for i, n, d in stats.constant_differences(mat[0], mat) if i != vs.best]


def _add_blank_policies(rows: list[Row], src: _Sources) -> None:
    """NDCG with blank queries scored 0 and 1: the run's ``-blank0``/``-blank1`` rows, else
    from the per-query values."""
    ndcgs = [mt for mt in src.metric_names if is_family(mt, "ndcg")]
    for row in rows:
        for metric in ndcgs:
            entry: dict[str, SeedStats] = {}
            for tag, frame, fill in (("blank0", src.blank0, 0.0), ("blank1", src.blank1, 1.0)):
                sub = frame[(frame["model"].astype(str) == row.model)
                            & (frame["metric"].astype(str) == metric)]
                if not sub.empty:
                    entry[tag] = seed_stats(sub)
                elif len(src.pq):
                    entry[tag] = _blank_policy_from_per_query(src.pq, row.model, metric, fill)
            if entry:
                row.blank[metric] = entry


def _blank_policy_from_per_query(
    pq: pd.DataFrame, model: str, metric: str, fill: float
) -> SeedStats:
    """Per-seed mean with blank (NaN) queries scored ``fill``: ``(sum + fill * n_blank) / n``."""
    sub = pq[(pq["model"] == model) & (pq["metric"] == metric)]
    filled = sub.assign(value=sub["value"].fillna(fill))
    return seed_stats(filled)


def build_leaderboard(
    runs: Iterable[str | Path | RunDir],
    *,
    options: LeaderboardOptions = DEFAULT_OPTIONS,
    base_dir: str | Path | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    steps: int = 0,
    choices: Sequence[Choice] | None = None,
) -> dict[str, Any]:
    """The leaderboard JSON document from run directories (or folders of run directories).

    ``progress(text, done, steps)`` is told each table before its statistics are computed
    (``steps``: the caller's total, 0 = the number of tables).

    One table per :class:`~bench.report.select.Choice` (``choices``, else
    :func:`~bench.report.select.select_runs` of ``runs``: the newest run of each dataset, by
    manifest finish time, else start time, else folder mtime); tables are ordered by dataset
    name; ``selection`` says for each table which run it used, why, and which it skipped. Shape::

        {"schema": 1, "generated_by": "ltrbench X", "stats": {...options...}, "paths": "...",
         "tables": [{"dataset", "run_id", "run_config", "profile", "rows": [...], ...}],
         "selection": [{"dataset", "run", "why", "found", "skipped": [{"run", "why"}]}]}

    (each table as :func:`build_table` describes).
    """
    from bench import __version__

    if choices is None:  # the caller chose the runs: unfinished ones are not left out
        choices = select_runs(runs, include_unfinished=True).choices
    base = Path(base_dir) if base_dir is not None else None
    tables = []
    for i, choice in enumerate(choices):
        if progress is not None:
            progress(f"{choice.dataset}: statistics (bootstrap, paired tests)", i,
                     steps or len(choices))
        tables.append(build_table(choice.run, choice.dataset, options=options, base_dir=base))
    _machine_notes([c.run for c in choices], tables)
    opts = asdict(options)
    opts["metrics"] = list(options.metrics)
    opts["primary"] = options.named_primary()
    opts["bootstrap"] = "percentile, over queries, on per-query values averaged over seeds"
    opts["tests"] = (
        f"paired per-query {opts['primary']} vs the best row: randomization (sign flips) and "
        "t (scipy.stats.ttest_rel), Holm-corrected"
    )
    return {
        "schema": SCHEMA_VERSION,
        "generated_by": f"ltrbench {__version__}",
        "stats": opts,
        "paths": "run_dir and run_config are relative to the folder holding leaderboard.json "
        "unless absolute",
        "tables": tables,
        "selection": [{"dataset": c.dataset, **c.as_json()} for c in choices],
    }


# --------------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------------
