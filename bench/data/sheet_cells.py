"""Id cells a spreadsheet wrote that hold no id: error values, placeholders, numbers in a locale.

A ratings table saved from Excel, LibreOffice or an old ERP export holds cells that look like
text ids and are not (:func:`sheet_id_problem`, the rule of every ratings reader through
:func:`bench.data.inputs.id_cell_problem`, local and Dask):

- a formula's **error value** in any language (``#WERT!``, ``#VALUE!``, ``#DIV/0!``, ``#BEZUG!``,
  ``#NOM?``, ``#NV``, ``#¡VALOR!``) or a column too narrow to show its number (``#####``): one
  text user or item would hold every such row;
- a **placeholder** for an empty cell (``-``, ``–``, ``—``): a missing id, not an id;
- a number behind the **apostrophe** a spreadsheet uses to keep it as text (``'007``, copied
  from a cell's formula bar): a text id apart from ``007``;
- a **number written in a locale** (not ltrbench's grammar, so it would become a text id beside
  the numbers and never meet its own value): a decimal comma (``1,5``, Excel's German scientific
  ``1,23E+05``, whose digits the display already rounded) or thousands grouping (``12.345.678``,
  ``1,234,567``, ``1 234`` with a space, a no-break or a narrow no-break space, ``1'234``).
  A single ``.`` (``1.234``) is a decimal point, and a fractional id is refused as such;
- a **white space other than an ASCII space or tab at either end** (a no-break space after
  ``123``, which Excel's ``TRIM`` keeps, a figure or ideographic space): the reader strips ASCII
  blanks around a cell, so ``123\u00a0`` would be an id apart from ``123``.

Each is refused naming what the cell is and what to do; never guessed into a number.
"""

from __future__ import annotations

import re
import unicodedata

#: A spreadsheet formula's error value (every language: a ``#``, letters, digits, ``/`` or
#: ``_``, ending in ``!`` or ``?``; ``#N/A`` / ``#NV``), or a cell too narrow for its number.
_ERROR = r"#[^\s#!?]{1,24}[!?]|#N/?A|#NV|#{3,}"
#: What a spreadsheet writes for an empty cell when asked to show one.
_PLACEHOLDER = "-|\u2013|\u2014"
#: A decimal comma (``1,5``, ``-0,25``, ``1,23E+05``) or grouping in threes with one separator
#: used throughout: ``.`` or ``,`` at least twice, a space (U+0020, U+00A0, U+202F) or ``'``
#: once or more.
_LOCALE_NUMBER = (r"[-+]?[0-9]+,[0-9]+(?:[eE][-+]?[0-9]+)?"
                  r"|[-+]?[0-9]{1,3}(?:\.[0-9]{3}){2,}(?:,[0-9]+)?"
                  r"|[-+]?[0-9]{1,3}(?:,[0-9]{3}){2,}(?:\.[0-9]+)?"
                  r"|[-+]?[0-9]{1,3}(?:[ \u00a0\u202f'][0-9]{3})+(?:[.,][0-9]+)?")
#: A number behind a spreadsheet's text prefix, the apostrophe (``'007``).
_TEXT_PREFIX = r"'[-+]?[0-9][0-9.,]*"
#: Unicode white space (``\\s`` of a ``str`` pattern) other than an ASCII space or tab at
#: either end of the cell (ASCII blanks are stripped before the match).
_EDGE_SPACE = r"[^\S \t][\s\S]*|[\s\S]*[^\S \t]"
#: One pattern for a column of cells (``Series.str.fullmatch``): any of the five.
SHEET_ID = f"(?:{_ERROR}|{_PLACEHOLDER}|{_TEXT_PREFIX}|{_LOCALE_NUMBER}|{_EDGE_SPACE})"

_ERROR_RE = re.compile(_ERROR)
_PLACEHOLDER_RE = re.compile(_PLACEHOLDER)
_LOCALE_RE = re.compile(_LOCALE_NUMBER)
_PREFIX_RE = re.compile(_TEXT_PREFIX)
_EDGE_RE = re.compile(_EDGE_SPACE)


def sheet_id_problem(cell: str) -> str | None:
    """Why the id ``cell`` (as written, ASCII blanks around it stripped) is a spreadsheet's
    error value, empty-cell placeholder or locale-written number, or ``None``."""
    text = cell.strip(" \t")
    if _ERROR_RE.fullmatch(text):
        return (f"id {text!r} is a spreadsheet's error value (a formula that failed, or a "
                "column too narrow for its number), not an id: expected an id in every row; "
                "fix the sheet's cell and export again")
    if _PLACEHOLDER_RE.fullmatch(text):
        return (f"id {text!r} is a spreadsheet's placeholder for an empty cell: expected an id "
                "in every row")
    if _PREFIX_RE.fullmatch(text):
        return (f"id {text!r} starts with the apostrophe a spreadsheet uses to keep a number as "
                f"text: it would be a text id apart from {text[1:]!r}; remove the apostrophe")
    if _LOCALE_RE.fullmatch(text):
        return (f"id {text!r} is a number written with a decimal comma or thousands separators "
                "(a spreadsheet's export in a locale that writes 1,5 or 1.234.567): it would be "
                "a text id apart from the number it spells; export the ids as plain integers "
                "(format the column as text or as a number without grouping; an id Excel shows "
                "as 1,23E+05 has already lost its digits)")
    if text and _EDGE_RE.fullmatch(text):
        end = text[0] if text[0].isspace() else text[-1]
        name = unicodedata.name(end, f"U+{ord(end):04X}").lower()
        return (f"id {text!r} {'starts' if end == text[0] else 'ends'} with a {name} "
                f"(U+{ord(end):04X}): the reader strips only ASCII spaces and tabs around a "
                f"cell, so it would be an id apart from {text.strip()!r}; remove it")
    return None
