"""Atomic file writes: a failed or interrupted run never leaves a half-written file behind.

Write to a temporary file in the destination folder, flush and fsync it, then ``os.replace``
it onto the destination (atomic on POSIX and Windows within one file system).

A write that fails (a full disk: ``ENOSPC`` raised by ``write`` names no file) is re-raised as
an ``OSError`` naming the destination the user chose, not the temporary file, so the command
line says ``path: No space left on device`` (the rule of :mod:`bench.data.inputs`).
"""

from __future__ import annotations

import contextlib
import errno
import glob
import hashlib
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from bench.data.umask import current_umask
from bench.errors import DataError


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success it replaces ``path`` atomically.

    On an exception the temporary file is removed and ``path`` is left as it was. The temporary
    name carries the writer's pid; temporaries of ``path`` left by a writer that was killed
    (its process is gone) are removed here.
    """
    dest = Path(path)
    dest.parent.mkdir(parents=True, exist_ok=True)
    _remove_orphans(dest)
    prefix = f".{_stem(dest)}.{os.getpid()}-"
    earlier = _own_temporaries(dest.parent, prefix)
    tmp_path: Path | None = None
    try:
        try:
            fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=dest.parent)
        except OSError as exc:  # /proc, a read-only folder: name the user's path
            raise OSError(exc.errno, f"cannot create a file in its folder ({exc.strerror})",
                          str(dest)) from exc
        tmp_path = Path(tmp)
        os.close(fd)
        os.chmod(tmp_path, 0o666 & ~current_umask())  # mkstemp creates 0600; give the usual file mode
        yield tmp_path
        with open(tmp_path, "rb+") as fh:
            os.fsync(fh.fileno())
        _keep_mode(tmp_path, dest)
        os.replace(tmp_path, dest)
    except BaseException as exc:
        # a signal (Ctrl-C, SIGTERM) may land after mkstemp made the file and before its name
        # was kept: then this writer's temporaries made since it started are removed by name
        made = [tmp_path] if tmp_path is not None else \
            _own_temporaries(dest.parent, prefix) - earlier
        for left in made:
            with contextlib.suppress(FileNotFoundError):
                left.unlink()
        if isinstance(exc, OSError) and tmp_path is not None and _unnamed(exc, tmp_path):
            raise _named(exc, dest) from exc
        raise


def _own_temporaries(folder: Path, prefix: str) -> set[Path]:
    """The temporaries of this process in ``folder`` whose names start with ``prefix`` (the
    writer's pid is in it)."""
    return {Path(p) for p in glob.glob(os.path.join(glob.escape(os.fspath(folder)),
                                                    glob.escape(prefix) + "*.tmp"))}


def _keep_mode(tmp: Path, dest: Path) -> None:
    """Before ``tmp`` replaces ``dest``: refuse a ``dest`` that is no longer a regular file or a
    link (a device node, FIFO, socket or folder put there after the command checked its
    output: the rename would replace ``/dev/full`` by a plain file), and give ``tmp`` the mode
    of an existing ``dest`` (a file kept ``0600`` stayed private; the replacement was ``0644``),
    as a shell's ``>`` keeps it."""
    try:
        st = os.lstat(dest)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        return  # the rename replaces the link itself, never what it points to
    if not stat.S_ISREG(st.st_mode):
        from bench.data.outputs import mode_kind

        kind = "folder" if stat.S_ISDIR(st.st_mode) else mode_kind(st.st_mode) or "special file"
        raise DataError(f"it is no longer a regular file (it became a {kind} while the command "
                        "ran): nothing was written over it; choose a file path on disk", path=dest)
    os.chmod(tmp, stat.S_IMODE(st.st_mode))


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; returns the path."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)


def write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically; returns the path."""
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)
    return Path(path)


@contextlib.contextmanager
def replace_file_set(dest: str | os.PathLike[str], owned: Sequence[str]) -> Iterator[Path]:
    """Yield a new temporary folder beside the files of ``dest``; on success its files replace
    the set ``owned`` (file names) in ``dest``: files of ``owned`` that the new set lacks (an
    earlier set's leftovers) are removed, then each new file is moved in with ``os.replace``.

    Every new file is complete before any old one is touched, so an interrupted writer leaves
    the old set whole; the switch itself is a few renames, finished when Ctrl-C or SIGTERM
    lands among them (:func:`_switch`), and a writer killed among them (or stopped by an OS
    error) leaves a note that readers refuse (:func:`interrupted_switch`). On an exception the
    temporary folder is removed and ``dest`` is left as it was. Temporary folders of writers
    that died (their process is gone) are removed on the next use.
    """
    out = Path(dest)
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob(".set-*.tmp"):  # left by a killed writer
        pid = old.name.split("-")[1].split(".")[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(old, ignore_errors=True)
    prefix = f".set-{os.getpid()}-"
    earlier = _own_temporaries(out, prefix)
    tmp: Path | None = None
    half: list[Path] = []  # the temporary folder once a step of its switch was done
    try:
        tmp = Path(tempfile.mkdtemp(prefix=prefix, suffix=".tmp", dir=out))
        try:
            yield tmp
        except OSError as exc:
            if _unnamed(exc, tmp):
                raise _named(exc, out) from exc
            raise
        new = {f.name for f in tmp.iterdir()}
        with _switch_lock(out):  # two writers' switches one after the other: each set whole
            try:
                # the switch is several renames: a writer killed among them leaves part of
                # each set; this note (removed with the folder once all are in) says so
                (tmp / SWITCHING).write_text("".join(f"{n}\n" for n in sorted(new)))
            except OSError as exc:  # a full disk: name the folder, not the temporary
                raise _named(exc, out) from exc
            # one order whatever PYTHONHASHSEED (a set's order): the caller's for the stale
            # names, by name for the new ones, a conversion's record (summary.json) last
            held = _switch(tmp, out, list(dict.fromkeys(n for n in owned if n not in new)),
                           sorted(new, key=lambda n: (n == "summary.json", n)), half)
            half.clear()
        if held is not None:
            raise held
    finally:  # a signal between mkdtemp and the name kept: this writer's new folders, by name
        for made in [tmp] if tmp is not None else _own_temporaries(out, prefix) - earlier:
            if made not in half:  # a switch stopped half-way keeps its note: readers refuse
                shutil.rmtree(made, ignore_errors=True)


def _switch(tmp: Path, out: Path, stale: Sequence[str], new: Sequence[str],
            half: list[Path]) -> KeyboardInterrupt | None:
    """Remove ``stale`` from ``out``, then move each of ``new`` from ``tmp`` into it. An
    interrupt (Ctrl-C; SIGTERM and SIGHUP arrive as one) that lands among these steps is held
    until they are done, each step tried again once: stopping half-way left part of each set
    in ``out`` with the note removed, and the command said "files already written are
    complete" (a report's new ``leaderboard.md`` beside the earlier ``leaderboard.csv``). A
    second interrupt in one step, or an OS error, stops the switch; once a step was done,
    ``tmp`` is put in ``half`` (its note is kept). Returns the interrupt held, for the caller to
    raise once the temporary folder is gone."""
    def unlink(name: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            (out / name).unlink()

    def move(name: str) -> None:
        if os.path.lexists(tmp / name):  # done already when the signal came after the rename
            os.replace(tmp / name, out / name)

    held: KeyboardInterrupt | None = None
    for step, name in [*((unlink, n) for n in stale), *((move, n) for n in new)]:
        try:
            try:
                step(name)
            except KeyboardInterrupt as exc:
                held = exc
                step(name)  # a second interrupt here propagates: the user insists
        except OSError as exc:  # named as the user's file, not the temporary (or both)
            if not _unnamed(exc, tmp):
                raise
            named = _named(exc, out / name)
            if half:  # said, not only marked: the folder now mixes two sets
                named.strerror = (f"{named.strerror}; the folder now holds part of the new set "
                                  "and part of the earlier one (readers refuse it): run the "
                                  "command again")
            raise named from exc
        if not half:
            half.append(tmp)
    return held


@contextlib.contextmanager
def _switch_lock(folder: Path) -> Iterator[None]:
    """An exclusive ``flock`` on ``folder`` itself (no lock file is added) while a set of files
    is switched in: two ``report --out X`` (or ``convert --out X``) finishing together moved
    their files in turn, and the folder could hold one writer's ``leaderboard.md`` beside the
    other's ``leaderboard.json``. Without ``fcntl`` (Windows) no lock is taken."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


#: The note inside a :func:`replace_file_set` temporary folder while its files are moved in.
SWITCHING = ".switching"


def interrupted_switch(folder: str | os.PathLike[str]) -> Path | None:
    """The temporary folder of a :func:`replace_file_set` whose writer died while moving its
    files into ``folder`` (its :data:`SWITCHING` note is there and its process is gone): the
    files of ``folder`` are then part of the new set and part of the old one -- a ``train.txt``
    of one conversion beside the ``test.txt`` of another -- so a reader must refuse them
    (:func:`check_switch_finished`). None when there is none."""
    for tmp in sorted(Path(folder).glob(".set-*.tmp")):
        pid = tmp.name.split("-")[1].split(".")[0] if tmp.name.count("-") >= 2 else ""
        if (tmp / SWITCHING).is_file() and pid.isdigit() and not _alive(int(pid)):
            return tmp
    return None



def switch_note(folder: str | os.PathLike[str]) -> set[str]:
    """The names of the files the :func:`replace_file_set` writers of ``folder`` were moving in
    when they stopped (the :data:`SWITCHING` notes of its temporary folders, whoever wrote
    them): files of ltrbench's own set, whichever set they are of."""
    names: set[str] = set()
    for note in Path(folder).glob(f".set-*.tmp/{SWITCHING}"):
        with contextlib.suppress(OSError, UnicodeDecodeError):
            names |= {n for n in note.read_text(encoding="utf-8").splitlines() if n}
    return names

def check_switch_finished(folder: str | os.PathLike[str]) -> None:
    """A :class:`~bench.errors.DataError` naming ``folder`` when :func:`interrupted_switch`
    finds a set of files whose replacement was cut short (the writer killed mid-switch)."""
    tmp = interrupted_switch(folder)
    if tmp is not None:
        raise DataError(f"its files were being replaced when the writer was killed ({tmp.name} "
                        "is left): some are the new set, some the old one; run the command that "
                        "wrote them (ltrbench convert, report) again", path=folder)


def _unnamed(exc: OSError, tmp: Path) -> bool:
    """Whether ``exc`` names no path, or only the temporary one the user never chose."""
    return exc.filename is None or str(exc.filename).startswith(str(tmp))


def _named(exc: OSError, dest: Path) -> OSError:
    """``exc`` naming ``dest`` (a full disk says where: the CLI prints ``path: reason``)."""
    return type(exc)(exc.errno, exc.strerror or str(exc), str(dest)) if exc.errno is not None \
        else OSError(errno.EIO, str(exc), str(dest))


#: The most bytes of the destination's name a temporary name repeats: the temporary adds about
#: 25 bytes (dot, pid, random part, ``.tmp``), and a name may hold 255 bytes on Linux.
STEM_MAX_BYTES = 200


def _stem(dest: Path) -> str:
    """The destination's name as the temporary name repeats it: the name itself, or, for a name
    over :data:`STEM_MAX_BYTES` bytes (a valid 255-byte name failed with "File name too long"
    once the work was done), its start and a digest of the whole name."""
    name = dest.name
    if len(os.fsencode(name)) <= STEM_MAX_BYTES:
        return name
    digest = hashlib.sha256(os.fsencode(name)).hexdigest()[:12]
    cut = name
    while len(os.fsencode(cut)) > STEM_MAX_BYTES - 13:
        cut = cut[:-1]
    return f"{cut}~{digest}"


def _remove_orphans(dest: Path) -> None:
    """Remove ``.<name>.<pid>-*.tmp`` files beside ``dest`` whose writer process is gone."""
    remove_orphans_in(dest.parent, stem=_stem(dest))


#: ``.<name>.<pid>-<random>.tmp``: a temporary of :func:`atomic_path` (its writer's pid).
_TEMPORARY = re.compile(r"^\.(?P<stem>.+)\.(?P<pid>\d+)-[^./]*\.tmp$", re.DOTALL)


def remove_orphans_in(folder: str | os.PathLike[str], *, stem: str | None = None) -> list[Path]:
    """Remove every temporary of :func:`atomic_path` in ``folder`` whose writer process is gone
    (a writer killed between writing its temporary and renaming it), whatever file it was for
    (a resumed run rewrites some files only, and the others' leftovers stayed for ever), or,
    with ``stem``, those of one destination. Returns the files removed."""
    removed = []
    pattern = ".*.tmp" if stem is None else f".{glob.escape(stem)}.*-*.tmp"
    for old in Path(folder).glob(pattern):
        found = _TEMPORARY.match(old.name)
        if found and (stem is None or found["stem"] == stem) and old.is_file() \
                and not old.is_symlink() and not _alive(int(found["pid"]), old):
            with contextlib.suppress(OSError):
                old.unlink()
                removed.append(old)
    return removed


def _alive(pid: int, temporary: Path | None = None) -> bool:
    """Whether the process ``pid`` that named ``temporary`` may still be writing it. A live
    process of that number that started after the file was last written is another process
    (a container restarted after preemption numbers its processes from 1 again, so the job's
    new process, or its init, has the dead writer's number): the file is an orphan. File times
    from a clock ahead of this one keep the file (the safe side)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    started = _started(pid) if temporary is not None else None
    with contextlib.suppress(OSError):
        if started is not None and temporary is not None \
                and temporary.stat().st_mtime < started - 2.0:
            return False
    return True


def _started(pid: int) -> float | None:
    """When process ``pid`` started (seconds since the epoch), from ``/proc``; None elsewhere."""
    try:
        stat_line = Path(f"/proc/{pid}/stat").read_text()
        boot = next(float(line.split()[1]) for line in
                    Path("/proc/stat").read_text().splitlines() if line.startswith("btime "))
        ticks = float(stat_line.rsplit(")", 1)[1].split()[19])  # field 22: starttime
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None
