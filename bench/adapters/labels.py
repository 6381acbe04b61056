"""Relevance grades from ratings: documented, integer, and small enough for exponential gain.

Candidates that the user never rated (the sampled negatives) always get grade 0. A rated target
gets a grade from its rating by one of these mappings (ratings on the MovieLens 0.5-5 star
scale; implicit data has every rating equal to 1):

================  =========================================================================
``graded``        (default) every rated item is relevant, better-liked items more so:
                  rating < 3 -> 1, 3-3.5 -> 2, 4-4.5 -> 3, 5 -> 4. No query is blank (each
                  has its targets), so NDCG is defined on every query.
``liked``         only liked items are relevant: < 3 -> 0, 3-3.5 -> 1, 4-4.5 -> 2, 5 -> 3.
                  A query whose targets are all below 3 is blank (counted in the summary).
``halfstar``      one grade per half star: ``2 * rating`` (0.5 -> 1, ..., 5 -> 10); needs
                  ratings that are multiples of 0.5 in [0.5, 5].
``binary``        ``rating >= binary_threshold`` -> 1, else 0.
``rated``         every rated item -> 1 (implicit feedback).
================  =========================================================================

All grades are at most 10, well inside the exponential-gain limit (``2^label - 1`` with labels
up to 31; LightGBM's default ``label_gain`` has 31 entries, LightGBM issue #4808).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from bench.errors import ConfigError, DataError

#: Largest label the exponential gain 2^l - 1 is defined for in LightGBM / XGBoost.
MAX_EXP2_LABEL = 31


def _graded(r: NDArray[np.float64], _t: float) -> NDArray[np.int64]:
    return 1 + np.searchsorted([3.0, 4.0, 5.0], r, side="right").astype(np.int64)


def _liked(r: NDArray[np.float64], _t: float) -> NDArray[np.int64]:
    return np.searchsorted([3.0, 4.0, 5.0], r, side="right").astype(np.int64)


def _halfstar(r: NDArray[np.float64], _t: float) -> NDArray[np.int64]:
    return np.round(2.0 * r).astype(np.int64)


def _binary(r: NDArray[np.float64], threshold: float) -> NDArray[np.int64]:
    return (r >= threshold).astype(np.int64)


def _rated(r: NDArray[np.float64], _t: float) -> NDArray[np.int64]:
    return np.ones(r.shape[0], dtype=np.int64)


#: name -> (mapping of target ratings to grades, largest grade it can give)
LABEL_MAPPINGS: dict[str, tuple[Callable[[NDArray[np.float64], float], NDArray[np.int64]], int]] = {
    "graded": (_graded, 4),
    "liked": (_liked, 3),
    "halfstar": (_halfstar, 10),
    "binary": (_binary, 1),
    "rated": (_rated, 1),
}


def grade(ratings: NDArray[np.float64], mapping: str = "graded", *,
          binary_threshold: float = 4.0) -> NDArray[np.float64]:
    """Grades of candidate rows: NaN rating (a sampled negative) -> 0, else the mapping.

    Returns float64 labels (the dtype :class:`~bench.data.letor.LetorData` stores), all integers
    in ``0..max_grade(mapping)``.
    """
    if mapping not in LABEL_MAPPINGS:
        raise ConfigError(f"labels={mapping!r} is not one of: {', '.join(LABEL_MAPPINGS)}")
    fn, _ = LABEL_MAPPINGS[mapping]
    r = np.asarray(ratings, dtype=np.float64)
    out = np.zeros(r.shape[0], dtype=np.float64)
    rated = ~np.isnan(r)
    out[rated] = fn(r[rated], binary_threshold)
    return out


class RatingWarning(UserWarning):
    """Ratings that are graded, as documented, in a way the user may not expect (negative
    ratings graded as relevant)."""


def check_ratings(ratings: NDArray[np.float64], mapping: str, *, source: str = "",
                  binary_threshold: float = 4.0,
                  where: Callable[[int], dict[str, int]] | None = None) -> None:
    """Raise :class:`DataError` (naming the first row) when ``mapping`` cannot grade the ratings.

    ``halfstar`` needs multiples of 0.5 in [0.5, 5]; the other mappings take any number. Negative
    ratings (a thumbs-down scale, -1/+1) that the mapping grades as relevant (``graded``: below 3
    -> 1; ``rated``: every rating -> 1; ``binary`` with a threshold at or below them) are a
    :class:`RatingWarning` naming how many there are and the grade they get. ``where(i)``
    says where rating ``i`` was read (``{"line": 7}`` of a CSV file:
    :meth:`bench.data.ratings.Ratings.where`); without it the error names its 1-based row.
    """
    r = np.asarray(ratings, dtype=np.float64)
    place = where if where is not None else (lambda i: {"row": i + 1})
    if mapping in ("graded", "liked"):
        _check_star_scale(r, mapping, source, place)
    if mapping != "halfstar":
        _warn_negative(r, mapping, source, binary_threshold)
        return
    twice = 2.0 * r
    bad = (twice != np.round(twice)) | (r < 0.5) | (r > 5.0)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise DataError(
            f"rating {float(r[k])!r} is not a half star in [0.5, 5]; labels='halfstar' needs "
            "MovieLens half stars (use 'graded' or 'binary' for other scales)",
            path=source or None,
            column="rating",
            **place(k),
        )


def _check_star_scale(r: NDArray[np.float64], mapping: str, source: str,
                      place: Callable[[int], dict[str, int]]) -> None:
    """``graded`` and ``liked`` cut the MovieLens 0.5-5 star scale at 3, 4 and 5: a rating above
    5 (a 1-10 scale) would land in the top grade with every other one above 5, a silently
    different label set; refused, naming the first such row."""
    above = r > 5.0
    if above.any():
        k = int(np.flatnonzero(above)[0])
        raise DataError(
            f"rating {float(r[k])!r} is above 5: labels={mapping!r} grades the MovieLens 0.5-5 "
            f"star scale ({int(above.sum()):,} ratings above it would all get the top grade); "
            "use labels='binary' with a threshold on your scale, or rescale the ratings",
            path=source or None, column="rating", **place(k))


def _warn_negative(r: NDArray[np.float64], mapping: str, source: str, threshold: float) -> None:
    negative = r < 0
    if mapping not in LABEL_MAPPINGS or not negative.any():
        return
    values = r[negative]
    grades = LABEL_MAPPINGS[mapping][0](values, threshold)
    relevant = grades > 0
    if not relevant.any():
        return
    rule = {"graded": "as every rating below 3", "rated": "as every rating",
            "binary": f"being >= binary_threshold {threshold:g}"}.get(mapping, "")
    where = f"{source}: " if source else ""
    warnings.warn(
        f"{where}{int(relevant.sum()):,} of {r.shape[0]:,} ratings are negative (lowest "
        f"{float(values.min())!r}) and labels={mapping!r} grades them "
        f"{', '.join(str(g) for g in sorted(set(grades[relevant].tolist())))} (relevant, {rule}); "
        "use labels='liked' (below 3 -> 0) or 'binary' with a threshold above them to grade "
        "them 0", RatingWarning, stacklevel=3)


def max_grade(mapping: str) -> int:
    """The largest grade a mapping gives (for gain tables)."""
    return LABEL_MAPPINGS[mapping][1]
