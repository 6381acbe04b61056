"""Output paths checked before any work: an output never replaces, or lies over, an input, and a
path that cannot be written where the command writes is a clear error, not a traceback (nor a
destroyed file) after the work is done.

- :func:`check_output_file`: a file the command (atomically) replaces. Refused when it is one of
  the command's inputs -- the same path, a hard link of it (same device and inode), a path that
  reaches it through a symlinked folder, an existing file an entry of an input folder is a hard
  or symbolic link of (a linked shard) -- when it lies inside an input folder (an existing
  file there, or a new one: it changes what the folder holds), when it is an existing file
  without any write permission bit (read-only), when its path ends in a separator (a folder's
  name), when it is a symbolic link, a device node, a FIFO or a socket (``/dev/full``: a rename over it
  would replace the device node with a file; a FIFO would block the writer), when it is a
  directory, when a component of its folder is an existing file, or when the folder it goes in
  may not be written by this user (``os.access``), is on a read-only file system or has no
  write permission bit (read-only, also for root); and a path holding a NUL byte or a name over the file system's ``NAME_MAX`` (both commands),
  a new file's name holding a control character (as a new folder's), and (both) a ``..`` after
  a folder that does not exist or an existing file used as a folder (``new/../in.txt``:
  ``realpath`` does not see the input there, the writer creates ``new`` and replaces it).
- :func:`check_output_dir`: a folder the command writes into. Refused when it (or a component of
  it) is an existing file, a device node, a FIFO or a socket, or a symbolic link to nothing,
  when it (or, for a new folder, the nearest existing folder above it) is read-only or may not
  be written, as for a file; and
  when an entry the command writes there (``writes``: file names and ``fnmatch`` patterns relative
  to the folder, e.g. ``train.txt`` or ``*/ndcg_at_k.png``) exists and is an input file, holds an
  input, lies inside an input folder, or is a symbolic link, a device node, a FIFO or a socket.
  Input folders named ``sealed`` (a dataset folder) receive nothing: the output folder may not
  be or lie inside one, nor may one be or lie inside a sub-folder the command fills (``into``:
  ``runs/``) or be a folder it writes files into (``*/crosscheck.md``).

Containment is decided on resolved paths (:func:`os.path.realpath`), so a symlinked parent folder
cannot hide that an output lies over an input. Inputs that are globs (``shards/*.parquet``) are
expanded; inputs that do not exist (a catalogue name, ``synthetic``) are skipped. Nothing is
opened for writing here: the checks use ``lstat``/``stat`` only, so a device node or a FIFO is
refused before anything touches it.

Every refusal is a :class:`~bench.errors.ConfigError` naming the option, the output path, the input
(option and path) where one is involved, and what to do, so the CLI exits with status 2 before
reading or writing anything. (The same rule as GNU ``cp``/``install``, which refuse to copy a file
onto itself: coreutils ``src/copy.c``, ``same_file_ok``.)
"""

from __future__ import annotations

import contextlib
import glob
import os
import stat
from collections.abc import Iterable, Iterator
from fnmatch import fnmatch
from pathlib import Path

from bench.data.folder_names import name_key, twins
from bench.data.output_names import check_components as _check_components
from bench.data.output_names import check_name as _check_name
from bench.data.output_names import mode_kind as mode_kind
from bench.data.output_names import special_kind as special_kind
from bench.data.umask import refuse_owner_umask
from bench.errors import ConfigError
from bench.streams import stream_of

PathLike = str | os.PathLike[str]
Inputs = Iterable[tuple[str, "PathLike | None"]]

def same_file(a: PathLike | int, b: PathLike | int) -> bool:
    """Whether ``a`` and ``b`` name one existing file (same path, symlink or hard link); a
    file descriptor (an ``int``) names its open file."""
    try:
        sa, sb = os.stat(a), os.stat(b)
    except OSError:
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def _real(path: PathLike) -> Path:
    return Path(os.path.realpath(path))


def _inside(child: Path, folder: Path) -> bool:
    """Whether resolved ``child`` is ``folder`` or lies below it."""
    return child == folder or folder in child.parents


def _expand(inputs: Inputs) -> list[tuple[str, Path]]:
    """The ``(option, path)`` inputs that exist, globs expanded (a missing path is skipped: a
    catalogue name or ``synthetic`` is not a file)."""
    out: list[tuple[str, Path]] = []
    for name, inp in inputs:
        if inp is None:
            continue
        text = os.fspath(inp)  # '~' as the readers open it: '--run b=~/r.txt' is ~'s r.txt
        text = os.path.expanduser(text) if text.startswith("~") else text
        if os.path.lexists(text):
            out.append((name, Path(text)))
        elif glob.has_magic(text):
            out.extend((name, Path(p)) for p in sorted(glob.glob(text)))
    return out


def _input_over(target: Path, inputs: list[tuple[str, Path]], *,
                links: bool = True) -> tuple[str, Path, str] | None:
    """``(option, input, how)`` of the input that writing (or removing) ``target`` would
    destroy: ``target`` is the input (``how`` says in which way), lies in an input folder, or is
    a folder holding an input; ``None`` when it touches none."""
    real = _real(target)
    for name, inp in inputs:
        rin = _real(inp)
        if os.path.lexists(target) and same_file(target, inp) and not rin.is_dir():
            if os.path.abspath(target) == os.path.abspath(inp):
                return name, inp, "is"
            return name, inp, "is the same file as"
        if rin.is_dir() and real == rin:
            return name, inp, "is"
        if rin.is_dir() and _inside(real, rin):  # existing or new: the folder's content
            return name, inp, "lies inside the input folder"
        if links and rin.is_dir() and (linked := _hard_link_in(target, rin)) is not None:
            return name, linked, "is the same file as"  # a shard of a --data folder
        if os.path.isdir(target) and not os.path.islink(target) and _inside(rin, real):
            return name, inp, "is a folder that holds"
    return None


def _refuse_special(option: str, path: Path, target: Path | None = None) -> None:
    """Refuse ``target`` (default ``path``) when it is a symlink, a device node, a FIFO or a
    socket: ltrbench replaces files by renaming a finished temporary file over them, which would
    replace a device node by a plain file, and a FIFO blocks the writer."""
    target = path if target is None else target
    where = "" if target == path else f": it would write {os.fspath(target)!r}, which"
    kind = special_kind(target)
    if kind is not None:
        raise ConfigError(f"{option} {os.fspath(path)!r}{where} is a {kind}, not a regular "
                          "file: ltrbench refuses to write over it; choose a file path on disk")
    if os.path.islink(target):
        raise ConfigError(f"{option} {os.fspath(path)!r}{where} is a symbolic link (to "
                          f"{os.readlink(target)!r}): ltrbench does not write through or over "
                          "links; name the real file, or remove the link")


def _hard_link_in(target: Path, folder: Path) -> Path | None:
    """The entry below ``folder`` that reads the existing file ``target``: a hard link of it,
    or a symbolic link to it (a shard ``part-2.parquet -> ../out.csv``), else None. Only an
    existing regular file is looked for (a new output is no input's file)."""
    try:
        st = os.lstat(target)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    for root, _, names in os.walk(folder):
        for n in names:
            with contextlib.suppress(OSError):
                other = os.stat(os.path.join(root, n))  # through a link: what is read
                if (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino):
                    return Path(root, n)
    return None


def _glob_folders(inputs: Inputs, sealed: set[str]) -> list[tuple[str, Path]]:
    """The folders holding the matches of each ``sealed`` input given as a glob
    (``ratings/*.csv``): sealed as a folder input is (a glob names a folder's shards as the
    folder does)."""
    out: list[tuple[str, Path]] = []
    for name, inp in inputs:
        text = "" if inp is None else os.fspath(inp)
        if name in sealed and text and not os.path.lexists(text) and glob.has_magic(text):
            found = sorted({Path(m).parent for m in glob.glob(text)})
            out.extend((f"{name} ({text})", f) for f in found)
    return out


def check_output_file(path: PathLike, *, option: str, inputs: Inputs = ()) -> Path:
    """``path`` as a :class:`Path` once it may be written as a file (see the module doc and
    :func:`_check_output_file`); a refusal names it as typed (``.//out/x.csv``)."""
    with _as_typed(option, path):
        return _check_output_file(path, option=option, inputs=inputs)


def check_output_dir(path: PathLike, *, option: str, inputs: Inputs = (),
                     writes: Iterable[str] = (), into: Iterable[str] = (),
                     sealed: Iterable[str] = ()) -> Path:
    """``path`` as a :class:`Path` once it may be used as an output folder (see the module doc
    and :func:`_check_output_dir`); a refusal names it as typed (``data//x/..//``)."""
    with _as_typed(option, path):
        return _check_output_dir(path, option=option, inputs=inputs, writes=writes, into=into,
                                 sealed=sealed)


@contextlib.contextmanager
def _as_typed(option: str, path: PathLike) -> Iterator[None]:
    """A refusal that names the output as :class:`Path` spells it (``data/x/..``, the
    ``//``, ``./`` and trailing ``/`` dropped) names it as the user typed it instead."""
    try:
        yield
    except ConfigError as exc:
        typed, shown = os.fspath(path), os.fspath(Path(path))
        if typed == shown or f"{option} {shown!r}" not in str(exc):
            raise
        raise ConfigError(str(exc).replace(f"{option} {shown!r}", f"{option} {typed!r}",
                                           1)) from None


def _check_output_file(path: PathLike, *, option: str, inputs: Inputs = ()) -> Path:
    """``path`` as a :class:`Path` once it may be written as a file (see the module doc).

    ``inputs`` are ``(option, path)`` pairs of what the command reads (``None`` paths are
    skipped; a folder counts with every file below it), so the message can say which input
    would be overwritten.
    """
    _check_name(option, path, "file")
    p = Path(path)
    found = _expand(inputs)
    hit = _input_over(p, found)
    if hit is not None and hit[2] != "is a folder that holds":
        name, inp, how = hit
        if how == "lies inside the input folder":
            what = ("writing it would replace one of the input's files" if os.path.lexists(p)
                    else "a new file there changes what the folder holds (the next read of it)")
            raise ConfigError(f"{option} {os.fspath(p)!r} {how} {name} {os.fspath(inp)!r}: "
                              f"{what}; choose a path outside the input folder")
        link = " (a hard link of it)" if how != "is" and _real(p) != _real(inp) else ""
        raise ConfigError(f"{option} {os.fspath(p)!r} {how} the input {name} "
                          f"{os.fspath(inp)!r}{link}: writing it would destroy the input; "
                          "choose another output path")
    _check_components(option, path)  # after the input checks: what a plain spelling gets
    _refuse_special(option, p)
    if (stream := stream_of(p)) is not None:
        raise ConfigError(f"{option} {os.fspath(p)!r} is this command's {stream} (redirected "
                          "to it): both would write one file; choose another path")
    _refuse_read_only(option, p)
    if p.is_dir():
        raise ConfigError(f"{option} {os.fspath(p)!r} is a directory: expected a file name "
                          f"(e.g. {os.fspath(p / 'per_query.csv')!r})")
    _check_file_name(option, path)
    _check_parents(_real(p).parent, option, p)  # resolved: /proc/self/cwd/x is cwd's x
    return p


def _check_output_dir(path: PathLike, *, option: str, inputs: Inputs = (),
                      writes: Iterable[str] = (), into: Iterable[str] = (),
                      sealed: Iterable[str] = ()) -> Path:
    """``path`` as a :class:`Path` once it may be used as an output folder (see the module doc).

    ``writes``: what the command writes (or replaces, or removes) in the folder, as names or
    :func:`fnmatch.fnmatch` patterns per path segment, relative to it (``*`` stays in one
    folder); an existing entry that matches is checked against ``inputs`` (a matching folder
    with everything below it).

    ``sealed``: the options of ``inputs`` whose folders nothing may be written into (a dataset
    folder: a file added to it changes what it holds, and a later read of it). ``into``: the
    sub-folders the command creates and fills (``runs``). Refused, for a sealed input folder
    ``D``: the output folder is ``D`` or lies inside it (whatever it writes would land among the
    input's files); ``D`` is, or lies inside, one of the ``into`` sub-folders (a new run folder
    would be created beside or inside the input, and readers of that sub-folder would take the
    input for output); ``D`` is a folder the ``writes`` patterns write into (``*/crosscheck.md``
    with ``D`` = ``OUT/letor``). Any other containment is fine: an output folder that merely
    holds the input folder (``--out work --dataset work/letor``) writes beside it, not into it;
    an input file's folder (the config file's) is not sealed.
    """
    _check_name(option, path, "folder")
    p = Path(path)
    found = _expand(inputs)
    _check_sealed(option, p, [(n, i) for n, i in found if n in set(sealed)], tuple(into),
                  tuple(w for w in writes if "/" in w))
    for name, inp in found:
        if os.path.lexists(p) and same_file(p, inp) and not os.path.isdir(inp):
            raise ConfigError(f"{option} {os.fspath(p)!r} is the input {name}: choose another "
                              "output folder")
    _check_components(option, path)  # after the input checks: 'is the input folder' said first
    kind = special_kind(p)
    if kind is not None:
        raise ConfigError(f"{option} {os.fspath(p)!r} is a {kind}: expected a folder (it is "
                          "created when missing)")
    if os.path.islink(p) and not p.exists():
        raise ConfigError(f"{option} {os.fspath(p)!r} is a symbolic link to nothing "
                          f"({os.readlink(p)!r}): remove the link or name a real folder")
    if p.exists() and not p.is_dir():
        raise ConfigError(f"{option} {os.fspath(p)!r} is an existing file: expected a folder "
                          "(it is created when missing)")
    for sub in into:  # 'runs' a file: the work was done, then the run folder failed
        child = p / sub
        if os.path.lexists(child) and not child.is_dir():
            raise ConfigError(f"{option} {os.fspath(p)!r}: {os.fspath(child)!r} is a "
                              f"{special_kind(child) or 'file'}, where the command creates its "
                              "folders: move it away or choose another output folder")
    _check_parents(_real(p), option, p)  # the folder itself once it exists (read-only?), resolved
    patterns = tuple(writes)
    if patterns and p.is_dir():
        for target in _matching(p, patterns):
            _check_written(option, p, target, found, patterns)
    # last: a file the command would replace is said first, by name (train.parquet)
    _check_sealed(option, p, _glob_folders(inputs, set(sealed)), (), ())
    return p


def _check_sealed(option: str, out: Path, sealed: list[tuple[str, Path]],
                  into: tuple[str, ...], file_writes: tuple[str, ...]) -> None:
    """Refuse ``out`` when the command would write into a sealed input folder (see
    :func:`check_output_dir`): ``out`` is it or lies in it; it is or lies in a sub-folder of
    ``into`` (names); it is a folder that a ``writes`` pattern writes files into
    (``file_writes``: those patterns, e.g. ``*/crosscheck.md``: the message names the files)."""
    real = _real(out)
    for name, inp in sealed:
        folder = _real(inp)
        if not folder.is_dir():
            continue
        if _inside(real, folder):
            how = "is" if real == folder else "lies inside"
            raise ConfigError(f"{option} {os.fspath(out)!r} {how} the input folder {name} "
                              f"{os.fspath(inp)!r}: the command would write among the input's "
                              "files; choose an output folder outside it")
        rel = folder.relative_to(real).as_posix() if _inside(folder, real) else None
        for sub in into:  # 'Runs' is 'runs' on a case-insensitive disk
            if any(_inside(folder, _real(s)) for s in (out / sub, *twins(out, sub))):
                raise ConfigError(f"{option} {os.fspath(out)!r}: the command creates its "
                                  f"folders in {os.fspath(out / sub)!r}, and the input folder "
                                  f"{name} {os.fspath(inp)!r} is there; choose another output "
                                  "folder (or move the input)")
        for pattern in dict.fromkeys(w.rsplit("/", 1)[0] for w in file_writes):
            if rel is not None and _matches(rel, pattern):
                files = ", ".join(w.rsplit("/", 1)[1] for w in file_writes
                                  if w.rsplit("/", 1)[0] == pattern)
                raise ConfigError(f"{option} {os.fspath(out)!r}: the command writes {files} "
                                  f"into {os.fspath(out / rel)!r}, which is the input "
                                  f"folder {name} {os.fspath(inp)!r}; choose another output "
                                  "folder (or move the input)")


def _matches(rel: str, pattern: str) -> bool:
    """``fnmatch`` per path segment: ``*/x.png`` matches ``a/x.png``, not ``a/b/x.png``."""
    parts, pats = rel.split("/"), pattern.split("/")
    return len(parts) == len(pats) and all(fnmatch(name_key(a), name_key(b))  # 'Train.txt'
                                           for a, b in zip(parts, pats, strict=True))


def _matching(folder: Path, patterns: tuple[str, ...]) -> list[Path]:
    """Existing entries below ``folder`` (symlinks not followed) whose relative path matches one
    of ``patterns``; a matching folder is listed, not entered, and the walk goes no deeper than
    the deepest pattern."""
    depth = max(pat.count("/") for pat in patterns) + 1
    out: list[Path] = []
    for root, dirs, files in os.walk(folder, followlinks=False):
        base = Path(root)
        level = len(base.relative_to(folder).parts) + 1
        keep = []
        for entry in [*dirs, *files]:
            rel = (base / entry).relative_to(folder).as_posix()
            if any(_matches(rel, pat) for pat in patterns):
                out.append(base / entry)
            elif entry in dirs and level < depth:
                keep.append(entry)
        dirs[:] = keep
    return out


def _check_written(option: str, folder: Path, target: Path, inputs: list[tuple[str, Path]],
                   patterns: tuple[str, ...]) -> None:
    """Refuse the entry ``target`` the command would write over in output ``folder`` when it is
    (or holds, or lies in) an input, or is a link or a special file. ``target`` may differ from
    the name written only in case or Unicode form (:func:`name_key`): on a case-insensitive
    disk (macOS, Windows, a CIFS share) it is that file."""
    hit = _input_over(target, inputs, links=False)  # (no walk of the inputs per entry)
    if hit is not None:
        name, inp, how = hit
        what = ("holds the input" if how == "is a folder that holds" else
                "lies inside the input folder" if how.startswith("lies") else
                "is the input" if how == "is" else f"{how} the input")
        rel = target.relative_to(folder).as_posix()
        written = next((w for w in patterns if w != rel and not glob.has_magic(w)
                        and _matches(rel, w)), rel)
        twin = "" if written == rel else " (one file on a case-insensitive disk)"
        raise ConfigError(f"{option} {os.fspath(folder)!r}: the command writes {written!r} "
                          f"there, and{twin} "
                          f"{os.fspath(target)!r} {what} {name} {os.fspath(inp)!r}; writing "
                          "it would destroy the input: choose another output folder (or move "
                          "the input out of it)")
    _refuse_special(option, folder, target)
    _refuse_read_only(option, folder, target)


def _check_file_name(option: str, path: PathLike) -> None:
    """Refuse a file path that ends in a separator (``out.csv/``, ``out.csv/.``): POSIX reads
    it as a folder (``open`` fails with ``EISDIR``), while :class:`Path` drops the slash and
    the file ``out.csv`` was written without a word."""
    text = os.fspath(path)
    seps = (os.sep, os.altsep) if os.altsep else (os.sep,)
    if text.endswith(seps) or text.endswith(tuple(s + "." for s in seps)) or text == ".":
        raise ConfigError(f"{option} {text!r} ends with a path separator, which names a "
                          "folder: expected a file name (drop the trailing separator)")


def _refuse_read_only(option: str, path: Path, target: Path | None = None) -> None:
    """Refuse an existing regular file ``target`` (default ``path``) that has no write
    permission bit (``chmod a-w``): the user protected it, and the atomic writer's rename
    would replace it all the same (also as root, whom ``os.access`` lets write anything), with
    another file mode. ``cp`` asks first (coreutils ``src/copy.c``, ``overwrite_ok``); here the
    command refuses before any work."""
    target = path if target is None else target
    try:
        st = os.lstat(target)
    except OSError:
        return
    if stat.S_ISREG(st.st_mode) and not st.st_mode & 0o222:
        where = "" if target == path else f": it would replace {os.fspath(target)!r}, which"
        raise ConfigError(f"{option} {os.fspath(path)!r}{where} is read-only (mode "
                          f"{stat.S_IMODE(st.st_mode):o}): ltrbench does not replace a file "
                          "its owner protected; make it writable (chmod u+w) or choose "
                          "another path")


def _check_parents(folder: Path, option: str, target: Path) -> None:
    for parent in (folder, *folder.parents):
        if os.path.lexists(parent):
            if not parent.is_dir():
                what = special_kind(parent) or "file, not a folder"
                raise ConfigError(f"{option} {os.fspath(target)!r}: {os.fspath(parent)!r} is a "
                                  f"{what}, so nothing can be written under it")
            _check_writable(parent, option, target)
            return


def _check_writable(folder: Path, option: str, target: Path) -> None:
    """Refuse, before any work, a folder this process may not write in (``os.access``), one on
    a read-only file system (``statvfs``), one without any write permission bit (``chmod a-w``:
    its owner protected it; root, whom ``os.access`` lets write anything, would fill it all the
    same), or a umask that would make what is written there unusable to its owner."""
    refuse_owner_umask(option, target)
    read_only = False
    with contextlib.suppress(OSError):
        read_only = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    mode = None
    with contextlib.suppress(OSError):
        mode = stat.S_IMODE(os.stat(folder).st_mode)
    if mode is not None and not mode & 0o222 and not read_only:
        shown = "" if _real(target) == folder else f": the folder {os.fspath(folder)!r}"
        raise ConfigError(f"{option} {os.fspath(target)!r}{shown} is read-only (mode "
                          f"{mode:o}): ltrbench does not write into a folder its owner "
                          "protected; make it writable (chmod u+w) or choose another folder")
    if read_only or not os.access(folder, os.W_OK | os.X_OK):
        why = "is on a read-only file system" if read_only else "may not be written by this user"
        raise ConfigError(f"{option} {os.fspath(target)!r}: the folder {os.fspath(folder)!r} "
                          f"{why}: choose a writable folder")
