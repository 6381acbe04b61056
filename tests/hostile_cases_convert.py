"""Hostile ``ltrbench convert`` cases (issue 19): every option of ``convert --help`` with hostile
values, ratings files that break the label scale, outputs over the ratings folder, and leakage.

The cases join :data:`hostile_cases_tune.CASES`; see that module for the judging rules.
"""

from __future__ import annotations

from pathlib import Path

from hostile_cases_tune import (
    CSV,
    DESTROYED,
    SILENT,
    TRACE,
    UNCLEAR,
    WRONG,
    case,
    convert,
    convert_refused,
    ratings_csv,
)
from hostile_kit import cli, refused


# ---------------------------------------------------------------------------- convert: options
@case(TRACE)
def convert_random_split_with_a_negative_seed(tmp: Path) -> str | None:
    return convert_refused(tmp, "--split", "random", "--seed", "-1", "|", "seed", "-1")


@case(SILENT)
def convert_seed_2_to_the_31_repeats_seed_0(tmp: Path) -> str | None:
    return convert_refused(tmp, "--seed", "2147483648", "|", "seed", "2147483647")


@case(TRACE)
def convert_features_empty(tmp: Path) -> str | None:
    return convert_refused(tmp, "--features", "", "|", "feature")


@case(TRACE)
def convert_features_only_commas(tmp: Path) -> str | None:
    return convert_refused(tmp, "--features", " , ", "|", "feature")


@case(WRONG)
def convert_binary_threshold_nan(tmp: Path) -> str | None:
    return convert_refused(tmp, "--labels", "binary", "--binary-threshold", "nan", "|",
                           "--binary-threshold", "finite")


@case(WRONG)
def convert_binary_threshold_inf(tmp: Path) -> str | None:
    return convert_refused(tmp, "--labels", "binary", "--binary-threshold", "inf", "|",
                           "--binary-threshold", "finite")


@case(WRONG)
def convert_binary_threshold_above_every_rating(tmp: Path) -> str | None:
    return convert_refused(tmp, "--labels", "binary", "--binary-threshold", "6", "|",
                           "no relevant row", "6", "5")


@case(WRONG)
def convert_liked_labels_on_ratings_all_below_3(tmp: Path) -> str | None:
    ratings_csv(tmp / "r.csv", scale=0, offset=2)  # every rating 2: liked grades 0
    return convert_refused(tmp, "--labels", "liked", "|", "no relevant row", "liked")


@case(WRONG)
def convert_graded_labels_on_a_2_to_10_scale(tmp: Path) -> str | None:
    ratings_csv(tmp / "r.csv", scale=2)  # 2, 4, ..., 10: 6, 8 and 10 would all be grade 4
    return convert_refused(tmp, "|", "r.csv", "rating", "above 5", "graded")


@case(WRONG)
def convert_liked_labels_on_a_2_to_10_scale(tmp: Path) -> str | None:
    ratings_csv(tmp / "r.csv", scale=2)
    return convert_refused(tmp, "--labels", "liked", "|", "rating", "above 5", "liked")


@case(SILENT)
def convert_binary_threshold_with_graded_labels(tmp: Path) -> str | None:
    return convert_refused(tmp, "--binary-threshold", "3", "|", "--binary-threshold", "graded")


@case(SILENT)
def convert_time_cuts_with_the_temporal_split(tmp: Path) -> str | None:
    return convert_refused(tmp, "--time-cuts", "1,2,3", "|", "--time-cuts", "temporal")


@case(SILENT)
def convert_folds_with_the_temporal_split(tmp: Path) -> str | None:
    return convert_refused(tmp, "--folds", "4", "|", "--folds", "temporal")


@case(SILENT)
def convert_fold_with_the_random_split(tmp: Path) -> str | None:
    return convert_refused(tmp, "--split", "random", "--fold", "1", "|", "fold", "random")


@case(SILENT)
def convert_target_size_with_the_time_cut_split(tmp: Path) -> str | None:
    return convert_refused(tmp, "--split", "time-cut", "--target-size", "3", "|", "--target-size",
                           "time-cut")


@case(TRACE)
def convert_target_size_1e300(tmp: Path) -> str | None:
    return convert_refused(tmp, "--target-size", "1e300", "|", "--target-size")


@case(TRACE)
def convert_similarity_history_1e20(tmp: Path) -> str | None:
    return convert_refused(tmp, "--features", "similarity", "--similarity-history",
                           "100000000000000000000", "|", "--similarity-history")


@case(TRACE)
def convert_negatives_1e20(tmp: Path) -> str | None:
    return convert_refused(tmp, "--negatives", "100000000000000000000", "|", "negatives")


@case(SILENT)
def convert_svd_factors_1e20(tmp: Path) -> str | None:
    return convert_refused(tmp, "--svd-factors", "100000000000000000000", "|", "--svd-factors")


@case(SILENT)
def convert_min_history_zero(tmp: Path) -> str | None:
    return convert_refused(tmp, "--min-history", "0", "|", "--min-history")


@case(SILENT)
def convert_target_size_negative(tmp: Path) -> str | None:
    return convert_refused(tmp, "--target-size", "-1", "|", "--target-size")


@case(SILENT)
def convert_kfold_fold_out_of_range(tmp: Path) -> str | None:
    return convert_refused(tmp, "--split", "kfold", "--fold", "5", "|", "fold", "0..4")


@case(UNCLEAR)
def convert_user_and_item_name_one_column(tmp: Path) -> str | None:
    ratings_csv(tmp / "r.csv")
    res = cli(tmp, "convert", "--ratings", "r.csv", "--layout", "csv", "--user", "user",
              "--item", "user", "--out", "cv")
    return refused(res, "--user", "--item", "'user'")


@case(SILENT)
def convert_empty_separator(tmp: Path) -> str | None:
    return convert_refused(tmp, "--sep", "", "|", "--sep")


@case(UNCLEAR)
def convert_synthetic_with_zero_users(tmp: Path) -> str | None:
    return refused(cli(tmp, "convert", "--ratings", "synthetic", "--synthetic-users", "0",
                       "--out", "cv"), "--synthetic-users", "0")


@case(TRACE)
def convert_dask_memory_limit_that_is_no_size(tmp: Path) -> str | None:
    return convert_refused(tmp, "--engine", "dask", "--memory-limit", "lots", "|",
                           "--memory-limit", "lots")


@case(UNCLEAR)
def convert_dask_with_zero_workers(tmp: Path) -> str | None:
    return convert_refused(tmp, "--engine", "dask", "--workers", "0", "|", "--workers", "0")


@case(UNCLEAR)
def convert_dask_with_negative_rows_per_block(tmp: Path) -> str | None:
    return convert_refused(tmp, "--engine", "dask", "--rows-per-block", "-5", "|",
                           "--rows-per-block", "-5")


@case(SILENT)
def convert_out_named_like_a_parquet_file(tmp: Path) -> str | None:
    res = convert(tmp, out="ratings.parquet")
    bad = refused(res, "--out", "ratings.parquet", "folder")
    return bad or ("created it" if (tmp / "ratings.parquet").exists() else None)


@case(SILENT)
def convert_removed_format_option_is_refused_naming_its_successor(tmp: Path) -> str | None:
    ratings_csv(tmp / "r.csv")
    argv = [("--format" if a == "--layout" else a) for a in CSV]
    res = cli(tmp, "convert", "--ratings", "r.csv", *argv, "--out", "cv")
    ok = res.status == 2 and "--layout" in res.err and not (tmp / "cv").exists()
    return None if ok else f"exit {res.status}: {res.err.strip()[-200:]}"


# ---------------------------------------------------------------------------- convert: files
@case(DESTROYED)
def convert_out_is_the_movielens_folder_it_reads(tmp: Path) -> str | None:
    (tmp / "ml").mkdir()
    rows = (tmp / "x.csv")
    ratings_csv(rows)
    text = rows.read_text().replace("user,item,rating,timestamp", "userId,movieId,rating,timestamp")
    (tmp / "ml" / "ratings.csv").write_text(text)
    res = cli(tmp, "convert", "--ratings", "ml", "--target-size", "2", "--min-history", "2",
              "--features", "user", "--out", "ml")
    bad = refused(res, "--out", "--ratings")
    left = sorted(p.name for p in (tmp / "ml").iterdir())
    return bad or (None if left == ["ratings.csv"] else f"the MovieLens folder now holds {left}")


@case(DESTROYED)
def convert_out_inside_the_movielens_folder_it_reads(tmp: Path) -> str | None:
    (tmp / "ml").mkdir()
    ratings_csv(tmp / "x.csv")
    (tmp / "ml" / "ratings.csv").write_text((tmp / "x.csv").read_text().replace(
        "user,item", "userId,movieId"))
    res = cli(tmp, "convert", "--ratings", "ml", "--target-size", "2", "--min-history", "2",
              "--features", "user", "--out", "ml/letor")
    return refused(res, "--out", "--ratings")


@case(SILENT)
def convert_header_only_ratings(tmp: Path) -> str | None:
    (tmp / "r.csv").write_text("user,item,rating,timestamp\n")
    return convert_refused(tmp, "|", "r.csv", "no data rows")


@case(SILENT)
def convert_duplicate_user_item_rows(tmp: Path) -> str | None:
    ratings_csv(tmp / "r.csv")
    with (tmp / "r.csv").open("a") as f:
        f.write("1,6,3,999\n")  # user 1's first item, (5 + 0) % 30 + 1 = 6, again
    return convert_refused(tmp, "|", "r.csv", "duplicate", "user=1", "item=6")


@case(WRONG)
def convert_puts_no_rated_pair_in_two_partitions(tmp: Path) -> str | None:
    """Leakage: a (user, item) that is a target (label >= 1: graded labels grade every rating
    1..4) of one partition appears in no other partition, for every split rule."""
    import pandas as pd

    for split in ("temporal", "random", "kfold"):
        out = f"cv-{split}"
        extra = ("--split", split) + (("--target-size", "1") if split == "kfold" else ())
        res = convert(tmp, *extra, out=out)
        if res.status != 0:
            return f"{split}: exit {res.status}: {res.err.strip()[-200:]}"
        parts = {s: pd.read_parquet(tmp / out / f"{s}.parquet") for s in ("train", "vali", "test")}
        for a, fa in parts.items():
            rated = set(zip(fa.user[fa.label > 0], fa.item[fa.label > 0], strict=True))
            for b, fb in parts.items():
                shared = rated & set(zip(fb.user, fb.item, strict=True)) if a != b else set()
                if shared:
                    return f"{split}: {len(shared)} rated pairs of {a} are in {b}"
    return None


@case(WRONG)
def convert_output_does_not_depend_on_row_order(tmp: Path) -> str | None:
    """Timestamps out of order in the file (the rows reversed): the same partitions."""
    import pandas as pd

    ratings_csv(tmp / "r.csv")
    ratings_csv(tmp / "rev.csv", reverse=True)
    a, b = convert(tmp, out="a"), convert(tmp, ratings="rev.csv", out="b")
    if a.status != 0 or b.status != 0:
        return f"exit {a.status}/{b.status}"
    for s in ("train", "vali", "test"):
        if not pd.read_parquet(tmp / "a" / f"{s}.parquet").equals(
                pd.read_parquet(tmp / "b" / f"{s}.parquet")):
            return f"{s} differs when the rows are reversed"
    return None


@case(SILENT)
def convert_no_user_left_after_the_history_filter(tmp: Path) -> str | None:
    return convert_refused(tmp, "--min-history", "1000", "|", "no queries", "min_history=1000")


@case(WRONG)
def convert_time_cut_gives_no_query_to_a_user_seen_only_after_the_last_cut(
        tmp: Path) -> str | None:
    """Cuts 5005 < 5008 < 5010 fall inside user 5's ratings (times 5000..5011): 5 history
    ratings, train targets k = 5..7, vali 8..9, test 10..11, i.e. items (25 + 7k) % 30 + 1 = 6
    and 13. Users 6..15 rate only after the last cut (no history): no query of theirs."""
    import pandas as pd

    res = cli(tmp, "convert", "--ratings", str(ratings_csv(tmp / "r.csv")), *CSV[:10],
              "--split", "time-cut", "--time-cuts", "5005,5008,5010", "--min-history", "2",
              "--negatives", "3", "--features", "user,item", "--out", "cv")
    if res.status != 0:
        return f"exit {res.status}: {res.err.strip()[-200:]}"
    test = pd.read_parquet(tmp / "cv" / "test.parquet")
    got = (sorted(set(test.user.tolist())), sorted(test.item[test.label > 0].tolist()), len(test))
    return None if got == ([5], [6, 13], 5) else f"test (users, rated items, rows) = {got}"
