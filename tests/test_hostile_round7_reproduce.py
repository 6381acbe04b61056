"""Round 7 of the hostile catalogue: ``ltrbench reproduce`` of a tampered tuned leaderboard
(``leaderboard-tuned-<dataset>.json``, written by ``ltrbench report --tuned``).

1. **Edited numbers beside the table**: a tuned document states, beside its table, each model's
   tuned-versus-default comparison (``tuned[i].versus_default``: the means, the difference, the
   p-values) and the tuning's trials (``tuned[i].trials``). Reproduce compared only the table:
   a delta changed from 0.014 to 0.5, a Holm p-value from 0.06 to 0.0001, a best trial value,
   or the comparison deleted, all reproduced as ``match``. Now both are rebuilt (from the new
   runs; from the tune folder when it is there) and every edit is a mismatch naming the key.
2. **A document that contradicts itself**: a ``tuned`` entry of another dataset than its table,
   or the same run named as default and tuned (directly, or by a run folder replaced by a link
   to the other run): reproduced as ``match``, or refused with a message about model
   parameters. Now refused before anything runs, naming the key.
3. **A run folder replaced by a file**: skipped as "config not found"; now an error naming the
   key and saying it is a file. A missing config names which run (default or tuned) and where.
   ``report --tuned --runs DEFAULT RUN/metrics.csv`` said "<out>/runs/RUN/metrics.csv: run
   directory not found", a path the user never gave; now the value, and that it is a file.

:data:`CLASSES` maps each test to its class for the closing counts.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_reproduce import _loader
from tuning_fixture import make_runs

from bench.benchmark.reproduce import reproduce_leaderboard
from bench.errors import DataError
from bench.report.tuning_report import write_tuned_report

CLASSES = {
    "test_an_edited_number_beside_the_tuned_table_is_a_mismatch": "silently wrong",
    "test_an_untouched_tuned_document_still_matches": "silently wrong",
    "test_a_tuned_document_that_contradicts_itself_is_refused_before_any_run": "silent accept",
    "test_a_missing_config_names_the_run_it_belongs_to": "unclear error",
    "test_report_tuned_names_a_runs_value_that_is_not_a_run_directory": "unclear error",
}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results folder with a default run, a tuned run, their tune folder and the tuned
    leaderboard written by ``report --tuned``."""
    out = tmp_path_factory.mktemp("tuned-world")
    default, tuned, folder = make_runs(out, ("lightgbm-lambdarank", "xgboost-ndcg"))
    write_tuned_report(folder, [default, tuned], out, plots=False)
    return out


def _copy(world: Path, tmp_path: Path, edit: Callable[[dict[str, Any], Path], None]) -> Path:
    dest = tmp_path / "res"
    shutil.copytree(world, dest, symlinks=True)
    (path,) = dest.glob("leaderboard-tuned-*.json")
    doc = json.loads(path.read_text())
    edit(doc, dest)
    path.write_text(json.dumps(doc))
    return path


def _entry(doc: dict[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = doc["tuned"][0]
    return entry


def _run_dir(doc: dict[str, Any], root: Path, role: str) -> Path:
    return root / _entry(doc)[role]["run_dir"]


EDITS: dict[str, tuple[Callable[[dict[str, Any], Path], None], str]] = {
    "delta": (lambda d, r: _entry(d)["versus_default"][0].update(delta=0.5),
              "tuned.versus_default[0].delta"),
    "tuned mean": (lambda d, r: _entry(d)["versus_default"][1].update(tuned=0.999),
                   "tuned.versus_default[1].tuned"),
    "Holm p-value": (lambda d, r: _entry(d)["versus_default"][1].update(p_t_holm=1e-4),
                     "tuned.versus_default[1].p_t_holm"),
    "comparison deleted": (lambda d, r: _entry(d).update(versus_default=[]),
                           "tuned.versus_default"),
    "comparison a text": (lambda d, r: _entry(d).update(versus_default="all better"),
                          "tuned.versus_default"),
    "best trial value": (lambda d, r: _entry(d)["trials"][0].update(best_value=0.99),
                         "tuned.trials[0].best_value"),
    "trials of a model dropped": (lambda d, r: _entry(d).update(trials=_entry(d)["trials"][:1]),
                                  "tuned.trials"),
}


@pytest.mark.parametrize("case", list(EDITS))
def test_an_edited_number_beside_the_tuned_table_is_a_mismatch(world: Path, tmp_path: Path,
                                                                case: str) -> None:
    edit, key = EDITS[case]
    # the table files against the JSON first (round 12), then the two runs
    _, outcome = reproduce_leaderboard(_copy(world, tmp_path, edit), loader=_loader)
    assert outcome.status == "mismatch", (case, outcome.as_dict())
    assert [d["key"] for d in outcome.differences] == [key], outcome.differences


def test_an_untouched_tuned_document_still_matches(world: Path, tmp_path: Path) -> None:
    # the table files against the JSON first (round 12), then the two runs
    rendered, outcome = reproduce_leaderboard(_copy(world, tmp_path, lambda d, r: None), loader=_loader)
    assert rendered.status == "match", rendered.as_dict()
    assert outcome.status == "match", outcome.as_dict()
    assert outcome.compared > 3000  # the table, versus_default and the trials


def _same_twice(doc: dict[str, Any], root: Path) -> None:
    _entry(doc)["default_run"] = dict(_entry(doc)["tuned_run"])


def _linked(doc: dict[str, Any], root: Path) -> None:
    default = _run_dir(doc, root, "default_run")
    shutil.rmtree(default)
    os.symlink(_run_dir(doc, root, "tuned_run"), default)


def _a_file(doc: dict[str, Any], root: Path) -> None:
    default = _run_dir(doc, root, "default_run")
    shutil.rmtree(default)
    default.write_text("not a run\n")


CONTRADICTIONS: dict[str, tuple[Callable[[dict[str, Any], Path], None], tuple[str, ...]]] = {
    "tuned entry of another dataset": (lambda d, r: _entry(d).update(dataset="other"),
                                       ("tuned[0].dataset 'other'", "tables[0]")),
    "table of another dataset": (lambda d, r: d["tables"][0].update(dataset="other"),
                                 ("tuned[0].dataset", "'other'")),
    "one run named twice": (_same_twice, ("tuned[0]", "the same run")),
    "default run folder a link to the tuned run": (_linked, ("tuned[0]", "the same run")),
    "default run folder replaced by a file": (_a_file, ("run_dir", "a file, not a run")),
}


@pytest.mark.parametrize("case", list(CONTRADICTIONS))
def test_a_tuned_document_that_contradicts_itself_is_refused_before_any_run(
        world: Path, tmp_path: Path, case: str) -> None:
    edit, words = CONTRADICTIONS[case]
    path = _copy(world, tmp_path, edit)
    ran: list[str] = []

    def loader(spec: str, data_dir: Any = None) -> Any:
        ran.append(spec)
        return _loader(spec, data_dir)

    with pytest.raises(DataError) as info:
        reproduce_leaderboard(path, loader=loader)
    assert path.name in str(info.value)
    for word in words:
        assert word in str(info.value), (case, str(info.value))
    assert ran == []


@pytest.mark.parametrize("role", ["default_run", "tuned_run"])
def test_a_missing_config_names_the_run_it_belongs_to(world: Path, tmp_path: Path,
                                                      role: str) -> None:
    def edit(doc: dict[str, Any], root: Path) -> None:
        (_run_dir(doc, root, role) / "config.toml").unlink()

    # the table files against the JSON first (round 12), then the two runs
    _, outcome = reproduce_leaderboard(_copy(world, tmp_path, edit), loader=_loader)
    assert outcome.status == "skipped"
    assert f"the {role.replace('_', ' ')}'s config.toml not found" in outcome.reason
    assert "config.toml'" in outcome.reason  # the place the document gives


@pytest.mark.parametrize("shape", ["a file of the run", "a name found nowhere"])
def test_report_tuned_names_a_runs_value_that_is_not_a_run_directory(world: Path, tmp_path: Path,
                                                                     shape: str) -> None:
    from hostile_kit import cli, refused

    (doc_path,) = world.glob("leaderboard-tuned-*.json")
    doc = json.loads(doc_path.read_text())
    default = _run_dir(doc, world, "default_run")
    second = str(default / "metrics.csv") if shape == "a file of the run" else "nowhere"
    res = cli(tmp_path, "report", "--tuned", str(world / _entry(doc)["tune_dir"]), "--runs",
              str(default), second, "--out", str(tmp_path / "rep"), "--no-plots")
    words = ("a file, not a run directory",) if shape == "a file of the run" else (
        "no run directory there nor at", str(tmp_path / "rep" / "runs" / "nowhere"))
    assert refused(res, f"--runs {second}", *words) is None, res
