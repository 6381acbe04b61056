"""A warning printed by a command is one line, ``warning: <message>``: not Python's
``bench/commands/run.py:90: SplitWarning: ...`` followed by the source line that raised it."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

from bench import cli


def test_a_command_warning_is_one_line_without_python_internals(tmp_path: Path) -> None:
    (tmp_path / "q.txt").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\n")
    (tmp_path / "r.txt").write_text("q1 Q0 d1 1 0.9 r\nq1 Q0 d2 2 0.5 r\n")
    proc = subprocess.run([sys.executable, "-m", "bench", "evaluate", "--qrels", "q.txt",
                           "--run", "r.txt", "--format", "json"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert lines == [ln for ln in lines if ln.startswith("warning: ")], proc.stderr
    assert lines[0].startswith("warning: 1 qrels query has no run line in r.txt (q2)")
    assert "MissingQueriesWarning" not in proc.stderr
    assert ".py:" not in proc.stderr


def test_another_packages_warning_names_its_category() -> None:
    with cli._one_line_warnings():
        text = warnings.formatwarning("something odd\n  over two lines", DeprecationWarning,
                                      "/x/y.py", 3, "source line")
    assert text == "warning: DeprecationWarning: something odd over two lines\n"


def test_the_python_format_is_restored_after_the_command() -> None:
    before = warnings.formatwarning
    with cli._one_line_warnings():
        assert warnings.formatwarning is not before
    assert warnings.formatwarning is before
