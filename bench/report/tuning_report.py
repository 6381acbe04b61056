"""``ltrbench report --tuned DIR``'s files: the tuned leaderboard, the tuning figures and tables.

Given a tune folder (:mod:`bench.report.tuning`) and two runs of its dataset, the defaults and
``best.toml``'s (:mod:`bench.report.tuning_board` pairs and checks them), writes into ``out``:

* ``leaderboard-tuned-<dataset>.{md,csv,json,tex}`` (``.html`` with ``html``): one table whose
  rows are ``<model> (default)`` and ``<model> (tuned)``, rendered by the default leaderboard's
  renderers, then the tuned-vs-default tests and the trials table. The JSON is a leaderboard
  document (``tables``, ``stats``, ``selection``) plus ``tuned``: per table the two runs
  (``default_run``, ``tuned_run``: ``run_id``, ``run_dir``, ``run_config``), the tune folder,
  ``versus_default``, the ``trials`` summary and the notes; ``ltrbench reproduce`` reads it and
  runs both configs again. It sits beside ``runs/`` so that the run paths in it are relative
  (``runs/<id>``) when the runs lie in ``out/runs``;
* ``tuned-<dataset>/``: ``best_so_far.png``, ``importances.png``, ``trials.md``, ``trials.tex``
  and ``trials.csv`` (a copy of the tune folder's, so a committed report holds its trials).

The files are one set (:func:`bench.data.atomic.replace_file_set`): complete before any earlier
one is replaced.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bench.data.atomic import replace_file_set, write_text
from bench.data.inputs import check_input_file
from bench.data.toml import read_toml
from bench.datasets.recorded import paths_from_config_folder
from bench.errors import ConfigError, DataError
from bench.report.build import DEFAULT_OPTIONS, SCHEMA_VERSION, LeaderboardOptions, _display_path
from bench.report.latex import render_latex
from bench.report.leaderboard import render_json
from bench.report.render import md_text, render_csv, render_markdown
from bench.report.tuning import (
    read_tune_dir,
    render_trials_latex,
    render_trials_markdown,
    trials_summary,
)
from bench.report.tuning_board import TunedBoard, pair_runs, tuned_table
from bench.runs.naming import dataset_slug
from bench.runs.reader import RunDir
from bench.runs.tune_layout import COMPLETE, PLAN, STUDY_DB, SUMMARY, TRIALS_CSV

#: The figures of the tuning folder, in the order the HTML shows them.
FIGURES = ("best_so_far.png", "importances.png")


def _run_ref(run: RunDir, base: Path) -> dict[str, str]:
    return {"run_id": run.run_id, "run_dir": _display_path(run.path, base),
            "run_config": _display_path(run.config_path, base)}


#: Files only a tune writes: a folder holding none of them is no tune (killed or finished).
_TUNE_FILES = (PLAN, STUDY_DB, TRIALS_CSV, SUMMARY, COMPLETE)


def _check_best(best_path: Path) -> None:
    """A :class:`ConfigError` when the tune folder has no ``best.toml``; a tune killed (or still
    running) has none yet -- it is written with ``complete`` when the tune ends
    (:func:`bench.benchmark.tune_out.write_results`) -- so the message says so and how to
    finish it, instead of only that a file is missing."""
    if best_path.is_file():
        return
    if best_path.exists() or best_path.is_symlink():  # a folder, a FIFO, a broken link: said
        try:
            check_input_file(best_path, expected="a tune folder's best.toml")
        except DataError as exc:
            raise ConfigError(str(exc)) from None
    folder = best_path.parent
    if folder.is_dir() and not any((folder / name).exists() for name in _TUNE_FILES):
        raise ConfigError(f"{folder}: not a tune folder (no {PLAN}, {TRIALS_CSV} or best.toml): "
                          "expected a folder written by 'ltrbench tune' (DIR/tune/<name>/); no "
                          "tune wrote here, so there is none to resume")
    if folder.is_dir() and not (folder / COMPLETE).exists():
        raise ConfigError(f"{best_path}: not found: the tune in {folder} did not finish (killed "
                          "or still running: no 'complete' file), and best.toml is written when "
                          f"it does; finish it with 'ltrbench tune --resume {folder}' (its "
                          "other options as before), then report again")
    raise ConfigError(f"{best_path}: not found; a tune folder holds best.toml")


def find_pair(tune_dir: str | Path, runs_root: Path) -> list[RunDir]:
    """The newest finished run in ``runs_root`` of ``best.toml`` (its ``[model_params]`` and
    dataset) and the newest finished run of the same dataset and seeds without
    ``[model_params]`` for those models: what ``report --tuned`` uses when ``--runs`` is not
    given. A :class:`ConfigError` says which is missing and how to make it."""
    from bench.report.select import is_unfinished

    best_path = Path(tune_dir) / "best.toml"
    _check_best(best_path)
    best = paths_from_config_folder(read_toml(best_path), best_path)  # its dataset as run
    want = best.get("model_params") or {}
    found = sorted((RunDir(p) for p in (runs_root.iterdir() if runs_root.is_dir() else ())
                    if (p / "metrics.csv").is_file()), key=lambda r: r.moment, reverse=True)
    found = [r for r in found if not is_unfinished(r)
             and r.config.get("seeds") == best.get("seeds")]
    params = [r.config.get("model_params") or {} for r in found]
    tuned = [r for r, p in zip(found, params, strict=True)
             if want and all(p.get(m) == v for m, v in want.items())
             and str(r.config.get("dataset")) == str(best.get("dataset"))]
    default = [r for r, p in zip(found, params, strict=True) if not any(m in p for m in want)
               and tuned and r.datasets() == tuned[0].datasets()]  # the splits' own name
    if not tuned or not default:
        which = "the run of best.toml" if not tuned else "a run of the defaults"
        raise ConfigError(f"--tuned {tune_dir}: no finished run in {runs_root} is {which} (same "
                          "dataset and seeds); run 'ltrbench run --config "
                          f"{best_path}' and the same config without [model_params], or name "
                          "both with --runs DEFAULT_RUN TUNED_RUN")
    return [default[0], tuned[0]]


def tuned_document(tune_dir: str | Path, runs: list[str | Path | RunDir], base: Path, *,
                   options: LeaderboardOptions = DEFAULT_OPTIONS) -> tuple[dict[str, Any],
                                                                          TunedBoard]:
    """The tuned leaderboard document (module docstring) and the board it was built from."""
    from bench import __version__

    folder = read_tune_dir(tune_dir)
    best_path = folder.best_config()
    _check_best(best_path)
    best = paths_from_config_folder(read_toml(best_path), best_path)  # its dataset as run
    pair = [r if isinstance(r, RunDir) else RunDir(Path(r)) for r in runs]
    default, tuned = pair_runs(pair, best)
    datasets = tuned.datasets()
    if len(datasets) != 1:
        raise ConfigError(f"the tuned run {tuned.run_id} holds {len(datasets)} datasets; "
                          "expected the one of the tune folder")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        board = tuned_table(default, tuned, datasets[0], options=options, best=best,
                            base_dir=base)
    stats = asdict(options)
    stats["metrics"] = list(options.metrics)
    stats["primary"] = options.named_primary()
    stats["tests"] = (f"paired per-query {stats['primary']} vs the best row (default and tuned "
                      "rows together): randomization (sign flips) and t (scipy.stats.ttest_rel),"
                      " Holm-corrected; and each tuned row vs its own default row, Holm over "
                      "the models")
    table = board.table.to_json()
    doc = {
        "schema": SCHEMA_VERSION, "generated_by": f"ltrbench {__version__}", "stats": stats,
        "paths": "run_dir and run_config are relative to the folder holding this file unless "
                 "absolute",
        "tables": [table],
        "selection": [{"dataset": table["dataset"], "run": tuned.run_id, "found": 2,
                       "why": f"the run of best.toml, joined per query with the default run "
                              f"{default.run_id}", "skipped": []}],
        "tuned": [{"dataset": table["dataset"], "tune_dir": _display_path(folder.path, base),
                   "default_run": _run_ref(default, base), "tuned_run": _run_ref(tuned, base),
                   "versus_default": board.versus_default, "trials": trials_summary(folder),
                   "notes": [] if folder.finished else [
                       "the tune did not finish (no 'complete' file in its folder): the "
                       "trials so far"]}],
    }
    return doc, board


def _versus_markdown(rows: list[dict[str, Any]]) -> str:
    def n(v: Any, d: int = 4) -> str:
        return "–" if v is None else f"{float(v):.{d}f}"
    lines = ["## Tuned against default, per model", "",
             "Paired per query (test split, values averaged over seeds): randomization (sign "
             "flips) and t tests of each tuned row against the same model's default row, "
             "Holm-corrected over the models.", "",
             "| model | metric | default | tuned | Δ | p rand. | p rand. (Holm) | p t | "
             "p t (Holm) | queries |", "|" + "---|" * 10]
    for r in rows:
        lines.append(f"| {md_text(r['model'])} | {md_text(r['metric'])} | {n(r['default'])} | "
                     f"{n(r['tuned'])} | {n(r['delta'])} | {n(r['p_randomization'], 3)} | "
                     f"{n(r['p_randomization_holm'], 3)} | {n(r['p_t'], 3)} | "
                     f"{n(r['p_t_holm'], 3)} | {r['n_queries']} |")
    return "\n".join(lines) + "\n"


def tuned_renderings(doc: dict[str, Any], stem: str | None = None) -> dict[str, str]:
    """Every table file of a tuned report that its document renders to, keyed by its path
    relative to the folder of ``<stem>.json`` (``stem``: by default
    ``leaderboard-tuned-<dataset>``): ``<stem>.md`` (the leaderboard, the tuned-vs-default
    tests, the trials, the notes), ``<stem>.csv``, ``<stem>.tex`` (the leaderboard and the
    trials) and ``tuned-<dataset>/trials.md`` and ``trials.tex``. The writer and ``ltrbench
    reproduce`` (which compares the committed files with them, cell by cell) share it."""
    table, tuned = doc["tables"][0], doc["tuned"][0]
    slug = dataset_slug(str(table["dataset"]))
    stem = stem or f"leaderboard-tuned-{slug}"
    rows = tuned["trials"]
    board_md = render_markdown(doc).replace(
        "# ltrbench leaderboard", "# ltrbench tuned leaderboard: each library's default and "
        "tuned rows", 1)
    md = (board_md + "\n" + _versus_markdown(tuned["versus_default"]) + "\n"
          + "## Trials\n\n" + render_trials_markdown(rows)
          + "".join(f"\nNote: {md_text(n)}.\n" for n in tuned["notes"]))
    return {f"{stem}.md": md, f"{stem}.csv": render_csv(doc),
            f"{stem}.tex": render_latex(doc) + "\n" + render_trials_latex(rows),
            f"tuned-{slug}/trials.md": render_trials_markdown(rows),
            f"tuned-{slug}/trials.tex": render_trials_latex(rows)}


def _figures(tune_dir: Path, folder: Path, test: dict[str, float],
             notes: list[str]) -> None:
    from bench.report.tuning import param_importances
    from bench.report.tuning_plots import plot_best_so_far, plot_importances

    tf = read_tune_dir(tune_dir)
    _, said = plot_best_so_far(tf, folder / FIGURES[0], test)
    notes += said
    importances = param_importances(tf)
    notes += [f"{m}: {v}" for m, v in importances.items() if isinstance(v, str)]
    plot_importances(importances, folder / FIGURES[1])


def _check_out(out: Path, tune_dir: Path, runs: list[Path], own: list[str],
               sub: list[str]) -> None:
    """Refuse, before anything is written, an ``out`` that is or lies inside the tune folder or a
    run folder (the report would write among their files), or whose ``tuned-<dataset>/`` is the
    tune folder: its set replaces ``trials.csv`` and the figures there, and removes
    ``best_so_far.png`` when it draws none -- the tune's own files
    (:func:`bench.data.outputs.check_output_dir`, ``sealed``); or that holds the run folders."""
    import glob

    from bench.data.outputs import check_output_dir

    inputs = [("--tuned", tune_dir), *(("--runs", r) for r in runs)]
    real = Path(os.path.realpath(out))
    for run in runs:
        if Path(os.path.realpath(run)).parent == real:
            raise ConfigError(f"--out {os.fspath(out)!r} holds the run directories themselves "
                              f"({os.fspath(run)!r} is in it): the tuned report's files would sit "
                              "among the runs; write to the folder above")
    check_output_dir(out, option="--out", inputs=inputs, sealed=("--tuned", "--runs"),
                     writes=[glob.escape(n) for n in (*own, *sub)])


def write_tuned_report(tune_dir: str | Path, runs: list[str | Path | RunDir],
                       out: str | Path, *, options: LeaderboardOptions = DEFAULT_OPTIONS,
                       plots: bool = True, html: bool = False) -> dict[str, Any]:
    """Write the tuned report (module docstring) into ``out``; returns ``{"files": [paths],
    "document": the JSON document}``."""
    out = Path(out)
    doc, board = tuned_document(tune_dir, runs, out, options=options)
    table, tuned = doc["tables"][0], doc["tuned"][0]
    slug = dataset_slug(str(table["dataset"]))
    stem, sub = f"leaderboard-tuned-{slug}", f"tuned-{slug}"
    primary = table["primary_metric"]
    test = {r["model"].rsplit(" ", 1)[0]: r["metrics"][primary]["mean"] for r in table["rows"]
            if r["model"].endswith("(tuned)") and r["metrics"].get(primary, {}).get("mean")
            is not None}
    tf = read_tune_dir(tune_dir)
    rendered = tuned_renderings(doc, stem)  # the trials' tables (no notes in them)
    texts = {"trials.md": rendered[f"{sub}/trials.md"],
             "trials.tex": rendered[f"{sub}/trials.tex"],
             "trials.csv": tf.trials.to_csv(index=False)}
    own = [f"{stem}.{k}" for k in ("md", "csv", "json", "tex", "html")]
    _check_out(out, Path(tune_dir), [r.path if isinstance(r, RunDir) else Path(r) for r in runs],
               own, [f"{sub}/{n}" for n in (*texts, *FIGURES)])
    with replace_file_set(out / sub, [*texts, *FIGURES]) as tmp:
        for name, text in texts.items():
            write_text(tmp / name, text)
        if plots:
            _figures(Path(tune_dir), tmp, test, tuned["notes"])
        figures = [tmp / f for f in FIGURES if (tmp / f).is_file()]
        # after the figures: their notes go into the Markdown
        files = {name: text for name, text in tuned_renderings(doc, stem).items()
                 if "/" not in name}
        files[f"{stem}.json"] = render_json(doc)
        if html:
            from bench.report.html import render_html
            from bench.report.html_tuning import tuning_section

            files[f"{stem}.html"] = render_html(
                doc, base=out, title=f"ltrbench tuned leaderboard: {table['dataset']}",
                drill_values=board.per_query,
                sections=[("tuning", tuning_section(tuned, figures))])
        with replace_file_set(out, own) as top:
            for name, text in files.items():
                write_text(top / name, text)
    return {"files": [out / n for n in files] + [out / sub / n for n in (*texts, *FIGURES)
                                                if plots or n in texts],
            "document": doc}


__all__ = ["FIGURES", "find_pair", "tuned_document", "tuned_renderings", "write_tuned_report"]
