"""The foundation types: error locations, LetorData, Ratings validation, atomic writes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bench.adapters.labels import check_ratings
from bench.data.atomic import atomic_path, write_text
from bench.data.letor import LetorData
from bench.data.ratings import Ratings
from bench.errors import DataError


def test_data_error_message_names_file_line_row_and_column() -> None:
    err = DataError("expected a number", path="ratings.csv", line=12, row=11, column="rating")
    assert str(err) == "ratings.csv:12, row 11, column 'rating': expected a number"
    assert err.reason == "expected a number"
    assert isinstance(err, ValueError)


def test_data_error_without_location_is_the_plain_message() -> None:
    assert str(DataError("boom")) == "boom"


def _tiny() -> LetorData:
    X = np.arange(12, dtype=np.float64).reshape(6, 2)
    return LetorData.build(X, [2, 0, 1, 0, 0, 3], qid=[7, 7, 7, 9, 9, 4])


def test_letor_build_from_qid_gives_offsets_and_float32_features() -> None:
    d = _tiny()
    assert d.X.dtype == np.float32
    assert d.offsets.tolist() == [0, 3, 5, 6]
    assert d.query_ids.tolist() == [7, 9, 4]
    assert d.group_sizes.tolist() == [3, 2, 1]
    assert d.feature_names == ("f1", "f2")


def test_rows_in_data_errors_are_numbered_from_1_everywhere() -> None:
    from bench.metrics import evaluate

    # the third element is row 3: evaluator, label mappings and group checks agree
    with pytest.raises(DataError, match=r"^row 3: label -1.0 is negative") as a:
        evaluate([1, 0, -1], [0.3, 0.2, 0.1], group=[3])
    with pytest.raises(DataError, match=r"^row 3, column 'rating': rating 3.7") as b:
        check_ratings(np.array([4.0, 0.5, 3.7]), "halfstar")
    with pytest.raises(DataError, match=r"row 3: query id 1 reappears") as c:
        LetorData.build(np.zeros((3, 1)), np.zeros(3), qid=[1, 2, 1])
    assert a.value.row == b.value.row == c.value.row == 3
    assert "numbered from 1" in (DataError.__doc__ or "")


def test_letor_build_from_group_sizes_equals_build_from_qid() -> None:
    a = LetorData.build(np.zeros((5, 1)), [1, 0, 0, 1, 0], group=[2, 3])
    assert a.offsets.tolist() == [0, 2, 5]
    assert a.qid.tolist() == [0, 0, 1, 1, 1]


def test_letor_build_rejects_group_sizes_that_do_not_add_up() -> None:
    with pytest.raises(DataError, match="add up to 4 rows but the data has 5"):
        LetorData.build(np.zeros((5, 1)), np.zeros(5), group=[2, 2])


def test_letor_build_rejects_non_contiguous_qid_naming_the_row() -> None:
    with pytest.raises(DataError, match=r"row 4: query id 1 reappears"):
        LetorData.build(np.zeros((4, 1)), np.zeros(4), qid=[1, 2, 2, 1])


def test_take_queries_keeps_whole_groups_in_the_given_order() -> None:
    d = _tiny().take_queries([2, 0])
    assert d.qid.tolist() == [4, 7, 7, 7]
    assert d.y.tolist() == [3, 2, 0, 1]
    assert d.offsets.tolist() == [0, 1, 4]
    assert d.X[:, 0].tolist() == [10, 0, 2, 4]


def test_summary_counts_blank_and_single_document_queries() -> None:
    s = _tiny().summary()
    assert s["queries"] == 3
    assert s["blank_queries"] == 1  # qid 9 has labels [0, 0]
    assert s["single_document_queries"] == 1  # qid 4
    assert s["labels"] == {0.0: 3, 1.0: 1, 2.0: 1, 3.0: 1}


def _ratings_frame(**overrides: list) -> pd.DataFrame:
    base = {
        "user": [1, 1, 2],
        "item": [10, 11, 10],
        "rating": [4.0, 3.5, 5.0],
        "timestamp": [100, 200, 300],
    }
    base.update(overrides)
    return pd.DataFrame(base).astype({"user": "int64", "item": "int64", "timestamp": "int64"})


def test_ratings_counts_users_items_and_ratings() -> None:
    r = Ratings(_ratings_frame(), source="mem")
    assert (r.n_ratings, r.n_users, r.n_items) == (3, 2, 2)


def test_ratings_rejects_duplicate_user_item_pair_naming_the_row() -> None:
    frame = _ratings_frame(user=[1, 1, 1], item=[10, 11, 10])
    with pytest.raises(DataError, match=r"mem, row 3: duplicate \(user=1, item=10\) pair"):
        Ratings(frame, source="mem")


def test_ratings_rejects_missing_column_listing_the_required_ones() -> None:
    with pytest.raises(DataError, match="missing column"):
        Ratings(_ratings_frame().drop(columns=["timestamp"]))


def test_ratings_rejects_nan_rating_naming_row_and_column() -> None:
    with pytest.raises(DataError, match=r"row 2, column 'rating'"):
        Ratings(_ratings_frame(rating=[4.0, float("nan"), 3.0]))


def test_atomic_write_leaves_the_old_file_when_interrupted(tmp_path) -> None:
    target = tmp_path / "out.txt"
    write_text(target, "old")

    def interrupted_write() -> None:
        with atomic_path(target) as tmp:
            tmp.write_text("half-writ")
            raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError):
        interrupted_write()
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]
