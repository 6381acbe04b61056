"""Archives unpacked by ``ltrbench datasets fetch``, every member checked before one is written.

Refused, naming the member: a path that would land outside the folder (absolute, ``..``, a
drive letter: "zip slip"), a link, a device, FIFO or socket (tar headers; a zip member's Unix
mode in ``external_attr``, which :meth:`zipfile.ZipFile.extractall` would write as a file holding
the link's target), a declared unpacked size beyond the free space of the data directory, and a
member packed more than :data:`MAX_MEMBER_RATIO` to 1 (a zip bomb), an archive whose members
together unpack to more than that ratio of its own size (many small members), a zip member that
declares more packed bytes than the archive holds (headers that lie, overlapping members), and
two members whose names are the same, or the same but for letter case or Unicode form (NFC/NFD:
``unzip`` keeps the first, Python the last, a case-blind disk merges them). Tar archives are then
unpacked with Python's ``data`` extraction filter (PEP 706).
"""

from __future__ import annotations

import errno
import gzip
import lzma
import os
import shutil
import stat
import tarfile
import unicodedata
import zipfile
import zlib
from pathlib import Path, PurePosixPath

from bench.data.compressed import HEAD, WEB_PAGE, web_page
from bench.errors import DataError


def extract(archive: Path, into: Path, fmt: str) -> None:
    """Unpack a zip / tar archive into ``into`` after checking every member (module docstring).

    An archive that cannot be unpacked as it stands (truncated, a member encrypted or packed
    by a method Python cannot read, a member that is a file where another needs a folder, a
    name the file system refuses) is a :class:`DataError` naming the archive and the reason."""
    into.mkdir(parents=True, exist_ok=True)
    try:
        _extract(archive, into, fmt)
    except zipfile.BadZipFile as exc:
        if str(exc).startswith("Bad CRC-32"):  # a member's bytes differ from its checksum
            raise DataError(f"the {fmt} archive is damaged ({exc}): download it again",
                            path=archive.name) from exc
        raise _not_an_archive(archive, fmt, exc) from exc
    except (tarfile.TarError, zlib.error, lzma.LZMAError) as exc:
        raise _not_an_archive(archive, fmt, exc) from exc
    except gzip.BadGzipFile as exc:  # its CRC-32 or length trailer does not match the bytes
        raise DataError(f"the {fmt} archive is damaged ({exc}): download it again",
                        path=archive.name) from exc
    except EOFError as exc:  # a gzip / bzip2 / xz stream cut short
        said = f" ({exc})" if str(exc) else ""
        raise DataError(f"the {fmt} archive is truncated{said}: download it again",
                        path=archive.name) from exc
    except (RuntimeError, NotImplementedError) as exc:  # encrypted, or an unknown method
        raise DataError(f"cannot unpack a member: {exc}; expected a plain (unencrypted, "
                        "deflate/bzip2/lzma) archive", path=archive.name) from exc
    except OSError as exc:  # a file where a folder goes, a name too long
        if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EACCES, errno.EROFS):
            raise  # the disk and its rights: said by the command's own handler, with the path
        where = f" {os.path.relpath(exc.filename, into)!r}" if exc.filename else ""
        raise DataError(f"cannot unpack{where}: {exc.strerror or exc}", path=archive.name) \
            from exc


def _not_an_archive(archive: Path, fmt: str, exc: Exception) -> DataError:
    with archive.open("rb") as f:
        if web_page(f.read(HEAD)):
            return DataError(f"not a {fmt} archive: the file is {WEB_PAGE}", path=archive.name)
    return DataError(f"not a {fmt} archive: {' '.join(str(exc).split())}", path=archive.name)


def _extract(archive: Path, into: Path, fmt: str) -> None:
    if fmt == "zip":
        with zipfile.ZipFile(archive) as zf:
            infos = zf.infolist()
            for info in infos:
                _check_member(info.filename, archive)
                _check_zip_kind(info, archive)
            _check_twins([i.filename for i in infos if not i.is_dir()], archive)
            _check_packed_sizes(infos, archive)
            _check_unpacked_size([(i.filename, i.file_size, i.compress_size) for i in infos],
                                 archive, into)
            _check_total_ratio([(i.filename, i.file_size) for i in infos], archive)
            zf.extractall(into)
        return
    if fmt in ("tar.gz", "tar.bz2"):
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
            _check_twins([m.name for m in members if not m.isdir()], archive)
            _check_unpacked_size([(m.name, m.size, m.size) for m in members], archive, into)
            _check_total_ratio([(m.name, m.size) for m in members], archive)
            try:
                tf.extractall(into, filter="data")
            except TypeError:  # pragma: no cover - Python without extraction filters
                tf.extractall(into)
            _read_to_the_end(tf)
        return
    raise DataError(
        f"cannot unpack a {fmt!r} archive: unpack it by hand into the data directory",
        path=archive.name,
    )


def _read_to_the_end(tf: tarfile.TarFile) -> None:
    """Read the compressed stream past the tar's end-of-archive blocks to its own end, so that
    its trailer is checked: tar stops at its end marker, and a ``.tar.gz`` cut inside the gzip
    trailer (CRC-32 and length) or a ``.tar.bz2`` cut in its last block unpacked without a word
    (an archive with no sha256 on its card has no other check). A stream cut short raises
    ``EOFError``, a wrong CRC ``gzip.BadGzipFile`` / ``OSError`` (:func:`extract` names both)."""
    stream = tf.fileobj
    if stream is None:  # pragma: no cover - tarfile.open always sets it
        return
    while stream.read(1 << 20):
        pass


def _check_total_ratio(sizes: list[tuple[str, int]], archive: Path) -> None:
    """The whole declared unpacked size against the archive file's size, at the member rule's
    :data:`MAX_MEMBER_RATIO` (a tar stream has no packed size per member, and a zip of many
    members each under the 1 MiB floor of that rule packs 1000:1 just as well)."""
    total = sum(size for _, size in sizes)
    packed = archive.stat().st_size
    if total > _SMALL_MEMBER and total > MAX_MEMBER_RATIO * max(packed, 1):
        big = max(sizes, key=lambda s: s[1])[0]
        raise DataError(f"the archive unpacks {packed:,} bytes into {total:,} (more than "
                        f"{MAX_MEMBER_RATIO}:1, a compression bomb; largest member "
                        f"{big!r}); refused", path=archive.name)


def _check_packed_sizes(infos: list[zipfile.ZipInfo], archive: Path) -> None:
    """A zip member whose declared packed size runs past the archive's end, or members whose
    packed sizes add up to more than the archive holds (overlapping members: one deflate stream
    read as many), is refused: its headers lie, and the ratio rule would read them."""
    size = archive.stat().st_size
    for info in infos:
        if info.header_offset + info.compress_size > size:
            raise DataError(f"archive member {info.filename!r} declares {info.compress_size:,} "
                            f"packed bytes, more than the archive's {size:,} bytes hold: its "
                            "headers lie (a damaged archive or a zip bomb); refused",
                            path=archive.name)
    total = sum(i.compress_size for i in infos)
    if total > size:
        raise DataError(f"the members declare {total:,} packed bytes together, more than the "
                        f"archive's {size:,} bytes hold: members overlap (a zip bomb); refused",
                        path=archive.name)


def _check_twins(names: list[str], archive: Path) -> None:
    """Two file members of one name, or of names equal but for letter case or Unicode form, are
    refused naming both: which one is the dataset would depend on the tool and the disk."""
    seen: dict[str, tuple[str, str]] = {}
    for name in names:
        plain = PurePosixPath(name.replace("\\", "/")).as_posix()
        key = unicodedata.normalize("NFC", plain).casefold()
        if key not in seen:
            seen[key] = (name, plain)
            continue
        first, first_plain = seen[key]
        if first_plain == plain:
            raise DataError(f"archive member {name!r} is in the archive twice (tools differ on "
                            "which copy they keep); refused", path=archive.name)
        how = ("Unicode form (NFC/NFD)" if unicodedata.normalize("NFC", first)
               == unicodedata.normalize("NFC", name) else "letter case")
        raise DataError(f"archive members {name!r} and {first!r} differ only in {how}: a "
                        "case-blind or normalising disk (macOS, Windows) keeps one; refused",
                        path=archive.name)


def _check_member(name: str, archive: Path) -> None:
    if any(ord(c) < 32 or c == "\x7f" for c in name):  # a NUL cuts the name, a line end
        raise DataError(f"archive member {name!r} has a control character in its name; "
                        "refused", path=archive.name)
    long = next((part for part in name.replace("\\", "/").split("/")
                 if len(part.encode("utf-8", "surrogateescape")) > 255), None)
    if long is not None:  # NAME_MAX of the usual file systems
        n = len(long.encode("utf-8", "surrogateescape"))
        size = f"{len(long)} characters" if n == len(long) else \
            f"{len(long)} characters, {n} bytes in UTF-8"
        raise DataError(f"archive member {name[:80]!r}... has a name part of {size} (a file "
                        "system takes 255 bytes); refused", path=archive.name)
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


_PACKED = (".tar.bz2", ".tar.gz", ".tgz", ".tar.xz", ".tar", ".zip", ".rar", ".7z", ".gz", ".bz2",
           ".xz")


def windows_names(root: Path) -> str:
    """``"; it holds ..."`` naming an unpacked file whose name holds ``\\`` (a zip packed by a
    Windows tool with ``\\`` for ``/``, against the zip format: unpacked here as one file named
    ``toy\\ratings.csv``), else ``""``."""
    found = sorted(f.relative_to(root).as_posix() for f in root.rglob("*")
                   if "\\" in f.name)
    if not found:
        return ""
    return (f"; it holds {found[0]!r}: a name with '\\\\' for '/' (packed by a Windows tool); "
            "repack the archive with '/' in its names")


def misplaced_files(root: Path, wanted: list[str]) -> str:
    """``"; it holds ... in ..."`` naming where a wanted file (a card's path) lies deeper in the
    unpacked download (an archive packed one folder too high: ``toy/toy/ratings.csv``), else
    ``""``."""
    for rel in wanted:
        name = PurePosixPath(rel).name
        found = sorted(f.relative_to(root).as_posix() for f in root.rglob(name)
                       if f.is_file() and f.relative_to(root).as_posix().endswith("/" + rel))
        if found:
            return (f"; it holds {rel} as {found[0]!r}: the files lie a folder deeper than the "
                    "card says (packed from the folder above); repack it from the dataset's "
                    "folder")
    return ""


def nested_archives(root: Path) -> str:
    """``"; it holds ... inside: ..."`` naming the archives an unpacked download holds (Yahoo's
    ``dataset.tgz`` holds ``ltrc_yahoo.tar.bz2``, the archive its card names), else ``""``."""
    found = sorted(f.relative_to(root).as_posix() for f in root.rglob("*")
                   if f.is_file() and f.name.lower().endswith(_PACKED))
    if not found:
        return ""
    return (f"; it holds {', '.join(found[:3])} inside: an archive in the archive; unpack the "
            "outer one and give the inner one with --url")
