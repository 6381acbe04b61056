"""Where Dask work runs: a loopback-only local cluster by default, or an existing scheduler.

``cluster(scheduler=None, workers=2)`` is a context manager that yields a
:class:`distributed.Client`:

* without ``scheduler``: a :class:`distributed.LocalCluster` of ``workers`` processes with
  ``threads`` threads each, every Dask socket on 127.0.0.1 (``host="127.0.0.1"``), the dashboard
  off (the scheduler still serves its health routes, on a free port of 127.0.0.1),
  scratch files in ``local_directory`` (a temporary folder, removed afterwards, instead of
  ``dask-scratch-space`` in the system temp folder), ``memory_limit`` per worker;
* with ``scheduler`` (``tcp://host:8786``): a client of that cluster, which is left running.

Both GBDT libraries open their own listeners during distributed training whatever Dask's host
is (XGBoost's collective and LightGBM's ``local_listen_port`` bind all interfaces; measured in
``../shared/notes/dask.md`` §4): see the README's Dask section for what to firewall.
:func:`describe` is what a manifest records about the cluster. Dask is an optional dependency
(``pip install "ltrbench[dask]"``); without it every entry point raises :class:`ConfigError`
saying what to install.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any

from bench.errors import ConfigError

LOOPBACK = "127.0.0.1"
INSTALL_HINT = 'the Dask engine needs dask[distributed]: pip install "ltrbench[dask]"'


def require_dask() -> None:
    """Raise :class:`ConfigError` naming what to install when ``dask.distributed`` is missing."""
    try:
        import dask.dataframe  # noqa: F401
        import distributed  # noqa: F401
    except ImportError as exc:
        raise ConfigError(f"{INSTALL_HINT} ({exc})") from None


@contextlib.contextmanager
def cluster(
    scheduler: str | None = None,
    *,
    workers: int = 2,
    threads: int = 1,
    memory_limit: str | int | None = "auto",
    local_directory: str | None = None,
) -> Iterator[Any]:
    """A :class:`distributed.Client` of a new loopback-only LocalCluster, or of ``scheduler``."""
    require_dask()
    from distributed import Client, LocalCluster

    if scheduler:
        try:
            client = Client(scheduler, timeout="30s")
        except OSError as exc:
            raise ConfigError(f"cannot reach the Dask scheduler at {scheduler!r}: {exc}") from None
        try:
            yield client
        finally:
            client.close()
        return
    if workers < 1 or threads < 1:
        raise ConfigError(f"a local Dask cluster needs workers >= 1 and threads >= 1; got "
                          f"workers={workers}, threads={threads}")
    # Dask's p2p shuffle logs two WARNING lines per shuffle ("initialized by task",
    # "deactivated due to stimulus"): routine events, not problems.
    logging.getLogger("distributed.shuffle._scheduler_plugin").setLevel(logging.ERROR)
    own_dir = local_directory is None
    scratch = tempfile.mkdtemp(prefix="ltrbench-dask-") if own_dir else str(local_directory)
    local = LocalCluster(
        n_workers=workers, threads_per_worker=threads, processes=True, host=LOOPBACK,
        # a task that refuses bad input is raised in the client as one line; the workers' own
        # "Compute Failed ... Traceback:" log of it would read as a crash (bench.data.inputs)
        silence_logs=logging.CRITICAL,
        dashboard_address=None, local_directory=scratch, memory_limit=memory_limit,
        # no dashboard; the scheduler's own health/metrics HTTP routes on a free loopback port
        # (without this they take 8787, or warn and move when it is taken)
        scheduler_kwargs={"dashboard": False, "dashboard_address": f"{LOOPBACK}:0"},
    )
    client = Client(local)
    # every local worker registered, and the client's view of the scheduler refreshed with them
    # (right after the start, scheduler_info() could list no worker: a division by zero in
    # spread() once in CI)
    client.wait_for_workers(workers, timeout=120)
    try:
        yield client
    finally:
        client.close()
        local.close()
        if own_dir:
            shutil.rmtree(scratch, ignore_errors=True)


def worker_addresses(client: Any) -> list[str]:
    """The cluster's worker addresses, sorted. Right after a cluster starts the client's view
    can list none (seen once in CI: a division by zero downstream); then it waits for one."""
    workers = sorted(client.scheduler_info()["workers"])
    if not workers:
        client.wait_for_workers(1, timeout=120)
        workers = sorted(client.scheduler_info()["workers"])
    return workers


def spread(client: Any, ddf: Any) -> Any:
    """``ddf`` persisted with partition ``i`` on worker ``i mod W`` (workers in address order),
    so that every worker holds data when there are at least as many partitions as workers.

    Distributed training uses the workers that hold partitions; XGBoost also counts a worker
    whose validation matrix is empty in its all-reduced NDCG (see :mod:`bench.runners.dask_gbdt`),
    so where the rows live is part of the result. Returns a frame with the same partitions.
    """
    import dask.dataframe as dd
    from distributed import wait

    workers = worker_addresses(client)
    parts = [client.persist(ddf.partitions[i], workers=[workers[i % len(workers)]],
                            allow_other_workers=False) for i in range(ddf.npartitions)]
    wait(parts)
    return dd.concat(parts) if len(parts) > 1 else parts[0]


def holders(client: Any, ddf: Any) -> set[str]:
    """The workers that hold a partition of the persisted ``ddf``."""
    futures = client.futures_of(ddf)
    return {w for ws in client.who_has(futures).values() for w in ws}


def describe(client: Any) -> dict[str, Any]:
    """The cluster as a manifest records it: scheduler, workers, threads and memory per worker."""
    info = client.scheduler_info()
    workers = info.get("workers", {})
    return {
        "scheduler": info.get("address"),
        "workers": len(workers),
        "threads": sorted(int(w.get("nthreads", 0)) for w in workers.values()),
        "memory_limit_bytes": sorted(int(w.get("memory_limit") or 0) for w in workers.values()),
        "worker_addresses": sorted(workers),
    }


__all__ = ["INSTALL_HINT", "LOOPBACK", "cluster", "describe", "holders", "require_dask", "spread",
           "worker_addresses"]
