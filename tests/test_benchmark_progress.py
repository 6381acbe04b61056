"""Progress is drawn on a terminal only: in a log or a pipe an error stands alone on its line."""

from __future__ import annotations

import subprocess
import sys

from bench.benchmark.progress import progress_bar


def test_an_error_during_a_run_is_the_first_line_of_stderr_off_a_terminal() -> None:
    proc = subprocess.run([sys.executable, "-m", "bench", "run", "--dataset", "nonexistent"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: unknown dataset 'nonexistent'"), repr(proc.stderr[:80])


def test_the_bar_writes_nothing_when_stderr_is_not_a_terminal(capsys) -> None:  # type: ignore[no-untyped-def]
    with progress_bar(True, 3) as advance:
        advance("step", 1)
    assert capsys.readouterr().err == ""
