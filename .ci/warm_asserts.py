"""Write pytest's rewritten-assert caches of the test modules once, before the test workers start.

Each pytest-xdist worker imports every test module; on a fresh clone each would parse, rewrite
and compile all of them itself (about 20 s of a core per worker). pytest reads a cached,
hash-checked rewritten module from ``__pycache__/<name>.<tag>-pytest-<version>.pyc`` even where
``PYTHONDONTWRITEBYTECODE`` keeps it from writing one, so this script writes them with pytest's
own functions: the workers then load them as if an earlier session had written them.

The project sets no ``enable_assertion_pass_hook``, the only ini setting that changes the
rewritten code, so the rewrite runs with no config (pytest's own default for that setting).
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

from _pytest.assertion import rewrite


def _rewritten_modules(root: Path) -> list[Path]:
    tests = root / "tests"
    return sorted({*tests.rglob("test_*.py"), *tests.rglob("*_test.py"), *root.rglob("conftest.py")})


def main() -> int:
    root = Path(__file__).resolve().parent.parent
    state = SimpleNamespace(trace=lambda message: None)  # all _write_pyc reads of its state
    written = 0
    for path in _rewritten_modules(root):
        if "/.venv/" in path.as_posix() or "/venv/" in path.as_posix():
            continue
        source_hash, code = rewrite._rewrite_test(path, None)  # type: ignore[arg-type]
        cache_dir = rewrite.get_cache_dir(path)
        cache_dir.mkdir(exist_ok=True)
        pyc = cache_dir / (path.name[:-3] + rewrite.PYC_TAIL)
        written += rewrite._write_pyc(state, code, source_hash, pyc)  # type: ignore[arg-type]
    print(f"rewritten asserts cached for {written} modules", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
