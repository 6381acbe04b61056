"""The spelling of an output path, checked before any work (for :mod:`bench.data.outputs`): a
NUL byte, ``-``, a control character, a Windows path or a blank at the ends of a new name, a name
over the file system's ``NAME_MAX`` (:func:`check_name`), and folders that do not read as
written (``new/../in.txt``, ``in.txt/../out.csv``: :func:`check_components`)."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from bench.data.folder_names import windows_path
from bench.errors import ConfigError

PathLike = str | os.PathLike[str]


_KINDS = ((stat.S_ISCHR, "character device node"), (stat.S_ISBLK, "block device node"),
          (stat.S_ISFIFO, "FIFO (named pipe)"), (stat.S_ISSOCK, "socket"))


def special_kind(path: PathLike) -> str | None:
    """``"character device node"``, ``"FIFO (named pipe)"``, ... when ``path`` (not followed if
    a symlink) is neither a regular file, a folder nor a symlink; else ``None``."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    return mode_kind(mode)


def mode_kind(mode: int) -> str | None:
    """:func:`special_kind` of a file of ``st_mode`` ``mode``."""
    return next((kind for test, kind in _KINDS if test(mode)), None)


def check_name(option: str, path: PathLike, what: str) -> None:
    """Refuse, before any work, a new ``what`` (file or folder) named ``-`` (standard output to
    other tools) or whose path holds a control character (a pasted line end), a backslash on
    POSIX (``data\\pq.csv``: one file of that name, not ``pq.csv`` in ``data``), a NUL byte
    (``open`` raised ``ValueError``), or a name of more bytes than the file system allows
    (``NAME_MAX``: ``File name too long`` came once the work was done, naming no option)."""
    text = os.fspath(path)
    if "\x00" in text:
        raise ConfigError(f"{option} {text!r}: the path holds a NUL byte, which no file name "
                          "can hold; choose another path")
    if text == "-":  # 'run --out -': a folder named '-' was made, in silence
        raise ConfigError(f"{option} '-' is not standard output here (./- names a {what} '-')")
    bad = next((c for c in text if ord(c) < 32 or ord(c) == 127), None)
    if bad is not None and not os.path.lexists(text):  # as the Python API's folders (user_path)
        raise ConfigError(f"{option} {text!r}: the {what} to create holds a control character "
                          f"(U+{ord(bad):04X}: a line end or tab pasted with the path?); "
                          f"expected a {what} path without one")
    if windows_path(text) and not os.path.lexists(text):  # 'data\\pq.csv', 'C:/results'
        raise ConfigError(f"{option} {text!r}: the {what} to create is a Windows path (a drive "
                          "letter, or a backslash: part of a name here, not a folder separator); "
                          "separate folders with '/'")
    name = Path(text).name
    if name != name.strip() and not os.path.lexists(text):  # "pq.json ": a template's blank
        raise ConfigError(f"{option} {text!r}: the name to create starts or ends with a blank "
                          "(a space left by a template or a pasted value?); name it without one")
    for part in Path(text).parts:
        size, limit = len(os.fsencode(part)), _name_max(Path(text))
        if size > limit:
            raise ConfigError(f"{option} {_cut(text, 60)}: the name {_cut(part, 24)} is {size} "
                              f"bytes, over the file system's limit of {limit} bytes per name; "
                              "choose a shorter name")


def check_components(option: str, path: PathLike) -> None:
    """Refuse a path whose folders do not read as written: a ``..`` after a folder that does
    not exist (``new/../in.txt``: :func:`os.path.realpath` drops ``new`` and does not see the
    input ``in.txt``, while the writer creates ``new`` and then replaces ``in.txt``), and an
    existing file, not a folder, used as one (``in.txt/../out.csv``, which failed at the write
    naming no option)."""
    text = os.fspath(path)
    parts = Path(text).parts
    cur = Path(parts[0]) if Path(text).is_absolute() else Path()
    rest = parts[1:] if Path(text).is_absolute() else parts
    for part in rest[:-1] if rest and rest[-1] != ".." else rest:
        if part == ".." and not os.path.isdir(cur):
            what = ("does not exist" if not os.path.lexists(cur)
                    else f"is a {special_kind(cur) or 'file, not a folder'}")
            raise ConfigError(f"{option} {text!r}: {os.fspath(cur)!r} comes before '..' but "
                              f"{what}, so the path does not name the place it reads as; "
                              "write the path without '..'")
        cur = cur / part
        if part != ".." and os.path.lexists(cur) and not os.path.isdir(cur):
            what = special_kind(cur) or ("symbolic link to nothing" if os.path.islink(cur)
                                         else "file, not a folder")
            raise ConfigError(f"{option} {text!r}: {os.fspath(cur)!r} is a {what}, so "
                              "nothing can be written under it")


def _cut(text: str, n: int) -> str:
    """``repr(text)``, its first ``n`` characters and ``...`` when longer."""
    return repr(text) if len(text) <= n else f"{text[:n]!r}..."


def _name_max(path: Path) -> int:
    """``NAME_MAX`` of the file system of ``path``'s nearest existing folder (255 if unknown)."""
    for folder in path.absolute().parents:
        if folder.is_dir():
            with contextlib.suppress(OSError, ValueError, AttributeError):
                return int(os.pathconf(folder, "PC_NAME_MAX"))
            break
    return 255
