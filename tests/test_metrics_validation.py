"""Bad input to the evaluator is an error naming what is wrong and where, never a number."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from bench.errors import ConfigError, DataError
from bench.metrics import Profile, evaluate, get_profile
from bench.metrics.components import build_request
from bench.metrics.names import parse_metrics

Y = [1.0, 0.0, 2.0, 0.0, 1.0]
S = [0.5, 0.1, 0.9, 0.3, 0.2]


def test_mismatched_lengths_are_an_error() -> None:
    with pytest.raises(DataError, match="labels has 5 rows but scores has 4"):
        evaluate(Y, S[:4], group=[5])


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_nan_or_infinite_scores_are_an_error_naming_the_row(bad: float) -> None:
    s = list(S)
    s[3] = bad
    with pytest.raises(DataError, match=r"^row 4: score .* is not a finite number"):
        evaluate(Y, s, group=[2, 3])


def test_negative_labels_are_an_error_naming_the_row() -> None:
    with pytest.raises(DataError, match=r"^row 2: label -1.0 is negative"):
        evaluate([1, -1, 0], [0.1, 0.2, 0.3], group=[3])


def test_nan_labels_are_an_error() -> None:
    with pytest.raises(DataError, match=r"^row 1: label nan is not a finite number"):
        evaluate([np.nan, 1], [0.1, 0.2], group=[2])


def test_non_integer_labels_are_an_error_under_exponential_gain_but_not_under_sklearn() -> None:
    y = [1.5, 0.0, 2.0]
    with pytest.raises(DataError, match=r"^row 1: label 1.5 is not an integer: profile 'ltrbench'"):
        evaluate(y, [0.3, 0.2, 0.1], group=[3], metrics="ndcg@2")
    r = evaluate(y, [0.3, 0.2, 0.1], group=[3], metrics="ndcg@2", profile="sklearn")
    assert r.metrics["ndcg@2"] == pytest.approx((1.5 + 0) / (2.0 + 1.5 / np.log2(3)))


def test_labels_above_the_gain_table_are_an_error() -> None:
    with pytest.raises(DataError, match=r"^row 2: label 32.0 is above 31, the largest label profile 'ltrbench'"):
        evaluate([1, 32], [0.1, 0.2], group=[2])
    with pytest.raises(DataError, match=r"label 31.0 is above 30, the largest label profile 'lightgbm'"):
        evaluate([1, 31], [0.1, 0.2], group=[2], profile="lightgbm")
    table = dataclasses.replace(get_profile("ltrbench"), name="table", gain=(0.0, 1.0, 5.0), max_label=None)
    with pytest.raises(DataError, match=r"label 3.0 has no gain in profile 'table'"):
        evaluate([1, 3], [0.1, 0.2], group=[2], profile=table)


def test_letor4_gives_labels_beyond_its_table_gain_zero_instead_of_an_error() -> None:
    r = evaluate([3, 1], [0.9, 0.1], group=[2], metrics="ndcg@2 p@1", profile="letor4")
    assert r.metrics == {"ndcg@2": 1.0, "p@1": 0.0}


def test_err_grades_above_its_maximum_are_an_error() -> None:
    with pytest.raises(DataError, match=r"label 5.0 is above err's largest grade 4"):
        evaluate([5, 0], [0.1, 0.2], group=[2], metrics="err@2")


def test_xgboost_profile_refuses_graded_labels_for_map_and_p_as_xgboost_does() -> None:
    with pytest.raises(DataError, match=r"row 2: label 2.0: profile 'xgboost' computes map and p only on binary"):
        evaluate([1, 2], [0.1, 0.2], group=[2], metrics="map@2", profile="xgboost")
    assert evaluate([1, 2], [0.1, 0.2], group=[2], metrics="ndcg@2", profile="xgboost").metrics


def test_non_contiguous_qid_is_an_error_naming_the_first_offending_row_unless_sorted() -> None:
    qid = [7, 7, 9, 9, 7]
    with pytest.raises(DataError, match=r"row 5: query id 7 reappears"):
        evaluate(Y, S, qid=qid)
    r = evaluate(Y, S, qid=qid, sort_by_qid=True, metrics="ndcg@3", per_query=True)
    order = [0, 1, 4, 2, 3]
    ref = evaluate(np.array(Y)[order], np.array(S)[order], qid=np.array(qid)[order],
                   metrics="ndcg@3", per_query=True)
    assert r.per_query is not None
    assert r.per_query.equals(ref.per_query)
    assert r.per_query["qid"].tolist() == [7, 9]


@pytest.mark.parametrize(
    ("qid", "row", "shown"),
    [
        ([1, 1, 2, 2, float("nan")], 5, "nan"),  # NaN on the last row: would be its own query
        ([1.0, 1.0, np.nan, np.nan, np.nan], 3, "nan"),  # NaN for a whole query
        ([1, 1, None, None, None], 3, "None"),
        (["a", "a", "b", "b", None], 5, "None"),
        (np.array(["2020-01-01", "2020-01-01", "NaT", "NaT", "NaT"], dtype="datetime64[D]"), 3,
         "NaT"),
    ],
)
def test_missing_query_ids_are_an_error_naming_the_row(qid: object, row: int, shown: str) -> None:
    for sort in (False, True):
        with pytest.raises(DataError, match=rf"^row {row}: query id {shown} is missing"):
            evaluate(Y, S, qid=qid, sort_by_qid=sort)


def test_query_ids_of_mixed_hashable_types_group_rows_by_equality() -> None:
    # query "a": the relevant document ranked 2nd -> 1/log2(3); query 7: ranked 1st -> 1
    qid = np.array(["a", "a", 7, 7], dtype=object)
    r = evaluate([0, 1, 1, 0], [0.9, 0.1, 0.8, 0.2], qid=qid, metrics="ndcg@10", per_query=True)
    assert r.metrics["ndcg@10"] == pytest.approx((1 / np.log2(3) + 1.0) / 2, abs=1e-15)
    assert r.per_query is not None
    # ids that mix text and integers compare as text (bench.data.inputs): 7 is reported as "7",
    # as the same rows as a TREC file or a list (np.asarray makes them text) would give
    assert r.per_query["qid"].tolist() == ["a", "7"]
    split = np.array(["a", 7, "a", 7], dtype=object)
    with pytest.raises(DataError, match=r"^row 3: query id 'a' reappears"):
        evaluate([0, 1, 1, 0], [0.9, 0.1, 0.8, 0.2], qid=split)
    r = evaluate([0, 1, 1, 0], [0.9, 0.1, 0.8, 0.2], qid=split, sort_by_qid=True,
                 metrics="ndcg@10")
    # sorted: "a" gets labels [0, 1] scores [0.9, 0.8]; 7 gets [1, 0] scores [0.1, 0.2]
    assert r.metrics["ndcg@10"] == pytest.approx(1 / np.log2(3), abs=1e-15)


def test_query_ids_beyond_int64_are_kept_as_python_ints() -> None:
    r = evaluate([1, 0, 0, 1], [0.9, 0.1, 0.9, 0.1], qid=[1, 1, 2**70, 2**70],
                 metrics="ndcg@10", per_query=True)
    assert r.per_query is not None
    assert r.per_query["qid"].tolist() == [1, 2**70]
    assert r.metrics["ndcg@10"] == pytest.approx((1.0 + 1 / np.log2(3)) / 2, abs=1e-15)


def test_empty_input_is_an_error() -> None:
    with pytest.raises(DataError, match="empty input"):
        evaluate([], [], group=[])


def test_qid_and_group_need_exactly_one() -> None:
    with pytest.raises(ConfigError, match="exactly one of qid="):
        evaluate(Y, S)
    with pytest.raises(ConfigError, match="exactly one of qid="):
        evaluate(Y, S, qid=[1] * 5, group=[5])


@pytest.mark.parametrize("group", [[2, None, 1], [2, 2**70, 1], [2, "3"]])
def test_group_sizes_that_are_not_integers_are_an_error_not_a_traceback(group: list[object]) -> None:
    with pytest.raises(DataError, match=r"group size .* is not a positive integer"):
        evaluate(Y, S, group=group)


def test_group_sizes_must_add_up() -> None:
    with pytest.raises(DataError, match="add up to 4 rows but the data has 5"):
        evaluate(Y, S, group=[2, 2])


def test_weights_must_match_rows_or_queries_and_be_non_negative() -> None:
    with pytest.raises(DataError, match="weights has 3 values: expected one per row \\(5\\) or one per query \\(2\\)"):
        evaluate(Y, S, group=[2, 3], weights=[1, 1, 1])
    with pytest.raises(DataError, match=r"row 2: weight -1\.0 is not a finite number >= 0"):
        evaluate(Y, S, group=[2, 3], weights=[1, -1])


def test_unknown_metric_names_list_the_valid_ones() -> None:
    with pytest.raises(ConfigError, match=r"unknown metric 'ndgc@10'; valid names: dcg@k, ndcg@k"):
        evaluate(Y, S, group=[5], metrics="ndgc@10")
    with pytest.raises(ConfigError, match="rmse is pointwise and takes no @k"):
        evaluate(Y, S, group=[5], metrics="rmse@3")


def test_unknown_profile_names_list_the_valid_ones() -> None:
    with pytest.raises(ConfigError, match=r"unknown profile 'lgbm'; did you mean 'lightgbm'\? valid profiles: ltrbench, lightgbm, xgboost"):
        evaluate(Y, S, group=[5], profile="lgbm")


def test_invalid_profile_fields_list_the_valid_values() -> None:
    with pytest.raises(ConfigError, match="unknown ties 'first'; valid: stable, average"):
        Profile(name="bad", ties="first")
    with pytest.raises(ConfigError, match=r"empty must be 0\.0, 1\.0 or None"):
        Profile(name="bad", empty=0.5)


def test_unknown_backend_lists_the_valid_ones() -> None:
    with pytest.raises(ConfigError, match="unknown backend 'gpu'; valid: auto, numba, numpy"):
        evaluate(Y, S, group=[5], backend="gpu")


def test_rows_are_numbered_from_1_in_input_order_also_when_sorting_by_qid() -> None:
    # input rows 1..4 with qid 1, 2, 1, 2; sorted, input row 3 (label 1.5) comes second
    with pytest.raises(DataError, match=r"^row 3: label 1.5 is not an integer") as info:
        evaluate([1, 0, 1.5, 0], [0.4, 0.3, 0.2, 0.1], qid=[1, 2, 1, 2], sort_by_qid=True)
    assert info.value.row == 3
    # two offending rows: the one first in the input is named, not the first after sorting
    with pytest.raises(DataError, match=r"^row 2: label 40.0 is above 31"):
        evaluate([1, 40, 50, 0], [0.4, 0.3, 0.2, 0.1], qid=[2, 1, 2, 1], sort_by_qid=True)
    with pytest.raises(DataError, match=r"^row 2: label 2.0: profile 'xgboost'"):
        evaluate([0, 2, 3, 1], [0.4, 0.3, 0.2, 0.1], qid=[2, 1, 2, 1], sort_by_qid=True,
                 metrics="map@2", profile="xgboost")


def test_tie_count_covers_the_whole_list_when_any_metric_is_uncut() -> None:
    # the only tie (0.1, 0.1) is at ranks 3-4: outside ndcg@2's top 2, inside map's whole list
    y, s = [1, 0, 1, 0], [0.9, 0.8, 0.1, 0.1]
    cut = evaluate(y, s, group=[4], metrics="ndcg@2").diagnostics
    assert (cut.ties_k, cut.n_queries_with_ties_in_topk) == (2, 0)
    both = evaluate(y, s, group=[4], metrics="ndcg@2 map").diagnostics
    assert (both.ties_k, both.n_queries_with_ties_in_topk) == (None, 1)
    for backend in ("numpy", "numba"):
        d = evaluate(y, s, group=[4], metrics="map ndcg@2", backend=backend).diagnostics
        assert (d.ties_k, d.n_queries_with_ties_in_topk) == (None, 1)


def test_tie_cutoff_is_the_largest_cutoff_or_none_for_the_whole_list() -> None:
    assert build_request(parse_metrics("ndcg@10 map@5"), get_profile("ltrbench")).ties_k == 10
    assert build_request(parse_metrics("ndcg@10 map"), get_profile("ltrbench")).ties_k is None
    assert build_request(parse_metrics("map ndcg@3"), get_profile("ltrbench")).ties_k is None
    assert build_request(parse_metrics("rmse"), get_profile("ltrbench")).ties_k is None  # no ranking metric
