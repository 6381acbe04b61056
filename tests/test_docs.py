"""The developer documents stay true: the doctests run in CI."""

from __future__ import annotations

import doctest
import importlib
import re
import sys
from pathlib import Path

import pytest

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


# --------------------------------------------------------------------------- names in the docs

DOCS = ("ARCHITECTURE.md", "CONTRIBUTING.md")
#: Files named in ARCHITECTURE.md's worked example of adding an engine (Ray, "on paper"): they do
#: not exist on purpose, and only these may be missing.
PLANNED: set[str] = {"bench/engines/ray_engine.py", "bench/engines/ray_trainer.py",
                     "bench/runners/ray_gbdt.py", "tests/test_engines_ray.py"}
_TICKED = re.compile(r"`([^`\s]+)`")
_SUBPACKAGES = tuple(p.name for p in (ROOT / "bench").iterdir() if (p / "__init__.py").is_file())


def _resolves(dotted: str) -> bool:
    """Whether ``bench.a.b.c`` is a module, or an attribute of the deepest module it names."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:i]))
        except ModuleNotFoundError:
            continue
        for name in parts[i:]:
            if not hasattr(obj, name):  # a dataclass field without a default is no attribute
                fields = getattr(obj, "__dataclass_fields__", {})
                return name in fields and name == parts[-1]
            obj = getattr(obj, name)
        return True
    return False


def _doc_names(text: str) -> tuple[set[str], set[str]]:
    """(paths, dotted names) a document names in backticks: ``bench/x.py``, ``tests/x.py``,
    ``.ci/run``, a path below ``bench/`` without its prefix (``metrics/profile.py``), a bare
    ``x.py``; ``bench.x.y`` or ``x.y`` under a subpackage of ``bench``. Templates
    (``runners/<library>.py``) and anything else are left out."""
    paths: set[str] = set()
    dotted: set[str] = set()
    for token in _TICKED.findall(text):
        token = token.rstrip(".,;:")
        if "<" in token or "*" in token or "=" in token or token.startswith(("http", "-", "$")):
            continue
        if token.startswith(("bench/", "tests/", ".ci/")):
            paths.add(token.rstrip("/"))
        elif "/" in token and token.split("/")[0] in _SUBPACKAGES:
            paths.add("bench/" + token.rstrip("/"))
        elif re.fullmatch(r"[\w.]+\.py", token):
            paths.add(token)
        elif re.fullmatch(r"bench(\.\w+)+", token):
            dotted.add(token)
        elif re.fullmatch(r"\w+(\.\w+)+", token) and token.split(".")[0] in _SUBPACKAGES:
            dotted.add("bench." + token)
    return paths, dotted


def _path_exists(path: str) -> bool:
    if "/" not in path and path.endswith(".py"):  # a bare file name: in the package or the tests
        return any(next((ROOT / top).rglob(path), None) is not None for top in ("bench", "tests"))
    return (ROOT / path).exists()


def test_the_doc_name_parser_reads_each_form() -> None:
    paths, dotted = _doc_names("`bench/cli.py`, `metrics/profile.py` (`Profile`), `x.py`, "
                               "`runners/<library>.py`, `bench.report.build`, `report.select`, "
                               "`--data-dir`, `numpy.ndarray`")
    assert paths == {"bench/cli.py", "bench/metrics/profile.py", "x.py"}
    assert dotted == {"bench.report.build", "bench.report.select"}
    assert not _path_exists("x.py")
    assert _path_exists("version_env.py")
    assert _path_exists("bench/metrics/profile.py")
    assert _resolves("bench.report.build.build_table")
    assert not _resolves("bench.report.leaderboard.build_table")
    assert not _resolves("bench.report.crosscheck")
    assert _resolves("bench.report.table.Table.rows")  # a dataclass field
    assert not _resolves("bench.report.table.Table.nothing")


@pytest.mark.parametrize("doc", DOCS)
def test_every_module_path_a_developer_document_names_exists(doc: str) -> None:
    """ARCHITECTURE.md and CONTRIBUTING.md name modules by path (``bench/x/y.py``,
    ``metrics/profile.py``) and by dotted name (``bench.report.build.build_table``): each one
    exists, so the recipes stay true when a module moves."""
    paths, dotted = _doc_names((ROOT / doc).read_text(encoding="utf-8"))
    missing = sorted(p for p in paths - PLANNED if not _path_exists(p))
    missing += sorted(d for d in dotted if not _resolves(d))
    assert paths or dotted
    assert not missing, f"{doc} names what does not exist: {missing}"


def test_every_module_a_docstring_names_exists() -> None:
    """A Sphinx role or a literal naming ``bench.x.y`` in the package's docstrings resolves."""
    role = re.compile(r"(?::[a-z]+:`~?|``)(bench(?:\.\w+)+)(?:`|``)")
    missing = []
    for path in sorted((ROOT / "bench").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for m in role.finditer(text):
            if not _resolves(m.group(1)):
                line = text.count("\n", 0, m.start()) + 1
                missing.append(f"{path.relative_to(ROOT)}:{line}: {m.group(1)}")
    assert not missing, missing
