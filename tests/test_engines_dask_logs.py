"""The libraries' own logs of a Dask run go to the run directory, not the terminal (issue 21
item 6): a ``run --engine dask`` on a local cluster (loopback) shows no LightGBM or XGBoost log
line on its standard output or error (every process's: the command and its workers are run as a
child whose two streams are captured), and the run folder's ``dask-libraries.log`` has them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("distributed")
pytest.importorskip("dask.dataframe")

from bench.engines.library_log import LIBRARY_LOG, library_log

pytestmark = pytest.mark.slow

#: Lines the libraries print during a distributed fit (seen before the fix on this terminal).
LIBRARY_LINES = re.compile(r"\[LightGBM\]|Using passed-in 'machines'|got rank|"
                           r"Parameter n_jobs will be ignored|\[xgboost", re.IGNORECASE)
ROOT = Path(__file__).resolve().parents[1]


def test_a_dask_run_keeps_the_library_logs_off_the_terminal_and_in_its_folder(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-m", "bench", "run", "--dataset", "synthetic", "--quick", "--seeds", "0",
         "--models", "xgboost-ndcg,lightgbm-lambdarank", "--engine", "dask", "--workers", "2",
         "--no-crosscheck", "--no-progress", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=900, cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    terminal = proc.stdout + proc.stderr
    assert not [line for line in terminal.splitlines() if LIBRARY_LINES.search(line)], terminal
    (run_dir,) = (tmp_path / "runs").iterdir()
    log = (run_dir / LIBRARY_LOG).read_text(encoding="utf-8")
    assert "[LightGBM] [Info]" in log  # the workers' network set-up
    assert "got rank" in log  # XGBoost's ranks
    assert "Parameter n_jobs will be ignored" in log  # a library warning of this process


def test_the_library_log_takes_this_process_s_output_and_gives_stderr_back(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    import warnings

    path = tmp_path / LIBRARY_LOG
    with library_log(path):
        print("from print")
        os.write(1, b"native stdout\n")
        os.write(2, b"native stderr\n")
        warnings.warn("a library warning", UserWarning, stacklevel=1)
        print("our own message", file=sys.stderr)
    print("after", file=sys.stderr)
    os.write(2, b"native after\n")
    out, err = capfd.readouterr()
    text = path.read_text(encoding="utf-8")
    for line in ("from print", "native stdout", "native stderr", "a library warning"):
        assert line in text
        assert line not in out + err
    assert "our own message" in err
    assert "our own message" not in text
    assert "after" in err
    assert "native after" in err
