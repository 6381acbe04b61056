"""Hostile Dask shards and listeners, round 9 (issue 19 items 1 and 8): new instances.

Classes (earlier rounds: ``tests/test_hostile_dask_shards.py``, ``..._dask_round5.py``,
``..._dask_inputs.py``, ``..._round7_dask*.py``, ``..._round8_dask*.py``):

* ``listeners`` (found here): ``--scheduler ws://`` given the address of a ``tcp`` scheduler
  waited Dask's 30 s connect timeout (and the scheduler logged a MemoryError for the HTTP request
  it read as a frame length); ``tcp://`` given an HTTP port (the dashboard, a ``ws`` scheduler)
  waited 10 s for a handshake; ``ws://`` given a plain HTTP server, a silent listener or one
  that speaks first started Dask's client (30 s); ``tls://`` with certificates configured, given a
  ``tcp`` scheduler, the same. Now each is one line within about two seconds naming what listens
  there (and the right ``tcp://`` address for a ``tcp`` scheduler); a real scheduler that sends its
  handshake late, and a real WebSocket server, still pass. Fake listeners (threads of this
  process) stand for the schedulers: no 30 s wait and no cluster start in CI.
* ``units`` (found here): seconds in one ratings shard beside milliseconds in another (or in
  another block of one large CSV file) were converted without a word; the local readers refuse
  them in one file. Now the same rule across shards, naming both files (and rows of Parquet).
* ``places`` (found here): small Parquet ratings shards read for a few of their columns are
  fused by Dask into one partition, so a bad value of the second shard was named as a row of
  the first (``part-0.parquet, row 4`` for ``part-1.parquet, row 2``). Now the shard and row of
  the value.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from bench.errors import ConfigError, DataError

pytest.importorskip("distributed")

# ---------------------------------------------------------------------------------- listeners

#: What a Dask tcp listener sends on accept: a frame length (native uint64) and some bytes.
DASK_HELLO = struct.pack("Q", 24) + b"\x00" * 24


@contextlib.contextmanager
def _listener(serve: Callable[[socket.socket], None]) -> Iterator[int]:
    """A loopback listener whose every connection is handed to ``serve``; yields its port."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    srv.settimeout(0.2)
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except (TimeoutError, OSError):
                continue
            with conn, contextlib.suppress(OSError):
                serve(conn)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield int(srv.getsockname()[1])
    finally:
        stop.set()
        thread.join(5)
        srv.close()


def _read_request(conn: socket.socket, seconds: float = 5.0) -> bytes:
    conn.settimeout(seconds)
    data = b""
    with contextlib.suppress(TimeoutError, OSError):
        while b"\r\n\r\n" not in data:
            more = conn.recv(4096)
            if not more:
                break
            data += more
    return data


def dask_tcp(delay: float = 0.0) -> Callable[[socket.socket], None]:
    """A Dask tcp listener: its handshake on accept (after ``delay`` s), then it waits."""
    def serve(conn: socket.socket) -> None:
        time.sleep(delay)
        conn.sendall(DASK_HELLO)
        conn.settimeout(3)
        with contextlib.suppress(TimeoutError, OSError):
            conn.recv(1)
    return serve


def http(status: str) -> Callable[[socket.socket], None]:
    """An HTTP server answering every request with ``status``."""
    def serve(conn: socket.socket) -> None:
        if _read_request(conn):
            conn.sendall(f"HTTP/1.1 {status}\r\nContent-Length: 0\r\n\r\n".encode())
    return serve


def websocket(conn: socket.socket) -> None:
    """A WebSocket server: ``101`` to an upgrade, ``400`` otherwise (Tornado's answers)."""
    request = _read_request(conn)
    if b"Upgrade: websocket" in request:
        conn.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                     b"Connection: Upgrade\r\n\r\n")
    elif request:
        conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")


def silent(conn: socket.socket) -> None:
    """Reads what it is sent, answers nothing."""
    conn.settimeout(5)
    with contextlib.suppress(TimeoutError, OSError):
        while conn.recv(4096):
            pass


def banner(conn: socket.socket) -> None:
    conn.sendall(b"SSH-2.0-OpenSSH_9.6\r\n")
    silent(conn)


@pytest.fixture
def no_client(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dask's client may not start: the address must be refused before it (structural, not a
    wall-clock check, so a busy machine cannot fail it)."""
    import distributed

    class Refused:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            raise AssertionError("Dask's client was started: the address was not refused first")

    monkeypatch.setattr(distributed, "Client", Refused)
    from bench.data import dask_cluster

    monkeypatch.setattr(dask_cluster, "CONNECT_TIMEOUT_S", 3.0)


def _connect(address: str) -> None:
    from bench.data.dask_cluster import cluster

    with cluster(address):
        pass


def _one_line(exc: BaseException, *words: str) -> None:
    text = str(exc)
    assert "\n" not in text, text
    for word in words:
        assert word in text, (word, text)


WRONG = [
    ("ws-at-a-tcp-scheduler", "ws", dask_tcp(), ("speaks Dask's tcp protocol", "give tcp://")),
    ("tls-at-a-tcp-scheduler", "tls", dask_tcp(), ("speaks Dask's tcp protocol",
                                                   "give tcp://")),
    ("wss-at-a-tcp-scheduler", "wss", dask_tcp(), ("speaks Dask's tcp protocol",)),
    ("tcp-at-a-dashboard", "tcp", http("302 Found"), ("HTTP server answers", "302 Found",
                                                      "ws://")),
    ("tcp-at-a-ws-scheduler", "tcp", websocket, ("HTTP server answers", "400")),
    ("ws-at-a-dashboard", "ws", http("302 Found"), ("302 Found", "not a Dask ws://")),
    ("ws-at-a-silent-listener", "ws", silent, ("no answer to a WebSocket upgrade",)),
    ("ws-at-an-ssh-server", "ws", banner, ("speaks first", "SSH-2.0")),
]


@pytest.mark.parametrize(("scheme", "serve", "words"), [c[1:] for c in WRONG],
                         ids=[c[0] for c in WRONG])
def test_a_scheduler_address_of_the_wrong_protocol_or_port_is_refused_in_seconds(
        scheme: str, serve: Callable[[socket.socket], None], words: tuple[str, ...],
        no_client: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import dask

    ca = tmp_path / "ca.pem"
    ca.write_text("not read: the probe refuses first")
    with _listener(serve) as port, dask.config.set({"distributed.comm.tls.ca-file": str(ca)}):
        given = f"{scheme}://127.0.0.1:{port}"
        with pytest.raises(ConfigError) as info:
            _connect(given)
    _one_line(info.value, given, *words)


def _passes_the_probe(given: str) -> None:
    """The probe lets ``given`` through: Dask's client is then started (``no_client`` says so)."""
    with pytest.raises(ConfigError, match="client was started"):
        _connect(given)


def test_a_slow_real_tcp_scheduler_is_not_refused(no_client: None,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A scheduler that sends its handshake after the probe's HTTP question is still taken."""
    import importlib

    with contextlib.suppress(ImportError):  # the probe's module (before: none)
        monkeypatch.setattr(importlib.import_module("bench.data.dask_probe"), "HTTP_AFTER_S", 0.2)
    with _listener(dask_tcp(delay=0.6)) as port:
        _passes_the_probe(f"tcp://127.0.0.1:{port}")


def test_a_real_websocket_server_passes_the_ws_probe(no_client: None) -> None:
    with _listener(websocket) as port:
        _passes_the_probe(f"ws://127.0.0.1:{port}")


# -------------------------------------------------------------------------------------- units


def _csv(folder: Path, name: str, stamps: list[int], first_user: int = 1) -> None:
    folder.mkdir(exist_ok=True)
    (folder / name).write_text("user,item,rating,timestamp\n" + "".join(
        f"{first_user + k},{k + 1},{1 + k % 5},{t}\n" for k, t in enumerate(stamps)),
        encoding="utf-8")


def _parquet(folder: Path, name: str, stamps: list[int], first_user: int = 1,
             **extra: list[Any]) -> None:
    folder.mkdir(exist_ok=True)
    n = len(stamps)
    pd.DataFrame({"user": [first_user + k for k in range(n)], "item": list(range(1, n + 1)),
                  "rating": [3.0] * n, "timestamp": stamps, **extra}).to_parquet(folder / name)


def _computed(path: Path, **kw: Any) -> pd.DataFrame:
    from bench.data.dask_ratings import read_ratings_frame

    return read_ratings_frame(path, **kw).frame.compute(scheduler="synchronous")


SECONDS = [978300760, 978300761]
MILLIS = [978300760000, 978300761000]


def test_seconds_in_one_csv_shard_beside_milliseconds_in_another_are_refused(
        tmp_path: Path) -> None:
    _csv(tmp_path / "r", "a.csv", SECONDS)
    _csv(tmp_path / "r", "b.csv", MILLIS, first_user=10)
    with pytest.raises(DataError) as info:
        _computed(tmp_path / "r")
    _one_line(info.value, "b.csv", "978300760000", "a.csv, row 1)", "milliseconds")


def test_seconds_in_one_parquet_shard_beside_milliseconds_in_another_name_both_rows(
        tmp_path: Path) -> None:
    _parquet(tmp_path / "r", "a.parquet", [5, *SECONDS])
    _parquet(tmp_path / "r", "b.parquet", [7, *MILLIS], first_user=10)
    with pytest.raises(DataError) as info:
        _computed(tmp_path / "r")
    _one_line(info.value, "b.parquet, row 2", "a.parquet, row 2", "978300760000")


def test_two_blocks_of_one_csv_file_in_two_units_are_refused(tmp_path: Path) -> None:
    """Each block of a large file is a partition of its own, here each in one unit: every
    line has the same length (``3.0,1978300760`` seconds, ``3,978300760000`` milliseconds), so
    the blocks fall on the same lines whatever the unit."""
    import dask.dataframe as dd

    def write(n_seconds: int) -> Path:
        path = tmp_path / "big.csv"
        path.write_text("user,item,rating,timestamp\n" + "".join(
            f"{k + 10},{k + 10},{'3.0,1978300760' if k < n_seconds else '3,978300760000'}\n"
            for k in range(80)), encoding="utf-8")
        return path

    lengths = dd.read_csv(write(80), blocksize=300).map_partitions(len).compute().tolist()
    assert len(lengths) > 2
    path = write(lengths[0])  # the first block in seconds, every other in milliseconds
    with pytest.raises(DataError) as info:
        _computed(path, blocksize=300)
    _one_line(info.value, "big.csv", "978300760000", "1978300760", "milliseconds")


@pytest.mark.parametrize("second", [[5, 6], MILLIS], ids=["small-numbers", "all-milliseconds"])
def test_shards_of_one_unit_each_are_read_as_written(tmp_path: Path, second: list[int]) -> None:
    first = SECONDS if second == [5, 6] else [978300762000, 978300763000]
    _parquet(tmp_path / "r", "a.parquet", first)
    _parquet(tmp_path / "r", "b.parquet", second, first_user=10)
    got = _computed(tmp_path / "r")
    assert sorted(got["timestamp"].tolist()) == sorted([*first, *second])


# ------------------------------------------------------------------------------------- places


def test_a_bad_value_in_fused_parquet_shards_names_its_own_shard_and_row(tmp_path: Path) -> None:
    wide = {f"c{k}": ["x" * 40] * 2 for k in range(8)}  # read for 2 of 10 columns: fused
    folder = tmp_path / "r"
    folder.mkdir()
    pd.DataFrame({"user": [1.0, 2.0], "item": [1, 2], **wide}).to_parquet(folder / "p-0.parquet")
    pd.DataFrame({"user": [3.0, 4.5], "item": [1, 2], **wide}).to_parquet(folder / "p-1.parquet")
    with pytest.raises(DataError) as info:  # columns named: a guess beside c0..c7 is refused
        _computed(folder, user="user", item="item")
    _one_line(info.value, "p-1.parquet, row 2", "'user'", "4.5")


# ------------------------------------------------------------------- the user's Dask settings


def test_a_contact_address_in_the_users_dask_config_leaves_every_socket_on_loopback() -> None:
    """``DASK_DISTRIBUTED__SCHEDULER__CONTACT_ADDRESS`` (here set through ``dask.config``, as
    the variable sets it) made the local scheduler advertise another host: two workers tried
    to reach it for 30 s and the cluster failed to start (elsewhere, they would have joined
    a scheduler of another machine). One cluster start, two workers (``--workers 2``)."""
    import dask

    from bench.data.dask_cluster import cluster, describe, is_loopback, listening_addresses

    with dask.config.set({"distributed.scheduler.contact-address": "tcp://192.0.2.1:8786"}), \
            cluster(workers=2, memory_limit="1GB") as client:
        seen = listening_addresses()
        record = describe(client)
    assert seen
    assert all(is_loopback(a) for a in seen), seen
    assert is_loopback(str(record["scheduler"])), record
    assert record["workers"] == 2
    assert all(is_loopback(w) for w in record["worker_addresses"]), record


def test_required_encryption_in_the_users_dask_config_is_one_line_before_any_start() -> None:
    """Before: "Cluster failed to start: Scheduler failed to start." (a RuntimeError)."""
    import dask

    from bench.data.dask_cluster import cluster

    with dask.config.set({"distributed.comm.require-encryption": True}), \
            pytest.raises(ConfigError) as info, cluster(workers=1):
        pass
    _one_line(info.value, "distributed.comm.require-encryption", "--scheduler")


# ----------------------------------------------------------------------------- shard sets


def test_a_ratings_file_whose_name_is_a_pattern_of_another_file_is_read_as_itself(
        tmp_path: Path) -> None:
    """``r[1].csv`` exists; so does ``r1.csv``, which the name matches as a pattern. Before:
    ``convert --engine dask --ratings 'r[1].csv'`` read ``r1.csv`` (another table, exit 0)."""
    _csv(tmp_path, "r[1].csv", SECONDS)
    _csv(tmp_path, "r1.csv", [978300770, 978300771, 978300772], first_user=50)
    got = _computed(tmp_path / "r[1].csv")
    assert sorted(got["user"].tolist()) == [1, 2]
    assert sorted(_computed(tmp_path / "r?.csv")["user"].tolist()) == [50, 51, 52]  # a pattern


def test_thousands_of_tiny_query_shards_are_said_with_how_to_write_fewer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """10^4 shards of two rows took 9 minutes to evaluate (one Dask task per shard per pass)
    without a word; the threshold is lowered here so that a few shards stand for thousands."""
    import warnings

    import pyarrow as pa
    import pyarrow.parquet as pq

    from bench.data import query_shards

    monkeypatch.setattr(query_shards, "MANY_SHARDS", 5, raising=False)
    for k in range(6):
        pq.write_table(pa.table({"qid": [k, k], "label": [1.0, 0.0], "score": [0.2, 0.1]}),
                       tmp_path / f"part-{k:05d}.parquet")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        query_shards.read_query_shards(tmp_path, columns=["qid", "label", "score"])
    said = [str(w.message) for w in caught if type(w.message).__name__ == "ManyShardsWarning"]
    assert said, [str(w.message) for w in caught]
    _one_line(Exception(said[0]), "6 shards", "rows_per_shard")
    (tmp_path / "part-00005.parquet").unlink()  # five: not said
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        query_shards.read_query_shards(tmp_path, columns=["qid", "label", "score"])
    assert not [w for w in caught if type(w.message).__name__ == "ManyShardsWarning"]


def test_thousands_of_tiny_ratings_shards_are_said_too(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import warnings

    from bench.data import query_shards
    from bench.data.dask_ratings import read_ratings_frame

    monkeypatch.setattr(query_shards, "MANY_SHARDS", 2, raising=False)
    for k in range(3):
        _csv(tmp_path / "r", f"r{k}.csv", SECONDS, first_user=10 * k + 1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        read_ratings_frame(tmp_path / "r")
    said = [str(w.message) for w in caught if type(w.message).__name__ == "ManyShardsWarning"]
    assert said, [str(w.message) for w in caught]
    _one_line(Exception(said[0]), "3 shards")


def test_seconds_and_milliseconds_before_1970_across_shards_are_refused(tmp_path: Path) -> None:
    """The local rule reads magnitudes (before 1970 too: ``bench.data.ratings``); across Dask
    shards the signs were compared as they are, so -978300760000 ms beside -978300760 s
    passed."""
    _parquet(tmp_path / "r", "a.parquet", [-s for s in SECONDS])
    _parquet(tmp_path / "r", "b.parquet", [-m for m in MILLIS], first_user=10)
    with pytest.raises(DataError) as info:
        _computed(tmp_path / "r")
    _one_line(info.value, "-978300760000", "milliseconds")
