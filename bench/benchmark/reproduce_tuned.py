"""``ltrbench reproduce`` of a tuned leaderboard (``leaderboard-tuned-<dataset>.json``, written by
``ltrbench report --tuned``): each table joins a default and a tuned run, named in
``tuned[i].default_run`` and ``tuned_run``.

Both configs are run again and compared with their runs
(:func:`bench.benchmark.reproduce.rerun_compared`); the joined table is rebuilt from the two new
runs (:func:`bench.report.tuning_board.tuned_table`) and compared with the stored one, and so is
every number the document states beside the table: ``tuned[i].versus_default`` (each model's
tuned row against its default row: means, difference, p-values), rebuilt from the new runs, and
``tuned[i].trials`` (the tuning's trials, budget and best parameters), rebuilt from the tune
folder when it is still there (``tuned[i].tune_dir``). An edited number anywhere in the document
is a mismatch, never a match.

Before anything runs, the document is checked: one ``tuned`` entry per table, of the table's
dataset, naming two different runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.benchmark.pipeline import Loader
from bench.benchmark.reproduce_steps import (
    Outcome,
    _manifest_of,
    _out,
    _places,
    compare_tables,
    rerun_compared,
)
from bench.errors import DataError
from bench.report.build import LeaderboardOptions

Place = tuple[Path | None, Path | None]
_ROLES = ("default_run", "tuned_run")


def tuned_places(raw: dict[str, Any], base: Path, json_path: Path) -> list[tuple[Place, ...]]:
    """Per table of a tuned document, the ``(config, original run)`` places of its default and
    tuned runs (:func:`bench.benchmark.reproduce._places` of ``tuned[i].default_run`` /
    ``tuned_run``). A :class:`DataError` naming the document and the key when an entry is not
    an object, names another dataset than its table, or names one run twice."""
    entries = raw["tuned"]
    if not isinstance(entries, list) or len(entries) != len(raw["tables"]):
        raise DataError(f"'tuned' is {type(entries).__name__} of "
                        f"{len(entries) if isinstance(entries, list) else '?'} entries: expected "
                        f"one per table ({len(raw['tables'])})", path=json_path)
    out = []
    for i, (entry, table) in enumerate(zip(entries, raw["tables"], strict=True)):
        got = [entry.get(k) if isinstance(entry, dict) else None for k in _ROLES]
        refs: list[dict[str, Any]] = [r for r in got if isinstance(r, dict)]
        if len(refs) != 2:
            raise DataError(f"tuned[{i}]: expected default_run and tuned_run objects (run_id, "
                            "run_dir, run_config)", path=json_path)
        assert isinstance(entry, dict)
        if entry.get("dataset") != table.get("dataset"):
            raise DataError(f"tuned[{i}].dataset {entry.get('dataset')!r} is not the dataset "
                            f"of tables[{i}] ({table.get('dataset')!r})", path=json_path)
        places = tuple(_places(r, i, base, json_path) for r in refs)
        same = [p[1] is not None and p[1].resolve() for p in places]
        if same[0] and same[0] == same[1]:
            raise DataError(f"tuned[{i}]: default_run and tuned_run name the same run "
                            f"directory ({places[0][1]}): a tuned table joins two runs",
                            path=json_path)
        out.append(places)
    return out


def _missing(entry: dict[str, Any], pair: tuple[Place, ...]) -> str:
    """Which config is missing, with the place the document gives for it."""
    return "; ".join(
        f"the {role.replace('_', ' ')}'s config.toml not found (run_config "
        f"{(entry.get(role) or {}).get('run_config')!r})"
        for role, (config, _) in zip(_ROLES, pair, strict=True) if config is None)


def reproduce_tuned(table: dict[str, Any], entry: dict[str, Any], pair: tuple[Place, ...],
                    base: Path, options: LeaderboardOptions, out_dir: str | Path | None,
                    tolerance: float | None, loader: Loader | None, progress: bool) -> Outcome:
    """Run the default and the tuned configs again, compare each with its original run, and
    rebuild the joined table, ``versus_default`` and ``trials`` (module docstring)."""
    from bench.report.tuning_board import tuned_table
    from bench.runs.reader import RunDir

    dataset = str(table.get("dataset", "?"))
    outcome = Outcome(source=f"tuned table {dataset!r} (default and tuned runs)", status="skipped")
    if any(config is None for config, _ in pair):
        outcome.reason = f"{_missing(entry, pair)}; commit both runs"
        return outcome
    outcome.config = " + ".join(str(c) for c, _ in pair)
    manifests = [_manifest_of(original) for _, original in pair]
    with _out(out_dir) as out:
        news = []
        for (config_path, original), manifest in zip(pair, manifests, strict=True):
            assert config_path is not None
            try:
                news.append(rerun_compared(config_path, original, manifest, outcome, out,
                                           tolerance, loader, progress))
            except DataError as exc:
                outcome.reason = f"data not available: {exc}"
                return outcome
        outcome.new_run = " + ".join(str(n) for n in news) if out_dir is not None else ""
        outcome.original_run = " + ".join(str(o) for _, o in pair if o is not None)
        board = tuned_table(RunDir(news[0]), RunDir(news[1]), dataset, options=options)
        rebuilt = json.loads(json.dumps(board.table.to_json(), default=str))
        for stored, new, key in ((table, rebuilt, ""),
                                 (entry.get("versus_default"), board.versus_default,
                                  "tuned.versus_default"),
                                 *_trials(entry, base)):
            n, diffs = compare_tables(stored, json.loads(json.dumps(new, default=str)),
                                      tolerance=outcome.tolerance, path=key)
            outcome.compared += n
            outcome.differences += diffs
    outcome.n_differences = len(outcome.differences)
    outcome.status = "match" if not outcome.differences else "mismatch"
    return outcome


def _trials(entry: dict[str, Any], base: Path) -> list[tuple[Any, Any, str]]:
    """``(stored, rebuilt, key)`` of ``tuned.trials`` when the tune folder is still where the
    document says (``tune_dir``, relative to ``base``, the folder holding the document); nothing
    to compare otherwise (a tuned document may be committed without its tune folder)."""
    from bench.report.tuning import read_tune_dir, trials_summary

    tune_dir = entry.get("tune_dir")
    if not isinstance(tune_dir, str) or not tune_dir or ".." in Path(tune_dir).parts:
        return []
    path = Path(tune_dir) if Path(tune_dir).is_absolute() else base / tune_dir
    if not path.is_dir():
        return []
    return [(entry.get("trials"), trials_summary(read_tune_dir(path)), "tuned.trials")]


__all__ = ["reproduce_tuned", "tuned_places"]
