"""The Dask engine's trial pool (the ``trials`` entry of the ``dask`` row of
:data:`bench.engines.table.ENGINES`): ``ltrbench tune --engine dask`` runs its trials side by
side, one per worker process at a time, on a loopback-only local cluster
(:func:`bench.engines.dask_engine.open_cluster`: every Dask socket on 127.0.0.1, the GBDT
libraries' listeners confined to loopback by the workers' plugin).

The pool knows nothing of Optuna: :mod:`bench.benchmark.tune_parallel` asks the study for a
trial, submits the call that trains and scores it, and tells the study what came back. A worker
runs one call at a time (``threads=1`` per Dask worker; the call pins its libraries' threads
itself). A worker that dies under a call (killed, out of memory) is Dask's to handle: the
scheduler runs the call again on another worker (``distributed.scheduler.allowed-failures``,
3 by default), and after that the call's future holds a ``KilledWorker`` error, which
:meth:`DaskTrialPool.finished` returns as the call's error (the tune marks that trial failed).
Dask is imported inside the functions only.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from bench.engines.table import ClusterOptions, TrialPool
from bench.errors import ConfigError


class DaskTrialPool:
    """A :class:`~bench.engines.table.TrialPool` over a Dask ``client`` of ``workers`` workers."""

    def __init__(self, client: Any, workers: int) -> None:
        self.client = client
        self.workers = workers
        self._futures: dict[int, Any] = {}
        self._next = 0

    def share(self, value: Any) -> Any:
        """``value`` sent once to every worker (a future the calls take as an argument)."""
        return self.client.scatter(value, broadcast=True, hash=False)

    def submit(self, fn: Callable[..., Any], *args: Any) -> int:
        """Start ``fn(*args)`` on a free worker (never cached: ``pure=False``); its key."""
        key = self._next
        self._next += 1
        self._futures[key] = self.client.submit(fn, *args, pure=False)
        return key

    def finished(self, timeout: float) -> list[tuple[int, Any, BaseException | None]]:
        """The calls done within ``timeout`` seconds (at least one, unless none is running or
        the time ran out): ``(key, result, None)``, or ``(key, None, error)`` when Dask could
        not run it (a worker died under it more often than the scheduler retries)."""
        from distributed import wait

        if not self._futures:
            return []
        with contextlib.suppress(TimeoutError):
            wait(list(self._futures.values()), timeout=timeout, return_when="FIRST_COMPLETED")
        out: list[tuple[int, Any, BaseException | None]] = []
        for key, future in list(self._futures.items()):
            if not future.done():
                continue
            del self._futures[key]
            if future.status == "finished":
                out.append((key, future.result(), None))
            else:
                error = future.exception() if future.status == "error" else None
                out.append((key, None, error or RuntimeError(f"the call was {future.status}")))
        return out

    def record(self) -> dict[str, Any]:
        """Where the calls run: the cluster's scheduler, workers and their threads."""
        from bench.data.dask_cluster import describe

        return describe(self.client)

    def cancel(self) -> None:
        """Cancel the calls still running (the tune stopped with an error)."""
        if self._futures:
            self.client.cancel(list(self._futures.values()))
            self._futures.clear()


@contextlib.contextmanager
def open_trial_pool(options: ClusterOptions) -> Iterator[DaskTrialPool]:
    """A :class:`DaskTrialPool` on a new loopback-only local cluster of ``options.workers``
    worker processes of one Dask thread each, closed on exit. A user's scheduler is refused:
    the trials write the study's database, by default a SQLite file of the tune folder on this
    machine."""
    from bench.engines.dask_engine import open_cluster

    if options.scheduler is not None:
        raise ConfigError(f"scheduler {options.scheduler!r}: tune --engine dask runs its trials "
                          "on a local cluster of this machine (the study lives in the tune "
                          "folder); leave the scheduler out")
    local = ClusterOptions(workers=options.workers, threads=1,
                           memory_limit=options.memory_limit)
    with open_cluster(local) as client:
        pool = DaskTrialPool(client, options.workers)
        try:
            yield pool
        finally:
            pool.cancel()


_POOL: Callable[[ClusterOptions], contextlib.AbstractContextManager[TrialPool]] = open_trial_pool

__all__ = ["DaskTrialPool", "open_trial_pool"]
