"""Options the chosen engine would ignore are refused, never dropped: Dask options on the local
``convert`` engine, and local-cluster options beside ``--scheduler`` (``convert`` and
``evaluate``). Before, each ran and silently ignored them."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import cli


@pytest.mark.parametrize(("argv", "expected"), [
    (["convert", "--ratings", "synthetic", "--workers", "4"], "--workers: Dask option(s)"),
    (["convert", "--ratings", "synthetic", "--rows-per-block", "10"], "--rows-per-block: Dask"),
    (["convert", "--ratings", "r.csv", "--layout", "csv", "--user", "u", "--item", "i",
      "--engine", "dask", "--scheduler", "tcp://127.0.0.1:1", "--workers", "3"],
     "--workers start(s) a local cluster; with --scheduler"),
    (["convert", "--ratings", "r.csv", "--layout", "csv", "--user", "u", "--item", "i",
      "--engine", "dask", "--scheduler", "tcp://127.0.0.1:1", "--memory-limit", "1GB"],
     "--memory-limit start(s) a local cluster"),
    (["evaluate", "--engine", "dask", "--data", "shards", "--scheduler", "tcp://127.0.0.1:1",
      "--workers", "3"], "--workers starts a local cluster; with --scheduler"),
])
def test_an_option_the_engine_would_ignore_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        argv: list[str], expected: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.csv").write_text("u,i\n1,2\n")
    (tmp_path / "shards").mkdir()
    out = ["--out", str(tmp_path / "out")] if argv[0] == "convert" else []
    assert cli.main([*argv, *out]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ")
    assert expected in err
    assert not (tmp_path / "out").exists()
