"""Hostile cases, round 15: an SRE who runs ltrbench as batch jobs in containers (Kubernetes,
Slurm).

The persona's world: no ``HOME`` and a UID with no passwd entry (so ``~`` cannot be expanded
and the user cache directory cannot be found), ``XDG_CACHE_HOME`` relative or pointing at a
file, ``TMPDIR`` a file or missing, umask 077 (and 022), file times in the future or at the
epoch (clock skew on a network volume), standard error on a full log volume or a pipe whose
reader went away, preemption by SIGTERM and the job restarted with the same command line, and an
exit status the orchestrator reads (0 only when everything asked for was done, 2 for an error,
128 + n for a signal).

The verdicts: no input destroyed, nothing already written lost, no folder named ``~``, a clear
error naming the option or variable and what was expected, never a traceback.
"""

from __future__ import annotations

import errno
import io
import json
import os
import pwd
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import (
    QRELS,
    RATINGS,
    RUN,
    chdir,
    cli,
    done,
    letor_folder,
    ok,
    refused,
    snapshot,
    umask,
    untouched,
)

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
QUICK = ("--models", "random", "--seeds", "0", "--quick", "--no-progress")
CONVERT = ("convert", "--ratings", "ratings.csv", "--layout", "csv", "--user", "user", "--item",
           "item", "--rating", "rating", "--timestamp", "timestamp", "--min-history", "2",
           "--target-size", "2", "--features", "user,item")
FUTURE = time.time() + 10 * 365 * 86400  # a clock ten years ahead (a skewed NFS server)


def only_run(out: Path) -> Path:
    runs = sorted(d for d in (out / "runs").iterdir() if d.is_dir())
    assert len(runs) == 1, runs
    return runs[0]


def modes(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): stat.S_IMODE(p.stat().st_mode)
            for p in [folder, *folder.rglob("*")]}


@pytest.fixture(scope="module")
def proj(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A job's working folder: a LETOR dataset, qrels and run, ratings, one finished run in
    ``res`` and one conversion in ``conv`` (built once, read by many cases)."""
    p = tmp_path_factory.mktemp("job")
    letor_folder(p / "data")
    (p / "q.txt").write_bytes(QRELS)
    (p / "r.txt").write_bytes(RUN)
    (p / "ratings.csv").write_bytes(RATINGS)
    done(cli(p, "run", "--dataset", "data", *QUICK, "--out", "res"))
    done(cli(p, *CONVERT, "--out", "conv"))
    return p


@pytest.fixture
def job(proj: Path, tmp_path: Path) -> Path:
    """A fresh working folder holding copies of the inputs (and the finished run's results)."""
    import shutil

    for name in ("data", "res", "conv"):
        shutil.copytree(proj / name, tmp_path / name)
    for name in ("q.txt", "r.txt", "ratings.csv"):
        shutil.copy2(proj / name, tmp_path / name)
    return tmp_path


@pytest.fixture
def homeless(monkeypatch: pytest.MonkeyPatch) -> None:
    """No ``HOME`` and a UID with no passwd entry (``docker run --user 12345``)."""
    def no_entry(uid: int) -> pwd.struct_passwd:
        raise KeyError(f"getpwuid(): uid not found: {uid}")

    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.setattr(pwd, "getpwuid", no_entry)


def no_tilde_folder(folder: Path) -> str | None:
    made = [p.name for p in folder.iterdir() if p.name.startswith("~")]
    return f"made {made} in the working folder" if made else None


# ------------------------------------------------------------------ no HOME, no passwd entry


@pytest.mark.parametrize(("argv", "option"), [
    (("evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query", "~/pq.csv"),
     "--per-query"),
    (("run", "--dataset", "data", *QUICK, "--out", "~/res"), "--out"),
    (("report", "--runs", "res", "--out", "~/rep"), "--out"),
    ((*CONVERT, "--out", "~/conv"), "--out"),
    (("tune", "--dataset", "data", "--models", "lightgbm-lambdarank", "--budget-trials", "1",
      "--out", "~/tuned"), "--out"),
], ids=["evaluate-per-query", "run-out", "report-out", "convert-out", "tune-out"])
def test_a_tilde_output_without_a_home_is_refused_and_no_tilde_folder_made(
        job: Path, homeless: None, argv: tuple[str, ...], option: str) -> None:
    """The shell leaves ``~`` as it is when it cannot expand it; ltrbench wrote into a folder
    literally named ``~`` in the working folder, exit 0."""
    before = snapshot(job)
    res = cli(job, *argv)
    ok(refused(res, option, "~", "HOME"))
    ok(no_tilde_folder(job))
    ok(untouched(before, job))


@pytest.mark.parametrize(("argv", "option"), [
    (("evaluate", "--qrels", "~/q.txt", "--run", "r.txt"), "--qrels"),
    (("evaluate", "--qrels", "q.txt", "--run", "~/r.txt"), "--run"),
    (("run", "--dataset", "~/data", *QUICK, "--out", "o"), "--dataset"),
    (("report", "--runs", "~/res", "--out", "rep"), "--runs"),
], ids=["qrels", "run-file", "dataset", "report-runs"])
def test_a_tilde_input_without_a_home_says_why_not_only_no_such_file(
        job: Path, homeless: None, argv: tuple[str, ...], option: str) -> None:
    ok(refused(cli(job, *argv), option, "~", "HOME"))
    ok(no_tilde_folder(job))


def test_a_tilde_data_directory_without_a_home_names_where_it_was_given(
        job: Path, homeless: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The config key, the option and the variable: each said "Could not determine home
    directory." (Python's words), naming no variable to set."""
    (job / "c.toml").write_text('dataset = "data"\nmodels = ["random"]\ndata_dir = "~/dd"\n')
    ok(refused(cli(job, "run", "--config", "c.toml", "--out", "o", "--no-progress"),
               "c.toml", "data_dir", "HOME"))
    ok(refused(cli(job, "run", "--dataset", "data", "--data-dir", "~/dd", *QUICK, "--out", "o"),
               "--data-dir", "HOME"))
    monkeypatch.setenv("LTRBENCH_DATA_DIR", "~/dd")
    ok(refused(cli(job, "run", "--dataset", "data", *QUICK, "--out", "o"),
               "LTRBENCH_DATA_DIR", "HOME"))
    ok(no_tilde_folder(job))
    assert not (job / "o").exists()


def test_a_tilde_of_a_user_with_no_passwd_entry_is_refused_naming_the_user(job: Path) -> None:
    res = cli(job, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query",
              "~nosuchuser-h15h/pq.csv")
    ok(refused(res, "--per-query", "nosuchuser-h15h"))
    ok(no_tilde_folder(job))


def test_a_tilde_with_home_set_still_writes_under_home(job: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    home = job / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    done(cli(job, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query", "~/pq.csv"))
    assert (home / "pq.csv").stat().st_size > 0
    ok(no_tilde_folder(job))


def test_the_python_api_refuses_a_tilde_path_without_a_home(job: Path, homeless: None) -> None:
    from bench.data.python_args import user_path
    from bench.errors import LtrbenchError

    with pytest.raises(LtrbenchError) as info:
        user_path("~/results", "out_dir", strict=True)
    assert "out_dir" in str(info.value), info.value
    assert "HOME" in str(info.value), info.value


def test_a_generated_dataset_without_home_or_data_dir_names_the_variables(
        job: Path, homeless: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """platformdirs raised ``RuntimeError: could not determine the home directory``: a
    traceback."""
    monkeypatch.delenv("LTRBENCH_DATA_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    res = cli(job, "run", "--dataset", "synthetic-mslr30k:0.0005", *QUICK, "--out", "o")
    ok(refused(res, "HOME", "LTRBENCH_DATA_DIR", "--data-dir"))
    assert not (job / "o").exists()


def test_a_relative_cache_home_without_home_is_named_too(
        job: Path, homeless: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The XDG rule: a relative ``XDG_CACHE_HOME`` is ignored; with no home either, the
    error says both."""
    monkeypatch.delenv("LTRBENCH_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "cache")
    res = cli(job, "run", "--dataset", "synthetic-mslr30k:0.0005", *QUICK, "--out", "o")
    ok(refused(res, "XDG_CACHE_HOME", "HOME", "LTRBENCH_DATA_DIR"))
    assert not (job / "cache").exists()


def test_a_cache_home_that_is_a_file_is_named(job: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LTRBENCH_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(job / "q.txt"))
    before = snapshot(job)
    res = cli(job, "run", "--dataset", "synthetic-mslr30k:0.0005", *QUICK, "--out", "o")
    ok(refused(res, "q.txt", "LTRBENCH_DATA_DIR"))
    ok(untouched(before, job))


def test_an_explicit_data_dir_needs_no_home(job: Path, homeless: None,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("LTRBENCH_DATA_DIR", str(job / "cache"))
    done(cli(job, "run", "--dataset", "data", *QUICK, "--out", "o"))
    ok(no_tilde_folder(job))


# ------------------------------------------------------------------------------------ TMPDIR


@pytest.fixture
def tmpdir_is_a_file(job: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (job / "tmpfile").write_text("not a folder\n")
    monkeypatch.setenv("TMPDIR", str(job / "tmpfile"))
    monkeypatch.setattr(tempfile, "tempdir", None)


def test_a_tmpdir_that_is_a_file_does_not_stop_a_run(job: Path, tmpdir_is_a_file: None,
                                                    proj: Path) -> None:
    done(cli(job, "run", "--dataset", "data", *QUICK, "--out", "o"))
    got = pd.read_csv(only_run(job / "o") / "metrics.csv")
    want = pd.read_csv(only_run(proj / "res") / "metrics.csv")
    assert got["value"].tolist() == want["value"].tolist()


def test_a_tmpdir_that_is_a_file_gives_the_clean_conversion(job: Path, tmpdir_is_a_file: None,
                                                           proj: Path) -> None:
    done(cli(job, *CONVERT, "--out", "conv2"))
    for name in ("train.txt", "vali.txt", "test.txt", "test.txt.query"):
        assert (job / "conv2" / name).read_bytes() == (proj / "conv" / name).read_bytes(), name


def test_a_missing_tmpdir_does_not_stop_report(job: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMPDIR", str(job / "no such tmp"))
    monkeypatch.setattr(tempfile, "tempdir", None)
    done(cli(job, "report", "--runs", "res", "--out", "rep"))
    assert json.loads((job / "rep" / "leaderboard.json").read_text())
    assert not (job / "no such tmp").exists()


# ------------------------------------------------------------------------------------- umask


def test_umask_077_makes_a_private_run_folder(job: Path) -> None:
    with umask(0o077):
        done(cli(job, "run", "--dataset", "data", *QUICK, "--out", "o"))
    bad = {k: oct(m) for k, m in modes(job / "o").items() if m & 0o077}
    assert not bad, bad


def test_umask_077_makes_a_private_conversion_and_report(job: Path) -> None:
    with umask(0o077):
        done(cli(job, *CONVERT, "--out", "conv2"))
        done(cli(job, "report", "--runs", "res", "--out", "rep"))
    bad = {k: oct(m) for d in ("conv2", "rep") for k, m in modes(job / d).items() if m & 0o077}
    assert not bad, bad


def test_umask_022_gives_readable_run_files_not_the_temporaries_0600(job: Path) -> None:
    """Every file is written to a temporary (``mkstemp``: mode 0600) and renamed: a shared
    results volume read by another UID must still see 0644 files."""
    with umask(0o022):
        done(cli(job, "run", "--dataset", "data", *QUICK, "--out", "o"))
        done(cli(job, "report", "--runs", "o", "--out", "rep"))
    files = {k: m for d in ("o", "rep") for k, m in modes(job / d).items()
             if (job / d / k).is_file()}
    bad = {k: oct(m) for k, m in files.items() if m != 0o644}
    assert files
    assert not bad, bad


# -------------------------------------------------------------------------------- clock skew


def _metric_values(run: Path) -> list[float]:
    return pd.read_csv(run / "metrics.csv")["value"].tolist()


@pytest.mark.parametrize("when", [FUTURE, 0.0], ids=["future", "epoch"])
def test_a_converted_dataset_with_skewed_file_times_is_read_as_converted(
        job: Path, proj: Path, when: float) -> None:
    """The conversion record holds SHA-256 and times; times a skewed clock moved are no
    change of content."""
    for p in (job / "conv").rglob("*"):
        os.utime(p, (when, when))
    before = snapshot(job / "conv")
    done(cli(job, "run", "--dataset", "./conv", *QUICK, "--out", "o"))
    ok(untouched(before, job / "conv"))


def test_a_ratings_file_from_the_future_converts_to_the_same_bytes(job: Path, proj: Path) -> None:
    os.utime(job / "ratings.csv", (FUTURE, FUTURE))
    done(cli(job, *CONVERT, "--out", "conv2"))
    for name in ("train.txt", "vali.txt", "test.txt"):
        assert (job / "conv2" / name).read_bytes() == (proj / "conv" / name).read_bytes(), name
    assert (job / "ratings.csv").read_bytes() == RATINGS


def test_resume_of_a_finished_run_with_future_file_times_adds_no_row(job: Path) -> None:
    run = only_run(job / "res")
    for p in run.rglob("*"):
        os.utime(p, (FUTURE, FUTURE))
    metrics = (run / "metrics.csv").read_bytes()
    done(cli(job, "run", "--resume", str(run), "--no-progress"))
    assert (run / "metrics.csv").read_bytes() == metrics


def test_report_picks_the_newest_run_by_its_record_not_by_file_times(job: Path) -> None:
    """The older run's files touched into the future (a replica on a skewed node copied
    them): report still uses the run that finished last and says which."""
    old = only_run(job / "res")
    res = done(cli(job, "run", "--dataset", "data", "--models", "random", "--seeds", "1",
                   "--quick", "--no-progress", "--out", "res", "--format", "json"))
    new = Path(json.loads(res.out)["run_dir"]).name
    for p in [old, *old.rglob("*")]:
        os.utime(p, (FUTURE, FUTURE))
    rep = done(cli(job, "report", "--runs", "res", "--out", "rep"))
    assert f"using {new}" in rep.err, rep.err
    assert old.name in rep.err  # named as skipped
    assert new in (job / "rep" / "leaderboard.json").read_text()


# ------------------------------------------------------------- standard streams of a batch job


class _Failing(io.StringIO):
    def __init__(self, exc: OSError) -> None:
        super().__init__()
        self.exc = exc

    def write(self, s: str) -> int:
        raise self.exc

    def flush(self) -> None:
        raise self.exc


def _main_with(cwd: Path, argv: list[str], *, stdout: io.StringIO | None = None,
               stderr: io.StringIO | None = None) -> int | str:
    """``bench.cli.main`` with the given streams; an exception escaping is returned as text."""
    from bench import cli as bench_cli

    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = stdout or io.StringIO(), stderr or io.StringIO()
    try:
        with chdir(cwd):
            return bench_cli.main(argv)
    except BaseException as exc:  # the traceback a batch log would hold
        return f"escaped: {type(exc).__name__}: {exc}"
    finally:
        sys.stdout, sys.stderr = saved


TWO_SEEDS = ["run", "--dataset", "data", "--models", "random", "--seeds", "0,1", "--quick",
             "--out", "o"]


def test_standard_error_on_a_full_log_volume_never_stops_a_run_half_way(job: Path) -> None:
    """Slurm's ``#SBATCH -e /results/job.err`` on a volume that filled up: the first progress
    line failed, then the error line about it failed too, and the OSError escaped (exit 1, a
    traceback nobody can read, the run half done). Progress lines are best effort: the run
    finishes, exit 0, every pair written whole."""
    status = _main_with(job, TWO_SEEDS, stderr=_Failing(OSError(errno.ENOSPC, "No space left")))
    assert status == 0, status
    run = only_run(job / "o")
    assert len(list((run / "status").glob("*.json"))) == 2
    assert sorted(pd.read_csv(run / "metrics.csv").seed.unique()) == [0, 1]
    assert not list(run.rglob("*.tmp"))


@pytest.mark.parametrize("exc", [OSError(errno.ENOSPC, "No space left on device"),
                                 BrokenPipeError(errno.EPIPE, "Broken pipe")],
                         ids=["full", "closed"])
def test_an_error_that_cannot_be_written_is_still_exit_2(job: Path, exc: OSError) -> None:
    """The error line itself fails (stderr full or closed): exit 2, not a traceback and 1,
    and not 0 (a broken pipe is a normal end only for standard output)."""
    status = _main_with(job, ["evaluate", "--qrels", "missing.txt", "--run", "r.txt"],
                        stderr=_Failing(exc))
    assert status == 2, status


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_a_reader_gone_mid_run_never_exits_0_with_the_run_unfinished(job: Path,
                                                                    stream: str) -> None:
    """``ltrbench run ... 2>&1 | head -3`` (a log shipper that stopped): exit 0 is only
    right when every pair was done."""
    broken = _Failing(BrokenPipeError(errno.EPIPE, "Broken pipe"))
    status = _main_with(job, [*TWO_SEEDS, "--no-progress"] if stream == "stdout" else TWO_SEEDS,
                        **{stream: broken})
    assert isinstance(status, int), status
    run = only_run(job / "o")
    finished = len(list((run / "status").glob("*.json")))
    assert status != 0 or finished == 2, (status, finished)


def test_evaluate_with_a_closed_reader_writes_the_whole_per_query_file(job: Path) -> None:
    status = _main_with(job, ["evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query",
                              "pq.csv", "--format", "csv"],
                        stdout=_Failing(BrokenPipeError(errno.EPIPE, "Broken pipe")))
    assert status == 0, status
    rows = pd.read_csv(job / "pq.csv")
    assert set(rows.astype(str).iloc[:, 0]) >= {"1", "2"} or len(rows) >= 2, rows


# --------------------------------------------------------------- SIGTERM, then the same command


def test_sigterm_then_the_same_command_again_and_resume(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Kubernetes stops the pod (SIGTERM) during a fit; the job restarts with the same command
    line. Ended by SIGTERM (the shell's 143) with one line naming ``--resume``; nothing half-written; the bare rerun
    starts a new run beside it (never mixing rows into the stopped one, whose bytes stay as
    they were); ``--resume`` finishes the stopped run without duplicate rows; report uses a
    finished run and names what it skipped."""
    letor_folder(tmp_path / "data")
    (tmp_path / "c.toml").write_text('[custom_models.slow]\nfactory = "fault_rankers:Slow"\n')
    marker = tmp_path / "fitting"
    argv = ["run", "--config", "c.toml", "--dataset", "data", "--models", "random,slow",
            "--seeds", "0", "--quick", "--no-progress", "--no-crosscheck", "--out", "res"]
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{TESTS}",
           "FAULT_RANKER_MARKER": str(marker)}
    p = subprocess.Popen([sys.executable, "-m", "bench", *argv], cwd=tmp_path, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 600
    while not marker.exists() and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.exists(), p.communicate()
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=600)
    assert p.returncode == -signal.SIGTERM, (p.returncode, err)  # ended by it: the shell's 143
    assert "Traceback" not in err, err
    assert "SIGTERM" in err, err
    assert "--resume" in err, err
    stopped = only_run(tmp_path / "res")
    assert not list(stopped.rglob("*.tmp*"))
    kept = snapshot(stopped)

    monkeypatch.syspath_prepend(str(TESTS))
    monkeypatch.setenv("FAULT_RANKER_FAST", "1")
    done(cli(tmp_path, *argv))  # the bare rerun: a new run, the stopped one left as it was
    runs = sorted(d for d in (tmp_path / "res" / "runs").iterdir() if d.is_dir())
    assert len(runs) == 2, runs
    ok(untouched({k: v for k, v in kept.items() if not k.endswith(".lock")}, stopped))
    done(cli(tmp_path, *argv, "--resume", str(stopped)))
    rows = pd.read_csv(stopped / "metrics.csv")
    assert set(rows.model) == {"random", "slow"}
    assert not rows.duplicated(["model", "seed", "split", "metric"]).any()
    rep = done(cli(tmp_path, "report", "--runs", "res", "--out", "rep"))
    assert "skipped 1" in rep.err, rep.err


# ------------------------------------------------------------ a pod restarted after preemption


@pytest.mark.parametrize("pid", [1, "own"], ids=["pid-1", "this-pid"])
def test_a_temporary_of_a_writer_whose_pid_was_reused_is_removed_by_resume(
        job: Path, pid: int | str) -> None:
    """A restarted container numbers its processes from 1 again: the temporary of the
    preempted writer names a pid that is alive (the new job, or its init) but started after
    the file was last written. It stayed in the run folder for ever."""
    run = only_run(job / "res")
    number = os.getpid() if pid == "own" else 1
    stale = run / f".metrics.csv.{number}-k8spod.tmp"
    stale.write_text("dataset,model\nhalf")
    os.utime(stale, (1_000_000_000, 1_000_000_000))  # 2001: before any process now alive
    metrics = (run / "metrics.csv").read_bytes()
    done(cli(job, "run", "--resume", str(run), "--no-progress"))
    assert not stale.exists()
    assert (run / "metrics.csv").read_bytes() == metrics


def test_a_fresh_temporary_of_a_live_writer_is_kept(job: Path) -> None:
    """The other side of the rule: a temporary written after its (live) writer started may be
    in use by a replica still writing: never removed under it."""
    run = only_run(job / "res")
    live = run / f".metrics.csv.{os.getpid()}-replica.tmp"
    live.write_text("dataset,model\nbeing written")
    done(cli(job, "run", "--resume", str(run), "--no-progress"))
    assert live.read_text() == "dataset,model\nbeing written"


def test_a_stale_writer_lock_file_of_a_dead_replica_does_not_block_resume(job: Path) -> None:
    run = only_run(job / "res")
    (run / ".writer.lock").write_text("12345\n")
    os.utime(run / ".writer.lock", (FUTURE, FUTURE))
    metrics = (run / "metrics.csv").read_bytes()
    done(cli(job, "run", "--resume", str(run), "--no-progress"))
    assert (run / "metrics.csv").read_bytes() == metrics


# ------------------------------------------------------------------ the results volume fills up


@pytest.fixture
def volume_fills(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The results volume is full after ``limit[0]`` new files: ``mkstemp`` (every output is a
    temporary renamed into place) fails with ENOSPC, as on a full or inode-less volume."""
    real = tempfile.mkstemp
    limit = [0, 0]  # [allowed, made]

    def mkstemp(*args: object, **kwargs: object) -> tuple[int, str]:
        if kwargs.get("suffix") == ".tmp":
            limit[1] += 1
            if limit[1] > limit[0]:
                raise OSError(errno.ENOSPC, "No space left on device")
        return real(*args, **kwargs)  # type: ignore[call-overload,no-any-return]

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    yield limit
    monkeypatch.setattr(tempfile, "mkstemp", real)


def test_a_full_volume_during_convert_leaves_no_split_and_the_rerun_is_clean(
        job: Path, proj: Path, volume_fills: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    volume_fills[0] = 3
    ok(refused(cli(job, *CONVERT, "--out", "conv2"), "conv2", "No space left"))
    left = [p.name for p in (job / "conv2").iterdir()] if (job / "conv2").exists() else []
    assert not [n for n in left if n.endswith((".txt", ".parquet", ".query"))], left
    assert (job / "ratings.csv").read_bytes() == RATINGS
    volume_fills[0] = 10**6
    done(cli(job, *CONVERT, "--out", "conv2"))
    for name in ("train.txt", "vali.txt", "test.txt"):
        assert (job / "conv2" / name).read_bytes() == (proj / "conv" / name).read_bytes(), name


def test_a_full_volume_mid_run_names_the_file_and_resume_finishes_without_duplicates(
        job: Path, volume_fills: list[int]) -> None:
    volume_fills[0] = 5
    res = cli(job, *TWO_SEEDS, "--no-progress")
    ok(refused(res, "No space left", str(Path("o") / "runs")))
    run = only_run(job / "o")
    assert not list(run.rglob("*.tmp"))
    volume_fills[0] = 10**6
    done(cli(job, "run", "--resume", str(run), "--no-progress"))
    rows = pd.read_csv(run / "metrics.csv")
    assert sorted(rows.seed.unique()) == [0, 1]
    assert not rows.duplicated(["model", "seed", "split", "metric"]).any()


@pytest.mark.parametrize("home", ["/proc/nonexistent-h15h", "FILE/home"], ids=["proc", "file"])
def test_a_home_where_no_cache_can_be_made_names_the_data_directory_and_the_remedy(
        job: Path, monkeypatch: pytest.MonkeyPatch, home: str) -> None:
    """``HOME=/nonexistent`` on a read-only root: "error: /nonexistent: No such file or
    directory" named neither the data directory nor how to name another one."""
    home = home.replace("FILE", str(job / "q.txt"))
    monkeypatch.delenv("LTRBENCH_DATA_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", home)
    res = cli(job, "run", "--dataset", "synthetic-mslr30k:0.0005", *QUICK, "--out", "o")
    ok(refused(res, f"{home}/.cache/ltrbench", "--data-dir", "LTRBENCH_DATA_DIR"))
    assert (job / "q.txt").read_bytes() == QRELS


def test_a_closed_log_pipe_before_a_generated_dataset_never_exits_0_with_nothing_done(
        job: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``ltrbench run --dataset synthetic-... 2>&1 | head -1``: the note "generating ... (once)"
    met the closed pipe and the run ended there with status 0, no run folder made."""
    monkeypatch.setenv("LTRBENCH_DATA_DIR", str(job / "cache"))
    status = _main_with(job, ["run", "--dataset", "synthetic-mslr30k:0.0005", *QUICK, "--out",
                              "o"], stderr=_Failing(BrokenPipeError(errno.EPIPE, "Broken pipe")))
    assert status == 0, status  # standard error is best effort: the run goes on and finishes
    assert list((only_run(job / "o") / "status").glob("*.json"))
