"""The scratch folders of local Dask clusters (:func:`bench.data.dask_cluster.cluster`):
``<temp>/ltrbench-dask-<pid>-<random>``, and those of runs that no longer run removed.

Re-exported by :mod:`bench.data.dask_cluster`."""

from __future__ import annotations

import os
import re
import shutil
import tempfile

#: The scratch folder of a local cluster: ``<temp>/ltrbench-dask-<pid>-<random>``.
SCRATCH_PREFIX = "ltrbench-dask-"


def remove_stale_scratch(temp: str | None = None) -> list[str]:
    """Remove the scratch folders (:data:`SCRATCH_PREFIX`) of ltrbench processes that no longer
    run: a run killed with SIGKILL cannot remove its own, and its workers' spilled partitions
    would stay in the temp folder for good. A folder whose process id is alive (maybe reused by
    another program) is kept, and so is one where a Dask worker holds a directory lock
    (:func:`_locked`); returns the folders removed."""
    removed: list[str] = []
    root = temp or tempfile.gettempdir()
    try:
        names = os.listdir(root)
    except OSError:
        return removed
    for name in names:
        m = re.fullmatch(re.escape(SCRATCH_PREFIX) + r"(\d+)-\w+", name)
        if m is None or _alive(int(m.group(1))) or _locked(os.path.join(root, name)):
            continue
        shutil.rmtree(os.path.join(root, name), ignore_errors=True)
        removed.append(name)
    return removed


def _locked(folder: str) -> bool:
    """Whether a Dask worker still holds a directory lock under ``folder`` (a process of another
    PID namespace sharing the temp folder looks gone by its id; Dask's own purge of worker
    folders asks their locks the same way: distributed/diskutils.py, _check_lock_or_purge)."""
    import glob as globbing

    try:
        import locket
    except ImportError:
        return False
    for path in globbing.glob(os.path.join(globbing.escape(folder), "**", "*.dirlock"),
                              recursive=True):
        lock = locket.lock_file(path, timeout=0)
        try:
            lock.acquire()
        except locket.LockError:
            return True
        except OSError:
            continue
        lock.release()
    return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # another user's process, or a number no process has: keep it
    return True


__all__ = ["SCRATCH_PREFIX", "remove_stale_scratch"]
