"""Hostile ``ltrbench reproduce`` cases (issue 19): a leaderboard whose paths point outside its
folder, a path read against the working directory instead of the leaderboard's folder, a
config edited after the run, a damaged manifest, a tolerance that compares nothing.

The right behaviour: the config that is run again is the one the run recorded, found beside
the leaderboard, or a clear error (exit 2, one line) before anything runs; a tolerance is a
finite number >= 0. :data:`CLASSES` maps each case to its class.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from test_reproduce import CONFIG, _loader

from bench import cli
from bench.benchmark.pipeline import run_benchmark
from bench.benchmark.reproduce import reproduce_leaderboard, reproduce_run
from bench.errors import LtrbenchError

CLASSES = {
    "test_a_run_config_outside_the_leaderboard_folder_is_refused": "silent accept",
    "test_a_run_id_that_climbs_out_of_the_folder_is_refused": "silent accept",
    "test_a_relative_run_config_is_read_beside_the_leaderboard_not_in_the_cwd":
        "silently wrong",
    "test_a_config_edited_after_the_run_is_refused": "silently wrong",
    "test_a_damaged_manifest_of_a_run_is_one_clear_line": "traceback",
    "test_a_damaged_manifest_beside_a_leaderboard_is_one_clear_line": "traceback",
    "test_a_tolerance_that_is_not_a_finite_number_at_least_zero_is_refused": "silently wrong",
    "test_a_leaderboard_argument_that_is_not_md_or_json_is_refused": "silent accept",
    "test_a_leaderboard_folder_reads_its_leaderboard_json": "unclear error",
    "test_reproduce_out_in_the_run_directory_it_reproduces_is_refused": "input destroyed",
}


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return run_benchmark(CONFIG, out_dir=tmp_path_factory.mktemp("results"), progress=False,
                         loader=_loader)


@pytest.fixture
def board(original: Path, tmp_path: Path) -> Path:
    """A copy of the run under ``tmp/res/runs`` and its leaderboard.json in ``tmp/res``."""
    import shutil

    from bench.report.build import build_leaderboard

    res = tmp_path / "res"
    run = res / "runs" / original.name
    shutil.copytree(original, run)
    doc = build_leaderboard([run], base_dir=res)
    (res / "leaderboard.json").write_text(json.dumps(doc))
    return res


def _edit_table(board: Path, **changes: object) -> None:
    path = board / "leaderboard.json"
    doc = json.loads(path.read_text())
    doc["tables"][0].update(changes)
    path.write_text(json.dumps(doc))


def _refused(call: object, *words: str) -> None:
    with pytest.raises(LtrbenchError) as info:
        call()  # type: ignore[operator]
    for w in words:
        assert w in str(info.value), (w, str(info.value))


@pytest.mark.parametrize("where", ["/etc/passwd", "../../etc/passwd", "runs/../../x.toml"])
def test_a_run_config_outside_the_leaderboard_folder_is_refused(board: Path, where: str) -> None:
    _edit_table(board, run_config=where, run_dir=None)
    _refused(lambda: reproduce_leaderboard(board / "leaderboard.json", loader=_loader),
             "run_config", where, "outside")


def test_a_run_id_that_climbs_out_of_the_folder_is_refused(board: Path) -> None:
    _edit_table(board, run_config=None, run_dir=None, run_id="../../elsewhere")
    _refused(lambda: reproduce_leaderboard(board / "leaderboard.json", loader=_loader),
             "run_id", "../../elsewhere")


def test_a_relative_run_config_is_read_beside_the_leaderboard_not_in_the_cwd(
        board: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: ``runs/<id>/config.toml`` was looked up in the working directory first, so
    another run's config (same id, another folder) was run and compared."""
    run_id = json.loads((board / "leaderboard.json").read_text())["tables"][0]["run_id"]
    elsewhere = tmp_path / "cwd" / "runs" / run_id
    elsewhere.mkdir(parents=True)
    (elsewhere / "config.toml").write_text('dataset = "tiny"\nmodels = ["random"]\n')
    monkeypatch.chdir(tmp_path / "cwd")
    (outcome,) = reproduce_leaderboard(board / "leaderboard.json", loader=_loader)
    assert outcome.config == os.fspath(board / "runs" / run_id / "config.toml")
    assert outcome.status == "match", outcome.differences[:3]


def test_a_config_edited_after_the_run_is_refused(original: Path, tmp_path: Path) -> None:
    """The config run again would not be the config that made the numbers."""
    import shutil

    run = tmp_path / original.name
    shutil.copytree(original, run)
    text = (run / "config.toml").read_text()
    assert "seeds = [\n    0,\n    1,\n]" in text
    (run / "config.toml").write_text(text.replace("seeds = [\n    0,\n    1,\n]", "seeds = [0]"))
    _refused(lambda: reproduce_run(run, loader=_loader), "config.toml", "edited", "config_hash")


@pytest.mark.parametrize("body", [b"{not json", b"[1, 2]", b"\xff\xfe"])
def test_a_damaged_manifest_of_a_run_is_one_clear_line(
        original: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], body: bytes) -> None:
    import shutil

    run = tmp_path / original.name
    shutil.copytree(original, run)
    (run / "manifest.json").write_bytes(body)
    status = cli.main(["reproduce", "--run", str(run), "--no-progress"])
    err = capsys.readouterr().err
    assert status == 2
    assert "Traceback" not in err
    assert err.startswith("error: ")
    assert "manifest.json" in err


def test_a_damaged_manifest_beside_a_leaderboard_is_one_clear_line(
        board: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = next((board / "runs").iterdir())
    (run / "manifest.json").write_text("{not json")
    with pytest.raises(LtrbenchError, match=r"manifest\.json"):
        reproduce_leaderboard(board / "leaderboard.json", loader=_loader)


@pytest.mark.parametrize("tol", ["nan", "-1", "inf", "-inf"])
def test_a_tolerance_that_is_not_a_finite_number_at_least_zero_is_refused(
        original: Path, capsys: pytest.CaptureFixture[str], tol: str) -> None:
    """``--tolerance nan`` made every comparison false, so every number "matched"."""
    status = cli.main(["reproduce", "--run", str(original), f"--tolerance={tol}", "--no-progress"])
    err = capsys.readouterr().err
    assert status == 2
    assert "--tolerance" in err
    assert tol in err


def test_a_leaderboard_argument_that_is_not_md_or_json_is_refused(board: Path) -> None:
    """``reproduce notes.txt`` read ``notes.json`` beside it as the leaderboard."""
    (board / "notes.txt").write_text("my notes\n")
    (board / "notes.json").write_text((board / "leaderboard.json").read_text())
    _refused(lambda: reproduce_leaderboard(board / "notes.txt", loader=_loader),
             "notes.txt", "leaderboard.md or leaderboard.json")


def test_a_leaderboard_folder_reads_its_leaderboard_json(board: Path) -> None:
    """``reproduce results/`` looked for ``results.json`` beside the folder."""
    (outcome,) = reproduce_leaderboard(board, loader=_loader)
    assert outcome.status == "match", outcome.differences[:3]


@pytest.mark.parametrize("where", ["itself", "inside"])
def test_reproduce_out_in_the_run_directory_it_reproduces_is_refused(
        original: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str) -> None:
    """``reproduce --run R --out R`` wrote the new run into ``R/runs/``, among the files of the
    run it compares against."""
    import shutil

    run = tmp_path / original.name
    shutil.copytree(original, run)
    before = sorted(p.name for p in run.iterdir())
    out = run if where == "itself" else run / "again"
    status = cli.main(["reproduce", "--run", str(run), "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert status == 2
    assert "--out" in err
    assert "--run" in err
    assert sorted(p.name for p in run.iterdir()) == before
