"""Hostile cases, round 20b: an engineer on a locked-down machine (a shared cluster login node,
a container with no usable home).

The persona's world: ``HOME`` unset, a file or read-only, so the user cache directory (the
default data directory) cannot be made; ``LTRBENCH_DATA_DIR`` a file, under a file, or on a
read-only or full volume; ``TMPDIR`` missing, a file or unusable; the working folder deleted
under the shell; no network (``datasets fetch`` must say which URL failed and what to do);
numba with no folder at all where it may keep its compile cache; umask 077/277; ``LC_ALL=C``
with UTF-8 mode off; a very small ``RLIMIT_NOFILE``. Tests run as root, so the read-only and
full volumes are simulated with monkeypatched OS functions raising ``EROFS``/``ENOSPC``/
``EDQUOT``, and unusable folders with paths under a regular file.

The verdicts (issue 19): a clear error naming the path and what to do, or a working run that
writes only where it was told; never a traceback, never a half-written output left looking
whole, no input destroyed, no silent accept. Each test's class is in its name's comment.
"""

from __future__ import annotations

import errno
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import (
    QRELS,
    RATINGS,
    RUN,
    Res,
    cli,
    csv_values,
    done,
    letor_folder,
    main_status,
    ok,
    pytrec,
    refused,
    snapshot,
    umask,
    untouched,
)

ROOT = Path(__file__).resolve().parents[1]
QUICK = ("--models", "random", "--seeds", "0", "--quick", "--no-progress")
CONVERT = ("convert", "--layout", "csv", "--user", "user", "--item", "item", "--rating",
           "rating", "--timestamp", "timestamp", "--min-history", "2", "--target-size", "2",
           "--features", "user,item")
QRELS_D = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"d": 1, "e": 0}}
RUN_D = {"1": {"a": 0.4, "b": 0.9, "c": 0.1}, "2": {"d": 0.2, "e": 0.8}}
STANDIN = "synthetic-mslr30k:0.0005"


@pytest.fixture(scope="module")
def proj(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A login-node project folder: qrels, run, ratings, a LETOR folder and one finished run."""
    p = tmp_path_factory.mktemp("locked")
    letor_folder(p / "data")
    (p / "q.txt").write_bytes(QRELS)
    (p / "r.txt").write_bytes(RUN)
    (p / "ratings.csv").write_bytes(RATINGS)
    (p / "notes.txt").write_text("a regular file\n")
    old = os.environ.get("LTRBENCH_DATA_DIR")
    os.environ["LTRBENCH_DATA_DIR"] = str(p / "dd")
    try:
        done(cli(p, "run", "--dataset", "data", *QUICK, "--out", "res"))
    finally:
        if old is None:
            os.environ.pop("LTRBENCH_DATA_DIR", None)
        else:
            os.environ["LTRBENCH_DATA_DIR"] = old
    return p


@pytest.fixture
def job(proj: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh copy of the project, its own data directory in ``LTRBENCH_DATA_DIR``."""
    for name in ("data", "res"):
        shutil.copytree(proj / name, tmp_path / name)
    for name in ("q.txt", "r.txt", "ratings.csv", "notes.txt"):
        shutil.copy2(proj / name, tmp_path / name)
    monkeypatch.setenv("LTRBENCH_DATA_DIR", str(tmp_path / "dd"))
    return tmp_path


def ndcg10() -> float:
    return pytrec(QRELS_D, RUN_D, "ndcg_cut_10")


@pytest.fixture
def cwd_gone(job: Path) -> Iterator[Path]:
    """The shell's working folder removed under it (``rm -rf`` from another terminal)."""
    gone = job / "gone"
    gone.mkdir()
    old = os.getcwd()
    os.chdir(gone)
    gone.rmdir()
    try:
        yield job
    finally:
        os.chdir(old)


def in_gone(*argv: str) -> Res:
    """``ltrbench ARGV`` in the deleted working folder (``hostile_kit.cli`` would chdir)."""
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status = main_status(argv, err)
    return Res(status, out.getvalue(), err.getvalue())


# --------------------------------------------------- the data directory cannot be made or used


def test_a_data_dir_variable_naming_a_file_is_refused_by_datasets_info(job: Path) -> None:
    """unclear error: ``LTRBENCH_DATA_DIR=~/notes.txt``: the file and 'not a folder' named."""
    os.environ["LTRBENCH_DATA_DIR"] = str(job / "notes.txt")
    ok(refused(cli(job, "datasets", "info", "mq2008"), "notes.txt", "not a folder"))


def test_a_data_dir_under_a_regular_file_is_refused_by_fetch_naming_the_file(job: Path) -> None:
    """unclear error: the folder cannot be created under a file; the file is named."""
    os.environ["LTRBENCH_DATA_DIR"] = str(job / "notes.txt" / "ltr")
    ok(refused(cli(job, "datasets", "fetch", "ml-latest-small"), "notes.txt", "is a file"))
    assert (job / "notes.txt").read_text() == "a regular file\n"  # input destroyed


def test_a_home_that_is_a_file_names_the_default_data_dir_and_the_remedy(
        job: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """unclear error: ``HOME=/etc/motd``-like: the default data directory and the options."""
    monkeypatch.delenv("LTRBENCH_DATA_DIR")
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(job / "notes.txt"))
    ok(refused(cli(job, "datasets", "list"), "notes.txt", "--data-dir", "LTRBENCH_DATA_DIR"))


def test_metrics_list_needs_no_data_directory_and_no_home(
        job: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """silent accept of a needless dependency: listing metric names touches no data dir."""
    monkeypatch.delenv("LTRBENCH_DATA_DIR")
    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(job / "notes.txt" / "c"))
    res = done(cli(job, "metrics", "list", "--format", "json"))
    assert "ndcg_cut" in res.out


def test_the_data_dir_option_rescues_a_home_that_is_a_file(
        job: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """the remedy the errors give works: ``--data-dir`` alone is enough."""
    monkeypatch.delenv("LTRBENCH_DATA_DIR")
    monkeypatch.setenv("HOME", str(job / "notes.txt"))
    res = done(cli(job, "datasets", "list", "--data-dir", str(job / "mine")))
    assert "mq2008" in res.out


@pytest.fixture
def read_only_dd(job: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The data directory on a read-only volume: making anything under it is EROFS."""
    dd = str(job / "dd")
    real_mkdir = os.mkdir

    def mkdir(path: object, *a: object, **k: object) -> None:
        if os.fspath(path).startswith(dd):  # type: ignore[call-overload]
            raise OSError(errno.EROFS, "Read-only file system", os.fspath(path))  # type: ignore
        real_mkdir(path, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "mkdir", mkdir)
    return job / "dd"


def test_a_stand_in_on_a_read_only_data_dir_names_it_and_the_remedy(
        job: Path, read_only_dd: Path) -> None:
    """unclear error: the generated dataset cannot be written; folder, cause, remedy named."""
    res = cli(job, "run", "--dataset", STANDIN, *QUICK, "--out", "o")
    ok(refused(res, str(read_only_dd), "Read-only", "--data-dir"))
    assert not (job / "o").exists() or not list((job / "o").rglob("metrics.csv"))


def test_a_read_only_parse_cache_still_gives_the_same_numbers(
        job: Path, read_only_dd: Path) -> None:
    """silently wrong number: the cache cannot be written; the run is the cached run's twin."""
    import pandas as pd

    res = done(cli(job, "run", "--dataset", "data", *QUICK, "--out", "o"))
    assert "cache" in res.err  # said, not silent
    got = pd.concat(pd.read_csv(p) for p in (job / "o").rglob("metrics.csv"))
    want = pd.concat(pd.read_csv(p) for p in (job / "res").rglob("metrics.csv"))
    key = ["model", "seed", "split", "metric"]
    assert got.sort_values(key)["value"].tolist() == want.sort_values(key)["value"].tolist()
    assert not read_only_dd.exists()


def test_datasets_list_on_a_read_only_data_dir_still_lists(job: Path, read_only_dd: Path) -> None:
    """traceback: listing must not need to create the folder it lists."""
    assert "ml-latest-small" in done(cli(job, "datasets", "list")).out


def test_fetch_of_a_local_copy_into_a_read_only_data_dir_names_it(
        job: Path, read_only_dd: Path) -> None:
    """unclear error: the copy given with --url cannot be installed; the folder is named."""
    res = cli(job, "datasets", "fetch", "ml-latest-small", "--url", str(job / "ratings.csv"))
    ok(refused(res, str(read_only_dd), "Read-only"))
    assert (job / "ratings.csv").read_bytes() == RATINGS


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EDQUOT], ids=["full", "quota"])
def test_a_full_data_volume_during_fetch_leaves_no_half_dataset(
        job: Path, monkeypatch: pytest.MonkeyPatch, code: int) -> None:
    """half-written output: the download fails for space; nothing in the data directory looks
    installed, and ``datasets list`` does not call it present."""
    import bench.datasets.fetch as fetch

    def full(url: str, target: Path, **_: object) -> str:
        raise OSError(code, os.strerror(code), str(target))

    monkeypatch.setattr(fetch, "_download", full)
    res = cli(job, "datasets", "fetch", "ml-latest-small")
    ok(refused(res, str(job / "dd"), "quota" if code == errno.EDQUOT else "space"))
    left = [p.name for p in (job / "dd").rglob("*")] if (job / "dd").exists() else []
    assert left == [], left


# ------------------------------------------------------------------------------- no network


def _offline(exc: BaseException) -> object:
    def urlopen(*_: object, **__: object) -> object:
        raise exc
    return urlopen


@pytest.mark.parametrize("exc", [
    urllib.error.URLError(socket.gaierror(-3, "Temporary failure in name resolution")),
    urllib.error.URLError(ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused")),
    TimeoutError("timed out"),
    urllib.error.URLError(OSError(errno.ENETUNREACH, "Network is unreachable")),
], ids=["dns", "refused-proxy", "timeout", "unreachable"])
def test_fetch_without_network_names_the_url_and_how_to_install_by_hand(
        job: Path, monkeypatch: pytest.MonkeyPatch, exc: BaseException) -> None:
    """unclear error: "could not download: <urlopen error ...>" said neither that the machine
    has no network nor what to do; the URL, the data directory and ``--url`` must be named."""
    monkeypatch.setattr(urllib.request, "urlopen", _offline(exc))
    res = cli(job, "datasets", "fetch", "ml-latest-small")
    ok(refused(res, "https://files.grouplens.org/datasets/movielens/ml-latest-small.zip",
               "--url", "network"))
    assert not list((job / "dd").rglob("*.csv")) if (job / "dd").exists() else True


def test_fetch_without_network_of_a_per_file_card_names_the_file_url(
        job: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """unclear error: a card fetched file by file names the URL that failed and ``--url``."""
    monkeypatch.setattr(urllib.request, "urlopen", _offline(
        urllib.error.URLError(socket.gaierror(-2, "Name or service not known"))))
    res = cli(job, "datasets", "fetch", "lightgbm-lambdarank")
    ok(refused(res, "https://", "--url", "network"))


def test_a_run_of_a_dataset_not_present_offline_says_how_to_get_it(
        job: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """unclear error: ``run --dataset ml-latest-small`` offline, nothing on disk: says fetch."""
    monkeypatch.setattr(urllib.request, "urlopen", _offline(
        urllib.error.URLError(socket.gaierror(-3, "Temporary failure in name resolution"))))
    res = cli(job, "run", "--dataset", "ml-latest-small", *QUICK, "--out", "o")
    assert not res.traceback, res.err
    assert res.status == 2, res.status
    assert "fetch" in res.err or "--url" in res.err, res.err


def test_fetch_of_a_local_copy_that_is_missing_names_the_path_offline(
        job: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """unclear error: the remedy's own mistake (a typo in ``--url``) names the file given."""
    monkeypatch.setattr(urllib.request, "urlopen", _offline(
        urllib.error.URLError(socket.gaierror(-3, "Temporary failure in name resolution"))))
    res = cli(job, "datasets", "fetch", "ml-latest-small", "--url", str(job / "nope.zip"))
    ok(refused(res, "nope.zip", "--url"))
    assert "network" not in res.err  # not the network's fault
    assert not (job / "dd").exists() or not list((job / "dd").rglob("*.csv"))


def test_evaluate_needs_no_home_and_no_data_directory(
        job: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """silent accept of a needless dependency / traceback: ``env -i``-like: no HOME, no cache
    variables; evaluate reads two files and prints the oracle's number."""
    for name in ("HOME", "LTRBENCH_DATA_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    res = done(cli(job, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--format", "csv",
                   "--metrics", "ndcg_cut_10"))
    assert abs(csv_values(res)["ndcg_cut_10"] - ndcg10()) < 1e-12


# --------------------------------------------------------------------------------- TMPDIR


@pytest.fixture
def no_tmp(monkeypatch: pytest.MonkeyPatch) -> None:
    """No usable temporary folder at all (what ``tempfile`` raises when every candidate fails)."""
    def gettempdir() -> str:
        raise FileNotFoundError(errno.ENOENT, "No usable temporary directory found")

    monkeypatch.setattr(tempfile, "gettempdir", gettempdir)
    monkeypatch.setattr(tempfile, "tempdir", None)
    monkeypatch.setenv("TMPDIR", "/nonexistent-r20bG")


def test_evaluate_with_no_usable_tmpdir_writes_its_per_query_file(job: Path, no_tmp: None) -> None:
    """traceback: the per-query file is written beside itself, not through TMPDIR."""
    res = done(cli(job, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--format", "csv",
                   "--metrics", "ndcg_cut_10", "--per-query", "pq.csv"))
    assert abs(csv_values(res)["ndcg_cut_10"] - ndcg10()) < 1e-12
    assert (job / "pq.csv").read_text().count("\n") >= 3


def test_a_run_with_no_usable_tmpdir_finishes(job: Path, no_tmp: None) -> None:
    """traceback: the quick run needs no temporary folder."""
    done(cli(job, "run", "--dataset", "data", *QUICK, "--out", "o"))
    assert list((job / "o").rglob("metrics.csv"))


def test_a_conversion_with_tmpdir_a_file_writes_only_its_out_folder(
        job: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """writes only where told: nothing made beside the inputs but ``conv``."""
    monkeypatch.setenv("TMPDIR", str(job / "notes.txt"))
    monkeypatch.setattr(tempfile, "tempdir", None)
    before = set(os.listdir(job))
    done(cli(job, *CONVERT, "--ratings", "ratings.csv", "--out", "conv"))
    assert set(os.listdir(job)) - before == {"conv"}
    assert {"train.txt", "vali.txt", "test.txt"} <= set(os.listdir(job / "conv"))


def test_a_report_with_no_usable_tmpdir_writes_every_table(job: Path, no_tmp: None) -> None:
    """traceback / half-written output: the report's set is whole."""
    done(cli(job, "report", "--runs", "res", "--out", "rep", "--no-plots"))
    assert {"leaderboard.csv", "leaderboard.md"} <= set(os.listdir(job / "rep"))


# ------------------------------------------------------------------ the working folder deleted


def test_evaluate_with_absolute_paths_in_a_deleted_folder_gives_the_oracle(
        cwd_gone: Path) -> None:
    """silently wrong number: absolute inputs read as usual from a deleted working folder."""
    res = in_gone("evaluate", "--qrels", str(cwd_gone / "q.txt"), "--run",
                  str(cwd_gone / "r.txt"), "--format", "csv", "--metrics", "ndcg_cut_10")
    assert res.status == 0, res.err
    assert abs(csv_values(res)["ndcg_cut_10"] - ndcg10()) < 1e-12


def test_evaluate_relative_inputs_in_a_deleted_folder_say_the_folder_is_gone(
        cwd_gone: Path) -> None:
    """unclear error: "q.txt: no such file" while q.txt was never the problem."""
    ok(refused(in_gone("evaluate", "--qrels", "q.txt", "--run", "r.txt"), "q.txt",
               "working folder no longer exists"))


def test_report_of_a_relative_run_in_a_deleted_folder_says_the_folder_is_gone(
        cwd_gone: Path) -> None:
    """unclear error: "res: not found: expected a run directory" hid the removed folder."""
    ok(refused(in_gone("report", "--runs", "res", "--out", str(cwd_gone / "rep")),
               "working folder no longer exists"))
    assert not (cwd_gone / "rep").exists()


def test_run_of_a_relative_dataset_folder_in_a_deleted_folder_says_the_folder_is_gone(
        cwd_gone: Path) -> None:
    """unclear error: "unknown dataset 'data'; valid: istella, ..." for a folder that exists
    but cannot be reached from a removed working folder."""
    ok(refused(in_gone("run", "--dataset", "data", *QUICK, "--out", str(cwd_gone / "o")),
               "working folder no longer exists"))
    assert not (cwd_gone / "o").exists()


def test_a_relative_per_query_file_in_a_deleted_folder_is_refused_and_nothing_written(
        cwd_gone: Path) -> None:
    """half-written output: nothing appears anywhere else."""
    before = snapshot(cwd_gone)
    ok(refused(in_gone("evaluate", "--qrels", str(cwd_gone / "q.txt"), "--run",
                       str(cwd_gone / "r.txt"), "--per-query", "pq.csv"),
               "working folder no longer exists"))
    assert snapshot(cwd_gone) == before


def test_convert_to_a_relative_folder_in_a_deleted_folder_is_refused(cwd_gone: Path) -> None:
    """unclear error / traceback: the output folder cannot be made."""
    ok(refused(in_gone(*CONVERT, "--ratings", str(cwd_gone / "ratings.csv"), "--out", "conv"),
               "working folder no longer exists"))


@pytest.mark.parametrize("argv", [("metrics", "list"), ("datasets", "info", "mq2008"),
                                  ("datasets", "list")], ids=["metrics", "info", "list"])
def test_listings_work_in_a_deleted_folder(cwd_gone: Path, argv: tuple[str, ...]) -> None:
    """traceback: nothing relative is read, so nothing fails."""
    res = in_gone(*argv)
    assert res.status == 0, res.err
    assert not res.traceback, res.err


# ---------------------------------------------------------------------------- numba's cache


def _doubled(x: float) -> float:
    return 2.0 * x


def test_a_kernel_with_nowhere_to_keep_numbas_cache_is_compiled_and_used(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """traceback: NUMBA_CACHE_DIR unwritable, the package read-only and no home: numba raised
    "RuntimeError: cannot cache function ...: no locator available" at the import of
    ltrbench's kernels, so even ``evaluate`` of two lines ended in a traceback. The kernel must
    compile in memory, with one warning naming NUMBA_CACHE_DIR."""
    import numba
    import numba.core.caching as caching

    from bench.jit_cache import JitCacheWarning, saves_best_effort

    def unusable(self: object) -> None:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(caching._CacheLocator, "ensure_cache_path", unusable)
    with saves_best_effort(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            kernel = numba.njit(cache=True)(_doubled)
        except RuntimeError as exc:
            pytest.fail(f"traceback: {exc}")
        assert kernel(2.5) == 5.0
    said = [str(w.message) for w in caught if issubclass(w.category, JitCacheWarning)]
    assert said, [str(w.message) for w in caught]
    assert "NUMBA_CACHE_DIR" in said[0], said


def test_numbas_cache_is_still_used_when_a_folder_is_writable(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch
                                                               ) -> None:
    """silent change: the fallback applies only where numba found no folder at all."""
    import numba
    import numba.core.caching as caching

    from bench.jit_cache import saves_best_effort

    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "nc"))
    with saves_best_effort(), warnings.catch_warnings():
        warnings.simplefilter("error")
        kernel = numba.njit(cache=True)(_doubled)
    assert isinstance(kernel._cache, caching.FunctionCache)
    assert str(tmp_path / "nc") in kernel._cache.cache_path


# ----------------------------------------------------------------------------------- umask


def test_umask_0277_is_refused_before_a_per_query_file_is_made(job: Path) -> None:
    """half-written output: a file its owner could not rewrite is never made."""
    with umask(0o277):
        res = cli(job, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query", "p.csv")
    ok(refused(res, "umask", "0277"))
    assert not (job / "p.csv").exists()


def test_umask_0277_is_refused_before_a_conversion_makes_its_folder(job: Path) -> None:
    """half-written output: no ``conv`` folder the owner cannot write into."""
    with umask(0o277):
        res = cli(job, *CONVERT, "--ratings", "ratings.csv", "--out", "conv")
    ok(refused(res, "umask"))
    assert not (job / "conv").exists()


def test_umask_077_gives_a_private_per_query_file_with_the_oracles_number(job: Path) -> None:
    """writes only where told, privately; the number is the oracle's."""
    with umask(0o077):
        res = done(cli(job, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--format", "csv",
                       "--metrics", "ndcg_cut_10", "--per-query", "p.csv"))
    assert abs(csv_values(res)["ndcg_cut_10"] - ndcg10()) < 1e-12
    assert (job / "p.csv").stat().st_mode & 0o077 == 0


def test_umask_0277_refuses_a_fetch_before_any_download(
        job: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """silent accept: under umask 0277 ``datasets fetch`` started the download (a whole
    archive, into folders its owner could not write) before anything refused it."""
    asked: list[object] = []

    def urlopen(url: object, *_: object, **__: object) -> object:
        asked.append(url)
        raise urllib.error.URLError("offline")

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    with umask(0o277):
        res = cli(job, "datasets", "fetch", "ml-latest-small")
    ok(refused(res, "umask", "0277", str(job / "dd")))
    assert asked == []
    assert not (job / "dd").exists()


def test_umask_0277_refuses_a_stand_in_before_the_data_directory_is_made(job: Path) -> None:
    """half-written output: ``run --dataset synthetic-...`` under umask 0277 is refused before
    the data directory is made (a folder of mode 0500 its owner could not write into on the
    next run); the fetch above made one before this round."""
    with umask(0o277):
        res = cli(job, "run", "--dataset", STANDIN, *QUICK, "--out", "o")
    ok(refused(res, "umask", "0277"))
    assert not (job / "dd").exists()
    assert not (job / "o").exists()


# ------------------------------------------------------------------ locale and limits


def test_lc_all_c_without_utf8_mode_prints_the_numbers(proj: Path, tmp_path: Path) -> None:
    """traceback: ``LC_ALL=C PYTHONUTF8=0``: an ASCII standard output and a table of box
    characters and ``±``; the run (one subprocess) ends 0 and prints the oracle's nDCG."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "PYTHONIO"))}
    env.update(LC_ALL="C", LANG="C", PYTHONUTF8="0", PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-m", "bench", "evaluate", "--qrels", "q.txt", "--run",
                        "r.txt", "--metrics", "ndcg_cut_10"], cwd=proj, env=env,
                       capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr[-1500:]
    assert b"Traceback" not in p.stderr
    assert f"{ndcg10():.4f}".encode() in p.stdout, p.stdout


def test_a_tiny_open_file_limit_during_a_run_still_gives_the_cached_runs_numbers(
        proj: Path, job: Path) -> None:
    """silently wrong number: ``ulimit -n`` just above what is open: the run reads the source
    when a cache entry cannot be opened, and its numbers are the first run's."""
    import pandas as pd

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    opened = len(os.listdir("/proc/self/fd"))
    shutil.copytree(proj / "dd", job / "dd")  # the parse cache the first run wrote
    resource.setrlimit(resource.RLIMIT_NOFILE, (opened + 2, hard))
    try:
        res = cli(job, "run", "--dataset", "data", *QUICK, "--out", "o")
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    if res.status == 2:  # refusing is fine when it says what to do
        ok(refused(res, "ulimit"))
        return
    done(res)
    got = pd.concat(pd.read_csv(p) for p in (job / "o").rglob("metrics.csv"))
    want = pd.concat(pd.read_csv(p) for p in (job / "res").rglob("metrics.csv"))
    key = ["model", "seed", "split", "metric"]
    assert got.sort_values(key)["value"].tolist() == want.sort_values(key)["value"].tolist()


def test_inputs_are_unchanged_after_every_case(proj: Path) -> None:
    """input destroyed: the module's shared project is as it was built."""
    assert (proj / "q.txt").read_bytes() == QRELS
    assert (proj / "r.txt").read_bytes() == RUN
    assert (proj / "ratings.csv").read_bytes() == RATINGS
    ok(untouched({"notes.txt": b"a regular file\n"}, proj))
