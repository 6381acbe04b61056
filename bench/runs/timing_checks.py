"""The times and flags of a run's ``timings.csv``, checked where the table is read.

:func:`bench.runs.layout.read_checked` checks that the number columns hold numbers; a time
also has a sign and the busy flag a vocabulary. A negative fit, CPU or prediction time (or
load, memory, tree count), a ``contended`` flag that is not true or false, a ``fit_s_repeats``
cell that is not ``;``-separated seconds: each a :class:`~bench.errors.DataError` naming the file, the line
(header = line 1) and the column, never a figure printed from it (``-1.50`` s) nor a busy fit
counted as clean (``contended = yes`` was read as not busy).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from bench.errors import DataError

#: Columns of ``timings.csv`` that hold seconds, shares of the machine, megabytes or counts
#: (trees, the chosen iteration): never below zero.
NON_NEGATIVE = ("fit_s", "predict_s", "fit_cpu_s", "fit_s_min", "fit_s_max", "other_load",
                "steal_load", "peak_rss_mb", "best_iteration", "n_trees")
#: What the ``contended`` column may hold (any case); empty: not recorded.
FLAG_WORDS = {"true": True, "false": False, "1": True, "0": False, "1.0": True, "0.0": False}
_DAMAGED = "the file was changed outside ltrbench: start a new run, or leave this run out"


def busy_flag(value: Any, path: Path | None = None, line: int | None = None) -> bool | None:
    """``True`` / ``False`` for a ``contended`` cell, ``None`` when empty; else a DataError."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    word = str(value).strip().lower()
    if word == "":
        return None
    if word not in FLAG_WORDS:
        raise DataError(f"'contended' is {value!r}: expected true or false (whether the machine "
                        f"was busy during the fit); {_DAMAGED}", path=path, column="contended",
                        **({} if line is None else {"line": line}))
    return FLAG_WORDS[word]


def repeat_seconds(cell: Any, path: Path | None = None, line: int | None = None) -> list[float]:
    """The seconds of a ``fit_s_repeats`` cell (``"1.25;1.3"``); a DataError for a part that is
    not a finite number of seconds at least 0."""
    out = []
    for part in str(cell).split(";"):
        try:
            x = float(part)
        except ValueError:
            x = math.nan
        if not (math.isfinite(x) and x >= 0):
            raise DataError(f"'fit_s_repeats' holds {part.strip()!r} in {str(cell)!r}: expected "
                            f"';'-separated seconds, each a finite number >= 0; {_DAMAGED}",
                            path=path, column="fit_s_repeats",
                            **({} if line is None else {"line": line}))
        out.append(x)
    return out


def check_timings(frame: pd.DataFrame, path: Path) -> None:
    """Every time of ``timings.csv`` at least 0, every flag true/false, every repeats cell
    seconds (module docstring); the frame's number columns are numbers already."""
    for col in NON_NEGATIVE:
        if col not in frame.columns:
            continue
        values = pd.to_numeric(frame[col], errors="coerce")
        bad = (values < 0).to_numpy()
        if bad.any():
            i = int(bad.argmax())
            raise DataError(f"{col!r} is {values.iloc[i]!r}: expected a number >= 0 (a time, a "
                            f"share of the machine, a size or a count); {_DAMAGED}", path=path,
                            column=col, line=i + 2)
    if "contended" in frame.columns:
        for i, v in enumerate(frame["contended"].tolist()):
            busy_flag(v, path, i + 2)
    if "fit_s_repeats" in frame.columns:
        for i, v in enumerate(frame["fit_s_repeats"].tolist()):
            if not (v is None or (isinstance(v, float) and math.isnan(v))):
                repeat_seconds(v, path, i + 2)


def busy_count(timings: pd.DataFrame) -> int | None:
    """How many rows of ``timings`` were timed on a busy machine (``contended`` true); ``None``
    when none is known busy and some row did not record the load (unknown, not "clean"): one
    busy seed beside one unrecorded seed is 1, not unknown."""
    if "contended" not in timings.columns:
        return None
    flags = [busy_flag(v) for v in timings["contended"].tolist()]
    busy = sum(1 for f in flags if f)
    return None if busy == 0 and None in flags else busy


def fmt_seconds(x: float) -> str:
    """Seconds as every table prints them: two decimals; a nonzero time that two decimals would
    show as ``0.00`` with two significant digits (``0.004``, ``4e-07``), so that no fit that
    took time reads as free; three significant digits from a million seconds on (a time of
    1e300 s is ``1e+300``, not a 301-digit cell)."""
    if abs(x) >= 1e6:
        return f"{x:.3g}"
    if x != 0 and abs(x) < 0.005:
        return f"{x:.2g}"
    return f"{x:.2f}"
