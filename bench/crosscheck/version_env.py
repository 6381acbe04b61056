"""One isolated Python per library release, and the probe run inside it.

A release is installed once into a virtual environment under the user cache directory
(``platformdirs.user_cache_dir("ltrbench")/versions/py3.X/<library>-<version>``), made with
``python -m venv`` and filled with pip (``pip install <library>==<version>`` and a NumPy that
release was built for). The environment is reused while its marker file
``ltrbench-ready.json`` is there; a failed install removes the half-made environment. The probe
(:mod:`bench.crosscheck.version_probe`) runs as a separate process and exchanges files only.
``version="installed"`` runs the probe in the current interpreter, with no environment.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bench.errors import LtrbenchError
from bench.runners.libraries import get_library

#: The token that runs the probe with the library installed in the current interpreter.
INSTALLED = "installed"
_MARKER = "ltrbench-ready.json"
_PROBE = Path(__file__).with_name("version_probe.py")
_TAIL_LINES = 12
_INSTALL_TIMEOUT_S = 1800
_PROBE_TIMEOUT_S = 600

#: Releases older than these were built against NumPy 1 (their wheels break under NumPy 2).
_NUMPY2_SINCE = {"lightgbm": (4, 4), "xgboost": (2, 1)}

Progress = Callable[[str], None]


class EnvironmentFailure(LtrbenchError):
    """An environment could not be made or the probe failed in it (the message says which
    release, and ends with the tool's last output lines)."""


def default_cache_dir() -> Path:
    """Where the environments live: ``<user cache dir>/ltrbench/versions`` (platformdirs)."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("ltrbench")) / "versions"


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version)[:3])


def requirements(library: str, version: str) -> list[str]:
    """What pip installs for ``library==version``: the release and a NumPy it works with."""
    numpy = "numpy<2" if _release(version) < _NUMPY2_SINCE[library] else "numpy"
    # the distribution the library's record names first (bench.runners.libraries)
    return [f"{get_library(library).distributions[0]}=={version}", numpy]


def env_dir(cache_dir: Path, library: str, version: str) -> Path:
    """The environment of one release (one per Python minor version)."""
    py = f"py{sys.version_info.major}.{sys.version_info.minor}"
    return Path(cache_dir) / py / f"{library}-{version}"


def _python_in(env: Path) -> Path:
    return env / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")


def _tail(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return "\n".join("    " + ln for ln in lines[-_TAIL_LINES:])


def _run(cmd: list[str], what: str, timeout: int) -> subprocess.CompletedProcess[str]:
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise EnvironmentFailure(f"{what}: no answer within {timeout} s") from None
    except OSError as exc:
        raise EnvironmentFailure(f"{what}: cannot start {cmd[0]}: {exc}") from None
    if done.returncode != 0:
        raise EnvironmentFailure(
            f"{what} failed (exit status {done.returncode}); its last lines:\n"
            f"{_tail(done.stderr + done.stdout)}"
        )
    return done


def ensure_env(library: str, version: str, cache_dir: Path,
               progress: Progress | None = None) -> Path:
    """The Python executable of ``library==version``'s environment, made first when missing.

    Raises :class:`EnvironmentFailure` naming the release and quoting pip's last lines when the
    install fails (the half-made environment is removed, so the next call starts afresh).
    """
    say = progress or (lambda _msg: None)
    env = env_dir(cache_dir, library, version)
    python = _python_in(env)
    if (env / _MARKER).is_file() and python.is_file():
        say(f"{library}=={version}: reusing {env}")
        return python
    if env.exists():
        shutil.rmtree(env)
    env.parent.mkdir(parents=True, exist_ok=True)
    reqs = requirements(library, version)
    try:
        say(f"{library}=={version}: creating {env}")
        _run([sys.executable, "-m", "venv", str(env)], f"{library}=={version}: python -m venv",
             _INSTALL_TIMEOUT_S)
        say(f"{library}=={version}: pip install {' '.join(reqs)}")
        _run([str(python), "-m", "pip", "install", "--disable-pip-version-check",
              "--no-input", *reqs], f"{library}=={version}: pip install {' '.join(reqs)}",
             _INSTALL_TIMEOUT_S)
    except EnvironmentFailure:
        shutil.rmtree(env, ignore_errors=True)
        raise
    (env / _MARKER).write_text(json.dumps({"library": library, "version": version,
                                           "requirements": reqs}), encoding="utf-8")
    return python


def run_probe(python: Path | str, library: str, version: str, metrics: list[str],
              linear_metrics: list[str], arrays: dict[str, Any]) -> dict[str, Any]:
    """Run the probe with ``python`` on ``arrays`` (the cases); its JSON result.

    Raises :class:`EnvironmentFailure` when the probe fails (e.g. the library cannot be
    imported), quoting its last lines.
    """
    with tempfile.TemporaryDirectory(prefix="ltrbench-probe-") as tmp:
        folder = Path(tmp)
        (folder / "request.json").write_text(
            json.dumps({"library": library, "metrics": metrics, "linear_metrics": linear_metrics}),
            encoding="utf-8")
        np.savez(folder / "cases.npz", **arrays)
        _run([str(python), str(_PROBE), str(folder / "request.json"), str(folder / "cases.npz"),
              str(folder / "result.json")], f"{library}=={version}: probe", _PROBE_TIMEOUT_S)
        result: dict[str, Any] = json.loads((folder / "result.json").read_text(encoding="utf-8"))
    return result


def probe_python(library: str, version: str, cache_dir: Path,
                 progress: Progress | None = None) -> Path | str:
    """The interpreter that runs the probe: the current one for ``installed``, else the
    release's environment (:func:`ensure_env`)."""
    if version == INSTALLED:
        return sys.executable
    return ensure_env(library, version, cache_dir, progress)
