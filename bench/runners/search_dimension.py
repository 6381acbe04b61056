"""One searched parameter of ``ltrbench tune`` as data (:class:`Dimension`), and the ranges the
GBDT libraries share. Each :class:`~bench.runners.libraries.Library` record declares its search
space with these (``space``); :mod:`bench.benchmark.search_space` reads the records, checks a
``--space`` file against them and samples them with Optuna. The ranges and their sources are
said in :mod:`bench.benchmark.search_space`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Dimension:
    """One searched parameter: ``int`` / ``float`` in ``[low, high]`` (log-uniform when
    ``log``), or ``categorical`` over ``choices``."""

    name: str
    kind: str
    low: float = 0.0
    high: float = 0.0
    log: bool = False
    choices: tuple[Any, ...] = ()

    def suggest(self, trial: Any) -> Any:
        """The value of an Optuna ``trial`` (``suggest_int`` / ``suggest_float`` /
        ``suggest_categorical`` under this dimension's name)."""
        if self.kind == "categorical":
            return trial.suggest_categorical(self.name, list(self.choices))
        if self.kind == "int":
            return trial.suggest_int(self.name, int(self.low), int(self.high), log=self.log)
        return trial.suggest_float(self.name, self.low, self.high, log=self.log)

    def as_dict(self) -> dict[str, Any]:
        """The TOML/JSON shape (what ``--space`` reads)."""
        if self.kind == "categorical":
            return {"choices": list(self.choices)}
        return {"low": self.low, "high": self.high, "log": self.log}


def int_range(name: str, low: int, high: int, log: bool = False) -> Dimension:
    """An integer dimension ``[low, high]`` (log-uniform when ``log``)."""
    return Dimension(name, "int", low, high, log)


def float_range(name: str, low: float, high: float, log: bool = False) -> Dimension:
    """A real dimension ``[low, high]`` (log-uniform when ``log``)."""
    return Dimension(name, "float", low, high, log)


def choice(name: str, *choices: Any) -> Dimension:
    """A categorical dimension over ``choices``, in order."""
    return Dimension(name, "categorical", choices=tuple(choices))


#: The learning rate, searched alike in every library (log-uniform, Grinsztajn et al. 2022).
RATE = float_range("learning_rate", 0.01, 0.3, log=True)
#: Rows per leaf (LightGBM, CatBoost; XGBoost has only its min_child_weight).
MIN_ROWS = int_range("min_data_in_leaf", 1, 200, log=True)
#: Row and feature subsampling.
SAMPLING = (float_range("subsample", 0.5, 1.0), float_range("colsample", 0.5, 1.0))
