"""Round 15: a recommender engineer's warehouse export through ``convert``, ``run`` and the profiles.

The persona: a ratings / interaction table exported from a warehouse (CSV) or from Spark
(Parquet) with zero-padded text user ids, item ids with spaces, half stars, implicit 1s,
negative "dislike" values, times in seconds, milliseconds or ISO text, duplicate events, users
with one interaction; converted with ``ltrbench convert``, run with ``ltrbench run`` on the
converted folder, and scored with the recommender profiles used in production (``ranx``,
``recbole``, ``recommenders``).

Oracles: the converted files read back (pandas, scikit-learn's SVMlight reader, hashlib),
the documented rules recomputed here from the input table (time order of the temporal and
time-cut splits, the label mappings of :mod:`bench.adapters.labels`), ranx itself
(``make_comparable=True``), hand arithmetic from RecBole's ``recbole/evaluator/metrics.py`` and
Recommenders' ``python_evaluation.py``, "the input file's bytes are unchanged", or a clear
error (exit 2 naming the file, line/row, column or option and what was expected).

Classes: a folder holding both a text and a Parquet split set (the leftover: read through its
Parquet files only when ``summary.json`` says one conversion wrote both, unchanged since:
else refused naming both files), dates finer than a second that whole seconds would tie
(one user's time order decided by item id: refused naming both rows), ids kept exactly,
ratings -> grades, splits without leakage, outputs over inputs, options, profile numbers.
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hostile_kit import cli, refused

C = ["--user", "user", "--item", "item", "--rating", "rating", "--timestamp", "timestamp"]
SMALL = ["--target-size", "1", "--min-history", "2", "--negatives", "3", "--features",
         "user,item"]
SPLITS = ("train", "vali", "test")


def export_rows(users: int = 10, per: int = 9, items: int = 30) -> list[tuple[Any, ...]]:
    """A warehouse export: zero-padded text users, items with spaces, half stars, dislikes."""
    scale = [5.0, 4.5, 1.0, -1.0, 3.5, 2.0, 4.0, 0.5, 3.0]
    out = []
    for u in range(users):
        for j in range(per):
            out.append((f"{u:05d}", f"sku {(u * 7 + j * 4) % items}", scale[(u + j) % 9],
                        1_600_000_000 + u * 1000 + j * 60))
    return out


def write_csv(path: Path, rows: list[tuple[Any, ...]],
              header: str = "user,item,rating,timestamp") -> Path:
    path.write_text(header + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows))
    return path


@pytest.fixture(scope="module")
def conv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One conversion of the export (text and Parquet sets, ``summary.json``)."""
    tmp = tmp_path_factory.mktemp("conv")
    write_csv(tmp / "export.csv", export_rows())
    res = cli(tmp, "convert", "--ratings", "export.csv", *C, *SMALL, "--labels", "binary",
              "--binary-threshold", "3.5", "--out", "out")
    assert res.status == 0, res.err
    return tmp / "out"


def copy_of(conv: Path, tmp: Path, name: str = "ds") -> Path:
    dest = tmp / name
    shutil.copytree(conv, dest)
    return dest


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def load(folder: Path) -> Any:
    from bench.datasets.resolve import load_path

    return load_path(folder)


def run_on(tmp: Path, folder: Path) -> Any:
    return cli(tmp, "run", "--dataset", str(folder), "--models", "random", "--quick",
               "--seeds", "1", "--out", str(tmp / "runs"))


# ------------------------------------------------- a folder of two split sets (the leftover)
def test_a_converted_folder_is_read_through_its_parquet_set_without_a_word(conv: Path) -> None:
    from sklearn.datasets import load_svmlight_file

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        splits = load(conv)
    assert splits.meta["layout"] == "parquet"
    for s in SPLITS:  # the precedence is harmless: both sets hold the same rows
        y, qid = load_svmlight_file(str(conv / f"{s}.txt"), query_id=True)[1:]
        assert getattr(splits, s).y.tolist() == y.tolist()
        assert getattr(splits, s).qid.tolist() == qid.tolist()


def test_the_conversion_records_every_split_files_sha256(conv: Path) -> None:
    record = json.loads((conv / "summary.json").read_text())["sha256"]
    names = {f"{s}{e}" for s in SPLITS for e in (".txt", ".txt.query", ".parquet")}
    assert set(record) == names
    for n in names:
        assert record[n] == hashlib.sha256((conv / n).read_bytes()).hexdigest()


def test_a_text_split_edited_after_the_conversion_is_refused_naming_it(conv: Path,
                                                                          tmp_path: Path) -> None:
    ds = copy_of(conv, tmp_path)
    text = (ds / "train.txt").read_text()
    lines = text.splitlines(keepends=True)
    k = next(i for i, ln in enumerate(lines) if ln.startswith("0 "))
    lines[k] = "1" + lines[k][1:]  # one label changed: the size stays, the text set disagrees
    (ds / "train.txt").write_text("".join(lines))
    before = snapshot(ds)
    res = run_on(tmp_path, ds)
    assert refused(res, "train.txt", "changed since the conversion", "train.parquet") is None
    assert snapshot(ds) == before


def test_a_query_file_replaced_after_the_conversion_is_refused_naming_it(conv: Path,
                                                                         tmp_path: Path) -> None:
    ds = copy_of(conv, tmp_path)
    sizes = (ds / "vali.txt.query").read_text().split()
    (ds / "vali.txt.query").write_text("\n".join([str(int(sizes[0]) + int(sizes[1])),
                                                  *sizes[2:]]) + "\n")
    with pytest.raises(Exception, match=r"vali\.txt\.query changed since the conversion"):
        load(ds)


def test_a_parquet_split_rewritten_after_the_conversion_is_refused_naming_it(
        conv: Path, tmp_path: Path) -> None:
    ds = copy_of(conv, tmp_path)
    t = pq.read_table(ds / "test.parquet")
    labels = t.column("label").to_numpy().copy()
    labels[0] = 1.0 - labels[0]
    pq.write_table(t.set_column(t.schema.get_field_index("label"), "label", pa.array(labels)),
                   ds / "test.parquet")
    res = run_on(tmp_path, ds)
    assert refused(res, "test.parquet", "changed since the conversion") is None


def test_text_and_parquet_sets_without_a_conversion_record_are_refused_naming_both(
        conv: Path, tmp_path: Path) -> None:
    ds = copy_of(conv, tmp_path)
    (ds / "summary.json").unlink()
    res = run_on(tmp_path, ds)
    assert refused(res, "train.txt", "train.parquet", "two split sets") is None


def test_a_users_text_set_copied_into_a_parquet_only_conversion_is_refused(
        conv: Path, tmp_path: Path) -> None:
    ds = tmp_path / "pq"
    res = cli(tmp_path, "convert", "--ratings", str(conv.parent / "export.csv"), *C, *SMALL,
              "--no-svmlight", "--out", str(ds))
    assert res.status == 0, res.err
    assert load(ds).meta["layout"] == "parquet"  # alone, the Parquet set is read
    for s in SPLITS:  # the user's own LETOR files dropped beside it: which set is meant?
        shutil.copy(conv / f"{s}.txt", ds / f"{s}.txt")
    with pytest.raises(Exception, match=r"two split sets, text \(train\.txt\) and Parquet"):
        load(ds)


def test_a_text_set_in_a_fold_folder_beside_a_parquet_set_is_refused(conv: Path,
                                                                     tmp_path: Path) -> None:
    ds = copy_of(conv, tmp_path)
    (ds / "Fold1").mkdir()
    for s in SPLITS:
        (ds / f"{s}.txt").rename(ds / "Fold1" / f"{s}.txt")
        (ds / f"{s}.txt.query").rename(ds / "Fold1" / f"{s}.txt.query")
    with pytest.raises(Exception, match=r"Fold1/train\.txt"):
        load(ds)


def test_a_summary_that_is_no_json_is_no_conversion_record(conv: Path, tmp_path: Path) -> None:
    ds = copy_of(conv, tmp_path)
    (ds / "summary.json").write_text("{not json")
    res = run_on(tmp_path, ds)
    assert refused(res, "summary.json", "two split sets") is None


def test_a_conversion_from_before_digests_were_recorded_is_read_as_before(
        conv: Path, tmp_path: Path) -> None:
    ds = copy_of(conv, tmp_path)
    summary = json.loads((ds / "summary.json").read_text())
    summary.pop("sha256", None)
    (ds / "summary.json").write_text(json.dumps(summary))
    assert load(ds).meta["layout"] == "parquet"


def test_an_untouched_copy_that_keeps_file_times_hashes_no_text_file_again(
        conv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.data import split_sets

    ds = copy_of(conv, tmp_path)  # shutil.copytree keeps the times
    hashed: list[str] = []
    real = split_sets.sha256_file
    monkeypatch.setattr(split_sets, "sha256_file",
                        lambda p: hashed.append(Path(p).name) or real(p))
    assert load(ds).meta["layout"] == "parquet"
    assert hashed == []


def test_a_copy_with_new_file_times_is_hashed_and_read_when_nothing_changed(
        conv: Path, tmp_path: Path) -> None:
    ds = tmp_path / "plain"
    ds.mkdir()
    for f in conv.iterdir():
        shutil.copyfile(f, ds / f.name)  # as 'cp' without -p: new times, same bytes
    assert load(ds).test.y.tolist() == load(conv).test.y.tolist()


def test_a_dask_conversions_shard_folders_given_to_run_are_named_with_what_reads_them(
        conv: Path, tmp_path: Path) -> None:
    ds = tmp_path / "dask-out"  # as 'convert --engine dask' leaves it
    for s in SPLITS:
        (ds / s).mkdir(parents=True)
        shutil.copy(conv / f"{s}.parquet", ds / s / "part-00000.parquet")
    shutil.copy(conv / "summary.json", ds / "summary.json")
    res = run_on(tmp_path, ds)
    assert refused(res, "dask-out", "shards of a Dask conversion", "--engine dask") is None


def test_a_text_only_conversion_is_read_through_its_text_files(conv: Path,
                                                               tmp_path: Path) -> None:
    res = cli(tmp_path, "convert", "--ratings", str(conv.parent / "export.csv"), *C, *SMALL,
              "--labels", "binary", "--binary-threshold", "3.5", "--no-parquet", "--out", "txt")
    assert res.status == 0, res.err
    splits = load(tmp_path / "txt")
    assert splits.meta["layout"] == "letor"
    assert splits.test.y.tolist() == load(conv).test.y.tolist()


# ----------------------------------------------- dates finer than a second (one user's order)
def _sub_second_rows(later_item: int, earlier_item: int) -> pd.DataFrame:
    """User 7: five ratings a minute apart, then two 0.8 s apart within one second."""
    base = pd.Timestamp("2024-03-01 10:00:00", tz="UTC")
    rows = [(7, i, 4.0, base + pd.Timedelta(minutes=i)) for i in range(1, 6)]
    rows += [(7, later_item, 5.0, base + pd.Timedelta(hours=1, milliseconds=900)),
             (7, earlier_item, 1.0, base + pd.Timedelta(hours=1, milliseconds=100))]
    rows += [(8, i, 3.0, base + pd.Timedelta(minutes=i)) for i in range(20, 27)]
    return pd.DataFrame(rows, columns=["user", "item", "rating", "timestamp"])


def test_parquet_milliseconds_that_tie_one_users_ratings_are_said_with_both_rows(
        tmp_path: Path) -> None:
    """Item 40 (10:00:00.100) is earlier than item 30 (.900); as whole seconds they tie and
    the larger item id becomes the test target: the time order is lost, and the run says so."""
    f = tmp_path / "events.parquet"
    frame = _sub_second_rows(later_item=30, earlier_item=40)
    frame["timestamp"] = frame["timestamp"].astype("datetime64[ms, UTC]")
    frame.to_parquet(f)
    res = cli(tmp_path, "convert", "--ratings", str(f), *C, *SMALL, "--out", "o")
    assert res.status == 0, res.err
    said = [ln for ln in res.err.splitlines() if "whole seconds" in ln]
    assert said, res.err
    for word in ("events.parquet, row 6", "'timestamp'", "row 7", "user 7", "item id"):
        assert word in said[0], (word, said[0])


def test_iso_text_with_fractions_of_a_second_tying_one_user_is_said_at_its_lines(
        tmp_path: Path) -> None:
    from bench.data.sub_second import TiedInstantsWarning
    from bench.data.tabular import load_ratings_table

    frame = _sub_second_rows(later_item=30, earlier_item=40)
    frame["user"] = frame["user"].map(lambda u: f"cust-{u}")
    frame["timestamp"] = frame["timestamp"].dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    f = tmp_path / "events.csv"
    frame.to_csv(f, index=False)
    with pytest.warns(TiedInstantsWarning, match=r"events\.csv:7.*'cust-7'.*line 8"):
        r = load_ratings_table(f, user="user", item="item", rating="rating",
                               timestamp="timestamp")
    assert r.frame["timestamp"].iloc[5] == r.frame["timestamp"].iloc[6]


def test_a_ratings_frame_of_nanosecond_dates_tying_one_user_is_said_at_its_row() -> None:
    from bench.data.ratings import as_ratings
    from bench.data.sub_second import TiedInstantsWarning

    frame = _sub_second_rows(later_item=30, earlier_item=40)
    with pytest.warns(TiedInstantsWarning, match=r"row 6, column 'timestamp'.*row 7"):
        as_ratings(frame)


def test_sub_second_dates_of_two_users_in_one_second_are_floored_without_a_word(
        tmp_path: Path) -> None:
    from bench.data.tabular import load_ratings_table

    t = pd.Timestamp("2024-03-01 10:00:00.250", tz="UTC")
    frame = pd.DataFrame({"user": [1, 2, 1], "item": [5, 5, 6],
                          "rating": [4.0, 3.0, 2.0],
                          "timestamp": [t, t + pd.Timedelta(milliseconds=500),
                                        t + pd.Timedelta(seconds=3)]})
    frame.to_parquet(tmp_path / "r.parquet")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = load_ratings_table(tmp_path / "r.parquet", user="user", item="item",
                               rating="rating", timestamp="timestamp")
    want = int(pd.Timestamp("2024-03-01 10:00:00", tz="UTC").timestamp())
    assert r.frame["timestamp"].tolist() == [want, want, want + 3]


def test_whole_second_times_that_keep_the_order_make_the_later_rating_the_target(
        tmp_path: Path) -> None:
    """The same events rounded by the user so that they differ: item 30, the later, is the
    test target, and nothing is said."""
    frame = _sub_second_rows(later_item=30, earlier_item=40)
    frame["timestamp"] = frame["timestamp"].astype("datetime64[ms, UTC]").astype("int64") // 1000
    frame.loc[5, "timestamp"] += 1
    write_csv(tmp_path / "s.csv", list(frame.itertuples(index=False)))
    res = cli(tmp_path, "convert", "--ratings", "s.csv", *C, *SMALL, "--out", "o")
    assert res.status == 0, res.err
    assert "whole seconds" not in res.err
    test = pd.read_parquet(tmp_path / "o" / "test.parquet")
    targets = test[(test["user"] == 7) & (test["label"] > 0)]["item"].tolist()
    assert targets == [30]


# ---------------------------------------------------------------------- ids kept exactly
def test_item_ids_with_inner_spaces_stay_apart_and_map_back_exactly(conv: Path) -> None:
    items = pd.read_csv(conv / "items.csv", dtype={"external_id": str})
    assert items["external_id"].str.startswith("sku ").all()
    assert items["external_id"].is_unique
    rows = export_rows()
    test = pd.read_parquet(conv / "test.parquet")
    spelled = dict(zip(items["item"], items["external_id"], strict=True))
    rated = {(u, i): r for u, i, r, _ in rows}
    for user, item, label in test[["user", "item", "label"]].itertuples(index=False):
        key = (f"{user:05d}", spelled[item])
        if label > 0:  # a positive target is a rating >= 3.5 of that very (user, item)
            assert rated[key] >= 3.5


def test_uint64_user_ids_beyond_int64_map_back_to_the_exact_integers(tmp_path: Path) -> None:
    big = [2**64 - 1 - u for u in range(6)]
    rows = [(big[u], j + u, 4.0, 1_600_000_000 + 10 * j) for u in range(6) for j in range(6)]
    table = pa.table({"user": pa.array([r[0] for r in rows], pa.uint64()),
                      "item": pa.array([r[1] for r in rows], pa.int64()),
                      "rating": pa.array([r[2] for r in rows]),
                      "timestamp": pa.array([r[3] for r in rows], pa.int64())})
    pq.write_table(table, tmp_path / "spark.parquet")
    res = cli(tmp_path, "convert", "--ratings", "spark.parquet", *C, *SMALL, "--out", "o")
    assert res.status == 0, res.err
    users = pd.read_csv(tmp_path / "o" / "users.csv", dtype={"external_id": str})
    assert sorted(int(x) for x in users["external_id"]) == sorted(big)
    back = dict(zip(users["user"], users["external_id"], strict=True))
    test = pd.read_parquet(tmp_path / "o" / "test.parquet")
    for user, item in test[test["label"] > 0][["user", "item"]].itertuples(index=False):
        u = big.index(int(back[user]))
        assert item == 5 + u  # the latest rating of that very user


def test_a_duplicate_event_of_a_zero_padded_user_names_both_lines(tmp_path: Path) -> None:
    rows = export_rows()
    rows.append((*rows[3][:3], 1_700_000_000))
    write_csv(tmp_path / "dup.csv", rows)
    res = cli(tmp_path, "convert", "--ratings", "dup.csv", *C, *SMALL, "--out", "o")
    assert refused(res, "dup.csv:", "duplicate", "--duplicates") is None or \
        refused(res, "dup.csv:", "duplicate", "duplicates=") is None


# ---------------------------------------------------------------------- ratings -> grades
def test_dislikes_and_half_stars_under_a_binary_threshold_are_graded_as_documented(
        conv: Path) -> None:
    rated = {(u, i): r for u, i, r, _ in export_rows()}
    items = pd.read_csv(conv / "items.csv", dtype={"external_id": str})
    spelled = dict(zip(items["item"], items["external_id"], strict=True))
    for s in SPLITS:
        part = pd.read_parquet(conv / f"{s}.parquet")
        for user, item, label in part[["user", "item", "label"]].itertuples(index=False):
            r = rated.get((f"{user:05d}", spelled[item]))
            assert label == (0.0 if r is None or r < 3.5 else 1.0)


def test_graded_labels_warn_that_dislikes_become_relevant(tmp_path: Path) -> None:
    write_csv(tmp_path / "r.csv", export_rows())
    res = cli(tmp_path, "convert", "--ratings", "r.csv", *C, *SMALL, "--out", "o")
    assert res.status == 0, res.err
    assert "negative" in res.err
    assert "labels='graded'" in res.err


@pytest.mark.parametrize(("kind", "value"), [
    (pa.float16(), 4.5), (pa.int8(), -1), (pa.decimal128(4, 1), None)])
def test_narrow_parquet_rating_types_grade_as_their_values(tmp_path: Path, kind: Any,
                                                          value: Any) -> None:
    from decimal import Decimal

    from bench.adapters.labels import grade
    from bench.data.tabular import load_ratings_table

    vals = [4.5, -1.0, 3.0, 5.0] if value is not None else [4.5, 0.5, 3.0, 5.0]
    arr = pa.array([Decimal(str(v)) for v in vals], kind) if value is None else \
        pa.array(np.asarray(vals).astype(kind.to_pandas_dtype()), kind)
    pq.write_table(pa.table({"user": [1, 1, 2, 2], "item": [1, 2, 1, 2], "rating": arr,
                             "timestamp": [1, 2, 3, 4]}), tmp_path / "r.parquet")
    r = load_ratings_table(tmp_path / "r.parquet", user="user", item="item", rating="rating",
                           timestamp="timestamp")
    got = r.frame["rating"].to_numpy()
    want = np.asarray(vals) if kind != pa.int8() else np.trunc(vals)
    assert got.tolist() == want.tolist()
    assert grade(got, "graded").tolist() == [1 + sum(x >= c for c in (3, 4, 5)) for x in want]


@pytest.mark.parametrize(("column", "values"), [
    ("item", pa.array(["sku 1", None, "sku 2"]).dictionary_encode()),
    ("user", pa.array(["00001", None, "00002"], pa.large_string())),
    ("user", pa.array([1, None, 2**64 - 1], pa.uint64())),
    ("item", pa.array(["sku 1", "", "sku 2"])),
    ("rating", pa.array([4.5, None, 1.0], pa.float32())),
])
def test_a_null_of_a_spark_column_type_is_refused_at_its_row(tmp_path: Path, column: str,
                                                             values: Any) -> None:
    cols = {"user": pa.array([1, 1, 2]), "item": pa.array([1, 2, 3]),
            "rating": pa.array([4.0, 3.0, 2.0]), "timestamp": pa.array([1, 2, 3])}
    cols[column] = values
    pq.write_table(pa.table(cols), tmp_path / "r.parquet")
    res = cli(tmp_path, "convert", "--ratings", "r.parquet", *C, *SMALL, "--out", "o")
    assert refused(res, "r.parquet, row 2", f"'{column}'", "missing value") is None


def test_a_nan_rating_in_a_float_parquet_column_is_refused_at_its_row(tmp_path: Path) -> None:
    pq.write_table(pa.table({"user": [1, 1, 2], "item": [1, 2, 3],
                             "rating": pa.array([4.0, float("nan"), 3.0]),
                             "timestamp": [1, 2, 3]}), tmp_path / "r.parquet")
    res = cli(tmp_path, "convert", "--ratings", "r.parquet", *C, *SMALL, "--out", "o")
    assert refused(res, "r.parquet, row 2", "'rating'") is None


def test_a_nan_user_id_of_a_spark_double_column_is_refused_at_its_row(tmp_path: Path) -> None:
    pq.write_table(pa.table({"user": pa.array([1.0, float("nan"), 2.0]), "item": [1, 2, 3],
                             "rating": [4.0, 5.0, 3.0], "timestamp": [1, 2, 3]}),
                   tmp_path / "r.parquet")
    res = cli(tmp_path, "convert", "--ratings", "r.parquet", *C, *SMALL, "--out", "o")
    assert refused(res, "r.parquet, row 2", "'user'") is None


# -------------------------------------------------------------- splits without leakage
def _ratings(rows: list[tuple[Any, ...]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["user", "item", "rating", "timestamp"])


def _numeric_rows(users: int = 12, per: int = 10) -> list[tuple[Any, ...]]:
    return [(u, (u * 5 + j * 3) % 40, float((u + j) % 5 + 1), 1_000_000 + u * 7 + j * 100)
            for u in range(users) for j in range(per)]


def _targets(splits: Any) -> dict[str, set[tuple[int, int]]]:
    out = {}
    for s in SPLITS:
        d = getattr(splits, s)
        out[s] = {(int(u), int(i)) for u, i, y in zip(d.user, d.item, d.y, strict=True) if y > 0}
    return out


def test_a_time_cut_split_puts_each_target_in_the_window_of_its_time() -> None:
    from bench.adapters.config import AdapterConfig
    from bench.adapters.pipeline import ratings_to_letor

    rows = _numeric_rows()
    cuts = (1_000_300, 1_000_600, 1_000_800)
    splits = ratings_to_letor(_ratings(rows), AdapterConfig(
        split="time-cut", time_cuts=cuts, min_history=1, negatives=2, labels="rated",
        feature_groups=("user", "item")))
    when = {(u, i): t for u, i, _, t in rows}
    windows = {"train": (cuts[0], cuts[1]), "vali": (cuts[1], cuts[2]), "test": (cuts[2], 10**9)}
    for s, pairs in _targets(splits).items():
        assert pairs
        lo, hi = windows[s]
        assert all(lo <= when[p] < hi for p in pairs), s


def test_a_temporal_split_keeps_every_users_targets_after_the_earlier_partitions() -> None:
    from bench.adapters.config import AdapterConfig
    from bench.adapters.pipeline import ratings_to_letor

    rows = _numeric_rows()
    splits = ratings_to_letor(_ratings(rows), AdapterConfig(
        target_size=2, min_history=2, negatives=2, labels="rated",
        feature_groups=("user",)))
    when = {(u, i): t for u, i, _, t in rows}
    t = _targets(splits)
    for u in range(12):
        times = [[when[p] for p in t[s] if p[0] == u] for s in SPLITS]
        assert all(len(x) == 2 for x in times)
        assert max(times[0]) <= min(times[1])
        assert max(times[1]) <= min(times[2])
    for a, b in (("train", "vali"), ("train", "test"), ("vali", "test")):
        assert not t[a] & t[b]


def test_a_random_split_is_the_same_under_one_seed_and_another_under_another() -> None:
    from bench.adapters.config import AdapterConfig
    from bench.adapters.pipeline import ratings_to_letor

    def targets(seed: int) -> dict[str, set[tuple[int, int]]]:
        return _targets(ratings_to_letor(_ratings(_numeric_rows()), AdapterConfig(
            split="random", seed=seed, target_size=2, min_history=2, negatives=2,
            labels="rated", feature_groups=("user",))))

    a, b, c = targets(3), targets(3), targets(4)
    assert a == b
    assert a != c
    assert not (a["train"] & a["test"])


# ----------------------------------------------------------------- outputs over inputs
@pytest.mark.parametrize("name", ["users.csv", "items.csv", "vali.txt.query", "summary.json"])
def test_an_input_named_as_a_file_convert_writes_is_not_overwritten(tmp_path: Path,
                                                                    name: str) -> None:
    folder = tmp_path / "wh"
    folder.mkdir()
    write_csv(folder / name, export_rows())
    before = (folder / name).read_bytes()
    res = cli(tmp_path, "convert", "--ratings", str(folder / name), "--layout", "csv", "--sep",
              ",", *C, *SMALL, "--out", str(folder))
    assert refused(res, name, "destroy the input") is None
    assert (folder / name).read_bytes() == before


def test_an_output_symlink_to_the_folder_of_the_input_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "wh"
    folder.mkdir()
    write_csv(folder / "test.txt", export_rows())
    before = (folder / "test.txt").read_bytes()
    (tmp_path / "alias").symlink_to(folder)
    res = cli(tmp_path, "convert", "--ratings", str(folder / "test.txt"), "--layout", "csv",
              "--sep", ",", *C, *SMALL, "--out", "alias")
    assert refused(res, "test.txt", "destroy the input") is None
    assert (folder / "test.txt").read_bytes() == before


def test_an_output_folder_inside_the_input_folder_leaves_the_inputs_as_they_were(
        tmp_path: Path) -> None:
    folder = tmp_path / "wh"
    folder.mkdir()
    write_csv(folder / "export.csv", export_rows())
    before = (folder / "export.csv").read_bytes()
    res = cli(tmp_path, "convert", "--ratings", str(folder / "export.csv"), *C, *SMALL,
              "--out", str(folder / "letor"))
    assert res.status == 0, res.err
    assert (folder / "export.csv").read_bytes() == before
    assert load(folder / "letor").meta["layout"] == "parquet"


def test_a_spark_output_folder_given_to_the_local_engine_names_the_engine_that_reads_it(
        tmp_path: Path) -> None:
    folder = tmp_path / "ratings.parquet"  # as df.write.parquet("ratings.parquet") leaves it
    folder.mkdir()
    frame = _ratings(_numeric_rows())
    frame.iloc[:60].to_parquet(folder / "part-00000-3f1c.snappy.parquet")
    frame.iloc[60:].to_parquet(folder / "part-00001-3f1c.snappy.parquet")
    (folder / "_SUCCESS").write_text("")
    res = cli(tmp_path, "convert", "--ratings", str(folder), *C, *SMALL, "--out", "o")
    assert refused(res, "ratings.parquet", "2 Parquet part files", "--engine dask") is None


def test_a_converted_split_given_back_as_ratings_is_refused_not_read(conv: Path,
                                                                     tmp_path: Path) -> None:
    """Read as ratings, each sampled negative (label 0) would become a rating (graded 1)."""
    before = (conv / "train.parquet").read_bytes()
    res = cli(tmp_path, "convert", "--ratings", str(conv / "train.parquet"), "--user", "user",
              "--item", "item", "--rating", "label", "--split", "random", "--min-history", "1",
              "--target-size", "1", "--negatives", "2", "--features", "user", "--out", "again")
    assert refused(res, "train.parquet", "LETOR split", "--dataset") is None
    assert (conv / "train.parquet").read_bytes() == before
    assert not (tmp_path / "again").exists()


def test_a_converted_split_given_back_as_ratings_to_dask_is_refused_before_any_cluster(
        conv: Path, tmp_path: Path) -> None:
    res = cli(tmp_path, "convert", "--engine", "dask", "--workers", "1", "--ratings",
              str(conv / "train.parquet"), "--user", "user", "--item", "item", "--rating",
              "label", "--split", "random", "--min-history", "1", "--target-size", "1",
              "--negatives", "2", "--features", "user", "--out", "again")
    assert refused(res, "train.parquet", "LETOR split") is None


# ------------------------------------------------------------------------------ options
@pytest.mark.parametrize(("extra", "words"), [
    (["--split", "kfold", "--folds", "4", "--fold", "4"], ("--fold 4",)),
    (["--split", "time-cut", "--time-cuts", "5,5,9"], ("--time-cuts", "increasing")),
    (["--target-size", "0"], ("--target-size",)),
    (["--target-size", "inf"], ("--target-size",)),
    (["--labels", "binary", "--binary-threshold", "-inf"], ("--binary-threshold",)),
    (["--negatives", "-3"], ("negatives",)),
    (["--memory-limit", "2GB"], ("--memory-limit", "--engine dask")),
])
def test_a_conversion_option_out_of_range_is_refused_naming_it(tmp_path: Path,
                                                               extra: list[str],
                                                               words: tuple[str, ...]) -> None:
    write_csv(tmp_path / "r.csv", export_rows())
    base = [a for a in SMALL if True]
    if "--target-size" in extra:
        base = [a for k, a in enumerate(SMALL) if k not in (0, 1)]
    if "--negatives" in extra:
        base = [a for k, a in enumerate(SMALL) if k not in (4, 5)]
    res = cli(tmp_path, "convert", "--ratings", "r.csv", *C, *base, *extra, "--out", "o")
    assert refused(res, *words) is None
    assert not (tmp_path / "o").exists()


def test_a_header_named_unlike_movielens_says_which_options_to_give(tmp_path: Path) -> None:
    write_csv(tmp_path / "events.csv", export_rows(),
              header="customer_no,product code,stars,event_ts")
    res = cli(tmp_path, "run", "--dataset", "events.csv", "--models", "random", "--quick",
              "--out", "runs")
    assert refused(res, "events.csv", "customer_no", "ltrbench convert", "--user COL") is None


# ------------------------------------------------- recommender profiles on converted data
def _scored_test(conv: Path) -> pd.DataFrame:
    test = pd.read_parquet(conv / "test.parquet", columns=["qid", "item", "label"])
    rng = np.random.default_rng(11)
    return test.assign(score=rng.permutation(len(test)).astype(float),
                       docno=test["item"].astype(str), qid=test["qid"].astype(str))


def _ranked(frame: pd.DataFrame) -> dict[str, list[float]]:
    out = {}
    for q, g in frame.groupby("qid", sort=False):
        out[str(q)] = g.sort_values("score", ascending=False, kind="stable")["label"].tolist()
    return out


def test_ranx_numbers_on_a_converted_split_are_ranx_formulas_with_a_missing_user_0(
        conv: Path) -> None:
    """ranx 0.3 (ranx/metrics/*.py) by hand: ndcg@k with linear gain and the ideal from the
    qrels, recall = hits / R, precision = hits / k, reciprocal rank, hit rate; a qrels user the
    run never scored counts 0 (``make_comparable=True``), a user without a relevant item 0."""
    from bench.metrics.trec import evaluate_trec

    f = _scored_test(conv)
    k = 3
    qrels = {q: {d: int(y) for d, y in zip(g.docno, g.label, strict=True)}
             for q, g in f.groupby("qid")}
    qrels["no-run-user"] = {"sku-x": 1}  # a user of the ground truth the run never scored
    run = {q: dict(zip(g.docno, g.score, strict=True)) for q, g in f.groupby("qid")}
    want: dict[str, list[float]] = {n: [] for n in ("ndcg", "recall", "precision", "mrr", "hit")}
    for q, judged in qrels.items():
        ranked = sorted(run.get(q, {}).items(), key=lambda kv: -kv[1])[:k]
        gains = [judged.get(d, 0) for d, _ in ranked]
        n_rel = sum(1 for v in judged.values() if v > 0)
        ideal = sorted(judged.values(), reverse=True)[:k]
        idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
        dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
        hits = [g > 0 for g in gains]
        want["ndcg"].append(dcg / idcg if idcg else 0.0)
        want["recall"].append(sum(hits) / n_rel if n_rel else 0.0)
        want["precision"].append(sum(hits) / k)
        want["mrr"].append(next((1 / (i + 1) for i, h in enumerate(hits) if h), 0.0))
        want["hit"].append(1.0 if any(hits) else 0.0)
    names = {"ndcg": f"ndcg@{k}", "recall": f"recall@{k}", "precision": f"precision@{k}",
             "mrr": f"mrr@{k}", "hit": f"hit_rate@{k}"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = evaluate_trec(qrels, run, metrics=list(names.values()), profile="ranx").metrics
    for short, name in names.items():
        assert math.isclose(got[name], float(np.mean(want[short])), abs_tol=1e-12), name


def _recbole_by_hand(ranked: dict[str, list[float]], k: int) -> dict[str, float]:
    """RecBole 1.x metrics.py (TopkMetric) over users with ground truth: Recall = hits/|R|,
    Precision = hits/k, NDCG with the ideal cut at min(|R|, k), MAP over min(|R|, k)."""
    rec, ndcg, prec, mapk = [], [], [], []
    for rels in ranked.values():
        hits = [1.0 if r > 0 else 0.0 for r in rels[:k]]
        n_rel = sum(1 for r in rels if r > 0)
        if n_rel == 0:
            continue
        rec.append(sum(hits) / n_rel)
        prec.append(sum(hits) / k)
        dcg = sum(h / math.log2(i + 2) for i, h in enumerate(hits))
        ndcg.append(dcg / sum(1 / math.log2(i + 2) for i in range(min(n_rel, k))))
        run_hits = np.cumsum(hits)
        mapk.append(sum(run_hits[i] / (i + 1) for i, h in enumerate(hits) if h)
                    / min(n_rel, k))
    return {f"recall@{k}": float(np.mean(rec)), f"ndcg@{k}": float(np.mean(ndcg)),
            f"precision@{k}": float(np.mean(prec)), f"map@{k}": float(np.mean(mapk))}


def test_recbole_and_recommenders_on_a_converted_split_are_their_formulas(conv: Path) -> None:
    from bench.metrics.evaluate import evaluate

    f = _scored_test(conv)
    want = _recbole_by_hand(_ranked(f), 3)
    for profile in ("recbole", "recommenders"):
        got = evaluate(f, metrics=list(want), profile=profile, qid="qid", label="label",
                       score="score").metrics
        for name, value in want.items():
            assert math.isclose(got[name], value, abs_tol=1e-12), (profile, name)


def test_evaluate_of_the_converted_text_split_under_recboles_own_names(conv: Path,
                                                                       tmp_path: Path) -> None:
    """The SVMlight split as written, scores in file order; RecBole's spellings come back."""
    f = _scored_test(conv)
    (tmp_path / "s.txt").write_text("".join(f"{v}\n" for v in f["score"]))
    res = cli(tmp_path, "evaluate", "--data", str(conv / "test.txt"), "--scores", "s.txt",
              "--profile", "recbole", "--metrics", "Recall@3,NDCG@3,Precision@3",
              "--format", "json")
    assert res.status == 0, res.err
    got = json.loads(res.out)["metrics"]
    want = _recbole_by_hand(_ranked(f), 3)
    for own, name in (("Recall@3", "recall@3"), ("NDCG@3", "ndcg@3"),
                      ("Precision@3", "precision@3")):
        assert math.isclose(got[own], want[name], abs_tol=1e-9), own


def test_a_run_on_the_converted_folder_under_recbole_is_exit_0_with_its_header(
        conv: Path, tmp_path: Path) -> None:
    ds = copy_of(conv, tmp_path)
    res = cli(tmp_path, "run", "--dataset", str(ds), "--models", "random", "--quick", "--seeds",
              "1", "--profile", "recbole", "--metrics", "recall@3,mrr@3", "--out",
              str(tmp_path / "runs"))
    assert res.status == 0, res.err
    metrics = pd.read_csv(next((tmp_path / "runs").rglob("metrics.csv")))
    assert {"recall@3", "mrr@3"} <= set(metrics["metric"])
    vals = metrics[metrics["split"] == "test"]["value"].to_numpy(dtype=float)
    assert ((vals >= 0) & (vals <= 1)).all()
