"""Exact decimal -> binary64 conversion for compiled parsers (numba, ``nogil``).

A plain decimal number ``[+-]digits[.digits][(e|E)[+-]digits]`` has the value ``w * 10**q``
for an integer significand ``w`` and a decimal exponent ``q``. :func:`decimal_to_double`
returns the binary64 value nearest to it, ties to even -- the same double as Python's
``float()`` / C's ``strtod`` -- or reports that it cannot decide, and the caller converts the
token with Python's ``float()`` instead. That happens only for significands of more than 19
digits, results outside the normal binary64 range (overflow, subnormals) and decimal values
within ``2**-64`` relative of a halfway point between two doubles; none of them occurs in
real LETOR files, and the fallback keeps the result exact.

Two paths:

1. **Exact operands** (Clinger's fast path): when ``w < 2**53`` and ``|q| <= 22``, both ``w``
   and ``10**|q|`` are doubles exactly, so one IEEE multiplication or division rounds the
   exact value once, correctly. LETOR values (``0.871264``, ``3``, ``-1.25e-3``) take it.
2. **128-bit powers of five**: ``10**q = 5**q * 2**q``. A table holds, for each ``q``, a
   128-bit integer ``T`` and a shift ``s`` with ``T ~= 5**q * 2**s`` and
   ``2**127 <= T < 2**128`` (``T`` is exact for ``0 <= q <= 55``; otherwise ``floor`` for
   ``q > 0``, ``ceil`` for ``q < 0``, so ``|T - 5**q * 2**s| < 1``). The significand,
   shifted left until its top bit is set (``W``), times ``T`` is a 192-bit product ``P`` whose
   error is below ``W < 2**64``. The top 53 bits of ``P`` are the mantissa; the bits below
   decide the rounding. Only when those bits are within ``2**64`` of the halfway point can the
   error change the rounding, and then (unless ``T`` is exact) the caller falls back.

The table is computed here with Python integers at import time (651 entries).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

Q_MIN = -342  # below: the value is below 2**-1074 / 2 for any 19-digit significand
Q_MAX = 308  # above: the value overflows for any non-zero significand
MAX_DIGITS = 19  # significant digits that fit a uint64 exactly (10**19 < 2**64)

# status returned with a value
OK = 0
FALLBACK = 1  # not decided here: convert the token with Python's float()


def _power_table() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``T`` high words, low words, shifts ``s`` and exactness for q in [Q_MIN, Q_MAX]."""
    n = Q_MAX - Q_MIN + 1
    hi = np.zeros(n, dtype=np.uint64)
    lo = np.zeros(n, dtype=np.uint64)
    shift = np.zeros(n, dtype=np.int64)
    exact = np.zeros(n, dtype=np.bool_)
    for q in range(Q_MIN, Q_MAX + 1):
        if q >= 0:
            p = 5**q
            s = 128 - p.bit_length()
            t = p << s if s >= 0 else p >> -s  # floor(5**q * 2**s)
            is_exact = s >= 0 or p % (1 << -s) == 0
        else:
            d = 5**-q
            s = 127 + d.bit_length()
            t = -((-(1 << s)) // d)  # ceil(2**s / 5**-q)
            is_exact = False
        if not (1 << 127) <= t < (1 << 128):
            raise AssertionError(f"power-of-five table entry {q} is not normalised")
        i = q - Q_MIN
        hi[i] = t >> 64
        lo[i] = t & ((1 << 64) - 1)
        shift[i] = s
        exact[i] = is_exact
    return hi, lo, shift, exact


_T_HI, _T_LO, _T_SHIFT, _T_EXACT = _power_table()
_POW10 = np.array([10.0**k for k in range(23)], dtype=np.float64)  # all exact doubles

_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U32 = np.uint64(32)
_M32 = np.uint64(0xFFFFFFFF)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_TWO53 = np.uint64(1 << 53)


@njit(cache=True, nogil=True, inline="always")
def _mul_64x64(a, b):  # type: ignore[no-untyped-def]
    """Full product of two uint64 as (high word, low word)."""
    a0 = a & _M32
    a1 = a >> _U32
    b0 = b & _M32
    b1 = b >> _U32
    p00 = a0 * b0
    p01 = a0 * b1
    p10 = a1 * b0
    p11 = a1 * b1
    mid = (p00 >> _U32) + (p01 & _M32) + (p10 & _M32)
    low = (p00 & _M32) | (mid << _U32)
    high = p11 + (p01 >> _U32) + (p10 >> _U32) + (mid >> _U32)
    return high, low


@njit(cache=True, nogil=True)
def _leading_zeros(w):  # type: ignore[no-untyped-def]
    n = 0
    top = np.uint64(1 << 63)
    while (w & top) == _U0:
        w = w << _U1
        n += 1
    return n


@njit(cache=True, nogil=True)
def _slow_path(w, q):  # type: ignore[no-untyped-def]
    """(status, |value|) for w > 0 via the 128-bit power table (see the module doc)."""
    if q < Q_MIN or q > Q_MAX:
        return FALLBACK, 0.0
    i = q - Q_MIN
    lz = _leading_zeros(w)
    big_w = w << np.uint64(lz)
    a1, a0 = _mul_64x64(big_w, _T_HI[i])
    b1, b0 = _mul_64x64(big_w, _T_LO[i])
    lo = b0
    mid = a0 + b1
    carry = _U1 if mid < a0 else _U0
    hi = a1 + carry
    # P = hi:mid:lo >= 2**190, so the top bit of hi is bit 63 or 62
    top = 63 if (hi >> np.uint64(63)) == _U1 else 62
    sh = top - 52  # bits of hi below the 53-bit mantissa (10 or 11)
    mant = hi >> np.uint64(sh)
    rest_mask = (_U1 << np.uint64(sh)) - _U1
    rest = hi & rest_mask  # the part of hi below the mantissa
    half = _U1 << np.uint64(sh - 1)
    if not _T_EXACT[i]:
        # |P - exact| < 2**64: undecidable only next to the halfway point
        if rest == half and mid == _U0:
            return FALLBACK, 0.0
        if rest == half - _U1 and mid == _ALL:
            return FALLBACK, 0.0
    if rest > half or (rest == half and (mid != _U0 or lo != _U0)):
        mant += _U1
    elif rest == half:  # exactly halfway (possible only when T is exact): ties to even
        mant += mant & _U1
    exp2 = sh + 128 + q - _T_SHIFT[i] - lz  # value = mant * 2**exp2
    if mant == _TWO53:
        mant = mant >> _U1
        exp2 += 1
    biased = exp2 + 52 + 1023
    if biased < 1 or biased > 2046:
        return FALLBACK, 0.0  # subnormal or overflow: Python decides
    return OK, math.ldexp(float(mant), exp2)


@njit(cache=True, nogil=True)
def decimal_to_double(w, q, negative):  # type: ignore[no-untyped-def]
    """(status, value) of ``(-1 if negative else 1) * w * 10**q`` for a uint64 ``w``.

    ``status`` is :data:`OK` with the correctly rounded double (ties to even, ``-0.0`` for a
    negative zero), or :data:`FALLBACK` when the caller must use Python's ``float()``.
    """
    if w == _U0:
        return OK, -0.0 if negative else 0.0
    if w <= _TWO53 and -22 <= q <= 22:
        v = float(w)
        v = v * _POW10[q] if q >= 0 else v / _POW10[-q]
        return OK, -v if negative else v
    status, v = _slow_path(w, q)
    return status, -v if negative else v
