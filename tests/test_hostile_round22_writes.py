"""Round 22, helper C: every command that writes, under every fault (issue 19 item 4: "a failed or
interrupted run loses nothing already written", and nothing half-written is left looking whole).

Earlier rounds tried outputs over an input of the same command, hard and symbolic links,
/dev/full, FIFOs, full disks and kills between renames. These are their siblings: an output
over an input of *another* kind (a dataset folder of the data directory, a run folder), a path
through a symlinked parent or ending in ``/.``, and faults injected in-process (ENOSPC, EIO,
EACCES on the final rename, Ctrl-C between two files) on the writers those rounds did not
reach: ``datasets fetch --force``, ``write_svmlight``'s sidecar, ``write_query_shards``.
Also: SIGTERM / SIGHUP end the process by the signal (as Ctrl-C does), ``datasets fetch``
judges a present folder and one fetched meanwhile by one rule, and the manifest's
``git.dirty`` is about the code, not the results.

Each case names its class of issue 19 in its id: traceback / wrong number / input destroyed /
silent accept / unclear error. Oracles: the bytes written before the fault (``snapshot``).
"""

from __future__ import annotations

import errno
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hostile_kit import (
    DATA,
    QRELS,
    RATINGS,
    ROOT,
    RUN,
    cli,
    done,
    letor_folder,
    ok,
    own_error,
    refused,
    snapshot,
    toy_ratings_card,
    untouched,
)

CONVERT = ("--layout", "csv", "--user", "user", "--item", "item", "--rating", "rating",
           "--timestamp", "timestamp", "--target-size", "2", "--min-history", "2",
           "--no-parquet")


def _boom(code: int) -> OSError:
    return OSError(code, os.strerror(code))


def _nth(real: Any, n: int, exc: BaseException) -> Any:
    """``real`` that raises ``exc`` at its ``n``-th call (1-based), else calls through."""
    calls = [0]

    def wrapped(*a: Any, **kw: Any) -> Any:
        calls[0] += 1
        if calls[0] == n:
            raise exc
        return real(*a, **kw)
    return wrapped


def _temporaries(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                  if p.name.startswith(".") and (".tmp" in p.name or "fetch-" in p.name
                                                 or p.name.startswith(".set-")))


# ------------------------------------------------------------------------- SIGTERM / SIGHUP


_SELF_SIGNAL = """
import atexit, os, signal, sys, time
import bench.cli as c
import bench.commands.datasets as d
atexit.register(lambda: print("atexit ran", file=sys.stderr))
def stopped(args):
    os.kill(os.getpid(), signal.{sig})
    time.sleep(5)
    return 0
d.cmd_list = stopped
sys.argv = ["ltrbench", "datasets", "list"]
raise SystemExit(c.main())
"""


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP"])
def test_unclear_error_a_stop_signal_ends_the_process_by_that_signal(sig: str) -> None:
    """A shell or supervisor learns that the child *died of* the signal (returncode -15 / -1,
    the shell's 143 / 129), as after Ctrl-C (-2); the one line and the clean-up stay, the
    ``atexit`` handlers included (they ran at the ``exit(143)``)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.run([sys.executable, "-c", _SELF_SIGNAL.format(sig=sig)], env=env,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == -getattr(signal, sig), (p.returncode, p.stderr[-600:])
    assert "Traceback" not in p.stderr, p.stderr
    assert "files already written are complete" in p.stderr, p.stderr
    assert "atexit ran" in p.stderr, p.stderr


def test_unclear_error_in_process_a_stop_signal_is_still_a_status(tmp_path: Path,
                                                                  monkeypatch: Any) -> None:
    """``main([...])`` from Python returns 143 (never kills the caller's process) and puts the
    default handler back."""
    import bench.commands.datasets as datasets_command

    def stopped(args: Any) -> int:
        os.kill(os.getpid(), signal.SIGTERM)
        return 0

    monkeypatch.setattr(datasets_command, "cmd_list", stopped)
    res = cli(tmp_path, "datasets", "list")
    assert res.status == 143, res
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


# ------------------------------------------------------------------------------ datasets fetch


def _toy(tmp: Path, *, unknown: bool = False) -> tuple[Any, Path]:
    contents = {"ratings.csv": RATINGS}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for k, v in contents.items():
            z.writestr(f"toy/{k}", v)
    (tmp / "toy.zip").write_bytes(buf.getvalue())
    card = toy_ratings_card(contents)
    if unknown:
        from dataclasses import replace

        card = replace(card, files={"ratings.csv": "unknown"})
    return card, tmp / "toy.zip"


def _fetch(card: Any, url: Path, data: Path, **kw: Any) -> Path:
    from bench.datasets.fetch import fetch

    said: list[str] = []
    return fetch(card, url=str(url), data_dir=data, progress=False, log=said.append, **kw)


@pytest.mark.parametrize("fault", [_boom(errno.EIO), KeyboardInterrupt()], ids=["EIO", "ctrl-c"])
def test_input_destroyed_fetch_force_failing_at_its_rename_keeps_the_previous_copy(
        tmp_path: Path, monkeypatch: Any, fault: BaseException) -> None:
    """``fetch --force`` moves the present copy aside, then renames the new one in: a fault at
    that rename (EIO, Ctrl-C) deleted the previous copy with the staging folder (nothing left)."""
    card, url = _toy(tmp_path)
    data = tmp_path / "data"
    folder = _fetch(card, url, data)
    before = snapshot(folder)
    monkeypatch.setattr(os, "rename", _nth(os.rename, 2, fault))
    with pytest.raises(type(fault)):
        _fetch(card, url, data, force=True)
    monkeypatch.undo()
    ok(untouched(before, folder))
    assert _temporaries(data) == []


def test_silent_accept_fetch_finds_a_present_copy_changed_since_it_was_fetched(
        tmp_path: Path) -> None:
    """A card without digests: the fetch record holds the digest each file had when fetched; a
    present copy whose file changed since (cut by a full disk, edited) is not 'already
    present' (it was, unread)."""
    card, url = _toy(tmp_path, unknown=True)
    data = tmp_path / "data"
    folder = _fetch(card, url, data)
    (folder / "ratings.csv").write_bytes(RATINGS[: len(RATINGS) // 2])
    ok(own_error(lambda: _fetch(card, url, data), "ratings.csv", "--force"))


def test_silent_accept_fetch_still_accepts_an_untouched_copy_without_card_digests(
        tmp_path: Path) -> None:
    card, url = _toy(tmp_path, unknown=True)
    data = tmp_path / "data"
    folder = _fetch(card, url, data)
    before = snapshot(folder)
    assert _fetch(card, url, data) == folder
    ok(untouched(before, folder))


def _another_fetch_meanwhile(monkeypatch: Any, dest: Path, change: bytes | None = None) -> None:
    """While this fetch downloads, another one renames its whole copy in first."""
    from bench.datasets import fetch as fetch_mod

    real = fetch_mod._verify_download

    def meanwhile(card: Any, root: Path, url: Any) -> Any:
        report = real(card, root, url)
        shutil.copytree(root, dest)
        files = {f.path: f.actual for f in report.files}
        (dest / fetch_mod.FETCH_RECORD).write_text(json.dumps({"name": "toy", "files": files}))
        if change is not None:
            (dest / "ratings.csv").write_bytes(change)
        return report

    monkeypatch.setattr(fetch_mod, "_verify_download", meanwhile)


def test_unclear_error_a_copy_fetched_meanwhile_is_judged_as_a_present_one(
        tmp_path: Path, monkeypatch: Any) -> None:
    """One rule for 'present' and 'fetched meanwhile': a whole copy of a card without digests,
    renamed in by another fetch, is taken (it was refused as 'folder already exists', while
    the same folder found before the download was 'already present')."""
    card, url = _toy(tmp_path, unknown=True)
    data = tmp_path / "data"
    _another_fetch_meanwhile(monkeypatch, data / "toy")
    got = _fetch(card, url, data)
    assert got == data / "toy"
    assert (got / "ratings.csv").read_bytes() == RATINGS
    assert _temporaries(data) == []


def test_silent_accept_a_changed_copy_fetched_meanwhile_is_refused(tmp_path: Path,
                                                                  monkeypatch: Any) -> None:
    card, url = _toy(tmp_path, unknown=True)
    data = tmp_path / "data"
    _another_fetch_meanwhile(monkeypatch, data / "toy", change=b"user,item\n")
    ok(own_error(lambda: _fetch(card, url, data), "toy", "--force"))


def test_input_destroyed_fetch_into_a_data_dir_spelled_with_a_dot(tmp_path: Path) -> None:
    """``--data-dir data/.``: the dataset goes to ``data/toy`` and is found there again."""
    card, url = _toy(tmp_path)
    data = tmp_path / "data"
    data.mkdir()
    got = _fetch(card, url, Path(f"{data}/."))
    assert Path(os.path.realpath(got)) == Path(os.path.realpath(data / "toy"))
    assert _fetch(card, url, data) == data / "toy"


# ------------------------------------------------------------------------ write_svmlight


def _letor() -> Any:
    from bench.data.letor import LetorData

    return LetorData.build(np.array([[0.5, 1.0], [0.1, 0.0], [0.0, 0.3], [0.2, 0.0], [0.9, 0.0]]),
                           np.array([2, 0, 1, 1, 0]), qid=np.array([1, 1, 1, 2, 2]))


@pytest.mark.parametrize("n", [1, 2], ids=["data-file", "sidecar"])
def test_input_destroyed_write_svmlight_full_disk_keeps_the_earlier_pair(
        tmp_path: Path, monkeypatch: Any, n: int) -> None:
    """A full disk at the data file or at its ``.query`` sidecar: the earlier pair stays as it
    was. At the sidecar the new data file was already in place beside the old sidecar (two
    files that disagree, the earlier data lost)."""
    from bench.data.svmlight import read_svmlight, write_svmlight

    data = _letor()
    write_svmlight(data, tmp_path / "out.txt")
    before = snapshot(tmp_path)
    monkeypatch.setattr(os, "fsync", _nth(os.fsync, n, _boom(errno.ENOSPC)))
    with pytest.raises(OSError, match="No space left"):
        write_svmlight(data.take_queries(np.array([0])), tmp_path / "out.txt")
    monkeypatch.undo()
    ok(untouched(before, tmp_path))
    assert sorted(os.listdir(tmp_path)) == ["out.txt", "out.txt.query"]
    assert read_svmlight(tmp_path / "out.txt").group_sizes.tolist() == [3, 2]


def test_input_destroyed_write_svmlight_ctrl_c_before_the_sidecar_keeps_the_pair(
        tmp_path: Path, monkeypatch: Any) -> None:
    from bench.data import atomic
    from bench.data.svmlight import write_svmlight

    data = _letor()
    write_svmlight(data, tmp_path / "out.txt")
    before = snapshot(tmp_path)
    monkeypatch.setattr(atomic.os, "replace", _nth(os.replace, 1, KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        write_svmlight(data.take_queries(np.array([1])), tmp_path / "out.txt")
    monkeypatch.undo()
    ok(untouched(before, tmp_path))


def test_unclear_error_write_svmlight_to_a_folder_name(tmp_path: Path) -> None:
    """``write_svmlight(data, "out/")``: a folder's name, refused by name (not a file called
    ``out`` nor an IsADirectoryError)."""
    from bench.data.svmlight import write_svmlight

    (tmp_path / "out").mkdir()
    ok(own_error(lambda: write_svmlight(_letor(), tmp_path / "out"), "out", "folder"))
    assert os.listdir(tmp_path / "out") == []


# -------------------------------------------------------------------- write_query_shards


@pytest.mark.parametrize("fault", [_boom(errno.ENOSPC), KeyboardInterrupt()],
                         ids=["ENOSPC", "ctrl-c"])
def test_silent_accept_write_query_shards_stopped_leaves_no_shard(tmp_path: Path,
                                                                 monkeypatch: Any,
                                                                 fault: BaseException) -> None:
    """A fault at the second shard left the first one in the folder: a folder of shards that a
    reader takes whole (one query of two)."""
    from bench.data import query_shards

    monkeypatch.setattr(query_shards, "write_parquet",
                        _nth(query_shards.write_parquet, 2, fault))
    with pytest.raises(type(fault)):
        query_shards.write_query_shards(_letor(), tmp_path / "shards", rows_per_shard=1)
    monkeypatch.undo()
    assert sorted(os.listdir(tmp_path / "shards")) == []


# ---------------------------------------------------------------------------------- convert


def _data_dir_dataset(tmp: Path, monkeypatch: Any) -> tuple[Path, Path]:
    """A data directory holding MQ2007's Fold1 (as a user unpacked it), set as the data dir."""
    data = tmp / "data"
    fold = letor_folder(data / "MQ2007" / "Fold1")
    monkeypatch.setenv("LTRBENCH_DATA_DIR", str(data))
    return data, fold


def test_input_destroyed_convert_out_into_a_dataset_folder_of_the_data_dir(
        tmp_path: Path, monkeypatch: Any) -> None:
    """``convert --out DATA/MQ2007/Fold1`` replaced the unpacked dataset's train.txt with a
    conversion of the ratings (another command's input: the catalogue dataset)."""
    data, fold = _data_dir_dataset(tmp_path, monkeypatch)
    (tmp_path / "r.csv").write_bytes(RATINGS)
    before = snapshot(data)
    res = cli(tmp_path, "convert", "--ratings", "r.csv", "--out", str(fold), *CONVERT)
    ok(refused(res, str(fold), "data directory"))
    ok(untouched(before, data))


def test_input_destroyed_convert_out_through_a_symlinked_parent_to_the_ratings(
        tmp_path: Path) -> None:
    """The ratings are ``in/users.csv``, the name of the id map convert writes; ``--out link/.``
    reaches ``in`` through a symbolic link."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "users.csv").write_bytes(RATINGS)
    (tmp_path / "link").symlink_to(tmp_path / "in")
    before = snapshot(tmp_path / "in")
    res = cli(tmp_path, "convert", "--ratings", "in/users.csv", "--out", "link/.", *CONVERT)
    ok(refused(res, "--out", "--ratings"))
    ok(untouched(before, tmp_path / "in"))


def test_input_destroyed_convert_eacces_at_the_first_rename_keeps_the_earlier_set(
        tmp_path: Path, monkeypatch: Any) -> None:
    from bench.data import atomic

    (tmp_path / "r.csv").write_bytes(RATINGS)
    done(cli(tmp_path, "convert", "--ratings", "r.csv", "--out", "cv", *CONVERT))
    before = snapshot(tmp_path / "cv")
    monkeypatch.setattr(atomic.os, "replace", _nth(os.replace, 1, _boom(errno.EACCES)))
    res = cli(tmp_path, "convert", "--ratings", "r.csv", "--out", "cv", "--seed", "1", *CONVERT)
    monkeypatch.undo()
    ok(refused(res, "cv", "Permission denied"))
    ok(untouched(before, tmp_path / "cv"))
    assert _temporaries(tmp_path / "cv") == []


def test_silent_accept_convert_out_with_a_dot_writes_the_named_folder(tmp_path: Path) -> None:
    (tmp_path / "r.csv").write_bytes(RATINGS)
    (tmp_path / "cv").mkdir()
    done(cli(tmp_path, "convert", "--ratings", "r.csv", "--out", "cv/.", *CONVERT))
    assert {"train.txt", "vali.txt", "test.txt"} <= set(os.listdir(tmp_path / "cv"))


# ------------------------------------------------------------------- evaluate --per-query


def _pair(tmp: Path) -> None:
    (tmp / "q.txt").write_bytes(QRELS)
    (tmp / "r.txt").write_bytes(RUN)


def test_input_destroyed_per_query_into_a_dataset_folder_of_the_data_dir(
        tmp_path: Path, monkeypatch: Any) -> None:
    """A new ``pq.csv`` inside the unpacked MQ2007/Fold1 (another command's input): the next
    ``datasets verify`` / load finds a file the card does not list there."""
    data, fold = _data_dir_dataset(tmp_path, monkeypatch)
    _pair(tmp_path)
    before = snapshot(data)
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query",
              str(fold / "pq.csv"))
    ok(refused(res, "--per-query", "MQ2007", "data directory"))
    ok(untouched(before, data))


def test_input_destroyed_per_query_over_the_qrels_through_a_symlinked_parent(
        tmp_path: Path) -> None:
    _pair(tmp_path)
    (tmp_path / "via").symlink_to(tmp_path)
    before = snapshot(tmp_path)
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query",
              "via/q.txt")
    ok(refused(res, "--per-query", "--qrels"))
    assert (tmp_path / "q.txt").read_bytes() == before["q.txt"]


@pytest.mark.parametrize("code", [errno.EIO, errno.EACCES], ids=["EIO", "EACCES"])
def test_input_destroyed_per_query_failing_rename_keeps_the_earlier_file(
        tmp_path: Path, monkeypatch: Any, code: int) -> None:
    from bench.data import atomic

    _pair(tmp_path)
    done(cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query",
             "pq.csv"))
    before = snapshot(tmp_path)
    monkeypatch.setattr(atomic.os, "replace", _nth(os.replace, 1, _boom(code)))
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics",
              "map", "--per-query", "pq.csv")
    monkeypatch.undo()
    ok(refused(res, "pq.csv"))
    ok(untouched(before, tmp_path))
    assert sorted(os.listdir(tmp_path)) == ["pq.csv", "q.txt", "r.txt"]


def test_unclear_error_per_query_ending_in_slash_dot(tmp_path: Path) -> None:
    _pair(tmp_path)
    (tmp_path / "out").mkdir()
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query",
              "out/.")
    ok(refused(res, "--per-query", "out/."))
    assert os.listdir(tmp_path / "out") == []


# ----------------------------------------------------------------------------- run --out


def test_input_destroyed_run_out_into_a_dataset_folder_of_the_data_dir(
        tmp_path: Path, monkeypatch: Any) -> None:
    """``run --dataset mine --out DATA/MQ2007``: the runs went into an unpacked catalogue
    dataset (another run's input), beside its folds."""
    data, _ = _data_dir_dataset(tmp_path, monkeypatch)
    letor_folder(tmp_path / "mine")
    before = snapshot(data)
    res = cli(tmp_path, "run", "--dataset", "mine", "--models", "random", "--seeds", "0",
              "--quick", "--no-progress", "--no-crosscheck", "--out", str(data / "MQ2007"))
    ok(refused(res, "--out", "MQ2007", "data directory"))
    ok(untouched(before, data))


def test_input_destroyed_tune_space_file_inside_the_tune_folder(tmp_path: Path) -> None:
    """``tune --space res/tune/space.toml --out res``: the space file lies where tune writes
    its study folders; refused before any fit (probe of the input list)."""
    letor_folder(tmp_path / "d")
    space = tmp_path / "res" / "tune" / "lightgbm-lambdarank" / "space.toml"
    space.parent.mkdir(parents=True)
    space.write_text('[lightgbm-lambdarank]\nlearning_rate = [0.05, 0.1]\n')
    before = snapshot(tmp_path / "res")
    res = cli(tmp_path, "tune", "--model", "lightgbm-lambdarank", "--dataset", "d",
              "--space", str(space), "--budget-trials", "1", "--quick", "--no-progress",
              "--out", "res")
    assert not res.traceback, res.err[-800:]
    ok(untouched(before, tmp_path / "res"))


# ------------------------------------------------------------------------------- manifests


def _git(cwd: Path, *argv: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *argv], cwd=cwd,
                   check=True, capture_output=True)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("no git")
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "a.py").write_text("x = 1\n")
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "leaderboard.md").write_text("old\n")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "c")
    return tmp_path


def test_wrong_number_manifest_git_not_dirty_when_only_results_changed(checkout: Path) -> None:
    from bench.runs.manifest import git_state

    (checkout / "results" / "leaderboard.md").write_text("new\n")
    state = git_state(checkout)
    assert state["dirty"] is False, state
    assert state.get("results_dirty") is True, state


def test_wrong_number_manifest_git_dirty_when_code_changed(checkout: Path) -> None:
    from bench.runs.manifest import git_state

    (checkout / "bench" / "a.py").write_text("x = 2\n")
    state = git_state(checkout)
    assert state["dirty"] is True, state
    assert state.get("results_dirty") is False, state


def test_wrong_number_manifest_git_dirty_on_a_rename_out_of_results(checkout: Path) -> None:
    from bench.runs.manifest import git_state

    _git(checkout, "mv", "results/leaderboard.md", "bench/leaderboard.md")
    assert git_state(checkout)["dirty"] is True


def test_silent_accept_old_manifest_git_still_reads(tmp_path: Path) -> None:
    """A manifest written before ``results_dirty`` (its ``dirty`` counted results/ too) still
    reads, and a ``git.dirty`` that is no bool is refused by name."""
    from bench.runs.manifest_check import check_manifest

    check_manifest({"git": {"commit": "ab", "dirty": True}}, tmp_path / "manifest.json")
    check_manifest({"git": {"commit": None, "dirty": None}}, tmp_path / "manifest.json")
    ok(own_error(lambda: check_manifest({"git": {"commit": "ab", "dirty": "no"}},
                                        tmp_path / "manifest.json"), "git.dirty"))


# ---------------------------------------------------------------------------------- report


def test_input_destroyed_report_out_into_a_dataset_folder_of_the_data_dir(
        tmp_path: Path, monkeypatch: Any) -> None:
    from hostile_kit import write_one_seed_run

    data, fold = _data_dir_dataset(tmp_path, monkeypatch)
    run = write_one_seed_run(tmp_path / "res" / "runs", "r1", "d", {"random": [0.5, 0.25]})
    before = snapshot(data)
    res = cli(tmp_path, "report", "--runs", str(run), "--out", str(fold), "--no-plots",
              "--no-progress")
    ok(refused(res, "--out", "MQ2007", "data directory"))
    ok(untouched(before, data))


def test_unclear_error_svmlight_reader_names_the_stale_sidecar(tmp_path: Path) -> None:
    """The sibling a crash could leave (new data beside an old sidecar): refused by name."""
    from bench.data.svmlight import read_svmlight

    (tmp_path / "d.txt").write_bytes(DATA)
    (tmp_path / "d.txt.query").write_text("5\n")
    ok(own_error(lambda: read_svmlight(tmp_path / "d.txt"), "d.txt.query"))


# ----------------------------------------------------------- crosscheck, tune, RunResult.save


def _crosscheck_result(run_id: str) -> Any:
    from bench.crosscheck.result import CrosscheckResult

    return CrosscheckResult(dataset="d", run_dir="/nowhere/run", run_id=run_id,
                            metric="ndcg@10", default_profile="ltrbench")


@pytest.mark.parametrize("fault", [_boom(errno.EIO), KeyboardInterrupt()], ids=["EIO", "ctrl-c"])
def test_input_destroyed_crosscheck_pair_fault_at_the_second_file_keeps_one_pair(
        tmp_path: Path, monkeypatch: Any, fault: BaseException) -> None:
    """``crosscheck.md`` and ``crosscheck.json`` were two separate writes: a fault at the JSON
    left the new run's Markdown beside the earlier run's JSON (two documents that disagree)."""
    from bench.crosscheck import run as cc

    cc.write_crosscheck(_crosscheck_result("first"), tmp_path)
    before = snapshot(tmp_path / "d")
    real = Path.write_text

    def failing(self: Path, text: str, *a: Any, **kw: Any) -> int:
        if self.name == "crosscheck.json":
            raise fault
        return real(self, text, *a, **kw)

    monkeypatch.setattr(Path, "write_text", failing)
    monkeypatch.setattr(cc, "render_markdown", lambda r: f"# run {r.run_id}\n")
    with pytest.raises(type(fault)):
        cc.write_crosscheck(_crosscheck_result("second"), tmp_path)
    monkeypatch.undo()
    ok(untouched(before, tmp_path / "d"))
    assert _temporaries(tmp_path) == []


def test_input_destroyed_crosscheck_pair_is_replaced_whole(tmp_path: Path) -> None:
    from bench.crosscheck import run as cc

    cc.write_crosscheck(_crosscheck_result("first"), tmp_path)
    paths = cc.write_crosscheck(_crosscheck_result("second"), tmp_path)
    assert json.loads(paths["json"].read_text())["run_id"] == "second"
    assert "second" in paths["md"].read_text()
    assert sorted(os.listdir(tmp_path / "d")) == ["crosscheck.json", "crosscheck.md"]


def test_input_destroyed_tune_out_into_a_dataset_folder_of_the_data_dir(
        tmp_path: Path, monkeypatch: Any) -> None:
    data, _ = _data_dir_dataset(tmp_path, monkeypatch)
    letor_folder(tmp_path / "mine")
    before = snapshot(data)
    res = cli(tmp_path, "tune", "--model", "lightgbm-lambdarank", "--dataset", "mine",
              "--budget-trials", "1", "--quick", "--no-progress", "--out", str(data / "MQ2007"))
    ok(refused(res, "--out", "MQ2007", "data directory"))
    ok(untouched(before, data))


def test_silent_accept_run_result_save_full_disk_leaves_no_half_copy(tmp_path: Path,
                                                                    monkeypatch: Any) -> None:
    """``RunResult.save`` copied file by file into ``folder/<run-id>``: a full disk at the
    second file left a run folder without its tables, which a later ``save`` refused as
    'already exists' and ``report`` read as a run."""
    from hostile_kit import write_one_seed_run

    from bench.benchmark.api import RunResult

    run = write_one_seed_run(tmp_path / "res" / "runs", "r1", "d", {"random": [0.5, 0.25]})
    result = RunResult(run)
    monkeypatch.setattr(shutil, "copyfile", _nth(shutil.copyfile, 2, _boom(errno.ENOSPC)))
    with pytest.raises(OSError, match="No space left"):
        result.save(tmp_path / "kept")
    monkeypatch.undo()
    assert os.listdir(tmp_path / "kept") == []
    copy = result.save(tmp_path / "kept")
    ok(untouched(snapshot(run), copy))


def test_input_destroyed_fetch_failing_download_leaves_no_folder(tmp_path: Path,
                                                                monkeypatch: Any) -> None:
    """A full disk while the archive unpacks (no ``--force``, nothing present): no dataset
    folder, no staging folder left."""
    from bench.datasets import fetch as fetch_mod

    card, url = _toy(tmp_path)
    data = tmp_path / "data"
    monkeypatch.setattr(fetch_mod, "_verify_download", _nth(fetch_mod._verify_download, 1,
                                                            _boom(errno.ENOSPC)))
    with pytest.raises(OSError, match="No space left"):
        _fetch(card, url, data)
    monkeypatch.undo()
    assert sorted(os.listdir(data)) == []


@pytest.mark.parametrize("argv", [("crosscheck", "--run", "RUN"), ("reproduce", "--run", "RUN"),
                                  ("perf", "ranked")],
                         ids=["crosscheck", "reproduce", "perf"])
def test_input_destroyed_more_writers_into_a_dataset_folder_of_the_data_dir(
        tmp_path: Path, monkeypatch: Any, argv: tuple[str, ...]) -> None:
    """The siblings of ``convert`` / ``run`` / ``report``: ``crosscheck --out``, ``reproduce
    --out`` (both train runs into it) and ``perf --out FILE.md`` into an unpacked catalogue
    dataset, refused before any work."""
    from hostile_kit import write_one_seed_run

    data, fold = _data_dir_dataset(tmp_path, monkeypatch)
    run = write_one_seed_run(tmp_path / "res" / "runs", "r1", "d", {"random": [0.5, 0.25]})
    before = snapshot(data)
    out = str(fold / "perf.md") if argv[0] == "perf" else str(data / "MQ2007")
    res = cli(tmp_path, *(str(run) if a == "RUN" else a for a in argv), "--out", out)
    ok(refused(res, "--out", "MQ2007", "data directory"))
    ok(untouched(before, data))


def test_input_destroyed_every_perf_out_is_written_atomically() -> None:
    """``perf dask-convert --out FILE.md`` wrote with ``Path.write_text`` (truncate, then
    write): a full disk or Ctrl-C while writing left the earlier figures cut. Every perf
    benchmark's ``--out`` goes through :func:`bench.data.atomic.write_text` (read from the
    source: these benchmarks take minutes and a cluster)."""
    import ast

    plain = []
    for f in sorted((ROOT / "bench" / "perf").glob("*.py")):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in ("write_text", "write_bytes") \
                    and "args.out" in ast.unparse(node.func.value):
                plain.append(f"{f.name}:{node.lineno}")
    assert plain == [], plain


def test_silent_accept_datasets_verify_judges_a_changed_copy_as_fetch_does(tmp_path: Path) -> None:
    """``datasets verify`` said 'ok' for a fetched file (card without digest) cut since, while
    ``datasets fetch`` refuses that copy: one rule, the fetch record's digest."""
    from bench.datasets.fetch import verify

    card, url = _toy(tmp_path, unknown=True)
    data = tmp_path / "data"
    folder = _fetch(card, url, data)
    assert verify(card, data_dir=data).ok
    (folder / "ratings.csv").write_bytes(RATINGS[:100])
    report = verify(card, data_dir=data)
    assert not report.ok
    assert [f.status for f in report.files] == ["mismatch"], report
