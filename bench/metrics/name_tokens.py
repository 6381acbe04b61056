"""The tokens of a metric list: ``"ndcg@1,3 map"`` -> ``["ndcg@1", "3", "map"]``.

One rule for every entry point that takes metric names (``--metrics``, a config file's
``metrics``, ``evaluate(metrics=...)`` as one string or a list of strings), read by
:func:`bench.metrics.names.parse_metrics`:

* names are separated by commas or ASCII white space outside brackets and quotes (a no-break
  or ideographic space is a character of a name, refused as every non-ASCII one);
* an **empty name** is refused, naming where it is: two commas with nothing (or only white
  space) between them (``ndcg@10,,5``), a comma at the start or the end of a string
  (``,ndcg@10``, ``map,``), an empty string in a list (``["ndcg@10", ""]``). A doubled comma is
  most likely a typo (a cutoff or a name left out), so it is never skipped silently (a text
  of separators only is no names at all: "no metric names given");
* white space around a profile qualifier's ``:`` (``"trec_eval-c : P_5"``) is no separator: the
  qualifier applies to the name after it (``trec_eval-c:P_5``), as without the spaces; a ``:``
  with nothing after it is refused naming the qualifier;
* a bracket or quote left open is refused (every name after it would be one unknown name);
* a comparison table's header pasted back, ``ndcg_cut_10 [trec_eval]``, is the ``PROFILE:NAME``
  it prints (``trec_eval:ndcg_cut_10``); brackets naming another profile than the name's own
  qualifier, or following no name, are refused; so is a name with two ``PROFILE:`` qualifiers;
* every character is ASCII (a look-alike such as fullwidth ``ＮＤＣＧ`` is refused naming it).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from bench.errors import ASCII_SPACE, ConfigError, refuse_empty_items

__all__ = ["ascii_only", "named_twice", "non_ascii", "tokens"]


def non_ascii(text: str) -> str:
    """``""`` when ``text`` is printable ASCII, else what its first other character is:
    ``"it holds '\u0441' (U+0441 CYRILLIC SMALL LETTER ES)"``, or the control character. The
    one wording of the name grammar for a character no metric or profile name holds, used
    for metric names (:func:`ascii_only`), profile names (``get_profile``) and the selection
    metric (``selection_cutoff``)."""
    for ch in text:
        if ch.isascii() and ch.isprintable():
            continue
        if ch.isascii():  # a NUL or another control character: no name holds one
            return f"it holds the control character {ch!r} (U+{ord(ch):04X})"
        return f"it holds {ch!r} (U+{ord(ch):04X} {unicodedata.name(ch, 'unnamed character')})"
    return ""


def ascii_only(token: str) -> None:
    """Refuse a character outside ASCII in a metric name. Every spelling of every grammar is
    ASCII; a look-alike (fullwidth ``ＮＤＣＧ``, Cyrillic ``с`` in ``ndcg_сut_10``, a fullwidth
    digit ``１``) would otherwise be an unknown name at best and, through Python's NFKC
    normalisation of identifiers in the ir_measures grammar (``ast.parse``), silently the
    ASCII measure at worst. ASCII white space separates names; any other (a no-break space,
    U+3000) is a character of the name, refused here: ir_measures refuses it too, and no tool
    reads ``ndcg@10\u00a0map`` as two names."""
    held = non_ascii(token)
    if not held:
        return
    if "control character" in held:
        raise ConfigError(f"unknown metric {token!r}: {held}; metric names are printable ASCII")
    raise ConfigError(f"unknown metric {token!r}: {held}; metric names are ASCII, retype it "
                      "without the look-alike (nDCG@10, ndcg_cut_10, P@5)")


def tokens(items: list[str]) -> list[str]:
    """The names of ``items`` (each a string of names) in order; see the module docstring.

    Raises:
        ConfigError: an empty name (its place said), a qualifier without a name, a non-ASCII
            character.
    """
    out: list[str] = []
    for number, item in enumerate(items, 1):
        names = _split(item)
        if not names and len(items) > 1:
            raise ConfigError(f"metric name {number} of the list is empty ({item!r}): give a "
                              "name such as ndcg@10, or leave the entry out")
        for token in names:
            ascii_only(token)
            out.append(token)
    return _headers(out, " ".join(items))  # a header's [PROFILE] may be a list item of its own


def _split(item: str) -> list[str]:
    """Tokens of ``item``: split at commas and white space outside brackets and quotes; white
    space around a ``:`` outside brackets joins (``trec_eval-c : P_5``); an empty name between
    commas (or at either end) is refused."""
    fields, depth, quote = _outside(item, lambda ch: ch == ",")  # white space kept
    _balanced(item, depth, quote)
    if not any(f.strip() for f in fields):
        return []  # nothing but separators: "no metric names given"
    refuse_empty_items(fields, item, "metric name")
    out: list[str] = []
    for text in fields:
        out.extend(_words(text, item))
    return out


def _outside(text: str, separates: Callable[[str], bool]) -> tuple[list[str], int, str]:
    """``text`` cut at each character ``separates`` accepts outside brackets and quotes (empty
    fields kept), with the bracket depth and the open quote left at its end."""
    fields: list[str] = []
    current: list[str] = []
    depth, quote = 0, ""
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth <= 0 and separates(ch):
            fields.append("".join(current))
            current = []
            continue
        current.append(ch)
    fields.append("".join(current))
    return fields, depth, quote


def _balanced(item: str, depth: int, quote: str) -> None:
    """Refuse a bracket or quote left open at the end of ``item``: every name after it (commas
    included) would be read as one unknown name (``P(rel=2@5,map``)."""
    if quote:
        raise ConfigError(f"unknown metric {item!r}: the quote {quote} is not closed (names "
                          "with a text parameter: nDCG(dcg='exp-log2')@10)")
    if depth > 0:
        raise ConfigError(f"unknown metric {item!r}: a bracket is not closed (parameters are "
                          "written in brackets before the cutoff: P(rel=2)@5)")


def _words(text: str, item: str) -> list[str]:
    """The white-space separated words of one comma field (outside brackets and quotes), a
    ``:`` with white space around it joined to its neighbours."""
    words = [w for w in _outside(text, _ascii_space)[0] if w]
    joined: list[str] = []
    for word in words:
        if joined and (joined[-1].endswith(":") or word.startswith(":")):
            joined[-1] += word
        else:
            joined.append(word)
    for word in joined:
        if word.endswith(":") or word.startswith(":"):
            raise ConfigError(f"{word!r} in {item!r} is a profile qualifier without a metric "
                              "name: write PROFILE:NAME (trec_eval-c:P_5)")
    return joined


def _ascii_space(ch: str) -> bool:
    """Whether ``ch`` separates two names: ASCII white space only (C ``isspace``); Python's
    ``str.isspace`` also takes U+00A0, U+3000 and the separators U+001C..U+001F."""
    return ch in ASCII_SPACE


_LABEL = re.compile(r"^\[\s*(?P<profile>[^\[\]]*?)\s*\]$")
_HEADER = re.compile(r"^(?P<name>[^\[\]]+?)\s*\[\s*(?P<profile>[^\[\]]*?)\s*\]$")
_QUALIFIER = re.compile(r"^(?P<profile>[A-Za-z][A-Za-z0-9_.+@-]*)\s*:")
_TWICE = re.compile(r"^(?P<first>[A-Za-z][A-Za-z0-9_.+@-]*)\s*:\s*"
                    r"(?P<second>[A-Za-z][A-Za-z0-9_.+@-]*)\s*:")


def _headers(words: list[str], item: str) -> list[str]:
    """A comparison table's header pasted back (``ndcg_cut_10 [trec_eval]``, with or without
    the space) read as the ``PROFILE:NAME`` it prints (``trec_eval:ndcg_cut_10``); a bracketed
    profile after a name qualified with another one, or after nothing, is refused."""
    out: list[str] = []
    for word in words:
        twice = _TWICE.match(word)
        if twice is not None:  # lightgbm:lightgbm:ndcg@10, a result key qualified again
            raise ConfigError(f"{word!r} in {item!r} names two profiles ({twice['first']!r}, "
                              f"{twice['second']!r}); a metric takes one PROFILE: qualifier "
                              f"({twice['second']}:{word[twice.end():]})")
        label = _LABEL.match(word)
        if label is not None:
            if not out or _LABEL.match(out[-1]):
                raise ConfigError(f"{word!r} in {item!r}: a profile in brackets follows the "
                                  "metric it labels (a comparison's header: ndcg_cut_10 "
                                  "[trec_eval]); write PROFILE:NAME (trec_eval:ndcg_cut_10)")
            out.append(_labelled(out.pop(), label["profile"], item))
            continue
        header = _HEADER.match(word)
        out.append(word if header is None else _labelled(header["name"], header["profile"], item))
    return out


def _labelled(name: str, profile: str, item: str) -> str:
    """``profile:name`` for a header's ``name [profile]``; ``name`` when it is so qualified."""
    shown = f"{name} [{profile}]"
    if not profile:
        raise ConfigError(f"{shown!r} in {item!r}: the brackets name no profile; write "
                          "PROFILE:NAME (trec_eval:ndcg_cut_10) or the name alone")
    own = _QUALIFIER.match(name)
    if own is None:
        return f"{profile}:{name}"
    if own["profile"].lower() == profile.lower():
        return name
    raise ConfigError(f"{shown!r} in {item!r}: the name is computed under profile "
                      f"{own['profile']!r} but the brackets say {profile!r}; write one of "
                      f"{name} or {profile}:{name[own.end():].strip()}")


def cutoff_stem(token: str) -> str:
    """What a bare cutoff after ``token`` continues, in the user's spelling: ``"NDCG@"`` for
    ``"NDCG@5"``, ``"ndcg_cut."`` for ``"ndcg_cut.5"``; ``""`` when ``token`` ends in no cutoff."""
    m = re.match(r"^(?P<stem>.*?[@_.])(?:[0-9]*\.)?[0-9]+$", token)  # iprec_at_recall.0.1
    return m.group("stem") if m else ""


def named_twice(label: str, first: str, second: str) -> str:
    """The one rule's words for a metric a list names twice (by its key, the spelling its
    column carries), naming the list items that give it: ``'ndcg@10' is named twice
    ('ndcg@1,10' and 'ndcg@10' both give it)``. Used by ``evaluate``, a comparison, a run's
    and a config's ``metrics`` (:func:`bench.benchmark.scoring.run_metrics`)."""
    items = list(dict.fromkeys((first, second)))
    said = "" if items == [label] else f" ({items[0]!r} gives it twice)" if len(items) == 1 \
        else f" ({items[0]!r} and {items[1]!r} both give it)"
    return (f"metric {label!r} is named twice{said}: each name is one column; give each "
            "metric once")
