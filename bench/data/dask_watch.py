"""A step on a Dask cluster watched for a lost worker, so that it ends instead of waiting forever.

A distributed fit pins its work to workers: :func:`bench.data.dask_cluster.spread` persists
partition ``i`` on worker ``i mod W`` (``allow_other_workers=False``), LightGBM submits each
worker's part to that worker, and each library's collective waits for every rank. When a
worker dies (killed, out of memory, its nanny restarting it at a new address), a task pinned to
it waits for a worker of that address that never comes back, and the step waits with it:
measured in round 15, an XGBoost run whose worker was killed while ``DaskDMatrix`` gathered its
parts (``distributed.wait`` in ``xgboost/dask/__init__.py``) still waited 600 s later.

:func:`watch_for_lost_workers` polls the scheduler's worker list every
:data:`WATCH_POLL_S` seconds while the step runs; once a worker it started with is gone, it
marks every future the client took since the step began (the spread partitions, the libraries'
matrices and training tasks) cancelled, at every poll until the step ends (a future Dask
retries is marked again), so each of the step's waits returns and the step raises.
:meth:`WorkerWatch.lost_error` then says it in the one wording of a lost worker
(:func:`refuse_lost_workers`, with :data:`~bench.data.dask_cluster.LOST_WORKER`). The futures
the client held before (the run's loaded shards) are left alone.
"""

from __future__ import annotations

import contextlib
import gc
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from bench.data.dask_cluster import LOST_WORKER, scheduler_identity
from bench.errors import LtrbenchError

#: Seconds between two looks at the scheduler's worker list (one small RPC each).
WATCH_POLL_S = 0.25
#: Seconds a failed step waits for the scheduler to notice a lost worker before its own error
#: is taken as the reason (a collective sees its peer's socket close before Dask removes the
#: worker).
SETTLE_S = 2.0


def lost_workers_error(what: str, before: set[str], after: set[str]) -> LtrbenchError | None:
    """The error of :func:`refuse_lost_workers` (``None`` when no worker was lost)."""
    lost = sorted(before - after)
    if not lost:
        return None
    return LtrbenchError(f"{LOST_WORKER} during {what} ({', '.join(lost)}; "
                         f"{len(before)} workers at the start, {len(before) - len(lost)} of them "
                         "later): its share of the rows cannot be redone as it was (elsewhere it "
                         "trains another model), so the run stopped; the pairs done are kept, "
                         "'run --resume' trains the others on a whole cluster")


def refuse_lost_workers(what: str, before: set[str], after: set[str]) -> None:
    """A :class:`LtrbenchError` when a worker of ``before`` is not in ``after`` (killed, or
    restarted by its nanny at a new address, during ``what``: a fit, the spread of its rows, or
    the whole run since the cluster started, shards loaded and models scored). The lost
    worker's share cannot be redone as it was: Dask re-runs it elsewhere, where it can (another
    layout of the rows over the machines, so another model than an uninterrupted run trains,
    LightGBM's data-parallel histograms and XGBoost's collective alike, while the run records
    the cluster it started with), or waits for a worker of that address that never comes back
    (a pinned task; :func:`watch_for_lost_workers` ends that wait). A worker that joined (an
    external cluster growing) holds none of the rows and is not a loss. The pairs done are
    kept."""
    error = lost_workers_error(what, before, after)
    if error is not None:
        raise error


def _current(client: Any) -> set[str] | None:
    """The scheduler's workers now, or ``None`` when the scheduler does not answer (the step's
    own call then fails, with its own reason)."""
    try:
        return set(scheduler_identity(client).get("workers") or {})
    except Exception:
        return None


@dataclass
class WorkerWatch:
    """What :func:`watch_for_lost_workers` saw: the workers at the start and those lost."""

    client: Any
    before: set[str]
    lost: set[str] = field(default_factory=set)

    def look(self) -> bool:
        """Whether a worker of :attr:`before` is gone now (recorded in :attr:`lost`)."""
        now = _current(self.client)
        if now is not None:
            self.lost |= self.before - now
        return bool(self.lost)

    def lost_error(self, what: str, failure: BaseException, *,
                   settle_s: float = SETTLE_S) -> LtrbenchError | None:
        """After ``what`` failed with ``failure``: the lost-worker error
        (:func:`lost_workers_error`) when a worker of the start is gone, looking for up to
        ``settle_s`` seconds (once, at once, after ltrbench's own refusal, an
        :class:`LtrbenchError`: a library's error may come before Dask has removed the
        worker, a refusal is no sign of one); ``None`` otherwise (the failure's own error
        stands). With a worker lost, ``failure``'s tracebacks are dropped: their frames hold
        the step's futures, and while one is alive its key stays cancelled in the client (a
        later computation of the same key, on the same client, would read it as cancelled)
        and held on the scheduler.
        Raise the error outside the ``except`` block (where ``failure`` is its context), and
        collect the garbage first (:func:`release_failed_step`)."""
        deadline = time.monotonic() + (0.0 if isinstance(failure, LtrbenchError) else settle_s)
        while not self.look() and time.monotonic() < deadline:
            time.sleep(0.1)
        if not self.lost:
            return None
        seen: set[int] = set()
        link: BaseException | None = failure
        while link is not None and id(link) not in seen:
            seen.add(id(link))
            link.__traceback__ = None
            link = link.__cause__ or link.__context__
        return lost_workers_error(what, self.before, self.before - self.lost)


def release_failed_step() -> None:
    """Collect the garbage of a failed step (the frames and exceptions that held its futures):
    each future's last reference gone, the client releases its key (``Client._dec_ref``), on
    its side and on the scheduler, where a task pinned to the lost worker is forgotten."""
    gc.collect()


def _cancel_new(client: Any, held: set[Any]) -> None:
    """Mark the client's futures not in ``held`` cancelled, in the client's event loop (where
    its futures' events live): each wait on them returns, each ``result()`` raises. Only the
    client's side: the scheduler's own ``cancel`` asserts that some client wants every
    dependent of a cancelled key (``stimulus_cancel`` in ``distributed/scheduler.py``), which
    a library's intermediate tasks are not (a traceback on the scheduler's log, measured); the
    tasks left on the scheduler are released with their futures."""

    def cancel() -> None:
        for key, state in list(client.futures.items()):
            if key not in held and state.status != "cancelled":
                state.cancel(reason="ltrbench: a worker of the cluster was lost",
                             msg="a worker of the cluster was lost")

    with contextlib.suppress(Exception):  # a client already closing: nothing waits
        client.loop.add_callback(cancel)


@contextlib.contextmanager
def watch_for_lost_workers(client: Any, before: set[str], *,
                           poll_s: float = WATCH_POLL_S) -> Iterator[WorkerWatch]:
    """While the block runs, a worker of ``before`` lost cancels the block's futures (see the
    module docstring). ``client`` ``None`` (a test's stand-in trainer): no watch."""
    watch = WorkerWatch(client, set(before))
    if client is None:
        yield watch
        return
    held = set(client.futures)
    stop = threading.Event()

    def loop() -> None:
        while not stop.wait(poll_s):
            if watch.look():
                _cancel_new(client, held)

    thread = threading.Thread(target=loop, name="ltrbench-worker-watch", daemon=True)
    thread.start()
    try:
        yield watch
    finally:
        stop.set()
        thread.join()


__all__ = [
    "SETTLE_S",
    "WATCH_POLL_S",
    "WorkerWatch",
    "lost_workers_error",
    "refuse_lost_workers",
    "release_failed_step",
    "watch_for_lost_workers",
]
