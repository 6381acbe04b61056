"""A worker lost while a Dask fit waits on it ends the fit at once with the lost-worker error.

The fit's partitions are pinned to their workers (``spread``: ``allow_other_workers=False``),
so before ``bench.data.dask_watch`` a worker killed after the spread left a task that no
worker could run, and the fit waited forever: measured in round 15 with XGBoost
(``DaskDMatrix`` waiting for its parts, still waiting 600 s later). Here the worker is killed at
that exact point, for each library, and the fit must raise within :data:`BOUND_S`."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

pytest.importorskip("distributed")
pytest.importorskip("dask.dataframe")

from bench.data.dask_cluster import LOST_WORKER, cluster, spread, worker_addresses
from bench.data.query_shards import read_query_shards, write_query_shards
from bench.datasets.catalogue import get_card
from bench.datasets.letor_shapes import generate_split, shape_of
from bench.errors import LtrbenchError
from bench.runners.params import Params

pytestmark = pytest.mark.slow

PARAMS = Params(n_trees=8, num_leaves=7, learning_rate=0.3, min_data_in_leaf=5,
                early_stopping_rounds=3, seed=1)
#: seconds the fit has to end after the kill (the watch looks every 0.25 s; a hang is forever;
#: generous for two busy cores)
BOUND_S = 120.0


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, dict[str, Any]]]:
    """One cluster for the file: a killed worker's nanny starts it again (at a new address), and
    each case waits for both workers before it starts."""
    root = tmp_path_factory.mktemp("lost-worker")
    shape = shape_of(get_card("synthetic-mslr30k"))
    with cluster(workers=2, threads=1, memory_limit="1GB") as client:
        frames = {}
        for split in ("train", "vali"):
            data = generate_split(shape, split, scale=0.002, seed=3)
            write_query_shards(data, root / split, rows_per_shard=1500 if split == "train"
                               else 500)
            frames[split] = read_query_shards(root / split)
        yield client, frames


@pytest.fixture
def whole(world: tuple[Any, dict[str, Any]]) -> tuple[Any, dict[str, Any]]:
    client, frames = world
    client.wait_for_workers(2, timeout=60)
    return client, frames


def _kill_second_worker(client: Any) -> None:
    """Worker 2 of 2 exits; returns once the scheduler has removed it."""
    doomed = worker_addresses(client)[1]
    client.submit(os._exit, 1, workers=[doomed], pure=False)
    deadline = time.monotonic() + 60
    while doomed in worker_addresses(client) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert doomed not in worker_addresses(client), "the worker did not die"


def _killing(real: Callable[..., Any], client: Any) -> Callable[..., Any]:
    """``real``, after killing a worker on its first call."""
    calls = {"n": 0}

    def call(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 1:
            _kill_second_worker(client)
        return real(*args, **kwargs)

    return call


def _bounded(fit: Callable[[], Any]) -> BaseException | None:
    """What ``fit`` raised (``None``: it returned); fails the test when it runs past BOUND_S."""
    seen: dict[str, BaseException | None] = {"exc": None}

    def target() -> None:
        try:
            fit()
        except BaseException as exc:
            seen["exc"] = exc

    thread = threading.Thread(target=target, daemon=True)
    t0 = time.monotonic()
    thread.start()
    thread.join(BOUND_S)
    if thread.is_alive():
        pytest.fail(f"the fit still waited {BOUND_S:.0f} s after its worker was killed")
    assert time.monotonic() - t0 < BOUND_S
    return seen["exc"]


@pytest.mark.parametrize(("library", "objective", "where"), [
    ("xgboost", "ndcg", "xgboost.dask.DaskDMatrix"),  # XGBoost gathers its matrices' parts
    ("lightgbm", "lambdarank", "bench.runners.dask_gbdt.ranks_in_worker_order"),  # LightGBM's fit
])
def test_a_worker_killed_after_the_rows_were_spread_ends_the_fit_with_the_lost_worker_error(
        whole: tuple[Any, dict[str, Any]], monkeypatch: pytest.MonkeyPatch, library: str,
        objective: str, where: str) -> None:
    import importlib

    from bench.runners.dask_gbdt import train_dask

    client, frames = whole
    module, name = where.rsplit(".", 1)
    target = importlib.import_module(module)
    monkeypatch.setattr(target, name, _killing(getattr(target, name), client))
    exc = _bounded(lambda: train_dask(library, client, frames["train"], frames["vali"], PARAMS,
                                      objective=objective))
    assert isinstance(exc, LtrbenchError), repr(exc)
    assert str(exc).startswith(f"{LOST_WORKER} during the {library} fit ("), str(exc)
    assert "2 workers at the start, 1 of them later" in str(exc)
    # the failed fit left nothing stale in the client: its rows persist again on this client
    # (a key left cancelled there raised FuturesCancelledError at the next persist)
    client.wait_for_workers(2, timeout=60)
    rows = spread(client, frames["train"])
    assert len(rows) == len(frames["train"])


def test_a_fit_that_fails_with_every_worker_alive_keeps_its_own_error(
        whole: tuple[Any, dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    import xgboost.dask

    from bench.runners.dask_gbdt import train_dask

    client, frames = whole

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the library's own failure")

    monkeypatch.setattr(xgboost.dask, "DaskDMatrix", broken)
    with pytest.raises(RuntimeError, match="the library's own failure"):
        train_dask("xgboost", client, frames["train"], frames["vali"], PARAMS, objective="ndcg")
    assert len(worker_addresses(client)) == 2
