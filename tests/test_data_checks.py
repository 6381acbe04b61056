"""Integrity checks: groups, labels for a gain, non-finite features, query counts, duplicates."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.data.checks import (
    check_groups,
    check_labels,
    check_letor,
    check_ratings_pairs,
    duplicate_pair_rows,
)
from bench.data.letor import LetorData
from bench.errors import ConfigError, DataError


def _data(y: list[float], qid: list[int], X: np.ndarray | None = None, **kw: object) -> LetorData:
    X = np.zeros((len(y), 2), dtype=np.float32) if X is None else X
    return LetorData.build(X, y, qid=qid, source="train.txt", **kw)  # type: ignore[arg-type]


def test_clean_data_passes_and_the_report_counts_queries() -> None:
    d = _data([2, 0, 1, 0, 0, 3], [7, 7, 7, 9, 9, 4])
    out, report = check_letor(d)
    assert out is d
    assert (report.rows, report.queries, report.features) == (6, 3, 2)
    assert report.blank_queries == 1  # qid 9: labels 0, 0
    assert report.single_document_queries == 1  # qid 4
    assert report.empty_queries == 0
    assert (report.label_min, report.label_max) == (0.0, 3.0)
    assert report.label_values == (0.0, 1.0, 2.0, 3.0)
    assert report.as_dict()["gain"] == "exp2"


def test_exp2_rejects_a_label_above_31_naming_file_and_row() -> None:
    d = _data([1, 32, 0], [1, 1, 1])
    with pytest.raises(DataError) as info:
        check_letor(d)
    assert str(info.value).startswith("train.txt, row 2, column 'label': label 32 is outside 0..31")


def test_exp2_rejects_a_fractional_label() -> None:
    with pytest.raises(DataError, match=r"row 1, column 'label': label 2.5 is not an integer"):
        check_letor(_data([2.5, 0], [1, 1]))


def test_label_31_passes_exp2_but_warns_about_lightgbm_default_label_gain() -> None:
    _, report = check_letor(_data([31, 0], [1, 1]))
    assert any("LightGBM" in w and "0..30" in w for w in report.warnings)


def test_max_label_can_be_lowered() -> None:
    with pytest.raises(DataError, match=r"outside 0\.\.4"):
        check_letor(_data([5, 0], [1, 1]), max_label=4)


def test_linear_gain_accepts_fractional_labels_but_not_negative_ones() -> None:
    _, report = check_letor(_data([0.5, 2.25], [1, 1]), gain="linear")
    assert report.gain == "linear"
    with pytest.raises(DataError, match=r"row 2, column 'label': label -1 is negative"):
        check_letor(_data([0.5, -1], [1, 1]), gain="linear")


def test_gain_table_bounds_labels_by_its_length() -> None:
    assert check_labels([0, 1, 2], gain=(0.0, 1.0, 3.0)) == "table"
    with pytest.raises(DataError, match=r"outside 0\.\.2"):
        check_labels([0, 3], gain=(0.0, 1.0, 3.0))


def test_unknown_gain_is_a_config_error_listing_valid_ones() -> None:
    with pytest.raises(ConfigError, match="exp2, linear"):
        check_labels([0], gain="cubic")


def test_nan_feature_names_row_and_feature_column() -> None:
    X = np.zeros((3, 2), dtype=np.float32)
    X[2, 1] = np.nan
    d = _data([0, 1, 0], [1, 1, 1], X=X, feature_names=("bm25", "pagerank"))
    with pytest.raises(DataError) as info:
        check_letor(d)
    assert info.value.row == 3
    assert info.value.column == "pagerank"
    assert str(info.value).startswith("train.txt, row 3, column 'pagerank': feature value nan")


def test_allow_nan_counts_nans_but_infinity_is_still_an_error() -> None:
    X = np.zeros((3, 2), dtype=np.float32)
    X[0, 0] = X[1, 1] = np.nan
    _, report = check_letor(_data([0, 1, 0], [1, 1, 1], X=X), allow_nan=True)
    assert report.nonfinite_features == 2
    X[2, 0] = np.inf
    with pytest.raises(DataError, match=r"row 3, column 'f1': feature value inf"):
        check_letor(_data([0, 1, 0], [1, 1, 1], X=X), allow_nan=True)


def test_group_sizes_must_add_up_to_the_rows() -> None:
    with pytest.raises(DataError, match="group sizes add up to 4 rows but the data has 5 rows"):
        check_groups(np.zeros(5), [0, 2, 4])


def test_qid_that_changes_inside_a_group_names_the_row() -> None:
    with pytest.raises(DataError, match=r"row 2: query id 8 inside group 1"):
        check_groups([7, 8, 9], [0, 2, 3])


def test_qid_reappearing_in_a_later_group_names_the_first_row_of_that_group() -> None:
    with pytest.raises(DataError, match=r"row 4: query id 1 reappears"):
        check_groups([1, 1, 2, 1], [0, 2, 3, 4])


def test_empty_queries_are_counted_and_can_be_dropped() -> None:
    d = _data([1, 0, 2], [5, 5, 6])
    with_empty = replace(d, offsets=np.array([0, 2, 2, 3]))  # a zero-row group between them
    out, report = check_letor(with_empty, drop_empty=True)
    assert report.empty_queries == 1
    assert report.dropped_queries == 1
    assert report.dropped_rows == 0
    assert out.offsets.tolist() == [0, 2, 3]


def test_drop_single_and_blank_queries() -> None:
    d = _data([2, 0, 1, 0, 0, 3], [7, 7, 7, 9, 9, 4])
    out, report = check_letor(d, drop_single=True, drop_blank=True)
    assert out.query_ids.tolist() == [7]
    assert (report.dropped_queries, report.dropped_rows) == (2, 3)
    assert report.queries == 3  # counts describe the input


def test_duplicate_user_item_pair_in_letor_rows_is_an_error() -> None:
    d = _data([1, 0, 0], [1, 1, 1], user=[1, 1, 1], item=[10, 11, 10])
    with pytest.raises(DataError, match=r"row 3: duplicate \(user=1, item=10\) pair"):
        check_letor(d)


def test_check_ratings_pairs_names_the_first_repeated_row() -> None:
    check_ratings_pairs([1, 2], [5, 5])
    with pytest.raises(DataError, match=r"ratings.csv, row 4: duplicate \(user=2, item=5\)"):
        check_ratings_pairs([1, 2, 1, 2], [5, 5, 6, 5], path="ratings.csv")


@settings(max_examples=60, deadline=None)
@given(pairs=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), max_size=30))
def test_duplicate_pair_rows_matches_a_set_based_scan(pairs: list[tuple[int, int]]) -> None:
    seen, expected = set(), []
    for i, p in enumerate(pairs):
        if p in seen:
            expected.append(i)
        seen.add(p)
    users = [p[0] for p in pairs]
    items = [p[1] for p in pairs]
    assert duplicate_pair_rows(users, items).tolist() == expected


@settings(max_examples=60, deadline=None)
@given(
    groups=st.lists(st.lists(st.integers(0, 3), min_size=1, max_size=4), min_size=1, max_size=8),
    drop_single=st.booleans(),
    drop_blank=st.booleans(),
)
def test_counts_and_drops_match_a_per_query_loop(
    groups: list[list[int]], drop_single: bool, drop_blank: bool
) -> None:
    y = [label for g in groups for label in g]
    qid = [q for q, g in enumerate(groups) for _ in g]
    out, report = check_letor(_data(y, qid), drop_single=drop_single, drop_blank=drop_blank)
    blank = [all(v == 0 for v in g) for g in groups]
    single = [len(g) == 1 for g in groups]
    assert report.blank_queries == sum(blank)
    assert report.single_document_queries == sum(single)
    kept = [q for q in range(len(groups))
            if not ((drop_single and single[q]) or (drop_blank and blank[q]))]
    assert out.query_ids.tolist() == kept
    assert out.y.tolist() == [float(v) for q in kept for v in groups[q]]


@settings(max_examples=60, deadline=None)
@given(
    pairs=st.lists(st.tuples(st.integers(-2, 3), st.integers(0, 2**40)), max_size=20),
)
def test_duplicate_pair_rows_agrees_for_negative_and_very_large_ids(
    pairs: list[tuple[int, int]],
) -> None:
    seen, expected = set(), []
    for i, p in enumerate(pairs):
        if p in seen:
            expected.append(i)
        seen.add(p)
    users = np.array([p[0] for p in pairs], dtype=np.int64)
    items = np.array([p[1] for p in pairs], dtype=np.int64)
    assert duplicate_pair_rows(users, items).tolist() == expected
