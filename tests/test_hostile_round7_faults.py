"""Hostile cases, round 7: faults while writing an output (issue 19, the "faults" class).

A full disk (ENOSPC), an I/O error (EIO), a read-only file system (EROFS), a rename refused, a
writer killed with SIGKILL / SIGTERM / SIGINT in the middle of a file, a parent folder deleted
while running. Every case: the error names the path and what happened, the CLI exits 2 with one
line, a file that was already there is kept whole, and no partial file is left looking complete.
Simulated by monkeypatching ``os.replace`` / ``os.fsync`` / the writer (no root, no tmpfs).
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from bench.data import atomic

QRELS = "q1 0 d1 2\nq1 0 d2 0\nq2 0 d3 1\nq2 0 d4 0\n"
RUN_A = "q1 Q0 d1 1 2.0 a\nq1 Q0 d2 2 1.0 a\nq2 Q0 d4 1 2.0 a\nq2 Q0 d3 2 1.0 a\n"
RUN_B = "q1 Q0 d2 1 2.0 b\nq1 Q0 d1 2 1.0 b\nq2 Q0 d3 1 2.0 b\nq2 Q0 d4 2 1.0 b\n"
OLD = "an earlier per-query file, kept whole\n"


def _files(tmp_path: Path) -> tuple[str, str, str]:
    for name, text in (("q.txt", QRELS), ("A.run", RUN_A), ("B.run", RUN_B)):
        (tmp_path / name).write_text(text)
    return str(tmp_path / "q.txt"), str(tmp_path / "A.run"), str(tmp_path / "B.run")


def _main(argv: list[str]) -> int:
    """The CLI's error rule: an OSError or LtrbenchError is one line, exit 2."""
    from bench.cli import main
    return int(main(["evaluate", *argv]))


def _no_temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def _argv(tmp_path: Path, out: Path, compare: bool) -> list[str]:
    q, a, b = _files(tmp_path)
    runs = ["--run", a, "--run", b] if compare else ["--run", a]
    return ["--qrels", q, *runs, "--metrics", "ndcg@10", "--per-query", str(out), "--format", "csv"]


FAULTS = [(errno.ENOSPC, "No space left on device"), (errno.EIO, "Input/output error"),
          (errno.EROFS, "Read-only file system"), (errno.EDQUOT, "Disk quota exceeded")]


@pytest.mark.parametrize("compare", [False, True], ids=["one run", "comparison"])
@pytest.mark.parametrize(("code", "words"), FAULTS, ids=[w for _, w in FAULTS])
@pytest.mark.parametrize("where", ["fsync", "replace"])
def test_a_fault_while_writing_per_query_names_the_path_and_keeps_the_old_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        compare: bool, code: int, words: str, where: str) -> None:
    out = tmp_path / "pq.csv"
    out.write_text(OLD)
    argv = _argv(tmp_path, out, compare)

    def fail(*_args: object, **_kw: object) -> None:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(atomic.os, where, fail)
    assert _main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    line = [x for x in err if not x.startswith("warning:")]
    assert len(line) == 1, err
    assert str(out) in line[0], line[0]
    assert os.strerror(code) in line[0], line[0]
    assert "Traceback" not in line[0]
    assert out.read_text() == OLD
    assert _no_temporaries(tmp_path) == []


@pytest.mark.parametrize("compare", [False, True], ids=["one run", "comparison"])
def test_a_full_disk_in_the_csv_writer_itself_names_the_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        compare: bool) -> None:
    """ENOSPC raised by the write (pandas' to_csv), which names no file."""
    import pandas as pd
    out = tmp_path / "pq.csv"
    out.write_text(OLD)

    def full(*_a: object, **_k: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pd.DataFrame, "to_csv", full)
    assert _main(_argv(tmp_path, out, compare)) == 2
    line = [x for x in capsys.readouterr().err.splitlines() if not x.startswith("warning:")]
    assert len(line) == 1, line
    assert str(out) in line[0], line
    assert "No space left" in line[0], line
    assert out.read_text() == OLD
    assert _no_temporaries(tmp_path) == []


def test_a_read_only_output_folder_is_one_line_naming_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """mkstemp in a read-only folder (EACCES, or EROFS on a read-only mount)."""
    out = tmp_path / "ro" / "pq.csv"
    out.parent.mkdir()

    def refuse(*_a: object, **_k: object) -> None:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES),
                              str(out.parent / ".pq.csv.1-x.tmp"))

    monkeypatch.setattr(atomic.tempfile, "mkstemp", refuse)
    assert _main(_argv(tmp_path, out, True)) == 2
    line = [x for x in capsys.readouterr().err.splitlines() if not x.startswith("warning:")]
    assert len(line) == 1, line
    assert str(out) in line[0], line
    assert "Permission denied" in line[0], line
    assert not out.exists()


def test_the_output_folder_deleted_while_running_is_one_line_naming_the_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The folder vanishes between the evaluation and the replace: ENOENT naming the user's
    path, not a temporary; nothing half-written anywhere."""
    import shutil
    out = tmp_path / "gone" / "pq.csv"
    out.parent.mkdir()
    real = os.replace

    def vanish(src: str, dst: str) -> None:
        shutil.rmtree(Path(dst).parent)
        real(src, dst)

    monkeypatch.setattr(atomic.os, "replace", vanish)
    assert _main(_argv(tmp_path, out, True)) == 2
    line = [x for x in capsys.readouterr().err.splitlines() if not x.startswith("warning:")]
    assert len(line) == 1, line
    assert str(out) in line[0], line
    assert "tmp" not in line[0].replace(str(tmp_path), ""), line[0]
    assert not out.parent.exists()


def test_the_destination_renamed_away_under_us_is_replaced_not_merged(tmp_path: Path) -> None:
    """Another process moves the old file away while we write: the new file lands whole at the
    path, the moved file is untouched."""
    out = tmp_path / "pq.csv"
    out.write_text(OLD)
    with atomic.atomic_path(out) as tmp:
        tmp.write_text("new\n")
        os.rename(out, tmp_path / "moved.csv")
    assert out.read_text() == "new\n"
    assert (tmp_path / "moved.csv").read_text() == OLD


_WRITER = textwrap.dedent("""
    import sys, time
    from bench.data import atomic
    with atomic.atomic_path(sys.argv[1]) as tmp:
        with open(tmp, "w") as fh:
            fh.write("partial " * 1000)
            fh.flush()
            print("writing", flush=True)
            time.sleep(60)
            fh.write("end\\n")
""")


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT],
                         ids=["SIGKILL", "SIGTERM", "SIGINT"])
def test_a_writer_killed_mid_file_leaves_the_old_file_and_no_complete_looking_partial(
        tmp_path: Path, sig: signal.Signals) -> None:
    out = tmp_path / "report.csv"
    out.write_text(OLD)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(out)], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env,  # SIGINT as from a terminal:
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == b"writing"
    proc.send_signal(sig)
    proc.wait(timeout=30)
    assert out.read_text() == OLD
    left = _no_temporaries(tmp_path)
    if sig == signal.SIGINT:  # KeyboardInterrupt runs the cleanup
        assert left == []
    assert all(name.startswith(".report.csv.") for name in left)  # hidden, named .tmp
    with atomic.atomic_path(out) as tmp:  # the next writer removes the dead writer's temporary
        tmp.write_text("next\n")
    assert _no_temporaries(tmp_path) == []
    assert out.read_text() == "next\n"


def test_an_error_after_the_replace_of_a_file_set_keeps_no_half_set(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """replace_file_set: ENOSPC while writing the new set leaves the old set whole."""
    dest = tmp_path / "report"
    dest.mkdir()
    (dest / "a.csv").write_text("old a\n")
    (dest / "summary.json").write_text("{}\n")

    def write_set() -> None:
        with atomic.replace_file_set(dest, ["a.csv", "summary.json"]) as tmp:
            (tmp / "a.csv").write_text("new a\n")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with pytest.raises(OSError, match="No space left") as info:
        write_set()
    assert str(dest) in str(info.value)
    assert (dest / "a.csv").read_text() == "old a\n"
    assert [p.name for p in dest.iterdir() if p.name.startswith(".set-")] == []


def test_kill_during_a_convert_like_write_never_leaves_a_truncated_file(tmp_path: Path) -> None:
    """SIGKILL of write_text of a large text: the path holds either nothing or the whole text."""
    out = tmp_path / "big.txt"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    code = ("import sys; from bench.data import atomic; print('go', flush=True); "
            "atomic.write_text(sys.argv[1], 'x' * 50_000_000)")
    proc = subprocess.Popen([sys.executable, "-c", code, str(out)], stdout=subprocess.PIPE, env=env)
    assert proc.stdout is not None
    proc.stdout.readline()
    time.sleep(0.05)
    proc.kill()
    proc.wait(timeout=30)
    assert not out.exists() or out.stat().st_size == 50_000_000



@pytest.mark.parametrize("compare", [False, True], ids=["one run", "comparison"])
def test_a_closed_standard_output_is_one_line_not_a_traceback(tmp_path: Path,
                                                              compare: bool) -> None:
    """``ltrbench evaluate ... >&-``: Python's sys.stdout is None; before, a TypeError /
    AttributeError traceback at the first print."""
    argv = _argv(tmp_path, tmp_path / "pq.csv", compare)[:-4]  # no --per-query
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    got = subprocess.run([sys.executable, "-m", "bench", "evaluate", *argv], env=env,
                         stderr=subprocess.PIPE, text=True, preexec_fn=lambda: os.close(1),
                         check=False, timeout=120)
    assert got.returncode == 2
    lines = [x for x in got.stderr.splitlines() if not x.startswith("warning:")]
    assert lines == ["error: standard output is closed (the command was started with >&-): "
                     "redirect it to a file or /dev/null"]
