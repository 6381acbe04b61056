"""The command line starts without the heavy libraries: commands are registered lazily.

``ltrbench --help`` imports no command module and none of scikit-learn, pandas, numba, Dask or
the GBDT libraries (each checked in a fresh interpreter, through ``sys.modules``); a command's
module is imported when that command is parsed. Timing is measured by ``ltrbench perf startup``,
never here.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench import cli

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("sklearn", "pandas", "numba", "dask", "distributed", "lightgbm", "xgboost", "catboost",
         "scipy", "pyarrow", "rich")


def _modules_after(code: str) -> dict[str, list[str]]:
    """The heavy and the ``bench.commands`` modules loaded after running ``code`` afresh."""
    probe = code + (
        "\nimport json, sys\n"
        f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "commands = sorted(m for m in sys.modules if m.startswith('bench.commands.'))\n"
        "print(json.dumps({'heavy': heavy, 'commands': commands}))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True,
                         text=True, check=True, env={"PYTHONPATH": str(REPO),
                                                     "PATH": "/usr/bin:/bin"})
    result: dict[str, list[str]] = json.loads(out.stdout.splitlines()[-1])
    return result


def test_building_the_parser_and_its_help_imports_no_heavy_library_and_no_command() -> None:
    loaded = _modules_after(
        "import io, contextlib\n"
        "from bench.cli import build_parser, main\n"
        "build_parser().format_help()\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        "        main(['--help'])\n"
        "    except SystemExit:\n"
        "        pass\n"
        "    main([])\n"
    )
    assert loaded == {"heavy": [], "commands": []}


#: The modules of ``bench.commands`` a command run loads besides its own: the door and the
#: terminal's text (``text``, parsing loads it too), how a command stops on a signal (``stops``).
SHARED = ["bench.commands.stops", "bench.commands.text"]


def test_a_command_imports_its_own_module_only() -> None:
    loaded = _modules_after(
        "from bench.cli import build_parser\n"
        "build_parser().parse_args(['metrics', 'list'])\n"
    )
    assert loaded["commands"] == ["bench.commands.metrics", "bench.commands.text"]
    assert not {"sklearn", "dask", "lightgbm", "xgboost", "catboost"} & set(loaded["heavy"])


def test_evaluate_of_a_trec_pair_loads_no_sklearn_dask_or_gbdt_library(tmp_path: Path) -> None:
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("1 0 a 1\n1 0 b 0\n2 0 c 2\n")
    run.write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n2 Q0 c 1 1.0 t\n")
    loaded = _modules_after(
        "import io, contextlib\n"
        "from bench.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main(['evaluate', '--qrels', {str(qrels)!r}, '--run', {str(run)!r}, "
        "'--format', 'json']) == 0\n"
    )
    assert not {"sklearn", "dask", "distributed", "lightgbm", "xgboost", "catboost"} & set(
        loaded["heavy"])
    assert [m for m in loaded["commands"] if m not in SHARED] == [
        "bench.commands.evaluate"]


def test_the_listed_help_of_each_command_is_the_one_its_module_declares() -> None:
    for name, command in cli.COMMANDS.items():
        own = argparse._SubParsersAction(option_strings=[], prog="ltrbench",
                                         parser_class=argparse.ArgumentParser)
        __import__(command.module, fromlist=["register"]).register(own)
        assert [a.dest for a in own._choices_actions] == [name]
        assert own._choices_actions[0].help == command.help, name


def test_top_level_help_lists_every_command_in_order(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    positions = [out.index(f"\n    {name}") for name in cli.COMMANDS]
    assert positions == sorted(positions)
    for command in cli.COMMANDS.values():
        assert " ".join(command.help.split()[:3]) in " ".join(out.split())


def test_an_unknown_command_is_refused_with_the_list_of_commands(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main(["evaluat"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'evaluat'" in err
    assert "'crosscheck-versions'" in err
    assert "'evaluate'" in err


@pytest.mark.parametrize("argv", [["crosscheck-versions", "sklearn==1.0"],
                                  ["crosscheck", "--versions", "sklearn==1.0"]])
def test_crosscheck_versions_is_a_command_and_the_old_spelling_still_runs_it(
        argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([*argv, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ")
    assert "sklearn" in err
    assert len(err.splitlines()) == 1


def test_both_spellings_of_crosscheck_versions_share_the_defaults() -> None:
    parser = cli.build_parser()
    new = parser.parse_args(["crosscheck-versions", "xgboost==installed"])
    old = parser.parse_args(["crosscheck", "--versions", "xgboost==installed"])
    assert new.func is old.func.__globals__["versions"].main
    for key in ("versions", "out", "cache_dir", "format"):
        assert getattr(new, key) == getattr(old, key), key


def test_constants_the_light_modules_repeat_agree_with_their_owners() -> None:
    from bench.benchmark.config import CONFIG_DIR
    from bench.commands import run_options, versions
    from bench.runs.layout import LOCAL_RESULTS

    assert run_options.CONFIG_DIR == CONFIG_DIR
    assert versions.LOCAL_RESULTS == LOCAL_RESULTS


def test_perf_startup_reports_medians_ratios_and_the_targets() -> None:
    """The benchmark's arithmetic on given times (the timing itself is never tested)."""
    from bench.perf.startup import commands, report

    cmds = commands(Path("q"), Path("r"), Path("s.py"), baseline="old")
    assert list(cmds) == ["ltrbench --help", "ltrbench evaluate (TREC pair)",
                          "bare pytrec_eval script", "baseline: ltrbench --help",
                          "baseline: ltrbench evaluate (TREC pair)"]
    assert cmds["baseline: ltrbench --help"][0] == f"PYTHONPATH={Path('old').resolve()}"
    times = {"ltrbench --help": [0.2, 0.1, 0.9], "ltrbench evaluate (TREC pair)": [0.5, 0.7, 0.6],
             "bare pytrec_eval script": [0.2, 0.1, 0.15]}
    text = report(dict.fromkeys(times, 1.0), times, ("0.1", "0.2"))
    assert "| ltrbench --help | 0.200 | 0.100 | 1.000 | 1.33x |" in text
    assert "--help: 0.200 s (target <= 0.3 s: met)" in text
    assert "evaluate: 0.600 s (target <= 0.6 s: met), 4.00x the bare script (target <= 4x: met)" \
        in text


def test_perf_startup_names_a_failing_timed_command_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "run.txt").write_text("q1 Q0 d1 1 0.5 r\n")
    status = cli.main(["perf", "startup", "--repeat", "1", "--qrels", "/dev/null",
                       "--run", str(tmp_path / "run.txt")])
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith("error: the timed command ")
    assert "/dev/null: is not a regular file" in err
    assert "Traceback" not in err
    assert "RuntimeError" not in err


def test_perf_startup_refuses_a_baseline_that_is_not_a_checkout(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["perf", "startup", "--baseline", str(tmp_path)]) == 2
    assert "expected a checkout of ltrbench" in capsys.readouterr().err
