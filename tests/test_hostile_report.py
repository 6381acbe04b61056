"""Hostile ``ltrbench report`` cases: it says which run it used for each dataset and why (newest
finished by default; ``--runs`` picks, ``--all`` shows every run), writes its files as one set and
removes only the files an earlier report wrote, refuses outputs over its inputs, and a damaged
run is exit 2 with one line naming the file, the line and the column -- never a traceback."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest
from hostile_kit import overridden
from test_report_leaderboard import write_run

from bench import cli

FAST = ["--bootstrap", "50", "--permutations", "100", "--no-progress"]


def _report(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = cli.main(["report", *overridden(FAST, argv)])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return status, captured.out, captured.err


def _doc(out: Path) -> dict:  # type: ignore[type-arg]
    return json.loads((out / "leaderboard.json").read_text())


@pytest.fixture
def two_runs(tmp_path: Path) -> Path:
    """An eleven-ish-model run, then a newer one-model test run of the same dataset."""
    out = tmp_path / "res"
    write_run(out / "runs", "20260101-000000-full", finished="2026-01-01T00:00:00+00:00")
    write_run(out / "runs", "20260102-000000-test", finished="2026-01-02T00:00:00+00:00",
              models={"random": 0.0})
    return out


# ------------------------------------------------------------------------------------------
# which run: said, and chosen on request
# ------------------------------------------------------------------------------------------


def test_report_names_the_run_it_used_why_and_the_runs_it_skipped(
        two_runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = _report(["--out", str(two_runs), "--no-plots"], capsys)
    assert status == 0
    line = next(ln for ln in err.splitlines() if ln.startswith("report: toy_set:"))
    assert "2 run(s) found; using 20260102-000000-test (newest finished run" in line
    assert "1 model)" in line
    assert "skipped 1: 20260101-000000-full (older, finished 2026-01-01" in line
    assert "3 models)" in line
    doc = _doc(two_runs)
    assert doc["selection"][0]["run"] == "20260102-000000-test"
    assert doc["selection"][0]["skipped"][0]["run"] == "20260101-000000-full"
    assert "Run chosen: newest finished run" in (two_runs / "leaderboard.md").read_text()


@pytest.mark.parametrize("how", ["id", "path"])
def test_runs_picks_a_run_by_id_or_path(two_runs: Path, capsys: pytest.CaptureFixture[str],
                                        how: str) -> None:
    pick = "20260101-000000-full" if how == "id" else str(two_runs / "runs" /
                                                            "20260101-000000-full")
    status, _, err = _report(["--out", str(two_runs), "--no-plots", "--runs", pick], capsys)
    assert status == 0
    assert [t["run_id"] for t in _doc(two_runs)["tables"]] == ["20260101-000000-full"]
    assert len(_doc(two_runs)["tables"][0]["rows"]) == 3
    assert "using 20260101-000000-full (named with --runs" in err


def test_two_named_runs_of_one_dataset_are_an_error_pointing_to_all(
        two_runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = _report(["--out", str(two_runs), "--no-plots", "--runs",
                              "20260101-000000-full", "20260102-000000-test"], capsys)
    assert status == 2
    assert "--runs names 2 runs of dataset 'toy_set'" in err
    assert "--all" in err
    assert not (two_runs / "leaderboard.md").exists()


def test_all_gives_one_table_per_run_with_its_own_plot_folder(
        two_runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, _ = _report(["--out", str(two_runs), "--all"], capsys)
    assert status == 0
    assert [t["run_id"] for t in _doc(two_runs)["tables"]] == [
        "20260101-000000-full", "20260102-000000-test"]
    assert (two_runs / "toy_set@20260101-000000-full" / "ndcg_at_k.png").is_file()
    assert (two_runs / "toy_set@20260102-000000-test" / "ndcg_at_k.png").is_file()


def test_an_unknown_run_id_is_not_found(two_runs: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = _report(["--out", str(two_runs), "--runs", "20990101-nope"], capsys)
    assert status == 2
    assert "20990101-nope" in err
    assert "not found" in err


def test_a_newer_unfinished_run_is_listed_as_skipped(
        two_runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    late = write_run(two_runs / "runs", "20260103-000000-killed", finished="")
    (late / "manifest.json").write_text(json.dumps({"started": "2026-01-03T00:00:00+00:00"}))
    status, _, err = _report(["--out", str(two_runs), "--no-plots"], capsys)
    assert status == 0
    assert "3 run(s) found; using 20260102-000000-test" in err
    assert "20260103-000000-killed (unfinished" in err


# ------------------------------------------------------------------------------------------
# one set of files: stale files of an earlier report removed, never a user's file
# ------------------------------------------------------------------------------------------


def test_plots_of_a_dataset_no_longer_reported_are_removed_and_user_files_kept(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "res"
    write_run(out / "runs", "20260101-000000-a", dataset="set_a")
    b = write_run(out / "runs", "20260101-000000-b", dataset="set_b")
    assert _report(["--out", str(out)], capsys)[0] == 0
    assert (out / "set_b" / "ndcg_at_k.png").is_file()
    (out / "set_b" / "notes.txt").write_text("mine\n")
    (out / "set_a" / "mine.png").write_text("mine\n")
    os.rename(b, tmp_path / "b-moved")
    status, _, err = _report(["--out", str(out)], capsys)
    assert status == 0
    assert not (out / "set_b" / "ndcg_at_k.png").exists()
    assert "removed" in err
    assert "ndcg_at_k.png" in err
    assert (out / "set_b" / "notes.txt").read_text() == "mine\n"
    assert (out / "set_a" / "mine.png").read_text() == "mine\n"
    assert (out / "set_a" / "ndcg_at_k.png").is_file()
    assert not [p for p in out.rglob(".set-*")]


def test_a_report_without_plots_removes_the_earlier_plots(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "res"
    write_run(out / "runs", "20260101-000000-a")
    assert _report(["--out", str(out)], capsys)[0] == 0
    assert (out / "toy_set" / "ndcg_at_k.png").is_file()
    assert _report(["--out", str(out), "--no-plots"], capsys)[0] == 0
    assert not (out / "toy_set").exists()
    assert (out / "leaderboard.md").is_file()


def test_a_tampered_file_list_never_removes_what_the_report_did_not_write(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "res"
    run = write_run(out / "runs", "20260101-000000-a")
    outside = tmp_path / "ndcg_at_k.png"
    outside.write_text("outside\n")
    (out / "notes.txt").parent.mkdir(parents=True, exist_ok=True)
    (out / "notes.txt").write_text("mine\n")
    (out / "other").mkdir()
    (out / "other" / "ndcg_at_k.png").symlink_to(outside)
    (out / ".ltrbench-report.json").write_text(json.dumps({"files": [
        "notes.txt", "runs/20260101-000000-a/metrics.csv", "../ndcg_at_k.png",
        "other/ndcg_at_k.png", "/etc/passwd", "runs/../notes.txt", 5]}))
    before = (run / "metrics.csv").read_bytes()
    assert _report(["--out", str(out), "--no-plots"], capsys)[0] == 0
    assert (out / "notes.txt").read_text() == "mine\n"
    assert (run / "metrics.csv").read_bytes() == before
    assert outside.read_text() == "outside\n"
    assert (out / "other" / "ndcg_at_k.png").is_symlink()


def test_a_report_listing_that_is_not_json_removes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "res"
    write_run(out / "runs", "20260101-000000-a")
    (out / "toy_set").mkdir()
    (out / "toy_set" / "learning_curves.png").write_text("user\n")
    (out / ".ltrbench-report.json").write_bytes(b"\xff\xfe garbage")
    assert _report(["--out", str(out), "--no-plots"], capsys)[0] == 0
    assert (out / "toy_set" / "learning_curves.png").read_text() == "user\n"


# ------------------------------------------------------------------------------------------
# outputs over inputs
# ------------------------------------------------------------------------------------------


def test_report_output_that_is_a_symlink_to_a_user_file_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "res"
    write_run(out / "runs", "20260101-000000-a")
    mine = tmp_path / "mine.md"
    mine.write_text("mine\n")
    (out / "leaderboard.md").symlink_to(mine)
    status, _, err = _report(["--out", str(out), "--no-plots"], capsys)
    assert status == 2
    assert "leaderboard.md" in err
    assert "symbolic link" in err
    assert mine.read_text() == "mine\n"


def test_report_output_that_is_a_fifo_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "res"
    write_run(out / "runs", "20260101-000000-a")
    os.mkfifo(out / "leaderboard.json")
    status, _, err = _report(["--out", str(out), "--no-plots"], capsys)
    assert status == 2
    assert "FIFO" in err


def test_report_plot_that_is_a_run_file_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A run directory placed where the report writes a dataset's plots."""
    out = tmp_path / "res"
    run = write_run(out, "toy_set")
    (run / "ndcg_at_k.png").write_text("the run's own figure\n")
    status, _, err = _report(["--out", str(out), "--runs", str(run)], capsys)
    assert status == 2
    assert "'toy_set/ndcg_at_k.png'" in err
    assert "--runs" in err
    assert (run / "ndcg_at_k.png").read_text() == "the run's own figure\n"


# ------------------------------------------------------------------------------------------
# damaged runs: one line naming the file, the line / row and the column
# ------------------------------------------------------------------------------------------


def _damage_metrics(run: Path, edit: str) -> None:
    path = run / "metrics.csv"
    text = path.read_text()
    lines = text.splitlines(keepends=True)
    if edit == "text-value":
        lines[3] = lines[3].replace(lines[3].split(",")[6], "oops", 1)
    elif edit == "inf-value":
        lines[3] = ",".join([*lines[3].split(",")[:6], "inf", lines[3].split(",")[7]])
    elif edit == "text-seed":
        lines[3] = lines[3].replace(",0,", ",zero,", 1)
    elif edit == "empty-dataset":
        lines[3] = "," + lines[3].split(",", 1)[1]
    elif edit == "short-line":
        lines[3] = ",".join(lines[3].split(",")[:5]) + "\n"
    elif edit == "truncated":
        lines = [*lines[:-1], lines[-1][: len(lines[-1]) // 2]]
    elif edit == "missing-column":
        frame = pd.read_csv(path).drop(columns=["value"])
        frame.to_csv(path, index=False)
        return
    elif edit == "empty-file":
        lines = []
    elif edit == "binary":
        path.write_bytes(b"\x00\xff\xfe" * 50)
        return
    path.write_text("".join(lines))


@pytest.mark.parametrize(("edit", "words"), [
    ("text-value", ("metrics.csv:4", "'value'", "'oops'", "expected a finite number")),
    ("inf-value", ("metrics.csv:4", "'value'", "finite")),
    ("text-seed", ("metrics.csv:4", "'seed'", "whole number")),
    ("empty-dataset", ("metrics.csv:4", "'dataset'", "empty")),
    ("short-line", ("metrics.csv:4", "5 field(s)", "header has 8")),
    ("truncated", ("metrics.csv:", "truncated")),
    ("missing-column", ("metrics.csv", "missing column(s) value")),
    ("empty-file", ("metrics.csv", "empty file")),
    ("binary", ("metrics.csv", "cannot read")),
])
def test_a_damaged_metrics_csv_is_one_clear_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: str,
        words: tuple[str, ...]) -> None:
    out = tmp_path / "res"
    run = write_run(out / "runs", "20260101-000000-a")
    _damage_metrics(run, edit)
    status, _, err = _report(["--out", str(out), "--no-plots"], capsys)
    assert status == 2
    assert err.startswith("error: ")
    for w in words:
        assert w in err, (w, err)


@pytest.mark.parametrize(("body", "words"), [
    (b"{not json", ("manifest.json:1", "not valid JSON")),
    (b"[1, 2]", ("manifest.json", "expected a JSON object", "list")),
    (b"\xff\xfe\x00x", ("manifest.json", "UTF-16", "expected UTF-8")),
    (b'{"finished": 5}', ("manifest.json", "'finished' is 5")),
])
def test_a_bad_manifest_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          body: bytes, words: tuple[str, ...]) -> None:
    out = tmp_path / "res"
    run = write_run(out / "runs", "20260101-000000-a")
    (run / "manifest.json").write_bytes(body)
    status, _, err = _report(["--out", str(out), "--no-plots"], capsys)
    assert status == 2
    for w in words:
        assert w in err, (w, err)


def test_a_per_query_file_with_text_values_is_one_clear_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "res"
    run = write_run(out / "runs", "20260101-000000-a")
    pq = pd.read_parquet(run / "per_query.parquet")
    pq["value"] = pq["value"].astype(str)
    pq.loc[7, "value"] = "n/a"
    pq.to_parquet(run / "per_query.parquet")
    status, _, err = _report(["--out", str(out), "--no-plots"], capsys)
    assert status == 2
    assert "per_query.parquet" in err
    assert "'value'" in err


def test_a_truncated_per_query_parquet_is_one_clear_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "res"
    run = write_run(out / "runs", "20260101-000000-a")
    data = (run / "per_query.parquet").read_bytes()
    (run / "per_query.parquet").write_bytes(data[: len(data) // 2])
    status, _, err = _report(["--out", str(out), "--no-plots"], capsys)
    assert status == 2
    assert "per_query.parquet" in err


def test_a_timings_file_with_a_text_fit_time_is_one_clear_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "res"
    run = write_run(out / "runs", "20260101-000000-a")
    t = pd.read_csv(run / "timings.csv")
    t["fit_s"] = t["fit_s"].astype(str)
    t.loc[2, "fit_s"] = "fast"
    t.to_csv(run / "timings.csv", index=False)
    status, _, err = _report(["--out", str(out), "--no-plots"], capsys)
    assert status == 2
    assert "timings.csv:4" in err
    assert "'fit_s'" in err


# ------------------------------------------------------------------------------------------
# options: metrics and statistics asked for are the ones used, or a clear error
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("argv", "said"), [
    (["--bootstrap", "0"], "--bootstrap 0: expected an integer from 1"),
    (["--permutations", "-5"], "--permutations -5: expected an integer from 1"),
    (["--seed", "-1"], "--seed -1: expected an integer from 0"),
    (["--metrics", "ndcg@10,zz"], "unknown metric"),
    (["--metrics", "nDCG@10"], "these names bring their own profile: nDCG@10"),
    (["--primary", "ndcg@10,map@10"], "--primary ndcg@10,map@10: expected one metric"),
])
def test_a_report_option_out_of_range_or_unknown_is_refused_before_any_run_is_read(
        two_runs: Path, capsys: pytest.CaptureFixture[str], argv: list[str], said: str) -> None:
    status, _, err = _report(["--out", str(two_runs), "--no-plots", *argv], capsys)
    assert status == 2
    assert said in err
    assert not (two_runs / "leaderboard.md").exists()


def test_a_metric_or_primary_the_run_does_not_hold_is_an_error_not_a_silent_gap(
        two_runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: the column was left out, and '--primary map' printed 'best map is random (-inf)'."""
    status, _, err = _report(["--out", str(two_runs), "--no-plots", "--metrics", "ndcg@10,err@10"],
                             capsys)
    assert status == 2
    assert "--metrics err@10: not in this run; it has" in err
    status, _, err = _report(["--out", str(two_runs), "--no-plots", "--primary", "rprec"], capsys)
    assert status == 2
    assert "--primary rprec: not among the reported metrics of this run" in err


def test_a_table_header_spelling_is_the_runs_metric_and_primary_follows_the_metrics(
        two_runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = _report(["--out", str(two_runs), "--no-plots", "--metrics", "MAP@10"], capsys)
    assert status == 0, err
    doc = _doc(two_runs)
    assert doc["tables"][0]["metrics"] == ["map@10"]
    assert doc["tables"][0]["primary_metric"] == "map@10"  # ndcg@10 was not asked for
