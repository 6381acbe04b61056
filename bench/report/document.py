"""Reading ``leaderboard.json`` back: the one reader of the document ``ltrbench report`` writes.

:func:`read_document` checks the whole document before anything uses it (``ltrbench reproduce``
re-runs configs named in it, so an edited or damaged file must be an error naming the key, not a
traceback after minutes of training, nor "no tables found" with exit 0):

* valid UTF-8 JSON whose top level is an object with ``schema`` equal to
  :data:`bench.report.build.SCHEMA_VERSION`;
* ``tables``: a list of table objects, each read by :meth:`bench.report.table.Table.from_json`
  with every number a number (or ``null``);
* ``stats``: the options the statistics were computed with, each of the type and in the range
  ``ltrbench report`` accepts (:func:`options_from_stats`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.data.atomic import check_switch_finished
from bench.data.jsonio import read_json_object
from bench.errors import DataError
from bench.metrics.families import DEFAULT_METRICS
from bench.report.build import (
    MOST_BOOTSTRAP,
    MOST_PERMUTATIONS,
    SCHEMA_VERSION,
    LeaderboardOptions,
)
from bench.report.table import NUMBER_FIELDS, Table


@dataclass(frozen=True)
class Document:
    """A leaderboard document: the raw JSON (compared number by number), its tables typed, and
    the options its statistics were computed with."""

    raw: dict[str, Any]
    tables: list[Table]
    options: LeaderboardOptions


def read_document(path: str | Path) -> Document:
    """Read and check ``leaderboard.json`` (see the module); a :class:`~bench.errors.DataError`
    names the file and the key (``tables[0].rows[2].metrics.ndcg@10.mean``) that is wrong."""
    p = Path(path)
    check_switch_finished(p.parent)  # a report stopped among its renames: md and json disagree
    raw = read_json_object(p, "a leaderboard document written by 'ltrbench report'")
    if raw.get("schema") != SCHEMA_VERSION:
        raise DataError(f"'schema' is {raw.get('schema')!r}: this ltrbench reads leaderboard "
                        f"documents of schema {SCHEMA_VERSION}", path=p)
    tables = raw.get("tables")
    if not isinstance(tables, list):
        raise DataError(f"'tables' is {type(tables).__name__}: expected a list of tables", path=p)
    typed = [_table(t, i, p) for i, t in enumerate(tables)]
    return Document(raw, typed, options_from_stats(raw.get("stats"), p))


def _table(value: Any, i: int, path: Path) -> Table:
    where = f"tables[{i}]"
    if not isinstance(value, dict):
        raise DataError(f"{where} is {type(value).__name__}: expected a table object", path=path)
    try:
        table = Table.from_json(value)
    except KeyError as exc:
        raise DataError(f"{where}: missing key {exc}", path=path) from exc
    except (TypeError, AttributeError, ValueError) as exc:
        raise DataError(f"{where}: not a leaderboard table ({exc})", path=path) from exc
    _check_numbers(value.get("rows"), f"{where}.rows", path)
    return table




def _check_numbers(value: Any, where: str, path: Path) -> None:
    """Every statistic under ``rows`` is a finite number or ``null`` (per-seed values too)."""
    if isinstance(value, dict):
        for key, item in value.items():
            sub = f"{where}.{key}"
            if key in NUMBER_FIELDS or where.endswith(".per_seed"):
                if item is not None and not _finite_number(item):
                    raise DataError(f"{sub} is {item!r}: expected a number or null", path=path)
            else:
                _check_numbers(item, sub, path)
    elif isinstance(value, list):
        for j, item in enumerate(value):
            _check_numbers(item, f"{where}[{j}]", path)


def _finite_number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def options_from_stats(stats: Any, path: str | Path) -> LeaderboardOptions:
    """The :class:`~bench.report.build.LeaderboardOptions` recorded in a document's ``stats``
    (absent keys: the defaults), each checked as ``ltrbench report`` checks its flags."""
    if stats is None:
        return LeaderboardOptions()
    if not isinstance(stats, dict):
        raise DataError(f"'stats' is {type(stats).__name__}: expected an object", path=path)

    def integer(key: str, low: int, high: int) -> int:
        v = stats[key]
        if not isinstance(v, int) or isinstance(v, bool) or not low <= v <= high:
            raise DataError(f"stats.{key} is {v!r}: expected an integer from {low} to {high:,}",
                            path=path)
        return v

    def text(key: str) -> str:
        v = stats[key]
        if not isinstance(v, str) or not v:
            raise DataError(f"stats.{key} is {v!r}: expected a metric name", path=path)
        return v

    kw: dict[str, Any] = {}
    if "metrics" in stats:
        m = stats["metrics"]
        if not isinstance(m, list) or not m or not all(isinstance(x, str) and x for x in m):
            raise DataError(f"stats.metrics is {m!r}: expected a list of metric names", path=path)
        kw["metrics"] = tuple(m)
    for key in ("primary", "split"):
        if key in stats:
            kw[key] = text(key)
    stated = LeaderboardOptions(metrics=kw.get("metrics", DEFAULT_METRICS)).named_primary()
    if kw.get("primary") == stated:
        del kw["primary"]  # the default, as recorded: a run without ndcg@10 falls back as then
    if "confidence" in stats:
        c = stats["confidence"]
        if not _finite_number(c) or not 0 < c < 1:
            raise DataError(f"stats.confidence is {c!r}: expected a number between 0 and 1",
                            path=path)
        kw["confidence"] = float(c)
    if "bootstrap_resamples" in stats:
        kw["bootstrap_resamples"] = integer("bootstrap_resamples", 1, MOST_BOOTSTRAP)
    if "randomization_resamples" in stats:
        kw["randomization_resamples"] = integer("randomization_resamples", 1,
                                                MOST_PERMUTATIONS)
    if "seed" in stats:
        kw["seed"] = integer("seed", 0, 2**32 - 1)
    return LeaderboardOptions(**kw)
