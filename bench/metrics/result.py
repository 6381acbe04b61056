"""What an evaluation returns: the means, the diagnostics, the per-query table, the profile."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from bench.metrics.diagnostics import Diagnostics
from bench.metrics.profiles import Profile


@dataclass(frozen=True)
class EvaluationResult:
    """What :func:`evaluate` returns.

    Attributes:
        metrics: metric name -> mean over queries (NaN when no query has a value).
        diagnostics: :class:`Diagnostics` (``.as_dict()`` for JSON).
        per_query: DataFrame with ``qid`` then one column per metric (``None`` unless asked).
        profile: the :class:`Profile` used.
    """

    metrics: dict[str, float]
    diagnostics: Diagnostics
    per_query: pd.DataFrame | None
    profile: Profile

    @property
    def n_queries(self) -> int:
        return self.diagnostics.n_queries

    def as_dict(self) -> dict[str, object]:
        """``{"profile", "n_queries", "metrics", "diagnostics"}`` (the CLI's JSON shape)."""
        return {
            "profile": self.profile.name,
            "n_queries": self.n_queries,
            "metrics": {k: (None if np.isnan(v) else v) for k, v in self.metrics.items()},
            "diagnostics": self.diagnostics.as_dict(),
        }


__all__ = ["EvaluationResult"]
