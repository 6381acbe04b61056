"""Reading and writing the small TOML documents of run configs.

Reading is :mod:`bench.data.toml` (re-exported here). Writing covers what a run config
holds: strings, booleans, integers, floats (``repr``, which round-trips exactly, plus ``inf`` /
``nan``), arrays of those, and nested tables; ``None`` values are left out (TOML has no null).
"""

from __future__ import annotations

import math
import re
from typing import Any

from bench.data.toml import loads, read_toml
from bench.errors import ConfigError

__all__ = ["dumps", "loads", "read_toml"]

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(k: str) -> str:
    return k if _BARE.match(k) else _string(k)


def _string(s: str) -> str:
    out = s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{out}"'


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        text = repr(v)
        return text if any(c in text for c in ".en") else f"{text}.0"
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v if x is not None) + "]"
    raise ConfigError(f"cannot write {type(v).__name__} value {v!r} to TOML")


def dumps(doc: dict[str, Any], *, header: str = "") -> str:
    """TOML text of ``doc`` (scalars and arrays first, then ``[tables]``, recursively)."""
    lines: list[str] = [f"# {h}" if h else "#" for h in header.splitlines()] if header else []

    def emit(table: dict[str, Any], path: list[str]) -> None:
        scalars = [(k, v) for k, v in table.items() if not isinstance(v, dict) and v is not None]
        tables = [(k, v) for k, v in table.items() if isinstance(v, dict)]
        if path and (scalars or not tables):
            lines.append("")
            lines.append("[" + ".".join(_key(p) for p in path) + "]")
        for k, v in scalars:
            lines.append(f"{_key(k)} = {_value(v)}")
        for k, v in tables:
            emit(v, [*path, k])

    emit(doc, [])
    return "\n".join(lines).lstrip("\n") + "\n"
