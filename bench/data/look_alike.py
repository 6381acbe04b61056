"""Names that print alike: the key under which two different strings read as one name on a
terminal, in a Markdown, CSV or LaTeX table (run names of a comparison).

Two names are look-alikes when they differ as strings but have the same :func:`skeleton`:
Unicode's compatibility form (NFKC: a full-width ``Ａ`` is ``A``, a decomposed ``e`` + U+0301
is ``é``), invisible format characters removed (zero-width space and joiners, soft hyphen,
bidirectional marks, byte-order mark: Unicode category Cf), a run of blanks read as one blank
(Markdown, HTML and LaTeX typeset ``A  B`` as ``A B``), and the letters of other scripts
that are drawn as a Latin letter in common fonts replaced by that letter (:data:`CONFUSABLES`,
a small table written here as data after Unicode's confusables list, UTS #39: the Cyrillic and
Greek capitals and lower-case letters of identical shape, and the Armenian, Cherokee and Lisu
letters drawn as a Latin one, and the Latin small capitals ``ᴏ ᴄ ᴠ ᴡ ᴢ ꜱ``, ``ɑ`` and ``ɡ``; no case folding, no digits: ``A`` and ``a``, ``O`` and ``0``
look different). Characters that draw nothing without being of category Cf (Unicode's
Default_Ignorable_Code_Point set: the combining grapheme joiner U+034F, variation selectors,
the Hangul fillers U+3164 ...; :func:`invisible`) are removed too, and the blank Braille
pattern U+2800 is a blank.
"""

from __future__ import annotations

import re
import unicodedata

from bench.errors import DataError

__all__ = ["CONFUSABLES", "clash_text", "draws_nothing", "invisible", "refuse_look_alikes",
           "shown_name", "skeleton"]

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
    # Armenian
    "\u0585": "o", "\u057d": "u", "\u0578": "n", "\u0570": "h", "\u0581": "g", "\u054f": "S",
    "\u0555": "O",
    # Cherokee
    "\u13aa": "A", "\u13f4": "B", "\u13df": "C", "\u13a0": "D", "\u13ac": "E", "\u13bb": "H",
    "\u13ab": "J", "\u13e6": "K", "\u13b7": "M", "\u13e2": "P", "\u13da": "S", "\u13a2": "T",
    "\u13d9": "V", "\u13b3": "W", "\u13c3": "Z",
    # Lisu
    "\ua4ee": "A", "\ua4d0": "B", "\ua4da": "C", "\ua4d3": "D", "\ua4f0": "E", "\ua4dd": "F",
    "\ua4d6": "G", "\ua4e7": "H", "\ua4f2": "I", "\ua4d9": "J", "\ua4d7": "K", "\ua4e1": "L",
    "\ua4df": "M", "\ua4e0": "N", "\ua4f3": "O", "\ua4d1": "P", "\ua4e3": "R", "\ua4e2": "S",
    "\ua4d4": "T", "\ua4f4": "U", "\ua4e6": "V", "\ua4ea": "W", "\ua4eb": "X", "\ua4ec": "Y",
    "\ua4dc": "Z",
    # Latin letters drawn as other Latin letters (small capitals of letters whose capital is
    # the lower-case shape, alpha, script g)
    "\u1d0f": "o", "\u1d04": "c", "\u1d20": "v", "\u1d21": "w", "\u1d22": "z", "\ua731": "s",
    "\u0251": "a", "\u0261": "g",
}

#: Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt): drawn as nothing.
_IGNORABLE = ((0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
              (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
              (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
              (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
              (0xE0000, 0xE0FFF))


def invisible(c: str) -> bool:
    """Whether the character ``c`` draws nothing: of category Cf or Default_Ignorable."""
    n = ord(c)
    return unicodedata.category(c) == "Cf" or any(lo <= n <= hi for lo, hi in _IGNORABLE)


def draws_nothing(name: str) -> bool:
    """Whether ``name`` shows as blank: nothing left once invisible characters and blanks go."""
    return not skeleton(name).strip()


#: Runs of blanks: one blank in Markdown, HTML and LaTeX, as typeset.
_SPACES = re.compile(r"\s+")


def skeleton(name: str) -> str:
    """The form under which look-alike names are one (module docstring)."""
    text = unicodedata.normalize("NFKC", name)
    text = "".join(CONFUSABLES.get(c, c) for c in text.replace("\u2800", " ") if not invisible(c))
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


def refuse_look_alikes(names: list[str], where: str) -> None:
    """A :class:`DataError` naming ``where`` when two of ``names`` print alike (a leaderboard's
    rows ``random`` and ``rand`` + Cyrillic ``о`` + ``m``: two rows a reader takes for one model,
    with two numbers) or one draws nothing; each name escaped, the characters in which they differ."""
    seen: dict[str, str] = {}
    for name in names:
        key = skeleton(name).strip()
        if not key:
            raise DataError(f"{where}: {name!a} draws nothing (invisible characters and "
                            "blanks only): its row would have an empty label; rename it")
        if key in seen:
            raise DataError(f"{where}: {seen[key]!a} and {name!a} print alike "
                            f"({clash_text(seen[key], name)}): a reader could not tell their "
                            "rows apart; rename one")
        seen[key] = name


def shown_name(name: object) -> str:
    """A dataset's name as a report shows it: as itself, or followed by its escaped spelling when
    it is not what it looks like -- not in Unicode's composed form (NFC: a decomposed ``café``,
    ``cafe`` + U+0301), holding an invisible character (a zero-width space, a
    bidirectional mark, a combining grapheme joiner U+034F, a Hangul filler U+3164:
    :func:`bench.data.look_alike.invisible`), or mixing Latin letters with a Cyrillic or Greek letter drawn as a Latin
    one (``Dаta`` with a Cyrillic ``а``: UTS #39's mixed-script confusable; a name written in
    Cyrillic or Greek alone is shown as itself) -- so that two datasets whose names differ only
    so are told apart (``café (cafe\\u0301)``, ``Dаta (D\\u0430ta)``). Blanks a table or
    heading swallows (at either end, two in a row, a tab: Markdown, HTML and LaTeX show ``toy ``
    as ``toy``) are shown by the quoted spelling, ``toy  ('toy ')``."""
    text = str(name)
    mixed = (any(c in CONFUSABLES for c in text)
             and any(c.isascii() and c.isalpha() for c in text))
    if text != text.strip() or "  " in text or any(c.isspace() and c != " " for c in text):
        return f"{text} ({text!a})"
    if unicodedata.normalize("NFC", text) == text and not mixed \
            and not any(invisible(c) for c in text):
        return text
    return f"{text} ({ascii(text)[1:-1]})"
