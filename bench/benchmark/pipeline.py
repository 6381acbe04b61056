"""``run_benchmark``: train every (model, seed), evaluate, and write ``<out>/runs/<run-id>/``.

The files and their columns are :mod:`bench.runs.layout`'s. After each (model, seed) the rows of
that pair replace any earlier rows of the same pair in every table, then its status file is
written. ``resume=True`` reopens the latest unfinished run of the same config (same
:meth:`RunConfig.config_hash` and the same input files) and skips every pair with a status file.

A custom model (:mod:`bench.runners.custom`) whose ``fit`` or ``predict`` raises does not stop
the run: the failure is recorded in the manifest under ``failures`` (no status file, so a resumed
run tries that pair again), the other pairs are trained and written, and the run then raises
:class:`~bench.runners.custom.CustomModelFailure` naming the model, the factory and the run
directory.
"""

from __future__ import annotations

import contextlib
import dataclasses
import shutil
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bench.benchmark.config import RunConfig
from bench.benchmark.config_hash import accepted_hashes
from bench.benchmark.config_unused import seeds_change_no_custom_model
from bench.benchmark.progress import Advance, heartbeat, progress_bar, with_lines
from bench.benchmark.record import FitTiming, labels_frame, pair_status, pair_tables, start_manifest
from bench.benchmark.scoring import check_scorable
from bench.data.atomic import write_text
from bench.data.letor import LetorSplits
from bench.data.split_checks import (
    SplitFinding,
    check_given_features,
    check_same_features,
    check_splits,
)
from bench.datasets.catalogue import DatasetSpec
from bench.datasets.recorded import changed_inputs, locate_recorded, path_record
from bench.datasets.resolve import load_dataset, resolve_spec
from bench.engines import ClusterOptions, get_engine
from bench.errors import ConfigError, DataError, LtrbenchError
from bench.runners.custom import CustomModelFailure, check_custom_model
from bench.runners.device import check_device, describe_devices
from bench.runners.dispatch import run_model
from bench.runners.registry import ModelSpec
from bench.runners.result import EVAL_SPLITS, FitResult, NotApplicable, check_splits_distinct
from bench.runs import layout
from bench.runs.layout import LOCAL_RESULTS
from bench.runs.lock import writer_lock
from bench.runs.manifest import (
    Manifest,
    ManifestWriter,
    dataset_fingerprint,
    now,
    version_changes,
)
from bench.runs.manifest_check import RESUME_FIELDS, read_run_manifest
from bench.runs.naming import new_run_dir
from bench.runs.search import NoRunToResumeWarning, latest_unfinished, no_run_to_resume

Loader = Callable[..., LetorSplits]
#: ``run_model`` or an isolated trainer with its signature.
Train = Callable[..., FitResult]


def run_benchmark(
    config: RunConfig,
    *,
    out_dir: str | Path | None = None,
    resume: bool | str | Path = False,
    progress: bool = True,
    splits: LetorSplits | None = None,
    loader: Loader | None = None,
    origin: tuple[Path, dict[str, Any]] | None = None,
    lines: Callable[[str], None] | None = None,
) -> Path:
    """Run ``config`` and return the run directory ``<out_dir>/runs/<run-id>/``.

    ``config`` was validated completely when it was made (profile, metrics, models, selection),
    so nothing here fails on a config after data are loaded. ``resume``: ``True`` continues the
    latest unfinished run of this config under ``out_dir`` (a new run if there is none); a path
    continues that run directory. ``splits`` skips dataset loading (programmatic use; the
    manifest then records ``splits.inputs`` as given). ``loader(spec, data_dir=...)`` replaces
    :func:`bench.datasets.resolve.load_dataset`. ``origin`` (a run directory and its manifest:
    the run ``reproduce`` runs again; a resumed run is its own): a path dataset is found again
    from what that run recorded (:func:`bench.datasets.recorded.locate_recorded`). ``lines``:
    where no bar is drawn, one plain line per finished model and seed (``reproduce`` in a log).
    """
    config = config.resolved()
    out_dir = results_folder(out_dir, resume)
    pairs = [(m, s) for m in config.models for s in config.seeds]
    specs = {m: config.model_spec(m) for m in config.models}
    gbdt_libraries = {s.library for s in specs.values() if s.is_gbdt}
    _check_before_data(config, gbdt_libraries)
    given = splits is not None or loader is not None  # not checked by the dataset loader
    with progress_bar(progress, len(pairs)) as bar, contextlib.ExitStack() as held:
        advance = with_lines(bar, lines, len(pairs))
        resumed = _resumed_run(config, Path(out_dir), resume, held)  # locked, read once
        where: DatasetSpec | None = None
        if splits is None:
            advance(f"loading {config.dataset}", 0)
            found = resumed if resumed is not None else origin
            text = config.dataset if found is None else locate_recorded(
                config.dataset, found[1].get("dataset"), found[0])
            where = resolve_spec(text) if loader is None else None
            splits = load_splits(where or text, data_dir=config.data_dir, loader=loader,
                                 cache=config.cache, progress=lambda text: advance(text, 0))
        if config.name:  # the display name the user chose (``--name``, ``name =``)
            splits = dataclasses.replace(splits, name=config.name)
        checked = _check_splits(config, splits, gbdt_libraries, given=given)
        run_dir, manifest = _open_run_dir(config, splits, Path(out_dir), resumed, held, checked,
                                          where)
        todo = [(m, s) for m, s in pairs if not layout.status_path(run_dir, m, s).is_file()]
        kept = None if todo or resumed is None else resumed[1].get("finished")
        train, trainer = _open_trainer(config, splits, run_dir, manifest, advance, bool(todo))
        try:
            failures = _train_pairs(config, splits, run_dir, manifest, specs, pairs, todo,
                                    train, advance)
        finally:
            if trainer is not None and (completed := trainer.close()):
                manifest.change(**completed)  # the engine closed: its record completed
        after_done = False
        try:
            _after_training(config, splits, run_dir, manifest, specs, Path(out_dir), advance)
            after_done = True
        finally:  # the pairs' status written once; finished only once the checks after
            # training ran: a run stopped in them (the cross-check) is unfinished, and
            # --resume runs the checks again instead of starting a new run
            _finish_manifest(manifest, config, checked=after_done, kept=kept)
        advance(f"done: {run_dir.name}", 0)
    if failures:
        error = CustomModelFailure(
            "; ".join(failures.values()) + f". The other models' results are in {run_dir} "
            "(a resumed run trains the failed pairs again)")
        error.run_dir = run_dir
        raise error
    return run_dir


def _check_before_data(config: RunConfig, gbdt_libraries: set[str]) -> None:
    """What fails without data fails before any is loaded: the device (never a silent CPU
    run), tables the run does not use (warned), a factory that builds no ranker."""
    check_device(config.device, gbdt_libraries)
    for text in config.unused():  # said, not dropped without a word
        warnings.warn(text, ConfigWarning, stacklevel=3)
    seedless = [m for m in config.models if m in config.custom_models
                and not check_custom_model(config.custom_models[m], config.seeds[0])]
    for text in seeds_change_no_custom_model(config.seeds, seedless):
        warnings.warn(text, ConfigWarning, stacklevel=3)


def _check_splits(config: RunConfig, splits: LetorSplits,
                  gbdt_libraries: set[str], *, given: bool = False) -> dict[str, Any]:
    """The splits' checks before training (same width, finite features where the splits were
    ``given`` in Python, distinct, scorable under the profile, the findings of
    :func:`_split_findings`) and what the manifest records of them."""
    check_same_features(splits)
    if given:
        check_given_features(splits)
    check_splits_distinct(splits)
    check_scorable([(s, getattr(splits, s)) for s in EVAL_SPLITS], metrics=config.metrics,
                   profile=config.profile_value)
    findings = _split_findings(splits, strict=config.strict)
    return {"split_checks": [f.as_dict() for f in findings],
            "device": describe_devices(config.device, gbdt_libraries)}


def _open_trainer(config: RunConfig, splits: LetorSplits, run_dir: Path, manifest: ManifestWriter,
                  advance: Advance, needed: bool) -> tuple[Train, Any]:
    """``(train, trainer)``: how each pair is trained (:func:`run_model`, the isolated trainer
    or the engine's) and the trainer to close afterwards (``None`` for in-process training)."""
    if config.timing == "isolated" and needed:
        from bench.benchmark.isolated import IsolatedTrainer

        advance("writing the splits for isolated training", 0)
        isolated = IsolatedTrainer(splits, run_dir / ".isolated")
        return isolated, isolated
    if needed and (engine := get_engine(config.engine)).trainer is not None:
        advance(f"starting the {engine.title} engine (shards, cluster)", 0)
        trainer = engine.open_trainer(splits, run_dir / f".{engine.name}", ClusterOptions(
            scheduler=config.scheduler, workers=config.workers))
        manifest.change(**trainer.record())  # the engine started
        return trainer, trainer
    return run_model, None


def _train_pairs(config: RunConfig, splits: LetorSplits, run_dir: Path, manifest: ManifestWriter,
                 specs: dict[str, ModelSpec], pairs: list[tuple[str, int]],
                 todo: list[tuple[str, int]], train: Train, advance: Advance) -> dict[str, str]:
    """Train every (model, seed) not done earlier; a user's model that fails is recorded and
    the other pairs go on. Returns this attempt's failures (the start or reopen cleared any
    earlier ones)."""
    failures: dict[str, str] = {}
    for model, seed in pairs:
        if (model, seed) not in todo:
            advance(f"{model} seed {seed}: done earlier", 1)
            continue
        try:
            _run_pair(config, splits, run_dir, specs[model], seed, advance, train)
        except CustomModelFailure as exc:  # the user's code: the other pairs go on
            failures[layout.status_key(model, seed)] = str(exc)
            manifest.change(failures=dict(failures))
            advance(f"{model} seed {seed}: failed", 1)
    return failures


def _after_training(config: RunConfig, splits: LetorSplits, run_dir: Path, manifest: ManifestWriter,
                    specs: dict[str, ModelSpec], out_dir: Path, advance: Advance) -> None:
    """The permute check (when asked) and the cross-check (or why it does not apply)."""
    if config.permute_check:
        from bench.benchmark.permute import permute_check_run

        advance("permute check", 0)
        permute_check_run(run_dir, splits, config=config, retrain=config.permute_retrain)
    custom = [m for m in config.models if m in config.custom_models]
    if config.crosscheck and any(s.is_gbdt for s in specs.values()):
        advance("cross-check", 0)
        _crosscheck(manifest, out_dir, custom)
    elif config.crosscheck:  # a check that does not apply is not a failure
        from bench.crosscheck.run import NOT_APPLICABLE

        manifest.change(crosscheck={
            "ok": None, "skipped": "no LightGBM/XGBoost/CatBoost model in this run: no built-in "
                                   "metric to check", "errors": [],
            "not_applicable": {c: NOT_APPLICABLE for c in custom}})


def load_splits(
    spec: str | DatasetSpec,
    *,
    data_dir: str | None = None,
    loader: Loader | None = None,
    cache: bool = True,
    progress: Callable[[str], None] | None = None,
) -> LetorSplits:
    """The dataset ``spec`` through ``loader(spec, data_dir=...)`` (given the text) or
    :func:`bench.datasets.resolve.load_dataset` (with the parsed-file cache unless ``cache`` is
    false, and ``progress`` told what a long read is doing). The text is parsed once, here
    (:func:`bench.datasets.resolve.resolve_spec`), and the loaders below get the
    :class:`~bench.datasets.catalogue.DatasetSpec`. Splits of different widths, or without any
    feature, are refused here for ``tune`` as for ``run`` (:func:`check_same_features`)."""
    if loader is not None:
        splits = loader(spec.text if isinstance(spec, DatasetSpec) else spec, data_dir=data_dir)
    else:
        splits = load_dataset(resolve_spec(spec), data_dir=data_dir, cache=cache,
                              progress=progress)
    check_same_features(splits)
    return splits


def _run_pair(
    config: RunConfig,
    splits: LetorSplits,
    run_dir: Path,
    spec: ModelSpec,
    seed: int,
    advance: Advance,
    train: Train,
) -> None:
    """Train ``spec`` (resolved once, when the config was made) for ``seed``, evaluate it and
    write its rows and status."""
    model = spec.name
    custom = {"custom": config.custom_models[model]} if model in config.custom_models else {}
    fits = []
    result = None
    try:
        for repeat in range(config.timing_repeats):
            step = "" if config.timing_repeats == 1 else f" {repeat + 1}/{config.timing_repeats}"
            advance(f"{model} seed {seed}: training{step}", 0)
            params = config.params_for(model, seed)
            beat = _heartbeat(train, spec, advance, f"{model} seed {seed}{step}", params.n_trees,
                              config)
            again = train(
                spec,
                splits,
                params,
                seed=seed,
                eval_at=config.eval_at,
                selection=config.selection,
                log_train=config.log_train,
                als=config.als,
                **custom,
                **beat,
            )
            if result is not None:
                _check_same_model(result, again)
            result = again
            fits.append(again.fit)
    except NotApplicable as exc:
        body = {"status": "skipped", "library": spec.library, "reason": str(exc)}
        layout.write_status(run_dir, model, seed, body, finished=now())
        advance(f"{model} seed {seed}: skipped ({exc})", 1)
        return
    assert result is not None
    timing = FitTiming.of(config.timing, fits, result.fit_s)
    advance(f"{model} seed {seed}: evaluating", 0)
    tables = pair_tables(config, splits, result, timing)
    advance(f"{model} seed {seed}: writing", 0)
    for name, frame in tables.items():
        layout.upsert_pair(run_dir / name, frame, model, seed)
    layout.write_status(
        run_dir, model, seed, pair_status(result, spec.objective, timing), finished=now()
    )
    advance(f"{model} seed {seed}: done", 1)


def _heartbeat(train: Train, spec: ModelSpec, advance: Advance, prefix: str, n_trees: int,
               config: RunConfig) -> dict[str, Any]:
    """``{"on_iteration": hook}`` for a GBDT fit in this process or the isolated child (the
    progress line's heartbeat, :func:`bench.benchmark.progress.heartbeat`); nothing for other
    models and the engines' trainers (they take no hook)."""
    if not (train is run_model or getattr(train, "takes_hook", False)) or not spec.is_gbdt:
        return {}
    return {"on_iteration": heartbeat(advance, prefix, total=n_trees,
                                      metric=config.selection.metric)}


def _check_same_model(first: FitResult, again: FitResult) -> None:
    """Repeated fits of one (model, seed) must give the same scores: a timing repeat may not
    change a number (both libraries are deterministic for a fixed seed and thread count)."""
    for split, scores in first.scores.items():
        if not np.array_equal(scores, again.scores[split]):
            raise LtrbenchError(
                f"{first.model} seed {first.seed}: a repeated fit gave other {split} scores; "
                "timing repeats need a deterministic model (fix the seed and thread count)"
            )


def _split_findings(splits: LetorSplits, *, strict: bool) -> list[SplitFinding]:
    """:func:`bench.data.split_checks.check_splits`: warnings, or with ``strict`` an error."""
    findings = check_splits(splits)
    warned = [f for f in findings if f.level == "warning"]
    if warned and strict:
        raise DataError(f"dataset {splits.name!r}: the split checks found "
                        + "; ".join(f"[{f.code}] {f.message}" for f in warned)
                        + " (--strict; without it these are warnings)")
    for f in warned:
        warnings.warn(f"dataset {splits.name!r} [{f.code}]: {f.message}", SplitWarning,
                      stacklevel=3)
    return findings


class ConfigWarning(UserWarning):
    """A config value that the run does not use (said, as the run goes on)."""


class SplitWarning(UserWarning):
    """A split check's finding (:mod:`bench.data.split_checks`) in a run without ``strict``."""


def results_folder(out_dir: str | Path | None, resume: bool | str | Path = False) -> Path:
    """The results folder of a run: ``out_dir`` when given, else the folder a resumed run
    directory lies in (``<folder>/runs/<run-id>``), else ``results/local``.

    Checked before any data are loaded: a resumed run directory must hold a manifest (read, and
    its fields checked, once, by :func:`run_benchmark` under the run's lock, also before any
    data), and as its cross-check and report files belong beside it, an ``out_dir`` other than
    the run's own folder is refused instead of splitting the run's outputs between two folders.
    """
    home = None
    if isinstance(resume, str | Path) and not isinstance(resume, bool):
        if not (Path(resume) / "manifest.json").is_file():
            raise ConfigError(f"{resume}: not a run directory (no manifest.json); cannot resume")
        run_dir = Path(resume).resolve()
        home = run_dir.parent.parent if run_dir.parent.name == "runs" else run_dir.parent
    if out_dir is None:
        return home if home is not None else Path(LOCAL_RESULTS)
    if home is not None and Path(out_dir).resolve() != home:
        raise ConfigError(f"--resume {resume}: that run lies in the results folder {home}, and "
                          f"--out {out_dir} would put its cross-check in another folder; leave "
                          f"--out out (or give --out {home})")
    return Path(out_dir)


def _resumed_run(config: RunConfig, out_dir: Path, resume: bool | str | Path,
                 held: contextlib.ExitStack) -> tuple[Path, dict[str, Any]] | None:
    """The run directory a resume continues (``resume`` a path, or ``True``: the latest
    unfinished run of this config under ``out_dir``; ``None`` for a new run), with its writer
    lock entered into ``held`` and its manifest read and checked once: before any data are
    loaded, so a damaged manifest or a second writer is said at once, and under the lock, so
    what is checked later (config, inputs, dataset, user code) is what the run goes on from."""
    run_dir: Path | None = None
    if isinstance(resume, str | Path) and not isinstance(resume, bool):
        run_dir = Path(resume)  # a run directory: checked by results_folder
    elif resume:
        run_dir = next((d for h in accepted_hashes(config)  # an earlier run's spelling too
                        if (d := latest_unfinished(out_dir / "runs", h)) is not None), None)
        if run_dir is None:  # said: an edited config file has another hash
            warnings.warn(no_run_to_resume(out_dir / "runs", config.config_hash()),
                          NoRunToResumeWarning, stacklevel=3)
    if run_dir is None:
        return None
    held.enter_context(writer_lock(run_dir))  # one writer per run directory
    return run_dir, read_run_manifest(run_dir, required=RESUME_FIELDS)


def _open_run_dir(config: RunConfig, splits: LetorSplits, out_dir: Path,
                  resumed: tuple[Path, dict[str, Any]] | None, held: contextlib.ExitStack,
                  checked: dict[str, Any],
                  where: DatasetSpec | None = None) -> tuple[Path, ManifestWriter]:
    """The run directory (new, or the one resumed: :func:`_resumed_run`), with its writer lock
    entered into ``held`` before anything in it is touched (:mod:`bench.runs.lock`), and the
    writer of its manifest, written once: started (or reopened) with the split checks and
    devices ``checked``, and where a path dataset ``where`` lies (:func:`path_record`)."""
    chash = config.config_hash()
    if resumed is not None:
        run_dir, recorded = resumed
        _check_resumable(run_dir, recorded, chash, splits, config)
        # the tables checked before the manifest is reopened: a resume refused for a damaged
        # table (exit 2) left a finished run unfinished (finished = null), and report skips those
        layout.ensure_tables(run_dir, labels_frame(splits))
        manifest = ManifestWriter(run_dir, Manifest.from_dict(recorded))
        manifest.change(resumed=[*(manifest.manifest.resumed or []), now()], finished=None,
                        failures=None, **checked)
        return run_dir, manifest
    run_dir = new_run_dir(out_dir / "runs", config.name or config.dataset, chash)
    held.enter_context(writer_lock(run_dir))
    try:
        write_text(run_dir / "config.toml", config.to_toml(
            header=f"ltrbench run config (resolved); run {run_dir.name}; hash {chash}"))
        started = start_manifest(config, splits, run_dir.name, **checked)
        if where is not None:
            started.dataset.update(path_record(where, run_dir))
        manifest = ManifestWriter(run_dir, started)
        manifest.write()
    except BaseException:  # no manifest: a folder --resume never finds and report refuses
        shutil.rmtree(run_dir, ignore_errors=True)
        raise
    layout.ensure_tables(run_dir, labels_frame(splits))
    return run_dir, manifest


def _check_resumable(run_dir: Path, manifest: dict[str, Any], chash: str, splits: LetorSplits,
                     config: RunConfig) -> None:
    """``manifest`` (the run's, as read once) against the run about to go on: the same config,
    input files, dataset and user code."""
    if manifest.get("config_hash") not in (chash, *accepted_hashes(config)):
        raise ConfigError(
            f"{run_dir}: the config differs from the one its manifest.json records (hash "
            f"{manifest.get('config_hash')} there, {chash} now): the run's config.toml was "
            "edited since it started, or another config or options were given; resume it with "
            "its own config.toml as written, or start a new run"
        )
    recorded = (manifest.get("dataset") or {}).get("inputs") or {}
    changed = changed_inputs(recorded, splits.inputs) if recorded and splits.inputs else []
    if changed:
        raise ConfigError(f"{run_dir}: the input files changed since the run started: "
                          f"{'; '.join(changed[:5])}; start a new run")
    fingerprint = (manifest.get("dataset") or {}).get("fingerprint")
    if fingerprint and fingerprint != dataset_fingerprint(splits):
        raise ConfigError(
            f"{run_dir}: the loaded dataset differs from the one the run started with "
            f"(fingerprint {fingerprint} vs {dataset_fingerprint(splits)}); start a new run"
        )
    _check_same_user_code(run_dir, manifest, config)
    versions = version_changes(manifest)
    if versions:
        raise ConfigError(f"{run_dir}: the run started under other versions ("
                          f"{'; '.join(versions)}): resuming would mix results of two versions "
                          "under a manifest that records only the first; resume it where it "
                          "started, or start a new run")


def _check_same_user_code(run_dir: Path, manifest: dict[str, Any], config: RunConfig) -> None:
    """A user's model whose factory's source file changed since the run started is refused:
    the pairs done earlier came from the other version (the config hash names the factory, not
    its code). Runs that recorded no digest (older ones, a factory without a source file) are
    not checked."""
    recorded = manifest.get("models")
    models: dict[str, Any] = recorded if isinstance(recorded, dict) else {}
    for name, model in config.custom_models.items():
        entry = models.get(name)
        before = entry.get("source_sha256") if isinstance(entry, dict) else None
        if before is None or name not in config.models:
            continue
        now_digest = model.source_digest()
        if now_digest != before:
            raise ConfigError(
                f"{run_dir}: custom model {name!r} ({model.factory}): its source file changed "
                "since the run started, so resuming would mix results of two versions of its "
                "code; start a new run (or put the code back as it was)")


def _finish_manifest(manifest: ManifestWriter, config: RunConfig, *, checked: bool,
                     kept: str | None = None) -> None:
    """The pairs' status in the manifest, and ``finished`` once every pair is done and
    ``checked`` (the checks after training ran): ``kept`` where a finished run was resumed with
    nothing to train (report picks the newest finished run by that time), else now."""
    status = layout.read_status(manifest.run_dir)
    expected = {layout.status_key(m, s) for m in config.models for s in config.seeds}
    manifest.change(status=layout.status_summary(status),
                    finished=kept or now() if checked and expected <= set(status) else None)


def _crosscheck(manifest: ManifestWriter, out_dir: Path, custom: list[str]) -> dict[str, Any]:
    """Cross-check the run (:mod:`bench.crosscheck`): writes ``<out_dir>/<dataset>/crosscheck.{md,json}``
    and records ``ok``, the errors and the totals by reason in the manifest under ``crosscheck``;
    each of the ``custom`` models is noted as not applicable."""
    from bench.crosscheck import crosscheck_run, write_crosscheck
    from bench.crosscheck.run import NOT_APPLICABLE

    result = crosscheck_run(manifest.run_dir)  # notes each custom model as NOT_APPLICABLE
    files = write_crosscheck(result, out_dir)
    record = {
        "ok": bool(result.ok),
        "errors": list(result.errors),
        "reasons": dict(result.reasons),
        "files": {k: str(v) for k, v in files.items()},
        "not_applicable": {m: NOT_APPLICABLE for m in custom},
    }
    manifest.change(crosscheck=record)
    return record
