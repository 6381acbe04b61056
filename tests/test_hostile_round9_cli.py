"""Round 9 of the hostile catalogue (issue 19), the command line itself: an option a command
does not know is reported under that command's usage, with the closest option it has.

Before: ``ltrbench perf runners --n-tree 0`` said ``usage: ltrbench [-h] [--version] COMMAND
...`` / ``ltrbench: error: unrecognized arguments: --n-tree 0``: the top-level usage, which
lists no option of ``perf runners`` and names no command.
"""

from __future__ import annotations

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
