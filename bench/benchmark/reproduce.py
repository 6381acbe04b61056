"""``ltrbench reproduce``: run a recorded config again and compare every number.

Two sources of recorded configs:

* a run directory (``--run DIR``): its ``config.toml`` is run again and the new run's tables
  are compared with the old ones row by row: ``metrics.csv`` (every metric, split, seed and
  profile), ``per_query.parquet`` (every query), ``scores.parquet`` (every score) and the chosen
  iteration and tree count of ``timings.csv``. Times and memory are not compared (they never
  repeat).
* a leaderboard (``results/leaderboard.md`` or ``.json``): for each table, the config at its
  ``run_config`` (else ``runs/<run_id>/config.toml`` beside the leaderboard) is run again if its
  data is available (else the table is skipped, with the reason). When the original run
  directory is still there it is compared as above; in any case the table is rebuilt from the new
  run with :func:`bench.report.build.build_table` and the same statistics options, and
  every number of it is compared with the stored table (times, run ids and paths excepted).
* a tuned leaderboard (``leaderboard-tuned-<dataset>.json``, ``ltrbench report --tuned``): each
  table joins two runs, named in ``tuned[i].default_run`` and ``tuned_run``; both configs (the
  defaults and tune's ``best.toml`` as the run recorded it) are run again and compared with
  their runs, and the joined table is rebuilt from the two new runs
  (:func:`bench.report.tuning_board.tuned_table`) and compared with the stored one, and so are
  ``versus_default`` and ``trials`` (:mod:`bench.benchmark.reproduce_tuned`); its table files
  (``.md``, ``.csv``, ``.tex``, ``tuned-<dataset>/trials.md`` and ``.tex``) are compared cell by
  cell with what the JSON renders to, as a leaderboard's are. A run made
  from ``best.toml`` is an ordinary run directory: ``--run DIR`` reproduces it alone.

Tolerance: 0 (bit-identical) when the environment matches the original run's manifest (package
versions, Python, machine, CPU count and threads): LightGBM runs with ``deterministic=true``
and XGBoost's CPU ``hist`` is deterministic for a fixed thread count. Otherwise
:data:`CROSS_ENV_TOLERANCE`, and the differing entries are reported. ``tolerance=`` overrides both.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.benchmark.pipeline import Loader
from bench.benchmark.reproduce_steps import (
    CROSS_ENV_TOLERANCE,
    Outcome,
    _manifest_of,
    _out,
    _places,
    _rerun,
    check_tolerance,
    compare_runs,
    compare_tables,
    environment_tolerance,
    locate,
    rerun_compared,
)
from bench.benchmark.reproduce_text import check_rendered, tuned_renderings
from bench.benchmark.reproduce_tuned import reproduce_tuned, tuned_places
from bench.data.folder_names import missing_note
from bench.errors import ConfigError, DataError
from bench.report.build import LeaderboardOptions


def reproduce_run(
    run_dir: str | Path,
    *,
    out_dir: str | Path | None = None,
    tolerance: float | None = None,
    loader: Loader | None = None,
    progress: bool = False,
) -> Outcome:
    """Run ``run_dir/config.toml`` again and compare the new run with ``run_dir`` (module docstring)."""
    run_dir = Path(run_dir)
    config_path = run_dir / "config.toml"
    if run_dir.is_file():  # RUN/config.toml said "RUN/config.toml: no config.toml"
        inside = (run_dir.parent / "config.toml").is_file()
        raise ConfigError(f"{run_dir}: a file, not a run directory" + (
            f" (give the run directory it is in: {run_dir.parent})" if inside else
            " (runs/<id>/ with config.toml and metrics.csv)"))
    if not config_path.is_file():
        raise ConfigError(f"{run_dir}: no config.toml (not a run directory)")
    check_tolerance(tolerance)
    manifest = _manifest_of(run_dir) or {}
    outcome = Outcome(source=str(run_dir), status="skipped", config=str(config_path), original_run=str(run_dir))
    with _out(out_dir) as out:
        try:
            config, new = _rerun(config_path, out, loader, progress, manifest, run_dir)
        except DataError as exc:
            outcome.reason = f"data not available: {exc}"
            return outcome
        tol, why = (tolerance, "given") if tolerance is not None else environment_tolerance(
            manifest, config.resolved().params.resolved_threads())
        outcome.tolerance, outcome.tolerance_reason = tol, why
        outcome.new_run = str(new) if out_dir is not None else ""
        outcome.compared, outcome.differences = compare_runs(run_dir, new, tolerance=tol)
    outcome.n_differences = len(outcome.differences)
    outcome.status = "match" if not outcome.differences else "mismatch"
    return outcome


def reproduce_leaderboard(
    leaderboard: str | Path,
    *,
    out_dir: str | Path | None = None,
    tolerance: float | None = None,
    loader: Loader | None = None,
    progress: bool = False,
) -> list[Outcome]:
    """Reproduce every table of a leaderboard (``.md`` or ``.json``; the JSON beside the ``.md`` is read)."""
    check_tolerance(tolerance)
    path = Path(leaderboard)
    if path.is_dir():  # the folder the report wrote
        path = path / "leaderboard.json"
    if path.suffix not in (".md", ".json"):
        raise ConfigError(f"{path}: expected a leaderboard written by 'ltrbench report' "
                          "(leaderboard.md or leaderboard.json, or the folder holding them), "
                          "or give a run directory with --run DIR")
    json_path = path if path.suffix == ".json" else path.with_suffix(".json")
    if not json_path.is_file():
        raise ConfigError(
            f"{json_path}: not found; reproduce reads the leaderboard's JSON twin "
            f"(written by 'ltrbench report'), or give a run directory with --run DIR"
            f"{missing_note(json_path)}"
        )
    from bench.report.document import read_document

    document = read_document(json_path)  # checked whole before any config is run again
    if not document.tables:
        raise DataError("'tables' is empty: nothing to reproduce", path=json_path)
    base = json_path.parent
    if "tuned" in document.raw:  # report --tuned: each table joins two runs
        pairs = tuned_places(document.raw, base, json_path)
        rendered = check_rendered(json_path, document.raw, path,
                                  tuned_renderings(json_path, document.raw))
        return [*([rendered] if rendered else []),
                *(reproduce_tuned(table, entry, pair, base, document.options, out_dir,
                                  tolerance, loader, progress)
                  for table, entry, pair in zip(document.raw["tables"], document.raw["tuned"],
                                                pairs, strict=True))]
    places = [_places(table, i, base, json_path) for i, table in enumerate(document.raw["tables"])]
    rendered = check_rendered(json_path, document.raw, path)  # the text a reader cites
    return [*([rendered] if rendered else []), *(_reproduce_table(table, where, document.options, out_dir, tolerance, loader, progress)
            for table, where in zip(document.raw["tables"], places, strict=True))]


def _reproduce_table(table: dict[str, Any], where: tuple[Path | None, Path | None],
                     options: LeaderboardOptions, out_dir: str | Path | None,
                     tolerance: float | None, loader: Loader | None, progress: bool) -> Outcome:
    dataset = str(table.get("dataset", "?"))
    run_id = table.get("run_id")
    outcome = Outcome(source=f"table {dataset!r} (run {run_id})", status="skipped")
    config_path, original = where
    if config_path is None:
        outcome.reason = (
            f"config not found (run_config {table.get('run_config')!r}, run_id {run_id!r}); "
            "commit the run's config.toml or pass --run DIR"
        )
        return outcome
    outcome.config = str(config_path)
    manifest = _manifest_of(original)
    with _out(out_dir) as out:
        try:
            config, new = _rerun(config_path, out, loader, progress, manifest, original)
        except DataError as exc:
            outcome.reason = f"data not available: {exc}"
            return outcome
        if tolerance is not None:
            tol, why = tolerance, "given"
        elif manifest is not None:
            tol, why = environment_tolerance(manifest, config.resolved().params.resolved_threads())
        else:
            tol, why = CROSS_ENV_TOLERANCE, "original manifest not available"
        outcome.tolerance, outcome.tolerance_reason = tol, why
        outcome.new_run = str(new) if out_dir is not None else ""
        if original is not None:
            outcome.original_run = str(original)
            n, diffs = compare_runs(original, new, tolerance=tol)
            outcome.compared += n
            outcome.differences += diffs
        n, diffs = _compare_rebuilt(table, options, new, tol)
        outcome.compared += n
        outcome.differences += diffs
    outcome.n_differences = len(outcome.differences)
    outcome.status = "match" if not outcome.differences else "mismatch"
    return outcome


def _compare_rebuilt(table: dict[str, Any], options: LeaderboardOptions, new: Path,
                     tol: float) -> tuple[int, list[dict[str, Any]]]:
    from bench.report.build import build_table
    from bench.runs.reader import RunDir

    rebuilt = build_table(RunDir(new), str(table["dataset"]), options=options)
    rebuilt = json.loads(json.dumps(rebuilt, default=str))
    return compare_tables(table, rebuilt, tolerance=tol)


__all__ = [
    "CROSS_ENV_TOLERANCE",
    "Outcome",
    "check_tolerance",
    "compare_runs",
    "compare_tables",
    "environment_tolerance",
    "locate",
    "reproduce_leaderboard",
    "reproduce_run",
    "rerun_compared",
]
