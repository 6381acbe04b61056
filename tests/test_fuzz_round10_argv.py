"""Round 10 (issue 19): an argv fuzz over every command of ``ltrbench --help``.

Each example draws a command (a sub-command for ``datasets``, ``metrics`` and ``perf``) and
up to three of that command's own options (read from its parser, so a new option is fuzzed
too), each with a hostile value: empty, ``-``, ``--``, ``-1``, ``nan``, ``inf``, ``1e400``, a
huge integer, full-width digits, a right-to-left override, a path that does not exist, a folder,
``/dev/null``, the command's own output folder, an input file of another kind; options may be
repeated and may follow a positional. ``bench.cli.main`` runs in-process in a fresh folder and
must end with status 0, 1 or 2 (the documented codes), and a refusal must be one ``error:``
line: never a traceback, never a Python exception escaping ``main``.

Slow paths are kept out: every command that trains gets the tiny LETOR folder, one seed, the
``random`` model and ``--quick`` (a drawn option may still replace them); options that start
a Dask cluster, child processes or a benchmark (:data:`SLOW`) and ``perf`` are not drawn; and
each example is time-boxed (a run that passed validation and is still working after the box
is accepted: it was not refused, which is what this test judges; the box never interrupts an
import). Every drawn example ends well within a second on a quiet machine (measured: the box
fired on none of them); the box is 30 s so that a busy machine does not change what is judged.
The fuzz (and a one-option-at-a-time sweep of every option with ``""``, ``nan``,
``1e400``, ``/dev/null``, ``.``, ``-1`` and a 20-digit integer) found no traceback on the
code of round 9; what it found were silent accepts of empty values, pinned as ``xfail`` cases
in ``tests/test_hostile_round10_cli.py``. :data:`PINNED` names edge draws (empty values, a
right-to-left override, ``/dev/null`` as an input) as explicit cases, so a change that breaks
one is named.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import signal
import traceback
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest
from hostile_kit import DATA, QRELS, RUN, SCORES, chdir, letor_folder
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench import cli

#: Values an attacker gives an option.
HOSTILE = ("", "-", "--", "-1", "0", "nan", "inf", "-inf", "1e400", "99999999999999999999",
           "\uff11", "\u202ex", "\U0001f4a5", "a,,b", ",", "nope/x.txt", ".", "/dev/null",
           "out", "q.txt", "r.txt", "d.svm", "s.txt", "c.toml", "ds", "x=y", "lightgbm",
           "ndcg@10", "ranx")

#: The words of each command (sub-commands of the commands that have them).
COMMANDS = (("run",), ("evaluate",), ("crosscheck",), ("crosscheck-versions",), ("report",),
            ("reproduce",), ("tune",), ("convert",), ("datasets", "list"),
            ("datasets", "info"), ("datasets", "verify"), ("metrics", "list"))

#: Options left out of the draws: they start a Dask cluster (sockets, seconds), child
#: processes or a benchmark, which the tests of those options exercise on their own.
SLOW = frozenset({"--engine", "--timing", "--permute-check", "--evaluators", "--workers",
                  "--scheduler", "--budget-cpu-s", "--cv", "--folds", "--all-models"})

#: What keeps a command fast unless a drawn option replaces it.
ANCHORS: dict[str, tuple[str, ...]] = {
    "run": ("--dataset", "ds", "--models", "random", "--seeds", "0", "--quick",
            "--no-crosscheck", "--out", "out"),
    "tune": ("--dataset", "ds", "--models", "lightgbm", "--budget-trials", "1", "--n-trees",
             "2", "--out", "out"),
    "crosscheck": ("--dataset", "ds", "--quick", "--out", "out"),
    "evaluate": ("--qrels", "q.txt", "--run", "r.txt"),
    "convert": ("--ratings", "synthetic", "--out", "out"),
    "crosscheck-versions": ("nothing==1",),
}

#: Edge draws of the fuzz as named cases (each is refused, or answered, at once).
PINNED: list[tuple[str, ...]] = [
    ("evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics", ""),
    ("evaluate", "--qrels", "q.txt", "--run", "r.txt", "--profile", "\u202ex"),
    ("evaluate", "--data", "d.svm", "--scores", "s.txt", "--query", "/dev/null"),
    ("report", "--runs", "/dev/null"),
    ("reproduce", "/dev/null"),
    ("run", "--dataset", "ds", "--models", "random", "--seeds", "1e400", "--quick"),
    ("datasets", "info", "\U0001f4a5"),
    ("metrics", "list", "--profile", "-"),
]


class _TimeBox(BaseException):
    """Raised by the alarm: the command passed validation and is still working."""


@contextlib.contextmanager
def _time_box(seconds: float) -> Iterator[None]:
    def stop(signum: int, frame: FrameType | None) -> None:
        # Never inside an import: a module cut half-way fails every later import of it
        # ("ImportError: initialization failed"); try again a little later.
        while frame is not None:
            if "importlib._bootstrap" in frame.f_code.co_filename:
                signal.setitimer(signal.ITIMER_REAL, 0.2)
                return
            frame = frame.f_back
        raise _TimeBox()

    old = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _folder(root: Path) -> None:
    (root / "q.txt").write_bytes(QRELS)
    (root / "r.txt").write_bytes(RUN)
    (root / "d.svm").write_bytes(DATA)
    (root / "s.txt").write_bytes(SCORES)
    (root / "c.toml").write_text("seeds = [0]\n", encoding="utf-8")
    if not (root / "ds").exists():
        letor_folder(root / "ds")


def _options(words: tuple[str, ...]) -> list[argparse.Action]:
    parser = cli.build_parser()
    for word in words:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[word]
    return [a for a in parser._actions if a.option_strings and "-h" not in a.option_strings
            and not SLOW & set(a.option_strings)]


def _judge(argv: list[str], root: Path, box: float | None = 30.0) -> None:
    """Run ``argv``; fail on an escaping exception, a traceback, an undocumented status or a
    refusal that is not one ``error:`` line."""
    out, err = io.StringIO(), io.StringIO()
    status: object
    with chdir(root), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            with _time_box(box) if box else contextlib.nullcontext():
                status = cli.main(argv)
        except SystemExit as exc:  # argparse's usage errors and --help
            status = exc.code
        except _TimeBox:
            return  # accepted: past the checks, working
        except BaseException:
            pytest.fail(f"ltrbench {argv!r}: exception escaped main():\n"
                        f"{traceback.format_exc()}")
    text = err.getvalue()
    if "_TimeBox" in text:  # the box went off in code that caught it and said so: boxed
        return
    assert "Traceback (most recent call last)" not in text, (argv, text)
    assert status in (0, 1, 2, None), (argv, status, text)
    if status == 2:
        errors = [ln for ln in text.splitlines() if ln.startswith("error:") or ": error: " in ln]
        assert len(errors) == 1, (argv, text)
        assert len(errors[0]) > len("error: ") + 5, (argv, text)


@pytest.fixture(scope="module")
def fuzz_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("argv")
    _folder(root)
    return root


@st.composite
def _argv(draw: st.DrawFn) -> list[str]:
    words = draw(st.sampled_from(COMMANDS))
    options = _options(words)
    argv = list(words)
    if words[0] in ("datasets",) and words[1] != "list":
        argv.append(draw(st.sampled_from(("ohsumed", "nope", "", "-", "\u202e"))))
    for _ in range(draw(st.integers(0, 3))):
        action = draw(st.sampled_from(options))
        option = draw(st.sampled_from(action.option_strings))
        if action.nargs == 0:
            argv.append(option)
        elif draw(st.booleans()):
            argv.append(f"{option}={draw(st.sampled_from(HOSTILE))}")
        else:
            argv += [option, draw(st.sampled_from(HOSTILE))]
    return argv + list(ANCHORS.get(words[0], ()))


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(argv=_argv())
def test_hostile_argv_is_a_result_or_one_clear_error(fuzz_root: Path, argv: list[str]) -> None:
    _judge(argv, fuzz_root)


@pytest.mark.parametrize("argv", PINNED, ids=[" ".join(a) for a in PINNED])
def test_pinned_argv(tmp_path: Path, argv: tuple[str, ...]) -> None:
    _folder(tmp_path)
    _judge(list(argv), tmp_path, box=None)  # each is refused at once: no alarm needed
