"""Hostile faults, round 8 (issue 19, the "faults" class): new instances.

``ltrbench run`` killed by SIGKILL (``kill -9``) or SIGTERM (``kill``, what a batch system or
``timeout`` sends) while a model trains, then ``run --resume``: the finished run is the run an
uninterrupted process writes, bit for bit -- every row of ``metrics.csv`` and every per-query
value of ``per_query.parquet`` (earlier rounds compared only the rows written before the
interruption, and only for Ctrl-C: ``tests/test_hostile_rankers_faults.py``). The child is
stopped once it has written a file that says where it is (the slow ranker's marker, written
when its ``fit`` begins, after the first model's rows were written), never after a sleep.

Output faults (a full disk, EIO, a killed writer) are ``tests/test_hostile_round7_faults.py``'s;
a tune killed mid-way and then reported is in ``tests/test_hostile_round8_report.py``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import cli, letor_folder

ROOT = Path(__file__).resolve().parents[1]
MODELS = "random,slow,lightgbm"
RUN = ("run", "--dataset", "./letor", "--quick", "--no-cache", "--no-progress",
       "--no-crosscheck", "--seeds", "0", "--out", "res", "--config", "c.toml",
       "--models", MODELS)
#: a bound that only keeps a hung child from hanging the session (two busy cores: minutes)
WAIT_S = 1200


def _world(tmp: Path) -> Path:
    letor_folder(tmp / "letor")
    (tmp / "c.toml").write_text('[custom_models.slow]\nfactory = "fault_rankers:Slow"\n')
    return tmp


def _start(tmp: Path, *extra: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "bench", *RUN, *extra], cwd=tmp, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'tests'}", **env})


def _finish(p: subprocess.Popen[str]) -> tuple[int, str]:
    _, err = p.communicate(timeout=WAIT_S)
    return p.returncode, err


def _the_run(tmp: Path) -> Path:
    runs = sorted((tmp / "res" / "runs").iterdir())
    assert len(runs) == 1, runs
    return runs[0]


def _tables(run: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``metrics.csv`` and ``per_query.parquet`` in one row order (a resumed run appends the
    models it finished later; the order of rows is not part of the result)."""
    metrics = pd.read_csv(run / "metrics.csv")
    per_query = pd.read_parquet(run / "per_query.parquet")
    keys = [c for c in ("model", "seed", "split", "metric", "profile", "qid")
            if c in per_query.columns]
    return (metrics.sort_values([*metrics.columns[:6], "profile"]).reset_index(drop=True),
            per_query.sort_values(keys).reset_index(drop=True))


def _fast_in_process(tmp: Path, *extra: str) -> tuple[int | None, str]:
    """``RUN`` with the slow ranker told to be fast, in-process: only the run that is killed
    needs a process of its own (the resume and the clean run are the same command line)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FAULT_RANKER_FAST", "1")
        res = cli(tmp, *RUN, *extra)
    return res.status, res.err


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The tables of one uninterrupted run (the slow ranker told to be fast)."""
    tmp = _world(tmp_path_factory.mktemp("clean"))
    status, err = _fast_in_process(tmp)
    assert status == 0, err
    return _tables(_the_run(tmp))


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_a_run_killed_while_a_model_trains_resumes_to_the_uninterrupted_run_bit_for_bit(
        tmp_path: Path, sig: signal.Signals,
        clean: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    _world(tmp_path)
    marker = tmp_path / "fitting"
    p = _start(tmp_path, env={"FAULT_RANKER_MARKER": str(marker)})
    deadline = time.monotonic() + WAIT_S
    while not marker.exists() and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert marker.exists(), p.communicate()
    p.send_signal(sig)
    status, err = _finish(p)
    if sig == signal.SIGKILL:
        assert status == -sig  # killed where it stood: no handler ran
    else:  # SIGTERM stops it as Ctrl-C does: one line, then ended by SIGTERM (a shell: 143)
        assert status == -signal.SIGTERM, err
        assert err.strip().splitlines()[-1].startswith("terminated (SIGTERM); files already"), err
    run = _the_run(tmp_path)
    assert set(pd.read_csv(run / "metrics.csv").model) == {"random"}  # the model done before
    status, err = _fast_in_process(tmp_path, "--resume")
    assert status == 0, err
    assert _the_run(tmp_path) == run  # resumed in place, no second run folder
    metrics, per_query = _tables(run)
    pd.testing.assert_frame_equal(metrics, clean[0], check_exact=True)
    pd.testing.assert_frame_equal(per_query, clean[1], check_exact=True)


# ------------------------------------------------------------------ convert killed mid-switch

def _ratings(step: int) -> str:
    return "u,i,r,t\n" + "".join(f"{u},{(u * 7 + k * 3) % 97},{1 + (u + step * k) % 5},"
                                 f"{u * 100 + k}\n" for u in range(60) for k in range(30))


RATINGS, OTHER = _ratings(1), _ratings(2)  # two tables: other grades, other files
CONVERT = ("convert", "--layout", "csv", "--user", "u", "--item", "i", "--rating", "r",
           "--timestamp", "t", "--split", "random")
#: ``python -c``: ltrbench's CLI whose file-set switch stalls (and says so in a marker file)
#: once it has moved ``$STALL_AT`` in, as a writer caught between two renames
STALLED = """
import os, sys, time
real = os.replace
def stalled(src, dst, *args, **kwargs):
    real(src, dst, *args, **kwargs)
    folder = lambda p: os.path.basename(os.path.dirname(os.fspath(p)))
    moved_in = folder(src).startswith(".set-") and not folder(dst).startswith(".set-")
    if moved_in and os.path.basename(os.fspath(dst)) == os.environ["STALL_AT"]:
        open(os.environ["STALL_MARKER"], "w").close()
        time.sleep(600)
os.replace = stalled
from bench.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _convert(tmp: Path, ratings: str, out: str, *, stall: Path | None = None) -> int | None:
    """``convert`` of ``ratings``: in-process, or with ``stall`` in a child process stalled
    between two renames and then killed (only that one needs a process of its own)."""
    (tmp / f"{out}.csv").write_text(ratings)
    argv = [*CONVERT, "--ratings", f"{out}.csv", "--out", "data"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if stall is None:
        return cli(tmp, *argv).status
    p = subprocess.Popen([sys.executable, "-c", STALLED, *argv], cwd=tmp, text=True,
                         env={**env, "STALL_AT": "train.txt", "STALL_MARKER": str(stall)},
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + WAIT_S
    while not stall.exists() and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert stall.exists(), p.communicate()
    p.kill()
    return _finish(p)[0]


def test_a_convert_killed_between_two_renames_is_refused_by_readers_then_redone(
        tmp_path: Path) -> None:
    """Found here: the new ``train.txt`` beside the old ``vali``/``test`` files was read as one
    dataset without a word (``replace_file_set`` promised the old set whole, but its switch is
    several renames). Now the reader names the folder; converting again gives the files an
    uninterrupted conversion writes, byte for byte."""
    from bench.data.atomic import interrupted_switch
    from bench.data.folders import read_letor_folder
    from bench.errors import DataError

    clean, cut = tmp_path / "clean", tmp_path / "cut"
    clean.mkdir()
    cut.mkdir()
    assert _convert(clean, OTHER, "other") == 0
    assert _convert(cut, RATINGS, "first") == 0
    assert _convert(cut, OTHER, "other", stall=tmp_path / "stalled") == -signal.SIGKILL
    assert (cut / "data" / "train.txt").read_bytes() == (clean / "data" / "train.txt").read_bytes()
    with pytest.raises(DataError) as info:
        read_letor_folder(cut / "data")
    assert "killed" in str(info.value)
    assert str(cut / "data") in str(info.value)
    assert _convert(cut, OTHER, "other") == 0
    assert interrupted_switch(cut / "data") is None
    names = sorted(p.name for p in (clean / "data").iterdir() if p.name != "summary.json")
    assert sorted(p.name for p in (cut / "data").iterdir() if p.name != "summary.json") == names
    for name in names:
        assert (cut / "data" / name).read_bytes() == (clean / "data" / name).read_bytes(), name
    read_letor_folder(cut / "data")
