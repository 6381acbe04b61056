"""Reading a run directory: :class:`RunDir`, lazy and validated readers of its files.

A missing file gives an empty frame from :meth:`RunDir.table_or_empty` and a
:class:`~bench.errors.DataError` naming the file from :meth:`RunDir.table`; a file without a
column its readers need (:data:`bench.runs.layout.TABLES`) gives a
:class:`~bench.errors.DataError` naming the file and the missing columns.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.data.toml import read_toml
from bench.errors import ConfigError, DataError
from bench.metrics.profiles import DEFAULT_PROFILE
from bench.runs.layout import TABLES, TableSpec, empty_table
from bench.runs.manifest import MANIFEST

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
        p = self.path / MANIFEST
        if not p.is_file():
            return {}
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise DataError(f"not valid JSON: {exc.msg}", path=p, line=exc.lineno) from exc
        except UnicodeDecodeError as exc:
            raise DataError(f"not UTF-8 text (byte {exc.start}): expected the run's JSON "
                            "manifest", path=p) from exc
        if not isinstance(data, dict):
            raise DataError(f"expected a JSON object (the run's manifest), found a "
                            f"{type(data).__name__}", path=p)
        for key in ("finished", "started"):
            if data.get(key) is not None and not isinstance(data[key], str):
                raise DataError(f"{key!r} is {data[key]!r}: expected a time as ISO text "
                                "(e.g. 2026-01-01T00:00:00+00:00) or null", path=p)
        return data

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
    def profile(self) -> str:
        """The run's evaluation profile (config ``profile``, else ``evaluation.profile``, else ltrbench)."""
        cfg = self.config
        value = cfg.get("profile") or (cfg.get("evaluation") or {}).get("profile")
        return str(value) if value else DEFAULT_PROFILE

    def has(self, name: str) -> bool:
        return (self.path / name).is_file()

    def table(self, name: str) -> pd.DataFrame:
        """Read ``name`` (csv or parquet), checking the columns its readers need."""
        if name in self._cache:
            return self._cache[name]
        p = self.path / name
        if not p.is_file():
            raise DataError(f"missing run file (expected {name} in the run directory)", path=p)
        is_csv = not name.endswith(".parquet")
        try:
            if is_csv:
                _check_csv_shape(p)
                frame = pd.read_csv(p, skip_blank_lines=False)
                while len(frame) and frame.iloc[-1].isna().all():  # blank lines at the end
                    frame = frame.iloc[:-1]
            else:
                frame = pd.read_parquet(p)
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            if isinstance(exc, DataError):
                raise
            raise DataError(f"cannot read ({type(exc).__name__}: {exc}); the file is damaged: "
                            "run the benchmark again, or leave this run out", path=p) from exc
        spec = TABLES.get(name)
        required = spec.required if spec else ()
        missing = [c for c in required if c not in frame.columns]
        if missing:
            raise DataError(
                f"missing column(s) {', '.join(missing)}; expected at least {', '.join(required)}",
                path=p,
            )
        if spec is not None:
            frame = _checked_values(frame, p, spec, is_csv)
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


def _check_csv_shape(path: Path) -> None:
    """Refuse a run CSV whose last line has no line end (cut while written or copied: its last
    number may be cut too) or whose lines do not all have the header's number of fields."""
    import csv

    with open(path, "rb") as fh:
        fh.seek(0, 2)
        if fh.tell() == 0:
            raise DataError("empty file: expected a header line and rows", path=path)
        fh.seek(-1, 2)
        ends = fh.read(1) in (b"\n", b"\r")
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader, [])
        last = 1
        for fields in reader:
            last = reader.line_num
            if fields and len(fields) != len(header):
                raise DataError(f"{len(fields)} field(s) where the header has {len(header)} "
                                f"({', '.join(header)}): a damaged or truncated line",
                                path=path, line=reader.line_num)
    if not ends:
        raise DataError("truncated: the last line has no line end (the file was cut while "
                        "written or copied); run the benchmark again", path=path, line=last)


def _checked_values(frame: pd.DataFrame, path: Path, spec: TableSpec,
                    is_csv: bool) -> pd.DataFrame:
    """``frame`` with its numeric columns as numbers, or a :class:`DataError` naming the file,
    the line (CSV: header = line 1) or row (Parquet), the column and the value found. Columns
    already numeric are checked in place (no copy of a large scores table)."""

    def where(i: int) -> dict[str, int]:
        return {"line": i + 2} if is_csv else {"row": i + 1}

    for col in spec.required:
        blank = frame[col].isna()
        if col not in spec.numeric and blank.any():
            i = int(blank.to_numpy().argmax())
            raise DataError(f"empty {col!r}: every row needs one", path=path, column=col,
                            **where(i))
    changed: dict[str, pd.Series] = {}
    for col in spec.numeric:
        if col not in frame.columns:
            continue
        raw = frame[col]
        if pd.api.types.is_bool_dtype(raw):
            values = pd.Series(np.nan, index=raw.index)
        elif pd.api.types.is_numeric_dtype(raw):
            values = raw
        else:
            values = pd.to_numeric(raw, errors="coerce")
        bad = values.isna() & raw.notna()
        if col in spec.integers and not pd.api.types.is_integer_dtype(values):
            bad |= values.isna() | (values != np.floor(values))
        bad |= np.isinf(values.to_numpy(dtype=float, na_value=np.nan))
        if bad.any():
            i = int(bad.to_numpy().argmax())
            want = "a whole number" if col in spec.integers else "a finite number (or empty)"
            raise DataError(f"{col!r} is {raw.iloc[i]!r}: expected {want}", path=path,
                            column=col, **where(i))
        if values is not raw or (col in spec.integers
                                 and not pd.api.types.is_integer_dtype(values)):
            changed[col] = (values.astype(np.int64) if col in spec.integers
                            else values.astype(float))
    return frame.assign(**changed) if changed else frame
