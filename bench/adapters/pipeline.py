"""``ratings_to_letor``: ratings -> train / validation / test LETOR matrices, leakage-free.

Stages (each timed into ``meta["timings_s"]``): encode and order the ratings
(:mod:`~bench.adapters.table`), give every rating a role (:mod:`~bench.adapters.splits`), fit
the feature groups on the history only (:mod:`~bench.adapters.features`), then per partition
sample the candidates (:mod:`~bench.adapters.negatives`), compute the feature matrix and grade
the targets (:mod:`~bench.adapters.labels`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
from threadpoolctl import threadpool_limits

from bench.adapters.config import AdapterConfig
from bench.adapters.features import FeatureGroup, feature_matrix, item_group, user_group
from bench.adapters.history import History, history_of
from bench.adapters.labels import check_ratings, grade, max_grade
from bench.adapters.metadata import item_genres, item_years
from bench.adapters.negatives import sample_candidates
from bench.adapters.splits import PARTITIONS, Split, split_ratings
from bench.adapters.table import RatingsTable, build_table
from bench.data.letor import LetorData, LetorSplits
from bench.data.ratings import Ratings
from bench.errors import DataError


class _Timer:
    """Wall-clock seconds per stage (and process CPU seconds, all threads, in ``cpu``)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.cpu: dict[str, float] = {}

    @contextmanager
    def __call__(self, stage: str) -> Iterator[None]:
        t0 = time.perf_counter()
        c0 = time.process_time()
        try:
            yield
        finally:
            self.seconds[stage] = self.seconds.get(stage, 0.0) + time.perf_counter() - t0
            self.cpu[stage] = self.cpu.get(stage, 0.0) + time.process_time() - c0


def ratings_to_letor(ratings: Ratings, config: AdapterConfig | None = None) -> LetorSplits:
    """Convert a ratings table to query-grouped LETOR splits (one query per user and partition).

    Features are computed from the history only (ratings in no target window; see
    :mod:`bench.adapters.splits` for the history rule), each query holds the user's targets of
    its partition plus ``config.negatives`` sampled never-rated items (label 0), and labels
    follow ``config.labels`` (:mod:`bench.adapters.labels`). ``qid`` and ``user`` are the
    original user ids; ``item`` the original item ids.

    Raises :class:`DataError` when a partition ends up without queries (too few ratings per
    user for the windows, or time cuts outside the data).
    """
    config = config if config is not None else AdapterConfig()
    # The compiled kernels spread the work over the cores themselves; BLAS calls inside them
    # (and the small dense steps of the SVD) run single-threaded instead of fighting them.
    with threadpool_limits(1, user_api="blas"):
        return _convert(ratings, config)


def _convert(ratings: Ratings, config: AdapterConfig) -> LetorSplits:
    timer = _Timer()
    source = ratings.source or "ratings"
    check_ratings(ratings.frame["rating"].to_numpy(), config.labels, source=ratings.source)
    with timer("table"):
        table = build_table(ratings.frame)
    with timer("split"):
        split = split_ratings(table, config)
        hist = history_of(table, split)
    groups, skipped = _fit_groups(ratings, table, split, hist, config, timer)
    item_weight = hist.item_counts().astype(np.float64) + 1.0
    parts: dict[str, LetorData] = {}
    candidates_meta: dict[str, object] = {}
    for name, code in PARTITIONS.items():
        with timer("negatives"):
            cand = sample_candidates(table, split.role, code, negatives=config.negatives,
                                     sampling=config.negative_sampling, item_weight=item_weight,
                                     seed=config.seed)
        if cand.offsets.shape[0] <= 1:
            raise DataError(
                f"the {name} partition has no queries (split={config.split!r}, "
                f"target_size={config.target_size}, min_history={config.min_history}); "
                "users need more ratings, or choose a smaller target_size / other time cuts",
                path=ratings.source or None,
            )
        with timer("features"):
            X, names = feature_matrix(groups, cand, timings=timer.seconds)
        with timer("labels"):
            y = grade(cand.rating, config.labels, binary_threshold=config.binary_threshold)
            users = table.user_ids[cand.user]
            parts[name] = LetorData(
                X=X, y=y, qid=users, offsets=cand.offsets, feature_names=names, user=users,
                item=table.item_ids[cand.item], source=f"{source}:{name}",
                meta={"partition": name, "split": config.split, "labels": config.labels},
            )
        candidates_meta[name] = {
            "queries": int(cand.offsets.shape[0] - 1),
            "targets": int(cand.is_target.sum()),
            "negatives": int((~cand.is_target).sum()),
        }
    meta: dict[str, object] = {
        "adapter": config.as_dict(),
        **split.meta,
        "max_label": max_grade(config.labels),
        "feature_groups": [g.name for g in groups],
        "features_skipped": skipped,
        "candidates": candidates_meta,
        "ratings": {"rows": table.n, "users": table.n_users, "items": table.n_items},
        "timings_s": {k: round(v, 4) for k, v in timer.seconds.items()},
        "timings_cpu_s": {k: round(v, 4) for k, v in timer.cpu.items()},
    }
    return LetorSplits(name=source, train=parts["train"], vali=parts["vali"], test=parts["test"],
                       inputs=dict(ratings.sha256), meta=meta)


def _fit_groups(ratings: Ratings, table: RatingsTable, split: Split, hist: History,
                config: AdapterConfig, timer: _Timer) -> tuple[list[FeatureGroup], dict[str, str]]:
    wanted = set(config.feature_groups)
    groups: list[FeatureGroup] = []
    skipped: dict[str, str] = {}
    if "user" in wanted:
        with timer("fit:user"):
            groups.append(user_group(hist))
    if "item" in wanted:
        with timer("fit:item"):
            years = item_years(ratings.items, table.item_ids)
            groups.append(item_group(hist, bayes_prior=config.bayes_prior, years=years))
    if "genre" in wanted:
        with timer("fit:genre"):
            genres = item_genres(ratings.items, table.item_ids)
            if genres is None:
                skipped["genre"] = "no item genres in the data"
            else:
                from bench.adapters.genres import genre_group

                groups.append(genre_group(hist, genres))
    ratings_svd = None
    if "svd" in wanted or "similarity" in wanted:
        from bench.adapters.svd import history_matrices, svd_group, truncated_svd

        with timer("fit:svd"):
            R, B = history_matrices(hist.indptr, hist.item, hist.rating, hist.n_items)
            ratings_svd = truncated_svd(R, config.svd_factors, seed=config.seed)
            del R
        if "svd" in wanted:
            groups.append(svd_group(hist, ratings_svd))
        if "similarity" in wanted:
            from bench.adapters.similarity import similarity_group

            with timer("fit:similarity"):
                pattern_svd = truncated_svd(B, config.svd_factors, seed=config.seed + 1)
                groups.append(similarity_group(hist, ratings_svd, pattern_svd,
                                               recent=config.similarity_history))
        del B
    if "als" in wanted:
        from bench.adapters.als import als_group

        with timer("fit:als"):
            groups.append(als_group(hist, config))
    if "tags" in wanted:
        with timer("fit:tags"):
            if ratings.tags is None or ratings.tags.empty:
                skipped["tags"] = "no tags table in the data"
            else:
                from bench.adapters.tags import history_tags, tags_group

                tu, ti = history_tags(ratings.tags, table, split)
                groups.append(tags_group(tu, ti, table.n_users, table.n_items))
    return groups, skipped
