"""``ltrbench report``'s files: ``results/leaderboard.{md,csv,json,tex}`` and the plots.

The numbers come from :mod:`bench.report.build` (its module docstring says what each table holds);
``leaderboard.json`` holds every number (NaN → ``null``) and is what ``ltrbench reproduce`` reads.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bench.data.atomic import write_text
from bench.errors import DataError
from bench.report.build import DEFAULT_OPTIONS, LeaderboardOptions, build_leaderboard, latest_runs
from bench.report.latex import render_latex
from bench.report.render import render_csv, render_markdown
from bench.runs.reader import RunDir


def render_json(doc: dict[str, Any]) -> str:
    """``leaderboard.json`` (NaN never appears: missing numbers are ``null``)."""
    return json.dumps(doc, indent=2, allow_nan=False) + "\n"


def write_leaderboard(
    runs: Iterable[str | Path | RunDir],
    out_dir: str | Path = "results",
    *,
    options: LeaderboardOptions = DEFAULT_OPTIONS,
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
