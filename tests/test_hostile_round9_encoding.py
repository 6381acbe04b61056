"""Round 9 of the hostile catalogue (issue 19), a terminal that cannot spell what ltrbench
prints: under ``PYTHONIOENCODING=ascii`` (or a Latin-1 locale) a run name ``aé``, or the ``·``
of ``ltrbench run``'s summary, is written as an escape (``a\\xe9``), never a UnicodeEncodeError
traceback after the work was done (exit 1 before)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_a_name_the_terminal_cannot_spell_is_escaped_not_a_traceback(
        tmp_path: Path, encoding: str) -> None:
    qrels, run_a, run_b = tmp_path / "q.txt", tmp_path / "a.txt", tmp_path / "b.txt"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\n", encoding="utf-8")
    run_a.write_text("q1 Q0 d1 1 0.5 r\nq1 Q0 d2 2 0.4 r\n", encoding="utf-8")
    run_b.write_text("q1 Q0 d1 1 0.5 r\nq1 Q0 d2 2 0.6 r\n", encoding="utf-8")
    name = "a\u00e9\u2020"  # é is Latin-1, † is not
    env = {**os.environ, "PYTHONIOENCODING": encoding}
    proc = subprocess.run(
        [sys.executable, "-m", "bench", "evaluate", "--qrels", str(qrels), "--run",
         f"{name}={run_a}", "--run", f"b={run_b}", "--metrics", "ndcg@10"],
        capture_output=True, env=env, timeout=600)  # a hang guard, not a speed test
    err = proc.stderr.decode(encoding, "replace")
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    out = proc.stdout.decode(encoding)
    assert "\\u2020" in out  # the character it cannot spell, escaped
    # by hand: run a ranks d1 (rel 1) first, NDCG 1; run b ranks it second, 1/log2(3) = 0.6309
    assert "1.0000" in out
    assert "0.6309" in out
