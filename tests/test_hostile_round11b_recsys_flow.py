"""Round 11b: a recommender-systems engineer's own ratings table through the whole flow.

``ltrbench convert`` (ratings -> LETOR, leakage-free splits), ``ltrbench run --dataset`` on the
table or the converted folder, and ``ltrbench evaluate`` under the recommender profiles
(``recbole``, ``recommenders``, ``cornac``), with plausible but hostile tables: spreadsheet
exports (byte-order mark, CRLF, ``;``, decimal commas, Excel's ``sep=`` line), concatenated
exports (a header repeated mid-file), trailing empty columns, quoted ids with commas, e-mails
and UUIDs as ids, milliseconds, rating scales other than stars, implicit feedback, duplicated
pairs, tied timestamps, cold-start items, one user or one item.

Oracles: the written files read back and checked against the documented rules recomputed here
from the input table (the history rule of :mod:`bench.adapters.splits`, the label mappings of
:mod:`bench.adapters.labels`, history-only counts of :mod:`bench.adapters.features`); the
recommender tools' published formulas (RecBole ``recbole/evaluator/metrics.py``, Recommenders
``python_evaluation.py``, Cornac ``cornac/metrics/ranking.py``) written out by hand here; or a
clear error (exit 2, the file, its line and what was expected).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hostile_kit import cli

C = ["--user", "user", "--item", "item", "--rating", "rating", "--timestamp", "timestamp"]
SMALL = ["--target-size", "1", "--min-history", "2", "--negatives", "3", "--features",
         "user,item"]


def rows(users: int = 12, items: int = 40, per: int = 14, user: str = "u{}", item: str = "i{}",
         tie: bool = False, rating=lambda u, j: (u + j) % 5 + 1) -> list[tuple]:
    out = []
    for u in range(users):
        for j in range(per):
            it = (u * 7 + j * 3) % items
            out.append((user.format(u), item.format(it), rating(u, j),
                        1000 if tie else 1_000_000_000 + u * 50 + j))
    return out


def write(path: Path, rs: list[tuple], *, sep: str = ",", nl: str = "\n", bom: str = "",
          header: str = "user,item,rating,timestamp") -> Path:
    body = nl.join(sep.join(str(x) for x in r) for r in rs)
    path.write_text(bom + header.replace(",", sep) + nl + body + nl, newline="")
    return path


def convert(tmp: Path, name: str, *extra: str, out: str = "out"):
    return cli(tmp, "convert", "--ratings", name, *extra, "--out", out)


def part(tmp: Path, out: str, split: str) -> pd.DataFrame:
    return pd.read_parquet(tmp / out / f"{split}.parquet")


def ok(res) -> None:
    assert res.status == 0, res.err[-600:]
    assert "Traceback" not in res.err


def refused(res, *words: str) -> str:
    assert res.status == 2, (res.status, res.err[-600:])
    assert "Traceback" not in res.err
    for w in words:
        assert w in res.err, (w, res.err[-600:])
    return res.err


def history_of(frame: pd.DataFrame, s: int = 1) -> pd.DataFrame:
    """The temporal split's history recomputed: per user in (time, item) order, all but the
    last 3*s ratings (bench.adapters.splits, temporal rule)."""
    f = frame.sort_values(["user", "timestamp", "item"], kind="stable")
    back = f.groupby("user").cumcount(ascending=False)
    return f[back >= 3 * s]


# --- spreadsheet exports ------------------------------------------------------------------

def test_a_bom_and_crlf_export_converts_exactly_as_the_plain_file(tmp_path: Path) -> None:
    write(tmp_path / "lf.csv", rows(user="{}", item="{}"))
    write(tmp_path / "x.csv", rows(user="{}", item="{}"), nl="\r\n", bom="\ufeff")
    ok(convert(tmp_path, "lf.csv", *C, *SMALL, out="a"))
    ok(convert(tmp_path, "x.csv", *C, *SMALL, out="b"))
    for s in ("train", "vali", "test"):
        pd.testing.assert_frame_equal(part(tmp_path, "a", s), part(tmp_path, "b", s))


def test_a_semicolon_export_read_with_commas_says_which_separator_to_give(tmp_path: Path) -> None:
    write(tmp_path / "x.csv", rows(), sep=";", nl="\r\n", bom="\ufeff")
    refused(convert(tmp_path, "x.csv", *C, *SMALL), "x.csv:1", "';'", "--sep")


def test_run_on_a_semicolon_csv_says_how_to_read_it(tmp_path: Path) -> None:
    (tmp_path / "semi.csv").write_text("userId;movieId;rating;timestamp\r\n" + "".join(
        f"{u};{i};3;{1000 + i}\r\n" for u in range(30) for i in range(25)))
    res = cli(tmp_path, "run", "--dataset", "semi.csv", "--models", "lightgbm-lambdarank",
              "--quick", "--n-trees", "2", "--seeds", "0", "--no-crosscheck", "--out", "r")
    refused(res, "semi.csv:1", "';'", "ltrbench convert --sep")


def test_decimal_commas_are_refused_at_their_line_and_column(tmp_path: Path) -> None:
    rs = [(u, i, f"{r},5", t) for u, i, r, t in rows()]
    write(tmp_path / "x.csv", rs, sep=";", nl="\r\n", bom="\ufeff")
    refused(convert(tmp_path, "x.csv", *C, *SMALL, "--sep", ";"), "x.csv:2", "'rating'", "1,5")


def test_excels_sep_line_before_the_header_is_named(tmp_path: Path) -> None:
    p = tmp_path / "x.csv"
    p.write_text("sep=;\n" + "user;item;rating;timestamp\n"
                 + "".join(";".join(map(str, r)) + "\n" for r in rows()))
    err = refused(convert(tmp_path, "x.csv", *C, *SMALL, "--sep", ";"), "x.csv:1", "sep=")
    assert "separator line" in err or "Excel" in err


def test_a_header_repeated_mid_file_is_named_as_a_header(tmp_path: Path) -> None:
    lines = ["\t".join(map(str, r)) for r in rows()]
    lines.insert(60, "user\titem\trating\ttimestamp")
    (tmp_path / "h.tsv").write_text("user\titem\trating\ttimestamp\n" + "\n".join(lines) + "\n")
    err = refused(convert(tmp_path, "h.tsv", *C, *SMALL), "h.tsv:62")
    assert "header" in err


def test_a_repeated_header_with_text_ids_is_not_read_as_a_user(tmp_path: Path) -> None:
    """Concatenated implicit exports: ids are text, no rating column -- the repeated header
    would be a user 'user' who rated the item 'item'."""
    lines = [f"{u},{i},{t}" for u, i, _, t in rows()]
    lines.insert(30, "user,item,timestamp")
    (tmp_path / "h.csv").write_text("user,item,timestamp\n" + "\n".join(lines) + "\n")
    err = refused(convert(tmp_path, "h.csv", "--user", "user", "--item", "item", "--timestamp",
                          "timestamp", *SMALL), "h.csv:32")
    assert "header" in err


def test_trailing_empty_columns_on_every_line_are_not_read(tmp_path: Path) -> None:
    rs = rows(user="{}", item="{}")
    write(tmp_path / "a.csv", rs)
    (tmp_path / "t.csv").write_text("user,item,rating,timestamp,,\n"
                                    + "".join(",".join(map(str, r)) + ",,\n" for r in rs))
    ok(convert(tmp_path, "a.csv", *C, *SMALL, out="a"))
    ok(convert(tmp_path, "t.csv", *C, *SMALL, out="t"))
    pd.testing.assert_frame_equal(part(tmp_path, "a", "test"), part(tmp_path, "t", "test"))


def test_a_trailing_separator_on_data_lines_only_is_refused_at_line_2(tmp_path: Path) -> None:
    (tmp_path / "t.csv").write_text("user,item,rating,timestamp\n"
                                    + "".join(",".join(map(str, r)) + ",\n" for r in rows()))
    refused(convert(tmp_path, "t.csv", *C, *SMALL), "t.csv:2", "5 fields, expected 4")


# --- ids ----------------------------------------------------------------------------------

def _id_map(tmp: Path, out: str, role: str) -> dict[int, str]:
    m = pd.read_csv(tmp / out / f"{role}s.csv", dtype={"external_id": str}, keep_default_na=False)
    return dict(zip(m[role].tolist(), m["external_id"].tolist(), strict=True))


@pytest.mark.parametrize("user", ['"Doe, J{}"', "user{}@example.com",
                                  "123e4567-e89b-12d3-a456-4266141740{:02d}",
                                  "x" * 5000 + "{}"])
def test_text_ids_are_one_id_each_and_map_back_to_the_users_spelling(tmp_path: Path,
                                                                     user: str) -> None:
    rs = rows(user=user)
    write(tmp_path / "r.csv", rs)
    ok(convert(tmp_path, "r.csv", *C, *SMALL))
    users = _id_map(tmp_path, "out", "user")
    test = part(tmp_path, "out", "test")
    assert len(set(test.user)) == 12
    want = {user.format(u).strip('"') for u in range(12)}
    assert {users[u] for u in test.user} == want


def test_the_item_map_gives_back_each_test_targets_own_rating(tmp_path: Path) -> None:
    """Every test target (user, item), mapped back through the written maps, is the last
    rating of that user in the input (the temporal rule, target size 1)."""
    rs = rows()
    write(tmp_path / "r.csv", rs)
    ok(convert(tmp_path, "r.csv", *C, *SMALL, "--labels", "halfstar"))
    users, items = _id_map(tmp_path, "out", "user"), _id_map(tmp_path, "out", "item")
    test = part(tmp_path, "out", "test")
    frame = pd.DataFrame(rs, columns=["user", "item", "rating", "timestamp"])
    last = frame.sort_values("timestamp").groupby("user").tail(1)
    want = {(u, i): 2.0 * r for u, i, r in zip(last.user, last.item, last.rating, strict=True)}
    got = {(users[u], items[i]): lab for u, i, lab in zip(test.user, test.item, test.label,
                                                         strict=True) if lab > 0}
    assert got == want


def test_numeric_ids_need_no_map_and_none_is_written(tmp_path: Path) -> None:
    write(tmp_path / "r.csv", rows(user="{}", item="{}"))
    ok(convert(tmp_path, "r.csv", *C, *SMALL))
    assert not (tmp_path / "out" / "users.csv").exists()
    assert not (tmp_path / "out" / "items.csv").exists()


@pytest.mark.parametrize("order", ["item", "reversed"])
def test_text_ids_with_tied_times_split_the_same_whatever_the_row_order(tmp_path: Path,
                                                                        order: str) -> None:
    """All timestamps equal: the temporal order is the item order ('ties by item id'); a table
    sorted by item instead of by user must give the same targets, by the user's own ids."""
    rs = rows(tie=True)
    other = sorted(rs, key=lambda r: (r[1], r[0])) if order == "item" else rs[::-1]
    write(tmp_path / "a.csv", rs)
    write(tmp_path / "b.csv", other)
    ok(convert(tmp_path, "a.csv", *C, *SMALL, out="a"))
    ok(convert(tmp_path, "b.csv", *C, *SMALL, out="b"))
    for out in ("a", "b"):
        assert (tmp_path / out).is_dir()

    def targets(out: str) -> set[tuple[str, str]]:
        t = part(tmp_path, out, "test")
        users, items = _id_map(tmp_path, out, "user"), _id_map(tmp_path, out, "item")
        return {(users[u], items[i]) for u, i, lab in zip(t.user, t.item, t.label,
                                                          strict=True) if lab > 0}

    assert targets("a") == targets("b")


def test_text_item_ids_number_in_sorted_order_in_the_reader(tmp_path: Path) -> None:
    from bench.data.tabular import load_ratings_table

    p = tmp_path / "r.csv"
    p.write_text("user,item\nb,zeta\na,alpha\nb,alpha\n")
    r = load_ratings_table(p, user="user", item="item")
    assert r.items is not None
    assert r.users is not None
    assert r.items.set_index("item")["external_id"].tolist() == ["alpha", "zeta"]
    assert r.users.set_index("user")["external_id"].tolist() == ["a", "b"]


# --- timestamps ---------------------------------------------------------------------------

def test_milliseconds_since_2001_are_refused_saying_milliseconds(tmp_path: Path) -> None:
    rs = [(u, i, r, 1_600_000_000_000 + t - 1_000_000_000) for u, i, r, t in rows()]
    write(tmp_path / "ms.csv", rs)
    refused(convert(tmp_path, "ms.csv", *C, *SMALL), "ms.csv:2", "'timestamp'", "millisecond")


def test_tied_timestamps_at_the_boundary_put_the_larger_item_id_in_test(tmp_path: Path) -> None:
    """User 1's last two ratings share a time: 'ties by item id' puts item 9 (not 3) last."""
    rs = [(1, i, 3, 100 + k) for k, i in enumerate((11, 12, 13, 14))] + [(1, 9, 4, 500),
                                                                         (1, 3, 5, 500)]
    rs += [(2, i, 3, 100 + i) for i in range(20, 27)]
    write(tmp_path / "r.csv", rs)
    ok(convert(tmp_path, "r.csv", *C, *SMALL, "--labels", "halfstar"))
    t = part(tmp_path, "out", "test")
    assert t[(t.user == 1) & (t.label > 0)][["item", "label"]].values.tolist() == [[9, 8]]
    v = part(tmp_path, "out", "vali")
    assert v[(v.user == 1) & (v.label > 0)][["item", "label"]].values.tolist() == [[3, 10]]


# --- the same item twice ------------------------------------------------------------------

def test_duplicates_last_keeps_the_later_rating_even_when_written_first(tmp_path: Path) -> None:
    rs = [(r[0], r[1], r[2], r[3]) for r in rows(user="{}", item="{}")]
    u, i, _, t = rs[13]  # user 0's last rating: its test target
    rs.insert(0, (u, i, 1, t - 500))  # an earlier rating of the same pair, on the first line
    rs[14] = (u, i, 5, t)
    write(tmp_path / "r.csv", rs)
    ok(convert(tmp_path, "r.csv", *C, *SMALL, "--duplicates", "last", "--labels", "halfstar"))
    test = part(tmp_path, "out", "test")
    assert test[(test.user == int(u)) & (test.label > 0)][["item", "label"]].values.tolist() \
        == [[int(i), 10.0]]


def test_duplicates_mean_grades_the_mean_and_keeps_the_latest_time(tmp_path: Path) -> None:
    rs = rows(user="{}", item="{}", rating=lambda u, j: 4)
    u, i, _, t = rs[13]
    rs.append((u, i, 2, t - 10_000))  # the mean is 3: graded 2 ('3-3.5 -> 2')
    write(tmp_path / "r.csv", rs)
    ok(convert(tmp_path, "r.csv", *C, *SMALL, "--duplicates", "mean"))
    test = part(tmp_path, "out", "test")
    assert test[(test.user == int(u)) & (test.label > 0)][["item", "label"]].values.tolist() \
        == [[int(i), 2.0]]


# --- rating scales and labels -------------------------------------------------------------

def _labels_follow(tmp: Path, rs: list[tuple], fn) -> None:
    frame = pd.DataFrame(rs, columns=["user", "item", "rating", "timestamp"]).astype(
        {"user": int, "item": int})
    rating = {(u, i): r for u, i, r in zip(frame.user, frame.item, frame.rating, strict=True)}
    for s in ("train", "vali", "test"):
        p = part(tmp, "out", s)
        for u, i, lab in zip(p.user, p.item, p.label, strict=True):
            want = fn(float(rating[(u, i)])) if (u, i) in rating else 0.0
            assert lab == want, (s, u, i, lab, want)


def test_a_1_to_100_scale_with_a_binary_threshold_grades_as_documented(tmp_path: Path) -> None:
    rs = rows(user="{}", item="{}", rating=lambda u, j: (u * 13 + j * 29) % 100 + 1)
    write(tmp_path / "r.csv", rs)
    ok(convert(tmp_path, "r.csv", *C, *SMALL, "--labels", "binary", "--binary-threshold", "50"))
    _labels_follow(tmp_path, rs, lambda r: float(r >= 50))


def test_half_star_ratings_become_twice_their_value(tmp_path: Path) -> None:
    rs = rows(user="{}", item="{}", rating=lambda u, j: ((u + 3 * j) % 10 + 1) / 2)
    write(tmp_path / "r.csv", rs)
    ok(convert(tmp_path, "r.csv", *C, *SMALL, "--labels", "halfstar"))
    _labels_follow(tmp_path, rs, lambda r: 2 * r)


def test_graded_labels_follow_the_documented_cuts(tmp_path: Path) -> None:
    rs = rows(user="{}", item="{}", rating=lambda u, j: ((u + 3 * j) % 10 + 1) / 2)
    write(tmp_path / "r.csv", rs)
    ok(convert(tmp_path, "r.csv", *C, *SMALL))
    _labels_follow(tmp_path, rs, lambda r: 1.0 + (r >= 3) + (r >= 4) + (r >= 5))


@pytest.mark.parametrize(("labels", "rating", "line"), [("halfstar", 0, 5), ("graded", 7, 5),
                                                       ("halfstar", 0.25, 5)])
def test_a_rating_the_mapping_cannot_grade_is_refused_at_its_file_line(
        tmp_path: Path, labels: str, rating: float, line: int) -> None:
    rs = rows(user="{}", item="{}", rating=lambda u, j: 3)
    rs[line - 2] = (*rs[line - 2][:2], rating, rs[line - 2][3])
    write(tmp_path / "r.csv", rs)
    refused(convert(tmp_path, "r.csv", *C, *SMALL, "--labels", labels), f"r.csv:{line}",
            "'rating'", repr(float(rating)))


def test_implicit_feedback_without_a_rating_column_grades_every_target_1(tmp_path: Path) -> None:
    (tmp_path / "imp.csv").write_text(
        "user,item,timestamp\n" + "".join(f"{u},{i},{t}\n" for u, i, _, t in rows()))
    ok(convert(tmp_path, "imp.csv", "--user", "user", "--item", "item", "--timestamp",
               "timestamp", *SMALL))
    for s in ("train", "vali", "test"):
        p = part(tmp_path, "out", s)
        assert sorted(set(p.label)) == [0.0, 1.0]
        assert (p.groupby("qid").label.sum() == 1).all()


def test_liked_labels_on_implicit_feedback_are_refused_naming_the_mapping(tmp_path: Path) -> None:
    (tmp_path / "imp.csv").write_text(
        "user,item\n" + "".join(f"{u},{i}\n" for u, i, _, _ in rows()))
    refused(convert(tmp_path, "imp.csv", "--user", "user", "--item", "item", *SMALL,
                    "--split", "random", "--labels", "liked"), "no relevant row", "liked")


def test_all_ratings_identical_give_one_grade_to_every_target(tmp_path: Path) -> None:
    rs = rows(rating=lambda u, j: 5)
    write(tmp_path / "r.csv", rs)
    ok(convert(tmp_path, "r.csv", *C, *SMALL))
    p = part(tmp_path, "out", "test")
    assert sorted(set(p.label)) == [0.0, 4.0]


# --- tiny tables --------------------------------------------------------------------------

def test_one_item_rated_by_everyone_is_refused_saying_no_queries(tmp_path: Path) -> None:
    write(tmp_path / "one.csv", [(f"u{k}", "i0", 3, 1000 + k) for k in range(20)])
    refused(convert(tmp_path, "one.csv", *C, *SMALL), "one.csv", "no queries")


def test_one_user_gives_one_query_per_partition(tmp_path: Path) -> None:
    """u0 is the only user with enough ratings (u1's four leave one history rating, below
    --min-history 2); u1's four items are the only ones u0 never rated: each is dealt to one
    partition, every partition gets one at least (bench.adapters.negatives)."""
    rs = [("u0", f"i{k}", 3, 1000 + k) for k in range(20)]
    rs += [("u1", f"j{k}", 3, 5 + k) for k in range(4)]
    write(tmp_path / "u.csv", rs)
    ok(convert(tmp_path, "u.csv", *C, *SMALL))
    negatives = []
    for s in ("train", "vali", "test"):
        p = part(tmp_path, "out", s)
        assert p.qid.nunique() == 1
        assert (p.label > 0).sum() == 1
        negatives += p.item[p.label == 0].tolist()
    assert sorted(negatives) == [20, 21, 22, 23]  # j0..j3 numbered after i0..i19


def test_a_user_who_rated_every_item_is_warned_of_queries_without_negatives(
        tmp_path: Path) -> None:
    write(tmp_path / "u.csv", [("u0", f"i{k}", 3, 1000 + k) for k in range(20)])
    res = convert(tmp_path, "u.csv", *C, *SMALL)
    ok(res)
    assert "1 of 1 test queries have no never-rated item" in res.err
    assert len(part(tmp_path, "out", "test")) == 1


def test_users_with_a_single_rating_feed_history_but_get_no_query(tmp_path: Path) -> None:
    rs = rows(user="{}", item="{}") + [(100 + k, 5, 5, 10) for k in range(6)]
    write(tmp_path / "r.csv", rs)
    ok(convert(tmp_path, "r.csv", *C, *SMALL))
    test = part(tmp_path, "out", "test")
    assert not set(test.user) & set(range(100, 106))
    frame = pd.DataFrame(rs, columns=["user", "item", "rating", "timestamp"]).astype(
        {"user": int, "item": int})
    count = history_of(frame).item.value_counts()
    for i, c in zip(test.item, test.item_count, strict=True):
        assert c == count.get(i, 0), (i, c)


# --- leakage, recomputed from the files ---------------------------------------------------

@pytest.mark.parametrize("split", ["temporal", "random", "kfold", "time-cut"])
def test_no_rated_pair_is_in_two_partitions_nor_a_target_in_the_features(tmp_path: Path,
                                                                        split: str) -> None:
    rs = [(u, i, r, 1_000_000_000 + (n % 16) * 10 + n // 16)
          for n, (u, i, r, _) in enumerate(rows(users=15, per=16))]
    write(tmp_path / "r.csv", rs)
    extra = {"kfold": ["--folds", "3", "--fold", "0"],
             "time-cut": ["--time-cuts", "1000000100,1000000120,1000000140"]}.get(split, [])
    small = SMALL[2:] if split == "time-cut" else SMALL
    ok(convert(tmp_path, "r.csv", *C, *small, "--split", split, *extra))
    users, items = _id_map(tmp_path, "out", "user"), _id_map(tmp_path, "out", "item")
    rated = {(u, i) for u, i, _, _ in rs}
    seen: dict[tuple[str, str], str] = {}
    n_targets = {}
    for s in ("train", "vali", "test"):
        p = part(tmp_path, "out", s)
        for u, i, lab in zip(p.user, p.item, p.label, strict=True):
            pair = (users[u], items[i])
            assert pair not in seen, (pair, seen.get(pair), s)
            seen[pair] = s
            assert (pair in rated) == (lab > 0), pair
        n_targets[s] = p[p.label > 0].groupby("user").size().to_dict()
    # user_count = the user's ratings that are no target of any partition (one history)
    n_u = pd.Series([u for u, _, _, _ in rs]).value_counts()
    test = part(tmp_path, "out", "test")
    for u, c in zip(test.user, test.user_count, strict=True):
        ext = users[u]
        targets = sum(1 for (uu, _), s in seen.items() if uu == ext and (uu, _) in rated)
        assert c == n_u[ext] - targets, (ext, c, n_u[ext], targets)


def test_item_counts_of_test_rows_are_the_history_counts_recomputed(tmp_path: Path) -> None:
    rs = rows(user="{}", item="{}", users=15, per=16)
    write(tmp_path / "r.csv", rs)
    ok(convert(tmp_path, "r.csv", *C, *SMALL))
    frame = pd.DataFrame(rs, columns=["user", "item", "rating", "timestamp"]).astype(
        {"user": int, "item": int})
    hist = history_of(frame)
    count, mean = hist.item.value_counts(), hist.groupby("item").rating.mean()
    for s in ("train", "test"):
        p = part(tmp_path, "out", s)
        for i, c, m in zip(p.item, p.item_count, p.item_mean, strict=True):
            assert c == count.get(i, 0)
            if c:
                assert m == pytest.approx(mean[i], rel=1e-6)


def test_a_cold_start_item_seen_only_in_test_has_no_history(tmp_path: Path) -> None:
    rs = rows(user="{}", item="{}")
    rs[13] = (rs[13][0], 999, 5, rs[13][3] + 10)  # user 0's last rating: a new item
    write(tmp_path / "r.csv", rs)
    ok(convert(tmp_path, "r.csv", *C, *SMALL))
    test = part(tmp_path, "out", "test")
    row = test[(test.item == 999)]
    assert len(row) == 1
    assert row.label.iloc[0] > 0
    assert row.item_count.iloc[0] == 0
    for s in ("train", "vali"):  # a negative of other users there, never a target
        p = part(tmp_path, "out", s)
        assert (p[p.item == 999].label == 0).all()
        assert (p[p.item == 999].item_count == 0).all()


# --- the recommender profiles, by hand ----------------------------------------------------

def _flow(tmp: Path) -> tuple[dict[str, set[str]], dict[str, list[str]]]:
    """Convert (binary labels), score each test row by the item's history count (a popularity
    baseline), write qrels (all of a user's test rows) and a run cut at 2 per user, so some
    relevant items are not retrieved; the ground truth and the ranked lists by hand."""
    rs = rows(users=10, per=14)
    write(tmp / "r.csv", rs)
    ok(convert(tmp, "r.csv", *C, "--target-size", "2", "--min-history", "2", "--negatives", "4",
               "--features", "user,item", "--labels", "binary", "--binary-threshold", "3"))
    t = part(tmp, "out", "test")
    q, r, truth, ranked = [], [], {}, {}
    for u, g in t.groupby("user", sort=True):
        score = g.item_count + 0.001 * g.item  # no ties
        order = g.assign(score=score).sort_values("score", ascending=False)
        truth[f"u{u}"] = {f"d{i}" for i, lab in zip(g.item, g.label, strict=True) if lab > 0}
        ranked[f"u{u}"] = [f"d{i}" for i in order.item[:2]]
        q += [f"u{u} 0 d{i} {int(lab)}" for i, lab in zip(g.item, g.label, strict=True)]
        r += [f"u{u} Q0 d{i} {k + 1} {s:.6f} pop" for k, (i, s) in
              enumerate(zip(order.item[:2], order.score[:2], strict=True))]
    (tmp / "q.txt").write_text("\n".join(q) + "\n")
    (tmp / "run.txt").write_text("\n".join(r) + "\n")
    return {u: v for u, v in truth.items() if v}, ranked


def _evaluate(tmp: Path, profile: str, metrics: list[str]) -> dict[str, float]:
    import json

    res = cli(tmp, "evaluate", "--qrels", "q.txt", "--run", "run.txt", "--profile", profile,
              "--metrics", *metrics, "--format", "json")
    ok(res)
    return json.loads(res.out)["metrics"]


def _hits(truth: dict[str, set[str]], ranked: dict[str, list[str]], u: str, k: int) -> list[int]:
    return [1 if d in truth[u] else 0 for d in ranked.get(u, [])[:k]]


def test_recbole_numbers_are_its_formulas_over_the_ground_truth(tmp_path: Path) -> None:
    truth, ranked = _flow(tmp_path)
    got = _evaluate(tmp_path, "recbole", ["ndcg@2", "recall@2", "p@2", "mrr@2", "map@2",
                                          "hits@2"])
    per: dict[str, list[float]] = {m: [] for m in got}
    for u in truth:
        h, n_rel, k = _hits(truth, ranked, u, 2), len(truth[u]), 2
        idcg = sum(1 / math.log2(j + 2) for j in range(min(n_rel, k)))
        per["ndcg@2"].append(sum(x / math.log2(j + 2) for j, x in enumerate(h)) / idcg)
        per["recall@2"].append(sum(h) / n_rel)
        per["p@2"].append(sum(h) / k)
        per["mrr@2"].append(next((1 / (j + 1) for j, x in enumerate(h) if x), 0.0))
        cum = np.cumsum(h)
        per["map@2"].append(sum(cum[j] / (j + 1) for j, x in enumerate(h) if x) / min(n_rel, k))
        per["hits@2"].append(float(any(h)))
    for m, vals in per.items():
        assert got[m] == pytest.approx(float(np.mean(vals)), abs=1e-12), m


def test_recommenders_numbers_are_its_formulas_over_the_ground_truth(tmp_path: Path) -> None:
    truth, ranked = _flow(tmp_path)
    got = _evaluate(tmp_path, "recommenders", ["ndcg@2", "recall@2", "p@2", "map@2"])
    per: dict[str, list[float]] = {m: [] for m in got}
    for u in truth:
        h, n_rel, k = _hits(truth, ranked, u, 2), len(truth[u]), 2
        idcg = sum(1 / math.log(j + 2) for j in range(min(n_rel, k)))
        per["ndcg@2"].append(sum(x / math.log(j + 2) for j, x in enumerate(h)) / idcg)
        per["recall@2"].append(sum(h) / n_rel)
        per["p@2"].append(sum(h) / k)
        cum = np.cumsum(h)
        per["map@2"].append(sum(cum[j] / (j + 1) for j, x in enumerate(h) if x) / min(n_rel, k))
    for m, vals in per.items():
        assert got[m] == pytest.approx(float(np.mean(vals)), abs=1e-12), m


def test_cornac_numbers_are_its_formulas_over_the_ground_truth(tmp_path: Path) -> None:
    truth, ranked = _flow(tmp_path)
    got = _evaluate(tmp_path, "cornac", ["ndcg@2", "recall@2", "p@2", "mrr"])
    per: dict[str, list[float]] = {m: [] for m in got}
    for u in truth:
        h, n_rel = _hits(truth, ranked, u, 2), len(truth[u])
        idcg = sum(1 / math.log2(j + 2) for j in range(min(n_rel, 2)))
        per["ndcg@2"].append(sum(x / math.log2(j + 2) for j, x in enumerate(h)) / idcg)
        per["recall@2"].append(sum(h) / n_rel)
        per["p@2"].append(sum(h) / len(h))  # tp / the items recommended in the top k
        per["mrr"].append(next((1 / (j + 1) for j, x in enumerate(h) if x), 0.0))
    for m, vals in per.items():
        assert got[m] == pytest.approx(float(np.mean(vals)), abs=1e-12), m


def test_a_user_the_run_skips_scores_0_under_recbole_and_is_left_out_by_cornac(
        tmp_path: Path) -> None:
    truth, ranked = _flow(tmp_path)
    gone = sorted(truth)[0]
    lines = (tmp_path / "run.txt").read_text().splitlines()
    (tmp_path / "run.txt").write_text("\n".join(x for x in lines if x.split()[0] != gone) + "\n")
    recall = {u: sum(_hits(truth, ranked, u, 2)) / len(truth[u]) for u in truth}
    rb = _evaluate(tmp_path, "recbole", ["recall@2"])
    assert rb["recall@2"] == pytest.approx(
        sum(v for u, v in recall.items() if u != gone) / len(truth), abs=1e-12)
    cn = _evaluate(tmp_path, "cornac", ["recall@2"])
    assert cn["recall@2"] == pytest.approx(
        sum(v for u, v in recall.items() if u != gone) / (len(truth) - 1), abs=1e-12)


def test_graded_labels_under_recbole_are_refused_naming_the_line_and_the_way_out(
        tmp_path: Path) -> None:
    write(tmp_path / "r.csv", rows())
    ok(convert(tmp_path, "r.csv", *C, *SMALL))
    (tmp_path / "s.txt").write_text("".join(f"{k * 0.01}\n" for k in range(
        len(part(tmp_path, "out", "test")))))
    res = cli(tmp_path, "evaluate", "--data", "out/test.txt", "--scores", "s.txt", "--profile",
              "recbole", "--metrics", "ndcg@3")
    err = refused(res, "out/test.txt:", "above 1", "recbole")
    assert "--labels" in err or "binary" in err


# --- run on the table and on the converted folder ----------------------------------------

def test_run_on_a_converted_text_id_folder_trains_and_evaluates(tmp_path: Path) -> None:
    write(tmp_path / "r.csv", rows(user="user{}@example.com"))
    ok(convert(tmp_path, "r.csv", *C, *SMALL, out="conv"))
    res = cli(tmp_path, "run", "--dataset", "conv", "--models", "lightgbm-lambdarank", "--quick",
              "--n-trees", "3", "--seeds", "0", "--no-crosscheck", "--out", "res",
              "--no-progress")
    ok(res)
    run = next((tmp_path / "res" / "runs").iterdir())
    labels = pd.read_parquet(run / "labels.parquet")
    assert len(labels) > 0


def test_a_parquet_rating_the_mapping_cannot_grade_names_its_parquet_row(tmp_path: Path) -> None:
    rs = rows(user="{}", item="{}", rating=lambda u, j: 3)
    rs[6] = (*rs[6][:2], 9, rs[6][3])
    frame = pd.DataFrame(rs, columns=["user", "item", "rating", "timestamp"]).astype(
        {"user": int, "item": int})
    frame.to_parquet(tmp_path / "r.parquet")
    refused(convert(tmp_path, "r.parquet", *C, *SMALL), "r.parquet, row 7", "'rating'", "9.0")


def test_exports_joined_with_their_byte_order_marks_are_refused_at_the_joint(
        tmp_path: Path) -> None:
    a = write(tmp_path / "a.csv", rows()[:80], bom="\ufeff").read_bytes()
    b = write(tmp_path / "b.csv", rows()[80:], bom="\ufeff").read_bytes()
    (tmp_path / "j.csv").write_bytes(a + b)
    refused(convert(tmp_path, "j.csv", *C, *SMALL), "j.csv:82")


def test_an_id_holding_quotes_and_commas_maps_back_exactly(tmp_path: Path) -> None:
    (tmp_path / "r.csv").write_text("user,item,rating,timestamp\n" + "".join(
        f'"O""Brien, {u}",{i},{r},{t}\n' for u, i, r, t in rows(user="{}")))
    ok(convert(tmp_path, "r.csv", *C, *SMALL))
    users = _id_map(tmp_path, "out", "user")
    assert sorted(users.values()) == sorted(f'O"Brien, {u}' for u in range(12))


def test_recommenders_counts_a_skipped_user_in_ndcg_only(tmp_path: Path) -> None:
    """python_evaluation.py: ndcg_at_k merges with the whole rating_true (a user without
    predictions scores 0 and counts); precision/recall average over the users common to both."""
    truth, ranked = _flow(tmp_path)
    gone = sorted(truth)[-1]
    lines = (tmp_path / "run.txt").read_text().splitlines()
    (tmp_path / "run.txt").write_text("\n".join(x for x in lines if x.split()[0] != gone) + "\n")
    kept = [u for u in truth if u != gone]
    ndcg, recall = [], []
    for u in kept:
        h, n_rel = _hits(truth, ranked, u, 2), len(truth[u])
        idcg = sum(1 / math.log(j + 2) for j in range(min(n_rel, 2)))
        ndcg.append(sum(x / math.log(j + 2) for j, x in enumerate(h)) / idcg)
        recall.append(sum(h) / n_rel)
    got = _evaluate(tmp_path, "recommenders", ["ndcg@2", "recall@2"])
    assert got["ndcg@2"] == pytest.approx(sum(ndcg) / len(truth), abs=1e-12)
    assert got["recall@2"] == pytest.approx(sum(recall) / len(kept), abs=1e-12)
