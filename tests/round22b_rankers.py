"""Rankers for ``tests/test_hostile_round22_choices.py`` (named in configs as
``"round22b_rankers:<name>"``: the test puts this folder on ``sys.path``)."""

from __future__ import annotations

import copy
from typing import Any, ClassVar

import numpy as np


class Layered:
    """A ranker with nested parameters; records what each factory call received, then changes
    its own copy (as a user's code may: ``layers.append``, ``opts["seen"] = ...``)."""

    received: ClassVar[list[dict[str, Any]]] = []

    def __init__(self, layers: Any = (), opts: Any = None, seed: int = 0) -> None:
        Layered.received.append({"layers": copy.deepcopy(layers), "opts": copy.deepcopy(opts),
                                 "types": (type(layers), type(opts)), "seed": seed})
        if isinstance(layers, list):
            layers.append(seed)
        if isinstance(opts, dict):
            opts["seen"] = seed
        self.layers, self.opts, self.seed = layers, opts, seed

    def fit(self, X: Any, y: Any, *, group: Any) -> Layered:
        return self

    def predict(self, X: Any) -> Any:
        return np.asarray(X[:, 0], dtype=np.float64) * float(len(self.layers))


def nothing() -> None:
    """Not a ranker (a name for references that must fail before it is called)."""


class Counting:
    """Counts its fits on the instance: a second seed's fit of the same object sees the
    first's state (a warm start)."""

    def __init__(self, seed: int = 0) -> None:
        self.seed, self.fits = seed, 0

    def fit(self, X: Any, y: Any, *, group: Any) -> Counting:
        self.fits += 1
        return self

    def predict(self, X: Any) -> Any:
        return np.asarray(X[:, 0], dtype=np.float64) * self.fits


SHARED = Counting()


def shared(seed: int = 0) -> Counting:
    """A factory that hands every seed one module-level ranker (its state carried over)."""
    SHARED.seed = seed
    return SHARED
