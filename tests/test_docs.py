"""The developer documents stay true: the doctests run in CI."""

from __future__ import annotations

import doctest
import importlib
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def test_the_test_command_runs_the_package_doctests() -> None:
    """``python -m pytest`` (README, CONTRIBUTING, ``.ci/run``) collects ``bench/`` with
    ``--doctest-modules``, so a ``>>>`` example that stops being true fails CI."""
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    pytest_options = options["tool"]["pytest"]["ini_options"]
    assert "bench" in pytest_options["testpaths"]
    assert "--doctest-modules" in pytest_options["addopts"].split()


def test_every_example_in_the_package_is_one_doctest_finds() -> None:
    """A ``>>>`` outside a docstring (a comment, a string) would never run: each module's count of
    ``>>>`` lines equals the examples :class:`doctest.DocTestFinder` finds in it."""
    finder = doctest.DocTestFinder()
    written = found = 0
    for path in sorted((ROOT / "bench").rglob("*.py")):
        if path.name == "__main__.py":
            continue
        n = sum(line.lstrip().startswith(">>>") for line in path.read_text("utf-8").splitlines())
        if not n:
            continue
        module = importlib.import_module(_module_name(path))
        examples = sum(len(t.examples) for t in finder.find(module)
                       if t.filename is not None and Path(t.filename).resolve() == path.resolve())
        assert examples == n, f"{path.relative_to(ROOT)}: {n} '>>>' lines, {examples} examples"
        written += n
        found += examples
    assert found == written > 0
