"""JSON as ltrbench writes it: strict (no NaN / infinity tokens), numbers made JSON-safe.

Every JSON file and ``--format json`` output of ltrbench goes through :func:`json_number` for its
floats, so an undefined value (NaN, an infinity, a missing number) is ``null`` everywhere, never
``NaN`` (which is not JSON, RFC 8259 §6) and never a different spelling in different files.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np


def json_number(x: Any) -> float | None:
    """``float(x)`` when it is finite, else ``None`` (missing, not convertible, NaN or infinite).

    >>> json_number("1.5"), json_number(float("nan")), json_number(float("inf")), json_number("x")
    (1.5, None, None, None)
    """
    if x is None:
        return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def json_default(obj: Any) -> Any:
    """``default=`` hook of :func:`json.dumps`: NumPy scalars and arrays, paths, else ``str``."""
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    return str(obj)


def dumps(doc: Any) -> str:
    """``doc`` as indented JSON text with a final newline (NumPy values and paths converted);
    a NaN or infinity anywhere in it (a user's ``LetorSplits.meta``) is ``null``, as
    :func:`json_number` says it: ``json.dumps`` wrote the token ``NaN``, which no strict JSON
    reader takes. Documents without one are written in one pass."""
    try:
        return json.dumps(doc, indent=2, default=json_default, allow_nan=False) + "\n"
    except ValueError:  # a non-finite float (another ValueError is raised again below)
        return json.dumps(_finite(doc), indent=2, default=json_default, allow_nan=False) + "\n"


def _finite(doc: Any) -> Any:
    """``doc`` with every float that is not finite (NumPy's too) as ``None``."""
    if isinstance(doc, dict):
        return {k: _finite(v) for k, v in doc.items()}
    if isinstance(doc, list | tuple):
        return [_finite(v) for v in doc]
    if isinstance(doc, np.ndarray):
        return _finite(doc.tolist())
    if isinstance(doc, np.generic):
        doc = doc.item()
    if isinstance(doc, float) and not math.isfinite(doc):
        return None
    return doc


class RepeatedKey(ValueError):
    """A JSON object holding one key twice (its name is the argument)."""


def each_key_once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise RepeatedKey(key)
        out[key] = value
    return out


class NotJsonNumber(ValueError):
    """A token :mod:`json` reads but JSON has not (``NaN``, ``Infinity``, ``-Infinity``, RFC 8259
    §6), or a number beyond float64 that it reads as an infinity (``1e999``): the argument."""


def _no_constant(token: str) -> Any:
    raise NotJsonNumber(token)


def _finite_float(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):
        raise NotJsonNumber(token)
    return value


def json_place(text: str, token: str) -> tuple[int, int, str | None]:
    """(line, column, the key whose value it is or ``None``) of the first ``token`` outside a
    string of ``text`` (1-based; (1, 1, None) when not found)."""
    import re

    for m in re.finditer(r'"(?:[^"\\]|\\.)*"|' + re.escape(token), text):
        if not m.group().startswith('"'):
            line = text.count("\n", 0, m.start()) + 1
            key = re.search(r'"((?:[^"\\]|\\.)*)"\s*:\s*$', text[max(0, m.start() - 200):m.start()])
            return (line, m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1,
                    key.group(1) if key else None)
    return 1, 1, None


def not_json_number(text: str, token: str) -> str:
    """What :class:`NotJsonNumber` ``token`` of ``text`` is, for an error: ``ci_low is inf
    (written 'Infinity' at line 1, column 152): ...``."""
    line, column, key = json_place(text, token)
    return (f"{key or 'a value'} is {float(token)!r} (written {token!r} at line {line}, column "
            f"{column}): JSON has no NaN or infinity, and a float64 ends near 1.8e308")


def loads_strict(text: str) -> Any:
    """``json.loads`` as ltrbench writes JSON: each key once (:class:`RepeatedKey`), and no
    ``NaN`` / ``Infinity`` token or number beyond float64 (:class:`NotJsonNumber`), which
    :mod:`json` reads in silence (a value that :func:`dumps` never writes: another tool wrote
    or edited the file)."""
    return json.loads(text, object_pairs_hook=each_key_once, parse_constant=_no_constant,
                      parse_float=_finite_float)


def read_json_object(path: str | Path, what: str, hint: str = "") -> dict[str, Any]:
    """The JSON object in ``path`` (``what`` it should be, e.g. "the run's manifest"), or a
    :class:`~bench.errors.DataError` naming the file (and the line of a syntax error) when it is
    not UTF-8, not JSON, or not an object; ``hint`` (what to do about it) ends the message. A
    UTF-8 byte-order mark (a file saved again by a Windows editor) is skipped, as the TOML, CSV
    and text readers skip it (RFC 8259 §8.1 lets a parser ignore it): the manifest of such a run
    was refused as "not valid JSON" while its config.toml and metrics.csv were read."""
    from bench.data.compressed import HEAD
    from bench.data.inputs import bom_length, check_input_file
    from bench.errors import DataError

    p = check_input_file(path, expected=what)  # a folder, a FIFO (read for ever), a broken link
    with open(p, "rb") as fh:  # gzip, UTF-16, NUL bytes only (a crash's zeros): named first
        bom_length(fh.read(HEAD), p)
    tail = f"; {hint}" if hint else ""
    try:
        doc = loads_strict(p.read_text(encoding="utf-8-sig"))
    except NotJsonNumber as exc:  # json reads NaN and 1e999 (as inf), in silence
        said = not_json_number(p.read_text(encoding="utf-8-sig"), exc.args[0])
        raise DataError(f"{said}; expected {what}{tail}", path=p) from None
    except RepeatedKey as exc:  # json keeps the last of a key twice, in silence
        raise DataError(f"the key {exc.args[0]!r} appears twice in one object: expected {what} "
                        f"with each key once{tail}", path=p) from None
    except UnicodeDecodeError:
        raise _not_utf8(p, f"expected {what}{tail}") from None
    except json.JSONDecodeError as exc:
        raise DataError(f"not valid JSON ({exc.msg}): expected {what}{tail}", path=p,
                        line=exc.lineno) from None
    except ValueError as exc:  # an integer beyond Python's digit limit (bench.data.big_ints)
        from bench.data.big_ints import long_number_text

        words = long_number_text(p.read_text(encoding="utf-8-sig")) or str(exc)
        raise DataError(f"not valid JSON ({words}): expected {what}{tail}", path=p) from None
    except RecursionError:  # "[[[[...": nested deeper than the parser's stack
        raise DataError(f"not valid JSON (nested too deep): expected {what}{tail}",
                        path=p) from None
    if not isinstance(doc, dict):
        raise DataError(f"expected a JSON object ({what}), found a {type(doc).__name__}{tail}",
                        path=p)
    return doc


def _not_utf8(p: Path, expected: str) -> Exception:
    """Why ``p`` is not UTF-8 text: a UTF-16 or UTF-32 byte-order mark named, with ``iconv``
    (Notepad's "Unicode"), else the line, column and value of the first byte that is no UTF-8:
    both were "not UTF-8 text (byte 0)", an offset in a decoded buffer."""
    from bench.data.inputs import bom_length
    from bench.errors import DataError

    raw = p.read_bytes()
    try:
        start = bom_length(raw[:4], p)  # a wide mark: refused, naming the encoding
        raw[start:].decode("utf-8")
    except DataError as exc:
        return exc
    except UnicodeDecodeError as exc:
        at = start + exc.start
        line = raw.count(b"\n", 0, at) + 1
        column = at - (raw.rfind(b"\n", 0, at) + 1) + 1
        return DataError(f"not UTF-8 text (byte {raw[at]:#04x} at column {column}); "
                         f"{expected}", path=p, line=line)
    return DataError(f"not UTF-8 text; {expected}", path=p)

