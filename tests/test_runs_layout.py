"""A user's runs and reports go to ``results/local`` (git ignores it); the committed ``results/``
changes only with ``--out results`` / ``report --publish``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bench import cli

REPO = Path(__file__).resolve().parents[1]
COMMITTED_RUN = sorted((REPO / "results" / "runs").glob("lightgbm-lambdarank-*"))


@pytest.mark.skipif(not COMMITTED_RUN, reason="no committed run to copy")
def test_report_without_publish_leaves_the_committed_leaderboard_byte_identical(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    run = COMMITTED_RUN[-1]
    shutil.copytree(run, tmp_path / "results" / "runs" / run.name)
    shutil.copytree(run, tmp_path / "results" / "local" / "runs" / run.name)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["report", "--publish", "--no-plots"]) == 0
    published = {p.name: p.read_bytes() for p in (tmp_path / "results").glob("leaderboard.*")}
    assert sorted(published) == ["leaderboard.csv", "leaderboard.json", "leaderboard.md",
                                 "leaderboard.tex"]
    assert cli.main(["report", "--no-plots"]) == 0
    capsys.readouterr()
    assert {p.name: p.read_bytes()
            for p in (tmp_path / "results").glob("leaderboard.*")} == published
    assert (tmp_path / "results" / "local" / "leaderboard.md").is_file()


def test_the_default_output_folder_is_the_ignored_local_one() -> None:
    from bench.benchmark.pipeline import results_folder
    from bench.runs.layout import LOCAL_RESULTS

    ignored = (REPO / ".gitignore").read_text().splitlines()
    assert f"{LOCAL_RESULTS}/" in ignored
    parser = cli.build_parser()
    for argv in (["crosscheck", "--dataset", "x"],
                 ["tune", "--dataset", "x", "--grid", "num_leaves=7"]):
        assert parser.parse_args(argv).out == LOCAL_RESULTS
    # run leaves --out empty so that --resume RUN_DIR can default to the run's own folder
    assert parser.parse_args(["run"]).out is None
    assert results_folder(parser.parse_args(["run"]).out, False) == Path(LOCAL_RESULTS)


def test_blank_fills_reads_only_the_given_profiles_variants() -> None:
    import math

    import pandas as pd

    from bench.runs.layout import blank_fills

    labels = pd.Series(["ltrbench", "ltrbench-blank0", "ltrbench-blank1", "lightgbm-blank0",
                        "lightgbm", "ltrbench2-blank1", "ltrbench-blank2"])
    got = blank_fills(labels, "ltrbench").tolist()
    assert got[1:3] == [0.0, 1.0]
    assert all(math.isnan(v) for v in got[:1] + got[3:])  # the profile; others; unknown suffix
