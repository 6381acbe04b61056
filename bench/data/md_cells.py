"""Text from a user (a dataset, model or run name, a query id) as Markdown that shows it as
itself, for every Markdown writer: the leaderboard, fold tables, ``crosscheck.md`` (split from
:mod:`bench.report.render` so that the cross-check, on the report's layer, writes names the
same way)."""

from __future__ import annotations

import re

__all__ = ["CONTROL", "md_text"]

_MD_SPECIAL = re.compile(r"([\\`*\[\]|~$]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")
#: Characters a name may not carry into a document: C0 and C1 controls, DEL, the Unicode line
#: and paragraph separators, and the bidirectional overrides, isolates and marks (Unicode's
#: Bidi_Control: LRM, RLM, ALM too) that reorder the text shown around them (CVE-2021-42574,
#: "Trojan Source"): each run of them becomes a space.
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]+")


def md_text(text: object) -> str:
    """A name from a run (dataset, model, run id, profile) as Markdown that shows it as itself:
    on one line (line breaks, other control characters and bidirectional overrides become a
    space: :data:`CONTROL`), ``&`` and ``<`` as
    entities (``<script>`` is text, never markup: no tag can open), and the characters Markdown reads
    (``\\ ` * [ ] | ~ $``: ``$x$`` is math on GitHub; a ``_`` at a word's edge) escaped with a backslash (GFM: "Any ASCII
    punctuation character may be backslash-escaped"; ``\\|`` keeps a table cell whole)."""
    one_line = CONTROL.sub(" ", str(text))
    html = one_line.replace("&", "&amp;").replace("<", "&lt;")  # no tag can open
    return _MD_SPECIAL.sub(lambda m: "\\" + m.group(0), html)
