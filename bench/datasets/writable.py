"""A data directory ltrbench cannot write into, said with the remedy.

Generating a stand-in (``synthetic-mslr30k:0.01``) or fetching a dataset writes into the
first data directory (:func:`bench.datasets.fetch.primary_data_dir`); when that folder is
read-only (a shared mount, a folder of another user) the raw ``PermissionError`` named a
hidden staging folder and no way out. :func:`writing_into` turns it into a
:class:`~bench.errors.DataError` naming the data directory, what was being written and the two
ways to name another one (``--data-dir``, ``LTRBENCH_DATA_DIR``).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from bench.data.umask import refuse_owner_umask
from bench.errors import DataError

#: The errors of a folder that cannot be written (permission, a read-only file system, a
#: file or device where a folder should be: ``XDG_CACHE_HOME=/dev/null`` made the default data
#: directory ``/dev/null/ltrbench``, and "Not a directory" named no way out); a folder on the way
#: that cannot be made is one too (:func:`_cannot_be_made`).
_NOT_WRITABLE = (errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOTDIR)

#: A data directory without room (a full disk, a quota, the file-size limit): the staging
#: folder named in the OS error is removed by then, so the data directory is named instead.
_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


@contextmanager
def writing_into(data_dir: str | os.PathLike[str], what: str) -> Iterator[None]:
    """Run the block; a permission or read-only error inside it is a :class:`DataError` naming
    ``data_dir`` (the data directory written), ``what`` and the remedy. A data directory
    without any write permission bit (``chmod a-w``) is refused before the block, as an output
    folder is (:mod:`bench.data.outputs`): root, whom the permissions do not stop, would fill
    a folder its owner protected. A umask that takes the owner's own permissions is refused
    before the block too (a fetch downloaded the whole archive, a stand-in made the data
    directory ``0500``, before any later check refused the command)."""
    refuse_owner_umask("the data directory (--data-dir, LTRBENCH_DATA_DIR)", data_dir)
    with suppress(OSError):
        mode = stat.S_IMODE(os.stat(data_dir).st_mode)
        if not mode & 0o222:
            raise _refusal(data_dir, what, f"read-only: mode {mode:o}")
    try:
        yield
    except OSError as exc:
        if exc.errno in _FULL:  # the hidden staging path it named is gone: say where and why
            from bench.streams import os_error_text

            reason = os_error_text(OSError(exc.errno, exc.strerror, os.fspath(data_dir)))
            raise DataError(f"cannot write {what} into the data directory: "
                            f"{reason.split(': ', 1)[1]}; nothing of it was kept; or name "
                            "another data directory with --data-dir or LTRBENCH_DATA_DIR",
                            path=data_dir) from None
        if exc.errno not in _NOT_WRITABLE and not _cannot_be_made(exc, data_dir):
            raise
        raise _refusal(data_dir, what, str(exc.strerror or exc)) from None


def _cannot_be_made(exc: OSError, data_dir: str | os.PathLike[str]) -> bool:
    """Whether ``exc`` says the data directory itself (or a folder above it) cannot be made:
    ``HOME=/nonexistent`` in a container whose root is read-only or a ``/proc`` path, where
    ``mkdir`` answers ENOENT ("/nonexistent: No such file or directory", no remedy named)."""
    if exc.errno != errno.ENOENT or exc.filename is None:
        return False
    missing, target = os.path.abspath(exc.filename), os.path.abspath(data_dir)
    return target == missing or target.startswith(missing.rstrip(os.sep) + os.sep)


def _refusal(data_dir: str | os.PathLike[str], what: str, why: str) -> DataError:
    return DataError(
        f"cannot write {what} into the data directory {os.fspath(data_dir)!r} ({why}): name a "
        "writable one with --data-dir or LTRBENCH_DATA_DIR (its first folder is written; the "
        "others are only read)", path=data_dir)
