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
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench.data.letor import LetorData, LetorSplits
from bench.errors import LtrbenchError
from bench.runners.baselines import ALSParams
from bench.runners.dispatch import run_model
from bench.runners.iteration import IterationHook
from bench.runners.params import Params
from bench.runners.registry import ModelSpec
from bench.runners.result import FitResult, NotApplicable, Selection

_ARRAYS = ("X", "y", "qid", "offsets", "user", "item")
#: Seconds between two iteration lines the child sends (the parent's heartbeat shows fewer).
_SEND_EVERY_S = 0.5


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
    """Trains models in child processes over splits written once under ``workdir``. A GBDT's
    ``on_iteration`` hook is called here with the iterations the child sends through a pipe
    (at most one per :data:`_SEND_EVERY_S`: the progress line's heartbeat, not every round)."""

    #: the pipeline passes this trainer the progress line's heartbeat
    takes_hook = True

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
        on_iteration: IterationHook | None = None,
    ) -> FitResult:
        """:func:`bench.runners.dispatch.run_model` in a fresh process (``splits`` is not sent:
        the child reads the copy written at construction)."""
        request = _Request(asdict(model), params.to_dict(), seed, list(eval_at), selection.k, log_train,
                           asdict(als))
        req_path = self.workdir / f"{model.name}-seed{seed}.request.json"
        out_path = self.workdir / f"{model.name}-seed{seed}.result.pkl"
        req_path.write_text(json.dumps(asdict(request)), encoding="utf-8")
        out_path.unlink(missing_ok=True)
        returncode, output = _run_child(
            [sys.executable, "-m", "bench.benchmark.isolated", str(self.workdir), str(req_path),
             str(out_path)], on_iteration)
        if returncode != 0 or not out_path.is_file():
            tail = output.strip().splitlines()[-5:]
            raise LtrbenchError(
                f"{model.name} seed {seed}: the isolated training process failed (exit "
                f"{returncode}): {' / '.join(tail)}"
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


def _run_child(argv: list[str], on_iteration: IterationHook | None) -> tuple[int, str]:
    """Run the child; its stdout and stderr go to temporary files (no pipe to fill), and with a
    hook, a pipe's write end is passed as one more argument for ``"<iteration> <value>"`` lines,
    read here until the child closes it. Returns the exit status and the child's stderr (else
    its stdout)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        if on_iteration is None:
            code = subprocess.run(argv, stdout=out, stderr=err, check=False).returncode
        else:
            read_end, write_end = os.pipe()
            try:
                child = subprocess.Popen([*argv, str(write_end), repr(_SEND_EVERY_S)],
                                         stdout=out, stderr=err,
                                         pass_fds=(write_end,))
            finally:
                os.close(write_end)
            try:
                with open(read_end, encoding="ascii") as lines:
                    for line in lines:
                        i, v = line.split()
                        on_iteration(int(i), float(v))
            except BaseException:  # the hook stopped the fit: so does the child
                child.kill()
                child.wait()
                raise
            code = child.wait()
        text = []
        for f in (err, out):
            f.seek(0)
            text.append(f.read().decode("utf-8", "replace"))
    return code, text[0] or text[1]


def _sender(fd: int, every: float) -> tuple[IterationHook, Any]:
    """The child's hook: ``"<iteration> <value>"`` on the pipe ``fd``, at most one line per
    ``every`` seconds (the parent's :data:`_SEND_EVERY_S`); and the pipe to close."""
    pipe = open(fd, "w", encoding="ascii", buffering=1)  # noqa: SIM115 - closed by main
    last = [time.monotonic()]

    def send(iteration: int, value: float) -> None:
        now = time.monotonic()
        if now - last[0] >= every:
            last[0] = now
            pipe.write(f"{iteration} {value!r}\n")

    return send, pipe


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
    """Child entry: ``python -m bench.benchmark.isolated WORKDIR REQUEST.json OUT.pkl [FD EVERY]``
    (``FD``: the pipe for the iteration lines when the parent has a hook, one per ``EVERY`` s)."""
    workdir, req_path, out_path = Path(argv[0]), Path(argv[1]), Path(argv[2])
    req = _Request(**json.loads(req_path.read_text(encoding="utf-8")))
    splits = _read_splits(workdir)
    hook, pipe = _sender(int(argv[3]), float(argv[4])) if len(argv) > 4 else (None, None)
    try:
        result: FitResult | str = run_model(
            ModelSpec(**req.model), splits, Params.from_dict(req.params), seed=req.seed,
            eval_at=tuple(req.eval_at), selection=Selection(req.selection_k),
            log_train=req.log_train, als=ALSParams(**req.als), on_iteration=hook,
        )
        assert isinstance(result, FitResult)
        result.booster = None
    except NotApplicable as exc:
        result = str(exc)
    finally:
        if pipe is not None:
            pipe.close()
    tmp = out_path.with_suffix(".tmp")
    with open(tmp, "wb") as fh:
        pickle.dump(result, fh)
    tmp.replace(out_path)
    return 0


if __name__ == "__main__":  # pragma: no cover - the child process
    raise SystemExit(main(sys.argv[1:]))
