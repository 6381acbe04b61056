"""LightGBM's network on a Dask cluster: the ``machines`` list and which worker is which rank.

LightGBM-Dask trains data-parallel: every worker is one *rank* of LightGBM's own network, named
by its position in ``machines`` (``host:port,...``). The rank matters for the model: each rank
finds the bin boundaries of its share of the features from the rows *it* holds, and the
histograms are summed in rank order, so the same rows with the ranks swapped give another
model (measured on a 2-worker local cluster, LightGBM 4.6, lambdarank, ``deterministic=True``:
two distinct models, one for each assignment).

LightGBM hands the ports of ``machines`` to the workers by host (``lightgbm/dask.py``,
``_machines_to_worker_map``); when several workers share a host -- every local cluster -- each
takes one from a Python ``set`` in the order the workers appear in ``client.who_has``, so which
worker became which rank changed from fit to fit (measured: 3 of 4 runs of one configuration
differed). :func:`ranks_in_worker_order` pins it: worker ``i`` of the sorted worker list is
rank ``i``, the worker that :func:`bench.data.dask_cluster.spread` gives partitions ``i``,
``i + W``, ... (measured after the change: 9 of 9 fits identical over 3 clusters).

The order of a worker's rows matters too: bagging draws rows by position, and LightGBM
concatenates a worker's parts in the order of its ``client.who_has`` answer, which Dask builds
from a *set* of the parts' keys -- random ``dict-<uuid>`` names, so a worker holding
partitions 0 and 2 read them as 0, 2 or as 2, 0 from fit to fit, and each order trains
another model (round 17, found by a CI run: 3 distinct models in 4 runs of one configuration,
``subsample`` 0.8; the 9 fits above held one partition per worker). While
:func:`ranks_in_worker_order` is open, the client's ``who_has`` answers in the order it was
asked (LightGBM asks in partition order), so each rank reads its partitions in order.
"""

from __future__ import annotations

import contextlib
import socket
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any
from urllib.parse import urlparse

from bench.data.dask_cluster import LOOPBACK

#: What a fit's notes say when LightGBM's mapping could not be pinned (the private function gone).
UNPINNED = ("LightGBM chose which worker is which rank (its _machines_to_worker_map is gone): "
            "fits are not reproducible fit to fit")


def _free_port(dask_worker: Any) -> int:
    """A TCP port free on this worker's host now, found on the worker's own address (loopback
    for a local cluster: nothing is opened beyond it, even for a moment). ``client.run`` passes
    the worker as ``dask_worker``."""
    host = urlparse(dask_worker.address).hostname or LOOPBACK
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def machine_ports(client: Any, workers: list[str]) -> dict[str, int]:
    """A port found free on its own host for each of ``workers`` (Dask addresses)."""
    ports = client.run(_free_port, workers=workers)
    return {w: int(ports[w]) for w in workers}


def machines(ports: dict[str, int]) -> str:
    """LightGBM's ``machines`` (``host:port,...``), in the order of ``ports`` (the rank order)."""
    return ",".join(f"{urlparse(w).hostname}:{p}" for w, p in ports.items())


def _asked_order(who_has: Callable[..., dict[Any, Any]]) -> Callable[..., dict[Any, Any]]:
    """``client.who_has`` answering in the order of the futures asked about (Dask's own
    collects their keys in a set first: an order that changes with the keys' random names)."""

    def ordered(futures: Any = None, **kwargs: Any) -> dict[Any, Any]:
        got = who_has(futures, **kwargs)
        if not isinstance(got, dict) or not isinstance(futures, list | tuple):
            return got  # all keys, or one future: nothing to order
        keys = [getattr(f, "key", f) for f in futures]
        return type(got)({k: got[k] for k in dict.fromkeys(keys) if k in got})

    return ordered


@contextlib.contextmanager
def ranks_in_worker_order(ports: dict[str, int], client: Any = None) -> Iterator[bool]:
    """While open, LightGBM-Dask gives each worker of ``ports`` its own port from ``ports``, so
    that its rank is its position there, and ``client`` (the fit's) tells where parts live in
    the order it is asked, so that each worker reads its partitions in partition order (see the
    module docstring). Yields whether the mapping is pinned; when LightGBM no longer has the
    function it is not, and a warning says so."""
    import lightgbm.dask as lgb_dask

    original = getattr(lgb_dask, "_machines_to_worker_map", None)
    if original is None:
        warnings.warn(UNPINNED, RuntimeWarning, stacklevel=3)
        yield False
        return

    def assign(machines: str, worker_addresses: Iterable[str]) -> dict[str, int]:
        workers = list(worker_addresses)
        if any(w not in ports for w in workers):  # not the fit ltrbench set up: LightGBM's own
            return dict(original(machines=machines, worker_addresses=workers))
        return {w: ports[w] for w in workers}

    lgb_dask._machines_to_worker_map = assign
    if client is not None:  # an attribute of this one client object, removed after the fit
        client.who_has = _asked_order(type(client).who_has.__get__(client))
    try:
        yield True
    finally:
        lgb_dask._machines_to_worker_map = original
        if client is not None:
            with contextlib.suppress(AttributeError):
                del client.who_has


__all__ = ["UNPINNED", "machine_ports", "machines", "ranks_in_worker_order"]
