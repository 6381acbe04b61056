"""Outputs, report and faults, round 10 (issue 19 items 4 and 7): new instances.

Classes (earlier rounds: ``tests/test_hostile_outputs.py``, ``..._round9_outputs.py``,
``..._round9_report.py``, ``..._round9b_report.py``, ``..._round9_faults.py``):

* ``published by fold`` (round 9's leftover): ``report`` set a config's published table beside
  a run by catalogue card only, so a run on MSLR-WEB30K Fold2 was shown beside LightGBM's Fold1
  numbers (other test queries), and a single-fold run beside ltr-baseline's numbers pooled over
  five folds. The fold is in the key now (:func:`bench.report.published.published_fold`).
* ``resolved paths`` (round 9's leftover): ``--out /proc/self/cwd`` (the input's folder through
  /proc) was refused for a wrong reason ("the folder '/proc/self' may not be written") where
  the same folder by its own name is refused for writing over the input; an existing output
  folder that may not be written was accepted (only its parent was checked) and failed after
  the work. The checks read the resolved path, the folder itself once it exists.
* ``same names``: two runs with one id in two folders were named by the id alone ("--runs
  names 2 runs ... (20260101-000000-toy, 20260101-000000-toy)"): their paths now.
* ``damaged run files`` (found here): a run whose ``per_query.parquet``, ``timings.csv`` or
  ``config.toml`` is a FIFO (or a folder) was reported as if the file were absent (exit 0: no
  intervals, no timings, no published rows, without a word), and a run named with ``--runs``
  whose ``metrics.csv`` is one said "no finished run directory with a metrics.csv found". One
  check in :meth:`bench.runs.reader.RunDir.has` now names the file.
* ``faults``: two writers of one output folder switched their sets of files in at the same
  time (one's ``leaderboard.md`` beside the other's ``leaderboard.json``): the switch holds an
  exclusive lock on the folder; a full disk while the switch note is written named the
  temporary folder, which is gone: it names the output folder now.
"""

from __future__ import annotations

import errno
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import cli
from test_report_leaderboard import write_run

from bench.errors import ConfigError

FAST = ("--bootstrap", "50", "--permutations", "100", "--no-progress", "--no-plots")
ROWS = [{"model": "lightgbm-lambdarank", "metrics": {"ndcg@10": {"mean": 0.5}}}]


def _manifest(card: str, fold: str | None, spec: str | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"card": card}
    if fold is not None:
        meta["fold"] = fold
    return {"dataset": {"name": card, "spec": spec or card, "meta": meta}}


# ------------------------------------------------------------------------- published by fold


@pytest.mark.parametrize("fold", ["Fold2", "Fold5"])
def test_a_run_on_another_fold_is_not_set_beside_fold1s_published_rows(fold: str) -> None:
    from bench.report.build import published_beside_ours, published_key

    key = published_key(_manifest("mslr-web30k", fold))
    assert published_beside_ours("lightgbm-experiments", key, ROWS) == []


def test_a_fold_named_only_in_the_spec_counts_too() -> None:
    from bench.report.build import published_beside_ours, published_key

    key = published_key(_manifest("mslr-web30k", None, spec="mslr-web30k:Fold3"))
    assert published_beside_ours("lightgbm-experiments", key, ROWS) == []


def test_a_fold1_run_keeps_the_published_rows() -> None:
    """LightGBM's page publishes 0.524252 NDCG@10 on MSLR-WEB30K Fold1 (docs/Experiments.rst)."""
    from bench.report.build import published_beside_ours, published_key

    for manifest in (_manifest("mslr-web30k", "Fold1"), _manifest("mslr-web30k", None)):
        found = published_beside_ours("lightgbm-experiments", published_key(manifest), ROWS)
        lgb = next(r for r in found if r["row"] == "LightGBM")
        assert lgb["metrics"]["ndcg@10"] == {"published": 0.524252, "ours": 0.5}


def test_rows_pooled_over_five_folds_are_beside_no_single_fold_run() -> None:
    from bench.report.build import published_beside_ours, published_key

    for fold in ("Fold1", "Fold2"):
        key = published_key(_manifest("mslr-web10k", fold))
        assert published_beside_ours("ltr-baseline", key, ROWS) == []


def test_a_dataset_without_folds_keeps_its_published_rows() -> None:
    from bench.report.build import published_beside_ours, published_key

    found = published_beside_ours("lightgbm-experiments",
                                  published_key(_manifest("yahoo-ltr", None)), ROWS)
    assert any(r["row"] == "LightGBM" for r in found)


def test_report_of_a_fold2_run_shows_no_fold1_published_rows(tmp_path: Path) -> None:
    tables = {}
    for fold in ("Fold1", "Fold2"):
        run = write_run(tmp_path / fold / "runs", "20260101-000000-toy", dataset="mslr-web30k")
        config = (run / "config.toml").read_text().replace("quick = true", "quick = false")
        (run / "config.toml").write_text(config + 'published = "lightgbm-experiments"\n')
        manifest = json.loads((run / "manifest.json").read_text())
        (run / "manifest.json").write_text(json.dumps({**manifest, **_manifest(
            "mslr-web30k", fold)}))
        res = cli(tmp_path / fold, "report", "--runs", str(run), "--out", "out", *FAST)
        assert res.status == 0, res.err
        doc = json.loads((tmp_path / fold / "out" / "leaderboard.json").read_text())
        tables[fold] = doc["tables"][0]["published"]
    assert tables["Fold1"]
    assert tables["Fold2"] == []


# --------------------------------------------------------------------------- resolved paths


def _input_folder(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    data.mkdir()
    rows = "".join(f"{u},{(u * 7 + k * 3) % 80},{1 + (u + k) % 5},{10**9 + u * 100 + k}\n"
                   for u in range(30) for k in range(30))
    (data / "train.txt").write_text("user,item,rating,timestamp\n" + rows)
    return data


_CONVERT = ("convert", "--ratings", "train.txt", "--user", "user", "--item", "item",
            "--rating", "rating", "--timestamp", "timestamp", "--layout", "csv")


@pytest.mark.skipif(not Path("/proc/self/cwd").exists(), reason="needs /proc")
@pytest.mark.parametrize("out", ["/proc/self/cwd", "/proc/self/cwd/", "link", "link/", "."])
def test_the_inputs_folder_through_proc_or_a_link_is_refused_for_what_it_would_overwrite(
        tmp_path: Path, out: str) -> None:
    data = _input_folder(tmp_path)
    os.symlink(data, data / "link")
    before = (data / "train.txt").read_bytes()
    res = cli(data, *_CONVERT, "--out", out)
    assert res.status == 2, res.err
    line = res.err.strip().splitlines()[-1]
    assert all(w in line for w in ("train.txt", "--ratings")), line
    assert "may not be written" not in line, line
    assert (data / "train.txt").read_bytes() == before


@pytest.mark.skipif(not Path("/proc/self/cwd").exists(), reason="needs /proc")
def test_an_output_folder_through_proc_is_checked_where_it_resolves(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.data.outputs import check_output_dir, check_output_file

    monkeypatch.chdir(tmp_path)
    assert check_output_dir("/proc/self/cwd/new", option="--out") == Path("/proc/self/cwd/new")
    assert check_output_file("/proc/self/cwd/x.csv", option="--per-query") \
        == Path("/proc/self/cwd/x.csv")


def test_an_existing_output_folder_that_may_not_be_written_is_refused_before_the_work(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Root writes anywhere, so the refusal of ``os.access`` is simulated for that folder."""
    from bench.data import outputs

    locked = tmp_path / "locked"
    locked.mkdir()
    real_access = os.access

    def access(path: Any, mode: int, *args: Any, **kw: Any) -> bool:
        if os.path.realpath(path) == str(locked.resolve()):
            return False
        return real_access(path, mode, *args, **kw)

    monkeypatch.setattr(outputs.os, "access", access)
    with pytest.raises(ConfigError, match=r"locked.*may not be written"):
        outputs.check_output_dir(locked, option="--out")
    outputs.check_output_dir(tmp_path / "free", option="--out")


# ------------------------------------------------------------------------------- same names


def test_two_runs_of_one_id_in_two_folders_are_named_by_their_paths(tmp_path: Path) -> None:
    a = write_run(tmp_path / "r1", "20260101-000000-toy")
    b = write_run(tmp_path / "r2", "20260101-000000-toy", seed=3)
    res = cli(tmp_path, "report", "--runs", str(a), str(b), "--out", "out", *FAST)
    assert res.status == 2
    line = res.err.strip().splitlines()[-1]
    assert all(str(r) in line for r in (a, b)), line


def test_the_report_says_which_of_two_runs_of_one_id_it_used(tmp_path: Path) -> None:
    older = write_run(tmp_path / "r1", "20260101-000000-toy",
                      finished="2026-01-01T00:00:00+00:00")
    newer = write_run(tmp_path / "r2", "20260101-000000-toy",
                      finished="2026-01-02T00:00:00+00:00", seed=3)
    res = cli(tmp_path, "report", "--runs", str(tmp_path / "r1"), str(tmp_path / "r2"),
              "--out", "out", *FAST)
    assert res.status == 0, res.err
    assert all(w in res.err for w in (f"using {newer}", f"{older} (older")), res.err


# -------------------------------------------------------------------------- damaged run files


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("name", ["per_query.parquet", "timings.csv", "config.toml",
                                  "metrics.csv"])
@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_a_run_file_that_is_no_regular_file_is_named(tmp_path: Path, name: str,
                                                      kind: str) -> None:
    run = write_run(tmp_path / "runs", "20260101-000000-toy")
    (run / name).unlink()
    if kind == "fifo":
        os.mkfifo(run / name)
    else:
        (run / name).mkdir()
    res = cli(tmp_path, "report", "--runs", str(run), "--out", "out", *FAST)
    assert res.status == 2, res.err
    line = res.err.strip().splitlines()[-1]
    assert all(w in line for w in (str(run / name), "not a regular file")), line


# ------------------------------------------------------------------------------------ faults


def test_two_writers_switch_their_file_sets_one_after_the_other(tmp_path: Path) -> None:
    """The switch waits for a lock another writer holds on the folder (here the test holds
    it): its files appear only once the lock is released."""
    import fcntl

    from bench.data.atomic import replace_file_set

    out = tmp_path / "out"
    out.mkdir()
    fd = os.open(out, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    done = threading.Event()

    def writer() -> None:
        with replace_file_set(out, ["a.md"]) as tmp:
            (tmp / "a.md").write_text("new")
        done.set()

    thread = threading.Thread(target=writer)
    thread.start()
    time.sleep(0.3)
    waited = not done.is_set() and not (out / "a.md").exists()
    os.close(fd)
    thread.join(10)
    assert waited
    assert done.is_set()
    assert (out / "a.md").read_text() == "new"


def test_a_full_disk_while_the_switch_note_is_written_names_the_output_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.data import atomic

    out = tmp_path / "out"
    real = Path.write_text

    def full(self: Path, *args: Any, **kw: Any) -> int:
        if self.name == atomic.SWITCHING:
            raise OSError(errno.ENOSPC, "No space left on device", str(self))
        return real(self, *args, **kw)

    monkeypatch.setattr(Path, "write_text", full)
    with pytest.raises(OSError, match="No space") as caught, atomic.replace_file_set(out, ["a.md"]) as tmp:
        (tmp / "a.md").write_bytes(b"new")
    assert caught.value.filename == str(out)
    assert caught.value.errno == errno.ENOSPC
    assert not (out / "a.md").exists()
    assert not list(out.glob(".set-*"))
