"""Shared test fixtures: where the real datasets of ``../shared/data`` are; a loopback-only network.

The package knows only its data directory (``--data-dir`` / ``$LTRBENCH_DATA_DIR``, see
:mod:`bench.datasets.fetch`). When ``../shared/data`` is beside the project root, this file appends
it to ``$LTRBENCH_DATA_DIR`` (read only, after the writable first folder: the variable's own
first folder, else the user cache directory), so catalogue names find the real datasets, in the
tests, in their subprocesses and in CI (``.ci/run`` runs pytest on a clean clone with
``../shared`` beside it).

Distributed training opens listeners on every interface whatever Dask's host is (XGBoost's
collective, LightGBM's ``local_listen_port``). So on Linux, when the platform lets an
unprivileged-enough process make a network namespace (``unshare -n``), the whole test session
re-executes itself inside a new namespace that has only the loopback interface: nothing a test
starts can be reached from outside. Where that is not possible the session runs as is, and the
clusters the tests start bind Dask's sockets to 127.0.0.1 (see ``bench.data.dask_cluster``).
``LTRBENCH_TEST_NETNS`` records the outcome: ``1`` inside the namespace, ``unavailable`` otherwise;
set it to ``off`` to skip the attempt.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# OpenMP's idle threads sleep at once instead of spinning (GNU libgomp spins 300,000 times after
# each parallel region by default, bench.machine.openmp_wait_policy): on a machine with more
# busy threads than cores (two test workers on CI's two cores, each LightGBM / XGBoost fit with
# two threads) the spinning threads take the cores from the threads with work, and a 20-round
# fit on 160 rows took 10-50 times longer (measured: 100 LightGBM fits 0.4-5 s -> 0.06-0.2 s,
# XGBoost 0.6-11 s -> 0.15 s). Only how idle threads wait: the trees, scores and metrics are the
# same bits. Set before any library loads its OpenMP runtime (each reads the variable once, at
# load), for this session and every process it starts; a value already set is kept.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from bench.machine import pin_blas_kernels

# The BLAS kernels the command line pins (OPENBLAS_CORETYPE=Haswell on x86-64 with AVX2), for
# this session and every process it starts, before anything loads NumPy: a run in this process
# and one in a subprocess give the same bits (tests/test_machine_blas.py checks it).
BLAS_PIN = pin_blas_kernels()

#: Helper modules of hostile tests that change the process when imported (the point of them):
#: ``--doctest-modules`` would import them while collecting, and their patch of ``np.argsort``
#: then reversed every ranking of the session (a test of the synthetic generator looped).
collect_ignore = ["round5_import_effects.py"]

# Resolved, as the code resolves it: ../shared may be a symbolic link.
SHARED_DATA = (Path(__file__).resolve().parents[2] / "shared" / "data").resolve()
NETNS_VAR = "LTRBENCH_TEST_NETNS"
DATA_DIR_VAR = "LTRBENCH_DATA_DIR"  # bench.datasets.fetch.ENV_VAR


def with_shared_data(first: str | os.PathLike[str]) -> str:
    """The data directory ``first`` (writable) with ``../shared/data`` searched after it, as one
    ``os.pathsep``-separated ``--data-dir`` / ``$LTRBENCH_DATA_DIR`` value."""
    return os.pathsep.join([os.fspath(first), str(SHARED_DATA)])


def _search_shared_data() -> None:
    """Append ``../shared/data`` to ``$LTRBENCH_DATA_DIR`` when it exists (see the module doc)."""
    if not SHARED_DATA.is_dir():
        return
    listed = [x for x in os.environ.get(DATA_DIR_VAR, "").split(os.pathsep) if x.strip()]
    if not listed:
        import platformdirs  # the package's default data directory (bench.datasets.fetch)

        listed = [platformdirs.user_cache_dir("ltrbench")]
    if str(SHARED_DATA) not in listed:
        os.environ[DATA_DIR_VAR] = os.pathsep.join([*listed, str(SHARED_DATA)])


_search_shared_data()


def pytest_configure(config: pytest.Config) -> None:
    """Re-run this session in a loopback-only network namespace when the platform allows."""
    if os.environ.get(NETNS_VAR) or not sys.platform.startswith("linux"):
        return
    unshare, ip = shutil.which("unshare"), shutil.which("ip")
    if not unshare or not ip:
        os.environ[NETNS_VAR] = "unavailable"
        return
    try:
        probe = subprocess.run([unshare, "-n", ip, "link", "set", "lo", "up"],
                               capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        probe = None
    if probe is None or probe.returncode != 0:
        os.environ[NETNS_VAR] = "unavailable"
        return
    os.environ[NETNS_VAR] = "1"
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(unshare, [unshare, "-n", "sh", "-c", f'"{ip}" link set lo up && exec "$@"', "sh",
                       *sys.orig_argv])


@pytest.fixture
def shared_data() -> Path:
    """``../shared/data`` beside the project root; tests using it skip cleanly when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data folder {SHARED_DATA} is absent")
    return SHARED_DATA


@pytest.fixture(scope="session", autouse=True)
def _ranx_compiles_once() -> Iterator[None]:
    """ranx objects the tests build themselves (ranx as the oracle) get their document-id arrays
    widened as ``bench.crosscheck.ranx_objects`` widens the package's own: ranx compiles its
    numba builders once per id-array width, 30-40 s of one core each, and the suite's ids have
    about 17 lengths. Ids, values and order are unchanged (the module doc says why)."""
    try:
        from ranx.data_structures import qrels as ranx_qrels
        from ranx.data_structures import run as ranx_run
    except ImportError:  # ranx not installed: its tests skip
        yield
        return
    from bench.crosscheck.ranx_objects import widening

    originals = {m: m.create_and_sort for m in (ranx_qrels, ranx_run)}
    for module, builder in originals.items():
        module.create_and_sort = widening(builder)
    yield
    for module, builder in originals.items():
        module.create_and_sort = builder
