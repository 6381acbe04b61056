"""Hostile faults and concurrency, round 11b (issue 19, the "faults" class): new instances.

A chaos engineer's cases: ``run`` killed (SIGKILL) while it writes one table of a pair, then
``--resume``; a run folder edited between the kill and the resume (a pair's rows deleted from
``metrics.csv`` while its status says done, a status file removed, a table cut short, a
status file cut); a file-size limit (``RLIMIT_FSIZE``, a full disk without being root) at
several sizes; two writers of one results folder or one run id at once; ``convert`` cut by a
file-size limit then re-run. Oracles: the resumed run's tables equal an uninterrupted run's
(exact), the inputs' bytes unchanged (SHA-256), no temporary file left behind, one clear
``error:`` line naming the file, and a bound on time that only keeps a hung child from
hanging the session.

Earlier rounds: ``tests/test_hostile_round7_faults.py`` .. ``round11_cli_outputs_faults.py``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import cli, letor_folder, refused

ROOT = Path(__file__).resolve().parents[1]
MODELS = "random,lightgbm"
RUN = ("run", "--dataset", "./letor", "--quick", "--no-cache", "--no-progress",
       "--no-crosscheck", "--seeds", "0", "--out", "res", "--models", MODELS)
#: only keeps a hung child from hanging the session (two busy cores: minutes)
WAIT_S = 600

#: ``python -c``: ltrbench's CLI whose ``os.replace`` of a temporary onto ``$STALL_AT`` stalls
#: (after touching ``$STALL_MARKER``) the ``$STALL_N``-th time: a writer caught mid-write,
#: its temporary complete and not yet renamed.
STALLED = """
import os, sys, time
real = os.replace
seen = {"n": 0}
def stalled(src, dst, *args, **kwargs):
    if os.path.basename(os.fspath(dst)) == os.environ["STALL_AT"]:
        seen["n"] += 1
        if seen["n"] == int(os.environ["STALL_N"]):
            open(os.environ["STALL_MARKER"], "w").close()
            time.sleep(600)
    return real(src, dst, *args, **kwargs)
os.replace = stalled
from bench.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'tests'}"}


def _world(tmp: Path) -> Path:
    letor_folder(tmp / "letor")
    return tmp


def _hashes(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _converted(folder: Path) -> dict[str, object]:
    """The hashes of a converted set; ``summary.json`` without its ``timings_s`` (wall times)
    and ``stat`` (each file's size and modification time: when it was written)."""
    out: dict[str, object] = dict(_hashes(folder))
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    summary.pop("timings_s", None)
    summary.pop("stat", None)
    out["summary.json"] = summary
    return out


def _runs(tmp: Path) -> list[Path]:
    return sorted((tmp / "res" / "runs").iterdir())


def _the_run(tmp: Path) -> Path:
    runs = _runs(tmp)
    assert len(runs) == 1, runs
    return runs[0]


def _metrics(run: Path) -> pd.DataFrame:
    frame = pd.read_csv(run / "metrics.csv")
    return frame.sort_values([*list(frame.columns[:6]), "profile"]).reset_index(drop=True)


def _per_query(run: Path) -> pd.DataFrame:
    frame = pd.read_parquet(run / "per_query.parquet")
    keys = [c for c in ("model", "seed", "split", "metric", "profile", "qid")
            if c in frame.columns]
    return frame.sort_values(keys).reset_index(drop=True)


def _temporaries(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.name.endswith(".tmp")]


def _manifest(run: Path) -> dict[str, object]:
    return dict(json.loads((run / "manifest.json").read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One uninterrupted run (random + quick LightGBM): its run folder."""
    tmp = _world(tmp_path_factory.mktemp("h11h-clean"))
    res = cli(tmp, *RUN)
    assert res.status == 0, res.err
    return _the_run(tmp)


@pytest.fixture
def done(clean: Path, tmp_path: Path) -> Path:
    """A copy of the clean run in a fresh working folder (its dataset beside it)."""
    _world(tmp_path)
    dest = tmp_path / "res" / "runs" / clean.name
    shutil.copytree(clean, dest)
    return dest


def _assert_same_as(run: Path, clean: Path) -> None:
    pd.testing.assert_frame_equal(_metrics(run), _metrics(clean), check_exact=True)
    pd.testing.assert_frame_equal(_per_query(run), _per_query(clean), check_exact=True)


def _unfinish(run: Path) -> None:
    """The run as a killed process leaves it: not finished."""
    doc = _manifest(run)
    doc["finished"] = None
    (run / "manifest.json").write_text(json.dumps(doc), encoding="utf-8")


def _resume_ok_or_refused(tmp: Path, run: Path, clean: Path, *words: str) -> None:
    """``--resume`` either finishes the run to the clean run's tables, or refuses it naming
    ``words``; never exit 0 with tables that differ from the clean run."""
    res = cli(tmp, *RUN, "--resume")
    assert not res.traceback, res.err
    if res.status == 0:
        assert _runs(tmp) == [run]
        _assert_same_as(run, clean)
        assert _manifest(run).get("finished")
    else:
        assert refused(res, *words) is None, res.err


# ---------------------------------------------------------- killed mid-write, then --resume

def _stalled(cwd: Path, marker: Path, at: str, n: int,
             *argv: str) -> subprocess.Popen[str]:
    """``STALLED`` started with ``argv`` in ``cwd``, returned once it stalls (``marker``)."""
    p = subprocess.Popen([sys.executable, "-c", STALLED, *argv], cwd=cwd, text=True, env={
        **_env(), "STALL_AT": at, "STALL_N": str(n), "STALL_MARKER": str(marker)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + WAIT_S
    while not marker.exists() and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.exists(), p.communicate(timeout=WAIT_S)
    return p


def _killed(p: subprocess.Popen[str]) -> int:
    p.kill()
    p.communicate(timeout=WAIT_S)
    return p.returncode


def _stalled_run(tmp: Path, at: str, n: int) -> int:
    return _killed(_stalled(tmp, tmp / "stalled", at, n, *RUN))


@pytest.mark.parametrize(("at", "n"), [
    ("metrics.csv", 3),         # LightGBM's rows, written after random's
    ("per_query.parquet", 2),   # random's per-query rows (the first pair)
    ("scores.parquet", 3),      # LightGBM's scores
    ("manifest.json", 2),       # the manifest rewritten after the split checks
])
def test_a_run_killed_mid_write_resumes_bit_for_bit_and_leaves_no_temporary(
        tmp_path: Path, clean: Path, at: str, n: int) -> None:
    _world(tmp_path)
    before = _hashes(tmp_path / "letor")
    assert _stalled_run(tmp_path, at, n) == -signal.SIGKILL
    run = _the_run(tmp_path)
    assert _temporaries(run), "the stall should have left the writer's temporary"
    res = cli(tmp_path, *RUN, "--resume")
    assert res.status == 0, res.err
    assert _the_run(tmp_path) == run
    _assert_same_as(run, clean)
    assert _manifest(run).get("finished")
    assert not _temporaries(tmp_path / "res"), _temporaries(tmp_path / "res")
    assert _hashes(tmp_path / "letor") == before


def test_a_status_write_killed_retrains_that_pair_only(tmp_path: Path, clean: Path) -> None:
    _world(tmp_path)
    assert _stalled_run(tmp_path, "lightgbm-lambdarank-seed0.json", 1) == -signal.SIGKILL
    run = _the_run(tmp_path)
    assert not (run / "status" / "lightgbm-lambdarank-seed0.json").exists()
    res = cli(tmp_path, *RUN, "--resume")
    assert res.status == 0, res.err
    _assert_same_as(run, clean)
    assert not _temporaries(run)
    assert sorted(p.name for p in (run / "status").iterdir()) == [
        "lightgbm-lambdarank-seed0.json", "random-seed0.json"]


# ------------------------------------------------- a run folder edited between kill and resume

def _drop_rows_of(run: Path, name: str, model: str) -> None:
    """The run unfinished, and ``model``'s rows deleted from its table ``name``."""
    _unfinish(run)
    path = run / name
    if name.endswith(".csv"):
        frame = pd.read_csv(path)
        frame[frame.model != model].to_csv(path, index=False)
    else:
        frame = pd.read_parquet(path)
        frame[frame.model != model].to_parquet(path, index=False)


@pytest.mark.parametrize(("name", "model"), [("metrics.csv", "random"),
                                           ("scores.parquet", "lightgbm-lambdarank"),
                                           ("per_query.parquet", "random")])
def test_a_done_pairs_rows_deleted_from_a_table_is_not_finished_without_them(
        tmp_path: Path, done: Path, clean: Path, name: str, model: str) -> None:
    _drop_rows_of(done, name, model)
    _resume_ok_or_refused(tmp_path, done, clean, name, model)


def test_one_row_of_a_done_pair_deleted_from_metrics_is_not_finished_without_it(
        tmp_path: Path, done: Path, clean: Path) -> None:
    _unfinish(done)
    lines = (done / "metrics.csv").read_text().splitlines(keepends=True)
    (done / "metrics.csv").write_text("".join(lines[:3] + lines[4:]))
    _resume_ok_or_refused(tmp_path, done, clean, "metrics.csv")


def test_a_removed_status_file_retrains_that_pair_without_duplicate_rows(
        tmp_path: Path, done: Path, clean: Path) -> None:
    _unfinish(done)
    (done / "status" / "lightgbm-lambdarank-seed0.json").unlink()
    res = cli(tmp_path, *RUN, "--resume")
    assert res.status == 0, res.err
    _assert_same_as(done, clean)


def test_every_status_file_removed_retrains_everything_in_place(
        tmp_path: Path, done: Path, clean: Path) -> None:
    _unfinish(done)
    shutil.rmtree(done / "status")
    _resume_ok_or_refused(tmp_path, done, clean, "status")


@pytest.mark.parametrize("name", ["per_query.parquet", "scores.parquet", "labels.parquet",
                                  "timings.csv", "evallog.csv"])
def test_a_truncated_table_is_refused_by_resume_naming_it(tmp_path: Path, done: Path,
                                                          name: str) -> None:
    _unfinish(done)
    data = (done / name).read_bytes()
    (done / name).write_bytes(data[: len(data) // 2])
    res = cli(tmp_path, *RUN, "--resume")
    assert refused(res, name) is None, res.err
    assert (done / name).read_bytes() == data[: len(data) // 2]  # kept for the user to see


def test_a_metrics_file_cut_mid_line_is_refused_naming_its_line(tmp_path: Path,
                                                                done: Path) -> None:
    _unfinish(done)
    data = (done / "metrics.csv").read_bytes()
    cut = data[: data.rindex(b"\n", 0, len(data) - 1) + 20]
    (done / "metrics.csv").write_bytes(cut)
    res = cli(tmp_path, *RUN, "--resume")
    assert refused(res, "metrics.csv") is None, res.err


def test_a_cut_status_file_is_refused_naming_it(tmp_path: Path, done: Path) -> None:
    _unfinish(done)
    path = done / "status" / "random-seed0.json"
    path.write_bytes(path.read_bytes()[:40])
    res = cli(tmp_path, *RUN, "--resume")
    assert refused(res, "random-seed0.json") is None, res.err


def test_a_status_file_of_another_pair_is_refused_or_ignored_never_counted(
        tmp_path: Path, done: Path, clean: Path) -> None:
    """A status file whose body names another pair than its file name (copied by hand)."""
    _drop_rows_of(done, "metrics.csv", "lightgbm-lambdarank")
    (done / "status" / "lightgbm-lambdarank-seed0.json").unlink()
    body = json.loads((done / "status" / "random-seed0.json").read_text())
    (done / "status" / "lightgbm-lambdarank-seed0.json").write_text(json.dumps(body))
    _resume_ok_or_refused(tmp_path, done, clean, "lightgbm-lambdarank-seed0.json")


def test_a_stale_temporary_of_a_dead_writer_is_removed_by_resume(
        tmp_path: Path, done: Path, clean: Path) -> None:
    _unfinish(done)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    stale = [done / f".metrics.csv.{dead}-abc123.tmp", done / f".labels.parquet.{dead}-x.tmp",
             done / "status" / f".random-seed0.json.{dead}-y.tmp"]
    for path in stale:
        path.write_text("half")
    (done / "status" / "lightgbm-lambdarank-seed0.json").unlink()
    res = cli(tmp_path, *RUN, "--resume")
    assert res.status == 0, res.err
    _assert_same_as(done, clean)
    assert not [p for p in stale if p.exists()]


def test_a_resume_leaves_the_input_files_bytes_unchanged(tmp_path: Path, done: Path) -> None:
    _unfinish(done)
    before = _hashes(tmp_path / "letor")
    (done / "status" / "random-seed0.json").unlink()
    assert cli(tmp_path, *RUN, "--resume").status == 0
    assert _hashes(tmp_path / "letor") == before


def test_a_dataset_file_changed_between_kill_and_resume_is_refused(tmp_path: Path,
                                                                   done: Path) -> None:
    _unfinish(done)
    train = tmp_path / "letor" / "train.txt"
    lines = train.read_bytes().splitlines(keepends=True)
    train.write_bytes(b"".join(lines[:-8]))  # the last query gone
    (done / "status" / "lightgbm-lambdarank-seed0.json").unlink()
    res = cli(tmp_path, *RUN, "--resume")
    assert not res.traceback, res.err
    if res.status == 0:  # a new run of the changed data, never the old run finished with it
        assert len(_runs(tmp_path)) == 2
        assert not (done / "status" / "lightgbm-lambdarank-seed0.json").exists()
    else:
        assert refused(res) is None, res.err


# --------------------------------------------------------------------- two writers at once

def test_two_runs_at_once_into_one_results_folder_both_whole(tmp_path: Path,
                                                             clean: Path) -> None:
    _world(tmp_path)
    argv = [sys.executable, "-m", "bench", *RUN]
    ps = [subprocess.Popen(argv, cwd=tmp_path, env=_env(), text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    outs = [p.communicate(timeout=WAIT_S) for p in ps]
    assert [p.returncode for p in ps] == [0, 0], outs
    runs = _runs(tmp_path)
    assert len(runs) == 2, runs
    for run in runs:
        _assert_same_as(run, clean)
        assert _manifest(run)["run_id"] == run.name
    assert not _temporaries(tmp_path / "res")


def test_two_runs_in_the_same_second_get_two_run_ids(tmp_path: Path, clean: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import datetime as dt

    import bench.runs.naming as naming

    fixed = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)

    class Frozen(dt.datetime):
        @classmethod
        def now(cls, tz: dt.tzinfo | None = None) -> Frozen:  # type: ignore[override]
            return fixed  # type: ignore[return-value]

    monkeypatch.setattr(naming.dt, "datetime", Frozen)
    _world(tmp_path)
    assert cli(tmp_path, *RUN).status == 0
    first = _the_run(tmp_path)
    snapshot = _hashes(first)
    assert cli(tmp_path, *RUN).status == 0
    runs = _runs(tmp_path)
    assert len(runs) == 2
    assert first in runs
    second = next(r for r in runs if r != first)
    assert _manifest(second)["run_id"] == second.name
    assert _hashes(first) == snapshot  # the first run untouched by the second
    _assert_same_as(second, clean)


def test_a_resume_while_another_process_resumes_the_same_run_is_refused(
        tmp_path: Path, done: Path, clean: Path) -> None:
    _unfinish(done)
    (done / "status" / "lightgbm-lambdarank-seed0.json").unlink()
    p = _stalled(tmp_path, tmp_path / "stalled", "metrics.csv", 1, *RUN, "--resume")
    try:
        res = cli(tmp_path, *RUN, "--resume")
        assert not res.traceback, res.err
        assert res.status != 0, "two writers of one run at once"
        assert refused(res, "another ltrbench process", str(done.name)) is None, res.err
    finally:
        _killed(p)
    again = cli(tmp_path, *RUN, "--resume")
    assert again.status == 0, again.err
    _assert_same_as(done, clean)
    assert not _temporaries(done)


def test_report_of_a_run_being_written_is_refused_or_uses_only_finished_runs(
        tmp_path: Path, done: Path) -> None:
    _unfinish(done)
    res = cli(tmp_path, "report", "--runs", "res/runs", "--out", "rep", "--no-progress",
              "--bootstrap", "50", "--permutations", "100")
    assert not res.traceback, res.err
    if res.status == 0:  # an unfinished run is said to be so
        assert "unfinished" in (res.out + res.err).lower() or "not finished" in (
            res.out + res.err).lower(), res.out + res.err
    else:
        assert refused(res) is None, res.err


# ------------------------------------------------------------------- file-size limit (ENOSPC)

def _limited(tmp: Path, limit: int, *argv: str) -> subprocess.CompletedProcess[str]:
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    return subprocess.run([sys.executable, "-m", "bench", *argv], cwd=tmp, env=_env(),
                          capture_output=True, text=True, timeout=WAIT_S, preexec_fn=cap)


@pytest.mark.parametrize("limit", [1500, 3000, 5000])
def test_a_file_size_limit_during_a_run_names_the_file_and_resume_finishes(
        tmp_path: Path, clean: Path, limit: int) -> None:
    _world(tmp_path)
    before = _hashes(tmp_path / "letor")
    p = _limited(tmp_path, limit, *RUN)
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode == 2, (p.returncode, p.stderr)
    last = [ln for ln in p.stderr.splitlines() if ln.startswith("error:")]
    assert last, p.stderr
    assert "res/runs/" in last[0], p.stderr
    assert not _temporaries(tmp_path / "res"), _temporaries(tmp_path / "res")
    assert _hashes(tmp_path / "letor") == before
    res = cli(tmp_path, *RUN, "--resume")
    assert res.status == 0, res.err
    _assert_same_as(_the_run(tmp_path), clean)


CONVERT = ("convert", "--ratings", "r.csv", "--layout", "csv", "--user", "u", "--item", "i",
           "--rating", "r", "--timestamp", "t", "--split", "random", "--out", "data")
RATINGS = ("u,i,r,t\n" + "".join(f"{u},{(u * 7 + k * 3) % 97},{1 + (u + k) % 5},{u * 100 + k}\n"
                                 for u in range(60) for k in range(30))).encode()


@pytest.fixture(scope="module")
def clean_convert(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """:func:`_converted` of one uninterrupted ``CONVERT`` of ``RATINGS`` (made once for the
    module, only read: each case compares its own conversion with it)."""
    folder = tmp_path_factory.mktemp("h11h-convert")
    (folder / "r.csv").write_bytes(RATINGS)
    assert cli(folder, *CONVERT).status == 0
    return _converted(folder / "data")


@pytest.mark.parametrize("limit", [100, 2000, 6000])
def test_convert_cut_by_a_file_size_limit_then_rerun_equals_a_clean_convert(
        tmp_path: Path, limit: int, clean_convert: dict[str, object]) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "r.csv").write_bytes(RATINGS)
    p = _limited(tmp_path / "b", limit, *CONVERT)
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert "error:" in p.stderr, p.stderr
    assert "data" in p.stderr, p.stderr
    assert (tmp_path / "b" / "r.csv").read_bytes() == RATINGS
    left = list((tmp_path / "b").rglob("*"))
    assert not [q for q in left if q.name.endswith(".tmp") or q.name.startswith(".set-")], left
    assert cli(tmp_path / "b", *CONVERT).status == 0
    assert _converted(tmp_path / "b" / "data") == clean_convert


def test_a_convert_killed_mid_write_then_rerun_equals_a_clean_convert(
        tmp_path: Path, clean_convert: dict[str, object]) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "r.csv").write_bytes(RATINGS)
    _killed(_stalled(tmp_path / "b", tmp_path / "stalled", "test.txt", 1, *CONVERT))
    res = cli(tmp_path / "b", *CONVERT)
    assert res.status == 0, res.err
    assert _converted(tmp_path / "b" / "data") == clean_convert
    assert (tmp_path / "b" / "r.csv").read_bytes() == RATINGS
    left = [q for q in (tmp_path / "b").rglob("*")
            if q.name.endswith(".tmp") or q.name.startswith(".set-")]
    assert not left, left


def test_two_converts_at_once_into_one_folder_leave_one_whole_set(
        tmp_path: Path, clean_convert: dict[str, object]) -> None:
    (tmp_path / "r.csv").write_bytes(RATINGS)
    argv = [sys.executable, "-m", "bench", *CONVERT]
    ps = [subprocess.Popen(argv, cwd=tmp_path, env=_env(), text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    outs = [p.communicate(timeout=WAIT_S) for p in ps]
    assert all("Traceback" not in err for _, err in outs), outs
    assert 0 in [p.returncode for p in ps], outs
    for p, (_, err) in zip(ps, outs, strict=True):
        assert p.returncode == 0 or "error:" in err, err
    assert _converted(tmp_path / "data") == clean_convert


# ------------------------------------------- a dataset generated by two processes at once

STAND_IN = ("run", "--dataset", "synthetic-mslr30k:0.001", "--data-dir", "dd", "--quick",
            "--no-cache", "--no-progress", "--no-crosscheck", "--seeds", "0", "--models",
            "random")


def test_two_runs_generating_one_stand_in_at_once_share_one_whole_folder(
        tmp_path: Path) -> None:
    (tmp_path / "dd").mkdir()
    ps = [subprocess.Popen([sys.executable, "-m", "bench", *STAND_IN, "--out", f"r{i}"],
                           cwd=tmp_path, env=_env(), text=True, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE) for i in range(2)]
    outs = [p.communicate(timeout=WAIT_S) for p in ps]
    assert [p.returncode for p in ps] == [0, 0], outs
    assert [p.name for p in (tmp_path / "dd").iterdir()] == [
        "synthetic-mslr30k-v1-scale0.001-seed0"]  # no staging folder left
    first, second = (_metrics(next((tmp_path / f"r{i}" / "runs").iterdir())) for i in range(2))
    pd.testing.assert_frame_equal(first, second, check_exact=True)
    # a third run reads the folder as generated, the same numbers again
    assert cli(tmp_path, *STAND_IN, "--out", "r2").status == 0
    pd.testing.assert_frame_equal(_metrics(next((tmp_path / "r2" / "runs").iterdir())), first,
                                  check_exact=True)


def test_a_stale_staging_folder_of_a_killed_generator_is_no_dataset(tmp_path: Path) -> None:
    staging = tmp_path / "dd" / ".synthetic-mslr30k-v1-scale0.001-seed0.generate-0123456789ab"
    staging.mkdir(parents=True)
    (staging / "train.txt").write_text("1 qid:1 1:0.5\n")  # half a dataset
    res = cli(tmp_path, *STAND_IN, "--out", "r")
    assert res.status == 0, res.err
    made = tmp_path / "dd" / "synthetic-mslr30k-v1-scale0.001-seed0"
    assert len([p for p in made.rglob("*.txt") if p.stat().st_size > 1000]) == 3, list(
        made.rglob("*"))


# ------------------------------------------- an input file replaced while a command reads it

def _parquet_set(tmp: Path) -> Path:
    from bench.data.folders import read_letor_folder
    from bench.data.parquet import write_parquet

    letor_folder(tmp / "letor")
    splits = read_letor_folder(tmp / "letor")
    out = tmp / "pq"
    out.mkdir()
    for name in ("train", "vali", "test"):
        write_parquet(getattr(splits, name), out / f"{name}.parquet")
    return out


def test_a_parquet_split_replaced_while_it_is_read_is_never_recorded_as_another_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The manifest records the SHA-256 of the file the run read, or the run refuses: the
    file replaced between the read and the digest recorded the new file's digest beside the
    old file's numbers."""
    import bench.data.folders as folders

    pq = _parquet_set(tmp_path)
    train = pq / "train.parquet"
    read_bytes = train.read_bytes()
    other = tmp_path / "other.parquet"
    data = folders.read_parquet(train)
    kept = data.X.copy()
    data.X[:] = 0.0
    from bench.data.parquet import write_parquet

    write_parquet(data, other)
    data.X[:] = kept
    real = folders.read_parquet

    def swapped(path: Path) -> object:
        got = real(path)
        if Path(path).name == "train.parquet":
            os.replace(other, train)  # another program replaced it just after the read
        return got

    monkeypatch.setattr(folders, "read_parquet", swapped)
    res = cli(tmp_path, "run", "--dataset", "./pq", "--quick", "--no-cache", "--no-progress",
              "--no-crosscheck", "--seeds", "0", "--out", "res", "--models", "random")
    assert not res.traceback, res.err
    if res.status == 0:
        manifest = _manifest(_the_run(tmp_path))
        inputs = manifest["dataset"]["inputs"]  # type: ignore[index]
        digest = inputs["pq/train.parquet"]
        assert digest == hashlib.sha256(read_bytes).hexdigest(), "digest of another file"
    else:
        assert refused(res, "train.parquet", "changed") is None, res.err


def test_a_letor_split_swapped_through_its_symlink_mid_run_is_one_consistent_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """train.txt is a symbolic link; another program points it elsewhere while the run reads
    the other splits: the digest recorded is that of the bytes parsed."""
    import bench.data.folders as folders

    letor_folder(tmp_path / "letor")
    real_train = tmp_path / "letor" / "train.txt"
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_bytes(real_train.read_bytes())
    b.write_bytes(real_train.read_bytes().replace(b"0 qid", b"1 qid"))
    real_train.unlink()
    real_train.symlink_to(a)
    want = hashlib.sha256(a.read_bytes()).hexdigest()
    real = folders.read_svmlight_files_with_digests

    def swapped(*args: object, **kwargs: object) -> object:
        got = real(*args, **kwargs)
        real_train.unlink()
        real_train.symlink_to(b)
        return got

    monkeypatch.setattr(folders, "read_svmlight_files_with_digests", swapped)
    res = cli(tmp_path, "run", "--dataset", "./letor", "--quick", "--no-cache", "--no-progress",
              "--no-crosscheck", "--seeds", "0", "--out", "res", "--models", "random")
    assert not res.traceback, res.err
    if res.status == 0:
        inputs = _manifest(_the_run(tmp_path))["dataset"]["inputs"]  # type: ignore[index]
        assert inputs["letor/train.txt"] == want
    else:
        assert refused(res, "train.txt") is None, res.err


# ------------------------------------------------------------- a Dask worker killed mid-run

#: LightGBM, reproducible fit to fit on Dask since round 15 (bench.runners.lightgbm_network),
#: so a retried run can be compared with an uninterrupted one. (Round 14 used XGBoost while
#: LightGBM's fits differed; a fresh-venv run in round 15 then saw XGBoost's fit hang past
#: 600 s after the kill: a pinned partition of the dead worker, now ended by
#: bench.data.dask_watch, and killed at that exact point in tests/test_dask_lost_worker.py.)
DASK = ("run", "--dataset", "./letor", "--quick", "--no-cache", "--no-progress",
        "--no-crosscheck", "--seeds", "0", "--engine", "dask", "--workers", "2",
        "--models", "lightgbm")
#: a worker's CPU seconds (user + system) past its start-up: the cluster up and working (a
#: worker measured 2.4-3.0 s when LightGBM's threads started); CPU time, not a wall-clock
#: sleep, so that busy cores only delay the kill, never move it before the work
WORKER_BUSY_S = 2.0


def test_a_dask_worker_killed_mid_run_fails_clearly_or_gives_the_whole_numbers(
        tmp_path: Path) -> None:
    psutil = pytest.importorskip("psutil")
    _world(tmp_path)
    p = subprocess.Popen([sys.executable, "-m", "bench", *DASK, "--out", "res"], cwd=tmp_path,
                         env=_env(), text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    killed = None
    deadline = time.monotonic() + WAIT_S
    while killed is None and p.poll() is None and time.monotonic() < deadline:
        with contextlib.suppress(psutil.Error):
            for child in psutil.Process(p.pid).children(recursive=True):
                line = " ".join(child.cmdline())
                if (("spawn_main" in line or "forkserver" in line)
                        and sum(child.cpu_times()[:2]) >= WORKER_BUSY_S):
                    child.kill()
                    killed = child.pid
                    break
        time.sleep(0.2)
    try:
        _, err = p.communicate(timeout=WAIT_S)  # bounded: a lost worker never hangs the run
    except subprocess.TimeoutExpired:  # a hang fails here, and leaves no run and workers behind
        with contextlib.suppress(psutil.Error):
            for child in psutil.Process(p.pid).children(recursive=True):
                child.kill()
        p.kill()
        p.communicate()
        pytest.fail(f"the run did not end within {WAIT_S} s after its worker {killed} was killed")
    assert "Traceback" not in err, (p.returncode, err[-3000:])
    if p.returncode == 0:  # retried: the numbers of the whole run, never a partial mean
        # the reference, in-process and not killed: a whole Dask run, made only when there
        # are numbers to compare it with (the killed run usually ends with the clear error)
        clean = cli(tmp_path, *DASK, "--out", "clean")
        assert clean.status == 0, clean.err
        got = _metrics(next((tmp_path / "res" / "runs").iterdir()))
        want = _metrics(next((tmp_path / "clean" / "runs").iterdir()))
        pd.testing.assert_frame_equal(got, want, check_exact=True)
    else:
        errs = [ln for ln in err.splitlines() if ln.startswith("error:")]
        assert errs, err
        assert "worker" in errs[0].lower() or "dask" in errs[0].lower(), errs[0]


# ------------------------------------------------ links and leftovers in a resumed run folder

@pytest.mark.parametrize("name", ["manifest.json", "metrics.csv", "status/random-seed0.json"])
def test_a_run_file_turned_into_a_link_to_an_outside_file_never_writes_through_it(
        tmp_path: Path, done: Path, clean: Path, name: str) -> None:
    _unfinish(done)
    (done / "status" / "lightgbm-lambdarank-seed0.json").unlink()
    outside = tmp_path / "precious.txt"
    outside.write_bytes((done / name).read_bytes())
    before = outside.read_bytes()
    (done / name).unlink()
    (done / name).symlink_to(outside)
    res = cli(tmp_path, *RUN, "--resume")
    assert not res.traceback, res.err
    assert outside.read_bytes() == before  # the file the link pointed to is untouched
    if res.status == 0:
        _assert_same_as(done, clean)
    else:
        assert refused(res, Path(name).name) is None, res.err


def test_a_lock_file_left_by_a_killed_run_does_not_block_resume(tmp_path: Path, done: Path,
                                                               clean: Path) -> None:
    _unfinish(done)
    (done / "status" / "lightgbm-lambdarank-seed0.json").unlink()
    (done / ".writer.lock").write_text("pid 999999 on elsewhere since 2026-01-01T00:00:00")
    res = cli(tmp_path, *RUN, "--resume")
    assert res.status == 0, res.err
    _assert_same_as(done, clean)
    assert not (done / ".writer.lock").exists()
