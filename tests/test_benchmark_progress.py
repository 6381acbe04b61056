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


def test_a_run_off_a_terminal_prints_one_plain_line_per_model_and_seed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A CI log of a long run showed nothing until the end; now each finished pair is a line,
    and --no-progress keeps stderr quiet."""
    from hostile_kit import cli, letor_folder

    letor_folder(tmp_path / "letor")
    res = cli(tmp_path, "run", "--dataset", "./letor", "--models", "random", "--seeds", "0,1",
              "--quick", "--no-crosscheck", "--out", "res")
    assert res.status == 0, res.err
    lines = [ln for ln in res.err.splitlines() if ln.startswith("run: ")]
    assert lines == ["run: 1/2 random seed 0: done", "run: 2/2 random seed 1: done"]
    quiet = cli(tmp_path, "run", "--dataset", "./letor", "--models", "random", "--seeds", "2",
                "--quick", "--no-crosscheck", "--out", "res2", "--no-progress")
    assert quiet.status == 0, quiet.err
    assert not [ln for ln in quiet.err.splitlines() if ln.startswith("run: ")]
