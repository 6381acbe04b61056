"""Round 19, hostile: a data scientist calls ltrbench from Python with whatever their pipeline
produced -- the NumPy / pandas / pyarrow / SciPy type zoo -- at every Python entry point:
``evaluate`` (its ``weights=`` and ``subtopics=`` too), ``evaluate_trec`` with dicts and frames,
``LetorData.build``, a ratings frame (``as_ratings``), a custom ranker's ``predict`` output
(``checked_scores``) and ``run()``'s options (read by ``python_value`` into the config schema,
as ``bench.benchmark.run`` does).

Earlier catalogues (rounds 8, 9, 11b, 12, 16 and the ids-and-ties file) cover the nullable and
Arrow columns of frames, float128 ties, float16 scores, masks and strides of scores, categorical
labels, and sparse ``X``. New here: query weights at the ends of the float64 range (1e308,
subnormals), weights of complex or date dtypes, pandas index alignment in ``LetorData.build``,
bool group sizes there, object columns of plain numbers or with a ``None``, ``pd.NA`` in dicts,
datetime objects in a ratings frame, the pandas / pyarrow arrays given as ``run()`` options.

Oracles: scikit-learn's ``ndcg_score`` (linear gain, ties averaged: ltrbench's ``sklearn``
profile), pytrec_eval, and hand arithmetic written in the comments. Every test names its class
(silently wrong number / silent accept / unclear error / traceback) in its id or docstring.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import decimal
import fractions
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import scipy.sparse as sp
from hostile_kit import own_error

from bench.benchmark.config import RunConfig
from bench.benchmark.config_schema import python_value
from bench.data.letor import LetorData
from bench.data.ratings import as_ratings
from bench.errors import ConfigError, DataError, LtrbenchError
from bench.metrics import evaluate, evaluate_trec
from bench.runners.custom_checks import CustomModelFailure, checked_scores

sklearn_metrics = pytest.importorskip("sklearn.metrics")
pytrec_eval = pytest.importorskip("pytrec_eval")

Y = [2, 0, 1, 0, 1, 0]
S = [0.9, 0.8, 0.1, 0.3, 0.5, 0.7]
Q = [1, 1, 1, 2, 2, 2]
M = ["ndcg@3", "map"]
SK = "sklearn"  # linear gain, ties averaged: scikit-learn's ndcg_score


def _sk(labels: list[float], scores: list[float], k: int = 3) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # its own cast of 1e308
        return float(sklearn_metrics.ndcg_score([labels], [scores], k=k))


#: Per-query oracle values. ndcg@3 from scikit-learn; AP by hand: query 1 ranks labels 2, 0, 1
#: (relevant at ranks 1 and 3: (1/1 + 2/3) / 2 = 5/6); query 2 ranks 0, 1, 0 (1/2).
NDCG = [_sk([2, 0, 1], [0.9, 0.8, 0.1]), _sk([0, 1, 0], [0.3, 0.5, 0.7])]
AP = [5 / 6, 0.5]


def _weighted(w: list[float]) -> dict[str, float]:
    total = w[0] + w[1]
    return {"ndcg@3": (w[0] * NDCG[0] + w[1] * NDCG[1]) / total,
            "map": (w[0] * AP[0] + w[1] * AP[1]) / total}


def _same(got: dict[str, float], want: dict[str, float], tol: float = 1e-12) -> None:
    for k, v in want.items():
        assert got[k] == pytest.approx(v, abs=tol), (k, got, want)


def _eval(**kw: Any) -> dict[str, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an overflow or ComplexWarning is no answer either
        return dict(evaluate(kw.pop("labels", Y), kw.pop("scores", S),
                             qid=kw.pop("qid", Q), metrics=M, profile=SK, **kw).metrics)


# --------------------------------------------------------------- weights: silently wrong numbers
def test_oracle_holds_for_the_unweighted_call() -> None:
    """The oracle itself: sklearn's per-query values, averaged (no weights)."""
    _same(_eval(), _weighted([1, 1]))


@pytest.mark.parametrize("weights", [
    pytest.param([1e308, 1e308], id="per-query-1e308"),
    pytest.param([1e308] * 6, id="per-row-1e308"),
    pytest.param([np.finfo(np.float64).max] * 2, id="per-query-float64-max"),
])
def test_silently_wrong_huge_equal_weights_give_the_unweighted_mean(weights: list[float]) -> None:
    """Silently wrong number: equal weights of 1e308 summed to inf, and the mean printed 0.0 (per
    query) or NaN (per row) instead of the unweighted mean."""
    _same(_eval(weights=weights), _weighted([1, 1]))


@pytest.mark.parametrize(("weights", "ratio"), [
    pytest.param([5e-324, 5e-324], [1, 1], id="smallest-subnormal-equal"),
    pytest.param([5e-324, 1e-323], [1, 2], id="subnormals-1-to-2"),
    pytest.param([1e-320, 2e-320], [1, 2], id="subnormals-1e-320"),
])
def test_silently_wrong_subnormal_weights_weigh_as_their_ratio(weights: list[float],
                                                                ratio: list[float]) -> None:
    """Silently wrong number: weights of 5e-324 gave NDCG 1.0 and MAP 0.5 (the weighted values
    underflowed to the smallest subnormal) where the oracle is the plain mean 0.8155 / 0.6667."""
    _same(_eval(weights=weights), _weighted(ratio))


def test_silently_wrong_a_frame_weights_column_of_huge_values() -> None:
    """Silently wrong number: a DataFrame's per-row weights column of 1e308 gave NaN."""
    frame = pd.DataFrame({"qid": Q, "label": Y, "score": S, "w": [1e308] * 6})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = evaluate(frame, weights="w", metrics=M, profile=SK).metrics
    _same(dict(got), _weighted([1, 1]))


@pytest.mark.parametrize(("weights", "scores", "words"), [
    pytest.param([1e308] * 6, S, ("rmse", "beyond float64", "weights"), id="weights-1e308"),
    pytest.param([1.0] * 6, [1e154] * 6, ("rmse", "beyond float64"), id="errors-1e154"),
    pytest.param([5e-324] * 6, S, ("rmse", "subnormal"), id="weights-5e-324"),
])
def test_traceback_pointwise_sums_beyond_float64_are_a_clear_error(
        weights: list[float], scores: list[float], words: tuple[str, ...]) -> None:
    """Traceback: rmse with weights of 1e308 (or errors of 1e154) ended in math.fsum's
    'OverflowError: intermediate overflow'; weights of 5e-324 printed rmse 0.7071 where every
    weight equal gives 0.7627 (sqrt of the mean squared error: 3.49 / 6)."""
    err = own_error(lambda: evaluate(Y, scores, qid=Q, weights=weights, metrics="rmse"), *words)
    assert err is None, err
    plain = evaluate(Y, S, qid=Q, metrics="rmse").metrics["rmse"]
    assert plain == pytest.approx(np.sqrt(np.mean((np.array(S) - np.array(Y)) ** 2)), abs=1e-12)


@pytest.mark.parametrize(("weights", "ratio"), [
    pytest.param([1e300, 2e300], [1, 2], id="1e300-2e300"),
    pytest.param(np.array([2**64 - 1, 2**64 - 1], dtype=np.uint64), [1, 1], id="uint64-max"),
    pytest.param(np.array([1, 2], dtype=">f8"), [1, 2], id="big-endian"),
    pytest.param(pd.array([1, 2], dtype="Int64"), [1, 2], id="Int64"),
    pytest.param(pd.array([1.0, 2.0], dtype=pd.ArrowDtype(pa.float32())), [1, 2], id="arrow-f32"),
])
def test_weights_of_other_types_weigh_as_their_values(weights: Any, ratio: list[float]) -> None:
    _same(_eval(weights=weights), _weighted(ratio))


def test_a_negative_zero_weight_leaves_its_query_out() -> None:
    """-0.0 is a weight of 0 (not a negative weight): only query 1 counts."""
    _same(_eval(weights=[1.0, -0.0]), {"ndcg@3": NDCG[0], "map": AP[0]})


@pytest.mark.parametrize("weights", [
    pytest.param(np.array([1 + 5j, 2]), id="complex-array"),
    pytest.param([1 + 0j, 2 + 0j], id="complex-list"),
])
def test_silent_accept_complex_weights_are_refused(weights: Any) -> None:
    """Silent accept: the imaginary part was dropped with only NumPy's ComplexWarning."""
    with pytest.raises(DataError) as info:
        evaluate(Y, S, qid=Q, weights=weights, metrics=M)
    assert "weights" in str(info.value)
    assert "complex" in str(info.value)


@pytest.mark.parametrize("weights", [
    pytest.param(np.array([1, 2], dtype="timedelta64[s]"), id="timedelta64"),
    pytest.param(np.array([1, 2], dtype="datetime64[s]"), id="datetime64"),
    pytest.param(pd.to_timedelta([1, 2], unit="D"), id="TimedeltaIndex"),
])
def test_silent_accept_date_and_duration_weights_are_refused(weights: Any) -> None:
    """Silent accept: durations and dates were read as their integer ticks, as weights."""
    with pytest.raises(DataError) as info:
        evaluate(Y, S, qid=Q, weights=weights, metrics=M)
    assert "weights" in str(info.value)
    assert "real numbers" in str(info.value)


# --------------------------------------------------------------------- evaluate: other values
def test_zero_and_negative_zero_scores_tie_as_sklearn_ties_them() -> None:
    labels, scores = [1, 0, 0, 0, 1, 0], [0.0, -0.0, 0.1, 0.3, 0.5, 0.7]
    want = (_sk([1, 0, 0], [0.0, -0.0, 0.1]) + _sk([0, 1, 0], [0.3, 0.5, 0.7])) / 2
    assert _eval(labels=labels, scores=scores)["ndcg@3"] == pytest.approx(want, abs=1e-12)


def test_a_label_of_1e308_under_the_linear_gain_is_sklearns_number() -> None:
    labels = [1e308, 0, 1, 0, 1, 0]
    want = (_sk([1e308, 0, 1], S[:3]) + NDCG[1]) / 2
    assert _eval(labels=labels)["ndcg@3"] == pytest.approx(want, abs=1e-12)
    assert want == pytest.approx((1 + NDCG[1]) / 2, abs=1e-12)  # by hand: DCG/IDCG = 1 - 1e-308


def test_big_endian_labels_and_query_ids_give_the_plain_number() -> None:
    got = _eval(labels=np.array(Y, dtype=">i8"), qid=np.array(Q, dtype=">u4"),
                scores=np.array(S, dtype=">f4").astype(">f8"))
    _same(got, _eval(scores=np.array(S, dtype=np.float32).astype(np.float64)))


@pytest.mark.parametrize("qid", [
    pytest.param(pd.interval_range(0, 2).repeat(3), id="Interval"),
    pytest.param(pd.period_range("2024-01", periods=2, freq="M").repeat(3), id="Period"),
    pytest.param(np.array([1, 1, 1, 2, 2, 2], dtype="timedelta64[D]"), id="timedelta64"),
])
def test_interval_period_and_duration_query_ids_are_refused_at_row_1(qid: Any) -> None:
    assert own_error(lambda: evaluate(Y, S, qid=qid, metrics=M), "row 1", "query id") is None


def test_unclear_error_subtopics_as_a_scipy_sparse_matrix_say_how_to_densify() -> None:
    """Unclear error: a CSR matrix of subtopic labels was called 'shape ()'."""
    sub = sp.csr_matrix(np.array([[1, 0], [0, 0], [0, 1], [0, 0], [1, 0], [0, 0]]))
    err = own_error(lambda: evaluate(Y, S, qid=Q, subtopics=sub, metrics="alpha_ndcg@3"),
                    "subtopics", "sparse", "toarray")
    assert err is None, err


@pytest.mark.parametrize("frame", [
    pytest.param(pd.DataFrame({"label": Y, "score": S}, index=pd.Index(Q)), id="qid-index"),
    pytest.param(pd.DataFrame({"label": Y, "score": S}, index=[7, 7, 7, 8, 8, 8]),
                 id="non-unique-index"),
])
def test_unclear_error_a_frame_whose_unnamed_index_holds_the_qid_says_to_name_it(
        frame: pd.DataFrame) -> None:
    """Unclear error: 'no qid column ... columns: ['label', 'score']', the index not mentioned
    (a named index level is read: ``rename_axis('qid')``)."""
    err = own_error(lambda: evaluate(frame, metrics=M), "no qid column", "rename_axis('qid')")
    assert err is None, err
    named = evaluate(frame.rename_axis("qid"), metrics=M, profile=SK).metrics
    _same(dict(named), _weighted([1, 1]))


# ------------------------------------------------------------------------- LetorData.build
X = np.arange(12, dtype=np.float64).reshape(6, 2)
REVERSED = [5, 4, 3, 2, 1, 0]


def test_silently_wrong_build_refuses_a_label_series_whose_index_differs_from_x() -> None:
    """Silently wrong: X from one frame and y from a re-sorted copy were paired by position
    (``evaluate`` refuses the same Series pair)."""
    frame = pd.DataFrame(X, columns=["a", "b"])
    err = own_error(lambda: LetorData.build(frame, pd.Series(Y, index=REVERSED), qid=Q),
                    "y", "index")
    assert err is None, err


def test_silently_wrong_build_refuses_a_qid_series_whose_index_differs_from_y() -> None:
    err = own_error(lambda: LetorData.build(X, pd.Series(Y), qid=pd.Series(Q, index=REVERSED)),
                    "qid", "index")
    assert err is None, err


def test_build_pairs_a_shuffled_frame_with_its_own_columns() -> None:
    """X, y and qid all cut from one reversed frame: one index, rows paired as they are."""
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "y": Y, "q": Q}).iloc[::-1]
    data = LetorData.build(frame[["a", "b"]], frame["y"], qid=frame["q"])
    assert data.y.tolist() == Y[::-1]
    assert data.X[:, 0].tolist() == X[::-1, 0].tolist()
    assert data.qid.tolist() == Q[::-1]


@pytest.mark.parametrize("group", [
    pytest.param([True, 5], id="python-bool"),
    pytest.param([np.bool_(True), 5], id="numpy-bool"),
    pytest.param(pd.array([True, False], dtype="boolean"), id="nullable-boolean"),
])
def test_silent_accept_build_refuses_bool_group_sizes(group: Any) -> None:
    """Silent accept: ``group=[True, 5]`` was a query of 1 row and one of 5."""
    err = own_error(lambda: LetorData.build(X, Y, group=group), "group", "bool")
    assert err is None, err


@pytest.mark.parametrize(("y", "row"), [
    pytest.param(np.array([2, None, 1, 0, 1, 0], dtype=object), 2, id="object-None"),
    pytest.param(pd.array([True, False, True, False, True, None], dtype="boolean"), 6,
                 id="boolean-NA"),
    pytest.param(pd.Series([2, 0, 1, 0, pd.NA, 0], dtype=object), 5, id="object-pd.NA"),
])
def test_unclear_error_build_names_the_row_of_a_missing_label(y: Any, row: int) -> None:
    """Unclear error: 'y (labels) must be real numbers; got dtype object', no row."""
    err = own_error(lambda: LetorData.build(X, y, qid=Q), f"row {row}", "missing")
    assert err is None, err


def test_unclear_error_build_names_the_row_of_a_decimal_label() -> None:
    y = np.array([2, 0, decimal.Decimal("1"), 0, 1, 0], dtype=object)
    err = own_error(lambda: LetorData.build(X, y, qid=Q), "row 3", "Decimal")
    assert err is None, err


def test_build_reads_an_object_array_of_plain_labels() -> None:
    """``df['label'].to_numpy()`` of an object column of ints and floats: the numbers."""
    y = np.array([2, 0.0, np.int8(1), 0, np.float32(1), 0], dtype=object)
    assert LetorData.build(X, y, qid=Q).y.tolist() == [2.0, 0.0, 1.0, 0.0, 1.0, 0.0]


def test_unclear_error_build_names_a_zero_dimensional_label_array() -> None:
    """Unclear error: ``y=np.array(2)`` was blamed on qid ('qid has 6 entries for 1 rows')."""
    err = own_error(lambda: LetorData.build(X, np.array(2), qid=Q), "y", "shape ()")
    assert err is None, err


@pytest.mark.parametrize("qid", [
    pytest.param(np.array([1, 1, 1, 2, 2, 2], dtype=object), id="object-ints"),
    pytest.param(np.array([np.int32(1)] * 3 + [np.int64(2)] * 3, dtype=object),
                 id="object-numpy-ints"),
    pytest.param(pd.Series([1, 1, 1, 2, 2, 2], dtype=object), id="object-Series"),
])
def test_unclear_error_build_reads_an_object_column_of_integer_query_ids(qid: Any) -> None:
    """Was refused as 'qid must be integers; got dtype object' though every id is an integer."""
    assert LetorData.build(X, Y, qid=qid).qid.tolist() == Q


def test_unclear_error_build_names_the_row_of_a_missing_query_id_in_an_object_column() -> None:
    qid = np.array([1, 1, 1, 2, 2, None], dtype=object)
    err = own_error(lambda: LetorData.build(X, Y, qid=qid), "row 6", "missing")
    assert err is None, err


def test_build_refuses_a_text_query_id_in_an_object_column_at_its_row() -> None:
    qid = np.array([1, 1, 1, 2, "2", 2], dtype=object)
    err = own_error(lambda: LetorData.build(X, Y, qid=qid), "row 5", "qid")
    assert err is None, err


def test_unclear_error_build_float16_query_ids_raise_no_numpy_warning() -> None:
    """A NumPy 'overflow encountered in cast' RuntimeWarning on a valid float16 qid."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        data = LetorData.build(X, Y, qid=np.array(Q, dtype=np.float16))
    assert data.qid.tolist() == Q


def test_build_reads_sparse_and_decimal_frame_columns_as_their_values() -> None:
    frame = pd.DataFrame({
        "sparse": pd.arrays.SparseArray([0.0, 0.0, 1.5, 0.0, 0.0, 2.5]),
        "dec": pd.array([decimal.Decimal("0.25")] * 6, dtype=pd.ArrowDtype(pa.decimal128(5, 2))),
        "f16": np.array([0.5] * 6, dtype=np.float16),
    })
    data = LetorData.build(frame, Y, qid=Q)
    assert data.X.tolist() == [[0.0, 0.25, 0.5], [0.0, 0.25, 0.5], [1.5, 0.25, 0.5],
                               [0.0, 0.25, 0.5], [0.0, 0.25, 0.5], [2.5, 0.25, 0.5]]


def test_build_longdouble_query_ids_up_to_2_63_minus_1_are_exact() -> None:
    top = np.iinfo(np.int64).max
    qid = np.array([top] * 3 + [2**62] * 3, dtype=np.longdouble)
    assert LetorData.build(X, Y, qid=qid).qid.tolist() == [top] * 3 + [2**62] * 3


def test_build_categorical_user_ids_are_their_values_not_their_codes() -> None:
    user = pd.Categorical([5, 5, 5, 7, 7, 7], categories=[9, 7, 5])
    assert LetorData.build(X, Y, qid=Q, user=user).user.tolist() == [5, 5, 5, 7, 7, 7]


# ------------------------------------------------------------ a custom ranker's predict output
def _scores(raw: Any) -> list[float]:
    return checked_scores(raw, 6, "model 'mine' on test").tolist()


@pytest.mark.parametrize("raw", [
    pytest.param(np.array(S, dtype=object), id="object-floats"),
    pytest.param(pd.Series(S, dtype=object).to_numpy(), id="object-Series-values"),
    pytest.param(np.array([np.float32(0.5), 1, 2.0, np.int64(3), 4, 5], dtype=object),
                 id="object-mixed-numbers"),
])
def test_unclear_error_predict_object_arrays_of_plain_numbers_say_how_to_return_them(
        raw: Any) -> None:
    """Refused as round 18b documents (an object dtype is a ranker that lost its dtype), but
    'scores of dtype object' said nothing of what to return: now the float array."""
    with pytest.raises(CustomModelFailure) as info:
        _scores(raw)
    assert "dtype=np.float64" in str(info.value), str(info.value)


@pytest.mark.parametrize(("raw", "words"), [
    pytest.param([0.9, None, 0.1, 0.3, 0.5, 0.7], ("row 2", "missing"), id="None"),
    pytest.param([0.9, 0.8, pd.NA, 0.3, 0.5, 0.7], ("row 3", "missing"), id="pd.NA"),
    pytest.param([decimal.Decimal("0.9"), *S[1:]], ("row 1", "Decimal"), id="Decimal"),
    pytest.param([0.9, fractions.Fraction(4, 5), *S[2:]], ("row 2", "Fraction"), id="Fraction"),
    pytest.param([0.9, 0.8, "0.1", 0.3, 0.5, 0.7], ("row 3", "str"), id="text"),
])
def test_unclear_error_predict_object_output_names_the_row(raw: list[Any],
                                                           words: tuple[str, ...]) -> None:
    """Unclear error: 'scores of dtype object (object)', no row and no value named."""
    with pytest.raises(CustomModelFailure) as info:
        _scores(raw)
    assert all(w in str(info.value) for w in (*words, "mine")), str(info.value)


def test_unclear_error_predict_row_vector_says_how_to_flatten_it() -> None:
    """A (1, n) row got no hint, where an (n, 1) column gets 'return scores.ravel()'."""
    with pytest.raises(CustomModelFailure) as info:
        _scores(np.array(S).reshape(1, 6))
    assert "ravel()" in str(info.value)


@pytest.mark.parametrize("raw", [
    pytest.param(pd.Series(pd.Categorical(S)), id="categorical-Series"),
    pytest.param(pd.Series(pd.arrays.SparseArray(S)), id="sparse-Series"),
    pytest.param(np.array(S, dtype=">f8"), id="big-endian"),
    pytest.param(np.array(S + S)[::2][:3].tolist() + S[3:], id="list-from-strided"),
])
def test_predict_categorical_sparse_and_big_endian_scores_are_their_values(raw: Any) -> None:
    want = [float(v) for v in (raw.tolist() if hasattr(raw, "tolist") else raw)]
    assert _scores(raw) == want


def test_predict_memmap_scores_are_copied_values(tmp_path: Any) -> None:
    mm = np.memmap(tmp_path / "s.dat", dtype=np.float64, mode="w+", shape=(6,))
    mm[:] = S
    got = checked_scores(mm, 6, "model 'mine' on test")
    mm[:] = 0.0  # the ranker reuses its buffer: the scores taken stay
    assert got.tolist() == S


# --------------------------------------------------------------------------- ratings frames
RATINGS = pd.DataFrame({"user": [1, 1, 1, 2, 2, 2], "item": [10, 11, 12, 10, 11, 13],
                        "rating": [5.0, 4.0, 3.0, 2.0, 1.0, 5.0],
                        "timestamp": np.arange(6) * 1000 + 10**9})


@pytest.mark.parametrize("stamps", [
    pytest.param(pd.Series(list(pd.to_datetime(RATINGS["timestamp"], unit="s")), dtype=object),
                 id="Timestamp-objects"),
    pytest.param(pd.Series([dt.date(2020, 1, d) for d in range(1, 7)], dtype=object),
                 id="date-objects"),
])
def test_unclear_error_ratings_dates_as_objects_say_pd_to_datetime(stamps: Any) -> None:
    """Unclear error: the hint was 'read the file with pd.read_csv(..., decimal=',')'."""
    err = own_error(lambda: as_ratings(RATINGS.assign(timestamp=stamps)),
                    "timestamp", "pd.to_datetime")
    assert err is None, err
    assert "decimal=" not in str(own_error(lambda: as_ratings(RATINGS.assign(timestamp=stamps))))


def test_unclear_error_ratings_integer_ids_in_an_object_column_say_astype_int64() -> None:
    """Unclear error: ids 1 and 2 in an object column got the hint for text ids (numbering)."""
    user = pd.Series([1, 1, 1, 2, 2, 2], dtype=object)
    err = own_error(lambda: as_ratings(RATINGS.assign(user=user)), "user", "astype('int64')")
    assert err is None, err


def test_unclear_error_ratings_fraction_objects_are_not_called_text() -> None:
    rating = pd.Series([fractions.Fraction(5), 4, 3, 2, 1, 5], dtype=object)
    err = own_error(lambda: as_ratings(RATINGS.assign(rating=rating)), "rating", "Fraction")
    assert err is None, err


def test_ratings_numpy_day_dates_are_whole_days_in_seconds() -> None:
    days = np.datetime64("2001-09-09") + np.arange(6).astype("timedelta64[D]")
    got = as_ratings(RATINGS.assign(timestamp=days)).frame["timestamp"].tolist()
    assert got == [1_000_000_000 - 6400 + 86400 * d for d in range(6)]  # 2001-09-09 00:00 UTC


def test_ratings_a_time_of_day_column_is_refused_naming_it() -> None:
    times = pd.Series(pd.to_datetime(RATINGS["timestamp"], unit="s")).astype(
        pd.ArrowDtype(pa.time64("us")))
    err = own_error(lambda: as_ratings(RATINGS.assign(timestamp=times)), "timestamp", "time64")
    assert err is None, err


def test_ratings_big_endian_and_sparse_columns_keep_their_values() -> None:
    frame = RATINGS.assign(user=RATINGS["user"].astype(">i8"),
                           rating=pd.arrays.SparseArray(RATINGS["rating"]))
    got = as_ratings(frame).frame
    assert got["user"].tolist() == RATINGS["user"].tolist()
    assert got["rating"].tolist() == RATINGS["rating"].tolist()


# ------------------------------------------------------------------ evaluate_trec: dicts, frames
QRELS = {"q1": {"d1": 2, "d2": 0, "d3": 1}}
RUN = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}}


@pytest.mark.parametrize(("qrels", "run", "words"), [
    pytest.param({"q1": {"d1": pd.NA, "d2": 0}}, RUN, ("relevance", "missing"), id="rel-pd.NA"),
    pytest.param(QRELS, {"q1": {"d1": pd.NA, "d2": 0.8}}, ("score", "missing"), id="score-pd.NA"),
    pytest.param(QRELS, {"q1": {"d1": np.nan, "d2": 0.8}}, ("score", "['d1']"), id="score-nan"),
])
def test_unclear_error_pd_na_in_a_dict_is_named_missing(qrels: Any, run: Any,
                                                        words: tuple[str, ...]) -> None:
    """Unclear error: ``pd.NA`` was 'a NAType' where None is 'missing'."""
    err = own_error(lambda: evaluate_trec(qrels, run, metrics="map"), *words)
    assert err is None, err


def _pytrec(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> float:
    got = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut"}).evaluate(run)
    return float(np.mean([v["ndcg_cut_10"] for v in got.values()]))


def test_negative_zero_and_float16_relevance_columns_are_pytrec_evals_number() -> None:
    frame = pd.DataFrame({"qid": ["q1"] * 3, "docno": ["d1", "d2", "d3"],
                          "rel": np.array([2, 0, 1], dtype=np.float16)})
    frame.loc[1, "rel"] = -0.0
    got = evaluate_trec(frame, RUN, metrics="ndcg_cut_10").metrics["ndcg_cut_10"]
    assert got == pytest.approx(_pytrec(QRELS, RUN), abs=1e-12)


def test_big_endian_and_arrow_float16_score_columns_are_pytrec_evals_number() -> None:
    run = pd.DataFrame({"qid": ["q1"] * 3, "docno": ["d1", "d2", "d3"],
                        "score": np.array([0.9, 0.8, 0.1], dtype=">f8")})
    got = evaluate_trec(QRELS, run, metrics="ndcg_cut_10").metrics["ndcg_cut_10"]
    assert got == pytest.approx(_pytrec(QRELS, RUN), abs=1e-12)
    half = run.assign(score=pd.array(np.array([0.5, 0.25, 0.125], dtype=np.float16),
                                     dtype=pd.ArrowDtype(pa.float16())))
    got = evaluate_trec(QRELS, half, metrics="ndcg_cut_10").metrics["ndcg_cut_10"]
    assert got == pytest.approx(_pytrec(QRELS, RUN), abs=1e-12)  # the same order


# ------------------------------------------------------------------------------ run() options
def _config(**kw: Any) -> RunConfig:
    """What ``bench.benchmark.run`` does with its keyword arguments before any data."""
    doc = {k: python_value(v, k) for k, v in {"dataset": "synthetic", **kw}.items()}
    return RunConfig.from_dict(doc)


@pytest.mark.parametrize("seeds", [
    pytest.param(pd.array([0, 1], dtype="Int64"), id="Int64"),
    pytest.param(pd.array([0, 1], dtype=pd.ArrowDtype(pa.int32())), id="arrow-int32"),
    pytest.param(pa.array([0, 1]), id="pyarrow-Array"),
    pytest.param(pa.chunked_array([[0], [1]]), id="pyarrow-ChunkedArray"),
])
def test_unclear_error_run_seeds_as_a_pandas_or_arrow_array_are_the_seeds(seeds: Any) -> None:
    """Was refused with a message of five lines (the array's repr) though a NumPy array and a
    Series of the same seeds are read."""
    assert _config(seeds=seeds).seeds == (0, 1)


@pytest.mark.parametrize("models", [
    pytest.param(pd.array(["random", "lightgbm"], dtype="string"), id="string"),
    pytest.param(pd.Categorical(["random", "lightgbm"]), id="Categorical"),
])
def test_unclear_error_run_models_as_a_pandas_array_are_the_models(models: Any) -> None:
    assert _config(models=models).models == ("random", "lightgbm-lambdarank")


def test_unclear_error_run_seeds_with_a_missing_value_name_the_item_in_one_line() -> None:
    with pytest.raises(ConfigError) as info:
        _config(seeds=pd.array([0, None], dtype="Int64"))
    message = str(info.value)
    assert "item 2" in message, message
    assert "\n" not in message, message


# ------------------------------------------------------------------- nothing ends in a traceback
@pytest.mark.parametrize("call", [
    pytest.param(lambda: LetorData.build(X, Y, qid=Q, user=np.array([1] * 6, dtype=object)),
                 id="build-object-user"),
    pytest.param(lambda: LetorData.build(X, np.array(Y, dtype="timedelta64[s]"), qid=Q),
                 id="build-timedelta-labels"),
    pytest.param(lambda: evaluate(Y, S, qid=Q, weights=[dt.timedelta(1), dt.timedelta(2)],
                                  metrics=M), id="evaluate-python-timedelta-weights"),
    pytest.param(lambda: checked_scores(np.array([None] * 6), 6, "model 'mine'"),
                 id="predict-all-None"),
])
def test_no_traceback_on_odd_types(call: Any) -> None:
    """Each call gives a number or ltrbench's own error, never another exception."""
    with contextlib.suppress(LtrbenchError):
        call()
