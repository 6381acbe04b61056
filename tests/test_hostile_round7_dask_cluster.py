"""Hostile Dask clusters, round 7 (issue 19 item 8 and the Dask engine): new instances.

Classes (the earlier rounds' are in ``tests/test_hostile_dask_round5.py``,
``tests/test_dask_loopback.py`` and ``tests/test_dask_train.py``):

* ``scheduler``: a ``--scheduler`` where another protocol speaks first (an SSH banner: Dask's
  client read it as a message length of 2.8e18 bytes and died in ``_ArrayMemoryError``), a
  short garbage message, the wildcard ``0.0.0.0`` / ``[::]`` (allowed, warned, and the address
  as given recorded in the manifest), an address of another machine that does not answer;
* ``faults``: a worker that dies while the models are scored (after the fit) was a
  ``KilledWorker`` traceback; now one line naming the pair and ``--resume``, like a death
  during the fit;
* ``threads``: ``n_threads`` is not used on Dask (each library takes its worker's threads):
  each result says so instead of dropping it in silence;
* ``heartbeat``: the local engine shows a heartbeat inside long fits (``on_iteration``); the
  Dask engine had none. Each boosting round is now relayed from the workers to the hook
  (XGBoost: its all-reduced validation value, equal to the fit's curve; LightGBM: the round,
  its value NaN since LightGBM-Dask has no global validation value during the fit).

One in-process LocalCluster (one worker) serves the module.
"""

from __future__ import annotations

import math
import socket
import struct
import threading
import time
import warnings
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest

from bench.errors import ConfigError, LtrbenchError

pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client() -> Any:
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                      dashboard_address=None) as lc, Client(lc) as c:
        yield c


def _connect(address: str) -> None:
    from bench.data.dask_cluster import cluster

    with cluster(address):
        pass


def _speaker(first: bytes) -> tuple[socket.socket, int]:
    """A TCP listener on loopback that sends ``first`` to each connection and then waits."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)

    def serve() -> None:
        conns = []
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                break
            conn.sendall(first)
            conns.append(conn)  # kept open: the client must not wait for it for ever
        for conn in conns:
            conn.close()

    threading.Thread(target=serve, daemon=True).start()
    return srv, srv.getsockname()[1]


# ---------------------------------------------------------------------------------- scheduler


@pytest.mark.parametrize("first", [b"SSH-2.0-OpenSSH_9.6\r\n", b"HTTP/1.1 400 Bad Request\r\n\r\n",
                                   struct.pack("<Q", 1 << 40)])
def test_a_scheduler_port_where_another_protocol_speaks_first_is_one_line(first: bytes) -> None:
    srv, port = _speaker(first)
    try:
        with pytest.raises(ConfigError) as info:
            _connect(f"tcp://127.0.0.1:{port}")
    finally:
        srv.close()
    text = str(info.value)
    assert "another protocol" in text, text
    assert f"127.0.0.1:{port}" in text, text


def test_a_scheduler_port_that_sends_a_short_garbage_message_is_one_line() -> None:
    srv, port = _speaker(struct.pack("<Q", 16) + b"garbage garbage!")
    try:
        with pytest.raises(ConfigError) as info:
            _connect(f"tcp://127.0.0.1:{port}")
    finally:
        srv.close()
    assert f"127.0.0.1:{port}" in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(("address", "wild"), [
    ("tcp://0.0.0.0:8786", True), ("tcp://[::]:8786", True), ("tcp://127.0.0.1:8786", False),
    ("tcp://[::1]:8786", False), ("tcp://scheduler.example.org:8786", False),
    ("tcp://10.1.2.3:8786", False)])
def test_only_the_wildcard_address_is_warned(address: str, wild: bool) -> None:
    from bench.data.dask_cluster import WildcardAddressWarning, warn_wildcard

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert warn_wildcard(address, address) is wild
    assert [w.category for w in seen] == ([WildcardAddressWarning] if wild else [])


def test_a_scheduler_given_as_0000_works_and_is_warned() -> None:
    from distributed import LocalCluster

    from bench.data.dask_cluster import WildcardAddressWarning, cluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, host="127.0.0.1",
                      protocol="tcp", scheduler_port=0, dashboard_address=None) as lc:
        port = lc.scheduler_address.rsplit(":", 1)[1]
        with pytest.warns(WildcardAddressWarning, match="0.0.0.0 is the wildcard address"), \
                cluster(f"tcp://0.0.0.0:{port}") as c:
            assert c.submit(sum, [40, 2]).result() == 42


def test_an_address_of_another_machine_that_does_not_answer_is_refused_fast(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.data import dask_cluster

    monkeypatch.setattr(dask_cluster, "CONNECT_TIMEOUT_S", 0.5)
    started = time.monotonic()
    with pytest.raises(ConfigError) as info:  # TEST-NET-1: no machine answers there
        _connect("tcp://192.0.2.1:8786")
    assert "192.0.2.1:8786" in str(info.value)
    assert time.monotonic() - started < 10


def test_the_manifest_records_the_scheduler_as_the_user_gave_it() -> None:
    from bench.engines.dask_trainer import DaskTrainer

    t = object.__new__(DaskTrainer)
    t.scheduler, t.local_scheduler = "tcp://0.0.0.0:8786", False
    t.cluster, t.listened, t.libraries = {"scheduler": "tcp://10.0.0.5:8786"}, set(), {}
    record = t.listeners()["scheduler"]
    assert record == {"address": "tcp://10.0.0.5:8786", "given_by_user": True,
                      "given": "tcp://0.0.0.0:8786", "loopback": False}


# ------------------------------------------------------------------------ faults and threads


def _frame(n_queries: int = 12, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(n_queries):
        labels = rng.integers(0, 3, 8)
        for lab in labels:
            rows.append({"qid": q, "label": float(lab),
                         **{f"f{j}": float(rng.random() + 0.4 * lab) for j in range(4)}})
    return pd.DataFrame(rows)


def _fake_trainer(client: Any, tmp: Path) -> Any:
    """A DaskTrainer on the module's cluster without writing shards (its frames given)."""
    import dask.dataframe as dd

    from bench.engines.dask_trainer import DaskTrainer

    t = object.__new__(DaskTrainer)
    frame = _frame()
    t.client, t.scheduler, t.local = client, None, True
    t.workdir, t.log = tmp / ".dask", tmp / "dask-libraries.log"
    t.frames = {s: dd.from_pandas(frame, npartitions=2) for s in ("train", "vali", "test")}
    t.cluster = {"threads": [1], "scheduler": "inproc://x", "worker_addresses": []}
    t.listened, t._warned, t.libraries, t.local_scheduler = set(), set(), {}, True
    t.workers_at_start = set(client.scheduler_info()["workers"])
    return t


def _fake_fit(n: int) -> Any:
    from bench.runners.dask_gbdt import DaskFit

    curve = [0.5 + 0.01 * i for i in range(n)]
    return DaskFit("xgboost", None, {}, n, n, curve, n, "ndcg@10", 0.1, ["f0"],
                   {"selection": "test"}, {"ndcg@10": curve})


def _pair(t: Any, **kwargs: Any) -> Any:
    from bench.data.letor import LetorData, LetorSplits
    from bench.runners.baselines import ALSParams
    from bench.runners.params import Params
    from bench.runners.result import Selection

    d = LetorData.build(np.zeros((2, 1), np.float32), np.array([1.0, 0.0]), qid=np.array([1, 1]))
    return t("xgboost-ndcg", LetorSplits(name="t", train=d, vali=d, test=d),
             Params(n_trees=3, n_threads=8), seed=0, eval_at=(10,),
             selection=Selection.parse("ndcg@10"), log_train=False, als=ALSParams(), **kwargs)


def test_a_worker_that_dies_while_the_models_are_scored_is_one_line(
        client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from distributed.scheduler import KilledWorker

    import bench.engines.dask_trainer as engine

    monkeypatch.setattr(engine, "train_dask", lambda *a, **k: _fake_fit(3))

    def dying(fit: Any, ddf: Any) -> Any:
        raise KilledWorker("predict-123", SimpleNamespace(address="tcp://127.0.0.1:1"), 3)

    monkeypatch.setattr(engine, "predict_frame", dying)
    with pytest.raises(LtrbenchError) as info:
        _pair(_fake_trainer(client, tmp_path))
    assert type(info.value) is LtrbenchError
    text = str(info.value)
    assert "\n" not in text
    for words in ("xgboost-ndcg seed 0", "scoring failed", "KilledWorker", "--resume"):
        assert words in text, (words, text)


def test_a_dask_fit_says_n_threads_is_not_used_and_gets_the_heartbeat(
        client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import bench.engines.dask_trainer as engine

    given: dict[str, Any] = {}

    def fake(*args: Any, **kwargs: Any) -> Any:
        given.update(kwargs)
        return _fake_fit(3)

    def scores(fit: Any, ddf: Any) -> Any:
        return ddf.assign(score=ddf["f0"])

    monkeypatch.setattr(engine, "train_dask", fake)
    monkeypatch.setattr(engine, "predict_frame", scores)

    def hook(i: int, v: float) -> None:
        return None

    result = _pair(_fake_trainer(client, tmp_path), on_iteration=hook)
    assert given["on_iteration"] is hook
    assert "n_threads=8 is not used on the Dask engine" in result.notes["threads"]
    assert result.notes["threads"].startswith("1 per worker")


def test_a_connection_lost_while_the_workers_memory_is_read_is_one_line_naming_the_lost_worker(
        client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The review's find: after the scoring, the workers' peak memory is read by a Scheduler
    Broadcast outside every step's guard, so a worker killed then reached the user as Dask's
    bare ``in <TCP (closed) Scheduler Broadcast ...>: ConnectionResetError`` line."""
    from distributed.comm.core import CommClosedError

    import bench.engines.dask_trainer as engine

    monkeypatch.setattr(engine, "train_dask", lambda *a, **k: _fake_fit(3))
    monkeypatch.setattr(engine, "predict_frame", lambda fit, ddf: ddf.assign(score=ddf["f0"]))

    def broken(self: Any) -> Any:
        raise CommClosedError("in <TCP (closed) Scheduler Broadcast local=tcp://127.0.0.1:1 "
                              "remote=tcp://127.0.0.1:2>: ConnectionResetError: [Errno 104] "
                              "Connection reset by peer")

    monkeypatch.setattr(engine.DaskTrainer, "_worker_peak_rss_mb", broken)
    with pytest.raises(LtrbenchError) as info:
        _pair(_fake_trainer(client, tmp_path))
    text = str(info.value)
    assert "\n" not in text
    for words in ("xgboost-ndcg seed 0", "a Dask worker of the cluster, or its connection, was "
                  "lost", "CommClosedError", "--resume"):
        assert words in text, (words, text)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_dask_model_whose_scores_are_not_finite_is_refused_as_a_local_one(
        client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bad: float) -> None:
    """The review's find: the local fit refuses NaN or infinite scores naming the model, the
    split and the row (``gbdt.refuse_non_finite``); the Dask fit's went on to the evaluation."""
    import bench.engines.dask_trainer as engine

    monkeypatch.setattr(engine, "train_dask", lambda *a, **k: _fake_fit(3))
    monkeypatch.setattr(engine, "predict_frame", lambda fit, ddf: ddf.assign(
        score=ddf["f0"].where(ddf["f0"] < 0.9, bad)))
    with pytest.raises(ConfigError) as info:
        _pair(_fake_trainer(client, tmp_path))
    text = str(info.value)
    for words in ("xgboost-ndcg", "not finite on the vali split", "learning_rate"):
        assert words in text, (words, text)


def test_a_worker_that_joined_during_a_fit_is_not_a_lost_worker() -> None:
    from bench.data.dask_watch import refuse_lost_workers

    a, b, c = "tcp://127.0.0.1:1", "tcp://127.0.0.1:2", "tcp://10.0.0.7:3"
    refuse_lost_workers("xgboost", {a, b}, {a, b, c})  # an external cluster grew: no error
    refuse_lost_workers("xgboost", {a, b}, {a, b})


@pytest.mark.parametrize(("before", "after", "lost"), [
    ({"tcp://127.0.0.1:1", "tcp://127.0.0.1:2"}, {"tcp://127.0.0.1:1"}, "tcp://127.0.0.1:2"),
    # restarted by its nanny at a new address: the old one is lost, whatever joined
    ({"tcp://127.0.0.1:1", "tcp://127.0.0.1:2"}, {"tcp://127.0.0.1:1", "tcp://127.0.0.1:9"},
     "tcp://127.0.0.1:2"),
])
def test_a_worker_gone_during_a_fit_is_refused_naming_it_and_no_local_cluster(
        before: set[str], after: set[str], lost: str) -> None:
    from bench.data.dask_watch import refuse_lost_workers

    with pytest.raises(LtrbenchError) as info:
        refuse_lost_workers("lightgbm", before, after)
    text = str(info.value)
    assert lost in text, text
    assert "2 workers at the start, 1 of them later" in text, text
    assert "a Dask worker of the cluster, or its connection, was lost" in text
    assert "local" not in text  # the check runs on external schedulers too


def test_only_dasks_lost_worker_errors_read_as_a_lost_worker() -> None:
    from types import SimpleNamespace

    from distributed.comm.core import CommClosedError
    from distributed.scheduler import KilledWorker

    from bench.data.dask_cluster import is_lost_worker

    assert is_lost_worker(CommClosedError("in <TCP (closed)>: Stream is closed"))
    assert is_lost_worker(KilledWorker("k", SimpleNamespace(address="tcp://127.0.0.1:1"), 3))
    assert not is_lost_worker(ConnectionResetError(104, "Connection reset by peer"))
    assert not is_lost_worker(OSError("in <TCP (closed)> looks alike but is no Dask error"))


# ----------------------------------------------------------------------------------- heartbeat


def test_the_pipeline_gives_the_dask_trainer_the_heartbeat() -> None:
    from bench.benchmark.pipeline import _heartbeat
    from bench.engines.dask_trainer import DaskTrainer
    from bench.runners.registry import get_model
    from bench.runners.result import Selection

    config: Any = SimpleNamespace(selection=Selection.parse("ndcg@10"))
    beat = _heartbeat(object.__new__(DaskTrainer), get_model("xgboost-ndcg"),
                      lambda text, n: None, "x", 10, config)
    assert callable(beat.get("on_iteration"))


def test_an_xgboost_dask_fit_relays_every_round_with_its_curve_value(client: Any) -> None:
    import dask.dataframe as dd

    from bench.runners.dask_gbdt import train_dask
    from bench.runners.params import Params

    train = dd.from_pandas(_frame(16, 1), npartitions=2).persist()
    vali = dd.from_pandas(_frame(8, 2), npartitions=1).persist()
    calls: list[tuple[int, float]] = []
    fit = train_dask("xgboost", client, train, vali,
                     Params(n_trees=4, num_leaves=4, min_data_in_leaf=2, early_stopping_rounds=10,
                            seed=1),
                     objective="ndcg", on_iteration=lambda i, v: calls.append((i, v)))
    assert calls == [(i + 1, v) for i, v in enumerate(fit.curve)]
    assert len(calls) == 4


def test_lightgbm_dask_rounds_are_relayed_with_no_value(client: Any) -> None:
    from bench.runners.dask_gbdt import relayed_iterations

    calls: list[tuple[int, float]] = []
    with relayed_iterations(client, "lightgbm", "ndcg@10",
                            lambda i, v: calls.append((i, v))) as (callbacks, relay):
        (callback,) = callbacks

        def rounds() -> None:  # on the worker, as LightGBM calls its callbacks
            for k in range(3):
                callback(SimpleNamespace(iteration=k))
                callback(SimpleNamespace(iteration=k))  # a second worker's report of it

        client.submit(rounds, pure=False).result()
        relay.wait_for(3)
    assert [i for i, _ in calls] == [1, 2, 3]
    assert all(math.isnan(v) for _, v in calls)


def test_a_hook_that_raises_is_raised_after_the_fit_unchanged() -> None:
    from bench.runners.dask_gbdt import _Relay

    class Stop(Exception):
        pass

    stop = Stop("pruned")

    def hook(i: int, v: float) -> None:
        if i == 2:
            raise stop

    relay = _Relay(hook)
    for i in (1, 2, 3):
        relay.event((0.0, (i, 0.5)))
    assert relay.last == 2
    with pytest.raises(Stop) as info:
        relay.reraise()
    assert info.value is stop


def test_no_hook_subscribes_nothing_and_waits_for_nothing(client: Any) -> None:
    from bench.runners.dask_gbdt import RELAY_DRAIN_S, relayed_iterations

    with relayed_iterations(client, "xgboost", "ndcg@10", None) as (callbacks, relay):
        started = time.monotonic()
        relay.wait_for(100)
    assert callbacks == []
    assert time.monotonic() - started < RELAY_DRAIN_S / 2  # it did not wait for events


@pytest.mark.parametrize("given", ["bad address", "udp://host:1", "tcp://host:0"])
def test_a_malformed_scheduler_in_a_config_is_refused_when_the_config_is_read(
        given: str, tmp_path: Path) -> None:
    """Found by round 7: a malformed ``scheduler`` was refused only once the cluster opened,
    after the dataset had loaded; the config refuses it (the file named) before any data."""
    from bench.benchmark.config import RunConfig

    with pytest.raises(ConfigError, match="scheduler"):
        RunConfig(engine="dask", scheduler=given)
    config = tmp_path / "run.toml"
    config.write_text(f'engine = "dask"\nscheduler = "{given}"\n')
    with pytest.raises(ConfigError, match=r"run\.toml"):
        RunConfig.load(config)
