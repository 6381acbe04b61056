"""Archives unpacked by ``ltrbench datasets fetch``, every member checked before one is written.

Refused, naming the member: a path that would land outside the folder (absolute, ``..``, a
drive letter: "zip slip"), a link, a device, FIFO or socket (tar headers; a zip member's Unix
mode in ``external_attr``, which :meth:`zipfile.ZipFile.extractall` would write as a file holding
the link's target), a declared unpacked size beyond the free space of the data directory, and a
member packed more than :data:`MAX_MEMBER_RATIO` to 1 (a zip bomb). Tar archives are then
unpacked with Python's ``data`` extraction filter (PEP 706).
"""

from __future__ import annotations

import os
import shutil
import stat
import tarfile
import zipfile
from pathlib import Path, PurePosixPath

from bench.errors import DataError


def extract(archive: Path, into: Path, fmt: str) -> None:
    """Unpack a zip / tar archive into ``into`` after checking every member (module docstring)."""
    into.mkdir(parents=True, exist_ok=True)
    if fmt == "zip":
        try:
            with zipfile.ZipFile(archive) as zf:
                infos = zf.infolist()
                for info in infos:
                    _check_member(info.filename, archive)
                    _check_zip_kind(info, archive)
                _check_unpacked_size([(i.filename, i.file_size, i.compress_size) for i in infos],
                                     archive, into)
                zf.extractall(into)
        except zipfile.BadZipFile as exc:
            raise DataError(f"not a zip archive: {exc}", path=archive.name) from exc
        return
    if fmt in ("tar.gz", "tar.bz2"):
        try:
            with tarfile.open(archive, "r:*") as tf:
                members = tf.getmembers()
                for m in members:
                    _check_member(m.name, archive)
                    if m.issym() or m.islnk():
                        raise DataError(f"archive member {m.name!r} is a link; refused",
                                        path=archive.name)
                    if not (m.isfile() or m.isdir()):
                        raise DataError(f"archive member {m.name!r} is a device, FIFO or other "
                                        "special file: expected files and folders; refused",
                                        path=archive.name)
                _check_unpacked_size([(m.name, m.size, m.size) for m in members], archive, into)
                try:
                    tf.extractall(into, filter="data")
                except TypeError:  # pragma: no cover - Python without extraction filters
                    tf.extractall(into)
        except tarfile.TarError as exc:
            raise DataError(f"not a {fmt} archive: {exc}", path=archive.name) from exc
        return
    raise DataError(
        f"cannot unpack a {fmt!r} archive: unpack it by hand into the data directory",
        path=archive.name,
    )


def _check_member(name: str, archive: Path) -> None:
    pure = PurePosixPath(name.replace("\\", "/"))
    if pure.is_absolute() or ".." in pure.parts or (pure.parts and ":" in pure.parts[0]):
        raise DataError(f"archive member {name!r} would be written outside the folder; refused",
                        path=archive.name)


#: The highest unpacked / packed size ratio of an archive member: text of LETOR features packs
#: about 3-10:1; a zip bomb (one member of zeros) packs about 1000:1 and more.
MAX_MEMBER_RATIO = 200
_SMALL_MEMBER = 1 << 20  # members up to 1 MiB unpacked are not ratio-checked


def _check_zip_kind(info: zipfile.ZipInfo, archive: Path) -> None:
    """A zip member that is a symbolic link, device or FIFO (Unix mode in ``external_attr``)
    is refused: ``extractall`` would write it as a file holding the link's target."""
    mode = info.external_attr >> 16
    kind = stat.S_IFMT(mode)
    if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
        what = "a symbolic link" if kind == stat.S_IFLNK else "a device, FIFO or socket"
        raise DataError(f"archive member {info.filename!r} is {what}: expected files and "
                        "folders; refused", path=archive.name)


def _check_unpacked_size(members: list[tuple[str, int, int]], archive: Path, into: Path) -> None:
    """Refuse, before writing anything, an archive whose declared unpacked size does not fit in
    the free space of the data directory, or a member packed more than
    :data:`MAX_MEMBER_RATIO` to 1 (a zip bomb). (``zipfile`` stops a member at its declared
    size, so the declaration bounds what is written.)"""
    total = sum(size for _, size, _ in members)
    free = shutil.disk_usage(into).free
    if total > free:
        raise DataError(f"the archive declares {total:,} bytes unpacked, and {os.fspath(into)!r} "
                        f"has {free:,} bytes free; refused (free space, or --data-dir elsewhere)",
                        path=archive.name)
    for name, size, packed in members:
        if size > _SMALL_MEMBER and size > MAX_MEMBER_RATIO * max(packed, 1):
            raise DataError(f"archive member {name!r} unpacks {packed:,} bytes into {size:,} "
                            f"(more than {MAX_MEMBER_RATIO}:1, a zip bomb); refused",
                            path=archive.name)
