"""Names that print alike: the key under which two different strings read as one name on a
terminal, in a Markdown, CSV or LaTeX table (run names of a comparison).

Two names are look-alikes when they differ as strings but have the same :func:`skeleton`:
Unicode's compatibility form (NFKC: a full-width ``Ａ`` is ``A``, a decomposed ``e`` + U+0301
is ``é``), invisible format characters removed (zero-width space and joiners, soft hyphen,
bidirectional marks, byte-order mark: Unicode category Cf), a run of blanks read as one blank
(Markdown, HTML and LaTeX typeset ``A  B`` as ``A B``), and the letters of other scripts
that are drawn as a Latin letter in common fonts replaced by that letter (:data:`CONFUSABLES`,
a small table written here as data after Unicode's confusables list, UTS #39: the Cyrillic and
Greek capitals and lower-case letters of identical shape; no case folding, no digits: ``A`` and
``a``, ``O`` and ``0`` look different).
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["CONFUSABLES", "clash_text", "skeleton"]

#: A letter of another script -> the Latin letter it is drawn as (UTS #39 confusables,
#: restricted to the Cyrillic and Greek letters whose glyph is the Latin one's).
CONFUSABLES: dict[str, str] = {
    # Cyrillic capitals
    "\u0410": "A", "\u0412": "B", "\u0415": "E", "\u041a": "K", "\u041c": "M", "\u041d": "H",
    "\u041e": "O", "\u0420": "P", "\u0421": "C", "\u0422": "T", "\u0425": "X", "\u0423": "Y",
    "\u04ae": "Y", "\u0406": "I", "\u04c0": "I", "\u0408": "J", "\u0405": "S",
    "\u051a": "Q", "\u051c": "W",
    # Cyrillic lower case
    "\u0430": "a", "\u0435": "e", "\u043e": "o", "\u0440": "p", "\u0441": "c", "\u0443": "y",
    "\u0445": "x", "\u0456": "i", "\u0458": "j", "\u0455": "s", "\u0501": "d", "\u051b": "q",
    "\u051d": "w", "\u04bb": "h", "\u04cf": "l", "\u0457": "\u00ef", "\u0451": "\u00eb",
    # Greek capitals
    "\u0391": "A", "\u0392": "B", "\u0395": "E", "\u0396": "Z", "\u0397": "H", "\u0399": "I",
    "\u039a": "K", "\u039c": "M", "\u039d": "N", "\u039f": "O", "\u03a1": "P", "\u03a4": "T",
    "\u03a5": "Y", "\u03a7": "X",
    # Greek lower case
    "\u03bf": "o", "\u03bd": "v", "\u03b9": "i", "\u03ba": "k", "\u03c1": "p", "\u03c5": "u",
    "\u03f2": "c", "\u03f3": "j",
}


#: Runs of blanks: one blank in Markdown, HTML and LaTeX, as typeset.
_SPACES = re.compile(r"\s+")


def skeleton(name: str) -> str:
    """The form under which look-alike names are one (module docstring)."""
    text = unicodedata.normalize("NFKC", name)
    text = "".join(CONFUSABLES.get(c, c) for c in text if unicodedata.category(c) != "Cf")
    return _SPACES.sub(" ", unicodedata.normalize("NFC", text))


def _char(c: str) -> str:
    return f"U+{ord(c):04X} {unicodedata.name(c, 'unnamed')}"


def clash_text(a: str, b: str) -> str:
    """How two different names that print alike differ, in plain ASCII: each name escaped
    (``'caf\\u00e9'``) and the first characters in which they differ, by code point and name."""
    na, nb = unicodedata.normalize("NFC", a), unicodedata.normalize("NFC", b)
    where = ""
    if na == nb:
        where = "one is the other in another Unicode normalisation (NFC vs NFD)"
    else:
        at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
        if at < len(a) and at < len(b):
            where = f"character {at + 1} is {_char(a[at])} in one, {_char(b[at])} in the other"
        else:
            extra = a[at] if at < len(a) else b[at]
            where = f"one has {_char(extra)} at character {at + 1}"
    return f"{a!a} vs {b!a}: {where}"
