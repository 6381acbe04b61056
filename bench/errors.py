"""Errors that ltrbench raises on bad input.

Every error about data names where the problem is (file, line, row, column) and what was
expected, so that a user never has to guess why a number could not be computed. The CLI
prints these as ``error: <message>`` and exits with status 2.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterable, Sequence
from os import PathLike


class LtrbenchError(Exception):
    """Base class of every error ltrbench raises on purpose."""


class DataError(LtrbenchError, ValueError):
    """Input data that cannot be used as it is.

    The message is prefixed with a location built from the keyword arguments, e.g.
    ``rank.train:17: expected 'label [qid:Q] index:value ...'`` or
    ``ratings.csv, row 12 (user=3, item=7): duplicate (user, item) pair``.

    Locations are numbered from 1 everywhere: ``line`` is the 1-based line of a text file
    (counting blank and comment lines), ``row`` the 1-based data row (the first data row, or
    the first element of an array passed in Python, is row 1; blank and comment lines are not
    rows), ``column`` a column name.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | PathLike[str] | None = None,
        line: int | None = None,
        row: int | None = None,
        column: str | None = None,
    ) -> None:
        self.path = None if path is None else str(path)
        self.line = line
        self.row = row
        self.column = column
        self.reason = message
        super().__init__(_located(message, self.path, line, row, column))


class ConfigError(LtrbenchError, ValueError):
    """A configuration, option or name that ltrbench does not accept (the message lists valid ones).

    An error about one key of a configuration value (an :class:`~bench.adapters.config.
    AdapterConfig` field) carries it typed: ``key`` (``"negatives"``) and ``detail``, the text
    after ``key=`` (``"-1 must be an integer from 0 to ..."``); the message is then
    ``key=detail``. A caller that knows the key under another name (the command-line option
    ``--negatives``) says that name with :meth:`renamed`, never by parsing the text. Both are
    ``None`` for other errors.
    """

    def __init__(self, message: str = "", *, key: str | None = None,
                 detail: str | None = None) -> None:
        if key is not None and detail is not None and not message:
            message = f"{key}={detail}"
        super().__init__(message)
        self.key = key
        self.detail = detail

    def renamed(self, name: str) -> ConfigError:
        """The same error under the name the user typed (``--negatives -1 must be ...``);
        ``self`` when it carries no key."""
        if self.key is None or self.detail is None:
            return self
        return ConfigError(f"{name} {self.detail}", key=name, detail=self.detail)


def _located(
    message: str, path: str | None, line: int | None, row: int | None, column: str | None
) -> str:
    # a path with a line end or another control character is shown escaped, on one line
    where = (path if path.isprintable() else repr(path)[1:-1]) if path else ""
    if line is not None:
        where = f"{where}:{line}" if where else f"line {line}"
    parts = [where] if where else []
    if row is not None:
        parts.append(f"row {row}")
    if column is not None:
        parts.append(f"column {column!r}")
    return f"{', '.join(parts)}: {message}" if parts else message


def did_you_mean(name: str, valid: Iterable[str]) -> str:
    """``"did you mean 'x'? "`` for the closest valid name (:func:`difflib.get_close_matches`,
    case-insensitive), or ``""``: the one spelling-hint text of every "unknown ..." message."""
    import difflib

    names = list(valid)
    lowered = {n.lower(): n for n in names}
    close = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.6)
    return f"did you mean {lowered[close[0]]!r}? " if close else ""


def non_ascii(text: str) -> str:
    """``'і' (U+0456 CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I)`` for each character of
    ``text`` that is not ASCII (a look-alike of a key's letter), joined by ``, ``; empty when
    there is none."""
    odd = [c for c in dict.fromkeys(text) if not c.isascii()]
    return ", ".join(f"{c!r} (U+{ord(c):04X} {unicodedata.name(c, 'unnamed character')})"
                     for c in odd)


#: The white space of C's ``isspace`` (``atoi``, ``strtod``, trec_eval's and LightGBM's field
#: splitting). Python's ``str.strip`` / ``str.split`` / ``int`` take more: U+00A0, U+3000,
#: U+2003 ... and the separators U+001C..U+001F (:func:`foreign_space` names them).
ASCII_SPACE = " \t\n\r\x0b\x0c"


def foreign_space(text: str) -> str:
    """``'\xa0' (U+00A0 NO-BREAK SPACE)`` for the first character of ``text`` that Python takes
    for white space and C does not; empty when there is none."""
    ch = next((c for c in text if c.isspace() and c not in ASCII_SPACE), "")
    return f"{ch!r} (U+{ord(ch):04X} {unicodedata.name(ch, 'separator')})" if ch else ""


def refuse_foreign_space(text: str, where: str, expected: str) -> None:
    """A ConfigError naming ``where`` when the option value ``text`` holds white space only
    Python strips or splits at (:func:`foreign_space`): ``--seeds '1,\u00a02'`` would be
    ``1,2`` to Python and not a number list to C's ``atoi``; one rule, ASCII spaces only."""
    held = foreign_space(text)
    if held:
        raise ConfigError(f"{where}: {text!r} holds {held}; expected {expected} with ASCII "
                          "spaces only: retype it without the pasted space")


def unknown(what: str, name: object, valid: Iterable[str]) -> ConfigError:
    """The one "unknown <what>" error of a table lookup: the name as given, the closest valid
    name (:func:`did_you_mean`) and every valid name, e.g. ``unknown engine 'dsak'; did you mean
    'dask'? valid: local, dask``."""
    names = list(valid)
    return ConfigError(f"unknown {what} {name!r}; {did_you_mean(str(name), names)}"
                       f"valid: {', '.join(names)}")


class ChoiceSpellingWarning(UserWarning):
    """A fixed choice written in another letter case or with ASCII spaces around it
    (``engine = "Dask"``, ``--format JSON``, ``profile = "LightGBM "``, a model ``" xgboost-ndcg"``):
    read as its one spelling, which is what is recorded, and said once."""


def spelled_choice(value: object, choices: Iterable[object], where: str) -> object:
    """The one rule of a fixed choice on every door (a config key, an option, a Python argument):
    ``value`` when it is one of ``choices``; the choice it spells in another letter case or with
    ASCII spaces around it, said once (:class:`ChoiceSpellingWarning`); else ``value`` as it is,
    for the caller to refuse with :func:`choice_hint`. A no-break space or a look-alike letter is
    never read as a choice (:func:`choice_hint` names it)."""
    names = [c for c in choices if isinstance(c, str)]
    if not isinstance(value, str) or value in names:
        return value
    key = value.strip(ASCII_SPACE).lower()
    hits = [c for c in names if c.lower() == key]
    if len(hits) != 1:
        return value
    import warnings

    warnings.warn(f"{where}: {value!r} read as {hits[0]!r} (choices are written in lower case, "
                  "without spaces around them)", ChoiceSpellingWarning, stacklevel=3)
    return hits[0]


def choice_hint(value: object, choices: Iterable[object]) -> str:
    """Why ``value`` is none of ``choices``, ending in ``"; "`` (or ``""``): a pasted space
    (:func:`foreign_space`) or a letter that is not ASCII (:func:`non_ascii`) named by code
    point, else the closest valid choice (:func:`did_you_mean`)."""
    text = str(value)
    if held := foreign_space(text):
        return f"it holds {held}, a space only Python strips: retype it; "
    if held := non_ascii(text):
        return f"it holds {held}, not ASCII: a look-alike? retype it; "
    return did_you_mean(text, [str(c) for c in choices])


def refuse_empty_items(fields: Sequence[str], whole: str, noun: str, where: str = "", *,
                       blank_ok: bool = True) -> None:
    """A ConfigError when one of ``fields`` (``whole`` cut at its commas, the caller's way) is
    empty or white space: two commas with nothing between them, or a comma at either end
    (``--metrics ndcg@1,,3``, ``--seeds 1,,2``, ``--models lightgbm,,random``, ``--grid
    num_leaves=3,,7``, ``--tools ranx,,sklearn``). Dropping the gap would run without a name
    the user may have left out. Fields of separators only are left to the caller ("no models
    given") when ``blank_ok``, refused otherwise; the error names the place by the word before
    it, after ``where`` (an option)."""
    if blank_ok and not any(f.strip() for f in fields):
        return
    for i, f in enumerate(fields):
        if f.strip():
            continue
        before = next((g.split()[-1] for g in reversed(fields[:i]) if g.strip()), "")
        place = ("white space only" if len(fields) == 1 else "a comma at the start" if i == 0
                 else f"a comma at the end, after {before!r}" if i == len(fields) - 1 else
                 f"two commas with nothing between them, after {before!r}")  # (i > 0: a word)
        raise ConfigError(f"{where}{': ' if where else ''}empty {noun} in {whole!r}: {place}; "
                          f"remove the extra comma or write the {noun} that was left out")


def home_expanded(text: str, where: str) -> str:
    """``text`` with a leading ``~`` or ``~user`` read as that home folder, as the shell does;
    a ConfigError naming ``where`` when it cannot be: ``HOME`` unset and no passwd entry for
    this user id (a container run as ``--user 12345``), or no such user. :func:`os.path.expanduser`
    then returns the text as it is, and ltrbench wrote into a folder named ``~`` in the
    working folder (exit 0), or said only that ``~/q.txt`` does not exist."""
    if not text.startswith("~"):
        return text
    home = os.environ.get("HOME")
    if text[1:2] in ("", "/", os.sep) and home is not None and not os.path.isabs(home):
        raise ConfigError(f"{where} {text!r}: cannot expand '~': HOME is {home!r}, not an "
                          "absolute path (an empty HOME would put the path at the file system's "
                          "root, a relative one under the working folder): set HOME to your "
                          "home folder, or give the path without '~'")
    if not (done := os.path.expanduser(text)).startswith("~"):
        return done
    user = text[1:].replace(os.sep, "/").split("/", 1)[0]
    why = (f"no user named {user!r} on this system" if user else
           f"HOME is not set and user id {getattr(os, 'getuid', lambda: '?')()} has no passwd "
           "entry")
    raise ConfigError(f"{where} {text!r}: cannot expand '~' ({why}): set HOME, or give the "
                      "path without '~'")
