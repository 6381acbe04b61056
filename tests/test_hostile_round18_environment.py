"""Hostile cases, round 18: a platform/SRE engineer whose containers and CI jobs are the hostile
part.

The environment, not the data, is what goes wrong here: ``HOME`` set but empty or relative (a
job template's ``env HOME= ...``), a data directory or ``XDG_CACHE_HOME`` that is a symbolic
link to a volume not mounted (or a loop of links), an output path under such a link, a umask
that takes the owner's own permissions (``0222``, ``0777``) or a loose one (``000``, ``002``),
a terminal ``COLUMNS`` of 20 or ``abc``, ``FORCE_COLOR`` with ``TERM=dumb``, Ctrl-C or SIGTERM
landing while a set of files is switched into place, a quota or an I/O error at the last
``fsync`` / ``rename`` of a writer, and a reader that closes the pipe (``| head -1``).

The verdicts: exit 2 with one ``error:`` line naming the option or variable and what was
expected (130 / 143 for an interrupt, as the README says), nothing already written lost or left
half-written (a set of files is one report's, never two), no input destroyed, the same numbers
whatever the terminal width, never a traceback. Everything runs in-process
(:func:`bench.cli.main` through ``hostile_kit.cli``); one small run and one report are shared.
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import shutil
import signal
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import QRELS, RUN, cli, csv_values, done, letor_folder, ok, refused, umask

QUICK = ("--models", "random", "--quick", "--no-progress")
EVAL = ("evaluate", "--qrels", "q.txt", "--run", "r.txt")


def files_of(folder: Path) -> dict[str, bytes]:
    """Every file below ``folder`` (hidden ones too) by relative path."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def leftovers(folder: Path) -> list[str]:
    """Temporaries of a writer left in ``folder`` (``.set-*.tmp``, ``.<name>.<pid>-*.tmp``)."""
    return sorted(p.name for p in folder.rglob("*.tmp"))


@pytest.fixture(scope="module")
def proj(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A job folder: qrels and run, a LETOR dataset, two finished runs of it (``res`` seed 0,
    ``res2`` seed 1: another test number), and the report of ``res`` in ``rep``."""
    p = tmp_path_factory.mktemp("env")
    (p / "q.txt").write_bytes(QRELS)
    (p / "r.txt").write_bytes(RUN)
    letor_folder(p / "data")
    done(cli(p, "run", "--dataset", "data", *QUICK, "--seeds", "0", "--out", "res"))
    done(cli(p, "run", "--dataset", "data", *QUICK, "--seeds", "1", "--out", "res2"))
    done(cli(p, "report", "--runs", "res", "--out", "rep", "--no-plots"))
    done(cli(p, "report", "--runs", "res2", "--out", "rep2", "--no-plots"))
    return p


@pytest.fixture
def job(proj: Path, tmp_path: Path) -> Path:
    """A fresh working folder with copies of the shared inputs, runs and report."""
    for name in ("data", "res", "res2", "rep", "rep2"):
        shutil.copytree(proj / name, tmp_path / name, symlinks=True)
    for name in ("q.txt", "r.txt"):
        shutil.copy2(proj / name, tmp_path / name)
    return tmp_path


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A real HOME (a folder of this test), no data directory variables."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    for name in ("LTRBENCH_DATA_DIR", "XDG_CACHE_HOME", "COLUMNS", "FORCE_COLOR", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def reference(proj: Path) -> dict[str, float]:
    """The metrics of ``q.txt`` / ``r.txt`` as CSV, in a clean environment (computed once)."""
    return csv_values(done(cli(proj, *EVAL, "--format", "csv")))


# ------------------------------------------------------------- HOME set but empty or relative


@contextlib.contextmanager
def at_root(name: str) -> Iterator[Path]:
    """``/NAME``: where an empty HOME puts ``~/NAME``; removed afterwards if a command made
    it there (on a version without the check), so the machine is left as it was."""
    where = Path("/") / name
    try:
        yield where
    finally:
        if where.is_dir() and not where.is_symlink():
            shutil.rmtree(where, ignore_errors=True)
        elif os.path.lexists(where):
            where.unlink()


@pytest.mark.parametrize("home", ["", "rel/home", "."])
def test_a_tilde_output_with_a_home_that_is_no_absolute_path_is_refused(
        job: Path, monkeypatch: pytest.MonkeyPatch, home: str) -> None:
    """``env HOME= ltrbench ... --per-query '~/pq.csv'`` wrote ``/pq.csv`` at the root of the
    file system (``HOME=rel/home``: a new ``rel/home`` in the working folder), exit 0."""
    monkeypatch.setenv("HOME", home)
    name = f"pq-r18-{os.getpid()}-{job.name}.csv"
    with at_root(name) as root_file:
        res = cli(job, *EVAL, "--per-query", f"~/{name}")
        made = os.path.lexists(root_file)
    ok(refused(res, "--per-query", "HOME", "absolute"))
    assert not made
    assert not (job / "rel").exists()
    assert not (job / name).exists()


def test_a_tilde_run_folder_with_an_empty_home_is_refused_before_any_work(
        job: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "")
    name = f"r18-res-{os.getpid()}-{job.name}"
    with at_root(name) as root_folder:
        res = cli(job, "run", "--dataset", "data", *QUICK, "--out", f"~/{name}")
        made = os.path.lexists(root_folder)
    ok(refused(res, "--out", "HOME"))
    assert not made


def test_a_tilde_input_with_a_relative_home_names_home_not_a_missing_file(
        job: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``HOME=.`` would read ``./q.txt`` here and another file from another folder: one rule."""
    monkeypatch.setenv("HOME", ".")
    ok(refused(cli(job, "evaluate", "--qrels", "~/q.txt", "--run", "r.txt"), "--qrels", "HOME"))


def test_a_tilde_data_directory_with_an_empty_home_names_the_variable(
        job: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "")
    monkeypatch.setenv("LTRBENCH_DATA_DIR", "~/ltr-data")
    ok(refused(cli(job, "datasets", "list"), "LTRBENCH_DATA_DIR", "HOME"))


def test_a_tilde_dataset_in_a_config_file_with_an_empty_home_names_the_key(
        job: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (job / "c.toml").write_text('dataset = "~/data"\nmodels = ["random"]\nquick = true\n')
    monkeypatch.setenv("HOME", "")
    ok(refused(cli(job, "run", "--config", "c.toml", "--no-progress", "--out", "o"), "dataset",
               "HOME"))
    assert not (job / "o").exists()


def test_a_tilde_sqlite_storage_with_an_empty_home_is_refused_before_any_trial(
        job: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "")
    name = f"study-r18-{os.getpid()}-{job.name}.db"
    with at_root(name) as root_file:
        res = cli(job, "tune", "--dataset", "data", "--models", "lightgbm-lambdarank",
                  "--budget-trials", "1", "--storage", f"sqlite:///~/{name}", "--out", "t")
        made = os.path.lexists(root_file)
    ok(refused(res, "--storage", "HOME"))
    assert not made


def test_the_python_api_refuses_tilde_files_with_a_relative_home(
        job: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.errors import ConfigError
    from bench.metrics import evaluate_trec

    monkeypatch.setenv("HOME", "home")
    monkeypatch.chdir(job)
    with pytest.raises(ConfigError, match="HOME"):
        evaluate_trec("~/q.txt", "~/r.txt", metrics="ndcg@3")


def test_a_tilde_user_form_does_not_depend_on_home(job: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """``~root/...`` is root's home from the passwd file, whatever ``HOME`` says."""
    import pwd

    monkeypatch.setenv("HOME", "")
    user = pwd.getpwuid(os.getuid()).pw_name
    res = cli(job, "evaluate", "--qrels", f"~{user}/no-such-r18-qrels.txt", "--run", "r.txt")
    ok(refused(res, "no-such-r18-qrels.txt"))
    assert "HOME" not in res.err


def test_an_absolute_home_still_expands(job: Path, reference: dict[str, float],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(job))
    got = csv_values(done(cli(job, "evaluate", "--qrels", "~/q.txt", "--run", "~/r.txt",
                              "--format", "csv")))
    assert got == reference


# ------------------------------------------------------ data directories behind dead links


def test_a_data_directory_that_is_a_link_to_nothing_is_named_with_its_target(
        job: Path, clean_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """A link to a volume that is not mounted: "File exists" (naming the link only) once a
    stand-in was generated, and ``datasets list`` printed it as the data directory."""
    (job / "ltr").symlink_to(job / "not-mounted")
    monkeypatch.setenv("LTRBENCH_DATA_DIR", str(job / "ltr"))
    ok(refused(cli(job, "datasets", "list"), "LTRBENCH_DATA_DIR", "symbolic link",
               "not-mounted"))


def test_a_stand_in_into_a_dead_link_data_directory_is_refused_before_generating(
        job: Path, clean_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    (job / "ltr").symlink_to(job / "not-mounted")
    monkeypatch.setenv("LTRBENCH_DATA_DIR", str(job / "ltr"))
    res = cli(job, "run", "--dataset", "synthetic-mslr30k:0.001", *QUICK, "--out", "o")
    ok(refused(res, "LTRBENCH_DATA_DIR", "symbolic link"))
    assert "File exists" not in res.err
    assert not (job / "not-mounted").exists()
    assert not (job / "o").exists()


def test_a_data_directory_in_a_loop_of_links_is_named(job: Path, clean_env: None,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    (job / "la").symlink_to(job / "lb")
    (job / "lb").symlink_to(job / "la")
    monkeypatch.setenv("LTRBENCH_DATA_DIR", str(job / "la"))
    ok(refused(cli(job, "run", "--dataset", "synthetic-mslr30k:0.001", *QUICK, "--out", "o"),
               "LTRBENCH_DATA_DIR", "loop"))


def test_a_data_directory_below_a_dead_link_names_the_link(
        job: Path, clean_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    (job / "mnt").symlink_to(job / "not-mounted")
    monkeypatch.setenv("LTRBENCH_DATA_DIR", str(job / "mnt" / "ltr"))
    ok(refused(cli(job, "datasets", "list"), "LTRBENCH_DATA_DIR", str(job / "mnt"),
               "symbolic link"))


def test_a_dead_link_among_the_searched_data_directories_is_named(
        job: Path, clean_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second folder that is a dead link: the dataset could be found in another copy."""
    (job / "shared").symlink_to(job / "nfs-gone")
    monkeypatch.setenv("LTRBENCH_DATA_DIR", f"{job / 'mine'}{os.pathsep}{job / 'shared'}")
    ok(refused(cli(job, "datasets", "list"), "LTRBENCH_DATA_DIR", "nfs-gone"))


def test_a_data_dir_option_that_is_a_dead_link_names_the_option(job: Path,
                                                                 clean_env: None) -> None:
    (job / "ltr").symlink_to(job / "not-mounted")
    ok(refused(cli(job, "datasets", "list", "--data-dir", str(job / "ltr")), "--data-dir",
               "symbolic link"))


def test_a_cache_home_that_is_a_dead_link_is_named_with_the_remedy(
        job: Path, clean_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    (job / "cache").symlink_to(job / "not-mounted")
    monkeypatch.setenv("XDG_CACHE_HOME", str(job / "cache"))
    res = cli(job, "run", "--dataset", "synthetic-mslr30k:0.001", *QUICK, "--out", "o")
    ok(refused(res, "XDG_CACHE_HOME", "symbolic link", "LTRBENCH_DATA_DIR"))
    assert not (job / "not-mounted").exists()


def test_duplicate_and_empty_entries_of_the_data_directory_give_one_folder(
        job: Path, clean_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    d = job / "ltr"
    monkeypatch.setenv("LTRBENCH_DATA_DIR", os.pathsep.join(["", str(d), f"{d}/", f"{d}/.",
                                                              ""]))
    res = done(cli(job, "datasets", "list", "--format", "json"))
    assert json.loads(res.out)["data_dirs"] == [str(d)]


# ------------------------------------------------------------ outputs below a dead link


@pytest.mark.parametrize("argv", [
    (*EVAL, "--per-query", "gone/pq.csv"),
    ("run", "--dataset", "data", *QUICK, "--out", "gone/res"),
    ("report", "--runs", "res", "--out", "gone/rep", "--no-plots"),
])
def test_an_output_below_a_dead_link_says_it_is_a_link_to_nothing(job: Path,
                                                                  argv: tuple[str, ...]) -> None:
    """It said "'gone' is a file, not a folder": the user looks for a file that is not there."""
    (job / "gone").symlink_to(job / "not-mounted")
    ok(refused(cli(job, *argv), "gone", "symbolic link to nothing"))
    assert not (job / "not-mounted").exists()


# ------------------------------------------------------------------------------ the umask


@pytest.mark.parametrize("mask", [0o222, 0o277, 0o477, 0o177, 0o777])
def test_a_umask_that_takes_the_owners_permissions_is_refused_before_any_work(
        job: Path, mask: int) -> None:
    """``umask 0222``: the per-query file was written ``0444`` in a folder made ``0555``;
    ``run`` made its whole run read-only, and ``run --resume`` / ``report`` then refused that
    run's own folder as "its owner protected"."""
    with umask(mask):
        res = cli(job, *EVAL, "--per-query", "new/pq.csv")
    ok(refused(res, "--per-query", "umask", f"{mask:04o}"))
    assert not (job / "new").exists()


def test_a_run_under_umask_0222_is_refused_and_makes_no_run_folder(job: Path) -> None:
    with umask(0o222):
        res = cli(job, "run", "--dataset", "data", *QUICK, "--out", "fresh")
    ok(refused(res, "--out", "umask 0222", "022"))
    assert not (job / "fresh").exists()


def test_a_report_under_umask_0777_leaves_the_earlier_report_as_it_was(job: Path) -> None:
    before = files_of(job / "rep")
    with umask(0o777):
        ok(refused(cli(job, "report", "--runs", "res2", "--out", "rep", "--no-plots"), "umask"))
    assert files_of(job / "rep") == before


@pytest.mark.parametrize(("mask", "mode"), [(0o000, 0o666), (0o002, 0o664), (0o027, 0o640)])
def test_a_umask_that_keeps_the_owners_permissions_gives_the_usual_modes(
        job: Path, mask: int, mode: int) -> None:
    with umask(mask):
        done(cli(job, *EVAL, "--per-query", "pq.csv", "--format", "csv"))
    assert stat.S_IMODE((job / "pq.csv").stat().st_mode) == mode
    assert leftovers(job) == []


# ------------------------------------------------------- a signal while a set is switched in


def _switch_renames(fail: Callable[[int], BaseException | None]) -> Callable[..., Any]:
    """``os.replace`` that calls ``fail(k)`` before the k-th rename out of a ``.set-*.tmp``
    folder (the switch of a file set); an exception it returns is raised there."""
    real, count = os.replace, [0]

    def replace(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
        if ".set-" in os.fspath(src) and ".set-" not in os.fspath(dst):
            count[0] += 1
            exc = fail(count[0])
            if exc is not None:
                raise exc
        real(src, dst, *args, **kwargs)
    return replace


def _write_set(out: Path, owned: list[str], new: dict[str, str]) -> None:
    """Write ``new`` (name -> text) as the set ``owned`` of ``out`` through the writer."""
    from bench.data.atomic import replace_file_set

    with replace_file_set(out, owned) as tmp:
        for name, text in new.items():
            (tmp / name).write_text(text)


def _one_report(job: Path, folder: str, of: str, proj: Path) -> None:
    """``job/folder`` holds the report of the run ``of`` alone: every file is the one a clean
    report of ``of`` wrote (``rep`` / ``rep2``, made in the shared folder: its run paths read
    as this copy's), nothing of another, no temporary."""
    got = files_of(job / folder)
    want = {k: v.replace(str(proj).encode(), str(job).encode())
            for k, v in files_of(job / of).items()}
    assert sorted(got) == sorted(want), (sorted(got), sorted(want))
    mixed = [name for name in got if got[name] != want[name]]
    assert not mixed, f"{mixed} differ from one report's files"
    assert leftovers(job / folder) == []


@pytest.mark.parametrize("k", [1, 2, 4])
def test_ctrl_c_among_the_renames_of_a_report_leaves_one_whole_report(
        job: Path, proj: Path, monkeypatch: pytest.MonkeyPatch, k: int) -> None:
    """Ctrl-C at the k-th rename of the switch: the folder held the new ``leaderboard.md``
    beside the earlier ``leaderboard.csv``/``.json``/``.tex``, and the command said "files
    already written are complete", exit 130."""
    monkeypatch.setattr(os, "replace", _switch_renames(
        lambda n: KeyboardInterrupt() if n == k else None))
    res = cli(job, "report", "--runs", "res2", "--out", "rep", "--no-plots")
    assert not res.traceback, res.err[-800:]
    assert res.status == 130, (res.status, res.err[-800:])
    assert "interrupted" in res.err
    monkeypatch.undo()
    _one_report(job, "rep", "rep2", proj)


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_stop_signal_among_the_renames_of_a_report_leaves_one_whole_report(
        job: Path, proj: Path, monkeypatch: pytest.MonkeyPatch, signum: int,
        status: int) -> None:
    """A real SIGTERM (a batch system's stop) or SIGHUP (the ssh session gone) sent while the
    switch runs: 128 + the signal, one whole report, and the signal's handler put back."""
    before = signal.getsignal(signum)

    def stop(n: int) -> None:
        if n == 2:
            os.kill(os.getpid(), signum)  # its handler raises at the next bytecode
        return None

    monkeypatch.setattr(os, "replace", _switch_renames(stop))
    res = cli(job, "report", "--runs", "res2", "--out", "rep", "--no-plots")
    assert not res.traceback, res.err[-800:]
    assert res.status == status, (res.status, res.err[-800:])
    monkeypatch.undo()
    _one_report(job, "rep", "rep2", proj)
    assert signal.getsignal(signum) == before


def test_ctrl_c_while_a_stale_file_of_the_set_is_removed_still_switches_the_whole_set(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:

    out = tmp_path / "out"
    out.mkdir()
    for name in ("a.txt", "b.txt", "old.txt"):
        (out / name).write_text("old\n")
    real_unlink, hit = Path.unlink, [False]

    def unlink(self: Path, *args: Any, **kwargs: Any) -> None:
        if self.name == "old.txt" and not hit[0]:
            hit[0] = True
            raise KeyboardInterrupt
        real_unlink(self, *args, **kwargs)

    monkeypatch.setattr(Path, "unlink", unlink)
    with pytest.raises(KeyboardInterrupt):
        _write_set(out, ["a.txt", "b.txt", "old.txt"], {"a.txt": "new\n", "b.txt": "new\n"})
    monkeypatch.undo()
    assert files_of(out) == {"a.txt": b"new\n", "b.txt": b"new\n"}


def test_a_second_ctrl_c_in_one_rename_stops_the_switch_and_readers_then_refuse_the_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The user insists: the switch stops half-way, and the note that says so is kept, so a
    reader refuses the mixed folder once the writer is gone (not silently read as one set)."""
    from bench.data import atomic
    from bench.errors import DataError

    out = tmp_path / "conv"
    out.mkdir()
    for name in ("test.txt", "train.txt"):
        (out / name).write_text("old\n")
    monkeypatch.setattr(os, "replace", _switch_renames(
        lambda n: KeyboardInterrupt() if n >= 2 else None))
    with pytest.raises(KeyboardInterrupt):
        _write_set(out, ["test.txt", "train.txt"], {"test.txt": "new\n", "train.txt": "new\n"})
    monkeypatch.undo()
    monkeypatch.setattr(atomic, "_alive", lambda pid, temporary=None: False)  # the writer died
    with pytest.raises(DataError, match="being replaced"):
        atomic.check_switch_finished(out)


def test_an_io_error_among_the_renames_keeps_the_note_that_readers_refuse(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.data import atomic
    from bench.errors import DataError

    out = tmp_path / "conv"
    out.mkdir()
    (out / "test.txt").write_text("old\n")
    (out / "train.txt").write_text("old\n")
    monkeypatch.setattr(os, "replace", _switch_renames(
        lambda n: OSError(errno.EIO, "Input/output error") if n == 2 else None))
    with pytest.raises(OSError, match="Input/output error"):
        _write_set(out, ["test.txt", "train.txt"], {"test.txt": "new\n", "train.txt": "new\n"})
    monkeypatch.undo()
    monkeypatch.setattr(atomic, "_alive", lambda pid, temporary=None: False)
    with pytest.raises(DataError, match="some are the new set"):
        atomic.check_switch_finished(out)


def test_ctrl_c_before_the_switch_leaves_the_earlier_report_untouched(
        job: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C while the new files are written: the earlier report is whole, nothing left."""
    from bench.data import atomic

    before = files_of(job / "rep")

    real = atomic.write_text
    calls = [0]

    def write_text(path: Any, text: str) -> Path:
        calls[0] += 1
        if calls[0] == 3:
            raise KeyboardInterrupt
        return real(path, text)

    monkeypatch.setattr("bench.report.leaderboard.write_text", write_text)
    res = cli(job, "report", "--runs", "res2", "--out", "rep", "--no-plots")
    assert not res.traceback, res.err[-800:]
    assert res.status == 130, (res.status, res.err[-800:])
    monkeypatch.undo()
    assert files_of(job / "rep") == before


# ---------------------------------------------------- a quota or an I/O error at the end


def _raising(err: int, text: str) -> Callable[..., Any]:
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise OSError(err, text)
    return fail


@pytest.mark.parametrize("name", ["pq.csv", "pq.json"])
def test_a_quota_exceeded_at_fsync_names_the_file_says_quota_and_keeps_the_old_file(
        job: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """NFS reports a full quota at ``fsync``/``close``, not at ``write``."""
    (job / name).write_text("kept\n")
    monkeypatch.setattr(os, "fsync", _raising(errno.EDQUOT, "Disk quota exceeded"))
    ok(refused(cli(job, *EVAL, "--per-query", name), name, "quota", "files already written"))
    monkeypatch.undo()
    assert (job / name).read_text() == "kept\n"
    assert leftovers(job) == []


def test_an_io_error_at_the_rename_of_per_query_names_it_and_leaves_no_temporary(
        job: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (job / "pq.csv").write_text("kept\n")
    monkeypatch.setattr(os, "replace", _raising(errno.EIO, "Input/output error"))
    ok(refused(cli(job, *EVAL, "--per-query", "pq.csv"), "pq.csv", "Input/output error"))
    monkeypatch.undo()
    assert (job / "pq.csv").read_text() == "kept\n"
    assert leftovers(job) == []


def test_a_quota_exceeded_at_the_first_rename_of_a_report_keeps_the_earlier_one_whole(
        job: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Exit 2 naming the file of the output folder (not the writer's temporary folder) and the
    quota; nothing was switched, so the earlier report's files are all there as they were and
    no temporary is left."""
    before = files_of(job / "rep")
    monkeypatch.setattr(os, "replace", _switch_renames(
        lambda n: OSError(errno.EDQUOT, "Disk quota exceeded") if n == 1 else None))
    res = cli(job, "report", "--runs", "res2", "--out", "rep", "--no-plots")
    ok(refused(res, "rep/", "quota"))
    assert ".set-" not in res.err
    monkeypatch.undo()
    assert files_of(job / "rep") == before


def test_a_real_rename_error_of_the_switch_names_the_destination_not_the_temporary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``os.replace`` names both paths; the message shows the one the user chose."""

    out = tmp_path / "rep"
    real = os.replace

    def replace(src: Any, dst: Any) -> None:
        if ".set-" in os.fspath(src) and ".set-" not in os.fspath(dst):
            raise OSError(errno.EIO, "Input/output error", os.fspath(src), None, os.fspath(dst))
        real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OSError, match="Input/output error") as caught:
        _write_set(out, ["a.md"], {"a.md": "new\n"})
    assert caught.value.filename == str(out / "a.md")
    assert caught.value.filename2 is None


def test_a_full_disk_while_a_stand_in_is_generated_names_the_data_directory_not_staging(
        job: Path, clean_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """It named ``ltr/.synthetic-...generate-<hex>/Fold1/train.txt``, a hidden folder already
    removed when the message was read; now the data directory, the stand-in and the remedy."""
    monkeypatch.setenv("LTRBENCH_DATA_DIR", str(job / "ltr"))
    monkeypatch.setattr(os, "fsync", _raising(errno.ENOSPC, "No space left on device"))
    res = cli(job, "run", "--dataset", "synthetic-mslr30k:0.001", *QUICK, "--out", "o")
    ok(refused(res, str(job / "ltr"), "synthetic-mslr30k", "No space left", "--data-dir"))
    assert ".generate-" not in res.err
    monkeypatch.undo()
    assert sorted(p.name for p in (job / "ltr").iterdir()) == []


@pytest.mark.parametrize(("where", "err"), [("open", errno.EMFILE), ("open", errno.EACCES),
                                             ("mmap", errno.ENOMEM)])
def test_a_cache_entry_that_cannot_be_read_now_is_kept_and_the_source_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, err: int) -> None:
    """``ulimit -n`` reached (or no memory to map, or no permission on a shared cache): the
    valid entry was called "unusable" and removed. Now the source is read, the entry kept."""
    import hashlib

    from bench.data import letor_cache
    from bench.data.letor_cache import CacheWarning, entry_path
    from bench.data.svmlight import read_svmlight

    source = tmp_path / "train.txt"
    source.write_bytes(b"2 qid:1 1:0.5 2:1\n0 qid:1 1:0.25\n1 qid:2 2:0.75\n")
    cache = tmp_path / "cache"
    first = read_svmlight(source, cache_dir=cache)
    entry = entry_path(cache, hashlib.sha256(source.read_bytes()).hexdigest())
    kept = files_of(entry)

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise OSError(err, os.strerror(err))

    def open_to_read(path: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if mode.startswith("r"):
            fail()
        return open(path, mode, *args, **kwargs)  # the new entry's writes still work

    if where == "open":
        monkeypatch.setattr(letor_cache, "open", open_to_read, raising=False)
    else:
        monkeypatch.setattr(letor_cache.mmap, "mmap", fail)
    with pytest.warns(CacheWarning, match="kept"):
        again = read_svmlight(source, cache_dir=cache)
    monkeypatch.undo()
    assert again.X.tobytes() == first.X.tobytes()
    assert again.y.tobytes() == first.y.tobytes()
    assert files_of(entry) == kept


# ----------------------------------------------------------------- terminal width and colour


@pytest.mark.parametrize("columns", ["20", "5", "0", "-3", "abc", "1e3"])
def test_the_evaluate_table_prints_the_csv_numbers_whatever_columns_says(
        job: Path, reference: dict[str, float], monkeypatch: pytest.MonkeyPatch,
        columns: str) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    monkeypatch.setenv("TERM", "dumb")
    res = done(cli(job, *EVAL))
    for metric, value in reference.items():
        assert metric in res.out, res.out
        assert f"{value:.6f}" in res.out, (metric, res.out)


def test_a_comparison_table_at_five_columns_prints_every_mean_whole(
        job: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (job / "r2.txt").write_bytes(RUN.replace(b"0.4 t", b"0.95 t"))
    argv = ("evaluate", "--qrels", "q.txt", "--run", "r.txt", "--run", "r2.txt", "--metrics",
            "ndcg@3,map@10")
    rows = list(__import__("csv").DictReader(io.StringIO(done(cli(job, *argv, "--format",
                                                                      "csv")).out)))
    monkeypatch.setenv("COLUMNS", "5")
    table = done(cli(job, *argv)).out
    for row in rows:
        for key, cell in row.items():
            if key in ("ndcg@3", "map@10"):
                assert f"{float(cell):.4f}" in table, (key, cell, table)


def test_datasets_list_at_twenty_columns_drops_no_licence(
        job: Path, clean_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The licence column got no width at all: every licence silently gone from the table."""
    monkeypatch.setenv("LTRBENCH_DATA_DIR", str(job / "ltr"))
    rows = json.loads(done(cli(job, "datasets", "list", "--format", "json")).out)["datasets"]
    monkeypatch.setenv("COLUMNS", "20")
    def words(text: str) -> set[str]:
        return set(text.translate(str.maketrans("│()", "   ")).split())

    shown = words(done(cli(job, "datasets", "list")).out)
    for row in rows:
        assert words(row["licence"]) <= shown, (row["name"], words(row["licence"]) - shown)


def test_a_conversion_summary_at_twenty_columns_prints_counts_whole(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``16140`` rows were folded into ``1614`` over ``0`` (the column's header width)."""
    from bench.adapters.summary_table import print_summary

    summary = {"name": "ml", "feature_names": ["user_count"], "files": ["train.txt"],
               "partitions": {"train": {"queries": 94300, "rows": 1616140, "features": 9,
                                        "rows_per_query": {"min": 10, "max": 737},
                                        "labels": {"0": 1616140}, "blank_queries": 12345}}}
    monkeypatch.setenv("COLUMNS", "20")
    print_summary(summary, "out")
    cells = set(capsys.readouterr().out.replace("│", " ").split())
    for number in ("94300", "1616140", "12345", "10-737", "0:1616140"):
        assert number in cells, (number, cells)


@pytest.mark.parametrize("argv", [("datasets", "list", "--format", "json"),
                                  ("metrics", "list", "--format", "json"),
                                  (*EVAL, "--format", "json")])
def test_json_stays_strict_under_force_color_dumb_terminal_and_five_columns(
        job: Path, clean_env: None, monkeypatch: pytest.MonkeyPatch,
        argv: tuple[str, ...]) -> None:
    monkeypatch.setenv("LTRBENCH_DATA_DIR", str(job / "ltr"))
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("TERM", "dumb")
    monkeypatch.setenv("COLUMNS", "5")
    out = done(cli(job, *argv)).out
    assert "\x1b" not in out
    json.loads(out)


def test_report_html_with_format_json_writes_the_page_of_this_report(job: Path) -> None:
    """A CI step that wants the JSON on stdout and the page as an artifact: ``--html
    --format json`` exited 0 without writing ``leaderboard.html`` (and the earlier report's
    page was removed with its set)."""
    done(cli(job, "report", "--runs", "res", "--out", "rep", "--no-plots", "--html"))
    res = done(cli(job, "report", "--runs", "res2", "--out", "rep", "--no-plots", "--html",
                   "--format", "json"))
    doc = json.loads(res.out)
    page = (job / "rep" / "leaderboard.html").read_text(encoding="utf-8")
    assert doc["tables"][0]["run_id"] in page
    first = json.loads((job / "rep" / "leaderboard.json").read_text())["tables"][0]["run_id"]
    assert first == doc["tables"][0]["run_id"]


# ------------------------------------------------------------------- a reader that went away


class _Head(io.StringIO):
    """Standard output of ``| head -1``: the first write is read, later ones find the pipe
    closed."""

    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        if self.writes > 1:
            raise BrokenPipeError(errno.EPIPE, "Broken pipe")
        return super().write(text)

    def fileno(self) -> int:  # a real descriptor: rich and ltrbench point it at /dev/null
        if not hasattr(self, "_fd"):
            self._fd = os.open(os.devnull, os.O_WRONLY)
        return self._fd

    def close(self) -> None:
        if hasattr(self, "_fd"):
            os.close(self._fd)
        super().close()



@pytest.mark.parametrize("argv", [("datasets", "list"), ("metrics", "list"),
                                  ("metrics", "list", "--format", "json"),
                                  ("report", "--runs", "res", "--out", "rep", "--no-plots")])
def test_a_listing_or_report_piped_to_head_ends_with_status_0_and_no_traceback(
        job: Path, clean_env: None, monkeypatch: pytest.MonkeyPatch,
        argv: tuple[str, ...]) -> None:
    from bench import cli as bench_cli

    monkeypatch.setenv("LTRBENCH_DATA_DIR", str(job / "ltr"))
    err = io.StringIO()
    old = os.getcwd()
    os.chdir(job)
    head = _Head()
    try:
        with contextlib.redirect_stdout(head), contextlib.redirect_stderr(err):
            status = bench_cli.main(list(argv))
    finally:
        os.chdir(old)
        head.close()
    assert status == 0, err.getvalue()[-800:]
    assert "Traceback" not in err.getvalue()
    assert "error" not in err.getvalue().lower()


def _with_stderr(job: Path, stderr: Any, *argv: str) -> tuple[int | None, str]:
    """``main(argv)`` in ``job`` with ``sys.stderr`` set to ``stderr`` (``None``: started with
    ``2>&-``, as cron and some daemons start a job); (status or None on an exception, stdout)."""
    from bench import cli as bench_cli

    out, saved, old = io.StringIO(), sys.stderr, os.getcwd()
    os.chdir(job)
    sys.stderr = stderr
    try:
        with contextlib.redirect_stdout(out):
            status: int | None = bench_cli.main(list(argv))
    except BaseException:  # a traceback, which would go nowhere
        status = None
    finally:
        sys.stderr = saved
        os.chdir(old)
    return status, out.getvalue()


def _closed_stream() -> io.StringIO:
    stream = io.StringIO()
    stream.close()
    return stream


@pytest.mark.parametrize("stderr", [None, "closed"])
def test_a_run_with_standard_error_closed_and_progress_on_finishes_with_status_0(
        job: Path, stderr: str | None) -> None:
    """``ltrbench run ... 2>&-``: ``sys.stderr.isatty()`` for the progress raised
    AttributeError, exit 1, the run folder left unfinished and nothing said."""
    status, out = _with_stderr(job, None if stderr is None else _closed_stream(), "run",
                               "--dataset", "data", "--models", "random", "--quick",
                               "--seeds", "0", "--out", "quiet")
    assert status == 0, out[-800:]
    runs = list((job / "quiet" / "runs").iterdir())
    assert len(runs) == 1
    assert (runs[0] / "status").is_dir()
    assert "ndcg@10" in out


def test_a_report_with_standard_error_closed_writes_its_files_with_status_0(job: Path) -> None:
    status, out = _with_stderr(job, None, "report", "--runs", "res2", "--out", "rep3",
                               "--no-plots")
    assert status == 0, out[-800:]
    assert (job / "rep3" / "leaderboard.md").is_file()


def test_an_error_with_standard_error_closed_in_process_is_still_status_2(job: Path) -> None:
    status, _ = _with_stderr(job, None, *EVAL[:-1], "missing-run.txt")
    assert status == 2


def test_every_input_of_this_file_is_unchanged(proj: Path) -> None:
    assert (proj / "q.txt").read_bytes() == QRELS
    assert (proj / "r.txt").read_bytes() == RUN
