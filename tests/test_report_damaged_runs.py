"""A run whose files disagree with each other is a clear error of ``ltrbench report`` (exit 2, one
line naming the file and line), never a leaderboard computed from part of it.

Each case damages one file of a run written by :func:`test_report_leaderboard.write_run` (whose
``metrics.csv`` holds ``np.nanmean`` of the per-query values, written independently of the
code under test) the way an edit, a hand merge or a cut copy would. Before
:mod:`bench.runs.consistency`, every case here printed a table (exit 0): a metric averaged over
fewer seeds, a mean that contradicts its own confidence interval, a model the run never
trained, a profile the run was not computed under.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_report_leaderboard import write_run

from bench import cli

FAST = ["--bootstrap", "20", "--permutations", "20", "--no-progress", "--no-plots"]
RUN = "20260101-000000-run"


def _metrics(run: Path, edit: Callable[[pd.DataFrame], pd.DataFrame]) -> None:
    frame = pd.read_csv(run / "metrics.csv", dtype=str, keep_default_na=False)
    edit(frame).to_csv(run / "metrics.csv", index=False)


def _per_query(run: Path, edit: Callable[[pd.DataFrame], pd.DataFrame]) -> None:
    p = run / "per_query.parquet"
    edit(pd.read_parquet(p)).to_parquet(p)


def _manifest(run: Path, **changes: object) -> None:
    p = run / "manifest.json"
    p.write_text(json.dumps({**json.loads(p.read_text()), **changes}))


def _set(frame: pd.DataFrame, row: int, column: str, value: str) -> pd.DataFrame:
    frame.loc[row, column] = value
    return frame


def _first_test_ndcg10(frame: pd.DataFrame) -> int:
    hit = (frame["split"] == "test") & (frame["metric"] == "ndcg@10") & (
        frame["profile"] == "ltrbench")
    return int(np.flatnonzero(hit.to_numpy())[0])


DAMAGES: dict[str, tuple[Callable[[Path], None], str]] = {
    "a metric value edited": (
        lambda r: _metrics(r, lambda f: _set(f, _first_test_ndcg10(f), "value", "0.99")),
        "is not the mean of its per-query values"),
    "a metric value blanked": (
        lambda r: _metrics(r, lambda f: _set(f, _first_test_ndcg10(f), "value", "")),
        "is not the mean of its per-query values"),
    "a row duplicated": (
        lambda r: _metrics(r, lambda f: pd.concat([f, f.iloc[[3]]])),
        "a second row for"),
    "a duplicated row with another value": (
        lambda r: _metrics(r, lambda f: pd.concat([f, _set(f.iloc[[3]].copy(), f.index[3],
                                                           "value", "0.5")])),
        "a second row for"),
    "a metric name mangled": (
        lambda r: _metrics(r, lambda f: _set(f, _first_test_ndcg10(f), "metric", "ndcg@abc")),
        "no ndcg@10 row for model"),
    "a model the run never trained": (
        lambda r: _metrics(r, lambda f: _set(f, 0, "model", "ghost")),
        "'ghost' is not one of the run's models"),
    "a seed the run never used": (
        lambda r: _metrics(r, lambda f: _set(f, 0, "seed", "7")),
        "seed 7 is not one of the run's seeds"),
    "rows of another profile": (
        lambda r: _metrics(r, lambda f: f.assign(profile=f["profile"].str.replace(
            "ltrbench", "trec_eval"))),
        "where the run was configured with 'ltrbench'"),
    "per-query values out of range": (
        lambda r: _per_query(r, lambda f: f.assign(value=f["value"] + 1.0)),
        "is not the mean of its per-query values"),
    "per-query rows of one model cut": (
        lambda r: _per_query(r, lambda f: f[~((f["model"] == f["model"].iloc[-1])
                                               & (f["qid"] > 3))]),
        "of the split's"),
    "per-query rows duplicated": (
        lambda r: _per_query(r, lambda f: pd.concat([f, f.iloc[:5]])),
        "a second row for"),
    "per-query cell missing": (
        lambda r: _per_query(r, lambda f: f[~((f["model"] == f["model"].iloc[0])
                                               & (f["metric"] == "ndcg@10"))]),
        "no per-query values in per_query.parquet"),
    "manifest profile contradicts the config": (
        lambda r: _manifest(r, evaluation={"profile": "ranx"}),
        "the manifest's evaluation profile 'ranx' is not the config's 'ltrbench'"),
    "manifest seeds not a list of integers": (
        lambda r: _manifest(r, seeds="0,1,2"),
        "'seeds' is '0,1,2': expected a list of whole numbers"),
}


@pytest.fixture
def run(tmp_path: Path) -> Path:
    path = write_run(tmp_path / "res" / "runs", RUN)
    _manifest(path, models={"lightgbm-lambdarank": {}, "xgboost-ndcg": {}, "random": {}},
              evaluation={"profile": "ltrbench"})
    return path


def _report(run: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = cli.main(["report", *FAST, "--runs", str(run), "--out",
                       str(run.parent.parent / "out")])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return status, err


def test_an_undamaged_run_is_reported(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, err = _report(run, capsys)
    assert status == 0, err


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_run_whose_files_disagree_is_refused_naming_the_file(
        run: Path, capsys: pytest.CaptureFixture[str], damage: str) -> None:
    apply, expected = DAMAGES[damage]
    apply(run)
    status, err = _report(run, capsys)
    assert status == 2, f"{damage}: accepted\n{err}"
    line = next(ln for ln in err.splitlines() if ln.startswith("error: "))
    assert expected in line
    assert str(run) in line
    assert not (run.parent.parent / "out" / "leaderboard.md").exists()


@pytest.mark.parametrize("column", ["fit_s", "predict_s", "n_trees"])
def test_a_negative_time_or_count_in_timings_is_refused(
        run: Path, capsys: pytest.CaptureFixture[str], column: str) -> None:
    """Before: ``fit_s = -1`` printed ``-1.00 [-1.00–-1.00]`` in the leaderboard (exit 0)."""
    t = pd.read_csv(run / "timings.csv")
    t.loc[2, column] = -1
    t.to_csv(run / "timings.csv", index=False)
    status, err = _report(run, capsys)
    assert status == 2
    assert "timings.csv:4" in err
    assert f"'{column}'" in err
    assert ">= 0" in err
