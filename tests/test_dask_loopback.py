"""Loopback by default (issue 19, item 8): a default ``run --engine dask`` (a LocalCluster this
process starts; no ``--scheduler``) listens on 127.0.0.0/8 only -- Dask's scheduler, nannies,
workers and HTTP routes, XGBoost's tracker and collective workers, LightGBM's network -- and its
manifest records every address it listened on.

The sockets are read independently of the code under test: ``/proc/net/tcp`` and
``/proc/net/tcp6`` (``Documentation/networking/proc_net_tcp.rst``: hex ``address:port``, the
IPv4 address as a little-endian 32-bit word, state ``0A`` = LISTEN), sampled by a thread every
50 ms while the run trains, restricted to the sockets of this process and its children (the
``socket:[inode]`` links under ``/proc/<pid>/fd``).
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import socket
import struct
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import pytest

pytest.importorskip("distributed")
pytest.importorskip("xgboost")
pytest.importorskip("lightgbm")

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not Path("/proc/net/tcp").is_file(), reason="needs Linux /proc")]


def _decode(hex_address: str) -> str:
    host, port = hex_address.split(":")
    raw = bytes.fromhex(host)
    if len(raw) == 4:
        ip = socket.inet_ntop(socket.AF_INET, raw[::-1])
    else:  # four 32-bit words, each little-endian
        ip = socket.inet_ntop(socket.AF_INET6, b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4)))
    return f"{ip}:{int(port, 16)}"


def _listening() -> dict[str, str]:
    """inode -> "ip:port" of every LISTEN socket in this network namespace."""
    out = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table, encoding="ascii") as fh:
            next(fh)
            for line in fh:
                fields = line.split()
                if fields[3] == "0A":
                    out[fields[9]] = _decode(fields[1])
    return out


def _family_pids() -> set[int]:
    """This process and its descendants, from /proc/<pid>/stat's parent field."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    family, grew = {os.getpid()}, True
    while grew:
        more = {p for p, parent in parents.items() if parent in family} - family
        family |= more
        grew = bool(more)
    return family


def _socket_inodes(pids: set[int]) -> set[str]:
    inodes = set()
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:  # the process ended
            continue
        for fd in fds:
            try:  # (an fd closed since the listing, e.g. the listing's own)
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    return inodes


class Listeners:
    """Samples the LISTEN sockets of this process tree in a thread."""

    def __init__(self) -> None:
        self.seen: set[str] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.is_set():
            listening = _listening()
            self.seen |= {listening[i] for i in _socket_inodes(_family_pids()) if i in listening}
            self._stop.wait(0.05)

    def __enter__(self) -> Listeners:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _loopback(address: str) -> bool:
    ip = ipaddress.ip_address(address.rsplit(":", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def test_the_proc_reader_sees_a_wildcard_and_a_loopback_listener() -> None:
    with Listeners() as seen, socket.socket() as wild, socket.socket() as lo:
        wild.bind(("0.0.0.0", 0))
        wild.listen()
        lo.bind(("127.0.0.1", 0))
        lo.listen()
        want = {f"0.0.0.0:{wild.getsockname()[1]}", f"127.0.0.1:{lo.getsockname()[1]}"}
        deadline = time.monotonic() + 30  # a sample takes ~40 ms; far longer on a busy machine
        while not want <= seen.seen and time.monotonic() < deadline:
            time.sleep(0.01)
    assert want <= seen.seen
    assert not _loopback("0.0.0.0:1")
    assert _loopback("127.0.0.1:1")
    assert _loopback("::1:1")


#: Lines the libraries print during a distributed fit (seen on the terminal before issue 21
#: item 6 was fixed).
LIBRARY_LINES = re.compile(r"\[LightGBM\]|Using passed-in 'machines'|got rank|"
                           r"Parameter n_jobs will be ignored|\[xgboost", re.IGNORECASE)
ROOT = Path(__file__).resolve().parents[1]


def test_a_default_dask_run_listens_on_loopback_only_is_complete_and_keeps_library_logs_off_the_terminal(
        tmp_path: Path) -> None:
    """One default ``run --engine dask`` (2 workers, both GBDT libraries and ``random``, the
    cross-check on) holds the assertions of three tests that each started such a run:

    * test_a_default_dask_run_listens_on_loopback_only_and_records_it (issue 19, item 8): every
      LISTEN socket of the command and its workers, sampled from ``/proc``, is on 127.0.0.0/8,
      and the manifest records loopback addresses only;
    * test_run_engine_dask_writes_a_complete_run_with_the_cluster_in_its_manifest (formerly in
      test_dask_train.py): the manifest names the engine, the cluster and the partitions; every
      model has its timings and one score per row of each split; the cross-check passed;
      XGBoost's all-reduced eval log is the one written;
    * test_a_dask_run_keeps_the_library_logs_off_the_terminal_and_in_its_folder (formerly in
      test_engines_dask_logs.py, issue 21 item 6): no LightGBM or XGBoost line on the command's
      standard output or error (every process's: the command runs as a child whose two streams
      are captured), and the run folder's ``dask-libraries.log`` has them.
    """
    import pandas as pd

    from bench.engines.library_log import LIBRARY_LOG

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with Listeners() as sampled:
        proc = subprocess.run(
            [sys.executable, "-m", "bench", "run", "--dataset", "synthetic", "--quick",
             "--seeds", "0", "--models", "xgboost-ndcg,lightgbm-lambdarank,random",
             "--engine", "dask", "--workers", "2", "--no-progress", "--out", str(tmp_path)],
            capture_output=True, text=True, timeout=900, cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (run_dir,) = (tmp_path / "runs").iterdir()
    manifest = json.loads((run_dir / "manifest.json").read_text())

    # loopback only, and recorded
    outside = sorted(a for a in sampled.seen if not _loopback(a))
    assert sampled.seen, "the sampler saw no listener at all"
    assert not outside, f"listeners outside 127.0.0.0/8: {outside} (all: {sorted(sampled.seen)})"
    recorded = manifest["listeners"]
    assert recorded["loopback_only"] is True
    assert recorded["addresses"]
    assert all(_loopback(a) for a in recorded["addresses"])
    # what the run recorded covers what was seen (the sampler may miss a short-lived one)
    assert {a.rsplit(":", 1)[0] for a in recorded["addresses"]} == {"127.0.0.1"}

    # a complete run with the cluster in its manifest
    assert manifest["engine"] == "dask"
    assert manifest["cluster"]["workers"] == 2
    assert all(n >= 2 for n in manifest["partitions"].values())
    timings = pd.read_csv(run_dir / "timings.csv").set_index("model")
    assert set(timings.index) == {"xgboost-ndcg", "lightgbm-lambdarank", "random"}
    scores = pd.read_parquet(run_dir / "scores.parquet")
    labels = pd.read_parquet(run_dir / "labels.parquet")
    for model in ("xgboost-ndcg", "lightgbm-lambdarank"):
        for split in ("vali", "test"):
            n = int((labels["split"] == split).sum())
            assert ((scores["model"] == model) & (scores["split"] == split)).sum() == n
    assert manifest["crosscheck"]["ok"], manifest["crosscheck"]
    # XGBoost's all-reduced eval log is what the cross-check compared; LightGBM logs none
    log = pd.read_csv(run_dir / "evallog.csv")
    assert set(log["model"]) == {"xgboost-ndcg"}

    # the libraries' logs off the terminal, in the run folder
    terminal = proc.stdout + proc.stderr
    assert not [line for line in terminal.splitlines() if LIBRARY_LINES.search(line)], terminal
    library_log = (run_dir / LIBRARY_LOG).read_text(encoding="utf-8")
    assert "[LightGBM] [Info]" in library_log  # the workers' network set-up
    assert "got rank" in library_log  # XGBoost's ranks
    assert "Parameter n_jobs will be ignored" in library_log  # a library warning of this process


def test_the_tracker_is_given_loopback_only_on_a_loopback_scheduler() -> None:
    from types import SimpleNamespace

    from bench.runners.dask_gbdt import tracker_config

    def client(address: str) -> SimpleNamespace:
        return SimpleNamespace(scheduler=SimpleNamespace(address=address))

    assert tracker_config(client("tcp://127.0.0.1:8786")).tracker_host_ip == "127.0.0.1"
    assert tracker_config(client("tcp://10.0.0.5:8786")) is None  # the user's cluster: XGBoost's choice


def _sockaddr_in(ip: str, port: int) -> bytes:
    return struct.pack("=H", socket.AF_INET) + struct.pack("!H", port) + socket.inet_aton(ip) + bytes(8)


def test_the_bind_hook_turns_a_wildcard_into_loopback_and_keeps_bind_s_errno() -> None:
    import ctypes
    import errno

    from bench.data.loopback import _install_hook, bound_addresses

    hook = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32,
                            use_errno=True)(_install_hook())
    with socket.socket() as wild, socket.socket() as taken:
        address = _sockaddr_in("0.0.0.0", 0)
        assert hook(wild.fileno(), address, len(address)) == 0
        host, port = wild.getsockname()
        assert host == "127.0.0.1"
        assert f"127.0.0.1:{port}" in bound_addresses()
        wild.listen()
        again = _sockaddr_in("127.0.0.1", port)  # the port is in use: bind's own failure
        assert hook(taken.fileno(), again, len(again)) == -1
        assert ctypes.get_errno() == errno.EADDRINUSE


def test_both_libraries_bind_relocations_are_found_and_redirected() -> None:
    from bench.data.dask_cluster import confine_gbdt_listeners

    assert confine_gbdt_listeners() == {"lightgbm": "confined", "xgboost": "confined"}


def test_a_library_that_could_not_be_confined_is_a_warning_and_the_manifest_says_so(monkeypatch):
    import bench.engines.dask_trainer as engine

    outcome = {"tcp://127.0.0.1:1": {"libxgboost.so": "not confined: darwin",
                                     "lib_lightgbm.so": "confined"}}
    monkeypatch.setattr(engine, "library_listeners", lambda client: {
        w: {"libraries": libs, "bound": ["0.0.0.0:5000"]} for w, libs in outcome.items()})
    monkeypatch.setattr(engine, "listening_addresses", lambda: ["127.0.0.1:8786"])
    trainer = object.__new__(engine.DaskTrainer)
    trainer.client, trainer.scheduler = None, None
    trainer.listened, trainer.libraries, trainer._warned = set(), {}, set()
    with pytest.warns(engine.ListenerWarning, match=r"libxgboost.so not confined: darwin"):
        trainer._note_listeners()
    record = trainer.listeners()
    assert record["loopback_only"] is False
    assert "0.0.0.0:5000" in record["addresses"]
    with warnings.catch_warnings():  # said once per run
        warnings.simplefilter("error")
        trainer._note_listeners()
