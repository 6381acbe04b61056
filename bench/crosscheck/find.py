"""``ltrbench crosscheck`` as one call: which models apply, which run to check (the one given, the
latest matching one, or a new one), the check and its files.

:func:`crosscheck_request` takes the command's options as a :class:`CrosscheckRequest` and
returns the result and the files it wrote (``<out>/<dataset>/crosscheck.{md,json}``,
:func:`bench.crosscheck.run.write_crosscheck`); the command only parses and prints. Training is
the benchmark's (a layer above this one), so the caller hands it in as ``train``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench.crosscheck.result import CrosscheckResult
from bench.crosscheck.run import crosscheck_run, write_crosscheck
from bench.data.outputs import check_output_dir
from bench.errors import ConfigError, DataError, LtrbenchError
from bench.metrics.families import PRIMARY_METRIC
from bench.runners.registry import CUSTOM_LIBRARY, LAMBDAMART, ModelNames, expand_models
from bench.runs.layout import RUN_INTO, RUN_SEALED, RUN_WRITES
from bench.runs.models import gbdt_models, model_libraries
from bench.runs.naming import crosscheck_folders, dataset_slug
from bench.runs.reader import RunDir, run_dataset_names
from bench.runs.search import find_matching_run

#: Trains ``models`` on the request's dataset and returns the new run's folder (the command
#: passes :func:`bench.benchmark.pipeline.run_benchmark` over its own configuration). Named
#: models come as :class:`~bench.runners.registry.ModelNames`, resolved once: pass them on.
Train = Callable[[tuple[str, ...]], Path]


@dataclass(frozen=True)
class CrosscheckRequest:
    """The options of ``ltrbench crosscheck`` (see :mod:`bench.commands.crosscheck`).

    ``models`` is the ``--models`` text as given (comma-separated names or aliases), ``None``
    (or empty) for every GBDT model of the run; ``dataset`` names the dataset whose latest run is
    reused (``synthetic`` when ``None``).
    """

    out: str | Path
    run: str | Path | None = None
    runs_dir: str | Path | None = None
    dataset: str | None = None
    models: str | None = None
    metric: str = PRIMARY_METRIC
    retrain: bool = False


@dataclass(frozen=True)
class CrosscheckOutcome:
    """What :func:`crosscheck_request` found and wrote."""

    result: CrosscheckResult
    files: dict[str, Path]


def _crosscheck_named(request: CrosscheckRequest) -> tuple[str, ...]:
    """The folders ``<out>/<dataset>/`` this cross-check may write into, by the names known
    before any work: ``--dataset`` and the datasets of the run given."""
    ran = run_dataset_names(request.run) if request.run is not None else []
    return crosscheck_folders(request.dataset, *ran)


def crosscheck_request(
    request: CrosscheckRequest,
    *,
    train: Train,
    say: Callable[[str], None] | None = None,
) -> CrosscheckOutcome:
    """Cross-check the run ``request`` names (``run``), else the most recent run of its dataset
    under ``runs_dir`` (default ``<out>/runs``) that trained the requested GBDT models, else a new
    one made by ``train`` (also when ``retrain``); write ``crosscheck.{md,json}`` under ``out``.

    ``say`` is told when an earlier run is reused. A ConfigError when ``out`` cannot take the
    files or is an input, a model name is unknown, or none of the requested models is a GBDT
    model (only those have a built-in metric).
    """
    metric = check_metric(request.metric)  # at the door: before a run is found or trained
    from bench.datasets.sealed import SEALED_DATASETS, dataset_folders

    check_output_dir(request.out, option="--out",  # never a run among the dataset's files
                     inputs=[("--run", request.run), ("--runs-dir", request.runs_dir),
                             ("--dataset", request.dataset),
                             *dataset_folders(around=request.out, into=(
                                 *RUN_INTO, *_crosscheck_named(request)))],
                     writes=RUN_WRITES, into=RUN_INTO, sealed=(*RUN_SEALED, *SEALED_DATASETS))
    models = _requested_models(request)
    gbdt = _gbdt_models(models)
    if models is not None:
        _refuse_metric_none_has(models, metric)
    if request.run is not None:  # never into the run folder it reads (found before any read)
        _refuse_into_run(request.out, request.out, Path(request.run))
    run_dir = _run_to_check(request, models, gbdt, train, say)
    run = RunDir(run_dir)
    holder = run.writer()
    if holder is not None:  # half-written tables: as report refuses them
        raise DataError(f"is being written now ({holder}): wait for the run to finish (or stop "
                        "it), then cross-check it", path=run_dir)
    result = crosscheck_run(run_dir, models=gbdt, metric=metric)
    if run.has_manifest and not run.manifest.get("finished"):
        result.notes.insert(0, f"run {run.run_id} did not finish (no finish time in its "
                               "manifest: killed, or a model failed): pairs it did not write "
                               "are missing from this check")
    _refuse_into_run(request.out, Path(request.out) / dataset_slug(result.dataset), run_dir)
    if request.run is not None and not result.checks and not result.cases:
        _refuse_nothing_to_check(Path(request.run))
    return CrosscheckOutcome(result, write_crosscheck(result, request.out))


def _refuse_nothing_to_check(run_dir: Path) -> None:
    """A :class:`ConfigError` (exit 2, no file written) when the run given with ``--run``
    records no LightGBM/XGBoost/CatBoost model (only baselines or user models): there is no
    built-in metric to compare, which is a request that cannot be met (as ``--models random``
    is), not a failed check (exit 1) -- a CI step checking such a run would otherwise report
    "FAILED (0 checks)" for a run nothing is wrong with."""
    libraries = model_libraries(RunDir(run_dir))
    if gbdt_models(libraries):
        return
    listed = ", ".join(f"{m} ({lib})" for m, lib in libraries.items()) or "none recorded"
    raise ConfigError(f"--run {os.fspath(run_dir)!r}: nothing to cross-check: the run trained no "
                      f"LightGBM, XGBoost or CatBoost model (its models: {listed}); the "
                      "cross-check compares a library's built-in metric with the reference "
                      "evaluator: give a run that trained one, or --dataset NAME to train them")


def _refuse_into_run(out: str | Path, folder: str | Path, run_dir: Path) -> None:
    """A :class:`ConfigError` when ``folder`` (``--out``, or the ``<out>/<dataset>`` folder the
    report goes to) is the run folder being cross-checked or lies inside it, by resolved paths:
    ``crosscheck.md`` written among a run's files changes the run (a later reader, resume or
    report, would find a file the run did not write)."""
    inside = Path(os.path.realpath(folder))
    run = Path(os.path.realpath(run_dir))
    if inside == run or run in inside.parents:
        raise ConfigError(f"--out {os.fspath(out)!r} would write the cross-check into the run "
                          f"folder it reads (--run {os.fspath(run_dir)!r}): choose an --out "
                          "outside that run")


def check_metric(metric: str) -> str:
    """``--metric`` checked before any run is found or trained, and returned as the eval logs
    write it (blanks around it dropped): a name that some GBDT library's built-in metric provider
    takes (:meth:`MetricProvider.supports
    <bench.runners.metric_provider.MetricProvider.supports>`; ``ndcg@10``, ``map@5``,
    XGBoost's ``pre@5``, ``ndcg``, ``ndcg@10-``) and that the metric-name grammar reads
    (:func:`~bench.metrics.names.parse_metrics`, XGBoost's ``-`` suffix aside): one name, its
    cutoff the grammar's (``@0``, ``@1e3``, ``@١٠``, beyond ``MAX_CUTOFF`` refused there) and
    written as the grammar writes it back (the eval log keys ``ndcg@5``, not ``ndcg@05``).
    Else a :class:`ConfigError` giving the grammar's reason and listing each library's names:
    a wrong name found after a training run is the run's time lost, and ``NDCG@10`` is no key
    of any eval log."""
    from bench.metrics.names import parse_metrics
    from bench.runners.libraries import LIBRARIES

    providers = [lib.provider() for lib in LIBRARIES.values()]
    name = metric.strip(" \t") if isinstance(metric, str) else metric
    reason = ""
    if isinstance(name, str) and name:
        base = name[:-1] if name.endswith("-") else name  # XGBoost's suffix: not the grammar's
        try:
            specs = parse_metrics([base])
        except ConfigError as exc:
            reason = f" ({exc})"
        else:
            written = base.rpartition("@")[2] if "@" in base else None
            if len(specs) != 1 or specs[0].label != base:
                reason = " (one name, no white space or line end in it)"
            elif specs[0].k is not None and written != str(specs[0].k):
                reason = f" (the eval logs key @{specs[0].k}: k without leading zeros)"
    if reason or not any(p.supports(name) for p in providers):
        valid = "; ".join(f"{p.title} {p.supported}" for p in providers)
        raise ConfigError(f"--metric {metric!r} is no library's built-in metric{reason}; "
                          f"valid: {valid}")
    return str(name)


def _requested_models(request: CrosscheckRequest) -> ModelNames | None:
    """``--models`` resolved; a name the registry does not know that is a custom model of the
    ``--run`` checked is that model (then refused as one without a built-in metric), not an
    unknown name."""
    if not request.models:
        return None
    try:
        return expand_models(request.models)
    except ConfigError:
        custom = _run_custom_models(request.run)
        if not custom:
            raise
    return expand_models(request.models, custom)


def _run_custom_models(run: str | Path | None) -> dict[str, str]:
    """``{name: "custom"}`` for the user models the run folder ``run`` records (none when it
    has no readable records: the cross-check reads the run again and says what is wrong)."""
    if run is None:
        return {}
    try:
        libraries = model_libraries(RunDir(Path(run)))
    except (LtrbenchError, OSError):
        return {}
    return {m: CUSTOM_LIBRARY for m, library in libraries.items() if library == CUSTOM_LIBRARY}


def _gbdt_models(models: ModelNames | None) -> tuple[str, ...] | None:
    """The requested models that have a built-in metric (each name's
    :class:`~bench.runners.registry.ModelSpec` comes with it, resolved once by
    :func:`~bench.runners.registry.expand_models`); None when every model is wanted."""
    if models is None:
        return None
    gbdt = tuple(spec.name for spec in models.specs if spec.is_gbdt)
    if not gbdt:
        raise ConfigError(
            f"none of {', '.join(models)} is a LightGBM, XGBoost or CatBoost model; the "
            "cross-check compares library built-in metrics, which only those models have"
        )
    return gbdt


def _refuse_metric_none_has(models: ModelNames, metric: str) -> None:
    """A :class:`ConfigError` (exit 2, before a run is found or trained) when no requested GBDT
    model's library has ``metric`` as a built-in (``--models lightgbm --metric pre@5``: pre@k
    is XGBoost's): the check could only fail, after a training run's time."""
    from bench.runners.libraries import LIBRARIES

    libs = [LIBRARIES[spec.library] for spec in models.specs if spec.is_gbdt]
    if libs and not any(lib.provider().supports(metric) for lib in libs):
        have = "; ".join(f"{lib.title}: {lib.provider().supported}"
                         for lib in dict.fromkeys(libs))
        raise ConfigError(f"--metric {metric!r} is no built-in metric of the models asked for "
                          f"with --models ({have}): name a model whose library has it, or "
                          "another --metric")


def _run_to_check(request: CrosscheckRequest, models: tuple[str, ...] | None,
                  gbdt: tuple[str, ...] | None, train: Train,
                  say: Callable[[str], None] | None) -> Path:
    """The run given, else the latest matching one (unless ``retrain``), else a new one that
    ``train`` makes of the requested models (LambdaMART of every library when none is named)."""
    if request.run:
        return Path(request.run)
    if not request.retrain:
        runs_dir = Path(request.runs_dir) if request.runs_dir else Path(request.out) / "runs"
        run = find_matching_run(runs_dir, request.dataset or "synthetic", gbdt)
        if run is not None:
            if say is not None:
                say(f"reusing run {run.run_id} ({run.path})")
            return run.path
    return train(models or LAMBDAMART)
