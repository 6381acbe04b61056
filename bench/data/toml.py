"""TOML files (dataset cards, run configs): read with :mod:`tomllib` (Python >= 3.11) or
``tomli``, written with ``tomli-w``. The one place that picks the parser and the writer.

Also the strict check of one typed value of a parsed document (:class:`Spec`): a TOML value has
its own type (integer, float, boolean, string, array, table) and is never coerced into another:
``"false"`` is not false, ``1.5`` and ``true`` are not integers (a boolean is not an integer
here, unlike Python's ``bool``), ``"100"`` is not a number; an integer is accepted where a
float is expected (TOML writes ``1`` and ``1.0`` apart, both are numbers), and a float must be
finite. Every error names the key and says what was expected and what was given.
"""

from __future__ import annotations

import math
import re
import sys
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomli_w

from bench.data.big_ints import int_text, long_number_text
from bench.data.compressed import HEAD
from bench.data.folder_names import missing_note
from bench.data.inputs import bom_length, check_input_file
from bench.errors import (
    ConfigError,
    DataError,
    choice_hint,
    did_you_mean,
    non_ascii,
    spelled_choice,
)

if sys.version_info >= (3, 11):  # pragma: no cover - depends on the Python version
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

TOMLDecodeError = tomllib.TOMLDecodeError


def read_toml(path: str | Path) -> dict[str, Any]:
    """Parse a TOML file (UTF-8, as the TOML 1.0 specification requires; a UTF-8 byte-order
    mark is skipped).

    A missing file is a :class:`~bench.errors.ConfigError` ``"<path>: no such config file"``; a
    folder, a file that cannot be read, UTF-16/UTF-32 text (named by its byte-order mark) or bytes
    that are not UTF-8 (line and column named) are ConfigErrors naming the file; a syntax error
    is a ConfigError ``"<path>: not valid TOML: <parser message>"`` whose ``__cause__`` is the
    parser's :data:`TOMLDecodeError`.
    """
    p = Path(path)
    if not p.exists() and not p.is_symlink():
        raise ConfigError(f"{p}: no such config file{missing_note(p)}")  # 'conf\\run.toml'
    try:
        raw = check_input_file(p, expected="a TOML file").read_bytes()
        raw = raw[bom_length(raw[:HEAD], p):]
    except DataError as exc:
        raise ConfigError(str(exc)) from None
    except OSError as exc:
        raise ConfigError(f"{p}: cannot be read ({exc.strerror}): expected a TOML file") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ConfigError(f"{p}:{line}: not UTF-8 text (byte {raw[exc.start]:#04x} at column "
                          f"{column}); a TOML file is UTF-8") from None
    try:
        doc: dict[str, Any] = tomllib.loads(text)
        return doc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p}: not valid TOML: {exc}{_offending_line(text, str(exc))}"
                          f"{_lone_cr_hint(text)}{_stray_hint(text, str(exc))}") from exc
    except ValueError as exc:  # an integer beyond Python's digit limit (bench.data.big_ints)
        cause = tomllib.TOMLDecodeError(long_number_text(text) or str(exc))
        raise ConfigError(f"{p}: not valid TOML: {cause}") from cause
    except RecursionError:  # tomllib reads nested arrays and inline tables recursively
        deep = _deep_line(text)
        raise ConfigError(f"{p}{f':{deep}' if deep else ''}: arrays or inline tables nested "
                          f"more than {MAX_NESTING} deep; expected a config's few levels "
                          "(Python's TOML reader would exhaust its recursion limit)") from None


#: The deepest nesting of arrays and inline tables :func:`_deep_line` looks for.
MAX_NESTING = 100


def _deep_line(text: str) -> int | None:
    """The first line where brackets and braces (outside quotes, roughly) open more than
    :data:`MAX_NESTING` deep, for the error of a file too deeply nested to read."""
    depth = 0
    for number, line in enumerate(text.splitlines(), start=1):
        bare = re.sub(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'', "", line.split("#", 1)[0])
        for ch in bare:
            depth += 1 if ch in "[{" else -1 if ch in "]}" else 0
            if depth > MAX_NESTING:
                return number
    return None


def _offending_line(text: str, message: str) -> str:
    """``: line 7 reads 'quick = false'`` for a parser message ending ``(at line 7, column
    14)`` (a key given twice names only the place), with a hint for a key or table given twice."""
    m = re.search(r"\(at line (\d+), column \d+\)$", message)
    lines = text.splitlines()
    if m is None or not 0 < int(m.group(1)) <= len(lines):
        return ""
    shown = lines[int(m.group(1)) - 1].strip()
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    twice = message.startswith(("Cannot overwrite", "Cannot declare"))
    line = lines[int(m.group(1)) - 1]
    hint = " (a key or table given twice?)" if twice else _line_hint(line) or _value_hint(line)
    return f"; line {m.group(1)} reads {shown!r}{hint}"


def _stray_hint(text: str, message: str) -> str:
    """``; line 2: a NUL byte at column 4: ...`` when the line the parser names holds a
    character every text reader refuses by name (:func:`bench.data.input_ids.stray_character`:
    a NUL, as UTF-16 without a byte-order mark has beside every letter, an inner byte-order
    mark, a VT, FF, NEL or U+2028 ending a line where TOML does not): the parser said only
    "Expected '=' after a key" or "Expected newline or end of document"."""
    from bench.data.input_ids import stray_character

    m = re.search(r"\(at line (\d+), column \d+\)$", message)
    lines = text.replace("\r\n", "\n").split("\n")
    if m is None or not 0 < int(m.group(1)) <= len(lines):
        return ""
    why = stray_character(lines[int(m.group(1)) - 1].encode("utf-8", "surrogatepass"))
    return f"; line {m.group(1)}: {why}" if why else ""


def _lone_cr_hint(text: str) -> str:
    """``; the file ends its lines with a lone CR ...`` when ``text`` holds a CR not followed
    by LF (classic Mac OS, some exports): every other reader of ltrbench ends a line there, TOML
    does not (LF or CRLF, TOML 1.0), so the parser's message names a place but not why."""
    if re.search(r"\r(?!\n)", text) is None:
        return ""
    return ("; the file ends lines with a lone CR (U+000D, classic Mac OS line ends), which "
            "TOML does not read as a line end (LF or CRLF): convert it, e.g. tr '\\r' '\\n'")


def _line_hint(line: str) -> str:
    """`` (an unrendered template ...)`` for a line that holds ``{{``, ``{%`` or ``${`` (a
    template's placeholder or tag left in the file), `` (... YAML ...)`` for ``key: value`` or
    ``- item`` (a YAML file given as TOML), `` (the key holds 'і' (U+0456 ...)...)`` for a bare
    key with a character that is not ASCII (a look-alike); empty otherwise."""
    if any(mark in line for mark in ("{{", "{%", "${")):
        return (" (an unrendered template placeholder or tag: render the template before "
                "running)")
    if "=" not in line and _YAML_LINE.fullmatch(line):
        return (" (YAML's spelling: TOML writes key = value, a list as [a, b] and a table as "
                "[name]; convert the YAML file to TOML)")
    key = line.partition("=")[0].strip(" \t")  # 'seeds\u00a0': the no-break space is the fault
    odd = non_ascii(key) if not key.startswith(("\"", "'", "[")) else ""
    return (f" (the key holds {odd}: a bare key is ASCII letters, digits, '-' and '_'; a "
            "look-alike?)") if odd else ""


#: A line of YAML: ``key: value``, ``key:`` (a mapping follows) or ``- item``.
_YAML_LINE = re.compile(r"\s*(?:[\w.-]+\s*:(?:\s.*)?|-\s.*)")


#: Values a template writes in another language's spelling, and what TOML writes.
_SPELLINGS = ((re.compile(r"(True|False|TRUE|FALSE|yes|no|on|off|Yes|No)"), "TOML writes the "
               "booleans true and false, in lower case"),
              (re.compile(r"(None|null|nil|NULL|Null|~)"), "TOML has no null: leave the key out "
                          "for its default"),
              (re.compile(r"[+-]?\.\d.*|\d+\."), "TOML writes a digit on both sides of a decimal "
                                                 "point: 0.1, 1.0"))


#: A number with a decimal comma (``0,1``, a German or French locale's spelling).
_LOCALE_VALUE = re.compile(r"[+-]?\d+,\d+")
#: A basic string holding a backslash (a Windows path ``"C:\\Users\\anna"``).
_BACKSLASH_STRING = re.compile(r'"[^"]*\\[^"]*"')


def _value_hint(line: str) -> str:
    """What a value refused by the parser was likely meant as, when it is a spelling of Python,
    YAML or JSON (``True``, ``None``, ``.1``: what a template renders from a variable), as
    ``(... ; TOML writes ...)``; empty otherwise. The value of ``key = value`` and each item
    of a one-line array are looked at."""
    _, eq, value = line.partition("=")
    if not eq:
        return ""
    whole = value.split("#")[0].strip(" \t")
    odd = non_ascii(re.sub(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'', "", whole))  # outside strings
    if odd:
        return (f" (the value holds {odd} outside quotes: TOML numbers, booleans, dates and the "
                "spaces between them are ASCII; a full-width digit or a pasted space?)")
    if _LOCALE_VALUE.fullmatch(whole):
        return (f" ({whole!r}: a decimal comma; TOML writes a decimal point, "
                f"{whole.replace(',', '.')}, and no thousands separators)")
    if _BACKSLASH_STRING.fullmatch(whole):
        return (f" ({whole}: in a \"...\" string a backslash starts an escape (\\U, \\d ...); "
                "write a Windows path in single quotes, 'C:\\Users\\anna', or with '/')")
    items = [v.strip() for v in value.split("#")[0].strip().strip("[]").split(",")]
    for item in items:
        for pattern, say in _SPELLINGS:
            if pattern.fullmatch(item):
                return f" ({item!r}: {say})"
    return ""


def loads(text: str) -> dict[str, Any]:
    """Parse TOML text (a syntax error raises :data:`TOMLDecodeError`, and so does nesting too
    deep for Python's recursive reader)."""
    try:
        doc: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raise
    except ValueError as exc:  # an integer beyond Python's digit limit (bench.data.big_ints)
        raise tomllib.TOMLDecodeError(long_number_text(text) or str(exc)) from None
    except RecursionError:
        line = _deep_line(text)
        raise tomllib.TOMLDecodeError(f"arrays or inline tables nested more than {MAX_NESTING} "
                                      "deep" + (f" (at line {line})" if line else "")) from None
    return doc


def dumps(doc: dict[str, Any], *, header: str = "") -> str:
    """TOML text of ``doc`` with ``header`` as leading ``#`` comment lines.

    ``None`` values are left out at every depth (TOML has no null); :func:`loads` of the text
    gives back ``doc`` without them (floats round-trip exactly, ``inf``/``nan`` included).
    """
    lines = [f"# {h}" if h else "#" for h in header.splitlines()] if header else []
    body = tomli_w.dumps(_without_none(doc))
    return "\n".join([*lines, body]) if lines else body


def is_toml_value(value: Any) -> bool:
    """Whether :func:`dumps` writes ``value`` as it is: a string, number, boolean, or a list or
    table (string keys) of those. ``None`` is not (``dumps`` leaves it out)."""
    if isinstance(value, bool | int | float | str):
        return True
    if isinstance(value, list | tuple):
        return all(is_toml_value(v) for v in value)
    if isinstance(value, Mapping):
        return all(isinstance(k, str) and is_toml_value(v) for k, v in value.items())
    return False


def _without_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [_without_none(v) for v in value if v is not None]
    return value


#: The range of a C ``int`` (LightGBM's ``int`` parameters, ``include/LightGBM/config.h``).
INT32_MAX = 2**31 - 1
#: The largest finite float32 (XGBoost's ``TrainParam`` and CatBoost keep these parameters as
#: ``float``: a larger value becomes inf there) and the smallest normal positive one (XGBoost
#: refuses ``subsample = 1e-40``: "Out of range value").
FLOAT32_MAX = 3.4028234663852886e38
FLOAT32_TINY = 1.1754943508222875e-38
#: The smallest normal float64 (``sys.float_info.min``, C's ``DBL_MIN``).
FLOAT64_TINY = 2.2250738585072014e-308


@dataclass(frozen=True)
class Spec:
    """A typed value of a config: its ``kind`` (``int``, ``float``, ``bool`` or ``str``), its
    range (``lo``/``hi``, exclusive where ``lo_open``/``hi_open``), its allowed ``choices`` (a
    string), and where the range comes from (``source``: the library's documentation or source).

    An ``int`` without bounds is a C ``int`` (``0 .. 2147483647`` unless ``lo`` says less).
    """

    name: str
    kind: type
    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False
    hi_open: bool = False
    choices: tuple[str, ...] = ()
    source: str = ""
    nonempty: bool = False
    one_line: bool = False  # a string without control characters (a line end, a tab, NUL)
    #: the longest text accepted (a longer one is refused, its start shown, not all of it)
    max_length: int | None = None
    #: a float other than 0 must be a normal float64 (magnitude >= :data:`FLOAT64_TINY`): a
    #: subnormal one keeps fewer significant bits than the numbers it multiplies
    normal: bool = False

    def check_length(self, value: Any, where: str) -> None:
        """A ConfigError when ``value`` is a text over :attr:`max_length` characters."""
        if self.max_length is not None and isinstance(value, str) and len(value) > self.max_length:
            raise ConfigError(f"{where}: {len(value):,} characters ({value[:40]!r}...); expected "
                              f"at most {self.max_length:,}")

    def expected(self) -> str:
        """What a value must be, in words: ``an integer from 1 to 2147483647``."""
        if self.kind is bool:
            return "true or false"
        if self.kind is str:
            if self.choices:
                return "one of " + ", ".join(repr(c) for c in self.choices)
            return "a non-empty string" if self.nonempty else "a string"
        noun = "an integer" if self.kind is int else "a finite number"
        lo, hi = self._bounds()
        if self.kind is int and lo is not None and hi is not None and not self.lo_open \
                and not self.hi_open:
            return f"{noun} from {_num(lo)} to {_num(hi)}"
        parts = []
        if lo is not None:
            parts.append(f"{'>' if self.lo_open else '>='} {_num(lo)}")
        if hi is not None:
            parts.append(f"{'<' if self.hi_open else '<='} {_num(hi)}")
        text = f"{noun} {' and '.join(parts)}" if parts else noun
        if self.normal:
            zero = lo is None or lo < 0 or (lo == 0 and not self.lo_open)
            text += (f" ({'0 or ' if zero else ''}at least {FLOAT64_TINY!r} in magnitude, the "
                     "smallest normal float64: a subnormal number keeps fewer significant bits)")
        return text

    def _bounds(self) -> tuple[float | None, float | None]:
        if self.kind is int:
            return (-INT32_MAX - 1 if self.lo is None else self.lo,
                    INT32_MAX if self.hi is None else self.hi)
        return self.lo, self.hi

    def check(self, value: Any, where: str) -> Any:
        """``value`` in its canonical form (:func:`canonical`: a float field's ``0``, ``0.0`` and
        ``-0.0`` are the one value ``0.0``) when it is of this kind and in range, else a
        ConfigError ``"<where>: expected <what>; got <value> (<its type>)"``."""
        self.check_length(value, where)
        if self.choices:  # 'Dask' is 'dask', said once; 'dsak' names the closest
            value = spelled_choice(value, self.choices, where)
        if self.one_line and isinstance(value, str) and _control(value):
            raise ConfigError(f"{where}: {value!r} holds a control character (a line end, a tab): "
                              f"expected {self.expected()} on one line")
        if not self.accepts(value):
            hint = choice_hint(value, self.choices) if self.choices and self._typed(value) else ""
            raise ConfigError(f"{where}: expected {self.expected()}; got {show(value)}"
                              + (f" ({self.source})" if self.source and self._typed(value) else "")
                              + (f"; {hint.rstrip('; ')}" if hint else ""))
        return canonical(value, self.kind)

    def _typed(self, value: Any) -> bool:
        if self.kind is bool:
            return isinstance(value, bool)
        if self.kind is str:
            return isinstance(value, str)
        if isinstance(value, bool):
            return False
        return isinstance(value, int) or (self.kind is float and isinstance(value, float))

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` is of this kind (no coercion) and inside the range."""
        if not self._typed(value):
            return False
        if self.kind is bool:
            return True
        if self.kind is str:
            if (self.one_line and _control(value)) or (self.max_length is not None
                                                     and len(value) > self.max_length):
                return False
            return (value in self.choices) if self.choices else bool(value) or not self.nonempty
        if isinstance(value, float) and not math.isfinite(value):
            return False
        if self.kind is float and isinstance(value, int) and abs(value) > sys.float_info.max:
            return False  # no float holds it
        if self.normal and value != 0 and abs(value) < FLOAT64_TINY:
            return False
        lo, hi = self._bounds()
        if lo is not None and (value <= lo if self.lo_open else value < lo):
            return False
        return not (hi is not None and (value >= hi if self.hi_open else value > hi))


def canonical(value: Any, kind: type) -> Any:
    """One form per typed value, so that equal configs are equal (and hash equal): a float
    field's integer or ``-0.0`` as a Python float (``0``, ``0.0`` and ``-0.0`` are ``0.0``: the
    libraries read them as the same number), a NumPy scalar as the Python one. The value is
    trained, recorded and hashed in this form."""
    if kind is float:
        return float(value) + 0.0  # + 0.0: -0.0 becomes 0.0
    if kind is int:
        return int(value)
    return bool(value) if kind is bool else value


def canonical_raw(value: Any) -> Any:
    """A raw library value (whose type only the library knows) in its canonical form: ``-0.0``
    as ``0.0`` (a NumPy float as a Python float), at any depth; an integer stays an integer
    and a float a float, because a library reads ``1`` and ``1.0`` apart (LightGBM refuses
    ``1.0`` for an integer parameter)."""
    if isinstance(value, float):
        return float(value) + 0.0
    if isinstance(value, list | tuple):
        return type(value)(canonical_raw(v) for v in value)
    if isinstance(value, Mapping):
        return {k: canonical_raw(v) for k, v in value.items()}
    return value


def show(value: Any) -> str:
    """A value as the user wrote it, with its type: ``'100' (a string)``, ``1.5 (a float)``."""
    if isinstance(value, bool):
        return f"{'true' if value else 'false'} (a boolean)"
    if isinstance(value, str):
        return f"{value!r} (a string)"
    if isinstance(value, int):
        return f"{int_text(value)} (an integer)"
    if isinstance(value, float):
        return f"{value!r} (a float)"
    if isinstance(value, list | tuple):
        text = repr(list(value))
        return f"{text if len(text) <= 60 else text[:57] + '...'} (an array)"
    if isinstance(value, Mapping):
        return "a table"
    return f"{value!r} (a {type(value).__name__})"


def unknown_key(where: str, key: str, valid: Iterable[str], *, noun: str = "key") -> ConfigError:
    """The error for an unknown ``key`` (in the table ``where``, e.g. ``[params] ``): ``unknown
    parameter [params] num_leaf; did you mean 'num_leaves'? valid: ...`` (the closest valid name
    by :func:`bench.errors.did_you_mean`, then every valid one)."""
    names = sorted(valid)
    # '' or ' x' or an invisible character would not show: quoted, escaped
    shown = key if key and key.isprintable() and key == key.strip() else repr(key)
    odd = non_ascii(key)  # 'quіck' (a Cyrillic і) reads as 'quick': the character is named
    odd = f" (it holds {odd}, not ASCII: a look-alike?)" if odd else ""
    return ConfigError(f"unknown {noun} {where}{shown}{odd}; {did_you_mean(key, names)}valid: "
                       f"{', '.join(names)}")


def table(value: Any, where: str) -> dict[str, Any]:
    """``value`` when it is a table (a mapping with string keys), else a ConfigError naming
    ``where``."""
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise ConfigError(f"{where}: expected a table ([{where.strip('[] ')}] with key = value "
                          f"lines); got {show(value)}")
    return dict(value)


def _control(text: str) -> bool:
    """Whether ``text`` holds a control character or a line or paragraph separator."""
    return any(unicodedata.category(ch) in ("Cc", "Zl", "Zp") for ch in text)


def _num(x: float) -> str:
    return str(int(x)) if isinstance(x, int) or (float(x).is_integer() and abs(x) < 1e16) else repr(x)
