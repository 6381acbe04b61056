"""A user's factory module in the working directory is found by the installed ``ltrbench``
script as by ``python -m bench`` (issue 21: ``cannot import module 'myrankers'`` under
``ltrbench`` only)."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import pytest

from bench.errors import ConfigError
from bench.runners.custom import resolve_factory


def _without_working_directory(monkeypatch: pytest.MonkeyPatch, here: Path) -> None:
    """``sys.path`` as an installed console script has it: neither ``""`` nor the directory."""
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(here), ".")])


def test_a_factory_module_in_the_working_directory_is_imported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    name = f"myrankers_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{name}.py").write_text("def make(seed=0):\n    return ('ranker', seed)\n")
    monkeypatch.chdir(tmp_path)
    _without_working_directory(monkeypatch, tmp_path)
    try:
        factory = resolve_factory("mine", f"{name}:make")
        assert factory(seed=3) == ("ranker", 3)
        assert sys.modules[name].__file__ == str(tmp_path / f"{name}.py")
    finally:
        sys.modules.pop(name, None)


def test_a_module_found_nowhere_is_still_a_clear_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _without_working_directory(monkeypatch, tmp_path)
    before = list(sys.path)
    with pytest.raises(ConfigError, match="cannot import module 'no_such_rankers_mod'"):
        resolve_factory("mine", "no_such_rankers_mod:make")
    assert sys.path == before  # nothing put on the path for a module that is not here


def test_a_missing_dependency_of_the_users_module_is_named_not_hidden(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    name = f"myrankers_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{name}.py").write_text("import no_such_dependency_xyz\n")
    monkeypatch.chdir(tmp_path)
    _without_working_directory(monkeypatch, tmp_path)
    try:
        with pytest.raises(ConfigError, match="no_such_dependency_xyz"):
            resolve_factory("mine", f"{name}:make")
    finally:
        sys.modules.pop(name, None)
