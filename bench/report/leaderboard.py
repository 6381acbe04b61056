"""``ltrbench report``'s files: ``results/leaderboard.{md,csv,json,tex}`` and the plots.

The numbers come from :mod:`bench.report.build` (its module docstring says what each table holds);
``leaderboard.json`` holds every number (NaN → ``null``) and is what ``ltrbench reproduce`` reads.
Which run supplies each table is :mod:`bench.report.select`'s choice, said in ``selection``.

The report's files are one set: every file is written to temporary folders first, then they
replace the earlier report's files (:func:`bench.data.atomic.replace_file_set`), and the files
of the earlier report that the new one does not write (the plots of a dataset no longer in the
report) are removed. Only files the report itself wrote are ever removed: it lists them in
:data:`REPORT_FILES`, and a listed name is removed only if it is one of the report's own names
(``leaderboard.*``, a plot of :data:`~bench.report.plots.PLOT_NAMES` one folder down), a plain
file (not a link) inside the output folder.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import json
import os
import re
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from bench.data.atomic import replace_file_set, write_text
from bench.data.jsonio import loads_strict
from bench.data.outputs import check_output_dir
from bench.errors import ConfigError, DataError
from bench.report.build import DEFAULT_OPTIONS, LeaderboardOptions, build_leaderboard
from bench.report.latex import render_latex
from bench.report.plots import PLOT_NAMES
from bench.report.render import render_csv, render_markdown
from bench.report.select import Choice, select_runs
from bench.runs.naming import dataset_slug
from bench.runs.reader import RunDir

#: The list of files the last report wrote (relative to its folder), for the next one.
REPORT_FILES = ".ltrbench-report.json"
#: The report's own top-level files; ``leaderboard.html`` (``report --html``) is written after
#: the set, since it embeds the set's plots, and a report without ``--html`` removes an
#: earlier one.
LEADERBOARD_FILES = tuple(f"leaderboard.{k}" for k in ("md", "csv", "json", "tex", "html"))
_PLOT_PATH = re.compile(r"[A-Za-z0-9_@+-][A-Za-z0-9_.@+-]*/(?:"
                        + "|".join(re.escape(n) for n in PLOT_NAMES) + ")")


def render_json(doc: dict[str, Any]) -> str:
    """``leaderboard.json`` (NaN never appears: missing numbers are ``null``)."""
    return json.dumps(doc, indent=2, allow_nan=False) + "\n"


#: The longest plot folder name (a longer dataset name is cut and given a digest suffix).
_LONGEST = 100
#: Names a plot folder never takes: the report's own files and the default folder of runs.
_RESERVED = frozenset({"runs", *LEADERBOARD_FILES, REPORT_FILES})


def plot_folders(choices: list[Choice]) -> list[str]:
    """The plot folder of each table, one per table: ``<dataset-slug>``, or
    ``<dataset-slug>@<run-id>`` when several tables share a slug (``--all``; two datasets whose
    names end alike, ``/a/OHSUMED`` and ``/b/OHSUMED``) or the slug is one of the report's own
    names (``runs``, ``leaderboard.md``); ``-2``, ``-3`` ... when even that repeats. A name
    over :data:`_LONGEST` characters is cut and ends with 8 hex digits of its SHA-256."""
    slugs = [dataset_slug(c.dataset) for c in choices]
    folders: list[str] = []
    for slug, choice in zip(slugs, choices, strict=True):
        name = slug
        if slugs.count(slug) > 1 or slug.lower() in _RESERVED:
            run = re.sub(r"[^A-Za-z0-9._-]+", "-", choice.run.run_id).strip("-.") or "run"
            name = f"{slug}@{run}"
        if len(name) > _LONGEST:  # a file name holds 255 bytes: a long name is cut, kept apart
            name = f"{name[:_LONGEST - 9]}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"
        base, n = name, 2
        while name.lower() in {f.lower() for f in folders}:  # case-insensitive file systems
            name, n = f"{base}-{n}", n + 1
        folders.append(name)
    return folders


def check_out_apart(out: str | Path, choices: list[Choice]) -> None:
    """Refuse an output folder that is, or lies inside, a run directory the report reads (its
    files would be written among the run's), or that holds the run directories themselves
    (``--out results/local/runs``: leaderboards and plot folders among the runs). ``out`` is
    named as given (``./res/runs/ID//``)."""
    real = Path(os.path.realpath(out))
    for c in choices:
        run = Path(os.path.realpath(c.run.path))
        if real == run or run in real.parents:
            how = "is" if real == run else "lies inside"
            raise ConfigError(f"--out {os.fspath(out)!r} {how} the run directory "
                              f"{c.run.run_id!r} ({os.fspath(c.run.path)!r}), which the report "
                              "reads: write the report outside it")
        if run.parent == real:
            raise ConfigError(f"--out {os.fspath(out)!r} holds the run directories themselves "
                              f"({c.run.run_id!r} is in it): the report's files and plot "
                              "folders would sit among the runs; write to the folder above "
                              f"({os.fspath(real.parent)!r}), which reads its runs/ by default")


def check_plot_folders(out: Path, folders: list[str]) -> None:
    """Refuse a plot folder that is a symbolic link, or not a folder: the plots would be written
    wherever it points (into a run directory the report reads, or any folder of the user's),
    outside the report's own folder."""
    for folder in folders:
        path = out / folder
        if path.is_symlink():
            raise ConfigError(f"{os.fspath(path)!r} is a symbolic link (to "
                              f"{os.readlink(path)!r}): the report writes the plots of that "
                              "table into a folder of its own there; remove the link, or "
                              "report with --no-plots")
        if os.path.lexists(path) and not path.is_dir():
            raise ConfigError(f"{os.fspath(path)!r} is not a folder: the report writes the "
                              "plots of that table there; move it, or report with --no-plots")


def earlier_report_files(out: Path) -> list[str]:
    """The files an earlier report wrote in ``out`` (from :data:`REPORT_FILES`) that may be
    replaced or removed: the report's own names only, plain files inside ``out``."""
    listing = out / REPORT_FILES
    if not listing.is_file() or listing.is_symlink():
        return []
    try:
        doc = loads_strict(listing.read_text(encoding="utf-8"))  # a key twice: not ours
    except (ValueError, UnicodeDecodeError):
        return []  # not ours, or damaged: nothing is removed on its word
    files = doc.get("files") if isinstance(doc, dict) else None
    real_out = os.path.realpath(out)
    kept = []
    for name in files if isinstance(files, list) else []:
        if not isinstance(name, str) or not (name in LEADERBOARD_FILES
                                             or _PLOT_PATH.fullmatch(name)):
            continue
        path = out / name
        if path.is_symlink() or not path.is_file() or ".." in name.split("/"):
            continue
        if os.path.dirname(os.path.realpath(path)) != os.path.realpath(path.parent) or \
                not os.path.realpath(path).startswith(real_out + os.sep):
            continue
        kept.append(name)
    return kept


#: How each of the report's top-level files begins, whatever ltrbench version wrote it (a report
#: older than :data:`REPORT_FILES` left no listing): a file of that name that begins otherwise
#: is the user's own, and the report refuses to replace it.
_OUR_OPENINGS = {"leaderboard.md": (b"# ltrbench leaderboard",),
                 "leaderboard.csv": (b"dataset,run_id,",),
                 "leaderboard.tex": (b"% Generated by ltrbench",),
                 "leaderboard.json": (b"{",),
                 "leaderboard.html": (b"<!DOCTYPE html>",)}


def _is_ours(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            head = f.read(1 << 16)
    except OSError:
        return False
    if not head.startswith(_OUR_OPENINGS[path.name]):
        return False
    if path.suffix in (".json", ".html"):  # the opening is anyone's: the generator is ours
        return b'"generated_by": "ltrbench' in head or b'class="note">ltrbench' in head
    return True


def refuse_foreign_files(out: Path, earlier: list[str],
                         names: tuple[str, ...] = LEADERBOARD_FILES[:4]) -> None:
    """A ConfigError when ``out`` holds a file of a report's name (``leaderboard.md``, ...;
    ``names``: those this report writes) that no ltrbench report wrote (not in the earlier
    report's listing, and not beginning as a report's file does): the report would replace
    the user's own file."""
    for name in names:
        path = out / name
        if name in earlier or path.is_symlink() or not path.is_file():
            continue  # a link, FIFO or device: refused by check_output_dir, naming what it is
        if not _is_ours(path):
            raise ConfigError(f"--out {os.fspath(out)!r} holds {name}, which no ltrbench "
                              "report wrote (it is not in the folder's "
                              f"{REPORT_FILES} and does not read as a report's): the report "
                              "would replace it; move it, or choose another --out")



def _check_out(out_dir: str | Path, choices: list[Choice], writes: list[str],
               folders: list[str]) -> None:
    """The output folder's checks before any statistics: never over a run it reads, nor into a
    dataset folder (at it, above it, or a plot folder ``folders`` of a dataset of yours), no
    folder where a file is written."""
    from bench.datasets.sealed import SEALED_DATASETS, datasets_around

    check_output_dir(out_dir, option="--out", inputs=[
        *(("--runs", c.run.path) for c in choices), *datasets_around(out_dir, into=folders)],
        writes=[glob.escape(n) for n in writes], sealed=SEALED_DATASETS)
    check_out_apart(out_dir, choices)
    _refuse_folders_at_files(out_dir)


def _refuse_folders_at_files(out_dir: str | Path) -> None:
    """Refuse, before any statistics, a folder where the report writes one of its files
    (``leaderboard.md/``): the report was drawn, then ``o/leaderboard.md: Is a directory``
    named no option and nothing to do."""
    for name in (*LEADERBOARD_FILES, REPORT_FILES):
        target = Path(out_dir) / name
        if target.is_dir() and not target.is_symlink():
            raise ConfigError(f"--out {os.fspath(out_dir)!r}: {os.fspath(target)!r} is a folder, "
                              "where the report writes a file: move it away or choose another "
                              "--out")

def write_leaderboard(
    runs: Iterable[str | Path | RunDir],
    out_dir: str | Path = "results",
    *,
    options: LeaderboardOptions = DEFAULT_OPTIONS,
    plots: bool = True,
    include_unfinished: bool = False,
    progress: Callable[[str, int, int], None] | None = None,
    every: bool = False,
    runs_root: str | Path | None = None,
) -> dict[str, Any]:
    """Build the leaderboard from ``runs`` and write ``leaderboard.{md,csv,json,tex}`` into
    ``out_dir``, plus the plots of every table into ``out_dir/<dataset>/`` unless ``plots`` is
    false, as one set (see the module doc). ``runs``: run directories, folders of runs, or run
    ids under ``runs_root`` (:func:`bench.report.select.select_runs`; ``every``: one table per
    run). Returns ``{"md": path, "csv": path, "json": path, "tex": path, "plots": [paths],
    "removed": [paths], "document": the JSON document, "selection": the Selection, "skipped":
    [unfinished runs left out]}``. ``progress(text, done, total)`` is told each step (a table's
    statistics, its plots) before it starts.
    """
    out = Path(out_dir)
    runs = list(runs)  # named again in the error below
    selection = select_runs(runs, runs_root=runs_root, include_unfinished=include_unfinished,
                            every=every)
    choices = selection.choices
    if not choices:
        skipped = selection.unfinished
        extra = (f"; {len(skipped)} unfinished run(s) skipped ({skipped[0].path}, ...): "
                 "--include-unfinished to use them" if skipped else "")
        looked = ", ".join(os.fspath(r.path if isinstance(r, RunDir) else r) for r in runs)
        raise DataError(f"no finished run directory with a metrics.csv found in {looked}"
                        f"{extra}")
    folders = plot_folders(choices)
    earlier = earlier_report_files(out)
    planned = [*LEADERBOARD_FILES, REPORT_FILES,
               *(f"{f}/{n}" for f in folders for n in PLOT_NAMES if plots)]
    _check_out(out_dir, choices, [*planned, *earlier], folders if plots else [])
    refuse_foreign_files(out, earlier)  # after the checks of links, FIFOs and devices
    if plots:
        check_plot_folders(out, folders)
    steps = len(choices) * (2 if plots else 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        doc = build_leaderboard([], options=options, base_dir=out, progress=progress,
                                steps=steps, choices=choices)
    texts = {"md": render_markdown(doc), "csv": render_csv(doc), "json": render_json(doc),
             "tex": render_latex(doc)}
    names = {k: f"leaderboard.{k}" for k in texts}
    made: list[str] = []
    existed = {f for f in folders if os.path.lexists(out / f)}
    with contextlib.ExitStack() as stack:  # every file complete before any old one is touched
        # an earlier report's page goes (listed, or an older report's); a user's own stays
        page = [LEADERBOARD_FILES[4]] if (out / LEADERBOARD_FILES[4]).is_file() and \
            _is_ours(out / LEADERBOARD_FILES[4]) else []
        top = stack.enter_context(replace_file_set(
            out, [*LEADERBOARD_FILES[:4], *page, REPORT_FILES,
                  *(n for n in earlier if "/" not in n)]))
        for k, text in texts.items():
            write_text(top / names[k], text)
        if plots:
            made = _write_plot_sets(stack, out, doc["tables"], choices, folders, earlier,
                                    progress)
        gone = _remove_stale(stack, out, folders if plots else [], earlier)
        write_text(top / REPORT_FILES, json.dumps(
            {"written_by": "ltrbench report", "files": [*names.values(), *made]}, indent=2)
            + "\n")
    for folder in {*(f for f in folders if f not in existed), *(n.split("/")[0] for n in gone)}:
        with contextlib.suppress(OSError):  # a plot folder of ours left empty (only if empty)
            (out / folder).rmdir()
    if progress is not None:
        progress(f"{len(choices)} leaderboard table(s) written", 1, 1)
    return {**{k: out / n for k, n in names.items()}, "plots": [out / m for m in made],
            "removed": [out / g for g in gone], "document": doc, "selection": selection,
            "skipped": selection.unfinished}


def _write_plot_sets(stack: contextlib.ExitStack, out: Path, tables: list[dict[str, Any]],
                     choices: list[Choice], folders: list[str], earlier: list[str],
                     progress: Callable[[str, int, int], None] | None) -> list[str]:
    """The plots of every table, each folder a set entered into ``stack``; their paths
    relative to ``out``."""
    from bench.report.plots import plot_files

    made = []
    for i, (table, choice, folder) in enumerate(zip(tables, choices, folders, strict=True)):
        if progress is not None:
            progress(f"{table['dataset']}: plots", len(choices) + i, 2 * len(choices))
        owned = [n.split("/", 1)[1] for n in earlier if n.split("/")[0] == folder]
        tmp = stack.enter_context(replace_file_set(out / folder, owned))
        made += [f"{folder}/{p.name}" for p in plot_files(table, choice.run, tmp)]
    return made


def _remove_stale(stack: contextlib.ExitStack, out: Path, folders: list[str],
                  earlier: list[str]) -> list[str]:
    """Enter into ``stack`` the removal of the earlier report's plots in folders the new report
    does not write (done when the new set replaces the old); returns them."""
    gone = [n for n in earlier if "/" in n and n.split("/")[0] not in folders]
    for folder in sorted({n.split("/")[0] for n in gone}):
        stack.enter_context(replace_file_set(
            out / folder, [n.split("/", 1)[1] for n in gone if n.split("/")[0] == folder]))
    return gone
