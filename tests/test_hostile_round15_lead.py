"""Round 15, the lead's own cases: a folder of LightGBM's example layout beside another split set
(left by round 15b, which made a text set beside a Parquet set one conversion's or refused)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hostile_kit import cli, letor_folder, letor_split, refused, snapshot

RUN = ("--models", "random", "--quick", "--no-progress", "--no-cache", "--seeds", "0")


def _lightgbm_example(folder: Path) -> Path:
    """LightGBM's ``examples/lambdarank`` layout in miniature: ``rank.train`` / ``rank.test``
    (SVMlight without ``qid:``) and their ``.query`` group sizes."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    for name, n_queries in (("rank.train", 12), ("rank.test", 4)):
        lines = [f"{int(rng.integers(0, 3))} 1:{rng.random():.4f} 2:{rng.random():.4f}"
                 for _ in range(n_queries * 5)]
        (folder / name).write_text("\n".join(lines) + "\n")
        (folder / f"{name}.query").write_text("5\n" * n_queries)
    return folder


def test_the_lightgbm_example_alone_still_reads(tmp_path: Path) -> None:
    _lightgbm_example(tmp_path / "ex")
    res = cli(tmp_path, "run", "--dataset", "./ex", *RUN, "--out", "res")
    assert res.status == 0, res.err


@pytest.mark.parametrize("other", ["parquet", "letor-flat", "letor-fold"])
def test_the_lightgbm_example_beside_another_split_set_is_refused_naming_both(
        tmp_path: Path, other: str) -> None:
    """The example's files were read and the other set ignored without a word."""
    ex = _lightgbm_example(tmp_path / "ex")
    if other == "parquet":
        for s in ("train", "vali", "test"):
            (ex / f"{s}.parquet").write_bytes(b"PAR1")  # never read: the refusal comes first
        named = "train.parquet"
    else:
        where = ex / "Fold1" if other == "letor-fold" else ex
        where.mkdir(exist_ok=True)
        for i, s in enumerate(("train", "vali", "test")):
            (where / f"{s}.txt").write_bytes(letor_split(3, 100 * i, i))
        named = "Fold1/train.txt" if other == "letor-fold" else "train.txt"
    before = snapshot(ex)
    res = cli(tmp_path, "run", "--dataset", "./ex", *RUN, "--out", "res")
    assert refused(res, "rank.train", named, "two split sets") is None, res.err
    assert snapshot(ex) == before
    assert not (tmp_path / "res").exists() or not any((tmp_path / "res").rglob("metrics.csv"))


# ------------------------------- a C extension's failed allocation under ulimit -v (CI, round 15)
def _failing_command(monkeypatch: pytest.MonkeyPatch, exc: BaseException) -> None:
    """``ltrbench run`` raising ``exc`` where a C extension would, on its first step."""
    import bench.benchmark.pipeline as pipeline

    def fail(*args: object, **kwargs: object) -> None:
        raise exc

    monkeypatch.setattr(pipeline, "run_benchmark", fail)


def _address_space_limit(monkeypatch: pytest.MonkeyPatch, limited: bool) -> None:
    import resource

    import bench.machine as machine

    real = resource.getrlimit

    def getrlimit(which: int) -> tuple[int, int]:
        if which == resource.RLIMIT_AS:
            return (200_000 * 1024, 200_000 * 1024) if limited else (
                resource.RLIM_INFINITY, resource.RLIM_INFINITY)
        return real(which)

    monkeypatch.setattr(machine.resource, "getrlimit", getrlimit)


def test_a_c_extensions_error_without_exception_under_ulimit_v_is_the_memory_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Seen in CI under ``ulimit -v 200000``: ``SystemError: error return without exception
    set`` (a C extension whose allocation failed returned NULL without a MemoryError) ended
    ``run`` in a traceback, where a MemoryError gives the address-space line."""
    letor_folder(tmp_path / "letor")
    _address_space_limit(monkeypatch, limited=True)
    _failing_command(monkeypatch, SystemError("error return without exception set"))
    res = cli(tmp_path, "run", "--dataset", "./letor", *RUN, "--out", "res")
    assert refused(res, "out of memory", "SystemError", "ulimit -v 200000") is None, res.err


def test_a_system_error_without_a_limit_is_not_called_out_of_memory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a limit to explain it, a SystemError is an interpreter or extension bug: not
    dressed up as a memory problem (the traceback is the report)."""
    letor_folder(tmp_path / "letor")
    _address_space_limit(monkeypatch, limited=False)
    _failing_command(monkeypatch, SystemError("error return without exception set"))
    res = cli(tmp_path, "run", "--dataset", "./letor", *RUN, "--out", "res")
    assert res.traceback, (res.status, res.err)
    assert "out of memory" not in res.err, res.err
