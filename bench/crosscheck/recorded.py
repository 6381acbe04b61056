"""Do the numbers a run reports equal the reference recomputed from its scores?

:mod:`bench.crosscheck.run` checks each library's built-in metric against the reference; a reader
of the run cites ``metrics.csv`` and ``per_query.parquet``. For every (model, seed, split) the
cross-check sees, the reference values of its metric under the run's own profile are recomputed
from ``scores.parquet`` and ``labels.parquet`` and compared query by query with
``per_query.parquet``, and their mean with the ``metrics.csv`` row of that profile: a value edited
by hand (or written by another evaluator) is an error naming the file, the model, seed, split,
query and both values. Only when the cross-check's default profile is the run's own (the
profile those files were written under) and its evaluator ltrbench's, in a run folder with
``per_query.parquet`` (the run loop writes it with ``metrics.csv``; a folder without it was not
written whole by ``ltrbench run``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from bench.metrics.reconcile import Evaluate, Reconciliation
from bench.runs.reader import RunDir

#: Largest difference allowed between a recorded value and the recomputed one (the same
#: evaluator on the same scores: only the order of a summation may differ).
RECORDED_TOL = 1e-9
_LISTED = 5


@dataclass
class Recorded:
    """A run's recorded values of one metric, read once per cross-check."""

    run: RunDir
    metric: str
    profile: str
    _tables: dict[str, pd.DataFrame] = field(default_factory=dict)

    def _table(self, name: str) -> pd.DataFrame:
        if name not in self._tables:
            table = self.run.table_or_empty(name)
            if "metric" in table.columns:
                table = table[table["metric"].astype(str) == self.metric]
            self._tables[name] = table
        return self._tables[name]

    def check(self, split: str, qid: NDArray[Any], model: str, seed: Any,
              rec: Reconciliation, evaluate: Evaluate | None) -> list[str]:
        """The errors of (model, seed, split): each recorded value that differs from the
        reference under the default profile that ``rec`` (the pair's reconciliation) computed
        (its per-query values and their mean: the ranking is not evaluated again). ``qid``: the
        query id of each group. Nothing is checked under another profile than the run's, or
        with another evaluator than ltrbench's (``evaluate``): the run's files were written by
        neither."""
        values = rec.default_per_query
        if rec.default_profile != self.profile or evaluate is not None or values is None:
            return []
        if not self.run.has("per_query.parquet"):  # not a folder 'ltrbench run' wrote whole
            return []
        where = f"{model} seed {seed} {split}"
        errors = self._per_query(where, split, model, seed, qid, values)
        metrics = self._rows("metrics.csv", split, model, seed)
        if "profile" in metrics.columns:
            metrics = metrics[metrics["profile"].astype(str) == self.profile]
        want = rec.default_value
        for got in pd.to_numeric(metrics.get("value", pd.Series(dtype=float)), errors="coerce"):
            if not _same(float(got), want):
                errors.append(f"metrics.csv: {where} {self.metric} under profile {self.profile} "
                              f"is {float(got):.12f}, the reference recomputed from "
                              f"scores.parquet is {want:.12f}")
        return errors

    def _rows(self, name: str, split: str, model: str, seed: Any) -> pd.DataFrame:
        t = self._table(name)
        if t.empty or not {"split", "model", "seed"} <= set(t.columns):
            return t.iloc[0:0]
        return t[(t["split"].astype(str) == split) & (t["model"].astype(str) == model)
                 & (t["seed"].astype(str) == str(seed))]

    def _per_query(self, where: str, split: str, model: str, seed: Any, qid: NDArray[Any],
                   values: NDArray[np.float64]) -> list[str]:
        rows = self._rows("per_query.parquet", split, model, seed)
        if rows.empty or "qid" not in rows.columns:
            return []
        recorded = dict(zip(rows["qid"].astype(str), pd.to_numeric(rows["value"], errors="coerce"),
                            strict=True))
        bad = []
        for q, v in zip((str(q) for q in qid), values, strict=True):  # one qid per query
            got = recorded.get(q)
            if got is not None and not _same(float(got), float(v)):
                bad.append(f"qid {q}: {float(got):.6f} recorded, {float(v):.6f} recomputed")
        if not bad:
            return []
        more = f"; and {len(bad) - _LISTED} more" if len(bad) > _LISTED else ""
        return [f"per_query.parquet: {where} {self.metric} under profile {self.profile} differs "
                f"from the reference recomputed from scores.parquet on {len(bad)} "
                f"quer{'y' if len(bad) == 1 else 'ies'}: " + "; ".join(bad[:_LISTED]) + more]


def _same(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= RECORDED_TOL


__all__ = ["RECORDED_TOL", "Recorded"]
