"""One writer per run directory: a second writer is refused with the holder named."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.errors import LtrbenchError
from bench.runs.lock import LOCK_NAME, writer_lock

pytest.importorskip("fcntl")


def test_a_second_writer_in_another_process_is_refused_naming_the_holder(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time\nfrom bench.runs.lock import writer_lock\n"
         f"with writer_lock({str(tmp_path)!r}):\n    print('held', flush=True)\n"
         "    time.sleep(600)\n"],  # killed below: no wall-clock bound on this test
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(LtrbenchError, match=rf"another ltrbench process .*pid {holder.pid}"), \
                writer_lock(tmp_path):
            pass
    finally:
        holder.kill()
        holder.wait()
    with writer_lock(tmp_path):  # the holder was killed: the lock went with it
        assert (tmp_path / LOCK_NAME).is_file()
    assert not (tmp_path / LOCK_NAME).exists()  # released and removed


def test_two_writers_in_one_process_also_exclude_each_other(tmp_path: Path) -> None:
    with writer_lock(tmp_path), pytest.raises(LtrbenchError, match="writing this run"), \
            writer_lock(tmp_path):
        time.sleep(0)
