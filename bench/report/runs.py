"""Reading a run directory ``results/runs/<run-id>/`` (the layout the runners write).

Files and the columns this reader needs (extra columns are ignored)::

    config.toml          resolved config (dataset spec, models, seeds, profile, quick, ...)
    manifest.json        versions, seeds, timestamps (``finished``/``started``, any spelling below)
    metrics.csv          dataset, model, library, seed, split, metric, value, profile
    per_query.parquet    dataset, model, seed, split, qid, metric, value      (default profile)
    timings.csv          dataset, model, library, seed, fit_s, predict_s, ...
    evallog.csv          model, seed, iteration, split, metric, value         (library eval log)
    scores.parquet       model, seed, split, row, score
    labels.parquet       split, row, qid, label

A missing file gives an empty frame from the ``*_or_empty`` readers and a
:class:`~bench.errors.DataError` naming the file from the strict ones; a file without a needed
column gives a :class:`~bench.errors.DataError` naming the file and the missing columns.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

from bench.data.toml import read_toml
from bench.errors import ConfigError, DataError

COLUMNS: dict[str, tuple[str, ...]] = {
    "metrics.csv": ("dataset", "model", "seed", "split", "metric", "value"),
    "per_query.parquet": ("model", "seed", "split", "qid", "metric", "value"),
    "timings.csv": ("model", "seed", "fit_s"),
    "evallog.csv": ("model", "seed", "iteration", "split", "metric", "value"),
    "scores.parquet": ("model", "seed", "split", "row", "score"),
    "labels.parquet": ("split", "row", "qid", "label"),
}

# Timestamp keys looked up in manifest.json, most specific first.
_TIME_KEYS = ("finished", "finished_at", "finished_utc", "started", "started_at", "started_utc")


def dataset_slug(name: str) -> str:
    """A folder name for a dataset: the last path component of a path spec, unsafe characters → '-'.

    ``"/data/letor/OHSUMED/"`` → ``"OHSUMED"``; ``"ml-latest-small"`` stays as it is.
    """
    text = str(name).strip().rstrip("/\\")
    if "/" in text or "\\" in text:
        text = re.split(r"[/\\]", text)[-1]
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")
    return slug or "dataset"


def library_of(model: str) -> str:
    """Library of a model name: the prefix before the first '-' (``lightgbm-lambdarank`` → lightgbm)."""
    return str(model).split("-", 1)[0]


@dataclass
class RunDir:
    """A run directory and lazy, validated readers for its files."""

    path: Path
    _cache: dict[str, pd.DataFrame] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.path = Path(self.path)
        if not self.path.is_dir():
            raise DataError("run directory not found", path=self.path)

    @property
    def run_id(self) -> str:
        return self.path.name

    @property
    def config_path(self) -> Path:
        return self.path / "config.toml"

    @cached_property
    def config(self) -> dict[str, Any]:
        """The resolved config (empty dict when ``config.toml`` is absent)."""
        if not self.config_path.is_file():
            return {}
        try:
            return read_toml(self.config_path)
        except ConfigError as exc:  # the file exists, so this is a syntax error
            cause = exc.__cause__ or exc
            raise DataError(f"not valid TOML: {cause}", path=self.config_path) from cause

    @cached_property
    def manifest(self) -> dict[str, Any]:
        """The manifest (empty dict when ``manifest.json`` is absent)."""
        p = self.path / "manifest.json"
        if not p.is_file():
            return {}
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise DataError(f"not valid JSON: {exc.msg}", path=p, line=exc.lineno) from exc
        return data if isinstance(data, dict) else {}

    @property
    def timestamp(self) -> str:
        """Finish (else start) time from the manifest as text, else the directory's mtime (ISO)."""
        for key in _TIME_KEYS:
            value = self.manifest.get(key)
            if value:
                return str(value)
        import datetime as _dt

        mtime = self.path.stat().st_mtime
        return _dt.datetime.fromtimestamp(mtime, tz=_dt.timezone.utc).isoformat()

    @property
    def profile(self) -> str:
        """The run's evaluation profile (config ``profile``, else ``evaluation.profile``, else ltrbench)."""
        cfg = self.config
        value = cfg.get("profile") or (cfg.get("evaluation") or {}).get("profile")
        return str(value) if value else "ltrbench"

    def has(self, name: str) -> bool:
        return (self.path / name).is_file()

    def table(self, name: str) -> pd.DataFrame:
        """Read ``name`` (csv or parquet), checking the columns listed in :data:`COLUMNS`."""
        if name in self._cache:
            return self._cache[name]
        p = self.path / name
        if not p.is_file():
            raise DataError(f"missing run file (expected {name} in the run directory)", path=p)
        try:
            frame = pd.read_parquet(p) if name.endswith(".parquet") else pd.read_csv(p)
        except (OSError, ValueError) as exc:
            raise DataError(f"cannot read: {exc}", path=p) from exc
        missing = [c for c in COLUMNS.get(name, ()) if c not in frame.columns]
        if missing:
            raise DataError(
                f"missing column(s) {', '.join(missing)}; expected at least "
                f"{', '.join(COLUMNS[name])}",
                path=p,
            )
        self._cache[name] = frame
        return frame

    def table_or_empty(self, name: str) -> pd.DataFrame:
        """Like :meth:`table`, but an absent file gives an empty frame with the needed columns."""
        if not self.has(name):
            return pd.DataFrame({c: [] for c in COLUMNS.get(name, ())})
        return self.table(name)

    def datasets(self) -> list[str]:
        """Dataset names in ``metrics.csv`` (in order of appearance)."""
        metrics = self.table("metrics.csv")
        return [str(d) for d in pd.unique(metrics["dataset"].astype(str))]


def find_runs(root: str | Path) -> list[RunDir]:
    """Run directories under ``root``: ``root`` itself if it holds ``metrics.csv``, else its
    sub-folders that do, oldest first (by :attr:`RunDir.timestamp`, then name)."""
    root = Path(root)
    if (root / "metrics.csv").is_file():
        return [RunDir(root)]
    if not root.is_dir():
        raise DataError("runs folder not found", path=root)
    runs = [RunDir(p) for p in sorted(root.iterdir()) if (p / "metrics.csv").is_file()]
    return sorted(runs, key=lambda r: (r.timestamp, r.run_id))
