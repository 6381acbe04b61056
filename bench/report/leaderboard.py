"""``ltrbench report``'s files: ``results/leaderboard.{md,csv,json,tex}`` and the plots.

The numbers come from :mod:`bench.report.build` (its module docstring says what each table holds);
``leaderboard.json`` holds every number (NaN → ``null``) and is what ``ltrbench reproduce`` reads.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from bench.data.atomic import replace_file_set, write_text
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
    include_unfinished: bool = False,
    progress: Callable[[str, int, int], None] | None = None,
) -> dict[str, Any]:
    """Build the leaderboard from ``runs`` and write ``leaderboard.{md,csv,json,tex}`` into
    ``out_dir`` (atomically), plus the plots of every table into ``out_dir/<dataset>/`` unless
    ``plots`` is false. Returns ``{"md": path, "csv": path, "json": path, "tex": path,
    "plots": [paths], "document": the JSON document}``. ``progress(text, done, total)`` is told
    each step (a table's statistics, its plots) before it starts.
    """
    out = Path(out_dir)
    skipped: list[RunDir] = []
    latest = latest_runs(runs, include_unfinished=include_unfinished, skipped=skipped)
    if not latest:
        extra = (f"; {len(skipped)} unfinished run(s) skipped ({skipped[0].path}, ...): "
                 "--include-unfinished to use them" if skipped else "")
        raise DataError(f"no finished run directory with a metrics.csv found{extra}",
                        path=os.fspath(out))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        doc = build_leaderboard(latest.values(), options=options, base_dir=out,
                                progress=progress, steps=len(latest) * (2 if plots else 1))
    texts = {"md": render_markdown(doc), "csv": render_csv(doc), "json": render_json(doc),
             "tex": render_latex(doc)}
    names = {k: f"leaderboard.{k}" for k in texts}
    with replace_file_set(out, list(names.values())) as tmp:  # the four files as one set
        for k, text in texts.items():
            write_text(tmp / names[k], text)
    result: dict[str, Any] = {**{k: out / n for k, n in names.items()}, "plots": [],
                              "document": doc, "skipped": skipped}
    if plots:
        from bench.report.plots import write_plots

        for i, table in enumerate(doc["tables"]):
            if progress is not None:
                progress(f"{table['dataset']}: plots", len(latest) + i, 2 * len(latest))
            result["plots"].extend(write_plots(table, latest[table["dataset"]], out))
    if progress is not None:
        progress(f"{len(latest)} leaderboard table(s) written", 1, 1)
    return result
