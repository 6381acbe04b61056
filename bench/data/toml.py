"""Reading TOML files (dataset cards, run configs) with :mod:`tomllib` (Python >= 3.11) or ``tomli``.

This is the one place that picks the parser; :mod:`bench.benchmark.tomlio` re-exports
:func:`read_toml` and :func:`loads` (it lives in ``bench.data`` because data must not depend on
runners).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.errors import ConfigError

try:  # pragma: no cover - depends on the Python version
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

TOMLDecodeError = tomllib.TOMLDecodeError


def read_toml(path: str | Path) -> dict[str, Any]:
    """Parse a TOML file (UTF-8).

    A missing file is a :class:`~bench.errors.ConfigError` ``"<path>: no such config file"``; a
    syntax error is a ConfigError ``"<path>: not valid TOML: <parser message>"`` whose
    ``__cause__`` is the parser's :data:`TOMLDecodeError`.
    """
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"{p}: no such config file")
    try:
        return tomllib.loads(p.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p}: not valid TOML: {exc}") from exc


def loads(text: str) -> dict[str, Any]:
    """Parse TOML text (a syntax error raises :data:`TOMLDecodeError`)."""
    return tomllib.loads(text)
