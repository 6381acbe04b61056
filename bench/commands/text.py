"""Docstrings as help text: the reStructuredText markup a terminal would show raw, removed."""

from __future__ import annotations

import re

_ROLE = re.compile(r":(?:mod|func|class|meth|data|attr|exc):`~?([^`]+)`")
_LITERAL = re.compile(r"``([^`]+)``")


def plain(doc: str | None) -> str | None:
    """``doc`` without Sphinx roles (``:func:`~a.b``` -> ``a.b``) and literal quotes
    (````x```` -> ``x``), for ``argparse`` descriptions."""
    if doc is None:
        return None
    return _LITERAL.sub(r"\1", _ROLE.sub(r"\1", doc))


def examples(*commands: str) -> str:
    """An ``argparse`` epilog listing example command lines, one per line (use with
    ``formatter_class=argparse.RawDescriptionHelpFormatter`` so the lines are kept)."""
    return "examples:\n" + "\n".join(f"  {c}" for c in commands)
