"""Hostile inputs against the one input discipline of :mod:`bench.data.inputs` (issue 19, item 1).

Classes (the ``class`` of each case):

- ``line-ends``: LF, CRLF and CR-only line ends read the same by every text reader (TREC qrels
  and runs, SVMlight/LETOR, its ``.query`` sidecar, scores files, ratings CSV/TSV, MovieLens);
- ``ids``: ids compare as their text on every path (files, DataFrames, dicts, arrays, shards), a
  float or bool id mixed into text ids is an error naming the column;
- ``scores``: integer scores a float64 cannot hold exactly (|s| > 2^53) are an error naming the
  column / keys / file:line, never silent ties;
- ``dask``: shard and partition problems are errors naming the shard file and column;
- ``where``: every error names the file (partition file, frame column, dict keys) and the user's
  line/row, and a write that fails names the path.

Golden values come from pytrec_eval (TREC cases) or from the same rows read through a clean
input (LF file, text ids), never from the path under test.
"""

from __future__ import annotations

import errno
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.errors import DataError

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 d 1\n2 0 e 0\n"
RUN = "1 Q0 a 1 0.4 t\n1 Q0 b 2 0.9 t\n1 Q0 c 3 0.1 t\n2 Q0 d 1 0.2 t\n2 Q0 e 2 0.8 t\n"
DATA = "2 qid:1 1:0.5 2:1 # d1\n0 qid:1 1:0.1 # d2\n1 qid:1 2:0.3 # d3\n1 qid:2 1:0.2\n0 qid:2 1:0.9\n"
SCORES = "0.9\n0.1\n0.5\n0.2\n0.8\n"
RATINGS = "u,i,r,t\n" + "".join(f"{u},{i},{(u + i) % 5 + 1},{1000 * u + i}\n"
                                for u in range(1, 4) for i in range(10, 13))
UDATA = "1\t10\t4\t100\n1\t11\t3\t200\n2\t10\t5\t300\n"


def _pytrec(qrels: str, run: str, measure: str = "ndcg_cut_10") -> float:
    """Mean of pytrec_eval's per-query ``measure`` (pytrec_eval parses nothing: we give dicts)."""
    import pytrec_eval

    def rows(text: str) -> list[list[str]]:
        return [ln.split() for ln in text.splitlines() if ln.strip()]

    q: dict[str, dict[str, int]] = {}
    for f in rows(qrels):
        q.setdefault(f[0], {})[f[2]] = int(f[3])
    r: dict[str, dict[str, float]] = {}
    for f in rows(run):
        r.setdefault(f[0], {})[f[2]] = float(f[4])
    per = pytrec_eval.RelevanceEvaluator(q, {measure}).evaluate(r)
    return float(np.mean([v[measure] for v in per.values()]))


TREC_NDCG = _pytrec(QRELS, RUN)
assert abs(TREC_NDCG - ((1 / math.log2(3) + 1) / (2 + 1 / math.log2(3)) + 1 / math.log2(3)) / 2) < 1e-12


def _cr(text: str) -> str:
    return text.replace("\n", "\r")


def _write(tmp: Path, name: str, text: str | bytes) -> Path:
    p = tmp / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(text.encode() if isinstance(text, str) else text)
    return p


def _trec(tmp: Path, qrels: str = QRELS, run: str = RUN, profile: str = "trec_eval") -> float:
    from bench.metrics.trec import evaluate_trec

    q, r = _write(tmp, "q.txt", qrels), _write(tmp, "r.txt", run)
    return float(evaluate_trec(q, r, metrics="ndcg_cut_10", profile=profile).metrics["ndcg_cut_10"])


def _cli_trec(tmp: Path, run: str) -> float:
    """``ltrbench evaluate --qrels --run`` (the issue's CR-only run read as one line: 0.380)."""
    import contextlib
    import io
    import json

    from bench import cli

    q, r = _write(tmp, "q.txt", QRELS), _write(tmp, "r.txt", run)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = cli.main(["evaluate", "--qrels", str(q), "--run", str(r), "--metrics", "ndcg_cut_10",
                       "--profile", "trec_eval", "--format", "json"])
    assert rc == 0
    return float(json.loads(out.getvalue())["metrics"]["ndcg_cut_10"])


def _svm(tmp: Path, data: str, scores: str = SCORES) -> float:
    from bench import cli

    d, s = _write(tmp, "d.txt", data), _write(tmp, "s.txt", scores)
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = cli.main(["evaluate", "--data", str(d), "--scores", str(s), "--metrics", "ndcg@10",
                       "--format", "json"])
    if rc != 0:
        raise AssertionError(f"exit {rc}")
    import json

    return float(json.loads(out.getvalue())["metrics"]["ndcg@10"])


def _svm_rows(tmp: Path, data: str) -> tuple[list[float], list[int]]:
    from bench.data.svmlight import read_svmlight

    d = read_svmlight(_write(tmp, "d.txt", data))
    return d.y.tolist(), d.qid.tolist()


def _frame_eval(frame: pd.DataFrame, **kw: Any) -> float:
    from bench.metrics import evaluate

    return float(evaluate(frame, metrics="ndcg@10", **kw).metrics["ndcg@10"])


def _arrays_eval(y: Any, s: Any, q: Any, **kw: Any) -> float:
    from bench.metrics import evaluate

    return float(evaluate(np.asarray(y), np.asarray(s), qid=q, metrics="ndcg@10",
                          sort_by_qid=True, **kw).metrics["ndcg@10"])


MIXED = pd.DataFrame({"qid": [1, 1, "1", "1", 2, 2], "label": [0, 1, 2, 0, 1, 0],
                      "score": [.1, .2, .3, .4, .5, .6]})
MIXED_AS_TEXT = _arrays_eval(MIXED.label, MIXED.score, MIXED.qid.astype(str).to_numpy())
BIG = 2**60  # 2^60 + 1, + 2, + 3 are one float64: silent ties
BIG_SCORES = [BIG + 1, BIG + 3, BIG + 2]


def _shards(tmp: Path, frames: list[pd.DataFrame]) -> Path:
    folder = tmp / "shards"
    folder.mkdir()
    for k, f in enumerate(frames):
        f.to_parquet(folder / f"part-{k:05d}.parquet", index=False)
    return folder


def _shard_eval(folder: Path, score: str = "score") -> float:
    """What ``evaluate --engine dask --data folder`` does, with a local in-process cluster."""
    import dask

    from bench.data.query_shards import read_query_shards, shard_columns
    from bench.metrics.distributed import evaluate_frame

    cols = ["qid", "label", score]
    shard_columns(folder, cols)
    with dask.config.set(scheduler="synchronous"):
        ddf = read_query_shards(folder, columns=cols)
        r = evaluate_frame(ddf, score=score, metrics="ndcg@10", where=str(folder))
    return float(r.metrics["ndcg@10"])


SHARD_A = pd.DataFrame({"qid": [1, 1, 1], "label": [2.0, 0.0, 1.0], "score": [0.9, 0.1, 0.5]})
SHARD_B = pd.DataFrame({"qid": [2, 2], "label": [1.0, 0.0], "score": [0.2, 0.8]})
SHARD_NDCG = (1 + 1 / math.log2(3)) / 2


def _full_disk(tmp: Path) -> None:
    from bench.data.atomic import write_text

    target = tmp / "out" / "per_query.csv"
    import bench.data.atomic as atomic

    real = Path.write_text

    def boom(self: Path, *a: Any, **k: Any) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    Path.write_text = boom  # type: ignore[method-assign]
    try:
        write_text(target, "x")
    finally:
        Path.write_text = real  # type: ignore[method-assign]
    del atomic


def _full_disk_set(tmp: Path) -> None:
    from bench.data.atomic import replace_file_set

    with replace_file_set(tmp / "rep", ["a.csv"]):
        raise OSError(errno.ENOSPC, "No space left on device")


def _dask_convert(tmp: Path) -> None:
    from bench.data.dask_ratings import read_ratings_frame

    bad = RATINGS.replace("3,11,5,3011", "3,11,high,3011")
    rf = read_ratings_frame(_write(tmp, "ratings.csv", bad), user="u", item="i", rating="r",
                            timestamp="t")
    import dask

    with dask.config.set(scheduler="synchronous"):
        rf.frame.compute()


def _dask_convert_id(tmp: Path) -> None:
    from bench.data.dask_ratings import read_ratings_frame

    bad = RATINGS.replace("2,12,", "2,12.5,")
    rf = read_ratings_frame(_write(tmp, "ratings.csv", bad), user="u", item="i", rating="r",
                            timestamp="t")
    import dask

    with dask.config.set(scheduler="synchronous"):
        rf.frame.compute()


def _folder_bad_movielens(tmp: Path) -> None:
    from bench.datasets.resolve import load_path

    folder = tmp / "ds"
    _write(tmp, "ds/u.data", UDATA.replace("1\t11\t3\t200", "1\t11\tx\t200"))
    load_path(folder)


def _letor_parquet(tmp: Path, write: Callable[[Path], Any]) -> Any:
    from bench.data.parquet import read_parquet

    write(tmp / "l.parquet")
    return read_parquet(tmp / "l.parquet").y.tolist()


def _meta_writer(meta: bytes) -> Callable[[Path], Any]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({"qid": [1, 1], "label": [1.0, 0.0], "f": [0.1, 0.2]})
    return lambda p: pq.write_table(table.replace_schema_metadata({b"ltrbench": meta}), p)


def _folder_of_other_files(tmp: Path) -> None:
    from bench.datasets.resolve import load_path

    _write(tmp, "ds/notes.md", "hello")
    _write(tmp, "ds/x.csv", "a,b\n1,2\n")
    load_path(tmp / "ds")


def _folder_missing_test(tmp: Path) -> None:
    from bench.datasets.resolve import load_path

    _write(tmp, "ds/Fold1/train.txt", DATA)
    _write(tmp, "ds/Fold1/vali.txt", DATA)
    load_path(tmp / "ds")


def _tabular(tmp: Path, text: str) -> list[list[float]]:
    from bench.data.tabular import load_ratings_table

    r = load_ratings_table(_write(tmp, "ratings.csv", text), user="u", item="i", rating="r",
                           timestamp="t")
    return r.frame[["user", "item", "rating", "timestamp"]].to_numpy().tolist()


def _movielens(tmp: Path, text: str) -> list[list[float]]:
    from bench.data.movielens import load_movielens

    _write(tmp, "ml/u.data", text)
    r = load_movielens(tmp / "ml")
    return r.frame[["user", "item", "rating", "timestamp"]].to_numpy().tolist()


ML_CSV = "userId,movieId,rating,timestamp\n1,10,4.0,100\n1,11,3.5,200\n2,10,5.0,300\n"


def _movielens_csv(tmp: Path, text: str) -> list[list[float]]:
    from bench.data.movielens import load_movielens

    _write(tmp, "ml/ratings.csv", text)
    r = load_movielens(tmp / "ml")
    return r.frame[["user", "item", "rating", "timestamp"]].to_numpy().tolist()


def _dask_ratings(tmp: Path, text: str) -> list[list[float]]:
    import dask

    from bench.data.dask_ratings import read_ratings_frame

    rf = read_ratings_frame(_write(tmp, "ratings.csv", text), user="u", item="i", rating="r",
                            timestamp="t")
    with dask.config.set(scheduler="synchronous"):
        return rf.frame.compute().to_numpy().tolist()


def _scores(tmp: Path, text: str) -> list[float]:
    from bench.data.scores import read_scores

    return read_scores(_write(tmp, "s.txt", text), 5).tolist()


def _sidecar(tmp: Path, sizes: str) -> list[int]:
    from bench.data.svmlight import read_svmlight

    data = "".join(ln.split(" ", 2)[0] + " " + ln.split(" ", 2)[2] + "\n"
                   for ln in DATA.splitlines())  # no qid:
    d = _write(tmp, "d.txt", data)
    _write(tmp, "d.txt.query", sizes)
    return read_svmlight(d).group_sizes.tolist()


def _trec_objects_eval(qrels: Any, run: Any) -> float:
    from bench.metrics.trec import evaluate_trec

    return float(evaluate_trec(qrels, run, metrics="ndcg_cut_10",
                               profile="trec_eval").metrics["ndcg_cut_10"])


QD = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"d": 1, "e": 0}}
RD = {"1": {"a": 0.4, "b": 0.9, "c": 0.1}, "2": {"d": 0.2, "e": 0.8}}


class _ToDict:
    """A stand-in for a ranx Run: anything with ``to_dict()`` is read through it."""

    def __init__(self, d: dict[Any, Any]) -> None:
        self.d = d

    def to_dict(self) -> dict[Any, Any]:
        return self.d


def _ir_measures_file(tmp: Path) -> float:
    """ir_measures reading the same CR-only run file itself (its own line splitting)."""
    import ir_measures
    from ir_measures import nDCG

    qrels = list(ir_measures.read_trec_qrels(str(tmp / "q.txt")))
    run = list(ir_measures.read_trec_run(str(tmp / "r.txt")))
    assert len(run) == 5
    return float(ir_measures.calc_aggregate([nDCG @ 10], qrels, run)[nDCG @ 10])


def _svm_label_error(tmp: Path) -> Any:
    """A label above LightGBM's largest on line 4 of a CR-only file: the CLI names line 4."""
    from bench import cli

    d = _write(tmp, "d.txt", _cr(DATA).replace("1 qid:2 1:0.2", "99 qid:2 1:0.2"))
    s = _write(tmp, "s.txt", SCORES)
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        rc = cli.main(["evaluate", "--data", str(d), "--scores", str(s), "--profile", "lightgbm"])
    raise DataError(f"exit {rc}: {err.getvalue()}")


def _dask_parquet_shards(tmp: Path) -> None:
    import dask

    from bench.data.dask_ratings import read_ratings_frame

    (tmp / "r").mkdir()
    pd.DataFrame({"u": [1, 2], "i": [3, 4]}).to_parquet(tmp / "r" / "a.parquet")
    pd.DataFrame({"u": [5], "i": [2.5]}).to_parquet(tmp / "r" / "b.parquet")
    rf = read_ratings_frame(tmp / "r", user="u", item="i")
    with dask.config.set(scheduler="synchronous"):
        rf.frame.compute()


def _dask_tsv(tmp: Path) -> None:
    import dask

    from bench.data.dask_ratings import read_ratings_frame

    text = "u\ti\tr\tt\n1\t10\t4\t100\n1\t11\t3\tnoon\n"
    rf = read_ratings_frame(_write(tmp, "ratings.tsv", text), user="u", item="i", rating="r",
                            timestamp="t")
    with dask.config.set(scheduler="synchronous"):
        rf.frame.compute()


@dataclass(frozen=True)
class Case:
    """``run(tmp)`` must return ``value`` (``==`` or ``approx``), or raise DataError/OSError whose
    message holds every word of ``words``, and never hold any of ``never``."""

    cls: str
    name: str
    run: Callable[[Path], Any]
    value: Any = None
    words: tuple[str, ...] = ()
    never: tuple[str, ...] = ()
    error: type[BaseException] = DataError


def _same(a: Callable[[Path], Any], b: Callable[[Path], Any]) -> Callable[[Path], Any]:
    """Both readings of the same rows must agree (returns True, or the two values)."""
    def run(tmp: Path) -> Any:
        (tmp / "a").mkdir()
        (tmp / "b").mkdir()
        x, y = a(tmp / "a"), b(tmp / "b")
        return True if x == y else (x, y)
    return run


CASES: list[Case] = [
    # ------------------------------------------------------------------------ line ends
    Case("line-ends", "trec-run-cr", lambda t: _trec(t, run=_cr(RUN)), TREC_NDCG),
    Case("line-ends", "trec-qrels-cr", lambda t: _trec(t, qrels=_cr(QRELS)), TREC_NDCG),
    Case("line-ends", "trec-both-cr", lambda t: _trec(t, _cr(QRELS), _cr(RUN)), TREC_NDCG),
    Case("line-ends", "trec-run-mixed-ends",
         lambda t: _trec(t, run=RUN.replace("\n", "\r", 2).replace("t\n2", "t\r\n2")), TREC_NDCG),
    Case("line-ends", "trec-run-cr-comments",
         lambda t: _trec(t, run="# a comment\r" + _cr(RUN) + "# end\r"), TREC_NDCG),
    Case("line-ends", "trec-run-cr-error-line",
         lambda t: _trec(t, run=_cr(RUN.replace("0.2", "0_2"))), words=("r.txt:4", "0_2")),
    Case("line-ends", "trec-qrels-cr-error-line",
         lambda t: _trec(t, qrels=_cr(QRELS.replace("d 1", "d x"))), words=("q.txt:4", "'rel'")),
    Case("line-ends", "svmlight-cr", lambda t: _svm(t, _cr(DATA)),
         (1 + 1 / math.log2(3)) / 2),
    Case("line-ends", "svmlight-cr-rows", _same(lambda t: _svm_rows(t, _cr(DATA)),
                                                 lambda t: _svm_rows(t, DATA)), True),
    Case("line-ends", "svmlight-cr-comment-swallow",
         lambda t: len(_svm_rows(t, "# header\r" + _cr(DATA))[0]), 5),
    Case("line-ends", "svmlight-cr-error-line",
         lambda t: _svm_rows(t, _cr(DATA.replace("1:0.2", "1:0_2"))), words=("d.txt:4", "0_2")),
    Case("line-ends", "svmlight-mixed-ends", _same(
        lambda t: _svm_rows(t, DATA.replace("\n", "\r", 2).replace("d3\n", "d3\r\n")),
        lambda t: _svm_rows(t, DATA)), True),
    Case("line-ends", "scores-cr", lambda t: _scores(t, _cr(SCORES)),
         [0.9, 0.1, 0.5, 0.2, 0.8]),
    Case("line-ends", "scores-cr-error-line", lambda t: _scores(t, _cr(SCORES.replace("0.2", "x"))),
         words=("s.txt:4", "'x'")),
    Case("line-ends", "query-sidecar-cr", lambda t: _sidecar(t, "3\r2\r"), [3, 2]),
    Case("line-ends", "ratings-csv-cr", _same(lambda t: _tabular(t, _cr(RATINGS)),
                                               lambda t: _tabular(t, RATINGS)), True),
    Case("line-ends", "ratings-csv-cr-error-line",
         lambda t: _tabular(t, _cr(RATINGS.replace("2,11,4", "2,11,x"))), words=("ratings.csv:6",)),
    Case("line-ends", "movielens-cr", _same(lambda t: _movielens(t, _cr(UDATA)),
                                             lambda t: _movielens(t, UDATA)), True),
    Case("line-ends", "movielens-ratings-csv-cr", _same(
        lambda t: _movielens_csv(t, _cr(ML_CSV)), lambda t: _movielens_csv(t, ML_CSV)), True),
    Case("line-ends", "movielens-ratings-csv-cr-error-line",
         lambda t: _movielens_csv(t, _cr(ML_CSV.replace("1,11,3.5", "1,11,x"))),
         words=("ratings.csv:3", "rating")),
    Case("line-ends", "dask-ratings-cr", _same(lambda t: _dask_ratings(t, _cr(RATINGS)),
                                                lambda t: _dask_ratings(t, RATINGS)), True),
    Case("line-ends", "trec-run-cr-equals-ir-measures-reading-the-file",
         lambda t: _trec(t, run=_cr(RUN)) - _ir_measures_file(t), 0.0),
    Case("line-ends", "trec-run-cr-with-bom",
         lambda t: _trec(t, run="\ufeff" + _cr(RUN)), TREC_NDCG),
    Case("line-ends", "trec-run-lone-cr-inside-a-line",
         lambda t: _trec(t, run=RUN.replace("1 Q0 a 1", "1 Q0 a\r1")), words=("r.txt:1", "6 fields")),
    Case("line-ends", "trec-qrels-crlf-and-lone-cr",
         lambda t: _trec(t, qrels=QRELS.replace("\n", "\r\n", 2).replace("c 2\n", "c 2\r")),
         TREC_NDCG),
    Case("line-ends", "svmlight-cr-with-bom", _same(lambda t: _svm_rows(t, "\ufeff" + _cr(DATA)),
                                                     lambda t: _svm_rows(t, DATA)), True),
    Case("line-ends", "svmlight-cr-bad-row-names-line",
         lambda t: _svm(t, _cr(DATA).replace("1 qid:2 1:0.2", "1e9 qid:2 1:0.2"),
                        scores=SCORES) if False else _svm_label_error(t), words=("d.txt:4",)),
    Case("line-ends", "scores-crlf-trailing-blank-lines",
         lambda t: _scores(t, SCORES.replace("\n", "\r\n") + "\r\n\r"), [0.9, 0.1, 0.5, 0.2, 0.8]),
    Case("line-ends", "query-sidecar-crlf", lambda t: _sidecar(t, "3\r\n2\r\n"), [3, 2]),
    Case("line-ends", "cli-evaluate-cr-only-run", lambda t: _cli_trec(t, _cr(RUN)), TREC_NDCG),
    # ------------------------------------------------------------------------ ids
    Case("ids", "dict-run-docno-1-and-text-1-is-one-document",
         lambda t: _trec_objects_eval({"1": {"a": 1}}, {"1": {1: 0.5, "1": 0.3}}),
         words=("run dict", "retrieved twice", "['1']['1']")),
    Case("ids", "qrels-frame-qid-1-and-text-1-is-one-query",
         lambda t: _trec_objects_eval(pd.DataFrame({"qid": [1, "1"], "docno": ["a", "a"],
                                                    "rel": [1, 0]}), RD),
         words=("qrels DataFrame", "judged twice", "row 2")),
    Case("ids", "qrels-dict-bool-relevance",
         lambda t: _trec_objects_eval({"1": {"a": True}}, RD), words=("['1']['a']", "bool")),
    Case("ids", "object-array-qid-np-int64-and-text",
         lambda t: _arrays_eval(MIXED.label, MIXED.score,
                                np.array([np.int64(1), 1, "1", "1", 2, np.int64(2)], dtype=object)),
         MIXED_AS_TEXT),
    Case("ids", "object-array-qid-int-and-float-compare-as-numbers",
         lambda t: _arrays_eval(MIXED.label, MIXED.score,
                                np.array([1, 1.0, 1, 1.0, 2, 2.0], dtype=object)),
         _arrays_eval(MIXED.label, MIXED.score, [1, 1, 1, 1, 2, 2])),
    Case("ids", "frame-qid-categorical-mixed",
         lambda t: _frame_eval(MIXED.assign(qid=pd.Categorical(MIXED.qid.astype(object)))),
         MIXED_AS_TEXT),
    Case("ids", "frame-qid-string-dtype", lambda t: _frame_eval(
        MIXED.assign(qid=MIXED.qid.astype(str).astype("string"))), MIXED_AS_TEXT),
    Case("ids", "dict-np-int-keys-vs-text-qrels",
         lambda t: _trec_objects_eval(QD, {np.int64(1): RD["1"], np.int64(2): RD["2"]}), TREC_NDCG),
    Case("ids", "ranx-like-object-int-keys",
         lambda t: _trec_objects_eval(QD, _ToDict({1: RD["1"], 2: RD["2"]})), TREC_NDCG),
    Case("ids", "shards-qid-float-and-int",
         lambda t: _shard_eval(_shards(t, [SHARD_A, SHARD_B.assign(qid=[2.0, 2.0])])),
         words=("part-00001.parquet", "'qid'", "part-00000.parquet")),
    Case("ids", "frame-qid-mixes-1-and-str-1", lambda t: _frame_eval(MIXED), MIXED_AS_TEXT),
    Case("ids", "object-array-qid-mixes-1-and-str-1",
         lambda t: _arrays_eval(MIXED.label, MIXED.score, MIXED.qid.to_numpy()), MIXED_AS_TEXT),
    Case("ids", "list-qid-mixes-1-and-str-1",
         lambda t: _arrays_eval(MIXED.label, MIXED.score, list(MIXED.qid)), MIXED_AS_TEXT),
    Case("ids", "frame-qid-float-among-text",
         lambda t: _frame_eval(MIXED.assign(qid=[1.0, 1.0, "1", "1", 2, 2])),
         words=("DataFrame", "'qid'", "float")),
    Case("ids", "frame-qid-bool-among-ints",
         lambda t: _frame_eval(MIXED.assign(qid=[1, 1, True, True, 2, 2])),
         words=("DataFrame", "'qid'", "bool")),
    Case("ids", "dict-int-keys-vs-text-qrels",
         lambda t: _trec_objects_eval(QD, {1: {"a": 0.4, "b": 0.9, "c": 0.1}, 2: {"d": 0.2, "e": 0.8}}),
         TREC_NDCG),
    Case("ids", "frame-int-qid-vs-text-qrels-file",
         lambda t: _trec_objects_eval(_write(t, "q.txt", QRELS), pd.DataFrame(
             {"qid": [1, 1, 1, 2, 2], "docno": list("abcde"), "score": [.4, .9, .1, .2, .8]})),
         TREC_NDCG),
    Case("ids", "run-frame-mixed-qid-types",
         lambda t: _trec_objects_eval(QD, pd.DataFrame(
             {"qid": [1, "1", 1, "2", 2], "docno": list("abcde"), "score": [.4, .9, .1, .2, .8]})),
         TREC_NDCG),
    # round 23b: read by the id rule (ids compare as text), as a frame of [1, 1, 1, "2", "2"]
    Case("ids", "shards-qid-int-and-text",
         lambda t: _shard_eval(_shards(t, [SHARD_A, SHARD_B.assign(qid=["2", "2"])])),
         SHARD_NDCG),
    # ------------------------------------------------------------------------ scores
    Case("scores", "frame-int64-scores-beyond-2^53",
         lambda t: _frame_eval(pd.DataFrame({"qid": [1, 1, 1], "label": [0, 1, 2],
                                             "score": np.asarray(BIG_SCORES, dtype=np.int64)})),
         words=("DataFrame", "'score'", "2^53")),
    Case("scores", "frame-uint64-scores-beyond-2^53",
         lambda t: _frame_eval(pd.DataFrame({"qid": [1, 1, 1], "label": [0, 1, 2],
                                             "score": np.asarray(BIG_SCORES, dtype=np.uint64)})),
         words=("DataFrame", "'score'", "2^53")),
    Case("scores", "frame-object-int-scores-beyond-2^53",
         lambda t: _frame_eval(pd.DataFrame({"qid": [1, 1, 1], "label": [0, 1, 2],
                                             "score": pd.Series(BIG_SCORES, dtype=object)})),
         words=("DataFrame", "'score'", "2^53")),
    Case("scores", "arrays-int64-scores-beyond-2^53",
         lambda t: _arrays_eval([0, 1, 2], np.asarray(BIG_SCORES, dtype=np.int64), [1, 1, 1]),
         words=("score", "2^53", "row 1")),
    Case("scores", "dict-run-int-scores-beyond-2^53",
         lambda t: _trec_objects_eval({"u": {"a": 0, "b": 1, "c": 2}},
                                      {"u": dict(zip("abc", BIG_SCORES, strict=True))}),
         words=("['u']['a']", "2^53")),
    Case("scores", "run-frame-int-scores-beyond-2^53",
         lambda t: _trec_objects_eval({"u": {"a": 0, "b": 1, "c": 2}}, pd.DataFrame(
             {"qid": ["u"] * 3, "docno": list("abc"), "score": np.asarray(BIG_SCORES)})),
         words=("run DataFrame", "'score'", "2^53")),
    Case("scores", "trec-run-integer-token-beyond-2^53",
         lambda t: _trec(t, run=RUN.replace("0.9", str(BIG + 1))), words=("r.txt:2", "'score'", "2^53")),
    Case("scores", "shard-int-scores-beyond-2^53",
         lambda t: _shard_eval(_shards(t, [SHARD_A.assign(score=np.asarray(BIG_SCORES)), SHARD_B])),
         words=("part-00000.parquet", "'score'", "2^53")),
    Case("scores", "arrays-list-of-python-ints-beyond-2^53",
         lambda t: _arrays_eval([0, 1, 2], BIG_SCORES, [1, 1, 1]), words=("score", "2^53")),
    Case("scores", "arrays-object-ints-beyond-int64",
         lambda t: _arrays_eval([0, 1, 2], np.array([2**70 + 1, 2**70, 3], dtype=object),
                                [1, 1, 1]), words=("score", "2^53", "row 1")),
    Case("scores", "frame-nullable-Int64-scores-beyond-2^53",
         lambda t: _frame_eval(pd.DataFrame({"qid": [1, 1, 1], "label": [0, 1, 2],
                                             "score": pd.array(BIG_SCORES, dtype="Int64")})),
         words=("DataFrame", "'score'", "2^53")),
    Case("scores", "negative-int-scores-beyond-2^53",
         lambda t: _frame_eval(pd.DataFrame({"qid": [1, 1, 1], "label": [0, 1, 2],
                                             "score": -np.asarray(BIG_SCORES)})),
         words=("DataFrame", "'score'", "2^53")),
    Case("scores", "trec-run-negative-integer-token-beyond-2^53",
         lambda t: _trec(t, run=RUN.replace("0.1", str(-BIG - 1))), words=("r.txt:3", "2^53")),
    Case("scores", "trec-run-float-token-beyond-2^53-is-fine",
         lambda t: _trec(t, run=RUN.replace("0.9", "1.2e30")), TREC_NDCG),
    Case("scores", "frame-bool-in-object-score",
         lambda t: _frame_eval(pd.DataFrame({"qid": [1, 1, 1], "label": [0, 1, 2],
                                             "score": pd.Series([0.5, True, 0.1], dtype=object)})),
         words=("DataFrame", "row 2", "'score'", "bool")),
    Case("scores", "frame-text-labels-refused",
         lambda t: _frame_eval(MIXED.assign(label=["0", "1", "2", "0", "1", "0"])),
         words=("DataFrame", "row 1", "'label'")),
    Case("scores", "scores-file-integer-beyond-2^53",
         lambda t: _scores(t, SCORES.replace("0.5", str(BIG + 1))), words=("s.txt:3", "2^53")),
    Case("scores", "frame-text-weights-refused",
         lambda t: _frame_eval(MIXED.assign(w=["1", "1", "1", "1", "x", "1"]), weights="w"),
         words=("DataFrame", "row 1", "'w'")),
    Case("scores", "arrays-text-scores-not-parsed",
         lambda t: _arrays_eval([0, 1, 2], ["1_0", "2", "0.5"], [1, 1, 1]),
         words=("row 1", "scores", "'1_0'", "text")),
    Case("scores", "arrays-text-weights-refused",
         lambda t: _arrays_eval([0, 1, 2], [0.1, 0.2, 0.3], [1, 1, 1], weights=["1", "x", "1"]),
         words=("row 1", "weights", "text")),
    Case("scores", "letor-parquet-text-label-not-parsed",
         lambda t: _letor_parquet(t, pd.DataFrame({"qid": [1, 1], "label": ["1_0", "2"],
                                                   "f": [0.1, 0.2]}).to_parquet),
         words=("l.parquet", "'label'", "numbers")),
    Case("scores", "letor-parquet-damaged-metadata",
         lambda t: _letor_parquet(t, _meta_writer(b"{bad")), words=("l.parquet", "metadata")),
    Case("scores", "letor-parquet-metadata-without-columns",
         lambda t: _letor_parquet(t, _meta_writer(b'{"format": "ltrbench-letor"}')),
         words=("l.parquet", "feature_columns")),
    Case("scores", "frame-int-scores-exact-are-fine",
         lambda t: _frame_eval(pd.DataFrame({"qid": [1, 1, 1], "label": [0, 1, 2],
                                             "score": np.asarray([2**60, 2**61, 2**62])})), 1.0),
    Case("scores", "frame-text-scores-refused",
         lambda t: _frame_eval(pd.DataFrame({"qid": [1, 1, 1], "label": [0, 1, 2],
                                             "score": ["0.5", "1_0", "0.2"]})),
         words=("DataFrame", "'score'", "str")),
    Case("scores", "frame-nan-score", lambda t: _frame_eval(MIXED.assign(score=[.1, np.nan, 1, 2, 3, 4])),
         words=("DataFrame", "row 2", "'score'")),
    # ------------------------------------------------------------------------ dask shards
    Case("dask", "shards-clean", lambda t: _shard_eval(_shards(t, [SHARD_A, SHARD_B])), SHARD_NDCG),
    Case("dask", "shard-not-parquet",
         lambda t: _shard_eval(_write(t, "shards/part-00001.parquet", b"not parquet").parent
                               if _shards(t, [SHARD_A]) else t),
         words=("part-00001.parquet", "Parquet")),
    Case("dask", "shard-without-score-column",
         lambda t: _shard_eval(_shards(t, [SHARD_A, SHARD_B.drop(columns="score")])),
         words=("part-00001.parquet", "'score'")),
    Case("dask", "shard-label-column-text",
         lambda t: _shard_eval(_shards(t, [SHARD_A, SHARD_B.assign(label=["1", "0"])])),
         words=("part-00001.parquet", "'label'")),
    Case("dask", "shard-nan-score",
         lambda t: _shard_eval(_shards(t, [SHARD_A, SHARD_B.assign(score=[np.nan, 1.0])])),
         words=("part-00001.parquet", "row 1", "'score'")),
    Case("dask", "shard-label-too-big-for-lightgbm",
         lambda t: _shard_eval(_shards(t, [SHARD_A, SHARD_B.assign(label=[1e6, 0.0])])),
         words=("part-00001.parquet",)),
    Case("dask", "shard-empty-file",
         lambda t: _shard_eval(_write(t, "shards/part-00001.parquet", b"").parent
                               if _shards(t, [SHARD_A]) else t),
         words=("part-00001.parquet", "Parquet")),
    Case("dask", "shard-is-a-folder",
         lambda t: _shard_eval((t / "shards" / "part-00001.parquet").mkdir() or (t / "shards")
                               if _shards(t, [SHARD_A]) else t),
         words=("part-00001.parquet",)),
    Case("dask", "shard-csv-renamed-parquet",
         lambda t: _shard_eval(_write(t, "shards/part-00001.parquet", "qid,label,score\n2,1,0.5\n").parent
                               if _shards(t, [SHARD_A]) else t),
         words=("part-00001.parquet", "Parquet")),
    Case("dask", "shard-nan-label",
         lambda t: _shard_eval(_shards(t, [SHARD_A.assign(label=[2.0, np.nan, 1.0]), SHARD_B])),
         words=("part-00000.parquet", "row 2", "'label'")),
    Case("dask", "shard-missing-qid",
         lambda t: _shard_eval(_shards(t, [SHARD_A.assign(qid=[1.0] * 3), SHARD_B.assign(qid=[2.0, np.nan])])),
         words=("part-00001.parquet", "row 2")),
    Case("dask", "shards-query-in-two-files",
         lambda t: _shard_eval(_shards(t, [SHARD_A, SHARD_B.assign(qid=[1, 1])])),
         words=("part-00000.parquet", "part-00001.parquet", "qid")),
    Case("dask", "shard-query-not-contiguous",
         lambda t: _shard_eval(_shards(t, [SHARD_A.assign(qid=[1, 3, 1]), SHARD_B])),
         words=("part-00000.parquet", "row 3")),
    # ------------------------------------------------------------------------ where (locations)
    Case("where", "dict-qrels-float-docno",
         lambda t: _trec_objects_eval({"u": {1.5: 1}}, {"u": {"a": 1.0}}),
         words=("qrels dict", "['u'][1.5]", "document id"), never=("column 'None'",)),
    Case("where", "dict-qrels-none-docno",
         lambda t: _trec_objects_eval({"u": {None: 1}}, {"u": {"a": 1.0}}),
         words=("qrels dict", "['u'][None]"), never=("column 'None'",)),
    Case("where", "dict-run-float-qid",
         lambda t: _trec_objects_eval({"u": {"a": 1}}, {2.5: {"a": 1.0}}),
         words=("run dict", "[2.5]['a']", "query id"), never=("column 'None'",)),
    Case("where", "dict-run-bool-qid",
         lambda t: _trec_objects_eval({"u": {"a": 1}}, {True: {"a": 1.0}}),
         words=("run dict", "[True]['a']"), never=("column 'None'",)),
    Case("where", "frame-label-above-profile",
         lambda t: _frame_eval(MIXED.assign(label=[0, 100, 1, 0, 1, 0]), profile="lightgbm"),
         words=("DataFrame", "row 2", "'label'", "above 30")),
    Case("where", "frame-label-above-profile-after-regroup",
         lambda t: _frame_eval(pd.DataFrame({"qid": [1, 2, 1], "label": [0, 0, 100],
                                             "score": [.1, .2, .3]}), profile="lightgbm"),
         words=("DataFrame", "row 3", "'label'")),
    Case("where", "dask-convert-bad-rating-names-line", _dask_convert,
         words=("ratings.csv:9", "'r'", "high")),
    Case("where", "dask-convert-bad-id-names-line", _dask_convert_id,
         words=("ratings.csv:7", "'i'", "12.5")),
    Case("where", "folder-with-bad-movielens-file-says-why", _folder_bad_movielens,
         words=("u.data", "2"), never=("not a dataset folder",)),
    Case("where", "folder-missing-test-split-says-which", _folder_missing_test,
         words=("test",)),
    Case("where", "frame-negative-weight-names-column",
         lambda t: _frame_eval(MIXED.assign(w=[1, 1, 1, 1, -1, 1]), weights="w"),
         words=("DataFrame", "row 5", "'w'")),
    Case("where", "frame-with-index-names-label",
         lambda t: _frame_eval(MIXED.assign(label=[0, 1, 2, 0, 100, 0]).set_index(
             pd.Index(list("abcdef"))), profile="lightgbm"), words=("DataFrame", "row 5", "'e'")),
    Case("where", "dict-qrels-text-relevance-names-keys",
         lambda t: _trec_objects_eval({"u": {"a": "2"}}, {"u": {"a": 1.0}}),
         words=("['u']['a']", "relevance")),
    Case("where", "dict-run-nan-score-names-keys",
         lambda t: _trec_objects_eval({"u": {"a": 1}}, {"u": {"a": float("nan")}}),
         words=("['u']['a']", "score")),
    Case("where", "dask-ratings-tsv-bad-timestamp-names-line", _dask_tsv,
         words=("ratings.tsv:3", "'t'")),
    Case("where", "dask-ratings-parquet-shard-names-its-file", _dask_parquet_shards,
         words=("b.parquet", "'i'")),
    Case("where", "folder-of-other-files-says-what-it-holds", _folder_of_other_files,
         words=("not a dataset folder", "notes.md", "x.csv")),
    Case("where", "full-disk-names-the-path", _full_disk, words=("per_query.csv",),
         error=OSError),
    Case("where", "full-disk-file-set-names-the-folder", _full_disk_set, words=("rep",),
         error=OSError),
]


def test_catalogue_covers_every_class() -> None:
    classes = {c.cls for c in CASES}
    assert classes == {"line-ends", "ids", "scores", "dask", "where"}
    assert len({c.name for c in CASES}) == len(CASES)


def _outcome(case: Case, tmp: Path) -> str | None:
    """None when the case behaves, else what went wrong (for the test and the counts)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = case.run(tmp)
    except case.error as exc:
        msg = str(exc) if not isinstance(exc, OSError) or exc.filename is None \
            else f"{exc.filename}: {exc.strerror}"
        if case.words and all(w in msg for w in case.words) \
                and not any(w in msg for w in case.never):
            return None
        return f"unclear error: {msg}"
    except Exception as exc:  # a traceback for the user
        return f"traceback: {type(exc).__name__}: {exc}"
    if case.words:
        return f"silent accept: returned {got!r}"
    if isinstance(case.value, float):
        return None if got == pytest.approx(case.value, abs=1e-12) else f"wrong number {got!r}"
    return None if got == case.value else f"wrong value {got!r}"


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.cls}:{c.name}")
def test_hostile_input(case: Case, tmp_path: Path) -> None:
    problem = _outcome(case, tmp_path)
    assert problem is None, problem


def test_a_bad_label_in_a_letor_file_names_the_files_line(tmp_path: Path) -> None:
    """check_letor (run before training) names the line of the file, comments and blank lines
    counted, not the internal data row; line ends LF or CR-only alike."""
    from bench.data.checks import check_letor
    from bench.data.svmlight import read_svmlight

    text = "# header\n\n" + DATA.replace("1 qid:2 1:0.2", "100 qid:2 1:0.2")
    for name, body in (("lf.txt", text), ("cr.txt", _cr(text))):
        data = read_svmlight(_write(tmp_path, name, body))
        with pytest.raises(DataError, match=rf"{name}:6, row 4, column 'label': label 100 is "
                                            r"outside 0\.\.31"):
            check_letor(data)


_ENDS = st.sampled_from(["\n", "\r\n", "\r"])


def _join(lines: list[str], ends: list[str]) -> str:
    return "".join(ln + ends[i % len(ends)] for i, ln in enumerate(lines))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ends=st.lists(_ENDS, min_size=1, max_size=6), blanks=st.lists(st.booleans(), max_size=6))
def test_any_mix_of_line_ends_reads_as_lf(tmp_path_factory: pytest.TempPathFactory,
                                          ends: list[str], blanks: list[bool]) -> None:
    """TREC runs, qrels and SVMlight files with any mix of LF / CRLF / CR (and blank lines) give
    the rows of the LF file, and the TREC number pytrec_eval gives."""
    from bench.data.svmlight import read_svmlight
    from bench.data.trec import read_qrels, read_run

    tmp = tmp_path_factory.mktemp("ends")

    def mixed(text: str) -> str:
        lines = text.splitlines()
        out = []
        for i, ln in enumerate(lines):
            out.append(ln)
            if i < len(blanks) and blanks[i]:
                out.append("")
        return _join(out, ends)

    run = read_run(_write(tmp, "r.txt", mixed(RUN)))
    ref = read_run(_write(tmp, "r_lf.txt", RUN))
    assert run.qid.tolist() == ref.qid.tolist()
    assert run.score.tolist() == ref.score.tolist()
    qrels = read_qrels(_write(tmp, "q.txt", mixed(QRELS)))
    assert qrels.rel.tolist() == [1, 0, 2, 1, 0]
    data = read_svmlight(_write(tmp, "d.txt", mixed(DATA)))
    assert data.y.tolist() == [2, 0, 1, 1, 0]
    assert data.qid.tolist() == [1, 1, 1, 2, 2]
    assert _trec(tmp, mixed(QRELS), mixed(RUN)) == pytest.approx(TREC_NDCG, abs=1e-12)


def test_a_bad_shard_on_a_dask_cluster_is_one_line_without_a_worker_traceback(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """``evaluate --engine dask`` on a local cluster: the refusal is one line naming the shard
    file, row and column; no worker logs "Compute Failed ... Traceback" on stderr first."""
    pytest.importorskip("distributed")
    from bench import cli

    folder = _shards(tmp_path, [SHARD_A, SHARD_B.assign(score=[np.nan, 1.0])])
    assert cli.main(["evaluate", "--engine", "dask", "--data", str(folder), "--workers", "1"]) == 2
    err = capfd.readouterr().err
    assert "part-00001.parquet, row 1, column 'score'" in err
    assert "Traceback" not in err
    assert "Compute Failed" not in err
