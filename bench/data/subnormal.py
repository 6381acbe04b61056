"""Scores the processor would flush to zero: refused, not ranked as ties.

x86-64 processors have two modes, set per thread in the ``MXCSR`` register, that turn subnormal
numbers (magnitudes below the smallest normal number, ``2**-1022`` in float64 and ``2**-126`` in
float32) into zero: *denormals are zero* (DAZ: a subnormal operand is read as 0, so
``1e-320 > 0.0`` is false) and *flush to zero* (FTZ: a subnormal result is written as 0, so
``float32(1e-40)`` is 0). They are off by default, and a shared library built with
``-ffast-math`` (GCC's ``crtfastmath.o``) turns both on for the whole process when it is
loaded. Under them a score of ``1e-320`` ties with ``0.0`` and the ranking, and every metric
that depends on it, changes without a word: measured here, the same qrels and run gave
``RR@3`` 0.0 with the modes off and 0.111 with them on (Intel 64 and IA-32 Architectures
Software Developer's Manual, vol. 1, section 10.2.3.4 "Denormals-Are-Zeros" and 4.8.3.3).

:func:`refuse_flushed_scores` checks the modes once per evaluation (two array operations);
only when they are on does it look at the scores, by their bits (integer arithmetic, which the
modes do not touch), and refuse the first score they would change.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from bench.errors import DataError

#: The bits (sign cleared) of the smallest normal float64 and of the smallest normal float32
#: written as a float64 (``2**-126``): a nonzero score below these is subnormal in that type.
_NORMAL_BITS = {"float64": 0x0010_0000_0000_0000, "float32": 0x3810_0000_0000_0000}
_MAGNITUDE = np.uint64(0x7FFF_FFFF_FFFF_FFFF)


def flushes_subnormals() -> bool:
    """Whether this thread reads subnormal operands as zero (DAZ) or writes subnormal results
    as zero (FTZ): ``5e-324 > 0`` false, or ``2**-1000 * 2**-60`` (``2**-1060``, subnormal)
    equal to 0."""
    smallest = np.array([5e-324])
    tiny = np.array([2.0**-1000]) * 2.0**-60
    return not bool(smallest[0] > 0.0) or bool(tiny[0] == 0.0)


def subnormal_rows(values: NDArray[np.float64], score_dtype: str = "float64") -> NDArray[np.intp]:
    """The positions of ``values`` that are nonzero and below the smallest normal number of
    ``score_dtype`` (float64 ``2**-1022``, float32 ``2**-126``), read from their bits: integer
    arithmetic, which FTZ/DAZ do not touch."""
    bits = np.ascontiguousarray(values, dtype=np.float64).view(np.uint64) & _MAGNITUDE
    return np.flatnonzero((bits != 0) & (bits < np.uint64(_NORMAL_BITS[score_dtype])))


#: What a refusal says of the cause, after the value (one wording for every reader).
FLUSH_CAUSE = ("this process flushes such numbers to zero (the processor's FTZ/DAZ modes, which "
               "a library built with -ffast-math turns on when it is loaded): it would rank as 0, "
               "tied with other scores. Evaluate in a process that has not loaded such a "
               "library, or scale the scores")


def refuse_flushed_scores(scores: NDArray[np.float64], score_dtype: str,
                          where: Callable[[int], tuple[int | None, str]]) -> None:
    """Refuse, while this process flushes subnormal numbers to zero (:func:`flushes_subnormals`),
    a nonzero score whose magnitude is below the smallest normal number of the type the profile
    ranks in (``score_dtype``: float64 ``2**-1022``, float32 ``2**-126``): it would rank as 0.
    ``where(i)``: what names position ``i`` of ``scores``: its 1-based input row, or ``None``
    and a note naming its query and document."""
    if not flushes_subnormals():
        return
    bad = subnormal_rows(scores, score_dtype)
    if not bad.shape[0]:
        return
    i = int(bad[0])
    smallest = "2**-1022" if score_dtype == "float64" else "2**-126 (scores ranked in float32)"
    row, note = where(i)
    raise DataError(f"score {shown(scores[i])}{note} is below the smallest normal number, "
                    f"{smallest}, and {FLUSH_CAUSE} ({bad.shape[0]} such score(s))", row=row)


def shown(value: np.float64) -> str:
    """``value`` written by NumPy's Dragon4 (integer arithmetic): Python's own ``repr`` of a
    subnormal goes through floating-point operations and prints ``0.0`` under DAZ."""
    return np.format_float_scientific(value, unique=True, trim="-")


#: LLVM IR of ``clear_flush()``: this thread's MXCSR with FTZ (bit 15) and DAZ (bit 6) cleared
#: (``and`` with ``~0x8040``; Intel SDM vol. 1, 10.2.3 "MXCSR Control and Status Register").
_CLEAR_IR = """
declare void @llvm.x86.sse.ldmxcsr(ptr)
declare void @llvm.x86.sse.stmxcsr(ptr)
define void @clear_flush() {
  %p = alloca i32
  call void @llvm.x86.sse.stmxcsr(ptr %p)
  %v = load i32, ptr %p
  %w = and i32 %v, -32833
  store i32 %w, ptr %p
  call void @llvm.x86.sse.ldmxcsr(ptr %p)
  ret void
}"""
_compiled: list[object] = []  # the execution engine and the function, kept alive


def clear_flush_modes() -> bool:
    """Turn FTZ and DAZ off in this thread (a user's code that loaded a ``-ffast-math`` library
    turned them on for the process: every later ranking would tie subnormal scores with 0).
    Compiled once with llvmlite (numba's code generator); ``True`` when the modes are off
    afterwards, ``False`` where they cannot be cleared (not x86-64, no llvmlite)."""
    import platform

    if platform.machine().lower() not in ("x86_64", "amd64"):
        return not flushes_subnormals()
    if not _compiled:
        try:
            import ctypes

            import llvmlite.binding as llvm

            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            engine = llvm.create_mcjit_compiler(
                llvm.parse_assembly(_CLEAR_IR),
                llvm.Target.from_default_triple().create_target_machine())
            engine.finalize_object()
            _compiled[:] = [engine, ctypes.CFUNCTYPE(None)(engine.get_function_address(
                "clear_flush"))]
        except Exception:  # an llvmlite without opaque pointers, or none: leave them
            return not flushes_subnormals()
    _compiled[1]()  # type: ignore[operator]
    return not flushes_subnormals()
