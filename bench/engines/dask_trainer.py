"""``ltrbench run --engine dask``: every GBDT (model, seed) trained on a Dask cluster.

The splits are written once as query-aligned Parquet shards under the run directory
(:func:`bench.data.query_shards.write_query_shards`, at least two shards per worker and split,
at most a million rows each), read back as Dask frames and persisted round-robin on the workers.
Each GBDT is trained by :func:`bench.runners.dask_gbdt.train_dask` with the run's parameters,
and its validation and test scores are computed on the workers and brought back in row order;
from there the run is the local one: the same tables, the reference evaluator, the cross-check.
The libraries' own logs (LightGBM's network lines, XGBoost's tracker ranks, their warnings) go
to ``dask-libraries.log`` in the run directory, not the terminal
(:mod:`bench.engines.library_log`). Baselines (popularity, random, ALS) and the GBDT objectives the Dask runner does not take
(XGBoost ``rank:map``, the regression baselines) are trained in this process and say so in their
status notes.

The eval log of an XGBoost model is XGBoost's own all-reduced validation metric (so the
cross-check compares it with the reference, as on one machine). A LightGBM model's curve comes
from the reference evaluator (LightGBM-Dask logs only per-worker metrics), so its eval log is
left empty -- a library-vs-reference check on it could not fail -- and the cross-check uses the
library's metric recomputed on the final scores; the curve goes into the status notes.
"""

from __future__ import annotations

import contextlib
import time
import warnings
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import numpy as np
import pandas as pd

from bench.data.dask_cluster import (
    LOST_WORKER,
    WORKERS_TIMEOUT_S,
    describe,
    is_loopback,
    is_lost_worker,
    library_listeners,
    listening_addresses,
    worker_addresses,
)
from bench.data.dask_watch import refuse_lost_workers
from bench.data.letor import LetorSplits
from bench.data.loopback import bound_addresses
from bench.data.query_shards import read_query_shards, shards_of
from bench.engines.dask_engine import open_cluster
from bench.engines.library_log import LIBRARY_LOG, library_log, workers_log_to
from bench.engines.table import ClusterOptions, TrainerFactory
from bench.errors import LtrbenchError
from bench.machine import peak_rss_kib
from bench.runners.baselines import ALSParams
from bench.runners.dask_gbdt import (
    DaskFit,
    on_dask,
    predict_frame,
    train_dask,
)
from bench.runners.dispatch import run_model
from bench.runners.gbdt import refuse_non_finite
from bench.runners.iteration import IterationHook
from bench.runners.libraries import dask_support
from bench.runners.params import Params
from bench.runners.raw_keys import unmatched
from bench.runners.registry import ModelSpec, get_model
from bench.runners.resources import Measurement, measure
from bench.runners.result import (
    EVALLOG_COLUMNS,
    SELECTION_SPLIT,
    FitResult,
    Selection,
    best_iteration_from_log,
    evallog_frame,
)

MAX_ROWS_PER_SHARD = 1_000_000
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")



def _workers_at_start(client: Any, options: ClusterOptions) -> set[str]:
    """The workers the run starts with, read once: the shards are cut for them and every later
    check compares with them. A local cluster has all ``options.workers`` of its own: one lost
    right after the start (its nanny restarts it at another address) is waited for, and a
    cluster still short of one is refused -- cut for fewer workers, the shards would train
    another model than the run records (round 11b's CI: a worker killed as the cluster came up
    gave other numbers, exit 0)."""
    if options.scheduler is None:
        with contextlib.suppress(Exception):  # still short after the wait: refused below
            client.wait_for_workers(options.workers, timeout=WORKERS_TIMEOUT_S)
    workers = set(worker_addresses(client))
    if options.scheduler is None and len(workers) < options.workers:
        raise LtrbenchError(f"{LOST_WORKER} as the local cluster started ({len(workers)} of its "
                            f"{options.workers} workers registered after {WORKERS_TIMEOUT_S} s); "
                            "nothing was trained: run the command again")
    return workers


def rows_per_shard(n_rows: int, workers: int) -> int:
    """Shard size giving at least two shards per worker (when the split has enough queries),
    at most :data:`MAX_ROWS_PER_SHARD` rows each."""
    return max(1, min(MAX_ROWS_PER_SHARD, n_rows // (2 * max(1, workers))))


class ListenerWarning(UserWarning):
    """A library's listeners on a local cluster could not be kept on loopback."""


class DaskTrainer:
    """Trains models on a Dask cluster over shards written once under ``workdir``: the Dask
    engine's :class:`~bench.engines.table.Trainer` (and, called with the splits, the work folder
    and the cluster options, its :class:`~bench.engines.table.TrainerFactory`). The cluster
    (one thread per worker) is opened by :func:`bench.engines.dask_engine.open_cluster` here and
    closed by :meth:`close`."""

    #: the pipeline passes this trainer the progress line's heartbeat (``on_iteration``),
    #: relayed from the workers (:func:`bench.runners.dask_gbdt.relayed_iterations`)
    takes_hook = True

    def __init__(self, splits: LetorSplits, workdir: Path,
                 options: ClusterOptions | None = None) -> None:
        options = replace(options or ClusterOptions(), threads=1)
        self.workdir = Path(workdir)
        self.scheduler = options.scheduler
        self._stack = contextlib.ExitStack()
        self.client = self._stack.enter_context(open_cluster(options))
        try:
            #: the workers at the start: one lost at any time (loading the shards, between two
            #: fits, while scoring) moves its partitions, and the next fit trains on another
            #: layout of the rows (round 12's CI: a kill there gave other numbers, exit 0)
            self.workers_at_start = _workers_at_start(self.client, options)
            n_workers = len(self.workers_at_start)  # the same snapshot: the shards' layout
            self.partitions: dict[str, int] = {}
            self.frames: dict[str, Any] = {}
            for name, data in splits.splits().items():
                folder = self.workdir / name  # reused on --resume only if it holds the split
                shards_of(data, folder, rows_per_shard=rows_per_shard(data.n_rows, n_workers))
                with on_cluster(f"loading the {name} shards onto the workers"):
                    self.frames[name] = read_query_shards(folder).persist()
                self.partitions[name] = int(self.frames[name].npartitions)
            self.listened: set[str] = set()
            self._warned: set[str] = set()
            self.libraries: dict[str, Any] = {}
            #: where the libraries' own logs go (the run directory), not the terminal
            self.log = self.workdir.parent / LIBRARY_LOG
            with on_cluster("starting the Dask engine"):  # every call on the cluster
                self.cluster = describe(self.client)
                self.local = all(str(urlparse(w).hostname) in LOCAL_HOSTS
                                 for w in self.cluster["worker_addresses"])
                if self.scheduler is None:  # our own local cluster: its workers' output too
                    workers_log_to(self.client, self.log)
                refuse_lost_workers("the loading of the shards", self.workers_at_start,
                                    set(worker_addresses(self.client)))
            self._note_listeners()
        except BaseException:
            self._stack.close()
            raise

    def record(self) -> dict[str, Any]:
        """What the manifest records: engine, cluster, partitions per split, and the addresses
        listened on so far (completed when the engine closes)."""
        return {"engine": "dask", "cluster": self.cluster, "partitions": self.partitions,
                "shards": str(self.workdir), "listeners": self.listeners()}

    def listeners(self) -> dict[str, Any]:
        """Every address the run listened on: this process's and its children's listening
        sockets (Dask's scheduler, nannies, workers and HTTP routes; sampled at the start and
        after each fit) and every address the GBDT libraries bound on the workers and here
        (recorded as they bind, :mod:`bench.data.loopback`); whether all are on loopback, and
        how each worker's libraries were confined; the scheduler's address, whether the user
        gave it (``--scheduler``: the one way off this machine), the address as the user wrote it
        where that differs, and whether it is on loopback."""
        addresses = sorted(self.listened)
        address = str(getattr(self, "cluster", {}).get("scheduler") or self.scheduler or "")
        return {"addresses": addresses,
                "loopback_only": all(is_loopback(a) for a in addresses),
                "scheduler": {"address": address, "given_by_user": not self.local_scheduler,
                              "loopback": bool(address) and is_loopback(address),
                              # the user's own text where the scheduler names itself otherwise
                              # (0.0.0.0 given, the scheduler's own address recorded)
                              **({"given": self.scheduler} if self.scheduler
                                 and self.scheduler != address else {})},
                "libraries": self.libraries}

    def _note_listeners(self) -> None:
        self.local_scheduler = self.scheduler is None
        self.listened |= set(listening_addresses()) | set(bound_addresses())
        with contextlib.suppress(Exception):  # a broken cluster: keep what was seen
            for worker, seen in library_listeners(self.client).items():
                self.listened |= set(seen["bound"])
                self.libraries[worker] = seen["libraries"]
        open_doors = {f"{w}: {lib} {why}" for w, libs in self.libraries.items()
                      for lib, why in libs.items() if why != "confined"}
        if self.local_scheduler and open_doors - self._warned:
            warnings.warn("the local Dask cluster could not keep a library's listeners on "
                          f"loopback ({'; '.join(sorted(open_doors - self._warned))}): they bind "
                          "all interfaces while it trains", ListenerWarning, stacklevel=2)
            self._warned |= open_doors

    def __call__(self, model: ModelSpec | str, splits: LetorSplits, params: Params, *,
                 seed: int, eval_at: tuple[int, ...], selection: Selection, log_train: bool,
                 als: ALSParams, on_iteration: IterationHook | None = None) -> FitResult:
        """One (model, seed): a GBDT objective the Dask runner takes is trained on the cluster;
        any other model in this process (:func:`bench.runners.dispatch.run_model`), its notes
        saying why. Either way the result is built once, finished. ``model`` is the run's
        resolved :class:`~bench.runners.registry.ModelSpec` (a name is looked up, for direct
        callers). ``on_iteration``: the per-round hook, called here as the workers' rounds end
        (a model trained in this process gets it as :func:`run_model` does). A cluster that
        fails at any step (a worker killed during the fit or the scoring) is one line."""
        spec = model if isinstance(model, ModelSpec) else get_model(model)
        model = spec.name
        if not spec.is_gbdt or not on_dask(spec.library, spec.objective):
            result = run_model(spec, splits, params, seed=seed, eval_at=eval_at,
                               selection=selection, log_train=log_train, als=als,
                               on_iteration=on_iteration if spec.is_gbdt else None)
            why = "baselines are not distributed" if not spec.is_gbdt else (
                f"objective {spec.objective!r} is not available on Dask")
            return replace(result, notes={**result.notes, "engine": f"local ({why})"})
        p = replace(params, seed=seed)
        what = f"{model} seed {seed}: the distributed"
        with on_cluster(f"{what} fit"):
            cpu0 = self._worker_cpu()
        with measure() as m, library_log(self.log), on_cluster(f"{what} fit"):
            fit = train_dask(spec.library, self.client, self.frames["train"],
                             self.frames["vali"], p, objective=spec.objective,
                             select_metric=selection.metric, eval_at=eval_at,
                             on_iteration=on_iteration)
        with on_cluster(f"{what} fit"):
            self._charge_workers(m, self._worker_cpu() - cpu0)
        self._note_listeners()
        t0 = time.perf_counter()
        with library_log(self.log), on_cluster(f"{what} scoring"):
            scores = {split: predict_frame(fit, self.frames[split])["score"].compute()
                      .to_numpy(dtype=np.float64) for split in ("vali", "test")}
        predict_s = time.perf_counter() - t0
        with on_cluster(f"{what} fit"):  # every call on the cluster: a lost worker is one line
            worker_rss = self._worker_peak_rss_mb()
            refuse_lost_workers(f"{model} seed {seed} (the cluster's workers since it started)",
                                self.workers_at_start, set(worker_addresses(self.client)))
        result = self._result(model, seed, fit, m, scores, predict_s, selection.metric,
                              worker_rss)
        refuse_non_finite(result, splits, spec.library, p)  # as a local fit's scores are
        # n_threads is not passed on Dask (each library takes its worker's threads): said, not
        # dropped in silence (`run --engine dask --threads 8` trains on the workers' threads)
        threads = sorted(set(self.cluster.get("threads") or [])) or ["?"]
        said = unmatched(spec.library, p.raw_params(spec.library))  # as train_gbdt notes them
        return replace(result, notes={**result.notes, "threads": (
            f"{'/'.join(map(str, threads))} per worker, the Dask workers' own; n_threads="
            f"{params.n_threads} is not used on the Dask engine"),
            **({"unmatched": said} if said else {})})

    def _result(self, model: str, seed: int, fit: DaskFit, m: Measurement,
                scores: dict[str, Any], predict_s: float, select_metric: str,
                worker_rss: dict[str, float]) -> FitResult:
        """The finished :class:`FitResult` of a Dask fit. A library whose validation metric is
        all-reduced (:attr:`bench.runners.libraries.DaskSupport.global_metric`) gives its log as the eval log (so the
        cross-check compares it with the reference); otherwise the eval log is empty and the
        reference evaluator's curve goes to the notes (see the module docstring)."""
        notes: dict[str, Any] = {
            "engine": "dask", "selection": fit.notes["selection"],
            "trees_trained": fit.trees_grown, "stopped_at": fit.stopped_at,
            "worker_peak_rss_mb": worker_rss,
            "timing": "fit_s: wall time of the whole distributed fit; cpu: this process's "
                      "plus the workers'; peak RSS: this process's (workers' in "
                      "worker_peak_rss_mb)"}
        if not self.local:
            notes["other_load"] = "unknown: the workers run on other hosts"
        if dask_support(fit.library).global_metric:
            log = evallog_frame({SELECTION_SPLIT: fit.history}, {SELECTION_SPLIT: SELECTION_SPLIT})
            best_iteration_from_log(log, select_metric)  # the selection metric was logged
            n_trees = int(log["iteration"].max()) if len(log) else 0
        else:
            log = pd.DataFrame(columns=list(EVALLOG_COLUMNS))
            n_trees = fit.trees_grown
            notes["validation_curve"] = fit.curve
        return FitResult(model=model, library=fit.library, seed=seed, scores=scores, evallog=log,
                         best_iteration=fit.best_iteration, n_trees=n_trees, fit_s=m.seconds,
                         predict_s=predict_s, peak_rss_mb=m.peak_rss_mb, fit=m,
                         library_params=fit.library_params, notes=notes, booster=fit.booster)

    def _worker_cpu(self) -> float:
        return float(sum(self.client.run(time.process_time).values()))

    def _worker_peak_rss_mb(self) -> dict[str, float]:
        return {w: round(v / 1024.0, 1) for w, v in self.client.run(peak_rss_kib).items()}

    def _charge_workers(self, m: Measurement, worker_cpu_s: float) -> None:
        """The workers' CPU time is the fit's own, not other load: on a local cluster move it
        from ``other_cpu_s`` to ``cpu_s``; on a remote one this machine's load says nothing
        about the fit (``other_cpu_s`` unknown)."""
        m.cpu_s += worker_cpu_s
        if not self.local:
            m.other_cpu_s = None
        elif m.other_cpu_s is not None:
            m.other_cpu_s = max(0.0, m.other_cpu_s - worker_cpu_s)

    def close(self) -> dict[str, Any]:
        """Stop the cluster and return what completes the engine's record: ``{"listeners":
        ...}``, every address listened on (sampled once more before the cluster stops). The
        run's manifest writer records it (:class:`bench.runs.manifest.ManifestWriter`, the
        manifest's one owner); the trainer writes no file."""
        try:
            with contextlib.suppress(Exception):
                self._note_listeners()
            return {"listeners": self.listeners()}
        finally:
            self._stack.close()


@contextlib.contextmanager
def on_cluster(what: str) -> Iterator[None]:
    """A step on the cluster: an ltrbench error passes as it is; anything else (a worker died:
    ``KilledWorker``, the collective broke, the scheduler went away, a library error) becomes
    one :class:`LtrbenchError` naming ``what`` failed, the error's type and first line, and that
    the pairs finished so far are kept (``--resume``)."""
    try:
        yield
    except LtrbenchError:
        raise
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        lost = f"{LOST_WORKER}: " if is_lost_worker(exc) else ""
        raise LtrbenchError(
            f"{what} failed ({lost}{type(exc).__name__}: {first[:300]}). The pairs finished so far "
            "are kept in the run directory; continue it with ltrbench run --resume") from exc


_FACTORY: TrainerFactory = DaskTrainer  # the protocols the table's trainer must fit (mypy)

__all__ = ["MAX_ROWS_PER_SHARD", "DaskTrainer", "ListenerWarning", "on_cluster", "rows_per_shard"]
