"""Every case of the hostile catalogue (``tests/hostile_catalogue.py``) as a test.

A case passes when ltrbench gives a clear error (exit 2, one line naming the file / key), the
oracle's number, or leaves its input intact. Cases that fail on main when the catalogue was
written (issue 19) are ``xfail(strict=False)`` with their class as the reason; cases that train
a model, start Dask or run several commands are marked ``slow``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile_catalogue import KNOWN_FAILING, Case, all_cases, run_case

CASES = all_cases()


def _param(case: Case) -> object:
    marks: list[pytest.MarkDecorator] = []
    if case.slow:
        marks.append(pytest.mark.slow)
    if case.name in KNOWN_FAILING:
        extra = "" if case.source == "issue" else " (another instance than the issue names)"
        marks.append(pytest.mark.xfail(strict=False, reason=f"issue 19: {case.klass}{extra}"))
    return pytest.param(case, id=case.name, marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_hostile_case(case: Case, tmp_path: Path) -> None:
    verdict = run_case(case, tmp_path)
    if verdict is not None and verdict.startswith("SKIP"):
        pytest.skip(verdict)
    assert verdict is None, f"[{case.klass}] {verdict}"


def test_catalogue_covers_every_class_of_the_issue() -> None:
    from hostile_kit import CLASSES

    by_class = {k: [c for c in CASES if c.klass == k] for k in CLASSES}
    assert all(len(v) >= 2 for v in by_class.values()), {k: len(v) for k, v in by_class.items()}
    assert sum(c.source == "issue" for c in CASES) >= 40
