"""``ltrbench reproduce`` of a five-fold table (``<out>/folds/<name>-folds<k...>.json``, written
by :func:`bench.benchmark.folds.run_folds`).

Every fold's run is run again from its ``config.toml`` (the fold's dataset and display name are
in it) and compared with the original run as :func:`bench.benchmark.reproduce.reproduce_run`
compares one run; then each stored fold table (per-fold values, mean ± std over folds, the
pooled mean, its bootstrap interval and the Holm-corrected p-values) is rebuilt from the new
runs with :func:`bench.report.folds.fold_table` and compared number by number. A fold run is
found where the document says (a path relative to the document's folder, as ``run_folds``
writes it, or an absolute one), else by its run id under ``runs/`` beside ``folds/``. A fold
whose data are missing skips the whole table, with the reason: a partial rebuild would be
another table. Tolerance as in :mod:`bench.benchmark.reproduce`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.benchmark.folds import table_json
from bench.benchmark.pipeline import Loader
from bench.benchmark.reproduce import (
    CROSS_ENV_TOLERANCE,
    Outcome,
    _manifest_of,
    _out,
    _rerun,
    check_tolerance,
    compare_runs,
    compare_tables,
    environment_tolerance,
)
from bench.errors import DataError
from bench.report.folds import fold_table, read_fold_doc
from bench.runs.reader import RunDir


def is_fold_document(raw: Any) -> bool:
    """Whether a parsed JSON document is a fold document (``dataset``, ``folds``, ``runs`` and
    ``tables``), not a leaderboard."""
    return isinstance(raw, dict) and {"folds", "runs", "tables"} <= set(raw) and \
        "format" not in raw


def _fold_runs(doc: dict[str, Any], path: Path) -> list[Path]:
    """Where each fold's original run lies (module docstring); a run found nowhere is a
    :class:`DataError` naming it."""
    runs = doc.get("runs")
    ids = (doc.get("tables") or [{}])[0].get("run_ids") or []
    if not isinstance(runs, list) or not runs or not all(isinstance(r, str) for r in runs):
        raise DataError("'runs': expected the list of the fold runs' folders", path=path)
    found = []
    for i, entry in enumerate(runs):
        candidates = [Path(entry) if Path(entry).is_absolute() else path.parent / entry]
        if i < len(ids) and isinstance(ids[i], str):
            candidates.append(path.parent.parent / "runs" / ids[i])
        here = next((c for c in candidates if (c / "config.toml").is_file()), None)
        if here is None:
            raise DataError(f"fold run {i + 1} ({entry}) not found: no config.toml there or "
                            "under runs/ beside folds/; commit the fold runs with the table",
                            path=path)
        found.append(here)
    return found


def reproduce_folds(document: str | Path, *, out_dir: str | Path | None = None,
                    tolerance: float | None = None, loader: Loader | None = None,
                    progress: bool = False) -> list[Outcome]:
    """Run every fold of a fold table again and compare the runs and the rebuilt tables."""
    check_tolerance(tolerance)
    path = Path(document)
    doc = read_fold_doc(path)
    originals = _fold_runs(doc, path)
    outcome = Outcome(source=f"fold table {doc.get('dataset', '?')!r} "
                             f"({len(originals)} folds)", status="skipped")
    outcome.config = " + ".join(str(o / "config.toml") for o in originals)
    outcome.original_run = " + ".join(str(o) for o in originals)
    with _out(out_dir) as out:
        news = []
        for original in originals:
            manifest = _manifest_of(original)
            try:
                config, new = _rerun(original / "config.toml", out, loader, progress, manifest)
            except DataError as exc:
                outcome.reason = f"data not available ({original.name}): {exc}"
                return [outcome]
            tol, why = ((tolerance, "given") if tolerance is not None else
                        environment_tolerance(manifest, config.resolved().params.resolved_threads())
                        if manifest is not None else (CROSS_ENV_TOLERANCE, "original manifest "
                                                      "not available"))
            outcome.tolerance, outcome.tolerance_reason = max(outcome.tolerance, tol), why
            n, diffs = compare_runs(original, new, tolerance=tol)
            outcome.compared, outcome.differences = outcome.compared + n, outcome.differences + diffs
            news.append(new)
        outcome.new_run = " + ".join(str(n) for n in news) if out_dir is not None else ""
        dirs = [RunDir(n) for n in news]
        for stored in doc["tables"]:
            rebuilt = table_json(fold_table(dirs, str(stored.get("metric"))))
            mine = {k: v for k, v in stored.items() if k != "run_ids"}
            n, diffs = compare_tables(mine, {k: v for k, v in rebuilt.items() if k != "run_ids"},
                                      tolerance=outcome.tolerance,
                                      path=f"tables[{stored.get('metric')}]")
            outcome.compared, outcome.differences = outcome.compared + n, outcome.differences + diffs
    outcome.n_differences = len(outcome.differences)
    outcome.status = "match" if not outcome.differences else "mismatch"
    return [outcome]


def reproduce_document(path: str | Path, *, out_dir: str | Path | None = None,
                       tolerance: float | None = None, loader: Loader | None = None,
                       progress: bool = False) -> list[Outcome]:
    """Reproduce what ``path`` records: a fold table (``folds/*.json`` or its ``.md`` twin) with
    :func:`reproduce_folds`, else a leaderboard with
    :func:`bench.benchmark.reproduce.reproduce_leaderboard` (plain or tuned)."""
    from bench.benchmark.reproduce import reproduce_leaderboard

    p = Path(path)
    twin = p.with_suffix(".json") if p.suffix == ".md" else p
    try:  # a file that is not JSON is the leaderboard reader's to name (line and column)
        fold = twin.suffix == ".json" and twin.is_file() and is_fold_document(read_json(twin))
    except DataError:
        fold = False
    if fold:
        return reproduce_folds(twin, out_dir=out_dir, tolerance=tolerance, loader=loader,
                               progress=progress)
    return reproduce_leaderboard(p, out_dir=out_dir, tolerance=tolerance, loader=loader,
                                 progress=progress)


def read_json(path: Path) -> Any:
    """The parsed JSON of ``path`` (a :class:`DataError` naming it when it is not JSON)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise DataError(f"not JSON: {exc}", path=path) from None


__all__ = ["is_fold_document", "read_json", "reproduce_document", "reproduce_folds"]
