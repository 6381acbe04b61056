"""Round 7 of the hostile catalogue: ``ltrbench reproduce`` of a tampered fold document
(``<out>/folds/<name>-folds<k...>.json``, written by ``ltrbench run --folds``).

1. **The document's own heading**: its ``dataset`` and ``folds`` (the title every rendering
   prints: which dataset, which folds) were never compared; a document saying ``Fold9`` or
   another dataset, or three folds of five, reproduced as ``match``. Now both are rebuilt from
   the fold runs and compared.
2. **A document with nothing to reproduce or of another format**: ``"tables": []`` reproduced
   as ``match`` (only the runs were compared); ``"schema": 2`` was a ``match`` too, and
   ``"format": 2`` was read as a leaderboard ("'schema' is None: this ltrbench reads leaderboard
   documents of schema 1"). Now each is refused naming the key.
3. **Errors after every fold ran, naming a deleted file**: a table metric the runs never
   computed, or one run named for two folds, failed only after re-running every fold, with a
   message naming a file of the temporary folder. Now refused before anything runs, naming the
   document's key. A run folder replaced by a file is named as such.

:data:`CLASSES` maps each test to its class for the closing counts.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hostile_kit import cli, letor_split

from bench.benchmark.reproduce_folds import reproduce_document
from bench.errors import DataError

CLASSES = {
    "test_an_edited_heading_of_a_fold_document_is_a_mismatch": "silently wrong",
    "test_an_untouched_fold_document_matches": "silently wrong",
    "test_a_fold_document_that_cannot_be_reproduced_is_refused_before_any_run":
        "unclear error",
}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two folds of a five-part LETOR root, one quick model: the results folder."""
    tmp = tmp_path_factory.mktemp("folds-world")
    root = tmp / "root"
    root.mkdir()
    for i in range(1, 6):
        (root / f"S{i}.txt").write_bytes(letor_split(4, 100 * i, i))
    res = cli(tmp, "run", "--dataset", str(root), "--folds", "1,2", "--models", "random",
              "--seeds", "0", "--no-crosscheck", "--metrics", "ndcg@10,map@10", "--out", "o")
    assert res.status == 0, res.err
    return tmp / "o"


def _copy(world: Path, tmp_path: Path, edit: Callable[[dict[str, Any], Path], None]) -> Path:
    dest = tmp_path / "o"
    shutil.copytree(world, dest, symlinks=True)
    (path,) = (dest / "folds").glob("*.json")
    doc = json.loads(path.read_text())
    edit(doc, dest)
    path.write_text(json.dumps(doc))
    return path


HEADINGS: dict[str, tuple[Callable[[dict[str, Any], Path], None], str]] = {
    "another dataset": (lambda d, r: d.update(dataset="MSLR-WEB30K"), "dataset"),
    "another fold": (lambda d, r: d["folds"].__setitem__(1, "Fold9"), "folds[1]"),
    "a fold dropped": (lambda d, r: d.update(folds=d["folds"][:1]), "folds"),
}


@pytest.mark.parametrize("case", list(HEADINGS))
def test_an_edited_heading_of_a_fold_document_is_a_mismatch(world: Path, tmp_path: Path,
                                                            case: str) -> None:
    edit, key = HEADINGS[case]
    # first the .md against what the edited JSON renders to (round 12), then the reruns
    rendered, outcome = reproduce_document(_copy(world, tmp_path, edit))
    assert not rendered.reran, rendered.as_dict()
    assert outcome.status == "mismatch", (case, outcome.as_dict())
    assert {d["key"] for d in outcome.differences} == {key, }, outcome.differences


def test_an_untouched_fold_document_matches(world: Path, tmp_path: Path) -> None:
    rendered, outcome = reproduce_document(_copy(world, tmp_path, lambda d, r: None))
    assert rendered.status == "match", rendered.as_dict()
    assert outcome.status == "match", outcome.as_dict()


def _same_run(doc: dict[str, Any], root: Path) -> None:
    doc["runs"][1] = doc["runs"][0]


def _file(doc: dict[str, Any], root: Path) -> None:
    run = root / doc["runs"][1]
    shutil.rmtree(run)
    run.write_text("a file\n")


REFUSED: dict[str, tuple[Callable[[dict[str, Any], Path], None], tuple[str, ...]]] = {
    "no tables": (lambda d, r: d.update(tables=[]), ("'tables' is empty",)),
    "a newer schema": (lambda d, r: d.update(schema=2), ("another format", "schema 2")),
    "a format key": (lambda d, r: d.update(format=2), ("another format", "format 2")),
    "a metric the runs never computed": (
        lambda d, r: d["tables"][0].update(metric="ndcg@5"), ("tables[0].metric 'ndcg@5'",)),
    "one run for two folds": (_same_run, ("runs[0] and runs[1]", "the same run")),
    "a run folder replaced by a file": (_file, ("runs[1]", "a file, not a run directory")),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_fold_document_that_cannot_be_reproduced_is_refused_before_any_run(
        world: Path, tmp_path: Path, case: str) -> None:
    edit, words = REFUSED[case]
    path = _copy(world, tmp_path, edit)
    with pytest.raises(DataError) as info:
        reproduce_document(path)
    text = str(info.value)
    assert str(path) in text, text
    for word in words:
        assert word in text, (case, text)
    assert "ltrbench-reproduce-" not in text  # never a file of the temporary folder
    res = cli(tmp_path, "reproduce", str(path))
    assert res.status == 2, res.err
    assert res.err.strip().count("\n") == 0, res.err
