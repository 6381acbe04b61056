"""The process that runs one evaluation library for the evaluator cross-check.

``python -m bench.crosscheck.evaluator_worker`` reads one JSON request per line on stdin,
``{"compute": "module:attr", "qrels": {...}, "run": {...}, "measures": [[provider, measure],
...]}``, calls the function (:mod:`bench.crosscheck.evaluator_tools`) and writes one JSON line:
``{"values": {label: {qid: value}}}`` or ``{"error": "Type: message"}``. NaN travels as JSON's
``NaN`` (Python's ``json`` reads it back). Each library runs in its own worker: ir_measures and
pytrec_eval were seen returning other numbers when they shared a process
(``tests/test_hostile_evaluate_round5.py``), and a library that crashes takes only its worker.
:class:`Worker` is the parent's side.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path
from types import TracebackType
from typing import Any

from bench.crosscheck.evaluator_tools import Measures, QrelsDict, RunDict, Values, load_compute

#: The folder that holds the ``bench`` package this process runs (put first on the worker's path).
_ROOT = str(Path(__file__).resolve().parents[2])


class ToolFailure(Exception):
    """The library raised, returned something that is not per-query values, or its worker died."""


def answer(request: dict[str, Any]) -> dict[str, Any]:
    """One request's reply (never raises: an exception becomes ``{"error": ...}``)."""
    try:
        fn = load_compute(request["compute"])
        measures = [(str(p), str(m)) for p, m in request["measures"]]
        values = fn(request["qrels"], request["run"], measures)
        return {"values": values}
    except Exception as exc:  # the library's failure is the reply
        last = traceback.extract_tb(exc.__traceback__)[-1:]
        where = f" ({Path(last[0].filename).name}:{last[0].lineno})" if last else ""
        return {"error": f"{type(exc).__name__}: {exc}{where}"}


def main() -> None:
    """Answer requests until stdin closes."""
    for line in sys.stdin:
        if line.strip():
            sys.stdout.write(json.dumps(answer(json.loads(line))) + "\n")
            sys.stdout.flush()


class InProcess:
    """:class:`Worker`'s interface without a process (``isolate=False``: tests, one tool)."""

    def __init__(self, compute: str) -> None:
        self.compute_path = compute

    def compute(self, qrels: QrelsDict, run: RunDict, measures: Measures) -> Values:
        """The library's values; :class:`ToolFailure` when it raised."""
        reply = answer({"compute": self.compute_path, "qrels": qrels, "run": run,
                        "measures": measures})
        if "error" in reply:
            raise ToolFailure(str(reply["error"]))
        values: Values = reply["values"]
        return values

    def close(self) -> None:
        """Nothing to end."""


class Worker:
    """A worker process for one library; :meth:`compute` sends a request and waits."""

    def __init__(self, compute: str) -> None:
        self.compute_path = compute
        self._err = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 (closed by close())
        self._start()

    def _start(self) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, (_ROOT, env.get("PYTHONPATH"))))
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "bench.crosscheck.evaluator_worker"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self._err, text=True, env=env)

    def compute(self, qrels: QrelsDict, run: RunDict, measures: Measures) -> Values:
        """The library's values; :class:`ToolFailure` when it raised or its worker died (the
        next call starts a new worker)."""
        if self._proc.poll() is not None:
            self._stop()
            self._start()
        assert self._proc.stdin is not None
        assert self._proc.stdout is not None
        request = {"compute": self.compute_path, "qrels": qrels, "run": run,
                   "measures": [list(m) for m in measures]}
        try:
            self._proc.stdin.write(json.dumps(request) + "\n")
            self._proc.stdin.flush()
            line = self._proc.stdout.readline()
        except (BrokenPipeError, OSError):
            line = ""
        if not line:
            code = self._proc.wait()
            self._err.seek(0)
            tail = " | ".join(self._err.read().strip().splitlines()[-3:])
            raise ToolFailure(f"the worker process died (exit status {code}){': ' + tail if tail else ''}")
        reply = json.loads(line)
        if "error" in reply:
            raise ToolFailure(str(reply["error"]))
        values: Values = reply["values"]
        return values

    def close(self) -> None:
        """End the worker and wait for it."""
        self._stop()
        self._err.close()

    def _stop(self) -> None:
        """End the worker (it exits when its stdin closes) and wait for it."""
        if self._proc.stdin is not None:
            with contextlib.suppress(OSError):
                self._proc.stdin.close()
        try:
            self._proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        if self._proc.stdout is not None:
            self._proc.stdout.close()

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


if __name__ == "__main__":
    main()
