"""Round 14, hostile cases of an MLOps engineer who scripts ltrbench in CI, Makefiles and
containers: exit codes, ``--format json|csv`` parsed by the next step, files re-read by
another tool, odd environments and paths, configs rendered by a template, commands run twice.

Found here (failing on the base): a path option quoted in a script (``--out '~/res'``,
``--per-query '~/pq.csv'``, ``--data '~/d.txt'``, ``--config '~/c.toml'``, ``report --runs
'~/...'``) was read as a folder named ``~`` in the working folder for some options and as the
home folder for others (``evaluate --qrels`` and pandas expanded it): ``run --out '~/res'``
wrote its run into ``./~/res`` and then failed reading its own metrics.csv back from
``$HOME/res``; and a run whose ``manifest.json`` was saved again with a UTF-8 byte-order mark
was refused as "not valid JSON" by ``report`` while its ``config.toml`` and ``metrics.csv``
with the same mark were read.

Oracles: exit 0 and the same bytes / numbers as the clean call; exit 2 with ``error:`` naming
the path or key; input bytes unchanged; strict JSON (no NaN token); no traceback.
Everything runs in-process (``bench.cli.main`` through ``tests/hostile_kit.py``) but one
child process for the environment a container gives (locale C, TZ, no HOME, umask 077, stdin
closed, a dumb terminal ten columns wide).
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.hostile_kit import DATA, QRELS, ROOT, RUN, SCORES, Res, cli, letor_folder

RUN_B = b"1 Q0 a 1 0.9 t\n1 Q0 b 2 0.1 t\n1 Q0 c 3 0.5 t\n2 Q0 d 1 0.8 t\n2 Q0 e 2 0.2 t\n"
CONFIG = ('dataset = "data"\nmodels = ["random"]\nseeds = [0]\nquick = true\n\n'
          "[params]\nn_trees = 5\n")


def _strict_json(text: str) -> Any:
    """``json.loads`` that refuses the NaN / Infinity tokens Python writes by default."""
    def refuse(token: str) -> Any:
        raise AssertionError(f"not JSON: the token {token} in the output")
    return json.loads(text, parse_constant=refuse)


def _ok(r: Res) -> Res:
    assert r.status == 0, r.err
    assert not r.traceback, r.err
    return r


def _refused(r: Res, *words: str) -> str:
    assert r.status == 2, (r.status, r.err)
    assert not r.traceback, r.err
    line = r.err.strip().splitlines()[0] if r.err.strip() else ""
    assert "error:" in r.err or "usage:" in r.err, r.err
    for w in words:
        assert w in r.err, (w, r.err)
    return line


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pipeline")
    letor_folder(root / "data")
    for name, data in (("q.txt", QRELS), ("r.txt", RUN), ("b.txt", RUN_B), ("d.txt", DATA),
                       ("s.txt", SCORES), ("c.toml", CONFIG.encode())):
        (root / name).write_bytes(data)
    return root


@pytest.fixture(scope="module")
def clean_csv(work: Path) -> str:
    return _ok(cli(work, "evaluate", "--data", "d.txt", "--scores", "s.txt", "--format",
                   "csv")).out


@pytest.fixture(scope="module")
def clean_trec(work: Path) -> str:
    return _ok(cli(work, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--format",
                   "csv")).out


@pytest.fixture(scope="module")
def finished(work: Path) -> tuple[Path, dict[str, Any]]:
    """One finished run (random model, one seed, quick), as a CI step would start it."""
    r = _ok(cli(work, "run", "--dataset", "data", "--models", "random", "--seeds", "0",
                "--quick", "--out", "res", "--no-progress", "--format", "json"))
    doc = _strict_json(r.out)
    return work / doc["run_dir"], doc


@pytest.fixture(scope="module")
def clean_report(work: Path, finished: tuple[Path, dict[str, Any]]) -> dict[str, Any]:
    run_dir, _ = finished
    r = _ok(cli(work, "report", "--runs", str(run_dir), "--out", "rep-clean", "--no-plots",
                "--no-progress", "--format", "json"))
    return _leaderboard(_strict_json(r.out), run_dir)


def _leaderboard(doc: dict[str, Any], run_dir: Path) -> dict[str, Any]:
    """The leaderboard document with the run's own folder written as RUN (a copy's numbers
    compare with the original's)."""
    text = json.dumps(doc, sort_keys=True).replace(str(run_dir.resolve()), "RUN")
    text = text.replace(str(run_dir), "RUN")
    out: dict[str, Any] = json.loads(text)
    out.pop("paths", None)
    return out


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder of its own: ``~`` is expanded against it (``os.path.expanduser``)."""
    h = tmp_path / "home dir"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    return h


# --- a leading ~ quoted in a script: one rule for every path option -----------------------------


def test_a_quoted_tilde_in_per_query_writes_under_home_not_into_a_folder_named_tilde(
        work: Path, home: Path, tmp_path: Path) -> None:
    shutil.copy(work / "q.txt", tmp_path / "q.txt")
    shutil.copy(work / "r.txt", tmp_path / "r.txt")
    _ok(cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query",
            "~/pq.csv", "--format", "csv"))
    assert (home / "pq.csv").is_file()
    assert not (tmp_path / "~").exists()


def test_a_quoted_tilde_in_data_and_scores_reads_the_files_in_home(
        home: Path, tmp_path: Path, clean_csv: str) -> None:
    (home / "d.txt").write_bytes(DATA)
    (home / "s.txt").write_bytes(SCORES)
    r = _ok(cli(tmp_path, "evaluate", "--data", "~/d.txt", "--scores", "~/s.txt", "--format",
                "csv"))
    assert r.out == clean_csv


def test_a_quoted_tilde_in_run_out_writes_the_run_under_home_and_exits_0(
        work: Path, home: Path, tmp_path: Path) -> None:
    letor_folder(tmp_path / "data")
    r = _ok(cli(tmp_path, "run", "--dataset", "data", "--models", "random", "--seeds", "0",
                "--quick", "--out", "~/res", "--no-progress", "--format", "json"))
    doc = _strict_json(r.out)
    assert Path(doc["run_dir"]).is_relative_to(home / "res")
    assert (Path(doc["run_dir"]) / "metrics.csv").is_file()
    assert not (tmp_path / "~").exists()


def test_a_quoted_tilde_in_report_runs_and_out_reads_and_writes_under_home(
        home: Path, tmp_path: Path, finished: tuple[Path, dict[str, Any]],
        clean_report: dict[str, Any]) -> None:
    run_dir, _ = finished
    shutil.copytree(run_dir, home / "runs" / run_dir.name)
    r = _ok(cli(tmp_path, "report", "--runs", f"~/runs/{run_dir.name}", "--out", "~/rep",
                "--no-plots", "--no-progress", "--format", "json"))
    assert _leaderboard(_strict_json(r.out), home / "runs" / run_dir.name) == clean_report
    assert (home / "rep" / "leaderboard.md").is_file()
    assert not (tmp_path / "~").exists()


def test_a_quoted_tilde_in_run_config_reads_the_config_in_home(work: Path, home: Path,
                                                                tmp_path: Path) -> None:
    (home / "c.toml").write_text(CONFIG.replace('"data"', f'"{work / "data"}"'))
    r = _ok(cli(tmp_path, "run", "--config", "~/c.toml", "--out", "o", "--no-progress",
                "--format", "json"))
    assert _strict_json(r.out)["models"] == ["random"]


def test_a_quoted_tilde_in_run_dataset_and_out_both_read_as_home(home: Path,
                                                                  tmp_path: Path) -> None:
    letor_folder(home / "data")
    r = _ok(cli(tmp_path, "run", "--dataset", "~/data", "--models", "random", "--seeds", "0",
                "--quick", "--out", "~/o", "--no-progress", "--format", "json"))
    assert Path(_strict_json(r.out)["run_dir"]).is_relative_to(home / "o")


def test_a_quoted_tilde_out_onto_the_tilde_dataset_is_refused_as_the_same_folder(
        home: Path, tmp_path: Path) -> None:
    letor_folder(home / "data")
    before = {p.name: p.read_bytes() for p in (home / "data").iterdir()}
    r = cli(tmp_path, "run", "--dataset", "~/data", "--models", "random", "--seeds", "0",
            "--quick", "--out", "~/data", "--no-progress")
    _refused(r, "--out")
    assert {p.name: p.read_bytes() for p in (home / "data").iterdir()} == before


def test_a_quoted_tilde_in_resume_continues_the_run_in_home(
        home: Path, tmp_path: Path, finished: tuple[Path, dict[str, Any]]) -> None:
    run_dir, _ = finished
    copy = home / "runs" / run_dir.name
    shutil.copytree(run_dir, copy)
    before = (copy / "metrics.csv").read_bytes()
    _ok(cli(run_dir.parents[2], "run", "--resume", f"~/runs/{run_dir.name}", "--no-progress",
            "--format", "json"))
    assert (copy / "metrics.csv").read_bytes() == before
    assert not (run_dir.parents[2] / "~").exists()


def test_a_tilde_inside_a_name_is_left_as_it_is(work: Path, tmp_path: Path) -> None:
    shutil.copy(work / "q.txt", tmp_path / "q.txt")
    shutil.copy(work / "r.txt", tmp_path / "a~b.txt")
    r = _ok(cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "a~b.txt", "--per-query",
                "x~y.csv", "--format", "csv"))
    assert (tmp_path / "x~y.csv").is_file()
    assert "ndcg@10" in r.out


# --- another tool saved a run's files again: BOM, CRLF, CR-only, extra columns ----------------


def _variant(run_dir: Path, where: Path, change: Any) -> Path:
    copy = where / "runs" / run_dir.name
    shutil.copytree(run_dir, copy)
    change(copy)
    return copy


def _report_of(copy: Path, where: Path) -> Res:
    return cli(where, "report", "--runs", str(copy), "--out", str(where / "out"), "--no-plots",
               "--no-progress", "--format", "json")


def _resave(name: str, fn: Any) -> Any:
    def change(d: Path) -> None:
        (d / name).write_bytes(fn((d / name).read_bytes()))
    return change


@pytest.mark.parametrize(("name", "how"), [
    ("manifest.json", lambda b: b"\xef\xbb\xbf" + b),
    ("manifest.json", lambda b: b"\xef\xbb\xbf" + b.replace(b"\n", b"\r\n")),
    ("metrics.csv", lambda b: b"\xef\xbb\xbf" + b),
    ("metrics.csv", lambda b: b.replace(b"\n", b"\r\n")),
    ("metrics.csv", lambda b: b.replace(b"\n", b"\r")),
    ("config.toml", lambda b: b"\xef\xbb\xbf" + b.replace(b"\n", b"\r\n")),
    ("status/random-seed0.json", lambda b: b"\xef\xbb\xbf" + b),
], ids=["manifest-bom", "manifest-bom-crlf", "metrics-bom", "metrics-crlf", "metrics-cr",
        "config-bom-crlf", "status-bom"])
def test_report_over_a_run_file_saved_again_by_a_windows_tool_gives_the_same_leaderboard(
        tmp_path: Path, finished: tuple[Path, dict[str, Any]], clean_report: dict[str, Any],
        name: str, how: Any) -> None:
    copy = _variant(finished[0], tmp_path, _resave(name, how))
    r = _ok(_report_of(copy, tmp_path))
    assert _leaderboard(_strict_json(r.out), copy) == clean_report


def test_a_manifest_with_a_bom_is_read_by_resume_too(tmp_path: Path,
                                                     finished: tuple[Path, dict[str, Any]]
                                                     ) -> None:
    copy = _variant(finished[0], tmp_path,
                    _resave("manifest.json", lambda b: b"\xef\xbb\xbf" + b))
    before = (copy / "metrics.csv").read_bytes()
    _ok(cli(finished[0].parents[2], "run", "--resume", str(copy), "--no-progress",
            "--format", "json"))
    assert (copy / "metrics.csv").read_bytes() == before


def test_a_manifest_in_utf16_is_refused_naming_the_file(tmp_path: Path,
                                                        finished: tuple[Path, dict[str, Any]]
                                                        ) -> None:
    copy = _variant(finished[0], tmp_path, _resave(
        "manifest.json", lambda b: b.decode().encode("utf-16")))
    _refused(_report_of(copy, tmp_path), "manifest.json")


def test_metrics_csv_with_decimal_commas_is_refused_naming_file_and_line(
        tmp_path: Path, finished: tuple[Path, dict[str, Any]]) -> None:
    copy = _variant(finished[0], tmp_path, _resave(
        "metrics.csv", lambda b: b.replace(b",0.", b",0,")))
    _refused(_report_of(copy, tmp_path), "metrics.csv:2")


def _truncate_metrics(d: Path) -> None:
    data = (d / "metrics.csv").read_bytes()
    (d / "metrics.csv").write_bytes(data[: len(data) - 20])


@pytest.mark.parametrize("damage", [
    lambda d: (d / "per_query.parquet").unlink(),
    lambda d: (d / "timings.csv").unlink(),
    _truncate_metrics,
], ids=["per-query-gone", "timings-gone", "metrics-cut"])
def test_a_refused_resume_leaves_a_finished_run_finished(
        tmp_path: Path, finished: tuple[Path, dict[str, Any]], damage: Any) -> None:
    """A CI retry (``ltrbench run --resume RUN || true``) refused for a damaged table rewrote
    the manifest first (finished = null, a resume recorded): report then skipped the run."""
    copy = _variant(finished[0], tmp_path, damage)
    before = (copy / "manifest.json").read_bytes()
    r = cli(finished[0].parents[2], "run", "--resume", str(copy), "--no-progress")
    _refused(r, str(copy))
    assert (copy / "manifest.json").read_bytes() == before


# --- machine-read outputs ---------------------------------------------------------------------


def test_run_format_json_is_strict_json_and_agrees_with_metrics_csv(
        finished: tuple[Path, dict[str, Any]]) -> None:
    run_dir, doc = finished
    rows = list(csv.DictReader(io.StringIO((run_dir / "metrics.csv").read_text())))
    test = {r["metric"]: float(r["value"]) for r in rows if r["split"] == "test"}
    printed = doc["metrics"]["random"]["test"]
    assert test
    assert {k: printed[k]["mean"] for k in test} == test


def test_report_format_json_on_stdout_is_the_leaderboard_json_it_writes(
        work: Path, finished: tuple[Path, dict[str, Any]]) -> None:
    r = _ok(cli(work, "report", "--runs", str(finished[0]), "--out", "rep-stdout",
                "--no-plots", "--no-progress", "--format", "json"))
    assert _strict_json(r.out) == json.loads((work / "rep-stdout" / "leaderboard.json")
                                             .read_text())


def test_report_twice_writes_the_same_bytes(work: Path,
                                            finished: tuple[Path, dict[str, Any]]) -> None:
    names = ("leaderboard.md", "leaderboard.csv", "leaderboard.json", "leaderboard.tex")
    seen = []
    for _ in range(2):
        _ok(cli(work, "report", "--runs", str(finished[0]), "--out", "rep-twice", "--no-plots",
                "--no-progress"))
        seen.append({n: (work / "rep-twice" / n).read_bytes() for n in names})
    assert seen[0] == seen[1]


def test_resume_of_a_finished_run_duplicates_no_row(work: Path,
                                                    finished: tuple[Path, dict[str, Any]]
                                                    ) -> None:
    run_dir, _ = finished
    files = ("metrics.csv", "timings.csv", "per_query.parquet", "scores.parquet")
    before = {n: (run_dir / n).read_bytes() for n in files}
    r = _ok(cli(work, "run", "--resume", str(run_dir), "--no-progress", "--format", "json"))
    assert _strict_json(r.out)["run_dir"].endswith(run_dir.name)
    assert {n: (run_dir / n).read_bytes() for n in files} == before


def test_the_same_run_twice_gives_the_same_metrics_bytes(work: Path,
                                                         finished: tuple[Path, dict[str, Any]]
                                                         ) -> None:
    r = _ok(cli(work, "run", "--dataset", "data", "--models", "random", "--seeds", "0",
                "--quick", "--out", "res-again", "--no-progress", "--format", "json"))
    again = work / _strict_json(r.out)["run_dir"]
    assert (again / "metrics.csv").read_bytes() == (finished[0] / "metrics.csv").read_bytes()


def test_evaluate_json_of_all_blank_queries_is_null_not_nan(tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_bytes(b"0 qid:1 1:1\n0 qid:1 1:2\n0 qid:2 1:1\n")
    (tmp_path / "s.txt").write_bytes(b"1\n2\n3\n")
    doc = _strict_json(_ok(cli(tmp_path, "evaluate", "--data", "d.txt", "--scores", "s.txt",
                               "--format", "json")).out)
    assert set(doc["metrics"].values()) == {None}
    assert doc["diagnostics"]["mean_blank_as_0"]["ndcg@10"] == 0.0


def test_evaluate_csv_round_trips_run_names_with_commas_and_quotes(work: Path) -> None:
    r = _ok(cli(work, "evaluate", "--qrels", "q.txt", "--run", 'a,"b=r.txt', "--run",
                "c d=b.txt", "--metrics", "ndcg@10", "--format", "csv"))
    rows = list(csv.DictReader(io.StringIO(r.out)))
    assert [row["run"] for row in rows] == ['a,"b', "c d"] or \
        sorted(row["run"] for row in rows) == sorted(['a,"b', "c d"])


def test_per_query_csv_quotes_query_ids_holding_commas_and_quotes(tmp_path: Path) -> None:
    (tmp_path / "q.txt").write_bytes(b'q,1 0 a 1\nq,1 0 b 0\n"q2" 0 d 1\n')
    (tmp_path / "r.txt").write_bytes(b'q,1 Q0 a 1 0.4 t\nq,1 Q0 b 2 0.9 t\n"q2" Q0 d 1 1 t\n')
    _ok(cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics", "mrr",
            "--per-query", "pq.csv", "--format", "csv"))
    text = (tmp_path / "pq.csv").read_text()
    rows = {r["qid"]: float(r["mrr"]) for r in csv.DictReader(io.StringIO(text))}
    assert rows == {"q,1": 0.5, '"q2"': 1.0}  # b ranks first, a (relevant) second


def test_evaluate_json_stdout_holds_only_json_when_the_run_warns(work: Path) -> None:
    (work / "half.txt").write_bytes(b"1 Q0 a 1 0.4 t\n1 Q0 b 2 0.9 t\n1 Q0 c 3 0.1 t\n")
    r = _ok(cli(work, "evaluate", "--qrels", "q.txt", "--run", "A=r.txt", "--run",
                "B=half.txt", "--format", "json"))
    doc = _strict_json(r.out)
    assert doc["dropped"] == ["2"]
    assert "warning" in r.err


def test_evaluate_twice_writes_the_same_per_query_bytes(work: Path) -> None:
    seen = []
    for _ in range(2):
        _ok(cli(work, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query",
                "twice.json", "--format", "csv"))
        seen.append((work / "twice.json").read_bytes())
    assert seen[0] == seen[1]


def test_evaluate_csv_and_json_print_the_same_numbers(work: Path, clean_csv: str) -> None:
    doc = _strict_json(_ok(cli(work, "evaluate", "--data", "d.txt", "--scores", "s.txt",
                               "--format", "json")).out)
    rows = {r["metric"]: float(r["value"]) for r in csv.DictReader(io.StringIO(clean_csv))}
    assert rows == doc["metrics"]


# --- paths a script builds ---------------------------------------------------------------------


@pytest.mark.parametrize("name", ["-q.txt", "données q.txt", "q (copy).txt", "q;rm.txt",
                                  "q'quote.txt", "q\u200bzw.txt"])
def test_odd_input_file_names_give_the_clean_numbers(work: Path, tmp_path: Path, name: str,
                                                     clean_trec: str) -> None:
    shutil.copy(work / "q.txt", tmp_path / name)
    shutil.copy(work / "r.txt", tmp_path / "r.txt")
    r = _ok(cli(tmp_path, "evaluate", f"--qrels={name}", "--run", "r.txt", "--format", "csv"))
    assert r.out == clean_trec
    assert (tmp_path / name).read_bytes() == QRELS


def test_a_dash_leading_file_given_as_a_separate_word_names_the_option(work: Path) -> None:
    _refused(cli(work, "evaluate", "--qrels", "-q.txt", "--run", "r.txt"), "--qrels")


def test_a_windows_path_names_the_path_as_given(work: Path) -> None:
    _refused(cli(work, "evaluate", "--qrels", "sub\\q.txt", "--run", "r.txt"), "sub\\q.txt")


def test_a_per_query_name_over_the_file_system_limit_is_refused_before_any_work(
        work: Path) -> None:
    name = "é" * 130 + ".csv"  # 264 bytes in UTF-8, 134 characters
    _refused(cli(work, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query", name),
             "--per-query", "255")
    assert not any(p.name.startswith("é") for p in work.iterdir())


def test_run_out_with_spaces_and_non_ascii_names_the_report_command_to_paste(
        work: Path) -> None:
    import shlex

    r = _ok(cli(work, "run", "--dataset", "data", "--models", "random", "--seeds", "0",
                "--quick", "--out", "rés ultats", "--no-progress"))
    line = next(x for x in r.out.splitlines() if x.startswith("next: ltrbench report"))
    words = shlex.split(line.removeprefix("next: ").split("  (")[0])
    assert words[-2:] == ["--out", "rés ultats"]


def test_a_pipe_given_as_an_input_is_refused_saying_to_write_a_file_first(work: Path) -> None:
    """``--run <(sort run.txt)`` / ``cat run.txt | ltrbench ... --run /dev/stdin``."""
    read, write = os.pipe()
    try:
        os.write(write, RUN)
        os.close(write)
        r = cli(work, "evaluate", "--qrels", "q.txt", "--run", f"/dev/fd/{read}")
    finally:
        os.close(read)
    _refused(r, f"/dev/fd/{read}", "pipe", "write it to a file first")


def test_a_fifo_given_as_qrels_is_refused_without_blocking(work: Path, tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "q.fifo")
    _refused(cli(work, "evaluate", "--qrels", str(tmp_path / "q.fifo"), "--run", "r.txt"),
             "q.fifo", "pipe")


@pytest.mark.parametrize("name", ["pq.jsonl", "pq.ndjson", "pq.yaml"])
def test_a_per_query_name_of_another_text_format_is_refused_before_any_work(
        work: Path, name: str) -> None:
    _refused(cli(work, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query", name),
             "--per-query", name, ".csv or .json")
    assert not (work / name).exists()


@pytest.mark.parametrize("argv", [
    ("evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query", "pq.json "),
    ("evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query", " pq.csv"),
    ("run", "--dataset", "data", "--models", "random", "--seeds", "0", "--quick", "--out",
     "res blank ", "--no-progress"),
    ("report", "--runs", "res", "--out", "rep blank\u00a0", "--no-plots"),
], ids=["per-query-trailing", "per-query-leading", "run-out-trailing", "report-out-nbsp"])
def test_a_new_output_name_with_a_template_blank_is_refused_and_nothing_made(
        work: Path, argv: tuple[str, ...]) -> None:
    before = sorted(p.name for p in work.iterdir())
    option = next(a for a in argv if a in {"--per-query", "--out"})
    _refused(cli(work, *argv), option, "blank")
    assert sorted(p.name for p in work.iterdir()) == before


def test_an_existing_output_file_with_a_trailing_blank_is_the_users_own_and_written(
        work: Path) -> None:
    (work / "old.csv ").write_text("x\n")
    _ok(cli(work, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query", "old.csv ",
            "--format", "csv"))
    assert (work / "old.csv ").read_text().startswith("qid,")


@pytest.mark.parametrize("argv", [("datasets", "list", "--format", "json"),
                                  ("metrics", "list", "--format", "json")])
def test_the_listing_commands_print_strict_json(work: Path, argv: tuple[str, ...]) -> None:
    assert _strict_json(_ok(cli(work, *argv)).out)


def test_reproduce_of_an_edited_run_exits_1_naming_the_row_and_leaves_the_run_alone(
        tmp_path: Path, finished: tuple[Path, dict[str, Any]]) -> None:
    value = next(r["value"] for r in csv.DictReader(io.StringIO(
        (finished[0] / "metrics.csv").read_text()))
        if r["split"] == "test" and r["metric"] == "ndcg@10")
    copy = _variant(finished[0], tmp_path, _resave("metrics.csv", lambda b: b.replace(
        f"test,ndcg@10,{value},".encode(), b"test,ndcg@10,0.125,")))
    before = {p.relative_to(copy): p.read_bytes() for p in copy.rglob("*") if p.is_file()}
    r = cli(finished[0].parents[2], "reproduce", "--run", str(copy), "--format", "json")
    assert r.status == 1, r.err
    doc = _strict_json(r.out)
    [diff] = doc["runs"][0]["differences"]
    assert (diff["file"], diff["key"]["metric"], diff["original"]) == ("metrics.csv",
                                                                      "ndcg@10", 0.125)
    assert diff["reproduced"] == float(value)
    assert {p.relative_to(copy): p.read_bytes() for p in copy.rglob("*")
            if p.is_file()} == before


@pytest.mark.parametrize("spelling", ["data/", ".//data//"])
def test_one_folder_spelled_as_a_script_builds_it_is_one_config_hash(
        work: Path, finished: tuple[Path, dict[str, Any]], spelling: str) -> None:
    doc = _strict_json(_ok(cli(work, "run", "--dataset", spelling, "--models", "random",
                               "--seeds", "0", "--quick", "--out", "res-spelled",
                               "--no-progress", "--format", "json")).out)
    assert doc["config_hash"] == finished[1]["config_hash"]  # run as --dataset data


def test_a_bare_resume_with_the_folder_spelled_with_a_slash_continues_the_run(
        tmp_path: Path) -> None:
    """A CI retry ``ltrbench run --dataset $(DATA)/ --resume`` after a run started as ``data``."""
    letor_folder(tmp_path / "data")
    args = ("--models", "random", "--seeds", "0", "--quick", "--out", "o", "--no-progress",
            "--format", "json")
    first = _strict_json(_ok(cli(tmp_path, "run", "--dataset", "data", *args)).out)
    manifest = tmp_path / first["run_dir"] / "manifest.json"
    doc = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**doc, "finished": None}))  # killed after training
    again = _strict_json(_ok(cli(tmp_path, "run", "--dataset", "data/", "--resume", *args)).out)
    assert again["run_id"] == first["run_id"]


def test_a_users_folder_named_like_a_catalogue_dataset_keeps_its_dot_slash(
        work: Path, tmp_path: Path) -> None:
    letor_folder(tmp_path / "synthetic")
    doc = _strict_json(_ok(cli(tmp_path, "run", "--dataset", "./synthetic/", "--models",
                               "random", "--seeds", "0", "--quick", "--out", "o",
                               "--no-progress", "--format", "json")).out)
    recorded = json.loads((tmp_path / doc["run_dir"] / "manifest.json").read_text())
    assert recorded["dataset"]["path"] == str((tmp_path / "synthetic").resolve())


# --- configs rendered by a template ----------------------------------------------------------


def test_a_config_saved_with_crlf_and_a_bom_has_the_clean_config_hash(work: Path) -> None:
    (work / "lf.toml").write_text(CONFIG)
    (work / "crlf.toml").write_bytes(b"\xef\xbb\xbf" + CONFIG.replace("\n", "\r\n").encode())
    hashes = [_strict_json(_ok(cli(work, "run", "--config", name, "--out", f"cfg-{name}",
                                   "--no-progress", "--format", "json")).out)["config_hash"]
              for name in ("lf.toml", "crlf.toml")]
    assert hashes[0] == hashes[1]


@pytest.mark.parametrize(("text", "words"), [
    (CONFIG.replace("n_trees = 5", "n_trees = {{ n_trees }}"), ("line 7", "n_trees")),
    (CONFIG.replace('"data"', '"{{ dataset }}"'), ("{{ dataset }}",)),
    (CONFIG.replace("[0]", "[{{ seed }}]"), ("line 3",)),
    (CONFIG.replace('["random"]', '[""]'), ("models",)),
    (CONFIG.replace("[0]", "[, 0]"), ("line 3",)),
    (CONFIG + "\n[params]\nn_trees = 7\n", ("params",)),
    (CONFIG.replace("quick = true\n", "quick = true\nn_trees = 5\n"), ("n_trees",)),
    (CONFIG.replace("quick = true", 'quick = ""'), ("quick",)),
], ids=["unrendered-number", "unrendered-string", "unrendered-in-array", "empty-model",
        "empty-first-item", "table-twice", "key-in-the-wrong-table", "empty-boolean"])
def test_a_badly_rendered_config_is_exit_2_naming_the_key_or_line(
        work: Path, tmp_path: Path, text: str, words: tuple[str, ...]) -> None:
    (tmp_path / "bad.toml").write_text(text.replace('"data"', f'"{work / "data"}"'))
    _refused(cli(tmp_path, "run", "--config", "bad.toml", "--out", "o", "--no-progress"),
             "bad.toml", *words)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(("value", "said"), [
    ("quick = True", "true and false, in lower case"),
    ("quick = None", "no null"),
    ("seeds = [0, None]", "no null"),
    ("[params]\nlearning_rate = .1", "0.1"),
], ids=["python-true", "python-none", "none-in-array", "leading-point"])
def test_a_value_a_template_spells_in_python_is_refused_saying_the_toml_spelling(
        tmp_path: Path, value: str, said: str) -> None:
    (tmp_path / "j.toml").write_text(f'dataset = "data"\nmodels = ["random"]\n{value}\n')
    _refused(cli(tmp_path, "run", "--config", "j.toml", "--out", "o", "--no-progress"),
             "j.toml", "line", said)


# --- the environment of a container -------------------------------------------------------------


def test_a_missing_tmpdir_does_not_stop_evaluate_writing_per_query(
        work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMPDIR", str(work / "no such tmp"))
    monkeypatch.setattr(tempfile, "tempdir", None)
    _ok(cli(work, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query",
            "tmp-gone.csv", "--format", "csv"))
    assert (work / "tmp-gone.csv").stat().st_size > 0


def test_a_far_time_zone_keeps_run_ids_and_manifest_times_in_utc(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    letor_folder(tmp_path / "data")
    monkeypatch.setenv("TZ", "Pacific/Kiritimati")  # UTC+14: another date than UTC half the day
    time.tzset()
    try:
        r = _ok(cli(tmp_path, "run", "--dataset", "data", "--models", "random", "--seeds", "0",
                    "--quick", "--out", "o", "--no-progress", "--format", "json"))
    finally:
        monkeypatch.undo()
        time.tzset()
    doc = _strict_json(r.out)
    manifest = json.loads((tmp_path / doc["run_dir"] / "manifest.json").read_text())
    started = manifest["started"]
    assert started.endswith("+00:00")
    stamp = started[:19].replace("-", "").replace(":", "")  # 2026-11-27T06:33:21 -> ...T063321
    assert f"-{stamp}Z" in doc["run_id"]


def test_a_cache_home_that_is_a_device_is_named_with_the_remedy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``XDG_CACHE_HOME=/dev/null`` (a container that points caches away) and no
    ``LTRBENCH_DATA_DIR``: a generated stand-in said only "/dev/null/ltrbench: Not a directory"."""
    monkeypatch.delenv("LTRBENCH_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "/dev/null")
    r = cli(tmp_path, "run", "--dataset", "synthetic-mslr30k:0.0005", "--models", "random",
            "--seeds", "0", "--quick", "--out", "o", "--no-progress")
    _refused(r, "/dev/null/ltrbench", "--data-dir", "LTRBENCH_DATA_DIR")


def test_umask_077_makes_private_output_files(work: Path) -> None:
    old = os.umask(0o077)
    try:
        _ok(cli(work, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query",
                "private.csv", "--format", "csv"))
    finally:
        os.umask(old)
    assert stat.S_IMODE((work / "private.csv").stat().st_mode) == 0o600


def test_a_container_environment_prints_the_same_csv_bytes(work: Path, clean_csv: str) -> None:
    """LANG=C, a far time zone, no HOME, umask 077, stdin closed, a dumb ten-column terminal,
    NO_COLOR and FORCE_COLOR both set: the CSV a script parses is the clean one, byte for byte."""
    env = {k: v for k, v in os.environ.items()
           if k not in {"HOME", "LANG", "LC_ALL", "PYTHONUTF8", "PYTHONIOENCODING",
                        "PYTHONWARNINGS", "LTRBENCH_BLAS"}}
    env.update(PYTHONPATH=str(ROOT), LANG="C", LC_ALL="C", TZ="Pacific/Kiritimati",
               TERM="dumb", COLUMNS="10", NO_COLOR="1", FORCE_COLOR="1")
    p = subprocess.run(["sh", "-c", f'umask 077; exec "{sys.executable}" -m bench evaluate '
                        "--data d.txt --scores s.txt --per-query 'pq env.csv' --format csv <&-"],
                       cwd=work, env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert not p.stderr, p.stderr
    assert p.stdout == clean_csv
    assert stat.S_IMODE((work / "pq env.csv").stat().st_mode) == 0o600


def test_warnings_made_errors_as_ci_does_are_one_error_line_not_a_traceback(work: Path) -> None:
    """``PYTHONWARNINGS=error`` (a CI that fails on any warning): ltrbench's own warning
    escaped ``main`` as a traceback with exit 1."""
    import contextlib
    import warnings

    from bench import cli as bench_cli
    from tests.hostile_kit import chdir

    (work / "one.txt").write_bytes(b"1 Q0 a 1 0.4 t\n1 Q0 b 2 0.9 t\n")
    out, err = io.StringIO(), io.StringIO()
    with chdir(work), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            status: int | None = bench_cli.main(["evaluate", "--qrels", "q.txt", "--run",
                                                 "A=r.txt", "--run", "B=one.txt"])
        except Warning as exc:
            status, _ = None, err.write(f"escaped: {exc!r}")
    assert status == 2, err.getvalue()
    assert err.getvalue().startswith("error: 1 qrels query has no run line"), err.getvalue()
    assert "warning made an error" in err.getvalue()
    assert out.getvalue() == ""


def test_every_input_of_this_file_is_unchanged(work: Path) -> None:
    for name, data in (("q.txt", QRELS), ("r.txt", RUN), ("b.txt", RUN_B), ("d.txt", DATA),
                       ("s.txt", SCORES)):
        assert (work / name).read_bytes() == data, name


@pytest.fixture(autouse=True)
def _no_stray_tilde(work: Path) -> Iterator[None]:
    yield
    assert not (work / "~").exists(), "a folder named ~ was made in the working folder"
