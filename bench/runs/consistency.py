"""Do a run directory's files agree with each other? The checks a report makes before it trusts
a run that someone may have edited, merged by hand or damaged.

Each table is validated on its own by :class:`~bench.runs.reader.RunDir` (columns, numbers);
here the tables are checked against each other, so that a damaged run is a clear
:class:`~bench.errors.DataError` naming the file and line/row instead of a leaderboard computed
from part of it:

* ``metrics.csv`` has one row per (dataset, model, seed, split, metric, profile), and every
  (model, seed) of a split has the same metrics under the run's profile (a missing or unreadable
  cell would silently average a metric over fewer seeds than the others);
* its models are those the manifest lists, its seeds among the manifest's seeds, and its main
  profile the run's own (config ``profile``, else manifest ``evaluation.profile``);
* ``per_query.parquet`` (when present) has one row per (dataset, model, seed, split, qid,
  metric), covers every (model, seed, split, metric) of ``metrics.csv`` with the same queries
  for every model of a split, and its mean equals ``metrics.csv``'s value: under the run's
  profile the mean over the queries with a value (blank queries are NaN) as the metric's family
  averages them (``Family.mean``: a count's sum, ``gm_map``'s exp of the mean of its per-query
  logarithms; a family weighing queries by its own weights, GAUC, is not recomputed), under
  ``<profile>-blank0`` / ``-blank1`` the mean with blank queries scored 0 / 1 — the rule the
  run loop writes both files with (:mod:`bench.benchmark.record`);
* ``timings.csv``'s rows are of the run's models and seeds (a row renamed or copied from
  another run is named); its times, memory and tree counts are checked never negative where
  every reader reads the table (:mod:`bench.runs.timing_checks`);
* ``manifest.json``'s fields have the types ltrbench writes
  (:func:`bench.runs.manifest_check.check_manifest`, as ``--resume`` and ``reproduce`` read it);
* a finished run holds every (model, seed) pair its manifest lists, except those its manifest
  records under ``failures`` (the report says so in a note); the manifest's dataset is the rows'
  and lists each seed once;
* a query blank (NaN) for one model or seed is blank for every model and seed of its split and
  metric, and a value of a family bounded by [0, 1] (:func:`bench.metrics.families.unit_interval`)
  lies in it.

The comparison tolerance is :data:`TOLERANCE` (absolute): the two files are written from the
same per-query values, so only the order of the summation may differ.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from bench.errors import DataError
from bench.metrics.families import averaging, unit_interval
from bench.runs.layout import blank_fills, blank_variant_of, status_key
from bench.runs.manifest import MANIFEST
from bench.runs.manifest_check import check_manifest
from bench.runs.reader import RunDir

#: Largest difference allowed between a ``metrics.csv`` value and its per-query mean.
TOLERANCE = 1e-9

_CELL = ["dataset", "model", "seed", "split", "metric"]


def check_run_consistency(run: RunDir, profile: str) -> None:
    """Raise :class:`~bench.errors.DataError` when ``run``'s files disagree (see the module).

    ``profile`` is the run's main profile (the one its leaderboard reports).
    """
    metrics = _keyed(run.table("metrics.csv"))
    path = run.path / "metrics.csv"
    _check_unique(metrics, [*_CELL, "profile"], path, line_offset=2, where="line")
    _check_manifest(run, metrics, path)
    if run.has_manifest:  # every field's type, as resume and reproduce check them
        check_manifest(run.manifest, run.path / MANIFEST)
    _check_dataset(run, metrics, path)
    _check_profile(run, metrics, path)
    main = metrics[metrics["profile"] == profile] if "profile" in metrics.columns else metrics
    _check_grid(main, path)
    _check_pairs(run, main, path)
    _check_config_record(run)
    _check_range(metrics, path, line_offset=2, where="line")
    _check_timed_models(run, metrics)
    if not run.has("per_query.parquet"):
        return
    pq = _keyed(run.table("per_query.parquet"))
    pq_path = run.path / "per_query.parquet"
    _check_unique(pq, [*_CELL, "qid"], pq_path, line_offset=1, where="row")
    _check_queries(pq, pq_path)
    _check_blanks(pq, pq_path)
    _check_means(metrics, pq, profile, path, pq_path)
    _check_range(pq, pq_path, line_offset=1, where="row")  # after: a disagreement says more


def _keyed(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with its key columns as text (``dataset`` may be absent in older runs)."""
    cols = {c: frame[c].astype(str) for c in ("dataset", "model", "split", "metric", "profile")
            if c in frame.columns}
    if "qid" in frame.columns:
        cols["qid"] = frame["qid"].astype(str)
    out = frame.assign(**cols)
    if "dataset" not in out.columns:
        out = out.assign(dataset="")
    return out


def _check_unique(frame: pd.DataFrame, key: list[str], path: Any, *, line_offset: int,
                  where: str) -> None:
    absent = [k for k in key if k not in frame.columns]
    key = [k for k in key if k in frame.columns]
    dup = frame.duplicated(key, keep="first").to_numpy()
    if dup.any():
        i = int(dup.argmax())
        first = int(frame.duplicated(key, keep="last").to_numpy().argmax())
        cell = ", ".join(f"{k}={frame[k].iloc[i]}" for k in key if k != "dataset")
        why = ("the table has no 'profile' column, which tells apart a metric's rows under "
               "several profiles (written by another ltrbench version, or edited?)"
               if "profile" in absent else "the run was merged or edited by hand")
        raise DataError(f"a second row for ({cell}) (first at {where} {first + line_offset}): "
                        f"expected one row per cell; {why}",
                        path=path, line=i + line_offset if where == "line" else None,
                        row=i + line_offset if where == "row" else None)


def _check_manifest(run: RunDir, metrics: pd.DataFrame, path: Any) -> None:
    manifest = run.manifest
    models = manifest.get("models")
    if isinstance(models, dict) and models:
        unknown = ~metrics["model"].isin([str(m) for m in models])
        if unknown.any():
            i = int(unknown.to_numpy().argmax())
            raise DataError(f"model {metrics['model'].iloc[i]!r} is not one of the run's models "
                            f"({', '.join(map(str, models))}, as its manifest lists them)",
                            path=path, line=i + 2, column="model")
    seeds = manifest.get("seeds")
    if seeds is not None:
        if not isinstance(seeds, list) or not all(
                isinstance(s, int) and not isinstance(s, bool) for s in seeds):
            raise DataError(f"'seeds' is {seeds!r}: expected a list of whole numbers",
                            path=run.path / "manifest.json")
        if len(set(seeds)) != len(seeds):
            raise DataError(f"'seeds' is {seeds!r}: a seed listed twice; expected each seed once",
                            path=run.path / "manifest.json")
        stray = ~metrics["seed"].isin(seeds)
        if stray.any():
            i = int(stray.to_numpy().argmax())
            raise DataError(f"seed {metrics['seed'].iloc[i]} is not one of the run's seeds "
                            f"{seeds} (manifest.json)", path=path, line=i + 2, column="seed")


def _check_dataset(run: RunDir, metrics: pd.DataFrame, path: Any) -> None:
    """The dataset the manifest names is the one ``metrics.csv`` holds (a file of another run
    copied in, or a manifest edited, would put one run's numbers under another's name)."""
    dataset = run.manifest.get("dataset") if run.has_manifest else None
    name = dataset.get("name") if isinstance(dataset, dict) else None
    held = [str(d) for d in pd.unique(metrics["dataset"]) if str(d)]
    if isinstance(name, str) and name and len(held) == 1 and held[0] != name:
        raise DataError(f"rows of dataset {held[0]!r} where the manifest "
                        f"({run.path / 'manifest.json'}) names the run's dataset {name!r}: the "
                        "file is not this run's, or one of them was edited", path=path,
                        line=2, column="dataset")


def failed_pairs(run: RunDir) -> dict[str, str]:
    """The (model, seed) pairs the run's manifest records as failed (``failures``:
    ``<model>-seed<k>`` -> error), which a finished run may lack rows for."""
    failures = run.manifest.get("failures") if run.has_manifest else None
    return {str(k): str(v) for k, v in failures.items()} if isinstance(failures, dict) else {}


def skipped_pairs(run: RunDir) -> dict[str, str]:
    """The (model, seed) pairs the run's manifest ``status`` records as skipped
    (``<model>-seed<k>`` -> ``"skipped: <reason>"``: a baseline the data cannot serve, such as
    popularity without item ids), which a finished run holds no rows for; pair -> reason."""
    status = run.manifest.get("status") if run.has_manifest else None
    if not isinstance(status, dict):
        return {}
    return {str(k): v.removeprefix("skipped:").strip() for k, v in status.items()
            if isinstance(v, str) and v.startswith("skipped")}


def _check_pairs(run: RunDir, main: pd.DataFrame, path: Any) -> None:
    """A finished run holds rows for every (model, seed) its manifest lists, except the pairs
    the manifest records as failed or skipped: a model with fewer seeds than the header says
    (or none) would be averaged over fewer seeds, or left out, without a word."""
    manifest = run.manifest if run.has_manifest else {}
    models, seeds = manifest.get("models"), manifest.get("seeds")
    if not manifest.get("finished") or not isinstance(models, dict) or not isinstance(seeds, list):
        return
    failed = {**failed_pairs(run), **skipped_pairs(run)}
    for (_, split), part in main.groupby(["dataset", "split"], sort=False):
        held = set(zip(part["model"].astype(str), part["seed"].astype(np.int64), strict=True))
        for model in map(str, models):
            for seed in seeds:
                if (model, seed) not in held and status_key(model, seed) not in failed:
                    whole = model not in set(part["model"].astype(str))
                    raise DataError(
                        f"no {split!r} rows for model {model!r}"
                        f"{'' if whole else f', seed {seed}'}, where the "
                        f"manifest ({run.path / 'manifest.json'}) lists the model and the seed "
                        f"{seeds} and records no failure of that pair: the model would be "
                        "averaged over fewer seeds than the table says (or left out); the file "
                        "was cut or edited", path=path, column="model" if whole else "seed")


def _check_range(frame: pd.DataFrame, path: Any, *, line_offset: int, where: str) -> None:
    """A value of a metric bounded by [0, 1] (NDCG, MAP, MRR, P, R, ...) lies in it."""
    values = frame["value"].to_numpy(dtype=np.float64)
    names = pd.unique(frame["metric"])  # a few names over many rows: asked once per name
    bounded = frame["metric"].map(dict(zip(names, map(unit_interval, names), strict=True)))
    bounded = bounded.to_numpy(dtype=bool)
    with np.errstate(invalid="ignore"):
        out = bounded & ((values < -TOLERANCE) | (values > 1.0 + TOLERANCE))
    if out.any():
        i = int(out.argmax())
        r = frame.iloc[i]
        raise DataError(
            f"value {float(values[i])!r} of {r['metric']} (model {r['model']!r}, seed "
            f"{r['seed']}, split {r['split']!r}) is outside [0, 1], where every value of "
            f"{r['metric']} lies: the run is damaged or was edited", path=path,
            line=i + line_offset if where == "line" else None,
            row=i + line_offset if where == "row" else None, column="value")


def _check_profile(run: RunDir, metrics: pd.DataFrame, path: Any) -> None:
    """The profile named by the config and the manifest is the one ``metrics.csv`` was computed
    under."""
    cfg = run.config
    configured = cfg.get("profile") or (cfg.get("evaluation") or {}).get("profile")
    evaluation = run.manifest.get("evaluation")
    if evaluation is not None and not isinstance(evaluation, dict):  # "ltrbench": no record
        raise DataError(f"'evaluation' is {evaluation!r}: expected an object (profile, ...), as "
                        "ltrbench writes it; the run was edited by hand",
                        path=run.path / "manifest.json")
    recorded = evaluation.get("profile") if isinstance(evaluation, dict) else None
    if configured is not None and recorded is not None and str(configured) != str(recorded):
        raise DataError(f"the manifest's evaluation profile {recorded!r} is not the config's "
                        f"{configured!r} ({run.config_path})", path=run.path / "manifest.json")
    declared = configured if configured is not None else recorded
    if declared is None or "profile" not in metrics.columns:
        return
    plain = [p for p in pd.unique(metrics["profile"]) if blank_variant_of(str(p))[1] is None]
    if str(declared) not in plain:
        raise DataError(f"rows computed under profile(s) {', '.join(map(repr, plain))} where the "
                        f"run was configured with {declared!r}: the file is not this run's",
                        path=path, column="profile")


def _check_config_record(run: RunDir) -> None:
    """The seeds ``config.toml`` names are those the manifest records, and each model it names
    is one the manifest records (the run's resolved config is written once, with the
    manifest): a config edited after the run (a seed or a model added) or copied from another
    run would be shown as the configuration of numbers it did not make."""
    if not run.has_manifest or not run.config_path.is_file():
        return
    cfg, manifest = run.config, run.manifest
    seeds, recorded = cfg.get("seeds"), manifest.get("seeds")
    if isinstance(seeds, list) and isinstance(recorded, list) and \
            sorted(map(str, seeds)) != sorted(map(str, recorded)):
        raise DataError(f"seeds = {seeds!r} where the manifest ({run.path / MANIFEST}) records "
                        f"{recorded!r}: {_EDITED}", path=run.config_path)
    models, trained = cfg.get("models"), manifest.get("models")
    if isinstance(models, list) and isinstance(trained, dict) and trained:
        extra = [str(m) for m in models if str(m) not in trained]
        if extra:
            raise DataError(f"models = {models!r} names {', '.join(map(repr, extra))}, which "
                            f"the manifest ({run.path / MANIFEST}) does not record (it records "
                            f"{', '.join(map(str, trained))}): {_EDITED}", path=run.config_path)


#: What a config that disagrees with its manifest is.
_EDITED = ("the config was edited after the run or copied from another run ('ltrbench "
           "reproduce' refuses it too)")


def _check_grid(main: pd.DataFrame, path: Any) -> None:
    """Every (model, seed) of a split has the same metrics."""
    for (_, split), part in main.groupby(["dataset", "split"], sort=False):
        metrics = set(part["metric"])
        for (model, seed), cell in part.groupby(["model", "seed"], sort=False):
            missing = sorted(metrics - set(cell["metric"]))
            if missing:
                raise DataError(
                    f"no {', '.join(missing)} row for model {model!r}, seed {seed}, split "
                    f"{split!r} where other models or seeds have one: the table would average "
                    "those metrics over fewer seeds; the file is damaged or was edited",
                    path=path)


def _check_queries(pq: pd.DataFrame, path: Any) -> None:
    """Every (model, seed, metric) of a split was evaluated on the same queries (rows are unique
    by then, so a group with fewer rows than the split has queries lacks some)."""
    for (_, split), part in pq.groupby(["dataset", "split"], sort=False):
        n_split = part["qid"].nunique()
        sizes = part.groupby(["model", "seed", "metric"], sort=False).size()
        short = sizes[sizes != n_split]
        if len(short):
            (model, seed, metric), got = short.index[0], int(short.iloc[0])
            raise DataError(
                f"split {split!r}: model {model!r}, seed {seed}, {metric} has values for {got} "
                f"of the split's {n_split} queries: every model must be scored on the same "
                "queries; the file is damaged or was edited", path=path)


def _check_blanks(pq: pd.DataFrame, path: Any) -> None:
    """A query without a value (NaN: blank, no relevant document) is blank for every model and
    seed of its split and metric: blankness comes from the labels, never the model. One model
    blank where another is not would average the two over different queries."""
    blank = np.isnan(pq["value"].to_numpy(dtype=np.float64))
    if not blank.any():
        return
    keys = ["dataset", "split", "metric", "qid"]
    per_query = pd.DataFrame({**{k: pq[k] for k in keys}, "blank": blank}).groupby(
        keys, sort=False)["blank"].transform("nunique").to_numpy()
    mixed = per_query > 1
    if mixed.any():
        i = int((mixed & blank).argmax())
        r = pq.iloc[i]
        same = ((pq["split"] == r["split"]) & (pq["metric"] == r["metric"])
                & (pq["qid"] == r["qid"]) & (pq["dataset"] == r["dataset"])).to_numpy()
        j = int((same & ~blank).argmax())
        o = pq.iloc[j]
        raise DataError(
            f"query {r['qid']} of split {r['split']!r} has no {r['metric']} value (NaN, a blank "
            f"query) for model {r['model']!r}, seed {r['seed']}, but {float(o['value'])!r} for "
            f"model {o['model']!r}, seed {o['seed']} (row {j + 1}): a blank query is blank for "
            "every model, so the models would be averaged over different queries; the file is "
            "damaged or was edited", path=path, row=i + 1, column="value")


def _check_means(metrics: pd.DataFrame, pq: pd.DataFrame, profile: str, path: Any,
                 pq_path: Any) -> None:
    values = pq["value"].to_numpy(dtype=np.float64)
    keyed = pq[_CELL].assign(blank=np.isnan(values).astype(np.int64),
                             filled=np.nan_to_num(values, nan=0.0), n=1)
    grouped = keyed.groupby(_CELL, sort=False, as_index=False)[["filled", "blank", "n"]].sum()
    prof = (metrics["profile"] if "profile" in metrics.columns
            else pd.Series(profile, index=metrics.index))
    fills = blank_fills(prof, profile)
    checked = fills.notna() | (prof.astype(str) == profile)
    rows = metrics[_CELL].assign(value=metrics["value"].to_numpy(dtype=np.float64),
                                 fill=fills.to_numpy(dtype=np.float64), line=np.arange(len(metrics)) + 2,
                                 profile=prof)[checked.to_numpy()]
    joined = rows.merge(grouped, on=_CELL, how="left", indicator=True)
    absent = (joined["_merge"] == "left_only").to_numpy()
    if absent.any():
        r = joined.iloc[int(absent.argmax())]
        raise DataError(f"no per-query values in per_query.parquet for this row (model "
                        f"{r['model']!r}, seed {r['seed']}, split {r['split']!r}, {r['metric']})",
                        path=path, line=int(r["line"]))
    total, blanks, n = (joined[c].to_numpy(dtype=np.float64) for c in ("filled", "blank", "n"))
    fills = joined["fill"].to_numpy()
    kinds = joined["metric"].map({m: averaging(m, profile) for m in pd.unique(joined["metric"])})
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        mean = total / (n - blanks)
        own = np.select([kinds == "sum", kinds == "geometric"],
                        [np.where(blanks < n, total, np.nan), np.exp(mean)], mean)
        expect = np.where(np.isnan(fills), own, (total + np.nan_to_num(fills) * blanks) / n)
    value = joined["value"].to_numpy()
    both_nan = (np.isnan(expect) & np.isnan(value)) | (kinds == "weighted").to_numpy()
    bad = ~(np.abs(expect - value) <= TOLERANCE) & ~both_nan
    if bad.any():
        i = int(bad.argmax())
        r = joined.iloc[i]
        raise DataError(
            f"value {float(value[i])!r} of {r['metric']} (model {r['model']!r}, seed {r['seed']}, "
            f"split {r['split']!r}, profile {r['profile']}) is not the mean of its per-query "
            f"values in {pq_path} ({float(expect[i])!r}): the two files disagree; the run is "
            "damaged or was edited", path=path, line=int(r["line"]), column="value")


def check_scores_and_labels(run: RunDir, labels: pd.DataFrame, scores: pd.DataFrame) -> None:
    """``labels.parquet`` and ``scores.parquet`` describe the same rows: raise
    :class:`~bench.errors.DataError` naming the file and row otherwise.

    ``labels``: one row per (split, row), rows numbered 0..n-1 within a split, finite labels,
    and, when the manifest records the split's summary (``dataset.summaries.<split>``), as many
    rows and the same label counts. ``scores``: one finite score per (model, seed, split, row)
    for every labelled row of the split and no other.
    """
    lab_path, sc_path = run.path / "labels.parquet", run.path / "scores.parquet"
    _check_unique(labels, ["split", "row"], lab_path, line_offset=1, where="row")
    _check_unique(scores, ["model", "seed", "split", "row"], sc_path, line_offset=1, where="row")
    _check_finite(labels, "label", lab_path)
    _check_finite(scores, "score", sc_path)
    sizes = labels.groupby("split", sort=False)["row"].agg(["size", "min", "max"])
    for split, (n, lo, hi) in sizes.iterrows():
        if lo != 0 or hi != n - 1:
            raise DataError(f"split {split!r}: rows numbered {lo}..{hi} for {n} rows: expected "
                            f"0..{n - 1}; the file is damaged", path=lab_path, column="row")
    _check_label_summaries(run, labels, lab_path)
    got = scores.groupby(["model", "seed", "split"], sort=False)["row"].agg(["size", "min", "max"])
    for (model, seed, split), (n, lo, hi) in got.iterrows():
        want = int(sizes.loc[split, "size"]) if split in sizes.index else 0
        if (n, lo, hi) != (want, 0, want - 1):
            raise DataError(f"model {model!r}, seed {seed}, split {split!r}: {n} score(s) for rows "
                            f"{lo}..{hi} where labels.parquet has {want} rows: every labelled row "
                            "needs one score; the file is damaged", path=sc_path)


def _check_timed_models(run: RunDir, metrics: pd.DataFrame) -> None:
    """Each ``timings.csv`` row is of a model the run trained (``metrics.csv`` or the
    manifest's ``models``) and of one of its seeds: a row renamed or copied from another run
    moved a model's fit time and tree count to a name the table does not show, and left the
    model's own column blank, without a word."""
    if not run.has("timings.csv"):
        return
    timings = run.table("timings.csv")
    if "model" not in timings.columns:
        return
    manifest = run.manifest if run.has_manifest else {}
    listed = manifest.get("models")
    models = {str(m) for m in pd.unique(metrics["model"])} | (
        {str(m) for m in listed} if isinstance(listed, dict) else set())
    stray = ~timings["model"].astype(str).isin(models)
    if stray.any():
        i = int(stray.to_numpy().argmax())
        raise DataError(f"model {str(timings['model'].iloc[i])!r} is not one of the run's models "
                        f"({', '.join(sorted(models))}, in metrics.csv and the manifest): the "
                        "row is another run's, or was edited", path=run.path / "timings.csv",
                        line=i + 2, column="model")
    seeds = manifest.get("seeds")
    if isinstance(seeds, list) and "seed" in timings.columns:
        values = pd.to_numeric(timings["seed"], errors="coerce")
        bad = ~values.isin(seeds)
        if bad.any():
            i = int(bad.to_numpy().argmax())
            raise DataError(f"seed {timings['seed'].iloc[i]} is not one of the run's seeds "
                            f"{seeds} (manifest.json): the row is another run's, or was edited",
                            path=run.path / "timings.csv", line=i + 2, column="seed")


def _check_finite(frame: pd.DataFrame, column: str, path: Any) -> None:
    values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(values)
    if bad.any():
        i = int(bad.argmax())
        raise DataError(f"{column} {float(values[i])!r}: expected a finite number",
                        path=path, row=i + 1, column=column)


def _check_label_summaries(run: RunDir, labels: pd.DataFrame, path: Any) -> None:
    dataset = run.manifest.get("dataset")
    summaries = dataset.get("summaries") if isinstance(dataset, dict) else None
    if not isinstance(summaries, dict):
        return
    for split, part in labels.groupby("split", sort=False):
        summary = summaries.get(split)
        if not isinstance(summary, dict):
            continue
        rows, hist = summary.get("rows"), summary.get("labels")
        if isinstance(rows, int) and rows != len(part):
            raise DataError(f"split {split!r}: {len(part)} rows where the manifest's dataset "
                            f"summary has {rows}: the file is not this run's", path=path)
        if isinstance(hist, dict):
            counts = part["label"].astype(float).value_counts()
            mine = {str(float(k)): int(v) for k, v in counts.items()}
            theirs = {str(float(k)): int(v) for k, v in hist.items()}
            if mine != theirs:
                raise DataError(f"split {split!r}: label counts {mine} where the manifest's "
                                f"dataset summary has {theirs}: the labels were changed",
                                path=path, column="label")
