"""CSV cells a user opens in a spreadsheet (``evaluate --per-query``, the CSV summary): a text
cell that a spreadsheet would run as a formula gets a leading ``'``, the OWASP rule
(split from :mod:`bench.data.outputs`, which owns output paths); and a CSV or Markdown document
printed on standard output is written whole or refused, never with escapes (:func:`spelled`)."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

#: The first characters that make a spreadsheet read a cell as a formula (OWASP, "CSV
#: Injection": ``=``, ``+``, ``-``, ``@``, tab, carriage return; LibreOffice also reads a
#: full-width ``＝`` ``＋`` ``－`` ``＠`` as its ASCII twin).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")

#: A plain decimal number (``-7``, ``+1.5e3``): a spreadsheet reads it as that number, never as a
#: formula, so an id written so keeps its text.
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def formula_safe(text: str) -> str:
    """``text`` as a CSV cell that no spreadsheet runs as a formula: a cell that starts with one
    of :data:`FORMULA_START` and is not a plain number gets a leading ``'`` (OWASP, "CSV
    Injection", https://owasp.org/www-community/attacks/CSV_Injection: "prepend each cell field
    with a single quote"), so the query id ``=HYPERLINK(...)`` reads ``'=HYPERLINK(...)`` and the
    id ``-7`` stays ``-7``. Spreadsheets hide the quote; other readers see it."""
    if text.startswith(FORMULA_START) and _PLAIN_NUMBER.fullmatch(text) is None:
        return "'" + text
    return text


def formula_safe_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` for a CSV a user opens in a spreadsheet (``evaluate --per-query``):
    every text cell and every column name through :func:`formula_safe`; numbers unchanged."""
    out = frame.copy()
    for col in out.columns:
        if out[col].dtype == object or str(out[col].dtype) in ("string", "str", "category"):
            out[col] = [formula_safe(v) if isinstance(v, str) else v for v in out[col]]
    out.columns = [formula_safe(c) if isinstance(c, str) else c for c in out.columns]
    return out


def same_cell(texts: Iterable[str],
              cell: Callable[[str], str] = formula_safe) -> tuple[str, str, str] | None:
    """The first two distinct ``texts`` that ``cell`` writes as one CSV cell (``=x`` and
    ``'=x``), with that cell, or None: a CSV holding both could not tell their rows apart
    (``evaluate --per-query`` and ``leaderboard.csv`` refuse them)."""
    written: dict[str, str] = {}
    for text in dict.fromkeys(texts):
        if (first := written.setdefault(cell(text), text)) != text:
            return first, text, cell(text)
    return None


def spelled(text: str) -> str:
    """``text``, a CSV or Markdown document for standard output, once standard output's
    encoding can write every character of it: under ``PYTHONIOENCODING=ascii`` (or a Latin-1
    locale) a run named ``café`` was written ``caf\\xe9`` in ``evaluate --format csv``,
    another name to the script that reads it, and ``datasets list --format markdown >
    datasets/catalogue.md`` wrote ``\\u2013`` for a dash, with exit 0. Tables and messages, for
    a person, still show such a character as an escape (:func:`bench.streams.encodable_output`)."""
    from bench.errors import ConfigError

    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
    except UnicodeEncodeError as exc:
        i = exc.start
        left = max(text.rfind(sep, 0, i) for sep in ",|\n") + 1  # the cell that holds it
        right = min((j for j in (text.find(sep, i) for sep in ",|\n") if j >= 0),
                    default=len(text))
        raise ConfigError(
            f"standard output's encoding ({encoding}) cannot write {text[i]!r} "
            f"(U+{ord(text[i]):04X}) of {text[left:right].strip()!r}: an escape would change "
            "the text; set PYTHONIOENCODING=utf-8 or a UTF-8 locale (LC_ALL=C.UTF-8), or use "
            "--format json, whose escapes keep every character") from None
    except LookupError:  # an encoding Python does not know: left to the stream
        pass
    return text
