"""Values over seeds: the mean per group summed in value order, the per-query matrix of models
averaged over seeds, and a column's statistics over seeds (the leaderboards' cells).

A mean over seeds adds a group's values in ascending order, so the same values in another seed
order give the same mean (round 17: a model whose seeds scored 0.1, 0.2, 0.3 and one whose
seeds scored 0.3, 0.2, 0.1 differed in the last bit, and a table ranked and tested them as
different); one sort and one ``reduceat`` over every group at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from bench.data.jsonio import json_number
from bench.report import stats
from bench.report.table import SeedStats


def seed_key(seed: Any) -> str:
    try:
        return str(int(seed))
    except (TypeError, ValueError):
        return str(seed)


def seed_list(values: Iterable[Any]) -> list[int | str]:
    """Distinct seeds, as ints where they are integers, sorted."""
    out: set[int | str] = set()
    for v in values:
        key = seed_key(v)
        out.add(int(key) if key.lstrip("-").isdigit() else key)
    return sorted(out, key=lambda s: (isinstance(s, str), s if isinstance(s, int) else 0, str(s)))


def seed_means(frame: pd.DataFrame, keys: list[str], value: str = "value") -> pd.Series:
    """``frame``'s ``value`` averaged per ``keys`` (over seeds), each group summed in ascending
    order of its values: the same values in another seed order give the same mean (a model whose
    seeds scored 0.1, 0.2, 0.3 and one whose seeds scored 0.3, 0.2, 0.1 differed in the last bit,
    and the table ranked and tested them as different). Vectorized: one sort, one groupby."""
    grouped = frame.groupby(keys, sort=True)[value]
    codes = grouped.ngroup().to_numpy()
    v = frame[value].to_numpy(dtype=np.float64)
    keep = codes >= 0  # a row whose key is missing is in no group, as groupby drops it
    v, codes = v[keep], codes[keep]
    if not v.size:
        return grouped.mean()
    order = np.lexsort((v, codes))  # by group, then by value: NumPy sorts, no frame copy
    v, codes = v[order], codes[order]
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    has = ~np.isnan(v)
    sums = np.add.reduceat(np.where(has, v, 0.0), starts)
    counts = np.add.reduceat(has.astype(np.int64), starts)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    return pd.Series(means, index=grouped.size().index, name=value)


def per_query_matrix(
    pq: pd.DataFrame, metric: str, models: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """(n_models, n_queries) per-query values averaged over seeds, and the qids (columns)."""
    sub = pq[pq["metric"].astype(str) == metric]
    if sub.empty:
        return np.full((len(models), 0), np.nan), np.zeros(0)
    means = seed_means(sub, ["model", "qid"])
    wide = means.unstack("qid").reindex([str(m) for m in models])
    return wide.to_numpy(dtype=np.float64), wide.columns.to_numpy()


def seed_stats(frame: pd.DataFrame, value: str = "value") -> SeedStats:
    """A column over seeds (one value per seed, the mean of its rows; NaN ignored)."""
    series = seed_means(frame, ["seed"], value)
    mean, std = stats.mean_std(series.to_numpy(dtype=np.float64))
    per_seed = {seed_key(s): json_number(v) for s, v in series.items()}
    return SeedStats(json_number(mean), json_number(std), per_seed)


__all__ = ["per_query_matrix", "seed_key", "seed_list", "seed_means", "seed_stats"]
