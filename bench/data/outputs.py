"""Output paths checked before any work: an output never replaces an input, and a path that cannot
be written where the command writes is a clear error, not a traceback after the work is done.

- :func:`check_output_file`: a file the command (atomically) replaces. Refused when it is one of
  the command's inputs -- the same path, a symlink to it or a hard link of it (same device and
  inode) -- when it is a directory, or when a component of its folder is an existing file.
- :func:`check_output_dir`: a folder the command writes into. Refused when it (or a component
  of it) is an existing file, or when it is one of the input files.

Every refusal is a :class:`~bench.errors.ConfigError` naming the option and the path, so the
CLI exits with status 2 before reading or writing anything.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from bench.errors import ConfigError

PathLike = str | os.PathLike[str]


def same_file(a: PathLike, b: PathLike) -> bool:
    """Whether ``a`` and ``b`` name one existing file (same path, symlink or hard link)."""
    try:
        sa, sb = os.stat(a), os.stat(b)
    except OSError:
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def check_output_file(
    path: PathLike, *, option: str, inputs: Iterable[tuple[str, PathLike | None]] = ()
) -> Path:
    """``path`` as a :class:`Path` once it may be written as a file (see the module doc).

    ``inputs`` are ``(option, path)`` pairs of what the command reads (``None`` paths are
    skipped), so the message can say which input would be overwritten.
    """
    p = Path(path)
    for name, inp in inputs:
        if inp is not None and same_file(p, inp):
            how = "is" if os.path.abspath(p) == os.path.abspath(inp) else "is the same file as"
            raise ConfigError(f"{option} {os.fspath(p)!r} {how} the input {name} "
                              f"{os.fspath(inp)!r}: writing it would destroy the input; choose "
                              "another output path")
    if p.is_dir():
        raise ConfigError(f"{option} {os.fspath(p)!r} is a directory: expected a file name "
                          f"(e.g. {os.fspath(p / 'per_query.csv')!r})")
    _check_parents(p.parent, option, p)
    return p


def check_output_dir(
    path: PathLike, *, option: str, inputs: Iterable[tuple[str, PathLike | None]] = ()
) -> Path:
    """``path`` as a :class:`Path` once it may be used as an output folder (see the module doc)."""
    p = Path(path)
    for name, inp in inputs:
        if inp is not None and same_file(p, inp):
            raise ConfigError(f"{option} {os.fspath(p)!r} is the input {name}: choose another "
                              "output folder")
    if p.exists() and not p.is_dir():
        raise ConfigError(f"{option} {os.fspath(p)!r} is an existing file: expected a folder "
                          "(it is created when missing)")
    _check_parents(p.parent, option, p)
    return p


def _check_parents(folder: Path, option: str, target: Path) -> None:
    for parent in (folder, *folder.parents):
        if parent.exists():
            if not parent.is_dir():
                raise ConfigError(f"{option} {os.fspath(target)!r}: {os.fspath(parent)!r} is a "
                                  "file, not a folder, so nothing can be written under it")
            return
