"""Hostile custom rankers, round 9 (issue 19 item 6, user code isolated), after rounds 5 to 8b.

New here: a ranker that registers an exit handler (``atexit.register``) in ltrbench's process.
``atexit.register(os._exit, 0)`` in ``fit`` printed a traceback when ltrbench exited (the
guarded ``os._exit`` of the call raised there) and could have set the exit status of a failed
run; ``atexit.register(shutil.rmtree, "results")`` would remove the results once written. Now
the ranker's own handlers are removed after each call and named in the model's notes; one
registered through a reference to the real ``register`` kept from before is named. Beside it,
instances that held: ``predict`` returning a view of ``X`` (read-only), a float16 array, a
one-column DataFrame, a 0-d array; ``fit`` with only ``(X, y)`` (refused, naming ``group``).
The first two cases run in a child process: its exit is the point.

A case returns ``None`` when ltrbench behaved, else one line. ``python
tests/test_hostile_round9_rankers.py`` prints the counts.
"""

from __future__ import annotations

import atexit
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import toy_splits
from test_hostile_round8_rankers import Base  # scores = the first feature; fit runs go()

NAME = "hostile9"
MODULE = Path(__file__).stem
SAID = "the ranker's exit handler ran"


def _handler() -> None:
    print(SAID, flush=True)


def _kept_register() -> Callable[..., Any]:
    """The real ``register``, as a reference kept before any ranker ran would be (``from atexit
    import register`` in a module imported earlier)."""
    import importlib

    return importlib.import_module("bench.runners.custom_atexit")._REAL_REGISTER  # type: ignore[no-any-return]


class RegistersAnExitHandler(Base):
    def go(self) -> None:
        atexit.register(_handler)


class RegistersAsADecorator(Base):
    def go(self) -> None:
        @atexit.register
        def bye() -> None:
            print(SAID, flush=True)


class RegistersThroughAKeptReference(Base):
    def go(self) -> None:
        _kept_register()(_handler)


class Gives(Base):
    """``predict`` returns ``Gives.make(X)``."""

    make: ClassVar[Any] = None

    def predict(self, X: Any) -> Any:
        return type(self).make(X)


class FitsOnXAndYOnly:
    def fit(self, X: Any, y: Any) -> Any:
        return self

    def predict(self, X: Any) -> Any:
        return np.asarray(X[:, 0], dtype=np.float64)


def _train(factory: str) -> tuple[Any, BaseException | None]:
    from bench.runners.custom import custom_model, train_custom

    try:
        return train_custom(custom_model(NAME, f"{MODULE}:{factory}"), toy_splits(), seed=0), None
    except Exception as exc:  # judged by the caller
        return None, exc


def _count() -> int:
    return int(atexit._ncallbacks())  # type: ignore[attr-defined]


def _exit_handler_case(factory: str, *words: str) -> str | None:
    """In a child process (its exit is the point): train the ranker, exit; its handler must not
    run at exit, and the notes must name it."""
    import subprocess

    script = (f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
              f"import {MODULE} as t\n"
              f"r, e = t._train({factory!r})\n"
              "print('NOTES', e or r.notes.get('process', ''), flush=True)\n")
    env = {**__import__("os").environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       timeout=600, env=env)  # a hang guard, not a speed test
    if p.returncode != 0 or "Traceback" in p.stderr:
        return f"exit {p.returncode}: {p.stderr.strip()[-200:]}"
    if SAID in p.stdout:
        return "the ranker's exit handler ran when the process exited"
    missing = [w for w in words if w not in p.stdout]
    return f"not named ({missing}): {p.stdout.strip()[:200]!r}" if missing else None


def _kept_reference_case() -> str | None:
    """A handler registered through the real ``register``: it cannot be removed; it is named."""
    try:
        result, exc = _train("RegistersThroughAKeptReference")
        if exc is not None:
            return f"refused: {type(exc).__name__}: {exc}"
        said = str(result.notes.get("process", ""))
        want = "1 exit handler(s) registered out of ltrbench's sight"
        return None if want in said else f"not named: {said[:200]!r}"
    finally:  # never leave the test process with the ranker's handler (run as __main__ too)
        for module in (sys.modules[__name__], sys.modules.get(MODULE)):
            atexit.unregister(getattr(module, "_handler", _handler))


def _refused(factory: str, *words: str) -> str | None:
    from bench.errors import LtrbenchError

    _, exc = _train(factory)
    if not isinstance(exc, LtrbenchError):
        return f"expected a clear error naming {words}; got {exc!r}"
    missing = [w for w in (f"'{NAME}'", *words) if w not in str(exc)]
    return f"message {str(exc)[:200]!r} lacks {missing}" if missing else None


def _scores(make: Callable[[Any], Any], *refusal: str) -> str | None:
    import importlib

    from bench.errors import LtrbenchError

    importlib.import_module(MODULE).Gives.make = staticmethod(make)  # the class the run imports
    result, exc = _train("Gives")
    if refusal:
        if not isinstance(exc, LtrbenchError):
            return f"expected a clear error naming {refusal}; got {exc!r}"
        missing = [w for w in refusal if w not in str(exc)]
        return f"message {str(exc)[:200]!r} lacks {missing}" if missing else None
    if exc is not None:
        return f"refused: {exc}"
    want = np.asarray(make(toy_splits().test.X.copy()), dtype=np.float64).ravel()
    got = result.scores["test"]
    return None if got.dtype == np.float64 and np.array_equal(got, want) else f"scores {got[:3]}"


CASES: dict[str, Callable[[], str | None]] = {
    "fit-registers-an-exit-handler": lambda: _exit_handler_case(
        "RegistersAnExitHandler", "atexit.register", "_handler", "removed"),
    "fit-registers-with-the-decorator": lambda: _exit_handler_case(
        "RegistersAsADecorator", "atexit.register", "bye"),
    "fit-registers-through-a-kept-reference": _kept_reference_case,
    # held before, kept held
    "predict-a-view-of-x": lambda: _scores(lambda X: X[:, 0]),
    "predict-float16": lambda: _scores(lambda X: np.asarray(X[:, 0], dtype=np.float16)),
    "predict-a-one-column-frame": lambda: _scores(lambda X: pd.DataFrame({"s": X[:, 0]}),
                                                  "predict"),
    "predict-a-0-d-array": lambda: _scores(lambda X: np.array(0.5), "predict"),
    "fit-on-x-and-y-only-is-named": lambda: _refused("FitsOnXAndYOnly", "fit", "group"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_round9_ranker(name: str) -> None:
    assert CASES[name]() is None


if __name__ == "__main__":  # the counts
    failing = [(n, p) for n, fn in CASES.items() if (p := fn()) is not None]
    for n, p in failing:
        print(f"FAIL {n}: {p[:240]}")
    print(f"{len(failing)} of {len(CASES)} cases failed")
