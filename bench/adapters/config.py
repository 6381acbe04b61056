"""``AdapterConfig``: every choice the ratings -> LETOR adapter makes, with its default.

The defaults give the embedded benchmark: a per-user temporal split (each user's 5 latest
ratings are test targets, the 5 before them validation targets, the 5 before those training
targets, everything earlier is history), 50 uniformly sampled unrated items per query as
negatives, graded labels 0-4 and every default feature group the data allows (all but
``als``, which costs more than the rest together at ML-25M size; add it by name).
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import asdict, dataclass

import numpy as np

from bench.adapters.labels import LABEL_MAPPINGS
from bench.errors import ConfigError

SPLITS = ("temporal", "time-cut", "random", "kfold")
NEGATIVE_SAMPLING = ("uniform", "popularity")
FEATURE_GROUPS = ("user", "item", "genre", "svd", "similarity", "als", "tags")
DEFAULT_FEATURE_GROUPS = ("user", "item", "genre", "svd", "similarity", "tags")

#: The version of the conversion rules, recorded as ``version`` in every conversion's
#: ``meta["adapter"]`` (a run manifest's ``dataset.meta``, ``convert``'s ``summary.json``, both
#: engines): raised whenever the same ratings and settings give other numbers, so that a
#: dataset made by older rules is told apart from a new one. 1: negatives drawn per partition
#: (a never-rated item could be a label-0 candidate of the same user in train and in test);
#: 2: one pool per user dealt disjointly to the partitions (:mod:`bench.adapters.negatives`);
#: 3: the whole-history models (SVDs, ALS, Pearson's user count) know the users with history
#: only, and a ``time-cut`` tag is history before ``c1`` whoever wrote it (``time-cut``
#: conversions with users who rate only after ``c1``, or with such tags, changed; the Dask
#: engine's ``time-cut`` reference time is ``c1``, as the local engine's); 4: an item released
#: after the reference year has release age 0 (it was negative, and -1 read as "unknown").
ADAPTER_VERSION = 4


@dataclass(frozen=True)
class AdapterConfig:
    """How ratings become query-grouped LETOR data (see :mod:`bench.adapters`).

    Split (:mod:`bench.adapters.splits`):
        split: ``"temporal"`` (per user, the latest ratings are targets), ``"time-cut"``
            (global time cuts), ``"random"`` (per user, random ratings are targets) or
            ``"kfold"`` (users in folds; each user's latest ratings are targets of the
            partition that holds the user).
        target_size: size of each target window per user: an integer ``n >= 1`` (the user's
            last / random ``n`` ratings) or a fraction ``0 < f < 1`` (``ceil(f * n_u)`` ratings).
            Not used by ``"time-cut"``.
        min_history: a user becomes a query only with at least this many history ratings
            (at least 1). Users below it keep all their ratings in history (``temporal``,
            ``random``, ``kfold``) or have no targets (``time-cut``).
        time_cuts: ``time-cut`` boundaries (Unix seconds) ``(c1, c2, c3)``: history is before
            ``c1``, train targets in ``[c1, c2)``, validation in ``[c2, c3)``, test from ``c3``.
            ``None`` takes the timestamp quantiles ``time_cut_quantiles``.
        time_cut_quantiles: default quantiles of all timestamps for the three cuts.
        n_folds, fold: ``kfold``: users are dealt into ``n_folds`` folds by a seeded
            permutation; fold ``fold`` is test, fold ``fold + 1`` (mod ``n_folds``) validation,
            the others train.

    Candidates (:mod:`bench.adapters.negatives`):
        negatives: unrated items sampled per query (relevance 0), dealt from one pool per
            user so that no item is a negative of the same user in two partitions; a user of
            ``k`` partitions with fewer than ``k * negatives`` unrated items gets each of them
            once, split evenly (:mod:`bench.adapters.negatives`).
        negative_sampling: ``"uniform"`` over items the user never rated, or ``"popularity"``
            (weight = history count + 1).

    Labels (:mod:`bench.adapters.labels`):
        labels: ``"graded"`` (default), ``"liked"``, ``"halfstar"``, ``"binary"``, ``"rated"``.
        binary_threshold: rating at or above which ``"binary"`` gives 1.

    Features (:mod:`bench.adapters.features`):
        feature_groups: which groups to compute, among :data:`FEATURE_GROUPS`; columns come
            in that order whatever the order given. Groups the data cannot support (``genre``
            without item genres, ``tags`` without a tags table) are skipped and recorded.
        svd_factors: rank ``k`` of the truncated SVDs behind ``svd`` and ``similarity``.
        similarity_history: item-item similarities are taken against the user's most recent
            ``similarity_history`` history items (0 = all of them).
        bayes_prior: weight ``m`` of the global mean in the Bayesian-average item rating.
        als_factors, als_iterations, als_regularization, als_alpha, als_cg_steps: implicit
            ALS (Hu, Koren & Volinsky 2008) for the optional ``als`` group.

    seed: every random choice (split, negatives, row order, SVD) derives from it.
    """

    split: str = "temporal"
    target_size: int | float = 5
    min_history: int = 5
    time_cuts: tuple[int, int, int] | None = None
    time_cut_quantiles: tuple[float, float, float] = (0.7, 0.8, 0.9)
    n_folds: int = 5
    fold: int = 0
    negatives: int = 50
    negative_sampling: str = "uniform"
    labels: str = "graded"
    binary_threshold: float = 4.0
    feature_groups: tuple[str, ...] = DEFAULT_FEATURE_GROUPS
    svd_factors: int = 32
    similarity_history: int = 10
    bayes_prior: float = 10.0
    als_factors: int = 32
    als_iterations: int = 8
    als_regularization: float = 0.1
    als_alpha: float = 10.0
    als_cg_steps: int = 3
    seed: int = 0

    def __post_init__(self) -> None:
        """Every field checked: its type (no ``True`` for a count, no ``nan`` threshold), its
        range (counts and the seed within a C ``int``, where the compiled kernels and NumPy's
        seeding need them), and that an option of one split or label mapping is not set for
        another, where it would be ignored without a word."""
        _one_of("split", self.split, SPLITS)
        _one_of("negative_sampling", self.negative_sampling, NEGATIVE_SAMPLING)
        _one_of("labels", self.labels, tuple(LABEL_MAPPINGS))
        if not self.feature_groups:
            raise ConfigError(f"feature_groups: no feature group given; choose among "
                              f"{', '.join(FEATURE_GROUPS)} (or 'all')")
        bad = [g for g in self.feature_groups if g not in FEATURE_GROUPS]
        if bad:
            raise ConfigError(
                f"unknown feature group(s) {bad}; valid groups: {', '.join(FEATURE_GROUPS)}"
            )
        ts = self.target_size
        if not (isinstance(ts, int | float) and not isinstance(ts, bool) and math.isfinite(ts)
                and 0 < ts <= INT_MAX and (ts < 1 or float(ts).is_integer())):
            raise ConfigError(key="target_size", detail=(
                f"{ts!r}: give a whole number of ratings (1 to {INT_MAX}) or a fraction in (0, 1)"))
        _at_least("min_history", self.min_history, 1)
        _at_least("negatives", self.negatives, 0)
        _at_least("n_folds", self.n_folds, 3)
        _at_least("fold", self.fold, 0)
        if not 0 <= self.fold < self.n_folds:
            raise ConfigError(key="fold", detail=f"{self.fold} must be in 0..{self.n_folds - 1}")
        _at_least("svd_factors", self.svd_factors, 1)
        _at_least("similarity_history", self.similarity_history, 0)
        _at_least("als_factors", self.als_factors, 1)
        _at_least("als_iterations", self.als_iterations, 1)
        _at_least("als_cg_steps", self.als_cg_steps, 1)
        _at_least("seed", self.seed, 0)
        for name in ("bayes_prior", "als_regularization", "als_alpha"):
            _finite(name, getattr(self, name), 0.0)
        _finite("binary_threshold", self.binary_threshold)
        q = self.time_cut_quantiles
        if len(q) != 3 or not 0 < q[0] < q[1] < q[2] < 1:
            raise ConfigError(key="time_cut_quantiles",
                              detail=f"{q!r}: need three increasing values in (0, 1)")
        if self.time_cuts is not None:  # kept as three Python ints: what every engine cuts at
            object.__setattr__(self, "time_cuts", time_cuts_seconds(self.time_cuts))
        self._check_applies()

    def _check_applies(self) -> None:
        """Refuse a setting of one split or label mapping given with another, where it would be
        ignored (``--binary-threshold 3 --labels graded``, ``--time-cuts`` with the temporal
        split): the conversion would not be the one asked for."""
        d = AdapterConfig.__dataclass_fields__
        unused = [  # (given, the key, what follows 'key=', the option it depends on)
            (self.binary_threshold != d["binary_threshold"].default and self.labels != "binary",
             "binary_threshold", f"{self.binary_threshold!r} applies to labels='binary'; "
             f"labels={self.labels!r} does not use it", "labels"),
            (self.time_cuts is not None and self.split != "time-cut",
             "time_cuts", f"{self.time_cuts!r} apply to split='time-cut'; split={self.split!r} "
             "does not use them", "split"),
            ((self.n_folds, self.fold) != (d["n_folds"].default, d["fold"].default)
             and self.split != "kfold", *(  # named by what was set: '--fold 1', not '--folds 5'
                 ("fold", f"{self.fold} applies to split='kfold'; split={self.split!r} does not "
                  "use it") if self.n_folds == d["n_folds"].default else
                 ("n_folds", f"{self.n_folds}, fold={self.fold} apply to split='kfold'; "
                  f"split={self.split!r} does not use them")), "split"),
            (tuple(self.time_cut_quantiles) != d["time_cut_quantiles"].default
             and (self.split != "time-cut" or self.time_cuts is not None),
             "time_cut_quantiles", f"{tuple(self.time_cut_quantiles)!r} place the cuts of "
             f"split='time-cut' when time_cuts is not given; " + (
                 f"split={self.split!r} does not use them" if self.split != "time-cut" else
                 f"time_cuts={self.time_cuts!r} are given"),
             "split" if self.split != "time-cut" else "time_cuts"),
            (self.target_size != d["target_size"].default and self.split == "time-cut",
             "target_size", f"{self.target_size!r} does not apply to split='time-cut' (its "
             "windows are the time cuts)", "split"),
        ]
        for given, key, why, other in unused:
            if given:
                raise ConfigError(key=key, detail=f"{why}: it would be ignored; leave it out or "
                                  f"change {other}")

    def window_size(self, n_ratings: int) -> int:
        """Ratings per target window for a user with ``n_ratings`` ratings."""
        if self.target_size < 1:
            # round() first so that e.g. 0.1 * 20 = 2.0000000000000004 gives 2, not 3.
            return math.ceil(round(self.target_size * n_ratings, 9))
        return int(self.target_size)

    def as_dict(self) -> dict[str, object]:
        """Plain-data view for manifests and ``meta``: the fields, plus ``version``
        (:data:`ADAPTER_VERSION`)."""
        return {**asdict(self), "version": ADAPTER_VERSION}


def time_cuts_seconds(value: object) -> tuple[int, int, int]:
    """``time_cuts`` as three increasing Python ints, Unix seconds within +-10^12 (the readers'
    range of timestamps): integers of any kind, or floats that are whole. Refused, naming
    what to give: a fraction (``int()`` would truncate ``1500.5`` to 1500 and move the
    ratings of that second across the cut), text, a bool, a date (``int()`` of a pandas
    Timestamp is nanoseconds, of ``numpy.datetime64('2015-01-01')`` days), infinity, and
    milli-, micro- or nanoseconds (named as such)."""
    from bench.data.tabular import MAX_SECONDS, epoch_unit

    items = None if isinstance(value, str | bytes | dict) or not hasattr(value, "__len__") \
        else list(value)  # type: ignore[call-overload]  # a tuple, list, array, Series
    if items is None or len(items) != 3:
        raise ConfigError(key="time_cuts", detail=f"{value!r}: need three increasing "
                          "timestamps c1 < c2 < c3 (Unix seconds)")
    cuts = []
    for c in items:
        whole = isinstance(c, int | np.integer) or (
            isinstance(c, float | np.floating) and math.isfinite(c) and float(c).is_integer())
        if isinstance(c, bool | np.bool_) or not whole:
            raise ConfigError(key="time_cuts", detail=f"{value!r}: {c!r} is no whole number of "
                              f"seconds{_cut_hint(c)}; give three integers, Unix seconds")
        if not abs(int(c)) < MAX_SECONDS:
            unit = epoch_unit(c)
            raise ConfigError(key="time_cuts", detail=(
                f"{value!r}: {int(c)} is not within +-10^12 seconds of 1970 (the timestamps' "
                "range)" + (f"; {unit[0]}? divide by {unit[1]}: the cuts are Unix seconds, as "
                            "the ratings' timestamps" if unit else "")))
        cuts.append(int(c))
    if not cuts[0] < cuts[1] < cuts[2]:
        raise ConfigError(key="time_cuts", detail=f"{value!r}: need three increasing "
                          "timestamps c1 < c2 < c3 (Unix seconds)")
    return cuts[0], cuts[1], cuts[2]


def _cut_hint(c: object) -> str:
    """What a cut that is no whole number of seconds is, and how to give it."""
    if isinstance(c, bool | np.bool_):
        return " (a bool)"
    if isinstance(c, float | np.floating) and not math.isfinite(c):
        return " (not finite)"
    if isinstance(c, dt.date | np.datetime64):  # a datetime and a pandas Timestamp too
        return (" (a date: give its Unix seconds, e.g. int(pandas.Timestamp('2015-01-01', "
                "tz='UTC').timestamp()); dates in the ratings are read as UTC seconds)")
    if isinstance(c, str | bytes):
        return " (text: give the integer itself)"
    if isinstance(c, float | np.floating) and math.isfinite(c):
        return " (a fraction: int() would truncate it; round it up or down yourself)"
    return ""


def _one_of(name: str, value: str, valid: tuple[str, ...]) -> None:
    if value not in valid:
        raise ConfigError(key=name, detail=f"{value!r} is not one of: {', '.join(valid)}")


#: The largest count or seed: a C ``int`` (the compiled kernels' counters, ``numpy.random``
#: seeds in ``[0, 2**31)``; the ``negatives`` streams are keyed by ``seed << 33 | user << 2``,
#: :func:`bench.adapters.negatives.stream_seeds`, which needs ``seed < 2**31``).
INT_MAX = 2**31 - 1


def _at_least(name: str, value: int, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) \
            or not low <= value <= INT_MAX:
        raise ConfigError(key=name, detail=f"{value!r} must be an integer from {low} to {INT_MAX}")


def _finite(name: str, value: float, low: float | None = None) -> None:
    ok = isinstance(value, int | float | np.number) and not isinstance(value, bool) \
        and math.isfinite(value) and (low is None or value >= low)
    if not ok:
        bound = "" if low is None else f" >= {low:g}"
        raise ConfigError(key=name, detail=f"{value!r} must be a finite number{bound}")
