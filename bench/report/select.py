"""Which run supplies each leaderboard table, chosen explicitly and said out loud.

``ltrbench report`` used to keep the latest run of each dataset name without a word: a one-model
test run replaced an eleven-model table. The rule now (:func:`select_runs`):

* every run found is listed per dataset, with the one used, the reason, and the others skipped
  (each with its reason and its number of models);
* by default the **newest finished** run of each dataset is used (finish time from the manifest,
  else start time, else the folder's time, compared as instants: :func:`moment`; runs of one
  time by run id, the counter of one second's runs as a number: ``-11`` after ``-9``; a run
  whose manifest has no finish time is skipped unless ``include_unfinished``); a time ahead of
  this machine's clock, or a finish before its start, is said with it (:func:`_clock_note`);
* runs named one by one (``--runs DIR`` of a run directory, or a run id looked up under the
  runs folder) are used as named, finished or not; two named runs of one dataset are an error
  unless ``every`` (``--all``: one table per run).

Reading a run's ``metrics.csv`` checks it (:meth:`bench.runs.reader.RunDir.table`), so a damaged
run is a :class:`~bench.errors.DataError` naming the file, the line and the column.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.data.folder_names import missing_note
from bench.data.look_alike import shown_name as shown_name  # its owner: data/look_alike.py
from bench.errors import ConfigError, DataError
from bench.runs.naming import run_order
from bench.runs.reader import RunDir
from bench.runs.search import find_runs


def is_unfinished(run: RunDir) -> bool:
    """A run whose manifest exists but has no ``finished`` time: still running, killed, or
    failed (a run directory without a manifest, written by hand or by another tool, counts as
    finished; an empty manifest, ``{}``, has no finish time: unfinished)."""
    return run.has_manifest and not run.manifest.get("finished")


@dataclass(frozen=True)
class Choice:
    """The run of one leaderboard table, why it was used, and the runs of its dataset skipped."""

    dataset: str
    run: RunDir
    why: str
    found: int
    skipped: tuple[tuple[RunDir, str], ...] = ()

    def as_json(self, base: Path | None = None) -> dict[str, Any]:
        """``{"run", "why", "found", "skipped": [{"run", "why"}]}`` for ``leaderboard.json``."""
        return {"run": self.run.run_id, "why": self.why, "found": self.found,
                "skipped": [{"run": r.run_id, "why": w} for r, w in self.skipped]}


@dataclass
class Selection:
    """Every table's :class:`Choice`, and the unfinished runs left out."""

    choices: list[Choice] = field(default_factory=list)
    unfinished: list[RunDir] = field(default_factory=list)

    def lines(self) -> list[str]:
        """One line per table: the runs found, the one used and why, the ones skipped."""
        out = []
        for c in self.choices:
            among = [c.run, *(r for r, _ in c.skipped)]
            line = (f"{shown_name(c.dataset)}: {c.found} run(s) found; using "
                    f"{run_label(c.run, among)} ({c.why}, {_models(c.run, c.dataset)})")
            if c.skipped:
                line += f"; skipped {len(c.skipped)}: " + ", ".join(
                    f"{run_label(r, among)} ({w})" for r, w in c.skipped)
            out.append(line)
        return out


def run_label(run: RunDir, among: list[RunDir]) -> str:
    """How a message names ``run``: its id, or its folder's path when another run of ``among``
    has the same id (two roots holding ``20260101-000000-toy``: the id alone named neither)."""
    same = [r for r in among if r.run_id == run.run_id
            and os.path.realpath(r.path) != os.path.realpath(run.path)]
    return str(run.path) if same else run.run_id


def _models(run: RunDir, dataset: str) -> str:
    try:
        metrics = run.table("metrics.csv")
    except DataError:  # only an unfinished run's half-written table gets here
        return "models unknown"
    n = int(metrics.loc[metrics["dataset"].astype(str) == dataset, "model"].nunique())
    return f"{n} model{'s' if n != 1 else ''}"


def _when(run: RunDir) -> str:
    """When ``run`` finished (else started, else its folder's time), with what is wrong with
    that time on a machine whose clock is not to be trusted (:func:`_clock_note`)."""
    finished, started = run.manifest.get("finished"), run.manifest.get("started")
    if finished:
        return f"finished {finished}" + _clock_note(run)
    return (f"started {started}" if started else f"dated {run.timestamp}") + _clock_note(run)


#: How far ahead of this machine's clock a run's time may be before it is called the future
#: (two machines' clocks a little apart are not worth a word).
CLOCK_SLACK = dt.timedelta(minutes=5)


def _clock_note(run: RunDir) -> str:
    """``" (IN THE FUTURE ...)"`` when the run's time is ahead of this machine's clock (the
    machine that wrote it, or this one, has a wrong clock: such a run stays "newest" until the
    clock catches up), ``" (BEFORE IT STARTED ...)"`` when its finish time is earlier than its
    start (the clock was stepped back while it ran); else ``""``."""
    notes = []
    if run.moment > dt.datetime.now(dt.timezone.utc) + CLOCK_SLACK:
        notes.append("IN THE FUTURE by this machine's clock: the clock of the machine that "
                     "wrote it, or this one's, is wrong; name the run to use with --runs")
    finished, started = run.manifest.get("finished"), run.manifest.get("started")
    if finished and isinstance(started, str):
        with contextlib.suppress(ValueError):
            begun = dt.datetime.fromisoformat(started)
            begun = begun if begun.tzinfo is not None else begun.replace(tzinfo=dt.timezone.utc)
            if run.moment < begun:
                notes.append(f"BEFORE IT STARTED ({started}): the clock was stepped back "
                             "while it ran")
    return f" ({'; '.join(notes)})" if notes else ""


def resolve_runs(items: Iterable[str | Path | RunDir],
                 runs_root: str | Path | None = None) -> tuple[list[RunDir], list[RunDir]]:
    """``(named, found)``: run directories named one by one (a run directory, a
    :class:`RunDir`, or a run id under ``runs_root``) and runs found in folders of runs."""
    named: list[RunDir] = []
    found: list[RunDir] = []
    given: dict[str, str] = {}  # a place named twice (two spellings, a link, an id): refused
    for item in items:
        _refuse_named_twice(item, runs_root, given)
        if isinstance(item, RunDir):
            named.append(item)
            continue
        if str(item).strip() == "":
            raise ConfigError("--runs '': empty; expected a run directory, a folder of runs or "
                              "a run id")
        path = Path(item)
        if (path / "metrics.csv").is_file():
            named.append(RunDir(path))
        elif path.is_dir():
            runs = find_runs(path)
            if not runs and (path / "runs").is_dir():  # a results folder (run --out DIR)
                runs = find_runs(path / "runs")
            found.extend(runs)
        elif runs_root is not None and os.sep not in str(item) and \
                (Path(runs_root) / str(item) / "metrics.csv").is_file():
            named.append(RunDir(Path(runs_root) / str(item)))
        else:
            where = f", or a run id under {os.fspath(runs_root)!r}" if runs_root else ""
            twin = missing_note(path) or (missing_note(Path(runs_root) / str(item)) if
                                          runs_root is not None and os.sep not in str(item) else "")
            what = "not found" + twin  # 'R1' beside 'r1': the folder a case-blind disk opens
            if path.is_file():  # res/runs/<id>/metrics.csv: it exists, "not found" misled
                inside = (path.parent / "metrics.csv").is_file()
                what = "a file, not a folder" + (
                    f" (give the run directory it is in, {os.fspath(path.parent)!r})"
                    if inside else "")
            raise DataError(f"{what}: expected a run directory (with metrics.csv), a folder "
                            f"of runs{where}", path=path)
    return _unique(named), _unique(found)


def _refuse_named_twice(item: str | Path | RunDir, runs_root: str | Path | None,
                       given: dict[str, str]) -> None:
    """A :class:`ConfigError` when ``item`` names a run directory or folder of runs that an
    earlier item of ``--runs`` named already (the same path, another spelling of it, a link to
    it, or a run id under ``runs_root``): ``--runs R R`` was read as one ``R``, so a script that
    meant two runs got a table of one without a word."""
    if isinstance(item, RunDir):
        place, shown = item.path, os.fspath(item.path)
    else:
        shown = os.fspath(item)
        place = Path(item)
        if not place.exists() and runs_root is not None and os.sep not in shown \
                and (Path(runs_root) / shown).is_dir():
            place = Path(runs_root) / shown
        if not place.exists():
            return  # said as not found by the caller
    key = os.path.realpath(place)
    if key in given:
        same = "" if given[key] == shown else f" (as {given[key]!r} and {shown!r})"
        raise ConfigError(f"--runs names {key!r} twice{same}: give each run or folder of runs "
                          "once")
    given[key] = shown


def _unique(runs: list[RunDir]) -> list[RunDir]:
    seen: set[str] = set()
    out = []
    for r in runs:
        key = os.path.realpath(r.path)
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


def select_runs(items: Iterable[str | Path | RunDir], *, runs_root: str | Path | None = None,
                include_unfinished: bool = False, every: bool = False) -> Selection:
    """The runs of the leaderboard's tables (see the module doc), ordered by dataset then time."""
    named, found = resolve_runs(items, runs_root)
    named_keys = {os.path.realpath(r.path) for r in named}
    found = _with_rows(named, [r for r in found if os.path.realpath(r.path) not in named_keys])
    selection = Selection()
    if not include_unfinished:
        selection.unfinished = [r for r in found if is_unfinished(r)]
        found = [r for r in found if not is_unfinished(r)]
    by_dataset: dict[str, list[RunDir]] = {}
    for run in sorted([*named, *found], key=lambda r: (r.moment, run_order(r.run_id))):
        for dataset in run.datasets():
            by_dataset.setdefault(dataset, []).append(run)
    for dataset in sorted(by_dataset):
        runs = by_dataset[dataset]
        n = len(runs) + sum(dataset in _safe_datasets(r) for r in selection.unfinished)
        if every:
            for r in runs:
                _not_being_written(r)
            selection.choices += [Choice(dataset, r, "--all: one table per run", n) for r in runs]
            continue
        picked = [r for r in runs if os.path.realpath(r.path) in named_keys]
        if len(picked) > 1:
            raise ConfigError(f"--runs names {len(picked)} runs of dataset {dataset!r} ("
                              f"{', '.join(run_label(r, picked) for r in picked)}): name one, "
                              "or add --all "
                              "for one table per run")
        if picked:
            use, why = picked[0], "named with --runs"
        elif is_unfinished(runs[-1]):  # --include-unfinished
            use, why = runs[-1], ("newest run, unfinished (no finish time in its manifest; "
                                  f"--include-unfinished), {_when(runs[-1])}")
        else:
            use, why = runs[-1], f"newest finished run, {_when(runs[-1])}" + _tie(runs)
        skipped = [(r, ("not named with --runs" if picked else _older(r, use))
                    + _other_data(r, use)) for r in runs if r is not use]
        skipped += [(r, "unfinished: no finish time in its manifest")
                    for r in selection.unfinished if dataset in _safe_datasets(r)]
        _not_being_written(use)
        selection.choices.append(Choice(dataset, use, why, n, tuple(
            (r, f"{w}, {_models(r, dataset)}") for r, w in skipped)))
    return selection


def _with_rows(named: list[RunDir], found: list[RunDir]) -> list[RunDir]:
    """``found`` less the finished runs whose ``metrics.csv`` has no row (every model failed,
    or the file was cut), each said in a warning; such a run named with ``--runs`` is a
    :class:`DataError` (it gave "no finished run directory with a metrics.csv")."""
    def empty(run: RunDir) -> bool:  # an unfinished run's table may be half-written: not read
        return not is_unfinished(run) and not run.datasets()

    why = ("no rows under its header: the run finished without a metric (every model "
           "failed, or the file was cut); see its manifest's status")
    for run in named:
        if empty(run):
            raise DataError(f"{why}; leave it out of --runs", path=run.path / "metrics.csv")
    kept = []
    for run in found:
        if empty(run):
            warnings.warn(f"{run.path / 'metrics.csv'}: {why}; left out", stacklevel=3)
        else:
            kept.append(run)
    return kept


def _tie(runs: list[RunDir]) -> str:
    """``"; N other runs have the same time ..."`` when the newest time is shared (two runs
    finished within one clock tick): the run used is then the last by run id, and said so."""
    same = [r for r in runs[:-1] if r.moment == runs[-1].moment]
    if not same:
        return ""
    return (f"; {len(same)} other run(s) have the same time, the last by run id (-11 after "
            "-9) is used "
            "(name one with --runs, or --all for one table per run)")


def _older(run: RunDir, used: RunDir) -> str:
    """Why ``run`` was skipped for the newer ``used``: older, or of the same time (never called
    older then: the choice between them is the run id's order)."""
    if run.moment == used.moment:
        return f"same time as the run used ({_when(run)}), earlier by run id"
    return f"older, {_when(run)}"


def _spec(run: RunDir) -> str | None:
    """The dataset a run read, as its manifest records it (``dataset.spec``: a catalogue name or
    a resolved path), or ``None`` when it records none."""
    dataset = run.manifest.get("dataset") if run.has_manifest else None
    spec = dataset.get("spec") if isinstance(dataset, dict) else None
    return spec if isinstance(spec, str) else None


def _other_data(run: RunDir, used: RunDir) -> str:
    """``"; ANOTHER DATASET under this name (...)"`` when ``run`` read another dataset than the
    run used (``--name same`` given to two datasets: the older was skipped as an older run of
    the same data, in silence), else ``""``."""
    a, b = _spec(run), _spec(used)
    if a is None or b is None or a == b:
        return ""
    return (f"; ANOTHER DATASET under this name ({a!r}; the table's run read {b!r}): "
            "give one of them another --name, or name the run with --runs")


def _not_being_written(run: RunDir) -> None:
    """Refuse a run that a process is writing now (its writer lock held): its tables may hold
    part of a model's seeds, and a table built from them would be a snapshot nobody asked for."""
    holder = run.writer()
    if holder is not None:
        raise DataError(f"is being written now ({holder}): wait for the run to finish (or stop "
                        "it), then report it", path=run.path)


def _safe_datasets(run: RunDir) -> list[str]:
    """The datasets of an unfinished run (an unfinished run's tables may be half-written: a
    damaged one is skipped, not fatal, since it is not used)."""
    try:
        return run.datasets()
    except DataError:
        return []
