"""``--timing isolated``: each (model, seed) trained in a fresh Python process.

LightGBM, XGBoost and numba each bring an OpenMP (or TBB/workqueue) runtime; in one process their
thread pools coexist, and a pool left spinning by one library can slow the next fit. In isolated
mode the benchmark writes the splits once as ``.npy`` files (read back memory-mapped, no parse),
and every (model, seed) runs in ``python -m bench.benchmark.isolated`` with only that model's
library loaded. The child times its own fit exactly as the in-process runner does (no interpreter
start or data loading inside the timing) and hands back the :class:`~bench.runners.result.FitResult`
without its booster; the parent evaluates and writes the run directory as usual.
"""

from __future__ import annotations

import json
import pickle
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench.data.letor import LetorData, LetorSplits
from bench.errors import LtrbenchError
from bench.runners.baselines import ALSParams
from bench.runners.dispatch import run_model
from bench.runners.params import Params
from bench.runners.registry import ModelSpec
from bench.runners.result import FitResult, NotApplicable, Selection

_ARRAYS = ("X", "y", "qid", "offsets", "user", "item")


@dataclass(frozen=True)
class _Request:
    model: dict[str, str]  # the ModelSpec's fields: the child looks nothing up again
    params: dict[str, Any]
    seed: int
    eval_at: list[int]
    selection_k: int  # the Selection's k: the child builds the same value
    log_train: bool
    als: dict[str, Any]


class IsolatedTrainer:
    """Trains models in child processes over splits written once under ``workdir``."""

    def __init__(self, splits: LetorSplits, workdir: Path) -> None:
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        for name, data in splits.splits().items():
            for attr in _ARRAYS:
                value = getattr(data, attr)
                if value is not None:
                    np.save(self.workdir / f"{name}.{attr}.npy", value)
        meta = {
            "name": splits.name,
            "features": {n: list(d.feature_names) for n, d in splits.splits().items()},
            "sources": {n: d.source for n, d in splits.splits().items()},
        }
        (self.workdir / "splits.json").write_text(json.dumps(meta), encoding="utf-8")

    def __call__(
        self,
        model: ModelSpec,
        splits: LetorSplits,
        params: Params,
        *,
        seed: int,
        eval_at: tuple[int, ...],
        selection: Selection,
        log_train: bool,
        als: ALSParams,
    ) -> FitResult:
        """:func:`bench.runners.dispatch.run_model` in a fresh process (``splits`` is not sent:
        the child reads the copy written at construction)."""
        request = _Request(asdict(model), params.to_dict(), seed, list(eval_at), selection.k, log_train,
                           asdict(als))
        req_path = self.workdir / f"{model.name}-seed{seed}.request.json"
        out_path = self.workdir / f"{model.name}-seed{seed}.result.pkl"
        req_path.write_text(json.dumps(asdict(request)), encoding="utf-8")
        out_path.unlink(missing_ok=True)
        done = subprocess.run(
            [sys.executable, "-m", "bench.benchmark.isolated", str(self.workdir), str(req_path),
             str(out_path)],
            capture_output=True, text=True, check=False,
        )
        if done.returncode != 0 or not out_path.is_file():
            tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
            raise LtrbenchError(
                f"{model.name} seed {seed}: the isolated training process failed (exit "
                f"{done.returncode}): {' / '.join(tail)}"
            )
        with open(out_path, "rb") as fh:
            result = pickle.load(fh)
        if isinstance(result, str):
            raise NotApplicable(result)
        assert isinstance(result, FitResult)
        return result

    def close(self) -> None:
        """Remove the written splits."""
        shutil.rmtree(self.workdir, ignore_errors=True)


def _read_splits(workdir: Path) -> LetorSplits:
    meta = json.loads((workdir / "splits.json").read_text(encoding="utf-8"))
    parts = {}
    for name in ("train", "vali", "test"):
        arrays = {
            attr: np.load(workdir / f"{name}.{attr}.npy", mmap_mode="r")
            for attr in _ARRAYS
            if (workdir / f"{name}.{attr}.npy").is_file()
        }
        parts[name] = LetorData(
            X=arrays["X"], y=np.asarray(arrays["y"]), qid=np.asarray(arrays["qid"]),
            offsets=np.asarray(arrays["offsets"]), feature_names=tuple(meta["features"][name]),
            user=None if "user" not in arrays else np.asarray(arrays["user"]),
            item=None if "item" not in arrays else np.asarray(arrays["item"]),
            source=meta["sources"][name],
        )
    return LetorSplits(name=meta["name"], train=parts["train"], vali=parts["vali"], test=parts["test"])


def main(argv: list[str]) -> int:
    """Child entry: ``python -m bench.benchmark.isolated WORKDIR REQUEST.json OUT.pkl``."""
    workdir, req_path, out_path = Path(argv[0]), Path(argv[1]), Path(argv[2])
    req = _Request(**json.loads(req_path.read_text(encoding="utf-8")))
    splits = _read_splits(workdir)
    try:
        result: FitResult | str = run_model(
            ModelSpec(**req.model), splits, Params.from_dict(req.params), seed=req.seed,
            eval_at=tuple(req.eval_at), selection=Selection(req.selection_k),
            log_train=req.log_train, als=ALSParams(**req.als),
        )
        assert isinstance(result, FitResult)
        result.booster = None
    except NotApplicable as exc:
        result = str(exc)
    tmp = out_path.with_suffix(".tmp")
    with open(tmp, "wb") as fh:
        pickle.dump(result, fh)
    tmp.replace(out_path)
    return 0


if __name__ == "__main__":  # pragma: no cover - the child process
    raise SystemExit(main(sys.argv[1:]))
