"""Keep a loaded native library's listening sockets on loopback: its ``bind`` of the wildcard
address (``0.0.0.0`` / ``::``) becomes a ``bind`` of ``127.0.0.1`` / ``::1``.

Both GBDT libraries open their distributed-training listeners on every interface, and neither
has a setting to change that:

* LightGBM ``src/network/socket_wrapper.hpp``, ``TcpSocket::Bind(int port)``:
  ``GetAddress("0.0.0.0", port)`` (the worker listener of ``machines`` / ``local_listen_port``);
* XGBoost ``src/collective/comm.cc``, ``RabitComm::Bootstrap``: ``listener.BindHost(&lport)``
  and the error socket's ``BindHost``, which ``include/xgboost/collective/socket.h`` defines as a
  bind of ``SockAddrV4::InaddrAny()`` (or ``::``), and ``"0.0.0.0"`` when a worker port is set.

So for a cluster that runs on this machine only (the default ``--engine dask`` path),
:func:`confine_library_listeners` redirects the library's own calls of ``bind``: the library's
dynamic relocations for the ``bind`` symbol (``R_X86_64_JUMP_SLOT`` / ``GLOB_DAT``, or the
AArch64 ones; ELF-64 ``Elf64_Rela``, System V ABI) point at a ctypes function that rewrites a
wildcard address to loopback and calls libc's ``bind``. Nothing else in the process changes
(libc's ``bind`` itself, Python's sockets, other libraries). Every address the library bound is
recorded (:func:`bound_addresses`), for the run's manifest. Where this cannot be done (not
Linux ELF-64 on x86-64 or AArch64, a library without a ``bind`` relocation),
:func:`confine_library_listeners` returns the reason instead, and the caller says so.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import socket
import struct
import sys
import threading
from typing import Any

#: ELF ``e_machine`` -> (``GLOB_DAT``, ``JUMP_SLOT``) relocation types.
_RELOCATIONS = {62: (6, 7), 183: (1025, 1026)}  # EM_X86_64, EM_AARCH64
_SHT_RELA, _SHT_DYNSYM, _PT_LOAD = 4, 11, 1
_PROT = {"r": mmap.PROT_READ, "w": mmap.PROT_WRITE, "x": mmap.PROT_EXEC}

_lock = threading.Lock()
_patched: dict[str, str] = {}  # library path -> "confined" or the reason it is not
_bound: list[str] = []  # "ip:port" of every bind made through the hook
_hook: Any = None  # the ctypes callback (kept alive for as long as the process)
_real_bind: Any = None


def bound_addresses() -> list[str]:
    """``"ip:port"`` of every socket a confined library bound in this process, in order."""
    return list(_bound)


def confinement() -> dict[str, str]:
    """``{library path: "confined" or why not}`` for the libraries confined in this process."""
    return dict(_patched)


def confine_library_listeners(path: str) -> str:
    """Make the library loaded from ``path`` bind loopback instead of the wildcard address.

    Returns ``"confined"``, or why it could not be done (the library then binds as it does).
    Idempotent per library; safe to call in every worker.
    """
    real = os.path.realpath(path)
    with _lock:
        if real in _patched:
            return _patched[real]
        try:
            _patched[real] = _confine(real)
        except (OSError, ValueError, struct.error) as exc:
            _patched[real] = f"not confined: {type(exc).__name__}: {exc}"
        return _patched[real]


def _confine(path: str) -> str:
    if not sys.platform.startswith("linux"):
        return f"not confined: {sys.platform} (the rewrite is for Linux ELF libraries)"
    slots, first_vaddr = _bind_slots(path)
    if not slots:
        return "not confined: the library has no relocation for bind"
    start = _load_address(path)
    page = mmap.PAGESIZE
    hook = _install_hook()
    for offset in slots:
        slot = start - (first_vaddr & ~(page - 1)) + offset
        _write_pointer(slot, hook, page)
    return "confined"


def _bind_slots(path: str) -> tuple[list[int], int]:
    """The ``r_offset`` of every GLOB_DAT / JUMP_SLOT relocation of symbol ``bind`` in the ELF-64
    little-endian file ``path``, and the virtual address of its first PT_LOAD segment."""
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as elf:
        if elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
            raise ValueError("not a little-endian ELF-64 file")
        machine = struct.unpack_from("<H", elf, 18)[0]
        if machine not in _RELOCATIONS:
            raise ValueError(f"ELF machine {machine} is not x86-64 or AArch64")
        phoff, shoff = struct.unpack_from("<QQ", elf, 0x20)
        phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", elf, 0x36)
        loads = [struct.unpack_from("<IIQQ", elf, phoff + i * phentsize) for i in range(phnum)]
        first_vaddr = min(v for kind, _, _, v in loads if kind == _PT_LOAD)
        sections = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize)
                    for i in range(shnum)]
        wanted = _RELOCATIONS[machine]
        slots = []
        for index, (_, kind, _, _, _, _, _, _, _, _) in enumerate(sections):
            if kind != _SHT_DYNSYM:
                continue
            symtab, strtab = sections[index], sections[sections[index][6]]
            for _, rkind, _, _, roff, rsize, link, _, _, _ in sections:
                if rkind != _SHT_RELA or link != index:
                    continue
                for at in range(roff, roff + rsize, 24):
                    r_offset, r_info = struct.unpack_from("<QQ", elf, at)
                    if r_info & 0xFFFFFFFF not in wanted:
                        continue
                    name_at = struct.unpack_from("<I", elf, symtab[4] + (r_info >> 32) * 24)[0]
                    start = strtab[4] + name_at
                    if elf[start:elf.find(b"\0", start)] == b"bind":
                        slots.append(r_offset)
        return slots, first_vaddr


def _maps() -> list[tuple[int, int, str, int, str]]:
    out = []
    with open("/proc/self/maps", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            fields = line.split(maxsplit=5)
            lo, hi = (int(x, 16) for x in fields[0].split("-"))
            out.append((lo, hi, fields[1], int(fields[2], 16),
                        fields[5].strip() if len(fields) > 5 else ""))
    return out


def _load_address(path: str) -> int:
    for lo, _, _, offset, name in _maps():
        if offset == 0 and name and os.path.realpath(name) == path:
            return lo
    raise ValueError(f"{path} is not loaded in this process")


def _write_pointer(slot: int, value: int, page: int) -> None:
    """Write ``value`` at ``slot`` (a GOT entry), lifting RELRO's read-only protection for the
    write and restoring the page's protection afterwards."""
    prot = next(sum(_PROT[c] for c in perms if c in _PROT)
                for lo, hi, perms, _, _ in _maps() if lo <= slot < hi)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    base = slot & ~(page - 1)
    if not prot & mmap.PROT_WRITE and libc.mprotect(base, page, prot | mmap.PROT_WRITE) != 0:
        raise OSError(ctypes.get_errno(), "mprotect of the library's relocation table failed")
    ctypes.c_void_p.from_address(slot).value = value
    if not prot & mmap.PROT_WRITE:
        libc.mprotect(base, page, prot)


def _install_hook() -> int:
    """The address of the ``bind`` replacement (made once per process)."""
    global _hook, _real_bind
    if _hook is None:
        libc = ctypes.CDLL(None, use_errno=True)
        _real_bind = libc.bind
        _real_bind.argtypes = (ctypes.c_int, ctypes.c_void_p, ctypes.c_uint32)
        _real_bind.restype = ctypes.c_int
        kind = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_uint32,
                                use_errno=True)
        _hook = kind(_loopback_bind)
    return int(ctypes.cast(_hook, ctypes.c_void_p).value or 0)


def _loopback_bind(fd: int, address: int, length: int) -> int:
    """``bind(fd, address, length)`` with a wildcard IPv4/IPv6 address replaced by loopback."""
    raw = bytearray(ctypes.string_at(address, length))
    family = struct.unpack_from("=H", raw, 0)[0] if length >= 2 else -1
    if family == socket.AF_INET and length >= 8 and raw[4:8] == bytes(4):
        raw[4:8] = socket.inet_aton("127.0.0.1")
    elif family == socket.AF_INET6 and length >= 24 and raw[8:24] == bytes(16):
        raw[8:24] = socket.inet_pton(socket.AF_INET6, "::1")
    buffer = (ctypes.c_char * length).from_buffer(raw)
    code = int(_real_bind(fd, buffer, length))
    if code == 0 and family in (socket.AF_INET, socket.AF_INET6):
        try:
            with socket.socket(fileno=os.dup(fd)) as s:
                host, port = s.getsockname()[:2]
            _bound.append(f"{host}:{port}")  # (list.append is atomic: no lock in the hook)
        except OSError:
            pass
    return code


__all__ = ["bound_addresses", "confine_library_listeners", "confinement"]
