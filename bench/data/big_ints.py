"""Integers beyond Python's integer-digit limit, as text in messages and as tokens in files.

Since Python 3.11 (CVE-2020-10735) ``int(text)`` and ``str(value)`` raise ``ValueError``
("Exceeds the limit (4300 digits) for integer string conversion") for an integer longer than
:func:`sys.get_int_max_str_digits` digits: a config's ``seeds = [111...1]``, a qrels relevance,
a manifest number or a metric cutoff of 5000 digits ended in that traceback, and so did the
error message meant to refuse such a value. :func:`int_text` shows any integer in a message
without converting all of it; :func:`long_digit_run` finds where a text holds a run of digits
the parsers (``tomllib``, ``json``) cannot read, for the error that names its line and column;
:func:`digit_count` counts an integer token's digits without converting it.
"""

from __future__ import annotations

import math
import re
import sys

#: Digits shown of a long integer in a message (``111111111111...(5000 digits)``).
_HEAD = 12
#: Integers up to this many digits are shown whole.
_WHOLE = 40


def digit_limit() -> int:
    """Python's limit on the digits of an integer converted from or to text (0: none)."""
    get = getattr(sys, "get_int_max_str_digits", None)
    return int(get()) if get is not None else 0


def _digits(value: int) -> int:
    """The number of decimal digits of ``|value|`` (1 for 0), without converting it to text."""
    v = abs(value)
    if v < 10:
        return 1
    n = int(v.bit_length() * math.log10(2)) + 1
    while n > 1 and 10 ** (n - 1) > v:
        n -= 1
    while 10**n <= v:
        n += 1
    return n


def int_text(value: int) -> str:
    """``value`` as decimal text for a message: whole up to 40 digits, else its first 12
    digits and the count (``-111111111111...(5000 digits)``), however long it is."""
    n = _digits(value)
    if n <= _WHOLE:
        return str(value)
    head = abs(value) // 10 ** (n - _HEAD)
    return f"{'-' if value < 0 else ''}{head}...({n} digits)"


def digit_count(token: str | bytes) -> int:
    """The digits of an integer token (a sign and leading zeros not counted)."""
    raw = token.encode("ascii", "replace") if isinstance(token, str) else token
    return len(raw.lstrip(b"+-").lstrip(b"0"))


def long_digit_run(text: str) -> tuple[int, int, int] | None:
    """``(line, column, digits)`` of the first run of digits in ``text`` longer than
    :func:`digit_limit` (1-based line and column), or ``None`` when there is none."""
    limit = digit_limit()
    if limit <= 0:
        return None
    m = re.search(rf"[0-9]{{{limit + 1},}}", text)
    if m is None:
        return None
    line = text.count("\n", 0, m.start()) + 1
    return line, m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1, len(m.group())


def long_number_text(text: str) -> str | None:
    """The words of an error for a text whose number is too long for Python's parsers:
    ``line L, column C: a number of N digits; expected ...`` (``None`` when none is)."""
    found = long_digit_run(text)
    if found is None:
        return None
    line, column, n = found
    return (f"line {line}, column {column}: a number of {n} digits, beyond the "
            f"{digit_limit()} digits Python reads (a value no setting takes); write the number "
            "it should be")
