"""Hostile ``ltrbench reproduce --run DIR`` cases, round 9 (issue 19, classes "silent accepts"
and "unclear errors"), beyond ``tests/test_hostile_reproduce.py`` and the round-7 / 8b files.

New here: a run whose dataset is gone was "SKIPPED ... nothing could be re-run" with exit 0 and
``"ok": true`` in JSON (nothing reproduced, reported as a success); a manifest written by
another ltrbench version was "same environment: bit-identical expected" (the reference
evaluator that made the numbers is ltrbench's own); a run folder without ``manifest.json``
was compared as if only the machine had changed ("python None -> 3.11"), with no word that
the data's fingerprint and the config's hash could not be checked. Kept held: a data file
edited after the run is a mismatch whose first line names ``dataset.fingerprint``.

One run of the ``random`` model on a small LETOR folder is made per test module; each case
copies it. ``python tests/test_hostile_round9_reproduce.py`` prints the counts.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import Res, cli, letor_folder

from bench import __version__

_WORLD: list[Path] = []


def world() -> Path:
    """A folder with ``letor/`` and ``run/`` (one finished run), made once per process."""
    if not _WORLD:
        root = Path(tempfile.mkdtemp(prefix="ltrbench-round9-"))
        letor_folder(root / "letor")
        res = cli(root, "run", "--dataset", "./letor", "--models", "random", "--seeds", "0",
                  "--quick", "--no-crosscheck", "--no-progress", "--out", "res")
        assert res.status == 0, res.err
        (run,) = (root / "res" / "runs").iterdir()
        shutil.move(str(run), root / "run")
        _WORLD.append(root)
    return _WORLD[0]


def _copy(tmp: Path) -> Path:
    shutil.copytree(world() / "letor", tmp / "letor")
    shutil.copytree(world() / "run", tmp / "run")
    return tmp / "run"


def _reproduce(tmp: Path, *extra: str) -> Res:
    return cli(tmp, "reproduce", "--run", "run", "--no-progress", "--out", "again", *extra)


def _manifest(run: Path) -> dict[str, object]:
    return dict(json.loads((run / "manifest.json").read_text()))


def a_run_whose_dataset_is_gone_is_not_a_success(tmp: Path) -> str | None:
    run = _copy(tmp)
    # The copy is the project: the manifest's absolute place of the dataset (round 12, where a
    # run looks for a relative dataset it cannot find from the working folder) is this copy's,
    # so the data is gone from every place the run recorded, not only from the path as given.
    doc = _manifest(run)
    dataset = dict(doc["dataset"])  # type: ignore[call-overload]
    dataset["path"] = str((tmp / "letor").resolve())
    (run / "manifest.json").write_text(json.dumps({**doc, "dataset": dataset}))
    shutil.rmtree(tmp / "letor")
    res = _reproduce(tmp)
    if res.traceback:
        return f"traceback: {res.err[-200:]}"
    if res.status == 0:
        return f"exit 0 though nothing was re-run: {res.out.strip()[-160:]}"
    if "data not available" not in res.out or "letor" not in res.out:  # ./letor tidied (r14)
        return f"the reason is not said: {res.out!r}"
    doc = json.loads(_reproduce(tmp, "--format", "json").out)
    return None if doc["ok"] is False else "JSON says ok: true though nothing was re-run"


def another_ltrbench_version_is_named(tmp: Path) -> str | None:
    run = _copy(tmp)
    doc = _manifest(run)
    doc["ltrbench_version"] = "0.0.1"
    (run / "manifest.json").write_text(json.dumps(doc))
    res = _reproduce(tmp)
    want = f"ltrbench 0.0.1 -> {__version__}"
    return None if want in res.out else f"{want!r} not said: {res.out.strip()[:300]!r}"


def a_run_without_a_manifest_says_nothing_recorded_was_compared(tmp: Path) -> str | None:
    run = _copy(tmp)
    (run / "manifest.json").unlink()
    res = _reproduce(tmp)
    if res.traceback:
        return f"traceback: {res.err[-200:]}"
    return None if "no manifest.json" in res.out else \
        f"the missing manifest is not said: {res.out.strip()[:300]!r}"


def an_edited_data_file_is_a_mismatch_naming_the_fingerprint(tmp: Path) -> str | None:
    _copy(tmp)
    path = tmp / "letor" / "test.txt"
    lines = path.read_text().splitlines()
    first = lines[0].split()
    first[0] = str((int(first[0]) + 1) % 3)  # another label for one document
    path.write_text("\n".join([" ".join(first), *lines[1:]]) + "\n")
    res = _reproduce(tmp)
    said = res.out.strip().splitlines()
    if res.status != 1 or len(said) < 2 or "dataset.fingerprint.test" not in said[1]:
        return f"exit {res.status}: {said[:2]}"
    return None


CASES: list[Callable[[Path], str | None]] = [
    a_run_whose_dataset_is_gone_is_not_a_success,
    another_ltrbench_version_is_named,
    a_run_without_a_manifest_says_nothing_recorded_was_compared,
    an_edited_data_file_is_a_mismatch_naming_the_fingerprint,
]


@pytest.mark.parametrize("fn", CASES, ids=[fn.__name__ for fn in CASES])
def test_hostile_round9_reproduce(fn: Callable[[Path], str | None], tmp_path: Path) -> None:
    assert fn(tmp_path) is None


if __name__ == "__main__":  # the counts
    failed = 0
    for fn in CASES:
        with tempfile.TemporaryDirectory() as d:
            problem = fn(Path(d))
        if problem is not None:
            failed += 1
            print(f"FAIL {fn.__name__}: {problem[:240]}")
    print(f"{failed} of {len(CASES)} cases failed")
