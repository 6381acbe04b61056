"""Can this machine train on ``device``? Checked before any data are loaded, never guessed.

``cuda`` needs an NVIDIA GPU the process can see and, per library, a build with CUDA:

* **XGBoost**: ``xgboost.build_info()["USE_CUDA"]`` (the ``xgboost`` wheels for Linux x86_64 have
  it; ``xgboost-cpu``, which ltrbench installs to stay small, does not). A
  CUDA build without a visible GPU does not fail: it warns and trains on the CPU ("No visible
  GPU is found") -- a silent CPU run, so the GPU is looked for first.
* **LightGBM**: ``device_type="cuda"`` needs LightGBM built with ``USE_CUDA`` (the pip wheels
  are CPU-only; ``"gpu"`` is the OpenCL build, not used here). Probed by training one tree on
  four rows: a CPU build answers "CUDA Tree Learner was not enabled in this build".

A GPU is "visible" when ``nvidia-smi -L`` lists one (and ``CUDA_VISIBLE_DEVICES`` does not hide
them all). :func:`describe_devices` gives the manifest's record: GPU names, driver, builds.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import Any

from bench.errors import ConfigError, unknown
from bench.runners.libraries import get_library, load
from bench.runners.params import DEVICES


def visible_gpus() -> list[str]:
    """Names of the NVIDIA GPUs this process can use (``nvidia-smi -L``; empty without one)."""
    if os.environ.get("CUDA_VISIBLE_DEVICES", None) in ("", "-1"):
        return []
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return []
    try:
        out = subprocess.run([exe, "-L"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return []
    return [line.split(":", 1)[1].split("(")[0].strip() for line in out.stdout.splitlines()
            if line.startswith("GPU ")] if out.returncode == 0 else []


def check_device(device: str, libraries: set[str]) -> None:
    """:class:`ConfigError` naming what is missing when ``libraries`` cannot train on ``device``."""
    if device not in DEVICES:
        raise unknown("device", device, DEVICES)
    if device == "cpu" or not libraries:
        return
    if not visible_gpus():
        raise ConfigError("device 'cuda' asked for, but no NVIDIA GPU is visible to this process "
                          "(nvidia-smi lists none, or is missing); run on a machine with one, or "
                          "use --device cpu")
    for lib in sorted(libraries):
        if not cuda_build(lib):
            raise ConfigError(f"the installed {lib} cannot train on 'cuda' (no CUDA support in "
                              f"this build); install {get_library(lib).cuda_install}")


def cuda_build(library: str) -> bool:
    """Whether the installed ``library`` can train on CUDA: its record lists the device and its
    :attr:`~bench.runners.libraries.Library.cuda_build` check says yes."""
    lib = get_library(library)
    if "cuda" not in lib.devices or lib.cuda_build is None:
        return False
    return bool(load(lib.cuda_build)())


def xgboost_cuda_build() -> bool:
    """``xgboost.build_info()["USE_CUDA"]``."""
    import xgboost as xgb

    return bool(xgb.build_info().get("USE_CUDA"))


def lightgbm_cuda_build() -> bool:
    """One tree with ``device_type="cuda"``: a CPU build raises "CUDA Tree Learner was not
    enabled in this build"."""
    import lightgbm as lgb
    import numpy as np

    try:
        lgb.train({"device_type": "cuda", "verbosity": -1, "num_leaves": 2, "min_data_in_leaf": 1},
                  lgb.Dataset(np.arange(4.0).reshape(4, 1), np.array([0.0, 1, 0, 1])),
                  num_boost_round=1)
    except lgb.basic.LightGBMError:
        return False
    return True


def describe_devices(device: str, libraries: set[str]) -> dict[str, Any]:
    """What the manifest records about the device: GPUs, driver, each library's CUDA build."""
    out: dict[str, Any] = {"device": device}
    if device == "cpu":
        return out
    out["gpus"] = visible_gpus()
    exe = shutil.which("nvidia-smi")
    if exe is not None:
        try:
            q = subprocess.run([exe, "--query-gpu=driver_version", "--format=csv,noheader"],
                               capture_output=True, text=True, timeout=20)
            out["driver"] = q.stdout.strip().splitlines()[0] if q.returncode == 0 else None
        except (OSError, subprocess.SubprocessError, IndexError):
            out["driver"] = None
    out["cuda_builds"] = {lib: cuda_build(lib) for lib in sorted(libraries)}
    return out
