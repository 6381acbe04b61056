"""TOML files (dataset cards, run configs): read with :mod:`tomllib` (Python >= 3.11) or
``tomli``, written with ``tomli-w``. The one place that picks the parser and the writer.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import tomli_w

from bench.errors import ConfigError

if sys.version_info >= (3, 11):  # pragma: no cover - depends on the Python version
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

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
        doc: dict[str, Any] = tomllib.loads(p.read_text(encoding="utf-8"))
        return doc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p}: not valid TOML: {exc}") from exc


def loads(text: str) -> dict[str, Any]:
    """Parse TOML text (a syntax error raises :data:`TOMLDecodeError`)."""
    doc: dict[str, Any] = tomllib.loads(text)
    return doc


def dumps(doc: dict[str, Any], *, header: str = "") -> str:
    """TOML text of ``doc`` with ``header`` as leading ``#`` comment lines.

    ``None`` values are left out at every depth (TOML has no null); :func:`loads` of the text
    gives back ``doc`` without them (floats round-trip exactly, ``inf``/``nan`` included).
    """
    lines = [f"# {h}" if h else "#" for h in header.splitlines()] if header else []
    body = tomli_w.dumps(_without_none(doc))
    return "\n".join([*lines, body]) if lines else body


def is_toml_value(value: Any) -> bool:
    """Whether :func:`dumps` writes ``value`` as it is: a string, number, boolean, or a list or
    table (string keys) of those. ``None`` is not (``dumps`` leaves it out)."""
    if isinstance(value, bool | int | float | str):
        return True
    if isinstance(value, list | tuple):
        return all(is_toml_value(v) for v in value)
    if isinstance(value, Mapping):
        return all(isinstance(k, str) and is_toml_value(v) for k, v in value.items())
    return False


def _without_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [_without_none(v) for v in value if v is not None]
    return value
