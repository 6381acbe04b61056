"""Cross-check every GBDT model (LightGBM, XGBoost, CatBoost: :mod:`bench.runners.libraries`) of a
run directory.

A model's library is the one the run records (:func:`bench.runs.models.model_libraries`), never
its name's prefix: a user's model named ``lightgbm-mine`` is a ``custom`` model and is not
checked. For every trained GBDT model and split (vali, test) of a run: the library's built-in metric
against the reference under the library's profile (:mod:`bench.crosscheck.agreement`), and the
gap to the run's default profile split into reasons (:mod:`bench.metrics.reconcile`). Outputs
``<out>/<dataset>/crosscheck.md`` and ``crosscheck.json`` (:func:`write_crosscheck`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.crosscheck.agreement import CHECK_TOL, crosscheck_arrays
from bench.crosscheck.render import render_markdown
from bench.crosscheck.result import Case, CrosscheckResult
from bench.data.atomic import write_text
from bench.data.groups import offsets_from_qid
from bench.metrics.families import PRIMARY_METRIC
from bench.metrics.reconcile import Evaluate
from bench.runners.libraries import LIBRARIES
from bench.runners.result import EVAL_SPLITS
from bench.runs.consistency import check_scores_and_labels
from bench.runs.models import gbdt_models, model_libraries
from bench.runs.naming import dataset_slug
from bench.runs.reader import RunDir


def _split_frames(run: RunDir) -> tuple[pd.DataFrame, pd.DataFrame]:
    labels = run.table("labels.parquet")
    scores = run.table("scores.parquet")
    labels = labels.assign(split=labels["split"].astype(str))
    scores = scores.assign(split=scores["split"].astype(str), model=scores["model"].astype(str))
    check_scores_and_labels(run, labels, scores)
    return labels, scores


def _blank_queries(run: RunDir, labels: pd.DataFrame) -> dict[str, int | None]:
    """Blank queries (no label > 0) per split, from labels.parquet, else from the manifest."""
    out: dict[str, int | None] = {}
    for split in ("train", "vali", "test"):
        lab = labels[labels["split"] == split]
        if len(lab):
            mx = lab.groupby("qid", sort=False)["label"].max()
            out[split] = int((mx <= 0).sum())
        else:
            out[split] = _manifest_blank(run.manifest, split)
    return out


def _manifest_blank(manifest: Mapping[str, Any], split: str) -> int | None:
    """The blank-query count of ``split`` in the manifest (``dataset.summaries.<split>.blank_queries``,
    else any ``<split>: {blank_queries: n}`` mapping in it)."""
    keys = ("blank_queries", "n_blank_queries", "queries_without_relevant", "n_blank")
    ds = manifest.get("dataset")
    summaries = ds.get("summaries") if isinstance(ds, Mapping) else None
    if isinstance(summaries, Mapping) and isinstance(summaries.get(split), Mapping):
        value = summaries[split].get("blank_queries")
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    stack: list[Any] = [manifest]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            sub = node.get(split)
            if isinstance(sub, Mapping):
                for k in keys:
                    if isinstance(sub.get(k), int | float) and not isinstance(sub.get(k), bool):
                        return int(sub[k])
            stack.extend(v for v in node.values() if isinstance(v, Mapping | list))
        elif isinstance(node, list):
            stack.extend(v for v in node if isinstance(v, Mapping | list))
    return None


def _chosen_iterations(run: RunDir) -> dict[tuple[str, str], int]:
    timings = run.table_or_empty("timings.csv")
    out: dict[tuple[str, str], int] = {}
    if "best_iteration" not in timings.columns:
        return out
    for _, row in timings.iterrows():
        v = pd.to_numeric(row["best_iteration"], errors="coerce")
        if pd.notna(v):
            out[(str(row["model"]), str(row["seed"]))] = int(v)
    return out


def _logged_value(
    log: pd.DataFrame, model: str, seed: str, split: str, metric: str, iteration: int | None
) -> tuple[float | None, int | None]:
    sub = log[
        (log["model"].astype(str) == model)
        & (log["seed"].astype(str) == seed)
        & (log["split"].astype(str) == split)
        & (log["metric"].astype(str) == metric)
    ]
    if sub.empty:
        return None, None
    it = int(sub["iteration"].max()) if iteration is None else iteration
    hit = sub[sub["iteration"] == it]
    if hit.empty:
        return None, it
    return float(hit["value"].iloc[-1]), it


def crosscheck_run(
    run_dir: str | Path,
    *,
    models: Sequence[str] | None = None,
    metric: str = PRIMARY_METRIC,
    default_profile: str | None = None,
    splits: Sequence[str] = EVAL_SPLITS,
    evaluate: Evaluate | None = None,
    builtin: Callable[..., float] | None = None,
    recompute: bool = True,
) -> CrosscheckResult:
    """Cross-check every LightGBM/XGBoost/CatBoost model of a run directory (see the module docstring).

    Needs ``labels.parquet`` and ``scores.parquet`` (and ``evallog.csv`` / ``timings.csv`` for the
    eval-log values at the chosen iteration ``best_iteration``). ``models`` restricts the models
    (names, or library names: ``lightgbm`` selects every model the run records as a LightGBM
    model). The default profile is the
    run's profile (``ltrbench`` unless the config names another). Problems are collected in
    ``errors`` (the result is not ok); nothing is raised for a mismatch.
    """
    run = RunDir(Path(run_dir))
    labels, scores = _split_frames(run)
    datasets = run.datasets() if run.has("metrics.csv") else []
    cfg_ds = run.config.get("dataset")
    if datasets:
        dataset = datasets[0]
    elif isinstance(cfg_ds, dict):
        dataset = str(cfg_ds.get("name") or cfg_ds.get("spec") or run.run_id)
    else:
        dataset = str(cfg_ds or run.run_id)
    dflt_name = default_profile or run.profile
    result = CrosscheckResult(
        dataset=dataset,
        run_dir=str(run.path),
        run_id=run.run_id,
        metric=metric,
        default_profile=dflt_name,
    )
    result.blank_queries = _blank_queries(run, labels)
    log = run.table_or_empty("evallog.csv")
    chosen = _chosen_iterations(run)

    pairs = [(str(m), s) for m, s in scores[["model", "seed"]].drop_duplicates().itertuples(
        index=False)]
    libraries = model_libraries(run, (m for m, _ in pairs))
    trained = _selected(result, run, pairs, libraries, models)
    if not trained:
        result.errors.append(f"no {_titles()} model with scores in {run.path}")
        return result

    for split in splits:
        lab = labels[labels["split"] == split].sort_values("row", kind="stable")
        if lab.empty:
            result.notes.append(f"no {split} labels in labels.parquet")
            continue
        offsets, group_qid = offsets_from_qid(
            lab["qid"].to_numpy(), path=run.path / "labels.parquet"
        )
        y = lab["label"].to_numpy(dtype=np.float64)
        rows = lab["row"].to_numpy()
        for model, seed in sorted(trained, key=lambda t: (t[0], str(t[1]))):
            library = libraries[model]
            sc = scores[(scores["split"] == split) & (scores["model"] == model) & (scores["seed"] == seed)]
            sc = sc.drop_duplicates("row", keep="last").set_index("row")["score"]
            if len(sc) != len(rows) or not np.isin(rows, sc.index.to_numpy()).all():
                result.errors.append(
                    f"{model} seed {seed} {split}: {len(sc)} scores for {len(rows)} labelled rows"
                )
                continue
            s = sc.reindex(rows).to_numpy(dtype=np.float64)
            logged, it = (None, None)
            if split == "vali":
                it_chosen = chosen.get((model, str(seed)))
                logged, it = _logged_value(log, model, str(seed), split, metric, it_chosen)
                if logged is None and len(log):
                    result.notes.append(
                        f"{model} seed {seed}: no {metric} in evallog.csv at iteration {it}"
                    )
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    out = crosscheck_arrays(
                        library, y, s, offsets,
                        metric=metric,
                        default_profile=dflt_name,
                        qid=group_qid,
                        logged=logged,
                        logged_iteration=it,
                        recompute=recompute,
                        model=model,
                        seed=_seed_value(seed),
                        split=split,
                        evaluate=evaluate,
                        builtin=builtin,
                    )
            except ImportError:
                raise
            except Exception as exc:  # a library or evaluator refusing the data: an error, kept
                result.errors.append(f"{model} seed {seed} {split}: {type(exc).__name__}: {exc}")
                continue
            result.checks.extend(out.checks)
            for chk in out.checks:
                if not chk.ok:
                    result.errors.append(
                        f"{model} seed {seed} {split}: built-in {metric} ({chk.source}) "
                        f"{chk.builtin:.12f} vs reference {chk.reference:.12f} under profile "
                        f"{library}: |diff| {chk.abs_diff:.3g} > {CHECK_TOL:g}"
                    )
            rec = out.reconciliation
            result.cases.append(Case(model, library, _seed_value(seed), split, rec))
            if not rec.explained:
                extra = (
                    f"; profile fields outside the walk differ: {', '.join(rec.unexplained_fields)}"
                    if rec.unexplained_fields else ""
                )
                result.errors.append(
                    f"{model} seed {seed} {split}: gap {rec.gap:.3g} between profiles "
                    f"{rec.library_profile} and {rec.default_profile} leaves residual "
                    f"{rec.residual:.3g} (largest per query {rec.max_query_residual:.3g}) that "
                    f"no reason explains{extra}"
                )
    return result


def _titles() -> str:
    return "/".join(lib.title for lib in LIBRARIES.values())


def _selected(result: CrosscheckResult, run: RunDir, pairs: list[tuple[str, Any]],
              libraries: Mapping[str, str], models: Sequence[str] | None) -> list[tuple[str, Any]]:
    """The (model, seed) pairs to check: those of a GBDT library (by the run's records,
    :func:`bench.runs.models.model_libraries`, never by the name), narrowed to ``models`` (names
    or library names); a requested name that is not checked is an error of ``result``."""
    gbdt = gbdt_models(libraries)
    wanted = [str(m) for m in models] if models else None
    if wanted is not None and any(w in ("gbdt", "all") for w in wanted):
        wanted = None
    trained = [(m, s) for m, s in pairs
               if m in gbdt and (wanted is None or m in wanted or libraries[m] in wanted)]
    unchecked = sorted(w for w in set(wanted or ())
                       if not any(m == w or libraries[m] == w for m, _ in trained))
    for w in (w for w in unchecked if w in libraries and w not in gbdt):
        result.errors.append(
            f"model {w!r} is a {libraries[w]!r} model (as the run records it): only "
            f"{_titles()} models have a built-in metric to cross-check")
    missing = [w for w in unchecked if w not in libraries or w in gbdt]
    if missing:
        result.errors.append(f"no scores for model(s) {', '.join(missing)} in {run.path}")
    return trained


def _seed_value(seed: Any) -> int | str:
    try:
        return int(seed)
    except (TypeError, ValueError):
        return str(seed)


def write_crosscheck(result: CrosscheckResult, out_dir: str | Path) -> dict[str, Path]:
    """Write ``<out_dir>/<dataset-slug>/crosscheck.md`` and ``crosscheck.json`` (atomically)."""
    folder = Path(out_dir) / dataset_slug(result.dataset)
    return {
        "md": write_text(folder / "crosscheck.md", render_markdown(result)),
        "json": write_text(folder / "crosscheck.json", result.to_json()),
    }
