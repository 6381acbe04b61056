"""Hostile resumed runs and tunes, round 10 (issue 19: "tracebacks", "silent accepts"): the files
a resume reads back, hand-edited.

Before, only ``reproduce`` checked the types of the manifest fields it read
(``bench.benchmark.reproduce_steps``); ``run --resume`` read ``manifest.json`` unchecked
(``"dataset": [1]`` was an ``AttributeError`` traceback, ``"seeds": "1"`` and ``"resumed": "x"``
were carried on, the latter extended character by character; a manifest without
``config_hash`` was "another config (hash None)"), and tune's ``--resume`` turned a
``trials.csv`` trial number ``x`` into a ``ValueError`` traceback and a ``plan.json`` without
``seed`` into "seed differs: null then". Now one reader with one check
(:func:`bench.runs.manifest_check.read_run_manifest`) serves resume, reproduce and the Python
API, and tune's resume checks its two files by line and field. Also here: a run's manifest is
finished once (``_finish_manifest`` ran twice per run).

``python tests/test_hostile_round10_resume.py`` prints the counts.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_cases_tune import tune
from hostile_kit import cli, refused
from test_hostile_config import SPLITS

RUN = ("--dataset", "./letor", "--models", "random", "--seeds", "0", "--no-progress")


def _run(tmp: Path) -> Path:
    """A finished run of the random baseline on a five-row LETOR set: its run directory."""
    (tmp / "letor").mkdir(exist_ok=True)
    for split, data in SPLITS.items():
        (tmp / "letor" / f"{split}.txt").write_bytes(data)
    res = cli(tmp, "run", *RUN, "--out", "res")
    assert res.status == 0, res.err
    (run_dir,) = (tmp / "res" / "runs").iterdir()
    return run_dir


def _edit(run_dir: Path, change: Callable[[dict[str, Any]], None]) -> None:
    doc = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    change(doc)
    (run_dir / "manifest.json").write_text(json.dumps(doc), encoding="utf-8")


#: (name, the edit, words of the error line)
MANIFEST_CASES: list[tuple[str, Callable[[dict[str, Any]], None], tuple[str, ...]]] = [
    ("seeds-a-string", lambda d: d.update(seeds="1"), ("manifest.json", "'seeds'", "integer")),
    ("seeds-holding-a-bool", lambda d: d.update(seeds=[True]), ("manifest.json", "'seeds'")),
    ("seeds-missing", lambda d: d.pop("seeds"), ("manifest.json", "'seeds'", "missing")),
    ("config-hash-missing", lambda d: d.pop("config_hash"),
     ("manifest.json", "'config_hash'", "missing")),
    ("dataset-a-list", lambda d: d.update(dataset=[1]), ("manifest.json", "'dataset'")),
    ("dataset-inputs-a-string", lambda d: d["dataset"].update(inputs="x"),
     ("manifest.json", "'dataset.inputs'")),
    ("resumed-a-string", lambda d: d.update(resumed="x"), ("manifest.json", "'resumed'")),
    ("models-a-list", lambda d: d.update(models=["random"]), ("manifest.json", "'models'")),
    ("threads-a-string", lambda d: d.update(threads="4"), ("manifest.json", "'threads'")),
    ("finished-a-number", lambda d: d.update(finished=1), ("manifest.json", "'finished'")),
]


def resume_problem(tmp: Path, edit: Callable[[dict[str, Any]], None],
                   words: tuple[str, ...]) -> str | None:
    """None when ``run --resume`` of a run whose manifest was changed by ``edit`` is refused
    with one line holding ``words``, leaving the manifest as it was."""
    run_dir = _run(tmp)
    _edit(run_dir, edit)
    before = (run_dir / "manifest.json").read_bytes()
    res = cli(tmp, "run", *RUN, "--resume", str(run_dir))
    bad = refused(res, *words)
    changed = (run_dir / "manifest.json").read_bytes() != before
    return bad or ("the manifest was rewritten" if changed else None)


@pytest.mark.parametrize(("name", "edit", "words"), MANIFEST_CASES, ids=[c[0] for c in MANIFEST_CASES])
def test_resume_of_a_hand_edited_manifest_is_one_clear_line(
        name: str, edit: Callable[[dict[str, Any]], None], words: tuple[str, ...],
        tmp_path: Path) -> None:
    assert resume_problem(tmp_path, edit, words) is None


def test_reproduce_and_the_api_read_the_manifest_through_the_same_check(tmp_path: Path) -> None:
    """``"seeds": "1"`` passed reproduce's own, shorter list of fields and the API unchecked."""
    from bench.benchmark.api import RunResult
    from bench.errors import ConfigError

    run_dir = _run(tmp_path)
    _edit(run_dir, lambda d: d.update(seeds="1"))
    res = cli(tmp_path, "reproduce", "--run", str(run_dir), "--no-progress", "--out", "again")
    assert refused(res, "manifest.json", "'seeds'") is None
    assert not (tmp_path / "again").exists()
    with pytest.raises(ConfigError, match=r"manifest\.json: field 'seeds'"):
        _ = RunResult(run_dir).manifest


def test_a_run_finishes_its_manifest_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import bench.benchmark.pipeline as pipeline

    calls: list[bool] = []
    real = pipeline._finish_manifest

    def counted(*args: Any, **kwargs: Any) -> None:
        calls.append(kwargs["checked"])
        real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "_finish_manifest", counted)
    run_dir = _run(tmp_path)
    assert calls == [True]
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["finished"]
    assert manifest["status"]


def test_a_run_stopped_after_training_keeps_its_status_and_is_unfinished(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The behaviour the second call kept: the pairs' status written, ``finished`` unset."""
    import bench.benchmark.pipeline as pipeline

    def stop(*_a: Any, **_k: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(pipeline, "_after_training", stop)
    with pytest.raises(AssertionError):
        _run(tmp_path)
    (run_dir,) = (tmp_path / "res" / "runs").iterdir()
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["finished"] is None
    assert manifest["status"]


def _tune_folder(tmp: Path) -> Path:
    res = tune(tmp, "--model", "lightgbm", "--grid", "num_leaves=3", fit=True)
    assert res.status == 0, res.err
    (folder,) = (tmp / "res" / "tune").iterdir()
    (folder / "complete").unlink()  # as a killed tune leaves it
    return folder


def test_tune_resume_of_damaged_files_is_one_clear_line(tmp_path: Path) -> None:
    folder = _tune_folder(tmp_path)
    args = ("--model", "lightgbm", "--grid", "num_leaves=3", "--resume", str(folder))
    trials = (folder / "trials.csv").read_text(encoding="utf-8")
    lines = trials.splitlines()
    header = lines[0].split(",")
    row = lines[1].split(",")
    row[header.index("trial")] = "x"
    (folder / "trials.csv").write_text("\n".join([lines[0], ",".join(row), *lines[2:]]) + "\n",
                                       encoding="utf-8")
    assert refused(tune(tmp_path, *args, fit=True), "trials.csv", "line 2", "'trial'",
                   "'x'") is None
    (folder / "trials.csv").write_text(trials, encoding="utf-8")
    plan = json.loads((folder / "plan.json").read_text(encoding="utf-8"))
    del plan["seed"]
    (folder / "plan.json").write_text(json.dumps(plan), encoding="utf-8")
    assert refused(tune(tmp_path, *args, fit=True), "plan.json", "'seed'") is None


if __name__ == "__main__":
    import tempfile

    failing = 0
    for name, edit, words in MANIFEST_CASES:
        with tempfile.TemporaryDirectory() as d:
            why = resume_problem(Path(d), edit, words)
        failing += why is not None
        print(f"{'FAIL' if why else 'ok  '} {name}: {why or ''}")
    print(f"{failing} of {len(MANIFEST_CASES)} cases fail")
