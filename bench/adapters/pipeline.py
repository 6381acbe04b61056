"""``ratings_to_letor``: ratings -> train / validation / test LETOR matrices, leakage-free.

Stages (each timed into ``meta["timings_s"]``): encode and order the ratings
(:mod:`~bench.adapters.table`), give every rating a role (:mod:`~bench.adapters.splits`), fit
the feature groups on the history only (:mod:`~bench.adapters.features`), then per partition
sample the candidates (:mod:`~bench.adapters.negatives`), compute the feature matrix and grade
the targets (:mod:`~bench.adapters.labels`).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray
from threadpoolctl import threadpool_limits

from bench.adapters.config import AdapterConfig
from bench.adapters.features import FeatureGroup, feature_matrix, item_group, user_group
from bench.adapters.history import History, history_of
from bench.adapters.labels import check_ratings, grade, max_grade
from bench.adapters.metadata import ItemGenres, item_genres, item_years
from bench.adapters.negatives import sample_candidates
from bench.adapters.splits import PARTITIONS, Split, no_queries_message, split_ratings
from bench.adapters.table import RatingsTable, build_table
from bench.data.letor import LetorData, LetorSplits
from bench.data.ratings import Ratings, TimeUnitWarning, as_ratings, seconds_unit_note
from bench.errors import ConfigError, DataError
from bench.machine import unpinned_kernels_note

if TYPE_CHECKING:
    from bench.adapters.svd import SVDFactors


class _Timer:
    """Wall-clock seconds per stage (and process CPU seconds, all threads, in ``cpu``)."""

    def __init__(self, say: Callable[[str], None] | None = None) -> None:
        self.seconds: dict[str, float] = {}
        self.cpu: dict[str, float] = {}
        self.say = say

    @contextmanager
    def __call__(self, stage: str, shown: str | None = None) -> Iterator[None]:
        if self.say is not None:
            self.say(shown or stage)
        t0 = time.perf_counter()
        c0 = time.process_time()
        try:
            yield
        finally:
            self.seconds[stage] = self.seconds.get(stage, 0.0) + time.perf_counter() - t0
            self.cpu[stage] = self.cpu.get(stage, 0.0) + time.process_time() - c0


def ratings_to_letor(ratings: Ratings, config: AdapterConfig | None = None, *,
                     progress: Callable[[str], None] | None = None) -> LetorSplits:
    """Convert a ratings table to query-grouped LETOR splits (one query per user and partition).

    ``ratings`` is a :class:`~bench.data.ratings.Ratings`, or a pandas DataFrame (or pyarrow
    Table) with its columns, checked as ``Ratings(frame)`` (:func:`bench.data.ratings.as_ratings`).

    Features are computed from the history only (ratings in no target window; see
    :mod:`bench.adapters.splits` for the history rule), each query holds the user's targets of
    its partition plus ``config.negatives`` sampled never-rated items (label 0; one pool per
    user dealt across the partitions, so no (user, item) negative is in two of them: see
    :mod:`bench.adapters.negatives` for a user with too few unrated items), and labels
    follow ``config.labels`` (:mod:`bench.adapters.labels`). ``qid`` and ``user`` are the
    original user ids; ``item`` the original item ids.

    Raises :class:`DataError` when a partition ends up without queries (too few ratings per
    user for the windows, or time cuts outside the data). ``progress(stage)`` is called as each
    stage starts (``table``, ``split``, ``fit:svd``, ``negatives (train)`` ...).
    """
    ratings = as_ratings(ratings)  # a DataFrame is checked as Ratings(frame); another type named
    config = config if config is not None else AdapterConfig()
    if not isinstance(config, AdapterConfig):
        raise ConfigError(f"config: got a {type(config).__name__}: expected a "
                          "bench.adapters.config.AdapterConfig (e.g. AdapterConfig(split='random'))")
    _say_unpinned_kernels()
    # The compiled kernels spread the work over the cores themselves; BLAS calls inside them
    # (and the small dense steps of the SVD) run single-threaded instead of fighting them.
    with threadpool_limits(1, user_api="blas"):
        return _convert(ratings, config, progress)


_SAID_KERNELS: list[str] = []


def _say_unpinned_kernels() -> None:
    """Warn once per process when its BLAS kernels are not the command line's
    (:func:`bench.machine.unpinned_kernels_note`: a notebook on an AVX-512 machine)."""
    if not _SAID_KERNELS and (note := unpinned_kernels_note()) is not None:
        _SAID_KERNELS.append(note)
        warnings.warn(note, stacklevel=3)


def _convert(ratings: Ratings, config: AdapterConfig,
             progress: Callable[[str], None] | None) -> LetorSplits:
    timer = _Timer(progress)
    source = ratings.source or "ratings"
    check_ratings(ratings.frame["rating"].to_numpy(), config.labels, source=ratings.source,
                  binary_threshold=config.binary_threshold, where=ratings.where)
    with timer("table"):
        table = build_table(ratings.frame)
    note = seconds_unit_note(int(table.timestamp.min()), int(table.timestamp.max()))
    if note is not None:
        warnings.warn(f"{source}: {note}", TimeUnitWarning, stacklevel=3)
    with timer("split"):
        split = split_ratings(table, config)
        hist = history_of(table, split)
    groups, skipped = _fit_groups(ratings, table, split, hist, config, timer)
    item_weight = hist.item_counts().astype(np.float64) + 1.0
    parts: dict[str, LetorData] = {}
    candidates_meta: dict[str, object] = {}
    for name, code in PARTITIONS.items():
        with timer("negatives", f"negatives ({name})"):
            cand = sample_candidates(table, split.role, code, negatives=config.negatives,
                                     sampling=config.negative_sampling, item_weight=item_weight,
                                     seed=config.seed)
        if cand.offsets.shape[0] <= 1:
            span = (int(table.timestamp.min()), int(table.timestamp.max()))
            raise DataError(no_queries_message(name, config, split.meta.get("time_cuts"), span),
                            path=ratings.source or None)
        _warn_without_negatives(name, cand.is_target, cand.offsets, source)
        with timer("features", f"features ({name})"):
            X, names = feature_matrix(groups, cand, timings=timer.seconds)
        with timer("labels", f"labels ({name})"):
            y = grade(cand.rating, config.labels, binary_threshold=config.binary_threshold)
            _check_relevant(name, y, cand.rating, config, ratings.source)
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


def _check_relevant(name: str, y: NDArray[np.float64], rating: NDArray[np.float64],
                    config: AdapterConfig, source: str) -> None:
    """Refuse a partition in which no row is relevant (every grade 0): every metric of it would
    be 0 or blank, a number that says nothing (``labels='binary'`` with a threshold above every
    rating, ``labels='liked'`` on ratings all below 3)."""
    if y.size == 0 or float(y.max()) > 0:
        return
    targets = rating[~np.isnan(rating)]
    top = f"; the highest target rating is {float(targets.max())!r}" if targets.size else ""
    rule = (f"labels='binary' grades 1 from binary_threshold {config.binary_threshold!r}"
            if config.labels == "binary" else f"labels={config.labels!r}")
    raise DataError(f"the {name} partition has no relevant row: {rule} grades every target 0"
                    f"{top}; choose another label mapping or threshold", path=source or None)


class CandidatesWarning(UserWarning):
    """Queries whose candidates cannot rank anything (no never-rated item left to sample)."""


def _warn_without_negatives(name: str, is_target: NDArray[np.bool_], offsets: NDArray[np.int64],
                            source: str) -> None:
    """Warn of queries without one sampled negative (their users rated every item, or the few
    items they did not rate went to the other partitions): such a query ranks its targets only,
    so every metric of it is at its best whatever the scores."""
    negatives = np.add.reduceat((~is_target).astype(np.int64), offsets[:-1])
    empty = int((negatives == 0).sum())
    if empty:
        warnings.warn(f"{source}: {empty:,} of {negatives.shape[0]:,} {name} queries have no "
                      "never-rated item to sample as a negative (their users rated every item, "
                      "or the items left went to the other partitions): such a query holds its "
                      "targets only and scores the best value of every metric whatever the "
                      "model", CandidatesWarning, stacklevel=4)


@dataclass(frozen=True, eq=False)
class CatalogueModels:
    """What the feature groups need beyond the users' own history, fitted once on the whole
    history: item metadata, the SVDs, the ALS group, the history tag applications, and which
    groups the data cannot support (with the reason)."""

    years: NDArray[np.float64] | None = None
    genres: ItemGenres | None = None
    ratings_svd: SVDFactors | None = None
    pattern_svd: SVDFactors | None = None
    als: FeatureGroup | None = None
    tags: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None
    skipped: dict[str, str] = field(default_factory=dict)


def feature_groups(hist: History, models: CatalogueModels,
                   config: AdapterConfig) -> list[FeatureGroup]:
    """The feature groups of ``config`` (in :data:`~bench.adapters.config.FEATURE_GROUPS`
    order) over ``hist``, with the whole-history ``models``."""
    wanted = set(config.feature_groups)
    groups: list[FeatureGroup] = []
    if "user" in wanted:
        groups.append(user_group(hist))
    if "item" in wanted:
        groups.append(item_group(hist, bayes_prior=config.bayes_prior, years=models.years))
    if "genre" in wanted and models.genres is not None:
        from bench.adapters.genres import genre_group

        groups.append(genre_group(hist, models.genres))
    if "svd" in wanted and models.ratings_svd is not None:
        from bench.adapters.svd import svd_group

        groups.append(svd_group(hist, models.ratings_svd))
    if "similarity" in wanted and models.ratings_svd is not None \
            and models.pattern_svd is not None:
        from bench.adapters.similarity import similarity_group

        groups.append(similarity_group(hist, models.ratings_svd, models.pattern_svd,
                                       recent=config.similarity_history))
    if models.als is not None:
        groups.append(models.als)
    if "tags" in wanted and models.tags is not None:
        from bench.adapters.tags import tags_group

        groups.append(tags_group(models.tags[0], models.tags[1], hist.n_users, hist.n_items))
    return groups


def _fit_groups(ratings: Ratings, table: RatingsTable, split: Split, hist: History,
                config: AdapterConfig, timer: _Timer) -> tuple[list[FeatureGroup], dict[str, str]]:
    wanted = set(config.feature_groups)
    skipped: dict[str, str] = {}
    years = genres = ratings_svd = pattern_svd = als = tags = None
    if "item" in wanted:
        years = item_years(ratings.items, table.item_ids)
    if "genre" in wanted:
        with timer("fit:genre"):
            genres = item_genres(ratings.items, table.item_ids)
            if genres is None:
                skipped["genre"] = "no item genres in the data"
    if "svd" in wanted or "similarity" in wanted:
        from bench.adapters.svd import history_matrices, on_rows, truncated_svd

        rows = hist.rows_with_history()  # users without history are no row of the models
        with timer("fit:svd"):
            R, B = history_matrices(hist.indptr, hist.item, hist.rating, hist.n_items)
            if rows.shape[0] < hist.n_users:
                R, B = R[rows], B[rows]
            ratings_svd = on_rows(truncated_svd(R, config.svd_factors, seed=config.seed), rows,
                                  hist.n_users)
            del R
        if "similarity" in wanted:
            with timer("fit:similarity"):
                pattern_svd = on_rows(truncated_svd(B, config.svd_factors, seed=config.seed + 1),
                                      rows, hist.n_users)
        del B
    if "als" in wanted:
        from bench.adapters.als import als_group

        with timer("fit:als"):
            als = als_group(hist, config)
    if "tags" in wanted:
        with timer("fit:tags"):
            if ratings.tags is None or ratings.tags.empty:
                skipped["tags"] = "no tags table in the data"
            else:
                from bench.adapters.tags import history_tags

                tags = history_tags(ratings.tags, table, split)
    models = CatalogueModels(years=years, genres=genres, ratings_svd=ratings_svd,
                             pattern_svd=pattern_svd, als=als, tags=tags, skipped=skipped)
    with timer("fit:groups"):
        return feature_groups(hist, models, config), skipped
