"""Round 10b of the hostile catalogue: Dask shards and options, outputs over inputs, faults.

New instances of issue 19's classes on the surfaces of ``bench/data/outputs.py``,
``bench/data/atomic.py``, ``bench/data/dask_cluster.py`` and ``bench/engines/dask_engine.py``
(earlier rounds: ``tests/test_hostile_round10_outputs.py``, ``..._round10_dask.py``,
``..._round9_faults.py``, ``..._round8_dask.py``). The outcome of each case is a clear one-line
error (exit 2, naming the option or the file and what was expected), the oracle's number (hand
arithmetic: :data:`NDCG_AB` of ``tests/dask_kit.py``), or the input left as it was.

Failing on main before this round (measured against ``2f81491``), now fixed:

* ``--per-query out.csv/`` wrote the file ``out.csv`` (POSIX reads a trailing ``/`` as a folder;
  ``open`` would fail with ``EISDIR``); ``out.csv/.`` too.
* an output file its owner made read-only (``chmod a-w``) was replaced all the same (the
  atomic writer's rename ignores the file's mode; as root ``os.access`` says yes to anything),
  and the replacement was ``0644``.
* a new ``--per-query`` file inside the ``--data`` shard folder of ``--engine dask`` was
  written there, so the next read of the folder changed (only an existing file there was
  refused).
* a destination that became a FIFO (or device node) after the check was replaced by the
  rename; a replaced ``0600`` file came back ``0644`` (world-readable).
* ``--memory-limit 0.5`` (0 bytes to ``parse_bytes``: Dask's "no limit"), ``1`` or ``100MB``
  (workers restarted for ever) and ``1000PB`` (silently lowered to the machine's memory by
  Dask) were accepted.

The other cases passed already and are kept as guards (marked ``guard`` in their names).
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from dask_kit import NDCG_AB, A, B, in_process_client, parquet_table
from hostile_kit import QRELS, RUN, SCORES, cli, refused

from bench.errors import ConfigError, DataError

DATA = b"2 qid:1 1:0.5 2:1\n0 qid:1 1:0.1\n1 qid:1 2:0.3\n1 qid:2 1:0.2\n0 qid:2 1:0.9\n"
client = in_process_client


def _inputs(tmp: Path) -> Path:
    (tmp / "q.txt").write_bytes(QRELS)
    (tmp / "r.txt").write_bytes(RUN)
    (tmp / "data.txt").write_bytes(DATA)
    (tmp / "s.txt").write_bytes(SCORES)
    return tmp


def _evaluate(tmp: Path, out: str) -> Any:
    return cli(_inputs(tmp), "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query", out)


def _untouched(tmp: Path) -> None:
    assert (tmp / "q.txt").read_bytes() == QRELS
    assert (tmp / "r.txt").read_bytes() == RUN
    assert (tmp / "s.txt").read_bytes() == SCORES


# -------------------------------------------------------------------- outputs: file paths


@pytest.mark.parametrize("out", ["out.csv/", "out.csv/."])
def test_a_per_query_path_ending_in_a_separator_is_refused(tmp_path: Path, out: str) -> None:
    res = _evaluate(tmp_path, out)
    assert refused(res, "--per-query", "separator", "file name") is None, res.err
    assert not (tmp_path / "out.csv").exists()


def test_a_read_only_per_query_file_is_refused_and_kept(tmp_path: Path) -> None:
    ro = tmp_path / "ro.csv"
    ro.write_text("keep\n")
    ro.chmod(0o444)
    res = _evaluate(tmp_path, "ro.csv")
    assert refused(res, "--per-query", "ro.csv", "read-only", "444") is None, res.err
    assert ro.read_text() == "keep\n"
    assert stat.S_IMODE(ro.stat().st_mode) == 0o444


def test_a_read_only_file_a_report_would_replace_is_refused_before_the_work(
        tmp_path: Path) -> None:
    from test_report_leaderboard import write_run

    write_run(tmp_path / "runs", "a")
    fast = ("--no-progress", "--bootstrap", "50", "--permutations", "100", "--no-plots")
    assert cli(tmp_path, "report", "--runs", "runs", "--out", "rep", *fast).status == 0
    board = tmp_path / "rep" / "leaderboard.md"
    text = board.read_bytes()
    board.chmod(0o444)
    res = cli(tmp_path, "report", "--runs", "runs", "--out", "rep", "--seed", "2", *fast)
    assert refused(res, "--out", "leaderboard.md", "read-only") is None, res.err
    assert board.read_bytes() == text


def test_a_writable_file_keeps_its_private_mode_when_replaced(tmp_path: Path) -> None:
    out = tmp_path / "o.csv"
    out.write_text("old\n")
    out.chmod(0o600)
    assert _evaluate(tmp_path, "o.csv").status == 0
    assert out.read_text().startswith("qid,")
    assert stat.S_IMODE(out.stat().st_mode) == 0o600  # before: 0644, readable by everyone


@pytest.mark.parametrize(("make", "out", "words"), [
    (lambda t: os.link(t / "s.txt", t / "hl.csv"), "hl.csv", ("same file", "--scores")),
    (lambda t: os.symlink(t / "nowhere.csv", t / "dl.csv"), "dl.csv", ("symbolic link",)),
    (lambda t: (t / "dd").mkdir(), "dd", ("directory",)),
    (lambda t: None, "/dev/null", ("character device",)),
    (lambda t: None, "/dev/stdout", ("symbolic link",)),
    (lambda t: os.mkfifo(t / "f.csv"), "f.csv", ("FIFO",)),
    (lambda t: (t / "sub").mkdir(), "sub/../q.txt", ("--qrels", "destroy")),
    (lambda t: os.symlink(t, t / "alias"), "alias/r.txt", ("--run", "same file")),
    (lambda t: None, "q.txt/x.csv", ("q.txt", "is a file")),
], ids=["guard-hard-link", "guard-dangling-link", "guard-folder", "guard-dev-null",
        "guard-dev-stdout", "guard-fifo", "guard-dotdot", "guard-linked-folder",
        "guard-under-a-file"])
def test_guard_per_query_over_an_input_or_a_special_file(tmp_path: Path, make: Any, out: str,
                                                         words: tuple[str, ...]) -> None:
    _inputs(tmp_path)
    make(tmp_path)
    if out == "hl.csv":  # a hard link of the scores file: evaluate --data/--scores
        res = cli(tmp_path, "evaluate", "--data", "data.txt", "--scores", "s.txt",
                  "--per-query", out)
    else:
        res = _evaluate(tmp_path, out)
    assert refused(res, "--per-query", *words) is None, res.err
    _untouched(tmp_path)


# ---------------------------------------------------------------------- outputs: Dask shards


def _shards(tmp: Path, *parts: pd.DataFrame) -> Path:
    import pyarrow.parquet as pq

    folder = tmp / "shards"
    folder.mkdir()
    for k, part in enumerate(parts):
        pq.write_table(parquet_table(part), folder / f"part-{k:05d}.parquet")
    return folder


def test_a_new_per_query_file_inside_the_shard_folder_is_refused(tmp_path: Path) -> None:
    folder = _shards(tmp_path, A, B)
    res = cli(tmp_path, "evaluate", "--engine", "dask", "--data", "shards", "--workers", "1",
              "--per-query", "shards/pq.csv")
    assert refused(res, "--per-query", "inside the input folder", "--data") is None, res.err
    assert sorted(p.name for p in folder.iterdir()) == ["part-00000.parquet",
                                                        "part-00001.parquet"]


# ---------------------------------------------------------------------------- faults: writes


def test_an_output_that_became_a_fifo_after_the_check_is_not_replaced(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = pd.DataFrame.to_csv

    def swap(self: pd.DataFrame, path: Any, *args: Any, **kwargs: Any) -> Any:
        os.mkfifo(tmp_path / "o.csv")  # another process puts a FIFO there mid-command
        return real(self, path, *args, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "to_csv", swap)
    res = _evaluate(tmp_path, "o.csv")
    assert refused(res, "o.csv", "no longer a regular file", "FIFO") is None, res.err
    assert stat.S_ISFIFO(os.lstat(tmp_path / "o.csv").st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.txt", "o.csv", "q.txt", "r.txt",
                                                          "s.txt"]


def test_guard_a_full_disk_names_the_output_and_keeps_the_old_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "o.csv").write_text("old\n")

    def full(self: pd.DataFrame, *args: Any, **kwargs: Any) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pd.DataFrame, "to_csv", full)
    res = _evaluate(tmp_path, "o.csv")
    assert refused(res, "o.csv", "No space left on device") is None, res.err
    assert (tmp_path / "o.csv").read_text() == "old\n"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_guard_an_io_error_at_fsync_names_the_output_and_leaves_no_temporary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def eio(fd: int) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, "fsync", eio)
    res = _evaluate(tmp_path, "o.csv")
    assert refused(res, "o.csv", "Input/output error") is None, res.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.txt", "q.txt", "r.txt", "s.txt"]


def test_guard_an_interrupt_mid_write_keeps_the_old_file(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "o.csv").write_text("old\n")

    def interrupt(self: pd.DataFrame, *args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_csv", interrupt)
    res = _evaluate(tmp_path, "o.csv")
    assert res.status == 130, res.err
    assert not res.traceback, res.err
    assert (tmp_path / "o.csv").read_text() == "old\n"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_an_interrupted_evaluate_does_not_advise_resume(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupt(self: pd.DataFrame, *args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_csv", interrupt)
    assert "--resume" not in _evaluate(tmp_path, "o.csv").err


def test_guard_an_input_that_vanishes_after_the_output_check_is_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import bench.data.outputs as outputs

    real = outputs.check_output_file

    def then_delete(*args: Any, **kwargs: Any) -> Path:
        done = real(*args, **kwargs)
        (tmp_path / "q.txt").unlink()
        return done

    monkeypatch.setattr(outputs, "check_output_file", then_delete)
    res = _evaluate(tmp_path, "o.csv")
    assert refused(res, "q.txt", "no such file") is None, res.err
    assert not (tmp_path / "o.csv").exists()


# -------------------------------------------------------------------- Dask: cluster options


@pytest.mark.parametrize(("limit", "words"), [
    ("0.5", ("'0.5'", "0 bytes", "no limit")),
    ("1", ("'1'", "256 MiB")),
    ("100MB", ("'100MB'", "256 MiB")),
    ("1000PB", ("'1000PB'", "this machine")),
])
def test_a_memory_limit_dask_would_not_use_as_written_is_refused(tmp_path: Path, limit: str,
                                                                 words: tuple[str, ...]) -> None:
    (tmp_path / "r.csv").write_text("user,item,rating,timestamp\n1,1,5,1\n")
    res = cli(tmp_path, "convert", "--engine", "dask", "--ratings", "r.csv", "--layout", "csv",
              "--memory-limit", limit, "--out", "o")
    assert refused(res, "--memory-limit", *words) is None, res.err
    assert not (tmp_path / "o").exists()


def test_the_api_cluster_refuses_a_tiny_memory_limit_before_any_start() -> None:
    from bench.data.dask_cluster import cluster

    with pytest.raises(ConfigError, match="256 MiB"), cluster(workers=1, memory_limit="1"):
        pass  # pragma: no cover - refused before the cluster starts


@pytest.mark.parametrize("limit", ["0", 0, "auto", None, "2GB"])
def test_guard_dasks_own_spellings_of_no_limit_and_sizes_pass(limit: Any) -> None:
    from bench.data.dask_cluster import memory_limit_value

    assert memory_limit_value(limit) == limit


@pytest.mark.parametrize(("argv", "words"), [
    (("--workers", "0"), ("workers", ">= 1")),
    (("--workers", "2.5"), ("--workers", "2.5")),
    (("--workers", "0x2"), ("--workers", "0x2")),
    (("--workers", "1000000000"), ("1000000000", "--scheduler")),
    (("--workers", "2", "--scheduler", "tcp://127.0.0.1:1"), ("--workers", "--scheduler")),
    (("--scheduler", "tcp://127.0.0.1:0"), ("--scheduler", "port '0'")),
    (("--scheduler", "tcp://127.0.0.1:70000"), ("--scheduler", "70000")),
    (("--scheduler", "tcp://u:p@127.0.0.1:1"), ("--scheduler", "host:port")),
    (("--scheduler", "tcp://127.0.0.1:1/x"), ("--scheduler", "1/x")),
    (("--scheduler", "http://127.0.0.1:8787/status"), ("--scheduler", "'http'")),
    (("--scheduler", "inproc://x"), ("--scheduler", "inproc")),
    (("--score-column", "label"), ("--score-column", "'label'")),
], ids=["workers-0", "workers-float", "workers-hex", "workers-huge", "workers-and-scheduler",
        "port-0", "port-70000", "userinfo", "path", "http-dashboard", "inproc", "score-is-label"])
def test_guard_dask_options_refused_before_any_cluster(tmp_path: Path, argv: tuple[str, ...],
                                                       words: tuple[str, ...]) -> None:
    _shards(tmp_path, A, B)
    res = cli(tmp_path, "evaluate", "--engine", "dask", "--data", "shards", *argv)
    assert refused(res, *words) is None, res.err


def test_workers_in_full_width_digits_are_refused(tmp_path: Path) -> None:
    res = cli(tmp_path, "evaluate", "--engine", "dask", "--data", "shards", "--workers", "\uff12")
    assert refused(res, "--workers") is None, res.err


# ------------------------------------------------------------------------ Dask: shard values


def _dask(folder: Path) -> dict[str, float]:
    from bench.data.query_shards import read_query_shards, shard_columns
    from bench.metrics.distributed import evaluate_frame

    cols = ["qid", "label", "score"]
    shard_columns(folder, cols)
    r = evaluate_frame(read_query_shards(folder, columns=cols), metrics=["ndcg@10"],
                       where=str(folder), profile="ltrbench")
    return {k: float(v) for k, v in r.metrics.items()}


@pytest.mark.parametrize(("second", "words"), [
    (B.assign(label=[float("nan"), 0.0]), ("part-00001.parquet", "row 1", "'label'", "nan")),
    (B.assign(score=["0.3", "0.4"]), ("part-00001.parquet", "'score'", "string")),
    (B.assign(label=[1.5, 0.0]), ("part-00001.parquet", "row 1", "'label'", "integer")),
    (B.assign(label=[-1.0, 0.0]), ("part-00001.parquet", "row 1", "'label'", "negative")),
    (B.assign(qid=[2.5, 2.5]), ("part-00001.parquet", "'qid'", "double", "int64")),
], ids=["guard-nan-label", "guard-text-score", "guard-fractional-label", "guard-negative-label",
        "guard-float-qid-beside-int"])
def test_guard_a_bad_value_in_a_later_shard_names_it(tmp_path: Path, client: Any,
                                                     second: pd.DataFrame,
                                                     words: tuple[str, ...]) -> None:
    with pytest.raises(DataError) as info:
        _dask(_shards(tmp_path, A, second))
    text = str(info.value)
    assert "\n" not in text, text
    assert all(w in text for w in words), text


def test_guard_an_integer_score_shard_beside_a_float_one_is_the_hand_number(
        tmp_path: Path, client: Any) -> None:
    """B's scores 3 < 4 rank as 0.3 < 0.4: the relevant document second, ``NDCG_AB``."""
    got = _dask(_shards(tmp_path, A, B.assign(score=[3, 4])))
    assert got["ndcg@10"] == pytest.approx(NDCG_AB, abs=1e-15)
