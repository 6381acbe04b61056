"""Shared pieces of the property tests (``test_fuzz_*.py``) and of the hostile catalogue.

* :func:`clear_error`: the one rule for a refused input: an :class:`bench.errors.LtrbenchError`
  (the type the CLI prints as one line and turns into exit status 2, ``bench/cli.py``) whose
  message names the file it is about.
* A strict, slow reader of TREC text written from the documented grammar (``bench/data/trec.py``
  module docstring, trec_eval ``get_qrels.c`` / ``get_trec_results.c``): lines end at LF, CRLF
  or CR, fields are split on ASCII white space, ``#`` lines and blank lines are skipped, numbers
  follow the grammar of ``bench/data/inputs.py``. It is the oracle's reader: the numbers of
  ``pytrec_eval`` (trec_eval 9's C code) over what it read are the expected ones.
* Mutations of a valid file: truncation, hostile numbers, swapped fields, inserted bytes.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from bench.errors import LtrbenchError

T = TypeVar("T")

#: The metrics pytrec_eval and ltrbench's ``trec_eval`` profile both compute, in the order given.
TREC_METRICS = ("ndcg_cut_10", "map", "P_5", "recip_rank")

_INT = re.compile(rb"[+-]?[0-9]+")
_FLOAT = re.compile(rb"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")

#: Tokens an attacker puts where a number belongs.
HOSTILE_NUMBERS: tuple[bytes, ...] = (
    b"nan", b"NaN", b"inf", b"-inf", b"Infinity", b"1e400", b"-1e400", b"1e-400", b"0x10",
    b"1_0", b"\xd9\xa0", b"\xef\xbc\x91", b"9223372036854775808", b"-9223372036854775809",
    b"100000000000000000000", b"9007199254740993", b"1.5", b"-1", b"+2", b".5", b"5.", b"1e5",
    b"", b" ", b"--1", b"1e", b"e1", b"true", b"None", b"0", b"-0", b"1,5",
)
#: Bytes an attacker inserts into text: NUL, line ends of every kind, a BOM, non-UTF-8, tabs.
HOSTILE_BYTES: tuple[bytes, ...] = (
    b"\x00", b"\n", b"\r\n", b"\t", b"\x0b", b"\x0c", b"\xef\xbb\xbf", b"\xff", b"\xfe\xff",
    b"\xc3", b"\xe2\x80\xa8", b"\xc2\xa0", b"#", b" ", b"\n\n", b"qid:", b":", b"=", b'"', b",",
)


def clear_error(exc: BaseException, *names: str) -> None:
    """Assert ``exc`` is ltrbench's own error (CLI: exit 2, one line) naming one of ``names``."""
    assert isinstance(exc, LtrbenchError), f"{type(exc).__name__}: {exc}"
    text = str(exc)
    assert text.strip(), "an empty error message"
    assert "\n" not in text.strip() or len(text) < 2000, text
    if names:
        assert any(n in text for n in names), f"{text!r} names none of {names}"


@dataclass
class Outcome:
    """A call's result, or the LtrbenchError it raised (any other exception propagates)."""

    value: Any = None
    error: LtrbenchError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def outcome(fn: Callable[[], T]) -> Outcome:
    """Run ``fn``: its value, or the :class:`LtrbenchError` it raised; anything else propagates."""
    try:
        return Outcome(value=fn())
    except LtrbenchError as exc:
        return Outcome(error=exc)


def fuzz_settings(examples: int) -> settings:
    """Hypothesis settings of a fuzz test: ``examples`` runs (times ``LTRBENCH_FUZZ_SCALE``, e.g.
    20 for a long bug hunt), no deadline (the first call compiles kernels). The suite's runs draw
    the same examples every time (a CI run never fails on a new draw); a bug hunt with
    ``LTRBENCH_FUZZ_SCALE`` set draws new ones."""
    hunt = os.environ.get("LTRBENCH_FUZZ_SCALE")
    scale = float(hunt or "1")
    return settings(max_examples=max(1, int(examples * scale)), deadline=None,
                    derandomize=hunt is None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


# -------------------------------------------------------------------------------- TREC oracle
def split_lines(data: bytes) -> list[bytes]:
    """Lines of ``data`` under the one rule every text reader should share: LF, CRLF, CR."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data.splitlines()


class Refused(Exception):
    """The strict oracle reader refuses the text."""


def strict_int(tok: bytes) -> int:
    if _INT.fullmatch(tok) is None:
        raise Refused(tok)
    v = int(tok)
    if not -(2**63) <= v < 2**63:
        raise Refused(tok)
    return v


def strict_float(tok: bytes) -> float:
    if _FLOAT.fullmatch(tok) is None:
        raise Refused(tok)
    v = float(tok)
    if not math.isfinite(v):
        raise Refused(tok)
    return v


def _records(data: bytes) -> Iterable[list[bytes]]:
    for line in split_lines(data):
        line.decode("utf-8")  # UnicodeDecodeError: refused by the caller
        parts = line.split()
        if not parts or parts[0].startswith(b"#"):
            continue
        yield parts


def oracle_qrels(data: bytes) -> dict[str, dict[str, int]]:
    """``{qid: {docno: rel}}`` of qrels text, or :class:`Refused`."""
    out: dict[str, dict[str, int]] = {}
    try:
        for parts in _records(data):
            if len(parts) != 4:
                raise Refused(parts)
            q, d = parts[0].decode(), parts[2].decode()
            if d in out.get(q, {}):
                raise Refused(parts)
            out.setdefault(q, {})[d] = strict_int(parts[3])
    except UnicodeDecodeError as exc:
        raise Refused(exc) from None
    if not out:
        raise Refused("empty")
    return out


def oracle_run(data: bytes) -> dict[str, dict[str, float]]:
    """``{qid: {docno: score}}`` of run text, or :class:`Refused`."""
    out: dict[str, dict[str, float]] = {}
    try:
        for parts in _records(data):
            if len(parts) < 6:
                raise Refused(parts)
            q, d = parts[0].decode(), parts[2].decode()
            if d in out.get(q, {}):
                raise Refused(parts)
            strict_int(parts[3])
            out.setdefault(q, {})[d] = strict_float(parts[4])
    except UnicodeDecodeError as exc:
        raise Refused(exc) from None
    if not out:
        raise Refused("empty")
    return out


def pytrec_means(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]],
                 metrics: tuple[str, ...] = TREC_METRICS) -> dict[str, float] | None:
    """trec_eval's means (no ``-c``: over the run's queries that have qrels); None: no such query."""
    import pytrec_eval

    measures = {m.rsplit("_", 1)[0] if m[-1].isdigit() else m for m in metrics}
    per_q = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    if not per_q:
        return None
    return {m: sum(v[m] for v in per_q.values()) / len(per_q) for m in metrics}


def trec_text(records: dict[str, dict[str, Any]], kind: str, *, sep: bytes = b" ",
              end: bytes = b"\n") -> bytes:
    """TREC text of ``{qid: {docno: value}}``: qrels (``kind="qrels"``) or a run."""
    lines = []
    for q, docs in records.items():
        for rank, (d, v) in enumerate(docs.items(), start=1):
            if kind == "qrels":
                fields = [q, "0", d, str(v)]
            else:
                fields = [q, "Q0", d, str(rank), repr(float(v)), "t"]
            lines.append(sep.join(f.encode() for f in fields))
    return b"".join(line + end for line in lines)


# -------------------------------------------------------------------------------- strategies
IDS = st.sampled_from(["1", "2", "3", "10", "q7", "007"])
DOCS = st.sampled_from([f"d{i}" for i in range(8)] + ["D-1", "doc.x", "9"])
SCORES = st.one_of(st.sampled_from([0.0, 0.5, 1.0, -1.0, 2.5]),
                   st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False))

qrels_dicts = st.dictionaries(IDS, st.dictionaries(DOCS, st.integers(0, 3), min_size=1,
                                                   max_size=6), min_size=1, max_size=4)
run_dicts = st.dictionaries(IDS, st.dictionaries(DOCS, SCORES, min_size=1, max_size=8),
                            min_size=1, max_size=4)


@st.composite
def mutated(draw: st.DrawFn, data: bytes, *, allow_cr: bool = False) -> bytes:
    """``data`` with one to three hostile edits: truncation, a token replaced by a hostile
    number, two fields swapped, bytes inserted, a line duplicated or dropped."""
    out = data
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["truncate", "number", "swap", "insert", "dup", "drop"]))
        lines = out.split(b"\n")
        if kind == "truncate" and out:
            out = out[: draw(st.integers(0, len(out) - 1))]
        elif kind == "number" and lines:
            i = draw(st.integers(0, len(lines) - 1))
            toks = lines[i].split(b" ")
            j = draw(st.integers(0, len(toks) - 1))
            toks[j] = draw(st.sampled_from(HOSTILE_NUMBERS))
            lines[i] = b" ".join(toks)
            out = b"\n".join(lines)
        elif kind == "swap" and lines:
            i = draw(st.integers(0, len(lines) - 1))
            toks = lines[i].split(b" ")
            if len(toks) >= 2:
                a, b = draw(st.integers(0, len(toks) - 1)), draw(st.integers(0, len(toks) - 1))
                toks[a], toks[b] = toks[b], toks[a]
            lines[i] = b" ".join(toks)
            out = b"\n".join(lines)
        elif kind == "insert":
            choices = HOSTILE_BYTES + ((b"\r",) if allow_cr else ())
            ins = draw(st.sampled_from(choices))
            pos = draw(st.integers(0, len(out)))
            out = out[:pos] + ins + out[pos:]
        elif kind == "dup" and lines:
            i = draw(st.integers(0, len(lines) - 1))
            lines.insert(i, lines[i])
            out = b"\n".join(lines)
        elif kind == "drop" and lines:
            del lines[draw(st.integers(0, len(lines) - 1))]
            out = b"\n".join(lines)
    return out
