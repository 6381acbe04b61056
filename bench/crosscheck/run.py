"""Cross-check every GBDT model (LightGBM, XGBoost, CatBoost: :mod:`bench.runners.libraries`) of a
run directory.

A model's library is the one the run records (:func:`bench.runs.models.model_libraries`), never
its name's prefix: a user's model named ``lightgbm-mine`` is a ``custom`` model and is not
checked. For every trained GBDT model and split (vali, test) of a run: the library's built-in metric
against the reference under the library's profile (:mod:`bench.crosscheck.agreement`), and the
gap to the run's default profile split into reasons (:mod:`bench.metrics.reconcile`). Outputs
``<out>/<dataset>/crosscheck.md`` and ``crosscheck.json`` (:func:`write_crosscheck`).

Each choice is resolved once per run and passed down as a value: the models' libraries (the
run's records), each checked library's :class:`~bench.metrics.profiles.Profile` and built-in
metric provider (:meth:`bench.runners.libraries.Library.provider`), and the default profile. A user's model (library ``custom``) is noted as :data:`NOT_APPLICABLE`, the
one text of both paths (``ltrbench crosscheck --run DIR`` and the check inside ``ltrbench run``).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from bench.crosscheck.agreement import CHECK_TOL, ArrayCrosscheck, Check, crosscheck_arrays
from bench.crosscheck.recorded import Recorded
from bench.crosscheck.render import render_markdown
from bench.crosscheck.result import Case, CrosscheckResult
from bench.data.atomic import replace_file_set
from bench.data.groups import offsets_from_qid
from bench.errors import ConfigError
from bench.metrics.families import PRIMARY_METRIC
from bench.metrics.profiles import Profile
from bench.metrics.reconcile import Evaluate, resolve_profile
from bench.runners.libraries import LIBRARIES
from bench.runners.metric_provider import MetricProvider
from bench.runners.params import LABEL_GAINS
from bench.runners.registry import CUSTOM_LIBRARY
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


#: What the cross-check says of a user's model (a run's ``custom`` model): the one text of both
#: paths, ``ltrbench crosscheck --run DIR`` and the cross-check inside ``ltrbench run``.
NOT_APPLICABLE = "not applicable: user model (no built-in metric ltrbench knows)"


@dataclass(frozen=True)
class _Split:
    """One split of the run's labels, in row order: what every model of the split is scored on."""

    name: str
    labels: NDArray[np.float64]
    rows: NDArray[Any]
    offsets: NDArray[np.int64]
    qid: NDArray[Any]


@dataclass
class _Context:
    """What :func:`crosscheck_run` resolves once per run and hands to every (model, seed, split):
    the run's tables, each model's library (from the run's records), each library's
    :class:`~bench.metrics.profiles.Profile` and built-in metric provider, and the default
    profile (resolved once each; one that does not resolve is kept as its error, reported for
    every pair as before)."""

    run: RunDir
    result: CrosscheckResult
    scores: pd.DataFrame
    log: pd.DataFrame
    chosen: dict[tuple[str, str], int]
    libraries: Mapping[str, str]
    profiles: dict[str, Profile | Exception]
    default: Profile | Exception
    evaluate: Evaluate | None
    providers: dict[str, type[MetricProvider] | Exception]
    recompute: bool
    recorded: Recorded


_T = TypeVar("_T")


def crosscheck_run(
    run_dir: str | Path,
    *,
    models: Sequence[str] | None = None,
    metric: str = PRIMARY_METRIC,
    default_profile: str | None = None,
    splits: Sequence[str] = EVAL_SPLITS,
    evaluate: Evaluate | None = None,
    recompute: bool = True,
) -> CrosscheckResult:
    """Cross-check every LightGBM/XGBoost/CatBoost model of a run directory (see the module docstring).

    Needs ``labels.parquet`` and ``scores.parquet`` (and ``evallog.csv`` / ``timings.csv`` for the
    eval-log values at the chosen iteration ``best_iteration``). ``models`` restricts the models
    (names, or library names: ``lightgbm`` selects every model the run records as a LightGBM
    model). The default profile is the
    run's profile (``ltrbench`` unless the config names another). Problems are collected in
    ``errors`` (the result is not ok); nothing is raised for a mismatch. Each of the run's
    user models (library ``custom``) is noted as :data:`NOT_APPLICABLE`.
    """
    run = RunDir(Path(run_dir))
    labels, scores = _split_frames(run)
    result = _empty_result(run, metric, default_profile or run.profile)
    result.blank_queries = _blank_queries(run, labels)
    log, chosen = run.table_or_empty("evallog.csv"), _chosen_iterations(run)
    pairs = [(str(m), s) for m, s in scores[["model", "seed"]].drop_duplicates().itertuples(
        index=False)]
    libraries = model_libraries(run, (m for m, _ in pairs))
    trained = _selected(result, run, pairs, libraries, models)
    if not trained:
        result.errors.append(f"no {_titles()} model with scores in {run.path}")
    else:
        checked = [LIBRARIES[lib] for lib in dict.fromkeys(libraries[m] for m, _ in trained)]
        ctx = _Context(
            run=run, result=result, scores=scores, log=log, chosen=chosen, libraries=libraries,
            profiles={lib.name: _resolve(partial(resolve_profile, lib.profile))
                      for lib in checked},
            default=_resolve(partial(resolve_profile, result.default_profile)),
            evaluate=evaluate,
            providers={lib.name: _resolve(lib.provider) for lib in checked if recompute},
            recompute=recompute, recorded=Recorded(run, metric, run.profile))
        trained = _with_metric(ctx, trained, models)
        for name in splits:
            split = _labelled_split(run, labels, name)
            if split is None:
                result.notes.append(f"no {name} labels in labels.parquet")
                continue
            for model, seed in sorted(trained, key=lambda t: (t[0], str(t[1]))):
                _check_pair(ctx, split, model, seed)
        if not len(log) and run.has_manifest:  # ltrbench logs every GBDT fit: said
            result.notes.append(f"no {metric} eval log (evallog.csv absent or empty in "
                                f"{run.path}): each library's logged value at the chosen "
                                "iteration was not checked, only the value recomputed from "
                                "scores.parquet")
    unchecked = not_applicable(run, libraries, (m for m, _ in pairs))
    result.notes.extend(f"{m}: {NOT_APPLICABLE}" for m in unchecked)
    return result


def _with_metric(ctx: _Context, trained: list[tuple[str, Any]],
                 models: Sequence[str] | None) -> list[tuple[str, Any]]:
    """The pairs of ``trained`` whose library has a built-in metric of the check's name, by
    its provider (XGBoost's ``pre@5``, ``ndcg``, ``ndcg@10-`` are no LightGBM or CatBoost
    metric; without recomputing, or with a provider that did not resolve, every pair is
    kept). A model left out is a note (nothing of it can disagree), or an error when
    ``models`` named it or its library, or when no pair is left: a check of nothing is no
    pass."""
    result, metric = ctx.result, ctx.result.metric
    lacking: dict[str, str] = {}
    for model, _ in trained:
        provider = ctx.providers.get(ctx.libraries[model])
        if isinstance(provider, type) and not provider.supports(metric):
            lacking[model] = (f"{provider.title} has no built-in {metric} (its built-in "
                              f"metrics: {provider.supported})")
    named = {str(w) for w in models or ()}
    for model, why in lacking.items():
        (result.errors if named & {model, ctx.libraries[model]} else result.notes).append(
            f"{model}: {why}: not cross-checked")
    kept = [(m, s) for m, s in trained if m not in lacking]
    if not kept:
        result.errors.append(f"no model of the run has a built-in {metric}: nothing was "
                             "cross-checked")
    return kept


def not_applicable(run: RunDir, libraries: Mapping[str, str], scored: Iterable[str] = ()) -> list[str]:
    """The user models the run trains (its config's ``models``, then the ``scored`` ones) whose
    library is ``custom`` in ``libraries`` (a :func:`model_libraries` result), in that order: the
    cross-check does not apply to them. A ``[custom_models]`` table the run does not train is
    not named."""
    named = run.config.get("models")
    order = [str(m) for m in named] if isinstance(named, list) else []
    return [m for m in dict.fromkeys([*order, *scored]) if libraries.get(m) == CUSTOM_LIBRARY]


def _resolve(lookup: Callable[[], _T]) -> _T | Exception:
    """``lookup()`` (a profile by :func:`bench.metrics.reconcile.resolve_profile`, a library's
    :meth:`~bench.runners.libraries.Library.provider`), or the error it raised (each pair
    reports it, as when every pair looked the name up)."""
    try:
        return lookup()
    except Exception as exc:  # reported per (model, seed, split) by _check_pair
        return exc


def _empty_result(run: RunDir, metric: str, default_profile: str) -> CrosscheckResult:
    """The result before any check: the dataset's name from ``metrics.csv``, else the config."""
    datasets = run.datasets() if run.has("metrics.csv") else []
    cfg_ds = run.config.get("dataset")
    if datasets:
        dataset = datasets[0]
    elif isinstance(cfg_ds, dict):
        dataset = str(cfg_ds.get("name") or cfg_ds.get("spec") or run.run_id)
    else:
        dataset = str(cfg_ds or run.run_id)
    return CrosscheckResult(dataset=dataset, run_dir=str(run.path), run_id=run.run_id,
                            metric=metric, default_profile=default_profile)


def _labelled_split(run: RunDir, labels: pd.DataFrame, name: str) -> _Split | None:
    """The labels of split ``name`` in row order with their group offsets; None without labels."""
    lab = labels[labels["split"] == name].sort_values("row", kind="stable")
    if lab.empty:
        return None
    offsets, group_qid = offsets_from_qid(lab["qid"].to_numpy(), path=run.path / "labels.parquet")
    return _Split(name, lab["label"].to_numpy(dtype=np.float64), lab["row"].to_numpy(),
                  offsets, group_qid)


def _pair_scores(ctx: _Context, split: _Split, model: str, seed: Any) -> NDArray[np.float64] | None:
    """The scores of (model, seed) on ``split`` in the labels' row order; None (an error of the
    result) when they do not cover exactly the labelled rows."""
    scores = ctx.scores
    sc = scores[(scores["split"] == split.name) & (scores["model"] == model)
                & (scores["seed"] == seed)]
    sc = sc.drop_duplicates("row", keep="last").set_index("row")["score"]
    if len(sc) != len(split.rows) or not np.isin(split.rows, sc.index.to_numpy()).all():
        ctx.result.errors.append(
            f"{model} seed {seed} {split.name}: {len(sc)} scores for {len(split.rows)} labelled rows"
        )
        return None
    ordered: NDArray[np.float64] = sc.reindex(split.rows).to_numpy(dtype=np.float64)
    return ordered


def _logged(ctx: _Context, split: _Split, model: str, seed: Any) -> tuple[float | None, int | None]:
    """The eval log's value at the chosen iteration (vali only); a note when it is missing."""
    if split.name != "vali":
        return None, None
    metric = ctx.result.metric
    it_chosen = ctx.chosen.get((model, str(seed)))
    logged, it = _logged_value(ctx.log, model, str(seed), split.name, metric, it_chosen)
    if logged is None and len(ctx.log):
        where = f"at iteration {it}" if it is not None else "at any iteration (not logged)"
        ctx.result.notes.append(f"{model} seed {seed}: no {metric} in evallog.csv {where}: "
                                "only the value recomputed from scores.parquet was checked")
    return logged, it


def _check_pair(ctx: _Context, split: _Split, model: str, seed: Any) -> None:
    """Cross-check one (model, seed) on one split; its checks, case and errors go to the result."""
    result, library = ctx.result, ctx.libraries[model]
    s = _pair_scores(ctx, split, model, seed)
    if s is None:
        return
    logged, it = _logged(ctx, split, model, seed)
    try:
        gain = label_gain(ctx.run, model)
        lib_prof, dflt = _resolved(ctx.profiles[library]), _resolved(ctx.default)
        provider = _resolved(ctx.providers[library]) if ctx.recompute else None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            out = crosscheck_arrays(
                library, split.labels, s, split.offsets, metric=result.metric,
                default_profile=dflt, library_profile=lib_prof, qid=split.qid, logged=logged,
                logged_iteration=it, recompute=ctx.recompute, model=model,
                seed=_seed_value(seed), split=split.name, evaluate=ctx.evaluate,
                provider=provider, label_gain=gain)
    except ImportError:
        raise
    except Exception as exc:  # a library or evaluator refusing the data: an error, kept
        result.errors.append(f"{model} seed {seed} {split.name}: {type(exc).__name__}: {exc}")
        return
    _record(result, out, model, library, seed, split.name)
    result.errors.extend(ctx.recorded.check(split.name, split.qid, model, seed,
                                            out.reconciliation, ctx.evaluate))


def label_gain(run: RunDir, model: str) -> str:
    """The ``label_gain`` ``model`` was trained with, by the run's resolved ``config.toml``: its
    ``[model_params.<model>]`` table, else ``[params]``, else ``exp2`` (the default); the
    library logged its built-in metric with that gain. A ConfigError naming the key when the
    value is no gain ltrbench knows."""
    config = run.config
    tables = config.get("model_params")
    own = tables.get(model) if isinstance(tables, Mapping) else None
    shared = config.get("params")
    for where, table in ((f"[model_params.{model}]", own), ("[params]", shared)):
        if isinstance(table, Mapping) and "label_gain" in table:
            value = table["label_gain"]
            if value not in LABEL_GAINS:
                raise ConfigError(f"{run.config_path}: {where} label_gain {value!r} is no "
                                  f"gain ltrbench knows; valid: {', '.join(LABEL_GAINS)}")
            return str(value)
    return "exp2"


def _resolved(value: _T | Exception) -> _T:
    """A value resolved once, or the error its resolution raised, raised again."""
    if isinstance(value, Exception):
        raise value
    return value


def _record(result: CrosscheckResult, out: ArrayCrosscheck, model: str, library: str,
            seed: Any, split: str) -> None:
    """Add one ranking's checks and reconciliation to ``result``, with an error for each check
    beyond the tolerance and for a gap no reason explains."""
    metric = result.metric
    result.checks.extend(out.checks)
    for chk in out.checks:
        if not chk.ok:
            result.errors.append(
                f"{model} seed {seed} {split}: built-in {metric} ({chk.source}) "
                f"{chk.builtin:.12f} vs reference {chk.reference:.12f} under profile "
                f"{out.reconciliation.library_profile}: |diff| {chk.abs_diff:.3g} > "
                f"{CHECK_TOL:g}{_unexplained(chk)}"
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


def _unexplained(chk: Check) -> str:
    """What a mismatch within 1e-6 still is: not float32, not a value shown with fewer digits."""
    if chk.abs_diff > CHECK_TOL:
        return ""
    return (" (within 1e-6, but neither float32 rounding of the scores nor a value written "
            "with fewer digits explains it: the value of another ranking)")


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


def _refuse_dataset_folder(folder: Path) -> None:
    """The last guard of the three doors (``run``, ``crosscheck``, ``reproduce``) and of
    Python: ``<out>/<dataset>/`` that reads as a dataset (a LETOR folder of the user's under the
    dataset's name) is never written into; the commands refuse it before any work
    (:func:`bench.runs.naming.crosscheck_folders`)."""
    from bench.data.dataset_marks import reads_as_dataset

    why = reads_as_dataset(folder)
    if why is not None:
        raise ConfigError(f"the cross-check files go to {os.fspath(folder)!r}, which is a "
                          f"dataset's folder (it holds {why}): nothing was written there; "
                          "choose another output folder (--out, out_dir) or move the dataset")


def write_crosscheck(result: CrosscheckResult, out_dir: str | Path) -> dict[str, Path]:
    """Write ``<out_dir>/<dataset-slug>/crosscheck.md`` and ``crosscheck.json`` as one set
    (:func:`bench.data.atomic.replace_file_set`: both complete before either replaces the
    earlier pair, which a fault at the second file left as a new Markdown beside the old JSON).
    The file's ``run_dir`` is relative to its own folder (``../runs/<id>``), as leaderboard.json's:
    it was the command's own relative path (``results/runs/<id>``), which named the run only
    from the folder the command ran in."""
    import json

    folder = Path(out_dir) / dataset_slug(result.dataset)
    _refuse_dataset_folder(folder)
    doc = result.as_dict()
    if not Path(result.run_dir).is_absolute():  # as leaderboard.json: from the file's folder
        doc["run_dir"] = Path(os.path.relpath(result.run_dir, folder)).as_posix()
        doc["paths"] = "run_dir is relative to the folder holding crosscheck.json"
    texts = {"md": render_markdown(result), "json": json.dumps(doc, indent=2, allow_nan=False)
             + "\n"}
    with replace_file_set(folder, [f"crosscheck.{k}" for k in texts]) as tmp:
        for kind, text in texts.items():
            (tmp / f"crosscheck.{kind}").write_text(text, encoding="utf-8")
    return {kind: folder / f"crosscheck.{kind}" for kind in texts}
