"""Round 21, hostile: a recommender-systems researcher who is pedantic about time.

Ratings become query-grouped LETOR data (user = query, item = document) through a split in
time. Every way time can be misread is tried here: cuts given as floats, NumPy arrays, dates,
text, booleans, infinity or milliseconds; cuts before or after the data, or around an empty
window; timestamps beyond the year 9999 or before the year 1 (seconds of 1e11 and more are
what milliseconds of 1973..2001 read as, and the readers take them), zoned dates across a
daylight-saving change, fractions of a second at a cut; tags whose time is a date, text,
missing, absent or in another unit; an item released after the reference time; the window
rules at their boundaries (``min_history``, fractional ``target_size``) and the reference
time each split records.

Oracles: hand arithmetic on tiny tables (written out in the comments), the Gregorian calendar
through :mod:`datetime` shifted by whole 400-year cycles (146,097 days each), pandas for the
UTC offsets of a zoned date, or a clear error naming what was wrong and what to do.

Classes (issue 19): each test's name ends with its class: silently wrong number, silent
accept, unclear error, traceback; guards of documented behaviour end with ``guard``.
"""

from __future__ import annotations

import datetime as dt
import json
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hostile_kit import api_refused, call, cli, own_error, refused

from bench.adapters import AdapterConfig, ratings_to_letor
from bench.adapters.convert import convert
from bench.data.letor import LetorData, LetorSplits
from bench.data.ratings import Ratings
from bench.errors import LtrbenchError

DAY = 86_400.0
C1, C2, C3 = 1_000, 2_000, 3_000
#: users 1..3: three history ratings before C1, one in each window; user 4: history only
#: (four ratings before C1, never a query under min_history=2 with no target).
ROWS = [
    (1, 1, 4.0, 100), (1, 2, 3.0, 200), (1, 3, 5.0, 300),
    (1, 4, 4.0, 1_500), (1, 5, 3.0, 2_500), (1, 6, 5.0, 3_500),
    (2, 2, 2.0, 400), (2, 3, 4.0, 500), (2, 7, 4.0, 600),
    (2, 1, 4.0, 1_200), (2, 8, 3.0, 2_200), (2, 4, 1.0, 3_200),
    (3, 1, 5.0, 700), (3, 5, 1.0, 800), (3, 8, 3.0, 900),
    (3, 2, 4.5, 1_800), (3, 3, 2.0, 2_800), (3, 7, 5.0, 3_800),
    (4, 9, 3.0, 150), (4, 10, 4.0, 250), (4, 11, 2.0, 350), (4, 12, 5.0, 450),
]
COLS = ["user", "item", "rating", "timestamp"]
TC = AdapterConfig(split="time-cut", time_cuts=(C1, C2, C3), min_history=2, negatives=2,
                   feature_groups=("user", "item"))


def frame(rows: list[tuple[int, int, float, int]] | None = None, shift: int = 0) -> pd.DataFrame:
    f = pd.DataFrame(ROWS if rows is None else rows, columns=COLS)
    return f.assign(timestamp=f["timestamp"] + shift)


def conv(f: pd.DataFrame, cfg: AdapterConfig = TC, *, tags: pd.DataFrame | None = None,
         items: pd.DataFrame | None = None) -> LetorSplits:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ratings_to_letor(Ratings(f, tags=tags, items=items), cfg)


def col(d: LetorData, name: str) -> np.ndarray:
    return d.X[:, list(d.feature_names).index(name)].astype(np.float64)


def rows_of(out: LetorSplits, user: int, item: int) -> dict[str, list[int]]:
    """Partition -> labels of the (user, item) rows."""
    return {n: d.y[(d.user == user) & (d.item == item)].astype(int).tolist()
            for n, d in out.splits().items()}


def year_of(seconds: int) -> int:
    """The proleptic Gregorian UTC year of ``seconds`` since 1970, for any magnitude: shifted by
    whole 400-year cycles (146,097 days) into the years :mod:`datetime` knows."""
    cycle = 146_097 * 86_400
    k = 0
    while seconds - k * cycle > 200_000_000_000:
        k += 1
    while seconds - k * cycle < -50_000_000_000:
        k -= 1
    y = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(seconds=seconds - k * cycle)
    return y.year + 400 * k


def cuts_refused(cuts: object, *words: str) -> str | None:
    return own_error(lambda: replace(TC, time_cuts=cuts), *words)  # type: ignore[arg-type]


# --- cuts as a researcher writes them in Python ---------------------------------------------


def test_fractional_float_cuts_are_refused_not_truncated_silently_wrong_number() -> None:
    """int(1500.5) is 1500: user 1's rating at t=1500 (before the cut 1500.5: history) became a
    training target."""
    out, exc = call(lambda: conv(frame(), replace(TC, time_cuts=(1_500.5, 2_000, 3_000))))
    if exc is None:
        assert rows_of(out, 1, 4)["train"] == [], "t=1500 < c1=1500.5 is history, not a target"
    assert api_refused(exc, "time_cuts", "1500.5", "fraction") is None


def test_whole_float_cuts_read_as_the_integers_they_are_guard() -> None:
    a = conv(frame(), replace(TC, time_cuts=(1000.0, 2000.0, np.float64(3000.0))))  # type: ignore[arg-type]
    b = conv(frame(), TC)
    assert a.meta["time_cuts"] == [1000, 2000, 3000]
    assert all(type(c) is int for c in a.meta["time_cuts"])  # type: ignore[attr-defined]
    for name in ("train", "vali", "test"):
        assert np.array_equal(a.splits()[name].X, b.splits()[name].X)


@pytest.mark.parametrize("cuts", [np.array([C1, C2, C3]), pd.Series([C1, C2, C3])],
                         ids=["numpy-array", "pandas-Series"])
def test_cuts_given_as_an_array_are_recorded_as_integers_silently_wrong_number(
        tmp_path: Path, cuts: object) -> None:
    """np.quantile(...).round() gives an array: summary.json wrote '[1000 2000 3000]' (text)."""
    cfg = replace(TC, time_cuts=cuts)  # type: ignore[arg-type]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        convert(Ratings(frame()), tmp_path / "out", cfg, svmlight=False)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["adapter"]["time_cuts"] == [C1, C2, C3]


def test_a_config_with_array_cuts_is_hashable_and_equal_to_its_tuple_twin_silent_accept() -> None:
    cfg = replace(TC, time_cuts=np.array([C1, C2, C3]))  # type: ignore[arg-type]
    assert cfg == TC
    assert hash(cfg) == hash(TC)


@pytest.mark.parametrize("cuts", [
    (pd.Timestamp("1970-01-01 00:16:40", tz="UTC"), pd.Timestamp("1970-01-01 00:33:20", tz="UTC"),
     pd.Timestamp("1970-01-01 00:50:00", tz="UTC")),
    (np.datetime64("2015-01-01"), np.datetime64("2016-01-01"), np.datetime64("2017-01-01")),
    (dt.datetime(2015, 1, 1), dt.datetime(2016, 1, 1), dt.datetime(2017, 1, 1)),
], ids=["pandas-Timestamp", "numpy-datetime64-days", "python-datetime"])
def test_date_cuts_are_refused_naming_unix_seconds_traceback(cuts: tuple) -> None:
    """Accepted by the config, then int() of a date at the split: a TypeError traceback."""
    assert cuts_refused(cuts, "time_cuts", "seconds") is None


def test_text_cuts_are_refused_as_text_not_as_out_of_order_unclear_error() -> None:
    """('900', '1000', '1100') are increasing numbers; compared as text '900' > '1000'."""
    assert cuts_refused(("900", "1000", "1100"), "time_cuts", "integer") is None


def test_boolean_cuts_are_refused_silent_accept() -> None:
    assert cuts_refused((False, True, 3_000), "time_cuts", "True") is None


@pytest.mark.parametrize("cuts", [(1_000, 2_000, float("inf")), (1_000, 2_000, 10**19),
                                  (-(10**19), 2_000, 3_000)],
                         ids=["infinity", "beyond-int64", "below-int64"])
def test_cuts_beyond_any_timestamp_are_refused_at_the_config_traceback(cuts: tuple) -> None:
    assert cuts_refused(cuts, "time_cuts") is None


def test_cuts_in_milliseconds_are_refused_saying_milliseconds_unclear_error() -> None:
    """Ratings in seconds (the readers' one unit) cut at milliseconds of 2017..2023."""
    ms = (1_500_000_000_000, 1_600_000_000_000, 1_700_000_000_000)
    assert cuts_refused(ms, "time_cuts", "milliseconds") is None


def test_cut_quantiles_with_the_temporal_split_are_refused_as_ignored_silent_accept() -> None:
    assert own_error(lambda: AdapterConfig(time_cut_quantiles=(0.5, 0.6, 0.7)),
                     "time_cut_quantiles", "temporal") is None


def test_cut_quantiles_beside_explicit_cuts_are_refused_as_ignored_silent_accept() -> None:
    assert own_error(lambda: replace(TC, time_cut_quantiles=(0.5, 0.6, 0.7)),
                     "time_cut_quantiles", "time_cuts") is None


@pytest.mark.parametrize("cuts", [(C1, C1, C3), (C3, C2, C1), (C1, C3, C2)],
                         ids=["equal", "reversed", "out-of-order"])
def test_cuts_not_strictly_increasing_are_refused_naming_them_guard(cuts: tuple) -> None:
    assert cuts_refused(cuts, "time_cuts", "increasing") is None


# --- cuts against the data's own time range --------------------------------------------------


def _no_queries(cfg: AdapterConfig) -> str:
    with pytest.raises(LtrbenchError) as info:
        conv(frame(), cfg)
    return str(info.value)


def test_cuts_after_the_last_rating_name_it_not_target_size_unclear_error() -> None:
    """target_size does not apply to time-cut (it is refused there): the message named it."""
    msg = _no_queries(replace(TC, time_cuts=(5_000, 6_000, 7_000)))
    assert "3800" in msg, msg
    assert "target_size" not in msg, msg


def test_cuts_before_the_first_rating_say_no_history_before_c1_unclear_error() -> None:
    msg = _no_queries(replace(TC, time_cuts=(50, 60, 70)))
    assert "before c1=50" in msg, msg
    assert "from 100" in msg, msg
    assert "target_size" not in msg, msg


def test_an_empty_validation_window_is_named_with_its_bounds_unclear_error() -> None:
    """No rating in [2000, 2100): 2200, 2500, 2800 are later."""
    msg = _no_queries(replace(TC, time_cuts=(C1, 2_000, 2_100)))
    assert "vali" in msg, msg
    assert "[2000, 2100)" in msg, msg


# --- timestamps far from 1970 ----------------------------------------------------------------


ITEMS = pd.DataFrame({"item": range(1, 13), "year": [1995] * 6 + [None] * 6})


def _far(shift: int) -> tuple[LetorSplits, list[warnings.WarningMessage]]:
    cfg = replace(TC, time_cuts=(C1 + shift, C2 + shift, C3 + shift))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = ratings_to_letor(Ratings(frame(shift=shift), items=ITEMS), cfg)
    return out, caught


@pytest.mark.parametrize("shift", [300_000_000_000, 999_999_000_000, -100_000_000_000,
                                   -999_999_000_000],
                         ids=["year-11476", "year-33658", "year-minus-1199", "year-minus-29719"])
def test_seconds_beyond_the_calendar_of_datetime_give_the_release_age_traceback(
        shift: int) -> None:
    """Seconds within the readers' +-10^12 but past datetime's years 1..9999: ValueError."""
    out, _ = _far(shift)
    age = max(year_of(C1 + shift) - 1995, 0)  # the release age at c1, never below 0
    d = out.train
    got = set(col(d, "item_release_age_years")[d.item <= 6].tolist())
    assert got == {float(age)}, got


def test_milliseconds_of_1997_read_alone_are_said_not_silently_taken_as_seconds_traceback() -> None:
    """ml-100k's times in milliseconds (874,724,710,000: 1997-09-20) are within +-10^12, so the
    reader takes them as seconds of the year 29,688: recency and age in days came out 1000
    times too large (and the release age was a ValueError). The conversion must say so."""
    out, caught = _far(874_724_710_000)
    texts = [str(w.message) for w in caught]
    assert any("millisecond" in t for t in texts), texts
    assert out.train.X.shape[0] > 0


def test_pre_1970_ratings_measure_release_age_from_their_own_year_guard() -> None:
    shift = -315_619_200  # 1960-01-01T00:00:00Z: c1 in 1960, 1960 - 1950 = 10 years
    items = ITEMS.assign(year=[1950] * 6 + [None] * 6)
    cfg = replace(TC, time_cuts=(C1 + shift, C2 + shift, C3 + shift))
    d = conv(frame(shift=shift), cfg, items=items).train
    assert set(col(d, "item_release_age_years")[d.item <= 6].tolist()) == {10.0}
    assert set(col(d, "item_release_age_years")[d.item > 6].tolist()) <= {-1.0}


def test_an_item_released_after_the_reference_year_is_not_read_as_unknown_silently_wrong_number(
        ) -> None:
    """c1 in 2015: an item of 2016 had release age 2015 - 2016 = -1, the value of 'unknown'."""
    shift = 1_420_070_400  # 2015-01-01T00:00:00Z; every rating of the table is in 2015
    items = ITEMS.assign(year=[2016, 2010, 2015, 2016, 2030, None] + [None] * 6)
    cfg = replace(TC, time_cuts=(C1 + shift, C2 + shift, C3 + shift))
    out = conv(frame(shift=shift), cfg, items=items)
    want = {1: 0.0, 2: 5.0, 3: 0.0, 4: 0.0, 5: 0.0, 6: -1.0}
    for d in out.splits().values():
        for k, i in enumerate(d.item.tolist()):
            if i in want:
                assert col(d, "item_release_age_years")[k] == want[i], i


@pytest.mark.parametrize("zone", [None, "UTC"])
def test_release_dates_given_as_datetimes_are_read_as_their_year_silently_wrong_number(
        zone: str | None) -> None:
    """items.year = pd.to_datetime('1995-12-22'): its nanoseconds (8.2e17) were taken as a
    year, a release age of -8.2e17."""
    shift = 1_420_070_400  # c1 in 2015
    when = pd.to_datetime(["1995-12-22"] * 6 + ["2001-07-01"] * 6)
    items = pd.DataFrame({"item": range(1, 13), "year": when if zone is None
                          else when.tz_localize(zone)})
    cfg = replace(TC, time_cuts=(C1 + shift, C2 + shift, C3 + shift))
    d = conv(frame(shift=shift), cfg, items=items).train
    age = col(d, "item_release_age_years")
    assert set(age[d.item <= 6].tolist()) == {20.0}
    assert set(age[d.item > 6].tolist()) <= {14.0}


def test_recency_across_a_daylight_saving_change_is_counted_in_utc_days_guard() -> None:
    """User 1's last history rating 2015-03-07 12:00 EST (17:00Z); c1 = 2015-03-09 12:00 EDT
    (16:00Z): 2 days less 1 hour = 1.958333 days, not 2. Dates of New York's zone."""
    base = pd.Timestamp("2015-03-07 17:00", tz="UTC").value // 10**9
    c1 = pd.Timestamp("2015-03-09 16:00", tz="UTC").value // 10**9
    # history t -> base + t - 300 (user 1's item 3 at t=300 lands on base); the target windows
    # 1xxx, 2xxx, 3xxx -> c1 + 500, one day later, two days later
    stamps = [base + t - 300 if t < C1 else c1 + (t // 1000 - 1) * 86_400 + 500
              for _, _, _, t in ROWS]
    f = frame().assign(timestamp=pd.to_datetime(stamps, unit="s", utc=True).tz_convert(
        "America/New_York"))
    out = conv(f, replace(TC, time_cuts=(c1, c1 + 86_400, c1 + 2 * 86_400)))
    d = out.train
    got = col(d, "user_recency_days")[d.user == 1]
    assert got.size, got
    assert np.allclose(got, 1 + 23 / 24, rtol=1e-6), got


@pytest.mark.parametrize(("offset_ms", "where"), [(-1, "history"), (0, "train"), (999, "train")])
def test_fractions_of_a_second_at_c1_fall_on_the_side_of_the_cut_they_are_on_guard(
        offset_ms: int, where: str) -> None:
    """Dates are floored to whole seconds: c1 - 1 ms is history, c1 + 999 ms a train target."""
    f = frame()
    stamps = pd.to_datetime(f["timestamp"], unit="s").astype("datetime64[ms]")
    stamps.iloc[3] = pd.Timestamp(C1, unit="s") + pd.Timedelta(milliseconds=offset_ms)  # (1, 4)
    out = conv(f.assign(timestamp=stamps))
    got = rows_of(out, 1, 4)
    assert (got["train"] != []) == (where == "train"), got


# --- tags ----------------------------------------------------------------------------------

TAG_CFG = replace(TC, feature_groups=("user", "item", "tags"))


def _tag_count(out: LetorSplits, item: int = 1) -> set[float]:
    return {float(v) for d in out.splits().values()
            for v in col(d, "tag_item_count")[d.item == item]}


def _tags(t: object, **extra: object) -> pd.DataFrame:
    return pd.DataFrame({"user": [4], "item": [1], "tag": ["x"], "timestamp": [t], **extra})


@pytest.mark.parametrize("zone", [None, "UTC", "Asia/Kolkata"])
def test_tags_dated_as_datetimes_are_seconds_beside_dated_ratings_silently_wrong_number(
        zone: str | None) -> None:
    """Both tables built with pd.to_datetime: the ratings were read as seconds, the tags as
    nanoseconds (500 s -> 5e11), so no tag was ever history: tag_item_count 0, not 1."""
    f = frame()
    f = f.assign(timestamp=pd.to_datetime(f["timestamp"], unit="s"))
    when = pd.to_datetime([500], unit="s")
    if zone is not None:
        when = when.tz_localize("UTC").tz_convert(zone)
    out = conv(f, TAG_CFG, tags=_tags(when[0]))
    assert _tag_count(out) == {1.0}


def test_a_tag_dated_after_c1_as_a_datetime_is_no_history_guard() -> None:
    f = frame()
    f = f.assign(timestamp=pd.to_datetime(f["timestamp"], unit="s"))
    out = conv(f, TAG_CFG, tags=_tags(pd.Timestamp(C1, unit="s")))
    assert _tag_count(out) == {0.0}


def test_tags_with_text_dates_are_refused_naming_the_column_silently_wrong_number() -> None:
    """'1970-01-01T00:08:20Z' (t=500, history) was coerced to NaN and the tag dropped."""
    tags = _tags("1970-01-01T00:08:20Z")
    assert own_error(lambda: conv(frame(), TAG_CFG, tags=tags), "tags", "timestamp") is None


@pytest.mark.parametrize("column", ["timestamp", "user", "item"])
def test_a_tag_with_a_missing_value_is_refused_at_its_row_silent_accept(column: str) -> None:
    tags = pd.DataFrame({"user": [4, 4], "item": [1, 2], "tag": ["x", "y"],
                         "timestamp": [500.0, 600.0]})
    tags[column] = tags[column].astype(float)
    tags.loc[1, column] = np.nan
    assert own_error(lambda: conv(frame(), TAG_CFG, tags=tags), "tags", "row 2",
                     column) is None


def test_float32_tag_times_rounded_by_their_export_are_refused_silently_wrong_number() -> None:
    """The ratings' rule, for tags: a float32 holds 1,600,000,999 (c1 - 1: history) as
    1,600,001,024 (steps of 128 s in 2020), after c1: the tag silently left the history."""
    shift = 1_600_000_000
    cfg = replace(TAG_CFG, time_cuts=(C1 + shift, C2 + shift, C3 + shift))
    tags = _tags(0).assign(timestamp=np.array([C1 + shift - 1], dtype=np.float32))
    assert own_error(lambda: conv(frame(shift=shift), cfg, tags=tags), "tags", "float32") is None


def test_tags_without_a_time_are_refused_under_a_time_cut_silent_accept() -> None:
    """A tag without a time was counted as history under every cut: written in the test period
    or not, nobody can tell, and it reached the training rows."""
    tags = pd.DataFrame({"user": [4], "item": [1], "tag": ["x"]})
    assert own_error(lambda: conv(frame(), TAG_CFG, tags=tags), "tags", "timestamp") is None


def test_tags_without_a_time_are_read_under_the_random_split_guard() -> None:
    """Documented: under ``random`` a tag is history whenever written (not on a target)."""
    cfg = AdapterConfig(split="random", target_size=1, min_history=2, negatives=2,
                        feature_groups=("user", "item", "tags"))
    tags = pd.DataFrame({"user": [4], "item": [1], "tag": ["x"]})
    assert _tag_count(conv(frame(), cfg, tags=tags)) == {1.0}


def test_tags_in_milliseconds_beside_ratings_in_seconds_in_frames_are_refused_silently_wrong_number(
        ) -> None:
    """The file readers refuse this pair; frames given to Ratings did not: every tag
    (978,300,500,000 ms) was after every cut (978,301,000 s), none history."""
    shift = 978_300_000
    cfg = replace(TAG_CFG, time_cuts=(C1 + shift, C2 + shift, C3 + shift))
    tags = _tags((500 + shift) * 1000)
    assert own_error(lambda: conv(frame(shift=shift), cfg, tags=tags), "millisecond") is None


def test_tags_given_as_a_pyarrow_table_are_read_as_the_frame_traceback() -> None:
    """Ratings take a pyarrow Table; its tags were read with ``tags.empty``: AttributeError."""
    import pyarrow as pa

    tags = pa.Table.from_pandas(_tags(500))
    assert _tag_count(conv(frame(), TAG_CFG, tags=tags)) == {1.0}  # type: ignore[arg-type]


def test_tags_given_as_a_dict_are_refused_naming_the_frame_expected_traceback() -> None:
    tags = {"user": [4], "item": [1], "tag": ["x"], "timestamp": [500]}
    assert own_error(lambda: conv(frame(), TAG_CFG, tags=tags),  # type: ignore[arg-type]
                     "tags", "DataFrame") is None


def test_a_tags_frame_with_movielens_column_names_is_one_clear_error_traceback() -> None:
    tags = pd.DataFrame({"userId": [4], "movieId": [1], "tag": ["x"], "timestamp": [500]})
    assert own_error(lambda: conv(frame(), TAG_CFG, tags=tags), "tags", "user") is None


@pytest.mark.parametrize(("t", "counted"), [(999.5, 1.0), (1_000.0, 0.0), (1_000.5, 0.0)])
def test_fractional_tag_times_fall_on_the_side_of_c1_they_are_on_guard(t: float,
                                                                       counted: float) -> None:
    assert _tag_count(conv(frame(), TAG_CFG, tags=_tags(t))) == {counted}


def test_a_temporal_tag_in_the_second_of_the_authors_first_target_is_no_history_guard() -> None:
    """Documented: a tag is history when written before its author's first target rating.
    User 1's targets are items 4, 5, 6 (t=1500, 2500, 3500); a tag at 1500 is not before."""
    cfg = AdapterConfig(target_size=1, min_history=2, negatives=2,
                        feature_groups=("user", "item", "tags"))
    for t, counted in ((1_499, 1.0), (1_500, 0.0)):
        tags = pd.DataFrame({"user": [1], "item": [1], "tag": ["x"], "timestamp": [t]})
        d = conv(frame(), cfg, tags=tags).train
        assert set(col(d, "tag_user_count")[d.user == 1].tolist()) == {counted}


# --- the windows at their boundaries, and the reference time each split records ------------


def test_the_reference_time_is_c1_under_time_cut_and_the_latest_history_rating_otherwise_guard(
        ) -> None:
    assert conv(frame()).meta["reference_time"] == C1
    # temporal, one rating per window: users 1-3 keep items of t <= 300, 600, 900 in history;
    # user 4 (4 ratings < 3 + 2) keeps all four (t <= 450): the latest history time is 900
    cfg = AdapterConfig(target_size=1, min_history=2, negatives=2, feature_groups=("user",))
    out = conv(frame(), cfg)
    assert out.meta["reference_time"] == 900
    d = out.test
    assert np.allclose(col(d, "user_recency_days")[d.user == 1], (900 - 300) / DAY, rtol=1e-6)
    # documented (per-user windows): a user with no query keeps every rating in history, the
    # latest of them (t=90000) is the reference time of every user's recency
    out = conv(frame([*ROWS, (7, 1, 3.0, 90000)]), cfg)
    assert out.meta["reference_time"] == 90_000
    d = out.test
    assert np.allclose(col(d, "user_recency_days")[d.user == 1], (90_000 - 300) / DAY,
                       rtol=1e-6)


@pytest.mark.parametrize(("min_history", "queries"), [(3, 3), (4, 0)])
def test_time_cut_min_history_counts_history_ratings_exactly_guard(min_history: int,
                                                                   queries: int) -> None:
    cfg = replace(TC, min_history=min_history)
    if queries == 0:
        assert own_error(lambda: conv(frame(), cfg), "train") is None
        return
    out = conv(frame(), cfg)
    assert len(set(out.train.user.tolist())) == queries


@pytest.mark.parametrize(("min_history", "eligible"), [(3, True), (4, False)])
def test_temporal_eligibility_is_three_windows_plus_min_history_guard(min_history: int,
                                                                      eligible: bool) -> None:
    """Six ratings, one per window: 6 - 3 = 3 history ratings."""
    extra = [(5, i, 4.0, 5_000 + i) for i in range(1, 7)]
    cfg = AdapterConfig(target_size=1, min_history=min_history, negatives=2,
                        feature_groups=("user", "item"))
    f = frame(ROWS + extra)
    if not eligible:
        assert own_error(lambda: conv(f, cfg), "no queries") is None
        return
    out = conv(f, cfg)
    assert rows_of(out, 5, 6)["test"] == [3]
    assert rows_of(out, 5, 5)["vali"] == [3]


def test_a_fractional_target_size_takes_the_ceiling_per_user_guard() -> None:
    """target_size=0.2: a user of 11 ratings gets ceil(2.2) = 3 per window, 2 in history."""
    rows = [(9, i, 4.0, 100 * i) for i in range(1, 12)]
    cfg = AdapterConfig(target_size=0.2, min_history=2, negatives=0, feature_groups=("user",))
    out = conv(frame(ROWS + rows), cfg)
    for name, want in (("test", {9, 10, 11}), ("vali", {6, 7, 8}), ("train", {3, 4, 5})):
        d = out.splits()[name]
        assert set(d.item[d.user == 9].tolist()) == want, name
    assert set(col(out.test, "user_count")[out.test.user == 9].tolist()) == {2.0}


def test_targets_of_users_below_min_history_are_counted_unused_guard() -> None:
    """User 5: one history rating (t=50) and two later ones: unused, in no partition."""
    f = frame([*ROWS, (5, 1, 4.0, 50), (5, 2, 4.0, 1500), (5, 3, 4.0, 3500)])
    out = conv(f)
    assert out.meta["ratings_by_role"] == {"unused": 2, "history": 14, "train": 3, "vali": 3,
                                           "test": 3}


def test_a_user_rating_in_one_window_only_is_a_query_of_that_partition_only_guard() -> None:
    f = frame([*ROWS, (6, 1, 4.0, 10), (6, 2, 4.0, 20), (6, 9, 5.0, 2100), (6, 10, 2.0, 2900)])
    out = conv(f)
    assert {n: 6 in d.user for n, d in out.splits().items()} == {
        "train": False, "vali": True, "test": False}
    d = out.vali
    assert set(col(d, "user_count")[d.user == 6].tolist()) == {2.0}


# --- ties in time at a window's edge ------------------------------------------------------------

TIED = [(10, 1, 4.0, 100), (10, 2, 4.0, 200), (10, 3, 4.0, 300), (10, 4, 4.0, 300),
        (10, 5, 4.0, 500), (10, 6, 4.0, 500)]


@pytest.mark.parametrize(("cfg", "want"), [
    (AdapterConfig(target_size=1, min_history=2, negatives=2, feature_groups=("user",)),
     {"users": 1, "edges": 2}),
    (AdapterConfig(split="kfold", n_folds=3, target_size=1, min_history=2, negatives=2,
                   feature_groups=("user",)), {"users": 1, "edges": 1}),
    (AdapterConfig(split="random", target_size=1, min_history=2, negatives=2,
                   feature_groups=("user",)), {"users": 0, "edges": 0}),
    (TC, {"users": 0, "edges": 0}),
], ids=["temporal", "kfold", "random", "time-cut"])
def test_window_edges_decided_by_item_id_within_a_second_are_counted_silent_accept(
        cfg: AdapterConfig, want: dict[str, int]) -> None:
    """User 10 rated items 3 and 4 at t=300, 5 and 6 at t=500: the temporal windows (history
    items 1-3 | train 4 | vali 5 | test 6) start inside both seconds -- the item ids, not time,
    put item 4 in train and item 6 in test. Documented, and now counted where it happens."""
    out = conv(frame(ROWS + TIED), cfg)
    assert out.meta.get("tied_window_edges") == want
    if cfg.split == "temporal":
        assert rows_of(out, 10, 6)["test"]
        assert rows_of(out, 10, 4)["train"]


def test_ml_latest_small_counts_the_users_whose_windows_start_inside_a_second_silent_accept(
        shared_data: Path) -> None:
    """The oracle: pandas, each user's ratings in (time, item) order, the default windows
    (5 each, min_history 5), an edge tied when the rating before it has its timestamp."""
    from bench.adapters.splits import split_ratings
    from bench.adapters.table import build_table

    r = pd.read_csv(shared_data / "ml-latest-small" / "ratings.csv")
    r = r.sort_values(["userId", "timestamp", "movieId"]).reset_index(drop=True)
    pos = r.groupby("userId").cumcount().to_numpy()
    n = r.groupby("userId")["userId"].transform("size").to_numpy()
    prev_same = (r["userId"].shift() == r["userId"]) & (r["timestamp"].shift() == r["timestamp"])
    edge = (n - 15 >= 5) & np.isin(n - pos, (15, 10, 5))
    tied = edge & prev_same.to_numpy()
    frame_ = r.rename(columns={"userId": "user", "movieId": "item"})
    split = split_ratings(build_table(frame_), AdapterConfig())
    assert split.meta["tied_window_edges"] == {
        "users": int(r.loc[tied, "userId"].nunique()), "edges": int(tied.sum())}


# --- the command line --------------------------------------------------------------------------


def _csv(tmp: Path, shift: int = 0) -> None:
    frame(shift=shift).to_csv(tmp / "r.csv", index=False)


CSV = ["--ratings", "r.csv", "--layout", "csv", "--user", "user", "--item", "item",
       "--rating", "rating", "--timestamp", "timestamp", "--split", "time-cut",
       "--min-history", "2", "--negatives", "2", "--features", "user,item", "--no-svmlight"]


def test_cli_cuts_before_1970_are_read_after_an_equals_sign_guard(tmp_path: Path) -> None:
    _csv(tmp_path, shift=-4_000)
    r = cli(tmp_path, "convert", *CSV, "--time-cuts=-3000,-2000,-1000", "--out", "o")
    assert r.status == 0, r.err
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["adapter"]["time_cuts"] == [-3000, -2000, -1000]


def test_cli_date_cuts_are_refused_saying_unix_seconds_unclear_error(tmp_path: Path) -> None:
    _csv(tmp_path)
    r = cli(tmp_path, "convert", *CSV, "--time-cuts", "2015-01-01,2016-01-01,2017-01-01",
            "--out", "o")
    assert refused(r, "--time-cuts", "seconds") is None


def test_cli_cuts_in_milliseconds_on_a_movielens_folder_are_refused_traceback(
        tmp_path: Path) -> None:
    """movies.csv gives release years; the cuts' year (46970) was a ValueError traceback."""
    ml = tmp_path / "ml"
    ml.mkdir()
    frame(shift=1_420_070_400).rename(columns={"user": "userId", "item": "movieId"}).to_csv(
        ml / "ratings.csv", index=False)
    pd.DataFrame({"movieId": range(1, 13), "title": [f"M{i} (1995)" for i in range(1, 13)],
                  "genres": ["Drama"] * 12}).to_csv(ml / "movies.csv", index=False)
    r = cli(tmp_path, "convert", "--ratings", "ml", "--split", "time-cut", "--time-cuts",
            "1420071400000,1420072400000,1420073400000", "--min-history", "2", "--negatives",
            "2", "--features", "user,item", "--no-svmlight", "--out", "o")
    assert refused(r, "--time-cuts", "milliseconds") is None


def test_cli_convert_says_how_many_users_windows_the_item_order_of_a_second_cut_silent_accept(
        tmp_path: Path) -> None:
    frame([*ROWS, *TIED]).to_csv(tmp_path / "r.csv", index=False)
    argv = [a for a in CSV if a not in ("--split", "time-cut")]
    r = cli(tmp_path, "convert", *argv, "--target-size", "1", "--out", "o")
    assert r.status == 0, r.err
    assert "ties: 1 user's windows start inside a second" in r.out, r.out


def test_cli_cuts_after_the_data_name_the_last_rating_unclear_error(tmp_path: Path) -> None:
    _csv(tmp_path)
    r = cli(tmp_path, "convert", *CSV, "--time-cuts", "5000,6000,7000", "--out", "o")
    assert refused(r, "3800", "time") is None
    assert "target_size" not in r.err
