"""Leaderboards from run directories: ``results/leaderboard.{md,csv,json,tex}``.

One table per dataset (the most recent run that has the dataset wins), rows = models, test split:

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

import io
import json
import os
import re
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.data.atomic import write_text
from bench.data.jsonio import json_number
from bench.errors import ConfigError, DataError
from bench.metrics.families import DEFAULT_METRICS, is_family, metric_header
from bench.report import stats
from bench.report.published import PUBLISHED
from bench.runs.naming import library_of
from bench.runs.reader import RunDir
from bench.runs.search import find_runs

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class LeaderboardOptions:
    """What goes into a leaderboard and how its statistics are computed (recorded in the JSON)."""

    metrics: tuple[str, ...] = DEFAULT_METRICS
    primary: str = "ndcg@10"
    split: str = "test"
    confidence: float = 0.95
    bootstrap_resamples: int = 1000
    randomization_resamples: int = 10_000
    seed: int = 0


# --------------------------------------------------------------------------------------------
# Building the tables
# --------------------------------------------------------------------------------------------


def _seed_key(seed: Any) -> str:
    try:
        return str(int(seed))
    except (TypeError, ValueError):
        return str(seed)


def _seed_list(values: Iterable[Any]) -> list[int | str]:
    """Distinct seeds, as ints where they are integers, sorted."""
    out: set[int | str] = set()
    for v in values:
        key = _seed_key(v)
        out.add(int(key) if key.lstrip("-").isdigit() else key)
    return sorted(out, key=lambda s: (isinstance(s, str), s if isinstance(s, int) else 0, str(s)))


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
    plain = [p for p in profiles if not p.endswith(("-blank0", "-blank1"))]
    if run.profile in plain:
        return run.profile
    if not plain:
        return run.profile
    return pd.Series(plain).value_counts().index[0]


def _filter_dataset(frame: pd.DataFrame, dataset: str) -> pd.DataFrame:
    if "dataset" in frame.columns and len(frame):
        return frame[frame["dataset"].astype(str) == dataset]
    return frame


def _per_query_matrix(
    pq: pd.DataFrame, metric: str, models: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """(n_models, n_queries) per-query values averaged over seeds, and the qids (columns)."""
    sub = pq[pq["metric"].astype(str) == metric]
    if sub.empty:
        return np.full((len(models), 0), np.nan), np.zeros(0)
    means = sub.groupby(["model", "qid"], sort=True)["value"].mean()
    wide = means.unstack("qid").reindex([str(m) for m in models])
    return wide.to_numpy(dtype=np.float64), wide.columns.to_numpy()


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


def _seed_stats(frame: pd.DataFrame, value: str = "value") -> dict[str, Any]:
    """``{mean, std, per_seed}`` of a column over seeds (one value per seed; NaN ignored)."""
    series = frame.groupby("seed", sort=True)[value].mean()
    mean, std = stats.mean_std(series.to_numpy(dtype=np.float64))
    per_seed = {_seed_key(s): json_number(v) for s, v in series.items()}
    return {"mean": json_number(mean), "std": json_number(std), "per_seed": per_seed}


def build_table(
    run: RunDir,
    dataset: str,
    *,
    options: LeaderboardOptions = LeaderboardOptions(),
    base_dir: Path | None = None,
) -> dict[str, Any]:
    """The leaderboard table of one dataset of one run, as a JSON-ready dict.

    Keys: ``dataset, run_id, run_dir, run_config, profile, split, seeds, metrics, primary_metric,
    n_queries, blank_queries, best_model, notes, rows``. Each row: ``model, library, seeds,
    metrics{metric: {mean, std, per_seed{seed: value}, ci_low, ci_high, ci_mean, n_queries}},
    fit_s{mean, std, per_seed}, predict_s{...}, vs_best`` (``null`` for the best row, else
    ``{metric, p_randomization, p_randomization_holm, p_t, p_t_holm, n_queries}``) and ``blank``
    (``{metric: {blank0: {mean, std, per_seed}, blank1: {...}}}`` when blank queries exist, else
    ``{}``).
    """
    split = options.split
    metrics_all = _filter_dataset(run.table("metrics.csv"), dataset)
    profile = _main_profile(metrics_all, run)
    m = metrics_all[metrics_all["split"].astype(str) == split]
    if "profile" in m.columns:
        prof = m["profile"].astype(str)
        main = m[prof == profile]
        blank0 = m[prof.str.endswith("-blank0")]
        blank1 = m[prof.str.endswith("-blank1")]
    else:
        main, blank0, blank1 = m, m.iloc[0:0], m.iloc[0:0]
    if main.empty:
        raise DataError(
            f"no {split!r} rows for dataset {dataset!r} under profile {profile!r}",
            path=run.path / "metrics.csv",
        )
    main = main.assign(metric=main["metric"].astype(str))
    metric_names = [mt for mt in options.metrics if mt in set(main["metric"])]

    # Row order: best primary-metric mean first (NaN last), then by name.
    primary_means = (
        main[main["metric"] == options.primary].groupby("model")["value"].mean()
        if options.primary in metric_names
        else pd.Series(dtype=float)
    )
    def _order(name: str) -> tuple[int, float, str]:
        v = float(primary_means.get(name, np.nan))
        return (0, -v, name) if not np.isnan(v) else (1, 0.0, name)

    models = sorted((str(x) for x in pd.unique(main["model"].astype(str))), key=_order)
    libraries = {}
    if "library" in main.columns:
        libraries = {str(k): str(v) for k, v in main.groupby("model")["library"].first().items()}

    pq = run.table_or_empty("per_query.parquet")
    pq = _filter_dataset(pq, dataset)
    pq = pq[pq["split"].astype(str) == split] if len(pq) else pq
    if len(pq):
        pq = pq.assign(model=pq["model"].astype(str), metric=pq["metric"].astype(str))

    timings = _filter_dataset(run.table_or_empty("timings.csv"), dataset)
    if len(timings):
        timings = timings.assign(model=timings["model"].astype(str))

    n_blank, n_queries = _blank_count(run, pq, options.primary, split)
    seeds = _seed_list(main["seed"])

    rows: list[dict[str, Any]] = []
    for model in models:
        mm = main[main["model"].astype(str) == model]
        row: dict[str, Any] = {
            "model": model,
            "library": libraries.get(model, library_of(model)),
            "seeds": _seed_list(mm["seed"]),
            "metrics": {},
        }
        for metric in metric_names:
            row["metrics"][metric] = _seed_stats(mm[mm["metric"] == metric])
        tm = timings[timings["model"] == model] if len(timings) else timings
        for col in ("fit_s", "predict_s"):
            if len(tm) and col in tm.columns:
                row[col] = _seed_stats(tm, col)
            else:
                row[col] = {"mean": None, "std": None, "per_seed": {}}
        row["vs_best"] = None
        row["blank"] = {}
        rows.append(row)

    notes: list[str] = []
    # Bootstrap CIs over queries, per metric, on seed-averaged per-query values.
    have_pq = len(pq) > 0
    if not have_pq:
        notes.append("per_query.parquet absent: no confidence intervals or paired tests")
    if not have_pq:
        for metric in metric_names:
            for row in rows:
                row["metrics"][metric].update(ci_low=None, ci_high=None, ci_mean=None, n_queries=None)
    else:
        # Draws depend only on the seed and the number of queries, so metrics over the same
        # queries are stacked and resampled in one pass (same numbers as one call per metric).
        mats = {metric: _per_query_matrix(pq, metric, models) for metric in metric_names}
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
            ci = stats.bootstrap_ci(
                stacked,
                n_resamples=options.bootstrap_resamples,
                confidence=options.confidence,
                seed=options.seed,
            )
            counts = (~np.isnan(stacked)).sum(axis=1)
            for j, metric in enumerate(members):
                for i, row in enumerate(rows):
                    r = j * len(models) + i
                    row["metrics"][metric].update(
                        ci_low=json_number(ci.low[r]),
                        ci_high=json_number(ci.high[r]),
                        ci_mean=json_number(ci.mean[r]),
                        n_queries=int(counts[r]),
                    )

    # Paired tests of the primary metric against the best (top) row.
    best_model = models[0] if models else None
    if have_pq and options.primary in metric_names and len(models) > 1:
        mat, _ = _per_query_matrix(pq, options.primary, models)
        if np.isnan(mat[0]).all():
            notes.append(f"no per-query {options.primary} for the best row: no paired tests")
        else:
            vs = stats.compare_with_best(
                mat,
                best=0,
                n_resamples=options.randomization_resamples,
                seed=options.seed,
            )
            for i, row in enumerate(rows):
                if i == vs.best:
                    continue
                row["vs_best"] = {
                    "metric": options.primary,
                    "p_randomization": json_number(vs.p_randomization[i]),
                    "p_randomization_holm": json_number(vs.p_randomization_holm[i]),
                    "p_t": json_number(vs.p_t[i]),
                    "p_t_holm": json_number(vs.p_t_holm[i]),
                    "n_queries": int(vs.n_queries[i]),
                }

    # Blank queries: NDCG under both empty-query policies.
    if n_blank:
        ndcgs = [mt for mt in metric_names if is_family(mt, "ndcg")]
        for row in rows:
            model = row["model"]
            for metric in ndcgs:
                entry: dict[str, Any] = {}
                for tag, frame in (("blank0", blank0), ("blank1", blank1)):
                    sub = frame[
                        (frame["model"].astype(str) == model)
                        & (frame["metric"].astype(str) == metric)
                    ]
                    if not sub.empty:
                        entry[tag] = _seed_stats(sub)
                    elif have_pq:
                        entry[tag] = _blank_policy_from_per_query(
                            pq, model, metric, 0.0 if tag == "blank0" else 1.0
                        )
                if entry:
                    row["blank"][metric] = entry

    published = published_beside_ours(str(run.config.get("published", "") or ""), dataset, rows)

    return {
        "dataset": dataset,
        "run_id": run.run_id,
        "run_dir": _display_path(run.path, base_dir),
        "run_config": _display_path(run.config_path, base_dir),
        "run_timestamp": run.timestamp,
        "profile": profile,
        "split": split,
        "seeds": seeds,
        "metrics": metric_names,
        "primary_metric": options.primary,
        "n_queries": n_queries,
        "blank_queries": n_blank,
        "best_model": best_model,
        "notes": notes,
        "rows": rows,
        "published": published,
    }


def published_beside_ours(
    entry: str, dataset: str, rows: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Published rows of ``entry`` (a key of :data:`bench.report.published.PUBLISHED`) for
    ``dataset``, each with our counterpart model's mean over seeds for the same metrics.

    Published tables were selected differently (LightGBM's Experiments page: best of 500 *test*
    iterations per metric); ours are validation-selected with the test split evaluated once, so
    each row carries the source's ``selection`` text to print beside the numbers. Returns
    ``[{"source", "url", "selection", "evaluator", "row", "model", "metrics": {m: {"published",
    "ours"}}}]``; empty when the run names no entry or the entry has nothing for this dataset.
    """
    if not entry:
        return []
    if entry not in PUBLISHED:
        raise ConfigError(f"unknown published entry {entry!r}; known: {sorted(PUBLISHED)}")
    source = PUBLISHED[entry]
    results = source["results"].get(dataset.split(":", 1)[0], {})
    ours = {row["model"]: row["metrics"] for row in rows}
    out = []
    for name, values in results.items():
        model = values.get("model")
        mine = ours.get(model, {}) if model else {}
        out.append({
            "source": source["source"],
            "url": source["url"],
            "selection": source["selection"],
            "evaluator": source["evaluator"],
            "row": name,
            "model": model,
            "metrics": {
                m: {"published": v, "ours": json_number((mine.get(m) or {}).get("mean"))}
                for m, v in values.items() if m != "model"
            },
        })
    return out


def _blank_policy_from_per_query(
    pq: pd.DataFrame, model: str, metric: str, fill: float
) -> dict[str, Any]:
    """Per-seed mean with blank (NaN) queries scored ``fill``: ``(sum + fill * n_blank) / n``."""
    sub = pq[(pq["model"] == model) & (pq["metric"] == metric)]
    filled = sub.assign(value=sub["value"].fillna(fill))
    return _seed_stats(filled)


def latest_runs(runs: Iterable[str | Path | RunDir]) -> dict[str, RunDir]:
    """Dataset name → the most recent run holding it (manifest finish/start time, else mtime).

    Each item is a run directory, a folder of run directories, or a :class:`RunDir`.
    """
    found: list[RunDir] = []
    for item in runs:
        if isinstance(item, RunDir):
            found.append(item)
        else:
            found.extend(find_runs(item))
    found.sort(key=lambda r: (r.timestamp, r.run_id))
    latest: dict[str, RunDir] = {}
    for run in found:
        for dataset in run.datasets():
            latest[dataset] = run
    return latest


def build_leaderboard(
    runs: Iterable[str | Path | RunDir],
    *,
    options: LeaderboardOptions = LeaderboardOptions(),
    base_dir: str | Path | None = None,
) -> dict[str, Any]:
    """The leaderboard JSON document from run directories (or folders of run directories).

    One table per dataset; when several runs hold a dataset, the most recent run (manifest finish
    time, else start time, else folder mtime) supplies its table. Tables are ordered by dataset
    name. Shape::

        {"schema": 1, "generated_by": "ltrbench X", "stats": {...options...}, "paths": "...",
         "tables": [{"dataset", "run_id", "run_config", "profile", "rows": [...], ...}]}

    (each table as :func:`build_table` describes).
    """
    from bench import __version__

    latest = latest_runs(runs)
    base = Path(base_dir) if base_dir is not None else None
    tables = [
        build_table(latest[d], d, options=options, base_dir=base) for d in sorted(latest)
    ]
    opts = asdict(options)
    opts["metrics"] = list(options.metrics)
    opts["bootstrap"] = "percentile, over queries, on per-query values averaged over seeds"
    opts["tests"] = (
        f"paired per-query {options.primary} vs the best row: randomization (sign flips) and "
        "t (scipy.stats.ttest_rel), Holm-corrected"
    )
    return {
        "schema": SCHEMA_VERSION,
        "generated_by": f"ltrbench {__version__}",
        "stats": opts,
        "paths": "run_dir and run_config are relative to the folder holding leaderboard.json "
        "unless absolute",
        "tables": tables,
    }


# --------------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------------


def _fmt(v: float | None, digits: int = 4) -> str:
    return "" if v is None else f"{v:.{digits}f}"


def _fmt_ms(entry: dict[str, Any] | None, digits: int = 4) -> str:
    if not entry or entry.get("mean") is None:
        return ""
    if entry.get("std") is None:
        return _fmt(entry["mean"], digits)
    return f"{entry['mean']:.{digits}f} ± {entry['std']:.{digits}f}"


def _fmt_p(p: float | None) -> str:
    if p is None:
        return ""
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _fmt_ci(entry: dict[str, Any]) -> str:
    if entry.get("ci_low") is None:
        return ""
    return f"[{entry['ci_low']:.4f}, {entry['ci_high']:.4f}]"


def _best_by_metric(table: dict[str, Any]) -> dict[str, str]:
    best: dict[str, str] = {}
    for metric in table["metrics"]:
        means = [
            (r["metrics"][metric]["mean"], r["model"])
            for r in table["rows"]
            if r["metrics"].get(metric, {}).get("mean") is not None
        ]
        if means:
            best[metric] = max(means)[1]
    return best


def _header_lines(table: dict[str, Any], stats_opts: dict[str, Any]) -> list[str]:
    seeds = ", ".join(str(s) for s in table["seeds"])
    lines = [
        f"## {table['dataset']} — {table['split']} split, profile `{table['profile']}`",
        "",
        f"<!-- ltrbench-table dataset={json.dumps(table['dataset'])} run_id={json.dumps(table['run_id'])} "
        f"run_config={json.dumps(table['run_config'])} -->",
        f"Run `{table['run_id']}` · config `{table['run_config']}` · seeds {seeds} · "
        f"{table['n_queries']} {table['split']} queries",
    ]
    if table["blank_queries"]:
        lines[-1] += (
            f" ({table['blank_queries']} blank: no relevant document; excluded from the means "
            f"under profile `{table['profile']}`, see the blank-query table)"
        )
    lines.append("")
    return lines


def render_markdown(doc: dict[str, Any]) -> str:
    """``leaderboard.md``: per dataset, the main table, the CI table and the blank-query table."""
    so = doc["stats"]
    conf = round(so["confidence"] * 100)
    out = ["# ltrbench leaderboard", ""]
    out.append(
        f"Metrics on the {so['split']} split: mean ± sample std over seeds. {conf}% CI: "
        f"percentile bootstrap over queries ({so['bootstrap_resamples']} resamples, seed "
        f"{so['seed']}) of the per-query values averaged over seeds. p: paired per-query tests of "
        f"{metric_header(so['primary'])} against the best row, randomization "
        f"({so['randomization_resamples']} sign flips) and t-test, Holm-corrected over the "
        "comparisons in the table. Model selection (early stopping) used the validation split "
        "only. Best value per column in bold."
    )
    out.append("")
    for table in doc["tables"]:
        out.extend(_header_lines(table, so))
        metrics = table["metrics"]
        best = _best_by_metric(table)
        primary = table["primary_metric"]
        head = ["Model", *[metric_header(m) for m in metrics], "Fit (s)"]
        if primary in metrics:
            head += [f"{metric_header(primary)} {conf}% CI", "p rand. (Holm)", "p t (Holm)"]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
        for row in table["rows"]:
            cells = [row["model"]]
            for m in metrics:
                text = _fmt_ms(row["metrics"][m])
                cells.append(f"**{text}**" if best.get(m) == row["model"] and text else text)
            cells.append(_fmt_ms(row["fit_s"], 2))
            if primary in metrics:
                cells.append(_fmt_ci(row["metrics"][primary]))
                vs = row["vs_best"]
                if vs is None:
                    cells += ["best", "best"] if row["model"] == table["best_model"] else ["", ""]
                else:
                    cells += [_fmt_p(vs["p_randomization_holm"]), _fmt_p(vs["p_t_holm"])]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
        if any(row["metrics"][m].get("ci_low") is not None for row in table["rows"] for m in metrics):
            out.append(f"{conf}% bootstrap CI over queries:")
            out.append("")
            out.append("| " + " | ".join(["Model", *[metric_header(m) for m in metrics]]) + " |")
            out.append("|" + "|".join(["---"] + ["---:"] * len(metrics)) + "|")
            for row in table["rows"]:
                cells = [row["model"], *[_fmt_ci(row["metrics"][m]) for m in metrics]]
                out.append("| " + " | ".join(cells) + " |")
            out.append("")
        blank_metrics = [m for m in metrics if any(m in r["blank"] for r in table["rows"])]
        if primary in blank_metrics:  # keep the pasted table narrow; the JSON/CSV have all
            blank_metrics = [primary]
        if table["blank_queries"] and blank_metrics:
            out.append(
                f"{table['blank_queries']} blank {table['split']} queries: NDCG with blank queries "
                f"excluded (profile `{table['profile']}`), scored 0 and scored 1 "
                "(LightGBM and XGBoost score them 1):"
            )
            out.append("")
            head = ["Model"]
            for m in blank_metrics:
                h = metric_header(m)
                head += [f"{h} excl.", f"{h} blank=0", f"{h} blank=1"]
            out.append("| " + " | ".join(head) + " |")
            out.append("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
            for row in table["rows"]:
                cells = [row["model"]]
                for m in blank_metrics:
                    b = row["blank"].get(m, {})
                    cells += [
                        _fmt_ms(row["metrics"][m]),
                        _fmt_ms(b.get("blank0")),
                        _fmt_ms(b.get("blank1")),
                    ]
                out.append("| " + " | ".join(cells) + " |")
            out.append("")
        out.extend(_published_lines(table))
        for note in table["notes"]:
            out.append(f"Note: {note}.")
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def _published_lines(table: dict[str, Any]) -> list[str]:
    """Markdown: published numbers beside ours, with how each side was selected."""
    published = table.get("published") or []
    if not published:
        return []
    first = published[0]
    metrics = list(dict.fromkeys(m for p in published for m in p["metrics"]))
    lines = [
        f"Published numbers ({first['source']}, <{first['url']}>) beside ours. Published: "
        f"{first['selection']}; computed by {first['evaluator']}. Ours: the iteration chosen on "
        f"the validation split, test evaluated once, profile `{table['profile']}`; the two are "
        "not the same measurement.",
        "",
    ]
    head = ["Published row", "Our model"]
    for m in metrics:
        head += [f"{metric_header(m)} published", f"{metric_header(m)} ours"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join(["---", "---"] + ["---:"] * (len(head) - 2)) + "|")
    for p in published:
        cells = [p["row"], p["model"] or "(none)"]
        for m in metrics:
            v = p["metrics"].get(m) or {}
            cells += [_fmt(v.get("published"), 6), _fmt(v.get("ours"))]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    return lines


def csv_frame(doc: dict[str, Any]) -> pd.DataFrame:
    """One row per (dataset, model): every number of the JSON in flat columns."""
    records: list[dict[str, Any]] = []
    for table in doc["tables"]:
        for row in table["rows"]:
            rec: dict[str, Any] = {
                "dataset": table["dataset"],
                "run_id": table["run_id"],
                "run_config": table["run_config"],
                "profile": table["profile"],
                "split": table["split"],
                "model": row["model"],
                "library": row["library"],
                "n_seeds": len(row["seeds"]),
                "n_queries": table["n_queries"],
                "blank_queries": table["blank_queries"],
            }
            for m in table["metrics"]:
                e = row["metrics"][m]
                for key in ("mean", "std", "ci_low", "ci_high"):
                    rec[f"{m}_{key}"] = e.get(key)
            for col in ("fit_s", "predict_s"):
                rec[f"{col}_mean"] = row[col]["mean"]
                rec[f"{col}_std"] = row[col]["std"]
            vs = row["vs_best"] or {}
            for key in ("p_randomization", "p_randomization_holm", "p_t", "p_t_holm"):
                rec[key] = vs.get(key)
            for m, entry in row["blank"].items():
                for tag in ("blank0", "blank1"):
                    rec[f"{m}_{tag}_mean"] = (entry.get(tag) or {}).get("mean")
            records.append(rec)
    return pd.DataFrame.from_records(records)


def render_csv(doc: dict[str, Any]) -> str:
    """``leaderboard.csv`` (full float precision; empty cells for missing values)."""
    buf = io.StringIO()
    csv_frame(doc).to_csv(buf, index=False, float_format="%.10g")
    return buf.getvalue()


_TEX_ESCAPES = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def _label(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", str(name)).strip("-").lower() or "dataset"


def tex_escape(text: str) -> str:
    """Escape LaTeX special characters in plain text."""
    return "".join(_TEX_ESCAPES.get(ch, ch) for ch in str(text))


def _tex_ms(entry: dict[str, Any] | None, bold: bool, digits: int = 4) -> str:
    if not entry or entry.get("mean") is None:
        return "--"
    mean = f"{entry['mean']:.{digits}f}"
    if bold:
        mean = rf"\mathbf{{{mean}}}"
    if entry.get("std") is None:
        return f"${mean}$"
    return rf"${mean} \pm {entry['std']:.{digits}f}$"


def render_latex(doc: dict[str, Any]) -> str:
    """``leaderboard.tex``: one booktabs ``table`` per dataset (needs ``\\usepackage{booktabs}``)."""
    so = doc["stats"]
    conf = round(so["confidence"] * 100)
    out = [
        "% Generated by " + tex_escape(doc["generated_by"]) + "; requires \\usepackage{booktabs}.",
        "",
    ]
    for table in doc["tables"]:
        metrics = table["metrics"]
        best = _best_by_metric(table)
        primary = table["primary_metric"]
        with_tests = primary in metrics
        cols = "l" + "r" * (len(metrics) + 1) + ("rr" if with_tests else "")
        caption = (
            f"{tex_escape(table['dataset'])}, {tex_escape(table['split'])} split, profile "
            f"\\texttt{{{tex_escape(table['profile'])}}}: mean $\\pm$ std over "
            f"{len(table['seeds'])} seeds; {conf}\\% percentile bootstrap CI over "
            f"{table['n_queries']} queries; p: paired randomization test of "
            f"{metric_header(primary)} against the best row, Holm-corrected. "
            f"Run \\texttt{{{tex_escape(table['run_id'])}}}."
        )
        if table["blank_queries"]:
            caption += f" {table['blank_queries']} blank queries excluded."
        out += [
            "\\begin{table}[t]",
            "\\centering",
            "\\small",
            "\\setlength{\\tabcolsep}{3pt}",
            f"\\caption{{{caption}}}",
            f"\\label{{tab:ltrbench-{_label(table['dataset'])}}}",
            f"\\begin{{tabular}}{{{cols}}}",
            "\\toprule",
        ]
        head = ["Model", *[metric_header(m) for m in metrics], "Fit (s)"]
        if with_tests:
            head += [f"{metric_header(primary)} {conf}\\% CI", "$p$ (Holm)"]
        out.append(" & ".join(head) + " \\\\")
        out.append("\\midrule")
        for row in table["rows"]:
            cells = [tex_escape(row["model"])]
            cells += [_tex_ms(row["metrics"][m], best.get(m) == row["model"]) for m in metrics]
            cells.append(_tex_ms(row["fit_s"], False, 2))
            if with_tests:
                e = row["metrics"][primary]
                cells.append(
                    "--" if e.get("ci_low") is None
                    else f"$[{e['ci_low']:.4f}, {e['ci_high']:.4f}]$"
                )
                vs = row["vs_best"]
                if vs is None:
                    cells.append("best" if row["model"] == table["best_model"] else "--")
                else:
                    p = vs["p_randomization_holm"]
                    cells.append("--" if p is None else ("$<0.001$" if p < 0.001 else f"${p:.3f}$"))
            out.append(" & ".join(cells) + " \\\\")
        out += ["\\bottomrule", "\\end{tabular}", "\\end{table}", ""]
    return "\n".join(out)


def render_json(doc: dict[str, Any]) -> str:
    """``leaderboard.json`` (NaN never appears: missing numbers are ``null``)."""
    return json.dumps(doc, indent=2, allow_nan=False) + "\n"


def write_leaderboard(
    runs: Iterable[str | Path | RunDir],
    out_dir: str | Path = "results",
    *,
    options: LeaderboardOptions = LeaderboardOptions(),
    plots: bool = True,
) -> dict[str, Any]:
    """Build the leaderboard from ``runs`` and write ``leaderboard.{md,csv,json,tex}`` into
    ``out_dir`` (atomically), plus the plots of every table into ``out_dir/<dataset>/`` unless
    ``plots`` is false. Returns ``{"md": path, "csv": path, "json": path, "tex": path,
    "plots": [paths], "document": the JSON document}``.
    """
    out = Path(out_dir)
    latest = latest_runs(runs)
    if not latest:
        raise DataError("no run directory with a metrics.csv found", path=os.fspath(out))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        doc = build_leaderboard(latest.values(), options=options, base_dir=out)
    result: dict[str, Any] = {
        "md": write_text(out / "leaderboard.md", render_markdown(doc)),
        "csv": write_text(out / "leaderboard.csv", render_csv(doc)),
        "json": write_text(out / "leaderboard.json", render_json(doc)),
        "tex": write_text(out / "leaderboard.tex", render_latex(doc)),
        "plots": [],
        "document": doc,
    }
    if plots:
        from bench.report.plots import write_plots

        for table in doc["tables"]:
            result["plots"].extend(write_plots(table, latest[table["dataset"]], out))
    return result
