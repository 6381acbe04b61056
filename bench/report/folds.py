"""The five-fold table of a LETOR dataset: each fold's value, the mean ± std over folds, and the
statistics of all test queries pooled.

Published LETOR results are means over the five folds (see :mod:`bench.datasets.folds`). Each
fold is an ordinary run directory; this module reads the runs of the folds of one dataset and
builds, per model and metric (test split, the runs' profile):

* the fold values: ``metrics.csv``'s value averaged over the run's seeds, one per fold;
* ``mean ± std`` over the folds (sample std, ``ddof = 1``, :func:`bench.report.stats.mean_std`),
  the number a LETOR paper prints;
* the pooled mean, 95% percentile bootstrap interval and the paired tests against the best model
  over **all test queries of the folds together**: every query is in exactly one test fold, so
  the folds' per-query values (``per_query.parquet``, averaged over seeds) form one sample of
  the whole dataset (784 queries on MQ2008, 106 on OHSUMED). The tests are the leaderboard's
  (randomization and paired t, Holm-corrected: :func:`bench.report.stats.compare_with_best`).

The runs must hold the same models and metrics under the same profile, and their test queries
must be disjoint: a query in two test folds means these runs are not one rotation's folds, and
is refused naming the query and both runs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from bench.data.inputs import check_input_file
from bench.data.jsonio import NotJsonNumber, RepeatedKey, loads_strict, not_json_number
from bench.datasets.folds import fold_suffix
from bench.errors import DataError
from bench.metrics.families import averaging, best_is_lowest
from bench.report import stats
from bench.report.seed_values import seed_means
from bench.runs.reader import RunDir

_T = TypeVar("_T")


@dataclass(frozen=True)
class FoldRow:
    """One model's line of a fold table (one metric)."""

    model: str
    per_fold: tuple[float, ...]
    mean: float
    std: float
    pooled_mean: float
    ci_low: float
    ci_high: float
    p_holm: float | None
    """Randomization test against the best model over the pooled queries, Holm-corrected
    (``None`` on the best model's own row)."""


@dataclass(frozen=True)
class FoldTable:
    """The fold table of one dataset and metric."""

    dataset: str
    metric: str
    profile: str
    folds: tuple[str, ...]
    run_ids: tuple[str, ...]
    #: the pooled test queries with a value: one that no model has a value for (no relevant
    #: document, under a profile that leaves it blank) is out of the pooled mean and interval,
    #: so out of this count too (the header said "pooled (15 queries)" over 12)
    n_queries: int
    rows: tuple[FoldRow, ...]


def fold_table(runs: Sequence[RunDir], metric: str, *, split: str = "test",
               bootstrap_resamples: int = 1000, randomization_resamples: int = 10_000,
               seed: int = 0) -> FoldTable:
    """The fold table of ``metric`` over the fold runs ``runs`` (see the module docstring)."""
    if not runs:
        raise DataError("no fold runs to tabulate")
    profile = _one("profile", [r.profile for r in runs], runs)
    _one("dataset", [_dataset_name(r) for r in runs], runs)  # toy:Fold1 beside other:Fold2
    folds = tuple(_fold_of(r) for r in runs)
    values = [_fold_values(r, metric, split, profile) for r in runs]
    models = _one("models", [tuple(sorted(v)) for v in values], runs)
    # pooled in fold order, whatever order the folds were run in: the bootstrap and the sign
    # flips draw over the columns, and --folds 5,1 gave another interval than --folds 1,5
    in_order = [r for _, r in sorted(zip(folds, runs, strict=True),
                                     key=lambda fr: _fold_number(fr[0]))]
    pooled = _pooled(in_order, metric, split, list(models))  # a query in two folds: named
    _refuse_fold_twice(folds, runs)  # one fold twice, of disjoint queries
    ci = stats.bootstrap_ci(pooled, n_resamples=bootstrap_resamples, seed=seed)
    means = stats.row_means([[v[m] for v in values] for m in models]).tolist()
    pick = np.nanargmin if best_is_lowest(metric) else np.nanargmax  # ARP: a rank
    best = int(pick(means)) if not np.all(np.isnan(means)) else None
    # the best row is the one the table ranks first (mean over folds), tested on pooled queries
    versus = stats.compare_with_best(pooled, best=best, n_resamples=randomization_resamples,
                                     seed=seed)
    # as the family averages (gm_map: exp of the pooled per-query logarithms' mean and bounds)
    pooled_means, low, high = stats.family_ci(ci, [averaging(metric, profile)] * len(models),
                                              np.isfinite(pooled).sum(axis=1))
    rows = []
    for i, model in enumerate(models):
        per_fold = tuple(v[model] for v in values)
        mean, std = stats.mean_std(per_fold)
        rows.append(FoldRow(
            model=model, per_fold=per_fold, mean=mean, std=std,
            pooled_mean=float(pooled_means[i]), ci_low=float(low[i]), ci_high=float(high[i]),
            p_holm=None if i == versus.best else float(versus.p_randomization_holm[i])))
    sign = 1.0 if best_is_lowest(metric) else -1.0  # ARP, a rank: the lowest first
    rows.sort(key=lambda r: sign * r.mean if np.isfinite(r.mean) else np.inf)
    return FoldTable(dataset=_dataset_name(runs[0]), metric=metric, profile=profile,
                     folds=folds, run_ids=tuple(r.run_id for r in runs),
                     n_queries=int(np.isfinite(pooled).any(axis=0).sum()), rows=tuple(rows))


def render_fold_markdown(table: FoldTable) -> str:
    """The fold table as a Markdown table (one column per fold, then mean ± std over folds, the
    pooled mean with its 95% interval and the Holm-corrected p against the best)."""
    head = ["model", *table.folds, "mean ± std (folds)",
            f"pooled ({table.n_queries} queries) [95% CI]", "p (Holm) vs best"]
    from bench.data.look_alike import shown_name
    from bench.data.md_cells import md_text

    name = md_text(shown_name(table.dataset))  # '<script>', 'a|b', '**' are text, never markup
    lines = [f"**{name}**: {table.metric} on the test folds, profile "
             f"`{table.profile}`", "", "| " + " | ".join(head) + " |",
             "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|"]
    for r in table.rows:
        spread = f" ± {r.std:.4f}" if np.isfinite(r.std) else " (one fold: no std)"
        cells = [r.model, *(f"{v:.4f}" for v in r.per_fold),
                 f"{r.mean:.4f}{spread}{folds_counted(r.per_fold)}",
                 f"{r.pooled_mean:.4f} [{r.ci_low:.4f}, {r.ci_high:.4f}]"
                 if np.isfinite(r.pooled_mean) else "n/a",
                 "best" if r.p_holm is None else stats.fmt_p(r.p_holm, 4)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def folds_counted(per_fold: Sequence[float | None]) -> str:
    """`` (4 of 5 folds)`` when the mean over folds leaves out folds without a value (a test fold
    whose queries have no relevant document: blank under the profile), else ``""``: a LETOR
    paper's mean is over five folds, and a mean over four must say so."""
    n = sum(1 for v in per_fold if v is not None and np.isfinite(v))
    return f" ({n} of {len(per_fold)} folds)" if 0 < n < len(per_fold) else ""


def render_fold_document(doc: dict[str, Any]) -> str:
    """The Markdown twin of a fold document (``folds/<name>.md`` beside its ``.json``): each
    table of ``doc`` (as :func:`bench.benchmark.folds.table_json` wrote it; a number written
    ``null`` is NaN) rendered by :func:`render_fold_markdown`, as ``run_folds`` wrote them."""
    def num(v: Any) -> float:
        return float("nan") if v is None else float(v)

    tables = []
    for t in doc["tables"]:
        rows = tuple(FoldRow(model=str(r["model"]), per_fold=tuple(num(v) for v in r["per_fold"]),
                             mean=num(r["mean"]), std=num(r["std"]),
                             pooled_mean=num(r["pooled_mean"]), ci_low=num(r["ci"][0]),
                             ci_high=num(r["ci"][1]),
                             p_holm=None if r["p_holm_vs_best"] is None
                             else float(r["p_holm_vs_best"]))
                     for r in t["rows"])
        tables.append(FoldTable(dataset=str(doc["dataset"]), metric=str(t["metric"]),
                                profile=str(t["profile"]), folds=tuple(map(str, t["folds"])),
                                run_ids=tuple(map(str, t.get("run_ids", ()))),
                                n_queries=int(t["n_queries"]), rows=rows))
    return "\n".join(render_fold_markdown(t) for t in tables)


def read_fold_docs(folder: Path) -> list[dict[str, Any]]:
    """The fold documents in ``folder`` (``<out>/folds/*.json``, written by
    :func:`bench.benchmark.folds.run_folds`), sorted by name; none when the folder is absent.
    A document that is not JSON, not UTF-8, or not of that shape (``tables`` of ``rows`` with
    numbers where numbers go) is a :class:`DataError` naming the file and the place, not a
    traceback in the HTML report."""
    if not folder.is_dir():
        return []
    return [read_fold_doc(path) for path in sorted(folder.glob("*.json"))]


def fold_docs_with_notes(folder: Path) -> list[dict[str, Any]]:
    """:func:`read_fold_docs` of ``folder`` (``<out>/folds``), each document with ``notes``:
    what it says that its runs no longer do (:func:`stale_notes`), for ``report --html``."""
    return [{**doc, "notes": stale_notes(doc, folder.parent)} for doc in read_fold_docs(folder)]


def stale_notes(doc: dict[str, Any], base: Path) -> list[str]:
    """A fold document's runs (``base``: the folder holding ``folds/`` and ``runs/``) checked
    against it: a run that is gone (removed or moved after the table was written) and a fold
    value the run's ``metrics.csv`` no longer gives are said; the table is shown as written."""
    notes: list[str] = []
    given = doc.get("runs")
    runs: list[Any] = given if isinstance(given, list) else []
    name = f"fold table {doc.get('dataset')!r} ({', '.join(map(str, doc.get('folds') or []))})"
    for i, entry in enumerate(runs):
        if not (base / str(entry) / "metrics.csv").is_file():
            notes.append(f"{name}: its fold run {entry} is gone (removed or moved after the "
                         "table was written); the table is shown as written, and `ltrbench "
                         "reproduce` cannot run that fold again")
            continue
        try:
            run = RunDir(base / str(entry))
            for t in doc.get("tables") or []:
                got = _fold_values(run, str(t["metric"]), "test", str(t["profile"]))
                for r in t.get("rows") or []:
                    want = (r.get("per_fold") or [])[i] if i < len(r.get("per_fold") or []) \
                        else None
                    have = got.get(str(r.get("model")))
                    if want is not None and (have is None or abs(have - float(want)) > 1e-9):
                        notes.append(f"{name}: {t['metric']} of {r.get('model')} on "
                                     f"{t['folds'][i]} is {want} in the table but "
                                     f"{have} in its run {entry} (metrics.csv changed after the "
                                     "table was written)")
        except (DataError, KeyError, IndexError, TypeError) as exc:
            notes.append(f"{name}: its fold run {entry} cannot be read against the table: {exc}")
    return notes


def read_fold_doc(path: Path) -> dict[str, Any]:
    """One fold document, checked as :func:`read_fold_docs` checks each (a :class:`DataError`
    naming the file and the place)."""
    check_input_file(path, expected="a fold document (JSON)")  # a FIFO was read for ever
    try:  # a byte-order mark skipped, NaN and 1e999 refused: every JSON reader's rules
        doc = loads_strict(path.read_text(encoding="utf-8-sig"))
    except NotJsonNumber as exc:
        said = not_json_number(path.read_text(encoding="utf-8-sig"), exc.args[0])
        raise DataError(f"{said}; expected a fold document as `ltrbench run --folds` writes "
                        "it", path=path) from None
    except RepeatedKey as exc:  # json keeps the last of a key twice, in silence
        raise DataError(f"the key {exc.args[0]!r} appears twice in one object: expected a fold "
                        "document with each key once, as `ltrbench run --folds` writes it",
                        path=path) from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise DataError(f"not a fold document (JSON): {exc}", path=path) from None
    except OSError as exc:
        raise DataError(f"cannot be read: {exc.strerror or exc}", path=path) from None
    check_fold_doc(doc, path)
    return doc  # type: ignore[no-any-return]


def check_fold_doc(doc: Any, path: Path) -> None:
    """The shape :func:`bench.benchmark.folds.run_folds` writes, else a DataError naming where
    and what was expected. First every number where numbers go (finite, or null); then that
    nothing is missing: ``dataset`` text, ``folds`` a list of fold names; each table a
    ``metric`` and a ``profile`` (text), its ``folds`` and ``n_queries`` (a whole number, at
    least 0); each row a ``model`` (text), one ``per_fold`` value per fold of its table,
    ``mean``, ``std``, ``pooled_mean``, ``p_holm_vs_best`` and a ``ci`` of two. Checked before
    anything renders or runs again: a damaged table is one clear error, never a misaligned
    HTML row or a rerun of every fold that ends in a mismatch."""
    def bad(where: str, what: str) -> DataError:
        return DataError(f"{where}: expected {what}; a fold document as `ltrbench run --folds` "
                         "writes it", path=path)

    if not isinstance(doc, dict) or not isinstance(doc.get("tables", []), list):
        raise bad("the document", "an object with a list of tables")
    for i, table in enumerate(doc.get("tables", [])):
        if not isinstance(table, dict) or not isinstance(table.get("rows", []), list) \
                or not isinstance(table.get("folds", []), list):
            raise bad(f"tables[{i}]", "an object with lists 'folds' and 'rows'")
        for j, row in enumerate(table.get("rows", [])):
            _row_numbers(row, f"tables[{i}].rows[{j}]", bad)
    for i, table in enumerate(doc.get("tables", [])):
        for key in ("metric", "profile"):
            if not isinstance(table.get(key), str) or not table.get(key):
                raise bad(f"tables[{i}].{key}", f"text, got {table.get(key)!r:.40}")
        folds = _names(table.get("folds"), f"tables[{i}].folds", bad)
        n = table.get("n_queries")
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise bad(f"tables[{i}].n_queries", f"a whole number at least 0, got {n!r:.40}")
        for j, row in enumerate(table.get("rows", [])):
            _row_complete(row, f"tables[{i}].rows[{j}]", len(folds), bad)
    if not isinstance(doc.get("dataset"), str):
        raise bad("'dataset'", f"the dataset's name (text), got {doc.get('dataset')!r:.40}")
    _names(doc.get("folds"), "'folds'", bad)


def _names(value: Any, where: str, bad: Any) -> list[str]:
    """A non-empty list of fold names (text), else ``bad``."""
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise bad(where, f"a list of fold names (Fold1, ...), got {value!r:.60}")
    return value


def _row_numbers(row: Any, where: str, bad: Any) -> None:
    """The numbers of one row of a fold table: each a finite number or null."""
    def number(value: Any, at: str) -> None:
        ok = value is None or (not isinstance(value, bool) and isinstance(value, (int, float)))
        try:
            ok = ok and (value is None or math.isfinite(float(value)))
        except OverflowError:  # an integer beyond a float: no value ltrbench writes
            ok = False
        if not ok:
            raise bad(at, f"a number or null (finite), got {value!r:.40}")

    if not isinstance(row, dict) or not isinstance(row.get("per_fold", []), list) \
            or not isinstance(row.get("ci", []), list) or len(row.get("ci", [])) > 2:
        raise bad(where, "an object with lists 'per_fold' and 'ci' (two numbers)")
    for key in ("mean", "std", "pooled_mean", "p_holm_vs_best"):
        number(row.get(key), f"{where}.{key}")
    for k, value in enumerate([*row.get("per_fold", []), *row.get("ci", [])]):
        number(value, f"{where} value {k + 1}")


def _row_complete(row: dict[str, Any], where: str, n_folds: int, bad: Any) -> None:
    """Nothing of one row missing: its model, one value per fold, the interval's two ends."""
    if not isinstance(row.get("model"), str) or not row.get("model"):
        raise bad(f"{where}.model", f"the model's name (text), got {row.get('model')!r:.40}")
    if len(row.get("per_fold", [])) != n_folds:
        raise bad(f"{where}.per_fold", f"one value per fold of its table ({n_folds}), got "
                                       f"{row.get('per_fold')!r:.60}")
    if len(row.get("ci", [])) != 2:
        raise bad(f"{where}.ci", f"two numbers (the interval's ends), got {row.get('ci')!r:.60}")
    for key in ("mean", "std", "pooled_mean", "p_holm_vs_best"):
        if key not in row:
            raise bad(f"{where}.{key}", "a number or null; the key is missing")


def _one(what: str, found: list[_T], runs: Sequence[RunDir]) -> _T:
    """The one value every run agrees on, else an error naming the first run that differs."""
    for run, value in zip(runs, found, strict=True):
        if value != found[0]:
            raise DataError(f"the fold runs differ in their {what}: {runs[0].run_id} has "
                            f"{found[0]!r}, {run.run_id} has {value!r}; a fold table compares "
                            "runs of one configuration", path=run.path)
    return found[0]


def _fold_of(run: RunDir) -> str:
    """The run's fold, as its dataset recorded it (``Fold3``), else as its spec names it."""
    dataset = run.manifest.get("dataset")
    dataset = dataset if isinstance(dataset, dict) else {}
    meta = dataset.get("meta")
    fold = meta.get("fold") if isinstance(meta, dict) else None
    if not fold:
        fold = fold_suffix(str(dataset.get("spec") or ""))[1]
    if not fold:
        raise DataError("the run records no LETOR fold (manifest dataset.meta.fold)",
                        path=run.path / "manifest.json")
    return str(fold)


def _fold_number(fold: str) -> tuple[int, str]:
    """``Fold3`` -> ``(3, "Fold3")``: the order the folds are pooled in."""
    digits = fold[4:]
    return (int(digits) if digits.isascii() and digits.isdigit() else 0), fold


def _refuse_fold_twice(folds: Sequence[str], runs: Sequence[RunDir]) -> None:
    """Two runs that record one fold are no two folds of a rotation (``Fold1 | Fold2 | Fold2``
    with another dataset's Fold2 put in place): refused naming both runs."""
    seen: dict[str, RunDir] = {}
    for fold, run in zip(folds, runs, strict=True):
        key = fold.lower()
        if key in seen:
            raise DataError(f"{fold} twice: the runs {seen[key].run_id} and {run.run_id} both "
                            f"record {fold}; a fold table holds one run per fold",
                            path=run.path / "manifest.json")
        seen[key] = run


def _dataset_name(run: RunDir) -> str:
    """The run's dataset name without its fold (``NAME`` of ``NAME:Fold3``)."""
    dataset = run.manifest.get("dataset")
    name = dataset.get("name") if isinstance(dataset, dict) else None
    return fold_suffix(str(name or run.run_id))[0]


def _fold_values(run: RunDir, metric: str, split: str, profile: str) -> dict[str, float]:
    """model -> the metric's mean over the run's seeds (``metrics.csv``)."""
    m = run.table("metrics.csv")
    sub = m[(m["split"].astype(str) == split) & (m["metric"].astype(str) == metric)
            & (m["profile"].astype(str) == profile)]
    if sub.empty:
        raise DataError(f"no {metric!r} on the {split} split under profile {profile!r}",
                        path=run.path / "metrics.csv")
    return {str(k): float(v) for k, v in seed_means(sub, ["model"]).items()}


def _refuse_missing_queries(sub: pd.DataFrame, models: list[str], run: RunDir, split: str,
                            metric: str) -> None:
    """Every model of a fold run has a per-query row for every query of the fold (a blank
    query's value is null, its row is there): a row missing pooled that model over fewer
    queries than the others, its mean and interval over another set, without a word."""
    have = {str(m): set(g["qid"].tolist()) for m, g in sub.groupby(sub["model"].astype(str))}
    every = set().union(*have.values())
    for model in models:
        lacking = sorted(every - have.get(model, set()), key=str)
        if lacking:
            raise DataError(f"model {model!r} has no per-query {metric} on the {split} split for "
                            f"query {lacking[0]}" + (f" (and {len(lacking) - 1} more)"
                                                     if len(lacking) > 1 else "")
                            + " that the run's other models have: the table is incomplete "
                            "(changed outside ltrbench); a fold table pools one set of queries "
                            "for every model", path=run.path / "per_query.parquet")


def _pooled(runs: Sequence[RunDir], metric: str, split: str, models: list[str]) -> np.ndarray:
    """(n_models, n_queries) per-query values of every fold's test queries, averaged over seeds;
    a query in two folds' test splits is refused."""
    blocks: list[pd.DataFrame] = []
    owner: dict[object, str] = {}
    for run in runs:
        pq = run.table("per_query.parquet")
        sub = pq[(pq["split"].astype(str) == split) & (pq["metric"].astype(str) == metric)]
        _refuse_missing_queries(sub, models, run, split, metric)
        wide = seed_means(sub, ["model", "qid"]).unstack("qid")
        for q in wide.columns:
            if q in owner:
                raise DataError(f"query {q} is in the {split} split of both {owner[q]} and "
                                f"{run.run_id}: these runs are not the folds of one rotation",
                                path=run.path / "per_query.parquet")
            owner[q] = run.run_id
        blocks.append(wide.reindex(models))
    pooled: np.ndarray = pd.concat(blocks, axis=1).to_numpy(dtype=np.float64)
    return pooled


__all__ = ["FoldRow", "FoldTable", "fold_docs_with_notes", "fold_table", "folds_counted",
           "render_fold_document", "render_fold_markdown", "stale_notes"]
