"""What a leaderboard table says of a run that is not quite this ltrbench's own.

Two silent accepts of ``ltrbench report`` (issue 19 item 7):

* a ``metrics.csv`` with a column ltrbench does not write (:data:`bench.runs.layout.TABLES`:
  ``dataset, model, library, seed, split, metric, value, profile``) was used without a word:
  an edited file (a ``value_std`` or ``note`` column, a column of another tool's export) whose
  extra column the table ignores. It is still read (the known columns hold the numbers), and
  the column is named;
* runs written by another ltrbench version (the manifest's ``ltrbench_version``) were mixed in
  one leaderboard without a word, although a metric's definition or a default may have changed
  between versions. The run and its version are named. A run whose manifest records no version
  (written before the field, or by hand) is not flagged: nothing is known of it;
* a run folder without its ``config.toml`` (deleted, or written by hand) gave a table whose
  ``run_config`` names a file that is not there, without a word. The note says so;
* a run folder holding another run's files (two folders swapped: its name is another run's
  id than its manifest's ``run_id``; a ``config.toml`` whose first line names another run's
  config hash) was read under its folder's name without a word. The note names both.

Each finding is a note of the table (Markdown, HTML, JSON: :class:`bench.report.table.Table`
``notes``) and a :class:`ForeignRunWarning` (one line on stderr under the command line).
"""

from __future__ import annotations

import re
import warnings

from bench.runs.layout import columns_of
from bench.runs.reader import RunDir


class ForeignRunWarning(UserWarning):
    """A run whose files ltrbench did not write as they are, or another version wrote."""


def foreign_notes(run: RunDir, version: str) -> list[str]:
    """The notes (each also warned) for ``run`` read by ltrbench ``version``: unknown
    ``metrics.csv`` columns, another ``ltrbench_version`` in its manifest, no ``config.toml``."""
    notes: list[str] = []
    known = set(columns_of("metrics.csv"))
    extra = [str(c) for c in run.table("metrics.csv").columns if str(c) not in known]
    if extra:
        notes.append(f"run {run.run_id}: {run.path / 'metrics.csv'} has column(s) "
                     f"{', '.join(map(repr, extra))} that ltrbench does not write: ignored "
                     f"(the table reads {', '.join(columns_of('metrics.csv'))})")
    theirs = run.manifest.get("ltrbench_version") if run.has_manifest else None
    if isinstance(theirs, str | int | float) and str(theirs).strip() and str(theirs) != version:
        notes.append(f"run {run.run_id} was written by ltrbench {theirs}, not by this ltrbench "
                     f"{version}: a metric's definition or a default may differ; run it again "
                     "with this version to compare like with like")
    if not run.config_path.is_file():  # deleted, or a folder written by hand
        notes.append(f"run {run.run_id}: no {run.config_path.name} in {run.path}: the table names "
                     "the configuration the run would have, but it cannot be read or run again "
                     "(ltrbench reproduce)")
    notes += _other_run_notes(run)
    for note in notes:
        warnings.warn(note, ForeignRunWarning, stacklevel=2)
    return notes


#: A run folder's name as ltrbench makes it (``<dataset>-<UTC stamp>-<hash[:8]>[-n]``,
#: :func:`bench.runs.naming.new_run_dir`): a name of this shape claims to be that run.
_RUN_ID = re.compile(r"^.+-\d{8}T\d{6}Z-[0-9a-f]{8}(-\d+)?$")
#: The first line ltrbench writes into a run's ``config.toml``.
_HEADER = re.compile(r"^# ltrbench run config \(resolved\); run (?P<run>.+); "
                     r"hash (?P<hash>[0-9a-f]+)\s*$")


def _other_run_notes(run: RunDir) -> list[str]:
    """Notes for a run folder holding another run's files: a folder named like a run id whose
    manifest records another (two run folders swapped or renamed: the table would name one run
    and show the other's numbers), and a ``config.toml`` whose first line names another run or
    config hash than the manifest (a config file copied from another run)."""
    manifest = run.manifest if run.has_manifest else {}
    recorded = manifest.get("run_id")
    notes = []
    if isinstance(recorded, str) and _RUN_ID.match(run.run_id) and recorded != run.run_id:
        notes.append(f"run folder {run.path} is named like run {run.run_id} but its manifest "
                     f"records run {recorded}: folders renamed or swapped; the table names "
                     "the folder, the numbers are those of the run it holds")
    try:
        first = run.config_path.read_text(encoding="utf-8").split("\n", 1)[0]
    except (OSError, UnicodeDecodeError):
        return notes
    header = _HEADER.match(first)
    chash = manifest.get("config_hash")
    if header and isinstance(chash, str) and not chash.startswith(header["hash"]) \
            and not header["hash"].startswith(chash):
        notes.append(f"run {run.run_id}: {run.config_path} is the config of run "
                     f"{header['run']} (hash {header['hash']}), not of this run (hash {chash}, "
                     "manifest.json): it was copied from another run or edited; the table's "
                     "config is not the one that made its numbers")
    return notes


__all__ = ["ForeignRunWarning", "foreign_notes"]
