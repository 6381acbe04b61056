"""Round 9 of the hostile catalogue (issue 19), the command line itself: an option a command
does not know is reported under that command's usage, with the closest option it has.

Before: ``ltrbench perf runners --n-tree 0`` said ``usage: ltrbench [-h] [--version] COMMAND
...`` / ``ltrbench: error: unrecognized arguments: --n-tree 0``: the top-level usage, which
lists no option of ``perf runners`` and names no command.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import cli

#: (argv, the command named in the error, words of the error)
CASES = [
    (["perf", "runners", "--n-tree", "0"], "ltrbench perf runners",
     ("--n-tree 0", "did you mean --trees?")),
    (["run", "--modles", "x"], "ltrbench run", ("--modles x", "did you mean --models?")),
    (["metrics", "list", "--profile"], "ltrbench metrics list", ("--profile",)),
    (["datasets", "info", "ohsumed", "--x"], "ltrbench datasets info", ("--x",)),
    (["evaluate", "--qrels", "q.txt", "extra"], "ltrbench evaluate", ("extra",)),
]


@pytest.mark.parametrize(("argv", "command", "words"), CASES,
                         ids=[" ".join(c[0]) for c in CASES])
def test_an_unknown_option_is_reported_under_its_commands_usage(
        capsys: pytest.CaptureFixture[str], argv: list[str], command: str,
        words: tuple[str, ...]) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: {command} "), err
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"{command}: error: unrecognized arguments: "), last
    for w in words:
        assert w in last, (w, last)


def test_an_unknown_top_level_option_keeps_the_top_level_usage(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(["--bogus"])
    assert info.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "ltrbench: error: unrecognized arguments: --bogus")


def test_a_command_started_in_a_removed_folder_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Before: ``error: No such file or directory``, naming nothing (the relative ``--out`` could
    not be resolved because the working folder was gone)."""
    ratings = tmp_path / "ratings.csv"
    ratings.write_text("userId,movieId,rating,timestamp\n1,1,4.0,1\n1,2,3.0,2\n",
                       encoding="utf-8")
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    status = cli.main(["convert", "--ratings", str(ratings), "--out", "x"])
    err = capsys.readouterr().err.strip()
    assert status == 2
    assert err == ("error: the current working folder no longer exists (it was removed or "
                   "renamed after this shell entered it): cd to an existing folder, or give "
                   "absolute paths")
