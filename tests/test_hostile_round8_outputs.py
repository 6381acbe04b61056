"""Hostile outputs, round 8: new instances of issue 19 item 4 (outputs never over inputs, and an
output path that cannot be written is refused before any work, naming the option).

Classes (earlier rounds: ``tests/test_hostile_outputs.py``, ``..._round7_outputs.py``,
``..._round7_faults.py``):

* ``names`` (found here): an output path holding a NUL byte was a traceback in every command
  that writes (``ValueError: embedded null byte`` from ``os.lstat`` / ``realpath``:
  ``evaluate --per-query``, ``run``/``tune``/``report``/``convert``/``crosscheck --out``); a
  name over the file system's 255 bytes per name was ``error: xxx...: File name too long``
  naming no option, and for ``evaluate --per-query`` only after the evaluation. Now both are
  exit 2 with one line naming the option, before any input is read.
* ``spellings``: ``//``, ``./``, ``..`` segments and a trailing slash that reach an input are
  the input (refused, input intact); a path through an existing file, ``/proc`` and ``/dev``
  entries are refused.

Every case: exit 2 with one ``error:`` line naming the option, inputs byte-identical.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import QRELS, RUN, cli, letor_folder, refused, snapshot, untouched

RATINGS = b"u,i,r,t\n" + b"".join(f"{u},{(u * 7 + k * 3) % 60},{1 + (u + k) % 5},{u * 100 + k}\n"
                                  .encode() for u in range(25) for k in range(15))
CSV = ("--layout", "csv", "--user", "u", "--item", "i", "--rating", "r", "--timestamp", "t")
LONG = "n" * 300
WIDE = "é" * 130  # 260 bytes in UTF-8, 130 characters


def _world(tmp: Path) -> dict[str, bytes]:
    (tmp / "in").mkdir()
    (tmp / "in" / "q.txt").write_bytes(QRELS)
    (tmp / "in" / "r.txt").write_bytes(RUN)
    (tmp / "in" / "ratings.csv").write_bytes(RATINGS)
    letor_folder(tmp / "in" / "letor")
    return snapshot(tmp / "in")


def _argv(command: str, out: str) -> list[str]:
    """``command`` with its inputs under ``in/`` and ``out`` as its output option."""
    if command == "evaluate":
        return ["evaluate", "--qrels", "in/q.txt", "--run", "in/r.txt", "--per-query", out]
    if command == "convert":
        return ["convert", "--ratings", "in/ratings.csv", *CSV, "--out", out]
    if command == "report":
        return ["report", "--runs", "in", "--out", out, "--no-plots", "--no-progress"]
    seeds = ["--seed", "0"] if command == "tune" else ["--seeds", "0"]  # tune refuses --seeds
    quick = ["--quick", "--no-progress", *seeds, "--models", "random"]
    if command == "crosscheck":
        return ["crosscheck", "--dataset", "./in/letor", "--quick", "--models", "random",
                "--out", out]
    return [command, "--dataset", "./in/letor", *quick, "--out", out]


def _option(command: str) -> str:
    return "--per-query" if command == "evaluate" else "--out"


COMMANDS = ["evaluate", "convert", "report", "run", "tune", "crosscheck"]


@pytest.mark.parametrize("command", COMMANDS)
def test_an_output_path_with_a_nul_byte_is_one_line_naming_the_option(
        tmp_path: Path, command: str) -> None:
    before = _world(tmp_path)
    res = cli(tmp_path, *_argv(command, "out\x00put"))
    assert refused(res, _option(command), "NUL byte") is None, res.err
    assert untouched(before, tmp_path / "in") is None


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("name", [LONG, WIDE, f"ok/{LONG}/deeper"],
                         ids=["300-ascii-bytes", "260-utf8-bytes", "a-long-middle-folder"])
def test_a_name_over_255_bytes_is_refused_before_any_work_naming_the_option(
        tmp_path: Path, command: str, name: str) -> None:
    before = _world(tmp_path)
    out = name + (".csv" if command == "evaluate" else "")
    res = cli(tmp_path, *_argv(command, out))
    assert refused(res, _option(command), "bytes per name") is None, res.err
    assert untouched(before, tmp_path / "in") is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]  # nothing created


@pytest.mark.parametrize("out", ["in//q.txt", "./in/./r.txt", "in/letor/../r.txt",
                                 "in/../in/q.txt"])
def test_per_query_spelled_with_extra_segments_onto_an_input_is_refused(
        tmp_path: Path, out: str) -> None:
    before = _world(tmp_path)
    res = cli(tmp_path, *_argv("evaluate", out))
    assert refused(res, "--per-query", "input") is None, res.err
    assert untouched(before, tmp_path / "in") is None


@pytest.mark.parametrize(("out", "words"), [
    ("in/q.txt/x.csv", ("--per-query", "is a file")),
    ("in/", ("--per-query", "directory")),
    ("/dev/full", ("--per-query", "device")),
    ("/proc/self/fd/0", ("--per-query", "symbolic link")),
])
def test_per_query_where_no_file_can_be_written_is_refused(tmp_path: Path, out: str,
                                                            words: tuple[str, ...]) -> None:
    before = _world(tmp_path)
    res = cli(tmp_path, *_argv("evaluate", out))
    assert refused(res, *words) is None, res.err
    assert untouched(before, tmp_path / "in") is None


@pytest.mark.parametrize("out", ["in/letor//", "./in/./letor", "in/x/../letor/"])
def test_run_out_spelled_onto_the_dataset_folder_is_refused(tmp_path: Path, out: str) -> None:
    before = _world(tmp_path)
    res = cli(tmp_path, *_argv("run", out))
    assert refused(res, "--out", "input folder") is None, res.err
    assert untouched(before, tmp_path / "in") is None


def test_a_name_of_exactly_255_bytes_is_written(tmp_path: Path) -> None:
    """The limit is the file system's, not a guess below it: 255 bytes is a valid name."""
    before = _world(tmp_path)
    name = "p" * 251 + ".csv"
    res = cli(tmp_path, *_argv("evaluate", name))
    assert res.status == 0, res.err
    assert (tmp_path / name).is_file()
    assert untouched(before, tmp_path / "in") is None


# ------------------------------------------------------------------------- tune --storage


def _tune(tmp: Path, storage: str, *extra: str) -> tuple[str | None, dict[str, bytes]]:
    letor_folder(tmp / "letor")
    (tmp / "c.toml").write_text("")  # an empty config: the defaults (a SQLite file may start so)
    before = snapshot(tmp)
    res = cli(tmp, "tune", "--dataset", "./letor", "--model", "lightgbm", "--quick",
              "--budget-trials", "1", "--no-progress", "--out", "res", "--storage", storage,
              *extra)
    return refused(res, "--storage"), before


@pytest.mark.parametrize("where", ["letor/study.db", "letor/sub/../study.db"])
def test_tune_storage_inside_the_dataset_folder_is_refused(tmp_path: Path, where: str) -> None:
    """Found here: ``--storage sqlite:///letor/study.db`` wrote the study among the splits'
    files (exit 0), where ``--out letor`` is refused."""
    (tmp_path / "letor" / "sub").mkdir(parents=True)
    verdict, _ = _tune(tmp_path, f"sqlite:///{tmp_path / where}")
    assert verdict is None, verdict
    assert sorted(p.name for p in (tmp_path / "letor").iterdir()) == [
        "sub", "test.txt", "train.txt", "vali.txt"]


@pytest.mark.parametrize("victim", ["c.toml", "hard-link.db"])
def test_tune_storage_that_is_the_config_file_or_a_link_of_it_is_refused_and_the_file_kept(
        tmp_path: Path, victim: str) -> None:
    """Found here: an empty ``--config`` file named as ``--storage`` (or a hard link of it)
    became a SQLite database (SQLite takes a 0-byte file for an empty database)."""
    if victim != "c.toml":
        (tmp_path / "c.toml").write_text("")
        os.link(tmp_path / "c.toml", tmp_path / victim)
    verdict, before = _tune(tmp_path, f"sqlite:///{tmp_path / victim}", "--config", "c.toml")
    assert verdict is None, verdict
    assert untouched(before, tmp_path) is None
