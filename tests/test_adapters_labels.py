"""Rating -> grade mappings: the documented tables, negatives at 0, the exp2-gain bound."""

from __future__ import annotations

import numpy as np
import pytest

from bench.adapters.labels import (
    LABEL_MAPPINGS,
    MAX_EXP2_LABEL,
    check_ratings,
    grade,
    max_grade,
)
from bench.errors import ConfigError, DataError

HALF_STARS = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0]

# The tables of the module docstring, written out by hand.
TABLES = {
    "graded": [1, 1, 1, 1, 1, 2, 2, 3, 3, 4],
    "liked": [0, 0, 0, 0, 0, 1, 1, 2, 2, 3],
    "halfstar": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    "binary": [0, 0, 0, 0, 0, 0, 0, 1, 1, 1],
    "rated": [1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
}


@pytest.mark.parametrize("mapping", sorted(TABLES))
def test_each_mapping_gives_the_documented_grade_for_every_half_star(mapping: str) -> None:
    got = grade(np.array(HALF_STARS), mapping)
    assert got.tolist() == TABLES[mapping]
    assert got.dtype == np.float64


@pytest.mark.parametrize("mapping", sorted(LABEL_MAPPINGS))
def test_sampled_negatives_nan_rating_get_grade_zero(mapping: str) -> None:
    got = grade(np.array([np.nan, 5.0, np.nan]), mapping)
    assert got[0] == 0
    assert got[2] == 0
    assert got[1] == TABLES[mapping][-1]


@pytest.mark.parametrize("mapping", sorted(LABEL_MAPPINGS))
def test_grades_are_integers_within_the_exp2_gain_limit(mapping: str) -> None:
    got = grade(np.array([*HALF_STARS, np.nan]), mapping)
    assert np.all(got == np.round(got))
    assert got.max() == max_grade(mapping) <= MAX_EXP2_LABEL


def test_binary_threshold_is_inclusive_and_configurable() -> None:
    r = np.array([2.9, 3.0, 3.5])
    assert grade(r, "binary", binary_threshold=3.0).tolist() == [0, 1, 1]


def test_graded_labels_take_any_scale_by_thresholds() -> None:
    # integer stars (ml-100k) and implicit data (all 1.0)
    assert grade(np.array([1.0, 2.0, 3.0, 4.0, 5.0]), "graded").tolist() == [1, 1, 2, 3, 4]
    assert grade(np.ones(3), "graded").tolist() == [1, 1, 1]


def test_halfstar_labels_reject_other_scales_naming_the_row() -> None:
    with pytest.raises(DataError, match=r"ratings\.csv, row 3, column 'rating': rating 3\.7"):
        check_ratings(np.array([4.0, 0.5, 3.7, 9.0]), "halfstar", source="ratings.csv")
    with pytest.raises(DataError, match="row 1"):
        check_ratings(np.array([0.0]), "halfstar")
    check_ratings(np.array([3.7]), "graded")  # other mappings take any number


def test_unknown_mapping_lists_the_valid_ones() -> None:
    with pytest.raises(ConfigError, match="graded, liked, halfstar, binary, rated"):
        grade(np.array([1.0]), "stars")


@pytest.mark.parametrize(("mapping", "threshold", "grades"), [
    ("graded", 4.0, "1"), ("rated", 4.0, "1"), ("binary", -2.0, "1")])
def test_negative_ratings_graded_as_relevant_are_a_warning_naming_how_many(
        mapping: str, threshold: float, grades: str) -> None:
    import warnings

    from bench.adapters.labels import RatingWarning

    r = np.array([5.0, -1.0, 3.0, -1.0, -0.5])
    with pytest.warns(RatingWarning, match=rf"ratings\.csv: 3 of 5 ratings are negative \(lowest "
                                           rf"-1\.0\) and labels='{mapping}' grades them "
                                           rf"{grades} \(relevant"):
        check_ratings(r, mapping, source="ratings.csv", binary_threshold=threshold)
    assert (grade(r, mapping, binary_threshold=threshold)[[1, 3, 4]] == 1).all()
    with warnings.catch_warnings():  # graded 0, or no negative rating: nothing to say
        warnings.simplefilter("error")
        check_ratings(r, "liked", source="ratings.csv")
        check_ratings(r, "binary", source="ratings.csv")
        check_ratings(np.array([0.0, 1.0, 5.0]), "graded", source="ratings.csv")
