"""bench.machine.pin_blas_kernels: one OpenBLAS kernel family for every command on x86-64."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from bench.machine import pin_blas_kernels

AVX512 = "processor\t: 0\nflags\t\t: fpu sse2 avx avx2 fma avx512f avx512bw\n"
AVX_ONLY = "processor\t: 0\nflags\t\t: fpu sse2 avx\n"
ROOT = Path(__file__).resolve().parents[1]


def _on_x86(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(platform, "machine", lambda: "x86_64")


def test_an_avx512_cpu_gets_the_haswell_kernels_before_numpy_loads(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _on_x86(monkeypatch)
    env: dict[str, str] = {}
    said = pin_blas_kernels(env, cpuinfo=AVX512, loaded=())
    assert env == {"OPENBLAS_CORETYPE": "Haswell"}
    assert said == "OPENBLAS_CORETYPE=Haswell"


@pytest.mark.parametrize(("env", "words"), [
    ({"OPENBLAS_CORETYPE": "SkylakeX"}, "set by the user"),
    ({"LTRBENCH_BLAS": " Native "}, "LTRBENCH_BLAS=native"),
])
def test_the_users_own_choice_is_kept(monkeypatch: pytest.MonkeyPatch, env: dict[str, str],
                                      words: str) -> None:
    _on_x86(monkeypatch)
    before = dict(env)
    assert words in pin_blas_kernels(env, cpuinfo=AVX512, loaded=())
    assert env == before


def test_an_unknown_choice_is_a_warning_and_pins_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    _on_x86(monkeypatch)
    env = {"LTRBENCH_BLAS": "haswel"}
    said = pin_blas_kernels(env, cpuinfo=AVX512, loaded=())
    assert said.startswith("warning: LTRBENCH_BLAS='haswel'")
    assert "native" in said
    assert "OPENBLAS_CORETYPE" not in env


def test_a_cpu_without_avx2_keeps_its_own_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    _on_x86(monkeypatch)
    env: dict[str, str] = {}
    assert "lacks AVX2" in pin_blas_kernels(env, cpuinfo=AVX_ONLY, loaded=())
    assert env == {}


def test_an_arm_cpu_keeps_its_own_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(platform, "machine", lambda: "aarch64")
    env: dict[str, str] = {}
    assert "not x86-64" in pin_blas_kernels(env, cpuinfo=AVX512, loaded=())
    assert env == {}


def test_a_process_that_loaded_numpy_keeps_its_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    _on_x86(monkeypatch)
    env: dict[str, str] = {}
    assert "NumPy already loaded" in pin_blas_kernels(env, cpuinfo=AVX512, loaded={"numpy"})
    assert env == {}


def _kernels_after_a_command(env: dict[str, str]) -> str:
    code = ("import sys; from bench.cli import main; main(['metrics', 'list']); "
            "from threadpoolctl import threadpool_info; "
            "print(','.join(sorted({d['architecture'] for d in threadpool_info() "
            "if d.get('internal_api') == 'openblas'})))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout.strip().splitlines()[-1]


def _cpu_has_avx2_and_fma() -> bool:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    flags = next((ln.split(":", 1)[1].split() for ln in text.splitlines()
                  if ln.startswith("flags")), [])
    return platform.machine() == "x86_64" and {"avx2", "fma"} <= set(flags)


@pytest.mark.skipif(not _cpu_has_avx2_and_fma(), reason="pins only on x86-64 with AVX2 and FMA")
def test_a_command_runs_haswell_kernels_and_native_keeps_the_cpus_own() -> None:
    base = {k: v for k, v in os.environ.items() if k not in {"OPENBLAS_CORETYPE", "LTRBENCH_BLAS"}}
    base["PYTHONPATH"] = str(ROOT)
    assert _kernels_after_a_command(base) == "Haswell"
    native = _kernels_after_a_command({**base, "LTRBENCH_BLAS": "native"})
    assert native  # threadpoolctl's name of the CPU's own family (Haswell on an AVX2-only CPU)


@pytest.mark.skipif(not _cpu_has_avx2_and_fma(), reason="pins only on x86-64 with AVX2 and FMA")
def test_this_test_session_runs_the_kernels_a_command_runs() -> None:
    import numpy  # noqa: F401 - loads the BLAS
    from threadpoolctl import threadpool_info

    found = {d["architecture"] for d in threadpool_info() if d.get("internal_api") == "openblas"}
    assert found <= {"Haswell"}, (found, os.environ.get("OPENBLAS_CORETYPE"))


SKYLAKE = [{"internal_api": "openblas", "version": "0.3.30", "architecture": "SkylakeX"}]
HASWELL = [{"internal_api": "openblas", "version": "0.3.30", "architecture": "Haswell"}]


def test_a_session_on_other_kernels_than_a_command_is_told_how_to_match_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.machine import unpinned_kernels_note

    _on_x86(monkeypatch)
    note = unpinned_kernels_note({}, cpuinfo=AVX512, kernels=SKYLAKE)
    assert note is not None
    assert "SkylakeX" in note
    assert "OPENBLAS_CORETYPE=Haswell before NumPy is imported" in note
    assert "LTRBENCH_BLAS=native" in note


@pytest.mark.parametrize(("env", "cpu", "kernels"), [
    ({}, AVX512, HASWELL),  # already the command line's kernels
    ({"OPENBLAS_CORETYPE": "SkylakeX"}, AVX512, SKYLAKE),  # the user's own choice
    ({"LTRBENCH_BLAS": "native"}, AVX512, SKYLAKE),
    ({}, AVX_ONLY, SKYLAKE),  # a command would not pin on this CPU either
    ({}, AVX512, []),  # no OpenBLAS (MKL, or none found)
])
def test_no_note_where_the_session_matches_a_command_or_the_user_chose(
        monkeypatch: pytest.MonkeyPatch, env: dict[str, str], cpu: str,
        kernels: list[dict[str, str]]) -> None:
    from bench.machine import unpinned_kernels_note

    _on_x86(monkeypatch)
    assert unpinned_kernels_note(env, cpuinfo=cpu, kernels=kernels) is None


def test_a_conversion_in_such_a_session_warns_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import pandas as pd

    import bench.adapters.pipeline as pipeline
    from bench.adapters.config import AdapterConfig

    monkeypatch.setattr(pipeline, "unpinned_kernels_note", lambda: "kernels differ (test)")
    monkeypatch.setattr(pipeline, "_SAID_KERNELS", [])
    frame = pd.DataFrame({"user": [1] * 6 + [2] * 6, "item": list(range(6)) * 2,
                          "rating": [5.0, 4, 3, 2, 1, 5] * 2,
                          "timestamp": list(range(100, 106)) * 2})
    config = AdapterConfig(target_size=1, min_history=2, negatives=2, feature_groups=("user",))
    with pytest.warns(UserWarning, match="kernels differ") as first:
        pipeline.ratings_to_letor(frame, config)
    assert sum("kernels differ" in str(w.message) for w in first) == 1
    import warnings

    with warnings.catch_warnings(record=True) as again:
        warnings.simplefilter("always")
        pipeline.ratings_to_letor(frame, config)
    assert not [w for w in again if "kernels differ" in str(w.message)]
