"""The libraries' own logs of a Dask run go to the run directory, not the terminal (issue 21
item 6): a ``run --engine dask`` on a local cluster (loopback) shows no LightGBM or XGBoost log
line on its standard output or error (every process's: the command and its workers are run as a
child whose two streams are captured), and the run folder's ``dask-libraries.log`` has them.
That run is shared with two other tests (see the note below); here, the log itself."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("distributed")
pytest.importorskip("dask.dataframe")

from bench.engines.library_log import LIBRARY_LOG, library_log

pytestmark = pytest.mark.slow

# test_a_dask_run_keeps_the_library_logs_off_the_terminal_and_in_its_folder: its assertions
# are checked, on one default Dask run shared with two other tests, by tests/test_dask_loopback.py::
# test_a_default_dask_run_listens_on_loopback_only_is_complete_and_keeps_library_logs_off_the_terminal


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
