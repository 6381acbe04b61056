"""Hostile cases, round 21: a shell user who puts ltrbench in pipelines and scripts.

The persona expects a good Unix citizen: data on standard output and nothing else there;
progress, warnings and errors on standard error; a reader that goes away (``| head``, ``|
true``) ends the command quietly *without* losing its verdict (``datasets verify``,
``reproduce`` and ``crosscheck`` exit 1 on a failure, also when nobody read the report); a
standard output that cannot be written (``> /dev/full``, a terminal that went away, a pipe
left non-blocking by the program that started ltrbench, a descriptor open for reading only)
is one line naming standard output, never a traceback, also for ``--help`` and
``--version``; Ctrl-C is one line, and ends the process *by* SIGINT once clean-up has run, so
that the shell loop or script around it stops too (bash waits to see whether the child died of
the signal, and carries on when it exited normally: "wait and cooperative exit"; Python does
the same since 3.8, bpo-1054041); an ignored SIGHUP (``nohup``) or SIGINT (a script's
background job) stays ignored; an input that is also the command's standard output (``>>
run.txt``) is refused before it is read, as GNU cat refuses ("input file is output file");
an output encoding that cannot spell a run name (``PYTHONIOENCODING=ascii``) never turns a
machine-readable name into another one.

Earlier rounds covered the closed-stdout start (``>&-``), ``2>&-``, ``| head`` of the listings,
``/dev/full`` for ``metrics list`` and ``evaluate``, ``ulimit -f``, SIGTERM/SIGHUP in a run,
COLUMNS/TERM/NO_COLOR/FORCE_COLOR, a FIFO as input, ``-`` as a file name and the per-query
file named like a redirected stream; none of those is repeated here.

Everything runs in this process against real descriptors (``/dev/full``, pipes, a
pseudo-terminal whose other side is closed, a file opened for reading), except the Ctrl-C in
a shell loop, which needs a shell and a process group. Each test's class (issue 19) is in its
comment: traceback, silently wrong, input destroyed, silent accept, unclear error.
"""

from __future__ import annotations

import contextlib
import csv
import fcntl
import io
import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import termios
import threading
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import QRELS, RUN, SCORES, Res, chdir

ROOT = Path(__file__).resolve().parents[1]
#: Generous bounds that only keep a hung command from hanging the session (never a duration
#: a result depends on).
HANG_S = 120.0


# -------------------------------------------------------------------------------- the oracle
def _ndcg_cut_10() -> float:
    """trec_eval's ndcg_cut_10 of hostile_kit's QRELS/RUN by hand (linear gain, ideal DCG over
    the judged documents). Query 1 ranks b(0), a(1), c(2); query 2 ranks e(0), d(1)."""
    d = [1 / math.log2(r + 1) for r in range(1, 4)]
    q1 = (0 * d[0] + 1 * d[1] + 2 * d[2]) / (2 * d[0] + 1 * d[1])
    q2 = (0 * d[0] + 1 * d[1]) / (1 * d[0])
    return (q1 + q2) / 2


NDCG = _ndcg_cut_10()  # 0.62541855...
EVAL = ("evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics", "ndcg_cut_10")
DATA = b"2 qid:1 1:0.5\n0 qid:1 1:0.1\n1 qid:1 1:0.3\n1 qid:2 1:0.2\n0 qid:2 1:0.9\n"


@pytest.fixture
def pair(tmp_path: Path) -> Path:
    (tmp_path / "q.txt").write_bytes(QRELS)
    (tmp_path / "r.txt").write_bytes(RUN)
    (tmp_path / "r2.txt").write_bytes(RUN.replace(b"0.4", b"0.95"))
    (tmp_path / "d.txt").write_bytes(DATA)
    (tmp_path / "s.txt").write_bytes(SCORES)
    return tmp_path


# ------------------------------------------------------------------- running main in-process
def _main(cwd: Path, *argv: str, stdout: Any = "capture", stderr: Any = "capture",
          stdin: Any = "keep") -> Res:
    """``main(argv)`` in ``cwd`` with ``sys.stdout``/``sys.stderr``/``sys.stdin`` set as given
    (``"capture"``: a StringIO read back; ``None``: a stream closed at start); an exception
    escaping ``main`` is a traceback (status ``None``)."""
    from bench import cli as bench_cli

    out = io.StringIO() if stdout == "capture" else stdout
    err = io.StringIO() if stderr == "capture" else stderr
    saved = sys.stdout, sys.stderr, sys.stdin
    sys.stdout, sys.stderr = out, err
    if stdin != "keep":
        sys.stdin = stdin
    status: int | None
    trace = ""
    try:
        with chdir(cwd):
            status = bench_cli.main(list(argv))
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except BaseException:
        status, trace = None, traceback.format_exc()
    finally:
        sys.stdout, sys.stderr, sys.stdin = saved
    text_out = out.getvalue() if isinstance(out, io.StringIO) else ""
    text_err = err.getvalue() if isinstance(err, io.StringIO) else ""
    return Res(status, text_out, text_err + trace)


def _one_error(res: Res, *words: str) -> None:
    """Exit 2, no traceback, and an ``error:`` line holding every word."""
    assert not res.traceback, res.err[-1500:]
    assert res.status == 2, (res.status, res.err[-800:])
    lines = [ln for ln in res.err.splitlines() if ln.startswith("error:")]
    assert lines, res.err[-800:]
    for w in words:
        assert w.lower() in lines[0].lower(), (w, lines[0])


def _closing(stream: TextIO) -> None:
    """Close a stream whose descriptor may refuse the last flush (a full device)."""
    with contextlib.suppress(OSError, ValueError):
        stream.close()


@contextlib.contextmanager
def _full_device() -> Iterator[TextIO]:
    """Standard output redirected to ``/dev/full`` (``> /dev/full``)."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    stream = open("/dev/full", "w", encoding="utf-8")  # noqa: SIM115
    try:
        yield stream
    finally:
        _closing(stream)


@contextlib.contextmanager
def _reader_gone() -> Iterator[TextIO]:
    """Standard output on a pipe whose reader has exited (``| true``)."""
    r, w = os.pipe()
    os.close(r)
    stream = open(w, "w", encoding="utf-8")  # noqa: SIM115
    try:
        yield stream
    finally:
        _closing(stream)


# ------------------------------------------------ A. standard output that cannot be written
@pytest.mark.parametrize("argv", [("--version",), ("--help",), ("evaluate", "--help"),
                                  ("datasets", "verify", "--help")],
                         ids=["version", "help", "evaluate-help", "verify-help"])
def test_help_and_version_to_a_full_device_are_one_error_line(pair: Path,
                                                              argv: tuple[str, ...]) -> None:
    """traceback: ``ltrbench --version > /dev/full`` raised OSError out of main's flush of
    argparse's text (coreutils: ``ls --version > /dev/full`` says "write error")."""
    with _full_device() as full:
        res = _main(pair, *argv, stdout=full)
    _one_error(res, "standard output", "No space left")


def test_help_to_a_full_device_unbuffered_is_one_error_line(pair: Path) -> None:
    """silent accept: ``PYTHONUNBUFFERED=1 ltrbench evaluate --help > /dev/full`` (a CI job's
    setting): argparse drops an error writing the help, so the help was lost with exit 0."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    full = open("/dev/full", "w", encoding="utf-8", buffering=1)  # noqa: SIM115 - unbuffered
    full.reconfigure(write_through=True)
    try:
        res = _main(pair, "evaluate", "--help", stdout=full)
    finally:
        _closing(full)
    _one_error(res, "standard output", "No space left")


@pytest.mark.parametrize("argv", [("--version",), ("metrics", "--help")])
def test_help_and_version_to_a_reader_that_left_are_status_0_and_silent(
        pair: Path, argv: tuple[str, ...]) -> None:
    """traceback guard: ``ltrbench --help | true``, as ``ls --help | true``: status 0."""
    with _reader_gone() as gone:
        res = _main(pair, *argv, stdout=gone)
    assert res.status == 0, res.err
    assert not res.traceback, res.err
    assert res.err.strip() == "", res.err


@pytest.mark.parametrize("argv", [("--version",), ("metrics", "--help")])
def test_help_and_version_with_stdout_closed_are_exit_2_naming_it(pair: Path,
                                                                  argv: tuple[str, ...]) -> None:
    """unclear error guard: ``ltrbench --version >&-`` (as ``ls --version >&-``: exit 2 and a
    line), never a silent 0 with nothing printed."""
    res = _main(pair, *argv, stdout=None)
    _one_error(res, "standard output", "closed")


def test_a_usage_error_with_stdout_on_a_full_device_is_still_the_usage_error(pair: Path) -> None:
    """unclear error guard: the usage error goes to stderr; a full stdout adds nothing."""
    with _full_device() as full:
        res = _main(pair, "evaluate", "--qrels", "q.txt", "--bogus", stdout=full)
    assert res.status == 2, res.err
    assert not res.traceback, res.err
    assert "--bogus" in res.err, res.err
    assert "No space" not in res.err, res.err


def _fionread(fd: int) -> int:
    buf = fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0")
    return int.from_bytes(buf, sys.byteorder)


def test_json_to_a_non_blocking_pipe_arrives_whole_or_names_standard_output(pair: Path) -> None:
    """unclear error: a pipe the starting program left O_NONBLOCK (a CI runner, node's
    child_process; "BlockingIOError: write could not complete without blocking" in CI logs)
    whose reader is slower than ltrbench: the listing ended half-way with "error: [Errno 11]
    Resource temporarily unavailable", naming no stream. Whole (status 0), or a line naming
    standard output."""
    r, w = os.pipe()
    with contextlib.suppress(OSError):
        fcntl.fcntl(w, 1031, 4096)  # F_SETPIPE_SZ: one page, so the listing fills it
    capacity = fcntl.fcntl(w, 1032)  # F_GETPIPE_SZ (Linux)
    os.set_blocking(w, False)
    got = bytearray()
    done = threading.Event()

    def read() -> None:  # drains once the pipe is full (the writer outran it) or all is said
        deadline = time.monotonic() + HANG_S
        while not done.is_set() and _fionread(r) < capacity and time.monotonic() < deadline:
            time.sleep(0.001)
        while chunk := os.read(r, 65536):
            got.extend(chunk)

    reader = threading.Thread(target=read)
    reader.start()
    stream = open(w, "w", encoding="utf-8")  # noqa: SIM115
    try:
        res = _main(pair, "metrics", "list", "--format", "json", stdout=stream)
    finally:
        done.set()
        _closing(stream)
        reader.join(HANG_S)
        os.close(r)
    assert not res.traceback, res.err[-800:]
    if res.status == 0:
        doc = json.loads(got.decode("utf-8"))
        assert len(got) > capacity, len(got)
        assert doc, len(got)
    else:
        _one_error(res, "standard output")


def test_json_to_a_terminal_that_went_away_names_standard_output(pair: Path) -> None:
    """unclear error: the terminal closed under a ``disown``ed job (no SIGHUP): writing gives
    EIO, said as "error: Input/output error", which names nothing."""
    master, slave = os.openpty()
    os.close(master)
    stream = open(slave, "w", encoding="utf-8")  # noqa: SIM115
    try:
        res = _main(pair, *EVAL, "--format", "json", stdout=stream)
    finally:
        _closing(stream)
    _one_error(res, "standard output", "Input/output error")


def test_a_listing_to_a_descriptor_open_for_reading_names_standard_output(pair: Path) -> None:
    """unclear error: ``ltrbench datasets list --format json 1<file`` (a ``<`` typed for a
    ``>``): "error: Bad file descriptor", naming no stream."""
    fd = os.open(pair / "q.txt", os.O_RDONLY)
    stream = open(fd, "w", encoding="utf-8")  # noqa: SIM115
    try:
        res = _main(pair, "metrics", "list", "--format", "json", stdout=stream)
    finally:
        _closing(stream)
    _one_error(res, "standard output")
    assert (pair / "q.txt").read_bytes() == QRELS


def test_a_full_stdout_after_the_per_query_file_leaves_that_file_whole(pair: Path) -> None:
    """silently wrong guard: ``evaluate --per-query pq.csv > /dev/full``: exit 2 naming
    standard output; the per-query file written before the summary is whole and right."""
    with _full_device() as full:
        res = _main(pair, *EVAL, "--per-query", "pq.csv", stdout=full)
    _one_error(res, "standard output")
    rows = list(csv.DictReader((pair / "pq.csv").open(encoding="utf-8")))
    assert sorted(r["qid"] for r in rows) == ["1", "2"], rows
    assert abs(sum(float(r["ndcg_cut_10"]) for r in rows) / 2 - NDCG) < 1e-12, rows


# --------------------------------------------- B. the verdict survives a reader that left
def _absent_verify(pair: Path, *extra: str) -> tuple[str, ...]:
    (pair / "empty").mkdir(exist_ok=True)
    return ("datasets", "verify", "mq2007", "--data-dir", str(pair / "empty"), *extra)


def test_verify_with_the_pipe_open_is_status_1_for_an_absent_dataset(pair: Path) -> None:
    """silent accept guard: the verdict itself (the cases below keep it through a pipe)."""
    res = _main(pair, *_absent_verify(pair))
    assert res.status == 1, (res.status, res.err)
    assert "absent" in res.out


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_verify_of_an_absent_dataset_piped_to_true_is_still_status_1(pair: Path,
                                                                    fmt: str) -> None:
    """silent accept: ``ltrbench datasets verify mq2007 | true`` (or ``| head -c 0``, a log
    shipper gone) exited 0: the broken pipe's quiet end replaced the verdict, so ``set -o
    pipefail`` scripts went on as if the data were there."""
    with _reader_gone() as gone:
        res = _main(pair, *_absent_verify(pair, "--format", fmt), stdout=gone)
    assert not res.traceback, res.err
    assert res.status == 1, (res.status, res.err)


def test_verify_of_a_damaged_dataset_piped_to_head_is_still_status_1(pair: Path) -> None:
    """silent accept: a dataset whose file differs from its card, ``| head -1``: status 0."""
    folder = pair / "dd" / "lightgbm-lambdarank"
    folder.mkdir(parents=True)
    (folder / "rank.train").write_text("0 1:1\n")
    with _reader_gone() as gone:
        res = _main(pair, "datasets", "verify", "lightgbm-lambdarank", "--data-dir",
                    str(pair / "dd"), stdout=gone)
    assert not res.traceback, res.err
    assert res.status == 1, (res.status, res.err)


def test_reproduce_with_the_data_gone_piped_to_head_is_still_status_1(
        pair: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """silent accept: ``ltrbench reproduce --run R | head -1`` where nothing can be re-run
    (README: exit 1) ended 0 once the reader left."""
    run = next((ROOT / "results" / "runs").glob("lightgbm-lambdarank-*"))
    shutil.copytree(run, pair / "run")
    (pair / "nodata").mkdir()
    monkeypatch.setenv("LTRBENCH_DATA_DIR", str(pair / "nodata"))
    res = _main(pair, "reproduce", "--run", "run", "--no-progress")
    assert res.status == 1, (res.status, res.err[-600:])  # the verdict with a reader
    with _reader_gone() as gone:
        res = _main(pair, "reproduce", "--run", "run", "--no-progress", stdout=gone)
    assert not res.traceback, res.err[-800:]
    assert res.status == 1, (res.status, res.err[-600:])


def test_a_verdict_does_not_leak_into_the_next_command_of_the_process(pair: Path) -> None:
    """silently wrong guard: a program that calls ``main`` twice (an embedding tool): the
    first command's verdict (1) is not the status of a second command whose reader left."""
    assert _main(pair, *_absent_verify(pair)).status == 1
    with _reader_gone() as gone:
        res = _main(pair, "metrics", "list", stdout=gone)
    assert res.status == 0, res.err


def test_evaluate_piped_to_true_is_status_0_with_the_per_query_file_whole(pair: Path) -> None:
    """silent accept guard: no verdict to keep: ``| true`` is 0, as README says."""
    with _reader_gone() as gone:
        res = _main(pair, *EVAL, "--per-query", "pq.csv", stdout=gone)
    assert res.status == 0, res.err
    assert not res.traceback, res.err
    assert len((pair / "pq.csv").read_text().splitlines()) == 3


# ------------------------------------------------------------- C. Ctrl-C and other signals
@pytest.mark.parametrize("command", ["evaluate", "run"])
def test_ctrl_c_while_the_command_is_loaded_is_one_line_and_130(
        pair: Path, monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    """traceback: Ctrl-C in the first second (the command's module and its libraries being
    imported, before its options are read) printed a KeyboardInterrupt traceback."""
    from bench import cli as bench_cli

    def interrupted(name: str) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(bench_cli.importlib, "import_module", interrupted)
    res = _main(pair, command, "--help")
    assert not res.traceback, res.err[-1500:]
    assert res.status == 130, (res.status, res.err)
    lines = [ln for ln in res.err.splitlines() if ln.strip()]
    assert len(lines) == 1, lines
    assert lines[0].startswith("interrupted"), lines
    assert res.out == ""


def test_warnings_made_errors_while_the_command_is_loaded_are_one_error_line(
        pair: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """traceback: ``PYTHONWARNINGS=error`` (as CI sets) and a library that warns when
    imported (a DeprecationWarning of a new release): the warning escaped main as a
    traceback, since a command's module is imported while its options are parsed."""
    from bench import cli as bench_cli

    def warns(name: str) -> Any:
        raise DeprecationWarning("pkg_resources is deprecated as an API")

    monkeypatch.setattr(bench_cli.importlib, "import_module", warns)
    res = _main(pair, *EVAL)
    _one_error(res, "DeprecationWarning", "pkg_resources", "PYTHONWARNINGS")


def test_ctrl_c_during_evaluate_leaves_no_table_and_no_per_query_file(
        pair: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """silently wrong guard: Ctrl-C while the numbers are computed: one line, 130, nothing on
    stdout that a script could take for a result, no per-query file or temporary."""
    import bench.commands.evaluate as ev

    def interrupted(*a: Any, **k: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(ev, "evaluate_trec", interrupted)
    before = sorted(p.name for p in pair.iterdir())
    res = _main(pair, *EVAL, "--per-query", "pq.csv", "--format", "json")
    assert res.status == 130, res.err
    assert not res.traceback, res.err
    assert res.out == ""
    assert "--resume" not in res.err  # evaluate has nothing to resume
    assert sorted(p.name for p in pair.iterdir()) == before


def _handler_during(pair: Path, monkeypatch: pytest.MonkeyPatch, sig: int) -> Any:
    """The handler of ``sig`` while ``metrics list`` runs (read inside the command)."""
    import bench.metrics.names_listing as listing

    seen: list[Any] = []
    real = listing.listing_text

    def spy(*a: Any, **k: Any) -> str:
        seen.append(signal.getsignal(sig))
        return real(*a, **k)

    monkeypatch.setattr(listing, "listing_text", spy)
    res = _main(pair, "metrics", "list")
    assert res.status == 0, res.err
    return seen[0]


@pytest.mark.parametrize("name", ["SIGHUP", "SIGTERM"])
def test_a_stop_signal_the_caller_ignored_stays_ignored(pair: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        name: str) -> None:
    """silent accept guard: ``nohup ltrbench ...`` ignores SIGHUP so the job outlives the
    terminal; a handler installed over it would stop the job when the terminal closes."""
    sig = getattr(signal, name)
    saved = signal.signal(sig, signal.SIG_IGN)
    try:
        assert _handler_during(pair, monkeypatch, sig) is signal.SIG_IGN
        assert signal.getsignal(sig) is signal.SIG_IGN
    finally:
        signal.signal(sig, saved)


def test_an_ignored_ctrl_c_of_a_background_job_stays_ignored(
        pair: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """silent accept guard: a script's ``ltrbench run ... &`` starts with SIGINT ignored
    (POSIX); the command must not make it interruptible again."""
    saved = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        assert _handler_during(pair, monkeypatch, signal.SIGINT) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, saved)


def test_the_signal_handlers_are_put_back_after_a_command(pair: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """silent accept guard: an embedding program's SIGTERM/SIGHUP stay as they were."""
    before = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)}
    during = _handler_during(pair, monkeypatch, signal.SIGTERM)
    assert during is not before[signal.SIGTERM] or before[signal.SIGTERM] is not signal.SIG_DFL
    assert {s: signal.getsignal(s) for s in before} == before


def _quiet_server() -> socket.socket:
    """A loopback HTTP server that accepts and never answers: a download that hangs."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    server.settimeout(0.05)
    return server


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_ctrl_c_in_a_shell_loop_stops_the_loop_in_one_line_and_leaves_no_partial_download(
        tmp_path: Path) -> None:
    """silent accept: ``for d in ...; do ltrbench datasets fetch $d; done`` and Ctrl-C while a
    download hangs. ltrbench printed its one line and *exited* 130, so bash, which waits to
    see whether the child died of SIGINT, took the signal as handled and went on to the next
    download: a loop could not be stopped with Ctrl-C. Now the process ends by SIGINT after
    its clean-up (as Python itself does), the loop stops, the one line stays, and no half
    archive is left in the data directory."""
    server = _quiet_server()
    port = server.getsockname()[1]
    data = tmp_path / "data"
    data.mkdir()
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env.update(PYTHONPATH=str(ROOT), PY=sys.executable, DD=str(data),
               URL=f"http://127.0.0.1:{port}/ml-latest-small.zip")
    program = "import sys; from bench.cli import main; sys.exit(main())"  # the console script
    script = ('for i in 1 2; do "$PY" -c "' + program + '" datasets fetch ml-latest-small '
              '--url "$URL" --data-dir "$DD" --no-progress; echo "after-$i:$?"; done')
    p = subprocess.Popen(["bash", "-c", script], env=env, cwd=tmp_path, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    conn = None
    try:
        deadline = time.monotonic() + HANG_S
        while conn is None and p.poll() is None and time.monotonic() < deadline:
            with contextlib.suppress(TimeoutError, socket.timeout):
                conn, _ = server.accept()  # the download has started and waits for an answer
        assert conn is not None, p.communicate(timeout=HANG_S)
        os.killpg(p.pid, signal.SIGINT)  # Ctrl-C: the terminal signals the whole group
        server.close()  # a next download, if the loop goes on, is refused at once
        out, err = p.communicate(timeout=HANG_S)
    finally:
        server.close()
        if conn is not None:
            conn.close()
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    assert "Traceback" not in err, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert lines, err
    assert lines[-1].startswith("interrupted"), err
    assert "after-1" not in out, (out, err)  # the loop went on to the next download
    assert p.returncode == -signal.SIGINT, (p.returncode, out, err)
    assert [n.name for n in data.iterdir() if "ml-latest" in n.name] == []


# --------------------------------------------------- D. an input that is also the output
def _append_stdout(path: Path) -> TextIO:
    return open(path, "a", encoding="utf-8")


@pytest.mark.parametrize(("option", "name"), [("--run", "r.txt"), ("--qrels", "q.txt")])
def test_evaluate_with_stdout_appended_to_an_input_is_refused_and_it_is_kept(
        pair: Path, option: str, name: str) -> None:
    """input destroyed: ``ltrbench evaluate --qrels q.txt --run r.txt >> r.txt`` read the run
    and appended its table to it: the next evaluation of r.txt fails (or, with ``--format
    csv`` lines that parse, is another run). GNU cat: "input file is output file"."""
    before = (pair / name).read_bytes()
    stream = _append_stdout(pair / name)
    try:
        res = _main(pair, *EVAL, stdout=stream)
    finally:
        stream.close()
    _one_error(res, option, "standard output")
    assert (pair / name).read_bytes() == before


def test_evaluate_with_stdout_appended_to_its_scores_file_is_refused(pair: Path) -> None:
    """input destroyed: ``--data d.txt --scores s.txt >> s.txt``: a score file with a table
    appended; with ``--format csv`` it would even end in numbers."""
    stream = _append_stdout(pair / "s.txt")
    try:
        res = _main(pair, "evaluate", "--data", "d.txt", "--scores", "s.txt", "--format", "csv",
                    stdout=stream)
    finally:
        stream.close()
    _one_error(res, "--scores", "standard output")
    assert (pair / "s.txt").read_bytes() == SCORES


def test_evaluate_with_stdout_truncating_its_qrels_names_the_redirection(pair: Path) -> None:
    """unclear error: ``... > q.txt``: the shell emptied the qrels before ltrbench started,
    and the error said only that q.txt was empty (a file the user had just seen full)."""
    stream = open(pair / "q.txt", "w", encoding="utf-8")  # noqa: SIM115 - '>' truncates
    try:
        res = _main(pair, *EVAL, stdout=stream)
    finally:
        stream.close()
    _one_error(res, "--qrels", "standard output")


def test_convert_with_stdout_appended_to_its_ratings_is_refused(pair: Path) -> None:
    """input destroyed: ``ltrbench convert --ratings r.csv ... >> r.csv`` (a log beside the
    data) appends the summary to the ratings table, which then fails to parse."""
    ratings = pair / "ratings.csv"
    ratings.write_text("user,item,rating,timestamp\n1,1,4,10\n1,2,3,11\n")
    before = ratings.read_bytes()
    stream = _append_stdout(ratings)
    try:
        res = _main(pair, "convert", "--ratings", "ratings.csv", "--layout", "csv", "--user",
                    "user", "--item", "item", "--rating", "rating", "--timestamp",
                    "timestamp", "--out", "cv", stdout=stream)
    finally:
        stream.close()
    _one_error(res, "--ratings", "standard output")
    assert ratings.read_bytes() == before
    assert not (pair / "cv").exists()


def test_stderr_appended_to_the_run_writes_nothing_into_it_when_nothing_is_said(
        pair: Path) -> None:
    """input destroyed guard: ``... 2>> r.txt``: a refusal said there would itself be written
    into the run; a clean evaluation says nothing on stderr, so the run stays as it was."""
    stream = _append_stdout(pair / "r.txt")
    try:
        res = _main(pair, *EVAL, "--format", "csv", stderr=stream)
    finally:
        stream.close()
    assert res.status == 0, res.err
    assert abs(float(res.out.splitlines()[1].split(",")[1]) - NDCG) < 1e-12
    assert (pair / "r.txt").read_bytes() == RUN


def test_stdout_appended_to_another_file_gets_the_oracle(pair: Path) -> None:
    """silently wrong guard: ``>> log.txt`` (no input) is the usual thing and works."""
    (pair / "log.txt").write_text("earlier line\n")
    stream = _append_stdout(pair / "log.txt")
    try:
        res = _main(pair, *EVAL, "--format", "csv", stdout=stream)
    finally:
        stream.close()
    assert res.status == 0, res.err
    lines = (pair / "log.txt").read_text().splitlines()
    assert lines[:2] == ["earlier line", "metric,value,profile"], lines
    metric, value, profile = lines[2].split(",")
    assert (metric, profile) == ("ndcg_cut_10", "trec_eval")
    assert abs(float(value) - NDCG) < 1e-12


# ----------------------------------------------------- E. encodings of the standard streams
def _ascii_stream() -> io.TextIOWrapper:
    """A standard output under ``PYTHONIOENCODING=ascii`` (strict, as Python sets it)."""
    return io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="strict", newline="\n")


def _written(stream: io.TextIOWrapper) -> bytes:
    stream.flush()
    raw = stream.buffer
    assert isinstance(raw, io.BytesIO)
    return raw.getvalue()


def test_comparison_csv_on_an_ascii_stdout_keeps_each_run_name_or_refuses(pair: Path) -> None:
    """silently wrong: ``--run café=r.txt --run base=r2.txt --format csv`` under
    ``PYTHONIOENCODING=ascii`` wrote the run as ``caf\\xe9``: a name a script joining on run
    names never finds, exit 0. The CSV must hold the name, or the command refuse."""
    stream = _ascii_stream()
    res = _main(pair, "evaluate", "--qrels", "q.txt", "--run", "café=r.txt", "--run",
                "base=r2.txt", "--metrics", "ndcg_cut_10", "--format", "csv", stdout=stream)
    if res.status == 2:
        _one_error(res, "café", "ascii")
        return
    assert res.status == 0, res.err
    assert not res.traceback, res.err
    text = _written(stream).decode("ascii")
    names = {row["run"] for row in csv.DictReader(io.StringIO(text))}
    assert names == {"café", "base"}, names


def test_the_catalogue_markdown_on_an_ascii_stdout_is_whole_or_refused(pair: Path) -> None:
    """silently wrong: ``ltrbench datasets list --format markdown > datasets/catalogue.md``
    (the committed catalogue, as its test says to regenerate it) under ``LANG=C
    PYTHONIOENCODING=ascii`` wrote 15 lines with ``\\u2013``-style escapes, exit 0."""
    from bench.datasets.catalogue import render_markdown

    stream = _ascii_stream()
    res = _main(pair, "datasets", "list", "--format", "markdown", stdout=stream)
    if res.status == 2:
        _one_error(res, "ascii", "U+")
        return
    assert res.status == 0, res.err
    assert _written(stream).decode("ascii") == render_markdown()


def test_comparison_json_on_an_ascii_stdout_is_valid_and_exact(pair: Path) -> None:
    """silently wrong guard: JSON escapes what ASCII cannot spell (``\\u00e9``), so the same
    name comes back."""
    stream = _ascii_stream()
    res = _main(pair, "evaluate", "--qrels", "q.txt", "--run", "café=r.txt", "--run",
                "base=r2.txt", "--metrics", "ndcg_cut_10", "--format", "json", stdout=stream)
    assert res.status == 0, res.err
    doc = json.loads(_written(stream).decode("ascii"))
    assert "café" in json.dumps(doc, ensure_ascii=False)


def test_the_table_on_an_ascii_stdout_prints_the_oracle_value(pair: Path) -> None:
    """traceback guard: the box-drawing table under ``PYTHONIOENCODING=ascii``."""
    stream = _ascii_stream()
    res = _main(pair, *EVAL, stdout=stream)
    assert res.status == 0, res.err
    assert f"{NDCG:.6f}" in _written(stream).decode("ascii")


def test_an_error_naming_a_non_ascii_path_on_an_ascii_stderr_is_one_line(pair: Path) -> None:
    """traceback guard: the error line itself cannot be spelt in ASCII."""
    err = io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="strict")
    res = _main(pair, "evaluate", "--qrels", "q.txt", "--run", "données.txt", stderr=err)
    text = _written(err).decode("ascii")
    assert res.status == 2, text
    assert not res.traceback, text
    assert text.startswith("error:"), text
    assert "donn" in text, text


def test_the_per_query_file_is_utf8_whatever_the_stdout_encoding(pair: Path) -> None:
    """silently wrong guard: a file is not a terminal: ids exactly as read."""
    (pair / "q8.txt").write_text("café 0 a 1\ncafé 0 b 0\n", encoding="utf-8")
    (pair / "r8.txt").write_text("café Q0 a 1 0.9 t\ncafé Q0 b 2 0.1 t\n", encoding="utf-8")
    res = _main(pair, "evaluate", "--qrels", "q8.txt", "--run", "r8.txt", "--metrics",
                "ndcg_cut_10", "--per-query", "pq.csv", stdout=_ascii_stream())
    assert res.status == 0, res.err
    rows = list(csv.DictReader((pair / "pq.csv").open(encoding="utf-8")))
    assert [(r["qid"], float(r["ndcg_cut_10"])) for r in rows] == [("café", 1.0)]


def test_help_on_an_ascii_stdout_is_status_0(pair: Path) -> None:
    """traceback guard: the help text under ``LANG=C PYTHONIOENCODING=ascii``."""
    stream = _ascii_stream()
    res = _main(pair, "evaluate", "--help", stdout=stream)
    assert res.status == 0, res.err
    assert not res.traceback, res.err
    assert b"--qrels" in _written(stream)


# ----------------------------------------------- F. only data on stdout, and clean bytes
MACHINE = {
    "evaluate-json": (*EVAL, "--format", "json"),
    "evaluate-csv": (*EVAL, "--format", "csv"),
    "compare-csv": ("evaluate", "--qrels", "q.txt", "--run", "r.txt", "--run", "r2.txt",
                    "--metrics", "ndcg_cut_10", "--format", "csv"),
    "metrics-json": ("metrics", "list", "--format", "json"),
}


@pytest.mark.parametrize("key", list(MACHINE))
def test_a_machine_readable_output_is_one_document_ending_in_one_newline(
        pair: Path, monkeypatch: pytest.MonkeyPatch, key: str) -> None:
    """silently wrong guard: no colour, no carriage return, no blank line, one newline at
    the end (``wc -l``, ``tail -1``, ``$(...)`` and ``jq -s`` all read it), even with
    ``FORCE_COLOR`` and ``COLUMNS=1`` in the environment of a CI job."""
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "1")
    res = _main(pair, *MACHINE[key])
    assert res.status == 0, res.err
    out = res.out
    assert "\x1b" not in out, out[:200]
    assert "\r" not in out, out[:200]
    assert out.endswith("\n"), out[-50:]
    assert not out.endswith("\n\n"), out[-50:]
    if key.endswith("json"):
        json.loads(out)
    else:
        rows = list(csv.reader(io.StringIO(out)))
        assert all(rows), rows
        assert len({len(r) for r in rows}) == 1, rows


def test_the_table_to_a_file_holds_no_escape_sequences(pair: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """silently wrong guard: ``ltrbench evaluate ... > out.txt; grep ndcg out.txt``."""
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(name, raising=False)
    res = _main(pair, *EVAL)
    assert res.status == 0, res.err
    assert "\x1b" not in res.out, res.out
    assert f"{NDCG:.6f}" in res.out, res.out


def test_evaluate_with_stdin_closed_gives_the_oracle(pair: Path) -> None:
    """traceback guard: ``ltrbench ... <&-`` (cron, a daemon): nothing reads standard input."""
    res = _main(pair, *EVAL, "--format", "csv", stdin=None)
    assert res.status == 0, res.err
    assert abs(float(res.out.splitlines()[1].split(",")[1]) - NDCG) < 1e-12


def test_evaluate_from_a_read_only_working_folder_writes_nothing_there(pair: Path) -> None:
    """silent accept guard: a script run from a read-only folder (``cd /``) with absolute
    paths: the oracle's number, and no file made in the working folder."""
    here = pair / "ro"
    here.mkdir()
    before = sorted(os.listdir(here))
    here.chmod(0o555)
    try:
        res = _main(here, "evaluate", "--qrels", str(pair / "q.txt"), "--run",
                    str(pair / "r.txt"), "--metrics", "ndcg_cut_10", "--format", "json")
    finally:
        here.chmod(0o755)
    assert res.status == 0, res.err
    assert abs(json.loads(res.out)["metrics"]["ndcg_cut_10"] - NDCG) < 1e-12
    assert sorted(os.listdir(here)) == before


def test_version_on_stdout_is_one_line_and_nothing_on_stderr(pair: Path) -> None:
    """unclear error guard: ``v=$(ltrbench --version)``."""
    res = _main(pair, "--version")
    assert res.status == 0
    assert res.err == ""
    assert res.out.count("\n") == 1
    assert res.out.startswith("ltrbench ")


def test_every_input_of_this_file_is_unchanged(pair: Path) -> None:
    """input destroyed guard: the fixture's files after one command of each kind."""
    _main(pair, *EVAL, "--format", "json")
    for name, data in (("q.txt", QRELS), ("r.txt", RUN), ("d.txt", DATA), ("s.txt", SCORES)):
        assert (pair / name).read_bytes() == data

