"""Hostile inputs, round 3, replayed through the Dask engine (issue 19: one input discipline).

Every ratings / shard case of ``tests/hostile_cases_inputs3.py`` that applies to a Dask input,
read by :func:`bench.data.dask_ratings.read_ratings_frame` (what ``convert --engine dask``
reads) or :func:`bench.data.query_shards.shard_columns` + :func:`read_query_shards` +
:func:`bench.metrics.distributed.evaluate_frame` (what ``evaluate --engine dask`` reads). The
right behaviour is the local engine's: the same refusal content (file + line / row + column +
what was expected; the words of the local case) or, where the local engine reads the rows, the
same numbers. A text id is numbered by both engines (round 10: by first appearance, as the
local reader numbers it).

Each case returns ``None`` when the engine behaved, else one line saying what went wrong;
``python -m pytest tests/test_hostile_dask_inputs.py -rA`` lists them by class. One in-process
LocalCluster (one worker) serves the module.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hostile_kit import cli, refused

from bench.errors import LtrbenchError

pytest.importorskip("distributed")

Fn = Callable[[Path], "str | None"]
CASES: list[tuple[str, Fn]] = []
WRONG, ACCEPT, UNCLEAR = "silently wrong numbers", "silent accepts", "unclear errors"
TRACE = "tracebacks"


def case(klass: str) -> Callable[[Fn], Fn]:
    def add(fn: Fn) -> Fn:
        CASES.append((klass, fn))
        return fn
    return add


@pytest.fixture(scope="module")
def client() -> Any:
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                      dashboard_address=None) as lc, Client(lc) as c:
        yield c


_HEAD = b"user,item,rating,timestamp\n"
_BASE = [[str(u), str(i), str((u * 7 + i) % 5 + 1), str(1000 * u + i)]
         for u in range(1, 16) for i in range(1, 13)]


def _cell(column: int, text: str) -> bytes:
    """The local catalogue's table with row 5 (line 6) column ``column`` replaced."""
    rows = [list(r) for r in _BASE]
    rows[4][column] = text
    return _HEAD + "".join(",".join(r) + "\n" for r in rows).encode()


def _read(path: Path) -> Any:
    """The ratings as the Dask engine computes them (columns named, as the CLI passes them)."""
    from bench.data.dask_ratings import read_ratings_frame

    rf = read_ratings_frame(path, user="user", item="item", rating="rating",
                            timestamp="timestamp")
    return rf.frame.compute()


def _refused(tmp: Path, data: bytes, *words: str, name: str = "r.csv") -> str | None:
    """None when the Dask reader refuses ``data`` with an LtrbenchError holding ``words``."""
    p = tmp / name
    p.write_bytes(data)
    try:
        got = _read(p)
    except LtrbenchError as exc:
        text = str(exc)
        if "\n" in text.strip():
            return f"a message of several lines: {text!r}"
        missing = [w for w in words if w not in text]
        return f"message {text!r} lacks {missing}" if missing else None
    except Exception as exc:  # any other type: a traceback
        return f"traceback: {type(exc).__name__}: {str(exc)[:200]}"
    return f"accepted ({got.shape[0]} rows), expected a clear error"


# ------------------------------------------------------------- ids spelled as missing values
@case(UNCLEAR)
def dask_user_id_na_is_a_missing_value(tmp: Path) -> str | None:
    return _refused(tmp, _cell(0, "NA"), "r.csv:6", "user", "missing")


@case(UNCLEAR)
def dask_user_id_nan_is_a_missing_value(tmp: Path) -> str | None:
    return _refused(tmp, _cell(0, "nan"), "r.csv:6", "user", "missing")


@case(UNCLEAR)
def dask_item_id_null_is_a_missing_value(tmp: Path) -> str | None:
    return _refused(tmp, _cell(1, "null"), "r.csv:6", "item", "missing")


@case(UNCLEAR)
def dask_timestamp_empty_cell_is_a_missing_value(tmp: Path) -> str | None:
    return _refused(tmp, _cell(3, ""), "r.csv:6", "timestamp")


def _as_local(tmp: Path, data: bytes) -> str | None:
    """The local reader's rows (user, item, rating, timestamp) bit for bit, in order."""
    from bench.data.tabular import load_ratings_table

    p = tmp / "r.csv"
    p.write_bytes(data)
    want = load_ratings_table(p, user="user", item="item", rating="rating",
                              timestamp="timestamp").frame
    try:
        got = _read(p)
    except Exception as exc:  # any refusal where the local engine reads the rows
        return f"{type(exc).__name__}: {str(exc)[:200]}; the local engine reads the rows"
    same = got.reset_index(drop=True).equals(want.reset_index(drop=True))
    return None if same else f"rows differ from the local engine's: {got.iloc[4].tolist()}"


@case(WRONG)
def dask_ids_spelled_with_blanks_signs_and_decimals_as_locally(tmp: Path) -> str | None:
    for cell in (" 16 ", "+16", "16.0", "1.6e1", "\t16"):
        bad = _as_local(tmp, _cell(0, cell))
        if bad:
            return f"user {cell!r}: {bad}"
    return None


@case(WRONG)
def dask_id_with_a_no_break_space_is_refused_as_locally(tmp: Path) -> str | None:
    # round 10 kept '16\u00a0' apart from 16 on both engines (only ASCII blanks are stripped);
    # since round 17 both refuse it, naming the character: the no-break space Excel's TRIM
    # keeps after a number split one user in two (bench.data.sheet_cells)
    from bench.data.tabular import load_ratings_table

    p = tmp / "local.csv"
    p.write_bytes(_cell(0, "16\u00a0"))
    try:
        load_ratings_table(p, user="user", item="item", rating="rating", timestamp="timestamp")
    except LtrbenchError as exc:
        if "no-break space" not in str(exc) or "local.csv:6" not in str(exc):
            return f"the local reader's message lacks the line or the character: {exc}"
    else:
        return "the local reader accepted '16\\u00a0' as an id apart from 16"
    return _refused(tmp, _cell(0, "16\u00a0"), "r.csv:6", "user", "no-break space")


@case(WRONG)
def dask_ratings_spelled_with_blanks_and_exponents_as_locally(tmp: Path) -> str | None:
    for cell in (" 3 ", "3.", ".5", "5e-1", "-0", "+2"):
        bad = _as_local(tmp, _cell(2, cell))
        if bad:
            return f"rating {cell!r}: {bad}"
    return None


# ------------------------------------------------------------------- stray characters in ids
@case(UNCLEAR)
def dask_user_id_with_a_byte_order_mark_inside(tmp: Path) -> str | None:
    return _refused(tmp, _cell(0, "\ufeff1"), "r.csv:6", "user", "byte-order mark")


@case(UNCLEAR)
def dask_item_id_with_a_nul_byte(tmp: Path) -> str | None:
    return _refused(tmp, _cell(1, "1\x002"), "r.csv:6", "item", "NUL")


@case(UNCLEAR)
def dask_user_id_ending_in_a_vertical_tab(tmp: Path) -> str | None:
    return _refused(tmp, _cell(0, "5\x0b"), "r.csv:6", "user", "vertical tab")


@case(WRONG)
def dask_user_id_in_arabic_indic_digits_is_not_user_12(tmp: Path) -> str | None:
    # '\u0661\u0662' read as 12 would merge two users: a text id, numbered as locally
    return _as_local(tmp, _cell(0, "\u0661\u0662"))


@case(WRONG)
def dask_user_id_in_fullwidth_digits_is_not_user_12(tmp: Path) -> str | None:
    return _as_local(tmp, _cell(0, "\uff11\uff12"))


# ------------------------------------------------------------ what a file is and what ends a line
@case(UNCLEAR)
def dask_csv_in_utf16_without_a_byte_order_mark(tmp: Path) -> str | None:
    return _refused(tmp, _cell(1, "3").decode().encode("utf-16-le"), "r.csv:1", "UTF-16")


@case(UNCLEAR)
def dask_csv_in_utf16_with_a_byte_order_mark(tmp: Path) -> str | None:
    return _refused(tmp, _cell(1, "3").decode().encode("utf-16"), "r.csv:1", "UTF-16")


@case(UNCLEAR)
def dask_csv_in_latin1_names_the_line(tmp: Path) -> str | None:
    return _refused(tmp, _cell(1, "caf\xe9").decode().encode("latin-1"), "r.csv:6", "UTF-8")


@case(UNCLEAR)
def dask_csv_lines_ended_by_u2028(tmp: Path) -> str | None:
    return _refused(tmp, _cell(1, "3").replace(b"\n", "\u2028".encode()), "r.csv:1", "U+2028")


@case(UNCLEAR)
def dask_csv_lines_ended_by_form_feeds(tmp: Path) -> str | None:
    return _refused(tmp, _cell(1, "3").replace(b"\n", b"\x0c"), "r.csv:1", "form feed")


@case(UNCLEAR)
def dask_csv_lines_ended_by_nel(tmp: Path) -> str | None:
    return _refused(tmp, _cell(1, "3").replace(b"\n", "\u0085".encode()), "r.csv:1", "U+0085")


# ----------------------------------------------------------------------- header and field counts
@case(ACCEPT)
def dask_csv_whose_header_repeats_the_rating_column(tmp: Path) -> str | None:
    rows = [[*r, str(6 - int(r[2]))] for r in _BASE]  # which 'rating' is meant?
    data = b"user,item,rating,timestamp,rating\n" + "".join(
        ",".join(r) + "\n" for r in rows).encode()
    return _refused(tmp, data, "r.csv:1", "rating", "2 times")


@case(ACCEPT)
def dask_csv_line_with_a_field_too_many(tmp: Path) -> str | None:
    return _refused(tmp, _cell(3, "1005,9"), "r.csv:6", "5 fields", "expected 4")


@case(ACCEPT)
def dask_csv_line_with_a_field_too_few(tmp: Path) -> str | None:
    rows = [list(r) for r in _BASE]
    rows[4] = rows[4][:3]  # no timestamp: pandas fills NaN, or a shifted row
    data = _HEAD + "".join(",".join(r) + "\n" for r in rows).encode()
    return _refused(tmp, data, "r.csv:6", "3 fields", "expected 4")


@case(ACCEPT)
def dask_quoted_csv_line_with_a_field_too_many(tmp: Path) -> str | None:
    return _refused(tmp, _cell(1, '"5,6",7'), "r.csv:6", "5 fields")


@case(ACCEPT)
def dask_field_too_many_in_a_later_shard(tmp: Path) -> str | None:
    folder = tmp / "r"
    folder.mkdir()
    (folder / "part-0.csv").write_bytes(_cell(1, "3"))
    return _refused(folder, _cell(3, "1005,9"), "part-1.csv:6", "5 fields", name="part-1.csv")


@case(UNCLEAR)
def dask_csv_rating_with_a_decimal_comma(tmp: Path) -> str | None:
    return _refused(tmp, _cell(2, '"3,5"'), "r.csv:6", "rating", "3,5")


# ------------------------------------------------------------- number grammar and ranges
@case(UNCLEAR)
def dask_rating_with_an_underscore_names_the_line(tmp: Path) -> str | None:
    return _refused(tmp, _cell(2, "1_000"), "r.csv:6", "rating", "plain decimal number")


@case(UNCLEAR)
def dask_rating_in_hex_names_the_grammar(tmp: Path) -> str | None:
    return _refused(tmp, _cell(2, "0x10"), "r.csv:6", "rating", "plain decimal number")


@case(ACCEPT)
def dask_csv_timestamp_beyond_10_12_seconds(tmp: Path) -> str | None:
    return _refused(tmp, _cell(3, "99999999999999"), "r.csv:6", "timestamp", "10^12")


@case(ACCEPT)
def dask_parquet_timestamp_beyond_10_12_seconds(tmp: Path) -> str | None:
    t = pa.table({"user": [1, 2], "item": [1, 1], "rating": [1.0, 2.0],
                  "timestamp": [1, 10**15]})
    return _refused(tmp, _parquet_bytes(t), "r.parquet", "row 2", "timestamp", "10^12",
                    name="r.parquet")


@case(ACCEPT)
def dask_parquet_bool_ratings(tmp: Path) -> str | None:
    t = pa.table({"user": [1, 2], "item": [1, 1], "rating": [True, False], "timestamp": [1, 2]})
    return _refused(tmp, _parquet_bytes(t), "r.parquet", "rating", "bool", name="r.parquet")


@case(UNCLEAR)
def dask_later_csv_shard_in_utf16_without_a_mark(tmp: Path) -> str | None:
    folder = tmp / "r"
    folder.mkdir()
    (folder / "part-0.csv").write_bytes(_cell(1, "3"))
    return _refused(folder, _cell(1, "3").decode().encode("utf-16-le"), "part-1.csv:1",
                    "UTF-16", name="part-1.csv")


@case(ACCEPT)
def dask_tsv_line_with_a_field_too_many(tmp: Path) -> str | None:
    return _refused(tmp, _cell(3, "1005,9").replace(b",", b"\t"), "r.tsv:6", "5 fields",
                    name="r.tsv")


# ---------------------------------------------------------------------------- rating magnitude
@case(WRONG)
def dask_rating_beyond_2_53(tmp: Path) -> str | None:
    for value in ("1e308", "-1e308", "9007199254740994.5e1"):
        bad = _refused(tmp, _cell(2, value), "r.csv", "rating", "2^53")
        if bad:
            return f"{value}: {bad}"
    return None


@case(WRONG)
def dask_parquet_rating_beyond_2_53(tmp: Path) -> str | None:
    frame = pd.read_csv(io.BytesIO(_cell(2, "1e300")))
    buf = io.BytesIO()
    frame.to_parquet(buf)
    return _refused(tmp, buf.getvalue(), "r.parquet", "row 5", "rating", "2^53",
                    name="r.parquet")


# ------------------------------------------------------------------------------------ Parquet
def _parquet_bytes(table: pa.Table) -> bytes:
    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue()


@case(TRACE)
def dask_parquet_with_two_rating_columns(tmp: Path) -> str | None:
    t = pa.table([pa.array([1, 1, 2]), pa.array([1, 2, 1]), pa.array([1.0, 2, 3]),
                  pa.array([5.0, 4, 3]), pa.array([1, 2, 3])],
                 names=["user", "item", "rating", "rating", "timestamp"])
    return _refused(tmp, _parquet_bytes(t), "r.parquet", "rating", "2 times", name="r.parquet")


@case(TRACE)
def dask_parquet_with_two_user_columns(tmp: Path) -> str | None:
    t = pa.table([pa.array([1, 1, 2]), pa.array([1, 2, 1]), pa.array([7, 8, 9]),
                  pa.array([5.0, 4, 3]), pa.array([1, 2, 3])],
                 names=["user", "item", "user", "rating", "timestamp"])
    return _refused(tmp, _parquet_bytes(t), "r.parquet", "user", "2 times", name="r.parquet")


@case(ACCEPT)
def dask_parquet_nan_rating(tmp: Path) -> str | None:
    t = pa.table({"user": [1, 2, 3], "item": [1, 1, 1], "rating": [1.0, float("nan"), 3.0],
                  "timestamp": [1, 2, 3]})
    return _refused(tmp, _parquet_bytes(t), "r.parquet", "row 2", "rating", name="r.parquet")


@case(ACCEPT)
def dask_parquet_user_id_text_na(tmp: Path) -> str | None:
    t = pa.table({"user": ["1", "NA", "3"], "item": [1, 1, 1], "rating": [1.0, 2.0, 3.0],
                  "timestamp": [1, 2, 3]})
    return _refused(tmp, _parquet_bytes(t), "r.parquet", "user", name="r.parquet")


@case(WRONG)
def dask_parquet_uint64_user_beyond_int64_does_not_wrap(tmp: Path) -> str | None:
    # numbered as the local reader numbers them (round 10; refused before), never wrapped
    from bench.data.tabular import load_ratings_table

    t = pa.table({"user": pa.array([2**64 - 1, 1], type=pa.uint64()), "item": [1, 1],
                  "rating": [1.0, 2.0], "timestamp": [1, 2]})
    p = tmp / "r.parquet"
    p.write_bytes(_parquet_bytes(t))
    want = load_ratings_table(p, user="user", item="item", rating="rating",
                              timestamp="timestamp").frame.reset_index(drop=True)
    got = _read(p).reset_index(drop=True)
    if got["user"].nunique() != 2:
        return f"two users became one: {got['user'].tolist()}"
    return None if got.equals(want) else f"rows differ from the local engine's: {got.values}"


# ------------------------------------------------------------------- evaluate --engine dask
def _shards(tmp: Path, table: pa.Table) -> Path:
    folder = tmp / "shards"
    folder.mkdir()
    pq.write_table(table, folder / "part-00000.parquet")
    return folder


def _evaluate(folder: Path) -> Any:
    from bench.data.query_shards import read_query_shards, shard_columns
    from bench.metrics.distributed import evaluate_frame

    cols = ["qid", "label", "score"]
    shard_columns(folder, cols)
    return evaluate_frame(read_query_shards(folder, columns=cols), score="score",
                          metrics=["ndcg@10"], where=str(folder)).metrics


def _eval_refused(tmp: Path, table: pa.Table, *words: str) -> str | None:
    folder = _shards(tmp, table)
    try:
        got = _evaluate(folder)
    except LtrbenchError as exc:
        missing = [w for w in words if w not in str(exc)]
        return f"message {str(exc)!r} lacks {missing}" if missing else None
    except Exception as exc:  # any other type: a traceback
        return f"traceback: {type(exc).__name__}: {str(exc)[:200]}"
    return f"accepted ({got}), expected a clear error"


def _eval_as_local(tmp: Path, table: pa.Table) -> str | None:
    """The local engine's numbers on the same rows bit for bit, or -- where it refuses them --
    a refusal naming the shard file and the column the local one names."""
    from bench.metrics.evaluate import evaluate

    try:
        want = evaluate(table.to_pandas(), label="label", score="score", qid="qid",
                        metrics=["ndcg@10"]).metrics
    except LtrbenchError as exc:
        return _eval_refused(tmp, table, "part-00000.parquet", f"'{exc.column}'")
    try:
        got = _evaluate(_shards(tmp, table))
    except Exception as exc:  # any refusal where the local engine gives a number
        return f"{type(exc).__name__}: {str(exc)[:200]}; the local engine gives {want}"
    return None if dict(got) == dict(want) else f"{dict(got)}, the local engine {dict(want)}"


def _qls(**cols: Any) -> pa.Table:
    return pa.table({"qid": [1, 1, 1, 2, 2], "label": [2.0, 0.0, 1.0, 1.0, 0.0],
                     "score": [0.9, 0.1, 0.5, 0.2, 0.8], **cols})


@case(WRONG)
def dask_shards_label_above_31(tmp: Path) -> str | None:
    return _eval_as_local(tmp, _qls(label=[100.0, 0.0, 1.0, 1.0, 0.0]))


@case(WRONG)
def dask_shards_nan_label(tmp: Path) -> str | None:
    return _eval_as_local(tmp, _qls(label=[float("nan"), 0.0, 1.0, 1.0, 0.0]))


@case(WRONG)
def dask_shards_negative_label(tmp: Path) -> str | None:
    return _eval_as_local(tmp, _qls(label=[-1.0, 0.0, 1.0, 1.0, 0.0]))


@case(WRONG)
def dask_shards_fractional_label(tmp: Path) -> str | None:
    return _eval_as_local(tmp, _qls(label=[1.5, 0.0, 1.0, 1.0, 0.0]))


@case(WRONG)
def dask_shards_nan_score(tmp: Path) -> str | None:
    return _eval_as_local(tmp, _qls(score=[float("nan"), 0.1, 0.5, 0.2, 0.8]))


@case(WRONG)
def dask_shards_infinite_score(tmp: Path) -> str | None:
    return _eval_as_local(tmp, _qls(score=[float("inf"), 0.1, 0.5, 0.2, 0.8]))


@case(WRONG)
def dask_shards_float_qid_nan(tmp: Path) -> str | None:
    return _eval_as_local(tmp, _qls(qid=[1.0, 1.0, 1.0, float("nan"), float("nan")]))


@case(WRONG)
def dask_shards_text_qid_na_is_an_id_as_locally(tmp: Path) -> str | None:
    return _eval_as_local(tmp, _qls(qid=["NA", "NA", "NA", "b", "b"]))


@case(WRONG)
def dask_shards_tied_scores(tmp: Path) -> str | None:
    return _eval_as_local(tmp, _qls(score=[0.5, 0.5, 0.5, 0.2, 0.2]))


@case(ACCEPT)
def dask_shards_bool_labels(tmp: Path) -> str | None:
    # the local evaluate refuses a bool label ("a bool is not a number here")
    t = pa.table({"qid": [1, 1], "label": [True, False], "score": [0.1, 0.9]})
    return _eval_refused(tmp, t, "part-00000.parquet", "label", "bool")


@case(TRACE)
def dask_shards_with_a_label_column_twice(tmp: Path) -> str | None:
    t = pa.table([pa.array([1, 1]), pa.array([1.0, 0]), pa.array([0.0, 2]), pa.array([.5, .1])],
                 names=["qid", "label", "label", "score"])
    return _eval_refused(tmp, t, "part-00000.parquet", "label", "2 times")


@case(TRACE)
def dask_shards_with_a_score_column_twice(tmp: Path) -> str | None:
    t = pa.table([pa.array([1, 1]), pa.array([1.0, 0]), pa.array([.5, .1]), pa.array([.1, .5])],
                 names=["qid", "label", "score", "score"])
    return _eval_refused(tmp, t, "part-00000.parquet", "score", "2 times")


@case(TRACE)
def dask_shards_with_a_qid_column_twice(tmp: Path) -> str | None:
    t = pa.table([pa.array([1, 1]), pa.array([1.0, 0]), pa.array([.5, .1]), pa.array([2, 3])],
                 names=["qid", "label", "score", "qid"])
    return _eval_refused(tmp, t, "part-00000.parquet", "qid", "2 times")


# ------------------------------------------------------------------- the command line (convert)
def _convert(tmp: Path, data: bytes) -> Any:
    (tmp / "r.csv").write_bytes(data)
    return cli(tmp, "convert", "--engine", "dask", "--workers", "1", "--ratings", "r.csv",
               "--user", "user", "--item", "item", "--rating", "rating", "--timestamp",
               "timestamp", "--min-history", "2", "--target-size", "2", "--features", "user",
               "--negatives", "3", "--out", "o")


@case(ACCEPT)
def dask_cli_convert_line_with_a_field_too_many(tmp: Path) -> str | None:
    return refused(_convert(tmp, _cell(3, "1005,9")), "r.csv:6", "5 fields", "expected 4")


@case(UNCLEAR)
def dask_cli_convert_user_id_na(tmp: Path) -> str | None:
    return refused(_convert(tmp, _cell(0, "NA")), "r.csv:6", "user", "missing")


@pytest.mark.parametrize(("klass", "fn"), CASES, ids=[fn.__name__ for _, fn in CASES])
def test_catalogue(klass: str, fn: Fn, tmp_path: Path, client: Any) -> None:
    bad = fn(tmp_path)
    assert bad is None, f"[{klass}] {fn.__name__}: {bad}"


def test_the_catalogue_covers_the_local_classes() -> None:
    names = [fn.__name__ for _, fn in CASES]
    assert len(names) == len(set(names))
    assert {k for k, _ in CASES} >= {WRONG, ACCEPT, UNCLEAR, TRACE}
