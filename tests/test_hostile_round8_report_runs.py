"""Round 8: which runs ``ltrbench report --runs`` reads, what it says when it finds none, and
the profile name a run records.

Before: ``report --runs DIR`` where DIR is a results folder (``run --out DIR`` writes
``DIR/runs/<id>/``) found nothing and said "<the --out folder>: no finished run directory",
naming the folder it writes instead of the one it searched; a config's ``profile = "ltrbench "``
ran under ltrbench but wrote ``ltrbench `` (trailing blank) into the manifest, ``metrics.csv``
and the report's text.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from bench.benchmark.config import RunConfig
from bench.cli import main


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results folder of one quick run (``run --out DIR``) whose config spells the profile
    with blanks and capitals."""
    root = tmp_path_factory.mktemp("results")
    config = root / "odd.toml"
    config.write_text('profile = " LightGBM "\nquick = true\n', encoding="utf-8")
    status = main(["run", "--config", str(config), "--dataset", "synthetic", "--models",
                   "random", "--seeds", "0", "--out", str(root / "out")])
    assert status == 0
    return root / "out"


def test_report_runs_given_a_results_folder_reads_its_runs(
        results: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--runs", str(results), "--out", str(tmp_path / "rep"),
                 "--no-plots"]) == 0
    board = json.loads((tmp_path / "rep" / "leaderboard.json").read_text(encoding="utf-8"))
    assert "synthetic" in json.dumps(board["selection"])
    assert "1 run(s) found" in capsys.readouterr().err


def test_a_folder_without_runs_is_named_in_the_error_not_the_output_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    out = tmp_path / "rep"
    assert main(["report", "--runs", str(empty), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: no finished run directory"), err
    assert str(empty) in err
    assert str(out) not in err
    assert not out.exists()  # nothing written


def test_a_profile_spelled_with_blanks_and_capitals_is_recorded_by_its_canonical_name(
        results: Path) -> None:
    (run,) = (results / "runs").iterdir()
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    assert json.dumps(manifest).count('" LightGBM "') == 0
    assert set(pd.read_csv(run / "metrics.csv")["profile"]) == {"lightgbm"}


@pytest.mark.parametrize("spelling", [" LightGBM ", "LIGHTGBM", "lightgbm"])
def test_run_config_holds_the_canonical_profile_name(spelling: str) -> None:
    config = RunConfig(profile=spelling)
    assert config.profile == "lightgbm" == config.profile_value.name


@pytest.fixture(scope="module")
def arp_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A report whose primary metric is ARP (a mean rank: lower is better) over two models, and
    the model with the lowest test ARP in metrics.csv (the oracle, read with pandas)."""
    out = tmp_path_factory.mktemp("arp")
    assert main(["run", "--dataset", "synthetic", "--models", "random,popularity", "--quick",
                 "--seeds", "0", "--metrics", "ndcg@10,arp", "--out", str(out)]) == 0
    assert main(["report", "--out", str(out), "--metrics", "ndcg@10,arp", "--primary", "arp",
                 "--no-plots", "--html"]) == 0
    (run,) = (out / "runs").iterdir()
    metrics = pd.read_csv(run / "metrics.csv")
    test_arp = metrics[(metrics["split"] == "test") & (metrics["metric"] == "arp")]
    return out, str(test_arp.groupby("model")["value"].mean().idxmin())


def test_a_lower_is_better_primary_ranks_the_lowest_first_in_every_output(
        arp_report: tuple[Path, str]) -> None:
    """Before: the rows were ordered and bolded by the highest ARP and the verdict named the
    worst model as the best."""
    out, lowest = arp_report
    board = (out / "leaderboard.md").read_text(encoding="utf-8")
    assert f"Verdict: best arp is {lowest} " in board
    first_row = next(line for line in board.splitlines() if line.startswith("| ")
                     and not line.startswith("| Model") and not line.startswith("|---"))
    assert first_row.startswith(f"| {lowest} |")
    assert first_row.count("**") == 4  # its NDCG@10 and its ARP are the columns' best
    assert "| best | best |" in first_row  # the paired tests compare against it
    page = (out / "leaderboard.html").read_text(encoding="utf-8")
    assert f"Verdict: best arp is {lowest} " in page
    table = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
    rows = table["tables"][0]["rows"] if "tables" in table else table["rows"]
    assert rows[0]["model"] == lowest
