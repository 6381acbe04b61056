"""Decimal -> double conversion of the compiled parser: the same bits as Python's ``float()``."""

from __future__ import annotations

import math
import struct
from decimal import Decimal, getcontext

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.data.decimal_float import FALLBACK, OK, decimal_to_double


def _bits(x: float) -> bytes:
    return struct.pack("<d", x)


def _check(w: int, q: int, negative: bool = False) -> str:
    """Compare with float('{sign}{w}e{q}'); returns 'ok' or 'fallback' (never a wrong value)."""
    status, value = decimal_to_double(np.uint64(w), q, negative)
    if status == FALLBACK:
        return "fallback"
    assert status == OK
    expected = float(f"{'-' if negative else ''}{w}e{q}")
    assert _bits(value) == _bits(expected), (w, q, negative, value, expected)
    return "ok"


@settings(max_examples=3000, deadline=None)
@given(w=st.integers(0, 2**64 - 1), q=st.integers(-400, 400), negative=st.booleans())
def test_any_significand_and_exponent_gives_python_floats_bits_or_falls_back(
    w: int, q: int, negative: bool
) -> None:
    _check(w, q, negative)


@settings(max_examples=2000, deadline=None)
@given(x=st.floats(allow_nan=False, allow_infinity=False, min_value=1e-300, max_value=1e300))
def test_shortest_repr_of_a_double_reads_back_to_that_double(x: float) -> None:
    d = Decimal(repr(x)).as_tuple()
    w = int("".join(map(str, d.digits)))
    assert isinstance(d.exponent, int)
    if w < 2**64:
        assert _check(w, d.exponent) == "ok"


@settings(max_examples=2000, deadline=None)
@given(x=st.floats(width=32, allow_nan=False, allow_infinity=False, allow_subnormal=False))
def test_float32_values_printed_with_16_or_9_digits_read_back_exactly(x: float) -> None:
    for fmt in ("%.16g", "%.9g", "%.17g"):
        d = Decimal(fmt % abs(x)).as_tuple()
        assert isinstance(d.exponent, int)
        w = int("".join(map(str, d.digits)))
        if w and w < 2**64:
            _check(w, d.exponent)  # asserts the bits whenever it decides


def test_halfway_cases_round_to_even_or_fall_back() -> None:
    getcontext().prec = 80
    rng = np.random.default_rng(0)
    for m in rng.integers(2**52, 2**53 - 1, size=300).tolist():
        for e in (-60, -3, 0, 1, 5, 11):
            exact = (Decimal(2 * m + 1) * Decimal(2) ** (e - 1)).normalize().as_tuple()
            w = int("".join(map(str, exact.digits)))
            assert isinstance(exact.exponent, int)
            if w < 2**64:
                _check(w, exact.exponent)
    # 2**53 + 1 is halfway between two doubles: ties to even gives 2**53
    assert _check(2**53 + 1, 0) == "ok"
    assert decimal_to_double(np.uint64(2**53 + 1), 0, False)[1] == 2.0**53


@pytest.mark.parametrize(
    ("w", "q", "expected"),
    [
        (0, 0, 0.0),
        (871264, -6, 0.871264),
        (1, -22, 1e-22),
        (9007199254740993, 0, 9007199254740992.0),
        (17976931348623157, 292, 1.7976931348623157e308),
        (22250738585072014, -324, 2.2250738585072014e-308),
        (1, 23, 1e23),
        (123456789012345678, -5, 1234567890123.45678),
    ],
)
def test_known_values(w: int, q: int, expected: float) -> None:
    status, value = decimal_to_double(np.uint64(w), q, False)
    assert status == OK
    assert _bits(value) == _bits(expected)


def test_negative_zero_and_sign() -> None:
    status, value = decimal_to_double(np.uint64(0), 5, True)
    assert status == OK
    assert value == 0.0
    assert math.copysign(1.0, value) == -1.0
    assert decimal_to_double(np.uint64(25), -1, True)[1] == -2.5


@pytest.mark.parametrize(("w", "q"), [(1, 400), (1, -400), (5, -324), (1, 309)])
def test_results_outside_the_normal_range_fall_back_to_python(w: int, q: int) -> None:
    assert decimal_to_double(np.uint64(w), q, False)[0] == FALLBACK
