"""``ltrbench reproduce`` of a five-fold table (``<out>/folds/<name>-folds<k...>.json``, written
by :func:`bench.benchmark.folds.run_folds`).

Every fold's run is run again from its ``config.toml`` (the fold's dataset and display name are
in it) and compared with the original run as :func:`bench.benchmark.reproduce.reproduce_run`
compares one run; then each stored fold table (per-fold values, mean ± std over folds, the
pooled mean, its bootstrap interval and the Holm-corrected p-values) is rebuilt from the new
runs with :func:`bench.report.folds.fold_table` and compared number by number, and so are the
document's own ``dataset`` and ``folds`` (the title every rendering prints). The Markdown twin
(``.md`` beside the JSON) is compared first, cell by cell, with what the JSON renders to
(:func:`bench.benchmark.reproduce_text.check_rendered`). A fold run is
found where the document says (``runs/<id>`` relative to the folder holding ``folds/``, as
``run_folds`` writes it, or an absolute path to a run directory; never a path climbing out of
that folder), else by its run id under ``runs/``. A fold
whose data are missing skips the whole table, with the reason: a partial rebuild would be
another table. Tolerance as in :mod:`bench.benchmark.reproduce`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.benchmark.folds import table_json
from bench.benchmark.pipeline import Loader
from bench.benchmark.reproduce_steps import (
    Outcome,
    _manifest_of,
    _out,
    check_tolerance,
    compare_tables,
    locate,
    rerun_compared,
)
from bench.benchmark.reproduce_text import check_rendered, fold_renderings
from bench.data.jsonio import read_json_object
from bench.data.outputs import check_output_dir
from bench.errors import ConfigError, DataError
from bench.report.folds import check_fold_doc, fold_table, read_fold_doc
from bench.runs.layout import RUN_WRITES
from bench.runs.reader import RunDir


def is_fold_document(raw: Any) -> bool:
    """Whether a parsed JSON document is a fold document (``dataset``, ``folds``, ``runs`` and
    ``tables``), not a leaderboard."""
    return isinstance(raw, dict) and {"folds", "runs", "tables"} <= set(raw)


def _fold_runs(doc: dict[str, Any], path: Path) -> list[Path]:
    """Where each fold's original run lies (module docstring), read against the folder that
    holds ``folds/`` with the leaderboard's path rules
    (:func:`~bench.benchmark.reproduce.locate`: nothing outside it); a run found nowhere is
    a :class:`DataError` naming it."""
    runs = doc.get("runs")
    ids = (doc.get("tables") or [{}])[0].get("run_ids") or []
    if not isinstance(runs, list) or not runs or not all(isinstance(r, str) and r for r in runs):
        raise DataError("'runs': expected the list of the fold runs' folders", path=path)
    base = path.absolute().parent.parent  # 'x.json' given inside folds/: its parent is '.'
    found: list[Path] = []
    for i, entry in enumerate(runs):
        here = locate(base, entry, f"runs[{i}]", path, file=None)
        if here is None and i < len(ids) and isinstance(ids[i], str) and "/" not in ids[i]:
            here = locate(base, f"runs/{ids[i]}", f"tables[0].run_ids[{i}]", path, file=None)
        if here is None or not (here / "config.toml").is_file():
            raise DataError(f"fold run {i + 1} ({entry}) not found: no config.toml there or "
                            "under runs/ beside folds/; commit the fold runs with the table",
                            path=path)
        twin = next((j for j, other in enumerate(found) if other.resolve() == here.resolve()),
                    None)
        if twin is not None:
            raise DataError(f"runs[{twin}] and runs[{i}] name the same run ({entry}): a fold "
                            "table holds one run per fold", path=path)
        found.append(here)
    folds = doc["tables"][0].get("folds") or []
    if len(found) != len(folds):  # a run dropped or added by hand: folds and runs misaligned
        raise DataError(f"'runs': expected one run folder per fold of the tables "
                        f"({len(folds)}: {', '.join(map(str, folds))}), got {len(found)}",
                        path=path)
    return found


def _check_document(doc: dict[str, Any], path: Path) -> None:
    """What a fold document must say before anything runs: at least one table, and no format
    marker (``run_folds`` writes none: a ``schema`` or ``format`` key is another writer's, e.g.
    a newer ltrbench's, whose tables this one would misread)."""
    marks = {key: doc[key] for key in ("schema", "format") if key in doc}
    if marks:
        raise DataError(f"a fold document of another format ({', '.join(f'{k} {v!r}' for k, v in marks.items())}): "
                        "this ltrbench writes and reads fold documents without one; reproduce "
                        "it with the ltrbench that wrote it", path=path)
    if not doc.get("tables"):
        raise DataError("'tables' is empty: a fold document holds one table per metric; "
                        "nothing to reproduce", path=path)


def _check_metrics(doc: dict[str, Any], originals: list[Path], path: Path) -> None:
    """Each table's metric is one the fold runs computed (their ``metrics.csv``), checked before
    any fold runs again: otherwise the rebuild fails after every rerun, naming a file of the
    temporary folder."""
    import pandas as pd

    for i, table in enumerate(doc["tables"]):
        metric = table.get("metric") if isinstance(table, dict) else None
        for original in originals:
            try:
                have = set(pd.read_csv(original / "metrics.csv", usecols=["metric"])["metric"])
            except (OSError, ValueError, KeyError):
                continue  # the run comparison names a damaged metrics.csv
            if metric not in have:
                raise DataError(f"tables[{i}].metric {metric!r}: the fold run {original.name} "
                                f"did not compute it (it has {', '.join(sorted(map(str, have)))})",
                                path=path)


def reproduce_folds(document: str | Path, *, out_dir: str | Path | None = None,
                    tolerance: float | None = None, loader: Loader | None = None,
                    progress: bool = False, doc: dict[str, Any] | None = None) -> list[Outcome]:
    """Run every fold of a fold table again and compare the runs and the rebuilt tables
    (``doc``: the document when the caller has read it already)."""
    check_tolerance(tolerance)
    path = Path(document)
    if doc is None:
        doc = read_fold_doc(path)
    else:
        check_fold_doc(doc, path)
    _check_document(doc, path)
    # the Markdown a reader cites against what the document renders to, before any rerun
    rendered = check_rendered(path, doc, path, fold_renderings(path, doc))
    originals = _fold_runs(doc, path)
    if out_dir is not None:  # the new runs never inside, or beside in runs/, the fold runs
        check_output_dir(out_dir, option="--out", inputs=[("fold run", o) for o in originals],
                         writes=RUN_WRITES, into=("runs",), sealed=("fold run",))
    _check_metrics(doc, originals, path)
    outcome = Outcome(source=f"fold table {doc.get('dataset', '?')!r} "
                             f"({len(originals)} folds)", status="skipped")
    outcome.config = " + ".join(str(o / "config.toml") for o in originals)
    outcome.original_run = " + ".join(str(o) for o in originals)
    with _out(out_dir) as out:
        news = []
        for original in originals:
            try:
                news.append(rerun_compared(original / "config.toml", original,
                                           _manifest_of(original), outcome, out, tolerance,
                                           loader, progress))
            except DataError as exc:
                outcome.reason = f"data not available ({original.name}): {exc}"
                return [*([rendered] if rendered else []), outcome]
        outcome.new_run = " + ".join(str(n) for n in news) if out_dir is not None else ""
        dirs = [RunDir(n) for n in news]
        for stored in doc["tables"]:
            table = fold_table(dirs, str(stored.get("metric")))
            rebuilt = table_json(table)
            mine = {k: v for k, v in stored.items() if k != "run_ids"}
            n, diffs = compare_tables(mine, {k: v for k, v in rebuilt.items() if k != "run_ids"},
                                      tolerance=outcome.tolerance,
                                      path=f"tables[{stored.get('metric')}]")
            heading = {"dataset": table.dataset, "folds": list(table.folds)}
            k, more = compare_tables({key: doc.get(key) for key in heading}, heading)
            outcome.compared, outcome.differences = (outcome.compared + n + k,
                                                     outcome.differences + diffs + more)
    outcome.n_differences = len(outcome.differences)
    outcome.status = "match" if not outcome.differences else "mismatch"
    return [*([rendered] if rendered else []), outcome]


def _reads_like_fold_table(path: Path) -> bool:
    """Whether a Markdown file starts as :func:`bench.report.folds.render_fold_markdown` writes
    (``**NAME**: METRIC on the test folds, profile ...``)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            first = f.readline(4096)
    except OSError:
        return False
    return first.startswith("**") and " on the test folds, profile `" in first


def reproduce_document(path: str | Path, *, out_dir: str | Path | None = None,
                       tolerance: float | None = None, loader: Loader | None = None,
                       progress: bool = False) -> list[Outcome]:
    """Reproduce what ``path`` records: a fold table (``folds/*.json`` or its ``.md`` twin) with
    :func:`reproduce_folds`, else a leaderboard with
    :func:`bench.benchmark.reproduce.reproduce_leaderboard` (plain or tuned)."""
    from bench.benchmark.reproduce import reproduce_leaderboard

    p = Path(path)
    twin = p.with_suffix(".json") if p.suffix == ".md" else p
    raw: Any = None
    if twin.suffix == ".json" and twin.is_file():
        try:  # a file that is not JSON is the leaderboard reader's to name (line and column)
            raw = read_json_object(twin, "a leaderboard or a fold table")
        except DataError:
            raw = None
    if raw is None and p.suffix == ".md" and not twin.exists() and _reads_like_fold_table(p):
        raise ConfigError(f"{twin}: not found; reproduce reads the fold table's JSON twin "
                          f"(written beside {p.name} by 'ltrbench run --folds'): put it back "
                          "beside the .md, or run the folds again")
    if is_fold_document(raw):
        return reproduce_folds(twin, out_dir=out_dir, tolerance=tolerance, loader=loader,
                               progress=progress, doc=raw)
    return reproduce_leaderboard(p, out_dir=out_dir, tolerance=tolerance, loader=loader,
                                 progress=progress)


__all__ = ["is_fold_document", "reproduce_document", "reproduce_folds"]
