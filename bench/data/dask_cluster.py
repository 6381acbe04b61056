"""Where Dask work runs: a loopback-only local cluster by default, or an existing scheduler.

``cluster(scheduler=None, workers=2)`` is a context manager that yields a
:class:`distributed.Client`:

* without ``scheduler``: a :class:`distributed.LocalCluster` of ``workers`` processes with
  ``threads`` threads each, every Dask socket on 127.0.0.1 (``host="127.0.0.1"``, and a
  ``distributed.scheduler.contact-address`` of the user's Dask configuration ignored), the dashboard
  off (the scheduler still serves its health routes, on a free port of 127.0.0.1),
  scratch files in ``local_directory`` (a temporary folder, removed afterwards, instead of
  ``dask-scratch-space`` in the system temp folder), ``memory_limit`` per worker;
* with ``scheduler`` (``tcp://host:8786``): a client of that cluster, which is left running.

Both GBDT libraries open their own listeners during distributed training whatever Dask's host
is (XGBoost's collective and LightGBM's ``local_listen_port`` bind all interfaces, with no
setting to change it; ``tests/test_dask_loopback.py`` reads ``/proc/net/tcp*`` during a run).
On the local cluster every worker (and this process) therefore runs :func:`loopback_plugin`, a worker plugin (so a
worker the nanny restarts gets it too) that makes both libraries bind loopback instead
(:mod:`bench.data.loopback`); XGBoost's tracker is given ``127.0.0.1`` by the runner. A cluster
of a user-given ``scheduler`` is left as it is: that is the one way off this machine.
:func:`describe` is what a manifest records about the cluster; :func:`listening_addresses` the
addresses this process and its children listen on, :func:`library_listeners` those the
libraries bound on the workers. Dask is an optional dependency
(``pip install "ltrbench[dask]"``); without it every entry point raises :class:`ConfigError`
saying what to install.
"""

from __future__ import annotations

import contextlib
import importlib
import ipaddress
import logging
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlparse

from bench.data.dask_probe import WildcardAddressWarning, probe_scheduler, warn_wildcard
from bench.data.dask_scratch import SCRATCH_PREFIX, remove_stale_scratch
from bench.errors import ConfigError, LtrbenchError

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

    if scheduler is not None:
        with _scheduler_client(scheduler, Client) as client:
            yield client
        return
    check_local_cluster(workers, threads)
    memory_limit = memory_limit_value(memory_limit)
    import dask

    if dask.config.get("distributed.comm.require-encryption", False):
        raise ConfigError("Dask's configuration requires encryption "
                          "(distributed.comm.require-encryption, e.g. "
                          "DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION): the local cluster's "
                          "scheduler cannot start without TLS certificates; unset it for a "
                          "local cluster (whose sockets are all on 127.0.0.1), or pass "
                          "--scheduler of a TLS cluster")
    # Dask's p2p shuffle logs two WARNING lines per shuffle ("initialized by task",
    # "deactivated due to stimulus"): routine events, not problems.
    logging.getLogger("distributed.shuffle._scheduler_plugin").setLevel(logging.ERROR)
    own_dir = local_directory is None
    if own_dir:
        remove_stale_scratch()
    scratch = tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-") if own_dir \
        else str(local_directory)
    with contextlib.ExitStack() as stack:  # closed in reverse order on every exit, errors too
        if own_dir:
            stack.callback(shutil.rmtree, scratch, ignore_errors=True)
        # the scheduler advertises its own loopback address: a contact address from the user's
        # Dask configuration (distributed.scheduler.contact-address, read by the Scheduler;
        # e.g. DASK_DISTRIBUTED__SCHEDULER__CONTACT_ADDRESS) sent the workers elsewhere
        stack.enter_context(dask.config.set({"distributed.scheduler.contact-address": None}))
        local = LocalCluster(
            n_workers=workers, threads_per_worker=threads, processes=True, host=LOOPBACK,
            # a task that refuses bad input is raised in the client as one line; the workers'
            # own "Compute Failed ... Traceback:" log of it would read as a crash
            # (bench.data.inputs)
            silence_logs=logging.CRITICAL,
            dashboard_address=None, local_directory=scratch, memory_limit=memory_limit,
            # no dashboard; the scheduler's own health/metrics HTTP routes on a free loopback
            # port (without this they take 8787, or warn and move when it is taken)
            scheduler_kwargs={"dashboard": False, "dashboard_address": f"{LOOPBACK}:0"},
        )
        stack.callback(local.close)
        client = Client(local)
        stack.callback(client.close)
        # every local worker registered, and the client's view of the scheduler refreshed with
        # them (right after the start, scheduler_info() could list no worker: a division by
        # zero in spread() once in CI); a worker that never starts (a memory limit too small
        # to run Python, a full temp disk) is one line, and the cluster is closed all the same
        try:
            client.wait_for_workers(workers, timeout=WORKERS_TIMEOUT_S)
        except (TimeoutError, OSError) as exc:
            raise ConfigError(f"the local Dask cluster's {workers} worker(s) did not all start "
                              f"within {WORKERS_TIMEOUT_S} s ({type(exc).__name__}: "
                              f"{_first_line(exc)}); check --memory-limit and the free space of "
                              f"{scratch}") from None
        with _lost_worker_said(workers):
            client.register_plugin(loopback_plugin(), name="ltrbench-loopback")
            confine_gbdt_listeners()  # this process: where the scheduler (and XGBoost's
            # tracker) runs
            yield client


class _ClosedCommFilter(logging.Filter):
    """Drops asyncio's "Future exception was never retrieved" log of a Dask connection that a
    lost worker closed (its traceback read as a crash; the run says it in one line)."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return type(exc).__name__ != "CommClosedError"


#: How every step says a lost worker (killed, out of memory, its connection reset): the one
#: wording of the cluster, the trainer and the fit checks.
LOST_WORKER = "a Dask worker of the cluster, or its connection, was lost"


def is_lost_worker(exc: BaseException) -> bool:
    """Whether ``exc`` is Dask's sign of a lost worker or connection: ``KilledWorker``, or a
    ``CommClosedError`` (an ``OSError`` whose text is ``in <TCP (closed) ...>: ...``)."""
    return type(exc).__name__ in ("CommClosedError", "KilledWorker")


@contextlib.contextmanager
def _lost_worker_said(workers: int) -> Iterator[None]:
    """A worker of the local cluster lost while it is set up: one line saying so
    (:data:`LOST_WORKER`), never Dask's own ``in <TCP (closed) ...>: Stream is closed``. The
    trainer's steps say it through :func:`bench.engines.dask_trainer.on_cluster`."""
    asyncio_log = logging.getLogger("asyncio")
    if not any(isinstance(f, _ClosedCommFilter) for f in asyncio_log.filters):
        asyncio_log.addFilter(_ClosedCommFilter())  # for good: the log may come at exit
    try:
        yield
    except Exception as exc:
        if not is_lost_worker(exc):
            raise
        raise LtrbenchError(f"setting up the local Dask cluster of {workers} worker(s) failed "
                            f"({LOST_WORKER}: {type(exc).__name__}: {_first_line(exc)})"
                            ) from None


#: Seconds a local cluster's workers have to register, and a scheduler to answer a first
#: TCP connection (a refused connection is reported at once: Dask's own connect retries a
#: refused port until its 30 s timeout).
WORKERS_TIMEOUT_S = 120
CONNECT_TIMEOUT_S = 10.0


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]


@contextlib.contextmanager
def _scheduler_client(scheduler: str, client_type: Any) -> Iterator[Any]:
    """A client of the user's ``scheduler`` (checked by :func:`check_scheduler_address`, then
    :func:`probe_scheduler`), closed on exit; the scheduler is left running."""
    address = check_scheduler_address(scheduler)
    warn_wildcard(address, scheduler)
    probe_scheduler(address, scheduler, timeout=CONNECT_TIMEOUT_S)
    try:
        client = client_type(address, timeout="30s")
    except Exception as exc:  # Dask's connect: OSError, a handshake it cannot read, ...
        raise ConfigError(f"cannot reach the Dask scheduler at {scheduler!r}: "
                          f"{_first_line(exc)}") from None
    try:
        try:  # a scheduler without workers: every compute would wait for ever
            client.wait_for_workers(1, timeout=WORKERS_TIMEOUT_S)
        except (TimeoutError, OSError) as exc:
            raise ConfigError(f"the Dask scheduler at {scheduler!r} has no worker (none joined "
                              f"within {WORKERS_TIMEOUT_S} s: {_first_line(exc)}); start "
                              "workers (dask worker ADDRESS) or leave --scheduler out for a "
                              "local cluster") from None
        yield client
    finally:
        client.close()


#: The most worker processes a local cluster starts per usable CPU (beyond, each process's
#: hundreds of MB and its share of the CPUs only slow the run; a larger cluster is --scheduler's).
WORKERS_PER_CPU = 4
_SCHEMES = ("tcp", "tls", "ws", "wss", "inproc", "ucx")


def check_scheduler_address(scheduler: object) -> str:
    """``scheduler`` as a Dask address (``tcp://host:port``, or ``host:port`` for tcp), checked
    before any connection: :class:`ConfigError` naming it when it is not text, names an unknown
    protocol, has no host or a port outside 1..65535. Any host is allowed (a user-given
    scheduler is the one way off this machine; the manifest records it)."""
    if not isinstance(scheduler, str) or not scheduler.strip():
        raise ConfigError(f"--scheduler {scheduler!r}: expected an address such as "
                          "tcp://127.0.0.1:8786")
    text = scheduler.strip()
    scheme, sep, rest = text.partition("://")
    if not sep and os.path.isfile(text):  # `dask scheduler --scheduler-file F` writes one
        raise ConfigError(f"--scheduler {scheduler!r} is a file{_file_address(text)}: "
                          "--scheduler takes the scheduler's address (tcp://host:port)")
    if not sep:
        scheme, rest = "tcp", text
    why = None
    if scheme not in _SCHEMES:
        why = f"unknown protocol {scheme!r} (known: {', '.join(_SCHEMES)})"
    elif scheme != "inproc":
        host, colon, port = rest.rpartition(":")
        host = host.strip("[]") if host.startswith("[") and host.endswith("]") else host
        if not colon or not host or any(c.isspace() or c in "/[]" for c in host) \
                or (":" in host and not rest.startswith("[")):
            why = "expected host:port (an IPv6 host in brackets, [::1]:8786)"
        elif not (port.isascii() and port.isdigit()) or not 1 <= int(port) <= 65535:
            why = f"port {port!r} is not a number in 1..65535"
        else:
            try:
                ipaddress.ip_address(host)
            except ValueError:
                # RFC 1035 2.3.4: a label holds 1..63 characters, a name 253 (a longer one
                # failed inside Python's idna codec: UnicodeError, a traceback)
                if len(host) > 253 or not all(
                        re.fullmatch(r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?", part)
                        for part in host.split(".")):
                    why = (f"host {host[:60]!r}{'...' if len(host) > 60 else ''} is not an IP "
                           "address or a host name (labels of 1 to 63 letters, digits or "
                           "'-', 253 characters in all)")
    if why:
        raise ConfigError(f"--scheduler {scheduler!r}: {why}; expected an address such as "
                          "tcp://127.0.0.1:8786")
    return text if sep else f"tcp://{text}"


def _file_address(path: str) -> str:
    """What a Dask scheduler file at ``path`` says its address is (its JSON ``address``)."""
    import json

    try:
        with open(path, "rb") as f:
            address = json.loads(f.read(1 << 16)).get("address")
    except (OSError, ValueError, AttributeError):
        return ""
    return f" (a Dask scheduler file, whose address is {address!r})" if isinstance(address, str) \
        else ""


def check_local_cluster(workers: object, threads: object) -> None:
    """:class:`ConfigError` unless ``workers`` and ``threads`` are integers (not bools) of at
    least 1, and ``workers`` at most :data:`WORKERS_PER_CPU` per usable CPU of this machine."""
    from bench.machine import usable_cpus

    for name, value in (("workers", workers), ("threads", threads)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(f"a local Dask cluster needs {name} >= 1 (an integer); got "
                              f"{name}={value!r}")
    most = max(8, WORKERS_PER_CPU * usable_cpus())
    assert isinstance(workers, int)
    if workers > most:
        raise ConfigError(f"workers={workers} is more than a local Dask cluster starts on this "
                          f"machine (at most {most}: {WORKERS_PER_CPU} per usable CPU); for a "
                          "larger cluster start one and pass --scheduler")


def memory_limit_value(value: object) -> str | int | None:
    """``memory_limit`` checked as Dask reads it (``"auto"``, ``None``/``0`` for none, a byte
    count or ``"2GB"``): :class:`ConfigError` naming the value otherwise."""
    from dask.utils import parse_bytes

    if value is None or value == "auto":
        return value
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ConfigError(f"memory limit {value!r}: expected bytes or a size such as 2GB")
    try:
        n = parse_bytes(value) if isinstance(value, str) else value
    except OverflowError:  # 1e400: Dask's float of it is infinite (a traceback in parse_bytes)
        raise ConfigError(f"memory limit {value!r} is too large to be a number of bytes: "
                          "expected a size up to the machine's memory, such as 2GB") from None
    except (ValueError, KeyError, TypeError):
        raise ConfigError(f"memory limit {value!r}: expected bytes or a size such as 2GB, "
                          "or auto") from None
    if n < 0:
        raise ConfigError(f"memory limit {value!r}: expected a size >= 0")
    check_memory_bounds(value, int(n))
    return value


#: The least memory limit per worker ltrbench starts: a Dask worker process holds about 150 MB
#: before any data, and its nanny restarts a worker above 95 % of its limit
#: (``distributed.worker.memory.terminate``), so a smaller limit restarts workers for ever.
MIN_WORKER_MEMORY = 256 * 2**20


def check_memory_bounds(value: object, n: int) -> None:
    """Refuse a memory limit Dask would not use as written: ``0.5`` (or ``0.1KB``) that
    ``parse_bytes`` reads as 0 bytes, Dask's "no limit" (only a literal ``0`` means that); a
    limit under :data:`MIN_WORKER_MEMORY`; one above this machine's memory, which Dask lowers
    to the machine's without a word (``distributed/worker_memory.py``,
    ``parse_memory_limit``: ``min(memory_limit, system.MEMORY_LIMIT)``)."""
    if n == 0:
        if str(value).strip() not in {"0", "0B"}:
            raise ConfigError(f"memory limit {value!r} is 0 bytes, which Dask reads as no limit "
                              "at all: expected a size such as 2GB (0 for none, auto for the "
                              "machine's memory shared by the workers)")
        return
    if n < MIN_WORKER_MEMORY:
        raise ConfigError(f"memory limit {value!r} ({n} bytes) is below "
                          f"{MIN_WORKER_MEMORY // 2**20} MiB per worker: a Dask worker holds "
                          "about 150 MB before any data and would be restarted for ever; "
                          "expected a size such as 2GB")
    from distributed.system import MEMORY_LIMIT

    if n > MEMORY_LIMIT:
        raise ConfigError(f"memory limit {value!r} ({n} bytes) is more than this machine's "
                          f"{MEMORY_LIMIT} bytes of memory, which Dask would use instead "
                          "without a word: expected a size up to the machine's memory")


def confine_gbdt_listeners() -> dict[str, str]:
    """Make LightGBM's and XGBoost's native libraries, where installed, bind loopback in this
    process (:func:`bench.data.loopback.confine_library_listeners`); ``{library: outcome}``."""
    from bench.data.loopback import confine_library_listeners

    out = {}
    for name, module in (("lightgbm", "lightgbm.basic"), ("xgboost", "xgboost.core")):
        try:
            lib = importlib.import_module(module)._LIB
        except Exception:  # not installed, or its native library does not load: nothing to bind
            continue
        out[name] = confine_library_listeners(str(lib._name))
    return out


def loopback_plugin() -> Any:
    """A Dask ``WorkerPlugin`` whose ``setup`` runs :func:`confine_gbdt_listeners` in the worker
    (defined here, where Dask is imported; Dask sends it to the workers by value)."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class LoopbackListeners(WorkerPlugin):  # type: ignore[misc]
        def setup(self, worker: Any) -> None:
            confine_gbdt_listeners()

    return LoopbackListeners()


def library_listeners(client: Any) -> dict[str, Any]:
    """Per worker: how its GBDT libraries were confined (nothing on a cluster this process did not
    start: its workers are left as they are) and every address they bound through the hook."""
    from bench.data.loopback import bound_addresses, confinement

    def report() -> dict[str, Any]:
        return {"libraries": {os.path.basename(k): v for k, v in confinement().items()},
                "bound": bound_addresses()}

    return dict(client.run(report))


def listening_addresses() -> list[str]:
    """``ip:port`` of every listening TCP socket of this process and its children (psutil)."""
    import psutil

    me = psutil.Process()
    found = set()
    for proc in [me, *me.children(recursive=True)]:
        try:
            conns = proc.net_connections(kind="inet")
        except (psutil.Error, OSError):
            continue
        found |= {f"{c.laddr.ip}:{c.laddr.port}" for c in conns if c.status == psutil.CONN_LISTEN}
    return sorted(found)


def is_loopback(address: str) -> bool:
    """Whether ``ip:port`` (or ``tcp://ip:port``) is on 127.0.0.0/8 or ``::1``."""
    host = urlparse(address).hostname if "://" in address else address.rsplit(":", 1)[0]
    try:
        ip = ipaddress.ip_address((host or "").strip("[]"))
    except ValueError:
        return host == "localhost"
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def scheduler_identity(client: Any) -> dict[str, Any]:
    """The scheduler's identity with every worker, fetched now.

    Not ``client.scheduler_info()``: it stores the fetched identity on the client and returns
    that attribute, which the client's own periodic refresh (``_update_scheduler_info`` with
    ``n_workers=0``: totals, no workers) can overwrite in between -- on a busy machine a
    manifest then recorded 0 workers (distributed ``client.py``, ``scheduler_info`` and
    ``_update_scheduler_info``)."""
    try:
        return dict(client.sync(client.scheduler.identity, n_workers=-1))
    except AttributeError:  # a stand-in without the comm (tests): its own view
        return dict(client.scheduler_info())


def worker_addresses(client: Any) -> list[str]:
    """The cluster's worker addresses, sorted; waits for one if none has registered yet."""
    workers = sorted(scheduler_identity(client).get("workers") or {})
    if not workers:
        client.wait_for_workers(1, timeout=120)
        workers = sorted(scheduler_identity(client).get("workers") or {})
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
    info = scheduler_identity(client)
    workers = info.get("workers") or {}
    return {
        "scheduler": info.get("address"),
        "workers": len(workers),
        "threads": sorted(int(w.get("nthreads", 0)) for w in workers.values()),
        "memory_limit_bytes": sorted(int(w.get("memory_limit") or 0) for w in workers.values()),
        "worker_addresses": sorted(workers),
    }


__all__ = [
    "CONNECT_TIMEOUT_S",
    "INSTALL_HINT",
    "LOOPBACK",
    "LOST_WORKER",
    "MIN_WORKER_MEMORY",
    "SCRATCH_PREFIX",
    "WORKERS_PER_CPU",
    "WORKERS_TIMEOUT_S",
    "WildcardAddressWarning",
    "check_local_cluster",
    "check_memory_bounds",
    "check_scheduler_address",
    "cluster",
    "confine_gbdt_listeners",
    "describe",
    "holders",
    "is_loopback",
    "is_lost_worker",
    "library_listeners",
    "listening_addresses",
    "loopback_plugin",
    "probe_scheduler",
    "remove_stale_scratch",
    "require_dask",
    "scheduler_identity",
    "spread",
    "warn_wildcard",
    "worker_addresses",
]
