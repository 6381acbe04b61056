"""The fixed cases of ``ltrbench crosscheck --versions``: small rankings built so that each
convention that differs between tools or releases changes at least one number.

Every array is written out by hand or by integer arithmetic (no random generator), so the cases
are the same on every machine and NumPy version. Scores are float64; labels are whole numbers.

==================  ===============================================================================
case                what it separates
==================  ===============================================================================
``ties``            equal scores: row order (stable sort) vs averaged or pessimistic ties
``float32_ties``    scores equal only after rounding to float32 (XGBoost's ``bst_float``) vs double
``blank_queries``   queries without a relevant document: scored 1, 0 or left out
``graded``          labels 0..4: gain ``2^l - 1`` vs ``l``; XGBoost >= 2.0 refuses graded MAP
``one_doc``         queries of one document, relevant or not
``weighted``        query weights 3, 1, 0.5, 2 (one blank query): weighted or plain mean, and how a
                    blank query enters a weighted mean
``long_lists``      40-50 documents, relevant ones beyond rank 32: XGBoost's default cut at 32 for
                    a metric named without ``@k``; AP divided by ``R`` or ``min(R, k)``
==================  ===============================================================================
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class Case:
    """One fixed ranking problem: rows in query order, ``group`` = query sizes."""

    name: str
    description: str
    labels: NDArray[np.float64]
    scores: NDArray[np.float64]
    group: NDArray[np.int64]
    weights: NDArray[np.float64] | None = None

    def summary(self) -> dict[str, object]:
        """Name, description and sizes (for the JSON and Markdown reports)."""
        return {"name": self.name, "description": self.description,
                "n_queries": int(self.group.shape[0]), "n_rows": int(self.labels.shape[0]),
                "max_label": int(self.labels.max()), "weighted": self.weights is not None}


def _case(name: str, description: str, queries: list[tuple[list[float], list[float]]],
          weights: list[float] | None = None) -> Case:
    labels = np.concatenate([np.asarray(lab, dtype=np.float64) for lab, _ in queries])
    scores = np.concatenate([np.asarray(sc, dtype=np.float64) for _, sc in queries])
    group = np.asarray([len(lab) for lab, _ in queries], dtype=np.int64)
    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    return Case(name, description, labels, scores, group, w)


def _long_query(n: int, relevant_ranks: list[int], step: int) -> tuple[list[float], list[float]]:
    """``n`` documents with distinct scores, relevant at the given 1-based ranks, rows in the
    order ``rank = (row * step) % n`` (a permutation when gcd(step, n) = 1)."""
    ranks = [(row * step) % n for row in range(n)]
    scores = [float(n - r) for r in ranks]
    labels = [1.0 if r + 1 in relevant_ranks else 0.0 for r in ranks]
    return labels, scores


def build_cases() -> list[Case]:
    """The cases, in a fixed order (see the module docstring)."""
    f32_step = float(np.spacing(np.float32(1000.0))) / 8  # far below float32 spacing at 1000
    return [
        _case("ties", "equal scores; the relevant documents first, last or in between in row order", [
            ([0, 0, 1, 1], [1.0, 1.0, 1.0, 1.0]),
            ([1, 0, 0, 1], [2.0, 2.0, 2.0, 1.0]),
            ([0, 1, 0, 0, 1], [3.0, 2.0, 2.0, 2.0, 2.0]),
            ([1, 1, 0, 0], [0.5, 0.5, 0.5, 0.5]),
        ]),
        _case("float32_ties", "scores distinct in float64 but equal in float32, the higher one "
              "(relevant) after the lower one in row order", [
            ([0, 1, 0], [0.3, 0.3 + 1e-9, 0.1]),
            ([0, 0, 1, 1], [1000.0, 1000.0 + f32_step, 5.0, 1000.0 + 2 * f32_step]),
            ([0, 1], [-2.0, -2.0 + 1e-8]),
        ]),
        _case("blank_queries", "two of five queries without a relevant document", [
            ([0, 0, 0], [0.3, 0.2, 0.1]),
            ([0, 1, 0, 1], [0.4, 0.3, 0.2, 0.1]),
            ([0, 0], [1.0, 2.0]),
            ([1, 0, 0], [0.1, 0.2, 0.3]),
            ([0, 0, 0, 0, 1], [5.0, 4.0, 3.0, 2.0, 1.0]),
        ]),
        _case("graded", "labels 0 to 4, distinct scores in imperfect orders", [
            ([1, 2, 0, 4, 3, 0], [0.9, 0.8, 0.7, 0.6, 0.5, 0.4]),
            ([4, 0, 1], [0.1, 0.3, 0.2]),
            ([2, 2, 3, 0, 1], [5.0, 1.0, 2.0, 4.0, 3.0]),
            ([0, 0, 0, 1, 0, 0, 0, 4], [8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0]),
        ]),
        _case("one_doc", "queries of a single document (relevant and not) among longer ones", [
            ([1], [0.5]),
            ([0], [0.5]),
            ([0, 1, 1], [0.3, 0.2, 0.1]),
            ([1], [-1.0]),
        ]),
        _case("weighted", "query weights 3, 1, 0.5 and 2; the weight-3 query has no relevant "
              "document", [
            ([0, 0, 0], [0.3, 0.2, 0.1]),
            ([1, 0], [0.1, 0.9]),
            ([0, 0, 1, 1], [0.4, 0.3, 0.2, 0.1]),
            ([1, 0, 1], [0.5, 0.6, 0.7]),
        ], weights=[3.0, 1.0, 0.5, 2.0]),
        _case("long_lists", "40, 45 and 50 documents; relevant at ranks {35}, "
              "{1, 5, 20, 33, 40}, {2, 3, 4, 6, 9, 12, 31, 32, 33, 34, 48, 50}", [
            _long_query(40, [35], 17),
            _long_query(45, [1, 5, 20, 33, 40], 17),
            _long_query(50, [2, 3, 4, 6, 9, 12, 31, 32, 33, 34, 48, 50], 17),
        ]),
    ]


def cases_arrays(cases: list[Case]) -> dict[str, NDArray[np.generic]]:
    """The cases as the probe's ``.npz`` arrays (``<case>__labels`` and so on)."""
    out: dict[str, NDArray[np.generic]] = {}
    for c in cases:
        out[f"{c.name}__labels"] = c.labels
        out[f"{c.name}__scores"] = c.scores
        out[f"{c.name}__group"] = c.group
        if c.weights is not None:
            out[f"{c.name}__weights"] = c.weights
    return out
