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
  ``run_config`` names a file that is not there, without a word. The note says so.

Each finding is a note of the table (Markdown, HTML, JSON: :class:`bench.report.table.Table`
``notes``) and a :class:`ForeignRunWarning` (one line on stderr under the command line).
"""

from __future__ import annotations

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
    for note in notes:
        warnings.warn(note, ForeignRunWarning, stacklevel=2)
    return notes


__all__ = ["ForeignRunWarning", "foreign_notes"]
