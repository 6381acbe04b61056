"""Ratings -> LETOR: leakage-free splits, sampled negatives, graded labels, history features.

- :class:`AdapterConfig` (:mod:`bench.adapters.config`): every choice, with documented defaults.
- :func:`ratings_to_letor` (:mod:`bench.adapters.pipeline`): a :class:`~bench.data.ratings.Ratings`
  table to :class:`~bench.data.letor.LetorSplits` (one query per user and partition).
- :func:`convert` (:mod:`bench.adapters.convert`): the same, written to disk as SVMlight
  (+ ``.query``) and Parquet, returning a summary.

The pieces, one job each: :mod:`~bench.adapters.table` (ids -> codes, order by user and time),
:mod:`~bench.adapters.splits` (roles: history / train / vali / test targets, and the history
rule), :mod:`~bench.adapters.negatives` (candidate lists), :mod:`~bench.adapters.labels`
(rating -> grade), :mod:`~bench.adapters.features` (feature groups, assembled from
:mod:`~bench.adapters.genres`, :mod:`~bench.adapters.svd`, :mod:`~bench.adapters.similarity`,
:mod:`~bench.adapters.als` and :mod:`~bench.adapters.tags`).
"""

from bench.adapters.config import AdapterConfig
from bench.adapters.convert import convert
from bench.adapters.pipeline import ratings_to_letor

__all__ = ["AdapterConfig", "convert", "ratings_to_letor"]
