"""Reading a run directory: :class:`RunDir`, lazy and validated readers of its files.

A missing file gives an empty frame from :meth:`RunDir.table_or_empty` and a
:class:`~bench.errors.DataError` naming the file from :meth:`RunDir.table`; a file without a
column its readers need (:data:`bench.runs.layout.TABLES`) gives a
:class:`~bench.errors.DataError` naming the file and the missing columns.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

from bench.data.folder_names import missing_note
from bench.data.toml import read_toml
from bench.errors import ConfigError, DataError, LtrbenchError
from bench.metrics.profiles import DEFAULT_PROFILE
from bench.runs.layout import empty_table, read_checked
from bench.runs.lock import LOCK_NAME
from bench.runs.manifest import MANIFEST, read_manifest

# Timestamp keys looked up in manifest.json, most specific first.
_TIME_KEYS = ("finished", "finished_at", "finished_utc", "started", "started_at", "started_utc")


@dataclass
class RunDir:
    """A run directory and lazy, validated readers for its files."""

    path: Path
    _cache: dict[str, pd.DataFrame] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.path = Path(self.path)
        if not self.path.is_dir():
            raise DataError(f"run directory not found{missing_note(self.path)}", path=self.path)

    @property
    def run_id(self) -> str:
        return self.path.name

    @property
    def config_path(self) -> Path:
        return self.path / "config.toml"

    @cached_property
    def config(self) -> dict[str, Any]:
        """The resolved config (empty dict when ``config.toml`` is absent)."""
        if not self.has(self.config_path.name):
            return {}
        try:
            return read_toml(self.config_path)
        except ConfigError as exc:  # the file exists, so this is a syntax error
            cause = exc.__cause__ or exc
            raise DataError(f"not valid TOML: {cause}", path=self.config_path) from cause

    @cached_property
    def manifest(self) -> dict[str, Any]:
        """The manifest (empty dict when ``manifest.json`` is absent)."""
        p = self.own_file(MANIFEST)
        if not p.is_file():
            if os.path.lexists(p):
                raise DataError("is not a regular file (a folder, FIFO, device or a broken "
                                "link): expected the run's manifest (JSON)", path=p)
            return {}
        data = read_manifest(self.path)
        for key in ("finished", "started"):
            if data.get(key) is not None and not isinstance(data[key], str):
                raise DataError(f"{key!r} is {data[key]!r}: expected a time as ISO text "
                                "(e.g. 2026-01-01T00:00:00+00:00) or null", path=p)
        return data

    @property
    def has_manifest(self) -> bool:
        """Whether the run has a ``manifest.json`` (an empty one, ``{}``, included)."""
        return bool(self.manifest) or (self.path / MANIFEST).is_file()

    def writer(self) -> str | None:
        """Who is writing this run now (``"pid N on HOST since T"``, from the lock that
        :func:`bench.runs.lock.writer_lock` holds), or ``None`` when no process holds it. Only
        the lock's holder is read: nothing is created or changed."""
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: no lock to ask
            return None
        path = self.path / LOCK_NAME
        if not path.is_file():
            return None
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return None
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                text = os.pread(fd, 512, 0).decode("utf-8", "replace").strip()
                return text or "another process"
            fcntl.flock(fd, fcntl.LOCK_UN)
            return None
        finally:
            os.close(fd)

    @property
    def timestamp(self) -> str:
        """Finish (else start) time from the manifest as text, else the directory's mtime (ISO)."""
        for key in _TIME_KEYS:
            value = self.manifest.get(key)
            if value:
                return str(value)
        mtime = self.path.stat().st_mtime
        return dt.datetime.fromtimestamp(mtime, tz=dt.timezone.utc).isoformat()

    @property
    def moment(self) -> dt.datetime:
        """:attr:`timestamp` as an aware time, so that runs compare by the instant, not by the
        text (``2026-01-02T00:00:00+05:00`` is before ``2026-01-01T20:00:00+00:00``); a time
        without an offset is read as UTC. A manifest time that is not ISO 8601 is a
        :class:`DataError` naming the file."""
        text = self.timestamp
        try:
            when = dt.datetime.fromisoformat(text)
        except ValueError:
            key = next((k for k in _TIME_KEYS if self.manifest.get(k)), "finished")
            raise DataError(f"{key!r} is {text!r}: expected an ISO 8601 time such as "
                            "2026-01-01T12:00:00+00:00", path=self.path / MANIFEST) from None
        return when if when.tzinfo is not None else when.replace(tzinfo=dt.timezone.utc)

    @property
    def profile(self) -> str:
        """The run's evaluation profile (config ``profile``, else ``evaluation.profile``, else ltrbench)."""
        cfg = self.config
        value = cfg.get("profile") or (cfg.get("evaluation") or {}).get("profile")
        return str(value) if value else DEFAULT_PROFILE

    def own_file(self, name: str) -> Path:
        """The path of the run's file ``name``; a symbolic link that leads out of the run
        directory is a :class:`DataError` naming it and its target: ltrbench writes no links,
        and through one a report would publish numbers another file holds (one its owner may
        change at any time, on a shared machine), under this run's name."""
        p = self.path / name
        if os.path.islink(p) and p.is_file():  # a link to a FIFO or device: has() names it
            real, top = os.path.realpath(p), os.path.realpath(self.path)
            if os.path.commonpath([real, top]) != top:
                raise DataError(f"is a symbolic link to {real!r}, outside the run directory: "
                                "ltrbench writes every file of a run in its folder and no "
                                "links; copy the file in, or leave this run out", path=p)
        return p

    def has(self, name: str) -> bool:
        """Whether the run holds the file ``name``; one that is there but is no regular file
        (a FIFO: a read blocks for ever; a folder, a device, a broken link) is a
        :class:`DataError` naming it: the run is damaged, never read as if the file were absent
        (a FIFO ``per_query.parquet`` or ``config.toml`` was passed over without a word); a
        link out of the run directory too (:meth:`own_file`)."""
        p = self.own_file(name)
        if p.is_file():
            return True
        if os.path.lexists(p) and self.path.is_dir():
            raise DataError(f"is not a regular file (a folder, FIFO, device or a broken link): "
                            f"expected the run's {name}; the run directory is damaged (changed "
                            "outside ltrbench): start a new run, or leave this run out", path=p)
        return False

    def table(self, name: str) -> pd.DataFrame:
        """Read ``name`` (csv or parquet), checking the columns its readers need and their
        values (:func:`bench.runs.layout.read_checked`)."""
        if name in self._cache:
            return self._cache[name]
        p = self.own_file(name)
        if not p.is_file() and not self.path.is_dir():  # listed, then deleted or moved
            raise DataError("the run directory is gone: it was removed or moved after it was "
                            "listed, while this command read the runs; run the command again",
                            path=self.path)
        if not p.is_file():
            raise DataError(f"missing run file (expected {name} in the run directory)", path=p)
        frame = read_checked(p)
        self._cache[name] = frame
        return frame

    def table_or_empty(self, name: str) -> pd.DataFrame:
        """Like :meth:`table`, but an absent file gives an empty frame with the table's columns."""
        if not self.has(name):
            return empty_table(name)
        return self.table(name)

    def datasets(self) -> list[str]:
        """Dataset names in ``metrics.csv`` (in order of appearance)."""
        metrics = self.table("metrics.csv")
        return [str(d) for d in pd.unique(metrics["dataset"].astype(str))]


def run_dataset_names(path: str | os.PathLike[str]) -> list[str]:
    """The dataset names of the run folder ``path`` that name its cross-check's folder
    (:func:`bench.runs.naming.crosscheck_folders`): ``metrics.csv``'s, and its config's; what
    cannot be read is skipped (the command that reads the run says why, later)."""
    try:
        run = RunDir(Path(path))
    except LtrbenchError:  # no run there: the output check comes first, the run's error later
        return []
    names: list[str] = []
    with contextlib.suppress(LtrbenchError, OSError, ValueError, KeyError):
        names += run.datasets() if run.has("metrics.csv") else []
    with contextlib.suppress(LtrbenchError, OSError, ValueError):
        ds = run.config.get("dataset")
        ds = ds.get("name") or ds.get("spec") if isinstance(ds, dict) else ds
        names += [str(ds)] if isinstance(ds, str) else []
    return names
