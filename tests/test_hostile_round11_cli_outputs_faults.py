"""Round 11 (h11e): the command line as a whole, outputs over inputs, and faults, as a hostile
outside tester attacks them.

Every subcommand with an output that is, or lies over, an input (``..``, ``.``, a trailing
``/.``, links, ``/dev/stdout``, ``/proc/self/fd/1``, a FIFO, a socket, a path through a file,
an existing file where a folder is expected), a read-only existing output folder (the tests run
as root, whom ``os.access`` lets write anything: the mode bits decide, as for a read-only output
file), ``--`` separators, ``--opt=`` forms, options of another command, ``$LTRBENCH_DATA_DIR``
variants, a file-size limit (``RLIMIT_FSIZE``: a full disk without being root), SIGINT and
SIGTERM during writes, ``--resume`` on damaged or hand-edited run folders. Oracles: exit 2 and
a message naming the option or path and what was expected; the inputs' bytes unchanged (hashes
before and after); no partial output left.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hostile_kit import QRELS, ROOT, RUN, Res, cli, letor_folder, ok, refused, sub, write

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX paths, signals and limits")
#: a hang guard on a child, not a speed test (two busy cores: minutes)
HANG_S = 600

SMALL_CONVERT = ("--synthetic-users", "30", "--synthetic-items", "200", "--synthetic-ratings",
                 "1200", "--features", "user", "--target-size", "2", "--min-history", "2",
                 "--negatives", "5")


def digest(folder: Path) -> dict[str, str]:
    """sha256 of every regular file below ``folder`` (links not followed)."""
    out = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file() and not p.is_symlink():
            out[str(p.relative_to(folder))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


@pytest.fixture
def pair(tmp_path: Path) -> Path:
    write(tmp_path, {"q.txt": QRELS, "r.txt": RUN})
    return tmp_path


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One finished run (the random baseline on a tiny LETOR folder: seconds)."""
    base = tmp_path_factory.mktemp("h11e-run")
    letor_folder(base / "letor")
    res = cli(base, "run", "--dataset", "letor", "--models", "random", "--seeds", "0",
              "--no-crosscheck", "--no-progress", "--out", "o")
    assert res.status == 0, res.err
    return next((base / "o" / "runs").iterdir())


@pytest.fixture
def run_copy(run_dir: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "res" / "runs" / run_dir.name
    shutil.copytree(run_dir, dest)
    letor_folder(tmp_path / "letor")  # the run's dataset, a path relative to the working folder
    return dest


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[Path]:
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    yield ro
    ro.chmod(0o755)


# ------------------------------------------------------------ read-only existing output folders


def test_run_out_read_only_folder_is_refused_before_any_work(tmp_path: Path,
                                                              read_only: Path) -> None:
    letor_folder(tmp_path / "letor")
    res = cli(tmp_path, "run", "--dataset", "letor", "--models", "random", "--seeds", "0",
              "--no-crosscheck", "--no-progress", "--out", "ro")
    ok(refused(res, "--out", "ro", "read-only"))
    assert list(read_only.iterdir()) == []  # no runs/ folder made


def test_report_out_read_only_folder_is_refused(run_dir: Path, tmp_path: Path,
                                                read_only: Path) -> None:
    res = cli(tmp_path, "report", "--runs", str(run_dir), "--out", "ro", "--no-plots")
    ok(refused(res, "--out", "ro", "read-only"))
    assert list(read_only.iterdir()) == []


def test_convert_out_read_only_folder_is_refused(tmp_path: Path, read_only: Path) -> None:
    res = cli(tmp_path, "convert", "--ratings", "synthetic", *SMALL_CONVERT, "--out", "ro")
    ok(refused(res, "--out", "ro", "read-only"))
    assert list(read_only.iterdir()) == []


def test_tune_out_read_only_folder_is_refused(tmp_path: Path, read_only: Path) -> None:
    letor_folder(tmp_path / "letor")
    res = cli(tmp_path, "tune", "--dataset", "letor", "--model", "lightgbm", "--quick",
              "--budget-trials", "1", "--no-progress", "--out", "ro")
    ok(refused(res, "--out", "ro", "read-only"))
    assert list(read_only.iterdir()) == []


def test_evaluators_out_read_only_folder_is_refused(pair: Path) -> None:
    ro = pair / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        res = cli(pair, "crosscheck", "--evaluators", "--qrels", "q.txt", "--trec-run", "r.txt",
                  "--tools", "pytrec_eval", "--out", "ro")
        ok(refused(res, "--out", "ro", "read-only"))
        assert list(ro.iterdir()) == []
    finally:
        ro.chmod(0o755)


def test_per_query_new_file_in_a_read_only_folder_is_refused(pair: Path) -> None:
    ro = pair / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        res = cli(pair, "evaluate", "--qrels", "q.txt", "--run", "r.txt",
                  "--per-query", "ro/pq.csv")
        ok(refused(res, "--per-query", "ro", "read-only"))
        assert list(ro.iterdir()) == []
    finally:
        ro.chmod(0o755)


def test_a_new_output_folder_under_a_read_only_folder_is_refused(run_dir: Path, tmp_path: Path,
                                                                 read_only: Path) -> None:
    res = cli(tmp_path, "report", "--runs", str(run_dir), "--out", "ro/new/deeper", "--no-plots")
    ok(refused(res, "--out", "ro", "read-only"))
    assert list(read_only.iterdir()) == []


def test_a_writable_folder_inside_a_read_only_one_is_accepted(run_dir: Path,
                                                              tmp_path: Path) -> None:
    parent = tmp_path / "ro"
    (parent / "sub").mkdir(parents=True)
    parent.chmod(0o555)
    try:
        res = cli(tmp_path, "report", "--runs", str(run_dir), "--out", "ro/sub", "--no-plots")
        assert res.status == 0, res.err
        assert (parent / "sub" / "leaderboard.md").is_file()
    finally:
        parent.chmod(0o755)


def test_a_read_only_folder_message_says_what_to_do(tmp_path: Path, read_only: Path) -> None:
    from bench.data.outputs import check_output_dir
    from bench.errors import ConfigError

    with pytest.raises(ConfigError, match=r"--out .*ro.* read-only \(mode 555\).*chmod u\+w"):
        check_output_dir(read_only, option="--out")


def test_a_read_only_data_directory_is_refused_before_a_stand_in_is_generated(
        tmp_path: Path, read_only: Path) -> None:
    res = cli(tmp_path, "run", "--dataset", "synthetic-mslr30k:0.0005", "--models", "random",
              "--seeds", "0", "--no-crosscheck", "--no-progress", "--data-dir", "ro",
              "--out", "res")
    ok(refused(res, "ro", "read-only", "--data-dir"))
    assert list(read_only.iterdir()) == []


# ------------------------------------------------------------------------ outputs over inputs


@pytest.mark.parametrize("spelling", ["q.txt/.", "./q.txt", "sub/../q.txt", "./sub/.././q.txt"])
def test_per_query_spelled_as_the_qrels_is_refused_and_the_qrels_kept(pair: Path,
                                                                     spelling: str) -> None:
    (pair / "sub").mkdir()
    before = digest(pair)
    res = cli(pair, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query", spelling)
    assert res.status == 2, res.err
    assert "--per-query" in res.err, res.err
    assert digest(pair) == before


def test_per_query_through_a_hard_link_of_the_run_is_refused(pair: Path) -> None:
    os.link(pair / "r.txt", pair / "twin.csv")
    before = digest(pair)
    res = cli(pair, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query", "twin.csv")
    ok(refused(res, "--per-query", "twin.csv", "--run"))
    assert digest(pair) == before


@pytest.mark.parametrize("target", ["/dev/stdout", "/proc/self/fd/1", "/dev/full"])
def test_per_query_to_a_device_or_descriptor_is_refused(pair: Path, target: str) -> None:
    res = cli(pair, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query", target)
    ok(refused(res, "--per-query", target))


def test_per_query_through_a_file_as_a_folder_names_the_file(pair: Path) -> None:
    before = digest(pair)
    res = cli(pair, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query", "q.txt/x")
    ok(refused(res, "--per-query", "q.txt", "not a folder"))
    assert digest(pair) == before


def test_convert_out_socket_is_refused(tmp_path: Path) -> None:
    s = socket.socket(socket.AF_UNIX)
    try:
        s.bind(str(tmp_path / "sock"))
        res = cli(tmp_path, "convert", "--ratings", "synthetic", *SMALL_CONVERT, "--out", "sock")
        ok(refused(res, "--out", "sock", "socket"))
    finally:
        s.close()


def test_report_out_fifo_is_refused_without_blocking(run_dir: Path, tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "ff")
    res = sub(tmp_path, "report", "--runs", str(run_dir), "--out", "ff", "--no-plots",
              timeout=HANG_S)
    ok(refused(res, "--out", "ff", "FIFO"))


def test_tune_out_existing_file_is_refused(tmp_path: Path) -> None:
    letor_folder(tmp_path / "letor")
    (tmp_path / "res").write_text("keep me\n")
    res = cli(tmp_path, "tune", "--dataset", "letor", "--model", "lightgbm", "--quick",
              "--budget-trials", "1", "--out", "res")
    ok(refused(res, "--out", "res", "file"))
    assert (tmp_path / "res").read_text() == "keep me\n"


def test_run_out_is_the_dataset_folder_spelled_with_a_trailing_dot(tmp_path: Path) -> None:
    letor_folder(tmp_path / "letor")
    before = digest(tmp_path / "letor")
    res = cli(tmp_path, "run", "--dataset", "letor", "--models", "random", "--seeds", "0",
              "--out", "letor/.")
    ok(refused(res, "--out", "letor"))
    assert digest(tmp_path / "letor") == before


def test_run_out_through_a_symlink_to_the_dataset_is_refused(tmp_path: Path) -> None:
    letor_folder(tmp_path / "letor")
    (tmp_path / "alias").symlink_to(tmp_path / "letor")
    before = digest(tmp_path / "letor")
    res = cli(tmp_path, "run", "--dataset", "letor", "--models", "random", "--seeds", "0",
              "--out", "alias")
    ok(refused(res, "--out", "alias", "--dataset"))
    assert digest(tmp_path / "letor") == before


def test_convert_out_is_the_ratings_folder_with_a_train_txt_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    header = "user,item,rating,timestamp\n"
    rows = "".join(f"{u},{i},{(u + i) % 5 + 1},{100 * u + i}\n"
                   for u in range(1, 30) for i in range(1, 20))
    (data / "train.txt").write_text(header + rows)
    before = digest(data)
    res = cli(tmp_path, "convert", "--ratings", "data/train.txt", "--user", "user", "--item",
              "item", "--rating", "rating", "--timestamp", "timestamp", "--out", "data/.")
    ok(refused(res, "--out", "train.txt"))
    assert digest(data) == before


def test_reproduce_out_inside_the_run_it_reads_is_refused(run_copy: Path, tmp_path: Path) -> None:
    before = digest(run_copy)
    res = cli(tmp_path, "reproduce", "--run", str(run_copy), "--out", str(run_copy / "status"))
    ok(refused(res, "--out", "--run"))
    assert digest(run_copy) == before


def test_crosscheck_out_is_the_run_it_reads_is_refused(run_copy: Path, tmp_path: Path) -> None:
    before = digest(run_copy)
    res = cli(tmp_path, "crosscheck", "--run", str(run_copy), "--out", str(run_copy))
    ok(refused(res, "--out", "--run"))
    assert digest(run_copy) == before
    assert not (run_copy / "letor").exists()


def test_crosscheck_out_whose_dataset_folder_is_the_run_is_refused(run_copy: Path,
                                                                    tmp_path: Path) -> None:
    """The report goes to ``<out>/<dataset>/``: a run folder that is that very folder (the run
    copied to ``out/letor``) would get ``crosscheck.md`` among its files."""
    from bench.runs.naming import dataset_slug
    from bench.runs.reader import RunDir

    (slug,) = {dataset_slug(d) for d in RunDir(run_copy).datasets()}
    there = tmp_path / "out" / slug
    shutil.copytree(run_copy, there)
    before = digest(there)
    res = cli(tmp_path, "crosscheck", "--run", str(there), "--out", str(tmp_path / "out"))
    ok(refused(res, "--out", "--run"))
    assert digest(there) == before


def test_versions_out_through_a_file_is_refused(pair: Path) -> None:
    res = cli(pair, "crosscheck-versions", "lightgbm==installed", "--out", "q.txt/defs")
    ok(refused(res, "--out", "q.txt"))


def test_perf_startup_out_over_its_own_run_input_is_refused(pair: Path) -> None:
    before = digest(pair)
    res = cli(pair, "perf", "startup", "--qrels", "q.txt", "--run", "r.txt", "--out", "r.txt")
    assert res.status == 2, res.err
    assert "--out" in res.err, res.err
    assert not res.traceback, res.err
    assert digest(pair) == before


# ---------------------------------------------------------------------- the command line itself


def test_an_option_after_a_double_dash_is_said_to_be_positional(pair: Path) -> None:
    res = cli(pair, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--", "--per-query", "x")
    ok(refused(res, "'--'"))
    assert "did you mean --per-query?" not in res.err
    assert not (pair / "x").exists()


def test_a_double_dash_with_a_command_that_takes_no_words_names_it(pair: Path) -> None:
    res = cli(pair, "report", "--", "extra")
    ok(refused(res, "extra", "'--'"))


def test_a_dash_leading_leaderboard_after_double_dash_is_read_as_a_path(tmp_path: Path) -> None:
    (tmp_path / "-lb.md").write_text("# not a leaderboard\n")
    res = cli(tmp_path, "reproduce", "--", "-lb.md")
    ok(refused(res, "-lb"))


@pytest.mark.parametrize(("argv", "option"), [
    (("run", "--out="), "--out"),
    (("report", "--out="), "--out"),
    (("convert", "--ratings", "synthetic", "--out="), "--out"),
    (("tune", "--out=", "--model", "lightgbm"), "--out"),
    (("reproduce", "--out="), "--out"),
    (("evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query="), "--per-query"),
])
def test_an_empty_equals_output_is_refused_naming_the_option(pair: Path, argv: tuple[str, ...],
                                                             option: str) -> None:
    ok(refused(cli(pair, *argv), option, "empty"))


@pytest.mark.parametrize(("argv", "option"), [
    (("evaluate", "--qrels", "q.txt", "--run", "r.txt", "--out", "x"), "--out"),
    (("run", "--per-query", "x"), "--per-query"),
    (("report", "--resume"), "--resume"),
    (("convert", "--ratings", "synthetic", "--out", "x", "--models", "random"), "--models"),
    (("metrics", "list", "--out", "x"), "--out"),
    (("datasets", "list", "--runs", "x"), "--runs"),
])
def test_an_option_of_another_command_is_refused_by_name(pair: Path, argv: tuple[str, ...],
                                                         option: str) -> None:
    ok(refused(cli(pair, *argv), option))
    assert not (pair / "x").exists()


def test_two_different_outputs_are_refused(pair: Path) -> None:
    res = cli(pair, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query", "a.csv",
              "--per-query=b.csv")
    ok(refused(res, "--per-query", "twice"))
    assert not (pair / "a.csv").exists()
    assert not (pair / "b.csv").exists()


# --------------------------------------------------------------------------- $LTRBENCH_DATA_DIR


def _env_run(tmp_path: Path, value: str, *argv: str) -> Res:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LTRBENCH_DATA_DIR": value}
    p = subprocess.run([sys.executable, "-m", "bench", *argv], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=HANG_S)
    return Res(p.returncode, p.stdout, p.stderr)


def test_data_dir_variable_naming_a_fifo_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "ff")
    res = _env_run(tmp_path, str(tmp_path / "ff"), "datasets", "list")
    ok(refused(res, "LTRBENCH_DATA_DIR", "ff"))


def test_data_dir_variable_with_empty_entries_reads_the_others(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    res = _env_run(tmp_path, f"::{tmp_path / 'd'}::", "datasets", "list")
    assert res.status == 0, res.err
    assert not res.traceback, res.err


@pytest.mark.parametrize("via", ["env", "option"])
def test_a_data_directory_through_a_file_names_the_variable_and_the_file(pair: Path,
                                                                        via: str) -> None:
    argv = ("run", "--dataset", "synthetic-mslr30k:0.0005", "--models", "random", "--seeds", "0",
            "--no-crosscheck", "--no-progress", "--out", "res")
    if via == "env":
        res = _env_run(pair, "q.txt/sub", *argv)
        ok(refused(res, "$LTRBENCH_DATA_DIR", "q.txt/sub", "is a file"))
    else:
        ok(refused(cli(pair, *argv, "--data-dir", "q.txt/sub"), "--data-dir", "q.txt",
                   "is a file"))
    assert (pair / "q.txt").read_bytes() == QRELS


def test_data_dir_option_through_a_file_is_refused(pair: Path) -> None:
    before = digest(pair)
    res = cli(pair, "datasets", "fetch", "ohsumed", "--data-dir", "q.txt/sub")
    ok(refused(res, "q.txt"))
    assert digest(pair) == before


# ------------------------------------------------------------------------------ faults


def _limited(cwd: Path, limit: int, *argv: str) -> Res:
    """``python -m bench ARGV`` with files capped at ``limit`` bytes (``RLIMIT_FSIZE``: a write
    beyond it fails with EFBIG, as a full disk fails with ENOSPC; Python ignores SIGXFSZ)."""
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.run([sys.executable, "-m", "bench", *argv], cwd=cwd, env=env,
                       capture_output=True, text=True, timeout=300, preexec_fn=cap)
    return Res(p.returncode, p.stdout, p.stderr)


def _big_pair(folder: Path, n: int) -> None:
    q = "".join(f"q{i} 0 d{i}a 1\nq{i} 0 d{i}b 0\n" for i in range(n))
    r = "".join(f"q{i} Q0 d{i}a 1 0.{i % 9 + 1} t\nq{i} Q0 d{i}b 2 0.05 t\n" for i in range(n))
    (folder / "q.txt").write_text(q)
    (folder / "r.txt").write_text(r)


def test_a_file_size_limit_while_writing_per_query_names_the_file_and_leaves_nothing(
        tmp_path: Path) -> None:
    # 15,000 queries: a 394 KB per-query file against a 256 KiB limit (was 60,000 and 1 MiB,
    # the same ratio at four times the evaluation)
    _big_pair(tmp_path, 15_000)
    before = digest(tmp_path)
    res = _limited(tmp_path, 1 << 18, "evaluate", "--qrels", "q.txt", "--run", "r.txt",
                   "--metrics", "ndcg@10,map,mrr,p@5,recall@10", "--per-query", "pq.csv")
    ok(refused(res, "pq.csv", "too large"))
    assert digest(tmp_path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q.txt", "r.txt"]  # no temporary


def test_a_file_size_limit_during_convert_leaves_no_partial_set(tmp_path: Path) -> None:
    # a 854 KB train.txt against a 256 KiB limit (was 400 users, 2,000 items, 40,000 ratings
    # against 1 MiB: a 3.4 MB train.txt, the same ratio at four times the work)
    res = _limited(tmp_path, 1 << 18, "convert", "--ratings", "synthetic", "--synthetic-users",
                   "100", "--synthetic-items", "500", "--synthetic-ratings", "10000",
                   "--features", "user,item", "--out", "cv")
    ok(refused(res, "cv", "too large"))
    left = sorted(p.name for p in (tmp_path / "cv").iterdir()) if (tmp_path / "cv").exists() else []
    assert left == [], left  # no .set-*.tmp, no train.txt without its test.txt


def test_numba_saves_its_cache_best_effort_under_a_file_size_limit(tmp_path: Path) -> None:
    """A kernel compiled while its cache cannot be written (RLIMIT_FSIZE of 1 KiB, an empty
    NUMBA_CACHE_DIR) is used and said, not a bare 'File too large'."""
    code = (
        "import resource, warnings\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))\n"
        "from bench.jit_cache import saves_best_effort\n"
        "with warnings.catch_warnings(record=True) as seen, saves_best_effort():\n"
        "    warnings.simplefilter('always')\n"
        "    import numba\n"
        "    f = numba.njit(cache=True)(lambda x: x * 3 + 1)\n"
        "    print(f(4))\n"
        "print([type(w.message).__name__ for w in seen])\n"
    )
    (tmp_path / "probe.py").write_text(code)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_CACHE_DIR": str(tmp_path / "nc")}
    p = subprocess.run([sys.executable, "probe.py"], cwd=tmp_path, env=env, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "13"
    assert "JitCacheWarning" in lines[1]


def test_a_failed_cache_save_is_a_warning_naming_the_cause() -> None:
    import errno
    import types

    from bench import jit_cache

    class Cache:
        def save_overload(self, sig: object, data: object) -> None:
            raise OSError(errno.ENOSPC, "No space left on device", "/pkg/__pycache__/k.nbi")

    fake = types.ModuleType("fake_caching")
    fake.Cache = Cache  # type: ignore[attr-defined]
    jit_cache._patch(fake)
    jit_cache._patch(fake)  # once only
    with pytest.warns(jit_cache.JitCacheWarning, match=r"/pkg/__pycache__/k.nbi: No space left"):
        Cache().save_overload(None, None)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
@pytest.mark.parametrize("argv", [("metrics", "list"),
                                  ("evaluate", "--qrels", "q.txt", "--run", "r.txt")])
def test_standard_output_on_a_full_device_is_named(pair: Path, argv: tuple[str, ...]) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with open("/dev/full", "w") as full:
        p = subprocess.run([sys.executable, "-m", "bench", *argv], cwd=pair, env=env,
                           stdout=full, stderr=subprocess.PIPE, text=True, timeout=HANG_S)
    ok(refused(Res(p.returncode, "", p.stderr), "standard output", "No space left"))
    assert "MB free" not in p.stderr  # not the working folder's free space
    assert "Exception ignored" not in p.stderr


def test_standard_output_cut_at_the_file_size_limit_is_an_error(tmp_path: Path) -> None:
    """``metrics list > file`` under ``ulimit -f``: Python's text layer dropped the rest of the
    listing without a word (exit 0, 1 KiB of 32)."""
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with open(tmp_path / "list.txt", "w") as out:
        p = subprocess.run([sys.executable, "-m", "bench", "metrics", "list"], cwd=tmp_path,
                           env=env, stdout=out, stderr=subprocess.PIPE, text=True,
                           timeout=HANG_S, preexec_fn=cap)
    ok(refused(Res(p.returncode, "", p.stderr), "standard output", "file-size limit"))


def _signal_while_writing(cwd: Path, sig: int, watch: Path, *argv: str) -> tuple[int, str]:
    """Start ``python -m bench ARGV`` and send ``sig`` as soon as a new entry appears in
    ``watch`` (the command began writing its output: a temporary file or folder), or not at
    all when it ends first. Returns (status, stderr). Every outcome is judged by the caller:
    killed before the handler was set or stopped mid-write (-sig: the process ends by the signal
    after its clean-up; the message tells them apart), or finished (0)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    watch.mkdir(exist_ok=True)
    before = set(os.listdir(watch))
    p = subprocess.Popen([sys.executable, "-m", "bench", *argv], cwd=cwd, env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + HANG_S
    while p.poll() is None and time.monotonic() < deadline:
        if set(os.listdir(watch)) - before:
            p.send_signal(sig)
            break
        time.sleep(0.002)
    _, err = p.communicate(timeout=HANG_S)
    return p.returncode, err


@pytest.mark.parametrize(("sig", "status"), [(signal.SIGINT, -signal.SIGINT),  # ended by it
                                             (signal.SIGTERM, -signal.SIGTERM)])
def test_a_signal_while_convert_writes_leaves_no_half_file(tmp_path: Path, sig: int,
                                                           status: int) -> None:
    out = tmp_path / "cv"
    rc, err = _signal_while_writing(tmp_path, sig, out, "convert", "--ratings", "synthetic",
                                    "--synthetic-users", "300", "--synthetic-items", "3000",
                                    "--synthetic-ratings", "30000", "--out", "cv")
    assert "Traceback" not in err, err
    left = sorted(p.name for p in out.iterdir())
    if rc == 0:  # finished before the signal: the whole set is there, no temporary
        assert "test.txt" in left, left
        assert not [n for n in left if n.startswith(".")], left
        return
    assert rc == status, err
    assert "files already written are complete" in err
    assert left == [], left  # no .set-*.tmp, no train.txt without its test.txt


def test_a_sigint_while_report_writes_leaves_the_earlier_report_whole(run_dir: Path,
                                                                     tmp_path: Path) -> None:
    out = tmp_path / "rep"
    first = cli(tmp_path, "report", "--runs", str(run_dir), "--out", "rep")
    assert first.status == 0, first.err
    before = digest(out)
    (out / "leaderboard.md").write_text((out / "leaderboard.md").read_text())  # same bytes
    rc, err = _signal_while_writing(tmp_path, signal.SIGINT, out, "report", "--runs",
                                    str(run_dir), "--out", "rep", "--html")
    assert "Traceback" not in err, err
    assert rc in (0, -signal.SIGINT), err  # Ctrl-C ends the process by SIGINT (shell: 130)
    names = sorted(p.name for p in out.iterdir())
    assert not [n for n in names if n.startswith(".set-")], names  # no temporary left
    if rc == -signal.SIGINT:  # stopped: the earlier report is there, whole, byte for byte
        assert digest(out) == before
        assert "files already written are complete" in err
    else:  # finished before the signal: the new report is there
        assert (out / "leaderboard.md").is_file(), names


def test_a_sigterm_while_evaluate_writes_leaves_no_per_query_file(tmp_path: Path) -> None:
    _big_pair(tmp_path, 150_000)
    before = digest(tmp_path)
    rc, err = _signal_while_writing(tmp_path, signal.SIGTERM, tmp_path, "evaluate", "--qrels",
                                    "q.txt", "--run", "r.txt", "--per-query", "pq.csv")
    assert "Traceback" not in err, err
    names = sorted(p.name for p in tmp_path.iterdir())
    assert rc in (0, -signal.SIGTERM), err  # ended by SIGTERM after its clean-up (shell: 143)
    if rc == 0 or names != ["q.txt", "r.txt"]:  # written before the signal: whole, no temporary
        assert names == ["pq.csv", "q.txt", "r.txt"], names
        assert len((tmp_path / "pq.csv").read_text().splitlines()) == 1 + 150_000
    assert {k: v for k, v in digest(tmp_path).items() if k != "pq.csv"} == before


# ----------------------------------------------------------------- run folders edited by hand


def test_resume_of_a_run_whose_config_toml_was_removed_names_the_file(run_copy: Path,
                                                                      tmp_path: Path) -> None:
    (run_copy / "config.toml").unlink()
    res = cli(tmp_path, "run", "--resume", str(run_copy))
    ok(refused(res, "config.toml", "missing", "--config"))


def test_resume_of_a_run_whose_config_toml_is_a_folder_names_the_file(run_copy: Path,
                                                                      tmp_path: Path) -> None:
    (run_copy / "config.toml").unlink()
    (run_copy / "config.toml").mkdir()
    res = cli(tmp_path, "run", "--resume", str(run_copy))
    ok(refused(res, "config.toml", "not a regular file"))


def test_resume_of_a_run_whose_config_was_edited_is_refused(run_copy: Path,
                                                            tmp_path: Path) -> None:
    cfg = run_copy / "config.toml"
    cfg.write_text(cfg.read_text().replace('"ndcg@1",', '"ndcg@2",', 1))
    before = digest(run_copy)
    res = cli(tmp_path, "run", "--resume", str(run_copy))
    ok(refused(res, str(run_copy), "config.toml", "manifest.json", "edited"))
    assert digest(run_copy) == before


def test_resume_of_a_manifest_that_is_a_number_is_refused(run_copy: Path, tmp_path: Path) -> None:
    (run_copy / "manifest.json").write_text("5\n")
    res = cli(tmp_path, "run", "--resume", str(run_copy))
    ok(refused(res, "manifest.json", "JSON object"))


def test_resume_of_a_manifest_without_its_dataset_is_refused(run_copy: Path,
                                                             tmp_path: Path) -> None:
    m = run_copy / "manifest.json"
    doc = json.loads(m.read_text())
    doc.pop("dataset", None)
    doc["finished"] = None
    m.write_text(json.dumps(doc))
    res = cli(tmp_path, "run", "--resume", str(run_copy))
    ok(refused(res, "manifest.json", "dataset"))


def test_tune_resume_on_a_run_folder_is_refused(run_copy: Path, tmp_path: Path) -> None:
    before = digest(run_copy)
    res = cli(tmp_path, "tune", "--resume", str(run_copy))
    ok(refused(res, "--resume", "tune folder"))
    assert digest(run_copy) == before


def test_report_over_a_run_whose_status_folder_became_a_file(run_copy: Path,
                                                             tmp_path: Path) -> None:
    shutil.rmtree(run_copy / "status")
    (run_copy / "status").write_text("x")
    res = cli(tmp_path, "run", "--resume", str(run_copy))
    ok(refused(res, "status"))


def test_a_read_only_output_file_mode_is_the_rule_for_folders_too(tmp_path: Path) -> None:
    """The rule is the mode bits for files and folders alike (root writes through both)."""
    from bench.data.outputs import check_output_file
    from bench.errors import ConfigError

    f = tmp_path / "pq.csv"
    f.write_text("x\n")
    f.chmod(0o444)
    with pytest.raises(ConfigError, match="read-only"):
        check_output_file(f, option="--per-query")
    assert stat.S_IMODE(f.stat().st_mode) == 0o444


# ------------------------------------------------------------------ leftovers of earlier rounds


def test_an_adapter_config_error_carries_its_key_typed() -> None:
    from bench.adapters.config import AdapterConfig
    from bench.errors import ConfigError

    with pytest.raises(ConfigError) as caught:
        AdapterConfig(negatives=-1)
    assert caught.value.key == "negatives"
    assert str(caught.value) == f"negatives={caught.value.detail}"
    assert str(caught.value.renamed("--negatives")).startswith("--negatives -1 must be")


def test_an_error_without_a_key_is_kept_whole_by_renamed() -> None:
    from bench.errors import ConfigError

    err = ConfigError("a=b is not a key error")
    assert err.key is None
    assert err.renamed("--x") is err


@pytest.mark.parametrize(("argv", "words"), [
    (("--negatives", "-1"), ("--negatives -1", "integer")),
    (("--folds", "4"), ("--folds 4", "kfold")),
    (("--binary-threshold", "3"), ("--binary-threshold 3.0", "labels")),
    (("--features", "nosuch"), ("nosuch", "valid groups")),
])
def test_convert_names_the_option_of_the_key_it_refuses(tmp_path: Path, argv: tuple[str, ...],
                                                        words: tuple[str, ...]) -> None:
    ok(refused(cli(tmp_path, "convert", "--ratings", "synthetic", "--out", "cv", *argv), *words))
    assert not (tmp_path / "cv").exists()


def test_the_door_rows_of_evaluate_and_crosscheck_are_one_definition() -> None:
    from bench.commands.text import DOOR

    for option in ("--qrels", "--scores"):
        assert DOOR[("evaluate", option)] is DOOR[("crosscheck", option)] or (
            DOOR[("evaluate", option)] == DOOR[("crosscheck", option)])
    assert DOOR[("evaluate", "--run")][1:] == DOOR[("crosscheck", "--trec-run")][1:]
    assert DOOR[("evaluate", "--run")][2] is DOOR[("crosscheck", "--trec-run")][2]
    assert DOOR[("crosscheck", "--run")][2] is DOOR[("reproduce", "--run")][2]


def test_the_cli_imports_its_door_where_the_import_reader_sees_it() -> None:
    import ast

    tree = ast.parse((ROOT / "bench" / "cli.py").read_text(encoding="utf-8"))
    named = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert "bench.commands.text" in named


def test_a_resumed_run_reads_its_manifest_once_under_the_lock(
        run_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.benchmark import pipeline
    from bench.runs import manifest as manifest_module

    reads: list[str] = []
    real = pipeline.read_run_manifest

    def counted(run: Path, **kw: object) -> dict[str, object]:
        reads.append("checked")
        return real(run, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(pipeline, "read_run_manifest", counted)
    monkeypatch.setattr(manifest_module.ManifestWriter, "open",
                        classmethod(lambda cls, run: pytest.fail("a second read of the manifest")))
    res = cli(tmp_path, "run", "--resume", str(run_copy))
    assert res.status == 0, res.err
    assert reads == ["checked"]  # once: under the run's lock, before any data are loaded


@pytest.mark.parametrize("spec", ["synthetic-mslr30k:0.01:Fold6", "synthetic-mslr30k:Fold03",
                                  "synthetic-yahoo:Fold0"])
def test_the_fold_range_of_a_generated_dataset_has_one_owner(spec: str) -> None:
    from bench.datasets import folds
    from bench.datasets.catalogue import get_card
    from bench.datasets.resolve import resolve_spec
    from bench.errors import ConfigError

    messages = []
    for fn in (get_card, resolve_spec):
        with pytest.raises(ConfigError) as caught:
            fn(spec)
        messages.append(str(caught.value))
    head, fold = folds.fold_suffix(spec)
    with pytest.raises(ConfigError) as own:
        folds.fold_number(spec, fold or "", name=head.split(":")[0])
    assert messages == [str(own.value)] * 2
    assert "Fold1 .. " in messages[0]
