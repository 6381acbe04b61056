"""Round 8b: ratings tables that would make a leaky or wrong split (the ratings adapters).

Before this round: a timestamp column holding seconds on some rows and milliseconds on others
(both below the reader's +-10^12 limit: 978300760 and 978300760000, the same instant of 2000)
was read as one unit, and every temporal split put the millisecond ratings after all the others.
Now the reader refuses it, naming both lines (:func:`bench.data.tabular.load_ratings_table`).
The other cases were already right and are kept as guards: a (user, item) pair twice (also
written 1 and 1.0, 01 or ' 1'), a NaN / inf / empty rating, a float or out-of-range timestamp.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bench.adapters.config import AdapterConfig
from bench.adapters.splits import HISTORY, TEST, TRAIN, UNUSED, VALI, split_ratings
from bench.adapters.table import build_table
from bench.data.tabular import load_ratings_table
from bench.errors import DataError

HEAD = "user,item,rating,ts\n"


def _load(tmp: Path, rows: str) -> pd.DataFrame:
    p = tmp / "r.csv"
    p.write_text(HEAD + rows)
    return load_ratings_table(p, user="user", item="item", rating="rating", timestamp="ts").frame


@pytest.mark.parametrize("rows", ["1,1,4,978300760\n1,2,4,978300760000\n",
                                  "1,2,4,978300760000\n1,1,4,978300760\n"])
def test_seconds_beside_milliseconds_are_refused_naming_both_lines(tmp_path: Path,
                                                                   rows: str) -> None:
    with pytest.raises(DataError, match=r"r.csv:\d, column 'ts': timestamp 978300760000 .*"
                                        r"978300760 \(line \d\): milliseconds beside seconds"):
        _load(tmp_path, rows)


def test_milliseconds_alone_are_one_unit_and_keep_their_order(tmp_path: Path) -> None:
    f = _load(tmp_path, "1,1,4,978300761000\n1,2,4,978300760000\n")
    assert f["timestamp"].tolist() == [978300761000, 978300760000]


def test_milliseconds_beyond_the_readers_limit_are_refused(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"r.csv:3, column 'ts': timestamp 1500000000000 is not"):
        _load(tmp_path, "1,1,4,1500000000\n1,2,4,1500000000000\n")


@pytest.mark.parametrize(("rows", "what"), [
    ("1,1,4,10\n1,1,5,11\n", r"r.csv:3: duplicate \(user=1, item=1\)"),
    ("1,1.0,4,10\n1,1,5,11\n", r"r.csv:3: duplicate \(user=1, item=1"),
    ("1,01,4,10\n1,1,5,11\n", r"r.csv:3: duplicate \(user=1, item=1\)"),
    ("1, 1,4,10\n1,1,5,11\n", r"r.csv:3: duplicate \(user=1, item=1\)"),
    ("1,1.5,4,10\n", r"r.csv:2, column 'item': id '1.5' is not an integer"),
    ("1,1,nan,10\n", r"r.csv:2, column 'rating': value 'nan' is not a plain decimal"),
    ("1,1,inf,10\n", r"r.csv:2, column 'rating': value inf is not a finite number"),
    ("1,1,,10\n", r"r.csv:2, column 'rating': missing value"),
    ("1,1,4,10.5\n", r"r.csv:2, column 'ts': timestamp 10.5 is not a whole number"),
])
def test_bad_ratings_rows_are_refused_at_their_line(tmp_path: Path, rows: str, what: str) -> None:
    with pytest.raises(DataError, match=what):
        _load(tmp_path, rows)


def _frame(rows: list[tuple[int, int, float, int]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["user", "item", "rating", "timestamp"]).astype(
        {"user": np.int64, "item": np.int64, "rating": np.float64, "timestamp": np.int64})


def _roles(rows: list[tuple[int, int, float, int]], config: AdapterConfig) -> dict[tuple[int, int], int]:
    table = build_table(_frame(rows))
    split = split_ratings(table, config)
    pairs = zip(table.user_ids[table.user].tolist(), table.item_ids[table.item].tolist(), strict=False)
    return dict(zip(pairs, split.role.tolist(), strict=False))


def test_negative_timestamps_order_as_numbers(tmp_path: Path) -> None:
    f = _load(tmp_path, "1,1,4,-10\n1,2,4,5\n1,3,4,-20\n1,4,4,0\n")
    roles = _roles(list(f.itertuples(index=False, name=None)),
                   AdapterConfig(target_size=1, min_history=1))
    assert roles == {(1, 3): HISTORY, (1, 1): TRAIN, (1, 4): VALI, (1, 2): TEST}


def test_a_user_with_one_rating_has_no_query() -> None:
    roles = _roles([(1, 1, 4.0, 10)] + [(2, i, 3.0, i) for i in range(1, 6)],
                   AdapterConfig(target_size=1, min_history=1))
    assert roles[(1, 1)] == HISTORY
    assert sorted(v for (u, _), v in roles.items() if u == 2) == [HISTORY, HISTORY, TRAIN, VALI, TEST]


def test_equal_timestamps_at_a_time_cut_fall_on_its_later_side_for_every_user() -> None:
    rows = [(u, i, 4.0, t) for u in (1, 2) for i, t in enumerate((1, 2, 5, 5, 7, 9), start=1)]
    roles = _roles(rows, AdapterConfig(split="time-cut", time_cuts=(5, 7, 9), min_history=1))
    at_cut = {v for (_, i), v in roles.items() if i in (3, 4)}
    assert at_cut == {TRAIN}  # t == 5 == c1: train targets, never history of the same window
    assert {v for (_, i), v in roles.items() if i == 6} == {TEST}


def test_time_cut_quantiles_over_equal_timestamps_are_refused() -> None:
    rows = [(u, i, 4.0, 100) for u in (1, 2) for i in range(1, 5)]
    with pytest.raises(DataError, match=r"not increasing \(too many equal timestamps\)"):
        _roles(rows, AdapterConfig(split="time-cut", min_history=1))


@pytest.mark.parametrize("config", [AdapterConfig(target_size=1, min_history=1),
                                    AdapterConfig(split="random", target_size=1, min_history=1),
                                    AdapterConfig(split="kfold", n_folds=3, target_size=1,
                                                  min_history=1)],
                         ids=["temporal", "random", "kfold"])
def test_every_rating_has_one_role_and_targets_follow_their_users_history(
        config: AdapterConfig) -> None:
    rows = [(u, i, float(1 + (u * i) % 5), 10 * i) for u in range(1, 7) for i in range(1, 9)]
    table = build_table(_frame(rows))
    role = split_ratings(table, config).role
    assert role.shape[0] == len(rows)
    assert set(role.tolist()) <= {HISTORY, TRAIN, VALI, TEST, UNUSED}
    users = table.user_ids[table.user]
    for u in np.unique(users):
        mine = role[users == u]
        assert (mine == HISTORY).sum() >= 1  # every user with a query keeps a history


@pytest.mark.parametrize(("name", "text"), [
    ("ratings.csv", "userId,movieId,rating,timestamp\n1,1,4,978300760\n1,2,4,978300760000\n"),
    ("ratings.dat", "1::1::4::978300760\n1::2::4::978300760000\n"),
    ("u.data", "1\t1\t4\t978300760\n1\t2\t4\t978300760000\n"),
])
def test_movielens_seconds_beside_milliseconds_are_refused(tmp_path: Path, name: str,
                                                          text: str) -> None:
    from bench.data.movielens import load_movielens

    (tmp_path / name).write_text(text)
    with pytest.raises(DataError, match=rf"{name}, row 2, column 'timestamp': timestamp "
                                        r"978300760000 .*\(row 1\): milliseconds beside seconds"):
        load_movielens(tmp_path)
