"""Subnormal scores under the processor's flush-to-zero modes (FTZ/DAZ): refused, not ranked as 0.

Found while looking for why a random hostile case (scores 1e-320 beside 0.0) gave other numbers
in a test worker than in a fresh process. That flake was ir_measures answering by hash seed
(tests/test_hostile_evaluate_round5.py), but one suspect proved real: the same qrels and run
give other RR@3 / Judged@4 values once the process's MXCSR has FTZ and DAZ set, which a library
built with ``-ffast-math`` does when it is loaded (no library of this suite did, checked after
every test of a full run). Each flushing case runs in a child process that sets the two bits itself
(llvmlite, numba's code generator, JIT-compiles a call to ``llvm.x86.sse.ldmxcsr``), so nothing
leaks into the other tests of this worker.
"""

from __future__ import annotations

import json
import math
import platform
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from bench.data.subnormal import flushes_subnormals
from bench.metrics import evaluate

x86 = pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"),
                         reason="FTZ/DAZ are x86 MXCSR bits")

_FLUSH = textwrap.dedent('''
    import ctypes
    import llvmlite.binding as llvm
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    IR = """
    declare void @llvm.x86.sse.ldmxcsr(ptr)
    declare void @llvm.x86.sse.stmxcsr(ptr)
    define void @flush() {
      %p = alloca i32
      call void @llvm.x86.sse.stmxcsr(ptr %p)
      %v = load i32, ptr %p
      %w = or i32 %v, 32832
      store i32 %w, ptr %p
      call void @llvm.x86.sse.ldmxcsr(ptr %p)
      ret void
    }"""
    _mod = llvm.parse_assembly(IR)
    _tm = llvm.Target.from_default_triple().create_target_machine()
    _ee = llvm.create_mcjit_compiler(_mod, _tm)
    _ee.finalize_object()
    ctypes.CFUNCTYPE(None)(_ee.get_function_address("flush"))()  # FTZ (0x8000) | DAZ (0x40)
''')


def _in_a_flushing_process(body: str) -> dict[str, object]:
    """Run ``body`` (which sets ``out``) after FTZ/DAZ are set; its ``out`` as JSON."""
    code = _FLUSH + textwrap.dedent(body) + "\nimport json, sys\njson.dump(out, sys.stdout)\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    out: dict[str, object] = json.loads(done.stdout)
    return out


def test_this_process_does_not_flush_subnormals() -> None:
    assert not flushes_subnormals()
    assert np.array([5e-324])[0] > 0.0


def test_a_subnormal_score_ranks_above_zero_when_nothing_flushes() -> None:
    """Relevant document scored 0.0, non-relevant one 1e-320 (above 0 in float64): the relevant
    one is second, ndcg@2 = (1/log2(3)) / 1 and mrr = 1/2 (hand arithmetic)."""
    got = evaluate([0.0, 1.0], [1e-320, 0.0], group=[2], metrics="ndcg@2 mrr").metrics
    assert got["ndcg@2"] == pytest.approx(1.0 / math.log2(3.0), abs=1e-15)
    assert got["mrr"] == pytest.approx(0.5, abs=1e-15)


@x86
def test_under_ftz_daz_a_subnormal_score_is_refused_naming_its_row_and_the_cause() -> None:
    out = _in_a_flushing_process('''
        from bench.errors import DataError
        from bench.metrics import evaluate
        from bench.data.subnormal import flushes_subnormals
        out = {"flushes": flushes_subnormals()}
        try:
            evaluate([0.0, 1.0, 0.0], [0.5, 0.0, 1e-320], group=[3], metrics="ndcg@2")
            out["error"] = None
        except DataError as exc:
            out["error"] = str(exc)
    ''')
    assert out["flushes"] is True
    error = str(out["error"])
    assert "row 3" in error
    assert "1e-320" in error
    assert "flushes such numbers to zero" in error
    assert "-ffast-math" in error


@x86
def test_under_ftz_daz_a_trec_run_names_its_line_or_its_query_and_document(tmp_path) -> None:
    """A run file: its reader names the line (the two scores would otherwise be called "distinct
    decimals a float64 cannot tell apart", which they are not); a run dict: the query and the
    document, the keys the user wrote."""
    (tmp_path / "q.txt").write_text("7 0 a 1\n7 0 b 0\n")
    (tmp_path / "r.txt").write_text("7 Q0 a 1 0 t\n7 Q0 b 2 1e-320 t\n")
    out = _in_a_flushing_process(f'''
        from bench.errors import DataError
        from bench.metrics import evaluate_trec
        out = {{}}
        for kind, run in (("file", {str(tmp_path / "r.txt")!r}),
                          ("dict", {{"7": {{"a": 0.0, "b": 1e-320}}}})):
            try:
                evaluate_trec({{"7": {{"a": 1, "b": 0}}}}, run, metrics="RR@3")
                out[kind] = None
            except DataError as exc:
                out[kind] = str(exc)
    ''')
    assert "r.txt:2" in str(out["file"])
    assert "'1e-320' is below the smallest normal number" in str(out["file"])
    assert "cannot tell apart" not in str(out["file"])
    assert "query 7, document b" in str(out["dict"])
    assert "flushes such numbers to zero" in str(out["dict"])


@x86
def test_under_ftz_daz_normal_scores_give_the_same_numbers_as_here() -> None:
    """The check refuses only what the modes would change: normal scores (and 1e-300, normal in
    float64) are evaluated, with the values this process computes."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 4, 300).astype(float)
    s = rng.normal(size=300)
    s[::7] = 1e-300
    here = evaluate(y, s, group=[30] * 10, metrics="ndcg@5 map mrr").metrics
    out = _in_a_flushing_process('''
        import numpy as np
        from bench.metrics import evaluate
        rng = np.random.default_rng(3)
        y = rng.integers(0, 4, 300).astype(float)
        s = rng.normal(size=300)
        s[::7] = 1e-300
        out = evaluate(y, s, group=[30] * 10, metrics="ndcg@5 map mrr").metrics
    ''')
    assert out == pytest.approx(here, abs=1e-15)


@x86
def test_under_ftz_daz_float32_ranking_profiles_refuse_float32_subnormals_only() -> None:
    """1e-40 is normal in float64 but subnormal in float32: refused where the profile ranks in
    float32 (trec_eval), evaluated where it ranks in float64 (ltrbench)."""
    out = _in_a_flushing_process('''
        from bench.errors import DataError
        from bench.metrics import evaluate
        out = {}
        for profile in ("trec_eval", "ltrbench"):
            try:
                evaluate([0.0, 1.0], [1e-40, 0.0], group=[2], metrics="ndcg@2", profile=profile)
                out[profile] = "evaluated"
            except DataError as exc:
                out[profile] = str(exc)
    ''')
    assert "2**-126" in str(out["trec_eval"])
    assert out["ltrbench"] == "evaluated"
