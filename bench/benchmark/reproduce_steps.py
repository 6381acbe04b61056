"""The steps of ``ltrbench reproduce`` (:mod:`bench.benchmark.reproduce`) that every kind of
recorded document shares: comparing two run directories (:func:`compare_runs`) and two JSON
tables (:func:`compare_tables`), the tolerance of an environment, running a recorded config
again (:func:`rerun_compared`), and finding a run where a document names it (:func:`locate`:
read against the document's folder, nothing outside it). The documents' own readers --
:mod:`bench.benchmark.reproduce` (runs and leaderboards), :mod:`bench.benchmark.reproduce_tuned`
(tuned leaderboards) and :mod:`bench.benchmark.reproduce_folds` (fold tables) -- build on these.
"""

from __future__ import annotations

import math
import os
import shutil
import tempfile
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.benchmark.config import RunConfig
from bench.benchmark.config_hash import accepted_hashes
from bench.benchmark.pipeline import Loader, SplitWarning, run_benchmark
from bench.benchmark.progress import plain_lines
from bench.data.jsonio import json_number
from bench.errors import ConfigError, DataError
from bench.runs.layout import read_table
from bench.runs.manifest import compared_packages, environment
from bench.runs.manifest_check import read_run_manifest

CROSS_ENV_TOLERANCE = 1e-6
#: Tables compared between two run directories, with their key columns and value columns.
COMPARED: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "metrics.csv": (("dataset", "model", "seed", "split", "metric", "profile"), ("value",)),
    "per_query.parquet": (("dataset", "model", "seed", "split", "qid", "metric"), ("value",)),
    "scores.parquet": (("model", "seed", "split", "row"), ("score",)),
    "timings.csv": (("dataset", "model", "seed"), ("best_iteration", "n_trees")),
}
#: Leaderboard-table keys that differ between runs by nature.
_SKIP_KEYS = frozenset({"run_id", "run_dir", "run_config", "run_timestamp", "fit_s", "predict_s", "notes"})
_MAX_LISTED = 50


@dataclass
class Outcome:
    """The result of reproducing one recorded config."""

    source: str
    status: str  # "match", "mismatch", "skipped"
    reason: str = ""
    config: str = ""
    original_run: str = ""
    new_run: str = ""
    tolerance: float = 0.0
    tolerance_reason: str = ""
    compared: int = 0
    differences: list[dict[str, Any]] = field(default_factory=list)
    n_differences: int = 0
    #: False for a check that re-ran nothing (the rendered files against the JSON): it never
    #: makes a reproduction of nothing a success
    reran: bool = True

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "status": self.status,
            "reason": self.reason,
            "config": self.config,
            "original_run": self.original_run,
            "new_run": self.new_run,
            "tolerance": self.tolerance,
            "tolerance_reason": self.tolerance_reason,
            "compared": self.compared,
            "n_differences": self.n_differences,
            "differences": self.differences[:_MAX_LISTED],
        }


# --- Comparing ----------------------------------------------------------------------------


def compare_runs(original: str | Path, new: str | Path, *, tolerance: float = 0.0) -> tuple[int, list[dict[str, Any]]]:
    """Compare the tables of two run directories; returns ``(numbers compared, differences)``.

    A difference is ``{"file", "key", "column", "original", "reproduced", "abs_diff"}``; a row
    present on one side only is a difference with ``None`` on the other side. A table file the
    original run directory does not have (committed runs leave out ``scores.parquet``) is not
    compared.
    """
    original, new = Path(original), Path(new)
    compared = 0
    diffs: list[dict[str, Any]] = []
    fa, fb = _fingerprint(original), _fingerprint(new)
    if fa and fb:
        for split in sorted(set(fa) | set(fb)):
            compared += 1
            if fa.get(split) != fb.get(split):
                diffs.append({"file": "manifest.json", "key": f"dataset.fingerprint.{split}",
                              "column": "", "original": fa.get(split), "reproduced": fb.get(split),
                              "abs_diff": None})
    for name, (keys, values) in COMPARED.items():
        if not (original / name).is_file():
            # Not kept with the original run (committed run directories leave out the bulky,
            # re-derivable scores.parquet): nothing recorded to compare against.
            continue
        a, b = read_table(original / name), read_table(new / name)
        keys_present = [k for k in keys if k in a.columns and k in b.columns]
        for frame in (a, b):
            for k in keys_present:
                frame[k] = frame[k].astype(str)
        n, dup = _duplicate_rows(name, a, b, keys_present)
        compared, diffs = compared + n, diffs + dup
        a = a.drop_duplicates(keys_present, keep="first")
        b = b.drop_duplicates(keys_present, keep="first")
        merged = a.merge(b, on=keys_present, how="outer", suffixes=("_a", "_b"), indicator=True)
        for col in values:
            if f"{col}_a" not in merged.columns:
                continue
            va = pd.to_numeric(merged[f"{col}_a"], errors="coerce").to_numpy(dtype=np.float64)
            vb = pd.to_numeric(merged[f"{col}_b"], errors="coerce").to_numpy(dtype=np.float64)
            both = merged["_merge"].to_numpy() == "both"
            same = both & ((np.isnan(va) & np.isnan(vb)) | (np.abs(va - vb) <= tolerance))
            compared += int(both.sum())
            for i in np.flatnonzero(~same):
                diffs.append({
                    "file": name,
                    "key": {k: merged[k].iloc[i] for k in keys_present},
                    "column": col,
                    "original": None if merged["_merge"].iloc[i] == "right_only" else json_number(va[i]),
                    "reproduced": None if merged["_merge"].iloc[i] == "left_only" else json_number(vb[i]),
                    "abs_diff": json_number(abs(va[i] - vb[i])),
                })
    return compared, diffs


def _duplicate_rows(name: str, a: pd.DataFrame, b: pd.DataFrame,
                    keys: list[str]) -> tuple[int, list[dict[str, Any]]]:
    """A key that has more rows on one side than the other (a row duplicated by hand, or a
    table appended twice) is a difference: ``original`` and ``reproduced`` are the row counts.
    Returns ``(keys compared, differences)``; the rows are then compared once each."""
    if not keys:
        return 0, []
    ca, cb = a.groupby(keys, sort=False).size(), b.groupby(keys, sort=False).size()
    counts = pd.concat([ca.rename("a"), cb.rename("b")], axis=1).fillna(0).astype(int)
    repeated = counts[((counts["a"] > 1) | (counts["b"] > 1)) & (counts["a"] != counts["b"])]
    out = []
    for key, row in repeated.iterrows():
        values = key if isinstance(key, tuple) else (key,)
        out.append({"file": name, "key": dict(zip(keys, values, strict=True)),
                    "column": "rows with this key", "original": int(row["a"]),
                    "reproduced": int(row["b"]), "abs_diff": None})
    return len(out), out


def _fingerprint(run_dir: Path) -> dict[str, str]:
    """The data fingerprint ``run_dir``'s manifest records (none without a manifest; a damaged
    one is an error naming it, by the one check of :func:`_manifest_of`)."""
    manifest = _manifest_of(run_dir) or {}
    return dict((manifest.get("dataset") or {}).get("fingerprint") or {})


def compare_tables(stored: Any, rebuilt: Any, *, tolerance: float = 0.0, path: str = "") -> tuple[int, list[dict[str, Any]]]:
    """Compare two leaderboard tables (JSON values) recursively; numbers within ``tolerance``.

    Keys in :data:`_SKIP_KEYS` (times, run ids and paths) are not compared.
    """
    if isinstance(stored, dict) and isinstance(rebuilt, dict):
        n, diffs = 0, []
        for key in sorted(set(stored) | set(rebuilt), key=str):
            if key in _SKIP_KEYS:
                continue
            sub = f"{path}.{key}" if path else str(key)
            if key not in stored or key not in rebuilt:
                diffs.append({"file": "leaderboard", "key": sub, "column": "",
                              "original": stored.get(key), "reproduced": rebuilt.get(key), "abs_diff": None})
                continue
            k, d = compare_tables(stored[key], rebuilt[key], tolerance=tolerance, path=sub)
            n, diffs = n + k, diffs + d
        return n, diffs
    if isinstance(stored, list) and isinstance(rebuilt, list):
        if len(stored) != len(rebuilt):
            return 1, [{"file": "leaderboard", "key": path, "column": "", "original": len(stored),
                        "reproduced": len(rebuilt), "abs_diff": None}]
        n, diffs = 0, []
        for i, (x, y) in enumerate(zip(stored, rebuilt, strict=True)):
            k, d = compare_tables(x, y, tolerance=tolerance, path=f"{path}[{i}]")
            n, diffs = n + k, diffs + d
        return n, diffs
    if _is_number(stored) and _is_number(rebuilt):
        a, b = float(stored), float(rebuilt)
        same = (math.isnan(a) and math.isnan(b)) or abs(a - b) <= tolerance
        return 1, [] if same else [{"file": "leaderboard", "key": path, "column": "", "original": a,
                                    "reproduced": b, "abs_diff": abs(a - b)}]
    same = stored == rebuilt
    return 1, [] if same else [{"file": "leaderboard", "key": path, "column": "", "original": stored,
                                "reproduced": rebuilt, "abs_diff": None}]


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def environment_tolerance(manifest: dict[str, Any], threads: int) -> tuple[float, str]:
    """0.0 when this machine matches the manifest's environment, else :data:`CROSS_ENV_TOLERANCE`
    with what differs: another ltrbench version (its reference evaluator made the numbers) is
    named too, and a run without a manifest says that nothing recorded could be compared."""
    from bench import __version__

    if not manifest:
        return CROSS_ENV_TOLERANCE, ("no manifest.json: the environment, the data's fingerprint "
                                     "and the config's hash were not recorded, none compared")
    now = environment()
    was = manifest.get("environment") or {}
    differ = []
    if manifest.get("ltrbench_version") != __version__:  # not recorded: its evaluator unknown
        differ.append(f"ltrbench {manifest.get('ltrbench_version') or 'version not recorded'} "
                      f"-> {__version__}")
    for key in ("python", "machine", "cpu_model", "cpu_count"):  # BLAS/GBDT paths differ by CPU
        if was.get(key) != now.get(key):
            differ.append(f"{key} {was.get(key)} -> {now.get(key)}")
    differ.extend(_package_differs(was.get("packages"), now["packages"]))
    if manifest.get("threads") not in (None, threads):
        differ.append(f"threads {manifest.get('threads')} -> {threads}")
    differ.extend(_blas_differs(was, now))
    if differ:
        return CROSS_ENV_TOLERANCE, "environment differs (" + "; ".join(differ) + ")"
    return 0.0, "same environment: bit-identical expected"


def _package_differs(was: dict[str, Any] | None, now: dict[str, str]) -> list[str]:
    """``"<package> <recorded> -> <installed>"`` for each package of :func:`compared_packages`
    that differs; one recorded by neither side is passed over, one missing on one side is
    said as such ("not recorded", "not installed"), and a manifest without package versions
    (an older run) is one note, not a list of ``None``."""
    if not was:
        return ["package versions not recorded (none compared)"]
    out = []
    for pkg in compared_packages():
        a, b = was.get(pkg), now.get(pkg)
        if a != b:
            out.append(f"{pkg} {a or 'not recorded'} -> {b or 'not installed'}")
    return out


def _blas_differs(was: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """What differs in the BLAS kernels (:func:`bench.machine.blas_kernels`): a CPU of the
    same model name may run other kernels (AVX-512 ``SkylakeX`` or AVX2 ``Haswell``), which
    round a ratings conversion's SVD and ALS features differently. A manifest written before
    the kernels were recorded says so, with how to pick the kernel of the machine that made it
    (``OPENBLAS_CORETYPE``)."""
    mine = ", ".join(f"{b['internal_api']} {b['architecture']}" for b in now.get("blas") or [])
    if "blas" not in was:
        return [f"BLAS kernels not recorded (this machine: {mine or 'unknown'}; ltrbench "
                "commands run OPENBLAS_CORETYPE=Haswell on x86-64 with AVX2, the AVX2 kernels "
                "the committed tables were made with)"]
    theirs = ", ".join(f"{b.get('internal_api')} {b.get('architecture')}" for b in was["blas"])
    # one kernel family loaded once (numpy's OpenBLAS) or twice (and scipy's): the same kernels
    same = set(theirs.split(", ")) == set(mine.split(", "))
    return [] if same else [f"BLAS kernels {theirs or 'none'} -> {mine or 'none'} "
                                      "(OPENBLAS_CORETYPE picks OpenBLAS's)"]


# ------------------------------------------------------------------------------------------
# Reproducing
# ------------------------------------------------------------------------------------------


def check_tolerance(tolerance: float | None) -> float | None:
    """``tolerance`` once it is ``None`` or a finite number >= 0 (``nan`` makes every
    comparison false, so every number would "match"; a negative one makes every number
    differ)."""
    if tolerance is not None and not (math.isfinite(tolerance) and tolerance >= 0):
        raise ConfigError(f"--tolerance {tolerance}: expected a finite number >= 0 (the largest "
                          "absolute difference accepted)")
    return tolerance


def _manifest_of(run_dir: Path | None) -> dict[str, Any] | None:
    """The original run's manifest (a damaged one is an error naming it and the field:
    :func:`bench.runs.manifest_check.read_run_manifest`, the one check every reader of a
    manifest shares), or ``None`` when there is none to read."""
    if run_dir is None or not (run_dir / "manifest.json").is_file():
        return None
    return read_run_manifest(run_dir)


def _check_recorded(config: RunConfig, config_path: Path, manifest: dict[str, Any] | None) -> None:
    """Refuse a ``config.toml`` changed since the run: its hash is not the manifest's
    ``config_hash`` (the hash the run wrote, :meth:`RunConfig.config_hash`), so the config run
    again is not the one that made the numbers."""
    recorded = (manifest or {}).get("config_hash")
    if recorded and recorded not in accepted_hashes(config):  # an earlier run's spelling too
        raise ConfigError(f"{config_path}: edited after the run (its hash {config.config_hash()} "
                          f"is not the manifest's config_hash {recorded}); reproduce runs the "
                          "config that made the numbers: restore it, or start a new run")


def _rerun(config_path: Path, out_dir: Path, loader: Loader | None, progress: bool,
           manifest: dict[str, Any] | None,
           original: Path | None = None) -> tuple[RunConfig, Path]:
    """Run ``config_path`` again into ``out_dir``; a path dataset is found again from what the
    ``original`` run's ``manifest`` recorded (another working folder, a copied folder)."""
    config = RunConfig.load(config_path)
    _check_recorded(config, config_path, manifest)
    config = replace(config, crosscheck=False, permute_check=False, permute_retrain=False)
    say = plain_lines(progress, "reproduce")  # a CI log: one line per step, not minutes of nothing
    run = (original or config_path.parent).name
    if say is not None:
        say(f"re-running {run} ({config.dataset}: {len(config.models)} model(s) x "
            f"{len(config.seeds)} seed(s))")
    with warnings.catch_warnings():  # said when the run was made, and in its manifest: the
        warnings.simplefilter("ignore", SplitWarning)  # rerun prints only its comparison
        origin = (original or config_path.parent, manifest) if manifest else None
        new = run_benchmark(config, out_dir=out_dir, progress=progress, loader=loader,
                            origin=origin, lines=say)
    if say is not None:
        say(f"re-ran {run}: comparing its numbers")
    return config, new


def _inside(path: Path, base: Path) -> bool:
    """Whether ``path``, its links followed, lies in ``base`` (its links followed)."""
    real, top = Path(os.path.realpath(path)), Path(os.path.realpath(base))
    return real == top or top in real.parents


def locate(base: Path, value: Any, key: str, json_path: Path, *, file: str | None) -> Path | None:
    """``value`` (a table's ``run_config`` or ``run_dir``) as a path, read against ``base`` (the
    folder holding the leaderboard, never the working directory): a relative path may not climb
    out of it (``..``); an absolute one must name a run directory (with ``metrics.csv``; its
    ``config.toml`` when ``file``) -- a leaderboard cannot make reproduce read, or run,
    ``/etc/passwd``. ``None`` when it is absent."""
    if value is None or value == "":
        return None
    text = str(value)
    p = Path(text)
    cand = p if p.is_absolute() else base / p
    run = cand.parent if file else cand
    # a relative path through a link to a folder outside the leaderboard's is an absolute one
    away = p.is_absolute() or not _inside(run, base)
    if ".." in p.parts or (file and p.name != file) or (
            away and cand.exists() and not (run / "metrics.csv").is_file()):
        what = f"the {file} of a run directory" if file else "a run directory"
        raise DataError(f"{key} {text!r}: expected {what} beside the leaderboard (runs/<id>) or "
                        "an absolute path to one; it points outside the folder holding the "
                        "leaderboard or at another file", path=json_path)
    if not file and cand.exists() and not cand.is_dir():
        raise DataError(f"{key} {text!r}: a file, not a run directory (runs/<id>/ with "
                        "metrics.csv and config.toml)", path=json_path)
    return cand if cand.exists() else None


def _places(table: dict[str, Any], i: int, base: Path,
            json_path: Path) -> tuple[Path | None, Path | None]:
    """``(config, original run directory)`` of table ``i``, each ``None`` when absent; a path
    that points outside the leaderboard's folder is refused (:func:`locate`)."""
    run_id = table.get("run_id")
    if run_id is not None and (not isinstance(run_id, str) or run_id in ("", ".", "..")
                               or "/" in run_id or "\\" in run_id):
        raise DataError(f"tables[{i}].run_id {run_id!r}: expected the name of a run directory "
                        "(no path separators)", path=json_path)
    config_path = locate(base, table.get("run_config"), f"tables[{i}].run_config", json_path,
                          file="config.toml")
    if config_path is None and run_id:
        config_path = locate(base, f"runs/{run_id}/config.toml", f"tables[{i}].run_id",
                              json_path, file="config.toml")
    original = locate(base, table.get("run_dir"), f"tables[{i}].run_dir", json_path, file=None)
    if original is None and run_id:
        original = locate(base, f"runs/{run_id}", f"tables[{i}].run_id", json_path, file=None)
    _manifest_of(original)  # a damaged manifest is an error before anything runs
    return config_path, original


def rerun_compared(config_path: Path, original: Path | None, manifest: dict[str, Any] | None,
                   outcome: Outcome, out: Path, tolerance: float | None, loader: Loader | None,
                   progress: bool) -> Path:
    """Run ``config_path`` again into ``out``, add its comparison with ``original`` (if any) to
    ``outcome`` (tolerance: the largest of its runs'); the new run. A rerun's DataError propagates."""
    config, new = _rerun(config_path, out, loader, progress, manifest, original)
    tol, why = ((tolerance, "given") if tolerance is not None else
                environment_tolerance(manifest, config.resolved().params.resolved_threads())
                if manifest is not None else (CROSS_ENV_TOLERANCE, "original manifest "
                                              "not available"))
    outcome.tolerance, outcome.tolerance_reason = max(outcome.tolerance, tol), why
    if original is not None:
        n, diffs = compare_runs(original, new, tolerance=tol)
        outcome.compared, outcome.differences = outcome.compared + n, outcome.differences + diffs
    return new


class _out:
    """A results folder for the re-run: ``out_dir`` as given, else a temporary one removed afterwards."""

    def __init__(self, out_dir: str | Path | None) -> None:
        self.out_dir = out_dir
        self.tmp: str | None = None

    def __enter__(self) -> Path:
        if self.out_dir is not None:
            return Path(self.out_dir)
        self.tmp = tempfile.mkdtemp(prefix="ltrbench-reproduce-")
        return Path(self.tmp)

    def __exit__(self, *exc: object) -> None:
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
