"""Round 19 of the hostile catalogue: a data-platform engineer operating ltrbench on Dask.

What an operator meets that the earlier Dask catalogues (``test_hostile_dask_*``,
``test_hostile_round7..13_*``) did not try: shards a pandas job wrote with its index
(``set_index("qid").to_parquet``: the query ids then live in pandas' index metadata), a row
group of 0 rows inside a shard, a stale ``_metadata`` / ``_common_metadata`` of another schema,
two columns whose names differ only in case (``score`` and ``Score``: the local engine refuses
them as ambiguous), decimal label and score columns as Spark writes them, queries regrouped by
``align_queries`` under a profile whose ties keep row order, a Dask configuration that changes
Dask's defaults (``dataframe.convert-string``, ``dataframe.shuffle.method``), memory-limit
spellings Dask itself cannot read (``1e400``), a scheduler address of port 0, and ratings
shards with a BOM or gzip-compressed.

The oracle of each case: hand arithmetic (:data:`dask_kit.NDCG_AB`, the per-query values
written out), the local evaluator on the same rows (:func:`bench.metrics.evaluate`, itself
tested against pytrec_eval and scikit-learn) or the local ratings reader, Dask's own
``parse_bytes``, or "a clear error (ltrbench's own, exit 2 from the command line) naming the
file / option and what was expected". Class of each case in its comment: traceback / silently
wrong number / silent accept / unclear error.

Failing before this round (measured against ``/work/base19``: 74 cases, 38 failing), now fixed:

* Parquet shards written by ``frame.set_index("qid").to_parquet`` (or with the score, the label,
  a ``(qid, doc)`` index): ``KeyError: "['qid'] not in index"`` from Dask's reader, a traceback
  on the command line; one-row queries whose qids 1, 2, 3 pandas stores as a range index in its
  metadata alone: "no column 'qid'"; the same for ratings tables on both engines (the local
  reader's ``KeyError 'user'``);
* ``score`` beside ``Score`` (``qid``/``QID``, ``label``/``Label``) in a shard: one read in
  silence, where the local engine refuses them as ambiguous;
* ``align_queries`` sorted each partition by qid with an unstable sort: under the ``lightgbm``
  and ``xgboost`` profiles (ties in row order) ndcg@10 0.716 against the local 0.767 on the same
  frame (map@10 0.636 against 0.707); its bad arguments were a KeyError, a TypeError about a
  complex number, ``npartitions=0`` taken as the default;
* ``DASK_DATAFRAME__BACKEND=cudf`` in the operator's Dask settings: "ValueError: No backend
  dispatch registered for cudf" from every read;
* ``--memory-limit 1e400``: ``OverflowError: cannot convert float infinity to integer``;
* a decimal label was told "text or other values are not parsed"; a folder of ``.csv.gz``
  ratings shards "expected ... a folder of *.parquet / *.csv shards" without naming one; a
  gzip shard whose header time stamp holds a newline byte "cannot tell the column separator".

Cheap by design: ``evaluate --engine dask`` runs with the cluster replaced by Dask's
synchronous scheduler (the shard checks and the per-partition evaluation are the engine's own);
one case runs on the module-scoped in-process LocalCluster of ``dask_kit`` (a p2p shuffle).
"""

from __future__ import annotations

import bz2
import decimal
import gzip
import lzma
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from dask_kit import NDCG_AB, A, B, in_process_client, local_ratings, parquet_table
from dask_kit import no_cluster as synchronous_engine
from hostile_kit import api_refused, call, cli, csv_values, own_error, refused

pytest.importorskip("distributed")
client = in_process_client
no_cluster = synchronous_engine  # the fixture, under the name the cases ask for


# ------------------------------------------------------------------------------- helpers


def _folder(tmp: Path, writers: list[Any], sub: str = "shards",
            names: str = "part-{:05d}.parquet") -> Path:
    """A shard folder: each writer is a frame / Table (written without its index) or a
    callable ``writer(path)``."""
    folder = tmp / sub
    folder.mkdir(parents=True, exist_ok=True)
    for i, w in enumerate(writers):
        path = folder / names.format(i)
        if callable(w):
            w(path)
        else:
            pq.write_table(parquet_table(w), path)
    return folder


def _shards(folder: Path, metrics: tuple[str, ...] = ("ndcg@10",), profile: str = "ltrbench",
            per_query: bool = False, score: str = "score") -> Any:
    """``evaluate --engine dask`` on ``folder`` through the engine (the cluster faked)."""
    from bench.engines.dask_engine import evaluate_shards
    from bench.engines.table import ClusterOptions

    return evaluate_shards(folder, score_column=score, metrics=list(metrics), profile=profile,
                           per_query=per_query, options=ClusterOptions(scheduler=None, workers=1))


def _ndcg(folder: Path) -> float:
    value, exc = call(lambda: _shards(folder))
    assert exc is None, f"{type(exc).__name__}: {exc}"
    return float(value.metrics["ndcg@10"])


# ------------------------------------------- shards a pandas job wrote with its index


def _indexed(frame: pd.DataFrame, *keys: str) -> Any:
    return lambda path: frame.set_index(list(keys)).to_parquet(path)


@pytest.mark.parametrize("writers", [
    # traceback: dd.read_parquet made 'qid' the index ("['qid'] not in index", a KeyError)
    pytest.param(lambda: [_indexed(A, "qid"), _indexed(B, "qid")], id="qid-index-every-shard"),
    pytest.param(lambda: [A, _indexed(B, "qid")], id="qid-index-one-shard"),
    pytest.param(lambda: [_indexed(A, "score"), _indexed(B, "score")], id="score-index"),
    pytest.param(lambda: [_indexed(A, "label"), B], id="label-index-one-shard"),
    pytest.param(lambda: [_indexed(A.assign(doc=["a", "b", "c"]), "qid", "doc"),
                          _indexed(B.assign(doc=["d", "e"]), "qid", "doc")],
                 id="qid-doc-multiindex"),
    # a filtered frame written with its (non-range) index: __index_level_0__ in the file
    pytest.param(lambda: [lambda p: pd.concat([A, B]).iloc[[0, 1, 2]].set_axis([7, 9, 11])
                          .to_parquet(p), lambda p: B.set_axis([4, 2]).to_parquet(p)],
                 id="unnamed-index"),
])
def test_shards_written_with_a_pandas_index_give_the_hand_number(
        tmp_path: Path, no_cluster: None, writers: Any) -> None:
    """traceback / silently refused data: the columns a pandas job wrote as its index are the
    shard's columns (pyarrow writes them as columns; only pandas' metadata calls them an
    index)."""
    assert _ndcg(_folder(tmp_path, writers())) == pytest.approx(NDCG_AB, abs=1e-15)


def test_a_qid_index_shard_through_the_command_line_is_the_hand_number(
        tmp_path: Path, no_cluster: None) -> None:
    # traceback: the KeyError reached the command line
    _folder(tmp_path, [_indexed(A, "qid"), _indexed(B, "qid")])
    res = cli(tmp_path, "evaluate", "--engine", "dask", "--data", "shards", "--format", "csv",
              "--metrics", "ndcg@10")
    assert not res.traceback, res.err
    assert res.status == 0, res.err
    assert csv_values(res)["ndcg@10"] == pytest.approx(NDCG_AB, abs=1e-15)


def test_a_bad_label_in_an_indexed_shard_still_names_its_file_and_row(
        tmp_path: Path, no_cluster: None) -> None:
    # unclear error: the KeyError hid the real problem of the shard
    bad = B.assign(label=[1.0, np.nan])
    folder = _folder(tmp_path, [_indexed(A, "qid"), _indexed(bad, "qid")])
    assert own_error(lambda: _shards(folder), "part-00001.parquet", "row 2", "label") is None


def test_shards_with_another_index_each_give_the_hand_number(tmp_path: Path,
                                                            no_cluster: None) -> None:
    # a KeyError before: one shard indexed by (qid, doc), the next by nothing
    folder = _folder(tmp_path, [_indexed(A.assign(doc=["a", "b", "c"]), "qid", "doc"), B])
    assert _ndcg(folder) == pytest.approx(NDCG_AB, abs=1e-15)


def test_one_document_queries_indexed_by_qid_give_the_hand_number(tmp_path: Path,
                                                                  no_cluster: None) -> None:
    """Shards of one-row queries whose qid index runs 1, 2, 3 and 4, 5: Dask's reader failed
    on such an index ("['qid'] not in index") even where it read others. Each query's ndcg@10
    is 1 (one document: it is ranked first) or blank (label 0: excluded): mean 1."""
    one = pd.DataFrame({"qid": [1, 2, 3], "label": [1.0, 2.0, 0.0], "score": [0.5, 0.2, 0.1]})
    two = pd.DataFrame({"qid": [4, 5], "label": [3.0, 1.0], "score": [0.3, 0.9]})
    assert _ndcg(_folder(tmp_path, [_indexed(one, "qid"), _indexed(two, "qid")])) == 1.0


# --------------------------------------------------- row groups and Dask's metadata files


def _with_empty_row_group(path: Path) -> None:
    schema = parquet_table(A).schema
    with pq.ParquetWriter(path, schema) as w:
        w.write_table(parquet_table(A))
        w.write_table(parquet_table(A).slice(0, 0))
        w.write_table(parquet_table(B))


def test_a_row_group_of_0_rows_inside_a_shard_gives_the_hand_number(
        tmp_path: Path, no_cluster: None) -> None:
    # silently wrong number, if the empty group ended a query or dropped the next one
    folder = _folder(tmp_path, [_with_empty_row_group])
    meta = pq.ParquetFile(folder / "part-00000.parquet").metadata
    assert [meta.row_group(i).num_rows for i in range(meta.num_row_groups)] == [3, 0, 2]
    assert _ndcg(folder) == pytest.approx(NDCG_AB, abs=1e-15)


def test_a_shard_of_empty_row_groups_only_between_two_adds_nothing(
        tmp_path: Path, no_cluster: None) -> None:
    def empties(path: Path) -> None:
        with pq.ParquetWriter(path, parquet_table(A).schema) as w:
            for _ in range(3):
                w.write_table(parquet_table(A).slice(0, 0))

    assert _ndcg(_folder(tmp_path, [A, empties, B])) == pytest.approx(NDCG_AB, abs=1e-15)


def test_a_stale_metadata_file_listing_one_shard_does_not_leave_the_other_out(
        tmp_path: Path, no_cluster: None) -> None:
    # silently wrong number: Dask's read_parquet of a folder trusts _metadata's row groups
    folder = _folder(tmp_path, [A, B])
    meta = pq.read_metadata(folder / "part-00000.parquet")
    meta.set_file_path("part-00000.parquet")
    meta.write_metadata_file(folder / "_metadata")
    assert _ndcg(folder) == pytest.approx(NDCG_AB, abs=1e-15)


def test_a_common_metadata_of_another_schema_is_not_the_shards_schema(
        tmp_path: Path, no_cluster: None) -> None:
    folder = _folder(tmp_path, [A, B])
    pq.write_metadata(pa.schema([("qid", pa.string()), ("label", pa.string()),
                                 ("score", pa.string())]), folder / "_common_metadata")
    assert _ndcg(folder) == pytest.approx(NDCG_AB, abs=1e-15)


# ------------------------------------------------------- two names that differ only in case


@pytest.mark.parametrize(("shard", "column"), [
    (A.assign(Score=[0.0, 0.9, 0.1]), "score"),
    (A.assign(QID=[5, 5, 5]), "qid"),
    (A.assign(Label=[0.0, 2.0, 0.0]), "label"),
], ids=["score-Score", "qid-QID", "label-Label"])
def test_two_columns_differing_only_in_case_are_refused_as_the_local_engine_refuses_them(
        tmp_path: Path, no_cluster: None, shard: pd.DataFrame, column: str) -> None:
    """silent accept: README: "Two columns whose names differ only in case (score, Score) are
    refused as ambiguous" -- the local engine does; the shards' engine read one of them."""
    from bench.metrics import evaluate

    assert call(lambda: evaluate(shard, metrics=["ndcg@10"]))[1] is not None  # the local rule
    folder = _folder(tmp_path, [B, shard])
    assert own_error(lambda: _shards(folder), "part-00001.parquet", repr(column),
                     repr(next(c for c in shard.columns if c.lower() == column and c != column))
                     ) is None


def test_case_twins_through_the_command_line_are_one_line(tmp_path: Path,
                                                          no_cluster: None) -> None:
    _folder(tmp_path, [A.assign(Score=[0.0, 0.9, 0.1]), B])
    res = cli(tmp_path, "evaluate", "--engine", "dask", "--data", "shards", "--format", "csv")
    assert refused(res, "part-00000.parquet", "'Score'") is None


# ------------------------------------------------------------- what Spark writes: decimals


def _decimal(frame: pd.DataFrame, column: str, scale: int) -> pa.Table:
    t = parquet_table(frame)
    values = [decimal.Decimal(str(v)).quantize(decimal.Decimal(1).scaleb(-scale))
              for v in frame[column]]
    return t.set_column(t.schema.get_field_index(column), column,
                        pa.array(values, pa.decimal128(12, scale)))


@pytest.mark.parametrize(("column", "scale"), [("label", 0), ("score", 2)])
def test_a_decimal_column_says_it_is_decimal_and_how_to_cast_it(
        tmp_path: Path, no_cluster: None, column: str, scale: int) -> None:
    """unclear error: a decimal label was told "text or other values are not parsed" and a
    decimal score "expected numbers (integers or floats)" (a decimal is a number); the local
    engine says "convert the column with .astype(float)"."""
    folder = _folder(tmp_path, [B, _decimal(A, column, scale)])
    assert own_error(lambda: _shards(folder), "part-00001.parquet", "decimal", "float64",
                     repr(column)) is None


# ------------------------------------------------------------ agreement with the local engine


#: Dask's synchronous scheduler and the shuffle it can run (a Client of the module makes p2p
#: Dask's default, which needs the cluster)
TASKS = {"scheduler": "synchronous", "dataframe.shuffle.method": "tasks"}


def _random_frame(seed: int, n: int = 80) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"qid": rng.integers(0, 6, n),
                         "label": rng.integers(0, 2, n).astype(float),
                         "score": rng.integers(0, 2, n).astype(float)})  # many ties


@pytest.mark.parametrize(("profile", "method"), [("lightgbm", "tasks"), ("xgboost", "tasks"),
                                               ("ltrbench", "tasks"), ("lightgbm", "disk")])
def test_aligned_queries_give_the_local_number_under_every_tie_rule(profile: str,
                                                                    method: str) -> None:
    """silently wrong number: ``align_queries`` sorted each partition by qid with an unstable
    sort, so a profile whose ties keep row order (lightgbm, xgboost) ranked tied documents in
    another order than the local engine on the same frame (lightgbm ndcg@10 0.716 vs 0.767)."""
    import dask
    import dask.dataframe as dd

    from bench.data.query_shards import align_queries
    from bench.metrics import evaluate
    from bench.metrics.distributed import evaluate_frame

    frame = _random_frame(0)
    metrics = ["ndcg@10", "map@10", "mrr"]
    want = evaluate(frame, metrics=metrics, profile=profile).metrics
    with dask.config.set({**TASKS, "dataframe.shuffle.method": method}):
        got = evaluate_frame(align_queries(dd.from_pandas(frame, npartitions=4)),
                             metrics=metrics, profile=profile).metrics
    assert dict(got) == pytest.approx(dict(want), abs=1e-12)


def test_aligned_queries_by_hand_keep_the_rows_order_inside_a_query() -> None:
    """The hand number: query 1's two tied documents, the relevant one second in the input
    (over partitions 0 and 1, with query 2 between them), rank 2 under the stable ties of
    'lightgbm': ndcg@10 = 1/log2(3)."""
    import dask
    import dask.dataframe as dd

    from bench.data.query_shards import align_queries
    from bench.metrics.distributed import evaluate_frame

    frame = pd.DataFrame({"qid": [1, 2, 2, 1], "label": [0.0, 1.0, 0.0, 1.0],
                          "score": [0.5, 0.9, 0.1, 0.5]})
    with dask.config.set(TASKS):
        got = evaluate_frame(align_queries(dd.from_pandas(frame, npartitions=2)),
                             metrics=["ndcg@10"], profile="lightgbm", per_query=True)
    per = dict(zip(got.per_query["qid"].astype(str), got.per_query["ndcg@10"], strict=True))
    assert per == pytest.approx({"1": 1 / math.log2(3), "2": 1.0}, abs=1e-15)


def test_aligned_queries_on_a_cluster_p2p_shuffle_give_the_local_number(client: Any) -> None:
    """The same on the in-process cluster, whose default shuffle is Dask's p2p."""
    import dask
    import dask.dataframe as dd

    from bench.data.query_shards import align_queries
    from bench.metrics import evaluate
    from bench.metrics.distributed import evaluate_frame

    frame = _random_frame(1)
    want = evaluate(frame, metrics=["ndcg@10"], profile="lightgbm").metrics
    with dask.config.set({"dataframe.shuffle.method": "p2p"}):
        got = evaluate_frame(align_queries(dd.from_pandas(frame, npartitions=3)),
                             metrics=["ndcg@10"], profile="lightgbm").metrics
    assert dict(got) == pytest.approx(dict(want), abs=1e-12)


@pytest.mark.parametrize("npartitions", [1, 2, 7])
def test_aligned_text_queries_into_any_number_of_partitions_give_the_local_number(
        npartitions: int) -> None:
    import dask
    import dask.dataframe as dd

    from bench.data.query_shards import align_queries
    from bench.metrics import evaluate
    from bench.metrics.distributed import evaluate_frame

    frame = _random_frame(4).assign(qid=lambda f: "q" + f["qid"].astype(str))
    want = evaluate(frame, metrics=["ndcg@10", "mrr"], profile="lightgbm").metrics
    with dask.config.set(TASKS):
        got = evaluate_frame(align_queries(dd.from_pandas(frame, npartitions=5),
                                           npartitions=npartitions),
                             metrics=["ndcg@10", "mrr"], profile="lightgbm").metrics
    assert dict(got) == pytest.approx(dict(want), abs=1e-12)


@pytest.mark.parametrize(("frame", "kw", "words"), [
    (lambda: A.rename(columns={"qid": "q"}), {}, ("'qid'", "'q'")),
    (lambda: A, {"npartitions": -1}, ("npartitions", "-1")),
    (lambda: A, {"npartitions": 0}, ("npartitions", ">= 1")),
    (lambda: A, {"npartitions": 2.5}, ("npartitions", "2.5")),
    (lambda: A, {"npartitions": True}, ("npartitions", "True")),
    (None, {}, ("Dask DataFrame", "evaluate_frame")),
], ids=["no-qid-column", "npartitions-negative", "npartitions-0", "npartitions-float",
        "npartitions-bool", "a-pandas-frame"])
def test_align_queries_refuses_what_it_cannot_align_in_ltrbenchs_words(
        frame: Any, kw: dict[str, Any], words: tuple[str, ...]) -> None:
    """traceback (KeyError, TypeError on a complex number, AttributeError 'npartitions') /
    silent accept (npartitions=0 read as the default)."""
    import dask.dataframe as dd

    from bench.data.query_shards import align_queries

    given = A if frame is None else dd.from_pandas(frame(), npartitions=1)
    assert own_error(lambda: align_queries(given, **kw), *words) is None


def test_aligned_queries_keep_the_frames_columns_and_rows() -> None:
    import dask
    import dask.dataframe as dd

    from bench.data.query_shards import align_queries, check_query_aligned

    frame = _random_frame(2).assign(doc=lambda f: [f"d{i}" for i in range(len(f))])
    with dask.config.set(TASKS):
        out = align_queries(dd.from_pandas(frame, npartitions=4))
        check_query_aligned(out)
        got = out.compute()
    assert list(got.columns) == list(frame.columns)
    assert sorted(got["doc"]) == sorted(frame["doc"])


def test_shards_named_part_10_before_part_2_give_the_local_number_with_stable_ties(
        tmp_path: Path, no_cluster: None) -> None:
    """Text order (part-10 before part-2) is only the partitions' order: each query's rows keep
    their shard's order, so the stable-tie number is the local one on the same rows."""
    from bench.metrics import evaluate

    frame = _random_frame(3).sort_values("qid", kind="stable").reset_index(drop=True)
    folder = tmp_path / "s"
    folder.mkdir()
    for q, part in frame.groupby("qid", sort=True):
        part.to_parquet(folder / f"part-{[2, 10, 1, 33, 4, 100][int(q)]}.parquet", index=False)
    metrics = ("ndcg@10", "map@10")
    want = evaluate(frame, metrics=list(metrics), profile="lightgbm").metrics
    got = _shards(folder, metrics, profile="lightgbm").metrics
    assert dict(got) == pytest.approx(dict(want), abs=1e-12)


def test_text_qids_with_leading_zeros_in_two_shards_are_two_queries_as_locally(
        tmp_path: Path, no_cluster: None) -> None:
    # ids compare as text (README): '01' and '1' are two queries, each ranked on its own rows
    a = A.assign(qid="01")
    b = B.assign(qid="1")
    got = _shards(_folder(tmp_path, [a, b]), per_query=True).per_query
    per = dict(zip(got["qid"].astype(str), got["ndcg@10"], strict=True))
    assert per == pytest.approx({"01": 1.0, "1": 1 / math.log2(3)}, abs=1e-15)


def test_float_qids_zero_and_minus_zero_in_two_shards_are_one_query_split(
        tmp_path: Path, no_cluster: None) -> None:
    # silently wrong number if -0.0 and 0.0 were two queries here (the local engine reads one)
    from bench.metrics import evaluate

    a, b = A.assign(qid=0.0), B.assign(qid=-0.0)
    assert len(evaluate(pd.concat([a, b]), metrics=["ndcg@10"], per_query=True).per_query) == 1
    folder = _folder(tmp_path, [a, b])
    assert own_error(lambda: _shards(folder), "part-00000.parquet", "part-00001.parquet",
                     "one partition") is None


@pytest.mark.parametrize("setting", [
    {"dataframe.convert-string": False},
    {"dataframe.convert-string": True},
    {"dataframe.parquet.minimum-partition-size": 10**9},
], ids=["convert-string-off", "convert-string-on", "huge-minimum-partition"])
def test_a_users_dask_setting_does_not_move_the_number(tmp_path: Path, no_cluster: None,
                                                        setting: dict[str, Any]) -> None:
    """silently wrong number: Dask settings (DASK_DATAFRAME__CONVERT_STRING=False, ...) change
    how shards are read; the number of text qids over three shards stays the hand one."""
    import dask

    a, b = A.assign(qid="q1"), B.assign(qid="q2")
    c = pd.DataFrame({"qid": ["q3"] * 2, "label": [0.0, 1.0], "score": [0.2, 0.1]})
    folder = _folder(tmp_path, [a, b, c])
    with dask.config.set(setting):
        got = _shards(folder, per_query=True).per_query
    per = dict(zip(got["qid"].astype(str), got["ndcg@10"], strict=True))
    assert per == pytest.approx({"q1": 1.0, "q2": 1 / math.log2(3), "q3": 1 / math.log2(3)},
                                abs=1e-15)


def test_a_cudf_backend_in_the_users_dask_settings_still_gives_the_hand_number(
        tmp_path: Path, no_cluster: None) -> None:
    """traceback: DASK_DATAFRAME__BACKEND=cudf (a GPU cluster's setting) made the shards' read
    dispatch to cuDF: "ValueError: No backend dispatch registered for cudf"."""
    import dask

    _folder(tmp_path, [A, B])
    with dask.config.set({"dataframe.backend": "cudf"}):
        res = cli(tmp_path, "evaluate", "--engine", "dask", "--data", "shards", "--format",
                  "csv", "--metrics", "ndcg@10")
    assert not res.traceback, res.err
    assert res.status == 0, res.err
    assert csv_values(res)["ndcg@10"] == pytest.approx(NDCG_AB, abs=1e-15)


def test_a_cudf_backend_in_the_users_dask_settings_reads_ratings_as_pandas(
        tmp_path: Path) -> None:
    import dask

    r = _ratings()
    r.to_csv(tmp_path / "r.csv", index=False)
    with dask.config.set({"dataframe.backend": "cudf"}):
        got, exc = call(lambda: _dask_frame(tmp_path / "r.csv"))
    assert exc is None, f"{type(exc).__name__}: {exc}"
    pd.testing.assert_frame_equal(got[list(r.columns)], r, check_dtype=False)


def test_one_shard_listed_twice_by_the_user_is_refused_not_counted_twice(tmp_path: Path) -> None:
    # silently wrong number: the same file twice would weigh its queries double
    import dask
    import dask.dataframe as dd

    from bench.metrics.distributed import evaluate_frame

    folder = _folder(tmp_path, [A, B])
    path = str(folder / "part-00000.parquet")
    ddf = dd.read_parquet([path, path, str(folder / "part-00001.parquet")])
    with dask.config.set(scheduler="synchronous"):
        exc = call(lambda: evaluate_frame(ddf, metrics=["ndcg@10"]))[1]
    assert api_refused(exc, "qid=1", "one partition") is None


# ---------------------------------------------------------------- memory limits and addresses


@pytest.mark.parametrize("spelling", ["1e400", "1e309GB", "9" * 400])
def test_a_memory_limit_too_large_for_a_float_is_one_clear_error(spelling: str) -> None:
    """traceback: Dask's parse_bytes overflows (OverflowError: cannot convert float infinity
    to integer), which neither check caught."""
    from bench.data.dask_cluster import memory_limit_value
    from bench.engines.dask_engine import check_memory_limit

    assert own_error(lambda: memory_limit_value(spelling), repr(spelling)) is None
    assert own_error(lambda: check_memory_limit(spelling), "--memory-limit",
                     repr(spelling)) is None


def test_a_memory_limit_too_large_for_a_float_on_the_command_line_is_one_line(
        tmp_path: Path) -> None:
    (tmp_path / "r.csv").write_text("user,item,rating,timestamp\n1,1,4,100\n")
    res = cli(tmp_path, "convert", "--engine", "dask", "--ratings", "r.csv", "--out", "o",
              "--memory-limit", "1e400")
    assert refused(res, "--memory-limit", "1e400") is None
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(("spelling", "bytes_"), [
    ("2GiB", 2 * 2**30), ("2 GB", 2 * 10**9), ("2gb", 2 * 10**9), ("1.5 GiB", 3 * 2**29),
    ("1e9", 10**9)])
def test_memory_limit_spellings_dask_reads_pass_as_dask_reads_them(spelling: str,
                                                                   bytes_: int) -> None:
    from distributed.system import MEMORY_LIMIT

    from bench.data.dask_cluster import memory_limit_value

    if bytes_ > MEMORY_LIMIT:
        pytest.skip("more than this machine's memory")
    from dask.utils import parse_bytes

    assert parse_bytes(spelling) == bytes_  # the independent reading: Dask's own
    assert memory_limit_value(spelling) == spelling


@pytest.mark.parametrize(("spelling", "words"), [
    ("-1", (">= 0",)), ("AUTO", ("auto",)), ("2 XB", ("2GB",)), ("", ("2GB",))])
def test_memory_limits_dask_would_misread_name_the_value(spelling: str,
                                                         words: tuple[str, ...]) -> None:
    from bench.engines.dask_engine import check_memory_limit

    assert own_error(lambda: check_memory_limit(spelling), "--memory-limit", *words) is None


@pytest.mark.parametrize("address", ["tcp://localhost:0", "tcp://127.0.0.1:0", "[::1]:0",
                                     "tcp://127.0.0.1:65536"])
def test_a_scheduler_on_port_0_or_beyond_65535_is_refused_before_any_connection(
        address: str) -> None:
    # unclear error / a wait: port 0 is "any free port" to a listener, never a scheduler's
    from bench.data.dask_cluster import check_scheduler_address

    assert own_error(lambda: check_scheduler_address(address), "--scheduler",
                     "1..65535") is None


# ------------------------------------------------------------------------ ratings shards


def _ratings() -> pd.DataFrame:
    return pd.DataFrame({"user": [1, 1, 1, 2, 2, 2], "item": [10, 11, 12, 10, 11, 13],
                         "rating": [4.0, 3.0, 5.0, 2.0, 1.0, 5.0],
                         "timestamp": [100, 101, 102, 200, 201, 202]})


def _dask_frame(path: Path | str) -> pd.DataFrame:
    from bench.data.dask_ratings import read_ratings_frame

    out = read_ratings_frame(path).frame.compute(scheduler="synchronous")
    return out.reset_index(drop=True)


@pytest.mark.parametrize("bom_in", ["both", "first", "second"])
def test_csv_ratings_shards_with_a_bom_read_as_the_local_reader_reads_one_file(
        tmp_path: Path, bom_in: str) -> None:
    # silently wrong data: a BOM glued to the first header name ('\ufeffuser')
    r = _ratings()
    folder = tmp_path / "r"
    folder.mkdir()
    for k, (name, part) in enumerate((("part-0.csv", r.iloc[:3]), ("part-1.csv", r.iloc[3:]))):
        bom = b"\xef\xbb\xbf" if bom_in == "both" or (bom_in, k) in (("first", 0),
                                                                      ("second", 1)) else b""
        (folder / name).write_bytes(bom + part.to_csv(index=False, lineterminator="\r\n")
                                    .encode())
    whole = tmp_path / "whole.csv"
    whole.write_bytes(b"\xef\xbb\xbf" + r.to_csv(index=False).encode())
    got = _dask_frame(folder)
    pd.testing.assert_frame_equal(got[list(r.columns)], local_ratings(whole)[list(r.columns)],
                                  check_dtype=False)
    assert got["user"].tolist() == r["user"].tolist()


@pytest.mark.parametrize(("suffix", "pack"), [(".csv.gz", gzip.compress),
                                             (".csv.bz2", bz2.compress),
                                             (".parquet.xz", lzma.compress)])
def test_a_folder_of_compressed_shards_names_a_shard_and_says_decompress(
        tmp_path: Path, suffix: str, pack: Any) -> None:
    """unclear error: "expected a MovieLens folder (ratings.csv) or a folder of *.parquet /
    *.csv shards", with the folder's own part-0.csv.gz unnamed (one file of the glob or
    alone is named "gzip-compressed ... decompress it first")."""
    folder = tmp_path / "r"
    folder.mkdir()
    r = _ratings()
    (folder / f"part-0{suffix}").write_bytes(pack(r.iloc[:3].to_csv(index=False).encode()))
    (folder / f"part-1{suffix}").write_bytes(pack(r.iloc[3:].to_csv(index=False).encode()))
    assert own_error(lambda: _dask_frame(folder), f"part-0{suffix}", "decompress") is None


@pytest.mark.parametrize("mtime", [0, 10])
def test_a_glob_of_gzip_csv_shards_names_the_first_and_says_decompress(tmp_path: Path,
                                                                       mtime: int) -> None:
    """unclear error: a gzip header whose time stamp holds a newline byte (mtime 10) ended the
    "first line" before any separator: "cannot tell the column separator from the first line;
    pass sep=" (whether it did depended on the clock when the shard was compressed)."""
    folder = tmp_path / "r"
    folder.mkdir()
    (folder / "part-0.csv.gz").write_bytes(
        gzip.compress(_ratings().to_csv(index=False).encode(), mtime=mtime))
    assert own_error(lambda: _dask_frame(str(folder / "*.csv.gz")), "part-0.csv.gz",
                     "decompress") is None


def test_csv_ratings_shards_named_part_10_and_part_2_hold_every_row_once(
        tmp_path: Path) -> None:
    folder = tmp_path / "r"
    folder.mkdir()
    r = _ratings()
    r.iloc[:2].to_csv(folder / "part-2.csv", index=False)
    r.iloc[2:].to_csv(folder / "part-10.csv", index=False)
    got = _dask_frame(folder)
    key = ["user", "item"]
    pd.testing.assert_frame_equal(got.sort_values(key).reset_index(drop=True)[list(r.columns)],
                                  r.sort_values(key).reset_index(drop=True), check_dtype=False)


@pytest.mark.parametrize("keys", [["user"], ["user", "item"], ["timestamp"]],
                         ids=["user", "user-item", "timestamp"])
def test_a_ratings_parquet_written_with_a_pandas_index_reads_on_both_engines(
        tmp_path: Path, keys: list[str]) -> None:
    """traceback on both engines: the local reader's KeyError 'user', Dask's "['user'] not in
    index" -- for a table written by ``frame.set_index("user").to_parquet``."""
    r = _ratings()
    path = tmp_path / "r.parquet"
    r.set_index(keys).to_parquet(path)
    local, exc = call(lambda: local_ratings(path))
    assert exc is None, f"local: {type(exc).__name__}: {exc}"
    pd.testing.assert_frame_equal(local[list(r.columns)], r, check_dtype=False)
    folder = tmp_path / "shards"
    folder.mkdir()
    r.iloc[:3].set_index(keys).to_parquet(folder / "a.parquet")
    r.iloc[3:].set_index(keys).to_parquet(folder / "b.parquet")
    for given in (path, folder):
        got, exc = call(lambda given=given: _dask_frame(given))
        assert exc is None, f"dask {given.name}: {type(exc).__name__}: {exc}"
        pd.testing.assert_frame_equal(got[list(r.columns)], r, check_dtype=False)
