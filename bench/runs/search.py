"""Finding run directories under a folder."""

from __future__ import annotations

import datetime as dt
import os
import warnings
from pathlib import Path
from typing import Any

from bench.errors import ConfigError, DataError
from bench.runners.registry import models as models_by_name
from bench.runs.manifest import MANIFEST, read_manifest
from bench.runs.manifest_check import check_manifest
from bench.runs.models import gbdt_models, model_libraries
from bench.runs.naming import dataset_slug, run_order
from bench.runs.reader import RunDir


class DamagedRunWarning(UserWarning):
    """A run directory whose manifest cannot be read, passed over while looking for a run."""


def find_runs(root: str | Path) -> list[RunDir]:
    """Run directories under ``root``: ``root`` itself if it holds ``metrics.csv``, else its
    sub-folders that do, oldest first (by the instant :attr:`RunDir.moment`, then by run id as
    :func:`~bench.runs.naming.run_order` orders the runs of one second)."""
    root = Path(root)
    if _holds_metrics(root):  # a run named itself: its metrics.csv a FIFO is said, as below
        return [RunDir(root)]
    if not root.is_dir():
        raise DataError("runs folder not found", path=root)
    runs = [RunDir(p) for p in sorted(root.iterdir()) if _holds_metrics(p)]
    return sorted(runs, key=lambda r: (r.moment, run_order(r.run_id)))


def _holds_metrics(folder: Path) -> bool:
    """Whether ``folder`` is a run (its ``metrics.csv`` a regular file); a ``metrics.csv`` that
    is there but is a folder, FIFO, device or a link to one is a :class:`DataError` naming it,
    never a run passed over in silence (nor a read that blocks on a FIFO)."""
    table = folder / "metrics.csv"
    if folder.is_dir():  # a link out of the run directory is named (RunDir.own_file)
        RunDir(folder).own_file("metrics.csv")
    if table.is_file():
        return True
    if os.path.lexists(table) and folder.is_dir():
        raise DataError("is not a regular file (a folder, FIFO, device or a broken link): "
                        "expected the run's metrics table; the run directory is damaged: "
                        "remove it or move it out of the runs folder", path=table)
    return False


def latest_of_config(runs: Path, hashes: tuple[str, ...]) -> Path | None:
    """The most recently started run under ``runs`` of any config hash of ``hashes``, finished
    or not (``run --folds --resume``: a fold done is used again, one cut short goes on); an
    unfinished run is :func:`latest_unfinished`'s, a damaged one passed over as there."""
    found = []
    for h in hashes:
        if (d := latest_unfinished(runs, h)) is not None:
            found.append((_started(read_manifest(d), d) or _NEVER, run_order(d.name), d))
        found += [(when, run_order(d.name), d) for d, doc in _finished(runs, h)
                  if (when := _started(doc, d)) is not None]
    return max(found, key=lambda f: f[:2])[2] if found else None


_NEVER = dt.datetime.min.replace(tzinfo=dt.timezone.utc)


def _started(doc: dict[str, Any], run: Path) -> dt.datetime | None:
    """The manifest's ``started`` as an instant (a time without an offset is UTC, as
    :attr:`RunDir.moment` reads it), so that runs compare by the instant, not by the text
    (``10:00+05:30`` is 04:30 UTC, before ``05:00+00:00``); none is the earliest; one that is
    not an ISO 8601 time is ``None``, said in a :class:`DamagedRunWarning` (passed over)."""
    text = doc.get("started")
    if not text:
        return _NEVER
    try:
        when = dt.datetime.fromisoformat(str(text))
    except ValueError:
        warnings.warn(f"{run / MANIFEST}: 'started' is {text!r}, not an ISO 8601 time such as "
                      "2026-01-01T12:00:00+00:00 (passed over by --resume)", DamagedRunWarning,
                      stacklevel=3)
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=dt.timezone.utc)


def _finished(runs: Path, config_hash: str) -> list[tuple[Path, dict[str, object]]]:
    """The finished runs under ``runs`` of config ``config_hash`` with their manifests."""
    out = []
    for d in sorted(runs.iterdir()) if runs.is_dir() else []:
        try:
            doc = read_manifest(d) if (d / MANIFEST).is_file() else None
        except (DataError, ConfigError):
            continue  # said by latest_unfinished's pass
        if isinstance(doc, dict) and doc.get("config_hash") == config_hash \
                and doc.get("finished"):
            out.append((d, doc))
    return out


def latest_unfinished(runs: Path, config_hash: str) -> Path | None:
    """The most recently started run under ``runs`` of config ``config_hash`` that did not finish.

    A run whose manifest cannot be read (damaged: :func:`bench.runs.manifest.read_manifest`), or
    whose fields have other types than ltrbench writes (``"finished": 5`` is neither a time nor
    null, so the run is neither finished nor resumable:
    :func:`bench.runs.manifest_check.check_manifest`), is passed over with a
    :class:`DamagedRunWarning` naming it."""
    found = []
    if runs.is_dir():
        for d in runs.iterdir():
            if not (d / MANIFEST).is_file():
                continue
            try:
                doc = read_manifest(d)
                if doc.get("config_hash") == config_hash:  # this config's run: its fields checked
                    check_manifest(doc, d / MANIFEST)
            except (DataError, ConfigError) as exc:
                warnings.warn(f"{exc} (passed over by --resume)", DamagedRunWarning, stacklevel=2)
                continue
            if doc.get("config_hash") == config_hash and not doc.get("finished") \
                    and (when := _started(doc, d)) is not None:
                found.append((when, run_order(d.name), d))
    return max(found, key=lambda f: f[:2])[2] if found else None


class NoRunToResumeWarning(UserWarning):
    """``run --resume`` found no unfinished run of its config: a new run starts (said)."""


def no_run_to_resume(runs: Path, config_hash: str) -> str:
    """What ``run --resume`` says when :func:`latest_unfinished` found nothing: a new run
    starts, and the unfinished runs of other configs under ``runs`` are named (a config file
    edited between the first run and the resume has another hash: its run is left as it is)."""
    others = []
    if runs.is_dir():
        for d in sorted(runs.iterdir()):
            try:
                doc = read_manifest(d) if (d / MANIFEST).is_file() else None
            except (DataError, ConfigError):
                continue
            if isinstance(doc, dict) and not doc.get("finished") \
                    and doc.get("config_hash") != config_hash:
                others.append(f"{d} (config hash {doc.get('config_hash')})")
    text = (f"--resume: no unfinished run of this config (hash {config_hash}) in {runs}; a new "
            "run starts")
    if others:
        text += (f". Unfinished runs of another config there: {'; '.join(others[:5])}: its "
                 "config (or options) changed since; to go on with one as it was started, "
                 "give --resume RUN_DIR")
    return text


def _dataset_matches(run: RunDir, spec: str) -> bool:
    cfg = run.config.get("dataset")
    manifest_ds = run.manifest.get("dataset") or {}
    names = {str(cfg)} if cfg else set()
    if isinstance(manifest_ds, dict):
        names |= {str(manifest_ds[k]) for k in ("name", "spec") if manifest_ds.get(k)}
    if run.has("metrics.csv"):
        names |= set(run.datasets())
    return spec in names or dataset_slug(spec) in {dataset_slug(n) for n in names}


def find_matching_run(
    runs_dir: str | Path, dataset: str, models: tuple[str, ...] | None
) -> RunDir | None:
    """The most recent run under ``runs_dir`` of ``dataset`` with scores and labels for ``models``
    (every requested built-in GBDT model; any GBDT model when ``models`` is None).

    A requested name is a GBDT model when the registry says so
    (:func:`bench.runners.registry.models`); a run's model is one when the run records a GBDT
    library for it (:func:`bench.runs.models.model_libraries`: a user's model named
    ``lightgbm-mine`` is ``custom``). Records that disagree are a
    :class:`~bench.errors.DataError` naming the file."""
    root = Path(runs_dir)
    if not root.is_dir():
        return None
    known = models_by_name()
    wanted = {m for m in (models or ()) if m in known and known[m].is_gbdt}
    for run in reversed(find_runs(root)):
        if not (run.has("scores.parquet") and run.has("labels.parquet")):
            continue
        if not _dataset_matches(run, dataset):
            continue
        named = {str(m) for m in run.config.get("models") or []}
        if run.has("metrics.csv"):
            named |= {str(m) for m in run.table("metrics.csv")["model"].astype(str)}
        gbdt = gbdt_models(model_libraries(run, named))
        if (wanted and wanted <= gbdt) or (not wanted and gbdt):
            return run
    return None
