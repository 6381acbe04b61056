"""Standard output and error as the command line uses them: characters their encoding cannot
spell written as escapes, output cut at the file-size limit (``ulimit -f``) refused, a full
standard output named as such, a closed pipe as a normal end, and an operating-system error as
one line (``path: reason``, with the free space where a disk is full)."""
from __future__ import annotations

import contextlib
import errno
import io
import os
import stat
import sys
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def encodable_output() -> Iterator[None]:
    """Standard output and error that cannot spell a character ltrbench prints (``·``, ``†``,
    ``±``, a dataset's own name) under their encoding (``PYTHONIOENCODING=ascii``, a Latin-1
    locale) write it as an escape (``\\xb7``) instead of raising UnicodeEncodeError, a
    traceback after the work was done (``ltrbench run`` printed its summary last). The streams'
    error handlers are put back afterwards (``main`` may run inside another program)."""
    saved = []
    for stream in (sys.stdout, sys.stderr):
        errors = getattr(stream, "errors", None)
        if errors == "strict" and hasattr(stream, "reconfigure"):
            with contextlib.suppress(ValueError, OSError, AttributeError):
                stream.reconfigure(errors="backslashreplace")
                saved.append(stream)
    try:
        yield
    finally:
        for stream in saved:
            with contextlib.suppress(ValueError, OSError, AttributeError):
                stream.reconfigure(errors="strict")


class _Diagnostics:
    """Standard error that never raises at ``write`` or ``flush``: warnings, progress and notes
    are diagnostics, and one that cannot be written (a log volume full, a pipe whose reader
    went away: ``2>&1 | head``, a log shipper that stopped) must not end the command. A broken
    pipe there ended ``run --dataset synthetic-...`` at its first note with status 0 and nothing
    done; a full log volume stopped a run half-way with a traceback."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            return int(self._stream.write(text))
        return len(text)

    def flush(self) -> None:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            self._stream.flush()

    def isatty(self) -> bool:
        """Whether a progress bar may be drawn: never on a closed or missing stream."""
        try:
            return bool(self._stream.isatty())
        except (OSError, ValueError, AttributeError):
            return False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class _Nowhere(io.TextIOBase):
    """A text stream that drops what is written (standard error closed)."""

    encoding = "utf-8"

    def write(self, text: str) -> int:
        return len(text)

    def isatty(self) -> bool:
        return False


@contextlib.contextmanager
def best_effort_stderr() -> Iterator[None]:
    """While a command runs, :data:`sys.stderr` writes best effort (see :class:`_Diagnostics`);
    put back afterwards. A closed standard error (``2>&-``: ``None``, as cron and some daemons
    start a job) becomes one that drops what is written: ``run`` read ``sys.stderr.isatty()``
    for its progress and ended in an AttributeError, exit 1, with no line to say why."""
    saved = sys.stderr
    if isinstance(saved, _Diagnostics):
        yield
        return
    sys.stderr = _Diagnostics(saved if saved is not None else _Nowhere())
    try:
        yield
    finally:
        if isinstance(sys.stderr, _Diagnostics):
            sys.stderr = saved


def refuse_cut_output() -> None:
    """An error when standard output is a regular file that reached the file-size limit
    (``ulimit -f``): Python's text layer drops the rest of a long write cut short by the limit
    without a word (``print(text, end="")``), so the command would exit 0 with its output cut."""
    try:
        limit = _size_limit_reached(os.fstat(sys.stdout.fileno()))
    except (OSError, ValueError, AttributeError):
        return
    if limit is not None:
        raise OSError(errno.EFBIG, f"{os.strerror(errno.EFBIG)} (cut at the file-size limit, "
                      f"{limit} bytes: ulimit -f)", "standard output")


def _size_limit_reached(st: os.stat_result) -> int | None:
    """The file-size limit (``ulimit -f``, bytes) when ``st`` is a regular file that reached
    it; ``None`` otherwise, or where the limit cannot be read."""
    try:
        import resource

        limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
        unlimited = resource.RLIM_INFINITY
    except (OSError, ValueError, ImportError, AttributeError):
        return None
    if limit == unlimited or not stat.S_ISREG(st.st_mode) or st.st_size < limit:
        return None
    return int(limit)


def stream_of(path: str | os.PathLike[str]) -> str | None:
    """``"standard output"`` or ``"standard error"`` when ``path`` is the file that stream
    writes to (``ltrbench evaluate --per-query out.csv > out.csv``: the shell opened it first,
    and the two writers interleaved the summary and the per-query rows in one file, exit 0);
    ``None`` otherwise (a stream that is no file, or a path that does not exist yet). Both the
    descriptors 1 and 2 and the streams ``sys.stdout``/``sys.stderr`` are asked (a program
    that calls ``main`` may point the streams elsewhere)."""
    try:
        target = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(target.st_mode):
        return None
    for fd, stream, name in ((1, sys.stdout, "standard output"),
                             (2, sys.stderr, "standard error")):
        fds = {fd}
        with contextlib.suppress(OSError, ValueError, AttributeError):
            fds.add(stream.fileno())
        for one in fds:
            with contextlib.suppress(OSError):
                if os.path.samestat(os.fstat(one), target):
                    return name
    return None


def stdout_failed(exc: OSError) -> OSError:
    """``exc`` naming "standard output" when it names no file and standard output is what is
    full (``> /dev/full``; a regular file on a full disk or at the file-size limit): the error
    said only "No space left on device". Standard output is then pointed at /dev/null, so that
    Python's flush at exit raises no second error."""
    if exc.filename is not None or exc.errno not in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
        return exc
    try:
        fd = sys.stdout.fileno()
        st = os.fstat(fd)
        if stat.S_ISCHR(st.st_mode):
            full = st.st_rdev == os.stat("/dev/full").st_rdev
        else:
            full = stat.S_ISREG(st.st_mode) and (os.fstatvfs(fd).f_bavail == 0
                                                 or _size_limit_reached(st) is not None)
    except (OSError, ValueError, AttributeError):
        return exc
    if not full:
        return exc
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), fd)
    return OSError(exc.errno, exc.strerror, "standard output")


def say(line: str) -> None:
    """``line`` on standard error, best effort: an error line that cannot be written (standard
    error on a full log volume, or a pipe whose reader went away) must not turn the command's
    exit status 2 into a traceback and status 1; the status is then all the orchestrator gets.
    A line over :data:`LONGEST_LINE` characters has its middle cut (:func:`cut_middle`).
    An error said while the working folder is gone says so: a relative input could not be read
    ("q.txt: no such file", "unknown dataset 'data'") only because the folder was removed."""
    if line.startswith("error:") and _GONE not in line and _working_folder_gone():
        line += (f" (the current {_GONE}: it was removed or renamed after this shell entered "
                 "it, so no relative path can be read or written; cd to an existing folder, "
                 "or give absolute paths)")
    with contextlib.suppress(OSError, ValueError):
        print(cut_middle(line), file=sys.stderr, flush=True)


#: The longest error line said whole: a 100 kB argument echoed back (``--models aaa...``)
#: filled the terminal and the CI log with it, and what was expected scrolled away.
LONGEST_LINE = 4_000


def cut_middle(text: str, most: int = LONGEST_LINE) -> str:
    """``text``, or its first and last ``most // 2`` characters with the count cut between."""
    if len(text) <= most:
        return text
    keep = most // 2
    return f"{text[:keep]} [... {len(text) - 2 * keep:,} characters cut ...] {text[-keep:]}"


def pipe_closed() -> int:
    """The status of a command whose reader stopped early (``ltrbench ... | head -1``): 0, as
    ``head`` users expect (the output they asked for was written), or the verdict the command
    recorded before it printed (:func:`verdict`); standard output is pointed at /dev/null so
    that Python's flush at exit raises no second error."""
    status, _VERDICT[0] = _VERDICT[0], 0
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return status


#: The exit status a command decided on before printing its report (see :func:`verdict`).
_VERDICT = [0]


def verdict(status: int) -> int:
    """Record ``status`` as the command's exit status before it prints its report, and return
    it: a reader that leaves early (``| head -1``, ``| true``) then ends the command with it
    (:func:`pipe_closed`). ``datasets verify`` of an absent dataset, a ``reproduce`` that could
    re-run nothing, a failed cross-check exited 0 once their reader was gone, and ``set -o
    pipefail`` scripts went on. ``main`` records 0 before each command."""
    _VERDICT[0] = status
    return status


#: What an error writing standard output means, by ``errno`` (said after the reason).
_STDOUT_HINTS = {
    errno.EIO: "the terminal it wrote to is gone (a closed window or ssh session): "
               "redirect the output to a file",
    errno.EBADF: "it is not open for writing (a '<' typed for a '>'?): redirect it with '>'",
    errno.EAGAIN: "the program that started ltrbench left it non-blocking (O_NONBLOCK) and "
                  "its reader did not keep up: redirect it to a file or pipe it through cat",
}


def stdout_error(exc: OSError) -> OSError:
    """``exc``, an error writing standard output, as one that names it ("standard output:
    Input/output error", where the line said only "Input/output error"), with what it means;
    standard output is then pointed at /dev/null, so that Python's flush at exit raises no
    second error. A full disk keeps its own hint (:func:`os_error_text`)."""
    hint = _STDOUT_HINTS.get(exc.errno or 0)
    reason = exc.strerror or str(exc)
    with contextlib.suppress(OSError, ValueError, AttributeError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return OSError(exc.errno, f"{reason} ({hint})" if hint else reason, "standard output")


class _Output:
    """Standard output whose write errors name it (:func:`stdout_error`) and are kept for
    :func:`stdout_lost` (argparse drops an error writing ``--help``); a closed pipe stays a
    :class:`BrokenPipeError` (:func:`pipe_closed`)."""

    lost: OSError | None = None

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return int(self._stream.write(text))
        except BrokenPipeError:
            raise
        except OSError as exc:
            _Output.lost = named = stdout_error(exc)
            raise named from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            _Output.lost = named = stdout_error(exc)
            raise named from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def stdout_lost() -> OSError | None:
    """The error that stopped a write of standard output during the last command (named, see
    :func:`stdout_error`), also one that a caller swallowed (argparse's ``--help``); cleared."""
    lost, _Output.lost = _Output.lost, None
    return lost


@contextlib.contextmanager
def named_stdout() -> Iterator[None]:
    """While a command runs, :data:`sys.stdout` names itself in its write errors (a terminal
    gone, a descriptor open for reading only: "error: Input/output error" named no stream),
    and a standard output left non-blocking (O_NONBLOCK) by the program that started ltrbench
    (a CI runner, node's child_process) is made blocking: a reader slower than ltrbench cut a
    listing half-way with "Resource temporarily unavailable". Both are put back afterwards."""
    saved = sys.stdout
    if saved is None or isinstance(saved, _Output):
        yield
        return
    _Output.lost = None
    fd = None
    with contextlib.suppress(OSError, ValueError, AttributeError):
        if not os.get_blocking(saved.fileno()):
            fd = saved.fileno()
            os.set_blocking(fd, True)
    sys.stdout = _Output(saved)
    try:
        yield
    finally:
        # What is left is written here, where an error is kept (stdout_lost): the flush of
        # encodable_output's reconfigure, next, would drop it (--help > /dev/full exited 0).
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
        if isinstance(sys.stdout, _Output):
            sys.stdout = saved
        if fd is not None:
            with contextlib.suppress(OSError):
                os.set_blocking(fd, False)


def os_error_text(exc: OSError) -> str:
    """``path: reason`` of an operating-system error (both paths of a rename), for one line."""
    where = " -> ".join(str(f) for f in (exc.filename, exc.filename2) if f is not None)
    reason = exc.strerror or str(exc)
    hint = ""
    if exc.errno == errno.ENOSPC:
        hint = f" ({_free_space(exc.filename)}free some space and run again; files already " \
               "written are complete)"
    elif exc.errno == errno.EDQUOT:  # a quota: the disk may have room, the user none
        hint = " (your quota on that file system is used up: free some of your space or ask " \
               "for a larger quota, and run again; files already written are complete)"
    if not where and exc.errno == errno.ENOENT and _working_folder_gone():
        return (f"the current {_GONE} (it was removed or renamed after "
                "this shell entered it): cd to an existing folder, or give absolute paths")
    return f"{where}: {reason}{hint}" if where else f"{reason}{hint}"


_GONE = "working folder no longer exists"


def _working_folder_gone() -> bool:
    """Whether ``os.getcwd()`` fails: the folder the command was started in was removed, so a
    relative path (``results/local``) cannot be resolved, and the OS error names no file."""
    try:
        os.getcwd()
    except FileNotFoundError:
        return True
    return False


def _free_space(filename: object) -> str:
    """``"N MB free on that file system; "`` for the folder of ``filename``, if it can be read."""
    import shutil
    from pathlib import Path

    if filename is None or filename == "standard output":  # /dev/full: no folder to ask
        return ""
    p = Path(str(filename))
    for folder in (p, *p.parents):
        if folder.is_dir():
            try:
                return f"{shutil.disk_usage(folder).free / 1e6:,.0f} MB free on that file system; "
            except OSError:
                return ""
    return ""


__all__ = [
    "encodable_output",
    "fit_table",
    "named_stdout",
    "os_error_text",
    "pipe_closed",
    "refuse_cut_output",
    "spellable",
    "stdout_error",
    "stdout_failed",
    "stdout_lost",
    "verdict",
    "whole_word_console",
]


def whole_word_console(table: Any, *, whole_cells: bool = False) -> Any:
    """A rich ``Console`` for standard output at least as wide as ``table`` needs to show every
    word and number of its cells whole (``whole_cells``: every cell on one line, the table's
    natural width). Under a narrow terminal width (``COLUMNS=20`` in a CI job, a split pane)
    rich shrank columns below their longest word: ``datasets list`` gave its licence column no
    width at all (the licences silently gone) and a conversion's row count ``16140`` was folded
    into ``1614`` over ``0``; an evaluation's metric and profile cells were cut
    (``trec_eval-c…``). A wider table wraps on the screen instead; at a usual width nothing
    changes. See :func:`fit_table`."""
    from rich.console import Console

    console = Console()
    fit_table(console, table, whole_cells=whole_cells)
    return console


def fit_table(console: Any, table: Any, *, whole_cells: bool = False) -> None:
    """Make ``console`` wide enough for ``table``'s every word (see :func:`whole_word_console`),
    and its text cells spellable in the console's encoding. rich's even shrinking of the widest
    columns ignored each column's longest word even at the width its own measure asked for
    (``lightgbm-lambdar`` over ``ank`` in ``datasets list`` at ``COLUMNS=20``): the width grows
    until every column keeps its longest word. A character the encoding cannot spell
    (``PYTHONIOENCODING=ascii``, a Latin-1 terminal) is written as its escape before rich
    measures the cell: rich measured ``模型`` as 4 cells and the stream printed 12
    (``\\u6a21\\u578b``), so every later cell of the row slid under the wrong header."""
    from rich.measure import Measurement

    _spellable_cells(table, console.encoding)
    options = console.options.update(width=10_000)
    need = Measurement.get(console, options, table)
    if whole_cells:
        console.width = max(console.width, need.maximum)
        return
    minima = [table._measure_column(console, options, c).minimum for c in table.columns]
    width = max(console.width, need.minimum)
    while width < need.maximum:
        widths = table._calculate_column_widths(
            console, console.options.update_width(width - table._extra_width))
        short = sum(max(0, m - w) for w, m in zip(widths, minima, strict=True))
        if not short:
            break
        width += short  # the columns' shortfall: a few steps at most
    console.width = width


def spellable(text: str, encoding: str | None = None) -> str:
    """``text`` as a stream of ``encoding`` (standard output's) writes it: what the encoding
    cannot spell as its escape (``±`` as ``\\xb1`` under ``PYTHONIOENCODING=ascii``), for text
    whose columns its caller aligns: measured before the escape, a cell of ``0.6234 ± 0.0100``
    was three characters longer on the screen than its column, and every later number of the
    row slid under the next header."""
    encoding = encoding or getattr(sys.stdout, "encoding", None) or "utf-8"
    try:
        return text.encode(encoding, "backslashreplace").decode(encoding)
    except LookupError:  # an encoding Python does not know: left to the stream
        return text


def _spellable_cells(table: Any, encoding: str) -> None:
    """``table``'s text cells, headers and title with what ``encoding`` cannot spell escaped."""
    if encoding.replace("_", "-").lower() in ("utf-8", "utf8", "utf-16", "utf-32"):
        return

    def spelled(text: Any) -> Any:
        return spellable(text, encoding) if isinstance(text, str) else text

    if isinstance(table.title, str):
        table.title = spelled(table.title)
    for column in table.columns:
        column.header = spelled(column.header)
        column._cells[:] = [spelled(c) for c in column._cells]


def not_utf8(text: str) -> str:
    """Why a command-line value whose bytes are not UTF-8 (a Latin-1 file name: the shell passes
    its bytes, Python escapes them as lone surrogates) is refused: ltrbench writes names and paths
    into its UTF-8 files (manifest, config, tables), where such a value ended in a
    UnicodeEncodeError traceback after the work was done. Bytes that are UTF-8, escaped because
    this process reads names in an ASCII locale (``LC_ALL=C`` with ``PYTHONUTF8=0``), are said
    so, with the remedy: they were called "not UTF-8" when only the locale was wrong."""
    raw = text.encode("utf-8", "surrogateescape")
    shown = raw.decode("ascii", "backslashreplace")
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return (f"'{shown}' holds bytes that are not UTF-8 text: ltrbench records names and "
                "paths as UTF-8; rename it (or give it through a link with a UTF-8 name)")
    locale = os.environ.get("LC_ALL") or os.environ.get("LANG") or "unset"
    return (f"'{shown}' is UTF-8 text, but this process reads names in the locale's "
            f"{sys.getfilesystemencoding()} (LC_ALL/LANG {locale}, without Python's UTF-8 "
            "mode): set a UTF-8 locale (LC_ALL=C.UTF-8) or PYTHONUTF8=1, and run it again")
