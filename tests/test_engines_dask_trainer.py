"""The Dask trainer cuts its shards for the workers the run starts with, read once: a local
cluster that lost a worker as it came up (its nanny restarts it at another address) is waited
for, and one still short of a worker is refused -- cut for fewer workers, the shards train another
model than the run records (round 11b's CI: a worker killed right after the start gave other
numbers with exit 0). Stand-in clients: no cluster starts here."""

from __future__ import annotations

from typing import Any

import pytest

from bench.engines import dask_trainer
from bench.engines.table import ClusterOptions
from bench.errors import LtrbenchError


class _Cluster:
    """A client's view of a cluster whose worker ``b`` died as it started: the scheduler lists
    ``a`` only until ``wait_for_workers`` is called, then ``a`` and the restarted ``b2`` (or, if
    the nanny gave up, still ``a`` only)."""

    def __init__(self, *, restarts: bool) -> None:
        self.workers = {"tcp://127.0.0.1:2": {}}
        self.restarts = restarts
        self.waited: list[int] = []

    def wait_for_workers(self, n: int, timeout: float) -> None:
        self.waited.append(n)
        if self.restarts:
            self.workers["tcp://127.0.0.1:9"] = {}
        else:
            raise TimeoutError(f"only {len(self.workers)} of {n} workers")

    def scheduler_info(self) -> dict[str, Any]:
        return {"workers": dict(self.workers)}


def test_a_local_worker_restarted_as_the_cluster_came_up_is_waited_for_and_counted() -> None:
    client = _Cluster(restarts=True)
    got = dask_trainer._workers_at_start(client, ClusterOptions(workers=2))
    assert client.waited == [2]
    assert got == {"tcp://127.0.0.1:2", "tcp://127.0.0.1:9"}  # the shards are cut for two


def test_a_local_cluster_still_short_of_a_worker_is_refused_before_any_shard() -> None:
    client = _Cluster(restarts=False)
    with pytest.raises(LtrbenchError, match=r"worker .*lost as the local cluster started "
                                            r"\(1 of its 2 workers"):
        dask_trainer._workers_at_start(client, ClusterOptions(workers=2))


def test_a_users_cluster_is_taken_as_it_is_and_never_waited_for() -> None:
    client = _Cluster(restarts=False)
    options = ClusterOptions(scheduler="tcp://127.0.0.1:8786", workers=2)
    assert dask_trainer._workers_at_start(client, options) == {"tcp://127.0.0.1:2"}
    assert client.waited == []
