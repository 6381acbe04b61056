"""Features of (user, candidate item) rows, every one computed from the history only.

Groups (``AdapterConfig.feature_groups``), in column order; ``u`` is the query's user, ``i``
the candidate item, ``H_u`` the user's history ratings, ``H^i`` the item's, ``T`` the reference
time (:mod:`bench.adapters.splits`), ``C`` the mean history rating:

``user``
    ``user_count`` = |H_u|; ``user_mean`` = mean rating in H_u; ``user_std`` = population
    standard deviation (ddof 0) of those ratings; ``user_recency_days`` = (T - time of the
    user's latest history rating) / 86400.
``item``
    ``item_count`` = |H^i|; ``item_log_count`` = log(1 + |H^i|); ``item_mean`` = mean rating in
    H^i (C when empty); ``item_bayes_mean`` = (sum of H^i ratings + m C) / (|H^i| + m) with
    ``m = bayes_prior`` (the IMDb-style Bayesian average); ``item_age_days`` = (T - time of the
    item's first history rating) / 86400 (0 when it has none); with item years,
    ``item_release_age_years`` = (calendar year of T) - release year, 0 for an item of T's
    year or later (a later year is known only later, and would read as -1), -1 when unknown.
``genre`` (:mod:`bench.adapters.genres`)
    user-genre affinity: ``genre_share``, ``genre_mean_rating``.
``svd`` (:mod:`bench.adapters.svd`)
    ``svd_score``: PureSVD (Cremonesi, Koren & Turrin 2010), the rank-k reconstruction of the
    user's history row.
``similarity`` (:mod:`bench.adapters.similarity`)
    item-item similarity of i to the user's recent history items: cosine, Euclidean-based,
    Jaccard, Pearson; max and mean of each.
``als`` (:mod:`bench.adapters.als`, optional)
    ``als_score``: implicit ALS (Hu, Koren & Volinsky 2008) preference.
``tags`` (:mod:`bench.adapters.tags`)
    ``tag_item_count``, ``tag_user_count``: history tags on the item / by the user.

Groups the data cannot support are skipped and named in ``meta["features_skipped"]``:
``genre`` without item genres, ``tags`` without a tags table. Every column is float32 with
no NaN or infinity.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from bench.adapters.history import SECONDS_PER_DAY, History
from bench.adapters.metadata import calendar_year
from bench.adapters.negatives import Candidates

Columns = list[NDArray[np.floating]]


@dataclass(frozen=True, eq=False)
class FeatureGroup:
    """A fitted feature group: its column names and how to compute them for candidate rows."""

    name: str
    names: tuple[str, ...]
    transform: Callable[[Candidates], Columns]


def user_group(h: History) -> FeatureGroup:
    """``user_count``, ``user_mean``, ``user_std``, ``user_recency_days`` (module docstring)."""
    st = h.user_stats
    cnt = st.count
    has = cnt > 0
    safe = np.where(has, cnt, 1.0)
    mean = np.where(has, st.total / safe, h.global_mean)
    std = np.sqrt(np.maximum(np.where(has, st.squares / safe - mean * mean, 0.0), 0.0))
    last = np.where(has, st.last, h.reference_time)
    recency = (h.reference_time - last) / SECONDS_PER_DAY

    def transform(c: Candidates) -> Columns:
        u = c.user
        return [cnt[u], mean[u], std[u], recency[u]]

    return FeatureGroup("user", ("user_count", "user_mean", "user_std", "user_recency_days"),
                        transform)


def item_group(h: History, *, bayes_prior: float,
               years: NDArray[np.float64] | None) -> FeatureGroup:
    """Item popularity, mean, Bayesian average, age (module docstring)."""
    st = h.item_stats
    cnt, s = st.count, st.total
    gm = h.global_mean
    has = cnt > 0
    mean = np.where(has, s / np.where(has, cnt, 1.0), gm)
    denom = cnt + bayes_prior
    bayes = np.where(denom > 0, (s + bayes_prior * gm) / np.where(denom > 0, denom, 1.0), gm)
    first = np.where(has, st.first, h.reference_time)
    age = (h.reference_time - first) / SECONDS_PER_DAY
    cols = [cnt, np.log1p(cnt), mean, bayes, age]
    names = ["item_count", "item_log_count", "item_mean", "item_bayes_mean", "item_age_days"]
    if years is not None:
        ref_year = calendar_year(h.reference_time)
        cols.append(np.where(np.isfinite(years), np.maximum(ref_year - years, 0.0), -1.0))
        names.append("item_release_age_years")

    def transform(c: Candidates) -> Columns:
        i = c.item
        return [col[i] for col in cols]

    return FeatureGroup("item", tuple(names), transform)


#: Rows per block when assembling the matrix: a block of the row-major result this size
#: stays in cache while the groups fill its columns one after the other.
BLOCK_ROWS = 1 << 18


def feature_matrix(groups: Sequence[FeatureGroup], cand: Candidates, *,
                   timings: dict[str, float] | None = None
                   ) -> tuple[NDArray[np.float32], tuple[str, ...]]:
    """The C-ordered float32 matrix of all groups' columns for ``cand``, and the names.

    Rows are processed in blocks of whole queries (about ``BLOCK_ROWS`` rows, so that the
    block stays in cache while each group writes its columns into it). ``timings`` (if given)
    accumulates seconds per group under ``"features:<group>"``.
    """
    names = tuple(n for g in groups for n in g.names)
    X = np.empty((cand.n_rows, len(names)), dtype=np.float32)
    if cand.n_rows == 0:
        return X, names
    clock = timings if timings is not None else {}
    starts = np.searchsorted(cand.offsets, np.arange(0, cand.n_rows, BLOCK_ROWS), side="right") - 1
    bounds = np.unique(np.r_[starts, cand.offsets.shape[0] - 1])
    for q0, q1 in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        block = cand.block(q0, q1)
        a = int(cand.offsets[q0])
        view = X[a: a + block.n_rows]
        j = 0
        for g in groups:
            t0 = time.perf_counter()
            cols = g.transform(block)
            if len(cols) != len(g.names):  # pragma: no cover - programming error
                raise RuntimeError(f"feature group {g.name} gave {len(cols)} columns for {g.names}")
            for col in cols:
                view[:, j] = col
                j += 1
            key = f"features:{g.name}"
            clock[key] = clock.get(key, 0.0) + time.perf_counter() - t0
    return X, names
