"""What an evaluation returns: the means, the diagnostics, the per-query table, the profile."""

from __future__ import annotations

from collections.abc import Iterator, KeysView
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from bench.data.equality import same_value
from bench.metrics.diagnostics import Diagnostics
from bench.metrics.profiles import Profile

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True, eq=False)
class EvaluationResult:
    """What :func:`evaluate` returns.

    Attributes:
        metrics: metric -> mean over queries (NaN when no query has a value), keyed by the
            user's own spelling of each name (``"recip_rank"``, ``"nDCG@10"``, ``"AP"``).
        diagnostics: :class:`Diagnostics` (``.as_dict()`` for JSON).
        per_query: DataFrame with ``qid`` then one column per metric (``None`` unless asked).
        profile: the call's :class:`Profile`.
        metric_profiles: metric -> the name of the profile it was computed under (a peer
            name's or ``PROFILE:NAME``'s own, with overrides: ``trec_eval-c+relevance_threshold=2.0``);
            empty: every metric under :attr:`profile`.
        metric_queries: with ``per_query``, metric -> the query ids it was computed on (metrics
            of different profiles may score different queries: ``missing="zero"``).
        metric_weights: with ``per_query``, metric -> each query's weight in the metric's mean
            (rows of :attr:`per_query`), for the families whose mean is not the plain one
            (GAUC's documents, ARP's and OPA's denominators: ``Family.weight``); a metric
            without an entry is averaged plainly (or summed / geometric: ``Family.mean``).
        metric_n_queries: metric -> how many queries its mean is taken over: the queries it
            has a value on (a blank query the profile leaves out, ``empty=None``, is not
            counted; a qrels query without a run line is counted where the profile scores it
            0); empty: every metric on :attr:`n_queries`.
    """

    metrics: dict[str, float]
    diagnostics: Diagnostics
    per_query: pd.DataFrame | None
    profile: Profile
    metric_profiles: dict[str, str] = field(default_factory=dict)
    metric_queries: dict[str, NDArray[Any]] | None = None
    metric_n_queries: dict[str, int] = field(default_factory=dict)
    metric_weights: dict[str, NDArray[np.float64]] = field(default_factory=dict)

    def __eq__(self, other: object) -> bool:
        """The same means, diagnostics, per-query table and profiles (NaN equal to NaN:
        :func:`bench.data.equality.same_value`); the generated ``__eq__`` raised ``ValueError``
        on the per-query DataFrame."""
        if not isinstance(other, EvaluationResult):
            return NotImplemented
        return same_value(self, other)

    __hash__ = None  # type: ignore[assignment]  # mutable fields: as a dict, not hashable

    def __len__(self) -> int:
        """How many metrics it holds (``len(result) == len(result.metrics)``, as a mapping)."""
        return len(self.metrics)

    def __getitem__(self, metric: str) -> float:
        """``result["nDCG@10"]``: the mean of a metric, by the spelling it was asked with."""
        try:  # 'ndcg@10 ' was asked as ndcg@10: blanks around a name are not part of it
            return self.metrics[metric if metric in self.metrics else str(metric).strip()]
        except KeyError:
            raise KeyError(f"{metric!r} is not a metric of this result (its metrics, as they were "
                           f"spelled: {', '.join(self.metrics)})") from None

    def __contains__(self, metric: object) -> bool:
        """``"nDCG@10" in result``: whether ``result[metric]`` holds a mean (the same spellings,
        blanks around a name aside). Without it Python's fallback asked ``result[0]``, and the
        test ended in ``KeyError: 0 is not a metric``."""
        return isinstance(metric, str) and (metric in self.metrics
                                            or metric.strip() in self.metrics)

    def __iter__(self) -> Iterator[str]:
        """The metrics' names, as they were spelled (``dict(result)`` is :attr:`metrics`)."""
        return iter(self.metrics)

    def keys(self) -> KeysView[str]:
        """The metrics' names, as they were spelled (the keys of :attr:`metrics`)."""
        return self.metrics.keys()

    def get(self, metric: str, default: float | None = None) -> float | None:
        """``result[metric]``, else ``default`` (as a dict's ``get``)."""
        if metric not in self:
            return default
        return self[metric]

    def profile_of(self, metric: str) -> str:
        """The name of the profile ``metric`` (a key of :attr:`metrics`) was computed under."""
        return self.metric_profiles.get(metric, self.profile.name)

    @property
    def n_queries(self) -> int:
        return self.diagnostics.n_queries

    def as_dict(self) -> dict[str, object]:
        """``{"profile", "n_queries", "metrics", "metric_profiles", "metric_n_queries",
        "diagnostics"}`` (the CLI's JSON shape; the profile of every metric and the number of
        queries it was computed on)."""
        return {
            "profile": self.profile.name,
            "n_queries": self.n_queries,
            "metrics": {k: (None if np.isnan(v) else v) for k, v in self.metrics.items()},
            "metric_profiles": {k: self.profile_of(k) for k in self.metrics},
            "metric_n_queries": {k: self.metric_n_queries.get(k, self.n_queries)
                                 for k in self.metrics},
            "diagnostics": self.diagnostics.as_dict(),
        }


__all__ = ["EvaluationResult"]
