"""Text for the terminal: docstrings as help text (the reStructuredText markup a terminal would
show raw, removed), names read from files printed so that they cannot drive the terminal, and
numbers of options read as ASCII (:func:`ascii_int`, :func:`ascii_float`)."""

from __future__ import annotations

import argparse
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


#: Characters a terminal acts on instead of showing: C0 controls (ESC starts colour, title and
#: clipboard sequences; a line end forges a line), DEL, C1 controls (``\x9b`` is a one-byte CSI),
#: the Unicode line and paragraph separators, and the bidirectional overrides and isolates that
#: reorder what is shown (CVE-2021-42574, "Trojan Source").
_TERMINAL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def terminal_line(text: object) -> str:
    """``text`` for one line of a terminal: every character of :data:`_TERMINAL` written as its
    Python escape (``\\x1b``, ``\\n``, ``\\u202e``), so a run id or model name read from a
    run's files shows as itself and never moves the cursor, recolours, retitles or splits the
    line."""
    return _TERMINAL.sub(lambda m: ascii(m.group(0))[1:-1], str(text))




def ascii_int(text: str) -> int:
    """An integer option as ``ltrbench run`` reads one
    (:func:`bench.benchmark.config_schema.cli_int`): ASCII digits with an optional sign, so
    ``２０`` (full-width), ``٢٠`` (Arabic-Indic) and ``2_0`` are refused, not read as 20 by
    Python's ``int``. An ``argparse`` ``type=``."""
    from bench.data.inputs import is_plain_int

    body = text.strip()
    if not is_plain_int(body):
        raise argparse.ArgumentTypeError(f"expected a whole number written in ASCII digits; "
                                          f"got {text!r}")
    return int(body)


def ascii_float(text: str) -> float:
    """A number option written in ASCII (``0.8``, ``1e-3``, ``5``): Python's ``float`` also
    reads ``２`` and ``1_0``, which are refused here. An ``argparse`` ``type=``."""
    from bench.data.inputs import is_option_float  # the one spelling rule (numpy: lazily)

    body = text.strip()
    if not is_option_float(body):
        raise argparse.ArgumentTypeError(f"expected a number written in ASCII (e.g. 0.8, "
                                          f"1e-3); got {text!r}")
    return float(body)
