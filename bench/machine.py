"""Facts about the machine a process runs on: its CPU model, the CPUs it may use, how its OpenMP
threads wait, how long each of its threads has run, and its BLAS kernels (recorded, and pinned
for the command line: :func:`pin_blas_kernels`).

The one place every layer asks (the parser's and the evaluator's thread pools, manifests, perf
reports), so that "how many threads" and "which CPU" are answered the same way everywhere.
"""

from __future__ import annotations

import contextlib
import os
import platform
import resource
import sys
from collections.abc import Container
from pathlib import Path


def usable_cpus(threads: int | None = None) -> int:
    """``threads`` when given (at least 1), else the CPUs this process may run on
    (``os.sched_getaffinity``, else ``os.cpu_count``)."""
    if threads is not None:
        return max(1, int(threads))
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``), else :func:`platform.processor`, else "unknown"."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def load_average() -> str:
    """The 1, 5 and 15 minute load averages and runnable/all tasks (``/proc/loadavg``), else
    :func:`os.getloadavg`'s three numbers, else "unknown" -- for the header of every perf report."""
    with contextlib.suppress(OSError):
        return " ".join(Path("/proc/loadavg").read_text().split()[:4])
    with contextlib.suppress(OSError, AttributeError):
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    return "unknown"


def peak_rss_kib() -> int:
    """This process's resident-set high-water mark in KiB (``getrusage``'s ``ru_maxrss``: KiB on
    Linux, bytes on macOS). Dask workers are asked for theirs with ``client.run(peak_rss_kib)``."""
    r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(r // 1024) if sys.platform == "darwin" else int(r)


#: The variables that say how an OpenMP runtime's idle threads wait once a parallel region
#: ends, each read once, when the runtime is loaded: GNU libgomp (LightGBM's, XGBoost's)
#: reads ``OMP_WAIT_POLICY`` and ``GOMP_SPINCOUNT``, LLVM's and Intel's libomp
#: ``OMP_WAIT_POLICY`` and ``KMP_BLOCKTIME``.
OPENMP_WAIT_VARIABLES: tuple[str, ...] = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME")


def openmp_wait_policy() -> str:
    """How this process's OpenMP threads wait, as its environment says, for perf reports.

    With none of :data:`OPENMP_WAIT_VARIABLES` set, GNU libgomp spins 300,000 times ("3 msec
    blocking when OMP_WAIT_POLICY is not specified", libgomp/env.c, ``initialize_env``) and then
    sleeps on a futex; ``passive`` sleeps at once, ``active`` spins for minutes."""
    said = [f"{k}={os.environ[k]}" for k in OPENMP_WAIT_VARIABLES if k in os.environ]
    if said:
        return ", ".join(said)
    return ("OMP_WAIT_POLICY, GOMP_SPINCOUNT and KMP_BLOCKTIME unset (GNU libgomp's default: "
            "spin 300,000 times after a parallel region, then sleep)")


def thread_run_seconds() -> dict[int, float]:
    """CPU seconds each live thread of this process has run so far, by native thread id
    (``/proc/self/task/<tid>/schedstat``, first field, nanoseconds); ``{}`` where the file is
    missing (not Linux). A thread that ends between the listing and the read is left out."""
    out: dict[int, float] = {}
    with contextlib.suppress(OSError):
        for tid in os.listdir("/proc/self/task"):
            with contextlib.suppress(OSError, ValueError, IndexError):
                out[int(tid)] = int(Path(f"/proc/self/task/{tid}/schedstat").read_text().split()[0]) / 1e9
    return out


#: Thread-count variables that a library reads once, when it is loaded: numba (``NUMBA_NUM_THREADS``,
#: a value below 1 makes ``import numba`` raise, a word makes it print a traceback as a warning
#: and use its default) and the OpenMP runtimes of LightGBM and XGBoost (``OMP_NUM_THREADS``:
#: libgomp says "Invalid value" and ignores it, while the run's manifest recorded it as set).
THREAD_VARIABLES: tuple[str, ...] = ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS")


def thread_variable_problem(environ: dict[str, str] | None = None) -> str | None:
    """What is wrong with a thread-count variable of the environment, in one line, else
    ``None``: each of :data:`THREAD_VARIABLES` that is set and not empty must be a whole number
    >= 1 (``OMP_NUM_THREADS`` may list one per nesting level, ``4,2``)."""
    env = os.environ if environ is None else environ
    for name in THREAD_VARIABLES:
        value = env.get(name, "").strip()
        if not value:
            continue
        items = value.split(",") if name == "OMP_NUM_THREADS" else [value]
        if not all(i.strip().isascii() and i.strip().isdigit() and int(i) >= 1 for i in items):
            form = "a whole number >= 1" + (" (or one per nesting level, 4,2)"
                                           if name == "OMP_NUM_THREADS" else "")
            return (f"${name} is {value!r}: expected {form}, or leave it unset for the "
                    "library's default (the number of CPUs)")
    return None


def limit_note(exc: BaseException) -> str | None:
    """One line for a failure that a resource limit of this process explains, else ``None``: out
    of memory, a library that cannot map its code, a thread that cannot start, or a C
    extension's failed allocation that set no Python error (``SystemError: error return without
    exception set``, seen in CI at 195 MiB) under an address-space limit (``ulimit -v``), too
    many open files (``ulimit -n``)."""
    import errno

    if isinstance(exc, OSError) and exc.errno in (errno.EMFILE, errno.ENFILE):
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        return (f"too many open files ({exc.strerror or exc}): this process may open at most "
                f"{soft} files at once (ulimit -n {soft}); raise the limit and run again")
    soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    limited = soft != resource.RLIM_INFINITY
    memory = isinstance(exc, MemoryError) or (
        isinstance(exc, OSError) and exc.errno == errno.ENOMEM)
    loading = isinstance(exc, ImportError | SystemError) or (  # an OSError with a number is
        isinstance(exc, OSError) and exc.errno is None) or (  # about a file
        isinstance(exc, RuntimeError) and "thread" in str(exc))
    if not (memory or (limited and loading)):
        return None
    cause = f"{type(exc).__name__}: {exc}".strip().rstrip(":")
    cause = " ".join(cause.split())[:200]
    if limited:
        return (f"out of memory ({cause}) under this process's address-space limit of "
                f"{soft // 2**20:,} MiB (ulimit -v {soft // 1024}); raise the limit and run "
                "again")
    return f"out of memory ({cause}); free memory or use a smaller dataset, and run again"


def blas_kernels() -> list[dict[str, str]]:
    """The BLAS libraries loaded in this process and the CPU kernels each chose
    (threadpoolctl's ``internal_api``, ``version`` and ``architecture``: OpenBLAS built with
    ``DYNAMIC_ARCH`` picks ``Haswell`` on an AVX2 CPU, ``SkylakeX`` on an AVX-512 one, and
    ``OPENBLAS_CORETYPE`` overrides it). The kernels round differently, so a BLAS step (the SVD
    and ALS features of a ratings conversion, the ALS model) can give other bits on two CPUs of
    one model name: measured here, MovieLens latest-small's converted splits differ between
    ``SkylakeX`` and ``Haswell``/``Zen`` kernels, and agree between the last two. Loads NumPy.
    Empty where threadpoolctl cannot tell."""
    try:
        import numpy  # noqa: F401 - loads the BLAS threadpoolctl inspects
        from threadpoolctl import threadpool_info
    except ImportError:
        return []
    try:
        found = threadpool_info()
    except Exception:  # threadpoolctl reads shared libraries: never fail a manifest for it
        return []
    return [{"internal_api": str(d.get("internal_api")), "version": str(d.get("version")),
             "architecture": str(d.get("architecture"))}
            for d in found if d.get("user_api") == "blas"]


#: The OpenBLAS kernel family every ``ltrbench`` command runs on x86-64 (:func:`pin_blas_kernels`).
PINNED_CORETYPE = "Haswell"
#: ``LTRBENCH_BLAS=native`` keeps the kernels OpenBLAS picks for the CPU (faster on AVX-512,
#: other bits in a ratings conversion's features).
BLAS_CHOICE_VAR = "LTRBENCH_BLAS"


def pin_blas_kernels(environ: dict[str, str] | os._Environ[str] | None = None,
                     cpuinfo: str | None = None, loaded: Container[str] | None = None) -> str:
    """Set ``OPENBLAS_CORETYPE=Haswell`` in ``environ`` (``os.environ``) before NumPy loads, so
    that a command's BLAS steps give the same bits on AVX2 and AVX-512 CPUs; what was done, in
    words (recorded nowhere: the manifest records the kernels themselves, :func:`blas_kernels`).

    Why: OpenBLAS (NumPy's and SciPy's wheels, built with ``DYNAMIC_ARCH``) picks its kernels
    from the CPU when it loads, and AVX-512 ``SkylakeX`` kernels round the SVD and ALS features
    of a ratings conversion differently from AVX2 ``Haswell``/``Zen`` ones (which agree). The
    first README command's verdict moved with them (lightgbm vs xgboost p 0.043 under
    ``SkylakeX``, 0.957 under ``Haswell``), and the committed tables, made under AVX2 kernels,
    did not reproduce on an AVX-512 machine. ``Haswell`` is the family both CPU generations run.

    Left alone, with the reason returned: a variable the user set (``OPENBLAS_CORETYPE``, or
    ``LTRBENCH_BLAS=native``; another value than ``native`` or ``pinned`` is a text starting
    ``warning:``, for the caller to print); NumPy already loaded in this process (a Python session keeps the
    kernels it loaded; its manifest records them); a CPU that is not x86-64 or lacks AVX2 or FMA
    (Haswell's kernels need both; ``/proc/cpuinfo``'s ``flags``, Linux only)."""
    env = os.environ if environ is None else environ
    raw = env.get(BLAS_CHOICE_VAR, "")
    choice = raw.strip(" \t\n\r\x0b\x0c").lower()  # 'Native ': native, said (a choice's rule)
    if raw != choice and choice in ("native", "pinned") and not env.get("OPENBLAS_CORETYPE"):
        done = _pin(env, choice, cpuinfo, loaded)
        return (f"warning: {BLAS_CHOICE_VAR}={raw!r} read as {choice!r} (its values are "
                f"written in lower case, without spaces around them): {done}")
    return _pin(env, choice, cpuinfo, loaded)


def _pin(env: dict[str, str] | os._Environ[str], choice: str, cpuinfo: str | None,
         loaded: Container[str] | None) -> str:
    """:func:`pin_blas_kernels` once ``LTRBENCH_BLAS`` is read as ``choice``."""
    if env.get("OPENBLAS_CORETYPE"):
        return f"OPENBLAS_CORETYPE={env['OPENBLAS_CORETYPE']} set by the user"
    if choice == "native":
        return f"{BLAS_CHOICE_VAR}=native: the CPU's own kernels"
    if choice not in {"", "pinned"}:
        return (f"warning: {BLAS_CHOICE_VAR}={env[BLAS_CHOICE_VAR]!r} is not 'native' or "
                "'pinned': the CPU's own kernels")
    if "numpy" in (sys.modules if loaded is None else loaded):
        return "NumPy already loaded: its kernels stay"
    if platform.machine().lower() not in {"x86_64", "amd64"}:
        return f"not x86-64 ({platform.machine()}): the CPU's own kernels"
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(errors="replace")
        except OSError:
            return "no /proc/cpuinfo: the CPU's own kernels"
    flags = next((line.partition(":")[2].split() for line in cpuinfo.splitlines()
                  if line.startswith("flags")), [])
    if not {"avx2", "fma"} <= set(flags):
        return "the CPU lacks AVX2 or FMA: the CPU's own kernels"
    env["OPENBLAS_CORETYPE"] = PINNED_CORETYPE
    return f"OPENBLAS_CORETYPE={PINNED_CORETYPE}"


def unpinned_kernels_note(environ: dict[str, str] | os._Environ[str] | None = None,
                          cpuinfo: str | None = None,
                          kernels: list[dict[str, str]] | None = None) -> str | None:
    """What to say when this process runs other OpenBLAS kernels than a command would
    (:func:`pin_blas_kernels`): a Python session that loaded NumPy before ltrbench, on an x86-64
    CPU with AVX2 and FMA, without the user's own ``OPENBLAS_CORETYPE`` or
    ``LTRBENCH_BLAS=native``; ``None`` otherwise. A ratings conversion's SVD and ALS features
    then differ from the command line's in their last bits, and so may its numbers."""
    env = os.environ if environ is None else environ
    would = pin_blas_kernels(dict(env), cpuinfo=cpuinfo, loaded=())
    if not would.endswith(f"OPENBLAS_CORETYPE={PINNED_CORETYPE}"):  # after a warning too
        return None  # the command line would not pin here either
    found = sorted({k["architecture"] for k in (blas_kernels() if kernels is None else kernels)
                    if k.get("internal_api") == "openblas"} - {PINNED_CORETYPE})
    if not found:
        return None
    return (f"this Python session runs OpenBLAS's {', '.join(found)} kernels, ltrbench commands "
            f"the {PINNED_CORETYPE} ones (OPENBLAS_CORETYPE={PINNED_CORETYPE}): a ratings "
            "conversion's SVD and ALS features may differ from the command line's in their last "
            f"bits, and so its numbers; set OPENBLAS_CORETYPE={PINNED_CORETYPE} before NumPy is "
            f"imported to get the command line's numbers ({BLAS_CHOICE_VAR}=native to keep these "
            "kernels and silence this)")
