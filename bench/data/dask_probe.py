"""A user-given Dask scheduler address probed before Dask's client connects to it.

Dask's client retries a connection until its 30 s timeout (a refused port, a listener of
another protocol), or waits for ever on a peer that accepts and says nothing. These probes make
a clearly wrong address one line within seconds, and never refuse a real scheduler that is
slow: they only refuse what a scheduler of the given protocol cannot answer.

* ``tcp``: a Dask listener speaks first, its handshake on accept (distributed
  ``comm/core.py``, ``Listener.on_connection`` writes ``local_info`` before it reads); a silent
  peer is asked, after :data:`HTTP_AFTER_S`, whether it is an HTTP server (a dashboard, a
  scheduler started with ``--protocol ws``), which answers a ``GET`` at once.
* ``ws``: the scheduler is a Tornado HTTP server whose ``/`` route is a WebSocket handler
  (distributed ``comm/ws.py``, ``WSListener.start``): a peer that speaks first is not one (a
  Dask ``tcp`` listener is named as such), and a WebSocket upgrade of ``/`` must be answered
  ``101``.
* ``tls`` / ``wss``: Dask's configuration must name a CA file; a peer that speaks first is not a
  TLS server (TLS begins with the client's hello).
"""

from __future__ import annotations

import ipaddress
import socket
import struct
import time
from urllib.parse import urlparse

from bench.errors import ConfigError

#: Seconds a probe waits for a first TCP connection and for the peer's answer.
CONNECT_TIMEOUT_S = 10.0
#: Seconds of silence after which a ``tcp`` probe asks whether an HTTP server listens.
HTTP_AFTER_S = 2.0
#: Seconds a ``ws``/``tls``/``wss`` probe waits for a peer that speaks first (none of these do).
SPEAKS_FIRST_S = 0.5
#: The largest first message taken for a Dask handshake (measured: a few hundred bytes).
HANDSHAKE_MAX_BYTES = 1 << 20


def _unspecified(host: str) -> bool:
    """Whether ``host`` names the wildcard address: ``0.0.0.0``, ``::``, IPv4-mapped
    ``::ffff:0.0.0.0``, or a spelling the C resolver reads as ``0.0.0.0`` (``0``, ``0x0``)."""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        try:
            return socket.inet_aton(host) == bytes(4)
        except OSError:
            return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return ip.is_unspecified or (mapped is not None and mapped.is_unspecified)


class WildcardAddressWarning(UserWarning):
    """A ``--scheduler`` address that names every interface (``0.0.0.0``, ``::``)."""


def warn_wildcard(address: str, given: str) -> bool:
    """Warn (:class:`WildcardAddressWarning`) when ``address`` names the wildcard host
    (``0.0.0.0``, ``[::]``): a client reaches this machine's scheduler through it, but a
    scheduler one reaches so was usually started with ``--host 0.0.0.0`` and listens on every
    interface, open to other machines (and the rows sent to its workers with it). Allowed,
    since the user wrote it; said, and recorded in the run's manifest as given. Returns whether
    it warned."""
    import warnings

    host = urlparse(address).hostname if "://" in address else None
    wildcard = host is not None and _unspecified(host)
    if wildcard:
        warnings.warn(f"--scheduler {given!r}: {host} is the wildcard address; a scheduler "
                      "reached through it listens on every interface of this machine, open "
                      "to other machines: give 127.0.0.1 for one of this machine only",
                      WildcardAddressWarning, stacklevel=3)
    return wildcard


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]


def _read(sock: socket.socket, n: int, seconds: float, *, line: bool = False) -> tuple[bytes, bool]:
    """Up to ``n`` bytes read within ``seconds`` (up to the first CRLF with ``line``); the bytes
    and whether the time ran out."""
    head, deadline = b"", time.monotonic() + seconds
    while len(head) < n and not (line and b"\r\n" in head):
        left = deadline - time.monotonic()
        if left <= 0:
            return head, True
        sock.settimeout(left)
        try:
            data = sock.recv(n - len(head))
        except TimeoutError:
            return head, True
        if not data:
            break
        head += data
    return head, False


def _is_dask_handshake(head: bytes) -> bool:
    """Whether 8 bytes read as Dask's frame length (a native ``uint64``: distributed
    ``comm/tcp.py``, ``TCP.read``) of a message the size of a handshake."""
    return len(head) == 8 and struct.unpack("Q", head)[0] <= HANDSHAKE_MAX_BYTES


def _status(sock: socket.socket, head: bytes, seconds: float) -> str:
    """The HTTP status line that begins with ``head``, as text."""
    more, _ = _read(sock, 200, min(seconds, 1.0), line=True)
    return (head + more).split(b"\r\n")[0].decode("ascii", "replace")[:80]


def _tcp(sock: socket.socket, given: str, timeout: float) -> None:
    """Refuse a ``tcp://`` peer that sends no Dask handshake within ``timeout`` (Dask's client
    then waits for ever: ``comm.read()`` of the handshake has no timeout in distributed's
    ``comm.core.connect``), closes at once, answers as an HTTP server, or speaks another
    protocol first (an SSH server's ``SSH-2.0-...`` banner, read by Dask as a length of 2.8e18
    bytes that its client then tried to allocate: a traceback)."""
    wait = min(HTTP_AFTER_S, timeout / 2)
    head, timed_out = _read(sock, 8, wait)
    if not head and timed_out:  # silent: an HTTP server answers a request at once
        sock.sendall(b"GET / HTTP/1.0\r\n\r\n")
        head, timed_out = _read(sock, 8, timeout - wait)
        if head.startswith(b"HTTP/"):
            raise ConfigError(
                f"--scheduler {given!r}: an HTTP server answers there "
                f"({_status(sock, head, timeout)!r}), not a Dask tcp:// scheduler: a "
                "dashboard's port is not the scheduler's, and a scheduler started with "
                "--protocol ws is given as ws://HOST:PORT")
    if not head and timed_out:
        raise ConfigError(f"--scheduler {given!r}: something listens there but sent no Dask "
                          f"handshake within {timeout:g} s: not a Dask scheduler? check the "
                          "address and port")
    if not head:
        raise ConfigError(f"--scheduler {given!r}: the connection was closed without a Dask "
                          "handshake: not a Dask scheduler? check the address and port")
    if not _is_dask_handshake(head):
        raise ConfigError(f"--scheduler {given!r}: the service listening there speaks another "
                          f"protocol (it began with {head!r}), not Dask's: check the address "
                          "and port")


def _silent_first(sock: socket.socket, scheme: str, rest: str, given: str) -> None:
    """Refuse a ``ws``/``tls``/``wss`` peer that speaks first: naming Dask's ``tcp`` protocol
    when its first bytes are a Dask handshake (Dask's ``ws`` client waited 30 s on one, and the
    scheduler logged a MemoryError for the HTTP request it read as a frame length)."""
    head, _ = _read(sock, 8, SPEAKS_FIRST_S)
    if not head:
        return
    if _is_dask_handshake(head):
        raise ConfigError(f"--scheduler {given!r}: the scheduler there speaks Dask's tcp "
                          f"protocol, not {scheme}://: give tcp://{rest}")
    raise ConfigError(f"--scheduler {given!r}: the service listening there speaks first (it "
                      f"began with {head!r}), which a {scheme}:// scheduler does not: check the "
                      "address and port")


def _ws(sock: socket.socket, host: str, port: str, given: str, timeout: float) -> None:
    """Refuse a ``ws://`` peer that does not answer a WebSocket upgrade of ``/`` with ``101``
    (RFC 6455 section 4.1; the key is the RFC's own sample)."""
    sock.sendall(f"GET / HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                 "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                 "Sec-WebSocket-Version: 13\r\n\r\n".encode("ascii"))
    head, timed_out = _read(sock, 12, timeout)
    if head.startswith(b"HTTP/1.1 101"):
        return
    if head.startswith(b"HTTP/"):
        raise ConfigError(f"--scheduler {given!r}: the HTTP server there answered "
                          f"{_status(sock, head, timeout)!r} to a WebSocket upgrade: not a Dask "
                          "ws:// scheduler (a dashboard's port?); check the address and port")
    why = f"no answer to a WebSocket upgrade within {timeout:g} s" if timed_out and not head \
        else "the connection was closed at a WebSocket upgrade" if not head \
        else f"it answered a WebSocket upgrade with {head!r}"
    raise ConfigError(f"--scheduler {given!r}: {why}: not a Dask ws:// scheduler? check the "
                      "address and port")


def probe_scheduler(address: str, given: str, *, timeout: float = CONNECT_TIMEOUT_S) -> None:
    """Refuse at once, before Dask's client retries for 30 s, a scheduler address nothing of its
    protocol listens at: for ``tcp``/``tls``/``ws``/``wss``, one TCP connection of at most
    ``timeout`` seconds (a refused port answers at once), then the protocol's first exchange
    (module docstring); ``inproc`` names a scheduler of this process only, ``ucx`` needs the UCX
    comm package. :class:`ConfigError` naming ``given``."""
    scheme, _, rest = address.partition("://")
    if scheme == "inproc":
        raise ConfigError(f"--scheduler {given!r}: an inproc:// address names a scheduler inside "
                          "this very process, which ltrbench does not start; give the "
                          "scheduler's tcp:// address")
    if scheme == "ucx":
        import importlib.util

        if importlib.util.find_spec("distributed_ucxx") is None \
                and importlib.util.find_spec("ucp") is None:
            raise ConfigError(f"--scheduler {given!r}: the ucx protocol needs the UCX comm "
                              "package (distributed-ucxx), which is not installed; give the "
                              "scheduler's tcp:// address")
        return
    if scheme in ("tls", "wss"):
        _check_tls_config(given)
    host, _, port = rest.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout) as sock:
            if scheme == "tcp":
                _tcp(sock, given, timeout)
                return
            _silent_first(sock, scheme, rest, given)
            if scheme == "ws":
                _ws(sock, host, port, given, timeout)
    except OSError as exc:
        why = "nothing listens there (connection refused)" \
            if isinstance(exc, ConnectionRefusedError) else \
            f"no answer within {timeout:g} s" if isinstance(exc, TimeoutError) else \
            (exc.strerror or _first_line(exc))
        raise ConfigError(f"cannot reach the Dask scheduler at {given!r}: {why}; start it "
                          "(dask scheduler) or check the address") from None


def _check_tls_config(given: str) -> None:
    """Refuse a ``tls://`` / ``wss://`` scheduler when Dask's configuration names no CA file for
    this client: distributed builds the client's ``ssl_context`` from
    ``distributed.comm.tls.ca-file`` (``distributed/security.py``, ``Security._get_tls_context``
    returns None without one), and its connect then fails with "TLS expects a ssl_context
    argument ... Instead got None", which says nothing of what to set."""
    import dask

    if not dask.config.get("distributed.comm.tls.ca-file", None):
        raise ConfigError(f"--scheduler {given!r}: a TLS scheduler needs this client's "
                          "certificates, and Dask's configuration names none: set "
                          "distributed.comm.tls.ca-file, .client.cert and .client.key (e.g. "
                          "DASK_DISTRIBUTED__COMM__TLS__CA_FILE=ca.pem), or give the "
                          "scheduler's tcp:// address")


__all__ = ["CONNECT_TIMEOUT_S", "HANDSHAKE_MAX_BYTES", "WildcardAddressWarning", "probe_scheduler",
           "warn_wildcard"]
