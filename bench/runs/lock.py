"""One writer per run directory: ``writer_lock(run_dir)`` while a process writes a run.

Two ``ltrbench run --resume`` of the same run at once each trained the pairs still missing and
rewrote the same tables; rows of one were lost under the other's (both exited 0). The writer
now holds an exclusive ``flock`` on ``run_dir/.writer.lock`` for as long as it writes; a
second writer gets an :class:`~bench.errors.LtrbenchError` naming the holder (pid, host, since
when). The operating system releases the lock when the holder exits, however it exits, so a
killed run never leaves a stale lock. A tune folder is locked alike for as long as ``tune``
writes it (two ``tune --resume`` of one study each ran the trials the budget still missed). Where ``fcntl`` is missing (Windows) there is no lock.
A lock path that is a symbolic link, a folder or a device is refused: the lock is truncated and
written, and a link would truncate the file it points to (a copied or hostile run folder).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import socket
from collections.abc import Iterator
from pathlib import Path

from bench.errors import LtrbenchError

LOCK_NAME = ".writer.lock"


@contextlib.contextmanager
def writer_lock(run_dir: str | os.PathLike[str], what: str = "run") -> Iterator[None]:
    """Hold the run directory's writer lock (see the module docstring); ``what`` names the
    folder in the error (``"tune"``: a tune folder, which ``tune --resume`` locks alike)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    path = Path(run_dir) / LOCK_NAME
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise LtrbenchError(f"{path}: is not a regular file (a symbolic link, folder or device); "
                            "the lock file of a run is ltrbench's own: remove it and run again")
    # O_NOFOLLOW: a link put there after the check is refused, never truncated through
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 512, 0).decode("utf-8", "replace").strip() or "another process"
            raise LtrbenchError(
                f"{run_dir}: another ltrbench process is writing this {what} ({holder}); wait "
                "for it to finish (or stop it) before resuming or reporting it") from None
        os.ftruncate(fd, 0)
        # UTC with its offset, as every other time ltrbench records (local time read as
        # another zone's on a shared folder, and "+0100" is not the manifest's "+01:00")
        stamp = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
        os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()} since {stamp}".encode(), 0)
        try:
            yield
        finally:
            with contextlib.suppress(OSError):
                path.unlink()
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
