"""Hostile custom-ranker factories and reproduced runs, round 8b (issue 19: rankers, tracebacks,
silent accepts).

New here: ``ltrbench reproduce --run DIR`` over a ``manifest.json`` whose fields hold the wrong
JSON type: ``"environment": [1, 2]``, ``"environment": {"packages": [1]}`` or ``"dataset":
["x"]`` were ``AttributeError`` tracebacks, and ``"config_hash": null`` skipped the check that
``config.toml`` is the config that made the numbers (an edited config reproduced as "match").
Beside them, instances that already held: a ``config.toml`` edited after the run, and factory
references a user may write (``..rk:Base``, an absolute file path, an empty attribute, two
colons, an attribute that is not callable, a module that raises, exits or does not parse at
import, a factory that returns a class, ``None`` or an ``int``, a ``predict`` that is a
property).

The rankers' cases are refused before any data is read (in-process :func:`hostile_kit.cli`);
the reproduce cases copy one tiny run (the ``random`` model, one seed, quick synthetic data).
``python tests/test_hostile_round8b_rankers_reproduce.py`` prints the counts.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import cli, refused

RANKERS = '''
import numpy as np
class Base:
    def __init__(self, seed=0): self.seed = seed
    def fit(self, X, y, group=None): return self
    def predict(self, X): return np.asarray(X)[:, 0].astype(float)
NOT_CALLABLE = 5
class PredictProperty(Base):
    @property
    def predict(self): return np.zeros(3)
def returns_the_class(seed=0): return Base
def returns_none(seed=0): return None
class Meta(type):
    def __call__(cls, *a, **k): return 42
class MetaRanker(metaclass=Meta): pass
'''
MODULES = {"rk8b.py": RANKERS, "rk8b_raises.py": "raise RuntimeError('boom at import')\n",
           "rk8b_exits.py": "import sys\nsys.exit(3)\n", "rk8b_syntax.py": "def f(:\n"}

#: name -> (factory reference, words of the error)
FACTORIES: dict[str, tuple[str, tuple[str, ...]]] = {
    "relative-dots": ("..rk8b:Base", ("..rk8b:Base", "package.module:attribute")),
    "absolute-file-path": ("/tmp/rk8b.py:Base", ("/tmp/rk8b.py:Base", "package.module")),
    "empty-attribute": ("rk8b:", ("'rk8b:'", "package.module:attribute")),
    "empty-module": (":Base", ("':Base'", "package.module:attribute")),
    "two-colons": ("rk8b:Base:x", ("rk8b:Base:x", "package.module:attribute")),
    "a-file-name-as-module": ("rk8b.py:Base", ("rk8b.py", "cannot import")),
    "attribute-not-callable": ("rk8b:NOT_CALLABLE", ("NOT_CALLABLE", "not a class or function")),
    "module-raises-at-import": ("rk8b_raises:X", ("rk8b_raises", "boom at import")),
    "module-exits-at-import": ("rk8b_exits:X", ("rk8b_exits", "sys.exit(3)")),
    "module-does-not-parse": ("rk8b_syntax:X", ("rk8b_syntax", "SyntaxError")),
    "factory-returns-the-class": ("rk8b:returns_the_class", ("returned the class Base",)),
    "factory-returns-none": ("rk8b:returns_none", ("NoneType", "fit")),
    "metaclass-returns-an-int": ("rk8b:MetaRanker", ("returned int",)),
    "predict-a-property-of-an-array": ("rk8b:PredictProperty", ("no predict method",)),
    "a-builtin-that-returns-none": ("builtins:print", ("builtins:print", "standard library")),
}


def _factory_case(name: str, tmp: Path) -> str | None:
    ref, words = FACTORIES[name]
    for file, text in MODULES.items():
        (tmp / file).write_text(text, encoding="utf-8")
    (tmp / "c.toml").write_text(
        'dataset = "synthetic"\nmodels = ["mine"]\nseeds = [0]\nquick = true\n'
        f'crosscheck = false\n[custom_models.mine]\nfactory = "{ref}"\n', encoding="utf-8")
    try:
        res = cli(tmp, "run", "--config", "c.toml", "--no-progress", "--out", str(tmp / "out"))
    finally:
        for module in [m for m in sys.modules if m.startswith("rk8b")]:
            del sys.modules[module]
    return refused(res, "c.toml", "[custom_models.mine]", *words)


def _run_once(folder: Path) -> Path:
    """One tiny finished run (the ``random`` model, one seed) under ``folder``."""
    (folder / "c.toml").write_text('dataset = "synthetic"\nmodels = ["random"]\nseeds = [0]\n'
                                   "quick = true\ncrosscheck = false\n", encoding="utf-8")
    res = cli(folder, "run", "--config", "c.toml", "--no-progress", "--out", str(folder / "o"))
    assert res.status == 0, res.err
    return next((folder / "o" / "runs").iterdir())


def _manifest(change: Callable[[dict[str, Any]], None]) -> Callable[[Path], None]:
    def edit(run: Path) -> None:
        path = run / "manifest.json"
        doc = json.loads(path.read_text(encoding="utf-8"))
        change(doc)
        path.write_text(json.dumps(doc), encoding="utf-8")
    return edit


def _config(old: str, new: str) -> Callable[[Path], None]:
    def edit(run: Path) -> None:
        path = run / "config.toml"
        path.write_text(path.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
    return edit


#: name -> (the edit of the run folder, words of the error, fixed in round 8b)
REPRODUCE: dict[str, tuple[Callable[[Path], None], tuple[str, ...], bool]] = {
    "environment-a-list": (_manifest(lambda d: d.update(environment=[1, 2])),
                           ("manifest.json", "'environment'", "[1, 2]"), True),
    "environment-packages-a-list": (
        _manifest(lambda d: d["environment"].update(packages=[1])),
        ("manifest.json", "'environment.packages'"), True),
    "dataset-a-list": (_manifest(lambda d: d.update(dataset=["x"])),
                       ("manifest.json", "'dataset'"), True),
    "threads-a-string": (_manifest(lambda d: d.update(threads="x")),
                         ("manifest.json", "'threads'", "integer"), True),
    "config-hash-null-beside-an-edited-config": (
        lambda run: (_manifest(lambda d: d.update(config_hash=None))(run),
                     _config('"random",', '"popularity",')(run)),
        ("manifest.json", "'config_hash'", "null"), True),
    "config-hash-a-number": (_manifest(lambda d: d.update(config_hash=12345)),
                             ("manifest.json", "'config_hash'", "12345"), True),
    "config-edited-after-the-run": (_config("seeds = [\n    0,", "seeds = [\n    1,"),
                                    ("config.toml", "edited after the run"), False),
    "manifest-a-list": (lambda run: (run / "manifest.json").write_text("[1]"),
                        ("manifest.json", "expected a JSON object"), False),
}


def _reproduce_case(name: str, original: Path, tmp: Path) -> str | None:
    edit, words, _ = REPRODUCE[name]
    run = tmp / "run"
    shutil.copytree(original, run)
    edit(run)
    res = cli(tmp, "reproduce", "--run", str(run), "--out", str(tmp / "again"))
    return refused(res, *words)


@pytest.fixture(scope="module")
def original_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _run_once(tmp_path_factory.mktemp("round8b-run"))


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_hostile_round8b_factory(name: str, tmp_path: Path) -> None:
    problem = _factory_case(name, tmp_path)
    assert problem is None, f"{name}: {problem}"


@pytest.mark.parametrize("name", sorted(REPRODUCE))
def test_hostile_round8b_reproduce(name: str, original_run: Path, tmp_path: Path) -> None:
    problem = _reproduce_case(name, original_run, tmp_path)
    assert problem is None, f"{name}: {problem}"


if __name__ == "__main__":  # the counts
    failing = []
    with tempfile.TemporaryDirectory() as top:
        base = Path(top)
        (base / "original").mkdir()
        original = _run_once(base / "original")
        for i, case in enumerate(FACTORIES):
            (base / f"f{i}").mkdir()
            if _factory_case(case, base / f"f{i}") is not None:
                failing.append(case)
        for i, case in enumerate(REPRODUCE):
            (base / f"r{i}").mkdir()
            if _reproduce_case(case, original, base / f"r{i}") is not None:
                failing.append(case)
    print(f"{len(FACTORIES) + len(REPRODUCE)} cases, {len(failing)} failing: {', '.join(failing)}")
