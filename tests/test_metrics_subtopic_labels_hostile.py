"""Hostile inputs to ``evaluate(subtopics=...)`` (issue 23): every one is a clear error naming
the row / column / query, or a number equal to a hand-computed one; never a silently wrong
number. Before ``subtopics=`` existed every case failed (``evaluate`` took no such argument)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest

from bench.errors import ConfigError, DataError
from bench.metrics import evaluate

Y = [1.0, 1.0, 0.0]
S = [3.0, 2.0, 1.0]
GOOD = [[1.0, 0.0], [1.0, 1.0], [0.0, 0.0]]


def _run(sub: Any, metrics: str = "alpha_dcg", profile: str = "trec_eval", **kw: Any) -> Any:
    return evaluate(kw.pop("y", Y), kw.pop("s", S), group=kw.pop("group", [3]), metrics=metrics,
                    profile=profile, subtopics=sub, **kw)


BAD: list[tuple[str, Any, type[Exception], str]] = [
    ("ragged_rows", [[1, 0], [1], [0, 0]], DataError, r"row 2.*1 labels but row 1 has 2"),
    ("nan", [[1, 0], [1, np.nan], [0, 0]], DataError, r"row 2, column 'subtopics\[:, 1\]'.*nan"),
    ("infinity", [[1, 0], [1, 1], [np.inf, 0]], DataError, r"row 3, .*subtopics\[:, 0\].*inf"),
    ("negative", [[1, 0], [1, -0.5], [0, 0]], DataError, r"row 2.*-0.5 is negative"),
    ("minus_one_without_padding_label", [[1, 0], [-1, -1], [0, 0]], DataError, r"row 2.*negative"),
    ("one_dimensional", [1, 1, 0], ConfigError, r"2-D.*reshape\(-1, 1\)"),
    ("three_dimensional", np.zeros((3, 2, 1)), ConfigError, r"2-D"),
    ("no_subtopic_column", np.zeros((3, 0)), ConfigError, r"2-D"),
    ("too_few_rows", [[1, 0], [1, 1]], DataError, r"2 rows but labels has 3"),
    ("too_many_rows", [[1, 0]] * 4, DataError, r"4 rows but labels has 3"),
    ("text", [["a", "b"], ["c", "d"], ["e", "f"]], DataError, r"row 1, .*'a' is not a number"),
    ("numbers_as_text", np.array([["1", "0"]] * 3), DataError, r"row 1.*'1' is not a number"),
    ("bool_inside_objects", [[1, 0], [True, 1], [0, 0]], DataError, r"row 2.*True"),
    ("complex", np.ones((3, 2)) * 1j, DataError, r"numbers expected"),
    ("booleans", np.array([[True, False]] * 3), DataError, r"booleans"),
    ("none_inside", [[1, 0], [None, 1], [0, 0]], DataError, r"row 2, .*subtopics\[:, 0\].*nan"),
    ("text_inside", [[1, 0], ["x", 1], [0, 0]], DataError, r"row 2.*not a number"),
    ("scalar", 3.0, ConfigError, r"2-D"),
    ("row_is_text", ["ab", "cd", "ef"], ConfigError, r"row 1 is 'ab'"),
]


@pytest.mark.parametrize(("sub", "error", "match"), [b[1:] for b in BAD],
                         ids=[b[0] for b in BAD])
def test_bad_subtopic_labels_are_refused_naming_where(sub: Any, error: type[Exception],
                                                      match: str) -> None:
    with pytest.raises(error, match=match):
        _run(sub)


def test_subtopics_beside_only_metrics_that_do_not_read_them_are_refused() -> None:
    with pytest.raises(ConfigError, match="none of the metrics reads subtopic labels"):
        _run(GOOD, metrics="ndcg@3,map")


@pytest.mark.parametrize("metric", ["alpha_dcg", "alpha_ndcg@5", "nerr_ia@5", "precision_ia@5",
                                    "P_IA@5"])
def test_a_diversity_metric_without_subtopics_is_refused(metric: str) -> None:
    with pytest.raises(ConfigError, match=r"subtopic labels.*subtopics=.*subtopic qrels"):
        evaluate(Y, S, group=[3], metrics=metric)


def test_a_diversity_metric_beside_an_ordinary_one_without_subtopics_is_refused() -> None:
    with pytest.raises(ConfigError, match="alpha_dcg"):
        evaluate(Y, S, group=[3], metrics="ndcg@3,alpha_dcg")


def test_averaged_ties_between_different_subtopic_labels_are_refused_for_alpha_dcg() -> None:
    with pytest.raises(ConfigError, match=r"query 'q7'.*tied scores.*ties='average'"):
        evaluate(Y, [2.0, 2.0, 1.0], qid=["q7"] * 3, metrics="alpha_dcg@2", profile="tf-ranking",
                 subtopics=GOOD)


def test_averaged_ties_below_the_cutoff_do_not_matter() -> None:
    got = evaluate(Y, [3.0, 1.0, 1.0], group=[3], metrics="alpha_dcg@1", profile="tf-ranking",
                   subtopics=GOOD)
    assert got.metrics["alpha_dcg@1"] == pytest.approx(1.0)


def test_a_profile_that_hides_nonpositive_scores_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"torchmetrics|non-positive"):
        _run(GOOD, profile="torchmetrics")


def test_a_padding_rows_subtopic_row_is_not_read_but_a_real_rows_is() -> None:
    pad = [[1.0, 0.0], [np.nan, -1.0], [0.0, 0.0]]
    got = _run(pad, profile="tf-ranking", y=[1.0, -1.0, 0.0])
    assert got.metrics["alpha_dcg"] == pytest.approx(1.0)
    with pytest.raises(DataError, match="row 3"):
        _run([[1.0, 0.0], [0.0, 0.0], [-1.0, 0.0]], profile="tf-ranking", y=[1.0, 0.0, 0.0])


def _frame() -> pd.DataFrame:
    return pd.DataFrame({"qid": [1, 1, 1], "label": Y, "score": S, "a": [1.0, 1.0, 0.0],
                         "b": [0.0, 1.0, 0.0]}, index=[40, 41, 42])


def test_a_frame_column_with_nan_is_named_with_its_index_label() -> None:
    frame = _frame().assign(b=[0.0, np.nan, 0.0])
    with pytest.raises(DataError, match=r"DataFrame, row 2, column 'b'.*\(index 41\)"):
        evaluate(frame, metrics="alpha_dcg", subtopics=["a", "b"])


def test_a_missing_frame_column_is_named() -> None:
    with pytest.raises(ConfigError, match=r"no column 'c'.*columns: qid, label"):
        evaluate(_frame(), metrics="alpha_dcg", subtopics=["a", "c"])


def test_a_subtopic_frame_with_another_index_is_refused() -> None:
    other = _frame()[["a", "b"]].iloc[::-1]
    with pytest.raises(ConfigError, match=r"index is not the evaluated frame.s"):
        evaluate(_frame(), metrics="alpha_dcg", subtopics=other)


def test_a_subtopic_frame_with_the_same_index_equals_the_column_names() -> None:
    frame = _frame()
    a = evaluate(frame, metrics="alpha_ndcg", subtopics=frame[["a", "b"]]).metrics
    b = evaluate(frame, metrics="alpha_ndcg", subtopics=["a", "b"]).metrics
    assert a == b
    # run: d0 (a) 1, d1 (a, b) 0.5 + 1; ideal: d1 2, d0 0.5
    want = (1 + 1.5 / math.log2(3)) / (2 + 0.5 / math.log2(3))
    assert a["alpha_ndcg"] == pytest.approx(want, rel=1e-15)


def test_ordinary_metrics_beside_diversity_keep_their_values() -> None:
    both = _run(GOOD, metrics="ndcg@2,alpha_dcg@2,map", per_query=True)
    plain = evaluate(Y, S, group=[3], metrics="ndcg@2,map", profile="trec_eval")
    assert both.metrics["ndcg@2"] == plain.metrics["ndcg@2"]
    assert both.metrics["map"] == plain.metrics["map"]
    assert both.metrics["alpha_dcg@2"] == pytest.approx(1 + 1.5 / math.log2(3), rel=1e-15)
    assert list(both.per_query.columns) == ["qid", "ndcg@2", "alpha_dcg@2", "map"]


def test_per_query_with_a_parameterised_name_keeps_the_users_spelling() -> None:
    got = _run(GOOD, metrics="alpha_dcg(0.5)@2,alpha_dcg(0.25)@2", per_query=True)
    assert list(got.per_query.columns) == ["qid", "alpha_dcg(0.5)@2", "alpha_dcg(0.25)@2"]
    assert got.metrics["alpha_dcg(0.25)@2"] == pytest.approx(1 + 1.75 / math.log2(3))


def test_a_query_of_padding_only_is_blank_and_counts_as_zero_under_tf_ranking() -> None:
    got = evaluate([1.0, 0.0, -1.0], [2.0, 1.0, 0.0], qid=[1, 1, 2], metrics="precision_ia",
                   profile="tf-ranking", subtopics=[[1.0], [0.0], [-1.0]], per_query=True)
    assert list(got.per_query["precision_ia"]) == pytest.approx([0.5, 0.0])


def test_subtopic_qrels_under_a_profile_that_grades_subtopic_labels_are_refused(
        tmp_path: Any) -> None:
    """ndeval's qrels are binary per subtopic: a graded-subtopic profile cannot apply there."""
    from dataclasses import replace

    from bench.metrics import evaluate_trec, get_profile

    q = tmp_path / "qrels"
    r = tmp_path / "run"
    q.write_text("1 1 a 1\n1 2 b 1\n")
    r.write_text("1 Q0 a 1 2.0 x\n1 Q0 b 2 1.0 x\n")
    graded = replace(get_profile("trec_eval"), name="graded", subtopic_gain="label")
    with pytest.raises(ConfigError, match="subtopic_gain='label'"):
        evaluate_trec(q, r, metrics="alpha_dcg@2", profile=graded)
    assert evaluate_trec(q, r, metrics="precision_ia@2").metrics["precision_ia@2"] == 0.5


def test_per_row_weights_that_differ_within_a_query_are_refused() -> None:
    with pytest.raises(ConfigError, match=r"per-row weights differ within query 2"):
        evaluate([1, 1, 1, 0], [2.0, 1.0, 2.0, 1.0], qid=[1, 1, 2, 2], metrics="precision_ia",
                 profile="tf-ranking", subtopics=[[1], [1], [1], [0]],
                 weights=[3.0, 3.0, 1.0, 2.0])


def test_per_row_weights_constant_within_each_query_are_query_weights() -> None:
    args = dict(qid=[1, 1, 2, 2], metrics="precision_ia", profile="tf-ranking",
                subtopics=[[1], [1], [1], [0]])
    rows = evaluate([1, 1, 1, 0], [2.0, 1.0, 2.0, 1.0], weights=[3.0, 3.0, 1.0, 1.0], **args)
    per_query = evaluate([1, 1, 1, 0], [2.0, 1.0, 2.0, 1.0], weights=[3.0, 1.0], **args)
    assert rows.metrics == per_query.metrics
    assert rows.metrics["precision_ia"] == pytest.approx((1.0 * 3 + 0.5 * 1) / 4, rel=1e-6)
